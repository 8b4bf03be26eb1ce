//! A mall's own data from a folder: the example mall (`examples/malls/riverside`)
//! served by the embedded mall, a folder with ten kinds of mistakes refused with
//! every mistake located, and the files changed while the mall serves.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use services::embedded::{FolderError, read_folder};
use services::{
    AddCartItem, CreateOrder, EmbeddedMall, EventKind, EventQuery, MallApi, OrderStatus, PageRequest,
    ProductQuery, Shopper, StoreQuery,
};

fn riverside() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/malls/riverside")
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// A copy of the example mall in a fresh temporary folder (which the test may edit).
fn copy_of_riverside(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mallbot-folder-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(riverside()).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    dir
}

fn search(keyword: &str) -> ProductQuery {
    ProductQuery { keyword: Some(keyword.into()), page: PageRequest::first(10), ..ProductQuery::default() }
}

/// Replaces `old` by `new` in a file of `dir`, as an operator's editor would (a new file put in place).
fn edit(dir: &Path, file: &str, old: &str, new: &str) {
    let path = dir.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(old), "{file} has {old:?}");
    let tmp = dir.join(format!(".{file}.tmp"));
    std::fs::write(&tmp, text.replacen(old, new, 1)).unwrap();
    std::fs::rename(&tmp, &path).unwrap();
}

#[tokio::test]
async fn the_example_mall_serves_its_stores_products_offers_and_events() {
    let mall = EmbeddedMall::open_folder(riverside(), None).expect("the example mall has no mistakes");
    let catalog = mall.catalog();
    assert_eq!(catalog.name(), ("滨江天地", "Riverside Mall"));
    assert_eq!(catalog.stores().len(), 8);
    assert_eq!(catalog.product_count(), 18);

    let shoes = mall.search_products(&search("跑鞋")).await.unwrap();
    let names: Vec<&str> = shoes.items.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"亚瑟士 GEL-KAYANO 31 跑鞋"), "{names:?}");
    let kayano = shoes.items.iter().find(|p| p.id == "p-asics-kayano").unwrap();
    assert_eq!(kayano.price_cents, 129_900);
    assert_eq!(kayano.store_name, "亚瑟士");
    assert_eq!(kayano.sizes, ["42 / 黑色 Black", "43 / 黑色 Black"], "sizes in stock only");

    // A brand by its Chinese name, English words, a category of the folder's own.
    let by_zh = mall.search_products(&search("北面 冲锋衣")).await.unwrap();
    assert_eq!(by_zh.items[0].id, "p-tnf-jacket");
    let books = mall.search_products(&search("books")).await.unwrap();
    assert!(books.items.iter().any(|p| p.id == "p-book-santi"), "{:?}", books.items);
    let stores =
        mall.search_stores(&StoreQuery { keyword: Some("三星".into()), ..StoreQuery::default() }).await;
    assert_eq!(stores.unwrap().items[0].id, "s-samsung");

    let promotions = mall.store_promotions("s-asics").await.unwrap();
    assert_eq!(promotions.items[0].title, "跑鞋第二双 8 折");
    assert_eq!(promotions.items[0].valid_until, "2027-06-30T23:59:59+08:00");
    let store = mall.get_store("s-innisfree").await.unwrap();
    assert_eq!(store.area_id, "floor-1f", "a store naming no area is in its floor's");

    let events = mall.mall_events(&EventQuery::default()).await.unwrap();
    assert!(events.items.iter().any(|e| e.title_en == "Saturday riverside night run"), "{:?}", events.items);
    let offers = mall.mall_promotions().await.unwrap();
    assert_eq!(offers.items[0].title, "周末满 300 减 30");
    assert!(offers.items.iter().any(|o| o.store_id.as_deref() == Some("s-chagee")));

    let route = mall.route("s-chagee", None).await.unwrap();
    assert_eq!(route.floor, 3);
    assert!(route.steps.last().unwrap().contains("3F-02"), "{:?}", route.steps);
}

