//! Paying in Telegram, end to end in one process: the real dispatcher long-polls
//! the fake Bot API, the embedded mall (with its order policy) and the
//! offline planner behind it. The tests read what the shopper saw (messages,
//! the invoice, the answers to pre-checkout queries) from the fake's records
//! and what the mall holds from the mall.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/redis.rs"]
mod redis_store;

use std::sync::Arc;
use std::time::Duration;

use fake_bot_api::*;
use mallbot::App;
use mallbot::PayloadKey;
use mallbot::config::Config;
use mallbot::state::{MemoryStore, StateStore};
use redis_store::{rand_suffix, redis_url};
use serde_json::Value;
use services::{AddCartItem, CreateOrder, MallApi, OrderStatus, PageRequest, ProductQuery};
use teloxide::dispatching::ShutdownToken;

const ALICE: Shopper = Shopper { id: 3001, name: "Alice" };
const BOB: Shopper = Shopper { id: 3002, name: "Bob" };
const ADMIN: Shopper = Shopper { id: 9001, name: "Operator" };
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
    async fn stop(self) {
        if let Ok(done) = self.shutdown.shutdown() {
            done.await;
        }
        self.task.await.expect("the dispatcher ended cleanly");
    }

    fn last_sent(&self, chat: i64) -> Value {
        self.api.sent_to(chat).last().cloned().expect("a message to the chat")
    }

    fn press(&self, chat: i64, user: Shopper, label: &str) {
        let message = self.last_sent(chat);
        let data = button_data(&message, label)
            .unwrap_or_else(|| panic!("no button {label:?} on {:?}", buttons(&message)));
        self.api.push_update(press(user, &message, &data));
    }

    async fn order(&self, shopper: Shopper, order_id: &str) -> services::Order {
        let who = services::Shopper::new("telegram", shopper.id);
        self.app.mall.get_order(&who, order_id).await.expect("the order")
    }
}

fn pay_config() -> Config {
    let mut config = Config::default();
    config.state.url = "memory://".into();
    config.telegram.admins = vec![ADMIN.id];
    config.bot.rate_limit_per_minute = 0;
    config.payments.provider_token = "284685063:TEST:provider".into();
    config.events.poll_secs = 0;
    config
}

async fn start(config: Config) -> Running {
    start_on(config, Arc::new(MemoryStore::new())).await
}

async fn start_on(config: Config, state: Arc<dyn StateStore>) -> Running {
    let policy = config.order_policy();
    start_with(config, state, policy).await
}

async fn start_with(config: Config, state: Arc<dyn StateStore>, policy: services::OrderPolicy) -> Running {
    let mall = Arc::new(services::EmbeddedMall::in_memory().with_policy(policy));
    let app = App::with_parts(config, mall.clone(), state).expect("app");
    let api = FakeBotApi::start().await;
    let mut dispatcher = mallbot::telegram::dispatcher(api.bot(), app.clone()).build();
    let shutdown = dispatcher.shutdown_token();
    let task = tokio::spawn(async move { dispatcher.dispatch().await });
    Running { api, app, mall, shutdown, task }
}

/// Alice orders Nike running shoes through the chat (the offline planner):
/// search, size, add to cart, order, both confirmations pressed. Returns the
/// texts she read.
async fn order_in_chat(bot: &Running) -> Vec<String> {
    let chat = ALICE.id;
    bot.api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋"));
    bot.api.wait_for_texts(chat, 1).await;
    bot.api.push_update(private_text(ALICE, "42码"));
    bot.api.wait_for_texts(chat, 2).await;
    bot.press(chat, ALICE, CONFIRM);
    bot.api.wait_for_texts(chat, 3).await;
    bot.api.push_update(private_text(ALICE, "下单"));
    bot.api.wait_for_texts(chat, 4).await;
    bot.press(chat, ALICE, CONFIRM);
    bot.api.wait_for_texts(chat, 5).await
}

/// The event feed of `app`, read by hand in these tests (`events.poll_secs = 0`).
fn event_feed(app: &App) -> mallbot::EventFeed {
    mallbot::telegram::event_feed(app, Duration::from_secs(5))
}

/// What tells the feed's events to shoppers through `api`.
fn teller(api: &FakeBotApi, app: &App) -> mallbot::telegram::TelegramTeller {
    let outbox = Arc::new(mallbot::telegram::Outbox::new(app.state.clone(), Duration::from_secs(600)));
    mallbot::telegram::TelegramTeller { bot: api.bot(), app: app.clone(), outbox }
}

