//! The Bot API call and its one retry rule. Every request the bot makes
//! goes through [`call`] (JSON) or [`call_uploading`] (a form with files:
//! floor plans), and each attempt is judged the same way: `429` is waited
//! out for its `retry_after` (at most [`FLOOD_RETRIES`] waits of up to
//! [`MAX_FLOOD_WAIT`]); HTTP 5xx, a body that is not JSON (a proxy's HTML
//! error page), connection failures and timeouts are retried per
//! [`TELEGRAM_RETRY`]; everything else (`400 chat not found`, `403` blocked,
//! "message is not modified"…) is final. The request URL carries the bot's
//! token: a network error is stripped of it before it goes anywhere
//! ([`network_error`]).
//!
//! Only long polling's `getUpdates` and the `deleteWebhook` before it take
//! teloxide's own path (which waits 10 s on a 5xx and drops the status code).
//! A connection that failed before the request was written surely did not
//! deliver it; a reset, a timeout or an answer lost after it was written is
//! retried too, so a rare duplicate is possible — the Bot API has no
//! idempotency key, and a lost answer is worse. `message.rs` counts "message
//! is not modified" as done and resends "can't parse entities" as plain text.
//! Each request's future is boxed, so the futures that send stay small (a
//! whole turn's future is moved into a lane or a task).

use std::sync::Arc;
use std::time::Duration;

use reqwest::header::{CONTENT_TYPE, HeaderValue};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use services::RetryPolicy;
use teloxide::prelude::*;
use teloxide::requests::Payload;
use teloxide::types::Seconds;
use teloxide::{ApiError, RequestError};

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
pub(crate) const FLOOD_RETRIES: u32 = 3;
/// The longest `retry_after` that is waited for; longer waits give up.
pub(crate) const MAX_FLOOD_WAIT: Duration = Duration::from_secs(60);
/// How much of an unreadable answer a logged error keeps.
const RAW_LIMIT: usize = 300;

/// A Bot API call that did not succeed: the error, and whether it was
/// transient (trying again later may succeed) or final.
#[derive(Debug, Clone)]
pub struct SendFailure {
    /// What Telegram (or the network) answered last.
    pub(crate) error: RequestError,
    /// Worth trying again later: 5xx, a body that is not JSON, a network
    /// error, flood control beyond what was waited for.
    pub(crate) transient: bool,
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

/// A file sent with a request, as a part of its form.
#[derive(Debug, Clone)]
pub(crate) struct Upload {
    /// The form field (the request's fields name it, e.g. `attach://<name>`).
    pub(crate) name: String,
    /// The file name Telegram is told.
    pub(crate) file_name: String,
    /// Its MIME type.
    pub(crate) mime: &'static str,
    pub(crate) bytes: Arc<[u8]>,
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

/// The body of a request, made again for each attempt.
enum Body<'a> {
    Json(Vec<u8>),
    Form { fields: &'a serde_json::Map<String, serde_json::Value>, uploads: &'a [Upload] },
}

impl Body<'_> {
    fn attach(&self, request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        match self {
            Body::Json(bytes) => {
                request.header(CONTENT_TYPE, HeaderValue::from_static("application/json")).body(bytes.clone())
            }
            Body::Form { fields, uploads } => {
                let mut form = reqwest::multipart::Form::new();
                for (name, value) in fields.iter() {
                    let text = match value {
                        serde_json::Value::Null => continue,
                        serde_json::Value::String(text) => text.clone(),
                        other => other.to_string(),
                    };
                    form = form.text(name.clone(), text);
                }
                for upload in uploads.iter() {
                    let part = reqwest::multipart::Part::bytes(upload.bytes.to_vec())
                        .file_name(upload.file_name.clone());
                    let part = match part.mime_str(upload.mime) {
                        Ok(part) => part,
                        Err(_) => reqwest::multipart::Part::bytes(upload.bytes.to_vec())
                            .file_name(upload.file_name.clone()),
                    };
                    form = form.part(upload.name.clone(), part);
                }
                request.multipart(form)
            }
        }
    }
}

/// Calls the Bot API method of `payload` (JSON) with the bot's client,
/// retrying transient failures per [`TELEGRAM_RETRY`] and waiting out flood
/// control (at most [`FLOOD_RETRIES`] waits of up to [`MAX_FLOOD_WAIT`]).
pub(crate) async fn call<P>(bot: &Bot, payload: &P) -> Result<P::Output, SendFailure>
where
    P: Payload + Serialize,
    P::Output: DeserializeOwned,
{
    let body = serde_json::to_vec(payload).map_err(|e| SendFailure {
        error: RequestError::InvalidJson { source: Arc::new(e), raw: "".into() },
        transient: false,
    })?;
    // Boxed: a request's future is kilobytes (its answer, the retry rule),
    // and unboxed it would grow every future that sends, each of which is
    // copied whenever it moves (into a task, a lane, a span).
    Box::pin(calling::<P::Output>(bot, P::NAME, Body::Json(body))).await
}

