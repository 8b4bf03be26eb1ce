//! What the engine and the transports stand on: the [`config`], the
//! [`state`] store (memory, SQLite or Redis), metrics ([`ops`]), traces
//! ([`otel`]), the mall's data folder, secrets and redaction. Nothing here
//! names the engine, a transport or the app.

pub(crate) mod config;
pub(crate) mod mall_data;
pub(crate) mod ops;
pub(crate) mod otel;
pub(crate) mod redact;
pub(crate) mod secret;
pub(crate) mod state;
