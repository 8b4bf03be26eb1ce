//! The objects of the mall REST API (`docs/openapi.yaml`).
//!
//! Money is always an integer number of fen in fields ending `_cents`.
//! Every struct tolerates extra fields, so a newer backend does not break us.

use serde::{Deserialize, Serialize};

/// A shop in the mall.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Store {
    pub id: String,
    /// Chinese name.
    pub name: String,
    pub name_en: String,
    pub category: String,
    /// Floor number; basements are negative (B1 = -1).
    pub floor: i32,
    pub unit: String,
    pub area_id: String,
    /// Opening hours, written the same in every language: `10:00-22:00`;
    /// a closing time before the opening time is on the next day
    /// (`10:00-02:00`). Shown per language (`10:00–02:00 (next day)`,
    /// `10:00–次日02:00`).
    pub open_hours: String,
    pub phone: String,
    #[serde(default)]
    pub tags: Vec<String>,
}

/// A named part of the mall (food court, sports zone…).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Area {
    pub id: String,
    pub name: String,
    pub name_en: String,
    pub floor: i32,
    /// Chinese description.
    pub description: String,
    /// English description, when the mall has one. Not among the contract's
    /// required fields: a backend that leaves it out still works (English
    /// answers then leave the description out).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description_en: String,
    #[serde(default)]
    pub store_ids: Vec<String>,
}

/// A product as listed in search results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProductBrief {
    pub id: String,
    /// Chinese name.
    pub name: String,
    /// English name, when the mall has one. Not among the contract's fields:
    /// a backend that leaves it out still works (shoppers then see `name`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_en: Option<String>,
    pub brand: String,
    pub category: String,
    pub price_cents: i64,
    pub rating: f32,
    pub store_id: String,
    pub store_name: String,
    pub in_stock: bool,
    /// Labels of the SKUs in stock.
    #[serde(default)]
    pub sizes: Vec<String>,
}

/// A product with its description, SKUs and images.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Product {
    #[serde(flatten)]
    pub brief: ProductBrief,
    /// Chinese description.
    #[serde(default)]
    pub description: String,
    /// English description, when the mall has one (optional in the
    /// contract: without it, English answers leave the description out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_en: Option<String>,
    #[serde(default)]
    pub skus: Vec<Sku>,
    #[serde(default)]
    pub images: Vec<String>,
}

/// One sellable variant of a product (a size, a colour).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Sku {
    pub sku_id: String,
    pub label: String,
    pub price_cents: i64,
    pub stock: u32,
}

/// A line of a cart or an order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CartItem {
    pub item_id: String,
    pub product_id: String,
    #[serde(default)]
    pub sku_id: Option<String>,
    /// The product's Chinese name.
    pub name: String,
    /// The product's English name, when the mall has one (see [`ProductBrief::name_en`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_en: Option<String>,
    #[serde(default)]
    pub sku_label: Option<String>,
    pub quantity: u32,
    pub unit_price_cents: i64,
    pub line_total_cents: i64,
}

/// A shopper's cart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cart {
    pub cart_id: String,
    #[serde(default)]
    pub items: Vec<CartItem>,
    pub total_cents: i64,
}

/// Where an order stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OrderStatus {
    /// Placed, stock reserved, not paid yet; expires at `expires_at`.
    PendingPayment,
    /// Paid; the store prepares it.
    Paid,
    /// Ready for pickup at the store.
    Ready,
    /// Picked up.
    Completed,
    /// Cancelled (a paid one carries a `refund`).
    Cancelled,
    /// Not paid in time; its stock went back.
    Expired,
}

impl OrderStatus {
    /// The contract's spelling (`PENDING_PAYMENT`…).
    pub fn as_str(self) -> &'static str {
        match self {
            OrderStatus::PendingPayment => "PENDING_PAYMENT",
            OrderStatus::Paid => "PAID",
            OrderStatus::Ready => "READY",
            OrderStatus::Completed => "COMPLETED",
            OrderStatus::Cancelled => "CANCELLED",
            OrderStatus::Expired => "EXPIRED",
        }
    }
}

