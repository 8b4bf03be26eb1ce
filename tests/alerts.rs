//! Stock and price alerts end to end in one process: the real dispatcher
//! long-polls the fake Bot API, the embedded mall and the offline planner
//! behind it; the mall's stock and prices change as staff change them, the
//! event feed is read by hand (`events.poll_secs = 0`) and the paced outbox
//! flushed by hand. The tests read what the shopper saw from the fake's records.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/redis.rs"]
mod redis_store;

use std::sync::Arc;
use std::time::Duration;

use fake_bot_api::*;
use handlers::alert_book::{Alert, Want};
use mallbot::App;
use mallbot::config::Config;
use mallbot::state::{MemoryStore, StateStore};
use redis_store::{rand_suffix, redis_url};
use serde_json::Value;
use services::{MallApi, Product, ProductQuery};
use teloxide::dispatching::ShutdownToken;

const ALICE: Shopper = Shopper { id: 5001, name: "Alice" };
const BOB: Shopper = Shopper { id: 5002, name: "Bob" };
const CAROL: Shopper = Shopper { id: 5003, name: "Carol" };
const CONFIRM: &str = "✅ 确认";

struct Running {
    api: FakeBotApi,
    app: App,
    mall: Arc<services::EmbeddedMall>,
    outbox: Arc<mallbot::telegram::Outbox>,
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

    /// Reads the mall's feed once (waking alerts) and sends what the outbox holds.
    async fn read_feed(&self) -> mallbot::FeedReport {
        let feed = mallbot::telegram::event_feed(&self.app, Duration::from_secs(5));
        let report = feed.poll(&self.teller()).await.unwrap();
        feed.release().await;
        self.flush().await;
        report
    }

    async fn flush(&self) {
        // Alerts are due at paced moments: wait for the last of them.
        tokio::time::sleep(Duration::from_millis(300)).await;
        self.outbox.flush(&self.api.bot()).await;
    }

    /// The door the bot's own messages pass.
    fn door(&self) -> mallbot::Unasked {
        door(&self.app)
    }

    fn teller(&self) -> mallbot::telegram::TelegramTeller {
        mallbot::telegram::TelegramTeller {
            bot: self.api.bot(),
            app: self.app.clone(),
            outbox: self.outbox.clone(),
        }
    }
}

/// The door `app`'s own messages pass.
fn door(app: &App) -> mallbot::Unasked {
    mallbot::telegram::door(app)
}

fn alert_config() -> Config {
    let mut config = Config::default();
    config.state.url = "memory://".into();
    config.bot.rate_limit_per_minute = 0;
    config.events.poll_secs = 0;
    config
}

async fn start(config: Config) -> Running {
    start_on(config, Arc::new(MemoryStore::new())).await
}

async fn start_on(config: Config, state: Arc<dyn StateStore>) -> Running {
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    start_with(config, state, mall).await
}

async fn start_with(
    config: Config,
    state: Arc<dyn StateStore>,
    mall: Arc<services::EmbeddedMall>,
) -> Running {
    let per_sec = config.alerts.sends_per_sec;
    let app = App::with_parts(config, mall.clone(), state).expect("app");
    let api = FakeBotApi::start().await;
    let outbox =
        Arc::new(mallbot::telegram::Outbox::new(app.state.clone(), Duration::from_secs(600)).paced(per_sec));
    let mut dispatcher = mallbot::telegram::dispatcher(api.bot(), app.clone()).build();
    let shutdown = dispatcher.shutdown_token();
    let task = tokio::spawn(async move { dispatcher.dispatch().await });
    Running { api, app, mall, outbox, shutdown, task }
}

/// The Nike running shoe the chat shows first, read from the mall.
async fn nike_shoe(mall: &dyn MallApi) -> Product {
    let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..ProductQuery::default() };
    let hit = mall.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
    mall.get_product(&hit.id).await.unwrap()
}

fn sku(product: &Product, label: &str) -> String {
    product.skus.iter().find(|s| s.label == label).map(|s| s.sku_id.clone()).unwrap()
}

