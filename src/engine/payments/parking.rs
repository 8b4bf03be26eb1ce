//! Paying the car park in chat, like an order: the shopper confirms the fee
//! due now for a plate (`pay_parking`, shown with the plate and the fee
//! before ✅); on ✅ the transport sends an invoice of that fee, its payload
//! signed for the plate, the amount and the shopper
//! ([`PayloadKey::sign_parking`]). At pre-checkout the car park's fee at that
//! moment must be the invoice's amount ([`check_parking_checkout`]); the
//! payment is kept in the ledger first and recorded in the mall once with
//! `pay_parking`, keyed by Telegram's charge id (`ledger.rs`). Without
//! payments in chat the ✅ says where to pay instead.

use std::time::Duration;

use handlers::Lang;
use handlers::loyalty::{ParkingCheckout, parking_invoice_description, parking_invoice_title};
use serde_json::Value;
use services::{MallApi, ServiceError, Shopper};

use super::PayloadKey;
use crate::engine::reply::{ParkingBill, Reply};

/// How long a pre-checkout waits for the car park (Telegram gives 10 s in all).
const CHECKOUT_TIMEOUT: Duration = super::CHECKOUT_MALL_TIMEOUT;

/// What a parking invoice shows and carries, before a transport sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParkingInvoice {
    pub title: String,
    pub description: String,
    /// The signed payload naming the plate, the amount and the shopper.
    pub payload: String,
    pub currency: String,
    /// The one price line: the plate's fee.
    pub label: String,
    pub amount: i64,
}

/// The bill a confirmed `pay_parking` call's result holds.
pub(crate) fn confirmed_bill(tool: &str, approved: bool, result_text: &str) -> Option<ParkingBill> {
    if !approved || tool != "pay_parking" {
        return None;
    }
    let value: Value = serde_json::from_str(result_text).ok()?;
    let bill = handlers::loyalty::confirmed_bill(&value)?;
    Some(ParkingBill {
        plate: bill.plate,
        amount_cents: bill.due_yuan.cents(),
        grace_minutes: bill.grace_minutes,
    })
}

/// How a confirmed parking fee is paid, as the bot is set up, whatever the
/// model wrote: the invoice below (payments in chat), or a pay station or
/// the exit; the reply carries the bill for the transport's invoice.
pub(crate) fn told_how_to_pay(
    mut reply: Reply,
    bill: Option<ParkingBill>,
    online: bool,
    lang: Lang,
) -> Reply {
    let Some(bill) = bill else { return reply };
    let how = if online {
        handlers::loyalty::parking_pay_in_chat(lang, bill.grace_minutes)
    } else {
        handlers::loyalty::parking_pay_elsewhere(lang)
    };
    reply.text = format!("{}\n\n{how}", reply.text.trim_end());
    reply.parking_bill = Some(bill);
    reply
}

/// The invoice of `bill` for the shopper `user_id`.
pub(crate) fn invoice_for_parking(
    bill: &ParkingBill,
    lang: Lang,
    currency: &str,
    key: &PayloadKey,
    user_id: i64,
) -> ParkingInvoice {
    ParkingInvoice {
        title: parking_invoice_title(lang, &bill.plate),
        description: parking_invoice_description(lang, &bill.plate, bill.grace_minutes),
        payload: key.sign_parking(&bill.plate, bill.amount_cents, user_id),
        currency: currency.to_owned(),
        label: parking_invoice_title(lang, &bill.plate),
        amount: bill.amount_cents,
    }
}