/// The currency of orders when a mall names none.
pub const DEFAULT_CURRENCY: &str = "CNY";

fn default_currency() -> String {
    DEFAULT_CURRENCY.to_owned()
}

/// An order placed from a cart, picked up at a store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Order {
    pub order_id: String,
    pub status: OrderStatus,
    #[serde(default)]
    pub items: Vec<CartItem>,
    pub total_cents: i64,
    /// ISO 4217 code of `total_cents` (`CNY` when the mall names none).
    #[serde(default = "default_currency")]
    pub currency: String,
    /// RFC 3339.
    pub created_at: String,
    /// RFC 3339; set while the order is `PENDING_PAYMENT`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<String>,
    pub pickup_store_id: String,
    /// The payment recorded for the order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub payment: Option<Payment>,
    /// The refund of a paid order that was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<Refund>,
    /// With a coupon: the items' total before its discount (`total_cents` is after it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subtotal_cents: Option<i64>,
    /// With a coupon: the amount it took off.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discount_cents: Option<i64>,
    /// The coupon whose discount the order took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupon_id: Option<String>,
}

impl Order {
    /// The coupon's discount, when one was taken off: (subtotal, discount).
    pub fn discount(&self) -> Option<(i64, i64)> {
        match (self.subtotal_cents, self.discount_cents) {
            (Some(subtotal), Some(off)) if off > 0 => Some((subtotal, off)),
            _ => None,
        }
    }
}

/// A payment recorded for an order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Payment {
    /// Who took the money (e.g. `telegram`).
    pub provider: String,
    pub amount_cents: i64,
    pub currency: String,
    /// The provider's id of the charge; one payment per charge.
    pub charge_id: String,
    /// RFC 3339.
    pub paid_at: String,
}

/// Body of `POST /api/orders/{id}/payments`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecordPayment {
    pub provider: String,
    pub amount_cents: i64,
    pub currency: String,
    pub charge_id: String,
}

/// Where a refund stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RefundStatus {
    /// The mall owes the money back.
    Pending,
    /// The money went back.
    Done,
}

impl RefundStatus {
    /// The contract's spelling (`PENDING`, `DONE`).
    pub fn as_str(self) -> &'static str {
        match self {
            RefundStatus::Pending => "PENDING",
            RefundStatus::Done => "DONE",
        }
    }
}

/// The refund of a cancelled paid order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Refund {
    pub status: RefundStatus,
    pub amount_cents: i64,
}

/// What an event of `GET /api/events` is about (`type`); a feed written
/// before product events (no `type`) holds order events only.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum EventKind {
    /// An order's status changed (`order_id`, `user`, `status`).
    #[default]
    #[serde(rename = "order.status_changed")]
    OrderStatusChanged,
    /// A product (some of its sizes) came back in stock (`product_id`, `sizes`).
    #[serde(rename = "product.restocked")]
    ProductRestocked,
    /// A product's price changed (`product_id`, `old_price_cents`, `new_price_cents`).
    #[serde(rename = "product.price_changed")]
    ProductPriceChanged,
    /// A kind this client does not know yet: passed over.
    #[serde(other, rename = "unknown")]
    Unknown,
}

impl EventKind {
    /// The contract's spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            EventKind::OrderStatusChanged => "order.status_changed",
            EventKind::ProductRestocked => "product.restocked",
            EventKind::ProductPriceChanged => "product.price_changed",
            EventKind::Unknown => "unknown",
        }
    }

    /// Whether it is about a product (not an order).
    pub fn is_product(self) -> bool {
        matches!(self, EventKind::ProductRestocked | EventKind::ProductPriceChanged)
    }
}

