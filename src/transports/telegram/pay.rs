//! Payments on Telegram (Bot Payments): the invoice after an order (and
//! behind an unpaid order's 💳 button), the answer to every
//! `pre_checkout_query` within Telegram's 10 s, the `successful_payment`
//! receipt kept in the state store and recorded in the mall once, and the
//! background task that records what the mall could not take at once.
//! Both updates come past the door (`tree.rs`) as presses: a payer not
//! allowed is refused at the pre-checkout, and a payment of one is not
//! recorded.
//!
//! An invoice (`sendInvoice`) is titled with the pickup store, one price per
//! line in minor units (one line at the mall's total when the lines do not
//! add up to it, or when a coupon took its discount: the description then
//! says "subtotal − coupon = total"), and carries the payload of
//! `payments/payload.rs`. A
//! pre-checkout query is answered always, in its own task: the payload must
//! be the bot's and name the payer, the mall's order (asked within 3 s) must
//! be `PENDING_PAYMENT` with at least 2 minutes left and the query's amount
//! and currency; otherwise the box says why. A `successful_payment` is
//! handled in the chat's lane: the ledger keeps it before the mall is asked,
//! the receipt (or "received, recording it", or "refunded in full" for an
//! order that expired meanwhile) goes through the outbox. `spawn_settling`
//! records what is due at start and every 10 s. The shopper's side:
//! `docs/payments.md`.
//!
//! A parking fee goes the same way (`payments/parking.rs`): after the ✅ of
//! `pay_parking` an invoice of the fee titled with the plate; at
//! pre-checkout the car park's fee now must be the invoice's amount, a plate
//! paid already or a payload not made for the payer is refused in words; the
//! payment is kept in the ledger and recorded with `pay_parking` once, and
//! the shopper told "paid ¥X, leave by HH:MM".

use std::sync::Arc;
use std::time::Duration;

use handlers::Lang;
use handlers::format::{floor_and_unit, paren, store_name};
use services::{Order, OrderStatus, Shopper, Store};
use teloxide::RequestError;
use teloxide::payloads::{AnswerPreCheckoutQuerySetters, SendInvoiceSetters};
use teloxide::prelude::*;
use teloxide::types::{
    InlineKeyboardButton, InlineKeyboardMarkup, LabeledPrice, PreCheckoutQuery, SuccessfulPayment,
};

use super::Transport;
use super::callback::ButtonData;
use super::handle::{ANSWERED, Handle, IGNORED, Outcome};
use super::outbox::Outbox;
use super::send::{self, Target};
use crate::engine::App;
use crate::engine::payments::{self, Ledger, PayloadKey, PaymentRecord, PaymentState, Settled, amount_text};
use crate::engine::router::Admitted;
use crate::infra::state::unix_now;

/// How often payments the mall could not take yet are tried again.
pub(crate) const SETTLE_EVERY: Duration = Duration::from_secs(10);

/// The endpoint of a `pre_checkout_query` (run apart from the chat's lane:
/// Telegram waits for it, not for the chat's turn): always answered.
pub(crate) async fn on_pre_checkout(
    handle: Handle,
    _admitted: Admitted,
    query: Box<PreCheckoutQuery>,
) -> Result<Outcome, RequestError> {
    handle.answer_pre_checkout(&query).await;
    Ok(ANSWERED)
}

/// A pre-checkout query the door turned away: answered at once, with the
/// door's words.
pub(crate) async fn refuse_checkout(handle: &Handle, query: &PreCheckoutQuery, why: &str) {
    let answer = teloxide::payloads::AnswerPreCheckoutQuery::new(query.id.clone(), false)
        .error_message(why.to_owned());
    metrics::counter!(crate::infra::ops::CHECKOUTS, "outcome" => "not_allowed").increment(1);
    if let Err(e) = send::call(&handle.bot, &answer).await {
        tracing::error!(error = %e, "could not answer a pre-checkout query");
        handle.tg.app.stats.record_error("could not answer a pre-checkout query");
    }
}

/// The endpoint of a `successful_payment`, in the payer's lane.
pub(crate) async fn on_successful_payment(
    handle: Handle,
    _admitted: Admitted,
    msg: Box<Message>,
) -> Result<Outcome, RequestError> {
    match msg.successful_payment() {
        Some(payment) => handle.on_successful_payment(&msg, payment).await,
        None => Ok(IGNORED),
    }
}

impl Transport {
    /// Whether orders are paid in Telegram (`payments.provider_token` set).
    pub(super) fn payments_on(&self) -> bool {
        self.app.config.payments.enabled()
    }
}

