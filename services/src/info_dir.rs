//! The mall's own information from a folder of Markdown files, for a mall
//! whose backend has no `GET /api/mall/info` (`mall.info_dir`):
//! [`InfoFolder`] reads it, and [`WithInfoFolder`] puts it in front of any
//! [`MallApi`].
//!
//! Every `*.md` file of the folder is read (not its sub-folders). Each
//! heading (`#` … `######`) starts a section that runs to the next heading;
//! text before the first heading is not a section. A file named `*.en.md`
//! is English, any other `*.md` Chinese. A heading may end with `{#id}`;
//! without it the section's id is the file's name (without `.en`/`.zh` and
//! `.md`) and the heading's number in the file (`parking-2`), so
//! `parking.md` and `parking.en.md` with their headings in the same order
//! pair up by themselves. The service desk is the section with id
//! `service-desk`.
//!
//! The folder is read when opened and again when a file's modification time
//! or size changes, or a file comes or goes: looked at most once a second,
//! listing the folder's metadata only. A folder that cannot be read then
//! keeps the sections read last (and says so in the log).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use async_trait::async_trait;

use crate::api::{IdempotencyKey, MallApi, MallResult, Shopper};
use crate::loyalty::{
    CarStay, Coupon, CouponOrder, MyCoupon, ParkingFee, ParkingPayment, PayParking, Plate, PointsBalance,
    Redeem, Redemption,
};
use crate::models::*;

/// How often the folder is looked at for changes, at most.
const LOOK_EVERY: Duration = Duration::from_secs(1);

/// What a folder of information could not be read for.
#[derive(Debug, thiserror::Error)]
pub enum InfoDirError {
    #[error("{path}: {source}")]
    Unreadable { path: PathBuf, source: std::io::Error },
    #[error("{path} is not a folder")]
    NotAFolder { path: PathBuf },
    #[error("{path} has no .md files")]
    Empty { path: PathBuf },
}

/// What the files looked like when last read: (name, modified, size).
type Fingerprint = Vec<(PathBuf, Option<SystemTime>, u64)>;

#[derive(Debug)]
struct Loaded {
    fingerprint: Fingerprint,
    sections: Arc<Vec<InfoSection>>,
    looked: Instant,
}

/// A folder of Markdown files read as the mall's information sections.
#[derive(Debug)]
pub struct InfoFolder {
    dir: PathBuf,
    loaded: Mutex<Loaded>,
}

impl InfoFolder {
    /// Reads the folder; an error when it is missing, unreadable or has no `.md` file.
    pub fn open(dir: impl Into<PathBuf>) -> Result<InfoFolder, InfoDirError> {
        let dir = dir.into();
        if !dir.is_dir() {
            return Err(match std::fs::metadata(&dir) {
                Err(source) => InfoDirError::Unreadable { path: dir, source },
                Ok(_) => InfoDirError::NotAFolder { path: dir },
            });
        }
        let fingerprint = fingerprint(&dir)?;
        if fingerprint.is_empty() {
            return Err(InfoDirError::Empty { path: dir });
        }
        let sections = read_sections(&fingerprint)?;
        tracing::info!(dir = %dir.display(), sections = sections.len(), "mall information read");
        let loaded = Loaded { fingerprint, sections: Arc::new(sections), looked: Instant::now() };
        Ok(InfoFolder { dir, loaded: Mutex::new(loaded) })
    }

    /// The sections, read again first when the files changed.
    pub fn sections(&self) -> Arc<Vec<InfoSection>> {
        let mut loaded = self.loaded.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if loaded.looked.elapsed() >= LOOK_EVERY {
            loaded.looked = Instant::now();
            match fingerprint(&self.dir) {
                Ok(now) if now != loaded.fingerprint => match read_sections(&now) {
                    Ok(sections) => {
                        tracing::info!(dir = %self.dir.display(), sections = sections.len(), "mall information read again");
                        loaded.sections = Arc::new(sections);
                        loaded.fingerprint = now;
                    }
                    Err(error) => {
                        tracing::warn!(%error, "mall information unreadable; the last read is kept")
                    }
                },
                Ok(_) => {}
                Err(error) => tracing::warn!(%error, "mall information unreadable; the last read is kept"),
            }
        }
        Arc::clone(&loaded.sections)
    }
}

