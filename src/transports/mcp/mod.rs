//! The Model Context Protocol both ways: `server` serves the registry to
//! other assistants (`mallbot mcp`), `client` brings MCP servers' tools into
//! the bot (`[mcp.servers.NAME]`). Both go through the router's levels and
//! confirmations; what people read comes from the language's text table
//! (`handlers::texts`, its `mcp` section).

pub(crate) mod client;
pub(crate) mod server;
