//! The operator's window: `/metrics` after a message through the loopback
//! fake Bot API, `/healthz` and `/readyz`, the Grafana dashboard's queries,
//! JSON log lines from the real binary, and the turn id in `/health` errors.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use fake_bot_api::*;
use mallbot::App;
use mallbot::config::Config;
use mallbot::llm::{ChatModel, ChatRequest, ChatResponse, LlmError};
use mallbot::state::MemoryStore;
use serde_json::Value;

const ALICE: Shopper = Shopper { id: 1001, name: "Alice" };
const BOB: Shopper = Shopper { id: 1002, name: "Bob" };

/// Presses the button labelled `label` on the last message sent to `user`.
fn press_button(api: &FakeBotApi, user: Shopper, label: &str) {
    let message = api.sent_to(user.id).last().cloned().unwrap();
    let data = button_data(&message, label).unwrap_or_else(|| panic!("no button {label:?}: {message}"));
    api.push_update(press(user, &message, &data));
}

/// Scrapes until the sample `line` reaches `value` (counters are bumped just
/// after the answer is sent), at most 5 s; returns the last scrape.
async fn scrape_until(ops: &str, line: &str, value: f64) -> String {
    let mut scrape = String::new();
    for _ in 0..100 {
        scrape = get(&format!("{ops}/metrics")).await.1;
        if sample(&scrape, line) == Some(value) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    scrape
}

fn test_config() -> Config {
    let mut config = Config::default();
    config.state.url = "memory://".into();
    config.bot.rate_limit_per_minute = 0;
    config
}

fn app_with(mall: Arc<dyn services::MallApi>) -> App {
    App::with_parts(test_config(), mall, Arc::new(MemoryStore::new())).unwrap()
}

/// Serves the ops routes of `app` on a loopback port; returns its base URL.
async fn serve_ops(app: App) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(mallbot::ops::serve_on(app, listener, std::future::pending()));
    format!("http://{addr}")
}

async fn get(url: &str) -> (u16, String) {
    let response = reqwest::get(url).await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// The value of the sample line `name_and_labels value` in a scrape.
fn sample(scrape: &str, name_and_labels: &str) -> Option<f64> {
    scrape.lines().find_map(|line| line.strip_prefix(name_and_labels)?.strip_prefix(' ')?.parse().ok())
}

/// The metric names a scrape exports (histograms by their base name).
fn exported(scrape: &str) -> BTreeSet<String> {
    scrape
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split(['{', ' ']).next().unwrap_or_default())
        .map(|n| n.trim_end_matches("_bucket").trim_end_matches("_count").trim_end_matches("_sum").to_owned())
        .collect()
}

/// The metric names the dashboard's queries use.
fn dashboard_metrics() -> BTreeSet<String> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/grafana-dashboard.json")).unwrap();
    let dashboard: Value = serde_json::from_str(&text).unwrap();
    let mut names = BTreeSet::new();
    for panel in dashboard["panels"].as_array().unwrap() {
        for target in panel["targets"].as_array().unwrap() {
            let expr = target["expr"].as_str().unwrap();
            let mut rest = expr;
            while let Some(at) = rest.find("mallbot_") {
                let tail = &rest[at..];
                let end = tail.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(tail.len());
                let name = &tail[..end];
                names.insert(
                    name.trim_end_matches("_bucket")
                        .trim_end_matches("_count")
                        .trim_end_matches("_sum")
                        .to_owned(),
                );
                rest = &tail[end..];
            }
        }
    }
    names
}

