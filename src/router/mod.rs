//! [`FunctionCallRouter`]: turns a shopper's message into an answer. It offers
//! the registry's tools to the model, runs the calls it asks for (several at
//! once, results in call order), stops at risky calls to ask the shopper, and
//! hands small talk to the chat fallback.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::join_all;
use handlers::{Lang, Level, Preview, Scope, ToolContext, ToolSpec};
use serde_json::Value;
use services::MallApi;
use tokio::sync::Semaphore;
use tracing::Instrument;

use crate::context::MessageContext;
use crate::fallback::ChatFallback;
use crate::llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, Role, ToolCall, Usage};
use crate::pending::{PendingAction, new_code, new_token};
use crate::reply::{ConfirmationPrompt, Reply};
use crate::state::{PendingStatus, StateStore, StoredPending, unix_now};
use crate::stats::Stats;

pub mod calls;
mod confirm;
pub mod history;
mod lock;
pub mod prompt;
mod shortcuts;

/// How the router behaves; built from the config.
#[derive(Debug, Clone)]
pub struct RouterSettings {
    /// Model calls per shopper message (`llm.max_rounds`).
    pub max_rounds: u32,
    /// Time limit of one tool call (`llm.tool_timeout_secs`).
    pub tool_timeout: Duration,
    /// Messages remembered per conversation (`bot.history_messages`).
    pub history_messages: usize,
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
    /// At most this many model calls at once (`llm.max_concurrent`).
    pub max_concurrent_model_calls: usize,
}

impl Default for RouterSettings {
    fn default() -> Self {
        RouterSettings {
            max_rounds: 10,
            tool_timeout: Duration::from_secs(10),
            history_messages: 20,
            history_ttl: Duration::from_secs(7 * 24 * 3600),
            confirm_ttl: Duration::from_secs(300),
            critical_code: false,
            levels: HashMap::new(),
            rate_limit_per_minute: 20,
            max_concurrent_model_calls: 16,
        }
    }
}

/// Everything the router needs.
pub struct RouterParts {
    /// The configured model (or the offline planner).
    pub model: Arc<dyn ChatModel>,
    /// The offline planner, used when the model cannot be reached.
    pub planner: Arc<dyn ChatModel>,
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
    planner: Arc<dyn ChatModel>,
    chat: ChatFallback,
    mall: Arc<dyn MallApi>,
    state: Arc<dyn StateStore>,
    stats: Arc<Stats>,
    settings: RouterSettings,
    map: Option<Arc<maps::Router>>,
    model_slots: Semaphore,
}

/// Who a turn is for and where it happens.
#[derive(Debug, Clone)]
pub struct TurnScope {
    platform: String,
    user_id: i64,
    chat_id: i64,
    is_group: bool,
    mentioned: bool,
    lang: Lang,
}

impl TurnScope {
    fn of(ctx: &MessageContext) -> Self {
        TurnScope {
            platform: ctx.platform.to_owned(),
            user_id: ctx.user_id,
            chat_id: ctx.chat_id,
            is_group: ctx.is_group,
            mentioned: ctx.mentioned,
            lang: ctx.lang,
        }
    }

    fn of_action(action: &PendingAction) -> Self {
        TurnScope {
            platform: action.platform.clone(),
            user_id: action.user_id,
            chat_id: action.chat_id,
            is_group: action.is_group,
            mentioned: true,
            lang: action.lang,
        }
    }

    fn conversation(&self) -> String {
        crate::context::conversation_key(&self.platform, self.chat_id, self.user_id)
    }
}

/// A tool loop in progress.
struct Turn {
    scope: TurnScope,
    /// History plus this turn's messages (no system prompt).
    messages: Vec<ChatMessage>,
    rounds_used: u32,
    basic_mode: bool,
    usage: Usage,
    suggestions: Vec<String>,
    image: Option<String>,
    pictures: Vec<handlers::Picture>,
    tools_ran: bool,
}

/// How one round of calls ended.
enum CallsOutcome {
    /// All calls answered: continue the loop.
    Continue,
    /// The loop stops here with this reply.
    Stop(Reply),
}

