//! Paying for orders in chat, whatever the transport: the invoice of an
//! order (its lines in the currency's minor units, its total the mall's),
//! the invoice payload that names the order and the shopper and cannot be
//! forged (`payload.rs`), the pre-checkout judgement, the payments kept in
//! the state store until the mall recorded them (`ledger.rs`), and the
//! mall's order events told to shoppers once each (`events.rs`).

use std::time::Duration;

use handlers::Lang;
use handlers::format::{item_label, item_name, money, store_name};
use services::{MallApi, Order, OrderStatus, ServiceError, Shopper, Store};

pub(crate) mod events;
pub(crate) mod ledger;
pub(crate) mod parking;
pub(crate) mod payload;

pub use events::EventFeed;

pub use events::FeedReport;

pub(crate) use events::EventTeller;
pub(crate) use ledger::{Ledger, PaymentRecord, PaymentState, Settled};
pub use payload::PayloadKey;

/// An order is taken at pre-checkout only with at least this much time left
/// before it expires (the shopper still has to confirm in Telegram's box).
pub(crate) const MIN_TIME_LEFT_SECS: i64 = 120;

/// How long a pre-checkout waits for the mall: Telegram gives 10 s in all,
/// and a slow mall is answered "unavailable" rather than not at all.
pub(crate) const CHECKOUT_MALL_TIMEOUT: Duration = Duration::from_secs(3);

/// One priced line of an invoice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvoiceLine {
    /// What and how many, in the shopper's language.
    pub(crate) label: String,
    /// The line's total in the currency's minor units.
    pub(crate) amount: i64,
}

/// What an invoice shows and carries, before a transport sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct InvoiceDraft {
    pub(crate) order_id: String,
    pub(crate) title: String,
    pub(crate) description: String,
    /// The signed payload (see [`PayloadKey`]).
    pub(crate) payload: String,
    pub(crate) currency: String,
    pub(crate) lines: Vec<InvoiceLine>,
    /// The order's total: the sum of the lines and the mall's `total_cents`.
    pub(crate) total: i64,
}

/// The invoice of `order` for the shopper `user_id` (`store` is its pickup
/// store, when it could be looked up). The lines are the order's; when
/// they do not add up to the mall's total the invoice has one line, the
/// order, at the mall's total. An order with a coupon's discount has that
/// one line too (Telegram's prices are not negative: the teloxide type is
/// unsigned and the Bot API promises no negative amount, so a discount
/// cannot be a line of its own and the item lines would not add up to the
/// total), and its description says "subtotal − coupon = total".
pub(crate) fn invoice_for(
    order: &Order,
    store: Option<&Store>,
    lang: Lang,
    currency: &str,
    key: &PayloadKey,
    user_id: i64,
    ttl_mins: u64,
) -> InvoiceDraft {
    let texts = &lang.texts().pay;
    let store_label =
        store.map(|s| store_name(lang, s).into_owned()).unwrap_or_else(|| order.pickup_store_id.clone());
    let mut lines: Vec<InvoiceLine> = order
        .items
        .iter()
        .map(|item| InvoiceLine {
            label: item_label(lang, &item_name(lang, item), item.sku_label.as_deref(), item.quantity),
            amount: item.line_total_cents,
        })
        .collect();
    let sum: i64 = lines.iter().map(|l| l.amount).sum();
    let mut description = (texts.invoice_description)(&order.order_id, ttl_mins);
    if let Some(summary) = discount_summary(lang, order) {
        lines = vec![InvoiceLine {
            label: (texts.invoice_discounted_line)(&order.order_id),
            amount: order.total_cents,
        }];
        description = format!("{description}\n{summary}");
    } else if sum != order.total_cents || lines.is_empty() || lines.iter().any(|l| l.amount < 0) {
        lines = vec![InvoiceLine { label: order.order_id.clone(), amount: order.total_cents }];
    }
    InvoiceDraft {
        order_id: order.order_id.clone(),
        title: (texts.invoice_title)(&store_label),
        description,
        payload: key.sign(&order.order_id, user_id),
        currency: currency.to_owned(),
        lines,
        total: order.total_cents,
    }
}

