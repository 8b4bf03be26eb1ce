//! A typed result without JsonSchema: no output schema for MCP clients.

use handlers::{ToolContext, ToolOutput, ToolResult, general::NoArguments, tool_function};

#[derive(serde::Serialize)]
struct Hours {
    opens: String,
}

/// Opening hours.
#[tool_function(level = "safe", scope = "both")]
async fn hours(_ctx: &ToolContext, _args: NoArguments) -> ToolResult<Hours> {
    Ok(ToolOutput::new(Hours { opens: "10:00".into() }))
}

fn main() {}
