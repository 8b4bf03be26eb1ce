//! The shopper's orders: place one from the cart, cancel one, look them up.
//! Placing and cancelling are critical: the shopper sees the whole order first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use services::{
    Cart, CreateOrder, MyCoupon, Order, OrderStatus, PageRequest, RefundStatus, ServiceError, Store,
};

use crate::basic::{Answering, Call, Reply, Said, Step, date, extract, read};
use crate::format::money;
use crate::format::{item_label, item_name, items_and_total, join, paren, store_place};
use crate::general::{NoArguments, idempotency_key, store_for_display};
use crate::loyalty::{refuse, say};
use crate::records::{AppliedCoupon, CartResult, OrderCard, OrderResult, Yuan};
use crate::{
    HelpLine, Lang, OfflineHook, Preview, ToolContext, ToolError, ToolOutput, ToolResult, tool_function,
};

/// Orders `list_orders` shows.
const LISTED_ORDERS: u32 = 10;

/// The `/help` line of the order tools.
pub static HELP_ORDERS: HelpLine = HelpLine {
    zh: "📦 下单与订单：核对后下单到店取货，查询或取消订单",
    en: "📦 Orders: check and place an order for pickup, look up or cancel orders",
};

/// Arguments of `create_order`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateOrderArgs {
    pub cart_id: String,
    /// Claimed coupon's id or "best"
    pub coupon_id: Option<String>,
}

fn create_order_progress(lang: Lang, _args: &CreateOrderArgs) -> String {
    match lang {
        Lang::En => "📦 Placing your order…",
        _ => "📦 正在下单…",
    }
    .to_owned()
}

/// Order the shopper's cart for pickup in the mall.
#[tool_function(level = "critical", scope = "private", preview = preview_create_order, progress = create_order_progress, help = HELP_ORDERS, offline = CREATE_ORDER_OFFLINE)]
pub async fn create_order(ctx: &ToolContext, args: CreateOrderArgs) -> ToolResult<OrderResult> {
    let agreed = ctx.approval.as_ref().map(|approval| &approval.preview.fingerprint);
    let expected_total_cents = agreed.and_then(|f| f.get("total_cents")).and_then(Value::as_i64);
    let request = CreateOrder { cart_id: args.cart_id.trim().to_owned(), expected_total_cents };
    let Some(wanted) = coupon_wanted(&args) else {
        let order = ctx.mall.create_order(&ctx.shopper, &request, idempotency_key(ctx)).await?;
        return single_order_output(ctx, &order).await;
    };
    // The coupon agreed to (the preview resolved "best"), else the one asked for.
    let coupon_id = match agreed.and_then(|f| f.get("coupon_id")).and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None => {
            let (cart, _) = plan_order(ctx, &args).await?;
            plan_coupon(ctx, wanted, &cart).await?.coupon.coupon_id
        }
    };
    let held = ctx.mall.my_coupons(&ctx.shopper).await.map_err(|e| refuse(ctx.lang, e))?;
    let title = held
        .items
        .iter()
        .find(|m| m.coupon.coupon_id == coupon_id)
        .map(|m| crate::format::local_text(ctx.lang, &m.coupon.title, &m.coupon.title_en).into_owned())
        .unwrap_or_else(|| coupon_id.clone());
    let placed = ctx
        .mall
        .create_order_with_coupon(&ctx.shopper, &request, &coupon_id, idempotency_key(ctx))
        .await
        .map_err(|e| refuse(ctx.lang, e))?;
    let mut output = single_order_output(ctx, &placed.order).await?;
    output.data.coupon = Some(AppliedCoupon {
        coupon_id,
        title,
        subtotal_yuan: Yuan(placed.subtotal_cents),
        discount_yuan: Yuan(placed.discount_cents),
    });
    Ok(output)
}

/// The coupon asked for, if any.
fn coupon_wanted(args: &CreateOrderArgs) -> Option<&str> {
    args.coupon_id.as_deref().map(str::trim).filter(|c| !c.is_empty())
}

