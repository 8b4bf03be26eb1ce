//! What the tools' hooks make of a shopper's message, in the order basic
//! mode asks them: the first step (a call and its arguments, or an answer),
//! and for the steps that read something first, what follows its data.

#![allow(clippy::unwrap_used)]

use std::sync::OnceLock;

use serde_json::{Value, json};

use super::text::cn_number;
use super::{Dialogue, Event, Lexicon, Made, Offer, Outcome, Said, Step, recognise};
use crate::Lang;

/// The names of the demo mall, learned as the bot learns them.
fn demo() -> &'static Lexicon {
    static DEMO: OnceLock<Lexicon> = OnceLock::new();
    DEMO.get_or_init(|| {
        let mall = services::EmbeddedMall::in_memory();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(Lexicon::learn(&mall)).unwrap()
    })
}

fn shoe(id: &str, name: &str, price: f64) -> Value {
    json!({"product_id": id, "name": name, "price": price, "rating": 4.5, "sizes": ["40", "41", "42"],
           "store": "Nike 专卖店", "floor": "3楼"})
}

fn made(name: &str, args: Value, data: Value) -> Event {
    Event::Call(Made { name: name.to_owned(), args, outcome: Some(Outcome::Data(data)) })
}

fn user(text: &str) -> Event {
    Event::User { text: text.to_owned(), lang: Lang::detect(text) }
}

/// A conversation where three Nike running shoes were listed and the first
/// opened (sizes 40–42 in stock, 43 sold out), then `text`.
fn after_a_product(text: &str) -> Dialogue {
    let sku =
        |size: &str, stock: u32| json!({"sku_id": format!("sku-peg-{size}"), "label": size, "stock": stock});
    let found = json!({"total": 3, "products": [
        shoe("p-pegasus", "Nike Air Zoom Pegasus 40", 499.0),
        shoe("p-revolution", "Nike Revolution 7", 399.0),
        shoe("p-downshifter", "Nike Downshifter 13", 349.0),
    ]});
    let detail = json!({"product_id": "p-pegasus", "name": "Nike Air Zoom Pegasus 40", "price_yuan": 499.0,
        "skus": [sku("40", 3), sku("41", 5), sku("42", 2), sku("43", 0)],
        "store": {"store_id": "s-nike", "name": "Nike 专卖店", "floor": 3, "unit": "L3-01"}});
    Dialogue::new(vec![
        user("有什么 Nike 跑鞋"),
        made("search_products", json!({"keyword": "Nike 跑鞋", "brand": "Nike"}), found),
        Event::Answer("…".to_owned()),
        user("第一个"),
        made("get_product_detail", json!({"product_id": "p-pegasus"}), detail),
        Event::Answer("…".to_owned()),
        user(text),
    ])
}

/// The first step `text` asks for after a product was shown.
fn first(text: &str) -> Option<Step> {
    let dialogue = after_a_product(text);
    let no_offer = || None::<Offer>;
    recognise(&Said::new(&dialogue, demo(), &no_offer))
}

/// The call `text` asks for first.
fn call(text: &str) -> (&'static str, Value, bool) {
    match first(text) {
        Some(Step::Call(call)) => (call.tool, call.arguments, call.then.is_some()),
        other => panic!("{text}: expected a call, got {other:?}"),
    }
}

/// The answer `text` gets at once, with no call.
fn answer(text: &str) -> String {
    match first(text) {
        Some(Step::Answer(reply)) => reply.text,
        other => panic!("{text}: expected an answer, got {other:?}"),
    }
}

/// The call that follows the first one's `data`.
fn then(text: &str, data: Value) -> (&'static str, Value) {
    let dialogue = after_a_product(text);
    let no_offer = || None::<Offer>;
    let said = Said::new(&dialogue, demo(), &no_offer);
    let Some(Step::Call(first)) = recognise(&said) else { panic!("{text}: no call") };
    match (first.then.unwrap())(&data, &said) {
        Some(Step::Call(call)) => (call.tool, call.arguments),
        other => panic!("{text}: expected a call after {}, got {other:?}", first.tool),
    }
}

