//! The door: every request, whatever brought it — a chat message, a button
//! press, a Mini App call, an MCP call — is admitted here once, before
//! anything costly is done for it: who it is, the allow-lists
//! (`bot.allowed_users`, `bot.allowed_chats`), the rate limit
//! (`bot.rate_limit_per_minute`), the language, the daily token budget and
//! the message count. What comes out is an [`Admitted`], which only this
//! file can make: the stages after the door (a turn, a tool call, a
//! confirmation) take one as a parameter, so none of them can run for a
//! request that did not pass.
//!
//! Each way in knocks as a [`Way`]: a chat message (text, command, voice,
//! photo, a pressed suggestion) passes every check and is counted; a change
//! from the Mini App or an MCP call passes the allow-lists and the rate
//! limit; a confirmation pressed, or a read of the shopper's own, the
//! allow-lists only (the request that asked was counted); staff at the
//! service desk are admitted from the desk's group only. A chat is told a
//! refusal once (remembered for 30 days) and the rate-limit notice once a
//! window, then silence; the Mini App and MCP answer every turned request
//! with [`Turned::message`]. A transport that already read the `/lang` choice
//! hands it over (`ChosenLang::Read`), so the door does not read it again.
//!
//! The language: the `/lang` choice, else the conversation's language
//! followed by what the message says of its own ([`handlers::Said`]: a size,
//! "y", a number, a code or a brand keep it; a message clearly in another
//! language switches it), else, in a conversation not yet in one, the
//! transport's (the message's, the Telegram language, `bot.language`). The
//! turn remembers the conversation's language
//! ([`Door::remember_conversation_lang`]); `/lang` sets the choice
//! ([`Door::set_lang`]).
//!
//! Admin rights: an [`Admitted`] says whether it is one of the configured
//! Telegram admins (`telegram.admins`, [`Admitted::is_admin`]), so a
//! transport asks the request instead of reading the config.

use std::sync::Arc;
use std::time::Duration;

use handlers::{Lang, Said};

use super::scope::{TurnScope, today};
use crate::engine::context::{ChosenLang, MessageContext};
use crate::engine::reply::Reply;
use crate::engine::stats::Stats;
use crate::infra::state::StateStore;

/// How long a refusal is remembered (so a stranger in a chat hears it once).
const REFUSAL_MEMORY: Duration = Duration::from_secs(30 * 24 * 3600);

/// How long a `/lang` choice is remembered.
const LANG_TTL: Duration = Duration::from_secs(365 * 24 * 3600);

/// The door's settings (`[bot]`, `telegram.admins`).
#[derive(Debug, Clone)]
pub struct DoorSettings {
    /// Users admitted (`bot.allowed_users`; empty with no chats listed = everyone).
    pub allowed_users: Vec<i64>,
    /// Chats admitted (`bot.allowed_chats`).
    pub allowed_chats: Vec<i64>,
    /// Requests per person per minute (`bot.rate_limit_per_minute`; 0 = no limit).
    pub rate_limit_per_minute: u32,
    /// Model tokens a shopper may use a day before basic mode (`bot.daily_tokens_per_user`; 0 = no limit).
    pub daily_tokens_per_user: u64,
    /// Telegram users with admin rights (`telegram.admins`): [`Admitted::is_admin`].
    pub admins: Vec<i64>,
}

impl Default for DoorSettings {
    fn default() -> Self {
        DoorSettings {
            allowed_users: Vec::new(),
            allowed_chats: Vec::new(),
            rate_limit_per_minute: 20,
            daily_tokens_per_user: 0,
            admins: Vec::new(),
        }
    }
}

/// The door: the only maker of an [`Admitted`], and the keeper of the
/// shoppers' languages.
pub(crate) struct Door {
    state: Arc<dyn StateStore>,
    /// The message count (`/health`).
    stats: Arc<Stats>,
    settings: DoorSettings,
    /// The service desk's group, where staff are admitted (none: no staff).
    desk_chat: Option<i64>,
}

/// What a request is, as far as the door is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Way {
    /// A shopper's message in a chat (text, command, voice, photo, a
    /// suggestion pressed): the allow-lists, the rate limit, the day's
    /// budget, and it counts as a handled message.
    Message,
    /// A change asked for outside a chat (a Mini App cart or order change,
    /// an MCP tool call): the allow-lists and the rate limit.
    Call,
    /// A confirmation or an alert's remove button pressed, a read of the
    /// shopper's own (the Mini App's cart and orders), or a message the bot
    /// sends by itself (a stock or price alert): the allow-lists only — the
    /// request that asked was counted already.
    Press,
    /// A message or button of the mall's staff in the service desk's group
    /// (`[support] chat_id`): admitted there only — the desk is its own
    /// allow-list, the shoppers' lists are not staff's —, not a shopper's
    /// message, so no rate limit, budget or count.
    Staff,
    /// A read of what the mall shows anyone (the Mini App's map, directory,
    /// a store, a route), signed in or not: no checks — the same pages are
    /// open to every visitor —, only the `/lang` choice read. The tools it
    /// runs see no shopper of their own.
    Visitor,
}

