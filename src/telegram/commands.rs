//! The bot's commands: `/start` (with the deep link of a group hand-off),
//! `/help`, `/cart`, `/orders`, `/reset`, `/lang` and the admins' `/health`.

use handlers::Lang;
use teloxide::RequestError;
use teloxide::prelude::*;
use teloxide::types::{Me, User};

use super::inbound::{self, BotIdentity, Command};
use super::send::Target;
use super::{Transport, texts};
use crate::context::MessageContext;
use crate::reply::Reply;

/// The commands answered without the model.
#[derive(Debug, Clone, Copy)]
enum Shortcut {
    Cart,
    Orders,
}

impl Shortcut {
    fn command(self) -> &'static str {
        match self {
            Shortcut::Cart => "/cart",
            Shortcut::Orders => "/orders",
        }
    }
}

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
        let router = self.app.router.clone();
        match command {
            Command::Start(Some(payload)) if !ctx.is_group => {
                self.continue_hand_off(bot, me, target, from, &payload, lang).await
            }
            Command::Start(_) => self.greet(bot, me, target, lang).await,
            Command::Help => {
                let tools = router.tools_for(ctx.is_group, true);
                self.say(bot, target, &texts::help(lang, &tools, ctx.is_group)).await
            }
            Command::Cart => self.shortcut(bot, me, target, ctx, Shortcut::Cart).await,
            Command::Orders => self.shortcut(bot, me, target, ctx, Shortcut::Orders).await,
            Command::Reset => {
                router.reset(&ctx).await;
                self.say(bot, target, texts::reset_done(lang)).await
            }
            Command::Lang(arg) => match arg.as_deref().and_then(Lang::parse) {
                Some(chosen) => {
                    router.set_lang(&ctx, chosen).await;
                    self.say(bot, target, texts::lang_set(chosen)).await
                }
                None => self.say(bot, target, texts::lang_usage(lang)).await,
            },
            Command::Health if self.is_admin(ctx.user_id) && !ctx.is_group => {
                let report = self.health_report(bot, me, lang).await;
                self.say(bot, target, &report).await
            }
            Command::Health if self.is_admin(ctx.user_id) => {
                self.say(
                    bot,
                    target,
                    lang.pick("请在私聊里使用 /health。", "Please use /health in a private chat."),
                )
                .await
            }
            Command::Health | Command::Unknown => self.say(bot, target, texts::unknown_command(lang)).await,
        }
    }

    /// `/cart` or `/orders`: answered directly, without the model. In a group
    /// the answer carries a button that continues in the private chat.
    async fn shortcut(
        &self,
        bot: &Bot,
        me: &Me,
        target: &Target,
        ctx: MessageContext,
        which: Shortcut,
    ) -> Result<(), RequestError> {
        self.app.stats.count_message();
        let (lang, user_id, is_group) = (ctx.lang, ctx.user_id, ctx.is_group);
        let router = self.app.router.clone();
        let mut reply = self
            .run_guarded(bot, target, lang, async move {
                match which {
                    Shortcut::Cart => router.show_cart(&ctx).await,
                    Shortcut::Orders => router.show_orders(&ctx).await,
                }
            })
            .await;
        if is_group {
            reply.open_private = Some(which.command().to_owned());
        }
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
            Some(Command::Cart) => {
                ctx.lang = lang;
                self.shortcut(bot, me, target, ctx, Shortcut::Cart).await
            }
            Some(Command::Orders) => {
                ctx.lang = lang;
                self.shortcut(bot, me, target, ctx, Shortcut::Orders).await
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
        let reply = Reply { suggestions: texts::examples(lang), ..Reply::text(texts::greeting(lang)) };
        self.deliver(bot, me, target, lang, 0, &reply, None).await
    }
}
