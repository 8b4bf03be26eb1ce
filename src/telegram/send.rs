//! The one sending path to Telegram: every Bot API call the bot makes goes
//! through [`call`], which retries what is transient — HTTP 5xx, a body that
//! is not JSON (a proxy's HTML error page), connection failures and timeouts,
//! `429` after its `retry_after` — with backoff and a bound, and never what is
//! final (`400 chat not found`, `403` blocked, "message is not modified"…).
//! [`send_now`] delivers one answer (split into parts, HTML with a plain-text
//! resend, buttons on the last part, optionally turning an existing status
//! message into its first part); the outbox (`outbox.rs`) keeps it until
//! Telegram took it. Also: the typing indicator and edits after a press.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use handlers::Lang;
use reqwest::header::{CONTENT_TYPE, HeaderValue};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use services::RetryPolicy;
use teloxide::payloads::{
    AnswerCallbackQuerySetters, EditMessageReplyMarkupSetters, EditMessageTextSetters, SendMessageSetters,
    SendPhotoSetters,
};
use teloxide::prelude::*;
use teloxide::requests::Payload;
use teloxide::types::{
    ChatAction, InlineKeyboardButton, InlineKeyboardMarkup, MessageId, ParseMode, ReplyParameters, Seconds,
    ThreadId,
};
use teloxide::{ApiError, RequestError};

use super::callback::ButtonData;
use super::format::{MESSAGE_LIMIT, Part, escape_html, telegram_len};
use super::markdown::render_parts;
use super::texts;
use crate::reply::Reply;

/// How a Bot API call that failed in a transient way is retried: about
/// 0.3 s, 0.6 s, 1.2 s, 2.4 s (less a random share of up to half), then the
/// caller gives up (an answer then waits in the outbox).
pub const TELEGRAM_RETRY: RetryPolicy = RetryPolicy {
    max_retries: 4,
    base: Duration::from_millis(300),
    max_delay: Duration::from_secs(4),
    jitter: 0.5,
};
/// How many times a request is retried after `429 Too Many Requests`.
const FLOOD_RETRIES: u32 = 3;
/// The longest `retry_after` that is waited for; longer waits give up.
const MAX_FLOOD_WAIT: Duration = Duration::from_secs(60);
/// How much of an unreadable answer a logged error keeps.
const RAW_LIMIT: usize = 300;
/// Telegram shows "typing…" for about 5 seconds; it is refreshed this often.
const TYPING_REFRESH: Duration = Duration::from_secs(4);

/// Where an answer goes: the chat, the forum topic, and (in groups) the
/// message it answers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Target {
    pub chat: ChatId,
    /// The forum topic, when the message came from one.
    pub thread: Option<ThreadId>,
    /// The message to reply to (groups, so it is clear whom the bot answers).
    pub reply_to: Option<MessageId>,
}

impl Target {
    /// The target answering `msg`: same chat, same forum topic, and in
    /// groups a reply to it.
    pub fn answering(msg: &Message) -> Self {
        let is_group = msg.chat.is_group() || msg.chat.is_supergroup();
        Target {
            chat: msg.chat.id,
            thread: msg.thread_id.filter(|_| msg.is_topic_message),
            reply_to: is_group.then_some(msg.id),
        }
    }
}

/// A Bot API call that did not succeed: the error, and whether it was
/// transient (trying again later may succeed) or final.
#[derive(Debug, Clone)]
pub struct SendFailure {
    /// What Telegram (or the network) answered last.
    pub error: RequestError,
    /// Worth trying again later: 5xx, a body that is not JSON, a network
    /// error, flood control beyond what was waited for.
    pub transient: bool,
}

impl std::fmt::Display for SendFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}{}", self.error, if self.transient { " (transient)" } else { "" })
    }
}

impl From<SendFailure> for RequestError {
    fn from(failure: SendFailure) -> Self {
        failure.error
    }
}

/// What one attempt of a call came to.
enum Verdict<T> {
    Done(T),
    Final(RequestError),
    /// Transient. `delivered_maybe`: the request may have reached Telegram
    /// (its answer was lost), so sending it again may duplicate it.
    Again {
        error: RequestError,
        delivered_maybe: bool,
    },
}

/// The Bot API's answer envelope.
#[derive(Deserialize)]
struct Envelope {
    ok: bool,
    #[serde(default)]
    result: Option<serde_json::Value>,
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    error_code: Option<u16>,
    #[serde(default)]
    parameters: Option<Parameters>,
}

/// A taken request's answer, read straight into the method's output (the
/// usual case: no `Value` tree built and then read a second time).
#[derive(Deserialize)]
struct Taken<T> {
    ok: bool,
    result: T,
}

#[derive(Deserialize)]
struct Parameters {
    #[serde(default)]
    retry_after: Option<u32>,
    #[serde(default)]
    migrate_to_chat_id: Option<i64>,
}