/// "Subtotal ¥699 − coupon ¥50 = ¥649 to pay" of an order that took a
/// coupon's discount; `None` without one.
pub(crate) fn discount_summary(lang: Lang, order: &Order) -> Option<String> {
    let (subtotal, off) = order.discount()?;
    let amount = |cents| amount_text(cents, &order.currency);
    Some((lang.texts().pay.discount_summary)(&amount(subtotal), &amount(off), &amount(order.total_cents)))
}

/// Why a pre-checkout is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CheckoutRefusal {
    /// The payload is not one the bot signed.
    Forged,
    /// The payload or the mall says the order is another shopper's.
    NotYours,
    Cancelled,
    /// Expired, or less than [`MIN_TIME_LEFT_SECS`] left.
    Expired,
    /// Paid (or further along) already.
    Paid,
    /// The amount or currency is not the order's.
    Mismatch,
    /// The mall did not answer in time.
    Unavailable,
}

impl CheckoutRefusal {
    /// What the shopper reads in Telegram's payment box.
    pub(crate) fn message(self, lang: Lang) -> &'static str {
        let texts = &lang.texts().pay;
        match self {
            CheckoutRefusal::Forged => texts.refuse_forged,
            CheckoutRefusal::NotYours => texts.refuse_not_yours,
            CheckoutRefusal::Cancelled => texts.refuse_cancelled,
            CheckoutRefusal::Expired => texts.refuse_expired,
            CheckoutRefusal::Paid => texts.refuse_paid,
            CheckoutRefusal::Mismatch => texts.refuse_mismatch,
            CheckoutRefusal::Unavailable => texts.refuse_unavailable,
        }
    }

    /// A short name for logs and metrics.
    pub(crate) fn kind(self) -> &'static str {
        match self {
            CheckoutRefusal::Forged => "forged",
            CheckoutRefusal::NotYours => "not_yours",
            CheckoutRefusal::Cancelled => "cancelled",
            CheckoutRefusal::Expired => "expired",
            CheckoutRefusal::Paid => "paid",
            CheckoutRefusal::Mismatch => "mismatch",
            CheckoutRefusal::Unavailable => "unavailable",
        }
    }
}

/// Whether `order` may be paid now (unix seconds `now`) with `amount` in `currency`.
pub(crate) fn judge_checkout(
    order: &Order,
    amount: i64,
    currency: &str,
    now: i64,
) -> Result<(), CheckoutRefusal> {
    match order.status {
        OrderStatus::PendingPayment => {}
        OrderStatus::Cancelled => return Err(CheckoutRefusal::Cancelled),
        OrderStatus::Expired => return Err(CheckoutRefusal::Expired),
        _ => return Err(CheckoutRefusal::Paid),
    }
    if let Some(expires) = order.expires_at.as_deref().and_then(unix_of)
        && expires - now < MIN_TIME_LEFT_SECS
    {
        return Err(CheckoutRefusal::Expired);
    }
    if amount != order.total_cents || !currency.eq_ignore_ascii_case(&order.currency) {
        return Err(CheckoutRefusal::Mismatch);
    }
    Ok(())
}

/// The whole pre-checkout check: the payload is genuine and names the
/// paying user, the mall (asked within [`CHECKOUT_MALL_TIMEOUT`]) has the
/// order for that shopper, and [`judge_checkout`] takes it. Returns the order id.
pub(crate) async fn check_pre_checkout(
    mall: &dyn MallApi,
    key: &PayloadKey,
    platform: &str,
    user_id: i64,
    payload: &str,
    amount: i64,
    currency: &str,
) -> Result<String, CheckoutRefusal> {
    let (order_id, payer) = key.open(payload).ok_or(CheckoutRefusal::Forged)?;
    if payer != user_id {
        return Err(CheckoutRefusal::NotYours);
    }
    let shopper = Shopper::new(platform, user_id);
    let order = match tokio::time::timeout(CHECKOUT_MALL_TIMEOUT, mall.get_order(&shopper, &order_id)).await {
        Ok(Ok(order)) => order,
        Ok(Err(ServiceError::NotFound { .. })) => return Err(CheckoutRefusal::NotYours),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, order = %order_id, "pre-checkout: the mall could not be asked");
            return Err(CheckoutRefusal::Unavailable);
        }
        Err(_) => {
            tracing::warn!(order = %order_id, "pre-checkout: the mall did not answer in time");
            return Err(CheckoutRefusal::Unavailable);
        }
    };
    judge_checkout(&order, amount, currency, crate::infra::state::unix_now())?;
    Ok(order_id)
}

