//! The Telegram transport end to end: the real dispatcher (`telegram::dispatcher`
//! around `telegram::schema()`) long-polls a fake Bot API server on loopback,
//! with the embedded mall and the offline planner behind it; the tests read
//! what the shopper saw from the requests the fake server recorded.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use async_trait::async_trait;
use fake_bot_api::*;
use mallbot::App;
use mallbot::config::Config;
use mallbot::llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, Usage};
use mallbot::state::{
    AuditEntry, AuditLog, ClaimOutcome, CounterStore, HistoryStore, Housekeeping, LockStore, MemoryStore,
    OutboxEntry, OutboxStore, PendingStatus, PendingStore, StateError, StoredPending, UpdateLog, ValueStore,
};
use serde_json::{Value, json};
use services::{OrderStatus, PageRequest};
use teloxide::dispatching::ShutdownToken;

const ALICE: Shopper = Shopper { id: 1001, name: "Alice" };
const BOB: Shopper = Shopper { id: 1002, name: "Bob" };
const ADMIN: Shopper = Shopper { id: 9001, name: "Operator" };
const GROUP: i64 = -100_555;

/// The bot running against the fake server.
struct Running {
    api: FakeBotApi,
    app: App,
    shutdown: ShutdownToken,
    task: tokio::task::JoinHandle<()>,
    handled: mallbot::telegram::Handled,
}

impl Running {
    /// Stops the dispatcher and checks it stopped cleanly (no worker died).
    /// Stops the dispatcher and waits until every update it took has been
    /// handled: after this, nothing more is sent.
    async fn stop_when_handled(self) -> FakeBotApi {
        if let Ok(done) = self.shutdown.shutdown() {
            done.await;
        }
        self.task.await.expect("the dispatcher ended cleanly");
        tokio::time::timeout(Duration::from_secs(10), self.handled.wait())
            .await
            .expect("every update handled");
        self.api
    }

    /// Stops taking updates and waits until every update taken has been
    /// handled: after this nothing more is sent, and the bot can still be
    /// looked at ("nothing more" is asserted against this end, not a pause).
    async fn settle(&self) {
        if let Ok(done) = self.shutdown.shutdown() {
            done.await;
        }
        tokio::time::timeout(Duration::from_secs(10), self.handled.wait())
            .await
            .expect("every update handled");
    }

    async fn stop(self) {
        if let Ok(done) = self.shutdown.shutdown() {
            done.await;
        }
        self.task.await.expect("the dispatcher ended cleanly");
    }

    async fn orders_of(&self, shopper: Shopper) -> Vec<services::Order> {
        let who = services::Shopper::new("telegram", shopper.id);
        self.app.mall.list_orders(&who, PageRequest::default()).await.expect("orders").items
    }

    /// The last message the bot sent to `chat`, as it stands now (with its buttons).
    fn last_sent(&self, chat: i64) -> Value {
        self.api.sent_to(chat).last().cloned().expect("a message to the chat")
    }
}

fn test_config() -> Config {
    let mut config = Config::default();
    config.state.url = "memory://".into();
    config.telegram.admins = vec![ADMIN.id];
    config.bot.rate_limit_per_minute = 0;
    config
}

async fn start(config: Config) -> Running {
    let app =
        App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), Arc::new(MemoryStore::new()))
            .expect("app");
    start_app(app).await
}

async fn start_with_model(answer: &str) -> Running {
    let model: Arc<dyn ChatModel> = Arc::new(FixedAnswer(answer.to_owned()));
    let app = App::with_model(
        test_config(),
        Arc::new(services::EmbeddedMall::in_memory()),
        Arc::new(MemoryStore::new()),
        model,
    );
    start_app(app).await
}

async fn start_app(app: App) -> Running {
    let api = FakeBotApi::start().await;
    let (dispatcher, handled) = mallbot::telegram::dispatcher_with_end(api.bot(), app.clone());
    let mut dispatcher = dispatcher.build();
    let shutdown = dispatcher.shutdown_token();
    let task = tokio::spawn(async move { dispatcher.dispatch().await });
    Running { api, app, shutdown, task, handled }
}

/// A model that always answers the same text.
struct FixedAnswer(String);

#[async_trait]
impl ChatModel for FixedAnswer {
    fn describe(&self) -> String {
        "fixed".into()
    }

    async fn complete(&self, _request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        Ok(ChatResponse {
            message: ChatMessage::assistant(self.0.clone()),
            finish_reason: Some("stop".into()),
            usage: Usage::default(),
        })
    }
}

/// A model that breaks in the middle of a turn.
struct BrokenModel;

#[async_trait]
impl ChatModel for BrokenModel {
    fn describe(&self) -> String {
        "broken".into()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let last = request.messages.last().map(|m| m.text().to_owned()).unwrap_or_default();
        if last.contains("boom") {
            panic!("the model broke");
        }
        Ok(ChatResponse {
            message: ChatMessage::assistant(format!("You said: {last}")),
            finish_reason: Some("stop".into()),
            usage: Usage::default(),
        })
    }
}

/// A model that takes its time, then answers.
struct SlowAnswer {
    answer: String,
    delay: Duration,
}

#[async_trait]
impl ChatModel for SlowAnswer {
    fn describe(&self) -> String {
        "slow".into()
    }

    async fn complete(&self, _request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        tokio::time::sleep(self.delay).await;
        Ok(ChatResponse {
            message: ChatMessage::assistant(self.answer.clone()),
            finish_reason: Some("stop".into()),
            usage: Usage::default(),
        })
    }
}

/// Presses the button labelled `label` on the last message to `chat`, as `user`.
fn press_button(bot: &Running, chat: i64, user: Shopper, label: &str) {
    let message = bot.last_sent(chat);
    let data = button_data(&message, label)
        .unwrap_or_else(|| panic!("no button {label:?} on {:?}", buttons(&message)));
    bot.api.push_update(press(user, &message, &data));
}

fn answered_presses(api: &FakeBotApi) -> Vec<Value> {
    api.calls("answerCallbackQuery")
}

// ---------------------------------------------------------------- purchase

#[tokio::test]
async fn a_private_purchase_goes_through_both_confirmations_and_creates_the_order() {
    let bot = start(test_config()).await;
    let chat = ALICE.id;

    bot.api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋，500 以内的"));
    let texts = bot.api.wait_for_texts(chat, 1).await;
    assert!(texts[0].contains("码"), "asks for the size: {}", texts[0]);

    bot.api.push_update(private_text(ALICE, "42码"));
    let texts = bot.api.wait_for_texts(chat, 2).await;
    let prompt = bot.last_sent(chat);
    assert!(texts[1].contains("42"), "the confirmation names the size: {}", texts[1]);
    assert_eq!(
        buttons(&prompt).iter().map(|(l, _)| l.as_str()).collect::<Vec<_>>(),
        vec!["✅ 确认", "✖️ 取消"],
        "confirm / cancel in Chinese"
    );
    let confirm = button_data(&prompt, "✅ 确认").unwrap();
    assert!(confirm.starts_with("c:") && confirm.ends_with(":y") && confirm.len() <= 64, "{confirm}");

    press_button(&bot, chat, ALICE, "✅ 确认");
    let texts = bot.api.wait_for_texts(chat, 3).await;
    assert_eq!(answered_presses(&bot.api).len(), 1, "the press is answered");
    let edited = &bot.api.sent_to(chat)[1];
    assert!(edited.get("reply_markup").is_none(), "buttons removed after the press: {edited}");
    assert!(
        edited["text"].as_str().unwrap().len() > texts[1].len(),
        "the outcome is shown under the summary"
    );
    assert!(bot.orders_of(ALICE).await.is_empty(), "nothing ordered yet");

    // The cart answer offers to order; the shopper says so.
    bot.api.push_update(private_text(ALICE, "下单"));
    let texts = bot.api.wait_for_texts(chat, 4).await;
    let order_prompt = bot.last_sent(chat);
    for part in ["42 码", "× 1", "合计", "取货"] {
        assert!(texts[3].contains(part), "the full order ({part}) is shown: {}", texts[3]);
    }
    assert!(button_data(&order_prompt, "✅ 确认").is_some(), "{order_prompt}");

    press_button(&bot, chat, ALICE, "✅ 确认");
    let texts = bot.api.wait_for_texts(chat, 5).await;
    assert!(
        texts[4].contains("待支付") || texts[4].contains("PENDING_PAYMENT"),
        "order placed: {}",
        texts[4]
    );
    let orders = bot.orders_of(ALICE).await;
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].status, OrderStatus::PendingPayment);
    assert!(texts[4].contains(&orders[0].order_id), "the order id is shown: {}", texts[4]);
    bot.stop().await;
}

/// Brings Alice's private chat to the add-to-cart confirmation.
async fn up_to_cart_confirmation(bot: &Running) {
    bot.api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋，500 以内的"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    bot.api.push_update(private_text(ALICE, "42码"));
    bot.api.wait_for_texts(ALICE.id, 2).await;
    assert!(button_data(&bot.last_sent(ALICE.id), "✅ 确认").is_some());
}

/// Brings Alice's private chat to the order confirmation.
async fn up_to_order_confirmation(bot: &Running) {
    up_to_cart_confirmation(bot).await;
    press_button(bot, ALICE.id, ALICE, "✅ 确认");
    bot.api.wait_for_texts(ALICE.id, 3).await;
    bot.api.push_update(private_text(ALICE, "下单"));
    bot.api.wait_for_texts(ALICE.id, 4).await;
    assert!(button_data(&bot.last_sent(ALICE.id), "✅ 确认").is_some());
}

#[tokio::test]
async fn an_order_result_that_meets_a_502_still_reaches_the_shopper() {
    let bot = start(test_config()).await;
    up_to_order_confirmation(&bot).await;
    bot.api.fail_next_with("sendMessage", Fault::bad_gateway_html());
    press_button(&bot, ALICE.id, ALICE, "✅ 确认");
    let texts = bot.api.wait_for_texts(ALICE.id, 5).await;
    let orders = bot.orders_of(ALICE).await;
    assert_eq!(orders.len(), 1);
    assert!(texts[4].contains(&orders[0].order_id), "the order's result, not an apology: {}", texts[4]);
    let api = bot.stop_when_handled().await;
    assert_eq!(api.texts_to(ALICE.id).len(), 5, "nothing else sent");
    assert_eq!(api.failed_calls("sendMessage"), 1);
}

