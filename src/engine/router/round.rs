//! The tool loop, one round at a time: ask the model ([`Turns::complete`]),
//! check what it asked for ([`RoundPlan`]), run the safe calls concurrently
//! ([`Turns::run_safe`]), and either continue with their results or stop to
//! ask the shopper about a risky call ([`Confirmations::ask`](super::confirm::Confirmations::ask)).
//!
//! What ends a round or the turn: a model that fails after its retries hands
//! the rest of the turn to the offline planner (basic mode); an answer with
//! no text and no tool run is small talk (`ChatFallback`); an unknown tool
//! name or unreadable arguments go back to the model as an error text; a
//! private-only tool in a group ends the turn with a hand-off to the private
//! chat; three rounds in a row where every call failed end it politely, and
//! so does `llm.max_rounds`. Safe calls show their status lines to the
//! progress first, run at once under `llm.tool_timeout_secs`, and their
//! results come back in call order.

use std::time::Instant;

use futures::future::join_all;
use handlers::{Level, Preview, Scope, ToolError, ToolOutput};
use serde_json::Value;
use tracing::Instrument;

use super::cache::{Source, ToolCache};
use super::calls;
use super::confirm::Question;
use super::turn::{Turn, TurnEnd, Turns};
use crate::engine::llm::{ChatMessage, ChatModel as _, ChatRequest, ChatResponse, Role, Usage};
use crate::engine::progress::Progress;
use crate::engine::reply::Reply;
use crate::engine::tools::Tool;

/// Rounds in a row whose every call failed before the turn gives up.
const FAILED_ROUNDS_LIMIT: u32 = 3;

/// One call of a round, checked against the tools on offer.
pub(super) enum PlannedCall {
    /// Answered without running: the text the model gets (an unknown tool,
    /// unreadable arguments, a second risky call in one round).
    Refused(String),
    /// A safe call to run now.
    Run { tool: Tool, args: Value },
    /// A confirm/critical call: the shopper decides.
    Ask { tool: Tool, args: Value, level: Level },
}

/// What the model asked for in one round.
pub(super) enum RoundPlan {
    /// The calls, in the model's order.
    Calls(Vec<PlannedCall>),
    /// A private-only tool was asked for in a group: the request moves to the
    /// private chat.
    HandOff,
}

/// How a round ended.
enum RoundEnd {
    /// Every call answered; `all_failed` when none of them succeeded.
    Continue { all_failed: bool },
    /// The turn ends here.
    Stop(Box<TurnEnd>),
}

impl Turns {
    /// Runs model rounds until an answer, a confirmation, or the round limit.
    pub(super) async fn tool_loop(&self, mut turn: Turn, progress: &Progress) -> (Turn, TurnEnd) {
        let tools = self.tools.tools_for(turn.scope.is_group, turn.scope.mentioned);
        // Resumed by a press: the confirmed call's own words may be the answer.
        if turn.messages.last().is_some_and(|m| m.role == Role::Tool)
            && let Some(text) = self.direct_answer(&turn, &tools, true).await
        {
            return (turn, TurnEnd::Answer(text));
        }
        let mut failed_rounds = 0u32;
        while turn.rounds_used < self.settings.max_rounds {
            turn.rounds_used += 1;
            let response = self.complete(&mut turn, &tools, progress).await;
            turn.usage += response.usage;
            let message = response.message;
            if message.tool_calls.is_empty() {
                let end = if message.text().trim().is_empty() && !turn.tools_ran {
                    TurnEnd::SmallTalk
                } else {
                    TurnEnd::Answer(message.text().to_owned())
                };
                return (turn, end);
            }
            turn.messages.push(message.clone());
            match self.play_round(&mut turn, message, &tools, progress).await {
                RoundEnd::Stop(end) => return (turn, *end),
                RoundEnd::Continue { all_failed } => {
                    if !all_failed && let Some(text) = self.direct_answer(&turn, &tools, false).await {
                        return (turn, TurnEnd::Answer(text));
                    }
                    failed_rounds = if all_failed { failed_rounds + 1 } else { 0 };
                    if failed_rounds >= FAILED_ROUNDS_LIMIT {
                        tracing::warn!("three rounds of failed tool calls; giving up on this turn");
                        break;
                    }
                }
            }
        }
        (turn, TurnEnd::GaveUp)
    }

