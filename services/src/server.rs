//! The reference REST server of the mall contract: serves any [`MallApi`] over HTTP
//! (`mallbot mall-server`), answering every failure with the contract's error body.
//!
//! The bot's key guards every route but the staff ones (`/api/staff/…`),
//! which take the staff key and answer `403` on a server without one.
//! `docs/openapi.yaml` describes the contract as served.

use std::collections::HashMap;
use std::future::Future;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Bytes;
use axum::extract::path::ErrorKind;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{DefaultBodyLimit, FromRequest, FromRequestParts, Path, Query, Request, State};
use axum::handler::Handler;
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, Uri, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter, on};
use axum::{Json, Router};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use tracing::Instrument;

use crate::api::{IdempotencyKey, MallApi, Shopper};
use crate::error::ServiceError;
use crate::http::{IDEMPOTENCY_HEADER, SHOPPER_HEADER};
use crate::loyalty::{
    CarStay, Coupon, MyCoupon, ParkingFee, ParkingPayment, PayParking, Plate, PointsBalance, Redeem,
    Redemption,
};
use crate::models::{
    AddCartItem, Area, Cart, CreateOrder, EventPage, EventQuery, Health, InfoSection, MallEvent,
    MallPromotion, Order, Page, PageRequest, Product, ProductBrief, ProductQuery, Promotion, RecordPayment,
    Review, Route, Store, StoreQuery,
};

/// Largest request body the server reads (64 KiB); a larger one is answered `413`.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// The mall every handler serves.
type Mall = Arc<dyn MallApi>;

/// The REST API of the contract over `mall`. When `api_key` is a non-empty key,
/// every request must carry `Authorization: Bearer <key>`, except the staff
/// endpoints (`/api/staff/…`), which take `Authorization: Bearer <staff_key>`
/// instead and are refused (`403`) when `staff_key` is absent or empty.
pub fn router(mall: Arc<dyn MallApi>, api_key: Option<String>, staff_key: Option<String>) -> Router {
    let (staff, bot): (Vec<Endpoint>, Vec<Endpoint>) =
        endpoints().into_iter().partition(|endpoint| endpoint.access == Access::Staff);
    let bot_routes = bot
        .into_iter()
        .fold(Router::new(), |routes, endpoint| routes.route(endpoint.path, endpoint.handler))
        .method_not_allowed_fallback(method_not_allowed)
        .fallback(route_not_found);
    let bot_routes = match api_key.filter(|key| !key.is_empty()) {
        Some(key) => {
            bot_routes.layer(middleware::from_fn_with_state(ApiKey(Arc::from(key)), require_api_key))
        }
        None => bot_routes,
    };
    let staff_key = StaffKey(staff_key.filter(|key| !key.is_empty()).map(Arc::from));
    let staff_routes = staff
        .into_iter()
        .fold(Router::new(), |routes, endpoint| routes.route(endpoint.path, endpoint.handler))
        .method_not_allowed_fallback(method_not_allowed)
        .route_layer(middleware::from_fn_with_state(staff_key, require_staff_key));
    bot_routes
        .merge(staff_routes)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn(log_request))
        .with_state(mall)
}

/// Serves [`router`] on `listener` until `shutdown` completes, then finishes the
/// requests in flight.
pub async fn serve(
    listener: tokio::net::TcpListener,
    mall: Arc<dyn MallApi>,
    api_key: Option<String>,
    staff_key: Option<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    let authenticated = api_key.as_deref().is_some_and(|key| !key.is_empty());
    let staff = staff_key.as_deref().is_some_and(|key| !key.is_empty());
    tracing::info!(%address, authenticated, staff, "mall server listening");
    axum::serve(listener, router(mall, api_key, staff_key)).with_graceful_shutdown(shutdown).await?;
    tracing::info!(%address, "mall server stopped");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Routes

/// The HTTP methods the contract uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verb {
    Get,
    Post,
    Delete,
}

impl Verb {
    fn filter(self) -> MethodFilter {
        match self {
            Verb::Get => MethodFilter::GET,
            Verb::Post => MethodFilter::POST,
            Verb::Delete => MethodFilter::DELETE,
        }
    }

    fn as_str(self) -> &'static str {
        match self {
            Verb::Get => "GET",
            Verb::Post => "POST",
            Verb::Delete => "DELETE",
        }
    }
}

/// Whose key a route takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    /// The bot's credential (`api_key`).
    Bot,
    /// The store staff's key (`staff_key`).
    Staff,
}

/// One route of the contract and its handler.
struct Endpoint {
    verb: Verb,
    path: &'static str,
    access: Access,
    handler: MethodRouter<Mall>,
}

