//! The eval corpus: conversations, one JSON object a line (JSONL), with what
//! must hold after each (docs/eval.md describes every field).
//!
//! A corpus is a `.jsonl` file or a folder of them (read in name order);
//! blank lines and lines starting with `#` or `//` are skipped. A mistake is
//! reported with its file and line, and every mistake is reported at once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// A conversation's language, which is also the script its answers must be in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize)]
pub(crate) enum CaseLang {
    /// Simplified Chinese.
    #[serde(rename = "zh")]
    Zh,
    /// Traditional Chinese.
    #[serde(rename = "zh-hant")]
    ZhHant,
    /// English.
    #[serde(rename = "en")]
    En,
}

impl CaseLang {
    /// The code written in the corpus (`zh`, `zh-hant`, `en`).
    pub(crate) fn code(self) -> &'static str {
        match self {
            CaseLang::Zh => "zh",
            CaseLang::ZhHant => "zh-hant",
            CaseLang::En => "en",
        }
    }

    /// The bot's language of the same name.
    pub(crate) fn lang(self) -> handlers::Lang {
        match self {
            CaseLang::Zh => handlers::Lang::Zh,
            CaseLang::ZhHant => handlers::Lang::ZhHant,
            CaseLang::En => handlers::Lang::En,
        }
    }

    /// The script answers in this language are written in.
    pub(crate) fn script(self) -> Script {
        match self {
            CaseLang::Zh => Script::Simplified,
            CaseLang::ZhHant => Script::Traditional,
            CaseLang::En => Script::English,
        }
    }
}

/// The script an answer must be written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub(crate) enum Script {
    /// Chinese in Simplified characters.
    #[serde(rename = "zh")]
    Simplified,
    /// Chinese in Traditional characters.
    #[serde(rename = "zh-hant")]
    Traditional,
    /// English: no Chinese characters or punctuation.
    #[serde(rename = "en")]
    English,
    /// Any: the script is not checked.
    #[serde(rename = "any")]
    Any,
}

impl Script {}

/// One fact: a string, or alternatives of which one is enough.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum Fact {
    One(String),
    AnyOf(Vec<String>),
}

impl Fact {
    /// The alternatives (one for a plain string).
    pub(crate) fn alternatives(&self) -> Vec<&str> {
        match self {
            Fact::One(s) => vec![s.as_str()],
            Fact::AnyOf(v) => v.iter().map(String::as_str).collect(),
        }
    }

    /// How the fact is shown in a failure (`"a" | "b"`).
    pub(crate) fn shown(&self) -> String {
        self.alternatives().iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join(" | ")
    }
}

/// What an answer must (not) say.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AnswerFacts {
    /// Every one of these must be named (an inner list: one of its strings is enough).
    #[serde(default)]
    pub(crate) all: Vec<Fact>,
    /// At least one of these must be named.
    #[serde(default)]
    pub(crate) any: Vec<String>,
    /// None of these may appear.
    #[serde(default)]
    pub(crate) none: Vec<String>,
}

impl AnswerFacts {
    fn is_empty(&self) -> bool {
        self.all.is_empty() && self.any.is_empty() && self.none.is_empty()
    }
}

/// One line the shopper types, with what the answer to it must say.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Turn {
    /// What is typed: a message, a command, or the answer to a yes/no question ("y", "n").
    pub(crate) say: String,
    /// What the answer to this line must say (nothing: not checked).
    pub(crate) facts: AnswerFacts,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum RawTurn {
    Text(String),
    Checked(CheckedTurn),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckedTurn {
    say: String,
    #[serde(default)]
    all: Vec<Fact>,
    #[serde(default)]
    any: Vec<String>,
    #[serde(default)]
    none: Vec<String>,
}

/// A tool that must have been called; `args` must be contained in the call's arguments.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub(crate) enum ToolExpect {
    Name(String),
    WithArgs { name: String, args: Value },
}

impl ToolExpect {
    pub(crate) fn name(&self) -> &str {
        match self {
            ToolExpect::Name(name) | ToolExpect::WithArgs { name, .. } => name,
        }
    }
}

