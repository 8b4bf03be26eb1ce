//! Button presses: checking who pressed and when, claiming the pending action
//! exactly once, re-checking orders, running the confirmed tool, and resuming
//! the tool loop where it stopped.

use std::time::Duration;

use handlers::{Approval, Lang, Level, Preview, Texts, ToolError, ToolOutput};
use serde_json::Value;
use tracing::Instrument;

use super::round::Question;
use super::turn::{Turn, TurnEnd, TurnScope};
use super::{FunctionCallRouter, calls, confirmation_text};
use crate::context::MessageContext;
use crate::llm::ChatMessage;
use crate::pending::{Claim, PendingAction, new_code, new_token};
use crate::progress::Progress;
use crate::reply::{ConfirmationPress, ConfirmationPrompt, PressCheck, Reply};
use crate::state::{AuditEntry, ClaimOutcome, PendingStatus, StoredPending, unix_now};
use crate::tools::Tool;

/// How long a press owns an action before another press may take it over
/// (the mall's idempotency key keeps the action from running twice).
const CLAIM_LEASE: Duration = Duration::from_secs(60);

/// An alert for a press whose shopper's language is not known (the action
/// could not be read): the line of the Chinese and the English tables.
fn in_any_language(line: fn(&Texts) -> &'static str) -> String {
    format!("{} / {}", line(Lang::Zh.texts()), line(Lang::En.texts()))
}

impl FunctionCallRouter {
    /// What a risky call would do, in the shopper's language: the text of
    /// the confirmation (the Telegram button's message, an MCP client's
    /// elicitation) and the figures a critical call is re-checked against.
    pub async fn preview(&self, tool: &Tool, scope: &TurnScope, args: &Value) -> Result<Preview, ToolError> {
        let ctx = self.tool_context(scope, None);
        match tool.spec().and_then(|spec| spec.preview) {
            Some(preview) => {
                match tokio::time::timeout(self.settings.tool_timeout, preview(ctx, args.clone())).await {
                    Ok(result) => result,
                    Err(_) => Err(ToolError::Timeout(self.settings.tool_timeout.as_secs())),
                }
            }
            None => Ok(Preview {
                summary: format!("{}{} {}", scope.lang.texts().confirm.run, tool.name(), args),
                fingerprint: args.clone(),
            }),
        }
    }

    /// Stores the loop as a pending action and asks the shopper.
    pub(super) async fn ask(&self, turn: &mut Turn, question: Question, preview: Preview) -> TurnEnd {
        let lang = turn.scope.lang;
        let token = new_token();
        let Question { assistant, results, index, args, level } = question;
        let code = (level == Level::Critical && self.settings.critical_code).then(new_code);
        let action = PendingAction {
            platform: turn.scope.platform.clone(),
            user_id: turn.scope.user_id,
            chat_id: turn.scope.chat_id,
            is_group: turn.scope.is_group,
            lang,
            call: assistant.tool_calls[index].clone(),
            assistant,
            results,
            arguments: args,
            level,
            preview: preview.clone(),
            code,
            rounds_used: turn.rounds_used,
            basic_mode: turn.basic_mode,
            outcome: None,
            trace: crate::otel::current_traceparent(),
        };
        let text = confirmation_text(lang, level, &preview.summary);
        // The assistant turn waits in the pending action; the history keeps the
        // question so the conversation reads naturally until the press.
        turn.messages.pop();
        turn.messages.push(ChatMessage::assistant(text.clone()));
        if let Err(e) = self.store_pending(&token, &action).await {
            tracing::error!(error = %e, "could not store the pending action");
            self.stats.record_error("state store: could not store a confirmation");
            return TurnEnd::Unsaved(Reply::text(lang.texts().confirm.cannot_hold));
        }
        tracing::info!(token = %token, tool = %action.call.name, level = level.as_str(), "confirmation asked");
        // In the trace: the turn waits for a press from here on.
        tracing::event!(
            target: "otel",
            tracing::Level::INFO,
            gen_ai.tool.name = %action.call.name,
            gen_ai.tool.call.id = %action.call.id,
            mallbot.tool.level = level.as_str(),
            "mallbot.confirmation.asked"
        );
        metrics::counter!(crate::ops::CONFIRMATIONS, "event" => "shown").increment(1);
        TurnEnd::Stopped(Reply {
            text,
            confirmation: Some(ConfirmationPrompt {
                token,
                level,
                summary: preview.summary,
                needs_code: action.code.is_some(),
            }),
            ..Default::default()
        })
    }