/// Calls the Bot API method of `payload` (JSON) with the bot's client,
/// retrying transient failures per [`TELEGRAM_RETRY`] and waiting out flood
/// control (at most [`FLOOD_RETRIES`] waits of up to [`MAX_FLOOD_WAIT`]).
pub async fn call<P>(bot: &Bot, payload: &P) -> Result<P::Output, SendFailure>
where
    P: Payload + Serialize,
    P::Output: DeserializeOwned,
{
    let body = serde_json::to_vec(payload).map_err(|e| SendFailure {
        error: RequestError::InvalidJson { source: Arc::new(e), raw: "".into() },
        transient: false,
    })?;
    let url = method_url(bot, P::NAME);
    // A client span when inside a traced turn (never a trace of its own:
    // the typing loop and polling would flood the collector).
    let span = crate::otel::client_span_in_trace(|| format!("telegram {}", P::NAME), "telegram");
    let calling = calling::<P>(bot, &url, &body, &span);
    tracing::Instrument::instrument(calling, span.clone()).await
}

async fn calling<P>(
    bot: &Bot,
    url: &reqwest::Url,
    body: &[u8],
    span: &tracing::Span,
) -> Result<P::Output, SendFailure>
where
    P: Payload + Serialize,
    P::Output: DeserializeOwned,
{
    let result = calling_inner::<P>(bot, url, body).await;
    if let Err(failure) = &result {
        crate::otel::record_error(span, if failure.transient { "transient" } else { "final" });
    }
    result
}

async fn calling_inner<P>(bot: &Bot, url: &reqwest::Url, body: &[u8]) -> Result<P::Output, SendFailure>
where
    P: Payload + Serialize,
    P::Output: DeserializeOwned,
{
    let mut retries = 0;
    let mut floods = 0;
    loop {
        let verdict = attempt::<P::Output>(bot, url, body).await;
        if let Verdict::Final(error) | Verdict::Again { error, .. } = &verdict {
            crate::ops::telegram_error(error);
        }
        match verdict {
            Verdict::Done(output) => return Ok(output),
            Verdict::Final(error) => return Err(SendFailure { error, transient: false }),
            Verdict::Again { error: RequestError::RetryAfter(after), .. } => {
                if floods >= FLOOD_RETRIES || after.duration() > MAX_FLOOD_WAIT {
                    return Err(SendFailure { error: RequestError::RetryAfter(after), transient: true });
                }
                floods += 1;
                tracing::warn!(
                    method = P::NAME,
                    retry_after = after.seconds(),
                    attempt = floods,
                    "telegram flood control; waiting"
                );
                tokio::time::sleep(after.duration()).await;
            }
            Verdict::Again { error, delivered_maybe } => {
                let Some(pause) = TELEGRAM_RETRY.pause(retries, None) else {
                    tracing::warn!(method = P::NAME, error = %error, attempts = retries + 1, "telegram call still failing; giving up for now");
                    return Err(SendFailure { error, transient: true });
                };
                retries += 1;
                if delivered_maybe {
                    tracing::warn!(
                        method = P::NAME, error = %error, attempt = retries, wait_ms = pause.as_millis() as u64,
                        "telegram's answer was lost after the request was sent; sending again (a duplicate is possible)"
                    );
                } else {
                    tracing::warn!(
                        method = P::NAME, error = %error, attempt = retries, wait_ms = pause.as_millis() as u64,
                        "telegram did not take the request; sending again"
                    );
                }
                tokio::time::sleep(pause).await;
            }
        }
    }
}

/// `{api_url}/bot{token}/{method}`.
fn method_url(bot: &Bot, method: &str) -> reqwest::Url {
    let mut url = bot.api_url();
    if let Ok(mut segments) = url.path_segments_mut() {
        segments.pop_if_empty().push(&format!("bot{}", bot.token())).push(method);
    }
    url
}

/// One round trip, judged.
async fn attempt<T: DeserializeOwned>(bot: &Bot, url: &reqwest::Url, body: &[u8]) -> Verdict<T> {
    let sent = bot
        .client()
        .post(url.clone())
        .header(CONTENT_TYPE, HeaderValue::from_static("application/json"))
        .body(body.to_vec())
        .send()
        .await;
    let response = match sent {
        Ok(response) => response,
        // A failed connect never wrote the request; anything later may have.
        Err(e) => {
            let delivered_maybe = !e.is_connect();
            return Verdict::Again { error: network_error(e), delivered_maybe };
        }
    };
    let status = response.status();
    match response.text().await {
        Ok(text) => judge(status, &text),
        Err(e) => Verdict::Again { error: network_error(e), delivered_maybe: true },
    }
}

/// A network failure of a Bot API call, its URL (which carries the token)
/// redacted before the error goes anywhere.
pub fn network_error(error: reqwest::Error) -> RequestError {
    RequestError::Network(Arc::new(crate::redact::reqwest_error(error)))
}

