//! Stock and prices in the database, and the mall's data kept in step with
//! them: on open and on every reload, what the files say of each SKU's stock
//! and price is compared with what they said last time (kept in
//! `inventory.file_stock`/`file_price`), and what changed is applied
//! ([`apply_changes`]) — so an operator's edit reaches shoppers, while sales
//! since the last edit stay counted.

use rusqlite::{Connection, Transaction, TransactionBehavior, params};

use super::catalog::Catalog;
use super::clock::{rfc3339, unix_now};
use super::db::{OpError, ProductChange, append_product_event, forget_old_keys};
use super::inventory::Inventory;
use crate::models::EventKind;

/// Stock and price changes of a transaction, mirrored in memory once it commits.
#[derive(Debug, Default)]
pub(crate) struct Changes {
    pub stock: Vec<(u32, u32)>,
    pub price: Vec<(u32, i64)>,
}

/// Writes a slot's stock (an operator's or the mall's files'), to be mirrored on commit.
/// Every stock an operator sets passes here: `MallState::set_stock` and the files'
/// changes ([`apply_changes`]).
pub(crate) fn write_stock(
    tx: &Transaction,
    changes: &mut Changes,
    slot: u32,
    key: &str,
    stock: u32,
) -> Result<(), OpError> {
    tx.execute("UPDATE inventory SET stock = ?1 WHERE slot = ?2", params![stock, key])?;
    changes.stock.push((slot, stock));
    Ok(())
}

/// Writes a slot's price, to be mirrored on commit. Every price an operator sets passes
/// here: `MallState::set_price` and the files' changes ([`apply_changes`]).
pub(crate) fn write_price(
    tx: &Transaction,
    changes: &mut Changes,
    slot: u32,
    key: &str,
    cents: i64,
) -> Result<(), OpError> {
    tx.execute("UPDATE inventory SET price_cents = ?1 WHERE slot = ?2", params![cents, key])?;
    changes.price.push((slot, cents));
    Ok(())
}

/// A SKU whose price or stock the mall's files changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogChange {
    pub product_id: String,
    /// The SKU, or the product's own id when it has no SKUs.
    pub sku_id: String,
    /// The price shoppers saw before and the file's new one, in fen, when it changed.
    pub price: Option<(i64, i64)>,
    /// The stock before and the file's new count, when it changed.
    pub stock: Option<(u32, u32)>,
}

/// A slot's row of `inventory`.
struct StoredLevel {
    stock: u32,
    price: Option<i64>,
    file_stock: Option<u32>,
    file_price: Option<i64>,
}

/// The rows of `inventory` by the catalog's slots (`None`: a slot the database has no row for).
fn stored_levels(conn: &Connection, catalog: &Catalog) -> Result<Vec<Option<StoredLevel>>, rusqlite::Error> {
    let mut stmt = conn.prepare("SELECT slot, stock, price_cents, file_stock, file_price FROM inventory")?;
    let mut rows = stmt.query([])?;
    let mut out: Vec<Option<StoredLevel>> = Vec::with_capacity(catalog.slots.len());
    out.resize_with(catalog.slots.len(), || None);
    while let Some(row) = rows.next()? {
        let Some(slot) = catalog.slot_index_of(row.get_ref(0)?.as_str().unwrap_or_default()) else {
            continue;
        };
        out[slot as usize] = Some(StoredLevel {
            stock: row.get(1)?,
            price: row.get(2)?,
            file_stock: row.get(3)?,
            file_price: row.get(4)?,
        });
    }
    Ok(out)
}