fn endpoint<H, T>(verb: Verb, path: &'static str, handler: H) -> Endpoint
where
    H: Handler<T, Mall>,
    T: 'static,
{
    Endpoint { verb, path, access: Access::Bot, handler: on(verb.filter(), handler) }
}

fn staff_endpoint<H, T>(verb: Verb, path: &'static str, handler: H) -> Endpoint
where
    H: Handler<T, Mall>,
    T: 'static,
{
    Endpoint { access: Access::Staff, ..endpoint(verb, path, handler) }
}

/// Every route the server answers, in the contract's order.
fn endpoints() -> Vec<Endpoint> {
    use Verb::{Delete, Get, Post};
    vec![
        endpoint(Get, "/api/health", health),
        endpoint(Get, "/api/products/search", search_products),
        endpoint(Get, "/api/products/{id}", get_product),
        endpoint(Get, "/api/stores/search", search_stores),
        endpoint(Get, "/api/stores/{id}", get_store),
        endpoint(Get, "/api/stores/{id}/promotions", store_promotions),
        endpoint(Get, "/api/stores/{id}/reviews", store_reviews),
        endpoint(Get, "/api/areas", list_areas),
        endpoint(Get, "/api/areas/{id}", get_area),
        endpoint(Get, "/api/navigation/route", route),
        endpoint(Get, "/api/cart", get_cart),
        endpoint(Post, "/api/cart/items", add_cart_item),
        endpoint(Delete, "/api/cart/items/{item_id}", remove_cart_item),
        endpoint(Delete, "/api/cart", clear_cart),
        endpoint(Post, "/api/orders", create_order),
        endpoint(Get, "/api/orders", list_orders),
        endpoint(Get, "/api/orders/{id}", get_order),
        endpoint(Post, "/api/orders/{id}/cancel", cancel_order),
        endpoint(Post, "/api/orders/{id}/payments", pay_order),
        endpoint(Get, "/api/events", events),
        endpoint(Get, "/api/mall/info", mall_info),
        endpoint(Get, "/api/mall/events", mall_events),
        endpoint(Get, "/api/mall/promotions", mall_promotions),
        endpoint(Get, "/api/parking/fee", parking_fee),
        endpoint(Post, "/api/parking/payments", pay_parking),
        endpoint(Get, "/api/me/plates", my_plates),
        endpoint(Post, "/api/me/plates", add_plate),
        endpoint(Delete, "/api/me/plates/{plate}", remove_plate),
        endpoint(Get, "/api/points", points),
        endpoint(Post, "/api/points/redemptions", redeem_points),
        endpoint(Get, "/api/coupons", list_coupons),
        endpoint(Post, "/api/coupons/{id}/claim", claim_coupon),
        endpoint(Get, "/api/me/coupons", my_coupons),
        staff_endpoint(Post, "/api/staff/orders/{id}/ready", mark_ready),
        staff_endpoint(Post, "/api/staff/orders/{id}/picked-up", mark_picked_up),
        staff_endpoint(Post, "/api/staff/products/{id}/stock", set_stock),
        staff_endpoint(Post, "/api/staff/products/{id}/price", set_price),
        staff_endpoint(Post, "/api/staff/parking/entries", car_entered),
        staff_endpoint(Post, "/api/staff/parking/exits", car_left),
    ]
}

/// `(method, path)` of every route the server answers.
pub fn served_routes() -> Vec<(&'static str, &'static str)> {
    endpoints().iter().map(|endpoint| (endpoint.verb.as_str(), endpoint.path)).collect()
}

// ---------------------------------------------------------------------------------------------
// Handlers

type ApiResult<T> = Result<Json<T>, ApiError>;

async fn health(State(mall): State<Mall>) -> ApiResult<Health> {
    Ok(Json(mall.health().await?))
}

async fn search_products(State(mall): State<Mall>, params: Params) -> ApiResult<Page<ProductBrief>> {
    let query = ProductQuery {
        keyword: params.text("keyword"),
        min_price_cents: params.number("min_price_cents")?,
        max_price_cents: params.number("max_price_cents")?,
        brand: params.text("brand"),
        category: params.text("category"),
        page: params.page()?,
    };
    Ok(Json(mall.search_products(&query).await?))
}

async fn get_product(State(mall): State<Mall>, PathId(id): PathId) -> ApiResult<Product> {
    Ok(Json(mall.get_product(&id).await?))
}

async fn search_stores(State(mall): State<Mall>, params: Params) -> ApiResult<Page<Store>> {
    let query = StoreQuery {
        keyword: params.text("keyword"),
        category: params.text("category"),
        floor: params.number("floor")?,
        page: params.page()?,
    };
    Ok(Json(mall.search_stores(&query).await?))
}

async fn get_store(State(mall): State<Mall>, PathId(id): PathId) -> ApiResult<Store> {
    Ok(Json(mall.get_store(&id).await?))
}

async fn store_promotions(State(mall): State<Mall>, PathId(id): PathId) -> ApiResult<Page<Promotion>> {
    Ok(Json(mall.store_promotions(&id).await?))
}

async fn store_reviews(
    State(mall): State<Mall>,
    PathId(id): PathId,
    params: Params,
) -> ApiResult<Page<Review>> {
    Ok(Json(mall.store_reviews(&id, params.page()?).await?))
}

async fn list_areas(State(mall): State<Mall>) -> ApiResult<Page<Area>> {
    Ok(Json(mall.list_areas().await?))
}

async fn get_area(State(mall): State<Mall>, PathId(id): PathId) -> ApiResult<Area> {
    Ok(Json(mall.get_area(&id).await?))
}

async fn route(State(mall): State<Mall>, params: Params) -> ApiResult<Route> {
    let to_store = params.required_text("to_store")?;
    Ok(Json(mall.route(&to_store, params.text("from")).await?))
}

async fn mall_info(State(mall): State<Mall>) -> ApiResult<Page<InfoSection>> {
    Ok(Json(mall.mall_info().await?))
}

async fn mall_events(State(mall): State<Mall>, params: Params) -> ApiResult<Page<MallEvent>> {
    let query = EventQuery { from: params.text("from"), to: params.text("to") };
    Ok(Json(mall.mall_events(&query).await?))
}

async fn mall_promotions(State(mall): State<Mall>) -> ApiResult<Page<MallPromotion>> {
    Ok(Json(mall.mall_promotions().await?))
}

async fn get_cart(State(mall): State<Mall>, Caller(shopper): Caller) -> ApiResult<Cart> {
    Ok(Json(mall.get_cart(&shopper).await?))
}

async fn add_cart_item(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    IdemKey(key): IdemKey,
    JsonBody(body): JsonBody<AddCartItemBody>,
) -> ApiResult<Cart> {
    let item = body.into_request()?;
    Ok(Json(mall.add_cart_item(&shopper, &item, key).await?))
}

async fn remove_cart_item(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    PathId(item_id): PathId,
    IdemKey(key): IdemKey,
) -> ApiResult<Cart> {
    Ok(Json(mall.remove_cart_item(&shopper, &item_id, key).await?))
}

async fn clear_cart(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    IdemKey(key): IdemKey,
) -> ApiResult<Cart> {
    Ok(Json(mall.clear_cart(&shopper, key).await?))
}

async fn create_order(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    IdemKey(key): IdemKey,
    JsonBody(body): JsonBody<CreateOrderBody>,
) -> Result<Response, ApiError> {
    let coupon = body.coupon_id.clone().filter(|c| !c.trim().is_empty());
    let order = body.into_request()?;
    Ok(match coupon {
        Some(coupon) => {
            let placed = mall.create_order_with_coupon(&shopper, &order, &coupon, key).await?;
            (StatusCode::CREATED, Json(placed)).into_response()
        }
        None => (StatusCode::CREATED, Json(mall.create_order(&shopper, &order, key).await?)).into_response(),
    })
}

async fn list_orders(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    params: Params,
) -> ApiResult<Page<Order>> {
    Ok(Json(mall.list_orders(&shopper, params.page()?).await?))
}

async fn get_order(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    PathId(id): PathId,
) -> ApiResult<Order> {
    Ok(Json(mall.get_order(&shopper, &id).await?))
}

async fn cancel_order(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    PathId(id): PathId,
    IdemKey(key): IdemKey,
) -> ApiResult<Order> {
    Ok(Json(mall.cancel_order(&shopper, &id, key).await?))
}

async fn pay_order(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    PathId(id): PathId,
    IdemKey(key): IdemKey,
    JsonBody(body): JsonBody<RecordPaymentBody>,
) -> ApiResult<Order> {
    let payment = body.into_request()?;
    Ok(Json(mall.pay_order(&shopper, &id, &payment, key).await?))
}

async fn events(State(mall): State<Mall>, params: Params) -> ApiResult<EventPage> {
    let limit = params.page()?.limit();
    Ok(Json(mall.events(params.text("after"), limit).await?))
}

async fn mark_ready(State(mall): State<Mall>, PathId(id): PathId) -> ApiResult<Order> {
    Ok(Json(mall.mark_ready(&id).await?))
}

async fn mark_picked_up(State(mall): State<Mall>, PathId(id): PathId) -> ApiResult<Order> {
    Ok(Json(mall.mark_picked_up(&id).await?))
}

async fn set_stock(
    State(mall): State<Mall>,
    PathId(id): PathId,
    JsonBody(body): JsonBody<SetStockBody>,
) -> ApiResult<Product> {
    let stock = body.stock.ok_or_else(|| invalid("stock", "stock is required (0 or more)"))?;
    Ok(Json(mall.set_stock(&id, body.sku_id.filter(|s| !s.trim().is_empty()), stock).await?))
}

async fn set_price(
    State(mall): State<Mall>,
    PathId(id): PathId,
    JsonBody(body): JsonBody<SetPriceBody>,
) -> ApiResult<Product> {
    let cents = body.price_cents.ok_or_else(|| invalid("price_cents", "price_cents is required (fen)"))?;
    if cents < 0 {
        return Err(invalid("price_cents", "a price cannot be negative"));
    }
    Ok(Json(mall.set_price(&id, body.sku_id.filter(|s| !s.trim().is_empty()), cents).await?))
}

async fn parking_fee(
    State(mall): State<Mall>,
    MaybeCaller(shopper): MaybeCaller,
    params: Params,
) -> ApiResult<ParkingFee> {
    let plate = params.required_text("plate")?;
    Ok(Json(mall.parking_fee(&plate, shopper.as_ref()).await?))
}

async fn pay_parking(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    IdemKey(key): IdemKey,
    JsonBody(body): JsonBody<PayParkingBody>,
) -> ApiResult<ParkingPayment> {
    let payment = PayParking {
        plate: required(body.plate, "plate")?,
        amount_cents: body
            .amount_cents
            .ok_or_else(|| invalid("amount_cents", "amount_cents is required (fen)"))?,
        charge_id: required(body.charge_id, "charge_id")?,
    };
    Ok(Json(mall.pay_parking(&shopper, &payment, key).await?))
}

async fn my_plates(State(mall): State<Mall>, Caller(shopper): Caller) -> ApiResult<Page<Plate>> {
    Ok(Json(mall.my_plates(&shopper).await?))
}

async fn add_plate(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    IdemKey(key): IdemKey,
    JsonBody(body): JsonBody<PlateBody>,
) -> ApiResult<Page<Plate>> {
    let plate = required(body.plate, "plate")?;
    Ok(Json(mall.add_plate(&shopper, &plate, key).await?))
}

async fn remove_plate(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    PathId(plate): PathId,
    IdemKey(key): IdemKey,
) -> ApiResult<Page<Plate>> {
    Ok(Json(mall.remove_plate(&shopper, &plate, key).await?))
}

async fn points(State(mall): State<Mall>, Caller(shopper): Caller) -> ApiResult<PointsBalance> {
    Ok(Json(mall.points(&shopper).await?))
}

async fn redeem_points(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    IdemKey(key): IdemKey,
    JsonBody(redeem): JsonBody<Redeem>,
) -> ApiResult<Redemption> {
    Ok(Json(mall.redeem_points(&shopper, &redeem, key).await?))
}

async fn list_coupons(State(mall): State<Mall>) -> ApiResult<Page<Coupon>> {
    Ok(Json(mall.list_coupons().await?))
}

async fn claim_coupon(
    State(mall): State<Mall>,
    Caller(shopper): Caller,
    PathId(id): PathId,
    IdemKey(key): IdemKey,
) -> ApiResult<MyCoupon> {
    Ok(Json(mall.claim_coupon(&shopper, &id, key).await?))
}

async fn my_coupons(State(mall): State<Mall>, Caller(shopper): Caller) -> ApiResult<Page<MyCoupon>> {
    Ok(Json(mall.my_coupons(&shopper).await?))
}

async fn car_entered(State(mall): State<Mall>, JsonBody(body): JsonBody<CarEntryBody>) -> ApiResult<CarStay> {
    let plate = required(body.plate, "plate")?;
    Ok(Json(mall.car_entered(&plate, body.entered_at.filter(|a| !a.trim().is_empty())).await?))
}

async fn car_left(State(mall): State<Mall>, JsonBody(body): JsonBody<PlateBody>) -> ApiResult<CarStay> {
    let plate = required(body.plate, "plate")?;
    Ok(Json(mall.car_left(&plate).await?))
}

async fn route_not_found(method: Method, uri: Uri) -> ApiError {
    ServiceError::not_found(format!("no such endpoint: {method} {}", uri.path())).into()
}

async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    let message = format!("method {method} is not allowed on {}", uri.path());
    ApiError {
        status: StatusCode::METHOD_NOT_ALLOWED,
        error: ServiceError::InvalidArgument { field: None, message },
    }
}

// ---------------------------------------------------------------------------------------------
// Request bodies

/// Body of `POST /api/cart/items` as sent; required fields are checked by name.
#[derive(Debug, Deserialize)]
struct AddCartItemBody {
    product_id: Option<String>,
    sku_id: Option<String>,
    quantity: Option<u32>,
}

impl AddCartItemBody {
    fn into_request(self) -> Result<AddCartItem, ApiError> {
        Ok(AddCartItem {
            product_id: required(self.product_id, "product_id")?,
            sku_id: self.sku_id.filter(|sku| !sku.trim().is_empty()),
            quantity: self.quantity.ok_or_else(|| invalid("quantity", "quantity is required (1-99)"))?,
        })
    }
}

/// Body of `POST /api/staff/products/{id}/stock` as sent.
#[derive(Debug, Deserialize)]
struct SetStockBody {
    sku_id: Option<String>,
    stock: Option<u32>,
}

/// Body of `POST /api/staff/products/{id}/price` as sent.
#[derive(Debug, Deserialize)]
struct SetPriceBody {
    sku_id: Option<String>,
    price_cents: Option<i64>,
}

/// Body of `POST /api/orders` as sent.
#[derive(Debug, Deserialize)]
struct CreateOrderBody {
    cart_id: Option<String>,
    expected_total_cents: Option<i64>,
    /// A coupon the shopper holds, to take its discount.
    coupon_id: Option<String>,
}

/// Body of `POST /api/parking/payments` as sent.
#[derive(Debug, Deserialize)]
struct PayParkingBody {
    plate: Option<String>,
    amount_cents: Option<i64>,
    charge_id: Option<String>,
}

/// Body of `POST /api/me/plates` and `POST /api/staff/parking/exits` as sent.
#[derive(Debug, Deserialize)]
struct PlateBody {
    plate: Option<String>,
}

/// Body of `POST /api/staff/parking/entries` as sent.
#[derive(Debug, Deserialize)]
struct CarEntryBody {
    plate: Option<String>,
    /// RFC 3339; now when absent.
    entered_at: Option<String>,
}

impl CreateOrderBody {
    fn into_request(self) -> Result<CreateOrder, ApiError> {
        Ok(CreateOrder {
            cart_id: required(self.cart_id, "cart_id")?,
            expected_total_cents: self.expected_total_cents,
        })
    }
}

/// Body of `POST /api/orders/{id}/payments` as sent.
#[derive(Debug, Deserialize)]
struct RecordPaymentBody {
    provider: Option<String>,
    amount_cents: Option<i64>,
    currency: Option<String>,
    charge_id: Option<String>,
}

impl RecordPaymentBody {
    fn into_request(self) -> Result<RecordPayment, ApiError> {
        Ok(RecordPayment {
            provider: required(self.provider, "provider")?,
            amount_cents: self
                .amount_cents
                .ok_or_else(|| invalid("amount_cents", "amount_cents is required (fen)"))?,
            currency: required(self.currency, "currency")?,
            charge_id: required(self.charge_id, "charge_id")?,
        })
    }
}

fn required(value: Option<String>, field: &str) -> Result<String, ApiError> {
    value.filter(|text| !text.trim().is_empty()).ok_or_else(|| invalid(field, format!("{field} is required")))
}

// ---------------------------------------------------------------------------------------------
// Errors

/// A failed request: an HTTP status and the contract's error body.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    error: ServiceError,
}

