//! The car park, points and coupons of the embedded mall: stays, parking payments, a
//! shopper's plates, the points ledger and coupon claims, each operation one transaction
//! like the orders'. The rules (tariff, points rule, coupons) are the mall's
//! [`LoyaltyRules`]; a mall without them answers `NOT_SUPPORTED`.
//!
//! A coupon is claimed with one conditional `UPDATE coupons SET claimed = claimed + 1 WHERE
//! claimed < total` inside the claim's immediate transaction, so the last one goes once even
//! to two processes sharing the database file.

use super::*;

use crate::calendar::LocalTime;
use crate::loyalty::{
    CarStay, Coupon, CouponOrder, CouponSpec, FreeTime, LoyaltyRules, MyCoupon, ParkingFee, ParkingPayment,
    PayParking, Plate, PointsBalance, PointsChange, Redeem, Redemption, normalize_plate,
};

/// The most plates one shopper may keep.
pub const MAX_PLATES: i64 = 3;

/// How many of a shopper's last points changes `points` lists.
const POINTS_CHANGES_SHOWN: u32 = 20;

/// The demo mall's car park: a plate and how many minutes before the mall's clock (when its
/// database is first opened) it entered. With the demo tariff: 沪A12345 owes ¥30 (3 h 5 min),
/// the Hong Kong ABC123 ¥20 (1 h 40 min), the new-energy 粤BD12345 nothing yet (15 min).
pub const DEMO_CARS: [(&str, i64); 3] = [("沪A12345", 185), ("ABC123", 100), ("粤BD12345", 15)];

/// A car inside, as stored.
struct Stay {
    stay_id: i64,
    entered_at: i64,
    points_minutes: i64,
    paid_cents: i64,
    paid_at: Option<i64>,
}

/// A coupon a mall offers, with what the discount on an order would be.
pub(crate) struct Discount {
    pub coupon_id: String,
    pub subtotal_cents: i64,
    pub discount_cents: i64,
}

/// A time of the car park as RFC 3339 in the mall's own offset (the tariff's
/// `utc_offset_minutes`), so an entry or a time to leave reads as the mall's clock.
fn local_time(rules: &LoyaltyRules, unix: i64) -> String {
    LocalTime::at(unix, rules.tariff.utc_offset_minutes * 60).rfc3339()
}

fn unsupported(what: &str) -> ServiceError {
    ServiceError::NotSupported { message: format!("this mall has no {what}") }
}

impl MallState {
    /// Sets the mall's parking, points and coupon rules; the coupons' totals are written to
    /// the database (a total below what was already claimed stays at the claims).
    pub fn set_loyalty(&self, rules: Option<LoyaltyRules>) -> Result<(), ServiceError> {
        if let Some(rules) = &rules {
            self.transaction(|tx, _| {
                for c in &rules.coupons {
                    tx.execute(
                        "INSERT INTO coupons (coupon_id, total) VALUES (?1, ?2)
                         ON CONFLICT (coupon_id) DO UPDATE SET total = MAX(excluded.total, claimed)",
                        params![c.coupon_id, c.total],
                    )?;
                }
                Ok(())
            })?;
        }
        *self.loyalty.write().unwrap_or_else(PoisonError::into_inner) = rules.map(Arc::new);
        Ok(())
    }

    /// The mall's rules, or `NOT_SUPPORTED` naming `what`.
    fn rules(&self, what: &str) -> Result<Arc<LoyaltyRules>, OpError> {
        self.loyalty
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .ok_or_else(|| unsupported(what).into())
    }

    fn plate(&self, rules: &LoyaltyRules, text: &str) -> Result<Plate, OpError> {
        Ok(normalize_plate(text, &rules.tariff.plates)?)
    }

    // ------------------------------------------------------------------------------ car park

    fn stay_inside(conn: &Connection, plate: &str) -> Result<Stay, OpError> {
        conn.query_row(
            "SELECT stay_id, entered_at, points_minutes, paid_cents, paid_at FROM parking_stays
             WHERE plate = ?1 AND left_at IS NULL",
            [plate],
            |row| {
                Ok(Stay {
                    stay_id: row.get(0)?,
                    entered_at: row.get(1)?,
                    points_minutes: row.get(2)?,
                    paid_cents: row.get(3)?,
                    paid_at: row.get(4)?,
                })
            },
        )
        .optional()?
        .ok_or_else(|| not_found(format!("no car with plate {plate} is in the car park")))
    }

