//! Which table a language reads, and which language a message is written in
//! — the one rule every way in and the model's note follow: a message
//! switches the conversation's language only when it is clearly written in
//! another (Chinese characters, or English words); a size, "y"/"n", a number,
//! an emoji, a product code or a brand's Latin name keeps it. A
//! conversation's first message in Latin words that are not a name or a code
//! ("bubble tea?", "wifi?") opens it in English ([`Lang::opening`]).

use super::{Texts, en, zh_hans, zh_hant};
use crate::context::Lang;

/// What a message says of its own language ([`Lang::said`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said {
    /// Nothing: no Chinese characters and no English words — a size ("M",
    /// "42"), "y"/"n"/"ok", a number, an emoji, a product code ("FD4821"),
    /// a brand's name ("Nike", "The North Face").
    Nothing,
    /// Chinese that either script writes ("好的", "Nike 在哪").
    Chinese,
    /// Latin words that are not clearly English nor a name or a code
    /// ("bubble tea?", "wifi?", "Toilets?"): English for a conversation's
    /// first message, nothing in a conversation already in a language.
    Latin,
    /// Clearly this language.
    Clearly(Lang),
}

impl Lang {
    /// Everything the bot says in this language.
    pub fn texts(self) -> &'static Texts {
        match self {
            Lang::Zh => &zh_hans::TEXTS,
            Lang::ZhHant => &zh_hant::TEXTS,
            Lang::En => &en::TEXTS,
        }
    }

    /// What `text` says of its language. Chinese when it has any CJK
    /// character — Traditional when it has characters only Traditional
    /// writing uses (Traditional → Simplified changes it on its own) and none
    /// only Simplified writing uses ([`zh_hant::simplified_left`]), Simplified
    /// when it has the latter, else either —; English when its Latin words
    /// are English ([`english_words`]).
    pub fn said(text: &str) -> Said {
        if !text.chars().any(is_cjk) {
            return latin(text);
        }
        // Most Chinese messages have no character only Traditional writes:
        // told from a lookup per character.
        let left = zh_hant::simplified_left(text);
        if !text.chars().any(zh_hant::is_traditional_only) {
            return if left.is_empty() { Said::Chinese } else { Said::Clearly(Lang::Zh) };
        }
        Said::Clearly(if left.is_empty() { Lang::ZhHant } else { Lang::Zh })
    }

    /// The language a text is written in, when it says ([`Lang::said`]);
    /// Chinese either script writes is Simplified.
    pub fn detect(text: &str) -> Option<Lang> {
        match Lang::said(text) {
            Said::Nothing | Said::Latin => None,
            Said::Chinese => Some(Lang::Zh),
            Said::Clearly(lang) => Some(lang),
        }
    }

    /// The conversation's language after a message that said `said`, when
    /// it was `self`: a clear language switches it, Chinese either script
    /// writes keeps a Chinese conversation's script, nothing keeps it.
    pub fn follow(self, said: Said) -> Lang {
        match said {
            Said::Nothing | Said::Latin => self,
            Said::Chinese if self == Lang::ZhHant => Lang::ZhHant,
            Said::Chinese => Lang::Zh,
            Said::Clearly(lang) => lang,
        }
    }

    /// The language to answer `text` in when the conversation (or, before
    /// there is one, a Telegram language or the configured default) is in
    /// `current`: [`Lang::follow`] of what `text` says.
    pub fn detect_or(text: &str, current: Lang) -> Lang {
        current.follow(Lang::said(text))
    }

    /// The language of a conversation that opens with a message that said
    /// `said`, which the transport would answer in `self`: Latin words that
    /// are neither a name nor a code open it in English ("wifi?"); anything
    /// else as the transport says.
    pub fn opening(self, said: Said) -> Lang {
        match said {
            Said::Latin => Lang::En,
            _ => self,
        }
    }
}

fn is_cjk(c: char) -> bool {
    ('\u{4e00}'..='\u{9fff}').contains(&c)
}

