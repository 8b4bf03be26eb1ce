//! The update tree, dispatching it until a stop, and its endpoints:
//! shopper messages (text, commands, other media), button presses
//! (confirmations, suggestions) and reactions.
//!
//! Each endpoint builds the update's `Handle` (`inbound.rs`), queues the
//! update in its chat's lane (`lanes.rs`) and returns at once; a full lane or
//! too many busy chats drop it (counted; the first drop of a full lane is
//! told). In the lane: a `successful_payment` goes to `pay.rs`; a message in
//! the service desk's group, or from a shopper talking to a person, to
//! `desk.rs`; a text addressed to the bot passes the door (`Handle::admit`)
//! and is a command (`commands.rs`) or a turn (`Handle::route` →
//! `Handle::run_live` → `router.answer`). A voice message passes the door
//! before anything is downloaded, then `[stt]`, `stt.max_seconds`, the day's
//! budget and the file's size, and is transcribed (`media::voice_turn`); a
//! photo goes to a model that reads photos (`App::reads_photos`) or is taken
//! as its caption. A Confirm / Cancel press knocks as `Way::Press`, goes to
//! `router.press_as` and, accepted, to `finish_live`; a suggestion is sent on
//! as the presser's next message. Pre-checkout queries are answered in their
//! own task (`pay.rs`), never behind a chat's lane.

use super::pay;
use crate::engine::App;
use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use teloxide::dispatching::{DefaultKey, DispatcherBuilder, UpdateHandler};
use teloxide::error_handlers::ErrorHandler;
use teloxide::update_listeners::UpdateListener;

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::Me;

use super::callback::ButtonData;
use super::inbound::Handle;
use super::inbound::{self, BotIdentity, Content};
use super::lanes::Queued;
use super::send::{self, Target};
use super::{TelegramError, Transport, files, texts};
use crate::engine::context::MessageContext;
use crate::engine::media;
use crate::engine::progress::Progress;
use crate::engine::reply::{PressCheck, Reply};
use crate::engine::router::{Admitted, Presser, Way};

/// The answer when a shopper's file could not be fetched: logged, counted,
/// and no model call.
fn fetch_failed(app: &crate::engine::App, error: files::DownloadError, file: &FileTurn) -> Reply {
    let voice = file.voice;
    tracing::warn!(error = %error, "could not fetch the shopper's file");
    if voice {
        metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => error.kind()).increment(1);
    }
    match error {
        files::DownloadError::TooBig => Reply::text(file.too_big.clone()),
        _ => {
            app.stats.record_error("could not fetch a file from telegram");
            Reply::text(file.lang.texts().media.fetch_failed)
        }
    }
}

/// The shopper's file a live turn starts from.
struct FileTurn {
    file_id: teloxide::types::FileId,
    /// A voice message (counted under transcriptions when its fetch fails).
    voice: bool,
    /// What the shopper sees while it is fetched.
    status: Option<&'static str>,
    /// The most it may weigh (checked again while it streams in).
    limit: u64,
    /// The answer when it weighs more.
    too_big: String,
    /// The language of the answer.
    lang: Lang,
}

/// What every endpoint returns to the dispatcher.
pub(crate) type HandlerResult = Result<(), TelegramError>;

/// How an update ended, for `mallbot_updates_total`.
type Outcome = &'static str;
const ANSWERED: Outcome = "answered";
const IGNORED: Outcome = "ignored";
const REFUSED: Outcome = "refused";

/// A message in a private chat, group or supergroup: its [`Handle`] is
/// built, then it is handled in its chat's lane, or dropped when the lane is
/// full (told once) or too many chats are busy.
pub(crate) async fn on_message(bot: Bot, msg: Message, me: Me, tg: Arc<Transport>) -> HandlerResult {
    let kind = match inbound::content(&msg) {
        Content::Text { text, .. } if text.trim_start().starts_with('/') => "command",
        Content::Text { .. } => "message",
        Content::Speech(_) => "voice",
        Content::Photo { .. } => "photo",
        _ => "other",
    };
    let Some(from) = msg.from.clone().filter(|u| !u.is_bot && !msg.chat.is_channel()) else {
        crate::infra::ops::count_update(kind, "ignored");
        return Ok(());
    };
    let is_group = msg.chat.is_group() || msg.chat.is_supergroup();
    let handle = Handle::new(bot, me, tg, from, Target::answering(&msg), is_group);
    // The message is boxed: a `Message` is kilobytes, and the lane keeps it
    // in the update's future until its turn comes.
    let chat = msg.chat.id;
    let queued = handle.tg.lanes.clone().run(chat, message_update(handle.clone(), Box::new(msg), kind));
    dropped(queued, "message", &handle, true);
    Ok(())
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
            if let Err(e) = handle.say(handle.lang().await.texts().turn.too_many_waiting).await {
                tracing::warn!(error = %e, "could not say the chat's queue is full");
            }
        });
    }
}

