//! [`HttpMall`]: the mall REST API of `docs/openapi.yaml` spoken over HTTP to a real
//! backend (or to `mallbot mall-server`), with bounded retries and errors kept by kind.
//!
//! One pooled reqwest client, the bot's bearer key, `X-Mall-User`,
//! `Idempotency-Key`, timeouts, and retries with backoff ([`RetryPolicy`])
//! for reads and keyed writes (a payment keyed by its charge id is retried).
//! [`HttpMall::with_staff_key`] (`mall.staff_key`) is sent as the bearer key
//! of the staff calls instead of the bot's; without it they answer
//! `Unauthorized` unsent. Each round trip is a client span of the trace
//! (target `otel`, named by [`route_template`]: ids as `{id}`) carrying the
//! `traceparent` the bot's tracing gives it through [`set_trace_context`], so
//! this crate depends on no OpenTelemetry crate.

use std::error::Error as _;
use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use reqwest::header::{self, HeaderMap, HeaderValue};
use reqwest::{Method, StatusCode, Url};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::api::{IdempotencyKey, MallApi, MallResult, Shopper};
use crate::error::{ErrorBody, ServiceError};
use crate::loyalty::{
    CarStay, Coupon, CouponOrder, MyCoupon, ParkingFee, ParkingPayment, PayParking, Plate, PointsBalance,
    Redeem, Redemption,
};
use crate::models::{
    AddCartItem, Area, Cart, CreateOrder, EventPage, EventQuery, Health, InfoSection, MallEvent,
    MallPromotion, Order, Page, PageRequest, Product, ProductBrief, ProductQuery, Promotion, RecordPayment,
    Review, Route, Store, StoreQuery,
};
use crate::retry::RetryPolicy;

/// Header naming the shopper a cart or order request acts for (`X-Mall-User`).
pub const SHOPPER_HEADER: &str = "x-mall-user";
/// Header carrying the idempotency key of a mutating request (`Idempotency-Key`).
pub const IDEMPOTENCY_HEADER: &str = "idempotency-key";
/// First pause between two attempts; it doubles with every retry.
const BACKOFF_BASE: Duration = Duration::from_millis(100);
/// Longest pause between two attempts.
const BACKOFF_CAP: Duration = Duration::from_secs(2);
/// The share of a pause left out at random: pauses fall between half and all of it.
const BACKOFF_JITTER: f64 = 0.5;
/// Longest `Retry-After` worth waiting for; a longer one ends the call.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(5);
/// How much of an unparsable body [`ServiceError::InvalidResponse`] keeps.
const RAW_BODY_LIMIT: usize = 4 * 1024;
/// How much of a 5xx body an [`ServiceError::Unavailable`] message quotes.
const MESSAGE_BODY_LIMIT: usize = 300;

/// Where the mall is and how patiently to talk to it.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpMallConfig {
    /// The mall's base URL, e.g. `https://mall.example.com` (paths start with `/api/`).
    pub base_url: String,
    /// The bot's credential, sent as `Authorization: Bearer …`; empty sends none.
    pub api_key: String,
    /// Longest wait for a connection.
    pub connect_timeout: Duration,
    /// Longest wait for a whole answer, per attempt.
    pub request_timeout: Duration,
    /// Retries after a failed attempt, for reads and keyed mutations only.
    pub max_retries: u32,
}

impl HttpMallConfig {
    /// The defaults with this base URL and key.
    pub fn new(base_url: impl Into<String>, api_key: impl Into<String>) -> Self {
        HttpMallConfig { base_url: base_url.into(), api_key: api_key.into(), ..Self::default() }
    }
}

impl Default for HttpMallConfig {
    /// `http://127.0.0.1:8080`, no key, connect 3 s, request 10 s, 2 retries.
    fn default() -> Self {
        HttpMallConfig {
            base_url: "http://127.0.0.1:8080".to_owned(),
            api_key: String::new(),
            connect_timeout: Duration::from_secs(3),
            request_timeout: Duration::from_secs(10),
            max_retries: 2,
        }
    }
}

impl fmt::Debug for HttpMallConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = if self.api_key.is_empty() { "" } else { "<redacted>" };
        f.debug_struct("HttpMallConfig")
            .field("base_url", &self.base_url)
            .field("api_key", &key)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

/// A [`MallApi`] over HTTP: one pooled connection pool, bearer authentication, the shopper and
/// idempotency headers, retries with backoff for calls that are safe to repeat.
#[derive(Clone)]
pub struct HttpMall {
    client: reqwest::Client,
    base_url: Url,
    authorization: Option<HeaderValue>,
    /// `Bearer <staff key>` for the staff endpoints; without it they are refused unsent.
    staff_authorization: Option<HeaderValue>,
    connect_timeout: Duration,
    request_timeout: Duration,
    max_retries: u32,
}

