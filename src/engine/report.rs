//! What went unanswered: each turn that ended in "I don't know", a search
//! that found nothing (demand), a tool error, a turn cut at the round limit,
//! a hand-off and its reason, a 👍 or 👎 on an answer, is counted in the
//! state store under the day (`report:<day>`, kept `report.keep_days`) — the
//! question's words, never who asked — and in Prometheus
//! (`mallbot_report_events_total{kind}`). [`collect`] reads a range of days
//! back for `mallbot report` and `/report`: the top unanswered questions
//! grouped by likeness, the top empty searches, hand-offs by reason, 👍/👎 per
//! tool, and the share of conversations resolved without a person.
//!
//! Like questions are grouped with case, script and punctuation folded, by
//! their character pairs (Jaccard ≥ 0.5); `mallbot report` writes text, CSV
//! or JSON.

use std::collections::{BTreeMap, HashMap};
use std::time::Duration;

use serde::Serialize;

use crate::infra::state::keys;
use crate::infra::state::{CounterStore, StateError, ValueStore};

/// What one turn (or one reaction) adds to the report.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Event {
    /// The bot did not understand the question.
    DontKnow(String),
    /// A search with nothing found: the words searched for.
    EmptySearch(String),
    /// A tool failed: its name.
    ToolError(String),
    /// The turn was cut at the round limit: the question.
    RoundLimit(String),
    /// The shopper went to a person, for this reason.
    Handoff(String),
    /// A 👍 (`up`) or 👎 on an answer that ran these tools, to this question.
    Reaction { up: bool, tools: Vec<String>, question: String },
}

impl Event {
    /// The kind, as the report and the metric name it.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Event::DontKnow(_) => "dont_know",
            Event::EmptySearch(_) => "empty_search",
            Event::ToolError(_) => "tool_error",
            Event::RoundLimit(_) => "round_limit",
            Event::Handoff(_) => "handoff",
            Event::Reaction { up: true, .. } => "thumbs_up",
            Event::Reaction { up: false, .. } => "thumbs_down",
        }
    }

    /// Whether the shopper was not helped (a miss: two in a row offer a person).
    pub(crate) fn is_miss(&self) -> bool {
        matches!(
            self,
            Event::DontKnow(_) | Event::EmptySearch(_) | Event::ToolError(_) | Event::RoundLimit(_)
        )
    }
}

/// Today, in days since the Unix epoch (UTC).
pub(crate) fn today() -> i64 {
    crate::infra::state::unix_now().div_euclid(86_400)
}

/// A text as kept: one line, at most 100 characters.
fn clip(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    line.chars().take(100).collect()
}

/// A conversation's mark in the report: a hash of its key, so that
/// conversations can be counted without naming anyone.
fn mark(conversation: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, format!("report:{conversation}").as_bytes());
    digest.as_ref()[..6].iter().map(|b| format!("{b:02x}")).collect()
}

/// Counts one turn of `conversation` (`turn`: a shopper's message was
/// answered, not a reaction) and its `events` under today, kept `keep`.
pub(crate) async fn record(
    state: &dyn CounterStore,
    keep: Duration,
    conversation: &str,
    turn: bool,
    events: &[Event],
) {
    let day = crate::infra::state::keys::report(today());
    let conv = mark(conversation);
    let mut fields: Vec<String> = Vec::new();
    if turn {
        fields.push("turns".to_owned());
        fields.push(format!("conv:{conv}"));
    }
    for event in events {
        metrics::counter!(crate::infra::ops::REPORT_EVENTS, "kind" => event.kind()).increment(1);
        match event {
            Event::DontKnow(q) => fields.push(format!("dont_know:{}", clip(q))),
            Event::EmptySearch(words) => fields.push(format!("empty_search:{}", clip(words))),
            Event::ToolError(tool) => fields.push(format!("tool_error:{tool}")),
            Event::RoundLimit(q) => fields.push(format!("round_limit:{}", clip(q))),
            Event::Handoff(reason) => {
                fields.push(format!("handoff:{}", clip(reason)));
                fields.push(format!("handoff_conv:{conv}"));
            }
            Event::Reaction { up, tools, question } => {
                let thumb = if *up { "up" } else { "down" };
                if tools.is_empty() {
                    fields.push(format!("{thumb}:-"));
                }
                fields.extend(tools.iter().map(|t| format!("{thumb}:{t}")));
                if !*up {
                    fields.push(format!("down_q:{}", clip(question)));
                }
            }
        }
    }
    if fields.is_empty() {
        return;
    }
    let deltas: Vec<(&str, &str, i64)> = fields.iter().map(|f| (day.as_str(), f.as_str(), 1)).collect();
    if let Err(e) = state.add_counts(&deltas, keep).await {
        tracing::warn!(error = %e, "could not count the turn in the report");
    }
}

