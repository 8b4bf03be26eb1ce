//! The health check behind `mallbot check` and `/health`: config, registry,
//! model, mall and state store, each checked for real, with latencies.
//!
//! There is one `mcp server` line per `[mcp.servers]` entry (state and tool
//! count). `mallbot check` adds a `telegram` line (the token tried with
//! `getMe`) when a token is set, and with `[support] chat_id` a `support
//! desk` line (`getChatMember`: the bot the owner, or an admin that manages
//! topics). `/readyz` reuses the state store's and the mall's checks
//! (`transports/ops.rs`).

use std::fmt::Write as _;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use handlers::Lang;

use crate::engine::App;
use crate::infra::config::Provider;

/// One checked component.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// `config`, `registry`, `model`, `mall`, `state`, `transcription` (with `[stt]`),
    /// `telegram` (in `mallbot check`, with a token).
    pub name: &'static str,
    pub ok: bool,
    /// What was found (or what is wrong and what to do).
    pub detail: String,
    /// How long the check took, for remote components.
    pub(crate) latency_ms: Option<u64>,
}

/// The whole picture.
#[derive(Debug, Clone, PartialEq)]
pub struct HealthReport {
    pub(crate) version: &'static str,
    pub(crate) uptime: Duration,
    pub checks: Vec<Check>,
    pub(crate) tools: usize,
    pub(crate) messages_handled: u64,
    pub(crate) errors: u64,
    pub(crate) tokens_in: u64,
    pub(crate) tokens_out: u64,
    pub(crate) tokens_cached: u64,
    pub(crate) tool_cache_hits: u64,
    pub(crate) pending_confirmations: Option<u64>,
    /// The model's concurrency: limit, calls in flight, queue (real models only).
    pub(crate) model_load: Option<crate::engine::llm::limit::LimitReport>,
    /// The last few errors, `[turn a1b2c3] what`, oldest first.
    pub(crate) last_errors: Vec<String>,
}

impl HealthReport {
    /// True when every check passed.
    pub fn all_ok(&self) -> bool {
        self.checks.iter().all(|c| c.ok)
    }

    /// The report as text for an operator.
    pub fn render(&self, _lang: Lang) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "mallbot {} — {}",
            self.version,
            if self.all_ok() { "healthy" } else { "DEGRADED" }
        );
        let _ = writeln!(out, "uptime: {}", human_duration(self.uptime));
        for c in &self.checks {
            let mark = if c.ok { "✅" } else { "❌" };
            let latency = c.latency_ms.map(|ms| format!(" ({ms} ms)")).unwrap_or_default();
            let _ = writeln!(out, "{mark} {}: {}{latency}", c.name, c.detail);
        }
        let _ = writeln!(out, "messages handled: {}, errors: {}", self.messages_handled, self.errors);
        if !self.last_errors.is_empty() {
            let _ = writeln!(out, "last errors: {}", self.last_errors.join("; "));
        }
        let _ = writeln!(
            out,
            "model tokens: {} in ({} cached by the provider), {} out; tool results from cache: {}",
            self.tokens_in, self.tokens_cached, self.tokens_out, self.tool_cache_hits
        );
        if let Some(load) = self.model_load {
            let ceiling = match load.ceiling {
                Some(ceiling) => format!("ceiling {ceiling}"),
                None => "adaptive".to_owned(),
            };
            let _ = writeln!(
                out,
                "model calls: limit {} ({ceiling}), in flight {}, queued {}",
                load.limit, load.in_flight, load.queued
            );
        }
        match self.pending_confirmations {
            Some(n) => {
                let _ = write!(out, "pending confirmations: {n}");
            }
            None => {
                let _ = write!(out, "pending confirmations: unknown (state store unreachable)");
            }
        }
        out
    }
}

impl HealthReport {
    /// The report of a one-off `mallbot check`: what a check can know (config, data, map,
    /// desk, model, mall…), not a running bot's counters (uptime, messages, tokens).
    pub fn render_check(&self) -> String {
        let mut out = String::new();
        let _ =
            write!(out, "mallbot {} — {}", self.version, if self.all_ok() { "ready" } else { "NOT READY" });
        for c in &self.checks {
            let mark = if c.ok { "✅" } else { "❌" };
            let latency = c.latency_ms.map(|ms| format!(" ({ms} ms)")).unwrap_or_default();
            let _ = write!(out, "\n{mark} {}: {}{latency}", c.name, c.detail);
        }
        out
    }
}

