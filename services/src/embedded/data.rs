//! The shape of `services/data/demo-mall.json`: the demo mall's floors,
//! areas, stores, products and the words shoppers use for them.

use serde::{Deserialize, Serialize};

use crate::models::{Area, Promotion, Review, Sku, Store};

/// The whole catalog file.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CatalogData {
    pub mall: MallInfo,
    pub floors: Vec<Floor>,
    pub areas: Vec<Area>,
    pub categories: Vec<CategoryData>,
    pub brands: Vec<BrandData>,
    /// Groups of words with one meaning ("黑色", "black").
    pub synonyms: Vec<Vec<String>>,
    /// Words that carry no meaning in a search ("帮我", "the").
    pub stopwords: Vec<String>,
    pub stores: Vec<StoreData>,
    pub products: Vec<ProductData>,
}

/// The mall itself.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct MallInfo {
    pub name: String,
    pub name_en: String,
    /// The id of the place routes start from by default (`main_entrance`).
    pub entrance: String,
    pub entrance_name: String,
}

/// A floor of the mall.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Floor {
    /// Floor number; basements are negative (B1 = -1).
    pub floor: i32,
    /// How the mall signs it: `B1`, `3F`.
    pub label: String,
    /// What is on it, in Chinese.
    pub name: String,
    pub name_en: String,
}

/// A product or store category and the words for it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CategoryData {
    pub id: String,
    pub name: String,
    pub name_en: String,
    /// Broader categories ("running_shoes" is in "shoes" and "sports").
    #[serde(default)]
    pub parents: Vec<String>,
    /// More words shoppers use for it, in either language.
    #[serde(default)]
    pub terms: Vec<String>,
}

/// A brand and its names.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct BrandData {
    pub id: String,
    /// The name as products carry it (`Nike`).
    pub name: String,
    pub name_zh: String,
    #[serde(default)]
    pub aliases: Vec<String>,
}

/// Which corridor leads from the atrium to a store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Wing {
    East,
    West,
    North,
    South,
}

/// Which hand a store is on, walking out from the atrium.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Side {
    Left,
    Right,
}

/// Where a store is on its floor, measured from the atrium escalators.
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub(crate) struct Position {
    pub wing: Wing,
    pub offset_m: u32,
    pub side: Side,
}

/// Directions from the main entrance.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct RouteData {
    pub steps: Vec<String>,
    pub distance_m: u32,
    pub eta_minutes: u32,
}

/// A store with its position, route, promotions and reviews.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct StoreData {
    #[serde(flatten)]
    pub store: Store,
    /// The brand the store is named after.
    pub brand: String,
    /// Where the store is from the atrium (the demo's corridors); a mall of its own
    /// leaves it out and gives directions by its indoor map.
    #[serde(default)]
    pub position: Option<Position>,
    /// Directions from the main entrance; without them, the floor and unit.
    #[serde(default)]
    pub route: Option<RouteData>,
    #[serde(default)]
    pub promotions: Vec<Promotion>,
    /// Newest first.
    #[serde(default)]
    pub reviews: Vec<Review>,
}

/// A product. Products without SKUs carry their own price and stock.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ProductData {
    pub id: String,
    pub store_id: String,
    pub brand: String,
    pub category: String,
    /// Chinese name.
    pub name: String,
    pub name_en: String,
    /// Chinese description.
    #[serde(default)]
    pub description: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_en: Option<String>,
    pub rating: f32,
    #[serde(default)]
    pub images: Vec<String>,
    #[serde(default)]
    pub skus: Vec<Sku>,
    #[serde(default)]
    pub price_cents: Option<i64>,
    #[serde(default)]
    pub stock: Option<u32>,
}
