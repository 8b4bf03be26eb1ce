//! Pre-checkout benchmark: how fast the real `mallbot run` answers
//! Telegram's `pre_checkout_query` (Telegram waits 10 s at most) when the
//! mall answers over HTTP with a set latency.
//!
//! On loopback: a fake Bot API hands out pre-checkout queries for N unpaid
//! orders of N shoppers, C at a time (the next one as soon as one is
//! answered); the embedded mall is served over HTTP by the project's own
//! mall server with every request held for `--mall-latency-ms`. Prints how
//! many were accepted, p50/p90/p99/max of the time from a query being handed
//! out to its answer, and the bot's CPU per query.
//!
//! Run: `cargo build --release && cargo run --release --example checkout`

#![allow(clippy::unwrap_used)]

#[path = "../tests/support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/measure.rs"]
mod measure;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use fake_bot_api::{FakeBotApi, Recorded, Shopper};
use mallbot::PayloadKey;
use services::{AddCartItem, CreateOrder, EmbeddedMall, MallApi, Order, PageRequest, ProductQuery};

/// Answers N pre-checkout queries through the real bot and measures how soon.
#[derive(Parser, Debug)]
#[command(name = "checkout")]
struct Options {
    /// Pre-checkout queries, one per shopper and unpaid order.
    #[arg(long, default_value_t = 300)]
    queries: usize,
    /// Queries waiting for an answer at once.
    #[arg(long, default_value_t = 20)]
    concurrency: usize,
    /// Time the mall takes for every request, in milliseconds.
    #[arg(long, default_value_t = 200)]
    mall_latency_ms: u64,
    /// The `mallbot` binary; default: `target/release/mallbot`.
    #[arg(long)]
    bot: Option<PathBuf>,
    /// Give up after this many seconds (partial figures are still printed).
    #[arg(long, default_value_t = 120)]
    timeout_secs: u64,
}

const BOT_TOKEN: &str = "123:CHECKOUT";
const MALL_KEY: &str = "checkout-mall-key";
const FIRST_SHOPPER: i64 = 50_000;

/// One query: when it was handed out, when and how it was answered.
#[derive(Debug, Default, Clone)]
struct Query {
    update_id: i64,
    answered: Option<(Instant, bool)>,
    /// Why it was refused, when it was.
    refusal: String,
}

/// The shoppers paying: their queries, and the next one to send.
struct Payers {
    api: Arc<FakeBotApi>,
    /// (shopper, payload, amount) of each order, in sending order.
    orders: Vec<(Shopper, String, i64)>,
    next: Mutex<usize>,
    /// By query id.
    queries: Mutex<HashMap<String, Query>>,
    answered: std::sync::atomic::AtomicUsize,
    done: tokio::sync::Notify,
}

impl Payers {
    /// Sends the next order's pre-checkout query, if any is left.
    fn send_next(&self) {
        let index = {
            let mut next = self.next.lock().unwrap();
            let index = *next;
            *next += 1;
            index
        };
        let Some((shopper, payload, amount)) = self.orders.get(index) else { return };
        let update = fake_bot_api::pre_checkout(*shopper, payload, *amount, "CNY");
        let id = update["pre_checkout_query"]["id"].as_str().unwrap().to_owned();
        // Recorded before the update can be handed out and answered.
        let mut queries = self.queries.lock().unwrap();
        let update_id = self.api.push_update(update);
        queries.insert(id, Query { update_id, ..Query::default() });
    }

    fn observe(&self, request: &Recorded) {
        if request.method != "answerPreCheckoutQuery" || request.failed {
            return;
        }
        let id = request.body["pre_checkout_query_id"].as_str().unwrap_or_default();
        let ok = request.body["ok"].as_bool().unwrap_or(false);
        let first = {
            let mut queries = self.queries.lock().unwrap();
            match queries.get_mut(id) {
                Some(query) if query.answered.is_none() => {
                    query.answered = Some((request.at, ok));
                    query.refusal = request.body["error_message"].as_str().unwrap_or_default().to_owned();
                    true
                }
                _ => false,
            }
        };
        if !first {
            return;
        }
        let answered = self.answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
        if answered == self.orders.len() {
            self.done.notify_one();
        }
        self.send_next();
    }
}

