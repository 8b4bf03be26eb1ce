//! Parking, points and coupons: the objects of their endpoints, the rules a mall sets
//! (its car park's [`Tariff`], its [`PointsRule`], its [`CouponSpec`]s) and the
//! arithmetic that needs no storage — one plate normaliser ([`normalize_plate`]) and the
//! fee of a stay ([`Tariff::fee_for`]).
//!
//! Every rule is read from JSON (a folder mall's `loyalty.json`, the demo mall's defaults);
//! see `docs/parking-points-coupons.md`.

use serde::{Deserialize, Serialize};

use crate::error::ServiceError;

// ---------------------------------------------------------------------------------------------
// Rules

/// The car park's tariff and the free time a shopper earns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Tariff {
    /// Minutes free on arrival (a stay no longer than that costs nothing).
    pub free_minutes: u32,
    /// The unit a fee is charged by, in minutes ("an hour or part of it": 60).
    pub unit_minutes: u32,
    /// The price of one unit (fen).
    pub unit_cents: i64,
    /// The most one day (24 hours from entry) costs (fen); 0: no cap.
    pub day_cap_cents: i64,
    /// Minutes a car has to leave after paying.
    pub grace_minutes: u32,
    /// Free time earned by spending today (paid orders of the shopper), best tier applies.
    pub spending_tiers: Vec<SpendingTier>,
    /// The plates the car park takes: `mainland`, `new_energy`, `hong_kong`, `macau`, or
    /// `pattern:` followed by `L` (letter), `D` (digit), `X` (letter or digit), `C` (a Chinese
    /// character) and literal characters, e.g. `pattern:CLXXXX港`.
    pub plates: Vec<String>,
    /// The mall's UTC offset in minutes, which tells when "today" starts (480: +08:00).
    pub utc_offset_minutes: i32,
}

impl Default for Tariff {
    /// 30 minutes free, then ¥10 an hour or part of it, ¥60 a day at most, 15 minutes to
    /// leave; 2 hours free for ¥200 spent today, 4 hours for ¥500; mainland, new-energy and
    /// Hong Kong plates; +08:00.
    fn default() -> Self {
        Tariff {
            free_minutes: 30,
            unit_minutes: 60,
            unit_cents: 1000,
            day_cap_cents: 6000,
            grace_minutes: 15,
            spending_tiers: vec![
                SpendingTier { min_spent_cents: 20_000, free_minutes: 120 },
                SpendingTier { min_spent_cents: 50_000, free_minutes: 240 },
            ],
            plates: vec!["mainland".into(), "new_energy".into(), "hong_kong".into()],
            utc_offset_minutes: 480,
        }
    }
}

/// Free parking for spending at least `min_spent_cents` today.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpendingTier {
    pub min_spent_cents: i64,
    pub free_minutes: u32,
}

/// How points are earned and what they buy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PointsRule {
    /// Points per whole yuan of a paid order.
    pub points_per_yuan: i64,
    /// Points one hour of free parking costs (0: parking cannot be bought with points).
    pub points_per_parking_hour: i64,
}

impl Default for PointsRule {
    /// 1 point per ¥1; 100 points an hour of parking.
    fn default() -> Self {
        PointsRule { points_per_yuan: 1, points_per_parking_hour: 100 }
    }
}

/// One of the mall's coupons as the mall sets it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CouponSpec {
    pub coupon_id: String,
    pub title: String,
    pub title_en: String,
    /// How many there are in all.
    pub total: u32,
    /// RFC 3339; claimable and usable from then.
    pub valid_from: String,
    /// RFC 3339; claimable and usable until then.
    pub valid_to: String,
    /// The least an order (its items from `store_ids`) must come to (fen).
    #[serde(default)]
    pub min_spend_cents: i64,
    /// Amount off (fen).
    pub discount_cents: i64,
    /// The stores whose items it applies to; empty: every store.
    #[serde(default)]
    pub store_ids: Vec<String>,
    /// Points it costs when redeemed for points; absent: not for points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points_cost: Option<i64>,
}

/// A mall's parking, points and coupon rules (a folder mall's `loyalty.json`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LoyaltyRules {
    pub tariff: Tariff,
    pub points: PointsRule,
    pub coupons: Vec<CouponSpec>,
}

