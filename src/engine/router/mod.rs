//! [`FunctionCallRouter`]: turns a shopper's message into an answer. It offers
//! the registry's tools to the model, runs the calls it asks for (several at
//! once, results in call order), stops at risky calls to ask the shopper, and
//! hands small talk to the chat fallback.
//!
//! A message goes through the same stages every time, each one function:
//!
//! ```text
//! the door (access.rs: who, allow-lists, rate limit, language, budget, count)
//!          → conversation lock → one-time code → history
//!          → tool loop (round.rs: ask the model → plan the calls → run the safe
//!            ones | ask the shopper about a risky one → next round)
//!          → close the turn (turn.rs: answer, save the history, add the tokens)
//! ```
//!
//! Every transport knocks at the same door ([`FunctionCallRouter::admit`]);
//! what it lets in is an [`Admitted`], which every later stage takes. A
//! button press, a Mini App confirmation and an MCP client's accepted
//! elicitation go through the one confirmation service (`confirm.rs`); a
//! chat's press then resumes the tool loop where it stopped.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use handlers::{Lang, Level, Scope, ToolContext};
use services::MallApi;
use tracing::Instrument;

use crate::engine::context::{ChosenLang, MessageContext};

use crate::engine::fallback::ChatFallback;
use crate::engine::llm::ChatModel;
use crate::engine::llm::offline::OfflinePlanner;
use crate::engine::progress::Progress;
use crate::engine::reply::Reply;
use crate::engine::stats::Stats;
use crate::engine::tools::{RemoteTools, Tool};
use crate::infra::state::StateStore;

mod access;
mod cache;
pub(crate) mod calls;
mod confirm;
mod figures;
pub(crate) mod history;
mod lock;
pub(crate) mod prompt;
mod round;
mod shortcuts;
mod turn;

pub use self::access::{Knock, Way, Why};

pub use self::access::{Admitted, Turned};

/// How the router behaves; built from the config.
#[derive(Debug, Clone)]
pub struct RouterSettings {
    /// Model calls per shopper message (`llm.max_rounds`).
    pub max_rounds: u32,
    /// A tool's own words may end the turn (`llm.direct_answers`).
    pub direct_answers: bool,
    /// Time limit of one tool call (`llm.tool_timeout_secs`).
    pub tool_timeout: Duration,
    /// Messages remembered per conversation (`bot.history_messages`).
    pub history_messages: usize,
    /// Token budget of the remembered conversation (`bot.history_tokens`; 0 = none).
    pub history_tokens: usize,
    /// How long safe, shopper-independent tool results are reused (`bot.tool_cache_secs`).
    pub tool_cache_ttl: Duration,
    /// A silent conversation is forgotten after this long.
    pub history_ttl: Duration,
    /// How long a confirmation button stays valid (`safety.confirm_ttl_secs`).
    pub confirm_ttl: Duration,
    /// Critical actions need a typed one-time code (`safety.critical_code`).
    pub critical_code: bool,
    /// Per-tool level overrides (`[tools.NAME] level`).
    pub levels: HashMap<String, Level>,
    /// Messages per shopper per minute (`bot.rate_limit_per_minute`; 0 = no limit).
    pub rate_limit_per_minute: u32,
    /// Model tokens a shopper may use a day before basic mode (`bot.daily_tokens_per_user`; 0 = no limit).
    pub daily_tokens_per_user: u64,
    /// Users admitted (`bot.allowed_users`; empty with no chats listed = everyone).
    pub allowed_users: Vec<i64>,
    /// Chats admitted (`bot.allowed_chats`).
    pub allowed_chats: Vec<i64>,
    /// How long a turn holds its conversation's lock before renewing it (a
    /// crashed instance's lock frees itself after this).
    pub lock_ttl: Duration,
    /// Orders are paid in chat (`payments.provider_token` is set); else at the store.
    pub payments_online: bool,
    /// Minutes an unpaid order lasts (`payments.order_ttl_mins`).
    pub order_ttl_mins: u64,
    /// The service desk (`[support]`), when there is one in Telegram.
    pub desk: Option<crate::engine::support::Desk>,
    /// How long the report's counts are kept (`report.keep_days`).
    pub report_keep: Duration,
}

