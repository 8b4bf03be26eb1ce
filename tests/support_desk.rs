//! A person at the service desk, through the real binary: `mallbot run`
//! children on the fake Bot API (a forum supergroup as the desk), a scripted
//! model counting its calls, state in SQLite (or a shared Redis). The tests
//! check what the shopper and the staff saw: the topic and its card, the
//! messages copied both ways, the model left alone while a person talks,
//! `/close`, restarts, two instances, the desk's hours, and that nothing
//! reaches a shopper except from their own topic.
//!
//! Redis is expected at 127.0.0.1:6379; without it the Redis test is skipped
//! with a loud line, unless `CI=true`, where its absence fails it.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;
#[path = "support/redis.rs"]
mod redis_store;

use std::time::Duration;

use fake_bot_api::*;
use fake_model::{FakeModel, ModelBehaviour};
use process::*;
use redis_store::*;
use serde_json::{Value, json};

const ALICE: Shopper = Shopper { id: 1001, name: "Alice" };
const STAFF: Shopper = Shopper { id: 7001, name: "Wang" };
const MALLORY: Shopper = Shopper { id: 6666, name: "Mallory" };
const DESK: i64 = -100_900;
const OTHER_FORUM: i64 = -100_901;
const BOSS: Shopper = Shopper { id: 9001, name: "Boss" };
const GROUP: i64 = -100_777;

const CONNECTING: &str = "正在为您转接人工客服";
const JOINED: &str = "客服已接入";
const CLOSED: &str = "客服已结束本次对话";

fn model_env(model: &FakeModel) -> Vec<(&'static str, String)> {
    vec![
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "fake".to_owned()),
        ("MALLBOT_LLM__API_KEY", "test-key".to_owned()),
    ]
}

fn desk_env(api: &FakeBotApi, dir: &TempDir) -> Vec<(&'static str, String)> {
    let mut env = bot_env(api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_SUPPORT__CHAT_ID", DESK.to_string()),
        ("MALLBOT_SUPPORT__ANSWER_WITHIN_MINS", "0".to_owned()),
    ]);
    env
}

/// The messages the bot sent into topic `thread` of the desk.
fn in_topic(api: &FakeBotApi, thread: i64) -> Vec<Value> {
    api.sent_to(DESK).into_iter().filter(|m| m["message_thread_id"].as_i64() == Some(thread)).collect()
}

/// Waits for the card of a new topic; returns the topic's id and the card.
async fn wait_for_card(api: &FakeBotApi) -> (i64, Value) {
    api.wait_until("a card in a desk topic", |api| {
        api.sent_to(DESK).iter().any(|m| m["message_thread_id"].is_i64() && !buttons(m).is_empty())
    })
    .await;
    let card = api.sent_to(DESK).into_iter().find(|m| !buttons(m).is_empty()).unwrap();
    (card["message_thread_id"].as_i64().unwrap(), card)
}

/// The shopper's messages relayed into the desk (each marked `🧑 › `) that read `text`.
fn relayed(api: &FakeBotApi, text: &str) -> Vec<Value> {
    let marked = format!("🧑 › {text}");
    api.sent_to(DESK).into_iter().filter(|m| m["text"].as_str() == Some(marked.as_str())).collect()
}

/// Waits until the shopper's `text` was relayed into the desk; returns that message.
async fn wait_for_relayed(api: &FakeBotApi, text: &str) -> Value {
    api.wait_until(&format!("{text:?} relayed to the desk"), |api| !relayed(api, text).is_empty()).await;
    relayed(api, text).remove(0)
}

