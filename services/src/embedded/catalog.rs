//! [`Catalog`]: the demo mall's data (or a generated one), checked and
//! indexed for search, carts and routes.

use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::sync::{Arc, OnceLock};

use crate::models::{Area, Product, ProductBrief, Promotion, Review, Sku, Store};

use super::data::{CatalogData, CategoryData, Floor, MallInfo, ProductData, StoreData};
use super::index::{Fields, InvertedIndex};
use super::text::{ConceptKind, Entry, Lexicon, LexiconClash};

/// The demo catalog, kept in the repository as data.
pub(crate) const DEMO_JSON: &str = include_str!("../../data/demo-mall.json");

/// A catalog that cannot be used: bad JSON, a dangling id, a word with two meanings.
#[derive(Debug, thiserror::Error)]
pub enum CatalogError {
    /// The file is not JSON of the catalog's shape.
    #[error("the catalog is not valid: {0}")]
    Json(#[from] serde_json::Error),
    /// The data contradicts itself.
    #[error("the catalog is not consistent: {0}")]
    Invalid(String),
}

impl From<LexiconClash> for CatalogError {
    fn from(clash: LexiconClash) -> Self {
        CatalogError::Invalid(clash.to_string())
    }
}

/// Where in a document a search term was found.
pub(crate) mod field {
    use super::Fields;

    /// Product or store name, in either language.
    pub const NAME: Fields = 1;
    /// The product's brand.
    pub const BRAND: Fields = 2;
    /// The product's or store's own category.
    pub const CATEGORY: Fields = 4;
    /// A broader category of it.
    pub const PARENT: Fields = 8;
    /// A SKU label (products) or a tag (stores).
    pub const DETAIL: Fields = 16;
    /// What a store sells: its products' brands and categories.
    pub const SELLS: Fields = 32;
}

/// A product as the catalog keeps it.
#[derive(Debug, Clone)]
pub(crate) struct ProductRecord {
    pub id: String,
    pub name: String,
    pub name_en: String,
    pub brand: String,
    pub category: String,
    pub store: u32,
    pub rating: f32,
    pub description: String,
    pub description_en: Option<String>,
    pub images: Vec<String>,
    pub slots: Range<u32>,
    pub has_skus: bool,
}

/// One sellable unit with its own price and stock: a SKU, or a product
/// without SKUs (whose key is then the product id).
#[derive(Debug, Clone)]
pub(crate) struct Slot {
    pub key: String,
    pub label: Option<String>,
    pub product: u32,
    pub price_cents: i64,
    pub stock: u32,
}

/// Current prices and stock, by slot and by product.
pub(crate) trait Levels {
    fn price(&self, slot: u32) -> i64;
    fn stock(&self, slot: u32) -> u32;
    /// The lowest price of the product's slots.
    fn product_price(&self, product: u32) -> i64;
    /// The product's stock over all its slots.
    fn product_stock(&self, product: u32) -> u32;
    /// The product's rating in hundredths (0-500).
    fn product_rating(&self, product: u32) -> u16;
}

/// The mall's floors, areas, stores and products with their search indexes.
///
/// Prices and stock here are the catalog's; the embedded mall keeps the
/// current ones (after orders and price changes) in SQLite.
pub struct Catalog {
    pub(crate) mall: MallInfo,
    floors: Vec<Floor>,
    areas: Vec<Area>,
    pub(crate) stores: Vec<StoreData>,
    pub(crate) products: Vec<ProductRecord>,
    pub(crate) slots: Vec<Slot>,
    pub(crate) lexicon: Lexicon,
    pub(crate) product_index: InvertedIndex,
    pub(crate) store_index: InvertedIndex,
    store_ids: HashMap<String, u32>,
    product_ids: SortedIds,
    slot_ids: SortedIds,
    area_ids: HashMap<String, u32>,
}

impl Catalog {
    /// The demo mall (`services/data/demo-mall.json`), parsed once per process.
    pub fn demo() -> Arc<Catalog> {
        static DEMO: OnceLock<Arc<Catalog>> = OnceLock::new();
        DEMO.get_or_init(|| {
            let started = std::time::Instant::now();
            let catalog =
                Catalog::from_json(DEMO_JSON).expect("the demo catalog is valid (checked by tests)");
            tracing::debug!(
                products = catalog.products.len(),
                elapsed_ms = started.elapsed().as_millis() as u64,
                "demo catalog loaded"
            );
            Arc::new(catalog)
        })
        .clone()
    }

