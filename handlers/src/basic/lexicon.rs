//! The names basic mode knows: kinds of products and stores in both
//! languages (all lowercase), and the [`Lexicon`] of the mall it serves —
//! brands, stores, areas and categories, learned from the mall rather than
//! listed here.

use std::collections::{BTreeMap, BTreeSet};

use handlers::general::name_key;
use services::{Area, MallApi, PageRequest, ProductBrief, ProductQuery, ServiceError, Store, StoreQuery};

use super::text::Scratch;

/// Words for kinds of products in either language (kept in the search
/// keyword as written); the mall's own categories are learned on top.
#[rustfmt::skip]
pub const PRODUCT_WORDS: &[&str] = &[
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
pub const AREA_ENDINGS: &[&str] = &["区", "广场", "美食街", "zone", "area", "court", "plaza"];

/// Words that make a place a kind of store rather than a named one.
#[rustfmt::skip]
pub const STORE_TYPES: &[&str] = &[
    "餐厅", "饭店", "餐馆", "馆", "厅", "店", "shops", "shop", "stores", "store", "restaurants", "restaurant",
    "cafe", "café",
];

/// What basic mode knows of the mall it serves, learned from the mall
/// itself ([`Lexicon::learn`]): its brands and the ways shoppers write them,
/// its stores, areas and product categories. Everything else it knows is
/// the words of the two languages, in the lists above and in the tools'
/// hooks.
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
    /// Example requests made of the mall's own names (greeting buttons, banner).
    pub examples: handlers::mall_examples::MallExamples,
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
        let mut lexicon = Lexicon::from_catalog(&stores, &areas, &products);
        lexicon.examples = handlers::mall_examples::MallExamples::learn(mall, &stores, &products).await;
        Ok(lexicon)
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
            examples: Default::default(),
        }
    }

    /// How many brands, stores and areas it knows (for the log).
    pub fn sizes(&self) -> (usize, usize, usize) {
        (self.brands.len(), self.stores.len(), self.areas.len())
    }

    /// The brand mentioned in the text: its name as the mall writes it and
    /// where it is written (the longest way of writing one that is there).
    pub fn find_brand(&self, s: &Scratch) -> Option<(String, std::ops::Range<usize>)> {
        self.brands
            .iter()
            .filter_map(|(name, aliases)| aliases.iter().find_map(|a| s.find(a)).map(|r| (name, r)))
            .max_by_key(|(_, r)| (r.len(), std::cmp::Reverse(r.start)))
            .map(|(name, r)| (name.clone(), r))
    }

    /// Whether the text names a kind of product.
    pub fn has_category(&self, s: &Scratch) -> bool {
        s.contains_any(PRODUCT_WORDS) || self.categories.iter().any(|c| s.find(c).is_some())
    }

    /// Whether a word is a kind of product or store ("咖啡", "coffee"),
    /// not a name.
    pub fn is_kind(&self, word: &str) -> bool {
        let word = word.trim().to_lowercase();
        word == "商店" || self.has_category(&Scratch::new(&word)) || STORE_TYPES.iter().any(|t| word == *t)
    }

    /// Whether the text names one of the mall's stores.
    pub fn names_store(&self, s: &Scratch) -> bool {
        self.stores.iter().any(|n| s.find(n).is_some())
    }

    /// Whether a place name is an area of the mall.
    pub fn is_area(&self, place: &str) -> bool {
        // Letters and digits only: "Kids Toys" (a message's "&" is not kept) is "Kids & Toys".
        let key = |s: &str| s.to_lowercase().chars().filter(|c| c.is_alphanumeric()).collect::<String>();
        let (lower, compact) = (place.to_lowercase(), key(place));
        self.areas.iter().any(|a| compact.contains(&key(a)))
            || AREA_ENDINGS.iter().any(|e| lower.ends_with(e))
    }

    /// The kind of store a place name asks for (`咖啡店` → `咖啡`, `coffee
    /// shop` → `coffee`), when it is a store type rather than a named store.
    pub fn store_type_keyword(&self, place: &str) -> Option<String> {
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