impl From<ServiceError> for ApiError {
    fn from(error: ServiceError) -> Self {
        let status = StatusCode::from_u16(error.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError { status, error }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() {
            tracing::error!(status = self.status.as_u16(), error = %self.error, "mall request failed");
        } else {
            tracing::debug!(status = self.status.as_u16(), error = %self.error, "mall request refused");
        }
        (self.status, Json(self.error.to_body())).into_response()
    }
}

fn invalid(field: &str, message: impl Into<String>) -> ApiError {
    ServiceError::invalid(field, message).into()
}

fn unauthorized(message: impl Into<String>) -> ApiError {
    ServiceError::Unauthorized { message: message.into() }.into()
}

// ---------------------------------------------------------------------------------------------
// Extractors

/// The shopper named by `X-Mall-User`; missing or empty → `401`.
struct Caller(Shopper);

impl<S: Send + Sync> FromRequestParts<S> for Caller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let value = parts
            .headers
            .get(SHOPPER_HEADER)
            .ok_or_else(|| unauthorized("the X-Mall-User header (<platform>:<id>) is required"))?;
        let shopper = value
            .to_str()
            .map(str::trim)
            .ok()
            .filter(|shopper| !shopper.is_empty())
            .ok_or_else(|| unauthorized("the X-Mall-User header must be <platform>:<id> in ASCII"))?;
        Ok(Caller(Shopper(shopper.to_owned())))
    }
}

