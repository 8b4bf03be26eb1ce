//! A coupon on an order, end to end in one process: the real dispatcher
//! long-polls the fake Bot API, the embedded demo mall (its coupons) and the
//! offline planner behind it. The shopper claims a coupon, orders with it
//! in their own words, reads the discount before ✅, on the invoice and on
//! the receipt, and pays the discounted total; a used or expired coupon is
//! refused in words and no order is placed.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;

use std::sync::Arc;
use std::time::Duration;

use fake_bot_api::*;
use mallbot::App;
use mallbot::PayloadKey;
use mallbot::config::Config;
use mallbot::state::MemoryStore;
use services::{AddCartItem, MallApi, OrderStatus, PageRequest, ProductQuery};
use teloxide::dispatching::ShutdownToken;

const ALICE: Shopper = Shopper { id: 3101, name: "Alice" };
const BOB: Shopper = Shopper { id: 3102, name: "Bob" };
const CONFIRM: &str = "✅ 确认";
/// The token of the fake API's bot, from which the payload key is derived.
const BOT_TOKEN: &str = "123:TEST";

struct Running {
    api: FakeBotApi,
    app: App,
    mall: Arc<services::EmbeddedMall>,
    shutdown: ShutdownToken,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    async fn start() -> Running {
        let mut config = Config::default();
        config.state.url = "memory://".into();
        config.bot.rate_limit_per_minute = 0;
        config.payments.provider_token = "284685063:TEST:provider".into();
        config.events.poll_secs = 0;
        let mall = Arc::new(services::EmbeddedMall::in_memory().with_policy(config.order_policy()));
        let app = App::with_parts(config, mall.clone(), Arc::new(MemoryStore::new())).expect("app");
        let api = FakeBotApi::start().await;
        let mut dispatcher = mallbot::telegram::dispatcher(api.bot(), app.clone()).build();
        let shutdown = dispatcher.shutdown_token();
        let task = tokio::spawn(async move { dispatcher.dispatch().await });
        Running { api, app, mall, shutdown, task }
    }

    async fn stop(self) {
        if let Ok(done) = self.shutdown.shutdown() {
            done.await;
        }
        self.task.await.expect("the dispatcher ended cleanly");
    }

    /// `user` writes `text`; the one answer they read.
    async fn say(&self, user: Shopper, text: &str) -> String {
        let before = self.api.texts_to(user.id).len();
        self.api.push_update(private_text(user, text));
        self.api.wait_for_texts(user.id, before + 1).await.remove(before)
    }

    /// `user` presses ✅ on the last message; the one answer they read.
    async fn confirm(&self, user: Shopper) -> String {
        let before = self.api.texts_to(user.id).len();
        let message = self.api.sent_to(user.id).last().cloned().expect("a message to the chat");
        let data = button_data(&message, CONFIRM)
            .unwrap_or_else(|| panic!("no button {CONFIRM:?} on {:?}", buttons(&message)));
        self.api.push_update(press(user, &message, &data));
        self.api.wait_for_texts(user.id, before + 1).await.remove(before)
    }

    fn shopper(user: Shopper) -> services::Shopper {
        services::Shopper::new("telegram", user.id)
    }

    /// One pair of Nike running shoes (more than ¥300) put in `user`'s cart in the mall;
    /// the cart's total.
    async fn cart_with_a_shoe(&self, user: Shopper) -> i64 {
        let mall = self.app.mall.as_ref();
        let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..ProductQuery::default() };
        let hits = mall.search_products(&query).await.unwrap().items;
        let hit = hits.into_iter().find(|p| p.in_stock && p.price_cents >= 30_000).unwrap();
        let product = mall.get_product(&hit.id).await.unwrap();
        let sku = product.skus.iter().find(|s| s.stock > 0).map(|s| s.sku_id.clone());
        let item = AddCartItem { product_id: hit.id.clone(), sku_id: sku, quantity: 1 };
        mall.add_cart_item(&Self::shopper(user), &item, None).await.unwrap().total_cents
    }

    async fn orders(&self, user: Shopper) -> Vec<services::Order> {
        self.app.mall.list_orders(&Self::shopper(user), PageRequest::default()).await.unwrap().items
    }
}

/// The answer to the last pre-checkout query, once it came.
async fn checkout_answer(api: &FakeBotApi, count: usize) -> (bool, String) {
    api.wait_until("the pre-checkout answer", |api| checkout_answers(api).len() >= count).await;
    let (_, ok, message) = checkout_answers(api).pop().unwrap();
    (ok, message)
}

