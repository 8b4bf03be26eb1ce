//! [`EmbeddedMall`]: a mall in process, behind [`MallApi`] — the demo mall,
//! or a mall's own data from a folder (`mall.data`, [`folder`]) read again
//! when it changes. The [`Catalog`] answers search, stores, areas and
//! routes; carts, orders, payments, order events, stock and idempotency
//! records live in SQLite and survive a restart.
//!
//! The order lifecycle: `PENDING_PAYMENT` → `PAID` → `READY` → `COMPLETED`,
//! or `CANCELLED` / `EXPIRED`. [`OrderPolicy`] (`ttl`, default 30 min;
//! `max_open`, default 3) gives a new order its `expires_at` and refuses a
//! shopper's order beyond `max_open` unpaid ones (`TOO_MANY_OPEN_ORDERS`, cart
//! kept). Every transaction first expires the unpaid orders that are due
//! (stock back, one event stamped with the moment it expired); search and
//! product pages sweep too when the in-memory earliest expiry says one is
//! due; [`EmbeddedMall::sweep_expired`] does it on demand, and `mall-server`
//! calls it every 30 s. `pay_order` records one payment per `charge_id` (the
//! same charge gets the first answer again; a charge of another order is
//! `CONFLICT`); it takes unpaid orders and orders expired less than 15
//! minutes ago, whose stock is then taken again — when it has gone,
//! `ORDER_NOT_PAYABLE` and nothing is recorded. Another amount or currency is
//! `PAYMENT_MISMATCH`. Cancelling a paid order returns its stock and owes
//! `refund {PENDING, amount}`; `complete_refunds()` settles them (`DONE`).
//! Staff calls move `PAID` → `READY` → `COMPLETED`; any other move is
//! `CONFLICT`. Each status change after creation, each settled refund, each
//! restock of a size that had none and each price change appends one row to
//! `events`, whose `AUTOINCREMENT` id is the feed's cursor. `advance_clock`
//! moves the mall's clock in tests; a database of an earlier version gains
//! the new columns on open. The car park (stays, parking payments, shoppers'
//! plates), the points ledger and coupon claims live in the same database;
//! their rules are [`LoyaltyRules`] ([`EmbeddedMall::set_loyalty`]: the demo's,
//! a folder's `loyalty.json`, or none — then those calls are `NOT_SUPPORTED`). The demo catalog's source is
//! `services/data/demo-mall.json`, edited by hand and checked when it loads;
//! `Catalog::generate` scales it up for benchmarks.

mod catalog;
mod clock;
mod data;
mod db;
pub mod folder;
mod generate;
mod index;
mod info;
mod inventory;
mod levels;
pub mod limits;
mod mistake;
mod reload;
mod route;
mod search;
mod shopping;
mod table;
pub(crate) mod text;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use async_trait::async_trait;

use crate::api::{IdempotencyKey, MallApi, MallResult, Shopper};
use crate::error::ServiceError;
use crate::loyalty::{
    CarStay, Coupon, CouponOrder, LoyaltyRules, MyCoupon, ParkingFee, ParkingPayment, PayParking, Plate,
    PointsBalance, Redeem, Redemption,
};
use crate::models::*;

pub use catalog::{Catalog, CatalogError};
pub use clock::rfc3339;
pub use data::Floor;
pub use folder::{FolderError, FolderMall, read_folder};
pub use generate::generate_folder;
pub use levels::CatalogChange;
pub use limits::mistake_lines;
pub use reload::{ReloadReport, data_generation};
pub use table::DataError;

pub use shopping::OrderPolicy;
use shopping::{InfoSource, MallState};

/// The demo mall: search over its [`Catalog`], and carts and orders in SQLite.
///
/// Cheap to clone; clones share one database connection and one stock mirror.
#[derive(Clone)]
pub struct EmbeddedMall {
    state: Arc<MallState>,
    /// The folder the mall's data comes from (`mall.data`); `None`: the catalog given.
    folder: Option<Arc<PathBuf>>,
    /// Set to have the folder read again at the watcher's next look (`SIGHUP`).
    reload_asked: Arc<AtomicBool>,
    /// The folder's files as they were when it was read (a change after that is seen).
    read_stamp: Arc<Vec<folder::FileStamp>>,
}

impl std::fmt::Debug for EmbeddedMall {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EmbeddedMall")
            .field("products", &self.state.live().catalog.product_count())
            .field("folder", &self.folder)
            .finish_non_exhaustive()
    }
}