    /// The turn's answer in its tools' own words, when those are the whole
    /// answer (`llm.direct_answers`): every call of the last round is to a
    /// tool whose words stand alone, and basic mode, reading the same
    /// conversation, would have made these calls for this message and then
    /// answered — or, after a press, the round was the confirmed call alone.
    /// Saves the model round that would only re-word them.
    async fn direct_answer(&self, turn: &Turn, tools: &[Tool], confirmed: bool) -> Option<String> {
        if !self.settings.direct_answers || turn.basic_mode {
            return None;
        }
        let round = turn.messages.iter().rev().find(|m| m.role == Role::Assistant)?;
        let stands_alone =
            |name: &str| handlers::find(name).and_then(|spec| spec.offline).is_some_and(|hook| hook.direct);
        if round.tool_calls.is_empty()
            || (confirmed && round.tool_calls.len() != 1)
            || !round.tool_calls.iter().all(|call| stands_alone(&call.name))
        {
            return None;
        }
        let names: Vec<&str> = tools.iter().map(Tool::name).collect();
        let lexicon = self.planner.lexicon().await;
        let text = crate::engine::llm::offline::direct_answer(
            &turn.messages,
            &names,
            &lexicon,
            turn.scope.lang,
            confirmed,
        )?;
        tracing::info!(tools = ?turn.tools_used, confirmed, "the tools' own words are the answer: no model round to re-word them");
        metrics::counter!(crate::infra::ops::DIRECT_ANSWERS).increment(1);
        Some(text)
    }

    /// One model call; falls back to the offline planner (basic mode) when
    /// the model cannot answer.
    async fn complete(&self, turn: &mut Turn, tools: &[Tool], progress: &Progress) -> ChatResponse {
        if !turn.basic_mode {
            let noted = turn.noted();
            let request = ChatRequest { messages: &turn.messages, tools, progress: Some(progress) };
            let span = tracing::info_span!("model", model = %self.model.describe(), round = turn.rounds_used);
            let started = Instant::now();
            let result = self.model.complete(request).instrument(span.clone()).await;
            noted.remove(turn);
            let latency_ms = started.elapsed().as_millis() as u64;
            match result {
                Ok(response) => {
                    span.in_scope(|| {
                        tracing::info!(
                            tokens_in = response.usage.prompt_tokens,
                            tokens_out = response.usage.completion_tokens,
                            tokens_cached = response.usage.cached_tokens,
                            latency_ms,
                            tool_calls = response.message.tool_calls.len(),
                            "model answered"
                        )
                    });
                    self.stats.add_usage(response.usage);
                    metrics::counter!(crate::infra::ops::MODEL_CALLS, "outcome" => "ok").increment(1);
                    metrics::histogram!(crate::infra::ops::MODEL_SECONDS)
                        .record(started.elapsed().as_secs_f64());
                    return response;
                }
                Err(e) => {
                    span.in_scope(|| tracing::error!(error = %e, latency_ms, "model failed; basic mode"));
                    self.stats.record_error("model failed; basic mode");
                    metrics::counter!(crate::infra::ops::MODEL_CALLS, "outcome" => "failed").increment(1);
                    metrics::histogram!(crate::infra::ops::MODEL_SECONDS)
                        .record(started.elapsed().as_secs_f64());
                    turn.errors += 1;
                    turn.basic_mode = true;
                }
            }
        }
        let request = ChatRequest { messages: &turn.messages, tools, progress: None };
        match self.planner.complete(request).await {
            Ok(response) => response,
            Err(e) => {
                tracing::error!(error = %e, "offline planner failed");
                ChatResponse {
                    message: ChatMessage::assistant(""),
                    finish_reason: None,
                    usage: Usage::default(),
                }
            }
        }
    }

