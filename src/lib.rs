//! mallbot: a Telegram shopping guide for a shopping mall.
//!
//! A shopper's message becomes a [`MessageContext`]; the
//! [`FunctionCallRouter`] admits it at its one door, lets a model (or the
//! offline planner) choose mall tools, holds risky ones for a confirmation,
//! and the answer goes back through the transport it came from.
//!
//! The crate's inside is three layers, each private to it:
//! - `engine`: what a message becomes — the router, the model clients,
//!   tools, confirmations, replies, payments, the service desk.
//! - `transports`: the ways in — Telegram, the Mini App, MCP, the terminal.
//! - `infra`: what both stand on — config, the state store, metrics and
//!   traces.
//!
//! `app` assembles them from a config; [`mall_server`] serves the embedded
//! mall over HTTP; [`eval`] measures a model on a mall.
//!
//! What the binary, the tests, the examples and the benches use is the
//! façade below, and nothing else is `pub`: `unreachable_pub` is denied, so
//! an item the façade does not name is `pub(crate)` at most.

#![deny(unreachable_pub)]

mod app;
mod engine;
pub mod eval;
mod infra;
pub mod mall_server;
mod transports;

pub use app::{App, open_mall};
pub use engine::alerts::{Alerts, Unasked};
pub use engine::commands::Command;
pub use engine::context::{ChosenLang, MessageContext};
pub use engine::fallback::ChatFallback;
pub use engine::media::image::base64;
pub use engine::payments::{EventFeed, FeedReport, PayloadKey};
pub use engine::progress::{Progress, TurnEvent};
pub use engine::reply::{ConfirmationPress, PressCheck, Reply};
pub use engine::router::{
    DoorSettings, FunctionCallRouter, Knock, RouterParts, RouterSettings, TurnSettings, Way, Why,
};
pub use engine::stats::Stats;
pub use engine::tools::{ServerState, ServerStatus, Tool};
pub use transports::console::Console;

/// A chat command and its answer, whatever the transport.
pub mod commands {
    pub use crate::engine::commands::{Command, answer};
}

/// The config file and its sections.
pub mod config {
    pub use crate::infra::config::{
        AlertsConfig, Config, LogFormat, MallBackend, McpServerConfig, Provider, SttProvider, ToolOverride,
    };
    pub use crate::infra::secret::Secret;
}

/// The state store: its kinds and the roles it plays.
pub mod state {
    pub use crate::infra::state::redis::RedisStore;
    pub use crate::infra::state::sqlite::SqliteStore;
    pub use crate::infra::state::{
        AuditEntry, AuditLog, ClaimOutcome, CounterStore, HistoryStore, Housekeeping, LockStore, MemoryStore,
        OutboxEntry, OutboxStore, PENDING_KEEP_SECS, PendingStatus, PendingStore, StateError, StateStore,
        StoredPending, UpdateLog, ValueStore, open, unix_now, unix_now_ms,
    };
}

/// The model clients: OpenAI-compatible, and the offline planner.
pub mod llm {
    pub use crate::engine::llm::offline::OfflinePlanner;
    pub use crate::engine::llm::openai::{OpenAiClient, OpenAiSettings, tool_definition};
    pub use crate::engine::llm::{
        ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, Role, ToolCall, Usage,
    };
}

/// The health check (`mallbot check`, `/health`).
pub mod health {
    pub use crate::engine::health::{collect, setup_checks};
}

/// The unanswered-questions and ratings report (`mallbot report`).
pub mod report {
    pub use crate::engine::report::{clamp_period, clamped_note, collect, csv, parse_since, text};
}

/// What an operator runs beside the bot: metrics, the ops listener, the
/// mall data's check.
pub mod ops {
    pub use crate::infra::mall_data::{check as check_mall_data, check_folder};
    pub use crate::infra::ops::{ALL, recorder};
    pub use crate::transports::ops::serve_on;
}

/// Traces to an OpenTelemetry collector.
pub mod otel {
    pub use crate::infra::otel::{TARGET, layer, shutdown};
}

/// Secrets kept out of logs and panics.
pub mod redact {
    pub use crate::infra::redact::{ScrubbingWriter, install_panic_hook, register_config, scrub};
}

/// Telegram: the dispatcher, sending, the outbox, the teller of events.
pub mod telegram {
    pub use crate::transports::telegram::outbox::{Delivery, Outbox};
    pub use crate::transports::telegram::send::{
        ButtonContext, ChatTyping, Outgoing, TELEGRAM_RETRY, Target, send_text,
    };
    pub use crate::transports::telegram::teller::{TelegramTeller, door, event_feed};
    pub use crate::transports::telegram::texts;
    pub use crate::transports::telegram::webhook::serve_on_until;
    pub use crate::transports::telegram::{
        ALLOWED_UPDATES, Handled, check, check_desk, connect, dispatcher, dispatcher_with_end,
        register_commands, run, stop_signal,
    };
}

/// MCP: the mall as an MCP server, and the client's TLS set-up.
pub mod mcp {
    pub use crate::transports::mcp::client::install_tls_provider;
    pub use crate::transports::mcp::server::{MallServer, serve_http, serve_stdio};
}

/// The Mini App.
pub mod webapp {
    pub use crate::transports::webapp::{InitDataCheck, WebApp, serve};
}
