//! Details: one product with its sizes and store, one store's basics,
//! promotions or reviews.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use services::{PageRequest, Product, Review};

use crate::general::{
    find_store, navigate_suggestion, rating, store_for_display, store_json, store_ref_json,
    unknown_store_json, yuan,
};
use crate::{Lang, ToolContext, ToolOutput, ToolResult, tool_function};

/// Reviews shown to the model.
const SHOWN_REVIEWS: usize = 5;
/// Reviews the average rating is taken over.
const RATED_REVIEWS: u32 = PageRequest::MAX_LIMIT;

/// Arguments of `get_product_detail`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetProductDetailArgs {
    /// The product's id, as search_products returned it.
    pub product_id: String,
}

/// One product in full: description, price, each size (SKU) with its stock,
/// the store and floor where it is sold, and a picture.
#[tool_function(level = "safe", scope = "both")]
pub async fn get_product_detail(ctx: &ToolContext, args: GetProductDetailArgs) -> ToolResult {
    let product = ctx.mall.get_product(args.product_id.trim()).await?;
    let store = match store_for_display(ctx, &product.brief.store_id).await {
        Some(store) => store_ref_json(&store),
        None => unknown_store_json(&product.brief.store_id, Some(&product.brief.store_name)),
    };
    let image = product.images.first().cloned();
    let data = product_json(&product, store, image.as_deref());
    let store_name = &product.brief.store_name;
    let mut output = ToolOutput::data(data).with_suggestions(match ctx.lang {
        Lang::Zh => ["加入购物车".to_owned(), format!("带我去{store_name}")],
        Lang::En => ["Add to cart".to_owned(), format!("Take me to {store_name}")],
    });
    output.image = image;
    Ok(output)
}

fn product_json(product: &Product, store: Value, image: Option<&str>) -> Value {
    let brief = &product.brief;
    let sizes: Vec<&str> = if product.skus.is_empty() {
        brief.sizes.iter().map(String::as_str).collect()
    } else {
        product.skus.iter().filter(|s| s.stock > 0).map(|s| s.label.as_str()).collect()
    };
    let skus: Vec<Value> = product
        .skus
        .iter()
        .map(|s| json!({"sku_id": s.sku_id, "label": s.label, "price_yuan": yuan(s.price_cents), "stock": s.stock}))
        .collect();
    json!({
        "product_id": brief.id,
        "name": brief.name,
        "brand": brief.brand,
        "category": brief.category,
        "price_yuan": yuan(brief.price_cents),
        "rating": rating(brief.rating),
        "description": product.description,
        "in_stock": brief.in_stock,
        "sizes": sizes,
        "skus": skus,
        "store": store,
        "image": image,
    })
}

/// Which part of a store's information to get.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InfoType {
    Basic,
    Promotions,
    Reviews,
}

/// Arguments of `get_store_info`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetStoreInfoArgs {
    /// The store's id, or its name in Chinese or English.
    pub store_id: String,
    /// "basic": floor, unit, opening hours and phone; "promotions": current
    /// offers; "reviews": shoppers' ratings and comments.
    pub info_type: InfoType,
}

/// A store's basics (floor, unit, opening hours, phone), its current
/// promotions, or its reviews with the average rating.
#[tool_function(level = "safe", scope = "both")]
pub async fn get_store_info(ctx: &ToolContext, args: GetStoreInfoArgs) -> ToolResult {
    let store = find_store(ctx, "store_id", &args.store_id).await?;
    let short = json!({"store_id": store.id, "name": store.name, "name_en": store.name_en});
    let data = match args.info_type {
        InfoType::Basic => json!({"info_type": "basic", "store": store_json(&store)}),
        InfoType::Promotions => {
            let promotions = ctx.mall.store_promotions(&store.id).await?.items;
            let promotions: Vec<Value> = promotions
                .iter()
                .map(
                    |p| json!({"title": p.title, "description": p.description, "valid_until": p.valid_until}),
                )
                .collect();
            json!({"info_type": "promotions", "store": short, "promotions": promotions})
        }
        InfoType::Reviews => {
            let reviews = ctx.mall.store_reviews(&store.id, PageRequest::first(RATED_REVIEWS)).await?.items;
            json!({
                "info_type": "reviews",
                "store": short,
                "average_rating": average_rating(&reviews),
                "reviews": reviews.iter().take(SHOWN_REVIEWS).map(review_json).collect::<Vec<_>>(),
            })
        }
    };
    Ok(ToolOutput::data(data).with_suggestions([navigate_suggestion(ctx.lang, &store)]))
}

fn review_json(review: &Review) -> Value {
    json!({
        "rating": rating(review.rating),
        "text": review.text,
        "author": review.author,
        "created_at": review.created_at,
    })
}

/// The mean rating, one decimal; `null` without reviews.
fn average_rating(reviews: &[Review]) -> Value {
    if reviews.is_empty() {
        return Value::Null;
    }
    let sum: f64 = reviews.iter().map(|r| f64::from(r.rating)).sum();
    json!((sum / reviews.len() as f64 * 10.0).round() / 10.0)
}