/// The whole order: every line with size, quantity and line total, the
/// total, and the pickup store; with a coupon, the subtotal, the discount
/// and the total to pay. The fingerprint holds the figures agreed to.
pub async fn preview_create_order(ctx: &ToolContext, args: CreateOrderArgs) -> Result<Preview, ToolError> {
    let (cart, pickup) = plan_order(ctx, &args).await?;
    let lang = ctx.lang;
    let mut summary = format!(
        "{}\n{}",
        lang.texts().tools.order_preview,
        items_and_total(lang, &cart.items, cart.total_cents),
    );
    let items: Vec<Value> =
        cart.items.iter().map(|i| json!([i.product_id, i.sku_id, i.quantity, i.unit_price_cents])).collect();
    let mut fingerprint = json!({"cart_id": cart.cart_id, "total_cents": cart.total_cents, "items": items});
    if let Some(wanted) = coupon_wanted(&args) {
        let held = plan_coupon(ctx, wanted, &cart).await?;
        let coupon = &held.coupon;
        let title = crate::format::local_text(lang, &coupon.title, &coupon.title_en);
        // The mall takes off at most what the items come to.
        let off = coupon.discount_cents.min(cart.total_cents);
        summary.push('\n');
        summary += &discount_lines(lang, &title, cart.total_cents, off);
        fingerprint["coupon_id"] = json!(coupon.coupon_id);
        fingerprint["discount_cents"] = json!(off);
    }
    summary += &format!("\n{}{}", lang.texts().tools.pickup, store_place(lang, &pickup));
    Ok(Preview { summary, fingerprint })
}

/// "小计 ¥699 · 优惠券「全场满300减50」-¥50 · 实付 ¥649".
pub fn discount_lines(lang: Lang, title: &str, subtotal_cents: i64, discount_cents: i64) -> String {
    let (subtotal, off) = (money(subtotal_cents), money(discount_cents));
    let total = money((subtotal_cents - discount_cents).max(0));
    say(
        lang,
        format!("小计 {subtotal}\n🎟 优惠券「{title}」-{off}\n实付 {total}"),
        format!("Subtotal {subtotal}\n🎟 Coupon \"{title}\" -{off}\nTotal to pay {total}"),
    )
}

/// The shopper's coupon for this cart: the one named (its id), or with
/// "best" the held coupon that takes most off; one that does not apply is
/// refused with the reason, before the shopper agrees to anything.
async fn plan_coupon(ctx: &ToolContext, wanted: &str, cart: &Cart) -> Result<MyCoupon, ToolError> {
    let lang = ctx.lang;
    let held = ctx.mall.my_coupons(&ctx.shopper).await.map_err(|e| refuse(lang, e))?.items;
    let mut stores = Vec::new();
    for item in &cart.items {
        let store = ctx.mall.get_product(&item.product_id).await?.brief.store_id;
        if !stores.contains(&store) {
            stores.push(store);
        }
    }
    let not_applicable = |message: String| ToolError::Refused { code: "COUPON_NOT_APPLICABLE", message };
    let fits = |m: &MyCoupon| coupon_misfit(lang, m, cart.total_cents, &stores);
    if wanted.eq_ignore_ascii_case("best") {
        let mut usable: Vec<&MyCoupon> = held.iter().filter(|m| fits(m).is_none()).collect();
        usable.sort_by_key(|m| -m.coupon.discount_cents);
        if let Some(best) = usable.first() {
            return Ok((*best).clone());
        }
        // Why the usable ones do not fit, else why the others cannot be used (used, expired).
        let why = held
            .iter()
            .filter(|m| m.status == "AVAILABLE")
            .find_map(&fits)
            .or_else(|| held.iter().find_map(&fits));
        return Err(not_applicable(match why {
            Some(why) => say(
                lang,
                format!("您的优惠券都不能用于这笔订单：{why}。订单没有创建。"),
                format!("None of your coupons applies to this order: {why}. No order was placed."),
            ),
            None => say(
                lang,
                "您还没有可用的优惠券。说「有什么券」看看可以领的。订单没有创建。",
                "You have no coupon to use. Ask \"any coupons?\" to see what you can claim. No order was placed.",
            ),
        }));
    }
    let coupons: Vec<services::Coupon> = held.iter().map(|m| m.coupon.clone()).collect();
    let Some(chosen) = crate::loyalty::match_coupon(&coupons, wanted)
        .and_then(|c| held.iter().find(|m| m.coupon.coupon_id == c.coupon_id))
    else {
        return Err(not_applicable(say(
            lang,
            "您还没有领这张券，先说「领取」加券名。订单没有创建。",
            "You have not claimed that coupon yet: say \"claim\" and its name first. No order was placed.",
        )));
    };
    match fits(chosen) {
        None => Ok(chosen.clone()),
        Some(why) => Err(not_applicable(say(
            lang,
            format!("这张券不能用于这笔订单：{why}。订单没有创建。"),
            format!("That coupon does not apply to this order: {why}. No order was placed."),
        ))),
    }
}

