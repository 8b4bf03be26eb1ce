//! The update tree, its door stage, and the dispatcher around them.
//!
//! **The tree decides, the stage knocks, the endpoint acts.** [`schema`]
//! routes each kind of update Telegram is asked for ([`ALLOWED_UPDATES`]) to
//! a reader of this file, which decides — from the update alone, without a
//! state read — whether it is passed over (a group message not addressed to
//! the bot, a service message, a message of a bot, an anonymous reaction…:
//! counted as ignored, no door, nothing read) or which [`Way`] it knocks as,
//! with the words whose language the door weighs, where it runs (its chat's
//! lane, or apart) and how a refusal is told. The stage, [`admitted`], then
//! runs the update where it belongs — in its chat's lane (`lanes.rs`), so the
//! updates of a chat run one at a time, in order, the door included —:
//! it reads the `/lang` choice once (`ChosenLang::Read`), knocks once
//! (`router.admit`), and only then calls the endpoint, handing it the
//! [`Admitted`] and the update's [`Handle`]. A turned update never reaches
//! an endpoint: [`turned_away`] tells it, the one way its kind is told.
//!
//! | update | way | runs | a refusal is told |
//! |---|---|---|---|
//! | message (text, command, voice, photo, anything else) | `Message` | lane | in the chat, once |
//! | message in the service desk's group | `Staff` | lane | not (silence) |
//! | `successful_payment` | `Press` | lane | in the chat, once |
//! | Confirm / Cancel, 💳, ✖ of `/alerts`, the desk's wait / back | `Press` | lane | on the button |
//! | a suggestion, 🧭, 🛒 (the presser's next message) | `Message` | lane | in the chat, once |
//! | the desk card's close | `Staff` | lane | not |
//! | `pre_checkout_query` | `Press` | apart (answered within 10 s) | the query answered with an error |
//! | reaction (👍 / 👎 on an answer) | `Press` | where the dispatcher handed it | in the chat, once |
//!
//! **Why an endpoint cannot skip the door.** An endpoint has the shape
//! `async fn(Handle, Admitted, X) -> Result<Outcome, RequestError>`, and
//! [`admitted`] is the only function of the tree that turns one into a
//! handler. An [`Admitted`] is made only by `router/access.rs`; inside
//! `telegram/` this file is the only one that knocks (no other file names
//! `Knock` or calls `admit`, which a test below checks). The transport
//! itself is in the dispatcher's dependencies only inside [`Door`], whose
//! field only this file reads: a handler registered some other way gets
//! neither the transport nor a [`Handle`] (built only here), so it can do
//! nothing for the update. An endpoint added without `Admitted` in its
//! signature does not compile with [`admitted`]; one that does has been let
//! in.
//!
//! Also here: the lanes' drops (counted; the first drop of a full lane is
//! told), the dispatcher ([`dispatcher`], [`dispatcher_with_end`]) and
//! dispatching until a stop ([`dispatch_until`]).

use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use handlers::Lang;
use teloxide::RequestError;
use teloxide::dispatching::{DefaultKey, DispatcherBuilder, UpdateHandler};
use teloxide::error_handlers::ErrorHandler;
use teloxide::prelude::*;
use teloxide::types::{Me, MessageReactionUpdated, PreCheckoutQuery, ReactionType, User};
use teloxide::update_listeners::UpdateListener;

use super::buttons::{self, Press, Reaction};
use super::callback::{ButtonData, DeskAction};
use super::handle::{FAILED, Handle, LIMITED, Langs, Outcome, REFUSED};
use super::incoming::{self, BotIdentity, Content, Incoming, Reading};
use super::lanes::Queued;
use super::send::{self, Target};
use super::{TelegramError, Transport, pay};
use crate::engine::App;
use crate::engine::context::ChosenLang;
use crate::engine::router::{Admitted, Knock, Turned, Way, Why};