/// One change from `GET /api/events`: an order's status (the feed's first
/// kind), or a product's stock or price.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Event {
    /// Opaque and increasing; resume after it with `after`.
    pub event_id: String,
    /// What changed; absent = an order's status.
    #[serde(rename = "type", default)]
    pub kind: EventKind,
    /// The order (order events).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub order_id: String,
    /// The shopper: `<platform>:<id>` (order events).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub user: String,
    /// The order's status after the change (order events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<OrderStatus>,
    /// RFC 3339.
    pub at: String,
    /// Set only on the event of a refund's change (`DONE`), so that it reads
    /// apart from the `CANCELLED` event before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<RefundStatus>,
    /// The product (product events).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub product_id: Option<String>,
    /// `product.restocked`: the labels of the SKUs now in stock again (empty
    /// for a product without sizes).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// `product.price_changed`: the product's price (its lowest SKU's) before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_price_cents: Option<i64>,
    /// `product.price_changed`: the product's price after.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_price_cents: Option<i64>,
}

/// A page of `GET /api/events`: `next` is the cursor to pass as `after`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EventPage {
    pub items: Vec<Event>,
    #[serde(default)]
    pub next: Option<String>,
}

/// A store's promotion: its title and description in Chinese, and in
/// English when the mall has them (optional in the contract: without them,
/// English answers say less).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Promotion {
    /// Chinese title.
    pub title: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub title_en: String,
    /// Chinese description.
    pub description: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description_en: String,
    /// RFC 3339.
    pub valid_until: String,
}

/// A shopper's review of a store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Review {
    pub rating: f32,
    pub text: String,
    pub author: String,
    /// RFC 3339.
    pub created_at: String,
}

/// Walking directions to a store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Route {
    pub to_store_id: String,
    pub from: String,
    pub floor: i32,
    #[serde(default)]
    pub steps: Vec<String>,
    pub distance_m: u32,
    pub eta_minutes: u32,
}

/// One page of a list endpoint: `{"items": [...], "total": n}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Page<T> {
    pub items: Vec<T>,
    pub total: u64,
}

/// `limit` (default 10, max 50) and `offset` of a list request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct PageRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<u32>,
}

impl PageRequest {
    /// Default page size of the contract.
    pub const DEFAULT_LIMIT: u32 = 10;
    /// Largest page size of the contract.
    pub const MAX_LIMIT: u32 = 50;

    /// A page of `limit` items from the start.
    pub fn first(limit: u32) -> Self {
        PageRequest { limit: Some(limit), offset: None }
    }

    /// The effective limit, defaulted and clamped to the contract's bounds.
    pub fn limit(&self) -> u32 {
        self.limit.unwrap_or(Self::DEFAULT_LIMIT).clamp(1, Self::MAX_LIMIT)
    }

    /// The effective offset.
    pub fn offset(&self) -> u32 {
        self.offset.unwrap_or(0)
    }
}

/// Query of `GET /api/products/search`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ProductQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_price_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_price_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub brand: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(flatten)]
    pub page: PageRequest,
}

/// Query of `GET /api/stores/search`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct StoreQuery {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keyword: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<i32>,
    #[serde(flatten)]
    pub page: PageRequest,
}

/// Body of `POST /api/cart/items`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AddCartItem {
    pub product_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sku_id: Option<String>,
    pub quantity: u32,
}

/// Body of `POST /api/orders`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreateOrder {
    pub cart_id: String,
    /// When given and the re-priced cart differs: `PRICE_CHANGED`, no order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_total_cents: Option<i64>,
}

/// Answer of `GET /api/health`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Health {
    pub status: String,
}

/// Formats fen as yuan for people: `69900` → `"699"`, `1999` → `"19.99"`.
pub fn format_yuan(cents: i64) -> String {
    let sign = if cents < 0 { "-" } else { "" };
    let abs = cents.unsigned_abs();
    if abs.is_multiple_of(100) {
        format!("{sign}{}", abs / 100)
    } else {
        format!("{sign}{}.{:02}", abs / 100, abs % 100)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yuan_formatting() {
        assert_eq!(format_yuan(69900), "699");
        assert_eq!(format_yuan(1999), "19.99");
        assert_eq!(format_yuan(5), "0.05");
        assert_eq!(format_yuan(-250), "-2.50");
    }

    #[test]
    fn product_keeps_brief_fields_flat_and_ignores_extras() {
        let json = r#"{"id":"p1","name":"跑鞋","brand":"Nike","category":"shoes","price_cents":69900,
            "rating":4.5,"store_id":"s1","store_name":"Nike","in_stock":true,"sizes":["42"],
            "description":"d","skus":[{"sku_id":"k","label":"42","price_cents":69900,"stock":3}],
            "images":[],"extra_field":{"x":1}}"#;
        let p: Product = serde_json::from_str(json).expect("parses");
        assert_eq!(p.brief.id, "p1");
        assert_eq!(p.skus[0].stock, 3);
        let back = serde_json::to_value(&p).expect("serializes");
        assert_eq!(back["price_cents"], 69900);
    }
}

