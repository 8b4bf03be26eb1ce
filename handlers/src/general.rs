//! What the tools share: yuan → fen, finding a store by id or by the name
//! the shopper gave (never a guess), and the idempotency key of a confirmed call.
//!
//! A store named by the model or the shopper is looked up by id, then by the
//! mall's store search; the question's words ("店", "在哪", "where is", "the
//! store") are struck out, and a hit is taken only when its name or English
//! name matches the name given, ignoring case, spaces and punctuation. A mall
//! whose search ranks loosely therefore never sends the shopper elsewhere:
//! `navigate_to_store` answers the closest names as suggestions, and
//! `get_store_info` a `NotFound` naming them. Words in Traditional characters
//! are searched in Simplified ones first.

use schemars::JsonSchema;
use serde::Deserialize;
use services::{
    IdempotencyKey, Page, PageRequest, ProductBrief, ProductQuery, ServiceError, Store, StoreQuery,
};

use crate::context::ToolContext;
use crate::result::ToolError;
use crate::texts::zh_hant::to_simplified;

/// The arguments of a tool that takes none.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
pub struct NoArguments {}

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

/// Chinese words of a question around a name ("耐克店在哪"), struck out before matching.
const ZH_QUESTION_WORDS: &[&str] = &[
    "专卖店",
    "旗舰店",
    "体验店",
    "门店",
    "商店",
    "店铺",
    "在哪里",
    "在哪儿",
    "在哪",
    "怎么走",
    "怎么去",
    "带我去",
    "几楼",
    "请问",
    "店",
    "的",
];
/// English words of a question around a name ("where is the Nike store"), struck out before matching.
const EN_QUESTION_WORDS: &[&str] =
    &["where", "is", "where's", "the", "store", "stores", "shop", "shops", "take", "me", "to", "please"];

/// A name as the shopper and the mall are compared: in Simplified
/// characters, the question's words struck out, lowercase, without spaces or
/// punctuation (`"Nike 店"` → `"nike"`, `"the Li-Ning store"` → `"lining"`,
/// `"優衣庫"` → `"优衣库"`).
pub fn name_key(text: &str) -> String {
    let lower = to_simplified(text).to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| c.is_whitespace() || c == '?' || c == '？')
        .filter(|w| !w.is_empty() && !EN_QUESTION_WORDS.contains(w))
        .collect();
    let mut joined = words.join(" ");
    for word in ZH_QUESTION_WORDS {
        let stripped = joined.replace(word, "");
        if stripped.chars().any(char::is_alphanumeric) {
            joined = stripped;
        }
    }
    joined.chars().filter(|c| c.is_alphanumeric()).collect()
}

/// Whether a store is the one the shopper named: its name or English name
/// is the name given, holds it, or is held in it (the shorter at least two
/// characters), ignoring case, spaces and the question's words.
pub fn store_matches(store: &Store, wanted: &str) -> bool {
    let wanted = name_key(wanted);
    let long_enough = |key: &str| key.chars().count() >= 2;
    [&store.name, &store.name_en].into_iter().map(|n| name_key(n)).filter(|n| !n.is_empty()).any(|name| {
        name == wanted
            || (long_enough(&wanted) && name.contains(&wanted))
            || (long_enough(&name) && wanted.contains(&name))
    })
}

/// How many characters inserted, removed, replaced or swapped with the next
/// turn `a` into `b` ("nkie" is one from "nike").
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for i in 0..=a.len() {
        for j in 0..=b.len() {
            d[i * width + j] = if i == 0 || j == 0 {
                i + j
            } else {
                let cost = usize::from(a[i - 1] != b[j - 1]);
                let mut best = (d[(i - 1) * width + j] + 1)
                    .min(d[i * width + j - 1] + 1)
                    .min(d[(i - 1) * width + j - 1] + cost);
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    best = best.min(d[(i - 2) * width + j - 2] + 1);
                }
                best
            };
        }
    }
    d[a.len() * width + b.len()]
}

/// How many typos a name written as `key` (a [`name_key`]) may carry and
/// still be read as a store's: one in a Chinese name of three characters or
/// more (a homophone or a near character: "优衣裤" is 优衣库) or a Latin
/// one of four letters or more, two in one of seven or more; none in
/// shorter names, which too many words are near.
pub fn typo_allowance(key: &str) -> usize {
    let n = key.chars().count();
    if crate::basic::text::has_cjk(key) {
        usize::from(n >= 3)
    } else if n >= 7 {
        2
    } else {
        usize::from(n >= 4)
    }
}

