//! [`Config`]: every setting, with a working default for each, read from an
//! optional TOML file and `MALLBOT_<SECTION>__<KEY>` environment variables.
//! A bad config is refused with a message naming the key and what was wrong.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use handlers::{Lang, Level, Scope};
use serde::{Deserialize, Serialize};

pub use crate::secret::Secret;

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
    pub ops: OpsConfig,
    pub log: LogConfig,
    pub mcp: McpConfig,
    pub payments: PaymentsConfig,
    pub events: EventsConfig,
    pub webapp: WebappConfig,
    pub otel: OtelConfig,
    pub support: SupportConfig,
    pub report: ReportConfig,
    /// Per-tool overrides: `[tools.add_to_cart] level = "safe"`.
    pub tools: BTreeMap<String, ToolOverride>,
    /// What loading noticed but did not refuse (unknown `MALLBOT_*`
    /// variables), for the log once logging is up.
    #[serde(skip)]
    pub warnings: Vec<String>,
}

/// `[telegram]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelegramConfig {
    pub token: Secret,
    pub api_url: String,
    pub admins: Vec<i64>,
    pub mode: TelegramMode,
    pub webhook_url: String,
    pub webhook_listen: String,
    pub webhook_secret: Secret,
    /// How long an answer that could not be delivered yet is retried, in
    /// seconds; older undelivered answers are dropped (and logged).
    pub outbox_max_age_secs: u64,
}

impl Default for TelegramConfig {
    fn default() -> Self {
        TelegramConfig {
            token: Secret::default(),
            api_url: "https://api.telegram.org".into(),
            admins: Vec::new(),
            mode: TelegramMode::Polling,
            webhook_url: String::new(),
            webhook_listen: "0.0.0.0:8443".into(),
            webhook_secret: Secret::default(),
            outbox_max_age_secs: 600,
        }
    }
}

/// How updates arrive from Telegram.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TelegramMode {
    Polling,
    Webhook,
}

/// Which model plays the assistant.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Provider {
    /// The built-in intent parser: no model needed.
    Offline,
    /// Any OpenAI-compatible chat-completions API.
    Openai,
}

/// `[llm]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    pub provider: Provider,
    pub base_url: String,
    pub api_key: Secret,
    pub model: String,
    pub max_rounds: u32,
    pub request_timeout_secs: u64,
    pub max_retries: u32,
    pub tool_timeout_secs: u64,
    /// Stream completions (SSE) instead of waiting for the whole answer.
    pub stream: bool,
    /// Sampling temperature sent to the model (unset: the provider's default).
    pub temperature: Option<f32>,
    /// A hard ceiling on model calls at once; 0 = adapt to the provider
    /// (grow while it answers, shrink on 429/overload).
    pub max_concurrent: usize,
    /// The model reads photos: a shopper's photo goes to it as a `data:`
    /// image part (with `provider = "openai"`; the offline planner reads captions only).
    pub vision: bool,
    /// The most tokens one model answer may have (`max_tokens` on every request).
    pub max_tokens: u32,
    /// A tool's own words end the turn when they are the whole answer
    /// (directions, a store, the cart, an order), without a second model round.
    pub direct_answers: bool,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            provider: Provider::Offline,
            base_url: String::new(),
            api_key: Secret::default(),
            model: String::new(),
            max_rounds: 10,
            request_timeout_secs: 30,
            max_retries: 3,
            tool_timeout_secs: 10,
            stream: false,
            temperature: None,
            max_concurrent: 0,
            vision: false,
            max_tokens: 1024,
            direct_answers: true,
        }
    }
}

impl LlmConfig {
    /// `offline` or `openai`.
    pub fn provider_name(&self) -> &'static str {
        match self.provider {
            Provider::Offline => "offline",
            Provider::Openai => "openai",
        }
    }
}

/// Which speech-to-text service transcribes voice messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SttProvider {
    /// None: voice messages are answered with a note that typing works.
    #[default]
    #[serde(rename = "")]
    Off,
    /// Any OpenAI-compatible `POST /audio/transcriptions` (OpenAI Whisper,
    /// Groq, a local whisper server, vLLM…).
    Openai,
}

/// `[stt]`: speech to text for voice messages.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SttConfig {
    pub provider: SttProvider,
    pub base_url: String,
    pub api_key: Secret,
    pub model: String,
    /// Voice messages longer than this are answered without transcribing.
    pub max_seconds: u32,
    /// Time limit of one transcription request.
    pub timeout_secs: u64,
}

impl Default for SttConfig {
    fn default() -> Self {
        SttConfig {
            provider: SttProvider::Off,
            base_url: String::new(),
            api_key: Secret::default(),
            model: "whisper-1".into(),
            max_seconds: 60,
            timeout_secs: 30,
        }
    }
}

impl SttConfig {
    /// Whether voice messages are transcribed.
    pub fn enabled(&self) -> bool {
        self.provider != SttProvider::Off
    }
}

/// Where the mall lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MallBackend {
    /// The in-process demo mall.
    Embedded,
    /// The mall's REST backend (`mall.base_url`).
    Http,
}

/// `[mall]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MallConfig {
    pub backend: MallBackend,
    pub base_url: String,
    pub api_key: Secret,
    /// The store staff's key for the staff endpoints (orders ready / picked up):
    /// what `mall-server` requires there, and what the bot sends there. Empty:
    /// `mall-server` keeps them closed.
    pub staff_key: Secret,
    /// SQLite file of the embedded mall's carts, orders and stock.
    pub embedded_db: String,
    pub request_timeout_secs: u64,
    pub max_retries: u32,
    /// The indoor map: an IMDF folder or .zip. Empty: the embedded demo mall
    /// uses its own map; a mall on the HTTP backend gives text directions.
    pub imdf: String,
    /// A folder of Markdown files with the mall's own information (hours,
    /// parking, services, policies), one section per heading, for a mall whose
    /// backend has no `GET /api/mall/info`. Empty: the backend's.
    pub info_dir: String,
    /// A folder with the mall's own data (stores, products, SKUs, stock, prices,
    /// categories, promotions as CSV or .xlsx, or the demo's JSON shape), served
    /// by the embedded mall and read again when a file changes or on `SIGHUP`;
    /// its `imdf/` and `info/` are the map and information unless `imdf` and
    /// `info_dir` are set. Empty: the demo mall. See docs/your-mall.md.
    pub data: String,
    /// The mall's own host names: `mall-server` answers only requests whose
    /// `Host` is one of them (or localhost/127.0.0.1/::1), and they are the
    /// default of `bot.link_hosts` and the hosts product pictures may come from.
    pub allowed_hosts: Vec<String>,
}

