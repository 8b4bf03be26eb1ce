//! [`Config::validate`]: the checks the types alone cannot make. Every
//! mistake is found in one pass, each naming its key and what was wrong, so
//! an operator fixes them all at once; one small check per section.

use std::net::SocketAddr;
use std::path::Path;

use super::*;

/// One mistake in the config: the key and what was wrong with its value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mistake {
    pub(crate) key: String,
    pub(crate) message: String,
}

impl std::fmt::Display for Mistake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "config key `{}`: {}", self.key, self.message)
    }
}

/// The mistakes found so far.
#[derive(Default)]
struct Found(Vec<Mistake>);

impl Found {
    fn add(&mut self, key: &str, message: impl Into<String>) {
        self.0.push(Mistake { key: key.to_owned(), message: message.into() });
    }

    /// `url` is an http:// or https:// URL; otherwise a mistake of `key`.
    fn url(&mut self, key: &str, url: &str) {
        match reqwest::Url::parse(url) {
            Ok(u) if u.scheme() == "http" || u.scheme() == "https" => {}
            Ok(u) => self.add(key, format!("`{url}` must be http:// or https://, not {}://", u.scheme())),
            Err(e) => self.add(key, format!("`{url}` is not a URL: {e}")),
        }
    }

    /// `value` is required (not blank); then a URL.
    fn required_url(&mut self, key: &str, value: &str, why: &str) {
        if value.trim().is_empty() {
            self.add(key, why);
        } else {
            self.url(key, value);
        }
    }

    fn at_least_one(&mut self, key: &str, value: u64, unit: &str) {
        if value == 0 {
            self.add(key, format!("must be at least 1{unit}"));
        }
    }
}

fn is_address(text: &str) -> bool {
    text.parse::<SocketAddr>().is_ok()
}

/// Why `path` is not a folder: it does not exist, or is something else.
fn not_a_folder(path: &str) -> Option<&'static str> {
    let path = Path::new(path);
    match (path.is_dir(), path.exists()) {
        (true, _) => None,
        (false, true) => Some("is not a folder"),
        (false, false) => Some("does not exist"),
    }
}