async fn message_update(handle: Handle, msg: Box<Message>, kind: &'static str) {
    if let Some(payment) = msg.successful_payment() {
        match handle.on_successful_payment(&msg, payment).await {
            Ok(outcome) => crate::infra::ops::count_update("payment", outcome),
            Err(e) => {
                crate::infra::ops::count_update("payment", "failed");
                tracing::error!(error = %e, "could not answer a payment");
            }
        }
        return;
    }
    match handle.handle_message(&msg).await {
        Ok(outcome) => crate::infra::ops::count_update(kind, outcome),
        Err(e) => {
            crate::infra::ops::count_update(kind, "failed");
            handle.apologise(&e).await;
        }
    }
}

/// A reaction in a private chat to one of the bot's answers: a 👍 or 👎
/// newly put counts in the report with the answer's question and tools
/// (kept with the message when it was sent); anything else is ignored.
pub(crate) async fn on_reaction(
    reaction: teloxide::types::MessageReactionUpdated,
    tg: Arc<Transport>,
) -> HandlerResult {
    let emojis = |list: &[teloxide::types::ReactionType]| -> Vec<String> {
        list.iter()
            .filter_map(|r| match r {
                teloxide::types::ReactionType::Emoji { emoji } => Some(emoji.clone()),
                _ => None,
            })
            .collect()
    };
    // What the shopper's reactions say now: 👍, 👎, or neither (taken back). One rating per
    // shopper and answer, the last one standing.
    let new = emojis(&reaction.new_reaction);
    let has = |e: &str| new.iter().any(|n| n == e);
    let now = match (has("👍"), has("👎")) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        (false, false) => None,
        (true, true) => {
            crate::infra::ops::count_update("reaction", IGNORED);
            return Ok(());
        }
    };
    let Some(user) = reaction.user().filter(|_| reaction.chat.is_private()) else {
        crate::infra::ops::count_update("reaction", IGNORED);
        return Ok(());
    };
    let chat = reaction.chat.id.0;
    let message_id = reaction.message_id.0;
    let rated = match crate::engine::report::rated_answer(tg.app.state.as_ref(), chat, message_id).await {
        Ok(rated) => rated,
        Err(e) => {
            tracing::warn!(error = %e, "could not read what a reaction is about");
            None
        }
    };
    let Some(rated) = rated else {
        crate::infra::ops::count_update("reaction", IGNORED);
        return Ok(());
    };
    let keep = tg.app.router.report_keep();
    let user_id = user.id.0 as i64;
    let standing = crate::engine::report::standing_rating(tg.app.state.as_ref(), chat, message_id, user_id);
    let before = match standing.await {
        Ok(rating) => rating,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the shopper's rating of the answer");
            return Ok(());
        }
    };
    if before.map(|b| b.up) == now {
        crate::infra::ops::count_update("reaction", IGNORED);
        return Ok(());
    }
    let after = now.map(|up| crate::engine::report::Rating { up, day: crate::engine::report::today() });
    let kept = crate::engine::report::keep_standing_rating(
        tg.app.state.as_ref(),
        chat,
        message_id,
        user_id,
        after.as_ref(),
        keep,
    )
    .await;
    if let Err(e) = kept {
        tracing::warn!(error = %e, "could not keep the shopper's rating of the answer");
        return Ok(());
    }
    let state = tg.app.state.as_ref();
    crate::engine::report::rerate(state, keep, before, after, &rated).await;
    crate::infra::ops::count_update("reaction", ANSWERED);
    Ok(())
}

