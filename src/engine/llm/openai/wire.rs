//! The JSON of the chat-completions endpoint: the request body we send, and
//! lenient readings of the answers (every field optional, unknown fields ignored,
//! odd types tolerated) shared by the plain and the streaming paths.
//!
//! The request body is written straight from the borrowed messages: each
//! message by hand, the same bytes serde would write, its texts escaped eight
//! bytes at a time, with no intermediate `Value`s, into `Bytes` a retry
//! resends without a copy. A shopper message with a picture is sent as
//! content parts (`text`, `image_url`).

use std::collections::HashMap;
use std::sync::{OnceLock, PoisonError, RwLock};

use bytes::Bytes;
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

use crate::engine::tools::Tool;

use super::OpenAiSettings;
use super::draft::{Draft, DraftCall};
use crate::engine::llm::{ChatMessage, ChatRequest, Role, ToolCall, Usage};

/// A tool as the chat-completions API lists it in `tools[]`:
/// `{"type":"function","function":{name,description,parameters}}`.
pub fn tool_definition(tool: &Tool) -> Value {
    json!({
        "type": "function",
        "function": {
            "name": tool.name(),
            "description": tool.description(),
            "parameters": tool.parameters(),
        }
    })
}

/// The request body for one chat completion, as JSON bytes, written straight
/// from the borrowed messages (no intermediate `Value`s). Each tool's
/// definition is serialised once and reused: the tool list is the same bytes
/// in every request (and the bulk of it). [`Bytes`] so that a retry resends
/// it without a copy.
pub(super) fn request_body(settings: &OpenAiSettings, request: ChatRequest<'_>) -> Bytes {
    let mut body = Vec::with_capacity(16 * 1024);
    body.extend_from_slice(b"{\"model\":");
    put(&mut body, &settings.model);
    body.extend_from_slice(b",\"messages\":[");
    for (i, message) in request.messages.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        put_message(&mut body, message);
    }
    body.push(b']');
    if !request.tools.is_empty() {
        body.extend_from_slice(b",\"tools\":[");
        for (i, tool) in request.tools.iter().enumerate() {
            if i > 0 {
                body.push(b',');
            }
            match tool {
                Tool::Builtin(spec) => body.extend_from_slice(tool_json(spec).as_bytes()),
                // A lent tool's definition can change when its server comes back.
                Tool::Remote(_) => put(&mut body, &tool_definition(tool)),
            }
        }
        body.extend_from_slice(b"],\"tool_choice\":\"auto\"");
    }
    if let Some(t) = settings.temperature {
        body.extend_from_slice(b",\"temperature\":");
        put(&mut body, &decimal(t));
    }
    if settings.max_tokens > 0 {
        body.extend_from_slice(b",\"max_tokens\":");
        put(&mut body, &settings.max_tokens);
    }
    body.extend_from_slice(if settings.stream {
        b",\"stream\":true,\"stream_options\":{\"include_usage\":true}}"
    } else {
        b",\"stream\":false}"
    });
    Bytes::from(body)
}

/// Appends `value` as compact JSON.
fn put<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    // Writing to a Vec cannot fail, and these types always serialise.
    if let Err(e) = serde_json::to_writer(out, value) {
        tracing::error!(error = %e, "could not write a model request");
    }
}

/// Appends one message as [`OutMessage`] serialises it (the same bytes),
/// its texts written by [`put_str`]: the conversation's texts are most of a
/// request, and both rounds of a turn send them again.
fn put_message(out: &mut Vec<u8>, m: &ChatMessage) {
    if m.image.is_some() && m.role == Role::User {
        // A photo: text and `image_url` parts (rare, and the picture's
        // base64 needs no escaping).
        return put(out, &OutMessage(m));
    }
    let role: &[u8] = match m.role {
        Role::System => b"system",
        Role::User => b"user",
        Role::Assistant => b"assistant",
        Role::Tool => b"tool",
    };
    out.extend_from_slice(b"{\"role\":\"");
    out.extend_from_slice(role);
    out.extend_from_slice(b"\",\"content\":");
    match m.role {
        Role::Assistant => {
            match &m.content {
                Some(text) => put_str(out, text),
                None if m.tool_calls.is_empty() => out.extend_from_slice(b"\"\""),
                None => out.extend_from_slice(b"null"),
            }
            if !m.tool_calls.is_empty() {
                out.extend_from_slice(b",\"tool_calls\":");
                put(out, &OutCalls(&m.tool_calls));
            }
            if let Some(reasoning) = &m.reasoning_content {
                out.extend_from_slice(b",\"reasoning_content\":");
                put_str(out, reasoning);
            }
        }
        Role::Tool => {
            put_str(out, m.text());
            out.extend_from_slice(b",\"tool_call_id\":");
            put_str(out, m.tool_call_id.as_deref().unwrap_or(""));
        }
        Role::System | Role::User => put_str(out, m.text()),
    }
    out.push(b'}');
}

