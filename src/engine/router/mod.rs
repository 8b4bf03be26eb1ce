//! [`FunctionCallRouter`]: turns a shopper's message into an answer. It offers
//! the registry's tools to the model, runs the calls it asks for (several at
//! once, results in call order), stops at risky calls to ask the shopper, and
//! hands small talk to the chat fallback.
//!
//! The router is made of parts, each its own type with its own settings:
//!
//! | part | type | settings | file |
//! |---|---|---|---|
//! | the door: who, allow-lists, rate limit, language, budget, count, admin rights | [`Door`] | [`DoorSettings`] | `access.rs` |
//! | the confirmations: hold, press, carry out, the one-time code | `Confirmations` | [`ConfirmSettings`] | `confirm.rs` |
//! | the turns: history, lock, tool loop, close | `Turns` | [`TurnSettings`] | `turn.rs`, `round.rs`, `lock.rs`, `cache.rs`, `history.rs`, `prompt.rs` |
//! | the staff's side: hand-off to the desk, the report, `/stats` | `StaffDesk` | [`DeskSettings`] | `desk.rs`, `figures.rs` |
//!
//! The turns and the confirmations share one `Toolbox` (`toolbox.rs`: the
//! tools on offer, their levels, the context a tool runs in); the shared
//! handles (the state store, the mall, the counters) are `Arc`s each part
//! holds. This file composes the parts and is the façade every transport
//! calls; `stages.rs` is the way of a message and of a press through them:
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
//! chat's press then resumes the tool loop where it stopped
//! (`FunctionCallRouter::finish_claim`, the one way back into the loop).

use std::sync::Arc;
use std::time::Duration;

use handlers::{Lang, Level, ToolContext, ToolError};
use serde_json::Value;
use services::MallApi;

use crate::engine::context::MessageContext;
use crate::engine::fallback::ChatFallback;
use crate::engine::llm::offline::OfflinePlanner;
use crate::engine::llm::{ChatModel, Usage};
use crate::engine::pending::Claim;
use crate::engine::reply::{PressCheck, Reply};
use crate::engine::stats::Stats;
use crate::engine::tools::{RemoteTools, Tool};
use crate::infra::state::StateStore;

mod access;
mod cache;
pub(crate) mod calls;
mod confirm;
mod desk;
mod figures;
pub(crate) mod history;
mod lock;
pub(crate) mod prompt;
mod round;
mod scope;
mod shortcuts;
mod stages;
mod toolbox;
mod turn;

pub(crate) use self::access::Door;
pub(crate) use self::access::{Admitted, Turned};
pub use self::access::{DoorSettings, Knock, Way, Why};
pub(crate) use self::confirm::{Carried, Confirmations, Hold, confirmation_text, held_reply, hold_refused};
pub(crate) use self::confirm::{ConfirmSettings, HoldError, Presser};
pub(crate) use self::desk::DeskSettings;
pub(crate) use self::desk::StaffDesk;
pub(crate) use self::toolbox::Toolbox;
pub use self::turn::TurnSettings;
pub(crate) use self::turn::{TurnDeps, Turns};

/// How the router behaves, part by part; built from the config (`app.rs`).
#[derive(Debug, Clone, Default)]
pub struct RouterSettings {
    /// The door: allow-lists, rate limit, daily budget, admins.
    pub door: DoorSettings,
    /// The confirmations: expiry, one-time code, levels, how orders are paid.
    pub confirm: ConfirmSettings,
    /// The turns: rounds, direct answers, tool time limit, history, cache, lock.
    pub turn: TurnSettings,
    /// The staff's side: the service desk, the report's keep.
    pub desk: DeskSettings,
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

/// Routes messages and button presses through the door, the turns and the
/// confirmation service; the staff's desk beside them.
pub struct FunctionCallRouter {
    door: Door,
    confirmations: Arc<Confirmations>,
    turns: Turns,
    desk: Arc<StaffDesk>,
    tools: Arc<Toolbox>,
}

impl FunctionCallRouter {
    /// A router from its parts.
    pub fn new(parts: RouterParts) -> Self {
        let RouterParts { model, planner, chat, mall, state, stats, settings, map } = parts;
        let RouterSettings { door, confirm, turn, desk } = settings;
        let tools = Arc::new(Toolbox::new(mall.clone(), map, confirm.levels.clone(), turn.tool_timeout));
        let door = Door::new(state.clone(), stats.clone(), door, desk.desk.as_ref().map(|d| d.chat_id));
        let desk = Arc::new(StaffDesk::new(state.clone(), mall, desk));
        let confirmations =
            Arc::new(Confirmations::new(state.clone(), stats.clone(), tools.clone(), confirm));
        let deps = TurnDeps {
            model,
            planner,
            chat,
            state,
            stats,
            tools: tools.clone(),
            confirmations: confirmations.clone(),
            desk: desk.clone(),
        };
        FunctionCallRouter { door, confirmations, turns: Turns::new(deps, turn), desk, tools }
    }

    /// The same router keeping the shoppers' alerts in `alerts`.
    pub(crate) fn with_alerts(self, alerts: Arc<dyn handlers::alert_book::AlertBook>) -> Self {
        self.tools.lend_alerts(alerts);
        self
    }

    /// Offers the tools MCP servers lend (`[mcp.servers]`) beside the registry's.
    pub(crate) fn with_remote_tools(self, remote: Arc<RemoteTools>) -> Self {
        self.tools.lend_remote(remote);
        self
    }

    /// The context a tool runs in for a request the door admitted outside a
    /// chat (the Mini App's reads, an MCP client's call): the admitted
    /// person, private, in their language, with the mall, the map and the
    /// shoppers' alerts. The only way to a [`ToolContext`] outside the router.
    pub(crate) fn tool_context_for(&self, admitted: &Admitted) -> ToolContext {
        self.tools.context_for(admitted)
    }