/// Why a held coupon does not apply to an order of `total_cents` from `stores`; `None`: it does.
pub fn coupon_misfit(lang: Lang, held: &MyCoupon, total_cents: i64, stores: &[String]) -> Option<String> {
    let coupon = &held.coupon;
    let title = crate::format::local_text(lang, &coupon.title, &coupon.title_en);
    match held.status.as_str() {
        "USED" => {
            return Some(say(lang, format!("「{title}」已经用过了"), format!("\"{title}\" is already used")));
        }
        "EXPIRED" => {
            return Some(say(lang, format!("「{title}」已过期"), format!("\"{title}\" has expired")));
        }
        _ => {}
    }
    if total_cents < coupon.min_spend_cents {
        let (min, total) = (money(coupon.min_spend_cents), money(total_cents));
        return Some(say(
            lang,
            format!("「{title}」要满 {min} 才能用，这笔订单是 {total}"),
            format!("\"{title}\" needs a spend of {min}; this order is {total}"),
        ));
    }
    if !coupon.store_ids.is_empty() && !stores.iter().all(|s| coupon.store_ids.contains(s)) {
        return Some(say(
            lang,
            format!("「{title}」仅限指定门店的商品使用"),
            format!("\"{title}\" is only valid at its stores"),
        ));
    }
    None
}

/// The shopper's cart, checked against the arguments and not empty, and the
/// pickup store (the store of the cart's first item).
async fn plan_order(ctx: &ToolContext, args: &CreateOrderArgs) -> Result<(Cart, Store), ToolError> {
    let cart = ctx.mall.get_cart(&ctx.shopper).await?;
    let wanted = args.cart_id.trim();
    if cart.cart_id != wanted {
        return Err(ToolError::NotFound(format!(
            "cart {wanted} is not the shopper's cart; their cart_id is {}",
            cart.cart_id
        )));
    }
    let Some(first) = cart.items.first() else {
        return Err(ServiceError::CartEmpty.into());
    };
    let product = ctx.mall.get_product(&first.product_id).await?;
    let pickup = ctx.mall.get_store(&product.brief.store_id).await?;
    Ok((cart, pickup))
}

/// Arguments of `cancel_order` and `get_order_status`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct OrderIdArgs {
    pub order_id: String,
}

fn order_progress(lang: Lang, args: &OrderIdArgs) -> String {
    if args.order_id.trim().is_empty() {
        return lang.texts().tools.working.to_owned();
    }
    match lang {
        Lang::En => format!("📦 Looking up order {}…", args.order_id.trim()),
        _ => format!("📦 正在查看订单 {}…", args.order_id.trim()),
    }
}

/// Cancel an unpaid order, or a paid one not yet ready (refunded).
#[tool_function(level = "critical", scope = "private", preview = preview_cancel_order, progress = order_progress, help = HELP_ORDERS, offline = CANCEL_ORDER_OFFLINE)]
pub async fn cancel_order(ctx: &ToolContext, args: OrderIdArgs) -> ToolResult<OrderResult> {
    let order = ctx.mall.cancel_order(&ctx.shopper, args.order_id.trim(), idempotency_key(ctx)).await?;
    single_order_output(ctx, &order).await
}

