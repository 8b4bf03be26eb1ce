//! Searching the mall: products by keyword and price, stores by keyword.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::{PageRequest, ProductBrief, ProductQuery, Store, StoreQuery};

use serde_json::{Map, Value, json};

use crate::basic::text::{Scratch, has_cjk};
use crate::basic::{Answering, Call, Made, Outcome, Reply, Said, Step, extract, rating as one_decimal, read};
use crate::format::{floor, floor_and_unit, mall_text, navigate_suggestion, paren, product_name, store_name};
use crate::general::{
    search_products_in_either_script, search_stores_in_either_script, store_for_display, yuan_to_cents,
};
use crate::records::{StoreCard, Yuan, rating};
use crate::{Lang, OfflineHook, ToolContext, ToolError, ToolOutput, ToolResult, tool_function};

/// At most this many products go back to the model.
const MAX_PRODUCTS: u32 = 5;
/// At most this many stores go back to the model.
const MAX_STORES: u32 = 10;

pub use crate::info::{HELP_PRODUCTS, HELP_STORES};

/// Arguments of `search_products`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchProductsArgs {
    pub keyword: String,
    pub max_price: Option<f64>,
    pub min_price: Option<f64>,
    pub brand: Option<String>,
    pub category: Option<String>,
}

pub use crate::records::{ProductHit, SearchProductsResult};

impl ProductHit {
    fn new(product: &ProductBrief, store: Option<&Store>, lang: Lang) -> Self {
        ProductHit {
            product_id: product.id.clone(),
            name: product_name(lang, product).into_owned(),
            price: Yuan(product.price_cents),
            rating: Some(rating(product.rating)),
            sizes: product.sizes.clone(),
            sold_out: !product.in_stock,
            store: store
                .map_or_else(|| mall_text(lang, &product.store_name), |s| store_name(lang, s))
                .into_owned(),
            floor: store.map(|s| floor(lang, s.floor)).unwrap_or_default(),
        }
    }
}

fn search_products_progress(lang: Lang, args: &SearchProductsArgs) -> String {
    let mut what = args.keyword.trim().to_owned();
    if let Some(max) = args.max_price {
        what.push_str(&format!(" ≤ {}", Yuan((max * 100.0).round() as i64).money()));
    }
    if what.trim().is_empty() {
        return lang.texts().tools.working.to_owned();
    }
    match lang {
        Lang::En => format!("🔍 Searching: {what}…"),
        _ => format!("🔍 正在搜索：{what}…"),
    }
}

/// Products by keyword (any language; yuan): the best 5 with price, rating,
/// sizes in stock, store and floor.
#[tool_function(level = "safe", scope = "both", progress = search_products_progress, help = HELP_PRODUCTS, offline = SEARCH_PRODUCTS_OFFLINE)]
pub async fn search_products(
    ctx: &ToolContext,
    args: SearchProductsArgs,
) -> ToolResult<SearchProductsResult> {
    let query = product_query(args)?;
    let page = search_products_in_either_script(ctx, query).await?;
    let products: Vec<ProductBrief> = page.items.into_iter().take(MAX_PRODUCTS as usize).collect();
    let stores = stores_of(ctx, &products).await;
    let result = SearchProductsResult {
        total: page.total,
        products: products.iter().map(|p| ProductHit::new(p, stores.get(&p.store_id), ctx.lang)).collect(),
    };
    let found = !result.products.is_empty();
    let output = ToolOutput::new(result);
    Ok(if found { output.with_suggestions([ctx.lang.texts().tools.show_first]) } else { output })
}

/// The mall query: prices converted to fen and checked.
fn product_query(args: SearchProductsArgs) -> Result<ProductQuery, ToolError> {
    let min_price_cents = args.min_price.map(|p| yuan_to_cents("min_price", p)).transpose()?;
    let max_price_cents = args.max_price.map(|p| yuan_to_cents("max_price", p)).transpose()?;
    if let (Some(min), Some(max)) = (min_price_cents, max_price_cents)
        && min > max
    {
        return Err(ToolError::invalid("min_price", "min_price is above max_price"));
    }
    let non_empty = |s: Option<String>| s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(ProductQuery {
        keyword: non_empty(Some(args.keyword)),
        min_price_cents,
        max_price_cents,
        brand: non_empty(args.brand),
        category: non_empty(args.category),
        page: PageRequest::first(MAX_PRODUCTS),
    })
}

/// The stores of the products, each looked up once, concurrently. A store
/// that cannot be looked up is left out (its products show no floor).
async fn stores_of(ctx: &ToolContext, products: &[ProductBrief]) -> BTreeMap<String, Store> {
    let mut ids: Vec<&str> = products.iter().map(|p| p.store_id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    let stores = futures::future::join_all(ids.iter().map(|id| store_for_display(ctx, id))).await;
    stores.into_iter().flatten().map(|s| (s.id.clone(), s)).collect()
}

/// Arguments of `search_stores`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchStoresArgs {
    pub keyword: String,
    pub category: Option<String>,
}

