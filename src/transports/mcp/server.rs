//! `mallbot mcp`: the registry's tools served over MCP, over stdio (desktop
//! clients start the command) or streamable HTTP (`--listen`, bearer token,
//! `Host`/`Origin` checked against DNS rebinding).
//!
//! The tool list is the registry itself (name, description and parameter
//! schema exactly as the model gets them). Every call passes the router's
//! door first (allow-lists, rate limit, as a chat message does). `safe`
//! tools run at once; `confirm` and `critical` tools are held by the
//! router's confirmation service, asked through MCP elicitation with the
//! text the Telegram button shows, and carried out by it on accept (same
//! owner check, idempotency key, re-check of an order's figures, audit row).
//! An order needing the one-time code (`safety.critical_code`) is refused
//! here, saying to place it in the chat. A client that cannot ask never gets
//! a risky tool run. The shopper is the server's (`mcp.user_id`) or the
//! bearer token's (`mcp.tokens`), never an argument. A failure inside (the
//! mall, the state store) is told as a short message with an error id; the
//! detail goes to the log under that id.
//!
//! The tool list leaves out group-only tools. Its annotations are the more
//! careful of the tool's own level and the operator's override (safe →
//! `readOnlyHint`, critical → `destructiveHint`; a writing tool made safe is
//! never read-only); its `outputSchema` is the schema of the tool's result
//! type, made by `#[tool_function]`. A result is `structuredContent` (the
//! tool's JSON; anything but an object as `{"result": …}`) with a text: the
//! tool's basic-mode wording when it has one, else the JSON. Only protocol
//! versions in which the server may ask the client in the middle of a call
//! are served, so elicitation happens inside `tools/call`; an order whose
//! figures keep changing is asked again at most three times. Over HTTP,
//! rmcp's `StreamableHttpService` is nested at `/mcp` behind the bearer check
//! (`mcp.token`, `[mcp.tokens]`; `--listen` refuses to start without one);
//! rmcp checks `Host` against localhost, 127.0.0.1, ::1 and
//! `mcp.allowed_hosts`, and any `Origin` against `mcp.allowed_origins`.
//! Setting it up: `docs/mcp.md`.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use anyhow::Context as _;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use handlers::{Lang, Level, ToolError, ToolOutput, ToolSpec};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ElicitRequestParams, ElicitationAction,
    Implementation, InitializeResult, ListToolsResult, PaginatedRequestParams, ProtocolVersion,
    ServerCapabilities, ToolAnnotations,
};
use rmcp::service::{ElicitationMode, RequestContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

use crate::engine::App;
use crate::engine::llm::ToolCall;
use crate::engine::pending::new_token;
use crate::engine::reply::PressCheck;
use crate::engine::router::{Carried, HoldError, Knock, Presser, Way, confirmation_text};
use crate::engine::tools::Tool;

/// The platform name of shoppers served over MCP (their conversations and
/// carts are their own, apart from their Telegram ones).
pub(crate) const PLATFORM: &str = "mcp";

/// Protocol versions served: those where the server may ask the client
/// (elicitation) in the middle of a call.
const VERSIONS: &[ProtocolVersion] = &[
    ProtocolVersion::V_2025_11_25,
    ProtocolVersion::V_2025_06_18,
    ProtocolVersion::V_2025_03_26,
    ProtocolVersion::V_2024_11_05,
];

/// How many times an order whose figures keep changing is shown again.
const MAX_RECONFIRMATIONS: usize = 3;

/// The shopper a request over HTTP acts for, set by the bearer check.
#[derive(Debug, Clone, Copy)]
struct Shopper(i64);

/// The registry as an MCP server.
#[derive(Clone)]
pub struct MallServer {
    app: App,
}

impl MallServer {
    /// The server for `app`'s registry, mall and confirmations.
    pub fn new(app: App) -> Self {
        MallServer { app }
    }

    fn lang(&self) -> Lang {
        self.app.config.bot.language
    }

    /// The tools listed to a client: the registry's, minus group-only ones,
    /// minus risky ones for a client that cannot confirm when
    /// `mcp.hide_unconfirmable` says so.
    fn listed(&self, can_ask: bool) -> Vec<&'static ToolSpec> {
        handlers::all()
            .iter()
            .copied()
            .filter(|spec| spec.scope.allows(false))
            .filter(|spec| {
                can_ask
                    || !self.app.config.mcp.hide_unconfirmable
                    || self.app.router.level_of(&Tool::Builtin(spec)) == Level::Safe
            })
            .collect()
    }

    fn shopper(&self, context: &RequestContext<RoleServer>) -> i64 {
        context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Shopper>())
            .map(|shopper| shopper.0)
            .unwrap_or(self.app.config.mcp.user_id)
    }

    async fn call(
        &self,
        spec: &'static ToolSpec,
        args: Value,
        peer: &Peer<RoleServer>,
        user: i64,
    ) -> CallToolResult {
        let tool = Tool::Builtin(spec);
        let router = &self.app.router;
        let admitted = match router.admit(Knock::private(PLATFORM, user, self.lang(), Way::Call)).await {
            Ok(admitted) => admitted,
            Err(turned) => {
                tracing::info!(tool = spec.name, user, why = ?turned.why, "MCP call turned away at the door");
                return error_result(turned.message().to_owned());
            }
        };
        let lang = admitted.lang();
        let call = ToolCall {
            id: format!("mcp-{}", new_token()),
            name: spec.name.to_owned(),
            arguments: args.to_string(),
        };
        let level = router.level_of(&tool);
        tracing::info!(tool = spec.name, level = level.as_str(), user, "MCP tool call");
        if level == Level::Safe {
            let result = router.run_call(&admitted, &tool, &call, args).await;
            return call_result(spec, lang, result);
        }
        if !peer.supported_elicitation_modes().contains(&ElicitationMode::Form) {
            tracing::info!(tool = spec.name, "refused: the client cannot ask for confirmation");
            return error_result((lang.texts().mcp.needs_elicitation)(spec.name));
        }
        let mut hold = match router.hold(&admitted, &tool, args).await {
            Ok(hold) => hold,
            Err(e) => return hold_error(lang, e),
        };
        let mut note = None;
        for _ in 0..MAX_RECONFIRMATIONS {
            let question = confirmation_text(lang, level, &hold.summary);
            let message = match note {
                Some(note) => format!("{note}\n{question}"),
                None => question,
            };
            let approve = match ask(peer, message, self.app.config.safety.confirm_ttl_secs).await {
                Ok(action) => action == ElicitationAction::Accept,
                Err(e) => {
                    tracing::warn!(tool = spec.name, error = %e, "could not ask the MCP client for confirmation");
                    return error_result(lang.texts().mcp.could_not_ask.to_owned());
                }
            };
            let claim = match router.press_as(&admitted, &hold.token, approve, Presser::Client).await {
                PressCheck::Accepted { claim, .. } => claim,
                PressCheck::CodeRequired { message } => return error_result(message),
                PressCheck::NotYours { alert }
                | PressCheck::AlreadyDone { alert }
                | PressCheck::Expired { alert }
                | PressCheck::Failed { alert } => return error_result(alert),
            };
            match router.carry_out(claim).await {
                Carried::Done { result: Some(result), .. } => {
                    tracing::info!(tool = spec.name, ok = result.is_ok(), "MCP confirmation resolved");
                    return call_result(spec, lang, result);
                }
                Carried::Done { result: None, .. } => {
                    tracing::info!(tool = spec.name, decision = "declined", "MCP confirmation resolved");
                    // Nothing ran, so there is no result of the tool's output
                    // schema to give: the client reads it as a call that did not run.
                    return error_result(lang.texts().mcp.declined.to_owned());
                }
                Carried::Changed { held: Ok(fresh), .. } => {
                    hold = fresh;
                    note = Some(lang.texts().confirm.order_changed);
                }
                Carried::Changed { held: Err(e), .. } => return hold_error(lang, e),
            }
        }
        error_result(lang.texts().mcp.kept_changing.to_owned())
    }
}