/// A press of one of the bot's buttons: its [`Handle`] is built (answering
/// in the chat and topic of the pressed message), then it is handled in the
/// lane of that chat, after the messages that came before it.
pub(crate) async fn on_button(bot: Bot, query: CallbackQuery, me: Me, tg: Arc<Transport>) -> HandlerResult {
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
        // A message too old to read: the press is answered in the presser's lane.
        None => {
            let chat = query.message.as_ref().map_or(ChatId(query.from.id.0 as i64), |m| m.chat().id);
            (Target { chat, thread: None, reply_to: None }, false)
        }
    };
    let handle = Handle::new(bot, me, tg, query.from.clone(), target, is_group);
    let queued = handle.tg.lanes.clone().run(target.chat, button_update(handle.clone(), query));
    dropped(queued, "button", &handle, false);
    Ok(())
}

async fn button_update(handle: Handle, query: CallbackQuery) {
    let Some(message) = query.regular_message() else {
        let expired = texts::button_expired(handle.lang().await);
        send::answer_press(&handle.bot, &query, Some(expired), true).await;
        crate::infra::ops::count_update("button", IGNORED);
        return;
    };
    let result = match query.data.as_deref().and_then(ButtonData::decode) {
        Some(ButtonData::Confirmation { token, approve }) => {
            handle.on_confirmation(&query, message, token, approve).await
        }
        Some(ButtonData::Suggestion(index)) => handle.on_suggestion(&query, message, index).await,
        Some(ButtonData::Pay(order_id)) => handle.on_pay_button(&query, &order_id).await,
        Some(ButtonData::Route(store_id)) => handle.on_route_button(&query, &store_id).await,
        Some(ButtonData::Desk(action)) => handle.on_desk_button(&query, message, action).await,
        Some(ButtonData::Cart { product_id, size }) => {
            handle.on_cart_button(&query, &product_id, size.as_deref()).await
        }
        Some(ButtonData::Unwatch(id)) => handle.on_unwatch_button(&query, &id).await,
        None => {
            send::answer_press(&handle.bot, &query, None, false).await;
            Ok(ANSWERED)
        }
    };
    match result {
        Ok(outcome) => crate::infra::ops::count_update("button", outcome),
        Err(e) => {
            crate::infra::ops::count_update("button", "failed");
            handle.apologise(&e).await;
        }
    }
}

impl Handle {
    async fn handle_message(&self, msg: &Message) -> Result<Outcome, RequestError> {
        let is_group = self.is_group;
        // The service desk's group: staff writing to shoppers.
        if self.in_desk_group() {
            return self.staff_message(msg).await;
        }
        // A shopper talking to a person: copied to their topic, the bot quiet.
        if !is_group && let Some(outcome) = self.to_desk(msg).await? {
            return Ok(outcome);
        }
        match inbound::content(msg) {
            Content::Service => Ok(IGNORED),
            Content::Unreadable if is_group => Ok(IGNORED),
            Content::Unreadable => {
                let ctx = self.context(String::new(), None).await;
                if let Err(outcome) = self.admit(&ctx, Way::Message).await? {
                    return Ok(outcome);
                }
                self.deliver_text(texts::please_write(self.lang().await)).await.map(|_| ANSWERED)
            }
            Content::Text { text, entities } => {
                let bot_id = BotIdentity::from_me(&self.me);
                let reply_to_bot = inbound::replies_to_bot(msg, &bot_id);
                let addressing = inbound::addressing(text, &entities, &bot_id, reply_to_bot);
                if is_group && !addressing.addressed {
                    return Ok(IGNORED);
                }
                let ctx = self.context(addressing.text, inbound::reply_text(msg)).await;
                self.handle_text(ctx).await
            }
            Content::Speech(speech) => {
                // A voice note cannot @mention: in groups only a reply to the bot is heard.
                if is_group && !inbound::replies_to_bot(msg, &BotIdentity::from_me(&self.me)) {
                    return Ok(IGNORED);
                }
                let ctx = self.context(String::new(), inbound::reply_text(msg)).await;
                self.handle_speech(ctx, speech).await
            }
            Content::Photo { sizes, caption } => {
                let bot_id = BotIdentity::from_me(&self.me);
                let reply_to_bot = inbound::replies_to_bot(msg, &bot_id);
                let addressing = match caption {
                    Some((text, entities)) => inbound::addressing(text, &entities, &bot_id, reply_to_bot),
                    None => inbound::Addressing { addressed: reply_to_bot, text: String::new() },
                };
                if is_group && !addressing.addressed {
                    return Ok(IGNORED);
                }
                let ctx = self.context(addressing.text, inbound::reply_text(msg)).await;
                if self.tg.app.reads_photos() {
                    let admitted = match self.admit(&ctx, Way::Message).await? {
                        Ok(admitted) => admitted,
                        Err(outcome) => return Ok(outcome),
                    };
                    self.handle_photo(ctx, sizes, admitted).await
                } else if ctx.text.is_empty() {
                    // Without vision a photo is its caption, and this one has none.
                    if let Err(outcome) = self.admit(&ctx, Way::Message).await? {
                        return Ok(outcome);
                    }
                    self.say(self.lang().await.texts().media.photo_unseen).await.map(|_| ANSWERED)
                } else {
                    self.handle_text(ctx).await
                }
            }
        }
    }