/// A shopper's standing 👍 (`up`) or 👎 on an answer, and the day it was counted under.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, serde::Deserialize)]
pub(crate) struct Rating {
    pub(crate) up: bool,
    pub(crate) day: i64,
}

/// Keeps what the answer sent as message `message_id` of `chat` was about,
/// for `keep`, so that a 👍/👎 on that message is counted for it.
pub(crate) async fn keep_rated(
    state: &dyn ValueStore,
    chat: i64,
    message_id: i32,
    rated: &crate::engine::reply::Rated,
    keep: Duration,
) -> Result<(), StateError> {
    let value = serde_json::to_string(rated).unwrap_or_default();
    state.put_value(&keys::rated(chat, message_id), &value, keep).await
}

/// What the answer sent as message `message_id` of `chat` was about, if it
/// was kept and has not expired.
pub(crate) async fn rated_answer(
    state: &dyn ValueStore,
    chat: i64,
    message_id: i32,
) -> Result<Option<crate::engine::reply::Rated>, StateError> {
    let value = state.get_value(&keys::rated(chat, message_id)).await?;
    Ok(value.and_then(|v| serde_json::from_str(&v).ok()))
}

/// The standing rating of `user` on the answer sent as message `message_id`
/// of `chat` (`None`: none, or taken back).
pub(crate) async fn standing_rating(
    state: &dyn ValueStore,
    chat: i64,
    message_id: i32,
    user: i64,
) -> Result<Option<Rating>, StateError> {
    let value = state.get_value(&keys::rating(chat, message_id, user)).await?;
    Ok(value.and_then(|v| serde_json::from_str(&v).ok()))
}

/// Keeps `rating` (`None`: taken back) as the standing rating of `user` on
/// the answer sent as message `message_id` of `chat`, for `keep`.
pub(crate) async fn keep_standing_rating(
    state: &dyn ValueStore,
    chat: i64,
    message_id: i32,
    user: i64,
    rating: Option<&Rating>,
    keep: Duration,
) -> Result<(), StateError> {
    let value = match rating {
        Some(rating) => serde_json::to_string(rating).unwrap_or_default(),
        None => "null".to_owned(),
    };
    state.put_value(&keys::rating(chat, message_id, user), &value, keep).await
}