/// A call that could not be held for confirmation, told to the client.
fn hold_error(lang: Lang, error: HoldError) -> CallToolResult {
    match error {
        HoldError::Invalid(e) | HoldError::Tool(e) => tool_error(lang, e),
        HoldError::TooLarge => error_result(lang.texts().confirm.too_large.to_owned()),
        HoldError::CodeInChat => error_result(lang.texts().confirm.code_in_chat.to_owned()),
        HoldError::Store => {
            let id = crate::engine::stats::new_error_id();
            tracing::error!(error_id = %id, "MCP call failed: the confirmation could not be kept");
            error_result((lang.texts().mcp.failed)(&id))
        }
    }
}

/// A failed tool call as the client reads it: what the caller can act on
/// (arguments, not found, refused) as the model would read it; a failure
/// inside (the mall, a timeout, a lending service) as a short message with
/// an error id, its detail in the log under that id.
fn tool_error(lang: Lang, error: ToolError) -> CallToolResult {
    match error {
        ToolError::Upstream(_) | ToolError::Timeout(_) | ToolError::Service { .. } => {
            let id = crate::engine::stats::new_error_id();
            tracing::warn!(error_id = %id, error = %error, "MCP tool call failed");
            error_result((lang.texts().mcp.failed)(&id))
        }
        other => error_result(other.model_message()),
    }
}

