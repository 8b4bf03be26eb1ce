//! [`Config`]: every setting, with a working default for each, read from an
//! optional TOML file and `MALLBOT_<SECTION>__<KEY>` environment variables.
//! A bad config is refused with every mistake at once, each naming its key
//! and what was wrong.
//!
//! The sections are in `sections.rs`, the environment overlay in `env.rs`,
//! the checks the types cannot make in `validate.rs`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde::{Deserialize, Serialize};

mod env;
pub(crate) mod hours;
mod sections;
mod validate;

pub(crate) use env::CONFIG_PATH_VAR;
use env::{apply_env, is_known_key};
pub use sections::*;
pub(crate) use validate::Mistake;

pub(crate) use crate::infra::secret::Secret;

/// The whole configuration. Every key has a default (see `config.example.toml`).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    pub telegram: TelegramConfig,
    pub llm: LlmConfig,
    pub stt: SttConfig,
    pub mall: MallConfig,
    pub state: StateConfig,
    pub bot: BotConfig,
    pub safety: SafetyConfig,
    pub(crate) ops: OpsConfig,
    pub log: LogConfig,
    pub mcp: McpConfig,
    pub payments: PaymentsConfig,
    pub events: EventsConfig,
    pub alerts: AlertsConfig,
    pub webapp: WebappConfig,
    pub(crate) otel: OtelConfig,
    pub support: SupportConfig,
    pub report: ReportConfig,
    /// Per-tool overrides: `[tools.add_to_cart] level = "safe"`.
    pub tools: BTreeMap<String, ToolOverride>,
    /// What loading noticed but did not refuse (unknown `MALLBOT_*`
    /// variables), for the log once logging is up.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// A config that cannot be used, with the key and what was wrong.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read config file {path}: {source}")]
    Read { path: String, source: std::io::Error },
    #[error("config file {path}: {message}")]
    Parse { path: String, message: String },
    #[error("environment variable {var}: {message}")]
    Env { var: String, message: String },
    /// Values the types accept but the bot cannot use: every one found, each with its key.
    #[error("{}", render(.0))]
    Invalid(Vec<Mistake>),
}

impl ConfigError {
    /// The mistakes in the values, each with its key (none for a file that cannot be read or parsed).
    #[cfg(test)]
    pub(crate) fn mistakes(&self) -> &[Mistake] {
        match self {
            ConfigError::Invalid(mistakes) => mistakes,
            _ => &[],
        }
    }
}

impl Config {
    /// Loads the file (if given) and the process environment.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        Self::load_with_env(path, std::env::vars())
    }

    /// Loads the file (if given), overlays `MALLBOT_*` variables from `env`, and validates.
    pub(crate) fn load_with_env(
        path: Option<&Path>,
        env: impl IntoIterator<Item = (String, String)>,
    ) -> Result<Config, ConfigError> {
        let (mut table, origin) = match path {
            Some(path) => {
                let origin = path.display().to_string();
                let text = std::fs::read_to_string(path)
                    .map_err(|source| ConfigError::Read { path: origin.clone(), source })?;
                let table: toml::Table = toml::from_str(&text)
                    .map_err(|e| ConfigError::Parse { path: origin.clone(), message: e.to_string() })?;
                (table, origin)
            }
            None => (toml::Table::new(), "(defaults)".to_owned()),
        };
        let mut warnings = Vec::new();
        let mut env: Vec<(String, String)> = env.into_iter().collect();
        env.sort();
        let defaults = toml::Table::try_from(Config::default())
            .map_err(|e| ConfigError::Parse { path: "(defaults)".to_owned(), message: e.to_string() })?;
        for (var, value) in env {
            let Some(rest) = var.strip_prefix("MALLBOT_") else { continue };
            // The config file's own path (`--config`), not a key.
            if var == CONFIG_PATH_VAR {
                continue;
            }
            // The mall's clock (`services::clock`), read by the mall, not a key.
            if var == services::clock::CLOCK_VAR {
                services::clock::parse_instant(&value)
                    .map_err(|message| ConfigError::Env { var, message })?;
                continue;
            }
            if !is_known_key(rest, &defaults) {
                warnings.push(format!(
                    "environment variable {var} is not a config key (expected MALLBOT_<SECTION>__<KEY>, \
                     e.g. MALLBOT_LLM__BASE_URL, or {CONFIG_PATH_VAR}); ignored"
                ));
                continue;
            }
            apply_env(&mut table, &defaults, rest, &value)
                .map_err(|message| ConfigError::Env { var: var.clone(), message })?;
        }
        let mut config: Config = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::Parse { path: origin, message: e.to_string() })?;
        config.validate()?;
        config.warnings = warnings;
        Ok(config)
    }

    /// The mall's own host names: `mall.base_url`'s host (HTTP backend) and
    /// `mall.allowed_hosts`, lower-case.
    pub(crate) fn mall_hosts(&self) -> Vec<String> {
        let mut hosts: Vec<String> =
            self.mall.allowed_hosts.iter().map(|h| h.trim().to_ascii_lowercase()).collect();
        if self.mall.backend == MallBackend::Http
            && let Some(host) =
                reqwest::Url::parse(&self.mall.base_url).ok().and_then(|u| u.host_str().map(str::to_owned))
        {
            hosts.push(host.to_ascii_lowercase());
        }
        hosts.retain(|h| !h.is_empty());
        hosts.sort();
        hosts.dedup();
        hosts
    }

    /// Hosts whose links may get a preview: `bot.link_hosts`, or the mall's own.
    pub(crate) fn link_hosts(&self) -> Vec<String> {
        if self.bot.link_hosts.is_empty() {
            self.mall_hosts()
        } else {
            self.bot
                .link_hosts
                .iter()
                .map(|h| h.trim().to_ascii_lowercase())
                .filter(|h| !h.is_empty())
                .collect()
        }
    }

    /// Hosts product pictures may be sent from (by URL): the mall's own and `bot.link_hosts`.
    pub(crate) fn image_hosts(&self) -> Vec<String> {
        let mut hosts = self.mall_hosts();
        hosts.extend(
            self.bot.link_hosts.iter().map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()),
        );
        hosts.sort();
        hosts.dedup();
        hosts
    }

    /// `llm.request_timeout_secs` as a duration.
    pub(crate) fn request_timeout(&self) -> Duration {
        Duration::from_secs(self.llm.request_timeout_secs)
    }

    /// The embedded mall's order policy from `[payments]`.
    pub fn order_policy(&self) -> services::OrderPolicy {
        services::OrderPolicy {
            ttl: Duration::from_secs(self.payments.order_ttl_mins * 60),
            max_open: self.payments.max_open_orders,
        }
    }

    /// The Mini App's public URL, when `webapp.public_url` is set.
    pub(crate) fn webapp_url(&self) -> Option<reqwest::Url> {
        let url = self.webapp.public_url.trim();
        (!url.is_empty()).then(|| reqwest::Url::parse(url).ok()).flatten()
    }

    /// `llm.tool_timeout_secs` as a duration.
    pub(crate) fn tool_timeout(&self) -> Duration {
        Duration::from_secs(self.llm.tool_timeout_secs)
    }
}

#[cfg(test)]
mod tests;

/// The mistakes as the operator reads them: a count, then one located line each.
fn render(mistakes: &[Mistake]) -> String {
    let mut out = match mistakes.len() {
        1 => "the config has 1 mistake:".to_owned(),
        n => format!("the config has {n} mistakes:"),
    };
    for mistake in mistakes {
        out.push_str("\n  ");
        out.push_str(&mistake.to_string());
    }
    out
}
