//! An argument struct without JsonSchema: no schema for the model.

use handlers::{ToolContext, ToolOutput, ToolResult, tool_function};

#[derive(serde::Deserialize)]
struct Args {
    keyword: String,
}

/// Searches.
#[tool_function(level = "safe", scope = "both")]
async fn search(_ctx: &ToolContext, args: Args) -> ToolResult {
    Ok(ToolOutput::new(serde_json::json!(args.keyword)))
}

fn main() {}
