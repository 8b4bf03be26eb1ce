//! A fake Telegram Bot API server on 127.0.0.1 for tests: it answers the
//! methods the bot calls (drafts and deletions too), serves scripted updates
//! to `getUpdates`, can fail chosen calls ([`Fault`]: an error answer such as
//! flood control or unparsable HTML, a 5xx, a proxy's HTML page, a dropped
//! connection, a response lost after the call took effect) or refuse a
//! method altogether (an older server), and records every request
//! so a test can check what the shopper saw (photo uploads as their form
//! fields, answered with photo `file_id`s). It listens on a real port, so a
//! bot in another process (`telegram.api_url`) can use it too; like Telegram,
//! it forgets the updates a `getUpdates` offset confirmed, so a restarted bot
//! gets only what its predecessor had not taken.

#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
    /// The request body (JSON; for `sendPhoto` / `sendMediaGroup` uploads the
    /// form's fields, see [`multipart_fields`]; else the raw text of a multipart body).
    pub body: Value,
    /// Whether the fake answered it with a scripted error.
    pub failed: bool,
    /// When it arrived.
    pub at: std::time::Instant,
}

/// How a call fails.
#[derive(Debug, Clone)]
pub enum Fault {
    /// This HTTP status with this JSON body (the Bot API's own errors).
    Json(u16, Value),
    /// This HTTP status with an HTML body, as a proxy in front of the Bot API answers.
    Html(u16, String),
    /// The connection is closed before the call takes effect: no answer.
    Drop,
    /// The call takes effect, then the connection is closed: the answer is lost.
    LoseResponse,
}

impl Fault {
    /// `500 Internal Server Error` from the Bot API.
    pub fn internal_error() -> Fault {
        Fault::Json(500, json!({"ok": false, "error_code": 500, "description": "Internal Server Error"}))
    }

    /// `502 Bad Gateway` with nginx's HTML page.
    pub fn bad_gateway_html() -> Fault {
        Fault::Html(
            502,
            "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n".into(),
        )
    }

    /// `400 Bad Request: chat not found`.
    pub fn chat_not_found() -> Fault {
        Fault::Json(
            400,
            json!({"ok": false, "error_code": 400, "description": "Bad Request: chat not found"}),
        )
    }
}

/// Watches every request as it arrives (after it took effect).
pub type Observer = Arc<dyn Fn(&Recorded) + Send + Sync>;

