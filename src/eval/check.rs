//! Whether one run of a case holds: every statement of the case is checked
//! and every one that does not hold is a reason, in words an operator reads.
//! A run passes only with no reason at all.

use serde_json::Value;
use services::{CartItem, Order};

use super::corpus::{AnswerFacts, Case, ItemExpect, ToolExpect};
use super::drive::Transcript;
use super::script;

/// Why the run does not hold (empty: it passed).
pub(crate) fn reasons(case: &Case, run: &Transcript) -> Vec<String> {
    let mut why = Vec::new();
    if let Some(broken) = &run.broken {
        why.push(broken.clone());
    }
    if let Some(first) = run.model_errors.first() {
        why.push(format!(
            "the model failed {} time(s), so basic mode answered instead: {first}",
            run.model_errors.len()
        ));
    }
    if run.answers.len() < case.turns.len() {
        why.push(format!(
            "the chat took {} of the {} lines (it ended or asked nothing more)",
            run.answers.len(),
            case.turns.len()
        ));
    }
    for (index, turn) in case.turns.iter().enumerate() {
        let Some(answer) = run.answers.get(index) else { break };
        let line = index + 1;
        if answer.trim().is_empty() {
            why.push(format!("line {line} ({:?}) got no answer", turn.say));
            continue;
        }
        let said = without_buttons(answer);
        facts(&turn.facts, &said, &format!("the answer to line {line}"), &mut why);
        for never in &case.never {
            if contains(&said, never) {
                why.push(format!("the answer to line {line} says {never:?}, which no answer may"));
            }
        }
        if let Some(mismatch) = script::mismatch(answer, case.script, &case.allow) {
            why.push(format!("the answer to line {line} is not in {}: {mismatch}", script_name(case)));
        }
    }
    if run.answers.len() >= case.turns.len()
        && let Some(last) = run.answers.get(case.turns.len() - 1)
    {
        facts(&case.answer, &without_buttons(last), "the last answer", &mut why);
    }
    tools(case, run, &mut why);
    state(case, run, &mut why);
    why
}

fn script_name(case: &Case) -> &'static str {
    match case.script {
        super::corpus::Script::Simplified => "Simplified Chinese",
        super::corpus::Script::Traditional => "Traditional Chinese",
        super::corpus::Script::English => "English",
        super::corpus::Script::Any => "any script",
    }
}

/// The answer without its suggestion buttons (`[1] Where is Uniqlo?`): the
/// facts are the answer's own (the buttons are still held to its script).
pub(crate) fn without_buttons(answer: &str) -> String {
    answer.lines().filter(|line| !is_button(line)).collect::<Vec<_>>().join("\n")
}

