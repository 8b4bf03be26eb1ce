//! [`App`] assembled from its config — the mall, the model, the state store
//! and the router — shared by every transport and command. The struct itself
//! is the engine's (`engine/bot.rs`), so transports take it without reaching
//! up here; its builders are here, where everything may be named.
//!
//! `open_map` opens `mall.imdf`, else the demo mall's own map for the
//! embedded mall; `open_mall` wraps the mall in `WithInfoFolder` when
//! `mall.info_dir` is set, as `mall-server` does; the state store is wrapped
//! in `TimedStore` by `App::with_map`, where every constructor ends.
//! `connect_mcp_servers` (called by `run`, `chat` and `check`, not by `mcp`)
//! starts the `[mcp.servers]` connections and waits for each to be tried
//! once.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use services::MallApi;

use crate::engine::fallback::ChatFallback;
use crate::engine::llm::ChatModel;
use crate::engine::llm::offline::OfflinePlanner;
use crate::engine::llm::openai::{OpenAiClient, OpenAiSettings};
use crate::engine::router::{
    ConfirmSettings, DeskSettings, DoorSettings, FunctionCallRouter, RouterParts, RouterSettings,
    TurnSettings,
};
pub(crate) use crate::engine::stats::Stats;
use crate::engine::tools::RemoteTools;
use crate::infra::config::{Config, MallBackend, Provider};
use crate::infra::state::StateStore;

pub use crate::engine::bot::App;
pub(crate) use crate::infra::mall_data::open_map;

impl App {
    /// Builds the bot from its config: opens the mall and the state store.
    pub async fn build(config: Config) -> anyhow::Result<App> {
        let mall = open_mall(&config)?;
        let state = crate::infra::state::open(&config.state.url).await.with_context(|| {
            format!(
                "cannot open the state store (state.url = {})",
                crate::infra::redact::shown_url(&config.state.url)
            )
        })?;
        crate::infra::otel::key_conversations(state.as_ref()).await;
        Self::with_parts(config, mall, state)
    }

    /// Connects to the MCP servers of `[mcp.servers]` in the background; their
    /// tools join the router's as each connects (none configured: nothing).
    pub fn start_mcp_servers(&self) {
        crate::transports::mcp::client::start(&self.config.mcp.servers, &self.remote);
    }

    /// Starts the MCP servers and waits until each has been tried once, at
    /// most `mcp.connect_timeout_secs` (at least `floor`): the first turn
    /// then sees the tools of every server that answered. One still
    /// connecting after that joins when it connects (logged).
    pub async fn connect_mcp_servers(&self, floor: std::time::Duration) {
        if self.config.mcp.servers.is_empty() {
            return;
        }
        self.start_mcp_servers();
        let limit = std::time::Duration::from_secs(self.config.mcp.connect_timeout_secs).max(floor);
        self.remote.settled(limit).await;
        for server in self.remote.status() {
            if server.state == crate::engine::tools::ServerState::Starting {
                tracing::warn!(server = %server.name, waited_secs = limit.as_secs(), "MCP server still connecting; starting without its tools");
            }
        }
    }

    /// Builds the bot around a given mall and state store (tests use this).
    pub fn with_parts(
        config: Config,
        mall: Arc<dyn MallApi>,
        state: Arc<dyn StateStore>,
    ) -> anyhow::Result<App> {
        let model = open_model(&config, mall.clone())?;
        let map = open_map(&config)?;
        Ok(Self::with_map(config, mall, state, model, map))
    }

    /// Builds the bot around a given mall, state store and model; a map
    /// that cannot be read is logged and left out.
    pub fn with_model(
        config: Config,
        mall: Arc<dyn MallApi>,
        state: Arc<dyn StateStore>,
        model: Arc<dyn ChatModel>,
    ) -> App {
        let map = open_map(&config).unwrap_or_else(|e| {
            tracing::error!(error = format!("{e:#}"), "the indoor map is not used");
            None
        });
        Self::with_map(config, mall, state, model, map)
    }

