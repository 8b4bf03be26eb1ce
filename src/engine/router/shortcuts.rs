//! Direct answers that need no model: `/cart` and `/orders` run their tool
//! and word the result as the tool's basic mode does.

use serde_json::{Value, json};

use super::scope::TurnScope;
use super::toolbox::Toolbox;
use crate::engine::context::MessageContext;
use crate::engine::llm::ToolCall;
use crate::engine::reply::Reply;

impl Toolbox {
    /// The shopper's cart, formatted (`/cart`), in `ctx.lang` (a command's
    /// language, settled by the transport).
    pub(super) async fn show_cart(&self, ctx: &MessageContext) -> Reply {
        let lang = ctx.lang;
        match self.run_direct(ctx, lang, "view_cart").await {
            Ok(data) => Reply::text(handlers::shopping::cart_data_text(&data, lang)),
            Err(text) => Reply::text(text),
        }
    }

    /// The shopper's recent orders, formatted (`/orders`), in `ctx.lang`.
    pub(super) async fn show_orders(&self, ctx: &MessageContext) -> Reply {
        let lang = ctx.lang;
        match self.run_direct(ctx, lang, "list_orders").await {
            Ok(data) => Reply {
                payable: crate::engine::reply::payable_orders(&data),
                ..Reply::text(handlers::orders::orders_data_text(&data, lang))
            },
            Err(text) => Reply::text(text),
        }
    }

    async fn run_direct(
        &self,
        ctx: &MessageContext,
        lang: handlers::Lang,
        tool: &str,
    ) -> Result<Value, String> {
        if ctx.is_group {
            return Err(lang.texts().turn.private_only.to_owned());
        }
        let Some(spec) = handlers::find(tool) else {
            return Err(format!("{tool}: not available"));
        };
        let mut scope = TurnScope::of(ctx);
        scope.lang = lang;
        let call = ToolCall { id: "direct".into(), name: tool.into(), arguments: "{}".into() };
        let ctx = self.context(&scope, None);
        match self.run(&crate::engine::tools::Tool::Builtin(spec), &call, ctx, json!({})).await {
            Ok(out) => Ok(out.data),
            Err(e) => {
                tracing::warn!(error = %e, tool, "direct tool call failed");
                Err(lang.texts().turn.lookup_failed.to_owned())
            }
        }
    }
}
