//! Payments on Telegram (Bot Payments): the invoice after an order (and
//! behind an unpaid order's 💳 button), the answer to every
//! `pre_checkout_query` within Telegram's 10 s, the `successful_payment`
//! receipt kept in the state store and recorded in the mall once, the
//! background task that records what the mall could not take at once, the
//! mall's order events told in the shopper's private chat, and the admins'
//! `/ready` / `/pickedup`.
//!
//! An invoice (`sendInvoice`) is titled with the pickup store, one price per
//! line in minor units (one line at the mall's total when the lines do not
//! add up to it), and carries the payload of `payments/payload.rs`. A
//! pre-checkout query is answered always, in its own task: the payload must
//! be the bot's and name the payer, the mall's order (asked within 3 s) must
//! be `PENDING_PAYMENT` with at least 2 minutes left and the query's amount
//! and currency; otherwise the box says why. A `successful_payment` is
//! handled in the chat's lane: the ledger keeps it before the mall is asked,
//! the receipt (or "received, recording it", or "refunded in full" for an
//! order that expired meanwhile) goes through the outbox. `spawn_settling`
//! records what is due at start and every 10 s; `spawn_events` reads the
//! mall's order events every `events.poll_secs`. The shopper's side:
//! `docs/payments.md`.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use handlers::Lang;
use handlers::format::{floor_and_unit, paren, store_name};
use services::{Event, Order, OrderStatus, RefundStatus, Shopper, Store};
use teloxide::RequestError;
use teloxide::payloads::{AnswerPreCheckoutQuerySetters, SendInvoiceSetters};
use teloxide::prelude::*;
use teloxide::types::{
    InlineKeyboardButton, InlineKeyboardMarkup, LabeledPrice, Me, PreCheckoutQuery, SuccessfulPayment,
};

use super::callback::ButtonData;
use super::inbound::Handle;
use super::outbox::Outbox;
use super::send::{self, Target};
use super::{TelegramError, Transport};
use crate::engine::App;
use crate::engine::payments::{
    self, EventFeed, EventTeller, Ledger, PayloadKey, PaymentRecord, PaymentState, Settled, amount_text,
};
use crate::engine::router::Way;
use crate::infra::state::unix_now;

/// How often payments the mall could not take yet are tried again.
pub(crate) const SETTLE_EVERY: Duration = Duration::from_secs(10);

/// A `pre_checkout_query`: answered at once, in its own task (it belongs to
/// no chat's lane: Telegram waits for it, not for the chat's turn).
pub(crate) async fn on_pre_checkout(
    bot: Bot,
    query: PreCheckoutQuery,
    me: Me,
    tg: Arc<Transport>,
) -> Result<(), TelegramError> {
    let target = Target { chat: ChatId(query.from.id.0 as i64), thread: None, reply_to: None };
    let handle = Handle::new(bot, me, tg, query.from.clone(), target, false);
    tokio::spawn(async move { handle.answer_pre_checkout(&query).await });
    Ok(())
}

impl Transport {
    /// Whether orders are paid in Telegram (`payments.provider_token` set).
    pub(super) fn payments_on(&self) -> bool {
        self.app.config.payments.enabled()
    }

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

impl Handle {
    /// Sends the invoice of the sender's unpaid order `order_id` (in
    /// `lang`); an order that cannot be paid (any more) is said so instead.
    pub(super) async fn send_invoice(&self, lang: Lang, order_id: &str) -> Result<(), RequestError> {
        let (app, bot, target, user_id) = (&self.tg.app, &self.bot, &self.target, self.user_id());
        let shopper = Shopper::new("telegram", user_id);
        let order = match app.mall.get_order(&shopper, order_id).await {
            Ok(order) => order,
            Err(e) => {
                tracing::warn!(error = %e, order = order_id, "could not read the order to invoice");
                let text = (lang.texts().pay.invoice_failed)(order_id);
                return self.say(&text).await;
            }
        };
        if order.status != OrderStatus::PendingPayment {
            let status = (lang.texts().answers.status)(order.status);
            return self.say(&(lang.texts().pay.not_payable)(order_id, status)).await;
        }
        let config = &app.config.payments;
        let (draft, prices) = invoice(app, bot, &order, lang, user_id).await;
        let mut payload = teloxide::payloads::SendInvoice::new(
            target.chat,
            draft.title,
            draft.description,
            draft.payload,
            draft.currency,
            prices,
        )
        .provider_token(config.provider_token.expose().to_owned());
        if let Some(thread) = target.thread {
            payload = payload.message_thread_id(thread);
        }
        match send::call(bot, &payload).await {
            Ok(_) => {
                tracing::info!(order = order_id, total = draft.total, "invoice sent");
                Ok(())
            }
            Err(failure) => {
                tracing::warn!(error = %failure, order = order_id, "the invoice could not be sent");
                app.stats.record_error("could not send an invoice");
                let text = (lang.texts().pay.invoice_failed)(order_id);
                self.say(&text).await
            }
        }
    }