/// How long a stop waits for the turns in flight before giving up on them.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// The updates the bot asks Telegram for (by polling or webhook): without
/// the list Telegram leaves out reactions.
pub const ALLOWED_UPDATES: [teloxide::types::AllowedUpdate; 4] = [
    teloxide::types::AllowedUpdate::Message,
    teloxide::types::AllowedUpdate::CallbackQuery,
    teloxide::types::AllowedUpdate::PreCheckoutQuery,
    teloxide::types::AllowedUpdate::MessageReaction,
];

/// The update tree: messages (a `successful_payment` among them), button
/// presses, pre-checkout queries and reactions to the bot's answers, each
/// read, then past the door to its endpoint. Everything else (edited
/// messages, channel posts…) is not asked for and ignored if it arrives.
pub(crate) fn schema() -> UpdateHandler<TelegramError> {
    dptree::entry()
        .branch(
            Update::filter_message()
                .branch(dptree::filter_map(read_payment).chain(admitted(pay::on_successful_payment)))
                .branch(dptree::map(read_message).chain(admitted(incoming::on_message))),
        )
        .branch(Update::filter_callback_query().map(read_press).chain(admitted(buttons::on_press)))
        .branch(Update::filter_pre_checkout_query().map(read_checkout).chain(admitted(pay::on_pre_checkout)))
        .branch(
            Update::filter_message_reaction_updated()
                .map(read_reaction)
                .chain(admitted(buttons::on_reaction)),
        )
}

// ------------------------------------------------------------ what the tree reads

/// The transport, as the dispatcher's one dependency of the bot's own: only
/// this file opens it.
#[derive(Clone)]
struct Door(Arc<Transport>);

/// Where an update is handled.
#[derive(Debug, Clone, Copy)]
enum Runs {
    /// In its chat's lane, after the updates of the chat that came before it.
    InLane(ChatId),
    /// Where the dispatcher handed it out, in the order it keeps per chat (a
    /// reaction: a few reads, never a turn).
    Here,
    /// At once, in a task of its own (a pre-checkout query: Telegram waits
    /// for its answer, not for the chat's turn).
    Apart,
}

/// How the door's refusal of an update is told.
#[derive(Debug, Clone)]
enum Told {
    /// In the chat, the first time (then silence), as the door says.
    InChat,
    /// On the pressed button, which must be answered anyway.
    OnButton(Box<CallbackQuery>),
    /// In the answer to the pre-checkout query, which must come within 10 s.
    AtCheckout(Box<PreCheckoutQuery>),
}

/// An update the tree read, on its way to the door.
#[derive(Debug, Clone)]
struct Arrival<X> {
    /// For `mallbot_updates_total`.
    kind: &'static str,
    from: User,
    target: Target,
    is_group: bool,
    runs: Runs,
    way: Way,
    /// The words whose language the door weighs (empty for a press).
    said: String,
    told: Told,
    /// What the endpoint is given.
    input: X,
}

