//! The Mini App: the mall as Telegram shows it in a web view — a map to
//! touch, the directory, the shopper's cart and orders.
//!
//! Static HTML, CSS and JavaScript compiled into the binary (`assets/`), and
//! a JSON API under `/webapp/api/` that runs the same tools and the same
//! `MallApi` as the chat (their typed results), never a second copy of the
//! mall logic. The shopper is the `user.id` of Telegram's `initData`
//! (`Authorization: tma …`, checked in `auth.rs`); the map and directory
//! work without it. What is the shopper's own passes the router's door
//! (allow-lists; a change also the rate limit), as a chat message does.
//! Cart and order changes keep their levels: a confirm or critical tool is
//! held by the router's confirmation service and answers with what it will
//! do and a one-time token, and acts only when its owner sends the token
//! back. An error answers the shopper's words and an id; its detail goes to
//! the log under that id.

pub mod auth;
pub mod floors;
mod texts;

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{DefaultBodyLimit, Path, Query, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use bytes::Bytes;
use handlers::{Lang, Level, ToolContext, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::app::App;
use crate::engine::reply::PressCheck;
use crate::engine::router::{Admitted, Carried, HoldError, Knock, Presser, Way, Why};
pub use auth::InitDataCheck;
pub(crate) use auth::{InitDataError, WebUser};
use floors::MapViews;

/// The most a request body may weigh: a cart or order change is a few
/// hundred bytes.
const MAX_BODY: usize = 16 * 1024;

/// The tools the page may run for a shopper: the cart and orders.
const ACTIONS: &[&str] = &["add_to_cart", "remove_from_cart", "clear_cart", "create_order", "cancel_order"];

/// The Mini App's shared state.
#[derive(Clone)]
pub struct WebApp {
    app: App,
    /// Checks `initData`; absent without a bot token (the cart then says
    /// to open the page in Telegram).
    check: Option<InitDataCheck>,
    views: Option<Arc<MapViews>>,
    /// The Bot API, for invoice links (`mallbot run` with payments on).
    bot: Option<teloxide::Bot>,
}

impl WebApp {
    /// The Mini App of `app`; `bot` makes invoices when payments are on.
    pub fn new(app: App, bot: Option<teloxide::Bot>) -> WebApp {
        let token = app.config.telegram.token.expose();
        let check =
            (!token.is_empty()).then(|| InitDataCheck::new(token, app.config.webapp.init_data_max_age_secs));
        let views = app.router.map().map(|router| Arc::new(MapViews::new(router.clone())));
        WebApp { app, check, views, bot }
    }
}

/// The routes: the page under `/webapp/`, the API under `/webapp/api/`.
pub fn router(web: WebApp) -> axum::Router {
    axum::Router::new()
        .route("/", get(|| async { axum::response::Redirect::temporary("/webapp/") }))
        .route("/webapp", get(|| async { axum::response::Redirect::permanent("/webapp/") }))
        .route("/webapp/", get(page))
        .route("/webapp/app.js", get(script))
        .route("/webapp/app.css", get(style))
        .route("/webapp/api/texts", get(ui_texts))
        .route("/webapp/api/floors", get(floor_list))
        .route("/webapp/api/floors/{floor}/svg", get(floor_svg))
        .route("/webapp/api/route", get(route))
        .route("/webapp/api/facility", get(facility_route))
        .route("/webapp/api/stores", get(directory))
        .route("/webapp/api/stores/{id}", get(store_card))
        .route("/webapp/api/me", get(me))
        .route("/webapp/api/cart", get(cart))
        .route("/webapp/api/orders", get(orders))
        .route("/webapp/api/actions", post(start_action))
        .route("/webapp/api/actions/{token}", post(confirm_action))
        .route("/webapp/api/orders/{id}/invoice", post(invoice_link))
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(web)
}

/// Serves the Mini App on `listener` until `shutdown` completes.
pub async fn serve(
    web: WebApp,
    listener: tokio::net::TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let address = listener.local_addr()?;
    tracing::info!(%address, "Mini App listening");
    axum::serve(listener, router(web)).with_graceful_shutdown(shutdown).await
}

// ---------------------------------------------------------------------------------------------
// The page

static PAGE: &str = include_str!("assets/index.html");
static SCRIPT: &str = include_str!("assets/app.js");
static STYLE: &str = include_str!("assets/app.css");

/// An asset, gzip-compressed once and sent compressed when the browser takes it.
struct Asset {
    plain: Bytes,
    gzip: Bytes,
    content_type: &'static str,
}

fn asset(which: &'static str) -> &'static Asset {
    static ASSETS: std::sync::OnceLock<[Asset; 3]> = std::sync::OnceLock::new();
    let all = ASSETS.get_or_init(|| {
        let make = |text: &'static str, content_type| Asset {
            plain: Bytes::from_static(text.as_bytes()),
            gzip: floors::gzip(text.as_bytes()),
            content_type,
        };
        [
            make(PAGE, "text/html; charset=utf-8"),
            make(SCRIPT, "text/javascript; charset=utf-8"),
            make(STYLE, "text/css; charset=utf-8"),
        ]
    });
    match which {
        "js" => &all[1],
        "css" => &all[2],
        _ => &all[0],
    }
}

fn takes_gzip(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")))
}

/// `plain` or `gzip` as the browser takes it, with its type and caching.
fn send_bytes(headers: &HeaderMap, plain: &Bytes, gzip: &Bytes, content_type: &str, cache: &str) -> Response {
    let mut response = if takes_gzip(headers) {
        let mut r = gzip.clone().into_response();
        r.headers_mut().insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        r
    } else {
        plain.clone().into_response()
    };
    let h = response.headers_mut();
    h.insert(header::VARY, HeaderValue::from_static("accept-encoding"));
    if let Ok(v) = HeaderValue::from_str(content_type) {
        h.insert(header::CONTENT_TYPE, v);
    }
    if let Ok(v) = HeaderValue::from_str(cache) {
        h.insert(header::CACHE_CONTROL, v);
    }
    response
}

async fn page(headers: HeaderMap) -> Response {
    let a = asset("html");
    let mut response = send_bytes(&headers, &a.plain, &a.gzip, a.content_type, "no-cache");
    // Everything the page loads is its own: no third-party script can run.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors https://web.telegram.org https://*.telegram.org 'self'",
        ),
    );
    response
}

