//! Traces from the real binaries: `mallbot run` (on the fake Bot API, the
//! seed's scripted model and the HTTP mall) and `mallbot mall-server`, both
//! exporting OTLP/HTTP protobuf to a collector on loopback that decodes each
//! request with the official definitions (`opentelemetry-proto`). For the
//! seed's purchase flow the test finds, per step, one trace holding the turn,
//! each model round, each tool call, the confirmation and the mall's calls
//! on both sides, correctly parented and named after the GenAI conventions,
//! and no message text, tool argument or chat id anywhere.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;
#[path = "support/seed_flow.rs"]
mod seed_flow;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::routing::post;
use fake_bot_api::*;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::trace::v1::span::SpanKind;
use process::*;
use prost::Message as _;

const SHOPPER: Shopper = Shopper { id: seed_flow::USER, name: "Seed" };
const CONFIRM: &str = "✅ 确认";
const MALL_KEY: &str = "mall-key-otel";

/// One span as the collector received it, with the service that sent it.
#[derive(Debug, Clone)]
struct Got {
    service: String,
    trace: String,
    id: String,
    parent: String,
    name: String,
    kind: i32,
    attributes: BTreeMap<String, String>,
    /// The attributes exported as OTLP integers (a number exported as a
    /// string is in `attributes` only).
    ints: BTreeMap<String, i64>,
    events: Vec<(String, BTreeMap<String, String>)>,
}

impl Got {
    fn attr(&self, key: &str) -> &str {
        self.attributes
            .get(key)
            .map(String::as_str)
            .unwrap_or_else(|| panic!("{} has no {key}: {self:#?}", self.name))
    }

    /// An attribute exported as an integer, as the GenAI and HTTP
    /// conventions type counts, sizes and status codes.
    fn int(&self, key: &str) -> i64 {
        self.attr(key);
        *self.ints.get(key).unwrap_or_else(|| panic!("{} exports {key} as a string: {self:#?}", self.name))
    }
}

/// The attributes that carry a number, wherever a span has them.
const NUMBERS: &[&str] = &[
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "gen_ai.usage.cache_read.input_tokens",
    "mallbot.tool_calls",
    "server.port",
    "http.response.status_code",
];

fn ints(list: &[KeyValue]) -> BTreeMap<String, i64> {
    list.iter()
        .filter_map(|kv| match kv.value.as_ref()?.value.as_ref()? {
            any_value::Value::IntValue(i) => Some((kv.key.clone(), *i)),
            _ => None,
        })
        .collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn text(value: &Option<AnyValue>) -> String {
    match value.as_ref().and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::ArrayValue(a)) => {
            let items: Vec<String> = a.values.iter().map(|v| text(&Some(v.clone()))).collect();
            format!("[{}]", items.join(","))
        }
        other => format!("{other:?}"),
    }
}

fn attributes(list: &[KeyValue]) -> BTreeMap<String, String> {
    list.iter().map(|kv| (kv.key.clone(), text(&kv.value))).collect()
}

/// The loopback collector: `POST /v1/traces`, protobuf.
#[derive(Clone, Default)]
struct Collector {
    spans: Arc<Mutex<Vec<Got>>>,
    requests: Arc<Mutex<usize>>,
}

async fn receive(State(collector): State<Collector>, body: Bytes) -> &'static str {
    let request = ExportTraceServiceRequest::decode(body).expect("an OTLP protobuf export");
    *collector.requests.lock().unwrap() += 1;
    let mut spans = collector.spans.lock().unwrap();
    for resource in request.resource_spans {
        let service = resource
            .resource
            .as_ref()
            .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
            .map(|kv| text(&kv.value))
            .unwrap_or_default();
        for scope in resource.scope_spans {
            for span in scope.spans {
                spans.push(Got {
                    service: service.clone(),
                    trace: hex(&span.trace_id),
                    id: hex(&span.span_id),
                    parent: hex(&span.parent_span_id),
                    name: span.name.clone(),
                    kind: span.kind,
                    attributes: attributes(&span.attributes),
                    ints: ints(&span.attributes),
                    events: span.events.iter().map(|e| (e.name.clone(), attributes(&e.attributes))).collect(),
                });
            }
        }
    }
    ""
}

