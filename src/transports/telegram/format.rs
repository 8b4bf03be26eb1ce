//! Telegram's message limit and how a text is measured, escaped and cut to
//! it; `markdown.rs` renders an answer's Markdown into [`Part`]s with these.

/// Telegram's limit on the text of one message.
pub(crate) const MESSAGE_LIMIT: usize = 4096;

/// One message of an answer: its HTML, and the same text plain for when
/// Telegram cannot parse the HTML.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Part {
    pub(crate) html: String,
    pub(crate) plain: String,
}

/// Escapes `&`, `<` and `>` so plain text can be sent with `parse_mode=HTML`.
pub(crate) fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// The length of a text as Telegram measures it: UTF-16 code units (a
/// Chinese character counts one, an emoji outside the basic plane two).
pub(crate) fn telegram_len(text: &str) -> usize {
    text.chars().map(char::len_utf16).sum()
}

/// Splits `text` into messages of at most `limit` characters (as
/// [`telegram_len`] counts them), cutting at a paragraph break if possible,
/// else at a line break, else after a sentence, else at a space, else
/// anywhere. Only the line breaks and spaces at the cuts are dropped; no other
/// character is lost. A text within the limit comes back as one message.
pub(crate) fn split_message(text: &str, limit: usize) -> Vec<String> {
    cut_ranges(text, limit).into_iter().map(|(start, end)| text[start..end].to_owned()).collect()
}

/// The byte ranges of `text` that [`split_message`] makes into messages.
pub(crate) fn cut_ranges(text: &str, limit: usize) -> Vec<(usize, usize)> {
    let limit = limit.max(2);
    let mut ranges = Vec::new();
    let end_of_text = text.trim_end().len();
    let mut at = 0;
    loop {
        let rest = &text[at..end_of_text];
        let trimmed = rest.trim_start();
        at += rest.len() - trimmed.len();
        let rest = trimmed;
        if rest.is_empty() {
            break;
        }
        let window_end = prefix_within(rest, limit);
        if window_end == rest.len() {
            ranges.push((at, at + rest.len()));
            break;
        }
        let cut = best_cut(&rest[..window_end]);
        let chunk = rest[..cut].trim_end();
        if !chunk.is_empty() {
            ranges.push((at, at + chunk.len()));
        }
        at += cut;
    }
    ranges
}

/// The byte length of the longest prefix of `text` within `limit` UTF-16
/// units (at least one character).
fn prefix_within(text: &str, limit: usize) -> usize {
    let mut units = 0;
    for (i, c) in text.char_indices() {
        units += c.len_utf16();
        if units > limit {
            return if i == 0 { c.len_utf8() } else { i };
        }
    }
    text.len()
}

/// Where to cut `window` (a byte index after the last character of the first
/// part): the last paragraph break, line break, sentence end or space that
/// leaves at least a quarter of the window in the first part.
fn best_cut(window: &str) -> usize {
    let min = window.len() / 4;
    let candidates = [
        window.rfind("\n\n").map(|i| i + 2),
        window.rfind('\n').map(|i| i + 1),
        last_sentence_end(window),
        window.rfind([' ', '\t', '\u{3000}']).map(|i| i + 1),
    ];
    candidates.into_iter().flatten().find(|&cut| cut > min).unwrap_or(window.len())
}