#[tokio::test]
async fn a_press_by_someone_else_gets_an_alert_and_does_nothing() {
    let bot = start(test_config()).await;
    up_to_order_confirmation(&bot).await;
    let prompt = bot.last_sent(ALICE.id);
    let sent_before = bot.api.calls("sendMessage").len();

    let answered_before = answered_presses(&bot.api).len();
    press_button(&bot, ALICE.id, BOB, "✅ 确认");
    bot.api.wait_until("the press answered", |api| answered_presses(api).len() > answered_before).await;
    let answer = &answered_presses(&bot.api)[answered_before];
    assert_eq!(answer["show_alert"], true, "{answer}");
    assert!(!answer["text"].as_str().unwrap_or_default().is_empty(), "{answer}");

    // Alice's own press still works afterwards: so Bob's press changed nothing.
    press_button(&bot, ALICE.id, ALICE, "✅ 确认");
    bot.api.wait_for_texts(ALICE.id, 5).await;
    assert_eq!(bot.api.calls("sendMessage").len(), sent_before + 1, "nothing was sent for Bob's press");
    assert_eq!(bot.orders_of(BOB).await.len(), 0);
    assert_eq!(bot.orders_of(ALICE).await.len(), 1);
    assert_ne!(bot.last_sent(ALICE.id), prompt);
    bot.stop().await;
}

#[tokio::test]
async fn a_double_press_makes_one_order() {
    let bot = start(test_config()).await;
    up_to_order_confirmation(&bot).await;
    let prompt = bot.last_sent(ALICE.id);
    let data = button_data(&prompt, "✅ 确认").unwrap();
    bot.api.push_update(press(ALICE, &prompt, &data));
    bot.api.push_update(press(ALICE, &prompt, &data));

    bot.api.wait_until("both presses answered", |api| answered_presses(api).len() >= 3).await;
    let texts = bot.api.wait_for_texts(ALICE.id, 5).await;
    assert_eq!(bot.orders_of(ALICE).await.len(), 1, "one order");
    let second = &answered_presses(&bot.api)[2];
    assert!(!second["text"].as_str().unwrap_or_default().is_empty(), "the second press is told: {second}");
    let api = bot.stop_when_handled().await;
    assert_eq!(api.texts_to(ALICE.id).len(), texts.len(), "the second press sent nothing");
}

#[tokio::test]
async fn an_expired_confirmation_is_refused_and_its_buttons_removed() {
    let mut config = test_config();
    config.safety.confirm_ttl_secs = 1;
    let bot = start(config).await;
    up_to_cart_confirmation(&bot).await;
    tokio::time::sleep(Duration::from_millis(2100)).await;

    press_button(&bot, ALICE.id, ALICE, "✅ 确认");
    bot.api.wait_until("the press answered", |api| !answered_presses(api).is_empty()).await;
    let answer = &answered_presses(&bot.api)[0];
    let alert = answer["text"].as_str().unwrap_or_default().to_owned();
    assert!(alert.contains("过期") || alert.contains("失效"), "{answer}");
    bot.api.wait_until("buttons removed", |api| api.sent_to(ALICE.id)[1].get("reply_markup").is_none()).await;
    let cart = bot.app.mall.get_cart(&services::Shopper::new("telegram", ALICE.id)).await.unwrap();
    assert!(cart.items.is_empty(), "nothing added: {cart:?}");
    assert_eq!(bot.api.texts_to(ALICE.id).len(), 2, "no new message");
    bot.stop().await;
}

#[tokio::test]
async fn with_a_critical_code_the_press_asks_for_the_code_and_the_typed_code_places_the_order() {
    let mut config = test_config();
    config.safety.critical_code = true;
    let bot = start(config).await;
    up_to_order_confirmation(&bot).await;

    press_button(&bot, ALICE.id, ALICE, "✅ 确认");
    let texts = bot.api.wait_for_texts(ALICE.id, 5).await;
    let prompt = &bot.api.sent_to(ALICE.id)[3];
    assert!(prompt.get("reply_markup").is_none(), "the buttons are gone: {prompt}");
    assert!(prompt["text"].as_str().unwrap().ends_with("🔐 请输入验证码完成确认。"), "{prompt}");
    let code: String = texts[4].chars().filter(char::is_ascii_digit).collect();
    assert_eq!(code.len(), 6, "the message gives the code: {}", texts[4]);
    assert!(bot.orders_of(ALICE).await.is_empty(), "no order before the code");

    bot.api.push_update(private_text(ALICE, &code));
    let texts = bot.api.wait_for_texts(ALICE.id, 6).await;
    let orders = bot.orders_of(ALICE).await;
    assert_eq!(orders.len(), 1, "{}", texts[5]);
    assert!(texts[5].contains(&orders[0].order_id), "{}", texts[5]);
    bot.stop().await;
}

// ---------------------------------------------------------------- groups

#[tokio::test]
async fn in_a_group_only_messages_addressed_to_the_bot_are_answered() {
    let bot = start(test_config()).await;
    bot.api.push_update(text_message(GROUP, ALICE, "Nike 店在哪里？", json!([])));
    bot.api.push_update(sticker(GROUP, ALICE));
    let mention = group_mention(GROUP, BOB, "Nike 店在哪里？");
    let bob_message_id = mention["message"]["message_id"].clone();
    bot.api.push_update(mention);

    let texts = bot.api.wait_for_texts(GROUP, 1).await;
    bot.settle().await;
    let sent: Vec<Value> =
        bot.api.calls("sendMessage").into_iter().filter(|b| b["chat_id"] == json!(GROUP)).collect();
    assert_eq!(sent.len(), 1, "only the mention is answered: {texts:?}");
    assert!(texts[0].contains("Nike"), "{}", texts[0]);
    assert_eq!(sent[0]["reply_parameters"]["message_id"], bob_message_id, "the answer replies to Bob");
    bot.stop().await;
}

#[tokio::test]
async fn a_group_answer_in_a_forum_topic_stays_in_the_topic() {
    let bot = start(test_config()).await;
    let mut update = group_mention(GROUP, ALICE, "有哪些餐厅？");
    update["message"]["message_thread_id"] = json!(77);
    update["message"]["is_topic_message"] = json!(true);
    update["message"]["chat"]["is_forum"] = json!(true);
    bot.api.push_update(update);
    bot.api.wait_for_texts(GROUP, 1).await;
    let sent = bot.api.calls("sendMessage");
    assert_eq!(sent[0]["message_thread_id"], 77);
    assert!(bot.api.calls("sendChatAction").iter().all(|b| b["message_thread_id"] == 77));
    bot.stop().await;
}

#[tokio::test]
async fn a_cart_request_in_a_group_continues_in_the_private_chat_through_a_deep_link() {
    let bot = start(test_config()).await;
    bot.api.push_update(group_mention(GROUP, ALICE, "看看我的购物车"));
    bot.api.wait_for_texts(GROUP, 1).await;
    let handoff = bot.last_sent(GROUP);
    let (_, url) = buttons(&handoff).into_iter().find(|(_, d)| d.starts_with("https://t.me/")).expect("link");
    let payload =
        url.strip_prefix(&format!("https://t.me/{BOT_USERNAME}?start=")).expect("deep link").to_owned();
    assert!(payload.len() <= 64 && payload.chars().all(|c| c.is_ascii_alphanumeric() || "_-".contains(c)));

    bot.api.push_update(private_text(ALICE, &format!("/start {payload}")));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("购物车"), "the carried-over request is answered: {}", texts[0]);
    assert!(!texts[0].contains("您好！我是商场导购助手"), "not the greeting: {}", texts[0]);
    bot.stop().await;
}

#[tokio::test]
async fn cart_in_a_group_points_to_the_private_chat_where_the_link_shows_the_cart() {
    let bot = start(test_config()).await;
    let mut command = text_message(
        GROUP,
        ALICE,
        &format!("/cart@{BOT_USERNAME}"),
        json!([{"type": "bot_command", "offset": 0, "length": 5 + BOT_USERNAME.len() + 1}]),
    );
    command["message"]["from"]["language_code"] = json!("zh");
    bot.api.push_update(command);
    bot.api.wait_for_texts(GROUP, 1).await;
    let (_, url) = buttons(&bot.last_sent(GROUP))
        .into_iter()
        .find(|(_, d)| d.starts_with("https://t.me/"))
        .expect("link");
    let payload = url.rsplit('=').next().unwrap().to_owned();

    bot.api.push_update(private_text(ALICE, &format!("/start {payload}")));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("购物车"), "{}", texts[0]);
    assert!(!texts[0].contains("私聊"), "the cart itself, not the group's pointer: {}", texts[0]);
    bot.stop().await;
}

// ---------------------------------------------------------------- commands

#[tokio::test]
async fn start_greets_with_example_buttons_that_send_the_example() {
    let bot = start(test_config()).await;
    bot.api.push_update(private_text(ALICE, "/start"));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("商场导购"), "{}", texts[0]);
    let greeting = bot.last_sent(ALICE.id);
    let examples = buttons(&greeting);
    // The mall's own: a product it sells, a store, a store with an offer, then the cart.
    let labels: Vec<&str> = examples.iter().map(|(l, _)| l.as_str()).collect();
    assert_eq!(labels, ["帮我找智利 车厘子 JJ级 500g", "屈臣氏在哪", "盒马鲜生有什么优惠", "看看我的购物车"]);
    assert!(examples.iter().all(|(_, d)| d.starts_with("s:") && d.len() <= 64));

    press_button(&bot, ALICE.id, ALICE, "屈臣氏在哪");
    let texts = bot.api.wait_for_texts(ALICE.id, 2).await;
    assert!(texts[1].contains("屈臣氏"), "the example was sent as Alice's message: {}", texts[1]);
    let greeting_now = &bot.api.sent_to(ALICE.id)[0];
    assert!(greeting_now["text"].as_str().unwrap().ends_with("› 屈臣氏在哪"), "{greeting_now}");
    bot.stop().await;
}

#[tokio::test]
async fn help_lists_the_capabilities_of_the_registry() {
    let bot = start(test_config()).await;
    bot.api.push_update(private_text(ALICE, "/help"));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    for capability in ["找路", "找商品", "购物车", "订单", "/lang"] {
        assert!(texts[0].contains(capability), "{capability} missing: {}", texts[0]);
    }
    bot.stop().await;
}

