//! The live message of a turn: what the shopper sees while the router works.
//!
//! Tools running show as one status message ("🔍 正在搜索…"), sent on the
//! first [`TurnEvent::Working`] and edited in place after. A streamed answer
//! ([`TurnEvent::TextDelta`]) shows as it is written: in private chats as a
//! `sendMessageDraft` draft where the Bot API server takes it, otherwise in
//! that one message, edited at most every [`PRIVATE_EDIT_EVERY`] (groups:
//! [`GROUP_EDIT_EVERY`]). Every request goes through [`send::call`], so a
//! `429` is waited out for its `retry_after` and the request sent again, as
//! for any other; a wait longer than that rule takes holds the next change
//! back until it is over. Text of a round that ends in tool calls gives way to the
//! next status. At the end the final [`Reply`] replaces it all
//! ([`LiveMessage::finish`]), so one message per turn is left in the chat.
//!
//! The status message waits `STATUS_AFTER`, so a quick answer shows
//! "typing…" (one loop per chat, `send/typing.rs`) and then itself; "typing…"
//! is released as soon as something is visible. `sendMessageDraft` is not in
//! teloxide 0.17: this file declares its payload and sends it through
//! `send::call` like every other request (the bot's HTTP client,
//! `telegram.api_url`, retries, flood rule); whether drafts are still tried
//! is `drafts.rs`'s. After a draft the status message is deleted and the
//! answer sent anew; otherwise the answer is edited into the status message
//! with its buttons. The time to the first thing shown
//! (`mallbot_answer_first_sign_seconds`) and to the whole answer
//! (`mallbot_answer_seconds`, in `Handle::run_live`) are recorded here.
//!
//! Also here, the answer's way out of an update: `Handle::route` (an
//! admitted message to `router.answer`, shown live), `Handle::run_guarded`
//! (router work with "typing…" on) and `Handle::deliver` (a reply, with its
//! buttons, through the outbox — replacing the status message —, what a
//! 👍/👎 on it will be about, the desk's topic it opens and the invoice it
//! asks for).

use std::time::Duration;

use serde::Serialize;
use teloxide::payloads::EditMessageTextSetters;
use teloxide::prelude::*;
use teloxide::requests::Payload;
use teloxide::types::{MessageId, ParseMode, ThreadId, True};
use teloxide::{ApiError, RequestError};
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::drafts::DraftSupport;
use super::format::{MESSAGE_LIMIT, escape_html, split_message};
use super::handle::Handle;
use super::markdown::render_parts;
use super::send::{self, ButtonContext, SendFailure, Target, Typing};
use super::texts;
use handlers::Lang;

use crate::engine::context::MessageContext;
use crate::engine::progress::{Progress, TurnEvent};
use crate::engine::reply::Reply;
use crate::engine::router::Admitted;

/// The shortest gap between two edits of the live message in a private chat.
pub(crate) const PRIVATE_EDIT_EVERY: Duration = Duration::from_secs(1);
/// The shortest gap between two edits of the live message in a group.
pub(crate) const GROUP_EDIT_EVERY: Duration = Duration::from_secs(3);
/// The shortest gap between two drafts.
pub(crate) const DRAFT_EVERY: Duration = Duration::from_millis(400);
/// A status is shown only once a turn has run this long: quick turns show
/// "typing…" and then their answer, without a status message coming and going.
pub(crate) const STATUS_AFTER: Duration = Duration::from_millis(600);
/// The longest `retry_after` the live message waits for before its final edit.
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// `sendMessageDraft`: streams a partial message to a private chat (Bot API 9.3+).
#[derive(Debug, Clone, Serialize)]
struct SendMessageDraft {
    chat_id: ChatId,
    #[serde(skip_serializing_if = "Option::is_none")]
    message_thread_id: Option<ThreadId>,
    draft_id: u32,
    text: String,
    parse_mode: ParseMode,
}

impl Payload for SendMessageDraft {
    type Output = True;
    const NAME: &'static str = "sendMessageDraft";
}

/// What the live message is showing, or is to show at the next flush.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Showing {
    Nothing,
    Status,
    Answer,
}

/// The live message of one turn at the [`Target`] of its update.
pub(crate) struct LiveMessage<'a> {
    bot: &'a Bot,
    target: Target,
    drafts: &'a DraftSupport,
    typing: Option<Typing>,
    /// The turn's one message (status, or the answer being edited in).
    message: Option<MessageId>,
    /// The text that message holds now.
    message_text: String,
    /// Non-zero while this turn streams into a draft.
    draft_id: u32,
    /// This turn's first draft was refused: it edits instead.
    drafts_off: bool,
    draft_text: String,
    lines: Vec<String>,
    answer: String,
    want: Showing,
    dirty: bool,
    edit_every: Duration,
    next_edit: Instant,
    next_draft: Instant,
    /// Until when Telegram asked to wait (429).
    backoff_until: Option<Instant>,
    /// The earliest moment a status may appear.
    status_from: Instant,
    /// When the turn began.
    started: Instant,
}