impl EmbeddedMall {
    /// The demo mall with its database at `path` (WAL mode; created on first open).
    pub fn open(path: impl AsRef<Path>) -> Result<EmbeddedMall, ServiceError> {
        let mall = EmbeddedMall::with_catalog(Catalog::demo(), Some(path.as_ref()))?;
        mall.set_loyalty(Some(LoyaltyRules::demo()))?;
        mall.state.seed_demo_cars()?;
        Ok(mall)
    }

    /// The demo mall with an in-memory database, for tests and demos.
    pub fn in_memory() -> EmbeddedMall {
        let mall =
            EmbeddedMall::with_catalog(Catalog::demo(), None).expect("an in-memory SQLite database opens");
        mall.set_loyalty(Some(LoyaltyRules::demo())).expect("the demo coupons are written");
        mall.state.seed_demo_cars().expect("the demo cars are written");
        mall
    }

    /// Sets the mall's car park tariff, points rule and coupons (`None`: it has none, and
    /// their endpoints answer `NOT_SUPPORTED`). The demo mall has [`LoyaltyRules::demo`].
    pub fn set_loyalty(&self, rules: Option<LoyaltyRules>) -> Result<(), ServiceError> {
        if let Some(mistakes) = rules.as_ref().map(LoyaltyRules::mistakes).filter(|m| !m.is_empty()) {
            return Err(ServiceError::invalid("loyalty", mistakes.join("; ")));
        }
        self.state.set_loyalty(rules)
    }

    /// A mall of `catalog`, with its database at `path` or in memory.
    pub fn with_catalog(catalog: Arc<Catalog>, path: Option<&Path>) -> Result<EmbeddedMall, ServiceError> {
        EmbeddedMall::with_catalog_and_info(catalog, InfoSource::Demo, path)
    }

    fn with_catalog_and_info(
        catalog: Arc<Catalog>,
        info: InfoSource,
        path: Option<&Path>,
    ) -> Result<EmbeddedMall, ServiceError> {
        let state = MallState::open(catalog, info, path)?;
        tracing::info!(
            path = path.map(|p| p.display().to_string()).unwrap_or_else(|| ":memory:".to_owned()),
            products = state.live().catalog.product_count(),
            "embedded mall opened"
        );
        Ok(EmbeddedMall {
            state: Arc::new(state),
            folder: None,
            reload_asked: Arc::default(),
            read_stamp: Arc::default(),
        })
    }

    /// The mall whose data is in the folder `dir` (see `docs/your-mall.md`), its database
    /// at `path` or in memory. Refused, with every mistake located, when the data has any.
    pub fn open_folder(dir: impl AsRef<Path>, path: Option<&Path>) -> Result<EmbeddedMall, FolderError> {
        let dir = dir.as_ref();
        let started = std::time::Instant::now();
        let stamp = folder::fingerprint(dir);
        let mut folder = read_folder(dir).map_err(FolderError::Invalid)?;
        let loyalty = folder.take_loyalty();
        let (data, info) = folder.into_parts();
        let catalog = Catalog::from_data(data)
            .map_err(|e| FolderError::Invalid(vec![DataError::file("the catalog", e.to_string())]))?;
        let mut mall = EmbeddedMall::with_catalog_and_info(
            Arc::new(catalog),
            InfoSource::Folder(info.map(Arc::new)),
            path,
        )?;
        mall.state.set_loyalty(loyalty)?;
        mall.folder = Some(Arc::new(dir.to_owned()));
        mall.read_stamp = Arc::new(stamp);
        let live = mall.state.live();
        tracing::info!(
            folder = %dir.display(),
            stores = live.catalog.stores().len(),
            products = live.catalog.product_count(),
            skus = live.catalog.sku_count(),
            elapsed_ms = started.elapsed().as_millis() as u64,
            "the mall's data loaded"
        );
        Ok(mall)
    }

    /// Reads the mall's folder again and serves it, carts and orders kept, the files' price
    /// and stock changes applied; refused whole (the old data serving on) when it has mistakes.
    /// Blocking: seconds for a large mall.
    pub fn reload(&self) -> Result<ReloadReport, FolderError> {
        let Some(dir) = &self.folder else {
            return Err(FolderError::Invalid(vec![DataError::file(
                "mall.data",
                "this mall was not opened from a folder",
            )]));
        };
        reload::reload(&self.state, dir)
    }