// The recorder is process-wide: this is the only test in this file that sends messages.
#[tokio::test]
async fn a_message_shows_in_metrics_and_the_dashboard_queries_only_exported_metrics() {
    let app = app_with(Arc::new(services::EmbeddedMall::in_memory()));
    let ops = serve_ops(app.clone()).await;
    let api = FakeBotApi::start().await;
    let mut dispatcher = mallbot::telegram::dispatcher(api.bot(), app).build();
    let shutdown = dispatcher.shutdown_token();
    let task = tokio::spawn(async move { dispatcher.dispatch().await });

    api.push_update(private_text(ALICE, "I want running shoes"));
    api.wait_for_texts(ALICE.id, 1).await;
    // The update is counted once its handler returns, just after the answer is sent.
    let scrape = scrape_until(&ops, r#"mallbot_updates_total{kind="message",outcome="answered"}"#, 1.0).await;
    assert_eq!(
        sample(&scrape, r#"mallbot_updates_total{kind="message",outcome="answered"}"#),
        Some(1.0),
        "{scrape}"
    );
    assert!(
        scrape.lines().any(|l| l.starts_with("mallbot_tool_calls_total{") && l.contains(r#"outcome="ok""#)),
        "a tool call is counted: {scrape}"
    );
    assert!(sample(&scrape, r#"mallbot_model_calls_total{outcome="ok"}"#).unwrap_or(0.0) >= 1.0, "{scrape}");
    assert_eq!(sample(&scrape, "mallbot_answer_seconds_count"), Some(1.0), "{scrape}");
    assert_eq!(sample(&scrape, "mallbot_answer_first_sign_seconds_count"), Some(1.0), "{scrape}");
    assert!(scrape.contains(r#"mallbot_state_op_seconds_count{op="load_history"}"#), "{scrape}");
    // Never a shopper's id as a label value (a float sum may hold its digits).
    let labels: Vec<&str> = scrape
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| Some(&l[l.find('{')?..=l.find('}')?]))
        .collect();
    assert!(!labels.is_empty(), "{scrape}");
    let id = ALICE.id.to_string();
    assert!(labels.iter().all(|l| !l.contains(&id)), "a shopper's id in a label: {scrape}");

    // Every exported name is one the bot declares, and every name the dashboard
    // queries is declared; those with data after a message are in the scrape.
    let declared: BTreeSet<String> = mallbot::ops::ALL.iter().map(|s| s.to_string()).collect();
    let exported = exported(&scrape);
    assert!(
        exported.is_subset(&declared),
        "undeclared: {:?}",
        exported.difference(&declared).collect::<Vec<_>>()
    );
    let queried = dashboard_metrics();
    assert!(queried.len() >= 10, "{queried:?}");
    assert!(
        queried.is_subset(&declared),
        "not exported: {:?}",
        queried.difference(&declared).collect::<Vec<_>>()
    );
    for name in [
        "mallbot_updates_total",
        "mallbot_tool_calls_total",
        "mallbot_model_calls_total",
        "mallbot_answer_seconds",
    ] {
        assert!(queried.contains(name) && exported.contains(name), "{name}");
    }

    // A purchase: two confirmations shown and approved, one order.
    api.push_update(private_text(BOB, "帮我买一双 Nike 跑鞋，500 以内的"));
    api.wait_for_texts(BOB.id, 1).await;
    api.push_update(private_text(BOB, "42码"));
    api.wait_for_texts(BOB.id, 2).await;
    press_button(&api, BOB, "✅ 确认");
    api.wait_for_texts(BOB.id, 3).await;
    api.push_update(private_text(BOB, "下单"));
    api.wait_for_texts(BOB.id, 4).await;
    press_button(&api, BOB, "✅ 确认");
    api.wait_for_texts(BOB.id, 5).await;
    let scrape = scrape_until(&ops, r#"mallbot_updates_total{kind="button",outcome="answered"}"#, 2.0).await;
    assert_eq!(
        sample(&scrape, r#"mallbot_updates_total{kind="button",outcome="answered"}"#),
        Some(2.0),
        "{scrape}"
    );
    assert_eq!(
        sample(&scrape, r#"mallbot_updates_total{kind="message",outcome="answered"}"#),
        Some(4.0),
        "{scrape}"
    );
    assert_eq!(sample(&scrape, "mallbot_orders_created_total"), Some(1.0), "{scrape}");
    assert_eq!(sample(&scrape, r#"mallbot_confirmations_total{event="shown"}"#), Some(2.0), "{scrape}");
    assert_eq!(sample(&scrape, r#"mallbot_confirmations_total{event="approved"}"#), Some(2.0), "{scrape}");

    if let Ok(done) = shutdown.shutdown() {
        done.await;
    }
    task.await.unwrap();
}

#[tokio::test]
async fn healthz_and_readyz_on_the_defaults() {
    let app = app_with(Arc::new(services::EmbeddedMall::in_memory()));
    let ops = serve_ops(app.clone()).await;
    assert_eq!(get(&format!("{ops}/healthz")).await, (200, "ok".to_owned()));
    let (status, body) = get(&format!("{ops}/readyz")).await;
    assert_eq!(status, 200, "{body}");
    let body: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(body["ready"], true);
    assert_eq!(body["state"], "ok");
    assert_eq!(body["mall"], "ok");
    assert!(body.get("model").is_none(), "the model is not readiness: {body}");

    // Shutting down: not ready, so a load balancer stops sending.
    app.lifecycle.stopping();
    let (status, body) = get(&format!("{ops}/readyz")).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains(r#""stopping":true"#), "{body}");
    assert_eq!(get(&format!("{ops}/healthz")).await.0, 200);
}

#[tokio::test]
async fn readyz_is_503_with_the_mall_down_and_reveals_nothing_secret() {
    let closed = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap()
    };
    let mall = services::HttpMall::new(services::HttpMallConfig {
        base_url: format!("http://{closed}"),
        api_key: "mall-secret-key".into(),
        request_timeout: Duration::from_secs(1),
        max_retries: 0,
        ..services::HttpMallConfig::default()
    })
    .unwrap();
    let ops = serve_ops(app_with(Arc::new(mall))).await;
    let (status, body) = get(&format!("{ops}/readyz")).await;
    assert_eq!(status, 503, "{body}");
    let parsed: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(parsed["mall"], "failed");
    assert_eq!(parsed["state"], "ok");
    assert!(!body.contains("mall-secret-key") && !body.contains(&closed.port().to_string()), "{body}");
}

/// A model that always fails.
struct DownModel;

#[async_trait]
impl ChatModel for DownModel {
    fn describe(&self) -> String {
        "down".into()
    }

    async fn complete(&self, _request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        Err(LlmError::Unavailable { message: "connection refused".into() })
    }
}

#[tokio::test]
async fn health_lists_the_last_errors_with_their_turn_ids() {
    let app = App::with_model(
        test_config(),
        Arc::new(services::EmbeddedMall::in_memory()),
        Arc::new(MemoryStore::new()),
        Arc::new(DownModel),
    );
    let ctx = mallbot::MessageContext {
        platform: "telegram",
        user_id: 7,
        user_name: None,
        chat_id: 7,
        is_group: false,
        mentioned: true,
        text: "running shoes".into(),
        lang: handlers::Lang::En,
        reply_to: None,
        image: None,
    };
    let reply = app.router.dispatch(&ctx).await;
    assert!(!reply.text.is_empty());
    let report = mallbot::health::collect(&app).await.render(handlers::Lang::En);
    let line = report.lines().find(|l| l.starts_with("last errors: ")).unwrap_or_else(|| panic!("{report}"));
    let turn = line.strip_prefix("last errors: [turn ").unwrap();
    let (id, what) = turn.split_once("] ").unwrap();
    assert_eq!(id.len(), 6, "{line}");
    assert!(id.chars().all(|c| c.is_ascii_hexdigit()), "{line}");
    assert!(what.starts_with("model failed; basic mode"), "{line}");
}

#[test]
fn json_logs_from_the_binary_carry_the_turn_id() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let dir = std::env::temp_dir().join(format!("mallbot-json-log-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(["chat", "--user", "5"])
        .env("MALLBOT_STATE__URL", "memory://")
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env("MALLBOT_LOG__FORMAT", "json")
        .env("RUST_LOG", "info")
        .env_remove("MALLBOT_LLM__PROVIDER")
        .env_remove("MALLBOT_CONFIG")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all("running shoes\n".as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(out.status.success(), "{stderr}");
    let lines: Vec<Value> = stderr
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let answered = lines
        .iter()
        .find(|l| l["fields"]["message"] == "answered")
        .unwrap_or_else(|| panic!("no `answered` line: {stderr}"));
    let turn = answered["span"]["turn"].as_str().unwrap_or_else(|| panic!("{answered}"));
    assert_eq!(answered["span"]["name"], "message");
    assert_eq!(turn.len(), 6);
    // The tool call's line, inside the turn, carries the same id in its span list.
    assert!(
        lines.iter().any(|l| l["fields"]["message"] == "tool call"
            && l["spans"].as_array().is_some_and(|s| s.iter().any(|s| s["turn"] == turn))),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_webhook_listener_serves_only_the_webhook() {
    let api = FakeBotApi::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = test_config();
    config.telegram.webhook_url = format!("http://{addr}/tg-hook");
    config.telegram.webhook_secret = "s3cret".into();
    let app =
        App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), Arc::new(MemoryStore::new()))
            .unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let lifecycle = app.lifecycle.clone();
    let server = tokio::spawn(mallbot::telegram::serve_on_until(api.bot(), app, listener, async {
        let _ = stopped.await;
        "test"
    }));
    api.wait_until("setWebhook", |api| !api.calls("setWebhook").is_empty()).await;
    let base = format!("http://{addr}");
    for path in ["/healthz", "/readyz", "/metrics"] {
        assert_eq!(get(&format!("{base}{path}")).await.0, 404, "{path} on the public listener");
    }
    stop.send(()).unwrap();
    server.await.unwrap().unwrap();
    assert!(lifecycle.is_stopping(), "a stopping webhook instance reports not ready");
}

#[tokio::test]
async fn a_failed_bot_api_call_is_counted_by_its_code() {
    // Counting starts once the recorder is installed (as `mallbot run` does first).
    mallbot::ops::recorder();
    let api = FakeBotApi::start().await;
    api.fail_next(
        "sendMessage",
        403,
        serde_json::json!({"ok": false, "error_code": 403, "description": "Forbidden: bot was blocked by the user"}),
    );
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(ALICE.id), thread: None, reply_to: None };
    let sent = mallbot::telegram::send_text(&api.bot(), &target, "hello", None).await;
    assert!(sent.is_err());
    let scrape = mallbot::ops::recorder().render();
    // No other test of this file makes a Bot API call fail.
    assert_eq!(sample(&scrape, r#"mallbot_telegram_api_errors_total{code="403"}"#), Some(1.0), "{scrape}");
}
