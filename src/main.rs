//! The `mallbot` command: the Telegram bot, the terminal chat, the health
//! check and the mall's reference REST server.

use std::io::IsTerminal;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context as _;
use clap::{Parser, Subcommand};
use mallbot::app::App;
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
    /// Serve the mall REST API from the embedded mall (a dev/test backend).
    MallServer {
        /// Address to listen on.
        #[arg(long, default_value = "127.0.0.1:8080")]
        listen: SocketAddr,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mallbot: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("mallbot: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    let config = Config::load(cli.config.as_deref())?;
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
    let quiet = matches!(command, Command::Chat { .. } | Command::Check | Command::Mcp { listen: None });
    init_logging(if quiet { "warn" } else { "info" }, config.log.format);
    for warning in &config.warnings {
        tracing::warn!("{warning}");
    }
    match command {
        Command::Run => {
            let app = App::build(config).await?;
            app.start_mcp_servers();
            mallbot::telegram::run(app).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Chat { user } => {
            let app = App::build(config).await?;
            app.start_mcp_servers();
            let stdin = tokio::io::BufReader::new(tokio::io::stdin());
            let prompt = std::io::stdin().is_terminal();
            mallbot::console::Console::new(&app, user, stdin, std::io::stdout(), prompt).run().await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Check => {
            let app = App::build(config).await?;
            app.start_mcp_servers();
            // Each MCP server gets its first try before it is reported.
            app.remote.settled(std::time::Duration::from_secs(10)).await;
            let report = mallbot::health::collect(&app).await;
            println!("{}", report.render(app.config.bot.language));
            Ok(if report.all_ok() { ExitCode::SUCCESS } else { ExitCode::FAILURE })
        }
        // Serving the registry: the lent tools of [mcp.servers] are the bot's own
        // and are not served, so those servers are not started here.
        Command::Mcp { listen: None } => {
            let app = App::build(config).await?;
            mallbot::mcp::server::serve_stdio(app).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Mcp { listen: Some(listen) } => {
            let app = App::build(config).await?;
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .with_context(|| format!("cannot listen on {listen}"))?;
            tracing::info!(%listen, "MCP server listening");
            eprintln!("MCP server listening on http://{listen}/mcp");
            let shutdown = async {
                let signal = mallbot::telegram::stop_signal().await;
                tracing::info!(signal, "MCP server stopping");
            };
            mallbot::mcp::server::serve_http(app, listener, shutdown).await?;
            Ok(ExitCode::SUCCESS)
        }
        Command::MallServer { listen } => {
            let mall = services::EmbeddedMall::open(std::path::Path::new(&config.mall.embedded_db))
                .with_context(|| format!("cannot open mall.embedded_db = {}", config.mall.embedded_db))?
                .with_policy(config.order_policy());
            let listener = tokio::net::TcpListener::bind(listen)
                .await
                .with_context(|| format!("cannot listen on {listen}"))?;
            let key = (!config.mall.api_key.is_empty()).then(|| config.mall.api_key.clone());
            let staff_key = (!config.mall.staff_key.is_empty()).then(|| config.mall.staff_key.clone());
            tracing::info!(%listen, auth = key.is_some(), staff = staff_key.is_some(), "mall server listening");
            eprintln!("mall server listening on http://{listen}");
            let shutdown = async {
                let signal = mallbot::telegram::stop_signal().await;
                tracing::info!(signal, "mall server stopping");
            };
            // Unpaid orders expire on every order request; this brings their stock back
            // when nobody asks.
            let sweeper = mall.clone();
            tokio::spawn(async move {
                let mut every = tokio::time::interval(std::time::Duration::from_secs(30));
                loop {
                    every.tick().await;
                    let mall = sweeper.clone();
                    match tokio::task::spawn_blocking(move || mall.sweep_expired()).await {
                        Ok(Ok(0)) => {}
                        Ok(Ok(expired)) => tracing::info!(expired, "unpaid orders expired"),
                        Ok(Err(error)) => tracing::warn!(%error, "expiring unpaid orders failed"),
                        Err(error) => tracing::warn!(%error, "the expiry task failed"),
                    }
                }
            });
            services::server::serve(listener, Arc::new(mall), key, staff_key, shutdown).await?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn init_logging(default_level: &str, format: mallbot::config::LogFormat) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default_level));
    let builder = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr);
    match format {
        // One JSON object per line, with the current span's fields and the
        // spans around it, for a log collector.
        mallbot::config::LogFormat::Json => {
            let _ = builder.json().with_current_span(true).with_span_list(true).try_init();
        }
        mallbot::config::LogFormat::Text => {
            // Colour only for a person at a terminal: never into files or collectors.
            let colour = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            let _ = builder.with_ansi(colour).try_init();
        }
    }
}
