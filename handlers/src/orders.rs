//! The shopper's orders: place one from the cart, cancel one, look them up.
//! Placing and cancelling are critical: the shopper sees the whole order first.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use services::{Cart, CreateOrder, Order, OrderStatus, PageRequest, ServiceError, Store};

use crate::format::{item_label, item_name, items_and_total, store_place};
use crate::general::{NoArguments, idempotency_key, store_for_display};
use crate::records::{OrderResult, Yuan};
use crate::{HelpLine, Lang, Preview, ToolContext, ToolError, ToolOutput, ToolResult, tool_function};

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
}

fn create_order_progress(lang: Lang, _args: &CreateOrderArgs) -> String {
    match lang {
        Lang::En => "📦 Placing your order…",
        _ => "📦 正在下单…",
    }
    .to_owned()
}

/// Order the shopper's cart for pickup in the mall.
#[tool_function(level = "critical", scope = "private", preview = preview_create_order, progress = create_order_progress, help = HELP_ORDERS)]
pub async fn create_order(ctx: &ToolContext, args: CreateOrderArgs) -> ToolResult<OrderResult> {
    let expected_total_cents = ctx
        .approval
        .as_ref()
        .and_then(|approval| approval.preview.fingerprint.get("total_cents"))
        .and_then(Value::as_i64);
    let request = CreateOrder { cart_id: args.cart_id.trim().to_owned(), expected_total_cents };
    let order = ctx.mall.create_order(&ctx.shopper, &request, idempotency_key(ctx)).await?;
    single_order_output(ctx, &order).await
}

/// The whole order: every line with size, quantity and line total, the
/// total, and the pickup store. The fingerprint holds the figures agreed to.
pub async fn preview_create_order(ctx: &ToolContext, args: CreateOrderArgs) -> Result<Preview, ToolError> {
    let (cart, pickup) = plan_order(ctx, &args).await?;
    let lang = ctx.lang;
    let summary = format!(
        "{}\n{}\n{}{}",
        lang.texts().tools.order_preview,
        items_and_total(lang, &cart.items, cart.total_cents),
        lang.texts().tools.pickup,
        store_place(lang, &pickup),
    );
    let items: Vec<Value> =
        cart.items.iter().map(|i| json!([i.product_id, i.sku_id, i.quantity, i.unit_price_cents])).collect();
    Ok(Preview {
        summary,
        fingerprint: json!({"cart_id": cart.cart_id, "total_cents": cart.total_cents, "items": items}),
    })
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
    match lang {
        Lang::En => format!("📦 Looking up order {}…", args.order_id.trim()),
        _ => format!("📦 正在查看订单 {}…", args.order_id.trim()),
    }
}

/// Cancel an order that is unpaid, or paid and not yet ready (the mall refunds a paid one).
#[tool_function(level = "critical", scope = "private", preview = preview_cancel_order, progress = order_progress, help = HELP_ORDERS)]
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
#[tool_function(level = "safe", scope = "private", progress = order_progress, help = HELP_ORDERS)]
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
#[tool_function(level = "safe", scope = "private", progress = list_orders_progress, help = HELP_ORDERS)]
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
