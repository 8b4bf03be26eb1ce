//! Searching the mall: products by keyword and price, stores by keyword.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use services::{PageRequest, ProductBrief, ProductQuery, Store, StoreQuery};

use crate::general::{navigate_suggestion, rating, store_for_display, store_json, yuan, yuan_to_cents};
use crate::{ToolContext, ToolError, ToolOutput, ToolResult, tool_function};

/// At most this many products go back to the model.
const MAX_PRODUCTS: u32 = 8;
/// At most this many stores go back to the model.
const MAX_STORES: u32 = 10;

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

/// Search the mall's products by keyword, price range (in yuan), brand or
/// category. Returns up to 8 products, best match first, with price, sizes in
/// stock and where the store is.
#[tool_function(level = "safe", scope = "both")]
pub async fn search_products(ctx: &ToolContext, args: SearchProductsArgs) -> ToolResult {
    let query = product_query(args)?;
    let page = ctx.mall.search_products(&query).await?;
    let products: Vec<ProductBrief> = page.items.into_iter().take(MAX_PRODUCTS as usize).collect();
    let stores = stores_of(ctx, &products).await;
    let data = json!({
        "total": page.total,
        "products": products.iter().map(|p| product_json(p, stores.get(&p.store_id))).collect::<Vec<_>>(),
    });
    let output = ToolOutput::data(data);
    Ok(if products.is_empty() {
        output
    } else {
        output.with_suggestions([ctx.lang.pick("看看第一个", "Show the first one")])
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

fn product_json(product: &ProductBrief, store: Option<&Store>) -> Value {
    json!({
        "product_id": product.id,
        "name": product.name,
        "brand": product.brand,
        "category": product.category,
        "price_yuan": yuan(product.price_cents),
        "rating": rating(product.rating),
        "in_stock": product.in_stock,
        "sizes": product.sizes,
        "store_id": product.store_id,
        "store_name": product.store_name,
        "store_name_en": store.map(|s| s.name_en.as_str()),
        "floor": store.map(|s| s.floor),
        "unit": store.map(|s| s.unit.as_str()),
    })
}

/// Arguments of `search_stores`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchStoresArgs {
    /// A store name or what it sells, in Chinese or English ("优衣库", "coffee").
    pub keyword: String,
    /// Only this category (e.g. "餐饮", "sports").
    pub category: Option<String>,
}

/// Search the mall's stores by name or what they sell. Returns up to 10
/// stores with floor, unit, opening hours and phone.
#[tool_function(level = "safe", scope = "both")]
pub async fn search_stores(ctx: &ToolContext, args: SearchStoresArgs) -> ToolResult {
    let query = StoreQuery {
        keyword: Some(args.keyword.trim().to_owned()).filter(|k| !k.is_empty()),
        category: args.category.map(|c| c.trim().to_owned()).filter(|c| !c.is_empty()),
        floor: None,
        page: PageRequest::first(MAX_STORES),
    };
    let page = ctx.mall.search_stores(&query).await?;
    let data = json!({
        "total": page.total,
        "stores": page.items.iter().take(MAX_STORES as usize).map(store_json).collect::<Vec<_>>(),
    });
    let output = ToolOutput::data(data);
    Ok(match page.items.first() {
        Some(first) => output.with_suggestions([navigate_suggestion(ctx.lang, first)]),
        None => output,
    })
}
