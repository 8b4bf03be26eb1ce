//! The outbox: an answer is written to the state store before it is sent
//! and forgotten once Telegram took it. When Telegram stays down past the
//! retries of [`send::call`], or the process stops between a turn and its
//! send, a background task ([`Outbox::spawn`], also at start-up) sends it
//! later — within `telegram.outbox_max_age_secs`; older answers are dropped
//! and logged. Entries are claimed in the store, so of several instances
//! sharing it one delivers each.
//!
//! What can duplicate: a part whose request reached Telegram but whose answer
//! was lost is sent again (the Bot API has no idempotency key); a bot stopped
//! in the middle of a split answer sends it again from its first part.
//!
//! [`Outbox::deliver`] is the entry point of every answer: with `replace` its
//! first part is an edit of that message (a status message turned into the
//! answer; sent new when that message is gone), the rest new messages, the
//! buttons on the last part. The task flushes at start and every
//! `FLUSH_EVERY`; an entry is claimed with a lease (`CLAIM_LEASE`,
//! `outbox_claim`, atomic on every backend). A split answer remembers which
//! parts went, so a later attempt sends only the rest. What cannot be lost
//! within `telegram.outbox_max_age_secs`: an answer whose turn finished.

use std::sync::Arc;
use std::time::Duration;

use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::MessageId;

use super::send::{self, ButtonContext, Outgoing, Target};
use crate::engine::reply::Reply;
use crate::infra::state::{OutboxEntry, StateStore, unix_now_ms};

/// How long an entry belongs to whoever is sending it (the turn, or a
/// flush); after that, another flush may take it.
pub(crate) const CLAIM_LEASE: Duration = Duration::from_secs(120);
/// How soon an answer Telegram did not take is tried again.
pub(crate) const RETRY_AFTER: Duration = Duration::from_secs(5);
/// How often the background task looks for answers to send.
pub(crate) const FLUSH_EVERY: Duration = Duration::from_secs(5);
/// How many entries one flush takes at most.
const BATCH: usize = 50;
/// How soon a paced outbox that just delivered looks again.
const SOON: Duration = Duration::from_millis(200);

/// How a reply went.
#[derive(Debug, Clone, PartialEq)]
pub enum Delivery {
    /// Telegram took it: the ids of the messages that carry it.
    Sent(Vec<MessageId>),
    /// Telegram did not take it yet; it waits in the outbox and is sent later.
    Queued,
}

/// What one flush did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FlushReport {
    /// Answers delivered.
    pub delivered: u64,
    /// Answers still waiting (Telegram did not take them).
    pub(crate) waiting: u64,
    /// Answers dropped: too old, or refused by Telegram for good.
    pub dropped: u64,
}

/// The answers not yet delivered, kept in the state store.
pub struct Outbox {
    state: Arc<dyn StateStore>,
    max_age: Duration,
    pace: Option<Pace>,
}

impl Outbox {
    /// An outbox in `state` whose answers are given up after `max_age`.
    pub fn new(state: Arc<dyn StateStore>, max_age: Duration) -> Self {
        Outbox { state, max_age, pace: None }
    }

    /// The same outbox sending what it holds at most `per_sec` a second over
    /// every instance sharing the store, and at most one a second to a chat
    /// (Telegram's limits; the answers of a turn are sent at once, not here).
    pub fn paced(mut self, per_sec: u32) -> Self {
        self.pace = Some(Pace::new(per_sec));
        self
    }

    /// Keeps a message of the bot's own (with its buttons) to be sent by the
    /// outbox's flush at `due_ms` (Unix ms) at the earliest, not now: what
    /// the bot tells unasked (alerts), paced. Its time in the outbox counts
    /// from `due_ms`.
    pub(crate) async fn enqueue(
        &self,
        target: &Target,
        text: &str,
        markup: Option<teloxide::types::InlineKeyboardMarkup>,
        due_ms: i64,
    ) -> Result<(), String> {
        let out = Outgoing { markup, ..Outgoing::text(target, text) };
        let entry = OutboxEntry {
            id: format!("{due_ms:x}-{:016x}", rand::random::<u64>()),
            chat_id: target.chat.0,
            created_ms: due_ms,
            due_ms,
            payload: encode(&out),
        };
        self.state.outbox_put(&entry).await.map_err(|e| e.to_string())
    }

    /// Delivers `reply` at `target` with its buttons — the first part
    /// replacing the message `replace` when given — keeping it in the outbox
    /// until Telegram took it. `Queued` when Telegram did not take it yet (it
    /// will be sent later); an error only when Telegram refused it for good.
    pub async fn deliver(
        &self,
        bot: &Bot,
        target: &Target,
        reply: &Reply,
        buttons: &ButtonContext<'_>,
        replace: Option<MessageId>,
    ) -> Result<Delivery, RequestError> {
        self.deliver_outgoing(bot, Outgoing::new(target, reply, buttons, replace)).await
    }

