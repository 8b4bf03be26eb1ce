//! The mall's order events (`GET /api/events?after=CURSOR`), read every
//! `events.poll_secs` and told to the shoppers once each.
//!
//! One instance reads the feed at a time: it holds the state store's lock
//! `events:feed` (a lease it renews at each read; another instance takes over
//! when it stops renewing). The cursor — the last event id handled — lives
//! in the state store, so a restarted or another instance goes on where the
//! last read stopped. Before an event is told, its id is claimed in the
//! state store (`events:told:ID`, set only once); an event whose claim is
//! already taken is never told again, whoever reads it, also after a
//! restart. The telling itself goes through the transport's outbox, so an
//! event claimed but not yet delivered is sent when Telegram takes it.
//!
//! The lock `events:feed` is held for three polls' time (at least 15 s) and
//! released at a stop. Passed over: shoppers of other platforms, a
//! `CANCELLED` without a settled refund, and a `PAID` whose payment arrived
//! here (told with the receipt). The claim is a lock with a random owner,
//! kept 90 days; the event is told in the shopper's private chat in their
//! `/lang` or `bot.language`. So an event is told at most once, and at least
//! once unless the process dies between the claim and the outbox write.
//! Product events (`product.restocked`, `product.price_changed`) go to the
//! stock and price alerts (`engine/alerts.rs`) instead. An order event, like
//! an alert, is a message the bot sends by itself: it passes the door here
//! ([`Unasked`], the allow-lists) before the teller is handed the
//! [`Admitted`] to tell it with; a shopper no longer allowed is not told. `/health` and
//! `mallbot check` show when the feed was last read and how old the newest
//! event was when it was told.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use services::{Event, MallApi, OrderStatus, RefundStatus};

use super::Ledger;
use crate::engine::alerts::{AlertTeller, Alerts, Unasked, shopper_of};
use crate::engine::router::Admitted;
use crate::infra::state::{StateStore, ValueStore, unix_now};

use crate::infra::state::keys::{
    EVENTS_CURSOR as CURSOR, EVENTS_FEED_LOCK as FEED_LOCK, EVENTS_LAST_EVENT as LAST_EVENT,
    EVENTS_LAST_READ as LAST_READ,
};
/// How long the cursor and the figures are kept.
const KEEP: Duration = Duration::from_secs(365 * 24 * 3600);
/// How long a told event's claim is kept (longer than any mall keeps its feed).
const TOLD_KEEP: Duration = Duration::from_secs(90 * 24 * 3600);
/// Events asked for per read.
const PAGE: u32 = 50;
/// How long one read of the feed may take.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// Tells a shopper about an event of their order, and (as an
/// [`AlertTeller`]) about a product whose alert it woke.
#[async_trait]
pub trait EventTeller: AlertTeller + Send + Sync {
    /// Tells the shopper the door admitted (`admitted`: who, on which
    /// platform, their `/lang` choice) about `event` (already claimed as
    /// told). `Err` only when it could not even be queued.
    async fn tell(&self, admitted: &Admitted, event: &Event) -> Result<(), String>;
}

/// What one read of the feed did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FeedReport {
    /// Another instance holds the feed.
    pub not_holder: bool,
    /// Events told now.
    pub told: u32,
    /// Events passed over: told before, not a shopper of this bot, or a
    /// payment the shopper already heard of.
    pub skipped: u32,
}

/// The feed's state for `/health` and `mallbot check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FeedLag {
    /// Seconds since the feed was last read (by any instance).
    pub(crate) since_read: Option<i64>,
    /// Seconds between the newest event handled and its reading.
    pub(crate) event_age: Option<i64>,
}

/// The reader of the mall's event feed.
pub struct EventFeed {
    mall: Arc<dyn MallApi>,
    state: Arc<dyn StateStore>,
    ledger: Ledger,
    /// This instance's name on the feed's lock.
    owner: String,
    /// How long the lock holds without a read.
    lease: Duration,
    /// The stock and price alerts the product events wake.
    alerts: Option<Arc<Alerts>>,
    /// The door what is told passes.
    door: Unasked,
}

impl EventFeed {
    /// A reader polling every `every`.
    pub(crate) fn new(
        mall: Arc<dyn MallApi>,
        state: Arc<dyn StateStore>,
        ledger: Ledger,
        door: Unasked,
        every: Duration,
    ) -> Self {
        let owner = format!("feed-{:016x}", rand::random::<u64>());
        let lease = (every * 3).max(Duration::from_secs(15));
        EventFeed { mall, state, ledger, owner, lease, alerts: None, door }
    }

