//! Payments kept in the state store until the mall recorded them.
//!
//! A payment that arrives (Telegram's `successful_payment`, the terminal's
//! test payment) is written to the state store first — a small record keyed
//! by its charge id, and the charge id in the set of payments due — then
//! recorded in the mall (`pay_order`, idempotency key = the charge id). A
//! mall that is down, slow, or a process that dies in between leaves the
//! record due; [`Ledger::settle_due`] (a background task) records it later.
//! The mall's idempotency makes every attempt after the first a no-op, so
//! the money is recorded once however often it is tried; a per-charge lock
//! keeps two instances from telling the shopper twice. A payment the mall
//! refuses (the order expired or was cancelled in between) is kept as
//! refused, for a refund, and listed for the operators.
//!
//! A parking payment (its record names the plate) goes the same way, recorded
//! with `pay_parking` keyed by the charge id: the car park holds it once
//! however often Telegram delivers it; a fee changed or paid already by then
//! is refused, for a refund.

use std::sync::Arc;
use std::time::Duration;

use handlers::Lang;
use serde::{Deserialize, Serialize};
use services::{
    IdempotencyKey, MallApi, Order, ParkingPayment, PayParking, RecordPayment, ServiceError, Shopper,
};

use crate::infra::state::{StateError, StateStore};

/// How long a payment's record is kept.
pub(crate) const RECORD_KEEP: Duration = Duration::from_secs(90 * 24 * 3600);
use crate::infra::state::keys::{PAY_DUE as DUE, PAY_REFUSED as REFUSED};

/// Where a payment stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum PaymentState {
    /// Money received; the mall has not recorded it yet.
    Received,
    /// The mall recorded it.
    Recorded,
    /// The mall refused it (the order was no longer payable): to refund.
    Refused,
}

/// A payment as the bot keeps it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct PaymentRecord {
    /// The charge id (Telegram's `telegram_payment_charge_id`): the key of
    /// the record and the mall's idempotency key.
    pub charge_id: String,
    /// The payment provider's own charge id, for refunds.
    #[serde(default)]
    pub provider_charge_id: String,
    /// `telegram`, or `test` for the terminal's test payments.
    pub provider: String,
    pub order_id: String,
    /// The shopper's platform and id (`telegram`, 1001).
    pub platform: String,
    pub user_id: i64,
    /// Where the shopper is told.
    pub chat_id: i64,
    pub lang: Lang,
    pub amount_cents: i64,
    pub currency: String,
    /// Unix seconds.
    pub received_at: i64,
    pub state: PaymentState,
    /// Attempts to record it in the mall so far.
    #[serde(default)]
    pub attempts: u32,
    /// What the mall said last (an error, or why it refused).
    #[serde(default)]
    pub note: String,
    /// The plate of a parking payment (then `order_id` is empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub parking_plate: String,
}

/// What an attempt to record a payment came to.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Settled {
    /// The mall recorded it now.
    Recorded { record: PaymentRecord, order: Box<Order> },
    /// The car park recorded a parking payment now.
    ParkingRecorded { record: PaymentRecord, payment: ParkingPayment },
    /// The mall refused it now: the money is to be refunded.
    Refused { record: PaymentRecord, reason: String },
    /// The mall could not be told; it stays due and is tried again.
    Waiting { record: PaymentRecord, error: String },
    /// Recorded or refused before (a repeated delivery): nothing to do.
    Done(PaymentRecord),
    /// Another attempt holds it right now.
    Busy,
    /// No such payment.
    Unknown,
}

/// The payments in the state store, and their recording in the mall.
#[derive(Clone)]
pub(crate) struct Ledger {
    state: Arc<dyn StateStore>,
    mall: Arc<dyn MallApi>,
    /// How long one `pay_order` may take before the payment is left due.
    timeout: Duration,
}

impl Ledger {
    pub(crate) fn new(state: Arc<dyn StateStore>, mall: Arc<dyn MallApi>, timeout: Duration) -> Self {
        Ledger { state, mall, timeout }
    }