/// What the tree made of an update.
#[derive(Debug, Clone)]
enum Heard<X> {
    /// On its way to the door.
    Knocks(Box<Arrival<X>>),
    /// Passed over before the door (this kind): counted as ignored.
    Passed(&'static str),
}

/// A `successful_payment`: the payer's own, in their private chat, as a
/// press (the allow-lists only: a payment Telegram took is never lost to
/// the rate limit). Other messages go on to [`read_message`].
fn read_payment(msg: Message) -> Option<Heard<Box<Message>>> {
    msg.successful_payment()?;
    let Some(from) = msg.from.clone().filter(|u| !u.is_bot) else {
        return Some(Heard::Passed("payment"));
    };
    Some(Heard::Knocks(Box::new(Arrival {
        kind: "payment",
        from,
        target: Target::answering(&msg),
        is_group: false,
        runs: Runs::InLane(msg.chat.id),
        way: Way::Press,
        said: String::new(),
        told: Told::InChat,
        input: Box::new(msg),
    })))
}

/// A message: staff's in the service desk's group, else a shopper's when
/// it is for the bot (`incoming.rs` reads which).
fn read_message(msg: Message, me: Me, door: Door) -> Heard<Incoming> {
    let content = incoming::content(&msg);
    let kind = match &content {
        Content::Text { text, .. } if text.trim_start().starts_with('/') => "command",
        Content::Text { .. } => "message",
        Content::Speech(_) => "voice",
        Content::Photo { .. } => "photo",
        _ => "other",
    };
    let Some(from) = msg.from.clone().filter(|u| !u.is_bot && !msg.chat.is_channel()) else {
        return Heard::Passed(kind);
    };
    let is_group = msg.chat.is_group() || msg.chat.is_supergroup();
    let staff = door.0.app.router.desk().is_some_and(|desk| desk.chat_id == msg.chat.id.0);
    let (way, text) = if staff {
        if content == Content::Service {
            return Heard::Passed(kind);
        }
        (Way::Staff, String::new())
    } else {
        match incoming::read(&msg, &me, is_group) {
            Reading::Passed => return Heard::Passed(kind),
            Reading::ForTheBot { text } => (Way::Message, text),
        }
    };
    Heard::Knocks(Box::new(Arrival {
        kind,
        from,
        target: Target::answering(&msg),
        is_group,
        runs: Runs::InLane(msg.chat.id),
        way,
        said: text.clone(),
        told: Told::InChat,
        input: Incoming { msg: Box::new(msg), text, staff },
    }))
}

/// A press of one of the bot's buttons, answered in the chat and topic of
/// the pressed message (a message too old to read: in the presser's chat).
fn read_press(query: CallbackQuery) -> Heard<Press> {
    let (target, is_group) = match query.regular_message() {
        Some(message) => {
            let is_group = message.chat.is_group() || message.chat.is_supergroup();
            let target = Target {
                chat: message.chat.id,
                thread: message.thread_id.filter(|_| message.is_topic_message),
                reply_to: is_group.then_some(message.id),
            };
            (target, is_group)
        }
        None => {
            let chat = query.message.as_ref().map_or(ChatId(query.from.id.0 as i64), |m| m.chat().id);
            (Target { chat, thread: None, reply_to: None }, false)
        }
    };
    let button = query.data.as_deref().and_then(ButtonData::decode);
    let (way, said) = match (&button, query.regular_message()) {
        // Sent on as the presser's next message.
        (Some(ButtonData::Suggestion(index)), Some(message)) => {
            match send::pressed_suggestion(message, *index) {
                Some(text) => (Way::Message, text),
                None => (Way::Press, String::new()),
            }
        }
        (Some(ButtonData::Route(_) | ButtonData::Cart { .. } | ButtonData::Claim(_)), Some(_)) => {
            (Way::Message, String::new())
        }
        (Some(ButtonData::Desk(DeskAction::Close(_))), Some(_)) => (Way::Staff, String::new()),
        _ => (Way::Press, String::new()),
    };
    Heard::Knocks(Box::new(Arrival {
        kind: "button",
        from: query.from.clone(),
        target,
        is_group,
        runs: Runs::InLane(target.chat),
        way,
        said,
        told: Told::OnButton(Box::new(query.clone())),
        input: Press { query: Box::new(query), button },
    }))
}

/// A pre-checkout query, answered apart from every lane.
fn read_checkout(query: PreCheckoutQuery) -> Heard<Box<PreCheckoutQuery>> {
    Heard::Knocks(Box::new(Arrival {
        kind: "pre_checkout",
        from: query.from.clone(),
        target: Target { chat: ChatId(query.from.id.0 as i64), thread: None, reply_to: None },
        is_group: false,
        runs: Runs::Apart,
        way: Way::Press,
        said: String::new(),
        told: Told::AtCheckout(Box::new(query.clone())),
        input: Box::new(query),
    }))
}

/// A reaction in a private chat by its shopper: 👍, 👎, or neither (taken
/// back); both at once, or a reaction elsewhere or anonymous, is passed over.
fn read_reaction(reaction: MessageReactionUpdated) -> Heard<Reaction> {
    let has = |emoji: &str| {
        reaction.new_reaction.iter().any(|r| matches!(r, ReactionType::Emoji { emoji: e } if e == emoji))
    };
    let now = match (has("👍"), has("👎")) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
        (true, true) => return Heard::Passed("reaction"),
    };
    let Some(user) = reaction.user().filter(|_| reaction.chat.is_private()) else {
        return Heard::Passed("reaction");
    };
    Heard::Knocks(Box::new(Arrival {
        kind: "reaction",
        from: user.clone(),
        target: Target { chat: reaction.chat.id, thread: None, reply_to: None },
        is_group: false,
        runs: Runs::Here,
        way: Way::Press,
        said: String::new(),
        told: Told::InChat,
        input: Reaction { message_id: reaction.message_id.0, now },
    }))
}

