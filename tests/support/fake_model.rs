//! A scripted OpenAI-compatible model on 127.0.0.1 (`POST …/chat/completions`)
//! for process tests and the load generator. It plays a shopping assistant
//! that answers every shopper message with one tool round
//! (`search_products` with a keyword, or the tool and arguments of
//! [`ModelBehaviour::tool`]) and then a text answer, as plain JSON
//! or, when the request asks `stream: true`, as server-sent events. Each
//! answer takes a configurable time (the first token after `ttft` when
//! streamed), and faults can be injected per call ([`ModelFault`]).
//!
//! It also transcribes: `POST …/audio/transcriptions` takes the multipart
//! form of OpenAI's speech-to-text API, records it ([`SttRequest`]) and
//! answers the next scripted [`SttAnswer`] (by default a fixed sentence).
//!
//! A shopper message may carry a tag `q<chat>m<n>z`; the answer to it then
//! starts with the tag and ends with `fin-<tag>`, so a test can tell which
//! answer it sees and whether it is whole ([`answer_for`]).

#![allow(dead_code)]

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

/// What the model does instead of answering one call normally.
#[derive(Debug, Clone)]
pub enum ModelFault {
    /// Answer with this status and an OpenAI-style JSON error body.
    Status(u16),
    /// Answer 429 with `Retry-After: secs`.
    RateLimited { retry_after_secs: u64 },
    /// Answer 200 with an HTML page (a proxy's error page).
    Html,
    /// Answer 200 with a body that is not JSON.
    Garbage,
    /// Never answer (until the client gives up).
    Hang,
    /// Stream the start of the answer, then cut the connection (a plain
    /// answer is cut after half its body).
    CutStream,
}

/// Picks the tool and arguments for a shopper's message.
pub type ToolFor = fn(&str) -> Option<(String, Value)>;

/// How the model answers when no fault applies.
#[derive(Debug, Clone)]
pub struct ModelBehaviour {
    /// Time for one whole answer (each call: the tool round and the text).
    pub latency: Duration,
    /// Time to the first token of a streamed answer (at most `latency`).
    pub ttft: Duration,
    /// The keyword of the `search_products` call.
    pub keyword: String,
    /// Another tool to call instead of `search_products`: its name and
    /// arguments (e.g. `navigate_to_store` with `{"store_name": "Nike"}`).
    pub tool: Option<(String, Value)>,
    /// The tool and arguments for a shopper's message, when they depend on
    /// it (`None` from it: [`ModelBehaviour::tool`] or `search_products`).
    pub tool_for: Option<ToolFor>,
    /// Calls taken at once (0 = no cap); a call beyond it is refused with
    /// 429 and `Retry-After: retry_after_secs`, as a provider's concurrency
    /// limit does. A call counts until its answer starts.
    pub capacity: usize,
    pub retry_after_secs: u64,
}

impl Default for ModelBehaviour {
    fn default() -> Self {
        ModelBehaviour {
            latency: Duration::ZERO,
            ttft: Duration::ZERO,
            keyword: "Nike".into(),
            tool: None,
            tool_for: None,
            capacity: 0,
            retry_after_secs: 1,
        }
    }
}

/// One chat completion request as the capped model saw it.
#[derive(Debug, Clone, Copy)]
pub struct Arrival {
    pub at: std::time::Instant,
    /// Refused with 429 (over the capacity).
    pub refused: bool,
    /// Calls in progress with this one (when taken).
    pub in_flight: usize,
}

/// What the transcription endpoint answers to one request.
#[derive(Debug, Clone)]
pub enum SttAnswer {
    /// `{"text": …}`.
    Text(String),
    /// This status with an OpenAI-style error body.
    Status(u16),
    /// 200 with a body that is not a transcription.
    Garbage,
    /// No answer (until the client gives up).
    Hang,
}

/// The transcript when none is scripted.
pub const DEFAULT_TRANSCRIPT: &str = "帮我找 Nike 跑鞋";

