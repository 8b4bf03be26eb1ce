//! The JSON API under `/webapp/api/`: the map, the directory, the
//! shopper's cart and orders, and their changes through the router's
//! confirmation service.
//!
//! `GET route?to=&from=&avoid_stairs=` runs `navigate_to_store` (no pictures)
//! and gives its waypoints as points of each floor's drawing, one leg per
//! floor; `GET facility?kind=&from=` the same for `find_facility`; `GET
//! stores?q=&floor=&category=` is the directory; `GET cart` and `GET orders`
//! run `view_cart` and `list_orders`; `GET wallet` is the points balance, the
//! shopper's coupons and those still to claim (`my_points`, `list_coupons`).
//! `POST actions {tool, args}` runs a safe
//! change, or holds a confirm or critical one (`router.hold`: declared fields
//! only, at most 4 KiB; with `safety.critical_code` an order is refused
//! `403`, to be placed in the chat) and answers `{confirm}` with its token;
//! `POST actions/TOKEN` is `router.press_as(Presser::Page)`: not the owner
//! `403` (the token left to its owner), expired or done `410`, a critical
//! call whose figures changed held again `409`, else `carry_out`. `POST
//! orders/ID/invoice` makes an invoice link when payments are on. The door
//! answers `403` off the allow-lists and `429` over the rate limit; bodies
//! over 16 KiB are `413`. Page and flows: `docs/webapp.md`.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use handlers::{Lang, Level, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};

use super::assets::send_bytes;
use super::floors::MapViews;
use super::texts;
use crate::engine::reply::PressCheck;
use crate::engine::router::{Admitted, Carried, Presser};

use super::web::*;

/// The tools the page may run for a shopper: the cart and orders, and
/// claiming a coupon.
const ACTIONS: &[&str] =
    &["add_to_cart", "remove_from_cart", "clear_cart", "create_order", "cancel_order", "claim_coupon"];

// Map and directory: no shopper needed

pub(super) async fn ui_texts(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Query(q): Query<LangQuery>,
) -> Json<Value> {
    let user = web.maybe_shopper(&headers);
    let lang = web.lang(&q, user.as_ref());
    Json(json!({
        "lang": lang.as_str(),
        "texts": texts::of(lang),
        "payments": !web.app.config.payments.provider_token.is_empty() && web.bot.is_some(),
        "signed_in": web.check.is_some(),
    }))
}

