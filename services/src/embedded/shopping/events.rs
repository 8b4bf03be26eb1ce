//! The event feed (each order's status changes, each product's restock and
//! price change, oldest first after a cursor) and the expiry of unpaid
//! orders that are due.

use super::*;

impl MallState {
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
    pub(crate) fn expire_due(&self, tx: &Transaction, changes: &mut Changes) -> Result<usize, OpError> {
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
            self.give_back_coupon(tx, order_id)?;
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
}
