//! mallbot: a Telegram shopping guide for a shopping mall.
//!
//! A shopper's message becomes a [`engine::context::MessageContext`]; the
//! [`engine::router::FunctionCallRouter`] admits it at its one door, lets a
//! model (or the offline planner) choose mall tools, holds risky ones for a
//! confirmation, and the answer goes back through the transport it came from.
//!
//! - [`engine`]: what a message becomes — the router, the model clients,
//!   tools, confirmations, replies, payments, the service desk.
//! - [`transports`]: the ways in — Telegram, the Mini App, MCP, the terminal.
//! - [`infra`]: what both stand on — config, the state store, metrics and
//!   traces, the health check.
//! - [`app`] assembles them from a config; [`mall_server`] serves the
//!   embedded mall over HTTP; [`eval`] measures a model on a mall.

#![warn(unreachable_pub)]

pub mod app;
pub mod engine;
pub mod eval;
pub mod infra;
pub mod mall_server;
pub mod transports;
