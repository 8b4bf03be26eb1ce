//! The OpenAI-compatible chat-completions client: one `POST {base_url}/chat/completions`
//! per model call (plain or streamed), with bounded retries, and lenient reading
//! of what DeepSeek, Qwen, OpenAI, Gemini, Groq, OpenRouter, Ollama, vLLM,
//! SGLang, LiteLLM and llama.cpp really send.
//!
//! The answer the router gets is normalised: `arguments` are JSON text (objects
//! re-serialized, `""` and `"null"` kept as written), every tool call has an
//! id (`call_<n>` minted when missing), `finish_reason: ""` is `None` and is
//! `tool_calls` whenever tool calls came, `reasoning` is read as
//! `reasoning_content`, and a tool call written into the text is turned into
//! a real one when tools were offered.

mod draft;
mod settings;
mod sse;
mod stream;
mod text_calls;
mod wire;

use std::time::{Duration, Instant};

use async_trait::async_trait;
use bytes::Bytes;
use reqwest::header::{CONTENT_TYPE, HeaderMap, RETRY_AFTER};
use reqwest::{StatusCode, Url};
use services::RetryPolicy;
use tracing::Instrument;

use self::draft::Draft;
pub use self::settings::OpenAiSettings;
use self::sse::SseDecoder;
use self::stream::TextForwarder;
pub(crate) use self::stream::{ChunkError, StreamAccumulator};
use self::wire::WireCompletion;
pub use self::wire::tool_definition;
use super::limit::{AdaptiveLimit, LimitReport, Permit};
use super::{ChatModel, ChatRequest, ChatResponse, LlmError};
use crate::engine::progress::Progress;

/// The longest `Retry-After` honoured.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(20);
/// The first backoff ceiling; it doubles on every retry.
const BACKOFF_BASE: Duration = Duration::from_millis(500);
/// The largest backoff ceiling.
const BACKOFF_CAP: Duration = Duration::from_secs(8);
/// Full jitter: a pause falls anywhere between zero and its ceiling.
const BACKOFF_JITTER: f64 = 1.0;
/// How much of a raw body errors and logs keep.
const RAW_LIMIT: usize = 2048;

/// A [`ChatModel`] backed by an OpenAI-compatible chat-completions API.
#[derive(Debug, Clone)]
pub struct OpenAiClient {
    http: reqwest::Client,
    endpoint: Url,
    settings: OpenAiSettings,
    limit: AdaptiveLimit,
    /// `gen_ai.provider.name` of the base URL.
    provider: &'static str,
}

/// Why one attempt failed.
enum Failure {
    /// Worth another attempt (after `retry_after` when the provider said so);
    /// `overloaded` when the provider said it has too much to do (429, 503).
    Retry { message: String, retry_after: Option<Duration>, overloaded: bool },
    /// Final.
    Fatal(LlmError),
}

impl Failure {
    fn retry(message: impl Into<String>) -> Self {
        Failure::Retry { message: message.into(), retry_after: None, overloaded: false }
    }
}

