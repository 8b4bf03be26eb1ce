//! Markdown as models write it, rendered to the HTML Telegram accepts and
//! split into messages that each stand on their own: bold, italics,
//! strikethrough, inline code and code blocks, http(s) links, headings as
//! bold lines, lists as "• " / "1. " lines, tables as one line per row
//! ("header: cell"), block quotes; anything else as escaped text. Markdown
//! that does not close (`**bold`) stays literal text.
//!
//! Parts are cut at Telegram's 4096 UTF-16 units of visible text
//! (`format.rs`), at a paragraph, line, sentence or space boundary; the tags
//! open at a cut are closed there and opened again in the next part. A link
//! other than http(s) — a `tg:` link among them, which acts inside the
//! shopper's app — is its text; whether a link gets a preview is
//! `trust.rs`'s.

use pulldown_cmark::{CodeBlockKind, Event, Options, Parser, Tag, TagEnd};

use super::format::{Part, cut_ranges, escape_html, split_message};

/// One piece of rendered output: a tag opening or closing, or visible text.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// `name` is the element (`b`, `a`…); `html` the whole opening tag.
    Open {
        name: &'static str,
        html: String,
    },
    Close(&'static str),
    /// Visible text, not escaped.
    Text(String),
}

/// The tokens of `markdown` rendered for Telegram.
fn tokens(markdown: &str) -> Vec<Token> {
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_SUBSCRIPT;
    let mut out = Renderer::default();
    for (event, range) in Parser::new_ext(markdown, options).into_offset_iter() {
        out.event(event, &markdown[range]);
    }
    out.tokens
}

/// Where a list stands: its next number (`None` for bullets).
#[derive(Debug)]
struct List {
    next: Option<u64>,
}

#[derive(Debug, Default)]
struct Renderer {
    tokens: Vec<Token>,
    /// Line breaks owed before the next text (block separation).
    breaks: usize,
    /// Whether any text was written yet.
    started: bool,
    lists: Vec<List>,
    /// Whether each open link got an `<a>` (only safe URLs do).
    links: Vec<bool>,
    /// Inside a code block: text is literal.
    in_code_block: bool,
    /// Inside a table: the cells of the current row, the header.
    table: Option<Table>,
}

#[derive(Debug, Default)]
struct Table {
    header: Vec<String>,
    row: Vec<String>,
    cell: String,
}

impl Renderer {
    fn open(&mut self, name: &'static str, html: String) {
        self.flush_breaks();
        self.tokens.push(Token::Open { name, html });
    }

    fn close(&mut self, name: &'static str) {
        self.tokens.push(Token::Close(name));
    }

    /// Asks for at least `n` line breaks before the next text.
    fn block(&mut self, n: usize) {
        self.breaks = self.breaks.max(n);
    }

    fn flush_breaks(&mut self) {
        if self.started && self.breaks > 0 {
            self.tokens.push(Token::Text("\n".repeat(self.breaks)));
        }
        self.breaks = 0;
    }

    fn text(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if let Some(table) = self.table.as_mut() {
            table.cell.push_str(text);
            return;
        }
        self.flush_breaks();
        self.started = true;
        match self.tokens.last_mut() {
            Some(Token::Text(last)) => last.push_str(text),
            _ => self.tokens.push(Token::Text(text.to_owned())),
        }
    }

    /// The gap between blocks: a blank line, or one line break inside lists.
    fn block_gap(&self) -> usize {
        if self.lists.is_empty() { 2 } else { 1 }
    }

