//! The car park (and a coupon at the till) through the real binary: `mallbot run` on the fake Bot API
//! with Telegram payments on, the mall a `mallbot mall-server` child over
//! HTTP whose staff endpoint `/api/staff/parking/entries` sets when a car
//! came in, as the barrier would. Both children run on one mall clock
//! (`MALLBOT_CLOCK`). The tests read what the shopper saw (messages, the
//! invoice, the answers in Telegram's payment box) and what the mall holds.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;

use fake_bot_api::*;
use mallbot::PayloadKey;
use process::*;
use serde_json::Value;
use services::loyalty::Tariff;
use services::{HttpMall, HttpMallConfig, MallApi};

const ALICE: Shopper = Shopper { id: 8101, name: "Alice" };
const BOB: Shopper = Shopper { id: 8102, name: "Bob" };
const CONFIRM: &str = "✅ 确认";
const MALL_KEY: &str = "mall-key-parking";
const STAFF_KEY: &str = "staff-key-parking";
/// The mall's clock in both children: a Wednesday, 10:00 in the mall.
const CLOCK: &str = "2026-11-25T10:00:00+08:00";

/// A `mall-server` child with a staff key, and the staff's client of it.
struct Mall {
    url: String,
    staff: HttpMall,
    _server: Process,
}

impl Mall {
    async fn start(dir: &TempDir) -> Mall {
        let addr = free_addr();
        let env = [
            ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
            ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
            ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY.to_owned()),
            ("MALLBOT_CLOCK", CLOCK.to_owned()),
        ];
        let server =
            Process::spawn("mall-server", &["mall-server", "--listen", &addr.to_string()], &env, dir.path());
        wait_for_listener(addr, &server).await;
        let url = format!("http://{addr}");
        let staff = HttpMall::new(HttpMallConfig::new(url.clone(), MALL_KEY.to_owned()))
            .unwrap()
            .with_staff_key(STAFF_KEY)
            .unwrap();
        Mall { url, staff, _server: server }
    }

    /// The barrier saw `plate` come in at `at` (the mall's time on 2026-11-25, `HH:MM`).
    async fn entered(&self, plate: &str, at: &str) {
        let at = format!("2026-11-25T{at}:00+08:00");
        self.staff.car_entered(plate, Some(at)).await.unwrap();
    }

    /// What the car park holds for `plate`, as `shopper` would be charged.
    async fn fee(&self, plate: &str, shopper: Shopper) -> services::ParkingFee {
        let who = services::Shopper::new("telegram", shopper.id);
        self.staff.parking_fee(plate, Some(&who)).await.unwrap()
    }
}

/// A bot on the fake Bot API and the HTTP mall, taking payments in Telegram.
struct Bot {
    api: FakeBotApi,
    ops: std::net::SocketAddr,
    /// Updates pushed so far (each is counted once when the bot is done with it).
    pushed: u64,
    _process: Process,
}

impl Bot {
    async fn start(dir: &TempDir, mall: &Mall) -> Bot {
        let api = FakeBotApi::start().await;
        let (ops_var, ops) = ops_env();
        let mut env = bot_env(&api);
        env.extend([
            ops_var,
            ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
            ("MALLBOT_MALL__BACKEND", "http".to_owned()),
            ("MALLBOT_MALL__BASE_URL", mall.url.clone()),
            ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
            ("MALLBOT_PAYMENTS__PROVIDER_TOKEN", "284685063:TEST:provider".to_owned()),
            ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
            ("MALLBOT_CLOCK", CLOCK.to_owned()),
        ]);
        let process = Process::spawn("bot", &["run"], &env, dir.path());
        Bot { api, ops, pushed: 0, _process: process }
    }

    fn push(&mut self, update: Value) {
        self.pushed += 1;
        self.api.push_update(update);
    }

    /// `text` from `user`; the texts of the chat once the answer came.
    async fn say(&mut self, user: Shopper, text: &str) -> Vec<String> {
        let before = self.api.texts_to(user.id).len();
        self.push(private_text(user, text));
        self.api.wait_for_texts(user.id, before + 1).await
    }

    /// `user` presses `label` on `message` in `chat`.
    fn press_on(&mut self, user: Shopper, message: &Value, label: &str) {
        let data = button_data(message, label).unwrap_or_else(|| panic!("no {label:?} on {message}"));
        self.push(press(user, message, &data));
    }

    /// The last message to `chat` that had a `label` button.
    fn with_button(&self, chat: i64, label: &str) -> Value {
        self.api.sent_to(chat).into_iter().rev().find(|m| button_data(m, label).is_some()).unwrap()
    }

