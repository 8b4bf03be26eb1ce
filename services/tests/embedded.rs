//! The embedded demo mall as a shopper and an operator see it: the catalog's
//! size, bilingual search, the cart and order rules, idempotency and
//! persistence across a restart.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};

use services::embedded::CatalogError;
use services::*;

// ------------------------------------------------------------------ helpers

fn shopper(id: u32) -> Shopper {
    Shopper::new("telegram", id)
}

fn key(k: &str) -> Option<IdempotencyKey> {
    Some(IdempotencyKey(k.to_owned()))
}

fn products(keyword: &str) -> ProductQuery {
    ProductQuery { keyword: Some(keyword.to_owned()), ..Default::default() }
}

async fn search(mall: &EmbeddedMall, query: ProductQuery) -> Page<ProductBrief> {
    mall.search_products(&query).await.unwrap()
}

/// A Nike running shoe under 500 yuan and its size-42 SKU.
async fn nike_shoe_42(mall: &EmbeddedMall) -> (Product, Sku) {
    let hits = search(mall, ProductQuery { max_price_cents: Some(50_000), ..products("Nike 跑鞋") }).await;
    for brief in hits.items {
        let product = mall.get_product(&brief.id).await.unwrap();
        if let Some(sku) = product.skus.iter().find(|s| s.label == "42" && s.stock >= 3).cloned() {
            return (product, sku);
        }
    }
    panic!("no Nike running shoe under 500 yuan with size 42 in stock");
}

/// A product sold without SKUs (a LEGO set).
async fn plain_product(mall: &EmbeddedMall) -> Product {
    let hits = search(mall, products("乐高")).await;
    let product = mall.get_product(&hits.items[0].id).await.unwrap();
    assert!(product.skus.is_empty(), "LEGO sets are sold without SKUs");
    product
}

fn add(product: &Product, sku: Option<&Sku>, quantity: u32) -> AddCartItem {
    AddCartItem { product_id: product.brief.id.clone(), sku_id: sku.map(|s| s.sku_id.clone()), quantity }
}

/// Telegram's payment of the whole of `order`, as charge `charge_id`.
fn payment(order: &Order, charge_id: &str) -> RecordPayment {
    RecordPayment {
        provider: "telegram".into(),
        amount_cents: order.total_cents,
        currency: order.currency.clone(),
        charge_id: charge_id.into(),
    }
}

async fn sku_stock(mall: &EmbeddedMall, product_id: &str, sku_id: &str) -> u32 {
    let product = mall.get_product(product_id).await.unwrap();
    product.skus.iter().find(|s| s.sku_id == sku_id).unwrap().stock
}

/// A database file under the temp dir, removed (with its WAL files) on drop.
struct TempDb(PathBuf);

impl TempDb {
    fn new(name: &str) -> Self {
        static N: AtomicU32 = AtomicU32::new(0);
        let n = N.fetch_add(1, Ordering::Relaxed);
        TempDb(std::env::temp_dir().join(format!("mallbot-{name}-{}-{n}.db", std::process::id())))
    }
}

impl Drop for TempDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", self.0.display()));
        }
    }
}

// ------------------------------------------------------------------ catalog

#[test]
fn the_demo_mall_is_a_real_sized_mall() {
    let catalog = Catalog::demo();
    assert!(catalog.floors().len() >= 6, "{} floors", catalog.floors().len());
    assert!(catalog.areas().len() >= 8, "{} areas", catalog.areas().len());
    assert!(catalog.stores().len() >= 40, "{} stores", catalog.stores().len());
    assert!(catalog.product_count() >= 600, "{} products", catalog.product_count());
    let labels: Vec<&str> = catalog.floors().iter().map(|f| f.label.as_str()).collect();
    assert_eq!(labels, ["B1", "1F", "2F", "3F", "4F", "5F"]);
    for area in catalog.areas() {
        assert!(!area.name.is_empty() && !area.name_en.is_empty(), "{area:?}");
        assert!(!area.store_ids.is_empty(), "area {} has stores", area.id);
        for id in &area.store_ids {
            assert_eq!(catalog.store(id).unwrap().floor, area.floor, "{id} is on its area's floor");
        }
    }
    for name in
        ["s-nike", "s-adidas", "s-uniqlo", "s-apple", "s-starbucks", "s-haidilao", "s-li-ning", "s-lego"]
    {
        assert!(catalog.store(name).is_some(), "{name}");
    }
}

#[test]
fn every_store_can_be_reached_from_the_main_entrance() {
    let catalog = Catalog::demo();
    for store in catalog.stores() {
        let route = catalog.route(&store.id, None).unwrap();
        assert_eq!(route.from, "main_entrance");
        assert_eq!(route.to_store_id, store.id);
        assert_eq!(route.floor, store.floor);
        assert!(route.steps.len() >= 2, "{route:?}");
        assert!(route.steps.last().unwrap().contains(&store.unit), "the last step names the unit: {route:?}");
        assert!(route.distance_m > 0 && route.eta_minutes > 0, "{route:?}");
        assert!(!store.open_hours.is_empty() && !store.phone.is_empty(), "{store:?}");
    }
}

