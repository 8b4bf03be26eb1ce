//! [`WebApp`], the Mini App's shared state, and what every API call asks
//! of it: who is asking and in which language, through the router's door,
//! and errors in the shopper's words with an id.

use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use std::marker::PhantomData;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequestParts, Query};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use handlers::{Lang, ToolContext, ToolError};
use serde::Deserialize;
use serde_json::{Value, json};

use super::auth::{InitDataCheck, InitDataError, WebUser};
use super::floors::MapViews;
use super::texts;
use crate::engine::App;
use crate::engine::router::{Admitted, HoldError, Knock, Way, Why};

#[derive(Clone)]
pub struct WebApp {
    pub(super) app: App,
    /// Checks `initData`; absent without a bot token (the cart then says
    /// to open the page in Telegram).
    pub(super) check: Option<InitDataCheck>,
    pub(super) views: Option<Arc<MapViews>>,
    /// The Bot API, for invoice links (`mallbot run` with payments on).
    pub(super) bot: Option<teloxide::Bot>,
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

// Who is asking, in which language

/// A request of a shopper the door let in: the shopper of its `initData` and
/// what the door made of it, for the way `W`. Every handler that serves a
/// shopper's own takes one as a parameter, so axum knocks before the handler
/// runs and a handler cannot be written that skips the door: without this
/// extractor it has no [`Admitted`] to hand to the router. Turned away, the
/// request is answered `401` (no valid `initData`), `403` (off the
/// allow-lists) or `429` (over the rate limit) and the handler never runs.
pub(super) struct Shopper<W> {
    pub(super) user: WebUser,
    pub(super) admitted: Admitted,
    way: PhantomData<W>,
}

/// How a Mini App request knocks.
pub(super) trait WebWay {
    const WAY: Way;
}

/// A read of the shopper's own (cart, orders, an invoice link): the
/// allow-lists only.
pub(super) struct Own;

impl WebWay for Own {
    const WAY: Way = Way::Press;
}

/// A change (a cart or order change started): the allow-lists and the rate
/// limit.
pub(super) struct Change;

impl WebWay for Change {
    const WAY: Way = Way::Call;
}

/// A read of what the mall shows anyone (the map, the directory, a store,
/// a route), through the door as [`Way::Visitor`]: signed in or not, in the
/// language of `?lang=`, else the signed-in shopper's, else the bot's.
pub(super) struct Visitor {
    pub(super) admitted: Admitted,
}

impl FromRequestParts<WebApp> for Visitor {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, web: &WebApp) -> Result<Self, ApiError> {
        let query = Query::<LangQuery>::try_from_uri(&parts.uri).map(|q| q.0).unwrap_or_default();
        let user = web.maybe_shopper(&parts.headers);
        let lang = web.lang(&query, user.as_ref());
        let knock = Knock::visitor("telegram", user.map_or(0, |u| u.id), lang);
        let admitted = web.app.router.admit(knock).await.map_err(|turned| ApiError::turned(&turned))?;
        Ok(Visitor { admitted })
    }
}

impl<W: WebWay + Send + Sync> FromRequestParts<WebApp> for Shopper<W> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, web: &WebApp) -> Result<Self, ApiError> {
        let lang = Query::<LangQuery>::try_from_uri(&parts.uri).ok().and_then(|q| q.0.lang);
        let (user, admitted) = web.admit(&parts.headers, lang.as_deref(), W::WAY).await?;
        Ok(Shopper { user, admitted, way: PhantomData })
    }
}

/// `?lang=` of a request.
#[derive(Debug, Default, Deserialize)]
pub(super) struct LangQuery {
    pub(super) lang: Option<String>,
}

/// An API error: its status and `{"error": …}` in the shopper's words,
/// with what the page can act on (`extra`: the closest names of a store not
/// found) and, for a failure, the `id` its detail is logged under.
#[derive(Debug)]
pub(super) struct ApiError {
    pub(super) status: StatusCode,
    pub(super) message: String,
    pub(super) extra: Value,
    pub(super) id: Option<String>,
}

impl ApiError {
    pub(super) fn new(status: StatusCode, message: impl Into<String>) -> ApiError {
        ApiError { status, message: message.into(), extra: Value::Null, id: None }
    }

    /// A failed tool call: the shopper's words and an id; the error's own
    /// text (a mall route, a connection error, retries) only in the log.
    pub(super) fn tool(e: &ToolError, lang: Lang) -> ApiError {
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
    pub(super) fn failed(lang: Lang, what: &str) -> ApiError {
        let id = crate::engine::stats::new_error_id();
        tracing::error!(error_id = %id, "Mini App request failed: {what}");
        ApiError { id: Some(id), ..ApiError::new(StatusCode::SERVICE_UNAVAILABLE, texts::of(lang).mall_down) }
    }

    /// The door turned the request away: `403` off the allow-lists, `429`
    /// over the rate limit.
    pub(super) fn turned(turned: &crate::engine::router::Turned) -> ApiError {
        let status = match turned.why {
            Why::NotAllowed => StatusCode::FORBIDDEN,
            Why::SlowDown => StatusCode::TOO_MANY_REQUESTS,
        };
        ApiError::new(status, turned.message())
    }

    /// A body the API cannot read: too large (`413`), or not the JSON asked for.
    pub(super) fn body(rejection: &JsonRejection, lang: Lang) -> ApiError {
        let status = rejection.status();
        tracing::info!(status = status.as_u16(), error = %rejection.body_text(), "Mini App body refused");
        match status {
            StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(status, lang.texts().confirm.too_large),
            _ => ApiError::new(status, texts::of(lang).invalid),
        }
    }

    /// A change that could not be held for confirmation.
    pub(super) fn hold(e: HoldError, lang: Lang) -> ApiError {
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

pub(super) type ApiResult<T = Json<Value>> = Result<T, ApiError>;

pub(super) fn now_secs() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
}

impl WebApp {
    /// The shopper of the request's `initData`: `401` when it is missing,
    /// forged, altered or expired.
    pub(super) fn shopper(&self, headers: &HeaderMap) -> ApiResult<WebUser> {
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
    /// the rate limit (a change only: `way`). Handlers take a [`Shopper`].
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
    pub(super) fn lang(&self, query: &LangQuery, user: Option<&WebUser>) -> Lang {
        query
            .lang
            .as_deref()
            .and_then(Lang::parse)
            .or_else(|| user.and_then(|u| u.language_code.as_deref()).and_then(Lang::parse))
            .unwrap_or(self.app.config.bot.language)
    }

    /// The user of an `initData` the request may carry (read-only pages
    /// work without one).
    pub(super) fn maybe_shopper(&self, headers: &HeaderMap) -> Option<WebUser> {
        headers.contains_key(header::AUTHORIZATION).then(|| self.shopper(headers).ok()).flatten()
    }

    /// The tools' context of an admitted request, without pictures (the
    /// page draws its own).
    pub(super) fn context(&self, admitted: &Admitted) -> ToolContext {
        self.app.router.tool_context_for(admitted).without_pictures()
    }

    /// Runs tool `name`; its typed result as JSON.
    pub(super) async fn run(&self, ctx: ToolContext, name: &str, args: Value) -> ApiResult<Value> {
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

    pub(super) fn views(&self, lang: Lang) -> ApiResult<&Arc<MapViews>> {
        self.views.as_ref().ok_or_else(|| ApiError::new(StatusCode::NOT_FOUND, texts::of(lang).no_map))
    }
}
