//! The words of the MCP side that a person reads (an assistant's user, a
//! shopper watching the status line), written in Chinese and English like a
//! tool's own lines, and given to each language the way its text table says
//! (`tool_lang`, `tool_text`: Traditional Chinese is converted).

use handlers::Lang;

/// `zh` or `en`, in `lang`.
fn say(lang: Lang, zh: String, en: String) -> String {
    let texts = lang.texts();
    match texts.tool_lang {
        Lang::En => en,
        _ => (texts.tool_text)(zh),
    }
}

/// The status line while a tool lent by an MCP server runs.
pub fn remote_progress(lang: Lang, server: &str) -> String {
    say(lang, format!("⏳ 正在询问 {server}…"), format!("⏳ Asking {server}…"))
}

/// The answer to a risky call from a client that cannot ask its user.
pub fn needs_elicitation(lang: Lang, tool: &str) -> String {
    say(
        lang,
        format!(
            "「{tool}」会改动购物车或订单，必须先征得您的确认，但这个客户端不支持 MCP 确认请求（elicitation），所以什么也没做。\
             请换用支持确认请求的客户端，或在 Telegram 里和机器人完成这一步。"
        ),
        format!(
            "`{tool}` changes your cart or orders and needs your confirmation first, but this client does not \
             support MCP elicitation, so nothing was done. Use a client that supports elicitation, or finish \
             this step with the bot in Telegram."
        ),
    )
}

/// The answer when the person declined or dismissed the confirmation.
pub fn declined(lang: Lang) -> String {
    say(lang, "您取消了这个操作，什么也没做。".to_owned(), "You declined; nothing was done.".to_owned())
}

/// The note before a new confirmation when an order's figures changed.
pub fn figures_changed(lang: Lang) -> String {
    say(
        lang,
        "价格或库存有变化，请按最新信息重新确认。".to_owned(),
        "The price or stock changed — please confirm the updated order.".to_owned(),
    )
}

/// The answer when the figures kept changing while the person confirmed.
pub fn kept_changing(lang: Lang) -> String {
    say(
        lang,
        "订单信息一直在变化，这次没有下单，请稍后再试。".to_owned(),
        "The order kept changing while you confirmed, so nothing was done — please try again shortly."
            .to_owned(),
    )
}

/// The answer when the confirmation could not be asked (the client failed).
pub fn could_not_ask(lang: Lang) -> String {
    say(
        lang,
        "无法向您请求确认，所以什么也没做。".to_owned(),
        "Your confirmation could not be asked for, so nothing was done.".to_owned(),
    )
}
