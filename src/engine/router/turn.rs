//! One turn of a conversation: who it is for ([`TurnScope`]), what it has
//! gathered so far ([`Turn`]), how it ended ([`TurnEnd`]), and the two ends
//! of every turn — opening it with the conversation's history, and closing it
//! with the answer, the history saved and the tokens counted.
//!
//! A turn builds its request once (`Turn::new`: the system prompt in front
//! of the history and the message, the turn's note worked out once); each
//! round adds the note for the call and takes it off again (`Turn::noted`),
//! so no round copies the conversation, and the note never reaches the stored
//! history. Closing a turn saves the history (cut to `bot.history_messages`,
//! then to `bot.history_tokens`: `history.rs`) and adds the tokens to the
//! conversation's total and the shopper's day (the daily budget the door
//! reads).
//!
//! [`Turns`] is the part of the router that runs turns: the model (or the
//! offline planner), the tools through the shared [`Toolbox`], the
//! conversations' histories and locks, and the cache of safe results. A risky
//! call is handed to the confirmation service ([`Confirmations::ask`]); a
//! request for a person to the desk ([`StaffDesk::handoff_reply`]).

use std::sync::Arc;
use std::time::Duration;

use super::access::Budget;
use super::cache::ToolCache;
use super::confirm::Confirmations;
use super::desk::{DAY_FIGURES_TTL, StaffDesk};
use super::lock::Locks;
use super::scope::{TurnScope, today};
use super::toolbox::Toolbox;
use super::{history, prompt};
use crate::engine::context::MessageContext;
use crate::engine::fallback::ChatFallback;
use crate::engine::llm::offline::OfflinePlanner;
use crate::engine::llm::{ChatMessage, ChatModel, Role, Usage};
use crate::engine::pending::PendingAction;
use crate::engine::progress::Progress;
use crate::engine::reply::Reply;
use crate::engine::report::Event;
use crate::engine::stats::Stats;
use crate::infra::state::StateStore;

/// The turn's settings (`[llm]`, `[bot]`).
#[derive(Debug, Clone)]
pub struct TurnSettings {
    /// Model calls per shopper message (`llm.max_rounds`).
    pub max_rounds: u32,
    /// A tool's own words may end the turn (`llm.direct_answers`).
    pub direct_answers: bool,
    /// Time limit of one tool call (`llm.tool_timeout_secs`).
    pub tool_timeout: Duration,
    /// Messages remembered per conversation (`bot.history_messages`).
    pub history_messages: usize,
    /// Token budget of the remembered conversation (`bot.history_tokens`; 0 = none).
    pub history_tokens: usize,
    /// A silent conversation is forgotten after this long.
    pub history_ttl: Duration,
    /// How long safe, shopper-independent tool results are reused (`bot.tool_cache_secs`).
    pub tool_cache_ttl: Duration,
    /// How long a turn holds its conversation's lock before renewing it (a
    /// crashed instance's lock frees itself after this).
    pub lock_ttl: Duration,
}

impl Default for TurnSettings {
    fn default() -> Self {
        TurnSettings {
            max_rounds: 10,
            direct_answers: true,
            tool_timeout: Duration::from_secs(10),
            history_messages: 20,
            history_tokens: 0,
            history_ttl: Duration::from_secs(7 * 24 * 3600),
            tool_cache_ttl: Duration::from_secs(30),
            lock_ttl: Duration::from_secs(120),
        }
    }
}

/// What the turns stand on besides their settings: the shared handles and
/// the parts they hand work to.
pub(crate) struct TurnDeps {
    pub(super) model: Arc<dyn ChatModel>,
    pub(super) planner: OfflinePlanner,
    pub(super) chat: ChatFallback,
    pub(super) state: Arc<dyn StateStore>,
    pub(super) stats: Arc<Stats>,
    pub(super) tools: Arc<Toolbox>,
    pub(super) confirmations: Arc<Confirmations>,
    pub(super) desk: Arc<StaffDesk>,
}

