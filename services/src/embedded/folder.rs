//! A mall's own data from a folder (`mall.data`): the tables an operator
//! writes by hand or exports — `stores`, `products`, `skus`, `stock`,
//! `categories`, `brands`, `areas`, `floors`, `promotions`, `mall` — as CSV
//! files or sheets of `.xlsx` workbooks, or the demo's JSON shape
//! (`mall.json`); and the mall's own information and events (`info.json`).
//! Every mistake is found in one pass and located by file, row and column
//! (see `docs/your-mall.md`).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::calendar::LocalTime;
use crate::models::{Area, Promotion, Sku, Store};

use super::catalog::{Catalog, DEMO_JSON};
use super::data::{BrandData, CatalogData, CategoryData, Floor, MallInfo, ProductData, StoreData};
use super::info::InfoData;
use super::table::{Column, DataError, Table, TableRow};

/// A mall's folder that cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum FolderError {
    /// Mistakes in the data, every one located.
    #[error("{}", mistakes(.0))]
    Invalid(Vec<DataError>),
    /// The database could not be opened or written.
    #[error(transparent)]
    Service(#[from] crate::error::ServiceError),
}

fn mistakes(errors: &[DataError]) -> String {
    let mut out = match errors.len() {
        1 => "the mall's data has 1 mistake:".to_owned(),
        n => format!("the mall's data has {n} mistakes:"),
    };
    out.push_str(&super::limits::mistake_lines(errors));
    out
}

/// The tables a folder may hold, in the order they are read.
pub const TABLES: &[&str] =
    &["mall", "floors", "areas", "categories", "brands", "stores", "products", "skus", "stock", "promotions"];

/// The one workbook whose sheets may hold every table (`mall.xlsx`, sheets named like the tables).
const WORKBOOK: &str = "mall.xlsx";

/// A mall read from its folder, checked, ready to be indexed.
#[derive(Debug)]
pub struct FolderMall {
    pub(crate) catalog: CatalogData,
    /// The mall's information and events (`info.json`), when the folder has them.
    pub(crate) info: Option<InfoData>,
    /// The car park's tariff, the points rule and the coupons (`loyalty.json`), when the
    /// folder has them.
    pub(crate) loyalty: Option<crate::loyalty::LoyaltyRules>,
    /// Where each store was defined (file, row), for checks against the map.
    pub store_rows: HashMap<String, (String, usize)>,
}

impl FolderMall {
    /// The stores, for checks against the map.
    pub fn stores(&self) -> impl Iterator<Item = &Store> {
        self.catalog.stores.iter().map(|s| &s.store)
    }

    /// How many products and SKUs (sellable units).
    pub fn counts(&self) -> (usize, usize, usize) {
        let skus = self.catalog.products.iter().map(|p| p.skus.len().max(1)).sum();
        (self.catalog.stores.len(), self.catalog.products.len(), skus)
    }
}

/// Reads and checks the mall in `dir`; every mistake found, located, when it has any.
pub fn read_folder(dir: &Path) -> Result<FolderMall, Vec<DataError>> {
    if !dir.is_dir() {
        return Err(vec![DataError::file(dir.display().to_string(), "is not a folder")]);
    }
    let mut errors = Vec::new();
    let info = read_info(dir, &mut errors);
    let loyalty = read_loyalty(dir, &mut errors);
    check_own_workbook(dir, &mut errors);
    let json = match super::limits::inside(dir, "mall.json") {
        Ok(json) => json.filter(|p| p.is_file()),
        Err(e) => {
            errors.push(e);
            None
        }
    };
    let (catalog, store_rows) = if let Some(json) = json {
        if let Some(table) = TABLES.iter().find(|t| find_table(dir, t).is_some()) {
            errors.push(DataError::file(
                "mall.json",
                format!("the folder has both mall.json and the `{table}` table: keep one form"),
            ));
        }
        match read_json(&json) {
            Ok(data) => {
                let rows =
                    data.stores.iter().map(|s| (s.store.id.clone(), ("mall.json".to_owned(), 0))).collect();
                (Some(data), rows)
            }
            Err(e) => {
                errors.push(e);
                (None, HashMap::new())
            }
        }
    } else {
        let mut builder = Builder::new(dir);
        builder.read_all();
        errors.append(&mut builder.errors);
        let rows = std::mem::take(&mut builder.store_rows);
        (Some(builder.data), rows)
    };
    let Some(catalog) = catalog else { return Err(errors) };
    for coupon in loyalty.iter().flat_map(|l| &l.coupons) {
        for store in &coupon.store_ids {
            if !catalog.stores.iter().any(|s| &s.store.id == store) {
                errors.push(DataError::file(
                    LOYALTY_FILE,
                    format!(
                        "coupon {} names store `{store}`, which the mall does not have",
                        coupon.coupon_id
                    ),
                ));
            }
        }
    }
    if errors.is_empty() { Ok(FolderMall { catalog, info, loyalty, store_rows }) } else { Err(errors) }
}

impl FolderMall {
    /// Indexes the mall for search; what only indexing finds (a word with two meanings, a
    /// brand named like a category) is a mistake of the catalog as a whole.
    pub fn build(&self) -> Result<Catalog, Vec<DataError>> {
        Catalog::from_data(self.catalog.clone())
            .map_err(|e| vec![DataError::file("the catalog", e.to_string())])
    }

    /// The car park's tariff, points rule and coupons, taken out (`loyalty.json`).
    pub(crate) fn take_loyalty(&mut self) -> Option<crate::loyalty::LoyaltyRules> {
        self.loyalty.take()
    }

    /// Indexes the mall, taking its data (no copy).
    pub(crate) fn into_parts(self) -> (CatalogData, Option<InfoData>) {
        (self.catalog, self.info)
    }
}

/// A file of a mall's folder as the watcher compares it: path, modification time, size.
pub type FileStamp = (PathBuf, SystemTime, u64);

