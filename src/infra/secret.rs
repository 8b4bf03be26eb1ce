//! [`Secret`]: every key of the config (bot token, webhook secret, model,
//! STT, mall, ops and MCP keys, an MCP server's `env` and `headers`
//! values). Its `Debug` and `Display` never show it, so a config, a
//! settings struct or an error that holds one can be printed or logged
//! whole; the value itself is read with [`Secret::expose`], only where it
//! is sent. It reads and writes as a plain string in TOML and the
//! environment.

use std::fmt;

use serde::{Deserialize, Serialize};

/// What a secret is shown as, wherever it is printed or scrubbed.
pub(crate) const REDACTED: &str = "[redacted]";

/// A key or token, shown as `[redacted]` (or `""` when unset).
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    /// The value, for the one place that sends it.
    pub(crate) fn expose(&self) -> &str {
        &self.0
    }

    /// Whether it is unset (empty or blank).
    pub fn is_empty(&self) -> bool {
        self.0.trim().is_empty()
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() { f.write_str("\"\"") } else { f.write_str(REDACTED) }
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() { Ok(()) } else { f.write_str(REDACTED) }
    }
}

impl From<&str> for Secret {
    fn from(value: &str) -> Self {
        Secret(value.to_owned())
    }
}

impl From<String> for Secret {
    fn from(value: String) -> Self {
        Secret(value)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn debug_and_display_never_show_the_value() {
        let key = Secret::from("sk-live-123456789");
        assert_eq!(format!("{key:?}"), "[redacted]");
        assert_eq!(key.to_string(), "[redacted]");
        assert_eq!(format!("{:?}", Secret::default()), "\"\"");
        assert_eq!(key.expose(), "sk-live-123456789");
    }

    #[test]
    fn a_config_printed_whole_shows_no_key() {
        let mut config = crate::infra::config::Config::default();
        config.telegram.token = "123456:AAAA-bot-token-secret".into();
        config.llm.api_key = "sk-model-secret-1".into();
        config.stt.api_key = "stt-secret-2222".into();
        config.mall.api_key = "mall-secret-3333".into();
        config.ops.token = "ops-secret-4444".into();
        config.mcp.token = "mcp-secret-5555".into();
        let shown = format!("{config:?} {config:#?}");
        for secret in
            ["bot-token-secret", "sk-model", "stt-secret", "mall-secret", "ops-secret", "mcp-secret"]
        {
            assert!(!shown.contains(secret), "{secret} in {shown}");
        }
    }

    #[test]
    fn it_reads_as_a_plain_string() {
        let config = crate::infra::config::Config::load_with_env(
            None,
            [("MALLBOT_LLM__API_KEY".to_owned(), "sk-from-env".to_owned())],
        )
        .unwrap();
        assert_eq!(config.llm.api_key.expose(), "sk-from-env");
    }
}