/// The part of the router that runs turns: opens, loops, closes.
pub(crate) struct Turns {
    pub(super) model: Arc<dyn ChatModel>,
    pub(super) planner: OfflinePlanner,
    chat: ChatFallback,
    state: Arc<dyn StateStore>,
    pub(super) stats: Arc<Stats>,
    pub(super) tools: Arc<Toolbox>,
    pub(super) confirmations: Arc<Confirmations>,
    pub(super) desk: Arc<StaffDesk>,
    pub(super) tool_cache: ToolCache,
    /// One turn at a time per conversation.
    pub(super) locks: Locks,
    pub(super) settings: TurnSettings,
}

/// A tool loop in progress.
pub(super) struct Turn {
    pub(super) scope: TurnScope,
    /// The model's request as it stands: the system prompt, then the
    /// history and this turn's messages. Built once per turn, so a round
    /// copies nothing; the turn's note joins the shopper's latest message
    /// only while a request is out ([`Turn::noted`]).
    pub(super) messages: Vec<ChatMessage>,
    /// What the shopper's latest message tells the model besides its text
    /// ([`prompt::turn_note`]): the same for every round of the turn.
    note: Option<String>,
    pub(super) rounds_used: u32,
    /// The model could not be reached: the offline planner plays it.
    pub(super) basic_mode: bool,
    pub(super) usage: Usage,
    /// The last suggestion buttons a tool offered.
    pub(super) suggestions: Vec<String>,
    /// The last picture a tool offered.
    pub(super) image: Option<String>,
    /// The pictures a tool drew (floor plans), in order.
    pub(super) pictures: Vec<handlers::Picture>,
    /// Unpaid orders a tool showed (offered a pay button).
    pub(super) payable: Vec<String>,
    /// The store a tool showed the way to or described.
    pub(super) map_store: Option<String>,
    pub(super) tools_ran: bool,
    /// The shopper spent today's token budget: the offline planner answers.
    pub(super) over_budget: bool,
    /// Say so in this answer (the first over-budget turn of the day).
    pub(super) tell_over_budget: bool,
    /// The tools that ran, for the day's figures.
    pub(super) tools_used: Vec<&'static str>,
    /// Failed tool calls and model calls.
    pub(super) errors: u32,
    /// What the report counts of this turn (misses, empty searches…).
    pub(super) events: Vec<crate::engine::report::Event>,
    /// A tool found something for the shopper (a turn with a miss on the
    /// way that ends helped is no miss).
    pub(super) helped: bool,
}

impl Turn {
    /// A turn continuing `conversation` (a new message's, or a resumed loop's).
    pub(super) fn new(scope: TurnScope, conversation: Vec<ChatMessage>) -> Self {
        let mut messages = Vec::with_capacity(conversation.len() + 8);
        messages.push(ChatMessage::system(prompt::SYSTEM_PROMPT));
        messages.extend(conversation);
        let note = messages
            .iter()
            .rev()
            .find(|m| m.role == Role::User)
            .and_then(|m| prompt::turn_note(scope.lang, scope.is_group, m.text()));
        Turn {
            scope,
            messages,
            note,
            rounds_used: 0,
            basic_mode: false,
            usage: Usage::default(),
            suggestions: Vec::new(),
            image: None,
            pictures: Vec::new(),
            payable: Vec::new(),
            map_store: None,
            tools_ran: false,
            over_budget: false,
            tell_over_budget: false,
            tools_used: Vec::new(),
            errors: 0,
            events: Vec::new(),
            helped: false,
        }
    }

    /// The budget as the door found it: spent, the offline planner answers,
    /// and the first such turn of the day says so.
    pub(super) fn apply_budget(&mut self, budget: Budget) {
        if let Budget::Spent { tell } = budget {
            self.over_budget = true;
            self.basic_mode = true;
            self.tell_over_budget = tell;
        }
    }

    /// The conversation without the system prompt (what the history keeps).
    pub(super) fn conversation(&self) -> &[ChatMessage] {
        match self.messages.first() {
            Some(first) if first.role == Role::System => &self.messages[1..],
            _ => &self.messages,
        }
    }

    /// Takes the conversation out of the turn, without the system prompt.
    fn take_conversation(&mut self) -> Vec<ChatMessage> {
        let mut messages = std::mem::take(&mut self.messages);
        if messages.first().is_some_and(|m| m.role == Role::System) {
            messages.remove(0);
        }
        messages
    }