/// `error` with the URL of a network failure redacted (teloxide hides only
/// tokens of the usual shape at the start of the path).
fn redacted(error: RequestError) -> RequestError {
    match error {
        RequestError::Network(inner) => match Arc::try_unwrap(inner) {
            Ok(inner) => network_error(inner),
            Err(shared) => RequestError::Network(shared),
        },
        other => other,
    }
}

/// What an answer with this status and body means.
fn judge<T: DeserializeOwned>(status: reqwest::StatusCode, text: &str) -> Verdict<T> {
    if let Ok(Taken { ok: true, result }) = serde_json::from_str::<Taken<T>>(text) {
        return Verdict::Done(result);
    }
    let envelope: Envelope = match serde_json::from_str(text) {
        Ok(envelope) => envelope,
        // Not the Bot API talking (a proxy's error page): it did not take the request.
        Err(e) => {
            return Verdict::Again {
                error: RequestError::InvalidJson { source: Arc::new(e), raw: excerpt(text, status).into() },
                delivered_maybe: false,
            };
        }
    };
    if envelope.ok {
        let result = envelope.result.unwrap_or(serde_json::Value::Null);
        return match serde_json::from_value(result) {
            Ok(output) => Verdict::Done(output),
            // Telegram took it; the answer's shape is ours to not understand.
            Err(e) => Verdict::Final(RequestError::InvalidJson {
                source: Arc::new(e),
                raw: excerpt(text, status).into(),
            }),
        };
    }
    let parameters =
        envelope.parameters.unwrap_or(Parameters { retry_after: None, migrate_to_chat_id: None });
    if let Some(seconds) = parameters.retry_after {
        return Verdict::Again {
            error: RequestError::RetryAfter(Seconds::from_seconds(seconds)),
            delivered_maybe: false,
        };
    }
    if let Some(chat) = parameters.migrate_to_chat_id {
        return Verdict::Final(RequestError::MigrateToChatId(ChatId(chat)));
    }
    let description = envelope.description.unwrap_or_default();
    let code = envelope.error_code.unwrap_or(status.as_u16());
    if status.is_server_error() || code >= 500 {
        let error = RequestError::Api(ApiError::Unknown(format!("HTTP {code}: {description}")));
        return Verdict::Again { error, delivered_maybe: false };
    }
    let error = serde_json::from_value::<ApiError>(serde_json::Value::String(description.clone()))
        .unwrap_or(ApiError::Unknown(description));
    Verdict::Final(RequestError::Api(error))
}

/// The start of an unreadable answer, with its status, for logs.
fn excerpt(text: &str, status: reqwest::StatusCode) -> String {
    let mut end = text.len().min(RAW_LIMIT);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("HTTP {}: {}", status.as_u16(), &text[..end])
}

/// Sends a teloxide request that is not plain JSON (`setWebhook` is
/// multipart), waiting out `429` and retrying network errors per
/// [`TELEGRAM_RETRY`]. Every other call goes through [`call`].
pub async fn retrying<R>(request: &R) -> Result<teloxide::requests::Output<R>, RequestError>
where
    R: Request<Err = RequestError>,
{
    let mut flood = 0;
    let mut network = 0;
    loop {
        match request.send_ref().await.map_err(redacted) {
            Err(RequestError::RetryAfter(after))
                if flood < FLOOD_RETRIES && after.duration() <= MAX_FLOOD_WAIT =>
            {
                flood += 1;
                tracing::warn!(
                    retry_after = after.seconds(),
                    attempt = flood,
                    "telegram flood control; waiting"
                );
                tokio::time::sleep(after.duration()).await;
            }
            Err(RequestError::Network(e)) if TELEGRAM_RETRY.allows(network) => {
                let wait = TELEGRAM_RETRY.delay(network);
                network += 1;
                tracing::warn!(error = %e, attempt = network, wait_ms = wait.as_millis() as u64, "telegram unreachable; retrying");
                tokio::time::sleep(wait).await;
            }
            other => return other.inspect_err(crate::ops::telegram_error),
        }
    }
}

/// One answer on its way: where it goes, its text (Markdown as the model
/// wrote it), its buttons, its picture, and the message it replaces. It is
/// what the outbox keeps until Telegram took it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Outgoing {
    pub target: Target,
    pub text: String,
    /// The buttons, on the last part.
    pub markup: Option<InlineKeyboardMarkup>,
    /// A picture URL sent after the text (a failure is only logged).
    pub image: Option<String>,
    /// A message of the bot (a status message) to turn into the first part.
    pub replace: Option<MessageId>,
    /// How many parts an earlier attempt delivered already.
    #[serde(default)]
    pub parts_sent: usize,
    /// Floor plans sent after the text. Not kept in the outbox: an answer
    /// delivered late carries its steps in the text, without the pictures.
    #[serde(skip)]
    pub pictures: Vec<handlers::Picture>,
}