    /// A voice message, audio file or video note addressed to the bot: checked
    /// against `[stt]` and its limits, fetched, transcribed and routed as text,
    /// with a status while it is heard.
    async fn handle_speech(
        &self,
        ctx: MessageContext,
        speech: inbound::Speech<'_>,
    ) -> Result<Outcome, RequestError> {
        let admitted = match self.admit(&ctx, Way::Message).await? {
            Ok(admitted) => admitted,
            Err(outcome) => return Ok(outcome),
        };
        let lang = admitted.lang();
        let Some(stt) = self.tg.app.stt.clone() else {
            return self.say(lang.texts().media.voice_off).await.map(|_| ANSWERED);
        };
        if speech.seconds > stt.max_seconds {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "too_long").increment(1);
            let text = (lang.texts().media.too_long)(stt.max_seconds);
            return self.say(&text).await.map(|_| ANSWERED);
        }
        if files::too_big(speech.file.size) {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "too_big").increment(1);
            return self.say(lang.texts().media.too_big).await.map(|_| ANSWERED);
        }
        // The claimed length is the sender's word; the size is checked against
        // what `max_seconds` of speech can weigh, here and while it downloads.
        let too_long = (lang.texts().media.too_long)(stt.max_seconds);
        let ceiling = files::speech_ceiling(stt.max_seconds, &speech.mime);
        if files::over(speech.file.size, ceiling) {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "too_long").increment(1);
            return self.say(&too_long).await.map(|_| ANSWERED);
        }
        // Over today's budget a transcription is not paid for either.
        if admitted.over_budget() {
            metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => "over_budget").increment(1);
            return self.say(lang.texts().media.voice_over_budget).await.map(|_| ANSWERED);
        }
        let mime = speech.mime;
        let file = FileTurn {
            file_id: speech.file.id.clone(),
            voice: true,
            status: None,
            limit: ceiling,
            too_big: too_long,
            lang,
        };
        self.run_file_turn(file, move |app, bytes, progress| async move {
            media::voice_turn(&app, &admitted, ctx, media::recording(bytes, &mime), &progress).await
        })
        .await
    }

    /// A photo addressed to the bot, for a model that reads photos: the largest
    /// size within 1280 px is fetched and sent with the caption (or a default ask).
    async fn handle_photo(
        &self,
        ctx: MessageContext,
        sizes: &[teloxide::types::PhotoSize],
        admitted: Admitted,
    ) -> Result<Outcome, RequestError> {
        let lang = ctx.lang;
        let Some(photo) = files::pick_photo(sizes, media::image::MAX_SIDE) else {
            return self.say(lang.texts().media.fetch_failed).await.map(|_| ANSWERED);
        };
        if files::too_big(photo.file.size) {
            return self.say(lang.texts().media.too_big).await.map(|_| ANSWERED);
        }
        let file = FileTurn {
            file_id: photo.file.id.clone(),
            voice: false,
            status: Some(lang.texts().media.looking),
            limit: files::DOWNLOAD_LIMIT,
            too_big: lang.texts().media.too_big.to_owned(),
            lang,
        };
        self.run_file_turn(file, move |app, bytes, progress| async move {
            // Telegram's photo sizes are JPEGs; the header says which.
            let mime = media::image::info(&bytes).map_or("image/jpeg", |i| i.mime);
            let image = media::image::data_url(mime, &bytes);
            media::photo_turn(&app, &admitted, ctx, image, &progress).await
        })
        .await
    }

    /// A live turn on a shopper's file: the file is fetched in the turn's
    /// task (showing `file.status` meanwhile), then `turn` runs on its bytes;
    /// a failed fetch is answered without a model call.
    async fn run_file_turn<T, F>(&self, file: FileTurn, turn: T) -> Result<Outcome, RequestError>
    where
        T: FnOnce(crate::engine::App, Vec<u8>, Progress) -> F + Send + 'static,
        F: Future<Output = Reply> + Send + 'static,
    {
        let app = self.tg.app.clone();
        let fetcher = self.bot.clone();
        self.run_live(file.lang, move |progress| async move {
            if let Some(status) = file.status {
                progress.working(vec![status.to_owned()]);
            }
            match files::download_within(&fetcher, &file.file_id, file.limit).await {
                Ok(bytes) => turn(app, bytes, progress).await,
                Err(e) => fetch_failed(&app, e, &file),
            }
        })
        .await
        .map(|_| ANSWERED)
    }

    /// A text addressed to the bot (typed, or a pressed suggestion): a command
    /// or a request for the router.
    pub(super) async fn handle_text(&self, mut ctx: MessageContext) -> Result<Outcome, RequestError> {
        let bot_id = BotIdentity::from_me(&self.me);
        let command = inbound::parse_command(&ctx.text, &bot_id);
        if command.is_some() {
            ctx.lang = self.lang().await;
        }
        // Commands go through the door too: each one costs a send, some a mall call.
        let admitted = match self.admit(&ctx, Way::Message).await? {
            Ok(admitted) => admitted,
            Err(outcome) => return Ok(outcome),
        };
        match command {
            Some(command) => self.handle_command(admitted, ctx, command).await,
            None if ctx.text.is_empty() => self.greet(ctx.lang).await,
            None => self.route(admitted, ctx).await,
        }
        .map(|_| ANSWERED)
    }

    /// Confirm / Cancel: answer the press first, then show the outcome in
    /// place of the buttons, then run the action and send its result.
    async fn on_confirmation(
        &self,
        query: &CallbackQuery,
        message: &Message,
        token: String,
        approve: bool,
    ) -> Result<Outcome, RequestError> {
        let (bot, lang) = (&self.bot, self.lang().await);
        let Some(admitted) = self.admit_press(query).await else {
            return Ok(REFUSED);
        };
        let router = self.tg.app.router.clone();
        let check =
            match tokio::spawn(
                async move { router.press_as(&admitted, &token, approve, Presser::Chat).await },
            )
            .await
            {
                Ok(check) => check,
                Err(e) => {
                    tracing::error!(error = %e, "checking a button press failed");
                    self.tg.app.stats.record_error("checking a button press failed (panic)");
                    send::answer_press(bot, query, Some(texts::apology(lang)), true).await;
                    return Ok(ANSWERED);
                }
            };
        match check {
            PressCheck::Accepted { claim, outcome } => {
                send::answer_press(bot, query, None, false).await;
                send::close_buttons(bot, message, &outcome).await;
                let router = self.tg.app.router.clone();
                self.run_live(claim.action.lang, move |progress| async move {
                    router.finish_live(claim, &progress).await
                })
                .await
                .map(|_| ANSWERED)
            }
            PressCheck::NotYours { alert } => {
                send::answer_press(bot, query, Some(&alert), true).await;
                Ok(ANSWERED)
            }
            PressCheck::AlreadyDone { alert } | PressCheck::Failed { alert } => {
                send::answer_press(bot, query, Some(&alert), false).await;
                Ok(ANSWERED)
            }
            PressCheck::Expired { alert } => {
                send::answer_press(bot, query, Some(&alert), false).await;
                send::close_buttons(bot, message, &alert).await;
                Ok(ANSWERED)
            }
            PressCheck::CodeRequired { message: prompt } => {
                send::answer_press(bot, query, None, false).await;
                send::close_buttons(bot, message, texts::code_needed(lang)).await;
                self.deliver_text(&prompt).await.map(|_| ANSWERED)
            }
        }
    }

    /// A suggestion button: sent on as the presser's next message.
    async fn on_suggestion(
        &self,
        query: &CallbackQuery,
        message: &Message,
        index: usize,
    ) -> Result<Outcome, RequestError> {
        let Some(text) = send::pressed_suggestion(message, index) else {
            send::answer_press(&self.bot, query, Some(texts::button_expired(self.lang().await)), true).await;
            return Ok(ANSWERED);
        };
        send::answer_press(&self.bot, query, None, false).await;
        send::close_buttons(&self.bot, message, &format!("› {text}")).await;
        // Talking to a person: the press goes to them, the bot stays quiet.
        if self.pressed_to_desk(&text).await? {
            return Ok(ANSWERED);
        }
        let ctx = self.context(text, None).await;
        self.handle_text(ctx).await
    }
}