impl LoyaltyRules {
    /// The demo mall's rules: the default tariff and points rule, and four coupons (one of
    /// only 5, one that costs points).
    pub fn demo() -> LoyaltyRules {
        let coupon = |id: &str, title: &str, title_en: &str, total, min, off, stores: &[&str]| CouponSpec {
            coupon_id: id.to_owned(),
            title: title.to_owned(),
            title_en: title_en.to_owned(),
            total,
            valid_from: "2025-01-01T00:00:00+08:00".to_owned(),
            valid_to: "2030-12-31T23:59:59+08:00".to_owned(),
            min_spend_cents: min,
            discount_cents: off,
            store_ids: stores.iter().map(|s| (*s).to_owned()).collect(),
            points_cost: None,
        };
        let mut points =
            coupon("cp-points-30", "积分兑换满200减30", "¥30 off ¥200 (for points)", 1000, 20_000, 3000, &[]);
        points.points_cost = Some(300);
        LoyaltyRules {
            tariff: Tariff::default(),
            points: PointsRule::default(),
            coupons: vec![
                coupon("cp-mall-50", "全场满300减50", "¥50 off ¥300, any store", 100, 30_000, 5000, &[]),
                coupon(
                    "cp-nike-100",
                    "耐克满800减100",
                    "¥100 off ¥800 at Nike",
                    200,
                    80_000,
                    10_000,
                    &["s-nike"],
                ),
                coupon("cp-lucky-5", "限量5张 满100减20", "Only 5: ¥20 off ¥100", 5, 10_000, 2000, &[]),
                points,
            ],
        }
    }

    /// What is wrong with the rules, one line each (empty: nothing).
    pub fn mistakes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let t = &self.tariff;
        if t.unit_minutes == 0 {
            out.push("tariff.unit_minutes must be at least 1".to_owned());
        }
        if t.unit_cents < 0 || t.day_cap_cents < 0 {
            out.push("tariff prices cannot be negative".to_owned());
        }
        for pattern in &t.plates {
            if PlatePattern::parse(pattern).is_none() {
                out.push(format!(
                    "tariff.plates: `{pattern}` is neither mainland, new_energy, hong_kong, macau nor pattern: followed by L, D, X, C and literal characters"
                ));
            }
        }
        let mut seen = std::collections::HashSet::new();
        for c in &self.coupons {
            if !seen.insert(c.coupon_id.as_str()) {
                out.push(format!("coupon {} is listed twice", c.coupon_id));
            }
            if c.coupon_id.trim().is_empty() {
                out.push("a coupon has no coupon_id".to_owned());
            }
            for (field, value) in [("valid_from", &c.valid_from), ("valid_to", &c.valid_to)] {
                if crate::calendar::LocalTime::parse(value).is_none() {
                    out.push(format!("coupon {}: {field} `{value}` is not RFC 3339", c.coupon_id));
                }
            }
            if c.discount_cents <= 0 {
                out.push(format!("coupon {}: discount_cents must be more than 0", c.coupon_id));
            }
        }
        out
    }
}

impl CouponSpec {
    /// `valid_from` and `valid_to` in Unix seconds (an unreadable bound: never valid).
    pub fn window(&self) -> (i64, i64) {
        let at = |text: &str, fallback| crate::calendar::LocalTime::parse(text).map_or(fallback, |t| t.unix);
        (at(&self.valid_from, i64::MAX), at(&self.valid_to, i64::MIN))
    }
}

// ---------------------------------------------------------------------------------------------
// Plates

/// A kind of plate the car park takes.
#[derive(Debug, Clone, PartialEq, Eq)]
enum PlatePattern {
    Mainland,
    NewEnergy,
    HongKong,
    Macau,
    Custom(Vec<char>),
}

/// The mainland provinces' one-character abbreviations.
const PROVINCES: &str = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼";

impl PlatePattern {
    fn parse(text: &str) -> Option<PlatePattern> {
        Some(match text.trim() {
            "mainland" => PlatePattern::Mainland,
            "new_energy" => PlatePattern::NewEnergy,
            "hong_kong" => PlatePattern::HongKong,
            "macau" => PlatePattern::Macau,
            other => {
                let pattern = normalize_text(other.strip_prefix("pattern:")?);
                if pattern.is_empty() {
                    return None;
                }
                PlatePattern::Custom(pattern.chars().collect())
            }
        })
    }

    fn name(&self) -> String {
        match self {
            PlatePattern::Mainland => "mainland".into(),
            PlatePattern::NewEnergy => "new_energy".into(),
            PlatePattern::HongKong => "hong_kong".into(),
            PlatePattern::Macau => "macau".into(),
            PlatePattern::Custom(chars) => format!("pattern:{}", chars.iter().collect::<String>()),
        }
    }