/// Asks the person through the client; their decision.
async fn ask(
    peer: &Peer<RoleServer>,
    message: String,
    wait_secs: u64,
) -> Result<ElicitationAction, rmcp::ServiceError> {
    // No fields to fill in: accepting is the confirmation.
    let params: ElicitRequestParams = serde_json::from_value(json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {"type": "object", "properties": {}},
    }))
    .map_err(|e| rmcp::ServiceError::McpError(ErrorData::internal_error(e.to_string(), None)))?;
    let wait = Some(std::time::Duration::from_secs(wait_secs));
    Ok(peer.create_elicitation_with_timeout(params, wait).await?.action)
}

/// The MCP form of a registry tool: its name, description and parameter
/// schema as the model gets them, and hints that follow both what the tool
/// does (its own level) and the operator's override (`level`), whichever is
/// the more careful: a tool that writes is never read-only, even when the
/// operator lets it run without a confirmation; one made critical is destructive.
pub(crate) fn mcp_tool(spec: &'static ToolSpec, level: Level) -> rmcp::model::Tool {
    let schema = match spec.parameters() {
        Value::Object(map) => map.clone(),
        _ => serde_json::Map::new(),
    };
    let read_only = spec.level == Level::Safe && level == Level::Safe;
    let annotations = ToolAnnotations::new()
        .read_only(read_only)
        .destructive(spec.level == Level::Critical || level == Level::Critical)
        .idempotent(read_only)
        .open_world(false);
    let tool = rmcp::model::Tool::new(spec.name, spec.description, Arc::new(schema)).annotate(annotations);
    match spec.output_schema.map(|schema| schema()) {
        Some(Value::Object(output)) => tool.with_raw_output_schema(Arc::new(output)),
        _ => tool,
    }
}

/// A finished call as MCP content: the result as structured content plus a
/// short text (the tool's own wording when it has one), or the error the
/// model would get.
fn call_result(spec: &ToolSpec, lang: Lang, result: Result<ToolOutput, ToolError>) -> CallToolResult {
    match result {
        Ok(out) => {
            let text = spec
                .offline
                .and_then(|hook| (hook.answer)(lang, &out.data))
                // In the caller's script whatever wrote it (a Simplified word of a tool's, in 繁體).
                .map(|text| (lang.texts().tool_text)(text))
                .unwrap_or_else(|| out.data.to_string());
            let data = match out.data {
                Value::Object(map) => Value::Object(map),
                other => json!({ "result": other }),
            };
            structured_result(data, text)
        }
        Err(e) => tool_error(lang, e),
    }
}

fn structured_result(data: Value, text: String) -> CallToolResult {
    let wire = json!({
        "content": [{"type": "text", "text": text}],
        "structuredContent": data,
        "isError": false,
    });
    serde_json::from_value(wire).unwrap_or_else(|_| CallToolResult::error(Vec::new()))
}

fn error_result(text: String) -> CallToolResult {
    CallToolResult::error(vec![rmcp::model::ContentBlock::text(text)])
}

impl ServerHandler for MallServer {
    fn get_info(&self) -> InitializeResult {
        let implementation: Implementation =
            serde_json::from_value(json!({"name": "mallbot", "version": env!("CARGO_PKG_VERSION")}))
                .unwrap_or_else(|_| Implementation::from_build_env());
        InitializeResult::new(ServerCapabilities::builder().enable_tools().build())
            .with_protocol_version(ProtocolVersion::V_2025_11_25)
            .with_server_info(implementation)
            .with_instructions(
                "The tools of a shopping mall: find stores and products, get directions, manage the \
                 cart and orders. Tools that change the cart or orders ask the user to confirm first.",
            )
    }