impl Config {
    /// Checks the values that the types alone cannot; every mistake at once.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut found = Found::default();
        self.check_llm(&mut found);
        self.check_stt(&mut found);
        self.check_mall(&mut found);
        self.check_state(&mut found);
        self.check_telegram(&mut found);
        self.check_ops(&mut found);
        self.check_webapp(&mut found);
        self.check_payments(&mut found);
        self.check_alerts(&mut found);
        self.check_safety(&mut found);
        self.check_support(&mut found);
        self.check_report_and_bot(&mut found);
        self.check_mcp(&mut found);
        self.check_otel(&mut found);
        self.check_tools(&mut found);
        if found.0.is_empty() { Ok(()) } else { Err(ConfigError::Invalid(found.0)) }
    }

    fn check_llm(&self, found: &mut Found) {
        let llm = &self.llm;
        if llm.provider == Provider::Openai {
            found.required_url(
                "llm.base_url",
                &llm.base_url,
                "required when llm.provider = \"openai\" (e.g. https://api.deepseek.com/v1)",
            );
            if llm.model.trim().is_empty() {
                found.add("llm.model", "required when llm.provider = \"openai\" (e.g. deepseek-chat)");
            }
        }
        found.at_least_one("llm.max_rounds", u64::from(llm.max_rounds), "");
        found.at_least_one("llm.request_timeout_secs", llm.request_timeout_secs, " second");
        found.at_least_one("llm.tool_timeout_secs", llm.tool_timeout_secs, " second");
    }

    fn check_stt(&self, found: &mut Found) {
        let stt = &self.stt;
        if !stt.enabled() {
            return;
        }
        found.required_url(
            "stt.base_url",
            &stt.base_url,
            "required when stt.provider = \"openai\" (e.g. https://api.openai.com/v1)",
        );
        if stt.model.trim().is_empty() {
            found.add("stt.model", "required when stt.provider is set (e.g. whisper-1)");
        }
        found.at_least_one("stt.max_seconds", u64::from(stt.max_seconds), "");
        found.at_least_one("stt.timeout_secs", stt.timeout_secs, " second");
    }

    fn check_mall(&self, found: &mut Found) {
        let mall = &self.mall;
        if mall.backend == MallBackend::Http {
            found.required_url("mall.base_url", &mall.base_url, "required when mall.backend = \"http\"");
        }
        let info_dir = mall.info_dir.trim();
        if let Some(why) = Some(info_dir).filter(|d| !d.is_empty()).and_then(not_a_folder) {
            found.add(
                "mall.info_dir",
                format!("`{info_dir}` {why}: give a folder of Markdown files (.md), or leave it empty"),
            );
        }
        let data = mall.data.trim();
        if data.is_empty() {
            return;
        }
        if mall.backend != MallBackend::Embedded {
            found.add(
                "mall.data",
                "is served by the embedded mall: set mall.backend = \"embedded\" (or leave mall.data empty)",
            );
        } else if let Some(why) = not_a_folder(data) {
            found.add(
                "mall.data",
                format!("`{data}` {why}: give the folder of the mall's data (docs/your-mall.md), or leave it empty"),
            );
        }
    }

    fn check_state(&self, found: &mut Found) {
        let url = &self.state.url;
        let known = ["sqlite://", "redis://", "rediss://"].iter().any(|scheme| url.starts_with(scheme))
            || url == "memory://";
        if !known {
            found.add("state.url", format!("`{url}`: use sqlite://PATH, redis://HOST:PORT or memory://"));
        }
    }

    fn check_telegram(&self, found: &mut Found) {
        let telegram = &self.telegram;
        found.url("telegram.api_url", &telegram.api_url);
        if telegram.mode != TelegramMode::Webhook {
            return;
        }
        let self_hosted = !telegram.api_url.starts_with("https://api.telegram.org");
        let scheme_ok = telegram.webhook_url.starts_with("https://")
            || (self_hosted && telegram.webhook_url.starts_with("http://"));
        if !scheme_ok {
            found.add(
                "telegram.webhook_url",
                "webhook mode needs the public https:// URL (http:// only with a self-hosted Bot API \
                 server, telegram.api_url, in local mode)",
            );
        }
        if !is_address(&telegram.webhook_listen) {
            found.add("telegram.webhook_listen", "must be an address like 0.0.0.0:8443");
        }
        if telegram.webhook_secret.is_empty() {
            found.add("telegram.webhook_secret", "webhook mode needs a secret token");
        }
    }

    fn check_ops(&self, found: &mut Found) {
        let listen = self.ops.listen.trim();
        if listen.is_empty() {
            return;
        }
        let Ok(ops) = listen.parse::<SocketAddr>() else {
            found.add("ops.listen", format!("`{listen}` is not an address like 127.0.0.1:9464"));
            return;
        };
        let webhook = self.telegram.webhook_listen.trim().parse::<SocketAddr>();
        if self.telegram.mode == TelegramMode::Webhook
            && let Ok(webhook) = webhook
            && webhook.port() == ops.port()
        {
            found.add(
                "ops.listen",
                "must not be the webhook's port (telegram.webhook_listen): the ops endpoints stay off \
                 the public listener; use e.g. 127.0.0.1:9464",
            );
        }
    }

    fn check_webapp(&self, found: &mut Found) {
        let webapp = &self.webapp;
        let listen = webapp.listen.trim();
        if !listen.is_empty() && !is_address(listen) {
            found.add("webapp.listen", format!("`{listen}` is not an address like 127.0.0.1:8090"));
        }
        let public = webapp.public_url.trim();
        if !public.is_empty() {
            if public.starts_with("https://") {
                found.url("webapp.public_url", public);
            } else {
                found.add("webapp.public_url", "Telegram opens Mini Apps over https:// only");
            }
        }
        found.at_least_one("webapp.init_data_max_age_secs", webapp.init_data_max_age_secs, "");
    }

    fn check_payments(&self, found: &mut Found) {
        let payments = &self.payments;
        let currency = payments.currency.trim();
        if currency.len() != 3 || !currency.chars().all(|c| c.is_ascii_uppercase()) {
            found.add(
                "payments.currency",
                format!("`{currency}` is not an ISO 4217 code of three capital letters (e.g. CNY)"),
            );
        }
        if payments.order_ttl_mins < 5 {
            found.add(
                "payments.order_ttl_mins",
                "must be at least 5 (a shopper needs time to pay, and an order within 2 minutes of \
                 its expiry is not taken)",
            );
        }
        found.at_least_one("payments.max_open_orders", u64::from(payments.max_open_orders), "");
        let token = payments.provider_token.expose();
        if token.trim() != token {
            found.add("payments.provider_token", "has spaces around it; copy it again from @BotFather");
        }
    }

    fn check_alerts(&self, found: &mut Found) {
        found.at_least_one("alerts.ttl_days", u64::from(self.alerts.ttl_days), " day");
        if !(1..=30).contains(&self.alerts.sends_per_sec) {
            found.add("alerts.sends_per_sec", "must be 1 to 30 (Telegram's limit)");
        }
    }

    fn check_safety(&self, found: &mut Found) {
        found.at_least_one("safety.confirm_ttl_secs", self.safety.confirm_ttl_secs, "");
    }

    fn check_support(&self, found: &mut Found) {
        let support = &self.support;
        if support.chat_id > 0 {
            found.add(
                "support.chat_id",
                "must be the desk's supergroup id, which is negative (-100…); a positive id is a person",
            );
        }
        let wait = support.answer_within_mins;
        if !wait.is_finite() || !(0.0..=1440.0).contains(&wait) {
            found.add("support.answer_within_mins", "must be between 0 (never ask) and 1440 minutes");
        }
        if let Err(why) = super::hours::parse_offset(&support.utc_offset) {
            found.add("support.utc_offset", why);
        }
        if let Err(why) = super::hours::Hours::parse(&support.hours) {
            found.add("support.hours", why);
        }
    }

    fn check_report_and_bot(&self, found: &mut Found) {
        found.at_least_one("report.keep_days", self.report.keep_days, "");
        if self.bot.history_messages < 2 {
            found.add("bot.history_messages", "must be at least 2");
        }
    }

    fn check_mcp(&self, found: &mut Found) {
        for (name, server) in &self.mcp.servers {
            let key = format!("mcp.servers.{name}");
            if name.is_empty()
                || name.contains("__")
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
            {
                found.add(&key, "the name must be letters, digits, `-` or `_` (no `__`)");
            }
            match (server.command.trim().is_empty(), server.url.trim().is_empty()) {
                (true, true) => found.add(&key, "needs `command` (stdio) or `url` (streamable HTTP)"),
                (false, false) => found.add(&key, "has both `command` and `url`; keep one"),
                (true, false) => found.url(&format!("{key}.url"), &server.url),
                (false, true) => {}
            }
        }
        if self.mcp.tokens.keys().any(|token| token.is_empty()) {
            found.add("mcp.tokens", "a token cannot be empty");
        }
    }

    fn check_otel(&self, found: &mut Found) {
        let otel = &self.otel;
        if !otel.endpoint.trim().is_empty() {
            found.url("otel.endpoint", otel.endpoint.trim());
        }
        if !(0.0..=1.0).contains(&otel.sample_ratio) {
            found.add("otel.sample_ratio", format!("must be between 0.0 and 1.0, got {}", otel.sample_ratio));
        }
        if otel.service_name.trim().is_empty() {
            found.add("otel.service_name", "cannot be empty (e.g. \"mallbot\")");
        }
    }

    fn check_tools(&self, found: &mut Found) {
        for name in self.tools.keys() {
            let lent = name
                .split_once("__")
                .is_some_and(|(server, tool)| !tool.is_empty() && self.mcp.servers.contains_key(server));
            if handlers::find(name).is_none() && !lent {
                let known: Vec<&str> = handlers::all().iter().map(|s| s.name).collect();
                found.add(
                    &format!("tools.{name}"),
                    format!(
                        "no such tool; known: {} (or SERVER__tool for a server in [mcp.servers])",
                        known.join(", ")
                    ),
                );
            }
        }
    }
}
