//! The mall API: typed models, the [`MallApi`] trait, the HTTP client
//! [`HttpMall`], the in-process demo mall [`EmbeddedMall`] and the reference
//! REST server that serves any `MallApi` (`mallbot mall-server`).
//!
//! This crate knows nothing of Telegram or language models.

pub mod api;
pub mod calendar;
pub mod clock;
pub mod embedded;
pub mod error;
pub mod http;
pub mod info;
pub mod info_dir;
pub mod loyalty;
pub mod models;
pub mod retry;
pub mod server;

#[cfg(any(test, feature = "mock"))]
pub use api::MockMallApi;
pub use api::{IdempotencyKey, MallApi, MallResult, Shopper};
pub use embedded::{Catalog, EmbeddedMall, OrderPolicy, rfc3339};
pub use error::ServiceError;
pub use http::{HttpMall, HttpMallConfig};
pub use info::{InfoHit, InfoIndex};
pub use info_dir::{InfoDirError, InfoFolder, WithInfoFolder};
pub use loyalty::{
    CarStay, Coupon, CouponOrder, CouponSpec, FreeTime, LoyaltyRules, MyCoupon, ParkingFee, ParkingPayment,
    PayParking, Plate, PointsBalance, PointsChange, PointsRule, Redeem, Redemption, SpendingTier, Tariff,
    normalize_plate,
};
pub use models::*;
pub use retry::RetryPolicy;