fn fingerprint(dir: &Path) -> Result<Fingerprint, InfoDirError> {
    let unreadable = |source| InfoDirError::Unreadable { path: dir.to_owned(), source };
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable)? {
        let entry = entry.map_err(unreadable)?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("md")) {
            let meta = entry.metadata().map_err(unreadable)?;
            if meta.is_file() {
                files.push((path, meta.modified().ok(), meta.len()));
            }
        }
    }
    files.sort();
    Ok(files)
}

fn read_sections(files: &Fingerprint) -> Result<Vec<InfoSection>, InfoDirError> {
    let mut by_id: BTreeMap<String, (usize, InfoSection)> = BTreeMap::new();
    let mut order = 0;
    for (path, _, _) in files {
        let text = std::fs::read_to_string(path)
            .map_err(|source| InfoDirError::Unreadable { path: path.clone(), source })?;
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
        let (stem, english) = file_stem(name);
        for (id, title, body) in parse_markdown(&stem, &text) {
            let (_, section) = by_id.entry(id.clone()).or_insert_with(|| {
                order += 1;
                (order, InfoSection { id, ..InfoSection::default() })
            });
            if english {
                (section.title_en, section.body_en) = (title, body);
            } else {
                (section.title, section.body) = (title, body);
            }
        }
    }
    let mut sections: Vec<(usize, InfoSection)> = by_id.into_values().collect();
    sections.sort_by_key(|(order, _)| *order);
    Ok(sections.into_iter().map(|(_, s)| s).collect())
}

/// `parking.en.md` → (`parking`, English); `parking.md`, `parking.zh.md` → (`parking`, Chinese).
fn file_stem(name: &str) -> (String, bool) {
    let base = name.get(..name.len().saturating_sub(3)).unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    if lower.ends_with(".en") {
        (base[..base.len() - 3].to_owned(), true)
    } else if lower.ends_with(".zh") {
        (base[..base.len() - 3].to_owned(), false)
    } else {
        (base.to_owned(), false)
    }
}

/// The sections of one file: (id, title, body).
pub fn parse_markdown(stem: &str, text: &str) -> Vec<(String, String, String)> {
    let mut sections: Vec<(String, String, Vec<&str>)> = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
        }
        let heading = (!fence).then(|| heading(line)).flatten();
        match (heading, sections.last_mut()) {
            (Some((title, id)), _) => {
                let id = id.unwrap_or_else(|| format!("{stem}-{}", sections.len() + 1));
                sections.push((id, title, Vec::new()));
            }
            (None, Some((_, _, body))) => body.push(line),
            (None, None) => {}
        }
    }
    sections
        .into_iter()
        .map(|(id, title, body)| (id, title, body.join("\n").trim().to_owned()))
        .filter(|(_, title, body)| !(title.is_empty() && body.is_empty()))
        .collect()
}

