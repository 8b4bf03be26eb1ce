//! A fake Telegram Bot API server on 127.0.0.1 for tests: it answers the
//! methods the bot calls, serves scripted updates to `getUpdates`, can fail
//! chosen calls (flood control, unparsable HTML), and records every request
//! so a test can check what the shopper saw. It listens on a real port, so a
//! bot in another process (`telegram.api_url`) can use it too; like Telegram,
//! it forgets the updates a `getUpdates` offset confirmed, so a restarted bot
//! gets only what its predecessor had not taken.
//!
//! Faults can be injected per method ([`Fault`]): an error status with a
//! JSON or HTML body, a dropped connection, or a lost response (the call
//! takes effect, its answer never arrives). Every request carries the instant
//! it arrived and an observer can watch them as they come (the load generator
//! drives its shoppers with it).

#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use serde_json::{Value, json};
use teloxide::Bot;
use tokio::sync::Notify;

/// The fake bot's user id.
pub const BOT_ID: i64 = 4242;
/// The fake bot's username.
pub const BOT_USERNAME: &str = "MallGuideBot";

/// One request the bot made.
#[derive(Debug, Clone)]
pub struct Recorded {
    /// The Bot API method (`sendMessage`…).
    pub method: String,
    /// The request body (JSON, or the raw text of a multipart body).
    pub body: Value,
    /// Whether the fake answered it with a scripted error (or no answer).
    pub failed: bool,
    /// When it arrived.
    pub at: Instant,
}

/// What the fake does instead of answering a call normally.
#[derive(Debug, Clone)]
pub enum Fault {
    /// Answer with this HTTP status and JSON body; the call has no effect.
    Status(u16, Value),
    /// Answer with this HTTP status and an HTML page, as a proxy in front of
    /// the Bot API does; the call has no effect.
    Html(u16),
    /// Close the connection without answering; the call has no effect.
    Drop,
    /// Carry the call out, then close the connection without answering.
    Lost,
}

/// Watches every request as it arrives (after it took effect).
pub type Observer = Arc<dyn Fn(&Recorded) + Send + Sync>;

#[derive(Default)]
struct Inner {
    requests: Mutex<Vec<Recorded>>,
    updates: Mutex<Vec<Value>>,
    failures: Mutex<HashMap<String, VecDeque<Fault>>>,
    handed_out: Mutex<HashMap<i64, Instant>>,
    observer: Mutex<Option<Observer>>,
    messages: Mutex<HashMap<(i64, i64), Value>>,
    next_update_id: AtomicI64,
    next_message_id: AtomicI64,
    new_update: Notify,
    new_request: Notify,
    privacy_mode: Mutex<bool>,
}

/// The running fake server.
pub struct FakeBotApi {
    /// Where it listens (`http://127.0.0.1:PORT/`).
    pub url: reqwest::Url,
    inner: Arc<Inner>,
    server: tokio::task::JoinHandle<()>,
}

impl Drop for FakeBotApi {
    fn drop(&mut self) {
        self.server.abort();
    }
}