impl fmt::Debug for HttpMall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpMall")
            .field("base_url", &self.base_url.as_str())
            .field("authenticated", &self.authorization.is_some())
            .field("staff", &self.staff_authorization.is_some())
            .field("max_retries", &self.max_retries)
            .finish_non_exhaustive()
    }
}

impl HttpMall {
    /// A client for the mall at `config.base_url`. A base URL that is not an `http(s)` URL is
    /// `InvalidArgument` naming `mall.base_url`; a key that cannot be a header, `mall.api_key`.
    pub fn new(config: HttpMallConfig) -> Result<HttpMall, ServiceError> {
        let base_url = parse_base_url(&config.base_url)?;
        let authorization = bearer(&config.api_key, "mall.api_key")?;
        let client = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .user_agent(concat!("mallbot/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ServiceError::Unavailable {
                message: format!("could not start the HTTP client: {}", with_causes(&e)),
            })?;
        Ok(HttpMall {
            client,
            base_url,
            authorization,
            staff_authorization: None,
            connect_timeout: config.connect_timeout,
            request_timeout: config.request_timeout,
            max_retries: config.max_retries,
        })
    }

    /// The same client with the mall's staff key (`mall.staff_key`), sent as the bearer key of
    /// the staff endpoints (`mark_ready`, `mark_picked_up`) instead of the bot's key. An empty
    /// key removes it: those calls then answer `Unauthorized` without a request.
    pub fn with_staff_key(mut self, staff_key: &str) -> Result<HttpMall, ServiceError> {
        self.staff_authorization = bearer(staff_key, "mall.staff_key")?;
        Ok(self)
    }

    /// A `POST` to a staff endpoint, carrying the staff key instead of the bot's; without a
    /// staff key, `Unauthorized` and no request.
    fn staff_call(&self, segments: &[&str]) -> MallResult<Call> {
        let Some(staff) = &self.staff_authorization else {
            return Err(ServiceError::Unauthorized {
                message: "no staff key is configured (mall.staff_key); staff calls are not sent".to_owned(),
            });
        };
        let mut call = self.request(Method::POST, segments)?;
        call.headers.insert(header::AUTHORIZATION, staff.clone());
        Ok(call)
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        self.base_url.as_str()
    }

    /// A request to the endpoint whose path is `segments` (each one percent-encoded).
    fn request(&self, method: Method, segments: &[&str]) -> MallResult<Call> {
        if let Some(bad) = segments.iter().find(|s| matches!(s.trim(), "" | "." | "..")) {
            return Err(ServiceError::not_found(format!("no such id: {bad:?}")));
        }
        let mut url = self.base_url.clone();
        if let Ok(mut path) = url.path_segments_mut() {
            path.pop_if_empty().extend(segments);
        }
        Ok(Call { method, url, headers: HeaderMap::new(), body: None })
    }

    /// Sends `call`, retrying transient failures when the call is safe to repeat, and parses the
    /// answer as `T`.
    async fn send<T: DeserializeOwned>(&self, call: Call) -> MallResult<T> {
        let repeatable = call.is_repeatable();
        let policy = self.retry_policy();
        let mut attempt: u32 = 1;
        loop {
            let (error, retry_after) = match self.attempt(&call).await {
                Outcome::Done(result) => return result,
                Outcome::Transient { error, retry_after } => (error, retry_after),
            };
            let pause = match retry_after {
                Some(wait) if wait > MAX_RETRY_AFTER => None,
                wait => policy.pause(attempt - 1, wait),
            };
            match pause {
                Some(pause) if repeatable => {
                    tracing::warn!(
                        method = %call.method, path = call.url.path(), attempt, error = %error,
                        retry_in_ms = pause.as_millis(), "mall call failed; retrying"
                    );
                    tokio::time::sleep(pause).await;
                    attempt += 1;
                }
                _ => return Err(call.explain(error, attempt, retry_after)),
            }
        }
    }

    /// How calls that are safe to repeat are retried.
    fn retry_policy(&self) -> RetryPolicy {
        RetryPolicy {
            max_retries: self.max_retries,
            base: BACKOFF_BASE,
            max_delay: BACKOFF_CAP,
            jitter: BACKOFF_JITTER,
        }
    }

    /// One round trip, in a client span of the trace (target `otel`) whose
    /// `traceparent` goes with the request.
    async fn attempt<T: DeserializeOwned>(&self, call: &Call) -> Outcome<T> {
        let span = tracing::info_span!(
            target: "otel",
            "mall_call",
            otel.name = %format!("{} {}", call.method, route_of(&call.url)),
            otel.kind = "client",
            http.request.method = %call.method,
            http.route = %route_of(&call.url),
            server.address = call.url.host_str().unwrap_or(""),
            server.port = i64::from(call.url.port_or_known_default().unwrap_or(0)),
            http.response.status_code = tracing::field::Empty,
            error.type = tracing::field::Empty,
            otel.status_code = tracing::field::Empty,
        );
        let outcome = tracing::Instrument::instrument(self.attempt_in(call, &span), span.clone()).await;
        match &outcome {
            Outcome::Done(Ok(_)) => {}
            Outcome::Done(Err(e)) => {
                span.record("error.type", e.code());
                span.record("otel.status_code", "error");
            }
            Outcome::Transient { .. } => {
                span.record("error.type", "transient");
                span.record("otel.status_code", "error");
            }
        }
        outcome
    }

