//! A shopper's cart: read, add to, change, empty; its lines priced from the
//! live levels.

use super::*;

impl MallState {
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

    pub(crate) fn add_item(
        &self,
        tx: &Transaction,
        shopper: &Shopper,
        item: &AddCartItem,
    ) -> Result<Cart, OpError> {
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
    pub(crate) fn slot_for(&self, product: u32, sku_id: Option<&str>) -> Result<u32, OpError> {
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
    pub(crate) fn slot_title(&self, slot: u32) -> String {
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
    pub(crate) fn cart(&self, conn: &Connection, cart_id: &str) -> Result<Cart, OpError> {
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
        // Lines and totals cannot wrap: a price is bounded, and the sum saturates (an order
        // over MAX_ORDER_CENTS is refused).
        let total_cents = items.iter().fold(0i64, |sum, i| sum.saturating_add(i.line_total_cents));
        Ok(Cart { cart_id: cart_id.to_owned(), items, total_cents })
    }

    pub(crate) fn cart_item(&self, item_id: String, slot: u32, quantity: u32) -> CartItem {
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
            line_total_cents: unit_price_cents.saturating_mul(i64::from(quantity)),
        }
    }
}
