//! The router's own cost per model round: an in-process model that answers at
//! once, a mall mock that answers at once, the in-memory state store. Prints
//! microseconds per round, with the tool's own work measured and subtracted.
//!
//! Run: `cargo bench --bench router`
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use handlers::{Lang, ToolContext};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::Config;
use mallbot::llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, Role, ToolCall, Usage};
use mallbot::state::MemoryStore;
use services::{Cart, MockMallApi, Shopper};

/// Calls `view_cart` for a shopper message, answers in text after the result.
struct InstantModel;

#[async_trait]
impl ChatModel for InstantModel {
    fn describe(&self) -> String {
        "instant".into()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let last = request.messages.last().unwrap();
        let message = if last.role == Role::User {
            let call = ToolCall { id: "call_1".into(), name: "view_cart".into(), arguments: "{}".into() };
            ChatMessage::assistant_calls(vec![call])
        } else {
            ChatMessage::assistant("Your cart is empty.")
        };
        Ok(ChatResponse { message, finish_reason: None, usage: Usage::default() })
    }
}

fn mall() -> MockMallApi {
    let mut mall = MockMallApi::new();
    mall.expect_get_cart()
        .returning(|_| Ok(Cart { cart_id: "c-1".into(), items: Vec::new(), total_cents: 0 }));
    mall
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let mut config = Config::default();
        config.bot.rate_limit_per_minute = 0;
        let mall = Arc::new(mall());
        let app = App::with_model(config, mall.clone(), Arc::new(MemoryStore::new()), Arc::new(InstantModel));
        let ctx = MessageContext::private("console", 1, "看看购物车", Lang::Zh);
        let turns = 20_000u32;
        for _ in 0..1_000 {
            app.router.dispatch(&ctx).await;
        }

        let started = Instant::now();
        for _ in 0..turns {
            let reply = app.router.dispatch(&ctx).await;
            assert_eq!(reply.text, "Your cart is empty.");
        }
        let dispatch_total = started.elapsed();

        let spec = handlers::find("view_cart").unwrap();
        let tool_ctx = ToolContext::new(mall, Shopper::new("console", 1), Lang::Zh);
        let started = Instant::now();
        for _ in 0..turns {
            spec.invoke(tool_ctx.clone(), serde_json::json!({})).await.unwrap();
        }
        let tool_total = started.elapsed();

        let rounds = turns * 2;
        let per = |d: Duration| d.as_secs_f64() * 1e6 / f64::from(rounds);
        println!("router: {turns} turns, {rounds} model rounds (one tool call each)");
        println!("  whole turn per round:        {:8.2} µs", per(dispatch_total));
        println!("  the tool's own work per round: {:6.2} µs", per(tool_total));
        println!(
            "  router cost per round:       {:8.2} µs (target ≤ 100 µs)",
            per(dispatch_total.saturating_sub(tool_total))
        );
    });
}