/// Calls the Bot API method `P` with `fields` (a JSON object: strings as
/// they are, other values as JSON text) and `uploads` as a
/// `multipart/form-data` form, under the same rule as [`call`].
pub(crate) async fn call_uploading<P>(
    bot: &Bot,
    fields: &serde_json::Value,
    uploads: &[Upload],
) -> Result<P::Output, SendFailure>
where
    P: Payload,
    P::Output: DeserializeOwned,
{
    let Some(fields) = fields.as_object() else {
        let error =
            RequestError::Api(ApiError::Unknown(format!("{}: the fields are not an object", P::NAME)));
        return Err(SendFailure { error, transient: false });
    };
    Box::pin(calling::<P::Output>(bot, P::NAME, Body::Form { fields, uploads })).await
}

async fn calling<T: DeserializeOwned>(
    bot: &Bot,
    method: &'static str,
    body: Body<'_>,
) -> Result<T, SendFailure> {
    let url = method_url(bot, method);
    // A client span when inside a traced turn (never a trace of its own:
    // the typing loop and polling would flood the collector).
    let span = crate::infra::otel::client_span_in_trace(|| format!("telegram {method}"), "telegram");
    let calling = async {
        let result = retrying::<T>(bot, method, &url, &body).await;
        if let Err(failure) = &result {
            crate::infra::otel::record_error(&span, if failure.transient { "transient" } else { "final" });
        }
        result
    };
    tracing::Instrument::instrument(calling, span.clone()).await
}

/// The one retry rule: attempts until one is done or final, waiting out
/// flood control and backing off after the other transient failures.
async fn retrying<T: DeserializeOwned>(
    bot: &Bot,
    method: &'static str,
    url: &reqwest::Url,
    body: &Body<'_>,
) -> Result<T, SendFailure> {
    let mut retries = 0;
    let mut floods = 0;
    loop {
        let verdict = attempt::<T>(bot, url, body).await;
        if let Verdict::Final(error) | Verdict::Again { error, .. } = &verdict {
            crate::infra::ops::telegram_error(error);
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
                    method,
                    retry_after = after.seconds(),
                    attempt = floods,
                    "telegram flood control; waiting"
                );
                tokio::time::sleep(after.duration()).await;
            }
            Verdict::Again { error, delivered_maybe } => {
                let Some(pause) = TELEGRAM_RETRY.pause(retries, None) else {
                    tracing::warn!(method, error = %error, attempts = retries + 1, "telegram call still failing; giving up for now");
                    return Err(SendFailure { error, transient: true });
                };
                retries += 1;
                if delivered_maybe {
                    tracing::warn!(
                        method, error = %error, attempt = retries, wait_ms = pause.as_millis() as u64,
                        "telegram's answer was lost after the request was sent; sending again (a duplicate is possible)"
                    );
                } else {
                    tracing::warn!(
                        method, error = %error, attempt = retries, wait_ms = pause.as_millis() as u64,
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
async fn attempt<T: DeserializeOwned>(bot: &Bot, url: &reqwest::Url, body: &Body<'_>) -> Verdict<T> {
    let sent = body.attach(bot.client().post(url.clone())).send().await;
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
pub(crate) fn network_error(error: reqwest::Error) -> RequestError {
    RequestError::Network(Arc::new(crate::infra::redact::reqwest_error(error)))
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

#[cfg(test)]
mod tests {
    use super::*;

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

    #[tokio::test]
    async fn an_upload_that_cannot_connect_is_transient_and_its_error_hides_the_token() {
        // Nothing listens on the discard port of loopback: every attempt is refused.
        let url = reqwest::Url::parse("http://127.0.0.1:9/").expect("url");
        let bot = Bot::new("123:SECRET-TOKEN").set_api_url(url);
        let fields = serde_json::json!({"chat_id": 5, "photo": "attach://plan", "caption": "1F"});
        let uploads = [Upload {
            name: "plan".into(),
            file_name: "plan.png".into(),
            mime: "image/png",
            bytes: Arc::from(&b"png"[..]),
        }];
        let failure = call_uploading::<teloxide::payloads::SendPhoto>(&bot, &fields, &uploads)
            .await
            .expect_err("nothing listens there");
        assert!(failure.transient, "{failure}");
        assert!(matches!(failure.error, RequestError::Network(_)), "{failure:?}");
        for shown in [failure.to_string(), format!("{failure:?}")] {
            assert!(!shown.contains("SECRET-TOKEN"), "{shown}");
        }
    }
}
