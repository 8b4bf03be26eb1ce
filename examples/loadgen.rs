//! Load generator: the real `mallbot run` as a child process against a
//! loopback fake Bot API (N chats × M messages through `getUpdates`), a
//! scripted OpenAI-compatible model (one `search_products` round, then a text
//! answer, with set latency and time to first token) and the embedded mall —
//! or, with `--mall http`, a `mallbot mall-server` child on loopback that the
//! bot reaches over HTTP, or `--mall python` with a small Python server in
//! front of it (`--tool navigate_to_store`: the model's round asks the way to
//! Nike for "Nike 店在哪" instead of searching products).
//! Prints messages/s, the bot's own CPU time per message and peak RSS, and
//! p50/p99 of the time from an update being handed out to the first visible
//! sign, the first answer text and the whole answer; when streamed, also how
//! long after the model's first token of the answer its text was visible.
//!
//! Run: `cargo build --release && cargo run --release --example loadgen -- --help`

#![allow(clippy::unwrap_used)]

#[path = "../tests/support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "../tests/support/fake_model.rs"]
mod fake_model;
#[path = "support/measure.rs"]
mod measure;

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Parser;
use fake_bot_api::{FakeBotApi, Recorded, Shopper};
use fake_model::{FakeModel, ModelBehaviour};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};

/// Sends N chats × M messages to the real bot and measures how it answers.
#[derive(Parser, Debug, Clone)]
#[command(name = "loadgen")]
struct Options {
    /// Number of private chats (one shopper each).
    #[arg(long, default_value_t = 500)]
    chats: usize,
    /// Messages each chat sends.
    #[arg(long, default_value_t = 2)]
    messages: usize,
    /// Time the model takes for each answer (the tool round and the text
    /// answer each take this long), in milliseconds.
    #[arg(long, default_value_t = 1000)]
    model_latency_ms: u64,
    /// Time to the first token of a streamed answer, in milliseconds.
    #[arg(long, default_value_t = 0)]
    ttft_ms: u64,
    /// Ask the model for streamed answers (`llm.stream = true`).
    #[arg(long)]
    stream: bool,
    /// The bot's state store: `sqlite` (a temp file) or `memory`.
    #[arg(long, default_value = "sqlite", value_parser = ["sqlite", "memory"])]
    state: String,
    /// Queue every message at once instead of each chat waiting for the
    /// answer to its previous message.
    #[arg(long)]
    burst: bool,
    /// A flood of new chats: every chat sends one message at once (implies
    /// `--burst --messages 1`), and the run ends when the bot has gone quiet
    /// (no request to the Bot API for 5 s) rather than when every message is
    /// answered, since the bot drops chats beyond its cap on busy chats.
    /// Reports how many were answered and dropped, and the peak RSS.
    /// E.g. `--flood --chats 50000`.
    #[arg(long)]
    flood: bool,
    /// Give up after this many seconds (partial figures are still printed).
    #[arg(long, default_value_t = 300)]
    timeout_secs: u64,
    /// The `mallbot` binary; default: `target/release/mallbot` (build it
    /// first with `cargo build --release`).
    #[arg(long)]
    bot: Option<PathBuf>,
    /// Extra `MALLBOT_*` settings for the bot, as KEY=VALUE (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE")]
    extra_env: Vec<String>,
    /// The model takes this many calls at once and refuses the rest with 429
    /// and `Retry-After`, as a provider's concurrency limit does (0 = no cap).
    #[arg(long, default_value_t = 0)]
    model_capacity: usize,
    /// The `Retry-After` of those refusals, in seconds.
    #[arg(long, default_value_t = 1)]
    model_retry_after_secs: u64,
    /// Traces (`[otel]`): `off`; `on`, sent to a loopback collector that
    /// takes and discards them; `down`, sent to a closed port.
    #[arg(long, default_value = "off", value_parser = ["off", "on", "down"])]
    otel: String,
    /// The mall: `embedded` (in the bot's process), `http` (a
    /// `mallbot mall-server` child on loopback, the bot's `mall.backend =
    /// "http"`) or `python` (the same behind a small Python server:
    /// `examples/support/python_mall.py`, Python's standard-library HTTP
    /// server with its defaults, HTTP/1.0 and a listen backlog of five).
    #[arg(long, default_value = "embedded", value_parser = ["embedded", "http", "python"])]
    mall: String,
    /// The tool of the model's round: `search_products` (shoppers ask for
    /// Nike running shoes) or `navigate_to_store` (shoppers ask "Nike 店在哪",
    /// the model asks the way to the store Nike).
    #[arg(long, default_value = "search_products", value_parser = ["search_products", "navigate_to_store"])]
    tool: String,
    /// Every Bot API answer waits this long before it leaves, as a real
    /// Telegram 50–200 ms away does (the bot then sends status lines, edits
    /// and more `getUpdates` than against an instant one).
    #[arg(long, default_value_t = 0)]
    telegram_latency_ms: u64,
    /// Wraps the bot in this command (split at spaces; the bot's path and
    /// arguments follow), e.g. `--wrap "valgrind --tool=callgrind
    /// --dump-instr=no --callgrind-out-file=/tmp/cg.%p"`. Stopped with
    /// SIGTERM at the end so a profiler writes its figures.
    #[arg(long)]
    wrap: Option<String>,
    /// With a callgrind `--wrap`: zero its counters once the bot polls and
    /// dump them when the last answer is in (`callgrind_control`), so the
    /// dump holds the messages only, not the start-up.
    #[arg(long)]
    callgrind_zero: bool,
}