    /// `user` presses ✅ on the last confirmation; the texts once the answer came.
    async fn confirm(&mut self, user: Shopper) -> Vec<String> {
        let before = self.api.texts_to(user.id).len();
        let message = self.with_button(user.id, CONFIRM);
        self.press_on(user, &message, CONFIRM);
        self.api.wait_for_texts(user.id, before + 1).await
    }

    /// The answer in the payment box to a pre-checkout of `payload` for `amount` by `user`.
    async fn pre_checkout(&mut self, user: Shopper, payload: &str, amount: i64) -> (bool, String) {
        let count = checkout_answers(&self.api).len() + 1;
        self.push(pre_checkout(user, payload, amount, "CNY"));
        self.api.wait_until("the pre-checkout answer", |api| checkout_answers(api).len() >= count).await;
        let (_, ok, message) = checkout_answers(&self.api).pop().unwrap();
        (ok, message)
    }

    /// The invoices sent so far.
    fn invoices(&self) -> Vec<Value> {
        self.api.calls("sendInvoice")
    }

    /// Waits until the bot is done with every update pushed: whatever it
    /// was going to send for them has been sent.
    async fn settle(&self) {
        wait_for_updates_ended(self.ops, self.pushed).await;
    }
}

/// Alice buys Nike running shoes in the chat and pays them in Telegram; the order's total.
async fn buy_and_pay_an_order(bot: &mut Bot) -> i64 {
    bot.say(ALICE, "帮我买一双 Nike 跑鞋").await;
    bot.say(ALICE, "42码").await;
    bot.confirm(ALICE).await;
    bot.say(ALICE, "下单").await;
    bot.confirm(ALICE).await;
    bot.api.wait_until("the order's invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = bot.invoices().remove(0);
    let payload = invoice["payload"].as_str().unwrap().to_owned();
    let total: i64 =
        invoice["prices"].as_array().unwrap().iter().map(|p| p["amount"].as_i64().unwrap()).sum();
    assert_eq!(bot.pre_checkout(ALICE, &payload, total).await, (true, String::new()));
    let before = bot.api.texts_to(ALICE.id).len();
    bot.push(successful_payment(ALICE, &payload, total, "CNY", "tg-order-1"));
    let texts = bot.api.wait_for_texts(ALICE.id, before + 1).await;
    assert!(texts[before].contains("支付成功"), "the order's receipt: {}", texts[before]);
    total
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_order_paid_today_gives_free_hours_and_the_fee_shows_them_and_the_lower_amount() {
    let dir = TempDir::new("parking-free-hours");
    let mall = Mall::start(&dir).await;
    let mut bot = Bot::start(&dir, &mall).await;
    // In since 04:00: six hours at 10:00.
    mall.entered("沪A12345", "04:00").await;
    let texts = bot.say(ALICE, "记住我的车牌 沪A12345").await;
    assert!(texts.last().unwrap().contains("沪A12345"), "{texts:?}");
    let texts = bot.confirm(ALICE).await;
    assert!(texts.last().unwrap().contains("已保存"), "{texts:?}");
    let before = bot.say(ALICE, "沪A12345 停了多久，多少钱").await;
    let before = before.last().unwrap().clone();
    assert!(before.contains("¥60") && before.contains("已停 6 小时"), "nothing spent yet: {before}");

    let total = buy_and_pay_an_order(&mut bot).await;
    let tariff = Tariff::default();
    let earned = tariff.earned_minutes(total);
    assert!(earned > 0, "a pair of running shoes (¥{}) earns free parking", total / 100);
    let fee = mall.fee("沪A12345", ALICE).await;
    let due = tariff.fee_for(fee.minutes_parked - i64::from(earned));
    assert_eq!(fee.due_cents, due, "{fee:?}");
    assert!(due < 6000);

    let texts = bot.say(ALICE, "沪A12345 停了多久，多少钱").await;
    let answer = texts.last().unwrap();
    let spent = format!("¥{}", services::format_yuan(total));
    let free = format!("免 {} 小时", earned / 60);
    for part in ["免费时长", spent.as_str(), free.as_str(), &format!("现在应付 ¥{}", due / 100), "04:00 入场"]
    {
        assert!(answer.contains(part), "the fee shows {part}: {answer}");
    }
    bot.settle().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fee_is_paid_once_in_telegram_and_a_changed_fee_or_another_shopper_is_refused_in_words() {
    let dir = TempDir::new("parking-pay");
    let mall = Mall::start(&dir).await;
    let mut bot = Bot::start(&dir, &mall).await;
    // In since 07:00: three hours at 10:00, ¥30 (30 minutes free, then ¥10 an hour).
    mall.entered("沪A12345", "07:00").await;

    let texts = bot.say(ALICE, "帮我交沪A12345的停车费").await;
    let asked = texts.last().unwrap();
    assert!(asked.contains("沪A12345") && asked.contains("¥30"), "the plate and the fee before ✅: {asked}");
    assert!(!asked.contains("07:00"), "not her saved plate: no entry time: {asked}");
    let question = bot.with_button(ALICE.id, CONFIRM);

    // Bob presses Alice's ✅: refused, nothing sent.
    let answered = bot.api.calls("answerCallbackQuery").len();
    bot.press_on(BOB, &question, CONFIRM);
    bot.api
        .wait_until("the answer to Bob's press", |api| api.calls("answerCallbackQuery").len() > answered)
        .await;
    let alert = bot.api.calls("answerCallbackQuery").pop().unwrap();
    assert!(alert["text"].as_str().unwrap().contains("其他顾客"), "{alert}");

    let texts = bot.confirm(ALICE).await;
    let told = texts.last().unwrap();
    assert!(told.contains("¥30") && told.contains("请在下方的账单里付款"), "{told}");
    bot.api.wait_until("the parking invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = bot.invoices().remove(0);
    let title = invoice["title"].as_str().unwrap();
    let description = invoice["description"].as_str().unwrap();
    assert!(title.contains("沪A12345"), "{title}");
    assert!(description.contains("沪A12345") && description.contains("15 分钟内离场"), "{description}");
    assert_eq!(invoice["prices"][0]["amount"].as_i64(), Some(3000), "{invoice}");
    assert_eq!(invoice["currency"], "CNY");
    let payload = invoice["payload"].as_str().unwrap().to_owned();
    let key = PayloadKey::derive(TEST_TOKEN);
    assert_eq!(key.open_parking(&payload), Some(("沪A12345".to_owned(), 3000, ALICE.id)));

    // A second press of the same ✅: the confirmation service says it was done; no second invoice.
    let answered = bot.api.calls("answerCallbackQuery").len();
    bot.press_on(ALICE, &question, CONFIRM);
    bot.api
        .wait_until("the answer to the second press", |api| api.calls("answerCallbackQuery").len() > answered)
        .await;
    let alert = bot.api.calls("answerCallbackQuery").pop().unwrap();
    let alert = alert["text"].as_str().unwrap();
    assert!(alert.contains("已经处理过了") && alert.contains("沪A12345"), "{alert}");

    // Bob cannot pay with Alice's invoice; a payload not the bot's is refused too.
    let (ok, why) = bot.pre_checkout(BOB, &payload, 3000).await;
    assert!(!ok && why.contains("不是给您的"), "{why}");
    let forged = payload.replace("|3000|", "|300|");
    let (ok, _) = bot.pre_checkout(ALICE, &forged, 300).await;
    assert!(!ok, "a payload the bot did not sign");

    assert_eq!(bot.pre_checkout(ALICE, &payload, 3000).await, (true, String::new()));
    let before = bot.api.texts_to(ALICE.id).len();
    bot.push(successful_payment(ALICE, &payload, 3000, "CNY", "tg-park-1"));
    let texts = bot.api.wait_for_texts(ALICE.id, before + 1).await;
    let fee = mall.fee("沪A12345", ALICE).await;
    let leave_by = fee.leave_by.clone().expect("paid: a time to leave");
    let receipt = &texts[before];
    for part in ["停车费已支付 ¥30", "沪A12345", &format!("请在 {} 前离场", &leave_by[11..16])] {
        assert!(receipt.contains(part), "the receipt says {part}: {receipt}");
    }
    assert_eq!((fee.paid_cents, fee.due_cents), (3000, 0), "{fee:?}");

    // Telegram delivers the payment again: recorded once, told once.
    bot.push(successful_payment(ALICE, &payload, 3000, "CNY", "tg-park-1"));
    // Paying the same invoice again is refused before any money moves.
    let (ok, why) = bot.pre_checkout(ALICE, &payload, 3000).await;
    assert!(!ok && why.contains("已经付过了"), "{why}");
    bot.settle().await;
    assert_eq!(bot.api.texts_to(ALICE.id).len(), before + 1, "the replayed payment tells nothing more");
    assert_eq!(mall.fee("沪A12345", ALICE).await.paid_cents, 3000, "one parking payment in the mall");
    assert_eq!(bot.invoices().len(), 1, "one invoice for one ✅");

    // Another car: the fee moves between the invoice and the payment box.
    mall.entered("沪C55555", "07:00").await;
    bot.say(ALICE, "帮我交沪C55555的停车费").await;
    bot.confirm(ALICE).await;
    bot.api.wait_until("the second invoice", |api| api.calls("sendInvoice").len() >= 2).await;
    let payload = bot.invoices().pop().unwrap()["payload"].as_str().unwrap().to_owned();
    assert_eq!(key.open_parking(&payload), Some(("沪C55555".to_owned(), 3000, ALICE.id)));
    // The barrier's record is corrected: in since 05:00, five hours, ¥50.
    mall.entered("沪C55555", "05:00").await;
    let (ok, why) = bot.pre_checkout(ALICE, &payload, 3000).await;
    assert!(!ok && why.contains("停车费变了") && why.contains("¥50"), "{why}");
    let fee = mall.fee("沪C55555", ALICE).await;
    assert_eq!((fee.paid_cents, fee.due_cents), (0, 5000), "nothing paid: {fee:?}");
    bot.settle().await;
}

/// A coupon at the till, through the same binary: claimed in the chat, used on
/// the order on the shopper's say-so, its discount shown before ✅, on the
/// invoice and on the receipt, the order paid at the discounted total and the
/// coupon used.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_coupon_claimed_in_chat_takes_its_discount_off_the_invoice_and_is_used_once_paid() {
    let dir = TempDir::new("coupon-invoice");
    let mall = Mall::start(&dir).await;
    let mut bot = Bot::start(&dir, &mall).await;
    let alice = services::Shopper::new("telegram", ALICE.id);

    let asked = bot.say(ALICE, "领取满300减50的券").await;
    assert!(asked.last().unwrap().contains("全场满300减50"), "the coupon before ✅: {asked:?}");
    let claimed = bot.confirm(ALICE).await;
    assert!(claimed.last().unwrap().contains("全场满300减50"), "{claimed:?}");
    let held = mall.staff.my_coupons(&alice).await.unwrap().items;
    assert_eq!(held.iter().map(|m| m.status.as_str()).collect::<Vec<_>>(), ["AVAILABLE"]);

    bot.say(ALICE, "帮我买一双 Nike 跑鞋").await;
    bot.say(ALICE, "42码").await;
    bot.confirm(ALICE).await;
    let preview = bot.say(ALICE, "用券下单").await;
    let preview = preview.last().unwrap();
    for part in ["小计", "优惠券「全场满300减50」-¥50", "实付"] {
        assert!(preview.contains(part), "the confirmation shows {part}: {preview}");
    }
    assert!(bot.invoices().is_empty(), "nothing to pay before ✅");
    bot.confirm(ALICE).await;

    bot.api.wait_until("the order's invoice", |api| !api.calls("sendInvoice").is_empty()).await;
    let invoice = bot.invoices().remove(0);
    let charged: i64 =
        invoice["prices"].as_array().unwrap().iter().map(|p| p["amount"].as_i64().unwrap()).sum();
    let payload = invoice["payload"].as_str().unwrap().to_owned();
    let (order_id, payer) = PayloadKey::derive(TEST_TOKEN).open(&payload).unwrap();
    assert_eq!(payer, ALICE.id);
    let order = mall.staff.get_order(&alice, &order_id).await.unwrap();
    assert_eq!(
        (order.total_cents, order.subtotal_cents, order.discount_cents, order.coupon_id.as_deref()),
        (charged, Some(charged + 5000), Some(5000), Some("cp-mall-50")),
        "the invoice charges the mall's total after the discount"
    );
    let (sub, total) = (handlers::format::money(charged + 5000), handlers::format::money(charged));
    let description = invoice["description"].as_str().unwrap();
    assert!(
        description.contains(&format!("商品小计 {sub} − 优惠券 ¥50 = 实付 {total}")),
        "the invoice shows the discount: {description}"
    );

    assert_eq!(bot.pre_checkout(ALICE, &payload, charged).await, (true, String::new()));
    let before = bot.api.texts_to(ALICE.id).len();
    bot.push(successful_payment(ALICE, &payload, charged, "CNY", "tg-coupon-order-1"));
    let receipt = bot.api.wait_for_texts(ALICE.id, before + 1).await.remove(before);
    for part in ["支付成功", order_id.as_str(), "优惠券 ¥50"] {
        assert!(receipt.contains(part), "the receipt says {part}: {receipt}");
    }
    let paid = mall.staff.get_order(&alice, &order_id).await.unwrap();
    assert_eq!(paid.status, services::OrderStatus::Paid);
    assert_eq!(paid.payment.map(|p| p.amount_cents), Some(charged));
    let held = mall.staff.my_coupons(&alice).await.unwrap().items;
    assert_eq!(
        held.iter().map(|m| (m.status.as_str(), m.order_id.as_deref())).collect::<Vec<_>>(),
        [("USED", Some(order_id.as_str()))]
    );
    bot.settle().await;
}
