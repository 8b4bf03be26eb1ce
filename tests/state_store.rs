//! One suite for every state store backend: each case is written once against
//! `Arc<dyn StateStore>` and run on the memory, SQLite and Redis stores.
//! Redis is expected at 127.0.0.1:6379; without it the Redis cases are skipped
//! with a loud line, unless `CI=true`, where its absence fails them.
#![allow(clippy::unwrap_used)]

#[path = "support/redis.rs"]
mod redis_store;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use mallbot::llm::{ChatMessage, ToolCall};
use mallbot::state::RedisStore;
use mallbot::state::SqliteStore;
use mallbot::state::{
    AuditEntry, ClaimOutcome, HistoryStore, Housekeeping, MemoryStore, PENDING_KEEP_SECS, PendingStatus,
    StateError, StateStore, StoredPending, unix_now,
};
use redis_store::{NO_REDIS, REDIS_URL, skip_or_fail};

const HOUR: Duration = Duration::from_secs(3600);
const LEASE: Duration = Duration::from_secs(60);

/// Held by every case that lets time pass or writes something that lives
/// for a second or less, so one case moving the clock on never ages
/// another's short-lived record while it looks at it.
static CLOCK: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Lets `time` pass for `store`: the mall's clock moves on, which the memory
/// and SQLite stores and the claims kept in Redis read; Redis's own TTLs run
/// on the Redis server's clock, so there the time is also waited out.
async fn let_pass(store: &Arc<dyn StateStore>, time: Duration) {
    services::clock::advance(time);
    let name = store.describe();
    if !(name == "memory" || name.starts_with("sqlite:")) {
        tokio::time::sleep(time).await;
    }
}
/// A Telegram supergroup id: too long for a double to keep exactly.
const GROUP_CHAT: i64 = -1_001_234_567_890_123;

// ---------------------------------------------------------------- backends

/// A unique name for one test's database file or key prefix.
fn unique(case: &str) -> String {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    format!("{case}-{}-{nanos}", std::process::id())
}

fn memory_store() -> Arc<dyn StateStore> {
    Arc::new(MemoryStore::new())
}

/// A SQLite file under the temp dir, removed (with its WAL files) when dropped.
struct TempDb {
    path: PathBuf,
}

impl TempDb {
    fn new(case: &str) -> TempDb {
        TempDb { path: std::env::temp_dir().join(format!("mallbot-state-{}.db", unique(case))) }
    }

    fn path(&self) -> &str {
        self.path.to_str().unwrap()
    }

    async fn open(&self) -> Arc<dyn StateStore> {
        Arc::new(SqliteStore::open(self.path()).await.unwrap())
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let mut file = self.path.clone().into_os_string();
            file.push(suffix);
            let _ = std::fs::remove_file(file);
        }
    }
}

/// A Redis store under a prefix of its own, or `None` (with a loud line) when
/// Redis is not running outside CI.
async fn redis_store(prefix: &str) -> Option<Arc<dyn StateStore>> {
    match RedisStore::connect_with_prefix(REDIS_URL, prefix).await {
        Ok(store) => Some(Arc::new(store)),
        Err(e) => {
            static ONCE: std::sync::Once = std::sync::Once::new();
            ONCE.call_once(|| skip_or_fail(&format!("{NO_REDIS} ({e})"), "the state store's Redis tests"));
            None
        }
    }
}

/// Deletes every key a Redis test left under its prefix.
async fn redis_cleanup(prefix: &str) {
    let client = redis::Client::open(REDIS_URL).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let mut cursor = 0_u64;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("MATCH")
            .arg(format!("{prefix}:*"))
            .arg("COUNT")
            .arg(1000)
            .query_async(&mut conn)
            .await
            .unwrap();
        if !keys.is_empty() {
            redis::cmd("DEL").arg(keys).query_async::<()>(&mut conn).await.unwrap();
        }
        if next == 0 {
            break;
        }
        cursor = next;
    }
}

/// Stamps every case out for the three backends.
macro_rules! suite {
    ($($case:ident),* $(,)?) => {
        mod memory_backend {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    super::$case(super::memory_store()).await;
                }
            )*
        }

        mod sqlite_backend {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    let db = super::TempDb::new(stringify!($case));
                    super::$case(db.open().await).await;
                }
            )*
        }

        mod redis_backend {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn $case() {
                    let prefix = format!("mallbot-test:{}", super::unique(stringify!($case)));
                    if let Some(store) = super::redis_store(&prefix).await {
                        let outcome = tokio::spawn(super::$case(store)).await;
                        super::redis_cleanup(&prefix).await;
                        if let Err(failure) = outcome {
                            std::panic::resume_unwind(failure.into_panic());
                        }
                    }
                }
            )*
        }
    };
}

suite!(
    history_round_trip_keeps_tool_calls_and_results_in_order,
    history_save_overwrites,
    history_clear_forgets,
    history_expires_after_ttl,
    pending_put_then_get,
    expired_pending_is_gone_and_claims_as_expired,
    claim_once_then_in_progress_then_already_done,
    failed_attempt_set_back_to_waiting_is_claimable_again,
    claim_is_taken_again_after_the_lease_runs_out,
    concurrent_claims_give_exactly_one_winner,
    awaiting_code_is_claimable,
    pending_for_filters_by_chat_user_status_newest_first,
    count_pending_counts_open_live_actions,
    first_delivery_then_redelivery,
    first_delivery_forgotten_after_ttl,
    rate_hit_counts_within_a_window,
    try_lock_is_exclusive_and_unlock_needs_the_owner,
    lock_is_free_again_after_its_ttl,
    values_are_kept_replaced_and_read_back,
    values_expire_after_their_ttl,
    a_taken_value_is_gone,
    concurrent_takes_give_the_value_to_exactly_one,
    audit_is_newest_first,
    purge_removes_expired_and_keeps_live,
    counters_add_up_across_concurrent_callers_and_expire,
);

