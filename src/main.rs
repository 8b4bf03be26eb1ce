//! The `mallbot` command: the Telegram bot, the terminal chat, the health
//! check and the mall's reference REST server.
//!
//! Logging is a `fmt` layer behind `RUST_LOG`, written through the scrubbing
//! writer (`infra::redact`), with the trace layer beside it when `[otel]`
//! asks; the trace exporter is flushed after the runtime's work ends.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use mallbot::App;
use mallbot::config::Config;

/// A Telegram shopping guide for a shopping mall.
#[derive(Debug, Parser)]
#[command(name = "mallbot", version, about)]
struct Cli {
    /// The config file (TOML). Without one, every key has a working default.
    #[arg(long, global = true, env = "MALLBOT_CONFIG")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run the Telegram bot (long polling, or webhook when configured).
    Run,
    /// Chat with the bot in the terminal as a shopper; reads standard input line by line.
    Chat {
        /// Your shopper id.
        #[arg(long, default_value_t = 1)]
        user: i64,
    },
    /// Check config, registry, model, mall and state store; exit 0 only when all pass.
    Check,
    /// Serve the tool registry over MCP: stdio, or streamable HTTP with --listen (bearer mcp.token).
    Mcp {
        /// Serve streamable HTTP at http://ADDR/mcp instead of stdio.
        #[arg(long)]
        listen: Option<SocketAddr>,
    },
    /// Serve the Mini App alone, for trying it in a browser (`run` serves it when webapp.listen is set).
    Webapp {
        /// Address to listen on (default: webapp.listen, else 127.0.0.1:8090).
        #[arg(long)]
        listen: Option<SocketAddr>,
    },
    /// What went unanswered: unanswered questions, empty searches, hand-offs, 👍/👎 per tool.
    Report {
        /// The period ending today: 7d, 24h, 2w.
        #[arg(long, default_value = "7d")]
        since: String,
        /// text, csv or json.
        #[arg(long, default_value = "text")]
        format: ReportFormat,
    },
    /// Check a folder of the mall's own data (as mall.data would serve it): every mistake
    /// with its file, row and column; exit 0 only when it has none.
    Import {
        /// The folder to check (stores, products, skus… as CSV or .xlsx; docs/your-mall.md).
        #[arg(long, value_name = "FOLDER")]
        check: std::path::PathBuf,
    },
    /// Measure the model (or the offline planner) on this mall with a corpus of conversations:
    /// pass^k per language and per class, and the failing cases with why (docs/eval.md).
    Eval {
        /// A .jsonl file of cases, or a folder of them.
        #[arg(long, default_value = mallbot::eval::DEFAULT_CORPUS)]
        corpus: PathBuf,
        /// Runs of each case; a case passes when all k pass.
        #[arg(short = 'k', default_value_t = 1)]
        k: usize,
        /// text or json.
        #[arg(long, default_value = "text")]
        format: EvalFormat,
        /// Exit 1 when the overall pass^k is under this share (0.5, 50 or 50%).
        #[arg(long, value_name = "PASS_RATE", value_parser = mallbot::eval::parse_rate)]
        min: Option<f64>,
        /// Conversations run at once.
        #[arg(long, default_value_t = 4)]
        jobs: usize,
    },
    /// Serve the mall REST API from the embedded mall (a dev/test backend).
    MallServer {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
    },
}

/// How `mallbot eval` writes its figures.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum EvalFormat {
    Text,
    Json,
}

/// How `mallbot report` writes the report.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum ReportFormat {
    Text,
    Csv,
    Json,
}

