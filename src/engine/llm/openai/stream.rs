//! Assembling a streamed completion: [`StreamAccumulator`] takes the `data:`
//! payloads one by one and yields the same [`ChatResponse`] a plain answer
//! would, whatever dialect of tool-call deltas the provider speaks.
//!
//! While no tool-call delta has shown up, the text is forwarded to the turn's
//! progress as it comes; a retried attempt forwards only what goes beyond the
//! text already shown.

use serde_json::Value;

use super::draft::{Draft, DraftCall};
use super::wire::{self, WireCompletion, WireToolCall};
use crate::engine::llm::Usage;
use crate::engine::progress::Progress;

/// A stream payload that could not be used.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ChunkError {
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
pub(crate) struct StreamAccumulator {
    content: String,
    reasoning: String,
    calls: Vec<PartialCall>,
    current: Option<usize>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    chunks: usize,
    done: bool,
    model: Option<String>,
    first_chunk: Option<std::time::Instant>,
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
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Takes one `data:` payload: a JSON chunk, or `[DONE]`.
    pub(crate) fn push_data(&mut self, data: &str) -> Result<(), ChunkError> {
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
    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// Whether any JSON chunk arrived.
    pub(crate) fn has_chunks(&self) -> bool {
        self.chunks > 0
    }

    /// Whether the provider said the answer is over: `[DONE]` or a `finish_reason`.
    pub(crate) fn is_complete(&self) -> bool {
        self.done || self.finish_reason.is_some()
    }

    /// The answer's text so far.
    pub(crate) fn content(&self) -> &str {
        &self.content
    }

    /// Whether a tool-call delta has shown up.
    pub(crate) fn has_tool_calls(&self) -> bool {
        !self.calls.is_empty()
    }

    /// The assembled response (see [`super::OpenAiClient`] for the
    /// normalisation); `tools_offered` allows recovering tool calls written as text.
    #[cfg(test)]
    fn finish(self, tools_offered: bool) -> crate::engine::llm::ChatResponse {
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
            model: self.model,
            first_chunk: self.first_chunk,
        }
    }

    fn push(&mut self, mut chunk: WireCompletion) {
        self.chunks += 1;
        if self.first_chunk.is_none() {
            self.first_chunk = Some(std::time::Instant::now());
        }
        if self.model.is_none() {
            self.model = chunk.model.take();
        }
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

/// Forwards the answer's text of a streamed completion to the transport as
/// it arrives ([`Progress::text_delta`]), while it is still an answer: not
/// after a tool-call delta, nor a tool call written as text.
///
/// It lives across the attempts of one model call: a retried attempt forwards
/// only what goes beyond the text already shown, and nothing when it starts
/// differently, so the shopper never sees an answer begin twice.
#[derive(Debug)]
pub(super) struct TextForwarder<'a> {
    progress: &'a Progress,
    tools_offered: bool,
    shown: String,
    stopped: bool,
}

/// How tool calls written as text begin; such text is not forwarded.
const TEXT_CALL_OPEN: &str = "<tool_call>";

impl<'a> TextForwarder<'a> {
    /// A forwarder to `progress`; `tools_offered` holds back text that may be a tool call.
    pub(crate) fn new(progress: &'a Progress, tools_offered: bool) -> Self {
        TextForwarder { progress, tools_offered, shown: String::new(), stopped: false }
    }

    /// A new attempt of the same call begins.
    pub(crate) fn restart(&mut self) {
        self.stopped = false;
    }

