//! One run of one conversation: a fresh mall (the configured embedded mall,
//! carts and orders in memory) and a fresh in-memory state store, the bot
//! assembled around them as `mallbot chat` assembles it, and the shopper's
//! lines typed into the terminal chat itself ([`Console`]) — the same door,
//! router and confirmation service, and a yes/no question answered by the
//! next line as a person at the terminal answers it.
//!
//! What the shopper read after each line is cut from the chat's output at
//! the moment the chat asked for the next line; the status lines of the
//! turn's tool calls are left out (what the shopper keeps is the answer).
//! The tools called are those the model (or the offline planner) asked for,
//! recorded by a wrapper around it; the end state is read from the mall and
//! the alerts once the input ends.

use std::collections::VecDeque;
use std::io::Write;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use async_trait::async_trait;
use serde_json::Value;
use services::{Cart, MallApi, Order, PageRequest, Shopper};
use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};

use crate::app::App;
use crate::engine::llm::{ChatModel, ChatRequest, ChatResponse, LlmError};
use crate::infra::config::{Config, MallBackend, Provider};
use crate::transports::console::Console;

/// The shopper every conversation is typed as.
pub(crate) const SHOPPER: i64 = 1;

/// A tool call the model asked for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Called {
    pub(crate) name: String,
    /// The arguments (an object; `{}` when they could not be read).
    pub(crate) args: Value,
}

/// What one run of a conversation showed and left.
#[derive(Debug, Clone, Default)]
pub(crate) struct Transcript {
    /// What the shopper read after each line (the confirmation outcome and the
    /// resumed answer included), in order.
    pub(crate) answers: Vec<String>,
    /// The tool calls asked for, in order.
    pub(crate) calls: Vec<Called>,
    /// Model calls that failed (the run does not measure the model then).
    pub(crate) model_errors: Vec<String>,
    pub(crate) cart: Option<Cart>,
    pub(crate) orders: Vec<Order>,
    pub(crate) alerts: Vec<handlers::alert_book::Alert>,
    /// Anything that kept the run from finishing (the chat failed, the state could not be read).
    pub(crate) broken: Option<String>,
}

/// What a run is built from: the config, and the model shared by every run
/// (a model client keeps its concurrency limit; the offline planner is made per run).
#[derive(Clone)]
pub(crate) struct Bench {
    config: Arc<Config>,
    shared_model: Option<Arc<dyn ChatModel>>,
}

impl Bench {
    /// Checks that the config can be measured: an embedded mall (an HTTP mall
    /// cannot be given a fresh state for each run).
    pub(crate) fn new(mut config: Config) -> anyhow::Result<Bench> {
        if config.mall.backend != MallBackend::Embedded {
            anyhow::bail!(
                "eval runs each conversation on a fresh copy of the mall: set mall.backend = \"embedded\" \
                 (with mall.data for your own mall's files); an HTTP mall's carts and orders cannot be reset"
            );
        }
        // The answer is the same whether streamed or not; the terminal's output is simpler without.
        config.llm.stream = false;
        // Open once now, so a broken mall folder is one clear error and not one per run.
        fresh_mall(&config)?;
        let shared_model = match config.llm.provider {
            Provider::Offline => None,
            Provider::Openai => {
                let mall = fresh_mall(&config)?;
                Some(crate::app::open_model(&config, mall)?)
            }
        };
        Ok(Bench { config: Arc::new(config), shared_model })
    }

    /// What is measured: `offline`, or the model's provider and name.
    pub(crate) fn model_name(&self) -> String {
        match &self.shared_model {
            Some(model) => model.describe(),
            None => "offline".to_owned(),
        }
    }