/// The shopper named by `X-Mall-User`, when one is (the parking fee is asked for either way).
struct MaybeCaller(Option<Shopper>);

impl<S: Send + Sync> FromRequestParts<S> for MaybeCaller {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        if parts.headers.contains_key(SHOPPER_HEADER) {
            Ok(MaybeCaller(Some(Caller::from_request_parts(parts, state).await?.0)))
        } else {
            Ok(MaybeCaller(None))
        }
    }
}

/// The optional `Idempotency-Key`; empty, non-ASCII or longer than 128 characters → `400`.
struct IdemKey(Option<IdempotencyKey>);

impl<S: Send + Sync> FromRequestParts<S> for IdemKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        let Some(value) = parts.headers.get(IDEMPOTENCY_HEADER) else {
            return Ok(IdemKey(None));
        };
        let key = value
            .to_str()
            .ok()
            .filter(|key| !key.is_empty() && key.len() <= IdempotencyKey::MAX_LEN)
            .ok_or_else(|| {
            invalid(
                "Idempotency-Key",
                format!("Idempotency-Key must be 1-{} ASCII characters", IdempotencyKey::MAX_LEN),
            )
        })?;
        Ok(IdemKey(Some(IdempotencyKey(key.to_owned()))))
    }
}

/// The single path parameter of a route (a product, store, area, item or order id).
struct PathId(String);

impl<S: Send + Sync> FromRequestParts<S> for PathId {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, ApiError> {
        match Path::<String>::from_request_parts(parts, state).await {
            Ok(Path(id)) => Ok(PathId(id)),
            Err(rejection) => Err(path_rejection(rejection)),
        }
    }
}

fn path_rejection(rejection: PathRejection) -> ApiError {
    let field = match &rejection {
        PathRejection::FailedToDeserializePathParams(failure) => match failure.kind() {
            ErrorKind::InvalidUtf8InPathParam { key }
            | ErrorKind::ParseErrorAtKey { key, .. }
            | ErrorKind::DeserializeError { key, .. } => key.clone(),
            _ => "id".to_owned(),
        },
        _ => "id".to_owned(),
    };
    invalid(&field, format!("bad path parameter `{field}`: {}", rejection.body_text()))
}

/// The query string as name → value; typed access names the parameter on failure.
struct Params(HashMap<String, String>);

impl<S: Send + Sync> FromRequestParts<S> for Params {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        match Query::<HashMap<String, String>>::try_from_uri(&parts.uri) {
            Ok(Query(params)) => Ok(Params(params)),
            Err(rejection) => Err(ServiceError::InvalidArgument {
                field: None,
                message: format!("bad query string: {}", rejection.body_text()),
            }
            .into()),
        }
    }
}

impl Params {
    /// A text parameter; empty counts as absent.
    fn text(&self, name: &str) -> Option<String> {
        self.0.get(name).map(|value| value.trim()).filter(|value| !value.is_empty()).map(str::to_owned)
    }

    fn required_text(&self, name: &str) -> Result<String, ApiError> {
        self.text(name).ok_or_else(|| invalid(name, format!("query parameter `{name}` is required")))
    }

    /// A numeric parameter; present but not a number of type `T` → `400` naming it.
    fn number<T: FromStr>(&self, name: &str) -> Result<Option<T>, ApiError> {
        let Some(value) = self.text(name) else { return Ok(None) };
        value
            .parse()
            .map(Some)
            .map_err(|_| invalid(name, format!("query parameter `{name}` must be an integer, not {value:?}")))
    }

