//! Keeps the bot's secrets out of what it writes. Two layers:
//!
//! - **At the source**, for the one secret that travels in URLs: the Bot API
//!   puts the bot token in the path (`/bot<token>/sendMessage`,
//!   `/file/bot<token>/…`), and a reqwest error names its URL.
//!   [`reqwest_error`] replaces that path segment (and drops userinfo and the
//!   query) before the error goes anywhere; every Bot API call the bot makes
//!   itself builds its errors through it (`telegram::send`, `telegram::files`).
//! - **At the sink**, for everything: the secrets of the config (bot token
//!   and its secret half, the model, STT, mall, staff, MCP and payment keys)
//!   are [`register`]ed at start, and every log line ([`ScrubbingWriter`]), a
//!   panic's message ([`install_panic_hook`]), the text of `mallbot check`
//!   and of a fatal error ([`scrub`]) has them replaced by `[redacted]`
//!   before it is written, whatever path produced it.

use std::borrow::Cow;
use std::io::Write;
use std::sync::RwLock;

use tracing_subscriber::fmt::MakeWriter;

pub(crate) use crate::infra::secret::REDACTED;
use crate::infra::secret::Secret;
/// Shorter values are not treated as secrets on their own: replacing them
/// would garble ordinary text (a test token's "TEST" half, say).
const MIN_SECRET_LEN: usize = 8;

/// The secrets known to this process, longest first (so a token is
/// replaced whole before its secret half is looked for).
static SECRETS: RwLock<Vec<String>> = RwLock::new(Vec::new());

/// Adds a secret to what [`scrub`] removes. A bot token `ID:SECRET` is
/// registered whole, and its secret half too (it may appear on its own, or
/// with the colon percent-encoded).
pub(crate) fn register(secret: &str) {
    let secret = secret.trim();
    let mut found = vec![secret];
    if let Some((_, half)) = secret.split_once(':') {
        found.push(half);
    }
    let Ok(mut secrets) = SECRETS.write() else { return };
    for value in found {
        // The whole value is always kept; a part only when long enough to be a secret.
        let long_enough = value.len() >= MIN_SECRET_LEN || (value == secret && !value.is_empty());
        if long_enough && !secrets.iter().any(|s| s == value) {
            secrets.push(value.to_owned());
        }
    }
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

/// Registers every secret of `config`.
pub fn register_config(config: &crate::infra::config::Config) {
    let mut keys = vec![
        config.telegram.token.expose(),
        config.telegram.webhook_secret.expose(),
        config.llm.api_key.expose(),
        config.stt.api_key.expose(),
        config.mall.api_key.expose(),
        config.mall.staff_key.expose(),
        config.payments.provider_token.expose(),
        config.mcp.token.expose(),
        config.ops.token.expose(),
    ];
    keys.extend(config.mcp.tokens.keys().map(Secret::expose));
    for server in config.mcp.servers.values() {
        keys.extend(server.env.values().map(Secret::expose));
        keys.extend(server.headers.values().map(Secret::expose));
    }
    for key in keys.into_iter().filter(|k| !k.trim().is_empty()) {
        register(key);
    }
}

/// `text` with every registered secret replaced by [`REDACTED`].
pub fn scrub(text: &str) -> Cow<'_, str> {
    let Ok(secrets) = SECRETS.read() else { return Cow::Borrowed(text) };
    let mut out = Cow::Borrowed(text);
    for secret in secrets.iter() {
        if out.contains(secret.as_str()) {
            out = Cow::Owned(out.replace(secret.as_str(), REDACTED));
        }
    }
    out
}

/// `error` with its URL made safe to show: a `bot<token>` path segment
/// becomes `bot[redacted]`, and userinfo and the query are dropped.
pub(crate) fn reqwest_error(mut error: reqwest::Error) -> reqwest::Error {
    if let Some(url) = error.url_mut() {
        redact_url(url);
    }
    error
}

/// Makes `url` safe to show in place (see [`reqwest_error`]).
pub(crate) fn redact_url(url: &mut reqwest::Url) {
    let _ = url.set_username("");
    let _ = url.set_password(None);
    url.set_query(None);
    let path: Vec<String> = match url.path_segments() {
        Some(segments) => segments
            .map(|segment| match segment.strip_prefix("bot") {
                Some(rest) if rest.contains(':') || rest.contains("%3A") || rest.contains("%3a") => {
                    format!("bot{REDACTED}")
                }
                _ => segment.to_owned(),
            })
            .collect(),
        None => return,
    };
    if let Ok(mut segments) = url.path_segments_mut() {
        segments.clear().extend(&path);
    }
}