// ------------------------------------------------------------ the door stage

/// The one way an endpoint joins the tree: the update it is given is run
/// where it belongs, past the door, and the endpoint called with what the
/// door admitted; a turned update is told ([`turned_away`]) and its endpoint
/// never called. Every update is counted with how it ended.
fn admitted<X, F, Fut>(endpoint: F) -> UpdateHandler<TelegramError>
where
    X: Clone + Send + Sync + 'static,
    F: Fn(Handle, Admitted, X) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Outcome, RequestError>> + Send + 'static,
{
    dptree::endpoint(move |bot: Bot, me: Me, door: Door, heard: Heard<X>| {
        let endpoint = endpoint.clone();
        async move {
            let arrival = match heard {
                Heard::Passed(kind) => {
                    crate::infra::ops::count_update(kind, super::handle::IGNORED);
                    return Ok(());
                }
                Heard::Knocks(arrival) => *arrival,
            };
            let tg = door.0;
            let handle =
                Handle::new(bot, me, tg.clone(), arrival.from.clone(), arrival.target, arrival.is_group);
            match arrival.runs {
                Runs::InLane(chat) => {
                    let (kind, notice) = (arrival.kind, matches!(arrival.told, Told::InChat));
                    let queued =
                        tg.lanes.clone().run(chat, through_the_door(handle.clone(), arrival, endpoint));
                    dropped(queued, kind, &handle, notice);
                }
                Runs::Here => through_the_door(handle, arrival, endpoint).await,
                Runs::Apart => {
                    tokio::spawn(through_the_door(handle, arrival, endpoint));
                }
            }
            Ok(())
        }
    })
}

/// The door, once per update: the `/lang` choice read once, the knock, then
/// the endpoint with what was admitted, or the refusal told.
async fn through_the_door<X, F, Fut>(handle: Handle, arrival: Arrival<X>, endpoint: F)
where
    F: Fn(Handle, Admitted, X) -> Fut,
    Fut: Future<Output = Result<Outcome, RequestError>>,
{
    let Arrival { kind, way, said, told, input, .. } = arrival;
    let router = handle.tg.app.router.clone();
    let chosen = router.chosen_lang("telegram", handle.user_id()).await;
    // A command is answered in the shopper's language, whatever its words.
    let command = incoming::parse_command(&said, &BotIdentity::from_me(&handle.me)).is_some();
    let knock = Knock {
        platform: "telegram",
        user_id: handle.user_id(),
        chat_id: handle.target.chat.0,
        lang: handle.tg.detected_lang(&handle.from, (!command).then_some(said.as_str())),
        chosen: ChosenLang::Read(chosen),
        said: Lang::said(&said),
        way,
    };
    let outcome = match router.admit(knock).await {
        Ok(admitted) => {
            let handle = handle.knowing(Langs { chosen, talking: admitted.conversation_lang() });
            match endpoint(handle.clone(), admitted, input).await {
                Ok(outcome) => outcome,
                Err(e) => {
                    handle.apologise(&e).await;
                    FAILED
                }
            }
        }
        Err(turned) => {
            turned_away(&handle.knowing(Langs { chosen, talking: None }), way, &told, &turned).await
        }
    };
    crate::infra::ops::count_update(kind, outcome);
}

