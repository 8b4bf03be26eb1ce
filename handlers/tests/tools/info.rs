//! get_product_detail and get_store_info.

use handlers::info::{ProductDetail, PromotionLine, ReviewLine, SkuLine, StoreInfoResult, StoreName};
use handlers::records::{StoreCard, StoreRef, Yuan};
use handlers::{Lang, ToolError, ToolOutput};
use mockall::predicate::eq;
use serde_json::{Value, json};
use services::*;

use crate::fixtures::*;

#[tokio::test]
async fn product_detail_lists_every_sku_with_its_stock_the_store_and_the_picture() {
    let mut mall = MockMallApi::new();
    mall.expect_get_product().with(eq("p-peg41")).returning(|_| Ok(pegasus()));
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    let output: ToolOutput<ProductDetail> =
        call(ctx(mall, Lang::Zh), "get_product_detail", json!({"product_id": "p-peg41"})).await.unwrap();
    let sku = |size: &str, stock: u32| SkuLine {
        sku_id: format!("k-peg-{size}"),
        label: size.into(),
        price_yuan: None,
        stock,
    };
    assert_eq!(
        output.data,
        ProductDetail {
            product_id: "p-peg41".into(),
            name: "Nike Pegasus 41 跑鞋".into(),
            brand: "Nike".into(),
            category: "跑鞋".into(),
            price_yuan: Yuan(69900),
            rating: Some(4.7),
            description: "轻量缓震跑鞋".into(),
            sold_out: false,
            sizes: vec![],
            skus: vec![sku("41", 3), sku("42", 1), sku("43", 0)],
            store: StoreRef {
                store_id: "s-nike".into(),
                name: "耐克".into(),
                floor: Some(2),
                unit: Some("201".into()),
            },
        }
    );
    let text = serde_json::to_string(&output.data).unwrap();
    assert!(!text.contains("null") && !text.contains("[]"), "no nulls, no empty lists: {text}");
    assert!(!text.contains("sizes"), "the sizes are said once, by the SKUs: {text}");
    assert_eq!(output.image.as_deref(), Some("https://img.example/peg41.jpg"));
    assert_eq!(output.suggestions, ["加入购物车", "带我去耐克"]);
}

#[tokio::test]
async fn an_unknown_product_is_not_found() {
    let mut mall = MockMallApi::new();
    mall.expect_get_product().returning(|id| Err(ServiceError::not_found(format!("product {id}"))));
    let err = call::<ProductDetail>(ctx(mall, Lang::Zh), "get_product_detail", json!({"product_id": "p-x"}))
        .await
        .unwrap_err();
    assert_eq!(err, ToolError::NotFound("product p-x".into()));
}

fn uniqlo_by_name() -> MockMallApi {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().with(eq("Uniqlo")).returning(|_| Err(ServiceError::not_found("store Uniqlo")));
    mall.expect_search_stores().returning(|_| Ok(page(vec![uniqlo()])));
    mall
}

#[tokio::test]
async fn basic_store_info_by_english_name() {
    let ctx = ctx(uniqlo_by_name(), Lang::En);
    let output =
        call_json(ctx, "get_store_info", json!({"store_id": "Uniqlo", "info_type": "basic"})).await.unwrap();
    assert_eq!(
        output.read::<StoreInfoResult>().unwrap(),
        StoreInfoResult::Basic { store: StoreCard::new(&uniqlo(), Lang::En) }
    );
    assert_eq!(output.data["info_type"], "basic", "the model reads which kind of information it got");
    assert_eq!(output.suggestions, ["Take me to Uniqlo"]);
}

#[tokio::test]
async fn promotions_of_a_store() {
    let mut mall = uniqlo_by_name();
    mall.expect_store_promotions().with(eq("s-uniqlo")).returning(|_| {
        Ok(page(vec![Promotion {
            title: "满 300 减 50".into(),
            title_en: String::new(),
            description: "全场服装".into(),
            description_en: String::new(),
            valid_until: "2025-06-30T23:59:59+08:00".into(),
        }]))
    });
    let args = json!({"store_id": "Uniqlo", "info_type": "promotions"});
    let output: ToolOutput<StoreInfoResult> =
        call(ctx(mall, Lang::Zh), "get_store_info", args).await.unwrap();
    assert_eq!(
        output.data,
        StoreInfoResult::Promotions {
            store: StoreName {
                store_id: "s-uniqlo".into(), name: "优衣库".into(), name_en: "Uniqlo".into()
            },
            promotions: vec![PromotionLine {
                title: "满 300 减 50".into(),
                description: "全场服装".into(),
                valid_until: "2025-06-30T23:59:59+08:00".into(),
            }],
        }
    );
}

