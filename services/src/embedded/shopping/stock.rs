//! Stock and prices set by hand (an operator, the staff endpoints, tests),
//! each change that a shopper waiting for it cares about appended to the
//! feed as a product event.

use super::*;

impl MallState {
    /// Appends one `product.restocked` event naming the size of `slot`, which had none and now has some.
    pub(crate) fn restocked(&self, tx: &Transaction, catalog: &Catalog, slot: u32) -> Result<(), OpError> {
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
        if cents > MAX_PRICE_CENTS {
            return Err(ServiceError::invalid(
                "price_cents",
                format!(
                    "a price is at most {} yuan ({MAX_PRICE_CENTS} fen), got {cents} fen",
                    format_yuan(MAX_PRICE_CENTS)
                ),
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
