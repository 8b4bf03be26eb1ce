//! [`MallApi`]: every endpoint of the mall contract as one async trait, so the
//! bot can talk to the embedded demo mall, a real backend over HTTP, or a mock.
//!
//! Among the methods: `pay_order`, `events` (the order event feed), the staff
//! calls `mark_ready` / `mark_picked_up`, and the mall's own `mall_info`,
//! `mall_events` and `mall_promotions`, which a mall without them answers
//! `NotFound` by default. Parking, points and coupons (`parking_fee`,
//! `pay_parking`, `points`, `redeem_points`, `claim_coupon`,
//! `create_order_with_coupon`…) answer `NotSupported` by default, so a mall
//! or a test double without them needs nothing more. [`Shopper`] travels as `X-Mall-User`,
//! [`IdempotencyKey`] as `Idempotency-Key`. `MockMallApi` is there behind the
//! `mock` feature.

use async_trait::async_trait;

use crate::error::ServiceError;
use crate::loyalty::{
    CarStay, Coupon, CouponOrder, MyCoupon, ParkingFee, ParkingPayment, PayParking, Plate, PointsBalance,
    Redeem, Redemption,
};
use crate::models::*;

/// The error of a parking, points or coupon method a mall does not offer.
fn unsupported<T>(what: &str) -> MallResult<T> {
    Err(ServiceError::NotSupported { message: format!("this mall has no {what}") })
}

/// The shopper on whose behalf a request is made: `<platform>:<id>`,
/// sent as `X-Mall-User` (e.g. `telegram:123456789`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Shopper(pub String);

impl Shopper {
    /// A shopper of a platform: `Shopper::new("telegram", 42)` is `telegram:42`.
    pub fn new(platform: &str, id: impl std::fmt::Display) -> Self {
        Shopper(format!("{platform}:{id}"))
    }

    /// The header value.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Shopper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An `Idempotency-Key` (opaque, at most 128 characters).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct IdempotencyKey(pub String);

impl IdempotencyKey {
    /// Longest key the contract allows.
    pub const MAX_LEN: usize = 128;