fn main() -> ExitCode {
    mallbot::redact::install_panic_hook();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mallbot: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let outcome = runtime.block_on(run(cli));
    // The spans still queued go out on the runtime, before it is dropped.
    mallbot::otel::shutdown();
    match outcome {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mallbot: {}", mallbot::redact::scrub(&format!("{e:#}")));
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = Config::load(cli.config.as_deref())?;
    mallbot::redact::register_config(&config);
    let command = cli.command.unwrap_or_else(|| {
        if config.telegram.token.is_empty() {
            eprintln!(
                "No Telegram token configured: starting the terminal chat. \
                 (Set MALLBOT_TELEGRAM__TOKEN and run `mallbot run` for Telegram.)"
            );
            Command::Chat { user: 1 }
        } else {
            Command::Run
        }
    });
    let quiet = matches!(
        command,
        Command::Chat { .. }
            | Command::Check
            | Command::Mcp { listen: None }
            | Command::Report { .. }
            | Command::Import { .. }
            | Command::Eval { .. }
    );
    init_logging(if quiet { "warn" } else { "info" }, &config)?;
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    match command {
        Command::Run => {
            let app = App::build(config).await?;
            app.connect_mcp_servers(std::time::Duration::ZERO).await;
            mallbot::telegram::run(app).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Chat { user } => {
            let app = App::build(config).await?;
            app.connect_mcp_servers(std::time::Duration::ZERO).await;
            let stdin = tokio::io::BufReader::new(tokio::io::stdin());
            let prompt = std::io::stdin().is_terminal();
            mallbot::Console::new(&app, user, stdin, std::io::stdout(), prompt).run().await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Report { since, format } => {
            let days = mallbot::report::parse_since(&since).map_err(|e| anyhow::anyhow!("--since: {e}"))?;
            let (days, cut) = mallbot::report::clamp_period(days, config.report.keep_days);
            if let Some(keep) = cut {
                eprintln!("{}", mallbot::report::clamped_note(keep));
            }
            let state = mallbot::state::open(&config.state.url).await?;
            let report = mallbot::report::collect(state.as_ref(), days).await?;
            let out = match format {
                ReportFormat::Text => mallbot::report::text(&report),
                ReportFormat::Csv => mallbot::report::csv(&report),
                ReportFormat::Json => serde_json::to_string_pretty(&report)?,
            };
            println!("{out}");
            Ok(ExitCode::SUCCESS)
        }
        Command::Eval { corpus, k, format, min, jobs } => {
            let options = mallbot::eval::Options { corpus, k, jobs };
            let report = mallbot::eval::run(config, &options).await?;
            match format {
                EvalFormat::Text => print!("{}", report.text()),
                EvalFormat::Json => println!("{}", serde_json::to_string_pretty(&report)?),
            }
            Ok(match min {
                Some(min) if report.overall.pass_k < min => {
                    eprintln!(
                        "mallbot eval: pass^{} {:.1} % is under --min {:.1} %",
                        report.k,
                        report.overall.pass_k * 100.0,
                        min * 100.0
                    );
                    ExitCode::FAILURE
                }
                _ => ExitCode::SUCCESS,
            })
        }
        Command::Import { check } => {
            let map = Some(config.mall.imdf.trim()).filter(|p| !p.is_empty()).map(std::path::Path::new);
            Ok(match mallbot::ops::check_folder(&check, map) {
                Ok(summary) => {
                    println!("{summary}");
                    ExitCode::SUCCESS
                }
                Err(mistakes) => {
                    // A key of the config quoted in a cell is not shown.
                    println!("{}", mallbot::redact::scrub(&mistakes));
                    ExitCode::FAILURE
                }
            })
        }
        Command::Check => {
            // The mall's own data first: with mistakes, the bot would not start.
            match mallbot::ops::check_mall_data(&config) {
                Some(Ok(summary)) => println!("{summary}"),
                Some(Err(mistakes)) => {
                    println!("{}", mallbot::redact::scrub(&mistakes));
                    return Ok(ExitCode::FAILURE);
                }
                None => {}
            }
            let app = App::build(config).await?;
            // Each MCP server gets its first try before it is reported.
            app.connect_mcp_servers(std::time::Duration::from_secs(10)).await;
            let mut report = mallbot::health::collect(&app).await;
            report.checks.extend(mallbot::health::setup_checks(&app).await);
            if !app.config.telegram.token.is_empty() {
                report.checks.push(mallbot::telegram::check(&app.config.telegram).await);
                if app.config.support.chat_id != 0 {
                    let desk =
                        mallbot::telegram::check_desk(&app.config.telegram, app.config.support.chat_id);
                    report.checks.push(desk.await);
                }
            }
            println!("{}", mallbot::redact::scrub(&report.render_check()));
            Ok(if report.all_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        // Serving the registry: the lent tools of [mcp.servers] are the bot's own
        // and are not served, so those servers are not started here.
        Command::Mcp { listen: None } => {
            let app = App::build(config).await?;
            mallbot::mcp::serve_stdio(app).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Mcp { listen: Some(listen) } => {
            // Listening for the stop signals before the port opens: a SIGTERM
            // sent as soon as it accepts connections stops the server cleanly.
            let stop = mallbot::telegram::stop_signal();
            let app = App::build(config).await?;
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .with_context(|| format!("cannot listen on {listen}"))?;
            tracing::info!(%listen, "MCP server listening");
            eprintln!("MCP server listening on http://{listen}/mcp");
            let shutdown = async {
                let signal = stop.await;
                tracing::info!(signal, "MCP server stopping");
            };
            mallbot::mcp::serve_http(app, listener, shutdown).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Webapp { listen } => {
            let configured = app_listen(&config.webapp.listen);
            let listen = listen.or(configured).unwrap_or_else(|| SocketAddr::from(([127, 0, 0, 1], 8090)));
            // Listening for the stop signals before the port opens: a SIGTERM
            // sent as soon as it accepts connections stops the server cleanly.
            let stop = mallbot::telegram::stop_signal();
            let app = App::build(config).await?;
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .with_context(|| format!("cannot listen on {listen}"))?;
            eprintln!("The Mini App: open http://{listen}/webapp/ in a browser (Ctrl-C stops).");
            let shutdown = async {
                let signal = stop.await;
                tracing::info!(signal, "Mini App stopping");
            };
            mallbot::webapp::serve(mallbot::webapp::WebApp::new(app, None), listener, shutdown).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::MallServer { listen } => {
            // Listening for the stop signals before the port opens: a SIGTERM
            // sent as soon as it accepts connections stops the server cleanly.
            let stop = mallbot::telegram::stop_signal();
            let shutdown = async {
                let signal = stop.await;
                tracing::info!(signal, "mall server stopping");
            };
            mallbot::mall_server::serve(&config, listen, shutdown).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `webapp.listen` as an address, when set.
fn app_listen(listen: &str) -> Option<SocketAddr> {
    listen.trim().parse().ok()
}

fn init_logging(default_level: &str, config: &Config) -> anyhow::Result<()> {
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    type Layers = Vec<Box<dyn tracing_subscriber::Layer<tracing_subscriber::Registry> + Send + Sync>>;

    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    // The trace's own spans (target `otel`) are not log lines.
    let filter = match format!("{}=off", mallbot::otel::TARGET).parse() {
        Ok(directive) => filter.add_directive(directive),
        Err(_) => filter,
    };
    // Every line passes through the scrubber: no secret of the config reaches the log.
    let writer = mallbot::redact::ScrubbingWriter(std::io::stderr);
    let mut layers: Layers = Vec::new();
    match config.log.format {
        // One JSON object per line, with the current span's fields and the
        // spans around it, for a log collector.
        mallbot::config::LogFormat::Json => layers.push(
            tracing_subscriber::fmt::layer()
                .with_writer(writer)
                .json()
                .with_current_span(true)
                .with_span_list(true)
                .with_filter(filter)
                .boxed(),
        ),
        mallbot::config::LogFormat::Text => {
            // Colour only for a person at a terminal: never into files or collectors.
            let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            layers.push(
                tracing_subscriber::fmt::layer()
                    .with_writer(writer)
                    .with_ansi(colour)
                    .with_filter(filter)
                    .boxed(),
            );
        }
    }
    // Traces: a layer of its own, only when `[otel]` (or OTEL_*) asks for it.
    if let Some(otel) = mallbot::otel::layer(config)? {
        layers.push(otel);
    }
    let _ = tracing_subscriber::registry().with(layers).try_init();
    Ok(())
}
