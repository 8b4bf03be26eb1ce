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

/// A text of the mall's (a description, an offer's title) in the shopper's
/// language, from its Chinese and English versions: in English the English
/// one, empty when the mall has none (an English answer then says less
/// rather than show Chinese); in Chinese the Chinese one as the language
/// shows it ([`mall_text`]), the English one when the mall wrote only that.
pub fn local_text<'a>(lang: Lang, zh: &'a str, en: &'a str) -> Cow<'a, str> {
    let (zh, en) = (zh.trim(), en.trim());
    if lang.texts().format.english_names || zh.is_empty() { Cow::Borrowed(en) } else { mall_text(lang, zh) }
}

/// An offer's title and description in the shopper's language (see
/// [`local_text`]): a description that is all there is becomes the title,
/// one that repeats the title is left out, and an offer with no words in the
/// language at all is named as such (in English: "an offer, described in
/// Chinese only") rather than shown in Chinese.
pub fn offer_text(lang: Lang, title: (&str, &str), description: (&str, &str)) -> (String, String) {
    let title = local_text(lang, title.0, title.1).into_owned();
    // The line goes on after the description (`…（有效期至 …）`): no full stop before it.
    let description = local_text(lang, description.0, description.1);
    let description = description.trim_end_matches(['.', '。']).to_owned();
    match (title.is_empty(), description.is_empty()) {
        (true, true) => (lang.texts().answers.untranslated_offer.to_owned(), String::new()),
        (true, false) => (description, String::new()),
        _ if description == title => (title, String::new()),
        _ => (title, description),
    }
}

/// A SKU's label (a size, a colour, both) as the shopper's language shows
/// it. Malls write labels in both languages at once (`42 / 黑色 Black`,
/// `中杯 Tall`): in English the Chinese words of a part that has English
/// words are left out (`42 / Black`, `Tall`); a part in Chinese only stays
/// as it is (it is the only name of that choice).
pub fn sku_label(lang: Lang, label: &str) -> Cow<'_, str> {
    if !lang.texts().format.english_names || !has_han(label) {
        return mall_text(lang, label);
    }
    let english_word = |w: &str| w.chars().count() > 1 && w.chars().all(|c| c.is_ascii_alphabetic());
    let parts: Vec<String> = label
        .split(" / ")
        .map(|part| {
            if part.split_whitespace().any(english_word) {
                part.split_whitespace().filter(|w| !has_han(w)).collect::<Vec<_>>().join(" ")
            } else {
                part.trim().to_owned()
            }
        })
        .collect();
    Cow::Owned(parts.join(" / "))
}

/// Whether a text has Chinese characters in it (a text that is not English).
pub fn has_han(text: &str) -> bool {
    text.chars()
        .any(|c| matches!(c, '\u{3400}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' | '\u{20000}'..='\u{2fa1f}'))
}

/// Opening hours as the shopper's language writes them. The mall writes
/// them the same in every language, `10:00-22:00`; a closing time before
/// the opening time is on the next day (`10:00-02:00`, also read when
/// written `10:00-次日02:00`): `10:00–02:00 (next day)` / `10:00–次日02:00`.
/// Several spans may be separated by commas or semicolons. Hours the mall
/// wrote in words of its own show as written, except in English when they
/// are in Chinese: then they are left out (empty).
pub fn opening_hours(lang: Lang, hours: &str) -> String {
    let spans: Option<Vec<String>> = hours
        .split([',', ';', '，', '；', '、'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|span| opening_span(lang, span))
        .collect();
    match spans {
        Some(spans) if !spans.is_empty() => spans.join(lang.texts().format.comma),
        _ if lang.texts().format.english_names && has_han(hours) => String::new(),
        _ => mall_text(lang, hours.trim()).into_owned(),
    }
}

/// One span of opening hours, `HH:MM-HH:MM`; `None` when it is not one.
fn opening_span(lang: Lang, span: &str) -> Option<String> {
    let (open, close) = span.split_once(['-', '–', '—', '~', '～', '至'])?;
    let close = close.trim();
    let (close, said_next_day) = match close.strip_prefix("次日") {
        Some(rest) => (rest.trim(), true),
        None => (close, false),
    };
    let minutes = |t: &str| -> Option<u32> {
        let (h, m) = t.trim().split_once([':', '：'])?;
        let (h, m): (u32, u32) = (h.trim().parse().ok()?, m.trim().parse().ok()?);
        (h <= 24 && m < 60).then_some(h * 60 + m)
    };
    let (from, to) = (minutes(open)?, minutes(close)?);
    let next_day = said_next_day || to < from;
    let close = close.trim();
    let close = if next_day { (lang.texts().format.next_day)(close) } else { close.to_owned() };
    Some(format!("{}–{close}", open.trim()))
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
        Some(label) => (format.item_labelled)(name, &self::sku_label(lang, label), quantity),
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
    fn opening_hours_past_midnight_read_in_each_language() {
        assert_eq!(opening_hours(Lang::En, "10:00-02:00"), "10:00–02:00 (next day)");
        assert_eq!(opening_hours(Lang::Zh, "10:00-02:00"), "10:00–次日02:00");
        assert_eq!(opening_hours(Lang::ZhHant, "10:00-02:00"), "10:00–次日02:00");
        assert_eq!(opening_hours(Lang::En, "10:00-次日02:00"), "10:00–02:00 (next day)");
        assert_eq!(opening_hours(Lang::En, "10:00-22:00"), "10:00–22:00");
        assert_eq!(opening_hours(Lang::Zh, "11:00-14:00, 17:00-01:30"), "11:00–14:00，17:00–次日01:30");
        assert_eq!(opening_hours(Lang::En, "00:00-24:00"), "00:00–24:00");
        // Words of the mall's own: as written, but never Chinese in English.
        assert_eq!(opening_hours(Lang::Zh, "周一至周五 10:00-22:00"), "周一至周五 10:00-22:00");
        assert_eq!(opening_hours(Lang::En, "周一至周五 10:00-22:00"), "");
        assert_eq!(opening_hours(Lang::En, "24 hours"), "24 hours");
        assert_eq!(opening_hours(Lang::En, ""), "");
    }

    #[test]
    fn texts_of_the_mall_in_english_are_english_or_nothing() {
        assert_eq!(
            local_text(Lang::En, "冬装新品 9 折", "10% off new winter arrivals"),
            "10% off new winter arrivals"
        );
        assert_eq!(local_text(Lang::En, "冬装新品 9 折", ""), "");
        assert_eq!(local_text(Lang::Zh, "冬装新品 9 折", "10% off"), "冬装新品 9 折");
        assert_eq!(local_text(Lang::ZhHant, "冬装新品 9 折", ""), "冬裝新品 9 折");
        assert_eq!(local_text(Lang::Zh, "", "10% off"), "10% off");
        assert!(has_han("冬装") && has_han("Nike 耐克") && !has_han("Nike – 10% off (next day)"));
        assert_eq!(sku_label(Lang::En, "42 / 黑色 Black"), "42 / Black");
        assert_eq!(sku_label(Lang::En, "中杯 Tall"), "Tall");
        assert_eq!(sku_label(Lang::En, "曜石黑 256GB"), "曜石黑 256GB", "no English for it");
        assert_eq!(sku_label(Lang::Zh, "42 / 黑色 Black"), "42 / 黑色 Black");
        assert_eq!(sku_label(Lang::En, "M"), "M");
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