    /// Keeps a payment that arrived (unless it is known already), then
    /// records it in the mall. An error only when the state store could not
    /// keep it (the caller then records it in the mall directly).
    pub(crate) async fn receive(&self, record: PaymentRecord) -> Settled {
        match self.keep(&record).await {
            Ok(Some(known)) => Settled::Done(known),
            Ok(None) => self.settle(&record.charge_id).await,
            Err(e) => {
                // Not kept: the mall is told now, keyed by the charge id as always.
                tracing::error!(error = %e, charge = %record.charge_id, "could not keep a payment in the state store; recording it in the mall directly");
                let mut record = record;
                self.attempt(&mut record).await
            }
        }
    }

    /// Writes a new payment as due; `Some` with the record when it was settled before.
    async fn keep(&self, record: &PaymentRecord) -> Result<Option<PaymentRecord>, StateError> {
        if let Some(known) = self.get(&record.charge_id).await? {
            return Ok((known.state != PaymentState::Received).then_some(known));
        }
        self.put(record).await?;
        if !record.order_id.is_empty() {
            self.state
                .put_value(
                    &crate::infra::state::keys::pay_order(&record.order_id),
                    &record.charge_id,
                    RECORD_KEEP,
                )
                .await?;
        }
        self.state.add_counts(&[(DUE, &record.charge_id, 1)], RECORD_KEEP).await?;
        Ok(None)
    }

    /// Records the payment `charge_id` in the mall if it is still due.
    pub(crate) async fn settle(&self, charge_id: &str) -> Settled {
        let lock = crate::infra::state::keys::pay_settle_lock(charge_id);
        let owner = format!("{:016x}", rand::random::<u64>());
        // Held past the attempt's timeout only briefly: a holder that died
        // (kill -9) leaves it to the next attempt soon.
        let lease = self.timeout * 2;
        match self.state.try_lock(&lock, &owner, lease).await {
            Ok(true) => {}
            Ok(false) => return Settled::Busy,
            Err(e) => {
                tracing::warn!(error = %e, charge = charge_id, "could not lock a payment to record it");
                return Settled::Busy;
            }
        }
        let settled = self.settle_locked(charge_id).await;
        if let Err(e) = self.state.unlock(&lock, &owner).await {
            tracing::warn!(error = %e, charge = charge_id, "could not unlock a payment");
        }
        settled
    }

    async fn settle_locked(&self, charge_id: &str) -> Settled {
        let mut record = match self.get(charge_id).await {
            Ok(Some(record)) => record,
            Ok(None) => return Settled::Unknown,
            Err(e) => {
                tracing::warn!(error = %e, charge = charge_id, "could not read a payment");
                return Settled::Busy;
            }
        };
        if record.state != PaymentState::Received {
            self.clear_due(charge_id).await;
            return Settled::Done(record);
        }
        let settled = self.attempt(&mut record).await;
        if let Err(e) = self.put(&record).await {
            tracing::error!(error = %e, charge = charge_id, "could not keep where a payment stands");
        }
        match record.state {
            PaymentState::Received => {}
            PaymentState::Recorded => self.clear_due(charge_id).await,
            PaymentState::Refused => {
                self.clear_due(charge_id).await;
                if let Err(e) = self.state.add_counts(&[(REFUSED, charge_id, 1)], RECORD_KEEP).await {
                    tracing::error!(error = %e, charge = charge_id, "could not list a refused payment");
                }
            }
        }
        settled
    }

