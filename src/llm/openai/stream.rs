//! Assembling a streamed completion: [`StreamAccumulator`] takes the `data:`
//! payloads one by one and yields the same [`ChatResponse`] a plain answer
//! would, whatever dialect of tool-call deltas the provider speaks.

use serde_json::Value;

use super::draft::{Draft, DraftCall};
use super::wire::{self, WireCompletion, WireToolCall};
use crate::llm::{ChatResponse, Usage};

/// A stream payload that could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChunkError {
    /// The payload is not a JSON chunk; the raw text is kept.
    #[error("stream chunk is not JSON: {raw}")]
    NotJson { raw: String },
    /// The provider reported an error inside the stream.
    #[error("the provider reported an error in the stream: {message}")]
    Provider { message: String },
}

/// Accumulates the chunks of one streamed chat completion.
///
/// Tool-call deltas are matched to calls by `index` when there is one;
/// without an index (Ollama) or with `index: null` (Gemini) a delta continues
/// the current call unless it brings a different id, or a name while the
/// current call already has one and complete arguments. Empty or `null` ids
/// and names mean "unchanged".
#[derive(Debug, Default)]
pub struct StreamAccumulator {
    content: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    current: Option<usize>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    chunks: usize,
    done: bool,
}

#[derive(Debug, Default)]
struct PartialCall {
    index: Option<u64>,
    id: String,
    name: String,
    arguments: String,
}

impl StreamAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Takes one `data:` payload: a JSON chunk, or `[DONE]`.
    pub fn push_data(&mut self, data: &str) -> Result<(), ChunkError> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(());
        }
        let chunk: WireCompletion =
            serde_json::from_str(data).map_err(|_| ChunkError::NotJson { raw: data.to_owned() })?;
        if let Some(error) = chunk.error.as_ref().filter(|_| chunk.choices.is_empty()) {
            return Err(ChunkError::Provider { message: wire::error_text(error) });
        }
        self.push(chunk);
        Ok(())
    }

    /// Whether `[DONE]` arrived.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Whether any JSON chunk arrived.
    pub fn has_chunks(&self) -> bool {
        self.chunks > 0
    }

    /// The assembled response (see [`super::OpenAiClient`] for the
    /// normalisation); `tools_offered` allows recovering tool calls written as text.
    pub fn finish(self, tools_offered: bool) -> ChatResponse {
        self.into_draft().finalize(tools_offered)
    }

    pub(super) fn into_draft(self) -> Draft {
        let calls = self
            .calls
            .into_iter()
            .map(|c| DraftCall { id: c.id, name: c.name, arguments: c.arguments })
            .collect();
        Draft {
            content: Some(self.content).filter(|c| !c.is_empty()),
            reasoning: Some(self.reasoning).filter(|r| !r.is_empty()),
            calls,
            finish_reason: self.finish_reason,
            usage: self.usage.unwrap_or_default(),
        }
    }

    fn push(&mut self, mut chunk: WireCompletion) {
        self.chunks += 1;
        if let Some(usage) = chunk.take_usage() {
            self.usage = Some(usage);
        }
        let Some(choice) = wire::first_choice(chunk.choices) else { return };
        if let Some(delta) = choice.delta.or(choice.message) {
            if let Some(text) = delta.content.as_ref().and_then(wire::content_text) {
                self.content.push_str(&text);
            }
            if let Some(reasoning) = delta.reasoning_text() {
                self.reasoning.push_str(&reasoning);
            }
            for call in &delta.tool_calls {
                self.push_call(call);
            }
        }
        if choice.finish_reason.is_some() {
            self.finish_reason = choice.finish_reason;
        }
    }

    fn push_call(&mut self, delta: &WireToolCall) {
        let function = delta.function.as_ref();
        let id = delta.id.as_deref();
        let name = function.and_then(|f| f.name.as_deref());
        let slot = self.slot_for(delta.index, id, name);
        let call = &mut self.calls[slot];
        if let (true, Some(id)) = (call.id.is_empty(), id) {
            call.id = id.to_owned();
        }
        if let (true, Some(name)) = (call.name.is_empty(), name) {
            call.name = name.to_owned();
        }
        call.arguments.push_str(&wire::arguments_text(function.and_then(|f| f.arguments.as_ref())));
        self.current = Some(slot);
    }

    /// The call a delta belongs to, opened if new.
    fn slot_for(&mut self, index: Option<u64>, id: Option<&str>, name: Option<&str>) -> usize {
        let existing = match index {
            Some(i) => self.calls.iter().rposition(|c| c.index == Some(i)),
            None => self.current,
        };
        match existing {
            Some(slot) if !self.calls[slot].starts_new(id, name) => slot,
            _ => {
                self.calls.push(PartialCall { index, ..PartialCall::default() });
                self.calls.len() - 1
            }
        }
    }
}

impl PartialCall {
    /// Whether a delta with this id and name is a new call rather than more of this one.
    fn starts_new(&self, id: Option<&str>, name: Option<&str>) -> bool {
        if let Some(id) = id.filter(|_| !self.id.is_empty()) {
            return id != self.id;
        }
        match name {
            Some(name) if !self.name.is_empty() => name != self.name || is_complete_json(&self.arguments),
            _ => false,
        }
    }
}

