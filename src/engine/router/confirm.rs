//! The one confirmation service, for every way in (a chat's buttons, the
//! Mini App, an MCP client's elicitation):
//!
//! - **hold** a risky call as a pending action in the state store: its
//!   arguments only as the tool's schema declares them, bounded in size
//!   ([`crate::engine::pending::MAX_ARGUMENTS`]); an order needing the one-time code
//!   (`safety.critical_code`) is held only where the code can be typed (the
//!   chat) and refused elsewhere, saying so;
//! - **press**: the owner is checked before anything is taken, then the
//!   expiry, the code, and only then is the action claimed, once;
//! - **carry out**: a critical call's figures are checked again (changed →
//!   held again under a new token), the tool runs with the idempotency key
//!   derived from the token, and every decision writes its audit row.
//!
//! A chat's press then resumes the tool loop where it stopped: the one way
//! back into the loop is `FunctionCallRouter::finish_claim` (`stages.rs`),
//! which carries the action out here and hands its result to the turn.
//!
//! A pending action is bound to its owner's platform and id and expires after
//! `safety.confirm_ttl_secs`; the whole action is at most
//! `crate::engine::pending::MAX_PENDING`. A claim is a lease of 60 s in the
//! state store (`claim_pending`, atomic on every backend), and the
//! idempotency key is `mallbot-pa-<token>`, so a double press, a retried
//! request or two instances acting on one confirmation create one order. With
//! `safety.critical_code` a chat's press on an order answers "type the code"
//! and the typed code ([`Confirmations::code_typed`], asked before the
//! turn opens) carries it out. A declined press tells the model the call was
//! declined; an order whose figures changed (`PRICE_CHANGED` from the mall,
//! or a different preview) is held again and asked again.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use handlers::{Approval, Lang, Level, Preview, Texts, ToolError, ToolOutput};
use serde_json::Value;

use super::access::Admitted;
use super::calls;
use super::scope::{TurnScope, today};
use super::toolbox::Toolbox;
use crate::engine::context::MessageContext;
use crate::engine::llm::ChatMessage;
use crate::engine::pending::{Claim, MAX_ARGUMENTS, MAX_PENDING, PendingAction, new_code, new_token};
use crate::engine::reply::{ConfirmationPrompt, PressCheck, Reply};
use crate::engine::stats::Stats;
use crate::engine::tools::Tool;
use crate::infra::state::{
    AuditEntry, ClaimOutcome, PendingStatus, StateError, StateStore, StoredPending, unix_now,
};

/// How long a press owns an action before another press may take it over
/// (the mall's idempotency key keeps the action from running twice).
const CLAIM_LEASE: Duration = Duration::from_secs(60);

/// An alert for a press whose shopper's language is not known (the action
/// could not be read): the line of the Chinese and the English tables.
fn in_any_language(line: fn(&Texts) -> &'static str) -> String {
    format!("{} / {}", line(Lang::Zh.texts()), line(Lang::En.texts()))
}

/// The confirmation service's settings (`[safety]`, `[tools.NAME]`, `[payments]`).
#[derive(Debug, Clone)]
pub struct ConfirmSettings {
    /// How long a confirmation button stays valid (`safety.confirm_ttl_secs`).
    pub(crate) confirm_ttl: Duration,
    /// Critical actions need a typed one-time code (`safety.critical_code`).
    pub(crate) critical_code: bool,
    /// Per-tool level overrides (`[tools.NAME] level`): which calls are
    /// held for a confirmation (the [`Toolbox`] applies them).
    pub(crate) levels: HashMap<String, Level>,
    /// Orders are paid in chat (`payments.provider_token` is set); else at the store.
    pub(crate) payments_online: bool,
    /// Minutes an unpaid order lasts (`payments.order_ttl_mins`).
    pub(crate) order_ttl_mins: u64,
}

impl Default for ConfirmSettings {
    fn default() -> Self {
        ConfirmSettings {
            confirm_ttl: Duration::from_secs(300),
            critical_code: false,
            levels: HashMap::new(),
            payments_online: false,
            order_ttl_mins: 30,
        }
    }
}

/// The one confirmation service: hold, press, carry out.
pub(crate) struct Confirmations {
    state: Arc<dyn StateStore>,
    stats: Arc<Stats>,
    tools: Arc<Toolbox>,
    settings: ConfirmSettings,
}

