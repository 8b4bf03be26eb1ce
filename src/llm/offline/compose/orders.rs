//! Answers about the cart and orders, failures, declines and tools that are
//! not offered here.

use handlers::Lang;
use handlers::format::{join, paren};
use handlers::info::ProductDetail;
use handlers::orders::ListOrdersResult;
use handlers::records::{CartResult, ItemLine, OrderCard, OrderResult};
use serde_json::Value;
use services::OrderStatus;

use super::super::conversation::{CallRecord, Conversation};
use super::shop::sizes_in_stock;
use super::{date, pick};

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
    match lang {
        Lang::Zh => format!("已加入购物车：{name} × {quantity}，购物车合计 {total}。要现在下单吗？"),
        Lang::En => format!(
            "Added to your cart: {name} × {quantity}. Cart total: {total}. Shall I place the order now?"
        ),
    }
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
    let mut lines = vec![pick(lang, "购物车里有：", "Your cart:")];
    lines.extend(cart_lines(&cart.items, lang));
    lines.push(match lang {
        Lang::Zh => format!("合计 {}。要下单吗？", cart.total_yuan.money()),
        Lang::En => format!("Total: {}. Shall I place the order?", cart.total_yuan.money()),
    });
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
    if cart.items.is_empty() {
        return pick(lang, "已删除，购物车现在是空的。", "Removed. Your cart is now empty.");
    }
    let mut lines = vec![pick(lang, "已删除。购物车里还有：", "Removed. Still in your cart:")];
    lines.extend(cart_lines(&cart.items, lang));
    lines.push(match lang {
        Lang::Zh => format!("合计 {}。", cart.total_yuan.money()),
        Lang::En => format!("Total: {}.", cart.total_yuan.money()),
    });
    lines.join("\n")
}

/// The cart is empty.
pub(crate) fn cart_empty(lang: Lang) -> String {
    pick(lang, "购物车是空的，先挑几件商品吧。", "Your cart is empty — pick something first.")
}

/// Which cart line to remove, with the lines.
pub(crate) fn which_cart_item(cart: &CartResult, lang: Lang) -> String {
    let mut lines = vec![pick(
        lang,
        "要删除哪一件？比如“删掉第一件”：",
        "Which item should I remove? E.g. \"remove the first item\":",
    )];
    lines.extend(cart_lines(&cart.items, lang));
    lines.join("\n")
}

/// "Add to cart" with no product shown yet.
pub(crate) fn which_product(lang: Lang) -> String {
    pick(
        lang,
        "您想加购哪件商品？先告诉我您想找什么吧。",
        "Which product should I add? Tell me what you are looking for first.",
    )
}

/// An order status in the shopper's language.
fn status(status: OrderStatus, lang: Lang) -> String {
    let (zh, en) = match status {
        OrderStatus::PendingPayment => ("待支付", "pending payment"),
        OrderStatus::Paid => ("已支付", "paid"),
        OrderStatus::Cancelled => ("已取消", "cancelled"),
        OrderStatus::Completed => ("已完成", "completed"),
    };
    pick(lang, zh, en)
}

fn pickup(order: &OrderCard, lang: Lang) -> String {
    let store = &order.pickup_store;
    let name = store.local_name(lang);
    if name.is_empty() {
        return String::new();
    }
    let at = paren(lang, &store.place(lang));
    match lang {
        Lang::Zh => format!("取货门店：{name}{at}。"),
        Lang::En => format!(" Pick up at {name}{at}."),
    }
}

/// After `create_order`: id, status, total, pickup store.
pub(crate) fn order_created(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    let status = status(order.status, lang);
    let pickup = pickup(order, lang);
    match lang {
        Lang::Zh => format!("下单成功！订单号 {id}，状态：{status}，合计 {total}。{pickup}"),
        Lang::En => format!("Order placed! Order {id} — status: {status}, total {total}.{pickup}"),
    }
}

/// After `get_order_status`.
pub(crate) fn order_status(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    let status = status(order.status, lang);
    let created = date(&order.created_at);
    let pickup = pickup(order, lang);
    match lang {
        Lang::Zh => format!("订单 {id}：{status}，合计 {total}，下单日期 {created}。{pickup}"),
        Lang::En => format!("Order {id}: {status}, total {total}, placed on {created}.{pickup}"),
    }
}

/// After `cancel_order`.
pub(crate) fn order_cancelled(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    match lang {
        Lang::Zh => format!("订单 {id} 已取消（{total}），商品已退回库存。"),
        Lang::En => format!("Order {id} ({total}) has been cancelled."),
    }
}

/// The shopper's orders, newest first.
pub(crate) fn order_list(result: &ListOrdersResult, lang: Lang) -> String {
    if result.orders.is_empty() {
        return no_orders(lang);
    }
    let mut lines = vec![pick(lang, "您的订单：", "Your orders:")];
    for (i, o) in result.orders.iter().take(10).enumerate() {
        let (id, total, count) = (&o.order_id, o.total_yuan.money(), o.item_count);
        let status = status(o.status, lang);
        let created = date(&o.created_at);
        lines.push(match lang {
            Lang::Zh => format!("{}. {id} — {status}，{total}，{count} 件，{created}", i + 1),
            Lang::En => format!("{}. {id} — {status}, {total}, {count} items, {created}", i + 1),
        });
    }
    lines.join("\n")
}