    /// The 💳 button of an unpaid order: a new invoice for the same order.
    pub(super) async fn on_pay_button(
        &self,
        query: &CallbackQuery,
        order_id: &str,
    ) -> Result<&'static str, RequestError> {
        let lang = self.lang().await;
        send::answer_press(&self.bot, query, None, false).await;
        if !self.tg.payments_on() {
            self.say(lang.texts().pay.pay_at_store).await?;
            return Ok("answered");
        }
        self.send_invoice(lang, order_id).await.map(|_| "answered")
    }

    /// The 🧭 button: the way to the store, asked as the shopper's next message.
    pub(super) async fn on_route_button(
        &self,
        query: &CallbackQuery,
        store_id: &str,
    ) -> Result<&'static str, RequestError> {
        let lang = self.lang().await;
        send::answer_press(&self.bot, query, None, false).await;
        let name = match self.tg.app.mall.get_store(store_id).await {
            Ok(store) => store_name(lang, &store).into_owned(),
            Err(_) => store_id.to_owned(),
        };
        let text = (lang.texts().pay.directions_request)(&name);
        let mut ctx = self.context(text, None).await;
        ctx.lang = lang;
        match self.admit(&ctx, Way::Message).await? {
            Ok(admitted) => self.route(admitted, ctx).await.map(|_| "answered"),
            Err(outcome) => Ok(outcome),
        }
    }

    /// Answers a pre-checkout query: ok only for a genuine payload of the
    /// payer's own unpaid order with time left and the order's amount and
    /// currency; always answered.
    async fn answer_pre_checkout(&self, query: &PreCheckoutQuery) {
        let started = std::time::Instant::now();
        let lang = self.lang().await;
        let key = PayloadKey::derive(self.bot.token());
        let checked = if self.tg.payments_on() {
            payments::check_pre_checkout(
                self.tg.app.mall.as_ref(),
                &key,
                "telegram",
                query.from.id.0 as i64,
                &query.invoice_payload,
                i64::from(query.total_amount),
                &query.currency,
            )
            .await
        } else {
            Err(payments::CheckoutRefusal::Unavailable)
        };
        let mut answer = teloxide::payloads::AnswerPreCheckoutQuery::new(query.id.clone(), checked.is_ok());
        let outcome = match &checked {
            Ok(_) => "ok",
            Err(refusal) => {
                answer = answer.error_message(refusal.message(lang));
                refusal.kind()
            }
        };
        metrics::counter!(crate::infra::ops::CHECKOUTS, "outcome" => outcome).increment(1);
        tracing::info!(outcome, ms = started.elapsed().as_millis() as u64, "pre-checkout answered");
        if let Err(e) = send::call(&self.bot, &answer).await {
            tracing::error!(error = %e, "could not answer a pre-checkout query");
            self.tg.app.stats.record_error("could not answer a pre-checkout query");
        }
    }

    /// A `successful_payment`: kept in the state store, recorded in the mall
    /// (once, keyed by the charge id), and the shopper told what happened.
    pub(super) async fn on_successful_payment(
        &self,
        msg: &Message,
        payment: &SuccessfulPayment,
    ) -> Result<&'static str, RequestError> {
        let from = &self.from;
        let lang = self.lang().await;
        let key = PayloadKey::derive(self.bot.token());
        let order_id = match key.open(&payment.invoice_payload) {
            Some((order_id, payer)) if payer == from.id.0 as i64 => order_id,
            _ => {
                tracing::error!(charge = %payment.telegram_payment_charge_id.0, "a payment arrived with a payload the bot did not make for this shopper; kept to refund");
                String::new()
            }
        };
        let record = PaymentRecord {
            charge_id: payment.telegram_payment_charge_id.0.clone(),
            provider_charge_id: payment.provider_payment_charge_id.clone(),
            provider: "telegram".into(),
            order_id,
            platform: "telegram".into(),
            user_id: from.id.0 as i64,
            chat_id: msg.chat.id.0,
            lang,
            amount_cents: i64::from(payment.total_amount),
            currency: payment.currency.clone(),
            received_at: unix_now(),
            state: PaymentState::Received,
            attempts: 0,
            note: String::new(),
        };
        self.tg.app.stats.count_message();
        let settled = self.tg.ledger.receive(record).await;
        tell_settled(&self.bot, &self.tg.app, &self.tg.outbox, settled, true).await;
        Ok("answered")
    }
}