impl Default for RouterSettings {
    fn default() -> Self {
        RouterSettings {
            max_rounds: 10,
            direct_answers: true,
            tool_timeout: Duration::from_secs(10),
            history_messages: 20,
            history_tokens: 0,
            tool_cache_ttl: Duration::from_secs(30),
            history_ttl: Duration::from_secs(7 * 24 * 3600),
            confirm_ttl: Duration::from_secs(300),
            critical_code: false,
            levels: HashMap::new(),
            rate_limit_per_minute: 20,
            daily_tokens_per_user: 0,
            allowed_users: Vec::new(),
            allowed_chats: Vec::new(),
            lock_ttl: Duration::from_secs(120),
            payments_online: false,
            order_ttl_mins: 30,
            desk: None,
            report_keep: Duration::from_secs(30 * 86_400),
        }
    }
}

/// Everything the router needs.
pub struct RouterParts {
    /// The configured model (or the offline planner).
    pub model: Arc<dyn ChatModel>,
    /// The offline planner, used when the model cannot be reached, and to
    /// tell when a tool's own words are the answer.
    pub planner: OfflinePlanner,
    /// Small talk.
    pub chat: ChatFallback,
    /// The mall.
    pub mall: Arc<dyn MallApi>,
    /// Conversations and pending actions.
    pub state: Arc<dyn StateStore>,
    /// Counters for `/health`.
    pub stats: Arc<Stats>,
    pub settings: RouterSettings,
    /// The mall's indoor map, when it has one.
    pub map: Option<Arc<maps::Router>>,
}

/// Routes messages and button presses through the tool loop.
pub struct FunctionCallRouter {
    model: Arc<dyn ChatModel>,
    planner: OfflinePlanner,
    chat: ChatFallback,
    mall: Arc<dyn MallApi>,
    state: Arc<dyn StateStore>,
    stats: Arc<Stats>,
    settings: RouterSettings,
    locks: LocalLocks,
    tool_cache: cache::ToolCache,
    map: Option<Arc<maps::Router>>,
    remote: Arc<RemoteTools>,
    alerts: Option<Arc<dyn handlers::alert_book::AlertBook>>,
}

pub(crate) use self::confirm::{Carried, held_reply, hold_refused};
pub use self::confirm::{HoldError, Presser};
pub use self::turn::TurnScope;

impl FunctionCallRouter {
    /// A router from its parts.
    pub fn new(parts: RouterParts) -> Self {
        FunctionCallRouter {
            model: parts.model,
            planner: parts.planner,
            chat: parts.chat,
            mall: parts.mall,
            state: parts.state,
            stats: parts.stats,
            tool_cache: cache::ToolCache::new(parts.settings.tool_cache_ttl),
            settings: parts.settings,
            locks: LocalLocks::default(),
            map: parts.map,
            remote: Arc::default(),
            alerts: None,
        }
    }

    /// Example requests made of the mall's own names (a product, a store, an offer), for
    /// the greeting's buttons and the terminal chat's banner; learned with basic mode's names.
    pub(crate) async fn examples(&self) -> handlers::mall_examples::MallExamples {
        self.planner.lexicon().await.examples.clone()
    }

    /// The shopper's alerts (`<platform>:<id>`); `None` when they cannot be read.
    pub(crate) async fn alerts_of(&self, user: &str) -> Option<Vec<handlers::alert_book::Alert>> {
        self.alerts.as_ref()?.alerts_of(user).await.ok()
    }

    /// The same router keeping the shoppers' alerts in `alerts`.
    pub(crate) fn with_alerts(mut self, alerts: Arc<dyn handlers::alert_book::AlertBook>) -> Self {
        self.alerts = Some(alerts);
        self
    }

    /// Offers the tools MCP servers lend (`[mcp.servers]`) beside the registry's.
    pub(crate) fn with_remote_tools(mut self, remote: Arc<RemoteTools>) -> Self {
        self.remote = remote;
        self
    }

    /// The model's concurrency limit, calls in flight and queue, when it has one.
    pub fn model_load(&self) -> Option<crate::engine::llm::limit::LimitReport> {
        self.model.load()
    }

