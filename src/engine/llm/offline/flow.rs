//! The offline planner's next move: what the shopper's message asks for
//! (the first tool hook that recognises it, else a "yes" to the offer the
//! previous answer made), followed through the calls of the current turn
//! to the next call or the answer.

use handlers::basic::{self, Dialogue, Lexicon, Made, Offer, Outcome, Said, Step};
use handlers::{Lang, Scope};

/// More tool calls than this in one turn: answer from what is known.
const MAX_CALLS_PER_TURN: usize = 6;

/// The next step of the conversation, with only `tools` offered.
pub(crate) fn next_step(dialogue: &Dialogue, tools: &[&str], lexicon: &Lexicon) -> Step {
    let open_offer = || previous_offer(dialogue, tools, lexicon);
    let said = Said::new(dialogue, lexicon, &open_offer);
    if dialogue.turn_calls().count() >= MAX_CALLS_PER_TURN {
        return Step::answer(without_tool(None, &said));
    }
    match follow(first_step(&said), &said) {
        Step::Call(call) if !tools.contains(&call.tool) => Step::answer(without_tool(Some(call.tool), &said)),
        step => step,
    }
}

/// The answer basic mode words from the calls made this turn, when those
/// words can stand as the whole answer with a model too: every call's tool
/// says so ([`handlers::OfflineHook::direct`]) and brought data, and either
/// the shopper confirmed the turn's last call (`confirmed`: the caller
/// knows it was the only call of its round, so the press asked for exactly
/// that) and the message, read as basic mode reads it, asks for no other
/// change, or the
/// message, read as basic mode reads it, asks for exactly these calls and
/// nothing after them. `None`: the model words the answer.
pub(crate) fn direct_answer(
    dialogue: &Dialogue,
    tools: &[&str],
    lexicon: &Lexicon,
    confirmed: bool,
) -> Option<String> {
    let calls: Vec<&Made> = dialogue.turn_calls().collect();
    let stands_alone = |made: &&Made| {
        handlers::find(&made.name).and_then(|spec| spec.offline).is_some_and(|hook| hook.direct)
            && matches!(made.outcome, Some(Outcome::Data(_)))
    };
    if calls.is_empty() || !calls.iter().all(stands_alone) {
        return None;
    }
    let open_offer = || previous_offer(dialogue, tools, lexicon);
    let said = Said::new(dialogue, lexicon, &open_offer);
    let reply = if confirmed {
        let last = calls.last()?;
        let Some(Outcome::Data(data)) = &last.outcome else { return None };
        // The message asked for another change too ("加入购物车然后下单"): the model goes on.
        if let Some(Step::Call(call)) = basic::recognise(&said) {
            let risky = handlers::find(call.tool).is_some_and(|spec| spec.level != handlers::Level::Safe);
            if risky && call.tool != last.name {
                return None;
            }
        }
        basic::reply(last, data, &said)
    } else {
        if asks_several(said.text()) {
            return None;
        }
        let mut expected = basic::recognise(&said)?;
        for made in &calls {
            let Step::Call(call) = expected else { return None };
            let Some(Outcome::Data(data)) = &made.outcome else { return None };
            if call.tool != made.name {
                return None;
            }
            expected = match call.then.and_then(|then| then(data, &said)) {
                Some(step) => step,
                None => Step::Answer(basic::reply(made, data, &said)),
            };
        }
        let Step::Answer(reply) = expected else { return None };
        reply
    };
    (!reply.text.trim().is_empty()).then_some(reply.text)
}

/// A message of several clauses ("Nike 店在哪，几点关门，有什么优惠", "Nike
/// and Adidas?") may ask for more than the calls made said, even when basic
/// mode reads one of them in it: the model words those.
pub(crate) fn asks_several(text: &str) -> bool {
    let text = text.trim().trim_end_matches(['?', '？', '!', '！', '。', '.', '~', '～']);
    text.contains(['，', ',', '；', ';', '、', '?', '？']) || text.to_lowercase().contains(" and ")
}

/// What the message asks for: a hook's first step, or on a bare "yes" the
/// call the previous answer offered; with neither, an empty answer (the
/// chat fallback answers).
fn first_step(said: &Said) -> Step {
    if let Some(step) = basic::recognise(said) {
        return step;
    }
    match said.is_yes().then(|| said.offer()).flatten() {
        Some(offer) => Step::Call(offer.call.clone()),
        None => Step::answer(""),
    }
}