/// Tells the shopper what became of their payment. `receipt`: told at the
/// payment's arrival (a payment left waiting is said so); else by the
/// background task (only what is settled now is told).
pub(crate) async fn tell_settled(bot: &Bot, app: &App, outbox: &Outbox, settled: Settled, receipt: bool) {
    let (record, text, markup) = match settled {
        Settled::Recorded { record, order } => {
            let store = app.mall.get_store(&order.pickup_store_id).await.ok();
            let (text, markup) = paid_text(record.lang, &order, store.as_ref());
            (record, text, markup)
        }
        Settled::Refused { record, .. } => {
            let text = (record.lang.texts().pay.refund_due)(&record.order_id);
            (record, text, None)
        }
        Settled::Waiting { record, .. } if receipt => {
            let text = (record.lang.texts().pay.paid_pending)(&record.order_id);
            (record, text, None)
        }
        Settled::Done(record) => {
            tracing::info!(charge = %record.charge_id, "a payment delivered again; recorded once already");
            return;
        }
        Settled::Waiting { .. } | Settled::Busy | Settled::Unknown => return,
    };
    let target = Target { chat: ChatId(record.chat_id), thread: None, reply_to: None };
    if let Err(e) = outbox.deliver_with_markup(bot, &target, &text, markup).await {
        tracing::warn!(error = %e, chat = record.chat_id, "could not tell the shopper about their payment");
    }
}

/// "Paid", the order, where to pick it up, and a 🧭 button to the store.
fn paid_text(lang: Lang, order: &Order, store: Option<&Store>) -> (String, Option<InlineKeyboardMarkup>) {
    let total = amount_text(order.total_cents, &order.currency);
    let (name, place) = store_and_place(lang, order, store);
    let text = (lang.texts().pay.paid)(&order.order_id, &total, &name, &place);
    (text, route_button(lang, &order.pickup_store_id))
}

fn store_and_place(lang: Lang, order: &Order, store: Option<&Store>) -> (String, String) {
    match store {
        Some(store) => (
            store_name(lang, store).into_owned(),
            paren(lang, &floor_and_unit(lang, Some(store.floor), &store.unit)),
        ),
        None => (order.pickup_store_id.clone(), String::new()),
    }
}

fn route_button(lang: Lang, store_id: &str) -> Option<InlineKeyboardMarkup> {
    let data = ButtonData::Route(store_id.to_owned()).encode();
    (data.len() <= super::callback::CALLBACK_DATA_LIMIT).then(|| {
        InlineKeyboardMarkup::new(vec![vec![InlineKeyboardButton::callback(
            lang.texts().pay.directions_button,
            data,
        )]])
    })
}

/// Records the payments still due every `every` (and at start), telling
/// each shopper once the mall took or refused theirs.
pub(crate) fn spawn_settling(
    bot: Bot,
    app: App,
    outbox: Arc<Outbox>,
    every: Duration,
) -> tokio::task::JoinHandle<()> {
    let ledger = super::transport::ledger(&app);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            settle_due_once(&bot, &app, &ledger, &outbox).await;
        }
    })
}

/// One pass over the payments still due.
pub(crate) async fn settle_due_once(bot: &Bot, app: &App, ledger: &Ledger, outbox: &Outbox) {
    for settled in ledger.settle_due().await {
        tell_settled(bot, app, outbox, settled, false).await;
    }
}

/// Tells order events in the shopper's private chat, through the outbox.
pub struct TelegramTeller {
    pub bot: Bot,
    pub app: App,
    pub outbox: Arc<Outbox>,
}

#[async_trait]
impl EventTeller for TelegramTeller {
    async fn tell(&self, platform: &str, user_id: i64, event: &Event) -> Result<(), String> {
        if platform != "telegram" {
            return Ok(());
        }
        let lang =
            self.app.router.chosen_lang(platform, user_id).await.unwrap_or(self.app.config.bot.language);
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
    EventFeed::new(app.mall.clone(), app.state.clone(), super::transport::ledger(app), every)
        .with_alerts(app.alerts.clone())
}

/// Starts re-reading the watched products (`alerts.poll_mins`) and ending
/// the alerts that ran out.
pub(crate) fn spawn_alerts(bot: Bot, app: App, outbox: Arc<Outbox>) -> tokio::task::JoinHandle<()> {
    let alerts = app.alerts.clone();
    let mall = app.mall.clone();
    let teller: Arc<dyn crate::engine::alerts::AlertTeller> = Arc::new(TelegramTeller { bot, app, outbox });
    alerts.spawn(mall, teller)
}

/// The invoice of the shopper `user_id`'s `order` (its pickup store looked
/// up), and its lines as Telegram's prices, for `sendInvoice` and for the
/// Mini App's `createInvoiceLink`.
pub(crate) async fn invoice(
    app: &App,
    bot: &Bot,
    order: &services::Order,
    lang: Lang,
    user_id: i64,
) -> (payments::InvoiceDraft, Vec<LabeledPrice>) {
    let store = app.mall.get_store(&order.pickup_store_id).await.ok();
    let config = &app.config.payments;
    let key = PayloadKey::derive(bot.token());
    let draft = payments::invoice_for(
        order,
        store.as_ref(),
        lang,
        &config.currency,
        &key,
        user_id,
        config.order_ttl_mins,
    );
    let prices =
        draft.lines.iter().map(|l| LabeledPrice::new(l.label.clone(), l.amount.max(0) as u32)).collect();
    (draft, prices)
}
