#![allow(clippy::unwrap_used)]

use super::*;

#[test]
fn plates_are_found_in_the_ways_people_type_them() {
    let cases = [
        ("沪A·12345 停了多久，多少钱", Some("沪A12345")),
        ("沪a12345停车费多少", Some("沪A12345")),
        ("我的车是 沪A 12345", Some("沪A12345")),
        ("粤B·D12345 要交多少", Some("粤BD12345")),
        ("粤BD12345F", None),
        ("滬A12345 停車費多少", Some("沪A12345")),
        ("my car is ABC123, how much", Some("ABC123")),
        ("how much for plate AB 1234", Some("AB1234")),
        ("parking fee for hk1234?", Some("HK1234")),
        ("停车场在B1吗", None),
        ("Nike Pegasus 41 42码", None),
        ("iPhone 15 多少钱", None),
        ("沪A1234", None),
    ];
    for (text, plate) in cases {
        assert_eq!(find_plate(text).as_deref(), plate, "{text}");
    }
}

#[test]
fn a_plate_is_compared_as_the_car_park_keeps_it() {
    assert_eq!(plate_key("沪a·123 45"), "沪A12345");
    assert_eq!(plate_key("ab-1234"), "AB1234");
}

#[test]
fn every_refusal_of_the_mall_reads_as_words_in_the_shoppers_language() {
    let errors = [
        ServiceError::FeeChanged { due_cents: 1500, message: "fee is 15.00".into() },
        ServiceError::AlreadyPaid { message: "paid".into() },
        ServiceError::NotEnoughPoints { balance: 120, message: "120 < 300".into() },
        ServiceError::CouponUnavailable { message: "all claimed".into() },
        ServiceError::CouponNotApplicable { message: "below the minimum spend".into() },
        ServiceError::TooManyPlates { message: "3 plates".into() },
        ServiceError::NotSupported { message: "no car park".into() },
        ServiceError::not_found("no car with plate 沪A12345"),
        ServiceError::invalid("plate", "`x` is not a plate"),
    ];
    let expected_zh = [
        "¥15",
        "已经付过",
        "120 积分",
        "领不了",
        "未达到最低消费",
        "最多保存 3 个",
        "暂不提供",
        "没有找到",
        "不像车牌",
    ];
    let expected_hant = [
        "¥15",
        "已經付過",
        "120 積分",
        "領不了",
        "未達到最低消費",
        "最多保存 3 個",
        "暫不提供",
        "沒有找到",
        "不像車牌",
    ];
    let expected_en = [
        "¥15",
        "already paid",
        "you have 120",
        "cannot be claimed",
        "minimum spend",
        "at most 3",
        "does not offer",
        "Not found",
        "does not look like a plate",
    ];
    for (i, error) in errors.iter().enumerate() {
        let zh = mall_words(Lang::Zh, error).expect("zh words");
        let hant = mall_words(Lang::ZhHant, error).expect("hant words");
        let en = mall_words(Lang::En, error).expect("en words");
        assert!(zh.contains(expected_zh[i]), "{zh}");
        assert!(hant.contains(expected_hant[i]), "{hant}");
        assert!(en.contains(expected_en[i]), "{en}");
        assert!(
            !en.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) || en.contains("沪A12345"),
            "{en}"
        );
        let refused = refuse(Lang::Zh, error.clone());
        assert!(matches!(refused, ToolError::Refused { .. }), "{refused:?}");
    }
    // Nothing charged twice: the fee changed and the paid car say so.
    assert!(mall_words(Lang::Zh, &errors[0]).expect("words").contains("没有扣款"));
    assert!(mall_words(Lang::En, &errors[1]).expect("words").contains("Nothing is charged twice"));
    // The mall unreachable is not a refusal.
    assert!(mall_words(Lang::En, &ServiceError::Unavailable { message: "down".into() }).is_none());
}

