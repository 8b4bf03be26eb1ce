//! A tool added in one place works in basic mode: `find_restroom` below is
//! defined only in this file, declares how basic mode recognises and answers
//! for it (`offline = RESTROOM_OFFLINE`), and the offline planner calls it and
//! words its typed result with no change to the planner. The `/help` text and
//! the tools offered to the model list it too, and an MCP client gets its
//! words and its typed result with the schema the result declares.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use handlers::basic::{Call, Said, Step};
use handlers::general::NoArguments;
use handlers::{Lang, OfflineHook, ToolContext, ToolOutput, ToolResult, tool_function};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::Config;
use mallbot::state::MemoryStore;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// Where the nearest restroom is.
#[derive(Debug, Serialize, Deserialize, schemars::JsonSchema)]
struct Restroom {
    floor: i32,
    near: String,
}

/// Tell the shopper where the nearest restroom is.
#[tool_function(level = "safe", scope = "both", offline = RESTROOM_OFFLINE)]
async fn find_restroom(_ctx: &ToolContext, _args: NoArguments) -> ToolResult<Restroom> {
    Ok(ToolOutput::new(Restroom { floor: 2, near: "the escalators".into() }))
}

static RESTROOM_OFFLINE: OfflineHook = OfflineHook::new(asks_for_restroom, restroom_answer);

fn asks_for_restroom(said: &Said) -> Option<Step> {
    let text = said.text().to_lowercase();
    let asked = ["洗手间", "厕所", "卫生间", "restroom", "toilet"].iter().any(|w| text.contains(w));
    asked.then(|| Step::Call(Call::new("find_restroom", json!({}))))
}

fn restroom_answer(lang: Lang, data: &Value) -> Option<String> {
    let restroom = Restroom::deserialize(data).ok()?;
    Some(match lang {
        Lang::En => {
            format!("The nearest restroom is on floor {}, next to {}.", restroom.floor, restroom.near)
        }
        _ => format!("最近的洗手间在 {} 楼，{}旁边。", restroom.floor, "扶梯"),
    })
}

fn app() -> App {
    let mut config = Config::default();
    config.bot.rate_limit_per_minute = 0;
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    App::with_parts(config, mall, Arc::new(MemoryStore::new())).unwrap()
}

#[tokio::test]
async fn a_tool_declared_in_its_own_file_works_in_basic_mode() {
    let app = app();
    let zh = app.router.dispatch(&MessageContext::private("console", 21, "请问洗手间", Lang::Zh)).await;
    assert_eq!(zh.text, "最近的洗手间在 2 楼，扶梯旁边。");
    let en =
        app.router.dispatch(&MessageContext::private("console", 22, "is there a restroom?", Lang::En)).await;
    assert_eq!(en.text, "The nearest restroom is on floor 2, next to the escalators.");
}

#[test]
fn the_registry_and_help_list_it_with_the_others() {
    let tool = handlers::find("find_restroom").unwrap();
    assert_eq!(tool.description, "Tell the shopper where the nearest restroom is.");
    assert!(handlers::find("navigate_to_store").is_some());
    let names: Vec<&str> = handlers::all().iter().map(|t| t.name).collect();
    assert!(names.contains(&"find_restroom"), "{names:?}");
    let help = mallbot::telegram::texts::help(Lang::En, handlers::all(), false);
    assert!(help.contains("\n• Tell the shopper where the nearest restroom is.\n"), "{help}");
    assert!(help.contains("🧭 Directions:"), "declared lines stay: {help}");
}

#[tokio::test]
async fn an_mcp_client_gets_its_words_and_its_typed_result() {
    use rmcp::ServiceExt;
    use rmcp::model::CallToolRequestParams;

    let mut config = Config::default();
    config.bot.language = Lang::En;
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    let app = App::with_parts(config, mall, Arc::new(MemoryStore::new())).unwrap();
    let (server_side, client_side) = tokio::io::duplex(64 * 1024);
    let server = mallbot::mcp::MallServer::new(app);
    tokio::spawn(async move { server.serve(server_side).await.unwrap().waiting().await });
    let client = ().serve(client_side).await.unwrap();

    let tools = client.peer().list_all_tools().await.unwrap();
    let tool = tools.iter().find(|tool| tool.name == "find_restroom").expect("listed over MCP");
    let schema = Value::Object((**tool.output_schema.as_ref().expect("an outputSchema")).clone());
    assert_eq!(schema["type"], "object", "{schema}");
    assert_eq!(schema["properties"]["floor"]["type"], "integer", "{schema}");
    assert_eq!(schema["properties"]["near"]["type"], "string", "{schema}");

    let result = client.peer().call_tool(CallToolRequestParams::new("find_restroom")).await.unwrap();
    let text: Vec<String> =
        result.content.iter().filter_map(|c| c.as_text().map(|t| t.text.clone())).collect();
    assert_eq!(text, ["The nearest restroom is on floor 2, next to the escalators."]);
    assert_eq!(result.structured_content, Some(json!({"floor": 2, "near": "the escalators"})));
    assert_ne!(result.is_error, Some(true));
    client.cancel().await.unwrap();
}
