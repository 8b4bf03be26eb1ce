//! Searching the mall: products by keyword and price, stores by keyword.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::{PageRequest, ProductBrief, ProductQuery, Store, StoreQuery};

use crate::format::{floor, mall_text, navigate_suggestion, product_name, store_name};
use crate::general::{
    search_products_in_either_script, search_stores_in_either_script, store_for_display, yuan_to_cents,
};
use crate::records::{StoreCard, Yuan, rating};
use crate::{HelpLine, Lang, ToolContext, ToolError, ToolOutput, ToolResult, tool_function};

/// At most this many products go back to the model.
const MAX_PRODUCTS: u32 = 5;
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
    pub keyword: String,
    pub max_price: Option<f64>,
    pub min_price: Option<f64>,
    pub brand: Option<String>,
    pub category: Option<String>,
}

/// What `search_products` returns: the number of matches and the best ones.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SearchProductsResult {
    pub total: u64,
    pub products: Vec<ProductHit>,
}

/// One product found: what a recommendation needs and nothing else. Names
/// are in the shopper's language; what is unknown or empty is left out.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProductHit {
    pub product_id: String,
    pub name: String,
    /// In yuan.
    pub price: Yuan,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    /// The sizes (SKU labels) in stock.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    /// Set only when nothing is in stock.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sold_out: bool,
    /// The store's name.
    pub store: String,
    /// The store's floor as shoppers write it (`3楼`, `3F`, `B1`); absent
    /// when the store could not be looked up.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub floor: String,
}

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
    match lang {
        Lang::En => format!("🔍 Searching: {what}…"),
        _ => format!("🔍 正在搜索：{what}…"),
    }
}

/// Find products (any language; prices in yuan). Gives the best 5 with
/// price, rating, sizes in stock, store and floor: enough to recommend.
#[tool_function(level = "safe", scope = "both", progress = search_products_progress, help = HELP_PRODUCTS)]
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
    match lang {
        Lang::En => format!("🏬 Looking for stores: {}…", args.keyword.trim()),
        _ => format!("🏬 正在找店：{}…", args.keyword.trim()),
    }
}

/// Find stores by name or what they sell (any language): floor, unit,
/// hours, phone.
#[tool_function(level = "safe", scope = "both", progress = search_stores_progress, help = HELP_STORES)]
pub async fn search_stores(ctx: &ToolContext, args: SearchStoresArgs) -> ToolResult<SearchStoresResult> {
    let query = StoreQuery {
        keyword: Some(args.keyword.trim().to_owned()).filter(|k| !k.is_empty()),
        category: args.category.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()),
        floor: None,
        page: PageRequest::first(MAX_STORES),
    };
    let page = search_stores_in_either_script(ctx, query).await?;
    let suggestion =
        page.items.first().map(|first| navigate_suggestion(ctx.lang, &store_name(ctx.lang, first)));
    let result = SearchStoresResult {
        total: page.total,
        stores: page.items.iter().take(MAX_STORES as usize).map(|s| StoreCard::new(s, ctx.lang)).collect(),
    };
    Ok(ToolOutput::new(result).with_suggestions(suggestion))
}
