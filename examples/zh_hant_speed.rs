//! Traditional Chinese on the hot path, measured: OpenCC's dictionaries
//! (`handlers::texts::zh_hant`, through `ferrous-opencc`) beside the
//! hand-written tables they replaced (`support/hand_table.rs`), in one run.
//!
//! Prints the one-time cost of opening each (the first conversion in this
//! process), then the time per call of converting a real directions answer
//! and a real search answer of the embedded demo mall (Simplified →
//! Traditional, as the bot shows them) and a shopper's Traditional message
//! (Traditional → Simplified, as basic mode and searches read it), and the
//! whole Traditional turns through the router for scale.
//!
//! Run: `cargo run --release --example zh_hant_speed [-- --calls 20000]`

#![allow(clippy::unwrap_used)]

#[path = "support/hand_table.rs"]
mod hand_table;

use std::hint::black_box;
use std::sync::Arc;
use std::time::{Duration, Instant};

use handlers::Lang;
use handlers::texts::zh_hant;
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::Config;
use mallbot::state::MemoryStore;

fn main() {
    let calls: u32 =
        std::env::args().skip_while(|a| a != "--calls").nth(1).and_then(|n| n.parse().ok()).unwrap_or(20_000);

    // One-time costs: the first conversion of the process opens the tables.
    let started = Instant::now();
    black_box(hand_table::to_traditional("这"));
    black_box(hand_table::to_simplified("這"));
    let hand_startup = started.elapsed();
    let started = Instant::now();
    zh_hant::warm_up();
    let opencc_startup = started.elapsed();
    println!("one-time start-up (both directions)");
    println!("  hand table  {:>10.3} ms", ms(hand_startup));
    println!("  OpenCC      {:>10.3} ms", ms(opencc_startup));

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let app = runtime.block_on(async { app() });
    let ask = |text: &str, lang| MessageContext::private("console", 7, text, lang);
    let directions = runtime.block_on(app.router.dispatch(&ask("优衣库怎么走", Lang::Zh))).text;
    let search = runtime.block_on(app.router.dispatch(&ask("帮我找 500 元以内的跑鞋", Lang::Zh))).text;
    let message = "請問優衣庫怎麼走？我想從北門進去，順便看看運動鞋";

    println!("\nper call, {calls} calls each (µs)             hand table     OpenCC");
    for (what, text, to_hant) in [
        ("directions answer → Traditional", directions.as_str(), true),
        ("search answer → Traditional", search.as_str(), true),
        ("shopper's message → Simplified", message, false),
    ] {
        let (hand, opencc) = if to_hant {
            (
                per_call(calls, || hand_table::to_traditional(text)),
                per_call(calls, || zh_hant::to_traditional(text)),
            )
        } else {
            (
                per_call(calls, || hand_table::to_simplified(text)),
                per_call(calls, || zh_hant::to_simplified(text)),
            )
        };
        println!("  {what:<34} {:>4} chars {:>9.2} {:>10.2}", text.chars().count(), us(hand), us(opencc));
    }

    // For scale: the whole turn the conversion is part of.
    let turns = (calls / 100).max(10);
    for (what, text) in
        [("directions turn (zh-hant)", "優衣庫怎麼走"), ("search turn (zh-hant)", "幫我找運動鞋")]
    {
        let started = Instant::now();
        for i in 0..turns {
            let ctx = MessageContext::private("console", 1_000 + i64::from(i), text, Lang::ZhHant);
            black_box(runtime.block_on(app.router.dispatch(&ctx)));
        }
        println!("  {what:<34} {:>26.2} per turn", us(started.elapsed() / turns));
    }

    println!("\nOpenCC's directions answer:\n{}", zh_hant::to_traditional(&directions));
    println!("\nthe hand table's:\n{}", hand_table::to_traditional(&directions));
}

fn app() -> App {
    let mut config = Config::default();
    config.bot.rate_limit_per_minute = 0;
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    App::with_parts(config, mall, Arc::new(MemoryStore::new())).unwrap()
}

/// The mean time of one call of `f`, after a warm-up.
fn per_call(calls: u32, f: impl Fn() -> String) -> Duration {
    for _ in 0..calls / 10 {
        black_box(f());
    }
    let started = Instant::now();
    for _ in 0..calls {
        black_box(f());
    }
    started.elapsed() / calls
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