// ------------------------------------------------------------ the update tree

/// How long a stop waits for the turns in flight before giving up on them.
pub(crate) const SHUTDOWN_GRACE: Duration = Duration::from_secs(20);

/// The update tree: messages (a `successful_payment` among them), button
/// presses, pre-checkout queries and reactions to the bot's answers. Everything else (edited
/// messages, channel posts…) is not asked for and ignored if it arrives.
pub fn schema() -> UpdateHandler<TelegramError> {
    dptree::entry()
        .branch(Update::filter_message().endpoint(on_message))
        .branch(Update::filter_callback_query().endpoint(on_button))
        .branch(Update::filter_pre_checkout_query().endpoint(pay::on_pre_checkout))
        .branch(Update::filter_message_reaction_updated().endpoint(on_reaction))
}

/// The updates the bot asks Telegram for (by polling or webhook): without
/// the list Telegram leaves out reactions.
pub(crate) const ALLOWED_UPDATES: [teloxide::types::AllowedUpdate; 4] = [
    teloxide::types::AllowedUpdate::Message,
    teloxide::types::AllowedUpdate::CallbackQuery,
    teloxide::types::AllowedUpdate::PreCheckoutQuery,
    teloxide::types::AllowedUpdate::MessageReaction,
];

/// A dispatcher for `bot` around `app`: the update tree, its dependencies,
/// an error handler that logs, and quiet ignoring of unhandled updates.
/// Updates of one chat are handled one at a time, in order (in the
/// transport's [`lanes::Lanes`]).
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
        .dependencies(dptree::deps![transport])
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