    async fn store_pending(
        &self,
        token: &str,
        action: &PendingAction,
    ) -> Result<(), crate::state::StateError> {
        let payload =
            serde_json::to_string(action).map_err(|e| crate::state::StateError::Corrupt(e.to_string()))?;
        let stored = StoredPending {
            token: token.to_owned(),
            user_id: action.user_id,
            chat_id: action.chat_id,
            tool: action.call.name.clone(),
            payload,
            expires_at: unix_now() + self.settings.confirm_ttl.as_secs() as i64,
            status: PendingStatus::Waiting,
            claimed_until: 0,
        };
        self.state.put_pending(&stored).await
    }

    /// Checks a press and claims the action; quick, so transports can answer
    /// the button at once and then call [`FunctionCallRouter::finish`].
    pub async fn press(&self, press: &ConfirmationPress) -> PressCheck {
        let stored = match self.state.get_pending(&press.token).await {
            Ok(Some(stored)) => stored,
            Ok(None) => return PressCheck::Expired { alert: in_any_language(|t| t.confirm.expired) },
            Err(e) => {
                tracing::error!(error = %e, "could not read a pending action");
                self.stats.record_error("state store: could not read a confirmation");
                return PressCheck::Failed { alert: in_any_language(|t| t.confirm.press_again) };
            }
        };
        let action = match decode(&stored) {
            Some(action) => action,
            None => return PressCheck::Expired { alert: in_any_language(|t| t.confirm.expired) },
        };
        let lang = action.lang;
        if stored.user_id != press.user_id {
            tracing::info!(token = %stored.token, presser = press.user_id, "press by someone else");
            return PressCheck::NotYours { alert: lang.texts().confirm.not_yours.to_owned() };
        }
        let now = unix_now();
        if stored.status == PendingStatus::Done {
            return already_done(lang, action.outcome.as_deref());
        }
        if stored.expires_at <= now {
            metrics::counter!(crate::ops::CONFIRMATIONS, "event" => "expired").increment(1);
            return PressCheck::Expired { alert: lang.texts().confirm.expired.to_owned() };
        }
        if press.approve
            && stored.status == PendingStatus::Waiting
            && let Some(code) = &action.code
        {
            if let Err(e) = self.state.set_pending_status(&stored.token, PendingStatus::AwaitingCode).await {
                tracing::error!(error = %e, "could not mark the action as awaiting its code");
            }
            return PressCheck::CodeRequired { message: code_request(lang, code) };
        }
        if press.approve
            && stored.status == PendingStatus::AwaitingCode
            && let Some(code) = &action.code
        {
            return PressCheck::CodeRequired { message: code_request(lang, code) };
        }
        self.claim(&stored.token, action, press.approve).await
    }

