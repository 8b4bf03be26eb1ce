//! `#[tool_function]`: registers an async mall tool in the `handlers` registry.
//!
//! `#[tool_function]` keeps the function as written and submits one const
//! `ToolSpec` whose `call` parses the JSON arguments into the typed struct,
//! runs the function and turns its `ToolOutput<T>` into JSON; the output
//! schema is the schema of `T`. Its options: `level`, `scope`, `require_at`,
//! `name`, `preview = fn` (the confirmation text), `progress = fn(Lang,
//! &Args) -> String` (the status line while the call runs), `offline = HOOK`
//! (how basic mode recognises the tool and words its result), `help = LINE`
//! (its `/help` line; tools sharing a line point at the same `static`).

mod attr;
mod expand;

use proc_macro::TokenStream;

/// Registers an async tool function in the `handlers` registry.
///
/// ```ignore
/// /// Search products by keyword, price range, brand or category.
/// #[tool_function(level = "safe", scope = "both")]
/// async fn search_products(ctx: &ToolContext, args: SearchProductsArgs) -> ToolResult<SearchProductsResult> { ... }
/// ```
///
/// The function stays as written; the macro adds a `ToolSpec` to the registry
/// with:
///
/// - `level = "safe" | "confirm" | "critical"` (required): what the shopper
///   must agree to before the tool runs;
/// - `scope = "private" | "group" | "both"` (required): where it may be used;
/// - `require_at = true` (default `false`): in groups, offered only when the
///   bot was @mentioned or replied to;
/// - `name = "..."` (default: the function's name): the name the model calls;
/// - `preview = path::to_fn` (optional): an
///   `async fn(&ToolContext, ArgsType) -> Result<Preview, ToolError>` that
///   describes a pending call for the confirmation message;
/// - `progress = path::to_fn` (optional): a `fn(Lang, &ArgsType) -> String`
///   that words the status line the shopper sees while the call runs
///   ("🔍 正在搜索：Nike 跑鞋 ≤ ¥500…");
/// - `offline = HOOK` (optional): a `static HOOK: handlers::OfflineHook`
///   telling basic mode (no model) which messages ask for the tool and how
///   to word its result;
/// - `help = LINE` (optional): a `static LINE: handlers::HelpLine`, the
///   tool's line in `/help` (tools that share a line point at the same one).
///
/// The function returns `ToolResult<T>` for its own result type `T:
/// Serialize`; the registry hands the router its JSON.
///
/// The doc comment is the description the model reads, and the argument type
/// must implement `serde::Deserialize` and `schemars::JsonSchema`.
#[proc_macro_attribute]
pub fn tool_function(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(attr.into(), item.into()).into()
}