/// A risky call of the tool loop waiting for the shopper, with the rest of its round.
pub(super) struct Question {
    /// The assistant message whose calls are being answered.
    pub(super) assistant: ChatMessage,
    /// Tool message text per call, in call order; `None` for the waiting call.
    pub(super) results: Vec<Option<String>>,
    /// Index of the waiting call in `assistant.tool_calls`.
    pub(super) index: usize,
    pub(super) args: Value,
    pub(super) level: Level,
    /// Model rounds the turn had used, and whether it was in basic mode:
    /// the resumed loop goes on from there.
    pub(super) rounds_used: u32,
    pub(super) basic_mode: bool,
}

/// What a typed one-time code came to.
pub(crate) enum CodeTyped {
    /// The code of an order waiting for it: claimed, to be carried out; `outcome` says so.
    Accepted { claim: Box<Claim>, outcome: String },
    /// Anything else to tell (a wrong code, already done, expired…).
    Told(String),
}

impl Confirmations {
    pub(super) fn new(
        state: Arc<dyn StateStore>,
        stats: Arc<Stats>,
        tools: Arc<Toolbox>,
        settings: ConfirmSettings,
    ) -> Self {
        Confirmations { state, stats, tools, settings }
    }

    /// What a risky call would do, in the shopper's language: the text of
    /// the confirmation (the Telegram button's message, an MCP client's
    /// elicitation) and the figures a critical call is re-checked against.
    pub(super) async fn preview(
        &self,
        tool: &Tool,
        scope: &TurnScope,
        args: &Value,
    ) -> Result<Preview, ToolError> {
        let ctx = self.tools.context(scope, None);
        match tool.spec().and_then(|spec| spec.preview) {
            Some(preview) => match tokio::time::timeout(self.tools.timeout, preview(ctx, args.clone())).await
            {
                Ok(result) => result,
                Err(_) => Err(ToolError::Timeout(self.tools.timeout.as_secs())),
            },
            None => Ok(Preview {
                summary: format!("{}{} {}", scope.lang.texts().confirm.run, tool.name(), args),
                fingerprint: args.clone(),
            }),
        }
    }

