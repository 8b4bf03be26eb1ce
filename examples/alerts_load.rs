//! Alert load: N shoppers wait for one product to come back in one size; the
//! real `mallbot run` (a child, on a loopback fake Bot API and a
//! `mallbot mall-server` child over HTTP) hears the restock from the mall's
//! feed and tells every one of them, while a few other shoppers chat.
//!
//! The alerts are written to the bot's state store before it starts (as the
//! tool writes them); the restock is a staff call to the mall. Prints: alerts
//! delivered, shoppers told twice, how long the wave took, the most alert
//! messages and the most messages of any kind the Bot API got in any one
//! second (sliding), the most any one chat got in a second, and the chat
//! answers' latency (update handed out → answer sent) before and during the
//! wave, p50/p99.
//!
//! Run: `cargo build && cargo run --example alerts_load -- --bot target/debug/mallbot`

#![allow(clippy::unwrap_used)]

#[path = "../tests/support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/measure.rs"]
mod measure;

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Parser;
use fake_bot_api::{FakeBotApi, Shopper};
use handlers::alert_book::{Alert, Want};
use serde_json::Value;
use services::{HttpMall, HttpMallConfig, MallApi, ProductQuery};

#[derive(Parser, Debug)]
#[command(name = "alerts_load")]
struct Options {
    /// Shoppers waiting for the restock.
    #[arg(long, default_value_t = 10_000)]
    alerts: usize,
    /// Shoppers chatting meanwhile (one message every `--chat-every-ms` each).
    #[arg(long, default_value_t = 10)]
    chats: usize,
    #[arg(long, default_value_t = 2_000)]
    chat_every_ms: u64,
    /// `alerts.sends_per_sec` of the bot.
    #[arg(long, default_value_t = 20)]
    per_sec: u32,
    /// Seconds of chat before the restock (the latency baseline).
    #[arg(long, default_value_t = 20)]
    baseline_secs: u64,
    /// Give up after this many seconds.
    #[arg(long, default_value_t = 1_200)]
    timeout_secs: u64,
    /// The `mallbot` binary (default `target/release/mallbot`).
    #[arg(long)]
    bot: Option<PathBuf>,
}

const FIRST_WAITER: i64 = 1_000_000;
const FIRST_CHATTER: i64 = 500;
const MALL_KEY: &str = "load-mall-key";
const STAFF_KEY: &str = "load-staff-key";

fn free_port() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

