//! The inverted index behind product and store search: which documents
//! mention which concept, word or Chinese bigram, in which field; keyword
//! parsing; and filtered, scored evaluation.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use super::text::{ConceptKind, Entry, Lexicon, Unit, units};

/// Bit flags naming where in a document a term was found.
pub(crate) type Fields = u8;

/// An indexed term.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Term {
    Concept(u32),
    Word(Box<str>),
    Bigram(char, char),
}

/// One document containing a term, and the fields it was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Posting {
    doc: u32,
    fields: Fields,
}

/// Documents by term. Documents are numbered from 0 and added in order.
#[derive(Debug, Default)]
pub(crate) struct InvertedIndex {
    vocabulary: HashMap<Term, u32>,
    postings: Vec<Vec<Posting>>,
    docs: u32,
}

/// How strongly a query term constrains the results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Strength {
    /// A brand or a category: never relaxed.
    Strong,
    /// A descriptive word: dropped when nothing matches every word.
    Weak,
}

/// One meaningful part of a query, resolved against the index.
#[derive(Debug, Clone, Copy)]
struct QueryTerm {
    term: u32,
    strength: Strength,
}

/// A parsed keyword.
#[derive(Debug, Clone, Default)]
pub(crate) struct ParsedQuery {
    terms: Vec<QueryTerm>,
    /// True when the keyword had words that match nothing in the index.
    unmatched: bool,
}

impl ParsedQuery {
    /// True when the keyword had content words but none of them is known:
    /// nothing can match.
    pub fn matches_nothing(&self) -> bool {
        self.unmatched && self.terms.is_empty()
    }
}

/// A requirement: documents must have `term` in one of `fields`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Filter {
    /// `None`: a term the index does not know, so nothing matches.
    term: Option<u32>,
    fields: Fields,
    /// True for query terms, whose matches add to the score.
    scores: bool,
}

impl Filter {
    /// A filter no document passes (an unknown brand, say).
    pub fn nothing() -> Self {
        Filter { term: None, fields: 0, scores: false }
    }

    fn query_term(term: u32) -> Self {
        Filter { term: Some(term), fields: Fields::MAX, scores: true }
    }
}

/// A matching document and its relevance score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub doc: u32,
    pub score: u32,
}

impl InvertedIndex {
    /// Number of distinct terms.
    pub fn terms(&self) -> usize {
        self.postings.len()
    }

    fn term_id(&mut self, term: Term) -> usize {
        let next = self.postings.len() as u32;
        let id = *self.vocabulary.entry(term).or_insert(next) as usize;
        if id == self.postings.len() {
            self.postings.push(Vec::new());
        }
        id
    }

    fn add(&mut self, doc: u32, term: Term, field: Fields) {
        self.docs = self.docs.max(doc + 1);
        let id = self.term_id(term);
        let list = &mut self.postings[id];
        match list.last_mut() {
            Some(last) if last.doc == doc => last.fields |= field,
            _ => list.push(Posting { doc, fields: field }),
        }
    }

    /// Indexes `text` of document `doc` in `field`: every lexicon concept
    /// found in it, every word and every pair of adjacent Chinese characters.
    pub fn add_text(&mut self, lexicon: &Lexicon, doc: u32, text: &str, field: Fields) {
        let units = units(text);
        for m in lexicon.all_matches(&units) {
            if let Entry::Concept(c) = m.entry {
                self.add(doc, Term::Concept(c), field);
            }
        }
        for (i, unit) in units.iter().enumerate() {
            if !unit.cjk {
                self.add(doc, Term::Word(unit.text.as_str().into()), field);
            } else if let Some(prev) = i.checked_sub(1).map(|p| &units[p])
                && prev.cjk
                && unit.joined
            {
                self.add(doc, bigram(prev, unit), field);
            }
        }
    }

    /// Indexes a concept of document `doc` directly (a product's brand or category).
    pub fn add_concept(&mut self, doc: u32, concept: u32, field: Fields) {
        self.add(doc, Term::Concept(concept), field);
    }

    /// Makes sure document numbers up to `docs` exist even without terms.
    pub fn reserve_docs(&mut self, docs: u32) {
        self.docs = self.docs.max(docs);
    }

    fn known(&self, term: &Term) -> Option<u32> {
        self.vocabulary.get(term).copied()
    }

