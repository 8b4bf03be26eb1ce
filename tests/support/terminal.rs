//! The terminal chat (`mallbot chat`) run from a test as a shopper types into
//! it, and the example mall copied for a test that changes it.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The mall's clock in the terminal chat's tests, unless a test sets its
/// own: a Wednesday morning, so what is open, on or "this weekend" is the
/// same whatever day the tests run.
pub const A_WEDNESDAY_MORNING: &str = "2026-11-25T10:00:00+08:00";

/// `mallbot [global…] chat --user USER` on the defaults (the offline
/// planner, the demo mall, the clock at [`A_WEDNESDAY_MORNING`]), whatever
/// the environment configures, with its state and mall databases in `dir`
/// and started there. A test adds what it
/// needs (a mall folder, another start folder) before [`run`].
pub fn chat_command(dir: &Path, global: &[&str], user: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mallbot"));
    command
        .args(global)
        .args(["chat", "--user", user])
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.join("state.db").display()))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env_remove("MALLBOT_LLM__PROVIDER")
        .env_remove("MALLBOT_CONFIG")
        .env("MALLBOT_CLOCK", A_WEDNESDAY_MORNING)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// `script` typed into the chat `command` starts; what it printed, once it
/// has ended well.
pub fn run(mut command: Command, script: &str) -> String {
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "chat failed: {}\n{stdout}", String::from_utf8_lossy(&out.stderr));
    stdout
}

/// A path in the repository.
pub fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// Copies the example mall's folder (its files, information and map) into `to`.
pub fn copy_example_mall(to: &Path) {
    copy_dir(&repo("examples/malls/riverside"), to);
}

/// Copies the folder `from`, with everything in it, to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
