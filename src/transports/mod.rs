//! The ways in: each turns what arrives into a request for the engine's one
//! door and shows the [`Reply`](crate::engine::reply::Reply) it gets back.
//! None carries its own admission or confirmation rules.
//!
//! - [`telegram`]: chats and groups, buttons, payments, the service desk.
//! - [`webapp`]: the Mini App's page and its API.
//! - [`mcp`]: the bot's tools for MCP clients, and MCP servers' tools lent to the bot.
//! - [`console`]: the terminal chat.

pub(crate) mod console;
pub(crate) mod mcp;
pub(crate) mod ops;
pub(crate) mod telegram;
pub(crate) mod webapp;