/// An item of a cart, an order or an alert: a product by id or by a part of its name,
/// a size by SKU id or label.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ItemExpect {
    /// The product id (`p-0291`), or a list of ids of which one will do.
    #[serde(default)]
    pub(crate) product: Option<Fact>,
    /// A part of the product's name, Chinese or English (`Downshifter`), or a list of them.
    #[serde(default)]
    pub(crate) name: Option<Fact>,
    /// The SKU id (`p-0291-42`).
    #[serde(default)]
    pub(crate) sku: Option<String>,
    /// The size or variant label, whole (`42`, `M`).
    #[serde(default)]
    pub(crate) size: Option<String>,
    /// How many.
    #[serde(default)]
    pub(crate) quantity: Option<u32>,
    /// The unit price at most, in yuan (carts and orders).
    #[serde(default)]
    pub(crate) max_price: Option<f64>,
}

/// The cart at the end.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct CartExpect {
    /// How many lines it holds.
    #[serde(default)]
    pub(crate) lines: Option<usize>,
    /// Items it must hold.
    #[serde(default)]
    pub(crate) has: Vec<ItemExpect>,
}

/// The shopper's orders at the end.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct OrdersExpect {
    /// How many orders.
    #[serde(default)]
    pub(crate) count: Option<usize>,
    /// The status every order has (`PENDING_PAYMENT`, `CANCELLED`…).
    #[serde(default)]
    pub(crate) status: Option<String>,
    /// Items some order holds.
    #[serde(default)]
    pub(crate) has: Vec<ItemExpect>,
}

/// The shopper's alerts at the end.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AlertsExpect {
    /// How many alerts.
    #[serde(default)]
    pub(crate) count: Option<usize>,
    /// Alerts that must be set: the product (and size for a restock alert).
    #[serde(default)]
    pub(crate) has: Vec<ItemExpect>,
    /// `restock` or `price`: the kind every listed alert has.
    #[serde(default)]
    pub(crate) kind: Option<String>,
}

