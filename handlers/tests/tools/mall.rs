//! mall_info and mall_events against a mall whose information is written in
//! Traditional Chinese and English, and against one without these endpoints.

use handlers::Lang;
use handlers::mall::{MallEventsResult, MallInfoResult, SectionLine};
use serde_json::json;
use services::*;

use crate::fixtures::*;

fn section(id: &str, title: &str, body: &str, title_en: &str, body_en: &str) -> InfoSection {
    InfoSection {
        id: id.into(),
        title: title.into(),
        body: body.into(),
        title_en: title_en.into(),
        body_en: body_en.into(),
    }
}

fn harbour() -> Page<InfoSection> {
    let items = vec![
        section("parking", "停車收費", "私家車每小時 HK$28。", "Parking fees", "Cars HK$28 an hour."),
        section(
            "service-desk",
            "禮賓服務台",
            "L1 中庭，10:00 至 22:00。",
            "Concierge",
            "L1 atrium, 10:00 to 22:00.",
        ),
        section("wifi", "免費 Wi-Fi", "連接 HarbourPoint-WiFi。", "", ""),
    ];
    Page { total: items.len() as u64, items }
}

#[tokio::test]
async fn a_simplified_question_finds_the_traditional_section_in_the_shoppers_script() {
    let mut mall = MockMallApi::new();
    mall.expect_mall_info().returning(|| Ok(harbour()));
    let output: handlers::ToolOutput<MallInfoResult> =
        call(ctx(mall, Lang::Zh), "mall_info", json!({"question": "停车怎么收费"})).await.unwrap();
    assert_eq!(
        output.data.sections,
        [SectionLine { title: "停車收費".into(), body: "私家車每小時 HK$28。".into() }]
    );
    assert!(!output.data.unknown);

    let mut mall = MockMallApi::new();
    mall.expect_mall_info().returning(|| Ok(harbour()));
    let output: handlers::ToolOutput<MallInfoResult> =
        call(ctx(mall, Lang::En), "mall_info", json!({"question": "wifi password?"})).await.unwrap();
    // No English: said less (not known, the desk named) rather than shown in Chinese.
    assert!(output.data.sections.is_empty() && output.data.unknown, "{:?}", output.data);
    assert_eq!(output.data.service_desk.map(|desk| desk.title).as_deref(), Some("Concierge"));
}

#[tokio::test]
async fn a_question_no_section_answers_is_unknown_with_the_service_desk() {
    let mut mall = MockMallApi::new();
    mall.expect_mall_info().returning(|| Ok(harbour()));
    let json = call_json(ctx(mall, Lang::En), "mall_info", json!({"question": "can I return a jacket?"}))
        .await
        .unwrap()
        .data;
    assert_eq!(
        json,
        json!({"unknown": true, "service_desk": {"title": "Concierge", "body": "L1 atrium, 10:00 to 22:00."}})
    );
}

#[tokio::test]
async fn a_mall_without_the_endpoints_knows_nothing_rather_than_failing() {
    let mut mall = MockMallApi::new();
    mall.expect_mall_info().returning(|| {
        Err(ServiceError::InvalidResponse {
            status: 404,
            message: "not json".into(),
            raw: "<h1>404</h1>".into(),
        })
    });
    let json =
        call_json(ctx(mall, Lang::Zh), "mall_info", json!({"question": "停车怎么收费"})).await.unwrap().data;
    assert_eq!(json, json!({"unknown": true}));

    let mut mall = MockMallApi::new();
    mall.expect_mall_events().returning(|_| Err(ServiceError::not_found("no such endpoint")));
    mall.expect_mall_promotions().returning(|| Err(ServiceError::not_found("no such endpoint")));
    let output: handlers::ToolOutput<MallEventsResult> =
        call(ctx(mall, Lang::En), "mall_events", json!({"when": "weekend"})).await.unwrap();
    assert!(output.data.events.is_empty() && output.data.offers.is_empty(), "{:?}", output.data);
    assert_eq!(output.data.when, "this weekend");

    let mut mall = MockMallApi::new();
    mall.expect_mall_info().returning(|| Err(ServiceError::Unavailable { message: "down".into() }));
    let error = call_json(ctx(mall, Lang::Zh), "mall_info", json!({"question": "停车"})).await.unwrap_err();
    assert!(
        matches!(error, handlers::ToolError::Upstream(_)),
        "a mall that is down is not \"unknown\": {error:?}"
    );
}

#[tokio::test]
async fn events_are_asked_for_the_coming_days_and_offers_name_their_store() {
    let mut mall = MockMallApi::new();
    mall.expect_mall_events()
        .withf(|q| q.from.as_deref().is_some_and(|f| f.ends_with('Z')) && q.to.is_some())
        .returning(|_| Ok(Page { items: vec![], total: 0 }));
    mall.expect_mall_promotions().returning(|| {
        let offer = |title: &str, store: Option<&str>| MallPromotion {
            title: title.into(),
            valid_until: "2999-12-31T23:59:59+08:00".into(),
            store_id: store.map(|s| format!("s-{s}")),
            store_name: store.map(str::to_owned),
            ..MallPromotion::default()
        };
        let items =
            vec![offer("全场满 500 减 50", None), offer("过期的", None), offer("第二件半价", Some("屈臣氏"))];
        let mut items = items;
        items[1].valid_until = "2000-01-01T00:00:00+08:00".into();
        Ok(Page { total: items.len() as u64, items })
    });
    let output: handlers::ToolOutput<MallEventsResult> =
        call(ctx(mall, Lang::ZhHant), "mall_events", json!({"offers": true})).await.unwrap();
    let titles: Vec<(&str, Option<&str>)> =
        output.data.offers.iter().map(|o| (o.title.as_str(), o.store.as_deref())).collect();
    assert_eq!(
        titles,
        [("全場滿 500 減 50", None), ("第二件半價", Some("屈臣氏"))],
        "expired offers left out"
    );
}

#[tokio::test]
async fn an_event_written_only_in_chinese_says_less_in_english() {
    let mut mall = MockMallApi::new();
    mall.expect_mall_events().returning(|_| {
        let event = MallEvent {
            id: "e-1".into(),
            title: "中庭灯光秀".into(),
            description: "每晚一场".into(),
            starts_at: "2999-11-28T19:30:00+08:00".into(),
            ends_at: "2999-11-28T19:45:00+08:00".into(),
            place: "1F 中庭".into(),
            ..MallEvent::default()
        };
        Ok(Page { total: 1, items: vec![event] })
    });
    mall.expect_mall_promotions().returning(|| Ok(Page { items: vec![], total: 0 }));
    let output: handlers::ToolOutput<MallEventsResult> =
        call(ctx(mall, Lang::En), "mall_events", json!({})).await.unwrap();
    let event = &output.data.events[0];
    assert_eq!(event.title, Lang::En.texts().answers.untranslated_event);
    assert_eq!((event.description.as_str(), event.place.as_str()), ("", ""), "no Chinese in English");
}