impl Outgoing {
    /// The answer `reply` at `target` with its buttons, replacing `replace` if given.
    pub fn new(
        target: &Target,
        reply: &Reply,
        buttons: &ButtonContext<'_>,
        replace: Option<MessageId>,
    ) -> Self {
        let text = if reply.text.trim().is_empty() {
            reply.confirmation.as_ref().map(|c| c.summary.clone()).unwrap_or_else(|| "…".to_owned())
        } else {
            reply.text.clone()
        };
        Outgoing {
            target: *target,
            text,
            markup: keyboard(reply, buttons),
            image: reply.image.clone(),
            replace,
            parts_sent: 0,
            pictures: reply.pictures.clone(),
        }
    }

    /// A text of the bot's own, without buttons.
    pub fn text(target: &Target, text: &str) -> Self {
        Outgoing {
            target: *target,
            text: text.to_owned(),
            markup: None,
            image: None,
            replace: None,
            parts_sent: 0,
            pictures: Vec::new(),
        }
    }
}

/// Why an answer was not (wholly) delivered.
#[derive(Debug, Clone)]
pub struct Undelivered {
    pub failure: SendFailure,
    /// The parts delivered before the failure (counting earlier attempts).
    pub parts_sent: usize,
}

/// Delivers `out` now: its parts in order (from `out.parts_sent` on), the
/// first replacing `out.replace` when given, the buttons on the last part,
/// then the picture. Returns the ids of the messages that carry it.
pub async fn send_now(bot: &Bot, out: &Outgoing) -> Result<Vec<MessageId>, Undelivered> {
    let parts = render_parts(&out.text, MESSAGE_LIMIT);
    let count = parts.len();
    let mut sent = Vec::with_capacity(count);
    for (i, part) in parts.iter().enumerate().skip(out.parts_sent) {
        let markup = (i + 1 == count).then(|| out.markup.clone()).flatten();
        let replace = out.replace.filter(|_| i == 0);
        match send_part(bot, &out.target, part, markup, replace, i == 0).await {
            Ok(id) => sent.push(id),
            Err(failure) => return Err(Undelivered { failure, parts_sent: i }),
        }
    }
    if let Some(image) = out.image.as_deref() {
        send_picture(bot, &out.target, image).await;
    }
    super::photos::send_pictures(bot, &out.target, &out.pictures).await;
    Ok(sent)
}

/// One part: an edit of `replace` (sent new when that message is gone), else
/// a new message; HTML, resent plain when Telegram cannot parse it.
async fn send_part(
    bot: &Bot,
    target: &Target,
    part: &Part,
    markup: Option<InlineKeyboardMarkup>,
    replace: Option<MessageId>,
    first: bool,
) -> Result<MessageId, SendFailure> {
    if let Some(id) = replace {
        match edit_part(bot, target.chat, id, part, markup.clone()).await {
            Ok(()) => return Ok(id),
            Err(SendFailure { error: RequestError::Api(error), .. }) if is_gone(&error) => {
                tracing::info!(chat = target.chat.0, error = %error, "the message to replace is gone; sending the answer as a new one");
            }
            Err(failure) => return Err(failure),
        }
    }
    let mut payload =
        teloxide::payloads::SendMessage::new(target.chat, part.html.clone()).parse_mode(ParseMode::Html);
    payload.link_preview_options = super::trust::preview_options(&part.html);
    if let Some(thread) = target.thread {
        payload = payload.message_thread_id(thread);
    }
    if let (true, Some(id)) = (first, target.reply_to) {
        payload = payload.reply_parameters(ReplyParameters::new(id).allow_sending_without_reply());
    }
    if let Some(markup) = markup {
        payload = payload.reply_markup(markup);
    }
    let message = match call(bot, &payload).await {
        Err(SendFailure { error: RequestError::Api(ApiError::CantParseEntities(why)), .. }) => {
            tracing::warn!(error = %why, "telegram could not parse the HTML; sending plain text");
            payload.parse_mode = None;
            payload.text = part.plain.clone();
            call(bot, &payload).await?
        }
        other => other?,
    };
    Ok(message.id)
}

/// Edits message `id` into `part` (with `markup`, or no buttons). "Not
/// modified" counts as done.
async fn edit_part(
    bot: &Bot,
    chat: ChatId,
    id: MessageId,
    part: &Part,
    markup: Option<InlineKeyboardMarkup>,
) -> Result<(), SendFailure> {
    let mut payload = teloxide::payloads::EditMessageText::new(chat, id, part.html.clone())
        .parse_mode(ParseMode::Html)
        .reply_markup(markup.unwrap_or_default());
    payload.link_preview_options = super::trust::preview_options(&part.html);
    let result = match call(bot, &payload).await {
        Err(SendFailure { error: RequestError::Api(ApiError::CantParseEntities(why)), .. }) => {
            tracing::warn!(error = %why, "telegram could not parse the HTML; editing in plain text");
            payload.parse_mode = None;
            payload.text = part.plain.clone();
            call(bot, &payload).await
        }
        other => other,
    };
    match result {
        Ok(_) | Err(SendFailure { error: RequestError::Api(ApiError::MessageNotModified), .. }) => Ok(()),
        Err(failure) => Err(failure),
    }
}