/// Appends `text` as a JSON string escaped exactly as `serde_json` escapes
/// it, skipping eight bytes at a time while none of them needs escaping.
fn put_str(out: &mut Vec<u8>, text: &str) {
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

/// [`tool_definition`] as JSON text, made once per tool (tools are statics,
/// so each is known by its address).
fn tool_json(spec: &'static handlers::ToolSpec) -> &'static str {
    static MADE: OnceLock<RwLock<HashMap<usize, &'static str>>> = OnceLock::new();
    let made = MADE.get_or_init(Default::default);
    let key = std::ptr::from_ref(spec) as usize;
    if let Some(json) = made.read().unwrap_or_else(PoisonError::into_inner).get(&key) {
        return json;
    }
    let json: &'static str = Box::leak(tool_definition(&Tool::Builtin(spec)).to_string().into_boxed_str());
    made.write().unwrap_or_else(PoisonError::into_inner).entry(key).or_insert(json)
}

/// An `f32` as the decimal a person wrote (`0.7`, not `0.699999988079071`).
fn decimal(value: f32) -> Value {
    let wide = value.to_string().parse::<f64>().unwrap_or(f64::from(value));
    json!(wide)
}

/// One message as chat completions take it: an assistant turn's `content`
/// is `null` beside tool calls, a photo goes as text and `image_url` parts.
struct OutMessage<'a>(&'a ChatMessage);

impl Serialize for OutMessage<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let m = self.0;
        let mut out = serializer.serialize_map(None)?;
        out.serialize_entry("role", &m.role)?;
        match m.role {
            Role::Assistant => {
                match &m.content {
                    Some(text) => out.serialize_entry("content", text)?,
                    None if m.tool_calls.is_empty() => out.serialize_entry("content", "")?,
                    None => out.serialize_entry("content", &())?,
                }
                if !m.tool_calls.is_empty() {
                    out.serialize_entry("tool_calls", &OutCalls(&m.tool_calls))?;
                }
                if let Some(reasoning) = &m.reasoning_content {
                    out.serialize_entry("reasoning_content", reasoning)?;
                }
            }
            Role::Tool => {
                out.serialize_entry("content", m.text())?;
                out.serialize_entry("tool_call_id", m.tool_call_id.as_deref().unwrap_or(""))?;
            }
            Role::User if m.image.is_some() => {
                let url = m.image.as_deref().unwrap_or_default();
                let parts = [Part::Text { text: m.text() }, Part::ImageUrl { image_url: ImageUrl { url } }];
                out.serialize_entry("content", &parts)?;
            }
            Role::System | Role::User => out.serialize_entry("content", m.text())?,
        }
        out.end()
    }
}

/// A part of a message with a picture.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Part<'a> {
    Text { text: &'a str },
    ImageUrl { image_url: ImageUrl<'a> },
}

#[derive(Serialize)]
struct ImageUrl<'a> {
    url: &'a str,
}

/// Tool calls echoed back: `arguments` always a JSON string (OpenAI rejects
/// objects), `""` and `"null"` sent as `"{}"` (strict providers parse it).
struct OutCalls<'a>(&'a [ToolCall]);

impl Serialize for OutCalls<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|call| {
            let trimmed = call.arguments.trim();
            let arguments =
                if trimmed.is_empty() || trimmed == "null" { "{}" } else { call.arguments.as_str() };
            OutCall { id: &call.id, kind: "function", function: OutFunction { name: &call.name, arguments } }
        }))
    }
}

#[derive(Serialize)]
struct OutCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: OutFunction<'a>,
}

#[derive(Serialize)]
struct OutFunction<'a> {
    name: &'a str,
    arguments: &'a str,
}

