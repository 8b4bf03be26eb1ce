//! [`InfoIndex`]: which of the mall's information sections answer a
//! shopper's question, with the stores' text normalisation (words folded and
//! stemmed, Chinese as character pairs, a lexicon of multi-word terms) and a
//! built-in lexicon of what shoppers ask a service desk, in Chinese and
//! English ("停车" and "parking" are one term, "怎么" and "the" none).
//!
//! Unlike product search, a question's terms are not all required: a section
//! is scored by the terms it has (rarer terms and terms in its title count
//! more), and it answers only when it covers at least half of what the
//! question asks (weighted by rarity; a word no section has weighs half the
//! rarest); a question whose content words no section has answers nothing
//! rather than something near.

use std::collections::HashMap;

use crate::embedded::text::{ConceptKind, Entry, Lexicon, Unit, units};

/// Words of one meaning: the first names the term.
#[rustfmt::skip]
const TOPICS: &[&[&str]] = &[
    &["parking", "park", "停车", "泊车", "车位", "停车场", "停车位", "car park", "carpark", "泊車"],
    &["fee", "收费", "费用", "停车费", "多少钱", "价格", "价钱", "怎么算", "计费", "fees", "cost", "price",
      "charge", "charges", "how much", "rate", "rates"],
    &["free", "免费", "free of charge", "complimentary"],
    &["hours", "营业时间", "几点", "开门", "关门", "营业", "开放时间", "打烊", "几点开", "几点关", "opening hours",
      "open", "opens", "opening", "close", "closes", "closing", "what time", "hour"],
    &["holiday", "节假日", "假日", "假期", "春节", "过年", "国庆", "除夕", "holidays", "public holiday",
      "new year", "christmas"],
    &["wifi", "wi fi", "无线", "无线网", "上网", "网络", "internet", "wireless"],
    &["password", "密码", "pass", "passcode"],
    &["return", "退货", "退换", "换货", "退换货", "退款", "能退", "可以退", "退吗", "退掉", "想退", "要退", "不合适",
      "不合身", "returns", "refund", "exchange", "give back", "doesn't fit", "didn't fit", "does not fit"],
    // Longer than "可以退" and "能退" of a return, read first.
    &["tax refund", "退税", "离境退税", "可以退税", "能退税", "能不能退税", "退税吗", "要退税", "想退税", "tax free",
      "tax-free", "vat"],
    &["lost", "失物", "丢失", "丢了", "遗失", "掉了", "不见了", "捡到", "失物招领", "lost and found", "lost property",
      "found", "left behind", "missing"],
    &["stroller", "婴儿车", "推车", "童车", "宝宝车", "pram", "pushchair", "buggy", "strollers"],
    &["wheelchair", "轮椅", "wheelchairs", "accessible", "无障碍"],
    &["gift wrapping", "礼品包装", "包装", "包礼物", "gift wrap", "wrap", "wrapping"],
    &["pet", "宠物", "狗", "猫", "狗狗", "带狗", "pets", "dog", "dogs", "cat", "cats"],
    &["smoking", "吸烟", "抽烟", "烟", "电子烟", "smoke", "cigarette", "cigarettes", "vape"],
    &["ev charging", "充电桩", "新能源", "电动车", "电车", "充电", "ev", "electric car", "electric vehicle",
      "charger", "charging", "charge point"],
    &["power bank", "充电宝", "移动电源", "powerbank"],
    &["pay", "支付", "付款", "缴费", "交费", "付费", "微信", "支付宝", "payment", "paying", "alipay", "wechat"],
    &["contact", "电话", "联系", "客服", "热线", "投诉", "phone", "call", "hotline", "contact", "complaint",
      "email"],
    &["service desk", "服务台", "咨询台", "问讯处", "服务中心", "information desk", "info desk",
      "customer service", "concierge"],
    &["member", "会员", "积分", "membership", "points", "loyalty"],
];

/// Words that ask but say nothing of what: question words, the mall itself.
#[rustfmt::skip]
const QUESTION_WORDS: &[&str] = &[
    "怎么", "怎样", "如何", "什么", "多少", "哪里", "在哪", "哪儿", "是不是", "有没有", "能不能", "可不可以",
    "可以", "能", "吗", "呢", "吧", "啊", "请问", "一下", "是", "的", "了", "有", "我", "我们", "你们", "要",
    "商场", "这里", "这边", "你们商场", "商城", "购物中心", "知道", "东西", "买的", "买了", "买", "想", "需要",
    "how", "what", "where", "when", "which", "who", "is", "are", "was", "do", "does", "did", "can", "could",
    "may", "i", "we", "you", "my", "your", "the", "a", "an", "to", "of", "for", "in", "at", "on", "it",
    "there", "here", "this", "that", "mall", "please", "tell", "me", "about", "any", "have", "has", "get",
    "and", "or", "with", "be", "s", "much", "something", "anything", "thing", "things", "stuff", "item",
    "items", "buy", "bought", "purchase", "purchased", "want", "need", "would", "like", "if", "ive", "im",
    "id", "should", "will", "昨天", "今天", "前天", "刚才", "上周", "yesterday", "today", "earlier", "ago",
    "last", "week",
];