/// What `search_stores` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SearchStoresResult {
    pub total: u64,
    pub stores: Vec<StoreCard>,
}

fn search_stores_progress(lang: Lang, args: &SearchStoresArgs) -> String {
    if args.keyword.trim().is_empty() {
        return lang.texts().tools.working.to_owned();
    }
    match lang {
        Lang::En => format!("🏬 Looking for stores: {}…", args.keyword.trim()),
        _ => format!("🏬 正在找店：{}…", args.keyword.trim()),
    }
}

/// Stores by name or what they sell: floor, hours, phone.
#[tool_function(level = "safe", scope = "both", progress = search_stores_progress, help = HELP_STORES, offline = SEARCH_STORES_OFFLINE)]
pub async fn search_stores(ctx: &ToolContext, args: SearchStoresArgs) -> ToolResult<SearchStoresResult> {
    let query = StoreQuery {
        keyword: Some(args.keyword.trim().to_owned()).filter(|k| !k.is_empty()),
        category: args.category.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()),
        floor: None,
        page: PageRequest::first(MAX_STORES),
    };
    let mut page = search_stores_in_either_script(ctx, query).await?;
    if page.items.is_empty()
        && let Some(store) = crate::general::store_past_a_typo(ctx, &args.keyword).await?
    {
        page = services::Page { items: vec![store], total: 1 };
    }
    let suggestion =
        page.items.first().map(|first| navigate_suggestion(ctx.lang, &store_name(ctx.lang, first)));
    let result = SearchStoresResult {
        total: page.total,
        stores: page.items.iter().take(MAX_STORES as usize).map(|s| StoreCard::new(s, ctx.lang)).collect(),
    };
    Ok(ToolOutput::new(result).with_suggestions(suggestion))
}

// Basic mode.

/// Products are searched for when no other tool recognises the message
/// (priority 80): a brand, a kind of product, a price or "cheaper" named,
/// or words of buying or browsing with something to look for.
pub static SEARCH_PRODUCTS_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_product_search, products_answer).priority(80).reply(products_reply);

/// Stores are searched for by kind ("咖啡店", "a coffee shop", "somewhere
/// to eat") after the places of the mall (priority 41, see
/// [`crate::navigation::place`]).
pub static SEARCH_STORES_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_store_search, stores_answer).priority(41).reply(stores_reply);

/// Phrases that mean the shopper wants to buy.
#[rustfmt::skip]
const BUY: &[&str] = &[
    "买", "购买", "想要", "我要", "来一杯", "来一份", "来一个", "来一双", "来一件", "来两杯", "来两份",
    "来两个", "来杯", "来份", "buy", "purchase", "i want", "i'd like", "i would like", "i need", "get me",
];

/// Phrases that mean the shopper is browsing.
#[rustfmt::skip]
const BROWSE: &[&str] = &[
    "有什么", "有没有", "有哪些", "有啥", "推荐", "找", "搜", "看看", "哪里有", "哪有", "哪里买", "在哪买",
    "show me", "find", "search", "looking for", "recommend", "do you have", "do you sell", "any",
    "where can i buy", "where to buy", "还有货", "有货", "有没有货", "有现货", "卖完", "in stock", "available",
    "sold out",
];

/// Phrases that ask for cheaper goods.
#[rustfmt::skip]
const CHEAP: &[&str] = &[
    "便宜点", "便宜一点", "便宜些", "便宜的", "便宜", "实惠", "cheaper", "cheapest", "cheap", "affordable",
    "budget",
];

/// Chinese filler struck out of a product keyword.
#[rustfmt::skip]
const ZH_FILLER: &[&str] = &[
    "还有货", "有没有货", "有现货", "有货", "卖完了", "卖完", "多少钱", "几块钱",
    "帮我", "给我", "我想要", "我想", "我要", "想要", "想买", "购买", "搜一下", "搜索", "查一下", "找一下",
    "找找", "看一下", "看看", "推荐一下", "推荐", "有什么", "有没有", "有哪些", "有啥", "什么", "哪些",
    "一些", "一下", "一点", "商品", "东西", "价格", "左右", "元", "块钱", "块", "的", "吗", "呢", "吧", "啊",
    "呀", "买", "要", "有", "卖", "找", "搜", "我", "在", "款", "哪里", "哪儿", "哪",
];

/// English words struck out of a keyword.
#[rustfmt::skip]
const EN_FILLER: &[&str] = &[
    "i", "i'd", "i'm", "want", "wanna", "to", "buy", "would", "like", "find", "me", "show", "search", "for",
    "looking", "look", "some", "any", "a", "an", "the", "pair", "pairs", "of", "can", "could", "you", "do",
    "does", "have", "has", "get", "need", "something", "help", "recommend", "what", "what's", "whats", "are",
    "there", "is", "which", "with", "good", "nice", "best", "got", "purchase", "it", "them", "your", "my",
    "mall", "sell", "sells", "yuan", "rmb", "price", "priced", "please", "options", "in", "here", "new",
    "one", "ones", "where", "see", "let", "let's", "stock", "available", "sold", "out", "from", "large",
    "medium", "small", "regular", "big", "how", "much", "cost", "costs",
];

