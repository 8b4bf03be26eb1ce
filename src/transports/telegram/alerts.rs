//! Stock and price alerts on Telegram: the message an alert sends (what
//! changed, 🛒 to add it to the cart through the usual confirmation, 🧭 to
//! the store), `/alerts` with a button removing each, and those buttons.

use async_trait::async_trait;
use handlers::Lang;
use handlers::alert_book::{Alert, Want};
use handlers::format::money;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{InlineKeyboardButton, InlineKeyboardMarkup};

use super::callback::{ButtonData, CALLBACK_DATA_LIMIT};
use super::inbound::Handle;
use super::pay::TelegramTeller;
use super::send::{self, Target};
use crate::engine::alerts::{AlertTeller, News};
use crate::engine::context::ChosenLang;
use crate::engine::router::{Knock, Way};

#[async_trait]
impl AlertTeller for TelegramTeller {
    async fn tell_alert(&self, alert: &Alert, news: &News, due_ms: i64) -> Result<(), String> {
        let Some((platform, user_id)) = crate::engine::payments::events::shopper_of(&alert.user) else {
            return Ok(());
        };
        if platform != "telegram" {
            return Ok(());
        }
        let chosen = self.app.router.chosen_lang(platform, user_id).await;
        let lang = chosen.or_else(|| Lang::parse(&alert.lang)).unwrap_or(self.app.config.bot.language);
        // A message the bot sends by itself passes the door too (the allow-lists): a shopper
        // taken off `bot.allowed_users` since setting the alert hears nothing more.
        let knock =
            Knock { chosen: ChosenLang::Read(chosen), ..Knock::private(platform, user_id, lang, Way::Press) };
        // Told in the language the shopper now talks in, else the alert's.
        let lang = match self.app.router.admit(knock).await {
            Ok(admitted) => admitted.lang(),
            Err(_) => {
                tracing::info!(alert = %alert.id, "an alert of a shopper no longer allowed; not told");
                return Ok(());
            }
        };
        let text = alert_text(lang, alert, news);
        let markup = (*news != News::Expired).then(|| alert_buttons(lang, alert)).flatten();
        let target = Target { chat: ChatId(user_id), thread: None, reply_to: None };
        self.outbox.enqueue(&target, &text, markup, due_ms).await
    }
}

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
fn alert_buttons(lang: Lang, alert: &Alert) -> Option<InlineKeyboardMarkup> {
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
    pub(super) async fn show_alerts(&self, lang: Lang) -> Result<(), RequestError> {
        let user = format!("telegram:{}", self.user_id());
        let alerts = match self.tg.app.alerts.list(&user).await {
            Ok(alerts) => alerts,
            Err(e) => {
                tracing::warn!(error = %e, "could not read the shopper's alerts");
                return self.say(super::texts::apology(lang)).await;
            }
        };
        let text = crate::engine::alerts::list_text(lang, &alerts);
        let rows: Vec<Vec<InlineKeyboardButton>> = alerts
            .iter()
            .enumerate()
            .map(|(i, alert)| {
                let data = ButtonData::Unwatch(alert.id.clone()).encode();
                vec![InlineKeyboardButton::callback((lang.texts().alerts.remove_button)(i + 1), data)]
            })
            .collect();
        let markup = (!rows.is_empty()).then(|| InlineKeyboardMarkup::new(rows));
        self.tg.outbox.deliver_with_markup(&self.bot, &self.target, &text, markup).await.map(drop)
    }

    /// A remove button of `/alerts`, past the door as a press: only the shopper's own alert goes.
    pub(super) async fn on_unwatch_button(
        &self,
        query: &CallbackQuery,
        id: &str,
    ) -> Result<&'static str, RequestError> {
        if self.admit_press(query).await.is_none() {
            return Ok("refused");
        }
        let lang = self.lang().await;
        let user = format!("telegram:{}", self.user_id());
        match self.tg.app.alerts.remove(&user, id).await {
            Ok(Some(alert)) => {
                send::answer_press(&self.bot, query, None, false).await;
                let what = handlers::alerts::describe_named(lang, &alert.product_name, &alert.want);
                self.say(&(lang.texts().alerts.removed)(&what)).await?;
                Ok("answered")
            }
            Ok(None) => {
                send::answer_press(&self.bot, query, Some(lang.texts().alerts.gone), true).await;
                Ok("answered")
            }
            Err(e) => {
                tracing::warn!(error = %e, "could not remove an alert");
                send::answer_press(&self.bot, query, Some(super::texts::apology(lang)), true).await;
                Ok("failed")
            }
        }
    }

    /// 🛒 under an alert: `add_to_cart` held for the shopper's confirmation,
    /// through the door and the one confirmation service.
    pub(super) async fn on_cart_button(
        &self,
        query: &CallbackQuery,
        product_id: &str,
        size: Option<&str>,
    ) -> Result<&'static str, RequestError> {
        let lang = self.lang().await;
        send::answer_press(&self.bot, query, None, false).await;
        let mut ctx = self.context(lang.texts().alerts.cart_button.to_owned(), None).await;
        ctx.lang = lang;
        let admitted = match self.admit(&ctx, Way::Message).await? {
            Ok(admitted) => admitted,
            Err(outcome) => return Ok(outcome),
        };
        let router = &self.tg.app.router;
        let Some(tool) = router.find_tool("add_to_cart") else {
            return Ok("ignored");
        };
        let args = serde_json::json!({ "product_id": product_id, "sku_id": size, "quantity": 1 });
        let reply = match router.hold(&admitted, &tool, args).await {
            Ok(hold) => crate::engine::router::held_reply(lang, hold),
            Err(e) => crate::engine::router::hold_refused(lang, &e),
        };
        self.deliver(lang, &reply, None).await.map(|_| "answered")
    }
}