    /// What the shopper's paid orders of today (the mall's day) come to.
    fn spent_today(
        &self,
        conn: &Connection,
        rules: &LoyaltyRules,
        shopper: &Shopper,
    ) -> Result<i64, OpError> {
        let since = rfc3339(rules.tariff.day_start(self.now()));
        Ok(conn.query_row(
            "SELECT COALESCE(SUM(total_cents), 0) FROM orders
             WHERE shopper = ?1 AND status IN ('PAID', 'READY', 'COMPLETED')
               AND json_extract(payment, '$.paid_at') >= ?2",
            params![shopper.as_str(), since],
            |row| row.get(0),
        )?)
    }

    fn fee(
        &self,
        conn: &Connection,
        rules: &LoyaltyRules,
        plate: &str,
        stay: &Stay,
        shopper: Option<&Shopper>,
    ) -> Result<ParkingFee, OpError> {
        let tariff = &rules.tariff;
        let now = self.now();
        let minutes = (now - stay.entered_at).max(0) / 60;
        let gross_cents = tariff.fee_for(minutes);
        let mut free = Vec::new();
        if tariff.free_minutes > 0 {
            free.push(FreeTime {
                reason: "FIRST_MINUTES".into(),
                minutes: i64::from(tariff.free_minutes).min(minutes),
                detail: format!("the first {} minutes are free", tariff.free_minutes),
            });
        }
        let mut earned = 0;
        if let Some(shopper) = shopper {
            let spent = self.spent_today(conn, rules, shopper)?;
            let minutes = i64::from(tariff.earned_minutes(spent));
            if minutes > 0 {
                earned += minutes;
                free.push(FreeTime {
                    reason: "SPENDING".into(),
                    minutes,
                    detail: format!("¥{} spent today", format_yuan(spent)),
                });
            }
        }
        if stay.points_minutes > 0 {
            earned += stay.points_minutes;
            free.push(FreeTime {
                reason: "POINTS".into(),
                minutes: stay.points_minutes,
                detail: "bought with points".into(),
            });
        }
        let grace = i64::from(tariff.grace_minutes) * 60;
        let (due_cents, leave_by) = match stay.paid_at {
            Some(paid_at) if now <= paid_at + grace => (0, Some(local_time(rules, paid_at + grace))),
            // Stayed on after the time to leave: the time since paying is charged anew.
            Some(paid_at) => {
                let since = (now - paid_at) / 60;
                (tariff.overstay_fee(since), None)
            }
            None => (tariff.fee_for(minutes - earned).saturating_sub(stay.paid_cents).max(0), None),
        };
        Ok(ParkingFee {
            plate: plate.to_owned(),
            entered_at: local_time(rules, stay.entered_at),
            minutes_parked: minutes,
            gross_cents,
            free,
            paid_cents: stay.paid_cents,
            due_cents,
            grace_minutes: tariff.grace_minutes,
            leave_by,
        })
    }

    /// What the car with `plate` owes now.
    pub fn parking_fee(&self, plate: &str, shopper: Option<&Shopper>) -> Result<ParkingFee, ServiceError> {
        self.read(|conn| {
            let rules = self.rules("car park")?;
            let plate = self.plate(&rules, plate)?.plate;
            let stay = Self::stay_inside(conn, &plate)?;
            self.fee(conn, &rules, &plate, &stay, shopper)
        })
    }