impl OpenAiClient {
    /// A client for these settings; refuses a base URL that is not http(s) or an empty model.
    pub fn new(settings: OpenAiSettings) -> Result<OpenAiClient, LlmError> {
        let endpoint = endpoint(&settings.base_url)?;
        if settings.model.trim().is_empty() {
            return Err(config_error("llm.model is empty: name the model, e.g. `deepseek-chat`"));
        }
        let http = reqwest::Client::builder()
            .connect_timeout(settings.request_timeout)
            .user_agent(concat!("mallbot/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| config_error(format!("cannot build the HTTP client: {}", error_chain(&e))))?;
        let limit = AdaptiveLimit::new(settings.max_concurrent);
        let provider = crate::infra::otel::provider_name(&settings.base_url);
        Ok(OpenAiClient { http, endpoint, settings, limit, provider })
    }

    /// The GenAI measurements of one call: its span's usage, finish reasons
    /// and error, and the conventions' metrics (`gen_ai_client_token_usage`,
    /// `gen_ai_client_operation_duration`).
    fn record_genai(&self, chat: &tracing::Span, started: Instant, result: &Result<ChatResponse, LlmError>) {
        let model = self.settings.model.clone();
        let seconds = started.elapsed().as_secs_f64();
        match result {
            Ok(response) => {
                let usage = response.usage;
                chat.record("gen_ai.usage.input_tokens", crate::infra::otel::int(usage.prompt_tokens));
                chat.record("gen_ai.usage.output_tokens", crate::infra::otel::int(usage.completion_tokens));
                chat.record(
                    "gen_ai.usage.cache_read.input_tokens",
                    crate::infra::otel::int(usage.cached_tokens),
                );
                chat.record("mallbot.tool_calls", crate::infra::otel::int(response.message.tool_calls.len()));
                if let Some(reason) = response.finish_reason.as_deref() {
                    crate::infra::otel::record_finish_reasons(chat, &[reason]);
                }
                if crate::infra::otel::capture_content() && !chat.is_disabled() {
                    let answer = serde_json::to_string(&response.message).unwrap_or_default();
                    chat.record("gen_ai.output.messages", answer.as_str());
                }
                for (kind, tokens) in [("input", usage.prompt_tokens), ("output", usage.completion_tokens)] {
                    metrics::histogram!(
                        crate::infra::ops::GEN_AI_TOKEN_USAGE,
                        "gen_ai_operation_name" => "chat",
                        "gen_ai_provider_name" => self.provider,
                        "gen_ai_request_model" => model.clone(),
                        "gen_ai_token_type" => kind,
                    )
                    .record(tokens as f64);
                }
                metrics::histogram!(
                    crate::infra::ops::GEN_AI_OPERATION_DURATION,
                    "gen_ai_operation_name" => "chat",
                    "gen_ai_provider_name" => self.provider,
                    "gen_ai_request_model" => model,
                )
                .record(seconds);
            }
            Err(error) => {
                let kind = match error {
                    LlmError::Unavailable { .. } => "unavailable",
                    LlmError::Refused { .. } => "refused",
                    LlmError::InvalidResponse { .. } => "invalid_response",
                };
                crate::infra::otel::record_error(chat, kind);
                metrics::histogram!(
                    crate::infra::ops::GEN_AI_OPERATION_DURATION,
                    "gen_ai_operation_name" => "chat",
                    "gen_ai_provider_name" => self.provider,
                    "gen_ai_request_model" => model,
                    "error_type" => kind,
                )
                .record(seconds);
            }
        }
    }

    /// One completion with retries; the spans record tokens and latency.
    async fn call(&self, request: ChatRequest<'_>, chat: &tracing::Span) -> Result<ChatResponse, LlmError> {
        let started = Instant::now();
        let body = wire::request_body(&self.settings, request);
        let tools_offered = !request.tools.is_empty();
        let silent = Progress::none();
        let watched = request.progress.filter(|p| self.settings.stream && p.is_watched());
        let mut forwarder = TextForwarder::new(watched.unwrap_or(&silent), tools_offered);
        if crate::infra::otel::capture_content() && !chat.is_disabled() {
            chat.record("gen_ai.input.messages", String::from_utf8_lossy(&body).as_ref());
        }
        let result = self.with_retries(&body, &mut forwarder).await.map(|draft| {
            if let Some(model) = &draft.model {
                chat.record("gen_ai.response.model", model.as_str());
            }
            if let Some(first) = draft.first_chunk {
                let seconds = first.saturating_duration_since(started).as_secs_f64();
                chat.record("gen_ai.response.time_to_first_chunk", seconds);
            }
            draft.finalize(tools_offered)
        });
        self.record_genai(chat, started, &result);
        let span = tracing::Span::current();
        span.record("latency_ms", millis(started.elapsed()));
        match &result {
            Ok(response) => {
                span.record("tokens_in", crate::infra::otel::int(response.usage.prompt_tokens));
                span.record("tokens_out", crate::infra::otel::int(response.usage.completion_tokens));
                tracing::info!(
                    tool_calls = response.message.tool_calls.len(),
                    finish_reason = response.finish_reason.as_deref().unwrap_or(""),
                    "model answered"
                );
            }
            Err(error) => tracing::warn!(%error, "model call failed"),
        }
        result
    }

    async fn with_retries(&self, body: &Bytes, forwarder: &mut TextForwarder<'_>) -> Result<Draft, LlmError> {
        let policy = self.retry_policy();
        let attempts = policy.max_retries.saturating_add(1);
        let mut last = String::new();
        for attempt in 1..=attempts {
            forwarder.restart();
            match self.attempt(body, attempt, forwarder).await {
                Ok(draft) => return Ok(draft),
                Err(Failure::Fatal(error)) => return Err(error),
                Err(Failure::Retry { message, retry_after, .. }) => {
                    if let Some(delay) = policy.pause(attempt - 1, retry_after) {
                        tracing::warn!(attempt, delay_ms = millis(delay), error = %message, "retrying the model call");
                        metrics::counter!(crate::infra::ops::MODEL_CALLS, "outcome" => "retried")
                            .increment(1);
                        tokio::time::sleep(delay).await;
                    }
                    last = message;
                }
            }
        }
        Err(LlmError::Unavailable { message: format!("{last} (gave up after {attempts} attempts)") })
    }

    /// How failed model calls are retried (`llm.max_retries`).
    fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.settings.max_retries,
            base: BACKOFF_BASE,
            max_delay: BACKOFF_CAP,
            jitter: BACKOFF_JITTER,
        }
    }