/// An unpaid order of `shopper` for one pair of Nike running shoes, placed in the mall directly.
async fn order_directly(mall: &dyn MallApi, shopper: Shopper) -> services::Order {
    let who = services::Shopper::new("telegram", shopper.id);
    let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..ProductQuery::default() };
    let hit = mall.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
    let product = mall.get_product(&hit.id).await.unwrap();
    let sku = product.skus.iter().find(|s| s.stock > 0).map(|s| s.sku_id.clone());
    let item = AddCartItem { product_id: hit.id.clone(), sku_id: sku, quantity: 1 };
    let cart = mall.add_cart_item(&who, &item, None).await.unwrap();
    let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
    mall.create_order(&who, &request, None).await.unwrap()
}

/// The answer to the last pre-checkout query, once it came.
async fn checkout_answer(api: &FakeBotApi, count: usize) -> (bool, String) {
    api.wait_until("the pre-checkout answer", |api| checkout_answers(api).len() >= count).await;
    let (_, ok, message) = checkout_answers(api).pop().unwrap();
    (ok, message)
}

#[tokio::test]
async fn an_order_ends_in_an_invoice_of_the_malls_total_and_a_payment_delivered_twice_is_recorded_once() {
    let bot = start(pay_config()).await;
    let texts = order_in_chat(&bot).await;
    assert!(texts[4].contains("请在下方的账单里支付"), "the answer says how to pay: {}", texts[4]);

    bot.api.wait_until("the invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = bot.api.calls("sendInvoice").remove(0);
    let payload = invoice["payload"].as_str().unwrap().to_owned();
    let (order_id, payer) = PayloadKey::derive(BOT_TOKEN).open(&payload).expect("a payload the bot signed");
    assert_eq!(payer, ALICE.id);
    let order = bot.order(ALICE, &order_id).await;
    assert!(texts[4].contains(&order_id), "{}", texts[4]);
    assert_eq!(order.status, OrderStatus::PendingPayment);
    let prices: i64 =
        invoice["prices"].as_array().unwrap().iter().map(|p| p["amount"].as_i64().unwrap()).sum();
    assert_eq!(prices, order.total_cents, "the invoice's total is the mall's: {invoice}");
    assert_eq!(invoice["currency"], "CNY");
    assert_eq!(invoice["chat_id"].as_i64(), Some(ALICE.id));
    assert_eq!(invoice["provider_token"], "284685063:TEST:provider");
    let store = bot.app.mall.get_store(&order.pickup_store_id).await.unwrap();
    let title = invoice["title"].as_str().unwrap();
    assert!(title.contains(&store.name), "the title names the store {}: {title}", store.name);
    assert_eq!(invoice["prices"][0]["label"].as_str().map(|l| l.contains("42")), Some(true), "{invoice}");

    bot.api.push_update(pre_checkout(ALICE, &payload, order.total_cents, "CNY"));
    assert_eq!(checkout_answer(&bot.api, 1).await, (true, String::new()));

    let before = bot.api.texts_to(ALICE.id).len();
    bot.api.push_update(successful_payment(ALICE, &payload, order.total_cents, "CNY", "tg-charge-1"));
    bot.api.push_update(successful_payment(ALICE, &payload, order.total_cents, "CNY", "tg-charge-1"));
    let texts = bot.api.wait_for_texts(ALICE.id, before + 1).await;
    let paid = &texts[before];
    for part in ["支付成功", &order_id, "取货", &store.name, &store.unit] {
        assert!(paid.contains(part), "the receipt says {part}: {paid}");
    }
    let receipt = bot.last_sent(ALICE.id);
    assert!(button_data(&receipt, "🧭 怎么走").is_some(), "a way to the store: {receipt}");
    let order = bot.order(ALICE, &order_id).await;
    assert_eq!(order.status, OrderStatus::Paid);
    let payment = order.payment.expect("the payment is on the order");
    assert_eq!((payment.charge_id.as_str(), payment.amount_cents), ("tg-charge-1", order.total_cents));
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(bot.api.texts_to(ALICE.id).len(), before + 1, "the second delivery tells nothing more");

    // The way to the store, asked with the button.
    bot.press(ALICE.id, ALICE, "🧭 怎么走");
    let texts = bot.api.wait_for_texts(ALICE.id, before + 2).await;
    assert!(texts[before + 1].contains(&store.name), "directions to the pickup store: {}", texts[before + 1]);
    bot.stop().await;
}

#[tokio::test]
async fn pre_checkout_refuses_a_forged_foreign_cancelled_expired_or_mismatched_order_in_the_shoppers_words() {
    let bot = start(pay_config()).await;
    let key = PayloadKey::derive(BOT_TOKEN);
    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    let payload = key.sign(&order.order_id, ALICE.id);
    let total = order.total_cents;
    let mut n = 0;
    let mut ask = |user: Shopper, payload: String, amount: i64, currency: &'static str| {
        n += 1;
        bot.api.push_update(pre_checkout(user, &payload, amount, currency));
        n
    };

    let forged = format!("{}|{}|{}", order.order_id, ALICE.id, "0".repeat(32));
    let count = ask(ALICE, forged, total, "CNY");
    let (ok, message) = checkout_answer(&bot.api, count).await;
    assert!(!ok && message.contains("无法核对"), "forged: {message}");

    let count = ask(BOB, payload.clone(), total, "CNY");
    assert_eq!(checkout_answer(&bot.api, count).await, (false, "这不是您的订单，无法支付".into()));
    let count = ask(BOB, key.sign(&order.order_id, BOB.id), total, "CNY");
    assert_eq!(
        checkout_answer(&bot.api, count).await,
        (false, "这不是您的订单，无法支付".into()),
        "Bob's own payload for Alice's order"
    );

    let count = ask(ALICE, payload.clone(), total - 100, "CNY");
    let (ok, message) = checkout_answer(&bot.api, count).await;
    assert!(!ok && message.contains("金额有变化"), "amount: {message}");
    let count = ask(ALICE, payload.clone(), total, "USD");
    assert!(!checkout_answer(&bot.api, count).await.0, "currency");

    let count = ask(ALICE, payload.clone(), total, "CNY");
    assert_eq!(checkout_answer(&bot.api, count).await, (true, String::new()), "the genuine one is taken");

    let other = order_directly(bot.app.mall.as_ref(), ALICE).await;
    let who = services::Shopper::new("telegram", ALICE.id);
    bot.app.mall.cancel_order(&who, &other.order_id, None).await.unwrap();
    let count = ask(ALICE, key.sign(&other.order_id, ALICE.id), other.total_cents, "CNY");
    assert_eq!(checkout_answer(&bot.api, count).await, (false, "这笔订单已取消".into()));

    // Past its 30 minutes.
    bot.mall.advance_clock(Duration::from_secs(31 * 60));
    let count = ask(ALICE, payload.clone(), total, "CNY");
    assert_eq!(checkout_answer(&bot.api, count).await, (false, "订单已过期，请重新下单".into()));
    bot.stop().await;
}