    /// Stores a chat's tool loop as a pending action and asks the shopper:
    /// the reply with the Confirm / Cancel buttons, or (`Err`) the reply
    /// saying it could not be kept.
    pub(super) async fn ask(
        &self,
        scope: &TurnScope,
        question: Question,
        preview: Preview,
    ) -> Result<Reply, Reply> {
        let lang = scope.lang;
        let token = new_token();
        let Question { assistant, results, index, args, level, rounds_used, basic_mode } = question;
        let args = match self.tools.find(&assistant.tool_calls[index].name) {
            Some(tool) => handlers::schema::keep_declared(tool.parameters(), args),
            None => args,
        };
        let code = (level == Level::Critical && self.settings.critical_code).then(new_code);
        let action = PendingAction {
            platform: scope.platform.clone(),
            user_id: scope.user_id,
            chat_id: scope.chat_id,
            is_group: scope.is_group,
            lang,
            call: assistant.tool_calls[index].clone(),
            assistant: Some(assistant),
            results,
            arguments: args,
            level,
            preview: preview.clone(),
            code,
            rounds_used,
            basic_mode,
            outcome: None,
            trace: crate::infra::otel::current_traceparent(),
        };
        let text = confirmation_text(lang, level, &preview.summary);
        if let Err(e) = self.store_pending(&token, &action).await {
            tracing::error!(error = %e, "could not store the pending action");
            self.stats.record_error("state store: could not store a confirmation");
            return Err(Reply::text(lang.texts().confirm.cannot_hold));
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
        metrics::counter!(crate::infra::ops::CONFIRMATIONS, "event" => "shown").increment(1);
        Ok(Reply {
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

    async fn store_pending(&self, token: &str, action: &PendingAction) -> Result<(), StateError> {
        let payload = serde_json::to_string(action).map_err(|e| StateError::Corrupt(e.to_string()))?;
        let arguments = action.arguments.to_string().len();
        if arguments > MAX_ARGUMENTS || payload.len() > MAX_PENDING {
            tracing::warn!(arguments, payload = payload.len(), "a pending action too large to keep");
            return Err(StateError::Corrupt(format!(
                "a pending action of {} bytes (arguments {arguments}) is over the limit",
                payload.len()
            )));
        }
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

    /// Holds a risky call asked for directly — a Mini App change, an MCP
    /// client's call — until its owner confirms it with the token. Only the
    /// fields the tool declares are kept, at most [`MAX_ARGUMENTS`] bytes of
    /// them; an order needing the one-time code is refused here (these ways
    /// in cannot ask for it), to be placed in the chat.
    pub(super) async fn hold(
        &self,
        admitted: &Admitted,
        tool: &Tool,
        args: Value,
    ) -> Result<Hold, HoldError> {
        let level = self.tools.level_of(tool);
        let args = match args {
            Value::Null => Value::Object(serde_json::Map::new()),
            Value::Object(map) => handlers::schema::keep_declared(tool.parameters(), Value::Object(map)),
            _ => {
                return Err(HoldError::Invalid(ToolError::InvalidArguments {
                    field: None,
                    message: "the arguments must be a JSON object".to_owned(),
                }));
            }
        };
        if args.to_string().len() > MAX_ARGUMENTS {
            tracing::info!(tool = tool.name(), "arguments too large to hold; refused");
            return Err(HoldError::TooLarge);
        }
        if level == Level::Critical && self.settings.critical_code {
            tracing::info!(
                tool = tool.name(),
                "needs the one-time code, which only the chat can ask; refused"
            );
            return Err(HoldError::CodeInChat);
        }
        let scope = TurnScope::admitted(admitted);
        let preview = self.preview(tool, &scope, &args).await.map_err(HoldError::Tool)?;
        let token = new_token();
        let call = crate::engine::llm::ToolCall {
            id: format!("direct-{token}"),
            name: tool.name().to_owned(),
            arguments: args.to_string(),
        };
        let action = PendingAction {
            platform: admitted.platform().to_owned(),
            user_id: admitted.user_id(),
            chat_id: admitted.chat_id(),
            is_group: false,
            lang: admitted.lang(),
            assistant: None,
            results: Vec::new(),
            call,
            arguments: args,
            level,
            preview: preview.clone(),
            code: None,
            rounds_used: 0,
            basic_mode: false,
            outcome: None,
            trace: crate::infra::otel::current_traceparent(),
        };
        if let Err(e) = self.store_pending(&token, &action).await {
            tracing::error!(error = %e, "could not store the pending action");
            self.stats.record_error("state store: could not store a confirmation");
            return Err(HoldError::Store);
        }
        tracing::info!(token = %token, tool = %action.call.name, level = level.as_str(), "confirmation asked");
        metrics::counter!(crate::infra::ops::CONFIRMATIONS, "event" => "shown").increment(1);
        Ok(Hold { token, level, summary: preview.summary })
    }

    /// The platform of the person a pending action is for (the namespace a
    /// chat's press acts in), when the action can be read.
    pub(super) async fn owner_platform(&self, token: &str) -> Option<&'static str> {
        match self.state.get_pending(token).await {
            Ok(Some(stored)) => decode(&stored).map(|a| crate::engine::tools::intern(&a.platform)),
            _ => None,
        }
    }

    /// Checks a press and claims the action; quick, so transports can answer
    /// the button at once and then carry it out. The owner (person and
    /// platform) is checked before anything is taken, so someone else's
    /// press leaves the action to its owner.
    pub(super) async fn press_as(
        &self,
        admitted: &Admitted,
        token: &str,
        approve: bool,
        presser: Presser,
    ) -> PressCheck {
        let stored = match self.state.get_pending(token).await {
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
        if stored.user_id != admitted.user_id() || action.platform != admitted.platform() {
            tracing::info!(token = %stored.token, presser = admitted.user_id(), "press by someone else");
            return PressCheck::NotYours { alert: lang.texts().confirm.not_yours.to_owned() };
        }
        // A chat's question is answered in the chat: another way in does not know it.
        if presser != Presser::Chat && action.assistant.is_some() {
            return PressCheck::Expired { alert: lang.texts().confirm.expired.to_owned() };
        }
        let now = unix_now();
        if stored.status == PendingStatus::Done {
            return already_done(lang, action.outcome.as_deref());
        }
        if stored.expires_at <= now {
            metrics::counter!(crate::infra::ops::CONFIRMATIONS, "event" => "expired").increment(1);
            return PressCheck::Expired { alert: lang.texts().confirm.expired.to_owned() };
        }
        if press_needs_code(approve, &action) && presser != Presser::Chat {
            return PressCheck::CodeRequired { message: lang.texts().confirm.code_in_chat.to_owned() };
        }
        if approve
            && stored.status == PendingStatus::Waiting
            && let Some(code) = &action.code
        {
            if let Err(e) = self.state.set_pending_status(&stored.token, PendingStatus::AwaitingCode).await {
                tracing::error!(error = %e, "could not mark the action as awaiting its code");
            }
            return PressCheck::CodeRequired { message: code_request(lang, code) };
        }
        if approve
            && stored.status == PendingStatus::AwaitingCode
            && let Some(code) = &action.code
        {
            return PressCheck::CodeRequired { message: code_request(lang, code) };
        }
        self.claim(&stored.token, action, approve).await
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
                metrics::counter!(crate::infra::ops::CONFIRMATIONS, "event" => "expired").increment(1);
                PressCheck::Expired { alert: lang.texts().confirm.expired.to_owned() }
            }
            Err(e) => {
                tracing::error!(error = %e, "could not claim a pending action");
                self.stats.record_error("state store: could not claim a confirmation");
                PressCheck::Failed { alert: lang.texts().confirm.press_again.to_owned() }
            }
        }
    }

    /// A claimed action carried out (or declined): a critical call's figures
    /// checked again first — changed, it is held again under a new token —,
    /// the tool run with the token's idempotency key, the outcome kept with
    /// the action, the audit row written, the day's figures counted.
    pub(super) async fn carry_out(&self, claim: Box<Claim>) -> Carried {
        let Claim { mut stored, mut action, approve } = *claim;
        let scope = TurnScope::of_action(&action);
        let result = if approve {
            match self.execute(&stored, &action, &scope).await {
                Approved::Ran(result) => Some(result),
                Approved::Changed(fresh) => {
                    let held = self.hold_again(&stored, &action, fresh).await;
                    return Carried::Changed { action, held };
                }
            }
        } else {
            None
        };
        let (text, decision) = match &result {
            None => (calls::DECLINED.to_owned(), "declined".to_owned()),
            Some(result) => (
                calls::result_text(result),
                match result {
                    Ok(_) => "approved".to_owned(),
                    Err(e) => format!("failed: {e}"),
                },
            ),
        };
        // What was done stays with the action, so a later press of the same
        // button says what happened (with the order's id) instead of guessing.
        action.outcome = Some(outcome_line(action.lang, approve, &action.preview.summary, &text));
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
            result: text.chars().take(500).collect(),
        };
        if let Err(e) = self.state.audit(&entry).await {
            tracing::error!(error = %e, "could not write the audit log");
        }
        if entry.decision == "approved" {
            let (day, field) =
                (crate::infra::state::keys::stats(today()), format!("confirmed:{}", entry.tool));
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
        metrics::counter!(crate::infra::ops::CONFIRMATIONS, "event" => event).increment(1);
        if event == "approved" && entry.tool == "create_order" {
            metrics::counter!(crate::infra::ops::ORDERS).increment(1);
        }
        Carried::Done { action, approved: approve, result, text }
    }

    /// Whether orders and parking fees are paid in chat (`payments.provider_token`).
    pub(super) fn payments_online(&self) -> bool {
        self.settings.payments_online
    }

    /// How an order placed by a confirmed call is paid, as the bot is set
    /// up, whatever the model wrote; the reply's pay button is the order's.
    pub(super) fn told_how_to_pay(&self, mut reply: Reply, placed: Option<String>, lang: Lang) -> Reply {
        let Some(order_id) = placed else { return reply };
        let pay = &lang.texts().pay;
        let how = if self.settings.payments_online {
            (pay.pay_in_chat)(self.settings.order_ttl_mins)
        } else {
            pay.pay_at_store.to_owned()
        };
        reply.text = format!("{}\n\n{how}", reply.text.trim_end());
        reply.invoice = Some(order_id);
        reply.payable.clear();
        reply
    }

    async fn execute(&self, stored: &StoredPending, action: &PendingAction, scope: &TurnScope) -> Approved {
        let Some(tool) = self.tools.find(&action.call.name) else {
            let missing = format!("the tool `{}` is no longer available", action.call.name);
            return Approved::Ran(Err(ToolError::NotFound(missing)));
        };
        let approved = ApprovedCall {
            tool: &tool,
            call: &action.call,
            args: &action.arguments,
            level: action.level,
            preview: &action.preview,
            token: &stored.token,
        };
        self.run_approved(scope, approved).await
    }

    /// Runs a call its owner approved: a critical call's figures are checked
    /// again first (changed → [`Approved::Changed`], ask again), and the tool
    /// gets the idempotency key derived from `token`, so a repeat of the same
    /// approval never acts twice.
    async fn run_approved(&self, scope: &TurnScope, approved: ApprovedCall<'_>) -> Approved {
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
        let ctx = self.tools.context(scope, Some(approval));
        let result = calls::run_tool(tool, call, level, ctx, args.clone(), self.tools.timeout).await;
        if let Err(ToolError::Refused { code: "PRICE_CHANGED", .. }) = &result
            && let Ok(fresh) = self.preview(tool, scope, args).await
        {
            return Approved::Changed(fresh);
        }
        Approved::Ran(result)
    }

    /// Replaces a pending action whose figures changed with a new one under
    /// a new token, showing the new figures.
    async fn hold_again(
        &self,
        stored: &StoredPending,
        action: &PendingAction,
        preview: Preview,
    ) -> Result<Hold, HoldError> {
        if let Err(e) = self.state.set_pending_status(&stored.token, PendingStatus::Done).await {
            tracing::error!(error = %e, "could not retire the old confirmation");
        }
        let token = new_token();
        let fresh = PendingAction { preview: preview.clone(), ..action.clone() };
        if let Err(e) = self.store_pending(&token, &fresh).await {
            tracing::error!(error = %e, "could not store the new confirmation");
            return Err(HoldError::Store);
        }
        Ok(Hold { token, level: action.level, summary: preview.summary })
    }

    /// A typed one-time code for an order waiting for it; `None` when the
    /// message is no answer to one.
    pub(super) async fn code_typed(&self, admitted: &Admitted, ctx: &MessageContext) -> Option<CodeTyped> {
        if !self.settings.critical_code {
            return None;
        }
        let (chat, user) = (admitted.chat_id(), admitted.user_id());
        let waiting = match self.state.pending_for(chat, user, PendingStatus::AwaitingCode).await {
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
                    PressCheck::Accepted { claim, outcome } => CodeTyped::Accepted { claim, outcome },
                    PressCheck::AlreadyDone { alert }
                    | PressCheck::Expired { alert }
                    | PressCheck::NotYours { alert }
                    | PressCheck::Failed { alert } => CodeTyped::Told(alert),
                    PressCheck::CodeRequired { message } => CodeTyped::Told(message),
                });
            }
        }
        (looks_like_code && !waiting.is_empty())
            .then(|| CodeTyped::Told(ctx.lang.texts().confirm.wrong_code.to_owned()))
    }
}