/// The byte index just after the last sentence end in `window`: a Chinese
/// full stop, exclamation or question mark, or `.`/`!`/`?`/`;` followed by a space.
fn last_sentence_end(window: &str) -> Option<usize> {
    let mut found = None;
    let mut chars = window.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        let end = i + c.len_utf8();
        let next_is_space = chars.peek().is_some_and(|&(_, n)| n.is_whitespace());
        if matches!(c, '。' | '！' | '？' | '；' | '…')
            || (matches!(c, '.' | '!' | '?' | ';') && next_is_space)
        {
            found = Some(end);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn without_whitespace(s: &str) -> String {
        s.chars().filter(|c| !c.is_whitespace()).collect()
    }

    #[test]
    fn escapes_the_three_html_characters() {
        assert_eq!(escape_html("a < b && c > d"), "a &lt; b &amp;&amp; c &gt; d");
        assert_eq!(escape_html("<b>*_x_*</b>"), "&lt;b&gt;*_x_*&lt;/b&gt;");
        assert_eq!(escape_html("跑鞋 ¥499"), "跑鞋 ¥499");
    }

    #[test]
    fn short_text_is_one_message() {
        assert_eq!(split_message("你好", 4096), vec!["你好".to_owned()]);
        assert!(split_message("", 4096).is_empty());
        assert!(split_message(" \n\n ", 4096).is_empty());
    }

    #[test]
    fn counts_characters_not_bytes() {
        // 4096 Chinese characters are 12 288 bytes but fit in one message.
        let text = "鞋".repeat(4096);
        let parts = split_message(&text, 4096);
        assert_eq!(parts, vec![text]);
    }

    #[test]
    fn counts_emoji_outside_the_basic_plane_as_two() {
        let text = "👟".repeat(3000);
        let parts = split_message(&text, 4096);
        assert_eq!(parts.len(), 2);
        assert!(parts.iter().all(|p| telegram_len(p) <= 4096));
        assert_eq!(parts.concat(), text);
    }

    #[test]
    fn cuts_at_the_paragraph_break() {
        let first = "a".repeat(60);
        let second = "b".repeat(60);
        let text = format!("{first}\nline\n\n{second}");
        let parts = split_message(&text, 100);
        assert_eq!(parts, vec![format!("{first}\nline"), second]);
    }

    #[test]
    fn cuts_at_a_line_break_when_there_is_no_paragraph_break() {
        let text = format!("{}\n{}", "a".repeat(70), "b".repeat(70));
        let parts = split_message(&text, 100);
        assert_eq!(parts, vec!["a".repeat(70), "b".repeat(70)]);
    }

    #[test]
    fn cuts_after_a_sentence_when_there_is_no_line_break() {
        let text = format!("{}。{}", "鞋".repeat(70), "袜".repeat(70));
        let parts = split_message(&text, 100);
        assert_eq!(parts, vec![format!("{}。", "鞋".repeat(70)), "袜".repeat(70)]);

        let text = format!("{}. {}", "x".repeat(70), "y".repeat(70));
        let parts = split_message(&text, 100);
        assert_eq!(parts, vec![format!("{}.", "x".repeat(70)), "y".repeat(70)]);
    }

    #[test]
    fn a_decimal_point_is_not_a_sentence_end() {
        let text = format!("{} 3.5 {}", "x".repeat(60), "y".repeat(60));
        let parts = split_message(&text, 100);
        assert_eq!(parts[0], format!("{} 3.5", "x".repeat(60)));
    }

    #[test]
    fn a_text_without_any_boundary_is_cut_hard_and_nothing_is_lost() {
        let text = "z".repeat(250);
        let parts = split_message(&text, 100);
        assert_eq!(parts.iter().map(|p| p.len()).collect::<Vec<_>>(), vec![100, 100, 50]);
        assert_eq!(parts.concat(), text);
    }

    #[test]
    fn a_break_too_early_in_the_window_is_not_used() {
        // A line break after 5 characters would leave a tiny first message.
        let text = format!("short\n{}", "w ".repeat(100));
        let parts = split_message(&text, 100);
        assert!(telegram_len(&parts[0]) > 25, "{parts:?}");
    }

    #[test]
    fn a_long_mixed_answer_keeps_every_character_within_the_limit() {
        let paragraph = "Nike Pegasus 41 跑鞋，¥499，3 楼 Nike 店有货。适合日常慢跑和通勤！\n";
        let text: String = (0..200).map(|i| format!("{i}. {paragraph}\n")).collect();
        let parts = split_message(&text, 4096);
        assert!(parts.len() >= 3);
        assert!(parts.iter().all(|p| telegram_len(p) <= 4096 && !p.is_empty()));
        assert_eq!(without_whitespace(&parts.concat()), without_whitespace(&text));
        assert!(parts[0].ends_with('！'), "cut at a paragraph: {:?}", &parts[0][parts[0].len() - 20..]);
    }
}