/// A request at the door: who, where, in which language, and what it is.
#[derive(Debug, Clone)]
pub struct Knock {
    /// `telegram`, `console`, `mcp`: the namespace of the user id.
    pub platform: &'static str,
    pub user_id: i64,
    /// The chat it came from (the user in a private chat, the Mini App, MCP).
    pub chat_id: i64,
    /// The language the transport would answer in without a `/lang` choice
    /// in a conversation that has no language yet.
    pub lang: Lang,
    /// What the transport already read of the `/lang` choice.
    pub chosen: ChosenLang,
    /// What the message says of its own language (`Said::Nothing` for a
    /// press, a Mini App or MCP call).
    pub said: Said,
    pub way: Way,
}

impl Knock {
    /// The knock of a chat message.
    pub(crate) fn message(ctx: &MessageContext, chosen: ChosenLang) -> Knock {
        Knock {
            platform: ctx.platform,
            user_id: ctx.user_id,
            chat_id: ctx.chat_id,
            lang: ctx.lang,
            chosen,
            said: Lang::said(&ctx.text),
            way: Way::Message,
        }
    }

    /// A visitor reading what the mall shows anyone ([`Way::Visitor`]), in
    /// the language the page asks for; `user_id` the signed-in person, if
    /// any, whose `/lang` choice is read (0: nobody).
    pub(crate) fn visitor(platform: &'static str, user_id: i64, lang: Lang) -> Knock {
        Knock::private(platform, user_id, lang, Way::Visitor)
    }

    /// A request of one person outside a chat (the Mini App, MCP): the
    /// person is the chat.
    pub(crate) fn private(platform: &'static str, user_id: i64, lang: Lang, way: Way) -> Knock {
        Knock {
            platform,
            user_id,
            chat_id: user_id,
            lang,
            chosen: ChosenLang::Unread,
            said: Said::Nothing,
            way,
        }
    }
}

/// A request the door let in. Only the door makes one; every later stage
/// asks for it.
#[derive(Debug, Clone)]
pub struct Admitted {
    platform: &'static str,
    user_id: i64,
    chat_id: i64,
    lang: Lang,
    chosen: Option<Lang>,
    /// The conversation's language as the door found it (none yet: `None`).
    conversation: Option<Lang>,
    budget: Budget,
    /// One of `telegram.admins`.
    admin: bool,
}

impl Admitted {
    pub(crate) fn platform(&self) -> &'static str {
        self.platform
    }

    pub(crate) fn user_id(&self) -> i64 {
        self.user_id
    }

    pub(crate) fn chat_id(&self) -> i64 {
        self.chat_id
    }

    /// The language to answer in: the `/lang` choice, else the
    /// conversation's after the message, else the transport's.
    pub(crate) fn lang(&self) -> Lang {
        self.lang
    }

    /// The same request answered in `lang` (a command's language, settled by its transport).
    pub(crate) fn in_lang(mut self, lang: Lang) -> Admitted {
        self.lang = lang;
        self
    }

    /// The shopper's `/lang` choice, when made.
    pub(crate) fn chosen(&self) -> Option<Lang> {
        self.chosen
    }

    /// The conversation's language after `text` (the words the turn
    /// answers: a message's text, a voice message's transcript), which the
    /// transport would answer in `text_lang` in a conversation with none yet
    /// ([`Lang::opening`]).
    pub(crate) fn spoken(&self, text: &str, text_lang: Lang) -> Lang {
        match self.conversation {
            Some(conversation) => conversation.follow(Lang::said(text)),
            // Latin words that are no name ("wifi?") open a conversation in English.
            None => text_lang.opening(Lang::said(text)),
        }
    }

    /// The language of an answer in a conversation now in `spoken`: the
    /// `/lang` choice wins.
    pub(crate) fn lang_or(&self, spoken: Lang) -> Lang {
        self.chosen.unwrap_or(spoken)
    }

    /// The conversation's language as the door found it.
    pub(crate) fn conversation_lang(&self) -> Option<Lang> {
        self.conversation
    }

    /// Today's token budget is spent (a voice message is then not transcribed).
    pub(crate) fn over_budget(&self) -> bool {
        matches!(self.budget, Budget::Spent { .. })
    }

    pub(super) fn budget(&self) -> Budget {
        self.budget
    }

    /// One of the configured Telegram admins (`telegram.admins`): the
    /// admins' commands (`/stats`, `/ready`, `/pickedup`…) are theirs.
    pub(crate) fn is_admin(&self) -> bool {
        self.admin
    }
}

