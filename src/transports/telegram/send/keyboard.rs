//! An answer's buttons: Confirm / Cancel, 💳 pay, suggestions, the Mini
//! App's map, the private-chat link; and the suggestion a press stands for.

use handlers::Lang;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};

use super::super::callback::ButtonData;
use super::super::texts;
use crate::engine::reply::Reply;

/// What a reply's buttons need besides the reply itself.
pub struct ButtonContext<'a> {
    pub(crate) lang: Lang,
    /// The bot's username, for the private-chat link.
    pub(crate) bot_username: &'a str,
    /// The deep-link payload carrying a group request to the private chat.
    pub(crate) handoff_payload: Option<String>,
    /// The Mini App's public URL (`webapp.public_url`), when it is served.
    pub(crate) webapp: Option<reqwest::Url>,
    /// Whether the reply goes to a group (a `t.me` link there, not a web-app button).
    pub(crate) in_group: bool,
}

impl<'a> ButtonContext<'a> {
    /// A private chat's buttons, without a hand-off link or the Mini App.
    pub fn private(lang: Lang, bot_username: &'a str) -> ButtonContext<'a> {
        ButtonContext { lang, bot_username, handoff_payload: None, webapp: None, in_group: false }
    }
}

/// The inline keyboard of a reply: Confirm / Cancel, the suggestions, the
/// private-chat link. `None` when there is nothing to press.
pub(crate) fn keyboard(reply: &Reply, buttons: &ButtonContext<'_>) -> Option<InlineKeyboardMarkup> {
    let mut rows: Vec<Vec<InlineKeyboardButton>> = Vec::new();
    if let Some(prompt) = &reply.confirmation {
        let (yes, no) = texts::confirm_labels(buttons.lang);
        let data = |approve| ButtonData::Confirmation { token: prompt.token.clone(), approve }.encode();
        rows.push(vec![
            InlineKeyboardButton::callback(yes, data(true)),
            InlineKeyboardButton::callback(no, data(false)),
        ]);
    }
    for order_id in reply.payable.iter().take(3) {
        let data = ButtonData::Pay(order_id.clone()).encode();
        if data.len() > super::super::callback::CALLBACK_DATA_LIMIT {
            continue;
        }
        let label = texts::pay_label(buttons.lang);
        let label = if reply.payable.len() > 1 { format!("{label} {order_id}") } else { label.to_owned() };
        rows.push(vec![InlineKeyboardButton::callback(label, data)]);
    }
    rows.extend(suggestion_rows(&reply.suggestions));
    if let Some(button) = map_button(reply, buttons) {
        rows.push(vec![button]);
    }
    if reply.open_private.is_some()
        && let Some(url) = private_chat_url(buttons.bot_username, buttons.handoff_payload.as_deref())
    {
        rows.push(vec![InlineKeyboardButton::url(texts::open_private_label(buttons.lang), url)]);
    }
    (!rows.is_empty()).then(|| InlineKeyboardMarkup::new(rows))
}

/// "🗺 在地图上看" under an answer about a store, when the Mini App is served:
/// a web-app button opening the route in a private chat; in a group (where
/// web-app buttons are not allowed) a `t.me/<bot>?startapp=` link.
fn map_button(reply: &Reply, buttons: &ButtonContext<'_>) -> Option<InlineKeyboardButton> {
    let store = reply.map_store.as_deref()?;
    let mut url = buttons.webapp.clone()?;
    let start = format!("route-{store}");
    let fits = start.len() <= 64 && start.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !fits {
        return None;
    }
    let label = buttons.lang.texts().tools.map_button;
    if buttons.in_group {
        if buttons.bot_username.is_empty() {
            return None;
        }
        let link =
            reqwest::Url::parse(&format!("https://t.me/{}?startapp={start}", buttons.bot_username)).ok()?;
        return Some(InlineKeyboardButton::url(label, link));
    }
    url.query_pairs_mut().append_pair("startapp", &start);
    Some(InlineKeyboardButton::web_app(label, teloxide::types::WebAppInfo { url }))
}

/// Suggestion buttons: two to a row when both are short, else one. The
/// button's label is the suggestion; its data is its index.
fn suggestion_rows(suggestions: &[String]) -> Vec<Vec<InlineKeyboardButton>> {
    let mut rows: Vec<Vec<InlineKeyboardButton>> = Vec::new();
    for (i, suggestion) in suggestions.iter().enumerate() {
        let button = InlineKeyboardButton::callback(suggestion.clone(), ButtonData::Suggestion(i).encode());
        let short = suggestion.chars().count() <= 12;
        match rows.last_mut() {
            Some(row) if short && row.len() == 1 && row_is_short(row) => row.push(button),
            _ => rows.push(vec![button]),
        }
    }
    rows
}

fn row_is_short(row: &[InlineKeyboardButton]) -> bool {
    row.iter().all(|b| b.text.chars().count() <= 12)
}

/// `https://t.me/<bot>?start=<payload>` (or without payload).
fn private_chat_url(bot_username: &str, payload: Option<&str>) -> Option<reqwest::Url> {
    let url = match payload {
        Some(payload) => format!("https://t.me/{bot_username}?start={payload}"),
        None => format!("https://t.me/{bot_username}"),
    };
    reqwest::Url::parse(&url).ok()
}

/// The suggestion a button press stands for: the label of the button with
/// that data on the pressed message.
pub(crate) fn pressed_suggestion(message: &Message, index: usize) -> Option<String> {
    let data = ButtonData::Suggestion(index).encode();
    message.reply_markup()?.inline_keyboard.iter().flatten().find_map(|button| match &button.kind {
        teloxide::types::InlineKeyboardButtonKind::CallbackData(d) if *d == data => Some(button.text.clone()),
        _ => None,
    })
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::reply::ConfirmationPrompt;
    use handlers::Level;
    use teloxide::types::InlineKeyboardButtonKind;

    fn data_of(button: &InlineKeyboardButton) -> String {
        match &button.kind {
            InlineKeyboardButtonKind::CallbackData(d) => d.clone(),
            InlineKeyboardButtonKind::Url(u) => u.to_string(),
            other => format!("{other:?}"),
        }
    }

    fn labels_and_data(markup: &InlineKeyboardMarkup) -> Vec<Vec<(String, String)>> {
        markup
            .inline_keyboard
            .iter()
            .map(|row| row.iter().map(|b| (b.text.clone(), data_of(b))).collect())
            .collect()
    }

    #[test]
    fn a_confirmation_gets_confirm_and_cancel_in_the_shoppers_language() {
        let reply = Reply {
            text: "请确认：\nNike 跑鞋 42 码 ×1".into(),
            confirmation: Some(ConfirmationPrompt {
                token: "tok123".into(),
                level: Level::Confirm,
                summary: "Nike 跑鞋 42 码 ×1".into(),
                needs_code: false,
            }),
            ..Default::default()
        };
        let buttons = ButtonContext::private(Lang::Zh, "MallGuideBot");
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![vec![("✅ 确认".into(), "c:tok123:y".into()), ("✖️ 取消".into(), "c:tok123:n".into())]]
        );
    }

