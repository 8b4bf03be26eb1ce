//! The embedded mall's state and its cart, order and operator operations:
//! each one SQLite transaction under the connection lock, so a failed
//! request leaves carts, orders and stock as they were. Every transaction
//! first expires the unpaid orders that are due (stock back, an `EXPIRED`
//! event), so nothing reads an order that should have expired.

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

    // ---------------------------------------------------------------- carts

    /// The shopper's cart (created, empty, on first use).
    pub fn get_cart(&self, shopper: &Shopper) -> Result<Cart, ServiceError> {
        self.write(|tx, _| {
            let cart_id = cart_id(tx, shopper)?;
            self.cart(tx, &cart_id)
        })
    }

    /// Adds a product (or more of it) to the shopper's cart.
    pub fn add_cart_item(
        &self,
        shopper: &Shopper,
        item: &AddCartItem,
        key: Option<&IdempotencyKey>,
    ) -> Result<Cart, ServiceError> {
        self.idempotent(shopper, key, "add_cart_item", item, |tx, _| self.add_item(tx, shopper, item))
    }

    fn add_item(&self, tx: &Transaction, shopper: &Shopper, item: &AddCartItem) -> Result<Cart, OpError> {
        let live = self.live();
        if !(1..=MAX_LINE_QUANTITY).contains(&item.quantity) {
            return Err(ServiceError::invalid(
                "quantity",
                format!("quantity must be between 1 and {MAX_LINE_QUANTITY}, got {}", item.quantity),
            )
            .into());
        }
        let product = live
            .catalog
            .product_index_of(&item.product_id)
            .ok_or_else(|| not_found(format!("product {} not found", item.product_id)))?;
        let slot = self.slot_for(product, item.sku_id.as_deref())?;
        let slot_key = live.catalog.slots[slot as usize].key.as_str();
        let cart_id = cart_id(tx, shopper)?;
        let in_cart: u32 = tx
            .query_row(
                "SELECT quantity FROM cart_items WHERE cart_id = ?1 AND slot = ?2",
                params![cart_id, slot_key],
                |row| row.get(0),
            )
            .optional()?
            .unwrap_or(0);
        let wanted = in_cart + item.quantity;
        if wanted > MAX_LINE_QUANTITY {
            return Err(ServiceError::invalid(
                "quantity",
                format!("a cart line holds at most {MAX_LINE_QUANTITY}; this one already has {in_cart}"),
            )
            .into());
        }
        let stock = stock_of(tx, slot_key)?;
        if wanted > stock {
            let already =
                if in_cart > 0 { format!(" (your cart already has {in_cart})") } else { String::new() };
            return Err(ServiceError::OutOfStock {
                message: format!("only {stock} left of {}{already}", self.slot_title(slot)),
            }
            .into());
        }
        if in_cart > 0 {
            tx.execute(
                "UPDATE cart_items SET quantity = ?1 WHERE cart_id = ?2 AND slot = ?3",
                params![wanted, cart_id, slot_key],
            )?;
        } else {
            tx.execute(
                "INSERT INTO cart_items (item_id, cart_id, product_id, slot, quantity) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![new_id("ci"), cart_id, item.product_id, slot_key, wanted],
            )?;
        }
        tracing::debug!(shopper = %shopper, slot = slot_key, quantity = wanted, "cart line set");
        self.cart(tx, &cart_id)
    }

    /// The slot a cart request means: the SKU given, or the product itself
    /// when it has no SKUs.
    fn slot_for(&self, product: u32, sku_id: Option<&str>) -> Result<u32, OpError> {
        let live = self.live();
        let record = &live.catalog.products[product as usize];
        match sku_id.map(str::trim).filter(|s| !s.is_empty()) {
            Some(sku) => live
                .catalog
                .slot_index_of(sku)
                .filter(|&s| live.catalog.slots[s as usize].product == product)
                .ok_or_else(|| not_found(format!("product {} has no SKU {sku}", record.id))),
            None if record.has_skus => {
                let options: Vec<String> = live
                    .catalog
                    .product_slots(product)
                    .map(|s| {
                        let slot = &live.catalog.slots[s as usize];
                        let label = slot.label.as_deref().unwrap_or_default();
                        let sold_out = if live.inventory.stock(s) == 0 { ", sold out" } else { "" };
                        format!("{} ({label}{sold_out})", slot.key)
                    })
                    .collect();
                Err(ServiceError::invalid(
                    "sku_id",
                    format!("{} ({}) needs a sku_id, one of: {}", record.name, record.id, options.join(", ")),
                )
                .into())
            }
            None => Ok(record.slots.start),
        }
    }

    /// "Name (label)" of a slot, for messages.
    fn slot_title(&self, slot: u32) -> String {
        let live = self.live();
        let s = &live.catalog.slots[slot as usize];
        let name = &live.catalog.products[s.product as usize].name;
        match &s.label {
            Some(label) => format!("{name} ({label})"),
            None => name.clone(),
        }
    }

    /// Removes one line from the shopper's cart.
    pub fn remove_cart_item(
        &self,
        shopper: &Shopper,
        item_id: &str,
        key: Option<&IdempotencyKey>,
    ) -> Result<Cart, ServiceError> {
        self.idempotent(shopper, key, "remove_cart_item", &item_id, |tx, _| {
            let cart_id = cart_id(tx, shopper)?;
            let removed = tx.execute(
                "DELETE FROM cart_items WHERE item_id = ?1 AND cart_id = ?2",
                params![item_id, cart_id],
            )?;
            if removed == 0 {
                return Err(not_found(format!("cart item {item_id} not found")));
            }
            self.cart(tx, &cart_id)
        })
    }

    /// Empties the shopper's cart.
    pub fn clear_cart(&self, shopper: &Shopper, key: Option<&IdempotencyKey>) -> Result<Cart, ServiceError> {
        self.idempotent(shopper, key, "clear_cart", &(), |tx, _| {
            let cart_id = cart_id(tx, shopper)?;
            tx.execute("DELETE FROM cart_items WHERE cart_id = ?1", [&cart_id])?;
            self.cart(tx, &cart_id)
        })
    }

    /// A cart at the current prices. Lines of products no longer in the catalog are left out.
    fn cart(&self, conn: &Connection, cart_id: &str) -> Result<Cart, OpError> {
        let live = self.live();
        let mut stmt = conn.prepare_cached(
            "SELECT item_id, slot, quantity FROM cart_items WHERE cart_id = ?1 ORDER BY rowid",
        )?;
        let rows = stmt.query_map([cart_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get(2)?))
        })?;
        let mut items = Vec::new();
        for row in rows {
            let (item_id, slot_key, quantity): (String, String, u32) = row?;
            match live.catalog.slot_index_of(&slot_key) {
                Some(slot) => items.push(self.cart_item(item_id, slot, quantity)),
                None => tracing::warn!(cart_id, slot = slot_key, "cart line of a product no longer sold"),
            }
        }
        let total_cents = items.iter().map(|i| i.line_total_cents).sum();
        Ok(Cart { cart_id: cart_id.to_owned(), items, total_cents })
    }

    fn cart_item(&self, item_id: String, slot: u32, quantity: u32) -> CartItem {
        let live = self.live();
        let s = &live.catalog.slots[slot as usize];
        let product = &live.catalog.products[s.product as usize];
        let unit_price_cents = live.inventory.price(slot);
        CartItem {
            item_id,
            product_id: product.id.clone(),
            sku_id: product.has_skus.then(|| s.key.clone()),
            name: product.name.clone(),
            name_en: Some(product.name_en.clone()).filter(|n| !n.trim().is_empty()),
            sku_label: s.label.clone(),
            quantity,
            unit_price_cents,
            line_total_cents: unit_price_cents * i64::from(quantity),
        }
    }

    // --------------------------------------------------------------- orders

    /// Places an order from the shopper's cart at the current prices:
    /// reserves the stock and empties the cart.
    pub fn create_order(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        key: Option<&IdempotencyKey>,
    ) -> Result<Order, ServiceError> {
        self.idempotent(shopper, key, "create_order", order, |tx, changes| {
            self.place_order(tx, changes, shopper, order)
        })
    }

    fn place_order(
        &self,
        tx: &Transaction,
        changes: &mut Changes,
        shopper: &Shopper,
        request: &CreateOrder,
    ) -> Result<Order, OpError> {
        let live = self.live();
        let own: Option<String> = tx
            .query_row("SELECT cart_id FROM carts WHERE shopper = ?1", [shopper.as_str()], |row| row.get(0))
            .optional()?;
        if own.as_deref() != Some(request.cart_id.as_str()) {
            return Err(not_found(format!("cart {} not found", request.cart_id)));
        }
        let cart = self.cart(tx, &request.cart_id)?;
        let Some(first) = cart.items.first() else {
            return Err(ServiceError::CartEmpty.into());
        };
        let policy = self.policy();
        let open: u32 = tx.query_row(
            "SELECT COUNT(*) FROM orders WHERE shopper = ?1 AND status = 'PENDING_PAYMENT'",
            [shopper.as_str()],
            |row| row.get(0),
        )?;
        if policy.max_open > 0 && open >= policy.max_open {
            return Err(ServiceError::TooManyOpenOrders {
                message: format!(
                    "{open} unpaid orders are open, the most one shopper may hold; pay or cancel one first"
                ),
            }
            .into());
        }
        if let Some(expected) = request.expected_total_cents
            && expected != cart.total_cents
        {
            return Err(ServiceError::PriceChanged {
                total_cents: cart.total_cents,
                message: format!(
                    "prices changed: the cart now costs {} yuan, not {} yuan",
                    format_yuan(cart.total_cents),
                    format_yuan(expected)
                ),
            }
            .into());
        }
        for item in &cart.items {
            self.reserve(tx, changes, item)?;
        }
        let first_product =
            live.catalog.product_index_of(&first.product_id).map(|p| &live.catalog.products[p as usize]);
        let pickup_store_id =
            first_product.map(|p| live.catalog.stores[p.store as usize].store.id.clone()).unwrap_or_default();
        let now = self.now();
        let expires_at = now.saturating_add(i64::try_from(policy.ttl.as_secs()).unwrap_or(i64::MAX));
        let order = Order {
            order_id: new_id("o"),
            status: OrderStatus::PendingPayment,
            items: cart.items,
            total_cents: cart.total_cents,
            currency: DEFAULT_CURRENCY.to_owned(),
            created_at: rfc3339(now),
            expires_at: Some(rfc3339(expires_at)),
            pickup_store_id,
            payment: None,
            refund: None,
        };
        tx.execute(
            "INSERT INTO orders (order_id, shopper, status, items, total_cents, created_at, pickup_store_id,
                                 currency, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                order.order_id,
                shopper.as_str(),
                order.status.as_str(),
                serde_json::to_string(&order.items)?,
                order.total_cents,
                order.created_at,
                order.pickup_store_id,
                order.currency,
                expires_at
            ],
        )?;
        tx.execute("DELETE FROM cart_items WHERE cart_id = ?1", [&request.cart_id])?;
        self.next_due.fetch_min(expires_at, Ordering::Relaxed);
        tracing::info!(order_id = order.order_id, shopper = %shopper, total_cents = order.total_cents, "order placed");
        Ok(order)
    }

    /// Takes a cart line's quantity out of stock, or fails with what is left.
    fn reserve(&self, tx: &Transaction, changes: &mut Changes, item: &CartItem) -> Result<(), OpError> {
        let live = self.live();
        let key = item.sku_id.as_deref().unwrap_or(&item.product_id);
        let left: Option<u32> = tx
            .query_row(
                "UPDATE inventory SET stock = stock - ?1 WHERE slot = ?2 AND stock >= ?1 RETURNING stock",
                params![item.quantity, key],
                |row| row.get(0),
            )
            .optional()?;
        let slot = live.catalog.slot_index_of(key);
        match (left, slot) {
            (Some(left), Some(slot)) => {
                changes.stock.push((slot, left));
                Ok(())
            }
            (Some(_), None) => Ok(()),
            (None, _) => {
                let have = stock_of(tx, key)?;
                let title = slot.map(|s| self.slot_title(s)).unwrap_or_else(|| item.name.clone());
                Err(ServiceError::OutOfStock {
                    message: format!("only {have} left of {title}, the cart has {}", item.quantity),
                }
                .into())
            }
        }
    }

    /// Puts the order lines' quantities back in stock.
    fn release(&self, tx: &Transaction, changes: &mut Changes, items: &[CartItem]) -> Result<(), OpError> {
        let live = self.live();
        for item in items {
            let key = item.sku_id.as_deref().unwrap_or(&item.product_id);
            let left: Option<u32> = tx
                .query_row(
                    "UPDATE inventory SET stock = stock + ?1 WHERE slot = ?2 RETURNING stock",
                    params![item.quantity, key],
                    |row| row.get(0),
                )
                .optional()?;
            if let (Some(left), Some(slot)) = (left, live.catalog.slot_index_of(key)) {
                changes.stock.push((slot, left));
                // The last ones came back (a cancel, an expiry): the SKU is back in stock.
                if left == item.quantity {
                    self.restocked(tx, &live.catalog, slot)?;
                }
            }
        }
        Ok(())
    }

    /// Cancels a `PENDING_PAYMENT` or `PAID` order and returns its stock; a paid one gets a
    /// pending refund of what was paid.
    pub fn cancel_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        key: Option<&IdempotencyKey>,
    ) -> Result<Order, ServiceError> {
        self.idempotent(shopper, key, "cancel_order", &order_id, |tx, changes| {
            let mut order = find_order(tx, shopper, order_id)?.order;
            let refund = match order.status {
                OrderStatus::PendingPayment => None,
                OrderStatus::Paid => Some(Refund {
                    status: RefundStatus::Pending,
                    amount_cents: order.payment.as_ref().map_or(order.total_cents, |p| p.amount_cents),
                }),
                other => {
                    return Err(ServiceError::NotCancellable {
                        message: format!(
                            "order {order_id} is {}; only PENDING_PAYMENT and PAID orders can be cancelled",
                            other.as_str()
                        ),
                    }
                    .into());
                }
            };
            order.status = OrderStatus::Cancelled;
            order.expires_at = None;
            tx.execute(
                "UPDATE orders SET status = ?1, refund_status = ?2, refund_cents = ?3 WHERE order_id = ?4",
                params![
                    order.status.as_str(),
                    refund.as_ref().map(|r| r.status.as_str()),
                    refund.as_ref().map(|r| r.amount_cents),
                    order_id
                ],
            )?;
            order.refund = refund;
            self.release(tx, changes, &order.items)?;
            append_event(tx, order_id, shopper.as_str(), order.status, None, &rfc3339(self.now()))?;
            tracing::info!(order_id, shopper = %shopper, refund = order.refund.is_some(), "order cancelled");
            Ok(order)
        })
    }

    /// Records a payment of the shopper's order, once per charge: the same `charge_id` again
    /// answers what its first recording answered.
    ///
    /// A `PENDING_PAYMENT` order takes it, and so does an order that expired less than 15
    /// minutes ago, whose stock is then taken again. When that stock has gone meanwhile the
    /// payment is refused (`ORDER_NOT_PAYABLE`, nothing recorded): the money is then the
    /// payer's to refund, as for any payment the mall refuses.
    pub fn pay_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        payment: &RecordPayment,
        key: Option<&IdempotencyKey>,
    ) -> Result<Order, ServiceError> {
        self.idempotent(shopper, key, "pay_order", &(order_id, payment), |tx, changes| {
            self.record_payment(tx, changes, shopper, order_id, payment)
        })
    }

    fn record_payment(
        &self,
        tx: &Transaction,
        changes: &mut Changes,
        shopper: &Shopper,
        order_id: &str,
        payment: &RecordPayment,
    ) -> Result<Order, OpError> {
        for (field, value) in [("provider", &payment.provider), ("charge_id", &payment.charge_id)] {
            if value.trim().is_empty() {
                return Err(ServiceError::invalid(field, format!("{field} is required")).into());
            }
        }
        let stored = find_order(tx, shopper, order_id)?;
        let recorded: Option<(String, String)> = tx
            .query_row(
                "SELECT order_id, response FROM payments WHERE charge_id = ?1",
                [&payment.charge_id],
                |row| Ok((row.get(0)?, row.get(1)?)),
            )
            .optional()?;
        if let Some((paid_order, response)) = recorded {
            if paid_order != order_id {
                return Err(ServiceError::Conflict {
                    message: format!("charge {} was recorded for another order", payment.charge_id),
                }
                .into());
            }
            tracing::debug!(order_id, charge_id = payment.charge_id, "payment already recorded");
            return Ok(serde_json::from_str(&response)?);
        }
        let mut order = stored.order;
        let now = self.now();
        let expired_at = stored.expires_at.unwrap_or(now);
        let within_grace = order.status == OrderStatus::Expired && now < expired_at + PAYMENT_GRACE_SECS;
        if order.status != OrderStatus::PendingPayment && !within_grace {
            let why = match (&order.payment, order.status) {
                (Some(paid), _) => format!("order {order_id} was already paid (charge {})", paid.charge_id),
                (None, OrderStatus::Expired) => {
                    format!("order {order_id} expired at {}, more than 15 minutes ago", rfc3339(expired_at))
                }
                (None, status) => format!("order {order_id} is {}", status.as_str()),
            };
            return Err(ServiceError::NotPayable {
                message: format!(
                    "{why}; only unpaid orders (or ones expired less than 15 minutes ago) take a payment"
                ),
            }
            .into());
        }
        if payment.amount_cents != order.total_cents
            || !payment.currency.eq_ignore_ascii_case(&order.currency)
        {
            return Err(ServiceError::PaymentMismatch {
                message: format!(
                    "the payment is {} {}, the order costs {} {}",
                    format_yuan(payment.amount_cents),
                    payment.currency,
                    format_yuan(order.total_cents),
                    order.currency
                ),
            }
            .into());
        }
        if order.status == OrderStatus::Expired {
            for item in &order.items {
                self.reserve(tx, changes, item).map_err(|error| match error {
                    OpError::Service(ServiceError::OutOfStock { message }) => ServiceError::NotPayable {
                        message: format!(
                            "order {order_id} expired and its stock is gone ({message}); the payment was not recorded"
                        ),
                    }
                    .into(),
                    other => other,
                })?;
            }
        }
        order.status = OrderStatus::Paid;
        order.expires_at = None;
        order.payment = Some(Payment {
            provider: payment.provider.clone(),
            amount_cents: payment.amount_cents,
            currency: order.currency.clone(),
            charge_id: payment.charge_id.clone(),
            paid_at: rfc3339(now),
        });
        tx.execute(
            "UPDATE orders SET status = ?1, payment = ?2 WHERE order_id = ?3",
            params![order.status.as_str(), serde_json::to_string(&order.payment)?, order_id],
        )?;
        tx.execute(
            "INSERT INTO payments (charge_id, order_id, response) VALUES (?1, ?2, ?3)",
            params![payment.charge_id, order_id, serde_json::to_string(&order)?],
        )?;
        append_event(tx, order_id, shopper.as_str(), order.status, None, &rfc3339(now))?;
        tracing::info!(order_id, shopper = %shopper, charge_id = payment.charge_id, "order paid");
        Ok(order)
    }

    /// One of the shopper's orders.
    pub fn get_order(&self, shopper: &Shopper, order_id: &str) -> Result<Order, ServiceError> {
        self.write(|tx, _| Ok(find_order(tx, shopper, order_id)?.order))
    }

    /// The shopper's orders, newest first.
    pub fn list_orders(&self, shopper: &Shopper, page: PageRequest) -> Result<Page<Order>, ServiceError> {
        self.write(|tx, _| {
            let total: i64 =
                tx.query_row("SELECT COUNT(*) FROM orders WHERE shopper = ?1", [shopper.as_str()], |row| {
                    row.get(0)
                })?;
            let mut stmt = tx.prepare_cached(&format!(
                "SELECT {ORDER_COLUMNS} FROM orders WHERE shopper = ?1 ORDER BY seq DESC LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt.query_map(params![shopper.as_str(), page.limit(), page.offset()], order_row)?;
            let items = rows.map(|row| Ok(row?.into_stored()?.order)).collect::<Result<_, OpError>>()?;
            Ok(Page { items, total: total.unsigned_abs() })
        })
    }

    // ---------------------------------------------------------------- staff

    /// A store's staff say a paid order is ready: `PAID` → `READY`.
    pub fn mark_ready(&self, order_id: &str) -> Result<Order, ServiceError> {
        self.advance(order_id, OrderStatus::Paid, OrderStatus::Ready)
    }

    /// A store's staff hand a ready order over: `READY` → `COMPLETED`.
    pub fn mark_picked_up(&self, order_id: &str) -> Result<Order, ServiceError> {
        self.advance(order_id, OrderStatus::Ready, OrderStatus::Completed)
    }

    /// Moves an order from `from` to `to`, or says why not (`CONFLICT`).
    fn advance(&self, order_id: &str, from: OrderStatus, to: OrderStatus) -> Result<Order, ServiceError> {
        self.write(|tx, _| {
            let Stored { mut order, shopper, .. } = find_any_order(tx, order_id)?;
            if order.status != from {
                return Err(ServiceError::Conflict {
                    message: format!(
                        "order {order_id} is {}; only {} orders can become {}",
                        order.status.as_str(),
                        from.as_str(),
                        to.as_str()
                    ),
                }
                .into());
            }
            order.status = to;
            tx.execute("UPDATE orders SET status = ?1 WHERE order_id = ?2", params![to.as_str(), order_id])?;
            append_event(tx, order_id, &shopper, to, None, &rfc3339(self.now()))?;
            tracing::info!(order_id, status = to.as_str(), "order moved by staff");
            Ok(order)
        })
    }

    // ------------------------------------------------------ events, expiry

    /// Order events after the event `after` (from the first when `None`), oldest first, at most
    /// `limit` (0 = the contract's default of 10, at most 50).
    pub fn events(&self, after: Option<&str>, limit: u32) -> Result<EventPage, ServiceError> {
        let from = match after.map(str::trim).filter(|a| !a.is_empty()) {
            None => 0,
            Some(text) => text.parse::<i64>().ok().filter(|id| *id >= 0).ok_or_else(|| {
                ServiceError::invalid(
                    "after",
                    format!("`after` must be an event_id from this feed, not {text:?}"),
                )
            })?,
        };
        let limit = match limit {
            0 => PageRequest::DEFAULT_LIMIT,
            n => n.min(PageRequest::MAX_LIMIT),
        };
        self.write(|tx, _| {
            let mut stmt = tx.prepare_cached(
                "SELECT event_id, order_id, shopper, status, refund, at, kind, product_id, detail FROM events
                 WHERE event_id > ?1 ORDER BY event_id LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![from, limit], |row| {
                Ok((
                    (row.get::<_, i64>(0)?, row.get::<_, String>(1)?, row.get::<_, String>(2)?),
                    (row.get::<_, String>(3)?, row.get::<_, Option<String>>(4)?, row.get::<_, String>(5)?),
                    (
                        row.get::<_, String>(6)?,
                        row.get::<_, Option<String>>(7)?,
                        row.get::<_, Option<String>>(8)?,
                    ),
                ))
            })?;
            let mut items = Vec::new();
            for row in rows {
                let ((event_id, order_id, user), (status, refund, at), (kind, product_id, detail)) = row?;
                let kind: EventKind = serde_json::from_value(serde_json::Value::String(kind))?;
                let detail: ProductChange =
                    detail.as_deref().map(serde_json::from_str).transpose()?.unwrap_or_default();
                items.push(Event {
                    event_id: event_id.to_string(),
                    kind,
                    order_id,
                    user,
                    status: if kind.is_product() { None } else { Some(parse_status(&status)?) },
                    at,
                    refund: refund.as_deref().map(parse_refund).transpose()?,
                    product_id,
                    sizes: detail.sizes,
                    old_price_cents: detail.old_price_cents,
                    new_price_cents: detail.new_price_cents,
                });
            }
            let next = items.last().map(|e| e.event_id.clone()).or_else(|| after.map(str::to_owned));
            Ok(EventPage { items, next })
        })
    }

    /// Expires the unpaid orders that are due; how many expired.
    pub fn sweep_expired(&self) -> Result<usize, ServiceError> {
        self.transaction(|tx, changes| self.expire_due(tx, changes))
    }

    /// Expires every `PENDING_PAYMENT` order whose `expires_at` has passed: status `EXPIRED`,
    /// its stock back, one `EXPIRED` event (at the moment it expired).
    fn expire_due(&self, tx: &Transaction, changes: &mut Changes) -> Result<usize, OpError> {
        let due: Vec<(String, String, String, i64)> = {
            let mut stmt = tx.prepare_cached(
                "SELECT order_id, shopper, items, expires_at FROM orders
                 WHERE status = 'PENDING_PAYMENT' AND expires_at <= ?1 ORDER BY expires_at, seq",
            )?;
            let rows =
                stmt.query_map([self.now()], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))?;
            rows.collect::<Result<_, _>>()?
        };
        for (order_id, shopper, items, expires_at) in &due {
            let items: Vec<CartItem> = serde_json::from_str(items)?;
            tx.execute(
                "UPDATE orders SET status = ?1 WHERE order_id = ?2",
                params![OrderStatus::Expired.as_str(), order_id],
            )?;
            self.release(tx, changes, &items)?;
            append_event(tx, order_id, shopper, OrderStatus::Expired, None, &rfc3339(*expires_at))?;
            tracing::info!(order_id, shopper, "unpaid order expired; stock returned");
        }
        let next: Option<i64> =
            tx.query_row("SELECT MIN(expires_at) FROM orders WHERE status = 'PENDING_PAYMENT'", [], |row| {
                row.get(0)
            })?;
        self.next_due.store(next.unwrap_or(i64::MAX), Ordering::Relaxed);
        Ok(due.len())
    }

    /// Marks every pending refund done (the money went back), one event each; how many.
    pub fn complete_refunds(&self) -> Result<usize, ServiceError> {
        self.write(|tx, _| {
            let pending: Vec<(String, String, String)> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT order_id, shopper, status FROM orders WHERE refund_status = 'PENDING' ORDER BY seq",
                )?;
                let rows = stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
                rows.collect::<Result<_, _>>()?
            };
            let at = rfc3339(self.now());
            for (order_id, shopper, status) in &pending {
                tx.execute(
                    "UPDATE orders SET refund_status = ?1 WHERE order_id = ?2",
                    params![RefundStatus::Done.as_str(), order_id],
                )?;
                append_event(tx, order_id, shopper, parse_status(status)?, Some(RefundStatus::Done), &at)?;
                tracing::info!(order_id, shopper, "refund done");
            }
            Ok(pending.len())
        })
    }

    // ------------------------------------------------------------ operators

    /// Appends one `product.restocked` event naming the size of `slot`, which had none and now has some.
    pub(super) fn restocked(&self, tx: &Transaction, catalog: &Catalog, slot: u32) -> Result<(), OpError> {
        let record = &catalog.slots[slot as usize];
        let product = &catalog.products[record.product as usize].id;
        let change = ProductChange { sizes: record.label.iter().cloned().collect(), ..Default::default() };
        append_product_event(tx, EventKind::ProductRestocked, product, &change, &rfc3339(self.now()))?;
        tracing::info!(product, sku = %record.key, "product restocked");
        Ok(())
    }

    /// Sets the stock of a SKU (or of a product without SKUs). A SKU that had none and now has
    /// some appends one `product.restocked` event naming its size.
    pub fn set_stock(&self, key: &str, stock: u32) -> Result<(), ServiceError> {
        self.write(|tx, changes| {
            let live = self.live();
            let slot =
                live.catalog.slot_index_of(key).ok_or_else(|| not_found(format!("SKU {key} not found")))?;
            let before = stock_of(tx, key)?;
            write_stock(tx, changes, slot, key, stock)?;
            if before == 0 && stock > 0 {
                self.restocked(tx, &live.catalog, slot)?;
            }
            Ok(())
        })
    }

    /// Sets the price of some slots (SKU ids, or ids of products without SKUs).
    pub fn set_price(&self, keys: &[String], cents: i64) -> Result<(), ServiceError> {
        if cents < 0 {
            return Err(ServiceError::invalid(
                "price_cents",
                format!("a price cannot be negative, got {cents}"),
            ));
        }
        self.write(|tx, changes| {
            let live = self.live();
            let mut slots = Vec::with_capacity(keys.len());
            for key in keys {
                let slot = live
                    .catalog
                    .slot_index_of(key)
                    .ok_or_else(|| not_found(format!("SKU {key} not found")))?;
                write_price(tx, changes, slot, key, cents)?;
                slots.push(slot);
            }
            // One `product.price_changed` per product whose price (its lowest SKU's) moved. The
            // mirror is written only by the lock's holder after the commit, so it still holds
            // the prices from before.
            let catalog = &live.catalog;
            let mut products: Vec<u32> = slots.iter().map(|&s| catalog.slots[s as usize].product).collect();
            products.dedup();
            let at = rfc3339(self.now());
            for product in products {
                let old = live.inventory.product_price(product);
                let new = catalog
                    .product_slots(product)
                    .map(|s| if slots.contains(&s) { cents } else { live.inventory.price(s) })
                    .min()
                    .unwrap_or(cents);
                if new != old {
                    let id = &catalog.products[product as usize].id;
                    let change = ProductChange {
                        old_price_cents: Some(old),
                        new_price_cents: Some(new),
                        ..Default::default()
                    };
                    append_product_event(tx, EventKind::ProductPriceChanged, id, &change, &at)?;
                    tracing::info!(product = id, old, new, "product price changed");
                }
            }
            Ok(())
        })
    }

    /// Moves an order to another status by decree (stock is not moved), with its event.
    pub fn set_order_status(&self, order_id: &str, status: OrderStatus) -> Result<(), ServiceError> {
        self.write(|tx, _| {
            let stored = find_any_order(tx, order_id)?;
            if stored.order.status == status {
                return Ok(());
            }
            tx.execute(
                "UPDATE orders SET status = ?1 WHERE order_id = ?2",
                params![status.as_str(), order_id],
            )?;
            append_event(tx, order_id, &stored.shopper, status, None, &rfc3339(self.now()))?;
            Ok(())
        })
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
                             currency, expires_at, payment, refund_status, refund_cents, shopper";

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
