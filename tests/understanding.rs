//! What basic mode understands of everyday questions, through the real
//! binary (`mallbot chat` on the defaults: the offline planner and the demo
//! mall), in Simplified and Traditional Chinese and in English: somewhere to
//! eat, the way from one place to another, gift ideas for someone, store
//! names with a typo, and the mall's information asked in shoppers' words.
#![allow(clippy::unwrap_used)]

#[path = "support/terminal.rs"]
mod terminal;

use std::path::PathBuf;

/// A fresh folder for one chat's state.
fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mallbot-understand-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `script` typed into `mallbot chat` as shopper `user` (on the mall of the
/// folder `mall` when given, else the demo mall), with a fresh state; what
/// the chat printed.
fn run_chat(name: &str, user: &str, mall: Option<&str>, script: &str) -> String {
    let dir = scratch_dir(name);
    let mut command = terminal::chat_command(&dir, &[], user);
    command.env("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0");
    if let Some(mall) = mall {
        command.env("MALLBOT_MALL__DATA", terminal::repo(mall));
    }
    let stdout = terminal::run(command, script);
    std::fs::remove_dir_all(&dir).ok();
    stdout
}

/// The shopper's lines typed into `mallbot chat`, one answer each: the
/// answers, split at each `bot>`.
fn chat(name: &str, lines: &[&str]) -> Vec<String> {
    // `/reset` between questions: each is read on its own, as a new shopper would ask it.
    let script: String = lines.iter().map(|l| format!("{l}\n/reset\n")).collect();
    let stdout = run_chat(name, "11", None, &script);
    let answers: Vec<String> = stdout.split("bot> ").skip(1).map(str::to_owned).collect();
    // Each question is answered, then the reset is.
    assert_eq!(answers.len(), lines.len() * 2, "one answer per line:\n{stdout}");
    answers.into_iter().step_by(2).collect()
}

fn has_all(answer: &str, words: &[&str]) {
    for word in words {
        assert!(answer.contains(word), "expected {word:?} in:\n{answer}");
    }
}

fn has_none(answer: &str, words: &[&str]) {
    for word in words {
        assert!(!answer.contains(word), "did not expect {word:?} in:\n{answer}");
    }
}

/// The prices (`¥123`, `¥39.90`) of the lines that list ideas.
fn listed_prices(answer: &str) -> Vec<f64> {
    answer
        .lines()
        .filter(|l| l.trim_start().starts_with('•'))
        .filter_map(|l| l.split('¥').nth(1))
        .filter_map(|p| p.split(|c: char| !(c.is_ascii_digit() || c == '.')).next()?.parse().ok())
        .collect()
}

#[test]
fn somewhere_to_eat_in_three_languages() {
    let zh = chat("food-zh", &["哪里能吃火锅", "我想吃火锅", "有什么餐厅", "附近有什么好吃的", "想吃小笼包"]);
    has_all(&zh[0], &["有火锅的地方", "1. 海底捞火锅", "海底捞火锅在", "步行约", "[floor plan:"]);
    has_all(&zh[1], &["有火锅的地方", "海底捞火锅"]);
    has_all(&zh[2], &["商场里吃饭的地方（按楼层）", "5楼：", "海底捞火锅", "鼎泰丰", "太二酸菜鱼"]);
    has_none(&zh[2], &["盒马鲜生", "优衣库", "找到 44 家店"]);
    has_all(&zh[3], &["商场里吃饭的地方", "西贝莜面村"]);
    has_all(&zh[4], &["有小笼包的地方", "1. 鼎泰丰", "鼎泰丰在"]);

    let hant = chat("food-hant", &["哪裡能吃火鍋", "有什麼餐廳"]);
    has_all(&hant[0], &["有火鍋的地方", "海底撈火鍋", "步行約"]);
    has_all(&hant[1], &["商場裡吃飯的地方（按樓層）", "鼎泰豐"]);
    has_none(&hant[1], &["盒馬鮮生", "商场"]);

    let en = chat("food-en", &["where can I eat hotpot", "any restaurants?", "I want to eat dumplings"]);
    has_all(&en[0], &["Places for hotpot:", "1. Haidilao Hotpot", "Haidilao Hotpot is on", "min on foot"]);
    has_none(&en[0], &["products", "Soup Base"]);
    has_all(&en[1], &["Places to eat in the mall, by floor:", "Din Tai Fung", "Tai Er"]);
    has_none(&en[1], &["Freshippo", "Uniqlo"]);
    has_all(&en[2], &["Places for dumplings:", "Din Tai Fung"]);
}

#[test]
fn from_one_place_to_another_in_three_languages() {
    let zh = chat("route-zh", &["从 Nike 怎么去星巴克", "我在优衣库，海底捞怎么走"]);
    has_all(&zh[0], &["星巴克在", "从耐克出发", "到达星巴克", "[floor plan:"]);
    has_none(&zh[0], &["没有找到", "从正门"]);
    has_all(&zh[1], &["海底捞火锅在", "从优衣库出发"]);

    let hant = chat("route-hant", &["從優衣庫怎麼去星巴克"]);
    has_all(&hant[0], &["星巴克在", "從優衣庫出發", "[floor plan:"]);
    has_none(&hant[0], &["沒有找到", "从"]);

    let en = chat("route-en", &["how do I get from Uniqlo to Starbucks", "from the main entrance to Nike"]);
    has_all(&en[0], &["Starbucks is on", "From Uniqlo", "Start at Uniqlo", "[floor plan:"]);
    has_none(&en[0], &["couldn't find", "main entrance"]);
    has_all(&en[1], &["Nike is on", "From the main entrance"]);
}

#[test]
fn gift_ideas_for_someone_in_three_languages() {
    let zh = chat("gift-zh", &["给我妈买个礼物 300 以内", "送同事什么礼物好"]);
    has_all(&zh[0], &["送妈妈的礼物（¥300 以内）", "护肤品", "•"]);
    has_none(&zh[0], &["没有找到"]);
    let prices = listed_prices(&zh[0]);
    assert!(
        prices.len() >= 2 && prices.iter().all(|p| *p <= 300.0),
        "ideas within ¥300: {prices:?}\n{}",
        zh[0]
    );
    has_all(&zh[1], &["送同事的礼物", "•"]);

    let hant = chat("gift-hant", &["送女朋友的禮物"]);
    has_all(&hant[0], &["送女朋友的禮物", "香水", "•"]);
    has_none(&hant[0], &["沒有找到", "礼物"]);

    let en = chat("gift-en", &["a birthday present for a 5-year-old under 200", "gift for my dad"]);
    has_all(&en[0], &["Gift ideas for a child (up to ¥200)", "building blocks", "•"]);
    has_none(&en[0], &["Freshippo", "I found no", "couldn't find"]);
    let prices = listed_prices(&en[0]);
    assert!(
        prices.len() >= 2 && prices.iter().all(|p| *p <= 200.0),
        "ideas within ¥200: {prices:?}\n{}",
        en[0]
    );
    has_all(&en[1], &["Gift ideas for your dad", "•"]);
}

#[test]
fn store_names_past_a_typo_in_three_languages() {
    let zh = chat("typo-zh", &["优衣裤在哪", "星巴可在哪里"]);
    has_all(&zh[0], &["优衣库在", "步行约"]);
    has_all(&zh[1], &["星巴克在"]);

    let hant = chat("typo-hant", &["優衣褲在哪"]);
    has_all(&hant[0], &["優衣庫在", "步行約"]);
    has_none(&hant[0], &["褲子", "件商品"]);

    let en = chat("typo-en", &["wher is uniqo", "where is starbuks", "where is Nkie"]);
    has_all(&en[0], &["Uniqlo is on"]);
    has_all(&en[1], &["Starbucks is on"]);
    has_all(&en[2], &["Nike is on"]);
}

#[test]
fn the_mall_information_in_shoppers_words_in_three_languages() {
    let zh = chat("info-zh", &["买的衣服不合适能退吗", "东西丢了怎么办", "停车费怎么算"]);
    has_all(&zh[0], &["退换货", "7 天"]);
    has_none(&zh[0], &["T恤", "尺码"]);
    has_all(&zh[1], &["失物招领"]);
    has_all(&zh[2], &["停车收费", "首小时 10 元"]);

    let hant = chat("info-hant", &["停車費怎麼算", "東西掉了要去哪裡找", "電動車充電樁在哪裡"]);
    has_all(&hant[0], &["停車收費", "首小時 10 元"]);
    has_none(&hant[0], &["停車場入口", "步行"]);
    has_all(&hant[1], &["失物招領", "1F"]);
    has_none(&hant[1], &["件商品"]);
    has_all(&hant[2], &["新能源汽車充電", "B2"]);
    has_none(&hant[2], &["沒有找到這家店"]);

    let en = chat(
        "info-en",
        &[
            "can I return a jacket I bought yesterday",
            "I lost my wallet",
            "where can I charge my electric car",
        ],
    );
    has_all(&en[0], &["Returns and exchanges", "7 days"]);
    has_none(&en[0], &["I don't know"]);
    has_all(&en[1], &["Lost and found"]);
    has_all(&en[2], &["EV charging", "B2"]);
}

#[test]
fn a_dish_alone_asks_where_to_get_it_and_a_drink_is_a_cafes() {
    let zh = chat("dish-zh", &["炸雞哪裡有", "想喝咖啡，最近的咖啡店在哪"]);
    has_all(&zh[0], &["有炸雞的地方", "肯德基", "B1"]);
    has_none(&zh[0], &["這個我不太懂", "件商品"]);
    has_all(&zh[1], &["有咖啡的地方", "1. 瑞幸咖啡", "星巴克"]);
    has_none(&zh[1], &["最近 咖啡", "肯德基"]);
    let en =
        chat("dish-en", &["any good dumpling place here", "I need coffee", "where can I get some noodles"]);
    has_all(&en[0], &["Places for dumpling", "Din Tai Fung", "5F"]);
    has_none(&en[0], &["Freshippo", "products"]);
    has_all(&en[1], &["Places for coffee", "Luckin Coffee", "Starbucks"]);
    has_none(&en[1], &["KFC"]);
    has_all(&en[2], &["Places for noodles", "Haidilao"]);
    // A dish with a price, or a word of buying, is still a product search.
    let products = chat("dish-products", &["奶茶 20 以内", "充电宝哪里有卖"]);
    has_all(&products[0], &["喜茶", "¥"]);
    has_all(&products[1], &["充电宝 20000mAh", "¥129"]);
}

#[test]
fn a_store_by_its_brands_name_its_phone_an_event_by_name_and_a_facility_by_need() {
    let zh = chat(
        "names-zh",
        &[
            "苹果店几点关门",
            "麦当劳电话多少",
            "灯光秀几点开始",
            "手机没电了，哪里能充电",
            "從正門進來要怎麼去海底撈",
        ],
    );
    has_all(&zh[0], &["Apple 零售店", "10:00–22:00"]);
    has_all(&zh[1], &["麦当劳", "021-5888 3135"]);
    has_all(&zh[2], &["中庭灯光秀", "19:30"]);
    has_all(&zh[3], &["充电站", "1楼"]);
    has_all(&zh[4], &["海底撈火鍋", "5F-12", "從正門出發"]);
    let en = chat(
        "names-en",
        &[
            "when does the light show start",
            "any activities for kids?",
            "my phone is dying, where can I charge it",
            "somewhere to change my baby's diaper?",
            "way from the LEGO store to Haidilao please",
            "I lost my scarf somewhere in the mall",
        ],
    );
    has_all(&en[0], &["Atrium light show", "19:30"]);
    has_all(&en[1], &["Weekend family craft workshop"]);
    has_all(&en[2], &["Phone charging", "1F"]);
    has_all(&en[3], &["Nursing room", "2F"]);
    has_all(&en[4], &["Haidilao Hotpot is on 5F-12", "From LEGO"]);
    has_all(&en[5], &["Lost and found", "service desk"]);
    has_none(&en[5], &["I don't know"]);
    let hant = chat("names-hant", &["耐吉在幾樓", "海底勞在幾樓", "外國人可以退稅嗎", "星期五晚上有表演嗎"]);
    has_all(&hant[0], &["耐克", "3F-01"]);
    has_all(&hant[1], &["海底撈火鍋", "5F-12"]);
    has_all(&hant[2], &["離境退稅", "500", "護照"]);
    has_all(&hant[3], &["週五中庭音樂會", "19:00"]);
}

/// One shopper's conversation typed into `mallbot chat`, without resets:
/// everything the bot said after each line, one entry per line.
fn conversation(name: &str, lines: &[&str]) -> Vec<String> {
    conversation_in(name, None, lines)
}

/// [`conversation`] on the mall whose files are in `mall` (the demo's when none).
fn conversation_in(name: &str, mall: Option<&str>, lines: &[&str]) -> Vec<String> {
    let script: String = lines.iter().map(|l| format!("{l}\n")).collect();
    let stdout = run_chat(name, "12", mall, &script);
    // The console echoes a confirmed line as "you> y"; the first answer follows the banner.
    let mut turns: Vec<String> = stdout.split("you> ").map(str::to_owned).collect();
    if turns.len() < lines.len() {
        // No echo: the answers in order, one or more per line.
        turns = vec![stdout];
    }
    turns
}

#[test]
fn buying_a_product_by_name_with_its_variant_in_three_languages() {
    let zh = conversation("buy-zh", &["来一杯星巴克拿铁，大杯"]).join("");
    has_all(&zh, &["请确认", "拿铁（大杯 Grande）× 1"]);
    has_none(&zh, &["抹茶拿铁"]);

    let hant = conversation("buy-hant", &["我要一杯星巴克的拿鐵 大杯", "y", "結帳", "y"]).join("");
    has_all(&hant, &["請確認", "拿鐵（大杯 Grande）× 1", "下單成功", "請到取貨門市付款取貨"]);

    let en = conversation("buy-en", &["two grande lattes from Starbucks please", "y"]).join("");
    has_all(&en, &["Caffè Latte (Grande) × 2", "Added to your cart: Caffè Latte (Grande) × 2"]);
    has_none(&en, &["大杯"]);

    let named = conversation("buy-named-zh", &["帮我把优衣库摇粒绒拉链夹克灰色加到购物车", "L"]).join("");
    has_all(&named, &["摇粒绒", "请确认", "（L 码）"]);
}

#[test]
fn alerts_on_a_product_named_and_how_to_pay_in_three_languages() {
    let zh =
        conversation("alert-zh", &["Nike Downshifter 13 黑白 40码到货了告诉我", "y", "/alerts"]).join("");
    has_all(&zh, &["Downshifter 13", "40", "时我会告诉您"]);

    let hant = conversation("alert-hant", &["幫我找 Nike 跑鞋，500 以內", "40號到貨了通知我"]).join("");
    has_all(&hant, &["Downshifter 13 男子公路跑鞋 黑白", "40"]);

    let en =
        conversation("alert-en", &["let me know if the Sony noise cancelling headphones drop below 2000"]);
    has_all(&en.join(""), &["Headphones", "¥2000"]);
    has_none(&en.join(""), &["Earbuds"]);

    let pay = chat("pay", &["how do I pay for an order?", "下单以后怎么付钱"]);
    has_all(&pay[0], &["pickup store"]);
    has_all(&pay[1], &["取货门店付款"]);
    has_none(&pay[1], &["购物车是空的"]);
}

#[test]
fn an_alert_on_another_malls_product_with_colours_reads_its_size() {
    let riverside = Some("examples/malls/riverside");
    let zh =
        conversation_in("alert-river-zh", riverside, &["亚瑟士 GEL-KAYANO 31 42码到货了告诉我"]).join("");
    has_all(&zh, &["GEL-KAYANO 31", "42 / 黑色", "现在就有货"]);
    let en = conversation_in(
        "alert-river-en",
        riverside,
        &["let me know when the ASICS GEL-KAYANO 31 is back in 42"],
    )
    .join("");
    has_all(&en, &["GEL-KAYANO 31", "size 42 / Black is in stock right now"]);
    has_none(&en, &["黑色", "couldn't handle"]);
}
