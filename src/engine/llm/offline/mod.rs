//! The offline planner: plays the model's part in the tool loop with no
//! model, so the bot works in basic mode.
//!
//! Each call reads the whole conversation, asks the tools' basic-mode hooks
//! ([`handlers::OfflineHook`], declared in each tool's own file) what the
//! latest shopper message asks for, follows the tool calls made since, and
//! either calls the next tool or answers from the results. A bare "yes" in
//! any language takes up what the previous answer offered
//! ([`handlers::basic::Offer`]). With no idea what the shopper wants it
//! answers with empty text, and the router hands the turn to the chat
//! fallback. This module names no tool: what a tool is asked for by, and
//! how it answers, is the tool's own.
//!
//! The names of the mall (brands, stores, areas, categories) are not in the
//! source: the planner learns them from the mall it is connected to
//! ([`Lexicon::learn`]) on its first turn and again every
//! [`LEXICON_REFRESH`] (at once after the mall's own data is read again), so
//! it works on any mall, over HTTP too.
//!
//! The hooks are asked in order of the priority each declares (lowest first,
//! ties by name: `handlers::basic::hooks`); the calls made since are followed
//! through each call's `then` (the cart read before ordering, the order list
//! before cancelling the newest). A message in Traditional characters is read
//! in Simplified ones (`conversation.rs`); the reply language is the one the
//! turn's note names, else the message's, and the words come from that
//! language's table. A tool that declares `offline = HOOK` works here without
//! a change to the planner (`tests/offline_tool.rs` defines one outside the
//! crate); `tests/basic_mode_offers.rs` checks that this module's source
//! names no tool. The mall's names: every store and area, the brands and
//! categories of its products (at most 5 000 read), a brand also known by
//! the names of a store named after it (so "耐克" finds Nike); a mall that
//! cannot be read is asked again after 30 s.

mod conversation;
mod flow;

#[cfg(test)]
mod tests;

use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::Value;
use services::MallApi;

use super::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, ToolCall, Usage};

pub(crate) use handlers::basic::Lexicon;

/// How often the planner learns the mall's names again.
pub(crate) const LEXICON_REFRESH: Duration = Duration::from_secs(10 * 60);
/// After a failed attempt, how long until the next one.
const LEXICON_RETRY: Duration = Duration::from_secs(30);

/// What the planner does next.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// Call one tool with these arguments.
    Call { tool: &'static str, arguments: Value },
    /// Answer the shopper; empty text means "no idea, use the chat fallback".
    Answer(String),
}

/// The next step for a conversation, given the names of the tools offered
/// and of the mall.
pub(crate) fn plan(messages: &[ChatMessage], tools: &[&str], lexicon: &Lexicon) -> Step {
    let dialogue = conversation::read(messages);
    tracing::debug!(calls_this_turn = dialogue.turn_calls().count(), "offline planner");
    match flow::next_step(&dialogue, tools, lexicon) {
        handlers::basic::Step::Call(call) => Step::Call { tool: call.tool, arguments: call.arguments },
        handlers::basic::Step::Answer(reply) => Step::Answer(reply.text),
    }
}

/// The answer basic mode words from this turn's calls, in `lang`, when it
/// can stand as the whole answer with a model too (see
/// `flow::direct_answer`); `None` when the model must word it.
pub(crate) fn direct_answer(
    messages: &[ChatMessage],
    tools: &[&str],
    lexicon: &Lexicon,
    lang: handlers::Lang,
    confirmed: bool,
) -> Option<String> {
    flow::direct_answer(&conversation::read(messages).in_lang(lang), tools, lexicon, confirmed)
}

/// The offline planner as a [`ChatModel`], with what it knows of the mall.
#[derive(Clone, Default)]
pub struct OfflinePlanner {
    /// The mall it learns names from; none: only the words of the languages.
    mall: Option<Arc<dyn MallApi>>,
    known: Arc<RwLock<Known>>,
}