    async fn claim(&self, token: &str, action: PendingAction, approve: bool) -> PressCheck {
        let lang = action.lang;
        match self.state.claim_pending(token, CLAIM_LEASE).await {
            Ok(ClaimOutcome::Claimed(stored)) => {
                let outcome = if approve {
                    format!("✅ {}{}", lang.texts().confirm.confirmed, action.preview.summary)
                } else {
                    format!("❎ {}{}", lang.texts().confirm.cancelled, action.preview.summary)
                };
                PressCheck::Accepted { claim: Box::new(Claim { stored, action, approve }), outcome }
            }
            Ok(ClaimOutcome::InProgress) => {
                PressCheck::AlreadyDone { alert: lang.texts().confirm.in_progress.to_owned() }
            }
            Ok(ClaimOutcome::AlreadyDone) => {
                let outcome = match self.state.get_pending(token).await {
                    Ok(Some(stored)) => decode(&stored).and_then(|a| a.outcome),
                    _ => None,
                };
                already_done(lang, outcome.as_deref())
            }
            Ok(ClaimOutcome::Expired) => {
                metrics::counter!(crate::ops::CONFIRMATIONS, "event" => "expired").increment(1);
                PressCheck::Expired { alert: lang.texts().confirm.expired.to_owned() }
            }
            Err(e) => {
                tracing::error!(error = %e, "could not claim a pending action");
                self.stats.record_error("state store: could not claim a confirmation");
                PressCheck::Failed { alert: lang.texts().confirm.press_again.to_owned() }
            }
        }
    }

    /// Runs (or declines) a claimed action and resumes the tool loop; the
    /// reply is the model's follow-up, or a new confirmation when an order's
    /// price or stock changed.
    pub async fn finish(&self, claim: Box<Claim>) -> Reply {
        self.finish_live(claim, &Progress::none()).await
    }

    /// [`FunctionCallRouter::finish`], reporting the resumed loop's progress.
    pub async fn finish_live(&self, claim: Box<Claim>, progress: &Progress) -> Reply {
        let turn = crate::stats::new_turn_id();
        let span = tracing::info_span!(
            "confirmation",
            turn = %turn,
            token = %claim.stored.token,
            tool = %claim.action.call.name,
            approve = claim.approve
        );
        let conversation = claim.action.conversation_key();
        // The trace of the turn that asked goes on with the press.
        let agent = crate::otel::resumed_turn_span(
            &claim.action.platform,
            claim.action.chat_id,
            &turn,
            claim.action.trace.as_deref(),
        );
        agent.in_scope(|| {
            tracing::event!(
                target: "otel",
                tracing::Level::INFO,
                gen_ai.tool.name = %claim.action.call.name,
                gen_ai.tool.call.id = %claim.action.call.id,
                mallbot.confirmation.approved = claim.approve,
                "mallbot.confirmation.pressed"
            )
        });
        let answered = agent.clone();
        let trace = crate::otel::traceparent_of(&agent);
        let reply_trace = trace.clone();
        let finishing = async move {
            let reply = self.locked(&conversation, Box::pin(self.finish_claim(claim, progress))).await;
            crate::otel::record_answer(&answered, &reply.text);
            Reply { trace: reply_trace, ..reply }
        }
        .instrument(span)
        .instrument(agent);
        crate::stats::TURN.scope(turn, crate::otel::in_trace(trace, finishing)).await
    }

