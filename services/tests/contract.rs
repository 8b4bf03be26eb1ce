//! The mall contract (`docs/openapi.yaml`) checked end to end: one suite run against
//! the embedded mall and against `HttpMall` → the reference server → the embedded mall, plus
//! HTTP-only checks of the server and failure handling of the client against stub servers.
#![allow(clippy::unwrap_used)]

mod common;

mod client {
    //! `HttpMall` against scripted stub servers on loopback.

    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Mutex};
    use std::time::Duration;

    use axum::Router;
    use axum::extract::State;
    use axum::http::{HeaderMap, StatusCode, Uri};
    use axum::response::{IntoResponse, Response};
    use axum::routing::any;
    use serde_json::json;
    use services::{
        AddCartItem, CreateOrder, IdempotencyKey, MallApi, PageRequest, RecordPayment, ServiceError, Shopper,
    };

    use crate::common::{API_KEY, STAFF_KEY, client_for, stub_server};

    const PATIENT: Duration = Duration::from_secs(5);

    fn cart_json() -> serde_json::Value {
        json!({"cart_id": "c1", "items": [], "total_cents": 0, "served_by": "stub"})
    }

    fn order_json() -> serde_json::Value {
        json!({"order_id": "o1", "status": "PENDING_PAYMENT", "items": [], "total_cents": 0,
               "created_at": "2025-01-01T00:00:00Z", "pickup_store_id": "s1"})
    }

    /// A stub answering every request with `failures` 503 pages, then `success`; counts hits.
    fn flaky(failures: usize, success: serde_json::Value) -> (Router, Arc<AtomicUsize>) {
        let hits = Arc::new(AtomicUsize::new(0));
        let handler = move |State(hits): State<Arc<AtomicUsize>>| {
            let success = success.clone();
            async move {
                if hits.fetch_add(1, Ordering::SeqCst) < failures {
                    (StatusCode::SERVICE_UNAVAILABLE, "<h1>503 Service Unavailable</h1>").into_response()
                } else {
                    axum::Json(success).into_response()
                }
            }
        };
        (Router::new().fallback(any(handler)).with_state(hits.clone()), hits)
    }

    #[tokio::test]
    async fn a_get_that_fails_twice_with_503_is_retried_and_succeeds() {
        let (router, hits) = flaky(2, json!({"status": "ok"}));
        let server = stub_server(router).await;
        let health = client_for(&server, PATIENT, 2).health().await.unwrap();
        assert_eq!(health.status, "ok");
        assert_eq!(hits.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn retries_stop_at_the_configured_bound() {
        let (router, hits) = flaky(10, json!({"status": "ok"}));
        let server = stub_server(router).await;
        let error = client_for(&server, PATIENT, 2).health().await.unwrap_err();
        assert_eq!(hits.load(Ordering::SeqCst), 3);
        let ServiceError::Unavailable { message } = error else { panic!("expected Unavailable: {error:?}") };
        assert_eq!(
            message,
            "GET /api/health: HTTP 503 Service Unavailable: <h1>503 Service Unavailable</h1> (3 attempts)"
        );
    }

    #[tokio::test]
    async fn a_post_without_idempotency_key_is_not_retried() {
        let (router, hits) = flaky(1, cart_json());
        let server = stub_server(router).await;
        let item = AddCartItem { product_id: "p1".into(), sku_id: None, quantity: 1 };
        let shopper = Shopper::new("telegram", 7);
        let error = client_for(&server, PATIENT, 2).add_cart_item(&shopper, &item, None).await.unwrap_err();
        assert!(matches!(error, ServiceError::Unavailable { .. }), "{error:?}");
        assert_eq!(hits.load(Ordering::SeqCst), 1);
    }

    #[tokio::test]
    async fn a_post_with_an_idempotency_key_is_retried() {
        let (router, hits) = flaky(1, order_json());
        let server = stub_server(router).await;
        let order = CreateOrder { cart_id: "c1".into(), expected_total_cents: None };
        let key = Some(IdempotencyKey("order-key-1".into()));
        let placed = client_for(&server, PATIENT, 2)
            .create_order(&Shopper::new("telegram", 7), &order, key)
            .await
            .unwrap();
        assert_eq!(placed.order_id, "o1");
        assert_eq!(hits.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn an_html_502_page_is_unavailable_quoting_the_page() {
        let page = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>";
        let server = stub_server(Router::new().fallback(any(move || async move {
            (StatusCode::BAD_GATEWAY, [("content-type", "text/html")], page)
        })))
        .await;
        let error = client_for(&server, PATIENT, 0).get_store("s1").await.unwrap_err();
        let ServiceError::Unavailable { message } = &error else { panic!("expected Unavailable: {error:?}") };
        assert_eq!(message, &format!("GET /api/stores/s1: HTTP 502 Bad Gateway: {page}"));
    }

    #[tokio::test]
    async fn an_html_404_page_is_an_invalid_response_keeping_the_raw_body() {
        let page = "<html><body><h1>File Not Found</h1></body></html>";
        let server = stub_server(Router::new().fallback(any(move || async move {
            (StatusCode::NOT_FOUND, [("content-type", "text/html")], page)
        })))
        .await;
        let error = client_for(&server, PATIENT, 2).get_product("p1").await.unwrap_err();
        match error {
            ServiceError::InvalidResponse { status, raw, .. } => {
                assert_eq!((status, raw.as_str()), (404, page))
            }
            other => panic!("expected InvalidResponse, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_success_that_is_not_json_is_an_invalid_response_keeping_the_raw_body() {
        let server = stub_server(Router::new().fallback(any(|| async { "File Not Found" }))).await;
        let error = client_for(&server, PATIENT, 2).list_areas().await.unwrap_err();
        match error {
            ServiceError::InvalidResponse { status, raw, .. } => {
                assert_eq!((status, raw.as_str()), (200, "File Not Found"))
            }
            other => panic!("expected InvalidResponse, got {other:?}"),
        }
    }

    #[tokio::test]
    async fn a_huge_unparsable_body_is_kept_only_in_part() {
        let server = stub_server(Router::new().fallback(any(|| async { "x".repeat(1 << 20) }))).await;
        let error = client_for(&server, PATIENT, 0).list_areas().await.unwrap_err();
        let ServiceError::InvalidResponse { raw, .. } = error else { panic!("expected InvalidResponse") };
        assert_eq!(raw, format!("{}…", "x".repeat(4096)));
    }

    #[tokio::test]
    async fn a_server_slower_than_the_request_timeout_is_unavailable_saying_timeout() {
        let server = stub_server(Router::new().fallback(any(|| async {
            tokio::time::sleep(Duration::from_secs(5)).await;
            axum::Json(json!({"status": "ok"}))
        })))
        .await;
        let error = client_for(&server, Duration::from_millis(300), 0).health().await.unwrap_err();
        let ServiceError::Unavailable { message } = &error else { panic!("expected Unavailable: {error:?}") };
        assert_eq!(message, "GET /api/health: timed out after 300ms waiting for the answer");
    }

    #[tokio::test]
    async fn a_closed_port_is_unavailable_saying_it_could_not_connect() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let address = listener.local_addr().unwrap();
        drop(listener);
        let config = services::HttpMallConfig::new(format!("http://{address}"), "");
        let error = services::HttpMall::new(config).unwrap().health().await.unwrap_err();
        let ServiceError::Unavailable { message } = &error else { panic!("expected Unavailable: {error:?}") };
        assert!(message.starts_with("GET /api/health: could not connect: "), "{message}");
        assert!(message.ends_with("(3 attempts)"), "{message}");
    }

    /// A stub whose every answer is `429` with `Retry-After: <seconds>` until `limited` requests
    /// have been refused, then an empty page; counts hits.
    fn rate_limited(limited: usize, seconds: &'static str) -> (Router, Arc<AtomicUsize>) {
        let hits = Arc::new(AtomicUsize::new(0));
        let handler = move |State(hits): State<Arc<AtomicUsize>>| async move {
            if hits.fetch_add(1, Ordering::SeqCst) < limited {
                return (StatusCode::TOO_MANY_REQUESTS, [("retry-after", seconds)], "slow down")
                    .into_response();
            }
            axum::Json(json!({"items": [], "total": 0})).into_response()
        };
        (Router::new().fallback(any(handler)).with_state(hits.clone()), hits)
    }

    #[tokio::test]
    async fn a_429_with_a_short_retry_after_is_retried() {
        let (router, hits) = rate_limited(1, "0");
        let server = stub_server(router).await;
        let areas = client_for(&server, PATIENT, 2).list_areas().await.unwrap();
        assert_eq!((areas.total, hits.load(Ordering::SeqCst)), (0, 2));
    }

    #[tokio::test]
    async fn a_429_with_a_long_retry_after_ends_the_call_saying_so() {
        let (router, hits) = rate_limited(1, "60");
        let server = stub_server(router).await;
        let error = client_for(&server, PATIENT, 2).list_areas().await.unwrap_err();
        assert_eq!(hits.load(Ordering::SeqCst), 1);
        let ServiceError::Unavailable { message } = &error else { panic!("expected Unavailable: {error:?}") };
        assert_eq!(
            message,
            "GET /api/areas: HTTP 429 Too Many Requests: slow down; the mall asks to retry after 60 s"
        );
    }

    #[tokio::test]
    async fn contract_errors_come_back_as_their_kind() {
        let server = stub_server(Router::new().fallback(any(|| async {
            let body = json!({"error": {"code": "PRICE_CHANGED", "message": "total changed",
                                        "details": {"total_cents": 51800}}});
            (StatusCode::CONFLICT, axum::Json(body))
        })))
        .await;
        let order = CreateOrder { cart_id: "c1".into(), expected_total_cents: Some(49900) };
        let error = client_for(&server, PATIENT, 2)
            .create_order(&Shopper::new("telegram", 1), &order, None)
            .await
            .unwrap_err();
        assert_eq!(error, ServiceError::PriceChanged { total_cents: 51800, message: "total changed".into() });
    }

    /// What the stub saw of one request.
    #[derive(Debug, Default, Clone, PartialEq)]
    struct Seen {
        path: String,
        query: Option<String>,
        authorization: Option<String>,
        shopper: Option<String>,
        idempotency_key: Option<String>,
        body: String,
    }

    async fn record(
        State(seen): State<Arc<Mutex<Vec<Seen>>>>,
        uri: Uri,
        headers: HeaderMap,
        body: String,
    ) -> Response {
        let header = |name: &str| headers.get(name).map(|v| v.to_str().unwrap().to_owned());
        seen.lock().unwrap().push(Seen {
            path: uri.path().to_owned(),
            query: uri.query().map(str::to_owned),
            authorization: header("authorization"),
            shopper: header("x-mall-user"),
            idempotency_key: header("idempotency-key"),
            body,
        });
        match uri.path() {
            "/api/cart/items" => axum::Json(cart_json()).into_response(),
            "/api/events" => axum::Json(json!({"items": [], "next": "7"})).into_response(),
            path if path.starts_with("/api/orders/") || path.starts_with("/api/staff/") => {
                axum::Json(order_json()).into_response()
            }
            _ => axum::Json(json!({"items": [], "total": 0})).into_response(),
        }
    }

    #[tokio::test]
    async fn requests_carry_the_contract_headers_names_and_encoded_ids() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let server = stub_server(Router::new().fallback(any(record)).with_state(seen.clone())).await;
        let mall = client_for(&server, PATIENT, 0);
        let shopper = Shopper::new("telegram", 42);
        let item = AddCartItem { product_id: "p1".into(), sku_id: Some("p1-42".into()), quantity: 2 };
        let cart = mall.add_cart_item(&shopper, &item, Some(IdempotencyKey("k-1".into()))).await.unwrap();
        assert_eq!(cart.cart_id, "c1");
        mall.store_reviews("店/1", PageRequest { limit: Some(5), offset: None }).await.unwrap();

        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen[0],
            Seen {
                path: "/api/cart/items".into(),
                query: None,
                authorization: Some(format!("Bearer {API_KEY}")),
                shopper: Some("telegram:42".into()),
                idempotency_key: Some("k-1".into()),
                body: r#"{"product_id":"p1","sku_id":"p1-42","quantity":2}"#.into(),
            }
        );
        assert_eq!(seen[1].path, "/api/stores/%E5%BA%97%2F1/reviews");
        assert_eq!(seen[1].query.as_deref(), Some("limit=5"));
        assert_eq!(seen[1].shopper, None);
    }

    fn telegram_payment() -> RecordPayment {
        RecordPayment {
            provider: "telegram".into(),
            amount_cents: 69_900,
            currency: "CNY".into(),
            charge_id: "tg-charge-1".into(),
        }
    }

    #[tokio::test]
    async fn payments_events_and_staff_calls_carry_the_contract_paths_and_keys() {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let server = stub_server(Router::new().fallback(any(record)).with_state(seen.clone())).await;
        let mall = client_for(&server, PATIENT, 0).with_staff_key(STAFF_KEY).unwrap();
        let shopper = Shopper::new("telegram", 42);
        let key = Some(IdempotencyKey("tg-charge-1".into()));
        mall.pay_order(&shopper, "o 1", &telegram_payment(), key).await.unwrap();
        let page = mall.events(Some("6".into()), 20).await.unwrap();
        assert_eq!((page.items.len(), page.next.as_deref()), (0, Some("7")));
        mall.mark_ready("o1").await.unwrap();
        mall.mark_picked_up("o1").await.unwrap();

        let seen = seen.lock().unwrap().clone();
        assert_eq!(
            seen[0],
            Seen {
                path: "/api/orders/o%201/payments".into(),
                query: None,
                authorization: Some(format!("Bearer {API_KEY}")),
                shopper: Some("telegram:42".into()),
                idempotency_key: Some("tg-charge-1".into()),
                body: r#"{"provider":"telegram","amount_cents":69900,"currency":"CNY","charge_id":"tg-charge-1"}"#
                    .into(),
            }
        );
        assert_eq!(
            (seen[1].path.as_str(), seen[1].query.as_deref(), seen[1].shopper.as_deref()),
            ("/api/events", Some("after=6&limit=20"), None)
        );
        assert_eq!(seen[1].authorization, Some(format!("Bearer {API_KEY}")));
        for (seen, path) in
            seen[2..].iter().zip(["/api/staff/orders/o1/ready", "/api/staff/orders/o1/picked-up"])
        {
            assert_eq!(seen.path, path);
            assert_eq!(
                seen.authorization,
                Some(format!("Bearer {STAFF_KEY}")),
                "the staff key, not the bot's"
            );
            assert_eq!(seen.shopper, None);
        }
    }

    #[tokio::test]
    async fn without_a_staff_key_staff_calls_are_unauthorized_and_never_sent() {
        let (router, hits) = flaky(0, order_json());
        let server = stub_server(router).await;
        let mall = client_for(&server, PATIENT, 2);
        let error = mall.mark_ready("o1").await.unwrap_err();
        assert!(
            matches!(&error, ServiceError::Unauthorized { message } if message.contains("mall.staff_key"))
        );
        assert!(matches!(mall.mark_picked_up("o1").await, Err(ServiceError::Unauthorized { .. })));
        let mall = mall.with_staff_key("").unwrap();
        assert!(matches!(mall.mark_ready("o1").await, Err(ServiceError::Unauthorized { .. })));
        assert_eq!(hits.load(Ordering::SeqCst), 0);
    }

    #[tokio::test]
    async fn a_keyed_payment_is_retried_through_a_503() {
        let (router, hits) = flaky(
            1,
            json!({"order_id": "o1", "status": "PAID", "items": [], "total_cents": 69900,
            "currency": "CNY", "created_at": "2025-01-01T00:00:00Z", "pickup_store_id": "s1",
            "payment": {"provider": "telegram", "amount_cents": 69900, "currency": "CNY",
                        "charge_id": "tg-charge-1", "paid_at": "2025-01-01T00:05:00Z"}}),
        );
        let server = stub_server(router).await;
        let key = Some(IdempotencyKey("tg-charge-1".into()));
        let paid = client_for(&server, PATIENT, 2)
            .pay_order(&Shopper::new("telegram", 7), "o1", &telegram_payment(), key)
            .await
            .unwrap();
        assert_eq!(paid.status, services::OrderStatus::Paid);
        assert_eq!(paid.payment.map(|p| p.charge_id).as_deref(), Some("tg-charge-1"));
        assert_eq!(hits.load(Ordering::SeqCst), 2);
    }

    #[tokio::test]
    async fn the_new_refusals_come_back_as_their_kind() {
        for (code, expected) in [
            ("ORDER_NOT_PAYABLE", ServiceError::NotPayable { message: "m".into() }),
            ("PAYMENT_MISMATCH", ServiceError::PaymentMismatch { message: "m".into() }),
            ("TOO_MANY_OPEN_ORDERS", ServiceError::TooManyOpenOrders { message: "m".into() }),
        ] {
            let server = stub_server(Router::new().fallback(any(move || async move {
                (StatusCode::CONFLICT, axum::Json(json!({"error": {"code": code, "message": "m"}})))
            })))
            .await;
            let error = client_for(&server, PATIENT, 2)
                .pay_order(&Shopper::new("telegram", 1), "o1", &telegram_payment(), None)
                .await
                .unwrap_err();
            assert_eq!(error, expected);
        }
    }
}

mod server_http {
    //! The reference server spoken to with raw HTTP: what any client of the contract sees.

    use std::sync::Arc;

    use serde_json::{Value, json};
    use services::{
        AddCartItem, CreateOrder, EmbeddedMall, MallApi, OrderStatus, ProductQuery, RecordPayment, Shopper,
    };

    use crate::common::{API_KEY, Running, STAFF_KEY, mall_server, mall_server_with_staff};

    async fn server() -> Running {
        mall_server(Arc::new(EmbeddedMall::in_memory())).await
    }

    /// The status and the contract error body's code, message and `details.field`.
    async fn refusal(response: reqwest::Response) -> (u16, String, String, Option<String>) {
        let status = response.status().as_u16();
        let body: Value = response.json().await.expect("a JSON error body");
        let text = |v: &Value| v.as_str().map(str::to_owned);
        (
            status,
            text(&body["error"]["code"]).expect("error.code"),
            text(&body["error"]["message"]).expect("error.message"),
            text(&body["error"]["details"]["field"]),
        )
    }

    #[tokio::test]
    async fn a_missing_or_wrong_bearer_key_is_401_with_the_contract_body() {
        let server = server().await;
        let client = reqwest::Client::new();
        let missing = client.get(server.url("/api/health")).send().await.unwrap();
        let (status, code, message, _) = refusal(missing).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHORIZED"));
        assert_eq!(message, "an Authorization: Bearer <api key> header is required");
        let wrong = client.get(server.url("/api/health")).bearer_auth("not-the-key").send().await.unwrap();
        let (status, code, message, _) = refusal(wrong).await;
        assert_eq!((status, code.as_str(), message.as_str()), (401, "UNAUTHORIZED", "the API key is wrong"));
        let right = client.get(server.url("/api/health")).bearer_auth(API_KEY).send().await.unwrap();
        assert_eq!(right.json::<Value>().await.unwrap(), json!({"status": "ok"}));
    }

    #[tokio::test]
    async fn a_cart_request_without_x_mall_user_is_401() {
        let server = server().await;
        let response =
            reqwest::Client::new().get(server.url("/api/cart")).bearer_auth(API_KEY).send().await.unwrap();
        let (status, code, message, _) = refusal(response).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHORIZED"));
        assert!(message.contains("X-Mall-User"), "{message}");
    }

    #[tokio::test]
    async fn malformed_json_is_400() {
        let server = server().await;
        let response = reqwest::Client::new()
            .post(server.url("/api/cart/items"))
            .bearer_auth(API_KEY)
            .header("X-Mall-User", "telegram:5")
            .header("content-type", "application/json")
            .body(r#"{"product_id": "p1", "quantity": "#)
            .send()
            .await
            .unwrap();
        let (status, code, message, field) = refusal(response).await;
        assert_eq!((status, code.as_str(), field), (400, "INVALID_ARGUMENT", None));
        assert!(message.starts_with("the request body must be one JSON object"), "{message}");
    }

    #[tokio::test]
    async fn a_body_over_64_kib_is_413_with_the_contract_body() {
        let server = server().await;
        let padding = "x".repeat(70 * 1024);
        let response = reqwest::Client::new()
            .post(server.url("/api/orders"))
            .bearer_auth(API_KEY)
            .header("X-Mall-User", "telegram:5")
            .json(&json!({"cart_id": "c1", "note": padding}))
            .send()
            .await
            .unwrap();
        let (status, code, message, _) = refusal(response).await;
        assert_eq!((status, code.as_str()), (413, "INVALID_ARGUMENT"));
        assert_eq!(message, "the request body is larger than 64 KiB");
    }

    #[tokio::test]
    async fn a_non_numeric_limit_is_400_naming_limit() {
        let server = server().await;
        let response = reqwest::Client::new()
            .get(server.url("/api/products/search?keyword=nike&limit=abc"))
            .bearer_auth(API_KEY)
            .send()
            .await
            .unwrap();
        let (status, code, _, field) = refusal(response).await;
        assert_eq!((status, code.as_str(), field.as_deref()), (400, "INVALID_ARGUMENT", Some("limit")));
    }

    /// A shopper's paid order on `mall`, placed directly.
    async fn paid_order(mall: &EmbeddedMall) -> services::Order {
        let who = Shopper::new("telegram", 77);
        let query = ProductQuery { keyword: Some("Nike".into()), ..Default::default() };
        let first = mall.search_products(&query).await.unwrap().items.remove(0);
        let product = mall.get_product(&first.id).await.unwrap();
        let sku_id = product.skus.iter().find(|s| s.stock > 0).map(|s| s.sku_id.clone());
        let item = AddCartItem { product_id: product.brief.id.clone(), sku_id, quantity: 1 };
        let cart = mall.add_cart_item(&who, &item, None).await.unwrap();
        let request = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
        let order = mall.create_order(&who, &request, None).await.unwrap();
        let payment = RecordPayment {
            provider: "telegram".into(),
            amount_cents: order.total_cents,
            currency: order.currency.clone(),
            charge_id: "ch-staff".into(),
        };
        mall.pay_order(&who, &order.order_id, &payment, None).await.unwrap()
    }

    #[tokio::test]
    async fn staff_endpoints_take_the_staff_key_and_nothing_else() {
        let mall = EmbeddedMall::in_memory();
        let order = paid_order(&mall).await;
        let server = mall_server(Arc::new(mall.clone())).await;
        let client = reqwest::Client::new();
        let url = server.url(&format!("/api/staff/orders/{}/ready", order.order_id));
        let missing = client.post(&url).send().await.unwrap();
        let (status, code, message, _) = refusal(missing).await;
        assert_eq!((status, code.as_str()), (401, "UNAUTHORIZED"));
        assert_eq!(message, "an Authorization: Bearer <staff key> header is required");
        let bots = client.post(&url).bearer_auth(API_KEY).send().await.unwrap();
        let (status, _, message, _) = refusal(bots).await;
        assert_eq!(
            (status, message.as_str()),
            (401, "the staff key is wrong"),
            "the bot's key is not the staff's"
        );
        assert_eq!(
            mall.get_order(&Shopper::new("telegram", 77), &order.order_id).await.unwrap().status,
            OrderStatus::Paid,
            "refused calls changed nothing"
        );
        let staff = client.post(&url).bearer_auth(STAFF_KEY).send().await.unwrap();
        assert_eq!(staff.status().as_u16(), 200);
        assert_eq!(staff.json::<Value>().await.unwrap()["status"], "READY");
    }

    #[tokio::test]
    async fn staff_change_stock_and_price_and_the_feed_tells_the_restocked_size_and_both_prices() {
        let embedded = EmbeddedMall::in_memory();
        let server = mall_server(Arc::new(embedded.clone())).await;
        let mall = crate::common::client_for(&server, std::time::Duration::from_secs(5), 0)
            .with_staff_key(STAFF_KEY)
            .unwrap();
        let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..Default::default() };
        let first = mall.search_products(&query).await.unwrap().items.remove(0);
        let product = mall.get_product(&first.id).await.unwrap();
        let sku = product.skus[0].clone();
        let before = mall.events(None, 50).await.unwrap().next;

        let out = mall.set_stock(&product.brief.id, Some(sku.sku_id.clone()), 0).await.unwrap();
        assert_eq!(out.skus[0].stock, 0);
        mall.set_stock(&product.brief.id, Some(sku.sku_id.clone()), 3).await.unwrap();
        mall.set_stock(&product.brief.id, Some(sku.sku_id.clone()), 5).await.unwrap();
        let cheaper = product.brief.price_cents - 10_000;
        let out = mall.set_price(&product.brief.id, None, cheaper).await.unwrap();
        assert_eq!(out.brief.price_cents, cheaper);
        mall.set_price(&product.brief.id, None, cheaper).await.unwrap();

        let events = mall.events(before, 50).await.unwrap().items;
        assert_eq!(events.len(), 2, "one restock (0 → 3; 3 → 5 is none), one price change: {events:?}");
        assert_eq!(events[0].kind, services::EventKind::ProductRestocked);
        assert_eq!(events[0].product_id.as_deref(), Some(product.brief.id.as_str()));
        assert_eq!(events[0].sizes, vec![sku.label.clone()]);
        assert_eq!(events[0].status, None);
        assert_eq!(events[1].kind, services::EventKind::ProductPriceChanged);
        assert_eq!(
            (events[1].old_price_cents, events[1].new_price_cents),
            (Some(product.brief.price_cents), Some(cheaper))
        );

        // A SKU of another product, a product with SKUs and none named, a negative price: refused.
        let error = mall.set_stock(&product.brief.id, Some("nope".into()), 1).await.unwrap_err();
        assert_eq!(error.code(), "NOT_FOUND");
        let error = mall.set_stock(&product.brief.id, None, 1).await.unwrap_err();
        assert_eq!(error.code(), "INVALID_ARGUMENT");
        let url = server.url(&format!("/api/staff/products/{}/price", product.brief.id));
        let response = reqwest::Client::new()
            .post(&url)
            .bearer_auth(STAFF_KEY)
            .json(&json!({"price_cents": -1}))
            .send()
            .await
            .unwrap();
        assert_eq!(refusal(response).await.0, 400);
        // The bot's key does not change stock.
        let url = server.url(&format!("/api/staff/products/{}/stock", product.brief.id));
        let response = reqwest::Client::new()
            .post(&url)
            .bearer_auth(API_KEY)
            .json(&json!({"sku_id": sku.sku_id, "stock": 0}))
            .send()
            .await
            .unwrap();
        assert_eq!(refusal(response).await.0, 401);
        assert_eq!(embedded.get_product(&product.brief.id).await.unwrap().skus[0].stock, 5);
    }

    #[test]
    fn an_event_without_a_type_is_an_order_event_and_an_unknown_type_is_passed_over() {
        let old: services::Event = serde_json::from_value(json!({
            "event_id": "7", "order_id": "o1", "user": "telegram:1", "status": "READY", "at": "2026-11-27T10:00:00Z"
        }))
        .unwrap();
        assert_eq!(
            (old.kind, old.status),
            (services::EventKind::OrderStatusChanged, Some(OrderStatus::Ready))
        );
        let later: services::Event = serde_json::from_value(
            json!({"event_id": "8", "type": "store.opened", "at": "2026-11-27T10:00:00Z"}),
        )
        .unwrap();
        assert_eq!(later.kind, services::EventKind::Unknown);
    }

    #[tokio::test]
    async fn a_server_without_a_staff_key_keeps_the_staff_endpoints_closed() {
        let mall = EmbeddedMall::in_memory();
        let order = paid_order(&mall).await;
        for staff_key in [None, Some("")] {
            let server = mall_server_with_staff(Arc::new(mall.clone()), staff_key).await;
            let url = server.url(&format!("/api/staff/orders/{}/ready", order.order_id));
            for bearer in ["", API_KEY, STAFF_KEY] {
                let response = reqwest::Client::new().post(&url).bearer_auth(bearer).send().await.unwrap();
                let (status, code, message, _) = refusal(response).await;
                assert_eq!((status, code.as_str()), (403, "UNAUTHORIZED"), "{staff_key:?} {bearer:?}");
                assert!(message.contains("no staff key"), "{message}");
            }
        }
        let status = mall.get_order(&Shopper::new("telegram", 77), &order.order_id).await.unwrap().status;
        assert_eq!(status, OrderStatus::Paid);
    }

    #[tokio::test]
    async fn the_event_feed_needs_the_bot_key_but_no_shopper() {
        let mall = EmbeddedMall::in_memory();
        paid_order(&mall).await;
        let server = mall_server(Arc::new(mall)).await;
        let client = reqwest::Client::new();
        let (status, ..) = refusal(client.get(server.url("/api/events")).send().await.unwrap()).await;
        assert_eq!(status, 401);
        let (status, ..) =
            refusal(client.get(server.url("/api/events")).bearer_auth(STAFF_KEY).send().await.unwrap()).await;
        assert_eq!(status, 401, "the staff key does not read the feed");
        let page: Value = client
            .get(server.url("/api/events?limit=5"))
            .bearer_auth(API_KEY)
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        assert_eq!(page["items"][0]["status"], "PAID");
        assert_eq!(page["items"][0]["user"], "telegram:77");
        assert_eq!(page["next"], page["items"][0]["event_id"]);
        let response =
            client.get(server.url("/api/events?after=soon")).bearer_auth(API_KEY).send().await.unwrap();
        let (status, code, _, field) = refusal(response).await;
        assert_eq!((status, code.as_str(), field.as_deref()), (400, "INVALID_ARGUMENT", Some("after")));
    }

    #[tokio::test]
    async fn a_payment_body_missing_a_field_is_400_naming_it() {
        let server = server().await;
        for (body, field) in [
            (json!({"amount_cents": 100, "currency": "CNY", "charge_id": "c"}), "provider"),
            (json!({"provider": "telegram", "currency": "CNY", "charge_id": "c"}), "amount_cents"),
            (json!({"provider": "telegram", "amount_cents": 100, "charge_id": "c"}), "currency"),
            (json!({"provider": "telegram", "amount_cents": 100, "currency": "CNY"}), "charge_id"),
            (
                json!({"provider": "telegram", "amount_cents": "lots", "currency": "CNY", "charge_id": "c"}),
                "amount_cents",
            ),
        ] {
            let response = reqwest::Client::new()
                .post(server.url("/api/orders/o-1/payments"))
                .bearer_auth(API_KEY)
                .header("X-Mall-User", "telegram:5")
                .json(&body)
                .send()
                .await
                .unwrap();
            let (status, code, _, named) = refusal(response).await;
            assert_eq!(
                (status, code.as_str(), named.as_deref()),
                (400, "INVALID_ARGUMENT", Some(field)),
                "{body}"
            );
        }
    }

    #[tokio::test]
    async fn an_unknown_route_is_404_with_the_contract_body() {
        let server = server().await;
        let response = reqwest::Client::new()
            .get(server.url("/api/warehouse/stock"))
            .bearer_auth(API_KEY)
            .send()
            .await
            .unwrap();
        let (status, code, message, _) = refusal(response).await;
        assert_eq!((status, code.as_str()), (404, "NOT_FOUND"));
        assert_eq!(message, "no such endpoint: GET /api/warehouse/stock");
    }
}

/// Stamps out every case of [`suite`] twice: against the embedded mall directly, and through
/// `HttpMall` → the reference server (with an API key) → a fresh embedded mall.
macro_rules! contract_suite {
    ($($case:ident),* $(,)?) => {
        mod embedded {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    super::suite::$case(super::suite::embedded()).await;
                }
            )*
        }

        mod over_http {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let (mall, _server) = super::suite::over_http().await;
                    super::suite::$case(mall).await;
                }
            )*
        }
    };
}

