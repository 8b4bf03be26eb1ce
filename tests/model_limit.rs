//! Model calls at once, as a provider sees them: a hard ceiling
//! (`llm.max_concurrent`) holds, and with no ceiling the bot finds the
//! provider's own limit (a scripted OpenAI-compatible server that answers 429
//! above N calls at once) without losing a message.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::time::Duration;

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use handlers::Lang;
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::{Config, Provider};
use mallbot::state::MemoryStore;
use serde_json::json;
use services::{EmbeddedMall, MallApi};

/// A provider that takes `latency` per answer, counts overlapping calls and
/// refuses with 429 above `capacity` at once.
#[derive(Default)]
struct Provider429 {
    capacity: usize,
    latency: Duration,
    running: AtomicUsize,
    most: AtomicUsize,
    refused: AtomicUsize,
    answered: AtomicUsize,
}

async fn completions(State(p): State<Arc<Provider429>>) -> Response {
    let now = p.running.fetch_add(1, SeqCst) + 1;
    if p.capacity > 0 && now > p.capacity {
        p.running.fetch_sub(1, SeqCst);
        p.refused.fetch_add(1, SeqCst);
        let body = json!({"error": {"message": "Rate limit reached", "type": "rate_limit"}});
        return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", "0")], axum::Json(body)).into_response();
    }
    p.most.fetch_max(now, SeqCst);
    tokio::time::sleep(p.latency).await;
    p.running.fetch_sub(1, SeqCst);
    p.answered.fetch_add(1, SeqCst);
    axum::Json(json!({
        "id": "x", "object": "chat.completion", "model": "m",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "well answered"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 2}
    }))
    .into_response()
}

async fn start(provider: Arc<Provider429>) -> String {
    let app = axum::Router::new()
        .route("/v1/chat/completions", axum::routing::post(completions))
        .with_state(provider);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

fn bot(base_url: String, max_concurrent: usize) -> App {
    let mut config = Config::default();
    config.llm.provider = Provider::Openai;
    config.llm.base_url = base_url;
    config.llm.model = "m".into();
    config.llm.max_retries = 10;
    config.llm.max_concurrent = max_concurrent;
    config.bot.rate_limit_per_minute = 0;
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    App::with_parts(config, mall, Arc::new(MemoryStore::new())).unwrap()
}

/// `count` shoppers write at once; every answer comes back.
async fn crowd(app: &App, count: i64) -> Vec<String> {
    let turns = (0..count).map(|i| {
        let app = app.clone();
        async move {
            let ctx = MessageContext::private("telegram", 100 + i, "hello there, anything new?", Lang::En);
            app.router.dispatch(&ctx).await.text
        }
    });
    futures::future::join_all(turns).await
}

#[tokio::test]
async fn a_configured_ceiling_holds_and_every_message_is_answered() {
    let provider = Arc::new(Provider429 { latency: Duration::from_millis(50), ..Default::default() });
    let app = bot(start(provider.clone()).await, 2);
    let replies = crowd(&app, 6).await;
    assert!(replies.iter().all(|r| r == "well answered"), "{replies:?}");
    assert_eq!(provider.most.load(SeqCst), 2, "never more than the ceiling at once");
    let load = app.router.model_load().expect("a real model reports its load");
    assert_eq!((load.limit, load.ceiling, load.in_flight, load.queued), (2, Some(2), 0, 0));
    let health = mallbot::health::collect(&app).await.render(Lang::En);
    assert!(health.contains("model calls: limit 2 (ceiling 2), in flight 0, queued 0"), "{health}");
}

#[tokio::test]
async fn with_no_ceiling_the_limit_settles_near_the_providers_and_nothing_is_lost() {
    const CAPACITY: usize = 4;
    let provider = Arc::new(Provider429 {
        capacity: CAPACITY,
        latency: Duration::from_millis(40),
        ..Default::default()
    });
    let app = bot(start(provider.clone()).await, 0);
    let replies = crowd(&app, 40).await;
    assert!(replies.iter().all(|r| r == "well answered"), "no message lost: {replies:?}");
    assert!(provider.refused.load(SeqCst) > 0, "the provider pushed back");
    let load = app.router.model_load().unwrap();
    assert!(
        (1..=2 * CAPACITY).contains(&load.limit),
        "the limit came down near the provider's {CAPACITY}: {load:?}"
    );
    assert_eq!(load.ceiling, None);

    // A second crowd meets a limit that already fits: far fewer refusals.
    let refused_before = provider.refused.load(SeqCst);
    let replies = crowd(&app, 40).await;
    assert!(replies.iter().all(|r| r == "well answered"));
    let refused_again = provider.refused.load(SeqCst) - refused_before;
    assert!(refused_again < refused_before, "first crowd {refused_before} refusals, second {refused_again}");
}
