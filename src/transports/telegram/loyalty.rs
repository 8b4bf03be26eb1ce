//! `/car`, `/points` and `/coupons` on Telegram: the engine's answer
//! ([`crate::engine::commands::loyalty`]) with a ✖ under it for each plate and a claim
//! button for each coupon one can still claim; and those buttons, past the door. ✖ removes
//! the presser's own plate; a claim is held for the presser's ✅ through the confirmation
//! service, as `claim_coupon` is in a conversation.

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};

use super::callback::{ButtonData, CALLBACK_DATA_LIMIT};
use super::handle::{ANSWERED, FAILED, Handle, Outcome};
use super::incoming::Command;
use super::send;
use crate::engine::commands::LoyaltyButton;
use crate::engine::context::MessageContext;
use crate::engine::router::Admitted;

/// The inline buttons of a `/car` or `/coupons` answer, one a row.
fn buttons(lang: Lang, buttons: &[LoyaltyButton]) -> Option<InlineKeyboardMarkup> {
    let rows: Vec<Vec<InlineKeyboardButton>> = buttons
        .iter()
        .filter_map(|button| {
            let (label, data) = match button {
                LoyaltyButton::RemovePlate(plate) => {
                    (handlers::loyalty::remove_plate_label(plate), ButtonData::Unplate(plate.clone()))
                }
                LoyaltyButton::Claim { coupon_id, title } => {
                    (handlers::loyalty::claim_label(lang, title), ButtonData::Claim(coupon_id.clone()))
                }
            };
            let data = data.encode();
            (data.len() <= CALLBACK_DATA_LIMIT).then(|| vec![InlineKeyboardButton::callback(label, data)])
        })
        .collect();
    (!rows.is_empty()).then(|| InlineKeyboardMarkup::new(rows))
}

impl Handle {
    /// `/car`, `/points`, `/coupons` in a private chat, with the typing indicator on.
    pub(super) async fn loyalty_command(
        &self,
        admitted: &Admitted,
        ctx: MessageContext,
        command: Command,
    ) -> Result<(), RequestError> {
        let lang = ctx.lang;
        let router = self.tg.app.router.clone();
        let admitted = admitted.clone();
        let work = async move { crate::engine::commands::loyalty(&router, &admitted, &ctx, &command).await };
        let _typing = self.tg.typing.hold(&self.bot, &self.target);
        let answer = match tokio::spawn(work).await {
            Ok(answer) => answer,
            Err(e) => {
                tracing::error!(error = %e, "answering a loyalty command failed");
                return self.say(super::texts::apology(lang)).await;
            }
        };
        match buttons(lang, &answer.buttons) {
            Some(markup) if answer.reply.confirmation.is_none() => self
                .tg
                .outbox
                .deliver_with_markup(&self.bot, &self.target, &answer.reply.text, Some(markup))
                .await
                .map(drop),
            _ => self.deliver(lang, &answer.reply, None).await,
        }
    }

    /// ✖ under `/car`, past the door as a press: the presser's own plate goes, and what is
    /// left is said.
    pub(super) async fn on_unplate_button(
        &self,
        admitted: &Admitted,
        query: &CallbackQuery,
        plate: &str,
    ) -> Result<Outcome, RequestError> {
        let lang = self.lang();
        let mut ctx = self.tg.app.router.tool_context_for(admitted);
        ctx.lang = lang;
        match handlers::loyalty::remove_my_plate(&ctx, plate).await {
            Ok((text, plates)) => {
                send::answer_press(&self.bot, query, None, false).await;
                let left: Vec<LoyaltyButton> = plates.into_iter().map(LoyaltyButton::RemovePlate).collect();
                let markup = buttons(lang, &left);
                self.tg.outbox.deliver_with_markup(&self.bot, &self.target, &text, markup).await?;
                Ok(ANSWERED)
            }
            Err(e) => {
                let text = handlers::loyalty::command_failed(lang, &e);
                send::answer_press(&self.bot, query, Some(&text), true).await;
                Ok(FAILED)
            }
        }
    }

    /// A claim button under `/coupons`, past the door as the shopper's next message:
    /// `claim_coupon` held for the shopper's ✅.
    pub(super) async fn on_claim_button(
        &self,
        admitted: Admitted,
        query: &CallbackQuery,
        coupon_id: &str,
    ) -> Result<Outcome, RequestError> {
        let lang = self.lang();
        send::answer_press(&self.bot, query, None, false).await;
        let router = &self.tg.app.router;
        let args = serde_json::json!({ "coupon": coupon_id });
        let answer = crate::engine::commands::hold(router, &admitted, lang, "claim_coupon", args).await;
        self.deliver(lang, &answer.reply, None).await.map(|_| ANSWERED)
    }
}
