//! Bounded conversation memory: the newest messages, cut only where a
//! shopper's message begins, so a tool call never loses its result; and, with
//! a token budget, old tool results shortened before any of the shopper's own
//! words are dropped. Pictures a shopper sent are not kept: a placeholder
//! stands in their place.
//!
//! A pending confirmation's call is not in the history until its press (see
//! `engine::pending`).

use crate::engine::llm::{ChatMessage, Role};

/// Keeps at most `max` messages, starting at a user message. A single turn
/// longer than `max` is kept whole (from its user message).
pub(crate) fn truncate(mut messages: Vec<ChatMessage>, max: usize) -> Vec<ChatMessage> {
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

/// What stands in the history where a shopper's photo was (the picture went
/// to the model in its own turn only).
pub(crate) const PHOTO_PLACEHOLDER: &str = "[photo: shown to you in that turn; no longer attached]";

/// Replaces every picture in `messages` by [`PHOTO_PLACEHOLDER`] before the
/// text, so later turns do not send it again.
pub(crate) fn drop_images(messages: &mut [ChatMessage]) {
    for message in messages.iter_mut() {
        if message.image.take().is_some() {
            message.content = Some(format!("{PHOTO_PLACEHOLDER} {}", message.text()));
        }
    }
}

/// Tokens a picture of at most 1280 px costs, about (OpenAI's high detail:
/// 85 + 170 per 512 px tile of a 1280 × 960 picture, rounded up).
const IMAGE_TOKENS: usize = 1100;

/// What an old tool result becomes when the history is over its token budget.
pub(crate) const OMITTED_RESULT: &str =
    r#"{"omitted":"an older result; call the tool again if it is needed"}"#;

/// A rough token count, close enough for a budget without a tokenizer: a
/// CJK character is about one token, other text about four characters a
/// token, plus a little for each message and tool call.
pub(crate) fn estimate_tokens(message: &ChatMessage) -> usize {
    fn of(text: &str) -> usize {
        let (wide, narrow) = text
            .chars()
            .fold((0usize, 0usize), |(w, n), c| if c as u32 >= 0x2E80 { (w + 1, n) } else { (w, n + 1) });
        wide + narrow.div_ceil(4)
    }
    let calls: usize = message.tool_calls.iter().map(|c| 8 + of(&c.name) + of(&c.arguments)).sum();
    let image = if message.image.is_some() { IMAGE_TOKENS } else { 0 };
    4 + of(message.text()) + calls + image
}

/// Fits `messages` into `budget` estimated tokens (0 = no budget): first the
/// tool results before the latest shopper message are shortened, oldest
/// first; then the oldest turns are dropped, whole. The latest turn is kept.
pub(crate) fn fit_tokens(mut messages: Vec<ChatMessage>, budget: usize) -> Vec<ChatMessage> {
    if budget == 0 {
        return messages;
    }
    let mut total: usize = messages.iter().map(estimate_tokens).sum();
    let latest_turn = messages.iter().rposition(|m| m.role == Role::User).unwrap_or(0);
    for message in messages[..latest_turn].iter_mut() {
        if total <= budget {
            return messages;
        }
        if message.role == Role::Tool && message.text() != OMITTED_RESULT {
            let before = estimate_tokens(message);
            message.content = Some(OMITTED_RESULT.to_owned());
            total = total - before + estimate_tokens(message);
        }
    }
    while total > budget {
        let Some(next_turn) = messages.iter().skip(1).position(|m| m.role == Role::User).map(|i| i + 1)
        else {
            break;
        };
        total -= messages.drain(..next_turn).map(|m| estimate_tokens(&m)).sum::<usize>();
    }
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::llm::ToolCall;

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

    fn search_turn(i: usize) -> Vec<ChatMessage> {
        let call = ToolCall { id: format!("s{i}"), name: "search_products".into(), arguments: "{}".into() };
        vec![
            ChatMessage::user(format!("找跑鞋 {i}")),
            ChatMessage::assistant_calls(vec![call]),
            ChatMessage::tool(format!("s{i}"), format!("{{\"products\":\"{}\"}}", "鞋".repeat(300))),
            ChatMessage::assistant(format!("找到了 {i}")),
        ]
    }

    #[test]
    fn over_budget_old_results_shrink_before_any_words_go() {
        let all: Vec<ChatMessage> = (0..3).flat_map(search_turn).collect();
        let total: usize = all.iter().map(estimate_tokens).sum();
        let budget = total - 200;
        let kept = fit_tokens(all.clone(), budget);
        assert_eq!(kept.len(), all.len(), "every message kept");
        assert_eq!(kept[2].text(), OMITTED_RESULT, "the oldest result shortened");
        assert_eq!(kept[6].text(), all[6].text(), "a newer one untouched while within budget");
        assert_eq!(kept[10].text(), all[10].text(), "the latest turn untouched");
        assert!(kept.iter().map(estimate_tokens).sum::<usize>() <= budget);
        assert_eq!(kept[1].tool_calls[0].id, "s0", "the call keeps its (shortened) result");
    }

    #[test]
    fn far_over_budget_the_oldest_turns_go_whole_and_the_latest_stays() {
        let all: Vec<ChatMessage> = (0..3).flat_map(search_turn).collect();
        let kept = fit_tokens(all, 350);
        assert_eq!(kept[0].text(), "找跑鞋 2", "only the latest turn is left, starting at the shopper");
        assert_eq!(kept.len(), 4);
        assert_eq!(kept[2].tool_call_id.as_deref(), Some("s2"));
        assert_eq!(fit_tokens(search_turn(0), 0).len(), 4, "0 = no budget");
    }

    #[test]
    fn a_photo_is_replaced_by_a_placeholder_and_the_caption_kept() {
        let mut messages = vec![
            ChatMessage::user_with_image("有这双鞋吗", "data:image/jpeg;base64,AAAA".into()),
            ChatMessage::assistant("有的"),
            ChatMessage::user("42码"),
        ];
        assert!(estimate_tokens(&messages[0]) > IMAGE_TOKENS, "a picture counts");
        drop_images(&mut messages);
        assert_eq!(messages[0].image, None);
        assert_eq!(messages[0].text(), format!("{PHOTO_PLACEHOLDER} 有这双鞋吗"));
        assert_eq!(messages[2].text(), "42码", "other messages untouched");
    }

    #[test]
    fn short_history_is_untouched() {
        assert_eq!(truncate(turn(1), 20).len(), 4);
    }
}
