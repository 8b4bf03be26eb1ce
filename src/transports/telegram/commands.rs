//! Commands on Telegram: what is Telegram's own — `/start` with the deep link
//! of a group hand-off, `/health`, `/stats`, `/ready` and `/pickedup` for the
//! admins, `/car`, `/points` and `/coupons` with their buttons (`loyalty.rs`) — and the shared answers of
//! [`crate::engine::commands`] for the rest, delivered with the typing indicator.

use handlers::Lang;
use teloxide::RequestError;

use super::handle::Handle;
use super::incoming::{self, BotIdentity, Command};
use crate::engine::context::MessageContext;
use crate::engine::router::Admitted;

impl Handle {
    /// Answers a command addressed to the bot.
    pub(super) async fn handle_command(
        &self,
        admitted: Admitted,
        ctx: MessageContext,
        command: Command,
    ) -> Result<(), RequestError> {
        let lang = ctx.lang;
        let admin = admitted.is_admin();
        match command {
            Command::Start(Some(payload)) if !ctx.is_group => {
                self.continue_hand_off(admitted, &payload, lang).await
            }
            Command::Health if admin && !ctx.is_group => {
                let report = self.tg.health_report(&self.bot, &self.me, lang).await;
                self.say(&report).await
            }
            Command::Stats if admin && !ctx.is_group => {
                let stats = self.tg.app.router.day_stats(lang).await;
                self.say(&stats).await
            }
            Command::Ready(order) if admin && !ctx.is_group => {
                let text = self.tg.staff_command(order.as_deref(), true, lang).await;
                self.say(&text).await
            }
            Command::PickedUp(order) if admin && !ctx.is_group => {
                let text = self.tg.staff_command(order.as_deref(), false, lang).await;
                self.say(&text).await
            }
            Command::Report(period) if admin && !ctx.is_group => {
                // Read off the admin's lane: their next command does not wait for it.
                let handle = self.clone();
                tokio::spawn(async move {
                    let report =
                        crate::engine::commands::report(&handle.tg.app.router, period.as_deref()).await;
                    // Shoppers' words in it are shown as written, never as links.
                    if let Err(e) = handle.say(&crate::engine::support::literal(&report)).await {
                        tracing::warn!(error = %e, "could not send the report");
                    }
                });
                Ok(())
            }
            Command::Report(_) if admin => self.say(lang.texts().support.report_private_only).await,
            Command::Alerts if !ctx.is_group => self.show_alerts(&admitted, lang).await,
            command if command.is_loyalty() && !ctx.is_group => {
                self.loyalty_command(&admitted, ctx, command).await
            }
            Command::Health if admin => self.say(lang.texts().commands.health_private_only).await,
            // The day's figures (shoppers, orders, errors) are not for a group to read.
            Command::Stats if admin => self.say(lang.texts().commands.stats_private_only).await,
            command => self.shared_command(ctx, command).await,
        }
    }

    /// A command answered the same way everywhere; one that asks the mall
    /// runs with the typing indicator on.
    async fn shared_command(&self, ctx: MessageContext, command: Command) -> Result<(), RequestError> {
        let lang = ctx.lang;
        let router = self.tg.app.router.clone();
        let reply = if command.asks_the_mall() {
            let work = async move { crate::engine::commands::answer(&router, &ctx, &command).await };
            self.run_guarded(work).await
        } else {
            crate::engine::commands::answer(&router, &ctx, &command).await
        };
        self.deliver(lang, &reply, None).await
    }

    /// `/start <payload>` from a group hand-off link: the request carried
    /// over is answered here (the greeting if the link is unknown, expired or
    /// someone else's).
    async fn continue_hand_off(
        &self,
        admitted: Admitted,
        payload: &str,
        lang: Lang,
    ) -> Result<(), RequestError> {
        let Some(request) = self.tg.handoffs.take(payload, self.user_id()).await else {
            return self.greet(lang).await;
        };
        let mut ctx = self.context(request, None);
        match incoming::parse_command(&ctx.text, &BotIdentity::from_me(&self.me)) {
            Some(command @ (Command::Cart | Command::Orders)) => {
                ctx.lang = lang;
                self.shared_command(ctx, command).await
            }
            Some(command) if command.is_loyalty() => {
                ctx.lang = lang;
                self.loyalty_command(&admitted, ctx, command).await
            }
            _ => self.route(admitted, ctx).await,
        }
    }

    /// The greeting with example requests as buttons.
    pub(super) async fn greet(&self, lang: Lang) -> Result<(), RequestError> {
        let examples = self.tg.app.router.examples().await.requests(lang);
        self.deliver(lang, &crate::engine::commands::greeting(lang, examples), None).await
    }
}
