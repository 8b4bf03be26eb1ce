//! A shopper from Taiwan or Hong Kong writes Traditional Chinese and is
//! answered in it through the whole bot in basic mode: searches, directions,
//! the cart's confirmation and its buttons, `/help`, `/cart`, `/lang` — the
//! mall's names (stores, areas, the map's corridors and entrances) in
//! Traditional characters too, while searches in either script find the same.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use handlers::texts::zh_hant::is_simplified_only;
use handlers::{Lang, ToolContext};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::Reply;
use mallbot::config::Config;
use mallbot::state::MemoryStore;
use mallbot::telegram::texts;
use mallbot::{Command, commands};
use serde_json::json;

const USER: i64 = 886;

fn app() -> App {
    let mut config = Config::default();
    config.bot.rate_limit_per_minute = 0;
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    App::with_parts(config, mall, Arc::new(MemoryStore::new())).unwrap()
}

fn say(text: &str) -> MessageContext {
    MessageContext::private("console", USER, text, Lang::Zh)
}

/// The characters of `text` only Simplified Chinese writes.
fn simplified_in(text: &str) -> String {
    text.chars().filter(|c| is_simplified_only(*c)).collect()
}

/// An answer — its text, buttons, confirmation and the captions of its
/// pictures, the mall's names included — has no Simplified character.
fn assert_traditional(reply: &Reply) {
    let captions: Vec<&str> = reply.pictures.iter().map(|p| p.caption.as_str()).collect();
    let summary = reply.confirmation.as_ref().map(|c| c.summary.as_str()).unwrap_or_default();
    let all = format!("{}\n{}\n{summary}\n{}", reply.text, reply.suggestions.join("\n"), captions.join("\n"));
    assert_eq!(simplified_in(&all), "", "Simplified characters in a Traditional answer:\n{all}");
}

/// An answer with the mall's names in it: the bot's own words are the
/// Traditional table's, and none of the Simplified table's is left.
fn assert_worded_in_traditional(reply: &Reply, traditional: &[&str], simplified: &[&str]) {
    for words in traditional {
        assert!(reply.text.contains(words), "{words:?} missing from:\n{}", reply.text);
    }
    for words in simplified {
        assert!(!reply.text.contains(words), "{words:?} (Simplified) in:\n{}", reply.text);
    }
}

#[test]
fn traditional_text_is_told_from_simplified() {
    assert_eq!(Lang::detect("幫我找 500 元以內的跑鞋"), Some(Lang::ZhHant));
    assert_eq!(Lang::detect("帮我找 500 元以内的跑鞋"), Some(Lang::Zh));
    assert_eq!(Lang::detect("Nike 店在哪"), Some(Lang::Zh), "either script: Simplified by default");
    assert_eq!(Lang::detect_or("Nike 店在哪", Lang::ZhHant), Lang::ZhHant, "a zh-TW shopper");
    assert_eq!(Lang::detect_or("where is Nike", Lang::ZhHant), Lang::En);
    assert_eq!(say("請問 Nike 店怎麼走？").lang, Lang::ZhHant);
}

#[tokio::test]
async fn a_search_is_answered_in_traditional_chinese() {
    let app = app();
    let reply = app.router.dispatch(&say("幫我找 500 元以內的跑鞋")).await;
    assert_worded_in_traditional(
        &reply,
        &["為您找到", "件商品", "回覆「第一個」查看詳情。"],
        &["为您", "回复"],
    );
    assert!(reply.text.contains('¥'), "{}", reply.text);
    assert_eq!(reply.suggestions, vec!["看看第一個".to_owned()]);
}

#[tokio::test]
async fn a_traditional_or_cantonese_greeting_is_greeted() {
    for hello in ["哈囉", "哈囉你好", "嗨", "早安", "你好呀", "安安"] {
        let reply = app().router.dispatch(&say(hello)).await;
        let lang = say(hello).lang;
        assert_eq!(reply.text, lang.texts().small_talk.hello, "{hello}");
    }
    let reply = app().router.dispatch(&say("哈囉")).await;
    assert_eq!(reply.text, Lang::ZhHant.texts().small_talk.hello);
    assert_traditional(&reply);
}

#[tokio::test]
async fn the_service_desk_is_written_as_everyday_traditional_writes_it() {
    let reply = app().router.dispatch(&say("服務台在哪裡")).await;
    assert!(reply.text.contains("服務台") && !reply.text.contains("服務檯"), "{}", reply.text);
    assert_traditional(&reply);
}