pub(super) async fn floor_list(
    State(web): State<WebApp>,
    headers: HeaderMap,
    Query(q): Query<LangQuery>,
) -> ApiResult {
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

pub(super) async fn floor_svg(
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
pub(super) struct RouteQuery {
    to: String,
    from: Option<String>,
    #[serde(default)]
    avoid_stairs: bool,
}

/// The way to a store from the `navigate_to_store` tool, its waypoints as
/// points on each floor's drawing.
pub(super) async fn route(
    State(web): State<WebApp>,
    Visitor { admitted }: Visitor,
    Query(q): Query<RouteQuery>,
) -> ApiResult {
    let lang = admitted.lang();
    let views = web.views(lang)?.clone();
    let mut args = json!({"store_name": q.to, "avoid_stairs": q.avoid_stairs});
    if let Some(from) = q.from.as_deref().filter(|f| !f.trim().is_empty()) {
        args["from"] = json!(from);
    }
    let data = web.run(web.context(&admitted), "navigate_to_store", args).await?;
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
pub(super) struct FacilityQuery {
    kind: String,
    from: Option<String>,
}

/// The way to the nearest facility of a kind from the `find_facility` tool,
/// its waypoints as points on each floor's drawing; 404 with the kinds there
/// are when the mall has none of that kind.
pub(super) async fn facility_route(
    State(web): State<WebApp>,
    Visitor { admitted }: Visitor,
    Query(q): Query<FacilityQuery>,
) -> ApiResult {
    let lang = admitted.lang();
    let views = web.views(lang)?.clone();
    let mut args = json!({"kind": q.kind});
    if let Some(from) = q.from.as_deref().filter(|f| !f.trim().is_empty()) {
        args["from"] = json!(from);
    }
    let data = web.run(web.context(&admitted), "find_facility", args).await?;
    if data.get("not_available").is_some() {
        return Err(ApiError {
            extra: data,
            ..ApiError::new(StatusCode::NOT_FOUND, texts::of(lang).not_found)
        });
    }
    Ok(Json(with_legs(&views, lang, data)))
}

/// A route's data with its waypoints as legs of points on each floor's drawing.
pub(super) fn with_legs(views: &MapViews, lang: Lang, mut data: Value) -> Value {
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
pub(super) struct DirectoryQuery {
    q: Option<String>,
    floor: Option<i32>,
    category: Option<String>,
}

/// Stores by floor and category; with `q`, the `search_stores` tool.
pub(super) async fn directory(
    State(web): State<WebApp>,
    Visitor { admitted }: Visitor,
    Query(q): Query<DirectoryQuery>,
) -> ApiResult {
    let category = q.category.clone().filter(|c| !c.trim().is_empty());
    let keyword = q.q.as_deref().map(str::trim).filter(|k| !k.is_empty());
    let mut stores: Vec<Value> = match keyword {
        Some(keyword) => {
            let mut args = json!({"keyword": keyword});
            if let Some(category) = &category {
                args["category"] = json!(category);
            }
            let found = web.run(web.context(&admitted), "search_stores", args).await?;
            found.get("stores").and_then(Value::as_array).cloned().unwrap_or_default()
        }
        None => all_stores(&web, &admitted, category.as_deref()).await?,
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
pub(super) async fn all_stores(
    web: &WebApp,
    admitted: &Admitted,
    category: Option<&str>,
) -> ApiResult<Vec<Value>> {
    let lang = admitted.lang();
    let mut stores = Vec::new();
    let mut offset = 0u32;
    loop {
        let query = services::StoreQuery {
            category: category.map(str::to_owned),
            page: services::PageRequest { limit: Some(50), offset: Some(offset) },
            ..Default::default()
        };
        // A category the page shows in Traditional characters is searched in either script.
        let page = handlers::general::search_stores_in_either_script(&web.context(admitted), query)
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
pub(super) async fn store_card(
    State(web): State<WebApp>,
    Visitor { admitted }: Visitor,
    Path(id): Path<String>,
) -> ApiResult {
    let info = |kind: &'static str| {
        web.run(web.context(&admitted), "get_store_info", json!({"store_id": id, "info_type": kind}))
    };
    let (basic, promotions, reviews) = tokio::join!(info("basic"), info("promotions"), info("reviews"));
    Ok(Json(json!({"basic": basic?, "promotions": promotions.ok(), "reviews": reviews.ok()})))
}

// ---------------------------------------------------------------------------------------------
// The shopper's own: cart, orders, changes

pub(super) async fn me(Shopper { user, .. }: Shopper<Own>) -> ApiResult {
    Ok(Json(json!({"id": user.id, "first_name": user.first_name})))
}

pub(super) async fn cart(State(web): State<WebApp>, Shopper { admitted, .. }: Shopper<Own>) -> ApiResult {
    Ok(Json(web.run(web.context(&admitted), "view_cart", json!({})).await?))
}

/// Shown beside the cart: the shopper's points balance (`null` when the mall
/// keeps none), their coupons, and the mall's coupons they can still claim
/// (some left, not held yet), from `my_points` and `list_coupons`.
pub(super) async fn wallet(State(web): State<WebApp>, Shopper { admitted, .. }: Shopper<Own>) -> ApiResult {
    let ctx = || web.context(&admitted);
    let (points, mine, all) = tokio::join!(
        web.run(ctx(), "my_points", json!({})),
        web.run(ctx(), "list_coupons", json!({"mine": true})),
        web.run(ctx(), "list_coupons", json!({})),
    );
    // A mall without points or coupons refuses them (409): nothing to show.
    let offered = |answer: ApiResult<Value>| match answer {
        Ok(data) => Ok(Some(data)),
        Err(e) if e.status == StatusCode::CONFLICT => Ok(None),
        Err(e) => Err(e),
    };
    let balance = offered(points)?.map(|p| p["balance"].clone()).unwrap_or(Value::Null);
    let coupons = |data: Option<Value>| match data.map(|d| d["coupons"].clone()) {
        Some(Value::Array(list)) => list,
        _ => Vec::new(),
    };
    let mine = coupons(offered(mine)?);
    let held: Vec<&Value> = mine.iter().map(|c| &c["coupon_id"]).collect();
    let claimable: Vec<Value> = coupons(offered(all)?)
        .into_iter()
        .filter(|c| c["left"].as_u64().unwrap_or(0) > 0 && !held.contains(&&c["coupon_id"]))
        .collect();
    Ok(Json(json!({"points": balance, "coupons": mine, "claimable": claimable})))
}

pub(super) async fn orders(State(web): State<WebApp>, Shopper { admitted, .. }: Shopper<Own>) -> ApiResult {
    Ok(Json(web.run(web.context(&admitted), "list_orders", json!({})).await?))
}

/// `{"tool": "remove_from_cart", "args": {...}}`
#[derive(Debug, Deserialize)]
pub(super) struct ActionRequest {
    tool: String,
    #[serde(default)]
    args: Value,
}

/// Starts a cart or order change: a safe tool runs; a confirm or critical
/// one is held by the router's confirmation service and answers
/// `{"confirm": {token, summary, level}}`.
pub(super) async fn start_action(
    State(web): State<WebApp>,
    Shopper { admitted, .. }: Shopper<Change>,
    body: Result<Json<ActionRequest>, JsonRejection>,
) -> ApiResult {
    let lang = admitted.lang();
    let req = body.map_err(|rejection| ApiError::body(&rejection, lang))?.0;
    let tool = match web.app.router.find_tool(&req.tool) {
        Some(tool) if ACTIONS.contains(&req.tool.as_str()) => tool,
        _ => return Err(ApiError::new(StatusCode::BAD_REQUEST, texts::of(lang).invalid)),
    };
    if web.app.router.level_of(&tool) == Level::Safe {
        let data = web.run(web.context(&admitted), &req.tool, req.args).await?;
        return Ok(Json(json!({"done": data})));
    }
    let hold = web.app.router.hold(&admitted, &tool, req.args).await.map_err(|e| ApiError::hold(e, lang))?;
    Ok(Json(json!({"confirm": {"token": hold.token, "summary": hold.summary, "level": hold.level.as_str()}})))
}

/// The shopper confirmed: the router's confirmation service checks the
/// owner before taking the token, then the expiry; a critical change is
/// checked again first (changed figures are a new confirmation, `409`); the
/// change runs once, with its idempotency key, and leaves its audit row.
pub(super) async fn confirm_action(
    State(web): State<WebApp>,
    Shopper { admitted, .. }: Shopper<Own>,
    Path(token): Path<String>,
) -> ApiResult<Response> {
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
pub(super) async fn invoice_link(
    State(web): State<WebApp>,
    Shopper { user, admitted, .. }: Shopper<Own>,
    Path(order_id): Path<String>,
) -> ApiResult {
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