contract_suite!(
    health_is_ok,
    chinese_and_english_keywords_find_nike_running_shoes,
    price_bounds_and_brand_filter_products,
    product_search_pages_by_limit_and_offset,
    product_detail_matches_its_search_entry,
    unknown_ids_are_not_found,
    stores_are_found_by_keyword_and_floor,
    a_store_has_details_promotions_and_reviews,
    areas_list_their_stores,
    routes_start_at_the_main_entrance,
    items_are_added_removed_and_cleared,
    quantities_outside_1_to_99_are_refused,
    a_product_with_skus_needs_a_sku_id,
    more_than_the_stock_is_out_of_stock,
    an_order_empties_the_cart_and_reserves_stock,
    a_changed_total_is_price_changed_and_orders_nothing,
    an_empty_cart_cannot_be_ordered,
    orders_are_listed_newest_first,
    cancelling_returns_the_stock_once,
    another_shoppers_cart_and_orders_are_not_found,
    the_same_key_sent_twice_at_once_places_one_order,
    the_same_key_with_another_body_is_a_conflict,
    the_same_key_adds_an_item_once,
    the_mall_has_information_sections_in_both_languages,
    events_in_a_window_come_soonest_first_with_their_place,
    an_unreadable_event_window_is_refused_by_name,
    mall_promotions_list_the_malls_offers_then_every_stores,
    english_texts_come_with_products_offers_and_areas,
);

