//! The Mini App's budgets, measured: the real `mallbot webapp` on the demo
//! mall, its API timed from here and its map page loaded in headless
//! Chromium (Debian's `chromium` and `chromium-driver`).
//!
//! Prints the bytes the map page transfers on first load and for a route
//! after it (compressed, as Chromium's resource timing counts them), its
//! first contentful paint, how long after the tap a route is drawn, and
//! p50/p99 of the directory and route API calls.
//!
//! Run: `cargo build --release && cargo run --release --example webapp_budget`

#![allow(clippy::unwrap_used)]

#[path = "../tests/support/browser.rs"]
mod browser;
#[path = "support/measure.rs"]
mod measure;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use clap::Parser;
use fantoccini::Locator;
use serde_json::Value;

/// Measures the Mini App against its budgets.
#[derive(Parser, Debug)]
#[command(name = "webapp_budget")]
struct Options {
    /// API calls of each kind to time.
    #[arg(long, default_value_t = 500)]
    calls: usize,
    /// Page loads (and routes) in Chromium.
    #[arg(long, default_value_t = 5)]
    loads: usize,
    /// The `mallbot` binary; default: `target/release/mallbot`.
    #[arg(long)]
    bot: Option<PathBuf>,
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let options = Options::parse();
    let binary = measure::bot_binary(options.bot.as_deref())?;
    let dir = std::env::temp_dir().join(format!("mallbot-webapp-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let addr = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
    let mut command = tokio::process::Command::new(&binary);
    let mall_db = dir.join("mall.db").display().to_string();
    let env = [("MALLBOT_STATE__URL", "memory://"), ("MALLBOT_MALL__EMBEDDED_DB", mall_db.as_str())];
    measure::bot_command(&mut command, &["webapp", "--listen", &addr.to_string()], &dir, env, false);
    let _server = command.spawn()?;
    let deadline = Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(addr).await.is_err() {
        anyhow::ensure!(Instant::now() < deadline, "the Mini App never listened on {addr}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let base = format!("http://{addr}/webapp/");
    let http = reqwest::Client::new();

    // The API, one call at a time, after one warm-up round (floors are drawn on first use).
    let stores: Vec<String> = {
        let all: Value = http.get(format!("{base}api/stores")).send().await?.json().await?;
        all["stores"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["store_id"].as_str().map(str::to_owned))
            .collect()
    };
    let path = |kind: &str, i: usize| match kind {
        "directory" => "api/stores".to_owned(),
        "directory search" => format!("api/stores?q={}", ["coffee", "Nike", "运动", "餐厅"][i % 4]),
        _ => format!("api/route?to={}", stores[i % stores.len()]),
    };
    println!(
        "webapp_budget: the demo mall, {} API calls of each kind, {} page loads",
        options.calls, options.loads
    );
    for name in ["directory", "directory search", "route"] {
        for i in 0..stores.len() {
            http.get(format!("{base}{}", path(name, i))).send().await?.bytes().await?;
        }
        let mut times = Vec::with_capacity(options.calls);
        for i in 0..options.calls {
            let started = Instant::now();
            let response = http.get(format!("{base}{}", path(name, i))).send().await?;
            anyhow::ensure!(
                response.status().is_success(),
                "{} answered {}",
                path(name, i),
                response.status()
            );
            response.bytes().await?;
            times.push(started.elapsed());
        }
        times.sort();
        println!(
            "API {name:<17} p50 {:>8}  p99 {:>8}  (budget p99 ≤ 5 ms)",
            measure::millis(measure::percentile(&times, 50.0)),
            measure::millis(measure::percentile(&times, 99.0))
        );
    }

    let Some(driver) = browser::installed_driver() else {
        anyhow::bail!(
            "chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)"
        );
    };
    let transfer = "return performance.getEntries().filter(e => 'transferSize' in e).reduce((n, e) => n + e.transferSize, 0)";
    let mut first_loads = Vec::new();
    let mut paints = Vec::new();
    let mut route_bytes = Vec::new();
    let mut drawn = Vec::new();
    for load in 0..options.loads {
        // A new profile each time: the first load of a shopper, nothing cached.
        let profile = dir.join(format!("load-{load}"));
        std::fs::create_dir_all(&profile)?;
        let (_driver, client) = browser::session(driver, &profile).await?;
        client.goto(&format!("{base}?lang=zh")).await?;
        client.wait().at_most(Duration::from_secs(20)).for_element(Locator::Css("#plan circle")).await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        first_loads.push(client.execute(transfer, vec![]).await?.as_f64().unwrap_or(0.0));
        let fcp = client
            .execute(
                "return (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0",
                vec![],
            )
            .await?;
        paints.push(fcp.as_f64().unwrap_or(0.0));
        // Tap a store on the map (a different one each load), then "route here".
        let store = &stores[(load * 7) % stores.len()];
        client.execute(&format!("openStore({}); return 1", Value::from(store.as_str())), vec![]).await?;
        client.wait().at_most(Duration::from_secs(20)).for_element(Locator::Css("#route-go")).await?;
        client.execute("performance.clearResourceTimings(); return 1", vec![]).await?;
        client.find(Locator::Css("#route-go")).await?.click().await?;
        client
            .wait()
            .at_most(Duration::from_secs(20))
            .for_element(Locator::Css("body[data-route-floors]"))
            .await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let resources =
            "return performance.getEntriesByType('resource').reduce((n, e) => n + e.transferSize, 0)";
        route_bytes.push(client.execute(resources, vec![]).await?.as_f64().unwrap_or(0.0));
        drawn
            .push(client.execute("return window.__routeDrawnMs || 0", vec![]).await?.as_f64().unwrap_or(0.0));
        client.close().await?;
    }
    let range = |v: &[f64], unit: &str, scale: f64| {
        let min = v.iter().cloned().fold(f64::INFINITY, f64::min) / scale;
        let max = v.iter().cloned().fold(0.0, f64::max) / scale;
        format!("{min:.1}–{max:.1} {unit}")
    };
    println!("map page, first load   {} transferred (budget ≤ 250 KB)", range(&first_loads, "KB", 1000.0));
    println!("first contentful paint {} (budget ≤ 500 ms)", range(&paints, "ms", 1.0));
    println!("a route after it       {} transferred (budget ≤ 30 KB)", range(&route_bytes, "KB", 1000.0));
    println!("route drawn after tap  {} (budget ≤ 100 ms)", range(&drawn, "ms", 1.0));
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