    /// Like [`Outbox::deliver`], for a text of the bot's own without buttons.
    pub(crate) async fn deliver_text(
        &self,
        bot: &Bot,
        target: &Target,
        text: &str,
    ) -> Result<Delivery, RequestError> {
        self.deliver_outgoing(bot, Outgoing::text(target, text)).await
    }

    /// Like [`Outbox::deliver_text`], with buttons of the transport's own.
    pub(crate) async fn deliver_with_markup(
        &self,
        bot: &Bot,
        target: &Target,
        text: &str,
        markup: Option<teloxide::types::InlineKeyboardMarkup>,
    ) -> Result<Delivery, RequestError> {
        self.deliver_outgoing(bot, Outgoing { markup, ..Outgoing::text(target, text) }).await
    }

    async fn deliver_outgoing(&self, bot: &Bot, mut out: Outgoing) -> Result<Delivery, RequestError> {
        let now = unix_now_ms();
        let mut entry = OutboxEntry {
            id: format!("{now:x}-{:016x}", rand::random::<u64>()),
            chat_id: out.target.chat.0,
            created_ms: now,
            due_ms: now + millis(CLAIM_LEASE),
            payload: encode(&out),
        };
        let kept = match self.state.outbox_put(&entry).await {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(error = %e, chat = entry.chat_id, "could not keep the answer in the outbox; sending it anyway");
                false
            }
        };
        match send::send_now(bot, &out).await {
            Ok(ids) => {
                if kept {
                    self.forget(&entry.id).await;
                }
                Ok(Delivery::Sent(ids))
            }
            Err(undelivered) if undelivered.failure.transient && kept => {
                out.parts_sent = undelivered.parts_sent;
                entry.payload = encode(&out);
                entry.due_ms = unix_now_ms() + millis(RETRY_AFTER);
                match self.state.outbox_put(&entry).await {
                    Ok(()) => {
                        tracing::warn!(
                            chat = entry.chat_id, error = %undelivered.failure,
                            "telegram did not take the answer; it waits in the outbox and is sent again shortly"
                        );
                        Ok(Delivery::Queued)
                    }
                    // The first copy stays in the outbox and is due after its lease.
                    Err(e) => {
                        tracing::warn!(error = %e, chat = entry.chat_id, "could not reschedule the answer; it is sent again after its lease");
                        Ok(Delivery::Queued)
                    }
                }
            }
            Err(undelivered) => {
                if kept {
                    self.forget(&entry.id).await;
                }
                Err(undelivered.failure.error)
            }
        }
    }

    /// Sends the answers that are due: delivered ones are forgotten, ones
    /// older than the window or refused for good are dropped and logged, the
    /// rest wait for the next flush.
    pub async fn flush(&self, bot: &Bot) -> FlushReport {
        let mut report = FlushReport::default();
        let entries = match self.state.outbox_claim(CLAIM_LEASE, BATCH).await {
            Ok(entries) => entries,
            Err(e) => {
                tracing::warn!(error = %e, "could not read the outbox; trying again later");
                return report;
            }
        };
        let mut telegram_down = false;
        for mut entry in entries {
            let age_ms = unix_now_ms().saturating_sub(entry.created_ms);
            if age_ms >= millis(self.max_age) {
                tracing::warn!(
                    chat = entry.chat_id,
                    age_secs = age_ms / 1000,
                    max_age_secs = self.max_age.as_secs(),
                    "an undelivered answer is older than telegram.outbox_max_age_secs; dropped"
                );
                self.forget(&entry.id).await;
                report.dropped += 1;
                continue;
            }
            let mut out: Outgoing = match serde_json::from_str(&entry.payload) {
                Ok(out) => out,
                Err(e) => {
                    tracing::error!(error = %e, chat = entry.chat_id, "an outbox entry cannot be read; dropped");
                    self.forget(&entry.id).await;
                    report.dropped += 1;
                    continue;
                }
            };
            if telegram_down {
                self.reschedule(&mut entry, &out).await;
                report.waiting += 1;
                continue;
            }
            if let Some(pace) = &self.pace {
                pace.wait(self.state.as_ref(), entry.chat_id).await;
            }
            match send::send_now(bot, &out).await {
                Ok(_) => {
                    tracing::info!(chat = entry.chat_id, age_ms, "an answer from the outbox was delivered");
                    self.forget(&entry.id).await;
                    report.delivered += 1;
                }
                Err(undelivered) if undelivered.failure.transient => {
                    tracing::warn!(chat = entry.chat_id, error = %undelivered.failure, "telegram still does not take answers; they wait");
                    out.parts_sent = undelivered.parts_sent;
                    self.reschedule(&mut entry, &out).await;
                    report.waiting += 1;
                    telegram_down = true;
                }
                Err(undelivered) => {
                    tracing::warn!(chat = entry.chat_id, error = %undelivered.failure, "telegram refused an answer from the outbox; dropped");
                    self.forget(&entry.id).await;
                    report.dropped += 1;
                }
            }
        }
        report
    }

    /// Flushes now (delivering what an earlier run left) and then every
    /// `every`; a paced outbox that just delivered looks again soon (a wave
    /// of alerts comes due a few at a time).
    pub fn spawn(self: Arc<Self>, bot: Bot, every: Duration) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            loop {
                let mut report = self.flush(&bot).await;
                // A full batch: more are due; go on at the pace.
                while report.delivered + report.dropped >= BATCH as u64 && report.waiting == 0 {
                    let more = self.flush(&bot).await;
                    report.delivered += more.delivered;
                    report.dropped += more.dropped;
                    report.waiting += more.waiting;
                    if more.delivered + more.dropped < BATCH as u64 {
                        break;
                    }
                }
                if report != FlushReport::default() {
                    tracing::info!(
                        delivered = report.delivered,
                        waiting = report.waiting,
                        dropped = report.dropped,
                        "outbox flushed"
                    );
                }
                let busy = self.pace.is_some() && report.delivered > 0;
                tokio::time::sleep(if busy { SOON } else { every }).await;
            }
        })
    }

    /// Makes `entry` due again soon, with what was delivered of it so far.
    async fn reschedule(&self, entry: &mut OutboxEntry, out: &Outgoing) {
        entry.payload = encode(out);
        entry.due_ms = unix_now_ms() + millis(RETRY_AFTER);
        if let Err(e) = self.state.outbox_put(entry).await {
            tracing::warn!(error = %e, chat = entry.chat_id, "could not reschedule an answer; it is due after its lease");
        }
    }

    async fn forget(&self, id: &str) {
        if let Err(e) = self.state.outbox_remove(id).await {
            tracing::warn!(error = %e, id, "could not remove a delivered answer from the outbox");
        }
    }
}

