//! What the Telegram transport itself says (greeting, help, command answers,
//! button labels), in Chinese and English. Everything else comes from the router.

use handlers::{Lang, Scope, ToolSpec};

/// The `/start` greeting.
pub fn greeting(lang: Lang) -> &'static str {
    lang.pick(
        "您好！我是商场导购助手 🛍️\n\n直接用文字告诉我您想找什么：找店、找商品、比价格、加购物车、下单取货都可以。\
         下面是几个例子，点一下就能试试。发送 /help 查看我能做的全部事情。",
        "Hello! I'm the mall's shopping guide 🛍️\n\nJust tell me in words what you're looking for: stores, \
         products, prices, your cart, orders for pickup. Tap an example below to try, or send /help to see \
         everything I can do.",
    )
}

/// Example requests offered as buttons under the greeting.
pub fn examples(lang: Lang) -> Vec<String> {
    let examples: &[&str] = match lang {
        Lang::Zh => &["Nike 店在哪里？", "帮我找 500 元以内的跑鞋", "有哪些餐厅？", "看看我的购物车"],
        Lang::En => &[
            "Where is the Nike store?",
            "Running shoes under 500 yuan",
            "Which restaurants are there?",
            "Show my cart",
        ],
    };
    examples.iter().map(|s| (*s).to_owned()).collect()
}

/// The `/help` text: the line each registered tool declares (`help = …` on
/// its `#[tool_function]`, once per line shared by several tools; a tool
/// without one gets the first sentence of its description), then the commands.
pub fn help(lang: Lang, tools: &[&'static ToolSpec], is_group: bool) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut shown: Vec<&'static str> = Vec::new();
    for tool in tools {
        let private_only = tool.scope == Scope::Private;
        let line = match tool.help {
            Some(help) if shown.contains(&help.en) => continue,
            Some(help) => {
                shown.push(help.en);
                lang.pick(help.zh, help.en).to_owned()
            }
            None => format!("• {}", first_sentence(tool.description)),
        };
        let note = if is_group && private_only { lang.pick("（私聊）", " (private chat)") } else { "" };
        lines.push(format!("{line}{note}"));
    }
    let intro = lang.pick("我能帮您：", "I can help with:");
    let commands = lang.pick(
        "命令：/cart 购物车 · /orders 我的订单 · /reset 重新开始 · /lang zh|en 切换语言",
        "Commands: /cart your cart · /orders your orders · /reset start over · /lang zh|en language",
    );
    let group = lang.pick("在群里请 @我 或回复我的消息。", "In groups, @mention me or reply to my message.");
    let mut text = format!("{intro}\n{}\n\n{commands}", lines.join("\n"));
    if is_group {
        text.push('\n');
        text.push_str(group);
    }
    text
}

fn first_sentence(description: &str) -> &str {
    let first_line = description.lines().next().unwrap_or_default().trim();
    match first_line.find(". ") {
        Some(i) => &first_line[..=i],
        None => first_line,
    }
}

/// The answer to a command the bot does not know (and to `/health` from
/// someone who is not an admin: the two must not be told apart).
pub fn unknown_command(lang: Lang) -> &'static str {
    lang.pick(
        "我不认识这个命令。直接用文字告诉我您想找什么，或发送 /help 看看我能做什么。",
        "I don't know that command. Just tell me in words what you're looking for, or send /help to see what I can do.",
    )
}

/// The answer to a sticker, voice message, file… in a private chat.
pub fn please_write(lang: Lang) -> &'static str {
    lang.pick(
        "我只看得懂文字哦 🙂 请用文字告诉我您想找什么，比如「Nike 店在哪里？」",
        "I can only read text 🙂 Please write to me what you're looking for, e.g. \"Where is the Nike store?\"",
    )
}

/// The short apology when something broke inside.
pub fn apology(lang: Lang) -> &'static str {
    lang.pick(
        "抱歉，刚才出了点问题，请稍后再试一次。",
        "Sorry, something went wrong on my side. Please try again in a moment.",
    )
}

/// The answer to `/reset`.
pub fn reset_done(lang: Lang) -> &'static str {
    lang.pick(
        "好的，之前的对话我已经忘掉了，我们重新开始吧。",
        "Done — I've forgotten our conversation. Let's start over.",
    )
}

/// The answer to `/lang` with a language, in that language.
pub fn lang_set(lang: Lang) -> &'static str {
    lang.pick("好的，之后我用中文回答您。", "OK, I'll answer in English from now on.")
}

/// The answer to `/lang` without a (known) language.
pub fn lang_usage(lang: Lang) -> &'static str {
    lang.pick("用法：/lang zh（中文）或 /lang en（English）", "Usage: /lang en (English) or /lang zh (中文)")
}

/// The Confirm and Cancel button labels.
pub fn confirm_labels(lang: Lang) -> (&'static str, &'static str) {
    (lang.pick("✅ 确认", "✅ Confirm"), lang.pick("✖️ 取消", "✖️ Cancel"))
}

/// The label of the button that opens the private chat.
pub fn open_private_label(lang: Lang) -> &'static str {
    lang.pick("💬 去私聊继续", "💬 Continue in private chat")
}

/// Shown in place of the buttons when a typed code is needed.
pub fn code_needed(lang: Lang) -> &'static str {
    lang.pick("🔐 请输入验证码完成确认。", "🔐 Type the code to finish confirming.")
}

/// The alert for a suggestion button whose message is too old to read.
pub fn button_expired(lang: Lang) -> &'static str {
    lang.pick("这个按钮已过期，请直接用文字告诉我。", "This button has expired; please type your request.")
}

/// The Telegram part of `/health`: the bot, how updates arrive, and privacy mode.
pub fn health_telegram(lang: Lang, username: &str, mode: &str, can_read_all_group_messages: bool) -> String {
    let privacy = if can_read_all_group_messages {
        lang.pick(
            "隐私模式：已关闭（群里的 @提及 都能收到）",
            "Privacy mode: off (mentions in groups reach the bot)",
        )
        .to_owned()
    } else {
        lang.pick(
            "隐私模式：开启 ⚠️ 群里只能收到命令和对我的回复，@提及 收不到。\n  处理：在 @BotFather 发送 /setprivacy → 选择本机器人 → Disable，或把机器人设为群管理员。",
            "Privacy mode: ON ⚠️ in groups the bot only sees commands and replies to it, not @mentions.\n  Fix: in @BotFather send /setprivacy → pick this bot → Disable, or make the bot a group admin.",
        )
        .to_owned()
    };
    format!("Telegram: @{username} ({mode})\n{privacy}")
}
