//! The tools on offer and how one call runs: the registry's tools and those
//! MCP servers lend, each tool's level after `[tools.NAME] level`, the
//! context a tool runs in (the mall, the indoor map, the shopper's alerts),
//! and the time limit of a call (`llm.tool_timeout_secs`). The tool loop and
//! the confirmation service share one [`Toolbox`].
//!
//! A [`ToolContext`] is made here only: for a turn's or a pending action's
//! [`TurnScope`], or for a request the door admitted
//! ([`Toolbox::context_for`]).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use handlers::alert_book::{Alert, AlertBook};
use handlers::{Approval, Level, Scope, ToolContext, ToolError, ToolOutput};
use services::MallApi;

use super::access::Admitted;
use super::calls;
use super::scope::TurnScope;
use crate::engine::llm::ToolCall;
use crate::engine::tools::{RemoteTools, Tool};

/// The tools, their levels and what they run against.
pub(crate) struct Toolbox {
    pub(super) mall: Arc<dyn MallApi>,
    map: Option<Arc<maps::Router>>,
    /// Per-tool level overrides (`[tools.NAME] level`).
    levels: HashMap<String, Level>,
    /// Time limit of one tool call (`llm.tool_timeout_secs`).
    pub(super) timeout: Duration,
    /// Tools lent by MCP servers (`[mcp.servers]`), lent once after the router is made.
    remote: OnceLock<Arc<RemoteTools>>,
    /// The shoppers' stock and price alerts, lent once after the router is made.
    alerts: OnceLock<Arc<dyn AlertBook>>,
}

impl Toolbox {
    pub(super) fn new(
        mall: Arc<dyn MallApi>,
        map: Option<Arc<maps::Router>>,
        levels: HashMap<String, Level>,
        timeout: Duration,
    ) -> Self {
        Toolbox { mall, map, levels, timeout, remote: OnceLock::new(), alerts: OnceLock::new() }
    }

    /// Offers the tools MCP servers lend beside the registry's (set once).
    pub(super) fn lend_remote(&self, remote: Arc<RemoteTools>) {
        if self.remote.set(remote).is_err() {
            tracing::warn!("the lent tools were set already; kept the first");
        }
    }

    /// Keeps the shoppers' alerts in `alerts` (set once).
    pub(super) fn lend_alerts(&self, alerts: Arc<dyn AlertBook>) {
        if self.alerts.set(alerts).is_err() {
            tracing::warn!("the alert book was set already; kept the first");
        }
    }

    /// The shopper's alerts (`<platform>:<id>`); `None` when they cannot be read.
    pub(super) async fn alerts_of(&self, user: &str) -> Option<Vec<Alert>> {
        self.alerts.get()?.alerts_of(user).await.ok()
    }

    /// The mall's indoor map, when it has one.
    pub(super) fn map(&self) -> Option<&Arc<maps::Router>> {
        self.map.as_ref()
    }

    /// The tools offered in this context: the registry without tools whose
    /// scope excludes private chats, or that need an @mention that did not happen.
    /// Private-only tools stay offered in groups so that asking for them leads
    /// to the private-chat hand-off instead of a confused answer.
    /// Tools lent by MCP servers that are up come after the registry's.
    pub(super) fn tools_for(&self, is_group: bool, mentioned: bool) -> Vec<Tool> {
        let lent = self.remote.get().map(|remote| remote.tools()).unwrap_or_default();
        handlers::all()
            .iter()
            .copied()
            .map(Tool::Builtin)
            .chain(lent)
            .filter(|t| is_group || t.scope() != Scope::Group)
            .filter(|t| !(is_group && t.require_at() && !mentioned))
            .collect()
    }

    /// The tool of that name: the registry's, else one lent by a server that is up.
    pub(super) fn find(&self, name: &str) -> Option<Tool> {
        handlers::find(name).map(Tool::Builtin).or_else(|| self.remote.get()?.find(name))
    }

    /// The level of a tool after overrides.
    pub(super) fn level_of(&self, tool: &Tool) -> Level {
        self.levels.get(tool.name()).copied().unwrap_or_else(|| tool.default_level())
    }

    /// The context a tool runs in for `scope`; `approval` for a call its owner confirmed.
    pub(super) fn context(&self, scope: &TurnScope, approval: Option<Approval>) -> ToolContext {
        ToolContext {
            mall: self.mall.clone(),
            shopper: services::Shopper::new(&scope.platform, scope.user_id),
            lang: scope.lang,
            is_group: scope.is_group,
            approval,
            map: self.map.clone(),
            pictures: true,
            alerts: self.alerts.get().cloned(),
        }
    }

    /// The context of a request the door admitted outside a chat (the Mini
    /// App, an MCP client): private, the admitted person, in their language.
    pub(super) fn context_for(&self, admitted: &Admitted) -> ToolContext {
        self.context(&TurnScope::admitted(admitted), None)
    }

    /// Runs one call in `ctx` under the time limit, in its span, counted.
    pub(super) async fn run(
        &self,
        tool: &Tool,
        call: &ToolCall,
        ctx: ToolContext,
        args: serde_json::Value,
    ) -> Result<ToolOutput, ToolError> {
        calls::run_tool(tool, call, self.level_of(tool), ctx, args, self.timeout).await
    }
}
