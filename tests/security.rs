//! What an outsider can and cannot do to a running `mallbot`, driven through
//! the real binary: the ops endpoints stay off the public webhook port and
//! cost nothing to probe, MCP servers do not see the bot's keys, floods of
//! messages and new chats are bounded, model answers cannot make Telegram
//! fetch a URL, a voice note's size is not taken on trust, and
//! `mall-server` does not serve anyone on any host.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[allow(dead_code)]
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;

use fake_bot_api::*;
use fake_model::{FakeModel, ModelBehaviour};
use process::*;

/// The environment of a bot on the fake Bot API and the fake model.
fn bot_on(api: &FakeBotApi, model: &FakeModel, dir: &TempDir) -> Vec<(&'static str, String)> {
    let mut env = bot_env(api);
    env.extend([
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__API_KEY", "sk-model-secret".to_owned()),
        ("MALLBOT_LLM__MODEL", "test-model".to_owned()),
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
    ]);
    env
}

async fn get(url: impl reqwest::IntoUrl, bearer: Option<&str>) -> (u16, String) {
    let mut request = reqwest::Client::new().get(url);
    if let Some(header) = bearer {
        request = request.header("Authorization", header);
    }
    let response = request.send().await.unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

#[tokio::test]
async fn ops_endpoints_are_off_the_webhook_port_readyz_costs_no_model_call_and_metrics_take_the_token() {
    let api = FakeBotApi::start().await;
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let dir = TempDir::new("ops-off-webhook");
    let (hook, ops) = (free_addr(), free_addr());
    let mut env = bot_on(&api, &model, &dir);
    env.extend([
        ("MALLBOT_TELEGRAM__MODE", "webhook".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_URL", "https://bot.example.test/tg-hook".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_SECRET", "hook-secret".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_LISTEN", hook.to_string()),
        ("MALLBOT_OPS__LISTEN", ops.to_string()),
        ("MALLBOT_OPS__TOKEN", "ops-token-9".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    wait_for_listener(hook, &bot).await;
    wait_for_listener(ops, &bot).await;

    // From the internet, the webhook port has nothing but the webhook.
    for path in ["/metrics", "/healthz", "/readyz"] {
        assert_eq!(get(&format!("http://{hook}{path}"), None).await.0, 404, "{path} on the webhook port");
    }
    // Probing readiness hard costs no model call.
    let before = model.calls();
    let probes = (0..300).map(|_| get(format!("http://{ops}/readyz"), None));
    for (status, body) in futures::future::join_all(probes).await {
        assert_eq!(status, 200, "{body}");
        assert!(!body.contains("model"), "{body}");
    }
    assert_eq!(model.calls(), before, "300 readiness probes reached the model");
    // /metrics wants ops.token; the scheme in any case.
    assert_eq!(get(&format!("http://{ops}/metrics"), None).await.0, 401);
    assert_eq!(get(&format!("http://{ops}/metrics"), Some("Bearer wrong")).await.0, 401);
    let (status, scrape) = get(&format!("http://{ops}/metrics"), Some("bearer ops-token-9")).await;
    assert_eq!(status, 200, "{scrape}");
    assert_eq!(get(&format!("http://{ops}/healthz"), None).await, (200, "ok".to_owned()));
}

#[tokio::test]
async fn a_webhook_bot_without_ops_listen_keeps_its_ops_endpoints_on_loopback() {
    let api = FakeBotApi::start().await;
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let dir = TempDir::new("ops-default");
    let hook = free_addr();
    let mut env = bot_on(&api, &model, &dir);
    env.extend([
        ("MALLBOT_TELEGRAM__MODE", "webhook".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_URL", "https://bot.example.test/tg-hook".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_SECRET", "hook-secret".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_LISTEN", hook.to_string()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    wait_for_listener(hook, &bot).await;
    bot.wait_for_log("ops endpoints").await;
    assert!(bot.log().contains("127.0.0.1:9464"), "{}", bot.log());
    assert_eq!(get(&format!("http://{hook}/metrics"), None).await.0, 404);
    // The same port as the webhook is refused at start.
    env.push(("MALLBOT_OPS__LISTEN", hook.to_string()));
    let mut refused = Process::spawn("bot on one port", &["check"], &env, dir.path());
    assert!(!refused.exit_status().await.success());
    assert!(refused.log().contains("ops.listen"), "{}", refused.log());
}

#[tokio::test]
async fn an_mcp_server_child_gets_a_clean_environment() {
    let api = FakeBotApi::start().await;
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let dir = TempDir::new("mcp-env");
    let dump = dir.file("child-env.txt");
    let config = dir.file("mallbot.toml");
    std::fs::write(
        &config,
        format!(
            "[mcp.servers.dump]\ncommand = \"/bin/sh\"\nargs = [\"-c\", \"env > {dump}.tmp && mv {dump}.tmp {dump}; sleep 30\"]\n\
             level = \"safe\"\n[mcp.servers.dump.env]\nOWN_SETTING = \"mine\"\n"
        ),
    )
    .unwrap();
    let mut env = bot_on(&api, &model, &dir);
    env.extend([
        ("MALLBOT_MALL__API_KEY", "mall-key-secret".to_owned()),
        ("MALLBOT_STT__API_KEY", "stt-key-secret".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["--config", &config, "run"], &env, dir.path());
    let deadline = tokio::time::Instant::now() + BOUND;
    while !std::path::Path::new(&dump).exists() {
        assert!(tokio::time::Instant::now() < deadline, "the MCP server never started: {}", bot.log());
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let seen = std::fs::read_to_string(&dump).unwrap();
    for secret in ["123:TEST", "sk-model-secret", "mall-key-secret", "stt-key-secret", "MALLBOT_"] {
        assert!(!seen.contains(secret), "the MCP server saw {secret:?}:\n{seen}");
    }
    assert!(seen.lines().any(|l| l == "OWN_SETTING=mine"), "{seen}");
    assert!(seen.lines().any(|l| l.starts_with("PATH=")), "{seen}");
    let names: Vec<&str> = seen.lines().filter_map(|l| l.split_once('=')).map(|(k, _)| k).collect();
    let allowed = ["PATH", "HOME", "LANG", "TZ", "OWN_SETTING", "PWD", "SHLVL", "_"];
    assert!(names.iter().all(|n| allowed.contains(n)), "unexpected variables: {names:?}");
}

const ALICE: Shopper = Shopper { id: 1001, name: "Alice" };

/// Waits until `chat` has received `count` messages, then 1.5 s more; returns
/// every text it has then (so that one too many would show).
async fn settled_texts(api: &FakeBotApi, chat: i64, count: usize) -> Vec<String> {
    api.wait_for_texts(chat, count).await;
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    api.texts_to(chat)
}

#[tokio::test]
async fn over_the_rate_limit_commands_count_and_slow_down_is_said_once() {
    let api = FakeBotApi::start().await;
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let dir = TempDir::new("rate-commands");
    let mut env = bot_on(&api, &model, &dir);
    env.push(("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "3".to_owned()));
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    bot.wait_for_log("connected to telegram").await;
    for _ in 0..8 {
        api.push_update(private_text(ALICE, "/help"));
    }
    let texts = settled_texts(&api, ALICE.id, 4).await;
    let slow_down = handlers::Lang::Zh.texts().turn.rate_limited;
    assert_eq!(texts.len(), 4, "3 answers and one notice, then silence: {texts:#?}");
    assert_eq!(texts.iter().filter(|t| *t == slow_down).count(), 1, "{texts:#?}");
    assert_eq!(texts.last().map(String::as_str), Some(slow_down), "{texts:#?}");
}

#[tokio::test]
async fn a_flood_in_one_chat_is_cut_at_the_lane_with_one_notice() {
    let api = FakeBotApi::start().await;
    let model = FakeModel::start(ModelBehaviour {
        latency: std::time::Duration::from_millis(150),
        ..ModelBehaviour::default()
    })
    .await;
    let dir = TempDir::new("lane-flood");
    let mut env = bot_on(&api, &model, &dir);
    env.push(("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()));
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    bot.wait_for_log("connected to telegram").await;
    for n in 0..40 {
        api.push_update(private_text(ALICE, &format!("running shoes {n}")));
    }
    let notice = handlers::Lang::Zh.texts().turn.too_many_waiting;
    api.wait_until("the queue-full notice", |api| api.texts_to(ALICE.id).iter().any(|t| t == notice)).await;
    // The one being answered and the ten waiting get answers (each kept
    // message replaces its status), then nothing more reaches the model.
    let deadline = tokio::time::Instant::now() + BOUND;
    let mut calls = model.calls();
    loop {
        tokio::time::sleep(std::time::Duration::from_millis(1000)).await;
        let now = model.calls();
        if now == calls {
            break;
        }
        calls = now;
        assert!(tokio::time::Instant::now() < deadline, "the model is still being called: {now}");
    }
    assert!(calls <= 2 * 11, "40 messages reached the model as {calls} calls; at most 11 turns expected");
    let texts = api.texts_to(ALICE.id);
    assert_eq!(texts.iter().filter(|t| *t == notice).count(), 1, "{texts:#?}");
    assert!(bot.log().contains("update dropped"), "{}", bot.log());
}