#[test]
fn product_searches_with_brands_and_price_bounds() {
    let cases = [
        (
            "帮我买一双 Nike 跑鞋，500 以内的",
            json!({"keyword": "Nike 跑鞋", "brand": "Nike", "max_price": 500}),
            true,
        ),
        ("有什么 Nike 跑鞋", json!({"keyword": "Nike 跑鞋", "brand": "Nike"}), false),
        ("耐克跑鞋300以下", json!({"keyword": "Nike 跑鞋", "brand": "Nike", "max_price": 300}), false),
        (
            "阿迪达斯外套 不超过 300",
            json!({"keyword": "Adidas 外套", "brand": "Adidas", "max_price": 300}),
            false,
        ),
        ("100 到 200 元的耳机", json!({"keyword": "耳机", "min_price": 100, "max_price": 200}), false),
        ("200 以上的运动鞋", json!({"keyword": "运动鞋", "min_price": 200}), false),
        (
            "五百块以内的优衣库T恤",
            json!({"keyword": "Uniqlo T恤", "brand": "Uniqlo", "max_price": 500}),
            false,
        ),
        ("show me running shoes", json!({"keyword": "running shoes"}), false),
        (
            "find me headphones between 100 and 200",
            json!({"keyword": "headphones", "min_price": 100, "max_price": 200}),
            false,
        ),
        (
            "Adidas sneakers over 200",
            json!({"keyword": "Adidas sneakers", "brand": "Adidas", "min_price": 200}),
            false,
        ),
        (
            "I want to buy Nike running shoes under 500",
            json!({"keyword": "Nike running shoes", "brand": "Nike", "max_price": 500}),
            true,
        ),
        (
            "华为手机 3000-5000",
            json!({"keyword": "Huawei 手机", "brand": "Huawei", "min_price": 3000, "max_price": 5000}),
            false,
        ),
        ("300 以下的呢", json!({"keyword": "Nike 跑鞋", "brand": "Nike", "max_price": 300}), false),
        ("便宜点的", json!({"keyword": "Nike 跑鞋", "brand": "Nike", "max_price": 498}), false),
        ("cheaper ones please", json!({"keyword": "Nike 跑鞋", "brand": "Nike", "max_price": 498}), false),
        ("我想要一杯星巴克咖啡", json!({"keyword": "Starbucks 咖啡", "brand": "Starbucks"}), true),
        ("我想买个华为手机", json!({"keyword": "Huawei 手机", "brand": "Huawei"}), true),
        ("三百到五百的运动鞋", json!({"keyword": "运动鞋", "min_price": 300, "max_price": 500}), false),
        (
            "nike shoes cheaper than 600",
            json!({"keyword": "Nike shoes", "brand": "Nike", "max_price": 600}),
            false,
        ),
        ("跑鞋在哪", json!({"keyword": "跑鞋"}), false),
    ];
    for (text, args, buying) in cases {
        assert_eq!(call(text), ("search_products", args, buying), "{text}");
    }
    let found = json!({"total": 1, "products": [shoe("p-pegasus", "Nike Air Zoom Pegasus 40", 499.0)]});
    assert_eq!(
        then("帮我买一双 Nike 跑鞋", found),
        ("get_product_detail", json!({"product_id": "p-pegasus"})),
        "buying opens the best match"
    );
}

#[test]
fn quantities_said_when_buying() {
    let cases = [
        ("帮我买一双 Nike 跑鞋，500 以内的", Some(1)),
        ("帮我买两双 Nike 跑鞋", Some(2)),
        ("我想要一杯星巴克咖啡", Some(1)),
        ("第一个", None),
        ("size 42, 2 pairs", Some(2)),
        ("two grande lattes from Starbucks please", Some(2)),
        ("3 iced americanos", Some(3)),
        ("500 yuan shoes", None),
        ("buy 2 iced americanos from Starbucks", Some(2)),
        ("来两杯喜茶多肉葡萄", Some(2)),
    ];
    for (text, quantity) in cases {
        assert_eq!(crate::info::quantity_said(text), quantity, "{text}");
    }
}

