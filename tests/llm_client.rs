//! The OpenAI-compatible client against a scripted chat-completions server on
//! loopback: one test per provider quirk (plain and streamed), the request body
//! the provider receives, retries, timeouts and error bodies.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, Uri, header};
use axum::response::Response;
use futures::StreamExt;
use futures::future::BoxFuture;
use handlers::{Level, Scope, ToolContext, ToolOutput, ToolResult, ToolSpec};
use mallbot::llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, ToolCall, Usage};
use mallbot::llm::{OpenAiClient, OpenAiSettings, tool_definition};
use mallbot::{Progress, TurnEvent};
use serde_json::{Value, json};
use tokio::sync::Notify;

// ---------------------------------------------------------------- the scripted server

/// One canned answer of the server.
#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, &'static str)>,
    /// Sent as separate body frames.
    pieces: Vec<String>,
    delay: Duration,
    /// The last piece waits until this is notified.
    gate: Option<Arc<Notify>>,
    /// After the pieces the connection is broken instead of ended.
    cut: bool,
}

impl Reply {
    /// `200` with a JSON body.
    fn json(body: Value) -> Reply {
        Reply::raw(200, "application/json", &body.to_string())
    }

    /// `200` with an event stream: one frame per chunk, then `[DONE]`.
    fn sse(chunks: &[Value]) -> Reply {
        let mut pieces: Vec<String> = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        pieces.push("data: [DONE]\n\n".into());
        Reply {
            status: 200,
            headers: vec![("content-type", "text/event-stream")],
            pieces,
            delay: Duration::ZERO,
            gate: None,
            cut: false,
        }
    }

    /// An event stream of these chunks that breaks off without `[DONE]`.
    fn sse_cut(chunks: &[Value]) -> Reply {
        let mut reply = Reply::sse(chunks);
        reply.pieces.pop();
        reply.cut = true;
        reply
    }

    /// An event stream of these chunks that ends without `[DONE]` or a finish reason.
    fn sse_unfinished(chunks: &[Value]) -> Reply {
        let mut reply = Reply::sse(chunks);
        reply.pieces.pop();
        reply
    }

    /// Holds the last piece back until `gate` is notified.
    fn gated(mut self, gate: &Arc<Notify>) -> Reply {
        self.gate = Some(gate.clone());
        self
    }

    /// Any status, content type and body.
    fn raw(status: u16, content_type: &'static str, body: &str) -> Reply {
        Reply {
            status,
            headers: vec![("content-type", content_type)],
            pieces: vec![body.into()],
            delay: Duration::ZERO,
            gate: None,
            cut: false,
        }
    }

    fn header(mut self, name: &'static str, value: &'static str) -> Reply {
        self.headers.push((name, value));
        self
    }

    fn after(mut self, delay: Duration) -> Reply {
        self.delay = delay;
        self
    }
}

/// A request the server received.
struct Hit {
    path: String,
    authorization: Option<String>,
    body: Value,
}

/// The server: answers with the replies in order, repeating the last one.
struct Scripted {
    url: String,
    hits: Arc<Mutex<Vec<Hit>>>,
}

#[derive(Clone)]
struct Script {
    replies: Arc<Vec<Reply>>,
    hits: Arc<Mutex<Vec<Hit>>>,
}

impl Scripted {
    async fn start(replies: Vec<Reply>) -> Scripted {
        let hits = Arc::new(Mutex::new(Vec::new()));
        let script = Script { replies: Arc::new(replies), hits: hits.clone() };
        let app = axum::Router::new().fallback(answer).with_state(script);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Scripted { url, hits }
    }

    fn hits(&self) -> usize {
        self.hits.lock().unwrap().len()
    }

    fn body(&self, n: usize) -> Value {
        self.hits.lock().unwrap()[n].body.clone()
    }

    /// Settings for this server: `{url}/v1`, a key, 2 retries, 5 s timeout.
    fn settings(&self, stream: bool) -> OpenAiSettings {
        OpenAiSettings {
            base_url: format!("{}/v1", self.url),
            api_key: "sk-test".into(),
            model: "test-model".into(),
            request_timeout: Duration::from_secs(5),
            max_retries: 2,
            stream,
            temperature: None,
            max_tokens: 1024,
            max_concurrent: 0,
        }
    }

    fn client(&self, stream: bool) -> OpenAiClient {
        OpenAiClient::new(self.settings(stream)).unwrap()
    }
}