/// A shopper's rating of an answer changed from `before` to `after` (`None`: none): the
/// one before is taken back from its day, the new one counted under its own — each shopper
/// counts once per answer, with their last rating.
pub(crate) async fn rerate(
    state: &dyn CounterStore,
    keep: Duration,
    before: Option<Rating>,
    after: Option<Rating>,
    rated: &crate::engine::reply::Rated,
) {
    let fields = |up: bool| {
        let thumb = if up { "up" } else { "down" };
        let mut fields: Vec<String> = rated.tools.iter().map(|t| format!("{thumb}:{t}")).collect();
        if rated.tools.is_empty() {
            fields.push(format!("{thumb}:-"));
        }
        if !up {
            fields.push(format!("down_q:{}", clip(&rated.question)));
        }
        fields
    };
    let mut deltas: Vec<(String, String, i64)> = Vec::new();
    if let Some(old) = before {
        let day = crate::infra::state::keys::report(old.day);
        deltas.extend(fields(old.up).into_iter().map(|f| (day.clone(), f, -1)));
    }
    if let Some(new) = after {
        let day = crate::infra::state::keys::report(new.day);
        deltas.extend(fields(new.up).into_iter().map(|f| (day.clone(), f, 1)));
        let event = Event::Reaction { up: new.up, tools: rated.tools.clone(), question: String::new() };
        metrics::counter!(crate::infra::ops::REPORT_EVENTS, "kind" => event.kind()).increment(1);
    }
    let deltas: Vec<(&str, &str, i64)> =
        deltas.iter().map(|(k, f, d)| (k.as_str(), f.as_str(), *d)).collect();
    if let Err(e) = state.add_counts(&deltas, keep).await {
        tracing::warn!(error = %e, "could not count the rating in the report");
    }
}

/// One line of a top list: what, how often, and the texts grouped in it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Row {
    pub(crate) text: String,
    pub(crate) count: i64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) like: Vec<String>,
}

/// 👍 and 👎 on answers that ran one tool.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub(crate) struct Thumbs {
    pub(crate) up: i64,
    pub(crate) down: i64,
}

/// The report over a range of days.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct Report {
    /// Days covered, ending today.
    pub(crate) days: i64,
    /// Turns answered.
    pub(crate) turns: i64,
    /// Conversations (a shopper's chat on one day).
    pub(crate) conversations: i64,
    /// Conversations that went to a person.
    pub(crate) with_person: i64,
    /// Questions not understood, or cut at the round limit, grouped by likeness.
    pub(crate) unanswered: Vec<Row>,
    /// Searches with nothing found.
    pub(crate) empty_searches: Vec<Row>,
    /// Hand-offs by reason.
    pub(crate) handoffs: Vec<Row>,
    /// Tool errors by tool.
    pub(crate) tool_errors: Vec<Row>,
    /// 👍/👎 by tool (`-`: an answer with no tool).
    pub(crate) thumbs: BTreeMap<String, Thumbs>,
    /// Questions answered with a 👎.
    pub(crate) thumbs_down: Vec<Row>,
}

impl Report {
    /// The share of conversations resolved without a person, in percent.
    pub(crate) fn resolved_share(&self) -> Option<f64> {
        (self.conversations > 0).then(|| {
            let without = (self.conversations - self.with_person).max(0) as f64;
            (without * 1000.0 / self.conversations as f64).round() / 10.0
        })
    }
}

/// How many rows a top list shows.
pub(crate) const TOP: usize = 10;

/// The report of the last `days` days (today included).
pub async fn collect(state: &dyn CounterStore, days: i64) -> Result<Report, crate::infra::state::StateError> {
    let days = days.max(1);
    let mut merged: HashMap<String, i64> = HashMap::new();
    let today = today();
    for day in (today - days + 1)..=today {
        for (field, count) in state.counts(&crate::infra::state::keys::report(day)).await? {
            *merged.entry(field).or_default() += count;
        }
    }
    let mut report = Report { days, ..Report::default() };
    let mut by_kind: HashMap<&str, Vec<(String, i64)>> = HashMap::new();
    for (field, count) in merged {
        if count == 0 {
            continue; // a rating taken back
        }
        let (kind, rest) = field.split_once(':').unwrap_or((field.as_str(), ""));
        match kind {
            "turns" => report.turns += count,
            "conv" => report.conversations += 1,
            "handoff_conv" => report.with_person += 1,
            "up" => report.thumbs.entry(rest.to_owned()).or_default().up += count,
            "down" => report.thumbs.entry(rest.to_owned()).or_default().down += count,
            "dont_know" | "round_limit" => {
                by_kind.entry("unanswered").or_default().push((rest.to_owned(), count))
            }
            "empty_search" => by_kind.entry("empty_search").or_default().push((rest.to_owned(), count)),
            "handoff" => by_kind.entry("handoff").or_default().push((rest.to_owned(), count)),
            "tool_error" => by_kind.entry("tool_error").or_default().push((rest.to_owned(), count)),
            "down_q" => by_kind.entry("down_q").or_default().push((rest.to_owned(), count)),
            _ => {}
        }
    }
    let mut take = |kind: &str, group: bool| {
        let items = by_kind.remove(kind).unwrap_or_default();
        if group { grouped(items) } else { top(items) }
    };
    report.unanswered = take("unanswered", true);
    report.empty_searches = take("empty_search", true);
    report.handoffs = take("handoff", false);
    report.tool_errors = take("tool_error", false);
    report.thumbs_down = take("down_q", true);
    Ok(report)
}