#[test]
fn a_variant_named_when_buying_is_the_one_taken() {
    let sku = |id: &str, label: &str| json!({"sku_id": id, "label": label, "stock": 9});
    let detail: crate::info::ProductDetail = serde_json::from_value(json!({
        "product_id": "p-latte", "name": "拿铁", "brand": "星巴克", "category": "咖啡", "price_yuan": 30.0,
        "skus": [sku("t", "中杯 Tall"), sku("g", "大杯 Grande"), sku("v", "超大杯 Venti")],
        "store": {"store_id": "s-sb", "name": "星巴克", "floor": 1, "unit": "1F-05"}}))
    .unwrap();
    let named = |text: &str| crate::info::named_size(text, &detail);
    assert_eq!(named("来一杯星巴克拿铁，大杯").as_deref(), Some("大杯 Grande"));
    assert_eq!(
        named("我要一杯星巴克的拿鐵 超大杯").as_deref(),
        Some("超大杯 Venti"),
        "the longest word named"
    );
    assert_eq!(named("two grande lattes from Starbucks please").as_deref(), Some("大杯 Grande"));
    assert_eq!(named("a latte please"), None);
}

#[test]
fn ordinals_open_a_listed_product() {
    let cases = [
        ("第一个", "p-pegasus"),
        ("第2个", "p-revolution"),
        ("看看第二款", "p-revolution"),
        ("the second one", "p-revolution"),
        ("show the first one", "p-pegasus"),
        ("#3", "p-downshifter"),
        ("最后一个", "p-downshifter"),
    ];
    for (text, id) in cases {
        assert_eq!(call(text), ("get_product_detail", json!({"product_id": id}), false), "{text}");
    }
    assert_eq!(answer("第五个"), "上次只列出了 3 件商品，请选 1 到 3 之间的序号。");
}

#[test]
fn sizes_and_quantities_add_the_product_shown() {
    let add = |sku: &str, quantity: u32| {
        ("add_to_cart", json!({"product_id": "p-pegasus", "sku_id": sku, "quantity": quantity}), false)
    };
    let cases = [
        ("42码", add("sku-peg-42", 1)),
        ("42", add("sku-peg-42", 1)),
        ("size 42", add("sku-peg-42", 1)),
        ("42码两双", add("sku-peg-42", 2)),
        ("41码加入购物车", add("sku-peg-41", 1)),
        ("size 42, 2 pairs", add("sku-peg-42", 2)),
    ];
    for (text, expected) in cases {
        assert_eq!(call(text), expected, "{text}");
    }
    for text in ["要两双", "加入购物车", "我要这个"] {
        assert_eq!(answer(text), "有 40、41、42 码，您要哪个尺码？", "{text}: which size");
    }
    for text in ["2 pairs", "add to cart"] {
        assert!(answer(text).contains("40, 41, 42"), "{text}: which size");
    }
    assert_eq!(answer("M 码"), "抱歉，M 码没有货了。目前有货的尺码：40、41、42，您要哪个？");
    assert!(answer("I'll take size xl").contains("XL"));
    assert!(answer("42.5").contains("42.5"));
}

#[test]
fn a_bare_yes_to_a_product_of_several_sizes_asks_which_one_and_calls_no_tool() {
    for text in ["好的", "好", "要"] {
        assert_eq!(answer(text), "有 40、41、42 码，您要哪个尺码？", "{text}");
    }
    for text in ["yes please", "ok"] {
        let answer = answer(text);
        assert!(answer.contains("40") && answer.contains("42"), "{text}: which size: {answer}");
    }
    for text in ["好的", "yes please", "好", "要", "ok"] {
        let dialogue = after_a_product(text);
        let no_offer = || None::<Offer>;
        assert!(Said::new(&dialogue, demo(), &no_offer).is_yes(), "{text}");
    }
}

