//! The words the offline planner knows: the cue and filler phrases of each
//! intent, kinds of products and stores in both languages (all lowercase),
//! and the [`Lexicon`] of the mall it serves — brands, stores, areas and
//! categories, learned from the mall rather than listed here.

use std::collections::{BTreeMap, BTreeSet};

use handlers::general::name_key;
use services::{Area, MallApi, PageRequest, ProductBrief, ProductQuery, ServiceError, Store, StoreQuery};

use super::text::Scratch;

/// Words for kinds of products in either language (kept in the search
/// keyword as written); the mall's own categories are learned on top.
#[rustfmt::skip]
pub(crate) const PRODUCT_WORDS: &[&str] = &[
    "跑鞋", "跑步鞋", "运动鞋", "球鞋", "篮球鞋", "板鞋", "鞋", "t恤", "短袖", "外套", "夹克", "羽绒服",
    "卫衣", "衬衫", "裤", "裙", "手机", "耳机", "电脑", "笔记本", "平板", "手表", "手环", "咖啡", "奶茶",
    "茶", "玩具", "积木", "背包", "包", "帽", "袜", "口红", "香水", "护肤", "化妆品", "running shoes",
    "shoes", "shoe", "sneakers", "trainers", "t-shirt", "t-shirts", "tee", "shirt", "jacket", "coat",
    "hoodie", "jeans", "pants", "trousers", "dress", "skirt", "phone", "phones", "smartphone", "headphones",
    "earbuds", "earphones", "laptop", "tablet", "watch", "coffee", "latte", "tea", "toy", "toys", "bag",
    "backpack", "hat", "cap", "socks", "lipstick", "perfume", "iphone", "ipad", "macbook",
    "airpods",
];

/// Endings that make a place an area rather than a store.
pub(crate) const AREA_ENDINGS: &[&str] = &["区", "广场", "美食街", "zone", "area", "court", "plaza"];

/// Words that make a place a kind of store rather than a named one.
#[rustfmt::skip]
pub(crate) const STORE_TYPES: &[&str] = &[
    "餐厅", "饭店", "餐馆", "馆", "厅", "店", "shops", "shop", "stores", "store", "restaurants", "restaurant",
    "cafe", "café",
];

/// Greetings and politeness, struck out before anything else.
#[rustfmt::skip]
pub(crate) const GREETINGS: &[&str] = &[
    "你好", "您好", "嗨", "哈喽", "请问", "麻烦", "谢谢", "hello", "hi", "hey", "please", "thanks",
    "thank you",
];

/// Phrases that mean the shopper wants to buy.
#[rustfmt::skip]
pub(crate) const BUY: &[&str] = &[
    "买", "购买", "想要", "我要", "buy", "purchase", "i want", "i'd like", "i would like", "i need", "get me",
];

/// Phrases that mean the shopper is browsing.
#[rustfmt::skip]
pub(crate) const BROWSE: &[&str] = &[
    "有什么", "有没有", "有哪些", "有啥", "推荐", "找", "搜", "看看", "show me", "find", "search",
    "looking for", "recommend", "do you have", "do you sell", "any",
];

/// Phrases that ask for cheaper goods.
#[rustfmt::skip]
pub(crate) const CHEAP: &[&str] = &[
    "便宜点", "便宜一点", "便宜些", "便宜的", "便宜", "实惠", "cheaper", "cheapest", "cheap", "affordable",
    "budget",
];

/// Chinese filler struck out of a product keyword.
#[rustfmt::skip]
pub(crate) const ZH_FILLER: &[&str] = &[
    "帮我", "给我", "我想要", "我想", "我要", "想要", "想买", "购买", "搜一下", "搜索", "查一下", "找一下",
    "找找", "看一下", "看看", "推荐一下", "推荐", "有什么", "有没有", "有哪些", "有啥", "什么", "哪些",
    "一些", "一下", "一点", "商品", "东西", "价格", "左右", "元", "块钱", "块", "的", "吗", "呢", "吧", "啊",
    "呀", "买", "要", "有", "卖", "找", "搜", "我", "在", "款", "哪里", "哪儿", "哪",
];

