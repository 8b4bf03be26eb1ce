//! The Mini App: the mall as Telegram shows it in a web view — a map to
//! touch, the directory, the shopper's cart and orders, points and coupons.
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
//!
//! `mallbot run` serves it on `webapp.listen` beside the bot (and makes the
//! chat's menu button open it when `webapp.public_url` is set); `mallbot
//! webapp` serves it alone.

mod api;
mod assets;
pub(crate) mod auth;
pub(crate) mod floors;
mod texts;
mod web;

use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

use api::*;
use assets::{page, script, style};
pub use auth::InitDataCheck;
pub use web::WebApp;

/// The most a request body may weigh: a cart or order change is a few
/// hundred bytes.
const MAX_BODY: usize = 16 * 1024;

/// The routes: the page under `/webapp/`, the API under `/webapp/api/`.
pub(crate) fn router(web: WebApp) -> axum::Router {
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
        .route("/webapp/api/wallet", get(wallet))
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
