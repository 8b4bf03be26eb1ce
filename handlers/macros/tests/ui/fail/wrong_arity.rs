//! Tool functions with one and with three arguments.

use handlers::{ToolContext, ToolOutput, ToolResult, tool_function};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    keyword: String,
}

/// Searches.
#[tool_function(level = "safe", scope = "both")]
async fn search(args: Args) -> ToolResult {
    Ok(ToolOutput::new(serde_json::json!(args.keyword)))
}

/// Searches with an extra argument.
#[tool_function(level = "safe", scope = "both")]
async fn search_more(_ctx: &ToolContext, args: Args, _page: u32) -> ToolResult {
    Ok(ToolOutput::new(serde_json::json!(args.keyword)))
}

fn main() {}
