//! The SQLite [`StateStore`] (`sqlite://PATH`, the default): one file in WAL
//! mode that several processes on the same machine may share.
//!
//! One writer thread owns the connection. Statements that arrive while it is
//! busy wait in a queue and then run together in one transaction (group
//! commit), each in its own savepoint so that one failing statement does not
//! undo the others. A caller hears back only after its transaction has
//! committed, so a confirmation or an order the bot acted on survives a
//! kill -9. With `synchronous = NORMAL` in WAL mode a commit is not flushed
//! to disk at once: a power cut (not a crash of the bot) may lose the last
//! commits, never corrupt the file.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};
use rusqlite::{Connection, OptionalExtension, Row, ToSql, params};
use tokio::sync::{mpsc, oneshot};

use super::{
    AuditEntry, ClaimOutcome, OutboxEntry, PENDING_KEEP_SECS, PendingStatus, StateError, StateStore,
    StoredPending, lease_secs, ttl_millis, unix_now, unix_now_ms,
};
use crate::llm::ChatMessage;

/// How long a statement waits for another process's write to finish.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// At most this many queued statements share one transaction.
const MAX_BATCH: usize = 256;
/// Prepared statements kept for reuse (the store uses about 30).
const STATEMENT_CACHE: usize = 64;

/// The tables, created on first start.
const SCHEMA: &str = "
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS history (
    conversation TEXT PRIMARY KEY,
    messages TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS pending (
    token TEXT PRIMARY KEY,
    user_id INTEGER NOT NULL,
    chat_id INTEGER NOT NULL,
    tool TEXT NOT NULL,
    payload TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    status TEXT NOT NULL,
    claimed_until INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS pending_by_user ON pending (chat_id, user_id, status);
CREATE INDEX IF NOT EXISTS pending_by_expiry ON pending (expires_at);
CREATE TABLE IF NOT EXISTS updates (
    update_id INTEGER PRIMARY KEY,
    expires_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS rate_counters (
    key TEXT PRIMARY KEY,
    count INTEGER NOT NULL,
    window_ends_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS locks (
    key TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS counters (
    key TEXT NOT NULL,
    field TEXT NOT NULL,
    value INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL,
    PRIMARY KEY (key, field)
);
CREATE TABLE IF NOT EXISTS kv_values (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    at INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    chat_id INTEGER NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    decision TEXT NOT NULL,
    result TEXT NOT NULL
);
PRAGMA user_version = 2;
COMMIT;
";

/// The outbox table, created on first start.
const OUTBOX_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS outbox (
    id TEXT PRIMARY KEY,
    chat_id INTEGER NOT NULL,
    created_ms INTEGER NOT NULL,
    due_ms INTEGER NOT NULL,
    payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS outbox_by_due ON outbox (due_ms);
";

/// Claims the due entries, oldest first: they are due again after the lease.
const OUTBOX_CLAIM_SQL: &str = "UPDATE outbox SET due_ms = ?2
    WHERE id IN (SELECT id FROM outbox WHERE due_ms <= ?1 ORDER BY created_ms, id LIMIT ?3)
    RETURNING id, chat_id, created_ms, due_ms, payload";

/// Takes a claimable action (open, or claimed past its lease) that has not expired.
const CLAIM_SQL: &str = "UPDATE pending SET status = 'claimed', claimed_until = ?2
    WHERE token = ?1 AND expires_at > ?3
      AND (status IN ('waiting', 'awaiting_code') OR (status = 'claimed' AND claimed_until < ?3))
    RETURNING token, user_id, chat_id, tool, payload, expires_at, status, claimed_until";

/// The state in one SQLite file.
#[derive(Debug)]
pub struct SqliteStore {
    jobs: mpsc::UnboundedSender<Job>,
    path: String,
}

/// Work for the writer thread: runs inside the batch's transaction, then
/// hears whether that transaction committed.
type Job = Box<dyn FnOnce(&mut Connection) -> Finish + Send>;
/// Tells the caller its result once the batch is committed (or why not).
type Finish = Box<dyn FnOnce(Option<&rusqlite::Error>) + Send>;

impl ToSql for PendingStatus {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::from(self.as_str()))
    }
}

impl FromSql for PendingStatus {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let name = value.as_str()?;
        PendingStatus::from_name(name)
            .ok_or_else(|| FromSqlError::Other(format!("unknown pending status `{name}`").into()))
    }
}

impl SqliteStore {
    /// Opens (or creates, with its parent directory and tables) the database at `path`.
    pub async fn open(path: &str) -> Result<SqliteStore, StateError> {
        let owned = path.to_string();
        let conn = tokio::task::spawn_blocking(move || open_blocking(&owned))
            .await
            .map_err(|e| StateError::Unavailable(format!("sqlite {path}: opening failed: {e}")))??;
        let (jobs, queue) = mpsc::unbounded_channel();
        std::thread::Builder::new()
            .name("sqlite-state".into())
            .spawn(move || writer(conn, queue))
            .map_err(|e| StateError::Unavailable(format!("sqlite {path}: no writer thread: {e}")))?;
        tracing::info!(path, "sqlite state store opened");
        Ok(SqliteStore { jobs, path: path.to_string() })
    }

    /// Runs `work` on the writer thread, atomically (in its own savepoint),
    /// and returns its result once it is committed.
    async fn run<T, F>(&self, work: F) -> Result<T, StateError>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> rusqlite::Result<T> + Send + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let job: Job = Box::new(move |conn| {
            let result = in_savepoint(conn, work);
            Box::new(move |commit_failed: Option<&rusqlite::Error>| {
                let result = match commit_failed {
                    Some(e) => Err((false, format!("commit failed: {e}"))),
                    None => result.map_err(sql_error_text),
                };
                let _ = reply.send(result);
            })
        });
        let gone = || StateError::Unavailable(format!("sqlite {}: the writer thread stopped", self.path));
        self.jobs.send(job).map_err(|_| gone())?;
        match answer.await.map_err(|_| gone())? {
            Ok(value) => Ok(value),
            Err((corrupt, text)) if corrupt => {
                Err(StateError::Corrupt(format!("sqlite {}: {text}", self.path)))
            }
            Err((_, text)) => Err(StateError::Unavailable(format!("sqlite {}: {text}", self.path))),
        }
    }
}

/// The writer thread: takes what is queued, runs it in one transaction,
/// commits, then answers every caller. Ends when the store is dropped.
fn writer(mut conn: Connection, mut queue: mpsc::UnboundedReceiver<Job>) {
    let mut batch: Vec<Job> = Vec::with_capacity(MAX_BATCH);
    while let Some(first) = queue.blocking_recv() {
        batch.push(first);
        while batch.len() < MAX_BATCH {
            match queue.try_recv() {
                Ok(job) => batch.push(job),
                Err(_) => break,
            }
        }
        if let Err(e) = conn.exec("BEGIN IMMEDIATE", []) {
            for job in batch.drain(..) {
                // Each statement on its own: the store may still be usable.
                let finish = job(&mut conn);
                finish(None);
            }
            tracing::warn!(error = %e, "sqlite: a batch ran without a shared transaction");
            continue;
        }
        let finishes: Vec<Finish> = batch.drain(..).map(|job| job(&mut conn)).collect();
        let committed = conn.exec("COMMIT", []).map(drop);
        if committed.is_err() {
            let _ = conn.execute_batch("ROLLBACK");
        }
        for finish in finishes {
            finish(committed.as_ref().err());
        }
    }
}

/// Runs `work` so that it either wholly happens or not at all, inside
/// whatever transaction is open.
fn in_savepoint<T>(
    conn: &mut Connection,
    work: impl FnOnce(&mut Connection) -> rusqlite::Result<T>,
) -> rusqlite::Result<T> {
    // Cached statements: a batch runs these once per job, and preparing
    // them anew each time cost more than most jobs themselves.
    conn.exec("SAVEPOINT job", [])?;
    match work(conn) {
        Ok(value) => {
            conn.exec("RELEASE job", [])?;
            Ok(value)
        }
        Err(e) => {
            let _ = conn.execute_batch("ROLLBACK TO job; RELEASE job");
            Err(e)
        }
    }
}

/// Statements prepared once and then reused from the connection's cache.
trait Cached {
    /// Runs a statement; returns the rows changed.
    fn exec<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize>;
    /// Runs a query and reads its first row.
    fn row<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        read: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T>;
}

impl Cached for Connection {
    fn exec<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.prepare_cached(sql)?.execute(params)
    }

    fn row<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        read: impl FnOnce(&Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.prepare_cached(sql)?.query_row(params, read)
    }
}

/// Opens the file, sets WAL mode and the busy timeout, and creates the tables.
fn open_blocking(path: &str) -> Result<Connection, StateError> {
    let failed = |e: rusqlite::Error| sql_error(path, e);
    if let Some(parent) = Path::new(path).parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            StateError::Unavailable(format!("sqlite {path}: cannot create {}: {e}", parent.display()))
        })?;
    }
    let conn = Connection::open(path).map_err(failed)?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(failed)?;
    conn.set_prepared_statement_cache_capacity(STATEMENT_CACHE);
    // Plans made once per statement: without this, SQLite re-prepares a
    // cached statement whose plan might depend on a bound value at every
    // new binding (the counters' liveness check was re-prepared on each use,
    // a seventh of the bot's CPU on a busy turn).
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).map_err(failed)?;
    let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0)).map_err(failed)?;
    if mode != "wal" {
        tracing::warn!(path, mode, "sqlite state store is not in WAL mode");
    }
    conn.pragma_update(None, "synchronous", "NORMAL").map_err(failed)?;
    conn.execute_batch(SCHEMA).map_err(failed)?;
    conn.execute_batch(OUTBOX_SCHEMA).map_err(failed)?;
    // A SQLite state file serves one bot: answers a previous run was still
    // sending when it stopped (even by kill -9) are due now, not after their
    // lease. (Were a second process sharing the file mid-send, that answer
    // could arrive twice: the accepted trade-off over a lost answer.)
    let resumed = conn.execute("UPDATE outbox SET due_ms = 0 WHERE due_ms > 0", []).map_err(failed)?;
    if resumed > 0 {
        tracing::info!(path, answers = resumed, "answers left unsent by the previous run are due now");
    }
    Ok(conn)
}