    async fn attempt(
        &self,
        body: &Bytes,
        attempt: u32,
        forwarder: &mut TextForwarder<'_>,
    ) -> Result<Draft, Failure> {
        let permit = self.limit.acquire().await;
        let result = self.attempt_with(body, attempt, &permit, forwarder).await;
        if let Err(Failure::Retry { overloaded: true, retry_after, .. }) = &result {
            self.limit.overloaded(&permit, *retry_after);
        }
        result
    }

    async fn attempt_with(
        &self,
        body: &Bytes,
        attempt: u32,
        permit: &Permit,
        forwarder: &mut TextForwarder<'_>,
    ) -> Result<Draft, Failure> {
        let started = Instant::now();
        let deadline = tokio::time::Instant::now() + self.settings.request_timeout;
        let mut request = self.http.post(self.endpoint.clone()).header(CONTENT_TYPE, "application/json");
        if !self.settings.api_key.is_empty() {
            request = request.bearer_auth(self.settings.api_key.expose());
        }
        let sent = tokio::time::timeout_at(deadline, request.body(body.clone()).send()).await;
        let response = match self.transport(sent) {
            Ok(response) => response,
            Err(message) => {
                tracing::warn!(attempt, latency_ms = millis(started.elapsed()), error = %message, "model request failed");
                return Err(Failure::retry(message));
            }
        };
        let status = response.status();
        tracing::info!(
            attempt,
            status = status.as_u16(),
            latency_ms = millis(started.elapsed()),
            "model responded"
        );
        self.limit.observe_headers(response.headers());
        if !status.is_success() {
            return Err(self.rejection(response, deadline).await);
        }
        // The provider took the call (overload is refused up front): the
        // limit may grow now, so a streamed answer counts at its first byte
        // rather than a whole answer later.
        permit.succeeded();
        if is_event_stream(response.headers(), self.settings.stream) {
            self.read_stream(response, forwarder).await
        } else {
            let raw = self
                .transport(tokio::time::timeout_at(deadline, response.text()).await)
                .map_err(Failure::retry)?;
            parse_completion(&raw)
        }
    }