#[tokio::test]
async fn pre_checkout_refuses_an_order_with_less_than_two_minutes_left() {
    let policy = services::OrderPolicy { ttl: Duration::from_secs(90), max_open: 3 };
    let bot = start_with(pay_config(), Arc::new(MemoryStore::new()), policy).await;
    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    assert_eq!(order.status, OrderStatus::PendingPayment);
    let payload = PayloadKey::derive(BOT_TOKEN).sign(&order.order_id, ALICE.id);
    bot.api.push_update(pre_checkout(ALICE, &payload, order.total_cents, "CNY"));
    assert_eq!(checkout_answer(&bot.api, 1).await, (false, "订单已过期，请重新下单".into()));
    bot.stop().await;
}

#[tokio::test]
async fn a_mall_that_is_down_is_answered_unavailable_at_pre_checkout_and_never_left_unanswered() {
    let mut config = pay_config();
    config.mall.backend = mallbot::config::MallBackend::Http;
    // Nothing listens there.
    config.mall.base_url = "http://127.0.0.1:9".into();
    config.mall.max_retries = 0;
    let mall = mallbot::open_mall(&config).unwrap();
    let app = App::with_parts(config, mall, Arc::new(MemoryStore::new())).unwrap();
    let api = FakeBotApi::start().await;
    let mut dispatcher = mallbot::telegram::dispatcher(api.bot(), app).build();
    let shutdown = dispatcher.shutdown_token();
    let task = tokio::spawn(async move { dispatcher.dispatch().await });

    let payload = PayloadKey::derive(BOT_TOKEN).sign("o-123", ALICE.id);
    let asked = std::time::Instant::now();
    api.push_update(pre_checkout(ALICE, &payload, 69900, "CNY"));
    assert_eq!(checkout_answer(&api, 1).await, (false, "商场系统暂时不可用，请稍后再试".into()));
    assert!(asked.elapsed() < Duration::from_secs(5), "answered in {:?}", asked.elapsed());
    if let Ok(done) = shutdown.shutdown() {
        done.await;
    }
    task.await.unwrap();
}