/// A failed statement as (corrupt?, what): unreadable data is corrupt,
/// anything else unavailable.
fn sql_error_text(e: rusqlite::Error) -> (bool, String) {
    let corrupt =
        matches!(e, rusqlite::Error::FromSqlConversionFailure(..) | rusqlite::Error::InvalidColumnType(..));
    (corrupt, e.to_string())
}

/// A failed statement: unreadable data is corrupt, anything else unavailable.
fn sql_error(path: &str, e: rusqlite::Error) -> StateError {
    match e {
        rusqlite::Error::FromSqlConversionFailure(..) | rusqlite::Error::InvalidColumnType(..) => {
            StateError::Corrupt(format!("sqlite {path}: {e}"))
        }
        _ => StateError::Unavailable(format!("sqlite {path}: {e}")),
    }
}

fn pending_from_row(row: &Row<'_>) -> rusqlite::Result<StoredPending> {
    Ok(StoredPending {
        token: row.get(0)?,
        user_id: row.get(1)?,
        chat_id: row.get(2)?,
        tool: row.get(3)?,
        payload: row.get(4)?,
        expires_at: row.get(5)?,
        status: row.get(6)?,
        claimed_until: row.get(7)?,
    })
}

fn audit_from_row(row: &Row<'_>) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        at: row.get(0)?,
        user_id: row.get(1)?,
        chat_id: row.get(2)?,
        tool: row.get(3)?,
        arguments: row.get(4)?,
        decision: row.get(5)?,
        result: row.get(6)?,
    })
}