    /// Forwards what `accumulator` holds beyond the text shown so far.
    pub(crate) fn forward(&mut self, accumulator: &StreamAccumulator) {
        if self.stopped {
            return;
        }
        if accumulator.has_tool_calls() {
            self.stopped = true;
            return;
        }
        let content = accumulator.content();
        let ready = if self.tools_offered { answer_part(content) } else { Some(content) };
        let Some(ready) = ready else {
            self.stopped = true;
            return;
        };
        if ready.len() <= self.shown.len() {
            return;
        }
        if !ready.starts_with(self.shown.as_str()) {
            // A retry that answers differently: what was shown stays, the
            // transport replaces it with the whole answer at the end.
            self.stopped = true;
            return;
        }
        let delta = &ready[self.shown.len()..];
        self.progress.text_delta(delta);
        self.shown.push_str(delta);
    }
}

/// The part of `content` that is surely answer text: `None` once it holds a
/// tool call written as text (or begins like a JSON call); a trailing piece
/// that may be the start of `<tool_call>` is held back.
fn answer_part(content: &str) -> Option<&str> {
    let trimmed = content.trim_start();
    if trimmed.starts_with('{') || content.contains(TEXT_CALL_OPEN) {
        return None;
    }
    match content.rfind('<') {
        Some(at) if TEXT_CALL_OPEN.starts_with(&content[at..]) => Some(&content[..at]),
        _ => Some(content),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::engine::llm::{ChatResponse, ToolCall};
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

    fn streamed(chunks: &[Value], tools_offered: bool) -> Vec<String> {
        let (progress, mut rx) = Progress::channel();
        let mut forwarder = TextForwarder::new(&progress, tools_offered);
        let mut acc = StreamAccumulator::new();
        for chunk in chunks {
            acc.push_data(&chunk.to_string()).unwrap();
            forwarder.forward(&acc);
        }
        let mut deltas = Vec::new();
        while let Ok(crate::engine::progress::TurnEvent::TextDelta(d)) = rx.try_recv() {
            deltas.push(d);
        }
        deltas
    }

    fn text_chunk(text: &str) -> Value {
        json!({"choices": [{"index": 0, "delta": {"content": text}}]})
    }

    #[test]
    fn text_is_forwarded_until_a_tool_call_shows_up() {
        let deltas = streamed(
            &[
                text_chunk("我来"),
                text_chunk("查一下"),
                delta(
                    json!([{"index": 0, "id": "c1", "function": {"name": "view_cart", "arguments": "{}"}}]),
                ),
                text_chunk("……"),
            ],
            true,
        );
        assert_eq!(deltas, ["我来", "查一下"]);
    }

    #[test]
    fn tool_calls_written_as_text_are_held_back() {
        let deltas = streamed(
            &[text_chunk("好的"), text_chunk("<tool"), text_chunk("_call>{\"name\":"), text_chunk("\"x\"}")],
            true,
        );
        assert_eq!(deltas, ["好的"]);
        assert!(streamed(&[text_chunk("{\"name\": \"view_cart\""), text_chunk("}")], true).is_empty());
        let deltas = streamed(&[text_chunk("a <t"), text_chunk("ag>")], true);
        assert_eq!(deltas, ["a ", "<tag>"], "a `<` that is not a tool call is held only until it is clear");
        assert_eq!(streamed(&[text_chunk("{json}")], false), ["{json}"], "no tools offered: all text");
    }

    #[test]
    fn a_retry_forwards_only_what_goes_beyond_the_text_shown() {
        let (progress, mut rx) = Progress::channel();
        let mut forwarder = TextForwarder::new(&progress, true);
        let mut first = StreamAccumulator::new();
        first.push_data(&text_chunk("优衣库在").to_string()).unwrap();
        forwarder.forward(&first);
        forwarder.restart();
        let mut second = StreamAccumulator::new();
        for piece in ["优衣", "库在二", "楼。"] {
            second.push_data(&text_chunk(piece).to_string()).unwrap();
            forwarder.forward(&second);
        }
        forwarder.restart();
        let mut third = StreamAccumulator::new();
        third.push_data(&text_chunk("Uniqlo is on floor 2.").to_string()).unwrap();
        forwarder.forward(&third);
        let mut deltas = Vec::new();
        while let Ok(crate::engine::progress::TurnEvent::TextDelta(d)) = rx.try_recv() {
            deltas.push(d);
        }
        assert_eq!(deltas, ["优衣库在", "二", "楼。"]);
    }
}
