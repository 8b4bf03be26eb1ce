//! Search latency of the embedded mall on a generated 100 000-product
//! catalog: times a mix of realistic shopper queries (Chinese, English,
//! mixed, with price bounds and brand/category filters) and prints p50/p99,
//! then runs divan's micro-benchmarks of a few of them.
//!
//! `cargo bench -p services --bench search`

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::{Arc, LazyLock};
use std::task::{Context, Poll, Waker};
use std::time::{Duration, Instant};

use services::{Catalog, EmbeddedMall, MallApi, PageRequest, ProductQuery, StoreQuery};

/// Products in the generated catalog.
const PRODUCTS: usize = 100_000;
/// Timed rounds over the whole query mix.
const ROUNDS: usize = 150;

static MALL: LazyLock<EmbeddedMall> = LazyLock::new(|| {
    let started = Instant::now();
    let catalog = Arc::new(Catalog::generate(PRODUCTS, 42));
    println!(
        "catalog: {} products, {} SKUs, {} index terms, generated and indexed in {:.2?}",
        catalog.product_count(),
        catalog.sku_count(),
        catalog.indexed_terms(),
        started.elapsed()
    );
    let started = Instant::now();
    let mall = EmbeddedMall::with_catalog(catalog, None).expect("an in-memory mall opens");
    println!("mall: stock seeded into SQLite in {:.2?}", started.elapsed());
    mall
});

/// Runs a future that never waits (embedded search answers at once).
fn now<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("embedded search does not wait"),
    }
}

fn query(
    keyword: &str,
    min: Option<i64>,
    max: Option<i64>,
    brand: Option<&str>,
    category: Option<&str>,
) -> ProductQuery {
    ProductQuery {
        keyword: (!keyword.is_empty()).then(|| keyword.to_owned()),
        min_price_cents: min,
        max_price_cents: max,
        brand: brand.map(str::to_owned),
        category: category.map(str::to_owned),
        page: PageRequest::first(10),
    }
}

/// What shoppers (through the model) ask for.
fn mix() -> Vec<ProductQuery> {
    vec![
        query("Nike 跑鞋", None, None, None, None),
        query("nike running shoes", None, None, None, None),
        query("耐克跑步鞋", None, Some(50_000), None, None),
        query("帮我买一双 Nike 跑鞋，500 以内的", None, Some(50_000), None, None),
        query("running shoes", None, None, None, None),
        query("跑鞋", Some(30_000), Some(80_000), None, None),
        query("优衣库 T恤", None, None, None, None),
        query("咖啡", None, None, None, None),
        query("iPhone 16 Pro", None, None, None, None),
        query("手机", None, Some(300_000), None, None),
        query("降噪耳机", None, None, None, None),
        query("羽绒服 女", None, None, None, None),
        query("lego 积木", Some(50_000), None, None, None),
        query("black hoodie", None, None, None, None),
        query("", None, None, Some("Adidas"), Some("sneakers")),
        query("鞋", None, None, None, None),
        query("", None, Some(10_000), None, None),
        query("Pegasus 41 黑白", None, None, None, None),
        query("运动鞋", None, Some(60_000), Some("李宁"), None),
        query("xyzzy", None, None, None, None),
    ]
}

fn describe(q: &ProductQuery) -> String {
    let mut parts = vec![format!("{:?}", q.keyword.as_deref().unwrap_or(""))];
    if let Some(b) = &q.brand {
        parts.push(format!("brand={b}"));
    }
    if let Some(c) = &q.category {
        parts.push(format!("category={c}"));
    }
    if q.min_price_cents.is_some() || q.max_price_cents.is_some() {
        let yuan = |c: Option<i64>| c.map(|c| (c / 100).to_string()).unwrap_or_default();
        parts.push(format!("price={}..{}", yuan(q.min_price_cents), yuan(q.max_price_cents)));
    }
    parts.join(" ")
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn report() {
    let mall = &*MALL;
    let queries = mix();
    let mut per_query: Vec<Vec<Duration>> = vec![Vec::with_capacity(ROUNDS); queries.len()];
    let mut totals = vec![0; queries.len()];
    for (i, q) in queries.iter().enumerate() {
        totals[i] = now(mall.search_products(q)).expect("search answers").total;
    }
    for _ in 0..ROUNDS {
        for (i, q) in queries.iter().enumerate() {
            let started = Instant::now();
            black_box(now(mall.search_products(black_box(q))).expect("search answers"));
            per_query[i].push(started.elapsed());
        }
    }
    println!("\n{:<52} {:>7} {:>9} {:>9}", "product query (100 000 products)", "matches", "p50 µs", "p99 µs");
    for (i, q) in queries.iter().enumerate() {
        let times = &mut per_query[i];
        times.sort_unstable();
        println!(
            "{:<52} {:>7} {:>9.1} {:>9.1}",
            describe(q),
            totals[i],
            micros(percentile(times, 0.50)),
            micros(percentile(times, 0.99))
        );
    }
    let mut all: Vec<Duration> = per_query.into_iter().flatten().collect();
    all.sort_unstable();
    println!(
        "search p50={:.1} µs p99={:.1} µs max={:.1} µs over {} queries",
        micros(percentile(&all, 0.50)),
        micros(percentile(&all, 0.99)),
        micros(*all.last().unwrap_or(&Duration::ZERO)),
        all.len()
    );

    let stores = ["Nike", "跑鞋", "咖啡", "优衣库", "吃饭"];
    let mut times = Vec::new();
    for _ in 0..ROUNDS {
        for keyword in stores {
            let q = StoreQuery { keyword: Some(keyword.to_owned()), ..Default::default() };
            let started = Instant::now();
            black_box(now(mall.search_stores(&q)).expect("search answers"));
            times.push(started.elapsed());
        }
    }
    times.sort_unstable();
    println!(
        "store search p50={:.1} µs p99={:.1} µs over {} queries\n",
        micros(percentile(&times, 0.50)),
        micros(percentile(&times, 0.99)),
        times.len()
    );
}

fn main() {
    report();
    divan::main();
}

/// One keyword search, best ten of all matches.
#[divan::bench(args = ["Nike 跑鞋", "nike running shoes", "鞋", "帮我买一双 Nike 跑鞋，500 以内的"])]
fn keyword(bencher: divan::Bencher, keyword: &str) {
    let q = query(keyword, None, Some(50_000), None, None);
    bencher.bench(|| now(MALL.search_products(black_box(&q))));
}

/// Filters only: no keyword, every product checked against the price bound.
#[divan::bench]
fn price_only(bencher: divan::Bencher) {
    let q = query("", None, Some(10_000), None, None);
    bencher.bench(|| now(MALL.search_products(black_box(&q))));
}