/// One unpaid order for each of `count` shoppers, one piece of a product in
/// stock each, round the catalog.
async fn unpaid_orders(mall: &EmbeddedMall, count: usize) -> anyhow::Result<Vec<(i64, Order)>> {
    let mut stock = Vec::new();
    let mut offset = 0;
    loop {
        let query = ProductQuery {
            page: PageRequest { limit: Some(50), offset: Some(offset) },
            ..Default::default()
        };
        let page = mall.search_products(&query).await?;
        if page.items.is_empty() {
            break;
        }
        offset += page.items.len() as u32;
        for brief in page.items.iter().filter(|p| p.in_stock) {
            let product = mall.get_product(&brief.id).await?;
            match product.skus.iter().find(|s| s.stock > 0) {
                Some(sku) => stock.push((brief.id.clone(), Some(sku.sku_id.clone()))),
                None if product.skus.is_empty() => stock.push((brief.id.clone(), None)),
                None => {}
            }
        }
        if u64::from(offset) >= page.total {
            break;
        }
    }
    anyhow::ensure!(!stock.is_empty(), "the demo mall has nothing in stock");
    let mut orders = Vec::with_capacity(count);
    let mut turn = 0;
    for i in 0..count {
        let user = FIRST_SHOPPER + i as i64;
        let who = services::Shopper::new("telegram", user);
        let mut placed = None;
        for _ in 0..stock.len() {
            let (product_id, sku_id) = stock[turn % stock.len()].clone();
            turn += 1;
            let item = AddCartItem { product_id, sku_id, quantity: 1 };
            let Ok(cart) = mall.add_cart_item(&who, &item, None).await else { continue };
            let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
            if let Ok(order) = mall.create_order(&who, &request, None).await {
                placed = Some(order);
                break;
            }
        }
        let order = placed.ok_or_else(|| anyhow::anyhow!("the demo mall ran out of stock at order {i}"))?;
        orders.push((user, order));
    }
    Ok(orders)
}

