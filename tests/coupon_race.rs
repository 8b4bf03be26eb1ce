//! The last coupons, raced for through the real binary: a `mallbot
//! mall-server` child serving a folder mall whose coupon has exactly 100,
//! two `mallbot run` instances sharing one Redis state store and that mall,
//! each on a fake Bot API of its own feeding it half of 1 000 shoppers. Every
//! shopper asks for the coupon and presses ✅; a few press it on both
//! instances. The test waits until both instances have ended every update
//! (their `mallbot_updates_total`), then checks what each shopper read and
//! what the mall holds.
//!
//! Redis is expected at 127.0.0.1:6379; without it the test is skipped with
//! a loud line, unless `CI=true`, where its absence fails it.

#![allow(clippy::unwrap_used)]

#[path = "support/crowd.rs"]
mod crowd;
#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;
#[path = "support/redis.rs"]
mod redis_store;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crowd::*;
use fake_bot_api::*;
use process::*;
use redis_store::*;
use services::{HttpMall, HttpMallConfig, MallApi};

const CONFIRM: &str = "✅ 确认";
const MALL_KEY: &str = "mall-key-race";
const STAFF_KEY: &str = "staff-key-race";
const CLOCK: &str = "2026-11-25T10:00:00+08:00";
const COUPON_ID: &str = "rv-last-100";
const COUPON_TITLE: &str = "限量满100减20";
/// How many there are.
const TOTAL: usize = 100;
/// How many shoppers want one.
const SHOPPERS: usize = 1_000;
/// Shoppers (of instance A's half) whose one press reaches both instances.
const TWICE: usize = 10;
/// The longest each phase of the crowd may take.
const PHASE: Duration = Duration::from_secs(120);

/// Riverside Mall with one coupon, of exactly [`TOTAL`].
fn loyalty_json() -> String {
    serde_json::json!({
        "coupons": [{
            "coupon_id": COUPON_ID,
            "title": COUPON_TITLE,
            "title_en": "¥20 off ¥100, limited",
            "total": TOTAL,
            "valid_from": "2026-01-01T00:00:00+08:00",
            "valid_to": "2027-12-31T23:59:59+08:00",
            "min_spend_cents": 10000,
            "discount_cents": 2000
        }]
    })
    .to_string()
}

/// A `mall-server` child on a copy of Riverside Mall, and the staff's client of it.
struct Mall {
    url: String,
    staff: HttpMall,
    _server: Process,
}

impl Mall {
    async fn start(dir: &TempDir) -> Mall {
        let folder = dir.path().join("riverside");
        let example = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/malls/riverside");
        copy_dir(&example, &folder);
        std::fs::write(folder.join("loyalty.json"), loyalty_json()).unwrap();
        let addr = free_addr();
        let env = [
            ("MALLBOT_MALL__DATA", folder.to_str().unwrap().to_owned()),
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

    /// How many of the coupon are left, as the mall lists it.
    async fn left(&self) -> u32 {
        let coupons = self.staff.list_coupons().await.unwrap().items;
        coupons.iter().find(|c| c.coupon_id == COUPON_ID).unwrap().left
    }

    /// How many of the coupon `shopper` holds, asked as the shopper.
    async fn held_by(&self, shopper: i64) -> usize {
        let me = services::Shopper::new("telegram", shopper);
        let mine = self.staff.my_coupons(&me).await.unwrap().items;
        mine.iter().filter(|c| c.coupon.coupon_id == COUPON_ID).count()
    }
}

/// An instance on a fake Bot API of its own, with its ops endpoints.
struct Instance {
    api: FakeBotApi,
    ops: std::net::SocketAddr,
    bot: Process,
}

impl Instance {
    async fn start(name: &str, mall: &Mall, state_url: &str, dir: &TempDir) -> Instance {
        let api = FakeBotApi::start().await;
        let (ops_var, ops) = ops_env();
        let mut env = bot_env(&api);
        env.extend([
            ops_var,
            ("MALLBOT_STATE__URL", state_url.to_owned()),
            ("MALLBOT_MALL__BACKEND", "http".to_owned()),
            ("MALLBOT_MALL__BASE_URL", mall.url.clone()),
            ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
            ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
            ("MALLBOT_CLOCK", CLOCK.to_owned()),
        ]);
        let bot = Process::spawn(name, &["run"], &env, dir.path());
        bot.wait_for_log("connected to telegram").await;
        Instance { api, ops, bot }
    }
}

/// A timing of the race, written past the test harness's capture so that it
/// shows in CI's log when the test passes too.
fn figure(line: String) {
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("coupon race: {line}\n").as_bytes());
}

/// Shopper `i` talks to instance A when `i` is even, to B when odd.
fn on_a(i: usize) -> bool {
    i.is_multiple_of(2)
}

/// Whether shopper `i`'s press also reaches instance B: the first [`TWICE`] of A's.
fn twice(i: usize) -> bool {
    on_a(i) && i < 2 * TWICE
}

fn shopper(i: usize) -> Shopper {
    Shopper { id: 500_000 + i as i64, name: "Shopper" }
}

/// What a shopper was told after pressing ✅.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Told {
    Got,
    Gone,
    Other,
}