/// A heading's title and its `{#id}`, if the line is a heading.
fn heading(line: &str) -> Option<(String, Option<String>)> {
    let hashes = line.bytes().take_while(|b| *b == b'#').count();
    if !(1..=6).contains(&hashes) {
        return None;
    }
    let rest = &line[hashes..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let rest = rest.trim().trim_end_matches('#').trim();
    if let Some(open) = rest.rfind("{#")
        && rest.ends_with('}')
    {
        let id = rest[open + 2..rest.len() - 1].trim();
        if !id.is_empty() {
            return Some((rest[..open].trim().to_owned(), Some(id.to_owned())));
        }
    }
    Some((rest.to_owned(), None))
}

/// A mall whose information comes from an [`InfoFolder`]; everything else
/// from the mall behind it.
pub struct WithInfoFolder {
    mall: Arc<dyn MallApi>,
    folder: InfoFolder,
}

impl WithInfoFolder {
    /// `mall`, answering `GET /api/mall/info` from `folder`.
    pub fn new(mall: Arc<dyn MallApi>, folder: InfoFolder) -> Self {
        WithInfoFolder { mall, folder }
    }
}

#[async_trait]
impl MallApi for WithInfoFolder {
    async fn mall_info(&self) -> MallResult<Page<InfoSection>> {
        let items = self.folder.sections().as_ref().clone();
        Ok(Page { total: items.len() as u64, items })
    }
    async fn mall_events(&self, query: &EventQuery) -> MallResult<Page<MallEvent>> {
        self.mall.mall_events(query).await
    }
    async fn mall_promotions(&self) -> MallResult<Page<MallPromotion>> {
        self.mall.mall_promotions().await
    }
    async fn health(&self) -> MallResult<Health> {
        self.mall.health().await
    }
    async fn search_products(&self, query: &ProductQuery) -> MallResult<Page<ProductBrief>> {
        self.mall.search_products(query).await
    }
    async fn get_product(&self, id: &str) -> MallResult<Product> {
        self.mall.get_product(id).await
    }
    async fn search_stores(&self, query: &StoreQuery) -> MallResult<Page<Store>> {
        self.mall.search_stores(query).await
    }
    async fn get_store(&self, id: &str) -> MallResult<Store> {
        self.mall.get_store(id).await
    }
    async fn store_promotions(&self, id: &str) -> MallResult<Page<Promotion>> {
        self.mall.store_promotions(id).await
    }
    async fn store_reviews(&self, id: &str, page: PageRequest) -> MallResult<Page<Review>> {
        self.mall.store_reviews(id, page).await
    }
    async fn list_areas(&self) -> MallResult<Page<Area>> {
        self.mall.list_areas().await
    }
    async fn get_area(&self, id: &str) -> MallResult<Area> {
        self.mall.get_area(id).await
    }
    async fn route(&self, to_store: &str, from: Option<String>) -> MallResult<Route> {
        self.mall.route(to_store, from).await
    }
    async fn get_cart(&self, shopper: &Shopper) -> MallResult<Cart> {
        self.mall.get_cart(shopper).await
    }
    async fn add_cart_item(
        &self,
        shopper: &Shopper,
        item: &AddCartItem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart> {
        self.mall.add_cart_item(shopper, item, key).await
    }
    async fn remove_cart_item(
        &self,
        shopper: &Shopper,
        item_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart> {
        self.mall.remove_cart_item(shopper, item_id, key).await
    }
    async fn clear_cart(&self, shopper: &Shopper, key: Option<IdempotencyKey>) -> MallResult<Cart> {
        self.mall.clear_cart(shopper, key).await
    }
    async fn create_order(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        self.mall.create_order(shopper, order, key).await
    }
    async fn list_orders(&self, shopper: &Shopper, page: PageRequest) -> MallResult<Page<Order>> {
        self.mall.list_orders(shopper, page).await
    }
    async fn get_order(&self, shopper: &Shopper, order_id: &str) -> MallResult<Order> {
        self.mall.get_order(shopper, order_id).await
    }
    async fn cancel_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        self.mall.cancel_order(shopper, order_id, key).await
    }
    async fn pay_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        payment: &RecordPayment,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        self.mall.pay_order(shopper, order_id, payment, key).await
    }
    async fn events(&self, after: Option<String>, limit: u32) -> MallResult<EventPage> {
        self.mall.events(after, limit).await
    }
    async fn mark_ready(&self, order_id: &str) -> MallResult<Order> {
        self.mall.mark_ready(order_id).await
    }
    async fn mark_picked_up(&self, order_id: &str) -> MallResult<Order> {
        self.mall.mark_picked_up(order_id).await
    }

    async fn set_stock(&self, product_id: &str, sku_id: Option<String>, stock: u32) -> MallResult<Product> {
        self.mall.set_stock(product_id, sku_id, stock).await
    }

    async fn set_price(
        &self,
        product_id: &str,
        sku_id: Option<String>,
        price_cents: i64,
    ) -> MallResult<Product> {
        self.mall.set_price(product_id, sku_id, price_cents).await
    }

    // The car park, points and coupons are the mall's own: passed on, never
    // the trait's `NOT_SUPPORTED`.
    async fn parking_fee<'a>(&self, plate: &str, shopper: Option<&'a Shopper>) -> MallResult<ParkingFee> {
        self.mall.parking_fee(plate, shopper).await
    }
    async fn pay_parking(
        &self,
        shopper: &Shopper,
        payment: &PayParking,
        key: Option<IdempotencyKey>,
    ) -> MallResult<ParkingPayment> {
        self.mall.pay_parking(shopper, payment, key).await
    }
    async fn car_entered(&self, plate: &str, at: Option<String>) -> MallResult<CarStay> {
        self.mall.car_entered(plate, at).await
    }
    async fn car_left(&self, plate: &str) -> MallResult<CarStay> {
        self.mall.car_left(plate).await
    }
    async fn my_plates(&self, shopper: &Shopper) -> MallResult<Page<Plate>> {
        self.mall.my_plates(shopper).await
    }
    async fn add_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        self.mall.add_plate(shopper, plate, key).await
    }
    async fn remove_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        self.mall.remove_plate(shopper, plate, key).await
    }
    async fn points(&self, shopper: &Shopper) -> MallResult<PointsBalance> {
        self.mall.points(shopper).await
    }
    async fn redeem_points(
        &self,
        shopper: &Shopper,
        redeem: &Redeem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Redemption> {
        self.mall.redeem_points(shopper, redeem, key).await
    }
    async fn list_coupons(&self) -> MallResult<Page<Coupon>> {
        self.mall.list_coupons().await
    }
    async fn claim_coupon(
        &self,
        shopper: &Shopper,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<MyCoupon> {
        self.mall.claim_coupon(shopper, coupon_id, key).await
    }
    async fn my_coupons(&self, shopper: &Shopper) -> MallResult<Page<MyCoupon>> {
        self.mall.my_coupons(shopper).await
    }
    async fn create_order_with_coupon(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<CouponOrder> {
        self.mall.create_order_with_coupon(shopper, order, coupon_id, key).await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn headings_start_sections_with_their_own_or_numbered_ids() {
        let text = "intro, not a section\n# 停车 {#parking}\n首小时 5 元。\n\n```\n# not a heading\n```\n## 服务台\n在 G 层。\n#hashtag stays text\n";
        let sections = parse_markdown("info", text);
        assert_eq!(sections.len(), 2, "{sections:?}");
        assert_eq!(sections[0].0, "parking");
        assert_eq!(sections[0].1, "停车");
        assert!(sections[0].2.contains("# not a heading"), "{:?}", sections[0].2);
        assert_eq!((sections[1].0.as_str(), sections[1].1.as_str()), ("info-2", "服务台"));
        assert_eq!(sections[1].2, "在 G 层。\n#hashtag stays text");
        assert_eq!(file_stem("parking.en.md"), ("parking".to_owned(), true));
        assert_eq!(file_stem("parking.md"), ("parking".to_owned(), false));
    }

    #[test]
    fn a_folder_pairs_languages_and_is_read_again_when_a_file_changes() {
        let dir =
            std::env::temp_dir().join(format!("mallbot-info-{}-{:?}", std::process::id(), Instant::now()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("parking.md"), "# 停车收费\n每小时 5 元。\n").unwrap();
        std::fs::write(dir.join("parking.en.md"), "# Parking fees\n5 dollars an hour.\n").unwrap();
        let folder = InfoFolder::open(&dir).unwrap();
        let sections = folder.sections();
        assert_eq!(sections.len(), 1);
        assert_eq!(
            (sections[0].id.as_str(), sections[0].title.as_str(), sections[0].title_en.as_str()),
            ("parking-1", "停车收费", "Parking fees")
        );
        std::fs::write(dir.join("parking.en.md"), "# Parking fees\n6 dollars an hour, longer text.\n")
            .unwrap();
        std::thread::sleep(LOOK_EVERY + Duration::from_millis(50));
        assert_eq!(folder.sections()[0].body_en, "6 dollars an hour, longer text.");
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(InfoFolder::open(&dir), Err(InfoDirError::Unreadable { .. })));
    }
}