    /// The tools offered in this context: the registry without tools whose
    /// scope excludes private chats, or that need an @mention that did not happen.
    /// Private-only tools stay offered in groups so that asking for them leads
    /// to the private-chat hand-off instead of a confused answer.
    /// Tools lent by MCP servers that are up come after the registry's.
    pub fn tools_for(&self, is_group: bool, mentioned: bool) -> Vec<Tool> {
        handlers::all()
            .iter()
            .copied()
            .map(Tool::Builtin)
            .chain(self.remote.tools())
            .filter(|t| is_group || t.scope() != Scope::Group)
            .filter(|t| !(is_group && t.require_at() && !mentioned))
            .collect()
    }

    /// The tool of that name: the registry's, else one lent by a server that is up.
    pub(crate) fn find_tool(&self, name: &str) -> Option<Tool> {
        handlers::find(name).map(Tool::Builtin).or_else(|| self.remote.find(name))
    }

    /// The level of a tool after overrides.
    pub(crate) fn level_of(&self, tool: &Tool) -> Level {
        self.settings.levels.get(tool.name()).copied().unwrap_or_else(|| tool.default_level())
    }

    /// Sets the language a shopper is answered in (`/lang`); kept in the state
    /// store, so every instance answers in it.
    pub(crate) async fn set_lang(&self, ctx: &MessageContext, lang: Lang) {
        let key = crate::infra::state::keys::lang(ctx.platform, ctx.user_id);
        if let Err(e) = self.state.put_value(&key, lang.as_str(), LANG_TTL).await {
            tracing::warn!(error = %e, "could not remember the chosen language");
        }
    }

    /// The language a shopper chose with `/lang`, if any.
    pub async fn chosen_lang(&self, platform: &str, user_id: i64) -> Option<Lang> {
        match self.state.get_value(&crate::infra::state::keys::lang(platform, user_id)).await {
            Ok(value) => value.as_deref().and_then(Lang::parse),
            Err(e) => {
                tracing::warn!(error = %e, "could not read the chosen language");
                None
            }
        }
    }

    /// The language conversation `conversation` is in (the last its shopper
    /// clearly wrote in), if it has one yet.
    pub async fn conversation_lang(&self, conversation: &str) -> Option<Lang> {
        match self.state.get_value(&crate::infra::state::keys::conversation_lang(conversation)).await {
            Ok(value) => value.as_deref().and_then(Lang::parse),
            Err(e) => {
                tracing::warn!(error = %e, "could not read the conversation's language");
                None
            }
        }
    }

    /// Remembers that conversation `conversation` is now in `lang`.
    pub(crate) async fn remember_conversation_lang(&self, conversation: &str, lang: Lang) {
        let key = crate::infra::state::keys::conversation_lang(conversation);
        if let Err(e) = self.state.put_value(&key, lang.as_str(), LANG_TTL).await {
            tracing::warn!(error = %e, "could not remember the conversation's language");
        }
    }

    /// Forgets the conversation (`/reset`).
    pub(crate) async fn reset(&self, ctx: &MessageContext) {
        if let Err(e) = self.state.clear_history(&ctx.conversation_key()).await {
            tracing::error!(error = %e, "could not clear the conversation");
        }
    }

    /// Answers one shopper message: the door, then the turn. Never fails:
    /// trouble becomes a polite answer, and a message the door holds back is
    /// answered with why, every time (the terminal chat; Telegram, which
    /// says it once and then keeps silent, knocks itself).
    pub async fn dispatch(&self, ctx: &MessageContext) -> Reply {
        self.dispatch_live(ctx, &Progress::none()).await
    }

    /// [`FunctionCallRouter::dispatch`], reporting progress (tools running,
    /// the answer as it streams) to `progress` on the way.
    pub async fn dispatch_live(&self, ctx: &MessageContext, progress: &Progress) -> Reply {
        match self.admit(Knock::message(ctx, ChosenLang::Unread)).await {
            Ok(admitted) => self.answer(&admitted, ctx, progress).await,
            Err(turned) => Reply::text(turned.message()),
        }
    }

