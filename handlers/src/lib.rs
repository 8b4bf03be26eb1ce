//! The mall tools the model can call, one small async function each, grouped
//! by domain, and the registry the `#[tool_function]` macro fills.
//!
//! A tool is written as
//!
//! ```ignore
//! /// Search products by keyword, price range, brand or category.
//! #[tool_function(level = "safe", scope = "both")]
//! async fn search_products(ctx: &ToolContext, args: SearchProductsArgs) -> ToolResult<SearchProductsResult> { ... }
//! ```
//!
//! and appears in [`registry::all`] with no list to maintain.

extern crate self as handlers;

pub mod alert_book;
pub mod basic;
pub mod context;
pub mod format;
pub mod records;
pub mod registry;
pub mod result;
pub mod schema;
pub mod texts;

pub mod alerts;
pub mod facilities;
mod facility_words;
pub mod general;
pub mod indoor;
pub mod info;
pub mod loyalty;
pub mod mall;
pub mod mall_examples;
pub mod navigation;
pub mod orders;
pub mod search;
pub mod shopping;
pub mod staff;

pub use basic::OfflineHook;
pub use context::{Approval, Lang, ToolContext};
pub use mallbot_macros::tool_function;
pub use records::Yuan;
pub use registry::{Level, Scope, ToolSpec, all, find};
pub use result::{Picture, Preview, ToolError, ToolOutput, ToolResult};
pub use texts::{HelpLine, Said, Texts};

/// Re-exports the macro's generated code uses; not for hand-written code.
#[doc(hidden)]
pub mod __private {
    pub use futures::future::BoxFuture;
    pub use inventory;
    pub use serde_json::Value;
}