/// Stamps out every case of [`suite`] that also needs the embedded mall behind the API (to move
/// its clock or set its policy): directly, and through `HttpMall` (with the staff key) → the
/// reference server → that embedded mall.
macro_rules! lifecycle_suite {
    ($($case:ident),* $(,)?) => {
        mod lifecycle_embedded {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let mall = services::EmbeddedMall::in_memory();
                    super::suite::$case(std::sync::Arc::new(mall.clone()), mall).await;
                }
            )*
        }

        mod lifecycle_over_http {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $case() {
                    let (api, mall, _server) = super::suite::over_http_with_staff().await;
                    super::suite::$case(api, mall).await;
                }
            )*
        }
    };
}

lifecycle_suite!(
    a_payment_makes_the_order_paid_once_per_charge,
    a_payment_of_another_amount_or_currency_is_a_mismatch,
    a_cancelled_or_late_order_is_not_payable,
    cancelling_a_paid_order_answers_a_pending_refund,
    an_expired_order_returns_its_stock,
    the_fourth_open_order_is_refused,
    events_come_oldest_first_and_resume_after_the_cursor,
    staff_mark_a_paid_order_ready_then_picked_up,
    the_parking_fee_counts_free_time_earned_by_spending_today,
    plates_in_any_spelling_are_one_and_foreign_plates_are_taken_as_configured,
    a_plate_with_no_car_inside_is_not_found,
    a_parking_fee_is_paid_once_and_a_changed_fee_is_refused,
    points_are_earned_on_payment_and_taken_back_on_cancel,
    a_refund_after_points_were_spent_takes_back_only_what_is_left,
    redeeming_more_points_than_held_is_refused_and_points_buy_parking_once,
    a_coupon_is_claimed_once_per_shopper_while_any_are_left,
    an_expired_coupon_is_refused,
    a_coupon_below_its_minimum_spend_is_refused_and_nothing_is_ordered,
    an_order_with_a_coupon_shows_the_discount_and_a_cancel_gives_the_coupon_back,
    a_mall_without_a_car_park_points_or_coupons_says_so,
);

mod suite {
    //! The contract's cases, each written once against `Arc<dyn MallApi>`.

    use std::sync::Arc;
    use std::time::Duration;

    use services::{
        AddCartItem, Cart, Coupon, CreateOrder, EmbeddedMall, EventQuery, IdempotencyKey, InfoSection,
        LoyaltyRules, MallApi, Order, OrderPolicy, OrderStatus, Page, PageRequest, PayParking, Product,
        ProductBrief, ProductQuery, RecordPayment, Redeem, Refund, RefundStatus, ServiceError, Shopper, Sku,
        StoreQuery,
    };

    use crate::common::{Running, STAFF_KEY, client_for, mall_server};

    type Mall = Arc<dyn MallApi>;

    pub fn embedded() -> Mall {
        Arc::new(EmbeddedMall::in_memory())
    }

