//! Unit tests of the offline planner's parsing: [`parse_intent`] over Chinese
//! and English messages, and the number helpers.

#![allow(clippy::unwrap_used)]

use std::sync::OnceLock;

use super::extract::{Pick, PriceBounds};
use super::intent::{CartTarget, InfoKind, Intent, ProductQuery, parse_intent};
use super::lexicon::Lexicon;
use super::text::cn_number;

/// The names of the demo mall, learned as the bot learns them.
fn demo() -> &'static Lexicon {
    static DEMO: OnceLock<Lexicon> = OnceLock::new();
    DEMO.get_or_init(|| {
        let mall = services::EmbeddedMall::in_memory();
        let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
        runtime.block_on(Lexicon::learn(&mall)).unwrap()
    })
}

fn search(keyword: &str, brand: Option<&str>, min: Option<f64>, max: Option<f64>, buy: bool) -> Intent {
    Intent::SearchProducts(ProductQuery {
        keyword: keyword.to_owned(),
        brand: brand.map(str::to_owned),
        price: PriceBounds { min, max },
        cheap: false,
        buy,
        quantity: None,
    })
}

fn with_quantity(intent: Intent, quantity: u32) -> Intent {
    match intent {
        Intent::SearchProducts(q) => Intent::SearchProducts(ProductQuery { quantity: Some(quantity), ..q }),
        other => other,
    }
}

fn cheap(intent: Intent) -> Intent {
    match intent {
        Intent::SearchProducts(q) => Intent::SearchProducts(ProductQuery { cheap: true, ..q }),
        other => other,
    }
}

fn add(size: Option<&str>, quantity: Option<u32>, explicit: bool) -> Intent {
    Intent::AddToCart { size: size.map(str::to_owned), quantity, explicit }
}

fn store(store: &str) -> Intent {
    Intent::NavigateToStore { store: store.to_owned() }
}

fn area(area: &str) -> Intent {
    Intent::NavigateToArea { area: area.to_owned() }
}

fn info(store: &str, info: InfoKind) -> Intent {
    Intent::StoreInfo { store: store.to_owned(), info }
}

fn stores(keyword: &str) -> Intent {
    Intent::SearchStores { keyword: keyword.to_owned() }
}

#[test]
fn parses_product_searches_with_brands_and_price_bounds() {
    let nike = Some("Nike");
    let cases = [
        (
            "帮我买一双 Nike 跑鞋，500 以内的",
            with_quantity(search("Nike 跑鞋", nike, None, Some(500.0), true), 1),
        ),
        ("有什么 Nike 跑鞋", search("Nike 跑鞋", nike, None, None, false)),
        ("耐克跑鞋300以下", search("Nike 跑鞋", nike, None, Some(300.0), false)),
        ("阿迪达斯外套 不超过 300", search("Adidas 外套", Some("Adidas"), None, Some(300.0), false)),
        ("100 到 200 元的耳机", search("耳机", None, Some(100.0), Some(200.0), false)),
        ("200 以上的运动鞋", search("运动鞋", None, Some(200.0), None, false)),
        ("五百块以内的优衣库T恤", search("Uniqlo T恤", Some("Uniqlo"), None, Some(500.0), false)),
        ("show me running shoes", search("running shoes", None, None, None, false)),
        (
            "find me headphones between 100 and 200",
            search("headphones", None, Some(100.0), Some(200.0), false),
        ),
        ("Adidas sneakers over 200", search("Adidas sneakers", Some("Adidas"), Some(200.0), None, false)),
        (
            "I want to buy Nike running shoes under 500",
            search("Nike running shoes", nike, None, Some(500.0), true),
        ),
        ("华为手机 3000-5000", search("Huawei 手机", Some("Huawei"), Some(3000.0), Some(5000.0), false)),
        ("300 以下的呢", search("", None, None, Some(300.0), false)),
        ("便宜点的", cheap(search("", None, None, None, false))),
        ("cheaper ones please", cheap(search("", None, None, None, false))),
        (
            "我想要一杯星巴克咖啡",
            with_quantity(search("Starbucks 咖啡", Some("Starbucks"), None, None, true), 1),
        ),
        ("我想买个华为手机", search("Huawei 手机", Some("Huawei"), None, None, true)),
        ("三百到五百的运动鞋", search("运动鞋", None, Some(300.0), Some(500.0), false)),
        ("nike shoes cheaper than 600", search("Nike shoes", nike, None, Some(600.0), false)),
        ("跑鞋在哪", search("跑鞋", None, None, None, false)),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_intent(text, demo()), expected, "{text}");
    }
}

