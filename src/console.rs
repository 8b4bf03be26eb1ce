//! The terminal chat (`mallbot chat`): you are a shopper. Replies are printed,
//! suggestions become numbered choices, confirmations a yes/no question. It
//! reads standard input line by line, so it can be scripted.

use std::io::Write;

use handlers::Lang;
use tokio::io::{AsyncBufRead, AsyncBufReadExt};

use crate::app::App;
use crate::context::MessageContext;
use crate::reply::{ConfirmationPress, PressCheck, Reply};

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
}

impl<'a, R: AsyncBufRead + Unpin, W: Write> Console<'a, R, W> {
    /// A chat for shopper `user_id`; `prompt` prints `you> ` before each line
    /// (for people at a terminal, not for scripts).
    pub fn new(app: &'a App, user_id: i64, input: R, out: W, prompt: bool) -> Self {
        let lang = app.config.bot.language;
        Console { app, user_id, lines: input.lines(), out, prompt, suggestions: Vec::new(), lang }
    }

    /// Runs until the end of input.
    pub async fn run(mut self) -> anyhow::Result<()> {
        writeln!(
            self.out,
            "mallbot — 商场导购 / mall shopping guide. You are shopper {}.\n\
             Ask in Chinese or English, e.g. \"帮我买一双 Nike 跑鞋，500 以内的\" or \"where is Uniqlo?\".\n\
             Commands: /cart /orders /reset /lang zh|en /quit. A number picks a suggestion.",
            self.user_id
        )?;
        while let Some(line) = self.read_line("you> ").await? {
            let text = line.trim();
            if text.is_empty() {
                continue;
            }
            if text == "/quit" || text == "/exit" {
                break;
            }
            let reply = self.handle(text).await;
            self.show(reply).await?;
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

    async fn handle(&mut self, text: &str) -> Reply {
        let app = self.app;
        let router = &app.router;
        let chosen = text
            .parse::<usize>()
            .ok()
            .and_then(|n| n.checked_sub(1))
            .and_then(|i| self.suggestions.get(i).cloned());
        let text = chosen.as_deref().unwrap_or(text);
        let ctx = self.context(text);
        match text.split_whitespace().collect::<Vec<_>>().as_slice() {
            ["/cart"] => router.show_cart(&ctx).await,
            ["/orders"] => router.show_orders(&ctx).await,
            ["/reset"] => {
                router.reset(&ctx).await;
                Reply::text(ctx.lang.pick("好的，我们重新开始。", "OK, starting over."))
            }
            ["/lang", code] => match Lang::parse(code) {
                Some(lang) => {
                    router.set_lang(&ctx, lang).await;
                    self.lang = lang;
                    Reply::text(lang.pick("好的，之后用中文回复您。", "OK, I'll answer in English."))
                }
                None => Reply::text("/lang zh | /lang en"),
            },
            _ => router.dispatch(&ctx).await,
        }
    }

    /// Prints a reply; a confirmation asks yes/no and shows what follows.
    async fn show(&mut self, mut reply: Reply) -> anyhow::Result<()> {
        loop {
            writeln!(self.out, "bot> {}", reply.text.replace('\n', "\n     "))?;
            if let Some(image) = &reply.image {
                writeln!(self.out, "     [picture: {image}]")?;
            }
            for picture in &reply.pictures {
                match save_picture(picture) {
                    Ok(path) => writeln!(self.out, "     [floor plan: {}]", path.display())?,
                    Err(e) => tracing::warn!(error = %e, "could not write the floor plan"),
                }
            }
            if let Some(request) = &reply.open_private {
                writeln!(self.out, "     [open a private chat to continue: {request}]")?;
            }
            self.suggestions = reply.suggestions.clone();
            for (i, s) in reply.suggestions.iter().enumerate() {
                writeln!(self.out, "     [{}] {s}", i + 1)?;
            }
            let Some(prompt) = reply.confirmation.take() else { return Ok(()) };
            let question = self.lang.pick("确认吗？(y/n) ", "Confirm? (y/n) ");
            let Some(answer) = self.read_line(question).await? else { return Ok(()) };
            let approve = is_yes(&answer);
            writeln!(self.out, "you> {}", if approve { "y" } else { "n" })?;
            let press = ConfirmationPress {
                token: prompt.token,
                user_id: self.user_id,
                chat_id: self.user_id,
                approve,
            };
            reply = match self.app.router.press(&press).await {
                PressCheck::Accepted { claim, outcome } => {
                    writeln!(self.out, "bot> {}", outcome.replace('\n', "\n     "))?;
                    self.app.router.finish(claim).await
                }
                PressCheck::CodeRequired { message } => Reply::text(message),
                PressCheck::NotYours { alert }
                | PressCheck::AlreadyDone { alert }
                | PressCheck::Expired { alert }
                | PressCheck::Failed { alert } => Reply::text(alert),
            };
        }
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

/// Whether a typed answer means yes.
pub fn is_yes(answer: &str) -> bool {
    let a = answer.trim().to_lowercase();
    ["y", "yes", "ok", "是", "好", "好的", "确认", "确定", "对", "嗯"].contains(&a.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yes_in_both_languages() {
        assert!(is_yes("Y"));
        assert!(is_yes(" 确认 "));
        assert!(!is_yes("n"));
        assert!(!is_yes("取消"));
    }
}
