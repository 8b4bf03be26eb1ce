//! [`App`]: the bot assembled from its config — the mall, the model, the state
//! store and the router — shared by every transport and command.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use services::MallApi;

use crate::config::{Config, MallBackend, Provider};
use crate::fallback::ChatFallback;
use crate::llm::ChatModel;
use crate::llm::offline::OfflinePlanner;
use crate::llm::openai::{OpenAiClient, OpenAiSettings};
use crate::router::{FunctionCallRouter, RouterParts, RouterSettings};
use crate::state::StateStore;
pub use crate::stats::Stats;

/// The assembled bot.
#[derive(Clone)]
pub struct App {
    pub config: Arc<Config>,
    pub router: Arc<FunctionCallRouter>,
    pub mall: Arc<dyn MallApi>,
    pub model: Arc<dyn ChatModel>,
    pub state: Arc<dyn StateStore>,
    pub stats: Arc<Stats>,
    pub started: Instant,
}

impl App {
    /// Builds the bot from its config: opens the mall and the state store.
    pub async fn build(config: Config) -> anyhow::Result<App> {
        let mall = open_mall(&config)?;
        let state = crate::state::open(&config.state.url)
            .await
            .with_context(|| format!("cannot open the state store (state.url = {})", config.state.url))?;
        Self::with_parts(config, mall, state)
    }

    /// Builds the bot around a given mall and state store (tests use this).
    pub fn with_parts(
        config: Config,
        mall: Arc<dyn MallApi>,
        state: Arc<dyn StateStore>,
    ) -> anyhow::Result<App> {
        let model = open_model(&config, mall.clone())?;
        Ok(Self::with_model(config, mall, state, model))
    }

    /// Builds the bot around a given mall, state store and model.
    pub fn with_model(
        config: Config,
        mall: Arc<dyn MallApi>,
        state: Arc<dyn StateStore>,
        model: Arc<dyn ChatModel>,
    ) -> App {
        let stats = Arc::new(Stats::default());
        let planner: Arc<dyn ChatModel> = Arc::new(OfflinePlanner::learning(mall.clone()));
        let chat_model = (config.llm.provider == Provider::Openai).then(|| model.clone());
        let router = FunctionCallRouter::new(RouterParts {
            model: model.clone(),
            planner,
            chat: ChatFallback::new(chat_model),
            mall: mall.clone(),
            state: state.clone(),
            stats: stats.clone(),
            settings: router_settings(&config),
        });
        App {
            config: Arc::new(config),
            router: Arc::new(router),
            mall,
            model,
            state,
            stats,
            started: Instant::now(),
        }
    }
}

/// The router's settings from the config.
pub fn router_settings(config: &Config) -> RouterSettings {
    RouterSettings {
        max_rounds: config.llm.max_rounds,
        tool_timeout: config.tool_timeout(),
        history_messages: config.bot.history_messages,
        confirm_ttl: Duration::from_secs(config.safety.confirm_ttl_secs),
        critical_code: config.safety.critical_code,
        levels: config.tools.iter().map(|(name, o)| (name.clone(), o.level)).collect(),
        rate_limit_per_minute: config.bot.rate_limit_per_minute,
        max_concurrent_model_calls: config.llm.max_concurrent,
        ..RouterSettings::default()
    }
}

/// The mall the config names.
pub fn open_mall(config: &Config) -> anyhow::Result<Arc<dyn MallApi>> {
    Ok(match config.mall.backend {
        MallBackend::Embedded => {
            let path = std::path::Path::new(&config.mall.embedded_db);
            Arc::new(services::EmbeddedMall::open(path).with_context(|| {
                format!("cannot open the embedded mall's database (mall.embedded_db = {})", path.display())
            })?)
        }
        MallBackend::Http => Arc::new(
            services::HttpMall::new(services::HttpMallConfig {
                base_url: config.mall.base_url.clone(),
                api_key: config.mall.api_key.clone(),
                request_timeout: Duration::from_secs(config.mall.request_timeout_secs),
                max_retries: config.mall.max_retries,
                ..services::HttpMallConfig::default()
            })
            .context("mall.base_url")?,
        ),
    })
}

/// The model the config names; the offline planner learns the names of `mall`.
pub fn open_model(config: &Config, mall: Arc<dyn MallApi>) -> anyhow::Result<Arc<dyn ChatModel>> {
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
            })
            .context("llm settings")?,
        ),
    })
}