/// A chat completion, or one chunk of a streamed one.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireCompletion {
    #[serde(deserialize_with = "list")]
    pub(crate) choices: Vec<WireChoice>,
    pub(crate) usage: Option<WireUsage>,
    /// An error object some providers send with status 200 or inside a stream.
    pub(crate) error: Option<Value>,
    /// Groq's extras; its streams have reported usage only in here.
    pub(crate) x_groq: Option<WireGroq>,
    /// The model that answered (the trace's `gen_ai.response.model`).
    #[serde(deserialize_with = "text")]
    pub(crate) model: Option<String>,
}

/// Groq's `x_groq` object.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireGroq {
    pub(crate) usage: Option<WireUsage>,
}

/// One choice; `message` in plain answers, `delta` in stream chunks.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireChoice {
    #[serde(deserialize_with = "index")]
    pub(crate) index: Option<u64>,
    pub(crate) message: Option<WireMessage>,
    pub(crate) delta: Option<WireMessage>,
    #[serde(deserialize_with = "text")]
    pub(crate) finish_reason: Option<String>,
}

/// An assistant message or delta.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireMessage {
    /// A string, or (some providers) an array of `{"type":"text","text":…}` parts.
    pub(crate) content: Option<Value>,
    pub(crate) reasoning_content: Option<Value>,
    /// OpenRouter's name for `reasoning_content`.
    pub(crate) reasoning: Option<Value>,
    #[serde(deserialize_with = "list")]
    pub(crate) tool_calls: Vec<WireToolCall>,
}

/// A tool call or a piece of one.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireToolCall {
    #[serde(deserialize_with = "index")]
    pub(crate) index: Option<u64>,
    #[serde(deserialize_with = "text")]
    pub(crate) id: Option<String>,
    pub(crate) function: Option<WireFunction>,
}

/// The function part of a tool call.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireFunction {
    #[serde(deserialize_with = "text")]
    pub(crate) name: Option<String>,
    /// A string normally; an object from llama.cpp and TGI.
    pub(crate) arguments: Option<Value>,
}

/// Token counts.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WireUsage {
    #[serde(deserialize_with = "count")]
    pub(crate) prompt_tokens: u64,
    #[serde(deserialize_with = "count")]
    pub(crate) completion_tokens: u64,
    /// OpenAI, Qwen, vLLM: `{"cached_tokens": n}`.
    pub(crate) prompt_tokens_details: Option<WirePromptDetails>,
    /// DeepSeek: prompt tokens served from its context cache.
    #[serde(deserialize_with = "count")]
    pub(crate) prompt_cache_hit_tokens: u64,
}

/// `usage.prompt_tokens_details`.
#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct WirePromptDetails {
    #[serde(deserialize_with = "count")]
    pub(crate) cached_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(u: WireUsage) -> Usage {
        let details = u.prompt_tokens_details.map(|d| d.cached_tokens).unwrap_or(0);
        Usage {
            prompt_tokens: u.prompt_tokens,
            completion_tokens: u.completion_tokens,
            cached_tokens: details.max(u.prompt_cache_hit_tokens),
        }
    }
}

impl WireCompletion {
    /// The token counts, from `usage` or Groq's `x_groq.usage`.
    pub(crate) fn take_usage(&mut self) -> Option<Usage> {
        let groq = self.x_groq.as_mut().and_then(|g| g.usage.take());
        self.usage.take().or(groq).map(Usage::from)
    }

    /// The first choice of a plain answer as a draft; `None` when there is no choice.
    pub(crate) fn into_draft(mut self) -> Option<Draft> {
        let usage = self.take_usage().unwrap_or_default();
        let choice = first_choice(self.choices)?;
        let message = choice.message.or(choice.delta).unwrap_or_default();
        let calls = message
            .tool_calls
            .iter()
            .map(|c| {
                let function = c.function.as_ref();
                DraftCall {
                    id: c.id.clone().unwrap_or_default(),
                    name: function.and_then(|f| f.name.clone()).unwrap_or_default(),
                    arguments: arguments_text(function.and_then(|f| f.arguments.as_ref())),
                }
            })
            .collect();
        Some(Draft {
            model: self.model,
            first_chunk: None,
            content: message.content.as_ref().and_then(content_text).filter(|t| !t.is_empty()),
            reasoning: message.reasoning_text(),
            calls,
            finish_reason: choice.finish_reason,
            usage,
        })
    }
}