/// What happened to one shopper message.
#[derive(Debug, Clone, Default)]
struct Trace {
    update_id: i64,
    handed_out: Option<Instant>,
    first_sign: Option<Instant>,
    first_text: Option<Instant>,
    whole: Option<Instant>,
}

/// The shoppers' side: what each chat sent and what it saw.
struct Shoppers {
    api: Arc<FakeBotApi>,
    /// What each shopper asks (the tag follows).
    ask: &'static str,
    /// What a whole answer in the tool's own words carries (`llm.direct_answers`):
    /// it has no tag of the model's, so it answers the chat's oldest open message.
    direct_marker: Option<&'static str>,
    burst: bool,
    messages: usize,
    /// Per chat: the messages sent so far.
    traces: Mutex<HashMap<i64, Vec<Trace>>>,
    done: tokio::sync::Notify,
    answered: std::sync::atomic::AtomicUsize,
    /// Every request of the bot to the Bot API but polling (typing included).
    activity: std::sync::atomic::AtomicUsize,
}

const FIRST_CHAT: i64 = 10_000;

impl Shoppers {
    fn send(&self, chat: i64, n: usize) {
        let shopper = Shopper { id: chat, name: "Shopper" };
        let text = format!("{} {}", self.ask, fake_model::tag(chat, n));
        let update_id = self.api.push_update(fake_bot_api::private_text(shopper, &text));
        let mut traces = self.traces.lock().unwrap();
        traces.entry(chat).or_default().push(Trace { update_id, ..Trace::default() });
    }

    /// Takes one request of the bot to the Bot API.
    fn observe(&self, request: &Recorded) {
        if request.method != "getUpdates" {
            self.activity.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        }
        if request.failed {
            return;
        }
        let method = request.method.as_str();
        if !matches!(method, "sendChatAction" | "sendMessage" | "sendMessageDraft" | "editMessageText") {
            return;
        }
        let chat = chat_of(&request.body);
        let text = request.body["text"].as_str().unwrap_or_default();
        let mut next = None;
        {
            let mut traces = self.traces.lock().unwrap();
            let Some(sent) = traces.get_mut(&chat) else { return };
            // A sign without an answer text belongs to the oldest message not
            // yet answered, once the bot has it (a typing refresh of the
            // previous answer does not count for the next message).
            if let Some(open) = sent.iter_mut().find(|t| t.whole.is_none())
                && self.api.handed_out(open.update_id).is_some()
            {
                open.first_sign.get_or_insert(request.at);
            }
            let (n, whole) = match fake_model::tag_in(text) {
                Some(tag) => {
                    let Some(n) =
                        tag.rsplit_once('m').and_then(|(_, n)| n.trim_end_matches('z').parse::<usize>().ok())
                    else {
                        return;
                    };
                    (n, method != "sendMessageDraft" && text.contains(&fake_model::end_of(tag)))
                }
                // An answer in the tool's own words: the oldest message still open.
                None if method != "sendMessageDraft"
                    && self.direct_marker.is_some_and(|m| text.contains(m)) =>
                {
                    let Some(n) = sent.iter().position(|t| t.whole.is_none()) else { return };
                    (n, true)
                }
                None => return,
            };
            let Some(trace) = sent.get_mut(n) else { return };
            trace.first_sign.get_or_insert(request.at);
            trace.first_text.get_or_insert(request.at);
            if whole && trace.whole.is_none() {
                trace.whole = Some(request.at);
                if !self.burst && n + 1 < self.messages {
                    next = Some(n + 1);
                }
                let answered = self.answered.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                if answered == traces.len() * self.messages {
                    self.done.notify_one();
                }
            }
        }
        if let Some(n) = next {
            self.send(chat, n);
        }
    }
}