    /// Parses a keyword: lexicon words become concepts (brands and categories
    /// strong, synonyms weak), other words and Chinese bigrams weak terms;
    /// stopwords and lone unknown Chinese characters are dropped.
    pub fn parse(&self, lexicon: &Lexicon, keyword: &str) -> ParsedQuery {
        let units = units(keyword);
        let mut query = ParsedQuery::default();
        let push = |query: &mut ParsedQuery, term: Option<u32>, strength| match term {
            Some(term) if !query.terms.iter().any(|t| t.term == term) => {
                query.terms.push(QueryTerm { term, strength })
            }
            Some(_) => {}
            None => query.unmatched = true,
        };
        let mut leftover: Vec<&Unit> = Vec::new();
        for (start, end, entry) in lexicon.segment(&units) {
            match entry {
                Some(entry) => {
                    self.leftover_terms(&mut leftover, &mut |t| push(&mut query, t, Strength::Weak));
                    if let Entry::Concept(c) = entry {
                        let strength = match lexicon.get(c).kind {
                            ConceptKind::Brand | ConceptKind::Category => Strength::Strong,
                            ConceptKind::Synonym => Strength::Weak,
                        };
                        push(&mut query, self.known(&Term::Concept(c)), strength);
                    }
                }
                None => {
                    let unit = &units[start];
                    debug_assert_eq!(end, start + 1);
                    let continues_run = unit.cjk && unit.joined && leftover.last().is_some_and(|u| u.cjk);
                    if !continues_run {
                        self.leftover_terms(&mut leftover, &mut |t| push(&mut query, t, Strength::Weak));
                    }
                    leftover.push(unit);
                }
            }
        }
        self.leftover_terms(&mut leftover, &mut |t| push(&mut query, t, Strength::Weak));
        query
    }

    /// Terms of a run of units no lexicon word covers: a word, or the
    /// bigrams of a Chinese run (a lone Chinese character is dropped).
    fn leftover_terms(&self, run: &mut Vec<&Unit>, each: &mut impl FnMut(Option<u32>)) {
        match run.as_slice() {
            [] => {}
            [single] if !single.cjk => each(self.known(&Term::Word(single.text.as_str().into()))),
            [_] => {}
            chars => {
                for pair in chars.windows(2) {
                    each(self.known(&bigram(pair[0], pair[1])));
                }
            }
        }
        run.clear();
    }

    /// A filter on the concepts of `value` of the given kinds, in `fields`.
    /// Words of `value` that are not such concepts are ignored; a value with
    /// no such concept yields `None`.
    pub fn concept_filters(
        &self,
        lexicon: &Lexicon,
        value: &str,
        kind: ConceptKind,
        fields: Fields,
    ) -> Option<Vec<Filter>> {
        let units = units(value);
        let filters: Vec<Filter> = lexicon
            .segment(&units)
            .into_iter()
            .filter_map(|(_, _, entry)| match entry {
                Some(Entry::Concept(c)) if lexicon.get(c).kind == kind => {
                    Some(Filter { term: self.known(&Term::Concept(c)), fields, scores: false })
                }
                _ => None,
            })
            .collect();
        (!filters.is_empty()).then_some(filters)
    }

    /// Filters requiring every term of a parsed query in `fields`.
    pub fn query_filters(&self, query: &ParsedQuery, fields: Fields) -> Vec<Filter> {
        if query.matches_nothing() {
            return vec![Filter { term: None, fields, scores: false }];
        }
        query.terms.iter().map(|t| Filter { term: Some(t.term), fields, scores: false }).collect()
    }

    /// Reports every document matching the query and filters that `accept`
    /// lets through to `hit`, with its score: the `weights` of the fields
    /// each query term was found in.
    ///
    /// All terms must match. When that leaves nothing but the query has both
    /// strong and weak terms, the weak ones become optional (they still score).
    pub fn evaluate(
        &self,
        query: &ParsedQuery,
        filters: &[Filter],
        accept: impl Fn(u32) -> bool,
        weights: &Weights,
        mut hit: impl FnMut(u32, u32),
    ) {
        if query.matches_nothing() || filters.iter().any(|f| f.term.is_none()) {
            return;
        }
        let mut required = filters.to_vec();
        required.extend(query.terms.iter().map(|t| Filter::query_term(t.term)));
        let found = self.scan(&required, &[], &accept, weights, &mut hit);
        let of = |strength| {
            query.terms.iter().filter(move |t| t.strength == strength).map(|t| Filter::query_term(t.term))
        };
        let weak: Vec<Filter> = of(Strength::Weak).collect();
        if found > 0 || weak.is_empty() || of(Strength::Strong).next().is_none() {
            return;
        }
        let mut required = filters.to_vec();
        required.extend(of(Strength::Strong));
        self.scan(&required, &weak, &accept, weights, &mut hit);
    }

    fn list(&self, filter: &Filter) -> &[Posting] {
        filter.term.map(|t| self.postings[t as usize].as_slice()).unwrap_or(&[])
    }