impl<'a> LiveMessage<'a> {
    /// The live message of a turn answering the update of `handle`;
    /// `typing` is released as soon as something is visible.
    pub(crate) fn new(handle: &'a Handle, typing: Typing) -> Self {
        let now = Instant::now();
        let target = handle.target;
        LiveMessage {
            bot: &handle.bot,
            target,
            drafts: &handle.tg.drafts,
            typing: Some(typing),
            message: None,
            message_text: String::new(),
            draft_id: 0,
            drafts_off: false,
            draft_text: String::new(),
            lines: Vec::new(),
            answer: String::new(),
            want: Showing::Nothing,
            dirty: false,
            edit_every: if target.chat.is_user() { PRIVATE_EDIT_EVERY } else { GROUP_EDIT_EVERY },
            next_edit: now,
            next_draft: now,
            backoff_until: None,
            status_from: now + STATUS_AFTER,
            started: now,
        }
    }

    /// Shows the events of a turn until `work` ends, then returns its result
    /// (`Err` when it panicked).
    pub(crate) async fn follow<T>(
        &mut self,
        mut events: UnboundedReceiver<TurnEvent>,
        work: &mut JoinHandle<T>,
    ) -> Result<T, tokio::task::JoinError> {
        loop {
            let due = self.due();
            tokio::select! {
                event = events.recv() => match event {
                    Some(event) => self.take(event).await,
                    None => break,
                },
                _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => {
                    self.flush().await;
                }
            }
        }
        work.await
    }

    /// When the pending change may be shown, if there is one.
    fn due(&self) -> Option<Instant> {
        if !self.dirty {
            return None;
        }
        let mut at = if self.uses_draft() { self.next_draft } else { self.next_edit };
        if self.want == Showing::Status && self.nothing_shown() {
            at = at.max(self.status_from);
        }
        Some(self.backoff_until.map_or(at, |b| b.max(at)))
    }

    async fn take(&mut self, event: TurnEvent) {
        match event {
            TurnEvent::Working(lines) => {
                self.answer.clear();
                self.lines = lines;
                self.want = Showing::Status;
            }
            TurnEvent::TextDelta(delta) => {
                self.answer.push_str(&delta);
                self.want = Showing::Answer;
            }
        }
        self.dirty = true;
        // The first sign of the turn is shown at once (a status only after
        // STATUS_AFTER; until then "typing…" says enough).
        let now = Instant::now();
        if self.nothing_shown()
            && self.backoff_until.is_none()
            && (self.want == Showing::Answer || now >= self.status_from)
        {
            self.flush().await;
        }
    }

    fn nothing_shown(&self) -> bool {
        self.message.is_none() && self.draft_id == 0
    }

    /// Whether the answer streams into a draft (private chats, drafts taken).
    fn uses_draft(&self) -> bool {
        self.want == Showing::Answer && self.target.chat.is_user() && !self.drafts_off && self.drafts.usable()
    }

    /// Shows the pending change.
    async fn flush(&mut self) {
        self.dirty = false;
        match self.want {
            Showing::Nothing => {}
            Showing::Status => {
                let text = self.lines.join("\n");
                if self.draft_id != 0 && !self.draft_text.is_empty() {
                    // The draft showed text that was not the answer.
                    self.draft(&text).await;
                }
                self.show_in_message(&text).await;
            }
            Showing::Answer => {
                let Some(text) = split_message(&self.answer, MESSAGE_LIMIT).into_iter().next() else {
                    return;
                };
                if self.uses_draft() && self.draft(&text).await {
                    return;
                }
                self.show_in_message(&text).await;
            }
        }
    }

    /// Sends `text` as this turn's draft; `false` when drafts cannot be used.
    async fn draft(&mut self, text: &str) -> bool {
        if text.trim().is_empty() || text == self.draft_text {
            return true;
        }
        if self.draft_id == 0 {
            self.draft_id = rand::random_range(1..=u32::MAX);
        }
        let payload = SendMessageDraft {
            chat_id: self.target.chat,
            message_thread_id: self.target.thread,
            draft_id: self.draft_id,
            text: live_html(text),
            parse_mode: ParseMode::Html,
        };
        self.next_draft = Instant::now() + DRAFT_EVERY;
        match send::call(self.bot, &payload).await {
            Ok(_) => {
                self.drafts.accepted();
                self.draft_text = text.to_owned();
                self.visible();
                true
            }
            Err(SendFailure { error: RequestError::RetryAfter(after), .. }) => {
                self.wait(after.duration());
                true
            }
            Err(SendFailure { error: e @ RequestError::Api(_), .. }) if self.draft_text.is_empty() => {
                self.drafts.refuse(&e);
                self.drafts_off = true;
                self.draft_id = 0;
                false
            }
            Err(e) => {
                tracing::debug!(error = %e, "draft not shown");
                true
            }
        }
    }