async fn script(headers: HeaderMap) -> Response {
    let a = asset("js");
    send_bytes(&headers, &a.plain, &a.gzip, a.content_type, "no-cache")
}

async fn style(headers: HeaderMap) -> Response {
    let a = asset("css");
    send_bytes(&headers, &a.plain, &a.gzip, a.content_type, "no-cache")
}

// ---------------------------------------------------------------------------------------------
// Who is asking, in which language

/// `?lang=` of a request.
#[derive(Debug, Default, Deserialize)]
struct LangQuery {
    lang: Option<String>,
}

/// An API error: its status and `{"error": …}` in the shopper's words,
/// with what the page can act on (`extra`: the closest names of a store not
/// found) and, for a failure, the `id` its detail is logged under.
#[derive(Debug)]
struct ApiError {
    status: StatusCode,
    message: String,
    extra: Value,
    id: Option<String>,
}

impl ApiError {
    fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), extra: Value::Null, id: None }
    }

    /// A failed tool call: the shopper's words and an id; the error's own
    /// text (a mall route, a connection error, retries) only in the log.
    fn tool(e: &ToolError, lang: Lang) -> ApiError {
        let texts = texts::of(lang);
        let (status, message) = match e {
            ToolError::InvalidArguments { .. } => (StatusCode::BAD_REQUEST, texts.invalid),
            ToolError::NotFound(_) => (StatusCode::NOT_FOUND, texts.not_found),
            ToolError::Refused { .. } => (StatusCode::CONFLICT, texts.refused),
            ToolError::NotAllowed(_) => (StatusCode::FORBIDDEN, texts.refused),
            ToolError::Upstream(_) | ToolError::Timeout(_) | ToolError::Service { .. } => {
                (StatusCode::SERVICE_UNAVAILABLE, texts.mall_down)
            }
        };
        let id = crate::engine::stats::new_error_id();
        if status.is_server_error() {
            tracing::warn!(error_id = %id, error = %e, "Mini App request failed");
        } else {
            tracing::info!(error_id = %id, error = %e, "Mini App request refused");
        }
        ApiError { status, message: message.to_owned(), extra: Value::Null, id: Some(id) }
    }

    /// A failure inside (the state store…): the shopper's words and an id.
    fn failed(lang: Lang, what: &str) -> ApiError {
        let id = crate::engine::stats::new_error_id();
        tracing::error!(error_id = %id, "Mini App request failed: {what}");
        ApiError { id: Some(id), ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, texts::of(lang).mall_down) }
    }

    /// The door turned the request away: `403` off the allow-lists, `429`
    /// over the rate limit.
    fn turned(turned: &crate::engine::router::Turned) -> ApiError {
        let status = match turned.why {
            Why::NotAllowed => StatusCode::FORBIDDEN,
            Why::SlowDown => StatusCode::TOO_MANY_REQUESTS,
        };
        ApiError::new(status, turned.message())
    }

    /// A body the API cannot read: too large (`413`), or not the JSON asked for.
    fn body(rejection: &JsonRejection, lang: Lang) -> ApiError {
        let status = rejection.status();
        tracing::info!(status = status.as_u16(), error = %rejection.body_text(), "Mini App body refused");
        match status {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(status, lang.texts().confirm.too_large),
            _ => ApiError::new(status, texts::of(lang).invalid),
        }
    }

    /// A change that could not be held for confirmation.
    fn hold(e: HoldError, lang: Lang) -> ApiError {
        match e {
            HoldError::Invalid(e) | HoldError::Tool(e) => ApiError::tool(&e, lang),
            HoldError::TooLarge => {
                ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, lang.texts().confirm.too_large)
            }
            // The page cannot ask the one-time code: the order is placed in the chat.
            HoldError::CodeInChat => ApiError::new(StatusCode::FORBIDDEN, lang.texts().confirm.code_in_chat),
            HoldError::Store => ApiError::failed(lang, "could not keep a confirmation"),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"error": self.message});
        if let Some(id) = self.id {
            body["id"] = json!(id);
        }
        if !self.extra.is_null() {
            body["detail"] = self.extra;
        }
        (self.status, Json(body)).into_response()
    }
}