/// Chinese numerals and classifiers such as `一双`, `两件`: struck out of keywords.
const CLASSIFIERS: &str = "双件个款台部副杯条顶只套瓶支盒份";

/// A product search as the shopper phrased it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProductAsk {
    /// The meaningful words (brand first, canonical spelling); empty when the
    /// message only refines the previous search ("300 以下的呢", "便宜点的").
    pub keyword: String,
    /// The canonical brand, when one was named.
    pub brand: Option<String>,
    /// Price bounds in yuan.
    pub price: extract::PriceBounds,
    /// The shopper asked for cheaper goods.
    pub cheap: bool,
    /// The shopper wants to buy, not only browse.
    pub buy: bool,
    /// How many the shopper wants ("买两双…").
    pub quantity: Option<u32>,
}

/// The product search a message asks for, if it asks for one.
pub fn product_ask(said: &Said) -> Option<ProductAsk> {
    let lexicon = said.lexicon;
    let mut rest = said.scratch();
    let price = extract::take_price_bounds(&mut rest);
    let brand = lexicon.find_brand(&rest);
    if let Some((_, range)) = &brand {
        rest.remove_range(range.clone());
    }
    let mut buy = rest.contains_any(BUY);
    let browse = rest.contains_any(BROWSE) || asks_if_sold(rest.lower());
    let cheap = rest.remove_all(CHEAP);
    let category = lexicon.has_category(&rest);
    extract::take_size(&mut rest);
    let mut quantity = extract::take_quantity(&mut rest);
    if quantity.is_none() {
        quantity = extract::take_leading_count(&mut rest);
    }
    // "two grande lattes", "一杯生椰拿铁": a count of something is an order for it.
    buy |= quantity.is_some() && !browse;
    remove_counted_classifiers(&mut rest);
    rest.remove_all(ZH_FILLER);
    let words = rest.residual_without(EN_FILLER);
    let known = brand.is_some() || category || !price.is_empty() || cheap;
    if !known && (!(buy || browse) || words.chars().filter(|c| c.is_alphanumeric()).count() < 2) {
        return None;
    }
    let brand = brand.map(|(name, _)| name);
    let keyword = [brand.clone().unwrap_or_default(), words].join(" ").trim().to_owned();
    Some(ProductAsk { keyword, brand, price, cheap, buy, quantity })
}

/// "有三体吗", "有卖三体的吗": whether the mall has it.
fn asks_if_sold(lower: &str) -> bool {
    let text = lower.trim().trim_end_matches(['?', '？', ' ']);
    (text.starts_with('有') || text.starts_with("请问有")) && text.ends_with('吗') || text.contains("有卖")
}

/// Strikes out `一双`, `两件`, `几款`, `买个`: a numeral (or `几`, `买`…) and a classifier.
fn remove_counted_classifiers(s: &mut Scratch) {
    let lower = s.lower().to_owned();
    let spans: Vec<_> = lower
        .char_indices()
        .filter(|(_, c)| CLASSIFIERS.contains(*c))
        .filter_map(|(at, c)| {
            let head = lower[..at].chars().last()?;
            let counted = "几这那买要来一二两三四五六七八九十".contains(head);
            let start = at - head.len_utf8();
            // "来两杯": the 来 of ordering goes with its count.
            let start = if lower[..start].ends_with('来') && head != '来' {
                start - '来'.len_utf8()
            } else {
                start
            };
            counted.then(|| start..at + c.len_utf8())
        })
        .collect();
    spans.into_iter().for_each(|r| s.remove_range(r));
}

/// A search, a refinement of the previous one ("300 以下的呢", "便宜点的"),
/// and when buying, the best match opened; a gift for someone is ideas
/// ([`recognise_gift`]).
fn recognise_product_search(said: &Said) -> Option<Step> {
    if let Some(step) = recognise_gift(said) {
        return Some(step);
    }
    let query = product_ask(said)?;
    let previous = said.dialogue.latest_before_turn("search_products");
    let mut args = Map::new();
    if query.keyword.is_empty() {
        let Some(previous) = previous else {
            return Some(Step::answer(said.texts().answers.what_to_search));
        };
        for key in ["keyword", "brand", "min_price", "max_price"] {
            if let Some(v) = previous.args.get(key).filter(|v| !v.is_null()) {
                args.insert(key.to_owned(), v.clone());
            }
        }
        if !query.price.is_empty() {
            args.remove("min_price");
            args.remove("max_price");
        } else if query.cheap {
            cheaper_than_before(&mut args, previous);
        }
    } else {
        args.insert("keyword".to_owned(), json!(query.keyword));
        if let Some(brand) = &query.brand {
            args.insert("brand".to_owned(), json!(brand));
        }
    }
    for (key, bound) in [("min_price", query.price.min), ("max_price", query.price.max)] {
        if let Some(v) = bound {
            args.insert(key.to_owned(), yuan_json(v));
        }
    }
    let arguments = Value::Object(args);
    Some(Step::Call(if query.buy {
        Call::then("search_products", arguments, open_best_match)
    } else {
        Call::new("search_products", arguments)
    }))
}