    /// The messages with the turn's note at the end of the shopper's latest
    /// message, for one model request; [`Noted::remove`] takes it off again.
    pub(super) fn noted(&mut self) -> Noted {
        match &self.note {
            Some(note) => Noted(prompt::add_note(&mut self.messages, note)),
            None => Noted(None),
        }
    }
}

/// Where a turn's note was added: the message and its text's length before.
#[must_use = "the note stays in the history unless removed"]
pub(super) struct Noted(Option<(usize, usize)>);

impl Noted {
    pub(super) fn remove(self, turn: &mut Turn) {
        prompt::remove_note(&mut turn.messages, self.0);
    }
}

/// How a turn ended.
pub(super) enum TurnEnd {
    /// The model answered in text (empty: a short "done").
    Answer(String),
    /// The model had nothing to do with the message: small talk.
    SmallTalk,
    /// The round limit was reached, or three rounds in a row failed.
    GaveUp,
    /// The turn stopped with this reply (a confirmation question, a group
    /// hand-off); `turn.messages` already holds what the history should keep.
    Stopped(Reply),
    /// The turn could not be kept (the state store failed): this reply, and
    /// nothing saved.
    Unsaved(Reply),
}

impl Turns {
    pub(super) fn new(deps: TurnDeps, settings: TurnSettings) -> Self {
        let TurnDeps { model, planner, chat, state, stats, tools, confirmations, desk } = deps;
        Turns {
            model,
            planner,
            chat,
            tool_cache: ToolCache::new(settings.tool_cache_ttl),
            locks: Locks::new(state.clone(), settings.lock_ttl),
            state,
            stats,
            tools,
            confirmations,
            desk,
            settings,
        }
    }

    /// A whole turn for an admitted message (the caller holds the lock):
    /// opened with the history, the day's budget as the door found it, the
    /// tool loop, closed.
    pub(super) async fn take(&self, ctx: &MessageContext, budget: Budget, progress: &Progress) -> Reply {
        let mut turn = self.open_turn(ctx).await;
        turn.apply_budget(budget);
        let (turn, end) = self.tool_loop(turn, progress).await;
        self.close_turn(turn, end, &ctx.text).await
    }

    /// Continues the tool loop that held `action`, its waiting call
    /// answered with `result_text` (after a press or a typed code).
    pub(super) async fn resume(
        &self,
        action: PendingAction,
        result_text: String,
        progress: &Progress,
    ) -> Reply {
        let scope = TurnScope::of_action(&action);
        let mut messages = match self.state.load_history(&scope.conversation()).await {
            Ok(history) => history,
            Err(e) => {
                tracing::error!(error = %e, "could not load the conversation to resume");
                Vec::new()
            }
        };
        let Some(assistant) = action.assistant.clone() else { return Reply::default() };
        messages.push(assistant.clone());
        for (call, result) in assistant.tool_calls.iter().zip(&action.results) {
            let text = result.clone().unwrap_or_else(|| result_text.clone());
            messages.push(ChatMessage::tool(call.id.clone(), text));
        }
        let mut turn = Turn::new(scope, messages);
        turn.rounds_used = action.rounds_used;
        turn.basic_mode = action.basic_mode;
        turn.tools_ran = true;
        let (turn, end) = self.tool_loop(turn, progress).await;
        self.close_turn(turn, end, "").await
    }

    /// Example requests made of the mall's own names (a product, a store, an offer), for
    /// the greeting's buttons and the terminal chat's banner; learned with basic mode's names.
    pub(super) async fn examples(&self) -> handlers::mall_examples::MallExamples {
        self.planner.lexicon().await.examples.clone()
    }

    /// Whether `text` is only some of the mall's names ("labubu"), which say no language.
    pub(super) async fn only_names(&self, text: &str) -> bool {
        self.planner.lexicon().await.only_names(text)
    }

    /// Forgets the conversation (`/reset`).
    pub(super) async fn reset(&self, ctx: &MessageContext) {
        if let Err(e) = self.state.clear_history(&ctx.conversation_key()).await {
            tracing::error!(error = %e, "could not clear the conversation");
        }
    }

