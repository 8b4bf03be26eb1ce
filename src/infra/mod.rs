//! What the engine and the transports stand on: the [`config`], the
//! [`state`] store (memory, SQLite or Redis), metrics and the ops endpoints
//! ([`ops`]), traces ([`otel`]), the [`health`] check, secrets and redaction.

pub mod config;
pub mod health;
pub mod mall_data;
pub mod ops;
pub mod otel;
pub mod redact;
pub mod secret;
pub mod state;