/// Whether the mall takes a cancel of an order in `status`: unpaid, or paid
/// and not yet ready (a paid one is refunded).
pub fn cancellable(status: OrderStatus) -> bool {
    matches!(status, OrderStatus::PendingPayment | OrderStatus::Paid)
}

/// The order's lines and total, and for a paid order that the mall will
/// refund it. Any other order cannot be cancelled: `ORDER_NOT_CANCELLABLE`,
/// as the mall would answer.
pub async fn preview_cancel_order(ctx: &ToolContext, args: OrderIdArgs) -> Result<Preview, ToolError> {
    let order = ctx.mall.get_order(&ctx.shopper, args.order_id.trim()).await?;
    if !cancellable(order.status) {
        let message = format!("order {} is {}", order.order_id, order.status.as_str());
        return Err(ServiceError::NotCancellable { message }.into());
    }
    let lang = ctx.lang;
    let mut summary = format!(
        "{}\n{}",
        (lang.texts().tools.cancel_preview)(&order.order_id),
        items_and_total(lang, &order.items, order.total_cents)
    );
    if order.status == OrderStatus::Paid {
        summary.push('\n');
        summary += &(lang.texts().tools.cancel_refund)(&crate::format::money(order.total_cents));
    }
    Ok(Preview {
        summary,
        fingerprint: json!({
            "order_id": order.order_id,
            "status": order.status.as_str(),
            "total_cents": order.total_cents,
        }),
    })
}

/// An order's status, lines, total and pickup store.
#[tool_function(level = "safe", scope = "private", progress = order_progress, help = HELP_ORDERS, offline = ORDER_STATUS_OFFLINE)]
pub async fn get_order_status(ctx: &ToolContext, args: OrderIdArgs) -> ToolResult<OrderResult> {
    let order = ctx.mall.get_order(&ctx.shopper, args.order_id.trim()).await?;
    single_order_output(ctx, &order).await
}

/// What `list_orders` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ListOrdersResult {
    pub total: u64,
    pub orders: Vec<OrderSummary>,
}

/// One order in a list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OrderSummary {
    pub order_id: String,
    pub status: OrderStatus,
    pub total_yuan: Yuan,
    #[serde(default)]
    pub created_at: String,
    #[serde(default)]
    pub item_count: u32,
    /// What was ordered: each line's product in the shopper's language, with
    /// its size and quantity (`Nike Pegasus 41 (size 42) × 1`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<String>,
}

fn list_orders_progress(lang: Lang, _args: &NoArguments) -> String {
    match lang {
        Lang::En => "📦 Looking at your orders…",
        _ => "📦 正在查看您的订单…",
    }
    .to_owned()
}

/// The shopper's latest orders.
#[tool_function(level = "safe", scope = "private", progress = list_orders_progress, help = HELP_ORDERS, offline = LIST_ORDERS_OFFLINE)]
pub async fn list_orders(ctx: &ToolContext, _args: NoArguments) -> ToolResult<ListOrdersResult> {
    let page = ctx.mall.list_orders(&ctx.shopper, PageRequest::first(LISTED_ORDERS)).await?;
    let orders = page
        .items
        .iter()
        .take(LISTED_ORDERS as usize)
        .map(|o| OrderSummary {
            order_id: o.order_id.clone(),
            status: o.status,
            total_yuan: Yuan(o.total_cents),
            created_at: o.created_at.clone(),
            item_count: o.items.iter().map(|i| i.quantity).sum(),
            items: o
                .items
                .iter()
                .map(|i| item_label(ctx.lang, &item_name(ctx.lang, i), i.sku_label.as_deref(), i.quantity))
                .collect(),
        })
        .collect();
    Ok(ToolOutput::new(ListOrdersResult { total: page.total, orders }))
}