    /// Shows `text` in the turn's message: sent the first time, edited after.
    async fn show_in_message(&mut self, text: &str) {
        if text.trim().is_empty() || text == self.message_text {
            return;
        }
        self.next_edit = Instant::now() + self.edit_every;
        let Some(id) = self.message else {
            match send::send_text(self.bot, &self.target, text, None).await {
                Ok(sent) => {
                    self.message = sent.first().copied();
                    self.message_text = text.to_owned();
                    self.visible();
                }
                Err(e) => tracing::warn!(error = %e, "could not show the turn's progress"),
            }
            return;
        };
        let html = live_html(text);
        let preview = super::trust::preview_options(&html);
        let mut payload =
            teloxide::payloads::EditMessageText::new(self.target.chat, id, html).parse_mode(ParseMode::Html);
        if let Some(preview) = preview {
            payload = payload.link_preview_options(preview);
        }
        match send::call(self.bot, &payload).await {
            Ok(_) | Err(SendFailure { error: RequestError::Api(ApiError::MessageNotModified), .. }) => {
                self.message_text = text.to_owned()
            }
            // Longer than the call waits: the next change waits for it.
            Err(SendFailure { error: RequestError::RetryAfter(after), .. }) => {
                tracing::info!(
                    retry_after = after.seconds(),
                    "telegram flood control; the live message waits"
                );
                self.wait(after.duration());
            }
            Err(e) => tracing::debug!(error = %e, "live message not edited"),
        }
    }

    /// Telegram asked to wait: the change stays pending until then.
    fn wait(&mut self, after: Duration) {
        self.backoff_until = Some(Instant::now() + after.min(MAX_BACKOFF));
        self.dirty = true;
    }

    /// Something is visible: "typing…" is no longer needed.
    fn visible(&mut self) {
        if let Some(mut typing) = self.typing.take() {
            typing.stop();
            metrics::histogram!(crate::infra::ops::FIRST_SIGN).record(self.started.elapsed().as_secs_f64());
        }
    }

    /// Ends the live view before the final reply goes out: "typing…" stops,
    /// a pending flood wait is waited out, and the message the reply should
    /// replace is returned — the turn's status or streamed message, edited
    /// into the answer's first part by the sending path. After a draft
    /// (which only a new message keeps) there is none: the status message is
    /// removed and the answer is sent anew.
    pub(crate) async fn finish(mut self) -> Option<MessageId> {
        self.visible();
        if let Some(until) = self.backoff_until {
            tokio::time::sleep_until(until).await;
        }
        let id = self.message?;
        if self.draft_id == 0 {
            return Some(id);
        }
        let payload = teloxide::payloads::DeleteMessage::new(self.target.chat, id);
        if let Err(e) = send::call(self.bot, &payload).await {
            tracing::debug!(error = %e, "could not remove the status message");
        }
        None
    }
}

/// The HTML of text shown while it grows: the Markdown of its first message
/// (unfinished markers stay literal until they close).
fn live_html(text: &str) -> String {
    render_parts(text, MESSAGE_LIMIT)
        .into_iter()
        .next()
        .map(|part| part.html)
        .unwrap_or_else(|| escape_html(text))
}

impl Handle {
    /// Runs a router turn in its own task, showing its progress in a
    /// [`LiveMessage`], then replaces that with the reply (in `lang`); a
    /// panic becomes a logged error and an apology.
    pub(crate) async fn run_live<F, W>(&self, lang: Lang, work: W) -> Result<(), RequestError>
    where
        W: FnOnce(Progress) -> F,
        F: Future<Output = Reply> + Send + 'static,
    {
        let started = std::time::Instant::now();
        let (progress, events) = Progress::channel();
        let mut live = LiveMessage::new(self, self.tg.typing.hold(&self.bot, &self.target));
        let mut task = tokio::spawn(work(progress));
        let reply = match live.follow(events, &mut task).await {
            Ok(reply) => reply,
            Err(e) => self.failed_turn(lang, e),
        };
        let replace = live.finish().await;
        let finished = self.deliver(lang, &reply, replace).await;
        metrics::histogram!(crate::infra::ops::ANSWER).record(started.elapsed().as_secs_f64());
        finished
    }

