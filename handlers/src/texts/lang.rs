//! Which table a language reads, and which language a text is written in
//! (by the characters only one script uses).

use super::{Texts, en, zh_hans, zh_hant};
use crate::context::Lang;

impl Lang {
    /// Everything the bot says in this language.
    pub fn texts(self) -> &'static Texts {
        match self {
            Lang::Zh => &zh_hans::TEXTS,
            Lang::ZhHant => &zh_hant::TEXTS,
            Lang::En => &en::TEXTS,
        }
    }

    /// The language a text is written in: Chinese if it has any CJK
    /// character — Traditional when it has characters only Traditional
    /// writing uses (Traditional → Simplified changes it on its own) and none only
    /// Simplified writing uses ([`zh_hant::simplified_left`]) — else
    /// English if it has Latin letters.
    pub fn detect(text: &str) -> Option<Lang> {
        if !text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)) {
            return text.chars().any(|c| c.is_ascii_alphabetic()).then_some(Lang::En);
        }
        // Most Chinese messages have no character only Traditional writes:
        // Simplified, told from a lookup per character.
        if !text.chars().any(zh_hant::is_traditional_only) {
            return Some(Lang::Zh);
        }
        let simplified = !zh_hant::simplified_left(text).is_empty();
        Some(if simplified { Lang::Zh } else { Lang::ZhHant })
    }

    /// The language of `text`, with `preferred` (a Telegram language, the
    /// configured default) deciding what the text leaves open: Chinese that
    /// could be either script is answered in `preferred` when that is
    /// Chinese; a text with no letters is answered in `preferred`.
    pub fn detect_or(text: &str, preferred: Lang) -> Lang {
        match Lang::detect(text) {
            Some(Lang::Zh) if preferred == Lang::ZhHant && zh_hant::simplified_left(text).is_empty() => {
                Lang::ZhHant
            }
            Some(lang) => lang,
            None => preferred,
        }
    }
}