#[tokio::test]
async fn in_english_a_product_and_offers_show_their_english_texts_or_say_less() {
    let mut mall = MockMallApi::new();
    mall.expect_get_product().with(eq("p-peg41")).returning(|_| Ok(pegasus()));
    mall.expect_get_product().with(eq("p-socks")).returning(|_| {
        let mut socks = socks();
        socks.description = "纯棉运动袜".into();
        Ok(socks)
    });
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    let english = ctx(mall, Lang::En);
    let shoes: ToolOutput<ProductDetail> =
        call(english.clone(), "get_product_detail", json!({"product_id": "p-peg41"})).await.unwrap();
    assert_eq!(shoes.data.description, "Light cushioned running shoes");
    let socks: ToolOutput<ProductDetail> =
        call(english, "get_product_detail", json!({"product_id": "p-socks"})).await.unwrap();
    assert_eq!(socks.data.description, "", "no English description: none, rather than the Chinese one");

    let mut mall = uniqlo_by_name();
    mall.expect_store_promotions().with(eq("s-uniqlo")).returning(|_| {
        let offer = |title: &str, title_en: &str, description: &str, description_en: &str| Promotion {
            title: title.into(),
            title_en: title_en.into(),
            description: description.into(),
            description_en: description_en.into(),
            valid_until: "2025-06-30T23:59:59+08:00".into(),
        };
        Ok(page(vec![
            offer(
                "冬装 9 折",
                "10% off winter wear",
                "冬装新品一律 9 折。",
                "10% off all new winter arrivals.",
            ),
            offer("第二件半价", "", "购买两件第二件半价", "Second item half price"),
            offer("满 300 减 50", "", "全场服装", ""),
        ]))
    });
    let args = json!({"store_id": "Uniqlo", "info_type": "promotions"});
    let output: ToolOutput<StoreInfoResult> =
        call(ctx(mall, Lang::En), "get_store_info", args).await.unwrap();
    let StoreInfoResult::Promotions { promotions, .. } = output.data else { panic!("promotions") };
    let lines: Vec<(&str, &str)> =
        promotions.iter().map(|p| (p.title.as_str(), p.description.as_str())).collect();
    assert_eq!(
        lines,
        [
            ("10% off winter wear", "10% off all new winter arrivals"),
            ("Second item half price", ""),
            ("An offer (described in Chinese only)", ""),
        ]
    );
}

#[tokio::test]
async fn reviews_show_the_first_five_and_the_average_of_all_fetched() {
    let mut mall = MockMallApi::new();
    mall.expect_get_store().with(eq("s-nike")).returning(|_| Ok(nike()));
    mall.expect_store_reviews().withf(|id, page| id == "s-nike" && page.limit == Some(50)).returning(
        |_, _| {
            let ratings = [5.0, 4.0, 4.0, 3.0, 5.0, 2.0, 4.0];
            let reviews = ratings
                .iter()
                .enumerate()
                .map(|(i, r)| Review {
                    rating: *r,
                    text: format!("review {i}"),
                    author: format!("shopper {i}"),
                    created_at: "2025-04-01T12:00:00Z".into(),
                })
                .collect();
            Ok(page(reviews))
        },
    );
    let args = json!({"store_id": "s-nike", "info_type": "reviews"});
    let output: ToolOutput<StoreInfoResult> =
        call(ctx(mall, Lang::Zh), "get_store_info", args).await.unwrap();
    let StoreInfoResult::Reviews { store, average_rating, reviews } = output.data else {
        panic!("{:?}", output.data)
    };
    assert_eq!(store, StoreName { store_id: "s-nike".into(), name: "耐克".into(), name_en: "Nike".into() });
    assert_eq!(average_rating, Some(3.9));
    assert_eq!(reviews.len(), 5);
    assert_eq!(
        reviews[0],
        ReviewLine {
            rating: 5.0,
            text: "review 0".into(),
            author: "shopper 0".into(),
            created_at: "2025-04-01T12:00:00Z".into()
        }
    );
}

#[tokio::test]
async fn an_unknown_info_type_is_named_with_the_choices() {
    let args = json!({"store_id": "s-nike", "info_type": "hours"});
    let err = call::<Value>(ctx(MockMallApi::new(), Lang::Zh), "get_store_info", args).await.unwrap_err();
    assert_eq!(invalid_field(&err), Some("info_type"));
    assert!(err.model_message().contains("promotions"), "{}", err.model_message());
}
