//! Pieces the offline planner pulls out of a shopper's message: price bounds
//! ("500 以内", "between 100 and 200"), ordinals ("第二个", "the 2nd one"),
//! sizes ("42码", "size M"), quantities ("两双", "2 pairs") and order ids.

use std::ops::Range;

use super::text::{Number, Scratch, english_number, numbers, skip_spaces, skip_spaces_back};

/// Price bounds in yuan.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PriceBounds {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

impl PriceBounds {
    /// Neither bound given.
    pub fn is_empty(&self) -> bool {
        self.min.is_none() && self.max.is_none()
    }
}

/// Which item of a listed set the shopper means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// The n-th, from 1.
    Nth(usize),
    /// The last one.
    Last,
}

impl Pick {
    /// The index into a list of `len` items, if there is such an item.
    pub fn index(self, len: usize) -> Option<usize> {
        match self {
            Pick::Nth(n) if (1..=len).contains(&n) => Some(n - 1),
            Pick::Last if len > 0 => Some(len - 1),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Bound {
    Min,
    Max,
    Around,
}

const BEFORE_CUES: &[(&str, Bound)] = &[
    ("no more than", Bound::Max),
    ("not more than", Bound::Max),
    ("cheaper than", Bound::Max),
    ("less than", Bound::Max),
    ("up to", Bound::Max),
    ("under", Bound::Max),
    ("below", Bound::Max),
    ("within", Bound::Max),
    ("at most", Bound::Max),
    ("maximum", Bound::Max),
    ("max", Bound::Max),
    ("budget of", Bound::Max),
    ("budget is", Bound::Max),
    ("budget", Bound::Max),
    ("<=", Bound::Max),
    ("<", Bound::Max),
    ("不超过", Bound::Max),
    ("不高于", Bound::Max),
    ("低于", Bound::Max),
    ("少于", Bound::Max),
    ("小于", Bound::Max),
    ("不到", Bound::Max),
    ("最多", Bound::Max),
    ("预算是", Bound::Max),
    ("预算在", Bound::Max),
    ("预算", Bound::Max),
    ("more than", Bound::Min),
    ("at least", Bound::Min),
    ("minimum", Bound::Min),
    ("over", Bound::Min),
    ("above", Bound::Min),
    ("min", Bound::Min),
    (">=", Bound::Min),
    (">", Bound::Min),
    ("不低于", Bound::Min),
    ("超过", Bound::Min),
    ("高于", Bound::Min),
    ("大于", Bound::Min),
    ("多于", Bound::Min),
    ("至少", Bound::Min),
    ("最少", Bound::Min),
    ("around", Bound::Around),
    ("about", Bound::Around),
    ("大概", Bound::Around),
];

const AFTER_CUES: &[(&str, Bound)] = &[
    ("or less", Bound::Max),
    ("or under", Bound::Max),
    ("and under", Bound::Max),
    ("or below", Bound::Max),
    ("and below", Bound::Max),
    ("max", Bound::Max),
    ("以内", Bound::Max),
    ("以下", Bound::Max),
    ("之内", Bound::Max),
    ("内", Bound::Max),
    ("or more", Bound::Min),
    ("and up", Bound::Min),
    ("or above", Bound::Min),
    ("and above", Bound::Min),
    ("以上", Bound::Min),
    ("起", Bound::Min),
    ("+", Bound::Min),
    ("左右", Bound::Around),
];

const UNITS: &[&str] = &["块钱", "元", "块", "rmb", "yuan", "kuai", "cny"];
const CURRENCY: &[&str] = &["¥", "rmb", "cny"];
const RANGE_JOINERS: &[&str] = &["到", "至", "-", "~", "—", "to", "and"];
const RANGE_OPENERS: &[&str] = &["between", "from", "价格在", "价位在", "在"];
const RANGE_CLOSERS: &[&str] = &["之间", "的范围", "范围内"];

/// Takes the price bounds out of the text (the phrases are struck out).
pub fn take_price_bounds(s: &mut Scratch) -> PriceBounds {
    let lower = s.lower().to_owned();
    let nums: Vec<Number> = numbers(&lower).into_iter().filter(|n| s.is_kept(n.range.clone())).collect();
    let mut bounds = PriceBounds::default();
    let mut i = 0;
    while let Some(n) = nums.get(i) {
        if let Some(span) = nums.get(i + 1).and_then(|next| range_span(&lower, n, next)) {
            bounds.min = Some(n.value);
            bounds.max = nums.get(i + 1).map(|next| next.value);
            s.remove_range(span);
            i += 2;
            continue;
        }
        if let Some((bound, span)) = single_bound(&lower, n) {
            match bound {
                Bound::Min => bounds.min = Some(n.value),
                Bound::Max => bounds.max = Some(n.value),
                Bound::Around => {
                    bounds.min = Some((n.value * 0.8).floor());
                    bounds.max = Some((n.value * 1.2).ceil());
                }
            }
            s.remove_range(span);
        }
        i += 1;
    }
    bounds
}

/// `100 到 200 元`, `between 100 and 200`, `100-200`: the span, if `a` and `b` form a range.
fn range_span(text: &str, a: &Number, b: &Number) -> Option<Range<usize>> {
    let joiner_at = skip_spaces(text, unit_end(text, a.range.end));
    let joiner = RANGE_JOINERS.iter().find(|j| text[joiner_at..].starts_with(*j))?;
    let after_joiner = skip_spaces(text, joiner_at + joiner.len());
    let b_start = prefixed(text, after_joiner, CURRENCY).unwrap_or(after_joiner);
    if skip_spaces(text, b_start) != b.range.start {
        return None;
    }
    let opener = cue_before(text, currency_start(text, a.range.start), RANGE_OPENERS);
    // "iPhone 16 and 16 Pro", "size 40 to 42" are no prices: "and"/"to" join prices only
    // after "between"/"from" or with a currency ("¥100 to ¥200", "100 to 200 yuan").
    let priced =
        currency_start(text, a.range.start) != a.range.start || unit_end(text, b.range.end) != b.range.end;
    if (*joiner == "and" || *joiner == "to") && opener.is_none() && !priced {
        return None;
    }
    let start = opener.map_or(currency_start(text, a.range.start), |(at, _)| at);
    let end = unit_end(text, b.range.end);
    let closer_at = skip_spaces(text, end);
    let end =
        RANGE_CLOSERS.iter().find(|c| text[closer_at..].starts_with(*c)).map_or(end, |c| closer_at + c.len());
    Some(start..end)
}

/// `500 以内`, `under 300`, `200 以上`: the bound and its span.
fn single_bound(text: &str, n: &Number) -> Option<(Bound, Range<usize>)> {
    let start = currency_start(text, n.range.start);
    let end = unit_end(text, n.range.end);
    let cue_at = skip_spaces(text, end);
    let after =
        AFTER_CUES.iter().find(|(cue, _)| text[cue_at..].starts_with(cue) && ends_word(text, cue_at, cue));
    if let Some((cue, bound)) = after {
        return Some((*bound, start..cue_at + cue.len()));
    }
    let cues: Vec<&str> = BEFORE_CUES.iter().map(|(c, _)| *c).collect();
    let (at, cue) = cue_before(text, start, &cues)?;
    let bound = BEFORE_CUES.iter().find(|(c, _)| *c == cue).map(|(_, b)| *b)?;
    Some((bound, at..end))
}

/// The longest of `cues` ending right before `at` (spaces allowed between), at a word start.
fn cue_before<'c>(text: &str, at: usize, cues: &[&'c str]) -> Option<(usize, &'c str)> {
    let end = skip_spaces_back(text, at);
    let head = &text[..end];
    let mut sorted = cues.to_vec();
    sorted.sort_by_key(|c| std::cmp::Reverse(c.len()));
    sorted
        .into_iter()
        .find(|cue| head.ends_with(cue) && starts_word(text, end - cue.len(), cue))
        .map(|cue| (end - cue.len(), cue))
}

/// Where a number's currency sign starts (`¥500`), or the number itself.
fn currency_start(text: &str, at: usize) -> usize {
    let head = &text[..skip_spaces_back(text, at)];
    CURRENCY.iter().find(|c| head.ends_with(*c)).map_or(at, |c| head.len() - c.len())
}

/// The end of a number's unit (`500 元`, `300块钱`), or of the number itself.
fn unit_end(text: &str, at: usize) -> usize {
    let from = skip_spaces(text, at);
    UNITS
        .iter()
        .find(|u| text[from..].starts_with(*u) && ends_word(text, from, u))
        .map_or(at, |u| from + u.len())
}

/// The end of `prefix` when `text[at..]` starts with one of them.
fn prefixed(text: &str, at: usize, prefixes: &[&str]) -> Option<usize> {
    prefixes.iter().find(|p| text[at..].starts_with(*p)).map(|p| skip_spaces(text, at + p.len()))
}

fn starts_word(text: &str, at: usize, cue: &str) -> bool {
    !cue.starts_with(|c: char| c.is_ascii_alphanumeric())
        || !text[..at].ends_with(|c: char| c.is_ascii_alphanumeric())
}

fn ends_word(text: &str, at: usize, cue: &str) -> bool {
    !cue.ends_with(|c: char| c.is_ascii_alphanumeric())
        || !text[at + cue.len()..].starts_with(|c: char| c.is_ascii_alphanumeric())
}

const ORDINAL_CLASSIFIERS: &str = "个款件双项条家样种只台部";
const ORDINAL_WORDS: [&str; 10] =
    ["first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"];
const LAST: &[&str] = &["最后一个", "最后一款", "最后一件", "最后那个", "最后那款", "最后", "last"];
const NUMBER_PREFIXES: &[&str] = &["number", "no.", "no", "item", "option", "#"];

/// Takes an ordinal out of the text.
pub fn take_ordinal(s: &mut Scratch) -> Option<Pick> {
    let lower = s.lower().to_owned();
    let nums: Vec<Number> = numbers(&lower).into_iter().filter(|n| s.is_kept(n.range.clone())).collect();
    for n in &nums {
        if let Some((start, end)) = ordinal_span(&lower, n) {
            s.remove_range(start..end);
            return usize::try_from(n.value as u64).ok().filter(|&v| v > 0).map(Pick::Nth);
        }
    }
    for (i, word) in ORDINAL_WORDS.iter().enumerate() {
        if let Some(r) = s.find(word) {
            s.remove_range(r);
            return Some(Pick::Nth(i + 1));
        }
    }
    let last = LAST.iter().find_map(|w| s.find(w))?;
    s.remove_range(last);
    Some(Pick::Last)
}

/// `第2个`, `第二款`, `2nd`, `#3`, `number 3`: the span of an ordinal around `n`.
fn ordinal_span(text: &str, n: &Number) -> Option<(usize, usize)> {
    let after = &text[n.range.end..];
    let head = &text[..skip_spaces_back(text, n.range.start)];
    if let Some(head) = head.strip_suffix('第') {
        let next = after.chars().next();
        let classifier = next.filter(|c| ORDINAL_CLASSIFIERS.contains(*c));
        let ok = classifier.is_some() || next.is_none_or(|c| !super::text::has_cjk(&c.to_string()));
        return ok.then(|| (head.len(), n.range.end + classifier.map_or(0, char::len_utf8)));
    }
    if ["st", "nd", "rd", "th"].iter().any(|suffix| after.starts_with(suffix))
        && !after[2..].starts_with(|c: char| c.is_ascii_alphanumeric())
        && n.text.bytes().all(|b| b.is_ascii_digit())
    {
        return Some((n.range.start, n.range.end + 2));
    }
    let prefix =
        NUMBER_PREFIXES.iter().find(|p| head.ends_with(*p) && starts_word(text, head.len() - p.len(), p))?;
    Some((head.len() - prefix.len(), n.range.end))
}

const LETTER_SIZES: &[&str] = &["xxxl", "xxl", "3xl", "2xl", "xl", "xs", "s", "m", "l"];
const SIZE_MARKS: &[&str] = &["码", "号", "碼", "號"];
const SIZE_PREFIXES: &[&str] = &["尺码", "码数", "尺寸", "size", "号码"];

/// Takes a size out of the text: `42码`, `size 42`, `M 码`, `XL`.
pub fn take_size(s: &mut Scratch) -> Option<String> {
    let lower = s.lower().to_owned();
    for letters in LETTER_SIZES {
        if let Some(r) = s.find(letters) {
            let end = size_mark_end(&lower, r.end);
            let start = size_prefix_start(&lower, r.start);
            s.remove_range(start..end);
            return Some(letters.to_ascii_uppercase());
        }
    }
    for n in numbers(&lower) {
        let in_digits = lower[n.range.clone()].starts_with(|c: char| c.is_ascii_digit());
        if !in_digits || !s.is_kept(n.range.clone()) {
            continue;
        }
        let end = size_mark_end(&lower, n.range.end);
        let start = size_prefix_start(&lower, n.range.start);
        if end > n.range.end || start < n.range.start {
            s.remove_range(start..end);
            return Some(n.text);
        }
    }
    None
}

fn size_mark_end(text: &str, at: usize) -> usize {
    let from = skip_spaces(text, at);
    SIZE_MARKS.iter().find(|m| text[from..].starts_with(*m)).map_or(at, |m| from + m.len())
}

fn size_prefix_start(text: &str, at: usize) -> usize {
    let head = text[..skip_spaces_back(text, at)].trim_end_matches([':', ' ']);
    SIZE_PREFIXES.iter().find(|p| head.ends_with(*p)).map_or(at, |p| head.len() - p.len())
}

#[rustfmt::skip]
const QUANTITY_UNITS: &[&str] = &[
    "双", "件", "个", "份", "杯", "条", "套", "瓶", "只", "台", "部", "副", "盒", "pairs", "pair", "pieces",
    "piece", "pcs", "items", "item", "cups", "cup", "units", "unit", "of them", "of those", "of these",
];
const TIMES_SIGNS: &[&str] = &["x", "×", "*", "qty", "quantity", "数量"];

/// Takes a quantity out of the text: `两双`, `2 pairs`, `x2`, `two of them`.
pub fn take_quantity(s: &mut Scratch) -> Option<u32> {
    let lower = s.lower().to_owned();
    for n in numbers(&lower).into_iter().filter(|n| s.is_kept(n.range.clone())) {
        let from = skip_spaces(&lower, n.range.end);
        let unit =
            QUANTITY_UNITS.iter().find(|u| lower[from..].starts_with(*u) && ends_word(&lower, from, u));
        let sign = cue_before(&lower, n.range.start, TIMES_SIGNS);
        let span = match (unit, sign) {
            (Some(u), _) => n.range.start..from + u.len(),
            (None, Some((at, _))) => at..n.range.end,
            (None, None) => continue,
        };
        s.remove_range(span);
        return quantity(n.value);
    }
    let words = s.residual().to_ascii_lowercase();
    let (word, n) = words.split(' ').find_map(|w| english_number(w).map(|n| (w.to_owned(), n)))?;
    let unit = QUANTITY_UNITS.iter().find_map(|u| s.find(&format!("{word} {u}")))?;
    s.remove_range(unit);
    quantity(f64::from(n))
}

fn quantity(value: f64) -> Option<u32> {
    ((1.0..=99.0).contains(&value) && value.fract() == 0.0).then_some(value as u32)
}

/// An order id written in the text (`o-123`, `ORD-2024-0001`).
pub fn find_order_id(text: &str) -> Option<String> {
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
        .map(|t| t.trim_matches(['-', '_']))
        .filter(|t| t.len() >= 3 && t.bytes().any(|b| b.is_ascii_digit()))
        .find(|t| !is_ordinal_word(t))
        .map(str::to_owned)
}

fn is_ordinal_word(token: &str) -> bool {
    let lower = token.to_ascii_lowercase();
    ["st", "nd", "rd", "th"].iter().any(|s| {
        lower
            .strip_suffix(s)
            .is_some_and(|digits| !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// Takes a count that opens the message ("two grande lattes", "3 iced
/// americanos"): a number word or digits first, a word (not a unit of money
/// or size) after.
pub fn take_leading_count(s: &mut Scratch) -> Option<u32> {
    const NOT_THINGS: &[&str] = &["yuan", "rmb", "元", "块", "码", "号", "size", "percent", "%", "am", "pm"];
    /// Words of ordering before the count ("buy 2 iced americanos", "I'd like two lattes").
    const LEAD_IN: &[&str] = &[
        "buy", "i", "i'd", "i'll", "want", "like", "would", "get", "me", "give", "order", "please", "can",
        "could", "have", "need", "take", "us", "we",
    ];
    let words = s.residual();
    let mut tokens = words.split(' ').skip_while(|w| LEAD_IN.contains(&w.to_ascii_lowercase().as_str()));
    let first = tokens.next()?;
    let next = tokens.next()?.to_lowercase();
    if !next.starts_with(|c: char| c.is_ascii_alphabetic()) || NOT_THINGS.contains(&next.as_str()) {
        return None;
    }
    let lowered = first.to_ascii_lowercase();
    let n = english_number(&lowered).or_else(|| lowered.parse::<u32>().ok())?;
    let range = s.find(&lowered)?;
    let value = quantity(f64::from(n))?;
    s.remove_range(range);
    Some(value)
}
