//! Bounded conversation memory: the newest messages, cut only where a
//! shopper's message begins, so a tool call never loses its result.

use crate::llm::{ChatMessage, Role};

/// Keeps at most `max` messages, starting at a user message. A single turn
/// longer than `max` is kept whole (from its user message).
pub fn truncate(mut messages: Vec<ChatMessage>, max: usize) -> Vec<ChatMessage> {
    if messages.len() <= max {
        return messages;
    }
    let earliest = messages.len() - max;
    let start = (earliest..messages.len())
        .find(|&i| messages[i].role == Role::User)
        .or_else(|| messages.iter().rposition(|m| m.role == Role::User))
        .unwrap_or(messages.len());
    messages.drain(..start);
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::ToolCall;

    fn turn(i: usize) -> Vec<ChatMessage> {
        let call = ToolCall { id: format!("c{i}"), name: "view_cart".into(), arguments: "{}".into() };
        vec![
            ChatMessage::user(format!("q{i}")),
            ChatMessage::assistant_calls(vec![call]),
            ChatMessage::tool(format!("c{i}"), "{}"),
            ChatMessage::assistant(format!("a{i}")),
        ]
    }

    #[test]
    fn cuts_at_a_user_message_and_keeps_calls_with_results() {
        let all: Vec<ChatMessage> = (0..5).flat_map(turn).collect();
        let kept = truncate(all, 6);
        assert_eq!(kept.len(), 4, "only whole turns fit");
        assert_eq!(kept[0].text(), "q4");
        assert_eq!(kept[2].tool_call_id.as_deref(), Some("c4"));
    }

    #[test]
    fn a_long_single_turn_is_kept_whole() {
        let kept = truncate(turn(1), 2);
        assert_eq!(kept.len(), 4);
        assert_eq!(kept[0].role, Role::User);
    }

    #[test]
    fn short_history_is_untouched() {
        assert_eq!(truncate(turn(1), 20).len(), 4);
    }
}