impl Default for MallConfig {
    fn default() -> Self {
        MallConfig {
            backend: MallBackend::Embedded,
            base_url: String::new(),
            api_key: Secret::default(),
            staff_key: Secret::default(),
            embedded_db: "mallbot-mall.db".into(),
            request_timeout_secs: 10,
            max_retries: 2,
            imdf: String::new(),
            info_dir: String::new(),
            data: String::new(),
            allowed_hosts: Vec::new(),
        }
    }
}

impl MallConfig {
    /// `embedded` or `http`.
    pub fn backend_name(&self) -> &'static str {
        match self.backend {
            MallBackend::Embedded => "embedded",
            MallBackend::Http => "http",
        }
    }
}

/// `[state]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StateConfig {
    pub url: String,
}

impl Default for StateConfig {
    fn default() -> Self {
        StateConfig { url: "sqlite://mallbot.db".into() }
    }
}

/// `[bot]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BotConfig {
    pub language: Lang,
    pub history_messages: usize,
    /// A token budget for the remembered conversation (0 = none): old tool
    /// results are shortened first, then the oldest turns dropped.
    pub history_tokens: usize,
    pub rate_limit_per_minute: u32,
    /// Model tokens (in + out) a shopper may use a day (UTC); over it the
    /// offline planner answers for the rest of the day. 0 = unlimited.
    pub daily_tokens_per_user: u64,
    /// Only these Telegram users may use the bot (empty = everyone).
    pub allowed_users: Vec<i64>,
    /// Only in these chats (empty = every chat); with both lists set, either admits.
    pub allowed_chats: Vec<i64>,
    /// Seconds a safe, shopper-independent tool result (search, details,
    /// stores, routes, areas) is reused for the same arguments (0 = never).
    pub tool_cache_secs: u64,
    /// Hosts whose links in an answer may get a link preview (empty = the
    /// mall's own: `mall.base_url`'s host and `mall.allowed_hosts`). Any
    /// other link in an answer turns its preview off.
    pub link_hosts: Vec<String>,
}

impl Default for BotConfig {
    fn default() -> Self {
        BotConfig {
            language: Lang::Zh,
            history_messages: 20,
            history_tokens: 0,
            rate_limit_per_minute: 20,
            daily_tokens_per_user: 0,
            allowed_users: Vec::new(),
            allowed_chats: Vec::new(),
            tool_cache_secs: 30,
            link_hosts: Vec::new(),
        }
    }
}

/// `[safety]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SafetyConfig {
    pub confirm_ttl_secs: u64,
    pub critical_code: bool,
}

impl Default for SafetyConfig {
    fn default() -> Self {
        SafetyConfig { confirm_ttl_secs: 300, critical_code: false }
    }
}

/// `[ops]`
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpsConfig {
    /// Address of `/metrics`, `/healthz` and `/readyz` (empty = off; in
    /// webhook mode `127.0.0.1:9464`). Never the webhook listener.
    pub listen: String,
    /// Bearer token `/metrics` requires (empty = none).
    pub token: Secret,
}

/// `[webapp]`: the Mini App (a map to touch, the directory, the cart).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WebappConfig {
    /// Address `mallbot run` serves the Mini App on (empty = off).
    pub listen: String,
    /// The https URL Telegram opens (the Mini App behind the operator's TLS
    /// proxy); with it set the bot sets its menu button and offers
    /// "🗺 在地图上看" under directions and store answers.
    pub public_url: String,
    /// Oldest Telegram `initData` taken, in seconds (an hour by default).
    pub init_data_max_age_secs: u64,
}

impl Default for WebappConfig {
    fn default() -> Self {
        WebappConfig { listen: String::new(), public_url: String::new(), init_data_max_age_secs: 3600 }
    }
}

/// `[payments]`: Telegram Bot Payments. An empty `provider_token` means
/// orders are paid at the store.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PaymentsConfig {
    /// The payment provider's token from @BotFather → Payments (a secret:
    /// never printed).
    pub provider_token: Secret,
    /// ISO 4217 code of the invoices; amounts are in its minor units.
    pub currency: String,
    /// Minutes an unpaid order holds its stock before it expires.
    pub order_ttl_mins: u64,
    /// Unpaid orders one shopper may hold at once.
    pub max_open_orders: u32,
}

impl Default for PaymentsConfig {
    fn default() -> Self {
        PaymentsConfig {
            provider_token: Secret::default(),
            currency: "CNY".into(),
            order_ttl_mins: 30,
            max_open_orders: 3,
        }
    }
}

impl PaymentsConfig {
    /// Whether orders are paid in Telegram (a provider token is set).
    pub fn enabled(&self) -> bool {
        !self.provider_token.expose().trim().is_empty()
    }
}

/// `[events]`: the mall's order events, told to the shoppers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EventsConfig {
    /// Seconds between two reads of the mall's event feed (0 = not read).
    pub poll_secs: u64,
}

impl Default for EventsConfig {
    fn default() -> Self {
        EventsConfig { poll_secs: 5 }
    }
}

/// `[support]`: the mall's service desk, a Telegram forum supergroup where
/// each shopper who asks for a person gets a topic of their own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SupportConfig {
    /// The desk's forum supergroup (`-100…`); 0 = no desk in Telegram: a
    /// shopper asking for a person is told where the service desk is.
    pub chat_id: i64,
    /// When staff answer, `HH:MM-HH:MM` in `utc_offset`'s time; empty = always.
    pub hours: String,
    /// The desk's time zone as an offset from UTC (`+08:00`).
    pub utc_offset: String,
    /// Minutes without a staff answer before the shopper may go on with the
    /// bot (0 = never asked; fractions allowed: 0.5 = 30 s).
    pub answer_within_mins: f64,
}

