//! [`ServiceError`]: what can go wrong talking to the mall, by kind.
//!
//! The kinds mirror the contract's error codes, plus the two that only a
//! client sees: the mall could not be reached, or it answered nonsense.

use serde::{Deserialize, Serialize};

/// An error from the mall, kept by kind so callers can answer the shopper well.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ServiceError {
    /// The product, store, area, cart item or order does not exist (or is
    /// not the shopper's).
    #[error("not found: {message}")]
    NotFound { message: String },
    /// The requested quantity exceeds the stock.
    #[error("out of stock: {message}")]
    OutOfStock { message: String },
    /// The cart's total changed since it was shown; `total_cents` is the new total.
    #[error("price changed: the total is now {total_cents} fen")]
    PriceChanged { total_cents: i64, message: String },
    /// A parameter is missing or wrong; `field` names it when known.
    #[error("invalid argument{}: {message}", field.as_deref().map(|f| format!(" `{f}`")).unwrap_or_default())]
    InvalidArgument { field: Option<String>, message: String },
    /// An order was requested from an empty cart.
    #[error("the cart is empty")]
    CartEmpty,
    /// Only `PENDING_PAYMENT` and `PAID` orders can be cancelled.
    #[error("order cannot be cancelled: {message}")]
    NotCancellable { message: String },
    /// The order takes no payment: it is not `PENDING_PAYMENT` (nor expired
    /// less than 15 minutes ago), or it was paid with another charge.
    #[error("order cannot be paid: {message}")]
    NotPayable { message: String },
    /// The payment's amount or currency differs from the order's.
    #[error("payment does not match the order: {message}")]
    PaymentMismatch { message: String },
    /// The shopper already holds as many unpaid orders as the mall allows.
    #[error("too many open orders: {message}")]
    TooManyOpenOrders { message: String },
    /// The bot's key (or the shopper header) was missing or wrong.
    #[error("unauthorized: {message}")]
    Unauthorized { message: String },
    /// An idempotency key was reused with a different request.
    #[error("conflict: {message}")]
    Conflict { message: String },
    /// A parking payment's amount is not the fee due at that moment; `due_cents` is.
    #[error("the parking fee changed: {message}")]
    FeeChanged { due_cents: i64, message: String },
    /// The car's parking is already paid (or nothing is due) and it is still within its time to leave.
    #[error("already paid: {message}")]
    AlreadyPaid { message: String },
    /// The shopper has fewer points than a redemption costs; `balance` is what they have.
    #[error("not enough points: {message}")]
    NotEnoughPoints { balance: i64, message: String },
    /// A coupon cannot be claimed: none left, claimed already, or outside its dates.
    #[error("coupon unavailable: {message}")]
    CouponUnavailable { message: String },
    /// A coupon does not apply to the order: not held, used, expired, minimum spend or stores.
    #[error("coupon does not apply: {message}")]
    CouponNotApplicable { message: String },
    /// The shopper already has as many plates as allowed.
    #[error("too many plates: {message}")]
    TooManyPlates { message: String },
    /// This mall does not offer the endpoint (no car park, no points, no coupons).
    #[error("not supported by this mall: {message}")]
    NotSupported { message: String },
    /// The mall could not be reached: network error, timeout or a 5xx.
    #[error("mall unavailable: {message}")]
    Unavailable { message: String },
    /// The mall answered something that is not the contract's shape.
    #[error("invalid response from the mall (HTTP {status}): {message}; body: {raw}")]
    InvalidResponse { status: u16, message: String, raw: String },
}

/// The contract's error body: `{"error": {"code", "message", "details"?}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: ErrorDetail,
}

/// The inside of [`ErrorBody`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorDetail {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
}

impl ServiceError {
    /// Shorthand for [`ServiceError::NotFound`].
    pub fn not_found(message: impl Into<String>) -> Self {
        ServiceError::NotFound { message: message.into() }
    }