/// Field of a term: where it was found in a section.
const TITLE: u8 = 1;
const BODY: u8 = 2;

/// A section's terms and the fields each was found in.
#[derive(Debug, Default)]
struct Doc {
    terms: HashMap<String, u8>,
}

/// The sections' terms, searched by question.
#[derive(Debug)]
pub struct InfoIndex {
    lexicon: Lexicon,
    docs: Vec<Doc>,
    /// In how many sections each term is.
    frequency: HashMap<String, u32>,
}

/// A section that answers, and how well.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InfoHit {
    /// The section's position in the list indexed.
    pub section: usize,
    pub score: f32,
}

fn question_lexicon() -> Lexicon {
    let mut lexicon = Lexicon::default();
    for words in TOPICS {
        let concept = lexicon.concept(ConceptKind::Synonym, words[0]);
        for word in *words {
            // A word listed twice keeps its first meaning.
            let _ = lexicon.add(word, Entry::Concept(concept));
        }
    }
    for word in QUESTION_WORDS {
        let _ = lexicon.add(word, Entry::Stop);
    }
    lexicon
}

impl InfoIndex {
    /// Indexes sections given as (title, body), each in whatever languages it has.
    pub fn new<'a>(sections: impl IntoIterator<Item = (&'a str, &'a str)>) -> InfoIndex {
        let lexicon = question_lexicon();
        let mut docs = Vec::new();
        let mut frequency: HashMap<String, u32> = HashMap::new();
        for (title, body) in sections {
            let mut doc = Doc::default();
            for (text, field) in [(title, TITLE), (body, BODY)] {
                let units = units(text);
                let matches = lexicon.all_matches(&units);
                // A term inside a longer one is not there ("refund" in "tax refund").
                let inside = |m: &crate::embedded::text::Match| {
                    matches
                        .iter()
                        .any(|o| o.start <= m.start && m.end <= o.end && o.end - o.start > m.end - m.start)
                };
                for m in matches.iter().filter(|m| !inside(m)) {
                    if let Entry::Concept(c) = m.entry {
                        *doc.terms.entry(concept_key(&lexicon, c)).or_default() |= field;
                    }
                }
                for term in plain_terms(&units) {
                    *doc.terms.entry(term).or_default() |= field;
                }
            }
            for term in doc.terms.keys() {
                *frequency.entry(term.clone()).or_default() += 1;
            }
            docs.push(doc);
        }
        InfoIndex { lexicon, docs, frequency }
    }

    /// The terms of a question: lexicon terms, and words and character
    /// pairs of what no lexicon word covers; question words and digits dropped.
    fn question_terms(&self, question: &str) -> Vec<String> {
        let units = units(question);
        let mut terms: Vec<String> = Vec::new();
        let mut run: Vec<Unit> = Vec::new();
        let flush = |run: &mut Vec<Unit>, terms: &mut Vec<String>| {
            terms.extend(plain_terms(run));
            run.clear();
        };
        for (start, end, entry) in self.lexicon.segment(&units) {
            match entry {
                Some(Entry::Concept(c)) => {
                    flush(&mut run, &mut terms);
                    terms.push(concept_key(&self.lexicon, c));
                }
                Some(Entry::Stop) => flush(&mut run, &mut terms),
                None => {
                    let unit = &units[start];
                    debug_assert_eq!(end, start + 1);
                    if !(unit.cjk && unit.joined && run.last().is_some_and(|u| u.cjk)) {
                        flush(&mut run, &mut terms);
                    }
                    run.push(unit.clone());
                }
            }
        }
        flush(&mut run, &mut terms);
        terms.retain(|t| !t.bytes().all(|b| b.is_ascii_digit()));
        let mut seen = std::collections::HashSet::new();
        terms.retain(|t| seen.insert(t.clone()));
        terms
    }

    /// The sections that answer `question`, best first, at most `k`: each
    /// covers at least half of the question's weight, has a term of it in
    /// its title (or three quarters of a question of several terms in its
    /// text), and scores at least half of the best.
    pub fn search(&self, question: &str, k: usize) -> Vec<InfoHit> {
        let terms = self.question_terms(question);
        let n = self.docs.len() as f32;
        // A word no section has weighs half the rarest: it may be the whole question
        // ("ice rink") or a detail of it ("return a jacket").
        let weight = |term: &str| match self.frequency.get(term) {
            Some(&df) => (1.0 + n / df as f32).ln(),
            None => (1.0 + n).ln() / 2.0,
        };
        let asked: f32 = terms.iter().map(|t| weight(t)).sum();
        if asked <= 0.0 {
            return Vec::new();
        }
        // The words some section has: a section whose title names them answers a question
        // told at length ("I lost my scarf somewhere in the mall", "外国人可以退税吗").
        let known: f32 =
            terms.iter().filter(|t| self.frequency.contains_key(t.as_str())).map(|t| weight(t)).sum();
        let mut hits: Vec<InfoHit> = self
            .docs
            .iter()
            .enumerate()
            .filter_map(|(section, doc)| {
                let (mut covered, mut score, mut matched, mut in_title) = (0.0, 0.0, 0, false);
                for term in &terms {
                    if let Some(fields) = doc.terms.get(term) {
                        let w = weight(term);
                        covered += w;
                        matched += 1;
                        in_title |= fields & TITLE != 0;
                        score += w * if fields & TITLE != 0 { 3.0 } else { 1.0 };
                    }
                }
                // Its title names what is asked, or its text has most of a question of
                // several words: "return it the same day" does not answer "can I return it".
                let about = in_title || (matched >= 2 && covered * 4.0 >= asked * 3.0);
                let enough = covered * 2.0 >= asked || (in_title && covered * 2.0 >= known);
                (about && enough).then_some(InfoHit { section, score })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.section.cmp(&b.section)));
        let best = hits.first().map_or(0.0, |h| h.score);
        hits.retain(|h| h.score * 2.0 >= best);
        hits.truncate(k);
        hits
    }
}