#[tokio::test]
async fn english_columns_are_read_when_there_and_optional() {
    let mall = EmbeddedMall::open_folder(riverside(), None).expect("the example mall has no mistakes");
    let kayano = mall.get_product("p-asics-kayano").await.unwrap();
    assert_eq!(kayano.description, "稳定支撑型跑鞋，适合长距离。");
    assert_eq!(
        kayano.description_en.as_deref(),
        Some("Stable, supportive running shoes for long distances.")
    );
    let offer = mall.store_promotions("s-asics").await.unwrap().items.remove(0);
    assert_eq!(offer.title_en, "Second pair of running shoes 20% off");
    assert_eq!(offer.description, "买第二双跑鞋享 8 折。");
    assert_eq!(offer.description_en, "Buy two pairs of running shoes and get 20% off the second.");
    let sports = mall.get_area("a-sports").await.unwrap();
    assert_eq!(
        (sports.description.as_str(), sports.description_en.as_str()),
        ("跑鞋、冲锋衣与户外装备。", "Running shoes and outdoor gear.")
    );
    assert_eq!(mall.get_store("s-shudaxia").await.unwrap().open_hours, "11:00-02:00");

    // A folder written before the English columns: the same mall, without them.
    let dir = copy_of_riverside("no-english");
    let products = std::fs::read_to_string(dir.join("products.csv")).unwrap();
    let products: String = products
        .lines()
        .map(|line| {
            let at =
                if line.starts_with("id,") { line.rfind(',') } else { line.find(",\"").or(line.rfind(',')) };
            format!("{}\n", &line[..at.unwrap()])
        })
        .collect();
    std::fs::write(dir.join("products.csv"), products).unwrap();
    std::fs::write(
        dir.join("promotions.csv"),
        "store,title,description,valid_until\ns-asics,跑鞋第二双 8 折,买第二双跑鞋享 8 折。,2027-06-30\n",
    )
    .unwrap();
    let mall = EmbeddedMall::open_folder(dir.clone(), None).expect("English columns are optional");
    let kayano = mall.get_product("p-asics-kayano").await.unwrap();
    assert_eq!((kayano.description.as_str(), kayano.description_en), ("稳定支撑型跑鞋，适合长距离。", None));
    let offer = mall.store_promotions("s-asics").await.unwrap().items.remove(0);
    assert_eq!((offer.title_en.as_str(), offer.description_en.as_str()), ("", ""));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_folder_with_ten_kinds_of_mistakes_gets_ten_located_errors() {
    let errors = read_folder(&fixture("ten-mistakes")).expect_err("refused");
    let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        lines,
        [
            "stores.csv:5:D (category): category `electronic` is not in categories.csv (did you mean `electronics`?)",
            "stores.csv:9:E (floor): floor 4F is not in floors.csv",
            "stores.csv:10:A (id): store `s-asics` is already on row 2",
            "products.csv:4:B (store): store `s-asic` is not in stores.csv (did you mean `s-asics`?)",
            "products.csv:8:J (price): `12,9O` is not a price in yuan (like 129 or 129.90)",
            "products.csv:9:H (rating): `6` is not a rating from 0 to 5",
            "skus.csv:13:B (product): product `p-tnf-jaket` is not in products.csv (did you mean `p-tnf-jacket`?)",
            "skus.csv:17:F (stock): `-3` is not a stock count (a whole number, 0 or more)",
            "products.csv:11: product `p-samsung-buds` has no SKUs in skus.csv and lacks a stock",
            "promotions.csv:3:D (valid_until): `next month` is not a date (like 2027-06-30)",
        ],
        "every mistake, in the order the tables are read:\n{}",
        lines.join("\n")
    );
    match EmbeddedMall::open_folder(fixture("ten-mistakes"), None) {
        Err(FolderError::Invalid(found)) => assert_eq!(found.len(), 10),
        other => panic!("the mall refuses to open: {other:?}"),
    }
}

#[test]
fn the_same_mall_reads_from_a_workbook() {
    let from_csv = read_folder(&riverside()).unwrap();
    let from_xlsx = read_folder(&fixture("riverside-xlsx")).expect("the workbook has no mistakes");
    assert_eq!(from_xlsx.counts(), from_csv.counts());
    let built = from_xlsx.build().unwrap();
    let kayano = built.product("p-asics-kayano").unwrap();
    assert_eq!(kayano.brief.price_cents, 129_900);
    assert_eq!(kayano.skus.len(), 3);
    let tea = built.product("p-chagee-boya").unwrap();
    assert_eq!(tea.brief.price_cents, 1_800);
}

