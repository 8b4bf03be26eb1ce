//! Is an answer in the script it must be in? English: no Chinese characters
//! or Chinese punctuation. Simplified: Chinese, none of the characters only
//! Traditional writing uses, and no English sentence. Traditional: the same
//! the other way round.
//!
//! The character lists hold only characters that one standard never uses
//! (这 is never Traditional, 這 never Simplified); characters both write
//! (台, 里, 只…) are left out, so a right answer is never failed by them.

use super::corpus::Script;

/// Characters written only in Simplified Chinese, with their Traditional forms
/// at the same positions of [`TRADITIONAL_ONLY`].
const SIMPLIFIED_ONLY: &str = "这们个时为么说对会来过没还样点门问间买卖车东长开关货钱单订购务层楼区电话边让请谢号张员场经馆优库费营业现实认确码价动运装饮锅厅礼给达进从带线图转换尔丢灯乐欢无热级节团觉变厕齐脚适饰爱双华龙凤页应该几处离岁妈预约满减条块吗";
const TRADITIONAL_ONLY: &str = "這們個時為麼說對會來過沒還樣點門問間買賣車東長開關貨錢單訂購務層樓區電話邊讓請謝號張員場經館優庫費營業現實認確碼價動運裝飲鍋廳禮給達進從帶線圖轉換爾丟燈樂歡無熱級節團覺變廁齊腳適飾愛雙華龍鳳頁應該幾處離歲媽預約滿減條塊嗎";

/// English words that do not occur in a Chinese answer unless it is (partly) English.
const ENGLISH_WORDS: &[&str] = &[
    "the",
    "please",
    "you",
    "your",
    "is",
    "are",
    "was",
    "and",
    "for",
    "with",
    "here",
    "there",
    "would",
    "sorry",
    "found",
    "added",
    "confirm",
    "cancelled",
    "don't",
    "i'll",
    "can't",
    "what",
    "which",
    "where",
];

/// Whether `c` is a Han character.
pub(crate) fn is_han(c: char) -> bool {
    matches!(c as u32, 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xF900..=0xFAFF | 0x20000..=0x2FA1F)
}

/// Whether `c` is Chinese punctuation (CJK symbols, full-width forms).
fn is_cjk_punctuation(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x303F | 0xFF01..=0xFF0F | 0xFF1A..=0xFF20 | 0xFF3B..=0xFF40 | 0xFF5B..=0xFF65)
}

/// Why `text` is not in `script`, or `None` when it is. `allow` (names the answer
/// may show as they are) is taken out first.
pub(crate) fn mismatch(text: &str, script: Script, allow: &[String]) -> Option<String> {
    let mut text = text.to_owned();
    for allowed in allow {
        text = text.replace(allowed.as_str(), " ");
    }
    match script {
        Script::Any => None,
        Script::English => {
            let foreign: String = text.chars().filter(|&c| is_han(c) || is_cjk_punctuation(c)).collect();
            (!foreign.is_empty())
                .then(|| format!("Chinese in an English answer: {}", sample(&text, &foreign)))
        }
        Script::Simplified | Script::Traditional => {
            if !text.chars().any(is_han) {
                return Some("no Chinese in the answer".to_owned());
            }
            let words = english_words(&text);
            if words.len() >= 2 {
                return Some(format!("English in a Chinese answer: {}", words.join(" ")));
            }
            let wrong = if script == Script::Simplified { TRADITIONAL_ONLY } else { SIMPLIFIED_ONLY };
            let found: String = text.chars().filter(|c| wrong.contains(*c)).collect();
            (!found.is_empty()).then(|| {
                let (what, other) = if script == Script::Simplified {
                    ("Simplified", "Traditional")
                } else {
                    ("Traditional", "Simplified")
                };
                format!("{other} characters in a {what} answer: {}", sample(&text, &found))
            })
        }
    }
}

/// The English words of [`ENGLISH_WORDS`] in `text`.
fn english_words(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_alphabetic() || c == '\''))
        .map(str::to_ascii_lowercase)
        .filter(|w| ENGLISH_WORDS.contains(&w.as_str()))
        .collect()
}

/// The offending characters and the first line holding one.
fn sample(text: &str, found: &str) -> String {
    let mut chars: Vec<char> = found.chars().collect();
    chars.dedup();
    let shown: String = chars.iter().take(12).collect();
    let line = text.lines().find(|l| l.chars().any(|c| found.contains(c))).unwrap_or_default().trim();
    let line: String = line.chars().take(80).collect();
    format!("{shown:?} in {line:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_pair_up() {
        assert_eq!(SIMPLIFIED_ONLY.chars().count(), TRADITIONAL_ONLY.chars().count());
    }

    #[test]
    fn english_takes_no_chinese_but_allowed_names() {
        assert_eq!(mismatch("Nike is on 3F, unit 3F-01.", Script::English, &[]), None);
        let why = mismatch("Deals: 冬装新品 9 折: 10% off", Script::English, &[]).expect("mixed");
        assert!(why.starts_with("Chinese in an English answer: \"冬装新品"), "{why}");
        assert!(mismatch("Open 10:00-次日02:00", Script::English, &[]).is_some());
        assert!(mismatch("Hi，there", Script::English, &[]).is_some(), "a Chinese comma");
        assert_eq!(mismatch("Try 海底捞 on 5F", Script::English, &["海底捞".into()]), None);
    }

    #[test]
    fn simplified_and_traditional_are_told_apart() {
        assert_eq!(mismatch("最近的服务台在 1楼中庭东侧。", Script::Simplified, &[]), None);
        let why = mismatch("最近的服务台在 1楼", Script::Traditional, &[]).expect("Simplified");
        assert!(why.contains("Simplified characters in a Traditional answer") && why.contains('务'), "{why}");
        assert_eq!(mismatch("最近的服務台在 1樓中庭東側。", Script::Traditional, &[]), None);
        assert!(mismatch("這裡是服務台", Script::Simplified, &[]).is_some());
        assert_eq!(mismatch("Nike Pegasus 41 在 3 楼", Script::Simplified, &[]), None, "names are fine");
    }

    #[test]
    fn a_chinese_answer_is_not_english() {
        let why =
            mismatch("Please confirm: Add to cart: 跑鞋 (M)", Script::Simplified, &[]).expect("English");
        assert!(why.starts_with("English in a Chinese answer"), "{why}");
        assert_eq!(mismatch("Done.", Script::Simplified, &[]).as_deref(), Some("no Chinese in the answer"));
    }
}