#[tokio::test]
async fn a_size_alert_set_in_chat_is_told_once_when_that_size_comes_back_and_a_price_alert_with_the_figures()
{
    let bot = start(alert_config()).await;
    let chat = ALICE.id;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    let (s42, s43) = (sku(&shoe, "42"), sku(&shoe, "43"));
    bot.mall.set_stock(&s42, 0).unwrap();
    bot.mall.set_stock(&s43, 0).unwrap();

    bot.api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋"));
    bot.api.wait_for_texts(chat, 1).await;
    bot.api.push_update(private_text(ALICE, "42码到货了告诉我"));
    let said = bot.api.wait_for_texts(chat, 2).await;
    assert!(
        said[1].contains("到货") && said[1].contains("42码") && said[1].contains(&shoe.brief.name),
        "{}",
        said[1]
    );
    bot.press(chat, ALICE, CONFIRM);
    let said = bot.api.wait_for_texts(chat, 3).await;
    assert!(said[2].contains("到货时我会告诉您") && said[2].contains("30 天"), "{}", said[2]);

    // Another size back: not this alert.
    bot.mall.set_stock(&s43, 4).unwrap();
    bot.read_feed().await;
    assert_eq!(bot.api.texts_to(chat).len(), 3, "size 43 does not wake a size-42 alert");

    // 42 back: one message, with the size and the price, and its buttons.
    bot.mall.set_stock(&s42, 2).unwrap();
    let report = bot.read_feed().await;
    assert_eq!(report.told, 1, "{report:?}");
    let texts = bot.api.texts_to(chat);
    assert_eq!(texts.len(), 4, "{texts:?}");
    let price = format!("¥{}", services::format_yuan(shoe.brief.price_cents));
    assert!(
        texts[3].contains("到货啦") && texts[3].contains("42码") && texts[3].contains(&price),
        "{}",
        texts[3]
    );
    let labels: Vec<String> = buttons(&bot.last_sent(chat)).into_iter().map(|(l, _)| l).collect();
    assert!(labels.iter().any(|l| l == "🛒 加入购物车") && labels.len() == 2, "{labels:?}");

    // Back and forth: gone and back again within minutes, and the feed read again — no second message.
    bot.mall.set_stock(&s42, 0).unwrap();
    bot.mall.set_stock(&s42, 3).unwrap();
    bot.read_feed().await;
    assert_eq!(
        bot.app
            .alerts
            .poll(Some(bot.app.mall.as_ref()), &bot.door(), &bot.teller(), Duration::from_secs(60))
            .await
            .unwrap()
            .told,
        0
    );
    bot.flush().await;
    assert_eq!(bot.api.texts_to(chat).len(), 4, "told once");

    // 🛒 under the alert: the usual confirmation, then the cart holds it.
    bot.press(chat, ALICE, "🛒 加入购物车");
    let said = bot.api.wait_for_texts(chat, 5).await;
    assert!(said[4].contains("加入购物车") && said[4].contains("42"), "{}", said[4]);
    bot.press(chat, ALICE, CONFIRM);
    bot.api.wait_for_texts(chat, 6).await;
    let cart = bot.app.mall.get_cart(&services::Shopper::new("telegram", ALICE.id)).await.unwrap();
    assert_eq!(cart.items.len(), 1, "{cart:?}");
    assert_eq!(cart.items[0].sku_id.as_deref(), Some(s42.as_str()));

    // A price alert: "降到 400 以下告诉我", then the price drops to 399.
    bot.api.push_update(private_text(ALICE, "帮我买一双 Nike 跑鞋"));
    bot.api.wait_for_texts(chat, 7).await;
    bot.api.push_update(private_text(ALICE, "降到 400 以下告诉我"));
    let said = bot.api.wait_for_texts(chat, 8).await;
    assert!(said[7].contains("¥400"), "{}", said[7]);
    bot.press(chat, ALICE, CONFIRM);
    bot.api.wait_for_texts(chat, 9).await;
    bot.mall.set_product_price(&shoe.brief.id, 45_000).unwrap();
    bot.read_feed().await;
    assert_eq!(bot.api.texts_to(chat).len(), 9, "¥450 is not under ¥400");
    bot.mall.set_product_price(&shoe.brief.id, 39_900).unwrap();
    bot.read_feed().await;
    let texts = bot.api.texts_to(chat);
    assert_eq!(texts.len(), 10, "{texts:?}");
    assert!(texts[9].contains("降价啦") && texts[9].contains("¥450 → ¥399"), "{}", texts[9]);
    bot.mall.set_product_price(&shoe.brief.id, 39_800).unwrap();
    bot.read_feed().await;
    assert_eq!(bot.api.texts_to(chat).len(), 10, "a price alert fires once and ends");
    bot.stop().await;
}

