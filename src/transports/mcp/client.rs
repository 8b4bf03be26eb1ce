//! MCP servers as tools inside the bot (`[mcp.servers.NAME]`): one task per
//! server keeps a connection (a child process over stdio, or streamable
//! HTTP), offers the server's tools to the router as `NAME__tool` while it
//! is up, withdraws them when it goes away, and connects again with backoff.
//!
//! A stdio server is a child process with its own `env` and only
//! `INHERITED_ENV` of the bot's environment (`PATH`, `HOME`, `LANG`, `TZ`),
//! killed with the bot; over HTTP, rmcp's client uses the ring TLS provider.
//! A server that goes away has its tools withdrawn (state `Down`) and is
//! connected again after 0.5 s, doubling up to 30 s. A lent tool takes the
//! server's `level` (default confirm) and `scope` (default private),
//! `[tools.NAME__tool] level` overrides it, and it goes the same plan → level
//! → run/ask path as a registry tool; it is never cached and not in `/help`.
//! An error result or a broken connection is `ToolError::Service`, which the
//! model reads like any tool error. A pending confirmation of a lent tool
//! runs if its server is up at the press; otherwise the model hears it is no
//! longer available. `run`, `chat` and `check` wait for each server's first
//! try (`App::connect_mcp_servers`: `mcp.connect_timeout_secs`, at least 10 s
//! for `check`).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use handlers::{ToolError, ToolOutput, ToolResult};
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{Peer, RoleClient, ServiceExt};
use serde_json::{Value, json};

use crate::engine::tools::{RemoteCaller, RemoteTool, RemoteTools, Tool, intern, remote_name};
use crate::infra::config::McpServerConfig;

/// First wait before connecting again; doubles up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(30);

/// Starts one connection task per configured server; their tools appear in
/// `remote` as they connect.
pub(crate) fn start(
    servers: &std::collections::BTreeMap<String, McpServerConfig>,
    remote: &Arc<RemoteTools>,
) {
    if servers.is_empty() {
        return;
    }
    install_tls_provider();
    for (name, server) in servers {
        remote.expect(name);
        tokio::spawn(keep_connected(name.clone(), server.clone(), remote.clone()));
    }
}

/// The HTTP client of rmcp needs a process-wide TLS provider; the bot's own
/// (ring) is installed when none is.
pub fn install_tls_provider() {
    if rustls::crypto::CryptoProvider::get_default().is_none() {
        let _ = rustls::crypto::ring::default_provider().install_default();
    }
}

async fn keep_connected(name: String, server: McpServerConfig, remote: Arc<RemoteTools>) {
    let mut backoff = FIRST_BACKOFF;
    loop {
        match connect(&server).await {
            Ok(running) => match offer(&name, &server, &running, &remote).await {
                Ok(count) => {
                    tracing::info!(server = %name, tools = count, "MCP server connected; its tools are offered");
                    backoff = FIRST_BACKOFF;
                    let reason = running.waiting().await;
                    tracing::warn!(server = %name, reason = ?reason, "MCP server went away; its tools are withdrawn");
                    remote.withdraw(&name, "disconnected");
                }
                Err(e) => {
                    tracing::warn!(server = %name, error = %e, "MCP server did not list its tools");
                    remote.withdraw(&name, &format!("listing its tools failed: {e}"));
                    let _ = running.cancel().await;
                }
            },
            Err(e) => {
                tracing::warn!(server = %name, error = %e, retry_in_ms = backoff.as_millis() as u64, "MCP server unreachable");
                remote.withdraw(&name, &e);
            }
        }
        tokio::time::sleep(backoff).await;
        backoff = (backoff * 2).min(MAX_BACKOFF);
    }
}

/// The only variables of the bot's environment a stdio MCP server gets
/// (besides its own `env`).
pub(crate) const INHERITED_ENV: &[&str] = &["PATH", "HOME", "LANG", "TZ"];