type ApiResult<T = Json<Value>> = Result<T, ApiError>;

fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

impl WebApp {
    /// The shopper of the request's `initData`: `401` when it is missing,
    /// forged, altered or expired.
    fn shopper(&self, headers: &HeaderMap) -> ApiResult<WebUser> {
        let refuse = |e: InitDataError| ApiError::new(StatusCode::UNAUTHORIZED, e.to_string());
        let check = self.check.as_ref().ok_or_else(|| refuse(InitDataError::Missing))?;
        let data = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("tma "))
            .ok_or_else(|| refuse(InitDataError::Missing))?;
        check.verify(data, now_secs()).map_err(|e| {
            tracing::info!(error = %e, "Mini App request refused");
            refuse(e)
        })
    }

    /// The shopper of the request's `initData`, through the router's door:
    /// `401` without valid `initData`, `403` off the allow-lists, `429` over
    /// the rate limit (a change only: `way`).
    async fn admit(
        &self,
        headers: &HeaderMap,
        lang: Option<&str>,
        way: Way,
    ) -> ApiResult<(WebUser, Admitted)> {
        let user = self.shopper(headers)?;
        let lang = self.lang(&LangQuery { lang: lang.map(str::to_owned) }, Some(&user));
        let knock = Knock::private("telegram", user.id, lang, way);
        match self.app.router.admit(knock).await {
            Ok(admitted) => Ok((user, admitted)),
            Err(turned) => Err(ApiError::turned(&turned)),
        }
    }

    /// `?lang=` when given, else the shopper's Telegram language, else the bot's.
    fn lang(&self, query: &LangQuery, user: Option<&WebUser>) -> Lang {
        query
            .lang
            .as_deref()
            .and_then(Lang::parse)
            .or_else(|| user.and_then(|u| u.language_code.as_deref()).and_then(Lang::parse))
            .unwrap_or(self.app.config.bot.language)
    }

    /// The user of an `initData` the request may carry (read-only pages
    /// work without one).
    fn maybe_shopper(&self, headers: &HeaderMap) -> Option<WebUser> {
        headers.contains_key(header::AUTHORIZATION).then(|| self.shopper(headers).ok()).flatten()
    }

    fn context(&self, user: Option<&WebUser>, lang: Lang) -> ToolContext {
        let id = user.map(|u| u.id).unwrap_or(0);
        ToolContext::new(self.app.mall.clone(), services::Shopper::new("telegram", id), lang)
            .with_map(self.app.router.map().cloned())
            .without_pictures()
    }

    /// Runs tool `name`; its typed result as JSON.
    async fn run(&self, ctx: ToolContext, name: &str, args: Value) -> ApiResult<Value> {
        let lang = ctx.lang;
        let spec =
            handlers::find(name).ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, name.to_owned()))?;
        let timeout = self.app.config.tool_timeout();
        match tokio::time::timeout(timeout, spec.invoke(ctx, args)).await {
            Ok(Ok(output)) => Ok(output.data),
            Ok(Err(e)) => Err(ApiError::tool(&e, lang)),
            Err(_) => Err(ApiError::tool(&ToolError::Timeout(timeout.as_secs()), lang)),
        }
    }

    fn views(&self, lang: Lang) -> ApiResult<&Arc<MapViews>> {
        self.views.as_ref().ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, texts::of(lang).no_map))
    }
}