    /// A catalog from JSON of the demo file's shape.
    pub fn from_json(json: &str) -> Result<Catalog, CatalogError> {
        Catalog::from_data(serde_json::from_str(json)?)
    }

    /// Checks the data and builds the indexes.
    pub(crate) fn from_data(data: CatalogData) -> Result<Catalog, CatalogError> {
        let CatalogData { mall, floors, areas, categories, brands, synonyms, stopwords, stores, products } =
            data;
        let store_ids = unique_ids("store", stores.iter().map(|s| s.store.id.as_str()))?;
        let area_ids = unique_ids("area", areas.iter().map(|a| a.id.as_str()))?;
        check_places(&floors, &areas, &stores, &store_ids, &area_ids)?;

        let mut lexicon = Lexicon::default();
        let mut brand_concepts = HashMap::new();
        for brand in &brands {
            let c = lexicon.concept(ConceptKind::Brand, &brand.id);
            for word in [&brand.name, &brand.name_zh].into_iter().chain(&brand.aliases) {
                lexicon.add(word, Entry::Concept(c))?;
            }
            brand_concepts.insert(brand.name.to_lowercase(), c);
        }
        let category_ancestry = ancestry(&categories)?;
        for category in &categories {
            let c = lexicon.concept(ConceptKind::Category, &category.id);
            for word in [&category.id, &category.name, &category.name_en].into_iter().chain(&category.terms) {
                lexicon.add(word, Entry::Concept(c))?;
            }
        }
        for group in &synonyms {
            let Some(first) = group.first() else { continue };
            let c = lexicon.concept(ConceptKind::Synonym, first);
            for word in group {
                lexicon.add(word, Entry::Concept(c))?;
            }
        }
        for word in &stopwords {
            lexicon.add(word, Entry::Stop)?;
        }

        let (records, slots) = product_records(products, &store_ids)?;
        let product_ids = SortedIds::new("product", records.len(), |i| records[i as usize].id.as_str())?;
        let slot_ids = SortedIds::new("SKU or product", slots.len(), |i| slots[i as usize].key.as_str())?;
        let mut catalog = Catalog {
            mall,
            floors,
            areas,
            stores,
            products: records,
            slots,
            lexicon,
            product_index: InvertedIndex::default(),
            store_index: InvertedIndex::default(),
            store_ids,
            product_ids,
            slot_ids,
            area_ids,
        };
        let concepts = Concepts { brands: brand_concepts, ancestry: category_ancestry };
        catalog.index_products(&concepts)?;
        catalog.index_stores(&concepts)?;
        Ok(catalog)
    }

    fn index_products(&mut self, concepts: &Concepts) -> Result<(), CatalogError> {
        let mut index = InvertedIndex::default();
        for (doc, p) in self.products.iter().enumerate() {
            let doc = doc as u32;
            index.add_text(&self.lexicon, doc, &p.name, field::NAME);
            index.add_text(&self.lexicon, doc, &p.name_en, field::NAME);
            index.add_concept(doc, concepts.brand(&p.brand, &p.id)?, field::BRAND);
            for (i, c) in concepts.categories(&self.lexicon, &p.category, &p.id)?.into_iter().enumerate() {
                index.add_concept(doc, c, if i == 0 { field::CATEGORY } else { field::PARENT });
            }
            for slot in &self.slots[p.slots.start as usize..p.slots.end as usize] {
                if let Some(label) = &slot.label {
                    index.add_text(&self.lexicon, doc, label, field::DETAIL);
                }
            }
        }
        index.reserve_docs(self.products.len() as u32);
        self.product_index = index;
        Ok(())
    }

    fn index_stores(&mut self, concepts: &Concepts) -> Result<(), CatalogError> {
        let mut sells: Vec<HashSet<u32>> = vec![HashSet::new(); self.stores.len()];
        for p in &self.products {
            let set = &mut sells[p.store as usize];
            set.insert(concepts.brand(&p.brand, &p.id)?);
            set.extend(concepts.categories(&self.lexicon, &p.category, &p.id)?);
        }
        let mut index = InvertedIndex::default();
        for (doc, s) in self.stores.iter().enumerate() {
            let doc_id = doc as u32;
            for text in [&s.store.name, &s.store.name_en, &s.brand] {
                index.add_text(&self.lexicon, doc_id, text, field::NAME);
            }
            for (i, c) in
                concepts.categories(&self.lexicon, &s.store.category, &s.store.id)?.into_iter().enumerate()
            {
                index.add_concept(doc_id, c, if i == 0 { field::CATEGORY } else { field::PARENT });
            }
            for tag in &s.store.tags {
                index.add_text(&self.lexicon, doc_id, tag, field::DETAIL);
            }
            let mut sold: Vec<u32> = sells[doc].iter().copied().collect();
            sold.sort_unstable();
            for c in sold {
                index.add_concept(doc_id, c, field::SELLS);
            }
        }
        index.reserve_docs(self.stores.len() as u32);
        self.store_index = index;
        Ok(())
    }