fn is_button(line: &str) -> bool {
    line.strip_prefix('[')
        .and_then(|rest| rest.split_once("] "))
        .is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// Case-insensitive containment.
pub(crate) fn contains(text: &str, part: &str) -> bool {
    text.to_lowercase().contains(&part.to_lowercase())
}

fn facts(expect: &AnswerFacts, answer: &str, which: &str, why: &mut Vec<String>) {
    for fact in &expect.all {
        if !fact.alternatives().iter().any(|alt| contains(answer, alt)) {
            why.push(format!("{which} does not name {}", fact.shown()));
        }
    }
    if !expect.any.is_empty() && !expect.any.iter().any(|alt| contains(answer, alt)) {
        let shown: Vec<String> = expect.any.iter().map(|s| format!("{s:?}")).collect();
        why.push(format!("{which} names none of {}", shown.join(", ")));
    }
    for none in &expect.none {
        if contains(answer, none) {
            why.push(format!("{which} says {none:?}"));
        }
    }
}

fn tools(case: &Case, run: &Transcript, why: &mut Vec<String>) {
    let called = || {
        let names: Vec<String> = run.calls.iter().map(|c| format!("{}({})", c.name, c.args)).collect();
        if names.is_empty() { "no tool".to_owned() } else { names.join(", ") }
    };
    for expect in &case.tools {
        let found = run.calls.iter().any(|call| {
            call.name == expect.name()
                && match expect {
                    ToolExpect::Name(_) => true,
                    ToolExpect::WithArgs { args, .. } => args_match(args, &call.args),
                }
        });
        if !found {
            let wanted = match expect {
                ToolExpect::Name(name) => name.clone(),
                ToolExpect::WithArgs { name, args } => format!("{name}({args})"),
            };
            why.push(format!("{wanted} was not called (called: {})", called()));
        }
    }
    for name in &case.tools_none {
        if run.calls.iter().any(|call| &call.name == name) {
            why.push(format!("{name} was called, and must not be (called: {})", called()));
        }
    }
}

/// Whether every key of `expected` is in `actual` with a matching value: a
/// string is contained (any case), a list is alternatives, anything else equal.
fn args_match(expected: &Value, actual: &Value) -> bool {
    let Some(expected) = expected.as_object() else { return expected == actual };
    expected.iter().all(|(key, want)| actual.get(key).is_some_and(|got| value_matches(want, got)))
}

fn value_matches(want: &Value, got: &Value) -> bool {
    match want {
        Value::String(want) => {
            let got = match got {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            contains(&got, want)
        }
        Value::Array(alternatives) => alternatives.iter().any(|alt| value_matches(alt, got)),
        Value::Number(n) => got.as_f64().zip(n.as_f64()).is_some_and(|(a, b)| (a - b).abs() < 1e-9),
        Value::Object(_) => args_match(want, got),
        other => other == got,
    }
}

fn item_matches(
    expect: &ItemExpect,
    product: &str,
    name: &str,
    name_en: &str,
    sku: Option<&str>,
    label: Option<&str>,
) -> bool {
    expect.product.as_ref().is_none_or(|p| p.alternatives().contains(&product))
        && expect
            .name
            .as_ref()
            .is_none_or(|n| n.alternatives().iter().any(|n| contains(name, n) || contains(name_en, n)))
        && expect.sku.as_deref().is_none_or(|s| Some(s) == sku)
        && expect.size.as_deref().is_none_or(|size| {
            label.is_some_and(|label| {
                label.eq_ignore_ascii_case(size)
                    || label.split_whitespace().any(|w| w.eq_ignore_ascii_case(size))
            })
        })
}

fn cart_item_matches(expect: &ItemExpect, item: &CartItem) -> bool {
    item_matches(
        expect,
        &item.product_id,
        &item.name,
        item.name_en.as_deref().unwrap_or_default(),
        item.sku_id.as_deref(),
        item.sku_label.as_deref(),
    ) && expect.quantity.is_none_or(|q| q == item.quantity)
        && expect.max_price.is_none_or(|yuan| item.unit_price_cents as f64 <= yuan * 100.0 + 0.5)
}

fn shown_item(expect: &ItemExpect) -> String {
    let mut parts = Vec::new();
    if let Some(p) = &expect.product {
        parts.push(p.alternatives().join("|"));
    }
    if let Some(n) = &expect.name {
        parts.push(n.shown());
    }
    if let Some(s) = &expect.sku {
        parts.push(format!("sku {s}"));
    }
    if let Some(s) = &expect.size {
        parts.push(format!("size {s}"));
    }
    if let Some(q) = expect.quantity {
        parts.push(format!("× {q}"));
    }
    if let Some(p) = expect.max_price {
        parts.push(format!("at most ¥{p}"));
    }
    parts.join(" ")
}

fn shown_items(items: &[CartItem]) -> String {
    if items.is_empty() {
        return "nothing".to_owned();
    }
    items
        .iter()
        .map(|i| {
            format!("{} {} {} × {}", i.product_id, i.name, i.sku_label.as_deref().unwrap_or(""), i.quantity)
        })
        .collect::<Vec<_>>()
        .join("; ")
}

fn state(case: &Case, run: &Transcript, why: &mut Vec<String>) {
    if let Some(expect) = &case.cart {
        let items = run.cart.as_ref().map(|c| c.items.as_slice()).unwrap_or_default();
        if let Some(lines) = expect.lines
            && items.len() != lines
        {
            why.push(format!("the cart holds {} line(s), not {lines}: {}", items.len(), shown_items(items)));
        }
        for item in &expect.has {
            if !items.iter().any(|i| cart_item_matches(item, i)) {
                why.push(format!("the cart lacks {}: it holds {}", shown_item(item), shown_items(items)));
            }
        }
    }
    if let Some(expect) = &case.orders {
        let orders: &[Order] = &run.orders;
        let statuses: Vec<&str> = orders.iter().map(|o| o.status.as_str()).collect();
        if let Some(count) = expect.count
            && orders.len() != count
        {
            why.push(format!("{} order(s), not {count} ({})", orders.len(), statuses.join(", ")));
        }
        if let Some(status) = &expect.status
            && (orders.is_empty() || orders.iter().any(|o| !o.status.as_str().eq_ignore_ascii_case(status)))
        {
            why.push(format!(
                "the orders are not all {status}: {}",
                if statuses.is_empty() { "none".to_owned() } else { statuses.join(", ") }
            ));
        }
        for item in &expect.has {
            if !orders.iter().any(|o| o.items.iter().any(|i| cart_item_matches(item, i))) {
                why.push(format!("no order holds {}", shown_item(item)));
            }
        }
    }
    if let Some(expect) = &case.alerts {
        let alerts = &run.alerts;
        let shown = || {
            let list: Vec<String> =
                alerts.iter().map(|a| format!("{} {:?}", a.product_name, a.want)).collect();
            if list.is_empty() { "none".to_owned() } else { list.join("; ") }
        };
        if let Some(count) = expect.count
            && alerts.len() != count
        {
            why.push(format!("{} alert(s) set, not {count}: {}", alerts.len(), shown()));
        }
        for item in &expect.has {
            let found = alerts.iter().any(|a| {
                let size = match &a.want {
                    handlers::alert_book::Want::Restock { size } => size.as_deref(),
                    _ => None,
                };
                let kind_ok = match expect.kind.as_deref() {
                    Some("restock") => matches!(a.want, handlers::alert_book::Want::Restock { .. }),
                    Some("price") => matches!(a.want, handlers::alert_book::Want::Price { .. }),
                    _ => true,
                };
                kind_ok && item_matches(item, &a.product_id, &a.product_name, "", None, size)
            });
            if !found {
                why.push(format!("no alert for {}: {}", shown_item(item), shown()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::eval::corpus::parse;
    use crate::eval::drive::Called;

    fn case(line: &str) -> Case {
        parse("t", line).unwrap().remove(0)
    }

    #[test]
    fn everything_stated_is_checked_and_each_miss_is_a_reason() {
        let case = case(
            r#"{"id":"x","lang":"en","class":"store","turns":["where is nike"],"all":[["Nike","耐克"],"3F"],"any":["3F-01","unit 1"],"none":["I don't know"],"tools":[{"name":"navigate_to_store","args":{"store_name":"nike"}}]}"#,
        );
        let mut run = Transcript {
            answers: vec!["Nike is on 3F, unit 3F-01.".into()],
            calls: vec![Called {
                name: "navigate_to_store".into(),
                args: serde_json::json!({"store_name":"Nike"}),
            }],
            ..Transcript::default()
        };
        assert_eq!(reasons(&case, &run), Vec::<String>::new());
        run.answers = vec!["I don't know that one，sorry".into()];
        run.calls.clear();
        let why = reasons(&case, &run);
        assert_eq!(why.len(), 6, "{why:#?}");
        assert!(why.iter().any(|w| w.contains("not in English")), "{why:#?}");
        assert!(
            why.iter().any(|w| w.starts_with("the last answer does not name \"Nike\" | \"耐克\"")),
            "{why:#?}"
        );
        assert!(
            why.iter().any(|w| w.starts_with("navigate_to_store({\"store_name\":\"nike\"}) was not called"))
        );
    }

    #[test]
    fn a_suggestion_button_is_not_the_answer() {
        let case = case(r#"{"id":"x","lang":"en","class":"t","turns":["coffee"],"any":["Starbucks"]}"#);
        let mut run = Transcript {
            answers: vec![
                "I'm not sure about that.\n[1] Nike running shoes\n[3] Any deals at Starbucks?".into(),
            ],
            ..Transcript::default()
        };
        assert_eq!(reasons(&case, &run), vec!["the last answer names none of \"Starbucks\"".to_owned()]);
        run.answers = vec!["Starbucks is on 1F.\n[1] 带我去".into()];
        let why = reasons(&case, &run);
        assert_eq!(why.len(), 1, "{why:#?}");
        assert!(why[0].contains("not in English"), "a button is still held to the script: {why:#?}");
    }

    #[test]
    fn an_empty_answer_and_a_failed_model_fail_the_run() {
        let case = case(r#"{"id":"x","lang":"zh","class":"t","turns":["你好"],"none":["错误"]}"#);
        let run = Transcript {
            answers: vec![String::new()],
            model_errors: vec!["model unavailable: 503".into()],
            ..Transcript::default()
        };
        let why = reasons(&case, &run);
        assert!(why.iter().any(|w| w.contains("got no answer")), "{why:#?}");
        assert!(why.iter().any(|w| w.starts_with("the model failed 1 time(s)")), "{why:#?}");
    }
}