#[test]
fn stores_areas_and_store_information() {
    let to_store = |name: &str| ("navigate_to_store", json!({"store_name": name}), false);
    let to_area = |name: &str| ("navigate_to_area", json!({"area_name": name, "show_stores": true}), false);
    let info =
        |store: &str, kind: &str| ("get_store_info", json!({"store_id": store, "info_type": kind}), false);
    let stores = |keyword: &str| ("search_stores", json!({"keyword": keyword}), false);
    let cases = [
        ("Uniqlo 在哪", to_store("Uniqlo")),
        ("优衣库怎么走", to_store("优衣库")),
        ("where is Uniqlo?", to_store("Uniqlo")),
        ("how do I get to Starbucks", to_store("Starbucks")),
        ("美食广场在哪", to_area("美食广场")),
        ("where is the food court", to_area("food court")),
        ("运动区有哪些店", to_area("运动区")),
        ("星巴克几点开门", info("星巴克", "basic")),
        ("星巴克营业时间", info("星巴克", "basic")),
        ("海底捞营业时间", info("海底捞", "basic")),
        ("when does Apple open", info("Apple", "basic")),
        ("优衣库有什么优惠", info("优衣库", "promotions")),
        ("优衣库有什么活动", info("优衣库", "promotions")),
        ("any deals at Nike", info("Nike", "promotions")),
        ("海底捞评价怎么样", info("海底捞", "reviews")),
        ("reviews of Haidilao", info("Haidilao", "reviews")),
        ("找一家咖啡店", stores("咖啡")),
        ("find a coffee shop", stores("coffee")),
        ("哪里有咖啡店", ("search_stores", json!({"keyword": "咖啡", "category": "drinks"}), true)),
        ("any restaurants?", ("search_stores", json!({"keyword": "", "category": "food"}), true)),
        ("有火锅店吗", stores("火锅")),
        ("附近有吃饭的地方吗", ("search_stores", json!({"keyword": "", "category": "food"}), true)),
        ("海底捞好吃吗", info("海底捞", "reviews")),
        ("where can I find Nike", to_store("Nike")),
        ("where is the toy store", stores("toy")),
    ];
    for (text, expected) in cases {
        assert_eq!(call(text), expected, "{text}");
    }
}

#[test]
fn the_malls_own_information_events_and_offers() {
    let info = |text: &str| ("mall_info", json!({"question": text}), false);
    for text in [
        "停车怎么收费",
        "商场几点关门",
        "几点关门",
        "可以退货吗",
        "wifi密码是多少",
        "what time does the mall close",
        "how much is parking",
        "what's the wifi password?",
        "can I bring my dog",
        "停车场收费多少钱",
    ] {
        assert_eq!(call(text), info(text), "{text}");
    }
    let events = |args: Value| ("mall_events", args, false);
    let cases = [
        ("这周末有什么活动", events(json!({"when": "weekend"}))),
        ("what's on today", events(json!({"when": "today"}))),
        ("what's on this weekend?", events(json!({"when": "weekend"}))),
        ("商场最近有什么活动", events(json!({}))),
        ("商场有什么优惠", events(json!({"offers": true}))),
        ("any deals in the mall this week", events(json!({"when": "week", "offers": true}))),
    ];
    for (text, expected) in cases {
        assert_eq!(call(text), expected, "{text}");
    }
    // A store's own hours and offers, and the way to a facility, are not the mall's information.
    assert_eq!(call("星巴克几点开门").0, "get_store_info");
    assert_eq!(call("when does Apple close").0, "get_store_info");
    assert_eq!(call("耐克有什么活动").0, "get_store_info");
    let way = first("停车场在哪").map(|s| format!("{s:?}")).unwrap_or_default();
    assert!(!way.contains("mall_info"), "the way to the car park is the map's: {way}");
}

fn cart() -> Value {
    let item = |id: &str, name: &str| {
        json!({"item_id": id, "product_id": "p", "name": name, "quantity": 1,
        "unit_price_yuan": 499.0, "line_total_yuan": 499.0})
    };
    json!({"cart_id": "cart-7", "items": [item("item-1", "Nike Air Zoom Pegasus 40"), item("item-2", "Li-Ning 跑鞋")],
           "total_yuan": 998.0})
}

fn orders() -> Value {
    let order = |id: &str, status: &str| json!({"order_id": id, "status": status, "total_yuan": 499.0});
    json!({"total": 3, "orders": [order("o-3", "COMPLETED"), order("o-2", "PAID"), order("o-1", "PENDING_PAYMENT")]})
}

#[test]
fn cart_requests() {
    for text in ["看看购物车", "my cart", "show cart"] {
        assert_eq!(call(text), ("view_cart", json!({}), false), "{text}");
    }
    for text in ["清空购物车", "empty my cart"] {
        assert_eq!(call(text), ("clear_cart", json!({}), false), "{text}");
    }
    let cases =
        [("删掉第一件", "item-1"), ("remove the first item", "item-1"), ("把购物车里的跑鞋删掉", "item-2")];
    for (text, item) in cases {
        assert_eq!(call(text), ("view_cart", json!({}), true), "{text}: the cart is read first");
        assert_eq!(then(text, cart()), ("remove_from_cart", json!({"item_id": item})), "{text}");
    }
}

