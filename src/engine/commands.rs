//! The commands a shopper types — `/start`, `/help`, `/cart`, `/orders`,
//! `/reset`, `/lang`, and the operators' `/health` and `/stats` — the same in Telegram and
//! the terminal chat: one enum, one parser, one set of answers. Transports
//! only add what is theirs (Telegram's deep links and who counts as an admin).

use handlers::{Lang, Scope, ToolSpec};

use crate::engine::context::MessageContext;
use crate::engine::reply::Reply;
use crate::engine::router::FunctionCallRouter;

/// A command addressed to the bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `/start`, with the deep-link payload if any.
    Start(Option<String>),
    /// `/help`.
    Help,
    /// `/cart`.
    Cart,
    /// `/orders`.
    Orders,
    /// `/reset`.
    Reset,
    /// `/lang`, with its argument if any.
    Lang(Option<String>),
    /// `/health` (operators only).
    Health,
    /// `/stats`: the day's figures (operators only).
    Stats,
    /// `/voice FILE`: the terminal chat sends a recording as a voice message.
    Voice(Option<String>),
    /// `/photo FILE [caption]`: the terminal chat sends a picture as a photo.
    Photo(Option<String>),
    /// `/ready ORDER`: staff mark an order ready for pickup (admins only).
    Ready(Option<String>),
    /// `/pickedup ORDER`: staff mark an order picked up (admins only).
    PickedUp(Option<String>),
    /// `/report [period]`: what went unanswered (operators only, private chat).
    Report(Option<String>),
    /// `/human [reason]`: a person at the service desk (in the terminal chat,
    /// what would be sent to the desk).
    Human(Option<String>),
    /// `/pay`: the terminal chat pays its last invoice with a test payment.
    Pay,
    /// `/alerts`: the shopper's stock and price alerts.
    Alerts,
    /// Any other command.
    Unknown,
}