/// English words struck out of a keyword.
#[rustfmt::skip]
pub(crate) const EN_FILLER: &[&str] = &[
    "i", "i'd", "i'm", "want", "wanna", "to", "buy", "would", "like", "find", "me", "show", "search", "for",
    "looking", "look", "some", "any", "a", "an", "the", "pair", "pairs", "of", "can", "could", "you", "do",
    "does", "have", "has", "get", "need", "something", "help", "recommend", "what", "what's", "whats", "are",
    "there", "is", "which", "with", "good", "nice", "best", "got", "purchase", "it", "them", "your", "my",
    "mall", "sell", "sells", "yuan", "rmb", "price", "priced", "please", "options", "in", "here", "new",
    "one", "ones", "where", "see", "let", "let's",
];

/// Chinese numerals and classifiers such as `一双`, `两件`: struck out of keywords.
pub(crate) const CLASSIFIERS: &str = "双件个款台部副杯条顶只套瓶支盒份";

/// What the planner knows of the mall it serves, learned from the mall
/// itself ([`Lexicon::learn`]): its brands and the ways shoppers write them,
/// its stores, areas and product categories. Everything else the planner
/// knows is the words of the two languages, in the lists above.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lexicon {
    /// Brands: the mall's spelling and the lowercase ways to write it.
    brands: Vec<(String, Vec<String>)>,
    /// Store names in either language, lowercase.
    stores: Vec<String>,
    /// Area names in either language, lowercase.
    areas: Vec<String>,
    /// The mall's product and store categories, lowercase.
    categories: Vec<String>,
}

/// Products read per page while learning.
const PAGE: u32 = PageRequest::MAX_LIMIT;
/// At most this many products are read while learning (brands repeat).
const MAX_PRODUCTS: u32 = 5_000;

impl Lexicon {
    /// Reads the mall's stores, areas and products and learns their names.
    pub async fn learn(mall: &dyn MallApi) -> Result<Lexicon, ServiceError> {
        let stores =
            all_pages(
                |page| async move { mall.search_stores(&StoreQuery { page, ..Default::default() }).await },
            )
            .await?;
        let areas = mall.list_areas().await?.items;
        let products = all_pages(|page| async move {
            mall.search_products(&ProductQuery { page, ..Default::default() }).await
        })
        .await?;
        Ok(Lexicon::from_catalog(&stores, &areas, &products))
    }

    /// The names of a catalog: a brand is written as the mall writes it, in
    /// lowercase, and by the names of the stores that carry its name.
    pub fn from_catalog(stores: &[Store], areas: &[Area], products: &[ProductBrief]) -> Lexicon {
        let mut brands: BTreeMap<String, (String, BTreeSet<String>)> = BTreeMap::new();
        let store_by_id: BTreeMap<&str, &Store> = stores.iter().map(|s| (s.id.as_str(), s)).collect();
        for product in products {
            let brand = product.brand.trim();
            let key = name_key(brand);
            if key.is_empty() {
                continue;
            }
            let entry = brands.entry(key.clone()).or_insert_with(|| (brand.to_owned(), BTreeSet::new()));
            entry.1.insert(brand.to_lowercase());
            if let Some(store) = store_by_id.get(product.store_id.as_str())
                && [&store.name_en, &store.name].iter().any(|n| name_key(n) == key)
            {
                entry.1.extend([store.name.to_lowercase(), store.name_en.to_lowercase()]);
            }
        }
        let brands = brands
            .into_values()
            .map(|(name, aliases)| {
                let mut aliases: Vec<String> = aliases.into_iter().filter(|a| usable_alias(a)).collect();
                aliases.sort_by_key(|a| std::cmp::Reverse(a.len()));
                (name, aliases)
            })
            .filter(|(_, aliases)| !aliases.is_empty())
            .collect();
        let names = |pairs: Vec<&String>| -> Vec<String> {
            let set: BTreeSet<String> =
                pairs.into_iter().map(|n| n.trim().to_lowercase()).filter(|n| usable_alias(n)).collect();
            set.into_iter().collect()
        };
        Lexicon {
            brands,
            stores: names(stores.iter().flat_map(|s| [&s.name, &s.name_en]).collect()),
            areas: names(areas.iter().flat_map(|a| [&a.name, &a.name_en]).collect()),
            categories: names(
                products.iter().map(|p| &p.category).chain(stores.iter().map(|s| &s.category)).collect(),
            )
            .into_iter()
            .map(|c| c.replace('_', " "))
            .collect(),
        }
    }