    async fn attempt_in<T: DeserializeOwned>(&self, call: &Call, span: &tracing::Span) -> Outcome<T> {
        let started = std::time::Instant::now();
        let mut request = self.build(call);
        if let Some(traceparent) = TRACE_CONTEXT.get().and_then(|of| of(span)) {
            request = request.header("traceparent", traceparent);
        }
        let response = match request.send().await {
            Ok(response) => response,
            Err(e) => return Outcome::transient(self.describe_failure(&e)),
        };
        span.record("http.response.status_code", i64::from(response.status().as_u16()));
        let status = response.status();
        let retry_after = retry_after(response.headers());
        let body = match response.bytes().await {
            Ok(body) => body,
            Err(e) => return Outcome::transient(self.describe_failure(&e)),
        };
        tracing::debug!(
            method = %call.method, path = call.url.path(), status = status.as_u16(),
            duration_ms = started.elapsed().as_secs_f64() * 1000.0, "mall call answered"
        );
        judge(status, retry_after, &body)
    }

    fn build(&self, call: &Call) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .request(call.method.clone(), call.url.clone())
            .headers(call.headers.clone())
            .header(header::ACCEPT, "application/json");
        if let Some(authorization) =
            self.authorization.as_ref().filter(|_| !call.headers.contains_key(header::AUTHORIZATION))
        {
            request = request.header(header::AUTHORIZATION, authorization.clone());
        }
        if let Some(body) = &call.body {
            request = request.header(header::CONTENT_TYPE, "application/json").body(body.clone());
        }
        request
    }

    /// What went wrong on the wire, in words an operator can act on.
    fn describe_failure(&self, error: &reqwest::Error) -> String {
        if error.is_connect() && error.is_timeout() {
            format!("connection timed out after {:?}", self.connect_timeout)
        } else if error.is_connect() {
            format!("could not connect: {}", root_cause(error))
        } else if error.is_timeout() {
            format!("timed out after {:?} waiting for the answer", self.request_timeout)
        } else {
            format!("network error: {}", with_causes(error))
        }
    }
}

#[async_trait]
impl MallApi for HttpMall {
    async fn health(&self) -> MallResult<Health> {
        self.send(self.request(Method::GET, &["api", "health"])?).await
    }

    async fn search_products(&self, query: &ProductQuery) -> MallResult<Page<ProductBrief>> {
        let call = self
            .request(Method::GET, &["api", "products", "search"])?
            .query("keyword", query.keyword.as_ref())
            .query("min_price_cents", query.min_price_cents)
            .query("max_price_cents", query.max_price_cents)
            .query("brand", query.brand.as_ref())
            .query("category", query.category.as_ref())
            .page(query.page);
        self.send(call).await
    }

    async fn get_product(&self, id: &str) -> MallResult<Product> {
        self.send(self.request(Method::GET, &["api", "products", id])?).await
    }

    async fn search_stores(&self, query: &StoreQuery) -> MallResult<Page<Store>> {
        let call = self
            .request(Method::GET, &["api", "stores", "search"])?
            .query("keyword", query.keyword.as_ref())
            .query("category", query.category.as_ref())
            .query("floor", query.floor)
            .page(query.page);
        self.send(call).await
    }

    async fn get_store(&self, id: &str) -> MallResult<Store> {
        self.send(self.request(Method::GET, &["api", "stores", id])?).await
    }

    async fn store_promotions(&self, id: &str) -> MallResult<Page<Promotion>> {
        self.send(self.request(Method::GET, &["api", "stores", id, "promotions"])?).await
    }

    async fn store_reviews(&self, id: &str, page: PageRequest) -> MallResult<Page<Review>> {
        self.send(self.request(Method::GET, &["api", "stores", id, "reviews"])?.page(page)).await
    }

    async fn list_areas(&self) -> MallResult<Page<Area>> {
        self.send(self.request(Method::GET, &["api", "areas"])?).await
    }

    async fn get_area(&self, id: &str) -> MallResult<Area> {
        self.send(self.request(Method::GET, &["api", "areas", id])?).await
    }

    async fn route(&self, to_store: &str, from: Option<String>) -> MallResult<Route> {
        let call = self
            .request(Method::GET, &["api", "navigation", "route"])?
            .query("to_store", Some(to_store))
            .query("from", from);
        self.send(call).await
    }

    async fn get_cart(&self, shopper: &Shopper) -> MallResult<Cart> {
        self.send(self.request(Method::GET, &["api", "cart"])?.shopper(shopper)?).await
    }

