//! The embedded mall's state and its cart, order and operator operations:
//! each one SQLite transaction under the connection lock, so a failed
//! request leaves carts, orders and stock as they were.

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rusqlite::{Connection, OptionalExtension, Row, Transaction, TransactionBehavior, params};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::{IdempotencyKey, Shopper};
use crate::error::ServiceError;
use crate::models::{
    AddCartItem, Cart, CartItem, CreateOrder, DEFAULT_CURRENCY, Order, OrderStatus, Page, PageRequest,
    format_yuan,
};

use super::catalog::{Catalog, Levels};
use super::clock::rfc3339_now;
use super::db::{self, Idempotent, OpError, new_id};
use super::inventory::Inventory;

/// The most of one product (and SKU) a cart line may hold.
const MAX_LINE_QUANTITY: u32 = 99;

/// Stock and price changes of a transaction, mirrored in memory once it commits.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    stock: Vec<(u32, u32)>,
    price: Vec<(u32, i64)>,
}

/// The catalog, the current stock and prices, and the database.
pub(crate) struct MallState {
    pub catalog: Arc<Catalog>,
    pub inventory: Inventory,
    conn: Mutex<Connection>,
}

fn not_found(message: String) -> OpError {
    ServiceError::NotFound { message }.into()
}

impl MallState {
    /// Opens the database (in memory when `path` is `None`) for `catalog`.
    pub fn open(catalog: Arc<Catalog>, path: Option<&Path>) -> Result<Self, ServiceError> {
        let mut conn = db::open(path).map_err(OpError::from)?;
        let inventory = db::prepare(&mut conn, &catalog).map_err(OpError::from)?;
        Ok(MallState { catalog, inventory, conn: Mutex::new(conn) })
    }

    /// The connection. A panic elsewhere rolled its transaction back, so a
    /// poisoned lock still guards a consistent database.
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.conn.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Runs `op` on the connection without a write transaction.
    fn read<T>(&self, op: impl FnOnce(&Connection) -> Result<T, OpError>) -> Result<T, ServiceError> {
        Ok(op(&self.lock())?)
    }

