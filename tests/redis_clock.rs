//! The mall's clock set to another day (`MALLBOT_CLOCK`, as the tests and a
//! try-out of a given day set it) with the state kept in Redis, whose TTLs run
//! on the Redis server's own clock: a confirmation kept is there to press for
//! its whole time, on whichever instance the press lands.
//!
//! The test runs itself again in a child process whose clock is set.
//! Redis is expected at 127.0.0.1:6379; without it the test is skipped with a
//! loud line, unless `CI=true`, where its absence fails it.

#![allow(clippy::unwrap_used)]

#[path = "support/redis.rs"]
mod redis_store;

use mallbot::state::{ClaimOutcome, PendingStatus, StoredPending, unix_now};
use redis_store::*;

/// Years before any day these tests run on.
const PAST: &str = "2020-01-01T10:00:00+08:00";
const NAME: &str = "a_confirmation_kept_in_redis_on_a_clock_set_in_the_past_can_be_pressed";

#[tokio::test]
async fn a_confirmation_kept_in_redis_on_a_clock_set_in_the_past_can_be_pressed() {
    if std::env::var(services::clock::CLOCK_VAR).as_deref() != Ok(PAST) {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", NAME, "--nocapture", "--test-threads=1"])
            .env(services::clock::CLOCK_VAR, PAST)
            .output()
            .unwrap();
        let told =
            format!("{}{}", String::from_utf8_lossy(&child.stdout), String::from_utf8_lossy(&child.stderr));
        assert!(child.status.success(), "{told}");
        assert!(told.contains("1 passed"), "{told}");
        eprint!(
            "{}",
            told.lines().filter(|l| l.starts_with("SKIPPED")).map(|l| format!("{l}\n")).collect::<String>()
        );
        return;
    }
    assert!(unix_now() < 1_600_000_000, "the clock is set in the past");
    let Some(url) = redis_url("clock", "the Redis confirmation on a clock set in the past").await else {
        return;
    };
    let (first, second) =
        (mallbot::state::open(&url).await.unwrap(), mallbot::state::open(&url).await.unwrap());
    let action = StoredPending {
        token: "tok-past".into(),
        user_id: 42,
        chat_id: 42,
        tool: "claim_coupon".into(),
        payload: r#"{"coupon":"rv-last-100"}"#.into(),
        expires_at: unix_now() + 300,
        status: PendingStatus::Waiting,
        claimed_until: 0,
    };
    first.put_pending(&action).await.unwrap();

    assert_eq!(second.get_pending("tok-past").await.unwrap(), Some(action.clone()));
    assert_eq!(second.pending_for(42, 42, PendingStatus::Waiting).await.unwrap(), vec![action]);
    assert!(matches!(
        second.claim_pending("tok-past", std::time::Duration::from_secs(60)).await.unwrap(),
        ClaimOutcome::Claimed(_)
    ));
    assert_eq!(
        first.claim_pending("tok-past", std::time::Duration::from_secs(60)).await.unwrap(),
        ClaimOutcome::InProgress
    );
}