/// The pre-checkout of a parking payload: the bot made it for the payer, the
/// query (`paid`: amount and currency) is for its amount in
/// `expected_currency`, and the car park's fee now is that amount. Returns the plate; `None` when `payload` is no parking
/// payload at all (an order's, or forged: the orders' check answers it).
pub(crate) async fn check_parking_checkout(
    mall: &dyn MallApi,
    key: &PayloadKey,
    platform: &str,
    user_id: i64,
    payload: &str,
    paid: (i64, &str),
    expected_currency: &str,
) -> Option<Result<String, ParkingCheckout>> {
    let (amount, currency) = paid;
    let (plate, billed, payer) = key.open_parking(payload)?;
    if payer != user_id {
        return Some(Err(ParkingCheckout::NotYours));
    }
    let shopper = Shopper::new(platform, user_id);
    let fee = match tokio::time::timeout(CHECKOUT_TIMEOUT, mall.parking_fee(&plate, Some(&shopper))).await {
        Ok(Ok(fee)) => fee,
        Ok(Err(ServiceError::NotFound { .. })) => return Some(Err(ParkingCheckout::Gone)),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, plate, "pre-checkout: the car park could not be asked");
            return Some(Err(ParkingCheckout::Unavailable));
        }
        Err(_) => {
            tracing::warn!(plate, "pre-checkout: the car park did not answer in time");
            return Some(Err(ParkingCheckout::Unavailable));
        }
    };
    Some(judge_parking(&fee, billed, amount, currency, expected_currency).map(|()| plate))
}

/// Whether the fee `fee` may be paid now with an invoice of `billed`, paid
/// `amount` in `currency`.
pub(crate) fn judge_parking(
    fee: &services::ParkingFee,
    billed: i64,
    amount: i64,
    currency: &str,
    expected_currency: &str,
) -> Result<(), ParkingCheckout> {
    if fee.due_cents == 0 && (fee.paid_cents > 0 || fee.leave_by.is_some()) {
        return Err(ParkingCheckout::AlreadyPaid);
    }
    if fee.due_cents != billed || amount != billed || !currency.eq_ignore_ascii_case(expected_currency) {
        return Err(ParkingCheckout::FeeChanged(fee.due_cents));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn fee(due: i64, paid: i64, leave_by: Option<&str>) -> services::ParkingFee {
        services::ParkingFee {
            plate: "沪A12345".into(),
            entered_at: "2026-11-25T07:00:00+08:00".into(),
            minutes_parked: 185,
            gross_cents: 3000,
            free: Vec::new(),
            paid_cents: paid,
            due_cents: due,
            grace_minutes: 15,
            leave_by: leave_by.map(str::to_owned),
        }
    }

    #[test]
    fn a_parking_payment_is_taken_for_the_fee_due_now_only() {
        assert_eq!(judge_parking(&fee(3000, 0, None), 3000, 3000, "CNY", "CNY"), Ok(()));
        assert_eq!(
            judge_parking(&fee(4000, 0, None), 3000, 3000, "CNY", "CNY"),
            Err(ParkingCheckout::FeeChanged(4000))
        );
        assert_eq!(
            judge_parking(&fee(3000, 0, None), 3000, 2000, "CNY", "CNY"),
            Err(ParkingCheckout::FeeChanged(3000))
        );
        assert_eq!(
            judge_parking(&fee(0, 3000, Some("2026-11-25T10:15:00+08:00")), 3000, 3000, "CNY", "CNY"),
            Err(ParkingCheckout::AlreadyPaid)
        );
        let said = handlers::loyalty::parking_checkout_refused(Lang::Zh, ParkingCheckout::FeeChanged(4000));
        assert!(said.contains("¥40") && said.contains("没有扣款"), "{said}");
    }

    #[test]
    fn a_confirmed_bill_becomes_an_invoice_signed_for_its_plate_amount_and_shopper() {
        let bill =
            confirmed_bill("pay_parking", true, r#"{"plate":"沪A12345","due_yuan":30,"grace_minutes":15}"#)
                .unwrap();
        assert_eq!(bill, ParkingBill { plate: "沪A12345".into(), amount_cents: 3000, grace_minutes: 15 });
        assert_eq!(confirmed_bill("pay_parking", false, r#"{"plate":"沪A12345","due_yuan":30}"#), None);
        assert_eq!(confirmed_bill("save_plate", true, r#"{"plate":"沪A12345","due_yuan":30}"#), None);
        let key = PayloadKey::derive("123:TEST");
        let invoice = invoice_for_parking(&bill, Lang::Zh, "CNY", &key, 1001);
        assert_eq!(key.open_parking(&invoice.payload), Some(("沪A12345".to_owned(), 3000, 1001)));
        assert!(invoice.title.contains("沪A12345"), "{}", invoice.title);
        assert!(invoice.description.contains("15 分钟内离场"), "{}", invoice.description);
        assert_eq!(invoice.amount, 3000);
    }
}