/// Waits until `count` messages were copied into `chat`; returns them.
async fn wait_for_copies(api: &FakeBotApi, chat: i64, count: usize) -> Vec<Value> {
    api.wait_until(&format!("{count} copies to {chat}"), |api| api.copies_to(chat).len() >= count).await;
    api.copies_to(chat)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_shopper_who_asks_for_a_person_talks_to_staff_in_their_own_topic_until_close() {
    let api = FakeBotApi::start().await;
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let dir = TempDir::new("desk");
    let mut env = desk_env(&api, &dir);
    env.extend(model_env(&model));
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());

    // A question first, so the card has something to show.
    api.push_update(private_text(ALICE, "Nike 在几楼"));
    let answered = fake_model::end_of("q0m0z");
    api.wait_until("the answer", |api| api.texts_to(ALICE.id).iter().any(|t| t.contains(&answered))).await;
    let base = api.texts_to(ALICE.id).len();
    let model_calls = model.calls();
    assert!(model_calls > 0, "the model answered the question");

    // "我要找人工客服" is a request for a person, not a product search.
    api.push_update(private_text(ALICE, "我要找人工客服"));
    let (thread, card) = wait_for_card(&api).await;
    let texts = api.wait_for_texts(ALICE.id, base + 1).await;
    assert!(texts[base].contains(CONNECTING), "the shopper is told: {}", texts[base]);
    let topics = api.calls("createForumTopic");
    assert_eq!(topics.len(), 1, "{topics:?}");
    assert_eq!(topics[0]["chat_id"], json!(DESK));
    assert!(topics[0]["name"].as_str().unwrap().contains("Alice"), "{}", topics[0]);
    let card_text = card["text"].as_str().unwrap();
    for part in ["Alice", "顾客要求人工", "Nike 在几楼", "Simplified Chinese"] {
        assert!(card_text.contains(part), "the card shows {part:?}: {card_text}");
    }
    assert_eq!(buttons(&card)[0].0, "✅ 结束对话");
    assert_eq!(model.calls(), model_calls, "asking for a person costs no model call");

    // Staff write in the topic: text and a photo reach the shopper, copied.
    api.push_update(topic_text(DESK, STAFF, thread, "您好，我是客服小王，请问有什么可以帮您？"));
    let copies = wait_for_copies(&api, ALICE.id, 1).await;
    assert_eq!(copies[0]["text"], "您好，我是客服小王，请问有什么可以帮您？");
    let texts = api.texts_to(ALICE.id);
    assert!(texts[base + 1].contains(JOINED), "told once that a person is there: {texts:?}");
    api.push_update(topic_photo(DESK, STAFF, thread, "staff-photo-1"));
    let copies = wait_for_copies(&api, ALICE.id, 2).await;
    assert_eq!(copies[1]["photo"][0]["file_id"], "staff-photo-1");
    let copy_calls = api.calls("copyMessage");
    assert!(copy_calls.iter().all(|c| c["from_chat_id"] == json!(DESK) || c["chat_id"] == json!(DESK)));

    // The shopper's reply reaches the topic; the bot says nothing itself.
    api.push_update(private_text(ALICE, "我的包丢在星巴克了"));
    let to_desk = wait_for_relayed(&api, "我的包丢在星巴克了").await;
    assert_eq!(to_desk["message_thread_id"], json!(thread));

    // An old suggestion button pressed meanwhile goes to the topic, not to the bot.
    let message = api.sent_to(ALICE.id).into_iter().find(|m| !buttons(m).is_empty()).expect("suggestions");
    let (label, data) = buttons(&message).into_iter().find(|(_, d)| d.starts_with("s:")).unwrap();
    api.push_update(press(ALICE, &message, &data));
    api.wait_until("the press shown in the topic", |api| {
        in_topic(api, thread).iter().any(|m| m["text"].as_str() == Some(format!("🧑 › {label}").as_str()))
    })
    .await;

    // Nothing reaches the shopper from outside their topic: General, a
    // thread id that is no shopper's, the same thread id in another group.
    api.push_update(forum_message(OTHER_FORUM, MALLORY, Some(thread), json!({"text": "把钱转给我"})));
    api.push_update(forum_message(DESK, MALLORY, None, json!({"text": "大家好，General 里的消息"})));
    api.push_update(topic_text(DESK, MALLORY, thread + 777, "伪造的话题"));
    api.push_update(topic_text(DESK, STAFF, thread, "包找到了，在服务台"));
    let copies = wait_for_copies(&api, ALICE.id, 3).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let copies_now = api.copies_to(ALICE.id);
    assert_eq!(copies_now.len(), 3, "only the topic's message reached the shopper: {copies_now:?}");
    assert_eq!(copies[2]["text"], "包找到了，在服务台");
    assert_eq!(
        api.texts_to(ALICE.id).len(),
        base + 2,
        "the bot said nothing else: {:?}",
        api.texts_to(ALICE.id)
    );
    assert_eq!(model.calls(), model_calls, "the model is not asked while a person talks");

    // A restart in the middle keeps the link.
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
    let mut bot = Process::spawn("bot (restarted)", &["run"], &env, dir.path());
    api.push_update(topic_text(DESK, STAFF, thread, "请到 1 楼服务台取包"));
    let copies = wait_for_copies(&api, ALICE.id, 4).await;
    assert_eq!(copies[3]["text"], "请到 1 楼服务台取包");
    api.push_update(private_text(ALICE, "好的，谢谢"));
    wait_for_relayed(&api, "好的，谢谢").await;
    assert_eq!(model.calls(), model_calls, "still no model call after the restart");

    // `/close` in the topic: the shopper is told, the topic closed, the bot answers again.
    api.push_update(topic_text(DESK, STAFF, thread, "/close"));
    api.wait_until("the shopper told it ended", |api| {
        api.texts_to(ALICE.id).iter().any(|t| t.contains(CLOSED))
    })
    .await;
    api.wait_until("the topic closed", |api| !api.calls("closeForumTopic").is_empty()).await;
    assert!(
        in_topic(&api, thread).iter().any(|m| m["text"].as_str().unwrap_or_default().contains("对话已结束"))
    );
    let answers = api.texts_to(ALICE.id).iter().filter(|t| t.contains(&answered)).count();
    api.push_update(private_text(ALICE, "Nike 在几楼"));
    api.wait_until("the bot's answer", |api| {
        api.texts_to(ALICE.id).iter().filter(|t| t.contains(&answered)).count() > answers
    })
    .await;
    assert!(model.calls() > model_calls, "the model answers again after /close");
    assert!(relayed(&api, "Nike 在几楼").is_empty(), "nothing more went to the desk");
    assert!(api.copies_to(DESK).is_empty(), "texts are relayed marked, not copied");

    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cards_button_ends_it_and_a_shopper_who_blocked_the_bot_marks_the_topic() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-button");
    let env = desk_env(&api, &dir);
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());

    // Basic mode (no model): "talk to a human" is understood there too.
    api.push_update(private_text(ALICE, "talk to a human"));
    let (thread, card) = wait_for_card(&api).await;
    let texts = api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains("Connecting you to the service desk"), "{}", texts[0]);
    let close = button_data(&card, "✅ 结束对话").unwrap();

    // Someone presses the close button of the card in another chat: nothing happens.
    let mut forged_card = card.clone();
    forged_card["chat"] = json!({"id": OTHER_FORUM, "type": "supergroup", "title": "x", "is_forum": true});
    api.push_update(press(MALLORY, &forged_card, &close));
    api.push_update(press(STAFF, &card, &close));
    api.wait_until("the shopper told it ended", |api| {
        api.texts_to(ALICE.id).iter().any(|t| t.contains("has ended this conversation"))
    })
    .await;
    let ended = api.texts_to(ALICE.id).iter().filter(|t| t.contains("has ended this conversation")).count();
    assert_eq!(ended, 1, "ended once: {:?}", api.texts_to(ALICE.id));

    // Asked again: the same topic, reopened with a new card.
    api.push_update(private_text(ALICE, "human agent"));
    api.wait_until("a second card", |api| {
        in_topic(api, thread).iter().filter(|m| !buttons(m).is_empty()).count() >= 2
    })
    .await;
    assert_eq!(api.calls("createForumTopic").len(), 1, "one topic per shopper");
    assert!(!api.calls("reopenForumTopic").is_empty());

    // The shopper blocks the bot: staff's message marks the topic.
    api.block(ALICE.id);
    api.push_update(topic_text(DESK, STAFF, thread, "还在吗？"));
    api.wait_until("the topic marked", |api| {
        in_topic(api, thread).iter().any(|m| m["text"].as_str().unwrap_or_default().contains("屏蔽"))
    })
    .await;
    api.wait_until("the topic renamed", |api| !api.calls("editForumTopic").is_empty()).await;
    assert!(api.calls("editForumTopic")[0]["name"].as_str().unwrap().starts_with("⛔"));

    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_hands_over_with_a_reason() {
    let api = FakeBotApi::start().await;
    let behaviour = ModelBehaviour {
        tool: Some(("contact_staff".to_owned(), json!({"reason": "孩子走丢了"}))),
        ..ModelBehaviour::default()
    };
    let model = FakeModel::start(behaviour).await;
    let dir = TempDir::new("desk-model");
    let mut env = desk_env(&api, &dir);
    env.extend(model_env(&model));
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());

    api.push_update(private_text(ALICE, "我女儿刚才在三楼不见了"));
    let (_, card) = wait_for_card(&api).await;
    assert!(card["text"].as_str().unwrap().contains("孩子走丢了"), "the model's reason: {}", card["text"]);
    let texts = api.wait_for_texts(ALICE.id, 1).await;
    assert!(texts[0].contains(CONNECTING), "{}", texts[0]);
    assert_eq!(model.calls(), 1, "the turn ends with the hand-off");
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outside_its_hours_the_desk_says_when_it_opens_and_without_a_desk_where_it_is() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-hours");
    // Opening two hours from now, UTC, for an hour.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let minute = (now % 86_400 / 60) as u32;
    let hm = |m: u32| format!("{:02}:{:02}", (m % 1440) / 60, m % 60);
    let (opens, closes) = (hm(minute + 120), hm(minute + 180));
    let mut env = desk_env(&api, &dir);
    env.extend([
        ("MALLBOT_SUPPORT__HOURS", format!("{opens}-{closes}")),
        ("MALLBOT_SUPPORT__UTC_OFFSET", "+00:00".to_owned()),
    ]);
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());
    api.push_update(private_text(ALICE, "转人工"));
    let texts = api.wait_for_texts(ALICE.id, 1).await;
    assert!(
        texts[0].contains("不在班") && texts[0].contains(&opens),
        "says when it opens ({opens}): {}",
        texts[0]
    );
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
    assert!(api.calls("createForumTopic").is_empty(), "no topic outside the hours");

    // No desk configured: where the service desk is, never silence.
    let mut env = bot_env(&api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("nodesk.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
    ]);
    let mut bot = Process::spawn("bot (no desk)", &["run"], &env, dir.path());
    api.push_update(private_text(ALICE, "轉人工"));
    let texts = api.wait_for_texts(ALICE.id, 2).await;
    // The demo mall's own service desk section, in the shopper's script.
    assert!(texts[1].contains("【服務台】服務台在 1F") && texts[1].contains("021-5888 0000"), "{}", texts[1]);
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}