    /// Stage: the conversation's history plus the shopper's message.
    async fn open_turn(&self, ctx: &MessageContext) -> Turn {
        let mut messages = match self.state.load_history(&ctx.conversation_key()).await {
            Ok(history) => history,
            Err(e) => {
                tracing::error!(error = %e, "could not load the conversation; answering without it");
                self.stats.record_error("state store: could not load the conversation");
                Vec::new()
            }
        };
        messages.push(match &ctx.image {
            Some(image) => ChatMessage::user_with_image(ctx.text.clone(), image.clone()),
            None => ChatMessage::user(ctx.text.clone()),
        });
        Turn::new(TurnScope::of(ctx), messages)
    }

    /// Stage: the reply of a finished turn; the history and the tokens are saved.
    async fn close_turn(&self, mut turn: Turn, end: TurnEnd, user_text: &str) -> Reply {
        let lang = turn.scope.lang;
        let (gave_up, small_talk, stopped) = (
            matches!(end, TurnEnd::GaveUp),
            matches!(end, TurnEnd::SmallTalk),
            matches!(end, TurnEnd::Stopped(_)),
        );
        let mut reply = match end {
            TurnEnd::Unsaved(reply) => return reply,
            TurnEnd::Stopped(reply) => reply,
            TurnEnd::SmallTalk => {
                let history: Vec<ChatMessage> = turn
                    .conversation()
                    .iter()
                    .filter(|m| m.tool_calls.is_empty() && m.role != Role::Tool)
                    .cloned()
                    .collect();
                let examples = self.examples().await.requests(lang);
                let reply = self.chat.reply(&history, user_text, lang, !turn.basic_mode, examples).await;
                turn.messages.push(ChatMessage::assistant(reply.text.clone()));
                reply
            }
            TurnEnd::Answer(text) => {
                let text = match text.trim() {
                    "" => lang.texts().turn.done.to_owned(),
                    text => text.to_owned(),
                };
                self.text_answer(&mut turn, text)
            }
            TurnEnd::GaveUp => {
                let text = lang.texts().turn.gave_up;
                self.text_answer(&mut turn, text.to_owned())
            }
        };
        tracing::info!(
            conversation = %turn.scope.conversation(),
            rounds = turn.rounds_used,
            tokens_in = turn.usage.prompt_tokens,
            tokens_out = turn.usage.completion_tokens,
            tokens_cached = turn.usage.cached_tokens,
            basic_mode = turn.basic_mode,
            over_budget = turn.over_budget,
            "turn finished"
        );
        if gave_up {
            turn.events.push(Event::RoundLimit(user_text.to_owned()));
        }
        if small_talk && reply.text == lang.texts().small_talk.other {
            turn.events.push(Event::DontKnow(user_text.to_owned()));
        }
        if stopped {
            turn.helped = true;
        }
        self.after_turn(&turn, user_text, &mut reply).await;
        self.count_turn(&turn).await;
        let conversation = turn.take_conversation();
        self.save_history(&turn.scope, conversation).await;
        reply
    }

    /// The turn in the report; two misses in a row in a private chat (an
    /// "I don't know", nothing found, a tool error, the round limit) offer
    /// a person (the support button); anything else starts the count again.
    /// The answer is marked with its question and tools, for reactions.
    async fn after_turn(&self, turn: &Turn, user_text: &str, reply: &mut Reply) {
        let conversation = turn.scope.conversation();
        self.desk.record(&conversation, true, &turn.events).await;
        reply.rated = Some(crate::engine::reply::Rated {
            question: user_text.to_owned(),
            tools: turn.tools_used.iter().map(|t| (*t).to_owned()).collect(),
        });
        if turn.scope.is_group {
            return;
        }
        let key = crate::infra::state::keys::misses(&conversation);
        let missed = !turn.helped && turn.events.iter().any(Event::is_miss);
        if !missed {
            if let Err(e) = self.state.take_value(&key).await {
                tracing::warn!(error = %e, "could not reset the misses in a row");
            }
            return;
        }
        let before = self.state.get_value(&key).await.ok().flatten().and_then(|v| v.parse::<u32>().ok());
        let misses = before.unwrap_or(0) + 1;
        if let Err(e) = self.state.put_value(&key, &misses.to_string(), MISSES_TTL).await {
            tracing::warn!(error = %e, "could not count the misses in a row");
        }
        if misses >= 2 {
            tracing::info!(misses, "misses in a row; a person is offered");
            reply.suggestions.truncate(3);
            reply.suggestions.push(turn.scope.lang.texts().support.button.to_owned());
        }
    }