/// A configured URL (`llm.base_url`, `stt.base_url`, an MCP server's `url`,
/// `state.url`…) as `/health`, `mallbot check` and the log show it: without
/// userinfo, query and fragment, where credentials travel (a
/// `bot<token>` segment redacted too). Text that is not a URL is shown up to
/// any `?` and after any `@`.
pub(crate) fn shown_url(url: &str) -> String {
    match reqwest::Url::parse(url.trim()) {
        Ok(mut parsed) if parsed.has_host() => {
            redact_url(&mut parsed);
            parsed.set_fragment(None);
            parsed.to_string()
        }
        _ => {
            let text = url.split(['?', '#']).next().unwrap_or_default();
            match text.split_once("://") {
                Some((scheme, rest)) => {
                    format!("{scheme}://{}", rest.rsplit_once('@').map_or(rest, |(_, r)| r))
                }
                None => text.to_owned(),
            }
        }
    }
}

/// A log writer that scrubs each write (a formatted event arrives whole).
pub struct ScrubbingWriter<M>(pub M);

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for ScrubbingWriter<M> {
    type Writer = Scrubbing<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        Scrubbing(self.0.make_writer())
    }
}

/// One writer of [`ScrubbingWriter`].
pub struct Scrubbing<W>(W);

impl<W: Write> Write for Scrubbing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match std::str::from_utf8(buf) {
            Ok(text) => self.0.write_all(scrub(text).as_bytes())?,
            Err(_) => self.0.write_all(scrub(&String::from_utf8_lossy(buf)).as_bytes())?,
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

/// Replaces the panic hook with one that writes the message scrubbed (the
/// default hook would write an error's text, URL and all, as it is).
pub fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "Box<dyn Any>".to_owned());
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("<unnamed>");
        let location = info.location().map(|l| format!(" at {l}")).unwrap_or_default();
        let backtrace = std::backtrace::Backtrace::capture();
        let backtrace = match backtrace.status() {
            std::backtrace::BacktraceStatus::Captured => format!("\nstack backtrace:\n{backtrace}"),
            _ => String::new(),
        };
        let text = format!("thread '{name}' panicked{location}:\n{message}{backtrace}\n");
        let _ = std::io::stderr().write_all(scrub(&text).as_bytes());
    }));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_registered_token_and_its_secret_half_are_scrubbed() {
        register("7000000001:AAHscrub-test-secret-half-0123456789ab");
        let line = "GET /bot7000000001:AAHscrub-test-secret-half-0123456789ab/getMe and \
                    7000000001%3AAAHscrub-test-secret-half-0123456789ab";
        let out = scrub(line);
        assert!(!out.contains("AAHscrub-test-secret-half"), "{out}");
        assert!(out.contains("/bot[redacted]/getMe"), "{out}");
        assert_eq!(scrub("nothing secret here"), "nothing secret here");
    }

    #[test]
    fn short_halves_are_not_secrets_but_whole_values_are() {
        register("99:TEST");
        assert_eq!(scrub("a TEST of 99:TEST"), "a TEST of [redacted]");
    }

    #[test]
    fn a_bot_api_url_loses_its_token_userinfo_and_query() {
        let mut url =
            reqwest::Url::parse("https://user:pw@api.example/tg/bot123:unregistered-secret/sendMessage?x=1")
                .unwrap_or_else(|e| panic!("{e}"));
        redact_url(&mut url);
        assert_eq!(url.as_str(), "https://api.example/tg/bot[redacted]/sendMessage");
        let mut file = reqwest::Url::parse("http://127.0.0.1:9/file/bot1:abc/voice/file_1.oga")
            .unwrap_or_else(|e| panic!("{e}"));
        redact_url(&mut file);
        assert_eq!(file.as_str(), "http://127.0.0.1:9/file/bot[redacted]/voice/file_1.oga");
    }

    #[test]
    fn configured_urls_are_shown_without_credentials() {
        assert_eq!(shown_url("https://user:pw@llm.example/v1?api-key=sk-1#x"), "https://llm.example/v1");
        assert_eq!(shown_url("redis://:hunter2@cache:6379/0?prefix=a"), "redis://cache:6379/0");
        assert_eq!(shown_url("sqlite://mallbot.db"), "sqlite://mallbot.db");
        assert_eq!(shown_url("memory://"), "memory://");
        assert_eq!(shown_url("http://127.0.0.1:8080/api"), "http://127.0.0.1:8080/api");
    }

    #[test]
    fn the_log_writer_scrubs_what_passes_through() {
        register("writer-test-key-0123456789");
        let mut sink = Vec::new();
        let mut writer = Scrubbing(&mut sink);
        writer.write_all(b"key=writer-test-key-0123456789 end").unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(String::from_utf8_lossy(&sink), "key=[redacted] end");
    }
}