/// An alert of `user` on `shoe`, kept as the tool keeps it.
async fn add_alert(app: &App, user: i64, lang: &str, shoe: &Product, want: Want) -> Alert {
    let alert = Alert {
        id: String::new(),
        user: format!("telegram:{user}"),
        lang: lang.to_owned(),
        product_id: shoe.brief.id.clone(),
        product_name: shoe.brief.name.clone(),
        store_id: shoe.brief.store_id.clone(),
        want,
        created: 0,
        expires: 0,
    };
    app.alerts.add(alert).await.unwrap()
}

#[tokio::test]
async fn alerts_that_run_out_say_one_last_word_in_the_shoppers_language() {
    let bot = start(alert_config()).await;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    let want = Want::Restock { size: Some("44".into()) };
    let mut kept = Vec::new();
    for (user, lang) in [(ALICE.id, "zh"), (BOB.id, "zh-hant"), (CAROL.id, "en")] {
        kept.push(add_alert(&bot.app, user, lang, &shoe, want.clone()).await);
    }
    // A day past their 30 days.
    for alert in &kept {
        let ran_out = Alert { expires: mallbot::state::unix_now() - 86_400, ..alert.clone() };
        let key = format!("alerts:a:{}", alert.id);
        bot.app
            .state
            .put_value(&key, &serde_json::to_string(&ran_out).unwrap(), Duration::from_secs(600))
            .await
            .unwrap();
    }
    let report =
        bot.app.alerts.poll(None, &bot.door(), &bot.teller(), Duration::from_secs(60)).await.unwrap();
    assert_eq!(report.told, 3, "{report:?}");
    bot.flush().await;
    let (zh, hant, en) = (bot.api.texts_to(ALICE.id), bot.api.texts_to(BOB.id), bot.api.texts_to(CAROL.id));
    assert!(zh.len() == 1 && zh[0].contains("您的提醒已到期") && zh[0].contains("44码"), "{zh:?}");
    assert!(hant.len() == 1 && hant[0].contains("您的提醒已到期") && hant[0].contains("44碼"), "{hant:?}");
    assert!(en.len() == 1 && en[0].contains("Your alert ran out") && en[0].contains("size 44"), "{en:?}");
    assert!(bot.app.alerts.list(&format!("telegram:{}", ALICE.id)).await.unwrap().is_empty(), "ended");
    let again = bot.app.alerts.poll(None, &bot.door(), &bot.teller(), Duration::from_secs(60)).await.unwrap();
    assert_eq!(again.told, 0, "the last word is said once");
    bot.stop().await;
}

