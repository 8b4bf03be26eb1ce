//! Running the model's tool calls: argument parsing that forgives what
//! providers send, unknown tools, timeouts, and the text each result becomes.

use std::time::{Duration, Instant};

use handlers::{ToolContext, ToolError, ToolOutput};
use serde_json::Value;
use tracing::Instrument;

use crate::engine::llm::ToolCall;
use crate::engine::tools::Tool;

/// The tool message sent back when the shopper declined a confirmation.
pub(crate) const DECLINED: &str =
    r#"{"status":"declined","message":"The shopper declined; nothing was done."}"#;

/// Parses a call's argument text into a JSON object. `""` and `"null"` mean
/// no arguments; a JSON string holding an object (double-encoded) is unwrapped.
pub(crate) fn parse_arguments(raw: &str) -> Result<Value, String> {
    let trimmed = raw.trim();
    if trimmed.is_empty() || trimmed == "null" || trimmed == "{}" {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(trimmed) {
        Ok(Value::Object(map)) => Ok(Value::Object(map)),
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(Value::Object(map)) => Ok(Value::Object(map)),
            _ => Err("the arguments must be a JSON object, not a string".to_owned()),
        },
        Ok(Value::Null) => Ok(Value::Object(Default::default())),
        Ok(other) => Err(format!("the arguments must be a JSON object, not {}", json_kind(&other))),
        Err(e) => Err(format!("the arguments are not valid JSON ({e})")),
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The text sent back to the model for a call whose arguments could not be read.
pub(crate) fn bad_arguments_message(tool: &str, why: &str) -> String {
    format!("Error: could not read the arguments of `{tool}`: {why}. Call it again with a JSON object.")
}

/// The text sent back to the model for a tool that does not exist.
pub(crate) fn unknown_tool_message(name: &str, offered: &[Tool]) -> String {
    let names: Vec<&str> = offered.iter().map(|t| t.name()).collect();
    format!("Error: there is no tool named `{name}`. Available tools: {}.", names.join(", "))
}

/// The tool message text of a finished call.
pub(crate) fn result_text(result: &Result<ToolOutput, ToolError>) -> String {
    match result {
        Ok(out) => out.data.to_string(),
        Err(e) => e.model_message(),
    }
}

/// Runs one tool call with a time limit, in a span with its name, call id,
/// duration and outcome.
pub(crate) async fn run_tool(
    tool: &Tool,
    call: &ToolCall,
    level: handlers::Level,
    ctx: ToolContext,
    args: Value,
    limit: Duration,
) -> Result<ToolOutput, ToolError> {
    let name = tool.name();
    let span = tracing::info_span!("tool", name, call_id = %call.id);
    // The trace's span of the call: arguments and result only with capture_content.
    let traced = crate::infra::otel::tool_span(name, &call.id, level.as_str());
    let capture = crate::infra::otel::capture_content() && !traced.is_disabled();
    if capture {
        traced.record("gen_ai.tool.call.arguments", args.to_string().as_str());
    }
    let outcome_of = traced.clone();
    async move {
        let started = Instant::now();
        let result = match tokio::time::timeout(limit, tool.invoke(ctx, args)).await {
            Ok(result) => result,
            Err(_) => Err(ToolError::Timeout(limit.as_secs())),
        };
        let ms = started.elapsed().as_millis() as u64;
        let outcome = match &result {
            Ok(_) => "ok",
            Err(ToolError::Upstream(_) | ToolError::Timeout(_) | ToolError::Service { .. }) => "failed",
            Err(_) => "error",
        };
        outcome_of.record("mallbot.tool.outcome", outcome);
        match &result {
            Ok(out) if capture => {
                outcome_of.record("gen_ai.tool.call.result", out.data.to_string().as_str());
            }
            Ok(_) => {}
            Err(e) => crate::infra::otel::record_error(&outcome_of, error_type(e)),
        }
        metrics::counter!(crate::infra::ops::TOOL_CALLS, "tool" => name, "outcome" => outcome).increment(1);
        metrics::histogram!(crate::infra::ops::TOOL_SECONDS, "tool" => name)
            .record(started.elapsed().as_secs_f64());
        match &result {
            Ok(_) => tracing::info!(duration_ms = ms, outcome = "ok", "tool call"),
            Err(e @ (ToolError::Upstream(_) | ToolError::Timeout(_) | ToolError::Service { .. })) => {
                tracing::warn!(duration_ms = ms, outcome = "failed", error = %e, "tool call")
            }
            Err(e) => tracing::info!(duration_ms = ms, outcome = "error", error = %e, "tool call"),
        }
        result
    }
    .instrument(span)
    .instrument(traced)
    .await
}

/// `error.type` of a failed tool call in the trace.
fn error_type(error: &ToolError) -> &'static str {
    match error {
        ToolError::InvalidArguments { .. } => "invalid_arguments",
        ToolError::NotFound(_) => "not_found",
        ToolError::Refused { code, .. } => code,
        ToolError::Upstream(_) => "upstream",
        ToolError::Timeout(_) => "timeout",
        ToolError::NotAllowed(_) => "not_allowed",
        ToolError::Service { .. } => "service",
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    fn forgiving_argument_parsing() {
        assert_eq!(parse_arguments("").unwrap(), json!({}));
        assert_eq!(parse_arguments("null").unwrap(), json!({}));
        assert_eq!(parse_arguments(r#"{"keyword":"跑鞋"}"#).unwrap(), json!({"keyword": "跑鞋"}));
        assert_eq!(parse_arguments(r#""{\"keyword\":\"x\"}""#).unwrap(), json!({"keyword": "x"}));
        let e = parse_arguments("{keyword: x").unwrap_err();
        assert!(e.contains("not valid JSON"), "{e}");
        let e = parse_arguments("[1,2]").unwrap_err();
        assert!(e.contains("an array"), "{e}");
    }
}
