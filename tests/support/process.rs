//! Plumbing for process tests: `mallbot` children with their logs, temp
//! directories, free loopback ports, the environment of a bot on the fake
//! Bot API (Redis: `redis.rs`).

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::fake_bot_api::FakeBotApi;

/// The longest any single wait in these tests lasts.
pub const BOUND: Duration = Duration::from_secs(20);

/// A `mallbot` child process; its standard error (the log) is collected and
/// printed if the test fails.
pub struct Process {
    pub name: String,
    pub child: Child,
    log: Arc<Mutex<String>>,
    /// Reads the log until the child closes its standard error.
    reader: Option<tokio::task::JoinHandle<()>>,
}

impl Process {
    /// Starts `mallbot <args>` in `dir` with exactly the `MALLBOT_*` variables given.
    pub fn spawn(name: &str, args: &[&str], env: &[(&str, String)], dir: &Path) -> Process {
        let mut command = Command::new(env!("CARGO_BIN_EXE_mallbot"));
        for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
            command.env_remove(key);
        }
        command.env("RUST_LOG", "info").env("NO_COLOR", "1");
        command.envs(env.iter().map(|(key, value)| (*key, value.as_str())));
        Self::start(name, command, args, dir)
    }

    /// Starts another program (`redis-server`…) in `dir`.
    pub fn spawn_program(name: &str, program: &str, args: &[&str], dir: &Path) -> Process {
        Self::start(name, Command::new(program), args, dir)
    }

    fn start(name: &str, mut command: Command, args: &[&str], dir: &Path) -> Process {
        command
            .args(args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = command.spawn().unwrap_or_else(|e| panic!("start {name}: {e}"));
        let stderr = child.stderr.take().expect("stderr");
        let log = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&log);
        let reader = tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let mut log = sink.lock().unwrap();
                log.push_str(&line);
                log.push('\n');
            }
        });
        Process { name: name.to_owned(), child, log, reader: Some(reader) }
    }

    pub fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Waits (bounded) until the log has a line containing `needle`.
    pub async fn wait_for_log(&self, needle: &str) {
        let deadline = tokio::time::Instant::now() + BOUND;
        while !self.log().contains(needle) {
            assert!(tokio::time::Instant::now() < deadline, "{} never logged {needle:?}", self.name);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Sends SIGTERM, as `kill`, systemd or a container runtime does.
    pub fn terminate(&self) {
        let pid = self.child.id().expect("still running").to_string();
        let status = std::process::Command::new("kill").args(["-TERM", &pid]).status().expect("kill");
        assert!(status.success(), "kill -TERM {pid} failed");
    }

    /// Kills it with SIGKILL (`kill -9`): no chance to clean up.
    pub async fn kill_9(&mut self) {
        self.child.kill().await.expect("SIGKILL");
    }

    /// How it exited (waiting at most [`BOUND`]).
    pub async fn exit_status(&mut self) -> ExitStatus {
        let status = match tokio::time::timeout(BOUND, self.child.wait()).await {
            Ok(status) => status.expect("wait"),
            Err(_) => panic!("{} still running {} s after it was told to stop", self.name, BOUND.as_secs()),
        };
        // Its last lines may still be in the pipe: the log is whole once the
        // reader has drained it.
        if let Some(reader) = self.reader.take() {
            let _ = tokio::time::timeout(BOUND, reader).await;
        }
        status
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("----- log of {} -----\n{}", self.name, self.log());
        }
    }
}

/// A directory of its own under the temp dir, removed when dropped.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(case: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("mallbot-test-{}", unique(case)));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn file(&self, name: &str) -> String {
        self.0.join(name).to_str().unwrap().to_owned()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub fn unique(case: &str) -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    format!("{case}-{}-{nanos}", std::process::id())
}

/// A loopback address nothing listens on right now.
pub fn free_addr() -> SocketAddr {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap()
}

/// Waits (bounded) until something accepts connections at `addr`.
pub async fn wait_for_listener(addr: SocketAddr, what: &Process) {
    let deadline = tokio::time::Instant::now() + BOUND;
    while tokio::net::TcpStream::connect(addr).await.is_err() {
        assert!(tokio::time::Instant::now() < deadline, "{} never listened on {addr}", what.name);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The bot token of [`bot_env`].
pub const TEST_TOKEN: &str = "123:TEST";

/// The variables of a bot on the fake Bot API.
pub fn bot_env(api: &FakeBotApi) -> Vec<(&'static str, String)> {
    vec![
        ("MALLBOT_TELEGRAM__TOKEN", TEST_TOKEN.to_owned()),
        ("MALLBOT_TELEGRAM__API_URL", api.url.to_string()),
    ]
}

/// The bot's ops endpoints on a free loopback address: its variable, and
/// the address to scrape with [`wait_for_updates_ended`].
pub fn ops_env() -> ((&'static str, String), SocketAddr) {
    let addr = free_addr();
    (("MALLBOT_OPS__LISTEN", addr.to_string()), addr)
}

/// Waits (bounded) until the bot whose ops endpoints listen at `ops` has
/// ended `count` updates: each update is counted once in
/// `mallbot_updates_total` when it is done with — answered, refused,
/// ignored, dropped or failed. After it, whatever the bot was going to send
/// for those updates has been sent, so "nothing more" can be asserted
/// without waiting on a guess.
pub async fn wait_for_updates_ended(ops: SocketAddr, count: u64) {
    let deadline = tokio::time::Instant::now() + BOUND;
    let url = format!("http://{ops}/metrics");
    let mut ended = 0;
    while tokio::time::Instant::now() < deadline {
        if let Ok(response) = reqwest::get(&url).await {
            let scrape = response.text().await.unwrap_or_default();
            ended = scrape
                .lines()
                .filter(|l| l.starts_with("mallbot_updates_total{"))
                .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
                .sum::<f64>() as u64;
            if ended >= count {
                assert_eq!(ended, count, "more updates ended than were sent:\n{scrape}");
                return;
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{ended} of {count} updates ended after {BOUND:?}");
}
