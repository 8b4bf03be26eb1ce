//! The staff's side: the hand-off of a shopper to a person at the service
//! desk (`[support]`), the report's counts (`report.keep_days`) and the day's
//! figures (`/stats`, `figures.rs`).
//!
//! A request for a person — in words, or the model's `contact_staff` —
//! becomes [`StaffDesk::handoff_reply`]: without a desk, where the service
//! desk is; outside `support.hours`, when it opens; else the hand-off, which
//! the transport carries out after the text. Every turn's events (misses,
//! empty searches, hand-offs) go to the report through [`StaffDesk::record`].

use std::sync::Arc;
use std::time::Duration;

use handlers::Lang;
use services::MallApi;

use super::scope::today;
use crate::engine::reply::Reply;
use crate::engine::report::Event;
use crate::engine::support::Desk;
use crate::infra::state::StateStore;

/// The desk's settings (`[support]`, `[report]`).
#[derive(Debug, Clone)]
pub struct DeskSettings {
    /// The service desk (`[support]`), when there is one in Telegram.
    pub(crate) desk: Option<Desk>,
    /// How long the report's counts are kept (`report.keep_days`).
    pub(crate) report_keep: Duration,
}

impl Default for DeskSettings {
    fn default() -> Self {
        DeskSettings { desk: None, report_keep: Duration::from_secs(30 * 86_400) }
    }
}

/// The hand-off to staff, the report and the day's figures.
pub(crate) struct StaffDesk {
    pub(super) state: Arc<dyn StateStore>,
    /// The mall (where its service desk is; the payments ledger of `/stats`).
    pub(super) mall: Arc<dyn MallApi>,
    settings: DeskSettings,
}

/// How long the day's figures are kept.
pub(super) const DAY_FIGURES_TTL: Duration = Duration::from_secs(3 * 24 * 3600);

impl StaffDesk {
    pub(super) fn new(state: Arc<dyn StateStore>, mall: Arc<dyn MallApi>, settings: DeskSettings) -> Self {
        StaffDesk { state, mall, settings }
    }

    /// The service desk, when there is one.
    pub(super) fn desk(&self) -> Option<&Desk> {
        self.settings.desk.as_ref()
    }

    /// How long the report's counts are kept (`report.keep_days`).
    pub(super) fn report_keep(&self) -> Duration {
        self.settings.report_keep
    }

    /// Adds a conversation's events to the report (`answered`: a turn that answered).
    pub(super) async fn record(&self, conversation: &str, answered: bool, events: &[Event]) {
        crate::engine::report::record(
            self.state.as_ref(),
            self.settings.report_keep,
            conversation,
            answered,
            events,
        )
        .await;
    }

    /// The answer to a request for a person (in words, or the model's
    /// `contact_staff`): without a desk, where the service desk is; outside
    /// `support.hours`, when it opens; else the hand-off, which the
    /// transport carries out after the text.
    pub(super) async fn handoff_reply(&self, conversation: &str, lang: Lang, reason: &str) -> Reply {
        let texts = &lang.texts().support;
        // A reason of the bot's own words is one reason whatever the shopper's language.
        let counted = match Lang::ALL.iter().any(|l| l.texts().support.asked_reason == reason) {
            true => Lang::En.texts().support.asked_reason,
            false => reason,
        };
        self.record(conversation, false, &[Event::Handoff(counted.to_owned())]).await;
        if let Err(e) = self.state.take_value(&crate::infra::state::keys::misses(conversation)).await {
            tracing::warn!(error = %e, "could not reset the misses in a row");
        }
        let Some(desk) = &self.settings.desk else {
            metrics::counter!(crate::infra::ops::HANDOFFS, "outcome" => "no_desk").increment(1);
            return Reply::text(handlers::mall::no_desk(self.mall.as_ref(), lang).await);
        };
        if let Some(opens) = desk.closed_until(crate::infra::state::unix_now()) {
            metrics::counter!(crate::infra::ops::HANDOFFS, "outcome" => "after_hours").increment(1);
            return Reply::text((texts.after_hours)(&opens));
        }
        Reply { handoff: Some(reason.to_owned()), ..Reply::text(texts.connecting) }
    }

    /// Counts one transcription and the time it took in the day's figures (`/stats`).
    pub(super) async fn count_transcription(&self, took: Duration) {
        let day = crate::infra::state::keys::stats(today());
        let deltas = [
            (day.as_str(), "transcriptions", 1),
            (day.as_str(), "transcription_ms", took.as_millis() as i64),
        ];
        if let Err(e) = self.state.add_counts(&deltas, DAY_FIGURES_TTL).await {
            tracing::warn!(error = %e, "could not count a transcription");
        }
    }
}