/// Listens, from this call on, for Ctrl-C (SIGINT) and SIGTERM (what `kill`,
/// systemd and container runtimes send); the future resolves with the name
/// of the first that arrives, even if it arrived before the future was awaited.
#[cfg(unix)]
pub fn stop_signal() -> impl Future<Output = &'static str> + Send {
    use tokio::signal::unix::{SignalKind, signal};
    let interrupt = signal(SignalKind::interrupt());
    let terminate = signal(SignalKind::terminate());
    async move {
        tokio::select! {
            name = next_signal(interrupt, "Ctrl-C") => name,
            name = next_signal(terminate, "SIGTERM") => name,
        }
    }
}

/// Resolves with `"Ctrl-C"` when Ctrl-C is pressed (the only stop signal
/// where there is no SIGTERM).
#[cfg(not(unix))]
pub fn stop_signal() -> impl Future<Output = &'static str> + Send {
    async {
        if let Err(e) = tokio::signal::ctrl_c().await {
            tracing::warn!(error = %e, "cannot listen for Ctrl-C");
            std::future::pending::<()>().await;
        }
        "Ctrl-C"
    }
}

/// `name` once the signal arrives; never if it could not be listened for (logged).
#[cfg(unix)]
async fn next_signal(
    listening: std::io::Result<tokio::signal::unix::Signal>,
    name: &'static str,
) -> &'static str {
    match listening {
        Ok(mut signal) => {
            signal.recv().await;
        }
        Err(e) => {
            tracing::warn!(error = %e, signal = name, "cannot listen for the signal");
            std::future::pending::<()>().await;
        }
    }
    name
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