/// Buying: the best match for the words searched is opened (its sizes and
/// "add it?"); a size or variant named in the message ("大杯", "grande",
/// "42码") that it has in stock goes straight to the cart's confirmation.
pub fn open_best_match(data: &Value, said: &Said) -> Option<Step> {
    let result = read::<SearchProductsResult>(data)?;
    let keyword = said
        .dialogue
        .turn_calls()
        .rev()
        .find(|c| c.name == "search_products")
        .and_then(|c| c.args.get("keyword").and_then(Value::as_str).map(str::to_owned))
        .or_else(|| product_ask(said).map(|ask| ask.keyword))
        .unwrap_or_default();
    let id = &best_match(&result.products, &keyword)?.product_id;
    Some(Step::Call(Call::then(
        "get_product_detail",
        json!({ "product_id": id }),
        crate::info::add_named_variant,
    )))
}

/// The product a message names, as words to search for: the brand (as the
/// mall writes it) and what is left once sizes, quantities, classifiers and
/// filler are struck out of `rest`; `None` when nothing is left.
pub fn named_product(lexicon: &crate::basic::Lexicon, mut rest: Scratch) -> Option<(String, Option<String>)> {
    let brand = lexicon.find_brand(&rest);
    if let Some((_, range)) = &brand {
        rest.remove_range(range.clone());
    }
    extract::take_size(&mut rest);
    extract::take_quantity(&mut rest);
    remove_counted_classifiers(&mut rest);
    rest.remove_all(ZH_FILLER);
    let words = rest.residual_without(EN_FILLER);
    let brand = brand.map(|(name, _)| name);
    // A number alone ("back in 42") is a size or a price, not a name.
    let numbers_only = words.split(' ').all(|w| w.chars().all(|c| c.is_ascii_digit() || c == '.'));
    if numbers_only && brand.is_none() {
        return None;
    }
    let keyword = [brand.clone().unwrap_or_default(), words].join(" ").trim().to_owned();
    Some((keyword, brand))
}

/// Of the products found, the one whose name says most of the words
/// searched (an exact name first); the search's own order breaks ties.
pub fn best_match<'a>(products: &'a [ProductHit], keyword: &str) -> Option<&'a ProductHit> {
    let simple = |s: &str| crate::texts::zh_hant::to_simplified(s).to_lowercase();
    let keyword = simple(keyword);
    let words: Vec<&str> = keyword
        .split(|c: char| c.is_whitespace() || "，,。/、".contains(c))
        .filter(|w| !w.is_empty())
        .collect();
    let score = |hit: &ProductHit| {
        let name = simple(&hit.name);
        words
            .iter()
            .map(|word| {
                if name == *word {
                    return 100;
                }
                if has_cjk(word) {
                    let chars: Vec<char> = word.chars().collect();
                    if chars.len() < 2 {
                        return usize::from(name.contains(word));
                    }
                    chars.windows(2).filter(|pair| name.contains(&pair.iter().collect::<String>())).count()
                } else {
                    let singular = word.strip_suffix('s').filter(|w| w.len() > 2).unwrap_or(word);
                    2 * usize::from(name.contains(word) || name.contains(singular))
                }
            })
            .sum::<usize>()
    };
    let best = products.iter().map(score).max()?;
    products.iter().find(|hit| score(hit) == best)
}

/// "便宜点的": below the price of the best match shown last.
fn cheaper_than_before(args: &mut Map<String, Value>, previous: &Made) {
    let result = previous.result::<SearchProductsResult>();
    let Some(price) = result.and_then(|r| r.products.first().map(|p| p.price.as_f64())) else {
        return;
    };
    let below = price.ceil() - 1.0;
    let current = args.get("max_price").and_then(Value::as_f64).unwrap_or(f64::MAX);
    if below > 0.0 && below < current {
        args.insert("max_price".to_owned(), yuan_json(below));
    }
}

/// A price as a JSON number: whole yuan as integers.
fn yuan_json(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e12 { json!(v as i64) } else { json!(v) }
}

/// Products listed in an answer.
const LISTED: usize = 5;

/// A price the planner wrote in yuan, for people: `¥300`.
fn money(yuan: f64) -> String {
    Yuan((yuan * 100.0).round() as i64).money()
}

fn products_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<SearchProductsResult>(data).map(|result| product_list(None, &result, false, lang))
}

fn products_reply(answering: &Answering) -> Option<Reply> {
    let result = read::<SearchProductsResult>(answering.data)?;
    let cheap = product_ask(answering.said).is_some_and(|ask| ask.cheap);
    let args = read::<SearchProductsArgs>(answering.args);
    Some(Reply::text(product_list(args.as_ref(), &result, cheap, answering.lang())))
}