    /// The key's text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Result of a mall call.
pub type MallResult<T> = Result<T, ServiceError>;

/// The mall's operations, one method per endpoint of the contract.
///
/// Cart and order methods act for `shopper` only: another shopper's cart
/// item or order is [`ServiceError::NotFound`]. Mutating methods take an
/// optional idempotency key: the same key with the same request returns the
/// first answer again and changes nothing more.
#[cfg_attr(any(test, feature = "mock"), mockall::automock)]
#[async_trait]
pub trait MallApi: Send + Sync {
    /// `GET /api/health`.
    async fn health(&self) -> MallResult<Health>;
    /// `GET /api/products/search`, best match first.
    async fn search_products(&self, query: &ProductQuery) -> MallResult<Page<ProductBrief>>;
    /// `GET /api/products/{id}`.
    async fn get_product(&self, id: &str) -> MallResult<Product>;
    /// `GET /api/stores/search`.
    async fn search_stores(&self, query: &StoreQuery) -> MallResult<Page<Store>>;
    /// `GET /api/stores/{id}`.
    async fn get_store(&self, id: &str) -> MallResult<Store>;
    /// `GET /api/stores/{id}/promotions`.
    async fn store_promotions(&self, id: &str) -> MallResult<Page<Promotion>>;
    /// `GET /api/stores/{id}/reviews`.
    async fn store_reviews(&self, id: &str, page: PageRequest) -> MallResult<Page<Review>>;
    /// `GET /api/areas`.
    async fn list_areas(&self) -> MallResult<Page<Area>>;
    /// `GET /api/areas/{id}`.
    async fn get_area(&self, id: &str) -> MallResult<Area>;
    /// `GET /api/navigation/route`; `from` defaults to `main_entrance`.
    async fn route(&self, to_store: &str, from: Option<String>) -> MallResult<Route>;
    /// `GET /api/cart` (an empty cart if the shopper has none yet).
    async fn get_cart(&self, shopper: &Shopper) -> MallResult<Cart>;
    /// `POST /api/cart/items`.
    async fn add_cart_item(
        &self,
        shopper: &Shopper,
        item: &AddCartItem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart>;
    /// `DELETE /api/cart/items/{item_id}`.
    async fn remove_cart_item(
        &self,
        shopper: &Shopper,
        item_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart>;
    /// `DELETE /api/cart`.
    async fn clear_cart(&self, shopper: &Shopper, key: Option<IdempotencyKey>) -> MallResult<Cart>;
    /// `POST /api/orders`: re-prices the cart, reserves stock, empties the cart.
    async fn create_order(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order>;
    /// `GET /api/orders`, newest first.
    async fn list_orders(&self, shopper: &Shopper, page: PageRequest) -> MallResult<Page<Order>>;
    /// `GET /api/orders/{id}`.
    async fn get_order(&self, shopper: &Shopper, order_id: &str) -> MallResult<Order>;
    /// `POST /api/orders/{id}/cancel`: `PENDING_PAYMENT` and `PAID` orders (a paid one gets a
    /// pending `refund`); returns stock.
    async fn cancel_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order>;
    /// `POST /api/orders/{id}/payments`: records a payment once per `charge_id`.
    async fn pay_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        payment: &RecordPayment,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order>;
    /// `GET /api/events?after=&limit=`: order events, oldest first (bot credential only).
    async fn events(&self, after: Option<String>, limit: u32) -> MallResult<EventPage>;
    /// `POST /api/staff/orders/{id}/ready` (staff key): `PAID` → `READY`.
    async fn mark_ready(&self, order_id: &str) -> MallResult<Order>;
    /// `POST /api/staff/orders/{id}/picked-up` (staff key): `READY` → `COMPLETED`.
    async fn mark_picked_up(&self, order_id: &str) -> MallResult<Order>;
    /// `POST /api/staff/products/{id}/stock` (staff key): sets the stock of one of the
    /// product's SKUs (`sku_id`; none for a product without SKUs). A SKU back from none appends
    /// a `product.restocked` event. A mall that takes no such change answers `NotFound`.
    async fn set_stock(&self, product_id: &str, sku_id: Option<String>, stock: u32) -> MallResult<Product> {
        let _ = (product_id, sku_id, stock);
        Err(ServiceError::not_found("this mall takes no stock changes"))
    }
    /// `POST /api/staff/products/{id}/price` (staff key): sets the price of one SKU, or of the
    /// whole product without `sku_id`. A product whose price moved appends a
    /// `product.price_changed` event. A mall that takes no such change answers `NotFound`.
    async fn set_price(
        &self,
        product_id: &str,
        sku_id: Option<String>,
        price_cents: i64,
    ) -> MallResult<Product> {
        let _ = (product_id, sku_id, price_cents);
        Err(ServiceError::not_found("this mall takes no price changes"))
    }
    /// `GET /api/mall/info`: the mall's own information, one section per topic. A mall
    /// without it answers `NotFound`.
    async fn mall_info(&self) -> MallResult<Page<InfoSection>> {
        Err(ServiceError::not_found("this mall has no information sections"))
    }
    /// `GET /api/mall/events?from=&to=`: the mall's events in a window, soonest first. A
    /// mall without them answers `NotFound`.
    async fn mall_events(&self, query: &EventQuery) -> MallResult<Page<MallEvent>> {
        let _ = query;
        Err(ServiceError::not_found("this mall lists no events"))
    }
    /// `GET /api/mall/promotions`: the offers across the mall and of every store. A mall
    /// without the endpoint answers `NotFound`.
    async fn mall_promotions(&self) -> MallResult<Page<MallPromotion>> {
        Err(ServiceError::not_found("this mall lists no mall-wide promotions"))
    }

    // ----------------------------------------------------------------- parking, points, coupons
    // A mall without them answers `NOT_SUPPORTED` (these defaults).

    /// `GET /api/parking/fee?plate=`: what the car with `plate` owes now; with the shopper,
    /// the free time their spending today and their points bought counts. A plate with no
    /// car inside is `NotFound`.
    async fn parking_fee<'a>(&self, plate: &str, shopper: Option<&'a Shopper>) -> MallResult<ParkingFee> {
        let _ = (plate, shopper);
        unsupported("car park")
    }
    /// `POST /api/parking/payments`: pays the fee due now, once per `charge_id` (the same
    /// charge answers the same); another amount than the fee due is `FEE_CHANGED`, a car
    /// already paid and still within its time to leave `ALREADY_PAID`.
    async fn pay_parking(
        &self,
        shopper: &Shopper,
        payment: &PayParking,
        key: Option<IdempotencyKey>,
    ) -> MallResult<ParkingPayment> {
        let _ = (shopper, payment, key);
        unsupported("car park")
    }
    /// `POST /api/staff/parking/entries` (staff key): a car entered at `at` (RFC 3339; now
    /// when absent).
    async fn car_entered(&self, plate: &str, at: Option<String>) -> MallResult<CarStay> {
        let _ = (plate, at);
        unsupported("car park")
    }
    /// `POST /api/staff/parking/exits` (staff key): the car left.
    async fn car_left(&self, plate: &str) -> MallResult<CarStay> {
        let _ = plate;
        unsupported("car park")
    }
    /// `GET /api/me/plates`: the shopper's plates (at most 3).
    async fn my_plates(&self, shopper: &Shopper) -> MallResult<Page<Plate>> {
        let _ = shopper;
        unsupported("car park")
    }
    /// `POST /api/me/plates`: adds a plate (normalised); a fourth is `TOO_MANY_PLATES`.
    async fn add_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        let _ = (shopper, plate, key);
        unsupported("car park")
    }
    /// `DELETE /api/me/plates/{plate}`.
    async fn remove_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        let _ = (shopper, plate, key);
        unsupported("car park")
    }
    /// `GET /api/points`: the balance and the last changes, newest first.
    async fn points(&self, shopper: &Shopper) -> MallResult<PointsBalance> {
        let _ = shopper;
        unsupported("points")
    }
    /// `POST /api/points/redemptions`: points for parking time or a coupon, once per key;
    /// too few points is `NOT_ENOUGH_POINTS`.
    async fn redeem_points(
        &self,
        shopper: &Shopper,
        redeem: &Redeem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Redemption> {
        let _ = (shopper, redeem, key);
        unsupported("points")
    }
    /// `GET /api/coupons`: the mall's coupons, with how many are left.
    async fn list_coupons(&self) -> MallResult<Page<Coupon>> {
        unsupported("coupons")
    }
    /// `POST /api/coupons/{id}/claim`: one per shopper, while any are left and within its dates
    /// (else `COUPON_UNAVAILABLE`).
    async fn claim_coupon(
        &self,
        shopper: &Shopper,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<MyCoupon> {
        let _ = (shopper, coupon_id, key);
        unsupported("coupons")
    }
    /// `GET /api/me/coupons`: the coupons the shopper holds.
    async fn my_coupons(&self, shopper: &Shopper) -> MallResult<Page<MyCoupon>> {
        let _ = shopper;
        unsupported("coupons")
    }
    /// `POST /api/orders` with `coupon_id`: the order with the coupon's discount, when it
    /// qualifies (else `COUPON_NOT_APPLICABLE`, no order); `expected_total_cents` is the
    /// cart's total before the discount.
    async fn create_order_with_coupon(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<CouponOrder> {
        let _ = (shopper, order, coupon_id, key);
        unsupported("coupons")
    }
}