#[tokio::test]
async fn the_alerts_command_lists_them_and_a_button_removes_one_in_english() {
    let bot = start(alert_config()).await;
    let chat = CAROL.id;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    bot.api.push_update(private_text(CAROL, "/lang en"));
    bot.api.wait_for_texts(chat, 1).await;
    bot.api.push_update(private_text(CAROL, "/alerts"));
    let said = bot.api.wait_for_texts(chat, 2).await;
    assert!(said[1].contains("You have no alerts"), "{}", said[1]);

    add_alert(&bot.app, chat, "en", &shoe, Want::Restock { size: Some("44".into()) }).await;
    add_alert(&bot.app, chat, "en", &shoe, Want::Price { at_most_cents: Some(40_000), was_cents: 69_900 })
        .await;
    bot.api.push_update(private_text(CAROL, "/alerts"));
    let said = bot.api.wait_for_texts(chat, 3).await;
    assert!(
        said[2].contains("Your alerts (2)") && said[2].contains("back in stock in size 44"),
        "{}",
        said[2]
    );
    assert!(said[2].contains("at ¥400 or less"), "{}", said[2]);
    let list = bot.last_sent(chat);
    assert_eq!(buttons(&list).len(), 2, "{:?}", buttons(&list));

    bot.press(chat, CAROL, "❌ Cancel 1");
    let said = bot.api.wait_for_texts(chat, 4).await;
    assert!(said[3].starts_with("Alert cancelled") && said[3].contains("size 44"), "{}", said[3]);
    // The same button again: the alert is gone, said on the button.
    let data = button_data(&list, "❌ Cancel 1").unwrap();
    bot.api.push_update(press(CAROL, &list, &data));
    bot.api
        .wait_until("the answer to the second press", |api| {
            api.calls("answerCallbackQuery")
                .iter()
                .any(|c| c["text"].as_str().is_some_and(|t| t.contains("no longer there")))
        })
        .await;
    // Someone else's press removes nothing.
    let data = button_data(&list, "❌ Cancel 2").unwrap();
    bot.api.push_update(press(BOB, &list, &data));
    bot.api.push_update(private_text(CAROL, "/alerts"));
    let said = bot.api.wait_for_texts(chat, 5).await;
    assert!(said[4].contains("Your alerts (1)") && said[4].contains("¥400"), "{}", said[4]);
    bot.stop().await;
}

#[tokio::test]
async fn past_the_cap_the_shopper_is_told_plainly_in_traditional_chinese_and_nothing_is_asked() {
    let mut config = alert_config();
    config.alerts.max_per_user = 1;
    let bot = start(config).await;
    let chat = BOB.id;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    bot.mall.set_stock(&sku(&shoe, "42"), 0).unwrap();
    // One alert already, on another product: the cap is reached.
    let other = {
        let query = ProductQuery { keyword: Some("Adidas".into()), ..ProductQuery::default() };
        let hit = bot.app.mall.search_products(&query).await.unwrap().items.remove(0);
        bot.app.mall.get_product(&hit.id).await.unwrap()
    };
    assert_ne!(other.brief.id, shoe.brief.id);
    add_alert(&bot.app, chat, "zh-hant", &other, Want::Price { at_most_cents: Some(100), was_cents: 69_900 })
        .await;
    bot.api.push_update(private_text(BOB, "/lang zh-hant"));
    bot.api.wait_for_texts(chat, 1).await;
    bot.api.push_update(private_text(BOB, "幫我買一雙 Nike 跑鞋"));
    bot.api.wait_for_texts(chat, 2).await;
    bot.api.push_update(private_text(BOB, "42碼到貨了告訴我"));
    let said = bot.api.wait_for_texts(chat, 3).await;
    assert!(said[2].contains("已達上限") && said[2].contains("/alerts"), "{}", said[2]);
    assert!(buttons(&bot.last_sent(chat)).iter().all(|(l, _)| !l.contains("確認")), "nothing to confirm");
    bot.stop().await;
}