/// Claims the action (atomically: [`SqliteStore::run`]), or says why it cannot be claimed.
fn claim_blocking(
    conn: &mut Connection,
    token: &str,
    now: i64,
    lease: i64,
) -> rusqlite::Result<ClaimOutcome> {
    let claimed = conn
        .prepare_cached(CLAIM_SQL)?
        .query_row(params![token, now + lease, now], pending_from_row)
        .optional()?;
    let outcome = match claimed {
        Some(pending) => ClaimOutcome::Claimed(pending),
        None => {
            let found = conn
                .prepare_cached("SELECT status, expires_at, claimed_until FROM pending WHERE token = ?1")?
                .query_row([token], |row| {
                    Ok((row.get::<_, PendingStatus>(0)?, row.get::<_, i64>(1)?, row.get::<_, i64>(2)?))
                })
                .optional()?;
            refusal(found, now)
        }
    };
    Ok(outcome)
}

/// Why an action that could not be claimed at `now` was refused.
fn refusal(found: Option<(PendingStatus, i64, i64)>, now: i64) -> ClaimOutcome {
    match found {
        None => ClaimOutcome::Expired,
        Some((PendingStatus::Done, _, _)) => ClaimOutcome::AlreadyDone,
        Some((PendingStatus::Claimed, _, claimed_until)) if claimed_until >= now => ClaimOutcome::InProgress,
        Some((_, expires_at, _)) if expires_at <= now => ClaimOutcome::Expired,
        Some(_) => ClaimOutcome::InProgress,
    }
}