/// Where the shopper stands with today's token budget (read at the door
/// for chat messages only: nothing else calls the model).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Budget {
    /// No budget, or some of it left (or it could not be read).
    Within,
    /// Spent: the offline planner answers; `tell` the first time today.
    Spent { tell: bool },
}

impl TurnScope {
    /// The scope of an admitted request outside a chat (the Mini App, an
    /// MCP client): private, the chat is where the door saw it.
    pub(super) fn admitted(admitted: &Admitted) -> Self {
        TurnScope {
            platform: admitted.platform.to_owned(),
            user_id: admitted.user_id,
            chat_id: admitted.chat_id,
            is_group: false,
            mentioned: true,
            lang: admitted.lang,
        }
    }
}

/// Why the door turned a request away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// Not on `bot.allowed_users` and not in a chat of `bot.allowed_chats`.
    NotAllowed,
    /// Over `bot.rate_limit_per_minute`.
    SlowDown,
}

/// A request the door turned away, and what to tell.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turned {
    pub why: Why,
    pub(crate) lang: Lang,
    /// The first refusal (or the first over the limit in its window): a
    /// chat says it once and then keeps silent. A caller that must answer
    /// every request (HTTP, MCP) answers [`Turned::message`] each time.
    pub tell: bool,
}

impl Turned {
    /// Why, in the shopper's words.
    pub(crate) fn message(&self) -> &'static str {
        match self.why {
            Why::NotAllowed => self.lang.texts().turn.refused,
            Why::SlowDown => self.lang.texts().turn.rate_limited,
        }
    }

    /// A chat's answer: the message the first time, else nothing (an empty
    /// reply, left unsent).
    pub fn reply(&self) -> Reply {
        if self.tell { Reply::text(self.message()) } else { Reply::default() }
    }
}

impl Door {
    /// The door, with the desk's group (`[support] chat_id`) where staff are admitted.
    pub(super) fn new(
        state: Arc<dyn StateStore>,
        stats: Arc<Stats>,
        settings: DoorSettings,
        desk_chat: Option<i64>,
    ) -> Self {
        Door { state, stats, settings, desk_chat }
    }

    /// The door: admits `knock` or says why not. Reads the `/lang` choice
    /// (unless the transport did), counts the request against the rate
    /// limit, reads the day's budget for a chat message and counts it.
    pub(super) async fn admit(&self, knock: Knock) -> Result<Admitted, Turned> {
        let chosen = match knock.chosen {
            ChosenLang::Read(chosen) => chosen,
            ChosenLang::Unread => self.chosen_lang(knock.platform, knock.user_id).await,
        };
        let conversation = if matches!(knock.way, Way::Staff | Way::Visitor) {
            None
        } else {
            let key = crate::engine::context::conversation_key(knock.platform, knock.chat_id, knock.user_id);
            self.conversation_lang(&key).await
        };
        let lang = chosen.unwrap_or(match conversation {
            Some(conversation) => conversation.follow(knock.said),
            None => knock.lang.opening(knock.said),
        });
        match knock.way {
            Way::Staff => self.at_the_desk(&knock, lang)?,
            Way::Visitor => {}
            Way::Message | Way::Call | Way::Press => self.allowed(&knock, lang).await?,
        }
        if knock.way == Way::Message {
            self.stats.count_message();
        }
        if matches!(knock.way, Way::Message | Way::Call) {
            self.rate_limit(&knock, lang).await?;
        }
        let budget = if knock.way == Way::Message {
            self.budget(knock.platform, knock.user_id).await
        } else {
            Budget::Within
        };
        Ok(Admitted {
            platform: knock.platform,
            user_id: knock.user_id,
            chat_id: knock.chat_id,
            lang,
            chosen,
            conversation,
            budget,
            // The admins are Telegram users: the id means that in Telegram's namespace only.
            admin: knock.platform == "telegram"
                && knock.way != Way::Visitor
                && self.settings.admins.contains(&knock.user_id),
        })
    }

    /// Staff are admitted from the service desk's group only; elsewhere
    /// turned away in silence.
    fn at_the_desk(&self, knock: &Knock, lang: Lang) -> Result<(), Turned> {
        match self.desk_chat {
            Some(desk) if desk == knock.chat_id => Ok(()),
            _ => {
                tracing::info!(
                    user = knock.user_id,
                    chat = knock.chat_id,
                    "a staff message outside the desk; ignored"
                );
                Err(Turned { why: Why::NotAllowed, lang, tell: false })
            }
        }
    }

