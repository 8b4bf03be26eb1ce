//! The SQLite [`StateStore`](super::StateStore) (`sqlite://PATH`, the default): one file in WAL
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
//!
//! Every statement, the transaction's and the savepoints' included, is a
//! cached prepared statement, planned once (`SQLITE_DBCONFIG_ENABLE_QPSG`;
//! otherwise the bundled SQLite's STAT4 prepares a statement again at each
//! new binding).

use std::path::Path;
use std::time::Duration;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ToSqlOutput, ValueRef};
use rusqlite::{Connection, Row, ToSql};
use tokio::sync::{mpsc, oneshot};

use super::{PendingStatus, StateError};

mod audit;
mod counters;
mod history;
mod housekeeping;
mod locks;
mod outbox;
mod pending;
mod updates;
mod values;

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