    async fn add_cart_item(
        &self,
        shopper: &Shopper,
        item: &AddCartItem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart> {
        let call =
            self.request(Method::POST, &["api", "cart", "items"])?.shopper(shopper)?.key(key)?.json(item)?;
        self.send(call).await
    }

    async fn remove_cart_item(
        &self,
        shopper: &Shopper,
        item_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Cart> {
        let call =
            self.request(Method::DELETE, &["api", "cart", "items", item_id])?.shopper(shopper)?.key(key)?;
        self.send(call).await
    }

    async fn clear_cart(&self, shopper: &Shopper, key: Option<IdempotencyKey>) -> MallResult<Cart> {
        self.send(self.request(Method::DELETE, &["api", "cart"])?.shopper(shopper)?.key(key)?).await
    }

    async fn create_order(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        let call = self.request(Method::POST, &["api", "orders"])?.shopper(shopper)?.key(key)?.json(order)?;
        self.send(call).await
    }

    async fn list_orders(&self, shopper: &Shopper, page: PageRequest) -> MallResult<Page<Order>> {
        self.send(self.request(Method::GET, &["api", "orders"])?.shopper(shopper)?.page(page)).await
    }

    async fn get_order(&self, shopper: &Shopper, order_id: &str) -> MallResult<Order> {
        self.send(self.request(Method::GET, &["api", "orders", order_id])?.shopper(shopper)?).await
    }

    async fn cancel_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        let call =
            self.request(Method::POST, &["api", "orders", order_id, "cancel"])?.shopper(shopper)?.key(key)?;
        self.send(call).await
    }

    async fn pay_order(
        &self,
        shopper: &Shopper,
        order_id: &str,
        payment: &RecordPayment,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        let call = self
            .request(Method::POST, &["api", "orders", order_id, "payments"])?
            .shopper(shopper)?
            .key(key)?
            .json(payment)?;
        self.send(call).await
    }

    async fn mall_info(&self) -> MallResult<Page<InfoSection>> {
        self.send(self.request(Method::GET, &["api", "mall", "info"])?).await
    }

    async fn mall_events(&self, query: &EventQuery) -> MallResult<Page<MallEvent>> {
        let call = self
            .request(Method::GET, &["api", "mall", "events"])?
            .query("from", query.from.as_ref())
            .query("to", query.to.as_ref());
        self.send(call).await
    }

    async fn mall_promotions(&self) -> MallResult<Page<MallPromotion>> {
        self.send(self.request(Method::GET, &["api", "mall", "promotions"])?).await
    }

    async fn events(&self, after: Option<String>, limit: u32) -> MallResult<EventPage> {
        let limit = match limit {
            0 => PageRequest::DEFAULT_LIMIT,
            n => n.min(PageRequest::MAX_LIMIT),
        };
        let call =
            self.request(Method::GET, &["api", "events"])?.query("after", after).query("limit", Some(limit));
        self.send(call).await
    }

    async fn mark_ready(&self, order_id: &str) -> MallResult<Order> {
        self.send(self.staff_call(&["api", "staff", "orders", order_id, "ready"])?).await
    }

    async fn mark_picked_up(&self, order_id: &str) -> MallResult<Order> {
        self.send(self.staff_call(&["api", "staff", "orders", order_id, "picked-up"])?).await
    }

    async fn set_stock(&self, product_id: &str, sku_id: Option<String>, stock: u32) -> MallResult<Product> {
        let body = serde_json::json!({ "sku_id": sku_id, "stock": stock });
        self.send(self.staff_call(&["api", "staff", "products", product_id, "stock"])?.json(&body)?).await
    }

    async fn set_price(
        &self,
        product_id: &str,
        sku_id: Option<String>,
        price_cents: i64,
    ) -> MallResult<Product> {
        let body = serde_json::json!({ "sku_id": sku_id, "price_cents": price_cents });
        self.send(self.staff_call(&["api", "staff", "products", product_id, "price"])?.json(&body)?).await
    }

    async fn parking_fee<'a>(&self, plate: &str, shopper: Option<&'a Shopper>) -> MallResult<ParkingFee> {
        let call = self.request(Method::GET, &["api", "parking", "fee"])?.query("plate", Some(plate));
        let call = match shopper {
            Some(shopper) => call.shopper(shopper)?,
            None => call,
        };
        self.send(call).await
    }

    async fn pay_parking(
        &self,
        shopper: &Shopper,
        payment: &PayParking,
        key: Option<IdempotencyKey>,
    ) -> MallResult<ParkingPayment> {
        let call = self
            .request(Method::POST, &["api", "parking", "payments"])?
            .shopper(shopper)?
            .key(key)?
            .json(payment)?;
        self.send(call).await
    }

    async fn car_entered(&self, plate: &str, at: Option<String>) -> MallResult<CarStay> {
        let body = serde_json::json!({ "plate": plate, "entered_at": at });
        self.send(self.staff_call(&["api", "staff", "parking", "entries"])?.json(&body)?).await
    }