#[tokio::test]
async fn health_is_for_admins_and_looks_like_an_unknown_command_to_anyone_else() {
    let bot = start(test_config()).await;
    bot.api.set_privacy_mode(true);
    bot.api.push_update(private_text(ADMIN, "/health"));
    bot.api.push_update(private_text(BOB, "/health"));
    bot.api.push_update(private_text(BOB, "/frobnicate"));
    let admin = bot.api.wait_for_texts(ADMIN.id, 1).await;
    let stranger = bot.api.wait_for_texts(BOB.id, 2).await;

    let tools = handlers::all().len();
    assert!(admin[0].contains(&tools.to_string()), "tool count {tools}: {}", admin[0]);
    assert!(admin[0].contains("mall"), "{}", admin[0]);
    assert!(admin[0].contains("/setprivacy"), "privacy mode advice: {}", admin[0]);
    assert_eq!(stranger[0], stranger[1], "/health from a stranger is an unknown command");
    let bodies: Vec<Value> =
        bot.api.calls("sendMessage").into_iter().filter(|b| b["chat_id"] == json!(BOB.id)).collect();
    assert_eq!(bodies[0], bodies[1], "byte-identical requests");
    bot.stop().await;
}

#[tokio::test]
async fn only_allowed_users_are_served_and_others_hear_one_refusal_then_silence() {
    let mut config = test_config();
    config.bot.allowed_users = vec![ALICE.id, ADMIN.id];
    let bot = start(config).await;
    bot.api.push_update(private_text(BOB, "Nike 店在哪"));
    bot.api.push_update(private_text(BOB, "/help"));
    bot.api.push_update(private_text(BOB, "hello?"));
    bot.api.push_update(private_text(ALICE, "/help"));
    let alice = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(alice[0].contains("/cart"), "an allowed user is served: {}", alice[0]);
    bot.api.push_update(private_text(ADMIN, "/stats"));
    let stats = bot.api.wait_for_texts(ADMIN.id, 1).await;
    assert!(stats[0].contains("messages") || stats[0].contains("消息"), "{}", stats[0]);
    let bob = bot.api.wait_for_texts(BOB.id, 1).await;
    assert!(bob[0].contains("只对指定的顾客开放"), "one polite refusal: {}", bob[0]);
    bot.settle().await;
    assert_eq!(bot.api.sent_to(BOB.id).len(), 1, "then silence, for messages and commands alike");
    bot.stop().await;
}

#[tokio::test]
async fn lang_switches_the_answers_to_english() {
    let bot = start(test_config()).await;
    bot.api.push_update(private_text(ALICE, "/lang en"));
    bot.api.push_update(private_text(ALICE, "/start"));
    let texts = bot.api.wait_for_texts(ALICE.id, 2).await;
    assert!(texts[0].contains("English"), "{}", texts[0]);
    assert!(texts[1].starts_with("Hello"), "{}", texts[1]);
    bot.stop().await;
}

// ---------------------------------------------------------------- delivery

#[tokio::test]
async fn a_failure_inside_is_logged_answered_with_an_apology_and_the_bot_goes_on() {
    let app = App::with_model(
        test_config(),
        Arc::new(services::EmbeddedMall::in_memory()),
        Arc::new(MemoryStore::new()),
        Arc::new(BrokenModel),
    );
    let bot = start_app(app).await;
    bot.api.push_update(private_text(ALICE, "boom please"));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].starts_with("Sorry, something went wrong"), "an apology in English: {}", texts[0]);
    bot.api.push_update(private_text(BOB, "hello"));
    let texts = bot.api.wait_for_texts(BOB.id, 1).await;
    assert_eq!(texts[0], "You said: hello", "the bot goes on");
    assert!(bot.app.stats.errors.load(Ordering::Relaxed) >= 1, "the failure is counted");
    bot.stop().await;
}

#[tokio::test]
async fn typing_is_shown_while_the_answer_is_prepared_and_stops_with_it() {
    let model: Arc<dyn ChatModel> =
        Arc::new(SlowAnswer { answer: "Nike 在三楼。".into(), delay: Duration::from_millis(4500) });
    let app = App::with_model(
        test_config(),
        Arc::new(services::EmbeddedMall::in_memory()),
        Arc::new(MemoryStore::new()),
        model,
    );
    let bot = start_app(app).await;
    bot.api.push_update(private_text(ALICE, "Nike 在哪"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    bot.settle().await;
    let order: Vec<String> = bot
        .api
        .requests()
        .into_iter()
        .filter(|r| r.method == "sendChatAction" || r.method == "sendMessage")
        .map(|r| format!("{} {}", r.method, r.body["action"].as_str().unwrap_or_default()))
        .collect();
    assert_eq!(
        order,
        ["sendChatAction typing", "sendChatAction typing", "sendMessage "],
        "typing at once, refreshed after about 4 s, nothing after the answer"
    );
    bot.stop().await;
}

#[tokio::test]
async fn a_long_answer_is_split_without_losing_anything() {
    let paragraph = "Nike Pegasus 41 跑鞋 ¥499，三楼 Nike 店有货，适合日常慢跑。\n\n";
    let answer: String = paragraph.repeat(6000 / paragraph.chars().count() + 1);
    let bot = start_with_model(&answer).await;
    bot.api.push_update(private_text(ALICE, "介绍一下所有跑鞋"));
    bot.api.wait_until("two messages", |api| api.texts_to(ALICE.id).len() >= 2).await;
    bot.settle().await;
    let texts = bot.api.texts_to(ALICE.id);
    assert_eq!(texts.len(), 2, "6000+ characters → two messages");
    assert!(texts.iter().all(|t| t.chars().count() <= 4096));
    let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    assert_eq!(strip(&texts.concat()), strip(&answer), "nothing lost");
    bot.stop().await;
}

#[tokio::test]
async fn text_telegram_cannot_parse_is_sent_again_plain() {
    let answer = "Use <b>bold & *stars_ for 50% off > today";
    let bot = start_with_model(answer).await;
    bot.api.fail_next(
        "sendMessage",
        400,
        json!({"ok": false, "error_code": 400,
               "description": "Bad Request: can't parse entities: Can't find end of the entity starting at byte offset 4"}),
    );
    bot.api.push_update(private_text(ALICE, "hello"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    let attempts: Vec<_> = bot.api.requests().into_iter().filter(|r| r.method == "sendMessage").collect();
    assert_eq!(attempts.len(), 2);
    assert!(attempts[0].failed);
    assert_eq!(attempts[0].body["parse_mode"], "HTML");
    assert_eq!(attempts[0].body["text"], "Use &lt;b&gt;bold &amp; *stars_ for 50% off &gt; today");
    assert!(attempts[1].body.get("parse_mode").is_none(), "{}", attempts[1].body);
    assert_eq!(attempts[1].body["text"], answer, "the same text, plain");
    bot.stop().await;
}

#[tokio::test]
async fn a_models_markdown_arrives_as_telegram_html() {
    let bot = start_with_model(
        "**Nike** 在 `3F`，详见 [地图](https://mall.example/map?f=3&s=nike)\n\n- 跑鞋\n- 球衣",
    )
    .await;
    bot.api.push_update(private_text(ALICE, "Nike 在哪"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    let sent = &bot.api.calls("sendMessage")[0];
    assert_eq!(sent["parse_mode"], "HTML");
    assert_eq!(
        sent["text"],
        "<b>Nike</b> 在 <code>3F</code>，详见 <a href=\"https://mall.example/map?f=3&amp;s=nike\">地图</a>\n\n• 跑鞋\n• 球衣"
    );
    bot.stop().await;
}

#[tokio::test]
async fn flood_control_is_waited_out_and_the_message_arrives() {
    let bot = start(test_config()).await;
    bot.api.fail_next(
        "sendMessage",
        429,
        json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 1",
               "parameters": {"retry_after": 1}}),
    );
    bot.api.push_update(private_text(ALICE, "/start"));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("商场导购"));
    let attempts: Vec<_> = bot.api.requests().into_iter().filter(|r| r.method == "sendMessage").collect();
    assert_eq!(attempts.len(), 2, "one refused, one delivered");
    assert!(attempts[0].failed && !attempts[1].failed);
    assert_eq!(attempts[0].body, attempts[1].body, "the same message retried");
    bot.stop().await;
}

/// A Bot API stand-in that drops the first `drops` connections, then answers
/// every request with a sent message. Returns its URL and the connection count.
async fn flaky_bot_api(drops: usize) -> (reqwest::Url, Arc<std::sync::atomic::AtomicUsize>) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = reqwest::Url::parse(&format!("http://{}/", listener.local_addr().unwrap())).unwrap();
    let connections = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = connections.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            if count.fetch_add(1, Ordering::SeqCst) < drops {
                drop(socket);
                continue;
            }
            let mut request = vec![0u8; 64 * 1024];
            let _ = socket.read(&mut request).await;
            let body = json!({"ok": true, "result": {"message_id": 1, "date": 1_700_000_000,
                "chat": {"id": ALICE.id, "type": "private", "first_name": "Alice"}, "text": "你好"}})
            .to_string();
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.write_all(body.as_bytes()).await;
        }
    });
    (url, connections)
}

#[tokio::test]
async fn a_dropped_connection_is_retried_and_the_message_arrives() {
    let (url, connections) = flaky_bot_api(1).await;
    let bot = teloxide::Bot::new("123:TEST").set_api_url(url);
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(ALICE.id), thread: None, reply_to: None };
    let sent = mallbot::telegram::send_text(&bot, &target, "你好", None).await.expect("sent after a retry");
    assert_eq!(sent, [teloxide::types::MessageId(1)], "the message Telegram took");
    assert_eq!(connections.load(Ordering::SeqCst), 2, "one dropped, one answered");
}

/// The attempts of `sendMessage` to `chat`, as (failed?, text) in order.
fn send_attempts(api: &FakeBotApi, chat: i64) -> Vec<(bool, String)> {
    api.requests()
        .into_iter()
        .filter(|r| r.method == "sendMessage" && r.body["chat_id"] == json!(chat))
        .map(|r| (r.failed, r.body["text"].as_str().unwrap_or_default().to_owned()))
        .collect()
}