/// Words that make a Latin text English: the small words of any English
/// sentence, question words, greetings and what shoppers ask for. A brand's
/// name ("Nike", "Uniqlo") is not among them.
const ENGLISH: &[&str] = &[
    "a", "about", "add", "all", "am", "an", "and", "another", "any", "anything", "are", "at", "be", "buy",
    "can", "cancel", "first", "last", "more", "next", "one", "other", "pair", "pairs", "piece", "pieces",
    "remove", "second", "size", "take", "third", "two", "three", "i'll", "cart", "cheap", "cheaper",
    "cheapest", "close", "closes", "could", "did", "do", "does", "don't", "dont", "eat", "find", "for",
    "from", "get", "go", "good", "have", "hello", "help", "hey", "hi", "how", "i", "i'd", "i'm", "im", "in",
    "is", "it", "it's", "its", "looking", "me", "much", "my", "near", "nearest", "need", "not", "of", "on",
    "open", "opens", "or", "order", "orders", "our", "pay", "please", "price", "show", "some", "tell",
    "thank", "thanks", "that", "the", "there", "these", "this", "those", "to", "want", "was", "we", "what",
    "what's", "whats", "when", "where", "where's", "wheres", "which", "who", "why", "will", "with", "would",
    "you", "your",
];

/// Latin words that say no language: sizes and short answers.
const NEUTRAL: &[&str] =
    &["xxs", "xs", "s", "m", "l", "xl", "xxl", "xxxl", "y", "n", "yes", "no", "ok", "okay", "yep", "nope"];

/// Everyday things shoppers ask for in English with one word, which a
/// phone may capitalise ("Wifi?", "Toilets?", "Wi-Fi"): not a brand's name.
const ASKED_FOR: &[&str] = &[
    "wifi",
    "wi",
    "toilet",
    "toilets",
    "restroom",
    "restrooms",
    "bathroom",
    "washroom",
    "wc",
    "parking",
    "car",
    "taxi",
    "exit",
    "entrance",
    "lift",
    "elevator",
    "escalator",
    "stairs",
    "atm",
    "food",
    "coffee",
    "tea",
    "drink",
    "drinks",
    "lunch",
    "dinner",
    "breakfast",
    "restaurant",
    "restaurants",
    "shop",
    "shops",
    "store",
    "stores",
    "shoes",
    "clothes",
    "toys",
    "gift",
    "gifts",
    "charger",
    "charging",
    "baby",
    "kids",
    "sale",
    "sales",
    "deals",
    "discount",
    "discounts",
    "coupon",
    "coupons",
    "hours",
    "events",
    "lost",
    "tax",
    "refund",
    "smoking",
    "locker",
    "lockers",
    "umbrella",
    "wheelchair",
    "stroller",
    "pharmacy",
    "cinema",
    "supermarket",
    "desk",
    "info",
    "help",
    "menu",
    "hotpot",
    "burger",
    "pizza",
    "sushi",
    "noodles",
    "dumplings",
    "milk",
    "juice",
    "snacks",
];

/// What the Latin words of `text` say: English when they are
/// ([`english_words`]); nothing when there are none — words with digits
/// (a product code "FD4821", "fd-4821", "42", "2XL"), sizes and "y"/"n"
/// ([`NEUTRAL`]) are not words here — or when every word has a capital as
/// a name has ("Nike", "NIKE", "iPhone", "The North Face") and none is an
/// everyday thing asked for ([`ASKED_FOR`]); else [`Said::Latin`] (which a
/// mall that knows the words as its names reads as a name too).
fn latin(text: &str) -> Said {
    let words = latin_words(text);
    if words.is_empty() {
        return Said::Nothing;
    }
    if english_words(&words) {
        return Said::Clearly(Lang::En);
    }
    let capitalised = |w: &&str| w.chars().any(|c| c.is_ascii_uppercase());
    let asked_for = |w: &&str| ASKED_FOR.contains(&w.to_ascii_lowercase().as_str());
    if words.iter().all(capitalised) && !words.iter().any(asked_for) {
        return Said::Nothing;
    }
    Said::Latin
}

/// The Latin words of `text`, but those of a code (with a digit) and the
/// neutral ones ([`NEUTRAL`]).
fn latin_words(text: &str) -> Vec<&str> {
    let apostrophe = |c: char| c == '\'' || c == '’';
    text.split(|c: char| !(c.is_ascii_alphanumeric() || apostrophe(c) || c == '-'))
        .filter(|token| !token.chars().any(|c| c.is_ascii_digit()))
        .flat_map(|token| token.split('-'))
        .map(|w| w.trim_matches(apostrophe))
        .filter(|w| !w.is_empty() && w.chars().all(|c| c.is_ascii_alphabetic() || apostrophe(c)))
        .filter(|w| !NEUTRAL.contains(&w.to_ascii_lowercase().as_str()))
        .collect()
}