/// `{"order": ...}` with the pickup store looked up; a failed lookup leaves
/// the store's place empty rather than failing an order already made.
async fn single_order_output(ctx: &ToolContext, order: &Order) -> ToolResult<OrderResult> {
    let pickup = store_for_display(ctx, &order.pickup_store_id).await;
    Ok(ToolOutput::new(OrderResult::new(order, pickup.as_ref(), ctx.lang)))
}

// Basic mode. The order hooks (priorities 10–13, asked before any other
// built-in tool) share one reading of the message, [`order_ask`], so at
// most one of them recognises it.

/// "取消订单", "cancel o-5", "cancel my last order" (the newest order that
/// can be cancelled, read from the list first): priority 10.
pub static CANCEL_ORDER_OFFLINE: OfflineHook = OfflineHook::new(recognise_cancel, cancelled_answer)
    .priority(10)
    .reply(cancelled_reply)
    .failed(order_failed)
    .direct();

/// "订单 o-123 到哪了", "status of my order" (the latest), "pay for my
/// order" (the newest unpaid one, shown with its pay button): priority 11.
pub static ORDER_STATUS_OFFLINE: OfflineHook = OfflineHook::new(recognise_status, status_answer)
    .priority(11)
    .reply(status_reply)
    .failed(order_failed)
    .direct();

/// "下单", "checkout": the cart is read, then ordered: priority 12.
pub static CREATE_ORDER_OFFLINE: OfflineHook = OfflineHook::new(recognise_checkout, created_answer)
    .priority(12)
    .reply(created_reply)
    .failed(order_stock)
    .direct();

/// "我的订单", "my orders": priority 13.
pub static LIST_ORDERS_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_list, list_answer).priority(13).reply(list_reply).direct();

/// What a message asks about orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderAsk {
    /// Cancel an order (the newest one that can be cancelled when no id is given).
    Cancel { order_id: Option<String> },
    /// Pay an order (the newest unpaid one when no id is given).
    Pay { order_id: Option<String> },
    /// Place an order from the cart.
    Checkout,
    /// The status of an order (the latest when no id is given).
    Status { order_id: Option<String> },
    /// The shopper's orders.
    List,
    /// How orders are paid ("how do I pay for an order?", "下单以后怎么付钱").
    HowToPay,
}

const ORDER: &[&str] = &["订单", "order", "orders"];
const CANCEL: &[&str] = &["取消", "撤销", "cancel"];
const PAY: &[&str] = &["支付", "付款", "付钱", "pay"];
/// Ways of paying asked about ("可以用微信支付吗", "can I pay by card").
#[rustfmt::skip]
const PAY_MEANS: &[&str] = &[
    "微信", "支付宝", "现金", "信用卡", "银行卡", "刷卡", "可以用", "能用", "支持", "wechat", "alipay", "cash",
    "card", "cards", "accept", "can i pay", "with",
];
/// What else is paid for in a mall.
const NOT_SHOPPING_PAYMENTS: &[&str] = &["停车", "车费", "充电", "parking", "charging"];
/// Words that ask how something is done.
#[rustfmt::skip]
const HOW: &[&str] = &[
    "怎么", "如何", "怎样", "咋", "方式", "方法", "how do", "how to", "how can", "how should", "how does",
    "what ways", "which ways", "methods", "method",
];
#[rustfmt::skip]
const CHECKOUT: &[&str] = &[
    "下单", "结账", "结帐", "结算", "买单", "埋单", "去支付", "去付款", "提交订单", "checkout", "check out",
    "place the order", "place an order", "place order", "place my order", "pay now",
];
#[rustfmt::skip]
const ORDER_STATUS: &[&str] = &[
    "到哪", "状态", "进度", "怎么样了", "发货", "status", "where is", "where's", "track", "progress",
];