/// The names within a typo or two of `wanted` (see [`typo_allowance`],
/// one more allowed for a "did you mean"), nearest first, each with its distance.
pub fn nearest_names<'a>(wanted: &str, names: impl IntoIterator<Item = &'a str>) -> Vec<(usize, &'a str)> {
    let key = name_key(wanted);
    let allowance = typo_allowance(&key);
    if allowance == 0 {
        return Vec::new();
    }
    let mut near: Vec<(usize, &str)> = names
        .into_iter()
        .filter_map(|name| {
            let other = name_key(name);
            // A Chinese name is often written without its kind ("海底捞" of 海底捞火锅): its
            // leading characters count too.
            let lead: String = other.chars().take(key.chars().count()).collect();
            let d = if crate::basic::text::has_cjk(&key) && lead.len() < other.len() {
                edit_distance(&key, &other).min(edit_distance(&key, &lead))
            } else {
                // Latin names written as they sound count too ("sefora" is Sephora).
                edit_distance(&key, &other).min(edit_distance(&sounded(&key), &sounded(&other)) + 1)
            };
            (!other.is_empty() && d > 0 && d <= allowance).then_some((d, name))
        })
        .collect();
    near.sort_by_key(|(d, _)| *d);
    near
}

/// A Latin name as it sounds: "ph" as "f", "ck" as "k", a doubled letter once.
fn sounded(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    for c in key.replace("ph", "f").replace("ck", "k").chars() {
        if !out.ends_with(c) {
            out.push(c);
        }
    }
    out
}

/// The store a name with a typo means: the one nearest by [`nearest_names`]
/// when no other is as near (`Ok`), else the near ones to offer (`Err`).
fn store_past_typo(wanted: &str, stores: &[Store]) -> Result<usize, Vec<usize>> {
    let names = stores.iter().enumerate().flat_map(|(i, s)| [(i, s.name.as_str()), (i, s.name_en.as_str())]);
    let mut near: Vec<(usize, usize)> = Vec::new();
    for (i, name) in names {
        if let Some((d, _)) = nearest_names(wanted, [name]).first() {
            match near.iter_mut().find(|(_, j)| *j == i) {
                Some(found) => found.0 = found.0.min(*d),
                None => near.push((*d, i)),
            }
        }
    }
    near.sort_by_key(|(d, _)| *d);
    match near.as_slice() {
        [(_, only)] => Ok(*only),
        [(d, first), (d2, _), ..] if d < d2 => Ok(*first),
        _ => Err(near.into_iter().map(|(_, i)| i).collect()),
    }
}

/// What a store lookup by id or name found.
#[derive(Debug, Clone, PartialEq)]
pub enum StoreLookup {
    /// The store the shopper named.
    Found(Store),
    /// No store has that name; the mall's search offered these instead
    /// (best first, at most [`CLOSEST_STORES`]).
    Missing { closest: Vec<Store> },
}

/// Stores offered when a name matches none.
pub const CLOSEST_STORES: usize = 3;

/// Finds a store by its id or by a name in either language ("Uniqlo",
/// "优衣库", "耐克店"): the id first, then the mall's store search, keeping
/// only a store whose name matches (an exact name first). A mall whose
/// search ranks loosely never makes it pick another store.
pub async fn lookup_store(
    ctx: &ToolContext,
    field: &str,
    id_or_name: &str,
) -> Result<StoreLookup, ToolError> {
    let wanted = id_or_name.trim();
    if wanted.is_empty() {
        return Err(ToolError::invalid(field, "give a store id or a store name"));
    }
    match ctx.mall.get_store(wanted).await {
        Ok(store) => return Ok(StoreLookup::Found(store)),
        Err(ServiceError::NotFound { .. } | ServiceError::InvalidArgument { .. }) => {}
        Err(other) => return Err(other.into()),
    }
    let mut stores = search_by_name(ctx, wanted).await?;
    let key = name_key(wanted);
    if stores.is_empty() && key != wanted.to_lowercase() && !key.is_empty() {
        stores = search_by_name(ctx, &key).await?;
    }
    if let Some(index) = best_store_match(wanted, &stores) {
        return Ok(StoreLookup::Found(stores.swap_remove(index)));
    }
    if let Some(store) = store_of_brand(ctx, &key).await? {
        return Ok(StoreLookup::Found(store));
    }
    // A typo, a homophone or a near character: the one store that near, else the near ones offered.
    let mut all = every_store(ctx).await?;
    Ok(match store_past_typo(wanted, &all) {
        Ok(index) => StoreLookup::Found(all.swap_remove(index)),
        Err(near) if !near.is_empty() => StoreLookup::Missing {
            closest: near.into_iter().take(CLOSEST_STORES).map(|i| all[i].clone()).collect(),
        },
        Err(_) => StoreLookup::Missing { closest: stores.into_iter().take(CLOSEST_STORES).collect() },
    })
}