    async fn car_left(&self, plate: &str) -> MallResult<CarStay> {
        let body = serde_json::json!({ "plate": plate });
        self.send(self.staff_call(&["api", "staff", "parking", "exits"])?.json(&body)?).await
    }

    async fn my_plates(&self, shopper: &Shopper) -> MallResult<Page<Plate>> {
        self.send(self.request(Method::GET, &["api", "me", "plates"])?.shopper(shopper)?).await
    }

    async fn add_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        let body = serde_json::json!({ "plate": plate });
        let call =
            self.request(Method::POST, &["api", "me", "plates"])?.shopper(shopper)?.key(key)?.json(&body)?;
        self.send(call).await
    }

    async fn remove_plate(
        &self,
        shopper: &Shopper,
        plate: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Page<Plate>> {
        let call =
            self.request(Method::DELETE, &["api", "me", "plates", plate])?.shopper(shopper)?.key(key)?;
        self.send(call).await
    }

    async fn points(&self, shopper: &Shopper) -> MallResult<PointsBalance> {
        self.send(self.request(Method::GET, &["api", "points"])?.shopper(shopper)?).await
    }

    async fn redeem_points(
        &self,
        shopper: &Shopper,
        redeem: &Redeem,
        key: Option<IdempotencyKey>,
    ) -> MallResult<Redemption> {
        let call = self
            .request(Method::POST, &["api", "points", "redemptions"])?
            .shopper(shopper)?
            .key(key)?
            .json(redeem)?;
        self.send(call).await
    }

    async fn list_coupons(&self) -> MallResult<Page<Coupon>> {
        self.send(self.request(Method::GET, &["api", "coupons"])?).await
    }

    async fn claim_coupon(
        &self,
        shopper: &Shopper,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<MyCoupon> {
        let call = self
            .request(Method::POST, &["api", "coupons", coupon_id, "claim"])?
            .shopper(shopper)?
            .key(key)?;
        self.send(call).await
    }

    async fn my_coupons(&self, shopper: &Shopper) -> MallResult<Page<MyCoupon>> {
        self.send(self.request(Method::GET, &["api", "me", "coupons"])?.shopper(shopper)?).await
    }

    async fn create_order_with_coupon(
        &self,
        shopper: &Shopper,
        order: &CreateOrder,
        coupon_id: &str,
        key: Option<IdempotencyKey>,
    ) -> MallResult<CouponOrder> {
        let body = serde_json::json!({
            "cart_id": order.cart_id,
            "expected_total_cents": order.expected_total_cents,
            "coupon_id": coupon_id,
        });
        let call = self.request(Method::POST, &["api", "orders"])?.shopper(shopper)?.key(key)?.json(&body)?;
        self.send(call).await
    }
}

/// How the `traceparent` of a span is found: set once by the process that
/// traces (the bot's `otel` module); without it no header is sent.
static TRACE_CONTEXT: std::sync::OnceLock<fn(&tracing::Span) -> Option<String>> = std::sync::OnceLock::new();

/// Has every mall call carry the W3C `traceparent` that `of` gives for its
/// client span, so the mall's spans join the bot's trace. The first call wins.
pub fn set_trace_context(of: fn(&tracing::Span) -> Option<String>) {
    let _ = TRACE_CONTEXT.set(of);
}

/// The path's fixed words, kept in a span's name; other segments are ids.
const ROUTE_WORDS: &[&str] = &[
    "api",
    "products",
    "stores",
    "promotions",
    "reviews",
    "areas",
    "route",
    "cart",
    "items",
    "orders",
    "cancel",
    "payments",
    "events",
    "staff",
    "ready",
    "picked-up",
    "stock",
    "price",
    "health",
    "search",
];

/// The route of a path with its ids as `{id}`: `/api/orders/{id}/payments`
/// (a span's name: few distinct values, no shopper's data).
pub fn route_template(path: &str) -> String {
    let mut route = String::new();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        route.push('/');
        route.push_str(if ROUTE_WORDS.contains(&segment) { segment } else { "{id}" });
    }
    route
}

fn route_of(url: &Url) -> String {
    route_template(url.path())
}

/// One endpoint call, rebuilt into a fresh request for every attempt.
#[derive(Debug)]
struct Call {
    method: Method,
    url: Url,
    headers: HeaderMap,
    body: Option<Vec<u8>>,
}

impl Call {
    /// Adds the query parameter `name` when `value` is given.
    fn query(mut self, name: &str, value: Option<impl ToString>) -> Self {
        if let Some(value) = value {
            self.url.query_pairs_mut().append_pair(name, &value.to_string());
        }
        self
    }

    /// Adds `limit` (clamped to the contract's 1-50) and `offset` when given.
    fn page(self, page: PageRequest) -> Self {
        self.query("limit", page.limit.map(|_| page.limit())).query("offset", page.offset)
    }

    fn shopper(self, shopper: &Shopper) -> MallResult<Self> {
        self.header(SHOPPER_HEADER, shopper.as_str(), "X-Mall-User")
    }