// ---------------------------------------------------------------- two instances, one Redis

/// Deletes every key under `prefix` when dropped (also when the test fails).
struct RedisKeys(String);

impl Drop for RedisKeys {
    fn drop(&mut self) {
        let Ok(mut conn) = redis::Client::open(REDIS_URL).and_then(|c| c.get_connection()) else { return };
        let keys: Vec<String> =
            redis::cmd("KEYS").arg(format!("{}:*", self.0)).query(&mut conn).unwrap_or_default();
        if !keys.is_empty() {
            let _: redis::RedisResult<()> = redis::cmd("DEL").arg(keys).query(&mut conn);
        }
    }
}

const SECRET: &str = "hook-secret-35";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_on_redis_relay_each_message_once() {
    if !redis_available("the two-instance service desk test").await {
        return;
    }
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-two");
    let prefix = format!("mallbot-test:{}", unique("desk"));
    let _keys = RedisKeys(prefix.clone());
    let mut env = bot_env(&api);
    env.extend([
        ("MALLBOT_TELEGRAM__MODE", "webhook".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_URL", "https://bot.example.test/tg-hook".to_owned()),
        ("MALLBOT_TELEGRAM__WEBHOOK_SECRET", SECRET.to_owned()),
        ("MALLBOT_STATE__URL", format!("{REDIS_URL}/0?prefix={prefix}")),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_SUPPORT__CHAT_ID", DESK.to_string()),
        ("MALLBOT_SUPPORT__ANSWER_WITHIN_MINS", "0".to_owned()),
    ]);
    let spawn = |name: &str| {
        let addr = free_addr();
        let mut env = env.clone();
        env.push(("MALLBOT_TELEGRAM__WEBHOOK_LISTEN", addr.to_string()));
        (Process::spawn(name, &["run"], &env, dir.path()), addr)
    };
    let (a, a_addr) = spawn("instance A");
    let (b, b_addr) = spawn("instance B");
    wait_for_listener(a_addr, &a).await;
    wait_for_listener(b_addr, &b).await;
    let client = reqwest::Client::new();
    let next_id = std::sync::atomic::AtomicI64::new(500);
    // Telegram posts an update; here, to both instances at once (a retry racing the first try).
    let post_both = |update: Value| {
        let update = numbered(update, next_id.fetch_add(1, std::sync::atomic::Ordering::SeqCst));
        api.remember(&update);
        let client = client.clone();
        async move {
            let post = |addr: std::net::SocketAddr| {
                let request = client.post(format!("http://{addr}/tg-hook"));
                request.header("X-Telegram-Bot-Api-Secret-Token", SECRET).json(&update).send()
            };
            let (x, y) = tokio::join!(post(a_addr), post(b_addr));
            assert_eq!(x.unwrap().status().as_u16(), 200);
            assert_eq!(y.unwrap().status().as_u16(), 200);
        }
    };

    post_both(private_text(ALICE, "人工")).await;
    let (thread, _) = wait_for_card(&api).await;
    post_both(topic_text(DESK, STAFF, thread, "您好，我是客服")).await;
    wait_for_copies(&api, ALICE.id, 1).await;
    post_both(private_text(ALICE, "我在 1 楼")).await;
    wait_for_relayed(&api, "我在 1 楼").await;
    post_both(topic_text(DESK, STAFF, thread, "马上到")).await;
    wait_for_copies(&api, ALICE.id, 2).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(api.calls("createForumTopic").len(), 1, "one topic");
    assert_eq!(api.copies_to(ALICE.id).len(), 2, "each staff message once: {:?}", api.copies_to(ALICE.id));
    assert_eq!(relayed(&api, "我在 1 楼").len(), 1, "the shopper's message once: {:?}", api.sent_to(DESK));
    let joined = api.texts_to(ALICE.id).iter().filter(|t| t.contains(JOINED)).count();
    assert_eq!(joined, 1, "{:?}", api.texts_to(ALICE.id));
    // Instance A alone relays what B started.
    a.terminate();
    let client2 = reqwest::Client::new();
    let update = numbered(topic_text(DESK, STAFF, thread, "A 停了，B 接着"), 900);
    api.remember(&update);
    let request =
        client2.post(format!("http://{b_addr}/tg-hook")).header("X-Telegram-Bot-Api-Secret-Token", SECRET);
    assert_eq!(request.json(&update).send().await.unwrap().status().as_u16(), 200);
    wait_for_copies(&api, ALICE.id, 3).await;
    b.terminate();
}

// ---------------------------------------------------------------- misses, reactions, the report

const PERSON_BUTTON: &str = "👤 人工";

/// The value of the sample `name_and_labels` in a Prometheus scrape (0 when absent).
fn sample(scrape: &str, name_and_labels: &str) -> f64 {
    scrape
        .lines()
        .find_map(|line| line.strip_prefix(name_and_labels)?.strip_prefix(' ')?.parse().ok())
        .unwrap_or(0.0)
}

/// The last message the bot sent to `chat`, with its buttons.
fn last_sent(api: &FakeBotApi, chat: i64) -> Value {
    api.sent_to(chat).last().cloned().expect("a message")
}

/// Sends `text` as Alice and waits for the bot's answer; returns that message.
async fn ask(api: &FakeBotApi, text: &str) -> Value {
    let before = api.texts_to(ALICE.id).len();
    api.push_update(private_text(ALICE, text));
    api.wait_for_texts(ALICE.id, before + 1).await;
    last_sent(api, ALICE.id)
}

fn has_person_button(message: &Value) -> bool {
    buttons(message).iter().any(|(label, _)| label == PERSON_BUTTON)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_misses_offer_a_person_one_does_not_and_the_report_and_metrics_list_what_went_unanswered() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-report");
    let ops = free_addr();
    let mut env = desk_env(&api, &dir);
    env.push(("MALLBOT_OPS__LISTEN", ops.to_string()));
    env.push(("MALLBOT_TELEGRAM__ADMINS", BOSS.id.to_string()));
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());
    wait_for_listener(ops, &bot).await;

    // One miss (not understood), then a found search: no button either time.
    assert!(!has_person_button(&ask(&api, "拖拉机能开进来吗").await), "one miss offers no person");
    let found = ask(&api, "Nike 跑鞋").await;
    assert!(!has_person_button(&found), "a helped turn offers no person");
    // A miss after it is the first of a new row; the next one offers a person.
    assert!(!has_person_button(&ask(&api, "帮我找拖拉机").await), "the count started again");
    let second = ask(&api, "有没有卖割草机的").await;
    assert!(has_person_button(&second), "two misses in a row offer a person: {second}");

    // 👎 on the found search's answer (a reaction, as Telegram sends it).
    api.push_update(reaction(ALICE, found["message_id"].as_i64().unwrap(), "👎", ""));
    // The button asks for a person: the desk gets the shopper's topic.
    api.push_update(press(ALICE, &second, &button_data(&second, PERSON_BUTTON).unwrap()));
    let (_, card) = wait_for_card(&api).await;
    assert!(card["text"].as_str().unwrap().contains("割草机"), "the card shows the misses: {}", card["text"]);

    // The report, from the same state store, as an operator runs it.
    let scrape_url = format!("http://{ops}/metrics");
    let deadline = tokio::time::Instant::now() + BOUND;
    let scrape = loop {
        let scrape = reqwest::get(&scrape_url).await.unwrap().text().await.unwrap();
        let counted = sample(&scrape, r#"mallbot_report_events_total{kind="thumbs_down"}"#) >= 1.0
            && sample(&scrape, r#"mallbot_handoffs_total{outcome="opened"}"#) >= 1.0;
        if counted || tokio::time::Instant::now() > deadline {
            break scrape;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(["report", "--since", "1d", "--format", "json"])
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db")))
        .env_remove("MALLBOT_CONFIG")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = |section: &str| -> Vec<(String, i64)> {
        report[section]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["text"].as_str().unwrap().to_owned(), r["count"].as_i64().unwrap()))
            .collect()
    };
    assert_eq!(rows("unanswered"), vec![("拖拉机能开进来吗".to_owned(), 1)], "{report}");
    assert_eq!(rows("empty_searches"), vec![("割草机".to_owned(), 1), ("拖拉机".to_owned(), 1)], "{report}");
    // The bot's own reason, one row whatever the shopper's language.
    assert_eq!(rows("handoffs"), vec![("the shopper asked for a person".to_owned(), 1)], "{report}");
    assert_eq!(report["thumbs"]["search_products"]["down"], json!(1), "{report}");
    assert_eq!(rows("thumbs_down"), vec![("Nike 跑鞋".to_owned(), 1)], "{report}");
    assert_eq!((report["conversations"].as_i64(), report["with_person"].as_i64()), (Some(1), Some(1)));
    let text = report.to_string();
    assert!(!text.contains("Alice") && !text.contains(&ALICE.id.to_string()), "nobody named: {text}");

    // The same numbers in /metrics.
    for (kind, count) in [("dont_know", 1.0), ("empty_search", 2.0), ("handoff", 1.0), ("thumbs_down", 1.0)] {
        let got = sample(&scrape, &format!(r#"mallbot_report_events_total{{kind="{kind}"}}"#));
        assert_eq!(got, count, "{kind} in /metrics");
    }
    assert_eq!(sample(&scrape, r#"mallbot_handoffs_total{outcome="opened"}"#), 1.0);

    // `/report` for an admin, in private only.
    api.push_update(private_text(BOSS, "/report"));
    let said = api.wait_for_texts(BOSS.id, 1).await;
    assert!(said[0].contains("Unanswered questions") && said[0].contains("拖拉机能开进来吗"), "{}", said[0]);
    assert!(said[0].contains("resolved without a person: 0%"), "{}", said[0]);
    api.push_update(text_message(
        GROUP,
        BOSS,
        "/report@MallGuideBot",
        command_entity("/report@MallGuideBot"),
    ));
    let said = api.wait_for_texts(GROUP, 1).await;
    assert!(said[0].contains("私聊"), "not in a group: {}", said[0]);
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nobody_answering_in_time_lets_the_shopper_wait_or_go_on_with_the_bot() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-wait");
    let mut env = desk_env(&api, &dir);
    env.retain(|(key, _)| *key != "MALLBOT_SUPPORT__ANSWER_WITHIN_MINS");
    env.push(("MALLBOT_SUPPORT__ANSWER_WITHIN_MINS", "0.02".to_owned()));
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());

    api.push_update(private_text(ALICE, "人工"));
    let (thread, _) = wait_for_card(&api).await;
    let asked = |api: &FakeBotApi| {
        api.sent_to(ALICE.id)
            .into_iter()
            .find(|m| m["text"].as_str().unwrap_or_default().contains("还没有人回复"))
    };
    api.wait_until("the shopper told nobody answered yet", |api| asked(api).is_some()).await;
    let question = asked(&api).unwrap();
    let labels: Vec<String> = buttons(&question).into_iter().map(|(label, _)| label).collect();
    assert_eq!(labels, ["⏳ 继续等", "🤖 先问导购"]);

    // Keep waiting: the message says so and keeps the way back to the bot.
    api.push_update(press(ALICE, &question, &button_data(&question, "⏳ 继续等").unwrap()));
    let waiting = |api: &FakeBotApi| {
        api.sent_to(ALICE.id)
            .into_iter()
            .find(|m| m["text"].as_str().unwrap_or_default().contains("客服一回复"))
    };
    api.wait_until("the answer to waiting", |api| waiting(api).is_some()).await;
    let waiting = waiting(&api).unwrap();
    assert_eq!(buttons(&waiting).len(), 1, "{waiting}");
    api.push_update(private_text(ALICE, "我在等"));
    wait_for_relayed(&api, "我在等").await;

    // Go on with the bot: the conversation ends, noted in the topic, and the bot answers.
    api.push_update(press(ALICE, &waiting, &button_data(&waiting, "🤖 先问导购").unwrap()));
    api.wait_until("the topic told", |api| {
        in_topic(api, thread).iter().any(|m| m["text"].as_str().unwrap_or_default().contains("先问智能导购"))
    })
    .await;
    let before = api.texts_to(ALICE.id).len();
    api.push_update(private_text(ALICE, "Nike 在几楼"));
    let texts = api.wait_for_texts(ALICE.id, before + 1).await;
    assert!(texts.last().unwrap().contains("Nike"), "the bot answers again: {texts:?}");
    assert!(relayed(&api, "Nike 在几楼").is_empty(), "not relayed to the desk any more");
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn check_says_whether_the_bot_may_manage_the_desks_topics() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-check");
    let env = desk_env(&api, &dir);
    let check = |env: &[(&str, String)]| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mallbot"));
        command.arg("check").current_dir(dir.path()).env_remove("MALLBOT_CONFIG");
        for (key, value) in env {
            command.env(key, value);
        }
        let out = command.output().unwrap();
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let (code, out) = check(&env);
    let line = out.lines().find(|l| l.contains("support desk")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("manages topics"), "{line}");
    assert_eq!(code, Some(0), "{out}");

    api.without_topic_rights();
    let (code, out) = check(&env);
    let line = out.lines().find(|l| l.contains("support desk")).unwrap_or_else(|| panic!("{out}"));
    assert!(line.contains("can_manage_topics"), "{line}");
    assert_eq!(code, Some(1), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_desk_that_refuses_the_topic_tells_the_shopper_where_the_desk_is_and_a_deleted_topic_is_replaced() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-refused");
    let env = desk_env(&api, &dir);
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());

    api.fail_next(
        "createForumTopic",
        400,
        json!({"ok": false, "error_code": 400, "description": "Bad Request: not enough rights to create a topic"}),
    );
    api.push_update(private_text(ALICE, "人工"));
    let texts = api.wait_for_texts(ALICE.id, 2).await;
    assert!(texts[0].contains(CONNECTING), "{}", texts[0]);
    assert!(texts[1].contains("021-5888 0000"), "where the desk is instead: {}", texts[1]);

    // The next request opens a topic; after staff deleted it, another one.
    api.push_update(private_text(ALICE, "人工"));
    let (first, _) = wait_for_card(&api).await;
    api.push_update(topic_text(DESK, STAFF, first, "/close"));
    api.wait_until("closed", |api| api.texts_to(ALICE.id).iter().any(|t| t.contains(CLOSED))).await;
    api.fail_next(
        "reopenForumTopic",
        400,
        json!({"ok": false, "error_code": 400, "description": "Bad Request: TOPIC_ID_INVALID"}),
    );
    api.push_update(private_text(ALICE, "人工"));
    api.wait_until("a second topic", |api| api.calls("createForumTopic").len() == 2).await;
    api.wait_until("its card", |api| {
        api.sent_to(DESK)
            .iter()
            .any(|m| m["message_thread_id"].is_i64() && m["message_thread_id"] != json!(first))
    })
    .await;
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn asking_for_a_person_in_a_group_continues_in_the_private_chat() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-group");
    let env = desk_env(&api, &dir);
    let mut bot = Process::spawn("bot", &["run"], &env, dir.path());

    api.push_update(group_mention(GROUP, ALICE, "我要找人工客服"));
    let said = api.wait_for_texts(GROUP, 1).await;
    let link = buttons(&last_sent(&api, GROUP)).into_iter().find(|(_, url)| url.starts_with("https://t.me/"));
    let (_, link) = link.unwrap_or_else(|| panic!("a private-chat link: {said:?}"));
    assert!(api.calls("createForumTopic").is_empty(), "no topic from a group");
    let payload = link.rsplit('=').next().unwrap().to_owned();
    api.push_update(private_text(ALICE, &format!("/start {payload}")));
    let (_, card) = wait_for_card(&api).await;
    assert!(card["text"].as_str().unwrap().contains("Alice"), "{}", card["text"]);
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}
