//! The commands a shopper types — `/start`, `/help`, `/cart`, `/orders`,
//! `/car`, `/points`, `/coupons`, `/reset`, `/lang`, and the operators' `/health` and
//! `/stats` — the same in Telegram and
//! the terminal chat: one enum, one parser, one set of answers. Transports
//! only add what is theirs (Telegram's deep links and who counts as an admin).

use handlers::{Lang, Scope, ToolSpec};

use crate::engine::context::MessageContext;
use crate::engine::reply::Reply;
use crate::engine::router::{Admitted, FunctionCallRouter, HoldError};

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
    /// `/car`: the shopper's plates and their cars in the car park; `/car 沪A12345` saves a
    /// plate (confirmed), `/car remove 沪A12345` removes one.
    Car(Option<String>),
    /// `/points`: the shopper's points and their last changes.
    Points,
    /// `/coupons`: the shopper's coupons and those they can claim; `/coupons claim <id>`
    /// claims one (confirmed).
    Coupons(Option<String>),
    /// Any other command.
    Unknown,
}

impl Command {
    /// The commands shown in Telegram's command menu; their descriptions are
    /// `menu` in the text tables, in this order. `/health` is not listed.
    pub(crate) const MENU: [&'static str; 9] =
        ["start", "help", "cart", "orders", "car", "points", "coupons", "reset", "lang"];

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
            "car" | "cars" | "plate" | "plates" => Command::Car(arg),
            "points" | "point" => Command::Points,
            "coupons" | "coupon" => Command::Coupons(arg),
            _ => Command::Unknown,
        })
    }

    /// Whether the answer runs a tool against the mall (and so may be slow).
    pub(crate) fn asks_the_mall(&self) -> bool {
        matches!(self, Command::Cart | Command::Orders) || self.is_loyalty()
    }

    /// `/car`, `/points` or `/coupons`: personal, answered by [`loyalty`] (they may hold a
    /// confirmation for the shopper, so they need the admitted shopper).
    pub(crate) fn is_loyalty(&self) -> bool {
        matches!(self, Command::Car(_) | Command::Points | Command::Coupons(_))
    }

    /// The command as typed again (what a group hands over to the private chat).
    fn typed(&self) -> String {
        let with = |name: &str, arg: &Option<String>| match arg {
            Some(arg) => format!("/{name} {arg}"),
            None => format!("/{name}"),
        };
        match self {
            Command::Car(arg) => with("car", arg),
            Command::Coupons(arg) => with("coupons", arg),
            Command::Points => "/points".to_owned(),
            Command::Cart => "/cart".to_owned(),
            _ => "/orders".to_owned(),
        }
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
        // Personal, as `/orders`: in a group, carried over to the private chat.
        command if command.is_loyalty() => Reply {
            open_private: ctx.is_group.then(|| command.typed()),
            ..Reply::text(if ctx.is_group {
                lang.texts().turn.private_only
            } else {
                lang.texts().commands.unknown_command
            })
        },
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
        | Command::Car(_)
        | Command::Points
        | Command::Coupons(_)
        | Command::Unknown => Reply::text(lang.texts().commands.unknown_command),
    }
}

/// A button under the answer of `/car` or `/coupons`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LoyaltyButton {
    /// ✖: remove this plate of the shopper's.
    RemovePlate(String),
    /// Claim this coupon (its id), through the confirmation; its title for the label.
    Claim { coupon_id: String, title: String },
}

impl LoyaltyButton {
    /// The command the button stands for (the terminal chat offers it as a numbered choice).
    pub(crate) fn command(&self) -> String {
        match self {
            LoyaltyButton::RemovePlate(plate) => format!("/car remove {plate}"),
            LoyaltyButton::Claim { coupon_id, .. } => format!("/coupons claim {coupon_id}"),
        }
    }
}

/// The answer of `/car`, `/points` or `/coupons`: the reply (a confirmation to save a plate
/// or claim a coupon, or words) and the buttons under it.
#[derive(Debug, Clone, Default)]
pub(crate) struct LoyaltyAnswer {
    pub reply: Reply,
    pub buttons: Vec<LoyaltyButton>,
}

impl From<Reply> for LoyaltyAnswer {
    fn from(reply: Reply) -> Self {
        LoyaltyAnswer { reply, buttons: Vec::new() }
    }
}

/// Words that remove a plate: `/car remove 沪A12345`.
const REMOVE: &[&str] = &["remove", "delete", "del", "rm", "删除", "刪除", "删", "刪", "✖", "✖️"];
/// Words that claim a coupon: `/coupons claim cp-mall-50`.
const CLAIM: &[&str] = &["claim", "get", "领取", "領取", "领", "領"];

/// `arg` without its first word when that word is one of `words`.
fn after_word<'a>(arg: &'a str, words: &[&str]) -> Option<&'a str> {
    let arg = arg.trim();
    words.iter().find_map(|w| {
        let rest = arg.strip_prefix(w)?;
        let ascii_word = w.is_ascii() && rest.starts_with(|c: char| c.is_ascii_alphanumeric());
        (!ascii_word).then(|| rest.trim())
    })
}

