//! What the tools share: yuan ↔ fen, finding a store by id or name, the
//! compact JSON the model reads, and the shopper-facing texts of previews.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use services::{Cart, CartItem, IdempotencyKey, Order, PageRequest, ServiceError, Store, StoreQuery};

use crate::context::{Lang, ToolContext};
use crate::result::ToolError;

/// The arguments of a tool that takes none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
pub struct NoArguments {}

/// Fen as a JSON number of yuan: `69900` → `699`, `1999` → `19.99`.
pub fn yuan(cents: i64) -> Value {
    if cents % 100 == 0 { json!(cents / 100) } else { json!(cents as f64 / 100.0) }
}

/// A price the model gave in yuan, in fen. Negative or not a number →
/// [`ToolError::InvalidArguments`] naming `field`.
pub fn yuan_to_cents(field: &str, yuan: f64) -> Result<i64, ToolError> {
    if !yuan.is_finite() || yuan < 0.0 {
        return Err(ToolError::invalid(field, "a price is a number of yuan, 0 or more"));
    }
    if yuan > 100_000_000.0 {
        return Err(ToolError::invalid(field, "a price is at most 100000000 yuan"));
    }
    Ok((yuan * 100.0).round() as i64)
}

/// A price for people: `¥699`, `¥19.99`.
pub fn money(cents: i64) -> String {
    format!("¥{}", services::format_yuan(cents))
}

/// A rating as a short JSON number (`4.7`, not `4.699999809265137`).
pub fn rating(value: f32) -> Value {
    json!((f64::from(value) * 100.0).round() / 100.0)
}

/// A floor as malls write it: `2F`, `B1`.
pub fn floor_label(floor: i32) -> String {
    if floor < 0 { format!("B{}", floor.unsigned_abs()) } else { format!("{floor}F") }
}

/// The store's name in the shopper's language.
pub fn store_name(lang: Lang, store: &Store) -> &str {
    match lang {
        Lang::En if !store.name_en.is_empty() => &store.name_en,
        _ => &store.name,
    }
}

/// Where a store is, for people: `优衣库（2F 201）` / `Uniqlo (2F, unit 201)`;
/// a unit that already names its floor (`2F-01`) stands alone.
pub fn store_place(lang: Lang, store: &Store) -> String {
    let floor = floor_label(store.floor);
    let unit = &store.unit;
    let place = match lang {
        _ if unit.starts_with(&floor) => unit.clone(),
        Lang::Zh => format!("{floor} {unit}"),
        Lang::En => format!("{floor}, unit {unit}"),
    };
    match lang {
        Lang::Zh => format!("{}（{place}）", store.name),
        Lang::En => format!("{} ({place})", store_name(lang, store)),
    }
}

/// The suggestion button that asks for directions to a store.
pub fn navigate_suggestion(lang: Lang, store: &Store) -> String {
    match lang {
        Lang::Zh => format!("带我去{}", store.name),
        Lang::En => format!("Take me to {}", store_name(lang, store)),
    }
}

/// A store as search results and `get_store_info` show it.
pub fn store_json(store: &Store) -> Value {
    json!({
        "store_id": store.id,
        "name": store.name,
        "name_en": store.name_en,
        "category": store.category,
        "floor": store.floor,
        "unit": store.unit,
        "area_id": store.area_id,
        "open_hours": store.open_hours,
        "phone": store.phone,
    })
}

/// A store in short: `{store_id, name, name_en, floor, unit}`.
pub fn store_ref_json(store: &Store) -> Value {
    json!({
        "store_id": store.id,
        "name": store.name,
        "name_en": store.name_en,
        "floor": store.floor,
        "unit": store.unit,
    })
}

/// A store known only by id and maybe name (its lookup failed): same shape, `null` place.
pub fn unknown_store_json(store_id: &str, name: Option<&str>) -> Value {
    json!({ "store_id": store_id, "name": name, "floor": null, "unit": null })
}

/// A cart or order line.
pub fn item_json(item: &CartItem) -> Value {
    json!({
        "item_id": item.item_id,
        "product_id": item.product_id,
        "sku_id": item.sku_id,
        "name": item.name,
        "sku_label": item.sku_label,
        "quantity": item.quantity,
        "unit_price_yuan": yuan(item.unit_price_cents),
        "line_total_yuan": yuan(item.line_total_cents),
    })
}