#[tokio::test]
async fn without_a_provider_token_no_invoice_is_sent_and_the_answer_says_pay_at_the_store() {
    let mut config = pay_config();
    config.payments.provider_token = mallbot::config::Secret::default();
    let bot = start(config).await;
    let texts = order_in_chat(&bot).await;
    assert!(texts[4].contains("请到取货门店付款取货"), "{}", texts[4]);
    bot.api.push_update(private_text(ALICE, "/orders"));
    bot.api.wait_for_texts(ALICE.id, 6).await;
    let listed = bot.last_sent(ALICE.id);
    assert!(buttons(&listed).iter().all(|(l, _)| !l.contains("支付")), "no pay button: {listed}");
    assert!(bot.api.calls("sendInvoice").is_empty());
    bot.stop().await;
}

#[tokio::test]
async fn the_pay_button_of_an_unpaid_order_sends_a_new_invoice_for_the_same_order() {
    let bot = start(pay_config()).await;
    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    bot.api.push_update(private_text(ALICE, "/orders"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    bot.press(ALICE.id, ALICE, "💳 支付");
    bot.api.wait_until("the invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = bot.api.calls("sendInvoice").remove(0);
    let (order_id, _) = PayloadKey::derive(BOT_TOKEN).open(invoice["payload"].as_str().unwrap()).unwrap();
    assert_eq!(order_id, order.order_id);
    let who = services::Shopper::new("telegram", ALICE.id);
    let orders = bot.app.mall.list_orders(&who, PageRequest::default()).await.unwrap();
    assert_eq!(orders.total, 1, "never a second order");
    bot.stop().await;
}

#[tokio::test]
async fn basic_mode_shows_the_unpaid_order_asked_to_pay_with_its_pay_button() {
    let bot = start(pay_config()).await;
    bot.api.push_update(private_text(ALICE, "我要支付订单"));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("还没有订单"), "nothing to pay yet: {}", texts[0]);

    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    bot.api.push_update(private_text(ALICE, "我要支付订单"));
    let texts = bot.api.wait_for_texts(ALICE.id, 2).await;
    assert!(texts[1].contains(&order.order_id) && texts[1].contains("待支付"), "{}", texts[1]);
    bot.press(ALICE.id, ALICE, "💳 支付");
    bot.api.wait_until("the invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = bot.api.calls("sendInvoice").remove(0);
    let (order_id, payer) = PayloadKey::derive(BOT_TOKEN).open(invoice["payload"].as_str().unwrap()).unwrap();
    assert_eq!((order_id.as_str(), payer), (order.order_id.as_str(), ALICE.id));

    // Paid: nothing is left to pay, and the answer says so.
    let payload = invoice["payload"].as_str().unwrap().to_owned();
    bot.api.push_update(successful_payment(ALICE, &payload, order.total_cents, "CNY", "tg-basic-1"));
    bot.api.wait_for_texts(ALICE.id, 3).await;
    bot.api.push_update(private_text(ALICE, "pay my order"));
    let texts = bot.api.wait_for_texts(ALICE.id, 4).await;
    assert!(texts[3].contains("no order waiting for payment"), "{}", texts[3]);
    bot.stop().await;
}

#[tokio::test]
async fn a_paid_order_cancelled_in_chat_is_refunded_as_the_mall_answers_and_the_refund_told_once() {
    let bot = start(pay_config()).await;
    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    let payload = PayloadKey::derive(BOT_TOKEN).sign(&order.order_id, ALICE.id);
    bot.api.push_update(successful_payment(ALICE, &payload, order.total_cents, "CNY", "tg-cancel-1"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    let paid = handlers::format::money(order.total_cents);

    // Critical: the whole order and what happens to the money, before anything is done.
    bot.api.push_update(private_text(ALICE, "取消我的订单"));
    let texts = bot.api.wait_for_texts(ALICE.id, 2).await;
    for part in [order.order_id.as_str(), "已付款", paid.as_str(), "退款"] {
        assert!(texts[1].contains(part), "the confirmation says {part}: {}", texts[1]);
    }
    assert_eq!(bot.order(ALICE, &order.order_id).await.status, OrderStatus::Paid, "nothing before the press");
    // Bob cannot press Alice's button.
    bot.press(ALICE.id, BOB, CONFIRM);
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(bot.order(ALICE, &order.order_id).await.status, OrderStatus::Paid, "only Alice confirms");

    bot.press(ALICE.id, ALICE, CONFIRM);
    let texts = bot.api.wait_for_texts(ALICE.id, 3).await;
    let answer = texts.last().unwrap();
    for part in ["已取消", "商场正在办理退款", paid.as_str()] {
        assert!(answer.contains(part), "the answer says {part}: {answer}");
    }
    let cancelled = bot.order(ALICE, &order.order_id).await;
    assert_eq!(cancelled.status, OrderStatus::Cancelled);
    let refund = cancelled.refund.expect("the mall owes the money back");
    assert_eq!((refund.status, refund.amount_cents), (services::RefundStatus::Pending, order.total_cents));

    // The mall pays it back: Alice hears it once (her own cancel is not told again).
    let told = texts.len();
    assert_eq!(bot.mall.complete_refunds().unwrap(), 1);
    let (feed, teller) = (event_feed(&bot.app), teller(&bot.api, &bot.app));
    assert_eq!(feed.poll(&teller).await.unwrap().told, 1, "the refund, and not the cancel Alice made");
    let texts = bot.api.texts_to(ALICE.id);
    assert_eq!(texts.len(), told + 1);
    assert!(texts[told].contains("退款已完成") && texts[told].contains(&order.order_id), "{}", texts[told]);
    assert_eq!(feed.poll(&teller).await.unwrap().told, 0, "told once");
    bot.stop().await;
}

#[tokio::test]
async fn a_payment_for_an_order_that_expired_meanwhile_is_kept_to_refund_and_shown_to_admins() {
    let bot = start(pay_config()).await;
    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    let payload = PayloadKey::derive(BOT_TOKEN).sign(&order.order_id, ALICE.id);
    // Past its 30 minutes and the mall's 15 minutes of grace.
    bot.mall.advance_clock(Duration::from_secs(50 * 60));
    bot.api.push_update(successful_payment(ALICE, &payload, order.total_cents, "CNY", "tg-late-1"));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("已收到付款，订单已失效，将全额退款"), "{}", texts[0]);

    bot.api.push_update(private_text(ADMIN, "/health"));
    let health = bot.api.wait_for_texts(ADMIN.id, 1).await;
    assert!(health[0].contains("to refund") && health[0].contains(&order.order_id), "{}", health[0]);
    bot.api.push_update(private_text(ADMIN, "/stats"));
    let stats = bot.api.wait_for_texts(ADMIN.id, 2).await;
    assert!(stats[1].contains("待退款") && stats[1].contains(&order.order_id), "{}", stats[1]);
    bot.stop().await;
}

#[tokio::test]
async fn staff_mark_an_order_ready_and_picked_up_and_the_shopper_hears_each_once() {
    let bot = start(pay_config()).await;
    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    let payload = PayloadKey::derive(BOT_TOKEN).sign(&order.order_id, ALICE.id);
    bot.api.push_update(successful_payment(ALICE, &payload, order.total_cents, "CNY", "tg-ready-1"));
    bot.api.wait_for_texts(ALICE.id, 1).await;

    bot.api.push_update(private_text(ADMIN, &format!("/ready {}", order.order_id)));
    let said = bot.api.wait_for_texts(ADMIN.id, 1).await;
    assert!(said[0].contains(&order.order_id), "{}", said[0]);
    bot.api.push_update(private_text(BOB, &format!("/ready {}", order.order_id)));
    bot.api.wait_for_texts(BOB.id, 1).await;
    assert_eq!(bot.order(ALICE, &order.order_id).await.status, OrderStatus::Ready);

    let (feed, teller) = (event_feed(&bot.app), teller(&bot.api, &bot.app));
    let report = feed.poll(&teller).await.unwrap();
    assert_eq!(report.told, 1, "ready (the payment made here was told with the receipt): {report:?}");
    let texts = bot.api.texts_to(ALICE.id);
    let store = bot.app.mall.get_store(&order.pickup_store_id).await.unwrap();
    assert!(texts[1].contains("已备好") && texts[1].contains(&store.name), "{}", texts[1]);
    assert_eq!(feed.poll(&teller).await.unwrap().told, 0, "told once");

    bot.api.push_update(private_text(ADMIN, &format!("/pickedup {}", order.order_id)));
    bot.api.wait_for_texts(ADMIN.id, 2).await;
    assert_eq!(feed.poll(&teller).await.unwrap().told, 1);
    assert!(bot.api.texts_to(ALICE.id)[2].contains("已取货"));
    bot.stop().await;
}

#[tokio::test]
async fn an_order_that_expires_unpaid_is_told_once_even_after_a_restart() {
    let dir = std::env::temp_dir().join(format!("mallbot-pay-{}", rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("state.db").display());
    let state = mallbot::state::open(&url).await.unwrap();
    let bot = start_on(pay_config(), state.clone()).await;
    let order = order_directly(bot.app.mall.as_ref(), ALICE).await;
    bot.mall.advance_clock(Duration::from_secs(31 * 60));
    assert_eq!(bot.mall.sweep_expired().unwrap(), 1, "the order expired and its stock returned");

    let told = |app: &App| teller(&bot.api, app);
    let feed = event_feed(&bot.app);
    assert_eq!(feed.poll(&told(&bot.app)).await.unwrap().told, 1);
    let texts = bot.api.texts_to(ALICE.id);
    assert!(texts[0].contains("已自动取消") && texts[0].contains(&order.order_id), "{}", texts[0]);

    // The same state file opened again, as after a restart, even with the
    // cursor lost: the feed is read from its start, and nothing told again.
    feed.release().await;
    drop(feed);
    let reopened = mallbot::state::open(&url).await.unwrap();
    forget_cursor(reopened.as_ref()).await;
    let app = App::with_parts(pay_config(), bot.app.mall.clone(), reopened).unwrap();
    let feed = mallbot::telegram::event_feed(&app, Duration::from_secs(5));
    let report = feed.poll(&told(&app)).await.unwrap();
    assert!(!report.not_holder, "the restarted reader holds the feed");
    assert_eq!((report.told, report.skipped), (0, 1), "read again, not told again");
    assert_eq!(bot.api.texts_to(ALICE.id).len(), 1, "never told twice");
    bot.stop().await;
    std::fs::remove_dir_all(&dir).ok();
}

/// Makes the state store forget the feed's cursor.
async fn forget_cursor(state: &dyn StateStore) {
    state.put_value("events:cursor", "", Duration::from_millis(1)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert_eq!(state.get_value("events:cursor").await.unwrap(), None);
}

#[tokio::test]
async fn two_instances_on_one_redis_tell_each_event_once() {
    let Some(url) = redis_url("pay", "the two-instance event test").await else { return };
    let bot = start(pay_config()).await;
    let first = order_directly(bot.app.mall.as_ref(), ALICE).await;
    let second = order_directly(bot.app.mall.as_ref(), ALICE).await;
    bot.mall.advance_clock(Duration::from_secs(31 * 60));
    assert_eq!(bot.mall.sweep_expired().unwrap(), 2);

    let instance = || async {
        let state = mallbot::state::open(&url).await.unwrap();
        let app = App::with_parts(pay_config(), bot.app.mall.clone(), state).unwrap();
        let teller = teller(&bot.api, &app);
        (event_feed(&app), teller, app)
    };
    let (feed_a, teller_a, app_a) = instance().await;
    let (feed_b, teller_b, _app_b) = instance().await;
    let mut told = 0;
    for _ in 0..3 {
        let (a, b) = tokio::join!(feed_a.poll(&teller_a), feed_b.poll(&teller_b));
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!(a.not_holder || b.not_holder, "one instance holds the feed: {a:?} {b:?}");
        told += a.told + b.told;
        // The holder lets go and the cursor is lost: whoever reads next reads it all again.
        feed_a.release().await;
        feed_b.release().await;
        forget_cursor(app_a.state.as_ref()).await;
    }
    assert_eq!(told, 2, "each of the two expiries told once");
    let texts = bot.api.texts_to(ALICE.id);
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(
        texts.iter().any(|t| t.contains(&first.order_id))
            && texts.iter().any(|t| t.contains(&second.order_id))
    );
    bot.stop().await;
}