#[test]
fn parses_ordinals_sizes_and_quantities() {
    let cases = [
        ("第一个", Intent::ShowProduct(Pick::Nth(1))),
        ("第2个", Intent::ShowProduct(Pick::Nth(2))),
        ("看看第二款", Intent::ShowProduct(Pick::Nth(2))),
        ("the second one", Intent::ShowProduct(Pick::Nth(2))),
        ("show the first one", Intent::ShowProduct(Pick::Nth(1))),
        ("#3", Intent::ShowProduct(Pick::Nth(3))),
        ("最后一个", Intent::ShowProduct(Pick::Last)),
        ("42码", add(Some("42"), None, false)),
        ("42", add(Some("42"), None, false)),
        ("size 42", add(Some("42"), None, false)),
        ("M 码", add(Some("M"), None, false)),
        ("I'll take size xl", add(Some("XL"), None, false)),
        ("要两双", add(None, Some(2), false)),
        ("2 pairs", add(None, Some(2), false)),
        ("42码两双", add(Some("42"), Some(2), false)),
        ("42.5", add(Some("42.5"), None, false)),
        ("加入购物车", add(None, None, true)),
        ("add to cart", add(None, None, true)),
        ("41码加入购物车", add(Some("41"), None, true)),
        ("我要这个", add(None, None, false)),
        ("好的", Intent::Affirm),
        ("yes please", Intent::Affirm),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_intent(text, demo()), expected, "{text}");
    }
}

#[test]
fn parses_stores_areas_and_store_information() {
    let cases = [
        ("Uniqlo 在哪", store("Uniqlo")),
        ("优衣库怎么走", store("优衣库")),
        ("where is Uniqlo?", store("Uniqlo")),
        ("how do I get to Starbucks", store("Starbucks")),
        ("美食广场在哪", area("美食广场")),
        ("where is the food court", area("food court")),
        ("运动区有哪些店", area("运动区")),
        ("星巴克几点开门", info("星巴克", InfoKind::Basic)),
        ("星巴克营业时间", info("星巴克", InfoKind::Basic)),
        ("when does Apple open", info("Apple", InfoKind::Basic)),
        ("优衣库有什么优惠", info("优衣库", InfoKind::Promotions)),
        ("优衣库有什么活动", info("优衣库", InfoKind::Promotions)),
        ("any deals at Nike", info("Nike", InfoKind::Promotions)),
        ("海底捞评价怎么样", info("海底捞", InfoKind::Reviews)),
        ("reviews of Haidilao", info("Haidilao", InfoKind::Reviews)),
        ("找一家咖啡店", stores("咖啡")),
        ("find a coffee shop", stores("coffee")),
        ("哪里有咖啡店", stores("咖啡")),
        ("any restaurants?", stores("restaurant")),
        ("有火锅店吗", stores("火锅")),
        ("附近有吃饭的地方吗", stores("餐厅")),
        ("海底捞好吃吗", info("海底捞", InfoKind::Reviews)),
        ("where can I find Nike", store("Nike")),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_intent(text, demo()), expected, "{text}");
    }
}

#[test]
fn parses_cart_and_order_requests() {
    let cases = [
        ("看看购物车", Intent::ViewCart),
        ("my cart", Intent::ViewCart),
        ("show cart", Intent::ViewCart),
        ("清空购物车", Intent::ClearCart),
        ("empty my cart", Intent::ClearCart),
        ("删掉第一件", Intent::RemoveFromCart(CartTarget::Pick(Pick::Nth(1)))),
        ("remove the first item", Intent::RemoveFromCart(CartTarget::Pick(Pick::Nth(1)))),
        ("把购物车里的跑鞋删掉", Intent::RemoveFromCart(CartTarget::Name("跑鞋".to_owned()))),
        ("下单", Intent::Checkout),
        ("结账", Intent::Checkout),
        ("place the order", Intent::Checkout),
        ("checkout", Intent::Checkout),
        ("我的订单", Intent::ListOrders),
        ("my orders", Intent::ListOrders),
        ("订单 o-123 到哪了", Intent::OrderStatus { order_id: Some("o-123".to_owned()) }),
        ("status of my order", Intent::OrderStatus { order_id: None }),
        ("where is my order", Intent::OrderStatus { order_id: None }),
        ("取消订单", Intent::CancelOrder { order_id: None }),
        ("cancel my last order", Intent::CancelOrder { order_id: None }),
        ("cancel o-5", Intent::CancelOrder { order_id: Some("o-5".to_owned()) }),
        ("cancel order ORD-2024-0007", Intent::CancelOrder { order_id: Some("ORD-2024-0007".to_owned()) }),
        ("我要支付订单", Intent::PayOrder { order_id: None }),
        ("pay for order o-7", Intent::PayOrder { order_id: Some("o-7".to_owned()) }),
        ("去付款", Intent::Checkout),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_intent(text, demo()), expected, "{text}");
    }
}

#[test]
fn small_talk_and_gibberish_have_no_intent() {
    for text in [
        "你好",
        "hello",
        "hi there!",
        "谢谢",
        "thanks",
        "今天天气怎么样",
        "tell me a joke",
        "asdfgh",
        "",
        "？？",
    ] {
        assert_eq!(parse_intent(text, demo()), Intent::None, "{text}");
    }
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
