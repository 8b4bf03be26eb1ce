//! The teller of what the bot says by itself, and the admins' order calls:
//! the mall's order events (read every `events.poll_secs`) and the stock and
//! price alerts (re-read every `alerts.poll_mins`, woken by the feed) are
//! told in the shopper's private chat through the outbox; the admins'
//! `/ready` / `/pickedup` mark an order in the mall.
//!
//! The teller only translates: the engine knocks for each message before
//! it is told (`engine/alerts.rs` `Unasked`, the allow-lists) and hands the
//! [`Admitted`] over; an order event is told in the shopper's `/lang`
//! choice or `bot.language`, an alert in the language the door found.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use handlers::Lang;
use handlers::alert_book::Alert;
use services::{Event, OrderStatus, RefundStatus, Shopper};
use teloxide::prelude::*;

use super::Transport;
use super::alerts::{alert_buttons, alert_text};
use super::outbox::Outbox;
use super::pay::{route_button, store_and_place};
use super::send::Target;
use crate::engine::App;
use crate::engine::alerts::{AlertTeller, News, Unasked};
use crate::engine::payments::{EventFeed, EventTeller};
use crate::engine::router::Admitted;

/// Tells order events and alerts in the shopper's private chat, through the outbox.
pub struct TelegramTeller {
    pub bot: Bot,
    pub app: App,
    pub outbox: Arc<Outbox>,
}

#[async_trait]
impl EventTeller for TelegramTeller {
    async fn tell(&self, admitted: &Admitted, event: &Event) -> Result<(), String> {
        let (platform, user_id) = (admitted.platform(), admitted.user_id());
        if platform != "telegram" {
            return Ok(());
        }
        let lang = admitted.chosen().unwrap_or(self.app.config.bot.language);
        let texts = &lang.texts().pay;
        let id = event.order_id.as_str();
        let (text, markup) = match event.status {
            _ if event.refund == Some(RefundStatus::Done) => ((texts.event_refunded)(id), None),
            Some(OrderStatus::Paid) => ((texts.event_paid)(id), None),
            Some(OrderStatus::Ready) => {
                let shopper = Shopper::new(platform, user_id);
                match self.app.mall.get_order(&shopper, id).await {
                    Ok(order) => {
                        let store = self.app.mall.get_store(&order.pickup_store_id).await.ok();
                        let (name, place) = store_and_place(lang, &order, store.as_ref());
                        ((texts.event_ready)(id, &name, &place), route_button(lang, &order.pickup_store_id))
                    }
                    Err(_) => ((texts.event_ready)(id, "", ""), None),
                }
            }
            Some(OrderStatus::Completed) => ((texts.event_completed)(id), None),
            Some(OrderStatus::Expired) => ((texts.event_expired)(id), None),
            _ => ((texts.event_cancelled)(id), None),
        };
        let target = Target { chat: ChatId(user_id), thread: None, reply_to: None };
        self.outbox
            .deliver_with_markup(&self.bot, &target, &text, markup)
            .await
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

#[async_trait]
impl AlertTeller for TelegramTeller {
    async fn tell_alert(
        &self,
        admitted: &Admitted,
        alert: &Alert,
        news: &News,
        due_ms: i64,
    ) -> Result<(), String> {
        if admitted.platform() != "telegram" {
            return Ok(());
        }
        let lang = admitted.lang();
        let text = alert_text(lang, alert, news);
        let markup = (*news != News::Expired).then(|| alert_buttons(lang, alert)).flatten();
        let target = Target { chat: ChatId(admitted.user_id()), thread: None, reply_to: None };
        self.outbox.enqueue(&target, &text, markup, due_ms).await
    }
}

/// Starts the event feed of `app` (`events.poll_secs`; none when 0).
pub(crate) fn spawn_events(bot: Bot, app: App, outbox: Arc<Outbox>) -> Option<tokio::task::JoinHandle<()>> {
    let every = Duration::from_secs(app.config.events.poll_secs);
    if every.is_zero() {
        return None;
    }
    let feed = Arc::new(event_feed(&app, every));
    let teller: Arc<dyn EventTeller> = Arc::new(TelegramTeller { bot, app, outbox });
    Some(feed.spawn(teller, every))
}

/// The event feed reader of `app`, polling every `every`; its product events wake the alerts.
pub fn event_feed(app: &App, every: Duration) -> EventFeed {
    EventFeed::new(app.mall.clone(), app.state.clone(), super::transport::ledger(app), door(app), every)
        .with_alerts(app.alerts.clone())
}

/// Starts re-reading the watched products (`alerts.poll_mins`) and ending
/// the alerts that ran out.
pub(crate) fn spawn_alerts(bot: Bot, app: App, outbox: Arc<Outbox>) -> tokio::task::JoinHandle<()> {
    let alerts = app.alerts.clone();
    let mall = app.mall.clone();
    let door = door(&app);
    let teller: Arc<dyn AlertTeller> = Arc::new(TelegramTeller { bot, app, outbox });
    alerts.spawn(mall, door, teller)
}

/// The door of `app` that what the bot tells by itself passes
/// (`engine/alerts.rs`; also for a caller reading the alerts by hand).
pub fn door(app: &App) -> Unasked {
    Unasked::new(app.router.clone(), app.config.bot.language)
}

impl Transport {
    /// `/ready ORDER` or `/pickedup ORDER` from an admin: the mall's staff call.
    pub(super) async fn staff_command(&self, order: Option<&str>, ready: bool, lang: Lang) -> String {
        let texts = &lang.texts().pay;
        let Some(order_id) = order.map(str::trim).filter(|o| !o.is_empty()) else {
            return texts.staff_usage.to_owned();
        };
        let answer = if ready {
            self.app.mall.mark_ready(order_id).await
        } else {
            self.app.mall.mark_picked_up(order_id).await
        };
        match answer {
            Ok(order) => (texts.staff_done)(&order.order_id, (lang.texts().answers.status)(order.status)),
            Err(e) => {
                tracing::warn!(error = %e, order = order_id, ready, "a staff command was refused");
                (texts.staff_failed)(order_id, &e.to_string())
            }
        }
    }
}
