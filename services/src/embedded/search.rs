//! Product and store search over the catalog's indexes: keyword (Chinese or
//! English), price bounds, brand, category and floor filters, best match first.

use crate::models::{Page, ProductBrief, ProductQuery, Store, StoreQuery};

use super::catalog::{Catalog, Levels, field};
use super::index::{Fields, Filter, InvertedIndex, TopK, Weights, rank_key};
use super::text::{ConceptKind, Lexicon};

/// Relevance of a product term by where it was found: brand and category
/// matches count most, then the name, then SKU labels.
const PRODUCT_WEIGHTS: Weights = Weights::new(&[
    (field::BRAND, 30),
    (field::CATEGORY, 20),
    (field::PARENT, 12),
    (field::NAME, 10),
    (field::DETAIL, 4),
]);

/// Relevance of a store term: the store's name first, then its category,
/// tags and what it sells.
const STORE_WEIGHTS: Weights = Weights::new(&[
    (field::NAME, 30),
    (field::CATEGORY, 20),
    (field::PARENT, 12),
    (field::DETAIL, 8),
    (field::SELLS, 6),
]);

/// Among equally relevant products: in stock first, then the better rated.
fn product_tiebreak(in_stock: bool, rating_hundredths: u16) -> u16 {
    (u16::from(in_stock) << 15) | rating_hundredths.min(0x7FFF)
}

fn nonblank(value: &Option<String>) -> Option<&str> {
    value.as_deref().map(str::trim).filter(|v| !v.is_empty())
}

/// A category filter: the category concepts named in `value` (in a
/// document's category or its parents); when it names none, its words
/// anywhere in the document.
fn category_filters(index: &InvertedIndex, lexicon: &Lexicon, value: &str) -> Vec<Filter> {
    index
        .concept_filters(lexicon, value, ConceptKind::Category, field::CATEGORY | field::PARENT)
        .unwrap_or_else(|| index.query_filters(&index.parse(lexicon, value), Fields::MAX))
}

impl Catalog {
    /// Searches products at the catalog's own prices and stock.
    pub fn search_products(&self, query: &ProductQuery) -> Page<ProductBrief> {
        self.search_products_at(query, self)
    }

    /// Searches products at the given current prices and stock.
    pub(crate) fn search_products_at(
        &self,
        query: &ProductQuery,
        levels: &(impl Levels + ?Sized),
    ) -> Page<ProductBrief> {
        let index = &self.product_index;
        let parsed = index.parse(&self.lexicon, query.keyword.as_deref().unwrap_or(""));
        let mut filters = Vec::new();
        if let Some(brand) = nonblank(&query.brand) {
            filters.extend(
                index
                    .concept_filters(&self.lexicon, brand, ConceptKind::Brand, field::BRAND)
                    .unwrap_or_else(|| vec![Filter::nothing()]),
            );
        }
        if let Some(category) = nonblank(&query.category) {
            filters.extend(category_filters(index, &self.lexicon, category));
        }
        let (min, max) = (query.min_price_cents, query.max_price_cents);
        let within_budget = |doc: u32| {
            let price = levels.product_price(doc);
            min.is_none_or(|m| price >= m) && max.is_none_or(|m| price <= m)
        };
        let (offset, limit) = (query.page.offset() as usize, query.page.limit() as usize);
        let mut top = TopK::new(offset.saturating_add(limit));
        index.evaluate(&parsed, &filters, within_budget, &PRODUCT_WEIGHTS, |doc, score| {
            let tiebreak = product_tiebreak(levels.product_stock(doc) > 0, levels.product_rating(doc));
            top.offer(rank_key(score, tiebreak, doc));
        });
        let total = top.total();
        Page { items: top.page(offset).into_iter().map(|hit| self.brief(hit.doc, levels)).collect(), total }
    }

    /// Searches stores by keyword (name, category, tags, what they sell),
    /// category and floor; equally good matches in floor order.
    pub fn search_stores(&self, query: &StoreQuery) -> Page<Store> {
        let index = &self.store_index;
        let parsed = index.parse(&self.lexicon, query.keyword.as_deref().unwrap_or(""));
        let filters = nonblank(&query.category)
            .map(|category| category_filters(index, &self.lexicon, category))
            .unwrap_or_default();
        let on_floor = |doc: u32| query.floor.is_none_or(|f| self.stores[doc as usize].store.floor == f);
        let (offset, limit) = (query.page.offset() as usize, query.page.limit() as usize);
        let mut top = TopK::new(offset.saturating_add(limit));
        index.evaluate(&parsed, &filters, on_floor, &STORE_WEIGHTS, |doc, score| {
            top.offer(rank_key(score, 0, doc))
        });
        let total = top.total();
        let items =
            top.page(offset).into_iter().map(|hit| self.stores[hit.doc as usize].store.clone()).collect();
        Page { items, total }
    }
}