impl FunctionCallRouter {
    /// A router from its parts.
    pub fn new(parts: RouterParts) -> Self {
        let slots = parts.settings.max_concurrent_model_calls.max(1);
        FunctionCallRouter {
            model: parts.model,
            planner: parts.planner,
            chat: parts.chat,
            mall: parts.mall,
            state: parts.state,
            stats: parts.stats,
            settings: parts.settings,
            map: parts.map,
            model_slots: Semaphore::new(slots),
        }
    }

    /// The model's description (`offline`, `openai/<model>`).
    pub fn model_name(&self) -> String {
        self.model.describe()
    }

    /// The tools offered in this context: the registry without tools whose
    /// scope excludes private chats, or that need an @mention that did not happen.
    /// Private-only tools stay offered in groups so that asking for them leads
    /// to the private-chat hand-off instead of a confused answer.
    pub fn tools_for(&self, is_group: bool, mentioned: bool) -> Vec<&'static ToolSpec> {
        handlers::all()
            .iter()
            .copied()
            .filter(|s| is_group || s.scope != Scope::Group)
            .filter(|s| !(is_group && s.require_at && !mentioned))
            .collect()
    }

    /// The level of a tool after overrides.
    pub fn level_of(&self, spec: &ToolSpec) -> Level {
        self.settings.levels.get(spec.name).copied().unwrap_or(spec.level)
    }

    /// Sets the language a shopper is answered in (`/lang`); kept in the state
    /// store, so every instance answers in it.
    pub async fn set_lang(&self, ctx: &MessageContext, lang: Lang) {
        let key = lang_key(ctx.platform, ctx.user_id);
        if let Err(e) = self.state.put_value(&key, lang.as_str(), LANG_TTL).await {
            tracing::warn!(error = %e, "could not remember the chosen language");
        }
    }

    /// The language a shopper chose with `/lang`, if any.
    pub async fn chosen_lang(&self, platform: &str, user_id: i64) -> Option<Lang> {
        match self.state.get_value(&lang_key(platform, user_id)).await {
            Ok(value) => value.as_deref().and_then(Lang::parse),
            Err(e) => {
                tracing::warn!(error = %e, "could not read the chosen language");
                None
            }
        }
    }

    /// The language for this message: the shopper's `/lang` choice, else the context's.
    async fn lang_for(&self, ctx: &MessageContext) -> Lang {
        self.chosen_lang(ctx.platform, ctx.user_id).await.unwrap_or(ctx.lang)
    }

    /// Forgets the conversation (`/reset`).
    pub async fn reset(&self, ctx: &MessageContext) {
        if let Err(e) = self.state.clear_history(&ctx.conversation_key()).await {
            tracing::error!(error = %e, "could not clear the conversation");
        }
    }

    /// Answers one shopper message. Never fails: trouble becomes a polite answer.
    pub async fn dispatch(&self, ctx: &MessageContext) -> Reply {
        let mut ctx = ctx.clone();
        ctx.lang = self.lang_for(&ctx).await;
        let span = tracing::info_span!(
            "message",
            platform = ctx.platform,
            user = ctx.user_id,
            chat = ctx.chat_id,
            group = ctx.is_group
        );
        async move {
            let started = Instant::now();
            self.stats.count_message();
            let reply = self.locked(&ctx.conversation_key(), self.dispatch_inner(&ctx)).await;
            tracing::info!(duration_ms = started.elapsed().as_millis() as u64, "answered");
            reply
        }
        .instrument(span)
        .await
    }

    async fn dispatch_inner(&self, ctx: &MessageContext) -> Reply {
        let lang = ctx.lang;
        if ctx.text.trim().is_empty() {
            return Reply::text(
                lang.pick("请用文字告诉我您想找什么。", "Please tell me in words what you are looking for."),
            );
        }
        if let Some(reply) = self.rate_limited(ctx).await {
            return reply;
        }
        if let Some(reply) = self.try_code(ctx).await {
            return reply;
        }
        let conversation = ctx.conversation_key();
        let mut messages = match self.state.load_history(&conversation).await {
            Ok(history) => history,
            Err(e) => {
                tracing::error!(error = %e, "could not load the conversation; answering without it");
                self.stats.count_error();
                Vec::new()
            }
        };
        messages.push(ChatMessage::user(ctx.text.clone()));
        let turn = Turn {
            scope: TurnScope::of(ctx),
            messages,
            rounds_used: 0,
            basic_mode: false,
            usage: Usage::default(),
            suggestions: Vec::new(),
            image: None,
            pictures: Vec::new(),
            tools_ran: false,
        };
        self.run_loop(turn, &ctx.text).await
    }

    async fn rate_limited(&self, ctx: &MessageContext) -> Option<Reply> {
        let limit = self.settings.rate_limit_per_minute;
        if limit == 0 {
            return None;
        }
        let who = ctx.shopper().to_string();
        match self.state.rate_hit(&who, Duration::from_secs(60)).await {
            Ok(count) if count > limit => {
                tracing::info!(count, limit, "rate limited");
                Some(Reply::text(ctx.lang.pick(
                    "您发消息有点快，请稍等一分钟再试。",
                    "You're sending messages a little fast — please wait a minute and try again.",
                )))
            }
            Ok(_) => None,
            Err(e) => {
                tracing::warn!(error = %e, "rate limit check failed; letting the message through");
                None
            }
        }
    }

    /// Runs model rounds until an answer, a confirmation, or the round limit.
    async fn run_loop(&self, mut turn: Turn, user_text: &str) -> Reply {
        let tools = self.tools_for(turn.scope.is_group, turn.scope.mentioned);
        let mut failed_rounds = 0u32;
        while turn.rounds_used < self.settings.max_rounds {
            turn.rounds_used += 1;
            let response = self.complete(&mut turn, &tools).await;
            turn.usage += response.usage;
            let message = response.message;
            if message.tool_calls.is_empty() {
                let text = message.text().trim().to_owned();
                if text.is_empty() && !turn.tools_ran {
                    return self.small_talk(turn, user_text).await;
                }
                let text = if text.is_empty() { self.empty_answer(turn.scope.lang) } else { text };
                return self.answer(turn, text).await;
            }
            turn.messages.push(message.clone());
            match self.run_calls(&mut turn, &message, &tools).await {
                (CallsOutcome::Stop(reply), _) => return reply,
                (CallsOutcome::Continue, all_failed) => {
                    failed_rounds = if all_failed { failed_rounds + 1 } else { 0 };
                    if failed_rounds >= 3 {
                        tracing::warn!("three rounds of failed tool calls; giving up on this turn");
                        break;
                    }
                }
            }
        }
        let text = turn.scope.lang.pick(
            "抱歉，这个问题我没能在限定步骤内处理完。可以换个说法，或者把需求拆开一点吗？",
            "Sorry, I couldn't finish that within my step limit. Could you rephrase it or ask one thing at a time?",
        );
        self.answer(turn, text.to_owned()).await
    }

    /// One model call; falls back to the offline planner (basic mode) when
    /// the model cannot answer.
    async fn complete(&self, turn: &mut Turn, tools: &[&'static ToolSpec]) -> ChatResponse {
        let mut messages = Vec::with_capacity(turn.messages.len() + 1);
        messages.push(ChatMessage::system(prompt::system_prompt(turn.scope.lang, turn.scope.is_group)));
        messages.extend(turn.messages.iter().cloned());
        let request = ChatRequest { messages: &messages, tools, progress: None };
        if !turn.basic_mode {
            let span = tracing::info_span!("model", model = %self.model.describe(), round = turn.rounds_used);
            let started = Instant::now();
            let result = {
                let _slot = self.model_slots.acquire().await;
                self.model.complete(request).instrument(span.clone()).await
            };
            let latency_ms = started.elapsed().as_millis() as u64;
            match result {
                Ok(response) => {
                    span.in_scope(|| {
                        tracing::info!(
                            tokens_in = response.usage.prompt_tokens,
                            tokens_out = response.usage.completion_tokens,
                            latency_ms,
                            tool_calls = response.message.tool_calls.len(),
                            "model answered"
                        )
                    });
                    self.stats.add_usage(response.usage);
                    return response;
                }
                Err(e) => {
                    span.in_scope(|| tracing::error!(error = %e, latency_ms, "model failed; basic mode"));
                    self.stats.count_error();
                    turn.basic_mode = true;
                }
            }
        }
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

    /// Runs the calls of one assistant turn. Safe calls run concurrently; the
    /// first risky call stops the loop with a confirmation. Returns whether
    /// every call failed.
    async fn run_calls(
        &self,
        turn: &mut Turn,
        message: &ChatMessage,
        offered: &[&'static ToolSpec],
    ) -> (CallsOutcome, bool) {
        enum Plan {
            Done(String),
            Run(&'static ToolSpec, Value),
            Risky(&'static ToolSpec, Value, Level),
        }
        let calls = &message.tool_calls;
        let mut plans = Vec::with_capacity(calls.len());
        let mut risky_seen = false;
        for call in calls {
            let plan = match offered.iter().copied().find(|s| s.name == call.name) {
                None => Plan::Done(calls::unknown_tool_message(&call.name, offered)),
                Some(spec) => match calls::parse_arguments(&call.arguments) {
                    Err(why) => Plan::Done(calls::bad_arguments_message(&call.name, &why)),
                    Ok(args) => {
                        if turn.scope.is_group && !spec.scope.allows(true) {
                            let reply = self.hand_off(turn).await;
                            return (CallsOutcome::Stop(reply), false);
                        }
                        match self.level_of(spec) {
                            Level::Safe => Plan::Run(spec, args),
                            _ if risky_seen => Plan::Done(
                                "Error: only one action that needs the shopper's confirmation can wait at a \
                                 time. Call this one again after the first is confirmed."
                                    .to_owned(),
                            ),
                            level => {
                                risky_seen = true;
                                Plan::Risky(spec, args, level)
                            }
                        }
                    }
                },
            };
            plans.push(plan);
        }

        let ctx = self.tool_context(&turn.scope, None);
        let limit = self.settings.tool_timeout;
        let runs = plans.iter().zip(calls).map(|(plan, call)| {
            let ctx = ctx.clone();
            async move {
                match plan {
                    Plan::Run(spec, args) => {
                        Some(calls::run_tool(spec, call, ctx, args.clone(), limit).await)
                    }
                    _ => None,
                }
            }
        });
        let outcomes = join_all(runs).await;

        let mut results: Vec<Option<String>> = Vec::with_capacity(calls.len());
        let mut failures = 0usize;
        let mut risky: Option<(usize, &'static ToolSpec, Value, Level)> = None;
        for (i, (plan, outcome)) in plans.into_iter().zip(outcomes).enumerate() {
            match (plan, outcome) {
                (Plan::Done(text), _) => {
                    failures += 1;
                    results.push(Some(text));
                }
                (Plan::Run(..), Some(result)) => {
                    turn.tools_ran = true;
                    match &result {
                        Ok(out) => {
                            if !out.suggestions.is_empty() {
                                turn.suggestions = out.suggestions.clone();
                            }
                            if out.image.is_some() {
                                turn.image = out.image.clone();
                            }
                            if !out.pictures.is_empty() {
                                turn.pictures = out.pictures.clone();
                            }
                        }
                        Err(_) => failures += 1,
                    }
                    results.push(Some(calls::result_text(&result)));
                }
                (Plan::Run(..), None) => results.push(Some("Error: the tool did not run.".to_owned())),
                (Plan::Risky(spec, args, level), _) => {
                    risky = Some((i, spec, args, level));
                    results.push(None);
                }
            }
        }

        if let Some((index, spec, args, level)) = risky {
            let call = calls[index].clone();
            match self.preview(spec, &turn.scope, &args).await {
                Ok(preview) => {
                    let reply =
                        self.ask_confirmation(turn, message, results, call, args, level, preview).await;
                    return (CallsOutcome::Stop(reply), false);
                }
                Err(e) => {
                    results[index] = Some(e.model_message());
                    failures += 1;
                }
            }
        }
        for (call, result) in calls.iter().zip(results) {
            turn.messages.push(ChatMessage::tool(call.id.clone(), result.unwrap_or_default()));
        }
        (CallsOutcome::Continue, failures == calls.len())
    }

    fn tool_context(&self, scope: &TurnScope, approval: Option<handlers::Approval>) -> ToolContext {
        ToolContext {
            mall: self.mall.clone(),
            shopper: services::Shopper::new(&scope.platform, scope.user_id),
            lang: scope.lang,
            is_group: scope.is_group,
            approval,
            map: self.map.clone(),
        }
    }

    /// What a risky call would do, in the shopper's language.
    async fn preview(
        &self,
        spec: &'static ToolSpec,
        scope: &TurnScope,
        args: &Value,
    ) -> Result<Preview, handlers::ToolError> {
        let ctx = self.tool_context(scope, None);
        match spec.preview {
            Some(preview) => {
                match tokio::time::timeout(self.settings.tool_timeout, preview(ctx, args.clone())).await {
                    Ok(result) => result,
                    Err(_) => Err(handlers::ToolError::Timeout(self.settings.tool_timeout.as_secs())),
                }
            }
            None => Ok(Preview {
                summary: format!("{}{} {}", scope.lang.pick("执行：", "Run: "), spec.name, args),
                fingerprint: args.clone(),
            }),
        }
    }

    /// Stores the loop as a pending action and asks the shopper.
    #[allow(clippy::too_many_arguments)]
    async fn ask_confirmation(
        &self,
        turn: &mut Turn,
        assistant: &ChatMessage,
        results: Vec<Option<String>>,
        call: ToolCall,
        arguments: Value,
        level: Level,
        preview: Preview,
    ) -> Reply {
        let lang = turn.scope.lang;
        let token = new_token();
        let code = (level == Level::Critical && self.settings.critical_code).then(new_code);
        let action = PendingAction {
            platform: turn.scope.platform.clone(),
            user_id: turn.scope.user_id,
            chat_id: turn.scope.chat_id,
            is_group: turn.scope.is_group,
            lang,
            assistant: assistant.clone(),
            results,
            call,
            arguments,
            level,
            preview: preview.clone(),
            code,
            rounds_used: turn.rounds_used,
            basic_mode: turn.basic_mode,
        };
        let text = confirmation_text(lang, level, &preview.summary);
        // The assistant turn waits in the pending action; the history keeps the
        // question so the conversation reads naturally until the press.
        turn.messages.pop();
        turn.messages.push(ChatMessage::assistant(text.clone()));
        if let Err(e) = self.store_pending(&token, &action).await {
            tracing::error!(error = %e, "could not store the pending action");
            self.stats.count_error();
            return Reply::text(lang.pick(
                "抱歉，系统暂时无法保存这个操作，请稍后再试。",
                "Sorry, I couldn't hold that action for confirmation right now. Please try again shortly.",
            ));
        }
        self.save_history(&turn.scope, std::mem::take(&mut turn.messages)).await;
        self.record_usage(&turn.scope, std::mem::take(&mut turn.usage)).await;
        tracing::info!(token = %token, tool = %action.call.name, level = level.as_str(), "confirmation asked");
        Reply {
            text,
            confirmation: Some(ConfirmationPrompt {
                token,
                level,
                summary: preview.summary,
                needs_code: action.code.is_some(),
            }),
            ..Default::default()
        }
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

    /// In a group, a cart or order request moves to the private chat.
    async fn hand_off(&self, turn: &mut Turn) -> Reply {
        let lang = turn.scope.lang;
        let request = turn.messages.iter().rev().find(|m| m.role == Role::User).map(|m| m.text().to_owned());
        let text = lang.pick(
            "购物车和订单只能在私聊里处理，点下面的按钮，我们私聊继续。",
            "Carts and orders are handled in a private chat — tap the button below and we'll continue there.",
        );
        // Keep only the shopper's message and this answer in the group's memory.
        while turn.messages.last().is_some_and(|m| m.role != Role::User) {
            turn.messages.pop();
        }
        turn.messages.push(ChatMessage::assistant(text));
        self.save_history(&turn.scope, std::mem::take(&mut turn.messages)).await;
        self.record_usage(&turn.scope, std::mem::take(&mut turn.usage)).await;
        Reply { text: text.to_owned(), open_private: Some(request.unwrap_or_default()), ..Default::default() }
    }

    /// Sends small talk to the chat fallback.
    async fn small_talk(&self, mut turn: Turn, user_text: &str) -> Reply {
        let history: Vec<ChatMessage> = turn
            .messages
            .iter()
            .filter(|m| m.tool_calls.is_empty() && m.role != Role::Tool)
            .cloned()
            .collect();
        let online = !turn.basic_mode;
        let reply = {
            let _slot = if online { Some(self.model_slots.acquire().await) } else { None };
            self.chat.reply(&history, user_text, turn.scope.lang, online).await
        };
        turn.messages.push(ChatMessage::assistant(reply.text.clone()));
        self.record_usage(&turn.scope, turn.usage).await;
        self.save_history(&turn.scope, turn.messages).await;
        reply
    }

    /// Ends the turn with a text answer, remembering it.
    async fn answer(&self, mut turn: Turn, text: String) -> Reply {
        let text = if turn.basic_mode {
            format!(
                "{}\n\n{}",
                text,
                turn.scope.lang.pick(
                    "（基础模式：智能助手暂时连接不上，我先用简化方式为您服务。）",
                    "(Basic mode: the assistant can't be reached right now, so I'm answering in a simpler way.)",
                )
            )
        } else {
            text
        };
        let total = self.record_usage(&turn.scope, turn.usage).await;
        tracing::info!(
            conversation = %turn.scope.conversation(),
            rounds = turn.rounds_used,
            tokens_in = turn.usage.prompt_tokens,
            tokens_out = turn.usage.completion_tokens,
            conversation_tokens_in = total.prompt_tokens,
            conversation_tokens_out = total.completion_tokens,
            basic_mode = turn.basic_mode,
            "turn finished"
        );
        turn.messages.push(ChatMessage::assistant(text.clone()));
        self.save_history(&turn.scope, std::mem::take(&mut turn.messages)).await;
        let mut suggestions = turn.suggestions;
        suggestions.truncate(4);
        Reply { text, suggestions, image: turn.image, pictures: turn.pictures, ..Default::default() }
    }

    /// Adds a turn's tokens to its conversation's total (kept with the
    /// conversation's lifetime) and returns the new total.
    pub async fn record_usage(&self, scope: &TurnScope, usage: Usage) -> Usage {
        let key = format!("usage:{}", scope.conversation());
        let mut total = match self.state.get_value(&key).await {
            Ok(Some(text)) => serde_json::from_str(&text).unwrap_or_default(),
            _ => Usage::default(),
        };
        if usage == Usage::default() {
            return total;
        }
        total += usage;
        let text = serde_json::to_string(&total).unwrap_or_default();
        if let Err(e) = self.state.put_value(&key, &text, self.settings.history_ttl).await {
            tracing::warn!(error = %e, "could not record the conversation's token usage");
        }
        total
    }

    /// Tokens a conversation has used so far.
    pub async fn conversation_usage(&self, ctx: &MessageContext) -> Usage {
        self.record_usage(&TurnScope::of(ctx), Usage::default()).await
    }

    fn empty_answer(&self, lang: Lang) -> String {
        lang.pick("好的，已经处理好了。", "Done.").to_owned()
    }

    async fn save_history(&self, scope: &TurnScope, messages: Vec<ChatMessage>) {
        let kept = history::truncate(messages, self.settings.history_messages);
        if let Err(e) = self.state.save_history(&scope.conversation(), &kept, self.settings.history_ttl).await
        {
            tracing::error!(error = %e, "could not save the conversation");
            self.stats.count_error();
        }
    }
}

/// How long a `/lang` choice is remembered.
const LANG_TTL: Duration = Duration::from_secs(365 * 24 * 3600);

fn lang_key(platform: &str, user_id: i64) -> String {
    format!("lang:{platform}:{user_id}")
}

/// The message shown with the Confirm / Cancel buttons.
pub fn confirmation_text(lang: Lang, level: Level, summary: &str) -> String {
    match (lang, level) {
        (Lang::Zh, Level::Critical) => format!("请核对订单后确认：\n{summary}"),
        (Lang::Zh, _) => format!("请确认：\n{summary}"),
        (Lang::En, Level::Critical) => format!("Please check your order and confirm:\n{summary}"),
        (Lang::En, _) => format!("Please confirm:\n{summary}"),
    }
}