/// Tells the sender of an update the door turned away, the one way its kind
/// is told: in the chat the first time (then silence, whatever kind of
/// update it was), on the pressed button, or in the pre-checkout answer.
async fn turned_away(handle: &Handle, way: Way, told: &Told, turned: &Turned) -> Outcome {
    let telling = match told {
        Told::InChat if turned.tell => handle.deliver(turned.lang, &turned.reply(), None).await,
        Told::InChat => Ok(()),
        // A confirmation, a removal: the door's words on the button.
        Told::OnButton(query) if way == Way::Press => {
            send::answer_press(&handle.bot, query, Some(turned.message()), true).await;
            Ok(())
        }
        // The presser's next message: answered in the chat, as a message is.
        Told::OnButton(query) => {
            send::answer_press(&handle.bot, query, None, false).await;
            if turned.tell { handle.deliver(turned.lang, &turned.reply(), None).await } else { Ok(()) }
        }
        Told::AtCheckout(query) => {
            pay::refuse_checkout(handle, query, turned.message()).await;
            Ok(())
        }
    };
    if let Err(e) = telling {
        tracing::warn!(error = %e, chat = handle.target.chat.0, "could not tell a refusal");
    }
    match turned.why {
        Why::NotAllowed => REFUSED,
        Why::SlowDown => LIMITED,
    }
}

/// Counts an update its lane did not take; with `notice`, the first one a
/// full lane drops gets one notice (sent beside the lane, which is busy).
fn dropped(queued: Queued, kind: &'static str, handle: &Handle, notice: bool) {
    let (reason, first) = match queued {
        Queued::Yes => return,
        Queued::LaneFull { first } => ("lane_full", first),
        Queued::Overloaded => ("overloaded", false),
    };
    tracing::info!(chat = handle.target.chat.0, reason, "update dropped");
    crate::infra::ops::count_update(kind, "dropped");
    metrics::counter!(crate::infra::ops::LIMITED, "reason" => reason).increment(1);
    if notice && first {
        let handle = handle.clone();
        tokio::spawn(async move {
            // Never past the door: the shopper's languages are read for this notice alone.
            let router = &handle.tg.app.router;
            let conversation =
                crate::engine::context::conversation_key("telegram", handle.target.chat.0, handle.user_id());
            let langs = Langs {
                chosen: router.chosen_lang("telegram", handle.user_id()).await,
                talking: router.conversation_lang(&conversation).await,
            };
            let handle = handle.knowing(langs);
            if let Err(e) = handle.say(handle.lang().texts().turn.too_many_waiting).await {
                tracing::warn!(error = %e, "could not say the chat's queue is full");
            }
        });
    }
}

// ------------------------------------------------------------ the dispatcher

/// A dispatcher for `bot` around `app`: the update tree, its dependencies,
/// an error handler that logs, and quiet ignoring of unhandled updates.
/// Updates of one chat are handled one at a time, in order (in the
/// transport's [`lanes::Lanes`](super::lanes::Lanes)).
pub fn dispatcher(bot: Bot, app: App) -> DispatcherBuilder<Bot, TelegramError, DefaultKey> {
    dispatcher_for(bot, Arc::new(Transport::new(app)))
}

/// [`dispatcher`], with the end of its work: once the dispatcher has
/// stopped, [`Handled::wait`] returns when every update it handed out has
/// been handled (a test waits for that, not for a pause).
pub fn dispatcher_with_end(
    bot: Bot,
    app: App,
) -> (DispatcherBuilder<Bot, TelegramError, DefaultKey>, Handled) {
    let transport = Arc::new(Transport::new(app));
    let handled = Handled(transport.lanes.clone());
    (dispatcher_for(bot, transport), handled)
}