    /// Plans, runs and settles the calls of one assistant message.
    async fn play_round(
        &self,
        turn: &mut Turn,
        assistant: ChatMessage,
        offered: &[Tool],
        progress: &Progress,
    ) -> RoundEnd {
        let planned = match self.plan(turn, &assistant, offered) {
            RoundPlan::HandOff => return RoundEnd::Stop(Box::new(self.hand_off(turn))),
            RoundPlan::Calls(planned) => planned,
        };
        let working: Vec<String> = planned
            .iter()
            .filter_map(|p| match p {
                PlannedCall::Run { tool, args } => Some(tool.progress_line(turn.scope.lang, args)),
                _ => None,
            })
            .collect();
        if !working.is_empty() {
            progress.working(working);
        }
        let outcomes = self.run_safe(turn, &assistant, &planned).await;

        let mut results: Vec<Option<String>> = Vec::with_capacity(planned.len());
        let mut failures = 0usize;
        let mut question = None;
        let mut handoff = None;
        for (index, (plan, outcome)) in planned.into_iter().zip(outcomes).enumerate() {
            match (plan, outcome) {
                (PlannedCall::Refused(text), _) => {
                    failures += 1;
                    results.push(Some(text));
                }
                (PlannedCall::Run { tool, args }, Some(result)) => {
                    turn.tools_ran = true;
                    turn.tools_used.push(tool.name());
                    match &result {
                        Ok(out) if tool.name() == "contact_staff" => {
                            handoff = out.data["reason"].as_str().map(str::to_owned);
                        }
                        Ok(out) if out.data.get("not_found").is_some() => {
                            // No store by the name asked for (a typo): an unanswered question.
                            let question = unanswered(turn, closest_names(&out.data).as_deref());
                            turn.events.push(crate::engine::report::Event::DontKnow(question));
                            keep_extras(turn, out);
                        }
                        Ok(out) if found_nothing(tool.name(), &out.data) => {
                            let words = args["keyword"].as_str().unwrap_or_default().to_owned();
                            turn.events.push(crate::engine::report::Event::EmptySearch(words));
                            keep_extras(turn, out);
                        }
                        Ok(out) => {
                            turn.helped = true;
                            keep_extras(turn, out);
                        }
                        Err(ToolError::NotFound(what)) => {
                            // What the shopper asked for is not in the mall (a typo, most often):
                            // an unanswered question for the report, not a tool error.
                            failures += 1;
                            let question = unanswered(turn, did_you_mean(what).as_deref());
                            turn.events.push(crate::engine::report::Event::DontKnow(question));
                        }
                        Err(_) => {
                            failures += 1;
                            turn.errors += 1;
                            turn.events.push(crate::engine::report::Event::ToolError(tool.name().to_owned()));
                        }
                    }
                    results.push(Some(calls::result_text(&result)));
                }
                (PlannedCall::Run { .. }, None) => {
                    results.push(Some("Error: the tool did not run.".to_owned()))
                }
                (PlannedCall::Ask { tool, args, level }, _) => {
                    question = Some((index, tool, args, level));
                    results.push(None);
                }
            }
        }
        if let Some((index, tool, args, level)) = question {
            match self.confirmations.preview(&tool, &turn.scope, &args).await {
                Ok(preview) => {
                    let (rounds_used, basic_mode) = (turn.rounds_used, turn.basic_mode);
                    let question =
                        Question { assistant, results, index, args, level, rounds_used, basic_mode };
                    return RoundEnd::Stop(Box::new(self.ask(turn, question, preview).await));
                }
                Err(e) => {
                    results[index] = Some(e.model_message());
                    failures += 1;
                }
            }
        }
        let count = results.len();
        for (call, result) in assistant.tool_calls.iter().zip(results) {
            turn.messages.push(ChatMessage::tool(call.id.clone(), result.unwrap_or_default()));
        }
        if let Some(reason) = handoff {
            let reply = self.desk.handoff_reply(&turn.scope.conversation(), turn.scope.lang, &reason).await;
            turn.messages.push(ChatMessage::assistant(reply.text.clone()));
            return RoundEnd::Stop(Box::new(TurnEnd::Stopped(reply)));
        }
        RoundEnd::Continue { all_failed: failures == count }
    }

    /// Holds the turn at a risky call (the confirmation service keeps it)
    /// and asks the shopper; the history keeps the question so the
    /// conversation reads naturally until the press.
    async fn ask(&self, turn: &mut Turn, question: Question, preview: Preview) -> TurnEnd {
        match self.confirmations.ask(&turn.scope, question, preview).await {
            Ok(reply) => {
                // The assistant turn waits in the pending action.
                turn.messages.pop();
                turn.messages.push(ChatMessage::assistant(reply.text.clone()));
                TurnEnd::Stopped(reply)
            }
            Err(reply) => TurnEnd::Unsaved(reply),
        }
    }

    /// Checks each call of `assistant` against the tools on offer and their
    /// levels. At most one risky call per round waits for the shopper.
    fn plan(&self, turn: &Turn, assistant: &ChatMessage, offered: &[Tool]) -> RoundPlan {
        let mut planned = Vec::with_capacity(assistant.tool_calls.len());
        let mut asking = false;
        for call in &assistant.tool_calls {
            let Some(tool) = offered.iter().find(|t| t.name() == call.name).cloned() else {
                planned.push(PlannedCall::Refused(calls::unknown_tool_message(&call.name, offered)));
                continue;
            };
            let args = match calls::parse_arguments(&call.arguments) {
                Ok(args) => args,
                Err(why) => {
                    planned.push(PlannedCall::Refused(calls::bad_arguments_message(&call.name, &why)));
                    continue;
                }
            };
            if turn.scope.is_group && !tool.scope().allows(true) {
                return RoundPlan::HandOff;
            }
            planned.push(match self.tools.level_of(&tool) {
                Level::Safe => PlannedCall::Run { tool, args },
                _ if asking => PlannedCall::Refused(
                    "Error: only one action that needs the shopper's confirmation can wait at a time. Call \
                     this one again after the first is confirmed."
                        .to_owned(),
                ),
                level => {
                    asking = true;
                    PlannedCall::Ask { tool, args, level }
                }
            });
        }
        RoundPlan::Calls(planned)
    }