// ---------------------------------------------------------------------------------------------
// Map and directory: no shopper needed

async fn ui_texts(State(web): State<WebApp>, headers: HeaderMap, Query(q): Query<LangQuery>) -> Json<Value> {
    let user = web.maybe_shopper(&headers);
    let lang = web.lang(&q, user.as_ref());
    Json(json!({
        "lang": lang.as_str(),
        "texts": texts::of(lang),
        "payments": !web.app.config.payments.provider_token.is_empty() && web.bot.is_some(),
        "signed_in": web.check.is_some(),
    }))
}

async fn floor_list(State(web): State<WebApp>, headers: HeaderMap, Query(q): Query<LangQuery>) -> ApiResult {
    let lang = web.lang(&q, web.maybe_shopper(&headers).as_ref());
    let views = web.views(lang)?;
    let floors: Vec<Value> = views
        .floors(lang)
        .floors
        .iter()
        .map(|f| {
            json!({"floor": f.floor, "label": f.label, "width": f.width, "height": f.height, "stores": f.stores,
                   "facilities": f.facilities})
        })
        .collect();
    Ok(Json(
        json!({"floors": floors, "entrances": views.entrances(lang), "facility_kinds": views.facility_kinds(lang)}),
    ))
}

async fn floor_svg(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Path(floor): Path<i32>,
    Query(q): Query<LangQuery>,
) -> ApiResult<Response> {
    let lang = web.lang(&q, None);
    let views = web.views(lang)?;
    let drawn = views
        .floors(lang)
        .floors
        .iter()
        .find(|f| f.floor == floor)
        .ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, texts::of(lang).not_found))?;
    Ok(send_bytes(&headers, &drawn.svg, &drawn.svg_gzip, "image/svg+xml", "public, max-age=300"))
}

/// `?to=STORE&from=PLACE&avoid_stairs=true`
#[derive(Debug, Deserialize)]
struct RouteQuery {
    to: String,
    from: Option<String>,
    #[serde(default)]
    avoid_stairs: bool,
    lang: Option<String>,
}

/// The way to a store from the `navigate_to_store` tool, its waypoints as
/// points on each floor's drawing.
async fn route(State(web): State<WebApp>, headers: HeaderMap, Query(q): Query<RouteQuery>) -> ApiResult {
    let lang = web.lang(&LangQuery { lang: q.lang.clone() }, web.maybe_shopper(&headers).as_ref());
    let views = web.views(lang)?.clone();
    let mut args = json!({"store_name": q.to, "avoid_stairs": q.avoid_stairs});
    if let Some(from) = q.from.as_deref().filter(|f| !f.trim().is_empty()) {
        args["from"] = json!(from);
    }
    let data = web.run(web.context(None, lang), "navigate_to_store", args).await?;
    if data.get("not_found").is_some() {
        return Err(ApiError {
            extra: data,
            ..ApiError::new(StatusCode::NOT_FOUND, texts::of(lang).not_found)
        });
    }
    Ok(Json(with_legs(&views, lang, data)))
}

