//! Parking, points and coupons through the real binary: `mallbot run` on the fake Bot API,
//! the mall a `mallbot mall-server` child over HTTP. The mall records an order's payment on
//! the contract's payment endpoint (with the mall key, as the bot's payments do) and a car
//! entering on the staff endpoint, as the car park's barrier would. The test checks what
//! the shopper reads: `/car`, `/points`, `/coupons`, their buttons, and points redeemed.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;

use fake_bot_api::*;
use process::*;
use serde_json::Value;
use services::{
    AddCartItem, CreateOrder, HttpMall, HttpMallConfig, MallApi, Order, ProductQuery, RecordPayment,
};

const ALICE: Shopper = Shopper { id: 7101, name: "Alice" };
const CONFIRM: &str = "✅ 确认";
const MALL_KEY: &str = "mall-key-loyalty";
const STAFF_KEY: &str = "staff-key-loyalty";
/// The mall's clock, in both processes: a Wednesday morning.
const NOW: &str = "2026-11-25T10:00:00+08:00";

/// The chat as the test drives it: what was sent so far, and the mall.
struct Chat {
    api: FakeBotApi,
    mall: HttpMall,
    shopper: services::Shopper,
    seen: usize,
}

impl Chat {
    /// Alice sends `text`; the one answer she reads.
    async fn say(&mut self, text: &str) -> String {
        self.api.push_update(private_text(ALICE, text));
        self.next().await
    }

    /// The next message sent to Alice.
    async fn next(&mut self) -> String {
        self.seen += 1;
        let texts = self.api.wait_for_texts(ALICE.id, self.seen).await;
        texts[self.seen - 1].clone()
    }

    /// The last message sent to Alice, with its buttons.
    fn last_message(&self) -> Value {
        self.api.sent_to(ALICE.id).last().cloned().unwrap()
    }

    /// Alice presses `label` on `message`.
    fn press(&self, message: &Value, label: &str) {
        let data = button_data(message, label).unwrap_or_else(|| panic!("no {label:?} on {message}"));
        self.api.push_update(press(ALICE, message, &data));
    }