    /// One attempt to record `record` in the mall; `record` is updated (not stored).
    async fn attempt(&self, record: &mut PaymentRecord) -> Settled {
        if !record.parking_plate.is_empty() {
            return self.attempt_parking(record).await;
        }
        let charge_id = record.charge_id.clone();
        let charge_id = charge_id.as_str();
        if record.order_id.is_empty() {
            record.state = PaymentState::Refused;
            record.note = "the invoice payload was not one the bot made for this shopper".into();
            metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "refused").increment(1);
            return Settled::Refused { record: record.clone(), reason: record.note.clone() };
        }
        let shopper = Shopper::new(&record.platform, record.user_id);
        let payment = RecordPayment {
            provider: record.provider.clone(),
            amount_cents: record.amount_cents,
            currency: record.currency.clone(),
            charge_id: record.charge_id.clone(),
        };
        let key = Some(IdempotencyKey(record.charge_id.clone()));
        record.attempts += 1;
        let answer = tokio::time::timeout(
            self.timeout,
            self.mall.pay_order(&shopper, &record.order_id, &payment, key),
        )
        .await;
        match answer {
            Ok(Ok(order)) => {
                record.state = PaymentState::Recorded;
                record.note.clear();
                tracing::info!(order = %record.order_id, charge = charge_id, attempts = record.attempts, "payment recorded in the mall");
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "recorded").increment(1);
                Settled::Recorded { record: record.clone(), order: Box::new(order) }
            }
            Ok(Err(
                e @ (ServiceError::NotPayable { .. }
                | ServiceError::PaymentMismatch { .. }
                | ServiceError::NotFound { .. }),
            )) => {
                record.state = PaymentState::Refused;
                record.note = e.to_string();
                tracing::error!(order = %record.order_id, charge = charge_id, reason = %e, "the mall refused a payment that arrived; it is to be refunded");
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "refused").increment(1);
                Settled::Refused { record: record.clone(), reason: e.to_string() }
            }
            Ok(Err(e)) => {
                record.note = e.to_string();
                tracing::warn!(order = %record.order_id, charge = charge_id, error = %e, "the mall could not record a payment yet; it is tried again");
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "waiting").increment(1);
                Settled::Waiting { record: record.clone(), error: e.to_string() }
            }
            Err(_) => {
                record.note = format!("no answer within {} s", self.timeout.as_secs());
                tracing::warn!(order = %record.order_id, charge = charge_id, "the mall did not answer a payment in time; it is tried again");
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "waiting").increment(1);
                Settled::Waiting { record: record.clone(), error: record.note.clone() }
            }
        }
    }

    /// One attempt to record a parking payment in the car park (`pay_parking`, keyed by
    /// the charge id); `record` is updated (not stored).
    async fn attempt_parking(&self, record: &mut PaymentRecord) -> Settled {
        let shopper = Shopper::new(&record.platform, record.user_id);
        let payment = PayParking {
            plate: record.parking_plate.clone(),
            amount_cents: record.amount_cents,
            charge_id: record.charge_id.clone(),
        };
        let key = Some(IdempotencyKey(record.charge_id.clone()));
        record.attempts += 1;
        let answer = tokio::time::timeout(self.timeout, self.mall.pay_parking(&shopper, &payment, key)).await;
        let (charge, plate) = (record.charge_id.clone(), record.parking_plate.clone());
        match answer {
            Ok(Ok(paid)) => {
                record.state = PaymentState::Recorded;
                record.note.clear();
                tracing::info!(
                    plate,
                    charge,
                    attempts = record.attempts,
                    "parking payment recorded in the car park"
                );
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "recorded").increment(1);
                Settled::ParkingRecorded { record: record.clone(), payment: paid }
            }
            Ok(Err(
                e @ (ServiceError::FeeChanged { .. }
                | ServiceError::AlreadyPaid { .. }
                | ServiceError::NotFound { .. }
                | ServiceError::InvalidArgument { .. }
                | ServiceError::Conflict { .. }
                | ServiceError::NotSupported { .. }),
            )) => {
                record.state = PaymentState::Refused;
                record.note = e.to_string();
                tracing::error!(plate, charge, reason = %e, "the car park refused a parking payment that arrived; it is to be refunded");
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "refused").increment(1);
                Settled::Refused { record: record.clone(), reason: e.to_string() }
            }
            Ok(Err(e)) => {
                record.note = e.to_string();
                tracing::warn!(plate, charge, error = %e, "the car park could not record a parking payment yet; it is tried again");
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "waiting").increment(1);
                Settled::Waiting { record: record.clone(), error: e.to_string() }
            }
            Err(_) => {
                record.note = format!("no answer within {} s", self.timeout.as_secs());
                tracing::warn!(
                    plate,
                    charge,
                    "the car park did not answer a parking payment in time; it is tried again"
                );
                metrics::counter!(crate::infra::ops::PAYMENTS, "outcome" => "waiting").increment(1);
                Settled::Waiting { record: record.clone(), error: record.note.clone() }
            }
        }
    }

    /// Tries every payment still due; returns what each came to.
    pub(crate) async fn settle_due(&self) -> Vec<Settled> {
        let mut outcomes = Vec::new();
        for charge_id in self.members(DUE).await {
            outcomes.push(self.settle(&charge_id).await);
        }
        outcomes
    }

    /// The payment with that charge id.
    pub(crate) async fn get(&self, charge_id: &str) -> Result<Option<PaymentRecord>, StateError> {
        match self.state.get_value(&crate::infra::state::keys::pay_record(charge_id)).await? {
            Some(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| StateError::Corrupt(format!("payment {charge_id}: {e}"))),
            None => Ok(None),
        }
    }

    /// Whether a payment for `order_id` arrived through the bot.
    pub(crate) async fn paid_here(&self, order_id: &str) -> bool {
        matches!(self.state.get_value(&crate::infra::state::keys::pay_order(order_id)).await, Ok(Some(_)))
    }

    /// Payments the mall refused (to refund), oldest first.
    pub(crate) async fn refused(&self) -> Vec<PaymentRecord> {
        self.records(REFUSED).await
    }

    /// Payments still waiting to be recorded in the mall, oldest first.
    pub(crate) async fn waiting(&self) -> Vec<PaymentRecord> {
        self.records(DUE).await
    }

    async fn records(&self, set: &str) -> Vec<PaymentRecord> {
        let mut records = Vec::new();
        for charge_id in self.members(set).await {
            if let Ok(Some(record)) = self.get(&charge_id).await {
                records.push(record);
            }
        }
        records.sort_by_key(|r| r.received_at);
        records
    }

    async fn members(&self, set: &str) -> Vec<String> {
        match self.state.counts(set).await {
            Ok(counts) => counts.into_iter().filter(|(_, n)| *n > 0).map(|(charge, _)| charge).collect(),
            Err(e) => {
                tracing::warn!(error = %e, set, "could not read the payments");
                Vec::new()
            }
        }
    }

    async fn put(&self, record: &PaymentRecord) -> Result<(), StateError> {
        let text = serde_json::to_string(record).map_err(|e| StateError::Corrupt(e.to_string()))?;
        self.state
            .put_value(&crate::infra::state::keys::pay_record(&record.charge_id), &text, RECORD_KEEP)
            .await
    }

    async fn clear_due(&self, charge_id: &str) {
        let current = match self.state.counts(DUE).await {
            Ok(counts) => counts.get(charge_id).copied().unwrap_or(0),
            Err(_) => 0,
        };
        if current > 0
            && let Err(e) = self.state.add_counts(&[(DUE, charge_id, -current)], RECORD_KEEP).await
        {
            tracing::warn!(error = %e, charge = charge_id, "could not take a recorded payment off the due list");
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::sync::Mutex;

    use services::MockMallApi;

    use crate::infra::state::unix_now;

    use super::*;
    use crate::infra::state::MemoryStore;

    fn record(charge: &str) -> PaymentRecord {
        PaymentRecord {
            charge_id: charge.into(),
            provider_charge_id: format!("provider-{charge}"),
            provider: "telegram".into(),
            order_id: "o-1".into(),
            platform: "telegram".into(),
            user_id: 1001,
            chat_id: 1001,
            lang: Lang::Zh,
            amount_cents: 69900,
            currency: "CNY".into(),
            received_at: unix_now(),
            state: PaymentState::Received,
            attempts: 0,
            note: String::new(),
            parking_plate: String::new(),
        }
    }

    fn paid_order() -> Order {
        serde_json::from_value(serde_json::json!({
            "order_id": "o-1", "status": "PAID", "items": [], "total_cents": 69900,
            "created_at": "2026-11-25T14:00:00Z", "pickup_store_id": "s-nike",
        }))
        .unwrap()
    }

    #[tokio::test]
    async fn a_payment_the_mall_cannot_take_stays_due_and_is_recorded_later_with_the_same_key_once() {
        let keys: Arc<Mutex<Vec<String>>> = Arc::default();
        let mut mall = MockMallApi::new();
        let mut answers =
            vec![Err(ServiceError::Unavailable { message: "mall down".into() }), Ok(paid_order())]
                .into_iter();
        let seen = keys.clone();
        mall.expect_pay_order().times(2).returning(move |shopper, order, payment, key| {
            assert_eq!(
                (shopper.as_str(), order, payment.charge_id.as_str()),
                ("telegram:1001", "o-1", "tg-1")
            );
            seen.lock().unwrap().push(key.map(|k| k.0).unwrap_or_default());
            answers.next().unwrap()
        });
        let state: Arc<dyn StateStore> = Arc::new(MemoryStore::new());
        let ledger = Ledger::new(state.clone(), Arc::new(mall), Duration::from_secs(1));

        let first = ledger.receive(record("tg-1")).await;
        assert!(matches!(first, Settled::Waiting { .. }), "{first:?}");
        assert_eq!(ledger.waiting().await.len(), 1, "kept while the mall is down");

        let later = ledger.settle_due().await;
        assert!(matches!(later.as_slice(), [Settled::Recorded { .. }]), "{later:?}");
        assert!(ledger.settle_due().await.is_empty(), "nothing due any more");
        let again = ledger.receive(record("tg-1")).await;
        assert!(matches!(again, Settled::Done(_)), "a repeated delivery does nothing: {again:?}");
        assert_eq!(*keys.lock().unwrap(), vec!["tg-1", "tg-1"], "keyed by the charge id every time");
        assert!(ledger.paid_here("o-1").await);
        assert_eq!(ledger.get("tg-1").await.unwrap().unwrap().state, PaymentState::Recorded);
    }

    #[tokio::test]
    async fn a_parking_payment_is_recorded_in_the_car_park_once_and_a_changed_fee_is_kept_to_refund() {
        let mut mall = MockMallApi::new();
        mall.expect_pay_parking().times(2).returning(|shopper, payment, key| {
            assert_eq!(shopper.as_str(), "telegram:1001");
            assert_eq!(key.map(|k| k.0).as_deref(), Some(payment.charge_id.as_str()), "keyed by the charge");
            match payment.charge_id.as_str() {
                "tg-p1" => Ok(services::ParkingPayment {
                    plate: payment.plate.clone(),
                    amount_cents: payment.amount_cents,
                    charge_id: payment.charge_id.clone(),
                    paid_at: "2026-11-25T10:00:00+08:00".into(),
                    leave_by: "2026-11-25T10:15:00+08:00".into(),
                }),
                _ => Err(ServiceError::FeeChanged { due_cents: 4000, message: "¥40 now".into() }),
            }
        });
        let ledger = Ledger::new(Arc::new(MemoryStore::new()), Arc::new(mall), Duration::from_secs(1));
        let parking = |charge: &str| PaymentRecord {
            order_id: String::new(),
            amount_cents: 3000,
            parking_plate: "沪A12345".into(),
            ..record(charge)
        };
        let paid = ledger.receive(parking("tg-p1")).await;
        let Settled::ParkingRecorded { payment, .. } = paid else { panic!("{paid:?}") };
        assert_eq!((payment.plate.as_str(), payment.amount_cents), ("沪A12345", 3000));
        let again = ledger.receive(parking("tg-p1")).await;
        assert!(matches!(again, Settled::Done(_)), "a replayed payment reaches the car park once: {again:?}");
        let changed = ledger.receive(parking("tg-p2")).await;
        assert!(matches!(changed, Settled::Refused { .. }), "{changed:?}");
        assert_eq!(ledger.refused().await.len(), 1, "listed to refund");
    }

    #[tokio::test]
    async fn a_payment_the_mall_refuses_is_kept_to_refund() {
        let mut mall = MockMallApi::new();
        mall.expect_pay_order()
            .times(1)
            .returning(|_, _, _, _| Err(ServiceError::NotPayable { message: "order o-1 is EXPIRED".into() }));
        let ledger = Ledger::new(Arc::new(MemoryStore::new()), Arc::new(mall), Duration::from_secs(1));
        let refused = ledger.receive(record("tg-2")).await;
        assert!(matches!(refused, Settled::Refused { .. }), "{refused:?}");
        let listed = ledger.refused().await;
        assert_eq!(listed.len(), 1);
        assert_eq!(
            (listed[0].charge_id.as_str(), listed[0].provider_charge_id.as_str()),
            ("tg-2", "provider-tg-2")
        );
        assert!(ledger.waiting().await.is_empty());
        assert!(ledger.settle_due().await.is_empty(), "never sent again");
    }
}