#[test]
fn removing_it_from_a_cart_of_one_line_removes_that_line() {
    let one = json!({"cart_id": "cart-7", "items": [{"item_id": "item-1", "product_id": "p", "name": "Nike",
        "quantity": 1, "unit_price_yuan": 499.0, "line_total_yuan": 499.0}], "total_yuan": 499.0});
    for text in ["actually remove it from my cart", "算了，把它从购物车删掉"] {
        assert_eq!(call(text), ("view_cart", json!({}), true), "{text}: the cart is read first");
        assert_eq!(then(text, one.clone()), ("remove_from_cart", json!({"item_id": "item-1"})), "{text}");
    }
}

#[test]
fn adding_a_product_named_to_the_cart_looks_for_it_first() {
    let dialogue = Dialogue::new(vec![user("add the Nike Pegasus 41 to my cart, size 42")]);
    let no_offer = || None::<Offer>;
    let Some(Step::Call(call)) = recognise(&Said::new(&dialogue, demo(), &no_offer)) else {
        panic!("no call")
    };
    assert_eq!(
        (call.tool, call.arguments),
        ("search_products", json!({"keyword": "Nike Pegasus 41", "brand": "Nike"}))
    );
    let dialogue = Dialogue::new(vec![user("帮我加一件优衣库摇粒绒夹克到购物车，M码")]);
    let Some(Step::Call(call)) = recognise(&Said::new(&dialogue, demo(), &no_offer)) else {
        panic!("no call")
    };
    let keyword = call.arguments["keyword"].as_str().unwrap_or_default().to_owned();
    assert_eq!(call.tool, "search_products");
    assert!(keyword.contains("摇粒绒夹克") && !keyword.contains('加'), "{keyword}");
}

#[test]
fn how_to_pay_is_a_question_not_an_order() {
    for text in [
        "how do I pay for an order?",
        "下单以后怎么付钱",
        "怎么付款",
        "可以用什么方式支付",
        "可以用微信支付吗",
    ] {
        let answer = answer(text);
        assert!(answer.contains("pickup store") || answer.contains("取货门店"), "{text}: {answer}");
    }
    assert_eq!(
        first("停车怎么付款").map(|s| matches!(s, Step::Answer(r) if r.text.contains("取货"))),
        Some(false)
    );
}

#[test]
fn alerts_on_a_product_named_search_for_it_first() {
    let (tool, args, then_follows) = call("Nike Downshifter 13 黑白 40码到货了告诉我");
    assert_eq!((tool, then_follows), ("search_products", true));
    assert_eq!(args["brand"], "Nike");
    assert_eq!(args["keyword"], "Nike Downshifter 13 黑白");
    let found = json!({"total": 2, "products": [
        shoe("p-buds", "WF-1000XM5 Noise Cancelling Earbuds", 1799.0),
        shoe("p-phones", "WH-1000XM5 Noise Cancelling Headphones", 2499.0),
    ]});
    let text = "let me know if the Sony noise cancelling headphones drop below 2000";
    assert_eq!(call(text).0, "search_products");
    assert_eq!(
        then(text, found),
        ("get_product_detail", json!({"product_id": "p-phones"})),
        "the best match"
    );
}

