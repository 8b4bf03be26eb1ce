//! The mall's service desk, whatever the transport: [`Desk`] (`[support]`:
//! where the desk is, its hours, how long a shopper waits for an answer),
//! [`Link`] (a shopper's conversation with the desk: their topic, open or
//! ended, answered yet), kept in the state store so that it survives restarts
//! and is shared by every instance, and the card that opens a topic.

use std::time::Duration;

use handlers::Lang;
use serde::{Deserialize, Serialize};
use services::{MallApi, PageRequest};

use crate::engine::llm::{ChatMessage, Role};
pub(crate) use crate::infra::config::hours::Hours;
pub(crate) use crate::infra::config::hours::parse_offset;
use crate::infra::state::ValueStore;

/// How long a link between a shopper and their topic is kept after its last change.
pub(crate) const LINK_TTL: Duration = Duration::from_secs(90 * 24 * 3600);

/// The desk as the config describes it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Desk {
    /// The desk's forum supergroup.
    pub(crate) chat_id: i64,
    /// When staff answer; `None` = always.
    pub(crate) hours: Option<Hours>,
    /// The desk's time zone, minutes east of UTC.
    pub(crate) offset_mins: i32,
    /// How long a shopper waits before being offered to go on with the bot (`None` = never).
    pub(crate) answer_within: Option<Duration>,
}

impl Desk {
    /// The desk of `[support]`; `None` when `chat_id` is 0 (no desk in Telegram).
    pub(crate) fn new(chat_id: i64, hours: &str, utc_offset: &str, answer_within_mins: f64) -> Option<Desk> {
        if chat_id == 0 {
            return None;
        }
        Some(Desk {
            chat_id,
            hours: Hours::parse(hours).ok().flatten(),
            offset_mins: parse_offset(utc_offset).unwrap_or(480),
            answer_within: (answer_within_mins > 0.0)
                .then(|| Duration::from_secs_f64(answer_within_mins * 60.0)),
        })
    }

    /// When the desk is closed at `now` (unix seconds): the time it opens
    /// (`HH:MM`, desk time); `None` while it is open.
    pub(crate) fn closed_until(&self, now: i64) -> Option<String> {
        let hours = self.hours.as_ref()?;
        let minute = (now + i64::from(self.offset_mins) * 60).rem_euclid(86_400) / 60;
        (!hours.is_open(minute as u32)).then(|| hm(hours.open))
    }
}

fn hm(minute: u32) -> String {
    format!("{:02}:{:02}", (minute / 60) % 24, minute % 60)
}

/// A shopper's conversation with the desk.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Link {
    /// The shopper.
    pub(crate) user_id: i64,
    /// The desk's group the topic is in: a link of another group (before `support.chat_id`
    /// changed) is no link, its thread id there being someone else's topic here.
    #[serde(default)]
    pub(crate) chat_id: i64,
    /// Their topic in the desk's group.
    pub(crate) thread: i32,
    /// The topic's name (the shopper's name), to mark it.
    pub(crate) name: String,
    /// Staff and shopper are talking: the bot stays quiet.
    pub(crate) open: bool,
    /// Staff wrote since it was opened (the shopper was told a person is there).
    pub(crate) answered: bool,
    /// When it was last opened (unix ms): a reminder belongs to one opening.
    pub(crate) opened_ms: i64,
    /// The shopper's language.
    pub(crate) lang: String,
}

/// The shopper's link to the desk `desk_chat`, if any: a link to another group is none
/// (a store that cannot be read: none, logged).
pub(crate) async fn link_of(
    state: &dyn ValueStore,
    platform: &str,
    user_id: i64,
    desk_chat: i64,
) -> Option<Link> {
    match state.get_value(&crate::infra::state::keys::desk_shopper(platform, user_id)).await {
        Ok(value) => value
            .and_then(|v| serde_json::from_str::<Link>(&v).ok())
            .filter(|link| link.chat_id == desk_chat && desk_chat != 0),
        Err(e) => {
            tracing::warn!(error = %e, "could not read the shopper's link to the service desk");
            None
        }
    }
}

/// Keeps the link, and which shopper its topic belongs to.
pub(crate) async fn save_link(
    state: &dyn ValueStore,
    platform: &str,
    chat_id: i64,
    link: &Link,
) -> Result<(), crate::infra::state::StateError> {
    let value = serde_json::to_string(link).unwrap_or_default();
    state
        .put_value(&crate::infra::state::keys::desk_shopper(platform, link.user_id), &value, LINK_TTL)
        .await?;
    state
        .put_value(
            &crate::infra::state::keys::desk_topic(chat_id, link.thread),
            &link.user_id.to_string(),
            LINK_TTL,
        )
        .await
}

/// The shopper whose topic `thread` is in the desk's group `chat_id`, if it is one.
pub(crate) async fn shopper_of_topic(state: &dyn ValueStore, chat_id: i64, thread: i32) -> Option<i64> {
    match state.get_value(&crate::infra::state::keys::desk_topic(chat_id, thread)).await {
        Ok(value) => value.and_then(|v| v.parse().ok()),
        Err(e) => {
            tracing::warn!(error = %e, "could not read a service desk topic");
            None
        }
    }
}

/// The name of a shopper's topic: their name and a short mark of their id
/// (two shoppers of the same name get two topics).
pub(crate) fn topic_name(name: &str, user_id: i64) -> String {
    let name: String = name.trim().chars().take(100).collect();
    let name = if name.is_empty() { "?".to_owned() } else { name };
    format!("{name} · {}", user_id.rem_euclid(10_000))
}