/// Telegram's limits on what the outbox sends: `per_sec` over all instances
/// (counted in the state store in half-second windows of `per_sec / 2`, so
/// no second holds more than one and a half times `per_sec` even across a
/// window's edge; one instance also spaces its own sends evenly), and one a
/// second to any one chat.
struct Pace {
    per_sec: u32,
    next: tokio::sync::Mutex<tokio::time::Instant>,
    chats: std::sync::Mutex<std::collections::HashMap<i64, std::time::Instant>>,
}

const PACE_WINDOW: Duration = Duration::from_millis(500);
/// What one chat may get.
const PER_CHAT: Duration = Duration::from_secs(1);

impl Pace {
    fn new(per_sec: u32) -> Self {
        Pace {
            per_sec: per_sec.max(1),
            next: tokio::sync::Mutex::new(tokio::time::Instant::now()),
            chats: std::sync::Mutex::new(std::collections::HashMap::new()),
        }
    }

    /// Waits until one more message may go to `chat`.
    async fn wait(&self, state: &dyn StateStore, chat: i64) {
        // One a second to the chat.
        let last = self.chats.lock().unwrap_or_else(std::sync::PoisonError::into_inner).get(&chat).copied();
        if let Some(wait) = last.map(|at| PER_CHAT.saturating_sub(at.elapsed())).filter(|w| !w.is_zero()) {
            tokio::time::sleep(wait).await;
        }
        // Evenly spaced in this instance.
        {
            let mut next = self.next.lock().await;
            let now = tokio::time::Instant::now();
            if *next > now {
                tokio::time::sleep_until(*next).await;
            }
            // A twentieth wider than the rate, so that a send arriving a little
            // early never makes a second of more than `per_sec`.
            *next = (*next).max(now) + Duration::from_secs(1) / self.per_sec * 21 / 20;
        }
        // Under the limit over every instance.
        let half = (self.per_sec / 2).max(1);
        for _ in 0..100 {
            match crate::infra::state::outbox_pace_hit(state, PACE_WINDOW).await {
                Ok(n) if n > half => tokio::time::sleep(Duration::from_millis(50)).await,
                Ok(_) => break,
                Err(e) => {
                    tracing::warn!(error = %e, "could not count the outbox's pace; sending");
                    break;
                }
            }
        }
        let mut chats = self.chats.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if chats.len() > 10_000 {
            chats.retain(|_, at| at.elapsed() < PER_CHAT);
        }
        chats.insert(chat, std::time::Instant::now());
    }
}

fn encode(out: &Outgoing) -> String {
    serde_json::to_string(out).unwrap_or_default()
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX / 2)
}