// ---------------------------------------------------------------- fixtures

fn conversation() -> Vec<ChatMessage> {
    vec![
        ChatMessage::system("You are the mall's shopping guide."),
        ChatMessage::user("找一双500元以内的跑鞋，然后带我去那家店"),
        ChatMessage::assistant_calls(vec![
            ToolCall {
                id: "call_1".into(),
                name: "search_products".into(),
                arguments: r#"{"keyword":"跑鞋","max_price":500}"#.into(),
            },
            ToolCall {
                id: "call_2".into(),
                name: "navigate_to_store".into(),
                arguments: r#"{"store_name":"Nike"}"#.into(),
            },
        ]),
        ChatMessage::tool("call_1", r#"[{"id":"P1001","name":"Pegasus 40","price":499}]"#),
        ChatMessage::tool("call_2", r#"{"floor":"L2","route":"take the east escalator"}"#),
        ChatMessage::assistant("Pegasus 40 costs ¥499 at Nike, L2: take the east escalator."),
    ]
}

fn pending(token: &str, chat_id: i64, user_id: i64, status: PendingStatus, expires_at: i64) -> StoredPending {
    StoredPending {
        token: token.to_string(),
        user_id,
        chat_id,
        tool: "create_order".to_string(),
        payload: format!(
            r#"{{"round":2,"call":{{"name":"create_order","arguments":{{"cart_id":"cart-{token}"}}}}}}"#
        ),
        expires_at,
        status,
        claimed_until: 0,
    }
}

fn waiting(token: &str) -> StoredPending {
    pending(token, GROUP_CHAT, 42, PendingStatus::Waiting, unix_now() + 300)
}

fn audit_entry(at: i64, tool: &str, result: &str) -> AuditEntry {
    AuditEntry {
        at,
        user_id: 42,
        chat_id: 42,
        tool: tool.to_string(),
        arguments: r#"{"cart_id":"cart-7"}"#.to_string(),
        decision: "approved".to_string(),
        result: result.to_string(),
    }
}

fn outcome_kind(outcome: &ClaimOutcome) -> &'static str {
    match outcome {
        ClaimOutcome::Claimed(_) => "claimed",
        ClaimOutcome::InProgress => "in progress",
        ClaimOutcome::AlreadyDone => "already done",
        ClaimOutcome::Expired => "expired",
    }
}

fn tokens(found: &[StoredPending]) -> Vec<&str> {
    found.iter().map(|p| p.token.as_str()).collect()
}

// ---------------------------------------------------------------- history

async fn history_round_trip_keeps_tool_calls_and_results_in_order(store: Arc<dyn StateStore>) {
    store.save_history("chat:42", conversation(), HOUR).await.unwrap();

    let loaded = store.load_history("chat:42").await.unwrap();
    assert_eq!(loaded, conversation());
    assert_eq!(loaded[2].tool_calls[1].name, "navigate_to_store");
    assert_eq!(loaded[3].tool_call_id.as_deref(), Some("call_1"));
    assert!(store.load_history("chat:43").await.unwrap().is_empty());
}

async fn history_save_overwrites(store: Arc<dyn StateStore>) {
    store.save_history("chat:42", conversation(), HOUR).await.unwrap();
    let shorter = vec![ChatMessage::user("还有别的颜色吗？"), ChatMessage::assistant("有黑色和白色。")];
    store.save_history("chat:42", shorter.clone(), HOUR).await.unwrap();

    assert_eq!(store.load_history("chat:42").await.unwrap(), shorter);
}

async fn history_clear_forgets(store: Arc<dyn StateStore>) {
    store.save_history("chat:42", conversation(), HOUR).await.unwrap();
    store.save_history("chat:43", conversation(), HOUR).await.unwrap();

    store.clear_history("chat:42").await.unwrap();
    store.clear_history("chat:never-seen").await.unwrap();

    assert!(store.load_history("chat:42").await.unwrap().is_empty());
    assert_eq!(store.load_history("chat:43").await.unwrap(), conversation());
}

async fn history_expires_after_ttl(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    store.save_history("chat:short", conversation(), Duration::from_secs(1)).await.unwrap();
    store.save_history("chat:long", conversation(), HOUR).await.unwrap();

    let_pass(&store, Duration::from_millis(1300)).await;

    assert!(store.load_history("chat:short").await.unwrap().is_empty());
    assert_eq!(store.load_history("chat:long").await.unwrap(), conversation());
}

// ---------------------------------------------------------------- pending actions

async fn pending_put_then_get(store: Arc<dyn StateStore>) {
    let action = waiting("tok-a");
    store.put_pending(&action).await.unwrap();

    assert_eq!(store.get_pending("tok-a").await.unwrap(), Some(action.clone()));
    assert_eq!(store.get_pending("tok-unknown").await.unwrap(), None);

    let replaced = StoredPending { payload: r#"{"round":3}"#.to_string(), ..action };
    store.put_pending(&replaced).await.unwrap();
    assert_eq!(store.get_pending("tok-a").await.unwrap(), Some(replaced));
}

async fn expired_pending_is_gone_and_claims_as_expired(store: Arc<dyn StateStore>) {
    let action = pending("tok-old", GROUP_CHAT, 42, PendingStatus::Waiting, unix_now() - 1);
    store.put_pending(&action).await.unwrap();

    assert_eq!(store.get_pending("tok-old").await.unwrap(), None);
    assert_eq!(store.claim_pending("tok-old", LEASE).await.unwrap(), ClaimOutcome::Expired);
    assert_eq!(store.claim_pending("tok-never-issued", LEASE).await.unwrap(), ClaimOutcome::Expired);
}

async fn claim_once_then_in_progress_then_already_done(store: Arc<dyn StateStore>) {
    let action = waiting("tok-b");
    store.put_pending(&action).await.unwrap();
    let before = unix_now();

    let ClaimOutcome::Claimed(claimed) = store.claim_pending("tok-b", LEASE).await.unwrap() else {
        panic!("the first press must claim the action");
    };
    assert_eq!(claimed.status, PendingStatus::Claimed);
    assert!(claimed.claimed_until >= before + 60, "lease too short: {claimed:?}");
    assert_eq!(
        (claimed.payload.as_str(), claimed.user_id, claimed.chat_id),
        (action.payload.as_str(), 42, GROUP_CHAT)
    );
    assert_eq!(store.get_pending("tok-b").await.unwrap().unwrap().status, PendingStatus::Claimed);

    assert_eq!(store.claim_pending("tok-b", LEASE).await.unwrap(), ClaimOutcome::InProgress);

    store.set_pending_status("tok-b", PendingStatus::Done).await.unwrap();
    assert_eq!(store.claim_pending("tok-b", LEASE).await.unwrap(), ClaimOutcome::AlreadyDone);
}

async fn failed_attempt_set_back_to_waiting_is_claimable_again(store: Arc<dyn StateStore>) {
    store.put_pending(&waiting("tok-c")).await.unwrap();
    assert!(matches!(store.claim_pending("tok-c", LEASE).await.unwrap(), ClaimOutcome::Claimed(_)));

    store.set_pending_status("tok-c", PendingStatus::Waiting).await.unwrap();

    assert_eq!(store.count_pending().await.unwrap(), 1);
    assert!(matches!(store.claim_pending("tok-c", LEASE).await.unwrap(), ClaimOutcome::Claimed(_)));
    assert_eq!(store.count_pending().await.unwrap(), 0);
}

async fn claim_is_taken_again_after_the_lease_runs_out(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    store.put_pending(&waiting("tok-d")).await.unwrap();
    let lease = Duration::from_secs(1);
    assert!(matches!(store.claim_pending("tok-d", lease).await.unwrap(), ClaimOutcome::Claimed(_)));
    assert_eq!(store.claim_pending("tok-d", lease).await.unwrap(), ClaimOutcome::InProgress);

    // Leases count in whole seconds and end strictly after `claimed_until`.
    let_pass(&store, Duration::from_millis(2200)).await;

    let ClaimOutcome::Claimed(again) = store.claim_pending("tok-d", LEASE).await.unwrap() else {
        panic!("a claim whose holder died must be taken again after its lease");
    };
    assert_eq!(again.token, "tok-d");
    assert_eq!(store.claim_pending("tok-d", LEASE).await.unwrap(), ClaimOutcome::InProgress);
}

async fn concurrent_claims_give_exactly_one_winner(store: Arc<dyn StateStore>) {
    store.put_pending(&waiting("tok-race")).await.unwrap();
    let start = Arc::new(tokio::sync::Barrier::new(20));

    let presses: Vec<_> = (0..20)
        .map(|_| {
            let (store, start) = (Arc::clone(&store), Arc::clone(&start));
            tokio::spawn(async move {
                start.wait().await;
                store.claim_pending("tok-race", LEASE).await.unwrap()
            })
        })
        .collect();
    let mut outcomes = Vec::new();
    for press in presses {
        outcomes.push(press.await.unwrap());
    }

    let kinds: Vec<&str> = outcomes.iter().map(outcome_kind).collect();
    let winners = kinds.iter().filter(|k| **k == "claimed").count();
    let in_progress = kinds.iter().filter(|k| **k == "in progress").count();
    assert_eq!((winners, in_progress), (1, 19), "{kinds:?}");
}

async fn awaiting_code_is_claimable(store: Arc<dyn StateStore>) {
    let action = pending("tok-code", 42, 42, PendingStatus::AwaitingCode, unix_now() + 300);
    store.put_pending(&action).await.unwrap();
    assert_eq!(store.count_pending().await.unwrap(), 1);

    let ClaimOutcome::Claimed(claimed) = store.claim_pending("tok-code", LEASE).await.unwrap() else {
        panic!("an action awaiting its code must be claimable");
    };
    assert_eq!(claimed.status, PendingStatus::Claimed);
    assert_eq!(store.count_pending().await.unwrap(), 0);
}

async fn pending_for_filters_by_chat_user_status_newest_first(store: Arc<dyn StateStore>) {
    let now = unix_now();
    let actions = [
        pending("older", GROUP_CHAT, 7, PendingStatus::Waiting, now + 100),
        pending("newer", GROUP_CHAT, 7, PendingStatus::Waiting, now + 300),
        pending("code", GROUP_CHAT, 7, PendingStatus::AwaitingCode, now + 200),
        pending("other-user", GROUP_CHAT, 8, PendingStatus::Waiting, now + 300),
        pending("other-chat", 7, 7, PendingStatus::Waiting, now + 300),
        pending("expired", GROUP_CHAT, 7, PendingStatus::Waiting, now - 5),
    ];
    for action in &actions {
        store.put_pending(action).await.unwrap();
    }

    let found = store.pending_for(GROUP_CHAT, 7, PendingStatus::Waiting).await.unwrap();
    assert_eq!(tokens(&found), ["newer", "older"]);
    assert_eq!(found[0], actions[1]);
    let codes = store.pending_for(GROUP_CHAT, 7, PendingStatus::AwaitingCode).await.unwrap();
    assert_eq!(tokens(&codes), ["code"]);
    assert!(store.pending_for(GROUP_CHAT, 7, PendingStatus::Done).await.unwrap().is_empty());

    store.set_pending_status("newer", PendingStatus::Done).await.unwrap();
    let done = store.pending_for(GROUP_CHAT, 7, PendingStatus::Done).await.unwrap();
    assert_eq!(tokens(&done), ["newer"]);
    let found = store.pending_for(GROUP_CHAT, 7, PendingStatus::Waiting).await.unwrap();
    assert_eq!(tokens(&found), ["older"]);
}

async fn count_pending_counts_open_live_actions(store: Arc<dyn StateStore>) {
    let now = unix_now();
    assert_eq!(store.count_pending().await.unwrap(), 0);
    for action in [
        pending("w1", 1, 1, PendingStatus::Waiting, now + 300),
        pending("w2", 2, 2, PendingStatus::Waiting, now + 300),
        pending("code", 3, 3, PendingStatus::AwaitingCode, now + 300),
        pending("done", 4, 4, PendingStatus::Done, now + 300),
        pending("claimed", 5, 5, PendingStatus::Claimed, now + 300),
        pending("expired", 6, 6, PendingStatus::Waiting, now - 5),
    ] {
        store.put_pending(&action).await.unwrap();
    }
    assert_eq!(store.count_pending().await.unwrap(), 3);

    assert!(matches!(store.claim_pending("w1", LEASE).await.unwrap(), ClaimOutcome::Claimed(_)));
    store.set_pending_status("w2", PendingStatus::Done).await.unwrap();
    assert_eq!(store.count_pending().await.unwrap(), 1);
}

// ---------------------------------------------------------------- update ids, rates, locks

async fn first_delivery_then_redelivery(store: Arc<dyn StateStore>) {
    assert!(store.first_delivery(900_001, HOUR).await.unwrap());
    assert!(!store.first_delivery(900_001, HOUR).await.unwrap());
    assert!(!store.first_delivery(900_001, HOUR).await.unwrap());
    assert!(store.first_delivery(900_002, HOUR).await.unwrap());
}

async fn first_delivery_forgotten_after_ttl(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    assert!(store.first_delivery(900_003, Duration::from_secs(1)).await.unwrap());
    let_pass(&store, Duration::from_millis(1300)).await;
    assert!(store.first_delivery(900_003, HOUR).await.unwrap());
    assert!(!store.first_delivery(900_003, HOUR).await.unwrap());
}

async fn rate_hit_counts_within_a_window(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    let minute = Duration::from_secs(60);
    let mut counts = Vec::new();
    for _ in 0..3 {
        counts.push(store.rate_hit("user:42", minute).await.unwrap());
    }
    assert_eq!(counts, [1, 2, 3]);
    assert_eq!(store.rate_hit("user:43", minute).await.unwrap(), 1);

    let second = Duration::from_secs(1);
    assert_eq!(store.rate_hit("user:44", second).await.unwrap(), 1);
    assert_eq!(store.rate_hit("user:44", second).await.unwrap(), 2);
    let_pass(&store, Duration::from_millis(1300)).await;
    assert_eq!(store.rate_hit("user:44", second).await.unwrap(), 1, "a new window starts from zero");
    assert_eq!(store.rate_hit("user:42", minute).await.unwrap(), 4);
}

async fn try_lock_is_exclusive_and_unlock_needs_the_owner(store: Arc<dyn StateStore>) {
    assert!(store.try_lock("chat:42", "instance-a", HOUR).await.unwrap());
    assert!(!store.try_lock("chat:42", "instance-b", HOUR).await.unwrap());
    assert!(store.try_lock("chat:42", "instance-a", HOUR).await.unwrap(), "the owner may take it again");
    assert!(store.try_lock("chat:43", "instance-b", HOUR).await.unwrap(), "other keys are independent");

    store.unlock("chat:42", "instance-b").await.unwrap();
    assert!(!store.try_lock("chat:42", "instance-b", HOUR).await.unwrap(), "only the owner unlocks");

    store.unlock("chat:42", "instance-a").await.unwrap();
    assert!(store.try_lock("chat:42", "instance-b", HOUR).await.unwrap());
    assert!(!store.try_lock("chat:42", "instance-a", HOUR).await.unwrap());
}

async fn lock_is_free_again_after_its_ttl(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    assert!(store.try_lock("chat:42", "instance-a", Duration::from_secs(1)).await.unwrap());
    assert!(!store.try_lock("chat:42", "instance-b", HOUR).await.unwrap());
    let_pass(&store, Duration::from_millis(1300)).await;
    assert!(store.try_lock("chat:42", "instance-b", HOUR).await.unwrap());
}

// ---------------------------------------------------------------- short-lived values

async fn values_are_kept_replaced_and_read_back(store: Arc<dyn StateStore>) {
    assert_eq!(store.get_value("handoff:42:hAbc").await.unwrap(), None);
    store.put_value("handoff:42:hAbc", "把 Nike 跑鞋加入购物车", HOUR).await.unwrap();
    store.put_value("handoff:43:hAbc", "/cart", HOUR).await.unwrap();
    assert_eq!(store.get_value("handoff:42:hAbc").await.unwrap().as_deref(), Some("把 Nike 跑鞋加入购物车"));
    assert_eq!(
        store.get_value("handoff:42:hAbc").await.unwrap().as_deref(),
        Some("把 Nike 跑鞋加入购物车"),
        "reading does not use it up"
    );

    store.put_value("handoff:42:hAbc", "/orders", HOUR).await.unwrap();
    assert_eq!(store.get_value("handoff:42:hAbc").await.unwrap().as_deref(), Some("/orders"));
    assert_eq!(store.get_value("handoff:43:hAbc").await.unwrap().as_deref(), Some("/cart"));
    assert_eq!(store.get_value("handoff:44:hAbc").await.unwrap(), None);
}

async fn values_expire_after_their_ttl(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    store.put_value("short", "gone soon", Duration::from_secs(1)).await.unwrap();
    store.put_value("long", "stays", HOUR).await.unwrap();
    let_pass(&store, Duration::from_millis(1300)).await;

    assert_eq!(store.get_value("short").await.unwrap(), None);
    assert_eq!(store.take_value("short").await.unwrap(), None);
    assert_eq!(store.get_value("long").await.unwrap().as_deref(), Some("stays"));

    store.put_value("short", "again", HOUR).await.unwrap();
    assert_eq!(store.get_value("short").await.unwrap().as_deref(), Some("again"), "a key can be set anew");
}

async fn a_taken_value_is_gone(store: Arc<dyn StateStore>) {
    store.put_value("handoff:42:hAbc", "看看购物车", HOUR).await.unwrap();
    assert_eq!(store.take_value("handoff:42:hAbc").await.unwrap().as_deref(), Some("看看购物车"));
    assert_eq!(store.take_value("handoff:42:hAbc").await.unwrap(), None);
    assert_eq!(store.get_value("handoff:42:hAbc").await.unwrap(), None);
    assert_eq!(store.take_value("never-set").await.unwrap(), None);
}

async fn concurrent_takes_give_the_value_to_exactly_one(store: Arc<dyn StateStore>) {
    store.put_value("handoff:42:hOnce", "/cart", HOUR).await.unwrap();
    let start = Arc::new(tokio::sync::Barrier::new(20));
    let takers: Vec<_> = (0..20)
        .map(|_| {
            let (store, start) = (Arc::clone(&store), Arc::clone(&start));
            tokio::spawn(async move {
                start.wait().await;
                store.take_value("handoff:42:hOnce").await.unwrap()
            })
        })
        .collect();
    let mut got = Vec::new();
    for taker in takers {
        got.extend(taker.await.unwrap());
    }
    assert_eq!(got, ["/cart"]);
}

// ---------------------------------------------------------------- audit and purge

async fn audit_is_newest_first(store: Arc<dyn StateStore>) {
    assert!(store.recent_audit(10).await.unwrap().is_empty());
    let entries = [
        audit_entry(1_700_000_001, "add_to_cart", "cart-7: 1 item"),
        audit_entry(1_700_000_002, "create_order", "order O-1001"),
        audit_entry(1_700_000_003, "cancel_order", "mall error: order already picked up"),
    ];
    for entry in &entries {
        store.audit(entry).await.unwrap();
    }

    let recent = store.recent_audit(2).await.unwrap();
    assert_eq!(recent, [entries[2].clone(), entries[1].clone()]);
    let all = store.recent_audit(10).await.unwrap();
    assert_eq!(all, [entries[2].clone(), entries[1].clone(), entries[0].clone()]);
    assert!(store.recent_audit(0).await.unwrap().is_empty());
}

async fn purge_removes_expired_and_keeps_live(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    let now = unix_now();
    let short = Duration::from_secs(1);
    for action in [
        pending("long-gone", 1, 1, PendingStatus::Done, now - 2 * PENDING_KEEP_SECS),
        pending("just-done", 1, 1, PendingStatus::Done, now - 10),
        pending("just-expired", 1, 1, PendingStatus::Waiting, now - 10),
        pending("live", 1, 1, PendingStatus::Waiting, now + 600),
    ] {
        store.put_pending(&action).await.unwrap();
    }
    store.save_history("chat:old", conversation(), short).await.unwrap();
    store.save_history("chat:live", conversation(), HOUR).await.unwrap();
    assert!(store.try_lock("lock:old", "a", short).await.unwrap());
    assert!(store.try_lock("lock:live", "a", HOUR).await.unwrap());
    assert!(store.first_delivery(1, short).await.unwrap());
    assert!(store.first_delivery(2, HOUR).await.unwrap());
    store.put_value("value:old", "old", short).await.unwrap();
    store.put_value("value:live", "live", HOUR).await.unwrap();
    let_pass(&store, Duration::from_millis(1300)).await;

    let purged = store.purge_expired().await.unwrap();
    assert!(purged >= 1, "something had expired, yet purge removed {purged} records");
    assert_eq!(store.purge_expired().await.unwrap(), 0, "a second purge finds nothing left");

    // Long expired: forgotten. Recently expired: a late press still hears "already done".
    assert_eq!(store.claim_pending("long-gone", LEASE).await.unwrap(), ClaimOutcome::Expired);
    assert_eq!(store.claim_pending("just-done", LEASE).await.unwrap(), ClaimOutcome::AlreadyDone);
    assert_eq!(store.claim_pending("just-expired", LEASE).await.unwrap(), ClaimOutcome::Expired);
    assert_eq!(store.count_pending().await.unwrap(), 1);
    assert_eq!(store.get_pending("live").await.unwrap().unwrap().token, "live");

    assert!(store.load_history("chat:old").await.unwrap().is_empty());
    assert_eq!(store.load_history("chat:live").await.unwrap(), conversation());
    assert!(!store.try_lock("lock:live", "b", HOUR).await.unwrap());
    assert!(store.try_lock("lock:old", "b", HOUR).await.unwrap());
    assert!(!store.first_delivery(2, HOUR).await.unwrap());
    assert!(store.first_delivery(1, HOUR).await.unwrap());
    assert_eq!(store.get_value("value:old").await.unwrap(), None);
    assert_eq!(store.get_value("value:live").await.unwrap().as_deref(), Some("live"));
}

// ---------------------------------------------------------------- SQLite only

#[tokio::test]
async fn sqlite_history_and_pending_survive_reopen() {
    let db = TempDb::new("reopen");
    let action = waiting("tok-persist");
    {
        let store = db.open().await;
        store.save_history("chat:42", conversation(), HOUR).await.unwrap();
        store.put_pending(&action).await.unwrap();
        store.audit(&audit_entry(1_700_000_001, "create_order", "order O-1001")).await.unwrap();
    }

    let reopened = db.open().await;
    assert_eq!(reopened.load_history("chat:42").await.unwrap(), conversation());
    assert_eq!(reopened.get_pending("tok-persist").await.unwrap(), Some(action));
    assert_eq!(reopened.recent_audit(5).await.unwrap()[0].result, "order O-1001");
    assert!(matches!(reopened.claim_pending("tok-persist", LEASE).await.unwrap(), ClaimOutcome::Claimed(_)));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sqlite_two_openers_of_one_file_share_state_and_claims() {
    let db = TempDb::new("two-openers");
    let (first, second) = (db.open().await, db.open().await);
    first.put_pending(&waiting("tok-shared")).await.unwrap();
    second.save_history("chat:42", conversation(), HOUR).await.unwrap();
    assert_eq!(first.load_history("chat:42").await.unwrap(), conversation());

    let start = Arc::new(tokio::sync::Barrier::new(20));
    let presses: Vec<_> = (0..20)
        .map(|i| {
            let store = Arc::clone(if i % 2 == 0 { &first } else { &second });
            let start = Arc::clone(&start);
            tokio::spawn(async move {
                start.wait().await;
                store.claim_pending("tok-shared", LEASE).await.unwrap()
            })
        })
        .collect();
    let mut winners = 0;
    for press in presses {
        if matches!(press.await.unwrap(), ClaimOutcome::Claimed(_)) {
            winners += 1;
        }
    }
    assert_eq!(winners, 1);
}

#[tokio::test]
async fn sqlite_creates_the_parent_directory() {
    let dir = std::env::temp_dir().join(format!("mallbot-state-dir-{}", unique("parent")));
    let path = dir.join("nested").join("state.db");
    let store = SqliteStore::open(path.to_str().unwrap()).await.unwrap();
    store.save_history("chat:1", conversation(), HOUR).await.unwrap();
    assert!(path.exists());
    assert!(store.describe().contains("nested/state.db"), "{}", store.describe());
    drop(store);
    std::fs::remove_dir_all(dir).unwrap();
}

// ---------------------------------------------------------------- opening by URL

#[tokio::test]
async fn open_dispatches_on_the_url() {
    let memory = mallbot::state::open("memory://").await.unwrap();
    assert_eq!(memory.describe(), "memory");

    let db = TempDb::new("open-url");
    let sqlite = mallbot::state::open(&format!("sqlite://{}", db.path())).await.unwrap();
    assert_eq!(sqlite.describe(), format!("sqlite:{}", db.path()));
    sqlite.health().await.unwrap();

    let Err(StateError::BadUrl(message)) = mallbot::state::open("mysql://localhost/mallbot").await else {
        panic!("an unsupported URL must be refused");
    };
    assert!(message.contains("sqlite://PATH"), "{message}");
}

#[tokio::test]
async fn sqlite_values_survive_reopen() {
    let db = TempDb::new("values-reopen");
    db.open().await.put_value("handoff:42:hAbc", "/cart", HOUR).await.unwrap();
    assert_eq!(db.open().await.take_value("handoff:42:hAbc").await.unwrap().as_deref(), Some("/cart"));
}

#[tokio::test]
async fn a_redis_url_prefix_keeps_deployments_apart() {
    let shop1 = unique("shop1");
    let shop2 = unique("shop2");
    let Some(_) = redis_store(&format!("mallbot-test:{shop1}")).await else { return };
    let first = mallbot::state::open(&format!("{REDIS_URL}/0?prefix=mallbot-test:{shop1}")).await.unwrap();
    let again = mallbot::state::open(&format!("{REDIS_URL}/0?prefix=mallbot-test:{shop1}")).await.unwrap();
    let other = mallbot::state::open(&format!("{REDIS_URL}/0?prefix=mallbot-test:{shop2}")).await.unwrap();
    assert!(first.describe().contains(&format!("mallbot-test:{shop1}:")), "{}", first.describe());

    first.put_value("handoff:42:hAbc", "/cart", HOUR).await.unwrap();
    assert!(first.first_delivery(7, HOUR).await.unwrap());
    assert_eq!(again.get_value("handoff:42:hAbc").await.unwrap().as_deref(), Some("/cart"));
    assert!(!again.first_delivery(7, HOUR).await.unwrap(), "same prefix: same state");
    assert_eq!(other.get_value("handoff:42:hAbc").await.unwrap(), None);
    assert!(other.first_delivery(7, HOUR).await.unwrap(), "another prefix: state of its own");

    let client = redis::Client::open(REDIS_URL).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    let raw: Option<String> = redis::cmd("GET")
        .arg(format!("mallbot-test:{shop1}:value:handoff:42:hAbc"))
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(raw.as_deref(), Some("/cart"), "the key lives under the URL's prefix");
    redis_cleanup(&format!("mallbot-test:{shop1}")).await;
    redis_cleanup(&format!("mallbot-test:{shop2}")).await;
}

#[tokio::test]
async fn a_bad_redis_prefix_is_refused_naming_the_rule() {
    for url in ["redis://127.0.0.1:6379/0?prefix=", "redis://127.0.0.1:6379/0?prefix=shop 1"] {
        let Err(StateError::BadUrl(message)) = mallbot::state::open(url).await else {
            panic!("{url} must be refused");
        };
        assert!(message.contains("prefix") && message.contains("?prefix=shop1"), "{message}");
    }
}

#[tokio::test]
async fn unreachable_redis_fails_fast_naming_the_address_without_the_password() {
    let Err(StateError::Unavailable(message)) =
        RedisStore::connect("redis://mallbot:s3cret-pw@127.0.0.1:1/0").await
    else {
        panic!("nothing listens on port 1");
    };
    assert!(message.contains("127.0.0.1:1"), "{message}");
    assert!(!message.contains("s3cret-pw"), "{message}");
}

// ---------------------------------------------------------------- lock releases across instances

#[tokio::test]
async fn on_redis_a_waiting_instance_is_woken_by_the_release_not_by_its_timeout() {
    let prefix = unique("wake");
    let (Some(holder), Some(waiter)) = (redis_store(&prefix).await, redis_store(&prefix).await) else {
        return;
    };
    // The subscription comes up in the background; give it a moment.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(holder.try_lock("conversation:x", "a", HOUR).await.unwrap());
    assert!(!waiter.try_lock("conversation:x", "b", HOUR).await.unwrap());
    let started = std::time::Instant::now();
    let release = tokio::spawn({
        let holder = holder.clone();
        async move {
            tokio::time::sleep(Duration::from_millis(800)).await;
            holder.unlock("conversation:x", "a").await.unwrap();
        }
    });
    waiter.wait_unlock("conversation:x", Duration::from_secs(20)).await;
    assert!(
        waiter.try_lock("conversation:x", "b", HOUR).await.unwrap(),
        "the wait ended with the release (after {:?}), not before it",
        started.elapsed()
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "woken by the release, not the 20 s timeout: {:?}",
        started.elapsed()
    );
    release.await.unwrap();
    // Already released before waiting: no wait at all.
    waiter.unlock("conversation:x", "b").await.unwrap();
    let started = std::time::Instant::now();
    waiter.wait_unlock("conversation:x", Duration::from_secs(20)).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    redis_cleanup(&prefix).await;
}

async fn counters_add_up_across_concurrent_callers_and_expire(store: Arc<dyn StateStore>) {
    let _clock = CLOCK.lock().await;
    let key = format!("stats:{}", unique("day"));
    let adds = (0..20).map(|i| {
        let (store, key) = (store.clone(), key.clone());
        async move {
            let user = format!("u:{}", i % 4);
            store.add_counts(&[(&key, "messages", 1), (&key, &user, 1), (&key, "tokens_in", 100)], HOUR).await
        }
    });
    for result in futures::future::join_all(adds).await {
        result.unwrap();
    }
    let counts = store.counts(&key).await.unwrap();
    assert_eq!(counts["messages"], 20, "no increment lost: {counts:?}");
    assert_eq!(counts["tokens_in"], 2000);
    assert_eq!(counts.keys().filter(|k| k.starts_with("u:")).count(), 4, "four distinct shoppers");
    assert!(store.counts("stats:never").await.unwrap().is_empty());

    let short = format!("short:{}", unique("c"));
    store.add_counts(&[(&short, "n", 5)], Duration::from_millis(300)).await.unwrap();
    let_pass(&store, Duration::from_millis(700)).await;
    assert!(store.counts(&short).await.unwrap().is_empty(), "expired counters are gone");
    store.add_counts(&[(&short, "n", 2)], HOUR).await.unwrap();
    assert_eq!(store.counts(&short).await.unwrap()["n"], 2, "an expired counter starts again from 0");

    // A key lives from its last change: a field written early is still
    // counted while other fields of the key keep changing.
    let day = format!("day:{}", unique("d"));
    let ttl = Duration::from_millis(800);
    store.add_counts(&[(&day, "u:early", 1)], ttl).await.unwrap();
    for _ in 0..3 {
        let_pass(&store, Duration::from_millis(400)).await;
        store.add_counts(&[(&day, "messages", 1)], ttl).await.unwrap();
    }
    let counts = store.counts(&day).await.unwrap();
    assert_eq!(counts.get("u:early"), Some(&1), "the early field lives with its key: {counts:?}");
    assert_eq!(counts.get("messages"), Some(&3));
    assert_eq!(counts.len(), 2, "only the fields written: {counts:?}");
}

// ---------------------------------------------------------------- outbox

/// The outbox cases, stamped out for the three backends like the others.
mod outbox {
    use super::*;
    use mallbot::state::{OutboxEntry, unix_now_ms};

    fn entry(id: &str, created_ms: i64, due_ms: i64) -> OutboxEntry {
        OutboxEntry {
            id: id.into(),
            chat_id: GROUP_CHAT,
            created_ms,
            due_ms,
            payload: format!("{{\"text\":\"answer {id}\"}}"),
        }
    }

    fn ids(entries: &[OutboxEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.id.as_str()).collect()
    }

    pub(super) async fn outbox_gives_due_entries_oldest_first_once_per_lease(store: Arc<dyn StateStore>) {
        let now = unix_now_ms();
        store.outbox_put(&entry("b", now - 1000, now - 10)).await.unwrap();
        store.outbox_put(&entry("a", now - 2000, now - 10)).await.unwrap();
        store.outbox_put(&entry("later", now - 3000, now + 60_000)).await.unwrap();

        let claimed = store.outbox_claim(LEASE, 10).await.unwrap();
        assert_eq!(ids(&claimed), ["a", "b"], "only the due ones, oldest first");
        assert_eq!(claimed[0].payload, "{\"text\":\"answer a\"}");
        assert_eq!(claimed[0].chat_id, GROUP_CHAT);
        assert!(claimed[0].due_ms >= now + 59_000, "due again after the lease: {}", claimed[0].due_ms);
        assert!(
            store.outbox_claim(LEASE, 10).await.unwrap().is_empty(),
            "claimed entries are not given twice"
        );

        assert!(store.outbox_remove("a").await.unwrap());
        assert!(!store.outbox_remove("a").await.unwrap(), "removed once");
    }

    pub(super) async fn outbox_claims_respect_the_limit(store: Arc<dyn StateStore>) {
        let now = unix_now_ms();
        for i in 0..5 {
            store.outbox_put(&entry(&format!("e{i}"), now - 5000 + i, now)).await.unwrap();
        }
        assert_eq!(ids(&store.outbox_claim(LEASE, 2).await.unwrap()), ["e0", "e1"]);
        assert_eq!(ids(&store.outbox_claim(LEASE, 10).await.unwrap()), ["e2", "e3", "e4"]);
    }

    pub(super) async fn an_outbox_entry_is_due_again_after_its_lease_or_when_rescheduled(
        store: Arc<dyn StateStore>,
    ) {
        let _clock = super::CLOCK.lock().await;
        let now = unix_now_ms();
        store.outbox_put(&entry("x", now, now)).await.unwrap();
        let lease = Duration::from_millis(300);
        assert_eq!(store.outbox_claim(lease, 10).await.unwrap().len(), 1);
        assert!(store.outbox_claim(lease, 10).await.unwrap().is_empty());
        super::let_pass(&store, Duration::from_millis(400)).await;
        let again = store.outbox_claim(LEASE, 10).await.unwrap();
        assert_eq!(ids(&again), ["x"], "a claimer that died leaves it to the next");

        let mut rescheduled = again[0].clone();
        rescheduled.payload = "{\"text\":\"answer x\",\"parts_sent\":1}".into();
        rescheduled.due_ms = unix_now_ms() - 1;
        store.outbox_put(&rescheduled).await.unwrap();
        let claimed = store.outbox_claim(LEASE, 10).await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert_eq!(claimed[0].payload, rescheduled.payload, "the new payload replaced the old");
        assert_eq!(claimed[0].created_ms, now, "its age is kept");
    }

    pub(super) async fn concurrent_outbox_claims_give_each_entry_to_one_claimer(store: Arc<dyn StateStore>) {
        let now = unix_now_ms();
        for i in 0..30 {
            store.outbox_put(&entry(&format!("c{i:02}"), now - 100 + i, now - 1)).await.unwrap();
        }
        let start = Arc::new(tokio::sync::Barrier::new(8));
        let claimers: Vec<_> = (0..8)
            .map(|_| {
                let (store, start) = (Arc::clone(&store), Arc::clone(&start));
                tokio::spawn(async move {
                    start.wait().await;
                    let mut mine = Vec::new();
                    for _ in 0..4 {
                        mine.extend(store.outbox_claim(LEASE, 3).await.unwrap().into_iter().map(|e| e.id));
                    }
                    mine
                })
            })
            .collect();
        let mut all = Vec::new();
        for claimer in claimers {
            all.extend(claimer.await.unwrap());
        }
        all.sort();
        let expected: Vec<String> = (0..30).map(|i| format!("c{i:02}")).collect();
        assert_eq!(all, expected, "every entry claimed exactly once");
    }

    suite!(
        outbox_gives_due_entries_oldest_first_once_per_lease,
        outbox_claims_respect_the_limit,
        an_outbox_entry_is_due_again_after_its_lease_or_when_rescheduled,
        concurrent_outbox_claims_give_each_entry_to_one_claimer,
    );
}

#[tokio::test]
async fn sqlite_outbox_survives_reopen() {
    let db = TempDb::new("outbox-reopen");
    let now = mallbot::state::unix_now_ms();
    let entry = mallbot::state::OutboxEntry {
        id: "left".into(),
        chat_id: 7,
        created_ms: now,
        due_ms: now,
        payload: "{}".into(),
    };
    db.open().await.outbox_put(&entry).await.unwrap();
    let reopened = db.open().await;
    let claimed = reopened.outbox_claim(LEASE, 10).await.unwrap();
    assert_eq!(claimed.len(), 1);
    assert_eq!(claimed[0].id, "left");
}