/// Follows `first` through the calls already made this turn: each call's
/// data leads to the next step, the last one is what to do now. A turn that
/// went another way is answered from its last call.
fn follow(first: Step, said: &Said) -> Step {
    let mut expected = first;
    for made in said.dialogue.turn_calls() {
        let call = match &expected {
            Step::Call(call) if call.tool == made.name => call.clone(),
            _ => return answer_last(said),
        };
        expected = match &made.outcome {
            Some(Outcome::Data(data)) => match call.then.and_then(|then| then(data, said)) {
                Some(step) => step,
                None => Step::Answer(basic::reply(made, data, said)),
            },
            outcome => Step::answer(ended(made, outcome.as_ref(), said)),
        };
    }
    expected
}

/// The answer from the last call of the turn.
fn answer_last(said: &Said) -> Step {
    match said.dialogue.last_turn_call() {
        Some(made @ Made { outcome: Some(Outcome::Data(data)), .. }) => {
            Step::Answer(basic::reply(made, data, said))
        }
        Some(made) => Step::answer(ended(made, made.outcome.as_ref(), said)),
        None => Step::answer(""),
    }
}

/// The answer to a call that brought no data: failed, declined or still running.
fn ended(made: &Made, outcome: Option<&Outcome>, said: &Said) -> String {
    match outcome {
        Some(Outcome::Failed(error)) => failure(made, error, said),
        Some(Outcome::Declined) => said.texts().answers.declined.to_owned(),
        Some(Outcome::Data(_)) | None => String::new(),
    }
}

/// What the assistant's previous answer offered: the conversation as it
/// stood then is planned again, and the offer counts only when that gives
/// the answer the shopper read. The language of that turn is not kept with
/// its message (only the latest message carries its note), so each
/// language is tried, the message's own first.
fn previous_offer(dialogue: &Dialogue, tools: &[&str], lexicon: &Lexicon) -> Option<Offer> {
    let (before, shown) = dialogue.before_previous_answer()?;
    let shown = shown.trim();
    let mut langs =
        std::iter::once(before.lang()).chain(Lang::ALL.into_iter().filter(|l| *l != before.lang()));
    langs.find_map(|lang| match next_step(&before.clone().in_lang(lang), tools, lexicon) {
        Step::Answer(reply) if !reply.text.trim().is_empty() && shown.contains(reply.text.trim()) => {
            Some(reply.offer)
        }
        _ => None,
    })?
}

/// The answer when `tool` is not offered here (or too many calls were
/// made): from the data of the turn's last call when there is some.
fn without_tool(tool: Option<&str>, said: &Said) -> String {
    match said.dialogue.last_turn_call() {
        Some(made @ Made { outcome: Some(Outcome::Data(data)), .. }) => basic::reply(made, data, said).text,
        _ => unavailable(tool.unwrap_or(""), said.lang),
    }
}

/// The tool the shopper needs is not offered here.
fn unavailable(tool: &str, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if handlers::find(tool).is_some_and(|spec| spec.scope == Scope::Private) {
        return answers.private_only.to_owned();
    }
    answers.cannot_here.to_owned()
}

/// A tool failed (`Error: …`): a short explanation and what to do — the
/// mall's reason when it gives one, else the tool's own words, else the
/// general ones.
fn failure(made: &Made, error: &str, said: &Said) -> String {
    let lang = said.lang;
    let answers = &lang.texts().answers;
    let lower = error.to_ascii_lowercase();
    if lower.contains("(cart_empty)") {
        return answers.cart_empty.to_owned();
    }
    if lower.contains("(order_not_cancellable)") {
        return answers.not_cancellable.to_owned();
    }
    if lower.contains("(price_changed)") {
        return answers.price_changed.to_owned();
    }
    let hook = handlers::find(&made.name).and_then(|spec| spec.offline);
    if let Some(words) = hook.and_then(|hook| hook.failed).and_then(|failed| failed(said, error)) {
        return words;
    }
    if lower.contains("(out_of_stock)") {
        return format!("{}{}", answers.no_stock, answers.fewer);
    }
    if lower.starts_with("error: not found") {
        return answers.nothing_found.to_owned();
    }
    if lower.starts_with("error: not allowed") {
        return unavailable(&made.name, lang);
    }
    if lower.starts_with("error: invalid") {
        return answers.invalid.to_owned();
    }
    answers.mall_down.to_owned()
}
