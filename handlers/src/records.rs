//! The typed pieces tool results are made of: prices in yuan, stores, cart
//! lines, carts and orders. Each serialises to the compact JSON the model
//! reads and reads back from it, so the offline planner and tests use the
//! same types the tools return.
//!
//! Results are written for the shopper's language, names in it and never both
//! (the mall's `name_en` is what English shoppers read); `None`, `false`
//! flags and empty lists are left out; a search hit is what a recommendation
//! needs (id, name, price, rating, sizes in stock, store, floor), five at
//! most. `tests/token_budget.rs` counts what they cost.

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use services::{Cart, CartItem, Order, OrderStatus, RefundStatus, Store};

use crate::Lang;

/// A price, kept in fen, written as a JSON number of yuan: `69900` → `699`,
/// `1999` → `19.99`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Yuan(pub i64);

impl Yuan {
    /// The price in fen.
    pub fn cents(self) -> i64 {
        self.0
    }

    /// The price as a number of yuan.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 100.0
    }

    /// `¥699`, `¥19.99`.
    pub fn money(self) -> String {
        crate::format::money(self.0)
    }
}

impl Serialize for Yuan {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.0 % 100 == 0 {
            serializer.serialize_i64(self.0 / 100)
        } else {
            serializer.serialize_f64(self.as_f64())
        }
    }
}

impl schemars::JsonSchema for Yuan {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Yuan".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({"type": "number", "description": "Yuan (699, 19.99)"})
    }
}

impl<'de> Deserialize<'de> for Yuan {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let yuan = f64::deserialize(deserializer)?;
        Ok(Yuan((yuan * 100.0).round() as i64))
    }
}

/// A rating as a short number (`4.7`, not `4.699999809265137`).
pub fn rating(value: f32) -> f64 {
    (f64::from(value) * 100.0).round() / 100.0
}

/// A store in full, as search results and `get_store_info` show it, named in
/// the shopper's language.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct StoreCard {
    pub store_id: String,
    pub name: String,
    pub category: String,
    pub floor: i32,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub unit: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub open_hours: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phone: String,
}

impl StoreCard {
    /// The store, named in the shopper's language.
    pub fn new(store: &Store, lang: Lang) -> Self {
        StoreCard {
            store_id: store.id.clone(),
            name: crate::format::store_name(lang, store).into_owned(),
            category: crate::format::mall_text(lang, &store.category).into_owned(),
            floor: store.floor,
            unit: store.unit.clone(),
            open_hours: crate::format::opening_hours(lang, &store.open_hours),
            phone: store.phone.clone(),
        }
    }
}

/// A store in short: its id, its name in the shopper's language and where it
/// is; name and place are left out when it could not be looked up (an order
/// already placed still shows).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct StoreRef {
    pub store_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub floor: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

impl StoreRef {
    /// The store, named in the shopper's language.
    pub fn new(store: &Store, lang: Lang) -> Self {
        StoreRef {
            store_id: store.id.clone(),
            name: crate::format::store_name(lang, store).into_owned(),
            floor: Some(store.floor),
            unit: Some(store.unit.clone()).filter(|u| !u.trim().is_empty()),
        }
    }

    /// A store known only by id and maybe name.
    pub fn unknown(store_id: &str, name: Option<&str>) -> Self {
        StoreRef { store_id: store_id.to_owned(), name: name.unwrap_or("").to_owned(), ..Default::default() }
    }

    /// Floor and unit for people (see [`crate::format::floor_and_unit`]).
    pub fn place(&self, lang: Lang) -> String {
        crate::format::floor_and_unit(lang, self.floor, self.unit.as_deref().unwrap_or(""))
    }
}

/// A cart or order line; `name` is in the shopper's language.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct ItemLine {
    pub item_id: String,
    pub product_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sku_id: Option<String>,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sku_label: Option<String>,
    pub quantity: u32,
    pub unit_price_yuan: Yuan,
    pub line_total_yuan: Yuan,
}

