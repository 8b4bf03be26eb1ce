//! Details: one product with its sizes and store, one store's basics,
//! promotions or reviews.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::{PageRequest, Product, Review};

use crate::format::{navigate_suggestion, store_name};
use crate::general::{find_store, store_for_display};
use crate::records::{StoreCard, StoreRef, Yuan, rating};
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

/// What `get_product_detail` returns: one product in full.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ProductDetail {
    pub product_id: String,
    pub name: String,
    pub brand: String,
    pub category: String,
    pub price_yuan: Yuan,
    pub rating: Option<f64>,
    pub description: String,
    pub in_stock: bool,
    /// The sizes in stock.
    pub sizes: Vec<String>,
    pub skus: Vec<SkuLine>,
    pub store: StoreRef,
    pub image: Option<String>,
}

/// One size of a product.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct SkuLine {
    pub sku_id: String,
    pub label: String,
    pub price_yuan: Yuan,
    pub stock: u32,
}

impl ProductDetail {
    fn new(product: &Product, store: StoreRef, image: Option<String>) -> Self {
        let brief = &product.brief;
        let sizes: Vec<String> = if product.skus.is_empty() {
            brief.sizes.clone()
        } else {
            product.skus.iter().filter(|s| s.stock > 0).map(|s| s.label.clone()).collect()
        };
        let skus = product
            .skus
            .iter()
            .map(|s| SkuLine {
                sku_id: s.sku_id.clone(),
                label: s.label.clone(),
                price_yuan: Yuan(s.price_cents),
                stock: s.stock,
            })
            .collect();
        ProductDetail {
            product_id: brief.id.clone(),
            name: brief.name.clone(),
            brand: brief.brand.clone(),
            category: brief.category.clone(),
            price_yuan: Yuan(brief.price_cents),
            rating: Some(rating(brief.rating)),
            description: product.description.clone(),
            in_stock: brief.in_stock,
            sizes,
            skus,
            store,
            image,
        }
    }
}

fn get_product_detail_progress(lang: Lang, _args: &GetProductDetailArgs) -> String {
    lang.pick("📦 正在查看商品详情…", "📦 Looking at the product…").to_owned()
}

/// One product in full: description, price, each size (SKU) with its stock,
/// the store and floor where it is sold, and a picture.
#[tool_function(level = "safe", scope = "both", progress = get_product_detail_progress, help = crate::search::HELP_PRODUCTS)]
pub async fn get_product_detail(ctx: &ToolContext, args: GetProductDetailArgs) -> ToolResult<ProductDetail> {
    let product = ctx.mall.get_product(args.product_id.trim()).await?;
    let store = match store_for_display(ctx, &product.brief.store_id).await {
        Some(store) => StoreRef::from(&store),
        None => StoreRef::unknown(&product.brief.store_id, Some(&product.brief.store_name)),
    };
    let image = product.images.first().cloned();
    let detail = ProductDetail::new(&product, store, image.clone());
    let store_name = match detail.store.local_name(ctx.lang) {
        "" => product.brief.store_name.clone(),
        name => name.to_owned(),
    };
    let mut output = ToolOutput::new(detail).with_suggestions([
        ctx.lang.pick("加入购物车", "Add to cart").to_owned(),
        navigate_suggestion(ctx.lang, &store_name),
    ]);
    output.image = image;
    Ok(output)
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

/// What `get_store_info` returns, by `info_type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "info_type", rename_all = "lowercase")]
pub enum StoreInfoResult {
    /// Floor, unit, opening hours and phone.
    Basic { store: StoreCard },
    /// Current offers.
    Promotions { store: StoreName, promotions: Vec<PromotionLine> },
    /// The average rating and the latest reviews.
    Reviews { store: StoreName, average_rating: Option<f64>, reviews: Vec<ReviewLine> },
}

/// A store's id and names.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct StoreName {
    pub store_id: String,
    pub name: String,
    pub name_en: String,
}

impl StoreName {
    /// The name in the shopper's language.
    pub fn local_name(&self, lang: Lang) -> &str {
        crate::format::local_name(lang, &self.name, Some(&self.name_en))
    }
}

/// A current offer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PromotionLine {
    pub title: String,
    pub description: String,
    pub valid_until: String,
}

/// A shopper's review.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ReviewLine {
    pub rating: f64,
    pub text: String,
    pub author: String,
    pub created_at: String,
}

impl From<&Review> for ReviewLine {
    fn from(review: &Review) -> Self {
        ReviewLine {
            rating: rating(review.rating),
            text: review.text.clone(),
            author: review.author.clone(),
            created_at: review.created_at.clone(),
        }
    }
}

fn get_store_info_progress(lang: Lang, args: &GetStoreInfoArgs) -> String {
    let store = args.store_id.trim();
    match (lang, args.info_type) {
        (Lang::Zh, InfoType::Promotions) => format!("🏷️ 正在查看{store}的优惠…"),
        (Lang::Zh, InfoType::Reviews) => format!("⭐ 正在查看{store}的评价…"),
        (Lang::Zh, InfoType::Basic) => format!("🏬 正在查看{store}的信息…"),
        (Lang::En, InfoType::Promotions) => format!("🏷️ Checking deals at {store}…"),
        (Lang::En, InfoType::Reviews) => format!("⭐ Reading reviews of {store}…"),
        (Lang::En, InfoType::Basic) => format!("🏬 Looking up {store}…"),
    }
}

/// A store's basics (floor, unit, opening hours, phone), its current
/// promotions, or its reviews with the average rating.
#[tool_function(level = "safe", scope = "both", progress = get_store_info_progress, help = crate::search::HELP_STORES)]
pub async fn get_store_info(ctx: &ToolContext, args: GetStoreInfoArgs) -> ToolResult<StoreInfoResult> {
    let store = find_store(ctx, "store_id", &args.store_id).await?;
    let short =
        StoreName { store_id: store.id.clone(), name: store.name.clone(), name_en: store.name_en.clone() };
    let result = match args.info_type {
        InfoType::Basic => StoreInfoResult::Basic { store: StoreCard::from(&store) },
        InfoType::Promotions => {
            let promotions = ctx.mall.store_promotions(&store.id).await?.items;
            let promotions = promotions
                .iter()
                .map(|p| PromotionLine {
                    title: p.title.clone(),
                    description: p.description.clone(),
                    valid_until: p.valid_until.clone(),
                })
                .collect();
            StoreInfoResult::Promotions { store: short, promotions }
        }
        InfoType::Reviews => {
            let reviews = ctx.mall.store_reviews(&store.id, PageRequest::first(RATED_REVIEWS)).await?.items;
            StoreInfoResult::Reviews {
                store: short,
                average_rating: average_rating(&reviews),
                reviews: reviews.iter().take(SHOWN_REVIEWS).map(ReviewLine::from).collect(),
            }
        }
    };
    Ok(ToolOutput::new(result)
        .with_suggestions([navigate_suggestion(ctx.lang, store_name(ctx.lang, &store))]))
}

/// The mean rating, one decimal; `None` without reviews.
fn average_rating(reviews: &[Review]) -> Option<f64> {
    if reviews.is_empty() {
        return None;
    }
    let sum: f64 = reviews.iter().map(|r| f64::from(r.rating)).sum();
    Some((sum / reviews.len() as f64 * 10.0).round() / 10.0)
}