    /// Runs the safe calls of a round concurrently; `None` for the others.
    async fn run_safe(
        &self,
        turn: &Turn,
        assistant: &ChatMessage,
        planned: &[PlannedCall],
    ) -> Vec<Option<Result<ToolOutput, ToolError>>> {
        let ctx = self.tools.context(&turn.scope, None);
        let limit = self.tools.timeout;
        let lang = turn.scope.lang;
        let runs = planned.iter().zip(&assistant.tool_calls).map(|(plan, call)| {
            let ctx = ctx.clone();
            async move {
                let PlannedCall::Run { tool, args } = plan else { return None };
                let run = || calls::run_tool(tool, call, Level::Safe, ctx, args.clone(), limit);
                if !self.cacheable(tool) {
                    return Some(run().await);
                }
                let key = ToolCache::key(tool.name(), lang, args);
                let (result, source) = self.tool_cache.get_or_run(key, run).await;
                if source == Source::Cache {
                    self.stats.tool_cache_hits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    tracing::info!(name = tool.name(), call_id = %call.id, outcome = "cached", "tool call");
                    crate::infra::otel::tool_span(tool.name(), &call.id, Level::Safe.as_str())
                        .record("mallbot.tool.outcome", "cached");
                    metrics::counter!(crate::infra::ops::TOOL_CALLS, "tool" => tool.name(), "outcome" => "cached")
                        .increment(1);
                }
                Some(result)
            }
        });
        join_all(runs).await
    }

    /// Whether a tool's results may be reused: safe (after overrides) and not
    /// about the shopper (cart and order tools are private-only). Tools lent
    /// by MCP servers are never reused: the bot cannot tell what they depend on.
    fn cacheable(&self, tool: &Tool) -> bool {
        tool.spec().is_some() && self.tools.level_of(tool) == Level::Safe && tool.scope() != Scope::Private
    }

    /// In a group, a cart or order request moves to the private chat.
    fn hand_off(&self, turn: &mut Turn) -> TurnEnd {
        let lang = turn.scope.lang;
        let request = turn.messages.iter().rev().find(|m| m.role == Role::User).map(|m| m.text().to_owned());
        let text = lang.texts().turn.group_handoff;
        // Keep only the shopper's message and this answer in the group's memory.
        while turn.messages.last().is_some_and(|m| m.role != Role::User) {
            turn.messages.pop();
        }
        turn.messages.push(ChatMessage::assistant(text));
        TurnEnd::Stopped(Reply {
            text: text.to_owned(),
            open_private: Some(request.unwrap_or_default()),
            ..Default::default()
        })
    }
}

/// Whether a search found nothing (`total` 0): what shoppers want that the mall lacks.
/// The shopper's question as the report keeps an unanswered one: their words, and the
/// names the bot offered instead (`优衣裤在哪 → did you mean 优衣库 (Uniqlo)?`).
fn unanswered(turn: &Turn, closest: Option<&str>) -> String {
    let question =
        turn.messages.iter().rev().find(|m| m.role == Role::User).map(|m| m.text()).unwrap_or_default();
    match closest.filter(|c| !c.is_empty()) {
        Some(names) => format!("{} → did you mean {names}?", question.trim()),
        None => question.trim().to_owned(),
    }
}

/// The close names a "not found" error offers (`…; the closest names are A (a), B (b); …`).
fn did_you_mean(error: &str) -> Option<String> {
    let (_, rest) = error.split_once("the closest names are ")?;
    Some(rest.split(';').next().unwrap_or_default().trim().to_owned())
}

/// The close names of a result that found no store by the name asked for (`closest`).
fn closest_names(data: &Value) -> Option<String> {
    let names: Vec<&str> = data["closest"].as_array()?.iter().filter_map(|s| s["name"].as_str()).collect();
    Some(names.join(", "))
}

fn found_nothing(tool: &str, data: &serde_json::Value) -> bool {
    tool.starts_with("search_") && data["total"].as_u64() == Some(0)
}

/// Keeps the suggestion buttons and the picture a tool offered.
fn keep_extras(turn: &mut Turn, out: &ToolOutput) {
    if !out.suggestions.is_empty() {
        turn.suggestions = out.suggestions.clone();
    }
    if out.image.is_some() {
        turn.image = out.image.clone();
    }
    if !out.pictures.is_empty() {
        turn.pictures = out.pictures.clone();
    }
    let payable = crate::engine::reply::payable_orders(&out.data);
    if !payable.is_empty() {
        turn.payable = payable;
    }
    if let Some(store) = crate::engine::reply::map_store(&out.data) {
        turn.map_store = Some(store);
    }
}
