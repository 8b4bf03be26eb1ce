//! What the engine and the transports stand on: the [`config`], the
//! [`state`] store (memory, SQLite or Redis), metrics ([`ops`]), traces
//! ([`otel`]), the mall's data folder, secrets and redaction. Nothing here
//! names the engine, a transport or the app.

pub mod config;
pub mod mall_data;
pub mod ops;
pub mod otel;
pub mod redact;
pub mod secret;
pub mod state;