/// Whether an edit failed because the message cannot be edited any more.
fn is_gone(error: &ApiError) -> bool {
    matches!(
        error,
        ApiError::MessageToEditNotFound | ApiError::MessageCantBeEdited | ApiError::MessageIdInvalid
    )
}

/// Sends `text` (Markdown) at `target` now, with `markup` on the last part,
/// without the outbox. Returns the ids of the messages sent.
pub async fn send_text(
    bot: &Bot,
    target: &Target,
    text: &str,
    markup: Option<InlineKeyboardMarkup>,
) -> Result<Vec<MessageId>, RequestError> {
    let out = Outgoing { markup, ..Outgoing::text(target, text) };
    send_now(bot, &out).await.map_err(|u| u.failure.error)
}

/// What a reply's buttons need besides the reply itself.
pub struct ButtonContext<'a> {
    pub lang: Lang,
    /// The bot's username, for the private-chat link.
    pub bot_username: &'a str,
    /// The deep-link payload carrying a group request to the private chat.
    pub handoff_payload: Option<String>,
    /// The Mini App's public URL (`webapp.public_url`), when it is served.
    pub webapp: Option<reqwest::Url>,
    /// Whether the reply goes to a group (a `t.me` link there, not a web-app button).
    pub in_group: bool,
}