/// What `mallbot check` adds to the components: the indoor map (and the stores it does
/// not place) and where a shopper asking for a person is sent.
pub async fn setup_checks(app: &App) -> Vec<Check> {
    vec![map_check(app).await, desk_check(app).await]
}

/// The indoor map the bot routes on, and the stores of the mall it does not place.
async fn map_check(app: &App) -> Check {
    let check = |ok, detail| Check { name: "map", ok, detail, latency_ms: None };
    let router = match crate::infra::mall_data::open_map(&app.config) {
        Ok(Some(router)) => router,
        Ok(None) => return check(true, "none: directions give the floor and unit, no distance".into()),
        Err(e) => return check(false, format!("{e:#}")),
    };
    let map = router.map();
    let source = match (app.config.mall.imdf.trim(), crate::infra::mall_data::data_dir(&app.config)) {
        ("", Some(dir)) => crate::infra::mall_data::map_in(dir).map(|p| p.display().to_string()),
        ("", None) => Some("the demo mall's".to_owned()),
        (path, _) => Some(path.to_owned()),
    }
    .unwrap_or_default();
    let mut stores = Vec::new();
    loop {
        let page = services::PageRequest {
            limit: Some(services::PageRequest::MAX_LIMIT),
            offset: Some(stores.len() as u32),
        };
        match app.mall.search_stores(&services::StoreQuery { page, ..Default::default() }).await {
            Ok(found) if !found.items.is_empty() => {
                let total = found.total as usize;
                stores.extend(found.items);
                if stores.len() >= total {
                    break;
                }
            }
            Ok(_) => break,
            Err(e) => return check(false, format!("{source}: the mall's stores could not be read: {e}")),
        }
    }
    let placed = stores.len();
    let missing = crate::infra::mall_data::off_the_map(stores.iter(), map, None);
    let mut detail = format!(
        "{source}: {} floors, {} of {placed} stores placed",
        map.levels.len(),
        placed - missing.len()
    );
    for line in missing {
        detail.push_str("\n   ⚠️ ");
        detail.push_str(&line);
    }
    check(true, detail)
}

/// Where a shopper asking for a person goes: the Telegram desk, else what the mall's own
/// information says of its service desk.
async fn desk_check(app: &App) -> Check {
    let support = &app.config.support;
    let detail = if support.chat_id != 0 {
        let hours =
            if support.hours.trim().is_empty() { "always open".to_owned() } else { support.hours.clone() };
        format!("Telegram group {} ({hours})", support.chat_id)
    } else {
        let sections = app.mall.mall_info().await.map(|p| p.items).unwrap_or_default();
        match sections.iter().find(|s| s.id == services::InfoSection::SERVICE_DESK) {
            Some(desk) => format!(
                "none (support.chat_id = 0): a shopper asking for a person is given the mall's \"{}\" section",
                desk.title
            ),
            None => "none (support.chat_id = 0): a shopper asking for a person is told to ask at the mall's service \
                     desk; a `service-desk` section in the mall's information would say where, when and its phone"
                .to_owned(),
        }
    };
    Check { name: "desk", ok: true, detail, latency_ms: None }
}

fn human_duration(d: Duration) -> String {
    let s = d.as_secs();
    format!("{}d {}h {}m {}s", s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60)
}

/// Whether orders are paid in chat, and the payments that need an operator:
/// those the mall refused (to refund) and those it has not recorded yet.
async fn payments_check(app: &App) -> Check {
    let config = &app.config.payments;
    let mode = if config.enabled() {
        format!("on (Telegram Bot Payments, {})", config.currency)
    } else {
        "off (paid at the store; set payments.provider_token)".to_owned()
    };
    let ledger =
        crate::engine::payments::Ledger::new(app.state.clone(), app.mall.clone(), Duration::from_secs(5));
    let (refused, waiting) = tokio::join!(ledger.refused(), ledger.waiting());
    let mut detail = mode;
    if !waiting.is_empty() {
        let _ = write!(detail, "; {} waiting for the mall to record them", waiting.len());
    }
    if !refused.is_empty() {
        let list: Vec<String> = refused
            .iter()
            .map(|r| {
                format!(
                    "order {} {} (charge {}, user {})",
                    if r.order_id.is_empty() { "?" } else { &r.order_id },
                    crate::engine::payments::amount_text(r.amount_cents, &r.currency),
                    r.charge_id,
                    r.user_id
                )
            })
            .collect();
        let _ = write!(detail, "; ⚠️ {} refused by the mall, to refund: {}", refused.len(), list.join(", "));
    }
    Check { name: "payments", ok: true, detail, latency_ms: None }
}