/// The field of a counter key's own row, which holds when the key expires
/// (one row to touch per key, however many fields it has).
const KEY_ROW: &str = "";

/// Whether counter `key` has not expired: by its own row, or (written before
/// keys had one) by its newest field.
fn counter_key_live(conn: &Connection, key: &str, now_ms: i64) -> rusqlite::Result<bool> {
    conn.row(
        "SELECT COALESCE(
             (SELECT expires_ms FROM counters WHERE key = ?1 AND field = ''),
             (SELECT MAX(expires_ms) FROM counters WHERE key = ?1),
             0) > ?2",
        params![key, now_ms],
        |row| row.get(0),
    )
}

/// Deletes everything expired; returns how many rows went.
fn purge_blocking(conn: &mut Connection, now: i64, now_ms: i64) -> rusqlite::Result<u64> {
    let mut purged = conn.execute("DELETE FROM pending WHERE expires_at <= ?1", [now - PENDING_KEEP_SECS])?;
    for sql in [
        "DELETE FROM history WHERE expires_ms <= ?1",
        "DELETE FROM updates WHERE expires_ms <= ?1",
        "DELETE FROM rate_counters WHERE window_ends_ms <= ?1",
        "DELETE FROM locks WHERE expires_ms <= ?1",
        "DELETE FROM kv_values WHERE expires_ms <= ?1",
        "DELETE FROM counters WHERE key IN (SELECT key FROM counters WHERE field = '' AND expires_ms <= ?1)",
        "DELETE FROM counters WHERE expires_ms <= ?1
           AND key NOT IN (SELECT key FROM counters WHERE field = '')",
    ] {
        purged += conn.execute(sql, [now_ms])?;
    }
    Ok(purged as u64)
}

#[async_trait]
impl StateStore for SqliteStore {
    fn describe(&self) -> String {
        format!("sqlite:{}", self.path)
    }

    async fn health(&self) -> Result<(), StateError> {
        self.run(|conn| conn.row("SELECT 1", [], |row| row.get::<_, i64>(0))).await.map(drop)
    }

    async fn load_history(&self, conversation: &str) -> Result<Vec<ChatMessage>, StateError> {
        let conversation = conversation.to_string();
        let stored: Option<String> = self
            .run(move |conn| {
                conn.row(
                    "SELECT messages FROM history WHERE conversation = ?1 AND expires_ms > ?2",
                    params![conversation, unix_now_ms()],
                    |row| row.get(0),
                )
                .optional()
            })
            .await?;
        match stored {
            Some(json) => serde_json::from_str(&json)
                .map_err(|e| StateError::Corrupt(format!("sqlite {}: history: {e}", self.path))),
            None => Ok(Vec::new()),
        }
    }