impl Default for SupportConfig {
    fn default() -> Self {
        SupportConfig {
            chat_id: 0,
            hours: String::new(),
            utc_offset: "+08:00".to_owned(),
            answer_within_mins: 10.0,
        }
    }
}

/// `[report]`: what went unanswered (`mallbot report`, `/report`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReportConfig {
    /// Days the report's counts (and the questions' words in them) are kept.
    pub keep_days: u64,
}

impl Default for ReportConfig {
    fn default() -> Self {
        ReportConfig { keep_days: 30 }
    }
}

/// `[otel]`: OpenTelemetry traces over OTLP/HTTP; off while `endpoint` is
/// empty (and no `OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT` is set).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OtelConfig {
    /// The collector's OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`
    /// (`/v1/traces` is appended unless already there).
    pub endpoint: String,
    /// `http/protobuf` or `http/json`.
    pub protocol: OtelProtocol,
    /// `service.name` of the spans.
    pub service_name: String,
    /// Share of new traces kept, 0.0 to 1.0 (a trace continued from a caller
    /// follows the caller's decision).
    pub sample_ratio: f64,
    /// Prompts, messages, answers and tool arguments and results in the spans.
    pub capture_content: bool,
}

impl Default for OtelConfig {
    fn default() -> Self {
        OtelConfig {
            endpoint: String::new(),
            protocol: OtelProtocol::default(),
            service_name: "mallbot".into(),
            sample_ratio: 1.0,
            capture_content: false,
        }
    }
}

/// The OTLP encoding over HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum OtelProtocol {
    /// Protobuf (`application/x-protobuf`).
    #[default]
    #[serde(rename = "http/protobuf")]
    HttpProtobuf,
    /// JSON (`application/json`).
    #[serde(rename = "http/json")]
    HttpJson,
}

/// `[log]`
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LogConfig {
    pub format: LogFormat,
}

/// How log lines are written to stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// Lines for a person.
    #[default]
    Text,
    /// One JSON object per line, span fields included, for a collector.
    Json,
}

/// `[mcp]`: the registry served over MCP (`mallbot mcp`), and MCP servers
/// whose tools join the registry (`[mcp.servers.NAME]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpConfig {
    /// Bearer token for `mallbot mcp --listen` (required there); it acts for `user_id`.
    pub token: Secret,
    /// The shopper `mallbot mcp` acts for: over stdio, and for requests carrying `token`.
    pub user_id: i64,
    /// Host names accepted in the `Host` header by `mallbot mcp --listen`
    /// besides localhost/127.0.0.1/::1 (DNS-rebinding protection).
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted in the `Origin` header (`https://app.example.com:443`);
    /// a request with any other Origin is refused.
    pub allowed_origins: Vec<String>,
    /// Leave `confirm`/`critical` tools out of the list for clients without
    /// elicitation (otherwise listed, and refused with an explanation when called).
    pub hide_unconfirmable: bool,
    /// More bearer tokens, each acting for its own shopper: `"TOKEN" = USER_ID`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub tokens: BTreeMap<Secret, i64>,
    /// MCP servers whose tools the bot offers to the model, as `NAME__tool`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub servers: BTreeMap<String, McpServerConfig>,
    /// How long start-up waits for `[mcp.servers]` to connect before the
    /// first turn, in seconds (a server later than that joins when it connects).
    pub connect_timeout_secs: u64,
}

impl Default for McpConfig {
    fn default() -> Self {
        McpConfig {
            token: Secret::default(),
            user_id: 1,
            allowed_hosts: Vec::new(),
            allowed_origins: Vec::new(),
            hide_unconfirmable: false,
            tokens: BTreeMap::new(),
            servers: BTreeMap::new(),
            connect_timeout_secs: 5,
        }
    }
}

/// `[mcp.servers.NAME]`: `command` (+ `args`, `env`) for a server over stdio,
/// or `url` (+ `headers`) for one over streamable HTTP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct McpServerConfig {
    pub command: String,
    pub args: Vec<String>,
    pub env: BTreeMap<String, Secret>,
    pub url: String,
    pub headers: BTreeMap<String, Secret>,
    /// The level of its tools (each overridable with `[tools.NAME__tool] level`).
    pub level: Level,
    /// Where its tools may be used.
    pub scope: Scope,
}

impl Default for McpServerConfig {
    fn default() -> Self {
        McpServerConfig {
            command: String::new(),
            args: Vec::new(),
            env: BTreeMap::new(),
            url: String::new(),
            headers: BTreeMap::new(),
            level: Level::Confirm,
            scope: Scope::Private,
        }
    }
}

/// `[tools.NAME]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolOverride {
    pub level: Level,
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
    #[error("config key `{key}`: {message}")]
    Invalid { key: String, message: String },
}

fn invalid(key: &str, message: impl Into<String>) -> ConfigError {
    ConfigError::Invalid { key: key.to_owned(), message: message.into() }
}

impl Config {
    /// Loads the file (if given) and the process environment.
    pub fn load(path: Option<&Path>) -> Result<Config, ConfigError> {
        Self::load_with_env(path, std::env::vars())
    }

    /// Loads the file (if given), overlays `MALLBOT_*` variables from `env`, and validates.
    pub fn load_with_env(
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
        for (var, value) in env {
            let Some(rest) = var.strip_prefix("MALLBOT_") else { continue };
            // The config file's own path (`--config`), not a key.
            if var == CONFIG_PATH_VAR {
                continue;
            }
            if !is_known_key(rest) {
                warnings.push(format!(
                    "environment variable {var} is not a config key (expected MALLBOT_<SECTION>__<KEY>, \
                     e.g. MALLBOT_LLM__BASE_URL, or {CONFIG_PATH_VAR}); ignored"
                ));
                continue;
            }
            apply_env(&mut table, &var, rest, &value)?;
        }
        let mut config: Config = toml::Value::Table(table)
            .try_into()
            .map_err(|e: toml::de::Error| ConfigError::Parse { path: origin, message: e.to_string() })?;
        config.validate()?;
        config.warnings = warnings;
        Ok(config)
    }