    /// Builds the bot around a given mall, state store, model and indoor map.
    pub(crate) fn with_map(
        config: Config,
        mall: Arc<dyn MallApi>,
        state: Arc<dyn StateStore>,
        model: Arc<dyn ChatModel>,
        map: Option<Arc<maps::Router>>,
    ) -> App {
        // OpenCC's dictionaries (Traditional Chinese) open on a thread of their
        // own, not in the first Chinese message's turn.
        let _ = std::thread::Builder::new().name("opencc".into()).spawn(handlers::texts::zh_hant::warm_up);
        // Every state-store operation is timed for `/metrics`.
        let state: Arc<dyn StateStore> = Arc::new(crate::infra::state::timed::TimedStore(state));
        let stats = Arc::new(Stats::default());
        let planner = OfflinePlanner::learning(mall.clone());
        let chat_model = (config.llm.provider == Provider::Openai).then(|| model.clone());
        let remote = Arc::new(RemoteTools::default());
        let alerts = Arc::new(crate::engine::alerts::Alerts::new(state.clone(), config.alerts.clone()));
        let router = FunctionCallRouter::new(RouterParts {
            model: model.clone(),
            planner,
            chat: ChatFallback::new(chat_model),
            mall: mall.clone(),
            state: state.clone(),
            stats: stats.clone(),
            settings: router_settings(&config),
            map,
        })
        .with_remote_tools(remote.clone())
        .with_alerts(alerts.clone());
        let stt = crate::engine::stt::SpeechToText::from_config(&config.stt).map(Arc::new);
        App {
            stt,
            config: Arc::new(config),
            router: Arc::new(router),
            mall,
            model,
            state,
            stats,
            started: Instant::now(),
            lifecycle: Arc::default(),
            remote,
            alerts,
        }
    }
}

/// The router's settings from the config, part by part.
pub(crate) fn router_settings(config: &Config) -> RouterSettings {
    RouterSettings {
        door: DoorSettings {
            allowed_users: config.bot.allowed_users.clone(),
            allowed_chats: config.bot.allowed_chats.clone(),
            rate_limit_per_minute: config.bot.rate_limit_per_minute,
            daily_tokens_per_user: config.bot.daily_tokens_per_user,
            admins: config.telegram.admins.clone(),
        },
        confirm: ConfirmSettings {
            confirm_ttl: Duration::from_secs(config.safety.confirm_ttl_secs),
            critical_code: config.safety.critical_code,
            levels: config.tools.iter().map(|(name, o)| (name.clone(), o.level)).collect(),
            payments_online: config.payments.enabled(),
            order_ttl_mins: config.payments.order_ttl_mins,
        },
        turn: TurnSettings {
            max_rounds: config.llm.max_rounds,
            direct_answers: config.llm.direct_answers,
            tool_timeout: config.tool_timeout(),
            history_messages: config.bot.history_messages,
            history_tokens: config.bot.history_tokens,
            tool_cache_ttl: Duration::from_secs(config.bot.tool_cache_secs),
            ..TurnSettings::default()
        },
        desk: DeskSettings {
            desk: crate::engine::support::Desk::new(
                config.support.chat_id,
                &config.support.hours,
                &config.support.utc_offset,
                config.support.answer_within_mins,
            ),
            report_keep: Duration::from_secs(config.report.keep_days.max(1) * 86_400),
        },
    }
}

/// The mall the config names, its information from `mall.info_dir` when set.
pub fn open_mall(config: &Config) -> anyhow::Result<Arc<dyn MallApi>> {
    with_info_dir(config, open_backend(config)?)
}

