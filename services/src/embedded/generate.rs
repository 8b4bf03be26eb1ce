//! [`Catalog::generate`]: a large synthetic catalog for benchmarks, built
//! from the demo's floors, stores, brands and words, deterministic per seed.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::models::Sku;

use super::catalog::{Catalog, DEMO_JSON};
use super::data::{CatalogData, ProductData};

/// Editions that make a generated product differ from its demo template.
const EDITIONS: &[(&str, &str)] = &[
    ("2026 新款", "2026 Edition"),
    ("经典款", "Classic"),
    ("限定版", "Limited Edition"),
    ("升级版", "Plus"),
    ("城市系列", "City Series"),
    ("户外系列", "Outdoor Series"),
    ("联名款", "Collab"),
    ("轻量版", "Lite"),
    ("春季款", "Spring"),
    ("秋冬款", "Autumn Winter"),
    ("旗舰版", "Flagship"),
    ("青春版", "Youth"),
    ("典藏版", "Collector's Edition"),
    ("节日限定", "Holiday Edition"),
    ("加大码", "Plus Size"),
    ("标准版", "Standard"),
];

/// Letters of the style codes (`FD4821`) that give generated products unique words.
const STYLE_PREFIXES: &[&str] = &["FD", "DV", "HQ", "IE", "JR", "KX", "MN", "TS"];

impl Catalog {
    /// A catalog of `products` products varied from the demo's (other
    /// editions, prices and stock), in the demo's stores; the same for the same seed.
    pub fn generate(products: usize, seed: u64) -> Catalog {
        let mut data: CatalogData = serde_json::from_str(DEMO_JSON).expect("the demo catalog is valid JSON");
        let templates = std::mem::take(&mut data.products);
        let mut rng = StdRng::seed_from_u64(seed);
        data.products = (0..products)
            .map(|i| {
                let template = &templates[rng.random_range(0..templates.len())];
                variant(template, i, &mut rng)
            })
            .collect();
        Catalog::from_data(data).expect("a catalog generated from the demo is valid")
    }
}

fn variant(template: &ProductData, index: usize, rng: &mut StdRng) -> ProductData {
    let id = format!("g-{:06}", index + 1);
    let (edition_zh, edition_en) = EDITIONS[rng.random_range(0..EDITIONS.len())];
    let code = format!(
        "{}{}",
        STYLE_PREFIXES[rng.random_range(0..STYLE_PREFIXES.len())],
        rng.random_range(1000..10_000)
    );
    let factor: f64 = rng.random_range(0.7..1.4);
    let price = |cents: i64| ((cents as f64 * factor / 100.0).round() as i64).max(1) * 100;
    let mut stock = || if rng.random_bool(0.08) { 0 } else { rng.random_range(1..=40) };
    let skus = template
        .skus
        .iter()
        .map(|sku| Sku {
            sku_id: format!("{id}{}", sku.sku_id.strip_prefix(template.id.as_str()).unwrap_or(&sku.sku_id)),
            label: sku.label.clone(),
            price_cents: price(sku.price_cents),
            stock: stock(),
        })
        .collect();
    let (price_cents, own_stock) = match (template.price_cents, template.stock) {
        (Some(p), Some(_)) => (Some(price(p)), Some(stock())),
        _ => (None, None),
    };
    ProductData {
        id: id.clone(),
        store_id: template.store_id.clone(),
        brand: template.brand.clone(),
        category: template.category.clone(),
        name: format!("{} {edition_zh}", template.name),
        name_en: format!("{} {edition_en} {code}", template.name_en),
        description: template.description.clone(),
        description_en: template.description_en.clone(),
        rating: (rng.random_range(35..=50) as f32) / 10.0,
        images: vec![format!("/images/{id}.jpg")],
        skus,
        price_cents,
        stock: own_stock,
    }
}