    /// Reads the folder again whenever one of its files changes (looked at every `every`),
    /// or after [`Self::ask_reload`]; the watching thread ends when the mall is dropped.
    /// Nothing to watch for a mall not opened from a folder.
    pub fn watch_folder(&self, every: std::time::Duration) -> std::io::Result<()> {
        self.watch_folder_then(every, |_: &Catalog| {})
    }

    /// As [`Self::watch_folder`], with `after` called on the new catalog after each
    /// reload that is served (to check it against the map, say).
    pub fn watch_folder_then(
        &self,
        every: std::time::Duration,
        after: impl Fn(&Catalog) + Send + 'static,
    ) -> std::io::Result<()> {
        let Some(dir) = &self.folder else { return Ok(()) };
        reload::watch(
            Arc::downgrade(&self.state),
            dir.to_path_buf(),
            (*self.read_stamp).clone(),
            every,
            self.reload_asked.clone(),
            Box::new(after),
        )?;
        Ok(())
    }

    /// Has the watcher read the folder again at its next look (what `SIGHUP` does).
    pub fn ask_reload(&self) {
        self.reload_asked.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The folder the mall's data comes from, when it has one.
    pub fn folder(&self) -> Option<&Path> {
        self.folder.as_deref().map(PathBuf::as_path)
    }

    /// The mall's catalog now (with the catalog's original prices and stock).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.state.live().catalog.clone()
    }

    /// Changes the price of a SKU (or of a product without SKUs, by its id), for operators and tests.
    pub fn set_sku_price(&self, sku_id: &str, cents: i64) -> Result<(), ServiceError> {
        self.state.set_price(&[sku_id.to_owned()], cents)
    }

    /// Changes the price of a product: all its SKUs, or the product itself when it has none.
    pub fn set_product_price(&self, product_id: &str, cents: i64) -> Result<(), ServiceError> {
        let live = self.state.live();
        let product = live
            .catalog
            .product_index_of(product_id)
            .ok_or_else(|| ServiceError::not_found(format!("product {product_id} not found")))?;
        let keys: Vec<String> =
            live.catalog.product_slots(product).map(|s| live.catalog.slots[s as usize].key.clone()).collect();
        self.state.set_price(&keys, cents)
    }

    /// Sets the stock of a SKU (or of a product without SKUs, by its id).
    pub fn set_stock(&self, sku_id: &str, stock: u32) -> Result<(), ServiceError> {
        self.state.set_stock(sku_id, stock)
    }

    /// Moves an order to another status by decree, appending its event; stock is not moved
    /// (the lifecycle's own calls — payments, cancels, staff calls — do that).
    pub fn set_order_status(&self, order_id: &str, status: OrderStatus) -> Result<(), ServiceError> {
        self.state.set_order_status(order_id, status)
    }

    /// The same mall with `policy` for unpaid orders (their time to live and how many one
    /// shopper may hold). Clones share the policy.
    pub fn with_policy(self, policy: OrderPolicy) -> EmbeddedMall {
        self.state.set_policy(policy);
        self
    }

    /// Sets the policy for unpaid orders; orders placed from now on get its time to live.
    pub fn set_policy(&self, policy: OrderPolicy) {
        self.state.set_policy(policy);
    }

    /// The policy for unpaid orders.
    pub fn policy(&self) -> OrderPolicy {
        self.state.policy()
    }

    /// Moves the mall's clock forward by `by` (for tests: expiry without sleeping). The clock
    /// stamps orders, payments and events, and decides which orders are due.
    pub fn advance_clock(&self, by: std::time::Duration) {
        self.state.advance_clock(by);
    }

    /// Expires the unpaid orders that are due (stock back, one `EXPIRED` event each) and
    /// answers how many. Every order read or write does this too; a server calls it now and
    /// then so that stock comes back without one.
    pub fn sweep_expired(&self) -> Result<usize, ServiceError> {
        self.state.sweep_expired()
    }

    /// Settles every pending refund (the money went back): refund `DONE`, one event each with
    /// `refund: DONE`. Answers how many.
    pub fn complete_refunds(&self) -> Result<usize, ServiceError> {
        self.state.complete_refunds()
    }