    /// Runs `op` in one immediate transaction; when it succeeds, commits and
    /// mirrors its stock and price changes.
    fn write<T>(
        &self,
        op: impl FnOnce(&Transaction, &mut Changes) -> Result<T, OpError>,
    ) -> Result<T, ServiceError> {
        let mut conn = self.lock();
        let run = |conn: &mut Connection| -> Result<(T, Changes), OpError> {
            let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
            let mut changes = Changes::default();
            let out = op(&tx, &mut changes)?;
            tx.commit()?;
            Ok((out, changes))
        };
        let (out, changes) = run(&mut conn)?;
        for (slot, stock) in changes.stock {
            self.inventory.set_stock(&self.catalog, slot, stock);
        }
        for (slot, cents) in changes.price {
            self.inventory.set_price(&self.catalog, slot, cents);
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
        if !(1..=MAX_LINE_QUANTITY).contains(&item.quantity) {
            return Err(ServiceError::invalid(
                "quantity",
                format!("quantity must be between 1 and {MAX_LINE_QUANTITY}, got {}", item.quantity),
            )
            .into());
        }
        let product = self
            .catalog
            .product_index_of(&item.product_id)
            .ok_or_else(|| not_found(format!("product {} not found", item.product_id)))?;
        let slot = self.slot_for(product, item.sku_id.as_deref())?;
        let slot_key = self.catalog.slots[slot as usize].key.as_str();
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
        let record = &self.catalog.products[product as usize];
        match sku_id.map(str::trim).filter(|s| !s.is_empty()) {
            Some(sku) => self
                .catalog
                .slot_index_of(sku)
                .filter(|&s| self.catalog.slots[s as usize].product == product)
                .ok_or_else(|| not_found(format!("product {} has no SKU {sku}", record.id))),
            None if record.has_skus => {
                let options: Vec<String> = self
                    .catalog
                    .product_slots(product)
                    .map(|s| {
                        let slot = &self.catalog.slots[s as usize];
                        let label = slot.label.as_deref().unwrap_or_default();
                        let sold_out = if self.inventory.stock(s) == 0 { ", sold out" } else { "" };
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
        let s = &self.catalog.slots[slot as usize];
        let name = &self.catalog.products[s.product as usize].name;
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
        let mut stmt = conn.prepare_cached(
            "SELECT item_id, slot, quantity FROM cart_items WHERE cart_id = ?1 ORDER BY rowid",
        )?;
        let rows = stmt.query_map([cart_id], |row| {
            Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?, row.get(2)?))
        })?;
        let mut items = Vec::new();
        for row in rows {
            let (item_id, slot_key, quantity): (String, String, u32) = row?;
            match self.catalog.slot_index_of(&slot_key) {
                Some(slot) => items.push(self.cart_item(item_id, slot, quantity)),
                None => tracing::warn!(cart_id, slot = slot_key, "cart line of a product no longer sold"),
            }
        }
        let total_cents = items.iter().map(|i| i.line_total_cents).sum();
        Ok(Cart { cart_id: cart_id.to_owned(), items, total_cents })
    }

    fn cart_item(&self, item_id: String, slot: u32, quantity: u32) -> CartItem {
        let s = &self.catalog.slots[slot as usize];
        let product = &self.catalog.products[s.product as usize];
        let unit_price_cents = self.inventory.price(slot);
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
            self.catalog.product_index_of(&first.product_id).map(|p| &self.catalog.products[p as usize]);
        let pickup_store_id =
            first_product.map(|p| self.catalog.stores[p.store as usize].store.id.clone()).unwrap_or_default();
        let order = Order {
            order_id: new_id("o"),
            status: OrderStatus::PendingPayment,
            items: cart.items,
            total_cents: cart.total_cents,
            currency: DEFAULT_CURRENCY.to_owned(),
            created_at: rfc3339_now(),
            expires_at: None,
            pickup_store_id,
            payment: None,
            refund: None,
        };
        tx.execute(
            "INSERT INTO orders (order_id, shopper, status, items, total_cents, created_at, pickup_store_id)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                order.order_id,
                shopper.as_str(),
                order.status.as_str(),
                serde_json::to_string(&order.items)?,
                order.total_cents,
                order.created_at,
                order.pickup_store_id
            ],
        )?;
        tx.execute("DELETE FROM cart_items WHERE cart_id = ?1", [&request.cart_id])?;
        tracing::info!(order_id = order.order_id, shopper = %shopper, total_cents = order.total_cents, "order placed");
        Ok(order)
    }

    /// Takes a cart line's quantity out of stock, or fails with what is left.
    fn reserve(&self, tx: &Transaction, changes: &mut Changes, item: &CartItem) -> Result<(), OpError> {
        let key = item.sku_id.as_deref().unwrap_or(&item.product_id);
        let left: Option<u32> = tx
            .query_row(
                "UPDATE inventory SET stock = stock - ?1 WHERE slot = ?2 AND stock >= ?1 RETURNING stock",
                params![item.quantity, key],
                |row| row.get(0),
            )
            .optional()?;
        let slot = self.catalog.slot_index_of(key);
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

    /// Cancels a `PENDING_PAYMENT` order and returns its stock.
    pub fn cancel_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        key: Option<&IdempotencyKey>,
    ) -> Result<Order, ServiceError> {
        self.idempotent(shopper, key, "cancel_order", &order_id, |tx, changes| {
            let mut order = find_order(tx, shopper, order_id)?;
            if order.status != OrderStatus::PendingPayment {
                return Err(ServiceError::NotCancellable {
                    message: format!(
                        "order {order_id} is {}; only PENDING_PAYMENT orders can be cancelled",
                        order.status.as_str()
                    ),
                }
                .into());
            }
            order.status = OrderStatus::Cancelled;
            tx.execute(
                "UPDATE orders SET status = ?1 WHERE order_id = ?2",
                params![order.status.as_str(), order_id],
            )?;
            for item in &order.items {
                let key = item.sku_id.as_deref().unwrap_or(&item.product_id);
                let left: Option<u32> = tx
                    .query_row(
                        "UPDATE inventory SET stock = stock + ?1 WHERE slot = ?2 RETURNING stock",
                        params![item.quantity, key],
                        |row| row.get(0),
                    )
                    .optional()?;
                if let (Some(left), Some(slot)) = (left, self.catalog.slot_index_of(key)) {
                    changes.stock.push((slot, left));
                }
            }
            tracing::info!(order_id, shopper = %shopper, "order cancelled");
            Ok(order)
        })
    }

    /// One of the shopper's orders.
    pub fn get_order(&self, shopper: &Shopper, order_id: &str) -> Result<Order, ServiceError> {
        self.read(|conn| find_order(conn, shopper, order_id))
    }

    /// The shopper's orders, newest first.
    pub fn list_orders(&self, shopper: &Shopper, page: PageRequest) -> Result<Page<Order>, ServiceError> {
        self.read(|conn| {
            let total: i64 = conn.query_row(
                "SELECT COUNT(*) FROM orders WHERE shopper = ?1",
                [shopper.as_str()],
                |row| row.get(0),
            )?;
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {ORDER_COLUMNS} FROM orders WHERE shopper = ?1 ORDER BY seq DESC LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt.query_map(params![shopper.as_str(), page.limit(), page.offset()], order_row)?;
            let items = rows.map(|row| row?.into_order()).collect::<Result<_, OpError>>()?;
            Ok(Page { items, total: total.unsigned_abs() })
        })
    }

    // ------------------------------------------------------------ operators

    /// Sets the stock of a SKU (or of a product without SKUs).
    pub fn set_stock(&self, key: &str, stock: u32) -> Result<(), ServiceError> {
        let slot = self
            .catalog
            .slot_index_of(key)
            .ok_or_else(|| ServiceError::not_found(format!("SKU {key} not found")))?;
        self.write(|tx, changes| {
            tx.execute("UPDATE inventory SET stock = ?1 WHERE slot = ?2", params![stock, key])?;
            changes.stock.push((slot, stock));
            Ok(())
        })
    }

    /// Sets the price of some slots.
    pub fn set_price(&self, slots: &[u32], cents: i64) -> Result<(), ServiceError> {
        if cents < 0 {
            return Err(ServiceError::invalid(
                "price_cents",
                format!("a price cannot be negative, got {cents}"),
            ));
        }
        self.write(|tx, changes| {
            for &slot in slots {
                let key = &self.catalog.slots[slot as usize].key;
                tx.execute("UPDATE inventory SET price_cents = ?1 WHERE slot = ?2", params![cents, key])?;
                changes.price.push((slot, cents));
            }
            Ok(())
        })
    }

    /// Moves an order to another status (as a payment or pickup would).
    pub fn set_order_status(&self, order_id: &str, status: OrderStatus) -> Result<(), ServiceError> {
        self.write(|tx, _| {
            let changed = tx.execute(
                "UPDATE orders SET status = ?1 WHERE order_id = ?2",
                params![status.as_str(), order_id],
            )?;
            if changed == 0 {
                return Err(not_found(format!("order {order_id} not found")));
            }
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

const ORDER_COLUMNS: &str = "order_id, status, items, total_cents, created_at, pickup_store_id";

/// An order row before its JSON and status are parsed.
struct OrderRow {
    order_id: String,
    status: String,
    items: String,
    total_cents: i64,
    created_at: String,
    pickup_store_id: String,
}

fn order_row(row: &Row) -> rusqlite::Result<OrderRow> {
    Ok(OrderRow {
        order_id: row.get(0)?,
        status: row.get(1)?,
        items: row.get(2)?,
        total_cents: row.get(3)?,
        created_at: row.get(4)?,
        pickup_store_id: row.get(5)?,
    })
}

impl OrderRow {
    fn into_order(self) -> Result<Order, OpError> {
        Ok(Order {
            order_id: self.order_id,
            status: serde_json::from_value(serde_json::Value::String(self.status))?,
            items: serde_json::from_str(&self.items)?,
            total_cents: self.total_cents,
            currency: DEFAULT_CURRENCY.to_owned(),
            created_at: self.created_at,
            expires_at: None,
            pickup_store_id: self.pickup_store_id,
            payment: None,
            refund: None,
        })
    }
}

fn find_order(conn: &Connection, shopper: &Shopper, order_id: &str) -> Result<Order, OpError> {
    conn.query_row(
        &format!("SELECT {ORDER_COLUMNS} FROM orders WHERE order_id = ?1 AND shopper = ?2"),
        params![order_id, shopper.as_str()],
        order_row,
    )
    .optional()?
    .ok_or_else(|| not_found(format!("order {order_id} not found")))?
    .into_order()
}
