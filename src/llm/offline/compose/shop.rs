//! Answers about products, stores, areas and directions.

use handlers::Lang;
use handlers::format::{floor, floor_and_unit, join, local_name, paren};
use handlers::info::{ProductDetail, PromotionLine, StoreInfoResult};
use handlers::navigation::{NavigateToAreaResult, NavigateToStoreResult};
use handlers::records::Yuan;
use handlers::search::{SearchProductsArgs, SearchProductsResult, SearchStoresResult};

use super::{clip, date, rating};

const LISTED: usize = 5;

/// A price the planner wrote in yuan, for people: `¥300`.
fn money(yuan: f64) -> String {
    Yuan((yuan * 100.0).round() as i64).money()
}

/// A numbered list of products, or "nothing matched".
pub(crate) fn product_list(
    args: Option<&SearchProductsArgs>,
    result: &SearchProductsResult,
    cheap: bool,
    lang: Lang,
) -> String {
    let mut products: Vec<_> = result.products.iter().collect();
    if products.is_empty() {
        return no_products(args, lang);
    }
    if cheap {
        products.sort_by_key(|p| p.price);
    }
    let total = result.total.max(products.len() as u64);
    let answers = &lang.texts().answers;
    let mut lines = vec![(answers.found_products)(total, cheap)];
    for (i, p) in products.iter().take(LISTED).enumerate() {
        let mut parts = vec![p.price.money()];
        if let Some(r) = p.rating {
            parts.push(answers.rated.to_owned() + &rating(r));
        }
        parts.push(format!("{}{}", p.store, paren(lang, &p.floor)));
        lines.push(format!("{}. {} — {}", i + 1, p.name, parts.join(lang.texts().format.comma)));
    }
    lines.push(answers.reply_first.to_owned());
    lines.join("\n")
}

fn no_products(args: Option<&SearchProductsArgs>, lang: Lang) -> String {
    let keyword = args.map_or("", |a| a.keyword.as_str());
    let (min, max) = (args.and_then(|a| a.min_price), args.and_then(|a| a.max_price));
    let answers = &lang.texts().answers;
    let range = match (min.map(money), max.map(money)) {
        (Some(a), Some(b)) => (answers.price_between)(&a, &b),
        (None, Some(b)) => (answers.price_under)(&b),
        (Some(a), None) => (answers.price_over)(&a),
        (None, None) => String::new(),
    };
    (answers.no_products)(keyword, &range)
}

/// A product: name, price, rating, store and floor, then the sizes question.
pub(crate) fn product_detail(detail: &ProductDetail, lang: Lang, others: usize) -> String {
    let answers = &lang.texts().answers;
    let mut parts = vec![detail.price_yuan.money()];
    if let Some(r) = detail.rating {
        parts.push(answers.rated.to_owned() + &rating(r));
    }
    let at = format!("{}{}", detail.store.name, paren(lang, &detail.store.place(lang)));
    parts.push(answers.at.to_owned() + &at);
    let mut lines = vec![format!("{} — {}", detail.name, parts.join(lang.texts().format.comma))];
    if !detail.description.is_empty() {
        lines.push(clip(&detail.description, 80));
    }
    lines.push(ask_size(detail, lang));
    if others > 0 {
        lines.push((answers.more_products)(others));
    }
    lines.join("\n")
}

/// The sizes in stock and the question which one, or "add it?" for a single SKU.
pub(crate) fn ask_size(detail: &ProductDetail, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    let sizes = sizes_in_stock(detail);
    if detail.sold_out || (!detail.skus.is_empty() && sizes.is_empty()) {
        return answers.out_of_stock.to_owned();
    }
    if sizes.len() <= 1 {
        return answers.add_it.to_owned();
    }
    let listed = join(lang, &sizes);
    if sizes.iter().all(|s| looks_like_size(s)) {
        (answers.which_size)(&listed)
    } else {
        (answers.which_one)(&listed)
    }
}

/// A size the product does not have in stock: the sizes it has.
pub(crate) fn size_unavailable(size: &str, detail: &ProductDetail, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    let sizes = join(lang, &sizes_in_stock(detail));
    if sizes.is_empty() { answers.out_of_stock.to_owned() } else { (answers.size_unavailable)(size, &sizes) }
}

/// Labels of the SKUs in stock (the product's `sizes`, else its SKUs with stock).
pub(crate) fn sizes_in_stock(detail: &ProductDetail) -> Vec<String> {
    if !detail.sizes.is_empty() {
        return detail.sizes.clone();
    }
    detail.skus.iter().filter(|s| s.stock > 0 && !s.label.is_empty()).map(|s| s.label.clone()).collect()
}

