//! [`ToolContext`]: what a tool knows about the request besides its arguments.
//!
//! The shopper's identity lives here, never in the arguments the model writes.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use services::{IdempotencyKey, MallApi, Shopper};

use crate::alert_book::AlertBook;
use crate::result::Preview;

/// The language a shopper is answered in. Everything said in it comes from
/// its text table ([`Lang::texts`], in `texts/`, with the detection of the
/// script a text is written in); adding a language is one table file under
/// `texts/` and one variant here.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Lang {
    /// Chinese, Simplified characters (mainland usage).
    #[default]
    #[serde(rename = "zh")]
    Zh,
    /// Chinese, Traditional characters (Taiwan and Hong Kong usage).
    #[serde(rename = "zh-hant")]
    ZhHant,
    /// English.
    #[serde(rename = "en")]
    En,
}

impl Lang {
    /// Every language, in the order `/lang` lists them.
    pub const ALL: [Lang; 3] = [Lang::Zh, Lang::ZhHant, Lang::En];

    /// `zh`, `zh-hant` or `en`: the code stored and shown.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::ZhHant => "zh-hant",
            Lang::En => "en",
        }
    }

    /// The two-letter ISO 639-1 code (`zh` for both scripts), as speech
    /// services and Telegram's command menus take it.
    pub fn iso639_1(self) -> &'static str {
        match self {
            Lang::Zh | Lang::ZhHant => "zh",
            Lang::En => "en",
        }
    }

    /// Parses a language code or name: `zh`, `cn`, `zh-CN`, `zh-Hans`, `简体`
    /// → Simplified; `zh-Hant`, `zh-TW`, `zh-HK`, `zh-MO`, `tw`, `hk`, `繁體`
    /// → Traditional; `en`, `en-US`, `English` → English.
    pub fn parse(s: &str) -> Option<Lang> {
        let s = s.trim().to_ascii_lowercase().replace('_', "-");
        let hant =
            ["zh-hant", "zh-tw", "zh-hk", "zh-mo", "tw", "hk", "mo", "繁體", "繁体", "繁體中文", "繁体中文"];
        if hant.iter().any(|code| s == *code || s.starts_with(&format!("{code}-"))) {
            Some(Lang::ZhHant)
        } else if s.starts_with("zh") || s == "cn" || s.starts_with("简体") || s.starts_with("中文") {
            Some(Lang::Zh)
        } else if s.starts_with("en") {
            Some(Lang::En)
        } else {
            None
        }
    }
}

/// A confirmed call: set when a tool runs after the shopper pressed Confirm.
#[derive(Debug, Clone, PartialEq)]
pub struct Approval {
    /// Derived from the pending action: the same press never acts twice.
    pub idempotency_key: IdempotencyKey,
    /// What the shopper saw and agreed to.
    pub preview: Preview,
}

/// Everything a tool may use besides its arguments. Cheap to clone.
#[derive(Clone)]
pub struct ToolContext {
    /// The mall.
    pub mall: Arc<dyn MallApi>,
    /// Who is asking (sent as `X-Mall-User`).
    pub shopper: Shopper,
    /// The shopper's language.
    pub lang: Lang,
    /// Whether the request came from a group chat.
    pub is_group: bool,
    /// Present when the shopper confirmed this very call.
    pub approval: Option<Approval>,
    /// The mall's indoor map, when it has one: routes and floor plans.
    pub map: Option<Arc<maps::Router>>,
    /// Whether floor plans are drawn as pictures for the shopper (off for
    /// the Mini App, which draws the map itself).
    pub pictures: bool,
    /// Where stock and price alerts are kept, when the bot keeps them.
    pub alerts: Option<Arc<dyn AlertBook>>,
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("shopper", &self.shopper)
            .field("lang", &self.lang)
            .field("is_group", &self.is_group)
            .field("approval", &self.approval)
            .field("map", &self.map.is_some())
            .field("pictures", &self.pictures)
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context for `shopper` in a private chat, answered in `lang`.
    pub fn new(mall: Arc<dyn MallApi>, shopper: Shopper, lang: Lang) -> Self {
        ToolContext {
            mall,
            shopper,
            lang,
            is_group: false,
            approval: None,
            map: None,
            pictures: true,
            alerts: None,
        }
    }

    /// The same context with the bot's book of alerts.
    pub fn with_alerts(mut self, alerts: Option<Arc<dyn AlertBook>>) -> Self {
        self.alerts = alerts;
        self
    }

    /// The same context with the mall's indoor map.
    pub fn with_map(mut self, map: Option<Arc<maps::Router>>) -> Self {
        self.map = map;
        self
    }

    /// The same context without pictures: routes and areas come as data only.
    pub fn without_pictures(mut self) -> Self {
        self.pictures = false;
        self
    }
}
