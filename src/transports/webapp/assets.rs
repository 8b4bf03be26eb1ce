//! The page, its script and its style, compiled into the binary and sent
//! gzipped to a browser that takes it.

use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;

use super::floors::{self};

pub(super) static PAGE: &str = include_str!("assets/index.html");
pub(super) static SCRIPT: &str = include_str!("assets/app.js");
pub(super) static STYLE: &str = include_str!("assets/app.css");

/// An asset, gzip-compressed once and sent compressed when the browser takes it.
pub(super) struct Asset {
    plain: Bytes,
    gzip: Bytes,
    content_type: &'static str,
}

pub(super) fn asset(which: &'static str) -> &'static Asset {
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

pub(super) fn takes_gzip(headers: &HeaderMap) -> bool {
    headers
        .get(header::ACCEPT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|e| e.trim().starts_with("gzip")))
}

/// `plain` or `gzip` as the browser takes it, with its type and caching.
pub(super) fn send_bytes(
    headers: &HeaderMap,
    plain: &Bytes,
    gzip: &Bytes,
    content_type: &str,
    cache: &str,
) -> Response {
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

pub(super) async fn page(headers: HeaderMap) -> Response {
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

pub(super) async fn script(headers: HeaderMap) -> Response {
    let a = asset("js");
    send_bytes(&headers, &a.plain, &a.gzip, a.content_type, "no-cache")
}

pub(super) async fn style(headers: HeaderMap) -> Response {
    let a = asset("css");
    send_bytes(&headers, &a.plain, &a.gzip, a.content_type, "no-cache")
}
