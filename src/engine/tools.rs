//! [`Tool`]: a tool the router can run — one of the registry's
//! (`#[tool_function]`, [`handlers::ToolSpec`]) or one lent by an MCP server
//! (`[mcp.servers.NAME]`, [`RemoteTool`]) — and [`RemoteTools`], the lent
//! tools of the moment, which come and go with their servers.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, RwLock};

use async_trait::async_trait;
use handlers::{Lang, Level, Scope, ToolContext, ToolResult, ToolSpec};
use serde_json::Value;

/// A tool the router can offer to the model and run.
#[derive(Clone)]
pub enum Tool {
    /// From the registry.
    Builtin(&'static ToolSpec),
    /// Lent by an MCP server while it is connected.
    Remote(Arc<RemoteTool>),
}

impl std::fmt::Debug for Tool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Tool::Builtin(spec) => write!(f, "Builtin({})", spec.name),
            Tool::Remote(tool) => write!(f, "Remote({})", tool.name),
        }
    }
}

impl From<&'static ToolSpec> for Tool {
    fn from(spec: &'static ToolSpec) -> Self {
        Tool::Builtin(spec)
    }
}

impl Tool {
    /// The name the model calls it by (`search_products`, `parking__pay`).
    pub fn name(&self) -> &'static str {
        match self {
            Tool::Builtin(spec) => spec.name,
            Tool::Remote(tool) => tool.name,
        }
    }

    /// What the model reads about it.
    pub(crate) fn description(&self) -> &str {
        match self {
            Tool::Builtin(spec) => spec.description,
            Tool::Remote(tool) => &tool.description,
        }
    }

    /// The JSON Schema of its arguments.
    pub(crate) fn parameters(&self) -> &Value {
        match self {
            Tool::Builtin(spec) => spec.parameters(),
            Tool::Remote(tool) => &tool.parameters,
        }
    }

    /// Its level before the operator's `[tools.NAME]` override.
    pub(crate) fn default_level(&self) -> Level {
        match self {
            Tool::Builtin(spec) => spec.level,
            Tool::Remote(tool) => tool.level,
        }
    }

    /// Where it may be used.
    pub(crate) fn scope(&self) -> Scope {
        match self {
            Tool::Builtin(spec) => spec.scope,
            Tool::Remote(tool) => tool.scope,
        }
    }

    /// In groups, offered only when the bot was addressed.
    pub(crate) fn require_at(&self) -> bool {
        match self {
            Tool::Builtin(spec) => spec.require_at,
            Tool::Remote(_) => false,
        }
    }

    /// The registry entry, for a builtin tool.
    pub(crate) fn spec(&self) -> Option<&'static ToolSpec> {
        match self {
            Tool::Builtin(spec) => Some(spec),
            Tool::Remote(_) => None,
        }
    }

    /// The status line while a call runs.
    pub(crate) fn progress_line(&self, lang: Lang, args: &Value) -> String {
        match self {
            Tool::Builtin(spec) => spec.progress_line(lang, args),
            Tool::Remote(tool) => (lang.texts().mcp.remote_progress)(&tool.server),
        }
    }

    /// Runs the tool with raw JSON arguments.
    pub(crate) async fn invoke(&self, ctx: ToolContext, args: Value) -> ToolResult {
        match self {
            Tool::Builtin(spec) => spec.invoke(ctx, args).await,
            Tool::Remote(tool) => tool.caller.call(&tool.remote_name, args).await,
        }
    }
}

/// Calls tools on one MCP server.
#[async_trait]
pub(crate) trait RemoteCaller: Send + Sync {
    /// Calls `tool` (the server's own name) with `args`; failures and the
    /// server's error results come back as [`handlers::ToolError::Service`].
    async fn call(&self, tool: &str, args: Value) -> ToolResult;
}

/// A tool an MCP server lends the bot.
pub struct RemoteTool {
    /// `SERVER__tool`, as the model and `[tools.NAME]` know it.
    pub(crate) name: &'static str,
    /// The server's name in `[mcp.servers.NAME]`.
    pub(crate) server: String,
    /// The tool's name on the server.
    pub(crate) remote_name: String,
    pub(crate) description: String,
    /// The server's input schema.
    pub(crate) parameters: Value,
    /// The server's level (`[mcp.servers.NAME] level`, default `confirm`).
    pub(crate) level: Level,
    /// The server's scope (`[mcp.servers.NAME] scope`, default `private`).
    pub(crate) scope: Scope,
    /// The connection that runs it.
    pub(crate) caller: Arc<dyn RemoteCaller>,
}

/// `SERVER__tool`.
pub(crate) fn remote_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
}

/// A name that lives for the whole process: the names of lent tools are
/// few and come back on every reconnection, so each is kept once.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
    let mut names = NAMES.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let set = names.get_or_insert_with(HashSet::new);
    if let Some(known) = set.get(name) {
        return known;
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    set.insert(leaked);
    leaked
}