#[tokio::test]
async fn a_500_and_a_502_with_an_html_page_are_sent_again_and_the_shopper_gets_the_whole_answer_once() {
    let paragraph = "Nike Pegasus 41 跑鞋 ¥499，三楼 Nike 店有货。\n\n";
    let answer: String = paragraph.repeat(5000 / paragraph.chars().count() + 1);
    let bot = start_with_model(&answer).await;
    bot.api.fail_next_with("sendMessage", Fault::internal_error());
    bot.api.fail_next_with("sendMessage", Fault::bad_gateway_html());
    bot.api.push_update(private_text(ALICE, "介绍一下跑鞋"));
    bot.api.wait_until("both parts", |api| api.texts_to(ALICE.id).len() >= 2).await;
    bot.settle().await;

    let texts = bot.api.texts_to(ALICE.id);
    assert_eq!(texts.len(), 2, "the answer in two parts, each once: {texts:?}");
    let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    assert_eq!(strip(&texts.concat()), strip(&answer), "the whole answer, nothing else (no apology)");
    let attempts = send_attempts(&bot.api, ALICE.id);
    let failed: Vec<bool> = attempts.iter().map(|(failed, _)| *failed).collect();
    assert_eq!(failed, [true, true, false, false], "500, 502, then the first part, then the second");
    assert_eq!(attempts[0].1, attempts[2].1, "the same part sent again");
    assert_eq!(bot.app.stats.errors.load(Ordering::Relaxed), 0, "no failure counted");
    bot.stop().await;
}

#[tokio::test]
async fn chat_not_found_is_not_sent_again() {
    let bot = start_with_model("Nike 在三楼。").await;
    bot.api.fail_next_with("sendMessage", Fault::chat_not_found());
    bot.api.push_update(private_text(ALICE, "Nike 在哪"));
    bot.api.wait_until("the refused answer", |api| api.failed_calls("sendMessage") == 1).await;
    bot.api.wait_for_texts(ALICE.id, 1).await;
    bot.settle().await;
    let answers: Vec<_> =
        send_attempts(&bot.api, ALICE.id).into_iter().filter(|(_, text)| text == "Nike 在三楼。").collect();
    assert_eq!(answers, [(true, "Nike 在三楼。".to_owned())], "tried once, not again");
    let waiting = bot.app.state.outbox_claim(Duration::from_secs(1), 10).await.unwrap();
    assert!(waiting.is_empty(), "nothing kept for later: {waiting:?}");
    bot.stop().await;
}

#[tokio::test]
async fn an_answer_telegram_does_not_take_past_the_retries_is_delivered_from_the_outbox_when_it_is_back() {
    let bot = start_with_model("Nike 在三楼。").await;
    let attempts = mallbot::telegram::TELEGRAM_RETRY.max_retries as usize + 1;
    for _ in 0..attempts {
        bot.api.fail_next_with("sendMessage", Fault::internal_error());
    }
    bot.api.push_update(private_text(ALICE, "Nike 在哪"));
    bot.api.wait_until("every attempt failed", |api| api.failed_calls("sendMessage") == attempts).await;
    bot.settle().await;
    assert!(bot.api.texts_to(ALICE.id).is_empty(), "nothing delivered, no apology either");

    // Telegram is back; the outbox task (as `mallbot run` starts it) delivers the answer.
    let outbox = Arc::new(mallbot::telegram::Outbox::new(bot.app.state.clone(), Duration::from_secs(600)));
    let flushing = outbox.spawn(bot.api.bot(), Duration::from_millis(200));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(bot.api.texts_to(ALICE.id), ["Nike 在三楼。"], "delivered once: {texts:?}");
    assert!(
        bot.app.state.outbox_claim(Duration::from_secs(1), 10).await.unwrap().is_empty(),
        "forgotten once sent"
    );
    flushing.abort();
    bot.stop().await;
}

/// Why the bot does not send through teloxide's own request path: on a 5xx it
/// pauses 10 s, then reports a 500 as an `Api(Unknown)` error without the
/// status and a proxy's HTML page as `InvalidJson`, so neither can be told
/// apart from a final refusal by its variant alone.
#[tokio::test]
async fn teloxide_alone_reports_a_500_as_an_unknown_api_error_and_a_502_page_as_invalid_json() {
    use teloxide::prelude::Requester;
    use teloxide::requests::Request;
    let api = FakeBotApi::start().await;
    api.fail_next_with("sendMessage", Fault::internal_error());
    api.fail_next_with("sendMessage", Fault::bad_gateway_html());
    let bot = api.bot();
    let chat = teloxide::types::ChatId(ALICE.id);
    let first = bot.send_message(chat, "a").send().await.unwrap_err();
    let second = bot.send_message(chat, "b").send().await.unwrap_err();
    assert!(
        matches!(&first, teloxide::RequestError::Api(teloxide::ApiError::Unknown(d)) if d == "Internal Server Error"),
        "{first:?}"
    );
    assert!(
        matches!(&second, teloxide::RequestError::InvalidJson { raw, .. } if raw.contains("502 Bad Gateway")),
        "{second:?}"
    );
}

/// Log lines written while a test runs on its own thread.
#[derive(Clone, Default)]
struct CapturedLogs(Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for CapturedLogs {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl CapturedLogs {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// An outbox entry for `chat` made `age` ago, due now.
fn outbox_entry(chat: i64, text: &str, age: Duration) -> mallbot::state::OutboxEntry {
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(chat), thread: None, reply_to: None };
    let out = mallbot::telegram::Outgoing::text(&target, text);
    let now = mallbot::state::unix_now_ms();
    mallbot::state::OutboxEntry {
        id: format!("left-{chat}"),
        chat_id: chat,
        created_ms: now - age.as_millis() as i64,
        due_ms: now,
        payload: serde_json::to_string(&out).unwrap(),
    }
}

#[tokio::test]
async fn an_outbox_entry_older_than_the_window_is_dropped_and_logged() {
    let logs = CapturedLogs::default();
    let writer = logs.clone();
    let subscriber = tracing_subscriber::fmt().with_ansi(false).with_writer(move || writer.clone()).finish();
    let _logging = tracing::subscriber::set_default(subscriber);

    let api = FakeBotApi::start().await;
    let state: Arc<dyn mallbot::state::StateStore> = Arc::new(MemoryStore::new());
    state.outbox_put(&outbox_entry(ALICE.id, "Nike 在三楼。", Duration::from_secs(700))).await.unwrap();
    let outbox = mallbot::telegram::Outbox::new(state.clone(), Duration::from_secs(600));
    let report = outbox.flush(&api.bot()).await;

    assert_eq!((report.delivered, report.dropped), (0, 1));
    assert!(api.texts_to(ALICE.id).is_empty(), "a stale answer is not sent");
    assert!(state.outbox_claim(Duration::ZERO, 10).await.unwrap().is_empty(), "and not kept");
    let logged = logs.text();
    assert!(
        logged.contains("older than telegram.outbox_max_age_secs; dropped") && logged.contains("chat=1001"),
        "{logged}"
    );
}

#[tokio::test]
async fn a_restarted_bot_delivers_the_answer_its_predecessor_left_in_the_outbox() {
    let path = std::env::temp_dir().join(format!("mallbot-outbox-restart-{}.db", std::process::id()));
    let path = path.to_str().unwrap().to_owned();
    {
        // The bot stopped between the turn and the send: its answer is in the store.
        let before = mallbot::state::SqliteStore::open(&path).await.unwrap();
        before
            .outbox_put(&outbox_entry(ALICE.id, "您的订单已创建：ORD-42", Duration::from_secs(30)))
            .await
            .unwrap();
    }
    let api = FakeBotApi::start().await;
    let after: Arc<dyn mallbot::state::StateStore> =
        Arc::new(mallbot::state::SqliteStore::open(&path).await.unwrap());
    let report = mallbot::telegram::Outbox::new(after, Duration::from_secs(600)).flush(&api.bot()).await;
    assert_eq!(report.delivered, 1);
    assert_eq!(api.texts_to(ALICE.id), ["您的订单已创建：ORD-42"]);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{path}{suffix}"));
    }
}

#[tokio::test]
async fn a_dropped_connection_is_sent_again_and_a_lost_response_may_duplicate() {
    let api = FakeBotApi::start().await;
    let bot = api.bot();
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(ALICE.id), thread: None, reply_to: None };
    api.fail_next_with("sendMessage", Fault::Drop);
    mallbot::telegram::send_text(&bot, &target, "第一条", None).await.expect("sent after the drop");
    assert_eq!(api.texts_to(ALICE.id), ["第一条"], "a dropped connection never took effect: once");

    api.fail_next_with("sendMessage", Fault::LoseResponse);
    mallbot::telegram::send_text(&bot, &target, "第二条", None).await.expect("sent again");
    assert_eq!(
        api.texts_to(ALICE.id),
        ["第一条", "第二条", "第二条"],
        "the documented trade-off: a lost response means the answer may arrive twice"
    );
}

/// A reply with a suggestion button, to deliver directly through the outbox.
fn reply_with_button(text: &str) -> mallbot::Reply {
    let mut reply = mallbot::Reply::text(text);
    reply.suggestions = vec!["42码".into()];
    reply
}

async fn status_message(api: &FakeBotApi, target: &mallbot::telegram::Target) -> teloxide::types::MessageId {
    let sent =
        mallbot::telegram::send_text(&api.bot(), target, "🔍 正在搜索：Nike 跑鞋…", None).await.unwrap();
    sent[0]
}

#[tokio::test]
async fn a_status_message_becomes_the_answer_with_its_buttons() {
    let api = FakeBotApi::start().await;
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(ALICE.id), thread: None, reply_to: None };
    let status = status_message(&api, &target).await;
    let outbox = mallbot::telegram::Outbox::new(Arc::new(MemoryStore::new()), Duration::from_secs(600));
    let buttons = mallbot::telegram::ButtonContext::private(handlers::Lang::Zh, BOT_USERNAME);
    let delivery = outbox
        .deliver(&api.bot(), &target, &reply_with_button("有 41–44 码，要哪个？"), &buttons, Some(status))
        .await
        .unwrap();

    assert_eq!(delivery, mallbot::telegram::Delivery::Sent(vec![status]));
    let messages = api.sent_to(ALICE.id);
    assert_eq!(messages.len(), 1, "no new message: {messages:?}");
    assert_eq!(messages[0]["text"], "有 41–44 码，要哪个？");
    assert_eq!(buttons_of(&messages[0]), ["42码"]);
}

fn buttons_of(message: &Value) -> Vec<String> {
    buttons(message).into_iter().map(|(label, _)| label).collect()
}