/// The id of the unpaid order an approved `create_order` placed (its result names it).
pub(super) fn placed_order(action: &PendingAction, approved: bool, result_text: &str) -> Option<String> {
    if !approved || action.call.name != "create_order" {
        return None;
    }
    let value: Value = serde_json::from_str(result_text).ok()?;
    crate::engine::reply::payable_orders(&value).into_iter().next()
}

/// The message shown with the Confirm / Cancel buttons.
pub(crate) fn confirmation_text(lang: Lang, level: Level, summary: &str) -> String {
    let confirm = &lang.texts().confirm;
    match level {
        Level::Critical => (confirm.check_order)(summary),
        _ => (confirm.please_confirm)(summary),
    }
}

/// A call approved by the person it acts for, ready to run.
struct ApprovedCall<'a> {
    tool: &'a Tool,
    /// The call as the model (or the MCP client) made it.
    call: &'a crate::engine::llm::ToolCall,
    args: &'a Value,
    /// Its level after overrides.
    level: Level,
    /// What the person was shown and agreed to.
    preview: &'a Preview,
    /// The confirmation's token: the idempotency key is derived from it.
    token: &'a str,
}

/// What came of an approved call.
enum Approved {
    /// It ran (or failed).
    Ran(Result<ToolOutput, ToolError>),
    /// A critical call's figures changed since they were shown: ask again with these.
    Changed(Preview),
}

