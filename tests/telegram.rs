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
use mallbot::app::App;
use mallbot::config::Config;
use mallbot::llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, Usage};
use mallbot::state::MemoryStore;
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
}

impl Running {
    /// Stops the dispatcher and checks it stopped cleanly (no worker died).
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
    let mut dispatcher = mallbot::telegram::dispatcher(api.bot(), app.clone()).build();
    let shutdown = dispatcher.shutdown_token();
    let task = tokio::spawn(async move { dispatcher.dispatch().await });
    Running { api, app, shutdown, task }
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
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(bot.api.texts_to(ALICE.id).len(), texts.len(), "the second press sent nothing");
    bot.stop().await;
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
    tokio::time::sleep(Duration::from_millis(300)).await;
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
    assert!(examples.len() >= 3, "{examples:?}");
    assert!(examples.iter().all(|(_, d)| d.starts_with("s:") && d.len() <= 64));

    press_button(&bot, ALICE.id, ALICE, "Nike 店在哪里？");
    let texts = bot.api.wait_for_texts(ALICE.id, 2).await;
    assert!(texts[1].contains("Nike"), "the example was sent as Alice's message: {}", texts[1]);
    let greeting_now = &bot.api.sent_to(ALICE.id)[0];
    assert!(greeting_now["text"].as_str().unwrap().ends_with("› Nike 店在哪里？"), "{greeting_now}");
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
    tokio::time::sleep(Duration::from_millis(300)).await;
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
    tokio::time::sleep(Duration::from_millis(200)).await;
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
    let target = mallbot::telegram::send::Target {
        chat: teloxide::types::ChatId(ALICE.id),
        thread: None,
        reply_to: None,
    };
    let sent =
        mallbot::telegram::send::send_text(&bot, &target, "你好", None).await.expect("sent after a retry");
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].text(), Some("你好"));
    assert_eq!(connections.load(Ordering::SeqCst), 2, "one dropped, one answered");
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
    tokio::time::sleep(Duration::from_millis(200)).await;
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
    tokio::time::sleep(Duration::from_millis(200)).await;
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
    assert_eq!(names, ["start", "help", "cart", "orders", "reset", "lang"]);
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
    let server = tokio::spawn(mallbot::telegram::webhook::serve_on(api.bot(), app, listener));
    api.wait_until("setWebhook", |api| !api.calls("setWebhook").is_empty()).await;
    let hook = &api.calls("setWebhook")[0];
    // setWebhook goes as multipart (it may carry a certificate): check the raw form.
    let form = hook.as_str().unwrap_or_default();
    assert!(form.contains("s3cret") && form.contains("/tg-hook"), "{form}");

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