    /// Alice orders `quantity` of a stocked product worth at least ¥500 in all, and the mall
    /// records its payment.
    async fn paid_order(&self) -> Order {
        let query = ProductQuery { keyword: Some("iPhone".into()), ..ProductQuery::default() };
        let hit =
            self.mall.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
        let product = self.mall.get_product(&hit.id).await.unwrap();
        let sku = product.skus.iter().find(|s| s.stock > 0).map(|s| s.sku_id.clone());
        let quantity = u32::try_from(50_000 / product.brief.price_cents.max(1) + 1).unwrap();
        let item = AddCartItem { product_id: product.brief.id.clone(), sku_id: sku, quantity };
        let cart = self.mall.add_cart_item(&self.shopper, &item, None).await.unwrap();
        let order = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: None };
        let order = self.mall.create_order(&self.shopper, &order, None).await.unwrap();
        assert!(order.total_cents >= 50_000, "{order:?}");
        let payment = RecordPayment {
            provider: "telegram".into(),
            amount_cents: order.total_cents,
            currency: order.currency.clone(),
            charge_id: "ch-loyalty-1".into(),
        };
        self.mall.pay_order(&self.shopper, &order.order_id, &payment, None).await.unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shopper_sees_plates_points_earned_spent_and_taken_back_and_coupons_through_the_chat() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("loyalty-cli");
    let addr = free_addr();
    let server_env = [
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
        ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY.to_owned()),
        ("MALLBOT_CLOCK", NOW.to_owned()),
    ];
    let server = Process::spawn(
        "mall-server",
        &["mall-server", "--listen", &addr.to_string()],
        &server_env,
        dir.path(),
    );
    wait_for_listener(addr, &server).await;
    let url = format!("http://{addr}");
    let mall = HttpMall::new(HttpMallConfig::new(url.clone(), MALL_KEY.to_owned()))
        .unwrap()
        .with_staff_key(STAFF_KEY)
        .unwrap();
    let mut env = bot_env(&api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__BACKEND", "http".to_owned()),
        ("MALLBOT_MALL__BASE_URL", url),
        ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
        ("MALLBOT_CLOCK", NOW.to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    let shopper = services::Shopper::new("telegram", ALICE.id);
    let mut chat = Chat { api, mall, shopper, seen: 0 };

    // /car 沪B·54321: a ✅ first, then saved; /car lists it, not in the car park, with ✖.
    let asked = chat.say("/car 沪B·54321").await;
    assert!(asked.contains("记住车牌 沪B54321"), "{asked}");
    chat.press(&chat.last_message(), CONFIRM);
    let saved = chat.next().await;
    assert!(saved.contains("已保存") && saved.contains("沪B54321"), "{saved}");
    let cars = chat.say("/car").await;
    assert!(cars.contains("沪B54321：不在停车场"), "{cars}");
    assert!(button_data(&chat.last_message(), "✖ 沪B54321").is_some(), "{}", chat.last_message());

    // Six hours in the car park: /car tells the fee now.
    chat.mall.car_entered("沪B54321", Some("2026-11-25T04:00:00+08:00".into())).await.unwrap();
    let cars = chat.say("/car").await;
    assert!(cars.contains("沪B54321：现在应付 ¥60"), "{cars}");

    // An order paid: /points shows what it earned.
    let order = chat.paid_order().await;
    let earned = order.total_cents / 100;
    let points = chat.say("/points").await;
    assert!(points.contains(&format!("您现在有 {earned} 积分")), "{points}");
    assert!(points.contains(&format!("+{earned} 订单 {} 付款", order.order_id)), "{points}");

    // Points for the coupon that costs them: ✅ pressed twice, spent once.
    let asked = chat.say("用积分换券").await;
    assert!(asked.contains("用 300 积分兑换优惠券") && asked.contains("积分兑换满200减30"), "{asked}");
    let confirmation = chat.last_message();
    chat.press(&confirmation, CONFIRM);
    let done = chat.next().await;
    assert!(
        done.contains("已用 300 积分兑换") && done.contains(&format!("还剩 {} 积分", earned - 300)),
        "{done}"
    );
    let answers = chat.api.calls("answerCallbackQuery").len();
    chat.press(&confirmation, CONFIRM);
    chat.api
        .wait_until("the second press answered", |api| api.calls("answerCallbackQuery").len() > answers)
        .await;
    let alert = chat.api.calls("answerCallbackQuery").last().cloned().unwrap();
    assert!(alert["text"].as_str().unwrap_or_default().contains("已经"), "{alert}");
    let points = chat.say("/points").await;
    assert!(points.contains(&format!("您现在有 {} 积分", earned - 300)), "{points}");
    assert_eq!(points.matches("-300 兑换优惠券").count(), 1, "spent once: {points}");

    // /coupons: the one held, then a claim button for another; the claim is confirmed.
    let coupons = chat.say("/coupons").await;
    assert!(coupons.contains("您的优惠券") && coupons.contains("积分兑换满200减30"), "{coupons}");
    assert!(coupons.contains("（可用）"), "{coupons}");
    chat.press(&chat.last_message(), "🎟 领取：全场满300减50");
    let asked = chat.next().await;
    assert!(asked.contains("领取优惠券") && asked.contains("全场满300减50"), "{asked}");
    chat.press(&chat.last_message(), CONFIRM);
    let claimed = chat.next().await;
    assert!(claimed.contains("已领取「全场满300减50」"), "{claimed}");
    let coupons = chat.say("/coupons").await;
    let (held, open) = coupons.split_once("还可以领").unwrap();
    assert!(held.contains("全场满300减50") && !open.contains("全场满300减50"), "{coupons}");

    // Points for parking: two hours for the car inside, and the fee is gone.
    let asked = chat.say("用积分换停车").await;
    assert!(asked.contains("用 200 积分换 沪B54321 的 2 小时免费停车"), "{asked}");
    chat.press(&chat.last_message(), CONFIRM);
    let done = chat.next().await;
    assert!(done.contains("已用 200 积分为 沪B54321 换了 2 小时免费停车"), "{done}");
    assert!(done.contains("现在不用付费"), "{done}");
    let left = earned - 500;

    // The order cancelled and refunded: what is left is taken back, never below 0.
    chat.mall.cancel_order(&chat.shopper, &order.order_id, None).await.unwrap();
    let points = chat.say("/points").await;
    assert!(points.contains("您现在有 0 积分"), "{points}");
    assert!(
        points.contains(&format!("-{left} 订单 {} 退款扣回；其中 500 积分已经用掉", order.order_id)),
        "{points}"
    );

    // ✖ removes the plate.
    let _ = chat.say("/car").await;
    chat.press(&chat.last_message(), "✖ 沪B54321");
    let removed = chat.next().await;
    assert!(removed.contains("已删除车牌 沪B54321") && removed.contains("您还没有保存车牌"), "{removed}");
    drop(bot);
    drop(server);
}