    /// Shorthand for [`ServiceError::InvalidArgument`] naming a field.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        ServiceError::InvalidArgument { field: Some(field.to_owned()), message: message.into() }
    }

    /// The contract's error code (`NOT_FOUND`, `OUT_OF_STOCK`…).
    pub fn code(&self) -> &'static str {
        match self {
            ServiceError::NotFound { .. } => "NOT_FOUND",
            ServiceError::OutOfStock { .. } => "OUT_OF_STOCK",
            ServiceError::PriceChanged { .. } => "PRICE_CHANGED",
            ServiceError::InvalidArgument { .. } => "INVALID_ARGUMENT",
            ServiceError::CartEmpty => "CART_EMPTY",
            ServiceError::NotCancellable { .. } => "ORDER_NOT_CANCELLABLE",
            ServiceError::NotPayable { .. } => "ORDER_NOT_PAYABLE",
            ServiceError::PaymentMismatch { .. } => "PAYMENT_MISMATCH",
            ServiceError::TooManyOpenOrders { .. } => "TOO_MANY_OPEN_ORDERS",
            ServiceError::Unauthorized { .. } => "UNAUTHORIZED",
            ServiceError::Conflict { .. } => "CONFLICT",
            ServiceError::FeeChanged { .. } => "FEE_CHANGED",
            ServiceError::AlreadyPaid { .. } => "ALREADY_PAID",
            ServiceError::NotEnoughPoints { .. } => "NOT_ENOUGH_POINTS",
            ServiceError::CouponUnavailable { .. } => "COUPON_UNAVAILABLE",
            ServiceError::CouponNotApplicable { .. } => "COUPON_NOT_APPLICABLE",
            ServiceError::TooManyPlates { .. } => "TOO_MANY_PLATES",
            ServiceError::NotSupported { .. } => "NOT_SUPPORTED",
            ServiceError::Unavailable { .. } | ServiceError::InvalidResponse { .. } => "INTERNAL",
        }
    }

    /// The HTTP status the contract gives this kind.
    pub fn http_status(&self) -> u16 {
        match self {
            ServiceError::InvalidArgument { .. } => 400,
            ServiceError::Unauthorized { .. } => 401,
            ServiceError::NotFound { .. } => 404,
            ServiceError::OutOfStock { .. }
            | ServiceError::PriceChanged { .. }
            | ServiceError::CartEmpty
            | ServiceError::NotCancellable { .. }
            | ServiceError::NotPayable { .. }
            | ServiceError::PaymentMismatch { .. }
            | ServiceError::TooManyOpenOrders { .. }
            | ServiceError::Conflict { .. }
            | ServiceError::FeeChanged { .. }
            | ServiceError::AlreadyPaid { .. }
            | ServiceError::NotEnoughPoints { .. }
            | ServiceError::CouponUnavailable { .. }
            | ServiceError::CouponNotApplicable { .. }
            | ServiceError::TooManyPlates { .. } => 409,
            ServiceError::NotSupported { .. } => 501,
            ServiceError::Unavailable { .. } | ServiceError::InvalidResponse { .. } => 500,
        }
    }

    /// The contract's error body for this error.
    pub fn to_body(&self) -> ErrorBody {
        let (message, details) = match self {
            ServiceError::PriceChanged { total_cents, message } => {
                (message.clone(), Some(serde_json::json!({ "total_cents": total_cents })))
            }
            ServiceError::InvalidArgument { field, message } => {
                (message.clone(), field.as_ref().map(|f| serde_json::json!({ "field": f })))
            }
            ServiceError::FeeChanged { due_cents, message } => {
                (message.clone(), Some(serde_json::json!({ "due_cents": due_cents })))
            }
            ServiceError::NotEnoughPoints { balance, message } => {
                (message.clone(), Some(serde_json::json!({ "balance": balance })))
            }
            ServiceError::NotFound { message }
            | ServiceError::AlreadyPaid { message }
            | ServiceError::CouponUnavailable { message }
            | ServiceError::CouponNotApplicable { message }
            | ServiceError::TooManyPlates { message }
            | ServiceError::NotSupported { message }
            | ServiceError::OutOfStock { message }
            | ServiceError::NotCancellable { message }
            | ServiceError::NotPayable { message }
            | ServiceError::PaymentMismatch { message }
            | ServiceError::TooManyOpenOrders { message }
            | ServiceError::Unauthorized { message }
            | ServiceError::Conflict { message }
            | ServiceError::Unavailable { message } => (message.clone(), None),
            ServiceError::InvalidResponse { message, .. } => (message.clone(), None),
            ServiceError::CartEmpty => ("the cart is empty".to_owned(), None),
        };
        ErrorBody { error: ErrorDetail { code: self.code().to_owned(), message, details } }
    }

    /// Rebuilds the error from a contract error body and its HTTP status.
    /// Unknown codes are classified by status.
    pub fn from_body(status: u16, body: ErrorBody) -> Self {
        let ErrorDetail { code, message, details } = body.error;
        let detail = |key: &str| details.as_ref().and_then(|d| d.get(key)).cloned();
        match code.as_str() {
            "NOT_FOUND" => ServiceError::NotFound { message },
            "OUT_OF_STOCK" => ServiceError::OutOfStock { message },
            "PRICE_CHANGED" => match detail("total_cents").and_then(|v| v.as_i64()) {
                Some(total_cents) => ServiceError::PriceChanged { total_cents, message },
                None => ServiceError::InvalidResponse {
                    status,
                    message: "PRICE_CHANGED without details.total_cents".to_owned(),
                    raw: message,
                },
            },
            "INVALID_ARGUMENT" => ServiceError::InvalidArgument {
                field: detail("field").and_then(|v| v.as_str().map(str::to_owned)),
                message,
            },
            "CART_EMPTY" => ServiceError::CartEmpty,
            "ORDER_NOT_CANCELLABLE" => ServiceError::NotCancellable { message },
            "ORDER_NOT_PAYABLE" => ServiceError::NotPayable { message },
            "PAYMENT_MISMATCH" => ServiceError::PaymentMismatch { message },
            "TOO_MANY_OPEN_ORDERS" => ServiceError::TooManyOpenOrders { message },
            "UNAUTHORIZED" => ServiceError::Unauthorized { message },
            "CONFLICT" => ServiceError::Conflict { message },
            "FEE_CHANGED" => ServiceError::FeeChanged {
                due_cents: detail("due_cents").and_then(|v| v.as_i64()).unwrap_or_default(),
                message,
            },
            "ALREADY_PAID" => ServiceError::AlreadyPaid { message },
            "NOT_ENOUGH_POINTS" => ServiceError::NotEnoughPoints {
                balance: detail("balance").and_then(|v| v.as_i64()).unwrap_or_default(),
                message,
            },
            "COUPON_UNAVAILABLE" => ServiceError::CouponUnavailable { message },
            "COUPON_NOT_APPLICABLE" => ServiceError::CouponNotApplicable { message },
            "TOO_MANY_PLATES" => ServiceError::TooManyPlates { message },
            "NOT_SUPPORTED" => ServiceError::NotSupported { message },
            _ => match status {
                400 => ServiceError::InvalidArgument { field: None, message },
                401 | 403 => ServiceError::Unauthorized { message },
                404 => ServiceError::NotFound { message },
                409 => ServiceError::Conflict { message },
                _ => ServiceError::Unavailable { message: format!("HTTP {status}: {code}: {message}") },
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_survives_the_wire() {
        let errors = [
            ServiceError::not_found("product p9"),
            ServiceError::OutOfStock { message: "only 2 left".into() },
            ServiceError::PriceChanged { total_cents: 12345, message: "re-priced".into() },
            ServiceError::invalid("quantity", "must be 1-99"),
            ServiceError::CartEmpty,
            ServiceError::NotCancellable { message: "PAID".into() },
            ServiceError::NotPayable { message: "CANCELLED".into() },
            ServiceError::PaymentMismatch { message: "100 CNY, not 200 CNY".into() },
            ServiceError::TooManyOpenOrders { message: "3 unpaid orders".into() },
            ServiceError::Unauthorized { message: "bad key".into() },
            ServiceError::Conflict { message: "key reused".into() },
            ServiceError::FeeChanged { due_cents: 2000, message: "the fee is now ¥20".into() },
            ServiceError::AlreadyPaid { message: "paid at 14:00".into() },
            ServiceError::NotEnoughPoints { balance: 40, message: "40 points, 100 needed".into() },
            ServiceError::CouponUnavailable { message: "none left".into() },
            ServiceError::CouponNotApplicable { message: "spend ¥300".into() },
            ServiceError::TooManyPlates { message: "3 plates".into() },
            ServiceError::NotSupported { message: "no car park".into() },
        ];
        for e in errors {
            let body = e.to_body();
            let json = serde_json::to_string(&body).expect("serializes");
            let back: ErrorBody = serde_json::from_str(&json).expect("parses");
            let again = ServiceError::from_body(e.http_status(), back);
            assert_eq!(again, e, "{json}");
            assert_eq!(body.error.code, e.code());
        }
    }
}