#[tokio::test]
async fn directions_to_a_store_are_in_traditional_chinese() {
    let app = app();
    let reply = app.router.dispatch(&say("優衣庫怎麼走？")).await;
    assert!(reply.text.starts_with("優衣庫在"), "the mall's name in Traditional characters: {}", reply.text);
    assert_worded_in_traditional(
        &reply,
        &["從正門出發約", "公尺，步行約", "分鐘：", "進入", "走約", "搭"],
        &["从", "约", "米，", "分钟", "进入", "乘"],
    );
    assert_traditional(&reply);
}

/// Directions through the whole bot for a shopper who chose Traditional
/// Chinese: every store, entrance, corridor, lift and area name in it is in
/// Traditional characters, on every floor of the demo mall.
#[tokio::test]
async fn a_traditional_directions_answer_has_no_simplified_character_names_included() {
    let app = app();
    let ask = |text: &str| MessageContext::private("console", USER, text, Lang::ZhHant);
    let mut corridors = 0;
    for store in ["优衣库", "麦当劳", "耐克", "华为", "无印良品", "屈臣氏", "丝芙兰"] {
        let name = handlers::texts::zh_hant::to_traditional(store);
        let reply = app.router.dispatch(&ask(&format!("{name}怎麼走"))).await;
        assert!(reply.text.starts_with(&format!("{name}在")), "{name}: {}", reply.text);
        assert!(reply.text.contains("進入"), "the route's steps are there: {}", reply.text);
        assert_traditional(&reply);
        corridors += reply.text.matches("走廊").count();
    }
    assert!(corridors > 0, "the map's corridor names were in the answers");
    let area = app.router.dispatch(&ask("美食廣場在哪")).await;
    assert!(area.text.contains("美食廣場"), "{}", area.text);
    assert_traditional(&area);
}