    /// A reqwest result under a timeout, as a retryable message on failure.
    fn transport<T>(
        &self,
        result: Result<Result<T, reqwest::Error>, tokio::time::error::Elapsed>,
    ) -> Result<T, String> {
        match result {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(e)) if e.is_timeout() => Err(format!("request timed out: {}", error_chain(&e))),
            Ok(Err(e)) => Err(format!("request failed: {}", error_chain(&e))),
            Err(_) => Err(format!("request timed out after {} ms", millis(self.settings.request_timeout))),
        }
    }

    /// The failure for a non-2xx answer: retried for 408, 429 and 5xx, refused otherwise.
    async fn rejection(&self, response: reqwest::Response, deadline: tokio::time::Instant) -> Failure {
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let raw = match tokio::time::timeout_at(deadline, response.text()).await {
            Ok(Ok(text)) => truncate(&text),
            _ => String::new(),
        };
        tracing::warn!(status = status.as_u16(), body = %raw, "model request rejected");
        let retryable = status.is_server_error()
            || status == StatusCode::TOO_MANY_REQUESTS
            || status == StatusCode::REQUEST_TIMEOUT;
        if retryable {
            let overloaded =
                status == StatusCode::TOO_MANY_REQUESTS || status == StatusCode::SERVICE_UNAVAILABLE;
            Failure::Retry { message: format!("HTTP {}: {raw}", status.as_u16()), retry_after, overloaded }
        } else {
            Failure::Fatal(LlmError::Refused { status: status.as_u16(), raw })
        }
    }

    /// Reads server-sent events into a draft, forwarding the answer's text as
    /// it comes; each gap between chunks gets the full timeout. A stream that
    /// ends before `[DONE]` or a `finish_reason` was cut: retried.
    async fn read_stream(
        &self,
        mut response: reqwest::Response,
        forwarder: &mut TextForwarder<'_>,
    ) -> Result<Draft, Failure> {
        let mut decoder = SseDecoder::default();
        let mut accumulator = StreamAccumulator::new();
        let mut head = Vec::new();
        loop {
            let timeout = self.settings.request_timeout;
            let chunk = match tokio::time::timeout(timeout, response.chunk()).await {
                Err(_) => return Err(Failure::retry(format!("stream stalled for {} ms", millis(timeout)))),
                Ok(read) => self.transport(Ok(read)).map_err(Failure::retry)?,
            };
            let Some(bytes) = chunk else { break };
            head.extend_from_slice(&bytes[..bytes.len().min(RAW_LIMIT.saturating_sub(head.len()))]);
            for data in decoder.feed(&bytes) {
                push(&mut accumulator, &data)?;
            }
            forwarder.forward(&accumulator);
            if accumulator.is_done() {
                break;
            }
        }
        for data in decoder.finish() {
            push(&mut accumulator, &data)?;
        }
        if !accumulator.has_chunks() {
            let raw = truncate(&String::from_utf8_lossy(&head));
            tracing::warn!(body = %raw, "the stream carried no completion chunk");
            let message = "the stream carried no completion chunk".into();
            return Err(Failure::Fatal(LlmError::InvalidResponse { message, raw }));
        }
        if !accumulator.is_complete() {
            return Err(Failure::retry("the stream ended before the answer was complete"));
        }
        forwarder.forward(&accumulator);
        Ok(accumulator.into_draft())
    }
}

#[async_trait]
impl ChatModel for OpenAiClient {
    fn describe(&self) -> String {
        format!("openai/{}", self.settings.model)
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        // The trace's span of the call (GenAI `chat {model}`); the log's is `llm_call`.
        let chat = crate::infra::otel::chat_span(
            &self.settings.model,
            self.provider,
            &self.endpoint,
            self.settings.stream,
        );
        let span = tracing::info_span!(
            "llm_call",
            model = %self.settings.model,
            stream = self.settings.stream,
            tokens_in = tracing::field::Empty,
            tokens_out = tracing::field::Empty,
            latency_ms = tracing::field::Empty,
        );
        self.call(request, &chat).instrument(span).instrument(chat.clone()).await
    }

