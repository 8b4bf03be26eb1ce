//! Tool calls some models write into their text instead of `tool_calls`:
//! `<tool_call>{…}</tool_call>`, a fenced JSON block, or the whole answer being
//! `{"name": …, "arguments": {…}}`. Recognised conservatively: the name must
//! look like an identifier and the arguments must be present.

use serde_json::Value;

/// Calls found in an answer text, and the text left around them.
#[derive(Debug, PartialEq)]
pub(super) struct Recovered {
    /// `(name, arguments as JSON text)` in the order written.
    pub(crate) calls: Vec<(String, String)>,
    /// The remaining text, if any.
    pub(crate) rest: Option<String>,
}

/// The tool calls written into `content`, if it holds any.
pub(super) fn recover(content: &str) -> Option<Recovered> {
    tagged(content).or_else(|| fenced(content)).or_else(|| whole(content))
}

/// `<tool_call>{…}</tool_call>` blocks (Hermes/Qwen style); all must parse.
fn tagged(content: &str) -> Option<Recovered> {
    const OPEN: &str = "<tool_call>";
    const CLOSE: &str = "</tool_call>";
    let mut calls = Vec::new();
    let mut rest = String::new();
    let mut tail = content;
    while let Some(start) = tail.find(OPEN) {
        rest.push_str(&tail[..start]);
        let inner = &tail[start + OPEN.len()..];
        let (body, after) = match inner.find(CLOSE) {
            Some(end) => (&inner[..end], &inner[end + CLOSE.len()..]),
            None => (inner, ""),
        };
        calls.extend(parse_calls(body)?);
        tail = after;
    }
    rest.push_str(tail);
    (!calls.is_empty()).then(|| Recovered { calls, rest: non_empty(&rest) })
}

/// Fenced blocks (```` ```json ```` or a bare fence) holding calls; other fences stay as text.
fn fenced(content: &str) -> Option<Recovered> {
    const FENCE: &str = "```";
    let mut calls = Vec::new();
    let mut rest = String::new();
    let mut tail = content;
    while let Some(start) = tail.find(FENCE) {
        let opened = &tail[start + FENCE.len()..];
        let Some(end) = opened.find(FENCE) else { break };
        let block = &opened[..end];
        let (lang, body) = block.split_once('\n').unwrap_or(("", block));
        let found =
            matches!(lang.trim().to_ascii_lowercase().as_str(), "" | "json").then(|| parse_calls(body));
        match found.flatten() {
            Some(found) => {
                rest.push_str(&tail[..start]);
                calls.extend(found);
            }
            None => rest.push_str(&tail[..start + FENCE.len() * 2 + end]),
        }
        tail = &opened[end + FENCE.len()..];
    }
    rest.push_str(tail);
    (!calls.is_empty()).then(|| Recovered { calls, rest: non_empty(&rest) })
}

/// The whole answer is a call object (or an array of them).
fn whole(content: &str) -> Option<Recovered> {
    parse_calls(content).map(|calls| Recovered { calls, rest: None })
}

/// One call object or a non-empty array of them; `None` if anything does not fit.
fn parse_calls(text: &str) -> Option<Vec<(String, String)>> {
    match serde_json::from_str::<Value>(text.trim()).ok()? {
        Value::Array(items) if !items.is_empty() => items.iter().map(call_from).collect(),
        object @ Value::Object(_) => call_from(&object).map(|call| vec![call]),
        _ => None,
    }
}

/// `{"name": ident, "arguments": {…} | "…"}` (or `parameters`, Llama style).
fn call_from(value: &Value) -> Option<(String, String)> {
    let name = value.get("name")?.as_str().filter(|n| is_identifier(n))?;
    let arguments = match value.get("arguments").or_else(|| value.get("parameters"))? {
        Value::String(s) => s.clone(),
        object @ Value::Object(_) => object.to_string(),
        _ => return None,
    };
    Some((name.to_owned(), arguments))
}

/// A function name as OpenAI allows them: `[A-Za-z_][A-Za-z0-9_-]{0,63}`.
fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    first_ok && name.len() <= 64 && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn non_empty(text: &str) -> Option<String> {
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(content: &str) -> Vec<(String, String)> {
        recover(content).map(|r| r.calls).unwrap_or_default()
    }

    fn one(name: &str, arguments: &str) -> Vec<(String, String)> {
        vec![(name.to_owned(), arguments.to_owned())]
    }

    #[test]
    fn a_bare_call_object_is_a_call() {
        let r =
            recover(r#" {"name": "search_products", "arguments": {"keyword": "跑鞋", "max_price": 500}} "#);
        assert_eq!(
            r,
            Some(Recovered {
                calls: one("search_products", r#"{"keyword":"跑鞋","max_price":500}"#),
                rest: None
            })
        );
        assert_eq!(names(r#"{"name": "view_cart", "parameters": {}}"#), one("view_cart", "{}"));
        assert_eq!(names(r#"{"name": "list_orders", "arguments": "{}"}"#), one("list_orders", "{}"));
    }

    #[test]
    fn tagged_calls_keep_the_text_around_them() {
        let r = recover(
            "Let me look.\n<tool_call>\n{\"name\": \"search_stores\", \"arguments\": {\"keyword\": \"Uniqlo\"}}\n</tool_call>\
             <tool_call>{\"name\": \"view_cart\", \"arguments\": {}}</tool_call>",
        );
        let r = r.expect("two tagged calls");
        assert_eq!(r.calls.len(), 2);
        assert_eq!(r.calls[0], ("search_stores".to_owned(), r#"{"keyword":"Uniqlo"}"#.to_owned()));
        assert_eq!(r.rest.as_deref(), Some("Let me look."));
    }

    #[test]
    fn an_unterminated_tag_still_counts() {
        assert_eq!(names(r#"<tool_call>{"name": "view_cart", "arguments": {}}"#), one("view_cart", "{}"));
    }

    #[test]
    fn a_fenced_json_call_is_a_call() {
        let r = recover("I'll search:\n```json\n{\"name\": \"search_products\", \"arguments\": {\"brand\": \"Nike\"}}\n```\n")
            .expect("a fenced call");
        assert_eq!(r.calls, one("search_products", r#"{"brand":"Nike"}"#));
        assert_eq!(r.rest.as_deref(), Some("I'll search:"));
    }

    #[test]
    fn ordinary_answers_are_left_alone() {
        for text in [
            "Uniqlo is on the 2nd floor, next to the escalator.",
            r#"{"name": "Nike Air Zoom", "arguments": {}}"#,
            r#"{"name": "search_products"}"#,
            r#"{"name": "search_products", "arguments": 5}"#,
            "```rust\n{\"name\": \"view_cart\", \"arguments\": {}}\n```",
            "```json\n{\"price\": 499}\n```",
            "[]",
            "<tool_call>not json</tool_call>",
        ] {
            assert_eq!(recover(text), None, "{text}");
        }
    }
}
