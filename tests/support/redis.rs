//! Redis for the tests that need it, and the one rule for when it is not
//! there: outside CI the test says so loudly and is skipped; under `CI=true`
//! it fails instead ([`skip_or_fail`]).

#![allow(dead_code)]

/// Where the shared Redis is expected.
pub const REDIS_URL: &str = "redis://127.0.0.1:6379";

/// Says loudly that `test` did not run because `missing` — or, under
/// `CI=true`, fails, since CI must have it. The line is written past the test
/// harness's capture, so it shows even when the tests pass.
pub fn skip_or_fail(missing: &str, test: &str) {
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("{missing}, which CI (CI=true) must have: {test} cannot run");
    }
    let line = format!("SKIPPED: {missing} — {test} did not run\n");
    let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
}

/// What is missing when the shared Redis does not answer.
pub const NO_REDIS: &str = "Redis not reachable at 127.0.0.1:6379";

/// Whether the shared Redis answers; when not, [`skip_or_fail`].
pub async fn redis_available(test: &str) -> bool {
    let answered = match mallbot::state::open(REDIS_URL).await {
        Ok(state) => state.health().await.is_ok(),
        Err(_) => false,
    };
    if !answered {
        skip_or_fail(NO_REDIS, test);
    }
    answered
}

/// A Redis URL prefixed `mallbot-<tag>-test-<random>`, or `None` (skip) when
/// Redis is not reachable outside CI; `what` names the test that did not run.
pub async fn redis_url(tag: &str, what: &str) -> Option<String> {
    let url = format!("{REDIS_URL}/0?prefix=mallbot-{tag}-test-{}", rand_suffix());
    redis_available(what).await.then_some(url)
}

/// A number that differs from run to run, for names of a test's own.
pub fn rand_suffix() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}