    async fn finish_claim(&self, claim: Box<Claim>, progress: &Progress) -> Reply {
        let Claim { mut stored, mut action, approve } = *claim;
        let scope = TurnScope::of_action(&action);
        let (result_text, decision) = if approve {
            match self.execute(&stored, &action, &scope).await {
                Execution::Done(text, decision) => (text, decision),
                Execution::Reconfirm(preview) => return self.reconfirm(&stored, action, preview).await,
            }
        } else {
            (calls::DECLINED.to_owned(), "declined".to_owned())
        };
        // What was done stays with the action, so a later press of the same
        // button says what happened (with the order's id) instead of guessing.
        action.outcome = Some(outcome_line(action.lang, approve, &action.preview.summary, &result_text));
        stored.status = PendingStatus::Done;
        match serde_json::to_string(&action) {
            Ok(payload) => stored.payload = payload,
            Err(e) => tracing::error!(error = %e, "could not keep the action's outcome"),
        }
        if let Err(e) = self.state.put_pending(&stored).await {
            tracing::error!(error = %e, "could not mark the action done");
        }
        let entry = AuditEntry {
            at: unix_now(),
            user_id: action.user_id,
            chat_id: action.chat_id,
            tool: action.call.name.clone(),
            arguments: action.arguments.to_string(),
            decision,
            result: result_text.chars().take(500).collect(),
        };
        if let Err(e) = self.state.audit(&entry).await {
            tracing::error!(error = %e, "could not write the audit log");
        }
        if entry.decision == "approved" {
            let (day, field) =
                (super::turn::day_key(super::turn::today()), format!("confirmed:{}", entry.tool));
            let keep = Duration::from_secs(3 * 24 * 3600);
            if let Err(e) = self.state.add_counts(&[(&day, &field, 1)], keep).await {
                tracing::warn!(error = %e, "could not count the confirmed action");
            }
        }
        tracing::info!(token = %stored.token, tool = %entry.tool, decision = %entry.decision, "confirmation resolved");
        let event = match entry.decision.as_str() {
            "approved" => "approved",
            "declined" => "declined",
            _ => "failed",
        };
        metrics::counter!(crate::ops::CONFIRMATIONS, "event" => event).increment(1);
        let placed = (event == "approved" && entry.tool == "create_order")
            .then(|| placed_order(&result_text))
            .flatten();
        if placed.is_some() {
            metrics::counter!(crate::ops::ORDERS).increment(1);
        }
        let lang = action.lang;
        let mut reply = self.resume(scope, action, result_text, progress).await;
        if let Some(order_id) = placed {
            // How the order is paid, as the bot is set up, whatever the model wrote.
            let pay = &lang.texts().pay;
            let how = if self.settings.payments_online {
                (pay.pay_in_chat)(self.settings.order_ttl_mins)
            } else {
                pay.pay_at_store.to_owned()
            };
            reply.text = format!("{}\n\n{how}", reply.text.trim_end());
            reply.invoice = Some(order_id);
            reply.payable.clear();
        }
        reply
    }

    /// Continues the loop of `action` with the waiting call answered.
    async fn resume(
        &self,
        scope: TurnScope,
        action: PendingAction,
        result_text: String,
        progress: &Progress,
    ) -> Reply {
        let mut messages = match self.state.load_history(&scope.conversation()).await {
            Ok(history) => history,
            Err(e) => {
                tracing::error!(error = %e, "could not load the conversation to resume");
                Vec::new()
            }
        };
        messages.push(action.assistant.clone());
        for (call, result) in action.assistant.tool_calls.iter().zip(&action.results) {
            let text = result.clone().unwrap_or_else(|| result_text.clone());
            messages.push(ChatMessage::tool(call.id.clone(), text));
        }
        let mut turn = Turn::new(scope, messages);
        turn.rounds_used = action.rounds_used;
        turn.basic_mode = action.basic_mode;
        turn.tools_ran = true;
        let (turn, end) = self.tool_loop(turn, progress).await;
        self.close_turn(turn, end, "").await
    }

    async fn execute(&self, stored: &StoredPending, action: &PendingAction, scope: &TurnScope) -> Execution {
        let Some(tool) = self.find_tool(&action.call.name) else {
            let text = format!("Error: the tool `{}` is no longer available.", action.call.name);
            return Execution::Done(text, "failed: unknown tool".to_owned());
        };
        let approved = ApprovedCall {
            tool: &tool,
            call: &action.call,
            args: &action.arguments,
            level: action.level,
            preview: &action.preview,
            token: &stored.token,
        };
        match self.run_approved(scope, approved).await {
            Approved::Changed(fresh) => Execution::Reconfirm(fresh),
            Approved::Ran(result) => {
                let decision = match &result {
                    Ok(_) => "approved".to_owned(),
                    Err(e) => format!("failed: {e}"),
                };
                Execution::Done(calls::result_text(&result), decision)
            }
        }
    }