    fn load(&self) -> Option<LimitReport> {
        Some(self.limit.report())
    }
}

/// Feeds one payload; unreadable ones are logged and skipped, provider errors retried.
fn push(accumulator: &mut StreamAccumulator, data: &str) -> Result<(), Failure> {
    match accumulator.push_data(data) {
        Ok(()) => Ok(()),
        Err(ChunkError::NotJson { raw }) => {
            tracing::warn!(raw = %truncate(&raw), "skipping an unreadable stream chunk");
            Ok(())
        }
        Err(error @ ChunkError::Provider { .. }) => Err(Failure::retry(error.to_string())),
    }
}

/// A plain (non-streamed) answer body as a draft.
fn parse_completion(raw: &str) -> Result<Draft, Failure> {
    let invalid = |message: String| {
        tracing::warn!(body = %truncate(raw), %message, "unreadable model answer");
        Failure::Fatal(LlmError::InvalidResponse { message, raw: truncate(raw) })
    };
    let body: WireCompletion =
        serde_json::from_str(raw).map_err(|e| invalid(format!("not a chat completion: {e}")))?;
    if let Some(error) = body.error.as_ref().filter(|_| body.choices.is_empty()) {
        return Err(Failure::retry(format!("the provider reported an error: {}", wire::error_text(error))));
    }
    body.into_draft().ok_or_else(|| invalid("the answer has no choices".into()))
}

/// `{base_url}/chat/completions`, keeping any query; a base URL already ending
/// in `/chat/completions` is taken as is.
fn endpoint(base_url: &str) -> Result<Url, LlmError> {
    let trimmed = base_url.trim();
    let mut url = Url::parse(trimmed).map_err(|e| {
        config_error(format!(
            "llm.base_url `{trimmed}` is not a URL ({e}); e.g. `https://api.deepseek.com/v1`"
        ))
    })?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none_or(str::is_empty) {
        return Err(config_error(format!(
            "llm.base_url `{trimmed}` must be an http(s) URL, e.g. `https://api.deepseek.com/v1`"
        )));
    }
    let path = url.path().trim_end_matches('/').to_owned();
    if !path.ends_with("/chat/completions") {
        url.set_path(&format!("{path}/chat/completions"));
    }
    Ok(url)
}

fn config_error(message: impl Into<String>) -> LlmError {
    LlmError::Unavailable { message: message.into() }
}

/// Whether the body is an event stream: it says so, or it was asked for and is not JSON.
fn is_event_stream(headers: &HeaderMap, asked: bool) -> bool {
    let content_type = headers.get(CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
    content_type.contains("event-stream") || (asked && !content_type.contains("json"))
}

/// `Retry-After` in seconds, capped; HTTP dates are ignored (backoff applies).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds: f64 = headers.get(RETRY_AFTER)?.to_str().ok()?.trim().parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds).min(MAX_RETRY_AFTER))
}

/// At most [`RAW_LIMIT`] bytes of a body, cut on a character boundary.
fn truncate(raw: &str) -> String {
    if raw.len() <= RAW_LIMIT {
        return raw.to_owned();
    }
    let mut end = RAW_LIMIT;
    while !raw.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &raw[..end], raw.len())
}