/// What the message asks about orders, if anything.
pub fn order_ask(said: &Said) -> Option<OrderAsk> {
    let s = said.scratch();
    let has_order = s.contains_any(ORDER);
    let cancel = s.contains_any(CANCEL);
    let order_id = if has_order || cancel { extract::find_order_id(s.orig()) } else { None };
    if cancel && (has_order || order_id.is_some()) {
        return Some(OrderAsk::Cancel { order_id });
    }
    let checkout = s.contains_any(CHECKOUT);
    let how = s.contains_any(HOW) || (!has_order && s.contains_any(PAY_MEANS));
    if s.contains_any(PAY) && how && !s.contains_any(&["怎么样"]) && order_id.is_none() {
        // A question about paying, not about the mall's other payments (parking).
        let elsewhere = said.lexicon.names_info_section(&s) || s.contains_any(NOT_SHOPPING_PAYMENTS);
        if has_order || checkout || !elsewhere {
            return Some(OrderAsk::HowToPay);
        }
    }
    if has_order && s.contains_any(PAY) {
        return Some(OrderAsk::Pay { order_id });
    }
    if checkout {
        return Some(OrderAsk::Checkout);
    }
    if has_order && (order_id.is_some() || s.contains_any(ORDER_STATUS)) {
        return Some(OrderAsk::Status { order_id });
    }
    has_order.then_some(OrderAsk::List)
}

fn list_first(then: crate::basic::Then) -> Step {
    Step::Call(Call::then("list_orders", json!({}), then))
}

fn recognise_cancel(said: &Said) -> Option<Step> {
    match order_ask(said)? {
        OrderAsk::Cancel { order_id: Some(id) } => {
            Some(Step::Call(Call::new("cancel_order", json!({ "order_id": id }))))
        }
        OrderAsk::Cancel { order_id: None } => Some(list_first(cancel_newest)),
        _ => None,
    }
}

/// With the list read: cancel the newest order that can be cancelled.
fn cancel_newest(data: &Value, said: &Said) -> Option<Step> {
    let orders = read::<ListOrdersResult>(data)?.orders;
    let newest = orders.iter().find(|o| cancellable(o.status));
    let answers = &said.texts().answers;
    Some(match newest {
        Some(order) => Step::Call(Call::new("cancel_order", json!({ "order_id": order.order_id }))),
        None if orders.is_empty() => Step::answer(answers.no_orders),
        None => Step::answer(answers.no_pending_orders),
    })
}

fn recognise_status(said: &Said) -> Option<Step> {
    let status = |id: String| Step::Call(Call::new("get_order_status", json!({ "order_id": id })));
    match order_ask(said)? {
        OrderAsk::Pay { order_id: Some(id) } | OrderAsk::Status { order_id: Some(id) } => Some(status(id)),
        OrderAsk::Pay { order_id: None } => Some(list_first(status_of_unpaid)),
        OrderAsk::Status { order_id: None } => Some(list_first(status_of_latest)),
        _ => None,
    }
}

/// With the list read: the latest order's status.
fn status_of_latest(data: &Value, said: &Said) -> Option<Step> {
    Some(match read::<ListOrdersResult>(data)?.orders.first() {
        Some(order) => Step::Call(Call::new("get_order_status", json!({ "order_id": order.order_id }))),
        None => Step::answer(said.texts().answers.no_orders),
    })
}

/// With the list read: the newest unpaid order, shown with its pay button.
fn status_of_unpaid(data: &Value, said: &Said) -> Option<Step> {
    let orders = read::<ListOrdersResult>(data)?.orders;
    let unpaid = orders.iter().find(|o| o.status == OrderStatus::PendingPayment);
    let answers = &said.texts().answers;
    Some(match unpaid {
        Some(order) => Step::Call(Call::new("get_order_status", json!({ "order_id": order.order_id }))),
        None if orders.is_empty() => Step::answer(answers.no_orders),
        None => Step::answer(answers.no_unpaid_orders),
    })
}

/// Placing an order: the cart is read first, then ordered (what "下单" and
/// a yes to "order now?" do).
pub fn checkout() -> Call {
    Call::then("view_cart", json!({}), order_the_cart)
}

