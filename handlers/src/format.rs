//! How prices, floors, places, store names and cart lines read for shoppers,
//! in each language (the wording is in [`crate::texts::Format`]): the one set of formatting rules the tools'
//! previews and the offline planner's answers share.

use std::borrow::Cow;

use services::{CartItem, ProductBrief, Store};

use crate::context::Lang;

/// A price in fen as people read it: `¥699`, `¥19.99`.
pub fn money(cents: i64) -> String {
    format!("¥{}", services::format_yuan(cents))
}

/// A floor: `3楼` in Chinese, `3F` in English, basements `B1` in both.
pub fn floor(lang: Lang, floor: i32) -> String {
    if floor < 0 { format!("B{}", floor.unsigned_abs()) } else { (lang.texts().format.floor)(floor) }
}

/// Floor and unit: `3楼 L3-01` / `3F, unit L3-01`; a unit that already
/// names its floor (`2F-01`, `B105`) stands alone.
pub fn floor_and_unit(lang: Lang, floor_number: Option<i32>, unit: &str) -> String {
    let names_floor = |n: i32| {
        let upper = unit.to_ascii_uppercase();
        upper.starts_with(&format!("{n}F")) || (n < 0 && upper.starts_with(&format!("B{}", n.unsigned_abs())))
    };
    match (floor_number, unit.trim()) {
        (None, "") => String::new(),
        (None, unit) => unit.to_owned(),
        (Some(n), "") => floor(lang, n),
        (Some(n), unit) if names_floor(n) => unit.to_owned(),
        (Some(n), unit) => (lang.texts().format.floor_unit)(&floor(lang, n), unit),
    }
}

/// A name in the shopper's language: the English one for English when the
/// mall has it, else the Chinese one as the language shows it (in
/// Traditional characters for Traditional Chinese, [`mall_text`]).
pub fn local_name<'a>(lang: Lang, name: &'a str, name_en: Option<&'a str>) -> Cow<'a, str> {
    match name_en {
        Some(en) if lang.texts().format.english_names && !en.trim().is_empty() => Cow::Borrowed(en),
        _ => mall_text(lang, name),
    }
}

/// A Chinese text of the mall's (a name, a category, a description) as the
/// shopper's language shows it: in Traditional characters for Traditional
/// Chinese, as the mall writes it otherwise.
pub fn mall_text(lang: Lang, text: &str) -> Cow<'_, str> {
    (lang.texts().format.mall_text)(text)
}

/// A product's name in the shopper's language.
pub fn product_name(lang: Lang, product: &ProductBrief) -> Cow<'_, str> {
    local_name(lang, &product.name, product.name_en.as_deref())
}

/// A cart or order line's product name in the shopper's language.
pub fn item_name(lang: Lang, item: &CartItem) -> Cow<'_, str> {
    local_name(lang, &item.name, item.name_en.as_deref())
}

/// The store's name in the shopper's language.
pub fn store_name(lang: Lang, store: &Store) -> Cow<'_, str> {
    local_name(lang, &store.name, Some(&store.name_en))
}

/// A remark in brackets: `（42）` / ` (42)`; nothing when empty.
pub fn paren(lang: Lang, inner: &str) -> String {
    if inner.is_empty() { String::new() } else { (lang.texts().format.paren)(inner) }
}

/// A store and where it is: `优衣库（2楼 201）` / `Uniqlo (2F, unit 201)`.
pub fn store_place(lang: Lang, store: &Store) -> String {
    let place = floor_and_unit(lang, Some(store.floor), &store.unit);
    format!("{}{}", store_name(lang, store), paren(lang, &place))
}

/// The suggestion button that asks for directions to a store.
pub fn navigate_suggestion(lang: Lang, name: &str) -> String {
    (lang.texts().format.navigate_suggestion)(name)
}

/// A list joined the way each language writes it: `40、41、42` / `40, 41, 42`.
pub fn join(lang: Lang, items: &[String]) -> String {
    items.join(lang.texts().format.list_sep)
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
    let label = item_label(lang, name, sku_label, quantity);
    format!("{label}{}{}", lang.texts().format.comma, money(amount_cents))
}

/// What and how many, without the price: `Nike Pegasus 41 跑鞋（42 码）× 1` /
/// `Nike Pegasus 41 (size 42) × 1`.
pub fn item_label(lang: Lang, name: &str, sku_label: Option<&str>, quantity: u32) -> String {
    let is_size = |l: &str| l.chars().all(|c| c.is_ascii_alphanumeric() || c == '.');
    let format = &lang.texts().format;
    match sku_label.filter(|l| !l.is_empty()) {
        Some(label) if is_size(label) => (format.item_sized)(name, label, quantity),
        Some(label) => (format.item_labelled)(name, &mall_text(lang, label), quantity),
        None => (format.item_plain)(name, quantity),
    }
}

/// A cart or order line for people (see [`item_text`]).
pub fn cart_item_text(lang: Lang, item: &CartItem) -> String {
    item_text(lang, &item_name(lang, item), item.sku_label.as_deref(), item.quantity, item.line_total_cents)
}

/// Numbered lines, one per item, and the total: the body of cart and order previews.
pub fn items_and_total(lang: Lang, items: &[CartItem], total_cents: i64) -> String {
    let mut text: String = items
        .iter()
        .enumerate()
        .map(|(i, item)| format!("{}. {}\n", i + 1, cart_item_text(lang, item)))
        .collect();
    text.push_str(&format!("{}{}", lang.texts().format.total, money(total_cents)));
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store(name: &str, name_en: &str, floor: i32, unit: &str) -> Store {
        Store {
            id: format!("s-{name_en}"),
            name: name.into(),
            name_en: name_en.into(),
            category: "服装".into(),
            floor,
            unit: unit.into(),
            area_id: "a1".into(),
            open_hours: "10:00-22:00".into(),
            phone: "021-1234".into(),
            tags: vec![],
        }
    }

    #[test]
    fn one_floor_rule_per_language() {
        assert_eq!((floor(Lang::Zh, 3), floor(Lang::En, 3)), ("3楼".into(), "3F".into()));
        assert_eq!((floor(Lang::Zh, -1), floor(Lang::En, -2)), ("B1".into(), "B2".into()));
        assert_eq!(floor_and_unit(Lang::Zh, Some(3), "L3-01"), "3楼 L3-01");
        assert_eq!(floor_and_unit(Lang::En, Some(3), "L3-01"), "3F, unit L3-01");
        assert_eq!(floor_and_unit(Lang::En, None, ""), "");
    }

    #[test]
    fn places_read_as_malls_write_them() {
        let uniqlo = store("优衣库", "Uniqlo", -1, "105");
        assert_eq!(store_place(Lang::Zh, &uniqlo), "优衣库（B1 105）");
        assert_eq!(store_place(Lang::En, &uniqlo), "Uniqlo (B1, unit 105)");
        let nike = store("耐克", "Nike", 3, "3F-01");
        assert_eq!(store_place(Lang::Zh, &nike), "耐克（3F-01）");
        assert_eq!(store_place(Lang::En, &nike), "Nike (3F-01)");
        let no_en = store("老字号", "", 2, "201");
        assert_eq!(store_place(Lang::En, &no_en), "老字号 (2F, unit 201)");
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