    /// Runs database work off the async runtime's threads.
    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(&MallState) -> MallResult<T> + Send + 'static,
    ) -> MallResult<T> {
        let state = Arc::clone(&self.state);
        tokio::task::spawn_blocking(move || work(&state)).await.map_err(|e| {
            tracing::error!(error = %e, "embedded mall task failed");
            ServiceError::Unavailable { message: format!("the mall's storage task failed: {e}") }
        })?
    }

    /// Expires the unpaid orders that are due before stock is read, so that their stock shows
    /// as back; costs one atomic read when none is due.
    async fn expire_if_due(&self) -> MallResult<()> {
        if self.state.expiry_due() {
            self.blocking(|state| state.sweep_expired().map(|_| ())).await?;
        }
        Ok(())
    }

    /// The stock key of the product's SKU `sku_id` (the product's own id when it has no SKUs);
    /// a product with SKUs needs one of them.
    fn sku_of(&self, product_id: &str, sku_id: Option<String>, required: bool) -> MallResult<String> {
        let live = self.state.live();
        let catalog = &live.catalog;
        let product = catalog
            .product_index_of(product_id)
            .ok_or_else(|| ServiceError::not_found(format!("product {product_id} not found")))?;
        let keys: Vec<&str> =
            catalog.product_slots(product).map(|s| catalog.slots[s as usize].key.as_str()).collect();
        match sku_id.filter(|s| !s.trim().is_empty()) {
            Some(sku) if keys.contains(&sku.as_str()) => Ok(sku),
            Some(sku) => Err(ServiceError::not_found(format!("SKU {sku} of product {product_id} not found"))),
            None if keys == [product_id] || !required => Ok(product_id.to_owned()),
            None => {
                Err(ServiceError::invalid("sku_id", format!("name one of the SKUs: {}", keys.join(", "))))
            }
        }
    }

    fn store_or_404(&self, id: &str) -> MallResult<Store> {
        self.state
            .live()
            .catalog
            .store(id)
            .cloned()
            .ok_or_else(|| ServiceError::not_found(format!("store {id} not found")))
    }

    /// The mall's information: the demo's, its folder's `info.json`, or none.
    fn info(&self) -> MallResult<InfoRef> {
        match &self.state.live().info {
            InfoSource::Demo => Ok(InfoRef::Demo),
            InfoSource::Folder(Some(info)) => Ok(InfoRef::Folder(info.clone())),
            InfoSource::Folder(None) => {
                Err(ServiceError::not_found("this mall has no information on file (info.json)"))
            }
        }
    }
}

#[async_trait]
impl MallApi for EmbeddedMall {
    async fn health(&self) -> MallResult<Health> {
        self.blocking(|state| state.ping()).await?;
        Ok(Health { status: "ok".to_owned() })
    }

    async fn search_products(&self, query: &ProductQuery) -> MallResult<Page<ProductBrief>> {
        self.expire_if_due().await?;
        let live = self.state.live();
        Ok(live.catalog.search_products_at(query, &live.inventory))
    }

    async fn get_product(&self, id: &str) -> MallResult<Product> {
        self.expire_if_due().await?;
        let live = self.state.live();
        let product = live
            .catalog
            .product_index_of(id)
            .ok_or_else(|| ServiceError::not_found(format!("product {id} not found")))?;
        Ok(live.catalog.product_view(product, &live.inventory))
    }

    async fn search_stores(&self, query: &StoreQuery) -> MallResult<Page<Store>> {
        Ok(self.state.live().catalog.search_stores(query))
    }

    async fn get_store(&self, id: &str) -> MallResult<Store> {
        self.store_or_404(id)
    }

    async fn store_promotions(&self, id: &str) -> MallResult<Page<Promotion>> {
        self.store_or_404(id)?;
        let items = self.state.live().catalog.promotions(id).unwrap_or_default().to_vec();
        Ok(Page { total: items.len() as u64, items })
    }

    async fn store_reviews(&self, id: &str, page: PageRequest) -> MallResult<Page<Review>> {
        self.store_or_404(id)?;
        let live = self.state.live();
        let all = live.catalog.reviews(id).unwrap_or_default();
        let items = all.iter().skip(page.offset() as usize).take(page.limit() as usize).cloned().collect();
        Ok(Page { items, total: all.len() as u64 })
    }

    async fn list_areas(&self) -> MallResult<Page<Area>> {
        let items = self.state.live().catalog.areas().to_vec();
        Ok(Page { total: items.len() as u64, items })
    }