#[test]
fn alerts_without_a_name_are_on_the_product_shown() {
    let stock = |size: &str| json!({"product_id": "p-pegasus", "watch": "stock", "size": size});
    assert_eq!(call("42码到货了告诉我"), ("watch_product", stock("42"), false));
    assert_eq!(call("let me know when size 40 is back in stock"), ("watch_product", stock("40"), false));
    assert_eq!(call("let me know when it's back in 42"), ("watch_product", stock("42"), false));
    let named = call("let me know when the Pegasus 41 is back in 42");
    assert_eq!(
        (named.0, named.1["keyword"].as_str()),
        ("search_products", Some("Pegasus 41")),
        "42 is the size"
    );
    let price = json!({"product_id": "p-pegasus", "watch": "price", "max_price": 400.0});
    assert_eq!(call("降到 400 以下告诉我"), ("watch_product", price, false));
    // After a list, the first product listed is opened, then watched.
    let found = json!({"total": 1, "products": [shoe("p-revolution", "Nike Revolution 7", 399.0)]});
    let dialogue = Dialogue::new(vec![
        user("有什么 Nike 跑鞋"),
        made("search_products", json!({"keyword": "Nike 跑鞋"}), found),
        Event::Answer("…".to_owned()),
        user("40号到货了通知我"),
    ]);
    let no_offer = || None::<Offer>;
    let Some(Step::Call(call)) = recognise(&Said::new(&dialogue, demo(), &no_offer)) else {
        panic!("no call")
    };
    assert_eq!((call.tool, call.arguments), ("get_product_detail", json!({"product_id": "p-revolution"})));
}

#[test]
fn order_requests() {
    for text in ["下单", "结账", "结帐", "埋单", "place the order", "checkout", "去付款"] {
        assert_eq!(call(text), ("view_cart", json!({}), true), "{text}: the cart is read first");
        assert_eq!(then(text, cart()), ("create_order", json!({"cart_id": "cart-7"})), "{text}");
    }
    for text in ["我的订单", "my orders"] {
        assert_eq!(call(text), ("list_orders", json!({}), false), "{text}");
    }
    let status = |id: &str| ("get_order_status", json!({"order_id": id}), false);
    let cancel = |id: &str| ("cancel_order", json!({"order_id": id}), false);
    assert_eq!(call("订单 o-123 到哪了"), status("o-123"));
    assert_eq!(call("pay for order o-7"), status("o-7"));
    assert_eq!(call("cancel o-5"), cancel("o-5"));
    assert_eq!(call("cancel order ORD-2024-0007"), cancel("ORD-2024-0007"));
    let from_the_list = [
        ("status of my order", "get_order_status", "o-3"),
        ("where is my order", "get_order_status", "o-3"),
        ("取消订单", "cancel_order", "o-2"),
        ("cancel my last order", "cancel_order", "o-2"),
        ("我要支付订单", "get_order_status", "o-1"),
    ];
    for (text, tool, id) in from_the_list {
        assert_eq!(call(text), ("list_orders", json!({}), true), "{text}: the list is read first");
        assert_eq!(then(text, orders()), (tool, json!({"order_id": id})), "{text}");
    }
}

#[test]
fn small_talk_and_gibberish_ask_for_nothing() {
    for text in [
        "你好",
        "hello",
        "hi there!",
        // Greetings as read from Traditional (哈囉 → 哈啰) and with a particle.
        "哈啰",
        "哈啰你好",
        "你好呀",
        "嗨～",
        "早安",
        "安安",
        "Good morning!",
        "谢谢",
        "thanks",
        "今天天气怎么样",
        "tell me a joke",
        "asdfgh",
        "",
        "？？",
    ] {
        assert_eq!(first(text), None, "{text}");
    }
}

#[test]
fn every_built_in_tool_declares_its_basic_mode() {
    let built_in: Vec<_> = crate::all().iter().filter(|spec| spec.is_built_in()).collect();
    assert!(!built_in.is_empty(), "the registry holds this crate's tools");
    for spec in built_in {
        assert!(spec.offline.is_some(), "{} declares no basic mode (`offline = …`)", spec.name);
    }
}

#[test]
fn hooks_are_asked_in_priority_order() {
    let hooks = super::hooks();
    let declaring = crate::all().iter().filter(|spec| spec.offline.is_some()).count();
    assert_eq!(hooks.len(), declaring, "every tool that declares a basic mode is asked");
    assert!(hooks.windows(2).all(|w| (w[0].1.priority, w[0].0.name) <= (w[1].1.priority, w[1].0.name)));
}

#[test]
fn reads_chinese_numerals() {
    let cases =
        [("两", 2), ("十", 10), ("十二", 12), ("二十", 20), ("五百", 500), ("两百五", 250), ("一千五", 1500)];
    for (text, value) in cases {
        assert_eq!(cn_number(text), Some(value), "{text}");
    }
    assert_eq!(cn_number("一千零五"), Some(1005));
    assert_eq!(cn_number("双"), None);
}