#[test]
fn stores_have_current_promotions_and_dated_reviews() {
    let catalog = Catalog::demo();
    for store in catalog.stores() {
        let promotions = catalog.promotions(&store.id).unwrap();
        assert!(!promotions.is_empty(), "{} has promotions", store.id);
        for p in promotions {
            assert!(
                p.valid_until.as_str() > "2026-11-30",
                "{} promotion still valid in 2026-11: {p:?}",
                store.id
            );
            assert!(is_rfc3339(&p.valid_until), "{p:?}");
        }
        let reviews = catalog.reviews(&store.id).unwrap();
        assert!(reviews.len() >= 3, "{} has reviews", store.id);
        assert!(reviews.windows(2).all(|w| w[0].created_at >= w[1].created_at), "newest first");
        for r in reviews {
            assert!(is_rfc3339(&r.created_at) && (0.0..=5.0).contains(&r.rating), "{r:?}");
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SS` followed by `Z` or `±HH:MM`.
fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| r.into_iter().all(|i| b.get(i).is_some_and(u8::is_ascii_digit));
    let zone = &s[19.min(s.len())..];
    b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19)
        && (zone == "Z" || (zone.len() == 6 && (zone.starts_with('+') || zone.starts_with('-'))))
}

#[test]
fn products_carry_both_languages_skus_and_images() {
    let catalog = Catalog::demo();
    for id in catalog.product_ids() {
        let p = catalog.product(id).unwrap();
        assert!(p.brief.name.chars().any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c)), "Chinese name: {id}");
        assert!(!catalog.product_name_en(id).unwrap().is_empty(), "English name: {id}");
        assert!(p.brief.price_cents > 0 && (0.0..=5.0).contains(&p.brief.rating), "{id}");
        assert!(p.images.iter().all(|i| i.starts_with("/images/") && i.ends_with(".jpg")), "{id}");
        assert!(catalog.store(&p.brief.store_id).is_some(), "{id}");
    }
    let shoe = catalog
        .product_ids()
        .filter_map(|id| catalog.product(id))
        .find(|p| p.brief.category == "running_shoes");
    let labels: Vec<String> = shoe.unwrap().skus.iter().map(|s| s.label.clone()).collect();
    assert!(labels.contains(&"42".to_owned()), "shoes come in sizes: {labels:?}");
}

#[tokio::test]
async fn nike_sells_running_shoes_on_both_sides_of_500_yuan_with_size_42() {
    let mall = EmbeddedMall::in_memory();
    let all = search(
        &mall,
        ProductQuery {
            brand: Some("Nike".into()),
            category: Some("running_shoes".into()),
            page: PageRequest::first(50),
            ..Default::default()
        },
    )
    .await;
    let with_42 = |p: &&ProductBrief| p.sizes.iter().any(|s| s == "42");
    let cheap = all.items.iter().filter(|p| p.price_cents < 50_000).filter(with_42).count();
    let dear = all.items.iter().filter(|p| p.price_cents >= 50_000).filter(with_42).count();
    assert!(cheap >= 3, "{cheap} Nike running shoes under 500 with size 42");
    assert!(dear >= 3, "{dear} Nike running shoes from 500 with size 42");
}

#[test]
fn a_broken_catalog_is_refused_with_the_reason() {
    let mut data: serde_json::Value = serde_json::from_str(include_str!("../data/demo-mall.json")).unwrap();
    data["products"][0]["store_id"] = "s-nowhere".into();
    let err = Catalog::from_json(&data.to_string()).unwrap_err();
    assert!(matches!(err, CatalogError::Invalid(_)) && err.to_string().contains("s-nowhere"), "{err}");

    let mut data: serde_json::Value = serde_json::from_str(include_str!("../data/demo-mall.json")).unwrap();
    data["synonyms"].as_array_mut().unwrap().push(serde_json::json!(["耐克", "swoosh"]));
    let err = Catalog::from_json(&data.to_string()).unwrap_err();
    assert!(err.to_string().contains("耐克"), "a word with two meanings is named: {err}");

    assert!(matches!(Catalog::from_json("{"), Err(CatalogError::Json(_))));
}

#[test]
fn generated_catalogs_are_large_and_the_same_for_a_seed() {
    let a = Catalog::generate(3_000, 7);
    let b = Catalog::generate(3_000, 7);
    let c = Catalog::generate(3_000, 8);
    assert_eq!(a.product_count(), 3_000);
    assert_eq!(a.stores().len(), Catalog::demo().stores().len());
    let ids: Vec<&str> = a.product_ids().take(3).collect();
    assert_eq!(ids, ["g-000001", "g-000002", "g-000003"]);
    assert_eq!(a.product("g-000042"), b.product("g-000042"));
    assert_ne!(a.product("g-000042"), c.product("g-000042"));
    let hits = a.search_products(&products("Nike 跑鞋"));
    assert!(hits.total > 10, "{}", hits.total);
    assert!(hits.items.iter().all(|p| p.brand == "Nike" && p.category == "running_shoes"));
}

// ------------------------------------------------------------------- search

fn all_nike_running_shoes(page: &Page<ProductBrief>) -> bool {
    !page.items.is_empty() && page.items.iter().all(|p| p.brand == "Nike" && p.category == "running_shoes")
}

#[tokio::test]
async fn the_shoppers_request_finds_nike_running_shoes_within_budget() {
    let mall = EmbeddedMall::in_memory();
    let query = ProductQuery {
        max_price_cents: Some(50_000),
        ..products("帮我买一双 Nike 跑鞋，500 以内的")
    };
    let hits = search(&mall, query).await;
    assert!(hits.total >= 3, "{hits:?}");
    assert!(all_nike_running_shoes(&hits), "{hits:?}");
    assert!(hits.items.iter().all(|p| p.price_cents <= 50_000), "{hits:?}");
    assert!(hits.items.iter().any(|p| p.sizes.contains(&"42".to_owned())), "{hits:?}");
}

#[tokio::test]
async fn nike_running_shoes_are_found_in_chinese_english_and_mixed() {
    let mall = EmbeddedMall::in_memory();
    let mut totals = Vec::new();
    for keyword in
        ["Nike 跑鞋", "nike running shoes", "耐克跑步鞋", "NIKE Running Shoe", "耐克 running shoes"]
    {
        let hits = search(&mall, products(keyword)).await;
        assert!(all_nike_running_shoes(&hits), "{keyword}: {hits:?}");
        totals.push(hits.total);
    }
    assert!(totals.windows(2).all(|w| w[0] == w[1]), "every spelling finds the same shoes: {totals:?}");
}

#[tokio::test]
async fn running_shoes_of_every_brand_in_either_language() {
    let mall = EmbeddedMall::in_memory();
    let en = search(&mall, ProductQuery { page: PageRequest::first(50), ..products("running shoes") }).await;
    let zh = search(&mall, products("跑鞋")).await;
    assert_eq!(en.total, zh.total);
    assert!(en.items.iter().all(|p| p.category == "running_shoes"), "{en:?}");
    let brands: std::collections::HashSet<&str> = en.items.iter().map(|p| p.brand.as_str()).collect();
    assert!(brands.len() >= 4, "{brands:?}");
}

#[tokio::test]
async fn brands_and_categories_by_their_chinese_names() {
    let mall = EmbeddedMall::in_memory();
    let uniqlo = search(&mall, products("优衣库")).await;
    assert!(uniqlo.total >= 10 && uniqlo.items.iter().all(|p| p.brand == "Uniqlo"), "{uniqlo:?}");
    let coffee = search(&mall, products("咖啡")).await;
    assert!(coffee.total >= 10 && coffee.items.iter().all(|p| p.category == "coffee"), "{coffee:?}");
    let hotpot = search(&mall, products("火锅")).await;
    assert!(hotpot.total >= 5 && hotpot.items.iter().all(|p| p.category == "hotpot"), "{hotpot:?}");
    let phones = search(&mall, ProductQuery { max_price_cents: Some(300_000), ..products("手机") }).await;
    assert!(
        phones.total >= 2 && phones.items.iter().all(|p| p.category == "phones" && p.price_cents <= 300_000)
    );
    let tablets = search(&mall, products("平板")).await;
    assert!(tablets.items.iter().all(|p| p.category == "tablets"), "{tablets:?}");
    let laptops = search(&mall, ProductQuery { brand: Some("苹果".into()), ..products("笔记本电脑") }).await;
    assert!(
        !laptops.items.is_empty() && laptops.items.iter().all(|p| p.category == "laptops"),
        "{laptops:?}"
    );
}

#[tokio::test]
async fn brand_and_category_filters_accept_either_language_and_any_case() {
    let mall = EmbeddedMall::in_memory();
    let filtered = |brand: &str, category: &str| ProductQuery {
        brand: Some(brand.into()),
        category: Some(category.into()),
        ..Default::default()
    };
    let reference = search(&mall, filtered("Nike", "running_shoes")).await;
    assert!(all_nike_running_shoes(&reference));
    for (brand, category) in [("nike", "跑鞋"), ("耐克", "Running Shoes"), ("NIKE", "跑步鞋")] {
        assert_eq!(search(&mall, filtered(brand, category)).await, reference, "{brand} / {category}");
    }
    let shoes = search(&mall, ProductQuery { category: Some("鞋".into()), ..Default::default() }).await;
    assert!(shoes.total > reference.total, "a broad category holds its sub-categories");
    let unknown = search(&mall, ProductQuery { brand: Some("Gucci".into()), ..Default::default() }).await;
    assert_eq!(unknown.total, 0);
}

#[tokio::test]
async fn price_bounds_hold_and_unknown_words_find_nothing() {
    let mall = EmbeddedMall::in_memory();
    let query = ProductQuery {
        min_price_cents: Some(80_000),
        max_price_cents: Some(120_000),
        page: PageRequest::first(50),
        ..products("跑鞋")
    };
    let hits = search(&mall, query).await;
    assert!(hits.total > 0);
    assert!(hits.items.iter().all(|p| (80_000..=120_000).contains(&p.price_cents)), "{hits:?}");
    assert_eq!(search(&mall, products("xyzzy")).await.total, 0);
    assert_eq!(search(&mall, products("Nike 咖啡")).await.total, 0, "no product is both");
}

#[tokio::test]
async fn best_matches_come_first_then_stock_and_rating() {
    let mall = EmbeddedMall::in_memory();
    // Brand plus category beats either alone: Nike running shoes lead even
    // though the keyword also names every other Nike product.
    let hits = search(&mall, ProductQuery { page: PageRequest::first(20), ..products("Nike 跑鞋") }).await;
    assert!(all_nike_running_shoes(&hits));
    // Equally good matches: in stock first, then by rating.
    let (shoe, _) = nike_shoe_42(&mall).await;
    let ranked =
        |page: &Page<ProductBrief>| page.items.iter().map(|p| (p.in_stock, p.rating)).collect::<Vec<_>>();
    for sku in &shoe.skus {
        mall.set_stock(&sku.sku_id, 0).unwrap();
    }
    let query = ProductQuery {
        brand: Some("Nike".into()),
        category: Some("running_shoes".into()),
        page: PageRequest::first(50),
        ..Default::default()
    };
    let page = search(&mall, query).await;
    let order = ranked(&page);
    assert!(order.windows(2).all(|w| w[0].0 >= w[1].0), "in stock first: {order:?}");
    assert!(
        order.windows(2).filter(|w| w[0].0 == w[1].0).all(|w| w[0].1 >= w[1].1),
        "then rating: {order:?}"
    );
    let last = page.items.last().unwrap();
    assert_eq!((last.id.as_str(), last.in_stock, last.sizes.len()), (shoe.brief.id.as_str(), false, 0));
}

#[tokio::test]
async fn pages_follow_limit_and_offset() {
    let mall = EmbeddedMall::in_memory();
    let page = |limit, offset| ProductQuery {
        page: PageRequest { limit: Some(limit), offset: Some(offset) },
        ..products("鞋")
    };
    let first = search(&mall, page(5, 0)).await;
    let second = search(&mall, page(5, 5)).await;
    let both = search(&mall, page(10, 0)).await;
    assert_eq!(first.items.len(), 5);
    assert_eq!(first.total, both.total);
    let joined: Vec<_> = first.items.iter().chain(&second.items).cloned().collect();
    assert_eq!(joined, both.items);
    assert_eq!(search(&mall, products("鞋")).await.items.len(), 10, "default limit");
    assert_eq!(search(&mall, page(500, 0)).await.items.len(), 50, "limit is capped");
    assert!(search(&mall, page(5, 100_000)).await.items.is_empty());
}

#[tokio::test]
async fn stores_are_found_by_name_category_and_what_they_sell() {
    let mall = EmbeddedMall::in_memory();
    let stores = |keyword: &str| StoreQuery { keyword: Some(keyword.into()), ..Default::default() };
    let first_id = |page: Page<Store>| page.items.first().map(|s| s.id.clone()).unwrap_or_default();
    assert_eq!(first_id(mall.search_stores(&stores("优衣库")).await.unwrap()), "s-uniqlo");
    assert_eq!(first_id(mall.search_stores(&stores("uniqlo")).await.unwrap()), "s-uniqlo");
    assert_eq!(first_id(mall.search_stores(&stores("耐克")).await.unwrap()), "s-nike");
    let coffee = mall.search_stores(&stores("咖啡")).await.unwrap();
    let top: Vec<&str> = coffee.items.iter().take(2).map(|s| s.category.as_str()).collect();
    assert_eq!(top, ["coffee", "coffee"], "{coffee:?}");
    let running = mall.search_stores(&stores("跑鞋")).await.unwrap();
    assert!(running.items.iter().any(|s| s.id == "s-li-ning") && running.items.iter().all(|s| s.floor == 3));
    let on_3f = mall.search_stores(&StoreQuery { floor: Some(3), ..Default::default() }).await.unwrap();
    assert!(on_3f.total >= 8 && on_3f.items.iter().all(|s| s.floor == 3), "{on_3f:?}");
    let sportswear = mall
        .search_stores(&StoreQuery { category: Some("运动服饰".into()), ..Default::default() })
        .await
        .unwrap();
    assert!(sportswear.items.iter().any(|s| s.id == "s-adidas"));
    assert!(sportswear.items.iter().all(|s| s.category == "sportswear"), "{sportswear:?}");
}

// --------------------------------------------------- stores, areas, routes

#[tokio::test]
async fn store_pages_areas_and_routes() {
    let mall = EmbeddedMall::in_memory();
    assert_eq!(mall.health().await.unwrap().status, "ok");
    let nike = mall.get_store("s-nike").await.unwrap();
    assert_eq!((nike.name.as_str(), nike.name_en.as_str(), nike.floor), ("耐克", "Nike", 3));
    assert!(!mall.store_promotions("s-nike").await.unwrap().items.is_empty());
    let all = mall.store_reviews("s-nike", PageRequest::first(50)).await.unwrap();
    let page = mall.store_reviews("s-nike", PageRequest { limit: Some(2), offset: Some(1) }).await.unwrap();
    assert_eq!(page.total, all.total);
    assert_eq!(page.items, all.items[1..3]);
    let areas = mall.list_areas().await.unwrap();
    assert!(areas.total >= 8);
    let sports = mall.get_area("a-sports").await.unwrap();
    assert!(sports.store_ids.contains(&"s-nike".to_owned()));
    for missing in [mall.get_store("s-nope").await.unwrap_err(), mall.get_area("a-nope").await.unwrap_err()] {
        assert_eq!(missing.code(), "NOT_FOUND");
    }
    assert_eq!(mall.store_promotions("s-nope").await.unwrap_err().code(), "NOT_FOUND");
}

#[tokio::test]
async fn routes_start_at_the_main_entrance_or_at_another_store() {
    let mall = EmbeddedMall::in_memory();
    let default = mall.route("s-nike", None).await.unwrap();
    assert_eq!(default, mall.route("s-nike", Some("main_entrance".into())).await.unwrap());
    assert!(default.steps.iter().any(|s| s.contains("3F")), "{default:?}");
    let from_starbucks = mall.route("s-nike", Some("s-starbucks".into())).await.unwrap();
    assert_eq!((from_starbucks.from.as_str(), from_starbucks.floor), ("s-starbucks", 3));
    assert!(from_starbucks.steps[0].contains("星巴克"), "{from_starbucks:?}");
    assert!(from_starbucks.steps.iter().any(|s| s.contains("上到 3F")), "{from_starbucks:?}");
    let next_door = mall.route("s-adidas", Some("s-nike".into())).await.unwrap();
    assert!(next_door.distance_m < default.distance_m && next_door.steps.len() == 2, "{next_door:?}");
    assert_eq!(mall.route("s-nope", None).await.unwrap_err().code(), "NOT_FOUND");
    let bad_from = mall.route("s-nike", Some("the moon".into())).await.unwrap_err();
    assert!(
        matches!(&bad_from, ServiceError::InvalidArgument { field: Some(f), .. } if f == "from"),
        "{bad_from:?}"
    );
}

// -------------------------------------------------------------------- carts

#[tokio::test]
async fn quantity_must_be_between_1_and_99() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    for quantity in [0, 100] {
        let err = mall.add_cart_item(&shopper(1), &add(&shoe, Some(&sku), quantity), None).await.unwrap_err();
        assert!(
            matches!(&err, ServiceError::InvalidArgument { field: Some(f), .. } if f == "quantity"),
            "{quantity}: {err:?}"
        );
    }
    assert!(mall.get_cart(&shopper(1)).await.unwrap().items.is_empty());
}

#[tokio::test]
async fn a_product_with_skus_needs_one_and_the_error_lists_them() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let err = mall.add_cart_item(&shopper(1), &add(&shoe, None, 1), None).await.unwrap_err();
    let ServiceError::InvalidArgument { field: Some(field), message } = &err else { panic!("{err:?}") };
    assert_eq!(field, "sku_id");
    assert!(message.contains(&format!("{} (42", sku.sku_id)), "names the SKU ids and labels: {message}");
    assert!(shoe.skus.iter().all(|s| message.contains(&s.sku_id)), "{message}");
}

#[tokio::test]
async fn unknown_products_and_skus_are_not_found() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, _) = nike_shoe_42(&mall).await;
    let lego = plain_product(&mall).await;
    let requests = [
        AddCartItem { product_id: "p-9999".into(), sku_id: None, quantity: 1 },
        AddCartItem { product_id: shoe.brief.id.clone(), sku_id: Some("p-9999-42".into()), quantity: 1 },
        // A SKU of another product.
        AddCartItem {
            product_id: lego.brief.id.clone(),
            sku_id: Some(shoe.skus[0].sku_id.clone()),
            quantity: 1,
        },
    ];
    for request in requests {
        let err = mall.add_cart_item(&shopper(1), &request, None).await.unwrap_err();
        assert_eq!(err.code(), "NOT_FOUND", "{request:?}: {err:?}");
    }
    assert_eq!(mall.get_product("p-9999").await.unwrap_err().code(), "NOT_FOUND");
}

#[tokio::test]
async fn adding_again_raises_the_line_until_the_stock_runs_out() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    mall.set_stock(&sku.sku_id, 3).unwrap();
    let first = mall.add_cart_item(&shopper(1), &add(&shoe, Some(&sku), 2), None).await.unwrap();
    let cart = mall.add_cart_item(&shopper(1), &add(&shoe, Some(&sku), 1), None).await.unwrap();
    assert_eq!(cart.items.len(), 1, "one line per product and SKU");
    assert_eq!(cart.items[0].item_id, first.items[0].item_id, "the same line grew");
    let line = &cart.items[0];
    assert_eq!((line.quantity, line.sku_label.as_deref()), (3, Some("42")));
    assert_eq!(line.line_total_cents, 3 * sku.price_cents);
    assert_eq!(cart.total_cents, line.line_total_cents);
    let err = mall.add_cart_item(&shopper(1), &add(&shoe, Some(&sku), 1), None).await.unwrap_err();
    let ServiceError::OutOfStock { message } = &err else { panic!("{err:?}") };
    assert!(message.contains("only 3 left") && message.contains("already has 3"), "{message}");
    assert_eq!(mall.get_cart(&shopper(1)).await.unwrap(), cart, "a refused add changes nothing");
}

#[tokio::test]
async fn products_without_skus_are_added_by_product_id() {
    let mall = EmbeddedMall::in_memory();
    let lego = plain_product(&mall).await;
    let cart = mall.add_cart_item(&shopper(1), &add(&lego, None, 2), None).await.unwrap();
    let line = &cart.items[0];
    assert_eq!(
        (line.product_id.as_str(), line.sku_id.as_deref(), line.quantity),
        (lego.brief.id.as_str(), None, 2)
    );
    assert_eq!(line.unit_price_cents, lego.brief.price_cents);
}

#[tokio::test]
async fn carts_are_per_shopper_with_stable_ids() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let empty = mall.get_cart(&shopper(1)).await.unwrap();
    assert!(empty.items.is_empty() && empty.total_cents == 0 && empty.cart_id.starts_with("c-"));
    assert_eq!(mall.get_cart(&shopper(1)).await.unwrap().cart_id, empty.cart_id);
    let cart = mall.add_cart_item(&shopper(1), &add(&shoe, Some(&sku), 1), None).await.unwrap();
    assert_eq!(cart.cart_id, empty.cart_id);
    let other = mall.get_cart(&shopper(2)).await.unwrap();
    assert!(other.items.is_empty() && other.cart_id != cart.cart_id);

    let item_id = &cart.items[0].item_id;
    let err = mall.remove_cart_item(&shopper(2), item_id, None).await.unwrap_err();
    assert_eq!(err.code(), "NOT_FOUND", "another shopper's cart item");
    assert_eq!(mall.get_cart(&shopper(1)).await.unwrap().items.len(), 1);
    let after = mall.remove_cart_item(&shopper(1), item_id, None).await.unwrap();
    assert!(after.items.is_empty() && after.cart_id == cart.cart_id);
    assert_eq!(mall.remove_cart_item(&shopper(1), item_id, None).await.unwrap_err().code(), "NOT_FOUND");

    mall.add_cart_item(&shopper(1), &add(&shoe, Some(&sku), 1), None).await.unwrap();
    let cleared = mall.clear_cart(&shopper(1), None).await.unwrap();
    assert!(cleared.items.is_empty() && cleared.total_cents == 0 && cleared.cart_id == cart.cart_id);
}

// ------------------------------------------------------------------- orders

#[tokio::test]
async fn an_order_reserves_stock_empties_the_cart_and_is_picked_up_at_the_first_store() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let lego = plain_product(&mall).await;
    mall.set_stock(&lego.brief.id, 1).unwrap();
    let buyer = shopper(1);
    mall.add_cart_item(&buyer, &add(&shoe, Some(&sku), 2), None).await.unwrap();
    let cart = mall.add_cart_item(&buyer, &add(&lego, None, 1), None).await.unwrap();
    let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
    let order = mall.create_order(&buyer, &request, None).await.unwrap();

    assert!(order.order_id.starts_with("o-"), "{}", order.order_id);
    assert_eq!(order.status, OrderStatus::PendingPayment);
    assert_eq!(order.items, cart.items);
    assert_eq!(order.total_cents, 2 * sku.price_cents + lego.brief.price_cents);
    assert_eq!(order.pickup_store_id, "s-nike");
    assert!(is_rfc3339(&order.created_at) && order.created_at.ends_with('Z'), "{}", order.created_at);
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock - 2);
    assert!(!mall.get_product(&lego.brief.id).await.unwrap().brief.in_stock, "the last LEGO set is reserved");
    let cart_after = mall.get_cart(&buyer).await.unwrap();
    assert!(cart_after.items.is_empty() && cart_after.cart_id == cart.cart_id, "same cart, emptied");
    assert_eq!(mall.get_order(&buyer, &order.order_id).await.unwrap(), order);
}

#[tokio::test]
async fn an_empty_or_foreign_cart_places_no_order() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let own = mall.get_cart(&shopper(1)).await.unwrap();
    let order = |cart_id: &str| CreateOrder { cart_id: cart_id.to_owned(), expected_total_cents: None };
    assert_eq!(
        mall.create_order(&shopper(1), &order(&own.cart_id), None).await.unwrap_err(),
        ServiceError::CartEmpty
    );
    let theirs = mall.add_cart_item(&shopper(2), &add(&shoe, Some(&sku), 1), None).await.unwrap();
    let err = mall.create_order(&shopper(1), &order(&theirs.cart_id), None).await.unwrap_err();
    assert_eq!(err.code(), "NOT_FOUND");
    assert_eq!(mall.get_cart(&shopper(2)).await.unwrap(), theirs, "the other cart is untouched");
    assert_eq!(
        mall.create_order(&shopper(1), &order("c-unknown"), None).await.unwrap_err().code(),
        "NOT_FOUND"
    );
}

#[tokio::test]
async fn a_changed_price_is_reported_and_nothing_changes() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(1);
    let cart = mall.add_cart_item(&buyer, &add(&shoe, Some(&sku), 2), None).await.unwrap();
    mall.set_sku_price(&sku.sku_id, sku.price_cents - 5_000).unwrap();
    let new_total = 2 * (sku.price_cents - 5_000);

    let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
    let err = mall.create_order(&buyer, &request, None).await.unwrap_err();
    let ServiceError::PriceChanged { total_cents, .. } = err else { panic!("{err:?}") };
    assert_eq!(total_cents, new_total);
    let repriced = mall.get_cart(&buyer).await.unwrap();
    assert_eq!((repriced.items.len(), repriced.total_cents), (1, new_total), "the cart shows the new price");
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock, "no stock reserved");
    assert_eq!(mall.list_orders(&buyer, PageRequest::default()).await.unwrap().total, 0);

    let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(new_total) };
    let order = mall.create_order(&buyer, &request, None).await.unwrap();
    assert_eq!((order.total_cents, order.items[0].unit_price_cents), (new_total, sku.price_cents - 5_000));
}

#[tokio::test]
async fn a_product_price_change_reprices_products_without_skus() {
    let mall = EmbeddedMall::in_memory();
    let lego = plain_product(&mall).await;
    let cart = mall.add_cart_item(&shopper(1), &add(&lego, None, 1), None).await.unwrap();
    mall.set_product_price(&lego.brief.id, 12_300).unwrap();
    let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: Some(cart.total_cents) };
    let err = mall.create_order(&shopper(1), &request, None).await.unwrap_err();
    assert!(matches!(err, ServiceError::PriceChanged { total_cents: 12_300, .. }), "{err:?}");
    assert_eq!(mall.get_product(&lego.brief.id).await.unwrap().brief.price_cents, 12_300);
    assert_eq!(mall.set_sku_price(&lego.brief.id, -1).unwrap_err().code(), "INVALID_ARGUMENT");
    assert_eq!(mall.set_sku_price("nope", 1).unwrap_err().code(), "NOT_FOUND");
}

#[tokio::test]
async fn stock_sold_elsewhere_fails_the_order_and_leaves_cart_and_stock_as_they_were() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let lego = plain_product(&mall).await;
    let buyer = shopper(1);
    mall.add_cart_item(&buyer, &add(&lego, None, 1), None).await.unwrap();
    let cart = mall.add_cart_item(&buyer, &add(&shoe, Some(&sku), 3), None).await.unwrap();
    let lego_stock = mall.get_product(&lego.brief.id).await.unwrap();
    mall.set_stock(&sku.sku_id, 2).unwrap();

    let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: None };
    let err = mall.create_order(&buyer, &request, None).await.unwrap_err();
    let ServiceError::OutOfStock { message } = &err else { panic!("{err:?}") };
    assert!(message.contains("only 2 left"), "{message}");
    assert_eq!(mall.get_cart(&buyer).await.unwrap(), cart);
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, 2);
    assert_eq!(mall.get_product(&lego.brief.id).await.unwrap(), lego_stock, "the LEGO line was not reserved");
    assert_eq!(mall.list_orders(&buyer, PageRequest::default()).await.unwrap().total, 0);
}

#[tokio::test]
async fn cancelling_returns_the_stock_once_and_only_for_unpaid_or_paid_orders() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(1);
    let place = |quantity| {
        let mall = mall.clone();
        let (buyer, item) = (buyer.clone(), add(&shoe, Some(&sku), quantity));
        async move {
            let cart = mall.add_cart_item(&buyer, &item, None).await.unwrap();
            let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
            mall.create_order(&buyer, &request, None).await.unwrap()
        }
    };
    let order = place(2).await;
    assert_eq!(mall.cancel_order(&shopper(2), &order.order_id, None).await.unwrap_err().code(), "NOT_FOUND");
    assert_eq!(mall.get_order(&shopper(2), &order.order_id).await.unwrap_err().code(), "NOT_FOUND");

    let cancelled = mall.cancel_order(&buyer, &order.order_id, None).await.unwrap();
    assert_eq!(cancelled.status, OrderStatus::Cancelled);
    assert_eq!(
        (cancelled.order_id.as_str(), cancelled.total_cents),
        (order.order_id.as_str(), order.total_cents)
    );
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock);
    let again = mall.cancel_order(&buyer, &order.order_id, None).await.unwrap_err();
    assert!(
        matches!(&again, ServiceError::NotCancellable { message } if message.contains("CANCELLED")),
        "{again:?}"
    );
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock, "stock returned once");

    let ready = place(1).await;
    mall.pay_order(&buyer, &ready.order_id, &payment(&ready, "ch-ready"), None).await.unwrap();
    mall.mark_ready(&ready.order_id).await.unwrap();
    let err = mall.cancel_order(&buyer, &ready.order_id, None).await.unwrap_err();
    assert_eq!(err.code(), "ORDER_NOT_CANCELLABLE");
    assert!(err.to_string().contains("READY"), "{err}");
    assert_eq!(mall.get_order(&buyer, &ready.order_id).await.unwrap().status, OrderStatus::Ready);
    assert_eq!(mall.cancel_order(&buyer, "o-unknown", None).await.unwrap_err().code(), "NOT_FOUND");
}

#[tokio::test]
async fn orders_are_listed_newest_first_per_shopper() {
    let mall = EmbeddedMall::in_memory();
    let lego = plain_product(&mall).await;
    mall.set_stock(&lego.brief.id, 10).unwrap();
    let mut placed = Vec::new();
    for _ in 0..3 {
        let cart = mall.add_cart_item(&shopper(1), &add(&lego, None, 1), None).await.unwrap();
        let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
        placed.push(mall.create_order(&shopper(1), &request, None).await.unwrap().order_id);
    }
    let listed = mall.list_orders(&shopper(1), PageRequest::default()).await.unwrap();
    let ids: Vec<String> = listed.items.iter().map(|o| o.order_id.clone()).collect();
    placed.reverse();
    assert_eq!((ids, listed.total), (placed.clone(), 3));
    let page = mall.list_orders(&shopper(1), PageRequest { limit: Some(1), offset: Some(1) }).await.unwrap();
    assert_eq!((page.items[0].order_id.clone(), page.total), (placed[1].clone(), 3));
    assert_eq!(mall.list_orders(&shopper(2), PageRequest::default()).await.unwrap().total, 0);
}

// -------------------------------------------------------------- idempotency

#[tokio::test]
async fn a_repeated_key_answers_again_without_doing_it_twice() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(1);
    let item = add(&shoe, Some(&sku), 1);
    let first = mall.add_cart_item(&buyer, &item, key("add-1")).await.unwrap();
    let again = mall.add_cart_item(&buyer, &item, key("add-1")).await.unwrap();
    assert_eq!(again, first);
    assert_eq!(mall.get_cart(&buyer).await.unwrap().items[0].quantity, 1, "added once");

    let other = add(&shoe, Some(&sku), 2);
    let err = mall.add_cart_item(&buyer, &other, key("add-1")).await.unwrap_err();
    assert_eq!(err.code(), "CONFLICT", "same key, different body");
    let err = mall.clear_cart(&buyer, key("add-1")).await.unwrap_err();
    assert_eq!(err.code(), "CONFLICT", "same key, different operation");
    assert_eq!(mall.get_cart(&buyer).await.unwrap().items.len(), 1);

    // Keys belong to a shopper: another shopper's identical key is a new request.
    let theirs = mall.add_cart_item(&shopper(2), &item, key("add-1")).await.unwrap();
    assert_ne!(theirs.cart_id, first.cart_id);

    let long = IdempotencyKey("k".repeat(129));
    let err = mall.clear_cart(&buyer, Some(long)).await.unwrap_err();
    assert_eq!(err.code(), "INVALID_ARGUMENT");
}

#[tokio::test]
async fn a_repeated_cancel_with_its_key_gets_the_cancelled_order_back() {
    let mall = EmbeddedMall::in_memory();
    let lego = plain_product(&mall).await;
    let cart = mall.add_cart_item(&shopper(1), &add(&lego, None, 1), None).await.unwrap();
    let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
    let order = mall.create_order(&shopper(1), &request, None).await.unwrap();
    let first = mall.cancel_order(&shopper(1), &order.order_id, key("cancel-1")).await.unwrap();
    let again = mall.cancel_order(&shopper(1), &order.order_id, key("cancel-1")).await.unwrap();
    assert_eq!((again.status, again), (OrderStatus::Cancelled, first));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_orders_with_one_key_create_one_order() {
    let mall = EmbeddedMall::in_memory();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(1);
    let cart = mall.add_cart_item(&buyer, &add(&shoe, Some(&sku), 1), None).await.unwrap();
    let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
    let attempt = || {
        let (mall, buyer, request) = (mall.clone(), buyer.clone(), request.clone());
        tokio::spawn(async move { mall.create_order(&buyer, &request, key("press-1")).await })
    };
    let (a, b) = tokio::join!(attempt(), attempt());
    let (a, b) = (a.unwrap().unwrap(), b.unwrap().unwrap());
    assert_eq!(a, b, "both presses get the one order");
    let orders = mall.list_orders(&buyer, PageRequest::default()).await.unwrap();
    assert_eq!(orders.total, 1);
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock - 1, "reserved once");
}

// -------------------------------------------------------------- persistence

#[tokio::test]
async fn carts_orders_stock_prices_and_keys_survive_a_restart() {
    let db = TempDb::new("restart");
    let buyer = shopper(7);
    let (shoe, sku, lego, order, cart) = {
        let mall = EmbeddedMall::open(&db.0).unwrap();
        let (shoe, sku) = nike_shoe_42(&mall).await;
        let lego = plain_product(&mall).await;
        let cart = mall.add_cart_item(&buyer, &add(&shoe, Some(&sku), 2), None).await.unwrap();
        let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: None };
        let order = mall.create_order(&buyer, &request, key("order-1")).await.unwrap();
        let cart = mall.add_cart_item(&buyer, &add(&lego, None, 1), None).await.unwrap();
        mall.set_product_price(&lego.brief.id, 4_200).unwrap();
        assert!(PathBuf::from(format!("{}-wal", db.0.display())).exists(), "the database is in WAL mode");
        (shoe, sku, lego, order, cart)
    };

    let mall = EmbeddedMall::open(&db.0).unwrap();
    let reopened_cart = mall.get_cart(&buyer).await.unwrap();
    assert_eq!(reopened_cart.cart_id, cart.cart_id);
    assert_eq!(reopened_cart.items.len(), 1);
    assert_eq!(
        (reopened_cart.items[0].product_id.as_str(), reopened_cart.total_cents),
        (lego.brief.id.as_str(), 4_200)
    );
    assert_eq!(
        mall.list_orders(&buyer, PageRequest::default()).await.unwrap().items,
        std::slice::from_ref(&order)
    );
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock - 2, "the reservation holds");
    let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: None };
    assert_eq!(
        mall.create_order(&buyer, &request, key("order-1")).await.unwrap(),
        order,
        "the key is remembered"
    );

    mall.cancel_order(&buyer, &order.order_id, None).await.unwrap();
    drop(mall);
    let mall = EmbeddedMall::open(&db.0).unwrap();
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock, "the returned stock holds");
    assert_eq!(mall.get_order(&buyer, &order.order_id).await.unwrap().status, OrderStatus::Cancelled);
}

// ---------------------------------------------------------------- lifecycle

const MINUTE: std::time::Duration = std::time::Duration::from_secs(60);

/// A mall whose unpaid orders live ten minutes, three at a time per shopper.
fn ten_minute_mall() -> EmbeddedMall {
    EmbeddedMall::in_memory().with_policy(OrderPolicy { ttl: 10 * MINUTE, max_open: 3 })
}

/// Puts `quantity` of the SKU in `buyer`'s cart and orders it.
async fn order_of(mall: &EmbeddedMall, buyer: &Shopper, shoe: &Product, sku: &Sku, quantity: u32) -> Order {
    let cart = mall.add_cart_item(buyer, &add(shoe, Some(sku), quantity), None).await.unwrap();
    let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: Some(cart.total_cents) };
    mall.create_order(buyer, &request, None).await.unwrap()
}

/// `(order_id, status, refund)` of every event of the feed, oldest first.
async fn feed(mall: &EmbeddedMall) -> Vec<(String, OrderStatus, Option<RefundStatus>)> {
    let page = mall.events(None, 50).await.unwrap();
    page.items.into_iter().map(|e| (e.order_id, e.status.expect("an order event"), e.refund)).collect()
}

#[tokio::test]
async fn an_unpaid_order_expires_at_its_ttl_and_returns_its_stock_once() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(30);
    let order = order_of(&mall, &buyer, &shoe, &sku, 2).await;
    let expires_at = order.expires_at.clone().expect("an unpaid order says when it expires");
    assert!(expires_at > order.created_at, "{expires_at} after {}", order.created_at);
    assert_eq!(order.currency, "CNY");

    mall.advance_clock(9 * MINUTE);
    assert_eq!(mall.get_order(&buyer, &order.order_id).await.unwrap().status, OrderStatus::PendingPayment);
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock - 2);

    mall.advance_clock(2 * MINUTE);
    let expired = mall.get_order(&buyer, &order.order_id).await.unwrap();
    assert_eq!((expired.status, expired.expires_at.as_deref()), (OrderStatus::Expired, None));
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock, "the stock is back");
    assert_eq!(mall.sweep_expired().unwrap(), 0, "expired once");
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock, "returned once");

    let events = mall.events(None, 10).await.unwrap().items;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(
        (events[0].order_id.as_str(), events[0].user.as_str(), events[0].status, events[0].at.as_str()),
        (order.order_id.as_str(), "telegram:30", Some(OrderStatus::Expired), expires_at.as_str())
    );
    let err = mall.cancel_order(&buyer, &order.order_id, None).await.unwrap_err();
    assert_eq!(err.code(), "ORDER_NOT_CANCELLABLE");
}

#[tokio::test]
async fn the_sweep_expires_due_orders_without_any_order_request() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    order_of(&mall, &shopper(31), &shoe, &sku, 1).await;
    order_of(&mall, &shopper(32), &shoe, &sku, 1).await;
    assert_eq!(mall.sweep_expired().unwrap(), 0);
    mall.advance_clock(10 * MINUTE);
    assert_eq!(mall.sweep_expired().unwrap(), 2);
    let product = mall.get_product(&shoe.brief.id).await.unwrap();
    assert_eq!(product.skus.iter().find(|s| s.sku_id == sku.sku_id).unwrap().stock, sku.stock);
    assert_eq!(mall.sweep_expired().unwrap(), 0);
}

#[tokio::test]
async fn a_shopper_holds_at_most_max_open_unpaid_orders() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(33);
    let mut orders = Vec::new();
    for _ in 0..3 {
        orders.push(order_of(&mall, &buyer, &shoe, &sku, 1).await);
    }
    let cart = mall.add_cart_item(&buyer, &add(&shoe, Some(&sku), 1), None).await.unwrap();
    let request = CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: None };
    let err = mall.create_order(&buyer, &request, None).await.unwrap_err();
    assert!(matches!(&err, ServiceError::TooManyOpenOrders { message } if message.contains('3')), "{err:?}");
    assert_eq!(mall.get_cart(&buyer).await.unwrap(), cart, "the cart is kept");
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock - 3, "nothing more reserved");
    order_of(&mall, &shopper(34), &shoe, &sku, 1).await;

    mall.pay_order(&buyer, &orders[0].order_id, &payment(&orders[0], "ch-33"), None).await.unwrap();
    let fourth = mall.create_order(&buyer, &request, None).await.unwrap();
    assert_eq!(fourth.status, OrderStatus::PendingPayment, "a paid order no longer counts");
}

#[tokio::test]
async fn a_payment_is_recorded_once_per_charge_and_must_match_the_order() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(35);
    let order = order_of(&mall, &buyer, &shoe, &sku, 1).await;

    let short = RecordPayment { amount_cents: order.total_cents - 1, ..payment(&order, "ch-1") };
    let err = mall.pay_order(&buyer, &order.order_id, &short, None).await.unwrap_err();
    assert_eq!(err.code(), "PAYMENT_MISMATCH", "{err:?}");
    let dollars = RecordPayment { currency: "USD".into(), ..payment(&order, "ch-1") };
    let err = mall.pay_order(&buyer, &order.order_id, &dollars, None).await.unwrap_err();
    assert_eq!(err.code(), "PAYMENT_MISMATCH", "{err:?}");
    assert_eq!(mall.get_order(&buyer, &order.order_id).await.unwrap().status, OrderStatus::PendingPayment);
    let err =
        mall.pay_order(&shopper(36), &order.order_id, &payment(&order, "ch-1"), None).await.unwrap_err();
    assert_eq!(err.code(), "NOT_FOUND", "another shopper's order");

    let paid = mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-1"), key("pay-1")).await.unwrap();
    assert_eq!((paid.status, paid.expires_at.as_deref()), (OrderStatus::Paid, None));
    let recorded = paid.payment.clone().expect("the payment is on the order");
    assert_eq!(
        (
            recorded.provider.as_str(),
            recorded.amount_cents,
            recorded.currency.as_str(),
            recorded.charge_id.as_str()
        ),
        ("telegram", order.total_cents, "CNY", "ch-1")
    );
    assert!(!recorded.paid_at.is_empty());

    mall.advance_clock(MINUTE);
    let again = mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-1"), None).await.unwrap();
    assert_eq!(again, paid, "the same charge answers as the first time");
    let err = mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-2"), None).await.unwrap_err();
    assert!(matches!(&err, ServiceError::NotPayable { message } if message.contains("ch-1")), "{err:?}");
    let reused = RecordPayment { provider: "other".into(), ..payment(&order, "ch-1") };
    let err = mall.pay_order(&buyer, &order.order_id, &reused, key("pay-1")).await.unwrap_err();
    assert_eq!(err.code(), "CONFLICT", "the key was used for another body");
    assert_eq!(mall.get_order(&buyer, &order.order_id).await.unwrap(), paid);
    assert_eq!(
        feed(&mall).await,
        [(order.order_id.clone(), OrderStatus::Paid, None)],
        "one payment, one event"
    );
    assert_eq!(
        sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await,
        sku.stock - 1,
        "a paid order keeps its stock"
    );

    mall.advance_clock(60 * MINUTE);
    assert_eq!(
        mall.get_order(&buyer, &order.order_id).await.unwrap().status,
        OrderStatus::Paid,
        "paid never expires"
    );
}

#[tokio::test]
async fn a_payment_within_15_minutes_of_expiry_revives_the_order_and_its_stock() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(37);
    let order = order_of(&mall, &buyer, &shoe, &sku, 2).await;
    mall.advance_clock(24 * MINUTE);
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock, "expired: stock back");

    let paid = mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-late"), None).await.unwrap();
    assert_eq!(paid.status, OrderStatus::Paid);
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock - 2, "taken again");
    let statuses: Vec<_> = feed(&mall).await.into_iter().map(|(_, status, _)| status).collect();
    assert_eq!(statuses, [OrderStatus::Expired, OrderStatus::Paid]);
}

#[tokio::test]
async fn a_payment_later_than_15_minutes_after_expiry_or_for_a_cancelled_order_is_refused() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(38);
    let late = order_of(&mall, &buyer, &shoe, &sku, 1).await;
    let cancelled = order_of(&mall, &buyer, &shoe, &sku, 1).await;
    mall.cancel_order(&buyer, &cancelled.order_id, None).await.unwrap();
    let err =
        mall.pay_order(&buyer, &cancelled.order_id, &payment(&cancelled, "ch-c"), None).await.unwrap_err();
    assert!(matches!(&err, ServiceError::NotPayable { message } if message.contains("CANCELLED")), "{err:?}");

    mall.advance_clock(25 * MINUTE);
    let err = mall.pay_order(&buyer, &late.order_id, &payment(&late, "ch-l"), None).await.unwrap_err();
    assert!(matches!(&err, ServiceError::NotPayable { message } if message.contains("expired")), "{err:?}");
    assert_eq!(mall.get_order(&buyer, &late.order_id).await.unwrap().status, OrderStatus::Expired);
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock);
}

#[tokio::test]
async fn a_late_payment_whose_stock_has_gone_is_refused_and_records_nothing() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(39);
    let order = order_of(&mall, &buyer, &shoe, &sku, 2).await;
    mall.advance_clock(11 * MINUTE);
    mall.sweep_expired().unwrap();
    mall.set_stock(&sku.sku_id, 1).unwrap();

    let err = mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-gone"), None).await.unwrap_err();
    assert!(matches!(&err, ServiceError::NotPayable { message } if message.contains("stock")), "{err:?}");
    let now = mall.get_order(&buyer, &order.order_id).await.unwrap();
    assert_eq!((now.status, now.payment), (OrderStatus::Expired, None));
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, 1, "the stock left is untouched");
    let statuses: Vec<_> = feed(&mall).await.into_iter().map(|(_, status, _)| status).collect();
    assert_eq!(statuses, [OrderStatus::Expired]);
}

#[tokio::test]
async fn cancelling_a_paid_order_owes_a_refund_until_refunds_are_completed() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(40);
    let order = order_of(&mall, &buyer, &shoe, &sku, 2).await;
    mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-r"), None).await.unwrap();

    let cancelled = mall.cancel_order(&buyer, &order.order_id, None).await.unwrap();
    assert_eq!(cancelled.status, OrderStatus::Cancelled);
    assert_eq!(
        cancelled.refund,
        Some(Refund { status: RefundStatus::Pending, amount_cents: order.total_cents })
    );
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock, "the stock is back");
    assert_eq!(mall.get_order(&buyer, &order.order_id).await.unwrap(), cancelled);

    assert_eq!(mall.complete_refunds().unwrap(), 1);
    let refunded = mall.get_order(&buyer, &order.order_id).await.unwrap();
    assert_eq!(refunded.refund.map(|r| r.status), Some(RefundStatus::Done));
    assert_eq!(mall.complete_refunds().unwrap(), 0);
    let id = order.order_id.clone();
    assert_eq!(
        feed(&mall).await,
        [
            (id.clone(), OrderStatus::Paid, None),
            (id.clone(), OrderStatus::Cancelled, None),
            (id, OrderStatus::Cancelled, Some(RefundStatus::Done)),
        ]
    );
}

#[tokio::test]
async fn staff_move_a_paid_order_to_ready_then_completed_and_refuse_other_moves() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let buyer = shopper(41);
    let order = order_of(&mall, &buyer, &shoe, &sku, 1).await;
    let err = mall.mark_ready(&order.order_id).await.unwrap_err();
    assert!(
        matches!(&err, ServiceError::Conflict { message } if message.contains("PENDING_PAYMENT")),
        "{err:?}"
    );
    mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-s"), None).await.unwrap();
    assert_eq!(mall.mark_picked_up(&order.order_id).await.unwrap_err().code(), "CONFLICT");

    assert_eq!(mall.mark_ready(&order.order_id).await.unwrap().status, OrderStatus::Ready);
    assert_eq!(mall.mark_ready(&order.order_id).await.unwrap_err().code(), "CONFLICT");
    let done = mall.mark_picked_up(&order.order_id).await.unwrap();
    assert_eq!(done.status, OrderStatus::Completed);
    assert_eq!(mall.get_order(&buyer, &order.order_id).await.unwrap(), done);
    assert_eq!(mall.mark_ready("o-unknown").await.unwrap_err().code(), "NOT_FOUND");
    assert_eq!(sku_stock(&mall, &shoe.brief.id, &sku.sku_id).await, sku.stock - 1, "sold");
    let statuses: Vec<_> = feed(&mall).await.into_iter().map(|(_, status, _)| status).collect();
    assert_eq!(statuses, [OrderStatus::Paid, OrderStatus::Ready, OrderStatus::Completed]);
}

#[tokio::test]
async fn events_page_oldest_first_and_resume_after_the_cursor() {
    let mall = ten_minute_mall();
    let (shoe, sku) = nike_shoe_42(&mall).await;
    let empty = mall.events(None, 10).await.unwrap();
    assert_eq!((empty.items.len(), empty.next), (0, None));
    let buyer = shopper(42);
    let order = order_of(&mall, &buyer, &shoe, &sku, 1).await;
    mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-e"), None).await.unwrap();
    mall.mark_ready(&order.order_id).await.unwrap();
    mall.mark_picked_up(&order.order_id).await.unwrap();
    let other = order_of(&mall, &buyer, &shoe, &sku, 1).await;
    mall.cancel_order(&buyer, &other.order_id, None).await.unwrap();

    let first = mall.events(None, 2).await.unwrap();
    assert_eq!(first.items.len(), 2);
    assert_eq!(first.next.as_deref(), Some(first.items[1].event_id.as_str()));
    let rest = mall.events(first.next.clone(), 10).await.unwrap();
    let all: Vec<_> = first.items.iter().chain(&rest.items).collect();
    let statuses: Vec<_> = all.iter().filter_map(|e| e.status).collect();
    assert_eq!(
        statuses,
        [OrderStatus::Paid, OrderStatus::Ready, OrderStatus::Completed, OrderStatus::Cancelled]
    );
    let ids: Vec<i64> = all.iter().map(|e| e.event_id.parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "{ids:?}");
    let end = mall.events(rest.next.clone(), 10).await.unwrap();
    assert_eq!((end.items.len(), end.next), (0, rest.next), "an empty page keeps the cursor");
    let err = mall.events(Some("yesterday".into()), 10).await.unwrap_err();
    assert_eq!(
        err,
        ServiceError::InvalidArgument {
            field: Some("after".into()),
            message: "`after` must be an event_id from this feed, not \"yesterday\"".into()
        }
    );
}

#[tokio::test]
async fn payments_and_events_survive_a_restart() {
    let db = TempDb::new("events");
    let buyer = shopper(43);
    let (order, paid, events) = {
        let mall = EmbeddedMall::open(&db.0).unwrap();
        let (shoe, sku) = nike_shoe_42(&mall).await;
        let order = order_of(&mall, &buyer, &shoe, &sku, 1).await;
        let paid = mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-keep"), None).await.unwrap();
        (order, paid, mall.events(None, 10).await.unwrap())
    };
    let mall = EmbeddedMall::open(&db.0).unwrap();
    assert_eq!(mall.events(None, 10).await.unwrap(), events);
    let again = mall.pay_order(&buyer, &order.order_id, &payment(&order, "ch-keep"), None).await.unwrap();
    assert_eq!(again, paid, "the charge is remembered");
    mall.mark_ready(&order.order_id).await.unwrap();
    let newer = mall.events(events.next.clone(), 10).await.unwrap();
    assert_eq!(newer.items.iter().filter_map(|e| e.status).collect::<Vec<_>>(), [OrderStatus::Ready]);
}

#[tokio::test]
async fn a_database_of_the_earlier_schema_gains_expiry_for_its_unpaid_orders() {
    let db = TempDb::new("old-schema");
    {
        let conn = rusqlite::Connection::open(&db.0).unwrap();
        conn.execute_batch(
            "CREATE TABLE orders (
                seq INTEGER PRIMARY KEY AUTOINCREMENT, order_id TEXT NOT NULL UNIQUE,
                shopper TEXT NOT NULL, status TEXT NOT NULL, items TEXT NOT NULL,
                total_cents INTEGER NOT NULL, created_at TEXT NOT NULL, pickup_store_id TEXT NOT NULL);
             INSERT INTO orders (order_id, shopper, status, items, total_cents, created_at, pickup_store_id)
             VALUES ('o-old', 'telegram:44', 'PENDING_PAYMENT', '[]', 1000, '2026-01-01T00:00:00Z', 's1'),
                    ('o-paid', 'telegram:44', 'PAID', '[]', 2000, '2026-01-01T00:00:00Z', 's1');",
        )
        .unwrap();
    }
    let mall = EmbeddedMall::open(&db.0).unwrap();
    let buyer = shopper(44);
    let old = mall.get_order(&buyer, "o-old").await.unwrap();
    assert_eq!((old.status, old.currency.as_str()), (OrderStatus::PendingPayment, "CNY"));
    assert!(old.expires_at.is_some(), "an old unpaid order now expires");
    assert_eq!(mall.get_order(&buyer, "o-paid").await.unwrap().status, OrderStatus::Paid);
    mall.advance_clock(31 * MINUTE);
    assert_eq!(mall.get_order(&buyer, "o-old").await.unwrap().status, OrderStatus::Expired);
    assert_eq!(mall.get_order(&buyer, "o-paid").await.unwrap().status, OrderStatus::Paid);
}

#[tokio::test]
async fn the_last_pair_coming_back_with_a_cancel_is_a_restock_of_its_size() {
    let mall = EmbeddedMall::in_memory();
    let buyer = Shopper::new("telegram", 77);
    let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..ProductQuery::default() };
    let hit = mall.search_products(&query).await.unwrap().items.remove(0);
    let product = mall.get_product(&hit.id).await.unwrap();
    let sku = product.skus[0].clone();
    mall.set_stock(&sku.sku_id, 1).unwrap();
    let item =
        AddCartItem { product_id: product.brief.id.clone(), sku_id: Some(sku.sku_id.clone()), quantity: 1 };
    let cart = mall.add_cart_item(&buyer, &item, None).await.unwrap();
    let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
    let order = mall.create_order(&buyer, &request, None).await.unwrap();
    let before = mall.events(None, 50).await.unwrap().next;
    mall.cancel_order(&buyer, &order.order_id, None).await.unwrap();
    let events = mall.events(before, 50).await.unwrap().items;
    let restocks: Vec<_> =
        events.iter().filter(|e| e.kind == services::EventKind::ProductRestocked).collect();
    assert_eq!(restocks.len(), 1, "{events:?}");
    assert_eq!(restocks[0].product_id.as_deref(), Some(product.brief.id.as_str()));
    assert_eq!(restocks[0].sizes, vec![sku.label]);
}

#[test]
fn instances_starting_at_once_on_one_database_file_all_open_it() {
    // Two bot instances on one machine start together on the same embedded mall: the second
    // waits for the first's lock instead of failing with "database is locked".
    for round in 0..5 {
        let db = TempDb::new(&format!("together-{round}"));
        let path = db.0.clone();
        let openers: Vec<_> = (0..4)
            .map(|_| {
                std::thread::spawn({
                    let path = path.clone();
                    move || EmbeddedMall::open(&path).map(|_| ())
                })
            })
            .collect();
        for opener in openers {
            let opened = opener.join().unwrap();
            assert!(opened.is_ok(), "round {round}: {opened:?}");
        }
    }
}
