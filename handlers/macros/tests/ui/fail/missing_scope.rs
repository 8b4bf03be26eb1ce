//! No scope given.

use handlers::{ToolContext, ToolOutput, ToolResult, tool_function};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    keyword: String,
}

/// Searches.
#[tool_function(level = "safe")]
async fn search(_ctx: &ToolContext, args: Args) -> ToolResult {
    Ok(ToolOutput::new(serde_json::json!(args.keyword)))
}

fn main() {}
