//! Text helpers of the offline planner: a scratch copy of a shopper's message
//! from which recognised phrases are struck out, and numbers written in digits
//! or Chinese numerals.

use std::ops::Range;

/// A shopper's message being taken apart: phrases are found case-insensitively
/// (English words only at word boundaries) and struck out; what is left over is
/// the [`Scratch::residual`].
#[derive(Debug, Clone)]
pub struct Scratch {
    /// The message with full-width forms folded to ASCII, original case.
    orig: String,
    /// `orig` with ASCII letters lowercased: the same byte offsets.
    lower: String,
    /// Per byte: struck out.
    removed: Vec<bool>,
}

impl Scratch {
    /// A scratch copy of `text`.
    pub fn new(text: &str) -> Self {
        let orig: String = text.trim().chars().map(fold_width).collect();
        let lower = orig.to_ascii_lowercase();
        let removed = vec![false; orig.len()];
        Scratch { orig, lower, removed }
    }

    /// The lowercased text (struck-out parts included).
    pub fn lower(&self) -> &str {
        &self.lower
    }

    /// The text in its original case (struck-out parts included).
    pub fn orig(&self) -> &str {
        &self.orig
    }

    /// Whether a byte range is still present.
    pub fn is_kept(&self, range: Range<usize>) -> bool {
        self.removed.get(range).is_some_and(|r| r.iter().all(|gone| !gone))
    }

    /// Where `phrase` (lowercase) occurs, still present and at word boundaries.
    pub fn find_all(&self, phrase: &str) -> Vec<Range<usize>> {
        if phrase.is_empty() {
            return Vec::new();
        }
        self.lower
            .match_indices(phrase)
            .map(|(at, _)| at..at + phrase.len())
            .filter(|r| self.at_word_boundary(r.clone()) && self.is_kept(r.clone()))
            .collect()
    }

    /// The first place where `phrase` occurs.
    pub fn find(&self, phrase: &str) -> Option<Range<usize>> {
        self.find_all(phrase).into_iter().next()
    }

    /// Whether any of `phrases` occurs.
    pub fn contains_any(&self, phrases: &[&str]) -> bool {
        phrases.iter().any(|p| self.find(p).is_some())
    }

    /// Strikes out every occurrence of each phrase, longest phrases first.
    /// Returns whether anything was struck out.
    pub fn remove_all(&mut self, phrases: &[&str]) -> bool {
        let mut sorted: Vec<&str> = phrases.to_vec();
        sorted.sort_by_key(|p| std::cmp::Reverse(p.len()));
        let mut any = false;
        for phrase in sorted {
            for range in self.find_all(phrase) {
                self.remove_range(range);
                any = true;
            }
        }
        any
    }

    /// Strikes out a byte range.
    pub fn remove_range(&mut self, range: Range<usize>) {
        if let Some(slice) = self.removed.get_mut(range) {
            slice.iter_mut().for_each(|gone| *gone = true);
        }
    }

