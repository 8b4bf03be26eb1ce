//! The terminal chat (`mallbot chat`): you are a shopper. Replies are printed,
//! suggestions become numbered choices, confirmations a yes/no question. While
//! a turn runs, what its tools are doing is printed a line at a time, and a
//! streamed answer (`llm.stream`) is printed as it is written. It reads
//! standard input line by line, so it can be scripted.
//!
//! While a confirmation waits, "y"/"n" (or 好/取消…) answers it; any other
//! line is a new request, answered, after which the confirmation still waits
//! and the chat says so — nothing is cancelled for it. A confirmation asked
//! while another waits is answered first, then the other is asked again.
//! A message the door holds back (the rate limit, an allow-list) is answered
//! with why, every time: the terminal never prints an empty answer.

use std::future::Future;
use std::io::Write;

use handlers::Lang;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::engine::App;
use crate::engine::commands::Command;
use crate::engine::context::{ChosenLang, MessageContext};
use crate::engine::progress::{Progress, TurnEvent};
use crate::engine::reply::{ConfirmationPrompt, PressCheck, Reply};
use crate::engine::router::{Knock, Presser, Way};

/// The terminal chat over `input`, writing to `out`.
pub struct Console<'a, R, W> {
    app: &'a App,
    user_id: i64,
    lines: tokio::io::Lines<R>,
    out: W,
    prompt: bool,
    suggestions: Vec<String>,
    /// The language of the shopper's last message, used for commands.
    lang: Lang,
    /// The order of the last invoice shown, for `/pay`.
    invoice: Option<String>,
    /// Confirmations shown and not answered yet, the latest last.
    waiting: Vec<ConfirmationPrompt>,
}

impl<'a, R: AsyncBufRead + Unpin, W: Write> Console<'a, R, W> {
    /// A chat for shopper `user_id`; `prompt` prints `you> ` before each line
    /// (for people at a terminal, not for scripts).
    pub fn new(app: &'a App, user_id: i64, input: R, out: W, prompt: bool) -> Self {
        let lang = app.config.bot.language;
        Console {
            app,
            user_id,
            lines: input.lines(),
            out,
            prompt,
            suggestions: Vec::new(),
            lang,
            invoice: None,
            waiting: Vec::new(),
        }
    }

    /// Runs until the end of input.
    pub async fn run(mut self) -> anyhow::Result<()> {
        let examples = self.app.router.examples().await.quoted(self.lang);
        writeln!(self.out, "{}", (self.lang.texts().commands.console_banner)(self.user_id, &examples))?;
        // A conversation this shopper had before is in its language.
        let conversation = crate::engine::context::conversation_key("console", self.user_id, self.user_id);
        if let Some(lang) = self.app.router.conversation_lang(&conversation).await {
            self.lang = lang;
        }
        loop {
            let prompt =
                if self.waiting.is_empty() { "you> " } else { self.lang.texts().commands.console_confirm };
            let Some(line) = self.read_line(prompt).await? else { break };
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            if text == "/quit" || text == "/exit" {
                break;
            }
            let asked = self.waiting.len();
            let answer = if asked > 0 { yes_or_no(text) } else { None };
            let (reply, streamed) = match answer {
                Some(approve) => {
                    writeln!(self.out, "you> {}", if approve { "y" } else { "n" })?;
                    self.press(approve).await?
                }
                None => self.handle(text).await?,
            };
            self.show(reply, streamed).await?;
            // Something else was answered while a confirmation waits: it still does.
            let answered = asked - usize::from(answer.is_some());
            if answered > 0 && self.waiting.len() == answered {
                self.remind().await?;
            }
        }
        Ok(())
    }

    /// Answers the latest waiting confirmation: the outcome and what follows.
    async fn press(&mut self, approve: bool) -> anyhow::Result<(Reply, String)> {
        let Some(prompt) = self.waiting.pop() else { return Ok((Reply::default(), String::new())) };
        let app = self.app;
        let knock = Knock::private("console", self.user_id, self.lang, Way::Press);
        let check = match app.router.admit(knock).await {
            Ok(admitted) => app.router.press_as(&admitted, &prompt.token, approve, Presser::Chat).await,
            Err(turned) => PressCheck::NotYours { alert: turned.message().to_owned() },
        };
        Ok(match check {
            PressCheck::Accepted { claim, outcome } => {
                writeln!(self.out, "bot> {}", outcome.replace('\n', "\n     "))?;
                self.live(|progress| async move { app.router.finish_live(claim, &progress).await }).await?
            }
            PressCheck::CodeRequired { message } => (Reply::text(message), String::new()),
            PressCheck::NotYours { alert }
            | PressCheck::AlreadyDone { alert }
            | PressCheck::Expired { alert }
            | PressCheck::Failed { alert } => (Reply::text(alert), String::new()),
        })
    }

