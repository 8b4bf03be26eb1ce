//! [`App`]: the assembled bot — the mall, the model, the state store, the
//! router and what runs beside them — as every transport and command takes
//! it. Built from a config by the builders of `app.rs` (`App::build`,
//! `App::with_parts`…), the one place that names every layer.

use std::sync::Arc;
use std::time::Instant;

use services::MallApi;

use crate::engine::llm::ChatModel;
use crate::engine::router::FunctionCallRouter;
use crate::engine::stats::Stats;
use crate::engine::tools::RemoteTools;
use crate::infra::config::{Config, Provider};
use crate::infra::state::StateStore;

/// The assembled bot.
#[derive(Clone)]
pub struct App {
    pub config: Arc<Config>,
    pub router: Arc<FunctionCallRouter>,
    pub mall: Arc<dyn MallApi>,
    pub(crate) model: Arc<dyn ChatModel>,
    pub state: Arc<dyn StateStore>,
    pub stats: Arc<Stats>,
    pub(crate) started: Instant,
    /// Whether the instance is stopping (for `/readyz`).
    pub lifecycle: Arc<crate::infra::ops::Lifecycle>,
    /// Speech to text for voice messages (`[stt]`), when configured.
    pub(crate) stt: Option<Arc<crate::engine::stt::SpeechToText>>,
    /// Tools lent by the MCP servers of `[mcp.servers]`, while they are up.
    pub remote: Arc<RemoteTools>,
    /// Shoppers' stock and price alerts (`[alerts]`).
    pub alerts: Arc<crate::engine::alerts::Alerts>,
}

impl App {
    /// Whether the model reads photos: `llm.vision` with a real model (the
    /// offline planner reads captions only).
    pub(crate) fn reads_photos(&self) -> bool {
        self.config.llm.vision && self.config.llm.provider == Provider::Openai
    }
}