    /// Asks the router about an admitted message, showing its progress
    /// meanwhile (typing, a status message, the answer as it streams), and
    /// delivers its answer in place of the progress.
    pub(crate) async fn route(&self, admitted: Admitted, ctx: MessageContext) -> Result<(), RequestError> {
        let lang = ctx.lang;
        let router = self.tg.app.router.clone();
        self.run_live(lang, move |progress| async move { router.answer(&admitted, &ctx, &progress).await })
            .await
    }

    /// Runs router work in its own task with the typing indicator on; a
    /// panic becomes a logged error and an apology.
    pub(crate) async fn run_guarded<F>(&self, work: F) -> Reply
    where
        F: Future<Output = Reply> + Send + 'static,
    {
        let _typing = self.tg.typing.hold(&self.bot, &self.target);
        match tokio::spawn(work).await {
            Ok(reply) => reply,
            Err(e) => self.failed_turn(self.lang(), e),
        }
    }

    fn failed_turn(&self, lang: Lang, error: tokio::task::JoinError) -> Reply {
        tracing::error!(error = %error, chat = self.target.chat.0, "answering a message failed");
        self.tg.app.stats.record_error("answering a message failed (panic)");
        Reply::text(texts::apology(lang))
    }

    /// What the buttons of `reply` need; a group hand-off gets its deep link
    /// for the sender.
    async fn buttons(&self, lang: Lang, reply: &Reply) -> ButtonContext<'_> {
        let handoff_payload = match reply.open_private.as_deref().filter(|r| !r.trim().is_empty()) {
            Some(request) => self.tg.handoffs.put(self.user_id(), request).await,
            None => None,
        };
        let username = self.me.user.username.as_deref().unwrap_or_default();
        let webapp = self.tg.app.config.webapp_url();
        ButtonContext {
            lang,
            bot_username: username,
            handoff_payload,
            webapp,
            in_group: self.target.chat.0 < 0,
        }
    }

    /// Sends a router reply (its buttons in `lang`) through the outbox, its
    /// first part replacing the message `replace` when given (a status
    /// message); then the invoice it asks for, when orders are paid in Telegram.
    pub(crate) async fn deliver(
        &self,
        lang: Lang,
        reply: &Reply,
        replace: Option<MessageId>,
    ) -> Result<(), RequestError> {
        let paying = self.tg.payments_on() && self.target.reply_to.is_none();
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
            let buttons = self.buttons(lang, reply).await;
            let delivery = self.tg.outbox.deliver(&self.bot, &self.target, reply, &buttons, replace).await?;
            if let (false, Some(rated), super::outbox::Delivery::Sent(ids)) =
                (self.is_group, &reply.rated, &delivery)
                && let Some(last) = ids.last()
            {
                // What a 👍/👎 on this answer will be about.
                let (state, keep) = (self.tg.app.state.as_ref(), self.tg.app.router.report_keep());
                if let Err(e) =
                    crate::engine::report::keep_rated(state, self.target.chat.0, last.0, rated, keep).await
                {
                    tracing::warn!(error = %e, "could not keep what the answer was about");
                }
            }
            if let (false, Some(reason)) = (self.is_group, reply.handoff.as_deref()) {
                // Boxed: a hand-off is rare, and its future is large.
                Box::pin(self.open_desk(lang, reason)).await?;
            }
            if let (true, Some(order_id)) = (paying, reply.invoice.as_deref()) {
                // Boxed: most answers send no invoice, and its future would
                // otherwise add 3 KB to every delivery's.
                Box::pin(self.send_invoice(lang, order_id)).await?;
            }
            if let (true, Some(bill)) = (paying, reply.parking_bill.as_ref()) {
                Box::pin(self.send_parking_invoice(lang, bill)).await?;
            }
            Ok(())
        };
        crate::infra::otel::in_trace(reply.trace.clone(), delivering).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unknown_method_stops_drafts_at_once_other_refusals_after_three_in_a_row() {
        let drafts = DraftSupport::default();
        drafts.refuse(&RequestError::Api(ApiError::InvalidToken));
        assert!(!drafts.usable(), "404 Not Found: the server does not know the method");

        let drafts = DraftSupport::default();
        drafts.refuse(&RequestError::Api(ApiError::Unknown("Bad Request: method not found".into())));
        assert!(!drafts.usable());

        let drafts = DraftSupport::default();
        let peer = || RequestError::Api(ApiError::Unknown("Bad Request: TEXTDRAFT_PEER_INVALID".into()));
        drafts.refuse(&peer());
        drafts.refuse(&peer());
        drafts.accepted();
        drafts.refuse(&peer());
        drafts.refuse(&peer());
        assert!(drafts.usable(), "an accepted draft in between resets the count");
        drafts.refuse(&peer());
        assert!(!drafts.usable());
    }
}