/// Waits until every update of a flood was handed out and the bot sent
/// nothing at all (not even typing) for `quiet`; whether that happened
/// before `limit`.
async fn flood_settled(api: &FakeBotApi, shoppers: &Shoppers, quiet: Duration, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    let last_id = shoppers.traces.lock().unwrap().values().flatten().map(|t| t.update_id).max();
    let mut seen = shoppers.activity.load(std::sync::atomic::Ordering::SeqCst);
    let mut quiet_since = Instant::now();
    while Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = shoppers.activity.load(std::sync::atomic::Ordering::SeqCst);
        if now != seen {
            seen = now;
            quiet_since = Instant::now();
        }
        let all_out = last_id.is_none_or(|id| api.handed_out(id).is_some());
        if all_out && quiet_since.elapsed() >= quiet {
            return true;
        }
    }
    false
}

fn chat_of(body: &Value) -> i64 {
    body["chat_id"].as_i64().or_else(|| body["chat_id"].as_str().and_then(|s| s.parse().ok())).unwrap_or(0)
}

/// How the bot met a model that takes `capacity` calls at once: the share
/// of refused requests, in all and once the limit had time to find the
/// capacity (after the first 3 s), and how soon it used the room there is.
fn capacity_report(arrivals: &[fake_model::Arrival], started: Instant, capacity: usize) {
    let share = |refused: usize, all: usize| 100.0 * refused as f64 / all.max(1) as f64;
    let refused = arrivals.iter().filter(|a| a.refused).count();
    let settled = started + Duration::from_secs(3);
    let late: Vec<_> = arrivals.iter().filter(|a| a.at >= settled).collect();
    let late_refused = late.iter().filter(|a| a.refused).count();
    println!(
        "model requests        {} at a capacity of {capacity}: {refused} refused ({:.1} %); after the first 3 s {late_refused} of {} ({:.1} %)",
        arrivals.len(),
        share(refused, arrivals.len()),
        late.len(),
        share(late_refused, late.len()),
    );
    let taken = arrivals.iter().filter(|a| !a.refused);
    let most = taken.clone().map(|a| a.in_flight).max().unwrap_or(0);
    let half = taken
        .clone()
        .find(|a| a.in_flight > capacity / 2)
        .map(|a| format!("{} ms", a.at.saturating_duration_since(started).as_millis()))
        .unwrap_or("never".into());
    println!("model calls at once   at most {most}; more than {} after {half}", capacity / 2);
}

/// The mall's key between the bot and the `mall-server` child.
const MALL_KEY: &str = "loadgen-mall-key";

/// A `mallbot mall-server` child on a free loopback port (the demo mall in
/// its own database), stopped when dropped; with `--mall python`, the small
/// Python server in front of it that the bot is given instead.
struct MallServer {
    url: String,
    pid: u32,
    _child: tokio::process::Child,
    front: Option<(u32, tokio::process::Child)>,
}