/// The end of a dispatcher's work ([`dispatcher_with_end`]).
pub struct Handled(super::lanes::Lanes);

impl Handled {
    /// Takes no new updates and returns when every update handed out has
    /// been handled, its answers sent.
    pub async fn wait(&self) {
        self.0.wait().await;
    }
}

fn dispatcher_for(bot: Bot, transport: Arc<Transport>) -> DispatcherBuilder<Bot, TelegramError, DefaultKey> {
    Dispatcher::builder(bot, schema())
        .dependencies(dptree::deps![Door(transport)])
        .default_handler(|update| async move {
            let kind = match update.kind {
                teloxide::types::UpdateKind::EditedMessage(_) => "edited",
                _ => "other",
            };
            crate::infra::ops::count_update(kind, "ignored");
            tracing::debug!(update_id = update.id.0, "update ignored");
        })
        .error_handler(Arc::new(|error: TelegramError| async move {
            tracing::error!(error = %error, "telegram update handler failed");
        }))
}

/// Dispatches the updates of `listener` to `app` until `stop` resolves; then
/// takes no new updates and waits for the turns in flight, at most
/// [`SHUTDOWN_GRACE`].
pub(crate) async fn dispatch_until<L, E>(
    bot: Bot,
    app: App,
    mut listener: L,
    listener_errors: Arc<E>,
    stop: impl Future<Output = &'static str>,
) -> Result<(), TelegramError>
where
    L: UpdateListener + Send,
    L::Err: Debug,
    E: ErrorHandler<L::Err> + Send + Sync,
{
    let transport = Arc::new(Transport::new(app));
    let lanes = transport.lanes.clone();
    let mut dispatcher = dispatcher_for(bot, transport).build();
    let token = dispatcher.shutdown_token();
    // Stopping the listener too ends the dispatching even when the dispatcher
    // misses the shutdown notice while it is busy handing out an update.
    let listener_stop = listener.stop_token();
    // Done when the dispatcher has handed out its last update and every
    // lane has handled what it was given.
    let dispatching = async {
        let ended = dispatcher.try_dispatch_with_listener(listener, listener_errors).await;
        lanes.wait().await;
        ended
    };
    tokio::pin!(dispatching, stop);
    let signal = tokio::select! {
        ended = &mut dispatching => return ended.map_err(TelegramError::from),
        signal = &mut stop => signal,
    };
    tracing::info!(
        signal,
        grace_secs = SHUTDOWN_GRACE.as_secs(),
        "stop requested: taking no new updates, finishing the turns in flight"
    );
    if token.shutdown().is_err() {
        tracing::info!("stopped before any update was taken");
        return Ok(());
    }
    listener_stop.stop();
    let started = Instant::now();
    match tokio::time::timeout(SHUTDOWN_GRACE, &mut dispatching).await {
        Ok(ended) => {
            tracing::info!(waited_ms = started.elapsed().as_millis() as u64, "turns in flight finished");
            ended.map_err(TelegramError::from)
        }
        Err(_) => {
            tracing::warn!(
                grace_secs = SHUTDOWN_GRACE.as_secs(),
                "turns still running after the grace period; stopping without them"
            );
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    /// Inside `telegram/`, only the tree's stage knocks: no other file
    /// names a `Knock` or calls the router's `admit`.
    #[test]
    fn only_the_tree_knocks() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/transports/telegram");
        let mut files = vec![dir.clone()];
        let mut knocking = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
                continue;
            }
            if path.extension().is_none_or(|e| e != "rs") || path.ends_with("tree.rs") {
                continue;
            }
            let code = std::fs::read_to_string(&path).unwrap();
            if code.contains("Knock") || code.contains(".admit(") || code.contains("admit_press") {
                knocking.push(path.display().to_string());
            }
        }
        assert!(knocking.is_empty(), "these files knock at the door themselves: {knocking:?}");
    }
}