    /// Runs a call the shopper approved, whether by a button press or in an
    /// MCP client's elicitation: a critical call's figures are checked again
    /// first (changed → [`Approved::Changed`], ask again), and the tool gets
    /// the idempotency key derived from `token`, so a repeat of the same
    /// approval never acts twice.
    pub async fn run_approved(&self, scope: &TurnScope, approved: ApprovedCall<'_>) -> Approved {
        let ApprovedCall { tool, call, args, level, preview, token } = approved;
        if level == Level::Critical {
            match self.preview(tool, scope, args).await {
                Ok(fresh) if fresh.fingerprint != preview.fingerprint => {
                    tracing::info!("order changed since it was shown; asking again");
                    return Approved::Changed(fresh);
                }
                Ok(_) => {}
                Err(e) => return Approved::Ran(Err(e)),
            }
        }
        let approval =
            Approval { idempotency_key: PendingAction::idempotency_key(token), preview: preview.clone() };
        let ctx = self.tool_context(scope, Some(approval));
        let result = calls::run_tool(tool, call, level, ctx, args.clone(), self.settings.tool_timeout).await;
        if let Err(ToolError::Refused { code: "PRICE_CHANGED", .. }) = &result
            && let Ok(fresh) = self.preview(tool, scope, args).await
        {
            return Approved::Changed(fresh);
        }
        Approved::Ran(result)
    }

    /// Writes the audit entry of a confirmation outside a chat (an MCP
    /// client's elicitation), as a button press does.
    pub async fn audit_decision(
        &self,
        scope: &TurnScope,
        tool: &str,
        args: &Value,
        decision: &str,
        result: &str,
    ) {
        let entry = AuditEntry {
            at: unix_now(),
            user_id: scope.user_id,
            chat_id: scope.chat_id,
            tool: tool.to_owned(),
            arguments: args.to_string(),
            decision: decision.to_owned(),
            result: result.chars().take(500).collect(),
        };
        if let Err(e) = self.state.audit(&entry).await {
            tracing::error!(error = %e, "could not write the audit log");
        }
        let event = match decision {
            "approved" => "approved",
            "declined" => "declined",
            _ => "failed",
        };
        metrics::counter!(crate::ops::CONFIRMATIONS, "event" => event).increment(1);
    }

    /// Replaces a pending order whose figures changed with a new confirmation.
    async fn reconfirm(&self, stored: &StoredPending, action: PendingAction, preview: Preview) -> Reply {
        let lang = action.lang;
        if let Err(e) = self.state.set_pending_status(&stored.token, PendingStatus::Done).await {
            tracing::error!(error = %e, "could not retire the old confirmation");
        }
        let token = new_token();
        let level = action.level;
        let needs_code = action.code.is_some();
        let action = PendingAction { preview: preview.clone(), ..action };
        if let Err(e) = self.store_pending(&token, &action).await {
            tracing::error!(error = %e, "could not store the new confirmation");
            return Reply::text(lang.texts().confirm.order_changed_unsaved);
        }
        let text = format!(
            "{}\n{}",
            lang.texts().confirm.order_changed,
            confirmation_text(lang, level, &preview.summary)
        );
        Reply {
            text,
            confirmation: Some(ConfirmationPrompt { token, level, summary: preview.summary, needs_code }),
            ..Default::default()
        }
    }