#[tokio::test]
async fn a_restart_between_the_event_and_the_send_still_delivers_the_alert_once() {
    let dir = std::env::temp_dir().join(format!("mallbot-alerts-{}", rand_suffix()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = format!("sqlite://{}", dir.join("state.db").display());
    let state = mallbot::state::open(&url).await.unwrap();
    let bot = start_on(alert_config(), state.clone()).await;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    let s44 = sku(&shoe, "44");
    bot.mall.set_stock(&s44, 0).unwrap();
    add_alert(&bot.app, ALICE.id, "zh", &shoe, Want::Restock { size: Some("44".into()) }).await;
    bot.mall.set_stock(&s44, 1).unwrap();
    // The feed read and the alert queued, but not sent: the process stops here.
    let feed = mallbot::telegram::event_feed(&bot.app, Duration::from_secs(5));
    assert_eq!(feed.poll(&bot.teller()).await.unwrap().told, 1);
    feed.release().await;
    assert!(bot.api.texts_to(ALICE.id).is_empty());
    // Another process on the same state: it reads the feed again and flushes.
    let reopened = mallbot::state::open(&url).await.unwrap();
    let app = App::with_parts(alert_config(), bot.app.mall.clone(), reopened.clone()).unwrap();
    let feed = mallbot::telegram::event_feed(&app, Duration::from_secs(5));
    let outbox = Arc::new(mallbot::telegram::Outbox::new(reopened, Duration::from_secs(600)).paced(20));
    let teller =
        mallbot::telegram::TelegramTeller { bot: bot.api.bot(), app: app.clone(), outbox: outbox.clone() };
    feed.poll(&teller).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    outbox.flush(&bot.api.bot()).await;
    outbox.flush(&bot.api.bot()).await;
    let texts = bot.api.texts_to(ALICE.id);
    assert_eq!(texts.len(), 1, "{texts:?}");
    assert!(texts[0].contains("44码"), "{}", texts[0]);
    bot.stop().await;
    std::fs::remove_dir_all(&dir).ok();
}

#[tokio::test]
async fn two_instances_on_one_redis_tell_an_alert_once() {
    let Some(url) = redis_url("alerts", "the two-instance alert test").await else { return };
    let bot = start(alert_config()).await;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    let s45 = sku(&shoe, "45");
    bot.mall.set_stock(&s45, 0).unwrap();
    let instance = || async {
        let state = mallbot::state::open(&url).await.unwrap();
        let app = App::with_parts(alert_config(), bot.app.mall.clone(), state.clone()).unwrap();
        let outbox = Arc::new(mallbot::telegram::Outbox::new(state, Duration::from_secs(600)).paced(20));
        let teller = mallbot::telegram::TelegramTeller {
            bot: bot.api.bot(),
            app: app.clone(),
            outbox: outbox.clone(),
        };
        (mallbot::telegram::event_feed(&app, Duration::from_secs(5)), teller, outbox, app)
    };
    let (feed_a, teller_a, outbox_a, app_a) = instance().await;
    let (feed_b, teller_b, outbox_b, app_b) = instance().await;
    for user in [ALICE.id, BOB.id, CAROL.id] {
        add_alert(&app_a, user, "zh", &shoe, Want::Restock { size: Some("45".into()) }).await;
    }
    bot.mall.set_stock(&s45, 2).unwrap();
    for _ in 0..3 {
        let (a, b) = tokio::join!(feed_a.poll(&teller_a), feed_b.poll(&teller_b));
        let (a, b) = (a.unwrap(), b.unwrap());
        assert!(a.not_holder || b.not_holder, "one instance holds the feed: {a:?} {b:?}");
        feed_a.release().await;
        feed_b.release().await;
        // The cursor lost: whoever reads next reads the restock again.
        app_a.state.put_value("events:cursor", "", Duration::from_millis(1)).await.unwrap();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let (door_a, door_b) = (door(&app_a), door(&app_b));
        let (a, b) = tokio::join!(
            app_a.alerts.poll(Some(app_a.mall.as_ref()), &door_a, &teller_a, Duration::from_secs(60)),
            app_b.alerts.poll(Some(app_b.mall.as_ref()), &door_b, &teller_b, Duration::from_secs(60))
        );
        assert_eq!(a.unwrap().told + b.unwrap().told, 0, "the re-read finds them told already");
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let api = bot.api.bot();
    tokio::join!(outbox_a.flush(&api), outbox_b.flush(&api));
    tokio::join!(outbox_a.flush(&api), outbox_b.flush(&api));
    for user in [ALICE.id, BOB.id, CAROL.id] {
        let texts = bot.api.texts_to(user);
        assert_eq!(texts.len(), 1, "{user}: {texts:?}");
        assert!(texts[0].contains("45码"), "{}", texts[0]);
    }
    bot.stop().await;
}

#[tokio::test]
async fn in_english_basic_mode_sets_an_alert_for_a_bare_size_and_tells_it_in_english() {
    let bot = start(alert_config()).await;
    let chat = CAROL.id;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    let s42 = sku(&shoe, "42");
    bot.mall.set_stock(&s42, 0).unwrap();
    bot.api.push_update(private_text(CAROL, "/lang en"));
    bot.api.wait_for_texts(chat, 1).await;
    bot.api.push_update(private_text(CAROL, "I want Nike running shoes"));
    bot.api.wait_for_texts(chat, 2).await;
    bot.api.push_update(private_text(CAROL, "let me know when it's back in 42"));
    let said = bot.api.wait_for_texts(chat, 3).await;
    assert!(said[2].contains("back in stock in size 42") && said[2].contains("30 days"), "{}", said[2]);
    bot.press(chat, CAROL, "✅ Confirm");
    let said = bot.api.wait_for_texts(chat, 4).await;
    assert!(said[3].contains("I'll tell you when"), "{}", said[3]);
    bot.mall.set_stock(&s42, 1).unwrap();
    bot.read_feed().await;
    let texts = bot.api.texts_to(chat);
    assert_eq!(texts.len(), 5, "{texts:?}");
    assert!(texts[4].starts_with("🔔 Back in stock") && texts[4].contains("size 42"), "{}", texts[4]);
    let labels: Vec<String> = buttons(&bot.last_sent(chat)).into_iter().map(|(l, _)| l).collect();
    assert!(labels.iter().any(|l| l == "🛒 Add to cart"), "{labels:?}");
    bot.stop().await;
}

#[tokio::test]
async fn an_alert_is_not_told_to_a_shopper_no_longer_allowed() {
    let mut config = alert_config();
    config.bot.allowed_users = vec![BOB.id];
    let bot = start(config).await;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    let s44 = sku(&shoe, "44");
    bot.mall.set_stock(&s44, 0).unwrap();
    // Set while allowed; taken off the list since.
    add_alert(&bot.app, ALICE.id, "zh", &shoe, Want::Restock { size: Some("44".into()) }).await;
    add_alert(&bot.app, BOB.id, "zh", &shoe, Want::Restock { size: Some("44".into()) }).await;

    bot.mall.set_stock(&s44, 5).unwrap();
    bot.read_feed().await;
    assert!(bot.api.texts_to(ALICE.id).is_empty(), "{:?}", bot.api.texts_to(ALICE.id));
    let bob = bot.api.texts_to(BOB.id);
    assert!(bob.len() == 1 && bob[0].contains("44码"), "the allowed shopper is told: {bob:?}");
    bot.stop().await;
}

#[tokio::test]
async fn past_the_cap_another_size_of_the_same_product_is_refused_before_any_confirmation() {
    let mut config = alert_config();
    config.alerts.max_per_user = 1;
    let bot = start(config).await;
    let chat = CAROL.id;
    let shoe = nike_shoe(bot.app.mall.as_ref()).await;
    bot.mall.set_stock(&sku(&shoe, "42"), 0).unwrap();
    bot.mall.set_stock(&sku(&shoe, "43"), 0).unwrap();
    // The one alert allowed: size 43 of the same shoe.
    add_alert(&bot.app, chat, "zh", &shoe, Want::Restock { size: Some("43".into()) }).await;
    bot.api.push_update(private_text(CAROL, "帮我买一双 Nike 跑鞋"));
    bot.api.wait_for_texts(chat, 1).await;
    // Size 42 is another alert: past the cap, told at once, nothing to confirm.
    bot.api.push_update(private_text(CAROL, "42码到货了告诉我"));
    let said = bot.api.wait_for_texts(chat, 2).await;
    assert!(said[1].contains("上限") && said[1].contains("/alerts"), "{}", said[1]);
    assert!(buttons(&bot.last_sent(chat)).iter().all(|(l, _)| !l.contains("确认")), "nothing to confirm");
    assert_eq!(bot.app.alerts.list(&format!("telegram:{chat}")).await.unwrap().len(), 1);
    bot.stop().await;
}
