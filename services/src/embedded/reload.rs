//! A new version of the mall's data while it serves: the folder read again,
//! the products that open orders hold kept, the new catalog built while the
//! old one serves and swapped in under the database lock
//! ([`MallState::replace`]), the files' stock and price changes applied
//! (`levels::apply_changes`); carts and orders stay.

use std::collections::HashSet;
use std::sync::Arc;

use crate::error::ServiceError;
use crate::models::CartItem;

use super::catalog::Catalog;
use super::db::OpError;
use super::folder::FolderError;
use super::info::InfoData;
use super::levels::{CatalogChange, sync};
use super::shopping::{InfoSource, Live, MallState};
use super::table::DataError;

impl MallState {
    /// Serves `catalog` from now on (and `info`, the mall's information from its files):
    /// the files' changes applied, carts and orders kept. Searches go on with the old
    /// catalog until the swap; cart and order changes wait for it.
    pub fn replace(
        &self,
        catalog: Arc<Catalog>,
        info: Option<Arc<InfoData>>,
    ) -> Result<Vec<CatalogChange>, ServiceError> {
        let mut conn = self.lock();
        let (inventory, changes) = sync(&mut conn, &catalog)?;
        self.swap(Live { catalog, inventory, info: InfoSource::Folder(info) });
        drop(conn);
        Ok(changes)
    }

    /// The ids of the products that unpaid, paid or ready orders hold.
    pub fn held_products(&self) -> Result<HashSet<String>, ServiceError> {
        let conn = self.lock();
        let run = || -> Result<HashSet<String>, OpError> {
            let mut stmt = conn
                .prepare("SELECT items FROM orders WHERE status IN ('PENDING_PAYMENT', 'PAID', 'READY')")?;
            let mut rows = stmt.query([])?;
            let mut held = HashSet::new();
            while let Some(row) = rows.next()? {
                let items: Vec<CartItem> = serde_json::from_str(&row.get::<_, String>(0)?)?;
                held.extend(items.into_iter().map(|i| i.product_id));
            }
            Ok(held)
        };
        Ok(run()?)
    }
}

/// How many times a mall's data was reloaded in this process: what was kept from before
/// (a cached search, say) is stale once it moves.
static GENERATION: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// The number of reloads of a mall's data in this process so far; a cache of the mall's
/// answers starts afresh when it moves.
pub fn data_generation() -> u64 {
    GENERATION.load(std::sync::atomic::Ordering::Acquire)
}

/// What a reload did.
#[derive(Debug, Clone, Default)]
pub struct ReloadReport {
    pub stores: usize,
    pub products: usize,
    /// Sellable units: SKUs, and products without SKUs.
    pub skus: usize,
    /// The prices and stock the files changed.
    pub changes: Vec<CatalogChange>,
    /// Products gone from the files that open orders still hold: kept until their orders end.
    pub kept: Vec<String>,
}

/// Reads the folder again and serves it: refused whole (the old data serving on) when
/// it has mistakes.
pub(crate) fn reload(state: &MallState, dir: &std::path::Path) -> Result<ReloadReport, FolderError> {
    let started = std::time::Instant::now();
    let mut folder = super::folder::read_folder(dir).map_err(FolderError::Invalid)?;
    let loyalty = folder.take_loyalty();
    let (mut data, info) = folder.into_parts();
    let kept = keep_held_products(state, &mut data)?;
    let catalog = Catalog::from_data(data)
        .map_err(|e| FolderError::Invalid(vec![DataError::file("the catalog", e.to_string())]))?;
    let report_counts = (catalog.stores().len(), catalog.product_count(), catalog.sku_count());
    let changes = state.replace(Arc::new(catalog), info.map(Arc::new))?;
    state.set_loyalty(loyalty)?;
    GENERATION.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    for change in &changes {
        tracing::info!(
            product = %change.product_id,
            sku = %change.sku_id,
            price = ?change.price,
            stock = ?change.stock,
            "the mall's files changed a price or stock"
        );
    }
    tracing::info!(
        folder = %dir.display(),
        stores = report_counts.0,
        products = report_counts.1,
        skus = report_counts.2,
        changes = changes.len(),
        kept = kept.len(),
        elapsed_ms = started.elapsed().as_millis() as u64,
        "the mall's data reloaded"
    );
    Ok(ReloadReport {
        stores: report_counts.0,
        products: report_counts.1,
        skus: report_counts.2,
        changes,
        kept,
    })
}