/// `?kind=restroom&from=STORE`
#[derive(Debug, Deserialize)]
struct FacilityQuery {
    kind: String,
    from: Option<String>,
    lang: Option<String>,
}

/// The way to the nearest facility of a kind from the `find_facility` tool,
/// its waypoints as points on each floor's drawing; 404 with the kinds there
/// are when the mall has none of that kind.
async fn facility_route(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Query(q): Query<FacilityQuery>,
) -> ApiResult {
    let lang = web.lang(&LangQuery { lang: q.lang.clone() }, web.maybe_shopper(&headers).as_ref());
    let views = web.views(lang)?.clone();
    let mut args = json!({"kind": q.kind});
    if let Some(from) = q.from.as_deref().filter(|f| !f.trim().is_empty()) {
        args["from"] = json!(from);
    }
    let data = web.run(web.context(None, lang), "find_facility", args).await?;
    if data.get("not_available").is_some() {
        return Err(ApiError {
            extra: data,
            ..ApiError::new(StatusCode::NOT_FOUND, texts::of(lang).not_found)
        });
    }
    Ok(Json(with_legs(&views, lang, data)))
}

/// A route's data with its waypoints as legs of points on each floor's drawing.
fn with_legs(views: &MapViews, lang: Lang, mut data: Value) -> Value {
    // Consecutive waypoints on one floor are one leg.
    let mut legs: Vec<(i32, Vec<(f64, f64)>)> = Vec::new();
    for point in data.get("waypoints").and_then(Value::as_array).into_iter().flatten() {
        let floor = point["floor"].as_i64().unwrap_or(1) as i32;
        let xy = (point["x_m"].as_f64().unwrap_or(0.0), point["y_m"].as_f64().unwrap_or(0.0));
        match legs.last_mut() {
            Some((f, points)) if *f == floor => points.push(xy),
            _ => legs.push((floor, vec![xy])),
        }
    }
    let legs: Vec<Value> = legs
        .into_iter()
        .map(|(floor, points)| json!({"floor": floor, "points": views.to_pixels(lang, floor, &points)}))
        .collect();
    if let Some(map) = data.as_object_mut() {
        map.remove("waypoints");
        map.remove("floor_plans_sent");
        map.insert("legs".into(), Value::Array(legs));
    }
    data
}

/// `?q=&floor=&category=`
#[derive(Debug, Deserialize)]
struct DirectoryQuery {
    q: Option<String>,
    floor: Option<i32>,
    category: Option<String>,
    lang: Option<String>,
}

/// Stores by floor and category; with `q`, the `search_stores` tool.
async fn directory(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Query(q): Query<DirectoryQuery>,
) -> ApiResult {
    let lang = web.lang(&LangQuery { lang: q.lang.clone() }, web.maybe_shopper(&headers).as_ref());
    let category = q.category.clone().filter(|c| !c.trim().is_empty());
    let keyword = q.q.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let mut stores: Vec<Value> = match keyword {
        Some(keyword) => {
            let mut args = json!({"keyword": keyword});
            if let Some(category) = &category {
                args["category"] = json!(category);
            }
            let found = web.run(web.context(None, lang), "search_stores", args).await?;
            found.get("stores").and_then(Value::as_array).cloned().unwrap_or_default()
        }
        None => all_stores(&web, lang, category.as_deref()).await?,
    };
    if let Some(floor) = q.floor {
        stores.retain(|s| s["floor"].as_i64() == Some(i64::from(floor)));
    }
    let mut categories: Vec<String> =
        stores.iter().filter_map(|s| s["category"].as_str().map(str::to_owned)).collect();
    categories.sort();
    categories.dedup();
    Ok(Json(json!({"stores": stores, "categories": categories})))
}

