//! Stock and price alerts: kept in the state store, woken by the mall's
//! product events (`product.restocked`, `product.price_changed`, read by
//! the event feed) or by re-reading the watched products every
//! `alerts.poll_mins`, each told once and then ended.
//!
//! In the store: `alerts:a:ID` holds the alert (JSON); the counters
//! `alerts:u:USER` and `alerts:p:PRODUCT` index it by shopper and product,
//! and `alerts:products` counts the alerts of each product (what the re-read
//! goes through). An alert is told only by whoever takes `alerts:a:ID`
//! (`take_value`: exactly one caller gets it), so an alert fires once across
//! restarts, instances, the feed and the re-read, and a change back and forth
//! wakes it no more than once. What is told goes through the transport's
//! outbox, due at a paced moment ([`Alerts::next_slot`]), so a product that
//! wakes ten thousand alerts is sent at `alerts.sends_per_sec`, none lost on
//! a restart.
//!
//! What the bot sends by itself passes the door too ([`Unasked`], the
//! allow-lists as a `Way::Press`), here in the engine and before any
//! transport is asked to tell it: a shopper taken off `bot.allowed_users`
//! since setting an alert (or placing an order, `payments/events.rs`) hears
//! nothing more. A teller is handed the [`Admitted`] and tells in its
//! language; it never knocks itself. `/alerts` and its remove buttons read
//! and change the book through [`Alerts::listing`] and [`Alerts::unwatch`],
//! for an admitted shopper only.

use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use futures::future::BoxFuture;
use handlers::Lang;
use handlers::alert_book::{Alert, AlertBook, AlertError, Want, same_size};
use services::{Event, EventKind, MallApi, Product};

use crate::engine::context::ChosenLang;
use crate::engine::router::{Admitted, FunctionCallRouter, Knock, Way};

use crate::infra::config::AlertsConfig;
use crate::infra::state::{StateStore, unix_now, unix_now_ms};

use crate::infra::state::keys::{self, ALERTS_POLL_LOCK as POLL_LOCK, ALERTS_PRODUCTS as PRODUCTS};
/// How long after its expiry an alert is still kept (for its last word).
const GRACE: Duration = Duration::from_secs(7 * 86_400);
/// Alerts handled at once when one change wakes many.
const AT_ONCE: usize = 16;

/// What woke an alert.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum News {
    /// Back in stock: the sizes now in stock that it waited for, the price.
    Restocked { sizes: Vec<String>, price_cents: Option<i64> },
    /// Cheaper: the price before and now.
    Cheaper { old_cents: i64, new_cents: i64 },
    /// It ran out without news: its last word.
    Expired,
}

/// Tells a shopper that their alert woke (already taken: told once).
#[async_trait]
pub trait AlertTeller: Send + Sync {
    /// Queues the message for the alert's shopper, whom the door admitted
    /// (`admitted`: who, and the language to tell it in), to be sent at
    /// `due_ms` (Unix milliseconds) at the earliest. `Err` only when it
    /// could not be queued.
    async fn tell_alert(
        &self,
        admitted: &Admitted,
        alert: &Alert,
        news: &News,
        due_ms: i64,
    ) -> Result<(), String>;
}

/// The door for what the bot sends by itself — an alert, an order event:
/// the shopper's private chat knocks as a `Way::Press` (the allow-lists
/// only; the request that asked for it was counted when it was made).
#[derive(Clone)]
pub struct Unasked {
    router: std::sync::Arc<FunctionCallRouter>,
    /// The language of a shopper who never chose or wrote one (`bot.language`).
    lang: Lang,
}

impl Unasked {
    /// The door of `router`; `lang` for a shopper with no language yet.
    pub(crate) fn new(router: std::sync::Arc<FunctionCallRouter>, lang: Lang) -> Self {
        Unasked { router, lang }
    }