#[tokio::test]
async fn a_price_change_in_the_file_reaches_the_next_search_and_an_open_order_keeps_its_price() {
    let dir = copy_of_riverside("price");
    let db = dir.with_extension("db");
    let _ = std::fs::remove_file(&db);
    let mall = EmbeddedMall::open_folder(&dir, Some(&db)).unwrap();
    mall.watch_folder(Duration::from_millis(50)).unwrap();

    let shopper = Shopper::new("telegram", 42);
    let item = AddCartItem { product_id: "p-innisfree-serum".into(), sku_id: None, quantity: 1 };
    let cart = mall.add_cart_item(&shopper, &item, None).await.unwrap();
    let order = mall
        .create_order(&shopper, &CreateOrder { cart_id: cart.cart_id, expected_total_cents: None }, None)
        .await
        .unwrap();
    assert_eq!(order.total_cents, 21_500);

    // The operator lowers the price in products.csv; the mall sees it without a restart.
    edit(&dir, "products.csv", "4.6,,215,30", "4.6,,199,30");
    let deadline = Instant::now() + Duration::from_secs(30);
    let seen = loop {
        let found = mall.search_products(&search("绿茶 精华")).await.unwrap();
        let serum = found.items.into_iter().find(|p| p.id == "p-innisfree-serum").unwrap();
        if serum.price_cents != 21_500 || Instant::now() > deadline {
            break serum.price_cents;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(seen, 19_900, "the shopper's next search shows the file's new price");
    let kept = mall.get_order(&shopper, &order.order_id).await.unwrap();
    assert_eq!(kept.total_cents, 21_500, "the open order keeps the price it was placed at");
    assert_eq!(kept.items[0].unit_price_cents, 21_500);
    assert_eq!(kept.status, OrderStatus::PendingPayment);

    // A restart on the same folder and database: the new price, the order as it was.
    drop(mall);
    let again = EmbeddedMall::open_folder(&dir, Some(&db)).unwrap();
    assert_eq!(again.get_product("p-innisfree-serum").await.unwrap().brief.price_cents, 19_900);
    assert_eq!(again.get_order(&shopper, &order.order_id).await.unwrap().total_cents, 21_500);
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_file(&db);
}

#[tokio::test]
async fn a_reload_reports_price_and_stock_changes_and_keeps_sales_counted() {
    let dir = copy_of_riverside("stock");
    let mall = EmbeddedMall::open_folder(&dir, None).unwrap();
    let shopper = Shopper::new("telegram", 7);
    let item =
        AddCartItem { product_id: "p-asics-tee".into(), sku_id: Some("p-asics-tee-m".into()), quantity: 2 };
    let cart = mall.add_cart_item(&shopper, &item, None).await.unwrap();
    mall.create_order(&shopper, &CreateOrder { cart_id: cart.cart_id, expected_total_cents: None }, None)
        .await
        .unwrap();
    let tee_m = |p: &services::Product| p.skus.iter().find(|s| s.sku_id == "p-asics-tee-m").unwrap().stock;
    assert_eq!(tee_m(&mall.get_product("p-asics-tee").await.unwrap()), 10, "12 in the file, 2 sold");

    // Stock of one SKU from a till's export (stock.csv), a price in skus.csv.
    std::fs::write(dir.join("stock.csv"), "sku,stock\np-asics-kayano-42-wht,6\n").unwrap();
    edit(
        &dir,
        "skus.csv",
        "p-samsung-s25-512,p-samsung-s25,512GB,蓝色 Blue,6999,3",
        "p-samsung-s25-512,p-samsung-s25,512GB,蓝色 Blue,6499,3",
    );
    let report = mall.reload().expect("the changed folder has no mistakes");
    let mut changes: Vec<_> = report.changes.iter().map(|c| (c.sku_id.as_str(), c.price, c.stock)).collect();
    changes.sort();
    assert_eq!(
        changes,
        [
            ("p-asics-kayano-42-wht", None, Some((0, 6))),
            ("p-samsung-s25-512", Some((699_900, 649_900)), None),
        ]
    );
    let kayano = mall.get_product("p-asics-kayano").await.unwrap();
    assert!(
        kayano.brief.sizes.contains(&"42 / 白色 White".to_owned()),
        "back in stock: {:?}",
        kayano.brief.sizes
    );
    let s25 = mall.get_product("p-samsung-s25").await.unwrap();
    assert_eq!(s25.skus.iter().map(|s| s.price_cents).collect::<Vec<_>>(), [599_900, 649_900]);
    // The files' changes are on the event feed, as an operator's would be: the alerts wake from them.
    let feed = mall.events(None, 50).await.unwrap();
    let products: Vec<_> = feed
        .items
        .iter()
        .filter(|e| e.kind != EventKind::OrderStatusChanged)
        .map(|e| {
            (
                e.kind,
                e.product_id.as_deref().unwrap_or(""),
                e.sizes.clone(),
                e.old_price_cents,
                e.new_price_cents,
            )
        })
        .collect();
    assert_eq!(
        products,
        [
            (EventKind::ProductRestocked, "p-asics-kayano", vec!["42 / 白色 White".to_owned()], None, None),
            (EventKind::ProductPriceChanged, "p-samsung-s25", vec![], Some(699_900), Some(649_900)),
        ],
        "one restock with its size, one price change with old and new"
    );
    // The tee's count in the file did not change: the two sold stay sold.
    assert_eq!(tee_m(&mall.get_product("p-asics-tee").await.unwrap()), 10);
    let report = mall.reload().unwrap();
    assert!(report.changes.is_empty(), "nothing changed: {:?}", report.changes);
    // The file's count changes: the file's count it is.
    edit(
        &dir,
        "skus.csv",
        "p-asics-tee-m,p-asics-tee,M,黑色 Black,,12",
        "p-asics-tee-m,p-asics-tee,M,黑色 Black,,30",
    );
    let report = mall.reload().unwrap();
    assert_eq!(report.changes[0].stock, Some((10, 30)));
    assert_eq!(tee_m(&mall.get_product("p-asics-tee").await.unwrap()), 30);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_product_removed_while_an_order_holds_it_is_kept_until_the_order_ends() {
    let dir = copy_of_riverside("removed");
    let mall = EmbeddedMall::open_folder(&dir, None).unwrap();
    let shopper = Shopper::new("telegram", 9);
    let item = AddCartItem { product_id: "p-book-chengdu".into(), sku_id: None, quantity: 1 };
    let cart = mall.add_cart_item(&shopper, &item, None).await.unwrap();
    let order = mall
        .create_order(&shopper, &CreateOrder { cart_id: cart.cart_id, expected_total_cents: None }, None)
        .await
        .unwrap();

    let text = std::fs::read_to_string(dir.join("products.csv")).unwrap();
    let without: String =
        text.lines().filter(|l| !l.starts_with("p-book-chengdu,")).map(|l| format!("{l}\n")).collect();
    std::fs::write(dir.join("products.csv"), without).unwrap();
    let report = mall.reload().unwrap();
    assert_eq!(report.kept, ["p-book-chengdu"]);
    assert!(mall.get_product("p-book-chengdu").await.is_ok(), "kept while the order is open");

    mall.cancel_order(&shopper, &order.order_id, None).await.unwrap();
    let report = mall.reload().unwrap();
    assert!(report.kept.is_empty());
    assert!(mall.get_product("p-book-chengdu").await.is_err(), "gone once its order ended");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_change_with_mistakes_is_refused_and_the_old_data_serves_on() {
    let dir = copy_of_riverside("refused");
    let mall = EmbeddedMall::open_folder(&dir, None).unwrap();
    edit(&dir, "products.csv", "4.6,,215,30", "4.6,,two hundred,30");
    let errors = match mall.reload() {
        Err(FolderError::Invalid(errors)) => errors,
        other => panic!("refused: {other:?}"),
    };
    assert_eq!(
        errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
        ["products.csv:8:J (price): `two hundred` is not a price in yuan (like 129 or 129.90)"]
    );
    assert_eq!(mall.get_product("p-innisfree-serum").await.unwrap().brief.price_cents, 21_500);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_demos_json_shape_is_a_folder_too() {
    let dir = std::env::temp_dir().join(format!("mallbot-folder-json-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let demo = include_str!("../data/demo-mall.json");
    std::fs::write(dir.join("mall.json"), demo).unwrap();
    let mall = EmbeddedMall::open_folder(&dir, None).unwrap();
    assert_eq!(mall.catalog().product_count(), 620);
    let demo_route = EmbeddedMall::in_memory().route("s-nike", None).await.unwrap();
    assert_eq!(mall.route("s-nike", None).await.unwrap(), demo_route, "the demo's own routes");

    // A mistake in the JSON: where, in the file and in the data.
    std::fs::write(
        dir.join("mall.json"),
        demo.replacen("\"price_cents\":1990", "\"price_cents\":\"1990\"", 1),
    )
    .unwrap();
    let errors = read_folder(&dir).expect_err("refused");
    let line = errors[0].to_string();
    assert!(line.starts_with("mall.json:"), "{line}");
    assert!(line.contains("at `products[0].price_cents`"), "{line}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn the_example_mall_reads_its_tariff_points_rule_and_coupons_from_loyalty_json() {
    let mall = EmbeddedMall::open_folder(riverside(), None).expect("the example mall has no mistakes");
    let coupons = mall.list_coupons().await.unwrap();
    let ids: Vec<_> = coupons.items.iter().map(|c| (c.coupon_id.as_str(), c.left)).collect();
    assert_eq!(ids, [("rv-welcome-20", 500), ("rv-asics-150", 50), ("rv-tea-5", 300)]);
    assert_eq!(coupons.items[1].store_ids, ["s-asics"]);

    // Its own tariff: 15 minutes free, then ¥8 an hour; Macau plates taken too.
    let entered = services::rfc3339(services::clock::now_unix() - 75 * 60);
    mall.car_entered("川A·12345", Some(entered)).await.unwrap();
    let fee = mall.parking_fee("川a12345", None).await.unwrap();
    assert_eq!((fee.gross_cents, fee.due_cents, fee.grace_minutes), (800, 800, 20));
    assert_eq!(mall.car_entered("MA-12-34", None).await.unwrap().plate, "MA1234");
}

/// As `mallbot` and `mall-server` serve the example mall: its `info/` folder answering the
/// mall's information, everything else from the mall behind — the car park, points and
/// coupons too, never `NOT_SUPPORTED`.
#[tokio::test]
async fn the_example_mall_with_its_information_folder_keeps_its_car_park_points_and_coupons() {
    let inner = EmbeddedMall::open_folder(riverside(), None).expect("the example mall has no mistakes");
    let folder = services::InfoFolder::open(riverside().join("info")).unwrap();
    let mall = services::WithInfoFolder::new(std::sync::Arc::new(inner), folder);
    assert!(!mall.mall_info().await.unwrap().items.is_empty());

    let coupons = mall.list_coupons().await.unwrap();
    assert_eq!(coupons.items[0].coupon_id, "rv-welcome-20");
    let shopper = Shopper::new("telegram", 77);
    let held = mall.claim_coupon(&shopper, "rv-welcome-20", None).await.unwrap();
    assert_eq!((held.coupon.left, held.status.as_str()), (499, "AVAILABLE"));
    assert_eq!(mall.my_coupons(&shopper).await.unwrap().total, 1);
    assert_eq!(mall.points(&shopper).await.unwrap().balance, 0);
    let tea = services::Redeem::Coupon { coupon_id: "rv-tea-5".into() };
    let refused = mall.redeem_points(&shopper, &tea, None).await.unwrap_err();
    assert!(matches!(refused, services::ServiceError::NotEnoughPoints { balance: 0, .. }), "{refused:?}");
    assert_eq!(mall.add_plate(&shopper, "川A12345", None).await.unwrap().total, 1);
    assert_eq!(mall.my_plates(&shopper).await.unwrap().total, 1);
    assert_eq!(mall.remove_plate(&shopper, "川A12345", None).await.unwrap().total, 0);
    let entered = services::rfc3339(services::clock::now_unix() - 75 * 60);
    mall.car_entered("川A·12345", Some(entered)).await.unwrap();
    assert_eq!(mall.parking_fee("川a12345", None).await.unwrap().due_cents, 800);
    assert!(mall.car_left("川A12345").await.is_ok());
}

#[test]
fn mistakes_in_loyalty_json_are_located() {
    let dir = copy_of_riverside("loyalty");
    edit(&dir, "loyalty.json", "\"unit_minutes\": 60", "\"unit_minutes\": \"an hour\"");
    let errors = read_folder(&dir).expect_err("refused");
    let line = errors[0].to_string();
    assert!(line.starts_with("loyalty.json:"), "{line}");
    assert!(line.contains("at `tariff.unit_minutes`"), "{line}");

    edit(&dir, "loyalty.json", "\"unit_minutes\": \"an hour\"", "\"unit_minutes\": 60");
    edit(&dir, "loyalty.json", "[\"s-asics\"]", "[\"s-nowhere\"]");
    edit(&dir, "loyalty.json", "\"macau\"", "\"atlantis\"");
    let lines: Vec<String> =
        read_folder(&dir).expect_err("refused").iter().map(ToString::to_string).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("`atlantis`")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("coupon rv-asics-150 names store `s-nowhere`")), "{lines:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