    /// `limit` (1-50) and `offset` (≥ 0).
    fn page(&self) -> Result<PageRequest, ApiError> {
        let limit: Option<u32> = self.number("limit")?;
        if let Some(limit) = limit.filter(|limit| !(1..=PageRequest::MAX_LIMIT).contains(limit)) {
            return Err(invalid(
                "limit",
                format!("query parameter `limit` must be 1-{}, not {limit}", PageRequest::MAX_LIMIT),
            ));
        }
        Ok(PageRequest { limit, offset: self.number("offset")? })
    }
}

/// A JSON request body of at most [`MAX_BODY_BYTES`]; a field of the wrong type → `400` naming it.
struct JsonBody<T>(T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let bytes = Bytes::from_request(request, state).await.map_err(body_rejection)?;
        parse_json(&bytes).map(JsonBody)
    }
}

fn body_rejection(rejection: BytesRejection) -> ApiError {
    let status = rejection.status();
    let message = if status == StatusCode::PAYLOAD_TOO_LARGE {
        format!("the request body is larger than {} KiB", MAX_BODY_BYTES / 1024)
    } else {
        format!("could not read the request body: {}", rejection.body_text())
    };
    ApiError { status, error: ServiceError::InvalidArgument { field: None, message } }
}

fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(body_shape_error)?;
    if !value.is_object() {
        return Err(body_shape_error(format!("found {}", json_kind(&value))));
    }
    serde_path_to_error::deserialize(value).map_err(|error| {
        let field = error.path().to_string();
        invalid(&field, format!("`{field}` has the wrong type or value: {}", error.into_inner()))
    })
}

fn json_kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}

fn body_shape_error(why: impl std::fmt::Display) -> ApiError {
    let message = format!("the request body must be one JSON object: {why}");
    ServiceError::InvalidArgument { field: None, message }.into()
}

// ---------------------------------------------------------------------------------------------
// Middleware

/// The key every request must present.
#[derive(Clone)]
struct ApiKey(Arc<str>);

