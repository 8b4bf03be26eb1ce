//! One turn of a conversation: who it is for ([`TurnScope`]), what it has
//! gathered so far ([`Turn`]), how it ended ([`TurnEnd`]), and the two ends
//! of every turn — opening it with the conversation's history, and closing it
//! with the answer, the history saved and the tokens counted.

use handlers::Lang;

use super::{FunctionCallRouter, history};
use crate::context::MessageContext;
use crate::llm::{ChatMessage, Role, Usage};
use crate::pending::PendingAction;
use crate::reply::Reply;

/// Who a turn is for and where it happens.
#[derive(Debug, Clone)]
pub struct TurnScope {
    pub(super) platform: String,
    pub(super) user_id: i64,
    pub(super) chat_id: i64,
    pub(super) is_group: bool,
    pub(super) mentioned: bool,
    pub(super) lang: Lang,
}

impl TurnScope {
    pub(super) fn of(ctx: &MessageContext) -> Self {
        TurnScope {
            platform: ctx.platform.to_owned(),
            user_id: ctx.user_id,
            chat_id: ctx.chat_id,
            is_group: ctx.is_group,
            mentioned: ctx.mentioned,
            lang: ctx.lang,
        }
    }

    pub(super) fn of_action(action: &PendingAction) -> Self {
        TurnScope {
            platform: action.platform.clone(),
            user_id: action.user_id,
            chat_id: action.chat_id,
            is_group: action.is_group,
            mentioned: true,
            lang: action.lang,
        }
    }

    pub(super) fn conversation(&self) -> String {
        crate::context::conversation_key(&self.platform, self.chat_id, self.user_id)
    }
}

/// A tool loop in progress.
pub(super) struct Turn {
    pub(super) scope: TurnScope,
    /// History plus this turn's messages (no system prompt).
    pub(super) messages: Vec<ChatMessage>,
    pub(super) rounds_used: u32,
    /// The model could not be reached: the offline planner plays it.
    pub(super) basic_mode: bool,
    pub(super) usage: Usage,
    /// The last suggestion buttons a tool offered.
    pub(super) suggestions: Vec<String>,
    /// The last picture a tool offered.
    pub(super) image: Option<String>,
    pub(super) tools_ran: bool,
}

impl Turn {
    /// A turn continuing `messages` (a new message's, or a resumed loop's).
    pub(super) fn new(scope: TurnScope, messages: Vec<ChatMessage>) -> Self {
        Turn {
            scope,
            messages,
            rounds_used: 0,
            basic_mode: false,
            usage: Usage::default(),
            suggestions: Vec::new(),
            image: None,
            tools_ran: false,
        }
    }
}

/// How a turn ended.
pub(super) enum TurnEnd {
    /// The model answered in text (empty: a short "done").
    Answer(String),
    /// The model had nothing to do with the message: small talk.
    SmallTalk,
    /// The round limit was reached, or three rounds in a row failed.
    GaveUp,
    /// The turn stopped with this reply (a confirmation question, a group
    /// hand-off); `turn.messages` already holds what the history should keep.
    Stopped(Reply),
    /// The turn could not be kept (the state store failed): this reply, and
    /// nothing saved.
    Unsaved(Reply),
}

impl FunctionCallRouter {
    /// Stage: the conversation's history plus the shopper's message.
    pub(super) async fn open_turn(&self, ctx: &MessageContext) -> Turn {
        let mut messages = match self.state.load_history(&ctx.conversation_key()).await {
            Ok(history) => history,
            Err(e) => {
                tracing::error!(error = %e, "could not load the conversation; answering without it");
                self.stats.count_error();
                Vec::new()
            }
        };
        messages.push(ChatMessage::user(ctx.text.clone()));
        Turn::new(TurnScope::of(ctx), messages)
    }

    /// Stage: the reply of a finished turn; the history and the tokens are saved.
    pub(super) async fn close_turn(&self, mut turn: Turn, end: TurnEnd, user_text: &str) -> Reply {
        let lang = turn.scope.lang;
        let reply = match end {
            TurnEnd::Unsaved(reply) => return reply,
            TurnEnd::Stopped(reply) => reply,
            TurnEnd::SmallTalk => {
                let history: Vec<ChatMessage> = turn
                    .messages
                    .iter()
                    .filter(|m| m.tool_calls.is_empty() && m.role != Role::Tool)
                    .cloned()
                    .collect();
                let reply = self.chat.reply(&history, user_text, lang, !turn.basic_mode).await;
                turn.messages.push(ChatMessage::assistant(reply.text.clone()));
                reply
            }
            TurnEnd::Answer(text) => {
                let text = match text.trim() {
                    "" => lang.pick("好的，已经处理好了。", "Done.").to_owned(),
                    text => text.to_owned(),
                };
                self.answer(&mut turn, text)
            }
            TurnEnd::GaveUp => {
                let text = lang.pick(
                    "抱歉，这个问题我没能在限定步骤内处理完。可以换个说法，或者把需求拆开一点吗？",
                    "Sorry, I couldn't finish that within my step limit. Could you rephrase it or ask one thing at a time?",
                );
                self.answer(&mut turn, text.to_owned())
            }
        };
        let total = self.add_usage(&turn.scope, turn.usage).await;
        tracing::info!(
            conversation = %turn.scope.conversation(),
            rounds = turn.rounds_used,
            tokens_in = turn.usage.prompt_tokens,
            tokens_out = turn.usage.completion_tokens,
            tokens_cached = turn.usage.cached_tokens,
            conversation_tokens_in = total.prompt_tokens,
            conversation_tokens_out = total.completion_tokens,
            basic_mode = turn.basic_mode,
            "turn finished"
        );
        self.save_history(&turn.scope, turn.messages).await;
        reply
    }

    /// The text answer of a turn, with the basic-mode note when the model was
    /// unreachable, the tools' suggestions and picture; remembered in the turn.
    fn answer(&self, turn: &mut Turn, text: String) -> Reply {
        let text = if turn.basic_mode {
            let note = turn.scope.lang.pick(
                "（基础模式：智能助手暂时连接不上，我先用简化方式为您服务。）",
                "(Basic mode: the assistant can't be reached right now, so I'm answering in a simpler way.)",
            );
            format!("{text}\n\n{note}")
        } else {
            text
        };
        turn.messages.push(ChatMessage::assistant(text.clone()));
        let mut suggestions = std::mem::take(&mut turn.suggestions);
        suggestions.truncate(4);
        Reply { text, suggestions, image: turn.image.take(), ..Default::default() }
    }

    /// Adds a turn's tokens to its conversation's total (kept with the
    /// conversation's lifetime) and returns the new total.
    pub(super) async fn add_usage(&self, scope: &TurnScope, usage: Usage) -> Usage {
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

    pub(super) async fn save_history(&self, scope: &TurnScope, messages: Vec<ChatMessage>) {
        let kept = history::truncate(messages, self.settings.history_messages);
        let kept = history::fit_tokens(kept, self.settings.history_tokens);
        if let Err(e) = self.state.save_history(&scope.conversation(), &kept, self.settings.history_ttl).await
        {
            tracing::error!(error = %e, "could not save the conversation");
            self.stats.count_error();
        }
    }
}
