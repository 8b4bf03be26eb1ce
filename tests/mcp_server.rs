//! `mallbot mcp` as other assistants see it: real MCP clients over both
//! transports (the rmcp client here, over stdio and streamable HTTP; the
//! official Python `mcp` package over HTTP) list the tools and compare them
//! with the registry, search, and add to the cart with the confirmation
//! accepted (one cart line), declined (none) and from a client without
//! elicitation (refused, nothing done). The HTTP listener's bearer token and
//! Host/Origin checks are tried with plain requests.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;

use std::sync::{Arc, Mutex};

use handlers::Level;
use process::{Process, TempDir, free_addr, wait_for_listener};
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientConfig, ElicitRequestParams, ElicitResult, ElicitationAction,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use serde_json::{Value, json};

const TOKEN: &str = "mcp-test-token-5f2a";
const USER: i64 = 7;

/// A client that answers confirmations one way, or cannot be asked at all.
#[derive(Clone)]
struct Person {
    /// `None`: the client does not support elicitation.
    answer: Option<ElicitationAction>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl Person {
    fn new(answer: Option<ElicitationAction>) -> Self {
        Person { answer, asked: Arc::default() }
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

impl ClientHandler for Person {
    fn get_info(&self) -> ClientConfig {
        let capabilities =
            if self.answer.is_some() { json!({"elicitation": {"form": {}}}) } else { json!({}) };
        serde_json::from_value(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": capabilities,
            "clientInfo": {"name": "mallbot-test", "version": "1"},
        }))
        .unwrap()
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let message = match &request {
            ElicitRequestParams::FormElicitationParams { message, .. } => message.clone(),
            other => format!("{other:?}"),
        };
        self.asked.lock().unwrap().push(message);
        let action = self.answer.clone().unwrap_or(ElicitationAction::Decline);
        let content = (action == ElicitationAction::Accept).then(|| json!({}));
        Ok(serde_json::from_value(json!({"action": action, "content": content})).unwrap())
    }
}

/// The environment of a `mallbot mcp` on its own mall and state files.
fn env(dir: &TempDir) -> Vec<(&'static str, String)> {
    vec![
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_BOT__LANGUAGE", "en".to_owned()),
        ("MALLBOT_MCP__TOKEN", TOKEN.to_owned()),
        ("MALLBOT_MCP__USER_ID", USER.to_string()),
    ]
}

/// `mallbot mcp` started by the client over stdio, as a desktop client does.
async fn stdio_client(dir: &TempDir, person: Person) -> RunningService<RoleClient, Person> {
    stdio_client_with(dir, person, &[]).await
}

async fn stdio_client_with(
    dir: &TempDir,
    person: Person,
    extra: &[(&str, &str)],
) -> RunningService<RoleClient, Person> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mallbot"));
    for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
        command.env_remove(key);
    }
    command
        .arg("mcp")
        .current_dir(dir.path())
        .envs(env(dir))
        .envs(extra.iter().copied())
        .env("RUST_LOG", "warn");
    let transport = TokioChildProcess::new(command).unwrap();
    person.serve(transport).await.unwrap()
}

async fn http_client(url: &str, person: Person) -> RunningService<RoleClient, Person> {
    mallbot::mcp::install_tls_provider();
    let mut config = StreamableHttpClientTransportConfig::with_uri(url);
    config.auth_header = Some(TOKEN.to_owned());
    person.serve(StreamableHttpClientTransport::from_config(config)).await.unwrap()
}

async fn call(client: &RunningService<RoleClient, Person>, tool: &str, args: Value) -> CallToolResult {
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = args.as_object().cloned();
    client.peer().call_tool(params).await.unwrap()
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect::<Vec<_>>().join("\n")
}

async fn cart_lines(client: &RunningService<RoleClient, Person>) -> usize {
    let cart = call(client, "view_cart", json!({})).await;
    assert_ne!(cart.is_error, Some(true), "view_cart failed: {}", text(&cart));
    cart.structured_content.as_ref().unwrap()["items"].as_array().unwrap().len()
}