    /// Says which confirmation still waits for y/n (at a terminal, the
    /// prompt asks it too).
    async fn remind(&mut self) -> anyhow::Result<()> {
        if let Some(prompt) = self.waiting.last() {
            let line = (self.lang.texts().commands.console_still_waiting)(&prompt.summary);
            writeln!(self.out, "bot> {}", line.replace('\n', "\n     "))?;
        }
        Ok(())
    }

    async fn read_line(&mut self, prompt: &str) -> anyhow::Result<Option<String>> {
        if self.prompt {
            write!(self.out, "{prompt}")?;
            self.out.flush()?;
        }
        Ok(self.lines.next_line().await?)
    }

    fn context(&mut self, text: &str) -> MessageContext {
        let mut ctx = MessageContext::private("console", self.user_id, text, self.lang);
        if text.starts_with('/') {
            ctx.lang = self.lang;
        } else {
            self.lang = ctx.lang;
        }
        ctx
    }

    /// Answers one line; returns the reply and the answer text already
    /// printed as it streamed.
    async fn handle(&mut self, text: &str) -> anyhow::Result<(Reply, String)> {
        let app = self.app;
        let router = &app.router;
        let chosen = text
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.suggestions.get(i).cloned());
        let text = chosen.as_deref().unwrap_or(text);
        let ctx = self.context(text);
        let reply = match Command::parse(text, |_| true) {
            // The terminal's shopper runs the bot: they are its operator.
            Some(Command::Health) => Reply::text(crate::engine::health::collect(app).await.render(ctx.lang)),
            Some(Command::Stats) => Reply::text(router.day_stats(ctx.lang).await),
            Some(Command::Report(period)) => {
                Reply::text(crate::engine::commands::report(router, period.as_deref()).await)
            }
            Some(Command::Voice(Some(arg))) => return self.voice(ctx, arg.trim()).await,
            Some(Command::Photo(Some(arg))) => {
                let (path, caption) = split_path(&arg);
                return self.photo(ctx, &path, caption).await;
            }
            Some(Command::Voice(None) | Command::Photo(None)) => {
                Reply::text(ctx.lang.texts().media.console_usage)
            }
            Some(Command::Pay) => self.test_payment(ctx.lang).await,
            // Personal: the shopper's own; their buttons become numbered choices.
            Some(command) if command.is_loyalty() => {
                let admitted = match router.admit(Knock::message(&ctx, ChosenLang::Unread)).await {
                    Ok(admitted) => admitted,
                    Err(turned) => return Ok((Reply::text(turned.message()), String::new())),
                };
                let answer = crate::engine::commands::loyalty(router, &admitted, &ctx, &command).await;
                let choices = answer.buttons.iter().map(crate::engine::commands::LoyaltyButton::command);
                Reply { suggestions: choices.collect(), ..answer.reply }
            }
            Some(Command::Human(reason)) => {
                let asked = ctx.lang.texts().support.asked_reason;
                let reason = reason.as_deref().unwrap_or(asked);
                let reply = router.handoff_reply(&ctx.conversation_key(), ctx.lang, reason).await;
                // With a desk open now, `show` prints the card with the reply.
                if reply.handoff.is_none() {
                    self.show_desk(&ctx, reason).await?;
                }
                reply
            }
            Some(Command::Ready(Some(order)) | Command::PickedUp(Some(order))) => {
                // The terminal's shopper runs the bot: the staff's calls too.
                let ready = text.trim_start().to_ascii_lowercase().starts_with("/ready");
                let answer = if ready {
                    app.mall.mark_ready(&order).await
                } else {
                    app.mall.mark_picked_up(&order).await
                };
                let pay = &ctx.lang.texts().pay;
                Reply::text(match answer {
                    Ok(order) => {
                        (pay.staff_done)(&order.order_id, (ctx.lang.texts().answers.status)(order.status))
                    }
                    Err(e) => (pay.staff_failed)(&order, &e.to_string()),
                })
            }
            Some(command) => {
                if let Command::Lang(Some(chosen)) = &command
                    && let Some(chosen) = Lang::parse(chosen)
                {
                    self.lang = chosen;
                }
                crate::engine::commands::answer(router, &ctx, &command).await
            }
            None => {
                let conversation = ctx.conversation_key();
                let answered =
                    self.live(|progress| async move { router.dispatch_live(&ctx, &progress).await }).await;
                // The terminal's own lines follow the language the bot answered in
                // (a first "wifi?" opens the conversation in English).
                let now = match router.chosen_lang("console", self.user_id).await {
                    Some(chosen) => Some(chosen),
                    None => router.conversation_lang(&conversation).await,
                };
                if let Some(lang) = now {
                    self.lang = lang;
                }
                return answered;
            }
        };
        Ok((reply, String::new()))
    }

    /// `/voice FILE`: the recording goes the way of a Telegram voice message.
    async fn voice(&mut self, mut ctx: MessageContext, path: &str) -> anyhow::Result<(Reply, String)> {
        let path = unquote(path);
        let bytes = match tokio::fs::read(path).await {
            Ok(bytes) => bytes,
            Err(e) => {
                return Ok((
                    Reply::text((ctx.lang.texts().media.console_unreadable)(path, &e.to_string())),
                    String::new(),
                ));
            }
        };
        ctx.text = String::new();
        let recording = crate::engine::media::recording(bytes, path);
        let app = self.app;
        let admitted = match app.router.admit(Knock::message(&ctx, ChosenLang::Unread)).await {
            Ok(admitted) => admitted,
            Err(turned) => return Ok((Reply::text(turned.message()), String::new())),
        };
        self.live(|progress| async move {
            crate::engine::media::voice_turn(app, &admitted, ctx, recording, &progress).await
        })
        .await
    }

    /// `/photo FILE [caption]`: the picture goes the way of a Telegram photo
    /// (scaled to 1280 px when it is a larger PNG).
    async fn photo(
        &mut self,
        mut ctx: MessageContext,
        path: &str,
        caption: &str,
    ) -> anyhow::Result<(Reply, String)> {
        let lang = ctx.lang;
        let unreadable = |why: String| {
            Ok((Reply::text((lang.texts().media.console_unreadable)(path, &why)), String::new()))
        };
        let bytes = match tokio::fs::read(path).await {
            Ok(bytes) => bytes,
            Err(e) => return unreadable(e.to_string()),
        };
        ctx.text = caption.to_owned();
        if let Some(lang) = Lang::detect(caption) {
            ctx.lang = lang;
        }
        let app = self.app;
        if !app.reads_photos() {
            // Without vision a photo is its caption.
            if caption.is_empty() {
                return Ok((Reply::text(lang.texts().media.photo_unseen), String::new()));
            }
            return self
                .live(|progress| async move { app.router.dispatch_live(&ctx, &progress).await })
                .await;
        }
        let image = match crate::engine::media::image::for_model(&bytes) {
            Ok(image) => image,
            Err(e) => return unreadable(e.to_string()),
        };
        let admitted = match app.router.admit(Knock::message(&ctx, ChosenLang::Unread)).await {
            Ok(admitted) => admitted,
            Err(turned) => return Ok((Reply::text(turned.message()), String::new())),
        };
        self.live(|progress| async move {
            crate::engine::media::photo_turn(app, &admitted, ctx, image, &progress).await
        })
        .await
    }

    /// Runs a turn, printing its progress as it comes; returns the reply and
    /// the answer text printed while it streamed.
    async fn live<F>(&mut self, work: impl FnOnce(Progress) -> F) -> anyhow::Result<(Reply, String)>
    where
        F: Future<Output = Reply>,
    {
        let (progress, mut events) = Progress::channel();
        let work = work(progress);
        tokio::pin!(work);
        let mut streamed = String::new();
        let reply = loop {
            tokio::select! {
                reply = &mut work => break reply,
                Some(event) = events.recv() => self.print_event(event, &mut streamed)?,
            }
        };
        while let Ok(event) = events.try_recv() {
            self.print_event(event, &mut streamed)?;
        }
        Ok((reply, streamed))
    }

    /// Prints one event: a status line per tool call (dimmed at a terminal),
    /// or more of the answer.
    fn print_event(&mut self, event: TurnEvent, streamed: &mut String) -> anyhow::Result<()> {
        match event {
            TurnEvent::Working(lines) => {
                if !streamed.is_empty() {
                    // That text was not the answer: the model went on to call tools.
                    writeln!(self.out)?;
                    streamed.clear();
                }
                for line in lines {
                    if self.prompt {
                        writeln!(self.out, "     \x1b[2m{line}\x1b[0m")?;
                    } else {
                        writeln!(self.out, "     {line}")?;
                    }
                }
            }
            TurnEvent::TextDelta(text) => {
                if streamed.is_empty() {
                    write!(self.out, "bot> ")?;
                }
                write!(self.out, "{}", text.replace('\n', "\n     "))?;
                streamed.push_str(&text);
            }
        }
        self.out.flush()?;
        Ok(())
    }

    /// Prints a reply (only what `streamed` did not already show); a
    /// confirmation is then waiting for y/n.
    async fn show(&mut self, reply: Reply, streamed: String) -> anyhow::Result<()> {
        let shown = streamed.trim_start();
        match reply.text.strip_prefix(shown) {
            Some(rest) if !shown.is_empty() => writeln!(self.out, "{}", rest.replace('\n', "\n     "))?,
            _ => {
                if !streamed.is_empty() {
                    writeln!(self.out)?;
                }
                writeln!(self.out, "bot> {}", reply.text.replace('\n', "\n     "))?;
            }
        }
        if let Some(image) = &reply.image {
            writeln!(self.out, "     [picture: {image}]")?;
        }
        for picture in &reply.pictures {
            match save_picture(picture) {
                Ok(path) => writeln!(self.out, "     [floor plan: {}]", path.display())?,
                Err(e) => tracing::warn!(error = %e, "could not write the floor plan"),
            }
        }
        if let Some(order_id) = reply.invoice.clone() {
            self.show_invoice(&order_id).await?;
        }
        if let Some(reason) = reply.handoff.clone() {
            let ctx = self.context("");
            self.show_desk(&ctx, &reason).await?;
        }
        if let Some(request) = &reply.open_private {
            writeln!(self.out, "     [open a private chat to continue: {request}]")?;
        }
        self.suggestions = reply.suggestions.clone();
        for (i, s) in reply.suggestions.iter().enumerate() {
            writeln!(self.out, "     [{}] {s}", i + 1)?;
        }
        if let Some(prompt) = reply.confirmation {
            self.waiting.push(prompt);
        }
        Ok(())
    }
}