    /// Types `lines` into a fresh bot's terminal chat, for a shopper whose
    /// app speaks `app` (the configured `bot.language` when `None`); what it
    /// showed and left.
    pub(crate) async fn run(&self, lines: &[String], app: Option<handlers::Lang>) -> Transcript {
        let mut transcript = Transcript::default();
        let mall = match fresh_mall(&self.config) {
            Ok(mall) => mall,
            Err(e) => {
                transcript.broken = Some(format!("the mall could not be opened: {e:#}"));
                return transcript;
            }
        };
        let inner = match &self.shared_model {
            Some(model) => model.clone(),
            None => Arc::new(crate::engine::llm::offline::OfflinePlanner::learning(mall.clone())),
        };
        let recorder = Arc::new(Recorder { inner, log: Mutex::default() });
        let state: Arc<dyn crate::infra::state::StateStore> =
            Arc::new(crate::infra::state::MemoryStore::new());
        let mut config = (*self.config).clone();
        if let Some(lang) = app {
            config.bot.language = lang;
        }
        let app = App::with_model(config, mall.clone(), state, recorder.clone());

        let output = SharedOutput::default();
        let input = ScriptedInput::new(lines, output.clone());
        let marks = input.marks.clone();
        let chat = Console::new(&app, SHOPPER, input, output.clone(), false).run().await;
        if let Err(e) = chat {
            transcript.broken = Some(format!("the terminal chat failed: {e:#}"));
        }
        let log = recorder.log.lock().unwrap_or_else(|e| e.into_inner()).clone();
        for entry in log {
            match entry {
                Ok(calls) => transcript.calls.extend(calls),
                Err(e) => transcript.model_errors.push(e),
            }
        }
        let text = output.text();
        let marks = marks.lock().unwrap_or_else(|e| e.into_inner()).clone();
        transcript.answers = answers(&text, &marks, &status_lines(&transcript.calls));
        let shopper = Shopper::new("console", SHOPPER);
        match mall.get_cart(&shopper).await {
            Ok(cart) => transcript.cart = Some(cart),
            Err(e) => transcript.broken = Some(format!("the cart could not be read: {e}")),
        }
        let page = PageRequest { limit: Some(PageRequest::MAX_LIMIT), offset: None };
        match mall.list_orders(&shopper, page).await {
            Ok(orders) => transcript.orders = orders.items,
            Err(e) => transcript.broken = Some(format!("the orders could not be read: {e}")),
        }
        match app.alerts.list(&shopper.0).await {
            Ok(alerts) => transcript.alerts = alerts,
            Err(e) => transcript.broken = Some(format!("the alerts could not be read: {e}")),
        }
        transcript
    }
}

/// The configured embedded mall, opened afresh: its carts and orders in memory.
fn fresh_mall(config: &Config) -> anyhow::Result<Arc<dyn MallApi>> {
    let embedded = match crate::infra::mall_data::data_dir(config) {
        None => services::EmbeddedMall::in_memory(),
        Some(dir) => services::EmbeddedMall::open_folder(dir, None).map_err(|e| match e {
            services::embedded::FolderError::Invalid(mistakes) => anyhow::anyhow!(
                "the mall's data ({}) has mistakes; `mallbot import --check {}` lists them ({} in all)",
                dir.display(),
                dir.display(),
                mistakes.len()
            ),
            other => anyhow::Error::new(other),
        })?,
    };
    crate::app::with_info_dir(config, Arc::new(embedded))
}

/// The model, recording the tool calls it asks for and its failures.
struct Recorder {
    inner: Arc<dyn ChatModel>,
    log: Mutex<Vec<Result<Vec<Called>, String>>>,
}

#[async_trait]
impl ChatModel for Recorder {
    fn describe(&self) -> String {
        self.inner.describe()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let result = self.inner.complete(request).await;
        let entry = match &result {
            Ok(response) => Ok(response
                .message
                .tool_calls
                .iter()
                .map(|call| Called { name: call.name.clone(), args: arguments(&call.arguments) })
                .collect()),
            Err(e) => Err(e.to_string()),
        };
        self.log.lock().unwrap_or_else(|e| e.into_inner()).push(entry);
        result
    }

    fn load(&self) -> Option<crate::engine::llm::limit::LimitReport> {
        self.inner.load()
    }
}

/// A call's arguments as an object: `{}` when they are not one (nor a string holding one).
fn arguments(raw: &str) -> Value {
    match serde_json::from_str::<Value>(raw.trim()) {
        Ok(Value::Object(map)) => Value::Object(map),
        Ok(Value::String(inner)) => match serde_json::from_str::<Value>(&inner) {
            Ok(Value::Object(map)) => Value::Object(map),
            _ => Value::Object(Default::default()),
        },
        _ => Value::Object(Default::default()),
    }
}