/// The one store a name with a typo means ("addidas" is Adidas), when no
/// other is as near ([`nearest_names`]).
pub async fn store_past_a_typo(ctx: &ToolContext, wanted: &str) -> Result<Option<Store>, ToolError> {
    if typo_allowance(&name_key(wanted)) == 0 {
        return Ok(None);
    }
    let mut all = every_store(ctx).await?;
    Ok(store_past_typo(wanted, &all).ok().map(|index| all.swap_remove(index)))
}

/// The store a brand's name means ("苹果店" is the Apple Store, "耐吉" the
/// Nike store where the mall knows that name of the brand): the store that
/// holds most of the brand's products in the mall's product search, when it
/// holds at least half of them.
async fn store_of_brand(ctx: &ToolContext, brand: &str) -> Result<Option<Store>, ToolError> {
    if brand.chars().count() < 2 {
        return Ok(None);
    }
    let query =
        ProductQuery { brand: Some(brand.to_owned()), page: PageRequest::first(20), ..Default::default() };
    let products = search_products_in_either_script(ctx, query).await?.items;
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for product in &products {
        match counts.iter_mut().find(|(id, _)| *id == product.store_id) {
            Some((_, n)) => *n += 1,
            None => counts.push((&product.store_id, 1)),
        }
    }
    let Some((id, n)) = counts.into_iter().max_by_key(|(_, n)| *n) else { return Ok(None) };
    if n * 2 < products.len() {
        return Ok(None);
    }
    match ctx.mall.get_store(id).await {
        Ok(store) => Ok(Some(store)),
        Err(ServiceError::NotFound { .. }) => Ok(None),
        Err(other) => Err(other.into()),
    }
}

/// The mall's stores (at most [`MAX_STORES_READ`]).
async fn every_store(ctx: &ToolContext) -> Result<Vec<Store>, ToolError> {
    let mut stores = Vec::new();
    loop {
        let page = PageRequest { limit: Some(PageRequest::MAX_LIMIT), offset: Some(stores.len() as u32) };
        let got = ctx.mall.search_stores(&StoreQuery { page, ..Default::default() }).await?;
        let (count, total) = (got.items.len(), got.total);
        stores.extend(got.items);
        if count == 0 || stores.len() as u64 >= total || stores.len() >= MAX_STORES_READ {
            return Ok(stores);
        }
    }
}

/// Stores read to find one past a typo, at most.
const MAX_STORES_READ: usize = 2_000;

async fn search_by_name(ctx: &ToolContext, keyword: &str) -> Result<Vec<Store>, ToolError> {
    let query =
        StoreQuery { keyword: Some(keyword.to_owned()), page: PageRequest::first(10), ..Default::default() };
    Ok(search_stores_in_either_script(ctx, query).await?.items)
}

/// `query` with its words in Simplified characters (`None` when they are
/// already).
fn store_query_in_simplified(query: &StoreQuery) -> Option<StoreQuery> {
    let simplified = StoreQuery {
        keyword: query.keyword.as_deref().map(to_simplified),
        category: query.category.as_deref().map(to_simplified),
        ..query.clone()
    };
    (simplified != *query).then_some(simplified)
}