    /// Knocks for the shopper `user` (`telegram:123`), who last wrote in
    /// `lang` (when known): admitted, or `None` when the bot may not write
    /// to them (an unknown platform, or not allowed any more).
    pub(crate) async fn knock(&self, user: &str, lang: Option<Lang>) -> Option<Admitted> {
        let (platform, user_id) = shopper_of(user)?;
        let knock = Knock {
            chosen: ChosenLang::Unread,
            ..Knock::private(platform, user_id, lang.unwrap_or(self.lang), Way::Press)
        };
        match self.router.admit(knock).await {
            Ok(admitted) => Some(admitted),
            Err(_) => {
                tracing::info!(platform, user = user_id, "a shopper no longer allowed; not told");
                None
            }
        }
    }
}

/// `/alerts` for an admitted shopper: the text, and the id of each alert
/// in the order the text numbers them (from 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Listing {
    pub(crate) text: String,
    pub(crate) ids: Vec<String>,
}

/// What one pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AlertReport {
    /// Alerts told (woken or expired).
    pub told: u32,
    /// Alerts of the product looked at and left waiting.
    pub(crate) waiting: u32,
}

/// The alerts in the state store.
pub struct Alerts {
    state: std::sync::Arc<dyn StateStore>,
    settings: AlertsConfig,
    /// The next free moment to send at (Unix ms), for pacing.
    next_due_ms: Mutex<i64>,
    /// The `created` of the last alert set here.
    last_created: std::sync::atomic::AtomicI64,
    owner: String,
}

impl Alerts {
    pub fn new(state: std::sync::Arc<dyn StateStore>, settings: AlertsConfig) -> Self {
        let owner = format!("alerts-{:016x}", rand::random::<u64>());
        Alerts { state, settings, next_due_ms: Mutex::new(0), last_created: Default::default(), owner }
    }

    fn keep(&self) -> Duration {
        Duration::from_secs(u64::from(self.settings.ttl_days) * 86_400) + GRACE
    }

    /// The shopper's alerts (`telegram:123`), oldest first.
    pub async fn list(&self, user: &str) -> Result<Vec<Alert>, String> {
        let ids = self.live_ids(&keys::alerts_of_user(user)).await?;
        let mut alerts = Vec::new();
        for id in ids {
            if let Some(alert) = self.get(&id).await? {
                alerts.push(alert);
            }
        }
        alerts.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        Ok(alerts)
    }

    /// `/alerts` of the admitted shopper, in `lang`.
    pub(crate) async fn listing(&self, admitted: &Admitted, lang: Lang) -> Result<Listing, String> {
        let alerts = self.list(&shopper(admitted)).await?;
        let ids = alerts.iter().map(|a| a.id.clone()).collect();
        Ok(Listing { text: list_text(lang, &alerts), ids })
    }

    /// Removes the admitted shopper's own alert `id`: what it waited for,
    /// in `lang`, when it was there.
    pub(crate) async fn unwatch(
        &self,
        admitted: &Admitted,
        id: &str,
        lang: Lang,
    ) -> Result<Option<String>, String> {
        let removed = self.remove(&shopper(admitted), id).await?;
        Ok(removed.map(|alert| handlers::alerts::describe_named(lang, &alert.product_name, &alert.want)))
    }

    /// Removes the shopper's alert `id`; the alert when it was there.
    pub(crate) async fn remove(&self, user: &str, id: &str) -> Result<Option<Alert>, String> {
        match self.get(id).await? {
            Some(alert) if alert.user == user => self.take(id).await,
            _ => Ok(None),
        }
    }