async fn answer(State(script): State<Script>, uri: Uri, headers: HeaderMap, body: Bytes) -> Response {
    let n = {
        let mut hits = script.hits.lock().unwrap();
        hits.push(Hit {
            path: uri.path().to_owned(),
            authorization: headers.get(header::AUTHORIZATION).map(|v| v.to_str().unwrap().to_owned()),
            body: serde_json::from_slice(&body).unwrap_or(Value::Null),
        });
        hits.len() - 1
    };
    let reply = script.replies[n.min(script.replies.len() - 1)].clone();
    tokio::time::sleep(reply.delay).await;
    let count = reply.pieces.len();
    let (gate, cut) = (reply.gate.clone(), reply.cut);
    let frames = futures::stream::iter(reply.pieces.into_iter().enumerate().map(Some).chain([None])).then(
        move |piece| {
            let gate = gate.clone();
            async move {
                match piece {
                    Some((i, piece)) => {
                        if let (true, Some(gate)) = (i + 1 == count, gate) {
                            gate.notified().await;
                        }
                        Some(Ok::<_, std::io::Error>(piece))
                    }
                    None if cut => Some(Err(std::io::Error::other("connection cut"))),
                    None => None,
                }
            }
        },
    );
    let frames = frames.take_while(|f| std::future::ready(f.is_some())).filter_map(std::future::ready);
    let mut response = Response::new(Body::from_stream(frames));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap();
    for (name, value) in reply.headers {
        response.headers_mut().insert(name, HeaderValue::from_static(value));
    }
    response
}

// ---------------------------------------------------------------- tools, requests, answers

fn keyword_schema() -> Value {
    json!({"type": "object", "properties": {"keyword": {"type": "string"}}, "required": ["keyword"]})
}

fn no_parameters() -> Value {
    json!({"type": "object", "properties": {}})
}

fn not_run(_: ToolContext, _: Value) -> BoxFuture<'static, ToolResult> {
    Box::pin(async { Ok(ToolOutput::default()) })
}

static SEARCH: ToolSpec = ToolSpec {
    name: "search_products",
    module: module_path!(),
    description: "Search products by keyword.",
    level: Level::Safe,
    scope: Scope::Both,
    require_at: false,
    schema: keyword_schema,
    output_schema: None,
    call: not_run,
    preview: None,
    progress: None,
    offline: None,
    help: None,
};

static VIEW_CART: ToolSpec = ToolSpec {
    name: "view_cart",
    module: module_path!(),
    description: "Show the shopper's cart.",
    level: Level::Safe,
    scope: Scope::Private,
    require_at: false,
    schema: no_parameters,
    output_schema: None,
    call: not_run,
    preview: None,
    progress: None,
    offline: None,
    help: None,
};

fn tools() -> [mallbot::Tool; 2] {
    [mallbot::Tool::Builtin(&SEARCH), mallbot::Tool::Builtin(&VIEW_CART)]
}

fn question() -> Vec<ChatMessage> {
    vec![ChatMessage::system("You are the mall's shopping guide."), ChatMessage::user("帮我找500以内的跑鞋")]
}

async fn ask(client: &OpenAiClient, messages: &[ChatMessage]) -> Result<ChatResponse, LlmError> {
    client.complete(ChatRequest { messages, tools: &tools(), progress: None }).await
}

/// One round against a fresh server that gives this reply.
async fn answer_to(reply: Reply) -> ChatResponse {
    let stream = reply.headers.contains(&("content-type", "text/event-stream"));
    let server = Scripted::start(vec![reply]).await;
    ask(&server.client(stream), &question()).await.unwrap()
}

fn completion(message: Value, finish_reason: Value) -> Value {
    json!({
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason}],
        "usage": {"prompt_tokens": 50, "completion_tokens": 7},
    })
}

fn chunk(delta: Value, finish_reason: Value) -> Value {
    json!({"id": "chatcmpl-1", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]})
}

fn calls_chunk(tool_calls: Value) -> Value {
    chunk(json!({"tool_calls": tool_calls}), Value::Null)
}

fn usage_chunk() -> Value {
    json!({"id": "chatcmpl-1", "choices": [], "usage": {"prompt_tokens": 80, "completion_tokens": 12}})
}

fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
    ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() }
}

const SHOES: &str = r#"{"keyword":"跑鞋"}"#;
const STREAM_USAGE: Usage = Usage { prompt_tokens: 80, completion_tokens: 12, cached_tokens: 0 };
const PLAIN_USAGE: Usage = Usage { prompt_tokens: 50, completion_tokens: 7, cached_tokens: 0 };

// ---------------------------------------------------------------- finish_reason ""

#[tokio::test]
async fn an_empty_finish_reason_is_none_sglang_localai() {
    let r = answer_to(Reply::json(completion(
        json!({"role": "assistant", "content": "优衣库在二楼。"}),
        json!(""),
    )))
    .await;
    assert_eq!(r.message.text(), "优衣库在二楼。");
    assert_eq!(r.finish_reason, None);
    assert_eq!(r.usage, PLAIN_USAGE);
}

#[tokio::test]
async fn empty_finish_reasons_in_a_stream_do_not_hide_the_last_one_ollama() {
    let r = answer_to(Reply::sse(&[
        chunk(json!({"role": "assistant", "content": "优衣库"}), json!("")),
        chunk(json!({"content": "在二楼。"}), json!("")),
        chunk(json!({"content": ""}), json!("stop")),
        usage_chunk(),
    ]))
    .await;
    assert_eq!(r.message.text(), "优衣库在二楼。");
    assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    assert_eq!(r.usage, STREAM_USAGE);

    let r = answer_to(Reply::sse(&[chunk(json!({"content": "你好"}), json!(""))])).await;
    assert_eq!(r.message.text(), "你好");
    assert_eq!(r.finish_reason, None);
}