/// The tool list equals the registry: names, descriptions, schemas, and
/// hints that follow the levels.
async fn tools_match_the_registry(client: &RunningService<RoleClient, Person>) {
    let tools = client.peer().list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    let registry: Vec<&str> =
        handlers::all().iter().filter(|s| s.scope.allows(false)).map(|s| s.name).collect();
    assert_eq!(names, registry);
    for tool in &tools {
        let spec = handlers::find(&tool.name).unwrap();
        assert_eq!(tool.description.as_deref(), Some(spec.description), "{}", spec.name);
        assert_eq!(&Value::Object((*tool.input_schema).clone()), spec.parameters(), "{}", spec.name);
        let output = tool.output_schema.as_ref().map(|schema| Value::Object((**schema).clone()));
        assert_eq!(output, spec.output_schema.map(|schema| schema()), "{}", spec.name);
        assert_eq!(output.as_ref().and_then(|o| o["type"].as_str()), Some("object"), "{}", spec.name);
        let hints = tool.annotations.as_ref().unwrap();
        assert_eq!(hints.read_only_hint, Some(spec.level == Level::Safe), "{}", spec.name);
        assert_eq!(hints.destructive_hint, Some(spec.level == Level::Critical), "{}", spec.name);
    }
}

/// A search's first product: its id and name.
async fn find_product(client: &RunningService<RoleClient, Person>) -> (String, String) {
    let found = call(client, "search_products", json!({"keyword": "chilean cherries"})).await;
    assert_ne!(found.is_error, Some(true), "{}", text(&found));
    let data = found.structured_content.clone().unwrap();
    let first = &data["products"][0];
    assert!(!text(&found).is_empty(), "a short text beside the structured result");
    (first["product_id"].as_str().unwrap().to_owned(), first["name"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_desktop_client_over_stdio_confirms_declines_or_cannot_ask() {
    let dir = TempDir::new("mcp-stdio");

    // Accepting: the person sees the preview, one cart line appears.
    let yes = Person::new(Some(ElicitationAction::Accept));
    let client = stdio_client(&dir, yes.clone()).await;
    tools_match_the_registry(&client).await;
    let (product, name) = find_product(&client).await;
    assert_eq!(cart_lines(&client).await, 0);
    let added = call(&client, "add_to_cart", json!({"product_id": product, "quantity": 1})).await;
    assert_ne!(added.is_error, Some(true), "{}", text(&added));
    let asked = yes.asked();
    assert_eq!(asked.len(), 1, "one confirmation asked");
    assert!(asked[0].starts_with("Please confirm:\n"), "the Telegram button's text: {}", asked[0]);
    assert!(asked[0].contains("500g"), "the preview names the product ({name}): {}", asked[0]);
    assert_eq!(added.structured_content.as_ref().unwrap()["items"].as_array().unwrap().len(), 1);
    assert_eq!(cart_lines(&client).await, 1);
    client.cancel().await.unwrap();

    // Declining: nothing changes.
    let no = Person::new(Some(ElicitationAction::Decline));
    let client = stdio_client(&dir, no.clone()).await;
    let declined = call(&client, "clear_cart", json!({})).await;
    assert_eq!(no.asked().len(), 1);
    assert_eq!(declined.is_error, Some(true), "a declined call did not run");
    assert!(declined.structured_content.is_none(), "no result of the tool's output schema");
    assert!(text(&declined).contains("nothing was done"), "{}", text(&declined));
    assert_eq!(cart_lines(&client).await, 1, "the declined clear left the line");
    client.cancel().await.unwrap();

    // A client that cannot ask: refused with the reason, nothing done.
    let mute = Person::new(None);
    let client = stdio_client(&dir, mute.clone()).await;
    let refused = call(&client, "clear_cart", json!({})).await;
    assert_eq!(refused.is_error, Some(true));
    assert!(text(&refused).contains("does not support MCP elicitation"), "{}", text(&refused));
    assert!(mute.asked().is_empty());
    assert_eq!(cart_lines(&client).await, 1);
    client.cancel().await.unwrap();

    // An order (critical): the full order is shown, accepting places it once.
    let yes = Person::new(Some(ElicitationAction::Accept));
    let client = stdio_client(&dir, yes.clone()).await;
    let cart = call(&client, "view_cart", json!({})).await.structured_content.unwrap();
    let ordered = call(&client, "create_order", json!({"cart_id": cart["cart_id"]})).await;
    assert_ne!(ordered.is_error, Some(true), "{}", text(&ordered));
    let asked = yes.asked();
    assert!(asked[0].starts_with("Please check your order and confirm:\n"), "{}", asked[0]);
    assert!(asked[0].contains("500g"), "{}", asked[0]);
    let order_id =
        ordered.structured_content.as_ref().unwrap()["order"]["order_id"].as_str().unwrap().to_owned();
    let orders = call(&client, "list_orders", json!({})).await.structured_content.unwrap();
    assert_eq!(orders["total"], 1, "{orders}");
    assert_eq!(orders["orders"][0]["order_id"], order_id.as_str());
    client.cancel().await.unwrap();

    // With mcp.hide_unconfirmable, a client that cannot ask sees only safe tools.
    let client =
        stdio_client_with(&dir, Person::new(None), &[("MALLBOT_MCP__HIDE_UNCONFIRMABLE", "true")]).await;
    let listed: Vec<String> =
        client.peer().list_all_tools().await.unwrap().iter().map(|t| t.name.to_string()).collect();
    let safe: Vec<&str> = handlers::all()
        .iter()
        .filter(|s| s.scope.allows(false) && s.level == Level::Safe)
        .map(|s| s.name)
        .collect();
    assert_eq!(listed, safe);
    client.cancel().await.unwrap();
}

/// `mallbot mcp --listen` on a free port.
async fn http_server(
    dir: &TempDir,
    extra: &[(&'static str, String)],
) -> (Process, String, std::net::SocketAddr) {
    let addr = free_addr();
    let mut vars = env(dir);
    vars.extend(extra.iter().cloned());
    let server =
        Process::spawn("mallbot mcp --listen", &["mcp", "--listen", &addr.to_string()], &vars, dir.path());
    wait_for_listener(addr, &server).await;
    (server, format!("http://{addr}/mcp"), addr)
}

#[tokio::test]
async fn an_assistant_over_streamable_http_with_the_bearer_token() {
    let dir = TempDir::new("mcp-http");
    let (server, url, _) = http_server(&dir, &[]).await;

    let yes = Person::new(Some(ElicitationAction::Accept));
    let client = http_client(&url, yes.clone()).await;
    tools_match_the_registry(&client).await;
    let (product, _) = find_product(&client).await;
    let added = call(&client, "add_to_cart", json!({"product_id": product, "quantity": 2})).await;
    assert_ne!(added.is_error, Some(true), "{}", text(&added));
    assert_eq!(yes.asked().len(), 1);
    assert_eq!(cart_lines(&client).await, 1);
    client.cancel().await.unwrap();

    let no = Person::new(Some(ElicitationAction::Cancel));
    let client = http_client(&url, no.clone()).await;
    let declined = call(&client, "remove_from_cart", json!({"product_id": product})).await;
    assert_eq!(no.asked().len(), 1);
    assert_eq!(declined.is_error, Some(true), "{}", text(&declined));
    assert!(text(&declined).contains("declined"), "{}", text(&declined));
    assert_eq!(cart_lines(&client).await, 1);
    client.cancel().await.unwrap();

    let mute = Person::new(None);
    let client = http_client(&url, mute).await;
    let refused = call(&client, "clear_cart", json!({})).await;
    assert_eq!(refused.is_error, Some(true));
    assert_eq!(cart_lines(&client).await, 1);
    client.cancel().await.unwrap();
    drop(server);
}

#[tokio::test]
async fn the_http_listener_wants_the_token_and_refuses_foreign_hosts_and_origins() {
    let dir = TempDir::new("mcp-http-guard");
    let (server, url, addr) = http_server(&dir, &[]).await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}
    });
    let http = reqwest::Client::new();
    let post = |token: Option<&str>| {
        let mut request =
            http.post(&url).header("Accept", "application/json, text/event-stream").json(&initialize);
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request
    };
    assert_eq!(post(None).send().await.unwrap().status(), 401, "no token");
    assert_eq!(post(Some("wrong")).send().await.unwrap().status(), 401, "wrong token");
    assert_eq!(post(Some(TOKEN)).send().await.unwrap().status(), 200, "the right token");
    let rebound =
        post(Some(TOKEN)).header("Host", format!("attacker.example:{}", addr.port())).send().await.unwrap();
    assert_eq!(rebound.status(), 403, "a DNS-rebound Host is refused");
    let origin = post(Some(TOKEN)).header("Origin", "http://attacker.example").send().await.unwrap();
    assert_eq!(origin.status(), 403, "a foreign Origin is refused");
    drop(server);

    // Without a token the listener does not start, and says which key to set.
    let mut vars = env(&dir);
    vars.retain(|(key, _)| *key != "MALLBOT_MCP__TOKEN");
    let mut refused = Process::spawn(
        "mallbot mcp --listen (no token)",
        &["mcp", "--listen", &free_addr().to_string()],
        &vars,
        dir.path(),
    );
    assert!(!refused.exit_status().await.success());
    assert!(refused.log().contains("mcp.token"), "{}", refused.log());
}

/// The official Python SDK (`pip install mcp`), a client not written here.
#[tokio::test]
async fn the_official_python_client_lists_searches_and_confirms() {
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let has_mcp = std::process::Command::new(&python)
        .args(["-c", "import mcp.client.streamable_http"])
        .status()
        .is_ok_and(|s| s.success());
    if !has_mcp {
        let ci = std::env::var("CI").is_ok_and(|v| v == "true" || v == "1");
        assert!(!ci, "CI: the Python `mcp` package is missing ({python}); .ci/run installs it");
        eprintln!(
            "SKIPPED the_official_python_client_lists_searches_and_confirms: the Python `mcp` package is \
             not installed for {python} (python3 -m pip install --user mcp==1.26.0)"
        );
        return;
    }
    let dir = TempDir::new("mcp-python");
    let (server, url, _) = http_server(&dir, &[]).await;
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/mcp_client.py");
    let output = tokio::process::Command::new(&python).args([script, &url, TOKEN]).output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the Python client failed:\n{stderr}\n--- server ---\n{}", server.log());
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let registry: Vec<&str> =
        handlers::all().iter().filter(|s| s.scope.allows(false)).map(|s| s.name).collect();
    assert_eq!(report["tools"], json!(registry));
    assert_eq!(&report["add_to_cart_schema"], handlers::find("add_to_cart").unwrap().parameters());
    assert!(report["found"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(report["asked"].as_array().unwrap().len(), 2, "{report}");
    assert!(report["asked"][0].as_str().unwrap().starts_with("Please confirm:"), "{report}");
    assert_eq!(report["lines_after_accept"], 1, "{report}");
    assert_eq!(report["lines_after_decline"], 1, "{report}");
    assert_eq!(report["declined_is_error"], true, "a declined call did not run: {report}");
    assert!(report["declined_text"].as_str().unwrap().contains("nothing was done"), "{report}");
    // Every tool declares its result's schema, and the SDK checked each
    // structured result against it (it raises on one that does not match).
    for name in &registry {
        let declared = handlers::find(name).unwrap().output_schema.map(|schema| schema());
        assert_eq!(report["output_schemas"][name], declared.unwrap(), "{name}: {report}");
    }
    assert_eq!(report["validated"].as_object().unwrap().len(), 6, "{report}");
    assert_eq!(report["mute_is_error"], true, "{report}");
    assert!(report["mute_text"].as_str().unwrap().contains("elicitation"), "{report}");
    assert_eq!(report["lines_after_mute"], 1, "{report}");
}

/// An operator's level override changes the hints a client sees only
/// towards care: `add_to_cart` made safe still writes (not read-only), and
/// `search_products` made critical is announced as destructive.
#[tokio::test]
async fn hints_follow_the_override_but_never_call_a_writing_tool_read_only() {
    let dir = TempDir::new("mcp-hints-override");
    let extra = [
        ("MALLBOT_TOOLS__ADD_TO_CART__LEVEL", "safe"),
        ("MALLBOT_TOOLS__SEARCH_PRODUCTS__LEVEL", "critical"),
    ];
    let client = stdio_client_with(&dir, Person::new(None), &extra).await;
    let tools = client.peer().list_all_tools().await.unwrap();
    let hints = |name: &str| tools.iter().find(|t| t.name == name).unwrap().annotations.clone().unwrap();
    assert_eq!(hints("add_to_cart").read_only_hint, Some(false), "add_to_cart writes to the cart");
    assert_eq!(hints("search_products").destructive_hint, Some(true));
    assert_eq!(hints("search_products").read_only_hint, Some(false));
    assert_eq!(hints("view_cart").read_only_hint, Some(true));
    client.cancel().await.unwrap();
}

/// `Authorization: bearer …` (any case of the scheme, as RFC 9110 has it) is accepted.
#[tokio::test]
async fn the_bearer_scheme_is_matched_in_any_case() {
    let dir = TempDir::new("mcp-bearer-case");
    let (_server, url, _) = http_server(&dir, &[]).await;
    let initialize = json!({
        "jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "curl", "version": "1"}}
    });
    for scheme in ["Bearer", "bearer", "BEARER"] {
        let answer = reqwest::Client::new()
            .post(&url)
            .header("Accept", "application/json, text/event-stream")
            .header("Authorization", format!("{scheme} {TOKEN}"))
            .json(&initialize)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200, "{scheme}");
    }
}