    fn event(&mut self, event: Event<'_>, source: &str) {
        match event {
            Event::Start(tag) => self.start(tag, source),
            Event::End(tag) => self.end(tag, source),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                if self.table.is_some() {
                    self.text(&code);
                } else {
                    self.open("code", "<code>".into());
                    self.text(&code);
                    self.close("code");
                }
            }
            Event::SoftBreak | Event::HardBreak => self.text("\n"),
            Event::Rule => {
                self.block(self.block_gap());
                self.text("——————");
                self.block(self.block_gap());
            }
            Event::TaskListMarker(done) => self.text(if done { "☑ " } else { "☐ " }),
            // Raw HTML, footnotes, math: shown as written.
            Event::Html(raw) | Event::InlineHtml(raw) => self.text(&raw),
            Event::FootnoteReference(_) | Event::InlineMath(_) | Event::DisplayMath(_) => self.text(source),
        }
    }

    fn start(&mut self, tag: Tag<'_>, source: &str) {
        match tag {
            Tag::Paragraph => self.block(0),
            Tag::Heading { .. } => {
                self.block(self.block_gap());
                self.open("b", "<b>".into());
            }
            Tag::BlockQuote(_) => {
                self.block(self.block_gap());
                self.open("blockquote", "<blockquote>".into());
            }
            Tag::CodeBlock(kind) => {
                self.block(self.block_gap());
                self.open("pre", "<pre>".into());
                match kind {
                    CodeBlockKind::Fenced(lang) if is_language(&lang) => {
                        self.open("code", format!("<code class=\"language-{lang}\">"));
                    }
                    _ => self.open("code", "<code>".into()),
                }
                self.in_code_block = true;
            }
            Tag::List(first) => {
                if self.lists.is_empty() {
                    self.block(2);
                } else {
                    self.block(1);
                }
                self.lists.push(List { next: first });
            }
            Tag::Item => {
                self.block(1);
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(List { next: Some(n) }) => {
                        let marker = format!("{n}. ");
                        *n += 1;
                        marker
                    }
                    _ => "• ".to_owned(),
                };
                self.text(&format!("{}{marker}", "  ".repeat(depth)));
            }
            Tag::Table(_) => {
                self.block(self.block_gap());
                self.table = Some(Table::default());
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = self.table.as_mut() {
                    table.row.clear();
                }
            }
            Tag::TableCell => {
                if let Some(table) = self.table.as_mut() {
                    table.cell.clear();
                }
            }
            Tag::Emphasis => self.open("i", "<i>".into()),
            Tag::Strong => self.open("b", "<b>".into()),
            Tag::Strikethrough => self.open("s", "<s>".into()),
            // A single `~` is not strikethrough here ("41~44 码"): shown as written.
            Tag::Subscript => self.text("~"),
            Tag::Superscript => self.text("^"),
            Tag::Link { dest_url, .. } => {
                let safe = is_safe_url(&dest_url) && self.table.is_none();
                if safe {
                    self.open("a", format!("<a href=\"{}\">", escape_attribute(&dest_url)));
                }
                self.links.push(safe);
            }
            Tag::Image { .. } => {}
            Tag::HtmlBlock | Tag::FootnoteDefinition(_) | Tag::MetadataBlock(_) => {
                self.block(self.block_gap())
            }
            Tag::DefinitionList | Tag::DefinitionListTitle | Tag::DefinitionListDefinition => self.block(1),
        }
        let _ = source;
    }

    fn end(&mut self, tag: TagEnd, _source: &str) {
        match tag {
            TagEnd::Paragraph => self.block(self.block_gap()),
            TagEnd::Heading(_) => {
                self.close("b");
                self.block(self.block_gap());
            }
            TagEnd::BlockQuote(_) => {
                self.close("blockquote");
                self.block(self.block_gap());
            }
            TagEnd::CodeBlock => {
                if let Some(Token::Text(last)) = self.tokens.last_mut() {
                    while last.ends_with('\n') {
                        last.pop();
                    }
                }
                self.in_code_block = false;
                self.close("code");
                self.close("pre");
                self.block(self.block_gap());
            }
            TagEnd::List(_) => {
                self.lists.pop();
                self.block(self.block_gap());
            }
            TagEnd::Item => self.block(1),
            TagEnd::TableCell => {
                if let Some(table) = self.table.as_mut() {
                    let cell = std::mem::take(&mut table.cell);
                    table.row.push(cell.trim().to_owned());
                }
            }
            TagEnd::TableHead => {
                if let Some(table) = self.table.as_mut() {
                    table.header = std::mem::take(&mut table.row);
                }
            }
            TagEnd::TableRow => {
                let Some(mut table) = self.table.take() else { return };
                let row = std::mem::take(&mut table.row);
                let cells: Vec<String> = row
                    .iter()
                    .enumerate()
                    .filter(|(_, cell)| !cell.is_empty())
                    .map(|(i, cell)| match table.header.get(i).filter(|h| !h.is_empty()) {
                        Some(header) => format!("{header}: {cell}"),
                        None => cell.clone(),
                    })
                    .collect();
                self.block(1);
                self.text(&format!("• {}", cells.join("; ")));
                self.table = Some(table);
            }
            TagEnd::Table => {
                self.table = None;
                self.block(self.block_gap());
            }
            TagEnd::Emphasis => self.close("i"),
            TagEnd::Strong => self.close("b"),
            TagEnd::Strikethrough => self.close("s"),
            TagEnd::Subscript => self.text("~"),
            TagEnd::Superscript => self.text("^"),
            TagEnd::Link => {
                if self.links.pop().unwrap_or(false) {
                    self.close("a");
                }
            }
            TagEnd::Image
            | TagEnd::HtmlBlock
            | TagEnd::FootnoteDefinition
            | TagEnd::MetadataBlock(_)
            | TagEnd::DefinitionList
            | TagEnd::DefinitionListTitle
            | TagEnd::DefinitionListDefinition => self.block(1),
        }
    }
}