    async fn get_area(&self, id: &str) -> MallResult<Area> {
        self.state
            .live()
            .catalog
            .area(id)
            .cloned()
            .ok_or_else(|| ServiceError::not_found(format!("area {id} not found")))
    }

    async fn route(&self, to_store: &str, from: Option<String>) -> MallResult<Route> {
        self.state.live().catalog.route(to_store, from.as_deref())
    }

    async fn get_cart(&self, shopper: &Shopper) -> MallResult<Cart> {
        let shopper = shopper.clone();
        self.blocking(move |state| state.get_cart(&shopper)).await
    }

    async fn add_cart_item(
        &self,
        shopper: &Shopper,
        item: &AddCartItem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart> {
        let (shopper, item) = (shopper.clone(), item.clone());
        self.blocking(move |state| state.add_cart_item(&shopper, &item, key.as_ref())).await
    }

    async fn remove_cart_item(
        &self,
        shopper: &Shopper,
        item_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart> {
        let (shopper, item_id) = (shopper.clone(), item_id.to_owned());
        self.blocking(move |state| state.remove_cart_item(&shopper, &item_id, key.as_ref())).await
    }

    async fn clear_cart(&self, shopper: &Shopper, key: Option<IdempotencyKey>) -> MallResult<Cart> {
        let shopper = shopper.clone();
        self.blocking(move |state| state.clear_cart(&shopper, key.as_ref())).await
    }

    async fn create_order(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        let (shopper, order) = (shopper.clone(), order.clone());
        self.blocking(move |state| state.create_order(&shopper, &order, key.as_ref())).await
    }

    async fn list_orders(&self, shopper: &Shopper, page: PageRequest) -> MallResult<Page<Order>> {
        let shopper = shopper.clone();
        self.blocking(move |state| state.list_orders(&shopper, page)).await
    }

    async fn get_order(&self, shopper: &Shopper, order_id: &str) -> MallResult<Order> {
        let (shopper, order_id) = (shopper.clone(), order_id.to_owned());
        self.blocking(move |state| state.get_order(&shopper, &order_id)).await
    }

    async fn cancel_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        let (shopper, order_id) = (shopper.clone(), order_id.to_owned());
        self.blocking(move |state| state.cancel_order(&shopper, &order_id, key.as_ref())).await
    }

    async fn pay_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        payment: &RecordPayment,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        let (shopper, order_id, payment) = (shopper.clone(), order_id.to_owned(), payment.clone());
        self.blocking(move |state| state.pay_order(&shopper, &order_id, &payment, key.as_ref())).await
    }

    async fn events(&self, after: Option<String>, limit: u32) -> MallResult<EventPage> {
        self.blocking(move |state| state.events(after.as_deref(), limit)).await
    }

    async fn mark_ready(&self, order_id: &str) -> MallResult<Order> {
        let order_id = order_id.to_owned();
        self.blocking(move |state| state.mark_ready(&order_id)).await
    }

    async fn mark_picked_up(&self, order_id: &str) -> MallResult<Order> {
        let order_id = order_id.to_owned();
        self.blocking(move |state| state.mark_picked_up(&order_id)).await
    }

    async fn set_stock(&self, product_id: &str, sku_id: Option<String>, stock: u32) -> MallResult<Product> {
        let key = self.sku_of(product_id, sku_id, true)?;
        self.blocking(move |state| state.set_stock(&key, stock)).await?;
        self.get_product(product_id).await
    }