    async fn save_history(
        &self,
        conversation: &str,
        messages: Vec<ChatMessage>,
        ttl: Duration,
    ) -> Result<(), StateError> {
        let json = serde_json::to_string(&messages)
            .map_err(|e| StateError::Corrupt(format!("history cannot be encoded: {e}")))?;
        let conversation = conversation.to_string();
        let expires_ms = unix_now_ms() + ttl_millis(ttl);
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO history (conversation, messages, expires_ms) VALUES (?1, ?2, ?3)",
                params![conversation, json, expires_ms],
            )
        })
        .await
        .map(drop)
    }

    async fn clear_history(&self, conversation: &str) -> Result<(), StateError> {
        let conversation = conversation.to_string();
        self.run(move |conn| conn.exec("DELETE FROM history WHERE conversation = ?1", [conversation]))
            .await
            .map(drop)
    }

    async fn put_pending(&self, pending: &StoredPending) -> Result<(), StateError> {
        let p = pending.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO pending
                 (token, user_id, chat_id, tool, payload, expires_at, status, claimed_until)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                params![
                    p.token,
                    p.user_id,
                    p.chat_id,
                    p.tool,
                    p.payload,
                    p.expires_at,
                    p.status,
                    p.claimed_until
                ],
            )
        })
        .await
        .map(drop)
    }

    async fn get_pending(&self, token: &str) -> Result<Option<StoredPending>, StateError> {
        let token = token.to_string();
        self.run(move |conn| {
            conn.row(
                "SELECT token, user_id, chat_id, tool, payload, expires_at, status, claimed_until
                 FROM pending WHERE token = ?1 AND expires_at > ?2",
                params![token, unix_now()],
                pending_from_row,
            )
            .optional()
        })
        .await
    }

    async fn claim_pending(&self, token: &str, lease: Duration) -> Result<ClaimOutcome, StateError> {
        let token = token.to_string();
        let lease = lease_secs(lease);
        self.run(move |conn| claim_blocking(conn, &token, unix_now(), lease)).await
    }

    async fn set_pending_status(&self, token: &str, status: PendingStatus) -> Result<(), StateError> {
        let token = token.to_string();
        self.run(move |conn| {
            conn.exec("UPDATE pending SET status = ?2 WHERE token = ?1", params![token, status])
        })
        .await
        .map(drop)
    }

    async fn pending_for(
        &self,
        chat_id: i64,
        user_id: i64,
        status: PendingStatus,
    ) -> Result<Vec<StoredPending>, StateError> {
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT token, user_id, chat_id, tool, payload, expires_at, status, claimed_until FROM pending
                 WHERE chat_id = ?1 AND user_id = ?2 AND status = ?3 AND expires_at > ?4
                 ORDER BY expires_at DESC, rowid DESC",
            )?;
            let rows = stmt.query_map(params![chat_id, user_id, status, unix_now()], pending_from_row)?;
            rows.collect()
        })
        .await
    }

    async fn count_pending(&self) -> Result<u64, StateError> {
        let count: i64 = self
            .run(|conn| {
                conn.row(
                    "SELECT COUNT(*) FROM pending
                     WHERE status IN ('waiting', 'awaiting_code') AND expires_at > ?1",
                    [unix_now()],
                    |row| row.get(0),
                )
            })
            .await?;
        Ok(count.max(0) as u64)
    }

    async fn first_delivery(&self, update_id: i64, ttl: Duration) -> Result<bool, StateError> {
        let now_ms = unix_now_ms();
        let expires_ms = now_ms + ttl_millis(ttl);
        let changed = self
            .run(move |conn| {
                conn.exec(
                    "INSERT INTO updates (update_id, expires_ms) VALUES (?1, ?2)
                     ON CONFLICT (update_id) DO UPDATE SET expires_ms = excluded.expires_ms
                     WHERE updates.expires_ms <= ?3",
                    params![update_id, expires_ms, now_ms],
                )
            })
            .await?;
        Ok(changed == 1)
    }

    async fn rate_hit(&self, user: &str, window: Duration) -> Result<u32, StateError> {
        let window_ms = ttl_millis(window);
        let key = format!("{user}|{window_ms}");
        let now_ms = unix_now_ms();
        let count: i64 = self
            .run(move |conn| {
                conn.row(
                    "INSERT INTO rate_counters (key, count, window_ends_ms) VALUES (?1, 1, ?2)
                     ON CONFLICT (key) DO UPDATE SET
                       count = CASE WHEN rate_counters.window_ends_ms <= ?3
                                    THEN 1 ELSE rate_counters.count + 1 END,
                       window_ends_ms = CASE WHEN rate_counters.window_ends_ms <= ?3
                                    THEN excluded.window_ends_ms ELSE rate_counters.window_ends_ms END
                     RETURNING count",
                    params![key, now_ms + window_ms, now_ms],
                    |row| row.get(0),
                )
            })
            .await?;
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    }

    async fn try_lock(&self, key: &str, owner: &str, ttl: Duration) -> Result<bool, StateError> {
        let (key, owner) = (key.to_string(), owner.to_string());
        let now_ms = unix_now_ms();
        let expires_ms = now_ms + ttl_millis(ttl);
        let changed = self
            .run(move |conn| {
                conn.exec(
                    "INSERT INTO locks (key, owner, expires_ms) VALUES (?1, ?2, ?3)
                     ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, expires_ms = excluded.expires_ms
                     WHERE locks.owner = excluded.owner OR locks.expires_ms <= ?4",
                    params![key, owner, expires_ms, now_ms],
                )
            })
            .await?;
        Ok(changed == 1)
    }

    async fn unlock(&self, key: &str, owner: &str) -> Result<(), StateError> {
        let (key, owner) = (key.to_string(), owner.to_string());
        self.run(move |conn| conn.exec("DELETE FROM locks WHERE key = ?1 AND owner = ?2", [key, owner]))
            .await
            .map(drop)
    }

    async fn put_value(&self, key: &str, value: &str, ttl: Duration) -> Result<(), StateError> {
        let (key, value) = (key.to_string(), value.to_string());
        let expires_ms = unix_now_ms() + ttl_millis(ttl);
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO kv_values (key, value, expires_ms) VALUES (?1, ?2, ?3)",
                params![key, value, expires_ms],
            )
        })
        .await
        .map(drop)
    }

    async fn get_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let key = key.to_string();
        self.run(move |conn| {
            conn.row(
                "SELECT value FROM kv_values WHERE key = ?1 AND expires_ms > ?2",
                params![key, unix_now_ms()],
                |row| row.get(0),
            )
            .optional()
        })
        .await
    }

    async fn take_value(&self, key: &str) -> Result<Option<String>, StateError> {
        let key = key.to_string();
        let taken: Option<(String, i64)> = self
            .run(move |conn| {
                conn.row("DELETE FROM kv_values WHERE key = ?1 RETURNING value, expires_ms", [key], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .optional()
            })
            .await?;
        let now_ms = unix_now_ms();
        Ok(taken.filter(|(_, expires_ms)| *expires_ms > now_ms).map(|(value, _)| value))
    }

    async fn audit(&self, entry: &AuditEntry) -> Result<(), StateError> {
        let e = entry.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT INTO audit (at, user_id, chat_id, tool, arguments, decision, result)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![e.at, e.user_id, e.chat_id, e.tool, e.arguments, e.decision, e.result],
            )
        })
        .await
        .map(drop)
    }

    async fn recent_audit(&self, limit: usize) -> Result<Vec<AuditEntry>, StateError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.run(move |conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT at, user_id, chat_id, tool, arguments, decision, result
                 FROM audit ORDER BY id DESC LIMIT ?1",
            )?;
            let rows = stmt.query_map([limit], audit_from_row)?;
            rows.collect()
        })
        .await
    }

    async fn add_counts(&self, deltas: &[(&str, &str, i64)], ttl: Duration) -> Result<(), StateError> {
        let deltas: Vec<(String, String, i64)> =
            deltas.iter().map(|(k, f, d)| ((*k).to_owned(), (*f).to_owned(), *d)).collect();
        let now_ms = unix_now_ms();
        let expires_ms = now_ms + ttl_millis(ttl);
        self.run(move |conn| {
            let mut keys: Vec<&str> = deltas.iter().map(|(key, _, _)| key.as_str()).collect();
            keys.sort_unstable();
            keys.dedup();
            for key in &keys {
                // A key that has expired starts again from nothing.
                if !counter_key_live(conn, key, now_ms)? {
                    conn.exec("DELETE FROM counters WHERE key = ?1", [key])?;
                }
            }
            let mut add = conn.prepare_cached(
                "INSERT INTO counters (key, field, value, expires_ms) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (key, field) DO UPDATE SET
                   value = counters.value + excluded.value, expires_ms = excluded.expires_ms",
            )?;
            for (key, field, delta) in &deltas {
                add.execute(params![key, field, delta, expires_ms])?;
            }
            // The key's own row (field ''): the whole key lives `ttl` from now.
            for key in &keys {
                add.execute(params![key, KEY_ROW, 0, expires_ms])?;
            }
            Ok(())
        })
        .await
    }

    async fn counts(&self, key: &str) -> Result<HashMap<String, i64>, StateError> {
        let key = key.to_owned();
        let now_ms = unix_now_ms();
        self.run(move |conn| {
            if !counter_key_live(conn, &key, now_ms)? {
                return Ok(HashMap::new());
            }
            let mut select =
                conn.prepare_cached("SELECT field, value FROM counters WHERE key = ?1 AND field != ''")?;
            let rows = select.query_map(params![key], |row| Ok((row.get(0)?, row.get(1)?)))?;
            rows.collect()
        })
        .await
    }

    async fn purge_expired(&self) -> Result<u64, StateError> {
        let purged = self.run(|conn| purge_blocking(conn, unix_now(), unix_now_ms())).await?;
        if purged > 0 {
            tracing::debug!(purged, path = %self.path, "expired state purged");
        }
        Ok(purged)
    }

    async fn outbox_put(&self, entry: &OutboxEntry) -> Result<(), StateError> {
        let e = entry.clone();
        self.run(move |conn| {
            conn.exec(
                "INSERT OR REPLACE INTO outbox (id, chat_id, created_ms, due_ms, payload) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![e.id, e.chat_id, e.created_ms, e.due_ms, e.payload],
            )
        })
        .await
        .map(drop)
    }

    async fn outbox_claim(&self, lease: Duration, limit: usize) -> Result<Vec<OutboxEntry>, StateError> {
        let now_ms = unix_now_ms();
        let due_again = now_ms + ttl_millis(lease);
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let mut claimed: Vec<OutboxEntry> = self
            .run(move |conn| {
                let mut stmt = conn.prepare_cached(OUTBOX_CLAIM_SQL)?;
                let rows = stmt.query_map(params![now_ms, due_again, limit], |row| {
                    Ok(OutboxEntry {
                        id: row.get(0)?,
                        chat_id: row.get(1)?,
                        created_ms: row.get(2)?,
                        due_ms: row.get(3)?,
                        payload: row.get(4)?,
                    })
                })?;
                rows.collect()
            })
            .await?;
        claimed.sort_by(|a, b| (a.created_ms, &a.id).cmp(&(b.created_ms, &b.id)));
        Ok(claimed)
    }

    async fn outbox_remove(&self, id: &str) -> Result<bool, StateError> {
        let id = id.to_string();
        let removed = self.run(move |conn| conn.exec("DELETE FROM outbox WHERE id = ?1", [id])).await?;
        Ok(removed > 0)
    }
}
