//! search_products and search_stores.

use handlers::records::StoreCard;
use handlers::search::{SearchProductsResult, SearchStoresResult};
use handlers::{Lang, ToolError, ToolOutput};
use mockall::predicate::eq;
use serde_json::json;
use services::*;

use crate::fixtures::*;

fn brief(id: &str, store: &Store, price_cents: i64) -> ProductBrief {
    ProductBrief {
        id: id.into(),
        name: format!("跑鞋 {id}"),
        name_en: Some(format!("Running shoes {id}")),
        brand: "Nike".into(),
        category: "跑鞋".into(),
        price_cents,
        rating: 4.7,
        store_id: store.id.clone(),
        store_name: store.name.clone(),
        in_stock: true,
        sizes: vec!["42".into()],
    }
}

#[tokio::test]
async fn prices_in_yuan_reach_the_mall_in_fen_and_each_store_is_fetched_once() {
    let mut mall = MockMallApi::new();
    mall.expect_search_products()
        .withf(|q| {
            *q == ProductQuery {
                keyword: Some("Nike 跑鞋".into()),
                min_price_cents: Some(19990),
                max_price_cents: Some(50000),
                brand: Some("Nike".into()),
                category: None,
                page: PageRequest::first(5),
            }
        })
        .returning(|_| {
            let nike = nike();
            Ok(Page { items: vec![brief("p1", &nike, 49900), brief("p2", &nike, 19999)], total: 23 })
        });
    mall.expect_get_store().with(eq("s-nike")).times(1).returning(|_| Ok(nike()));
    let args = json!({"keyword": "Nike 跑鞋", "max_price": 500, "min_price": 199.9, "brand": "Nike", "category": " "});
    let output = call_json(ctx(mall, Lang::Zh), "search_products", args).await.unwrap();
    // The JSON the model reads, as a whole: what a recommendation needs,
    // prices in yuan, names and floor in the shopper's language.
    assert_eq!(output.data["total"], 23);
    assert_eq!(
        output.data["products"][0],
        json!({
            "product_id": "p1", "name": "跑鞋 p1", "price": 499, "rating": 4.7, "sizes": ["42"],
            "store": "耐克", "floor": "2楼",
        })
    );
    assert_eq!(output.data["products"][1]["price"], json!(199.99));
    assert_eq!(output.suggestions, ["看看第一个"]);
}

#[tokio::test]
async fn at_most_five_products_go_back_named_in_english_for_english_shoppers() {
    let mut mall = MockMallApi::new();
    mall.expect_search_products().returning(|_| {
        let items = (0..12).map(|i| brief(&format!("p{i}"), &uniqlo(), 9900)).collect();
        Ok(Page { items, total: 40 })
    });
    mall.expect_get_store().returning(|_| Ok(uniqlo()));
    let output: ToolOutput<SearchProductsResult> =
        call(ctx(mall, Lang::En), "search_products", json!({"keyword": "t-shirt"})).await.unwrap();
    assert_eq!((output.data.products.len(), output.data.total), (5, 40));
    let first = &output.data.products[0];
    assert_eq!(
        (first.name.as_str(), first.store.as_str(), first.floor.as_str()),
        ("Running shoes p0", "Uniqlo", "B1")
    );
    assert_eq!(output.suggestions, ["Show the first one"]);
}

#[tokio::test]
async fn a_store_that_cannot_be_looked_up_only_blanks_the_floor() {
    let mut mall = MockMallApi::new();
    mall.expect_search_products().returning(|_| Ok(page(vec![brief("p1", &nike(), 49900)])));
    mall.expect_get_store().returning(|_| Err(unavailable()));
    let output: ToolOutput<SearchProductsResult> =
        call(ctx(mall, Lang::Zh), "search_products", json!({"keyword": "跑鞋"})).await.unwrap();
    let product = &output.data.products[0];
    assert_eq!((product.store.as_str(), product.floor.as_str()), ("耐克", ""));
    let json = serde_json::to_value(product).unwrap();
    assert!(json.get("floor").is_none(), "an unknown floor is left out: {json}");
}

#[tokio::test]
async fn nothing_found_is_an_empty_list_without_suggestions() {
    let mut mall = MockMallApi::new();
    mall.expect_search_products().returning(|_| Ok(page(vec![])));
    let output: ToolOutput<SearchProductsResult> =
        call(ctx(mall, Lang::Zh), "search_products", json!({"keyword": "滑雪板"})).await.unwrap();
    assert_eq!(output.data, SearchProductsResult { total: 0, products: vec![] });
    assert!(output.suggestions.is_empty());
}

#[tokio::test]
async fn bad_prices_are_refused_before_the_mall_is_asked() {
    let mall = || ctx(MockMallApi::new(), Lang::Zh);
    let cases = [
        (json!({"keyword": "x", "min_price": 600, "max_price": 500}), "min_price"),
        (json!({"keyword": "x", "max_price": -5}), "max_price"),
        (json!({"keyword": "x", "max_price": "五百"}), "max_price"),
        (json!({"max_price": 500}), "keyword"),
    ];
    for (args, field) in cases {
        let err = call_json(mall(), "search_products", args.clone()).await.unwrap_err();
        assert_eq!(invalid_field(&err), Some(field), "{args}: {err:?}");
    }
}

#[tokio::test]
async fn a_mall_outage_is_an_upstream_error() {
    let mut mall = MockMallApi::new();
    mall.expect_search_products().returning(|_| Err(unavailable()));
    let err = call_json(ctx(mall, Lang::Zh), "search_products", json!({"keyword": "x"})).await.unwrap_err();
    assert!(matches!(err, ToolError::Upstream(_)), "{err:?}");
}

#[tokio::test]
async fn stores_come_back_with_place_hours_and_phone() {
    let mut mall = MockMallApi::new();
    mall.expect_search_stores()
        .withf(|q| {
            q.keyword.as_deref() == Some("服装")
                && q.category.as_deref() == Some("服装")
                && q.page.limit == Some(10)
        })
        .returning(|_| Ok(page(vec![uniqlo()])));
    let args = json!({"keyword": "服装", "category": "服装"});
    let output: ToolOutput<SearchStoresResult> =
        call(ctx(mall, Lang::En), "search_stores", args).await.unwrap();
    let uniqlo = StoreCard {
        store_id: "s-uniqlo".into(),
        name: "Uniqlo".into(),
        category: "服装".into(),
        floor: -1,
        unit: "B105".into(),
        open_hours: "10:00–22:00".into(),
        phone: "021-5555-0105".into(),
    };
    assert_eq!(output.data, SearchStoresResult { total: 1, stores: vec![uniqlo] });
    assert_eq!(output.suggestions, ["Take me to Uniqlo"]);
}