    /// Checks the values that the types alone cannot.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.llm.provider == Provider::Openai {
            if self.llm.base_url.trim().is_empty() {
                return Err(invalid(
                    "llm.base_url",
                    "required when llm.provider = \"openai\" (e.g. https://api.deepseek.com/v1)",
                ));
            }
            check_url("llm.base_url", &self.llm.base_url)?;
            if self.llm.model.trim().is_empty() {
                return Err(invalid(
                    "llm.model",
                    "required when llm.provider = \"openai\" (e.g. deepseek-chat)",
                ));
            }
        }
        if self.llm.max_rounds == 0 {
            return Err(invalid("llm.max_rounds", "must be at least 1"));
        }
        if self.llm.request_timeout_secs == 0 || self.llm.tool_timeout_secs == 0 {
            return Err(invalid(
                "llm.request_timeout_secs / llm.tool_timeout_secs",
                "must be at least 1 second",
            ));
        }
        if self.stt.enabled() {
            if self.stt.base_url.trim().is_empty() {
                return Err(invalid(
                    "stt.base_url",
                    "required when stt.provider = \"openai\" (e.g. https://api.openai.com/v1)",
                ));
            }
            check_url("stt.base_url", &self.stt.base_url)?;
            if self.stt.model.trim().is_empty() {
                return Err(invalid("stt.model", "required when stt.provider is set (e.g. whisper-1)"));
            }
            if self.stt.max_seconds == 0 {
                return Err(invalid("stt.max_seconds", "must be at least 1"));
            }
            if self.stt.timeout_secs == 0 {
                return Err(invalid("stt.timeout_secs", "must be at least 1 second"));
            }
        }
        if self.mall.backend == MallBackend::Http {
            if self.mall.base_url.trim().is_empty() {
                return Err(invalid("mall.base_url", "required when mall.backend = \"http\""));
            }
            check_url("mall.base_url", &self.mall.base_url)?;
        }
        let info_dir = self.mall.info_dir.trim();
        if !info_dir.is_empty() && !std::path::Path::new(info_dir).is_dir() {
            let why =
                if std::path::Path::new(info_dir).exists() { "is not a folder" } else { "does not exist" };
            return Err(invalid(
                "mall.info_dir",
                format!("`{info_dir}` {why}: give a folder of Markdown files (.md), or leave it empty"),
            ));
        }
        let data = self.mall.data.trim();
        if !data.is_empty() {
            if self.mall.backend != MallBackend::Embedded {
                return Err(invalid(
                    "mall.data",
                    "is served by the embedded mall: set mall.backend = \"embedded\" (or leave mall.data empty)",
                ));
            }
            if !std::path::Path::new(data).is_dir() {
                let why =
                    if std::path::Path::new(data).exists() { "is not a folder" } else { "does not exist" };
                return Err(invalid(
                    "mall.data",
                    format!(
                        "`{data}` {why}: give the folder of the mall's data (docs/your-mall.md), or leave it empty"
                    ),
                ));
            }
        }
        let url = &self.state.url;
        if !(url.starts_with("sqlite://")
            || url.starts_with("redis://")
            || url.starts_with("rediss://")
            || url == "memory://")
        {
            return Err(invalid(
                "state.url",
                format!("`{url}`: use sqlite://PATH, redis://HOST:PORT or memory://"),
            ));
        }
        check_url("telegram.api_url", &self.telegram.api_url)?;
        if self.telegram.mode == TelegramMode::Webhook {
            let self_hosted = !self.telegram.api_url.starts_with("https://api.telegram.org");
            let scheme_ok = self.telegram.webhook_url.starts_with("https://")
                || (self_hosted && self.telegram.webhook_url.starts_with("http://"));
            if !scheme_ok {
                return Err(invalid(
                    "telegram.webhook_url",
                    "webhook mode needs the public https:// URL (http:// only with a self-hosted Bot API \
                     server, telegram.api_url, in local mode)",
                ));
            }
            if self.telegram.webhook_listen.parse::<std::net::SocketAddr>().is_err() {
                return Err(invalid("telegram.webhook_listen", "must be an address like 0.0.0.0:8443"));
            }
            if self.telegram.webhook_secret.is_empty() {
                return Err(invalid("telegram.webhook_secret", "webhook mode needs a secret token"));
            }
        }
        let listen = self.ops.listen.trim();
        if !listen.is_empty() && listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid("ops.listen", format!("`{listen}` is not an address like 127.0.0.1:9464")));
        }
        if self.telegram.mode == TelegramMode::Webhook && !listen.is_empty() {
            let same_port = |a: &str, b: &str| {
                let (a, b) = (a.parse::<std::net::SocketAddr>(), b.parse::<std::net::SocketAddr>());
                matches!((a, b), (Ok(a), Ok(b)) if a.port() == b.port())
            };
            if same_port(listen, self.telegram.webhook_listen.trim()) {
                return Err(invalid(
                    "ops.listen",
                    "must not be the webhook's port (telegram.webhook_listen): the ops endpoints stay off \
                     the public listener; use e.g. 127.0.0.1:9464",
                ));
            }
        }
        let webapp = self.webapp.listen.trim();
        if !webapp.is_empty() && webapp.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid(
                "webapp.listen",
                format!("`{webapp}` is not an address like 127.0.0.1:8090"),
            ));
        }
        let public = self.webapp.public_url.trim();
        if !public.is_empty() {
            if !public.starts_with("https://") {
                return Err(invalid("webapp.public_url", "Telegram opens Mini Apps over https:// only"));
            }
            check_url("webapp.public_url", public)?;
        }
        if self.webapp.init_data_max_age_secs == 0 {
            return Err(invalid("webapp.init_data_max_age_secs", "must be at least 1"));
        }
        let currency = self.payments.currency.trim();
        if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
            return Err(invalid(
                "payments.currency",
                format!("`{currency}` is not an ISO 4217 code of three capital letters (e.g. CNY)"),
            ));
        }
        if self.payments.order_ttl_mins < 5 {
            return Err(invalid(
                "payments.order_ttl_mins",
                "must be at least 5 (a shopper needs time to pay, and an order within 2 minutes of \
                 its expiry is not taken)",
            ));
        }
        if self.payments.max_open_orders == 0 {
            return Err(invalid("payments.max_open_orders", "must be at least 1"));
        }
        if self.payments.provider_token.expose().trim() != self.payments.provider_token.expose() {
            return Err(invalid(
                "payments.provider_token",
                "has spaces around it; copy it again from @BotFather",
            ));
        }
        if self.safety.confirm_ttl_secs == 0 {
            return Err(invalid("safety.confirm_ttl_secs", "must be at least 1"));
        }
        if self.support.chat_id > 0 {
            return Err(invalid(
                "support.chat_id",
                "must be the desk's supergroup id, which is negative (-100…); a positive id is a person",
            ));
        }
        let wait = self.support.answer_within_mins;
        if !wait.is_finite() || !(0.0..=1440.0).contains(&wait) {
            return Err(invalid(
                "support.answer_within_mins",
                "must be between 0 (never ask) and 1440 minutes",
            ));
        }
        crate::support::parse_offset(&self.support.utc_offset)
            .map_err(|why| invalid("support.utc_offset", why))?;
        crate::support::Hours::parse(&self.support.hours).map_err(|why| invalid("support.hours", why))?;
        if self.report.keep_days == 0 {
            return Err(invalid("report.keep_days", "must be at least 1"));
        }
        if self.bot.history_messages < 2 {
            return Err(invalid("bot.history_messages", "must be at least 2"));
        }
        for (name, server) in &self.mcp.servers {
            let key = format!("mcp.servers.{name}");
            if name.is_empty()
                || name.contains("__")
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(invalid(&key, "the name must be letters, digits, `-` or `_` (no `__`)"));
            }
            match (server.command.trim().is_empty(), server.url.trim().is_empty()) {
                (true, true) => {
                    return Err(invalid(&key, "needs `command` (stdio) or `url` (streamable HTTP)"));
                }
                (false, false) => return Err(invalid(&key, "has both `command` and `url`; keep one")),
                (true, false) => check_url(&format!("{key}.url"), &server.url)?,
                (false, true) => {}
            }
        }
        if self.mcp.tokens.keys().any(|token| token.is_empty()) {
            return Err(invalid("mcp.tokens", "a token cannot be empty"));
        }
        if !self.otel.endpoint.trim().is_empty() {
            check_url("otel.endpoint", self.otel.endpoint.trim())?;
        }
        if !(0.0..=1.0).contains(&self.otel.sample_ratio) {
            return Err(invalid(
                "otel.sample_ratio",
                format!("must be between 0.0 and 1.0, got {}", self.otel.sample_ratio),
            ));
        }
        if self.otel.service_name.trim().is_empty() {
            return Err(invalid("otel.service_name", "cannot be empty (e.g. \"mallbot\")"));
        }
        for name in self.tools.keys() {
            let lent = name
                .split_once("__")
                .is_some_and(|(server, tool)| !tool.is_empty() && self.mcp.servers.contains_key(server));
            if handlers::find(name).is_none() && !lent {
                let known: Vec<&str> = handlers::all().iter().map(|s| s.name).collect();
                return Err(invalid(
                    &format!("tools.{name}"),
                    format!(
                        "no such tool; known: {} (or SERVER__tool for a server in [mcp.servers])",
                        known.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The mall's own host names: `mall.base_url`'s host (HTTP backend) and
    /// `mall.allowed_hosts`, lower-case.
    pub fn mall_hosts(&self) -> Vec<String> {
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
    pub fn link_hosts(&self) -> Vec<String> {
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
    pub fn image_hosts(&self) -> Vec<String> {
        let mut hosts = self.mall_hosts();
        hosts.extend(
            self.bot.link_hosts.iter().map(|h| h.trim().to_ascii_lowercase()).filter(|h| !h.is_empty()),
        );
        hosts.sort();
        hosts.dedup();
        hosts
    }

    /// `llm.request_timeout_secs` as a duration.
    pub fn request_timeout(&self) -> Duration {
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
    pub fn webapp_url(&self) -> Option<reqwest::Url> {
        let url = self.webapp.public_url.trim();
        (!url.is_empty()).then(|| reqwest::Url::parse(url).ok()).flatten()
    }

    /// `llm.tool_timeout_secs` as a duration.
    pub fn tool_timeout(&self) -> Duration {
        Duration::from_secs(self.llm.tool_timeout_secs)
    }
}

fn check_url(key: &str, url: &str) -> Result<(), ConfigError> {
    match reqwest::Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => Ok(()),
        Ok(u) => Err(invalid(key, format!("`{url}` must be http:// or https://, not {}://", u.scheme()))),
        Err(e) => Err(invalid(key, format!("`{url}` is not a URL: {e}"))),
    }
}

/// The variable naming the config file, like `--config`.
pub const CONFIG_PATH_VAR: &str = "MALLBOT_CONFIG";

/// Whether `SECTION__KEY` (after `MALLBOT_`) names a key of the config, or
/// `TOOLS__NAME__LEVEL`.
fn is_known_key(rest: &str) -> bool {
    let path: Vec<String> = rest.split("__").map(|p| p.to_ascii_lowercase()).collect();
    match path.as_slice() {
        [tools, _, key] if tools == "tools" => key == "level",
        [section, key] => toml::Table::try_from(Config::default()).ok().is_some_and(|defaults| {
            defaults.get(section).and_then(|s| s.as_table()).is_some_and(|s| s.contains_key(key.as_str()))
                || OPTIONAL_KEYS.contains(&(section.as_str(), key.as_str()))
        }),
        _ => false,
    }
}

/// Keys with no default value, so absent from `Config::default()`'s table.
const OPTIONAL_KEYS: &[(&str, &str)] = &[("llm", "temperature")];

/// Sets `[section] key = value` (or `[tools.NAME] key`) from `MALLBOT_SECTION__KEY`.
/// The value is typed like the key's default: text stays text, numbers and
/// booleans are parsed, lists are TOML arrays or comma-separated.
fn apply_env(table: &mut toml::Table, var: &str, rest: &str, value: &str) -> Result<(), ConfigError> {
    let env_err = |message: String| ConfigError::Env { var: var.to_owned(), message };
    let path: Vec<String> = rest.split("__").map(|p| p.to_ascii_lowercase()).collect();
    let defaults = toml::Table::try_from(Config::default()).map_err(|e| env_err(e.to_string()))?;
    let (section_path, key) = match path.as_slice() {
        [section, key] => (vec![section.clone()], key.clone()),
        [tools, tool, key] if tools == "tools" => (vec![tools.clone(), tool.clone()], key.clone()),
        _ => return Err(env_err("expected MALLBOT_<SECTION>__<KEY>, e.g. MALLBOT_LLM__BASE_URL".into())),
    };
    let typed = match defaults.get(&section_path[0]).and_then(|s| s.as_table()).and_then(|s| s.get(&key)) {
        Some(toml::Value::String(_)) => toml::Value::String(value.to_owned()),
        Some(toml::Value::Integer(_)) => toml::Value::Integer(
            value.trim().parse().map_err(|_| env_err(format!("expected a whole number, got `{value}`")))?,
        ),
        Some(toml::Value::Float(_)) => toml::Value::Float(
            value.trim().parse().map_err(|_| env_err(format!("expected a number, got `{value}`")))?,
        ),
        Some(toml::Value::Boolean(_)) => toml::Value::Boolean(
            value.trim().parse().map_err(|_| env_err(format!("expected true or false, got `{value}`")))?,
        ),
        Some(toml::Value::Array(_)) => parse_env_list(value).map_err(env_err)?,
        _ => parse_env_scalar(value),
    };
    let mut cursor = table;
    for part in &section_path {
        let entry = cursor.entry(part.clone()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cursor =
            entry.as_table_mut().ok_or_else(|| env_err(format!("`{part}` in the file is not a table")))?;
    }
    cursor.insert(key, typed);
    Ok(())
}

fn parse_env_list(value: &str) -> Result<toml::Value, String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Ok(toml::Value::Array(Vec::new()));
    }
    if trimmed.starts_with('[') {
        let t: toml::Table = toml::from_str(&format!("v = {trimmed}")).map_err(|e| e.to_string())?;
        return t.get("v").cloned().ok_or_else(|| "not a list".to_owned());
    }
    Ok(toml::Value::Array(trimmed.split(',').map(|item| parse_env_scalar(item.trim())).collect()))
}

fn parse_env_scalar(value: &str) -> toml::Value {
    if let Ok(i) = value.parse::<i64>() {
        toml::Value::Integer(i)
    } else if let Ok(f) = value.parse::<f64>() {
        toml::Value::Float(f)
    } else if let Ok(b) = value.parse::<bool>() {
        toml::Value::Boolean(b)
    } else {
        toml::Value::String(value.to_owned())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn load(toml_text: &str, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
        let dir = std::env::temp_dir().join(format!("mallbot-config-{}", rand::random::<u64>()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("config.toml");
        std::fs::write(&path, toml_text).unwrap();
        let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string()));
        let result = Config::load_with_env(Some(&path), env);
        std::fs::remove_dir_all(&dir).ok();
        result
    }

    #[test]
    fn no_file_gives_working_defaults() {
        let c = Config::load_with_env(None, Vec::new()).unwrap();
        assert_eq!(c.llm.provider, Provider::Offline);
        assert_eq!(c.mall.backend, MallBackend::Embedded);
        assert_eq!(c.state.url, "sqlite://mallbot.db");
        assert_eq!(c.llm.max_rounds, 10);
        assert_eq!(c.safety.confirm_ttl_secs, 300);
    }

    #[test]
    fn the_malls_own_hosts_are_the_default_link_hosts_and_the_picture_hosts() {
        let mut c = Config::default();
        assert!(c.link_hosts().is_empty() && c.image_hosts().is_empty(), "embedded mall: none");
        c.mall.backend = MallBackend::Http;
        c.mall.base_url = "https://Mall.Example.com:8443/api".into();
        c.mall.allowed_hosts = vec!["img.mall.example".into()];
        assert_eq!(c.link_hosts(), vec!["img.mall.example", "mall.example.com"]);
        c.bot.link_hosts = vec!["shop.example".into()];
        assert_eq!(c.link_hosts(), vec!["shop.example"], "set: only those");
        assert_eq!(c.image_hosts(), vec!["img.mall.example", "mall.example.com", "shop.example"]);
    }

    #[test]
    fn the_malls_data_is_a_folder_served_by_the_embedded_mall() {
        let mut c = Config::default();
        c.mall.data = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/malls/riverside").into();
        c.validate().unwrap();
        c.mall.backend = MallBackend::Http;
        c.mall.base_url = "https://mall.example".into();
        match c.validate() {
            Err(ConfigError::Invalid { key, message }) => {
                assert_eq!(key, "mall.data");
                assert!(message.contains("mall.backend = \"embedded\""), "{message}");
            }
            other => panic!("an http mall with data: {other:?}"),
        }
        c.mall.backend = MallBackend::Embedded;
        c.mall.data = "/nonexistent/mall-data".into();
        match c.validate() {
            Err(ConfigError::Invalid { key, message }) => {
                assert_eq!(key, "mall.data");
                assert!(message.contains("`/nonexistent/mall-data` does not exist"), "{message}");
            }
            other => panic!("a missing folder: {other:?}"),
        }
    }

    #[test]
    fn an_info_dir_must_be_a_folder_named_by_its_key() {
        let mut c = Config::default();
        c.mall.info_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/malls/harbour-info").into();
        c.validate().unwrap();
        for (path, why) in
            [("/nonexistent/mall-info", "does not exist"), (env!("CARGO_MANIFEST_PATH"), "is not a folder")]
        {
            c.mall.info_dir = path.into();
            match c.validate() {
                Err(ConfigError::Invalid { key, message }) => {
                    assert_eq!(key, "mall.info_dir");
                    assert!(message.contains(why) && message.contains(path), "{message}");
                }
                other => panic!("{path}: {other:?}"),
            }
        }
    }
    #[test]
    fn the_example_file_is_valid_and_complete() {
        let text = include_str!("../config.example.toml");
        let parsed: Config = toml::from_str(text).unwrap();
        assert_eq!(parsed, Config::default(), "the example shows the defaults");
        assert!(text.contains("[tools.add_to_cart]"), "the per-tool override is shown");
        // Every key of the defaults appears in the example, commented.
        let defaults = toml::Table::try_from(Config::default()).unwrap();
        for (section, keys) in defaults.iter().filter(|(section, _)| *section != "tools") {
            let Some(keys) = keys.as_table() else { continue };
            assert!(text.contains(&format!("[{section}]")), "section [{section}] missing");
            for key in keys.keys() {
                assert!(
                    text.contains(&format!("{key} =")),
                    "key {section}.{key} missing from config.example.toml"
                );
            }
        }
    }

    #[test]
    fn unknown_mallbot_variables_are_warned_about_and_the_config_path_is_not_a_key() {
        let c = load(
            "",
            &[("MALLBOT_CONFIG", "/etc/mallbot.toml"), ("MALLBOT_LOG", "debug"), ("MALLBOT_LLM__NOPE", "1")],
        )
        .unwrap();
        assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
        assert!(c.warnings[0].contains("MALLBOT_LLM__NOPE"), "{:?}", c.warnings);
        assert!(c.warnings[1].contains("MALLBOT_LOG is not a config key"), "{:?}", c.warnings);
        let c = load("", &[("MALLBOT_LLM__TEMPERATURE", "0.2")]).unwrap();
        assert_eq!(c.llm.temperature, Some(0.2), "a key without a default is still a key");
    }

    #[test]
    fn a_self_hosted_bot_api_server_may_take_an_http_webhook() {
        let webhook = "[telegram]\nmode = \"webhook\"\nwebhook_secret = \"s\"\nwebhook_url = \"http://bot.internal:8443/hook\"\n";
        let refused = load(webhook, &[]).unwrap_err().to_string();
        assert!(refused.contains("telegram.webhook_url"), "{refused}");
        let local = format!("{webhook}api_url = \"http://127.0.0.1:8081\"\n");
        assert!(load(&local, &[]).is_ok(), "a local Bot API server accepts http:// webhooks");
    }

    #[test]
    fn env_overrides_the_file_with_typed_values() {
        let c = load(
            "[llm]\nmax_rounds = 5\n",
            &[
                ("MALLBOT_LLM__MAX_ROUNDS", "7"),
                ("MALLBOT_TELEGRAM__TOKEN", "12345"),
                ("MALLBOT_TELEGRAM__ADMINS", "1, 2"),
                ("MALLBOT_SAFETY__CRITICAL_CODE", "true"),
                ("MALLBOT_TOOLS__ADD_TO_CART__LEVEL", "safe"),
            ],
        )
        .unwrap();
        assert_eq!(c.llm.max_rounds, 7);
        assert_eq!(c.telegram.token.expose(), "12345", "a numeric-looking token stays text");
        assert_eq!(c.telegram.admins, vec![1, 2]);
        assert!(c.safety.critical_code);
        assert_eq!(c.tools["add_to_cart"].level, Level::Safe);
    }

    #[test]
    fn otel_is_off_by_default_and_its_keys_are_typed_and_checked() {
        let c = load("", &[]).unwrap();
        assert_eq!(c.otel, OtelConfig::default());
        assert!(c.otel.endpoint.is_empty() && !c.otel.capture_content);
        let c = load(
            "[otel]\nendpoint = \"http://127.0.0.1:4318\"\nprotocol = \"http/json\"\n",
            &[("MALLBOT_OTEL__SAMPLE_RATIO", "0.25"), ("MALLBOT_OTEL__CAPTURE_CONTENT", "true")],
        )
        .unwrap();
        assert_eq!(c.otel.protocol, OtelProtocol::HttpJson);
        assert_eq!((c.otel.sample_ratio, c.otel.capture_content), (0.25, true));
        let c = load("", &[("MALLBOT_OTEL__SAMPLE_RATIO", "1")]).unwrap();
        assert_eq!(c.otel.sample_ratio, 1.0, "a whole number is a ratio too");
        let e = load("[otel]\nsample_ratio = 1.5\n", &[]).unwrap_err().to_string();
        assert!(e.contains("otel.sample_ratio"), "{e}");
        let e = load("[otel]\nendpoint = \"grpc://collector:4317\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("otel.endpoint"), "{e}");
        let e = load("[otel]\nprotocol = \"grpc\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("protocol"), "{e}");
    }

    #[test]
    fn payments_and_events_read_the_env_keep_the_token_out_of_debug_and_name_bad_keys() {
        let c = load("", &[("MALLBOT_PAYMENTS__PROVIDER_TOKEN", "284685063:TEST:secret-token")]).unwrap();
        assert!(c.payments.enabled());
        assert_eq!((c.payments.currency.as_str(), c.payments.order_ttl_mins), ("CNY", 30));
        assert_eq!((c.payments.max_open_orders, c.events.poll_secs), (3, 5));
        let shown = format!("{c:?}");
        assert!(!shown.contains("secret-token"), "the provider token is never printed: {shown}");
        assert!(!Config::default().payments.enabled(), "no token: paid at the store");

        let e = load("[payments]\ncurrency = \"yuan\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("payments.currency") && e.contains("ISO 4217"), "{e}");
        let e = load("[payments]\norder_ttl_mins = 1\n", &[]).unwrap_err().to_string();
        assert!(e.contains("payments.order_ttl_mins"), "{e}");
        let e = load("[payments]\nmax_open_orders = 0\n", &[]).unwrap_err().to_string();
        assert!(e.contains("payments.max_open_orders"), "{e}");
        let e = load("[events]\npoll_secs = \"often\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("poll_secs"), "{e}");
        let off = load("[events]\npoll_secs = 0\n", &[]).unwrap();
        assert_eq!(off.events.poll_secs, 0, "0 turns the feed off");
    }

    #[test]
    fn bad_values_name_the_key() {
        let e = load("[llm]\nmax_rounds = \"many\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("max_rounds"), "{e}");
        let e = load("[llm]\nmax_round = 3\n", &[]).unwrap_err().to_string();
        assert!(e.contains("max_round"), "{e}");
        let e = load("[llm]\nprovider = \"openai\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("llm.base_url"), "{e}");
        let e = load("", &[("MALLBOT_LLM__MAX_ROUNDS", "lots")]).unwrap_err().to_string();
        assert!(e.contains("MALLBOT_LLM__MAX_ROUNDS") && e.contains("lots"), "{e}");
        let e = load("[state]\nurl = \"postgres://x\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("state.url"), "{e}");
        let e = load("[tools.fly_to_moon]\nlevel = \"safe\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("tools.fly_to_moon"), "{e}");
        let e = load("[tools.add_to_cart]\nlevel = \"maybe\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("maybe"), "{e}");
    }

    #[test]
    fn stt_is_off_by_default_and_checked_when_set() {
        let c = load("", &[]).unwrap();
        assert!(!c.stt.enabled());
        assert_eq!((c.stt.model.as_str(), c.stt.max_seconds, c.stt.timeout_secs), ("whisper-1", 60, 30));
        assert!(!c.llm.vision);
        let e = load("[stt]\nprovider = \"openai\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("stt.base_url"), "{e}");
        let e = load("[stt]\nprovider = \"openai\"\nbase_url = \"groq\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("stt.base_url") && e.contains("groq"), "{e}");
        let e = load("[stt]\nprovider = \"whisper\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("whisper"), "{e}");
        let e =
            load("[stt]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9\"\nmax_seconds = 0\n", &[])
                .unwrap_err()
                .to_string();
        assert!(e.contains("stt.max_seconds"), "{e}");
        let c = load(
            "[stt]\nprovider = \"openai\"\nbase_url = \"https://api.groq.com/openai/v1\"\n",
            &[
                ("MALLBOT_STT__API_KEY", "gsk-1"),
                ("MALLBOT_STT__MAX_SECONDS", "30"),
                ("MALLBOT_LLM__VISION", "true"),
            ],
        )
        .unwrap();
        assert!(c.stt.enabled() && c.llm.vision);
        assert_eq!((c.stt.api_key.expose(), c.stt.max_seconds), ("gsk-1", 30));
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn ops_listen_and_log_format() {
        let c = load("[ops]\nlisten = \"127.0.0.1:9464\"\n", &[("MALLBOT_LOG__FORMAT", "json")]).unwrap();
        assert_eq!(c.ops.listen, "127.0.0.1:9464");
        assert_eq!(c.log.format, LogFormat::Json);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
        let c = load("", &[]).unwrap();
        assert_eq!((c.ops.listen.as_str(), c.log.format), ("", LogFormat::Text));
        let e = load("[ops]\nlisten = \"9464\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("ops.listen") && e.contains("127.0.0.1:9464"), "{e}");
        let e = load("[log]\nformat = \"xml\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("xml"), "{e}");
    }

    #[test]
    fn webapp_keys_are_checked_and_named() {
        let c = load("", &[]).unwrap();
        assert_eq!((c.webapp.listen.as_str(), c.webapp.init_data_max_age_secs), ("", 3600));
        let c = load(
            "[webapp]\nlisten = \"127.0.0.1:8090\"\n",
            &[("MALLBOT_WEBAPP__PUBLIC_URL", "https://m.example/webapp/")],
        )
        .unwrap();
        assert_eq!(
            (c.webapp.listen.as_str(), c.webapp.public_url.as_str()),
            ("127.0.0.1:8090", "https://m.example/webapp/")
        );
        let e = load("[webapp]\nlisten = \"8090\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("webapp.listen"), "{e}");
        let e = load("[webapp]\npublic_url = \"http://m.example/\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("webapp.public_url") && e.contains("https"), "{e}");
        let e = load("[webapp]\ninit_data_max_age_secs = 0\n", &[]).unwrap_err().to_string();
        assert!(e.contains("webapp.init_data_max_age_secs"), "{e}");
    }

    #[test]
    fn mcp_servers_and_their_tools_levels_are_checked_and_named() {
        let c = load(
            "[mcp.servers.parking]\ncommand = \"parking-mcp\"\nargs = [\"--stdio\"]\n\n\
             [tools.parking__find_car]\nlevel = \"safe\"\n",
            &[("MALLBOT_MCP__TOKEN", "s3cret"), ("MALLBOT_MCP__USER_ID", "42")],
        )
        .unwrap();
        let parking = &c.mcp.servers["parking"];
        assert_eq!((parking.level, parking.scope), (Level::Confirm, Scope::Private), "the defaults");
        assert_eq!(c.tools["parking__find_car"].level, Level::Safe);
        assert_eq!((c.mcp.token.expose(), c.mcp.user_id), ("s3cret", 42));

        let e = load("[mcp.servers.parking]\nlevel = \"safe\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("mcp.servers.parking") && e.contains("`command`"), "{e}");
        let both = "[mcp.servers.parking]\ncommand = \"p\"\nurl = \"https://p.example/mcp\"\n";
        let e = load(both, &[]).unwrap_err().to_string();
        assert!(e.contains("mcp.servers.parking") && e.contains("keep one"), "{e}");
        let e = load("[mcp.servers.parking]\nurl = \"ftp://p.example\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("mcp.servers.parking.url"), "{e}");
        let e = load("[mcp.servers.a__b]\ncommand = \"p\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("mcp.servers.a__b"), "{e}");
        let e = load("[tools.valet__park]\nlevel = \"safe\"\n", &[]).unwrap_err().to_string();
        assert!(e.contains("tools.valet__park") && e.contains("[mcp.servers]"), "{e}");
    }
}