async fn wait_for(addr: &str) {
    for _ in 0..400 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("nothing listens on {addr}");
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let options = Options::parse();
    let bot_bin = measure::bot_binary(options.bot.as_deref())?;
    let dir = std::env::temp_dir().join(format!("mallbot-alerts-load-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let state_url = format!("sqlite://{}", dir.join("state.db").display());

    // The mall, over HTTP.
    let mall_addr = free_port();
    let mall_db = dir.join("mall.db").display().to_string();
    let mut mall_cmd = tokio::process::Command::new(&bot_bin);
    measure::bot_command(
        &mut mall_cmd,
        &["mall-server", "--listen", &mall_addr],
        &dir,
        [
            ("MALLBOT_MALL__EMBEDDED_DB", mall_db.as_str()),
            ("MALLBOT_MALL__API_KEY", MALL_KEY),
            ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY),
        ],
        false,
    );
    let _mall_server = mall_cmd.spawn()?;
    wait_for(&mall_addr).await;
    let mall_url = format!("http://{mall_addr}");
    let staff = HttpMall::new(HttpMallConfig::new(mall_url.clone(), MALL_KEY.to_owned()))?
        .with_staff_key(STAFF_KEY)?;
    let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..ProductQuery::default() };
    let hit = staff.search_products(&query).await?.items.into_iter().find(|p| p.in_stock).unwrap();
    let shoe = staff.get_product(&hit.id).await?;
    let sku = shoe.skus.iter().find(|s| s.label == "42").unwrap().sku_id.clone();
    staff.set_stock(&shoe.brief.id, Some(sku.clone()), 0).await?;

    // The waiting shoppers' alerts, kept as the tool keeps them.
    let seeded = Instant::now();
    {
        let state = mallbot::state::open(&state_url).await?;
        let settings = mallbot::config::AlertsConfig::default();
        let alerts = mallbot::Alerts::new(state, settings);
        for i in 0..options.alerts as i64 {
            let alert = Alert {
                id: String::new(),
                user: format!("telegram:{}", FIRST_WAITER + i),
                lang: "zh".into(),
                product_id: shoe.brief.id.clone(),
                product_name: shoe.brief.name.clone(),
                store_id: shoe.brief.store_id.clone(),
                want: Want::Restock { size: Some("42".into()) },
                created: 0,
                expires: 0,
            };
            alerts.add(alert).await.map_err(|e| anyhow::anyhow!("{e:?}"))?;
        }
    }
    println!("{} alerts set in {:.1} s", options.alerts, seeded.elapsed().as_secs_f64());

    // The bot.
    let api = Arc::new(FakeBotApi::start().await);
    let api_url = api.url.to_string();
    let per_sec = options.per_sec.to_string();
    let mut bot_cmd = tokio::process::Command::new(&bot_bin);
    measure::bot_command(
        &mut bot_cmd,
        &["run"],
        &dir,
        [
            ("MALLBOT_TELEGRAM__TOKEN", "123:TEST"),
            ("MALLBOT_TELEGRAM__API_URL", api_url.as_str()),
            ("MALLBOT_STATE__URL", state_url.as_str()),
            ("MALLBOT_MALL__BACKEND", "http"),
            ("MALLBOT_MALL__BASE_URL", mall_url.as_str()),
            ("MALLBOT_MALL__API_KEY", MALL_KEY),
            ("MALLBOT_EVENTS__POLL_SECS", "1"),
            ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0"),
            ("MALLBOT_ALERTS__SENDS_PER_SEC", per_sec.as_str()),
            ("MALLBOT_TELEGRAM__OUTBOX_MAX_AGE_SECS", "3600"),
        ],
        false,
    );
    let bot = bot_cmd.spawn()?;
    let pid = bot.id().unwrap_or(0);
    let ticks = measure::clock_ticks();

    // The chatting shoppers: one message each every `chat_every_ms`.
    let asked: Arc<std::sync::Mutex<Vec<(i64, i64)>>> = Arc::default();
    let chatting = {
        let (api, asked) = (api.clone(), asked.clone());
        let (chats, every) = (options.chats, Duration::from_millis(options.chat_every_ms));
        tokio::spawn(async move {
            for round in 0.. {
                for c in 0..chats as i64 {
                    let shopper = Shopper { id: FIRST_CHATTER + c, name: "Chatter" };
                    let text = if round % 2 == 0 { "Nike 店在哪" } else { "Adidas 几楼" };
                    let id = api.push_update(fake_bot_api::private_text(shopper, text));
                    asked.lock().unwrap().push((shopper.id, id));
                }
                tokio::time::sleep(every).await;
            }
        })
    };
    tokio::time::sleep(Duration::from_secs(options.baseline_secs)).await;

    // The restock.
    let restocked = Instant::now();
    let cpu_before = measure::cpu_time(pid, ticks);
    staff.set_stock(&shoe.brief.id, Some(sku), 5).await?;
    let deadline = restocked + Duration::from_secs(options.timeout_secs);
    let told = |api: &FakeBotApi| {
        api.calls("sendMessage")
            .iter()
            .filter(|b| b["chat_id"].as_i64().is_some_and(|c| c >= FIRST_WAITER))
            .count()
    };
    let mut last_report = Instant::now();
    while told(&api) < options.alerts && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        if last_report.elapsed() >= Duration::from_secs(30) {
            println!("  … {} told after {:.0} s", told(&api), restocked.elapsed().as_secs_f64());
            last_report = Instant::now();
        }
    }
    let wave = restocked.elapsed();
    let cpu_after = measure::cpu_time(pid, ticks);
    // A little longer: a second message to anyone would show now.
    tokio::time::sleep(Duration::from_secs(8)).await;
    chatting.abort();
    let requests = api.requests();

    // Alerts: delivered, twice, pace.
    let mut per_chat: HashMap<i64, Vec<Instant>> = HashMap::new();
    let mut alert_times = Vec::new();
    let (mut messages, mut all_sends) = (Vec::new(), Vec::new());
    for r in requests.iter().filter(|r| !r.failed && r.method != "getUpdates") {
        let chat = chat_of(&r.body);
        if matches!(r.method.as_str(), "sendMessage" | "sendPhoto" | "sendMediaGroup") {
            messages.push(r.at);
        }
        if matches!(r.method.as_str(), "sendMessage" | "editMessageText" | "sendPhoto" | "sendChatAction") {
            all_sends.push(r.at);
        }
        if r.method == "sendMessage" {
            per_chat.entry(chat).or_default().push(r.at);
            if chat >= FIRST_WAITER {
                alert_times.push(r.at);
            }
        }
    }
    let waiters: Vec<_> = per_chat.iter().filter(|(c, _)| **c >= FIRST_WAITER).collect();
    let twice = waiters.iter().filter(|(_, t)| t.len() > 1).count();
    let right_text = requests
        .iter()
        .filter(|r| r.method == "sendMessage" && chat_of(&r.body) >= FIRST_WAITER)
        .filter(|r| r.body["text"].as_str().is_some_and(|t| t.contains("到货啦") && t.contains("42码")))
        .count();
    println!(
        "alerts: {} waiting, {} told, {} with the size and the word, {} told twice",
        options.alerts,
        waiters.len(),
        right_text,
        twice
    );
    println!(
        "wave: {:.1} s from the restock to the last alert ({:.1} alerts/s); bot CPU in it {}",
        wave.as_secs_f64(),
        waiters.len() as f64 / wave.as_secs_f64(),
        match (cpu_before, cpu_after) {
            (Some(a), Some(b)) => format!("{:.1} s", (b - a).as_secs_f64()),
            _ => "—".into(),
        }
    );
    println!(
        "pace: at most {} alert messages, {} new messages of any kind (alerts and answers) and {} Bot API \
         sends with edits and typing in any 1 s (limit {} alerts/s, Telegram ~30 messages/s)",
        max_in_window(&mut alert_times, Duration::from_secs(1)),
        max_in_window(&mut messages, Duration::from_secs(1)),
        max_in_window(&mut all_sends, Duration::from_secs(1)),
        options.per_sec
    );
    let per_chat_max =
        per_chat.values_mut().map(|t| max_in_window(t, Duration::from_secs(1))).max().unwrap_or(0);
    println!("per chat: at most {per_chat_max} messages in any 1 s");

    // Chat answers: before and during the wave.
    let asked = asked.lock().unwrap().clone();
    let chat_answers = chat_latencies(&api, &asked, &requests, restocked, restocked + wave);
    for (phase, mut lat) in chat_answers {
        lat.sort();
        println!(
            "chat answers {phase}: {} answered, p50 {}, p99 {}",
            lat.len(),
            measure::millis(measure::percentile(&lat, 50.0)),
            measure::millis(measure::percentile(&lat, 99.0))
        );
    }
    drop(bot);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}