/// One transcription request as it arrived.
#[derive(Debug, Clone)]
pub struct SttRequest {
    /// The form's text fields (`model`, `language`, `response_format`).
    pub fields: std::collections::HashMap<String, String>,
    /// The `file` part's bytes.
    pub file: Vec<u8>,
    /// The `file` part's file name and content type.
    pub file_name: String,
    pub file_type: String,
    /// The `Authorization` header.
    pub authorization: Option<String>,
    /// The whole request as received (headers as text, then the body), to
    /// search for things that must never be sent.
    pub raw: Vec<u8>,
}

struct Inner {
    behaviour: ModelBehaviour,
    faults: Mutex<VecDeque<ModelFault>>,
    calls: AtomicUsize,
    bodies: Mutex<Vec<Value>>,
    transcripts: Mutex<VecDeque<SttAnswer>>,
    stt_requests: Mutex<Vec<SttRequest>>,
    running: AtomicUsize,
    arrivals: Mutex<Vec<Arrival>>,
}

/// The running fake model.
pub struct FakeModel {
    /// The base URL to configure (`llm.base_url`), ending in `/v1`.
    pub base_url: String,
    inner: Arc<Inner>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeModel {
    /// Starts the model on a free loopback port.
    pub async fn start(behaviour: ModelBehaviour) -> FakeModel {
        let inner = Arc::new(Inner {
            behaviour,
            faults: Mutex::new(VecDeque::new()),
            calls: AtomicUsize::new(0),
            bodies: Mutex::new(Vec::new()),
            transcripts: Mutex::new(VecDeque::new()),
            stt_requests: Mutex::new(Vec::new()),
            running: AtomicUsize::new(0),
            arrivals: Mutex::new(Vec::new()),
        });
        let state = Arc::clone(&inner);
        let stt_state = Arc::clone(&inner);
        let routes = axum::Router::new()
            .route(
                "/v1/audio/transcriptions",
                axum::routing::post(move |headers: axum::http::HeaderMap, body: Bytes| {
                    let inner = Arc::clone(&stt_state);
                    async move { transcribe(inner, headers, body).await }
                }),
            )
            .fallback(move |body: Bytes| {
                let inner = Arc::clone(&state);
                async move { complete(inner, body).await }
            });
        // A deep accept queue, as a real server has: under a burst of new
        // connections a dropped SYN would cost the bot 1–3 s of retransmits.
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.bind(([127, 0, 0, 1], 0).into()).expect("bind");
        let listener = socket.listen(4096).expect("listen");
        let base_url = format!("http://{}/v1", listener.local_addr().expect("addr"));
        let server = tokio::spawn(async move {
            axum::serve(listener, routes).await.expect("fake model");
        });
        FakeModel { base_url, inner, server }
    }

    /// Makes the next call meet `fault`; queued faults apply to successive calls.
    pub fn fault_next(&self, fault: ModelFault) {
        self.inner.faults.lock().expect("lock").push_back(fault);
    }

    /// How many calls the model received.
    pub fn calls(&self) -> usize {
        self.inner.calls.load(Ordering::SeqCst)
    }

    /// Every chat completion request with a capacity set: when, refused or
    /// not, and how many were in progress.
    pub fn arrivals(&self) -> Vec<Arrival> {
        self.inner.arrivals.lock().expect("lock").clone()
    }

    /// The request bodies received, in order.
    pub fn bodies(&self) -> Vec<Value> {
        self.inner.bodies.lock().expect("lock").clone()
    }

    /// Queues what the next transcription request gets.
    pub fn transcript_next(&self, answer: SttAnswer) {
        self.inner.transcripts.lock().expect("lock").push_back(answer);
    }

    /// The transcription requests received, in order.
    pub fn stt_requests(&self) -> Vec<SttRequest> {
        self.inner.stt_requests.lock().expect("lock").clone()
    }

    /// Waits (at most 20 s) until the model received `count` calls.
    pub async fn wait_for_calls(&self, count: usize) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        while self.calls() < count {
            assert!(
                tokio::time::Instant::now() < deadline,
                "the model got {} of {count} calls",
                self.calls()
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// The tag of shopper message `n` in `chat`.
pub fn tag(chat: i64, n: usize) -> String {
    format!("q{chat}m{n}z")
}

/// The tag in `text`, if any.
pub fn tag_in(text: &str) -> Option<&str> {
    let start = text.find('q')?;
    let rest = &text[start..];
    let end = rest.find('z')?;
    let tag = &rest[..=end];
    let inner = &tag[1..tag.len() - 1];
    let valid = inner.split_once('m').is_some_and(|(c, n)| {
        !c.is_empty()
            && !n.is_empty()
            && c.trim_start_matches('-').chars().all(|ch| ch.is_ascii_digit())
            && n.chars().all(|ch| ch.is_ascii_digit())
    });
    if valid { Some(tag) } else { tag_in(&text[start + 1..]) }
}

/// The whole text answer to the message tagged `tag`.
pub fn answer_for(tag: &str) -> String {
    format!(
        "{tag} 为你找到几款跑鞋：Nike Pegasus 41，499 元，有 41–44 码；Nike Revolution 7，399 元。\
         两款都在耐克店（二楼 A 区）。需要我帮你加入购物车吗？ fin-{tag}"
    )
}

/// The marker that ends the answer to `tag`.
pub fn end_of(tag: &str) -> String {
    format!("fin-{tag}")
}

/// Counts a call in progress until dropped.
struct Running<'a>(&'a AtomicUsize);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

async fn complete(inner: Arc<Inner>, body: Bytes) -> Response {
    inner.calls.fetch_add(1, Ordering::SeqCst);
    let capacity = inner.behaviour.capacity;
    let _running = (capacity > 0).then(|| {
        let now = inner.running.fetch_add(1, Ordering::SeqCst) + 1;
        (Running(&inner.running), now)
    });
    if let Some((_, in_flight)) = &_running {
        let refused = *in_flight > capacity;
        let arrival = Arrival { at: std::time::Instant::now(), refused, in_flight: *in_flight };
        inner.arrivals.lock().expect("lock").push(arrival);
        if refused {
            let error =
                json!({"error": {"message": "Too many concurrent requests", "type": "rate_limit_error"}});
            let retry_after = inner.behaviour.retry_after_secs.to_string();
            return (StatusCode::TOO_MANY_REQUESTS, [(header::RETRY_AFTER, retry_after)], axum::Json(error))
                .into_response();
        }
    }
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    inner.bodies.lock().expect("lock").push(request.clone());
    let fault = inner.faults.lock().expect("lock").pop_front();
    let stream = request["stream"].as_bool().unwrap_or(false);
    let behaviour = &inner.behaviour;
    match fault {
        None | Some(ModelFault::CutStream) => {}
        Some(ModelFault::Status(status)) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let error = json!({"error": {"message": format!("scripted {status}"), "type": "server_error"}});
            return (status, axum::Json(error)).into_response();
        }
        Some(ModelFault::RateLimited { retry_after_secs }) => {
            let error = json!({"error": {"message": "Rate limit reached", "type": "rate_limit_error"}});
            let retry_after = retry_after_secs.to_string();
            return (StatusCode::TOO_MANY_REQUESTS, [(header::RETRY_AFTER, retry_after)], axum::Json(error))
                .into_response();
        }
        Some(ModelFault::Html) => {
            let page = "<html><body><h1>502 Bad Gateway</h1><p>cloudflare</p></body></html>";
            return (StatusCode::OK, [(header::CONTENT_TYPE, "text/html")], page).into_response();
        }
        Some(ModelFault::Garbage) => {
            return (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], "{\"choices\": [{\"mess")
                .into_response();
        }
        Some(ModelFault::Hang) => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            return StatusCode::GATEWAY_TIMEOUT.into_response();
        }
    }
    let cut = matches!(fault, Some(ModelFault::CutStream));
    let reply = reply_to(&request, behaviour);
    if stream {
        return streamed(reply, behaviour.latency, behaviour.ttft.min(behaviour.latency), cut);
    }
    tokio::time::sleep(behaviour.latency).await;
    let body = serde_json::to_vec(&completion(&reply)).unwrap_or_default();
    if cut {
        let half = Bytes::copy_from_slice(&body[..body.len() / 2]);
        let chunks: Vec<Result<Bytes, std::io::Error>> =
            vec![Ok(half), Err(std::io::Error::other("connection cut by the fake model"))];
        let response = Response::builder()
            .header(header::CONTENT_TYPE, "application/json")
            .body(Body::from_stream(futures::stream::iter(chunks)));
        return response.unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response());
    }
    (StatusCode::OK, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

async fn transcribe(inner: Arc<Inner>, headers: axum::http::HeaderMap, body: Bytes) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
    let content_type = header("content-type").unwrap_or_default();
    let boundary = content_type.split("boundary=").nth(1).unwrap_or_default().trim_matches('"').to_owned();
    let mut raw: Vec<u8> = headers
        .iter()
        .map(|(k, v)| format!("{k}: {}\r\n", v.to_str().unwrap_or_default()))
        .collect::<String>()
        .into_bytes();
    raw.extend_from_slice(&body);
    let mut request = SttRequest {
        fields: std::collections::HashMap::new(),
        file: Vec::new(),
        file_name: String::new(),
        file_type: String::new(),
        authorization: header("authorization"),
        raw,
    };
    for (head, content) in form_parts(&body, &boundary) {
        let attribute = |key: &str| {
            let marker = format!("{key}=\"");
            let start = head.find(&marker)? + marker.len();
            let end = head[start..].find('"')? + start;
            Some(head[start..end].to_owned())
        };
        let Some(name) = attribute("name") else { continue };
        match attribute("filename") {
            Some(file_name) => {
                request.file = content;
                request.file_name = file_name;
                request.file_type = head
                    .lines()
                    .find_map(|l| {
                        l.to_ascii_lowercase().strip_prefix("content-type:").map(|t| t.trim().to_owned())
                    })
                    .unwrap_or_default();
            }
            None => {
                request.fields.insert(name, String::from_utf8_lossy(&content).into_owned());
            }
        }
    }
    inner.stt_requests.lock().expect("lock").push(request);
    let answer = inner.transcripts.lock().expect("lock").pop_front();
    match answer.unwrap_or_else(|| SttAnswer::Text(DEFAULT_TRANSCRIPT.to_owned())) {
        SttAnswer::Text(text) => (StatusCode::OK, axum::Json(json!({"text": text}))).into_response(),
        SttAnswer::Status(status) => {
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let error = json!({"error": {"message": format!("scripted {status}"), "type": "server_error"}});
            (status, axum::Json(error)).into_response()
        }
        SttAnswer::Garbage => {
            (StatusCode::OK, [(header::CONTENT_TYPE, "text/html")], "<html>upstream error</html>")
                .into_response()
        }
        SttAnswer::Hang => {
            tokio::time::sleep(Duration::from_secs(3600)).await;
            StatusCode::GATEWAY_TIMEOUT.into_response()
        }
    }
}

