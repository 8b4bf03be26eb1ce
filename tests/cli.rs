//! The `mallbot` command as an operator starts it: the config file named by
//! `MALLBOT_CONFIG`, stray `MALLBOT_*` variables warned about, and
//! `mall-server` stopping cleanly on SIGTERM.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn temp_dir(case: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("mallbot-cli-{case}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn check_lists_each_mcp_server_with_its_state_and_tool_count() {
    let dir = temp_dir("mcp-check");
    let config = dir.join("mallbot.toml");
    // One server is mallbot itself serving its registry over stdio; the other
    // cannot start.
    std::fs::write(
        &config,
        format!(
            "[state]\nurl = \"sqlite://{state}\"\n\n[mcp.servers.mall]\ncommand = \"{bin}\"\nargs = [\"mcp\"]\n\n\
             [mcp.servers.parking]\ncommand = \"{missing}\"\n",
            state = dir.join("state.db").display(),
            bin = env!("CARGO_BIN_EXE_mallbot"),
            missing = dir.join("no-such-parking-mcp").display(),
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(["--config", config.to_str().unwrap(), "check"])
        .current_dir(&dir)
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.join("child-state.db").display()))
        .env_remove("MALLBOT_CONFIG")
        .env_remove("MALLBOT_LLM__PROVIDER")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let tools = handlers::all().iter().filter(|s| s.scope.allows(false)).count();
    assert!(stdout.contains(&format!("✅ mcp server: mall: up, {tools} tools: mall__")), "{stdout}");
    // Each lent tool with the level it runs at (the server's, `confirm` by default).
    assert!(stdout.contains("mall__search_products (confirm)"), "{stdout}");
    assert!(stdout.contains("❌ mcp server: parking: down (cannot start"), "{stdout}");
    assert!(stdout.contains(", 0 tools"), "{stdout}");
    assert!(!out.status.success(), "a server that is down fails the check:\n{stdout}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn mallbot_config_names_the_file_and_unknown_variables_are_only_warned_about() {
    let dir = temp_dir("config");
    let config = dir.join("mallbot.toml");
    let state = dir.join("state.db");
    std::fs::write(
        &config,
        format!("[state]\nurl = \"sqlite://{}\"\n[bot]\nlanguage = \"en\"\n", state.display()),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .arg("check")
        .current_dir(&dir)
        .env("MALLBOT_CONFIG", &config)
        .env("MALLBOT_LOG", "debug")
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env_remove("MALLBOT_LLM__PROVIDER")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "check passes with the file from MALLBOT_CONFIG:\n{stdout}\n{stderr}");
    assert!(stdout.contains(&state.display().to_string()), "the file's state.url is used:\n{stdout}");
    assert!(stderr.contains("MALLBOT_LOG is not a config key"), "a warning names it:\n{stderr}");
    assert!(!stderr.contains('\u{1b}'), "no colour codes when stderr is not a terminal:\n{stderr:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_mall_server_stops_cleanly_on_sigterm() {
    let dir = temp_dir("mall");
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(["mall-server", "--listen", &format!("127.0.0.1:{port}")])
        .current_dir(&dir)
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(30), "the mall server did not start");
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap();
    assert!(status.success());
    let deadline = Instant::now() + Duration::from_secs(20);
    let exit = loop {
        if let Some(exit) = child.try_wait().unwrap() {
            break exit;
        }
        assert!(Instant::now() < deadline, "still running 20 s after SIGTERM");
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
    assert!(exit.success(), "exit 0 after SIGTERM, got {exit:?}:\n{stderr}");
    assert!(stderr.contains("mall server stopping") && stderr.contains("SIGTERM"), "{stderr}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_config_with_several_mistakes_is_refused_with_every_one_named_by_its_key() {
    let dir = temp_dir("bad-config");
    let config = dir.join("bad.toml");
    std::fs::write(
        &config,
        "[llm]\nprovider = \"openai\"\nmodel = \"deepseek-chat\"\n\n[state]\nurl = \"postgres://db\"\n\n\
         [webapp]\npublic_url = \"http://m.example/\"\n",
    )
    .unwrap();
    for command in ["check", "chat"] {
        let out = Command::new(env!("CARGO_BIN_EXE_mallbot"))
            .args(["--config", config.to_str().unwrap(), command])
            .current_dir(&dir)
            .env_remove("MALLBOT_CONFIG")
            .env_remove("MALLBOT_LLM__PROVIDER")
            .env_remove("MALLBOT_LLM__BASE_URL")
            .env_remove("MALLBOT_STATE__URL")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "`{command}` refuses the config:\n{stderr}");
        assert!(stderr.contains("the config has 3 mistakes:"), "`{command}`:\n{stderr}");
        for (key, problem) in [
            ("llm.base_url", "required when llm.provider = \"openai\""),
            ("state.url", "`postgres://db`: use sqlite://PATH"),
            ("webapp.public_url", "over https:// only"),
        ] {
            let line = stderr.lines().find(|line| line.contains(&format!("config key `{key}`")));
            let line = line.unwrap_or_else(|| panic!("`{command}`: no line for {key}:\n{stderr}"));
            assert!(line.contains(problem), "`{command}`: {key} says what is wrong:\n{stderr}");
        }
        assert!(!dir.join("mallbot.db").exists(), "nothing was started with a refused config");
    }
    std::fs::remove_dir_all(&dir).ok();
}