    fn supported_protocol_versions(&self) -> Cow<'static, [ProtocolVersion]> {
        Cow::Borrowed(VERSIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let can_ask = context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form);
        let tools = self
            .listed(can_ask)
            .into_iter()
            .map(|spec| mcp_tool(spec, self.app.router.level_of(&Tool::Builtin(spec))))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    fn get_tool(&self, name: &str) -> Option<rmcp::model::Tool> {
        self.listed(true)
            .into_iter()
            .find(|spec| spec.name == name)
            .map(|spec| mcp_tool(spec, self.app.router.level_of(&Tool::Builtin(spec))))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let can_ask = context.peer.supported_elicitation_modes().contains(&ElicitationMode::Form);
        let Some(spec) = handlers::find(&request.name).filter(|spec| spec.scope.allows(false)) else {
            return Err(ErrorData::invalid_params(
                format!("there is no tool named `{}`", request.name),
                None,
            ));
        };
        if !self.listed(can_ask).iter().any(|listed| listed.name == spec.name) {
            return Err(ErrorData::invalid_params(
                format!("`{}` is not offered to clients without elicitation", spec.name),
                None,
            ));
        }
        // A caller's trace goes on here (W3C trace context in `_meta`).
        let span = crate::infra::otel::mcp_span(spec.name, true);
        let meta = request.meta.as_ref().unwrap_or(&context.meta);
        let traceparent = meta.get_traceparent().or_else(|| context.meta.get_traceparent());
        crate::infra::otel::continue_from(&span, traceparent, meta.get_tracestate());
        let args = Value::Object(request.arguments.unwrap_or_default());
        let user = self.shopper(&context);
        let calling = self.call(spec, args, &context.peer, user);
        Ok(tracing::Instrument::instrument(calling, span).await.into())
    }
}

/// Serves the registry on standard input and output until the client leaves.
pub async fn serve_stdio(app: App) -> anyhow::Result<()> {
    let running = MallServer::new(app)
        .serve(rmcp::transport::stdio())
        .await
        .context("the MCP client did not complete the handshake")?;
    running.waiting().await.context("the MCP session ended abnormally")?;
    Ok(())
}

/// Bearer tokens and the shopper each acts for (`mcp.token` → `mcp.user_id`, `mcp.tokens`).
fn tokens(app: &App) -> HashMap<String, i64> {
    let mcp = &app.config.mcp;
    let mut tokens: HashMap<String, i64> =
        mcp.tokens.iter().map(|(token, user)| (token.expose().to_owned(), *user)).collect();
    if !mcp.token.is_empty() {
        tokens.insert(mcp.token.expose().to_owned(), mcp.user_id);
    }
    tokens
}

/// The HTTP router of `mallbot mcp --listen`: `/mcp`, streamable HTTP,
/// behind the bearer check; `Host` and `Origin` checked by the transport.
pub(crate) fn http_router(
    app: App,
    cancel: tokio_util::sync::CancellationToken,
) -> anyhow::Result<axum::Router> {
    let tokens = tokens(&app);
    if tokens.is_empty() {
        anyhow::bail!(
            "config key `mcp.token`: `mallbot mcp --listen` needs a bearer token (set mcp.token or \
             MALLBOT_MCP__TOKEN)"
        );
    }
    let mcp = &app.config.mcp;
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(str::to_owned).to_vec();
    hosts.extend(mcp.allowed_hosts.iter().cloned());
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(mcp.allowed_origins.clone())
        .enforce_origin_validation()
        .with_cancellation_token(cancel);
    let server = MallServer::new(app);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    Ok(axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn_with_state(Arc::new(tokens), bearer)))
}

/// Serves `/mcp` on `listener` until `shutdown` completes.
pub async fn serve_http(
    app: App,
    listener: tokio::net::TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let cancel = tokio_util::sync::CancellationToken::new();
    let router = http_router(app, cancel.child_token())?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            cancel.cancel();
        })
        .await
        .context("the MCP HTTP server failed")
}

/// Admits a request carrying one of the tokens, noting whom it acts for.
async fn bearer(
    State(tokens): State<Arc<HashMap<String, i64>>>,
    mut request: Request,
    next: Next,
) -> Response {
    let offered = services::server::bearer_token(request.headers());
    let user = offered.and_then(|offered| {
        tokens
            .iter()
            .find(|(token, _)| services::server::same_secret(token.as_bytes(), offered.as_bytes()))
            .map(|(_, user)| *user)
    });
    match user {
        Some(user) => {
            request.extensions_mut().insert(Shopper(user));
            next.run(request).await
        }
        None => {
            tracing::warn!(
                presented = offered.is_some(),
                "MCP request refused: missing or wrong bearer token"
            );
            (
                StatusCode::UNAUTHORIZED,
                [(header::WWW_AUTHENTICATE, "Bearer")],
                "missing or wrong bearer token (mcp.token)\n",
            )
                .into_response()
        }
    }
}