/// Brings the database in step with `catalog`: a row for every new SKU, the file's
/// changes applied; answers the current levels and the changes.
pub(crate) fn sync(
    conn: &mut Connection,
    catalog: &Catalog,
) -> Result<(Inventory, Vec<CatalogChange>), OpError> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let stored = stored_levels(&tx, catalog)?;
    let inventory = Inventory::new(catalog);
    let mut changes = Vec::new();
    {
        let mut insert = tx.prepare(
            "INSERT INTO inventory (slot, stock, price_cents, file_stock, file_price) VALUES (?1, ?2, NULL, ?2, ?3)
             ON CONFLICT (slot) DO NOTHING",
        )?;
        let mut note = tx.prepare("UPDATE inventory SET file_stock = ?1, file_price = ?2 WHERE slot = ?3")?;
        for (index, slot) in catalog.slots.iter().enumerate() {
            let index = index as u32;
            let Some(row) = &stored[index as usize] else {
                insert.execute(params![slot.key, slot.stock, slot.price_cents])?;
                continue;
            };
            let price_now = row.price.unwrap_or(row.file_price.unwrap_or(slot.price_cents));
            if row.stock != slot.stock {
                inventory.set_stock(catalog, index, row.stock);
            }
            if price_now != slot.price_cents {
                inventory.set_price(catalog, index, price_now);
            }
            let (Some(file_stock), Some(file_price)) = (row.file_stock, row.file_price) else {
                // A database of an earlier version, or of the demo: what the files say now is noted.
                note.execute(params![slot.stock, slot.price_cents, slot.key])?;
                continue;
            };
            let price = (file_price != slot.price_cents).then_some((price_now, slot.price_cents));
            let stock = (file_stock != slot.stock).then_some((row.stock, slot.stock));
            if price.is_some() || stock.is_some() {
                let product = &catalog.products[slot.product as usize];
                changes.push(CatalogChange {
                    product_id: product.id.clone(),
                    sku_id: slot.key.clone(),
                    price,
                    stock,
                });
            }
        }
    }
    let mut mirror = Changes::default();
    apply_changes(&tx, catalog, &changes, &mut mirror)?;
    forget_old_keys(&tx)?;
    tx.commit()?;
    for (slot, stock) in mirror.stock {
        inventory.set_stock(catalog, slot, stock);
    }
    for (slot, cents) in mirror.price {
        inventory.set_price(catalog, slot, cents);
    }
    Ok((inventory, changes))
}

/// Applies the changes the mall's files made to prices and stock, each through the same
/// writes as an operator's `set_stock` / `set_price`, and notes what the files now say.
/// The one place a file's price or stock change enters the mall (product events belong here).
pub(crate) fn apply_changes(
    tx: &Transaction,
    catalog: &Catalog,
    changes: &[CatalogChange],
    mirror: &mut Changes,
) -> Result<(), OpError> {
    let mut note = tx.prepare_cached(
        "UPDATE inventory SET file_stock = coalesce(?1, file_stock), file_price = coalesce(?2, file_price) WHERE slot = ?3",
    )?;
    for change in changes {
        let Some(slot) = catalog.slot_index_of(&change.sku_id) else { continue };
        if let Some((_, stock)) = change.stock {
            write_stock(tx, mirror, slot, &change.sku_id, stock)?;
        }
        if let Some((_, cents)) = change.price {
            write_price(tx, mirror, slot, &change.sku_id, cents)?;
        }
        note.execute(params![change.stock.map(|s| s.1), change.price.map(|p| p.1), change.sku_id])?;
    }
    append_events(tx, catalog, changes)
}

/// The files' changes as events on the feed, as an operator's would be: one
/// `product.restocked` per product with the sizes that had none and now have
/// some, one `product.price_changed` per product whose price moved (the
/// lowest of its changed SKUs, before and after).
fn append_events(tx: &Transaction, catalog: &Catalog, changes: &[CatalogChange]) -> Result<(), OpError> {
    let at = rfc3339(unix_now());
    let mut products: Vec<&str> = changes.iter().map(|c| c.product_id.as_str()).collect();
    products.dedup();
    for product in products {
        let of_product = changes.iter().filter(|c| c.product_id == product);
        let mut sizes = Vec::new();
        let (mut old, mut new) = (None::<i64>, None::<i64>);
        for change in of_product {
            if let Some((0, after)) = change.stock
                && after > 0
                && let Some(slot) = catalog.slot_index_of(&change.sku_id)
            {
                sizes.extend(catalog.slots[slot as usize].label.iter().cloned());
            }
            if let Some((before, after)) = change.price {
                old = Some(old.map_or(before, |o| o.min(before)));
                new = Some(new.map_or(after, |n| n.min(after)));
            }
        }
        if !sizes.is_empty() {
            let change = ProductChange { sizes, ..Default::default() };
            append_product_event(tx, EventKind::ProductRestocked, product, &change, &at)?;
            tracing::info!(product, "product restocked (the mall's files)");
        }
        if let (Some(old), Some(new)) = (old, new)
            && old != new
        {
            let change = ProductChange {
                old_price_cents: Some(old),
                new_price_cents: Some(new),
                ..Default::default()
            };
            append_product_event(tx, EventKind::ProductPriceChanged, product, &change, &at)?;
            tracing::info!(product, old, new, "product price changed (the mall's files)");
        }
    }
    Ok(())
}