/// The rows by count, then text; at most [`TOP`].
fn top(items: Vec<(String, i64)>) -> Vec<Row> {
    let mut rows: Vec<Row> =
        items.into_iter().map(|(text, count)| Row { text, count, like: Vec::new() }).collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
    rows.truncate(TOP);
    rows
}

/// Texts grouped by likeness: the same words whatever the case, spaces,
/// punctuation or Chinese script, or sharing most of their character pairs
/// (Jaccard ≥ 0.5); each group named by its most frequent text.
fn grouped(items: Vec<(String, i64)>) -> Vec<Row> {
    let mut items = items;
    items.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut groups: Vec<(Row, std::collections::HashSet<String>)> = Vec::new();
    for (text, count) in items {
        let pairs = bigrams(&text);
        match groups.iter_mut().find(|(_, g)| jaccard(g, &pairs) >= 0.5) {
            Some((row, _)) => {
                row.count += count;
                row.like.push(text);
            }
            None => groups.push((Row { text, count, like: Vec::new() }, pairs)),
        }
    }
    let mut rows: Vec<Row> = groups.into_iter().map(|(row, _)| row).collect();
    rows.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.text.cmp(&b.text)));
    rows.truncate(TOP);
    rows
}

/// A text's character pairs after folding case, script and punctuation.
fn bigrams(text: &str) -> std::collections::HashSet<String> {
    let folded = handlers::texts::zh_hant::to_simplified(&text.to_lowercase());
    let chars: Vec<char> = folded.chars().filter(|c| c.is_alphanumeric()).collect();
    if chars.len() < 2 {
        return chars.iter().map(|c| c.to_string()).collect();
    }
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

fn jaccard(a: &std::collections::HashSet<String>, b: &std::collections::HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 1.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// The report as an operator reads it, in English (an operator's tool).
pub fn text(report: &Report) -> String {
    let mut out = format!("What went unanswered — the last {} day(s)\n", report.days);
    let share = report.resolved_share().map_or("—".to_owned(), |s| format!("{s}%"));
    out += &format!(
        "turns: {}  conversations: {}  with a person: {}  resolved without a person: {share}\n",
        report.turns, report.conversations, report.with_person
    );
    let section = |out: &mut String, title: &str, rows: &[Row]| {
        out.push_str(&format!("\n{title}:\n"));
        if rows.is_empty() {
            out.push_str("  —\n");
        }
        for row in rows {
            out.push_str(&format!("  {:>4}  {}", row.count, row.text));
            if !row.like.is_empty() {
                out.push_str(&format!("  (also: {})", row.like.join(" / ")));
            }
            out.push('\n');
        }
    };
    section(&mut out, "Unanswered questions", &report.unanswered);
    section(&mut out, "Searches with nothing found", &report.empty_searches);
    section(&mut out, "Hand-offs to a person, by reason", &report.handoffs);
    section(&mut out, "Tool errors", &report.tool_errors);
    out.push_str("\n👍/👎 per tool:\n");
    if report.thumbs.is_empty() {
        out.push_str("  —\n");
    }
    for (tool, thumbs) in &report.thumbs {
        out.push_str(&format!("  {tool}: 👍 {} 👎 {}\n", thumbs.up, thumbs.down));
    }
    section(&mut out, "Answers with a 👎", &report.thumbs_down);
    out
}

/// A CSV cell a spreadsheet shows as text, never runs: quoted, and a text a spreadsheet
/// would read as a formula (a leading `=`, `+`, `-`, `@`, tab or carriage return, as
/// OWASP lists them) starts with `'`.
pub(crate) fn csv_cell(text: &str) -> String {
    let formula = text.starts_with(['=', '+', '-', '@', '\t', '\r']);
    let text = if formula { format!("'{text}") } else { text.to_owned() };
    format!("\"{}\"", text.replace('"', "\"\""))
}

/// The report as CSV: `section,text,count`; shoppers' words never become formulas.
pub fn csv(report: &Report) -> String {
    let quote = |s: &str| csv_cell(s);
    let mut out = String::from("section,text,count\n");
    let share = report.resolved_share().map_or(String::new(), |s| s.to_string());
    for (name, value) in [
        ("turns", report.turns.to_string()),
        ("conversations", report.conversations.to_string()),
        ("with_person", report.with_person.to_string()),
        ("resolved_without_person_percent", share),
    ] {
        out += &format!("summary,{name},{value}\n");
    }
    for (section, rows) in [
        ("unanswered", &report.unanswered),
        ("empty_search", &report.empty_searches),
        ("handoff", &report.handoffs),
        ("tool_error", &report.tool_errors),
        ("thumbs_down_question", &report.thumbs_down),
    ] {
        for row in rows {
            out += &format!("{section},{},{}\n", quote(&row.text), row.count);
        }
    }
    for (tool, thumbs) in &report.thumbs {
        out += &format!(
            "thumbs_up,{},{}\nthumbs_down,{},{}\n",
            quote(tool),
            thumbs.up,
            quote(tool),
            thumbs.down
        );
    }
    out
}

/// A report's period as it is read: at most `keep_days` (older days are no longer kept);
/// `Some(keep_days)` when `days` asked for more and was cut to it.
pub fn clamp_period(days: i64, keep_days: u64) -> (i64, Option<i64>) {
    let keep = i64::try_from(keep_days.max(1)).unwrap_or(i64::MAX);
    if days > keep { (keep, Some(keep)) } else { (days.max(1), None) }
}

/// What an operator is told when the period asked for was cut to `keep` days.
pub fn clamped_note(keep: i64) -> String {
    format!("(only the last {keep} day(s) are kept (report.keep_days): the report covers those)")
}

/// Reads `7d`, `24h`, `2w` or a bare number of days into days (at least 1).
pub fn parse_since(text: &str) -> Result<i64, String> {
    let text = text.trim();
    let bad = || format!("`{text}` is not a period like 7d, 24h or 2w");
    let (number, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len()));
    let n: i64 = number.parse().map_err(|_| bad())?;
    let days = match unit {
        "" | "d" => n,
        "h" => n.saturating_add(23) / 24,
        "w" => n.saturating_mul(7),
        _ => return Err(bad()),
    };
    Ok(days.max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_questions_are_grouped_and_periods_read() {
        let rows = grouped(vec![
            ("有没有宠物美容".into(), 2),
            ("有沒有寵物美容？".into(), 1),
            ("停车场怎么收费".into(), 1),
        ]);
        assert_eq!(rows.len(), 2, "{rows:?}");
        assert_eq!((rows[0].text.as_str(), rows[0].count), ("有没有宠物美容", 3));
        assert_eq!(rows[0].like, vec!["有沒有寵物美容？".to_owned()]);
        assert_eq!(parse_since("7d"), Ok(7));
        assert_eq!(parse_since("48h"), Ok(2));
        assert_eq!(parse_since("2w"), Ok(14));
        assert!(parse_since("soon").is_err());
    }
}
