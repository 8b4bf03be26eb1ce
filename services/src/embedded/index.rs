//! The inverted index behind product and store search: which documents
//! mention which concept, word or Chinese bigram, in which field; keyword
//! parsing; and filtered, scored evaluation.

use std::collections::HashMap;

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

    /// Every document matching the query and filters that `accept` lets
    /// through, scored with `weight` of the fields each query term was found in.
    ///
    /// All terms must match. When that leaves nothing but the query has both
    /// strong and weak terms, the weak ones become optional (they still score).
    pub fn evaluate(
        &self,
        query: &ParsedQuery,
        filters: &[Filter],
        accept: impl Fn(u32) -> bool,
        weight: impl Fn(Fields) -> u32,
    ) -> Vec<Hit> {
        if query.matches_nothing() || filters.iter().any(|f| f.term.is_none()) {
            return Vec::new();
        }
        let mut required = filters.to_vec();
        required.extend(query.terms.iter().map(|t| Filter::query_term(t.term)));
        let hits = self.scan(&required, &[], &accept, &weight);
        let of = |strength| {
            query.terms.iter().filter(move |t| t.strength == strength).map(|t| Filter::query_term(t.term))
        };
        let weak: Vec<Filter> = of(Strength::Weak).collect();
        if !hits.is_empty() || weak.is_empty() || of(Strength::Strong).next().is_none() {
            return hits;
        }
        let mut required = filters.to_vec();
        required.extend(of(Strength::Strong));
        self.scan(&required, &weak, &accept, &weight)
    }

    fn list(&self, filter: &Filter) -> &[Posting] {
        filter.term.map(|t| self.postings[t as usize].as_slice()).unwrap_or(&[])
    }

    /// Documents in every `required` list (in the right fields), scored by
    /// the query-term lists among `required` (those with all fields) and `optional`.
    fn scan(
        &self,
        required: &[Filter],
        optional: &[Filter],
        accept: &impl Fn(u32) -> bool,
        weight: &impl Fn(Fields) -> u32,
    ) -> Vec<Hit> {
        let mut hits = Vec::new();
        let mut cursors = vec![0usize; required.len() + optional.len()];
        let mut visit = |doc: u32, cursors: &mut [usize]| {
            let mut score = 0;
            for (i, filter) in required.iter().enumerate() {
                match seek(self.list(filter), &mut cursors[i], doc) {
                    Some(found) if found & filter.fields != 0 => {
                        if filter.scores {
                            score += weight(found);
                        }
                    }
                    _ => return,
                }
            }
            for (i, filter) in optional.iter().enumerate() {
                if let Some(found) = seek(self.list(filter), &mut cursors[required.len() + i], doc) {
                    score += weight(found);
                }
            }
            if accept(doc) {
                hits.push(Hit { doc, score });
            }
        };
        match required.iter().min_by_key(|f| self.list(f).len()) {
            Some(driver) => {
                for posting in self.list(driver) {
                    visit(posting.doc, &mut cursors);
                }
            }
            None => {
                for doc in 0..self.docs {
                    visit(doc, &mut cursors);
                }
            }
        }
        hits
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

/// Orders hits best first by `(score, key)` (higher key first, then lower doc)
/// and returns the page `offset..offset + limit`.
pub(crate) fn top_page(
    mut hits: Vec<Hit>,
    offset: usize,
    limit: usize,
    key: impl Fn(u32) -> u64,
) -> Vec<Hit> {
    let end = offset.saturating_add(limit).min(hits.len());
    if offset >= end {
        return Vec::new();
    }
    let mut ranked: Vec<(u32, u64, u32)> = hits.drain(..).map(|h| (h.score, key(h.doc), h.doc)).collect();
    let order =
        |a: &(u32, u64, u32), b: &(u32, u64, u32)| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2));
    if end < ranked.len() {
        ranked.select_nth_unstable_by(end - 1, order);
        ranked.truncate(end);
    }
    ranked.sort_unstable_by(order);
    ranked.into_iter().skip(offset).map(|(score, _, doc)| Hit { doc, score }).collect()
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

    fn weight(f: Fields) -> u32 {
        (if f & BRAND != 0 { 30 } else { 0 }) + (if f & NAME != 0 { 10 } else { 0 })
    }

    fn search(idx: &InvertedIndex, lex: &Lexicon, q: &str) -> Vec<u32> {
        let parsed = idx.parse(lex, q);
        let hits = idx.evaluate(&parsed, &[], |_| true, weight);
        top_page(hits, 0, 10, |_| 0).into_iter().map(|h| h.doc).collect()
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
    fn page_is_ordered_by_score_then_key_then_doc() {
        let hits = vec![
            Hit { doc: 0, score: 10 },
            Hit { doc: 1, score: 30 },
            Hit { doc: 2, score: 10 },
            Hit { doc: 3, score: 10 },
        ];
        let key = |doc: u32| if doc == 3 { 5 } else { 1 };
        let order: Vec<u32> = top_page(hits.clone(), 0, 10, key).into_iter().map(|h| h.doc).collect();
        assert_eq!(order, [1, 3, 0, 2]);
        let page: Vec<u32> = top_page(hits.clone(), 1, 2, key).into_iter().map(|h| h.doc).collect();
        assert_eq!(page, [3, 0]);
        assert!(top_page(hits, 4, 2, key).is_empty());
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