// ---------------------------------------------------------------- tool-call deltas

#[tokio::test]
async fn index_less_tool_call_deltas_make_separate_calls_ollama() {
    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"id": "call_a1", "type": "function", "function": {"name": "search_products", "arguments": SHOES}}])),
        calls_chunk(json!([{"id": "call_b2", "type": "function", "function": {"name": "view_cart", "arguments": "{}"}}])),
        chunk(json!({}), json!("tool_calls")),
        usage_chunk(),
    ]))
    .await;
    assert_eq!(
        r.message.tool_calls,
        [call("call_a1", "search_products", SHOES), call("call_b2", "view_cart", "{}")]
    );
    assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(r.usage, STREAM_USAGE);
}

#[tokio::test]
async fn null_indexes_empty_ids_split_arguments_and_stop_gemini() {
    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"index": null, "id": "", "type": "function", "function": {"name": "search_products", "arguments": "{\"keyword\":"}}])),
        calls_chunk(json!([{"index": null, "id": "", "function": {"arguments": "\"跑鞋\"}"}}])),
        calls_chunk(json!([{"index": null, "id": "", "type": "function", "function": {"name": "view_cart", "arguments": "{}"}}])),
        chunk(json!({}), json!("stop")),
        usage_chunk(),
    ]))
    .await;
    assert_eq!(
        r.message.tool_calls,
        [call("call_0", "search_products", SHOES), call("call_1", "view_cart", "{}")]
    );
    assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"), "tool calls present: the turn calls tools");
    assert_eq!(r.usage, STREAM_USAGE);
}

#[tokio::test]
async fn empty_ids_and_stop_after_tool_calls_in_a_plain_answer_gemini() {
    let message = json!({"role": "assistant", "content": null, "tool_calls": [
        {"id": "", "type": "function", "function": {"name": "search_products", "arguments": SHOES}},
    ]});
    let r = answer_to(Reply::json(completion(message, json!("stop")))).await;
    assert_eq!(r.message.tool_calls, [call("call_0", "search_products", SHOES)]);
    assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));
}

#[tokio::test]
async fn null_ids_and_names_on_continuations_mean_unchanged_gateways() {
    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"index": 0, "id": "call_x", "type": "function", "function": {"name": "search_products", "arguments": ""}}])),
        calls_chunk(json!([{"index": 0, "id": null, "type": null, "function": {"name": null, "arguments": "{\"keyword\""}}])),
        calls_chunk(json!([{"index": 0, "id": null, "type": null, "function": {"name": null, "arguments": ":\"跑鞋\"}"}}])),
        chunk(json!({}), json!("tool_calls")),
    ]))
    .await;
    assert_eq!(r.message.tool_calls, [call("call_x", "search_products", SHOES)]);
}

#[tokio::test]
async fn empty_names_on_continuations_mean_unchanged_sglang() {
    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"index": 0, "id": "call_s", "type": "function", "function": {"name": "search_products", "arguments": ""}}])),
        calls_chunk(json!([{"index": 0, "id": "", "function": {"name": "", "arguments": "{\"keyword\":\"跑鞋\""}}])),
        calls_chunk(json!([{"index": 0, "id": "", "function": {"name": "", "arguments": "}"}}])),
        chunk(json!({}), json!("tool_calls")),
    ]))
    .await;
    assert_eq!(r.message.tool_calls, [call("call_s", "search_products", SHOES)]);
}

#[tokio::test]
async fn only_the_first_chunk_carries_the_id_litellm() {
    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"index": 0, "id": "call_first", "type": "function", "function": {"name": "search_products"}}])),
        calls_chunk(json!([{"index": 0, "function": {"arguments": "{\"keyword\":"}}])),
        calls_chunk(json!([{"index": 1, "id": "call_second", "type": "function", "function": {"name": "view_cart"}}])),
        calls_chunk(json!([{"index": 0, "function": {"arguments": "\"跑鞋\"}"}}])),
        calls_chunk(json!([{"index": 1, "function": {"arguments": "{}"}}])),
        chunk(json!({}), json!("tool_calls")),
    ]))
    .await;
    assert_eq!(
        r.message.tool_calls,
        [call("call_first", "search_products", SHOES), call("call_second", "view_cart", "{}")]
    );
}