impl MallServer {
    async fn start(binary: &std::path::Path, dir: &std::path::Path) -> anyhow::Result<MallServer> {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
        let mut command = tokio::process::Command::new(binary);
        command
            .args(["mall-server", "--listen", &addr.to_string()])
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true);
        for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
            command.env_remove(key);
        }
        command
            .env("RUST_LOG", "warn")
            .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall-server.db"))
            .env("MALLBOT_MALL__API_KEY", MALL_KEY);
        let mut child = command.spawn().map_err(|e| anyhow::anyhow!("cannot start the mall server: {e}"))?;
        let pid = child.id().ok_or_else(|| anyhow::anyhow!("the mall server exited at once"))?;
        listening(addr, &mut child, "the mall server").await?;
        Ok(MallServer { url: format!("http://{addr}"), pid, _child: child, front: None })
    }

    /// Puts the small Python server (`examples/support/python_mall.py`) in
    /// front: the bot is given its address.
    async fn behind_python(mut self) -> anyhow::Result<MallServer> {
        let addr = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
        let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/support/python_mall.py");
        let mut child = tokio::process::Command::new("python3")
            .arg(script)
            .arg(addr.port().to_string())
            .arg(&self.url)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| anyhow::anyhow!("cannot start python3 for --mall python: {e}"))?;
        let pid = child.id().ok_or_else(|| anyhow::anyhow!("the Python mall exited at once"))?;
        listening(addr, &mut child, "the Python mall").await?;
        self.url = format!("http://{addr}");
        self.front = Some((pid, child));
        Ok(self)
    }

    /// How many requests the Python server in front has passed on, if there is one.
    async fn requests(&self) -> Option<u64> {
        self.front.as_ref()?;
        let answer = reqwest::get(format!("{}/loadgen/requests", self.url)).await.ok()?;
        answer.text().await.ok()?.trim().parse().ok()
    }

    /// The CPU time of the mall server and of the Python server in front, if any.
    fn cpu_time(&self, ticks: f64) -> Option<(Duration, Option<Duration>)> {
        let front = self.front.as_ref().map(|(pid, _)| measure::cpu_time(*pid, ticks).unwrap_or_default());
        Some((measure::cpu_time(self.pid, ticks)?, front))
    }
}