/// A section of the mall's own information (opening hours, parking, Wi-Fi,
/// services, policies, contacts): `GET /api/mall/info`. Chinese and English;
/// a side left empty falls back to the other.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct InfoSection {
    /// Stable id (`parking`, `service-desk`): the section with id
    /// [`InfoSection::SERVICE_DESK`] is named when nothing else answers.
    pub id: String,
    /// Chinese title.
    #[serde(default)]
    pub title: String,
    /// Chinese text (plain text or light Markdown).
    #[serde(default)]
    pub body: String,
    #[serde(default)]
    pub title_en: String,
    #[serde(default)]
    pub body_en: String,
}

impl InfoSection {
    /// The id of the section that says where the service desk is and when it is open.
    pub const SERVICE_DESK: &'static str = "service-desk";
}

/// One occurrence of an event the mall holds (a show, a workshop, a market):
/// `GET /api/mall/events`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MallEvent {
    pub id: String,
    /// Chinese title.
    pub title: String,
    #[serde(default)]
    pub title_en: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub description_en: String,
    /// RFC 3339 with the mall's UTC offset.
    pub starts_at: String,
    /// RFC 3339 with the mall's UTC offset.
    pub ends_at: String,
    /// Where it is held, in Chinese ("1F 中庭").
    #[serde(default)]
    pub place: String,
    #[serde(default)]
    pub place_en: String,
    /// The store it is held in or at, when one: routable like any store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_id: Option<String>,
    /// The area it is held in, when one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<i32>,
}

/// `from` / `to` of `GET /api/mall/events`: the occurrences that end after
/// `from` (default: now) and start before `to` (default: 14 days after `from`),
/// soonest first.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct EventQuery {
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// RFC 3339.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// An offer across the mall (`store_id` absent) or of one store, listed with
/// the others: `GET /api/mall/promotions`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct MallPromotion {
    /// Chinese title.
    pub title: String,
    #[serde(default)]
    pub title_en: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub description_en: String,
    /// RFC 3339.
    pub valid_until: String,
    /// The store whose offer it is; absent for an offer of the whole mall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_id: Option<String>,
    /// That store's Chinese name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub store_name_en: Option<String>,
}

#[cfg(test)]
mod english_texts {
    use super::*;

    #[test]
    fn objects_of_a_backend_without_english_texts_still_read() {
        let product: Product = serde_json::from_str(
            r#"{"id":"p1","name":"跑鞋","brand":"Nike","category":"shoes","price_cents":69900,"rating":4.5,
            "store_id":"s1","store_name":"Nike","in_stock":true,"sizes":[],"description":"轻量","skus":[],"images":[]}"#,
        )
        .expect("parses");
        assert_eq!(product.description_en, None);
        let promotion: Promotion = serde_json::from_str(
            r#"{"title":"9 折","description":"全场","valid_until":"2027-01-01T00:00:00+08:00"}"#,
        )
        .expect("parses");
        assert_eq!((promotion.title_en.as_str(), promotion.description_en.as_str()), ("", ""));
        let area: Area = serde_json::from_str(
            r#"{"id":"a1","name":"美食广场","name_en":"Food court","floor":5,"description":"火锅","store_ids":[]}"#,
        )
        .expect("parses");
        assert!(area.description_en.is_empty());
        // And they are left out again, as an older client expects.
        let back = serde_json::to_value(&promotion).expect("serializes");
        assert!(back.get("title_en").is_none() && back.get("description_en").is_none(), "{back}");
    }
}