    /// Adds the turn to the shared counters, in one step: the conversation's
    /// tokens, the shopper's tokens today (for `bot.daily_tokens_per_user`),
    /// and the day's figures for `/stats`.
    async fn count_turn(&self, turn: &Turn) {
        let scope = &turn.scope;
        let usage = turn.usage;
        let conversation = crate::infra::state::keys::usage(&scope.conversation());
        let spent = crate::infra::state::keys::spent(&scope.platform, scope.user_id, today());
        let day = crate::infra::state::keys::stats(today());
        let shopper = format!("u:{}:{}", scope.platform, scope.user_id);
        let tools: Vec<String> = turn.tools_used.iter().map(|t| format!("tool:{t}")).collect();
        let mut deltas: Vec<(&str, &str, i64)> = vec![
            (&day, "messages", 1),
            (&day, &shopper, 1),
            (&day, "tokens_in", usage.prompt_tokens as i64),
            (&day, "tokens_out", usage.completion_tokens as i64),
            (&day, "tokens_cached", usage.cached_tokens as i64),
            (&day, "errors", i64::from(turn.errors)),
        ];
        deltas.extend(tools.iter().map(|t| (day.as_str(), t.as_str(), 1)));
        if usage != Usage::default() {
            deltas.push((&conversation, "in", usage.prompt_tokens as i64));
            deltas.push((&conversation, "out", usage.completion_tokens as i64));
            deltas.push((&conversation, "cached", usage.cached_tokens as i64));
            deltas.push((&spent, "tokens", (usage.prompt_tokens + usage.completion_tokens) as i64));
        }
        if turn.tell_over_budget {
            deltas.push((&spent, "told", 1));
        }
        // The conversation's total lives as long as the conversation; the day's
        // figures a little past the day.
        let ttl = self.settings.history_ttl.max(DAY_FIGURES_TTL);
        if let Err(e) = self.state.add_counts(&deltas, ttl).await {
            tracing::warn!(error = %e, "could not count the turn's tokens and figures");
        }
    }

    /// The text answer of a turn, with the basic-mode note when the model was
    /// unreachable, the tools' suggestions and picture; remembered in the turn.
    fn text_answer(&self, turn: &mut Turn, text: String) -> Reply {
        let text = if turn.over_budget {
            if turn.tell_over_budget {
                let note = turn.scope.lang.texts().turn.over_budget;
                format!("{text}\n\n{note}")
            } else {
                text
            }
        } else if turn.basic_mode {
            let note = turn.scope.lang.texts().turn.basic_mode;
            format!("{text}\n\n{note}")
        } else {
            text
        };
        turn.messages.push(ChatMessage::assistant(text.clone()));
        let mut suggestions = std::mem::take(&mut turn.suggestions);
        suggestions.truncate(4);
        Reply {
            text,
            suggestions,
            image: turn.image.take(),
            pictures: std::mem::take(&mut turn.pictures),
            payable: std::mem::take(&mut turn.payable),
            map_store: turn.map_store.take(),
            ..Default::default()
        }
    }

    async fn save_history(&self, scope: &TurnScope, mut messages: Vec<ChatMessage>) {
        history::drop_images(&mut messages);
        let kept = history::truncate(messages, self.settings.history_messages);
        let kept = history::fit_tokens(kept, self.settings.history_tokens);
        if let Err(e) = self.state.save_history(&scope.conversation(), kept, self.settings.history_ttl).await
        {
            tracing::error!(error = %e, "could not save the conversation");
            self.stats.record_error("state store: could not save the conversation");
        }
    }

    /// Tokens a conversation has used so far.
    pub(super) async fn conversation_usage(&self, ctx: &MessageContext) -> Usage {
        let counts = self
            .state
            .counts(&crate::infra::state::keys::usage(&ctx.conversation_key()))
            .await
            .unwrap_or_default();
        let count = |field: &str| counts.get(field).copied().unwrap_or(0).max(0) as u64;
        Usage { prompt_tokens: count("in"), completion_tokens: count("out"), cached_tokens: count("cached") }
    }
}

/// How long misses in a row are remembered.
const MISSES_TTL: std::time::Duration = std::time::Duration::from_secs(3600);
