//! Answers about the cart and orders, failures, declines and tools that are
//! not offered here.

use handlers::Lang;
use handlers::format::{join, paren};
use handlers::info::ProductDetail;
use handlers::orders::ListOrdersResult;
use handlers::records::{CartResult, ItemLine, OrderCard, OrderResult};
use serde_json::Value;
use services::{OrderStatus, RefundStatus};

use super::super::conversation::{CallRecord, Conversation};
use super::date;
use super::shop::sizes_in_stock;

/// After `add_to_cart`: the item, the quantity, the cart total, "order now?".
pub(crate) fn added(args: &Value, cart: &CartResult, lang: Lang) -> String {
    let product = args.get("product_id").and_then(Value::as_str).unwrap_or("");
    let sku = args.get("sku_id").and_then(Value::as_str);
    let item = cart
        .items
        .iter()
        .find(|i| i.product_id == product && sku.is_none_or(|s| i.sku_id.as_deref() == Some(s)))
        .or(cart.items.last());
    let name = item.map(|i| item_name(i, lang)).unwrap_or_default();
    let quantity = args.get("quantity").and_then(Value::as_u64).unwrap_or(1);
    let total = cart.total_yuan.money();
    (lang.texts().answers.added)(&name, quantity, &total)
}

/// A cart line's name with its SKU label.
fn item_name(item: &ItemLine, lang: Lang) -> String {
    format!("{}{}", item.name, paren(lang, item.sku_label.as_deref().unwrap_or("")))
}

/// The cart's lines and total.
pub(crate) fn cart(cart: &CartResult, lang: Lang) -> String {
    if cart.items.is_empty() {
        return cart_empty(lang);
    }
    let answers = &lang.texts().answers;
    let mut lines = vec![answers.cart_title.to_owned()];
    lines.extend(cart_lines(&cart.items, lang));
    lines.push((answers.cart_total)(&cart.total_yuan.money()));
    lines.join("\n")
}

fn cart_lines(items: &[ItemLine], lang: Lang) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let line = item.line_total_yuan.money();
            format!("{}. {} × {} — {line}", i + 1, item_name(item, lang), item.quantity)
        })
        .collect()
}

/// After `remove_from_cart`: what is left.
pub(crate) fn removed(cart: &CartResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if cart.items.is_empty() {
        return answers.removed_empty.to_owned();
    }
    let mut lines = vec![answers.removed_title.to_owned()];
    lines.extend(cart_lines(&cart.items, lang));
    lines.push((answers.removed_total)(&cart.total_yuan.money()));
    lines.join("\n")
}

/// The cart is empty.
pub(crate) fn cart_empty(lang: Lang) -> String {
    lang.texts().answers.cart_empty.to_owned()
}

/// Which cart line to remove, with the lines.
pub(crate) fn which_cart_item(cart: &CartResult, lang: Lang) -> String {
    let mut lines = vec![lang.texts().answers.which_cart_item.to_owned()];
    lines.extend(cart_lines(&cart.items, lang));
    lines.join("\n")
}

/// "Add to cart" with no product shown yet.
pub(crate) fn which_product(lang: Lang) -> String {
    lang.texts().answers.which_product.to_owned()
}

/// An order status in the shopper's language.
fn status(status: OrderStatus, lang: Lang) -> String {
    (lang.texts().answers.status)(status).to_owned()
}

fn pickup(order: &OrderCard, lang: Lang) -> String {
    let store = &order.pickup_store;
    let name = &store.name;
    if name.is_empty() {
        return String::new();
    }
    let at = paren(lang, &store.place(lang));
    (lang.texts().answers.pickup)(name, &at)
}

/// After `create_order`: id, status, total, pickup store.
pub(crate) fn order_created(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    let status = status(order.status, lang);
    let pickup = pickup(order, lang);
    (lang.texts().answers.order_created)(id, &status, &total, &pickup)
}

/// After `get_order_status`.
pub(crate) fn order_status(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    let status = status(order.status, lang);
    let created = date(&order.created_at);
    let pickup = pickup(order, lang);
    (lang.texts().answers.order_status)(id, &status, &total, &created, &pickup)
}