async fn require_api_key(State(ApiKey(expected)): State<ApiKey>, request: Request, next: Next) -> Response {
    let presented = bearer_token(request.headers());
    let refusal = match presented {
        None => "an Authorization: Bearer <api key> header is required",
        Some(token) if !same_secret(token.as_bytes(), expected.as_bytes()) => "the API key is wrong",
        Some(_) => return next.run(request).await,
    };
    let mut response = unauthorized(refusal).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// The staff key the staff endpoints take; `None` when the server has none (they are closed).
#[derive(Clone)]
struct StaffKey(Option<Arc<str>>);

async fn require_staff_key(
    State(StaffKey(expected)): State<StaffKey>,
    request: Request,
    next: Next,
) -> Response {
    let Some(expected) = expected else {
        let error = ServiceError::Unauthorized {
            message: "staff endpoints are closed: this server has no staff key (mall.staff_key)".to_owned(),
        };
        return ApiError { status: StatusCode::FORBIDDEN, error }.into_response();
    };
    let presented = bearer_token(request.headers());
    let refusal = match presented {
        None => "an Authorization: Bearer <staff key> header is required",
        Some(token) if !same_secret(token.as_bytes(), expected.as_bytes()) => "the staff key is wrong",
        Some(_) => return next.run(request).await,
    };
    let mut response = unauthorized(refusal).into_response();
    response.headers_mut().insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    response
}

/// The token of an `Authorization: Bearer <token>` header, the scheme in any
/// case: the one reading of a bearer token for every HTTP surface (the mall
/// server, `/metrics`, `mallbot mcp --listen`).
pub fn bearer_token(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// Whether `headers` carry `Authorization: Bearer <expected>` (compared in
/// time that depends only on the lengths).
pub fn bearer_is(headers: &axum::http::HeaderMap, expected: &str) -> bool {
    bearer_token(headers).is_some_and(|token| same_secret(token.as_bytes(), expected.as_bytes()))
}

/// Compares two secrets in time that depends only on their lengths.
pub fn same_secret(presented: &[u8], expected: &[u8]) -> bool {
    presented.len() == expected.len()
        && presented.iter().zip(expected).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

/// One span and one log line per request: method, path, status and duration.
async fn log_request(request: Request, next: Next) -> Response {
    let started = Instant::now();
    let span = tracing::info_span!("mall_request", method = %request.method(), path = %request.uri().path());
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status().as_u16();
    let duration_ms = started.elapsed().as_secs_f64() * 1000.0;
    span.in_scope(|| tracing::info!(status, duration_ms, "request served"));
    response
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use async_trait::async_trait;
    use serde_json::{Value, json};

    use super::*;
    use crate::api::{MallResult, MockMallApi};

    /// The staff key of every test server.
    const STAFF_KEY: &str = "staff-7";

    /// A running server on loopback; stops when dropped.
    struct TestServer {
        base: String,
        client: reqwest::Client,
        _stop: tokio::sync::oneshot::Sender<()>,
    }

    impl TestServer {
        async fn start(mall: impl MallApi + 'static, api_key: Option<&str>) -> TestServer {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let base = format!("http://{}", listener.local_addr().unwrap());
            let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
            let shutdown = async move {
                let _ = stopped.await;
            };
            let staff_key = Some(STAFF_KEY.to_owned());
            tokio::spawn(serve(listener, Arc::new(mall), api_key.map(str::to_owned), staff_key, shutdown));
            TestServer { base, client: reqwest::Client::new(), _stop: stop }
        }

        fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
            self.client.request(method, format!("{}{path}", self.base))
        }

        /// Sends as shopper `telegram:1` and returns the status and the JSON body.
        async fn shopper_call(&self, request: reqwest::RequestBuilder) -> (u16, Value) {
            let response = request.header("X-Mall-User", "telegram:1").send().await.unwrap();
            let status = response.status().as_u16();
            (status, response.json().await.unwrap())
        }
    }

    fn error_of(body: &Value) -> (&str, Option<&str>) {
        (body["error"]["code"].as_str().unwrap(), body["error"]["details"]["field"].as_str())
    }

    /// A mall whose every method fails with `CONFLICT` carrying the method's name.
    struct NamingMall;

    fn named<T>(method: &str) -> MallResult<T> {
        Err(ServiceError::Conflict { message: method.to_owned() })
    }

    #[async_trait]
    impl MallApi for NamingMall {
        async fn health(&self) -> MallResult<Health> {
            named("health")
        }
        async fn search_products(&self, _: &ProductQuery) -> MallResult<Page<ProductBrief>> {
            named("search_products")
        }
        async fn get_product(&self, _: &str) -> MallResult<Product> {
            named("get_product")
        }
        async fn search_stores(&self, _: &StoreQuery) -> MallResult<Page<Store>> {
            named("search_stores")
        }
        async fn get_store(&self, _: &str) -> MallResult<Store> {
            named("get_store")
        }
        async fn store_promotions(&self, _: &str) -> MallResult<Page<Promotion>> {
            named("store_promotions")
        }
        async fn store_reviews(&self, _: &str, _: PageRequest) -> MallResult<Page<Review>> {
            named("store_reviews")
        }
        async fn list_areas(&self) -> MallResult<Page<Area>> {
            named("list_areas")
        }
        async fn get_area(&self, _: &str) -> MallResult<Area> {
            named("get_area")
        }
        async fn route(&self, _: &str, _: Option<String>) -> MallResult<Route> {
            named("route")
        }
        async fn get_cart(&self, _: &Shopper) -> MallResult<Cart> {
            named("get_cart")
        }
        async fn add_cart_item(
            &self,
            _: &Shopper,
            _: &AddCartItem,
            _: Option<IdempotencyKey>,
        ) -> MallResult<Cart> {
            named("add_cart_item")
        }
        async fn remove_cart_item(
            &self,
            _: &Shopper,
            _: &str,
            _: Option<IdempotencyKey>,
        ) -> MallResult<Cart> {
            named("remove_cart_item")
        }
        async fn clear_cart(&self, _: &Shopper, _: Option<IdempotencyKey>) -> MallResult<Cart> {
            named("clear_cart")
        }
        async fn create_order(
            &self,
            _: &Shopper,
            _: &CreateOrder,
            _: Option<IdempotencyKey>,
        ) -> MallResult<Order> {
            named("create_order")
        }
        async fn list_orders(&self, _: &Shopper, _: PageRequest) -> MallResult<Page<Order>> {
            named("list_orders")
        }
        async fn get_order(&self, _: &Shopper, _: &str) -> MallResult<Order> {
            named("get_order")
        }
        async fn cancel_order(&self, _: &Shopper, _: &str, _: Option<IdempotencyKey>) -> MallResult<Order> {
            named("cancel_order")
        }
        async fn pay_order(
            &self,
            _: &Shopper,
            _: &str,
            _: &RecordPayment,
            _: Option<IdempotencyKey>,
        ) -> MallResult<Order> {
            named("pay_order")
        }
        async fn events(&self, _: Option<String>, _: u32) -> MallResult<EventPage> {
            named("events")
        }
        async fn mark_ready(&self, _: &str) -> MallResult<Order> {
            named("mark_ready")
        }
        async fn mark_picked_up(&self, _: &str) -> MallResult<Order> {
            named("mark_picked_up")
        }
        async fn set_stock(&self, _: &str, _: Option<String>, _: u32) -> MallResult<Product> {
            named("set_stock")
        }
        async fn set_price(&self, _: &str, _: Option<String>, _: i64) -> MallResult<Product> {
            named("set_price")
        }
        async fn mall_info(&self) -> MallResult<Page<InfoSection>> {
            named("mall_info")
        }
        async fn mall_events(&self, _: &EventQuery) -> MallResult<Page<MallEvent>> {
            named("mall_events")
        }
        async fn mall_promotions(&self) -> MallResult<Page<MallPromotion>> {
            named("mall_promotions")
        }
        async fn parking_fee<'a>(&self, _: &str, _: Option<&'a Shopper>) -> MallResult<ParkingFee> {
            named("parking_fee")
        }
        async fn pay_parking(
            &self,
            _: &Shopper,
            _: &PayParking,
            _: Option<IdempotencyKey>,
        ) -> MallResult<ParkingPayment> {
            named("pay_parking")
        }
        async fn car_entered(&self, _: &str, _: Option<String>) -> MallResult<CarStay> {
            named("car_entered")
        }
        async fn car_left(&self, _: &str) -> MallResult<CarStay> {
            named("car_left")
        }
        async fn my_plates(&self, _: &Shopper) -> MallResult<Page<Plate>> {
            named("my_plates")
        }
        async fn add_plate(
            &self,
            _: &Shopper,
            _: &str,
            _: Option<IdempotencyKey>,
        ) -> MallResult<Page<Plate>> {
            named("add_plate")
        }
        async fn remove_plate(
            &self,
            _: &Shopper,
            _: &str,
            _: Option<IdempotencyKey>,
        ) -> MallResult<Page<Plate>> {
            named("remove_plate")
        }
        async fn points(&self, _: &Shopper) -> MallResult<PointsBalance> {
            named("points")
        }
        async fn redeem_points(
            &self,
            _: &Shopper,
            _: &Redeem,
            _: Option<IdempotencyKey>,
        ) -> MallResult<Redemption> {
            named("redeem_points")
        }
        async fn list_coupons(&self) -> MallResult<Page<Coupon>> {
            named("list_coupons")
        }
        async fn claim_coupon(
            &self,
            _: &Shopper,
            _: &str,
            _: Option<IdempotencyKey>,
        ) -> MallResult<MyCoupon> {
            named("claim_coupon")
        }
        async fn my_coupons(&self, _: &Shopper) -> MallResult<Page<MyCoupon>> {
            named("my_coupons")
        }
    }

    /// Every route of the contract, a request that reaches it, and the mall method it calls.
    const ROUTE_CASES: &[(&str, &str, &str, &str)] = &[
        ("GET", "/api/health", "", "health"),
        ("GET", "/api/products/search", "?keyword=x", "search_products"),
        ("GET", "/api/products/{id}", "", "get_product"),
        ("GET", "/api/stores/search", "", "search_stores"),
        ("GET", "/api/stores/{id}", "", "get_store"),
        ("GET", "/api/stores/{id}/promotions", "", "store_promotions"),
        ("GET", "/api/stores/{id}/reviews", "", "store_reviews"),
        ("GET", "/api/areas", "", "list_areas"),
        ("GET", "/api/areas/{id}", "", "get_area"),
        ("GET", "/api/navigation/route", "?to_store=s1", "route"),
        ("GET", "/api/cart", "", "get_cart"),
        ("POST", "/api/cart/items", r#"{"product_id":"p1","quantity":1}"#, "add_cart_item"),
        ("DELETE", "/api/cart/items/{item_id}", "", "remove_cart_item"),
        ("DELETE", "/api/cart", "", "clear_cart"),
        ("POST", "/api/orders", r#"{"cart_id":"c1"}"#, "create_order"),
        ("GET", "/api/orders", "", "list_orders"),
        ("GET", "/api/orders/{id}", "", "get_order"),
        ("POST", "/api/orders/{id}/cancel", "", "cancel_order"),
        (
            "POST",
            "/api/orders/{id}/payments",
            r#"{"provider":"telegram","amount_cents":100,"currency":"CNY","charge_id":"ch-1"}"#,
            "pay_order",
        ),
        ("GET", "/api/events", "?after=5", "events"),
        ("GET", "/api/mall/info", "", "mall_info"),
        ("GET", "/api/mall/events", "?from=2026-11-28T00:00:00%2B08:00", "mall_events"),
        ("GET", "/api/mall/promotions", "", "mall_promotions"),
        ("GET", "/api/parking/fee", "?plate=AB1234", "parking_fee"),
        (
            "POST",
            "/api/parking/payments",
            r#"{"plate":"沪A12345","amount_cents":1000,"charge_id":"ch-1"}"#,
            "pay_parking",
        ),
        ("GET", "/api/me/plates", "", "my_plates"),
        ("POST", "/api/me/plates", r#"{"plate":"沪A12345"}"#, "add_plate"),
        ("DELETE", "/api/me/plates/{plate}", "", "remove_plate"),
        ("GET", "/api/points", "", "points"),
        ("POST", "/api/points/redemptions", r#"{"for":"coupon","coupon_id":"cp-1"}"#, "redeem_points"),
        ("GET", "/api/coupons", "", "list_coupons"),
        ("POST", "/api/coupons/{id}/claim", "", "claim_coupon"),
        ("GET", "/api/me/coupons", "", "my_coupons"),
        ("POST", "/api/staff/orders/{id}/ready", "", "mark_ready"),
        ("POST", "/api/staff/orders/{id}/picked-up", "", "mark_picked_up"),
        ("POST", "/api/staff/products/{id}/stock", r#"{"sku_id":"k1","stock":3}"#, "set_stock"),
        ("POST", "/api/staff/products/{id}/price", r#"{"price_cents":39900}"#, "set_price"),
        ("POST", "/api/staff/parking/entries", r#"{"plate":"沪A12345"}"#, "car_entered"),
        ("POST", "/api/staff/parking/exits", r#"{"plate":"沪A12345"}"#, "car_left"),
    ];

    #[test]
    fn the_route_cases_cover_exactly_the_served_routes() {
        let mut cases: Vec<_> = ROUTE_CASES.iter().map(|(method, path, _, _)| (*method, *path)).collect();
        let mut served = served_routes();
        cases.sort();
        served.sort();
        assert_eq!(cases, served);
    }

    #[tokio::test]
    async fn every_route_reaches_its_mall_method() {
        let server = TestServer::start(NamingMall, None).await;
        for (method, path, extra, expected) in ROUTE_CASES {
            let path = path.replace("{id}", "x1").replace("{item_id}", "i1").replace("{plate}", "AB1234");
            let method = Method::from_bytes(method.as_bytes()).unwrap();
            let request = match extra.strip_prefix('?') {
                Some(query) => server.request(method.clone(), &format!("{path}?{query}")),
                None => server.request(method.clone(), &path).body(extra.to_string()),
            };
            let request =
                if path.starts_with("/api/staff/") { request.bearer_auth(STAFF_KEY) } else { request };
            let (status, body) = server.shopper_call(request).await;
            assert_eq!(status, 409, "{method} {path}: {body}");
            assert_eq!(body["error"]["message"], *expected, "{method} {path}");
        }
    }

    #[test]
    fn the_openapi_document_describes_every_served_route() {
        let yaml = include_str!("../../docs/openapi.yaml");
        let documented = openapi_operations(yaml);
        for (method, path) in served_routes() {
            assert!(
                documented.contains(&(method.to_owned(), path.to_owned())),
                "docs/openapi.yaml lacks {method} {path}; it has {documented:?}"
            );
        }
        assert_eq!(documented.len(), served_routes().len(), "documented but not served: {documented:?}");
    }

    /// `(METHOD, path)` pairs of an OpenAPI document: paths indented two spaces under `paths:`,
    /// operations four.
    fn openapi_operations(yaml: &str) -> Vec<(String, String)> {
        let mut operations = Vec::new();
        let mut in_paths = false;
        let mut path = None;
        for line in yaml.lines() {
            if !line.starts_with(' ') && !line.trim().is_empty() {
                in_paths = line.trim_end() == "paths:";
                continue;
            }
            if !in_paths {
                continue;
            }
            if let Some(p) = line.strip_prefix("  /").and_then(|rest| rest.strip_suffix(':')) {
                path = Some(format!("/{}", p.trim_matches('"')));
            } else if let Some(verb) = line.strip_prefix("    ").and_then(|rest| rest.strip_suffix(':'))
                && let (Some(path), "get" | "post" | "delete" | "put" | "patch") = (&path, verb)
            {
                operations.push((verb.to_uppercase(), path.clone()));
            }
        }
        operations
    }

    #[tokio::test]
    async fn search_parameters_reach_the_mall_with_their_contract_names() {
        let mut mall = MockMallApi::new();
        mall.expect_search_products()
            .withf(|q| {
                *q == ProductQuery {
                    keyword: Some("Nike 跑鞋".into()),
                    min_price_cents: Some(10_000),
                    max_price_cents: Some(50_000),
                    brand: Some("Nike".into()),
                    category: Some("shoes".into()),
                    page: PageRequest { limit: Some(5), offset: Some(10) },
                }
            })
            .returning(|_| Ok(Page { items: vec![], total: 7 }));
        let server = TestServer::start(mall, None).await;
        let (status, body) = server
            .shopper_call(server.request(Method::GET, "/api/products/search").query(&[
                ("keyword", "Nike 跑鞋"),
                ("min_price_cents", "10000"),
                ("max_price_cents", "50000"),
                ("brand", "Nike"),
                ("category", "shoes"),
                ("limit", "5"),
                ("offset", "10"),
            ]))
            .await;
        assert_eq!((status, body), (200, json!({"items": [], "total": 7})));
    }

    #[tokio::test]
    async fn bad_query_parameters_are_refused_by_name() {
        let server = TestServer::start(NamingMall, None).await;
        for (path, field) in [
            ("/api/products/search?limit=0", "limit"),
            ("/api/products/search?limit=51", "limit"),
            ("/api/products/search?offset=-1", "offset"),
            ("/api/products/search?min_price_cents=cheap", "min_price_cents"),
            ("/api/stores/search?floor=B1", "floor"),
            ("/api/stores/s1/reviews?limit=2.5", "limit"),
            ("/api/orders?limit=abc", "limit"),
            ("/api/navigation/route?from=main_entrance", "to_store"),
        ] {
            let (status, body) = server.shopper_call(server.request(Method::GET, path)).await;
            assert_eq!((status, error_of(&body)), (400, ("INVALID_ARGUMENT", Some(field))), "{path}: {body}");
        }
    }

    #[tokio::test]
    async fn bad_bodies_are_refused_naming_the_field_when_there_is_one() {
        let server = TestServer::start(NamingMall, None).await;
        for (path, body, field) in [
            ("/api/cart/items", r#"{"product_id":"p1","quantity":"two"}"#, Some("quantity")),
            ("/api/cart/items", r#"{"product_id":"p1","quantity":-1}"#, Some("quantity")),
            ("/api/cart/items", r#"{"quantity":1}"#, Some("product_id")),
            ("/api/cart/items", r#"{"product_id":"p1"}"#, Some("quantity")),
            ("/api/cart/items", r#"{"product_id":7,"quantity":1}"#, Some("product_id")),
            (
                "/api/orders",
                r#"{"cart_id":"c1","expected_total_cents":"lots"}"#,
                Some("expected_total_cents"),
            ),
            ("/api/orders", r#"{}"#, Some("cart_id")),
            ("/api/orders", r#"[1, 2]"#, None),
            ("/api/orders", r#"{"cart_id":"c1"} trailing"#, None),
            ("/api/orders", "", None),
        ] {
            let (status, answer) = server.shopper_call(server.request(Method::POST, path).body(body)).await;
            assert_eq!((status, error_of(&answer)), (400, ("INVALID_ARGUMENT", field)), "{body}: {answer}");
        }
    }

    #[tokio::test]
    async fn the_shopper_and_the_idempotency_key_reach_the_mall_and_orders_answer_201() {
        let mut mall = MockMallApi::new();
        mall.expect_create_order()
            .withf(|shopper, order, key| {
                shopper.as_str() == "telegram:1"
                    && *order == CreateOrder { cart_id: "c1".into(), expected_total_cents: Some(4200) }
                    && key.as_ref().map(IdempotencyKey::as_str) == Some("confirm-77")
            })
            .returning(|_, _, _| {
                Ok(Order {
                    order_id: "o1".into(),
                    status: crate::models::OrderStatus::PendingPayment,
                    items: vec![],
                    total_cents: 4200,
                    currency: "CNY".into(),
                    created_at: "2025-01-01T00:00:00Z".into(),
                    expires_at: None,
                    pickup_store_id: "s1".into(),
                    payment: None,
                    refund: None,
                    subtotal_cents: None,
                    discount_cents: None,
                    coupon_id: None,
                })
            });
        let server = TestServer::start(mall, None).await;
        let request = server
            .request(Method::POST, "/api/orders")
            .header("Idempotency-Key", "confirm-77")
            .json(&json!({"cart_id": "c1", "expected_total_cents": 4200}));
        let (status, body) = server.shopper_call(request).await;
        assert_eq!(status, 201);
        assert_eq!(
            (body["order_id"].as_str(), body["status"].as_str()),
            (Some("o1"), Some("PENDING_PAYMENT"))
        );
    }

    #[tokio::test]
    async fn an_idempotency_key_over_128_characters_is_refused_by_name() {
        let server = TestServer::start(NamingMall, None).await;
        let request = server.request(Method::DELETE, "/api/cart").header("Idempotency-Key", "k".repeat(129));
        let (status, body) = server.shopper_call(request).await;
        assert_eq!((status, error_of(&body)), (400, ("INVALID_ARGUMENT", Some("Idempotency-Key"))));
        let request = server.request(Method::DELETE, "/api/cart").header("Idempotency-Key", "k".repeat(128));
        let (status, body) = server.shopper_call(request).await;
        assert_eq!((status, body["error"]["message"].as_str()), (409, Some("clear_cart")));
    }

    #[tokio::test]
    async fn a_wrong_method_is_405_with_the_error_body_and_allow() {
        let server = TestServer::start(NamingMall, None).await;
        let response = server.request(Method::PUT, "/api/orders").send().await.unwrap();
        assert_eq!(response.status().as_u16(), 405);
        let allow = response.headers().get("allow").unwrap().to_str().unwrap().to_owned();
        assert!(allow.contains("GET") && allow.contains("POST"), "{allow}");
        let body: Value = response.json().await.unwrap();
        assert_eq!(body["error"]["code"], "INVALID_ARGUMENT");
        assert_eq!(body["error"]["message"], "method PUT is not allowed on /api/orders");
    }

    #[tokio::test]
    async fn mall_errors_keep_their_status_code_and_details() {
        let mut mall = MockMallApi::new();
        mall.expect_create_order().returning(|_, _, _| {
            Err(ServiceError::PriceChanged { total_cents: 51_800, message: "the total changed".into() })
        });
        mall.expect_get_product()
            .returning(|_| Err(ServiceError::Unavailable { message: "database offline".into() }));
        let server = TestServer::start(mall, None).await;
        let request = server.request(Method::POST, "/api/orders").json(&json!({"cart_id": "c1"}));
        let (status, body) = server.shopper_call(request).await;
        assert_eq!(status, 409);
        assert_eq!(body["error"]["code"], "PRICE_CHANGED");
        assert_eq!(body["error"]["details"]["total_cents"], 51_800);
        let (status, body) = server.shopper_call(server.request(Method::GET, "/api/products/p1")).await;
        assert_eq!((status, body["error"]["code"].as_str()), (500, Some("INTERNAL")));
    }

    #[tokio::test]
    async fn the_right_key_passes_and_a_lowercase_scheme_is_accepted() {
        let server = TestServer::start(NamingMall, Some("k-123")).await;
        for value in ["Bearer k-123", "bearer k-123"] {
            let request = server.request(Method::GET, "/api/health").header("Authorization", value);
            let (status, body) = server.shopper_call(request).await;
            assert_eq!((status, body["error"]["message"].as_str()), (409, Some("health")), "{value}");
        }
        let response = server.request(Method::GET, "/api/health").bearer_auth("k-12").send().await.unwrap();
        assert_eq!(response.status().as_u16(), 401);
        assert_eq!(response.headers().get("www-authenticate").unwrap(), "Bearer");
    }

    #[tokio::test]
    async fn an_empty_key_means_no_authentication() {
        let server = TestServer::start(NamingMall, Some("")).await;
        let (status, _) = server.shopper_call(server.request(Method::GET, "/api/health")).await;
        assert_eq!(status, 409);
    }

    #[test]
    fn secrets_compare_by_content_and_length() {
        assert!(same_secret(b"abc", b"abc"));
        assert!(!same_secret(b"abc", b"abd"));
        assert!(!same_secret(b"abc", b"abcd"));
        assert!(!same_secret(b"", b"a"));
    }
}