/// The amount as people read it, in the order's currency (`¥699` for CNY).
pub(crate) fn amount_text(cents: i64, currency: &str) -> String {
    if currency.eq_ignore_ascii_case("CNY") {
        money(cents)
    } else {
        format!("{} {}.{:02}", currency, cents / 100, (cents % 100).abs())
    }
}

/// Unix seconds of an RFC 3339 time (`2026-11-25T14:30:00Z`, an offset, or
/// fractions of a second); `None` when it does not read as one.
pub(crate) fn unix_of(text: &str) -> Option<i64> {
    let text = text.trim();
    let num = |s: &str| -> Option<i64> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    let (date, rest) = text.split_at_checked(10)?;
    let mut parts = date.split('-');
    let (year, month, day) = (num(parts.next()?)?, num(parts.next()?)?, num(parts.next()?)?);
    let rest = rest.strip_prefix(['T', 't', ' '])?;
    let (clock, mut zone) = rest.split_at_checked(8)?;
    let mut hms = clock.split(':');
    let (hour, minute, second) = (num(hms.next()?)?, num(hms.next()?)?, num(hms.next()?)?);
    if let Some(fraction) = zone.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        zone = &fraction[digits..];
    }
    let offset = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = match zone.as_bytes().first()? {
                b'+' => 1,
                b'-' => -1,
                _ => return None,
            };
            let (h, m) = zone[1..].split_once(':')?;
            sign * (num(h)? * 3600 + num(m)? * 60)
        }
    };
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    Some(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

/// Days since 1970-01-01 of a proleptic Gregorian date.
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let day_of_year = (153 * (month + if month > 2 { -3 } else { 9 }) + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn rfc3339_times_read_back_as_the_mall_writes_them() {
        for unix in [0, 86_399, 951_782_400, 1_700_000_000, 1_795_000_123, 4_102_444_800] {
            assert_eq!(unix_of(&services::rfc3339(unix)), Some(unix), "{}", services::rfc3339(unix));
        }
        assert_eq!(unix_of("2026-11-25T14:30:00.250+08:00"), unix_of("2026-11-25T06:30:00Z"));
        assert_eq!(unix_of("2026-11-25"), None);
        assert_eq!(unix_of("yesterday"), None);
    }

    fn order(status: OrderStatus, expires_in: i64, now: i64) -> Order {
        let mut order: Order = serde_json::from_value(serde_json::json!({
            "order_id": "o-1", "status": status, "items": [], "total_cents": 69900,
            "created_at": services::rfc3339(now), "pickup_store_id": "s-nike",
        }))
        .unwrap();
        order.expires_at = Some(services::rfc3339(now + expires_in));
        order
    }

    /// An unpaid order of Pegasus 42 × 1 (¥699) and socks × 2 (¥39.98), with
    /// a coupon of `off` cents when given.
    fn two_line_order(off: Option<i64>) -> Order {
        let line = |id: &str, name: &str, name_en: &str, quantity: u32, unit: i64| {
            serde_json::json!({"item_id": id, "product_id": format!("p-{id}"), "name": name, "name_en": name_en,
                "quantity": quantity, "unit_price_cents": unit, "line_total_cents": unit * i64::from(quantity)})
        };
        let subtotal = 69900 + 3998;
        let mut order: Order = serde_json::from_value(serde_json::json!({
            "order_id": "o-7", "status": "PENDING_PAYMENT", "total_cents": subtotal - off.unwrap_or(0),
            "items": [line("i-1", "飞马 42", "Pegasus 42", 1, 69900), line("i-2", "袜子", "Socks", 2, 1999)],
            "created_at": services::rfc3339(1_800_000_000), "pickup_store_id": "s-nike",
        }))
        .unwrap();
        if let Some(off) = off {
            (order.subtotal_cents, order.discount_cents, order.coupon_id) =
                (Some(subtotal), Some(off), Some("cp-mall-50".into()));
        }
        order
    }

    fn draft(order: &Order, lang: Lang) -> InvoiceDraft {
        invoice_for(order, None, lang, "CNY", &PayloadKey::derive("123:abc"), 42, 15)
    }

    #[test]
    fn an_invoice_without_a_discount_has_a_line_per_item_adding_up_to_the_total() {
        let order = two_line_order(None);
        let draft = draft(&order, Lang::Zh);
        let amounts: Vec<i64> = draft.lines.iter().map(|l| l.amount).collect();
        assert_eq!((amounts, draft.total), (vec![69900, 3998], 73898));
        assert!(draft.lines[1].label.contains("袜子"), "{:?}", draft.lines);
        assert_eq!(draft.description, "订单 o-7，到店取货。请在 15 分钟内支付。");
    }

    #[test]
    fn an_invoice_with_a_coupon_shows_subtotal_minus_coupon_and_charges_the_discounted_total() {
        let order = two_line_order(Some(5000));
        let zh = draft(&order, Lang::Zh);
        assert_eq!(
            zh.lines,
            vec![InvoiceLine { label: "订单 o-7（已减优惠券）".into(), amount: 68898 }],
            "no negative price: one line at the total to pay"
        );
        assert_eq!(zh.total, 68898);
        assert_eq!(
            zh.description,
            "订单 o-7，到店取货。请在 15 分钟内支付。\n商品小计 ¥738.98 − 优惠券 ¥50 = 实付 ¥688.98"
        );
        let hant = draft(&order, Lang::ZhHant);
        assert_eq!(hant.lines[0].label, "訂單 o-7（已折抵優惠券）");
        assert!(
            hant.description.ends_with("商品小計 ¥738.98 − 優惠券 ¥50 = 實付 ¥688.98"),
            "{}",
            hant.description
        );
        let en = draft(&order, Lang::En);
        assert_eq!(en.lines[0].label, "Order o-7 (coupon applied)");
        assert!(
            en.description.ends_with("Subtotal ¥738.98 − coupon ¥50 = ¥688.98 to pay"),
            "{}",
            en.description
        );
        assert_eq!(
            judge_checkout(&order, en.total, "CNY", 1_800_000_000),
            Ok(()),
            "the invoice's total is payable"
        );
    }

    #[test]
    fn a_zero_discount_is_no_discount() {
        let mut order = two_line_order(None);
        (order.subtotal_cents, order.discount_cents) = (Some(order.total_cents), Some(0));
        assert_eq!(draft(&order, Lang::Zh).lines.len(), 2);
        assert_eq!(discount_summary(Lang::Zh, &order), None);
    }

    #[test]
    fn checkout_takes_an_unpaid_order_with_time_left_and_the_right_amount_only() {
        let now = 1_800_000_000;
        let open = order(OrderStatus::PendingPayment, 600, now);
        assert_eq!(judge_checkout(&open, 69900, "CNY", now), Ok(()));
        assert_eq!(judge_checkout(&open, 69800, "CNY", now), Err(CheckoutRefusal::Mismatch));
        assert_eq!(judge_checkout(&open, 69900, "USD", now), Err(CheckoutRefusal::Mismatch));
        let closing = order(OrderStatus::PendingPayment, 119, now);
        assert_eq!(judge_checkout(&closing, 69900, "CNY", now), Err(CheckoutRefusal::Expired));
        let cancelled = order(OrderStatus::Cancelled, 600, now);
        assert_eq!(judge_checkout(&cancelled, 69900, "CNY", now), Err(CheckoutRefusal::Cancelled));
        assert_eq!(CheckoutRefusal::Cancelled.message(Lang::Zh), "这笔订单已取消");
        assert_eq!(CheckoutRefusal::Expired.message(Lang::Zh), "订单已过期，请重新下单");
        assert_eq!(CheckoutRefusal::Unavailable.message(Lang::Zh), "商场系统暂时不可用，请稍后再试");
        let paid = order(OrderStatus::Paid, 600, now);
        assert_eq!(judge_checkout(&paid, 69900, "CNY", now), Err(CheckoutRefusal::Paid));
    }
}