/// A numbered list of products (cheapest first when the shopper asked for
/// cheaper ones), or "nothing matched" with the search that was made.
pub fn product_list(
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
            parts.push(answers.rated.to_owned() + &one_decimal(r));
        }
        let store = format!("{}{}", p.store, paren(lang, &p.floor));
        // A product the mall named only in Chinese, in English: its store and price say it.
        let name = match untranslated(lang, &p.name) {
            true => store,
            false => {
                parts.push(store);
                p.name.clone()
            }
        };
        lines.push(format!("{}. {} — {}", i + 1, name, parts.join(lang.texts().format.comma)));
    }
    lines.push(answers.reply_first.to_owned());
    lines.join("\n")
}

/// A name in Chinese in a language that shows English names (the mall has
/// no English name for it).
fn untranslated(lang: Lang, name: &str) -> bool {
    lang.texts().format.english_names && name.chars().any(|c| ('\u{3400}'..='\u{9fff}').contains(&c))
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

#[rustfmt::skip]
const FIND_STORE: &[&str] = &[
    "找一家", "找家", "找个", "哪里有", "哪儿有", "哪有", "有没有", "推荐一家", "推荐", "找", "find",
    "looking for", "any", "recommend", "search", "is there", "are there",
];

#[rustfmt::skip]
const EAT: &[&str] = &[
    "吃饭的地方", "吃饭", "吃东西", "吃的地方", "place to eat", "where to eat", "something to eat", "get food",
];

/// Somewhere to eat ([`recognise_food`]); a kind of store asked for as a
/// place ("有哪些咖啡店", "where is a toy store"), else a store search with
/// no place word ("找一家咖啡店").
fn recognise_store_search(said: &Said) -> Option<Step> {
    if let Some(step) = recognise_food(said) {
        return Some(step);
    }
    let keyword = match crate::navigation::place(said) {
        Some(crate::navigation::Place::Kind(keyword)) => keyword,
        Some(_) => return None,
        None => store_kind(said)?,
    };
    Some(Step::Call(Call::new("search_stores", json!({ "keyword": keyword }))))
}

fn store_kind(said: &Said) -> Option<String> {
    let s = said.scratch();
    if s.contains_any(EAT) {
        let keyword = if has_cjk(s.orig()) { "餐厅" } else { "restaurant" };
        return Some(keyword.to_owned());
    }
    let mut rest = s;
    rest.remove_all(FIND_STORE);
    rest.remove_all(&["a", "an", "the", "me", "some", "good", "nearby", "一个", "的", "吗", "?"]);
    said.lexicon.store_type_keyword(&rest.residual())
}

fn stores_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<SearchStoresResult>(data).map(|result| store_list(&result, lang))
}

fn stores_reply(answering: &Answering) -> Option<Reply> {
    stores_answer(answering.lang(), answering.data).map(Reply::text)
}