    /// `HttpMall` talking to the reference server over a fresh embedded mall; the server stops
    /// when the returned guard is dropped.
    pub async fn over_http() -> (Mall, Running) {
        let server = mall_server(embedded()).await;
        let mall: Mall = Arc::new(client_for(&server, Duration::from_secs(10), 2));
        (mall, server)
    }

    /// `HttpMall` with the staff key talking to the reference server over an embedded mall,
    /// and that embedded mall (to move its clock).
    pub async fn over_http_with_staff() -> (Mall, EmbeddedMall, Running) {
        let embedded = EmbeddedMall::in_memory();
        let server = mall_server(Arc::new(embedded.clone())).await;
        let client = client_for(&server, Duration::from_secs(10), 2).with_staff_key(STAFF_KEY).unwrap();
        (Arc::new(client), embedded, server)
    }

    fn shopper(id: u32) -> Shopper {
        Shopper::new("telegram", id)
    }

    fn key(text: &str) -> Option<IdempotencyKey> {
        Some(IdempotencyKey(text.to_owned()))
    }

    fn products(keyword: &str) -> ProductQuery {
        ProductQuery { keyword: Some(keyword.to_owned()), page: PageRequest::first(50), ..Default::default() }
    }

    /// Every product of the mall, in the order an unfiltered search lists them.
    async fn all_products(mall: &Mall) -> Vec<ProductBrief> {
        let mut all = Vec::new();
        loop {
            let page = PageRequest { limit: Some(50), offset: Some(u32::try_from(all.len()).unwrap()) };
            let query = ProductQuery { page, ..Default::default() };
            let found = mall.search_products(&query).await.unwrap();
            let done = found.items.is_empty() || all.len() + found.items.len() >= found.total as usize;
            all.extend(found.items);
            if done {
                return all;
            }
        }
    }

    /// Products with SKUs whose stock allows buying 2 and asking for one more than the stock
    /// (2 ≤ stock ≤ 98), with that SKU.
    async fn stocked(mall: &Mall, how_many: usize) -> Vec<(Product, Sku)> {
        let mut found = Vec::new();
        for brief in all_products(mall).await {
            let product = mall.get_product(&brief.id).await.unwrap();
            if let Some(sku) = product.skus.iter().find(|sku| (2..=98).contains(&sku.stock)).cloned() {
                found.push((product, sku));
                if found.len() == how_many {
                    return found;
                }
            }
        }
        panic!("the demo mall needs {how_many} products with a SKU of stock 2-98; found {}", found.len());
    }

    async fn one_stocked(mall: &Mall) -> (Product, Sku) {
        stocked(mall, 1).await.remove(0)
    }

    async fn add(mall: &Mall, who: &Shopper, product: &Product, sku: &Sku, quantity: u32) -> Cart {
        let item =
            AddCartItem { product_id: product.brief.id.clone(), sku_id: Some(sku.sku_id.clone()), quantity };
        mall.add_cart_item(who, &item, None).await.unwrap()
    }

    async fn stock_of(mall: &Mall, product: &Product, sku: &Sku) -> u32 {
        let now = mall.get_product(&product.brief.id).await.unwrap();
        now.skus.iter().find(|s| s.sku_id == sku.sku_id).expect("the SKU is still listed").stock
    }

    /// Orders what `who` has in the cart, confirming the total shown.
    async fn order_cart(mall: &Mall, who: &Shopper, key_text: Option<&str>) -> services::Order {
        let cart = mall.get_cart(who).await.unwrap();
        let order = CreateOrder { cart_id: cart.cart_id, expected_total_cents: Some(cart.total_cents) };
        mall.create_order(who, &order, key_text.and_then(key)).await.unwrap()
    }

    fn field_of(error: &ServiceError) -> Option<&str> {
        match error {
            ServiceError::InvalidArgument { field, .. } => field.as_deref(),
            _ => None,
        }
    }

    pub async fn health_is_ok(mall: Mall) {
        assert_eq!(mall.health().await.unwrap().status, "ok");
    }

    pub async fn chinese_and_english_keywords_find_nike_running_shoes(mall: Mall) {
        let chinese = mall.search_products(&products("Nike 跑鞋")).await.unwrap();
        let best = chinese.items.first().expect("\"Nike 跑鞋\" finds something");
        assert!(best.brand.eq_ignore_ascii_case("nike"), "best match of \"Nike 跑鞋\": {best:?}");
        assert_eq!(chinese.total as usize, chinese.items.len());

        let english = mall.search_products(&products("Nike running shoes")).await.unwrap();
        assert_eq!(english.items.first().map(|p| &p.id), Some(&best.id), "same best match in English");
        let generic = mall.search_products(&products("running shoes")).await.unwrap();
        assert!(generic.items.iter().any(|p| p.id == best.id), "\"running shoes\" lists {}", best.id);
    }

    pub async fn price_bounds_and_brand_filter_products(mall: Mall) {
        let all = all_products(&mall).await;
        let mut prices: Vec<i64> = all.iter().map(|p| p.price_cents).collect();
        prices.sort_unstable();
        let (low, high) = (prices[prices.len() / 4], prices[prices.len() * 3 / 4]);
        let query = ProductQuery {
            min_price_cents: Some(low),
            max_price_cents: Some(high),
            page: PageRequest::first(50),
            ..Default::default()
        };
        let bounded = mall.search_products(&query).await.unwrap();
        let expected = all.iter().filter(|p| (low..=high).contains(&p.price_cents)).count();
        assert_eq!(bounded.total as usize, expected, "products priced {low}-{high}");
        assert!(bounded.items.iter().all(|p| (low..=high).contains(&p.price_cents)));

        let above_all =
            ProductQuery { min_price_cents: Some(prices[prices.len() - 1] + 1), ..Default::default() };
        assert_eq!(mall.search_products(&above_all).await.unwrap().total, 0);

        let brand =
            ProductQuery { brand: Some("Nike".into()), page: PageRequest::first(50), ..Default::default() };
        let nike = mall.search_products(&brand).await.unwrap();
        let expected = all.iter().filter(|p| p.brand.eq_ignore_ascii_case("nike")).count();
        assert!(expected > 0, "the demo mall sells Nike");
        assert_eq!(nike.total as usize, expected);
        assert!(nike.items.iter().all(|p| p.brand.eq_ignore_ascii_case("nike")), "{:?}", nike.items);
    }