#[tokio::test]
async fn a_claimed_coupon_ordered_with_shows_its_discount_before_confirming_on_the_invoice_and_on_the_receipt()
 {
    let bot = Running::start().await;
    let subtotal = bot.cart_with_a_shoe(ALICE).await;
    let (sub, total) = (handlers::format::money(subtotal), handlers::format::money(subtotal - 5000));

    // The coupon, claimed after ✅.
    let asked = bot.say(ALICE, "领取满300减50的券").await;
    assert!(asked.contains("全场满300减50"), "the claim names the coupon before ✅: {asked}");
    assert!(bot.app.mall.my_coupons(&Running::shopper(ALICE)).await.unwrap().items.is_empty(), "not yet");
    let claimed = bot.confirm(ALICE).await;
    assert!(claimed.contains("全场满300减50"), "{claimed}");
    let held = bot.app.mall.my_coupons(&Running::shopper(ALICE)).await.unwrap().items;
    assert_eq!(
        held.iter().map(|m| (m.coupon.coupon_id.as_str(), m.status.as_str())).collect::<Vec<_>>(),
        [("cp-mall-50", "AVAILABLE")]
    );

    // Ordered with it on her say-so: subtotal, discount and total before ✅.
    let preview = bot.say(ALICE, "用券下单").await;
    for part in [format!("小计 {sub}"), "优惠券「全场满300减50」-¥50".to_owned(), format!("实付 {total}")]
    {
        assert!(preview.contains(&part), "the confirmation shows {part}: {preview}");
    }
    assert!(bot.orders(ALICE).await.is_empty(), "nothing ordered before ✅");
    let placed = bot.confirm(ALICE).await;
    let orders = bot.orders(ALICE).await;
    assert_eq!(orders.len(), 1, "one order");
    let order = &orders[0];
    assert_eq!(
        (order.total_cents, order.subtotal_cents, order.discount_cents, order.coupon_id.as_deref()),
        (subtotal - 5000, Some(subtotal), Some(5000), Some("cp-mall-50"))
    );
    for part in [order.order_id.as_str(), &format!("实付 {total}"), "-¥50", "请在下方的账单里支付"]
    {
        assert!(placed.contains(part), "the placed order says {part}: {placed}");
    }

    // The invoice charges the discounted total and says how it came about.
    bot.api.wait_until("the invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = bot.api.calls("sendInvoice").remove(0);
    let prices = invoice["prices"].as_array().unwrap();
    let charged: i64 = prices.iter().map(|p| p["amount"].as_i64().unwrap()).sum();
    assert_eq!(charged, subtotal - 5000, "the invoice's total is the discounted total: {invoice}");
    assert!(prices.iter().all(|p| p["amount"].as_i64().unwrap() > 0), "no negative price: {invoice}");
    let description = invoice["description"].as_str().unwrap();
    assert!(
        description.contains(&format!("商品小计 {sub} − 优惠券 ¥50 = 实付 {total}")),
        "the invoice shows the discount: {description}"
    );
    let payload = invoice["payload"].as_str().unwrap().to_owned();
    let (order_id, payer) = PayloadKey::derive(BOT_TOKEN).open(&payload).unwrap();
    assert_eq!((order_id.as_str(), payer), (order.order_id.as_str(), ALICE.id));

    // Paid at that amount: the pre-checkout takes it, the mall records it, the receipt names the discount.
    bot.api.push_update(pre_checkout(ALICE, &payload, charged, "CNY"));
    assert_eq!(checkout_answer(&bot.api, 1).await, (true, String::new()));
    let before = bot.api.texts_to(ALICE.id).len();
    bot.api.push_update(successful_payment(ALICE, &payload, charged, "CNY", "tg-coupon-1"));
    let receipt = bot.api.wait_for_texts(ALICE.id, before + 1).await.remove(before);
    for part in ["支付成功", &order.order_id, &format!("已付 {total}"), "优惠券 ¥50"] {
        assert!(receipt.contains(part), "the receipt says {part}: {receipt}");
    }
    let paid = bot.orders(ALICE).await.remove(0);
    assert_eq!(paid.status, OrderStatus::Paid);
    assert_eq!(paid.payment.map(|p| p.amount_cents), Some(subtotal - 5000));
    let held = bot.app.mall.my_coupons(&Running::shopper(ALICE)).await.unwrap().items;
    assert_eq!((held[0].status.as_str(), held[0].order_id.as_deref()), ("USED", Some(order_id.as_str())));

    // The coupon is used: ordering with it again is refused in words, no order placed.
    bot.cart_with_a_shoe(ALICE).await;
    let refused = bot.say(ALICE, "用券下单").await;
    assert!(
        refused.contains("「全场满300减50」已经用过了") && refused.contains("订单没有创建"),
        "a used coupon is said so: {refused}"
    );
    assert_eq!(bot.orders(ALICE).await.len(), 1, "no second order");
    bot.stop().await;
}

#[tokio::test]
async fn an_expired_coupon_is_refused_in_words_and_nothing_is_ordered() {
    let bot = Running::start().await;
    bot.mall.claim_coupon(&Running::shopper(BOB), "cp-mall-50", None).await.unwrap();
    let cart_total = bot.cart_with_a_shoe(BOB).await;
    // Past the coupon's last day (2030-12-31).
    bot.mall.advance_clock(Duration::from_secs(6 * 366 * 86_400));
    let refused = bot.say(BOB, "用券下单").await;
    assert!(
        refused.contains("「全场满300减50」已过期") && refused.contains("订单没有创建"),
        "an expired coupon is said so: {refused}"
    );
    assert!(bot.orders(BOB).await.is_empty(), "no order");
    let cart = bot.app.mall.get_cart(&Running::shopper(BOB)).await.unwrap();
    assert_eq!(cart.total_cents, cart_total, "the cart is kept");
    assert!(bot.api.calls("sendInvoice").is_empty(), "no invoice");
    bot.stop().await;
}