impl Command {
    /// The commands shown in Telegram's command menu; their descriptions are
    /// `menu` in the text tables, in this order. `/health` is not listed.
    pub(crate) const MENU: [&'static str; 6] = ["start", "help", "cart", "orders", "reset", "lang"];

    /// The command menu in `lang`: (command, description).
    pub(crate) fn menu(lang: Lang) -> impl Iterator<Item = (&'static str, &'static str)> {
        Command::MENU.into_iter().zip(lang.texts().commands.menu)
    }

    /// Reads `/name[@bot] [argument]`. `is_me` tells whether a `@bot` suffix
    /// names this bot; a command for another bot is [`Command::Unknown`].
    /// `None` when the text is not a command.
    pub(crate) fn parse(text: &str, is_me: impl Fn(&str) -> bool) -> Option<Command> {
        let rest = text.trim_start().strip_prefix('/')?;
        let (head, arg) = match rest.split_once(char::is_whitespace) {
            Some((head, arg)) => (head, Some(arg.trim()).filter(|a| !a.is_empty()).map(str::to_owned)),
            None => (rest, None),
        };
        let (name, target) = match head.split_once('@') {
            Some((name, target)) => (name, Some(target)),
            None => (head, None),
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        if target.is_some_and(|t| !is_me(t)) {
            return Some(Command::Unknown);
        }
        Some(match name.to_ascii_lowercase().as_str() {
            "start" => Command::Start(arg),
            "help" => Command::Help,
            "cart" => Command::Cart,
            "orders" => Command::Orders,
            "reset" => Command::Reset,
            "lang" | "language" => Command::Lang(arg),
            "health" => Command::Health,
            "stats" => Command::Stats,
            "voice" => Command::Voice(arg),
            "photo" => Command::Photo(arg),
            "ready" => Command::Ready(arg),
            "pickedup" | "picked_up" => Command::PickedUp(arg),
            "pay" => Command::Pay,
            "human" | "staff" => Command::Human(arg),
            "report" => Command::Report(arg),
            "alerts" | "alert" => Command::Alerts,
            _ => Command::Unknown,
        })
    }

    /// Whether the answer runs a tool against the mall (and so may be slow).
    pub(crate) fn asks_the_mall(&self) -> bool {
        matches!(self, Command::Cart | Command::Orders)
    }
}

/// `/report [period]` (default 7 days): the report as text, or what is wrong. A period
/// longer than `report.keep_days` is cut to it, and the admin told.
pub(crate) async fn report(router: &FunctionCallRouter, period: Option<&str>) -> String {
    let days = match crate::engine::report::parse_since(period.unwrap_or("7d")) {
        Ok(days) => days,
        Err(e) => return e,
    };
    let keep_days = router.report_keep().as_secs() / 86_400;
    let (days, cut) = crate::engine::report::clamp_period(days, keep_days);
    match crate::engine::report::collect(router.state().as_ref(), days).await {
        Ok(report) => {
            let text = crate::engine::report::text(&report);
            match cut {
                Some(keep) => format!("{}\n\n{text}", crate::engine::report::clamped_note(keep)),
                None => text,
            }
        }
        Err(e) => format!("the report could not be read: {e}"),
    }
}

/// The greeting of `/start`, with example requests (made of the mall's own names:
/// [`FunctionCallRouter::examples`]) as suggestions.
pub(crate) fn greeting(lang: Lang, examples: Vec<String>) -> Reply {
    Reply { suggestions: examples, ..Reply::text(lang.texts().commands.greeting) }
}

/// The `/help` text: the line each registered tool declares (`help = …` on
/// its `#[tool_function]`, once per line shared by several tools; a tool
/// without one gets the first sentence of its description), then the commands.
pub fn help(lang: Lang, tools: &[&'static ToolSpec], is_group: bool) -> String {
    let texts = lang.texts();
    let mut lines: Vec<String> = Vec::new();
    let mut shown: Vec<&'static str> = Vec::new();
    for tool in tools {
        let private_only = tool.scope == Scope::Private;
        let line = match tool.help {
            Some(help) if shown.contains(&help.en) => continue,
            Some(help) => {
                shown.push(help.en);
                (texts.tool_line)(help).into_owned()
            }
            None => format!("• {}", first_sentence(tool.description)),
        };
        let note = if is_group && private_only { texts.commands.help_private_note } else { "" };
        lines.push(format!("{line}{note}"));
    }
    let intro = texts.commands.help_intro;
    let commands = texts.commands.help_commands;
    let group = texts.commands.help_group;
    let mut text = format!("{intro}\n{}\n\n{commands}", lines.join("\n"));
    if is_group {
        text.push('\n');
        text.push_str(group);
    }
    text
}

fn first_sentence(description: &str) -> &str {
    let first_line = description.lines().next().unwrap_or_default().trim();
    match first_line.find(". ") {
        Some(i) => &first_line[..=i],
        None => first_line,
    }
}

/// The answer to a command every transport gives the same way. `/start` and
/// `/health` are the transport's own (deep links, who is an operator): for
/// them this answers the greeting and the unknown-command text.
pub async fn answer(router: &FunctionCallRouter, ctx: &MessageContext, command: &Command) -> Reply {
    let lang = ctx.lang;
    match command {
        Command::Start(_) => greeting(lang, router.examples().await.requests(lang)),
        Command::Help => {
            let tools: Vec<_> =
                router.tools_for(ctx.is_group, true).iter().filter_map(|t| t.spec()).collect();
            Reply::text(help(lang, &tools, ctx.is_group))
        }
        Command::Cart | Command::Orders => {
            let mut reply = match command {
                Command::Cart => router.show_cart(ctx).await,
                _ => router.show_orders(ctx).await,
            };
            if ctx.is_group {
                let again = if *command == Command::Cart { "/cart" } else { "/orders" };
                reply.open_private = Some(again.to_owned());
            }
            reply
        }
        Command::Reset => {
            router.reset(ctx).await;
            Reply::text(lang.texts().commands.reset_done)
        }
        Command::Lang(arg) => match arg.as_deref().and_then(Lang::parse) {
            Some(chosen) => {
                router.set_lang(ctx, chosen).await;
                Reply::text(chosen.texts().commands.lang_set)
            }
            None => Reply::text(lang.texts().commands.lang_usage),
        },
        // Transports with files of their own send the recording or picture itself.
        Command::Voice(_) | Command::Photo(_) => Reply::text(lang.texts().media.send_it_instead),
        Command::Human(_) | Command::Alerts if ctx.is_group => Reply::text(lang.texts().turn.private_only),
        // The list as text; Telegram adds a button removing each.
        Command::Alerts => {
            let user = format!("{}:{}", ctx.platform, ctx.user_id);
            match router.alerts_of(&user).await {
                Some(alerts) => Reply::text(crate::engine::alerts::list_text(lang, &alerts)),
                None => Reply::text(lang.texts().answers.mall_down),
            }
        }
        Command::Human(reason) => {
            let asked = lang.texts().support.asked_reason;
            router.handoff_reply(&ctx.conversation_key(), lang, reason.as_deref().unwrap_or(asked)).await
        }
        Command::Health
        | Command::Stats
        | Command::Ready(_)
        | Command::PickedUp(_)
        | Command::Pay
        | Command::Report(_)
        | Command::Unknown => Reply::text(lang.texts().commands.unknown_command),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Option<Command> {
        Command::parse(text, |name| name.eq_ignore_ascii_case("MallGuideBot"))
    }

    #[test]
    fn commands_with_arguments_and_bot_names() {
        assert_eq!(parse("/lang en"), Some(Command::Lang(Some("en".into()))));
        assert_eq!(parse("  /CART"), Some(Command::Cart));
        assert_eq!(parse("/help@MallGuideBot"), Some(Command::Help));
        assert_eq!(parse("/help@OtherBot"), Some(Command::Unknown));
        assert_eq!(parse("/start h123"), Some(Command::Start(Some("h123".into()))));
        assert_eq!(parse("/frobnicate"), Some(Command::Unknown));
        assert_eq!(parse("帮我找鞋"), None);
        assert_eq!(parse("/ 鞋"), None);
        assert_eq!(parse("/voice /tmp/a.ogg"), Some(Command::Voice(Some("/tmp/a.ogg".into()))));
        assert_eq!(
            parse("/photo shoes.jpg 有这双吗"),
            Some(Command::Photo(Some("shoes.jpg 有这双吗".into())))
        );
    }
}