    /// Documents in every `required` list (in the right fields), scored by the
    /// query terms among `required` and by `optional`; returns how many.
    fn scan(
        &self,
        required: &[Filter],
        optional: &[Filter],
        accept: &impl Fn(u32) -> bool,
        weights: &Weights,
        hit: &mut impl FnMut(u32, u32),
    ) -> u64 {
        let required: Vec<(&[Posting], Fields, bool)> =
            required.iter().map(|f| (self.list(f), f.fields, f.scores)).collect();
        let optional: Vec<&[Posting]> = optional.iter().map(|f| self.list(f)).collect();
        let mut cursors = vec![0usize; required.len() + optional.len()];
        let (req_cursors, opt_cursors) = cursors.split_at_mut(required.len());
        let mut found = 0;
        let mut visit = |doc: u32| {
            let mut score = 0;
            for ((list, fields, scores), pos) in required.iter().zip(req_cursors.iter_mut()) {
                match seek(list, pos, doc) {
                    Some(f) if f & fields != 0 => score += if *scores { weights.of(f) } else { 0 },
                    _ => return,
                }
            }
            if !accept(doc) {
                return;
            }
            for (list, pos) in optional.iter().zip(opt_cursors.iter_mut()) {
                if let Some(f) = seek(list, pos, doc) {
                    score += weights.of(f);
                }
            }
            found += 1;
            hit(doc, score);
        };
        match required.iter().min_by_key(|(list, _, _)| list.len()) {
            Some((driver, _, _)) => driver.iter().for_each(|p| visit(p.doc)),
            None => (0..self.docs).for_each(&mut visit),
        }
        found
    }
}

/// Score of a term by the fields it was found in, for every combination of fields.
#[derive(Debug, Clone)]
pub(crate) struct Weights([u32; 64]);

impl Weights {
    /// The score of a term found in some fields: the sum of those fields' weights.
    pub const fn new(fields: &[(Fields, u32)]) -> Self {
        let mut table = [0; 64];
        let mut mask = 0;
        while mask < 64 {
            let mut i = 0;
            while i < fields.len() {
                if mask & fields[i].0 as usize != 0 {
                    table[mask] += fields[i].1;
                }
                i += 1;
            }
            mask += 1;
        }
        Weights(table)
    }

    fn of(&self, found: Fields) -> u32 {
        self.0[(found & 63) as usize]
    }
}

fn bigram(a: &Unit, b: &Unit) -> Term {
    let first = a.text.chars().next().unwrap_or(' ');
    let second = b.text.chars().next().unwrap_or(' ');
    Term::Bigram(first, second)
}

/// The fields of `doc` in `list`, moving `pos` forward (documents are visited in order).
fn seek(list: &[Posting], pos: &mut usize, doc: u32) -> Option<Fields> {
    let rest = &list[(*pos).min(list.len())..];
    let mut bound = 1;
    while bound < rest.len() && rest[bound].doc < doc {
        bound *= 2;
    }
    let lo = bound / 2;
    let hi = (bound + 1).min(rest.len());
    let idx = lo.min(hi) + rest[lo.min(hi)..hi].partition_point(|p| p.doc < doc);
    *pos += idx;
    list.get(*pos).filter(|p| p.doc == doc).map(|p| p.fields)
}

/// Orders hits: a higher score first, then a higher tie-break, then a lower document number.
pub(crate) fn rank_key(score: u32, tiebreak: u16, doc: u32) -> u64 {
    (u64::from(score.min(0xFFFF)) << 48) | (u64::from(tiebreak) << 32) | u64::from(u32::MAX - doc)
}

/// The best `k` of many ranked hits (by [`rank_key`]), and how many there were.
#[derive(Debug)]
pub(crate) struct TopK {
    k: usize,
    heap: BinaryHeap<Reverse<u64>>,
    total: u64,
}

impl TopK {
    /// Keeps the best `k`.
    pub fn new(k: usize) -> Self {
        TopK { k, heap: BinaryHeap::with_capacity(k.min(1024) + 1), total: 0 }
    }

    /// Counts a hit and keeps it when it is among the best so far.
    pub fn offer(&mut self, key: u64) {
        self.total += 1;
        if self.heap.len() < self.k {
            self.heap.push(Reverse(key));
        } else if let Some(mut least) = self.heap.peek_mut()
            && key > least.0
        {
            *least = Reverse(key);
        }
    }

    /// How many hits were offered.
    pub fn total(&self) -> u64 {
        self.total
    }

