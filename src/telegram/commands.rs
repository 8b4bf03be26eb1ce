//! Commands on Telegram: what is Telegram's own — `/start` with the deep link
//! of a group hand-off, `/health`, `/stats`, `/ready` and `/pickedup` for the
//! admins — and the shared answers of
//! [`crate::commands`] for the rest, delivered with the typing indicator.

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{Me, User};

use super::Transport;
use super::inbound::{self, BotIdentity, Command};
use super::send::Target;
use crate::context::MessageContext;

impl Transport {
    /// Answers a command addressed to the bot.
    pub(super) async fn handle_command(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        from: &User,
        ctx: MessageContext,
        command: Command,
    ) -> Result<(), RequestError> {
        let lang = ctx.lang;
        match command {
            Command::Start(Some(payload)) if !ctx.is_group => {
                self.continue_hand_off(bot, me, target, from, &payload, lang).await
            }
            Command::Health if self.is_admin(ctx.user_id) && !ctx.is_group => {
                let report = self.health_report(bot, me, lang).await;
                self.say(bot, target, &report).await
            }
            Command::Stats if self.is_admin(ctx.user_id) && !ctx.is_group => {
                let stats = self.app.router.day_stats(lang).await;
                self.say(bot, target, &stats).await
            }
            Command::Ready(order) if self.is_admin(ctx.user_id) && !ctx.is_group => {
                let text = self.staff_command(order.as_deref(), true, lang).await;
                self.say(bot, target, &text).await
            }
            Command::PickedUp(order) if self.is_admin(ctx.user_id) && !ctx.is_group => {
                let text = self.staff_command(order.as_deref(), false, lang).await;
                self.say(bot, target, &text).await
            }
            Command::Health if self.is_admin(ctx.user_id) => {
                self.say(bot, target, lang.texts().commands.health_private_only).await
            }
            // The day's figures (shoppers, orders, errors) are not for a group to read.
            Command::Stats if self.is_admin(ctx.user_id) => {
                self.say(bot, target, lang.texts().commands.stats_private_only).await
            }
            command => self.shared_command(bot, me, target, ctx, command).await,
        }
    }

    /// A command answered the same way everywhere; one that asks the mall
    /// runs with the typing indicator on.
    async fn shared_command(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        ctx: MessageContext,
        command: Command,
    ) -> Result<(), RequestError> {
        self.app.stats.count_message();
        let (lang, user_id) = (ctx.lang, ctx.user_id);
        let router = self.app.router.clone();
        let reply = if command.asks_the_mall() {
            let work = async move { crate::commands::answer(&router, &ctx, &command).await };
            self.run_guarded(bot, target, lang, work).await
        } else {
            crate::commands::answer(&router, &ctx, &command).await
        };
        self.deliver(bot, me, target, lang, user_id, &reply, None).await
    }

    /// `/start <payload>` from a group hand-off link: the request carried
    /// over is answered here (the greeting if the link is unknown, expired or
    /// someone else's).
    async fn continue_hand_off(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        from: &User,
        payload: &str,
        lang: Lang,
    ) -> Result<(), RequestError> {
        let Some(request) = self.handoffs.take(payload, from.id.0 as i64).await else {
            return self.greet(bot, me, target, lang).await;
        };
        let mut ctx = self.context(from, target.chat, false, request, None);
        match inbound::parse_command(&ctx.text, &BotIdentity::from_me(me)) {
            Some(command @ (Command::Cart | Command::Orders)) => {
                ctx.lang = lang;
                self.shared_command(bot, me, target, ctx, command).await
            }
            _ => self.route(bot, me, target, ctx).await,
        }
    }

    /// The greeting with example requests as buttons.
    pub(super) async fn greet(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        lang: Lang,
    ) -> Result<(), RequestError> {
        self.app.stats.count_message();
        self.deliver(bot, me, target, lang, 0, &crate::commands::greeting(lang), None).await
    }
}