/// Links Telegram should open: web links only. A `tg:` link (or any other
/// scheme) from the model is shown as its text: the model reads mall text
/// anyone could have written, and a `tg:` link acts inside the shopper's app.
fn is_safe_url(url: &str) -> bool {
    let lower = url.trim().to_ascii_lowercase();
    ["http://", "https://"].iter().any(|scheme| lower.starts_with(scheme))
}

/// A code block's language name, when it is a plain word (it goes into an attribute).
fn is_language(lang: &str) -> bool {
    !lang.is_empty() && lang.chars().all(|c| c.is_ascii_alphanumeric() || "+-_#.".contains(c))
}

/// Escapes a URL for an attribute in double quotes.
fn escape_attribute(url: &str) -> String {
    escape_html(url.trim()).replace('"', "&quot;")
}

/// `markdown` as Telegram messages of at most `limit` characters of visible
/// text (as Telegram counts them, UTF-16) each: every part's HTML is balanced
/// — tags open at a cut are closed there and opened again in the next part —
/// and comes with its visible text for a plain resend.
pub(crate) fn render(markdown: &str, limit: usize) -> Vec<Part> {
    let tokens = tokens(markdown);
    let visible: String = tokens
        .iter()
        .filter_map(|t| match t {
            Token::Text(text) => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let ranges = cut_ranges(&visible, limit);
    if ranges.is_empty() {
        return Vec::new();
    }
    let mut parts: Vec<Part> = Vec::with_capacity(ranges.len());
    let mut html = String::new();
    let mut open: Vec<(&'static str, String)> = Vec::new();
    // Tags to open again before the next text of a new part.
    let mut reopen: Vec<(&'static str, String)> = Vec::new();
    let mut part = 0;
    let mut pos = 0;
    // Ends a part: closes what is open in it (nothing when the tags carried
    // over were not opened again yet).
    let finish = |html: &mut String,
                  open: &[(&'static str, String)],
                  carried: bool,
                  part: usize,
                  parts: &mut Vec<Part>| {
        if !carried {
            for (name, _) in open.iter().rev() {
                html.push_str(&format!("</{name}>"));
            }
        }
        let (start, end) = ranges[part];
        parts.push(Part { html: std::mem::take(html), plain: visible[start..end].to_owned() });
    };
    for token in &tokens {
        match token {
            Token::Open { name, html: tag } => {
                if ranges.get(part + 1).is_some_and(|next| pos >= next.0) {
                    finish(&mut html, &open, !reopen.is_empty(), part, &mut parts);
                    part += 1;
                    reopen.clone_from(&open);
                }
                for (_, again) in reopen.drain(..) {
                    html.push_str(&again);
                }
                html.push_str(tag);
                open.push((name, tag.clone()));
            }
            Token::Close(name) => {
                if let Some(i) = reopen.iter().rposition(|(n, _)| n == name) {
                    // Never reopened in this part: nothing to close.
                    reopen.remove(i);
                } else {
                    html.push_str(&format!("</{name}>"));
                }
                if let Some(i) = open.iter().rposition(|(n, _)| n == name) {
                    open.remove(i);
                }
            }
            Token::Text(text) => {
                for c in text.chars() {
                    if ranges.get(part + 1).is_some_and(|next| pos >= next.0) {
                        finish(&mut html, &open, !reopen.is_empty(), part, &mut parts);
                        part += 1;
                        reopen.clone_from(&open);
                    }
                    let (start, end) = ranges[part];
                    if pos >= start && pos < end {
                        for (_, again) in reopen.drain(..) {
                            html.push_str(&again);
                        }
                        match c {
                            '&' => html.push_str("&amp;"),
                            '<' => html.push_str("&lt;"),
                            '>' => html.push_str("&gt;"),
                            c => html.push(c),
                        }
                    }
                    pos += c.len_utf8();
                }
            }
        }
    }
    finish(&mut html, &open, !reopen.is_empty(), part, &mut parts);
    while parts.len() < ranges.len() {
        let (start, end) = ranges[parts.len()];
        parts.push(Part { html: escape_html(&visible[start..end]), plain: visible[start..end].to_owned() });
    }
    parts
}

/// An answer (Markdown) as Telegram messages of at most `limit` characters
/// each, every one balanced HTML with its plain text beside it.
pub(crate) fn render_parts(text: &str, limit: usize) -> Vec<Part> {
    let parts = render(text, limit);
    if parts.is_empty() && !text.trim().is_empty() {
        // Markdown with nothing visible (an empty code block): the source as written.
        return split_message(text, limit)
            .into_iter()
            .map(|plain| Part { html: escape_html(&plain), plain })
            .collect();
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transports::telegram::format::telegram_len;

    fn html(markdown: &str) -> String {
        let parts = render(markdown, 4096);
        assert_eq!(parts.len(), 1, "{parts:?}");
        parts[0].html.clone()
    }

    #[test]
    fn emphasis_nests() {
        assert_eq!(
            html("**bold _and italic_** and ~~gone~~"),
            "<b>bold <i>and italic</i></b> and <s>gone</s>"
        );
        assert_eq!(html("***both***"), "<i><b>both</b></i>");
    }

    #[test]
    fn unbalanced_markers_stay_literal_text() {
        assert_eq!(html("**bold with no end"), "**bold with no end");
        assert_eq!(html("a * b _c"), "a * b _c");
        assert_eq!(
            html("Use <b>bold & *stars_ for 50% off > today"),
            "Use &lt;b&gt;bold &amp; *stars_ for 50% off &gt; today"
        );
        assert_eq!(html("41~44 码，100~200 元"), "41~44 码，100~200 元");
    }

    #[test]
    fn code_is_escaped_inline_and_in_blocks() {
        assert_eq!(html("run `a<b && c`"), "run <code>a&lt;b &amp;&amp; c</code>");
        assert_eq!(
            html("Look:\n\n```rust\nif a < b { x(&y) }\n```\n\ndone"),
            "Look:\n\n<pre><code class=\"language-rust\">if a &lt; b { x(&amp;y) }</code></pre>\n\ndone"
        );
    }

    #[test]
    fn links_keep_safe_urls_only() {
        assert_eq!(
            html("[Nike](https://example.com/a?b=1&c=\"2\") and [x](javascript:alert(1))"),
            "<a href=\"https://example.com/a?b=1&amp;c=&quot;2&quot;\">Nike</a> and x"
        );
        assert_eq!(html("[chat](tg://resolve?domain=mall)"), "chat");
    }

    #[test]
    fn headings_lists_and_quotes() {
        assert_eq!(
            html("# 跑鞋推荐\n\n- Nike **Pegasus**\n- Adidas\n\n1. 先去三楼\n2. 再去四楼\n\n> 今日特价"),
            "<b>跑鞋推荐</b>\n\n• Nike <b>Pegasus</b>\n• Adidas\n\n1. 先去三楼\n2. 再去四楼\n\n<blockquote>今日特价</blockquote>"
        );
        assert_eq!(html("第一行\n第二行"), "第一行\n第二行", "a line break stays a line break");
    }

    #[test]
    fn a_table_becomes_one_line_per_row() {
        let table = "| 商品 | 价格 |\n|---|---|\n| Pegasus 41 | ¥499 |\n| Ultraboost | ¥899 |";
        assert_eq!(html(table), "• 商品: Pegasus 41; 价格: ¥499\n• 商品: Ultraboost; 价格: ¥899");
    }

    /// Whether every tag opened in `html` is closed in order.
    fn balanced(html: &str) -> bool {
        let mut stack = Vec::new();
        let mut rest = html;
        while let Some(i) = rest.find('<') {
            let end = rest[i..].find('>').map(|j| i + j).unwrap_or(rest.len());
            let tag = &rest[i + 1..end];
            if let Some(name) = tag.strip_prefix('/') {
                if stack.pop() != Some(name.to_owned()) {
                    return false;
                }
            } else {
                stack.push(tag.split(' ').next().unwrap_or_default().to_owned());
            }
            rest = &rest[end.min(rest.len())..];
            rest = rest.get(1..).unwrap_or("");
        }
        stack.is_empty()
    }

    #[test]
    fn a_long_answer_splits_into_balanced_parts_within_the_limit() {
        let item = "- **Nike Pegasus 41** 跑鞋 ¥499，三楼 Nike 店有货，适合日常慢跑和通勤 👟\n";
        let long_bold = format!("**{}**", "很长的加粗段落".repeat(200));
        let markdown = format!(
            "# 推荐\n\n{}\n{long_bold}\n\n```\n{}\n```",
            item.repeat(60),
            "let x = a < b;\n".repeat(150)
        );
        let parts = render(&markdown, 1000);
        assert!(parts.len() >= 5, "{}", parts.len());
        for part in &parts {
            assert!(balanced(&part.html), "unbalanced: {}", part.html);
            assert!(telegram_len(&part.plain) <= 1000, "{}", telegram_len(&part.plain));
            assert!(!part.plain.trim().is_empty());
        }
        // A part cut inside the bold paragraph closes it and the next reopens it.
        let in_bold = |c: Option<char>| c.is_some_and(|c| "很长的加粗段落".contains(c));
        let cut = (0..parts.len() - 1)
            .find(|&k| in_bold(parts[k].plain.chars().last()) && in_bold(parts[k + 1].plain.chars().next()))
            .expect("a cut inside the bold paragraph");
        assert!(parts[cut].html.ends_with("</b>"), "closed at the cut");
        assert!(parts[cut + 1].html.starts_with("<b>"), "opened again after it");
        // Code split across parts stays code on both sides.
        let last = parts.last().expect("parts");
        assert!(
            last.html.starts_with("<pre><code>") && last.html.ends_with("</code></pre>"),
            "{}",
            last.html
        );
        // Nothing lost.
        let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
        let shown: String = parts.iter().map(|p| p.plain.as_str()).collect();
        assert_eq!(strip(&shown).matches("NikePegasus41").count(), 60);
        assert_eq!(strip(&shown).matches("letx=a<b;").count(), 150);
    }

    #[test]
    fn markdown_with_nothing_visible_is_sent_as_written() {
        let parts = render_parts("```\n```", 4096);
        assert_eq!(parts, vec![Part { html: "```\n```".into(), plain: "```\n```".into() }]);
        assert!(render_parts(" \n ", 4096).is_empty());
    }
}
