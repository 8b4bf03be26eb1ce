//! Text for bilingual search: normalisation into units (English words and
//! single Chinese characters) and the [`Lexicon`] of brand, category and
//! synonym words that maps what shoppers write onto shared concepts.

use std::collections::{HashMap, HashSet};

/// One unit of text: a lower-cased, lightly stemmed word, or one Chinese character.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unit {
    pub text: String,
    /// True for a Chinese character.
    pub cjk: bool,
    /// True when this unit directly follows the previous one (no space or punctuation between).
    pub joined: bool,
}

/// True for the Chinese (CJK ideograph) characters the tokeniser treats one by one.
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}' | '\u{F900}'..='\u{FAFF}')
}

/// Folds full-width forms and common Latin accents, and lower-cases.
fn fold(c: char) -> Option<char> {
    let c = match c {
        '\u{FF01}'..='\u{FF5E}' => char::from_u32(c as u32 - 0xFEE0).unwrap_or(c),
        '\u{3000}' => ' ',
        _ => c,
    };
    let folded = match c {
        'à'..='å' | 'À'..='Å' => 'a',
        'ç' | 'Ç' => 'c',
        'è'..='ë' | 'È'..='Ë' => 'e',
        'ì'..='ï' | 'Ì'..='Ï' => 'i',
        'ñ' | 'Ñ' => 'n',
        'ò'..='ö' | 'ø' | 'Ò'..='Ö' | 'Ø' => 'o',
        'ù'..='ü' | 'Ù'..='Ü' => 'u',
        'ý' | 'ÿ' | 'Ý' => 'y',
        // Apostrophes vanish: "Levi's" is "levis".
        '\'' | '’' | '‘' => return None,
        _ => c,
    };
    folded.to_lowercase().next()
}

/// Light English stemming so "shoes"/"shoe" and "dresses"/"dress" meet.
fn stem(word: &str) -> String {
    let n = word.len();
    if word.bytes().all(|b| b.is_ascii_digit()) || n <= 3 {
        return word.to_owned();
    }
    if n > 4 && word.ends_with("ies") {
        return format!("{}y", &word[..n - 3]);
    }
    for suffix in ["sses", "shes", "ches", "xes"] {
        if word.ends_with(suffix) {
            return word[..n - 2].to_owned();
        }
    }
    if word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is") {
        return word[..n - 1].to_owned();
    }
    word.to_owned()
}

/// Splits text into units. Words break at spaces, punctuation and between
/// letters and digits ("iPhone16" is "iphone", "16"); Chinese is one unit per character.
pub(crate) fn units(text: &str) -> Vec<Unit> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut word_is_digit = false;
    let mut joined = false;
    let flush = |word: &mut String, out: &mut Vec<Unit>, joined: &mut bool| {
        if !word.is_empty() {
            out.push(Unit { text: stem(word), cjk: false, joined: *joined });
            word.clear();
            *joined = true;
        }
    };
    for raw in text.chars() {
        let Some(c) = fold(raw) else { continue };
        if is_cjk(c) {
            flush(&mut word, &mut out, &mut joined);
            out.push(Unit { text: c.to_string(), cjk: true, joined });
            joined = true;
        } else if c.is_alphanumeric() {
            let digit = c.is_ascii_digit();
            if !word.is_empty() && digit != word_is_digit {
                flush(&mut word, &mut out, &mut joined);
            }
            word_is_digit = digit;
            word.push(c);
        } else {
            flush(&mut word, &mut out, &mut joined);
            joined = false;
        }
    }
    flush(&mut word, &mut out, &mut joined);
    out
}

/// The key of a unit sequence in the lexicon.
pub(crate) fn key_of(units: &[Unit]) -> String {
    units.iter().map(|u| u.text.as_str()).collect::<Vec<_>>().join(" ")
}

/// What kind of meaning a concept carries; brands and categories are
/// "strong" (a shopper who names one means it), the rest are descriptive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ConceptKind {
    Brand,
    Category,
    Synonym,
}