    /// Answers a message the door admitted, reporting progress to `progress`.
    pub(crate) async fn answer(
        &self,
        admitted: &Admitted,
        ctx: &MessageContext,
        progress: &Progress,
    ) -> Reply {
        let turn = crate::engine::stats::new_turn_id();
        let span = tracing::info_span!(
            "message",
            turn = %turn,
            platform = ctx.platform,
            user = ctx.user_id,
            chat = ctx.chat_id,
            group = ctx.is_group
        );
        // The trace's own span of the turn (the log's, above, names the shopper).
        let agent = crate::infra::otel::turn_span(ctx.platform, ctx.chat_id, &turn, &ctx.text);
        let answered = agent.clone();
        let trace = crate::infra::otel::traceparent_of(&agent);
        let reply_trace = trace.clone();
        let answering = async move {
            let started = Instant::now();
            let reply = self.pipeline(admitted, ctx, progress).await;
            tracing::info!(duration_ms = started.elapsed().as_millis() as u64, "answered");
            crate::infra::otel::record_answer(&answered, &reply.text);
            Reply { trace: reply_trace, ..reply }
        }
        .instrument(span)
        .instrument(agent);
        crate::engine::stats::TURN.scope(turn, crate::infra::otel::in_trace(trace, answering)).await
    }

    /// An admitted message: its language decided, then the stages; the
    /// reply leaves written in that language ([`Reply::written_in`]).
    async fn pipeline(&self, admitted: &Admitted, ctx: &MessageContext, progress: &Progress) -> Reply {
        // The conversation's language after these words; a message that
        // says none (a size, "y", a code) keeps it.
        let first_name = admitted.conversation_lang().is_none()
            && Lang::said(&ctx.text) == handlers::Said::Latin
            && self.planner.lexicon().await.only_names(&ctx.text);
        // A first message that is only one of the mall's names ("labubu") says no language either.
        let spoken = if first_name { ctx.lang } else { admitted.spoken(&ctx.text, ctx.lang) };
        if admitted.conversation_lang() != Some(spoken) {
            self.remember_conversation_lang(&ctx.conversation_key(), spoken).await;
        }
        let ctx = MessageContext { lang: admitted.lang_or(spoken), ..ctx.clone() };
        let progress = progress.written_in(ctx.lang);
        self.stages(admitted, &ctx, &progress).await.written_in(ctx.lang, &ctx.text)
    }

    /// The stages after the door, in order; each may end the turn with a reply.
    async fn stages(&self, admitted: &Admitted, ctx: &MessageContext, progress: &Progress) -> Reply {
        if ctx.text.trim().is_empty() {
            return Reply::text(ctx.lang.texts().turn.words_please);
        }
        // Asking for a person in words goes to the desk without a model call.
        if !ctx.is_group && handlers::staff::asks_for_person(&ctx.text) {
            tracing::info!("the shopper asked for a person");
            let reason = ctx.lang.texts().support.asked_reason;
            return self.handoff_reply(&ctx.conversation_key(), ctx.lang, reason).await;
        }
        self.locked(
            &ctx.conversation_key(),
            Box::pin(async {
                if let Some(reply) = self.try_code(admitted, ctx).await {
                    return reply;
                }
                let mut turn = self.open_turn(ctx).await;
                turn.apply_budget(admitted.budget());
                let (turn, end) = self.tool_loop(turn, progress).await;
                self.close_turn(turn, end, &ctx.text).await
            }),
        )
        .await
    }

    /// The answer to a request for a person (in words, or the model's
    /// `contact_staff`): without a desk, where the service desk is; outside
    /// `support.hours`, when it opens; else the hand-off, which the
    /// transport carries out after the text.
    pub(crate) async fn handoff_reply(&self, conversation: &str, lang: Lang, reason: &str) -> Reply {
        let texts = &lang.texts().support;
        // A reason of the bot's own words is one reason whatever the shopper's language.
        let counted = match Lang::ALL.iter().any(|l| l.texts().support.asked_reason == reason) {
            true => Lang::En.texts().support.asked_reason,
            false => reason,
        };
        let event = [crate::engine::report::Event::Handoff(counted.to_owned())];
        crate::engine::report::record(
            self.state.as_ref(),
            self.settings.report_keep,
            conversation,
            false,
            &event,
        )
        .await;
        if let Err(e) = self.state.take_value(&crate::infra::state::keys::misses(conversation)).await {
            tracing::warn!(error = %e, "could not reset the misses in a row");
        }
        let Some(desk) = &self.settings.desk else {
            metrics::counter!(crate::infra::ops::HANDOFFS, "outcome" => "no_desk").increment(1);
            return Reply::text(handlers::mall::no_desk(self.mall.as_ref(), lang).await);
        };
        if let Some(opens) = desk.closed_until(crate::infra::state::unix_now()) {
            metrics::counter!(crate::infra::ops::HANDOFFS, "outcome" => "after_hours").increment(1);
            return Reply::text((texts.after_hours)(&opens));
        }
        Reply { handoff: Some(reason.to_owned()), ..Reply::text(texts.connecting) }
    }