    /// The allow-lists: everyone when neither is set; else a listed user, or
    /// anyone in a listed chat. A refusal is remembered, so a chat tells it once.
    async fn allowed(&self, knock: &Knock, lang: Lang) -> Result<(), Turned> {
        let (users, chats) = (&self.settings.allowed_users, &self.settings.allowed_chats);
        if (users.is_empty() && chats.is_empty())
            || users.contains(&knock.user_id)
            || chats.contains(&knock.chat_id)
        {
            return Ok(());
        }
        metrics::counter!(crate::infra::ops::LIMITED, "reason" => "not_allowed").increment(1);
        let key = crate::infra::state::keys::refused(knock.platform, knock.user_id, knock.chat_id);
        let told = match self.state.get_value(&key).await {
            Ok(found) => found.is_some(),
            Err(e) => {
                tracing::warn!(error = %e, "could not check an earlier refusal");
                false
            }
        };
        if !told {
            if let Err(e) = self.state.put_value(&key, "1", REFUSAL_MEMORY).await {
                tracing::warn!(error = %e, "could not remember a refusal");
            }
            tracing::info!(
                platform = knock.platform,
                user = knock.user_id,
                chat = knock.chat_id,
                "not an allowed user or chat; refused"
            );
        }
        Err(Turned { why: Why::NotAllowed, lang, tell: !told })
    }

    /// At most `bot.rate_limit_per_minute` requests per person a minute; a
    /// store that cannot count lets the request through.
    async fn rate_limit(&self, knock: &Knock, lang: Lang) -> Result<(), Turned> {
        let limit = self.settings.rate_limit_per_minute;
        if limit == 0 {
            return Ok(());
        }
        let who = services::Shopper::new(knock.platform, knock.user_id).to_string();
        match self.state.rate_hit(&who, Duration::from_secs(60)).await {
            Ok(count) if count > limit => {
                tracing::info!(count, limit, "rate limited");
                metrics::counter!(crate::infra::ops::LIMITED, "reason" => "rate_limited").increment(1);
                Err(Turned { why: Why::SlowDown, lang, tell: count == limit + 1 })
            }
            Ok(_) => Ok(()),
            Err(e) => {
                tracing::warn!(error = %e, "rate limit check failed; letting the request through");
                Ok(())
            }
        }
    }

    /// Today's budget (`bot.daily_tokens_per_user`); a store that cannot be
    /// read lets the message through.
    async fn budget(&self, platform: &str, user_id: i64) -> Budget {
        let budget = self.settings.daily_tokens_per_user;
        if budget == 0 {
            return Budget::Within;
        }
        match self.state.counts(&crate::infra::state::keys::spent(platform, user_id, today())).await {
            Ok(spent) if spent.get("tokens").copied().unwrap_or(0) >= budget as i64 => {
                tracing::info!(budget, "daily token budget spent; basic mode");
                metrics::counter!(crate::infra::ops::LIMITED, "reason" => "over_budget").increment(1);
                Budget::Spent { tell: spent.get("told").copied().unwrap_or(0) == 0 }
            }
            Ok(_) => Budget::Within,
            Err(e) => {
                tracing::warn!(error = %e, "could not read today's token use; letting the message through");
                Budget::Within
            }
        }
    }

    /// Sets the language a shopper is answered in (`/lang`); kept in the state
    /// store, so every instance answers in it.
    pub(super) async fn set_lang(&self, ctx: &MessageContext, lang: Lang) {
        let key = crate::infra::state::keys::lang(ctx.platform, ctx.user_id);
        if let Err(e) = self.state.put_value(&key, lang.as_str(), LANG_TTL).await {
            tracing::warn!(error = %e, "could not remember the chosen language");
        }
    }

    /// The language a shopper chose with `/lang`, if any.
    pub(super) async fn chosen_lang(&self, platform: &str, user_id: i64) -> Option<Lang> {
        match self.state.get_value(&crate::infra::state::keys::lang(platform, user_id)).await {
            Ok(value) => value.as_deref().and_then(Lang::parse),
            Err(e) => {
                tracing::warn!(error = %e, "could not read the chosen language");
                None
            }
        }
    }

    /// The language conversation `conversation` is in (the last its shopper
    /// clearly wrote in), if it has one yet.
    pub(super) async fn conversation_lang(&self, conversation: &str) -> Option<Lang> {
        match self.state.get_value(&crate::infra::state::keys::conversation_lang(conversation)).await {
            Ok(value) => value.as_deref().and_then(Lang::parse),
            Err(e) => {
                tracing::warn!(error = %e, "could not read the conversation's language");
                None
            }
        }
    }

    /// Remembers that conversation `conversation` is now in `lang`.
    pub(super) async fn remember_conversation_lang(&self, conversation: &str, lang: Lang) {
        let key = crate::infra::state::keys::conversation_lang(conversation);
        if let Err(e) = self.state.put_value(&key, lang.as_str(), LANG_TTL).await {
            tracing::warn!(error = %e, "could not remember the conversation's language");
        }
    }
}

#[cfg(test)]
mod tests;