fn concept_key(lexicon: &Lexicon, concept: u32) -> String {
    format!("#{}", lexicon.get(concept).name)
}

/// Words, and pairs of adjacent Chinese characters.
fn plain_terms(units: &[Unit]) -> Vec<String> {
    let mut terms = Vec::new();
    for (i, unit) in units.iter().enumerate() {
        if !unit.cjk {
            terms.push(unit.text.clone());
        } else if i > 0 && units[i - 1].cjk && unit.joined {
            terms.push(format!("{}{}", units[i - 1].text, unit.text));
        }
    }
    terms
}

#[cfg(test)]
mod tests {
    use super::*;

    const SECTIONS: &[(&str, &str)] = &[
        ("营业时间 Opening hours", "周一至周四 10:00–22:00。Open Monday to Thursday 10:00–22:00."),
        ("婴儿车 Strollers", "服务台免费借用，当日归还。Free at the desk; return it the same day."),
        ("停车收费 Parking fees", "首小时 10 元，之后每小时 5 元。10 yuan for the first hour."),
        ("免费 Wi-Fi Free Wi-Fi", "网络名 GalaxyPlaza-Free，无需密码。No password."),
        ("退换货 Returns and exchanges", "凭小票 7 天内可退换。Within 7 days with the receipt."),
        ("离境退税 Tax refund", "满 500 元可退税。Ask for a refund form."),
        ("新能源汽车充电 EV charging", "B2 东区 40 个快充桩。40 fast chargers on B2."),
    ];

    fn best(index: &InfoIndex, question: &str) -> Option<usize> {
        index.search(question, 3).first().map(|h| h.section)
    }

    #[test]
    fn questions_in_either_language_find_their_section() {
        let index = InfoIndex::new(SECTIONS.iter().copied());
        for (question, section) in [
            ("停车怎么收费", 2),
            ("how much is parking", 2),
            ("商场几点关门", 0),
            ("what time does the mall close", 0),
            ("wifi密码是多少", 3),
            ("what's the wifi password", 3),
            ("可以退货吗", 4),
            ("can I return a jacket", 4),
            ("can I return something I bought?", 4),
            ("有充电桩吗", 6),
            ("how do I get a tax refund", 5),
            ("外国人可以退税吗", 5),
            ("my little one is tired, could we borrow a stroller somewhere", 1),
        ] {
            assert_eq!(best(&index, question), Some(section), "{question}");
        }
    }

    #[test]
    fn a_question_no_section_covers_finds_nothing() {
        let index = InfoIndex::new(SECTIONS.iter().copied());
        for question in ["有溜冰场吗", "is there an ice rink", "哪里可以借充电宝", "商场", "?"]
        {
            assert!(index.search(question, 3).is_empty(), "{question}: {:?}", index.search(question, 3));
        }
    }
}