/// `/car`, `/points`, `/coupons` for the admitted shopper in `ctx.lang`: the plates with
/// their cars' state (✖ each), the points and their last changes, the coupons held and
/// those to claim (a button each). Saving a plate and claiming a coupon are held for the
/// shopper's ✅ through the confirmation service, as the `save_plate` and `claim_coupon`
/// tools are in a conversation; a plate is removed at once. In a group: to the private chat.
pub(crate) async fn loyalty(
    router: &FunctionCallRouter,
    admitted: &Admitted,
    ctx: &MessageContext,
    command: &Command,
) -> LoyaltyAnswer {
    use handlers::loyalty as words;
    let lang = ctx.lang;
    if ctx.is_group {
        return answer(router, ctx, command).await.into();
    }
    let admitted = &admitted.clone().in_lang(lang);
    let mut tool_ctx = router.tool_context_for(admitted);
    tool_ctx.lang = lang;
    let failed = |e: handlers::ToolError| LoyaltyAnswer::from(Reply::text(words::command_failed(lang, &e)));
    let cars = |(text, plates): (String, Vec<String>)| LoyaltyAnswer {
        reply: Reply::text(text),
        buttons: plates.into_iter().map(LoyaltyButton::RemovePlate).collect(),
    };
    match command {
        Command::Car(None) => words::my_cars(&tool_ctx).await.map_or_else(failed, cars),
        Command::Car(Some(arg)) => match after_word(arg, REMOVE) {
            Some(plate) if !plate.is_empty() => {
                words::remove_my_plate(&tool_ctx, plate).await.map_or_else(failed, cars)
            }
            Some(_) => words::my_cars(&tool_ctx).await.map_or_else(failed, cars),
            None => match words::typed_plate(arg) {
                Some(plate) => {
                    hold(router, admitted, lang, "save_plate", serde_json::json!({ "plate": plate })).await
                }
                None => {
                    let error = services::ServiceError::invalid("plate", "not a plate");
                    Reply::text(words::mall_words(lang, &error).unwrap_or_default()).into()
                }
            },
        },
        Command::Points => {
            words::my_points_text(&tool_ctx).await.map_or_else(failed, |t| Reply::text(t).into())
        }
        Command::Coupons(arg) => {
            let coupon = arg.as_deref().map(|a| after_word(a, CLAIM).unwrap_or(a)).filter(|c| !c.is_empty());
            match coupon {
                Some(coupon) => {
                    hold(router, admitted, lang, "claim_coupon", serde_json::json!({ "coupon": coupon }))
                        .await
                }
                None => match words::coupons_overview(&tool_ctx).await {
                    Ok((text, claimable)) => LoyaltyAnswer {
                        reply: Reply::text(text),
                        buttons: claimable
                            .into_iter()
                            .map(|(coupon_id, title)| LoyaltyButton::Claim { coupon_id, title })
                            .collect(),
                    },
                    Err(e) => failed(e),
                },
            }
        }
        _ => answer(router, ctx, command).await.into(),
    }
}

/// `tool` with `args` held for the shopper's ✅: the confirmation, or why not in words.
pub(crate) async fn hold(
    router: &FunctionCallRouter,
    admitted: &Admitted,
    lang: Lang,
    tool: &str,
    args: serde_json::Value,
) -> LoyaltyAnswer {
    let Some(tool) = router.find_tool(tool) else {
        return Reply::text(lang.texts().commands.unknown_command).into();
    };
    let admitted = admitted.clone().in_lang(lang);
    let reply = match router.hold(&admitted, &tool, args).await {
        Ok(hold) => crate::engine::router::held_reply(lang, hold),
        Err(HoldError::Tool(e @ handlers::ToolError::Refused { .. })) => {
            Reply::text(handlers::loyalty::command_failed(lang, &e))
        }
        Err(e) => crate::engine::router::hold_refused(lang, &e),
    };
    reply.written_in(lang, "").into()
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

    #[test]
    fn the_car_points_and_coupons_commands_and_their_arguments() {
        assert_eq!(parse("/car"), Some(Command::Car(None)));
        assert_eq!(parse("/car 沪A·12345"), Some(Command::Car(Some("沪A·12345".into()))));
        assert_eq!(
            parse("/car@MallGuideBot remove 沪A12345"),
            Some(Command::Car(Some("remove 沪A12345".into())))
        );
        assert_eq!(parse("/points"), Some(Command::Points));
        assert_eq!(
            parse("/coupons claim cp-mall-50"),
            Some(Command::Coupons(Some("claim cp-mall-50".into())))
        );
        assert_eq!(after_word("remove 沪A12345", REMOVE), Some("沪A12345"));
        assert_eq!(after_word("删除沪A12345", REMOVE), Some("沪A12345"));
        assert_eq!(after_word("removal", REMOVE), None, "a word, not its start");
        assert_eq!(after_word("沪A12345", REMOVE), None);
        assert_eq!(after_word("claim cp-mall-50", CLAIM), Some("cp-mall-50"));
        let menu: Vec<_> = Command::menu(Lang::En).map(|(name, _)| name).collect();
        assert!(menu.contains(&"car") && menu.contains(&"points") && menu.contains(&"coupons"), "{menu:?}");
        for lang in Lang::ALL {
            let help = lang.texts().commands.help_commands;
            assert!(help.contains("/car") && help.contains("/points") && help.contains("/coupons"), "{help}");
        }
        assert_eq!(Command::Car(Some("remove 沪A12345".into())).typed(), "/car remove 沪A12345");
        assert_eq!(LoyaltyButton::RemovePlate("沪A12345".into()).command(), "/car remove 沪A12345");
    }
}