    /// Runs one safe call for an admitted request outside the tool loop (an
    /// MCP client's or the Mini App's), with the same time limit, span and
    /// counters.
    pub(crate) async fn run_call(
        &self,
        admitted: &Admitted,
        tool: &Tool,
        call: &crate::engine::llm::ToolCall,
        args: Value,
    ) -> Result<handlers::ToolOutput, ToolError> {
        self.tools.run(tool, call, self.tool_context_for(admitted), args).await
    }
}

/// The façade: each method is one part's, named as the transports know it.
impl FunctionCallRouter {
    // ---- the door (access.rs)

    /// The door: admits `knock` or says why not ([`Door`]).
    pub async fn admit(&self, knock: Knock) -> Result<Admitted, Turned> {
        self.door.admit(knock).await
    }

    /// Sets the language a shopper is answered in (`/lang`).
    pub(crate) async fn set_lang(&self, ctx: &MessageContext, lang: Lang) {
        self.door.set_lang(ctx, lang).await
    }

    /// The language a shopper chose with `/lang`, if any.
    pub async fn chosen_lang(&self, platform: &str, user_id: i64) -> Option<Lang> {
        self.door.chosen_lang(platform, user_id).await
    }

    /// The language conversation `conversation` is in, if it has one yet.
    pub async fn conversation_lang(&self, conversation: &str) -> Option<Lang> {
        self.door.conversation_lang(conversation).await
    }

    // ---- the confirmations (confirm.rs)

    /// Holds a risky call asked for directly (a Mini App change, an MCP call).
    pub(crate) async fn hold(
        &self,
        admitted: &Admitted,
        tool: &Tool,
        args: Value,
    ) -> Result<Hold, HoldError> {
        self.confirmations.hold(admitted, tool, args).await
    }

    /// Checks a press and claims the action.
    pub(crate) async fn press_as(
        &self,
        admitted: &Admitted,
        token: &str,
        approve: bool,
        presser: Presser,
    ) -> PressCheck {
        self.confirmations.press_as(admitted, token, approve, presser).await
    }

    /// A claimed action carried out (or declined), without resuming a loop.
    pub(crate) async fn carry_out(&self, claim: Box<Claim>) -> Carried {
        self.confirmations.carry_out(claim).await
    }

    // ---- the tools (toolbox.rs, shortcuts.rs)

    /// The tools offered in this context ([`Toolbox::tools_for`]).
    pub fn tools_for(&self, is_group: bool, mentioned: bool) -> Vec<Tool> {
        self.tools.tools_for(is_group, mentioned)
    }

    /// The tool of that name: the registry's, else one lent by a server that is up.
    pub(crate) fn find_tool(&self, name: &str) -> Option<Tool> {
        self.tools.find(name)
    }

    /// The level of a tool after overrides.
    pub(crate) fn level_of(&self, tool: &Tool) -> Level {
        self.tools.level_of(tool)
    }

    /// The mall's indoor map, when it has one.
    pub(crate) fn map(&self) -> Option<&Arc<maps::Router>> {
        self.tools.map()
    }

    /// The shopper's alerts (`<platform>:<id>`); `None` when they cannot be read.
    pub(crate) async fn alerts_of(&self, user: &str) -> Option<Vec<handlers::alert_book::Alert>> {
        self.tools.alerts_of(user).await
    }

    /// The shopper's cart, formatted (`/cart`).
    pub async fn show_cart(&self, ctx: &MessageContext) -> Reply {
        self.tools.show_cart(ctx).await
    }

    /// The shopper's recent orders, formatted (`/orders`).
    pub async fn show_orders(&self, ctx: &MessageContext) -> Reply {
        self.tools.show_orders(ctx).await
    }

    // ---- the turns (turn.rs)

    /// Example requests made of the mall's own names.
    pub(crate) async fn examples(&self) -> handlers::mall_examples::MallExamples {
        self.turns.examples().await
    }

    /// The model's concurrency limit, calls in flight and queue, when it has one.
    pub fn model_load(&self) -> Option<crate::engine::llm::limit::LimitReport> {
        self.turns.model.load()
    }

    /// Forgets the conversation (`/reset`).
    pub(crate) async fn reset(&self, ctx: &MessageContext) {
        self.turns.reset(ctx).await
    }

    /// Tokens a conversation has used so far.
    pub async fn conversation_usage(&self, ctx: &MessageContext) -> Usage {
        self.turns.conversation_usage(ctx).await
    }

    // ---- the staff's side (desk.rs, figures.rs)

    /// The answer to a request for a person ([`StaffDesk::handoff_reply`]).
    pub(crate) async fn handoff_reply(&self, conversation: &str, lang: Lang, reason: &str) -> Reply {
        self.desk.handoff_reply(conversation, lang, reason).await
    }

    /// The service desk, when there is one.
    pub(crate) fn desk(&self) -> Option<&crate::engine::support::Desk> {
        self.desk.desk()
    }

    /// How long the report's counts are kept (`report.keep_days`).
    pub(crate) fn report_keep(&self) -> Duration {
        self.desk.report_keep()
    }

    /// The state store (the report reads it).
    pub(crate) fn state(&self) -> &Arc<dyn StateStore> {
        &self.desk.state
    }

    /// Today's figures (`/stats`).
    pub async fn day_stats(&self, lang: Lang) -> String {
        self.desk.day_stats(lang).await
    }

    /// Counts one transcription and the time it took in the day's figures.
    pub(crate) async fn count_transcription(&self, took: Duration) {
        self.desk.count_transcription(took).await
    }
}
