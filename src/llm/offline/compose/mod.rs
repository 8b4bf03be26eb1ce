//! The offline planner's answers, written from the tools' typed results in
//! the shopper's language: dispatch and small helpers here, products, stores
//! and directions in [`shop`], cart, orders and failures in [`orders`].
//! Prices, floors, places and names use `handlers::format`, the rules the
//! tools' own previews use.

mod orders;
mod shop;

use handlers::Lang;
use handlers::info::{ProductDetail, StoreInfoResult};
use handlers::navigation::{NavigateToAreaResult, NavigateToStoreResult};
use handlers::orders::ListOrdersResult;
use handlers::records::{CartResult, OrderResult};
use handlers::search::{SearchProductsArgs, SearchProductsResult, SearchStoresResult};
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::conversation::{CallRecord, Conversation};
use super::intent::Intent;

pub(crate) use orders::{
    cart_empty, declined, failure, no_orders, no_pending_orders, no_unpaid_orders, unavailable,
    which_cart_item, which_product,
};
pub(crate) use shop::{
    ask_size, ask_what_to_search, no_such_item, nothing_listed, product_detail, size_unavailable,
};

/// A tool's JSON result read back as its type; `None` when it is not that shape.
pub(crate) fn read<T: DeserializeOwned>(data: &Value) -> Option<T> {
    match T::deserialize(data) {
        Ok(typed) => Some(typed),
        Err(error) => {
            tracing::debug!(%error, "offline planner: a tool result of an unexpected shape");
            None
        }
    }
}

/// The answer to a successful call that ends the turn.
pub(crate) fn answer(intent: &Intent, call: &CallRecord, data: &Value, conv: &Conversation) -> String {
    let lang = conv.lang;
    let answer = match call.name.as_str() {
        "search_products" => read::<SearchProductsResult>(data).map(|result| {
            let cheap = matches!(intent, Intent::SearchProducts(q) if q.cheap);
            let args = read::<SearchProductsArgs>(&call.args);
            shop::product_list(args.as_ref(), &result, cheap, lang)
        }),
        "get_product_detail" => read::<ProductDetail>(data)
            .map(|detail| product_detail(&detail, lang, others_listed(intent, conv))),
        "search_stores" => read::<SearchStoresResult>(data).map(|r| shop::store_list(&r, lang)),
        "get_store_info" => read::<StoreInfoResult>(data).map(|r| shop::store_info(&r, lang)),
        "navigate_to_store" => read::<NavigateToStoreResult>(data).map(|r| shop::route(&r, lang)),
        "navigate_to_area" => read::<NavigateToAreaResult>(data).map(|r| shop::area(&r, lang)),
        "add_to_cart" => read::<CartResult>(data).map(|cart| orders::added(&call.args, &cart, lang)),
        "view_cart" => read::<CartResult>(data).map(|cart| orders::cart(&cart, lang)),
        "remove_from_cart" => read::<CartResult>(data).map(|cart| orders::removed(&cart, lang)),
        "clear_cart" => Some(lang.texts().answers.cart_cleared.to_owned()),
        "create_order" => read::<OrderResult>(data).map(|r| orders::order_created(&r, lang)),
        "get_order_status" => read::<OrderResult>(data).map(|r| orders::order_status(&r, lang)),
        "cancel_order" => read::<OrderResult>(data).map(|r| orders::order_cancelled(&r, lang)),
        "list_orders" => read::<ListOrdersResult>(data).map(|r| orders::order_list(&r, lang)),
        other => {
            let texts = lang.texts();
            let hook = handlers::find(other).and_then(|spec| spec.offline);
            hook.and_then(|hook| (hook.answer)(texts.tool_lang, data)).map(texts.tool_text)
        }
    };
    answer.unwrap_or_else(|| lang.texts().answers.done.to_owned())
}

/// The shopper-facing text of a cart (`view_cart`'s data).
pub fn cart_text(data: &Value, lang: Lang) -> String {
    read::<CartResult>(data).map(|cart| orders::cart(&cart, lang)).unwrap_or_else(|| cart_empty(lang))
}

/// The shopper-facing text of a list of orders (`list_orders`'s data).
pub fn orders_text(data: &Value, lang: Lang) -> String {
    read::<ListOrdersResult>(data).map(|r| orders::order_list(&r, lang)).unwrap_or_else(|| no_orders(lang))
}

/// How many other products the search of this buying turn found.
fn others_listed(intent: &Intent, conv: &Conversation) -> usize {
    if !matches!(intent, Intent::SearchProducts(_)) {
        return 0;
    }
    let search = conv.turn_calls().rev().find(|c| c.name == "search_products");
    search
        .and_then(CallRecord::result::<SearchProductsResult>)
        .map_or(0, |r| r.products.len().saturating_sub(1))
}

/// A rating with one decimal.
pub(crate) fn rating(value: f64) -> String {
    format!("{value:.1}")
}

/// The date part of an RFC 3339 time.
pub(crate) fn date(time: &str) -> String {
    time.chars().take(10).collect()
}

/// Cuts a long text at `max` characters.
pub(crate) fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_owned()
    } else {
        format!("{}…", s.chars().take(max).collect::<String>())
    }
}
