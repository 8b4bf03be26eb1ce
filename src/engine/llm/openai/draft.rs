//! An answer as the provider sent it, before it is normalised into the
//! [`ChatResponse`] the router reads: tool calls written as text recovered,
//! missing or repeated ids minted, `finish_reason` made consistent.

use std::collections::HashSet;

use super::text_calls;
use crate::engine::llm::{ChatMessage, ChatResponse, Role, ToolCall, Usage};

/// An answer as read from the wire.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct Draft {
    pub(crate) content: Option<String>,
    pub(crate) reasoning: Option<String>,
    pub(crate) calls: Vec<DraftCall>,
    pub(crate) finish_reason: Option<String>,
    pub(crate) usage: Usage,
    /// The model that answered, as the provider named it.
    pub(crate) model: Option<String>,
    /// When a streamed answer's first chunk arrived.
    pub(crate) first_chunk: Option<std::time::Instant>,
}

/// A tool call as read from the wire; `id` may be empty.
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct DraftCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) arguments: String,
}

impl Draft {
    /// The normalised response. With `tools_offered`, a tool call the model
    /// wrote into its text (and no real tool call) becomes a real one.
    pub(crate) fn finalize(mut self, tools_offered: bool) -> ChatResponse {
        if tools_offered && self.calls.is_empty() {
            self.recover_text_calls();
        }
        let tool_calls = with_ids(self.calls);
        let finish_reason = match self.finish_reason.filter(|r| !r.is_empty()) {
            None => (!tool_calls.is_empty()).then(|| "tool_calls".to_owned()),
            Some(r) if r == "stop" && !tool_calls.is_empty() => Some("tool_calls".to_owned()),
            other => other,
        };
        let message = ChatMessage {
            role: Role::Assistant,
            content: self.content.filter(|c| !c.is_empty()),
            tool_calls,
            tool_call_id: None,
            reasoning_content: self.reasoning.filter(|r| !r.is_empty()),
            image: None,
        };
        ChatResponse { message, finish_reason, usage: self.usage }
    }

    fn recover_text_calls(&mut self) {
        let Some(recovered) = self.content.as_deref().and_then(text_calls::recover) else {
            return;
        };
        tracing::debug!(calls = recovered.calls.len(), "tool calls recovered from the answer text");
        self.calls = recovered
            .calls
            .into_iter()
            .map(|(name, arguments)| DraftCall { id: String::new(), name, arguments })
            .collect();
        self.content = recovered.rest;
    }
}

/// The calls with an id each: the provider's when present and not repeated,
/// otherwise `call_<n>`, unique within the answer.
fn with_ids(calls: Vec<DraftCall>) -> Vec<ToolCall> {
    let given: HashSet<String> = calls.iter().map(|c| c.id.clone()).filter(|id| !id.is_empty()).collect();
    let mut used = HashSet::new();
    let mut next = 0usize;
    calls
        .into_iter()
        .filter(|c| !(c.name.is_empty() && c.arguments.trim().is_empty()))
        .map(|c| {
            let id = if !c.id.is_empty() && used.insert(c.id.clone()) {
                c.id
            } else {
                let mut minted = format!("call_{next}");
                while given.contains(&minted) || used.contains(&minted) {
                    next += 1;
                    minted = format!("call_{next}");
                }
                next += 1;
                used.insert(minted.clone());
                minted
            };
            ToolCall { id, name: c.name, arguments: c.arguments }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, name: &str) -> DraftCall {
        DraftCall { id: id.into(), name: name.into(), arguments: "{}".into() }
    }

    fn ids(calls: Vec<DraftCall>) -> Vec<String> {
        with_ids(calls).into_iter().map(|c| c.id).collect()
    }

    #[test]
    fn missing_ids_are_minted_in_order() {
        assert_eq!(ids(vec![call("", "a"), call("", "b"), call("", "c")]), ["call_0", "call_1", "call_2"]);
    }

    #[test]
    fn minted_ids_avoid_the_providers_and_repeats_get_new_ones() {
        assert_eq!(
            ids(vec![call("", "a"), call("call_0", "b"), call("call_0", "c")]),
            ["call_1", "call_0", "call_2"]
        );
    }

    #[test]
    fn stop_after_tool_calls_means_tool_calls() {
        let draft = Draft {
            calls: vec![call("x", "view_cart")],
            finish_reason: Some("stop".into()),
            ..Draft::default()
        };
        assert_eq!(draft.finalize(true).finish_reason.as_deref(), Some("tool_calls"));
        let text =
            Draft { content: Some("hi".into()), finish_reason: Some(String::new()), ..Draft::default() };
        assert_eq!(text.finalize(true).finish_reason, None);
        let cut =
            Draft { calls: vec![call("x", "a")], finish_reason: Some("length".into()), ..Draft::default() };
        assert_eq!(cut.finalize(true).finish_reason.as_deref(), Some("length"));
    }

    #[test]
    fn text_calls_are_recovered_only_when_tools_were_offered() {
        let text = r#"{"name": "view_cart", "arguments": {}}"#;
        let draft = Draft { content: Some(text.into()), ..Draft::default() };
        let offered = draft.clone().finalize(true);
        assert_eq!(
            offered.message.tool_calls,
            [ToolCall { id: "call_0".into(), name: "view_cart".into(), arguments: "{}".into() }]
        );
        assert_eq!(offered.message.content, None);
        let not_offered = draft.finalize(false);
        assert!(not_offered.message.tool_calls.is_empty());
        assert_eq!(not_offered.message.content.as_deref(), Some(text));
    }
}
