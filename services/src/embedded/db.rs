//! SQLite storage of the embedded mall: the schema, opening a database
//! (WAL, created on first open), stock seeded from the catalog, and the
//! idempotency records of mutating requests.

use std::path::Path;

use rusqlite::{Connection, OptionalExtension, Transaction, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::{IdempotencyKey, Shopper};
use crate::error::ServiceError;
use crate::models::EventKind;

use super::clock::unix_now;

/// How long an idempotency key is remembered.
pub(crate) const IDEMPOTENCY_TTL_SECS: i64 = 24 * 60 * 60;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS inventory (
    slot        TEXT PRIMARY KEY,   -- a SKU id, or the id of a product without SKUs
    stock       INTEGER NOT NULL CHECK (stock >= 0),
    price_cents INTEGER,            -- an operator's price; NULL means the catalog's
    file_stock  INTEGER,            -- the stock the mall's data last said (a change there is applied)
    file_price  INTEGER             -- the price the mall's data last said
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS carts (
    shopper TEXT PRIMARY KEY,
    cart_id TEXT NOT NULL UNIQUE
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS cart_items (
    item_id    TEXT PRIMARY KEY,
    cart_id    TEXT NOT NULL REFERENCES carts (cart_id),
    product_id TEXT NOT NULL,
    slot       TEXT NOT NULL,
    quantity   INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 99),
    UNIQUE (cart_id, slot)
);

CREATE TABLE IF NOT EXISTS orders (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    order_id        TEXT NOT NULL UNIQUE,
    shopper         TEXT NOT NULL,
    status          TEXT NOT NULL,
    items           TEXT NOT NULL,  -- JSON array of the contract's CartItem, at the prices paid
    total_cents     INTEGER NOT NULL,
    created_at      TEXT NOT NULL,
    pickup_store_id TEXT NOT NULL,
    currency        TEXT NOT NULL DEFAULT 'CNY',
    expires_at      INTEGER,        -- Unix seconds; when an unpaid order expires
    payment         TEXT,           -- JSON of the contract's Payment, once paid
    refund_status   TEXT,           -- PENDING or DONE, for a cancelled paid order
    refund_cents    INTEGER,
    coupon_id       TEXT,           -- the coupon whose discount the order took
    subtotal_cents  INTEGER,        -- the items' total before that discount
    discount_cents  INTEGER
);
CREATE INDEX IF NOT EXISTS orders_by_shopper ON orders (shopper, seq);

-- Every status change after an order's creation, and every restock and price
-- change of a product, in the order they happened.
CREATE TABLE IF NOT EXISTS events (
    event_id INTEGER PRIMARY KEY AUTOINCREMENT,  -- never reused, so a cursor stays valid
    order_id TEXT NOT NULL,                       -- '' on a product's event
    shopper  TEXT NOT NULL,                       -- '' on a product's event
    status   TEXT NOT NULL,                       -- '' on a product's event
    refund   TEXT,                                -- DONE on a refund's event
    at       TEXT NOT NULL,
    kind       TEXT NOT NULL DEFAULT 'order.status_changed',
    product_id TEXT,
    detail     TEXT                               -- JSON: sizes, old and new price
);

-- One payment per provider charge: the answer its first recording gave.
CREATE TABLE IF NOT EXISTS payments (
    charge_id TEXT PRIMARY KEY,
    order_id  TEXT NOT NULL,
    response  TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS idempotency (
    shopper     TEXT NOT NULL,
    key         TEXT NOT NULL,
    operation   TEXT NOT NULL,
    fingerprint TEXT NOT NULL,      -- the operation and its request, as JSON
    response    TEXT NOT NULL,      -- the answer given, as JSON
    created_at  INTEGER NOT NULL,   -- Unix seconds
    PRIMARY KEY (shopper, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS idempotency_by_age ON idempotency (created_at);

-- The car park: one row per stay; a car is inside while left_at is NULL.
CREATE TABLE IF NOT EXISTS parking_stays (
    stay_id        INTEGER PRIMARY KEY AUTOINCREMENT,
    plate          TEXT NOT NULL,     -- normalised (沪A12345)
    entered_at     INTEGER NOT NULL,  -- Unix seconds
    left_at        INTEGER,
    points_minutes INTEGER NOT NULL DEFAULT 0,  -- free time bought with points
    paid_cents     INTEGER NOT NULL DEFAULT 0,
    paid_at        INTEGER            -- the last payment
);
CREATE UNIQUE INDEX IF NOT EXISTS parking_inside ON parking_stays (plate) WHERE left_at IS NULL;

-- One parking payment per provider charge: the answer its first recording gave.
CREATE TABLE IF NOT EXISTS parking_payments (
    charge_id    TEXT PRIMARY KEY,
    stay_id      INTEGER NOT NULL,
    plate        TEXT NOT NULL,
    shopper      TEXT NOT NULL,
    amount_cents INTEGER NOT NULL,
    response     TEXT NOT NULL
) WITHOUT ROWID;

-- A shopper's own plates (at most 3).
CREATE TABLE IF NOT EXISTS plates (
    shopper  TEXT NOT NULL,
    plate    TEXT NOT NULL,
    kind     TEXT NOT NULL,
    added_at INTEGER NOT NULL,
    PRIMARY KEY (shopper, plate)
) WITHOUT ROWID;

-- Every change of a shopper's points; the balance is their sum.
CREATE TABLE IF NOT EXISTS points_ledger (
    seq      INTEGER PRIMARY KEY AUTOINCREMENT,
    shopper  TEXT NOT NULL,
    amount   INTEGER NOT NULL,
    reason   TEXT NOT NULL,   -- ORDER_PAID, ORDER_REFUNDED, PARKING, COUPON
    order_id TEXT,
    at       INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS points_by_shopper ON points_ledger (shopper, seq);

-- How many of each coupon there are and how many were claimed (the rest is the mall's rules).
CREATE TABLE IF NOT EXISTS coupons (
    coupon_id TEXT PRIMARY KEY,
    total     INTEGER NOT NULL,
    claimed   INTEGER NOT NULL DEFAULT 0 CHECK (claimed <= total)
) WITHOUT ROWID;

-- One claim per shopper and coupon; order_id once it is used on an order.
CREATE TABLE IF NOT EXISTS coupon_claims (
    coupon_id  TEXT NOT NULL,
    shopper    TEXT NOT NULL,
    claimed_at INTEGER NOT NULL,
    order_id   TEXT,
    PRIMARY KEY (coupon_id, shopper)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS coupon_claims_by_order ON coupon_claims (order_id);
";

/// Indexes over columns that [`migrate`] may have just added.
const INDEXES: &str = "
CREATE INDEX IF NOT EXISTS orders_due ON orders (status, expires_at);
CREATE INDEX IF NOT EXISTS orders_refunds ON orders (refund_status);
";

/// Columns added to `orders` after its first version, with their definitions.
const ORDER_COLUMNS_ADDED: &[(&str, &str)] = &[
    ("currency", "TEXT NOT NULL DEFAULT 'CNY'"),
    ("expires_at", "INTEGER"),
    ("payment", "TEXT"),
    ("refund_status", "TEXT"),
    ("refund_cents", "INTEGER"),
    ("coupon_id", "TEXT"),
    ("subtotal_cents", "INTEGER"),
    ("discount_cents", "INTEGER"),
];

/// Columns added to `inventory` after its first version.
const INVENTORY_COLUMNS_ADDED: &[(&str, &str)] = &[("file_stock", "INTEGER"), ("file_price", "INTEGER")];
/// Columns added to `events` when the feed gained product events.
const EVENT_COLUMNS_ADDED: &[(&str, &str)] =
    &[("kind", "TEXT NOT NULL DEFAULT 'order.status_changed'"), ("product_id", "TEXT"), ("detail", "TEXT")];

/// How long unpaid orders of a database from before expiry get, from its first open on.
const LEGACY_ORDER_TTL_SECS: i64 = 30 * 60;

/// Brings a database written by an earlier version up to the schema: adds the missing order
/// columns, and gives its unpaid orders an expiry (from now) so they stop holding stock.
fn migrate(conn: &Connection) -> Result<(), rusqlite::Error> {
    let mut existing = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('orders')")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            existing.push(row.get::<_, String>(0)?);
        }
    }
    let mut inventory_columns = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('inventory')")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            inventory_columns.push(row.get::<_, String>(0)?);
        }
    }
    for (column, definition) in INVENTORY_COLUMNS_ADDED {
        if !inventory_columns.iter().any(|c| c == column) {
            conn.execute_batch(&format!("ALTER TABLE inventory ADD COLUMN {column} {definition}"))?;
            tracing::info!(column, "embedded mall: added a column to inventory");
        }
    }
    let mut added_expiry = false;
    for (column, definition) in ORDER_COLUMNS_ADDED {
        if !existing.iter().any(|c| c == column) {
            add_column(conn, "orders", column, definition)?;
            tracing::info!(column, "embedded mall: added a column to orders");
            added_expiry |= *column == "expires_at";
        }
    }
    if added_expiry {
        let given = conn.execute(
            "UPDATE orders SET expires_at = ?1 WHERE status = 'PENDING_PAYMENT' AND expires_at IS NULL",
            [unix_now() + LEGACY_ORDER_TTL_SECS],
        )?;
        tracing::info!(orders = given, "embedded mall: unpaid orders of an older database now expire");
    }
    let mut event_columns = Vec::new();
    {
        let mut stmt = conn.prepare("SELECT name FROM pragma_table_info('events')")?;
        let mut rows = stmt.query([])?;
        while let Some(row) = rows.next()? {
            event_columns.push(row.get::<_, String>(0)?);
        }
    }
    for (column, definition) in EVENT_COLUMNS_ADDED {
        if !event_columns.iter().any(|c| c == column) {
            conn.execute_batch(&format!("ALTER TABLE events ADD COLUMN {column} {definition}"))?;
            tracing::info!(column, "embedded mall: added a column to events");
        }
    }
    conn.execute_batch(INDEXES)
}

/// Adds a column, unless another process opening the same database added it meanwhile.
fn add_column(conn: &Connection, table: &str, column: &str, definition: &str) -> Result<(), rusqlite::Error> {
    match conn.execute_batch(&format!("ALTER TABLE {table} ADD COLUMN {column} {definition}")) {
        Err(e) if e.to_string().contains("duplicate column name") => Ok(()),
        done => done,
    }
}

/// What can fail inside a mall operation: an answer for the shopper, or the storage.
#[derive(Debug, thiserror::Error)]
pub(crate) enum OpError {
    /// An answer about the request (not found, out of stock…).
    #[error(transparent)]
    Service(#[from] ServiceError),
    #[error("database: {0}")]
    Db(#[from] rusqlite::Error),
    #[error("stored JSON: {0}")]
    Json(#[from] serde_json::Error),
}

impl From<OpError> for ServiceError {
    fn from(error: OpError) -> Self {
        match error {
            OpError::Service(e) => e,
            other => {
                tracing::error!(error = %other, "embedded mall storage failed");
                ServiceError::Unavailable { message: format!("the mall's storage failed: {other}") }
            }
        }
    }
}

/// How long a statement waits for another connection's lock before it fails.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Opens (or creates) the database at `path`, or an in-memory one, with the schema in place.
pub(crate) fn open(path: Option<&Path>) -> Result<Connection, rusqlite::Error> {
    let conn = match path {
        Some(path) => Connection::open(path)?,
        None => Connection::open_in_memory()?,
    };
    // Before the first statement: another process's lock on the same file is waited for.
    conn.busy_timeout(BUSY_WAIT)?;
    // Switching to WAL and the schema's first write can meet another process doing the
    // same (a second instance starting at the same moment) with SQLITE_BUSY at once, the
    // busy wait skipped: tried again until BUSY_WAIT has passed.
    let deadline = std::time::Instant::now() + BUSY_WAIT;
    loop {
        match set_up(&conn, path) {
            Err(e) if is_busy(&e) && std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            done => return done.map(|()| conn),
        }
    }
}

fn set_up(conn: &Connection, path: Option<&Path>) -> Result<(), rusqlite::Error> {
    if let Some(path) = path {
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            tracing::warn!(path = %path.display(), mode, "SQLite did not switch to WAL");
        }
        conn.pragma_update(None, "synchronous", "NORMAL")?;
    }
    conn.pragma_update(None, "foreign_keys", "ON")?;
    conn.execute_batch(SCHEMA)?;
    migrate(conn)
}

/// Whether SQLite refused because another connection holds the lock.
fn is_busy(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
    )
}

/// Forgets the idempotency records older than their time to live.
pub(crate) fn forget_old_keys(conn: &Connection) -> Result<(), rusqlite::Error> {
    conn.execute("DELETE FROM idempotency WHERE created_at < ?1", [unix_now() - IDEMPOTENCY_TTL_SECS])?;
    Ok(())
}

/// A random id with a prefix: `o-3f9a0c41d2e7`.
pub(crate) fn new_id(prefix: &str) -> String {
    format!("{prefix}-{:012x}", rand::random::<u64>() & 0xffff_ffff_ffff)
}

/// One mutating request as the idempotency table sees it.
pub(crate) struct Idempotent<'a> {
    pub shopper: &'a Shopper,
    pub key: &'a IdempotencyKey,
    pub operation: &'static str,
    pub fingerprint: String,
}

impl<'a> Idempotent<'a> {
    /// The record for `key`, or an error when the key is empty or too long.
    pub fn new(
        shopper: &'a Shopper,
        key: &'a IdempotencyKey,
        operation: &'static str,
        request: &impl Serialize,
    ) -> Result<Self, OpError> {
        let len = key.as_str().chars().count();
        if len == 0 || len > IdempotencyKey::MAX_LEN {
            return Err(ServiceError::invalid(
                "idempotency_key",
                format!("an Idempotency-Key has 1 to {} characters, got {len}", IdempotencyKey::MAX_LEN),
            )
            .into());
        }
        let fingerprint = serde_json::to_string(&(operation, request))?;
        Ok(Idempotent { shopper, key, operation, fingerprint })
    }

    /// The answer given to the same request with this key in the last 24 hours;
    /// a conflict when the key was used for a different request.
    pub fn replay<T: DeserializeOwned>(&self, tx: &Transaction) -> Result<Option<T>, OpError> {
        let stored: Option<(String, String)> = tx
            .query_row(
                "SELECT fingerprint, response FROM idempotency
                 WHERE shopper = ?1 AND key = ?2 AND created_at >= ?3",
                params![self.shopper.as_str(), self.key.as_str(), unix_now() - IDEMPOTENCY_TTL_SECS],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        match stored {
            None => Ok(None),
            Some((fingerprint, response)) if fingerprint == self.fingerprint => {
                tracing::debug!(operation = self.operation, "replaying an idempotent request");
                Ok(Some(serde_json::from_str(&response)?))
            }
            Some(_) => Err(ServiceError::Conflict {
                message: format!(
                    "Idempotency-Key `{}` was already used for a different request",
                    self.key.as_str()
                ),
            }
            .into()),
        }
    }

    /// Remembers the answer to this request.
    pub fn remember(&self, tx: &Transaction, response: &impl Serialize) -> Result<(), OpError> {
        tx.execute(
            "INSERT OR REPLACE INTO idempotency (shopper, key, operation, fingerprint, response, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                self.shopper.as_str(),
                self.key.as_str(),
                self.operation,
                self.fingerprint,
                serde_json::to_string(response)?,
                unix_now()
            ],
        )?;
        Ok(())
    }
}

/// What a product event says besides its product (the `detail` column).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct ProductChange {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub old_price_cents: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub new_price_cents: Option<i64>,
}

/// Appends one product event (a restock or a price change).
pub(crate) fn append_product_event(
    tx: &Transaction,
    kind: EventKind,
    product_id: &str,
    change: &ProductChange,
    at: &str,
) -> Result<(), OpError> {
    tx.execute(
        "INSERT INTO events (order_id, shopper, status, refund, at, kind, product_id, detail)
         VALUES ('', '', '', NULL, ?1, ?2, ?3, ?4)",
        params![at, kind.as_str(), product_id, serde_json::to_string(change)?],
    )?;
    Ok(())
}