    /// Adds an alert, unless the shopper has `max_per_user` already; the same
    /// alert asked again is the one kept.
    pub async fn add(&self, mut alert: Alert) -> Result<Alert, AlertError> {
        let mine = self.list(&alert.user).await.map_err(AlertError::Store)?;
        if let Some(same) = mine.iter().find(|a| a.product_id == alert.product_id && a.want == alert.want) {
            return Ok(same.clone());
        }
        if mine.len() >= self.settings.max_per_user as usize {
            return Err(AlertError::Full(self.settings.max_per_user));
        }
        let now = unix_now();
        alert.id = format!("{:08x}", rand::random::<u32>());
        // Strictly increasing in this process, so `/alerts` keeps the order they were set in.
        let ms = unix_now_ms();
        let before = self.last_created.fetch_max(ms, std::sync::atomic::Ordering::Relaxed);
        alert.created = if before >= ms {
            self.last_created.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
        } else {
            ms
        };
        alert.expires = now + i64::from(self.settings.ttl_days) * 86_400;
        let json = serde_json::to_string(&alert).map_err(|e| AlertError::Store(e.to_string()))?;
        let store = |e: crate::infra::state::StateError| AlertError::Store(e.to_string());
        self.state.put_value(&keys::alert(&alert.id), &json, self.keep()).await.map_err(store)?;
        let (user_key, product_key) =
            (keys::alerts_of_user(&alert.user), keys::alerts_of_product(&alert.product_id));
        self.state
            .add_counts(
                &[(&user_key, &alert.id, 1), (&product_key, &alert.id, 1), (PRODUCTS, &alert.product_id, 1)],
                self.keep(),
            )
            .await
            .map_err(store)?;
        tracing::info!(alert = %alert.id, product = %alert.product_id, "alert set");
        metrics::counter!(crate::infra::ops::ALERTS, "event" => "set").increment(1);
        Ok(alert)
    }

    /// The alerts woken by a product event of the mall's feed, told through
    /// `teller`; other events are not looked at.
    pub(crate) async fn on_event(
        &self,
        event: &Event,
        mall: &dyn MallApi,
        door: &Unasked,
        teller: &dyn AlertTeller,
    ) -> Result<AlertReport, String> {
        let Some(product_id) = event.product_id.as_deref().filter(|_| event.kind.is_product()) else {
            return Ok(AlertReport::default());
        };
        let ids = self.live_ids(&keys::alerts_of_product(product_id)).await?;
        if ids.is_empty() {
            return Ok(AlertReport::default());
        }
        let price_now = match event.kind {
            EventKind::ProductRestocked => {
                mall.get_product(product_id).await.ok().map(|p| p.brief.price_cents)
            }
            _ => event.new_price_cents,
        };
        let news_for = |alert: &Alert| -> Option<News> {
            match event.kind {
                EventKind::ProductRestocked if alert.woken_by_restock(&event.sizes) => {
                    let sizes = match &alert.want {
                        Want::Restock { size: Some(size) } => {
                            event.sizes.iter().filter(|s| same_size(s, size)).cloned().collect()
                        }
                        _ => event.sizes.clone(),
                    };
                    Some(News::Restocked { sizes, price_cents: price_now })
                }
                EventKind::ProductPriceChanged => {
                    let new_cents = event.new_price_cents?;
                    alert.woken_by_price(new_cents).then(|| News::Cheaper {
                        old_cents: event.old_price_cents.unwrap_or(new_cents),
                        new_cents,
                    })
                }
                _ => None,
            }
        };
        self.wake(ids, door, teller, |alert| news_for(alert)).await
    }

    /// Re-reads the watched products in `mall` (if this instance holds the
    /// re-read): tells the alerts whose wish came true, and (also without a
    /// mall to read) the ones that ran out.
    pub async fn poll(
        &self,
        mall: Option<&dyn MallApi>,
        door: &Unasked,
        teller: &dyn AlertTeller,
        every: Duration,
    ) -> Result<AlertReport, String> {
        let lease = every.max(Duration::from_secs(30));
        if !self.state.try_lock(POLL_LOCK, &self.owner, lease).await.map_err(|e| e.to_string())? {
            return Ok(AlertReport::default());
        }
        let products = self.state.counts(PRODUCTS).await.map_err(|e| e.to_string())?;
        let mut report = AlertReport::default();
        for (product_id, count) in products.into_iter().filter(|(_, n)| *n > 0) {
            let ids = self.live_ids(&keys::alerts_of_product(&product_id)).await?;
            if ids.is_empty() {
                let _ = self.state.add_counts(&[(PRODUCTS, &product_id, -count)], self.keep()).await;
                continue;
            }
            let read = match mall {
                Some(mall) => Some(mall.get_product(&product_id).await),
                None => None,
            };
            let product = match read {
                None => None,
                Some(Ok(product)) => Some(product),
                Some(Err(e)) => {
                    tracing::info!(product = %product_id, error = %e, "a watched product could not be read");
                    None
                }
            };
            let one = self
                .wake(ids, door, teller, |alert| product.as_ref().and_then(|p| news_from_product(alert, p)))
                .await?;
            report.told += one.told;
            report.waiting += one.waiting;
        }
        Ok(report)
    }

