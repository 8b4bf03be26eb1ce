//! Redis for the tests that need two instances on one store: a URL with a
//! key prefix of the test's own when Redis answers at 127.0.0.1:6379. Absent,
//! the test says so loudly and is skipped; under `CI=true` it fails instead.

/// A Redis URL prefixed `mallbot-<tag>-test-<random>`, or `None` (skip) when
/// Redis is not reachable outside CI; `what` names the test that did not run.
pub async fn redis_url(tag: &str, what: &str) -> Option<String> {
    let url = format!("redis://127.0.0.1:6379/0?prefix=mallbot-{tag}-test-{}", rand_suffix());
    match mallbot::infra::state::open(&url).await {
        Ok(state) if state.health().await.is_ok() => Some(url),
        _ => {
            if std::env::var("CI").as_deref() == Ok("true") {
                panic!("Redis must be reachable at 127.0.0.1:6379 in CI (CI=true)");
            }
            let line = format!("SKIPPED: Redis not reachable at 127.0.0.1:6379; {what} did not run\n");
            let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
            None
        }
    }
}

/// A number that differs from run to run, for names of a test's own.
pub fn rand_suffix() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}