/// One conversation and what must hold.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Case {
    pub(crate) id: String,
    pub(crate) lang: CaseLang,
    pub(crate) class: String,
    pub(crate) turns: Vec<Turn>,
    /// What the answer to the last line must say.
    pub(crate) answer: AnswerFacts,
    /// Never in any answer of the conversation.
    pub(crate) never: Vec<String>,
    /// The script every answer must be in (default: the case's language).
    pub(crate) script: Script,
    /// Strings allowed in another script (names), taken out before the script is checked.
    pub(crate) allow: Vec<String>,
    pub(crate) tools: Vec<ToolExpect>,
    pub(crate) tools_none: Vec<String>,
    pub(crate) cart: Option<CartExpect>,
    pub(crate) orders: Option<OrdersExpect>,
    pub(crate) alerts: Option<AlertsExpect>,
    /// The language of the shopper's app, as Telegram tells the bot
    /// (`language_code`): what a message that says no language of its own
    /// ("屈臣氏在哪", written the same in both scripts; "42") is answered in.
    /// The case's language unless it says (`"app": "en"`, or `"default"`
    /// for the configured `bot.language`).
    pub(crate) app: Option<CaseLang>,
    /// Where it was read (`file:line`).
    pub(crate) origin: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCase {
    id: String,
    lang: CaseLang,
    class: String,
    turns: Vec<RawTurn>,
    #[serde(default)]
    all: Vec<Fact>,
    #[serde(default)]
    any: Vec<String>,
    #[serde(default)]
    none: Vec<String>,
    #[serde(default)]
    never: Vec<String>,
    #[serde(default)]
    script: Option<Script>,
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    tools: Vec<ToolExpect>,
    #[serde(default)]
    tools_none: Vec<String>,
    #[serde(default)]
    cart: Option<CartExpect>,
    #[serde(default)]
    orders: Option<OrdersExpect>,
    #[serde(default)]
    alerts: Option<AlertsExpect>,
    #[serde(default)]
    app: Option<String>,
    /// Free text for whoever reads the corpus.
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

/// The `.jsonl` files of `path`: itself, or those in it (not in subfolders), by name.
pub(crate) fn files(path: &Path) -> Result<Vec<PathBuf>, String> {
    let meta = std::fs::metadata(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if meta.is_file() {
        return Ok(vec![path.to_owned()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .map_err(|e| format!("{}: {e}", path.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    if files.is_empty() {
        return Err(format!("{}: no .jsonl file in this folder", path.display()));
    }
    Ok(files)
}

/// Reads the corpus at `path` (a file or a folder); every mistake, located, when it has any.
pub(crate) fn read(path: &Path) -> Result<Vec<Case>, Vec<String>> {
    let files = files(path).map_err(|e| vec![e])?;
    let mut cases = Vec::new();
    let mut mistakes = Vec::new();
    for file in files {
        match std::fs::read_to_string(&file) {
            Ok(text) => parse_into(&file.display().to_string(), &text, &mut cases, &mut mistakes),
            Err(e) => mistakes.push(format!("{}: {e}", file.display())),
        }
    }
    let mut seen = BTreeSet::new();
    for case in &cases {
        if !seen.insert(case.id.clone()) {
            mistakes.push(format!("{}: the id {:?} is used twice", case.origin, case.id));
        }
    }
    if cases.is_empty() && mistakes.is_empty() {
        mistakes.push(format!("{}: no case in the corpus", path.display()));
    }
    if mistakes.is_empty() { Ok(cases) } else { Err(mistakes) }
}

/// Parses one file's text (named `name` in mistakes).
#[cfg(test)]
pub(crate) fn parse(name: &str, text: &str) -> Result<Vec<Case>, Vec<String>> {
    let (mut cases, mut mistakes) = (Vec::new(), Vec::new());
    parse_into(name, text, &mut cases, &mut mistakes);
    if mistakes.is_empty() { Ok(cases) } else { Err(mistakes) }
}

fn parse_into(name: &str, text: &str, cases: &mut Vec<Case>, mistakes: &mut Vec<String>) {
    for (index, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with("//") {
            continue;
        }
        let origin = format!("{name}:{}", index + 1);
        match serde_json::from_str::<RawCase>(line) {
            Ok(raw) => match checked(raw, origin.clone()) {
                Ok(case) => cases.push(case),
                Err(why) => mistakes.push(format!("{origin}: {why}")),
            },
            Err(e) => mistakes.push(format!("{origin}: {e}")),
        }
    }
}

/// The tool names a corpus may name: the registry's.
fn known_tool(name: &str) -> bool {
    handlers::find(name).is_some()
}

fn checked(raw: RawCase, origin: String) -> Result<Case, String> {
    if raw.id.trim().is_empty() {
        return Err("the id is empty".into());
    }
    if raw.class.trim().is_empty() {
        return Err(format!("{}: the class is empty", raw.id));
    }
    if raw.turns.is_empty() {
        return Err(format!("{}: no turns", raw.id));
    }
    let turns: Vec<Turn> = raw
        .turns
        .into_iter()
        .map(|t| match t {
            RawTurn::Text(say) => Turn { say, facts: AnswerFacts::default() },
            RawTurn::Checked(t) => {
                Turn { say: t.say, facts: AnswerFacts { all: t.all, any: t.any, none: t.none } }
            }
        })
        .collect();
    if let Some(empty) = turns.iter().position(|t| t.say.trim().is_empty()) {
        return Err(format!("{}: turn {} says nothing", raw.id, empty + 1));
    }
    if let Some(t) = turns.iter().position(|t| t.say.contains('\n')) {
        return Err(format!("{}: turn {} holds a line break (one line a turn)", raw.id, t + 1));
    }
    let facts = AnswerFacts { all: raw.all, any: raw.any, none: raw.none };
    let empty_fact = facts.all.iter().any(|f| f.alternatives().iter().all(|s| s.is_empty()))
        || facts.any.iter().chain(&facts.none).chain(&raw.never).any(String::is_empty);
    if empty_fact {
        return Err(format!("{}: an empty string as a fact", raw.id));
    }
    for tool in raw.tools.iter().map(ToolExpect::name).chain(raw.tools_none.iter().map(String::as_str)) {
        if !known_tool(tool) {
            return Err(format!("{}: no tool is named {tool:?}", raw.id));
        }
    }
    let expects_something = !facts.is_empty()
        || turns.iter().any(|t| !t.facts.is_empty())
        || !raw.never.is_empty()
        || !raw.tools.is_empty()
        || !raw.tools_none.is_empty()
        || raw.cart.is_some()
        || raw.orders.is_some()
        || raw.alerts.is_some();
    if !expects_something {
        return Err(format!(
            "{}: it expects nothing (give facts, tools or an end state: the script alone proves little)",
            raw.id
        ));
    }
    if let Some(kind) = raw.alerts.as_ref().and_then(|a| a.kind.as_deref())
        && kind != "restock"
        && kind != "price"
    {
        return Err(format!("{}: alerts.kind is \"restock\" or \"price\", not {kind:?}", raw.id));
    }
    let app = match raw.app.as_deref() {
        None => Some(raw.lang),
        Some("default") => None,
        Some("zh") => Some(CaseLang::Zh),
        Some("zh-hant") => Some(CaseLang::ZhHant),
        Some("en") => Some(CaseLang::En),
        Some(other) => {
            return Err(format!(
                "{}: app is \"zh\", \"zh-hant\", \"en\" or \"default\", not {other:?}",
                raw.id
            ));
        }
    };
    Ok(Case {
        app,
        id: raw.id,
        script: raw.script.unwrap_or(raw.lang.script()),
        lang: raw.lang,
        class: raw.class,
        turns,
        answer: facts,
        never: raw.never,
        allow: raw.allow,
        tools: raw.tools,
        tools_none: raw.tools_none,
        cart: raw.cart,
        orders: raw.orders,
        alerts: raw.alerts,
        origin,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_case_reads_with_its_defaults() {
        let text = r#"
# a comment
{"id":"a","lang":"zh-hant","class":"store","turns":["優衣庫在哪",{"say":"y","all":["2"]}],"all":[["優衣庫","Uniqlo"]],"tools":["navigate_to_store"]}
"#;
        let cases = parse("t.jsonl", text).unwrap();
        assert_eq!(cases.len(), 1);
        let case = &cases[0];
        assert_eq!(case.script, Script::Traditional, "the language's script by default");
        assert_eq!(case.turns[1].say, "y");
        assert_eq!(case.turns[1].facts.all, vec![Fact::One("2".into())]);
        assert_eq!(case.answer.all[0].alternatives(), vec!["優衣庫", "Uniqlo"]);
        assert_eq!(case.origin, "t.jsonl:3");
        assert_eq!(case.app, Some(CaseLang::ZhHant), "the shopper's app speaks the case's language");
    }

    #[test]
    fn the_shoppers_app_may_speak_another_language_or_the_configured_one() {
        let line = |app: &str| {
            format!(r#"{{"id":"a","lang":"en","app":{app},"class":"x","turns":["wifi?"],"all":["Wi-Fi"]}}"#)
        };
        assert_eq!(parse("a.jsonl", &line("\"zh\"")).unwrap()[0].app, Some(CaseLang::Zh));
        assert_eq!(parse("a.jsonl", &line("\"default\"")).unwrap()[0].app, None);
        let mistakes = parse("a.jsonl", &line("\"fr\"")).unwrap_err();
        assert!(mistakes[0].contains("app is \"zh\", \"zh-hant\", \"en\" or \"default\""), "{mistakes:?}");
    }

    #[test]
    fn every_mistake_is_located() {
        let text = concat!(
            "{\"id\":\"a\",\"lang\":\"fr\",\"class\":\"x\",\"turns\":[\"hi\"],\"all\":[\"x\"]}\n",
            "{\"id\":\"b\",\"lang\":\"en\",\"class\":\"x\",\"turns\":[\"hi\"]}\n",
            "{\"id\":\"c\",\"lang\":\"en\",\"class\":\"x\",\"turns\":[\"hi\"],\"tools\":[\"teleport\"]}\n",
            "{\"id\":\"d\",\"lang\":\"en\",\"class\":\"x\",\"turns\":[\"hi\"],\"al\":[\"x\"]}\n",
        );
        let mistakes = parse("c.jsonl", text).unwrap_err();
        assert_eq!(mistakes.len(), 4, "{mistakes:#?}");
        assert!(mistakes[0].starts_with("c.jsonl:1: unknown variant `fr`"), "{}", mistakes[0]);
        assert!(mistakes[1].contains("c.jsonl:2: b: it expects nothing"), "{}", mistakes[1]);
        assert!(mistakes[2].contains("c.jsonl:3: c: no tool is named \"teleport\""), "{}", mistakes[2]);
        assert!(mistakes[3].starts_with("c.jsonl:4: unknown field `al`"), "{}", mistakes[3]);
    }
}