impl<R: AsyncBufRead + Unpin, W: Write> Console<'_, R, W> {
    /// What a hand-off to the service desk would send there: the topic's
    /// name and its card (`/human`, or asking for a person with a desk).
    async fn show_desk(&mut self, ctx: &MessageContext, reason: &str) -> anyhow::Result<()> {
        let app = self.app;
        let desk_lang = app.config.bot.language;
        let history = app.state.load_history(&ctx.conversation_key()).await.unwrap_or_default();
        let shopping =
            crate::engine::support::shopping_summary(app.mall.as_ref(), "console", self.user_id, desk_lang)
                .await;
        let name = ctx.user_name.clone().unwrap_or_else(|| format!("console {}", self.user_id));
        let card = crate::engine::support::card(desk_lang, &name, ctx.lang, reason, &history, &shopping);
        let desk = match app.router.desk() {
            Some(desk) => desk.chat_id.to_string(),
            None => "[support] chat_id not set".to_owned(),
        };
        let topic = crate::engine::support::topic_name(&name, self.user_id);
        writeln!(self.out, "     [to the service desk ({desk}), topic \"{topic}\":]")?;
        for line in card.lines() {
            writeln!(self.out, "     | {line}")?;
        }
        Ok(())
    }

    /// An order's invoice as one line; remembered for `/pay`.
    async fn show_invoice(&mut self, order_id: &str) -> anyhow::Result<()> {
        let shopper = services::Shopper::new("console", self.user_id);
        if let Ok(order) = self.app.mall.get_order(&shopper, order_id).await {
            let total = crate::engine::payments::amount_text(order.total_cents, &order.currency);
            writeln!(self.out, "     {}", (self.lang.texts().pay.console_invoice)(order_id, &total))?;
            self.invoice = Some(order_id.to_owned());
        }
        Ok(())
    }

    /// `/pay`: a test payment of the last invoice, recorded as a payment
    /// from Telegram would be (provider `test`).
    async fn test_payment(&mut self, lang: Lang) -> Reply {
        let pay = &lang.texts().pay;
        let Some(order_id) = self.invoice.clone() else {
            return Reply::text(pay.console_no_invoice);
        };
        let shopper = services::Shopper::new("console", self.user_id);
        let order = match self.app.mall.get_order(&shopper, &order_id).await {
            Ok(order) => order,
            Err(e) => return Reply::text(e.to_string()),
        };
        let ledger = crate::engine::payments::Ledger::new(
            self.app.state.clone(),
            self.app.mall.clone(),
            std::time::Duration::from_secs(10),
        );
        let record = crate::engine::payments::PaymentRecord {
            charge_id: format!("test-{:016x}", rand::random::<u64>()),
            provider_charge_id: String::new(),
            provider: "test".into(),
            order_id: order_id.clone(),
            platform: "console".into(),
            user_id: self.user_id,
            chat_id: self.user_id,
            lang,
            amount_cents: order.total_cents,
            currency: order.currency.clone(),
            received_at: crate::infra::state::unix_now(),
            state: crate::engine::payments::PaymentState::Received,
            attempts: 0,
            note: String::new(),
            parking_plate: String::new(),
        };
        let text = match ledger.receive(record).await {
            crate::engine::payments::Settled::Recorded { order, .. } => {
                let total = crate::engine::payments::amount_text(order.total_cents, &order.currency);
                let store = self.app.mall.get_store(&order.pickup_store_id).await.ok();
                let (name, place) = match &store {
                    Some(store) => (
                        handlers::format::store_name(lang, store).into_owned(),
                        handlers::format::paren(
                            lang,
                            &handlers::format::floor_and_unit(lang, Some(store.floor), &store.unit),
                        ),
                    ),
                    None => (order.pickup_store_id.clone(), String::new()),
                };
                self.invoice = None;
                (pay.paid)(&order.order_id, &total, &name, &place)
            }
            crate::engine::payments::Settled::Refused { record, .. } => (pay.refund_due)(&record.order_id),
            crate::engine::payments::Settled::Waiting { record, .. } => (pay.paid_pending)(&record.order_id),
            _ => (pay.refuse_paid).to_owned(),
        };
        Reply::text(format!("{}\n{text}", pay.console_test_paid))
    }
}