impl<'a> ButtonContext<'a> {
    /// A private chat's buttons, without a hand-off link or the Mini App.
    pub fn private(lang: Lang, bot_username: &'a str) -> ButtonContext<'a> {
        ButtonContext { lang, bot_username, handoff_payload: None, webapp: None, in_group: false }
    }
}

/// The inline keyboard of a reply: Confirm / Cancel, the suggestions, the
/// private-chat link. `None` when there is nothing to press.
pub fn keyboard(reply: &Reply, buttons: &ButtonContext<'_>) -> Option<InlineKeyboardMarkup> {
    let mut rows: Vec<Vec<InlineKeyboardButton>> = Vec::new();
    if let Some(prompt) = &reply.confirmation {
        let (yes, no) = texts::confirm_labels(buttons.lang);
        let data = |approve| ButtonData::Confirmation { token: prompt.token.clone(), approve }.encode();
        rows.push(vec![
            InlineKeyboardButton::callback(yes, data(true)),
            InlineKeyboardButton::callback(no, data(false)),
        ]);
    }
    for order_id in reply.payable.iter().take(3) {
        let data = ButtonData::Pay(order_id.clone()).encode();
        if data.len() > super::callback::CALLBACK_DATA_LIMIT {
            continue;
        }
        let label = texts::pay_label(buttons.lang);
        let label = if reply.payable.len() > 1 { format!("{label} {order_id}") } else { label.to_owned() };
        rows.push(vec![InlineKeyboardButton::callback(label, data)]);
    }
    rows.extend(suggestion_rows(&reply.suggestions));
    if let Some(button) = map_button(reply, buttons) {
        rows.push(vec![button]);
    }
    if reply.open_private.is_some()
        && let Some(url) = private_chat_url(buttons.bot_username, buttons.handoff_payload.as_deref())
    {
        rows.push(vec![InlineKeyboardButton::url(texts::open_private_label(buttons.lang), url)]);
    }
    (!rows.is_empty()).then(|| InlineKeyboardMarkup::new(rows))
}

/// "🗺 在地图上看" under an answer about a store, when the Mini App is served:
/// a web-app button opening the route in a private chat; in a group (where
/// web-app buttons are not allowed) a `t.me/<bot>?startapp=` link.
fn map_button(reply: &Reply, buttons: &ButtonContext<'_>) -> Option<InlineKeyboardButton> {
    let store = reply.map_store.as_deref()?;
    let mut url = buttons.webapp.clone()?;
    let start = format!("route-{store}");
    let fits = start.len() <= 64 && start.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !fits {
        return None;
    }
    let label = buttons.lang.texts().tools.map_button;
    if buttons.in_group {
        if buttons.bot_username.is_empty() {
            return None;
        }
        let link =
            reqwest::Url::parse(&format!("https://t.me/{}?startapp={start}", buttons.bot_username)).ok()?;
        return Some(InlineKeyboardButton::url(label, link));
    }
    url.query_pairs_mut().append_pair("startapp", &start);
    Some(InlineKeyboardButton::web_app(label, teloxide::types::WebAppInfo { url }))
}

/// Suggestion buttons: two to a row when both are short, else one. The
/// button's label is the suggestion; its data is its index.
fn suggestion_rows(suggestions: &[String]) -> Vec<Vec<InlineKeyboardButton>> {
    let mut rows: Vec<Vec<InlineKeyboardButton>> = Vec::new();
    for (i, suggestion) in suggestions.iter().enumerate() {
        let button = InlineKeyboardButton::callback(suggestion.clone(), ButtonData::Suggestion(i).encode());
        let short = suggestion.chars().count() <= 12;
        match rows.last_mut() {
            Some(row) if short && row.len() == 1 && row_is_short(row) => row.push(button),
            _ => rows.push(vec![button]),
        }
    }
    rows
}

fn row_is_short(row: &[InlineKeyboardButton]) -> bool {
    row.iter().all(|b| b.text.chars().count() <= 12)
}

/// `https://t.me/<bot>?start=<payload>` (or without payload).
fn private_chat_url(bot_username: &str, payload: Option<&str>) -> Option<reqwest::Url> {
    let url = match payload {
        Some(payload) => format!("https://t.me/{bot_username}?start={payload}"),
        None => format!("https://t.me/{bot_username}"),
    };
    reqwest::Url::parse(&url).ok()
}

/// The suggestion a button press stands for: the label of the button with
/// that data on the pressed message.
pub fn pressed_suggestion(message: &Message, index: usize) -> Option<String> {
    let data = ButtonData::Suggestion(index).encode();
    message.reply_markup()?.inline_keyboard.iter().flatten().find_map(|button| match &button.kind {
        teloxide::types::InlineKeyboardButtonKind::CallbackData(d) if *d == data => Some(button.text.clone()),
        _ => None,
    })
}

pub(super) async fn send_picture(bot: &Bot, target: &Target, image: &str) {
    let Ok(url) = reqwest::Url::parse(image) else {
        tracing::debug!(image, "picture is not a URL; not sent");
        return;
    };
    if !super::trust::image_allowed(&url) {
        tracing::info!(image, "picture not from the mall's image hosts (http/https); not sent");
        return;
    };
    let mut payload = teloxide::payloads::SendPhoto::new(target.chat, teloxide::types::InputFile::url(url));
    if let Some(thread) = target.thread {
        payload = payload.message_thread_id(thread);
    }
    if let Err(e) = call(bot, &payload).await {
        tracing::warn!(error = %e, image, "could not send the picture");
    }
}

/// Replaces a message's buttons with a line under its text (`outcome`), so
/// the shopper sees what the press did. Failures are logged: the press goes on.
pub async fn close_buttons(bot: &Bot, message: &Message, outcome: &str) {
    let original = message.text().or(message.caption()).unwrap_or_default();
    let mut text = if original.is_empty() { outcome.to_owned() } else { format!("{original}\n\n{outcome}") };
    if telegram_len(&text) > MESSAGE_LIMIT {
        text = outcome.to_owned();
    }
    let payload = teloxide::payloads::EditMessageText::new(message.chat.id, message.id, escape_html(&text))
        .parse_mode(ParseMode::Html)
        .reply_markup(InlineKeyboardMarkup::default());
    match call(bot, &payload).await {
        Ok(_) | Err(SendFailure { error: RequestError::Api(ApiError::MessageNotModified), .. }) => {}
        Err(e) => {
            tracing::warn!(error = %e, "could not edit the pressed message; removing its buttons only");
            let payload = teloxide::payloads::EditMessageReplyMarkup::new(message.chat.id, message.id)
                .reply_markup(InlineKeyboardMarkup::default());
            if let Err(e) = call(bot, &payload).await {
                tracing::warn!(error = %e, "could not remove the buttons");
            }
        }
    }
}

/// Answers a button press: a toast, an alert (`show_alert`), or nothing.
/// Failures (a press too old to answer) are logged.
pub async fn answer_press(bot: &Bot, query: &CallbackQuery, text: Option<&str>, show_alert: bool) {
    let mut payload = teloxide::payloads::AnswerCallbackQuery::new(query.id.clone());
    if let Some(text) = text {
        payload = payload.text(text).show_alert(show_alert);
    }
    if let Err(e) = call(bot, &payload).await {
        tracing::warn!(error = %e, "could not answer the button press");
    }
}

/// The "typing…" indicators of the chats being answered: one loop per chat
/// (and forum topic), however many of its messages are in progress. The loop
/// starts with the first [`Typing`] held for the chat and stops when the last
/// one is released. Cheap to clone; clones share the loops.
#[derive(Clone, Default)]
pub struct ChatTyping {
    loops: Arc<Mutex<HashMap<TypingKey, TypingLoop>>>,
}

/// A chat and its forum topic.
type TypingKey = (ChatId, Option<ThreadId>);

struct TypingLoop {
    holders: usize,
    task: tokio::task::JoinHandle<()>,
}

impl ChatTyping {
    /// Shows "typing…" at `target` until the returned guard is released
    /// (dropped or [`Typing::stop`]); joins the chat's loop when it runs.
    pub fn hold(&self, bot: &Bot, target: &Target) -> Typing {
        let key = (target.chat, target.thread);
        let mut loops = self.loops.lock().unwrap_or_else(|e| e.into_inner());
        match loops.get_mut(&key) {
            Some(running) => running.holders += 1,
            None => {
                loops.insert(key, TypingLoop { holders: 1, task: typing_loop(bot.clone(), *target) });
            }
        }
        Typing { loops: Some(self.clone()), key }
    }