/// The mall's event feed: how often it is read and how far behind it is.
async fn events_check(app: &App) -> Check {
    let every = app.config.events.poll_secs;
    if every == 0 {
        return Check {
            name: "events",
            ok: true,
            detail: "off (events.poll_secs = 0)".into(),
            latency_ms: None,
        };
    }
    let lag = crate::engine::payments::EventFeed::lag(app.state.as_ref()).await;
    let detail = match lag.since_read {
        None => format!("every {every} s; not read yet"),
        Some(since) => {
            let age = lag
                .event_age
                .map(|a| format!("; newest event told {a} s after it happened"))
                .unwrap_or_default();
            format!("every {every} s; last read {since} s ago{age}")
        }
    };
    Check { name: "events", ok: true, detail, latency_ms: None }
}

/// Where traces go (`[otel]`), and how many exports failed; never failing:
/// a collector that is down does not stop the bot.
fn traces_check(app: &App) -> Check {
    let otel = &app.config.otel;
    let detail = if !crate::infra::otel::wanted(otel) {
        "off (set otel.endpoint, e.g. http://127.0.0.1:4318)".to_owned()
    } else {
        let to = if otel.endpoint.trim().is_empty() {
            "OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT".to_owned()
        } else {
            crate::infra::redact::shown_url(&crate::infra::otel::traces_url(&otel.endpoint))
        };
        let content = if otel.capture_content { "content recorded" } else { "no content" };
        let failed = crate::infra::otel::failed_exports();
        let failed = if failed > 0 { format!("; ⚠️ {failed} exports failed") } else { String::new() };
        let protocol = match otel.protocol {
            crate::infra::config::OtelProtocol::HttpProtobuf => "http/protobuf",
            crate::infra::config::OtelProtocol::HttpJson => "http/json",
        };
        format!(
            "to {to} ({protocol}, service {}, sample {}, {content}){failed}",
            otel.service_name, otel.sample_ratio
        )
    };
    Check { name: "traces", ok: true, detail, latency_ms: None }
}

/// Checks every component of `app`.
pub async fn collect(app: &App) -> HealthReport {
    let registry = registry_check();
    let (model, mall, state, stt, payments, events) = tokio::join!(
        model_check(app),
        mall_check(app),
        state_check(app),
        stt_check(app),
        payments_check(app),
        events_check(app)
    );
    let pending = app.state.count_pending().await.ok();
    let config = Check {
        name: "config",
        ok: true,
        detail: format!(
            "llm.provider = {}, mall.backend = {}, state.url = {}",
            app.config.llm.provider_name(),
            app.config.mall.backend_name(),
            redact_url(&app.config.state.url)
        ),
        latency_ms: None,
    };
    HealthReport {
        version: env!("CARGO_PKG_VERSION"),
        uptime: app.started.elapsed(),
        tools: handlers::all().len(),
        checks: [config, registry, model, mall, state, payments, events, traces_check(app)]
            .into_iter()
            .chain(stt)
            .chain(mcp_checks(app))
            .collect(),
        messages_handled: app.stats.messages_handled.load(Ordering::Relaxed),
        errors: app.stats.errors.load(Ordering::Relaxed),
        tokens_in: app.stats.tokens_in.load(Ordering::Relaxed),
        tokens_out: app.stats.tokens_out.load(Ordering::Relaxed),
        tokens_cached: app.stats.tokens_cached.load(Ordering::Relaxed),
        tool_cache_hits: app.stats.tool_cache_hits.load(Ordering::Relaxed),
        pending_confirmations: pending,
        model_load: app.router.model_load(),
        last_errors: app.stats.last_errors(),
    }
}

fn registry_check() -> Check {
    let tools = handlers::all();
    let mut names: Vec<&str> = tools.iter().map(|s| s.name).collect();
    names.dedup();
    let unique = names.len() == tools.len();
    let list: Vec<String> = tools.iter().map(|s| format!("{} ({})", s.name, s.level.as_str())).collect();
    Check {
        name: "registry",
        ok: !tools.is_empty() && unique,
        detail: format!("{} tools: {}", tools.len(), list.join(", ")),
        latency_ms: None,
    }
}

