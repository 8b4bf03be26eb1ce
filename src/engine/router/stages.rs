//! The way of a message and of a press through the router's parts: the
//! door, then the turn (with the conversation's lock, the one-time code, the
//! tool loop); a press's claim carried out by the confirmation service and
//! the chat's tool loop resumed ([`FunctionCallRouter::finish_claim`], the
//! one way back into a loop that stopped at a confirmation).

use std::time::Instant;

use handlers::Lang;
use tracing::Instrument;

use super::confirm::{Carried, CodeTyped, changed_reply, placed_order};
use super::{Admitted, FunctionCallRouter, Knock, Presser, Way};
use crate::engine::context::{ChosenLang, MessageContext};
use crate::engine::pending::Claim;
use crate::engine::progress::Progress;
use crate::engine::reply::{ConfirmationPress, PressCheck, Reply};

impl FunctionCallRouter {
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
        match self.door.admit(Knock::message(ctx, ChosenLang::Unread)).await {
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
            && self.turns.only_names(&ctx.text).await;
        // A first message that is only one of the mall's names ("labubu") says no language either.
        let spoken = if first_name { ctx.lang } else { admitted.spoken(&ctx.text, ctx.lang) };
        if admitted.conversation_lang() != Some(spoken) {
            self.door.remember_conversation_lang(&ctx.conversation_key(), spoken).await;
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
            return self.desk.handoff_reply(&ctx.conversation_key(), ctx.lang, reason).await;
        }
        self.turns
            .locks
            .locked(
                &ctx.conversation_key(),
                Box::pin(async {
                    if let Some(reply) = self.try_code(admitted, ctx).await {
                        return reply;
                    }
                    self.turns.take(ctx, admitted.budget(), progress).await
                }),
            )
            .await
    }

    /// A typed one-time code for an order waiting for it: carried out, and
    /// the chat's loop resumed; `None` when the message answers no code.
    pub(super) async fn try_code(&self, admitted: &Admitted, ctx: &MessageContext) -> Option<Reply> {
        Some(match self.confirmations.code_typed(admitted, ctx).await? {
            CodeTyped::Accepted { claim, outcome } => {
                // Boxed: a rare path that would otherwise size every message's future.
                let follow_up = Box::pin(self.finish_claim(claim, &Progress::none())).await;
                Reply { text: format!("{outcome}\n\n{}", follow_up.text), ..follow_up }
            }
            CodeTyped::Told(text) => Reply::text(text),
        })
    }

    /// A press by a chat's shopper (the terminal chat, tests): the door for
    /// a press, then [`FunctionCallRouter::press_as`].
    pub async fn press(&self, press: &ConfirmationPress) -> PressCheck {
        // The action's platform is the presser's namespace: a chat press
        // acts in the namespace it was asked in.
        let platform = self.confirmations.owner_platform(&press.token).await;
        let knock = Knock {
            platform: platform.unwrap_or("telegram"),
            user_id: press.user_id,
            chat_id: press.chat_id,
            lang: Lang::Zh,
            chosen: ChosenLang::Read(None),
            said: handlers::Said::Nothing,
            way: Way::Press,
        };
        match self.door.admit(knock).await {
            Ok(admitted) => {
                self.confirmations.press_as(&admitted, &press.token, press.approve, Presser::Chat).await
            }
            Err(turned) => PressCheck::NotYours { alert: turned.message().to_owned() },
        }
    }

    /// Runs (or declines) a claimed action and resumes the tool loop; the
    /// reply is the model's follow-up, or a new confirmation when an order's
    /// price or stock changed.
    pub async fn finish(&self, claim: Box<Claim>) -> Reply {
        self.finish_live(claim, &Progress::none()).await
    }

    /// [`FunctionCallRouter::finish`], reporting the resumed loop's progress.
    pub(crate) async fn finish_live(&self, claim: Box<Claim>, progress: &Progress) -> Reply {
        let turn = crate::engine::stats::new_turn_id();
        let span = tracing::info_span!(
            "confirmation",
            turn = %turn,
            token = %claim.stored.token,
            tool = %claim.action.call.name,
            approve = claim.approve
        );
        let conversation = claim.action.conversation_key();
        // The trace of the turn that asked goes on with the press.
        let agent = crate::infra::otel::resumed_turn_span(
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
        let trace = crate::infra::otel::traceparent_of(&agent);
        let reply_trace = trace.clone();
        let finishing = async move {
            let reply =
                self.turns.locks.locked(&conversation, Box::pin(self.finish_claim(claim, progress))).await;
            crate::infra::otel::record_answer(&answered, &reply.text);
            Reply { trace: reply_trace, ..reply }
        }
        .instrument(span)
        .instrument(agent);
        crate::engine::stats::TURN.scope(turn, crate::infra::otel::in_trace(trace, finishing)).await
    }

    /// The one way back into a chat's tool loop after a confirmation (a
    /// press, a typed code): the claimed action carried out by the
    /// confirmation service, the loop that held it resumed with its result
    /// by the turns, and how a placed order is paid told.
    async fn finish_claim(&self, claim: Box<Claim>, progress: &Progress) -> Reply {
        let (action, approved, result_text, result) = match self.confirmations.carry_out(claim).await {
            Carried::Done { action, approved, text, result } => (action, approved, text, result),
            Carried::Changed { action, held } => return changed_reply(&action, held),
        };
        let placed = placed_order(&action, approved, &result_text);
        let bill =
            crate::engine::payments::parking::confirmed_bill(&action.call.name, approved, &result_text);
        let lang = action.lang;
        let reply = match action.assistant.is_some() {
            true => self.turns.resume(action, result_text, progress).await,
            // A change held outside the chat has no loop to resume: what was done, in the
            // tool's own words when it has them (a refusal's reason too).
            false => {
                let said = held_words(&action.call.name, lang, result.as_ref());
                Reply::text(said.unwrap_or_else(|| action.outcome.clone().unwrap_or_default()))
            }
        };
        let reply = self.confirmations.told_how_to_pay(reply, placed, lang);
        let online = self.confirmations.payments_online();
        crate::engine::payments::parking::told_how_to_pay(reply, bill, online, lang).written_in(lang, "")
    }
}

/// What a call held outside a chat's conversation did, in the tool's own words: its basic
/// mode's answer to the result, or the mall's refusal; `None`: the outcome line says it.
fn held_words(
    tool: &str,
    lang: Lang,
    result: Option<&Result<handlers::ToolOutput, handlers::ToolError>>,
) -> Option<String> {
    let texts = lang.texts();
    match result? {
        Ok(output) => {
            let hook = handlers::find(tool)?.offline?;
            (hook.answer)(texts.tool_lang, &output.data).map(|text| (texts.tool_text)(text))
        }
        Err(handlers::ToolError::Refused { message, .. }) => Some(message.clone()),
        Err(_) => None,
    }
}
