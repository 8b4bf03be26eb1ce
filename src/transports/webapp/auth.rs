//! Who is asking: Telegram's `initData`, checked as Telegram documents it.
//!
//! The Mini App sends `Authorization: tma <initData>` (the query string the
//! Telegram client hands the page). It is genuine when its `hash` is the
//! hex HMAC-SHA256 of the data-check string (every other field, sorted by
//! name, as `key=value` lines) under the key HMAC-SHA256("WebAppData",
//! bot token), and fresh when `auth_date` is at most the configured age —
//! and not later than now beyond [`CLOCK_SKEW_SECS`] of clock difference
//! (launch data "from the future" would otherwise live longer than the age
//! allows). The shopper is the `user.id` inside; nothing the page adds can
//! change it.

use ring::hmac;
use serde::Deserialize;

/// How far ahead of this server's clock an `auth_date` may be (clocks differ
/// a little); beyond it the launch data is refused.
pub(crate) const CLOCK_SKEW_SECS: u64 = 60;

/// Why an `initData` was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum InitDataError {
    /// No `Authorization: tma …` header.
    #[error("no initData: open the page from Telegram")]
    Missing,
    /// Not a query string with `hash`, `auth_date` and `user`.
    #[error("initData is malformed: {0}")]
    Malformed(&'static str),
    /// The hash is not the bot's: forged or altered.
    #[error("initData is not signed by this bot")]
    BadSignature,
    /// Older than `webapp.init_data_max_age_secs`.
    #[error("initData has expired; reopen the page")]
    Expired,
    /// Dated later than now, beyond [`CLOCK_SKEW_SECS`].
    #[error("initData is dated in the future; check the clock and reopen the page")]
    FromTheFuture,
}

/// The shopper `initData` names.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub(crate) struct WebUser {
    pub(crate) id: i64,
    #[serde(default)]
    pub(crate) first_name: String,
    /// IETF tag of the shopper's Telegram language (`zh-hans`, `en`…).
    #[serde(default)]
    pub(crate) language_code: Option<String>,
}

/// Checks `initData` for the bot whose token is `bot_token`.
#[derive(Clone)]
pub struct InitDataCheck {
    key: hmac::Key,
    max_age_secs: u64,
}

impl std::fmt::Debug for InitDataCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InitDataCheck").field("max_age_secs", &self.max_age_secs).finish_non_exhaustive()
    }
}

impl InitDataCheck {
    /// The check for `bot_token`, taking `initData` up to `max_age_secs` old.
    pub fn new(bot_token: &str, max_age_secs: u64) -> InitDataCheck {
        let secret = hmac::sign(&hmac::Key::new(hmac::HMAC_SHA256, b"WebAppData"), bot_token.as_bytes());
        InitDataCheck { key: hmac::Key::new(hmac::HMAC_SHA256, secret.as_ref()), max_age_secs }
    }

    /// The shopper of `init_data` at unix time `now`, when it is genuine and fresh.
    pub(crate) fn verify(&self, init_data: &str, now: u64) -> Result<WebUser, InitDataError> {
        let mut hash = None;
        let mut fields: Vec<(String, String)> = Vec::new();
        for (key, value) in form_urlencoded(init_data) {
            if key == "hash" {
                hash = Some(value);
            } else {
                fields.push((key, value));
            }
        }
        let hash = hash.ok_or(InitDataError::Malformed("no hash"))?;
        let tag = hex_decode(&hash).ok_or(InitDataError::Malformed("the hash is not hex"))?;
        fields.sort();
        let check = fields.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("\n");
        hmac::verify(&self.key, check.as_bytes(), &tag).map_err(|_| InitDataError::BadSignature)?;
        let field = |name: &str| fields.iter().find(|(k, _)| k == name).map(|(_, v)| v.as_str());
        let auth_date: u64 = field("auth_date")
            .and_then(|d| d.parse().ok())
            .ok_or(InitDataError::Malformed("no auth_date"))?;
        if auth_date > now.saturating_add(CLOCK_SKEW_SECS) {
            return Err(InitDataError::FromTheFuture);
        }
        if now.saturating_sub(auth_date) > self.max_age_secs {
            return Err(InitDataError::Expired);
        }
        let user = field("user").ok_or(InitDataError::Malformed("no user"))?;
        serde_json::from_str(user).map_err(|_| InitDataError::Malformed("user is not a Telegram user"))
    }

    /// Signs `fields` as Telegram would (for the terminal's test page and tests).
    pub fn sign(&self, fields: &[(&str, &str)]) -> String {
        let mut sorted: Vec<(&str, &str)> = fields.to_vec();
        sorted.sort();
        let check = sorted.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("\n");
        let tag = hmac::sign(&self.key, check.as_bytes());
        let hash: String = tag.as_ref().iter().map(|b| format!("{b:02x}")).collect();
        let mut query: Vec<String> = fields.iter().map(|(k, v)| format!("{k}={}", url_encode(v))).collect();
        query.push(format!("hash={hash}"));
        query.join("&")
    }
}