    /// How many typing loops run now.
    pub fn running(&self) -> usize {
        self.loops.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn release(&self, key: TypingKey) {
        let mut loops = self.loops.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(running) = loops.get_mut(&key) {
            running.holders = running.holders.saturating_sub(1);
            if running.holders == 0
                && let Some(done) = loops.remove(&key)
            {
                done.task.abort();
            }
        }
    }
}

/// Sends "typing…" at `target` now and every [`TYPING_REFRESH`] until aborted.
fn typing_loop(bot: Bot, target: Target) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            let mut request = bot.send_chat_action(target.chat, ChatAction::Typing);
            if let Some(thread) = target.thread {
                request = request.message_thread_id(thread);
            }
            if let Err(e) = request.await {
                tracing::debug!(error = %e, "typing indicator not sent");
            }
            tokio::time::sleep(TYPING_REFRESH).await;
        }
    })
}

/// One message's hold on its chat's "typing…" loop; released when dropped.
pub struct Typing {
    loops: Option<ChatTyping>,
    key: TypingKey,
}

impl Typing {
    /// Releases the hold now (the answer or a status became visible).
    pub fn stop(&mut self) {
        if let Some(loops) = self.loops.take() {
            loops.release(self.key);
        }
    }
}

impl Drop for Typing {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reply::ConfirmationPrompt;
    use handlers::Level;
    use teloxide::types::InlineKeyboardButtonKind;

    fn data_of(button: &InlineKeyboardButton) -> String {
        match &button.kind {
            InlineKeyboardButtonKind::CallbackData(d) => d.clone(),
            InlineKeyboardButtonKind::Url(u) => u.to_string(),
            other => format!("{other:?}"),
        }
    }

    fn labels_and_data(markup: &InlineKeyboardMarkup) -> Vec<Vec<(String, String)>> {
        markup
            .inline_keyboard
            .iter()
            .map(|row| row.iter().map(|b| (b.text.clone(), data_of(b))).collect())
            .collect()
    }

