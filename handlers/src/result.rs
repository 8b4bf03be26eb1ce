//! What a tool returns: [`ToolOutput`] for success, [`ToolError`] by kind, and
//! [`Preview`] for the confirmation message of a risky call.
//!
//! A [`ToolOutput`] carries the tool's typed result, suggestions, an image
//! URL and pictures (PNG, caption, cache key), which are never serialised, so
//! the model never sees bytes. `into_json` is the one place a result becomes
//! the JSON the model reads; `read::<T>()` reads it back. [`ToolError`] has a
//! safe `model_message()`.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use services::ServiceError;

/// A tool's success: its typed data for the model, and what the shopper may
/// see directly. A tool returns `ToolOutput<ItsResult>`; the registry turns
/// it into `ToolOutput<Value>` ([`ToolOutput::into_json`]) for the router.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct ToolOutput<T = Value> {
    /// The tool's result (prices in yuan).
    pub data: T,
    /// Follow-up requests offered as buttons ("看看第一个", "加入购物车").
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// A picture URL to show, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Pictures drawn for the shopper (floor plans). Never serialised: the
    /// model reads `data`, never the image bytes.
    #[serde(skip)]
    pub pictures: Vec<Picture>,
}

/// A picture made by a tool, shown to the shopper as a photo.
#[derive(Clone, PartialEq)]
pub struct Picture {
    /// The PNG file.
    pub png: Arc<[u8]>,
    /// What to write under it (the steps), in the shopper's language.
    pub caption: String,
    /// The same key means the same picture (route and language): transports
    /// may re-send an earlier upload instead of the bytes.
    pub cache_key: String,
}

impl std::fmt::Debug for Picture {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Picture")
            .field("png_bytes", &self.png.len())
            .field("caption", &self.caption)
            .field("cache_key", &self.cache_key)
            .finish()
    }
}

impl<T> ToolOutput<T> {
    /// Output with data only.
    pub fn new(data: T) -> Self {
        ToolOutput { data, suggestions: Vec::new(), image: None, pictures: Vec::new() }
    }

    /// Adds suggestion buttons.
    pub fn with_suggestions<I, S>(mut self, suggestions: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.suggestions.extend(suggestions.into_iter().map(Into::into));
        self
    }
}

impl<T> ToolOutput<T> {
    /// Adds pictures for the shopper.
    pub fn with_pictures(mut self, pictures: impl IntoIterator<Item = Picture>) -> Self {
        self.pictures.extend(pictures);
        self
    }
}

impl<T: Serialize> ToolOutput<T> {
    /// The same output with its data as JSON: the one place typed results
    /// become what the model reads.
    pub fn into_json(self) -> Result<ToolOutput<Value>, ToolError> {
        let data = serde_json::to_value(&self.data)
            .map_err(|e| ToolError::Upstream(format!("the result could not be written as JSON: {e}")))?;
        Ok(ToolOutput { data, suggestions: self.suggestions, image: self.image, pictures: self.pictures })
    }
}

impl ToolOutput<Value> {
    /// The data read back as the tool's result type.
    pub fn read<T: serde::de::DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        T::deserialize(&self.data)
    }
}

/// What a pending risky call will do, as the shopper is shown it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Preview {
    /// The confirmation text, in the shopper's language (items, quantities,
    /// prices, total, pickup store for orders).
    pub summary: String,
    /// The figures the shopper agrees to (e.g. `{"total_cents": 69900, "items": [...]}`).
    /// A critical call is re-checked on press: a different fingerprint means
    /// the price or stock changed and a new confirmation is needed.
    pub fingerprint: Value,
}

/// Result of a tool call: `ToolResult<SearchProductsResult>` from the tool,
/// `ToolResult` (JSON data) from the registry.
pub type ToolResult<T = Value> = Result<ToolOutput<T>, ToolError>;

/// Why a tool call failed, by kind: the model gets [`ToolError::model_message`],
/// the logs get the `Display` text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the schema; `field` names the culprit.
    #[error("invalid arguments{}: {message}", field.as_deref().map(|f| format!(" (field `{f}`)")).unwrap_or_default())]
    InvalidArguments { field: Option<String>, message: String },
    /// No such product, store, order…
    #[error("not found: {0}")]
    NotFound(String),
    /// The mall refused the request for a reason the shopper can act on
    /// (out of stock, price changed, cart empty, not cancellable…).
    #[error("refused by the mall ({code}): {message}")]
    Refused { code: &'static str, message: String },
    /// The mall is down, slow or answered nonsense.
    #[error("mall unavailable: {0}")]
    Upstream(String),
    /// The tool did not finish in time.
    #[error("the tool timed out after {0} s")]
    Timeout(u64),
    /// The tool may not be used here (e.g. cart in a group chat).
    #[error("not allowed here: {0}")]
    NotAllowed(String),
    /// A service outside the mall that lends the bot a tool (an MCP server)
    /// failed, could not be reached, or reported an error.
    #[error("{service} failed: {message}")]
    Service { service: String, message: String },
}

impl ToolError {
    /// Shorthand for an invalid argument naming its field.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        ToolError::InvalidArguments { field: Some(field.to_owned()), message: message.into() }
    }

    /// A short, safe sentence for the model: what went wrong and what to do.
    /// Never carries internal detail (hosts, raw bodies).
    pub fn model_message(&self) -> String {
        match self {
            ToolError::InvalidArguments { field: Some(f), message } => {
                format!("Error: invalid argument `{f}`: {message}. Fix the arguments and call the tool again.")
            }
            ToolError::InvalidArguments { field: None, message } => {
                format!("Error: invalid arguments: {message}. Fix the arguments and call the tool again.")
            }
            ToolError::NotFound(what) => format!("Error: not found: {what}."),
            ToolError::Refused { code, message } => format!("Error: the mall refused ({code}): {message}."),
            ToolError::Upstream(_) => {
                "Error: the mall's system is not reachable right now. Apologise and suggest trying again in a minute."
                    .to_owned()
            }
            ToolError::Timeout(_) => {
                "Error: the mall did not answer in time. Apologise and suggest trying again.".to_owned()
            }
            ToolError::NotAllowed(why) => format!("Error: not allowed here: {why}."),
            ToolError::Service { service, message } => format!(
                "Error: the `{service}` service could not do this: {message}. Tell the shopper it is not \
                 available right now; do not pretend it worked."
            ),
        }
    }
}

impl From<ServiceError> for ToolError {
    fn from(e: ServiceError) -> Self {
        match e {
            ServiceError::NotFound { message } => ToolError::NotFound(message),
            ServiceError::InvalidArgument { field, message } => {
                ToolError::InvalidArguments { field, message }
            }
            ServiceError::Unavailable { message } => ToolError::Upstream(message),
            ServiceError::InvalidResponse { status, message, .. } => {
                ToolError::Upstream(format!("HTTP {status}: {message}"))
            }
            ServiceError::Unauthorized { message } => ToolError::Upstream(format!("unauthorized: {message}")),
            other => ToolError::Refused { code: other.code(), message: other.to_string() },
        }
    }
}
