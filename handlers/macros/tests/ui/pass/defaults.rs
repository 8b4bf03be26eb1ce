//! The fewest options: the function's name, no @ needed, no preview; a tool without arguments.

use handlers::{Level, Scope, ToolContext, ToolOutput, ToolResult, tool_function};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Nothing {}

/// Says what time the mall opens.
#[tool_function(level = "safe", scope = "both")]
async fn opening_time(_ctx: &ToolContext, _args: Nothing) -> ToolResult {
    Ok(ToolOutput::new(serde_json::json!("10:00")))
}

fn main() {
    let spec = handlers::find("opening_time").expect("registered under the function's name");
    assert_eq!((spec.level, spec.scope, spec.require_at), (Level::Safe, Scope::Both, false));
    assert_eq!(spec.description, "Says what time the mall opens.");
    assert!(spec.preview.is_none());
    assert_eq!(
        *spec.parameters(),
        serde_json::json!({"type": "object", "properties": {}})
    );
    // The mall's own tools are there too: the registry spans crates.
    assert!(handlers::find("search_products").is_some());
}