    fn key(self, key: Option<IdempotencyKey>) -> MallResult<Self> {
        match key {
            Some(key) => self.header(IDEMPOTENCY_HEADER, key.as_str(), "Idempotency-Key"),
            None => Ok(self),
        }
    }

    fn header(mut self, name: &'static str, value: &str, field: &str) -> MallResult<Self> {
        let value = HeaderValue::from_str(value)
            .map_err(|_| ServiceError::invalid(field, format!("{field} must be visible ASCII: {value:?}")))?;
        self.headers.insert(name, value);
        Ok(self)
    }

    fn json(mut self, body: &impl Serialize) -> MallResult<Self> {
        let bytes = serde_json::to_vec(body).map_err(|e| ServiceError::InvalidArgument {
            field: None,
            message: format!("could not encode the request: {e}"),
        })?;
        self.body = Some(bytes);
        Ok(self)
    }

    /// Reads are always safe to repeat; a mutation only when it carries an idempotency key.
    fn is_repeatable(&self) -> bool {
        self.method == Method::GET || self.headers.contains_key(IDEMPOTENCY_HEADER)
    }

    /// The final error of a call that failed transiently: says which call, how often it was
    /// tried and, for a long `Retry-After`, how long the mall asked to wait.
    fn explain(&self, error: ServiceError, attempts: u32, retry_after: Option<Duration>) -> ServiceError {
        let ServiceError::Unavailable { message } = error else { return error };
        let mut message = format!("{} {}: {message}", self.method, self.url.path());
        if attempts > 1 {
            message.push_str(&format!(" ({attempts} attempts)"));
        }
        if let Some(wait) = retry_after.filter(|wait| *wait > MAX_RETRY_AFTER) {
            message.push_str(&format!("; the mall asks to retry after {} s", wait.as_secs()));
        }
        ServiceError::Unavailable { message }
    }
}

/// What one attempt produced.
enum Outcome<T> {
    /// An answer to return as it is.
    Done(MallResult<T>),
    /// A failure another attempt might not have.
    Transient { error: ServiceError, retry_after: Option<Duration> },
}

impl<T> Outcome<T> {
    fn transient(message: String) -> Self {
        Outcome::Transient { error: ServiceError::Unavailable { message }, retry_after: None }
    }
}

/// Turns an HTTP answer into a result: 2xx parsed as `T`, the contract's error body into its
/// kind, 5xx and 429 marked transient.
fn judge<T: DeserializeOwned>(status: StatusCode, retry_after: Option<Duration>, body: &[u8]) -> Outcome<T> {
    if status.is_success() {
        return Outcome::Done(serde_json::from_slice(body).map_err(|e| ServiceError::InvalidResponse {
            status: status.as_u16(),
            message: format!("the answer does not have the contract's shape: {e}"),
            raw: excerpt(body, RAW_BODY_LIMIT),
        }));
    }
    let error = error_from_answer(status, body);
    // 501: the mall does not offer the endpoint; asking again will not change that.
    let transient = status.is_server_error() && status != StatusCode::NOT_IMPLEMENTED;
    if transient || status == StatusCode::TOO_MANY_REQUESTS {
        Outcome::Transient { error, retry_after }
    } else {
        Outcome::Done(Err(error))
    }
}

/// The error an unsuccessful answer stands for.
fn error_from_answer(status: StatusCode, body: &[u8]) -> ServiceError {
    match serde_json::from_slice::<ErrorBody>(body) {
        Ok(parsed) => ServiceError::from_body(status.as_u16(), parsed),
        Err(_) if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS => {
            let quoted = excerpt(body, MESSAGE_BODY_LIMIT).split_whitespace().collect::<Vec<_>>().join(" ");
            ServiceError::Unavailable { message: format!("HTTP {status}: {quoted}") }
        }
        Err(e) => ServiceError::InvalidResponse {
            status: status.as_u16(),
            message: format!("HTTP {status} without the contract's error body ({e})"),
            raw: excerpt(body, RAW_BODY_LIMIT),
        },
    }
}

/// `Retry-After` given in seconds (an HTTP date is ignored: the backoff applies).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds = headers.get(header::RETRY_AFTER)?.to_str().ok()?.trim().parse::<u64>().ok()?;
    Some(Duration::from_secs(seconds))
}