    /// What is left: punctuation becomes spaces, runs of spaces collapse.
    pub fn residual(&self) -> String {
        let kept: String = self
            .orig
            .char_indices()
            .map(|(at, c)| if self.removed.get(at).copied().unwrap_or(true) { ' ' } else { c })
            .map(|c| if c.is_alphanumeric() || "-&'.+#".contains(c) { c } else { ' ' })
            .collect();
        kept.split_whitespace()
            .map(|w| w.trim_matches(|c: char| "-&'.+".contains(c)))
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The residual without the given whole words (compared lowercase).
    pub fn residual_without(&self, words: &[&str]) -> String {
        self.residual()
            .split(' ')
            .filter(|w| !words.contains(&w.to_ascii_lowercase().as_str()))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether a match does not cut an English word in two.
    fn at_word_boundary(&self, range: Range<usize>) -> bool {
        let bytes = self.lower.as_bytes();
        let first = bytes.get(range.start).copied().unwrap_or(b' ');
        let last = bytes.get(range.end.wrapping_sub(1)).copied().unwrap_or(b' ');
        let before = range.start.checked_sub(1).and_then(|i| bytes.get(i)).copied();
        let after = bytes.get(range.end).copied();
        let clash =
            |edge: u8, neighbour: Option<u8>| is_word_byte(edge) && neighbour.is_some_and(is_word_byte);
        !clash(first, before) && !clash(last, after)
    }
}

/// ASCII letters, digits and the apostrophe hold English words together.
fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'\''
}

/// Folds full-width ASCII forms and the ideographic space to ASCII.
fn fold_width(c: char) -> char {
    match c {
        '\u{3000}' => ' ',
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{FFE5}' => '¥',
        _ => c,
    }
}

/// A number found in a text, with its byte range.
#[derive(Debug, Clone, PartialEq)]
pub struct Number {
    pub range: Range<usize>,
    pub value: f64,
    /// The digits as written (`"42"`, `"42.5"`), or the value for Chinese numerals.
    pub text: String,
}

const CN_NUMERALS: &str = "零〇一二两三四五六七八九十百千万";

/// Every number in `text`: runs of ASCII digits (one decimal point allowed)
/// and runs of Chinese numerals.
pub fn numbers(text: &str) -> Vec<Number> {
    let mut found = Vec::new();
    let mut chars = text.char_indices().peekable();
    while let Some((start, c)) = chars.next() {
        let digit = c.is_ascii_digit();
        if !digit && !CN_NUMERALS.contains(c) {
            continue;
        }
        let mut end = start + c.len_utf8();
        while let Some(&(at, next)) = chars.peek() {
            let continues = if digit {
                next.is_ascii_digit()
                    || (next == '.' && !text[start..at].contains('.') && next_is_digit(text, at + 1))
            } else {
                CN_NUMERALS.contains(next)
            };
            if !continues {
                break;
            }
            end = at + next.len_utf8();
            chars.next();
        }
        let run = &text[start..end];
        let value = if digit { run.parse::<f64>().ok() } else { cn_number(run).map(f64::from) };
        if let Some(value) = value {
            let text = if digit { run.to_owned() } else { value.to_string() };
            found.push(Number { range: start..end, value, text });
        }
    }
    found
}

fn next_is_digit(text: &str, at: usize) -> bool {
    text.get(at..).and_then(|t| t.chars().next()).is_some_and(|c| c.is_ascii_digit())
}

/// The value of a Chinese numeral: `两` → 2, `十二` → 12, `五百` → 500,
/// `一千五` → 1500, `两百五` → 250.
pub fn cn_number(text: &str) -> Option<u32> {
    let mut total: u32 = 0;
    let mut section: u32 = 0;
    let mut digit: Option<u32> = None;
    let mut last_unit: u32 = 1;
    let mut zero_after_unit = false;
    for c in text.chars() {
        let unit = match c {
            '十' => 10,
            '百' => 100,
            '千' => 1000,
            '万' => 10_000,
            _ => {
                let d = cn_digit(c)?;
                zero_after_unit |= d == 0;
                digit = Some(d);
                continue;
            }
        };
        if unit == 10_000 {
            total = (total + section + digit.unwrap_or(0)).checked_mul(10_000)?;
            section = 0;
        } else {
            section += digit.unwrap_or(1) * unit;
        }
        digit = None;
        last_unit = unit;
        zero_after_unit = false;
    }
    let trailing = match digit {
        Some(d) if !zero_after_unit && (100..10_000).contains(&last_unit) => d * last_unit / 10,
        Some(d) => d,
        None => 0,
    };
    let value = total + section + trailing;
    (value > 0 || text.contains(['零', '〇'])).then_some(value)
}

fn cn_digit(c: char) -> Option<u32> {
    Some(match c {
        '零' | '〇' => 0,
        '一' => 1,
        '二' | '两' => 2,
        '三' => 3,
        '四' => 4,
        '五' => 5,
        '六' => 6,
        '七' => 7,
        '八' => 8,
        '九' => 9,
        _ => return None,
    })
}

/// The value of an English number word from one to ten.
pub fn english_number(word: &str) -> Option<u32> {
    const WORDS: [&str; 10] = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
    WORDS.iter().position(|w| *w == word).and_then(|i| u32::try_from(i + 1).ok())
}

/// Skips spaces forward from `at`; returns the new offset.
pub fn skip_spaces(text: &str, at: usize) -> usize {
    let rest = text.get(at..).unwrap_or("");
    at + (rest.len() - rest.trim_start().len())
}

/// Skips spaces backward from `at`; returns the new offset.
pub fn skip_spaces_back(text: &str, at: usize) -> usize {
    text.get(..at).map(|t| t.trim_end().len()).unwrap_or(at)
}

/// Whether `text` has a CJK ideograph.
pub fn has_cjk(text: &str) -> bool {
    text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c))
}