    /// The mall's name, in Chinese and English.
    pub fn name(&self) -> (&str, &str) {
        (&self.mall.name, &self.mall.name_en)
    }

    /// The floors, lowest first.
    pub fn floors(&self) -> &[Floor] {
        &self.floors
    }

    /// The areas, in the order of the catalog.
    pub fn areas(&self) -> &[Area] {
        &self.areas
    }

    /// The area with this id.
    pub fn area(&self, id: &str) -> Option<&Area> {
        self.area_ids.get(id).map(|&i| &self.areas[i as usize])
    }

    /// The stores, in the order of the catalog (by floor).
    pub fn stores(&self) -> impl ExactSizeIterator<Item = &Store> {
        self.stores.iter().map(|s| &s.store)
    }

    /// The store with this id.
    pub fn store(&self, id: &str) -> Option<&Store> {
        self.store_index_of(id).map(|i| &self.stores[i as usize].store)
    }

    pub(crate) fn store_index_of(&self, id: &str) -> Option<u32> {
        self.store_ids.get(id).copied()
    }

    /// A store's promotions.
    pub fn promotions(&self, store_id: &str) -> Option<&[Promotion]> {
        self.store_index_of(store_id).map(|i| self.stores[i as usize].promotions.as_slice())
    }

    /// A store's reviews, newest first.
    pub fn reviews(&self, store_id: &str) -> Option<&[Review]> {
        self.store_index_of(store_id).map(|i| self.stores[i as usize].reviews.as_slice())
    }

    /// Number of products.
    pub fn product_count(&self) -> usize {
        self.products.len()
    }

    /// Number of sellable units: SKUs, plus products without SKUs.
    pub fn sku_count(&self) -> usize {
        self.slots.len()
    }

    /// Number of distinct terms (words, Chinese bigrams, concepts) in the product index.
    pub fn indexed_terms(&self) -> usize {
        self.product_index.terms()
    }

    /// The ids of all products, in catalog order.
    pub fn product_ids(&self) -> impl ExactSizeIterator<Item = &str> {
        self.products.iter().map(|p| p.id.as_str())
    }

    /// A product with the catalog's prices and stock.
    pub fn product(&self, id: &str) -> Option<Product> {
        self.product_index_of(id).map(|p| self.product_view(p, self))
    }

    /// The English name of a product.
    pub fn product_name_en(&self, id: &str) -> Option<&str> {
        self.product_index_of(id).map(|p| self.products[p as usize].name_en.as_str())
    }

    pub(crate) fn product_index_of(&self, id: &str) -> Option<u32> {
        self.product_ids.find(id, |i| self.products[i as usize].id.as_str())
    }

    pub(crate) fn slot_index_of(&self, key: &str) -> Option<u32> {
        self.slot_ids.find(key, |i| self.slots[i as usize].key.as_str())
    }

    /// The slots of a product.
    pub(crate) fn product_slots(&self, product: u32) -> Range<u32> {
        self.products[product as usize].slots.clone()
    }

    /// A product as listed in search results, at the given levels.
    pub(crate) fn brief(&self, product: u32, levels: &(impl Levels + ?Sized)) -> ProductBrief {
        let p = &self.products[product as usize];
        let store = &self.stores[p.store as usize].store;
        let sizes = if p.has_skus {
            self.product_slots(product)
                .filter(|&s| levels.stock(s) > 0)
                .filter_map(|s| self.slots[s as usize].label.clone())
                .collect()
        } else {
            Vec::new()
        };
        ProductBrief {
            id: p.id.clone(),
            name: p.name.clone(),
            name_en: Some(p.name_en.clone()).filter(|n| !n.trim().is_empty()),
            brand: p.brand.clone(),
            category: p.category.clone(),
            price_cents: levels.product_price(product),
            rating: p.rating,
            store_id: store.id.clone(),
            store_name: store.name.clone(),
            in_stock: levels.product_stock(product) > 0,
            sizes,
        }
    }

