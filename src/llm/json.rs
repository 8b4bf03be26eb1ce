//! JSON written by hand where `serde_json` spends most of a busy turn: the
//! texts of a conversation, escaped eight bytes at a time, in exactly the
//! bytes `serde_json` writes (the tests compare the two).

use super::{ChatMessage, Role};

/// A conversation as the state stores keep it: the same text as
/// `serde_json::to_string(messages)`, written about twice as fast (the
/// history is written once per turn, and is most of what a turn writes).
pub fn history_json(messages: &[ChatMessage]) -> String {
    let mut out = Vec::with_capacity(messages.iter().map(|m| m.text().len() + 64).sum::<usize>() + 2);
    out.push(b'[');
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"role\":\"");
        out.extend_from_slice(role_name(m.role));
        out.push(b'"');
        if let Some(content) = &m.content {
            out.extend_from_slice(b",\"content\":");
            put_str(&mut out, content);
        }
        if !m.tool_calls.is_empty() {
            out.extend_from_slice(b",\"tool_calls\":[");
            for (j, call) in m.tool_calls.iter().enumerate() {
                if j > 0 {
                    out.push(b',');
                }
                out.extend_from_slice(b"{\"id\":");
                put_str(&mut out, &call.id);
                out.extend_from_slice(b",\"name\":");
                put_str(&mut out, &call.name);
                out.extend_from_slice(b",\"arguments\":");
                put_str(&mut out, &call.arguments);
                out.push(b'}');
            }
            out.push(b']');
        }
        for (key, value) in [
            (&b",\"tool_call_id\":"[..], &m.tool_call_id),
            (&b",\"reasoning_content\":"[..], &m.reasoning_content),
            (&b",\"image\":"[..], &m.image),
        ] {
            if let Some(value) = value {
                out.extend_from_slice(key);
                put_str(&mut out, value);
            }
        }
        out.push(b'}');
    }
    out.push(b']');
    // Only whole UTF-8 texts and ASCII were written.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// The JSON name of a role (as `Role` serialises).
pub(crate) fn role_name(role: Role) -> &'static [u8] {
    match role {
        Role::System => b"system",
        Role::User => b"user",
        Role::Assistant => b"assistant",
        Role::Tool => b"tool",
    }
}

/// Appends `text` as a JSON string escaped exactly as `serde_json` escapes
/// it, skipping eight bytes at a time while none of them needs escaping.
pub(crate) fn put_str(out: &mut Vec<u8>, text: &str) {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    /// Whether any byte of `word` is below 0x20, a quote or a backslash
    /// (never a false "no"; a rare false "yes" only means a closer look).
    fn needs_escape(word: u64) -> bool {
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
        let control = word.wrapping_sub(ONES * 0x20) & !word & HIGH;
        (control | zero(word ^ (ONES * u64::from(b'"'))) | zero(word ^ (ONES * u64::from(b'\\')))) != 0
    }
    let bytes = text.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if let Some(chunk) = bytes.get(i..i + 8) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            if !needs_escape(u64::from_le_bytes(word)) {
                i += 8;
                continue;
            }
        }
        let end = (i + 8).min(bytes.len());
        while i < end {
            let byte = bytes[i];
            let short: &[u8] = match byte {
                b'"' => b"\\\"",
                b'\\' => b"\\\\",
                b'\n' => b"\\n",
                b'\r' => b"\\r",
                b'\t' => b"\\t",
                0x08 => b"\\b",
                0x0c => b"\\f",
                0x00..=0x1f => b"",
                _ => {
                    i += 1;
                    continue;
                }
            };
            out.extend_from_slice(&bytes[copied..i]);
            if short.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(byte >> 4)]);
                out.push(HEX[usize::from(byte & 0xf)]);
            } else {
                out.extend_from_slice(short);
            }
            i += 1;
            copied = i;
        }
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::llm::ToolCall;

    /// Texts with everything that is escaped, at every offset (the eight-byte
    /// steps meet them at each position).
    pub(crate) const TRICKY: &str =
        "引号\"反斜杠\\ 换行\n回车\r制表\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é 👟 {\"a\":[1]} ……end";

    #[test]
    fn strings_are_escaped_as_serde_escapes_them() {
        for cut in 0..TRICKY.len() {
            if let Some(text) = TRICKY.get(cut..) {
                let mut ours = Vec::new();
                put_str(&mut ours, text);
                assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(text).unwrap());
            }
        }
        let all: String = (0u8..0x80).map(char::from).collect();
        let mut ours = Vec::new();
        put_str(&mut ours, &all);
        assert_eq!(String::from_utf8(ours).unwrap(), serde_json::to_string(&all).unwrap());
    }

    #[test]
    fn the_history_is_written_as_serde_writes_it() {
        let call =
            ToolCall { id: "call_1".into(), name: "navigate_to_store".into(), arguments: TRICKY.into() };
        let mut reasoning = ChatMessage::assistant_calls(vec![call.clone(), call.clone()]);
        reasoning.reasoning_content = Some(TRICKY.into());
        let messages = vec![
            ChatMessage::system(TRICKY),
            ChatMessage::user(TRICKY),
            ChatMessage::user(""),
            ChatMessage::assistant(TRICKY),
            ChatMessage { content: None, ..ChatMessage::assistant("") },
            ChatMessage::assistant_calls(vec![call]),
            reasoning,
            ChatMessage::tool("call_1", TRICKY),
            ChatMessage::user_with_image(TRICKY, "data:image/png;base64,iVBO".into()),
        ];
        assert_eq!(history_json(&messages), serde_json::to_string(&messages).unwrap());
        assert_eq!(history_json(&[]), serde_json::to_string(&Vec::<ChatMessage>::new()).unwrap());
        for message in &messages {
            let one = std::slice::from_ref(message);
            assert_eq!(history_json(one), serde_json::to_string(one).unwrap());
        }
    }
}