    /// How long the report's counts are kept (`report.keep_days`).
    pub(crate) fn report_keep(&self) -> Duration {
        self.settings.report_keep
    }

    /// The state store (the report reads it).
    pub(crate) fn state(&self) -> &Arc<dyn StateStore> {
        &self.state
    }

    /// The service desk, when there is one.
    pub(crate) fn desk(&self) -> Option<&crate::engine::support::Desk> {
        self.settings.desk.as_ref()
    }

    /// Runs one safe call for an admitted request outside the tool loop (an
    /// MCP client's or the Mini App's), with the same time limit, span and
    /// counters.
    pub(crate) async fn run_call(
        &self,
        admitted: &Admitted,
        tool: &Tool,
        call: &crate::engine::llm::ToolCall,
        args: serde_json::Value,
    ) -> Result<handlers::ToolOutput, handlers::ToolError> {
        let ctx = self.tool_context(&TurnScope::admitted(admitted), None);
        calls::run_tool(tool, call, self.level_of(tool), ctx, args, self.settings.tool_timeout).await
    }

    fn tool_context(&self, scope: &TurnScope, approval: Option<handlers::Approval>) -> ToolContext {
        ToolContext {
            mall: self.mall.clone(),
            shopper: services::Shopper::new(&scope.platform, scope.user_id),
            lang: scope.lang,
            is_group: scope.is_group,
            approval,
            map: self.map.clone(),
            pictures: true,
            alerts: self.alerts.clone(),
        }
    }

    /// The mall's indoor map, when it has one.
    pub(crate) fn map(&self) -> Option<&Arc<maps::Router>> {
        self.map.as_ref()
    }
}

/// How long a `/lang` choice is remembered.
const LANG_TTL: Duration = Duration::from_secs(365 * 24 * 3600);

/// The message shown with the Confirm / Cancel buttons.
pub(crate) fn confirmation_text(lang: Lang, level: Level, summary: &str) -> String {
    let confirm = &lang.texts().confirm;
    match level {
        Level::Critical => (confirm.check_order)(summary),
        _ => (confirm.please_confirm)(summary),
    }
}

// ------------------------------------------------- this process's queues

/// The in-process queue of each busy conversation.
#[derive(Default)]
struct LocalLocks {
    queues: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

impl LocalLocks {
    pub(super) fn queue(&self, conversation: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        queues.entry(conversation.to_owned()).or_default().clone()
    }

    /// Forgets a conversation's queue once nobody holds or waits for it.
    pub(super) fn forget_if_idle(&self, conversation: &str, queue: Arc<tokio::sync::Mutex<()>>) {
        let mut queues = self.queues.lock().unwrap_or_else(PoisonError::into_inner);
        // Ours and the map's: nobody else holds or waits.
        if Arc::strong_count(&queue) == 2 {
            queues.remove(conversation);
        }
    }

    /// Conversations with a turn running or waiting in this process.
    #[cfg(test)]
    fn busy(&self) -> usize {
        self.queues.lock().unwrap_or_else(PoisonError::into_inner).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_conversation_queue_is_forgotten_when_idle() {
        let locks = LocalLocks::default();
        let queue = locks.queue("telegram:1:1");
        let again = locks.queue("telegram:1:1");
        assert!(Arc::ptr_eq(&queue, &again), "one queue per conversation");
        locks.forget_if_idle("telegram:1:1", again);
        assert_eq!(locks.busy(), 1, "still held by another turn");
        locks.forget_if_idle("telegram:1:1", queue);
        assert_eq!(locks.busy(), 0);
    }
}