#[test]
fn facilities_are_asked_for_by_kind_and_never_looked_up_as_stores() {
    for (text, kind, from) in [
        ("洗手间在哪", "restroom", None),
        ("最近的洗手间", "restroom", None),
        ("有母婴室吗", "mothersroom", None),
        ("我在优衣库，最近的母婴室在哪", "mothersroom", Some("优衣库")),
        ("nearest ATM from the north gate", "atm", Some("north gate")),
        ("where is the accessible toilet?", "restroom.wheelchair", None),
        ("I'm at Nike, where's the nearest restroom?", "restroom", Some("Nike")),
        ("我在3楼，洗手间在哪", "restroom", Some("3楼")),
        ("停车场入口在哪", "parking", None),
    ] {
        let (tool, args, _) = call(text);
        assert_eq!(tool, "find_facility", "{text}");
        assert_eq!(args["kind"], kind, "{text}");
        assert_eq!(args.get("from").and_then(Value::as_str), from, "{text}: {args}");
    }
    // What parking costs is the mall's information, not a place to walk to.
    for text in ["停车怎么收费", "how much is parking?"] {
        let tool = match first(text) {
            Some(Step::Call(call)) => Some(call.tool),
            _ => None,
        };
        assert_ne!(tool, Some("find_facility"), "{text}");
    }
}

#[test]
fn a_facility_from_a_place_the_map_does_not_know_asks_where_the_shopper_is() {
    let dialogue = after_a_product("我在西门，洗手间在哪");
    let no_offer = || None::<Offer>;
    let said = Said::new(&dialogue, demo(), &no_offer);
    match recognise(&said) {
        Some(Step::Call(call)) => {
            assert_eq!((call.tool, &call.arguments["from"]), ("find_facility", &json!("西门")));
        }
        other => panic!("{other:?}"),
    }
    let failed = crate::find("find_facility").unwrap().offline.unwrap().failed.unwrap();
    let error = crate::ToolError::invalid("from", "no place called \"西门\" on the map").model_message();
    assert_eq!(failed(&said, &error).as_deref(), Some(Lang::Zh.texts().facilities.unknown_start));
    let error = crate::ToolError::NotFound("no map".into()).model_message();
    assert_eq!(failed(&said, &error).as_deref(), Some(Lang::Zh.texts().facilities.no_map));
}

#[test]
fn eating_asks_the_places_to_eat_by_dish_or_all_of_them() {
    for (text, dish) in [
        ("哪里能吃火锅", "火锅"),
        ("我想吃火锅", "火锅"),
        ("where can I eat hotpot", "hotpot"),
        ("有什么餐厅", ""),
        ("附近有什么好吃的", ""),
        ("any restaurants?", ""),
        ("I'm hungry", ""),
        ("炸鸡哪里有", "炸鸡"),
        ("bubble tea?", "bubble tea"),
        ("I need coffee", "coffee"),
        ("any good dumpling place here", "dumpling"),
        ("想喝咖啡，最近的咖啡店在哪", "咖啡"),
    ] {
        let (tool, args, then) = call(text);
        assert_eq!(tool, "search_stores", "{text}");
        // A drink is looked for where people drink first (coffee is a café's), a dish where they eat.
        let category = if ["coffee", "bubble tea", "咖啡"].contains(&dish) { "drinks" } else { "food" };
        assert_eq!(args, json!({"keyword": dish, "category": category}), "{text}");
        assert!(then, "{text}: the places lead on");
    }
    // A dish with a price or a word of buying is a product search.
    assert_eq!(call("奶茶 50 以内").0, "search_products");
    assert_eq!(call("面膜哪里有").0, "search_products");
    // A store named is that store's; a message that is only a store's name is the way there.
    assert_ne!(call("麦当劳有什么好吃的").0, "search_stores");
    assert_eq!(call("海底捞火锅"), ("navigate_to_store", json!({"store_name": "海底捞火锅"}), false));
}

