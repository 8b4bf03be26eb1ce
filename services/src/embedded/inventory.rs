//! [`Inventory`]: the current price and stock of every SKU, mirrored in
//! memory from SQLite so that search and product pages read them without
//! touching the database.
//!
//! Only code holding the database lock writes here, right after its
//! transaction commits, so the mirror matches the database for every writer.

use std::sync::atomic::{AtomicI64, AtomicU32, Ordering};

use super::catalog::{Catalog, Levels};

/// Current prices and stock by slot, and their per-product aggregates.
pub(crate) struct Inventory {
    price: Vec<AtomicI64>,
    stock: Vec<AtomicU32>,
    products: Vec<ProductLevel>,
}

/// What search reads of every candidate product, together in one cache line.
struct ProductLevel {
    /// The lowest price of the product's slots.
    price: AtomicI64,
    /// Stock over all the product's slots.
    stock: AtomicU32,
    /// The catalog's rating, in hundredths.
    rating: u16,
}

impl Inventory {
    /// The catalog's own prices and stock.
    pub fn new(catalog: &Catalog) -> Self {
        Inventory {
            price: catalog.slots.iter().map(|s| AtomicI64::new(s.price_cents)).collect(),
            stock: catalog.slots.iter().map(|s| AtomicU32::new(s.stock)).collect(),
            products: (0..catalog.products.len() as u32)
                .map(|p| ProductLevel {
                    price: AtomicI64::new(catalog.product_price(p)),
                    stock: AtomicU32::new(catalog.product_stock(p)),
                    rating: catalog.product_rating(p),
                })
                .collect(),
        }
    }

    /// Sets a slot's stock and refreshes its product's aggregates.
    pub fn set_stock(&self, catalog: &Catalog, slot: u32, stock: u32) {
        self.stock[slot as usize].store(stock, Ordering::Relaxed);
        self.refresh(catalog, catalog.slots[slot as usize].product);
    }

    /// Sets a slot's price and refreshes its product's aggregates.
    pub fn set_price(&self, catalog: &Catalog, slot: u32, cents: i64) {
        self.price[slot as usize].store(cents, Ordering::Relaxed);
        self.refresh(catalog, catalog.slots[slot as usize].product);
    }

    fn refresh(&self, catalog: &Catalog, product: u32) {
        let slots = catalog.product_slots(product);
        let level = &self.products[product as usize];
        level.price.store(slots.clone().map(|s| self.price(s)).min().unwrap_or(0), Ordering::Relaxed);
        level.stock.store(slots.map(|s| self.stock(s)).sum(), Ordering::Relaxed);
    }
}

impl Levels for Inventory {
    fn price(&self, slot: u32) -> i64 {
        self.price[slot as usize].load(Ordering::Relaxed)
    }

    fn stock(&self, slot: u32) -> u32 {
        self.stock[slot as usize].load(Ordering::Relaxed)
    }

    fn product_price(&self, product: u32) -> i64 {
        self.products[product as usize].price.load(Ordering::Relaxed)
    }

    fn product_stock(&self, product: u32) -> u32 {
        self.products[product as usize].stock.load(Ordering::Relaxed)
    }

    fn product_rating(&self, product: u32) -> u16 {
        self.products[product as usize].rating
    }
}
