//! A `progress` function must be `fn(Lang, &ArgsType) -> String`.

use handlers::{ToolContext, ToolOutput, ToolResult, tool_function};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    keyword: String,
}

fn progress(keyword: &str) -> String {
    format!("searching {keyword}")
}

/// Searches.
#[tool_function(level = "safe", scope = "both", progress = progress)]
async fn search(_ctx: &ToolContext, args: Args) -> ToolResult {
    Ok(ToolOutput::new(serde_json::json!(args.keyword)))
}

fn main() {}
