//! Speech to text: [`SpeechToText`], a client of any OpenAI-compatible
//! `POST {stt.base_url}/audio/transcriptions` (OpenAI Whisper, Groq, a local
//! whisper server, vLLM…). It sends the recording's bytes as a multipart
//! form (`file`, `model`, `response_format=json`, `language` when known) and
//! reads `{"text": …}` back. It never sees where the recording came from:
//! no Bot API URL (which carries the bot token) reaches the service.

use std::time::{Duration, Instant};

use handlers::Lang;
use serde::Deserialize;

use crate::infra::config::SttConfig;

/// A recording to transcribe.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Recording {
    /// The file's bytes, unchanged.
    pub(crate) bytes: Vec<u8>,
    /// A file name whose extension tells the format (`voice.oga`, `note.mp4`).
    pub(crate) file_name: String,
    /// Its MIME type (`audio/ogg`).
    pub(crate) mime: String,
}

/// Why a recording could not be transcribed.
#[derive(Debug, thiserror::Error)]
pub(crate) enum SttError {
    /// No answer within `stt.timeout_secs`.
    #[error("no transcription within {0} s (stt.timeout_secs)")]
    Timeout(u64),
    /// The service could not be reached, or answered 5xx / 429.
    #[error("transcription service unavailable: {0}")]
    Unavailable(String),
    /// The service refused the request (4xx: a bad key, an unknown model, a
    /// format it does not take); the raw body is kept.
    #[error("transcription refused (HTTP {status}): {raw}")]
    Refused { status: u16, raw: String },
    /// The answer was not a transcription; the raw body is kept.
    #[error("unreadable transcription answer: {raw}")]
    Invalid { raw: String },
}

impl SttError {
    /// A bounded label for metrics.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            SttError::Timeout(_) => "timeout",
            SttError::Unavailable(_) => "unavailable",
            SttError::Refused { .. } => "refused",
            SttError::Invalid { .. } => "invalid",
        }
    }
}

/// The client of the configured transcription API.
#[derive(Debug, Clone)]
pub(crate) struct SpeechToText {
    client: reqwest::Client,
    base_url: String,
    api_key: crate::infra::secret::Secret,
    model: String,
    timeout: Duration,
    /// `stt.max_seconds`: longer recordings are not sent.
    pub(crate) max_seconds: u32,
}

/// `{"text": …}`, the JSON answer of `/audio/transcriptions`.
#[derive(Deserialize)]
struct Transcription {
    text: String,
}

/// The longest part of an error body kept for the log.
const RAW_KEPT: usize = 500;

impl SpeechToText {
    /// The client for `[stt]`, or `None` when no provider is set.
    pub(crate) fn from_config(config: &SttConfig) -> Option<SpeechToText> {
        if !config.enabled() {
            return None;
        }
        let client = match reqwest::Client::builder().connect_timeout(Duration::from_secs(5)).build() {
            Ok(client) => client,
            Err(e) => {
                tracing::error!(error = %e, "cannot build the transcription client; voice messages are not understood");
                return None;
            }
        };
        Some(SpeechToText {
            client,
            base_url: config.base_url.trim().trim_end_matches('/').to_owned(),
            api_key: config.api_key.clone(),
            model: config.model.clone(),
            timeout: Duration::from_secs(config.timeout_secs),
            max_seconds: config.max_seconds,
        })
    }

    /// The model and where it is, for logs and `/health`.
    pub(crate) fn describe(&self) -> String {
        format!("{} at {}", self.model, crate::infra::redact::shown_url(&self.base_url))
    }

    /// The transcript of `recording`, trimmed (possibly empty: nothing was heard).
    /// `language` is sent when the shopper's language is known.
    pub(crate) async fn transcribe(
        &self,
        recording: Recording,
        language: Option<Lang>,
    ) -> Result<String, SttError> {
        let started = Instant::now();
        let size = recording.bytes.len();
        // The trace's client span (the transcript itself is never recorded).
        let span = crate::infra::otel::client_span(&format!("transcribe {}", self.model), "stt");
        let result = tracing::Instrument::instrument(self.request(recording, language), span.clone()).await;
        let outcome = match &result {
            Ok(text) if text.is_empty() => "empty",
            Ok(_) => "ok",
            Err(e) => e.kind(),
        };
        if let Err(e) = &result {
            crate::infra::otel::record_error(&span, e.kind());
        }
        metrics::counter!(crate::infra::ops::TRANSCRIPTIONS, "outcome" => outcome).increment(1);
        metrics::histogram!(crate::infra::ops::TRANSCRIPTION_SECONDS).record(started.elapsed().as_secs_f64());
        match &result {
            Ok(text) => tracing::info!(
                bytes = size,
                chars = text.chars().count(),
                duration_ms = started.elapsed().as_millis() as u64,
                "voice message transcribed"
            ),
            Err(e) => tracing::warn!(error = %e, bytes = size, "transcription failed"),
        }
        result
    }

