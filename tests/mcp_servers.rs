//! MCP servers as tools inside the bot (`[mcp.servers.NAME]`), through the
//! router: a tiny parking server over stdio (this very test executable,
//! started again in server mode) lends its tools as `parking__*`; a safe
//! lookup runs, a `confirm` payment waits for the press and runs once, and
//! the server killed in the middle of a call is a tool error the bot answers
//! with; its tools are withdrawn while it cannot start, `/health` says so,
//! and they come back with it.
//!
//! Runs without the test harness (`harness = false`): with `MCP_FIXTURE_DIR`
//! set, the executable is the parking server on stdin/stdout instead.

#![allow(clippy::unwrap_used)]

#[allow(dead_code)]
#[path = "support/scripted.rs"]
mod scripted;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use handlers::{Lang, Level};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::ServerState;
use mallbot::config::{Config, McpServerConfig, ToolOverride};
use mallbot::state::MemoryStore;
use mallbot::{ConfirmationPress, PressCheck};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, InitializeResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use scripted::{ScriptedModel, calls, text};
use serde_json::{Value, json};

const FIXTURE: &str = "MCP_FIXTURE_DIR";
/// The longest any wait here lasts.
const BOUND: Duration = Duration::from_secs(30);

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    if let Ok(dir) = std::env::var(FIXTURE) {
        runtime.block_on(parking_server(PathBuf::from(dir)));
        return;
    }
    let filter: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with('-')).collect();
    let name = "a_bot_uses_an_mcp_servers_tools_with_confirmation_and_survives_its_death";
    if !filter.is_empty() && !filter.iter().any(|f| name.contains(f.as_str())) {
        println!("0 passed, 0 failed");
        return;
    }
    runtime.block_on(a_bot_uses_an_mcp_servers_tools_with_confirmation_and_survives_its_death());
    println!("test {name} ... ok");
    println!("1 passed, 0 failed");
}

// ---- the parking server ----

#[derive(Clone)]
struct Parking {
    dir: PathBuf,
}

fn tool(name: &'static str, description: &'static str, schema: Value) -> rmcp::model::Tool {
    let Value::Object(schema) = schema else { unreachable!() };
    rmcp::model::Tool::new(name, description, Arc::new(schema))
}

fn plate_schema() -> Value {
    json!({"type": "object", "properties": {"plate": {"type": "string"}}, "required": ["plate"]})
}

impl ServerHandler for Parking {
    fn get_info(&self) -> InitializeResult {
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![
            tool("find_car", "Where a car is parked, by its plate.", plate_schema()),
            tool("pay_ticket", "Pay the parking ticket of a car.", plate_schema()),
            tool("hang", "Never answers.", json!({"type": "object", "properties": {}})),
        ]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let plate = request.arguments.as_ref().and_then(|a| a.get("plate")).cloned().unwrap_or(Value::Null);
        let result: Value = match request.name.as_ref() {
            "find_car" => {
                json!({"structuredContent": {"plate": plate, "spot": "B2-117"}, "content": [{"type": "text", "text": "B2-117"}]})
            }
            "pay_ticket" => {
                let mut paid = std::fs::read_to_string(self.dir.join("paid.log")).unwrap_or_default();
                paid.push_str(&format!("{plate}\n"));
                std::fs::write(self.dir.join("paid.log"), paid).unwrap();
                json!({"structuredContent": {"paid": true, "plate": plate}, "content": [{"type": "text", "text": "paid"}]})
            }
            "hang" => {
                std::fs::write(self.dir.join("hang.pid"), std::process::id().to_string()).unwrap();
                std::future::pending::<()>().await;
                unreachable!()
            }
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        let result: CallToolResult = serde_json::from_value(result).unwrap();
        Ok(result.into())
    }
}

async fn parking_server(dir: PathBuf) {
    if dir.join("hold").exists() {
        // The operator's "the service is down" switch: exit before the handshake.
        std::process::exit(3);
    }
    let mut starts = std::fs::read_to_string(dir.join("starts.log")).unwrap_or_default();
    starts.push_str(&format!("{}\n", std::process::id()));
    std::fs::write(dir.join("starts.log"), starts).unwrap();
    let running = Parking { dir }.serve(rmcp::transport::stdio()).await.unwrap();
    let _ = running.waiting().await;
}

// ---- the bot ----

struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|s| s.lines().count()).unwrap_or(0)
}