/// The choice with index 0 (or the first one when none says its index).
pub(super) fn first_choice(choices: Vec<WireChoice>) -> Option<WireChoice> {
    let mut fallback = None;
    for choice in choices {
        match choice.index {
            Some(0) => return Some(choice),
            None if fallback.is_none() => fallback = Some(choice),
            _ => {}
        }
    }
    fallback
}

impl WireMessage {
    /// `reasoning_content`, or OpenRouter's `reasoning`, when non-empty.
    pub(crate) fn reasoning_text(&self) -> Option<String> {
        [&self.reasoning_content, &self.reasoning]
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str())
            .find(|s| !s.is_empty())
            .map(str::to_owned)
    }
}

/// The text of a `content` value: a string, or the text parts of an array.
pub(super) fn content_text(content: &Value) -> Option<String> {
    match content {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> =
                parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
            (!texts.is_empty()).then(|| texts.concat())
        }
        _ => None,
    }
}

/// Arguments as JSON text: a string as written, an object re-serialized,
/// missing or `null` as `""`.
pub(super) fn arguments_text(arguments: Option<&Value>) -> String {
    match arguments {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

/// The provider's error message out of an `error` value.
pub(super) fn error_text(error: &Value) -> String {
    match error.get("message").and_then(Value::as_str) {
        Some(message) => message.to_owned(),
        None => error.to_string(),
    }
}

/// A list; `null` reads as empty.
fn list<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Vec<T>, D::Error> {
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

/// A string field; `null`, `""` and odd types read as absent, numbers as text.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::String(s) if !s.is_empty() => Some(s),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    })
}

/// An index; `null` and odd values read as absent.
fn index<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    })
}

