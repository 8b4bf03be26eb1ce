//! Details: one product with its sizes and store, one store's basics,
//! promotions or reviews.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::{PageRequest, Product, Review};

use crate::format::{mall_text, navigate_suggestion, product_name, store_name};
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
    pub product_id: String,
}

/// What `get_product_detail` returns: one product in full, named in the
/// shopper's language; what is unknown or empty is left out.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProductDetail {
    pub product_id: String,
    pub name: String,
    pub brand: String,
    pub category: String,
    pub price_yuan: Yuan,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Set only when nothing is in stock.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sold_out: bool,
    /// The sizes in stock, for a product the mall lists without SKUs
    /// (with SKUs, each SKU says its stock).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skus: Vec<SkuLine>,
    pub store: StoreRef,
}

/// One size of a product; its price only when it differs from the product's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SkuLine {
    pub sku_id: String,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_yuan: Option<Yuan>,
    pub stock: u32,
}

impl ProductDetail {
    fn new(product: &Product, store: StoreRef, lang: Lang) -> Self {
        let brief = &product.brief;
        let sizes = if product.skus.is_empty() { brief.sizes.clone() } else { Vec::new() };
        let skus = product
            .skus
            .iter()
            .map(|s| SkuLine {
                sku_id: s.sku_id.clone(),
                label: mall_text(lang, &s.label).into_owned(),
                price_yuan: (s.price_cents != brief.price_cents).then_some(Yuan(s.price_cents)),
                stock: s.stock,
            })
            .collect();
        ProductDetail {
            product_id: brief.id.clone(),
            name: product_name(lang, brief).into_owned(),
            brand: brief.brand.clone(),
            category: mall_text(lang, &brief.category).into_owned(),
            price_yuan: Yuan(brief.price_cents),
            rating: Some(rating(brief.rating)),
            description: mall_text(lang, &product.description).into_owned(),
            sold_out: !brief.in_stock,
            sizes,
            skus,
            store,
        }
    }
}

fn get_product_detail_progress(lang: Lang, _args: &GetProductDetailArgs) -> String {
    match lang {
        Lang::En => "📦 Looking at the product…",
        _ => "📦 正在查看商品详情…",
    }
    .to_owned()
}

/// A product's description, sizes (SKUs) with stock, store and floor.
#[tool_function(level = "safe", scope = "both", progress = get_product_detail_progress, help = crate::search::HELP_PRODUCTS)]
pub async fn get_product_detail(ctx: &ToolContext, args: GetProductDetailArgs) -> ToolResult<ProductDetail> {
    let product = ctx.mall.get_product(args.product_id.trim()).await?;
    let store = match store_for_display(ctx, &product.brief.store_id).await {
        Some(store) => StoreRef::new(&store, ctx.lang),
        None => StoreRef::unknown(&product.brief.store_id, Some(&product.brief.store_name)),
    };
    let image = product.images.first().cloned();
    let detail = ProductDetail::new(&product, store, ctx.lang);
    let store_name = detail.store.name.clone();
    let mut output = ToolOutput::new(detail).with_suggestions([
        ctx.lang.texts().tools.add_to_cart.to_owned(),
        navigate_suggestion(ctx.lang, &store_name),
    ]);
    output.image = image;
    Ok(output)
}

// Which part of a store's information to get (no doc comment: the schema
// would repeat it to the model in every request).
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
    /// Id or name.
    pub store_id: String,
    pub info_type: InfoType,
}

/// What `get_store_info` returns, by `info_type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
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
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct StoreName {
    pub store_id: String,
    pub name: String,
    pub name_en: String,
}

impl StoreName {
    /// The name in the shopper's language.
    pub fn local_name(&self, lang: Lang) -> std::borrow::Cow<'_, str> {
        crate::format::local_name(lang, &self.name, Some(&self.name_en))
    }
}

/// A current offer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PromotionLine {
    pub title: String,
    pub description: String,
    pub valid_until: String,
}

/// A shopper's review.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ReviewLine {
    pub rating: f64,
    pub text: String,
    pub author: String,
    pub created_at: String,
}

impl ReviewLine {
    /// The review, its text as the shopper's language shows it.
    fn new(review: &Review, lang: Lang) -> Self {
        ReviewLine {
            rating: rating(review.rating),
            text: mall_text(lang, &review.text).into_owned(),
            author: review.author.clone(),
            created_at: review.created_at.clone(),
        }
    }
}

fn get_store_info_progress(lang: Lang, args: &GetStoreInfoArgs) -> String {
    let store = args.store_id.trim();
    match (lang, args.info_type) {
        (Lang::En, InfoType::Promotions) => format!("🏷️ Checking deals at {store}…"),
        (Lang::En, InfoType::Reviews) => format!("⭐ Reading reviews of {store}…"),
        (Lang::En, InfoType::Basic) => format!("🏬 Looking up {store}…"),
        (_, InfoType::Promotions) => format!("🏷️ 正在查看{store}的优惠…"),
        (_, InfoType::Reviews) => format!("⭐ 正在查看{store}的评价…"),
        (_, InfoType::Basic) => format!("🏬 正在查看{store}的信息…"),
    }
}

/// A store's basics (floor, hours, phone), promotions or reviews.
#[tool_function(level = "safe", scope = "both", progress = get_store_info_progress, help = crate::search::HELP_STORES)]
pub async fn get_store_info(ctx: &ToolContext, args: GetStoreInfoArgs) -> ToolResult<StoreInfoResult> {
    let store = find_store(ctx, "store_id", &args.store_id).await?;
    let short =
        StoreName { store_id: store.id.clone(), name: store.name.clone(), name_en: store.name_en.clone() };
    let result = match args.info_type {
        InfoType::Basic => StoreInfoResult::Basic { store: StoreCard::new(&store, ctx.lang) },
        InfoType::Promotions => {
            let promotions = ctx.mall.store_promotions(&store.id).await?.items;
            let promotions = promotions
                .iter()
                .map(|p| PromotionLine {
                    title: mall_text(ctx.lang, &p.title).into_owned(),
                    description: mall_text(ctx.lang, &p.description).into_owned(),
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
                reviews: reviews.iter().take(SHOWN_REVIEWS).map(|r| ReviewLine::new(r, ctx.lang)).collect(),
            }
        }
    };
    Ok(ToolOutput::new(result)
        .with_suggestions([navigate_suggestion(ctx.lang, &store_name(ctx.lang, &store))]))
}

/// The mean rating, one decimal; `None` without reviews.
fn average_rating(reviews: &[Review]) -> Option<f64> {
    if reviews.is_empty() {
        return None;
    }
    let sum: f64 = reviews.iter().map(|r| f64::from(r.rating)).sum();
    Some((sum / reviews.len() as f64 * 10.0).round() / 10.0)
}