async fn until(what: &str, check: impl Fn() -> bool) {
    let deadline = tokio::time::Instant::now() + BOUND;
    while !check() {
        assert!(tokio::time::Instant::now() < deadline, "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

async fn mcp_health(app: &App) -> String {
    let report = mallbot::health::collect(app).await;
    report
        .checks
        .iter()
        .filter(|c| c.name == "mcp server")
        .map(|c| c.detail.clone())
        .collect::<Vec<_>>()
        .join("\n")
}

async fn a_bot_uses_an_mcp_servers_tools_with_confirmation_and_survives_its_death() {
    let dir = Dir(std::env::temp_dir().join(format!("mallbot-mcp-servers-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let mut config = Config::default();
    config.bot.rate_limit_per_minute = 0;
    config.bot.language = Lang::En;
    config.mcp.servers.insert(
        "parking".into(),
        McpServerConfig {
            command: std::env::current_exe().unwrap().to_str().unwrap().to_owned(),
            env: [(FIXTURE.to_owned(), dir.0.to_str().unwrap().into())].into(),
            ..McpServerConfig::default()
        },
    );
    for safe in ["parking__find_car", "parking__hang"] {
        config.tools.insert(safe.into(), ToolOverride { level: Level::Safe });
    }
    config.validate().unwrap();
    let model = ScriptedModel::new(vec![]);
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    let app = App::with_model(config, mall, Arc::new(MemoryStore::new()), Arc::new(model.clone()));
    app.start_mcp_servers();
    let up = |n: usize| {
        move |s: &[mallbot::ServerStatus]| s.iter().all(|s| s.state == ServerState::Up && s.tools == n)
    };
    assert!(app.remote.wait_for(BOUND, up(3)).await, "the server never came up: {:?}", app.remote.status());
    assert_eq!(
        mcp_health(&app).await,
        "parking: up, 3 tools: parking__find_car (safe), parking__hang (safe), parking__pay_ticket (confirm)"
    );
    let say = |text: &str| MessageContext::private("console", 5, text, Lang::En);

    // A safe tool of the server, called by the model like any other.
    model.push(calls(&[("parking__find_car", r#"{"plate":"沪A12345"}"#)]));
    model.push(text("Your car is at B2-117."));
    let reply = app.router.dispatch(&say("where did I park? 沪A12345")).await;
    assert_eq!(reply.text, "Your car is at B2-117.");
    let offered = &model.seen()[0].tools;
    for name in ["parking__find_car", "parking__pay_ticket", "parking__hang", "search_products"] {
        assert!(offered.contains(&name), "{name} offered: {offered:?}");
    }
    let results = model.last_tool_results();
    assert!(results[0].1.contains("B2-117") && results[0].1.contains("沪A12345"), "{results:?}");

    // A `confirm` tool (the servers' default level): nothing runs before the press.
    model.push(calls(&[("parking__pay_ticket", r#"{"plate":"沪A12345"}"#)]));
    let reply = app.router.dispatch(&say("pay my parking")).await;
    let prompt = reply.confirmation.expect("a confirmation");
    assert!(reply.text.starts_with("Please confirm:"), "{}", reply.text);
    assert!(reply.text.contains("parking__pay_ticket"), "{}", reply.text);
    assert_eq!(lines(&dir.0.join("paid.log")), 0, "nothing paid before the press");
    let press = ConfirmationPress { token: prompt.token.clone(), user_id: 5, chat_id: 5, approve: true };
    let PressCheck::Accepted { claim, .. } = app.router.press(&press).await else { panic!("press refused") };
    model.push(text("Paid."));
    let reply = app.router.finish(claim).await;
    assert_eq!(reply.text, "Paid.");
    assert_eq!(lines(&dir.0.join("paid.log")), 1, "paid once");
    assert!(model.last_tool_results()[0].1.contains(r#""paid":true"#), "{:?}", model.last_tool_results());
    let again = app.router.press(&press).await;
    assert!(matches!(again, PressCheck::AlreadyDone { .. }), "a second press does nothing");
    assert_eq!(lines(&dir.0.join("paid.log")), 1);

    // The server killed in the middle of a call: a tool error, and the bot answers.
    std::fs::write(dir.0.join("hold"), "").unwrap();
    model.push(calls(&[("parking__hang", "{}")]));
    model.push(text("Sorry, the parking service is not answering right now."));
    let router = app.router.clone();
    let turn = tokio::spawn(async move { router.dispatch(&say("is the parking open?")).await });
    let pid_file = dir.0.join("hang.pid");
    until("the call to reach the server", || pid_file.exists()).await;
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(std::process::Command::new("kill").args(["-9", pid.trim()]).status().unwrap().success());
    let reply = tokio::time::timeout(BOUND, turn).await.expect("the turn ended").unwrap();
    assert_eq!(reply.text, "Sorry, the parking service is not answering right now.");
    let results = model.last_tool_results();
    assert!(results[0].1.starts_with("Error: the `parking` service"), "{results:?}");

    // While it cannot start, its tools are withdrawn and /health says so.
    let down = |s: &[mallbot::ServerStatus]| {
        s.iter().all(|s| matches!(s.state, ServerState::Down(_)) && s.tools == 0)
    };
    assert!(app.remote.wait_for(BOUND, down).await, "{:?}", app.remote.status());
    assert!(app.router.tools_for(false, true).iter().all(|t| !t.name().starts_with("parking__")));
    let health = mcp_health(&app).await;
    assert!(health.starts_with("parking: down (") && health.ends_with("0 tools"), "{health}");
    model.push(calls(&[("parking__find_car", r#"{"plate":"沪A12345"}"#)]));
    model.push(text("Parking is unavailable."));
    let reply = app.router.dispatch(&say("where is my car?")).await;
    assert_eq!(reply.text, "Parking is unavailable.");
    assert!(
        model.last_tool_results()[0].1.contains("no tool named `parking__find_car`"),
        "{:?}",
        model.last_tool_results()
    );

    // Back: restarted by the bot, its tools offered again.
    std::fs::remove_file(dir.0.join("hold")).unwrap();
    assert!(app.remote.wait_for(BOUND, up(3)).await, "never came back: {:?}", app.remote.status());
    assert_eq!(lines(&dir.0.join("starts.log")), 2, "started again once it could");
    model.push(calls(&[("parking__find_car", r#"{"plate":"沪A12345"}"#)]));
    model.push(text("Your car is at B2-117."));
    let reply = app.router.dispatch(&say("where is my car now?")).await;
    assert_eq!(reply.text, "Your car is at B2-117.");
    assert!(model.last_tool_results()[0].1.contains("B2-117"));
}
