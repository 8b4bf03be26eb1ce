//! The embedded mall's state and its cart, order and operator operations:
//! each one SQLite transaction under the connection lock, so a failed
//! request leaves carts, orders and stock as they were. Every transaction
//! first expires the unpaid orders that are due (stock back, an `EXPIRED`
//! event), so nothing reads an order that should have expired.
//!
//! This file holds [`MallState`] — the live catalog and levels, the
//! connection, the clock — and what its operations share (rows of orders,
//! events appended); the operations are split by what they manage:
//! `cart.rs`, `orders.rs` (with the staff's calls), `events.rs` (the feed
//! and expiry) and `stock.rs` (stock and prices set by hand).

mod cart;
mod events;
mod loyalty;
mod orders;
mod stock;

use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, RwLock};
use std::time::Duration;

use arc_swap::ArcSwap;
use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::{IdempotencyKey, Shopper};
use crate::error::ServiceError;
use crate::models::{
    AddCartItem, Cart, CartItem, CreateOrder, DEFAULT_CURRENCY, Event, EventKind, EventPage, Order,
    OrderStatus, Page, PageRequest, Payment, RecordPayment, Refund, RefundStatus, format_yuan,
};

use super::catalog::{Catalog, Levels};
use super::clock::{rfc3339, unix_now};
use super::db::{self, Idempotent, OpError, ProductChange, append_product_event, new_id};
use super::info::InfoData;
use super::inventory::Inventory;
use super::levels::{Changes, sync, write_price, write_stock};

/// The most of one product (and SKU) a cart line may hold.
const MAX_LINE_QUANTITY: u32 = 99;

/// The highest price of one product or SKU (fen): ¥10 000 000. A staff price or a file's
/// price above it is refused, so no line or total can wrap.
pub const MAX_PRICE_CENTS: i64 = 1_000_000_000;

/// The most one order may come to (fen): ¥100 000 000. A cart over it is refused with words.
pub const MAX_ORDER_CENTS: i64 = 10_000_000_000;

/// How long an expired order still takes a payment (the contract's 15 minutes).
const PAYMENT_GRACE_SECS: i64 = 15 * 60;

/// How unpaid orders are held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OrderPolicy {
    /// How long an unpaid order holds its stock before it expires.
    pub ttl: Duration,
    /// Unpaid orders one shopper may hold at once (0 = no limit).
    pub max_open: u32,
}

impl Default for OrderPolicy {
    /// 30 minutes, 3 unpaid orders.
    fn default() -> Self {
        OrderPolicy { ttl: Duration::from_secs(30 * 60), max_open: 3 }
    }
}

/// The catalog with the current stock and prices of its SKUs: what one version of the
/// mall's data serves. A reload replaces it whole, under the database lock.
pub(crate) struct Live {
    pub catalog: Arc<Catalog>,
    pub inventory: Inventory,
    /// Where the mall's information and events come from.
    pub info: InfoSource,
}

/// The mall's information, events and mall-wide offers.
pub(crate) enum InfoSource {
    /// The demo mall's (`services/data/demo-mall-info.json`).
    Demo,
    /// A mall of its own: its folder's `info.json`, or none.
    Folder(Option<Arc<InfoData>>),
}

/// The catalog, the current stock and prices, and the database.
pub(crate) struct MallState {
    live: ArcSwap<Live>,
    conn: Mutex<Connection>,
    policy: RwLock<OrderPolicy>,
    /// Seconds added to the wall clock (moved by tests).
    clock_offset: AtomicI64,
    /// The earliest `expires_at` of an unpaid order (`i64::MAX`: none), so that stock reads
    /// can tell cheaply whether an expiry is due. Never later than the truth.
    next_due: AtomicI64,
    /// The car park's tariff, the points rule and the coupons; `None`: the mall has none.
    loyalty: RwLock<Option<Arc<crate::loyalty::LoyaltyRules>>>,
}

fn not_found(message: String) -> OpError {
    ServiceError::NotFound { message }.into()
}

impl MallState {
    /// Opens the database (in memory when `path` is `None`) for `catalog`.
    pub fn open(catalog: Arc<Catalog>, info: InfoSource, path: Option<&Path>) -> Result<Self, ServiceError> {
        let mut conn = db::open(path).map_err(OpError::from)?;
        let (inventory, changes) = sync(&mut conn, &catalog)?;
        if !changes.is_empty() {
            tracing::info!(
                skus = changes.len(),
                "the mall's data changed prices or stock since the last run"
            );
        }
        Ok(MallState {
            live: ArcSwap::from_pointee(Live { catalog, inventory, info }),
            conn: Mutex::new(conn),
            policy: RwLock::new(OrderPolicy::default()),
            clock_offset: AtomicI64::new(0),
            next_due: AtomicI64::new(i64::MIN),
            loyalty: RwLock::new(None),
        })
    }

