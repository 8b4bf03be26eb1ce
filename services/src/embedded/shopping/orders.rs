//! Orders: placed from the cart at the current prices with their stock
//! reserved, listed, cancelled (stock back, a refund owed when paid), paid
//! once per charge, refunds settled; and the store staff's calls that move
//! a paid order to ready and picked up.

use super::*;

impl MallState {
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

    pub(crate) fn place_order(
        &self,
        tx: &Transaction,
        changes: &mut Changes,
        shopper: &Shopper,
        request: &CreateOrder,
    ) -> Result<Order, OpError> {
        Ok(self.place(tx, changes, shopper, request, None)?.0)
    }

    /// Places an order, with the discount of `coupon` when given (or why it does not apply).
    pub(crate) fn place(
        &self,
        tx: &Transaction,
        changes: &mut Changes,
        shopper: &Shopper,
        request: &CreateOrder,
        coupon: Option<&str>,
    ) -> Result<(Order, Option<loyalty::Discount>), OpError> {
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
        if cart.total_cents > MAX_ORDER_CENTS || cart.total_cents < 0 {
            return Err(ServiceError::invalid(
                "cart_id",
                format!(
                    "the cart comes to {} yuan, more than the {} yuan one order may; take fewer items",
                    format_yuan(cart.total_cents.max(0)),
                    format_yuan(MAX_ORDER_CENTS)
                ),
            )
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
        let discount = coupon.map(|c| self.discount(tx, shopper, c, &cart.items)).transpose()?;
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
            total_cents: cart.total_cents - discount.as_ref().map_or(0, |d| d.discount_cents),
            currency: DEFAULT_CURRENCY.to_owned(),
            created_at: rfc3339(now),
            expires_at: Some(rfc3339(expires_at)),
            pickup_store_id,
            payment: None,
            refund: None,
            subtotal_cents: discount.as_ref().map(|d| d.subtotal_cents),
            discount_cents: discount.as_ref().map(|d| d.discount_cents),
            coupon_id: discount.as_ref().map(|d| d.coupon_id.clone()),
        };
        tx.execute(
            "INSERT INTO orders (order_id, shopper, status, items, total_cents, created_at, pickup_store_id,
                                 currency, expires_at, coupon_id, subtotal_cents, discount_cents)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
            params![
                order.order_id,
                shopper.as_str(),
                order.status.as_str(),
                serde_json::to_string(&order.items)?,
                order.total_cents,
                order.created_at,
                order.pickup_store_id,
                order.currency,
                expires_at,
                order.coupon_id,
                order.subtotal_cents,
                order.discount_cents
            ],
        )?;
        if let Some(discount) = &discount {
            tx.execute(
                "UPDATE coupon_claims SET order_id = ?1 WHERE coupon_id = ?2 AND shopper = ?3 AND order_id IS NULL",
                params![order.order_id, discount.coupon_id, shopper.as_str()],
            )?;
        }
        tx.execute("DELETE FROM cart_items WHERE cart_id = ?1", [&request.cart_id])?;
        self.next_due.fetch_min(expires_at, Ordering::Relaxed);
        tracing::info!(order_id = order.order_id, shopper = %shopper, total_cents = order.total_cents, "order placed");
        Ok((order, discount))
    }

    /// Takes a cart line's quantity out of stock, or fails with what is left.
    pub(crate) fn reserve(
        &self,
        tx: &Transaction,
        changes: &mut Changes,
        item: &CartItem,
    ) -> Result<(), OpError> {
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
    pub(crate) fn release(
        &self,
        tx: &Transaction,
        changes: &mut Changes,
        items: &[CartItem],
    ) -> Result<(), OpError> {
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
                OrderStatus::PendingPayment => {
                    self.give_back_coupon(tx, order_id)?;
                    None
                }
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
            if refund.is_some() {
                self.take_back_points(tx, shopper, order_id)?;
            }
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

    pub(crate) fn record_payment(
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
        self.earn_points(tx, shopper, order_id, payment.amount_cents)?;
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
    pub(crate) fn advance(
        &self,
        order_id: &str,
        from: OrderStatus,
        to: OrderStatus,
    ) -> Result<Order, ServiceError> {
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
}