/// Adds back to `data` the products (and their stores, brands, categories) that open
/// orders hold but the files no longer list, each said in the log.
fn keep_held_products(
    state: &MallState,
    data: &mut super::data::CatalogData,
) -> Result<Vec<String>, ServiceError> {
    let held = state.held_products()?;
    let listed: HashSet<&str> = data.products.iter().map(|p| p.id.as_str()).collect();
    let missing: Vec<String> = held.into_iter().filter(|id| !listed.contains(id.as_str())).collect();
    if missing.is_empty() {
        return Ok(missing);
    }
    let live = state.live();
    let old = &live.catalog;
    let mut kept = Vec::new();
    for id in missing {
        let Some(index) = old.product_index_of(&id) else { continue };
        let product = old.product_data(index);
        if !data.stores.iter().any(|s| s.store.id == product.store_id) {
            let mut store = old.store_data_of(index).clone();
            if !data.areas.iter().any(|a| a.id == store.store.area_id) {
                store.store.area_id = data.areas.first().map(|a| a.id.clone()).unwrap_or_default();
            }
            data.stores.push(store);
        }
        if !data.brands.iter().any(|b| b.name.eq_ignore_ascii_case(&product.brand)) {
            data.brands.push(super::data::BrandData {
                id: product.brand.to_lowercase(),
                name: product.brand.clone(),
                name_zh: product.brand.clone(),
                aliases: Vec::new(),
            });
        }
        if !data.categories.iter().any(|c| c.id == product.category) {
            data.categories.push(super::data::CategoryData {
                id: product.category.clone(),
                name: product.category.clone(),
                name_en: product.category.clone(),
                parents: Vec::new(),
                terms: Vec::new(),
            });
        }
        tracing::warn!(
            product = %id,
            "a product removed from the mall's files is in an open order: kept until the order ends"
        );
        data.products.push(product);
        kept.push(id);
    }
    Ok(kept)
}

/// Watches `dir` for changes (its files' times and sizes, looked at every `every`) and
/// reloads once a change has settled, or when `asked` is set (`SIGHUP`), then calls `after`
/// on the catalog served; stops when the mall is gone.
pub(crate) fn watch(
    state: std::sync::Weak<MallState>,
    dir: std::path::PathBuf,
    read: Vec<super::folder::FileStamp>,
    every: std::time::Duration,
    asked: Arc<std::sync::atomic::AtomicBool>,
    after: Box<dyn Fn(&Catalog) + Send>,
) -> std::io::Result<std::thread::JoinHandle<()>> {
    use std::sync::atomic::Ordering;
    std::thread::Builder::new().name("mall-data-watch".into()).spawn(move || {
        // What the mall was read from: a change made since, even before this thread ran, is seen.
        let mut seen = read;
        loop {
            std::thread::sleep(every);
            let Some(state) = state.upgrade() else { return };
            let now = super::folder::fingerprint(&dir);
            let by_signal = asked.swap(false, Ordering::Relaxed);
            if now == seen && !by_signal {
                continue;
            }
            if !by_signal {
                // A file being written: wait until it stays as it is for one look.
                std::thread::sleep(every);
                if super::folder::fingerprint(&dir) != now {
                    continue;
                }
            }
            seen = now;
            // Whatever goes wrong while reading, the previous version serves on and the
            // watch goes on (a panic included: it is logged, not the end of the mall).
            let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| reload(&state, &dir)));
            let Ok(read) = read else {
                tracing::error!(
                    folder = %dir.display(),
                    "the mall's data changed but could not be read: the previous version serves on"
                );
                continue;
            };
            match read {
                Ok(_) => after(&state.live().catalog),
                Err(FolderError::Invalid(errors)) => {
                    tracing::error!(
                        folder = %dir.display(),
                        mistakes = errors.len(),
                        "the mall's data changed but has mistakes: the previous version serves on"
                    );
                    for error in errors.iter().take(50) {
                        tracing::error!("{error}");
                    }
                }
                Err(e) => tracing::error!(folder = %dir.display(), error = %e, "the mall's data could not be reloaded"),
            }
        }
    })
}
