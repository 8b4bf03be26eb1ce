//! [`Config::validate`]: the checks the types alone cannot make, each
//! naming the key and what was wrong.

use super::*;

impl Config {
    /// Checks the values that the types alone cannot.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if self.llm.provider == Provider::Openai {
            if self.llm.base_url.trim().is_empty() {
                return Err(invalid(
                    "llm.base_url",
                    "required when llm.provider = \"openai\" (e.g. https://api.deepseek.com/v1)",
                ));
            }
            check_url("llm.base_url", &self.llm.base_url)?;
            if self.llm.model.trim().is_empty() {
                return Err(invalid(
                    "llm.model",
                    "required when llm.provider = \"openai\" (e.g. deepseek-chat)",
                ));
            }
        }
        if self.llm.max_rounds == 0 {
            return Err(invalid("llm.max_rounds", "must be at least 1"));
        }
        if self.alerts.ttl_days == 0 {
            return Err(invalid("alerts.ttl_days", "must be at least 1 day"));
        }
        if !(1..=30).contains(&self.alerts.sends_per_sec) {
            return Err(invalid("alerts.sends_per_sec", "must be 1 to 30 (Telegram's limit)"));
        }
        if self.llm.request_timeout_secs == 0 || self.llm.tool_timeout_secs == 0 {
            return Err(invalid(
                "llm.request_timeout_secs / llm.tool_timeout_secs",
                "must be at least 1 second",
            ));
        }
        if self.stt.enabled() {
            if self.stt.base_url.trim().is_empty() {
                return Err(invalid(
                    "stt.base_url",
                    "required when stt.provider = \"openai\" (e.g. https://api.openai.com/v1)",
                ));
            }
            check_url("stt.base_url", &self.stt.base_url)?;
            if self.stt.model.trim().is_empty() {
                return Err(invalid("stt.model", "required when stt.provider is set (e.g. whisper-1)"));
            }
            if self.stt.max_seconds == 0 {
                return Err(invalid("stt.max_seconds", "must be at least 1"));
            }
            if self.stt.timeout_secs == 0 {
                return Err(invalid("stt.timeout_secs", "must be at least 1 second"));
            }
        }
        if self.mall.backend == MallBackend::Http {
            if self.mall.base_url.trim().is_empty() {
                return Err(invalid("mall.base_url", "required when mall.backend = \"http\""));
            }
            check_url("mall.base_url", &self.mall.base_url)?;
        }
        let info_dir = self.mall.info_dir.trim();
        if !info_dir.is_empty() && !std::path::Path::new(info_dir).is_dir() {
            let why =
                if std::path::Path::new(info_dir).exists() { "is not a folder" } else { "does not exist" };
            return Err(invalid(
                "mall.info_dir",
                format!("`{info_dir}` {why}: give a folder of Markdown files (.md), or leave it empty"),
            ));
        }
        let data = self.mall.data.trim();
        if !data.is_empty() {
            if self.mall.backend != MallBackend::Embedded {
                return Err(invalid(
                    "mall.data",
                    "is served by the embedded mall: set mall.backend = \"embedded\" (or leave mall.data empty)",
                ));
            }
            if !std::path::Path::new(data).is_dir() {
                let why =
                    if std::path::Path::new(data).exists() { "is not a folder" } else { "does not exist" };
                return Err(invalid(
                    "mall.data",
                    format!(
                        "`{data}` {why}: give the folder of the mall's data (docs/your-mall.md), or leave it empty"
                    ),
                ));
            }
        }
        let url = &self.state.url;
        if !(url.starts_with("sqlite://")
            || url.starts_with("redis://")
            || url.starts_with("rediss://")
            || url == "memory://")
        {
            return Err(invalid(
                "state.url",
                format!("`{url}`: use sqlite://PATH, redis://HOST:PORT or memory://"),
            ));
        }
        check_url("telegram.api_url", &self.telegram.api_url)?;
        if self.telegram.mode == TelegramMode::Webhook {
            let self_hosted = !self.telegram.api_url.starts_with("https://api.telegram.org");
            let scheme_ok = self.telegram.webhook_url.starts_with("https://")
                || (self_hosted && self.telegram.webhook_url.starts_with("http://"));
            if !scheme_ok {
                return Err(invalid(
                    "telegram.webhook_url",
                    "webhook mode needs the public https:// URL (http:// only with a self-hosted Bot API \
                     server, telegram.api_url, in local mode)",
                ));
            }
            if self.telegram.webhook_listen.parse::<std::net::SocketAddr>().is_err() {
                return Err(invalid("telegram.webhook_listen", "must be an address like 0.0.0.0:8443"));
            }
            if self.telegram.webhook_secret.is_empty() {
                return Err(invalid("telegram.webhook_secret", "webhook mode needs a secret token"));
            }
        }
        let listen = self.ops.listen.trim();
        if !listen.is_empty() && listen.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid("ops.listen", format!("`{listen}` is not an address like 127.0.0.1:9464")));
        }
        if self.telegram.mode == TelegramMode::Webhook && !listen.is_empty() {
            let same_port = |a: &str, b: &str| {
                let (a, b) = (a.parse::<std::net::SocketAddr>(), b.parse::<std::net::SocketAddr>());
                matches!((a, b), (Ok(a), Ok(b)) if a.port() == b.port())
            };
            if same_port(listen, self.telegram.webhook_listen.trim()) {
                return Err(invalid(
                    "ops.listen",
                    "must not be the webhook's port (telegram.webhook_listen): the ops endpoints stay off \
                     the public listener; use e.g. 127.0.0.1:9464",
                ));
            }
        }
        let webapp = self.webapp.listen.trim();
        if !webapp.is_empty() && webapp.parse::<std::net::SocketAddr>().is_err() {
            return Err(invalid(
                "webapp.listen",
                format!("`{webapp}` is not an address like 127.0.0.1:8090"),
            ));
        }
        let public = self.webapp.public_url.trim();
        if !public.is_empty() {
            if !public.starts_with("https://") {
                return Err(invalid("webapp.public_url", "Telegram opens Mini Apps over https:// only"));
            }
            check_url("webapp.public_url", public)?;
        }
        if self.webapp.init_data_max_age_secs == 0 {
            return Err(invalid("webapp.init_data_max_age_secs", "must be at least 1"));
        }
        let currency = self.payments.currency.trim();
        if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
            return Err(invalid(
                "payments.currency",
                format!("`{currency}` is not an ISO 4217 code of three capital letters (e.g. CNY)"),
            ));
        }
        if self.payments.order_ttl_mins < 5 {
            return Err(invalid(
                "payments.order_ttl_mins",
                "must be at least 5 (a shopper needs time to pay, and an order within 2 minutes of \
                 its expiry is not taken)",
            ));
        }
        if self.payments.max_open_orders == 0 {
            return Err(invalid("payments.max_open_orders", "must be at least 1"));
        }
        if self.payments.provider_token.expose().trim() != self.payments.provider_token.expose() {
            return Err(invalid(
                "payments.provider_token",
                "has spaces around it; copy it again from @BotFather",
            ));
        }
        if self.safety.confirm_ttl_secs == 0 {
            return Err(invalid("safety.confirm_ttl_secs", "must be at least 1"));
        }
        if self.support.chat_id > 0 {
            return Err(invalid(
                "support.chat_id",
                "must be the desk's supergroup id, which is negative (-100…); a positive id is a person",
            ));
        }
        let wait = self.support.answer_within_mins;
        if !wait.is_finite() || !(0.0..=1440.0).contains(&wait) {
            return Err(invalid(
                "support.answer_within_mins",
                "must be between 0 (never ask) and 1440 minutes",
            ));
        }
        crate::engine::support::parse_offset(&self.support.utc_offset)
            .map_err(|why| invalid("support.utc_offset", why))?;
        crate::engine::support::Hours::parse(&self.support.hours)
            .map_err(|why| invalid("support.hours", why))?;
        if self.report.keep_days == 0 {
            return Err(invalid("report.keep_days", "must be at least 1"));
        }
        if self.bot.history_messages < 2 {
            return Err(invalid("bot.history_messages", "must be at least 2"));
        }
        for (name, server) in &self.mcp.servers {
            let key = format!("mcp.servers.{name}");
            if name.is_empty()
                || name.contains("__")
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                return Err(invalid(&key, "the name must be letters, digits, `-` or `_` (no `__`)"));
            }
            match (server.command.trim().is_empty(), server.url.trim().is_empty()) {
                (true, true) => {
                    return Err(invalid(&key, "needs `command` (stdio) or `url` (streamable HTTP)"));
                }
                (false, false) => return Err(invalid(&key, "has both `command` and `url`; keep one")),
                (true, false) => check_url(&format!("{key}.url"), &server.url)?,
                (false, true) => {}
            }
        }
        if self.mcp.tokens.keys().any(|token| token.is_empty()) {
            return Err(invalid("mcp.tokens", "a token cannot be empty"));
        }
        if !self.otel.endpoint.trim().is_empty() {
            check_url("otel.endpoint", self.otel.endpoint.trim())?;
        }
        if !(0.0..=1.0).contains(&self.otel.sample_ratio) {
            return Err(invalid(
                "otel.sample_ratio",
                format!("must be between 0.0 and 1.0, got {}", self.otel.sample_ratio),
            ));
        }
        if self.otel.service_name.trim().is_empty() {
            return Err(invalid("otel.service_name", "cannot be empty (e.g. \"mallbot\")"));
        }
        for name in self.tools.keys() {
            let lent = name
                .split_once("__")
                .is_some_and(|(server, tool)| !tool.is_empty() && self.mcp.servers.contains_key(server));
            if handlers::find(name).is_none() && !lent {
                let known: Vec<&str> = handlers::all().iter().map(|s| s.name).collect();
                return Err(invalid(
                    &format!("tools.{name}"),
                    format!(
                        "no such tool; known: {} (or SERVER__tool for a server in [mcp.servers])",
                        known.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

fn check_url(key: &str, url: &str) -> Result<(), ConfigError> {
    match reqwest::Url::parse(url) {
        Ok(u) if u.scheme() == "http" || u.scheme() == "https" => Ok(()),
        Ok(u) => Err(invalid(key, format!("`{url}` must be http:// or https://, not {}://", u.scheme()))),
        Err(e) => Err(invalid(key, format!("`{url}` is not a URL: {e}"))),
    }
}