    /// The same reader, waking `alerts` with the product events.
    pub(crate) fn with_alerts(mut self, alerts: Arc<Alerts>) -> Self {
        self.alerts = Some(alerts);
        self
    }

    /// Reads the feed once (as long as full pages come) and tells each new
    /// event, if this instance holds the feed.
    pub async fn poll(&self, teller: &dyn EventTeller) -> Result<FeedReport, String> {
        let mut report = FeedReport::default();
        match self.state.try_lock(FEED_LOCK, &self.owner, self.lease).await {
            Ok(true) => {}
            Ok(false) => {
                report.not_holder = true;
                return Ok(report);
            }
            Err(e) => return Err(format!("state store: {e}")),
        }
        loop {
            let cursor = self.state.get_value(CURSOR).await.map_err(|e| format!("state store: {e}"))?;
            let page = match tokio::time::timeout(READ_TIMEOUT, self.mall.events(cursor, PAGE)).await {
                Ok(Ok(page)) => page,
                Ok(Err(e)) => return Err(format!("mall: {e}")),
                Err(_) => return Err("mall: no answer in time".into()),
            };
            let now = unix_now();
            let full = page.items.len() >= PAGE as usize;
            for event in &page.items {
                if self.handle(event, teller).await? {
                    report.told += 1;
                } else {
                    report.skipped += 1;
                }
                self.state
                    .put_value(CURSOR, &event.event_id, KEEP)
                    .await
                    .map_err(|e| format!("state store: {e}"))?;
                if let Some(at) = super::unix_of(&event.at) {
                    let _ = self.state.put_value(LAST_EVENT, &(now - at).max(0).to_string(), KEEP).await;
                }
            }
            if let Some(next) = page.next.as_deref().filter(|n| !n.is_empty()) {
                let _ = self.state.put_value(CURSOR, next, KEEP).await;
            }
            let _ = self.state.put_value(LAST_READ, &now.to_string(), KEEP).await;
            if !full {
                return Ok(report);
            }
        }
    }

    /// Tells one event unless it was told (or is not to be told); `true` when told now.
    async fn handle(&self, event: &Event, teller: &dyn EventTeller) -> Result<bool, String> {
        if event.kind.is_product() {
            let Some(alerts) = &self.alerts else { return Ok(false) };
            // Each alert is taken before it is told, so reading the event again tells none twice.
            let report = alerts.on_event(event, self.mall.as_ref(), &self.door, teller).await?;
            return Ok(report.told > 0);
        }
        if event.kind != services::EventKind::OrderStatusChanged {
            return Ok(false);
        }
        if shopper_of(&event.user).is_none() || !worth_telling(event) {
            return Ok(false);
        }
        // The shopper heard of a payment made here with the receipt.
        if event.status == Some(OrderStatus::Paid) && self.ledger.paid_here(&event.order_id).await {
            return Ok(false);
        }
        let Some(admitted) = self.door.knock(&event.user, None).await else {
            return Ok(false);
        };
        let claim = crate::infra::state::keys::event_told(&event.event_id);
        let owner = format!("{:016x}", rand::random::<u64>());
        let first =
            self.state.try_lock(&claim, &owner, TOLD_KEEP).await.map_err(|e| format!("state store: {e}"))?;
        if !first {
            return Ok(false);
        }
        if let Err(e) = teller.tell(&admitted, event).await {
            tracing::warn!(event = %event.event_id, order = %event.order_id, error = %e, "an order event could not be told");
            return Ok(false);
        }
        let status = event.status.map_or("", OrderStatus::as_str);
        metrics::counter!(crate::infra::ops::EVENTS_TOLD, "status" => status).increment(1);
        tracing::info!(event = %event.event_id, order = %event.order_id, status, "order event told");
        Ok(true)
    }

    /// Lets go of the feed (at a stop), so another instance takes it over at
    /// once rather than after the lease.
    pub async fn release(&self) {
        if let Err(e) = self.state.unlock(FEED_LOCK, &self.owner).await {
            tracing::warn!(error = %e, "could not release the event feed");
        }
    }

    /// How far behind the feed is.
    pub(crate) async fn lag(state: &dyn ValueStore) -> FeedLag {
        let read = |key: &'static str| async move {
            state.get_value(key).await.ok().flatten().and_then(|v| v.parse::<i64>().ok())
        };
        FeedLag {
            since_read: read(LAST_READ).await.map(|at| unix_now() - at),
            event_age: read(LAST_EVENT).await,
        }
    }

    /// Reads the feed every `every` until the task is aborted.
    pub(crate) fn spawn(
        self: Arc<Self>,
        teller: Arc<dyn EventTeller>,
        every: Duration,
    ) -> tokio::task::JoinHandle<()> {
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                match self.poll(teller.as_ref()).await {
                    Ok(report) if report.told > 0 => {
                        tracing::info!(told = report.told, skipped = report.skipped, "order events read");
                    }
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!(error = %e, "could not read the mall's order events; trying again")
                    }
                }
            }
        })
    }
}

