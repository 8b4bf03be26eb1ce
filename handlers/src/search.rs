//! Searching the mall: products by keyword and price, stores by keyword.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::{PageRequest, ProductBrief, ProductQuery, Store, StoreQuery};

use crate::format::{local_name, navigate_suggestion};
use crate::general::{store_for_display, yuan_to_cents};
use crate::records::{StoreCard, Yuan, rating};
use crate::{HelpLine, Lang, ToolContext, ToolError, ToolOutput, ToolResult, tool_function};

/// At most this many products go back to the model.
const MAX_PRODUCTS: u32 = 8;
/// At most this many stores go back to the model.
const MAX_STORES: u32 = 10;

/// The `/help` line of the product tools.
pub static HELP_PRODUCTS: HelpLine = HelpLine {
    zh: "🔍 找商品：「500 元以内的 Nike 跑鞋」，再看看详情和尺码",
    en: "🔍 Products: \"Nike running shoes under 500 yuan\", then details and sizes",
};

/// The `/help` line of the store tools.
pub static HELP_STORES: HelpLine = HelpLine {
    zh: "🏬 查店铺：「有哪些咖啡店？」「优衣库有什么优惠？」",
    en: "🏬 Stores: \"Which coffee shops are there?\" \"Any deals at Uniqlo?\"",
};

/// Arguments of `search_products`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchProductsArgs {
    /// What to look for, in Chinese or English: a product, brand or kind ("跑鞋", "Nike running shoes").
    pub keyword: String,
    /// Highest price in yuan (元), e.g. 500 for "500 以内".
    pub max_price: Option<f64>,
    /// Lowest price in yuan (元).
    pub min_price: Option<f64>,
    /// Only this brand (e.g. "Nike").
    pub brand: Option<String>,
    /// Only this category (e.g. "运动鞋", "shoes").
    pub category: Option<String>,
}

/// What `search_products` returns: the number of matches and the best ones.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchProductsResult {
    pub total: u64,
    pub products: Vec<ProductHit>,
}

/// One product found, with where its store is (empty when the store could
/// not be looked up).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ProductHit {
    pub product_id: String,
    pub name: String,
    pub brand: String,
    pub category: String,
    pub price_yuan: Yuan,
    pub rating: Option<f64>,
    pub in_stock: bool,
    pub sizes: Vec<String>,
    pub store_id: String,
    pub store_name: String,
    pub store_name_en: Option<String>,
    pub floor: Option<i32>,
    pub unit: Option<String>,
}

impl ProductHit {
    fn new(product: &ProductBrief, store: Option<&Store>) -> Self {
        ProductHit {
            product_id: product.id.clone(),
            name: product.name.clone(),
            brand: product.brand.clone(),
            category: product.category.clone(),
            price_yuan: Yuan(product.price_cents),
            rating: Some(rating(product.rating)),
            in_stock: product.in_stock,
            sizes: product.sizes.clone(),
            store_id: product.store_id.clone(),
            store_name: product.store_name.clone(),
            store_name_en: store.map(|s| s.name_en.clone()),
            floor: store.map(|s| s.floor),
            unit: store.map(|s| s.unit.clone()),
        }
    }

    /// The store's name in the shopper's language.
    pub fn local_store_name(&self, lang: Lang) -> &str {
        local_name(lang, &self.store_name, self.store_name_en.as_deref())
    }
}

fn search_products_progress(lang: Lang, args: &SearchProductsArgs) -> String {
    let mut what = args.keyword.trim().to_owned();
    if let Some(max) = args.max_price {
        what.push_str(&format!(" ≤ {}", Yuan((max * 100.0).round() as i64).money()));
    }
    match lang {
        Lang::Zh => format!("🔍 正在搜索：{what}…"),
        Lang::En => format!("🔍 Searching: {what}…"),
    }
}

/// Search the mall's products by keyword, price range (in yuan), brand or
/// category. Returns up to 8 products, best match first, with price, sizes in
/// stock and where the store is.
#[tool_function(level = "safe", scope = "both", progress = search_products_progress, help = HELP_PRODUCTS)]
pub async fn search_products(
    ctx: &ToolContext,
    args: SearchProductsArgs,
) -> ToolResult<SearchProductsResult> {
    let query = product_query(args)?;
    let page = ctx.mall.search_products(&query).await?;
    let products: Vec<ProductBrief> = page.items.into_iter().take(MAX_PRODUCTS as usize).collect();
    let stores = stores_of(ctx, &products).await;
    let result = SearchProductsResult {
        total: page.total,
        products: products.iter().map(|p| ProductHit::new(p, stores.get(&p.store_id))).collect(),
    };
    let found = !result.products.is_empty();
    let output = ToolOutput::new(result);
    Ok(if found {
        output.with_suggestions([ctx.lang.pick("看看第一个", "Show the first one")])
    } else {
        output
    })
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
    /// A store name or what it sells, in Chinese or English ("优衣库", "coffee").
    pub keyword: String,
    /// Only this category (e.g. "餐饮", "sports").
    pub category: Option<String>,
}

/// What `search_stores` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SearchStoresResult {
    pub total: u64,
    pub stores: Vec<StoreCard>,
}

fn search_stores_progress(lang: Lang, args: &SearchStoresArgs) -> String {
    match lang {
        Lang::Zh => format!("🏬 正在找店：{}…", args.keyword.trim()),
        Lang::En => format!("🏬 Looking for stores: {}…", args.keyword.trim()),
    }
}

/// Search the mall's stores by name or what they sell. Returns up to 10
/// stores with floor, unit, opening hours and phone.
#[tool_function(level = "safe", scope = "both", progress = search_stores_progress, help = HELP_STORES)]
pub async fn search_stores(ctx: &ToolContext, args: SearchStoresArgs) -> ToolResult<SearchStoresResult> {
    let query = StoreQuery {
        keyword: Some(args.keyword.trim().to_owned()).filter(|k| !k.is_empty()),
        category: args.category.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()),
        floor: None,
        page: PageRequest::first(MAX_STORES),
    };
    let page = ctx.mall.search_stores(&query).await?;
    let suggestion = page
        .items
        .first()
        .map(|first| navigate_suggestion(ctx.lang, crate::format::store_name(ctx.lang, first)));
    let result = SearchStoresResult {
        total: page.total,
        stores: page.items.iter().take(MAX_STORES as usize).map(StoreCard::from).collect(),
    };
    Ok(ToolOutput::new(result).with_suggestions(suggestion))
}