#[test]
fn a_refusal_reaches_the_shopper_as_the_tools_words() {
    let error = ToolError::Refused {
        code: "NOT_ENOUGH_POINTS",
        message: mall_words(Lang::En, &ServiceError::NotEnoughPoints { balance: 10, message: String::new() })
            .expect("words"),
    }
    .model_message();
    let dialogue = crate::basic::Dialogue::default();
    let lexicon = crate::basic::Lexicon::default();
    let none = || None;
    let said = Said::new(&dialogue, &lexicon, &none);
    assert_eq!(
        loyalty_failed(&said, &error).as_deref(),
        Some("Not enough points: you have 10. No points were taken")
    );
}

fn fee(own: bool) -> CarFee {
    car_fee(
        ParkingFee {
            plate: "沪A12345".into(),
            entered_at: "2026-11-25T08:00:00+08:00".into(),
            minutes_parked: 125,
            gross_cents: 2000,
            free: vec![
                services::FreeTime { reason: "FIRST_MINUTES".into(), minutes: 30, detail: String::new() },
                services::FreeTime {
                    reason: "SPENDING".into(),
                    minutes: 60,
                    detail: "¥250 spent today".into(),
                },
            ],
            paid_cents: 0,
            due_cents: 1000,
            grace_minutes: 15,
            leave_by: None,
        },
        own,
    )
}

#[test]
fn a_saved_plates_fee_tells_the_stay_and_the_free_time_and_anothers_the_fee_only() {
    let mine = car_text(Lang::Zh, &fee(true));
    for part in ["沪A12345", "¥10", "2 小时 5 分钟", "08:00", "前 30 分钟免费", "¥250", "15 分钟内离场"]
    {
        assert!(mine.contains(part), "{part} in {mine}");
    }
    let other = car_text(Lang::En, &fee(false));
    assert!(other.contains("¥10 due now") && other.contains("only the fee"), "{other}");
    assert!(!other.contains("08:00") && !other.contains("Parked") && !other.contains("2 h"), "{other}");
    let hant = car_text(Lang::ZhHant, &fee(true));
    assert!(hant.contains("現在應付 ¥10") && hant.contains("離場"), "{hant}");
}

#[test]
fn an_unknown_plate_and_no_plate_are_answered_clearly() {
    let gone = CarFee { inside: false, ..fee(false) };
    assert!(car_text(Lang::Zh, &gone).contains("没有这辆车的入场记录"));
    let none = parking_text(Lang::En, &ParkingFeeResult::default());
    assert!(none.contains("tell me the plate") && none.contains("remember my plate"), "{none}");
}

fn coupons() -> Vec<Coupon> {
    services::LoyaltyRules::demo()
        .coupons
        .into_iter()
        .map(|s| Coupon {
            coupon_id: s.coupon_id,
            title: s.title,
            title_en: s.title_en,
            total: s.total,
            left: s.total,
            per_shopper: 1,
            valid_from: s.valid_from,
            valid_to: s.valid_to,
            min_spend_cents: s.min_spend_cents,
            discount_cents: s.discount_cents,
            store_ids: s.store_ids,
            points_cost: s.points_cost,
        })
        .collect()
}

#[test]
fn a_coupon_is_found_by_its_id_its_figures_or_its_title_words() {
    let all = coupons();
    let id = |words: &str| match_coupon(&all, words).map(|c| c.coupon_id.clone());
    assert_eq!(id("cp-nike-100").as_deref(), Some("cp-nike-100"));
    assert_eq!(id("领取满300减50的券").as_deref(), Some("cp-mall-50"));
    assert_eq!(id("claim the 50 off coupon").as_deref(), Some("cp-mall-50"));
    assert_eq!(id("領取耐克的券").as_deref(), Some("cp-nike-100"));
    assert_eq!(id("领取满200减20的券"), None, "no coupon takes 20 off 200");
}

#[test]
fn coupons_are_listed_with_what_is_left_and_their_conditions() {
    let all = coupons();
    let lines: Vec<CouponLine> = all.iter().map(|c| CouponLine::of(Lang::Zh, c, Vec::new(), None)).collect();
    let text = coupons_text(Lang::Zh, &CouponsResult { mine: false, coupons: lines });
    for part in ["全场满300减50", "满 ¥300 减 ¥50", "剩 100 张", "2030-12-31", "需 300 积分"] {
        assert!(text.contains(part), "{part} in {text}");
    }
}