fn chat_of(body: &Value) -> i64 {
    body["chat_id"].as_i64().or_else(|| body["chat_id"].as_str().and_then(|s| s.parse().ok())).unwrap_or(0)
}

/// The most instants of `times` within any `window` (sliding).
fn max_in_window(times: &mut [Instant], window: Duration) -> usize {
    times.sort();
    let (mut best, mut start) = (0, 0);
    for end in 0..times.len() {
        while times[end].duration_since(times[start]) >= window {
            start += 1;
        }
        best = best.max(end + 1 - start);
    }
    best
}

/// The chatting shoppers' latencies (update handed out → the first message
/// the bot sends that chat after it), before the restock and during the wave.
fn chat_latencies(
    api: &FakeBotApi,
    asked: &[(i64, i64)],
    requests: &[fake_bot_api::Recorded],
    wave_start: Instant,
    wave_end: Instant,
) -> Vec<(&'static str, Vec<Duration>)> {
    let mut answers: HashMap<i64, Vec<Instant>> = HashMap::new();
    for r in requests.iter().filter(|r| !r.failed && matches!(r.method.as_str(), "sendMessage" | "sendPhoto"))
    {
        let chat = chat_of(&r.body);
        if (FIRST_CHATTER..FIRST_WAITER).contains(&chat) {
            answers.entry(chat).or_default().push(r.at);
        }
    }
    let (mut before, mut during) = (Vec::new(), Vec::new());
    for (chat, id) in asked {
        let Some(out) = api.handed_out(*id) else { continue };
        let Some(answered) = answers.get(chat).and_then(|a| a.iter().find(|at| **at >= out)) else {
            continue;
        };
        let latency = answered.duration_since(out);
        if out < wave_start {
            before.push(latency);
        } else if out <= wave_end {
            during.push(latency);
        }
    }
    vec![("before the wave", before), ("during the wave", during)]
}
