//! Server-sent events decoding for streamed completions: bytes in, in
//! whatever pieces the network delivers, `data:` payloads out.

/// Turns the bytes of an event stream into event payloads.
///
/// Payloads are the `data:` lines of an event joined by `\n`. An event ends at
/// a blank line, or as soon as its data is a complete JSON value or `[DONE]`
/// (some servers omit the blank line). Comments (`: keep-alive`) and other
/// fields are skipped.
#[derive(Debug, Default)]
pub(super) struct SseDecoder {
    pending_bytes: Vec<u8>,
    data: Vec<String>,
}

impl SseDecoder {
    /// The payloads completed by these bytes.
    pub(crate) fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending_bytes.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(end) = self.pending_bytes.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending_bytes.drain(..=end).collect();
            self.line(&String::from_utf8_lossy(&line), &mut events);
        }
        events
    }

    /// The payloads left when the stream ends.
    pub(crate) fn finish(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        let rest = std::mem::take(&mut self.pending_bytes);
        if !rest.is_empty() {
            self.line(&String::from_utf8_lossy(&rest), &mut events);
        }
        self.dispatch(&mut events);
        events
    }

    fn line(&mut self, raw: &str, events: &mut Vec<String>) {
        let line = raw.trim_end_matches(['\n', '\r']);
        if line.is_empty() {
            self.dispatch(events);
        } else if let Some(value) = line.strip_prefix("data:") {
            self.data.push(value.strip_prefix(' ').unwrap_or(value).to_owned());
            if is_complete(&self.data.join("\n")) {
                self.dispatch(events);
            }
        }
    }

    fn dispatch(&mut self, events: &mut Vec<String>) {
        if !self.data.is_empty() {
            events.push(self.data.join("\n"));
            self.data.clear();
        }
    }
}

fn is_complete(payload: &str) -> bool {
    payload.trim() == "[DONE]" || serde_json::from_str::<serde::de::IgnoredAny>(payload).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const STREAM: &str = ": OPENROUTER PROCESSING\n\ndata: {\"a\":\"跑鞋\"}\r\n\r\nevent: message\ndata:{\"b\":2}\n\ndata: [DONE]\n\n";

    #[test]
    fn every_split_point_gives_the_same_events() {
        let bytes = STREAM.as_bytes();
        for cut in 0..bytes.len() {
            let mut decoder = SseDecoder::default();
            let mut events = decoder.feed(&bytes[..cut]);
            events.extend(decoder.feed(&bytes[cut..]));
            events.extend(decoder.finish());
            assert_eq!(events, [r#"{"a":"跑鞋"}"#, r#"{"b":2}"#, "[DONE]"], "cut at {cut}");
        }
    }

    #[test]
    fn events_without_blank_lines_are_separated() {
        let mut decoder = SseDecoder::default();
        let events = decoder.feed(b"data: {\"a\":1}\ndata: {\"b\":2}\ndata: [DONE]");
        assert_eq!(events, [r#"{"a":1}"#, r#"{"b":2}"#]);
        assert_eq!(decoder.finish(), ["[DONE]"]);
    }

    #[test]
    fn multi_line_data_is_joined() {
        let mut decoder = SseDecoder::default();
        assert_eq!(decoder.feed(b"data: {\"a\":\ndata: 1}\n\n"), ["{\"a\":\n1}"]);
    }

    #[test]
    fn an_unparseable_event_is_still_delivered_at_its_end() {
        let mut decoder = SseDecoder::default();
        assert_eq!(decoder.feed(b"data: <html>oops\n\n"), ["<html>oops"]);
    }
}