/// Waits until `child` listens on `addr` (30 s at most).
async fn listening(
    addr: std::net::SocketAddr,
    child: &mut tokio::process::Child,
    what: &str,
) -> anyhow::Result<()> {
    let ready_by = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(addr).await.is_err() {
        if Instant::now() > ready_by || child.try_wait()?.is_some() {
            anyhow::bail!("{what} never listened on {addr}");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

/// `callgrind_control <what> <pid>`, reported on failure.
fn callgrind_control(what: &str, pid: u32) {
    let status = std::process::Command::new("callgrind_control").arg(what).arg(pid.to_string()).status();
    if !status.as_ref().is_ok_and(|s| s.success()) {
        eprintln!("callgrind_control {what} {pid} failed: {status:?}");
    }
}

/// Sends SIGTERM to `pid`.
fn terminate(pid: u32) {
    let _ = std::process::Command::new("kill").args(["-TERM", &pid.to_string()]).status();
}

#[tokio::main(flavor = "multi_thread")]
async fn main() -> anyhow::Result<()> {
    let mut options = Options::parse();
    if options.flood {
        options.burst = true;
        options.messages = 1;
    }
    anyhow::ensure!(options.chats > 0 && options.messages > 0, "--chats and --messages must be at least 1");
    let binary = measure::bot_binary(options.bot.as_deref())?;
    let api = Arc::new(FakeBotApi::start().await);
    api.set_latency(Duration::from_millis(options.telegram_latency_ms));
    // The route to Nike names its floor; a status line does not.
    let (ask, tool, direct_marker) = match options.tool.as_str() {
        "navigate_to_store" => (
            "Nike 店在哪",
            Some(("navigate_to_store".to_owned(), serde_json::json!({"store_name": "Nike"}))),
            Some("3F"),
        ),
        _ => ("有没有 500 元以内的 Nike 跑鞋？", None, None),
    };
    let model = FakeModel::start(ModelBehaviour {
        latency: Duration::from_millis(options.model_latency_ms),
        ttft: Duration::from_millis(options.ttft_ms),
        capacity: options.model_capacity,
        retry_after_secs: options.model_retry_after_secs,
        tool,
        ..ModelBehaviour::default()
    })
    .await;
    let dir = std::env::temp_dir().join(format!("mallbot-loadgen-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let mall = match options.mall.as_str() {
        "http" => Some(MallServer::start(&binary, &dir).await?),
        "python" => Some(MallServer::start(&binary, &dir).await?.behind_python().await?),
        _ => None,
    };
    let state_url = match options.state.as_str() {
        "memory" => "memory://".to_owned(),
        _ => format!("sqlite://{}", dir.join("state.db").display()),
    };
    let mut env: Vec<(String, String)> = [
        ("MALLBOT_TELEGRAM__TOKEN", "123:LOAD".to_owned()),
        ("MALLBOT_TELEGRAM__API_URL", api.url.to_string()),
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "fake".to_owned()),
        ("MALLBOT_LLM__API_KEY", "load-key".to_owned()),
        ("MALLBOT_LLM__STREAM", options.stream.to_string()),
        ("MALLBOT_STATE__URL", state_url),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db").display().to_string()),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    if let Some(mall) = &mall {
        env.extend([
            ("MALLBOT_MALL__BACKEND".to_owned(), "http".to_owned()),
            ("MALLBOT_MALL__BASE_URL".to_owned(), mall.url.clone()),
            ("MALLBOT_MALL__API_KEY".to_owned(), MALL_KEY.to_owned()),
        ]);
    }
    for pair in &options.extra_env {
        let (key, value) =
            pair.split_once('=').ok_or_else(|| anyhow::anyhow!("--env {pair}: not KEY=VALUE"))?;
        env.push((key.to_owned(), value.to_owned()));
    }
    let otel_exports = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    match options.otel.as_str() {
        "on" => env.push(("MALLBOT_OTEL__ENDPOINT".to_owned(), otel_sink(Arc::clone(&otel_exports)).await?)),
        "down" => env.push(("MALLBOT_OTEL__ENDPOINT".to_owned(), format!("http://{}", closed_port()?))),
        _ => {}
    }

    let mut command = match options.wrap.as_deref().map(str::split_whitespace) {
        Some(mut wrap) => {
            let mut command =
                tokio::process::Command::new(wrap.next().ok_or_else(|| anyhow::anyhow!("--wrap is empty"))?);
            command.args(wrap).arg(&binary);
            command
        }
        None => tokio::process::Command::new(&binary),
    };
    measure::bot_command(
        &mut command,
        &["run"],
        &dir,
        env.iter().map(|(k, v)| (k.as_str(), v.as_str())),
        true,
    );
    let mut child = command.spawn().map_err(|e| anyhow::anyhow!("cannot start {}: {e}", binary.display()))?;
    let pid = child.id().ok_or_else(|| anyhow::anyhow!("the bot exited at once"))?;
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    // The model limit's cuts, as the bot logs them.
    let limit_cuts = Arc::new(Mutex::new(Vec::<String>::new()));
    if let Some(stderr) = child.stderr.take() {
        let sink = Arc::clone(&log);
        let cuts = Arc::clone(&limit_cuts);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if line.contains("fewer calls at once") {
                    cuts.lock().unwrap().push(line.clone());
                }
                let mut log = sink.lock().unwrap();
                if log.len() < 200 {
                    log.push(line);
                }
            }
        });
    }

    // Ready when it polls for updates (a profiler's start takes longer).
    let ready_by = Instant::now() + Duration::from_secs(if options.wrap.is_some() { 300 } else { 30 });
    while api.calls("getUpdates").is_empty() {
        if Instant::now() > ready_by || child.try_wait()?.is_some() {
            eprintln!("{}", log.lock().unwrap().join("\n"));
            anyhow::bail!("the bot never polled for updates");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    let shoppers = Arc::new(Shoppers {
        api: Arc::clone(&api),
        ask,
        direct_marker,
        burst: options.burst,
        messages: options.messages,
        traces: Mutex::new(HashMap::new()),
        done: tokio::sync::Notify::new(),
        answered: std::sync::atomic::AtomicUsize::new(0),
        activity: std::sync::atomic::AtomicUsize::new(0),
    });
    let observer = Arc::clone(&shoppers);
    api.observe(Arc::new(move |request| observer.observe(request)));

    if options.callgrind_zero {
        callgrind_control("--zero", pid);
    }
    let ticks = measure::clock_ticks();
    let cpu_before = measure::cpu_time(pid, ticks).unwrap_or_default();
    let (user_before, _) = measure::cpu_times(pid, ticks).unwrap_or_default();
    let mall_cpu_before = mall.as_ref().and_then(|m| m.cpu_time(ticks)).unwrap_or_default();
    let started = Instant::now();
    for i in 0..options.chats {
        let chat = FIRST_CHAT + i as i64;
        shoppers.traces.lock().unwrap().insert(chat, Vec::new());
    }
    for i in 0..options.chats {
        let chat = FIRST_CHAT + i as i64;
        let count = if options.burst { options.messages } else { 1 };
        for n in 0..count {
            shoppers.send(chat, n);
        }
    }
    let total = options.chats * options.messages;
    let finished = if options.flood {
        let quiet = Duration::from_secs(5);
        flood_settled(&api, &shoppers, quiet, Duration::from_secs(options.timeout_secs)).await
    } else {
        tokio::time::timeout(Duration::from_secs(options.timeout_secs), shoppers.done.notified())
            .await
            .is_ok()
            || shoppers.answered.load(std::sync::atomic::Ordering::SeqCst) == total
    };
    let wall = started.elapsed();
    let cpu = measure::cpu_time(pid, ticks).unwrap_or_default().saturating_sub(cpu_before);
    let user = measure::cpu_times(pid, ticks).map(|(u, _)| u.saturating_sub(user_before)).unwrap_or_default();
    let mall_cpu = mall.as_ref().and_then(|m| m.cpu_time(ticks)).map(|(server, front)| {
        let (server_before, front_before) = mall_cpu_before;
        (
            server.saturating_sub(server_before),
            front.map(|f| f.saturating_sub(front_before.unwrap_or_default())),
        )
    });
    let rss = measure::peak_rss_kib(pid);
    let mall_requests = match &mall {
        Some(mall) => mall.requests().await,
        None => None,
    };
    if options.callgrind_zero {
        callgrind_control("--dump=messages", pid);
    }
    if options.wrap.is_some() {
        // SIGTERM: the bot stops and a profiler around it writes its figures.
        terminate(pid);
        if tokio::time::timeout(Duration::from_secs(120), child.wait()).await.is_err() {
            child.start_kill()?;
        }
    }
    child.start_kill()?;
    let _ = child.wait().await;
    drop(mall);
    let _ = std::fs::remove_dir_all(&dir);

    let mut traces: Vec<Trace> = shoppers.traces.lock().unwrap().values().flatten().cloned().collect();
    for trace in &mut traces {
        trace.handed_out = api.handed_out(trace.update_id);
    }
    let answered = traces.iter().filter(|t| t.whole.is_some()).count();
    let last_answer = traces.iter().filter_map(|t| t.whole).max();
    let busy = last_answer.map(|t| t.duration_since(started)).unwrap_or(wall);
    let series = |pick: fn(&Trace) -> Option<Instant>| {
        let mut all: Vec<Duration> =
            traces.iter().filter_map(|t| Some(pick(t)?.saturating_duration_since(t.handed_out?))).collect();
        all.sort();
        all
    };
    let sign = series(|t| t.first_sign);
    let text = series(|t| t.first_text);
    let whole = series(|t| t.whole);

    println!(
        "loadgen: {} chats × {} messages{}, model {} ms per answer{}, stream {}, state {}, mall {}, tool {}, Bot API {} ms{}",
        options.chats,
        options.messages,
        if options.burst { " (burst)" } else { "" },
        options.model_latency_ms,
        if options.stream { format!(", first token {} ms", options.ttft_ms) } else { String::new() },
        if options.stream { "on" } else { "off" },
        options.state,
        options.mall,
        options.tool,
        options.telegram_latency_ms,
        if options.extra_env.is_empty() {
            String::new()
        } else {
            format!(", {}", options.extra_env.join(" "))
        },
    );
    println!("messages answered     {answered} of {total}{}", if finished { "" } else { " (timed out)" });
    if options.flood {
        println!("messages dropped      {} (beyond the bot's cap on busy chats)", total - answered);
    }
    println!("wall time             {:.2} s (to the last whole answer)", busy.as_secs_f64());
    println!("throughput            {:.1} msg/s", answered as f64 / busy.as_secs_f64().max(1e-9));
    println!(
        "bot CPU               {:.0} ms in all, {:.3} ms per message ({:.0} ms of it user, {:.0} ms system)",
        cpu.as_secs_f64() * 1000.0,
        cpu.as_secs_f64() * 1000.0 / answered.max(1) as f64,
        user.as_secs_f64() * 1000.0,
        cpu.saturating_sub(user).as_secs_f64() * 1000.0,
    );
    if let Some((server, front)) = mall_cpu {
        let per_message = |cpu: Duration| {
            format!(
                "{:.0} ms in all, {:.3} ms per message",
                cpu.as_secs_f64() * 1000.0,
                cpu.as_secs_f64() * 1000.0 / answered.max(1) as f64
            )
        };
        println!("mall-server CPU       {}", per_message(server));
        if let Some(front) = front {
            println!("Python mall CPU       {}", per_message(front));
        }
        if let Some(requests) = mall_requests {
            println!(
                "mall requests         {requests} in all, {:.3} per message",
                requests as f64 / answered.max(1) as f64
            );
        }
    }
    println!(
        "bot peak RSS          {}",
        rss.map(|k| format!("{:.1} MiB", k as f64 / 1024.0)).unwrap_or("—".into())
    );
    println!(
        "model calls           {}, {:.2} per message",
        model.calls(),
        model.calls() as f64 / answered.max(1) as f64
    );
    let mut methods: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for request in api.requests() {
        *methods.entry(request.method).or_default() += 1;
    }
    println!(
        "Bot API calls         {}",
        methods
            .iter()
            .map(|(method, n)| format!("{method} {:.2}", *n as f64 / answered.max(1) as f64))
            .collect::<Vec<_>>()
            .join(", ")
            + " per message"
    );
    let exports = otel_exports.load(std::sync::atomic::Ordering::Relaxed);
    println!("otel                  {} ({exports} OTLP exports received)", options.otel);
    if options.model_capacity > 0 {
        capacity_report(&model.arrivals(), started, options.model_capacity);
        let cuts = limit_cuts.lock().unwrap();
        let figures = |line: &String| {
            let field = |name: &str| {
                line.split(&format!("{name}="))
                    .nth(1)
                    .and_then(|v| v.split_whitespace().next())
                    .unwrap_or("?")
            };
            format!("{}→{}", field("from"), field("to"))
        };
        println!(
            "model limit cuts      {}: {}",
            cuts.len(),
            cuts.iter().map(figures).collect::<Vec<_>>().join(" ")
        );
    }
    println!("                      p50        p99");
    for (name, series) in
        [("first visible sign", &sign), ("first answer text", &text), ("whole answer", &whole)]
    {
        println!(
            "{name:<22}{:<11}{}",
            measure::millis(measure::percentile(series, 50.0)),
            measure::millis(measure::percentile(series, 99.0))
        );
    }
    if options.stream {
        // The answer's first token leaves the model one whole tool round
        // (`latency`) plus `ttft` after the turn's first model call starts.
        let token = Duration::from_millis(options.model_latency_ms + options.ttft_ms);
        let past: Vec<Duration> = text.iter().map(|t| t.saturating_sub(token)).collect();
        println!(
            "{:<24}{:<11}{}",
            "  after its first token",
            measure::millis(measure::percentile(&past, 50.0)),
            measure::millis(measure::percentile(&past, 99.0))
        );
    }
    if !finished {
        let log = log.lock().unwrap();
        eprintln!(
            "the bot's last log lines:\n{}",
            log.iter().rev().take(20).rev().cloned().collect::<Vec<_>>().join("\n")
        );
        std::process::exit(1);
    }
    Ok(())
}

/// A loopback OTLP/HTTP collector that takes every export and discards it;
/// its base URL.
async fn otel_sink(exports: Arc<std::sync::atomic::AtomicUsize>) -> anyhow::Result<String> {
    let routes = axum::Router::new().route(
        "/v1/traces",
        axum::routing::post(move |_body: axum::body::Bytes| {
            exports.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            async { "" }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { axum::serve(listener, routes).await });
    Ok(url)
}

/// A loopback address nothing listens on.
fn closed_port() -> anyhow::Result<std::net::SocketAddr> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?)
}