    fn matches(&self, plate: &[char]) -> bool {
        let alnum = |c: &char| c.is_ascii_uppercase() || c.is_ascii_digit();
        let mainland_head = |p: &[char]| PROVINCES.contains(p[0]) && p[1].is_ascii_uppercase();
        match self {
            PlatePattern::Mainland => {
                plate.len() == 7 && mainland_head(plate) && plate[2..].iter().all(alnum)
            }
            PlatePattern::NewEnergy => {
                plate.len() == 8
                    && mainland_head(plate)
                    && plate[2..].iter().all(alnum)
                    && (matches!(plate[2], 'D' | 'F') || matches!(plate[7], 'D' | 'F'))
            }
            PlatePattern::HongKong => {
                (1..=8).contains(&plate.len())
                    && plate.iter().all(alnum)
                    && plate.iter().any(char::is_ascii_uppercase)
            }
            PlatePattern::Macau => {
                plate.len() == 6
                    && plate[0] == 'M'
                    && plate[1].is_ascii_uppercase()
                    && plate[2..].iter().all(char::is_ascii_digit)
            }
            PlatePattern::Custom(pattern) => {
                pattern.len() == plate.len()
                    && pattern.iter().zip(plate).all(|(p, c)| match p {
                        'L' => c.is_ascii_uppercase(),
                        'D' => c.is_ascii_digit(),
                        'X' => alnum(c),
                        'C' => !c.is_ascii(),
                        literal => literal == c,
                    })
            }
        }
    }
}

/// Upper case, with dots, middle dots, spaces and hyphens taken out.
fn normalize_text(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '.' | '·' | '•' | '・' | '-' | '－' | ' ' | '\u{3000}' | '\t'))
        .flat_map(char::to_uppercase)
        .collect()
}

/// The most characters a plate may be sent with, spaces and dots included.
const MAX_PLATE_CHARS: usize = 24;

/// A plate as the car park keeps it, and which of the accepted kinds it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plate {
    /// Normalised: `沪A12345`.
    pub plate: String,
    /// `mainland`, `new_energy`, `hong_kong`, `macau` or the mall's own `pattern:…`.
    pub kind: String,
}

