//! What the load tools measure of the bot's process: its CPU time and peak
//! memory from `/proc`, which binary they run, and percentiles.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// CPU time (user + system) of process `pid`, from `/proc/<pid>/stat`.
pub fn cpu_time(pid: u32, ticks_per_sec: f64) -> Option<Duration> {
    let (user, system) = cpu_times(pid, ticks_per_sec)?;
    Some(user + system)
}

/// User and system CPU time of process `pid`, from `/proc/<pid>/stat`.
pub fn cpu_times(pid: u32, ticks_per_sec: f64) -> Option<(Duration, Duration)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name (which may hold spaces) start at field 3.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = fields.get(11)?.parse().ok()?;
    let stime: f64 = fields.get(12)?.parse().ok()?;
    Some((Duration::from_secs_f64(utime / ticks_per_sec), Duration::from_secs_f64(stime / ticks_per_sec)))
}

/// Peak resident set size of `pid` in KiB (`VmHWM`).
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Clock ticks per second, the unit of `/proc/<pid>/stat`'s times.
pub fn clock_ticks() -> f64 {
    let out = std::process::Command::new("getconf").arg("CLK_TCK").output().ok();
    out.and_then(|o| String::from_utf8(o.stdout).ok()).and_then(|s| s.trim().parse().ok()).unwrap_or(100.0)
}

/// The `mallbot` binary: `given`, or `target/release/mallbot` beside the
/// running example, refused when a source file is newer than it (build it
/// first: `cargo build --release`).
pub fn bot_binary(given: Option<&Path>) -> anyhow::Result<PathBuf> {
    if let Some(bot) = given {
        // Absolute: the bot is started in a directory of its own.
        return bot.canonicalize().map_err(|e| anyhow::anyhow!("{}: {e}", bot.display()));
    }
    let exe = std::env::current_exe()?;
    // target/release/examples/<example> → target/release/mallbot
    let dir = exe.parent().and_then(|d| d.parent()).ok_or_else(|| anyhow::anyhow!("no target directory"))?;
    let bot = dir.join("mallbot");
    let built = std::fs::metadata(&bot)
        .and_then(|m| m.modified())
        .map_err(|_| anyhow::anyhow!("{} is missing: run `cargo build --release` first", bot.display()))?;
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let newest = ["src", "handlers", "services"].iter().filter_map(|d| newest_source(&root.join(d))).max();
    if newest.is_some_and(|newest| newest > built) {
        anyhow::bail!("{} is older than the sources: run `cargo build --release` first", bot.display());
    }
    Ok(bot)
}

/// When the newest `.rs` file under `dir` was modified.
fn newest_source(dir: &Path) -> Option<SystemTime> {
    let mut newest = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let time = if path.is_dir() {
            newest_source(&path)
        } else if path.extension().is_some_and(|e| e == "rs") {
            entry.metadata().and_then(|m| m.modified()).ok()
        } else {
            None
        };
        newest = newest.max(time);
    }
    newest
}

/// The `p`th percentile of `sorted` (nearest rank).
pub fn percentile(sorted: &[Duration], p: f64) -> Option<Duration> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

/// `12.3 ms`, or `—` for none.
pub fn millis(d: Option<Duration>) -> String {
    d.map(|d| format!("{:.1} ms", d.as_secs_f64() * 1000.0)).unwrap_or_else(|| "—".into())
}

/// Readies `command` (the bot, maybe behind a wrapper) to run `args` in `dir`
/// with exactly the `MALLBOT_*` settings of `env` (none inherited), logging
/// warnings only, its output discarded but for standard error when `log`,
/// and killed when dropped.
pub fn bot_command<'a>(
    command: &mut tokio::process::Command,
    args: &[&str],
    dir: &Path,
    env: impl IntoIterator<Item = (&'a str, &'a str)>,
    log: bool,
) {
    use std::process::Stdio;
    command.args(args).current_dir(dir).stdin(Stdio::null()).stdout(Stdio::null());
    command.stderr(if log { Stdio::piped() } else { Stdio::null() }).kill_on_drop(true);
    for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
        command.env_remove(key);
    }
    command.env("RUST_LOG", "warn").env("NO_COLOR", "1").envs(env);
}