/// Writes a picture to the system temp dir as `mallbot-<key hash>.png`; returns its path.
fn save_picture(picture: &handlers::Picture) -> std::io::Result<std::path::PathBuf> {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    picture.cache_key.hash(&mut hasher);
    let path = std::env::temp_dir().join(format!("mallbot-{:016x}.png", hasher.finish()));
    std::fs::write(&path, &picture.png)?;
    Ok(path)
}

/// `FILE [caption]`, where FILE may be quoted (`"my photo.jpg" 有这双吗`).
fn split_path(arg: &str) -> (String, &str) {
    let arg = arg.trim();
    if let Some(rest) = arg.strip_prefix('"')
        && let Some((path, caption)) = rest.split_once('"')
    {
        return (path.to_owned(), caption.trim());
    }
    match arg.split_once(char::is_whitespace) {
        Some((path, caption)) => (path.to_owned(), caption.trim()),
        None => (arg.to_owned(), ""),
    }
}

/// A path without the quotes around it.
fn unquote(path: &str) -> &str {
    path.strip_prefix('"').and_then(|p| p.strip_suffix('"')).unwrap_or(path)
}

/// Whether a typed line answers a waiting confirmation: `Some(true)` for
/// yes, `Some(false)` for no, `None` for anything else (a new request).
pub(crate) fn yes_or_no(answer: &str) -> Option<bool> {
    let a = answer.trim().trim_end_matches(['.', '!', '。', '！']).to_lowercase();
    const YES: &[&str] = &[
        "y", "yes", "ok", "okay", "sure", "confirm", "是", "是的", "好", "好的", "好啊", "行", "可以",
        "确认", "確認", "确定", "確定", "对", "對", "嗯", "✅",
    ];
    const NO: &[&str] =
        &["n", "no", "nope", "cancel", "不", "不要", "不用", "不用了", "算了", "否", "取消", "❌", "❎"];
    if YES.contains(&a.as_str()) {
        Some(true)
    } else if NO.contains(&a.as_str()) {
        Some(false)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::engine::llm::{ChatMessage, ChatModel, ChatRequest, ChatResponse, LlmError, ToolCall, Usage};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Searches stores first (saying so in text it then drops), then streams its answer.
    struct StreamingModel(AtomicUsize);

    #[async_trait::async_trait]
    impl ChatModel for StreamingModel {
        fn describe(&self) -> String {
            "streaming".into()
        }

        async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
            let progress = request.progress.unwrap();
            let message = if self.0.fetch_add(1, Ordering::SeqCst) == 0 {
                progress.text_delta("让我查一下");
                ChatMessage::assistant_calls(vec![ToolCall {
                    id: "c1".into(),
                    name: "search_stores".into(),
                    arguments: r#"{"keyword":"优衣库"}"#.into(),
                }])
            } else {
                for piece in ["优衣库在", "二楼，\n", "电梯右手边。"] {
                    progress.text_delta(piece);
                    tokio::task::yield_now().await;
                }
                ChatMessage::assistant("优衣库在二楼，\n电梯右手边。")
            };
            Ok(ChatResponse { message, finish_reason: None, usage: Usage::default() })
        }
    }

    #[tokio::test]
    async fn status_lines_and_the_streamed_answer_are_printed_once_each() {
        let mut config = crate::infra::config::Config::default();
        config.state.url = "memory://".into();
        let app = App::with_model(
            config,
            Arc::new(services::EmbeddedMall::in_memory()),
            Arc::new(crate::infra::state::MemoryStore::new()),
            Arc::new(StreamingModel(AtomicUsize::new(0))),
        );
        let mut out = Vec::new();
        Console::new(&app, 5, "优衣库在哪\n".as_bytes(), &mut out, false).run().await.unwrap();
        let out = String::from_utf8(out).unwrap();
        let answer = "bot> 优衣库在二楼，\n     电梯右手边。\n";
        assert_eq!(out.matches(answer).count(), 1, "the answer once, as it streamed:\n{out}");
        let args = serde_json::json!({"keyword": "优衣库"});
        let line = handlers::find("search_stores").unwrap().progress_line(Lang::Zh, &args);
        let status = format!("\n     {line}\n");
        let at = out.find(&status).unwrap_or_else(|| panic!("the status line {line:?}:\n{out}"));
        assert!(at < out.find(answer).unwrap(), "the status comes first:\n{out}");
        assert!(
            out.contains(&format!("bot> 让我查一下{status}")),
            "text before a tool call ends its line:\n{out}"
        );
    }

    #[tokio::test]
    async fn the_banner_is_in_the_bots_language() {
        for (lang, expected) in
            [(Lang::En, "You are shopper 7."), (Lang::Zh, "您是顾客 7。"), (Lang::ZhHant, "您是顧客 7。")]
        {
            let mut config = crate::infra::config::Config::default();
            config.state.url = "memory://".into();
            config.bot.language = lang;
            let app = App::with_model(
                config,
                Arc::new(services::EmbeddedMall::in_memory()),
                Arc::new(crate::infra::state::MemoryStore::new()),
                Arc::new(StreamingModel(AtomicUsize::new(0))),
            );
            let mut out = Vec::new();
            Console::new(&app, 7, "".as_bytes(), &mut out, false).run().await.unwrap();
            let out = String::from_utf8(out).unwrap();
            let examples = app.router.examples().await.quoted(lang);
            assert_eq!(out, format!("{}\n", (lang.texts().commands.console_banner)(7, &examples)));
            assert!(out.starts_with("mallbot — ") && out.contains(expected), "{lang:?}: {out}");
            assert!(out.contains("/voice") && out.contains("/pay"), "{lang:?}: {out}");
        }
    }

    #[test]
    fn a_photo_path_may_be_quoted_and_the_rest_is_the_caption() {
        assert_eq!(split_path("shoes.jpg 有这双吗"), ("shoes.jpg".into(), "有这双吗"));
        assert_eq!(
            split_path("\"my shoes.jpg\"  do you sell these"),
            ("my shoes.jpg".into(), "do you sell these")
        );
        assert_eq!(split_path("shoes.png"), ("shoes.png".into(), ""));
        assert_eq!(unquote("\"a b.ogg\""), "a b.ogg");
    }

    #[test]
    fn yes_no_or_a_new_request() {
        assert_eq!(yes_or_no("Y"), Some(true));
        assert_eq!(yes_or_no(" 确认 "), Some(true));
        assert_eq!(yes_or_no("確認"), Some(true));
        assert_eq!(yes_or_no("n"), Some(false));
        assert_eq!(yes_or_no("取消"), Some(false));
        assert_eq!(yes_or_no("40码到货了告诉我"), None, "a new request, not a no");
        assert_eq!(yes_or_no("/cart"), None);
    }
}