/// The status lines the chat prints for `calls`, in every language, as printed.
fn status_lines(calls: &[Called]) -> Vec<String> {
    let langs = [handlers::Lang::Zh, handlers::Lang::ZhHant, handlers::Lang::En];
    let mut lines: Vec<String> = langs.iter().map(|l| l.texts().tools.working.to_owned()).collect();
    for call in calls {
        if let Some(spec) = handlers::find(&call.name) {
            lines.extend(langs.iter().map(|&l| spec.progress_line(l, &call.args)));
        }
    }
    lines.into_iter().map(|l| format!("     {l}")).collect()
}

/// The chat's output cut at `marks` (where it asked for the next line): what
/// followed each line, without the status lines, prompts and saved pictures'
/// paths; `bot> ` and the indentation taken off.
fn answers(output: &str, marks: &[usize], status: &[String]) -> Vec<String> {
    let mut cuts: Vec<usize> = marks.iter().map(|&m| m.min(output.len())).collect();
    cuts.push(output.len());
    cuts.windows(2)
        .map(|w| {
            let segment = output.get(w[0]..w[1]).unwrap_or_default();
            segment
                .lines()
                .filter(|line| !status.iter().any(|s| s == line))
                .filter(|line| !line.starts_with("you> "))
                .filter(|line| {
                    let inner = line.trim_start();
                    !(inner.starts_with("[floor plan: ") || inner.starts_with("[picture: "))
                })
                .map(|line| line.strip_prefix("bot> ").or_else(|| line.strip_prefix("     ")).unwrap_or(line))
                .collect::<Vec<_>>()
                .join("\n")
                .trim()
                .to_owned()
        })
        .collect()
}

/// The chat's output, shared with the input (which marks where each line was asked for).
#[derive(Clone, Default)]
struct SharedOutput(Arc<Mutex<Vec<u8>>>);

impl SharedOutput {
    fn len(&self) -> usize {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

impl Write for SharedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The shopper's lines, given one at a time: when the chat asks for the next
/// line, the output's length then is marked (what came before answered the
/// line before).
struct ScriptedInput {
    lines: VecDeque<Vec<u8>>,
    current: Vec<u8>,
    at: usize,
    output: SharedOutput,
    /// The output's length when each line was taken.
    marks: Arc<Mutex<Vec<usize>>>,
}

impl ScriptedInput {
    fn new(lines: &[String], output: SharedOutput) -> Self {
        ScriptedInput {
            lines: lines.iter().map(|l| format!("{l}\n").into_bytes()).collect(),
            current: Vec::new(),
            at: 0,
            output,
            marks: Arc::default(),
        }
    }
}

impl AsyncRead for ScriptedInput {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let available = match self.as_mut().poll_fill_buf(cx) {
            Poll::Ready(Ok(available)) => available,
            Poll::Ready(Err(e)) => return Poll::Ready(Err(e)),
            Poll::Pending => return Poll::Pending,
        };
        let n = available.len().min(buf.remaining());
        buf.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncBufRead for ScriptedInput {
    fn poll_fill_buf(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<&[u8]>> {
        let this = self.get_mut();
        if this.at >= this.current.len()
            && let Some(next) = this.lines.pop_front()
        {
            this.marks.lock().unwrap_or_else(|e| e.into_inner()).push(this.output.len());
            this.current = next;
            this.at = 0;
        }
        Poll::Ready(Ok(&this.current[this.at..]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let this = self.get_mut();
        this.at = (this.at + amt).min(this.current.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_is_cut_where_each_line_was_asked_for() {
        let output = "banner\n     ⏳ looking\nbot> Nike is on 3F.\n     Unit 3F-01.\n     [1] Take me there\n\
                      bot> Add to cart?\nyou> y\nbot> Confirmed.\n     ⏳ adding\nbot> Added.\n     [floor plan: /tmp/x.png]\n";
        let first = output.find("     ⏳ looking").unwrap_or_default();
        let second = output.find("you> y").unwrap_or_default();
        let status = vec!["     ⏳ looking".to_owned(), "     ⏳ adding".to_owned()];
        let got = answers(output, &[first, second], &status);
        assert_eq!(
            got,
            vec!["Nike is on 3F.\nUnit 3F-01.\n[1] Take me there\nAdd to cart?", "Confirmed.\nAdded."]
        );
    }
}