    /// What the mall serves now: its catalog and current levels.
    pub fn live(&self) -> Arc<Live> {
        self.live.load_full()
    }

    /// Serves `live` from now on; the caller holds the database lock.
    pub(crate) fn swap(&self, live: Live) {
        self.live.store(Arc::new(live));
    }

    /// Whether an unpaid order may be due to expire (a stock read then sweeps first).
    pub fn expiry_due(&self) -> bool {
        self.now() >= self.next_due.load(Ordering::Relaxed)
    }

    /// The policy of unpaid orders.
    pub fn policy(&self) -> OrderPolicy {
        *self.policy.read().unwrap_or_else(PoisonError::into_inner)
    }

    /// Sets the policy of unpaid orders (orders placed from now on get its TTL).
    pub fn set_policy(&self, policy: OrderPolicy) {
        *self.policy.write().unwrap_or_else(PoisonError::into_inner) = policy;
    }

    /// The mall's time, in Unix seconds.
    pub fn now(&self) -> i64 {
        unix_now() + self.clock_offset.load(Ordering::Relaxed)
    }

    /// Moves the mall's clock forward by `by`.
    pub fn advance_clock(&self, by: Duration) {
        let seconds = i64::try_from(by.as_secs()).unwrap_or(i64::MAX);
        self.clock_offset.fetch_add(seconds, Ordering::Relaxed);
    }

    /// The connection. A panic elsewhere rolled its transaction back, so a
    /// poisoned lock still guards a consistent database.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `op` on the connection without a write transaction.
    fn read<T>(&self, op: impl FnOnce(&Connection) -> Result<T, OpError>) -> Result<T, ServiceError> {
        Ok(op(&self.lock())?)
    }

    /// Runs `op` in one immediate transaction after expiring the orders that are due; when it
    /// succeeds, commits and mirrors its stock and price changes.
    fn write<T>(
        &self,
        op: impl FnOnce(&Transaction, &mut Changes) -> Result<T, OpError>,
    ) -> Result<T, ServiceError> {
        self.transaction(|tx, changes| {
            self.expire_due(tx, changes)?;
            op(tx, changes)
        })
    }

    /// Runs `op` in one immediate transaction; when it succeeds, commits and
    /// mirrors its stock and price changes.
    fn transaction<T>(
        &self,
        op: impl FnOnce(&Transaction, &mut Changes) -> Result<T, OpError>,
    ) -> Result<T, ServiceError> {
        let mut conn = self.lock();
        // After the lock: a reload replaces the catalog only under it.
        let live = self.live();
        let run = |conn: &mut Connection| -> Result<(T, Changes), OpError> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut changes = Changes::default();
            let out = op(&tx, &mut changes)?;
            tx.commit()?;
            Ok((out, changes))
        };
        let (out, changes) = run(&mut conn)?;
        for (slot, stock) in changes.stock {
            live.inventory.set_stock(&live.catalog, slot, stock);
        }
        for (slot, cents) in changes.price {
            live.inventory.set_price(&live.catalog, slot, cents);
        }
        Ok(out)
    }

    /// [`Self::write`] with an optional idempotency key: the same key and
    /// request answer as the first time, in the same transaction as the work.
    fn idempotent<T: Serialize + DeserializeOwned>(
        &self,
        shopper: &Shopper,
        key: Option<&IdempotencyKey>,
        operation: &'static str,
        request: &impl Serialize,
        op: impl FnOnce(&Transaction, &mut Changes) -> Result<T, OpError>,
    ) -> Result<T, ServiceError> {
        let record = key.map(|key| Idempotent::new(shopper, key, operation, request)).transpose()?;
        self.write(|tx, changes| {
            if let Some(answer) = record.as_ref().map(|r| r.replay(tx)).transpose()?.flatten() {
                return Ok(answer);
            }
            let out = op(tx, changes)?;
            if let Some(record) = &record {
                record.remember(tx, &out)?;
            }
            Ok(out)
        })
    }

    /// Checks that the database answers.
    pub fn ping(&self) -> Result<(), ServiceError> {
        self.read(|conn| Ok(conn.query_row("SELECT 1", [], |row| row.get::<_, i64>(0)).map(|_| ())?))
    }
}

/// The shopper's cart id, creating the cart on first use.
fn cart_id(tx: &Transaction, shopper: &Shopper) -> Result<String, OpError> {
    let existing: Option<String> = tx
        .query_row("SELECT cart_id FROM carts WHERE shopper = ?1", [shopper.as_str()], |row| row.get(0))
        .optional()?;
    if let Some(id) = existing {
        return Ok(id);
    }
    let id = new_id("c");
    tx.execute("INSERT INTO carts (shopper, cart_id) VALUES (?1, ?2)", params![shopper.as_str(), id])?;
    Ok(id)
}