/// The mall's store search for words in either Chinese script: words in
/// Traditional characters are searched in Simplified ones first (the mall's
/// names are Chinese as it writes them, Simplified for most), then as given
/// when that finds nothing (a mall that writes Traditional).
pub async fn search_stores_in_either_script(
    ctx: &ToolContext,
    query: StoreQuery,
) -> Result<Page<Store>, ServiceError> {
    if let Some(simplified) = store_query_in_simplified(&query) {
        let page = ctx.mall.search_stores(&simplified).await?;
        if !page.items.is_empty() {
            return Ok(page);
        }
    }
    ctx.mall.search_stores(&query).await
}

/// The mall's product search for words in either Chinese script, as
/// [`search_stores_in_either_script`] does for stores.
pub async fn search_products_in_either_script(
    ctx: &ToolContext,
    query: ProductQuery,
) -> Result<Page<ProductBrief>, ServiceError> {
    let convert = |s: &Option<String>| s.as_deref().map(to_simplified);
    let simplified = ProductQuery {
        keyword: convert(&query.keyword),
        brand: convert(&query.brand),
        category: convert(&query.category),
        ..query.clone()
    };
    if simplified != query {
        let page = ctx.mall.search_products(&simplified).await?;
        if !page.items.is_empty() {
            return Ok(page);
        }
    }
    ctx.mall.search_products(&query).await
}

/// [`lookup_store`], where no match is [`ToolError::NotFound`] naming the
/// closest stores.
pub async fn find_store(ctx: &ToolContext, field: &str, id_or_name: &str) -> Result<Store, ToolError> {
    match lookup_store(ctx, field, id_or_name).await? {
        StoreLookup::Found(store) => Ok(store),
        StoreLookup::Missing { closest } => Err(store_not_found(id_or_name, &closest)),
    }
}

/// "No store called …", with the closest names when there are some.
pub fn store_not_found(wanted: &str, closest: &[Store]) -> ToolError {
    let names: Vec<String> = closest.iter().map(|s| format!("{} ({})", s.name, s.name_en)).collect();
    let closest = if names.is_empty() {
        String::new()
    } else {
        format!("; the closest names are {}", names.join(", "))
    };
    ToolError::NotFound(format!(
        "no store has the id or name \"{}\"{closest}; search_stores finds stores by keyword or category",
        wanted.trim()
    ))
}

/// The index of the store whose name is `wanted` (any case, either
/// language), else of the first whose name matches it; `None` when none does.
fn best_store_match(wanted: &str, stores: &[Store]) -> Option<usize> {
    let key = name_key(wanted);
    let exact = stores.iter().position(|s| [&s.name, &s.name_en].iter().any(|n| name_key(n) == key));
    exact.or_else(|| stores.iter().position(|s| store_matches(s, wanted)))
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
    fn the_question_words_are_struck_out_of_a_name() {
        assert_eq!(name_key("Nike 店"), "nike");
        assert_eq!(name_key("耐克店在哪"), "耐克");
        assert_eq!(name_key("where is the Li-Ning store?"), "lining");
        assert_eq!(name_key("H&M"), "hm");
        assert_eq!(name_key("店"), "店", "a name made only of such words is kept");
    }

    #[test]
    fn exact_name_beats_the_first_search_result() {
        let stores = vec![store("优衣库童装", "Uniqlo Kids"), store("优衣库", "Uniqlo")];
        let found = |q: &str| best_store_match(q, &stores).map(|i| stores[i].name_en.clone());
        assert_eq!(found("uniqlo"), Some("Uniqlo".into()));
        assert_eq!(found("优衣库"), Some("Uniqlo".into()));
        assert_eq!(found("kids"), Some("Uniqlo Kids".into()));
        assert_eq!(found("UNIQLO store"), Some("Uniqlo".into()));
        assert_eq!(best_store_match("x", &[]), None);
    }

    #[test]
    fn a_loose_search_hit_is_never_taken_for_the_store_named() {
        let stores = vec![store("苹果", "Apple"), store("华为", "Huawei")];
        assert_eq!(best_store_match("Nike 店", &stores), None);
        assert_eq!(best_store_match("耐克", &stores), None);
        assert!(store_matches(&store("耐克", "Nike"), "Nike 店"));
        assert!(store_matches(&store("耐克", "Nike"), "耐克店在哪"));
        assert!(store_matches(&store("李宁", "Li-Ning"), "li ning"));
        assert!(!store_matches(&store("苹果", "Apple"), "Nike"));
    }
}