/// A chat's message asking the owner to confirm a call held with
/// [`FunctionCallRouter::hold`] (a button under an alert): the summary and
/// the Confirm / Cancel buttons.
pub(crate) fn held_reply(lang: Lang, hold: Hold) -> Reply {
    let text = confirmation_text(lang, hold.level, &hold.summary);
    Reply {
        text,
        confirmation: Some(ConfirmationPrompt {
            token: hold.token,
            level: hold.level,
            summary: hold.summary,
            needs_code: false,
        }),
        ..Default::default()
    }
}

/// A chat's answer when a call could not be held: why, in the owner's words.
pub(crate) fn hold_refused(lang: Lang, error: &HoldError) -> Reply {
    let answers = &lang.texts().answers;
    let text = match error {
        HoldError::Tool(ToolError::Refused { code: "OUT_OF_STOCK", .. }) => answers.no_stock,
        HoldError::Tool(ToolError::NotFound(_)) => answers.product_missing,
        HoldError::Tool(ToolError::Upstream(_) | ToolError::Timeout(_)) | HoldError::Store => {
            answers.mall_down
        }
        HoldError::TooLarge => lang.texts().confirm.too_large,
        HoldError::CodeInChat => lang.texts().confirm.code_in_chat,
        HoldError::Invalid(_) | HoldError::Tool(_) => answers.invalid,
    };
    Reply::text(text)
}