/// The mall's coupons with `left` of the first, for a mock mall.
fn coupons_left(left: u32) -> services::Page<Coupon> {
    let mut items = coupons();
    items[0].left = left;
    services::Page { total: items.len() as u64, items }
}

#[tokio::test]
async fn the_last_coupon_taken_between_the_check_and_the_claim_is_told_as_all_claimed() {
    for (lang, words) in
        [(Lang::Zh, "已经被领完了"), (Lang::ZhHant, "已經被領完了"), (Lang::En, "has all been claimed")]
    {
        let mut mall = services::MockMallApi::new();
        // One left when checked; none by the time the shopper's claim reaches the mall.
        let listed = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        mall.expect_list_coupons().returning(move || {
            let first = listed.fetch_add(1, std::sync::atomic::Ordering::SeqCst) == 0;
            Ok(coupons_left(if first { 1 } else { 0 }))
        });
        mall.expect_my_coupons().returning(|_| Ok(services::Page { items: Vec::new(), total: 0 }));
        mall.expect_claim_coupon().times(1).returning(|_, id, _| {
            Err(ServiceError::CouponUnavailable {
                message: format!("all 100 of coupon {id} have been claimed"),
            })
        });
        let ctx = ToolContext::new(std::sync::Arc::new(mall), services::Shopper::new("telegram", 9), lang);
        let refused =
            claim_coupon(&ctx, ClaimCouponArgs { coupon: "cp-mall-50".into() }).await.expect_err("refused");
        match refused {
            ToolError::Refused { code, message } => {
                assert_eq!(code, "COUPON_UNAVAILABLE");
                assert!(message.contains(words), "{lang:?}: {message}");
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn a_wish_to_pay_for_parking_is_told_from_a_question_of_how_much() {
    for text in [
        "交停车费",
        "帮我交沪A12345的停车费",
        "我要交停車費",
        "pay parking for my car",
        "Pay for parking ABC123",
    ] {
        assert!(asks_to_pay_parking(&text.to_lowercase()), "{text}");
    }
    for text in [
        "停车费多少",
        "沪A12345 停车费要付多少",
        "坐公交车怎么来",
        "用积分抵停车费",
        "how much is parking",
        "checkout",
    ] {
        assert!(!asks_to_pay_parking(&text.to_lowercase()), "{text}");
    }
}

#[test]
fn a_parking_receipt_and_a_refusal_in_the_payment_box_read_in_each_language() {
    let paid = parking_paid(Lang::Zh, "沪A12345", "¥30", "2026-11-25T10:15:00+08:00");
    assert!(paid.contains("已支付 ¥30") && paid.contains("10:15 前离场"), "{paid}");
    let paid = parking_paid(Lang::ZhHant, "沪A12345", "¥30", "2026-11-25T10:15:00+08:00");
    assert!(paid.contains("已支付 ¥30") && paid.contains("離場"), "{paid}");
    let paid = parking_paid(Lang::En, "ABC123", "¥20", "2026-11-25T10:15:00+08:00");
    assert!(paid.contains("paid ¥20") && paid.contains("leave by 10:15"), "{paid}");
    let changed = parking_checkout_refused(Lang::En, ParkingCheckout::FeeChanged(5000));
    assert!(changed.contains("¥50") && changed.contains("Nothing was charged"), "{changed}");
    let title = parking_invoice_title(Lang::ZhHant, "沪A12345");
    assert!(title.contains("停車費"), "{title}");
}

fn redeem_call(text: &str) -> Option<(String, Value)> {
    let dialogue =
        crate::basic::Dialogue::new(vec![crate::basic::Event::User { text: text.to_owned(), lang: None }]);
    let lexicon = crate::basic::Lexicon::default();
    let none = || None;
    let said = Said::new(&dialogue, &lexicon, &none);
    match recognise_redeem(&said)? {
        Step::Call(call) => Some((call.tool.to_owned(), call.arguments)),
        _ => None,
    }
}

#[test]
fn asks_to_spend_points_are_read_in_three_languages_and_a_named_coupon_is_the_claims() {
    for text in ["用积分换停车", "用積分換停車", "redeem points for parking", "积分抵停车费"]
    {
        let (tool, args) = redeem_call(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!((tool.as_str(), args["for"].as_str()), ("redeem_points", Some("parking")), "{text}");
    }
    let (_, args) = redeem_call("用积分给沪A·12345换2小时停车").unwrap();
    assert_eq!((args["plate"].as_str(), args["hours"].as_i64()), (Some("沪A12345"), Some(2)));
    for text in ["用500积分换券", "用500積分換券", "redeem points for a coupon"] {
        let (tool, args) = redeem_call(text).unwrap_or_else(|| panic!("{text}"));
        assert_eq!((tool.as_str(), args["for"].as_str()), ("redeem_points", Some("coupon")), "{text}");
    }
    assert_eq!(redeem_call("用500积分换券").unwrap().1["points"].as_i64(), Some(500));
    assert!(redeem_call("用积分兑换满200减30的券").is_none(), "a coupon named by its figures is claimed");
    assert!(redeem_call("我有多少积分").is_none());
    assert!(redeem_call("停车费多少").is_none());
}

#[test]
fn the_hours_that_clear_a_fee_count_the_free_time_already_earned() {
    let mut fee = ParkingFee {
        plate: "沪A12345".into(),
        entered_at: "2026-11-25T04:00:00+08:00".into(),
        minutes_parked: 360,
        gross_cents: 6000,
        free: vec![
            services::FreeTime { reason: "FIRST_MINUTES".into(), minutes: 30, detail: String::new() },
            services::FreeTime { reason: "SPENDING".into(), minutes: 240, detail: "¥500".into() },
        ],
        paid_cents: 0,
        due_cents: 2000,
        grace_minutes: 15,
        leave_by: None,
    };
    assert_eq!(hours_to_cover(&fee), 2, "6 h less 4 h spent less the first 30 min: 90 min");
    fee.free.truncate(1);
    assert_eq!(hours_to_cover(&fee), 6);
    fee.minutes_parked = 3 * 24 * 60;
    assert_eq!(hours_to_cover(&fee), 24, "at most a day");
}

#[test]
fn points_taken_back_in_part_and_points_spent_are_told() {
    let change = PointsLine {
        reason: "ORDER_REFUNDED".into(),
        amount: -499,
        at: "2026-11-25T10:00:00+08:00".into(),
        order_id: Some("o-1".into()),
        not_taken: Some(300),
    };
    let zh = change_text(Lang::Zh, &change);
    assert!(zh.starts_with("-499 订单 o-1 退款扣回") && zh.contains("300 积分已经用掉"), "{zh}");
    let en = change_text(Lang::En, &change);
    assert!(en.contains("300 of its points were already spent"), "{en}");
    let hant = change_text(Lang::ZhHant, &change);
    assert!(hant.contains("300 積分已經用掉"), "{hant}");

    let parking = RedeemedResult {
        points_spent: 200,
        balance: 99,
        plate: Some("沪A12345".into()),
        parking_minutes: Some(120),
        due_yuan: Some(Yuan(0)),
        coupon: None,
    };
    let zh = redeemed_text(Lang::Zh, &parking);
    assert!(
        zh.contains("已用 200 积分为 沪A12345 换了 2 小时免费停车，还剩 99 积分") && zh.contains("不用付费"),
        "{zh}"
    );
    let en = redeemed_text(Lang::En, &RedeemedResult { due_yuan: Some(Yuan(1000)), ..parking });
    assert!(en.contains("Spent 200 points on 2 h") && en.contains("¥10 is still due"), "{en}");
}

/// A shopper of the demo mall (its rules: 1 point a yuan, 100 points an hour) with
/// `earned` points from a paid order (0: none).
async fn shopper_with_points(min_cents: i64) -> (ToolContext, std::sync::Arc<services::EmbeddedMall>, i64) {
    use services::{AddCartItem, CreateOrder, MallApi, ProductQuery, RecordPayment, Shopper};
    let mall = std::sync::Arc::new(services::EmbeddedMall::in_memory());
    let shopper = Shopper::new("telegram", 9);
    let ctx = ToolContext::new(mall.clone(), shopper.clone(), Lang::Zh);
    if min_cents == 0 {
        return (ctx, mall, 0);
    }
    let query = ProductQuery { keyword: Some("iPhone".into()), ..ProductQuery::default() };
    let hit = mall.search_products(&query).await.unwrap().items.into_iter().find(|p| p.in_stock).unwrap();
    let product = mall.get_product(&hit.id).await.unwrap();
    let sku = product.skus.iter().find(|s| s.stock > 0).map(|s| s.sku_id.clone());
    let quantity = u32::try_from(min_cents / product.brief.price_cents.max(1) + 1).unwrap();
    let item = AddCartItem { product_id: product.brief.id.clone(), sku_id: sku, quantity };
    let cart = mall.add_cart_item(&shopper, &item, None).await.unwrap();
    let order = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
    let order = mall.create_order(&shopper, &order, None).await.unwrap();
    let pay = RecordPayment {
        provider: "test".into(),
        amount_cents: order.total_cents,
        currency: order.currency.clone(),
        charge_id: "ch-9".into(),
    };
    let order = mall.pay_order(&shopper, &order.order_id, &pay, None).await.unwrap();
    (ctx, mall, order.total_cents / 100)
}

fn args(value: Value) -> RedeemPointsArgs {
    serde_json::from_value(value).unwrap()
}

fn refusal(result: Result<Preview, ToolError>) -> String {
    match result {
        Err(ToolError::Refused { message, .. }) => message,
        other => panic!("not refused: {other:?}"),
    }
}

#[tokio::test]
async fn parking_for_points_needs_a_car_of_the_shoppers_inside_and_enough_points() {
    use services::MallApi;
    let (ctx, mall, _) = shopper_with_points(0).await;
    let parking = || args(json!({ "for": "parking" }));
    assert!(refusal(preview_redeem_points(&ctx, parking()).await).contains("您还没有保存车牌"));
    mall.add_plate(&ctx.shopper, "沪B54321", None).await.unwrap();
    let none = refusal(preview_redeem_points(&ctx, parking()).await);
    assert!(none.contains("停车场里现在没有您的车（沪B54321）"), "{none}");
    let other =
        refusal(preview_redeem_points(&ctx, args(json!({ "for": "parking", "plate": "沪B55555" }))).await);
    assert!(other.contains("沪B55555 不是您保存的车牌"), "{other}");
    mall.car_entered("沪B54321", None).await.unwrap();
    mall.advance_clock(std::time::Duration::from_secs(4 * 3600));
    let poor = refusal(preview_redeem_points(&ctx, parking()).await);
    assert_eq!(poor, "积分不够：4 小时停车要 400 积分，您现在有 0 积分。没有扣除任何积分。");
}

#[tokio::test]
async fn a_coupon_for_points_is_previewed_with_its_cost_and_redeemed_once_per_key() {
    use services::MallApi;
    let (ctx, mall, earned) = shopper_with_points(50_000).await;
    let preview = preview_redeem_points(&ctx, args(json!({ "for": "coupon", "points": 500 }))).await.unwrap();
    assert!(preview.summary.starts_with("🎟 用 300 积分兑换优惠券：积分兑换满200减30"), "{}", preview.summary);
    assert!(preview.summary.contains(&format!("您有 {earned} 积分")), "{}", preview.summary);
    let too_few = refusal(preview_redeem_points(&ctx, args(json!({ "for": "coupon", "points": 100 }))).await);
    assert!(too_few.contains("100 积分换不到券") && too_few.contains("300 积分"), "{too_few}");

    let approved = ToolContext {
        approval: Some(crate::Approval {
            idempotency_key: services::IdempotencyKey("confirm-once".into()),
            preview: preview.clone(),
        }),
        ..ToolContext::new(mall.clone(), ctx.shopper.clone(), Lang::Zh)
    };
    let first = redeem_points(&approved, args(json!({ "for": "coupon" }))).await.unwrap();
    let again = redeem_points(&approved, args(json!({ "for": "coupon" }))).await.unwrap();
    assert_eq!(first.data, again.data, "the same confirmation redeems once");
    assert_eq!(mall.points(&ctx.shopper).await.unwrap().balance, earned - 300);
    let held = refusal(preview_redeem_points(&ctx, args(json!({ "for": "coupon" }))).await);
    assert!(held.contains("您已经有「积分兑换满200减30」了"), "{held}");
}
