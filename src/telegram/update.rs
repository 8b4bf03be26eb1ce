//! The endpoints of the update tree: shopper messages (text, commands, other
//! media) and button presses (confirmations, suggestions).

use std::future::Future;
use std::sync::Arc;

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{Me, MessageId, User};

use super::callback::ButtonData;
use super::inbound::{self, BotIdentity, Content};
use super::lanes::Queued;
use super::live::LiveMessage;
use super::send::{self, ButtonContext, Target};
use super::{TelegramError, Transport, files, texts};
use crate::context::MessageContext;
use crate::media;
use crate::progress::Progress;
use crate::reply::{ConfirmationPress, PressCheck, Reply};
use crate::router::{Access, Admission};

/// The answer when a shopper's file could not be fetched: logged, counted,
/// and no model call.
fn fetch_failed(app: &crate::app::App, lang: Lang, error: files::DownloadError, file: &FileTurn) -> Reply {
    let voice = file.voice;
    tracing::warn!(error = %error, "could not fetch the shopper's file");
    app.stats.count_message();
    if voice {
        metrics::counter!(crate::ops::TRANSCRIPTIONS, "outcome" => error.kind()).increment(1);
    }
    match error {
        files::DownloadError::TooBig => Reply::text(file.too_big.clone()),
        _ => {
            app.stats.record_error("could not fetch a file from telegram");
            Reply::text(lang.texts().media.fetch_failed)
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
}

/// What every endpoint returns to the dispatcher.
pub type HandlerResult = Result<(), TelegramError>;

/// How an update ended, for `mallbot_updates_total`.
type Outcome = &'static str;
const ANSWERED: Outcome = "answered";
const IGNORED: Outcome = "ignored";
const REFUSED: Outcome = "refused";
const LIMITED: Outcome = "limited";

/// A message in a private chat, group or supergroup: handled in its chat's
/// lane, or dropped when the lane is full (told once) or too many chats are busy.
pub async fn on_message(bot: Bot, msg: Message, me: Me, tg: Arc<Transport>) -> HandlerResult {
    let chat = msg.chat.id;
    let (from, target) = (msg.from.clone(), Target::answering(&msg));
    let queued = tg.lanes.clone().run(chat, message_update(bot.clone(), msg, me, tg.clone()));
    dropped(queued, "message", bot, tg, from, target);
    Ok(())
}

/// Counts an update its lane did not take; the first one a full lane drops
/// gets one notice (sent beside the lane, which is busy).
fn dropped(
    queued: Queued,
    kind: &'static str,
    bot: Bot,
    tg: Arc<Transport>,
    from: Option<User>,
    target: Target,
) {
    let (reason, notice) = match queued {
        Queued::Yes => return,
        Queued::LaneFull { first } => ("lane_full", first),
        Queued::Overloaded => ("overloaded", false),
    };
    tracing::info!(chat = target.chat.0, reason, "update dropped");
    crate::ops::count_update(kind, "dropped");
    metrics::counter!(crate::ops::LIMITED, "reason" => reason).increment(1);
    if let (true, Some(from)) = (notice, from.filter(|u| !u.is_bot)) {
        tokio::spawn(async move {
            let lang = tg.lang_of(&from, None).await;
            if let Err(e) = tg.say(&bot, &target, lang.texts().turn.too_many_waiting).await {
                tracing::warn!(error = %e, "could not say the chat's queue is full");
            }
        });
    }
}

async fn message_update(bot: Bot, msg: Message, me: Me, tg: Arc<Transport>) {
    let kind = match inbound::content(&msg) {
        Content::Text { text, .. } if text.trim_start().starts_with('/') => "command",
        Content::Text { .. } => "message",
        Content::Speech(_) => "voice",
        Content::Photo { .. } => "photo",
        _ => "other",
    };
    let Some(from) = msg.from.clone().filter(|u| !u.is_bot) else {
        crate::ops::count_update(kind, "ignored");
        return;
    };
    if msg.chat.is_channel() {
        crate::ops::count_update(kind, "ignored");
        return;
    }
    let target = Target::answering(&msg);
    if let Some(payment) = msg.successful_payment() {
        match tg.on_successful_payment(&bot, &msg, &from, payment).await {
            Ok(outcome) => crate::ops::count_update("payment", outcome),
            Err(e) => {
                crate::ops::count_update("payment", "failed");
                tracing::error!(error = %e, "could not answer a payment");
            }
        }
        return;
    }
    match tg.handle_message(&bot, &msg, &me, &from, &target).await {
        Ok(outcome) => crate::ops::count_update(kind, outcome),
        Err(e) => {
            crate::ops::count_update(kind, "failed");
            tg.apologise(&bot, &target, tg.lang_of(&from, None).await, &e).await;
        }
    }
}

/// A press of one of the bot's buttons: handled in the lane of the chat it
/// was pressed in, after the messages that came before it.
pub async fn on_button(bot: Bot, query: CallbackQuery, me: Me, tg: Arc<Transport>) -> HandlerResult {
    let chat = query.message.as_ref().map_or(ChatId(query.from.id.0 as i64), |m| m.chat().id);
    let target = Target { chat, thread: None, reply_to: None };
    let queued = tg.lanes.clone().run(chat, button_update(bot.clone(), query, me, tg.clone()));
    dropped(queued, "button", bot, tg, None, target);
    Ok(())
}

async fn button_update(bot: Bot, query: CallbackQuery, me: Me, tg: Arc<Transport>) {
    let lang = tg.lang_of(&query.from, None).await;
    let Some(message) = query.regular_message().cloned() else {
        send::answer_press(&bot, &query, Some(texts::button_expired(lang)), true).await;
        crate::ops::count_update("button", IGNORED);
        return;
    };
    let is_group = message.chat.is_group() || message.chat.is_supergroup();
    let target = Target {
        chat: message.chat.id,
        thread: message.thread_id.filter(|_| message.is_topic_message),
        reply_to: is_group.then_some(message.id),
    };
    let result = match query.data.as_deref().and_then(ButtonData::decode) {
        Some(ButtonData::Confirmation { token, approve }) => {
            tg.on_confirmation(&bot, &query, &message, &me, &target, token, approve).await
        }
        Some(ButtonData::Suggestion(index)) => {
            tg.on_suggestion(&bot, &query, &message, &me, &target, index).await
        }
        Some(ButtonData::Pay(order_id)) => tg.on_pay_button(&bot, &query, &target, &order_id).await,
        Some(ButtonData::Route(store_id)) => {
            tg.on_route_button(&bot, &query, &me, &target, &store_id, is_group).await
        }
        None => {
            send::answer_press(&bot, &query, None, false).await;
            Ok(ANSWERED)
        }
    };
    match result {
        Ok(outcome) => crate::ops::count_update("button", outcome),
        Err(e) => {
            crate::ops::count_update("button", "failed");
            tg.apologise(&bot, &target, lang, &e).await;
        }
    }
}

impl Transport {
    async fn handle_message(
        &self,
        bot: &Bot,
        msg: &Message,
        me: &Me,
        from: &User,
        target: &Target,
    ) -> Result<Outcome, RequestError> {
        let is_group = msg.chat.is_group() || msg.chat.is_supergroup();
        match inbound::content(msg) {
            Content::Service => Ok(IGNORED),
            Content::Unreadable if is_group => Ok(IGNORED),
            Content::Unreadable => {
                self.app.stats.count_message();
                let lang = self.lang_of(from, None).await;
                self.outbox.deliver_text(bot, target, texts::please_write(lang)).await.map(|_| ANSWERED)
            }
            Content::Text { text, entities } => {
                let bot_id = BotIdentity::from_me(me);
                let reply_to_bot = inbound::replies_to_bot(msg, &bot_id);
                let addressing = inbound::addressing(text, &entities, &bot_id, reply_to_bot);
                if is_group && !addressing.addressed {
                    return Ok(IGNORED);
                }
                let ctx =
                    self.context(from, msg.chat.id, is_group, addressing.text, inbound::reply_text(msg));
                self.handle_text(bot, me, target, from, ctx).await
            }
            Content::Speech(speech) => {
                // A voice note cannot @mention: in groups only a reply to the bot is heard.
                if is_group && !inbound::replies_to_bot(msg, &BotIdentity::from_me(me)) {
                    return Ok(IGNORED);
                }
                let ctx = self.context(from, msg.chat.id, is_group, String::new(), inbound::reply_text(msg));
                self.handle_speech(bot, me, target, from, ctx, speech).await
            }
            Content::Photo { sizes, caption } => {
                let bot_id = BotIdentity::from_me(me);
                let reply_to_bot = inbound::replies_to_bot(msg, &bot_id);
                let addressing = match caption {
                    Some((text, entities)) => inbound::addressing(text, &entities, &bot_id, reply_to_bot),
                    None => inbound::Addressing { addressed: reply_to_bot, text: String::new() },
                };
                if is_group && !addressing.addressed {
                    return Ok(IGNORED);
                }
                let ctx =
                    self.context(from, msg.chat.id, is_group, addressing.text, inbound::reply_text(msg));
                if self.app.reads_photos() {
                    self.handle_photo(bot, me, target, from, ctx, sizes).await
                } else if ctx.text.is_empty() {
                    // Without vision a photo is its caption, and this one has none.
                    let lang = self.lang_of(from, None).await;
                    self.say(bot, target, lang.texts().media.photo_unseen).await.map(|_| ANSWERED)
                } else {
                    self.handle_text(bot, me, target, from, ctx).await
                }
            }
        }
    }

    /// Whether `ctx`'s sender may use the bot here; `Some` with the outcome when not
    /// (a refusal was sent, or nothing).
    async fn refused(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        ctx: &MessageContext,
    ) -> Result<Option<Outcome>, RequestError> {
        match self.app.router.access("telegram", ctx.user_id, ctx.chat_id, ctx.lang).await {
            Access::Allowed => Ok(None),
            Access::Refused(reply) => {
                self.deliver(bot, me, target, ctx.lang, ctx.user_id, &reply, None).await?;
                Ok(Some(REFUSED))
            }
            Access::Ignored => Ok(Some(REFUSED)),
        }
    }

    /// Counts the message against the rate limit before anything costly is
    /// done for it; `Some` with the outcome when it is held back (the first
    /// time in a window with the "slow down" notice, later in silence).
    async fn limited(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        ctx: &MessageContext,
    ) -> Result<Option<Outcome>, RequestError> {
        match self.app.router.admission(ctx).await {
            Admission::Admitted => Ok(None),
            Admission::SlowDown(notice) => {
                let lang = self.app.router.lang_for(ctx).await;
                self.deliver(bot, me, target, lang, ctx.user_id, &notice, None).await?;
                Ok(Some(LIMITED))
            }
            Admission::Dropped => Ok(Some(LIMITED)),
        }
    }

    /// A voice message, audio file or video note addressed to the bot: checked
    /// against `[stt]` and its limits, fetched, transcribed and routed as text,
    /// with a status while it is heard.
    async fn handle_speech(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        from: &User,
        ctx: MessageContext,
        speech: inbound::Speech<'_>,
    ) -> Result<Outcome, RequestError> {
        if let Some(outcome) = self.refused(bot, me, target, &ctx).await? {
            return Ok(outcome);
        }
        if let Some(outcome) = self.limited(bot, me, target, &ctx).await? {
            return Ok(outcome);
        }
        let lang = self.lang_of(from, None).await;
        let Some(stt) = self.app.stt.clone() else {
            return self.say(bot, target, lang.texts().media.voice_off).await.map(|_| ANSWERED);
        };
        if speech.seconds > stt.max_seconds {
            metrics::counter!(crate::ops::TRANSCRIPTIONS, "outcome" => "too_long").increment(1);
            let text = (lang.texts().media.too_long)(stt.max_seconds);
            return self.say(bot, target, &text).await.map(|_| ANSWERED);
        }
        if files::too_big(speech.file.size) {
            metrics::counter!(crate::ops::TRANSCRIPTIONS, "outcome" => "too_big").increment(1);
            return self.say(bot, target, lang.texts().media.too_big).await.map(|_| ANSWERED);
        }
        // The claimed length is the sender's word; the size is checked against
        // what `max_seconds` of speech can weigh, here and while it downloads.
        let too_long = (lang.texts().media.too_long)(stt.max_seconds);
        let ceiling = files::speech_ceiling(stt.max_seconds, &speech.mime);
        if files::over(speech.file.size, ceiling) {
            metrics::counter!(crate::ops::TRANSCRIPTIONS, "outcome" => "too_long").increment(1);
            return self.say(bot, target, &too_long).await.map(|_| ANSWERED);
        }
        // Over today's budget a transcription is not paid for either.
        if self.app.router.over_daily_budget(&ctx).await {
            metrics::counter!(crate::ops::TRANSCRIPTIONS, "outcome" => "over_budget").increment(1);
            return self.say(bot, target, lang.texts().media.voice_over_budget).await.map(|_| ANSWERED);
        }
        let mime = speech.mime;
        let user_id = ctx.user_id;
        let file = FileTurn {
            file_id: speech.file.id.clone(),
            voice: true,
            status: None,
            limit: ceiling,
            too_big: too_long,
        };
        self.run_file_turn(bot, me, target, lang, user_id, file, move |app, bytes, progress| async move {
            media::voice_turn(&app, ctx, media::recording(bytes, &mime), &progress, true).await
        })
        .await
    }

    /// A photo addressed to the bot, for a model that reads photos: the largest
    /// size within 1280 px is fetched and sent with the caption (or a default ask).
    async fn handle_photo(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        from: &User,
        ctx: MessageContext,
        sizes: &[teloxide::types::PhotoSize],
    ) -> Result<Outcome, RequestError> {
        if let Some(outcome) = self.refused(bot, me, target, &ctx).await? {
            return Ok(outcome);
        }
        if let Some(outcome) = self.limited(bot, me, target, &ctx).await? {
            return Ok(outcome);
        }
        let lang = self.lang_of(from, Some(&ctx.text)).await;
        let Some(photo) = files::pick_photo(sizes, media::image::MAX_SIDE) else {
            return self.say(bot, target, lang.texts().media.fetch_failed).await.map(|_| ANSWERED);
        };
        if files::too_big(photo.file.size) {
            return self.say(bot, target, lang.texts().media.too_big).await.map(|_| ANSWERED);
        }
        let user_id = ctx.user_id;
        let status = Some(lang.texts().media.looking);
        let file = FileTurn {
            file_id: photo.file.id.clone(),
            voice: false,
            status,
            limit: files::DOWNLOAD_LIMIT,
            too_big: lang.texts().media.too_big.to_owned(),
        };
        self.run_file_turn(bot, me, target, lang, user_id, file, move |app, bytes, progress| async move {
            // Telegram's photo sizes are JPEGs; the header says which.
            let mime = media::image::info(&bytes).map_or("image/jpeg", |i| i.mime);
            let image = media::image::data_url(mime, &bytes);
            media::photo_turn(&app, ctx, image, &progress, true).await
        })
        .await
    }

    /// A live turn on a shopper's file: the file is fetched in the turn's
    /// task (showing `file.status` meanwhile), then `turn` runs on its bytes;
    /// a failed fetch is answered without a model call.
    #[allow(clippy::too_many_arguments)]
    async fn run_file_turn<T, F>(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        lang: Lang,
        user_id: i64,
        file: FileTurn,
        turn: T,
    ) -> Result<Outcome, RequestError>
    where
        T: FnOnce(crate::app::App, Vec<u8>, Progress) -> F + Send + 'static,
        F: Future<Output = Reply> + Send + 'static,
    {
        let app = self.app.clone();
        let fetcher = bot.clone();
        self.run_live(bot, me, target, lang, user_id, move |progress| async move {
            if let Some(status) = file.status {
                progress.working(vec![status.to_owned()]);
            }
            match files::download_within(&fetcher, &file.file_id, file.limit).await {
                Ok(bytes) => turn(app, bytes, progress).await,
                Err(e) => fetch_failed(&app, lang, e, &file),
            }
        })
        .await
        .map(|_| ANSWERED)
    }

    /// A text addressed to the bot (typed, or a pressed suggestion): a command
    /// or a request for the router.
    async fn handle_text(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        from: &User,
        mut ctx: MessageContext,
    ) -> Result<Outcome, RequestError> {
        if let Some(outcome) = self.refused(bot, me, target, &ctx).await? {
            return Ok(outcome);
        }
        let bot_id = BotIdentity::from_me(me);
        let command = inbound::parse_command(&ctx.text, &bot_id);
        if command.is_some() {
            ctx.lang = self.lang_of(from, None).await;
        }
        // Commands count too: each one costs a send, some a mall call.
        if let Some(outcome) = self.limited(bot, me, target, &ctx).await? {
            return Ok(outcome);
        }
        match command {
            Some(command) => self.handle_command(bot, me, target, from, ctx, command).await,
            None if ctx.text.is_empty() => self.greet(bot, me, target, ctx.lang).await,
            None => self.route(bot, me, target, ctx).await,
        }
        .map(|_| ANSWERED)
    }

    /// Asks the router, showing its progress meanwhile (typing, a status
    /// message, the answer as it streams), and delivers its answer in place
    /// of the progress.
    pub(super) async fn route(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        ctx: MessageContext,
    ) -> Result<(), RequestError> {
        let lang = ctx.lang;
        let user_id = ctx.user_id;
        let router = self.app.router.clone();
        // Always after [`Transport::limited`]: the message was counted there.
        self.run_live(bot, me, target, lang, user_id, move |progress| async move {
            router.dispatch_admitted(&ctx, &progress).await
        })
        .await
    }

    /// Runs a router turn in its own task, showing its progress in a
    /// [`LiveMessage`], then replaces that with the reply; a panic becomes a
    /// logged error and an apology.
    pub(super) async fn run_live<F, W>(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        lang: Lang,
        user_id: i64,
        work: W,
    ) -> Result<(), RequestError>
    where
        W: FnOnce(Progress) -> F,
        F: Future<Output = Reply> + Send + 'static,
    {
        let started = std::time::Instant::now();
        let (progress, events) = Progress::channel();
        let mut live = LiveMessage::new(bot, *target, &self.drafts, self.typing.hold(bot, target));
        let mut task = tokio::spawn(work(progress));
        let reply = match live.follow(events, &mut task).await {
            Ok(reply) => reply,
            Err(e) => self.failed_turn(target, lang, e),
        };
        let replace = live.finish().await;
        let finished = self.deliver(bot, me, target, lang, user_id, &reply, replace).await;
        metrics::histogram!(crate::ops::ANSWER).record(started.elapsed().as_secs_f64());
        finished
    }

    /// Runs router work in its own task with the typing indicator on; a
    /// panic becomes a logged error and an apology.
    pub(super) async fn run_guarded<F>(&self, bot: &Bot, target: &Target, lang: Lang, work: F) -> Reply
    where
        F: Future<Output = Reply> + Send + 'static,
    {
        let _typing = self.typing.hold(bot, target);
        match tokio::spawn(work).await {
            Ok(reply) => reply,
            Err(e) => self.failed_turn(target, lang, e),
        }
    }

    fn failed_turn(&self, target: &Target, lang: Lang, error: tokio::task::JoinError) -> Reply {
        tracing::error!(error = %error, chat = target.chat.0, "answering a message failed");
        self.app.stats.record_error("answering a message failed (panic)");
        Reply::text(texts::apology(lang))
    }

    /// What the buttons of `reply` need; a group hand-off gets its deep link for `user_id`.
    async fn buttons<'m>(
        &self,
        me: &'m Me,
        target: &Target,
        lang: Lang,
        user_id: i64,
        reply: &Reply,
    ) -> ButtonContext<'m> {
        let handoff_payload = match reply.open_private.as_deref().filter(|r| !r.trim().is_empty()) {
            Some(request) => self.handoffs.put(user_id, request).await,
            None => None,
        };
        let username = me.user.username.as_deref().unwrap_or_default();
        let webapp = self.app.config.webapp_url();
        ButtonContext { lang, bot_username: username, handoff_payload, webapp, in_group: target.chat.0 < 0 }
    }

    /// Sends a router reply through the outbox, its first part replacing the
    /// message `replace` when given (a status message); a group hand-off gets
    /// its deep link for `user_id`.
    #[allow(clippy::too_many_arguments)]
    pub(super) async fn deliver(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        lang: Lang,
        user_id: i64,
        reply: &Reply,
        replace: Option<MessageId>,
    ) -> Result<(), RequestError> {
        let paying = self.payments_on() && target.reply_to.is_none();
        let stripped;
        let reply = if reply.payable.is_empty() || paying {
            reply
        } else {
            // Paid at the store: no pay buttons.
            stripped = Reply { payable: Vec::new(), ..reply.clone() };
            &stripped
        };
        // In the turn's trace, when it was traced: the sends of its answer.
        let delivering = async {
            let buttons = self.buttons(me, target, lang, user_id, reply).await;
            self.outbox.deliver(bot, target, reply, &buttons, replace).await?;
            if let (true, Some(order_id)) = (paying, reply.invoice.as_deref()) {
                self.send_invoice(bot, target, user_id, lang, order_id).await?;
            }
            Ok(())
        };
        crate::otel::in_trace(reply.trace.clone(), delivering).await
    }

    /// Sends the transport's own text (no buttons); counts it as a handled message.
    pub(super) async fn say(&self, bot: &Bot, target: &Target, text: &str) -> Result<(), RequestError> {
        self.app.stats.count_message();
        self.outbox.deliver_text(bot, target, text).await.map(drop)
    }

    /// Confirm / Cancel: answer the press first, then show the outcome in
    /// place of the buttons, then run the action and send its result.
    #[allow(clippy::too_many_arguments)]
    async fn on_confirmation(
        &self,
        bot: &Bot,
        query: &CallbackQuery,
        message: &Message,
        me: &Me,
        target: &Target,
        token: String,
        approve: bool,
    ) -> Result<Outcome, RequestError> {
        let lang = self.lang_of(&query.from, None).await;
        let press =
            ConfirmationPress { token, user_id: query.from.id.0 as i64, chat_id: message.chat.id.0, approve };
        let router = self.app.router.clone();
        let check = match tokio::spawn(async move { router.press(&press).await }).await {
            Ok(check) => check,
            Err(e) => {
                tracing::error!(error = %e, "checking a button press failed");
                self.app.stats.record_error("checking a button press failed (panic)");
                send::answer_press(bot, query, Some(texts::apology(lang)), true).await;
                return Ok(ANSWERED);
            }
        };
        match check {
            PressCheck::Accepted { claim, outcome } => {
                send::answer_press(bot, query, None, false).await;
                send::close_buttons(bot, message, &outcome).await;
                let lang = claim.action.lang;
                let user_id = claim.action.user_id;
                let router = self.app.router.clone();
                self.run_live(bot, me, target, lang, user_id, move |progress| async move {
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
                self.outbox.deliver_text(bot, target, &prompt).await.map(|_| ANSWERED)
            }
        }
    }

    /// A suggestion button: sent on as the presser's next message.
    async fn on_suggestion(
        &self,
        bot: &Bot,
        query: &CallbackQuery,
        message: &Message,
        me: &Me,
        target: &Target,
        index: usize,
    ) -> Result<Outcome, RequestError> {
        let lang = self.lang_of(&query.from, None).await;
        let Some(text) = send::pressed_suggestion(message, index) else {
            send::answer_press(bot, query, Some(texts::button_expired(lang)), true).await;
            return Ok(ANSWERED);
        };
        send::answer_press(bot, query, None, false).await;
        send::close_buttons(bot, message, &format!("› {text}")).await;
        let is_group = message.chat.is_group() || message.chat.is_supergroup();
        let ctx = self.context(&query.from, message.chat.id, is_group, text, None);
        self.handle_text(bot, me, target, &query.from, ctx).await
    }

    /// Logs a failure to answer, counts it, and tells the shopper briefly.
    async fn apologise(&self, bot: &Bot, target: &Target, lang: Lang, error: &RequestError) {
        tracing::error!(error = %error, chat = target.chat.0, "could not answer on telegram");
        self.app.stats.record_error("could not answer on telegram");
        if let Err(e) = send::send_text(bot, target, texts::apology(lang), None).await {
            tracing::warn!(error = %e, "could not send the apology either");
        }
    }

    /// The shopper's message as the router takes it.
    pub(super) fn context(
        &self,
        from: &User,
        chat: ChatId,
        is_group: bool,
        text: String,
        reply_to: Option<String>,
    ) -> MessageContext {
        // The router applies the shopper's `/lang` choice on top of this.
        let lang = self.detected_lang(from, Some(&text));
        MessageContext {
            platform: "telegram",
            user_id: from.id.0 as i64,
            user_name: Some(from.full_name()),
            chat_id: chat.0,
            is_group,
            mentioned: true,
            text,
            reply_to,
            lang,
            image: None,
        }
    }
}