fn told(text: &str) -> Told {
    if text.contains(&format!("已领取「{COUPON_TITLE}」")) {
        Told::Got
    } else if text.contains(&format!("「{COUPON_TITLE}」已经被领完了")) {
        Told::Gone
    } else {
        Told::Other
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_last_hundred_coupons_go_to_exactly_a_hundred_of_a_thousand_shoppers_on_two_instances() {
    let Some(state_url) = redis_url("race", "the coupon race on two instances").await else { return };
    let dir = TempDir::new("coupon-race");
    let mall = Mall::start(&dir).await;
    assert_eq!(mall.left().await as usize, TOTAL);
    let a = Instance::start("instance A", &mall, &state_url, &dir).await;
    let b = Instance::start("instance B", &mall, &state_url, &dir).await;
    let home = |i: usize| if on_a(i) { &a } else { &b };
    let all: Vec<usize> = (0..SHOPPERS).collect();
    let chats_of =
        |on: bool| -> Vec<i64> { all.iter().filter(|i| on_a(**i) == on).map(|i| shopper(*i).id).collect() };
    let (chats_a, chats_b) = (chats_of(true), chats_of(false));
    let half = (SHOPPERS / 2) as u64;

    // Everyone asks: each is shown the coupon with ✅ / ❎.
    let started = Instant::now();
    for &i in &all {
        home(i).api.push_update(private_text(shopper(i), &format!("领取{COUPON_TITLE}的券")));
    }
    wait_for_all_ended(&[(a.ops, half), (b.ops, half)], PHASE).await;
    let asked = started.elapsed();
    figure(format!(
        "{SHOPPERS} asks answered with a confirmation in {:.1} s ({:.0}/s)",
        asked.as_secs_f64(),
        SHOPPERS as f64 / asked.as_secs_f64()
    ));
    let (shown_a, shown_b) = (shown_by_chat(&a.api, &chats_a), shown_by_chat(&b.api, &chats_b));
    let mut presses = Vec::new();
    for &i in &all {
        let user = shopper(i);
        let shown = if on_a(i) { &shown_a[&user.id] } else { &shown_b[&user.id] };
        assert_eq!(shown.len(), 1, "shopper {i} was shown one question: {shown:?}");
        let (id, text, message) = &shown[0];
        assert!(text.contains(COUPON_TITLE), "shopper {i}: {text}");
        let data = button_data(message, CONFIRM).unwrap_or_else(|| panic!("no {CONFIRM} on {message}"));
        presses.push((i, *id, press(user, message, &data)));
    }

    // Everyone presses ✅ at once; the first TWICE of A's half press on both.
    let started = Instant::now();
    for (i, _, update) in &presses {
        home(*i).api.push_update(update.clone());
        if twice(*i) {
            b.api.push_update(update.clone());
        }
    }
    wait_for_all_ended(&[(a.ops, 2 * half), (b.ops, 2 * half + TWICE as u64)], PHASE).await;
    let claimed = started.elapsed();
    figure(format!(
        "{SHOPPERS} presses of ✅ ({TWICE} of them on both instances) answered in {:.1} s ({:.0} claims/s)",
        claimed.as_secs_f64(),
        SHOPPERS as f64 / claimed.as_secs_f64()
    ));

    // What each shopper read after pressing: one answer, on either instance.
    let (shown_a, shown_b) = (shown_by_chat(&a.api, &chats_a), shown_by_chat(&b.api, &chats_b));
    let twice_chats: Vec<i64> = (0..TWICE).map(|k| shopper(2 * k).id).collect();
    let on_b_too = shown_by_chat(&b.api, &twice_chats);
    let mut counts: HashMap<Told, usize> = HashMap::new();
    let mut told_got = Vec::new();
    let mut others = Vec::new();
    for (i, question, _) in &presses {
        let user = shopper(*i);
        let home_shown = if on_a(*i) { &shown_a[&user.id] } else { &shown_b[&user.id] };
        // Everything but the question on its own instance; on the other (the
        // second press) everything: that instance never asked.
        let mut answers: Vec<&str> =
            home_shown.iter().filter(|(id, _, _)| id != question).map(|(_, t, _)| t.as_str()).collect();
        if let Some(other) = on_b_too.get(&user.id).filter(|_| twice(*i)) {
            answers.extend(other.iter().map(|(_, t, _)| t.as_str()));
        }
        let shown = (home_shown, on_b_too.get(&user.id));
        assert_eq!(answers.len(), 1, "shopper {i} read one answer to the press: {shown:?}");
        let kind = told(answers[0]);
        *counts.entry(kind).or_default() += 1;
        match kind {
            Told::Got => told_got.push(user.id),
            Told::Other => others.push(format!("shopper {i}: {}", answers[0])),
            Told::Gone => {}
        }
    }
    assert!(others.is_empty(), "{} shoppers were told neither:\n{}", others.len(), others.join("\n"));
    assert_eq!(counts.get(&Told::Got), Some(&TOTAL), "told they got it: {counts:?}");
    assert_eq!(counts.get(&Told::Gone), Some(&(SHOPPERS - TOTAL)), "told it is gone: {counts:?}");

    // The second press of a shopper who pressed on both: told it is being
    // (or was) done, never run again.
    let (answers_a, answers_b) = (press_answers(&a.api), press_answers(&b.api));
    for (i, _, update) in presses.iter().filter(|(i, _, _)| twice(*i)) {
        let query = query_id(update);
        let mut alerts: Vec<String> = answers_a.get(&query).cloned().unwrap_or_default();
        alerts.extend(answers_b.get(&query).cloned().unwrap_or_default());
        alerts.sort();
        assert_eq!(alerts.len(), 2, "shopper {i}'s press answered on both instances: {alerts:?}");
        assert_eq!(alerts[0], "", "one press carried it out: {alerts:?}");
        assert!(
            alerts[1].contains("正在处理中") || alerts[1].contains("已经处理过了"),
            "shopper {i}'s other press: {alerts:?}"
        );
    }

    // What the mall holds: exactly the shoppers told so, one each, none left.
    assert_eq!(mall.left().await, 0, "none left");
    let mut holders = Vec::new();
    for &i in &all {
        let id = shopper(i).id;
        match mall.held_by(id).await {
            0 => {}
            1 => holders.push(id),
            n => panic!("shopper {i} holds {n} of the coupon"),
        }
    }
    told_got.sort();
    assert_eq!(holders.len(), TOTAL, "holders in the mall");
    assert_eq!(holders, told_got, "the mall's holders are the shoppers told they got it");
    drop((a.bot, b.bot));
}