    /// A product with its SKUs, at the given levels.
    pub(crate) fn product_view(&self, product: u32, levels: &(impl Levels + ?Sized)) -> Product {
        let p = &self.products[product as usize];
        let skus = if p.has_skus {
            self.product_slots(product)
                .map(|s| {
                    let slot = &self.slots[s as usize];
                    Sku {
                        sku_id: slot.key.clone(),
                        label: slot.label.clone().unwrap_or_default(),
                        price_cents: levels.price(s),
                        stock: levels.stock(s),
                    }
                })
                .collect()
        } else {
            Vec::new()
        };
        Product {
            brief: self.brief(product, levels),
            description: p.description.clone(),
            description_en: p.description_en.clone(),
            skus,
            images: p.images.clone(),
        }
    }
}

impl Catalog {
    /// A product as data again, at the catalog's prices and stock (to keep it in a newer
    /// version of the mall while an order holds it).
    pub(crate) fn product_data(&self, product: u32) -> ProductData {
        let p = &self.products[product as usize];
        let slots = &self.slots[p.slots.start as usize..p.slots.end as usize];
        let own = (!p.has_skus).then(|| &slots[0]);
        ProductData {
            id: p.id.clone(),
            store_id: self.stores[p.store as usize].store.id.clone(),
            brand: p.brand.clone(),
            category: p.category.clone(),
            name: p.name.clone(),
            name_en: p.name_en.clone(),
            description: p.description.clone(),
            description_en: p.description_en.clone(),
            rating: p.rating,
            images: p.images.clone(),
            skus: if p.has_skus {
                slots
                    .iter()
                    .map(|s| Sku {
                        sku_id: s.key.clone(),
                        label: s.label.clone().unwrap_or_default(),
                        price_cents: s.price_cents,
                        stock: s.stock,
                    })
                    .collect()
            } else {
                Vec::new()
            },
            price_cents: own.map(|s| s.price_cents),
            stock: own.map(|s| s.stock),
        }
    }

    /// The store a product is in, as data.
    pub(crate) fn store_data_of(&self, product: u32) -> &StoreData {
        &self.stores[self.products[product as usize].store as usize]
    }
}

impl std::fmt::Debug for Catalog {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Catalog")
            .field("name", &self.mall.name_en)
            .field("floors", &self.floors.len())
            .field("areas", &self.areas.len())
            .field("stores", &self.stores.len())
            .field("products", &self.products.len())
            .field("skus", &self.slots.len())
            .finish()
    }
}

impl Levels for Catalog {
    fn price(&self, slot: u32) -> i64 {
        self.slots[slot as usize].price_cents
    }

    fn stock(&self, slot: u32) -> u32 {
        self.slots[slot as usize].stock
    }

    fn product_price(&self, product: u32) -> i64 {
        self.product_slots(product).map(|s| self.price(s)).min().unwrap_or(0)
    }

    fn product_stock(&self, product: u32) -> u32 {
        self.product_slots(product).map(|s| self.stock(s)).sum()
    }

    fn product_rating(&self, product: u32) -> u16 {
        (self.products[product as usize].rating * 100.0).round() as u16
    }
}

/// Brand and category concepts for indexing.
struct Concepts {
    brands: HashMap<String, u32>,
    /// Category id → the category and its ancestors, nearest first.
    ancestry: HashMap<String, Vec<String>>,
}

impl Concepts {
    fn brand(&self, name: &str, owner: &str) -> Result<u32, CatalogError> {
        self.brands
            .get(&name.to_lowercase())
            .copied()
            .ok_or_else(|| CatalogError::Invalid(format!("{owner} names an unknown brand `{name}`")))
    }

    /// The category's concept followed by those of its ancestors.
    fn categories(&self, lexicon: &Lexicon, id: &str, owner: &str) -> Result<Vec<u32>, CatalogError> {
        let chain = self
            .ancestry
            .get(id)
            .ok_or_else(|| CatalogError::Invalid(format!("{owner} names an unknown category `{id}`")))?;
        Ok(chain.iter().filter_map(|c| lexicon.find(ConceptKind::Category, c)).collect())
    }
}

/// For every category: itself, then its ancestors (each once), nearest first.
fn ancestry(categories: &[CategoryData]) -> Result<HashMap<String, Vec<String>>, CatalogError> {
    let parents: HashMap<&str, &[String]> =
        categories.iter().map(|c| (c.id.as_str(), c.parents.as_slice())).collect();
    let mut out = HashMap::new();
    for category in categories {
        let mut chain = vec![category.id.clone()];
        let mut next = 0;
        while next < chain.len() {
            let id = chain[next].clone();
            let ups = parents.get(id.as_str()).ok_or_else(|| {
                CatalogError::Invalid(format!("category `{}` has an unknown parent `{id}`", category.id))
            })?;
            for up in ups.iter() {
                if !chain.contains(up) {
                    chain.push(up.clone());
                }
            }
            next += 1;
        }
        out.insert(category.id.clone(), chain);
    }
    Ok(out)
}