/// What every cart tool returns: `{cart_id, items, total_yuan}`.
pub fn cart_json(cart: &Cart) -> Value {
    json!({
        "cart_id": cart.cart_id,
        "items": cart.items.iter().map(item_json).collect::<Vec<_>>(),
        "total_yuan": yuan(cart.total_cents),
    })
}

/// What every single-order tool returns: `{"order": {...}}` with its pickup store.
pub fn order_json(order: &Order, pickup: Option<&Store>) -> Value {
    let pickup_store = match pickup {
        Some(store) => store_ref_json(store),
        None => unknown_store_json(&order.pickup_store_id, None),
    };
    json!({
        "order": {
            "order_id": order.order_id,
            "status": order.status.as_str(),
            "items": order.items.iter().map(item_json).collect::<Vec<_>>(),
            "total_yuan": yuan(order.total_cents),
            "created_at": order.created_at,
            "pickup_store": pickup_store,
        }
    })
}

/// Finds a store by its id or by a name in either language ("Uniqlo",
/// "优衣库"): the id first, then the mall's store search, preferring an exact
/// name. `field` names the argument in errors.
pub async fn find_store(ctx: &ToolContext, field: &str, id_or_name: &str) -> Result<Store, ToolError> {
    let wanted = id_or_name.trim();
    if wanted.is_empty() {
        return Err(ToolError::invalid(field, "give a store id or a store name"));
    }
    match ctx.mall.get_store(wanted).await {
        Ok(store) => return Ok(store),
        Err(ServiceError::NotFound { .. } | ServiceError::InvalidArgument { .. }) => {}
        Err(other) => return Err(other.into()),
    }
    let query =
        StoreQuery { keyword: Some(wanted.to_owned()), page: PageRequest::first(10), ..Default::default() };
    let stores = ctx.mall.search_stores(&query).await?.items;
    best_store_match(wanted, stores).ok_or_else(|| {
        ToolError::NotFound(format!(
            "no store has the id or name \"{wanted}\"; search_stores finds stores by keyword or category"
        ))
    })
}

/// The store whose name is `wanted` (any case, either language), else the
/// first one whose name contains it, else the mall's best match.
fn best_store_match(wanted: &str, stores: Vec<Store>) -> Option<Store> {
    let wanted = wanted.to_lowercase();
    let names = |s: &Store| [s.name.to_lowercase(), s.name_en.to_lowercase()];
    let exact = stores.iter().position(|s| names(s).contains(&wanted));
    let partial = || stores.iter().position(|s| names(s).iter().any(|n| n.contains(&wanted)));
    let index = exact.or_else(partial).unwrap_or(0);
    stores.into_iter().nth(index)
}

/// Looks up a store for display, where a failure must not fail the tool
/// (an order already placed): `None`, logged, when it cannot be found.
pub async fn store_for_display(ctx: &ToolContext, store_id: &str) -> Option<Store> {
    match ctx.mall.get_store(store_id).await {
        Ok(store) => Some(store),
        Err(error) => {
            tracing::warn!(store_id, %error, "store lookup for display failed");
            None
        }
    }
}

/// The mall idempotency key of a confirmed call.
pub fn idempotency_key(ctx: &ToolContext) -> Option<IdempotencyKey> {
    ctx.approval.as_ref().map(|approval| approval.idempotency_key.clone())
}

/// One line for people: `Nike Pegasus 41 跑鞋（42 码）× 1，¥699` /
/// `Nike Pegasus 41 (size 42) × 1, ¥699`; `amount_cents` is the line's total.
pub fn item_text(
    lang: Lang,
    name: &str,
    sku_label: Option<&str>,
    quantity: u32,
    amount_cents: i64,
) -> String {
    let amount = money(amount_cents);
    let is_size = |l: &str| l.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
    match (lang, sku_label.filter(|l| !l.is_empty())) {
        (Lang::Zh, Some(label)) if is_size(label) => format!("{name}（{label} 码）× {quantity}，{amount}"),
        (Lang::Zh, Some(label)) => format!("{name}（{label}）× {quantity}，{amount}"),
        (Lang::Zh, None) => format!("{name} × {quantity}，{amount}"),
        (Lang::En, Some(label)) if is_size(label) => format!("{name} (size {label}) × {quantity}, {amount}"),
        (Lang::En, Some(label)) => format!("{name} ({label}) × {quantity}, {amount}"),
        (Lang::En, None) => format!("{name} × {quantity}, {amount}"),
    }
}