    /// Pays the fee due now, once per charge.
    pub fn pay_parking(
        &self,
        shopper: &Shopper,
        payment: &PayParking,
        key: Option<&IdempotencyKey>,
    ) -> Result<ParkingPayment, ServiceError> {
        self.idempotent(shopper, key, "pay_parking", payment, |tx, _| {
            let rules = self.rules("car park")?;
            if payment.charge_id.trim().is_empty() {
                return Err(ServiceError::invalid("charge_id", "charge_id is required").into());
            }
            let plate = self.plate(&rules, &payment.plate)?.plate;
            let recorded: Option<(String, String)> = tx
                .query_row(
                    "SELECT plate, response FROM parking_payments WHERE charge_id = ?1",
                    [&payment.charge_id],
                    |row| Ok((row.get(0)?, row.get(1)?)),
                )
                .optional()?;
            if let Some((paid_plate, response)) = recorded {
                if paid_plate != plate {
                    return Err(ServiceError::Conflict {
                        message: format!("charge {} was recorded for plate {paid_plate}", payment.charge_id),
                    }
                    .into());
                }
                return Ok(serde_json::from_str(&response)?);
            }
            let stay = Self::stay_inside(tx, &plate)?;
            let fee = self.fee(tx, &rules, &plate, &stay, Some(shopper))?;
            if fee.due_cents == 0 {
                let message = match (&fee.leave_by, stay.paid_at) {
                    (Some(leave_by), Some(paid_at)) => format!(
                        "the parking of {plate} was paid at {}; leave by {leave_by}",
                        local_time(&rules, paid_at)
                    ),
                    _ => format!("nothing is due for {plate}; the car may leave"),
                };
                return Err(ServiceError::AlreadyPaid { message }.into());
            }
            if payment.amount_cents != fee.due_cents {
                return Err(ServiceError::FeeChanged {
                    due_cents: fee.due_cents,
                    message: format!(
                        "the fee due for {plate} is ¥{} now, not ¥{}",
                        format_yuan(fee.due_cents),
                        format_yuan(payment.amount_cents)
                    ),
                }
                .into());
            }
            let now = self.now();
            tx.execute(
                "UPDATE parking_stays SET paid_cents = paid_cents + ?1, paid_at = ?2 WHERE stay_id = ?3",
                params![payment.amount_cents, now, stay.stay_id],
            )?;
            let paid = ParkingPayment {
                plate: plate.clone(),
                amount_cents: payment.amount_cents,
                charge_id: payment.charge_id.clone(),
                paid_at: local_time(&rules, now),
                leave_by: local_time(&rules, now + i64::from(rules.tariff.grace_minutes) * 60),
            };
            tx.execute(
                "INSERT INTO parking_payments (charge_id, stay_id, plate, shopper, amount_cents, response)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    paid.charge_id,
                    stay.stay_id,
                    plate,
                    shopper.as_str(),
                    paid.amount_cents,
                    serde_json::to_string(&paid)?
                ],
            )?;
            tracing::info!(plate, shopper = %shopper, amount_cents = paid.amount_cents, "parking paid");
            Ok(paid)
        })
    }

    /// A car entered (at `at`, RFC 3339, or now); a car already inside gets that entry time.
    pub fn car_entered(&self, plate: &str, at: Option<&str>) -> Result<CarStay, ServiceError> {
        self.write(|tx, _| {
            let rules = self.rules("car park")?;
            let plate = self.plate(&rules, plate)?.plate;
            let now = self.now();
            let entered_at = match at.map(str::trim).filter(|a| !a.is_empty()) {
                None => now,
                Some(text) => {
                    let at = LocalTime::parse(text).map(|t| t.unix).ok_or_else(|| {
                        ServiceError::invalid(
                            "entered_at",
                            format!("`{text}` is not RFC 3339, e.g. 2026-11-28T09:00:00+08:00"),
                        )
                    })?;
                    if at > now + 60 {
                        return Err(
                            ServiceError::invalid("entered_at", "a car cannot enter in the future").into()
                        );
                    }
                    at
                }
            };
            let updated = tx.execute(
                "UPDATE parking_stays SET entered_at = ?1 WHERE plate = ?2 AND left_at IS NULL",
                params![entered_at, plate],
            )?;
            if updated == 0 {
                tx.execute(
                    "INSERT INTO parking_stays (plate, entered_at) VALUES (?1, ?2)",
                    params![plate, entered_at],
                )?;
            }
            tracing::info!(plate, entered_at, "car entered");
            Ok(CarStay { plate, entered_at: local_time(&rules, entered_at), left_at: None })
        })
    }

    /// The demo mall's cars, each entered a fixed number of minutes before the mall's clock
    /// when its database is first opened ([`DEMO_CARS`]); a database that already has stays
    /// (a file opened again) keeps them as they are.
    pub fn seed_demo_cars(&self) -> Result<(), ServiceError> {
        self.write(|tx, _| {
            let stays: i64 = tx.query_row("SELECT COUNT(*) FROM parking_stays", [], |row| row.get(0))?;
            if stays > 0 {
                return Ok(());
            }
            let now = self.now();
            for (plate, minutes) in DEMO_CARS {
                tx.execute(
                    "INSERT INTO parking_stays (plate, entered_at) VALUES (?1, ?2)",
                    params![plate, now - minutes * 60],
                )?;
            }
            Ok(())
        })
    }

    /// The car left.
    pub fn car_left(&self, plate: &str) -> Result<CarStay, ServiceError> {
        self.write(|tx, _| {
            let rules = self.rules("car park")?;
            let plate = self.plate(&rules, plate)?.plate;
            let stay = Self::stay_inside(tx, &plate)?;
            let now = self.now();
            tx.execute(
                "UPDATE parking_stays SET left_at = ?1 WHERE stay_id = ?2",
                params![now, stay.stay_id],
            )?;
            tracing::info!(plate, "car left");
            let (entered_at, left_at) = (local_time(&rules, stay.entered_at), local_time(&rules, now));
            Ok(CarStay { plate, entered_at, left_at: Some(left_at) })
        })
    }

    fn plates_of(conn: &Connection, shopper: &Shopper) -> Result<Page<Plate>, OpError> {
        let mut stmt = conn
            .prepare_cached("SELECT plate, kind FROM plates WHERE shopper = ?1 ORDER BY added_at, plate")?;
        let items: Vec<Plate> = stmt
            .query_map([shopper.as_str()], |row| Ok(Plate { plate: row.get(0)?, kind: row.get(1)? }))?
            .collect::<Result<_, _>>()?;
        Ok(Page { total: items.len() as u64, items })
    }

    /// The shopper's plates.
    pub fn my_plates(&self, shopper: &Shopper) -> Result<Page<Plate>, ServiceError> {
        self.read(|conn| {
            self.rules("car park")?;
            Self::plates_of(conn, shopper)
        })
    }

    /// Adds one of the shopper's plates (a plate they have already is kept once).
    pub fn add_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<&IdempotencyKey>,
    ) -> Result<Page<Plate>, ServiceError> {
        self.idempotent(shopper, key, "add_plate", &plate, |tx, _| {
            let rules = self.rules("car park")?;
            let plate = self.plate(&rules, plate)?;
            let held = Self::plates_of(tx, shopper)?;
            if held.items.iter().any(|p| p.plate == plate.plate) {
                return Ok(held);
            }
            if held.items.len() as i64 >= MAX_PLATES {
                return Err(ServiceError::TooManyPlates {
                    message: format!(
                        "a shopper keeps at most {MAX_PLATES} plates ({}); remove one first",
                        held.items.iter().map(|p| p.plate.as_str()).collect::<Vec<_>>().join(", ")
                    ),
                }
                .into());
            }
            tx.execute(
                "INSERT INTO plates (shopper, plate, kind, added_at) VALUES (?1, ?2, ?3, ?4)",
                params![shopper.as_str(), plate.plate, plate.kind, self.now()],
            )?;
            Self::plates_of(tx, shopper)
        })
    }

    /// Removes one of the shopper's plates.
    pub fn remove_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<&IdempotencyKey>,
    ) -> Result<Page<Plate>, ServiceError> {
        self.idempotent(shopper, key, "remove_plate", &plate, |tx, _| {
            let rules = self.rules("car park")?;
            let plate = self.plate(&rules, plate)?.plate;
            let removed = tx.execute(
                "DELETE FROM plates WHERE shopper = ?1 AND plate = ?2",
                params![shopper.as_str(), plate],
            )?;
            if removed == 0 {
                return Err(not_found(format!("plate {plate} is not one of yours")));
            }
            Self::plates_of(tx, shopper)
        })
    }

    // -------------------------------------------------------------------------------- points

    fn balance(conn: &Connection, shopper: &Shopper) -> Result<i64, OpError> {
        Ok(conn.query_row(
            "SELECT COALESCE(SUM(amount), 0) FROM points_ledger WHERE shopper = ?1",
            [shopper.as_str()],
            |row| row.get(0),
        )?)
    }

    fn add_points(
        &self,
        tx: &Transaction,
        shopper: &str,
        amount: i64,
        reason: &str,
        order_id: Option<&str>,
    ) -> Result<(), OpError> {
        tx.execute(
            "INSERT INTO points_ledger (shopper, amount, reason, order_id, at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![shopper, amount, reason, order_id, self.now()],
        )?;
        Ok(())
    }

    /// Points for a paid order (none when the mall has no points rule).
    pub(crate) fn earn_points(
        &self,
        tx: &Transaction,
        shopper: &Shopper,
        order_id: &str,
        paid_cents: i64,
    ) -> Result<(), OpError> {
        let Ok(rules) = self.rules("points") else { return Ok(()) };
        let points = paid_cents.max(0) / 100 * rules.points.points_per_yuan;
        if points > 0 {
            self.add_points(tx, shopper.as_str(), points, "ORDER_PAID", Some(order_id))?;
            tracing::info!(order_id, shopper = %shopper, points, "points earned");
        }
        Ok(())
    }

    /// Takes back the points a paid order earned, when it is cancelled: at most the balance
    /// (points already spent stay spent, the balance never goes below 0), once per order.
    pub(crate) fn take_back_points(
        &self,
        tx: &Transaction,
        shopper: &Shopper,
        order_id: &str,
    ) -> Result<(), OpError> {
        let (earned, taken): (i64, i64) = tx.query_row(
            "SELECT COALESCE(SUM(CASE WHEN reason = 'ORDER_PAID' THEN amount ELSE 0 END), 0),
                    COUNT(CASE WHEN reason = 'ORDER_REFUNDED' THEN 1 END)
             FROM points_ledger WHERE shopper = ?1 AND order_id = ?2",
            params![shopper.as_str(), order_id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )?;
        if earned <= 0 || taken > 0 {
            return Ok(());
        }
        // Recorded even when nothing could be taken: the shopper's list says why.
        let back = take_back(earned, Self::balance(tx, shopper)?);
        self.add_points(tx, shopper.as_str(), -back, "ORDER_REFUNDED", Some(order_id))?;
        tracing::info!(order_id, shopper = %shopper, points = back, earned, "points taken back");
        Ok(())
    }

    /// The shopper's balance and last changes, newest first; a take-back that could not take
    /// all the order earned says how many it left.
    pub fn points(&self, shopper: &Shopper) -> Result<PointsBalance, ServiceError> {
        self.read(|conn| {
            let rules = self.rules("points")?;
            let balance = Self::balance(conn, shopper)?;
            let mut stmt = conn.prepare_cached(
                "SELECT l.reason, l.order_id, l.amount, l.at,
                        (SELECT COALESCE(SUM(e.amount), 0) FROM points_ledger e
                         WHERE e.shopper = l.shopper AND e.order_id = l.order_id
                           AND e.reason = 'ORDER_PAID')
                 FROM points_ledger l WHERE l.shopper = ?1
                 ORDER BY l.seq DESC LIMIT ?2",
            )?;
            let changes = stmt
                .query_map(params![shopper.as_str(), POINTS_CHANGES_SHOWN], |row| {
                    let reason: String = row.get(0)?;
                    let amount: i64 = row.get(2)?;
                    let earned: i64 = row.get(4)?;
                    let not_taken =
                        (reason == "ORDER_REFUNDED" && earned + amount > 0).then_some(earned + amount);
                    Ok(PointsChange {
                        reason,
                        order_id: row.get(1)?,
                        amount,
                        at: rfc3339(row.get(3)?),
                        not_taken,
                    })
                })?
                .collect::<Result<_, _>>()?;
            Ok(PointsBalance { balance, changes, rule: Some(rules.points.clone()) })
        })
    }

    /// Spends points on parking time or a coupon.
    pub fn redeem_points(
        &self,
        shopper: &Shopper,
        redeem: &Redeem,
        key: Option<&IdempotencyKey>,
    ) -> Result<Redemption, ServiceError> {
        self.idempotent(shopper, key, "redeem_points", redeem, |tx, _| {
            let rules = self.rules("points")?;
            let balance = Self::balance(tx, shopper)?;
            let afford = |cost: i64| -> Result<(), OpError> {
                if balance < cost {
                    return Err(ServiceError::NotEnoughPoints {
                        balance,
                        message: format!("this costs {cost} points; you have {balance}"),
                    }
                    .into());
                }
                Ok(())
            };
            match redeem {
                Redeem::Parking { plate, hours } => {
                    let per_hour = rules.points.points_per_parking_hour;
                    if per_hour <= 0 {
                        return Err(unsupported("parking for points").into());
                    }
                    if !(1..=24).contains(hours) {
                        return Err(ServiceError::invalid("hours", "1 to 24 whole hours").into());
                    }
                    let plate = self.plate(&rules, plate)?.plate;
                    let stay = Self::stay_inside(tx, &plate)?;
                    let cost = per_hour * i64::from(*hours);
                    afford(cost)?;
                    let minutes = i64::from(*hours) * 60;
                    tx.execute(
                        "UPDATE parking_stays SET points_minutes = points_minutes + ?1 WHERE stay_id = ?2",
                        params![minutes, stay.stay_id],
                    )?;
                    self.add_points(tx, shopper.as_str(), -cost, "PARKING", None)?;
                    Ok(Redemption {
                        points_spent: cost,
                        balance: balance - cost,
                        parking_minutes: Some(minutes),
                        coupon: None,
                    })
                }
                Redeem::Coupon { coupon_id } => {
                    let spec = Self::coupon_spec(&rules, coupon_id)?;
                    let Some(cost) = spec.points_cost else {
                        return Err(ServiceError::CouponUnavailable {
                            message: format!("coupon {coupon_id} is not given for points; claim it instead"),
                        }
                        .into());
                    };
                    afford(cost)?;
                    let coupon = self.claim(tx, spec, shopper)?;
                    self.add_points(tx, shopper.as_str(), -cost, "COUPON", None)?;
                    Ok(Redemption {
                        points_spent: cost,
                        balance: balance - cost,
                        parking_minutes: None,
                        coupon: Some(coupon),
                    })
                }
            }
        })
    }

    // ------------------------------------------------------------------------------- coupons

    fn coupon_spec<'r>(rules: &'r LoyaltyRules, coupon_id: &str) -> Result<&'r CouponSpec, OpError> {
        rules
            .coupons
            .iter()
            .find(|c| c.coupon_id == coupon_id)
            .ok_or_else(|| not_found(format!("coupon {coupon_id} not found")))
    }

    fn coupon_view(conn: &Connection, spec: &CouponSpec) -> Result<Coupon, OpError> {
        let (total, claimed): (u32, u32) = conn
            .query_row("SELECT total, claimed FROM coupons WHERE coupon_id = ?1", [&spec.coupon_id], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?
            .unwrap_or((spec.total, 0));
        Ok(Coupon {
            coupon_id: spec.coupon_id.clone(),
            title: spec.title.clone(),
            title_en: spec.title_en.clone(),
            total,
            left: total.saturating_sub(claimed),
            per_shopper: 1,
            valid_from: spec.valid_from.clone(),
            valid_to: spec.valid_to.clone(),
            min_spend_cents: spec.min_spend_cents,
            discount_cents: spec.discount_cents,
            store_ids: spec.store_ids.clone(),
            points_cost: spec.points_cost,
        })
    }

    /// The mall's coupons with how many are left.
    pub fn list_coupons(&self) -> Result<Page<Coupon>, ServiceError> {
        self.read(|conn| {
            let rules = self.rules("coupons")?;
            let items: Vec<Coupon> =
                rules.coupons.iter().map(|spec| Self::coupon_view(conn, spec)).collect::<Result<_, _>>()?;
            Ok(Page { total: items.len() as u64, items })
        })
    }

    /// Why the coupon cannot be claimed now, if it cannot.
    fn claimable(&self, spec: &CouponSpec) -> Result<(), OpError> {
        let (from, to) = spec.window();
        let now = self.now();
        let why = if now < from {
            format!("coupon {} can be claimed from {}", spec.coupon_id, spec.valid_from)
        } else if now > to {
            format!("coupon {} expired at {}", spec.coupon_id, spec.valid_to)
        } else {
            return Ok(());
        };
        Err(ServiceError::CouponUnavailable { message: why }.into())
    }

    /// Claims one of `spec` for the shopper, inside the caller's transaction.
    fn claim(&self, tx: &Transaction, spec: &CouponSpec, shopper: &Shopper) -> Result<MyCoupon, OpError> {
        self.claimable(spec)?;
        let held: Option<i64> = tx
            .query_row(
                "SELECT claimed_at FROM coupon_claims WHERE coupon_id = ?1 AND shopper = ?2",
                params![spec.coupon_id, shopper.as_str()],
                |row| row.get(0),
            )
            .optional()?;
        if let Some(at) = held {
            return Err(ServiceError::CouponUnavailable {
                message: format!(
                    "you claimed coupon {} already, at {}; one per shopper",
                    spec.coupon_id,
                    rfc3339(at)
                ),
            }
            .into());
        }
        let taken = tx.execute(
            "UPDATE coupons SET claimed = claimed + 1 WHERE coupon_id = ?1 AND claimed < total",
            [&spec.coupon_id],
        )?;
        if taken == 0 {
            return Err(ServiceError::CouponUnavailable {
                message: format!("all {} of coupon {} have been claimed", spec.total, spec.coupon_id),
            }
            .into());
        }
        let now = self.now();
        tx.execute(
            "INSERT INTO coupon_claims (coupon_id, shopper, claimed_at) VALUES (?1, ?2, ?3)",
            params![spec.coupon_id, shopper.as_str(), now],
        )?;
        tracing::info!(coupon_id = spec.coupon_id, shopper = %shopper, "coupon claimed");
        Ok(MyCoupon {
            coupon: Self::coupon_view(tx, spec)?,
            claimed_at: rfc3339(now),
            status: "AVAILABLE".into(),
            order_id: None,
        })
    }

    /// Claims a coupon for the shopper: one each, while any are left.
    pub fn claim_coupon(
        &self,
        shopper: &Shopper,
        coupon_id: &str,
        key: Option<&IdempotencyKey>,
    ) -> Result<MyCoupon, ServiceError> {
        let rules = self.rules("coupons")?;
        let spec = Self::coupon_spec(&rules, coupon_id)?;
        // None left: answered from a read, without waiting for the write lock.
        if key.is_none() {
            let left = self.read(|conn| Ok(Self::coupon_view(conn, spec)?.left))?;
            if left == 0 {
                self.claimable(spec)?;
                return Err(ServiceError::CouponUnavailable {
                    message: format!("all {} of coupon {coupon_id} have been claimed", spec.total),
                });
            }
        }
        self.idempotent(shopper, key, "claim_coupon", &coupon_id, |tx, _| self.claim(tx, spec, shopper))
    }

    /// The coupons the shopper holds.
    pub fn my_coupons(&self, shopper: &Shopper) -> Result<Page<MyCoupon>, ServiceError> {
        self.read(|conn| {
            let rules = self.rules("coupons")?;
            let mut stmt = conn.prepare_cached(
                "SELECT coupon_id, claimed_at, order_id FROM coupon_claims WHERE shopper = ?1 ORDER BY claimed_at, coupon_id",
            )?;
            let rows: Vec<(String, i64, Option<String>)> = stmt
                .query_map([shopper.as_str()], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?
                .collect::<Result<_, _>>()?;
            let now = self.now();
            let mut items = Vec::new();
            for (coupon_id, claimed_at, order_id) in rows {
                let Ok(spec) = Self::coupon_spec(&rules, &coupon_id) else { continue };
                let status = match (&order_id, now > spec.window().1) {
                    (Some(_), _) => "USED",
                    (None, true) => "EXPIRED",
                    (None, false) => "AVAILABLE",
                };
                items.push(MyCoupon {
                    coupon: Self::coupon_view(conn, spec)?,
                    claimed_at: rfc3339(claimed_at),
                    status: status.into(),
                    order_id,
                });
            }
            Ok(Page { total: items.len() as u64, items })
        })
    }

    /// The discount `coupon_id` gives an order of `items`, or why it does not apply.
    pub(crate) fn discount(
        &self,
        tx: &Transaction,
        shopper: &Shopper,
        coupon_id: &str,
        items: &[CartItem],
    ) -> Result<Discount, OpError> {
        let rules = self.rules("coupons")?;
        let spec = Self::coupon_spec(&rules, coupon_id)?;
        let refuse = |message: String| -> OpError { ServiceError::CouponNotApplicable { message }.into() };
        let held: Option<Option<String>> = tx
            .query_row(
                "SELECT order_id FROM coupon_claims WHERE coupon_id = ?1 AND shopper = ?2",
                params![coupon_id, shopper.as_str()],
                |row| row.get(0),
            )
            .optional()?;
        match held {
            None => return Err(refuse(format!("you have not claimed coupon {coupon_id}"))),
            Some(Some(order)) => return Err(refuse(format!("coupon {coupon_id} was used on order {order}"))),
            Some(None) => {}
        }
        let (from, to) = spec.window();
        let now = self.now();
        if now < from || now > to {
            return Err(refuse(format!(
                "coupon {coupon_id} is valid from {} to {}",
                spec.valid_from, spec.valid_to
            )));
        }
        let live = self.live();
        let store_of = |product_id: &str| {
            live.catalog.product_index_of(product_id).map(|p| {
                live.catalog.stores[live.catalog.products[p as usize].store as usize].store.id.clone()
            })
        };
        let subtotal_cents: i64 = items.iter().map(|i| i.line_total_cents).sum();
        let qualifying: i64 = items
            .iter()
            .filter(|i| {
                spec.store_ids.is_empty()
                    || store_of(&i.product_id).is_some_and(|s| spec.store_ids.contains(&s))
            })
            .map(|i| i.line_total_cents)
            .sum();
        if qualifying < spec.min_spend_cents || qualifying == 0 {
            let at = if spec.store_ids.is_empty() {
                String::new()
            } else {
                format!(" at {}", spec.store_ids.join(", "))
            };
            return Err(refuse(format!(
                "coupon {coupon_id} needs ¥{} spent{at}; this order has ¥{}",
                format_yuan(spec.min_spend_cents),
                format_yuan(qualifying)
            )));
        }
        Ok(Discount {
            coupon_id: coupon_id.to_owned(),
            subtotal_cents,
            discount_cents: spec.discount_cents.min(qualifying),
        })
    }

    /// Places an order with a coupon: the discount off its total, the coupon used.
    pub fn create_order_with_coupon(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        coupon_id: &str,
        key: Option<&IdempotencyKey>,
    ) -> Result<CouponOrder, ServiceError> {
        self.idempotent(shopper, key, "create_order_with_coupon", &(order, coupon_id), |tx, changes| {
            let (order, discount) = self.place(tx, changes, shopper, order, Some(coupon_id))?;
            let Some(discount) = discount else {
                return Err(ServiceError::CouponNotApplicable {
                    message: format!("coupon {coupon_id} was not applied"),
                }
                .into());
            };
            Ok(CouponOrder {
                order,
                coupon_id: discount.coupon_id,
                subtotal_cents: discount.subtotal_cents,
                discount_cents: discount.discount_cents,
            })
        })
    }

    /// Gives back the coupon an unpaid order used (it was cancelled or expired).
    pub(crate) fn give_back_coupon(&self, tx: &Transaction, order_id: &str) -> Result<(), OpError> {
        tx.execute("UPDATE coupon_claims SET order_id = NULL WHERE order_id = ?1", [order_id])?;
        Ok(())
    }
}

/// The points a refund takes back of the `earned` ones: all of them, or as many as the
/// shopper still has (`balance`); never a negative balance, never more than earned.
fn take_back(earned: i64, balance: i64) -> i64 {
    earned.min(balance).max(0)
}

#[cfg(test)]
mod tests {
    use super::take_back;

    #[test]
    fn a_refund_takes_back_at_most_what_is_left() {
        assert_eq!(take_back(799, 1000), 799, "all of it when the points are there");
        assert_eq!(take_back(799, 499), 499, "what is left when some were spent");
        assert_eq!(take_back(799, 0), 0);
        assert_eq!(take_back(799, -5), 0, "a balance below 0 is never made worse");
    }
}