/// One line per MCP server of `[mcp.servers]`: its state, and each tool it
/// lends with the level it runs at (after `[tools.NAME] level`).
fn mcp_checks(app: &App) -> Vec<Check> {
    use crate::engine::tools::ServerState;
    let lent = app.remote.tools();
    app.remote
        .status()
        .into_iter()
        .map(|server| {
            let (ok, state) = match &server.state {
                ServerState::Up => (true, "up".to_owned()),
                ServerState::Starting => (false, "connecting".to_owned()),
                ServerState::Down(why) => (false, format!("down ({why}); retrying")),
            };
            Check {
                name: "mcp server",
                ok,
                detail: {
                    let prefix = format!("{}__", server.name);
                    let tools: Vec<String> = lent
                        .iter()
                        .filter(|t| t.name().starts_with(&prefix))
                        .map(|t| format!("{} ({})", t.name(), app.router.level_of(t).as_str()))
                        .collect();
                    if tools.is_empty() {
                        format!("{}: {state}, {} tools", server.name, server.tools)
                    } else {
                        format!("{}: {state}, {} tools: {}", server.name, server.tools, tools.join(", "))
                    }
                },
                latency_ms: None,
            }
        })
        .collect()
}

pub(crate) async fn model_check(app: &App) -> Check {
    let llm = &app.config.llm;
    if llm.provider == Provider::Offline {
        return Check {
            name: "model",
            ok: true,
            detail: "offline planner (no model configured)".into(),
            latency_ms: None,
        };
    }
    let started = Instant::now();
    let url = format!("{}/models", llm.base_url.trim_end_matches('/'));
    let client = reqwest::Client::builder().timeout(Duration::from_secs(5)).build();
    let result = match client {
        Ok(client) => {
            let mut request = client.get(&url);
            if !llm.api_key.is_empty() {
                request = request.bearer_auth(llm.api_key.expose());
            }
            request.send().await
        }
        Err(e) => Err(e),
    };
    let latency_ms = Some(started.elapsed().as_millis() as u64);
    let what = format!("{} at {}", app.model.describe(), redact_url(&llm.base_url));
    let (ok, detail) = match result {
        Ok(r) if r.status().is_success() => (true, format!("{what}: reachable")),
        Ok(r) if r.status().as_u16() == 401 || r.status().as_u16() == 403 => (
            false,
            format!("{what}: the API key was rejected (HTTP {}); check llm.api_key", r.status().as_u16()),
        ),
        Ok(r) if r.status().is_client_error() => {
            (true, format!("{what}: reachable (GET /models answered HTTP {})", r.status().as_u16()))
        }
        Ok(r) => (false, format!("{what}: HTTP {}", r.status().as_u16())),
        Err(e) if e.is_timeout() => (false, format!("{what}: no answer within 5 s")),
        Err(e) => (false, format!("{what}: unreachable ({})", crate::infra::redact::reqwest_error(e))),
    };
    Check { name: "model", ok, detail, latency_ms }
}

/// The transcription API (`[stt]`), when voice messages are transcribed.
pub(crate) async fn stt_check(app: &App) -> Option<Check> {
    let stt = app.stt.as_ref()?;
    let (ok, detail, latency) = stt.check().await;
    Some(Check { name: "transcription", ok, detail, latency_ms: Some(latency) })
}

pub(crate) async fn mall_check(app: &App) -> Check {
    let started = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(10), app.mall.health()).await;
    let latency_ms = Some(started.elapsed().as_millis() as u64);
    let backend = app.config.mall.backend_name();
    let (ok, detail) = match result {
        Ok(Ok(h)) => (h.status == "ok", format!("{backend}: status {}", h.status)),
        Ok(Err(e)) => (false, format!("{backend}: {e}")),
        Err(_) => (false, format!("{backend}: no answer within 10 s")),
    };
    Check { name: "mall", ok, detail, latency_ms }
}

pub(crate) async fn state_check(app: &App) -> Check {
    let started = Instant::now();
    let result = tokio::time::timeout(Duration::from_secs(5), app.state.health()).await;
    let latency_ms = Some(started.elapsed().as_millis() as u64);
    let (ok, detail) = match result {
        Ok(Ok(())) => (true, app.state.describe()),
        Ok(Err(e)) => (false, format!("{}: {e}", app.state.describe())),
        Err(_) => (false, format!("{}: no answer within 5 s", app.state.describe())),
    };
    Check { name: "state", ok, detail, latency_ms }
}

/// A URL without userinfo, query and fragment, for logs and reports.
pub(crate) fn redact_url(url: &str) -> String {
    crate::infra::redact::shown_url(url)
}