#[tokio::test]
async fn a_long_answer_edits_the_status_message_into_its_first_part_and_sends_the_rest() {
    let api = FakeBotApi::start().await;
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(ALICE.id), thread: None, reply_to: None };
    let status = status_message(&api, &target).await;
    let paragraph = "Nike Pegasus 41 跑鞋 ¥499，三楼 Nike 店有货。\n\n";
    let answer: String = paragraph.repeat(5000 / paragraph.chars().count() + 1);
    let outbox = mallbot::telegram::Outbox::new(Arc::new(MemoryStore::new()), Duration::from_secs(600));
    let buttons = mallbot::telegram::ButtonContext::private(handlers::Lang::Zh, BOT_USERNAME);
    outbox.deliver(&api.bot(), &target, &reply_with_button(&answer), &buttons, Some(status)).await.unwrap();

    let messages = api.sent_to(ALICE.id);
    assert_eq!(messages.len(), 2, "the status message and one more");
    assert_eq!(messages[0]["message_id"], json!(status.0), "the first part is the edited status message");
    assert!(buttons_of(&messages[0]).is_empty(), "the buttons go on the last part");
    assert_eq!(buttons_of(&messages[1]), ["42码"]);
    let strip = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    let shown: String = messages.iter().map(|m| m["text"].as_str().unwrap().to_owned()).collect();
    assert_eq!(strip(&shown), strip(&answer));
    assert_eq!(api.calls("editMessageText").len(), 1);
}

#[tokio::test]
async fn when_the_status_message_is_gone_the_answer_is_sent_as_a_new_message() {
    let api = FakeBotApi::start().await;
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(ALICE.id), thread: None, reply_to: None };
    let status = status_message(&api, &target).await;
    api.fail_next(
        "editMessageText",
        400,
        json!({"ok": false, "error_code": 400, "description": "Bad Request: message to edit not found"}),
    );
    let outbox = mallbot::telegram::Outbox::new(Arc::new(MemoryStore::new()), Duration::from_secs(600));
    let buttons = mallbot::telegram::ButtonContext::private(handlers::Lang::Zh, BOT_USERNAME);
    outbox
        .deliver(&api.bot(), &target, &reply_with_button("Nike 在三楼。"), &buttons, Some(status))
        .await
        .unwrap();
    assert_eq!(api.texts_to(ALICE.id), ["🔍 正在搜索：Nike 跑鞋…", "Nike 在三楼。"]);
    assert_eq!(buttons_of(&api.sent_to(ALICE.id)[1]), ["42码"]);

    // "Not modified" (the status already says it) counts as delivered.
    api.fail_next(
        "editMessageText",
        400,
        json!({"ok": false, "error_code": 400, "description": "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}),
    );
    let same = mallbot::Reply::text("🔍 正在搜索：Nike 跑鞋…");
    let delivery = outbox.deliver(&api.bot(), &target, &same, &buttons, Some(status)).await.unwrap();
    assert_eq!(delivery, mallbot::telegram::Delivery::Sent(vec![status]));
    assert_eq!(api.texts_to(ALICE.id).len(), 2, "nothing new sent");
}

#[tokio::test]
async fn stickers_get_a_please_write_answer_in_private_and_nothing_in_groups() {
    let bot = start(test_config()).await;
    bot.api.push_update(sticker(ALICE.id, ALICE));
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("文字"), "{}", texts[0]);

    bot.api.push_update(sticker(GROUP, ALICE));
    bot.api.push_update(group_mention(GROUP, ALICE, "你好"));
    bot.api.wait_for_texts(GROUP, 1).await;
    bot.settle().await;
    assert_eq!(bot.api.texts_to(GROUP).len(), 1, "the sticker got no answer");
    bot.stop().await;
}

#[tokio::test]
async fn edited_messages_and_service_messages_are_ignored() {
    let bot = start(test_config()).await;
    let mut edited = private_text(ALICE, "Nike 店在哪里？");
    edited["edited_message"] = edited["message"].take();
    edited.as_object_mut().unwrap().remove("message");
    bot.api.push_update(edited);
    let mut joined = text_message(GROUP, ALICE, "", json!([]));
    joined["message"].as_object_mut().unwrap().remove("text");
    joined["message"]["new_chat_members"] = json!([{"id": 5, "is_bot": false, "first_name": "Wang"}]);
    bot.api.push_update(joined);
    bot.api.push_update(private_text(ALICE, "/help"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    bot.settle().await;
    assert_eq!(bot.api.calls("sendMessage").len(), 1, "only /help was answered");
    assert_eq!(bot.app.stats.errors.load(Ordering::Relaxed), 0);
    bot.stop().await;
}

// ---------------------------------------------------------------- start-up

#[tokio::test]
async fn a_missing_token_is_refused_naming_the_setting() {
    let config = Config::default();
    let err = mallbot::telegram::connect(&config.telegram).await.unwrap_err().to_string();
    assert!(err.contains("telegram.token") && err.contains("MALLBOT_TELEGRAM__TOKEN"), "{err}");
}

#[tokio::test]
async fn a_token_telegram_refuses_is_reported_as_such() {
    let api = FakeBotApi::start().await;
    api.fail_next("getMe", 401, json!({"ok": false, "error_code": 401, "description": "Unauthorized"}));
    let mut config = Config::default();
    config.telegram.token = "123:WRONG".into();
    config.telegram.api_url = api.url.to_string();
    let err = mallbot::telegram::connect(&config.telegram).await.unwrap_err().to_string();
    assert!(err.contains("refused the bot token") && err.contains("401"), "{err}");
    assert_eq!(api.requests()[0].method, "getMe", "the configured api_url was used");
}

#[tokio::test]
async fn the_command_menu_is_set_in_both_languages() {
    let api = FakeBotApi::start().await;
    mallbot::telegram::register_commands(&api.bot(), handlers::Lang::Zh).await;
    let calls = api.calls("setMyCommands");
    assert_eq!(calls.len(), 3);
    let english = calls.iter().find(|c| c["language_code"] == "en").expect("english menu");
    let names: Vec<&str> =
        english["commands"].as_array().unwrap().iter().map(|c| c["command"].as_str().unwrap()).collect();
    assert_eq!(names, ["start", "help", "cart", "orders", "car", "points", "coupons", "reset", "lang"]);
    let chinese = calls.iter().find(|c| c["language_code"] == "zh").map(|c| c["commands"].to_string());
    assert!(chinese.is_some_and(|menu| menu.contains("我的积分")), "{calls:?}");
}

// ---------------------------------------------------------------- webhook

#[tokio::test]
async fn the_webhook_answers_once_per_update_even_when_telegram_delivers_it_twice() {
    let api = FakeBotApi::start().await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut config = test_config();
    config.telegram.webhook_url = format!("http://{addr}/tg-hook");
    config.telegram.webhook_secret = "s3cret".into();
    let app =
        App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), Arc::new(MemoryStore::new()))
            .unwrap();
    let server =
        tokio::spawn(mallbot::telegram::serve_on_until(api.bot(), app, listener, std::future::pending()));
    api.wait_until("setWebhook", |api| !api.calls("setWebhook").is_empty()).await;
    let hook = &api.calls("setWebhook")[0];
    // setWebhook goes through the one sending path, as JSON (no certificate is sent).
    assert_eq!(hook["secret_token"], "s3cret", "{hook}");
    assert!(hook["url"].as_str().unwrap_or_default().ends_with("/tg-hook"), "{hook}");

    let mut update = private_text(ALICE, "/start");
    update["update_id"] = json!(555);
    let client = reqwest::Client::new();
    let post = |secret: &'static str| {
        client
            .post(format!("http://{addr}/tg-hook"))
            .header("X-Telegram-Bot-Api-Secret-Token", secret)
            .json(&update)
            .send()
    };
    assert_eq!(post("wrong").await.unwrap().status(), 401);
    assert_eq!(post("s3cret").await.unwrap().status(), 200);
    assert_eq!(post("s3cret").await.unwrap().status(), 200);
    api.wait_for_texts(ALICE.id, 1).await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(api.texts_to(ALICE.id).len(), 1, "the re-delivery was dropped");
    server.abort();
}

// ---------------------------------------------------------------- live answers