    /// The kept hits best first, without the first `offset`.
    pub fn page(self, offset: usize) -> Vec<Hit> {
        let mut keys: Vec<u64> = self.heap.into_iter().map(|Reverse(k)| k).collect();
        keys.sort_unstable_by(|a, b| b.cmp(a));
        keys.into_iter()
            .skip(offset)
            .map(|key| Hit { doc: u32::MAX - key as u32, score: (key >> 48) as u32 })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: Fields = 1;
    const BRAND: Fields = 2;

    fn lexicon() -> (Lexicon, u32, u32) {
        let mut lex = Lexicon::default();
        let nike = lex.concept(ConceptKind::Brand, "nike");
        let shoes = lex.concept(ConceptKind::Category, "running_shoes");
        lex.add("nike", Entry::Concept(nike)).expect("adds");
        lex.add("耐克", Entry::Concept(nike)).expect("adds");
        lex.add("跑鞋", Entry::Concept(shoes)).expect("adds");
        lex.add("running shoes", Entry::Concept(shoes)).expect("adds");
        lex.add("的", Entry::Stop).expect("adds");
        (lex, nike, shoes)
    }

    fn index(lex: &Lexicon, docs: &[(&str, &str)]) -> InvertedIndex {
        let mut idx = InvertedIndex::default();
        for (doc, (name, brand)) in docs.iter().enumerate() {
            idx.add_text(lex, doc as u32, name, NAME);
            idx.add_text(lex, doc as u32, brand, BRAND);
        }
        idx
    }

    const WEIGHTS: Weights = Weights::new(&[(BRAND, 30), (NAME, 10)]);

    fn search(idx: &InvertedIndex, lex: &Lexicon, q: &str) -> Vec<u32> {
        let parsed = idx.parse(lex, q);
        let mut top = TopK::new(10);
        idx.evaluate(&parsed, &[], |_| true, &WEIGHTS, |doc, score| top.offer(rank_key(score, 0, doc)));
        top.page(0).into_iter().map(|h| h.doc).collect()
    }

    #[test]
    fn concepts_words_and_bigrams_all_find_documents() {
        let (lex, _, _) = lexicon();
        let idx = index(
            &lex,
            &[
                ("Pegasus 41 男子公路跑鞋", "Nike"),
                ("Ultraboost 5 Running Shoes", "Adidas"),
                ("Club Fleece 连帽卫衣", "Nike"),
            ],
        );
        assert_eq!(search(&idx, &lex, "耐克跑鞋"), [0]);
        assert_eq!(search(&idx, &lex, "running shoes"), [0, 1]);
        assert_eq!(search(&idx, &lex, "公路"), [0]);
        assert_eq!(search(&idx, &lex, "nike"), [0, 2]);
        assert_eq!(search(&idx, &lex, "卫衣 的"), [2]);
        assert!(search(&idx, &lex, "xyzzy").is_empty());
        assert!(idx.parse(&lex, "xyzzy").matches_nothing());
        assert_eq!(search(&idx, &lex, "的").len(), 3, "a keyword of stopwords only filters nothing");
    }

    #[test]
    fn unknown_descriptive_words_do_not_hide_brand_matches() {
        let (lex, _, _) = lexicon();
        let idx = index(&lex, &[("Pegasus 41 跑鞋 黑白", "Nike"), ("Fleece 卫衣 灰色", "Nike")]);
        // "fleece" and "跑鞋" never meet in one document: the weak word is relaxed.
        assert_eq!(search(&idx, &lex, "Nike fleece"), [1]);
        assert_eq!(search(&idx, &lex, "nike 跑鞋 fleece"), [0]);
    }

    #[test]
    fn pages_are_ordered_by_score_then_tiebreak_then_doc() {
        let hits = [(0, 10, 1), (1, 30, 1), (2, 10, 1), (3, 10, 5)];
        let page = |k: usize, offset| {
            let mut top = TopK::new(k);
            for (doc, score, tiebreak) in hits {
                top.offer(rank_key(score, tiebreak, doc));
            }
            assert_eq!(top.total(), 4);
            top.page(offset).into_iter().map(|h| (h.doc, h.score)).collect::<Vec<_>>()
        };
        assert_eq!(page(10, 0), [(1, 30), (3, 10), (0, 10), (2, 10)]);
        assert_eq!(page(3, 1), [(3, 10), (0, 10)]);
        assert!(page(2, 4).is_empty());
        assert_eq!(Weights::new(&[(BRAND, 30), (NAME, 10)]).of(BRAND | NAME), 40);
    }

    #[test]
    fn seek_finds_documents_in_order() {
        let list: Vec<Posting> =
            [1, 4, 9, 16, 25, 36].iter().map(|&doc| Posting { doc, fields: 1 }).collect();
        let mut pos = 0;
        assert_eq!(seek(&list, &mut pos, 4), Some(1));
        assert_eq!(seek(&list, &mut pos, 5), None);
        assert_eq!(seek(&list, &mut pos, 25), Some(1));
        assert_eq!(seek(&list, &mut pos, 40), None);
    }
}