/// Whether Latin `words` are English: one of [`ENGLISH`]'s words — unless
/// every word is capitalised, as a name is ("The North Face") —, or three
/// words or more of two letters or more that are not a name.
fn english_words(words: &[&str]) -> bool {
    let capitalised = |w: &&str| w.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    if words.len() >= 2 && words.iter().all(capitalised) {
        return false;
    }
    let english = words.iter().any(|w| ENGLISH.contains(&w.to_ascii_lowercase().replace('’', "'").as_str()));
    english || words.iter().filter(|w| w.len() >= 2).count() >= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_size_a_yes_a_number_an_emoji_a_code_or_a_brand_keep_the_conversations_language() {
        for text in [
            "M",
            "L",
            "XL",
            "xxl",
            "42",
            "42码?",
            "y",
            "n",
            "Y",
            "yes",
            "ok",
            "2",
            "👍",
            "😀😀",
            "FD4821",
            "fd-4821",
            "Nike",
            "NIKE",
            "Uniqlo",
            "The North Face",
            "Under Armour",
            "Air Max 90",
            "¥399",
            "",
            "  ",
            "?",
        ] {
            if text.chars().any(is_cjk) {
                continue;
            }
            assert_eq!(Lang::said(text), Said::Nothing, "{text:?} says no language");
            for lang in Lang::ALL {
                assert_eq!(Lang::detect_or(text, lang), lang, "{text:?} keeps {lang:?}");
            }
        }
    }

    #[test]
    fn a_message_clearly_in_another_language_switches_it() {
        for text in [
            "where is Nike?",
            "hello",
            "Thanks",
            "how much is this",
            "I want running shoes",
            "show me the cart",
            "black leather jacket",
            "what's on sale",
            "where’s Uniqlo",
            "2 pairs",
            "size 42",
        ] {
            assert_eq!(Lang::said(text), Said::Clearly(Lang::En), "{text:?}");
            assert_eq!(Lang::detect_or(text, Lang::Zh), Lang::En, "{text:?}");
        }
        assert_eq!(Lang::detect_or("42码", Lang::En), Lang::Zh, "Chinese characters are Chinese");
        assert_eq!(Lang::detect_or("这双有 42 码吗", Lang::ZhHant), Lang::Zh, "Simplified characters");
        assert_eq!(Lang::detect_or("這雙有 42 碼嗎", Lang::Zh), Lang::ZhHant, "Traditional characters");
        assert_eq!(Lang::detect_or("好的", Lang::ZhHant), Lang::ZhHant, "either script keeps Traditional");
        assert_eq!(Lang::detect_or("好的", Lang::Zh), Lang::Zh);
        assert_eq!(Lang::detect_or("好的", Lang::En), Lang::Zh, "either script from English: Simplified");
    }

    #[test]
    fn latin_words_that_are_no_name_open_a_conversation_in_english_and_keep_one() {
        for text in
            ["bubble tea?", "wifi?", "Wifi?", "Wi-Fi", "toilets?", "Toilets", "parking?", "sushi", "nike"]
        {
            assert_eq!(Lang::said(text), Said::Latin, "{text:?}");
            assert_eq!(Lang::Zh.opening(Lang::said(text)), Lang::En, "{text:?} opens in English");
            for lang in Lang::ALL {
                assert_eq!(Lang::detect_or(text, lang), lang, "{text:?} keeps {lang:?}");
            }
            assert_eq!(Lang::detect(text), None, "{text:?}");
        }
        for text in [
            "M",
            "42",
            "y",
            "👍",
            "FD4821",
            "fd-4821",
            "Nike",
            "NIKE",
            "iPhone",
            "The North Face",
            "Air Max 90",
            "?",
        ] {
            assert_eq!(Lang::Zh.opening(Lang::said(text)), Lang::Zh, "{text:?} opens in the transport's");
            assert_eq!(Lang::ZhHant.opening(Lang::said(text)), Lang::ZhHant, "{text:?}");
        }
        assert_eq!(Lang::Zh.opening(Lang::said("好的")), Lang::Zh);
        assert_eq!(Lang::ZhHant.opening(Lang::said("where is Nike?")), Lang::ZhHant, "said by the transport");
    }

    #[test]
    fn detect_names_a_language_only_when_the_text_says_one() {
        assert_eq!(Lang::detect("M"), None);
        assert_eq!(Lang::detect("FD4821"), None);
        assert_eq!(Lang::detect("好的"), Some(Lang::Zh));
        assert_eq!(Lang::detect("where is nike"), Some(Lang::En));
    }
}