    #[test]
    fn a_confirmation_gets_confirm_and_cancel_in_the_shoppers_language() {
        let reply = Reply {
            text: "请确认：\nNike 跑鞋 42 码 ×1".into(),
            confirmation: Some(ConfirmationPrompt {
                token: "tok123".into(),
                level: Level::Confirm,
                summary: "Nike 跑鞋 42 码 ×1".into(),
                needs_code: false,
            }),
            ..Default::default()
        };
        let buttons = ButtonContext::private(Lang::Zh, "MallGuideBot");
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![vec![("✅ 确认".into(), "c:tok123:y".into()), ("✖️ 取消".into(), "c:tok123:n".into())]]
        );
    }

    #[test]
    fn suggestions_carry_their_index_and_long_ones_get_a_row_each() {
        let long = "帮我看看这双鞋有没有 43 码和 44 码的库存".to_owned();
        let reply = Reply {
            suggestions: vec!["41码".into(), "42码".into(), long.clone(), "43码".into()],
            ..Reply::text("要什么尺码？")
        };
        let buttons = ButtonContext::private(Lang::Zh, "b");
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![
                vec![("41码".into(), "s:0".into()), ("42码".into(), "s:1".into())],
                vec![(long, "s:2".into())],
                vec![("43码".into(), "s:3".into())],
            ]
        );
    }

    #[test]
    fn an_answer_about_a_store_opens_its_route_in_the_mini_app_or_links_to_it_in_a_group() {
        let reply = Reply { map_store: Some("s-nike".into()), ..Reply::text("Nike 在 3F") };
        let webapp = reqwest::Url::parse("https://mall.example/webapp/").ok();
        let private = ButtonContext {
            lang: Lang::Zh,
            bot_username: "MallGuideBot",
            handoff_payload: None,
            webapp: webapp.clone(),
            in_group: false,
        };
        let markup = keyboard(&reply, &private).expect("a map button");
        let button = &markup.inline_keyboard[0][0];
        assert_eq!(button.text, "🗺 在地图上看");
        match &button.kind {
            teloxide::types::InlineKeyboardButtonKind::WebApp(app) => {
                assert_eq!(app.url.as_str(), "https://mall.example/webapp/?startapp=route-s-nike");
            }
            other => panic!("a web-app button, not {other:?}"),
        }
        let group = ButtonContext { in_group: true, ..private };
        let markup = keyboard(&reply, &group).expect("a map link");
        match &markup.inline_keyboard[0][0].kind {
            teloxide::types::InlineKeyboardButtonKind::Url(url) => {
                assert_eq!(url.as_str(), "https://t.me/MallGuideBot?startapp=route-s-nike");
            }
            other => panic!("a t.me link in a group, not {other:?}"),
        }
        let off = ButtonContext { webapp: None, ..group };
        assert!(keyboard(&reply, &off).is_none(), "no Mini App, no button");
    }

    #[test]
    fn a_group_hand_off_is_a_link_to_the_private_chat_with_the_payload() {
        let reply = Reply { open_private: Some("看看购物车".into()), ..Reply::text("请私聊") };
        let buttons = ButtonContext {
            lang: Lang::En,
            bot_username: "MallGuideBot",
            handoff_payload: Some("hAbc123".into()),
            webapp: None,
            in_group: true,
        };
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![vec![(
                "💬 Continue in private chat".into(),
                "https://t.me/MallGuideBot?start=hAbc123".into()
            )]]
        );
    }

    fn verdict(status: u16, body: &str) -> String {
        let status = reqwest::StatusCode::from_u16(status).expect("a status");
        match judge::<bool>(status, body) {
            Verdict::Done(value) => format!("done {value}"),
            Verdict::Final(error) => format!("final {error:?}"),
            Verdict::Again { error, delivered_maybe } => format!("again {delivered_maybe} {error:?}"),
        }
    }

    #[test]
    fn server_errors_and_pages_that_are_not_json_are_transient() {
        let v = verdict(500, r#"{"ok":false,"error_code":500,"description":"Internal Server Error"}"#);
        assert!(v.starts_with("again false") && v.contains("HTTP 500: Internal Server Error"), "{v}");
        let v = verdict(502, "<html><head><title>502 Bad Gateway</title></head></html>");
        assert!(v.starts_with("again false InvalidJson") && v.contains("502 Bad Gateway"), "{v}");
        let v = verdict(200, "<html>maintenance</html>");
        assert!(v.starts_with("again false InvalidJson"), "{v}");
        let v = verdict(
            429,
            r#"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 5","parameters":{"retry_after":5}}"#,
        );
        assert!(v.starts_with("again false RetryAfter"), "{v}");
    }

    #[test]
    fn refusals_are_final_and_success_is_read() {
        let v = verdict(400, r#"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#);
        assert_eq!(v, "final Api(ChatNotFound)");
        let v = verdict(
            403,
            r#"{"ok":false,"error_code":403,"description":"Forbidden: bot was blocked by the user"}"#,
        );
        assert_eq!(v, "final Api(BotBlocked)");
        let v = verdict(400, r#"{"ok":false,"error_code":400,"description":"Bad Request: something new"}"#);
        assert!(v.starts_with("final Api(Unknown"), "{v}");
        assert_eq!(verdict(200, r#"{"ok":true,"result":true}"#), "done true");
    }

    #[test]
    fn an_outgoing_answer_survives_the_outbox_round_trip() {
        let target = Target {
            chat: ChatId(-100_555),
            thread: Some(ThreadId(MessageId(77))),
            reply_to: Some(MessageId(12)),
        };
        let reply = Reply { suggestions: vec!["42码".into()], ..Reply::text("**要哪个尺码？**") };
        let buttons = ButtonContext::private(Lang::Zh, "b");
        let out = Outgoing { parts_sent: 1, ..Outgoing::new(&target, &reply, &buttons, Some(MessageId(99))) };
        let json = serde_json::to_string(&out).expect("encoded");
        let back: Outgoing = serde_json::from_str(&json).expect("decoded");
        assert_eq!(back, out);
    }

    #[test]
    fn a_plain_reply_has_no_keyboard() {
        let buttons = ButtonContext::private(Lang::Zh, "b");
        assert_eq!(keyboard(&Reply::text("你好"), &buttons), None);
    }

    #[tokio::test]
    async fn one_typing_loop_per_chat_however_many_messages_hold_it() {
        let bot = Bot::new("1:x").set_api_url(reqwest::Url::parse("http://127.0.0.1:9/").expect("url"));
        let typing = ChatTyping::default();
        let chat = Target { chat: ChatId(5), thread: None, reply_to: None };
        let topic = Target { chat: ChatId(-7), thread: Some(ThreadId(MessageId(3))), reply_to: None };
        let first = typing.hold(&bot, &chat);
        let mut second = typing.hold(&bot, &chat);
        assert_eq!(typing.running(), 1, "two messages of one chat share one loop");
        let in_topic = typing.hold(&bot, &topic);
        assert_eq!(typing.running(), 2);
        second.stop();
        second.stop();
        assert_eq!(typing.running(), 2, "the chat's other message still waits");
        drop(first);
        assert_eq!(typing.running(), 1, "the last release stops the chat's loop");
        drop(in_topic);
        assert_eq!(typing.running(), 0);
        drop(second);
        let _again = typing.hold(&bot, &chat);
        assert_eq!(typing.running(), 1, "a new message starts it again");
    }
}