fn is_complete_json(text: &str) -> bool {
    !text.trim().is_empty() && serde_json::from_str::<Value>(text).is_ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::llm::ToolCall;
    use serde_json::json;

    fn feed(chunks: &[Value]) -> ChatResponse {
        let mut acc = StreamAccumulator::new();
        for chunk in chunks {
            acc.push_data(&chunk.to_string()).unwrap();
        }
        acc.push_data("[DONE]").unwrap();
        assert!(acc.is_done());
        acc.finish(true)
    }

    fn delta(tool_calls: Value) -> Value {
        json!({"choices": [{"index": 0, "delta": {"tool_calls": tool_calls}}]})
    }

    fn call(id: &str, name: &str, arguments: &str) -> ToolCall {
        ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() }
    }

    #[test]
    fn openai_style_indexed_deltas() {
        let r = feed(&[
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "content": null}}]}),
            delta(
                json!([{"index": 0, "id": "call_a", "type": "function", "function": {"name": "search_products", "arguments": ""}}]),
            ),
            delta(json!([{"index": 0, "function": {"arguments": "{\"keyword\":"}}])),
            delta(
                json!([{"index": 1, "id": "call_b", "type": "function", "function": {"name": "view_cart", "arguments": "{}"}}]),
            ),
            delta(json!([{"index": 0, "function": {"arguments": "\"鞋\"}"}}])),
            json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]}),
            json!({"choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 20}}),
        ]);
        assert_eq!(
            r.message.tool_calls,
            [call("call_a", "search_products", r#"{"keyword":"鞋"}"#), call("call_b", "view_cart", "{}")]
        );
        assert_eq!(r.finish_reason.as_deref(), Some("tool_calls"));
        assert_eq!(r.usage, Usage { prompt_tokens: 100, completion_tokens: 20, cached_tokens: 0 });
        assert_eq!(r.message.content, None);
    }

    #[test]
    fn index_less_calls_with_the_same_name_stay_apart() {
        let r = feed(&[
            delta(
                json!([{"id": "", "function": {"name": "get_product_detail", "arguments": "{\"product_id\":\"p1\"}"}}]),
            ),
            delta(
                json!([{"id": "", "function": {"name": "get_product_detail", "arguments": "{\"product_id\":\"p2\"}"}}]),
            ),
        ]);
        assert_eq!(
            r.message.tool_calls,
            [
                call("call_0", "get_product_detail", r#"{"product_id":"p1"}"#),
                call("call_1", "get_product_detail", r#"{"product_id":"p2"}"#)
            ]
        );
    }

    #[test]
    fn a_repeated_name_on_unfinished_arguments_continues_the_call() {
        let r = feed(&[
            delta(
                json!([{"index": 0, "id": "c1", "function": {"name": "search_stores", "arguments": "{\"keyword\""}}]),
            ),
            delta(json!([{"index": 0, "function": {"name": "search_stores", "arguments": ":\"Nike\"}"}}])),
        ]);
        assert_eq!(r.message.tool_calls, [call("c1", "search_stores", r#"{"keyword":"Nike"}"#)]);
    }

    #[test]
    fn every_call_at_index_zero_with_its_own_id_stays_apart() {
        let r = feed(&[
            delta(json!([{"index": 0, "id": "a", "function": {"name": "view_cart", "arguments": "{}"}}])),
            delta(json!([{"index": 0, "id": "b", "function": {"name": "list_orders", "arguments": "{"}}])),
            delta(json!([{"index": 0, "function": {"arguments": "}"}}])),
        ]);
        assert_eq!(r.message.tool_calls, [call("a", "view_cart", "{}"), call("b", "list_orders", "{}")]);
    }

    #[test]
    fn content_reasoning_and_finish_reason_accumulate() {
        let r = feed(&[
            json!({"choices": [{"index": 0, "delta": {"reasoning": "think "}, "finish_reason": null}]}),
            json!({"choices": [{"index": 0, "delta": {"reasoning_content": "more"}, "finish_reason": ""}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "优衣库在"}, "finish_reason": ""}]}),
            json!({"choices": [{"index": 0, "delta": {"content": "二楼"}, "finish_reason": "stop"}]}),
        ]);
        assert_eq!(r.message.content.as_deref(), Some("优衣库在二楼"));
        assert_eq!(r.message.reasoning_content.as_deref(), Some("think more"));
        assert_eq!(r.finish_reason.as_deref(), Some("stop"));
    }

    #[test]
    fn bad_payloads_are_reported() {
        let mut acc = StreamAccumulator::new();
        assert_eq!(acc.push_data("oops"), Err(ChunkError::NotJson { raw: "oops".into() }));
        assert_eq!(
            acc.push_data(r#"{"error": {"message": "overloaded", "code": 502}}"#),
            Err(ChunkError::Provider { message: "overloaded".into() })
        );
        assert!(!acc.has_chunks());
    }
}
