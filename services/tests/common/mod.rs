//! Loopback servers for the contract tests: the reference mall server over any `MallApi`, and
//! small scripted stub servers for the HTTP client's failure handling.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use services::{HttpMall, HttpMallConfig, MallApi, server};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// The API key the test mall servers require.
pub const API_KEY: &str = "test-key-9f2c";
/// The staff key of the test mall servers' staff endpoints.
pub const STAFF_KEY: &str = "staff-key-51d0";

/// A server running on `127.0.0.1:<random port>`; it shuts down when dropped.
pub struct Running {
    pub address: SocketAddr,
    _stop: oneshot::Sender<()>,
}

impl Running {
    /// `http://127.0.0.1:<port>`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.address)
    }

    /// `base_url` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url())
    }
}

/// A future that completes when the returned sender is dropped or used.
fn stop_signal() -> (oneshot::Sender<()>, impl Future<Output = ()> + Send + 'static) {
    let (stop, stopped) = oneshot::channel::<()>();
    (stop, async move {
        let _ = stopped.await;
    })
}

/// `mallbot mall-server` over `mall`, requiring [`API_KEY`], its staff endpoints [`STAFF_KEY`].
pub async fn mall_server(mall: Arc<dyn MallApi>) -> Running {
    mall_server_with_staff(mall, Some(STAFF_KEY)).await
}

/// `mallbot mall-server` over `mall`, requiring [`API_KEY`], with `staff_key` (or none).
pub async fn mall_server_with_staff(mall: Arc<dyn MallApi>, staff_key: Option<&str>) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let address = listener.local_addr().expect("local address");
    let (stop, shutdown) = stop_signal();
    let staff_key = staff_key.map(str::to_owned);
    tokio::spawn(server::serve(listener, mall, Some(API_KEY.to_owned()), staff_key, shutdown));
    Running { address, _stop: stop }
}

/// Any axum router (a scripted stub of a misbehaving mall) on loopback.
pub async fn stub_server(router: axum::Router) -> Running {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind loopback");
    let address = listener.local_addr().expect("local address");
    let (stop, shutdown) = stop_signal();
    tokio::spawn(async move { axum::serve(listener, router).with_graceful_shutdown(shutdown).await });
    Running { address, _stop: stop }
}

/// An [`HttpMall`] for `server` with the test key and short, test-friendly timeouts.
pub fn client_for(server: &Running, request_timeout: Duration, max_retries: u32) -> HttpMall {
    HttpMall::new(HttpMallConfig {
        base_url: server.base_url(),
        api_key: API_KEY.to_owned(),
        connect_timeout: Duration::from_secs(2),
        request_timeout,
        max_retries,
    })
    .expect("valid client config")
}