    async fn request(&self, recording: Recording, language: Option<Lang>) -> Result<String, SttError> {
        let part = reqwest::multipart::Part::bytes(recording.bytes)
            .file_name(recording.file_name)
            .mime_str(&recording.mime)
            .map_err(|e| SttError::Invalid { raw: format!("bad MIME type: {e}") })?;
        let mut form = reqwest::multipart::Form::new()
            .part("file", part)
            .text("model", self.model.clone())
            .text("response_format", "json");
        if let Some(lang) = language {
            form = form.text("language", lang.iso639_1());
        }
        let mut request = self
            .client
            .post(format!("{}/audio/transcriptions", self.base_url))
            .timeout(self.timeout)
            .multipart(form);
        if !self.api_key.is_empty() {
            request = request.bearer_auth(self.api_key.expose());
        }
        let response = request.send().await.map_err(|e| self.network_error(e))?;
        let status = response.status();
        let body = response.text().await.map_err(|e| self.network_error(e))?;
        if status.is_server_error() || status.as_u16() == 429 {
            return Err(SttError::Unavailable(format!("HTTP {}: {}", status.as_u16(), cut(&body))));
        }
        if !status.is_success() {
            return Err(SttError::Refused { status: status.as_u16(), raw: cut(&body) });
        }
        match serde_json::from_str::<Transcription>(&body) {
            Ok(answer) => Ok(clean(&answer.text)),
            Err(_) => Err(SttError::Invalid { raw: cut(&body) }),
        }
    }

    fn network_error(&self, error: reqwest::Error) -> SttError {
        if error.is_timeout() {
            SttError::Timeout(self.timeout.as_secs())
        } else {
            SttError::Unavailable(error.without_url().to_string())
        }
    }

    /// Whether the service answers and takes the key: `GET {base_url}/models`
    /// (a 404 from a server without that endpoint still shows it is up).
    pub(crate) async fn check(&self) -> (bool, String, u64) {
        let started = Instant::now();
        let mut request =
            self.client.get(format!("{}/models", self.base_url)).timeout(Duration::from_secs(5));
        if !self.api_key.is_empty() {
            request = request.bearer_auth(self.api_key.expose());
        }
        let result = request.send().await;
        let latency = started.elapsed().as_millis() as u64;
        let what = self.describe();
        let (ok, detail) = match result {
            Ok(r) if r.status().is_success() => (true, format!("{what}: reachable")),
            Ok(r) if matches!(r.status().as_u16(), 401 | 403) => (
                false,
                format!("{what}: the API key was rejected (HTTP {}); check stt.api_key", r.status().as_u16()),
            ),
            Ok(r) if r.status().is_client_error() => {
                (true, format!("{what}: reachable (GET /models answered HTTP {})", r.status().as_u16()))
            }
            Ok(r) => (false, format!("{what}: HTTP {}", r.status().as_u16())),
            Err(e) if e.is_timeout() => (false, format!("{what}: no answer within 5 s")),
            Err(e) => (false, format!("{what}: unreachable ({})", e.without_url())),
        };
        (ok, detail, latency)
    }
}

/// The transcript as shown and routed: trimmed; only punctuation or
/// whitespace counts as nothing heard.
fn clean(text: &str) -> String {
    let text = text.trim();
    if text.chars().all(|c| !c.is_alphanumeric()) { String::new() } else { text.to_owned() }
}

fn cut(body: &str) -> String {
    match body.char_indices().nth(RAW_KEPT) {
        Some((at, _)) => format!("{}…", &body[..at]),
        None => body.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_alone_is_nothing_heard() {
        assert_eq!(clean("  ..."), "");
        assert_eq!(clean("。"), "");
        assert_eq!(clean(" 帮我找跑鞋。 "), "帮我找跑鞋。");
    }

    #[test]
    fn off_without_a_provider() {
        assert!(SpeechToText::from_config(&SttConfig::default()).is_none());
    }
}