#[derive(Default)]
struct Inner {
    requests: Mutex<Vec<Recorded>>,
    updates: Mutex<Vec<Value>>,
    failures: Mutex<HashMap<String, VecDeque<Fault>>>,
    refused: Mutex<HashMap<String, (u16, Value)>>,
    handed_out: Mutex<HashMap<i64, std::time::Instant>>,
    observer: Mutex<Option<Observer>>,
    messages: Mutex<HashMap<(i64, i64), Value>>,
    next_update_id: AtomicI64,
    next_message_id: AtomicI64,
    new_update: Notify,
    new_request: Notify,
    privacy_mode: Mutex<bool>,
    files: Mutex<HashMap<String, Vec<u8>>>,
    /// The messages users sent (pushed as updates), by (chat, message id):
    /// what `copyMessage` copies.
    incoming: Mutex<HashMap<(i64, i64), Value>>,
    /// Chats whose user blocked the bot: sends to them fail with 403.
    blocked: Mutex<Vec<i64>>,
    /// `getChatMember` reports the bot without "Manage topics".
    no_topic_rights: Mutex<bool>,
    /// Milliseconds every answer waits before it leaves, as Telegram's do
    /// from a server 50–200 ms away (0: at once).
    latency_ms: std::sync::atomic::AtomicU64,
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
    /// Every answer from now on waits `latency` before it leaves.
    pub fn set_latency(&self, latency: Duration) {
        self.inner
            .latency_ms
            .store(u64::try_from(latency.as_millis()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Starts the server on a free loopback port.
    pub async fn start() -> FakeBotApi {
        let inner = Arc::new(Inner::default());
        inner.next_update_id.store(1, Ordering::SeqCst);
        inner.next_message_id.store(1000, Ordering::SeqCst);
        let routes = axum::Router::new()
            .route("/{token}/{method}", axum::routing::post(handle))
            .route("/file/{token}/{*path}", axum::routing::get(download))
            .layer(axum::middleware::from_fn_with_state(inner.clone(), delayed))
            .with_state(inner.clone());
        // A deep accept queue, as a real server has: under a burst of new
        // connections a dropped SYN would cost the bot 1–3 s of retransmits.
        let socket = tokio::net::TcpSocket::new_v4().expect("socket");
        socket.bind(([127, 0, 0, 1], 0).into()).expect("bind");
        let listener = socket.listen(4096).expect("listen");
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

    /// Makes a file downloadable: `getFile` with `file_id` answers the path
    /// `files/<file_id>`, served under `/file/bot<token>/` (each download is
    /// recorded as method `download` with its path and token).
    pub fn put_file(&self, file_id: &str, bytes: Vec<u8>) {
        self.inner.files.lock().expect("lock").insert(file_id.to_owned(), bytes);
    }

    /// The file ids downloaded so far, in order.
    pub fn downloads(&self) -> Vec<String> {
        self.calls("download").iter().map(|b| b["file_id"].as_str().unwrap_or_default().to_owned()).collect()
    }

    /// Queues an update (`{"message": …}` or `{"callback_query": …}`); returns its id.
    pub fn push_update(&self, mut update: Value) -> i64 {
        // Numbered under the lock, so that updates pushed at once from several
        // threads are queued in id order and none falls behind an offset the
        // bot already moved past.
        let mut updates = self.inner.updates.lock().expect("lock");
        let id = self.inner.next_update_id.fetch_add(1, Ordering::SeqCst);
        update["update_id"] = json!(id);
        remember_incoming(&self.inner, &update);
        updates.push(update);
        drop(updates);
        self.inner.new_update.notify_waiters();
        id
    }

    /// Remembers a message posted to a webhook (not through `getUpdates`),
    /// so that `copyMessage` can copy it.
    pub fn remember(&self, update: &Value) {
        remember_incoming(&self.inner, update);
    }

    /// Makes `getChatMember` report the bot as an admin without `can_manage_topics`.
    pub fn without_topic_rights(&self) {
        *self.inner.no_topic_rights.lock().expect("lock") = true;
    }

    /// Makes `chat`'s user block the bot: sends to it fail with
    /// `403 Forbidden: bot was blocked by the user`.
    pub fn block(&self, chat: i64) {
        self.inner.blocked.lock().expect("lock").push(chat);
    }

    /// The messages copied into `chat` (`copyMessage`), as the fake stored
    /// them: the original's content, the topic when one was given.
    pub fn copies_to(&self, chat: i64) -> Vec<Value> {
        self.sent_to(chat).into_iter().filter(|m| m["copied"] == json!(true)).collect()
    }

    /// Same as [`FakeBotApi::fail_next_with`].
    pub fn fault_next(&self, method: &str, fault: Fault) {
        self.fail_next_with(method, fault);
    }

    /// Calls `observer` with every request from now on.
    pub fn observe(&self, observer: Observer) {
        *self.inner.observer.lock().expect("lock") = Some(observer);
    }

    /// When update `id` was first handed to the bot by `getUpdates`.
    pub fn handed_out(&self, id: i64) -> Option<std::time::Instant> {
        self.inner.handed_out.lock().expect("lock").get(&id).copied()
    }

    /// Every recorded call of `method`, failed ones too, in order.
    pub fn attempts(&self, method: &str) -> Vec<Recorded> {
        self.requests().into_iter().filter(|r| r.method == method).collect()
    }

    /// Makes the next call of `method` fail with this HTTP status and body.
    pub fn fail_next(&self, method: &str, status: u16, body: Value) {
        self.fail_next_with(method, Fault::Json(status, body));
    }

    /// Makes the next call of `method` fail this way (after the faults queued before).
    pub fn fail_next_with(&self, method: &str, fault: Fault) {
        self.inner.failures.lock().expect("lock").entry(method.to_owned()).or_default().push_back(fault);
    }

    /// Forgets the faults still queued for `method` (the Bot API is back).
    pub fn recover(&self, method: &str) {
        self.inner.failures.lock().expect("lock").remove(method);
    }

    /// How many calls of `method` failed (faults applied).
    pub fn failed_calls(&self, method: &str) -> usize {
        self.requests().iter().filter(|r| r.method == method && r.failed).count()
    }

    /// Makes every call of `method` fail with this HTTP status and body, as
    /// a Bot API server that does not know the method does.
    pub fn refuse(&self, method: &str, status: u16, body: Value) {
        self.inner.refused.lock().expect("lock").insert(method.to_owned(), (status, body));
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

    /// The texts of the messages in `chat` as the shopper reads them now
    /// (edits applied, deleted messages gone), in order.
    pub fn shown_to(&self, chat: i64) -> Vec<String> {
        self.sent_to(chat).iter().map(|m| m["text"].as_str().unwrap_or_default().to_owned()).collect()
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

/// The service desk's forum supergroup `chat` as messages show it.
fn forum_json(chat: i64) -> Value {
    json!({"id": chat, "type": "supergroup", "title": "Service desk", "is_forum": true})
}

/// A message from `user` in the forum group `chat`: in topic `thread` when
/// given (with `is_topic_message`), else in General; `content` is the
/// message's own fields (`{"text": …}`, `{"photo": […]}`…).
pub fn forum_message(chat: i64, user: Shopper, thread: Option<i64>, content: Value) -> Value {
    let mut message = json!({
        "message_id": NEXT_INCOMING_ID.fetch_add(1, Ordering::SeqCst),
        "date": 1_700_000_000,
        "chat": forum_json(chat),
        "from": user_json(user),
    });
    if let Some(thread) = thread {
        message["message_thread_id"] = json!(thread);
        message["is_topic_message"] = json!(true);
    }
    for (key, value) in content.as_object().cloned().unwrap_or_default() {
        message[key] = value;
    }
    if let Some(text) = content["text"].as_str() {
        message["entities"] = command_entity(text);
    }
    json!({"message": message})
}

/// A text from `user` in topic `thread` of the forum group `chat`.
pub fn topic_text(chat: i64, user: Shopper, thread: i64, text: &str) -> Value {
    forum_message(chat, user, Some(thread), json!({"text": text}))
}

/// A photo (file `file_id`) from `user` in topic `thread` of the forum group `chat`.
pub fn topic_photo(chat: i64, user: Shopper, thread: i64, file_id: &str) -> Value {
    let photo =
        json!([{"file_id": file_id, "file_unique_id": format!("u-{file_id}"), "width": 800, "height": 600}]);
    forum_message(chat, user, Some(thread), json!({"photo": photo}))
}

/// A reaction of `user` in the private chat to the bot's message `message_id`:
/// `emoji` now (empty: the reaction taken back), `before` earlier.
pub fn reaction(user: Shopper, message_id: i64, emoji: &str, before: &str) -> Value {
    let list = |e: &str| if e.is_empty() { json!([]) } else { json!([{"type": "emoji", "emoji": e}]) };
    json!({"message_reaction": {
        "chat": chat_json(user.id), "message_id": message_id, "user": user_json(user),
        "date": 1_700_000_000, "old_reaction": list(before), "new_reaction": list(emoji),
    }})
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

/// A voice message of `seconds` from `user` in `chat`, file `file_id` of `size` bytes.
pub fn voice_message(chat: i64, user: Shopper, file_id: &str, seconds: u32, size: u64) -> Value {
    json!({"message": {
        "message_id": NEXT_INCOMING_ID.fetch_add(1, Ordering::SeqCst),
        "date": 1_700_000_000,
        "chat": chat_json(chat),
        "from": user_json(user),
        "voice": {"file_id": file_id, "file_unique_id": format!("u-{file_id}"), "duration": seconds,
                  "mime_type": "audio/ogg", "file_size": size}
    }})
}

/// A photo from `user` in `chat` in the sizes `(file_id, width, height)`, with a caption or not.
pub fn photo_from(chat: i64, user: Shopper, sizes: &[(&str, u32, u32)], caption: Option<&str>) -> Value {
    let sizes: Vec<Value> = sizes
        .iter()
        .map(|(id, w, h)| {
            json!({"file_id": id, "file_unique_id": format!("u-{id}"), "width": w, "height": h,
                                 "file_size": w * h / 8})
        })
        .collect();
    let mut update = json!({"message": {
        "message_id": NEXT_INCOMING_ID.fetch_add(1, Ordering::SeqCst),
        "date": 1_700_000_000,
        "chat": chat_json(chat),
        "from": user_json(user),
        "photo": sizes,
    }});
    if let Some(caption) = caption {
        update["message"]["caption"] = json!(caption);
    }
    update
}

/// `update` as a reply to `message` (one of the bot's, or anyone's).
pub fn replying_to(mut update: Value, message: &Value) -> Value {
    update["message"]["reply_to_message"] = message.clone();
    update
}

/// A message of another shopper in `chat`, to reply to.
pub fn someones_message(chat: i64, user: Shopper, text: &str) -> Value {
    text_message(chat, user, text, json!([]))["message"].clone()
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

/// A `pre_checkout_query` from `user` for an invoice with this payload, amount and currency.
pub fn pre_checkout(user: Shopper, payload: &str, amount: i64, currency: &str) -> Value {
    static NEXT_CHECKOUT: AtomicI64 = AtomicI64::new(1);
    json!({"pre_checkout_query": {
        "id": format!("pc{}", NEXT_CHECKOUT.fetch_add(1, Ordering::SeqCst)),
        "from": user_json(user),
        "currency": currency,
        "total_amount": amount,
        "invoice_payload": payload,
    }})
}

/// The `successful_payment` service message in `user`'s private chat for an
/// invoice with this payload, amount and currency, charged as `charge_id`.
pub fn successful_payment(
    user: Shopper,
    payload: &str,
    amount: i64,
    currency: &str,
    charge_id: &str,
) -> Value {
    json!({"message": {
        "message_id": NEXT_INCOMING_ID.fetch_add(1, Ordering::SeqCst),
        "date": 1_700_000_000,
        "chat": chat_json(user.id),
        "from": user_json(user),
        "successful_payment": {
            "currency": currency,
            "total_amount": amount,
            "invoice_payload": payload,
            "telegram_payment_charge_id": charge_id,
            "provider_payment_charge_id": format!("provider-{charge_id}"),
        },
    }})
}

/// The answers to pre-checkout queries so far: (query id, ok, error message).
pub fn checkout_answers(api: &FakeBotApi) -> Vec<(String, bool, String)> {
    api.calls("answerPreCheckoutQuery")
        .iter()
        .map(|b| {
            (
                b["pre_checkout_query_id"].as_str().unwrap_or_default().to_owned(),
                b["ok"].as_bool().unwrap_or(false),
                b["error_message"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
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

/// Answers after the configured latency (see [`FakeBotApi::set_latency`]).
async fn delayed(
    State(inner): State<Arc<Inner>>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let response = next.run(request).await;
    let latency = inner.latency_ms.load(Ordering::Relaxed);
    if latency > 0 {
        tokio::time::sleep(Duration::from_millis(latency)).await;
    }
    response
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
    let content_type = headers.get("content-type").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let body: Value = if content_type.contains("json") {
        serde_json::from_slice(&body).unwrap_or(Value::Null)
    } else if let Some(boundary) = content_type
        .split("boundary=")
        .nth(1)
        .filter(|_| matches!(method.as_str(), "sendPhoto" | "sendMediaGroup"))
    {
        multipart_fields(&body, boundary.trim_matches('"'))
    } else {
        Value::String(String::from_utf8_lossy(&body).into_owned())
    };
    let failure = inner.failures.lock().expect("lock").get_mut(&method).and_then(VecDeque::pop_front);
    let failure = failure.or_else(|| {
        inner
            .refused
            .lock()
            .expect("lock")
            .get(&method)
            .map(|(status, answer)| Fault::Json(*status, answer.clone()))
    });
    let blocked_chat = matches!(method.as_str(), "sendMessage" | "copyMessage" | "sendPhoto")
        && inner.blocked.lock().expect("lock").contains(&chat_id_of(&body));
    let failure = failure.or_else(|| {
        blocked_chat.then(|| {
            Fault::Json(403, json!({"ok": false, "error_code": 403, "description": "Forbidden: bot was blocked by the user"}))
        })
    });
    let mut lose_response = false;
    match failure {
        None => {}
        Some(Fault::Json(status, answer)) => {
            record(&inner, &method, body, true);
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_REQUEST);
            return (status, axum::Json(answer)).into_response();
        }
        Some(Fault::Html(status, page)) => {
            record(&inner, &method, body, true);
            let status = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
            return (status, [("content-type", "text/html")], page).into_response();
        }
        Some(Fault::Drop) => {
            record(&inner, &method, body, true);
            close_the_connection();
        }
        Some(Fault::LoseResponse) => lose_response = true,
    }
    let result = match method.as_str() {
        "getUpdates" => {
            let served = updates(&inner, &body).await;
            record(&inner, &method, body, lose_response);
            if lose_response {
                close_the_connection();
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
        "getFile" => {
            let file_id = body["file_id"].as_str().unwrap_or_default().to_owned();
            let size = inner.files.lock().expect("lock").get(&file_id).map(Vec::len);
            match size {
                Some(size) => json!({"file_id": file_id, "file_unique_id": format!("u-{file_id}"),
                                     "file_size": size, "file_path": format!("files/{file_id}")}),
                None => {
                    record(&inner, &method, body, true);
                    let error = json!({"ok": false, "error_code": 400, "description": "Bad Request: invalid file_id"});
                    return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
                }
            }
        }
        // The bot is an admin of every group, managing topics unless told otherwise.
        "getChatMember" => {
            let topics = !*inner.no_topic_rights.lock().expect("lock");
            json!({"user": bot_user_json(), "status": "administrator", "is_anonymous": false,
                   "can_be_edited": false, "can_manage_chat": true, "can_change_info": false,
                   "can_delete_messages": true, "can_manage_video_chats": false, "can_invite_users": true,
                   "can_restrict_members": false, "can_pin_messages": true, "can_promote_members": false,
                   "can_manage_topics": topics})
        }
        "getWebhookInfo" => json!({"url": "", "has_custom_certificate": false, "pending_update_count": 0}),
        "sendMessage" => store_message(&inner, &body, None),
        "createForumTopic" => {
            let thread = inner.next_message_id.fetch_add(1, Ordering::SeqCst);
            json!({"message_thread_id": thread, "name": body["name"], "icon_color": 7322096})
        }
        "copyMessage" => match copy_message(&inner, &body) {
            Some(id) => json!({"message_id": id}),
            None => {
                record(&inner, &method, body, true);
                let error = json!({"ok": false, "error_code": 400, "description": "Bad Request: message to copy not found"});
                return (StatusCode::BAD_REQUEST, axum::Json(error)).into_response();
            }
        },
        "editMessageText" | "editMessageReplyMarkup" => {
            edit_message(&inner, &body, method == "editMessageText")
        }
        "deleteMessage" => {
            let key = (chat_id_of(&body), body["message_id"].as_i64().unwrap_or(0));
            json!(inner.messages.lock().expect("lock").remove(&key).is_some())
        }
        "sendPhoto" => photo_message(&inner, &body, &body["caption"]),
        "sendInvoice" => invoice_message(&inner, &body),
        // Telegram answers an invoice link for openInvoice.
        "createInvoiceLink" => {
            json!(format!("https://t.me/$inv{}", inner.next_message_id.fetch_add(1, Ordering::SeqCst)))
        }
        "sendMediaGroup" => {
            let media = body["media"].as_array().cloned().unwrap_or_default();
            Value::Array(media.iter().map(|m| photo_message(&inner, &body, &m["caption"])).collect())
        }
        _ => json!(true),
    };
    record(&inner, &method, body, false);
    if lose_response {
        close_the_connection();
    }
    (StatusCode::OK, axum::Json(json!({"ok": true, "result": result}))).into_response()
}

/// `GET /file/bot<token>/files/<file_id>`: the file's bytes.
async fn download(
    State(inner): State<Arc<Inner>>,
    Path((token, path)): Path<(String, String)>,
) -> axum::response::Response {
    let file_id = path.strip_prefix("files/").unwrap_or(&path).to_owned();
    let bytes = inner.files.lock().expect("lock").get(&file_id).cloned();
    let found = bytes.is_some();
    record(&inner, "download", json!({"file_id": file_id, "token": token}), !found);
    match bytes {
        Some(bytes) => {
            (StatusCode::OK, [("content-type", "application/octet-stream")], bytes).into_response()
        }
        None => StatusCode::NOT_FOUND.into_response(),
    }
}

/// Ends the connection without an answer: the task serving it unwinds (the
/// panic hook is not run, so nothing is printed), and the server drops it.
fn close_the_connection() -> ! {
    std::panic::resume_unwind(Box::new("fake bot api: connection closed on purpose"))
}

fn record(inner: &Inner, method: &str, body: Value, failed: bool) {
    let recorded = Recorded { method: method.to_owned(), body, failed, at: std::time::Instant::now() };
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
        let now = std::time::Instant::now();
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

/// Keeps the message of an update a user sent, for `copyMessage`.
fn remember_incoming(inner: &Inner, update: &Value) {
    let message = &update["message"];
    if let (Some(chat), Some(id)) = (message["chat"]["id"].as_i64(), message["message_id"].as_i64()) {
        inner.incoming.lock().expect("lock").insert((chat, id), message.clone());
    }
}

/// Copies a user's message into `chat_id` (in `message_thread_id` when
/// given) as a message of the bot's: its content without its sender; the
/// new message's id, or `None` when the message is unknown.
fn copy_message(inner: &Inner, body: &Value) -> Option<i64> {
    let from = body["from_chat_id"].as_i64().or_else(|| body["from_chat_id"].as_str()?.parse().ok())?;
    let original =
        inner.incoming.lock().expect("lock").get(&(from, body["message_id"].as_i64()?)).cloned()?;
    let chat = chat_id_of(body);
    let id = inner.next_message_id.fetch_add(1, Ordering::SeqCst);
    let mut message = json!({
        "message_id": id, "date": 1_700_000_000, "chat": chat_json(chat), "from": bot_user_json(),
        "copied": true,
    });
    for key in ["text", "photo", "caption", "voice", "sticker", "document"] {
        if let Some(value) = original.get(key) {
            message[key] = value.clone();
        }
    }
    if let Some(thread) = body.get("message_thread_id") {
        message["message_thread_id"] = thread.clone();
        message["is_topic_message"] = json!(true);
    }
    inner.messages.lock().expect("lock").insert((chat, id), message);
    Some(id)
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

/// A sent invoice message, as Telegram shows it (title, description,
/// currency and the total of its prices).
fn invoice_message(inner: &Inner, body: &Value) -> Value {
    let id = inner.next_message_id.fetch_add(1, Ordering::SeqCst);
    let total: i64 =
        body["prices"].as_array().into_iter().flatten().filter_map(|p| p["amount"].as_i64()).sum();
    let chat = chat_id_of(body);
    let message = json!({
        "message_id": id, "date": 1_700_000_000, "chat": chat_json(chat), "from": bot_user_json(),
        "invoice": {
            "title": body["title"], "description": body["description"], "start_parameter": "",
            "currency": body["currency"], "total_amount": total,
        },
    });
    inner.messages.lock().expect("lock").insert((chat, id), message.clone());
    message
}

/// A sent photo message whose largest size has file id `photo-<message id>`.
fn photo_message(inner: &Inner, body: &Value, caption: &Value) -> Value {
    let id = inner.next_message_id.fetch_add(1, Ordering::SeqCst);
    let mut message = json!({
        "message_id": id, "date": 1_700_000_000, "chat": chat_json(chat_id_of(body)), "from": bot_user_json(),
        "photo": [
            {"file_id": format!("thumb-{id}"), "file_unique_id": format!("ut{id}"), "width": 90, "height": 90, "file_size": 900},
            {"file_id": format!("photo-{id}"), "file_unique_id": format!("u{id}"), "width": 883, "height": 953, "file_size": 40000},
        ],
    });
    if caption.is_string() {
        message["caption"] = caption.clone();
    }
    message
}

/// The fields of a `multipart/form-data` body: text fields as JSON when
/// they parse (`media`, `chat_id`), else as strings; files as
/// `{"file_name", "bytes", "png"}` (whether they start with the PNG signature).
fn multipart_fields(body: &[u8], boundary: &str) -> Value {
    let delimiter = format!("--{boundary}");
    let mut fields = serde_json::Map::new();
    for part in split_bytes(body, delimiter.as_bytes()) {
        let part = part.strip_prefix(b"\r\n").unwrap_or(part);
        let Some(split) = find_bytes(part, b"\r\n\r\n") else { continue };
        let (head, content) = (String::from_utf8_lossy(&part[..split]), &part[split + 4..]);
        let content = content.strip_suffix(b"\r\n").unwrap_or(content);
        let attribute = |key: &str| {
            let marker = format!("{key}=\"");
            let start = head.find(&marker)? + marker.len();
            let end = head[start..].find('"')? + start;
            Some(head[start..end].to_owned())
        };
        let Some(name) = attribute("name") else { continue };
        let value = match attribute("filename") {
            Some(file_name) => json!({
                "file_name": file_name, "bytes": content.len(), "png": content.starts_with(b"\x89PNG\r\n\x1a\n"),
            }),
            None => {
                let text = String::from_utf8_lossy(content).into_owned();
                serde_json::from_str(&text).unwrap_or(Value::String(text))
            }
        };
        fields.insert(name, value);
    }
    Value::Object(fields)
}

fn find_bytes(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn split_bytes<'a>(mut body: &'a [u8], delimiter: &[u8]) -> Vec<&'a [u8]> {
    let mut parts = Vec::new();
    while let Some(at) = find_bytes(body, delimiter) {
        if at > 0 {
            parts.push(&body[..at]);
        }
        body = &body[at + delimiter.len()..];
    }
    parts
}