/// The card that opens (or reopens) a topic, in the desk's language `desk`:
/// the shopper's name and language, the reason, the last few messages, the
/// cart and orders.
pub(crate) fn card(
    desk: Lang,
    name: &str,
    shopper: Lang,
    reason: &str,
    history: &[ChatMessage],
    shopping: &str,
) -> String {
    let recent = recent_lines(history, 6);
    let recent = if recent.is_empty() { "—".to_owned() } else { recent };
    let shopping = if shopping.is_empty() { "—" } else { shopping };
    let wrote = written_lang(history).unwrap_or(shopper);
    (desk.texts().support.card)(
        &one_line(name),
        wrote.texts().model_language,
        &one_line(reason),
        &recent,
        shopping,
    )
}

/// The card as the desk's Markdown (what Telegram shows): the shopper's name, reason and
/// lines and the mall's names are shown as written — never a link, bold or a line of the
/// card's own (newlines are flattened).
pub(crate) fn markdown_card(
    desk: Lang,
    name: &str,
    shopper: Lang,
    reason: &str,
    history: &[ChatMessage],
    shopping: &str,
) -> String {
    let lines = |text: &str| text.lines().map(literal).collect::<Vec<_>>().join("\n");
    let recent = recent_lines(history, 6);
    let recent = if recent.is_empty() { "—".to_owned() } else { lines(&recent) };
    let shopping = if shopping.is_empty() { "—".to_owned() } else { lines(shopping) };
    let (name, reason) = (literal(&one_line(name)), literal(&one_line(reason)));
    let wrote = written_lang(history).unwrap_or(shopper);
    (desk.texts().support.card)(&name, wrote.texts().model_language, &reason, &recent, &shopping)
}

/// A shopper's message relayed to their topic: marked as theirs (`🧑 ›`), shown as written.
pub(crate) fn relayed(text: &str) -> String {
    format!("🧑 › {}", literal(text))
}

/// A text on one line: every run of whitespace, newlines included, one space.
pub(crate) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `text` as Markdown that shows it as written: every ASCII punctuation mark escaped (no
/// link, emphasis, heading, list or HTML can come of it).
pub(crate) fn literal(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The language the shopper wrote their latest message in (that has any letters).
pub(crate) fn written_lang(history: &[ChatMessage]) -> Option<Lang> {
    history.iter().rev().filter(|m| m.role == Role::User).find_map(|m| Lang::detect(m.text()))
}

/// The last `count` lines the shopper and the bot wrote (not tool calls), clipped.
pub(crate) fn recent_lines(history: &[ChatMessage], count: usize) -> String {
    let lines: Vec<String> = history
        .iter()
        .filter(|m| m.tool_calls.is_empty() && matches!(m.role, Role::User | Role::Assistant))
        .filter(|m| !m.text().trim().is_empty())
        .map(|m| {
            let who = if m.role == Role::User { "🧑" } else { "🤖" };
            let text: String = m.text().split_whitespace().collect::<Vec<_>>().join(" ");
            let clipped: String = text.chars().take(120).collect();
            let more = if text.chars().count() > 120 { "…" } else { "" };
            format!("{who} {clipped}{more}")
        })
        .collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

/// The shopper's cart and newest orders, a line each (empty when none, or
/// the mall cannot be read).
pub(crate) async fn shopping_summary(mall: &dyn MallApi, platform: &str, user_id: i64, lang: Lang) -> String {
    let shopper = services::Shopper::new(platform, user_id);
    let mut lines = Vec::new();
    if let Ok(cart) = mall.get_cart(&shopper).await {
        for item in cart.items.iter().take(5) {
            let size = item.sku_label.as_deref().map(|s| format!(" ({s})")).unwrap_or_default();
            lines.push(format!("🛒 {}{size} ×{}", item.name, item.quantity));
        }
    }
    if let Ok(orders) = mall.list_orders(&shopper, PageRequest::first(3)).await {
        for order in &orders.items {
            let total = handlers::format::money(order.total_cents);
            lines.push(format!(
                "🧾 {} · {} · {total}",
                order.order_id,
                (lang.texts().answers.status)(order.status)
            ));
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn hours_and_offsets() {
        assert_eq!(Hours::parse("").unwrap(), None);
        let day = Hours::parse("09:00-22:00").unwrap().unwrap();
        assert!(day.is_open(9 * 60) && day.is_open(21 * 60 + 59));
        assert!(!day.is_open(22 * 60) && !day.is_open(8 * 60 + 59));
        let night = Hours::parse("22:00-06:00").unwrap().unwrap();
        assert!(night.is_open(23 * 60) && night.is_open(60) && !night.is_open(12 * 60));
        for bad in ["9-22", "09:00", "25:00-26:00", "10:00-10:00"] {
            assert!(Hours::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(parse_offset("+08:00"), Ok(480));
        assert_eq!(parse_offset("-05:30"), Ok(-330));
        assert_eq!(parse_offset("Z"), Ok(0));
        assert!(parse_offset("8").is_err());
    }

    #[test]
    fn a_closed_desk_says_when_it_opens_in_its_own_time() {
        let desk = Desk::new(-100, "09:00-22:00", "+08:00", 10.0).unwrap();
        // 2026-01-01 00:30 UTC = 08:30 in +08:00: closed until 09:00.
        let at = 1_767_227_400;
        assert_eq!(desk.closed_until(at).as_deref(), Some("09:00"));
        assert_eq!(desk.closed_until(at + 3600), None);
        assert_eq!(Desk::new(0, "", "+08:00", 10.0), None);
    }
}