/// An error with its causes, `a: b: c`.
fn error_chain(error: &(dyn std::error::Error + 'static)) -> String {
    // A reqwest error names its URL: shown without userinfo and query.
    let mut text = match error.downcast_ref::<reqwest::Error>().and_then(reqwest::Error::url) {
        Some(url) => error.to_string().replace(url.as_str(), &crate::infra::redact::shown_url(url.as_str())),
        None => error.to_string(),
    };
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn settings(base_url: &str) -> OpenAiSettings {
        OpenAiSettings {
            base_url: base_url.into(),
            api_key: "sk-secret".into(),
            model: "deepseek-chat".into(),
            request_timeout: Duration::from_secs(5),
            max_retries: 2,
            stream: false,
            temperature: None,
            max_tokens: 1024,
            max_concurrent: 0,
        }
    }

    #[test]
    fn the_endpoint_is_appended_once() {
        for base in [
            "https://api.deepseek.com/v1",
            "https://api.deepseek.com/v1/",
            " https://api.deepseek.com/v1/chat/completions ",
        ] {
            assert_eq!(
                endpoint(base).unwrap().as_str(),
                "https://api.deepseek.com/v1/chat/completions",
                "{base}"
            );
        }
        assert_eq!(
            endpoint("http://127.0.0.1:11434").unwrap().as_str(),
            "http://127.0.0.1:11434/chat/completions"
        );
        assert_eq!(
            endpoint("https://x.example/openai/v1?api-version=2").unwrap().as_str(),
            "https://x.example/openai/v1/chat/completions?api-version=2"
        );
    }

    #[test]
    fn bad_settings_are_refused_with_the_key_named() {
        for base in ["", "api.deepseek.com/v1", "ftp://example.com/v1", "unix:/tmp/sock"] {
            let error = OpenAiClient::new(settings(base)).unwrap_err().to_string();
            assert!(error.contains("llm.base_url"), "{base}: {error}");
        }
        let error =
            OpenAiClient::new(OpenAiSettings { model: " ".into(), ..settings("http://localhost/v1") })
                .unwrap_err()
                .to_string();
        assert!(error.contains("llm.model"), "{error}");
    }

    #[test]
    fn the_api_key_stays_out_of_debug_output() {
        let client = OpenAiClient::new(settings("https://api.deepseek.com/v1")).unwrap();
        let printed = format!("{client:?}");
        assert!(!printed.contains("sk-secret"), "{printed}");
        assert!(printed.contains("<redacted>"));
        assert_eq!(client.describe(), "openai/deepseek-chat");
    }

    #[test]
    fn retry_after_is_read_in_seconds_and_capped() {
        let mut headers = HeaderMap::new();
        assert_eq!(retry_after(&headers), None);
        headers.insert(RETRY_AFTER, "2".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(RETRY_AFTER, "0.5".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(Duration::from_millis(500)));
        headers.insert(RETRY_AFTER, "3600".parse().unwrap());
        assert_eq!(retry_after(&headers), Some(MAX_RETRY_AFTER));
        headers.insert(RETRY_AFTER, "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn backoff_stays_under_its_doubling_ceiling() {
        let policy = OpenAiClient::new(settings("https://api.deepseek.com/v1")).unwrap().retry_policy();
        for retry in 0..40 {
            let ceiling = BACKOFF_BASE.saturating_mul(2u32.saturating_pow(retry.min(16))).min(BACKOFF_CAP);
            for _ in 0..20 {
                assert!(policy.delay(retry) <= ceiling);
            }
        }
    }

    #[test]
    fn long_bodies_are_cut_on_a_character_boundary() {
        let body = "错".repeat(1000);
        let cut = truncate(&body);
        assert!(cut.starts_with(&"错".repeat(682)));
        assert!(cut.ends_with("(3000 bytes in all)"));
        assert_eq!(truncate("File Not Found"), "File Not Found");
    }

    #[test]
    fn streams_are_recognised_by_content_type() {
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, "text/event-stream; charset=utf-8".parse().unwrap());
        assert!(is_event_stream(&headers, false));
        headers.insert(CONTENT_TYPE, "application/json".parse().unwrap());
        assert!(!is_event_stream(&headers, true));
        headers.remove(CONTENT_TYPE);
        assert!(is_event_stream(&headers, true));
        assert!(!is_event_stream(&headers, false));
    }
}