/// At most `limit` bytes of `body` as text, cut on a character boundary, `…` when cut.
fn excerpt(body: &[u8], limit: usize) -> String {
    let text = String::from_utf8_lossy(body);
    if text.len() <= limit {
        return text.into_owned();
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

fn parse_base_url(raw: &str) -> Result<Url, ServiceError> {
    let invalid = |why: String| ServiceError::invalid("mall.base_url", why);
    let url = Url::parse(raw.trim()).map_err(|e| invalid(format!("{raw:?} is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") || url.cannot_be_a_base() || url.host().is_none() {
        return Err(invalid(format!("{raw:?} must be an http:// or https:// URL with a host")));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(invalid(format!("{raw:?} must not have a query or a fragment")));
    }
    Ok(url)
}

/// `Bearer <key>`, marked sensitive; `None` for an empty key. A key that cannot be a header is
/// `InvalidArgument` naming `config_key`.
fn bearer(key: &str, config_key: &str) -> Result<Option<HeaderValue>, ServiceError> {
    if key.is_empty() {
        return Ok(None);
    }
    let mut value = HeaderValue::from_str(&format!("Bearer {key}"))
        .map_err(|_| ServiceError::invalid(config_key, "the key must be visible ASCII"))?;
    value.set_sensitive(true);
    Ok(Some(value))
}

/// The innermost cause of `error` (e.g. "Connection refused (os error 111)").
fn root_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// `error` followed by its causes, separated by `: `.
fn with_causes(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(source) = cause {
        text.push_str(": ");
        text.push_str(&source.to_string());
        cause = source.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mall(base_url: &str) -> HttpMall {
        HttpMall::new(HttpMallConfig::new(base_url, "")).expect("valid config")
    }

    fn field_of(error: ServiceError) -> Option<String> {
        match error {
            ServiceError::InvalidArgument { field, .. } => field,
            other => panic!("expected InvalidArgument, got {other:?}"),
        }
    }

    #[test]
    fn bad_base_urls_name_the_config_key() {
        for raw in ["", "not a url", "ftp://mall.example.com", "mailto:x@example.com", "http://h/?a=1"] {
            let error = HttpMall::new(HttpMallConfig::new(raw, "")).expect_err(raw);
            assert_eq!(field_of(error).as_deref(), Some("mall.base_url"), "{raw}");
        }
    }

    #[test]
    fn an_api_key_with_a_newline_names_the_config_key() {
        let error = HttpMall::new(HttpMallConfig::new("http://mall", "abc\ndef")).expect_err("refused");
        assert_eq!(field_of(error).as_deref(), Some("mall.api_key"));
    }

    #[test]
    fn debug_output_never_shows_the_api_key() {
        let config = HttpMallConfig::new("http://mall", "s3cr3t-key");
        assert!(!format!("{config:?}").contains("s3cr3t"));
        let client = HttpMall::new(config).expect("valid");
        assert!(!format!("{client:?}").contains("s3cr3t"));
        assert!(format!("{client:?}").contains("authenticated: true"));
    }

    #[test]
    fn paths_keep_the_base_path_and_encode_ids() {
        let client = mall("https://mall.example.com/backend/");
        let call = client.request(Method::GET, &["api", "products", "a/b c?#%中"]).expect("url");
        assert_eq!(
            call.url.as_str(),
            "https://mall.example.com/backend/api/products/a%2Fb%20c%3F%23%25%E4%B8%AD"
        );
        let call = mall("http://mall:8080").request(Method::GET, &["api", "health"]).expect("url");
        assert_eq!(call.url.as_str(), "http://mall:8080/api/health");
    }

    #[test]
    fn ids_that_would_change_the_path_are_not_found_without_a_request() {
        let client = mall("http://mall");
        for id in ["", "..", "."] {
            let error = client.request(Method::GET, &["api", "orders", id]).expect_err(id);
            assert!(matches!(error, ServiceError::NotFound { .. }), "{id:?}: {error:?}");
        }
    }

    #[test]
    fn query_parameters_use_the_contract_names_and_clamp_the_limit() {
        let client = mall("http://mall");
        let call = client
            .request(Method::GET, &["api", "products", "search"])
            .expect("url")
            .query("keyword", Some("Nike 跑鞋"))
            .query("brand", None::<String>)
            .query("max_price_cents", Some(50_000))
            .page(PageRequest { limit: Some(500), offset: Some(20) });
        let url = client.build(&call).build().expect("request").url().to_string();
        assert_eq!(
            url,
            "http://mall/api/products/search?keyword=Nike+%E8%B7%91%E9%9E%8B&max_price_cents=50000&limit=50&offset=20"
        );
    }

    #[test]
    fn headers_carry_the_key_the_shopper_and_the_idempotency_key() {
        let client = HttpMall::new(HttpMallConfig::new("http://mall", "k1")).expect("valid");
        let call = client
            .request(Method::POST, &["api", "orders"])
            .and_then(|c| c.shopper(&Shopper::new("telegram", 42)))
            .and_then(|c| c.key(Some(IdempotencyKey("order-1".into()))))
            .expect("call");
        let request = client.build(&call).build().expect("request");
        let header =
            |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        assert_eq!(header("authorization").as_deref(), Some("Bearer k1"));
        assert_eq!(header("x-mall-user").as_deref(), Some("telegram:42"));
        assert_eq!(header("idempotency-key").as_deref(), Some("order-1"));
        assert!(call.is_repeatable());
    }

    #[test]
    fn without_a_key_no_authorization_is_sent_and_unkeyed_mutations_are_not_repeatable() {
        let client = mall("http://mall");
        let call = client.request(Method::DELETE, &["api", "cart"]).expect("url");
        assert!(client.build(&call).build().expect("request").headers().get("authorization").is_none());
        assert!(!call.is_repeatable());
        assert!(client.request(Method::GET, &["api", "cart"]).expect("url").is_repeatable());
    }

    #[test]
    fn contract_error_bodies_keep_their_kind() {
        let body =
            br#"{"error":{"code":"PRICE_CHANGED","message":"re-priced","details":{"total_cents":4200}}}"#;
        assert_eq!(
            error_from_answer(StatusCode::CONFLICT, body),
            ServiceError::PriceChanged { total_cents: 4200, message: "re-priced".into() }
        );
    }

    #[test]
    fn an_html_404_is_an_invalid_response_keeping_the_page() {
        let page = b"<html><body><h1>File Not Found</h1></body></html>";
        match error_from_answer(StatusCode::NOT_FOUND, page) {
            ServiceError::InvalidResponse { status, raw, .. } => {
                assert_eq!(status, 404);
                assert_eq!(raw.as_bytes(), page);
            }
            other => panic!("expected InvalidResponse, got {other:?}"),
        }
    }

    #[test]
    fn a_success_body_of_the_wrong_shape_is_an_invalid_response() {
        match judge::<Health>(StatusCode::OK, None, b"File Not Found") {
            Outcome::Done(Err(ServiceError::InvalidResponse { status: 200, raw, .. })) => {
                assert_eq!(raw, "File Not Found")
            }
            _ => panic!("expected InvalidResponse"),
        }
        match judge::<Health>(StatusCode::OK, None, br#"{"status":"ok","version":"9"}"#) {
            Outcome::Done(Ok(health)) => assert_eq!(health.status, "ok"),
            _ => panic!("extra fields must be ignored"),
        }
    }

    #[test]
    fn server_errors_and_rate_limits_are_transient() {
        let html = b"<html>\n  <h1>502 Bad Gateway</h1>\n</html>";
        match judge::<Health>(StatusCode::BAD_GATEWAY, None, html) {
            Outcome::Transient { error: ServiceError::Unavailable { message }, .. } => {
                assert_eq!(message, "HTTP 502 Bad Gateway: <html> <h1>502 Bad Gateway</h1> </html>")
            }
            _ => panic!("expected a transient Unavailable"),
        }
        let wait = Some(Duration::from_secs(1));
        assert!(matches!(
            judge::<Health>(StatusCode::TOO_MANY_REQUESTS, wait, b""),
            Outcome::Transient { retry_after: Some(_), .. }
        ));
        assert!(matches!(judge::<Health>(StatusCode::BAD_REQUEST, None, b"{}"), Outcome::Done(Err(_))));
    }

    #[test]
    fn long_bodies_are_cut_on_a_character_boundary() {
        let body = "价".repeat(2000);
        let cut = excerpt(body.as_bytes(), RAW_BODY_LIMIT);
        assert!(cut.len() <= RAW_BODY_LIMIT + "…".len());
        assert!(cut.ends_with("价…"));
        assert_eq!(excerpt(b"short", 10), "short");
    }

    #[test]
    fn backoff_doubles_with_jitter_and_stays_capped() {
        let mall = HttpMall::new(HttpMallConfig::default()).expect("client");
        let policy = mall.retry_policy();
        assert_eq!(policy.max_retries, 2);
        for retry in 0..40 {
            let full = BACKOFF_BASE.saturating_mul(1 << retry.min(16)).min(BACKOFF_CAP);
            let pause = policy.delay(retry);
            assert!(pause >= full / 2 && pause <= full, "retry {retry}: {pause:?} vs {full:?}");
        }
        assert_eq!(policy.ceiling(1), Duration::from_millis(200));
    }

    #[test]
    fn retry_after_is_read_in_seconds_only() {
        let mut headers = HeaderMap::new();
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("2"));
        assert_eq!(retry_after(&headers), Some(Duration::from_secs(2)));
        headers.insert(header::RETRY_AFTER, HeaderValue::from_static("Wed, 21 Oct 2015 07:28:00 GMT"));
        assert_eq!(retry_after(&headers), None);
    }

    #[test]
    fn final_errors_say_which_call_and_how_often() {
        let call = mall("http://mall").request(Method::GET, &["api", "health"]).expect("url");
        let error =
            ServiceError::Unavailable { message: "timed out after 10s waiting for the answer".into() };
        assert_eq!(
            call.explain(error, 3, None).to_string(),
            "mall unavailable: GET /api/health: timed out after 10s waiting for the answer (3 attempts)"
        );
        let refused = ServiceError::Unavailable { message: "HTTP 429 Too Many Requests: ".into() };
        let explained = call.explain(refused, 1, Some(Duration::from_secs(60)));
        assert!(explained.to_string().ends_with("the mall asks to retry after 60 s"), "{explained}");
        assert_eq!(call.explain(ServiceError::CartEmpty, 3, None), ServiceError::CartEmpty);
    }
}