/// A cart or order line for people (see [`item_text`]).
pub fn cart_item_text(lang: Lang, item: &CartItem) -> String {
    item_text(lang, &item.name, item.sku_label.as_deref(), item.quantity, item.line_total_cents)
}

/// Numbered lines, one per item, and the total: the body of cart and order previews.
pub fn items_and_total(lang: Lang, items: &[CartItem], total_cents: i64) -> String {
    let mut text: String = items
        .iter()
        .enumerate()
        .map(|(i, item)| format!("{}. {}\n", i + 1, cart_item_text(lang, item)))
        .collect();
    text.push_str(&format!("{}{}", lang.pick("合计：", "Total: "), money(total_cents)));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(name: &str, name_en: &str) -> Store {
        Store {
            id: format!("s-{name_en}"),
            name: name.into(),
            name_en: name_en.into(),
            category: "服装".into(),
            floor: -1,
            unit: "105".into(),
            area_id: "a1".into(),
            open_hours: "10:00-22:00".into(),
            phone: "021-1234".into(),
            tags: vec![],
        }
    }

    #[test]
    fn yuan_is_a_plain_json_number() {
        assert_eq!(yuan(69900).to_string(), "699");
        assert_eq!(yuan(1999).to_string(), "19.99");
        assert_eq!(yuan(5).to_string(), "0.05");
        assert_eq!(rating(4.7).to_string(), "4.7");
    }

    #[test]
    fn yuan_to_cents_rounds_and_refuses_nonsense() {
        assert_eq!(yuan_to_cents("max_price", 500.0), Ok(50000));
        assert_eq!(yuan_to_cents("max_price", 19.99), Ok(1999));
        assert_eq!(yuan_to_cents("max_price", 0.0), Ok(0));
        for bad in [-1.0, f64::NAN, f64::INFINITY, 1e12] {
            let err = yuan_to_cents("min_price", bad).expect_err("refused");
            assert!(matches!(&err, ToolError::InvalidArguments { field: Some(f), .. } if f == "min_price"));
        }
    }

    #[test]
    fn places_read_as_malls_write_them() {
        let uniqlo = store("优衣库", "Uniqlo");
        assert_eq!(floor_label(2), "2F");
        assert_eq!(store_place(Lang::Zh, &uniqlo), "优衣库（B1 105）");
        assert_eq!(store_place(Lang::En, &uniqlo), "Uniqlo (B1, unit 105)");
        let nike = Store { floor: 3, unit: "3F-01".into(), ..store("耐克", "Nike") };
        assert_eq!(store_place(Lang::Zh, &nike), "耐克（3F-01）");
        assert_eq!(store_place(Lang::En, &nike), "Nike (3F-01)");
    }

    #[test]
    fn exact_name_beats_the_first_search_result() {
        let stores = vec![store("优衣库童装", "Uniqlo Kids"), store("优衣库", "Uniqlo")];
        assert_eq!(best_store_match("uniqlo", stores.clone()).map(|s| s.name_en), Some("Uniqlo".into()));
        assert_eq!(best_store_match("优衣库", stores.clone()).map(|s| s.name_en), Some("Uniqlo".into()));
        assert_eq!(best_store_match("kids", stores.clone()).map(|s| s.name_en), Some("Uniqlo Kids".into()));
        assert_eq!(best_store_match("UNIQLO store", stores).map(|s| s.name_en), Some("Uniqlo Kids".into()));
        assert_eq!(best_store_match("x", vec![]), None);
    }

    #[test]
    fn item_lines_show_size_quantity_and_amount() {
        let zh = item_text(Lang::Zh, "Nike Pegasus 41 跑鞋", Some("42"), 1, 69900);
        assert_eq!(zh, "Nike Pegasus 41 跑鞋（42 码）× 1，¥699");
        let en = item_text(Lang::En, "Nike Pegasus 41", Some("M"), 2, 1998);
        assert_eq!(en, "Nike Pegasus 41 (size M) × 2, ¥19.98");
        assert_eq!(item_text(Lang::Zh, "T恤", Some("红色"), 1, 9900), "T恤（红色）× 1，¥99");
        assert_eq!(item_text(Lang::En, "Mug", None, 3, 3000), "Mug × 3, ¥30");
    }
}