/// Stores found by a store search.
pub fn store_list(result: &SearchStoresResult, lang: Lang) -> String {
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

// Places to eat.

/// Words struck out of a dish or cuisine besides the fillers of a product search.
#[rustfmt::skip]
const FOOD_FILLER: &[&str] = &[
    "附近", "周边", "最近", "这里", "这", "商场", "哪里", "哪儿", "哪", "能", "可以", "想", "去", "点", "些", "家", "好",
    "nearby", "around", "where", "can", "somewhere", "place", "places", "go", "good", "serves", "serve",
    "get", "for", "eat", "i'm", "im", "nearest", "closest",
];

/// What the shopper wants to eat: `Some("")` for anywhere to eat, the dish
/// or cuisine otherwise; `None` when the message is not about eating, or
/// names a store (that store's own tools answer).
pub fn food_wanted(said: &Said) -> Option<String> {
    use crate::basic::lexicon::{DISHES, EAT, STORE_TYPES, WHERE_TO_GET};
    let s = said.scratch();
    let lexicon = said.lexicon;
    if lexicon.names_store(&s) || !(s.contains_any(EAT) || dish_asked(&s)) {
        return None;
    }
    let mut rest = s;
    rest.remove_all(EAT);
    rest.remove_all(WHERE_TO_GET);
    rest.remove_all(STORE_TYPES);
    let areas: Vec<&str> = lexicon.area_names().collect();
    rest.remove_all(&areas);
    rest.remove_all(ZH_FILLER);
    rest.remove_all(FOOD_FILLER);
    let dish = rest.residual_without(EN_FILLER);
    // "想喝咖啡，最近的咖啡店": the dish once.
    let mut dishes = Scratch::new(&dish);
    let named = DISHES.iter().filter(|d| dishes.find(d).is_some()).max_by_key(|d| d.len());
    Some(match named {
        Some(first)
            if {
                dishes.remove_all(DISHES);
                dishes.residual_without(EN_FILLER).is_empty()
            } =>
        {
            (*first).to_owned()
        }
        _ => dish,
    })
}

/// A dish or drink asked for without a word of eating: with a word of
/// where to get it ("炸鸡哪里有", "where can I get noodles", "I need
/// coffee"), or alone ("bubble tea?"); never with a word of buying, a price
/// or anything else left over ("奶茶 50 以内" is a product search).
fn dish_asked(s: &Scratch) -> bool {
    use crate::basic::lexicon::{DISHES, WHERE_TO_GET};
    if !s.contains_any(DISHES) || s.contains_any(&["买", "buy", "purchase", "order", "cart", "购物车"]) {
        return false;
    }
    if s.contains_any(WHERE_TO_GET) {
        return true;
    }
    let mut rest = s.clone();
    rest.remove_all(DISHES);
    rest.remove_all(ZH_FILLER);
    rest.remove_all(FOOD_FILLER);
    rest.residual_without(EN_FILLER).chars().all(|c| !c.is_alphanumeric())
}

/// Somewhere to eat ("哪里能吃火锅", "我想吃火锅", "where can I eat hotpot",
/// "有什么餐厅", "附近有什么好吃的"): the mall's places to eat that serve it
/// (its categories and tags), else whose menu has it, with the way to the
/// best; with nothing named, every place to eat by floor.
fn recognise_food(said: &Said) -> Option<Step> {
    use crate::basic::lexicon::{DRINK_CATEGORY, FOOD_CATEGORY};
    let dish = food_wanted(said)?;
    // A drink: the places to drink first (coffee is a café's), then to eat; else the places to eat.
    if is_drink(&dish) {
        let args = json!({ "keyword": dish, "category": DRINK_CATEGORY });
        return Some(Step::Call(Call::then("search_stores", args, food_found)));
    }
    let args = json!({ "keyword": dish, "category": FOOD_CATEGORY });
    Some(Step::Call(Call::then("search_stores", args, food_found_to_eat)))
}

/// Whether a dish is a drink ([`crate::basic::lexicon::DRINKS`]).
fn is_drink(dish: &str) -> bool {
    Scratch::new(dish).contains_any(crate::basic::lexicon::DRINKS)
}

/// The dish asked for, as the shopper reads it.
fn dish_shown(said: &Said) -> String {
    let dish = food_wanted(said).unwrap_or_default();
    mall_text(said.lang, &dish).into_owned()
}

/// The places found: the way to the best; none by name or kind, those whose
/// menu has it; nothing named, all of them by floor.
fn food_found(data: &Value, said: &Said) -> Option<Step> {
    food_stores(data, said, true)
}

/// [`food_found`] after the places to eat were searched too.
fn food_found_to_eat(data: &Value, said: &Said) -> Option<Step> {
    food_stores(data, said, false)
}

fn food_stores(data: &Value, said: &Said, to_drink: bool) -> Option<Step> {
    let result = read::<SearchStoresResult>(data)?;
    let dish = food_wanted(said).unwrap_or_default();
    let guide = &said.texts().guide;
    match result.stores.first() {
        Some(best) if !dish.is_empty() => {
            let args = json!({ "store_name": best.name });
            Some(Step::Call(Call::then("navigate_to_store", args, food_way)))
        }
        Some(_) => Some(Step::answer(format!("{}\n{}", guide.food_all, by_floor(&result.stores, said.lang)))),
        None if dish.is_empty() => Some(Step::answer(guide.food_nowhere)),
        None if to_drink => {
            let args = json!({ "keyword": dish, "category": crate::basic::lexicon::FOOD_CATEGORY });
            Some(Step::Call(Call::then("search_stores", args, food_found_to_eat)))
        }
        None if is_drink(&dish) => {
            let args = json!({ "keyword": dish, "category": crate::basic::lexicon::DRINK_CATEGORY });
            Some(Step::Call(Call::then("search_products", args, food_on_drinks_menu)))
        }
        None => {
            let args = json!({ "keyword": dish, "category": crate::basic::lexicon::FOOD_CATEGORY });
            Some(Step::Call(Call::then("search_products", args, food_on_menu)))
        }
    }
}

/// Dishes found on the menus: the way to the store of the best; none,
/// every place to eat.
fn food_on_drinks_menu(data: &Value, said: &Said) -> Option<Step> {
    food_on_menus(data, said, true)
}

fn food_on_menu(data: &Value, said: &Said) -> Option<Step> {
    food_on_menus(data, said, false)
}

fn food_on_menus(data: &Value, said: &Said, to_drink: bool) -> Option<Step> {
    let result = read::<SearchProductsResult>(data)?;
    match result.products.first() {
        Some(best) => {
            let args = json!({ "store_name": best.store });
            Some(Step::Call(Call::then("navigate_to_store", args, food_way)))
        }
        None if to_drink => {
            let dish = food_wanted(said).unwrap_or_default();
            let args = json!({ "keyword": dish, "category": crate::basic::lexicon::FOOD_CATEGORY });
            Some(Step::Call(Call::then("search_products", args, food_on_menu)))
        }
        None => {
            let args = json!({ "keyword": "", "category": crate::basic::lexicon::FOOD_CATEGORY });
            Some(Step::Call(Call::then("search_stores", args, food_anywhere)))
        }
    }
}

/// Nothing serves the dish: every place to eat, by floor.
fn food_anywhere(data: &Value, said: &Said) -> Option<Step> {
    let result = read::<SearchStoresResult>(data)?;
    let guide = &said.texts().guide;
    if result.stores.is_empty() {
        return Some(Step::answer(guide.food_nowhere));
    }
    let head = (guide.food_none)(&dish_shown(said));
    Some(Step::answer(format!("{head}\n{}", by_floor(&result.stores, said.lang))))
}

/// The places that serve the dish, best first, and the way to the best.
fn food_way(data: &Value, said: &Said) -> Option<Step> {
    let directions = read::<crate::navigation::NavigateToStoreResult>(data)?;
    let lang = said.lang;
    let guide = &said.texts().guide;
    let calls: Vec<&Made> = said.dialogue.turn_calls().collect();
    let found = calls.iter().filter_map(|m| m.result::<SearchStoresResult>()).find(|f| !f.stores.is_empty());
    let stores: Vec<String> = match found {
        Some(found) => found
            .stores
            .iter()
            .take(LISTED)
            .map(|s| format!("{} — {}", s.name, floor_and_unit(lang, Some(s.floor), &s.unit)))
            .collect(),
        _ => {
            let menu = calls
                .iter()
                .filter(|m| m.name == "search_products")
                .filter_map(|m| m.result::<SearchProductsResult>())
                .find(|menu| !menu.products.is_empty())
                .unwrap_or_default();
            let mut seen = Vec::new();
            for p in &menu.products {
                let line = format!("{}{}", p.store, paren(lang, &p.floor));
                if !seen.contains(&line) {
                    seen.push(line);
                }
            }
            seen
        }
    };
    let mut lines = vec![(guide.food_for)(&dish_shown(said))];
    lines.extend(stores.iter().enumerate().map(|(i, s)| format!("{}. {s}", i + 1)));
    lines.push(String::new());
    lines.push(crate::navigation::route(&directions, lang));
    Some(Step::answer(lines.join("\n")))
}

/// Stores by floor, lowest first: "5楼：海底捞火锅（5F-12）、鼎泰丰（5F-18）".
fn by_floor(stores: &[StoreCard], lang: Lang) -> String {
    let mut floors: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    for s in stores {
        floors.entry(s.floor).or_default().push(format!("{}{}", s.name, paren(lang, &s.unit)));
    }
    let guide = &lang.texts().guide;
    floors
        .iter()
        .map(|(f, names)| (guide.food_floor)(&floor(lang, *f), &crate::format::join(lang, names)))
        .collect::<Vec<_>>()
        .join("\n")
}

// Gifts.

/// Words of wrapping a gift: the mall's information, not ideas.
const WRAP: &[&str] = &["包装", "包礼物", "wrap", "wrapping", "wrapped"];

/// A gift asked for: who it is for (a key of
/// [`crate::basic::lexicon::RECIPIENTS`]) and the budget.
#[derive(Debug, Clone, PartialEq)]
pub struct GiftAsk {
    pub recipient: &'static str,
    pub max_price: Option<f64>,
}

/// The gift a message asks for ("给我妈买个礼物 300 以内", "送女朋友的礼物",
/// "a birthday present for a 5-year-old under 200").
pub fn gift_ask(said: &Said) -> Option<GiftAsk> {
    use crate::basic::lexicon::{GIFT, RECIPIENTS};
    let mut s = said.scratch();
    if s.contains_any(WRAP) {
        return None;
    }
    let named = RECIPIENTS.iter().find(|(_, words)| s.contains_any(words)).map(|(key, _)| *key);
    let giving = s.contains_any(&["送给", "送"]) && named.is_some();
    if !s.contains_any(GIFT) && !giving {
        return None;
    }
    let age = years_old(&s);
    let price = extract::take_price_bounds(&mut s);
    let recipient = match (named, age) {
        (_, Some(age)) if age <= 14 => "child",
        (_, Some(age)) if age >= 60 => "elder",
        (Some(key), _) => key,
        (None, _) => "friend",
    };
    Some(GiftAsk { recipient, max_price: price.max })
}

/// An age written in the text: "5岁", "5-year-old", "5 year old", "five-year-old".
fn years_old(s: &Scratch) -> Option<u32> {
    let lower = s.lower().replace('-', " ");
    let numbers = crate::basic::text::numbers(&lower);
    let marked = numbers.iter().find(|n| {
        let after = lower[n.range.end..].trim_start();
        after.starts_with('岁') || after.starts_with("year old") || after.starts_with("years old")
    });
    if let Some(n) = marked {
        return Some(n.value as u32);
    }
    let words: Vec<&str> = lower.split_whitespace().collect();
    words.windows(3).find_map(|w| {
        (w[1] == "year" && w[2] == "old").then(|| crate::basic::text::english_number(w[0])).flatten()
    })
}

/// The kinds of gifts for a recipient and the words the mall is searched
/// with, in English for an English message.
fn gift_ideas(recipient: &str, lang: Lang) -> Vec<(&'static str, &'static str)> {
    use crate::basic::lexicon::{GIFT_IDEAS, GIFTS_FOR};
    let kinds = GIFTS_FOR.iter().find(|(key, _)| *key == recipient).map_or(&[][..], |(_, kinds)| kinds);
    kinds
        .iter()
        .filter_map(|kind| GIFT_IDEAS.iter().find(|(k, _, _)| k == kind))
        .map(|(key, zh, en)| (*key, if lang == Lang::En { *en } else { *zh }))
        .collect()
}

/// A gift: each kind that suits the recipient searched within the budget,
/// then a few ideas from different stores.
fn recognise_gift(said: &Said) -> Option<Step> {
    let ask = gift_ask(said)?;
    let (_, word) = *gift_ideas(ask.recipient, said.lang).first()?;
    Some(Step::Call(Call::then("search_products", gift_search(word, ask.max_price), gift_next)))
}

fn gift_search(word: &str, max_price: Option<f64>) -> Value {
    let mut args = json!({ "keyword": word });
    if let Some(max) = max_price {
        args["max_price"] = yuan_json(max);
    }
    args
}

/// After the search of one kind of gift: the next kind, or the ideas.
fn gift_next(data: &Value, said: &Said) -> Option<Step> {
    let ask = gift_ask(said)?;
    let ideas = gift_ideas(ask.recipient, said.lang);
    // Which search this data came from: the calls of the turn, up to this one.
    let made: Vec<&Made> = said.dialogue.turn_calls().collect();
    let at =
        made.iter().position(|m| matches!(&m.outcome, Some(Outcome::Data(d)) if std::ptr::eq(d, data)))?;
    let done = made[..=at].iter().filter(|m| m.name == "search_products").count();
    match ideas.get(done) {
        Some((_, word)) => {
            Some(Step::Call(Call::then("search_products", gift_search(word, ask.max_price), gift_next)))
        }
        None => Some(Step::answer(gift_answer(&ask, &made, said.lang))),
    }
}

/// Gift ideas shown, at most.
const GIFT_PICKS: usize = 4;

/// The kinds that suit the recipient and a few ideas, each from another store.
fn gift_answer(ask: &GiftAsk, made: &[&Made], lang: Lang) -> String {
    let guide = &lang.texts().guide;
    let results: Vec<SearchProductsResult> = made
        .iter()
        .filter(|m| m.name == "search_products")
        .filter_map(|m| m.result::<SearchProductsResult>())
        .collect();
    let mut picks: Vec<&ProductHit> = Vec::new();
    for round in 0..MAX_PRODUCTS as usize {
        for result in &results {
            let Some(hit) = result.products.get(round) else { continue };
            if picks.len() < GIFT_PICKS && !hit.sold_out && picks.iter().all(|p| p.store != hit.store) {
                picks.push(hit);
            }
        }
    }
    let kinds: Vec<String> =
        gift_ideas(ask.recipient, lang).iter().map(|(key, _)| (guide.gift_kind)(key).to_owned()).collect();
    let kinds = crate::format::join(lang, &kinds);
    if picks.is_empty() {
        return format!("{}{kinds}", guide.gift_over_budget);
    }
    let budget = ask.max_price.map(|max| (guide.gift_budget)(&money(max))).unwrap_or_default();
    let mut lines = vec![(guide.gift_ideas)((guide.recipient)(ask.recipient), &budget, &kinds)];
    for p in picks {
        let place = format!("{}{}", p.store, paren(lang, &p.floor));
        match untranslated(lang, &p.name) {
            true => lines.push(format!("• {place} — {}", p.price.money())),
            false => {
                lines.push(format!("• {} — {}{}{place}", p.name, p.price.money(), lang.texts().format.comma))
            }
        }
    }
    lines.push(guide.gift_more.to_owned());
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(name: &str, store: &str) -> ProductHit {
        ProductHit {
            product_id: "p-1".into(),
            name: name.into(),
            price: Yuan(1900),
            rating: Some(4.7),
            store: store.into(),
            floor: "B1".into(),
            ..ProductHit::default()
        }
    }

    #[test]
    fn an_english_list_shows_no_chinese_name_but_the_store_and_the_price() {
        let result = SearchProductsResult {
            total: 2,
            products: vec![hit("多肉葡萄", "HEYTEA"), hit("Latte", "Starbucks")],
        };
        let list = product_list(None, &result, false, Lang::En);
        assert!(!list.chars().any(|c| ('\u{3400}'..='\u{9fff}').contains(&c)), "{list}");
        assert!(list.contains("1. HEYTEA (B1) — ¥19"), "{list}");
        assert!(list.contains("2. Latte — ¥19") && list.contains("Starbucks (B1)"), "{list}");
        let chinese = product_list(None, &result, false, Lang::Zh);
        assert!(chinese.contains("1. 多肉葡萄 — ¥19"), "{chinese}");
    }
}