/// The one plate normaliser: upper case, dots/spaces/hyphens removed (`沪a·123 45` →
/// `沪A12345`), then checked against the kinds the car park takes (`accepted`, as in
/// [`Tariff::plates`]); a plate of none of them is `INVALID_ARGUMENT` naming them.
pub fn normalize_plate(text: &str, accepted: &[String]) -> Result<Plate, ServiceError> {
    // No plate is this long: whatever was sent is neither read further nor echoed back.
    if text.chars().count() > MAX_PLATE_CHARS {
        return Err(ServiceError::invalid(
            "plate",
            format!("a plate has at most {MAX_PLATE_CHARS} characters; e.g. 沪A12345"),
        ));
    }
    let plate = normalize_text(text);
    let chars: Vec<char> = plate.chars().collect();
    if chars.is_empty() {
        return Err(ServiceError::invalid("plate", "a plate number is required, e.g. 沪A12345"));
    }
    let patterns: Vec<PlatePattern> = accepted.iter().filter_map(|p| PlatePattern::parse(p)).collect();
    // Mainland plates first: a Hong Kong pattern would take nothing of theirs anyway (ASCII only).
    match patterns.iter().find(|p| p.matches(&chars)) {
        Some(kind) => Ok(Plate { plate, kind: kind.name() }),
        None => Err(ServiceError::invalid(
            "plate",
            format!(
                "`{text}` is not a plate this car park takes ({}); e.g. 沪A12345, 沪AD12345",
                patterns.iter().map(PlatePattern::name).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

// ---------------------------------------------------------------------------------------------
// Fees

impl Tariff {
    /// The fee of a stay of `minutes`: the first `free_minutes` free, then `unit_cents` per
    /// `unit_minutes` or part of it, each 24 hours at most `day_cap_cents`.
    pub fn fee_for(&self, minutes: i64) -> i64 {
        let minutes = minutes.max(0);
        let unit = i64::from(self.unit_minutes.max(1));
        let capped = |fee: i64| if self.day_cap_cents > 0 { fee.min(self.day_cap_cents) } else { fee };
        let days = minutes / 1440;
        let rest = minutes % 1440;
        let units = |m: i64| (m.max(0) + unit - 1) / unit;
        if days == 0 {
            if rest <= i64::from(self.free_minutes) {
                return 0;
            }
            return capped(units(rest - i64::from(self.free_minutes)) * self.unit_cents);
        }
        let full_day = capped(units(1440) * self.unit_cents);
        days * full_day + capped(units(rest) * self.unit_cents)
    }

    /// The fee of `minutes` stayed on after the time to leave: every started unit (no free
    /// minutes), each 24 hours at most `day_cap_cents`.
    pub fn overstay_fee(&self, minutes: i64) -> i64 {
        let unit = i64::from(self.unit_minutes.max(1));
        let fee = (minutes.max(0) + unit - 1) / unit * self.unit_cents;
        if self.day_cap_cents > 0 { fee.min(self.day_cap_cents * (1 + minutes.max(0) / 1440)) } else { fee }
    }

    /// The free minutes spending `spent_cents` today earns (the best tier reached).
    pub fn earned_minutes(&self, spent_cents: i64) -> u32 {
        self.spending_tiers
            .iter()
            .filter(|t| spent_cents >= t.min_spent_cents)
            .map(|t| t.free_minutes)
            .max()
            .unwrap_or(0)
    }

    /// The start of the mall's day holding `unix`, in Unix seconds.
    pub fn day_start(&self, unix: i64) -> i64 {
        let offset = i64::from(self.utc_offset_minutes) * 60;
        (unix + offset).div_euclid(86_400) * 86_400 - offset
    }
}

// ---------------------------------------------------------------------------------------------
// Objects of the endpoints

/// Why some minutes were free.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FreeTime {
    /// `FIRST_MINUTES` (the tariff's), `SPENDING` (paid orders today), `POINTS` (bought).
    pub reason: String,
    pub minutes: i64,
    /// For people: `¥250 spent today`, `200 points`.
    pub detail: String,
}

/// `GET /api/parking/fee`: what a car inside owes now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParkingFee {
    pub plate: String,
    /// RFC 3339.
    pub entered_at: String,
    pub minutes_parked: i64,
    /// The fee of the whole stay before free time earned (the tariff's first minutes are free).
    pub gross_cents: i64,
    /// Free time applied and why.
    #[serde(default)]
    pub free: Vec<FreeTime>,
    /// Already paid for this stay.
    pub paid_cents: i64,
    /// What is due now (0: the car may leave).
    pub due_cents: i64,
    /// Minutes one has to leave after paying.
    pub grace_minutes: u32,
    /// RFC 3339: when a car that has paid must have left; absent while something is due.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leave_by: Option<String>,
}

/// `POST /api/parking/payments`' body.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PayParking {
    pub plate: String,
    /// Must be the fee due at that moment.
    pub amount_cents: i64,
    /// The payment provider's charge; the same charge is recorded once.
    pub charge_id: String,
}

/// A parking payment recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ParkingPayment {
    pub plate: String,
    pub amount_cents: i64,
    pub charge_id: String,
    /// RFC 3339.
    pub paid_at: String,
    /// RFC 3339: leave before this.
    pub leave_by: String,
}

/// A car in the car park (or that just left), as the staff endpoints answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CarStay {
    pub plate: String,
    /// RFC 3339.
    pub entered_at: String,
    /// RFC 3339, once it left.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_at: Option<String>,
}

/// One change of a shopper's points.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsChange {
    /// `ORDER_PAID`, `ORDER_REFUNDED`, `PARKING`, `COUPON`.
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    /// Signed: earned > 0, spent or taken back < 0.
    pub amount: i64,
    /// RFC 3339.
    pub at: String,
    /// `ORDER_REFUNDED` only: the points the order earned that were not taken back, having
    /// been spent already (a balance never goes below 0); absent when all were taken back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_taken: Option<i64>,
}

/// `GET /api/points`: the balance and the last changes, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PointsBalance {
    pub balance: i64,
    #[serde(default)]
    pub changes: Vec<PointsChange>,
    /// The mall's points rule: what a yuan earns and what an hour of parking costs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<PointsRule>,
}

/// `POST /api/points/redemptions`' body: points for parking time or for a coupon.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "for", rename_all = "snake_case")]
pub enum Redeem {
    /// Whole hours of free parking for a car inside.
    Parking { plate: String, hours: u32 },
    /// A coupon that has a `points_cost`.
    Coupon { coupon_id: String },
}

/// What a redemption gave.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redemption {
    /// Points spent.
    pub points_spent: i64,
    /// The balance after it.
    pub balance: i64,
    /// Free parking minutes added to the car's stay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parking_minutes: Option<i64>,
    /// The coupon claimed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub coupon: Option<MyCoupon>,
}