/// With the cart read: order it (with the shopper's best coupon when the
/// message asks for one: "用券下单"), or say it is empty.
fn order_the_cart(data: &Value, said: &Said) -> Option<Step> {
    let cart = read::<CartResult>(data)?;
    Some(if cart.items.is_empty() {
        Step::answer(said.texts().answers.cart_empty)
    } else if crate::loyalty::wants_coupon(said) {
        Step::Call(Call::new("create_order", json!({ "cart_id": cart.cart_id, "coupon_id": "best" })))
    } else {
        Step::Call(Call::new("create_order", json!({ "cart_id": cart.cart_id })))
    })
}

fn recognise_checkout(said: &Said) -> Option<Step> {
    (order_ask(said)? == OrderAsk::Checkout).then(|| Step::Call(checkout()))
}

fn recognise_list(said: &Said) -> Option<Step> {
    match order_ask(said)? {
        OrderAsk::List => Some(Step::Call(Call::new("list_orders", json!({})))),
        OrderAsk::HowToPay => Some(Step::answer(said.texts().answers.how_to_pay)),
        _ => None,
    }
}

fn order_failed(said: &Said, error: &str) -> Option<String> {
    crate::navigation::not_found(error).then(|| said.texts().answers.order_missing.to_owned())
}

fn order_stock(said: &Said, error: &str) -> Option<String> {
    if error.contains("(COUPON_") || error.contains("(NOT_SUPPORTED)") {
        let (_, message) = error.split_once("): ")?;
        return Some(message.trim_end_matches('.').to_owned());
    }
    error.to_ascii_lowercase().contains("(out_of_stock)").then(|| crate::info::out_of_stock(said))
}

fn created_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<OrderResult>(data).map(|r| order_created(&r, lang))
}

fn created_reply(answering: &Answering) -> Option<Reply> {
    created_answer(answering.lang(), answering.data).map(Reply::text)
}

fn status_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<OrderResult>(data).map(|r| order_status(&r, lang))
}

fn status_reply(answering: &Answering) -> Option<Reply> {
    status_answer(answering.lang(), answering.data).map(Reply::text)
}

fn cancelled_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<OrderResult>(data).map(|r| order_cancelled(&r, lang))
}

fn cancelled_reply(answering: &Answering) -> Option<Reply> {
    cancelled_answer(answering.lang(), answering.data).map(Reply::text)
}

fn list_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<ListOrdersResult>(data).map(|r| order_list(&r, lang))
}

fn list_reply(answering: &Answering) -> Option<Reply> {
    list_answer(answering.lang(), answering.data).map(Reply::text)
}

/// The shopper-facing text of a list of orders (`list_orders`'s data);
/// "no orders" when the data cannot be read.
pub fn orders_data_text(data: &Value, lang: Lang) -> String {
    list_answer(lang, data).unwrap_or_else(|| lang.texts().answers.no_orders.to_owned())
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
pub fn order_created(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    let status = status(order.status, lang);
    let pickup = pickup(order, lang);
    let created = (lang.texts().answers.order_created)(id, &status, &total, &pickup);
    match &result.coupon {
        Some(c) => {
            let lines = discount_lines(lang, &c.title, c.subtotal_yuan.cents(), c.discount_yuan.cents());
            format!("{created}\n{lines}")
        }
        None => created,
    }
}

/// After `get_order_status`.
pub fn order_status(result: &OrderResult, lang: Lang) -> String {
    let order = &result.order;
    let (id, total) = (&order.order_id, order.total_yuan.money());
    let status = status(order.status, lang);
    let created = date(&order.created_at);
    let pickup = pickup(order, lang);
    (lang.texts().answers.order_status)(id, &status, &total, &created, &pickup)
}

/// After `cancel_order`: and for a paid order, the refund as the mall
/// answered it.
pub fn order_cancelled(result: &OrderResult, lang: Lang) -> String {
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
pub fn order_list(result: &ListOrdersResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if result.orders.is_empty() {
        return answers.no_orders.to_owned();
    }
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
