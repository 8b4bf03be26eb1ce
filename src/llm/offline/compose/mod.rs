//! The offline planner's answers, written from tool results in the shopper's
//! language: shared formatting here, products, stores and directions in
//! [`shop`], cart, orders and failures in [`orders`].

mod orders;
mod shop;

use handlers::Lang;
use serde_json::Value;

use super::conversation::{CallRecord, Conversation};
use super::intent::Intent;

pub(crate) use orders::{
    cart_empty, declined, failure, no_orders, no_pending_orders, unavailable, which_cart_item, which_product,
};
pub(crate) use shop::{
    ask_size, ask_what_to_search, no_such_item, nothing_listed, product_detail, size_unavailable,
};

/// The answer to a successful call that ends the turn.
pub(crate) fn answer(intent: &Intent, call: &CallRecord, data: &Value, conv: &Conversation) -> String {
    let lang = conv.lang;
    match call.name.as_str() {
        "search_products" => {
            let cheap = matches!(intent, Intent::SearchProducts(q) if q.cheap);
            shop::product_list(&call.args, data, cheap, lang)
        }
        "get_product_detail" => product_detail(data, lang, others_listed(intent, conv)),
        "search_stores" => shop::store_list(data, lang),
        "get_store_info" => shop::store_info(data, lang),
        "navigate_to_store" => shop::route(data, lang),
        "navigate_to_area" => shop::area(data, lang),
        "add_to_cart" => orders::added(&call.args, data, lang),
        "view_cart" => orders::cart(data, lang),
        "remove_from_cart" => orders::removed(data, lang),
        "clear_cart" => pick(lang, "购物车已清空。", "Your cart is now empty."),
        "create_order" => orders::order_created(data, lang),
        "get_order_status" => orders::order_status(data, lang),
        "cancel_order" => orders::order_cancelled(data, lang),
        "list_orders" => orders::order_list(data, lang),
        _ => pick(lang, "好的，已完成。", "Done."),
    }
}

/// The shopper-facing text of a cart (`view_cart`'s data).
pub fn cart_text(data: &Value, lang: Lang) -> String {
    orders::cart(data, lang)
}

/// The shopper-facing text of a list of orders (`list_orders`'s data).
pub fn orders_text(data: &Value, lang: Lang) -> String {
    orders::order_list(data, lang)
}

/// How many other products the search of this buying turn found.
fn others_listed(intent: &Intent, conv: &Conversation) -> usize {
    if !matches!(intent, Intent::SearchProducts(_)) {
        return 0;
    }
    let search = conv.turn_calls().rev().find(|c| c.name == "search_products");
    search.and_then(CallRecord::data).map_or(0, |d| list(d, "products").len().saturating_sub(1))
}

/// The Chinese or the English text, owned.
pub(crate) fn pick(lang: Lang, zh: &str, en: &str) -> String {
    lang.pick(zh, en).to_owned()
}

/// A string field, or `""`.
pub(crate) fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// An array field, or an empty list.
pub(crate) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v.get(key).and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[])
}

/// A price in yuan as people write it: `699`, `19.9`.
pub(crate) fn yuan(v: Option<&Value>) -> String {
    match v {
        Some(Value::Number(n)) => n.as_f64().map(format_amount).unwrap_or_else(|| n.to_string()),
        Some(Value::String(s)) => s.clone(),
        _ => "?".to_owned(),
    }
}

fn format_amount(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.2}").trim_end_matches('0').to_owned() }
}

/// A rating with one decimal, if there is one.
pub(crate) fn rating(v: &Value) -> Option<String> {
    v.get("rating").or_else(|| v.get("average_rating")).and_then(Value::as_f64).map(|r| format!("{r:.1}"))
}

/// A floor: `3楼` / `floor 3`, basements `B1`.
pub(crate) fn floor(v: Option<&Value>, lang: Lang) -> String {
    let number = match v {
        Some(Value::Number(n)) => n.as_i64(),
        Some(Value::String(s)) => match s.trim().parse::<i64>() {
            Ok(n) => Some(n),
            Err(_) => return s.clone(),
        },
        _ => None,
    };
    match (number, lang) {
        (None, _) => String::new(),
        (Some(n), _) if n < 0 => format!("B{}", -n),
        (Some(n), Lang::Zh) => format!("{n}楼"),
        (Some(n), Lang::En) => format!("floor {n}"),
    }
}

/// Floor and unit of a store object: `3楼 L3-01` / `floor 3, unit L3-01`.
pub(crate) fn place(store: &Value, lang: Lang) -> String {
    let floor = floor(store.get("floor"), lang);
    let unit = match (text(store, "unit"), lang) {
        ("", _) => String::new(),
        (unit, Lang::Zh) => unit.to_owned(),
        (unit, Lang::En) => format!("unit {unit}"),
    };
    let sep = lang.pick(" ", ", ");
    [floor, unit].into_iter().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(sep)
}

/// A store's name in the shopper's language.
pub(crate) fn store_name(store: &Value, lang: Lang) -> String {
    let (zh, en) = (text(store, "name"), text(store, "name_en"));
    match lang {
        Lang::En if !en.is_empty() => en.to_owned(),
        _ => zh.to_owned(),
    }
}

/// A list joined the way each language writes it: `40、41、42` / `40, 41, 42`.
pub(crate) fn join(items: &[String], lang: Lang) -> String {
    items.join(lang.pick("、", ", "))
}

/// A remark in brackets: `（42）` / ` (42)`; nothing when empty.
pub(crate) fn paren(inner: &str, lang: Lang) -> String {
    match (inner.is_empty(), lang) {
        (true, _) => String::new(),
        (false, Lang::Zh) => format!("（{inner}）"),
        (false, Lang::En) => format!(" ({inner})"),
    }
}

/// The date part of an RFC 3339 time.
pub(crate) fn date(v: &Value, key: &str) -> String {
    text(v, key).chars().take(10).collect()
}

/// Cuts a long text at `max` characters.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}