/// Serves `mall` over HTTP on loopback, every request held for `latency`.
async fn serve_slow_mall(mall: Arc<EmbeddedMall>, latency: Duration) -> anyhow::Result<String> {
    let routes =
        services::server::router(mall, Some(MALL_KEY.to_owned()), None).layer(axum::middleware::from_fn(
            move |request: axum::extract::Request, next: axum::middleware::Next| async move {
                tokio::time::sleep(latency).await;
                next.run(request).await
            },
        ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, routes).await });
    Ok(url)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let options = Options::parse();
    anyhow::ensure!(
        options.queries > 0 && options.concurrency > 0,
        "--queries and --concurrency must be at least 1"
    );
    let binary = measure::bot_binary(options.bot.as_deref())?;
    let dir = std::env::temp_dir().join(format!("mallbot-checkout-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;

    let policy = services::OrderPolicy { ttl: Duration::from_secs(30 * 60), max_open: 0 };
    let mall = Arc::new(EmbeddedMall::in_memory().with_policy(policy));
    let orders = unpaid_orders(&mall, options.queries).await?;
    let mall_url = serve_slow_mall(Arc::clone(&mall), Duration::from_millis(options.mall_latency_ms)).await?;
    let key = PayloadKey::derive(BOT_TOKEN);
    let api = Arc::new(FakeBotApi::start().await);
    let payers = Arc::new(Payers {
        api: Arc::clone(&api),
        orders: orders
            .iter()
            .map(|(user, order)| {
                let shopper = Shopper { id: *user, name: "Payer" };
                (shopper, key.sign(&order.order_id, *user), order.total_cents)
            })
            .collect(),
        next: Mutex::new(0),
        queries: Mutex::new(HashMap::new()),
        answered: std::sync::atomic::AtomicUsize::new(0),
        done: tokio::sync::Notify::new(),
    });

    let env = [
        ("MALLBOT_TELEGRAM__TOKEN", BOT_TOKEN.to_owned()),
        ("MALLBOT_TELEGRAM__API_URL", api.url.to_string()),
        ("MALLBOT_MALL__BACKEND", "http".to_owned()),
        ("MALLBOT_MALL__BASE_URL", mall_url),
        ("MALLBOT_MALL__API_KEY", MALL_KEY.to_owned()),
        ("MALLBOT_PAYMENTS__PROVIDER_TOKEN", "284685063:TEST:checkout".to_owned()),
        ("MALLBOT_EVENTS__POLL_SECS", "0".to_owned()),
        ("MALLBOT_STATE__URL", "memory://".to_owned()),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
    ];
    let mut command = tokio::process::Command::new(&binary);
    measure::bot_command(&mut command, &["run"], &dir, env.iter().map(|(k, v)| (*k, v.as_str())), false);
    let mut child = command.spawn().map_err(|e| anyhow::anyhow!("cannot start {}: {e}", binary.display()))?;
    let pid = child.id().ok_or_else(|| anyhow::anyhow!("the bot exited at once"))?;
    let ready_by = Instant::now() + Duration::from_secs(30);
    while api.calls("getUpdates").is_empty() {
        anyhow::ensure!(
            Instant::now() < ready_by && child.try_wait()?.is_none(),
            "the bot never polled for updates"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let observer = Arc::clone(&payers);
    api.observe(Arc::new(move |request| observer.observe(request)));
    let ticks = measure::clock_ticks();
    let cpu_before = measure::cpu_time(pid, ticks).unwrap_or_default();
    let started = Instant::now();
    for _ in 0..options.concurrency {
        payers.send_next();
    }
    let finished =
        tokio::time::timeout(Duration::from_secs(options.timeout_secs), payers.done.notified()).await.is_ok();
    let wall = started.elapsed();
    let cpu = measure::cpu_time(pid, ticks).unwrap_or_default().saturating_sub(cpu_before);
    child.start_kill()?;
    let _ = child.wait().await;
    let _ = std::fs::remove_dir_all(&dir);

    let queries: Vec<Query> = payers.queries.lock().unwrap().values().cloned().collect();
    let mut waits: Vec<Duration> = queries
        .iter()
        .filter_map(|q| Some(q.answered?.0.saturating_duration_since(api.handed_out(q.update_id)?)))
        .collect();
    waits.sort();
    let answered = queries.iter().filter(|q| q.answered.is_some()).count();
    let accepted = queries.iter().filter(|q| q.answered.is_some_and(|(_, ok)| ok)).count();
    println!(
        "checkout: {} pre-checkout queries, {} at a time, mall over HTTP at {} ms per request",
        options.queries, options.concurrency, options.mall_latency_ms
    );
    println!(
        "answered              {answered} of {}{}",
        options.queries,
        if finished { "" } else { " (timed out)" }
    );
    println!("accepted (ok = true)  {accepted}");
    let mut refusals: Vec<&str> =
        queries.iter().filter(|q| !q.refusal.is_empty()).map(|q| q.refusal.as_str()).collect();
    refusals.sort_unstable();
    refusals.dedup();
    for refusal in refusals {
        println!("  refused: {refusal}");
    }
    println!("wall time             {:.2} s", wall.as_secs_f64());
    println!(
        "bot CPU               {:.0} ms in all, {:.3} ms per query",
        cpu.as_secs_f64() * 1000.0,
        cpu.as_secs_f64() * 1000.0 / answered.max(1) as f64
    );
    println!(
        "handed out → answer   p50 {}  p90 {}  p99 {}  max {}",
        measure::millis(measure::percentile(&waits, 50.0)),
        measure::millis(measure::percentile(&waits, 90.0)),
        measure::millis(measure::percentile(&waits, 99.0)),
        measure::millis(waits.last().copied()),
    );
    if !finished || accepted != options.queries {
        std::process::exit(1);
    }
    Ok(())
}