/// Writes a large mall's data folder as CSV (`brands.csv`, `stores.csv`, `products.csv`,
/// `skus.csv`):
/// `stores` stores varied from the demo's, `products` products varied from the demo's in
/// them, each with `skus_per_product` SKUs; the same for the same seed. For measuring how a
/// mall's own data loads (`examples/folder_scale.rs`).
pub fn generate_folder(
    dir: &std::path::Path,
    stores: usize,
    products: usize,
    skus_per_product: usize,
    seed: u64,
) -> std::io::Result<()> {
    let data: CatalogData = serde_json::from_str(DEMO_JSON).expect("the demo catalog is valid JSON");
    let mut rng = StdRng::seed_from_u64(seed);
    std::fs::create_dir_all(dir)?;
    let csv_error = |e: csv::Error| std::io::Error::other(e.to_string());

    // Brands: the demo's, with their Chinese names and the other names shoppers use.
    let mut out = csv::Writer::from_path(dir.join("brands.csv")).map_err(csv_error)?;
    out.write_record(["name", "name_zh", "aliases"]).map_err(csv_error)?;
    for brand in &data.brands {
        out.write_record([&brand.name, &brand.name_zh, &brand.aliases.join(";")]).map_err(csv_error)?;
    }
    out.flush()?;

    // Stores: the demo's, then numbered branches of them.
    let mut by_template: std::collections::HashMap<&str, Vec<String>> = std::collections::HashMap::new();
    let mut out = csv::Writer::from_path(dir.join("stores.csv")).map_err(csv_error)?;
    out.write_record([
        "id",
        "name",
        "name_en",
        "category",
        "floor",
        "unit",
        "open_hours",
        "phone",
        "tags",
        "brand",
    ])
    .map_err(csv_error)?;
    for i in 0..stores {
        let template = &data.stores[i % data.stores.len()];
        let branch = i / data.stores.len();
        let id = format!("s-{:04}", i + 1);
        let (name, name_en) = if branch == 0 {
            (template.store.name.clone(), template.store.name_en.clone())
        } else {
            (
                format!("{} {}号店", template.store.name, branch + 1),
                format!("{} #{}", template.store.name_en, branch + 1),
            )
        };
        let floor = template.store.floor;
        let label = if floor < 0 { format!("B{}", -floor) } else { format!("{floor}F") };
        out.write_record([
            id.as_str(),
            &name,
            &name_en,
            &template.store.category,
            &label,
            &format!("{label}-{:03}", i + 1),
            &template.store.open_hours,
            &template.store.phone,
            &template.store.tags.join(";"),
            &template.brand,
        ])
        .map_err(csv_error)?;
        by_template.entry(template.store.id.as_str()).or_default().push(id);
    }
    out.flush()?;

    let sizes = ["S", "M", "L", "XL", "XXL", "3XL", "4XL", "5XL"];
    let mut products_out = csv::Writer::from_path(dir.join("products.csv")).map_err(csv_error)?;
    products_out
        .write_record([
            "id",
            "store",
            "brand",
            "category",
            "name",
            "name_en",
            "description",
            "rating",
            "price",
            "stock",
        ])
        .map_err(csv_error)?;
    let mut skus_out = csv::Writer::from_path(dir.join("skus.csv")).map_err(csv_error)?;
    skus_out.write_record(["id", "product", "label", "price", "stock"]).map_err(csv_error)?;
    let templates: Vec<&ProductData> =
        data.products.iter().filter(|p| by_template.contains_key(p.store_id.as_str())).collect();
    for i in 0..products {
        let template = templates[rng.random_range(0..templates.len())];
        let stores_of = &by_template[template.store_id.as_str()];
        let store = &stores_of[rng.random_range(0..stores_of.len())];
        let id = format!("g-{:06}", i + 1);
        let (edition_zh, edition_en) = EDITIONS[rng.random_range(0..EDITIONS.len())];
        let code = format!(
            "{}{}",
            STYLE_PREFIXES[rng.random_range(0..STYLE_PREFIXES.len())],
            rng.random_range(1000..10_000)
        );
        let base =
            template.price_cents.or_else(|| template.skus.first().map(|s| s.price_cents)).unwrap_or(9_900);
        let price = ((base as f64 * rng.random_range(0.7..1.4) / 100.0).round() as i64).max(1);
        let rating = format!("{:.1}", rng.random_range(35..=50) as f32 / 10.0);
        products_out
            .write_record([
                id.as_str(),
                store,
                &template.brand,
                &template.category,
                &format!("{} {edition_zh}", template.name),
                &format!("{} {edition_en} {code}", template.name_en),
                &template.description,
                &rating,
                &price.to_string(),
                "",
            ])
            .map_err(csv_error)?;
        for k in 0..skus_per_product {
            let label = match template.skus.get(k) {
                Some(sku) => sku.label.clone(),
                None => sizes[k % sizes.len()].to_owned(),
            };
            let stock = if rng.random_bool(0.08) { 0 } else { rng.random_range(1..=40) };
            skus_out
                .write_record([&format!("{id}-{k}"), &id, &label, &price.to_string(), &stock.to_string()])
                .map_err(csv_error)?;
        }
    }
    products_out.flush()?;
    skus_out.flush()?;
    Ok(())
}