fn looks_like_size(label: &str) -> bool {
    const LETTERS: [&str; 9] = ["XS", "S", "M", "L", "XL", "XXL", "XXXL", "2XL", "3XL"];
    let label = label.trim().trim_end_matches(['码', '号']);
    label.parse::<f64>().is_ok() || LETTERS.contains(&label.to_ascii_uppercase().as_str())
}

/// The shopper refined a search that does not exist yet.
pub(crate) fn ask_what_to_search(lang: Lang) -> String {
    lang.texts().answers.what_to_search.to_owned()
}

/// An ordinal with no list to pick from.
pub(crate) fn nothing_listed(lang: Lang) -> String {
    lang.texts().answers.nothing_listed.to_owned()
}

/// An ordinal beyond the list.
pub(crate) fn no_such_item(len: usize, lang: Lang) -> String {
    (lang.texts().answers.no_such_item)(len)
}

/// Stores found by a store search.
pub(crate) fn store_list(result: &SearchStoresResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if result.stores.is_empty() {
        return answers.no_stores.to_owned();
    }
    let total = result.total.max(result.stores.len() as u64);
    let mut lines = vec![(answers.found_stores)(total)];
    for (i, s) in result.stores.iter().take(LISTED).enumerate() {
        let hours = match s.open_hours.as_str() {
            "" => String::new(),
            hours => answers.open_hours.to_owned() + hours,
        };
        let place = floor_and_unit(lang, Some(s.floor), &s.unit);
        lines.push(format!("{}. {} — {place}{hours}", i + 1, s.name));
    }
    lines.push(answers.which_store.to_owned());
    lines.join("\n")
}

/// Hours, promotions or reviews of a store.
pub(crate) fn store_info(result: &StoreInfoResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    match result {
        StoreInfoResult::Promotions { store, promotions: list } => {
            promotions(&store.local_name(lang), list, lang)
        }
        StoreInfoResult::Reviews { store, average_rating, reviews: list } => {
            let name = store.local_name(lang);
            if list.is_empty() {
                return (answers.no_reviews)(&name);
            }
            let average = average_rating.map(rating).unwrap_or_else(|| "?".to_owned());
            let mut lines = vec![(answers.reviews)(&name, &average)];
            for r in list.iter().take(3) {
                lines.push(format!("★{} “{}” — {}", rating(r.rating), clip(&r.text, 60), r.author));
            }
            lines.join("\n")
        }
        StoreInfoResult::Basic { store } => {
            let name = &store.name;
            let place = floor_and_unit(lang, Some(store.floor), &store.unit);
            (answers.store_basic)(name, &place, &store.open_hours, &store.phone)
        }
    }
}

fn promotions(name: &str, promotions: &[PromotionLine], lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if promotions.is_empty() {
        return (answers.no_promotions)(name);
    }
    let mut lines = vec![(answers.promotions)(name)];
    for (i, p) in promotions.iter().enumerate() {
        let until = date(&p.valid_until);
        lines.push(format!("{}. {}", i + 1, (answers.promotion)(&p.title, &p.description, &until)));
    }
    lines.join("\n")
}

/// Directions to a store, or the closest names when no store has the name.
pub(crate) fn route(result: &NavigateToStoreResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    let directions = match result {
        NavigateToStoreResult::Route(directions) => directions,
        NavigateToStoreResult::NotFound(missing) => {
            let names: Vec<String> =
                missing.closest.iter().map(|s| s.name.clone()).filter(|n| !n.is_empty()).collect();
            return (answers.store_not_found)(&missing.not_found, &join(lang, &names));
        }
    };
    let from = match directions.from.as_str() {
        "" | "main_entrance" => answers.main_entrance.to_owned(),
        other => other.replace('_', " "),
    };
    let (distance, eta) = (directions.distance_m, directions.eta_minutes);
    let name = &directions.store.name;
    let place = directions.store.place(lang);
    let mut lines = vec![if directions.highlight && !place.is_empty() {
        (answers.route_here)(name, &place, &from, distance, eta)
    } else {
        (answers.route_to)(name, &from, distance, eta)
    }];
    lines.extend(directions.steps.iter().enumerate().map(|(i, step)| format!("{}. {step}", i + 1)));
    lines.join("\n")
}

/// An area of the mall and its stores.
pub(crate) fn area(result: &NavigateToAreaResult, lang: Lang) -> String {
    let area = &result.area;
    let name = area.local_name(lang);
    let where_ = floor(lang, area.floor);
    let answers = &lang.texts().answers;
    let mut lines = vec![(answers.area)(&name, &where_, &area.description)];
    let stores: Vec<String> = result
        .stores
        .iter()
        .flatten()
        .map(|s| format!("{}{}", local_name(lang, &s.name, Some(&s.name_en)), paren(lang, &s.unit)))
        .collect();
    if !stores.is_empty() {
        lines.push(answers.stores_here.to_owned() + &join(lang, &stores));
    }
    lines.join("\n").trim().to_owned()
}