/// Every store of the mall (of `category`), as the tools show a store.
async fn all_stores(web: &WebApp, lang: Lang, category: Option<&str>) -> ApiResult<Vec<Value>> {
    let mut stores = Vec::new();
    let mut offset = 0u32;
    loop {
        let query = services::StoreQuery {
            category: category.map(str::to_owned),
            page: services::PageRequest { limit: Some(50), offset: Some(offset) },
            ..Default::default()
        };
        // A category the page shows in Traditional characters is searched in either script.
        let page = handlers::general::search_stores_in_either_script(&web.context(None, lang), query)
            .await
            .map_err(|e| ApiError::tool(&ToolError::from(e), lang))?;
        offset += page.items.len() as u32;
        stores.extend(page.items.iter().map(|s| json!(handlers::records::StoreCard::new(s, lang))));
        if page.items.is_empty() || u64::from(offset) >= page.total {
            break;
        }
    }
    stores.sort_by(|a, b| {
        (a["floor"].as_i64(), a["name"].as_str()).cmp(&(b["floor"].as_i64(), b["name"].as_str()))
    });
    Ok(stores)
}

/// A store's card: basics, promotions and reviews (`get_store_info` three times).
async fn store_card(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Path(id): Path<String>,
    Query(q): Query<LangQuery>,
) -> ApiResult {
    let lang = web.lang(&q, web.maybe_shopper(&headers).as_ref());
    let info = |kind: &'static str| {
        web.run(web.context(None, lang), "get_store_info", json!({"store_id": id, "info_type": kind}))
    };
    let (basic, promotions, reviews) = tokio::join!(info("basic"), info("promotions"), info("reviews"));
    Ok(Json(json!({"basic": basic?, "promotions": promotions.ok(), "reviews": reviews.ok()})))
}

// ---------------------------------------------------------------------------------------------
// The shopper's own: cart, orders, changes

async fn me(State(web): State<WebApp>, headers: HeaderMap) -> ApiResult {
    let (user, _) = web.admit(&headers, None, Way::Press).await?;
    Ok(Json(json!({"id": user.id, "first_name": user.first_name})))
}

async fn cart(State(web): State<WebApp>, headers: HeaderMap, Query(q): Query<LangQuery>) -> ApiResult {
    let (user, admitted) = web.admit(&headers, q.lang.as_deref(), Way::Press).await?;
    Ok(Json(web.run(web.context(Some(&user), admitted.lang()), "view_cart", json!({})).await?))
}

async fn orders(State(web): State<WebApp>, headers: HeaderMap, Query(q): Query<LangQuery>) -> ApiResult {
    let (user, admitted) = web.admit(&headers, q.lang.as_deref(), Way::Press).await?;
    Ok(Json(web.run(web.context(Some(&user), admitted.lang()), "list_orders", json!({})).await?))
}

/// `{"tool": "remove_from_cart", "args": {...}}`
#[derive(Debug, Deserialize)]
struct ActionRequest {
    tool: String,
    #[serde(default)]
    args: Value,
    lang: Option<String>,
}

/// Starts a cart or order change: a safe tool runs; a confirm or critical
/// one is held by the router's confirmation service and answers
/// `{"confirm": {token, summary, level}}`.
async fn start_action(
    State(web): State<WebApp>,
    headers: HeaderMap,
    body: Result<Json<ActionRequest>, JsonRejection>,
) -> ApiResult {
    let req = match body {
        Ok(Json(req)) => req,
        Err(rejection) => {
            let lang = web.lang(&LangQuery::default(), web.maybe_shopper(&headers).as_ref());
            return Err(ApiError::body(&rejection, lang));
        }
    };
    let (user, admitted) = web.admit(&headers, req.lang.as_deref(), Way::Call).await?;
    let lang = admitted.lang();
    let tool = match web.app.router.find_tool(&req.tool) {
        Some(tool) if ACTIONS.contains(&req.tool.as_str()) => tool,
        _ => return Err(ApiError::new(StatusCode::BAD_REQUEST, texts::of(lang).invalid)),
    };
    if web.app.router.level_of(&tool) == Level::Safe {
        let data = web.run(web.context(Some(&user), lang), &req.tool, req.args).await?;
        return Ok(Json(json!({"done": data})));
    }
    let hold = web.app.router.hold(&admitted, &tool, req.args).await.map_err(|e| ApiError::hold(e, lang))?;
    Ok(Json(json!({"confirm": {"token": hold.token, "summary": hold.summary, "level": hold.level.as_str()}})))
}