/// One model round of a [`LiveModel`].
enum Round {
    /// Waits, then calls these tools.
    Calls(Duration, Vec<(&'static str, &'static str)>),
    /// Waits, then answers this text without streaming it.
    Text(Duration, &'static str),
    /// Streams these pieces, each after `gap`, then answers with all of them.
    Answer(Vec<&'static str>, Duration),
    /// Streams these pieces, each after `gap`, then fails as a broken connection.
    Breaks(Vec<&'static str>, Duration),
}

/// A model that plays rounds, streaming its answers into the turn's progress
/// as a streaming client does.
struct LiveModel(std::sync::Mutex<std::collections::VecDeque<Round>>);

impl LiveModel {
    fn app(rounds: Vec<Round>) -> App {
        let model: Arc<dyn ChatModel> = Arc::new(LiveModel(std::sync::Mutex::new(rounds.into())));
        App::with_model(
            test_config(),
            Arc::new(services::EmbeddedMall::in_memory()),
            Arc::new(MemoryStore::new()),
            model,
        )
    }
}

#[async_trait]
impl ChatModel for LiveModel {
    fn describe(&self) -> String {
        "live".into()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let round = self.0.lock().unwrap().pop_front();
        let stream = |pieces: &[&str], gap: Duration| {
            let progress = request.progress.cloned();
            let pieces: Vec<String> = pieces.iter().map(|p| p.to_string()).collect();
            async move {
                for piece in &pieces {
                    tokio::time::sleep(gap).await;
                    if let Some(progress) = &progress {
                        progress.text_delta(piece);
                    }
                }
                pieces.concat()
            }
        };
        let message = match round {
            Some(Round::Calls(wait, calls)) => {
                tokio::time::sleep(wait).await;
                let calls = calls
                    .iter()
                    .enumerate()
                    .map(|(i, (name, arguments))| mallbot::llm::ToolCall {
                        id: format!("call_{i}"),
                        name: (*name).into(),
                        arguments: (*arguments).into(),
                    })
                    .collect();
                ChatMessage::assistant_calls(calls)
            }
            Some(Round::Text(wait, text)) => {
                tokio::time::sleep(wait).await;
                ChatMessage::assistant(text)
            }
            Some(Round::Answer(pieces, gap)) => ChatMessage::assistant(stream(&pieces, gap).await),
            Some(Round::Breaks(pieces, gap)) => {
                stream(&pieces, gap).await;
                return Err(LlmError::Unavailable { message: "stream cut".into() });
            }
            None => ChatMessage::assistant("(no more rounds)"),
        };
        Ok(ChatResponse { message, finish_reason: None, usage: Usage::default() })
    }
}

fn edits_of(api: &FakeBotApi, chat: i64) -> Vec<Value> {
    api.calls("editMessageText").into_iter().filter(|b| b["chat_id"] == chat).collect()
}

#[tokio::test]
async fn a_status_message_is_sent_once_edited_in_place_and_replaced_by_the_answer() {
    let search = ("search_products", r#"{"keyword":"跑鞋"}"#);
    let stores = ("search_stores", r#"{"keyword":"Nike"}"#);
    let bot = start_app(LiveModel::app(vec![
        Round::Calls(Duration::from_millis(800), vec![search]),
        Round::Calls(Duration::from_millis(1300), vec![search, stores]),
        Round::Text(Duration::from_millis(1200), "Nike Pegasus 41 ¥499，在三楼 Nike 店。"),
    ]))
    .await;
    let chat = ALICE.id;
    bot.api.push_update(private_text(ALICE, "Nike 跑鞋"));
    bot.api.wait_until("the answer", |api| api.shown_to(chat).iter().any(|t| t.contains("Pegasus"))).await;
    bot.settle().await;

    let sent = bot.api.calls("sendMessage");
    assert_eq!(sent.len(), 1, "one message for the whole turn: {sent:?}");
    let status = &sent[0];
    assert!(!status["text"].as_str().unwrap().is_empty());
    let id = bot.api.sent_to(chat)[0]["message_id"].clone();
    let edits = edits_of(&bot.api, chat);
    assert!(edits.len() >= 2, "the second round's status, then the answer: {edits:?}");
    assert!(edits.iter().all(|e| e["message_id"] == id), "every edit is of that message");
    assert_eq!(
        edits[0]["text"].as_str().unwrap().lines().count(),
        2,
        "the status of the second round names its two calls: {}",
        edits[0]["text"]
    );
    assert_eq!(bot.api.shown_to(chat), ["Nike Pegasus 41 ¥499，在三楼 Nike 店。"]);
    let last = edits.last().unwrap();
    assert_eq!(buttons(&bot.api.sent_to(chat)[0]).len(), 1, "the answer keeps its suggestion button: {last}");
    bot.stop().await;
}

#[tokio::test]
async fn an_answer_streams_as_drafts_in_a_private_chat_then_is_sent_once() {
    let pieces = vec!["Nike Pegasus 41 ", "¥499，", "在三楼 ", "Nike 店。"];
    let answer = pieces.concat();
    let bot =
        start_app(LiveModel::app(vec![Round::Answer(pieces.clone(), Duration::from_millis(500))])).await;
    bot.api.push_update(private_text(ALICE, "Nike 跑鞋"));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    bot.settle().await;

    let drafts = bot.api.calls("sendMessageDraft");
    assert!(!drafts.is_empty(), "the answer is drafted as it streams");
    assert_eq!(drafts[0]["text"], pieces[0].trim_end(), "the first piece shows at once");
    let draft_id = drafts[0]["draft_id"].as_u64().unwrap();
    assert_ne!(draft_id, 0);
    for draft in &drafts {
        assert_eq!(draft["chat_id"], ALICE.id);
        assert_eq!(draft["draft_id"].as_u64(), Some(draft_id), "one draft, updated");
        assert!(answer.starts_with(draft["text"].as_str().unwrap()), "drafts grow the answer: {draft}");
    }
    assert_eq!(bot.api.texts_to(ALICE.id), [answer.as_str()], "then one message keeps the whole answer");
    assert!(edits_of(&bot.api, ALICE.id).is_empty());
    let order: Vec<String> = bot.api.requests().into_iter().map(|r| r.method).collect();
    let last_draft = order.iter().rposition(|m| m == "sendMessageDraft").unwrap();
    let message = order.iter().position(|m| m == "sendMessage").unwrap();
    assert!(last_draft < message, "no draft after the answer: {order:?}");
    bot.stop().await;
}

#[tokio::test]
async fn without_drafts_the_answer_streams_into_one_edited_message_and_waits_out_a_429() {
    let pieces = vec!["Nike Pegasus 41 ", "¥499，", "在三楼 ", "Nike 店，", "电梯出来右手边。"];
    let answer = pieces.concat();
    let bot = start_app(LiveModel::app(vec![
        Round::Answer(pieces.clone(), Duration::from_millis(600)),
        Round::Answer(vec!["好的。", "还有别的吗？"], Duration::from_millis(300)),
    ]))
    .await;
    bot.api.refuse(
        "sendMessageDraft",
        404,
        json!({"ok": false, "error_code": 404, "description": "Not Found"}),
    );
    bot.api.fail_next(
        "editMessageText",
        429,
        json!({"ok": false, "error_code": 429, "description": "Too Many Requests: retry after 2",
               "parameters": {"retry_after": 2}}),
    );
    bot.api.push_update(private_text(ALICE, "Nike 跑鞋"));
    bot.api.wait_until("the whole answer", |api| api.shown_to(ALICE.id) == [answer.clone()]).await;

    let sent = bot.api.texts_to(ALICE.id);
    assert_eq!(sent, [pieces[0].trim_end()], "the first piece is sent at once, the rest edited in");
    let requests = bot.api.requests();
    let refused = requests.iter().position(|r| r.method == "sendMessageDraft").expect("a draft was tried");
    let first_send = requests.iter().position(|r| r.method == "sendMessage").unwrap();
    assert!(refused < first_send, "the draft was tried first");
    let edits: Vec<_> = requests.iter().filter(|r| r.method == "editMessageText").collect();
    let limited = edits.iter().position(|r| r.failed).expect("the 429");
    let next = edits.get(limited + 1).expect("an edit after the 429");
    assert!(
        next.at.duration_since(edits[limited].at) >= Duration::from_secs(2),
        "no edit before retry_after has passed"
    );
    for edit in &edits {
        assert!(
            answer.starts_with(edit.body["text"].as_str().unwrap()),
            "edits grow the answer: {}",
            edit.body
        );
    }

    bot.api.push_update(private_text(ALICE, "谢谢"));
    bot.api.wait_until("the second answer", |api| api.shown_to(ALICE.id).len() == 2).await;
    bot.api
        .wait_until("the second answer whole", |api| api.shown_to(ALICE.id)[1] == "好的。还有别的吗？")
        .await;
    let drafts = bot.api.requests().iter().filter(|r| r.method == "sendMessageDraft").count();
    assert_eq!(drafts, 1, "a refused draft is not tried again");
    bot.stop().await;
}

// ---------------------------------------------------------------- floor plans

/// The `sendMediaGroup` / `sendPhoto` calls made to `chat`.
fn photo_calls(api: &FakeBotApi, method: &str, chat: i64) -> Vec<Value> {
    api.calls(method).into_iter().filter(|b| b["chat_id"] == json!(chat)).collect()
}

#[tokio::test]
async fn directions_across_floors_come_as_an_album_uploaded_once_then_resent_by_file_id() {
    let bot = start(test_config()).await;
    bot.api.push_update(private_text(ALICE, "优衣库在哪"));
    bot.api
        .wait_until("the floor plans", |api| photo_calls(api, "sendMediaGroup", ALICE.id).len() == 1)
        .await;
    let first = &photo_calls(&bot.api, "sendMediaGroup", ALICE.id)[0];
    let media = first["media"].as_array().unwrap();
    assert_eq!(media.len(), 2, "one picture per floor: 1F then 2F: {first}");
    for item in media {
        assert_eq!(item["type"], "photo");
        let attach =
            item["media"].as_str().unwrap().strip_prefix("attach://").expect("uploaded, not a file id");
        assert_eq!(first[attach]["png"], true, "{first}");
        assert!(first[attach]["bytes"].as_u64().unwrap() > 10_000, "{first}");
    }
    let caption = media[0]["caption"].as_str().unwrap();
    assert!(caption.chars().count() <= 1024, "{caption}");
    assert!(caption.starts_with("1F 国际品牌与美妆 · 前往 优衣库 (1/2)\n1. 从正门（南门）进入"), "{caption}");
    assert!(caption.contains("乘中庭扶梯上到 2F"), "{caption}");
    assert!(caption.contains("到达优衣库（Uniqlo，门牌 2F-01），在左手边"), "{caption}");
    assert_eq!(media[1]["caption"], "2F 潮流服饰 · 前往 优衣库 (2/2)");
    // The text answer went out too.
    let texts = bot.api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("优衣库"), "{}", texts[0]);

    // Asked again: the same album, by the file ids Telegram gave the uploads.
    bot.api.push_update(private_text(ALICE, "优衣库在哪"));
    bot.api
        .wait_until("the floor plans again", |api| photo_calls(api, "sendMediaGroup", ALICE.id).len() == 2)
        .await;
    let second = &photo_calls(&bot.api, "sendMediaGroup", ALICE.id)[1];
    let ids: Vec<&str> =
        second["media"].as_array().unwrap().iter().map(|m| m["media"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.iter().all(|id| id.starts_with("photo-")), "re-sent by file id: {second}");
    assert!(
        second.as_object().unwrap().values().all(|v| v.get("png").is_none()),
        "nothing uploaded: {second}"
    );
    bot.stop().await;
}

#[tokio::test]
async fn a_broken_stream_still_leaves_one_whole_answer() {
    let bot = start_app(LiveModel::app(vec![Round::Breaks(
        vec!["Nike 跑鞋有", "三款在打折，分别是"],
        Duration::from_millis(200),
    )]))
    .await;
    bot.api.push_update(group_mention(GROUP, ALICE, "Nike 跑鞋 500 以内"));
    bot.api.wait_until("the answer", |api| api.shown_to(GROUP).iter().any(|t| t.contains("基础模式"))).await;
    bot.settle().await;
    let shown = bot.api.shown_to(GROUP);
    assert_eq!(shown.len(), 1, "one message: {shown:?}");
    assert!(!shown[0].contains("三款在打折"), "the broken text is replaced, not continued: {}", shown[0]);
    assert!(shown[0].contains("跑鞋"), "the basic-mode answer: {}", shown[0]);
    assert_eq!(bot.api.calls("sendMessage").len(), 1);
    assert!(bot.api.calls("sendMessageDraft").is_empty(), "no drafts in groups");
    bot.stop().await;
}

#[tokio::test]
async fn two_messages_of_one_chat_share_one_typing_loop() {
    let api = FakeBotApi::start().await;
    let bot = api.bot();
    let typing = mallbot::telegram::ChatTyping::default();
    let target =
        mallbot::telegram::Target { chat: teloxide::types::ChatId(ALICE.id), thread: None, reply_to: None };
    let first = typing.hold(&bot, &target);
    let second = typing.hold(&bot, &target);
    api.wait_until("typing", |api| !api.calls("sendChatAction").is_empty()).await;
    assert_eq!(typing.running(), 1, "one loop for the chat");
    drop(first);
    assert_eq!(typing.running(), 1, "the second message still waits");
    drop(second);
    assert_eq!(typing.running(), 0, "the last one stops it");
    let _third = typing.hold(&bot, &target);
    api.wait_until("typing again", |api| api.calls("sendChatAction").len() >= 2).await;
    assert!(api.calls("sendChatAction").iter().all(|b| b["chat_id"] == ALICE.id && b["action"] == "typing"));
}

#[tokio::test]
async fn after_a_status_a_drafted_answer_is_sent_and_the_status_removed() {
    let pieces = vec!["找到 12 双跑鞋，", "最便宜的 ¥399。"];
    let bot = start_app(LiveModel::app(vec![
        Round::Calls(Duration::from_millis(800), vec![("search_products", r#"{"keyword":"跑鞋"}"#)]),
        Round::Answer(pieces.clone(), Duration::from_millis(500)),
    ]))
    .await;
    let chat = ALICE.id;
    bot.api.push_update(private_text(ALICE, "跑鞋"));
    bot.api.wait_until("the answer", |api| api.texts_to(chat).len() == 2).await;
    bot.api.wait_until("the status removed", |api| api.shown_to(chat).len() == 1).await;
    assert_eq!(bot.api.shown_to(chat), [pieces.concat()], "one message left: the answer");
    assert!(!bot.api.calls("sendMessageDraft").is_empty());
    assert_eq!(bot.api.calls("deleteMessage").len(), 1);
    bot.stop().await;
}

#[tokio::test]
async fn in_a_forum_topic_the_status_and_the_streamed_answer_stay_in_the_topic() {
    let bot = start_app(LiveModel::app(vec![
        Round::Calls(Duration::from_millis(800), vec![("search_stores", r#"{"keyword":"餐厅"}"#)]),
        Round::Answer(vec!["五楼有 8 家餐厅，", "最近的是鼎泰丰。"], Duration::from_millis(400)),
    ]))
    .await;
    let mut update = group_mention(GROUP, ALICE, "有哪些餐厅？");
    update["message"]["message_thread_id"] = json!(77);
    update["message"]["is_topic_message"] = json!(true);
    update["message"]["chat"]["is_forum"] = json!(true);
    bot.api.push_update(update);
    let answer = "五楼有 8 家餐厅，最近的是鼎泰丰。";
    bot.api.wait_until("the answer", |api| api.shown_to(GROUP) == [answer]).await;
    let sent = bot.api.calls("sendMessage");
    assert_eq!(sent.len(), 1, "one message in the topic: {sent:?}");
    assert_eq!(sent[0]["message_thread_id"], 77, "the status is in the topic");
    assert!(sent[0].get("reply_parameters").is_some(), "and answers the shopper's message");
    assert!(bot.api.calls("sendMessageDraft").is_empty(), "no drafts in groups");
    assert_eq!(bot.api.sent_to(GROUP)[0]["message_thread_id"], 77);
    assert!(bot.api.calls("sendChatAction").iter().all(|b| b["message_thread_id"] == 77));
    bot.stop().await;
}

#[tokio::test]
async fn in_a_group_a_one_floor_route_is_one_photo_replying_to_the_asker() {
    let bot = start(test_config()).await;
    let mention = group_mention(GROUP, BOB, "Apple 零售店在哪里？");
    let bob_message_id = mention["message"]["message_id"].clone();
    bot.api.push_update(mention);
    bot.api.wait_until("the floor plan", |api| photo_calls(api, "sendPhoto", GROUP).len() == 1).await;
    let photo = &photo_calls(&bot.api, "sendPhoto", GROUP)[0];
    let attach = photo["photo"].as_str().unwrap().strip_prefix("attach://").expect("uploaded");
    assert_eq!(photo[attach]["png"], true, "{photo}");
    assert_eq!(photo["reply_parameters"]["message_id"], bob_message_id, "{photo}");
    let caption = photo["caption"].as_str().unwrap();
    assert!(caption.chars().count() <= 1024, "{caption}");
    assert!(caption.starts_with("1F 国际品牌与美妆 · 前往 Apple 零售店\n1. 从正门（南门）进入"), "{caption}");
    assert!(caption.contains("到达Apple 零售店（Apple Store，门牌 1F-01）"), "{caption}");
    assert!(photo_calls(&bot.api, "sendMediaGroup", GROUP).is_empty());
    bot.stop().await;
}

// ---------------------------------------------------------------- one path, one language read

/// A 429 answer asking to wait `seconds`.
fn flood(seconds: u64) -> Value {
    json!({"ok": false, "error_code": 429, "description": format!("Too Many Requests: retry after {seconds}"),
           "parameters": {"retry_after": seconds}})
}

/// The attempts of `method`, as (failed?, body, when), in order.
fn attempts_of(api: &FakeBotApi, method: &str) -> Vec<(bool, Value, std::time::Instant)> {
    api.attempts(method).into_iter().map(|r| (r.failed, r.body, r.at)).collect()
}

#[tokio::test]
async fn a_floor_plan_meeting_flood_control_is_sent_again_once_the_wait_is_over() {
    let bot = start(test_config()).await;
    bot.api.fail_next("sendPhoto", 429, flood(1));
    // A store no other test asks for: its picture is not uploaded yet (file ids are kept per process).
    bot.api.push_update(group_mention(GROUP, BOB, "丝芙兰在哪里？"));
    bot.api.wait_until("the floor plan", |api| photo_calls(api, "sendPhoto", GROUP).len() == 1).await;
    let attempts = attempts_of(&bot.api, "sendPhoto");
    assert_eq!(attempts.len(), 2, "one refused, one taken: {attempts:?}");
    let ((refused, first, at_first), (again, second, at_second)) = (&attempts[0], &attempts[1]);
    assert!(*refused && !*again);
    assert!(
        at_second.duration_since(*at_first) >= Duration::from_secs(1),
        "sent again only after retry_after"
    );
    assert_eq!(first, second, "the same picture, caption and reply sent again");
    let attach = second["photo"].as_str().unwrap().strip_prefix("attach://").expect("uploaded");
    assert_eq!(second[attach]["png"], true, "{second}");
    bot.stop().await;
}

#[tokio::test]
async fn a_live_message_edit_meeting_flood_control_is_sent_again_once_the_wait_is_over() {
    let pieces = vec!["Nike Pegasus 41 ", "¥499，", "在三楼 ", "Nike 店，", "电梯出来右手边。"];
    let answer = pieces.concat();
    let bot =
        start_app(LiveModel::app(vec![Round::Answer(pieces.clone(), Duration::from_millis(600))])).await;
    bot.api.refuse(
        "sendMessageDraft",
        404,
        json!({"ok": false, "error_code": 404, "description": "Not Found"}),
    );
    bot.api.fail_next("editMessageText", 429, flood(2));
    bot.api.push_update(private_text(ALICE, "Nike 跑鞋"));
    bot.api.wait_until("the whole answer", |api| api.shown_to(ALICE.id) == [answer.clone()]).await;
    let edits = attempts_of(&bot.api, "editMessageText");
    let limited = edits.iter().position(|(failed, _, _)| *failed).expect("the 429");
    let (_, refused, refused_at) = &edits[limited];
    let (failed, retried, retried_at) = edits.get(limited + 1).expect("an edit after the 429");
    assert!(!failed);
    assert_eq!(refused, retried, "the refused edit itself is sent again");
    assert!(retried_at.duration_since(*refused_at) >= Duration::from_secs(2), "not before retry_after");
    bot.stop().await;
}

/// A state store that counts the reads of shoppers' `/lang` choices.
struct CountingStore {
    inner: MemoryStore,
    lang_reads: std::sync::atomic::AtomicUsize,
}

impl CountingStore {
    fn lang_reads(&self) -> usize {
        self.lang_reads.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl Housekeeping for CountingStore {
    fn describe(&self) -> String {
        self.inner.describe()
    }
    async fn health(&self) -> Result<(), StateError> {
        self.inner.health().await
    }
    async fn purge_expired(&self) -> Result<u64, StateError> {
        self.inner.purge_expired().await
    }
}

#[async_trait]
impl HistoryStore for CountingStore {
    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        self.inner.load_history(conversation).await
    }
    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError> {
        self.inner.save_history(conversation, messages, ttl).await
    }
    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        self.inner.clear_history(conversation).await
    }
}

#[async_trait]
impl PendingStore for CountingStore {
    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError> {
        self.inner.put_pending(pending).await
    }
    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError> {
        self.inner.get_pending(token).await
    }
    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError> {
        self.inner.claim_pending(token, lease).await
    }
    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError> {
        self.inner.set_pending_status(token, status).await
    }
    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError> {
        self.inner.pending_for(chat_id, user_id, status).await
    }
    async fn count_pending(&self) -> Result<u64, StateError> {
        self.inner.count_pending().await
    }
}

#[async_trait]
impl UpdateLog for CountingStore {
    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        self.inner.first_delivery(update_id, ttl).await
    }
}

#[async_trait]
impl CounterStore for CountingStore {
    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError> {
        self.inner.rate_hit(user, window).await
    }
    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError> {
        self.inner.add_counts(deltas, ttl).await
    }
    async fn counts(&self, key: &str) -> Result<std::collections::HashMap<String, i64>, StateError> {
        self.inner.counts(key).await
    }
}

#[async_trait]
impl LockStore for CountingStore {
    async fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StateError> {
        self.inner.try_lock(key, owner, ttl).await
    }
    async fn unlock(&self, key: &str, owner: &str) -> Result<(), StateError> {
        self.inner.unlock(key, owner).await
    }
    async fn wait_unlock(&self, key: &str, max: Duration) {
        self.inner.wait_unlock(key, max).await
    }
}

#[async_trait]
impl ValueStore for CountingStore {
    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
        self.inner.put_value(key, value, ttl).await
    }
    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError> {
        if key.starts_with("lang:") {
            self.lang_reads.fetch_add(1, Ordering::SeqCst);
        }
        self.inner.get_value(key).await
    }
    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError> {
        self.inner.take_value(key).await
    }
}

#[async_trait]
impl AuditLog for CountingStore {
    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError> {
        self.inner.audit(entry).await
    }
    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError> {
        self.inner.recent_audit(limit).await
    }
}

#[async_trait]
impl OutboxStore for CountingStore {
    async fn outbox_put(&self, entry: &OutboxEntry) -> Result<(), StateError> {
        self.inner.outbox_put(entry).await
    }
    async fn outbox_claim(&self, lease: Duration, limit: usize) -> Result<Vec<OutboxEntry>, StateError> {
        self.inner.outbox_claim(lease, limit).await
    }
    async fn outbox_remove(&self, id: &str) -> Result<bool, StateError> {
        self.inner.outbox_remove(id).await
    }
}

#[tokio::test]
async fn the_shoppers_language_is_looked_up_once_per_message() {
    let store = Arc::new(CountingStore { inner: MemoryStore::new(), lang_reads: Default::default() });
    let mut config = test_config();
    // The rate limit is on: its stage words its notice in the shopper's language too.
    config.bot.rate_limit_per_minute = 30;
    let app =
        App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), store.clone()).expect("app");
    let bot = start_app(app).await;

    // A request for the router: tools, the answer, its buttons.
    bot.api.push_update(private_text(ALICE, "Nike 跑鞋"));
    // A command, answered in the shopper's language from the same kind of lookup.
    bot.api.push_update(private_text(ALICE, "/start"));
    // A choice made with /lang is what the next message's one lookup finds.
    bot.api.push_update(private_text(ALICE, "/lang en"));
    bot.api.push_update(private_text(ALICE, "/start"));
    bot.api
        .wait_until("the English greeting", |api| {
            api.texts_to(ALICE.id).last().is_some_and(|t| t.starts_with("Hello"))
        })
        .await;
    let texts = bot.api.texts_to(ALICE.id);
    assert!(texts.iter().any(|t| t.contains("商场导购")), "the first greeting in Chinese: {texts:?}");
    // The private chat's lane handles its messages in order: all four are done.
    assert_eq!(store.lang_reads(), 4, "one lookup per private message");

    // A group message not addressed to the bot needs no language at all.
    bot.api.push_update(text_message(GROUP, BOB, "随便聊聊", json!([])));
    bot.api.push_update(group_mention(GROUP, BOB, "/start"));
    bot.api.wait_for_texts(GROUP, 1).await;
    assert_eq!(store.lang_reads(), 5, "the ignored message read nothing, the addressed one once");
    bot.stop().await;
}

// ---------------------------------------------------------------- the door for every kind of update

/// The ratings in the report of `state`, as an operator reads them (`/report`).
async fn thumbs(state: &MemoryStore) -> Value {
    let report = mallbot::report::collect(state, 1).await.unwrap();
    serde_json::to_value(&report).unwrap()["thumbs"].clone()
}

/// A message of the bot's in `chat` with one suggestion button, `text`.
fn suggestion_message(chat: i64, text: &str) -> Value {
    json!({
        "message_id": 7000, "date": 1_700_000_000,
        "chat": {"id": chat, "type": "private", "first_name": "Shopper"},
        "from": {"id": BOT_ID, "is_bot": true, "first_name": "Mall Guide", "username": BOT_USERNAME},
        "text": "还想看看什么？",
        "reply_markup": {"inline_keyboard": [[{"text": text, "callback_data": "s:0"}]]},
    })
}

#[tokio::test]
async fn a_stranger_gets_nothing_done_whatever_kind_of_update_or_way_in() {
    use teloxide::types::AllowedUpdate;
    let state = Arc::new(MemoryStore::new());
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    let app_on = |config: Config| {
        App::with_parts(config, mall.clone(), state.clone() as Arc<dyn mallbot::state::StateStore>)
            .expect("app")
    };

    // While everyone is welcome, Bob gets an answer (which a 👍 would rate) and a confirmation to press.
    let before = start_app(app_on(test_config())).await;
    before.api.push_update(private_text(BOB, "Nike 跑鞋"));
    before.api.wait_for_texts(BOB.id, 1).await;
    let answer = before.last_sent(BOB.id);
    before.api.push_update(private_text(BOB, "帮我买一双 Nike 跑鞋，500 以内的"));
    before.api.wait_for_texts(BOB.id, 2).await;
    before.api.push_update(private_text(BOB, "42码"));
    before.api.wait_for_texts(BOB.id, 3).await;
    let prompt = before.last_sent(BOB.id);
    let confirm = button_data(&prompt, "✅ 确认").expect("a confirmation");
    before.stop().await;
    let who = services::Shopper::new("telegram", BOB.id);
    let order = {
        use services::MallApi;
        let query = services::ProductQuery { keyword: Some("Nike 跑鞋".into()), ..Default::default() };
        let hit = mall.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
        let product = mall.get_product(&hit.id).await.unwrap();
        let sku = product.skus.iter().find(|s| s.stock > 0).map(|s| s.sku_id.clone());
        let item = services::AddCartItem { product_id: hit.id.clone(), sku_id: sku, quantity: 1 };
        let cart = mall.add_cart_item(&who, &item, None).await.unwrap();
        let request = services::CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
        mall.create_order(&who, &request, None).await.unwrap()
    };
    let payload = mallbot::PayloadKey::derive("123:TEST").sign(&order.order_id, BOB.id);
    let ratings = thumbs(&state).await;

    // Then only Alice (and the operator) may use the bot, which takes payments.
    let mut config = test_config();
    config.bot.allowed_users = vec![ALICE.id, ADMIN.id];
    config.payments.provider_token = "284685063:TEST:provider".into();
    let bot = start_app(app_on(config)).await;
    let photo = photo_from(BOB.id, BOB, &[("bob-photo", 800, 600)], None);
    let rows: Vec<(AllowedUpdate, &str, Value)> = vec![
        (AllowedUpdate::Message, "text", private_text(BOB, "Nike 跑鞋")),
        (AllowedUpdate::Message, "command", private_text(BOB, "/help")),
        (AllowedUpdate::Message, "voice", voice_message(BOB.id, BOB, "bob-voice", 3, 9000)),
        (AllowedUpdate::Message, "photo", photo),
        (
            AllowedUpdate::CallbackQuery,
            "suggestion",
            press(BOB, &suggestion_message(BOB.id, "Nike 跑鞋"), "s:0"),
        ),
        (AllowedUpdate::CallbackQuery, "confirmation", press(BOB, &prompt, &confirm)),
        (AllowedUpdate::CallbackQuery, "pay", press(BOB, &prompt, &format!("p:{}", order.order_id))),
        (
            AllowedUpdate::MessageReaction,
            "reaction",
            reaction(BOB, answer["message_id"].as_i64().unwrap(), "👍", ""),
        ),
        (
            AllowedUpdate::Message,
            "payment",
            successful_payment(BOB, &payload, order.total_cents, "CNY", "tg-bob"),
        ),
        (
            AllowedUpdate::PreCheckoutQuery,
            "pre-checkout",
            pre_checkout(BOB, &payload, order.total_cents, "CNY"),
        ),
    ];
    let kinds: std::collections::BTreeSet<String> =
        rows.iter().map(|(kind, _, _)| format!("{kind:?}")).collect();
    let asked: std::collections::BTreeSet<String> =
        mallbot::telegram::ALLOWED_UPDATES.iter().map(|kind| format!("{kind:?}")).collect();
    assert_eq!(kinds, asked, "every kind of update the bot asks Telegram for has a row");
    for (_, _, update) in rows {
        bot.api.push_update(update);
    }
    // Alice is served after Bob's updates: they were all taken by then.
    bot.api.push_update(sticker(ALICE.id, ALICE));
    bot.api.wait_for_texts(ALICE.id, 1).await;
    bot.api.wait_until("the pre-checkout answered", |api| !checkout_answers(api).is_empty()).await;
    let app = bot.app.clone();
    let api = bot.stop_when_handled().await;

    // What an operator sees: one refusal (in the chat, unless the pre-checkout's answer came
    // first and said it), then nothing done for Bob.
    let refusal = "抱歉，这个导购助手目前只对指定的顾客开放。";
    let to_bob = api.texts_to(BOB.id);
    assert!(
        to_bob.len() <= 1 && to_bob.iter().all(|t| t == refusal),
        "told once, nothing answered: {to_bob:?}"
    );
    let answers: Vec<(bool, String)> = api
        .calls("answerCallbackQuery")
        .iter()
        .map(|a| (a["show_alert"].as_bool().unwrap_or(false), a["text"].as_str().unwrap_or("").to_owned()))
        .collect();
    assert_eq!(answers.len(), 3, "every press answered: {answers:?}");
    assert_eq!(
        answers.iter().filter(|(alert, text)| *alert && text == refusal).count(),
        2,
        "the confirmation and 💳 are refused on the button: {answers:?}"
    );
    let checkouts = checkout_answers(&api);
    assert_eq!(checkouts.len(), 1);
    assert!(!checkouts[0].1 && checkouts[0].2 == refusal, "the pre-checkout refused: {checkouts:?}");
    assert!(api.calls("sendInvoice").is_empty(), "no invoice for the 💳");
    assert!(api.downloads().is_empty(), "no voice or photo fetched: {:?}", api.downloads());
    assert!(
        !api.calls("sendChatAction").iter().any(|a| a["chat_id"].as_i64() == Some(BOB.id)),
        "no turn started for Bob"
    );
    assert_eq!(app.stats.messages_handled.load(Ordering::Relaxed), 1, "only Alice's message counted");
    assert_eq!(thumbs(&state).await, ratings, "no rating counted");
    assert!(state.recent_audit(10).await.unwrap().is_empty(), "no action carried out");
    use services::MallApi;
    let cart = mall.get_cart(&who).await.unwrap();
    assert!(cart.items.is_empty(), "nothing added to the cart: {cart:?}");
    let paid = mall.get_order(&who, &order.order_id).await.unwrap();
    assert_eq!(paid.status, OrderStatus::PendingPayment, "no payment recorded");
}