impl FakeBotApi {
    /// Starts the server on a free loopback port.
    pub async fn start() -> FakeBotApi {
        let inner = Arc::new(Inner::default());
        inner.next_update_id.store(1, Ordering::SeqCst);
        inner.next_message_id.store(1000, Ordering::SeqCst);
        let routes = axum::Router::new()
            .route("/{token}/{method}", axum::routing::post(handle))
            .with_state(inner.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let server = tokio::spawn(async move {
            axum::serve(listener, routes).await.expect("fake bot api");
        });
        let url = reqwest::Url::parse(&format!("http://{addr}/")).expect("url");
        FakeBotApi { url, inner, server }
    }

    /// A bot talking to this server.
    pub fn bot(&self) -> Bot {
        Bot::new("123:TEST").set_api_url(self.url.clone())
    }

    /// Makes `getMe` report privacy mode on (`can_read_all_group_messages: false`).
    pub fn set_privacy_mode(&self, on: bool) {
        *self.inner.privacy_mode.lock().expect("lock") = on;
    }

    /// Queues an update (`{"message": …}` or `{"callback_query": …}`); returns its id.
    pub fn push_update(&self, mut update: Value) -> i64 {
        // Numbered under the lock, so that updates pushed at once from several
        // threads are queued in id order and none falls behind an offset the
        // bot already moved past.
        let mut updates = self.inner.updates.lock().expect("lock");
        let id = self.inner.next_update_id.fetch_add(1, Ordering::SeqCst);
        update["update_id"] = json!(id);
        updates.push(update);
        drop(updates);
        self.inner.new_update.notify_waiters();
        id
    }

    /// Makes the next call of `method` fail with this HTTP status and body.
    pub fn fail_next(&self, method: &str, status: u16, body: Value) {
        self.fault_next(method, Fault::Status(status, body));
    }

    /// Makes the next call of `method` (as Telegram spells it, `sendMessage`)
    /// meet `fault`; several queued faults apply to successive calls.
    pub fn fault_next(&self, method: &str, fault: Fault) {
        self.inner.failures.lock().expect("lock").entry(method.to_owned()).or_default().push_back(fault);
    }

    /// Calls `observer` with every request from now on.
    pub fn observe(&self, observer: Observer) {
        *self.inner.observer.lock().expect("lock") = Some(observer);
    }

    /// When update `id` was first handed to the bot by `getUpdates`.
    pub fn handed_out(&self, id: i64) -> Option<Instant> {
        self.inner.handed_out.lock().expect("lock").get(&id).copied()
    }

    /// Every recorded call of `method`, failed ones too, in order.
    pub fn attempts(&self, method: &str) -> Vec<Recorded> {
        self.requests().into_iter().filter(|r| r.method == method).collect()
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.inner.requests.lock().expect("lock").clone()
    }

    /// The bodies of the successful calls of `method`, in order.
    pub fn calls(&self, method: &str) -> Vec<Value> {
        self.requests().into_iter().filter(|r| r.method == method && !r.failed).map(|r| r.body).collect()
    }

    /// The texts the bot sent to `chat` (successful `sendMessage` calls, as
    /// the shopper reads them), in order.
    pub fn texts_to(&self, chat: i64) -> Vec<String> {
        self.calls("sendMessage").iter().filter(|b| chat_id_of(b) == chat).map(visible_text).collect()
    }

    /// The messages the bot sent to `chat`, as the fake stored them (with ids
    /// and keyboards), in order.
    pub fn sent_to(&self, chat: i64) -> Vec<Value> {
        let messages = self.inner.messages.lock().expect("lock");
        let mut sent: Vec<Value> =
            messages.iter().filter(|((c, _), _)| *c == chat).map(|(_, m)| m.clone()).collect();
        sent.sort_by_key(|m| m["message_id"].as_i64());
        sent
    }

    /// Waits (at most 20 s) until `done` holds for the recorded requests;
    /// panics with every request recorded if it never does.
    pub async fn wait_until(&self, what: &str, done: impl Fn(&FakeBotApi) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
        loop {
            let notified = self.inner.new_request.notified();
            if done(self) {
                return;
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                let log: Vec<String> = self
                    .requests()
                    .iter()
                    .map(|r| format!("{} {}{}", r.method, r.body, if r.failed { " (failed)" } else { "" }))
                    .collect();
                panic!("timed out waiting for {what}; requests:\n{}", log.join("\n"));
            }
        }
    }

    /// Waits until `count` messages have been sent to `chat`; returns their texts.
    pub async fn wait_for_texts(&self, chat: i64, count: usize) -> Vec<String> {
        self.wait_until(&format!("{count} messages to chat {chat}"), |api| api.texts_to(chat).len() >= count)
            .await;
        self.texts_to(chat)
    }
}

/// A shopper.
#[derive(Debug, Clone, Copy)]
pub struct Shopper {
    pub id: i64,
    pub name: &'static str,
}

fn user_json(user: Shopper) -> Value {
    json!({"id": user.id, "is_bot": false, "first_name": user.name, "language_code": "zh-hans"})
}

fn chat_json(chat: i64) -> Value {
    if chat > 0 {
        json!({"id": chat, "type": "private", "first_name": "Shopper"})
    } else {
        json!({"id": chat, "type": "supergroup", "title": "Mall fans"})
    }
}

fn bot_user_json() -> Value {
    json!({"id": BOT_ID, "is_bot": true, "first_name": "Mall Guide", "username": BOT_USERNAME})
}

static NEXT_INCOMING_ID: AtomicI64 = AtomicI64::new(1);

/// A text message from `user` in `chat` (private when `chat > 0`), with entities.
pub fn text_message(chat: i64, user: Shopper, text: &str, entities: Value) -> Value {
    json!({"message": {
        "message_id": NEXT_INCOMING_ID.fetch_add(1, Ordering::SeqCst),
        "date": 1_700_000_000,
        "chat": chat_json(chat),
        "from": user_json(user),
        "text": text,
        "entities": entities,
    }})
}

/// A private text message (a command gets its `bot_command` entity).
pub fn private_text(user: Shopper, text: &str) -> Value {
    let entities = command_entity(text);
    text_message(user.id, user, text, entities)
}

/// A group message mentioning the bot at the start: `@MallGuideBot <text>`.
pub fn group_mention(chat: i64, user: Shopper, text: &str) -> Value {
    let full = format!("@{BOT_USERNAME} {text}");
    let length = BOT_USERNAME.len() + 1;
    text_message(chat, user, &full, json!([{"type": "mention", "offset": 0, "length": length}]))
}

/// The `bot_command` entity of a text starting with `/`.
pub fn command_entity(text: &str) -> Value {
    if !text.starts_with('/') {
        return json!([]);
    }
    let length: usize = text.split_whitespace().next().unwrap_or_default().encode_utf16().count();
    json!([{"type": "bot_command", "offset": 0, "length": length}])
}

/// A sticker from `user` in `chat`.
pub fn sticker(chat: i64, user: Shopper) -> Value {
    json!({"message": {
        "message_id": NEXT_INCOMING_ID.fetch_add(1, Ordering::SeqCst),
        "date": 1_700_000_000,
        "chat": chat_json(chat),
        "from": user_json(user),
        "sticker": {"file_id": "s1", "file_unique_id": "u1", "type": "regular", "width": 512, "height": 512,
                    "is_animated": false, "is_video": false}
    }})
}

/// A press by `user` of the button with `data` on the bot's `message`.
pub fn press(user: Shopper, message: &Value, data: &str) -> Value {
    static NEXT_QUERY: AtomicI64 = AtomicI64::new(1);
    json!({"callback_query": {
        "id": format!("q{}", NEXT_QUERY.fetch_add(1, Ordering::SeqCst)),
        "from": user_json(user),
        "message": message,
        "chat_instance": "ci",
        "data": data,
    }})
}

/// `update` (`{"message": …}` or `{"callback_query": …}`) numbered `id`, as
/// Telegram posts it to a webhook.
pub fn numbered(mut update: Value, id: i64) -> Value {
    update["update_id"] = json!(id);
    update
}

/// The callback query id of a [`press`] update.
pub fn query_id(update: &Value) -> String {
    update["callback_query"]["id"].as_str().unwrap_or_default().to_owned()
}

/// The callback data of the button labelled `label` on `message`.
pub fn button_data(message: &Value, label: &str) -> Option<String> {
    buttons(message).into_iter().find(|(l, _)| l == label).map(|(_, d)| d)
}

/// The (label, callback data or URL) of every button of `message`.
pub fn buttons(message: &Value) -> Vec<(String, String)> {
    let rows = message["reply_markup"]["inline_keyboard"].as_array().cloned().unwrap_or_default();
    rows.iter()
        .flat_map(|row| row.as_array().cloned().unwrap_or_default())
        .map(|b| {
            let label = b["text"].as_str().unwrap_or_default().to_owned();
            let data = b["callback_data"].as_str().or(b["url"].as_str()).unwrap_or_default().to_owned();
            (label, data)
        })
        .collect()
}

fn unescape_html(text: &str) -> String {
    text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
}

async fn handle(
    State(inner): State<Arc<Inner>>,
    Path((_token, method)): Path<(String, String)>,
    headers: HeaderMap,
    body: Bytes,
) -> axum::response::Response {
    // teloxide writes method names capitalised (`SendMessage`); Telegram ignores case.
    let mut chars = method.chars();
    let method: String = chars.next().map(|c| c.to_ascii_lowercase()).into_iter().chain(chars).collect();
    let is_json =
        headers.get("content-type").and_then(|v| v.to_str().ok()).is_some_and(|v| v.contains("json"));
    let body: Value = if is_json {
        serde_json::from_slice(&body).unwrap_or(Value::Null)
    } else {
        Value::String(String::from_utf8_lossy(&body).into_owned())
    };
    let failure = inner.failures.lock().expect("lock").get_mut(&method).and_then(VecDeque::pop_front);
    let lost = match failure {
        None => false,
        Some(Fault::Lost) => true,
        Some(Fault::Status(status, answer)) => {
            record(&inner, &method, body, true);
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
            return (status, axum::Json(answer)).into_response();
        }
        Some(Fault::Html(status)) => {
            record(&inner, &method, body, true);
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
            let page = format!(
                "<html><head><title>{status}</title></head><body><center><h1>{status}</h1></center><hr><center>nginx</center></body></html>"
            );
            return (status, [("content-type", "text/html")], page).into_response();
        }
        Some(Fault::Drop) => {
            record(&inner, &method, body, true);
            drop_connection();
        }
    };
    let result = match method.as_str() {
        "getUpdates" => {
            let served = updates(&inner, &body).await;
            record(&inner, &method, body, lost);
            if lost {
                drop_connection();
            }
            return (StatusCode::OK, axum::Json(json!({"ok": true, "result": served}))).into_response();
        }
        "getMe" => {
            let privacy = *inner.privacy_mode.lock().expect("lock");
            let mut me = bot_user_json();
            me["can_join_groups"] = json!(true);
            me["can_read_all_group_messages"] = json!(!privacy);
            me["supports_inline_queries"] = json!(false);
            me["has_main_web_app"] = json!(false);
            me
        }
        "getWebhookInfo" => json!({"url": "", "has_custom_certificate": false, "pending_update_count": 0}),
        "sendMessage" => store_message(&inner, &body, None),
        "editMessageText" | "editMessageReplyMarkup" => {
            edit_message(&inner, &body, method == "editMessageText")
        }
        "sendPhoto" => {
            json!({"message_id": inner.next_message_id.fetch_add(1, Ordering::SeqCst), "date": 1_700_000_000,
                             "chat": chat_json(1), "photo": []})
        }
        _ => json!(true),
    };
    record(&inner, &method, body, lost);
    if lost {
        drop_connection();
    }
    (StatusCode::OK, axum::Json(json!({"ok": true, "result": result}))).into_response()
}

/// Ends the connection of the request being handled without an answer: the
/// unwinding ends the connection's task, which closes its socket (and, unlike
/// a panic, prints nothing).
fn drop_connection() -> ! {
    std::panic::resume_unwind(Box::new("connection dropped by the fake Bot API"))
}

fn record(inner: &Inner, method: &str, body: Value, failed: bool) {
    let recorded = Recorded { method: method.to_owned(), body, failed, at: Instant::now() };
    let observer = inner.observer.lock().expect("lock").clone();
    if let Some(observer) = observer {
        observer(&recorded);
    }
    inner.requests.lock().expect("lock").push(recorded);
    inner.new_request.notify_waiters();
}

/// Updates from `offset` on (at most `limit`); waits briefly for new ones
/// when there are none. As on Telegram, asking from `offset` confirms every
/// earlier update: they are forgotten and never served again.
async fn updates(inner: &Inner, body: &Value) -> Vec<Value> {
    let offset = body["offset"].as_i64().unwrap_or(0);
    let limit = body["limit"].as_u64().filter(|l| *l > 0).unwrap_or(100) as usize;
    let id_of = |u: &Value| u["update_id"].as_i64().unwrap_or(0);
    if offset > 0 {
        inner.updates.lock().expect("lock").retain(|u| id_of(u) >= offset);
    }
    let pending = || -> Vec<Value> {
        let updates = inner.updates.lock().expect("lock");
        let served: Vec<Value> = updates.iter().filter(|u| id_of(u) >= offset).take(limit).cloned().collect();
        let now = Instant::now();
        let mut handed_out = inner.handed_out.lock().expect("lock");
        for update in &served {
            handed_out.entry(id_of(update)).or_insert(now);
        }
        served
    };
    let notified = inner.new_update.notified();
    let now = pending();
    if !now.is_empty() {
        return now;
    }
    let _ = tokio::time::timeout(Duration::from_millis(300), notified).await;
    pending()
}

fn chat_id_of(body: &Value) -> i64 {
    body["chat_id"].as_i64().or_else(|| body["chat_id"].as_str().and_then(|s| s.parse().ok())).unwrap_or(0)
}

fn visible_text(body: &Value) -> String {
    let text = body["text"].as_str().unwrap_or_default();
    if body["parse_mode"].as_str() == Some("HTML") { unescape_html(text) } else { text.to_owned() }
}

fn store_message(inner: &Inner, body: &Value, id: Option<i64>) -> Value {
    let chat = chat_id_of(body);
    let id = id.unwrap_or_else(|| inner.next_message_id.fetch_add(1, Ordering::SeqCst));
    let mut message = json!({
        "message_id": id, "date": 1_700_000_000, "chat": chat_json(chat), "from": bot_user_json(),
        "text": visible_text(body),
    });
    if let Some(thread) = body.get("message_thread_id") {
        message["message_thread_id"] = thread.clone();
        message["is_topic_message"] = json!(true);
    }
    let markup = &body["reply_markup"];
    if markup["inline_keyboard"].as_array().is_some_and(|rows| !rows.is_empty()) {
        message["reply_markup"] = markup.clone();
    }
    inner.messages.lock().expect("lock").insert((chat, id), message.clone());
    message
}

fn edit_message(inner: &Inner, body: &Value, text_too: bool) -> Value {
    let chat = chat_id_of(body);
    let id = body["message_id"].as_i64().unwrap_or(0);
    let mut messages = inner.messages.lock().expect("lock");
    let Some(message) = messages.get_mut(&(chat, id)) else { return json!(true) };
    if text_too {
        message["text"] = json!(visible_text(body));
    }
    let markup = &body["reply_markup"];
    if markup["inline_keyboard"].as_array().is_some_and(|rows| !rows.is_empty()) {
        message["reply_markup"] = markup.clone();
    } else if let Some(map) = message.as_object_mut() {
        map.remove("reply_markup");
    }
    message.clone()
}