impl Collector {
    async fn start() -> (Collector, String) {
        let collector = Collector::default();
        let app = axum::Router::new().route("/v1/traces", post(receive)).with_state(collector.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        (collector, url)
    }

    fn spans(&self) -> Vec<Got> {
        self.spans.lock().unwrap().clone()
    }

    /// Waits (bounded) until `done` holds for the spans received.
    async fn wait_until(&self, what: &str, done: impl Fn(&[Got]) -> bool) -> Vec<Got> {
        let deadline = tokio::time::Instant::now() + BOUND;
        loop {
            let spans = self.spans();
            if done(&spans) {
                return spans;
            }
            assert!(tokio::time::Instant::now() < deadline, "never received {what}: {spans:#?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

fn press_button(api: &FakeBotApi, user: Shopper, label: &str) {
    let message = api.sent_to(user.id).last().cloned().unwrap();
    let data = button_data(&message, label).unwrap_or_else(|| panic!("no button {label:?}: {message}"));
    api.push_update(press(user, &message, &data));
}

fn otel_env(endpoint: &str, service: &str) -> Vec<(&'static str, String)> {
    vec![
        ("MALLBOT_OTEL__ENDPOINT", endpoint.to_owned()),
        ("MALLBOT_OTEL__SERVICE_NAME", service.to_owned()),
        // Batches every 200 ms rather than 5 s: the test waits less.
        ("OTEL_BSP_SCHEDULE_DELAY", "200".to_owned()),
    ]
}

fn one<'a>(spans: &'a [Got], what: &str, pick: impl Fn(&Got) -> bool) -> &'a Got {
    let found: Vec<&Got> = spans.iter().filter(|s| pick(s)).collect();
    assert_eq!(found.len(), 1, "one {what}: {found:#?}");
    found[0]
}

fn children<'a>(spans: &'a [Got], parent: &Got) -> Vec<&'a Got> {
    spans.iter().filter(|s| s.parent == parent.id && s.trace == parent.trace).collect()
}

/// The trace of the step that ran `tool`: its spans.
fn trace_of(spans: &[Got], tool: &str) -> Vec<Got> {
    let call = one(spans, &format!("execute_tool {tool}"), |s| s.name == format!("execute_tool {tool}"));
    spans.iter().filter(|s| s.trace == call.trace).cloned().collect()
}

/// A model round: a client `chat` span under `turn` with the GenAI attributes.
fn check_round(round: &Got, finish: &str) {
    assert_eq!(round.name, "chat scripted-model");
    assert_eq!(round.kind, SpanKind::Client as i32);
    assert_eq!(round.attr("gen_ai.operation.name"), "chat");
    assert_eq!(round.attr("gen_ai.provider.name"), "openai");
    assert_eq!(round.attr("gen_ai.request.model"), "scripted-model");
    assert_eq!(round.attr("gen_ai.response.model"), "scripted-model");
    assert!(round.int("gen_ai.usage.input_tokens") > 100, "{round:#?}");
    assert!(round.int("gen_ai.usage.output_tokens") > 0, "{round:#?}");
    assert!(round.int("gen_ai.usage.cache_read.input_tokens") >= 0, "{round:#?}");
    assert!(round.int("mallbot.tool_calls") >= 0, "{round:#?}");
    assert!(round.int("server.port") > 0, "{round:#?}");
    assert_eq!(round.attr("gen_ai.response.finish_reasons"), format!("[{finish}]"));
}

/// A tool call under `parent`, and the mall's side of its calls.
fn check_tool(spans: &[Got], parent: &Got, tool: &str, level: &str, route: &str) {
    let call = one(spans, tool, |s| s.name == format!("execute_tool {tool}"));
    assert_eq!(call.parent, parent.id, "{tool} runs in {}", parent.name);
    assert_eq!(call.attr("gen_ai.operation.name"), "execute_tool");
    assert_eq!(call.attr("gen_ai.tool.name"), tool);
    assert!(call.attr("gen_ai.tool.call.id").starts_with("call_"), "{call:#?}");
    assert_eq!(call.attr("mallbot.tool.level"), level);
    assert_eq!(call.attr("mallbot.tool.outcome"), "ok");
    let mall_call = children(spans, call)
        .into_iter()
        .find(|s| s.name == route)
        .unwrap_or_else(|| panic!("{route} under execute_tool {tool}: {spans:#?}"));
    assert_eq!(mall_call.kind, SpanKind::Client as i32);
    assert_eq!(mall_call.service, "mallbot");
    assert!((200..300).contains(&mall_call.int("http.response.status_code")), "{mall_call:#?}");
    assert!(mall_call.int("server.port") > 0, "{mall_call:#?}");
    // The mall's side, in the same trace: the traceparent went with the call.
    let served =
        one(spans, &format!("the mall serving {route}"), |s| s.service == "mall" && s.parent == mall_call.id);
    assert_eq!(served.name, route);
    assert_eq!(served.kind, SpanKind::Server as i32);
    assert!((200..300).contains(&served.int("http.response.status_code")), "{served:#?}");
}

/// The answer of `turn` sent to Telegram in its trace: the Bot API calls,
/// each a client span under the turn.
fn check_delivery(spans: &[Got], turn: &Got) {
    let sends: Vec<&Got> =
        children(spans, turn).into_iter().filter(|s| s.name.starts_with("telegram ")).collect();
    assert!(!sends.is_empty(), "the delivery of {}'s answer: {spans:#?}", turn.attr("mallbot.turn"));
    for send in sends {
        assert_eq!(send.kind, SpanKind::Client as i32, "{send:#?}");
        assert_eq!(send.attr("mallbot.peer"), "telegram");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_seed_purchase_flow_is_one_trace_per_step_with_the_genai_spans_and_no_text() {
    let (collector, endpoint) = Collector::start().await;
    let dir = TempDir::new("otel");

    // The mall: a mall-server child, tracing too.
    let mall_addr = free_addr();
    let mut mall_env = otel_env(&endpoint, "mall");
    mall_env.extend([
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
    ]);
    let mall = Process::spawn(
        "mall-server",
        &["mall-server", "--listen", &mall_addr.to_string()],
        &mall_env,
        dir.path(),
    );
    wait_for_listener(mall_addr, &mall).await;

    // The bot on the fake Bot API, the seed's scripted model and that mall.
    let api = FakeBotApi::start().await;
    let model = seed_flow::CountingModel::start().await;
    let mut env = bot_env(&api);
    env.extend(otel_env(&endpoint, "mallbot"));
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "scripted-model".to_owned()),
        ("MALLBOT_LLM__API_KEY", "sk-test".to_owned()),
        ("MALLBOT_MALL__BACKEND", "http".to_owned()),
        ("MALLBOT_MALL__BASE_URL", format!("http://{mall_addr}")),
        ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
        ("MALLBOT_EVENTS__POLL_SECS", "0".to_owned()),
        // Every step's model rounds, the one after a confirmed call too (by
        // default that call's own words answer it, with no round to trace).
        ("MALLBOT_LLM__DIRECT_ANSWERS", "false".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    api.wait_until("the bot polls", |api| !api.calls("getUpdates").is_empty()).await;

    // The seed's purchase flow, pressing Confirm at both confirmations.
    let [buy, size, order] = seed_flow::messages(handlers::Lang::Zh);
    api.push_update(private_text(SHOPPER, buy));
    api.wait_for_texts(SHOPPER.id, 1).await;
    api.push_update(private_text(SHOPPER, size));
    api.wait_for_texts(SHOPPER.id, 2).await;
    press_button(&api, SHOPPER, CONFIRM);
    api.wait_for_texts(SHOPPER.id, 3).await;
    api.push_update(private_text(SHOPPER, order));
    api.wait_for_texts(SHOPPER.id, 4).await;
    press_button(&api, SHOPPER, CONFIRM);
    let texts = api.wait_for_texts(SHOPPER.id, 5).await;
    assert!(texts.iter().any(|t| t.contains("下单成功")), "the order was placed: {texts:?}");
    let received = model.received();
    assert_eq!(received.len(), 6, "six model calls");

    let spans = collector
        .wait_until("the flow's spans", |spans| {
            spans.iter().filter(|s| s.name == "invoke_agent mallbot").count() >= 5
                && spans.iter().filter(|s| s.name.starts_with("telegram ")).count() >= 5
                && spans.iter().filter(|s| s.name.starts_with("chat ")).count() >= 6
                && spans.iter().any(|s| s.name == "execute_tool create_order")
                && spans
                    .iter()
                    .filter(|s| s.service == "mallbot" && s.attributes.contains_key("http.route"))
                    .all(|call| spans.iter().any(|s| s.service == "mall" && s.parent == call.id))
        })
        .await;

    // Step 1: search, recommend. One turn, two rounds, one tool call.
    let step = trace_of(&spans, "search_products");
    let turn = one(&step, "turn", |s| s.name == "invoke_agent mallbot");
    assert_eq!(turn.parent, "", "the turn is the root");
    assert_eq!(turn.attr("gen_ai.operation.name"), "invoke_agent");
    assert_eq!(turn.attr("gen_ai.agent.name"), "mallbot");
    let conversation = turn.attr("gen_ai.conversation.id").to_owned();
    assert_eq!(conversation.len(), 32, "a hash: {conversation}");
    let rounds: Vec<&Got> =
        children(&step, turn).into_iter().filter(|s| s.name.starts_with("chat ")).collect();
    assert_eq!(rounds.len(), 2, "{step:#?}");
    check_round(rounds[0], "tool_calls");
    check_round(rounds[1], "stop");
    check_tool(&step, turn, "search_products", "safe", "GET /api/products/search");
    check_delivery(&step, turn);

    // Steps 2 and 3: a round asks for a confirmation; the press resumes the
    // turn in the same trace, runs the call, and a round answers.
    for (tool, level, route) in
        [("add_to_cart", "confirm", "POST /api/cart/items"), ("create_order", "critical", "POST /api/orders")]
    {
        let step = trace_of(&spans, tool);
        let asking = one(&step, "the asking turn", |s| {
            s.name == "invoke_agent mallbot"
                && s.attributes.get("mallbot.resumed").map(String::as_str) == Some("false")
        });
        assert_eq!(asking.parent, "", "{tool}: the asking turn is the root");
        let asked = asking
            .events
            .iter()
            .find(|(name, _)| name == "mallbot.confirmation.asked")
            .unwrap_or_else(|| panic!("a confirmation event: {asking:#?}"));
        assert_eq!(asked.1["gen_ai.tool.name"], tool);
        assert_eq!(asked.1["mallbot.tool.level"], level);
        let rounds: Vec<&Got> =
            children(&step, asking).into_iter().filter(|s| s.name.starts_with("chat ")).collect();
        assert_eq!(rounds.len(), 1, "{tool}: the round that called it");
        check_round(rounds[0], "tool_calls");
        let resumed = one(&step, "the resumed turn", |s| {
            s.name == "invoke_agent mallbot"
                && s.attributes.get("mallbot.resumed").map(String::as_str) == Some("true")
        });
        assert_eq!(resumed.parent, asking.id, "{tool}: the press continues the asking turn");
        assert!(resumed.events.iter().any(|(name, a)| name == "mallbot.confirmation.pressed"
            && a["mallbot.confirmation.approved"] == "true"));
        check_tool(&step, resumed, tool, level, route);
        check_delivery(&step, asking);
        check_delivery(&step, resumed);
        let answers: Vec<&Got> =
            children(&step, resumed).into_iter().filter(|s| s.name.starts_with("chat ")).collect();
        assert_eq!(answers.len(), 1, "{tool}: the round after the call");
        check_round(answers[0], "stop");
        for turn in [asking, resumed] {
            assert_eq!(turn.attr("gen_ai.conversation.id"), conversation, "one conversation");
        }
    }

    // Every number is exported as an OTLP integer, on every span that has one.
    for span in &spans {
        for key in NUMBERS.iter().filter(|key| span.attributes.contains_key(**key)) {
            span.int(key);
        }
    }

    // Nothing the shopper or the model wrote, no tool argument, no chat id.
    let mut words: Vec<String> = [buy, size, order].iter().map(|s| s.to_string()).collect();
    words.extend(
        ["跑鞋", "推荐", "已加入购物车", "下单成功", "product_id", "cart_id", "keyword"].map(String::from),
    );
    let chat_id = SHOPPER.id.to_string();
    for span in &spans {
        let values = span
            .attributes
            .iter()
            .chain(span.events.iter().flat_map(|(_, a)| a.iter()))
            .filter(|(key, _)| *key != "gen_ai.conversation.id");
        for (key, value) in values {
            for word in &words {
                assert!(!value.contains(word.as_str()), "{word:?} in {key} of {}: {value}", span.name);
            }
            assert!(!value.contains(&chat_id), "the chat id in {key} of {}: {value}", span.name);
        }
        assert!(!span.attributes.keys().any(|k| k.ends_with(".messages") || k.ends_with(".arguments")));
    }

    bot.terminate();
    mall.terminate();
    drop((bot, mall));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_collector_that_is_down_costs_a_counter_and_a_warning_and_no_answer_waits() {
    let dir = TempDir::new("otel-down");
    let api = FakeBotApi::start().await;
    let model = seed_flow::CountingModel::start().await;
    let ops = free_addr();
    let mut env = bot_env(&api);
    // A collector nobody listens on, its URL carrying credentials.
    env.extend(otel_env(&format!("http://trace-user:trace-pass-91@{}", free_addr()), "mallbot"));
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "scripted-model".to_owned()),
        ("MALLBOT_LLM__API_KEY", "sk-test".to_owned()),
        ("MALLBOT_OPS__LISTEN", ops.to_string()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    api.wait_until("the bot polls", |api| !api.calls("getUpdates").is_empty()).await;

    let started = std::time::Instant::now();
    api.push_update(private_text(SHOPPER, seed_flow::messages(handlers::Lang::Zh)[0]));
    api.wait_until("the answer", |api| api.shown_to(SHOPPER.id).iter().any(|t| t.contains("推荐"))).await;
    assert!(started.elapsed() < Duration::from_secs(5), "answered in {:?}", started.elapsed());

    bot.wait_for_log("could not send spans to the collector").await;
    let failures = async {
        let scrape = reqwest::get(format!("http://{ops}/metrics")).await.ok()?.text().await.ok()?;
        scrape
            .lines()
            .find_map(|l| l.strip_prefix("mallbot_otel_export_failures_total ")?.parse::<f64>().ok())
    };
    assert!(failures.await.unwrap_or(0.0) >= 1.0, "failed exports are counted");

    // And the bot still answers, and stops promptly.
    api.push_update(private_text(Shopper { id: 77, name: "Other" }, "/help"));
    api.wait_for_texts(77, 1).await;
    bot.terminate();
    let mut bot = bot;
    let stopping = std::time::Instant::now();
    assert!(bot.exit_status().await.success());
    assert!(stopping.elapsed() < Duration::from_secs(10), "stopped in {:?}", stopping.elapsed());
    assert_eq!(bot.log().matches("could not send spans").count(), 1, "one warning a minute: {}", bot.log());
    assert!(
        !bot.log().contains("trace-pass-91"),
        "the collector's credentials stay out of the log: {}",
        bot.log()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_mcp_callers_trace_goes_on_in_mallbot_mcp() {
    use rmcp::ServiceExt as _;
    use rmcp::model::{CallToolRequestParams, RequestMetaObject};

    let (collector, endpoint) = Collector::start().await;
    let dir = TempDir::new("otel-mcp");
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mallbot"));
    for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
        command.env_remove(key);
    }
    command
        .arg("mcp")
        .current_dir(dir.path())
        .envs(otel_env(&endpoint, "mallbot"))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db"))
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db")))
        .env("RUST_LOG", "warn");
    let client = ().serve(rmcp::transport::TokioChildProcess::new(command).unwrap()).await.unwrap();

    // A caller in the middle of its own trace.
    let (trace, caller) = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331");
    let mut params = CallToolRequestParams::new("search_products");
    params.arguments = serde_json::json!({"keyword": "running shoes"}).as_object().cloned();
    let mut meta = RequestMetaObject::default();
    meta.set_traceparent(format!("00-{trace}-{caller}-01"));
    params.meta = Some(meta);
    let result = client.peer().call_tool(params).await.unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");

    let spans = collector
        .wait_until("the tool call", |spans| spans.iter().any(|s| s.name == "execute_tool search_products"))
        .await;
    let served = one(&spans, "the served call", |s| s.name == "tools/call search_products");
    assert_eq!(
        (served.trace.as_str(), served.parent.as_str()),
        (trace, caller),
        "the caller's trace goes on"
    );
    assert_eq!(served.kind, SpanKind::Server as i32);
    assert_eq!(served.attr("mcp.method.name"), "tools/call");
    let call = one(&spans, "the tool call", |s| s.name == "execute_tool search_products");
    assert_eq!(call.parent, served.id);
    assert!(
        !call.attributes.contains_key("gen_ai.tool.call.arguments"),
        "no arguments without capture_content"
    );
    let _ = client.cancel().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamed_rounds_have_a_time_to_first_chunk_and_content_is_there_only_when_asked() {
    let (collector, endpoint) = Collector::start().await;
    let dir = TempDir::new("otel-stream");
    let api = FakeBotApi::start().await;
    let model = fake_model::FakeModel::start(fake_model::ModelBehaviour {
        latency: Duration::from_millis(200),
        ttft: Duration::from_millis(100),
        ..fake_model::ModelBehaviour::default()
    })
    .await;
    let mut env = bot_env(&api);
    env.extend(otel_env(&endpoint, "mallbot"));
    env.extend([
        ("MALLBOT_OTEL__CAPTURE_CONTENT", "true".to_owned()),
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "fake".to_owned()),
        ("MALLBOT_LLM__API_KEY", "fake-key".to_owned()),
        ("MALLBOT_LLM__STREAM", "true".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    api.wait_until("the bot polls", |api| !api.calls("getUpdates").is_empty()).await;
    let text = format!("有没有 500 元以内的 Nike 跑鞋？ {}", fake_model::tag(SHOPPER.id, 0));
    api.push_update(private_text(SHOPPER, &text));

    let spans = collector
        .wait_until("two rounds and the delivery", |spans| {
            spans.iter().filter(|s| s.name == "chat fake").count() >= 2
                && spans.iter().any(|s| s.name.starts_with("telegram "))
        })
        .await;
    let rounds: Vec<&Got> = spans.iter().filter(|s| s.name == "chat fake").collect();
    for round in &rounds {
        assert_eq!(round.attr("gen_ai.request.stream"), "true");
        let first: f64 = round.attr("gen_ai.response.time_to_first_chunk").parse().unwrap();
        assert!(first > 0.0 && first < 10.0, "{round:#?}");
        assert!(round.attr("gen_ai.input.messages").contains("Nike 跑鞋"), "the request, captured");
        round.attr("gen_ai.output.messages");
    }
    let turn = one(&spans, "the turn", |s| s.name == "invoke_agent mallbot");
    assert!(turn.attr("gen_ai.input.messages").contains("Nike 跑鞋"), "{turn:#?}");
    assert!(turn.attr("gen_ai.output.messages").contains("assistant"), "{turn:#?}");
    let call = one(&spans, "the tool call", |s| s.name == "execute_tool search_products");
    assert!(call.attr("gen_ai.tool.call.arguments").contains("Nike"), "{call:#?}");
    call.attr("gen_ai.tool.call.result");
    drop(bot);
}

/// `mallbot chat` as user 5 in `dir`, tracing to `endpoint`; says hello and quits.
fn traced_chat(endpoint: &str, dir: &std::path::Path) {
    use std::io::Write as _;
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(["chat", "--user", "5"])
        .envs(otel_env(endpoint, "mallbot"))
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.join("state.db").display()))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env_remove("MALLBOT_TELEGRAM__TOKEN")
        .env_remove("MALLBOT_CONFIG")
        .current_dir(dir)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all("你好\n".as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "chat failed: {}", String::from_utf8_lossy(&out.stderr));
}

/// The `gen_ai.conversation.id`s of the turns received so far.
fn conversation_ids(collector: &Collector) -> Vec<String> {
    collector
        .spans()
        .iter()
        .filter(|s| s.name == "invoke_agent mallbot")
        .map(|s| s.attr("gen_ai.conversation.id").to_owned())
        .collect()
}

/// What an id keyed with an empty secret would be: anyone can compute it
/// for every chat id, so it must not be what is exported.
fn keyed_with_nothing(platform: &str, chat_id: i64) -> String {
    let label = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, b"mallbot otel conversation id");
    let derived = ring::hmac::sign(&label, b"");
    let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, derived.as_ref());
    hex(&ring::hmac::sign(&key, format!("{platform}:{chat_id}").as_bytes()).as_ref()[..16])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn terminal_chat_conversation_ids_are_keyed_with_the_installations_own_secret() {
    let (collector, endpoint) = Collector::start().await;
    let (one, other) = (TempDir::new("otel-chat-one"), TempDir::new("otel-chat-other"));
    let run = |dir: std::path::PathBuf, turns: usize| {
        let endpoint = endpoint.clone();
        let collector = collector.clone();
        async move {
            tokio::task::spawn_blocking(move || traced_chat(&endpoint, &dir)).await.unwrap();
            collector
                .wait_until("the chat's turn", |spans| {
                    spans.iter().filter(|s| s.name == "invoke_agent mallbot").count() >= turns
                })
                .await;
            conversation_ids(&collector).pop().unwrap()
        }
    };
    let first = run(one.path().to_owned(), 1).await;
    assert_eq!(first.len(), 32, "a hash: {first}");
    assert_ne!(first, keyed_with_nothing("console", 5), "not keyed with an empty secret");
    let again = run(one.path().to_owned(), 2).await;
    assert_eq!(again, first, "the same installation keeps its ids across restarts");
    let elsewhere = run(other.path().to_owned(), 3).await;
    assert_ne!(elsewhere, first, "another installation has its own secret");
}