/// A token count; `null` and odd values read as 0.
fn count<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(value.as_u64().or_else(|| value.as_f64().map(|f| f.max(0.0).round() as u64)).unwrap_or(0))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn message_json(m: &ChatMessage) -> Value {
        serde_json::to_value(OutMessage(m)).unwrap()
    }

    fn parse(raw: &str) -> Draft {
        serde_json::from_str::<WireCompletion>(raw).unwrap().into_draft().unwrap()
    }

    #[test]
    fn messages_are_written_as_serde_writes_them() {
        let tricky = "引号\"反斜杠\\ 换行\n回车\r制表\t\u{8}\u{c}\u{1}\u{1f}\u{7f} é 👟 {\"a\":[1]} ……end";
        let call = ToolCall { id: "call_1".into(), name: "navigate_to_store".into(), arguments: "".into() };
        let mut reasoning = ChatMessage::assistant_calls(vec![call.clone()]);
        reasoning.reasoning_content = Some(tricky.into());
        let messages = [
            ChatMessage::system(tricky),
            ChatMessage::user(tricky),
            ChatMessage::user(""),
            ChatMessage::user("12345678\"1234567"),
            ChatMessage::assistant(tricky),
            ChatMessage { content: None, ..ChatMessage::assistant("") },
            ChatMessage::assistant_calls(vec![call]),
            reasoning,
            ChatMessage::tool("call_1", tricky),
            ChatMessage { tool_call_id: None, ..ChatMessage::tool("", "x") },
            ChatMessage::user_with_image(tricky, "data:image/png;base64,iVBO".into()),
        ];
        for cut in 0..tricky.len() {
            if let Some(text) = tricky.get(cut..) {
                let message = ChatMessage::user(text);
                let mut ours = Vec::new();
                put_message(&mut ours, &message);
                assert_eq!(
                    String::from_utf8(ours).unwrap(),
                    serde_json::to_string(&OutMessage(&message)).unwrap()
                );
            }
        }
        for message in &messages {
            let mut ours = Vec::new();
            put_message(&mut ours, message);
            let serde = serde_json::to_string(&OutMessage(message)).unwrap();
            assert_eq!(String::from_utf8(ours).unwrap(), serde, "{message:?}");
        }
    }

    #[test]
    fn tool_definitions_carry_name_description_and_parameters() {
        let tool = handlers::find("view_cart").unwrap();
        let definition = tool_definition(&Tool::from(tool));
        assert_eq!(definition["type"], "function");
        assert_eq!(definition["function"]["name"], "view_cart");
        assert_eq!(definition["function"]["description"], tool.description);
        assert_eq!(definition["function"]["parameters"], json!({"type": "object", "properties": {}}));
    }

    #[test]
    fn a_photo_goes_as_text_and_image_url_parts_and_other_messages_stay_plain() {
        let photo = ChatMessage::user_with_image("有这双鞋吗", "data:image/jpeg;base64,/9j/AA==".into());
        assert_eq!(
            message_json(&photo),
            json!({"role": "user", "content": [
                {"type": "text", "text": "有这双鞋吗"},
                {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,/9j/AA=="}},
            ]})
        );
        assert_eq!(message_json(&ChatMessage::user("hi")), json!({"role": "user", "content": "hi"}));
    }

    #[test]
    fn groq_extras_are_ignored() {
        let draft = parse(
            r#"{"id":"x","x_groq":{"id":"req_1"},"service_tier":"on_demand",
                "choices":[{"index":0,"logprobs":null,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
                "usage":{"queue_time":0.02,"prompt_tokens":12,"completion_tokens":3,"total_time":0.1}}"#,
        );
        assert_eq!(draft.content.as_deref(), Some("hi"));
        assert_eq!(draft.usage, Usage { prompt_tokens: 12, completion_tokens: 3, cached_tokens: 0 });
    }

    #[test]
    fn groq_usage_inside_x_groq_is_read() {
        let mut chunk: WireCompletion = serde_json::from_str(
            r#"{"choices":[],"x_groq":{"id":"req_1","usage":{"prompt_tokens":9,"completion_tokens":2,"queue_time":0.1}}}"#,
        )
        .unwrap();
        assert_eq!(
            chunk.take_usage(),
            Some(Usage { prompt_tokens: 9, completion_tokens: 2, cached_tokens: 0 })
        );
    }

    #[test]
    fn nulls_and_odd_types_are_tolerated() {
        let draft = parse(
            r#"{"choices":[{"index":null,"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],
                "tool_calls":null},"finish_reason":""}],"usage":{"prompt_tokens":null,"completion_tokens":4.0}}"#,
        );
        assert_eq!(draft.content.as_deref(), Some("ab"));
        assert!(draft.calls.is_empty());
        assert_eq!(draft.finish_reason, None);
        assert_eq!(draft.usage, Usage { prompt_tokens: 0, completion_tokens: 4, cached_tokens: 0 });
    }

    #[test]
    fn arguments_keep_their_text() {
        assert_eq!(arguments_text(Some(&json!({"keyword": "鞋"}))), r#"{"keyword":"鞋"}"#);
        assert_eq!(arguments_text(Some(&json!(""))), "");
        assert_eq!(arguments_text(Some(&json!("null"))), "null");
        assert_eq!(arguments_text(Some(&Value::Null)), "");
        assert_eq!(arguments_text(None), "");
    }

    #[test]
    fn the_first_choice_is_index_zero() {
        let draft = parse(
            r#"{"choices":[{"index":1,"message":{"content":"second"}},{"index":0,"message":{"content":"first"}}]}"#,
        );
        assert_eq!(draft.content.as_deref(), Some("first"));
    }

    #[test]
    fn assistant_messages_echo_calls_as_strings_and_reasoning() {
        let mut turn = ChatMessage::assistant_calls(vec![
            ToolCall { id: "call_0".into(), name: "view_cart".into(), arguments: String::new() },
            ToolCall {
                id: "c2".into(),
                name: "search_products".into(),
                arguments: r#"{"keyword":"nike"}"#.into(),
            },
        ]);
        turn.reasoning_content = Some("the shopper wants shoes".into());
        let v = message_json(&turn);
        assert_eq!(v["content"], Value::Null);
        assert_eq!(v["reasoning_content"], "the shopper wants shoes");
        assert_eq!(v["tool_calls"][0]["function"]["arguments"], "{}");
        assert_eq!(v["tool_calls"][1]["function"]["arguments"], r#"{"keyword":"nike"}"#);
        assert_eq!(v["tool_calls"][1]["type"], "function");
        let tool = message_json(&ChatMessage::tool("c2", "[]"));
        assert_eq!(tool, json!({"role": "tool", "content": "[]", "tool_call_id": "c2"}));
    }

    #[test]
    fn temperature_is_sent_as_written() {
        assert_eq!(decimal(0.7).to_string(), "0.7");
        assert_eq!(decimal(1.0).to_string(), "1.0");
    }
}