impl Handle {
    /// Sends the invoice of the sender's unpaid order `order_id` (in
    /// `lang`); an order that cannot be paid (any more) is said so instead.
    pub(super) async fn send_invoice(&self, lang: Lang, order_id: &str) -> Result<(), RequestError> {
        let (app, bot, user_id) = (&self.tg.app, &self.bot, self.user_id());
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
        let (draft, prices) = invoice(app, bot, &order, lang, user_id).await;
        let payload =
            self.invoice_request(draft.title, draft.description, draft.payload, draft.currency, prices);
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

    /// `sendInvoice` to this chat (and topic) with the bot's payment provider.
    fn invoice_request(
        &self,
        title: String,
        description: String,
        payload: String,
        currency: String,
        prices: Vec<LabeledPrice>,
    ) -> teloxide::payloads::SendInvoice {
        let token = self.tg.app.config.payments.provider_token.expose().to_owned();
        let mut request = teloxide::payloads::SendInvoice::new(
            self.target.chat,
            title,
            description,
            payload,
            currency,
            prices,
        )
        .provider_token(token);
        if let Some(thread) = self.target.thread {
            request = request.message_thread_id(thread);
        }
        request
    }

    /// Sends the invoice of the parking fee `bill` the sender just confirmed (in `lang`).
    pub(super) async fn send_parking_invoice(
        &self,
        lang: Lang,
        bill: &crate::engine::reply::ParkingBill,
    ) -> Result<(), RequestError> {
        let (app, bot) = (&self.tg.app, &self.bot);
        let config = &app.config.payments;
        let key = PayloadKey::derive(bot.token());
        let draft =
            payments::parking::invoice_for_parking(bill, lang, &config.currency, &key, self.user_id());
        let prices = vec![LabeledPrice::new(draft.label.clone(), draft.amount.max(0) as u32)];
        let payload =
            self.invoice_request(draft.title, draft.description, draft.payload, draft.currency, prices);
        match send::call(bot, &payload).await {
            Ok(_) => {
                tracing::info!(plate = %bill.plate, amount = bill.amount_cents, "parking invoice sent");
                Ok(())
            }
            Err(failure) => {
                tracing::warn!(error = %failure, plate = %bill.plate, "the parking invoice could not be sent");
                app.stats.record_error("could not send an invoice");
                self.say(&handlers::loyalty::parking_invoice_failed(lang)).await
            }
        }
    }

    /// Answers a pre-checkout query: ok only for a genuine payload of the
    /// payer's own unpaid order with time left and the order's amount and
    /// currency; always answered.
    async fn answer_pre_checkout(&self, query: &PreCheckoutQuery) {
        let started = std::time::Instant::now();
        let lang = self.lang();
        let key = PayloadKey::derive(self.bot.token());
        if self.tg.payments_on()
            && let Some(checked) = payments::parking::check_parking_checkout(
                self.tg.app.mall.as_ref(),
                &key,
                "telegram",
                query.from.id.0 as i64,
                &query.invoice_payload,
                (i64::from(query.total_amount), &query.currency),
                &self.tg.app.config.payments.currency,
            )
            .await
        {
            let mut answer =
                teloxide::payloads::AnswerPreCheckoutQuery::new(query.id.clone(), checked.is_ok());
            let outcome = match checked {
                Ok(_) => "ok",
                Err(why) => {
                    answer = answer.error_message(handlers::loyalty::parking_checkout_refused(lang, why));
                    "parking_refused"
                }
            };
            metrics::counter!(crate::infra::ops::CHECKOUTS, "outcome" => outcome).increment(1);
            tracing::info!(
                outcome,
                ms = started.elapsed().as_millis() as u64,
                "parking pre-checkout answered"
            );
            if let Err(e) = send::call(&self.bot, &answer).await {
                tracing::error!(error = %e, "could not answer a pre-checkout query");
                self.tg.app.stats.record_error("could not answer a pre-checkout query");
            }
            return;
        }
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
    async fn on_successful_payment(
        &self,
        msg: &Message,
        payment: &SuccessfulPayment,
    ) -> Result<Outcome, RequestError> {
        let from = &self.from;
        let lang = self.lang();
        let key = PayloadKey::derive(self.bot.token());
        let parking_plate = match key.open_parking(&payment.invoice_payload) {
            Some((plate, _, payer)) if payer == from.id.0 as i64 => plate,
            _ => String::new(),
        };
        let order_id = match key.open(&payment.invoice_payload) {
            Some((order_id, payer)) if payer == from.id.0 as i64 => order_id,
            _ if !parking_plate.is_empty() => String::new(),
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
            parking_plate,
        };
        let settled = self.tg.ledger.receive(record).await;
        tell_settled(&self.bot, &self.tg.app, &self.tg.outbox, settled, true).await;
        Ok(ANSWERED)
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
        Settled::ParkingRecorded { record, payment } => {
            let amount = amount_text(payment.amount_cents, &record.currency);
            let text =
                handlers::loyalty::parking_paid(record.lang, &payment.plate, &amount, &payment.leave_by);
            (record, text, None)
        }
        Settled::Refused { record, .. } if !record.parking_plate.is_empty() => {
            let text = handlers::loyalty::parking_refund_due(record.lang, &record.parking_plate);
            (record, text, None)
        }
        Settled::Refused { record, .. } => {
            let text = (record.lang.texts().pay.refund_due)(&record.order_id);
            (record, text, None)
        }
        Settled::Waiting { record, .. } if receipt && !record.parking_plate.is_empty() => {
            let text = handlers::loyalty::parking_paid_pending(record.lang, &record.parking_plate);
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

/// "Paid", the order, where to pick it up (and a coupon's discount), and a
/// 🧭 button to the store.
fn paid_text(lang: Lang, order: &Order, store: Option<&Store>) -> (String, Option<InlineKeyboardMarkup>) {
    let total = amount_text(order.total_cents, &order.currency);
    let (name, place) = store_and_place(lang, order, store);
    let mut text = (lang.texts().pay.paid)(&order.order_id, &total, &name, &place);
    if let Some(summary) = payments::discount_summary(lang, order) {
        text = format!("{text}\n🎟 {summary}");
    }
    (text, route_button(lang, &order.pickup_store_id))
}

pub(crate) fn store_and_place(lang: Lang, order: &Order, store: Option<&Store>) -> (String, String) {
    match store {
        Some(store) => (
            store_name(lang, store).into_owned(),
            paren(lang, &floor_and_unit(lang, Some(store.floor), &store.unit)),
        ),
        None => (order.pickup_store_id.clone(), String::new()),
    }
}

pub(crate) fn route_button(lang: Lang, store_id: &str) -> Option<InlineKeyboardMarkup> {
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