#[tokio::test]
async fn a_trailing_argument_chunk_without_id_type_or_name_completes_the_call_vllm() {
    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"index": 0, "id": "chatcmpl-tool-1", "type": "function", "function": {"name": "search_products", "arguments": "{\"keyword\": "}}])),
        calls_chunk(json!([{"index": 0, "function": {"arguments": "\"跑鞋"}}])),
        calls_chunk(json!([{"function": {"arguments": "\"}"}}])),
        chunk(json!({}), json!("tool_calls")),
        usage_chunk(),
    ]))
    .await;
    assert_eq!(r.message.tool_calls, [call("chatcmpl-tool-1", "search_products", r#"{"keyword": "跑鞋"}"#)]);
    assert_eq!(r.usage, STREAM_USAGE);
}

// ---------------------------------------------------------------- arguments

#[tokio::test]
async fn object_arguments_become_json_text_llamacpp_tgi() {
    let message = json!({"role": "assistant", "tool_calls": [
        {"id": "call_o", "type": "function", "function": {"name": "search_products", "arguments": {"keyword": "跑鞋"}}},
    ]});
    let r = answer_to(Reply::json(completion(message, json!("tool_calls")))).await;
    assert_eq!(r.message.tool_calls, [call("call_o", "search_products", SHOES)]);

    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"index": 0, "id": "call_o", "function": {"name": "search_products", "arguments": {"keyword": "跑鞋"}}}])),
        chunk(json!({}), json!("tool_calls")),
    ]))
    .await;
    assert_eq!(r.message.tool_calls, [call("call_o", "search_products", SHOES)]);
}

#[tokio::test]
async fn arguments_go_back_as_a_string_openai() {
    let message = json!({"role": "assistant", "tool_calls": [
        {"id": "call_o", "type": "function", "function": {"name": "search_products", "arguments": {"keyword": "跑鞋"}}},
    ]});
    let server = Scripted::start(vec![
        Reply::json(completion(message, json!("tool_calls"))),
        Reply::json(completion(json!({"content": "找到 3 双。"}), json!("stop"))),
    ])
    .await;
    let client = server.client(false);
    let mut messages = question();
    let first = ask(&client, &messages).await.unwrap();
    messages.push(first.message);
    messages.push(ChatMessage::tool("call_o", r#"{"products":[]}"#));
    let second = ask(&client, &messages).await.unwrap();
    assert_eq!(second.message.text(), "找到 3 双。");

    let sent = server.body(1);
    let echoed = &sent["messages"][2];
    assert_eq!(echoed["role"], "assistant");
    assert_eq!(
        echoed["tool_calls"][0],
        json!({"id": "call_o", "type": "function", "function": {"name": "search_products", "arguments": SHOES}})
    );
    assert_eq!(
        sent["messages"][3],
        json!({"role": "tool", "tool_call_id": "call_o", "content": r#"{"products":[]}"#})
    );
}

#[tokio::test]
async fn empty_and_null_arguments_are_kept_as_written_various() {
    let message = json!({"role": "assistant", "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "view_cart", "arguments": ""}},
        {"id": "c2", "type": "function", "function": {"name": "view_cart", "arguments": "null"}},
    ]});
    let r = answer_to(Reply::json(completion(message, json!("tool_calls")))).await;
    assert_eq!(r.message.tool_calls, [call("c1", "view_cart", ""), call("c2", "view_cart", "null")]);

    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"index": 0, "id": "c1", "function": {"name": "view_cart", "arguments": ""}}])),
        chunk(json!({}), json!("tool_calls")),
    ]))
    .await;
    assert_eq!(r.message.tool_calls, [call("c1", "view_cart", "")]);
}

#[tokio::test]
async fn empty_arguments_go_back_as_an_empty_object() {
    let server =
        Scripted::start(vec![Reply::json(completion(json!({"content": "购物车是空的。"}), json!("stop")))])
            .await;
    let mut messages = question();
    messages.push(ChatMessage::assistant_calls(vec![call("c1", "view_cart", "")]));
    messages.push(ChatMessage::tool("c1", "[]"));
    ask(&server.client(false), &messages).await.unwrap();
    assert_eq!(server.body(0)["messages"][2]["tool_calls"][0]["function"]["arguments"], "{}");
}

// ---------------------------------------------------------------- ids

#[tokio::test]
async fn missing_ids_are_minted_and_used_by_the_tool_messages_ollama_native() {
    let message = json!({"role": "assistant", "content": "", "tool_calls": [
        {"function": {"name": "search_products", "arguments": SHOES}},
        {"function": {"name": "view_cart", "arguments": {}}},
    ]});
    let server = Scripted::start(vec![
        Reply::json(completion(message, json!("tool_calls"))),
        Reply::json(completion(json!({"content": "好的"}), json!("stop"))),
    ])
    .await;
    let client = server.client(false);
    let mut messages = question();
    let first = ask(&client, &messages).await.unwrap();
    assert_eq!(
        first.message.tool_calls,
        [call("call_0", "search_products", SHOES), call("call_1", "view_cart", "{}")]
    );
    assert_eq!(first.message.content, None);

    let results: Vec<ChatMessage> =
        first.message.tool_calls.iter().map(|c| ChatMessage::tool(&c.id, "{}")).collect();
    messages.push(first.message);
    messages.extend(results);
    ask(&client, &messages).await.unwrap();
    let sent = server.body(1);
    let ids: Vec<&Value> =
        sent["messages"][2]["tool_calls"].as_array().unwrap().iter().map(|c| &c["id"]).collect();
    assert_eq!(ids, [&json!("call_0"), &json!("call_1")]);
    assert_eq!(sent["messages"][3]["tool_call_id"], "call_0");
    assert_eq!(sent["messages"][4]["tool_call_id"], "call_1");
}

