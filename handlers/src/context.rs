//! [`ToolContext`]: what a tool knows about the request besides its arguments.
//!
//! The shopper's identity lives here, never in the arguments the model writes.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use services::{IdempotencyKey, MallApi, Shopper};

use crate::result::Preview;

/// The language a shopper is answered in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// Chinese (simplified).
    #[default]
    Zh,
    /// English.
    En,
}

impl Lang {
    /// `zh` or `en`.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Zh => "zh",
            Lang::En => "en",
        }
    }

    /// Parses `zh`/`en` (and `cn`, `zh-CN`, `en-US`…).
    pub fn parse(s: &str) -> Option<Lang> {
        let s = s.trim().to_ascii_lowercase();
        if s.starts_with("zh") || s == "cn" {
            Some(Lang::Zh)
        } else if s.starts_with("en") {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// The language a text is written in: Chinese if it has any CJK character.
    pub fn detect(text: &str) -> Option<Lang> {
        if text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
            Some(Lang::Zh)
        } else if text.chars().any(|c| c.is_ascii_alphabetic()) {
            Some(Lang::En)
        } else {
            None
        }
    }

    /// Picks the Chinese or the English text.
    pub fn pick<'a>(self, zh: &'a str, en: &'a str) -> &'a str {
        match self {
            Lang::Zh => zh,
            Lang::En => en,
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
}

impl std::fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolContext")
            .field("shopper", &self.shopper)
            .field("lang", &self.lang)
            .field("is_group", &self.is_group)
            .field("approval", &self.approval)
            .field("map", &self.map.is_some())
            .finish_non_exhaustive()
    }
}

impl ToolContext {
    /// A context for `shopper` in a private chat, answered in `lang`.
    pub fn new(mall: Arc<dyn MallApi>, shopper: Shopper, lang: Lang) -> Self {
        ToolContext { mall, shopper, lang, is_group: false, approval: None, map: None }
    }

    /// The same context with the mall's indoor map.
    pub fn with_map(mut self, map: Option<Arc<maps::Router>>) -> Self {
        self.map = map;
        self
    }
}
