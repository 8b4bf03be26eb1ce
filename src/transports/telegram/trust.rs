//! Which hosts the bot trusts in what it sends: a link in an answer gets a
//! preview (which Telegram's servers fetch) only when every link's host is in
//! `bot.link_hosts` (by default the mall's own hosts); a product picture is
//! sent by URL (which Telegram, or a self-hosted Bot API server, fetches) only
//! over http(s) from the mall's image hosts. Review and product text reach the
//! model, so a link in its answer may have been written by anyone.

use std::sync::OnceLock;

use teloxide::types::LinkPreviewOptions;

/// The trusted hosts, set once at start ([`set`]); unset, nothing is trusted.
static HOSTS: OnceLock<Hosts> = OnceLock::new();

struct Hosts {
    links: Vec<String>,
    images: Vec<String>,
}

/// Sets the hosts whose links may be previewed and the hosts pictures may come from.
pub(crate) fn set(links: Vec<String>, images: Vec<String>) {
    let _ = HOSTS.set(Hosts { links, images });
}

fn links() -> &'static [String] {
    HOSTS.get().map(|h| h.links.as_slice()).unwrap_or_default()
}

fn images() -> &'static [String] {
    HOSTS.get().map(|h| h.images.as_slice()).unwrap_or_default()
}

/// Whether `host` is one of `trusted` or a subdomain of one.
fn host_in(host: &str, trusted: &[String]) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    trusted
        .iter()
        .any(|t| host == *t || host.strip_suffix(t.as_str()).is_some_and(|rest| rest.ends_with('.')))
}

/// Every `http(s)://` URL written in `text` (a link's `href` or bare text).
fn urls_in(text: &str) -> Vec<&str> {
    let lower = text.to_ascii_lowercase();
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(start) = ["http://", "https://"].iter().filter_map(|s| lower[at..].find(s)).min() {
        let start = at + start;
        let end = text[start..]
            .find(|c: char| c.is_whitespace() || "\"'<>".contains(c))
            .map_or(text.len(), |n| start + n);
        found.push(&text[start..end]);
        at = end;
    }
    found
}

/// The link preview options for a message with `text` (HTML or plain):
/// `None` (Telegram's default preview) when it has links and every one is
/// on a trusted host; otherwise previews off. Telegram also previews a bare
/// domain name written as text, so no link at all still turns them off.
pub(crate) fn preview_options(text: &str) -> Option<LinkPreviewOptions> {
    let urls = urls_in(text);
    let trusted = !urls.is_empty()
        && urls.iter().all(|url| {
            reqwest::Url::parse(url)
                .ok()
                .and_then(|u| u.host_str().map(|h| host_in(h, links())))
                .unwrap_or(false)
        });
    (!trusted).then(disabled)
}

/// Link previews off.
pub(crate) fn disabled() -> LinkPreviewOptions {
    LinkPreviewOptions {
        is_disabled: true,
        url: None,
        prefer_small_media: false,
        prefer_large_media: false,
        show_above_text: false,
    }
}

/// Whether a product picture at `url` may be sent by URL: http(s) from one of
/// the mall's image hosts.
pub(crate) fn image_allowed(url: &reqwest::Url) -> bool {
    matches!(url.scheme(), "http" | "https") && url.host_str().is_some_and(|h| host_in(h, images()))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn finds_urls_in_html_and_text() {
        let html = "see <a href=\"https://evil.example/c?x=1\">cart</a> and http://mall.example/p";
        assert_eq!(urls_in(html), vec!["https://evil.example/c?x=1", "http://mall.example/p"]);
        assert!(urls_in("no links").is_empty());
    }

    #[test]
    fn subdomains_of_a_trusted_host_are_trusted_lookalikes_are_not() {
        let trusted = vec!["mall.example".to_owned()];
        assert!(host_in("mall.example", &trusted));
        assert!(host_in("img.mall.example", &trusted));
        assert!(!host_in("evilmall.example", &trusted));
        assert!(!host_in("mall.example.evil", &trusted));
    }

    #[test]
    fn untrusted_or_no_links_turn_previews_off() {
        // No hosts set in unit tests: nothing is trusted.
        assert!(
            preview_options("<a href=\"https://evil.example/?cart=1\">x</a>").is_some_and(|o| o.is_disabled)
        );
        assert!(preview_options("plain").is_some_and(|o| o.is_disabled));
        let url = reqwest::Url::parse("file:///etc/passwd").unwrap();
        assert!(!image_allowed(&url));
    }
}
