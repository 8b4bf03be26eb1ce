//! Routing and drawing on the demo mall's map: times every store from the
//! main entrance (routes), the nearest facility of each kind from every
//! store (one search, and for comparison one route per candidate), and one
//! floor picture per floor of those routes (rendering), prints p50/p99, then
//! runs divan's micro-benchmarks.
//!
//! `cargo bench -p maps --bench maps`

use std::hint::black_box;
use std::time::{Duration, Instant};

use maps::facility::{self, KINDS};
use maps::render::{self, Overlay};
use maps::{MapWords, RouteOptions, demo};

/// Timed rounds over every store.
const ROUNDS: usize = 20;

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let rank = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn report() {
    let router = demo::router();
    let map = router.map();
    let stores: Vec<String> =
        map.places.iter().filter(|p| p.kind == maps::PlaceKind::Store).map(|p| p.id.clone()).collect();
    let mut routing = Vec::new();
    let mut rendering = Vec::new();
    for round in 0..ROUNDS {
        for store in &stores {
            let options = RouteOptions { avoid_stairs: round % 2 == 1 };
            let started = Instant::now();
            let route =
                black_box(router.route("main_entrance", store, options).expect("every store is reachable"));
            routing.push(started.elapsed());
            // Rendering: one picture per floor of the trip, timed floor by floor.
            if round < 3 {
                for (i, leg) in route.legs.iter().enumerate() {
                    let overlay = Overlay {
                        title: format!("{i}"),
                        route: leg.points.clone(),
                        start: leg.points.first().copied(),
                        destination_units: route.to.unit.into_iter().collect(),
                        ..Overlay::default()
                    };
                    let started = Instant::now();
                    black_box(
                        render::render_level(map, leg.level, &overlay, &MapWords::CHINESE)
                            .expect("the floor draws"),
                    );
                    rendering.push(started.elapsed());
                }
            }
        }
    }
    // The nearest facility of each kind from every store: one search, and
    // one route per candidate as it would be done without it.
    let mut nearest = Vec::new();
    let mut per_candidate = Vec::new();
    for round in 0..ROUNDS {
        for store in &stores {
            let from = map.find_place(store).expect("a store").clone();
            for kind in KINDS {
                let started = Instant::now();
                black_box(router.nearest(&from, |p| kind.matches(p), RouteOptions::default()));
                nearest.push(started.elapsed());
                if round < 3 {
                    let started = Instant::now();
                    let best = facility::places_of(map, kind)
                        .filter_map(|p| {
                            router.route_between(from.clone(), p.clone(), RouteOptions::default()).ok()
                        })
                        .min_by_key(|r| r.distance_m);
                    black_box(best);
                    per_candidate.push(started.elapsed());
                }
            }
        }
    }
    nearest.sort_unstable();
    per_candidate.sort_unstable();
    routing.sort_unstable();
    rendering.sort_unstable();
    println!(
        "\nnearest facility (store → kind, one search, {} searches): p50={:.1} µs p99={:.1} µs max={:.1} µs",
        nearest.len(),
        percentile(&nearest, 0.5).as_secs_f64() * 1e6,
        percentile(&nearest, 0.99).as_secs_f64() * 1e6,
        nearest.last().copied().unwrap_or_default().as_secs_f64() * 1e6,
    );
    println!(
        "nearest facility (one route per candidate, {} lookups): p50={:.1} µs p99={:.1} µs",
        per_candidate.len(),
        percentile(&per_candidate, 0.5).as_secs_f64() * 1e6,
        percentile(&per_candidate, 0.99).as_secs_f64() * 1e6,
    );
    println!(
        "\nroute (entrance → store, {} routes): p50={:.1} µs p99={:.1} µs max={:.1} µs",
        routing.len(),
        percentile(&routing, 0.5).as_secs_f64() * 1e6,
        percentile(&routing, 0.99).as_secs_f64() * 1e6,
        routing.last().copied().unwrap_or_default().as_secs_f64() * 1e6,
    );
    println!(
        "render (one floor to PNG, {} pictures): p50={:.2} ms p99={:.2} ms max={:.2} ms\n",
        rendering.len(),
        percentile(&rendering, 0.5).as_secs_f64() * 1e3,
        percentile(&rendering, 0.99).as_secs_f64() * 1e3,
        rendering.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
    );
}

fn main() {
    report();
    divan::main();
}

/// The shortest route from the main entrance to a store.
#[divan::bench(args = ["s-apple", "s-uniqlo", "s-taier"])]
fn route(bencher: divan::Bencher, store: &str) {
    let router = demo::router();
    bencher.bench(|| router.route(black_box("main_entrance"), black_box(store), RouteOptions::default()));
}

/// The route's pictures, one per floor, to PNG.
#[divan::bench(args = ["s-apple", "s-uniqlo"])]
fn pictures(bencher: divan::Bencher, store: &str) {
    let router = demo::router();
    let route = router.route("main_entrance", store, RouteOptions::default()).expect("reachable");
    bencher.bench(|| render::route_pictures(router.map(), black_box(&route), &MapWords::CHINESE));
}

/// The floor plan's SVG alone, without rasterising.
#[divan::bench]
fn svg_only(bencher: divan::Bencher) {
    let router = demo::router();
    let route = router.route("main_entrance", "s-uniqlo", RouteOptions::default()).expect("reachable");
    let leg = &route.legs[1];
    let overlay = Overlay { route: leg.points.clone(), ..Overlay::default() };
    bencher.bench(|| render::level_svg(router.map(), leg.level, black_box(&overlay), &MapWords::CHINESE));
}

/// The nearest facility of a kind from a store, by walking route.
#[divan::bench(args = [("s-taier", "restroom"), ("s-nike", "mothersroom"), ("s-apple", "parking")])]
fn nearest_facility(bencher: divan::Bencher, (store, kind): (&str, &str)) {
    let router = demo::router();
    let from = router.map().find_place(store).expect("a store").clone();
    let kind = facility::kind(kind).expect("a kind");
    bencher.bench(|| router.nearest(black_box(&from), |p| kind.matches(p), RouteOptions::default()));
}