/// The shopper confirmed: the router's confirmation service checks the
/// owner before taking the token, then the expiry; a critical change is
/// checked again first (changed figures are a new confirmation, `409`); the
/// change runs once, with its idempotency key, and leaves its audit row.
async fn confirm_action(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Path(token): Path<String>,
) -> ApiResult<Response> {
    let (_, admitted) = web.admit(&headers, None, Way::Press).await?;
    let router = &web.app.router;
    let texts = texts::of(admitted.lang());
    let claim = match router.press_as(&admitted, &token, true, Presser::Page).await {
        PressCheck::Accepted { claim, .. } => claim,
        PressCheck::NotYours { .. } => {
            return Err(ApiError::new(StatusCode::FORBIDDEN, texts.not_yours));
        }
        PressCheck::AlreadyDone { .. } | PressCheck::Expired { .. } => {
            return Err(ApiError::new(StatusCode::GONE, texts.expired));
        }
        // The page cannot ask the one-time code: the order is placed in the chat.
        PressCheck::CodeRequired { message } => return Err(ApiError::new(StatusCode::FORBIDDEN, message)),
        PressCheck::Failed { .. } => {
            return Err(ApiError::failed(admitted.lang(), "could not read a confirmation"));
        }
    };
    match router.carry_out(claim).await {
        Carried::Done { action, result: Some(Ok(output)), .. } => {
            tracing::info!(tool = %action.call.name, "Mini App change confirmed and done");
            Ok(Json(json!({"done": output.data})).into_response())
        }
        Carried::Done { action, result: Some(Err(e)), .. } => Err(ApiError::tool(&e, action.lang)),
        Carried::Done { action, result: None, .. } => {
            Err(ApiError::new(StatusCode::GONE, texts::of(action.lang).expired))
        }
        Carried::Changed { action, held } => {
            let lang = action.lang;
            let hold = held.map_err(|e| ApiError::hold(e, lang))?;
            Ok((
                StatusCode::CONFLICT,
                Json(json!({
                    "changed": texts::of(lang).changed,
                    "confirm": {"token": hold.token, "summary": hold.summary, "level": hold.level.as_str()},
                })),
            )
                .into_response())
        }
    }
}

/// An invoice link for the shopper's unpaid order (`openInvoice`).
async fn invoice_link(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Path(order_id): Path<String>,
) -> ApiResult {
    let (user, admitted) = web.admit(&headers, None, Way::Press).await?;
    let lang = admitted.lang();
    let config = &web.app.config.payments;
    let Some(bot) = web.bot.as_ref().filter(|_| !config.provider_token.is_empty()) else {
        return Err(ApiError::new(StatusCode::CONFLICT, texts::of(lang).pay_at_store));
    };
    let shopper = services::Shopper::new("telegram", user.id);
    let order = web
        .app
        .mall
        .get_order(&shopper, &order_id)
        .await
        .map_err(|e| ApiError::tool(&ToolError::from(e), lang))?;
    if order.status != services::OrderStatus::PendingPayment {
        return Err(ApiError::new(StatusCode::CONFLICT, texts::of(lang).not_payable));
    }
    let (draft, prices) =
        crate::transports::telegram::pay::invoice(&web.app, bot, &order, lang, user.id).await;
    use teloxide::payloads::CreateInvoiceLinkSetters as _;
    let request = teloxide::payloads::CreateInvoiceLink::new(
        draft.title,
        draft.description,
        draft.payload,
        draft.currency,
        prices,
    )
    .provider_token(config.provider_token.expose().to_owned());
    match crate::transports::telegram::send::call(bot, &request).await {
        Ok(url) => Ok(Json(json!({"url": url}))),
        Err(e) => {
            tracing::warn!(error = %e, order = %order_id, "could not make an invoice link");
            Err(ApiError::failed(lang, "could not make an invoice link"))
        }
    }
}