/// The ids of what a tool found, run as the Mini App and the model run it.
async fn found_ids(app: &App, tool: &str, args: serde_json::Value, lang: Lang) -> Vec<String> {
    let ctx = ToolContext::new(app.mall.clone(), services::Shopper::new("console", "886"), lang);
    let data = handlers::find(tool).unwrap().invoke(ctx, args).await.unwrap().data;
    let (list, id) =
        if tool == "search_products" { ("products", "product_id") } else { ("stores", "store_id") };
    data[list].as_array().unwrap().iter().map(|item| item[id].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn a_traditional_search_finds_what_the_simplified_one_finds() {
    let app = app();
    let products = [("运动鞋", "運動鞋"), ("跑鞋", "跑鞋"), ("耐克 跑鞋", "耐克 跑鞋"), ("双肩包", "雙肩包")];
    for (hans, hant) in products {
        let simplified = found_ids(&app, "search_products", json!({"keyword": hans}), Lang::Zh).await;
        assert!(!simplified.is_empty(), "{hans} finds products");
        let traditional = found_ids(&app, "search_products", json!({"keyword": hant}), Lang::ZhHant).await;
        assert_eq!(traditional, simplified, "{hant} finds what {hans} finds");
    }
    for (hans, hant) in [("优衣库", "優衣庫"), ("咖啡", "咖啡"), ("运动", "運動"), ("丝芙兰", "絲芙蘭")]
    {
        let simplified = found_ids(&app, "search_stores", json!({"keyword": hans}), Lang::Zh).await;
        assert!(!simplified.is_empty(), "{hans} finds stores");
        let traditional = found_ids(&app, "search_stores", json!({"keyword": hant}), Lang::ZhHant).await;
        assert_eq!(traditional, simplified, "{hant} finds what {hans} finds");
    }
    // Through the chat: the answer lists what the Simplified search found, named in Traditional characters.
    let ctx = ToolContext::new(app.mall.clone(), services::Shopper::new("console", "886"), Lang::Zh);
    let found = handlers::find("search_products").unwrap().invoke(ctx, json!({"keyword": "运动鞋"})).await;
    let names: Vec<String> = found.unwrap().data["products"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| handlers::texts::zh_hant::to_traditional(p["name"].as_str().unwrap()))
        .collect();
    let hant =
        app.router.dispatch(&MessageContext::private("console", 2, "幫我找運動鞋", Lang::ZhHant)).await;
    assert!(hant.text.contains(&names[0]), "{} in:\n{}", names[0], hant.text);
    assert_traditional(&hant);
}

#[tokio::test]
async fn adding_to_the_cart_asks_in_traditional_chinese_with_traditional_buttons() {
    let app = app();
    let found = app.router.dispatch(&say("幫我找 Nike 跑鞋")).await;
    assert_worded_in_traditional(&found, &["為您找到"], &["为您"]);
    let detail = app.router.dispatch(&say("第一個")).await;
    assert_worded_in_traditional(&detail, &["評分", "您要哪個尺碼？"], &["评分", "哪个"]);
    let size =
        detail.text.split("有 ").nth(1).and_then(|rest| rest.split(['、', ' ']).next()).unwrap_or("42");
    let asked = app.router.dispatch(&say(&format!("{size}碼，加入購物車"))).await;
    let prompt = asked.confirmation.as_ref().unwrap_or_else(|| panic!("a confirmation:\n{}", asked.text));
    assert!(asked.text.starts_with("請確認：\n加入購物車："), "{}", asked.text);
    assert!(prompt.summary.contains("碼）×"), "{}", prompt.summary);
    assert_worded_in_traditional(&asked, &["請確認", "加入購物車："], &["请确认", "购物车"]);
    assert_eq!(texts::confirm_labels(Lang::ZhHant), ("✅ 確認", "✖️ 取消"));
}

#[tokio::test]
async fn help_cart_and_lang_speak_traditional_chinese() {
    let app = app();
    let mut ctx = say("/help");
    ctx.lang = Lang::ZhHant;
    let help = commands::answer(&app.router, &ctx, &Command::Help).await;
    assert!(help.text.starts_with("我能幫您："), "{}", help.text);
    assert!(help.text.contains("🛒 購物車"), "every tool's line is converted: {}", help.text);
    assert!(help.text.contains("/lang zh|zh-hant|en 切換語言"), "{}", help.text);
    assert_traditional(&help);

    let cart = commands::answer(&app.router, &ctx, &Command::Cart).await;
    assert_eq!(cart.text, "購物車是空的，先挑幾件商品吧。");

    let chosen = commands::answer(&app.router, &say("/lang 繁體"), &Command::Lang(Some("繁體".into()))).await;
    assert_eq!(chosen.text, "好的，之後我用繁體中文回答您。");
    assert_eq!(app.router.chosen_lang("console", USER).await, Some(Lang::ZhHant), "kept as zh-hant");
    let tw = commands::answer(&app.router, &say("/lang zh-TW"), &Command::Lang(Some("zh-TW".into()))).await;
    assert_eq!(tw.text, chosen.text);
}

#[tokio::test]
async fn a_shopper_who_chose_traditional_gets_it_for_text_of_either_script() {
    let app = app();
    commands::answer(&app.router, &say("/lang zh-hant"), &Command::Lang(Some("zh-hant".into()))).await;
    let mut ctx = say("Nike 店在哪");
    ctx.lang = app.router.chosen_lang("console", USER).await.unwrap();
    let reply = app.router.dispatch(&ctx).await;
    assert!(reply.text.contains("耐克"), "{}", reply.text);
    assert_worded_in_traditional(&reply, &["從正門出發約", "步行約"], &["从", "步行约"]);
}

#[test]
fn stored_languages_stay_readable() {
    assert_eq!(serde_json::to_string(&Lang::ZhHant).unwrap(), "\"zh-hant\"");
    assert_eq!(serde_json::from_str::<Lang>("\"zh\"").unwrap(), Lang::Zh);
    assert_eq!(serde_json::from_str::<Lang>("\"en\"").unwrap(), Lang::En);
    for lang in Lang::ALL {
        assert_eq!(Lang::parse(lang.as_str()), Some(lang), "{lang:?} is read back from the state store");
    }
    for code in ["zh-Hant", "zh-TW", "zh_HK", "zh-MO", "tw", "hk", "繁體", "zh-Hant-TW"] {
        assert_eq!(Lang::parse(code), Some(Lang::ZhHant), "{code}");
    }
    for code in ["zh", "zh-CN", "zh-Hans", "cn", "简体"] {
        assert_eq!(Lang::parse(code), Some(Lang::Zh), "{code}");
    }
}