    #[test]
    fn suggestions_carry_their_index_and_long_ones_get_a_row_each() {
        let long = "帮我看看这双鞋有没有 43 码和 44 码的库存".to_owned();
        let reply = Reply {
            suggestions: vec!["41码".into(), "42码".into(), long.clone(), "43码".into()],
            ..Reply::text("要什么尺码？")
        };
        let buttons = ButtonContext::private(Lang::Zh, "b");
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![
                vec![("41码".into(), "s:0".into()), ("42码".into(), "s:1".into())],
                vec![(long, "s:2".into())],
                vec![("43码".into(), "s:3".into())],
            ]
        );
    }

    #[test]
    fn an_answer_about_a_store_opens_its_route_in_the_mini_app_or_links_to_it_in_a_group() {
        let reply = Reply { map_store: Some("s-nike".into()), ..Reply::text("Nike 在 3F") };
        let webapp = reqwest::Url::parse("https://mall.example/webapp/").ok();
        let private = ButtonContext {
            lang: Lang::Zh,
            bot_username: "MallGuideBot",
            handoff_payload: None,
            webapp: webapp.clone(),
            in_group: false,
        };
        let markup = keyboard(&reply, &private).expect("a map button");
        let button = &markup.inline_keyboard[0][0];
        assert_eq!(button.text, "🗺 在地图上看");
        match &button.kind {
            teloxide::types::InlineKeyboardButtonKind::WebApp(app) => {
                assert_eq!(app.url.as_str(), "https://mall.example/webapp/?startapp=route-s-nike");
            }
            other => panic!("a web-app button, not {other:?}"),
        }
        let group = ButtonContext { in_group: true, ..private };
        let markup = keyboard(&reply, &group).expect("a map link");
        match &markup.inline_keyboard[0][0].kind {
            teloxide::types::InlineKeyboardButtonKind::Url(url) => {
                assert_eq!(url.as_str(), "https://t.me/MallGuideBot?startapp=route-s-nike");
            }
            other => panic!("a t.me link in a group, not {other:?}"),
        }
        let off = ButtonContext { webapp: None, ..group };
        assert!(keyboard(&reply, &off).is_none(), "no Mini App, no button");
    }

    #[test]
    fn a_group_hand_off_is_a_link_to_the_private_chat_with_the_payload() {
        let reply = Reply { open_private: Some("看看购物车".into()), ..Reply::text("请私聊") };
        let buttons = ButtonContext {
            lang: Lang::En,
            bot_username: "MallGuideBot",
            handoff_payload: Some("hAbc123".into()),
            webapp: None,
            in_group: true,
        };
        let markup = keyboard(&reply, &buttons).expect("buttons");
        assert_eq!(
            labels_and_data(&markup),
            vec![vec![(
                "💬 Continue in private chat".into(),
                "https://t.me/MallGuideBot?start=hAbc123".into()
            )]]
        );
    }
    #[test]
    fn a_plain_reply_has_no_keyboard() {
        let buttons = ButtonContext::private(Lang::Zh, "b");
        assert_eq!(keyboard(&Reply::text("你好"), &buttons), None);
    }
}