/// A concept of the lexicon: one brand, one category or one synonym group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Concept {
    pub kind: ConceptKind,
    /// The brand or category id, or the synonym group's first word.
    pub name: String,
}

/// What a lexicon word stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Entry {
    Concept(u32),
    Stop,
}

/// A lexicon match: units `start..end` mean `entry`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Match {
    pub start: usize,
    pub end: usize,
    pub entry: Entry,
}

/// Two different meanings were given for the same word.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the word `{word}` means both {first} and {second}")]
pub(crate) struct LexiconClash {
    pub word: String,
    pub first: String,
    pub second: String,
}

/// The dictionary of multi-unit words: brand names, category words,
/// synonyms and stopwords, in both languages.
#[derive(Debug, Default)]
pub(crate) struct Lexicon {
    concepts: Vec<Concept>,
    by_name: HashMap<(ConceptKind, String), u32>,
    entries: HashMap<String, Entry>,
    prefixes: HashSet<String>,
}

impl Lexicon {
    /// The concept of a kind and name, created on first use.
    pub fn concept(&mut self, kind: ConceptKind, name: &str) -> u32 {
        if let Some(&id) = self.by_name.get(&(kind, name.to_owned())) {
            return id;
        }
        let id = self.concepts.len() as u32;
        self.concepts.push(Concept { kind, name: name.to_owned() });
        self.by_name.insert((kind, name.to_owned()), id);
        id
    }

    /// The concept with this id.
    pub fn get(&self, id: u32) -> &Concept {
        &self.concepts[id as usize]
    }

    /// The concept of a kind and name, if known.
    pub fn find(&self, kind: ConceptKind, name: &str) -> Option<u32> {
        self.by_name.get(&(kind, name.to_owned())).copied()
    }

    /// Adds a word for a concept (or a stopword). A word may not mean two things.
    pub fn add(&mut self, word: &str, entry: Entry) -> Result<(), LexiconClash> {
        let units = units(word);
        if units.is_empty() {
            return Ok(());
        }
        let key = key_of(&units);
        match self.entries.get(&key) {
            Some(existing) if *existing != entry => {
                return Err(LexiconClash {
                    word: word.to_owned(),
                    first: self.describe(*existing),
                    second: self.describe(entry),
                });
            }
            Some(_) => return Ok(()),
            None => {}
        }
        for end in 1..units.len() {
            self.prefixes.insert(key_of(&units[..end]));
        }
        self.entries.insert(key, entry);
        Ok(())
    }

    fn describe(&self, entry: Entry) -> String {
        match entry {
            Entry::Concept(id) => {
                let c = self.get(id);
                format!("{:?} `{}`", c.kind, c.name).to_lowercase()
            }
            Entry::Stop => "a stopword".to_owned(),
        }
    }

    /// Every lexicon word starting at unit `start`, shortest first.
    fn matches_at(&self, units: &[Unit], start: usize, mut each: impl FnMut(usize, Entry)) {
        let mut key = String::new();
        for (end, unit) in units.iter().enumerate().skip(start) {
            if end > start {
                key.push(' ');
            }
            key.push_str(&unit.text);
            if let Some(entry) = self.entries.get(&key) {
                each(end + 1, *entry);
            }
            if !self.prefixes.contains(&key) {
                break;
            }
        }
    }

    /// Every lexicon word anywhere in `units`, overlaps included (for
    /// indexing), except a category inside a longer word of another category
    /// ("电脑" in "平板电脑" is not a laptop).
    pub fn all_matches(&self, units: &[Unit]) -> Vec<Match> {
        let mut all = Vec::new();
        for start in 0..units.len() {
            self.matches_at(units, start, |end, entry| all.push(Match { start, end, entry }));
        }
        let category = |m: &Match| match m.entry {
            Entry::Concept(c) if self.get(c).kind == ConceptKind::Category => Some(c),
            _ => None,
        };
        let nested_in_other_category = |m: &Match| {
            category(m).is_some_and(|c| {
                all.iter().any(|outer| {
                    outer.start <= m.start
                        && m.end <= outer.end
                        && outer.end - outer.start > m.end - m.start
                        && category(outer).is_some_and(|o| o != c)
                })
            })
        };
        all.iter().filter(|m| !nested_in_other_category(m)).copied().collect()
    }