/// `mall`, answering the mall's information from the Markdown folder `mall.info_dir` when set.
/// A mall's data folder (`mall.data`) with an `info/` folder stands for `mall.info_dir` when
/// that is empty.
pub(crate) fn with_info_dir(config: &Config, mall: Arc<dyn MallApi>) -> anyhow::Result<Arc<dyn MallApi>> {
    let configured = config.mall.info_dir.trim();
    let dir = if configured.is_empty() {
        match crate::infra::mall_data::data_dir(config).and_then(crate::infra::mall_data::info_in) {
            Some(dir) => dir,
            None => return Ok(mall),
        }
    } else {
        std::path::PathBuf::from(configured)
    };
    let key = if configured.is_empty() { "mall.data" } else { "mall.info_dir" };
    let folder = services::InfoFolder::open(&dir)
        .with_context(|| format!("cannot read the mall's information ({key}: {})", dir.display()))?;
    Ok(Arc::new(services::WithInfoFolder::new(mall, folder)))
}

/// The mall backend the config names.
fn open_backend(config: &Config) -> anyhow::Result<Arc<dyn MallApi>> {
    Ok(match config.mall.backend {
        MallBackend::Embedded => Arc::new(
            crate::infra::mall_data::open_embedded(config)?, /* POLICY-PENDING .with_policy(config.order_policy()) */
        ),
        MallBackend::Http => Arc::new(
            services::HttpMall::new(services::HttpMallConfig {
                base_url: config.mall.base_url.clone(),
                api_key: config.mall.api_key.expose().to_owned(),
                request_timeout: Duration::from_secs(config.mall.request_timeout_secs),
                max_retries: config.mall.max_retries,
                ..services::HttpMallConfig::default()
            })
            .context("mall.base_url")?
            .with_staff_key(config.mall.staff_key.expose())
            .context("mall.staff_key")?,
        ),
    })
}

/// The model the config names; the offline planner learns the names of `mall`.
pub(crate) fn open_model(config: &Config, mall: Arc<dyn MallApi>) -> anyhow::Result<Arc<dyn ChatModel>> {
    Ok(match config.llm.provider {
        Provider::Offline => Arc::new(OfflinePlanner::learning(mall)),
        Provider::Openai => Arc::new(
            OpenAiClient::new(OpenAiSettings {
                base_url: config.llm.base_url.clone(),
                api_key: config.llm.api_key.clone(),
                model: config.llm.model.clone(),
                request_timeout: config.request_timeout(),
                max_retries: config.llm.max_retries,
                stream: config.llm.stream,
                temperature: config.llm.temperature,
                max_tokens: config.llm.max_tokens,
                max_concurrent: config.llm.max_concurrent,
            })
            .context("llm settings")?,
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_mall_has_its_map_a_remote_mall_none_and_a_broken_path_is_named() {
        let mut config = Config::default();
        let demo = open_map(&config).expect("no error").expect("the embedded mall's own map");
        assert!(demo.map().find_place("s-uniqlo").is_some());

        config.mall.backend = MallBackend::Http;
        assert!(open_map(&config).expect("no error").is_none(), "no map data: text directions");

        config.mall.imdf = "/nonexistent/mall-imdf.zip".into();
        let err = format!("{:#}", open_map(&config).expect_err("refused"));
        assert!(
            err.starts_with(
                "cannot use the indoor map (mall.imdf = /nonexistent/mall-imdf.zip): cannot read"
            ),
            "{err}"
        );

        config.mall.imdf = concat!(env!("CARGO_MANIFEST_DIR"), "/maps/data/demo-imdf").into();
        let from_folder = open_map(&config).expect("no error").expect("a map from the folder");
        assert_eq!(from_folder.map().levels.len(), 6);
    }

    #[test]
    fn a_malls_own_data_brings_its_own_map_or_none_never_the_demos() {
        let mut config = Config::default();
        config.mall.data = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/malls/riverside").into();
        let map = open_map(&config).expect("no error").expect("the folder's imdf/");
        assert_eq!(map.map().levels.len(), 3);
        assert!(map.map().find_place("s-chagee").is_some());
        assert!(map.map().find_place("s-uniqlo").is_none(), "not the demo's map");

        config.mall.data =
            concat!(env!("CARGO_MANIFEST_DIR"), "/services/tests/fixtures/ten-mistakes").into();
        assert!(open_map(&config).expect("no error").is_none(), "no map in the folder: text directions");
    }
}
