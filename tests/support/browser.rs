//! Headless Chromium over WebDriver for the Mini App's tests and budget
//! benchmark: Debian's `chromium` and `chromium-driver`, a phone-sized
//! window, a fresh profile, no background network.

#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use fantoccini::{Client, ClientBuilder};
use serde_json::json;

/// Where Debian puts the browser and its driver.
pub const CHROMIUM: &str = "/usr/bin/chromium";
pub const DRIVERS: [&str; 2] = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"];

/// The driver's path when both it and Chromium are installed.
pub fn installed_driver() -> Option<&'static str> {
    let driver = DRIVERS.into_iter().find(|p| Path::new(p).exists())?;
    Path::new(CHROMIUM).exists().then_some(driver)
}

/// chromedriver (killed on drop) and a session of a 390 × 844 headless
/// Chromium with its profile under `dir`.
pub async fn session(driver: &str, dir: &Path) -> anyhow::Result<(tokio::process::Child, Client)> {
    let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
    let child = tokio::process::Command::new(driver)
        .arg(format!("--port={port}"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let address = SocketAddr::from(([127, 0, 0, 1], port));
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    while tokio::net::TcpStream::connect(address).await.is_err() {
        anyhow::ensure!(tokio::time::Instant::now() < deadline, "chromedriver never listened on {address}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".into(),
        json!({"binary": CHROMIUM, "args": [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-dev-shm-usage", "--window-size=390,844",
            format!("--user-data-dir={}", dir.join("chromium-profile").display()),
        ]}),
    );
    let connector = hyper_util::client::legacy::connect::HttpConnector::new();
    let client =
        ClientBuilder::new(connector).capabilities(caps).connect(&format!("http://{address}")).await?;
    Ok((child, client))
}