/// No orders at all.
pub(crate) fn no_orders(lang: Lang) -> String {
    pick(lang, "您还没有订单。", "You have no orders yet.")
}

/// Nothing to cancel: only unpaid orders can be cancelled.
pub(crate) fn no_pending_orders(had_orders: bool, lang: Lang) -> String {
    if !had_orders {
        return no_orders(lang);
    }
    pick(
        lang,
        "您没有待支付的订单，没有可以取消的订单（只有待支付的订单可以取消）。",
        "You have no order pending payment, so there is nothing to cancel (only unpaid orders can be cancelled).",
    )
}

/// The shopper pressed Cancel on a confirmation.
pub(crate) fn declined(lang: Lang) -> String {
    pick(lang, "好的，已取消，没有做任何更改。", "OK, cancelled — nothing was changed.")
}

/// The tool the shopper needs is not offered here.
pub(crate) fn unavailable(tool: &str, lang: Lang) -> String {
    if handlers::find(tool).is_some_and(|spec| spec.scope == handlers::Scope::Private) {
        return pick(
            lang,
            "购物车和订单只能在私聊中使用，请私聊我继续。",
            "The cart and orders are only available in a private chat — please message me directly.",
        );
    }
    pick(lang, "抱歉，这里暂时不能做这件事。", "Sorry, I can't do that here.")
}

/// A tool failed (`Error: …`): a short explanation and what to do.
pub(crate) fn failure(call: &CallRecord, error: &str, conv: &Conversation) -> String {
    let lang = conv.lang;
    let lower = error.to_ascii_lowercase();
    if lower.contains("(out_of_stock)") {
        return out_of_stock(conv);
    }
    if lower.contains("(cart_empty)") {
        return cart_empty(lang);
    }
    if lower.contains("(order_not_cancellable)") {
        return pick(
            lang,
            "这个订单已经不能取消了：只有待支付的订单可以取消。",
            "That order can no longer be cancelled: only orders pending payment can be.",
        );
    }
    if lower.contains("(price_changed)") {
        return pick(
            lang,
            "商品价格有变动，订单没有创建。请先看看购物车里的最新价格再下单。",
            "Prices have changed, so no order was placed. Please check your cart's new total and order again.",
        );
    }
    if lower.starts_with("error: not found") {
        return not_found(&call.name, lang);
    }
    if lower.starts_with("error: not allowed") {
        return unavailable(&call.name, lang);
    }
    if lower.starts_with("error: invalid") {
        return pick(
            lang,
            "抱歉，我没能处理这个请求，换个说法试试？",
            "Sorry, I couldn't handle that request. Could you rephrase it?",
        );
    }
    pick(
        lang,
        "抱歉，商场系统暂时没有响应，请稍后再试。",
        "Sorry, the mall's system isn't responding right now. Please try again in a minute.",
    )
}

fn out_of_stock(conv: &Conversation) -> String {
    let lang = conv.lang;
    let sizes = conv
        .latest("get_product_detail")
        .and_then(CallRecord::result::<ProductDetail>)
        .map(|detail| sizes_in_stock(&detail))
        .unwrap_or_default();
    let mut answer =
        pick(lang, "抱歉，库存不足，没能加入购物车。", "Sorry, there isn't enough stock for that.");
    if sizes.len() > 1 {
        answer += &match lang {
            Lang::Zh => format!("目前有货的尺码：{}，换一个试试？", join(lang, &sizes)),
            Lang::En => format!(" Sizes in stock: {}. Would another size do?", join(lang, &sizes)),
        };
    } else {
        answer +=
            lang.pick("可以少买几件，或者看看别的商品。", " Try a smaller quantity or another product.");
    }
    answer
}

fn not_found(tool: &str, lang: Lang) -> String {
    let (zh, en) = match tool {
        "navigate_to_store" | "get_store_info" => (
            "没有找到这家店。可以说“找一家咖啡店”这样搜索店铺。",
            "I couldn't find that store. Try a search such as \"find a coffee shop\".",
        ),
        "navigate_to_area" => {
            ("没有找到这个区域，换个说法试试？", "I couldn't find that area. Could you say it another way?")
        }
        "get_product_detail" | "add_to_cart" => {
            ("没有找到这件商品，重新搜索一下吧。", "I couldn't find that product. Let's search again.")
        }
        "get_order_status" | "cancel_order" => (
            "没有找到这个订单。说“我的订单”可以查看全部订单。",
            "I couldn't find that order. Say \"my orders\" to see them all.",
        ),
        _ => ("没有找到相关内容，搜索一下试试？", "I couldn't find that. Try a search?"),
    };
    pick(lang, zh, en)
}