/// The parts of a `multipart/form-data` body: (headers, content).
fn form_parts(body: &[u8], boundary: &str) -> Vec<(String, Vec<u8>)> {
    let find = |haystack: &[u8], needle: &[u8]| haystack.windows(needle.len()).position(|w| w == needle);
    let delimiter = format!("--{boundary}").into_bytes();
    let mut parts = Vec::new();
    let mut rest = body;
    while let Some(at) = find(rest, &delimiter) {
        let part = &rest[..at];
        rest = &rest[at + delimiter.len()..];
        let part = part.strip_prefix(b"\r\n").unwrap_or(part);
        let Some(split) = find(part, b"\r\n\r\n") else { continue };
        let head = String::from_utf8_lossy(&part[..split]).into_owned();
        let content = &part[split + 4..];
        let content = content.strip_suffix(b"\r\n").unwrap_or(content);
        parts.push((head, content.to_vec()));
    }
    parts
}

/// What the assistant says to the request: a tool call after a shopper
/// message, text after a tool result.
enum Reply {
    Call { id: String, name: String, arguments: String },
    Text(String),
}

fn reply_to(request: &Value, behaviour: &ModelBehaviour) -> Reply {
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let last_role = messages.last().map(|m| m["role"].as_str().unwrap_or_default().to_owned());
    let shopper_text = messages
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .map(|m| content_text(&m["content"]))
        .unwrap_or_default();
    let tag = tag_in(&shopper_text).unwrap_or("q0m0z").to_owned();
    if last_role.as_deref() == Some("tool") {
        Reply::Text(answer_for(&tag))
    } else {
        let chosen =
            behaviour.tool_for.and_then(|pick| pick(&shopper_text)).or_else(|| behaviour.tool.clone());
        let (name, arguments) = match chosen {
            Some((name, arguments)) => (name, arguments.to_string()),
            None => ("search_products".to_owned(), json!({"keyword": behaviour.keyword}).to_string()),
        };
        Reply::Call { id: format!("call_{tag}"), name, arguments }
    }
}

fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join(" "),
        _ => String::new(),
    }
}

fn completion(reply: &Reply) -> Value {
    let (message, finish) = match reply {
        Reply::Text(text) => (json!({"role": "assistant", "content": text}), "stop"),
        Reply::Call { id, name, arguments } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{
                "id": id, "type": "function",
                "function": {"name": name, "arguments": arguments}}]}),
            "tool_calls",
        ),
    };
    json!({
        "id": "chatcmpl-fake", "object": "chat.completion", "model": "fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 40},
    })
}

fn chunk(delta: Value, finish: Option<&str>) -> Bytes {
    let chunk = json!({
        "id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": "fake",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    Bytes::from(format!("data: {chunk}\n\n"))
}

/// The reply as server-sent events: the first after `ttft`, the rest spread
/// until `latency`; `cut` ends the connection after the first half.
fn streamed(reply: Reply, latency: Duration, ttft: Duration, cut: bool) -> Response {
    let mut events: Vec<Bytes> = Vec::new();
    match reply {
        Reply::Call { id, name, arguments } => {
            events.push(chunk(
                json!({"role": "assistant", "tool_calls": [{"index": 0, "id": id, "type": "function",
                        "function": {"name": name, "arguments": ""}}]}),
                None,
            ));
            events.push(chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments}}]}),
                None,
            ));
            events.push(chunk(json!({}), Some("tool_calls")));
        }
        Reply::Text(text) => {
            // The first token comes with the first event (after `ttft`).
            let chars: Vec<char> = text.chars().collect();
            let mut pieces =
                chars.chunks(chars.len().div_ceil(8).max(1)).map(|p| p.iter().collect::<String>());
            let first = pieces.next().unwrap_or_default();
            events.push(chunk(json!({"role": "assistant", "content": first}), None));
            for piece in pieces {
                events.push(chunk(json!({"content": piece}), None));
            }
            events.push(chunk(json!({}), Some("stop")));
        }
    }
    events.push(Bytes::from_static(b"data: [DONE]\n\n"));
    let keep = if cut { events.len() / 2 } else { events.len() };
    let gaps = events.len().saturating_sub(1).max(1) as u32;
    let gap = latency.saturating_sub(ttft) / gaps;
    let state = (events.into_iter().take(keep).enumerate().collect::<VecDeque<_>>(), cut);
    let stream = futures::stream::unfold(state, move |(mut events, cut)| async move {
        match events.pop_front() {
            Some((i, event)) => {
                tokio::time::sleep(if i == 0 { ttft } else { gap }).await;
                Some((Ok(event), (events, cut)))
            }
            None if cut => {
                Some((Err(std::io::Error::other("stream cut by the fake model")), (VecDeque::new(), false)))
            }
            None => None,
        }
    });
    let response = Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(stream));
    response.unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}