    pub async fn product_search_pages_by_limit_and_offset(mall: Mall) {
        let all = all_products(&mall).await;
        assert!(all.len() >= 5, "the demo mall has a few products");
        let page = |limit, offset| ProductQuery {
            page: PageRequest { limit: Some(limit), offset: Some(offset) },
            ..Default::default()
        };
        let first = mall.search_products(&page(2, 0)).await.unwrap();
        let second = mall.search_products(&page(2, 2)).await.unwrap();
        let ids = |items: &[ProductBrief]| items.iter().map(|p| p.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&first.items), ids(&all[0..2]));
        assert_eq!(ids(&second.items), ids(&all[2..4]));
        assert_eq!((first.total, second.total), (all.len() as u64, all.len() as u64));
        let beyond = mall.search_products(&page(10, all.len() as u32)).await.unwrap();
        assert!(beyond.items.is_empty());
        assert_eq!(beyond.total, all.len() as u64);
        let default = mall.search_products(&ProductQuery::default()).await.unwrap();
        assert_eq!(default.items.len(), all.len().min(PageRequest::DEFAULT_LIMIT as usize));
    }

    pub async fn product_detail_matches_its_search_entry(mall: Mall) {
        let brief = mall.search_products(&products("Nike 跑鞋")).await.unwrap().items.remove(0);
        let product = mall.get_product(&brief.id).await.unwrap();
        assert_eq!(product.brief, brief);
        assert!(!product.skus.is_empty(), "running shoes come in sizes");
        let in_stock: Vec<&str> =
            product.skus.iter().filter(|sku| sku.stock > 0).map(|sku| sku.label.as_str()).collect();
        assert_eq!(product.brief.sizes, in_stock, "sizes lists the SKUs in stock");
        assert_eq!(product.brief.in_stock, !in_stock.is_empty());
        assert!((0.0..=5.0).contains(&product.brief.rating));
    }

    pub async fn unknown_ids_are_not_found(mall: Mall) {
        let not_found = |result: Result<(), ServiceError>, what: &str| match result {
            Err(ServiceError::NotFound { .. }) => {}
            other => panic!("{what}: expected NotFound, got {other:?}"),
        };
        not_found(mall.get_product("no-such-product").await.map(drop), "product");
        not_found(mall.get_product("a/b c").await.map(drop), "product with a slash");
        not_found(mall.get_store("no-such-store").await.map(drop), "store");
        not_found(mall.store_promotions("no-such-store").await.map(drop), "promotions");
        not_found(mall.store_reviews("no-such-store", PageRequest::default()).await.map(drop), "reviews");
        not_found(mall.get_area("no-such-area").await.map(drop), "area");
        not_found(mall.route("no-such-store", None).await.map(drop), "route");
        not_found(mall.get_order(&shopper(1), "no-such-order").await.map(drop), "order");
        not_found(mall.remove_cart_item(&shopper(1), "no-such-item", None).await.map(drop), "cart item");
    }

    pub async fn stores_are_found_by_keyword_and_floor(mall: Mall) {
        let everything = StoreQuery { page: PageRequest::first(50), ..Default::default() };
        let all = mall.search_stores(&everything).await.unwrap();
        let store = all.items.first().expect("the demo mall has stores").clone();

        let on_floor = StoreQuery { floor: Some(store.floor), ..everything.clone() };
        let floor = mall.search_stores(&on_floor).await.unwrap();
        assert!(floor.items.iter().all(|s| s.floor == store.floor), "{:?}", floor.items);
        assert!(floor.items.iter().any(|s| s.id == store.id));
        let expected = all.items.iter().filter(|s| s.floor == store.floor).count();
        assert_eq!(floor.total as usize, expected);
        assert!(floor.total < all.total, "the demo mall has more than one floor");

        for keyword in [&store.name, &store.name_en] {
            let query = StoreQuery { keyword: Some(keyword.clone()), ..everything.clone() };
            let found = mall.search_stores(&query).await.unwrap();
            assert_eq!(found.items.first().map(|s| &s.id), Some(&store.id), "searching {keyword:?}");
        }
    }

    pub async fn a_store_has_details_promotions_and_reviews(mall: Mall) {
        let everything = StoreQuery { page: PageRequest::first(50), ..Default::default() };
        let stores = mall.search_stores(&everything).await.unwrap().items;
        let (mut promoted, mut reviewed) = (false, false);
        for store in &stores {
            assert_eq!(&mall.get_store(&store.id).await.unwrap(), store);
            let promotions = mall.store_promotions(&store.id).await.unwrap();
            assert_eq!(promotions.total as usize, promotions.items.len());
            promoted |= promotions.items.iter().any(|p| !p.title.is_empty() && !p.valid_until.is_empty());
            let reviews = mall.store_reviews(&store.id, PageRequest::first(1)).await.unwrap();
            assert!(reviews.items.len() <= 1);
            assert!(reviews.items.iter().all(|r| (0.0..=5.0).contains(&r.rating) && !r.text.is_empty()));
            reviewed |= reviews.total > 1 && reviews.items.len() == 1;
        }
        assert!(promoted, "some store has a promotion");
        assert!(reviewed, "some store has more than one review, paged one at a time");
    }

    pub async fn the_mall_has_information_sections_in_both_languages(mall: Mall) {
        let info = mall.mall_info().await.unwrap();
        assert_eq!(info.total as usize, info.items.len());
        let ids: Vec<&str> = info.items.iter().map(|s| s.id.as_str()).collect();
        for id in ["hours", "parking", "wifi", "returns", InfoSection::SERVICE_DESK] {
            assert!(ids.contains(&id), "section {id} in {ids:?}");
        }
        for section in &info.items {
            let sides = [&section.title, &section.body, &section.title_en, &section.body_en];
            assert!(sides.iter().all(|text| !text.trim().is_empty()), "{section:?}");
        }
        let parking = info.items.iter().find(|s| s.id == "parking").unwrap();
        assert!(parking.body.contains("元") && parking.body_en.contains("yuan"), "{parking:?}");
    }

    pub async fn events_in_a_window_come_soonest_first_with_their_place(mall: Mall) {
        let weekend = EventQuery {
            from: Some("2026-11-28T00:00:00+08:00".into()),
            to: Some("2026-11-30T00:00:00+08:00".into()),
        };
        let page = mall.mall_events(&weekend).await.unwrap();
        assert_eq!(page.total as usize, page.items.len());
        assert!(page.items.len() >= 4, "a weekend's programme: {:?}", page.items);
        assert!(page.items.windows(2).all(|w| w[0].starts_at <= w[1].starts_at), "soonest first");
        for event in &page.items {
            assert!(event.starts_at.as_str() < "2026-11-30T00:00:00+08:00", "{event:?}");
            assert!(event.ends_at.as_str() > "2026-11-28T00:00:00+08:00", "{event:?}");
            assert!(!event.title.is_empty() && !event.title_en.is_empty() && !event.place.is_empty());
            assert!(event.store_id.is_some() || event.area_id.is_some(), "a place to go: {event:?}");
        }
        let lego = page.items.iter().find(|e| e.store_id.as_deref() == Some("s-lego")).unwrap();
        assert_eq!(
            (lego.starts_at.as_str(), lego.ends_at.as_str()),
            ("2026-11-29T10:30:00+08:00", "2026-11-29T12:00:00+08:00")
        );
        mall.get_store("s-lego").await.unwrap();
        for area in page.items.iter().filter_map(|e| e.area_id.as_deref()) {
            mall.get_area(area).await.unwrap();
        }
        let upcoming = mall.mall_events(&EventQuery::default()).await.unwrap();
        assert!(!upcoming.items.is_empty(), "the next two weeks have events");
    }

    pub async fn an_unreadable_event_window_is_refused_by_name(mall: Mall) {
        let query = EventQuery { from: Some("next saturday".into()), to: None };
        let error = mall.mall_events(&query).await.unwrap_err();
        assert!(matches!(error, ServiceError::InvalidArgument { .. }), "{error:?}");
        assert_eq!(field_of(&error), Some("from"));
    }

    pub async fn mall_promotions_list_the_malls_offers_then_every_stores(mall: Mall) {
        let all = mall.mall_promotions().await.unwrap();
        assert_eq!(all.total as usize, all.items.len());
        let first_store = all.items.iter().position(|p| p.store_id.is_some()).unwrap();
        assert!(first_store > 0, "the mall's own offers first");
        assert!(all.items[first_store..].iter().all(|p| p.store_id.is_some() && p.store_name.is_some()));
        let nike = mall.store_promotions("s-nike").await.unwrap().items;
        let listed: Vec<&str> = all
            .items
            .iter()
            .filter(|p| p.store_id.as_deref() == Some("s-nike"))
            .map(|p| p.title.as_str())
            .collect();
        assert_eq!(listed, nike.iter().map(|p| p.title.as_str()).collect::<Vec<_>>());
    }

    fn han(text: &str) -> bool {
        text.chars().any(|c| ('\u{3400}'..='\u{9fff}').contains(&c))
    }

    /// Products, the stores' offers and areas carry English texts next to the Chinese ones,
    /// and opening hours are written in no language (`10:00-02:00`: the next day).
    pub async fn english_texts_come_with_products_offers_and_areas(mall: Mall) {
        let milk = mall.get_product("p-0001").await.unwrap();
        assert_eq!(
            milk.description, "盒马 有机鲜牛奶 950ml：当日到店，新鲜直达，产地直采。",
            "the brand once"
        );
        let english = milk.description_en.as_deref().unwrap_or_default();
        assert!(!english.is_empty() && !han(english), "{english:?}");
        for product in all_products(&mall).await.iter().take(60) {
            let product = mall.get_product(&product.id).await.unwrap();
            let english = product.description_en.unwrap_or_default();
            assert!(!english.is_empty() && !han(&english), "{}: {english:?}", product.brief.id);
        }

        let uniqlo = mall.store_promotions("s-uniqlo").await.unwrap().items.remove(0);
        assert_eq!(
            (uniqlo.title.as_str(), uniqlo.title_en.as_str()),
            ("冬装新品 9 折", "10% off new winter arrivals")
        );
        assert!(
            han(&uniqlo.description) && !uniqlo.description_en.is_empty() && !han(&uniqlo.description_en)
        );
        let all = mall.mall_promotions().await.unwrap().items;
        assert!(
            all.iter().all(|p| !p.title_en.is_empty() && !han(&p.title_en) && !han(&p.description_en)),
            "every offer in English too: {all:?}"
        );

        let areas = mall.list_areas().await.unwrap().items;
        assert!(areas.iter().all(|a| !a.description_en.is_empty() && !han(&a.description_en)), "{areas:?}");
        assert!(areas.iter().all(|a| !a.description.contains(&a.description_en)), "each language apart");

        assert_eq!(mall.get_store("s-haidilao").await.unwrap().open_hours, "10:00-02:00");
    }

    pub async fn areas_list_their_stores(mall: Mall) {
        let areas = mall.list_areas().await.unwrap();
        assert!(!areas.items.is_empty());
        assert_eq!(areas.total as usize, areas.items.len());
        for area in &areas.items {
            assert_eq!(&mall.get_area(&area.id).await.unwrap(), area);
            for store_id in &area.store_ids {
                let store = mall.get_store(store_id).await.unwrap();
                assert_eq!(store.area_id, area.id, "store {store_id} of area {}", area.id);
            }
        }
    }

    pub async fn routes_start_at_the_main_entrance(mall: Mall) {
        let everything = StoreQuery { page: PageRequest::first(50), ..Default::default() };
        let store = mall.search_stores(&everything).await.unwrap().items.remove(0);
        let route = mall.route(&store.id, None).await.unwrap();
        assert_eq!((route.from.as_str(), route.to_store_id.as_str()), ("main_entrance", store.id.as_str()));
        assert_eq!(route.floor, store.floor);
        assert!(!route.steps.is_empty() && route.distance_m > 0 && route.eta_minutes > 0, "{route:?}");
        let explicit = mall.route(&store.id, Some("main_entrance".into())).await.unwrap();
        assert_eq!(explicit, route);
    }

    pub async fn items_are_added_removed_and_cleared(mall: Mall) {
        let who = shopper(10);
        let empty = mall.get_cart(&who).await.unwrap();
        assert!(empty.items.is_empty());
        assert_eq!(empty.total_cents, 0);

        let two = stocked(&mall, 2).await;
        let (shoe, shoe_sku) = &two[0];
        let cart = add(&mall, &who, shoe, shoe_sku, 2).await;
        let line = &cart.items[0];
        assert_eq!(
            (line.product_id.as_str(), line.sku_id.as_deref()),
            (shoe.brief.id.as_str(), Some(&*shoe_sku.sku_id))
        );
        assert_eq!(line.sku_label.as_deref(), Some(shoe_sku.label.as_str()));
        assert_eq!((line.quantity, line.unit_price_cents), (2, shoe_sku.price_cents));
        assert_eq!(line.line_total_cents, 2 * shoe_sku.price_cents);
        assert_eq!(cart.total_cents, line.line_total_cents);

        let (other, other_sku) = &two[1];
        let cart = add(&mall, &who, other, other_sku, 1).await;
        assert_eq!(cart.items.len(), 2);
        assert_eq!(cart.total_cents, 2 * shoe_sku.price_cents + other_sku.price_cents);
        assert_eq!(mall.get_cart(&who).await.unwrap(), cart);

        let shoe_line = cart.items.iter().find(|i| i.product_id == shoe.brief.id).unwrap().item_id.clone();
        let cart = mall.remove_cart_item(&who, &shoe_line, None).await.unwrap();
        assert_eq!(cart.items.len(), 1);
        assert_eq!(cart.items[0].product_id, other.brief.id);
        assert_eq!(cart.total_cents, other_sku.price_cents);

        let cart = mall.clear_cart(&who, None).await.unwrap();
        assert!(cart.items.is_empty());
        assert_eq!(cart.total_cents, 0);
        assert!(mall.get_cart(&who).await.unwrap().items.is_empty());
    }

    pub async fn quantities_outside_1_to_99_are_refused(mall: Mall) {
        let who = shopper(11);
        let (product, sku) = one_stocked(&mall).await;
        for quantity in [0, 100] {
            let item = AddCartItem {
                product_id: product.brief.id.clone(),
                sku_id: Some(sku.sku_id.clone()),
                quantity,
            };
            let error = mall.add_cart_item(&who, &item, None).await.unwrap_err();
            assert_eq!(field_of(&error), Some("quantity"), "quantity {quantity}: {error:?}");
        }
        assert!(mall.get_cart(&who).await.unwrap().items.is_empty());
    }

    pub async fn a_product_with_skus_needs_a_sku_id(mall: Mall) {
        let who = shopper(12);
        let (product, _) = one_stocked(&mall).await;
        let item = AddCartItem { product_id: product.brief.id.clone(), sku_id: None, quantity: 1 };
        let error = mall.add_cart_item(&who, &item, None).await.unwrap_err();
        assert_eq!(field_of(&error), Some("sku_id"), "{error:?}");
        assert!(mall.get_cart(&who).await.unwrap().items.is_empty());
    }

    pub async fn more_than_the_stock_is_out_of_stock(mall: Mall) {
        let who = shopper(13);
        let (product, sku) = one_stocked(&mall).await;
        let item = AddCartItem {
            product_id: product.brief.id.clone(),
            sku_id: Some(sku.sku_id.clone()),
            quantity: sku.stock + 1,
        };
        let error = mall.add_cart_item(&who, &item, None).await.unwrap_err();
        assert!(matches!(error, ServiceError::OutOfStock { .. }), "{error:?}");
        assert!(mall.get_cart(&who).await.unwrap().items.is_empty());
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock);
    }

    pub async fn an_order_empties_the_cart_and_reserves_stock(mall: Mall) {
        let who = shopper(14);
        let (product, sku) = one_stocked(&mall).await;
        let cart = add(&mall, &who, &product, &sku, 2).await;
        let order = order_cart(&mall, &who, None).await;
        assert_eq!(order.status, OrderStatus::PendingPayment);
        assert_eq!(order.total_cents, cart.total_cents);
        assert_eq!(order.pickup_store_id, product.brief.store_id);
        let lines: Vec<_> =
            order.items.iter().map(|i| (i.product_id.as_str(), i.sku_id.as_deref(), i.quantity)).collect();
        assert_eq!(lines, [(product.brief.id.as_str(), Some(sku.sku_id.as_str()), 2)]);
        assert!(!order.created_at.is_empty());
        assert!(mall.get_cart(&who).await.unwrap().items.is_empty(), "the cart is emptied");
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock - 2, "the stock is reserved");
        assert_eq!(mall.get_order(&who, &order.order_id).await.unwrap(), order);
    }

    pub async fn a_changed_total_is_price_changed_and_orders_nothing(mall: Mall) {
        let who = shopper(15);
        let (product, sku) = one_stocked(&mall).await;
        let cart = add(&mall, &who, &product, &sku, 1).await;
        let stale =
            CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents - 100) };
        match mall.create_order(&who, &stale, None).await {
            Err(ServiceError::PriceChanged { total_cents, .. }) => assert_eq!(total_cents, cart.total_cents),
            other => panic!("expected PriceChanged, got {other:?}"),
        }
        assert_eq!(mall.list_orders(&who, PageRequest::default()).await.unwrap().total, 0);
        assert_eq!(mall.get_cart(&who).await.unwrap(), cart, "the cart is unchanged");
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock);
    }

    pub async fn an_empty_cart_cannot_be_ordered(mall: Mall) {
        let who = shopper(16);
        let cart = mall.get_cart(&who).await.unwrap();
        let order = CreateOrder { cart_id: cart.cart_id, expected_total_cents: None };
        assert_eq!(mall.create_order(&who, &order, None).await.unwrap_err(), ServiceError::CartEmpty);
        assert_eq!(mall.list_orders(&who, PageRequest::default()).await.unwrap().total, 0);
    }

    pub async fn orders_are_listed_newest_first(mall: Mall) {
        let who = shopper(17);
        let two = stocked(&mall, 2).await;
        add(&mall, &who, &two[0].0, &two[0].1, 1).await;
        let older = order_cart(&mall, &who, None).await;
        add(&mall, &who, &two[1].0, &two[1].1, 1).await;
        let newer = order_cart(&mall, &who, None).await;
        assert_ne!(older.order_id, newer.order_id);

        let listed = mall.list_orders(&who, PageRequest::default()).await.unwrap();
        let ids: Vec<_> = listed.items.iter().map(|o| o.order_id.as_str()).collect();
        assert_eq!(ids, [newer.order_id.as_str(), older.order_id.as_str()]);
        assert_eq!(listed.total, 2);
        let second = mall.list_orders(&who, PageRequest { limit: Some(1), offset: Some(1) }).await.unwrap();
        assert_eq!(second.items, std::slice::from_ref(&older));
        assert_eq!(mall.get_order(&who, &older.order_id).await.unwrap(), older);
    }

    pub async fn cancelling_returns_the_stock_once(mall: Mall) {
        let who = shopper(18);
        let (product, sku) = one_stocked(&mall).await;
        add(&mall, &who, &product, &sku, 2).await;
        let order = order_cart(&mall, &who, None).await;
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock - 2);

        let cancelled = mall.cancel_order(&who, &order.order_id, None).await.unwrap();
        assert_eq!(
            (cancelled.order_id.as_str(), cancelled.status),
            (order.order_id.as_str(), OrderStatus::Cancelled)
        );
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock, "the stock is back");
        assert_eq!(mall.get_order(&who, &order.order_id).await.unwrap().status, OrderStatus::Cancelled);

        let again = mall.cancel_order(&who, &order.order_id, None).await.unwrap_err();
        assert!(matches!(again, ServiceError::NotCancellable { .. }), "{again:?}");
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock, "returned once only");
    }

    pub async fn another_shoppers_cart_and_orders_are_not_found(mall: Mall) {
        let (alice, bob) = (shopper(19), shopper(20));
        let two = stocked(&mall, 2).await;
        add(&mall, &alice, &two[0].0, &two[0].1, 1).await;
        let order = order_cart(&mall, &alice, None).await;
        let cart = add(&mall, &alice, &two[1].0, &two[1].1, 1).await;
        let item_id = &cart.items[0].item_id;

        let is_not_found = |e: ServiceError| matches!(e, ServiceError::NotFound { .. });
        assert!(is_not_found(mall.get_order(&bob, &order.order_id).await.unwrap_err()));
        assert!(is_not_found(mall.cancel_order(&bob, &order.order_id, None).await.unwrap_err()));
        assert!(is_not_found(mall.remove_cart_item(&bob, item_id, None).await.unwrap_err()));
        assert_eq!(mall.list_orders(&bob, PageRequest::default()).await.unwrap().total, 0);
        assert!(mall.get_cart(&bob).await.unwrap().items.is_empty());

        assert_eq!(
            mall.get_order(&alice, &order.order_id).await.unwrap().status,
            OrderStatus::PendingPayment
        );
        assert_eq!(mall.get_cart(&alice).await.unwrap(), cart);
    }

    pub async fn the_same_key_sent_twice_at_once_places_one_order(mall: Mall) {
        let who = shopper(21);
        let (product, sku) = one_stocked(&mall).await;
        let cart = add(&mall, &who, &product, &sku, 1).await;
        let order =
            CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
        let (first, second) = tokio::join!(
            mall.create_order(&who, &order, key("confirm-abc")),
            mall.create_order(&who, &order, key("confirm-abc")),
        );
        let (first, second) = (first.unwrap(), second.unwrap());
        assert_eq!(first.order_id, second.order_id);
        let listed = mall.list_orders(&who, PageRequest::default()).await.unwrap();
        assert_eq!(listed.total, 1);
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock - 1, "the stock is reserved once");

        let replay = mall.create_order(&who, &order, key("confirm-abc")).await.unwrap();
        assert_eq!(replay.order_id, first.order_id, "a later replay answers the first order again");
    }

    pub async fn the_same_key_with_another_body_is_a_conflict(mall: Mall) {
        let who = shopper(22);
        let (product, sku) = one_stocked(&mall).await;
        let cart = add(&mall, &who, &product, &sku, 1).await;
        let order =
            CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
        mall.create_order(&who, &order, key("confirm-xyz")).await.unwrap();
        let other = CreateOrder { expected_total_cents: Some(cart.total_cents + 1), ..order };
        let error = mall.create_order(&who, &other, key("confirm-xyz")).await.unwrap_err();
        assert!(matches!(error, ServiceError::Conflict { .. }), "{error:?}");
        assert_eq!(mall.list_orders(&who, PageRequest::default()).await.unwrap().total, 1);
    }

    pub async fn the_same_key_adds_an_item_once(mall: Mall) {
        let who = shopper(23);
        let (product, sku) = one_stocked(&mall).await;
        let item = AddCartItem {
            product_id: product.brief.id.clone(),
            sku_id: Some(sku.sku_id.clone()),
            quantity: 1,
        };
        let first = mall.add_cart_item(&who, &item, key("add-1")).await.unwrap();
        let again = mall.add_cart_item(&who, &item, key("add-1")).await.unwrap();
        assert_eq!(again, first);
        let cart = mall.get_cart(&who).await.unwrap();
        assert_eq!(cart.items.iter().map(|i| i.quantity).sum::<u32>(), 1);
    }

    // ------------------------------------------------------------ lifecycle

    const MINUTE: Duration = Duration::from_secs(60);

    fn paying(order: &Order, charge_id: &str) -> RecordPayment {
        RecordPayment {
            provider: "telegram".into(),
            amount_cents: order.total_cents,
            currency: order.currency.clone(),
            charge_id: charge_id.into(),
        }
    }

    /// `who` orders one of a stocked SKU.
    async fn one_order(mall: &Mall, who: &Shopper) -> (Order, Product, Sku) {
        let (product, sku) = one_stocked(mall).await;
        add(mall, who, &product, &sku, 1).await;
        (order_cart(mall, who, None).await, product, sku)
    }

    pub async fn a_payment_makes_the_order_paid_once_per_charge(mall: Mall, _: EmbeddedMall) {
        let who = shopper(50);
        let (order, product, sku) = one_order(&mall, &who).await;
        assert_eq!(order.currency, "CNY");
        assert!(order.expires_at.is_some(), "an unpaid order says when it expires");
        let paid =
            mall.pay_order(&who, &order.order_id, &paying(&order, "ch-50"), key("ch-50")).await.unwrap();
        assert_eq!((paid.status, paid.expires_at.as_deref()), (OrderStatus::Paid, None));
        let payment = paid.payment.clone().unwrap();
        assert_eq!((payment.amount_cents, payment.charge_id.as_str()), (order.total_cents, "ch-50"));

        let twice = mall.pay_order(&who, &order.order_id, &paying(&order, "ch-50"), None).await.unwrap();
        assert_eq!(twice, paid, "the same charge is one payment");
        assert_eq!(mall.get_order(&who, &order.order_id).await.unwrap(), paid);
        let events = mall.events(None, 50).await.unwrap().items;
        let paid_events = events.iter().filter(|e| e.order_id == order.order_id).count();
        assert_eq!(paid_events, 1, "{events:?}");
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock - 1);
    }

    pub async fn a_payment_of_another_amount_or_currency_is_a_mismatch(mall: Mall, _: EmbeddedMall) {
        let who = shopper(51);
        let (order, ..) = one_order(&mall, &who).await;
        for wrong in [
            RecordPayment { amount_cents: order.total_cents + 100, ..paying(&order, "ch-51") },
            RecordPayment { currency: "USD".into(), ..paying(&order, "ch-51") },
        ] {
            let error = mall.pay_order(&who, &order.order_id, &wrong, None).await.unwrap_err();
            assert!(matches!(error, ServiceError::PaymentMismatch { .. }), "{error:?}");
        }
        let now = mall.get_order(&who, &order.order_id).await.unwrap();
        assert_eq!((now.status, now.payment), (OrderStatus::PendingPayment, None));
    }

    pub async fn a_cancelled_or_late_order_is_not_payable(mall: Mall, embedded: EmbeddedMall) {
        let who = shopper(52);
        let (cancelled, ..) = one_order(&mall, &who).await;
        mall.cancel_order(&who, &cancelled.order_id, None).await.unwrap();
        let error =
            mall.pay_order(&who, &cancelled.order_id, &paying(&cancelled, "ch-52"), None).await.unwrap_err();
        assert!(matches!(error, ServiceError::NotPayable { .. }), "{error:?}");

        let (late, ..) = one_order(&mall, &who).await;
        embedded.advance_clock(46 * MINUTE);
        let error = mall.pay_order(&who, &late.order_id, &paying(&late, "ch-53"), None).await.unwrap_err();
        assert!(matches!(error, ServiceError::NotPayable { .. }), "expired 16 minutes ago: {error:?}");
        assert_eq!(mall.get_order(&who, &late.order_id).await.unwrap().status, OrderStatus::Expired);
    }

    pub async fn cancelling_a_paid_order_answers_a_pending_refund(mall: Mall, _: EmbeddedMall) {
        let who = shopper(53);
        let (order, product, sku) = one_order(&mall, &who).await;
        mall.pay_order(&who, &order.order_id, &paying(&order, "ch-54"), None).await.unwrap();
        let cancelled = mall.cancel_order(&who, &order.order_id, key("cancel-54")).await.unwrap();
        assert_eq!(cancelled.status, OrderStatus::Cancelled);
        assert_eq!(
            cancelled.refund,
            Some(Refund { status: RefundStatus::Pending, amount_cents: order.total_cents })
        );
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock, "the stock is back");
        let replay = mall.cancel_order(&who, &order.order_id, key("cancel-54")).await.unwrap();
        assert_eq!(replay, cancelled);
    }

    pub async fn an_expired_order_returns_its_stock(mall: Mall, embedded: EmbeddedMall) {
        let who = shopper(54);
        let (order, product, sku) = one_order(&mall, &who).await;
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock - 1);
        embedded.advance_clock(29 * MINUTE);
        assert_eq!(mall.get_order(&who, &order.order_id).await.unwrap().status, OrderStatus::PendingPayment);
        embedded.advance_clock(2 * MINUTE);
        assert_eq!(stock_of(&mall, &product, &sku).await, sku.stock, "the stock is back");
        let expired = mall.get_order(&who, &order.order_id).await.unwrap();
        assert_eq!((expired.status, expired.expires_at), (OrderStatus::Expired, None));
        let events = mall.events(None, 50).await.unwrap().items;
        let statuses: Vec<_> =
            events.iter().filter(|e| e.order_id == order.order_id).filter_map(|e| e.status).collect();
        assert_eq!(statuses, [OrderStatus::Expired]);
    }

    pub async fn the_fourth_open_order_is_refused(mall: Mall, embedded: EmbeddedMall) {
        embedded.set_policy(OrderPolicy { max_open: 3, ..OrderPolicy::default() });
        let who = shopper(55);
        let (product, sku) = one_stocked(&mall).await;
        for _ in 0..3 {
            add(&mall, &who, &product, &sku, 1).await;
            order_cart(&mall, &who, None).await;
        }
        let cart = add(&mall, &who, &product, &sku, 1).await;
        let fourth =
            CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
        let error = mall.create_order(&who, &fourth, None).await.unwrap_err();
        assert!(matches!(error, ServiceError::TooManyOpenOrders { .. }), "{error:?}");
        assert_eq!(mall.list_orders(&who, PageRequest::default()).await.unwrap().total, 3);
        assert_eq!(mall.get_cart(&who).await.unwrap(), cart, "the cart is kept");
    }

    pub async fn events_come_oldest_first_and_resume_after_the_cursor(mall: Mall, _: EmbeddedMall) {
        let who = shopper(56);
        let start = mall.events(None, 50).await.unwrap();
        assert!(start.items.is_empty());
        let (order, ..) = one_order(&mall, &who).await;
        mall.pay_order(&who, &order.order_id, &paying(&order, "ch-56"), None).await.unwrap();
        mall.mark_ready(&order.order_id).await.unwrap();
        mall.mark_picked_up(&order.order_id).await.unwrap();

        let first = mall.events(None, 2).await.unwrap();
        let statuses: Vec<_> = first.items.iter().filter_map(|e| e.status).collect();
        assert_eq!(statuses, [OrderStatus::Paid, OrderStatus::Ready]);
        assert!(first.items.iter().all(|e| e.order_id == order.order_id && e.user == "telegram:56"));
        assert_eq!(first.next.as_ref(), Some(&first.items[1].event_id));
        let rest = mall.events(first.next.clone(), 2).await.unwrap();
        let statuses: Vec<_> = rest.items.iter().filter_map(|e| e.status).collect();
        assert_eq!(statuses, [OrderStatus::Completed]);
        let end = mall.events(rest.next.clone(), 2).await.unwrap();
        assert_eq!((end.items.len(), end.next), (0, rest.next), "nothing new: the same cursor");
    }

    pub async fn staff_mark_a_paid_order_ready_then_picked_up(mall: Mall, _: EmbeddedMall) {
        let who = shopper(57);
        let (order, ..) = one_order(&mall, &who).await;
        let error = mall.mark_ready(&order.order_id).await.unwrap_err();
        assert!(matches!(error, ServiceError::Conflict { .. }), "unpaid: {error:?}");
        mall.pay_order(&who, &order.order_id, &paying(&order, "ch-57"), None).await.unwrap();
        assert!(matches!(mall.mark_picked_up(&order.order_id).await, Err(ServiceError::Conflict { .. })));
        assert_eq!(mall.mark_ready(&order.order_id).await.unwrap().status, OrderStatus::Ready);
        assert_eq!(mall.mark_picked_up(&order.order_id).await.unwrap().status, OrderStatus::Completed);
        assert_eq!(mall.get_order(&who, &order.order_id).await.unwrap().status, OrderStatus::Completed);
        assert!(matches!(mall.mark_ready("o-none").await, Err(ServiceError::NotFound { .. })));
    }

    // ------------------------------------------------------------------ parking, points, coupons

    /// An instant `seconds` ago on the mall's clock, in RFC 3339.
    fn ago(seconds: i64) -> String {
        services::rfc3339(services::clock::now_unix() - seconds)
    }

    /// `who`'s cart holds one item of at least `min_cents` (of `store` when given); its price.
    async fn cart_of_at_least(mall: &Mall, who: &Shopper, min_cents: i64, store: Option<&str>) -> i64 {
        for brief in all_products(mall).await {
            if store.is_some_and(|s| s != brief.store_id) || !brief.in_stock {
                continue;
            }
            let product = mall.get_product(&brief.id).await.unwrap();
            let choice = if product.skus.is_empty() {
                (brief.price_cents >= min_cents).then_some((None, brief.price_cents))
            } else {
                product
                    .skus
                    .iter()
                    .find(|s| s.stock >= 1 && s.price_cents >= min_cents)
                    .map(|s| (Some(s.sku_id.clone()), s.price_cents))
            };
            if let Some((sku_id, price)) = choice {
                let item = AddCartItem { product_id: brief.id.clone(), sku_id, quantity: 1 };
                mall.add_cart_item(who, &item, None).await.unwrap();
                return price;
            }
        }
        panic!("the demo mall needs a product of at least {min_cents} fen in stock");
    }

    /// `who` orders and pays one item of at least `min_cents`; the paid order.
    async fn paid_order_of_at_least(mall: &Mall, who: &Shopper, min_cents: i64, charge: &str) -> Order {
        cart_of_at_least(mall, who, min_cents, None).await;
        let order = order_cart(mall, who, None).await;
        mall.pay_order(who, &order.order_id, &paying(&order, charge), None).await.unwrap()
    }

    pub async fn the_parking_fee_counts_free_time_earned_by_spending_today(mall: Mall, _: EmbeddedMall) {
        let who = shopper(70);
        let entered = ago(3 * 3600 + 10 * 60);
        mall.car_entered("沪A12345", Some(entered.clone())).await.unwrap();

        let fee = mall.parking_fee("沪A12345", None).await.unwrap();
        let instant = |at: &str| services::calendar::LocalTime::parse(at).map(|t| t.unix);
        assert_eq!(instant(&fee.entered_at), instant(&entered), "{} is {entered}", fee.entered_at);
        assert!(fee.entered_at.ends_with("+08:00"), "told in the mall's offset: {}", fee.entered_at);
        assert!((190..=191).contains(&fee.minutes_parked), "{fee:?}");
        // 30 minutes free, then 2 h 40 min: three started hours at ¥10.
        assert_eq!((fee.gross_cents, fee.paid_cents, fee.due_cents, fee.grace_minutes), (3000, 0, 3000, 15));
        assert_eq!(
            fee.free.iter().map(|f| (f.reason.as_str(), f.minutes)).collect::<Vec<_>>(),
            [("FIRST_MINUTES", 30)]
        );
        assert_eq!(
            mall.parking_fee("沪A12345", Some(&who)).await.unwrap().due_cents,
            3000,
            "nothing spent yet"
        );

        let order = paid_order_of_at_least(&mall, &who, 20_000, "ch-70").await;
        let fee = mall.parking_fee("沪A12345", Some(&who)).await.unwrap();
        let spending = fee.free.iter().find(|f| f.reason == "SPENDING").expect("spending earns free time");
        assert_eq!(spending.minutes, if order.total_cents >= 50_000 { 240 } else { 120 });
        assert!(spending.detail.contains("spent today"), "{spending:?}");
        assert_eq!(fee.gross_cents, 3000);
        assert_eq!(fee.due_cents, if order.total_cents >= 50_000 { 0 } else { 1000 }, "{fee:?}");
        assert_eq!(
            mall.parking_fee("沪A12345", Some(&shopper(71))).await.unwrap().due_cents,
            3000,
            "another shopper's spending"
        );
    }

    pub async fn plates_in_any_spelling_are_one_and_foreign_plates_are_taken_as_configured(
        mall: Mall,
        _: EmbeddedMall,
    ) {
        let stay = mall.car_entered("沪a 12345", Some(ago(3600))).await.unwrap();
        assert_eq!(stay.plate, "沪A12345");
        for spelling in ["沪A·12345", "沪a 12345", "沪A12345", "沪A-12345"] {
            let fee = mall.parking_fee(spelling, None).await.unwrap();
            assert_eq!((fee.plate.as_str(), fee.entered_at.as_str()), ("沪A12345", stay.entered_at.as_str()));
        }
        let green = mall.car_entered("沪AD12345", None).await.unwrap();
        assert_eq!(green.plate, "沪AD12345");
        let hong_kong = mall.car_entered("ab 1234", None).await.unwrap();
        assert_eq!(hong_kong.plate, "AB1234");
        assert_eq!(
            mall.parking_fee("AB-1234", None).await.unwrap().due_cents,
            0,
            "inside for under 30 minutes"
        );
        let error = mall.car_entered("粤Z·1234澳", None).await.unwrap_err();
        assert_eq!(field_of(&error), Some("plate"), "{error:?}");
        assert!(error.to_string().contains("mainland, new_energy, hong_kong"), "{error}");

        let who = shopper(72);
        for spelling in ["沪A·12345", "沪a 12345"] {
            mall.add_plate(&who, spelling, None).await.unwrap();
        }
        let plates = mall.add_plate(&who, "沪AD12345", None).await.unwrap();
        let kinds: Vec<_> = plates.items.iter().map(|p| (p.plate.as_str(), p.kind.as_str())).collect();
        assert_eq!(kinds, [("沪A12345", "mainland"), ("沪AD12345", "new_energy")]);
        mall.add_plate(&who, "AB1234", None).await.unwrap();
        let error = mall.add_plate(&who, "CD5678", None).await.unwrap_err();
        assert!(matches!(error, ServiceError::TooManyPlates { .. }), "{error:?}");
        let left = mall.remove_plate(&who, "沪a·12345", None).await.unwrap();
        assert_eq!(left.total, 2);
        assert_eq!(mall.my_plates(&who).await.unwrap(), left);
        assert!(mall.my_plates(&shopper(73)).await.unwrap().items.is_empty());
    }

    pub async fn a_plate_with_no_car_inside_is_not_found(mall: Mall, _: EmbeddedMall) {
        let error = mall.parking_fee("沪B 99999", None).await.unwrap_err();
        let ServiceError::NotFound { message } = &error else { panic!("expected NotFound: {error:?}") };
        assert_eq!(message, "no car with plate 沪B99999 is in the car park");
        mall.car_entered("沪B99999", None).await.unwrap();
        mall.car_left("沪B99999").await.unwrap();
        assert!(matches!(mall.parking_fee("沪B99999", None).await, Err(ServiceError::NotFound { .. })));
        assert!(matches!(mall.car_left("沪B99999").await, Err(ServiceError::NotFound { .. })));
    }

    pub async fn a_parking_fee_is_paid_once_and_a_changed_fee_is_refused(mall: Mall, embedded: EmbeddedMall) {
        let who = shopper(74);
        mall.car_entered("京N·88888", Some(ago(2 * 3600))).await.unwrap();
        let due = mall.parking_fee("京N88888", Some(&who)).await.unwrap().due_cents;
        assert_eq!(due, 2000);

        let pay = |amount_cents, charge: &str| PayParking {
            plate: "京N88888".into(),
            amount_cents,
            charge_id: charge.into(),
        };
        let error = mall.pay_parking(&who, &pay(1500, "ch-p1"), None).await.unwrap_err();
        assert_eq!(
            error,
            ServiceError::FeeChanged {
                due_cents: 2000,
                message: "the fee due for 京N88888 is ¥20 now, not ¥15".into()
            }
        );
        let paid = mall.pay_parking(&who, &pay(2000, "ch-p1"), key("pp-1")).await.unwrap();
        assert_eq!((paid.plate.as_str(), paid.amount_cents), ("京N88888", 2000));
        let again = mall.pay_parking(&who, &pay(2000, "ch-p1"), None).await.unwrap();
        assert_eq!(again, paid, "the same charge is one payment");
        let error = mall.pay_parking(&who, &pay(2000, "ch-p2"), None).await.unwrap_err();
        assert!(
            matches!(&error, ServiceError::AlreadyPaid { message } if message.contains(&paid.leave_by)),
            "{error:?}"
        );

        let fee = mall.parking_fee("京N88888", Some(&who)).await.unwrap();
        assert_eq!(
            (fee.paid_cents, fee.due_cents, fee.leave_by.as_deref()),
            (2000, 0, Some(paid.leave_by.as_str()))
        );
        // Still there 20 minutes after paying: the time since is charged.
        embedded.advance_clock(20 * MINUTE);
        let late = mall.parking_fee("京N88888", Some(&who)).await.unwrap();
        assert_eq!((late.due_cents, late.leave_by), (1000, None));
    }

    pub async fn points_are_earned_on_payment_and_taken_back_on_cancel(mall: Mall, _: EmbeddedMall) {
        let who = shopper(75);
        let none = mall.points(&who).await.unwrap();
        assert_eq!((none.balance, none.changes.len()), (0, 0), "{none:?}");
        assert_eq!(none.rule.map(|r| r.points_per_parking_hour), Some(100), "the mall's rule is told");
        let (order, ..) = one_order(&mall, &who).await;
        let earned = order.total_cents / 100;
        assert!(earned > 0, "{order:?}");
        assert_eq!(mall.points(&who).await.unwrap().balance, 0, "an unpaid order earns nothing");
        mall.pay_order(&who, &order.order_id, &paying(&order, "ch-75"), None).await.unwrap();
        mall.pay_order(&who, &order.order_id, &paying(&order, "ch-75"), None).await.unwrap();
        let points = mall.points(&who).await.unwrap();
        assert_eq!(points.balance, earned, "one payment, once: {points:?}");
        assert_eq!(
            (
                points.changes[0].reason.as_str(),
                points.changes[0].order_id.as_deref(),
                points.changes[0].amount
            ),
            ("ORDER_PAID", Some(order.order_id.as_str()), earned)
        );

        mall.cancel_order(&who, &order.order_id, None).await.unwrap();
        let points = mall.points(&who).await.unwrap();
        assert_eq!(points.balance, 0);
        let changes: Vec<_> = points.changes.iter().map(|c| (c.reason.as_str(), c.amount)).collect();
        assert_eq!(changes, [("ORDER_REFUNDED", -earned), ("ORDER_PAID", earned)]);
        assert_eq!(points.changes[0].not_taken, None, "all were taken back");
    }

    pub async fn a_refund_after_points_were_spent_takes_back_only_what_is_left(mall: Mall, _: EmbeddedMall) {
        let who = shopper(77);
        let order = paid_order_of_at_least(&mall, &who, 40_000, "ch-77").await;
        let earned = order.total_cents / 100;
        let coupon = Redeem::Coupon { coupon_id: "cp-points-30".into() };
        let spent = mall.redeem_points(&who, &coupon, key("redeem-77")).await.unwrap();
        assert_eq!(spent.balance, earned - 300);

        mall.cancel_order(&who, &order.order_id, None).await.unwrap();
        let points = mall.points(&who).await.unwrap();
        assert_eq!(points.balance, 0, "never below 0: {points:?}");
        let back = &points.changes[0];
        assert_eq!(
            (back.reason.as_str(), back.amount, back.not_taken),
            ("ORDER_REFUNDED", -(earned - 300), Some(300)),
            "{points:?}"
        );
        // Cancelling again takes nothing more.
        let _again = mall.cancel_order(&who, &order.order_id, None).await;
        assert_eq!(mall.points(&who).await.unwrap().balance, 0);
    }

    pub async fn redeeming_more_points_than_held_is_refused_and_points_buy_parking_once(
        mall: Mall,
        _: EmbeddedMall,
    ) {
        let who = shopper(76);
        mall.car_entered("沪C12345", Some(ago(3 * 3600))).await.unwrap();
        let hour = Redeem::Parking { plate: "沪C 12345".into(), hours: 1 };
        let error = mall.redeem_points(&who, &hour, None).await.unwrap_err();
        assert!(matches!(error, ServiceError::NotEnoughPoints { balance: 0, .. }), "{error:?}");
        let coupon = Redeem::Coupon { coupon_id: "cp-points-30".into() };
        assert!(matches!(
            mall.redeem_points(&who, &coupon, None).await,
            Err(ServiceError::NotEnoughPoints { .. })
        ));

        let order = paid_order_of_at_least(&mall, &who, 10_000, "ch-76").await;
        let before = mall.parking_fee("沪C12345", Some(&who)).await.unwrap().due_cents;
        let balance = order.total_cents / 100;
        let given = mall.redeem_points(&who, &hour, key("redeem-76")).await.unwrap();
        assert_eq!(
            (given.points_spent, given.balance, given.parking_minutes),
            (100, balance - 100, Some(60))
        );
        let replay = mall.redeem_points(&who, &hour, key("redeem-76")).await.unwrap();
        assert_eq!(replay, given, "the same key redeems once");
        assert_eq!(mall.points(&who).await.unwrap().balance, balance - 100);
        let fee = mall.parking_fee("沪C12345", Some(&who)).await.unwrap();
        assert!(fee.free.iter().any(|f| f.reason == "POINTS" && f.minutes == 60), "{fee:?}");
        assert_eq!(fee.due_cents, (before - 1000).max(0));
    }

    pub async fn a_coupon_is_claimed_once_per_shopper_while_any_are_left(mall: Mall, _: EmbeddedMall) {
        let lucky = |coupons: &Page<Coupon>| {
            coupons.items.iter().find(|c| c.coupon_id == "cp-lucky-5").cloned().unwrap()
        };
        let listed = lucky(&mall.list_coupons().await.unwrap());
        assert_eq!((listed.total, listed.left, listed.per_shopper), (5, 5, 1));
        assert!(!listed.title.is_empty() && !listed.title_en.is_empty());

        let first = mall.claim_coupon(&shopper(80), "cp-lucky-5", key("claim-80")).await.unwrap();
        assert_eq!((first.status.as_str(), first.coupon.left), ("AVAILABLE", 4));
        assert_eq!(mall.claim_coupon(&shopper(80), "cp-lucky-5", key("claim-80")).await.unwrap(), first);
        let error = mall.claim_coupon(&shopper(80), "cp-lucky-5", None).await.unwrap_err();
        assert!(
            matches!(&error, ServiceError::CouponUnavailable { message } if message.contains("one per shopper")),
            "{error:?}"
        );
        for id in 81..85 {
            mall.claim_coupon(&shopper(id), "cp-lucky-5", None).await.unwrap();
        }
        let error = mall.claim_coupon(&shopper(85), "cp-lucky-5", None).await.unwrap_err();
        assert!(
            matches!(&error, ServiceError::CouponUnavailable { message } if message.contains("all 5")),
            "{error:?}"
        );
        assert_eq!(lucky(&mall.list_coupons().await.unwrap()).left, 0);
        let mine = mall.my_coupons(&shopper(80)).await.unwrap();
        assert_eq!(
            mine.items.iter().map(|c| c.coupon.coupon_id.as_str()).collect::<Vec<_>>(),
            ["cp-lucky-5"]
        );
        assert!(mall.my_coupons(&shopper(85)).await.unwrap().items.is_empty());
        assert!(matches!(
            mall.claim_coupon(&shopper(80), "cp-none", None).await,
            Err(ServiceError::NotFound { .. })
        ));
    }

    pub async fn an_expired_coupon_is_refused(mall: Mall, embedded: EmbeddedMall) {
        let mut rules = LoyaltyRules::demo();
        let mut old = rules.coupons[0].clone();
        old.coupon_id = "cp-yesterday".into();
        old.valid_from = ago(10 * 86_400);
        old.valid_to = ago(86_400);
        rules.coupons.push(old.clone());
        embedded.set_loyalty(Some(rules)).unwrap();
        let error = mall.claim_coupon(&shopper(86), "cp-yesterday", None).await.unwrap_err();
        assert_eq!(
            error,
            ServiceError::CouponUnavailable {
                message: format!("coupon cp-yesterday expired at {}", old.valid_to)
            }
        );
    }

    pub async fn a_coupon_below_its_minimum_spend_is_refused_and_nothing_is_ordered(
        mall: Mall,
        _: EmbeddedMall,
    ) {
        let who = shopper(87);
        mall.claim_coupon(&who, "cp-mall-50", None).await.unwrap();
        let (product, sku) = one_stocked(&mall).await;
        let cart = add(&mall, &who, &product, &sku, 1).await;
        assert!(cart.total_cents < 30_000, "{cart:?}");
        let request =
            CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
        let error = mall.create_order_with_coupon(&who, &request, "cp-mall-50", None).await.unwrap_err();
        let ServiceError::CouponNotApplicable { message } = &error else { panic!("{error:?}") };
        assert!(message.starts_with("coupon cp-mall-50 needs ¥300 spent; this order has ¥"), "{message}");
        assert_eq!(mall.get_cart(&who).await.unwrap(), cart, "the cart is kept");
        assert_eq!(mall.list_orders(&who, PageRequest::default()).await.unwrap().total, 0);
        let unclaimed = mall.create_order_with_coupon(&who, &request, "cp-lucky-5", None).await.unwrap_err();
        assert!(
            matches!(&unclaimed, ServiceError::CouponNotApplicable { message } if message.contains("not claimed")),
            "{unclaimed:?}"
        );
    }

    pub async fn an_order_with_a_coupon_shows_the_discount_and_a_cancel_gives_the_coupon_back(
        mall: Mall,
        _: EmbeddedMall,
    ) {
        let who = shopper(88);
        mall.claim_coupon(&who, "cp-mall-50", None).await.unwrap();
        let price = cart_of_at_least(&mall, &who, 30_000, None).await;
        let cart = mall.get_cart(&who).await.unwrap();
        let request =
            CreateOrder { cart_id: cart.cart_id.clone(), expected_total_cents: Some(cart.total_cents) };
        let placed = mall
            .create_order_with_coupon(&who, &request, "cp-mall-50", key("coupon-order-88"))
            .await
            .unwrap();
        assert_eq!(
            (
                placed.coupon_id.as_str(),
                placed.subtotal_cents,
                placed.discount_cents,
                placed.order.total_cents
            ),
            ("cp-mall-50", price, 5000, price - 5000)
        );
        let discounted = |order: &Order| {
            (order.total_cents, order.subtotal_cents, order.discount_cents, order.coupon_id.clone())
        };
        let expected = (price - 5000, Some(price), Some(5000), Some("cp-mall-50".to_owned()));
        assert_eq!(discounted(&placed.order), expected, "the placed order carries its discount");
        let stored = mall.get_order(&who, &placed.order.order_id).await.unwrap();
        assert_eq!(discounted(&stored), expected, "the order read back carries its discount");
        let listed = mall.list_orders(&who, PageRequest::default()).await.unwrap().items.remove(0);
        assert_eq!(discounted(&listed), expected, "the order listed carries its discount");
        let json = serde_json::to_value(&stored).unwrap();
        assert_eq!(
            (&json["subtotal_cents"], &json["discount_cents"], &json["coupon_id"]),
            (&serde_json::json!(price), &serde_json::json!(5000), &serde_json::json!("cp-mall-50"))
        );
        let mine = mall.my_coupons(&who).await.unwrap().items.remove(0);
        assert_eq!(
            (mine.status.as_str(), mine.order_id.as_deref()),
            ("USED", Some(placed.order.order_id.as_str()))
        );
        let replay = mall
            .create_order_with_coupon(&who, &request, "cp-mall-50", key("coupon-order-88"))
            .await
            .unwrap();
        assert_eq!(replay, placed, "the same key places one order");

        mall.cancel_order(&who, &placed.order.order_id, None).await.unwrap();
        let mine = mall.my_coupons(&who).await.unwrap().items.remove(0);
        assert_eq!((mine.status.as_str(), mine.order_id), ("AVAILABLE", None));
    }

    pub async fn a_mall_without_a_car_park_points_or_coupons_says_so(mall: Mall, embedded: EmbeddedMall) {
        embedded.set_loyalty(None).unwrap();
        let error = mall.parking_fee("沪A12345", None).await.unwrap_err();
        assert_eq!(error, ServiceError::NotSupported { message: "this mall has no car park".into() });
        assert!(matches!(mall.points(&shopper(89)).await, Err(ServiceError::NotSupported { .. })));
        assert!(matches!(mall.list_coupons().await, Err(ServiceError::NotSupported { .. })));
    }
}