fn stock_of(conn: &Connection, slot_key: &str) -> Result<u32, OpError> {
    Ok(conn.query_row("SELECT stock FROM inventory WHERE slot = ?1", [slot_key], |row| row.get(0))?)
}

/// Appends one order event.
fn append_event(
    tx: &Transaction,
    order_id: &str,
    shopper: &str,
    status: OrderStatus,
    refund: Option<RefundStatus>,
    at: &str,
) -> Result<(), OpError> {
    tx.execute(
        "INSERT INTO events (order_id, shopper, status, refund, at) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![order_id, shopper, status.as_str(), refund.map(RefundStatus::as_str), at],
    )?;
    Ok(())
}

fn parse_status(text: &str) -> Result<OrderStatus, OpError> {
    Ok(serde_json::from_value(serde_json::Value::String(text.to_owned()))?)
}

fn parse_refund(text: &str) -> Result<RefundStatus, OpError> {
    Ok(serde_json::from_value(serde_json::Value::String(text.to_owned()))?)
}

const ORDER_COLUMNS: &str = "order_id, status, items, total_cents, created_at, pickup_store_id, \
                             currency, expires_at, payment, refund_status, refund_cents, shopper, \
                             subtotal_cents, discount_cents, coupon_id";

/// An order row before its JSON and status are parsed.
struct OrderRow {
    order_id: String,
    status: String,
    items: String,
    total_cents: i64,
    created_at: String,
    pickup_store_id: String,
    currency: String,
    expires_at: Option<i64>,
    payment: Option<String>,
    refund_status: Option<String>,
    refund_cents: Option<i64>,
    shopper: String,
    subtotal_cents: Option<i64>,
    discount_cents: Option<i64>,
    coupon_id: Option<String>,
}

fn order_row(row: &Row) -> rusqlite::Result<OrderRow> {
    Ok(OrderRow {
        order_id: row.get(0)?,
        status: row.get(1)?,
        items: row.get(2)?,
        total_cents: row.get(3)?,
        created_at: row.get(4)?,
        pickup_store_id: row.get(5)?,
        currency: row.get(6)?,
        expires_at: row.get(7)?,
        payment: row.get(8)?,
        refund_status: row.get(9)?,
        refund_cents: row.get(10)?,
        shopper: row.get(11)?,
        subtotal_cents: row.get(12)?,
        discount_cents: row.get(13)?,
        coupon_id: row.get(14)?,
    })
}

/// An order as stored: the contract's view, its shopper and its expiry in Unix seconds.
struct Stored {
    order: Order,
    shopper: String,
    expires_at: Option<i64>,
}

impl OrderRow {
    fn into_stored(self) -> Result<Stored, OpError> {
        let status = parse_status(&self.status)?;
        let refund = match (self.refund_status, self.refund_cents) {
            (Some(status), Some(amount_cents)) => {
                Some(Refund { status: parse_refund(&status)?, amount_cents })
            }
            _ => None,
        };
        let payment: Option<Payment> =
            self.payment.as_deref().map(serde_json::from_str).transpose()?.flatten();
        Ok(Stored {
            order: Order {
                order_id: self.order_id,
                status,
                items: serde_json::from_str(&self.items)?,
                total_cents: self.total_cents,
                currency: self.currency,
                created_at: self.created_at,
                expires_at: self.expires_at.filter(|_| status == OrderStatus::PendingPayment).map(rfc3339),
                pickup_store_id: self.pickup_store_id,
                payment,
                refund,
                subtotal_cents: self.subtotal_cents,
                discount_cents: self.discount_cents,
                coupon_id: self.coupon_id,
            },
            shopper: self.shopper,
            expires_at: self.expires_at,
        })
    }
}

/// One of the shopper's orders; another shopper's is not found.
fn find_order(conn: &Connection, shopper: &Shopper, order_id: &str) -> Result<Stored, OpError> {
    conn.query_row(
        &format!("SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = ?1 AND shopper = ?2"),
        params![order_id, shopper.as_str()],
        order_row,
    )
    .optional()?
    .ok_or_else(|| not_found(format!("order {order_id} not found")))?
    .into_stored()
}

/// Any shopper's order, for the store's staff.
fn find_any_order(conn: &Connection, order_id: &str) -> Result<Stored, OpError> {
    conn.query_row(&format!("SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = ?1"), [order_id], order_row)
        .optional()?
        .ok_or_else(|| not_found(format!("order {order_id} not found")))?
        .into_stored()
}