    /// A typed one-time code for an order waiting for it.
    pub(super) async fn try_code(&self, ctx: &MessageContext) -> Option<Reply> {
        if !self.settings.critical_code {
            return None;
        }
        let waiting =
            match self.state.pending_for(ctx.chat_id, ctx.user_id, PendingStatus::AwaitingCode).await {
                Ok(waiting) => waiting,
                Err(e) => {
                    tracing::warn!(error = %e, "could not look up actions awaiting a code");
                    return None;
                }
            };
        let typed = ctx.text.trim();
        let looks_like_code = typed.len() == 6 && typed.chars().all(|c| c.is_ascii_digit());
        for stored in &waiting {
            let Some(action) = decode(stored) else { continue };
            if action.code.as_deref() == Some(typed) {
                return Some(match self.claim(&stored.token, action, true).await {
                    PressCheck::Accepted { claim, outcome } => {
                        // Boxed: a rare path that would otherwise size every message's future.
                        let follow_up = Box::pin(self.finish_claim(claim, &Progress::none())).await;
                        Reply { text: format!("{outcome}\n\n{}", follow_up.text), ..follow_up }
                    }
                    PressCheck::AlreadyDone { alert }
                    | PressCheck::Expired { alert }
                    | PressCheck::NotYours { alert }
                    | PressCheck::Failed { alert } => Reply::text(alert),
                    PressCheck::CodeRequired { message } => Reply::text(message),
                });
            }
        }
        (looks_like_code && !waiting.is_empty()).then(|| Reply::text(ctx.lang.texts().confirm.wrong_code))
    }
}

/// The id of the unpaid order a `create_order` result names.
fn placed_order(result_text: &str) -> Option<String> {
    let value: Value = serde_json::from_str(result_text).ok()?;
    crate::reply::payable_orders(&value).into_iter().next()
}

/// A call approved by the person it acts for, ready to run.
pub struct ApprovedCall<'a> {
    pub tool: &'a Tool,
    /// The call as the model (or the MCP client) made it.
    pub call: &'a crate::llm::ToolCall,
    pub args: &'a Value,
    /// Its level after overrides.
    pub level: Level,
    /// What the person was shown and agreed to.
    pub preview: &'a Preview,
    /// The confirmation's token: the idempotency key is derived from it.
    pub token: &'a str,
}

/// What came of an approved call.
pub enum Approved {
    /// It ran (or failed).
    Ran(Result<ToolOutput, ToolError>),
    /// A critical call's figures changed since they were shown: ask again with these.
    Changed(Preview),
}

enum Execution {
    /// The tool ran (or failed): the tool message text and the audit decision.
    Done(String, String),
    /// The order changed: ask again with these figures.
    Reconfirm(Preview),
}

fn decode(stored: &StoredPending) -> Option<PendingAction> {
    match serde_json::from_str(&stored.payload) {
        Ok(action) => Some(action),
        Err(e) => {
            tracing::error!(token = %stored.token, error = %e, "unreadable pending action");
            None
        }
    }
}

fn already_done(lang: Lang, outcome: Option<&str>) -> PressCheck {
    let alert = match outcome {
        Some(outcome) => format!("{}{outcome}", lang.texts().confirm.already_done_as),
        None => lang.texts().confirm.already_done.to_owned(),
    };
    PressCheck::AlreadyDone { alert }
}

/// The short line kept with a finished action: what was done, with the
/// order's id when the mall gave one.
fn outcome_line(lang: Lang, approved: bool, summary: &str, result_text: &str) -> String {
    if !approved {
        return lang.texts().confirm.outcome_cancelled.to_owned();
    }
    let result: Option<Value> = serde_json::from_str(result_text).ok();
    let order_id = result.as_ref().and_then(find_order_id);
    match order_id {
        Some(id) => format!("{}{id}", lang.texts().confirm.outcome_order),
        None if result_text.starts_with("Error") => lang.texts().confirm.outcome_failed.to_owned(),
        None => summary.lines().next().unwrap_or(summary).to_owned(),
    }
}

fn find_order_id(value: &Value) -> Option<String> {
    match value {
        Value::Object(map) => map
            .get("order_id")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| map.values().find_map(find_order_id)),
        Value::Array(items) => items.iter().find_map(find_order_id),
        _ => None,
    }
}

fn code_request(lang: Lang, code: &str) -> String {
    (lang.texts().confirm.code_request)(code)
}
