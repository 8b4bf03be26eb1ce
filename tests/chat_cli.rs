//! `mallbot chat` from a script, on the defaults (offline planner, embedded
//! mall): the seed purchase flow ends with an order that a later run still sees.
#![allow(clippy::unwrap_used)]

#[path = "support/terminal.rs"]
mod terminal;

use std::path::Path;

fn chat(dir: &Path, script: &str) -> String {
    chat_with(dir, script, &[])
}

fn chat_with(dir: &Path, script: &str, env: &[(&str, &str)]) -> String {
    let mut command = terminal::chat_command(dir, &[], "5");
    command.envs(env.iter().copied());
    terminal::run(command, script)
}

#[test]
fn the_purchase_flow_from_a_script_and_the_order_survives_a_restart() {
    let dir = std::env::temp_dir().join(format!("mallbot-chat-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "帮我买一双 Nike 跑鞋，500 以内的\n42码\ny\n下单\ny\n");
    assert!(out.contains("尺码"), "asks for the size:\n{out}");
    assert!(out.contains("已加入购物车"), "adds to the cart:\n{out}");
    assert!(out.contains("待支付"), "an order pending payment:\n{out}");
    let order_id = out
        .split_whitespace()
        .find(|w| w.starts_with("o-"))
        .map(|w| w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-').to_owned());
    let order_id = order_id.unwrap_or_else(|| panic!("an order id in:\n{out}"));

    let later = chat(&dir, "/orders\n");
    assert!(later.contains(&order_id), "the order is still there after a restart:\n{later}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn english_small_talk_and_directions() {
    let dir = std::env::temp_dir().join(format!("mallbot-chat-en-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "hello\nwhere is Uniqlo?\nshow me Nike running shoes\n");
    assert!(out.contains("Hello"), "greets back in English:\n{out}");
    assert!(out.contains("Nike (3F)"), "stores are named in English, floors as 3F:\n{out}");
    assert!(!out.contains("耐克"), "no Chinese store names in an English answer:\n{out}");
    assert!(out.contains("Uniqlo is on 2F") && out.contains("min on foot"), "gives the way:\n{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_first_wifi_opens_the_conversation_in_english_and_the_terminal_follows() {
    let dir = std::env::temp_dir().join(format!("mallbot-chat-wifi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "wifi?\n/cart\n");
    assert!(out.contains("Free Wi-Fi all over the mall"), "the mall's English information:\n{out}");
    assert!(out.contains("Your cart is empty"), "the terminal's commands in English too:\n{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_terminal_answers_commands_with_the_same_words_as_telegram() {
    use handlers::Lang;
    use mallbot::telegram::texts;
    let dir = std::env::temp_dir().join(format!("mallbot-chat-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "/lang en\n/reset\n/help\n/frobnicate\n/health\n");
    for expected in [texts::lang_set(Lang::En), texts::reset_done(Lang::En), texts::unknown_command(Lang::En)]
    {
        assert!(out.contains(expected), "{expected:?} in:\n{out}");
    }
    let help = texts::help(Lang::En, handlers::all(), false);
    let first_line = help.lines().nth(1).unwrap();
    assert!(out.contains(first_line), "the /help of Telegram ({first_line:?}) in:\n{out}");
    assert!(out.contains("healthy") && out.contains("registry"), "/health reports to the operator:\n{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn directions_write_a_floor_plan_per_floor_and_print_where() {
    let dir = std::env::temp_dir().join(format!("mallbot-chat-map-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "优衣库在哪\n");
    let paths: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("[floor plan: "))
        .map(|l| l.trim_end_matches(']'))
        .collect();
    assert_eq!(paths.len(), 2, "1F and 2F:\n{out}");
    for path in paths {
        assert!(path.starts_with(std::env::temp_dir().to_str().unwrap()), "{path}");
        let png = std::fs::read(path).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{path} is a PNG");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_order_shows_its_invoice_as_a_line_and_pay_makes_a_test_payment_once() {
    let dir = std::env::temp_dir().join(format!("mallbot-chat-pay-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "/pay\n帮我买一双 Nike 跑鞋，500 以内的\n42码\ny\n下单\ny\n/pay\n/pay\n");
    assert!(out.contains("还没有账单：先下单。"), "no invoice before an order:\n{out}");
    let invoice =
        out.lines().find(|l| l.contains("🧾 账单")).unwrap_or_else(|| panic!("an invoice line:\n{out}"));
    assert!(invoice.contains("¥") && invoice.contains("/pay"), "{invoice}");
    assert!(out.contains("🧪 测试支付"), "marked as a test:\n{out}");
    assert_eq!(out.matches("支付成功").count(), 1, "paid once; the second /pay has no invoice left:\n{out}");
    let later = chat(&dir, "/orders\n");
    assert!(later.contains("已支付"), "the mall holds the order as paid:\n{later}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn human_shows_what_the_service_desk_would_get_and_asking_for_a_person_is_not_a_product_search() {
    let dir = std::env::temp_dir().join(format!("mallbot-chat-human-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "Nike 在几楼\n/human 丢了钱包\n我要找人工客服\n");
    assert!(
        out.contains("[to the service desk ([support] chat_id not set), topic"),
        "the desk's side:\n{out}"
    );
    assert!(out.contains("| 原因：丢了钱包"), "the card's reason:\n{out}");
    assert!(out.contains("| 🧑 Nike 在几楼"), "the card's recent messages:\n{out}");
    // Without a desk, where the service desk is (the mall's own section): never a product search.
    assert_eq!(out.matches("021-5888 0000").count(), 2, "both asks told where the desk is:\n{out}");
    assert!(!out.contains("没有找到"), "not searched as a product:\n{out}");
    std::fs::remove_dir_all(&dir).ok();
}

/// The shopper's lines and the bot's answers after the banner.
fn answers(out: &str) -> &str {
    out.find("bot>").map_or(out, |at| &out[at..])
}

#[test]
fn a_size_a_number_or_y_keeps_a_chinese_purchase_in_chinese() {
    use handlers::Lang;
    let dir = std::env::temp_dir().join(format!("mallbot-chat-lang-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "帮我买一双 Nike 跑鞋，500 以内的\nM\n42\ny\n👍\nFD4821\nNike\n");
    let said = answers(&out);
    let zh = Lang::Zh.texts();
    assert!(said.contains("抱歉，M 码没有货了"), "\"M\" is read as a size and answered in Chinese:\n{said}");
    let confirm = (zh.confirm.please_confirm)("");
    assert!(said.contains(confirm.trim()), "the confirmation asks in Chinese:\n{said}");
    assert!(said.contains("已加入购物车"), "\"y\" adds it, in Chinese:\n{said}");
    let en = Lang::En.texts();
    for english in [(en.confirm.please_confirm)(""), "Added to your cart".into(), "Sizes in stock".into()] {
        assert!(!said.contains(english.trim()), "no English ({english:?}) in a Chinese purchase:\n{said}");
    }
    assert!(!said.contains(en.small_talk.other), "an emoji, a code or a brand keep Chinese:\n{said}");
    // A message clearly in English switches the conversation.
    let later = chat(&dir, "where is Uniqlo?\nL\n");
    assert!(later.contains("Uniqlo is on 2F"), "{later}");
    assert!(!answers(&later).contains("这个我不太懂"), "\"L\" after English stays English:\n{later}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_new_request_while_a_confirmation_waits_is_answered_and_the_confirmation_stays() {
    use handlers::Lang;
    let dir = std::env::temp_dir().join(format!("mallbot-chat-wait-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "帮我买一双 Nike 跑鞋，500 以内的\n42码\n40码到货了告诉我\ny\ny\n/cart\n/alerts\n");
    let said = answers(&out);
    let waiting = (Lang::Zh.texts().commands.console_still_waiting)("加入购物车：");
    let still = waiting.split("加入购物车：").next().unwrap();
    let alert = said.find("设置提醒").unwrap_or_else(|| panic!("the alert asked for is answered:\n{said}"));
    let reminder =
        said.find(still).unwrap_or_else(|| panic!("the cart's confirmation still waits, said:\n{said}"));
    assert!(alert < said.find("已加入购物车").unwrap_or(0), "the alert, then the cart:\n{said}");
    assert!(reminder < said.find("已加入购物车").unwrap(), "reminded before it is confirmed:\n{said}");
    assert!(!said.contains("已取消"), "nothing was cancelled for the new request:\n{said}");
    assert!(
        said.contains("Downshifter 13") && said.contains("到货时我会告诉您"),
        "the alert is set:\n{said}"
    );
    let cart = (Lang::Zh.texts().answers.cart_title).to_owned();
    let cart = said.find(&cart).map(|at| &said[at..]).unwrap_or_else(|| panic!("/cart:\n{said}"));
    assert!(cart.contains("Downshifter 13") && cart.contains("42"), "the 42 is in the cart:\n{cart}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn past_the_rate_limit_the_terminal_says_why_every_time_in_the_shoppers_language() {
    use handlers::Lang;
    let dir = std::env::temp_dir().join(format!("mallbot-chat-rate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let limit = [("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "2")];
    let out = chat_with(&dir, "你好\n你好\n优衣库在哪\nM\n", &limit);
    let slow = Lang::Zh.texts().turn.rate_limited;
    assert_eq!(out.matches(slow).count(), 2, "both held-back lines are told why, in Chinese:\n{out}");
    assert!(!out.lines().any(|l| l.trim_end() == "bot>"), "never an empty answer:\n{out}");
    std::fs::remove_dir_all(&dir).ok();
    let dir = std::env::temp_dir().join(format!("mallbot-chat-rate-en-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat_with(&dir, "hello\nhi\nwhere is Nike\nM\n", &limit);
    assert_eq!(out.matches(Lang::En.texts().turn.rate_limited).count(), 2, "in English:\n{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_traditional_answer_is_traditional_and_echoes_the_shoppers_words() {
    let dir = std::env::temp_dir().join(format!("mallbot-chat-hant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = chat(&dir, "服務台在哪裡\n有沒有賣滑板\n42\n");
    let said = answers(&out);
    let simplified: String =
        said.chars().filter(|c| handlers::texts::zh_hant::is_simplified_only(*c)).collect();
    assert_eq!(simplified, "", "no Simplified character in a 繁體 conversation:\n{said}");
    assert!(said.contains("服務") && said.contains("1樓"), "the service desk, in Traditional:\n{said}");
    assert!(said.contains("沒有找到「滑板」"), "the shopper's word echoed, no dangling 的:\n{said}");
    std::fs::remove_dir_all(&dir).ok();
}
