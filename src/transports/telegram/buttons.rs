//! Presses, past the door: the bot's buttons and the reactions to its
//! answers.
//!
//! [`on_press`] reads the button (`callback.rs`) and hands it to its job:
//! Confirm / Cancel (`router.press_as`, then `finish_live`), a suggestion
//! (the presser's next message; to the person they talk to, when they do),
//! 🧭 (the way to a store, asked as the shopper's next message), 💳 (a new
//! invoice of an unpaid order, `pay.rs`), the service desk's buttons
//! (`desk.rs`), the alerts' 🛒 and ✖ (`alerts.rs`), and `/car`'s ✖ and `/coupons`' claim
//! (`loyalty.rs`). Every press is
//! answered (Telegram shows a spinner until it is). [`on_reaction`]: a 👍 or
//! 👎 newly put on an answer in a private chat counts in the report, with
//! the answer's question and tools (kept with the message when it was
//! sent); one rating per shopper and answer, the last one standing.

use handlers::format::store_name;
use teloxide::RequestError;
use teloxide::prelude::*;

use super::callback::ButtonData;
use super::handle::{ANSWERED, Handle, IGNORED, Outcome};
use super::send;
use super::texts;
use crate::engine::reply::PressCheck;
use crate::engine::router::{Admitted, Presser};

/// A press the door admitted: the query, and its button as read.
#[derive(Debug, Clone)]
pub(crate) struct Press {
    pub(crate) query: Box<CallbackQuery>,
    /// `None`: data that is none of the bot's buttons.
    pub(crate) button: Option<ButtonData>,
}

/// A reaction the door admitted: the answer reacted to, and the rating
/// standing now (`Some(true)` 👍, `Some(false)` 👎, `None` taken back).
#[derive(Debug, Clone)]
pub(crate) struct Reaction {
    pub(crate) message_id: i32,
    pub(crate) now: Option<bool>,
}

/// The endpoint of a press: its button's job.
pub(crate) async fn on_press(
    handle: Handle,
    admitted: Admitted,
    press: Press,
) -> Result<Outcome, RequestError> {
    let query = &press.query;
    let Some(message) = query.regular_message() else {
        let expired = texts::button_expired(handle.lang());
        send::answer_press(&handle.bot, query, Some(expired), true).await;
        return Ok(IGNORED);
    };
    match press.button {
        Some(ButtonData::Confirmation { token, approve }) => {
            handle.on_confirmation(admitted, query, message, token, approve).await
        }
        Some(ButtonData::Suggestion(index)) => handle.on_suggestion(admitted, query, message, index).await,
        Some(ButtonData::Pay(order_id)) => handle.on_pay_button(query, &order_id).await,
        Some(ButtonData::Route(store_id)) => handle.on_route_button(admitted, query, &store_id).await,
        Some(ButtonData::Desk(action)) => handle.on_desk_button(query, message, action).await,
        Some(ButtonData::Cart { product_id, size }) => {
            handle.on_cart_button(admitted, query, &product_id, size.as_deref()).await
        }
        Some(ButtonData::Unwatch(id)) => handle.on_unwatch_button(&admitted, query, &id).await,
        Some(ButtonData::Unplate(plate)) => handle.on_unplate_button(&admitted, query, &plate).await,
        Some(ButtonData::Claim(coupon_id)) => handle.on_claim_button(admitted, query, &coupon_id).await,
        None => {
            send::answer_press(&handle.bot, query, None, false).await;
            Ok(ANSWERED)
        }
    }
}

impl Handle {
    /// Confirm / Cancel: answer the press first, then show the outcome in
    /// place of the buttons, then run the action and send its result.
    async fn on_confirmation(
        &self,
        admitted: Admitted,
        query: &CallbackQuery,
        message: &Message,
        token: String,
        approve: bool,
    ) -> Result<Outcome, RequestError> {
        let (bot, lang) = (&self.bot, self.lang());
        let router = self.tg.app.router.clone();
        let check =
            match tokio::spawn(
                async move { router.press_as(&admitted, &token, approve, Presser::Chat).await },
            )
            .await
            {
                Ok(check) => check,
                Err(e) => {
                    tracing::error!(error = %e, "checking a button press failed");
                    self.tg.app.stats.record_error("checking a button press failed (panic)");
                    send::answer_press(bot, query, Some(texts::apology(lang)), true).await;
                    return Ok(ANSWERED);
                }
            };
        match check {
            PressCheck::Accepted { claim, outcome } => {
                send::answer_press(bot, query, None, false).await;
                send::close_buttons(bot, message, &outcome).await;
                let router = self.tg.app.router.clone();
                self.run_live(claim.action.lang, move |progress| async move {
                    router.finish_live(claim, &progress).await
                })
                .await
                .map(|_| ANSWERED)
            }
            PressCheck::NotYours { alert } => {
                send::answer_press(bot, query, Some(&alert), true).await;
                Ok(ANSWERED)
            }
            PressCheck::AlreadyDone { alert } | PressCheck::Failed { alert } => {
                send::answer_press(bot, query, Some(&alert), false).await;
                Ok(ANSWERED)
            }
            PressCheck::Expired { alert } => {
                send::answer_press(bot, query, Some(&alert), false).await;
                send::close_buttons(bot, message, &alert).await;
                Ok(ANSWERED)
            }
            PressCheck::CodeRequired { message: prompt } => {
                send::answer_press(bot, query, None, false).await;
                send::close_buttons(bot, message, texts::code_needed(lang)).await;
                self.deliver_text(&prompt).await.map(|_| ANSWERED)
            }
        }
    }