    /// How many brands, stores and areas it knows (for the log).
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.brands.len(), self.stores.len(), self.areas.len())
    }

    /// The brand mentioned in the text: its name as the mall writes it and
    /// where it is written (the longest way of writing one that is there).
    pub(crate) fn find_brand(&self, s: &Scratch) -> Option<(String, std::ops::Range<usize>)> {
        self.brands
            .iter()
            .filter_map(|(name, aliases)| aliases.iter().find_map(|a| s.find(a)).map(|r| (name, r)))
            .max_by_key(|(_, r)| (r.len(), std::cmp::Reverse(r.start)))
            .map(|(name, r)| (name.clone(), r))
    }

    /// Whether the text names a kind of product.
    pub(crate) fn has_category(&self, s: &Scratch) -> bool {
        s.contains_any(PRODUCT_WORDS) || self.categories.iter().any(|c| s.find(c).is_some())
    }

    /// Whether a word is a kind of product or store ("咖啡", "coffee"),
    /// not a name.
    pub(crate) fn is_kind(&self, word: &str) -> bool {
        let word = word.trim().to_lowercase();
        word == "商店" || self.has_category(&Scratch::new(&word)) || STORE_TYPES.iter().any(|t| word == *t)
    }

    /// Whether the text names one of the mall's stores.
    pub(crate) fn names_store(&self, s: &Scratch) -> bool {
        self.stores.iter().any(|n| s.find(n).is_some())
    }

    /// Whether a place name is an area of the mall.
    pub(crate) fn is_area(&self, place: &str) -> bool {
        let place = place.to_lowercase();
        self.areas.iter().any(|a| place.contains(a.as_str()))
            || AREA_ENDINGS.iter().any(|e| place.ends_with(e))
    }

    /// The kind of store a place name asks for (`咖啡店` → `咖啡`, `coffee
    /// shop` → `coffee`), when it is a store type rather than a named store.
    pub(crate) fn store_type_keyword(&self, place: &str) -> Option<String> {
        let scratch = Scratch::new(place);
        if self.find_brand(&scratch).is_some() || self.names_store(&scratch) {
            return None;
        }
        let lower = place.to_lowercase();
        let ending = STORE_TYPES.iter().find(|t| lower.ends_with(*t))?;
        let mut rest = Scratch::new(place);
        rest.remove_all(&[
            ending, "一家", "家", "有", "吗", "a", "an", "the", "some", "any", "nearby", "附近", "的",
        ]);
        let keyword = rest.residual();
        if keyword.is_empty() {
            let bare = ending.trim_end_matches('s');
            Some(if bare == "店" { "商店".to_owned() } else { bare.to_owned() })
        } else {
            Some(keyword)
        }
    }
}

/// A way of writing a name that is safe to look for in a message: two
/// characters of Chinese, three letters of anything else.
fn usable_alias(alias: &str) -> bool {
    let count = alias.chars().count();
    if alias.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) { count >= 2 } else { count >= 3 }
}

/// Every page of a list, up to [`MAX_PRODUCTS`] items.
async fn all_pages<T, F, Fut>(mut fetch: F) -> Result<Vec<T>, ServiceError>
where
    F: FnMut(PageRequest) -> Fut,
    Fut: std::future::Future<Output = Result<services::Page<T>, ServiceError>>,
{
    let mut items = Vec::new();
    loop {
        let offset = items.len() as u32;
        let page = fetch(PageRequest { limit: Some(PAGE), offset: Some(offset) }).await?;
        let got = page.items.len() as u32;
        items.extend(page.items);
        let total = u32::try_from(page.total).unwrap_or(u32::MAX);
        if got < PAGE || items.len() as u32 >= total.min(MAX_PRODUCTS) {
            return Ok(items);
        }
    }
}