/// The lexicon in use and when it is due again.
#[derive(Default)]
struct Known {
    lexicon: Arc<Lexicon>,
    /// When to learn again; `None`: never learned.
    due: Option<Instant>,
    /// A refresh runs in the background.
    refreshing: bool,
    /// The reload count of the mall's own data (`mall.data`) the names were learned under:
    /// a reload makes them due at once.
    generation: u64,
}

impl std::fmt::Debug for OfflinePlanner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OfflinePlanner").field("learns", &self.mall.is_some()).finish_non_exhaustive()
    }
}

impl OfflinePlanner {
    /// A planner that knows no mall's names.
    pub fn new() -> Self {
        OfflinePlanner::default()
    }

    /// A planner that learns the names of `mall` on its first turn and
    /// refreshes them every [`LEXICON_REFRESH`].
    pub fn learning(mall: Arc<dyn MallApi>) -> Self {
        OfflinePlanner { mall: Some(mall), known: Arc::default() }
    }

    /// The names to plan with: learned now on the first turn, refreshed in
    /// the background when due; a mall that cannot be read leaves the last
    /// names known (none at first) and is asked again shortly.
    pub(crate) async fn lexicon(&self) -> Arc<Lexicon> {
        let Some(mall) = &self.mall else {
            return self.current();
        };
        let (lexicon, due, refreshing) = {
            let known = self.known.read().unwrap_or_else(|e| e.into_inner());
            // The mall's data read again: its names are learned again now, not in 10 minutes.
            let due = known.due.map(|at| {
                if known.generation == services::embedded::data_generation() { at } else { Instant::now() }
            });
            (known.lexicon.clone(), due, known.refreshing)
        };
        match due {
            None => {
                learn_into(mall.as_ref(), &self.known).await;
                self.current()
            }
            Some(at) if at <= Instant::now() && !refreshing => {
                self.known.write().unwrap_or_else(|e| e.into_inner()).refreshing = true;
                let (mall, known) = (mall.clone(), self.known.clone());
                tokio::spawn(async move { learn_into(mall.as_ref(), &known).await });
                lexicon
            }
            Some(_) => lexicon,
        }
    }

    fn current(&self) -> Arc<Lexicon> {
        self.known.read().unwrap_or_else(|e| e.into_inner()).lexicon.clone()
    }
}

/// Learns the mall's names into `known`, logging the outcome.
async fn learn_into(mall: &dyn MallApi, known: &RwLock<Known>) {
    let generation = services::embedded::data_generation();
    let learned = Lexicon::learn(mall).await;
    let mut known = known.write().unwrap_or_else(|e| e.into_inner());
    known.refreshing = false;
    match learned {
        Ok(lexicon) => {
            let (brands, stores, areas) = lexicon.sizes();
            tracing::info!(brands, stores, areas, "offline planner learned the mall's names");
            known.lexicon = Arc::new(lexicon);
            known.due = Some(Instant::now() + LEXICON_REFRESH);
            known.generation = generation;
        }
        Err(error) => {
            tracing::warn!(%error, "offline planner could not read the mall's names; trying again shortly");
            known.due = Some(Instant::now() + LEXICON_RETRY);
        }
    }
}

#[async_trait]
impl ChatModel for OfflinePlanner {
    fn describe(&self) -> String {
        "offline".to_owned()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let names: Vec<&str> = request.tools.iter().map(|tool| tool.name()).collect();
        let lexicon = self.lexicon().await;
        let (message, finish_reason) = match plan(request.messages, &names, &lexicon) {
            Step::Call { tool, arguments } => {
                let id = format!("call_{}", previous_calls(request.messages) + 1);
                let call = ToolCall { id, name: tool.to_owned(), arguments: arguments.to_string() };
                (ChatMessage::assistant_calls(vec![call]), "tool_calls")
            }
            Step::Answer(text) => (ChatMessage::assistant(text), "stop"),
        };
        Ok(ChatResponse { message, finish_reason: Some(finish_reason.to_owned()), usage: Usage::default() })
    }
}

/// Tool calls already in the conversation, so new ids never repeat.
fn previous_calls(messages: &[ChatMessage]) -> usize {
    messages.iter().map(|m| m.tool_calls.len()).sum()
}