async fn connect(server: &McpServerConfig) -> Result<RunningService<RoleClient, ()>, String> {
    if !server.command.trim().is_empty() {
        let mut command = tokio::process::Command::new(&server.command);
        // A clean environment: never the bot's token or keys.
        command.env_clear();
        for key in INHERITED_ENV {
            if let Some(value) = std::env::var_os(key) {
                command.env(key, value);
            }
        }
        command.args(&server.args).envs(server.env.iter().map(|(k, v)| (k, v.expose()))).kill_on_drop(true);
        let (transport, _) = TokioChildProcess::builder(command)
            .stderr(std::process::Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", server.command))?;
        ().serve(transport).await.map_err(|e| format!("handshake failed: {e}"))
    } else {
        let mut headers = HashMap::new();
        for (key, value) in &server.headers {
            let key = reqwest::header::HeaderName::from_bytes(key.as_bytes())
                .map_err(|e| format!("header `{key}`: {e}"))?;
            let value = reqwest::header::HeaderValue::from_str(value.expose())
                .map_err(|e| format!("header `{key}`: {e}"))?;
            headers.insert(key, value);
        }
        let mut config = StreamableHttpClientTransportConfig::with_uri(server.url.as_str());
        config.custom_headers = headers;
        let transport = StreamableHttpClientTransport::from_config(config);
        ().serve(transport)
            .await
            .map_err(|e| format!("cannot connect to {}: {e}", crate::infra::redact::shown_url(&server.url)))
    }
}

/// Lists the server's tools and offers them; how many.
async fn offer(
    name: &str,
    server: &McpServerConfig,
    running: &RunningService<RoleClient, ()>,
    remote: &RemoteTools,
) -> Result<usize, rmcp::ServiceError> {
    let peer = running.peer().clone();
    let listed = peer.list_all_tools().await?;
    let caller: Arc<dyn RemoteCaller> = Arc::new(Connection { server: name.to_owned(), peer });
    let tools: Vec<Tool> = listed
        .into_iter()
        .map(|tool| {
            Tool::Remote(Arc::new(RemoteTool {
                name: intern(&remote_name(name, &tool.name)),
                server: name.to_owned(),
                remote_name: tool.name.to_string(),
                description: tool.description.as_deref().unwrap_or_default().to_owned(),
                parameters: Value::Object((*tool.input_schema).clone()),
                level: server.level,
                scope: server.scope,
                caller: caller.clone(),
            }))
        })
        .collect();
    let count = tools.len();
    remote.offer(name, tools);
    Ok(count)
}

/// One live connection to a server.
struct Connection {
    server: String,
    peer: Peer<RoleClient>,
}

#[async_trait]
impl RemoteCaller for Connection {
    async fn call(&self, tool: &str, args: Value) -> ToolResult {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        if let Value::Object(arguments) = args {
            params.arguments = Some(arguments);
        }
        // The server's spans join the bot's trace: W3C trace context in `_meta`.
        let span = crate::infra::otel::mcp_span(tool, false);
        if let Some(traceparent) = crate::infra::otel::traceparent_of(&span) {
            let mut meta = rmcp::model::RequestMetaObject::default();
            meta.set_traceparent(traceparent);
            params.meta = Some(meta);
        }
        let called = tracing::Instrument::instrument(self.peer.call_tool(params), span.clone()).await;
        if let Err(e) = &called {
            crate::infra::otel::record_error(
                &span,
                if matches!(e, rmcp::ServiceError::Timeout { .. }) { "timeout" } else { "unreachable" },
            );
        } else if let Ok(result) = &called
            && result.is_error == Some(true)
        {
            crate::infra::otel::record_error(&span, "tool_error");
        }
        match called {
            Ok(result) if result.is_error == Some(true) => {
                Err(ToolError::Service { service: self.server.clone(), message: text_of(&result) })
            }
            Ok(result) => Ok(ToolOutput::new(data_of(result))),
            Err(e) => {
                tracing::warn!(server = %self.server, tool, error = %e, "MCP tool call failed");
                Err(ToolError::Service {
                    service: self.server.clone(),
                    message: "the service is not reachable right now".to_owned(),
                })
            }
        }
    }
}

/// The text parts of a result, joined (what the server said went wrong).
fn text_of(result: &CallToolResult) -> String {
    let text = joined_text(result);
    if text.is_empty() { "it reported an error".to_owned() } else { text }
}

fn joined_text(result: &CallToolResult) -> String {
    let texts: Vec<&str> =
        result.content.iter().filter_map(|block| block.as_text().map(|text| text.text.as_str())).collect();
    texts.join("\n")
}

/// What the model reads of a result: the structured content when there is
/// some, else the text (as JSON when it is JSON).
fn data_of(result: CallToolResult) -> Value {
    if let Some(data) = result.structured_content.clone().filter(|v| !v.is_null()) {
        return data;
    }
    let text = joined_text(&result);
    serde_json::from_str::<Value>(&text).unwrap_or_else(|_| json!({ "text": text }))
}
