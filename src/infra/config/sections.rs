//! The sections of [`Config`](super::Config), each with its defaults.

use std::collections::BTreeMap;

use handlers::{Lang, Level, Scope};
use serde::{Deserialize, Serialize};

use super::Secret;

/// `[telegram]`
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelegramConfig {
    pub token: Secret,
    pub api_url: String,
    pub admins: Vec<i64>,
    pub(crate) mode: TelegramMode,
    pub webhook_url: String,
    pub(crate) webhook_listen: String,
    pub webhook_secret: Secret,
    /// How long an answer that could not be delivered yet is retried, in
    /// seconds; older undelivered answers are dropped (and logged).
    pub(crate) outbox_max_age_secs: u64,
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
pub(crate) enum TelegramMode {
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
    pub(crate) request_timeout_secs: u64,
    pub max_retries: u32,
    pub tool_timeout_secs: u64,
    /// Stream completions (SSE) instead of waiting for the whole answer.
    pub(crate) stream: bool,
    /// Sampling temperature sent to the model (unset: the provider's default).
    pub(crate) temperature: Option<f32>,
    /// A hard ceiling on model calls at once; 0 = adapt to the provider
    /// (grow while it answers, shrink on 429/overload).
    pub max_concurrent: usize,
    /// The model reads photos: a shopper's photo goes to it as a `data:`
    /// image part (with `provider = "openai"`; the offline planner reads captions only).
    pub vision: bool,
    /// The most tokens one model answer may have (`max_tokens` on every request).
    pub(crate) max_tokens: u32,
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
    pub(crate) fn provider_name(&self) -> &'static str {
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
    pub(crate) fn enabled(&self) -> bool {
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
    pub(crate) api_key: Secret,
    /// The store staff's key for the staff endpoints (orders ready / picked up):
    /// what `mall-server` requires there, and what the bot sends there. Empty:
    /// `mall-server` keeps them closed.
    pub(crate) staff_key: Secret,
    /// SQLite file of the embedded mall's carts, orders and stock.
    pub(crate) embedded_db: String,
    pub(crate) request_timeout_secs: u64,
    pub max_retries: u32,
    /// The indoor map: an IMDF folder or .zip. Empty: the embedded demo mall
    /// uses its own map; a mall on the HTTP backend gives text directions.
    pub imdf: String,
    /// A folder of Markdown files with the mall's own information (hours,
    /// parking, services, policies), one section per heading, for a mall whose
    /// backend has no `GET /api/mall/info`. Empty: the backend's.
    pub(crate) info_dir: String,
    /// A folder with the mall's own data (stores, products, SKUs, stock, prices,
    /// categories, promotions as CSV or .xlsx, or the demo's JSON shape), served
    /// by the embedded mall and read again when a file changes or on `SIGHUP`;
    /// its `imdf/` and `info/` are the map and information unless `imdf` and
    /// `info_dir` are set. Empty: the demo mall. See docs/your-mall.md.
    pub(crate) data: String,
    /// The mall's own host names: `mall-server` answers only requests whose
    /// `Host` is one of them (or localhost/127.0.0.1/::1), and they are the
    /// default of `bot.link_hosts` and the hosts product pictures may come from.
    pub(crate) allowed_hosts: Vec<String>,
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
    pub(crate) fn backend_name(&self) -> &'static str {
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
    pub(crate) history_tokens: usize,
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
    pub(crate) link_hosts: Vec<String>,
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
pub(crate) struct OpsConfig {
    /// Address of `/metrics`, `/healthz` and `/readyz` (empty = off; in
    /// webhook mode `127.0.0.1:9464`). Never the webhook listener.
    pub(crate) listen: String,
    /// Bearer token `/metrics` requires (empty = none).
    pub(crate) token: Secret,
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
    pub(crate) public_url: String,
    /// Oldest Telegram `initData` taken, in seconds (an hour by default).
    pub(crate) init_data_max_age_secs: u64,
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
    pub(crate) currency: String,
    /// Minutes an unpaid order holds its stock before it expires.
    pub(crate) order_ttl_mins: u64,
    /// Unpaid orders one shopper may hold at once.
    pub(crate) max_open_orders: u32,
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
    pub(crate) fn enabled(&self) -> bool {
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

/// `[alerts]`: stock and price alerts shoppers set on products.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AlertsConfig {
    /// Days an alert lasts; then it ends with one last word.
    pub(crate) ttl_days: u32,
    /// Alerts one shopper may have at once.
    pub max_per_user: u32,
    /// Minutes between two re-reads of the watched products (for a mall
    /// whose feed has no product events, and for changes it did not tell);
    /// 0 = never re-read, the feed alone.
    pub(crate) poll_mins: u64,
    /// Alert messages sent per second at most, over all instances (Telegram
    /// takes about 30 a second from a bot; the rest is left to answers).
    pub sends_per_sec: u32,
}

impl Default for AlertsConfig {
    fn default() -> Self {
        AlertsConfig { ttl_days: 30, max_per_user: 10, poll_mins: 10, sends_per_sec: 20 }
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
    pub(crate) hours: String,
    /// The desk's time zone as an offset from UTC (`+08:00`).
    pub(crate) utc_offset: String,
    /// Minutes without a staff answer before the shopper may go on with the
    /// bot (0 = never asked; fractions allowed: 0.5 = 30 s).
    pub(crate) answer_within_mins: f64,
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
pub(crate) struct OtelConfig {
    /// The collector's OTLP/HTTP base URL, e.g. `http://127.0.0.1:4318`
    /// (`/v1/traces` is appended unless already there).
    pub(crate) endpoint: String,
    /// `http/protobuf` or `http/json`.
    pub(crate) protocol: OtelProtocol,
    /// `service.name` of the spans.
    pub(crate) service_name: String,
    /// Share of new traces kept, 0.0 to 1.0 (a trace continued from a caller
    /// follows the caller's decision).
    pub(crate) sample_ratio: f64,
    /// Prompts, messages, answers and tool arguments and results in the spans.
    pub(crate) capture_content: bool,
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
pub(crate) enum OtelProtocol {
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
    pub(crate) token: Secret,
    /// The shopper `mallbot mcp` acts for: over stdio, and for requests carrying `token`.
    pub(crate) user_id: i64,
    /// Host names accepted in the `Host` header by `mallbot mcp --listen`
    /// besides localhost/127.0.0.1/::1 (DNS-rebinding protection).
    pub(crate) allowed_hosts: Vec<String>,
    /// Browser origins accepted in the `Origin` header (`https://app.example.com:443`);
    /// a request with any other Origin is refused.
    pub(crate) allowed_origins: Vec<String>,
    /// Leave `confirm`/`critical` tools out of the list for clients without
    /// elicitation (otherwise listed, and refused with an explanation when called).
    pub(crate) hide_unconfirmable: bool,
    /// More bearer tokens, each acting for its own shopper: `"TOKEN" = USER_ID`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) tokens: BTreeMap<Secret, i64>,
    /// MCP servers whose tools the bot offers to the model, as `NAME__tool`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub servers: BTreeMap<String, McpServerConfig>,
    /// How long start-up waits for `[mcp.servers]` to connect before the
    /// first turn, in seconds (a server later than that joins when it connects).
    pub(crate) connect_timeout_secs: u64,
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