/// Which events a shopper hears of: paid, ready, picked up, expired, and a
/// refund paid out (a cancelled paid order is told when its refund is done;
/// a cancel alone is the shopper's own or the mall's, answered where it was made).
fn worth_telling(event: &Event) -> bool {
    matches!(
        event.status,
        Some(OrderStatus::Paid | OrderStatus::Ready | OrderStatus::Completed | OrderStatus::Expired)
    ) || event.refund == Some(RefundStatus::Done)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Mutex;

    use services::{EventPage, MockMallApi};

    use super::*;
    use crate::infra::state::MemoryStore;

    fn event(id: &str, order: &str, user: &str, status: OrderStatus) -> Event {
        serde_json::from_value(serde_json::json!({
            "event_id": id, "order_id": order, "user": user, "status": status, "at": "2026-11-25T14:00:00Z",
        }))
        .unwrap()
    }

    #[derive(Default)]
    struct Heard(Mutex<Vec<(i64, String)>>);

    #[async_trait]
    impl EventTeller for Heard {
        async fn tell(&self, admitted: &Admitted, event: &Event) -> Result<(), String> {
            let status = event.status.map_or("", OrderStatus::as_str);
            self.0.lock().unwrap().push((admitted.user_id(), format!("{} {status}", event.order_id)));
            Ok(())
        }
    }

    #[async_trait]
    impl AlertTeller for Heard {
        async fn tell_alert(
            &self,
            _: &Admitted,
            _: &handlers::alert_book::Alert,
            _: &crate::engine::alerts::News,
            _: i64,
        ) -> Result<(), String> {
            Ok(())
        }
    }

    /// The door of a bot on `state` that lets everyone in.
    fn door(state: &Arc<dyn StateStore>) -> Unasked {
        let mut config = crate::infra::config::Config::default();
        config.state.url = "memory://".into();
        let app =
            crate::app::App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), state.clone())
                .unwrap();
        Unasked::new(app.router.clone(), handlers::Lang::Zh)
    }

    /// A mall whose feed always holds `events`, whatever the cursor.
    fn mall_with(events: Vec<Event>) -> Arc<dyn MallApi> {
        let mut mall = MockMallApi::new();
        mall.expect_events().returning(move |_, _| Ok(EventPage { items: events.clone(), next: None }));
        Arc::new(mall)
    }

    #[tokio::test]
    async fn each_event_is_told_once_to_its_shopper_by_the_holder_of_the_feed_only() {
        let events = vec![
            event("e1", "o-1", "telegram:1001", OrderStatus::Ready),
            event("e2", "o-2", "telegram:1002", OrderStatus::Expired),
            event("e3", "o-3", "telegram:1001", OrderStatus::Cancelled),
            event("e4", "o-4", "web:77", OrderStatus::Ready),
            event("e5", "o-5", "telegram:1001", OrderStatus::Paid),
        ];
        let state: Arc<dyn StateStore> = Arc::new(MemoryStore::new());
        let mall = mall_with(events);
        let never = MockMallApi::new();
        let ledger = Ledger::new(state.clone(), Arc::new(never), Duration::from_secs(1));
        // o-5 was paid here: its shopper heard of it with the receipt.
        state.put_value("pay:order:o-5", "tg-5", Duration::from_secs(60)).await.unwrap();
        let door = door(&state);
        let a =
            EventFeed::new(mall.clone(), state.clone(), ledger.clone(), door.clone(), Duration::from_secs(5));
        let b = EventFeed::new(mall, state.clone(), ledger, door, Duration::from_secs(5));
        let heard = Heard::default();

        let first = a.poll(&heard).await.unwrap();
        assert_eq!((first.told, first.skipped), (2, 3), "{first:?}");
        assert!(b.poll(&heard).await.unwrap().not_holder, "one instance holds the feed");
        a.release().await;
        let again = b.poll(&heard).await.unwrap();
        assert_eq!((again.not_holder, again.told), (false, 0), "read again by the other, told by none");
        assert_eq!(
            *heard.0.lock().unwrap(),
            vec![(1001, "o-1 READY".to_owned()), (1002, "o-2 EXPIRED".to_owned())],
            "the shopper's own cancel, another platform and a payment told with its receipt are not told"
        );
        let lag = EventFeed::lag(state.as_ref()).await;
        assert!(lag.since_read.is_some_and(|s| s <= 1), "{lag:?}");
    }
}