    /// Greedy longest-match segmentation (for queries): the matches in order,
    /// and between them the unmatched units, reported as `None`.
    pub fn segment(&self, units: &[Unit]) -> Vec<(usize, usize, Option<Entry>)> {
        let mut out = Vec::new();
        let mut start = 0;
        while start < units.len() {
            let mut best = None;
            self.matches_at(units, start, |end, entry| best = Some((end, entry)));
            match best {
                Some((end, entry)) => {
                    out.push((start, end, Some(entry)));
                    start = end;
                }
                None => {
                    out.push((start, start + 1, None));
                    start += 1;
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(s: &str) -> Vec<String> {
        units(s).into_iter().map(|u| u.text).collect()
    }

    #[test]
    fn words_are_folded_stemmed_and_split_from_chinese() {
        assert_eq!(texts("Nike跑鞋"), ["nike", "跑", "鞋"]);
        assert_eq!(texts("Running SHOES"), ["running", "shoe"]);
        assert_eq!(texts("iPhone16 Pro"), ["iphone", "16", "pro"]);
        assert_eq!(texts("Levi's 501"), ["levis", "501"]);
        assert_eq!(texts("Ｎｉｋｅ　Lancôme"), ["nike", "lancome"]);
        assert_eq!(texts("H&M dresses, watches"), ["h", "m", "dress", "watch"]);
    }

    #[test]
    fn chinese_units_know_their_neighbours() {
        let u = units("男子 跑鞋");
        let joined: Vec<bool> = u.iter().map(|u| u.joined).collect();
        assert_eq!(joined, [false, true, false, true]);
    }

    #[test]
    fn longest_match_wins_and_leftovers_are_reported() {
        let mut lex = Lexicon::default();
        let shoes = lex.concept(ConceptKind::Category, "running_shoes");
        let nike = lex.concept(ConceptKind::Brand, "nike");
        lex.add("跑鞋", Entry::Concept(shoes)).expect("adds");
        lex.add("跑步鞋", Entry::Concept(shoes)).expect("adds");
        lex.add("running shoes", Entry::Concept(shoes)).expect("adds");
        lex.add("耐克", Entry::Concept(nike)).expect("adds");
        lex.add("帮我", Entry::Stop).expect("adds");
        let u = units("帮我找耐克跑步鞋");
        let segs: Vec<_> =
            lex.segment(&u).into_iter().map(|(s, e, entry)| (key_of(&u[s..e]), entry)).collect();
        assert_eq!(
            segs,
            [
                ("帮 我".to_owned(), Some(Entry::Stop)),
                ("找".to_owned(), None),
                ("耐 克".to_owned(), Some(Entry::Concept(nike))),
                ("跑 步 鞋".to_owned(), Some(Entry::Concept(shoes))),
            ]
        );
        let u = units("nike running shoes");
        assert_eq!(lex.segment(&u).last().map(|s| s.2), Some(Some(Entry::Concept(shoes))));
    }

    #[test]
    fn a_word_cannot_mean_two_things() {
        let mut lex = Lexicon::default();
        let a = lex.concept(ConceptKind::Brand, "apple");
        let b = lex.concept(ConceptKind::Category, "fruit");
        lex.add("苹果", Entry::Concept(a)).expect("adds");
        lex.add("Apple", Entry::Concept(a)).expect("same meaning again is fine");
        let err = lex.add("苹果", Entry::Concept(b)).expect_err("clash");
        assert_eq!(err.word, "苹果");
        assert!(err.to_string().contains("brand `apple`"), "{err}");
    }
}