/// The files of `dir` whose change means the mall should be read again, with their
/// modification times and sizes (what a reload watches).
pub fn fingerprint(dir: &Path) -> Vec<FileStamp> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return out };
    for entry in entries.flatten() {
        let path = entry.path();
        let ext = path.extension().and_then(|e| e.to_str()).unwrap_or_default().to_lowercase();
        if !matches!(ext.as_str(), "csv" | "xlsx" | "json") {
            continue;
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name.starts_with("~$") {
            continue; // editors' lock and temporary files
        }
        if let Ok(meta) = entry.metadata() {
            out.push((path, meta.modified().unwrap_or(SystemTime::UNIX_EPOCH), meta.len()));
        }
    }
    out.sort();
    out
}

/// The folder's own workbook (`mall.xlsx`) outside its bounds, as a mistake (its sheets
/// are then not found).
fn check_own_workbook(dir: &Path, errors: &mut Vec<DataError>) {
    match super::limits::inside(dir, WORKBOOK) {
        Ok(Some(book)) if book.is_file() => {
            if let Err(e) = super::limits::check_workbook(&book, WORKBOOK) {
                errors.push(e);
            }
        }
        Ok(_) => {}
        Err(e) => errors.push(e),
    }
}

/// A text file of the folder, within [`super::limits::MAX_FILE_BYTES`].
fn read_text(path: &Path, file: &str) -> Result<String, DataError> {
    let bytes = super::limits::read_bounded(path, file)?;
    String::from_utf8(bytes).map_err(|_| DataError::file(file, "is not UTF-8 text"))
}

fn read_json(path: &Path) -> Result<CatalogData, DataError> {
    let text = read_text(path, "mall.json")?;
    let mut de = serde_json::Deserializer::from_str(&text);
    serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let inner = e.inner();
        DataError {
            file: "mall.json".into(),
            row: Some(inner.line()),
            column: None,
            message: format!("at `{}`: {inner}", e.path()),
        }
    })
}

/// The file of a folder mall's car park tariff, points rule and coupons.
pub const LOYALTY_FILE: &str = "loyalty.json";