/// After `cancel_order`: and for a paid order, the refund as the mall
/// answered it.
pub(crate) fn order_cancelled(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let answers = &lang.texts().answers;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    let mut answer = (answers.order_cancelled)(id, &total);
    if let Some(refund) = &order.refund {
        let amount = refund.amount_yuan.money();
        answer += &match refund.status {
            RefundStatus::Pending => (answers.refund_pending)(&amount),
            RefundStatus::Done => (answers.refund_done)(&amount),
        };
    }
    answer
}

/// The shopper's orders, newest first.
pub(crate) fn order_list(result: &ListOrdersResult, lang: Lang) -> String {
    if result.orders.is_empty() {
        return no_orders(lang);
    }
    let answers = &lang.texts().answers;
    let mut lines = vec![answers.orders_title.to_owned()];
    for (i, o) in result.orders.iter().take(10).enumerate() {
        let (id, total, count) = (&o.order_id, o.total_yuan.money(), o.item_count);
        let status = status(o.status, lang);
        let created = date(&o.created_at);
        lines.push((answers.order_line)(i + 1, id, &status, &total, count, &created));
        if !o.items.is_empty() {
            lines.push(format!("   {}", join(lang, &o.items)));
        }
    }
    lines.join("\n")
}

/// No orders at all.
pub(crate) fn no_orders(lang: Lang) -> String {
    lang.texts().answers.no_orders.to_owned()
}

/// Nothing to cancel: only unpaid orders and paid ones not yet ready can be.
pub(crate) fn no_pending_orders(had_orders: bool, lang: Lang) -> String {
    if !had_orders {
        return no_orders(lang);
    }
    lang.texts().answers.no_pending_orders.to_owned()
}

/// Nothing to pay: no order waits for payment.
pub(crate) fn no_unpaid_orders(had_orders: bool, lang: Lang) -> String {
    if !had_orders {
        return no_orders(lang);
    }
    lang.texts().answers.no_unpaid_orders.to_owned()
}

/// The shopper pressed Cancel on a confirmation.
pub(crate) fn declined(lang: Lang) -> String {
    lang.texts().answers.declined.to_owned()
}

/// The tool the shopper needs is not offered here.
pub(crate) fn unavailable(tool: &str, lang: Lang) -> String {
    if handlers::find(tool).is_some_and(|spec| spec.scope == handlers::Scope::Private) {
        return lang.texts().answers.private_only.to_owned();
    }
    lang.texts().answers.cannot_here.to_owned()
}

/// A tool failed (`Error: …`): a short explanation and what to do.
pub(crate) fn failure(call: &CallRecord, error: &str, conv: &Conversation) -> String {
    let lang = conv.lang;
    let answers = &lang.texts().answers;
    let lower = error.to_ascii_lowercase();
    if lower.contains("(out_of_stock)") {
        return out_of_stock(conv);
    }
    if lower.contains("(cart_empty)") {
        return cart_empty(lang);
    }
    if lower.contains("(order_not_cancellable)") {
        return answers.not_cancellable.to_owned();
    }
    if lower.contains("(price_changed)") {
        return answers.price_changed.to_owned();
    }
    if lower.starts_with("error: not found") {
        return not_found(&call.name, lang);
    }
    if lower.starts_with("error: not allowed") {
        return unavailable(&call.name, lang);
    }
    if lower.starts_with("error: invalid") {
        return answers.invalid.to_owned();
    }
    answers.mall_down.to_owned()
}

fn out_of_stock(conv: &Conversation) -> String {
    let lang = conv.lang;
    let sizes = conv
        .latest("get_product_detail")
        .and_then(CallRecord::result::<ProductDetail>)
        .map(|detail| sizes_in_stock(&detail))
        .unwrap_or_default();
    let answers = &lang.texts().answers;
    let mut answer = answers.no_stock.to_owned();
    if sizes.len() > 1 {
        answer += &(answers.other_sizes)(&join(lang, &sizes));
    } else {
        answer += answers.fewer;
    }
    answer
}

fn not_found(tool: &str, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    match tool {
        "navigate_to_store" | "get_store_info" => answers.store_missing,
        "navigate_to_area" => answers.area_missing,
        "get_product_detail" | "add_to_cart" => answers.product_missing,
        "get_order_status" | "cancel_order" => answers.order_missing,
        _ => answers.nothing_found,
    }
    .to_owned()
}