    async fn parking_fee<'a>(&self, plate: &str, shopper: Option<&'a Shopper>) -> MallResult<ParkingFee> {
        let (plate, shopper) = (plate.to_owned(), shopper.cloned());
        self.blocking(move |state| state.parking_fee(&plate, shopper.as_ref())).await
    }

    async fn pay_parking(
        &self,
        shopper: &Shopper,
        payment: &PayParking,
        key: Option<IdempotencyKey>,
    ) -> MallResult<ParkingPayment> {
        let (shopper, payment) = (shopper.clone(), payment.clone());
        self.blocking(move |state| state.pay_parking(&shopper, &payment, key.as_ref())).await
    }

    async fn car_entered(&self, plate: &str, at: Option<String>) -> MallResult<CarStay> {
        let plate = plate.to_owned();
        self.blocking(move |state| state.car_entered(&plate, at.as_deref())).await
    }

    async fn car_left(&self, plate: &str) -> MallResult<CarStay> {
        let plate = plate.to_owned();
        self.blocking(move |state| state.car_left(&plate)).await
    }

    async fn my_plates(&self, shopper: &Shopper) -> MallResult<Page<Plate>> {
        let shopper = shopper.clone();
        self.blocking(move |state| state.my_plates(&shopper)).await
    }

    async fn add_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        let (shopper, plate) = (shopper.clone(), plate.to_owned());
        self.blocking(move |state| state.add_plate(&shopper, &plate, key.as_ref())).await
    }

    async fn remove_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        let (shopper, plate) = (shopper.clone(), plate.to_owned());
        self.blocking(move |state| state.remove_plate(&shopper, &plate, key.as_ref())).await
    }

    async fn points(&self, shopper: &Shopper) -> MallResult<PointsBalance> {
        let shopper = shopper.clone();
        self.blocking(move |state| state.points(&shopper)).await
    }

    async fn redeem_points(
        &self,
        shopper: &Shopper,
        redeem: &Redeem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Redemption> {
        let (shopper, redeem) = (shopper.clone(), redeem.clone());
        self.blocking(move |state| state.redeem_points(&shopper, &redeem, key.as_ref())).await
    }

    async fn list_coupons(&self) -> MallResult<Page<Coupon>> {
        self.blocking(|state| state.list_coupons()).await
    }

    async fn claim_coupon(
        &self,
        shopper: &Shopper,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<MyCoupon> {
        let (shopper, coupon_id) = (shopper.clone(), coupon_id.to_owned());
        self.blocking(move |state| state.claim_coupon(&shopper, &coupon_id, key.as_ref())).await
    }

    async fn my_coupons(&self, shopper: &Shopper) -> MallResult<Page<MyCoupon>> {
        let shopper = shopper.clone();
        self.blocking(move |state| state.my_coupons(&shopper)).await
    }

    async fn create_order_with_coupon(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<CouponOrder> {
        let (shopper, order, coupon_id) = (shopper.clone(), order.clone(), coupon_id.to_owned());
        self.blocking(move |state| state.create_order_with_coupon(&shopper, &order, &coupon_id, key.as_ref()))
            .await
    }

    async fn set_price(
        &self,
        product_id: &str,
        sku_id: Option<String>,
        price_cents: i64,
    ) -> MallResult<Product> {
        match sku_id.filter(|s| !s.trim().is_empty()) {
            Some(sku) => {
                let key = self.sku_of(product_id, Some(sku), true)?;
                let this = self.clone();
                self.blocking(move |_| this.set_sku_price(&key, price_cents)).await?;
            }
            None => {
                let this = self.clone();
                let id = product_id.to_owned();
                self.blocking(move |_| this.set_product_price(&id, price_cents)).await?;
            }
        }
        self.get_product(product_id).await
    }

    async fn mall_info(&self) -> MallResult<Page<InfoSection>> {
        let items = self.info()?.sections.clone();
        Ok(Page { total: items.len() as u64, items })
    }

    async fn mall_events(&self, query: &EventQuery) -> MallResult<Page<MallEvent>> {
        self.info()?.events(query, self.state.now())
    }

    /// The offers of the whole mall first, then every store's, in the catalog's order.
    async fn mall_promotions(&self) -> MallResult<Page<MallPromotion>> {
        let live = self.state.live();
        let catalog = &live.catalog;
        let mut items = match self.info() {
            Ok(info) => info.promotions.clone(),
            Err(_) => Vec::new(),
        };
        for store in catalog.stores() {
            for p in catalog.promotions(&store.id).unwrap_or_default() {
                items.push(MallPromotion {
                    title: p.title.clone(),
                    title_en: p.title_en.clone(),
                    description: p.description.clone(),
                    description_en: p.description_en.clone(),
                    valid_until: p.valid_until.clone(),
                    store_id: Some(store.id.clone()),
                    store_name: Some(store.name.clone()),
                    store_name_en: Some(store.name_en.clone()),
                });
            }
        }
        Ok(Page { total: items.len() as u64, items })
    }
}

/// The mall's information as one version of its data has it.
enum InfoRef {
    Demo,
    Folder(Arc<info::InfoData>),
}

impl std::ops::Deref for InfoRef {
    type Target = info::InfoData;

    fn deref(&self) -> &info::InfoData {
        match self {
            InfoRef::Demo => info::demo(),
            InfoRef::Folder(info) => info,
        }
    }
}