/// `a=1&b=%7B%7D` → `[("a", "1"), ("b", "{}")]` (`+` is a space).
fn form_urlencoded(query: &str) -> impl Iterator<Item = (String, String)> + '_ {
    query.split('&').filter(|pair| !pair.is_empty()).map(|pair| {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        (url_decode(key), url_decode(value))
    })
}

fn url_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => match (hex_digit(bytes[i + 1]), hex_digit(bytes[i + 2])) {
                (Some(h), Some(l)) => {
                    out.push(h << 4 | l);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 3);
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => out.push(b as char),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn hex_digit(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

fn hex_decode(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    if !bytes.len().is_multiple_of(2) {
        return None;
    }
    bytes.chunks(2).map(|pair| Some(hex_digit(pair[0])? << 4 | hex_digit(pair[1])?)).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const TOKEN: &str = "7342037359:AAHI25ES9xCOMPWYWd5XqeGVz1mJU2S0CBA";
    /// Laid out as Telegram documents `initData`; the hash computed apart
    /// from this code (Python's `hmac`, `hashlib.sha256`).
    const SIGNED: &str = "query_id=AAHdF6IQAAAAAN0XohDhrOrc&user=%7B%22id%22%3A279058397%2C%22first_name%22%3A%22Vladislav%22%2C%22last_name%22%3A%22Kibenko%22%2C%22username%22%3A%22vdkfrost%22%2C%22language_code%22%3A%22ru%22%2C%22is_premium%22%3Atrue%2C%22allows_write_to_pm%22%3Atrue%7D&auth_date=1662771648&hash=52aea055898a079d2eb052311750d14088d081d65fa6c83c54a9cdc6d2e88b14";
    const SIGNED_AT: u64 = 1_662_771_648;

    #[test]
    fn a_genuine_init_data_names_its_user() {
        let user = InitDataCheck::new(TOKEN, 86_400).verify(SIGNED, SIGNED_AT + 60).unwrap();
        assert_eq!(
            (user.id, user.first_name.as_str(), user.language_code.as_deref()),
            (279058397, "Vladislav", Some("ru"))
        );
    }

    #[test]
    fn an_altered_forged_expired_or_other_bots_init_data_is_refused() {
        let check = InitDataCheck::new(TOKEN, 86_400);
        let other_user = SIGNED.replace("279058397", "279058398");
        assert_eq!(check.verify(&other_user, SIGNED_AT), Err(InitDataError::BadSignature));
        let other_bot = InitDataCheck::new("7342037359:AAHI25ES9xCOMPWYWd5XqeGVz1mJU2S0CBB", 86_400);
        assert_eq!(other_bot.verify(SIGNED, SIGNED_AT), Err(InitDataError::BadSignature));
        assert_eq!(check.verify(SIGNED, SIGNED_AT + 86_401), Err(InitDataError::Expired));
        let no_hash = SIGNED.split("&hash=").next().unwrap();
        assert_eq!(check.verify(no_hash, SIGNED_AT), Err(InitDataError::Malformed("no hash")));
        assert!(matches!(check.verify("hash=zz", SIGNED_AT), Err(InitDataError::Malformed(_))));
        assert_eq!(check.verify("", SIGNED_AT), Err(InitDataError::Malformed("no hash")));
    }

    #[test]
    fn launch_data_from_the_future_is_refused_beyond_the_clock_skew() {
        let check = InitDataCheck::new(TOKEN, 3600);
        let skew = CLOCK_SKEW_SECS;
        assert!(check.verify(SIGNED, SIGNED_AT - skew).is_ok(), "a clock {skew} s behind");
        assert_eq!(check.verify(SIGNED, SIGNED_AT - skew - 1), Err(InitDataError::FromTheFuture));
        assert_eq!(check.verify(SIGNED, SIGNED_AT - 86_400), Err(InitDataError::FromTheFuture));
        assert!(check.verify(SIGNED, SIGNED_AT + 3600).is_ok());
        assert_eq!(check.verify(SIGNED, SIGNED_AT + 3601), Err(InitDataError::Expired));
    }

    #[test]
    fn what_sign_makes_verifies() {
        let check = InitDataCheck::new("123:ABC", 60);
        let user = r#"{"id":42,"first_name":"李 雷","language_code":"zh-hant"}"#;
        let data = check.sign(&[("auth_date", "1000"), ("user", user), ("start_param", "route-s-nike")]);
        let seen = check.verify(&data, 1030).unwrap();
        assert_eq!((seen.id, seen.first_name.as_str()), (42, "李 雷"));
        assert_eq!(InitDataCheck::new("123:ABD", 60).verify(&data, 1030), Err(InitDataError::BadSignature));
    }
}