/// One of the mall's coupons as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Coupon {
    pub coupon_id: String,
    pub title: String,
    pub title_en: String,
    pub total: u32,
    /// How many are left to claim.
    pub left: u32,
    /// Always 1: one per shopper.
    pub per_shopper: u32,
    pub valid_from: String,
    pub valid_to: String,
    pub min_spend_cents: i64,
    pub discount_cents: i64,
    #[serde(default)]
    pub store_ids: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points_cost: Option<i64>,
}

/// A coupon a shopper holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MyCoupon {
    pub coupon: Coupon,
    /// RFC 3339.
    pub claimed_at: String,
    /// `AVAILABLE`, `USED` (on `order_id`) or `EXPIRED`.
    pub status: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
}

/// An order placed with a coupon: the order (its `total_cents` after the discount) with
/// its subtotal and the discount. On the wire it is the order, whose `coupon_id`,
/// `subtotal_cents` and `discount_cents` are then required.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(into = "crate::models::Order", try_from = "crate::models::Order")]
pub struct CouponOrder {
    pub order: crate::models::Order,
    pub coupon_id: String,
    /// The items' total before the discount.
    pub subtotal_cents: i64,
    pub discount_cents: i64,
}

impl From<CouponOrder> for crate::models::Order {
    fn from(placed: CouponOrder) -> Self {
        crate::models::Order {
            coupon_id: Some(placed.coupon_id),
            subtotal_cents: Some(placed.subtotal_cents),
            discount_cents: Some(placed.discount_cents),
            ..placed.order
        }
    }
}

impl TryFrom<crate::models::Order> for CouponOrder {
    type Error = String;

    fn try_from(order: crate::models::Order) -> Result<Self, String> {
        match (order.coupon_id.clone(), order.subtotal_cents, order.discount_cents) {
            (Some(coupon_id), Some(subtotal_cents), Some(discount_cents)) => {
                Ok(CouponOrder { order, coupon_id, subtotal_cents, discount_cents })
            }
            _ => Err(format!(
                "order {} was placed with a coupon but names no coupon_id, subtotal_cents and discount_cents",
                order.order_id
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn accepted() -> Vec<String> {
        Tariff::default().plates
    }

    #[test]
    fn one_plate_in_its_many_spellings() {
        for text in ["沪A·12345", "沪a 12345", "沪A12345", "沪A-123 45", " 沪a.12345 "] {
            assert_eq!(normalize_plate(text, &accepted()).unwrap().plate, "沪A12345", "{text}");
        }
        assert_eq!(normalize_plate("沪AD12345", &accepted()).unwrap().kind, "new_energy");
        assert_eq!(
            normalize_plate("ab 1234", &accepted()).unwrap(),
            Plate { plate: "AB1234".into(), kind: "hong_kong".into() }
        );
        assert!(normalize_plate("沪A1234", &accepted()).is_err());
        assert!(normalize_plate("ABCDEFGHJ", &accepted()).is_err());
        let macau = normalize_plate("MA-12-34", &["macau".to_owned()]).unwrap();
        assert_eq!((macau.plate.as_str(), macau.kind.as_str()), ("MA1234", "macau"));
        assert_eq!(
            normalize_plate("粤Z1234港", &["pattern:CLXXXX港".to_owned()]).unwrap().plate,
            "粤Z1234港"
        );
    }

    #[test]
    fn a_plate_sent_far_too_long_is_refused_without_being_echoed() {
        let sent = format!("沪A12345{}", "<b>x</b>".repeat(10_000));
        let refused = normalize_plate(&sent, &accepted()).unwrap_err().to_string();
        assert!(refused.contains("at most 24 characters") && !refused.contains("<b>"), "{refused}");
    }

    #[test]
    fn the_tariff_charges_started_hours_after_the_free_half_hour_up_to_the_day_cap() {
        let t = Tariff::default();
        assert_eq!(t.fee_for(30), 0);
        assert_eq!(t.fee_for(31), 1000);
        assert_eq!(t.fee_for(90), 1000);
        assert_eq!(t.fee_for(91), 2000);
        assert_eq!(t.fee_for(23 * 60), 6000);
        assert_eq!(t.fee_for(24 * 60 + 10), 7000);
        assert_eq!(t.earned_minutes(19_999), 0);
        assert_eq!(t.earned_minutes(20_000), 120);
        assert_eq!(t.earned_minutes(60_000), 240);
    }

    #[test]
    fn the_demo_rules_have_no_mistakes() {
        assert_eq!(LoyaltyRules::demo().mistakes(), Vec::<String>::new());
    }
}
