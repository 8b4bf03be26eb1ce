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
        rating: (rng.random_range(35..=50) as f32) / 10.0,
        images: vec![format!("/images/{id}.jpg")],
        skus,
        price_cents,
        stock: own_stock,
    }
}