/// How one MCP server is doing, for `mallbot check` and `/health`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    /// Not tried yet.
    Starting,
    /// Connected; its tools are offered.
    Up,
    /// Not reachable (down at start, or died); its tools are withdrawn
    /// and the connection is tried again.
    Down(String),
}

/// One server's line.
#[derive(Debug, Clone)]
pub struct ServerStatus {
    pub(crate) name: String,
    pub state: ServerState,
    /// Tools offered now (0 while down).
    pub tools: usize,
}

#[derive(Default)]
struct Lent {
    tools: Vec<Tool>,
    state: Option<ServerState>,
}

/// The tools lent by MCP servers right now, by server. Filled by the
/// connection tasks (`mcp::client`), read by the router on every turn.
#[derive(Default)]
pub struct RemoteTools {
    servers: RwLock<BTreeMap<String, Lent>>,
    changed: tokio::sync::Notify,
}

impl RemoteTools {
    /// Registers a configured server before its first connection.
    pub(crate) fn expect(&self, server: &str) {
        self.write().entry(server.to_owned()).or_default().state = Some(ServerState::Starting);
        self.changed.notify_waiters();
    }

    /// The server is up with these tools.
    pub(crate) fn offer(&self, server: &str, tools: Vec<Tool>) {
        let mut servers = self.write();
        let lent = servers.entry(server.to_owned()).or_default();
        lent.tools = tools;
        lent.state = Some(ServerState::Up);
        drop(servers);
        self.changed.notify_waiters();
    }

    /// The server is down: its tools are withdrawn.
    pub(crate) fn withdraw(&self, server: &str, why: &str) {
        let mut servers = self.write();
        let lent = servers.entry(server.to_owned()).or_default();
        lent.tools.clear();
        lent.state = Some(ServerState::Down(why.to_owned()));
        drop(servers);
        self.changed.notify_waiters();
    }

    /// Every lent tool, sorted by name.
    pub(crate) fn tools(&self) -> Vec<Tool> {
        let servers = self.servers.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        let mut tools: Vec<Tool> = servers.values().flat_map(|lent| lent.tools.iter().cloned()).collect();
        tools.sort_by_key(|t| t.name());
        tools
    }

    /// The lent tool of that name, if its server is up.
    pub(crate) fn find(&self, name: &str) -> Option<Tool> {
        let servers = self.servers.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        servers.values().flat_map(|lent| lent.tools.iter()).find(|t| t.name() == name).cloned()
    }

    /// Each configured server, its state and tool count.
    pub fn status(&self) -> Vec<ServerStatus> {
        let servers = self.servers.read().unwrap_or_else(|poisoned| poisoned.into_inner());
        servers
            .iter()
            .map(|(name, lent)| ServerStatus {
                name: name.clone(),
                state: lent.state.clone().unwrap_or(ServerState::Starting),
                tools: lent.tools.len(),
            })
            .collect()
    }

    /// Waits until no server is still `Starting` (each has been tried once),
    /// or the time is up.
    pub(crate) async fn settled(&self, limit: std::time::Duration) {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                if self.status().iter().all(|s| s.state != ServerState::Starting) {
                    return;
                }
                notified.await;
            }
        };
        let _ = tokio::time::timeout(limit, wait).await;
    }

    /// Waits until `check` holds for the servers' status, or the time is up;
    /// whether it held.
    pub async fn wait_for(
        &self,
        limit: std::time::Duration,
        check: impl Fn(&[ServerStatus]) -> bool,
    ) -> bool {
        let wait = async {
            loop {
                let notified = self.changed.notified();
                if check(&self.status()) {
                    return;
                }
                notified.await;
            }
        };
        tokio::time::timeout(limit, wait).await.is_ok()
    }

    fn write(&self) -> std::sync::RwLockWriteGuard<'_, BTreeMap<String, Lent>> {
        self.servers.write().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Unused;

    #[async_trait]
    impl RemoteCaller for Unused {
        async fn call(&self, _tool: &str, _args: Value) -> ToolResult {
            unreachable!("the status line calls nothing")
        }
    }

    #[test]
    fn a_lent_tools_status_line_names_its_server_in_the_shoppers_language() {
        let tool = Tool::Remote(Arc::new(RemoteTool {
            name: "parking__find_spot",
            server: "parking".into(),
            remote_name: "find_spot".into(),
            description: "Finds a free parking spot.".into(),
            parameters: serde_json::json!({"type": "object"}),
            level: Level::Safe,
            scope: Scope::Private,
            caller: Arc::new(Unused),
        }));
        let args = serde_json::json!({});
        assert_eq!(tool.progress_line(Lang::Zh, &args), "⏳ 正在询问 parking…");
        assert_eq!(tool.progress_line(Lang::ZhHant, &args), "⏳ 正在詢問 parking…");
        assert_eq!(tool.progress_line(Lang::En, &args), "⏳ Asking parking…");
    }
}
