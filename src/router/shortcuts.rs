//! Direct answers that need no model: `/cart` and `/orders` run their tool
//! and format the result.

use serde_json::{Value, json};

use super::{FunctionCallRouter, TurnScope, calls};
use crate::context::MessageContext;
use crate::llm::ToolCall;
use crate::reply::Reply;
use handlers::Lang;

impl FunctionCallRouter {
    /// The shopper's cart, formatted (`/cart`).
    pub async fn show_cart(&self, ctx: &MessageContext) -> Reply {
        let lang = self.lang_for(ctx).await;
        match self.run_direct(ctx, "view_cart").await {
            Ok(data) => Reply::text(format_cart(&data, lang)),
            Err(text) => Reply::text(text),
        }
    }

    /// The shopper's recent orders, formatted (`/orders`).
    pub async fn show_orders(&self, ctx: &MessageContext) -> Reply {
        let lang = self.lang_for(ctx).await;
        match self.run_direct(ctx, "list_orders").await {
            Ok(data) => Reply::text(format_orders(&data, lang)),
            Err(text) => Reply::text(text),
        }
    }

    async fn run_direct(&self, ctx: &MessageContext, tool: &str) -> Result<Value, String> {
        let lang = self.lang_for(ctx).await;
        if ctx.is_group {
            return Err(lang
                .pick("购物车和订单请在私聊里查看。", "Please check your cart and orders in a private chat.")
                .to_owned());
        }
        let Some(spec) = handlers::find(tool) else {
            return Err(format!("{tool}: not available"));
        };
        let mut scope = TurnScope::of(ctx);
        scope.lang = lang;
        let call = ToolCall { id: "direct".into(), name: tool.into(), arguments: "{}".into() };
        let ctx = self.tool_context(&scope, None);
        match calls::run_tool(spec, &call, ctx, json!({}), self.settings.tool_timeout).await {
            Ok(out) => Ok(out.data),
            Err(e) => {
                tracing::warn!(error = %e, tool, "direct tool call failed");
                Err(lang
                    .pick(
                        "抱歉，暂时查不到，请稍后再试。",
                        "Sorry, I can't look that up right now. Please try again shortly.",
                    )
                    .to_owned())
            }
        }
    }
}

fn yuan(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if f.fract() == 0.0 => format!("¥{f:.0}"),
        Some(f) => format!("¥{f:.2}"),
        None => "¥?".to_owned(),
    }
}

fn text<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A cart as the shopper reads it.
pub fn format_cart(data: &Value, lang: Lang) -> String {
    let items = data.get("items").and_then(Value::as_array).cloned().unwrap_or_default();
    if items.is_empty() {
        return lang.pick("您的购物车是空的。", "Your cart is empty.").to_owned();
    }
    let mut out = lang.pick("您的购物车：\n", "Your cart:\n").to_owned();
    for item in &items {
        let size = text(item, "sku_label");
        let size = if size.is_empty() { String::new() } else { format!(" ({size})") };
        let qty = item.get("quantity").and_then(Value::as_u64).unwrap_or(1);
        out.push_str(&format!(
            "• {}{size} × {qty}  {}\n",
            text(item, "name"),
            yuan(&item["line_total_yuan"])
        ));
    }
    out.push_str(&format!("{}{}", lang.pick("合计：", "Total: "), yuan(&data["total_yuan"])));
    out
}

/// A list of orders as the shopper reads it.
pub fn format_orders(data: &Value, lang: Lang) -> String {
    let orders = data.get("orders").and_then(Value::as_array).cloned().unwrap_or_default();
    if orders.is_empty() {
        return lang.pick("您还没有订单。", "You have no orders yet.").to_owned();
    }
    let mut out = lang.pick("您最近的订单：\n", "Your recent orders:\n").to_owned();
    for order in &orders {
        out.push_str(&format!(
            "• {}  {}  {}  {}\n",
            text(order, "order_id"),
            status_label(text(order, "status"), lang),
            yuan(&order["total_yuan"]),
            text(order, "created_at").get(..10).unwrap_or(""),
        ));
    }
    out.trim_end().to_owned()
}

/// An order status in the shopper's words.
pub fn status_label(status: &str, lang: Lang) -> &str {
    match (status, lang) {
        ("PENDING_PAYMENT", Lang::Zh) => "待支付",
        ("PAID", Lang::Zh) => "已支付",
        ("CANCELLED", Lang::Zh) => "已取消",
        ("COMPLETED", Lang::Zh) => "已完成",
        ("PENDING_PAYMENT", Lang::En) => "pending payment",
        ("PAID", Lang::En) => "paid",
        ("CANCELLED", Lang::En) => "cancelled",
        ("COMPLETED", Lang::En) => "completed",
        (other, _) => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cart_and_orders_read_well() {
        let cart = json!({"cart_id":"c1","items":[{"name":"Nike 跑鞋","sku_label":"42","quantity":2,
            "line_total_yuan":1398}],"total_yuan":1398});
        let text = format_cart(&cart, Lang::Zh);
        assert!(text.contains("Nike 跑鞋 (42) × 2  ¥1398"), "{text}");
        assert!(text.contains("合计：¥1398"), "{text}");
        assert_eq!(format_cart(&json!({"items": []}), Lang::En), "Your cart is empty.");
        let orders = json!({"orders":[{"order_id":"o-1","status":"PENDING_PAYMENT","total_yuan":19.9,
            "created_at":"2026-11-21T10:00:00Z"}]});
        let text = format_orders(&orders, Lang::En);
        assert!(text.contains("o-1  pending payment  ¥19.90  2026-11-21"), "{text}");
    }
}