#[tokio::test]
async fn missing_ids_in_a_stream_are_minted_ollama_native() {
    let r = answer_to(Reply::sse(&[
        calls_chunk(json!([{"function": {"name": "search_products", "arguments": SHOES}}])),
        calls_chunk(json!([{"function": {"name": "search_products", "arguments": r#"{"keyword":"外套"}"#}}])),
        chunk(json!({}), json!("tool_calls")),
    ]))
    .await;
    assert_eq!(
        r.message.tool_calls,
        [
            call("call_0", "search_products", SHOES),
            call("call_1", "search_products", r#"{"keyword":"外套"}"#)
        ]
    );
}

// ---------------------------------------------------------------- reasoning

#[tokio::test]
async fn reasoning_content_is_kept_and_sent_back_deepseek() {
    let message = json!({"role": "assistant", "content": "", "reasoning_content": "The shopper wants running shoes under 500.",
        "tool_calls": [{"id": "call_d", "type": "function", "function": {"name": "search_products", "arguments": SHOES}}]});
    let server = Scripted::start(vec![
        Reply::json(completion(message, json!("tool_calls"))),
        Reply::json(completion(json!({"content": "找到 2 双。"}), json!("stop"))),
    ])
    .await;
    let client = server.client(false);
    let mut messages = question();
    let first = ask(&client, &messages).await.unwrap();
    assert_eq!(
        first.message.reasoning_content.as_deref(),
        Some("The shopper wants running shoes under 500.")
    );
    messages.push(first.message);
    messages.push(ChatMessage::tool("call_d", "[]"));
    ask(&client, &messages).await.unwrap();
    assert_eq!(
        server.body(1)["messages"][2]["reasoning_content"],
        "The shopper wants running shoes under 500."
    );
}

#[tokio::test]
async fn streamed_reasoning_content_accumulates_deepseek() {
    let r = answer_to(Reply::sse(&[
        chunk(json!({"role": "assistant", "content": null, "reasoning_content": "Shoes "}), Value::Null),
        chunk(json!({"content": null, "reasoning_content": "under 500."}), Value::Null),
        calls_chunk(json!([{"index": 0, "id": "call_d", "type": "function", "function": {"name": "search_products", "arguments": SHOES}}])),
        chunk(json!({}), json!("tool_calls")),
    ]))
    .await;
    assert_eq!(r.message.reasoning_content.as_deref(), Some("Shoes under 500."));
    assert_eq!(r.message.tool_calls, [call("call_d", "search_products", SHOES)]);
}

#[tokio::test]
async fn reasoning_is_read_as_reasoning_content_openrouter() {
    let r = answer_to(Reply::json(completion(
        json!({"content": "在二楼。", "reasoning": "Uniqlo is on floor 2."}),
        json!("stop"),
    )))
    .await;
    assert_eq!(r.message.reasoning_content.as_deref(), Some("Uniqlo is on floor 2."));
    assert_eq!(r.message.text(), "在二楼。");

    let r = answer_to(Reply::raw(
        200,
        "text/event-stream",
        ": OPENROUTER PROCESSING\n\n\
         data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"Floor \"}}]}\n\n\
         data: {\"choices\":[{\"index\":0,\"delta\":{\"reasoning\":\"2.\",\"content\":\"在二楼。\"},\"finish_reason\":\"stop\"}]}\n\n\
         data: [DONE]\n\n",
    ))
    .await;
    assert_eq!(r.message.reasoning_content.as_deref(), Some("Floor 2."));
    assert_eq!(r.message.text(), "在二楼。");
}

// ---------------------------------------------------------------- extra fields

#[tokio::test]
async fn extra_fields_are_ignored_groq() {
    let mut body = completion(json!({"role": "assistant", "content": "你好！"}), json!("stop"));
    body["x_groq"] = json!({"id": "req_01"});
    body["service_tier"] = json!("on_demand");
    body["system_fingerprint"] = json!("fp_1");
    body["usage"] = json!({"queue_time": 0.03, "prompt_tokens": 50, "prompt_time": 0.01, "completion_tokens": 7, "total_tokens": 57});
    let r = answer_to(Reply::json(body)).await;
    assert_eq!(r.message.text(), "你好！");
    assert_eq!(r.usage, PLAIN_USAGE);

    let mut last = usage_chunk();
    last["x_groq"] = json!({"id": "req_01"});
    last["usage"]["queue_time"] = json!(0.03);
    let mut first = chunk(json!({"content": "你好！"}), json!("stop"));
    first["service_tier"] = json!("on_demand");
    let r = answer_to(Reply::sse(&[first, last])).await;
    assert_eq!(r.message.text(), "你好！");
    assert_eq!(r.usage, STREAM_USAGE);
}

// ---------------------------------------------------------------- tool calls written as text

#[tokio::test]
async fn a_tool_call_written_as_text_becomes_a_call() {
    let text = r#"{"name": "search_products", "arguments": {"keyword": "跑鞋"}}"#;
    let r = answer_to(Reply::json(completion(json!({"content": text}), json!("stop")))).await;
    assert_eq!(r.message.tool_calls, [call("call_0", "search_products", SHOES)]);
    assert_eq!(r.message.content, None);
    assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));

    let r = answer_to(Reply::sse(&[
        chunk(json!({"content": "<tool_call>\n{\"name\": \"search_products\", "}), Value::Null),
        chunk(json!({"content": "\"arguments\": {\"keyword\": \"跑鞋\"}}\n</tool_call>"}), json!("stop")),
    ]))
    .await;
    assert_eq!(r.message.tool_calls, [call("call_0", "search_products", SHOES)]);
}

#[tokio::test]
async fn an_ordinary_answer_stays_text() {
    let text = "Nike 跑鞋在三楼，499 元。";
    let r = answer_to(Reply::json(completion(json!({"content": text}), json!("stop")))).await;
    assert_eq!(r.message.text(), text);
    assert!(r.message.tool_calls.is_empty());
}

// ---------------------------------------------------------------- the request

#[tokio::test]
async fn the_request_carries_tools_key_and_stream_options() {
    let server = Scripted::start(vec![Reply::sse(&[chunk(json!({"content": "好"}), json!("stop"))])]).await;
    let client = OpenAiClient::new(OpenAiSettings {
        base_url: format!("{}/v1/", server.url),
        temperature: Some(0.3),
        ..server.settings(true)
    })
    .unwrap();
    ask(&client, &question()).await.unwrap();

    let hits = server.hits.lock().unwrap();
    assert_eq!(hits[0].path, "/v1/chat/completions");
    assert_eq!(hits[0].authorization.as_deref(), Some("Bearer sk-test"));
    let body = &hits[0].body;
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["messages"][1], json!({"role": "user", "content": "帮我找500以内的跑鞋"}));
    assert_eq!(
        body["tools"],
        json!([
            tool_definition(&mallbot::Tool::Builtin(&SEARCH)),
            tool_definition(&mallbot::Tool::Builtin(&VIEW_CART))
        ])
    );
    assert_eq!(body["tools"][0]["function"]["name"], "search_products");
    assert_eq!(body["tool_choice"], "auto");
    assert_eq!(body["temperature"], json!(0.3));
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
}

#[tokio::test]
async fn without_tools_or_key_the_request_omits_them() {
    let server =
        Scripted::start(vec![Reply::json(completion(json!({"content": "你好"}), json!("stop")))]).await;
    let client =
        OpenAiClient::new(OpenAiSettings { api_key: Default::default(), ..server.settings(false) }).unwrap();
    client.complete(ChatRequest { messages: &question(), tools: &[], progress: None }).await.unwrap();

    let hits = server.hits.lock().unwrap();
    assert_eq!(hits[0].authorization, None);
    let body = hits[0].body.as_object().unwrap();
    for absent in ["tools", "tool_choice", "temperature", "stream_options"] {
        assert!(!body.contains_key(absent), "{absent} sent: {body:?}");
    }
    assert_eq!(body["stream"], false);
}

// ---------------------------------------------------------------- errors and retries

#[tokio::test]
async fn a_429_with_retry_after_is_retried_once() {
    let server = Scripted::start(vec![
        Reply::raw(429, "application/json", r#"{"error":{"message":"Rate limit reached"}}"#)
            .header("retry-after", "1"),
        Reply::json(completion(json!({"content": "在二楼。"}), json!("stop"))),
    ])
    .await;
    let r = ask(&server.client(false), &question()).await.unwrap();
    assert_eq!(r.message.text(), "在二楼。");
    assert_eq!(server.hits(), 2);
}

#[tokio::test]
async fn server_errors_are_retried_then_unavailable() {
    let server =
        Scripted::start(vec![Reply::raw(500, "application/json", r#"{"error":{"message":"internal"}}"#)])
            .await;
    let error = ask(&server.client(false), &question()).await.unwrap_err();
    assert_eq!(server.hits(), 3, "max_retries = 2: three attempts");
    let LlmError::Unavailable { message } = error else { panic!("expected Unavailable, got {error:?}") };
    assert!(message.contains("HTTP 500") && message.contains("internal"), "{message}");
}

#[tokio::test]
async fn a_400_is_refused_at_once_with_the_body() {
    let raw = r#"{"error":{"message":"Missing reasoning_content field in the assistant message","type":"invalid_request_error"}}"#;
    let server = Scripted::start(vec![Reply::raw(400, "application/json", raw)]).await;
    let error = ask(&server.client(false), &question()).await.unwrap_err();
    assert_eq!(server.hits(), 1);
    let LlmError::Refused { status, raw: kept } = error else { panic!("expected Refused, got {error:?}") };
    assert_eq!((status, kept.as_str()), (400, raw));
}

#[tokio::test]
async fn a_plain_text_404_is_refused_with_the_text() {
    let server = Scripted::start(vec![Reply::raw(404, "text/plain", "File Not Found")]).await;
    let error = ask(&server.client(false), &question()).await.unwrap_err();
    assert_eq!(server.hits(), 1);
    assert!(matches!(&error, LlmError::Refused { status: 404, raw } if raw == "File Not Found"), "{error:?}");
}

#[tokio::test]
async fn an_html_502_is_kept_in_the_error() {
    let html = "<html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center></body></html>";
    let server = Scripted::start(vec![Reply::raw(502, "text/html", html)]).await;
    let client = OpenAiClient::new(OpenAiSettings { max_retries: 1, ..server.settings(false) }).unwrap();
    let error = ask(&client, &question()).await.unwrap_err();
    assert_eq!(server.hits(), 2);
    let LlmError::Unavailable { message } = error else { panic!("expected Unavailable, got {error:?}") };
    assert!(message.contains(html), "{message}");
}

#[tokio::test]
async fn an_html_page_with_status_200_is_an_invalid_answer() {
    let html = "<!DOCTYPE html><html><body>Welcome to nginx!</body></html>";
    let server = Scripted::start(vec![Reply::raw(200, "text/html", html)]).await;
    let error = ask(&server.client(false), &question()).await.unwrap_err();
    assert_eq!(server.hits(), 1);
    assert!(matches!(&error, LlmError::InvalidResponse { raw, .. } if raw == html), "{error:?}");
}

#[tokio::test]
async fn an_html_page_instead_of_a_stream_is_an_invalid_answer() {
    let html = "<html><body>File Not Found</body></html>";
    let server = Scripted::start(vec![Reply::raw(200, "text/html", html)]).await;
    let error = ask(&server.client(true), &question()).await.unwrap_err();
    assert_eq!(server.hits(), 1);
    assert!(matches!(&error, LlmError::InvalidResponse { raw, .. } if raw == html), "{error:?}");
}

#[tokio::test]
async fn a_server_slower_than_the_timeout_is_unavailable() {
    let server = Scripted::start(vec![
        Reply::json(completion(json!({"content": "太迟了"}), json!("stop"))).after(Duration::from_secs(3)),
    ])
    .await;
    let settings = OpenAiSettings {
        request_timeout: Duration::from_millis(300),
        max_retries: 1,
        ..server.settings(false)
    };
    let error = ask(&OpenAiClient::new(settings).unwrap(), &question()).await.unwrap_err();
    assert_eq!(server.hits(), 2);
    let LlmError::Unavailable { message } = error else { panic!("expected Unavailable, got {error:?}") };
    assert!(message.contains("timed out"), "{message}");
}

#[tokio::test]
async fn an_error_inside_a_stream_is_retried() {
    let server = Scripted::start(vec![
        Reply::sse(&[json!({"error": {"message": "upstream overloaded", "code": 502}})]),
        Reply::sse(&[chunk(json!({"content": "在二楼。"}), json!("stop"))]),
    ])
    .await;
    let r = ask(&server.client(true), &question()).await.unwrap();
    assert_eq!(r.message.text(), "在二楼。");
    assert_eq!(server.hits(), 2);
}

#[tokio::test]
async fn describe_names_the_provider_and_model() {
    let server = Scripted::start(vec![]).await;
    assert_eq!(server.client(false).describe(), "openai/test-model");
}

// ---------------------------------------------------------------- cached prompt tokens

#[tokio::test]
async fn cached_prompt_tokens_are_read_openai_and_deepseek() {
    let mut openai = completion(json!({"content": "好"}), json!("stop"));
    openai["usage"] = json!({"prompt_tokens": 1200, "completion_tokens": 9,
        "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": 0}});
    let r = answer_to(Reply::json(openai)).await;
    assert_eq!(r.usage, Usage { prompt_tokens: 1200, completion_tokens: 9, cached_tokens: 1024 });

    let mut deepseek = completion(json!({"content": "好"}), json!("stop"));
    deepseek["usage"] = json!({"prompt_tokens": 900, "completion_tokens": 5,
        "prompt_cache_hit_tokens": 768, "prompt_cache_miss_tokens": 132});
    let r = answer_to(Reply::json(deepseek)).await;
    assert_eq!(r.usage, Usage { prompt_tokens: 900, completion_tokens: 5, cached_tokens: 768 });

    let streamed = vec![
        chunk(json!({"content": "好"}), json!("stop")),
        json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 80, "completion_tokens": 12,
            "prompt_tokens_details": {"cached_tokens": 64}}}),
    ];
    let r = answer_to(Reply::sse(&streamed)).await;
    assert_eq!(r.usage, Usage { prompt_tokens: 80, completion_tokens: 12, cached_tokens: 64 });
}

// ---------------------------------------------------------------- the answer as it streams

/// The text deltas that arrived on `events` (the progress must be dropped).
async fn deltas(mut events: tokio::sync::mpsc::UnboundedReceiver<TurnEvent>) -> Vec<String> {
    let mut deltas = Vec::new();
    while let Some(event) = events.recv().await {
        match event {
            TurnEvent::TextDelta(text) => deltas.push(text),
            other => panic!("the client only reports text, got {other:?}"),
        }
    }
    deltas
}

async fn ask_watched(client: &OpenAiClient, progress: &Progress) -> Result<ChatResponse, LlmError> {
    client.complete(ChatRequest { messages: &question(), tools: &tools(), progress: Some(progress) }).await
}

#[tokio::test]
async fn the_answer_is_forwarded_as_it_arrives_and_the_pieces_make_the_answer() {
    let gate = Arc::new(Notify::new());
    let pieces = ["Nike Pegasus ", "¥499，", "在三楼 ", "<Nike 店>。"];
    let mut chunks: Vec<Value> = pieces.iter().map(|p| chunk(json!({"content": p}), Value::Null)).collect();
    chunks.push(chunk(json!({}), json!("stop")));
    let server = Scripted::start(vec![Reply::sse(&chunks).gated(&gate)]).await;
    let client = server.client(true);
    let (progress, mut events) = Progress::channel();
    let asking = tokio::spawn(async move { ask_watched(&client, &progress).await });
    let first = tokio::time::timeout(Duration::from_secs(20), events.recv()).await.unwrap();
    assert_eq!(
        first,
        Some(TurnEvent::TextDelta("Nike Pegasus ".into())),
        "text shows before the answer ends"
    );
    gate.notify_one();
    let response = asking.await.unwrap().unwrap();
    let rest = deltas(events).await;
    assert_eq!(format!("Nike Pegasus {}", rest.concat()), response.message.text());
    assert_eq!(response.message.text(), pieces.concat());
}

#[tokio::test]
async fn text_before_a_tool_call_is_forwarded_and_nothing_after_it() {
    let server = Scripted::start(vec![Reply::sse(&[
        chunk(json!({"content": "我帮您"}), Value::Null),
        chunk(json!({"content": "查一下。"}), Value::Null),
        calls_chunk(json!([{"index": 0, "id": "c1", "type": "function",
                            "function": {"name": "search_products", "arguments": SHOES}}])),
        chunk(json!({"content": "（稍等）"}), Value::Null),
        chunk(json!({}), json!("tool_calls")),
    ])])
    .await;
    let (progress, events) = Progress::channel();
    let response = ask_watched(&server.client(true), &progress).await.unwrap();
    drop(progress);
    assert_eq!(response.message.tool_calls, [call("c1", "search_products", SHOES)]);
    assert_eq!(deltas(events).await.concat(), "我帮您查一下。");
}

#[tokio::test]
async fn a_stream_cut_mid_answer_is_retried_and_the_shopper_sees_one_whole_answer() {
    let answer = ["优衣库", "在二楼，", "电梯出来右手边。"];
    let whole: Vec<Value> = answer
        .iter()
        .map(|p| chunk(json!({"content": p}), Value::Null))
        .chain([chunk(json!({}), json!("stop"))])
        .collect();
    let server = Scripted::start(vec![Reply::sse_cut(&whole[..2]), Reply::sse(&whole)]).await;
    let (progress, events) = Progress::channel();
    let response = ask_watched(&server.client(true), &progress).await.unwrap();
    drop(progress);
    assert_eq!(server.hits(), 2, "the broken stream was asked again");
    assert_eq!(response.message.text(), answer.concat());
    assert_eq!(deltas(events).await.concat(), answer.concat(), "the start is not shown twice");
}

#[tokio::test]
async fn a_stream_that_ends_without_done_or_finish_reason_is_retried() {
    let server = Scripted::start(vec![
        Reply::sse_unfinished(&[chunk(json!({"content": "优衣库在"}), Value::Null)]),
        Reply::sse(&[chunk(json!({"content": "Uniqlo is on floor 2."}), json!("stop"))]),
    ])
    .await;
    let (progress, events) = Progress::channel();
    let response = ask_watched(&server.client(true), &progress).await.unwrap();
    drop(progress);
    assert_eq!(server.hits(), 2);
    assert_eq!(response.message.text(), "Uniqlo is on floor 2.");
    assert_eq!(
        deltas(events).await,
        ["优衣库在"],
        "a retry that starts differently adds nothing to what was shown; the transport replaces it"
    );
}

#[tokio::test]
async fn nothing_is_forwarded_without_streaming_or_without_a_watcher() {
    let server =
        Scripted::start(vec![Reply::json(completion(json!({"content": "在二楼。"}), json!("stop")))]).await;
    let (progress, events) = Progress::channel();
    ask_watched(&server.client(false), &progress).await.unwrap();
    drop(progress);
    assert!(deltas(events).await.is_empty());
}