/// The car park's tariff, the points rule and the coupons (`loyalty.json`), checked.
fn read_loyalty(dir: &Path, errors: &mut Vec<DataError>) -> Option<crate::loyalty::LoyaltyRules> {
    let path = match super::limits::inside(dir, LOYALTY_FILE) {
        Ok(Some(path)) if path.is_file() => path,
        Ok(_) => return None,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let text = match read_text(&path, LOYALTY_FILE) {
        Ok(text) => text,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let mut de = serde_json::Deserializer::from_str(&text);
    match serde_path_to_error::deserialize::<_, crate::loyalty::LoyaltyRules>(&mut de) {
        Ok(rules) => {
            // Kept even with mistakes, so that its coupons' stores are checked too.
            errors.extend(rules.mistakes().into_iter().map(|m| DataError::file(LOYALTY_FILE, m)));
            Some(rules)
        }
        Err(e) => {
            let inner = e.inner();
            errors.push(DataError {
                file: LOYALTY_FILE.into(),
                row: Some(inner.line()),
                column: None,
                message: format!("at `{}`: {inner}", e.path()),
            });
            None
        }
    }
}

fn read_info(dir: &Path, errors: &mut Vec<DataError>) -> Option<InfoData> {
    let path = match super::limits::inside(dir, "info.json") {
        Ok(Some(path)) if path.is_file() => path,
        Ok(_) => return None,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let text = match read_text(&path, "info.json") {
        Ok(text) => text,
        Err(e) => {
            errors.push(e);
            return None;
        }
    };
    let mut de = serde_json::Deserializer::from_str(&text);
    match serde_path_to_error::deserialize::<_, InfoData>(&mut de) {
        Ok(info) => Some(info),
        Err(e) => {
            let inner = e.inner();
            errors.push(DataError {
                file: "info.json".into(),
                row: Some(inner.line()),
                column: None,
                message: format!("at `{}`: {inner}", e.path()),
            });
            None
        }
    }
}

/// Where a table is: `name.csv`, `name.xlsx` (its first sheet) or the sheet `name` of `mall.xlsx`.
enum Source {
    Csv(PathBuf),
    Xlsx(PathBuf, Option<String>),
    /// A file of the table that is not read (a link out of the folder).
    Refused(DataError),
}

/// A file of the folder named `name`, when it is a file there; a link out of the folder
/// is refused.
fn file_in(dir: &Path, name: &str) -> Result<Option<PathBuf>, DataError> {
    Ok(super::limits::inside(dir, name)?.filter(|p| p.is_file()))
}

fn find_table(dir: &Path, name: &str) -> Option<Source> {
    match file_in(dir, &format!("{name}.csv")) {
        Ok(Some(csv)) => return Some(Source::Csv(csv)),
        Ok(None) => {}
        Err(e) => return Some(Source::Refused(e)),
    }
    match file_in(dir, &format!("{name}.xlsx")) {
        Ok(Some(xlsx)) => return Some(Source::Xlsx(xlsx, None)),
        Ok(None) => {}
        Err(e) => return Some(Source::Refused(e)),
    }
    let book = file_in(dir, WORKBOOK).ok().flatten()?;
    if sheet_names(&book).iter().any(|s| s.trim().eq_ignore_ascii_case(name)) {
        let sheet = sheet_names(&book).into_iter().find(|s| s.trim().eq_ignore_ascii_case(name));
        return Some(Source::Xlsx(book, sheet));
    }
    None
}

fn sheet_names(book: &Path) -> Vec<String> {
    use calamine::Reader as _;
    // A workbook over its bounds is not opened (read_folder says why).
    if super::limits::check_workbook(book, WORKBOOK).is_err() {
        return Vec::new();
    }
    calamine::open_workbook::<calamine::Xlsx<_>, _>(book).map(|b| b.sheet_names()).unwrap_or_default()
}

/// Builds the catalog data from the tables, collecting every mistake.
struct Builder<'a> {
    dir: &'a Path,
    data: CatalogData,
    errors: Vec<DataError>,
    /// Which file defined the categories, stores and products (for "is not in stores.csv").
    files: HashMap<&'static str, String>,
    store_rows: HashMap<String, (String, usize)>,
    utc_offset: String,
    /// Products whose price or stock cell was already reported (no second mistake for it).
    reported: HashSet<String>,
    /// Products whose price cell was already reported: their SKUs without a price of their
    /// own are not reported again, one by one (one cause, one line).
    bad_price: HashSet<String>,
    /// The tables' own mistakes (a row too wide, a CSV that cannot be read on).
    sink: super::table::Sink,
}

/// A list in one cell: `a; b | c`, `，` and `；` too.
fn list(cell: &str) -> Vec<String> {
    cell.split([';', '|', '；', '，']).map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned).collect()
}

/// A price in yuan (`129`, `129.9`, `¥1,299.00`) as fen.
fn parse_price(text: &str) -> Result<i64, String> {
    let cleaned: String =
        text.trim().trim_start_matches(['¥', '￥']).trim_end_matches('元').replace(',', "").trim().to_owned();
    let bad = || format!("`{text}` is not a price in yuan (like 129 or 129.90)");
    let (whole, frac) = cleaned.split_once('.').unwrap_or((&cleaned, ""));
    if whole.is_empty() || !whole.chars().all(|c| c.is_ascii_digit()) || frac.len() > 2 {
        return Err(bad());
    }
    if !frac.chars().all(|c| c.is_ascii_digit()) {
        return Err(bad());
    }
    let whole: i64 = whole.parse().map_err(|_| bad())?;
    let frac: i64 = format!("{frac:0<2}").parse().map_err(|_| bad())?;
    let cents = whole.checked_mul(100).and_then(|w| w.checked_add(frac)).ok_or_else(bad)?;
    if cents > super::shopping::MAX_PRICE_CENTS {
        return Err(format!(
            "`{text}` is more than {} yuan, the highest price a product may have",
            super::shopping::MAX_PRICE_CENTS / 100
        ));
    }
    Ok(cents)
}

fn parse_stock(text: &str) -> Result<u32, String> {
    text.trim()
        .parse::<u32>()
        .map_err(|_| format!("`{text}` is not a stock count (a whole number, 0 or more)"))
}

/// A floor: `B1`, `-1`, `3`, `3F`, `L3`, `3楼`.
fn parse_floor(text: &str) -> Result<i32, String> {
    let t = text.trim().to_uppercase();
    let bad = || format!("`{text}` is not a floor (like B1, 1, 3F)");
    if let Some(rest) = t.strip_prefix('B') {
        return rest.parse::<i32>().ok().filter(|n| *n > 0).map(|n| -n).ok_or_else(bad);
    }
    let digits = t.trim_start_matches('L').trim_end_matches(['F', '楼', '層', '层']);
    digits.parse::<i32>().ok().filter(|n| *n != 0).ok_or_else(bad)
}

fn floor_label(floor: i32) -> String {
    if floor < 0 { format!("B{}", -floor) } else { format!("{floor}F") }
}

/// The id a brand gets from its name.
fn slug(name: &str) -> String {
    let s: String =
        name.trim().to_lowercase().chars().map(|c| if c.is_alphanumeric() { c } else { '-' }).collect();
    s.trim_matches('-').to_owned()
}

/// The candidate nearest to `word` when it is near enough to be a typo.
pub(crate) fn did_you_mean<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let length = word.chars().count();
    let limit = (length / 3).clamp(1, 3);
    candidates
        // Lengths further apart than the limit are not near (and a long cell costs nothing).
        .filter(|c| c.chars().count().abs_diff(length) <= limit)
        .map(|c| (edit_distance(&word.to_lowercase(), &c.to_lowercase()), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

/// "is not in stores.csv (did you mean `s-nike`?)"
fn not_in(what: &str, value: &str, file: &str, known: &HashSet<String>) -> String {
    match did_you_mean(value, known.iter().map(String::as_str)) {
        Some(near) => format!("{what} `{value}` is not in {file} (did you mean `{near}`?)"),
        None => format!("{what} `{value}` is not in {file}"),
    }
}

impl<'a> Builder<'a> {
    fn new(dir: &'a Path) -> Self {
        let demo: CatalogData = serde_json::from_str(DEMO_JSON).expect("the demo catalog is valid JSON");
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let data = CatalogData {
            mall: MallInfo {
                name: name.clone(),
                name_en: name,
                entrance: "main_entrance".into(),
                entrance_name: "正门 Main entrance".into(),
            },
            floors: Vec::new(),
            areas: Vec::new(),
            // The kinds of products every mall has, with the words for them; categories.csv adds more.
            categories: demo.categories,
            brands: Vec::new(),
            synonyms: demo.synonyms,
            stopwords: demo.stopwords,
            stores: Vec::new(),
            products: Vec::new(),
        };
        Builder {
            dir,
            data,
            errors: Vec::new(),
            files: HashMap::new(),
            store_rows: HashMap::new(),
            utc_offset: "+08:00".into(),
            reported: HashSet::new(),
            bad_price: HashSet::new(),
            sink: super::table::Sink::default(),
        }
    }

    fn table(&mut self, name: &'static str) -> Option<Table> {
        let source = find_table(self.dir, name)?;
        let read = match source {
            Source::Csv(path) => Table::read_csv(&path, &format!("{name}.csv"), &self.sink),
            Source::Xlsx(path, sheet) => {
                let file = match &sheet {
                    Some(sheet) => format!("{WORKBOOK}[{sheet}]"),
                    None => format!("{name}.xlsx"),
                };
                Table::read_xlsx(&path, sheet.as_deref(), &file, &self.sink)
            }
            Source::Refused(e) => Err(e),
        };
        match read {
            Ok(table) => {
                self.files.insert(name, table.file.clone());
                Some(table)
            }
            Err(e) => {
                self.errors.push(e);
                None
            }
        }
    }

    fn file_of(&self, name: &str) -> String {
        self.files.get(name).cloned().unwrap_or_else(|| format!("{name}.csv"))
    }

    fn read_all(&mut self) {
        self.read_mall();
        let floors = self.read_floors();
        let areas = self.read_areas(&floors);
        self.read_categories();
        self.read_brands();
        let stores = self.read_stores(&floors, &areas);
        self.fill_floors_and_areas(&floors);
        let products = self.read_products(&stores);
        self.read_skus(&products);
        self.read_stock();
        self.check_products_sellable(&products);
        self.read_promotions(&stores);
        self.add_missing_brands();
        let read = std::mem::take(&mut *self.sink.borrow_mut());
        self.errors.extend(read);
    }

    /// `mall`: one row — name, name_en, entrance, entrance_name, utc_offset.
    fn read_mall(&mut self) {
        let Some(mut t) = self.table("mall") else { return };
        let (name, name_en) = (t.column(&["name"]), t.column(&["name_en"]));
        let (entrance, entrance_name) = (t.column(&["entrance"]), t.column(&["entrance_name"]));
        let offset = t.column(&["utc_offset"]);
        if let Some(row) = t.next_row() {
            let row = &row;
            let set = |target: &mut String, column| {
                let v = t.cell(row, column);
                if !v.is_empty() {
                    *target = v.to_owned();
                }
            };
            set(&mut self.data.mall.name, name);
            set(&mut self.data.mall.name_en, name_en);
            set(&mut self.data.mall.entrance, entrance);
            set(&mut self.data.mall.entrance_name, entrance_name);
            let o = t.cell(row, offset);
            if !o.is_empty() {
                if LocalTime::parse(&format!("2000-01-01T00:00:00{o}")).is_some() {
                    self.utc_offset = o.to_owned();
                } else {
                    self.errors.push(t.error(
                        row,
                        offset,
                        format!("`{o}` is not a UTC offset (like +08:00)"),
                    ));
                }
            }
        }
    }

    /// `floors`: floor, label, name, name_en. Without it, the stores' floors.
    fn read_floors(&mut self) -> BTreeMap<i32, Floor> {
        let mut floors = BTreeMap::new();
        let Some(mut t) = self.table("floors") else { return floors };
        let Some(floor) = t.require(&["floor"], &mut self.errors) else { return floors };
        let (label, name, name_en) = (t.column(&["label"]), t.column(&["name"]), t.column(&["name_en"]));
        while let Some(row) = t.next_row() {
            let row = &row;
            match parse_floor(t.cell(row, Some(floor))) {
                Ok(n) => {
                    let label = Some(t.cell(row, label).to_owned())
                        .filter(|l| !l.is_empty())
                        .unwrap_or_else(|| floor_label(n));
                    let f = Floor {
                        floor: n,
                        name: t.cell(row, name).to_owned(),
                        name_en: t.cell(row, name_en).to_owned(),
                        label,
                    };
                    if floors.insert(n, f).is_some() {
                        self.errors.push(t.error(row, Some(floor), format!("floor {n} is listed twice")));
                    }
                }
                Err(e) => self.errors.push(t.error(row, Some(floor), e)),
            }
        }
        floors
    }

    /// `areas`: id, name, name_en, floor, description, description_en.
    fn read_areas(&mut self, floors: &BTreeMap<i32, Floor>) -> HashSet<String> {
        let mut ids = HashSet::new();
        let Some(mut t) = self.table("areas") else { return ids };
        let id = t.require(&["id"], &mut self.errors);
        let name = t.require(&["name"], &mut self.errors);
        let floor = t.require(&["floor"], &mut self.errors);
        let (name_en, description) = (t.column(&["name_en"]), t.column(&["description"]));
        let description_en = t.column(&["description_en"]);
        if id.is_none() || name.is_none() || floor.is_none() {
            return ids;
        }
        while let Some(row) = t.next_row() {
            let row = &row;
            let area_id = t.cell(row, id);
            if area_id.is_empty() {
                self.errors.push(t.error(row, id, "the area has no id"));
                continue;
            }
            if !ids.insert(area_id.to_owned()) {
                self.errors.push(t.error(row, id, format!("area `{area_id}` is listed twice")));
                continue;
            }
            let f = match parse_floor(t.cell(row, floor)) {
                Ok(f) => f,
                Err(e) => {
                    self.errors.push(t.error(row, floor, e));
                    continue;
                }
            };
            if !floors.is_empty() && !floors.contains_key(&f) {
                let file = self.file_of("floors");
                self.errors.push(t.error(row, floor, format!("floor {} is not in {file}", floor_label(f))));
            }
            self.data.areas.push(Area {
                id: area_id.to_owned(),
                name: t.cell(row, name).to_owned(),
                name_en: t.cell(row, name_en).to_owned(),
                floor: f,
                description: t.cell(row, description).to_owned(),
                description_en: t.cell(row, description_en).to_owned(),
                store_ids: Vec::new(),
            });
        }
        ids
    }

    /// `categories`: id, name, name_en, parents, terms — added to the built-in ones.
    fn read_categories(&mut self) {
        let Some(mut t) = self.table("categories") else { return };
        let Some(id) = t.require(&["id"], &mut self.errors) else { return };
        let (name, name_en) = (t.column(&["name"]), t.column(&["name_en"]));
        let (parents, terms) = (t.column(&["parents", "parent"]), t.column(&["terms"]));
        let mut rows = Vec::new();
        while let Some(owned) = t.next_row() {
            let row = &owned;
            let cid = t.cell(row, Some(id));
            if cid.is_empty() {
                self.errors.push(t.error(row, Some(id), "the category has no id"));
                continue;
            }
            let category = CategoryData {
                id: cid.to_owned(),
                name: Some(t.cell(row, name)).filter(|s| !s.is_empty()).unwrap_or(cid).to_owned(),
                name_en: Some(t.cell(row, name_en)).filter(|s| !s.is_empty()).unwrap_or(cid).to_owned(),
                parents: list(t.cell(row, parents)),
                terms: list(t.cell(row, terms)),
            };
            match self.data.categories.iter_mut().find(|c| c.id == category.id) {
                Some(existing) => *existing = category,
                None => self.data.categories.push(category),
            }
            rows.push(owned);
        }
        let known: HashSet<String> = self.data.categories.iter().map(|c| c.id.clone()).collect();
        for row in &rows {
            for parent in list(t.cell(row, parents)) {
                if !known.contains(&parent) {
                    let file = t.file.clone();
                    self.errors.push(t.error(
                        row,
                        parents,
                        not_in("parent category", &parent, &file, &known),
                    ));
                }
            }
        }
    }

    /// `brands`: name, name_zh, aliases.
    fn read_brands(&mut self) {
        let Some(mut t) = self.table("brands") else { return };
        let Some(name) = t.require(&["name"], &mut self.errors) else { return };
        let (name_zh, aliases) = (t.column(&["name_zh"]), t.column(&["aliases"]));
        while let Some(row) = t.next_row() {
            let row = &row;
            let n = t.cell(row, Some(name));
            if n.is_empty() {
                self.errors.push(t.error(row, Some(name), "the brand has no name"));
                continue;
            }
            if self.data.brands.iter().any(|b| b.name.eq_ignore_ascii_case(n)) {
                self.errors.push(t.error(row, Some(name), format!("brand `{n}` is listed twice")));
                continue;
            }
            self.data.brands.push(BrandData {
                id: slug(n),
                name: n.to_owned(),
                name_zh: Some(t.cell(row, name_zh)).filter(|s| !s.is_empty()).unwrap_or(n).to_owned(),
                aliases: list(t.cell(row, aliases)),
            });
        }
    }

    fn category_ids(&self) -> HashSet<String> {
        self.data.categories.iter().map(|c| c.id.clone()).collect()
    }

    /// `stores`: id, name, name_en, category, floor, unit, area, open_hours, phone, tags, brand.
    fn read_stores(&mut self, floors: &BTreeMap<i32, Floor>, areas: &HashSet<String>) -> HashSet<String> {
        let mut ids = HashSet::new();
        let Some(mut t) = self.table("stores") else {
            self.errors.push(DataError::file(
                "stores.csv",
                "is missing: a mall needs its stores (stores.csv, stores.xlsx or a `stores` sheet in mall.xlsx)",
            ));
            return ids;
        };
        let id = t.require(&["id", "store_id"], &mut self.errors);
        let name = t.require(&["name"], &mut self.errors);
        let category = t.require(&["category"], &mut self.errors);
        let floor = t.require(&["floor"], &mut self.errors);
        if id.is_none() || name.is_none() || category.is_none() || floor.is_none() {
            return ids;
        }
        let (name_en, unit, area) =
            (t.column(&["name_en"]), t.column(&["unit"]), t.column(&["area", "area_id"]));
        let (hours, phone) = (t.column(&["open_hours", "hours"]), t.column(&["phone"]));
        let (tags, brand) = (t.column(&["tags"]), t.column(&["brand"]));
        let categories = self.category_ids();
        let (categories_file, floors_file, areas_file) =
            (self.file_of("categories"), self.file_of("floors"), self.file_of("areas"));
        while let Some(row) = t.next_row() {
            let row = &row;
            let sid = t.cell(row, id);
            let sname = t.cell(row, name);
            if sid.is_empty() {
                self.errors.push(t.error(row, id, "the store has no id"));
                continue;
            }
            if let Some((_, first)) = self.store_rows.get(sid) {
                self.errors.push(t.error(row, id, format!("store `{sid}` is already on row {first}")));
                continue;
            }
            self.store_rows.insert(sid.to_owned(), (t.file.clone(), row.line));
            ids.insert(sid.to_owned());
            if sname.is_empty() {
                self.errors.push(t.error(row, name, "the store has no name"));
            }
            let cat = t.cell(row, category);
            if cat.is_empty() {
                self.errors.push(t.error(row, category, "the store has no category"));
            } else if !categories.contains(cat) {
                self.errors.push(t.error(
                    row,
                    category,
                    not_in("category", cat, &categories_file, &categories),
                ));
            }
            let f = match parse_floor(t.cell(row, floor)) {
                Ok(f) => {
                    if !floors.is_empty() && !floors.contains_key(&f) {
                        self.errors.push(t.error(
                            row,
                            floor,
                            format!("floor {} is not in {floors_file}", floor_label(f)),
                        ));
                    }
                    f
                }
                Err(e) => {
                    self.errors.push(t.error(row, floor, e));
                    0
                }
            };
            let mut area_id = t.cell(row, area).to_owned();
            if area_id.is_empty() {
                area_id = format!("floor-{}", floor_label(f).to_lowercase());
            } else if !areas.contains(&area_id) {
                self.errors.push(t.error(row, area, not_in("area", &area_id, &areas_file, areas)));
            }
            let name_en = Some(t.cell(row, name_en)).filter(|s| !s.is_empty()).unwrap_or(sname).to_owned();
            let brand = Some(t.cell(row, brand)).filter(|s| !s.is_empty()).unwrap_or(&name_en).to_owned();
            self.data.stores.push(StoreData {
                store: Store {
                    id: sid.to_owned(),
                    name: sname.to_owned(),
                    name_en,
                    category: cat.to_owned(),
                    floor: f,
                    unit: t.cell(row, unit).to_owned(),
                    area_id,
                    open_hours: t.cell(row, hours).to_owned(),
                    phone: t.cell(row, phone).to_owned(),
                    tags: list(t.cell(row, tags)),
                },
                brand,
                position: None,
                route: None,
                promotions: Vec::new(),
                reviews: Vec::new(),
            });
        }
        ids
    }

    /// Floors the stores are on when there is no floors table; an area per floor for the
    /// stores that name none; every area's stores.
    fn fill_floors_and_areas(&mut self, floors: &BTreeMap<i32, Floor>) {
        let mut all = floors.clone();
        if all.is_empty() {
            for s in &self.data.stores {
                all.entry(s.store.floor).or_insert_with(|| Floor {
                    floor: s.store.floor,
                    label: floor_label(s.store.floor),
                    name: floor_label(s.store.floor),
                    name_en: floor_label(s.store.floor),
                });
            }
        }
        all.remove(&0);
        self.data.floors = all.into_values().collect();
        for s in &self.data.stores {
            let id = &s.store.area_id;
            if let Some(area) = self.data.areas.iter_mut().find(|a| &a.id == id) {
                area.store_ids.push(s.store.id.clone());
                continue;
            }
            if let Some(rest) = id.strip_prefix("floor-") {
                let label = rest.to_uppercase();
                self.data.areas.push(Area {
                    id: id.clone(),
                    name: format!("{label} 层"),
                    name_en: format!("Floor {label}"),
                    floor: s.store.floor,
                    description: String::new(),
                    description_en: String::new(),
                    store_ids: vec![s.store.id.clone()],
                });
            }
        }
    }

    /// `products`: id, store, brand, category, name, name_en, description, description_en,
    /// rating, images, price, stock. Answers each product's row, for the SKUs' checks.
    fn read_products(&mut self, stores: &HashSet<String>) -> HashMap<String, (usize, usize)> {
        let mut rows_of = HashMap::new();
        let Some(mut t) = self.table("products") else {
            self.errors.push(DataError::file(
                "products.csv",
                "is missing: a mall needs its products (products.csv, products.xlsx or a `products` sheet in mall.xlsx)",
            ));
            return rows_of;
        };
        let id = t.require(&["id", "product_id"], &mut self.errors);
        let store = t.require(&["store", "store_id"], &mut self.errors);
        let name = t.require(&["name"], &mut self.errors);
        let category = t.require(&["category"], &mut self.errors);
        if id.is_none() || store.is_none() || name.is_none() || category.is_none() {
            return rows_of;
        }
        let (brand, name_en, description) =
            (t.column(&["brand"]), t.column(&["name_en"]), t.column(&["description"]));
        let description_en = t.column(&["description_en"]);
        let (rating, images) = (t.column(&["rating"]), t.column(&["images", "image"]));
        let (price, stock) = (t.column(&["price", "price_yuan"]), t.column(&["stock"]));
        let categories = self.category_ids();
        let (stores_file, categories_file) = (self.file_of("stores"), self.file_of("categories"));
        let store_brand: HashMap<String, String> =
            self.data.stores.iter().map(|s| (s.store.id.clone(), s.brand.clone())).collect();
        while let Some(row) = t.next_row() {
            let row = &row;
            let pid = t.cell(row, id);
            if pid.is_empty() {
                self.errors.push(t.error(row, id, "the product has no id"));
                continue;
            }
            if let Some((_, first)) = rows_of.get(pid) {
                self.errors.push(t.error(row, id, format!("product `{pid}` is already on row {first}")));
                continue;
            }
            rows_of.insert(pid.to_owned(), (self.data.products.len(), row.line));
            let sid = t.cell(row, store);
            if sid.is_empty() {
                self.errors.push(t.error(row, store, "the product names no store"));
            } else if !stores.contains(sid) {
                self.errors.push(t.error(row, store, not_in("store", sid, &stores_file, stores)));
            }
            let cat = t.cell(row, category);
            if cat.is_empty() {
                self.errors.push(t.error(row, category, "the product has no category"));
            } else if !categories.contains(cat) {
                self.errors.push(t.error(
                    row,
                    category,
                    not_in("category", cat, &categories_file, &categories),
                ));
            }
            let pname = t.cell(row, name);
            if pname.is_empty() {
                self.errors.push(t.error(row, name, "the product has no name"));
            }
            let r = match t.cell(row, rating) {
                "" => 0.0,
                text => match text.parse::<f32>() {
                    Ok(r) if (0.0..=5.0).contains(&r) => r,
                    _ => {
                        self.errors.push(t.error(
                            row,
                            rating,
                            format!("`{text}` is not a rating from 0 to 5"),
                        ));
                        0.0
                    }
                },
            };
            let before = self.errors.len();
            let price_cents = self.optional(&t, row, price, parse_price);
            if self.errors.len() > before {
                self.bad_price.insert(pid.to_owned());
            }
            let own_stock = self.optional(&t, row, stock, parse_stock);
            if self.errors.len() > before {
                self.reported.insert(pid.to_owned());
            }
            let brand = Some(t.cell(row, brand))
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .or_else(|| store_brand.get(sid).cloned())
                .unwrap_or_default();
            self.data.products.push(ProductData {
                id: pid.to_owned(),
                store_id: sid.to_owned(),
                brand,
                category: cat.to_owned(),
                name: pname.to_owned(),
                name_en: Some(t.cell(row, name_en)).filter(|s| !s.is_empty()).unwrap_or(pname).to_owned(),
                description: t.cell(row, description).to_owned(),
                description_en: Some(t.cell(row, description_en))
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned),
                rating: r,
                images: list(t.cell(row, images)),
                skus: Vec::new(),
                price_cents,
                stock: own_stock,
            });
        }
        rows_of
    }

    fn optional<T>(
        &mut self,
        t: &Table,
        row: &TableRow,
        column: Option<Column>,
        parse: fn(&str) -> Result<T, String>,
    ) -> Option<T> {
        match t.cell(row, column) {
            "" => None,
            text => parse(text).map_err(|e| self.errors.push(t.error(row, column, e))).ok(),
        }
    }

    /// `skus`: id, product, label (or size and colour), price, stock.
    fn read_skus(&mut self, products: &HashMap<String, (usize, usize)>) {
        let Some(mut t) = self.table("skus") else { return };
        let id = t.require(&["id", "sku_id", "sku"], &mut self.errors);
        let product = t.require(&["product", "product_id"], &mut self.errors);
        if id.is_none() || product.is_none() {
            return;
        }
        let (label, size) = (t.column(&["label"]), t.column(&["size"]));
        let colour = t.column(&["colour", "color"]);
        let (price, stock) = (t.column(&["price", "price_yuan"]), t.column(&["stock"]));
        let products_file = self.file_of("products");
        // The SKUs seen, by a hash of their id (half a million ids are not held twice):
        // the row and where the SKU went, to tell a true repeat from a hash's collision.
        let mut seen: HashMap<u64, (usize, usize, usize)> = HashMap::new();
        let hasher = std::collections::hash_map::RandomState::new();
        let hash = |id: &str| std::hash::BuildHasher::hash_one(&hasher, id);
        while let Some(row) = t.next_row() {
            let row = &row;
            let sid = t.cell(row, id);
            if sid.is_empty() {
                self.errors.push(t.error(row, id, "the SKU has no id"));
                continue;
            }
            if let Some(&(first, p, k)) = seen.get(&hash(sid))
                && self.data.products[p].skus.get(k).is_some_and(|s| s.sku_id == sid)
            {
                self.errors.push(t.error(row, id, format!("SKU `{sid}` is already on row {first}")));
                continue;
            }
            let pid = t.cell(row, product);
            let Some(&(index, _)) = products.get(pid) else {
                let known: HashSet<String> = products.keys().cloned().collect();
                self.errors.push(t.error(row, product, not_in("product", pid, &products_file, &known)));
                continue;
            };
            if products.contains_key(sid) && sid != pid {
                self.errors.push(t.error(row, id, format!("SKU `{sid}` has the id of a product")));
                continue;
            }
            let text = [t.cell(row, label), t.cell(row, size), t.cell(row, colour)]
                .into_iter()
                .filter(|s| !s.is_empty())
                .collect::<Vec<_>>()
                .join(" / ");
            let before = self.errors.len();
            let price_cents = self.optional(&t, row, price, parse_price);
            let stock_count = self.optional(&t, row, stock, parse_stock);
            if self.errors.len() > before {
                self.reported.insert(pid.to_owned());
            }
            let p = &mut self.data.products[index];
            let Some(price_cents) = price_cents.or(p.price_cents) else {
                if t.cell(row, price).is_empty() && !self.bad_price.contains(pid) {
                    self.errors.push(t.error(row, price, "the SKU has no price, nor has its product"));
                }
                continue;
            };
            if stock_count.is_none() && t.cell(row, stock).is_empty() {
                self.errors.push(t.error(row, stock, "the SKU has no stock count"));
                continue;
            }
            seen.insert(hash(sid), (row.line, index, p.skus.len()));
            p.skus.push(Sku {
                sku_id: sid.to_owned(),
                label: if text.is_empty() { sid.to_owned() } else { text },
                price_cents,
                stock: stock_count.unwrap_or(0),
            });
        }
    }

    /// `stock`: sku (or a product without SKUs), stock, price — the counts a till exports,
    /// over the ones in products and skus.
    fn read_stock(&mut self) {
        let Some(mut t) = self.table("stock") else { return };
        let Some(key) = t.require(&["sku", "sku_id", "id", "product_id"], &mut self.errors) else { return };
        let (stock, price) = (t.column(&["stock"]), t.column(&["price", "price_yuan"]));
        let mut slots: HashMap<String, (usize, Option<usize>)> = HashMap::new();
        for (p, product) in self.data.products.iter().enumerate() {
            if product.skus.is_empty() {
                slots.insert(product.id.clone(), (p, None));
            }
            for (s, sku) in product.skus.iter().enumerate() {
                slots.insert(sku.sku_id.clone(), (p, Some(s)));
            }
        }
        let known: HashSet<String> = slots.keys().cloned().collect();
        while let Some(row) = t.next_row() {
            let row = &row;
            let k = t.cell(row, Some(key));
            let Some(&(p, s)) = slots.get(k) else {
                self.errors.push(t.error(
                    row,
                    Some(key),
                    not_in("SKU", k, "skus.csv or products.csv", &known),
                ));
                continue;
            };
            let new_stock = self.optional(&t, row, stock, parse_stock);
            let new_price = self.optional(&t, row, price, parse_price);
            let product = &mut self.data.products[p];
            match s {
                Some(s) => {
                    let sku = &mut product.skus[s];
                    sku.stock = new_stock.unwrap_or(sku.stock);
                    sku.price_cents = new_price.unwrap_or(sku.price_cents);
                }
                None => {
                    product.stock = new_stock.or(product.stock);
                    product.price_cents = new_price.or(product.price_cents);
                }
            }
        }
    }

    /// Every product needs SKUs, or a price and a stock of its own.
    fn check_products_sellable(&mut self, rows: &HashMap<String, (usize, usize)>) {
        let file = self.file_of("products");
        let mut missing: Vec<(usize, String)> = Vec::new();
        for p in &self.data.products {
            if p.skus.is_empty()
                && (p.price_cents.is_none() || p.stock.is_none())
                && !self.reported.contains(&p.id)
            {
                let line = rows.get(&p.id).map_or(0, |r| r.1);
                let lacks = match (p.price_cents, p.stock) {
                    (None, None) => "a price and a stock",
                    (None, _) => "a price",
                    _ => "a stock",
                };
                missing.push((line, format!("product `{}` has no SKUs in skus.csv and lacks {lacks}", p.id)));
            }
        }
        for (line, message) in missing {
            self.errors.push(DataError { file: file.clone(), row: Some(line), column: None, message });
        }
    }

    /// `promotions`: store, title, title_en, description, description_en, valid_until (a
    /// date as spreadsheets write it, the end of that day in the mall's time; or RFC 3339).
    fn read_promotions(&mut self, stores: &HashSet<String>) {
        let Some(mut t) = self.table("promotions") else { return };
        let store = t.require(&["store", "store_id"], &mut self.errors);
        let title = t.require(&["title"], &mut self.errors);
        if store.is_none() || title.is_none() {
            return;
        }
        let (description, until) = (t.column(&["description"]), t.column(&["valid_until", "until"]));
        let (title_en, description_en) = (t.column(&["title_en"]), t.column(&["description_en"]));
        let stores_file = self.file_of("stores");
        while let Some(row) = t.next_row() {
            let row = &row;
            let sid = t.cell(row, store);
            let Some(target) = self.data.stores.iter().position(|s| s.store.id == sid) else {
                self.errors.push(t.error(row, store, not_in("store", sid, &stores_file, stores)));
                continue;
            };
            let text = t.cell(row, until);
            let in_mall_time = |(date, time): (String, Option<&str>)| {
                LocalTime::parse(&format!("{date}T{}{}", time.unwrap_or("23:59:59"), self.utc_offset))
            };
            let valid_until = if text.is_empty() {
                String::new()
            } else if let Some(time) = spreadsheet_date(text).and_then(in_mall_time) {
                time.rfc3339()
            } else if let Some(time) = LocalTime::parse(text) {
                time.rfc3339()
            } else {
                self.errors.push(t.error(row, until, format!("`{text}` is not a date (like 2027-06-30)")));
                continue;
            };
            self.data.stores[target].promotions.push(Promotion {
                title: t.cell(row, title).to_owned(),
                title_en: t.cell(row, title_en).to_owned(),
                description: t.cell(row, description).to_owned(),
                description_en: t.cell(row, description_en).to_owned(),
                valid_until,
            });
        }
    }

    /// A brand for every brand name the products and stores use that `brands` does not list.
    fn add_missing_brands(&mut self) {
        let mut known: HashSet<String> = self.data.brands.iter().map(|b| b.name.to_lowercase()).collect();
        let names: Vec<String> = self
            .data
            .stores
            .iter()
            .map(|s| s.brand.clone())
            .chain(self.data.products.iter().map(|p| p.brand.clone()))
            .collect();
        for name in names {
            if name.trim().is_empty() || !known.insert(name.to_lowercase()) {
                continue;
            }
            self.data.brands.push(BrandData {
                id: slug(&name),
                name: name.clone(),
                name_zh: name,
                aliases: Vec::new(),
            });
        }
    }
}

/// A date as spreadsheets write it — `2030-06-30`, `2030-6-30`, `2030/6/30`, `2030.6.30`,
/// `2030年6月30日` — alone or with a time of day after it (`2030/6/30 18:00`): the date as
/// `2030-06-30`, and the time unless it is midnight (a date cell shown with its time: the
/// whole day is meant). `None` for anything else, a time zone included.
fn spreadsheet_date(text: &str) -> Option<(String, Option<&str>)> {
    let text = text.trim();
    let (date, time) = match text.split_once([' ', 'T']) {
        Some((date, time)) => (date, Some(time.trim())),
        None => (text, None),
    };
    let parts: Vec<&str> = date.trim_end_matches('日').split(['-', '/', '.', '年', '月']).collect();
    let [y, m, d] = parts[..] else { return None };
    let (y, m, d): (i64, u32, u32) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    if !(1000..=9999).contains(&y) || !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let time = match time.filter(|t| !t.is_empty()) {
        None => None,
        Some(t) if !t.chars().all(|c| c.is_ascii_digit() || c == ':') => return None,
        Some(t) if t.split(':').all(|n| n.parse::<u32>() == Ok(0)) => None,
        Some(t) => Some(t),
    };
    Some((format!("{y:04}-{m:02}-{d:02}"), time))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_as_spreadsheets_write_them() {
        let date = |text: &str| spreadsheet_date(text).map(|(d, t)| (d, t.map(str::to_owned)));
        let day = |d: &str| Some((d.to_owned(), None));
        for text in ["2030-06-30", "2030-6-30", "2030/6/30", "2030.6.30", "2030年6月30日", "2030/6/30 0:00"]
        {
            assert_eq!(date(text), day("2030-06-30"), "{text}");
        }
        assert_eq!(date("2030/6/30 18:00"), Some(("2030-06-30".to_owned(), Some("18:00".to_owned()))));
        for text in ["next month", "2030/13/1", "6/30/2030", "2030-06-30T23:59:59+08:00", "30"] {
            assert_eq!(date(text), None, "{text}");
        }
    }

    #[test]
    fn prices_are_read_in_yuan() {
        assert_eq!(parse_price("129"), Ok(12_900));
        assert_eq!(parse_price("129.9"), Ok(12_990));
        assert_eq!(parse_price("¥1,299.00"), Ok(129_900));
        assert!(parse_price("12,9O").is_err());
        assert!(parse_price("-5").is_err());
        assert!(parse_price("1.999").is_err());
    }

    #[test]
    fn floors_are_read_as_malls_sign_them() {
        assert_eq!(parse_floor("B1"), Ok(-1));
        assert_eq!(parse_floor("3F"), Ok(3));
        assert_eq!(parse_floor("L2"), Ok(2));
        assert_eq!(parse_floor("2楼"), Ok(2));
        assert_eq!(parse_floor("-2"), Ok(-2));
        assert!(parse_floor("ground").is_err());
    }

    #[test]
    fn a_near_name_is_suggested_a_far_one_not() {
        let ids = ["s-nike", "s-adidas", "s-uniqlo"];
        assert_eq!(did_you_mean("s-nke", ids.into_iter()), Some("s-nike"));
        assert_eq!(did_you_mean("s-zara", ids.into_iter()), None);
    }
}