    /// A suggestion button: sent on as the presser's next message (the door
    /// let it in as one); to the person they talk to, when they do.
    async fn on_suggestion(
        &self,
        admitted: Admitted,
        query: &CallbackQuery,
        message: &Message,
        index: usize,
    ) -> Result<Outcome, RequestError> {
        let Some(text) = send::pressed_suggestion(message, index) else {
            send::answer_press(&self.bot, query, Some(texts::button_expired(self.lang())), true).await;
            return Ok(ANSWERED);
        };
        send::answer_press(&self.bot, query, None, false).await;
        send::close_buttons(&self.bot, message, &format!("› {text}")).await;
        // Talking to a person: the press goes to them, the bot stays quiet.
        if self.pressed_to_desk(&text).await? {
            return Ok(ANSWERED);
        }
        let ctx = self.context(text, None);
        self.handle_text(admitted, ctx).await
    }

    /// The 🧭 button: the way to the store, asked as the shopper's next message.
    async fn on_route_button(
        &self,
        admitted: Admitted,
        query: &CallbackQuery,
        store_id: &str,
    ) -> Result<Outcome, RequestError> {
        let lang = self.lang();
        send::answer_press(&self.bot, query, None, false).await;
        let name = match self.tg.app.mall.get_store(store_id).await {
            Ok(store) => store_name(lang, &store).into_owned(),
            Err(_) => store_id.to_owned(),
        };
        let text = (lang.texts().pay.directions_request)(&name);
        let mut ctx = self.context(text, None);
        ctx.lang = lang;
        self.route(admitted, ctx).await.map(|_| ANSWERED)
    }

    /// The 💳 button of an unpaid order: a new invoice for the same order.
    async fn on_pay_button(&self, query: &CallbackQuery, order_id: &str) -> Result<Outcome, RequestError> {
        let lang = self.lang();
        send::answer_press(&self.bot, query, None, false).await;
        if !self.tg.payments_on() {
            self.say(lang.texts().pay.pay_at_store).await?;
            return Ok(ANSWERED);
        }
        self.send_invoice(lang, order_id).await.map(|_| ANSWERED)
    }
}

/// The endpoint of a reaction to one of the bot's answers: the shopper's
/// rating of it kept and counted in the report, when it changed.
pub(crate) async fn on_reaction(
    handle: Handle,
    admitted: Admitted,
    reaction: Reaction,
) -> Result<Outcome, RequestError> {
    let app = &handle.tg.app;
    let (chat, message_id, user_id) = (admitted.chat_id(), reaction.message_id, admitted.user_id());
    let rated = match crate::engine::report::rated_answer(app.state.as_ref(), chat, message_id).await {
        Ok(rated) => rated,
        Err(e) => {
            tracing::warn!(error = %e, "could not read what a reaction is about");
            None
        }
    };
    let Some(rated) = rated else {
        return Ok(IGNORED);
    };
    let keep = app.router.report_keep();
    let standing = crate::engine::report::standing_rating(app.state.as_ref(), chat, message_id, user_id);
    let before = match standing.await {
        Ok(rating) => rating,
        Err(e) => {
            tracing::warn!(error = %e, "could not read the shopper's rating of the answer");
            return Ok(IGNORED);
        }
    };
    if before.map(|b| b.up) == reaction.now {
        return Ok(IGNORED);
    }
    let after =
        reaction.now.map(|up| crate::engine::report::Rating { up, day: crate::engine::report::today() });
    let kept = crate::engine::report::keep_standing_rating(
        app.state.as_ref(),
        chat,
        message_id,
        user_id,
        after.as_ref(),
        keep,
    )
    .await;
    if let Err(e) = kept {
        tracing::warn!(error = %e, "could not keep the shopper's rating of the answer");
        return Ok(IGNORED);
    }
    crate::engine::report::rerate(app.state.as_ref(), keep, before, after, &rated).await;
    Ok(ANSWERED)
}
