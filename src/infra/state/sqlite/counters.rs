//! [`CounterStore`] for the SQLite store ([`SqliteStore`]): rate-limit hits and shared counters.

use std::collections::HashMap;
use std::time::Duration;

use async_trait::async_trait;
use rusqlite::Connection;
use rusqlite::params;

use super::{Cached, SqliteStore};
use crate::infra::state::{CounterStore, StateError, ttl_millis, unix_now_ms};

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

#[async_trait]
impl CounterStore for SqliteStore {
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
}