    /// Tells each alert of `ids` that `news` wakes, or that ran out, once,
    /// to a shopper the door still admits.
    async fn wake(
        &self,
        ids: Vec<String>,
        door: &Unasked,
        teller: &dyn AlertTeller,
        news: impl Fn(&Alert) -> Option<News>,
    ) -> Result<AlertReport, String> {
        let now = unix_now();
        let news = &news;
        let outcomes: Vec<Result<bool, String>> = futures::stream::iter(ids)
            .map(|id| async move {
                let Some(alert) = self.get(&id).await? else { return Ok(false) };
                let said = if alert.expires <= now { Some(News::Expired) } else { news(&alert) };
                let Some(said) = said else { return Ok(false) };
                let Some(alert) = self.take(&id).await? else { return Ok(false) };
                // Told in the language the shopper now talks in, else the alert's.
                let Some(admitted) = door.knock(&alert.user, Lang::parse(&alert.lang)).await else {
                    tracing::info!(alert = %alert.id, "an alert of a shopper no longer allowed; not told");
                    return Ok(false);
                };
                let due = self.next_slot();
                match teller.tell_alert(&admitted, &alert, &said, due).await {
                    Ok(()) => {
                        let event = if said == News::Expired { "expired" } else { "told" };
                        metrics::counter!(crate::infra::ops::ALERTS, "event" => event).increment(1);
                        tracing::info!(alert = %alert.id, product = %alert.product_id, event, "alert told");
                        Ok(true)
                    }
                    Err(e) => {
                        tracing::warn!(alert = %alert.id, error = %e, "an alert could not be told");
                        Ok(false)
                    }
                }
            })
            .buffer_unordered(AT_ONCE)
            .collect()
            .await;
        let mut report = AlertReport::default();
        for outcome in outcomes {
            if outcome? {
                report.told += 1;
            } else {
                report.waiting += 1;
            }
        }
        Ok(report)
    }

    /// When the next alert message may be sent: `1 / sends_per_sec` after the
    /// one before, now at the earliest.
    pub(crate) fn next_slot(&self) -> i64 {
        let step = 1050 / i64::from(self.settings.sends_per_sec.max(1));
        let mut next = self.next_due_ms.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let slot = (*next).max(unix_now_ms());
        *next = slot + step;
        slot
    }

    async fn get(&self, id: &str) -> Result<Option<Alert>, String> {
        let value = self.state.get_value(&keys::alert(id)).await.map_err(|e| e.to_string())?;
        Ok(value.and_then(|v| serde_json::from_str(&v).ok()))
    }

    /// Takes the alert out (exactly one caller gets it) and out of its indexes.
    async fn take(&self, id: &str) -> Result<Option<Alert>, String> {
        let value = self.state.take_value(&keys::alert(id)).await.map_err(|e| e.to_string())?;
        let Some(alert) = value.and_then(|v| serde_json::from_str::<Alert>(&v).ok()) else {
            return Ok(None);
        };
        let (user_key, product_key) =
            (keys::alerts_of_user(&alert.user), keys::alerts_of_product(&alert.product_id));
        if let Err(e) = self
            .state
            .add_counts(
                &[
                    (&user_key, &alert.id, -1),
                    (&product_key, &alert.id, -1),
                    (PRODUCTS, &alert.product_id, -1),
                ],
                self.keep(),
            )
            .await
        {
            tracing::warn!(alert = %alert.id, error = %e, "an alert's indexes could not be updated");
        }
        Ok(Some(alert))
    }

    async fn live_ids(&self, key: &str) -> Result<Vec<String>, String> {
        let counts = self.state.counts(key).await.map_err(|e| e.to_string())?;
        Ok(counts.into_iter().filter(|(_, n)| *n > 0).map(|(id, _)| id).collect())
    }