/// The ids of many records (products, SKUs) kept once, in the records: the records'
/// indices sorted by id, searched by halving (a map of the ids would hold each again).
#[derive(Debug, Default)]
struct SortedIds(Vec<u32>);

impl SortedIds {
    /// The order of `count` records by `id`; an id used twice is refused.
    fn new<'a>(what: &str, count: usize, id: impl Fn(u32) -> &'a str) -> Result<Self, CatalogError> {
        let mut order: Vec<u32> = (0..count as u32).collect();
        order.sort_unstable_by(|&a, &b| id(a).cmp(id(b)));
        if let Some(pair) = order.windows(2).find(|pair| id(pair[0]) == id(pair[1])) {
            return Err(CatalogError::Invalid(format!("{what} id `{}` is used twice", id(pair[0]))));
        }
        Ok(SortedIds(order))
    }

    /// The record with this id.
    fn find<'a>(&self, wanted: &str, id: impl Fn(u32) -> &'a str) -> Option<u32> {
        self.0.binary_search_by(|&i| id(i).cmp(wanted)).ok().map(|at| self.0[at])
    }
}

fn unique_ids<'a>(
    what: &str,
    ids: impl Iterator<Item = &'a str>,
) -> Result<HashMap<String, u32>, CatalogError> {
    let mut out = HashMap::new();
    for (i, id) in ids.enumerate() {
        if out.insert(id.to_owned(), i as u32).is_some() {
            return Err(CatalogError::Invalid(format!("{what} id `{id}` is used twice")));
        }
    }
    Ok(out)
}

fn check_places(
    floors: &[Floor],
    areas: &[Area],
    stores: &[StoreData],
    store_ids: &HashMap<String, u32>,
    area_ids: &HashMap<String, u32>,
) -> Result<(), CatalogError> {
    let floor_known = |f: i32| floors.iter().any(|x| x.floor == f);
    for area in areas {
        if !floor_known(area.floor) {
            return Err(CatalogError::Invalid(format!(
                "area {} is on unknown floor {}",
                area.id, area.floor
            )));
        }
        if let Some(missing) = area.store_ids.iter().find(|s| !store_ids.contains_key(*s)) {
            return Err(CatalogError::Invalid(format!("area {} lists unknown store {missing}", area.id)));
        }
    }
    for s in stores {
        if !area_ids.contains_key(&s.store.area_id) || !floor_known(s.store.floor) {
            return Err(CatalogError::Invalid(format!(
                "store {} is in an unknown area or floor",
                s.store.id
            )));
        }
    }
    Ok(())
}

fn product_records(
    products: Vec<ProductData>,
    store_ids: &HashMap<String, u32>,
) -> Result<(Vec<ProductRecord>, Vec<Slot>), CatalogError> {
    let mut records = Vec::with_capacity(products.len());
    let mut slots = Vec::with_capacity(products.len() * 4);
    for (index, p) in products.into_iter().enumerate() {
        let store = *store_ids.get(&p.store_id).ok_or_else(|| {
            CatalogError::Invalid(format!("product {} is in unknown store {}", p.id, p.store_id))
        })?;
        if !(0.0..=5.0).contains(&p.rating) {
            return Err(CatalogError::Invalid(format!(
                "product {} has rating {} outside 0-5",
                p.id, p.rating
            )));
        }
        let first = slots.len() as u32;
        let has_skus = !p.skus.is_empty();
        if has_skus {
            slots.extend(p.skus.into_iter().map(|sku| Slot {
                key: sku.sku_id,
                label: Some(sku.label),
                product: index as u32,
                price_cents: sku.price_cents,
                stock: sku.stock,
            }));
        } else {
            let (Some(price_cents), Some(stock)) = (p.price_cents, p.stock) else {
                return Err(CatalogError::Invalid(format!(
                    "product {} has neither SKUs nor price and stock",
                    p.id
                )));
            };
            slots.push(Slot { key: p.id.clone(), label: None, product: index as u32, price_cents, stock });
        }
        records.push(ProductRecord {
            id: p.id,
            name: p.name,
            name_en: p.name_en,
            brand: p.brand,
            category: p.category,
            store,
            rating: p.rating,
            description: p.description,
            description_en: p.description_en.filter(|d| !d.trim().is_empty()),
            images: p.images,
            slots: first..slots.len() as u32,
            has_skus,
        });
    }
    Ok((records, slots))
}