/// Who presses: only a chat can take the typed one-time code, and only a
/// chat knows the questions its tool loop asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Presser {
    /// A chat's button (Telegram, the terminal chat).
    Chat,
    /// The Mini App's page.
    Page,
    /// An MCP client's accepted elicitation.
    Client,
}

/// A risky call held for its owner's confirmation.
#[derive(Debug, Clone)]
pub(crate) struct Hold {
    /// The one-time token the owner confirms with.
    pub(crate) token: String,
    pub(crate) level: Level,
    /// What will happen, in the owner's language.
    pub(crate) summary: String,
}

/// Why a call could not be held.
#[derive(Debug)]
pub(crate) enum HoldError {
    /// The arguments are not a JSON object.
    Invalid(ToolError),
    /// The arguments are longer than [`MAX_ARGUMENTS`].
    TooLarge,
    /// An order needing the one-time code, asked for where none can be typed.
    CodeInChat,
    /// The tool's preview failed (bad arguments, the mall).
    Tool(ToolError),
    /// The state store could not keep it.
    Store,
}

/// What came of a claimed action.
pub(crate) enum Carried {
    /// Carried out (`result`) or declined (`None`); `text` is the tool
    /// message, the action holds its outcome line.
    Done {
        action: PendingAction,
        approved: bool,
        result: Option<Result<ToolOutput, ToolError>>,
        text: String,
    },
    /// A critical call's figures changed: held again (under a new token) to
    /// be confirmed with the new figures, or could not be.
    Changed { action: PendingAction, held: Result<Hold, HoldError> },
}

/// A chat's answer when an order changed before it ran: the new
/// confirmation, or that it could not be kept.
pub(super) fn changed_reply(action: &PendingAction, held: Result<Hold, HoldError>) -> Reply {
    let lang = action.lang;
    let Ok(Hold { token, level, summary }) = held else {
        return Reply::text(lang.texts().confirm.order_changed_unsaved);
    };
    let text =
        format!("{}\n{}", lang.texts().confirm.order_changed, confirmation_text(lang, level, &summary));
    Reply {
        text,
        confirmation: Some(ConfirmationPrompt { token, level, summary, needs_code: action.code.is_some() }),
        ..Default::default()
    }
}

/// A press that approves an action holding a one-time code.
fn press_needs_code(approve: bool, action: &PendingAction) -> bool {
    approve && action.code.is_some()
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

#[cfg(test)]
mod tests;
