//! Stock and price alerts on Telegram, as words and buttons: the message an
//! alert sends (what changed, 🛒 to add it to the cart through the usual
//! confirmation, 🧭 to the store; told by `teller.rs`), `/alerts` with a
//! button removing each, and those buttons, past the door. The alert book
//! itself is read and changed by the engine (`engine/alerts.rs`).

use handlers::Lang;
use handlers::alert_book::{Alert, Want};
use handlers::format::money;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};

use super::callback::{ButtonData, CALLBACK_DATA_LIMIT};
use super::handle::{ANSWERED, FAILED, Handle, IGNORED, Outcome};
use super::send;
use crate::engine::alerts::News;
use crate::engine::router::Admitted;

/// What an alert says when it wakes or runs out.
pub(crate) fn alert_text(lang: Lang, alert: &Alert, news: &News) -> String {
    let texts = &lang.texts().alerts;
    let name = &alert.product_name;
    match news {
        News::Restocked { sizes, price_cents } => {
            let price = price_cents.map(money).unwrap_or_default();
            (texts.told_restock)(name, &sizes.join("/"), &price)
        }
        News::Cheaper { old_cents, new_cents } => {
            (texts.told_price)(name, &money(*old_cents), &money(*new_cents))
        }
        News::Expired => (texts.expired)(&handlers::alerts::describe_named(lang, name, &alert.want)),
    }
}

/// 🛒 (the product, in the size waited for) and 🧭 (its store).
pub(crate) fn alert_buttons(lang: Lang, alert: &Alert) -> Option<InlineKeyboardMarkup> {
    let size = match &alert.want {
        Want::Restock { size } => size.clone(),
        Want::Price { .. } => None,
    };
    let mut row = Vec::new();
    let cart = ButtonData::Cart { product_id: alert.product_id.clone(), size }.encode();
    if cart.len() <= CALLBACK_DATA_LIMIT {
        row.push(InlineKeyboardButton::callback(lang.texts().alerts.cart_button, cart));
    }
    let route = ButtonData::Route(alert.store_id.clone()).encode();
    if !alert.store_id.is_empty() && route.len() <= CALLBACK_DATA_LIMIT {
        row.push(InlineKeyboardButton::callback(lang.texts().pay.directions_button, route));
    }
    (!row.is_empty()).then(|| InlineKeyboardMarkup::new(vec![row]))
}

impl Handle {
    /// `/alerts` in a private chat: the shopper's alerts, a button removing each.
    pub(super) async fn show_alerts(&self, admitted: &Admitted, lang: Lang) -> Result<(), RequestError> {
        let listing = match self.tg.app.alerts.listing(admitted, lang).await {
            Ok(listing) => listing,
            Err(e) => {
                tracing::warn!(error = %e, "could not read the shopper's alerts");
                return self.say(super::texts::apology(lang)).await;
            }
        };
        let rows: Vec<Vec<InlineKeyboardButton>> = listing
            .ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                let data = ButtonData::Unwatch(id.clone()).encode();
                vec![InlineKeyboardButton::callback((lang.texts().alerts.remove_button)(i + 1), data)]
            })
            .collect();
        let markup = (!rows.is_empty()).then(|| InlineKeyboardMarkup::new(rows));
        self.tg.outbox.deliver_with_markup(&self.bot, &self.target, &listing.text, markup).await.map(drop)
    }

    /// A remove button of `/alerts`, past the door as a press: only the shopper's own alert goes.
    pub(super) async fn on_unwatch_button(
        &self,
        admitted: &Admitted,
        query: &CallbackQuery,
        id: &str,
    ) -> Result<Outcome, RequestError> {
        let lang = self.lang();
        match self.tg.app.alerts.unwatch(admitted, id, lang).await {
            Ok(Some(what)) => {
                send::answer_press(&self.bot, query, None, false).await;
                self.say(&(lang.texts().alerts.removed)(&what)).await?;
                Ok(ANSWERED)
            }
            Ok(None) => {
                send::answer_press(&self.bot, query, Some(lang.texts().alerts.gone), true).await;
                Ok(ANSWERED)
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not remove an alert");
                send::answer_press(&self.bot, query, Some(super::texts::apology(lang)), true).await;
                Ok(FAILED)
            }
        }
    }

    /// 🛒 under an alert, past the door as the shopper's next message:
    /// `add_to_cart` held for the shopper's confirmation, through the one
    /// confirmation service.
    pub(super) async fn on_cart_button(
        &self,
        admitted: Admitted,
        query: &CallbackQuery,
        product_id: &str,
        size: Option<&str>,
    ) -> Result<Outcome, RequestError> {
        let lang = self.lang();
        send::answer_press(&self.bot, query, None, false).await;
        let router = &self.tg.app.router;
        let Some(tool) = router.find_tool("add_to_cart") else {
            return Ok(IGNORED);
        };
        let args = serde_json::json!({ "product_id": product_id, "sku_id": size, "quantity": 1 });
        let reply = match router.hold(&admitted, &tool, args).await {
            Ok(hold) => crate::engine::router::held_reply(lang, hold),
            Err(e) => crate::engine::router::hold_refused(lang, &e),
        };
        self.deliver(lang, &reply, None).await.map(|_| ANSWERED)
    }
}