impl ItemLine {
    /// The line, its product named in the shopper's language.
    pub fn new(item: &CartItem, lang: Lang) -> Self {
        ItemLine {
            item_id: item.item_id.clone(),
            product_id: item.product_id.clone(),
            sku_id: item.sku_id.clone(),
            name: crate::format::item_name(lang, item).into_owned(),
            sku_label: item.sku_label.as_deref().map(|l| crate::format::mall_text(lang, l).into_owned()),
            quantity: item.quantity,
            unit_price_yuan: Yuan(item.unit_price_cents),
            line_total_yuan: Yuan(item.line_total_cents),
        }
    }
}

/// What every cart tool returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default)]
pub struct CartResult {
    pub cart_id: String,
    pub items: Vec<ItemLine>,
    pub total_yuan: Yuan,
}

impl CartResult {
    /// The cart, its products named in the shopper's language.
    pub fn new(cart: &Cart, lang: Lang) -> Self {
        CartResult {
            cart_id: cart.cart_id.clone(),
            items: cart.items.iter().map(|i| ItemLine::new(i, lang)).collect(),
            total_yuan: Yuan(cart.total_cents),
        }
    }
}

/// One order with its lines and pickup store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrderCard {
    pub order_id: String,
    pub status: OrderStatus,
    #[serde(default)]
    pub items: Vec<ItemLine>,
    pub total_yuan: Yuan,
    #[serde(default)]
    pub created_at: String,
    #[serde(default)]
    pub pickup_store: StoreRef,
    /// The refund of a paid order that was cancelled, as the mall answered it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<RefundCard>,
}

/// The refund of a cancelled paid order: where it stands and how much.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RefundCard {
    pub status: RefundStatus,
    pub amount_yuan: Yuan,
}

/// What every single-order tool returns: `{"order": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct OrderResult {
    pub order: OrderCard,
    /// The coupon used on it: the items' subtotal and the discount (the
    /// order's total is after it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupon: Option<AppliedCoupon>,
}

/// A coupon used on an order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct AppliedCoupon {
    pub coupon_id: String,
    pub title: String,
    pub subtotal_yuan: Yuan,
    pub discount_yuan: Yuan,
}

impl OrderResult {
    /// The order with its pickup store, when it could be looked up, in the
    /// shopper's language.
    pub fn new(order: &Order, pickup: Option<&Store>, lang: Lang) -> Self {
        let pickup_store = match pickup {
            Some(store) => StoreRef::new(store, lang),
            None => StoreRef::unknown(&order.pickup_store_id, None),
        };
        OrderResult {
            order: OrderCard {
                order_id: order.order_id.clone(),
                status: order.status,
                items: order.items.iter().map(|i| ItemLine::new(i, lang)).collect(),
                total_yuan: Yuan(order.total_cents),
                created_at: order.created_at.clone(),
                pickup_store,
                refund: order
                    .refund
                    .as_ref()
                    .map(|r| RefundCard { status: r.status, amount_yuan: Yuan(r.amount_cents) }),
            },
            coupon: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yuan_is_a_plain_json_number_both_ways() {
        let json = |cents| serde_json::to_string(&Yuan(cents)).expect("serialises");
        assert_eq!((json(69900), json(1999), json(5)), ("699".into(), "19.99".into(), "0.05".into()));
        let read = |text: &str| serde_json::from_str::<Yuan>(text).expect("reads");
        assert_eq!((read("699"), read("19.99"), read("499.0")), (Yuan(69900), Yuan(1999), Yuan(49900)));
        assert_eq!(rating(4.7).to_string(), "4.7");
    }
}

/// What `search_products` returns: the number of matches and the best ones.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SearchProductsResult {
    pub total: u64,
    pub products: Vec<ProductHit>,
}

/// One product found: what a recommendation needs and nothing else. Names
/// are in the shopper's language; what is unknown or empty is left out.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProductHit {
    pub product_id: String,
    pub name: String,
    /// In yuan.
    pub price: Yuan,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    /// The sizes (SKU labels) in stock.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// Set only when nothing is in stock.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sold_out: bool,
    /// The store's name.
    pub store: String,
    /// The store's floor as shoppers write it (`3楼`, `3F`, `B1`); absent
    /// when the store could not be looked up.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub floor: String,
}