#[test]
fn a_walk_from_one_place_to_another_has_a_start() {
    for (text, from, to) in [
        ("从 Nike 怎么去星巴克", "nike", "星巴克"),
        ("从耐克到星巴克怎么走", "耐克", "星巴克"),
        ("我在优衣库，海底捞怎么走", "优衣库", "海底捞"),
        ("how do I get from Uniqlo to Starbucks", "uniqlo", "starbucks"),
        ("from the main entrance to Nike", "main entrance", "nike"),
        ("way from the LEGO store to Haidilao please", "lego store", "haidilao"),
        ("從正門進來要怎麼去海底撈", "正门", "海底捞"),
    ] {
        let (tool, args, _) = call(text);
        assert_eq!(tool, "navigate_to_store", "{text}");
        assert_eq!(args, json!({"store_name": to, "from": from}), "{text}");
    }
}

#[test]
fn a_gift_for_someone_searches_kinds_that_suit_them_within_the_budget() {
    let (tool, args, then) = call("给我妈买个礼物 300 以内");
    assert_eq!((tool, then), ("search_products", true));
    assert_eq!(args, json!({"keyword": "护肤", "max_price": 300}));
    let (_, args, _) = call("a birthday present for a 5-year-old under 200");
    assert_eq!(
        args,
        json!({"keyword": "building blocks", "max_price": 200}),
        "a child's gift, never groceries"
    );
    let (_, args, _) = call("送女朋友的礼物");
    assert_eq!(args, json!({"keyword": "香水"}));
    // Wrapping a gift is the mall's information.
    assert_eq!(call("礼品包装怎么收费").0, "mall_info");
}

#[test]
fn store_names_are_read_past_a_typo() {
    for (text, store) in
        [("优衣裤在哪", "优衣裤"), ("wher is uniqo", "uniqo"), ("where is starbuks", "starbuks")]
    {
        assert_eq!(call(text), ("navigate_to_store", json!({"store_name": store}), false), "{text}");
    }
    assert_eq!(demo().near_store("优衣裤"), Some("优衣库"));
    assert_eq!(demo().near_store("uniqo"), Some("uniqlo"));
    assert_eq!(demo().near_store("nkie"), Some("nike"));
    assert_eq!(demo().near_store("跑鞋"), None, "two characters are too short to guess");
}

#[test]
fn the_mall_information_is_found_by_what_people_say() {
    for text in [
        "买的衣服不合适能退吗",
        "东西掉了要去哪里找",
        "停车费怎么算",
        "电动车充电桩在哪里",
        "I lost my wallet",
    ] {
        assert_eq!(call(text).0, "mall_info", "{text}");
    }
    // The way to the car park stays the map's.
    assert_eq!(call("停车场在哪").0, "find_facility");
}

#[test]
fn a_stores_name_alone_with_a_typo_is_the_way_there() {
    for (text, store) in [("adiddas", "adidas"), ("星巴可", "星巴克"), ("sefora?", "sephora")] {
        let (tool, args, _) = call(text);
        assert_eq!((tool, args["store_name"].as_str()), ("navigate_to_store", Some(store)), "{text}");
    }
}

#[test]
fn a_facility_near_a_store_starts_there() {
    for (text, from) in [
        ("restroom near haidilao", "haidilao"),
        ("海底捞附近的厕所", "海底捞"),
        ("toilet near nikee", "nikee"),
    ] {
        let (tool, args, _) = call(text);
        assert_eq!((tool, args["from"].as_str()), ("find_facility", Some(from)), "{text}");
    }
    // The mall's membership is its information, not a product.
    assert_eq!(call("会员有什么好处").0, "mall_info");
}

#[test]
fn numbers_joined_by_and_or_to_are_prices_only_when_they_read_as_prices() {
    assert_eq!(call("compare iphone 16 and 16 pro").1.get("min_price"), None);
    assert_eq!(call("jackets from 300 to 600").0, "search_products");
    let (_, args, _) = call("jackets from 300 to 600");
    assert_eq!((args["min_price"].as_f64(), args["max_price"].as_f64()), (Some(300.0), Some(600.0)));
}

#[test]
fn only_the_malls_names_say_no_language_in_small_letters() {
    for text in ["nike", "uniqlo?", "heytea", "nike 42", "Nike"] {
        assert!(demo().only_names(text), "{text}");
    }
    for text in ["bubble tea?", "wifi?", "nike shoes", "toilets", "42", ""] {
        assert!(!demo().only_names(text), "{text}");
    }
}
