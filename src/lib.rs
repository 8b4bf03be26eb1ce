//! mallbot: a Telegram shopping guide for a shopping mall. A shopper's message
//! becomes a [`context::MessageContext`], the [`router::FunctionCallRouter`]
//! lets a model (or the offline planner) choose mall tools, risky tools wait
//! for a confirmation, and the answer goes back through Telegram or the terminal.

pub mod app;
pub mod commands;
pub mod config;
pub mod console;
pub mod context;
pub mod fallback;
pub mod health;
pub mod llm;
pub mod mall_data;
pub mod mall_server;
pub mod mcp;
pub mod media;
pub mod ops;
pub mod otel;
pub mod payments;
pub mod pending;
pub mod progress;
pub mod redact;
pub mod reply;
pub mod report;
pub mod router;
pub mod secret;
pub mod state;
pub mod stats;
pub mod stt;
pub mod support;
pub mod telegram;
pub mod tools;
pub mod webapp;