    /// Re-reads the watched products every `alerts.poll_mins` (and tells the
    /// alerts that ran out), until the task is aborted; with `poll_mins = 0`
    /// only the ones that ran out, every 10 minutes.
    pub(crate) fn spawn(
        self: std::sync::Arc<Self>,
        mall: std::sync::Arc<dyn MallApi>,
        door: Unasked,
        teller: std::sync::Arc<dyn AlertTeller>,
    ) -> tokio::task::JoinHandle<()> {
        let every =
            Duration::from_secs(60 * if self.settings.poll_mins == 0 { 10 } else { self.settings.poll_mins });
        let reread = self.settings.poll_mins > 0;
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                ticks.tick().await;
                let mall = reread.then_some(mall.as_ref());
                match self.poll(mall, &door, teller.as_ref(), every).await {
                    Ok(report) if report.told > 0 => tracing::info!(told = report.told, "alerts re-read"),
                    Ok(_) => {}
                    Err(e) => tracing::warn!(error = %e, "could not re-read the alerts; trying again"),
                }
            }
        })
    }
}

impl AlertBook for Alerts {
    fn ttl_days(&self) -> u32 {
        self.settings.ttl_days
    }

    fn max_per_user(&self) -> u32 {
        self.settings.max_per_user
    }

    fn subscribe(&self, alert: Alert) -> BoxFuture<'_, Result<Alert, AlertError>> {
        Box::pin(self.add(alert))
    }

    fn alerts_of<'a>(&'a self, user: &'a str) -> BoxFuture<'a, Result<Vec<Alert>, AlertError>> {
        Box::pin(async move { self.list(user).await.map_err(AlertError::Store) })
    }
}

/// What the product as it is now says to an alert, if it wakes it.
fn news_from_product(alert: &Alert, product: &Product) -> Option<News> {
    let price = product.brief.price_cents;
    match &alert.want {
        Want::Restock { size: Some(size) } => {
            let sizes: Vec<String> = product
                .skus
                .iter()
                .filter(|s| s.stock > 0 && same_size(&s.label, size))
                .map(|s| s.label.clone())
                .collect();
            let without_skus = product.skus.is_empty() && product.brief.in_stock;
            (!sizes.is_empty() || without_skus).then_some(News::Restocked { sizes, price_cents: Some(price) })
        }
        Want::Restock { size: None } => product.brief.in_stock.then(|| News::Restocked {
            sizes: product.skus.iter().filter(|s| s.stock > 0).map(|s| s.label.clone()).collect(),
            price_cents: Some(price),
        }),
        Want::Price { was_cents, .. } => {
            alert.woken_by_price(price).then_some(News::Cheaper { old_cents: *was_cents, new_cents: price })
        }
    }
}

/// `telegram:123` → (`telegram`, 123).
pub(crate) fn shopper_of(user: &str) -> Option<(&'static str, i64)> {
    let (platform, id) = user.split_once(':')?;
    let id = id.parse().ok()?;
    match platform {
        "telegram" => Some(("telegram", id)),
        "console" => Some(("console", id)),
        _ => None,
    }
}

/// The shopper an admitted request is of, as the book names them (`telegram:123`).
fn shopper(admitted: &Admitted) -> String {
    services::Shopper::new(admitted.platform(), admitted.user_id()).to_string()
}

/// `/alerts` as text: each alert numbered, what it waits for and until when.
pub(crate) fn list_text(lang: handlers::Lang, alerts: &[Alert]) -> String {
    let texts = &lang.texts().alerts;
    if alerts.is_empty() {
        return texts.list_empty.to_owned();
    }
    let mut lines = vec![(texts.list_title)(alerts.len())];
    for (i, alert) in alerts.iter().enumerate() {
        let what = handlers::alerts::describe_named(lang, &alert.product_name, &alert.want);
        let until: String = services::rfc3339(alert.expires).chars().take(10).collect();
        lines.push((texts.list_line)(i + 1, &what, &until));
    }
    lines.join("\n")
}