/// 1 000 shoppers claim a coupon of 100 at once through two malls on one database file (two
/// bot instances): exactly 100 get one, the rest hear that none are left.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_hundred_coupons_go_to_exactly_a_hundred_of_a_thousand_shoppers_across_two_instances() {
    use services::{EmbeddedMall, MallApi, ServiceError, Shopper};

    let dir = std::env::temp_dir().join(format!("mallbot-coupon-race-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mall.db");
    let _ = std::fs::remove_file(&path);
    let first = EmbeddedMall::open(&path).unwrap();
    let second = EmbeddedMall::open(&path).unwrap();
    let claims = (0..1000).map(|i| {
        let mall = if i % 2 == 0 { first.clone() } else { second.clone() };
        tokio::spawn(async move {
            mall.claim_coupon(&Shopper::new("telegram", 10_000 + i), "cp-mall-50", None).await
        })
    });
    let mut won = 0;
    for claim in claims.collect::<Vec<_>>() {
        match claim.await.unwrap() {
            Ok(_) => won += 1,
            Err(ServiceError::CouponUnavailable { message }) => {
                assert!(message.contains("all 100"), "{message}")
            }
            Err(other) => panic!("a claim failed otherwise: {other:?}"),
        }
    }
    assert_eq!(won, 100);
    for mall in [&first, &second] {
        let left = mall
            .list_coupons()
            .await
            .unwrap()
            .items
            .into_iter()
            .find(|c| c.coupon_id == "cp-mall-50")
            .unwrap();
        assert_eq!((left.total, left.left), (100, 0));
    }
    drop((first, second));
    let _ = std::fs::remove_dir_all(&dir);
}
