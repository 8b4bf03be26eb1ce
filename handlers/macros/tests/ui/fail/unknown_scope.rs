//! A scope that does not exist.

use handlers::{ToolContext, ToolOutput, ToolResult, tool_function};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    keyword: String,
}

/// Searches.
#[tool_function(level = "safe", scope = "public")]
async fn search(_ctx: &ToolContext, args: Args) -> ToolResult {
    Ok(ToolOutput::new(serde_json::json!(args.keyword)))
}

fn main() {}
