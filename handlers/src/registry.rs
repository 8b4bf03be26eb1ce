//! The tool registry: [`ToolSpec`]s submitted by `#[tool_function]` through
//! `inventory`, and the plain code that lists, describes and calls them.
//!
//! A [`ToolSpec`] holds the name, description, schema fn, level, scope,
//! `require_at`, call fn, and what the tool declares besides: its preview fn,
//! progress fn, basic mode (`OfflineHook`) and `/help` line (`HelpLine`).
//! [`all`] lists them sorted by name (inventory's order is unspecified),
//! [`find`] looks one up. There is no hand-written list of tools: the router,
//! `/help`, the offline planner, the MCP server and the tests all read this
//! registry.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::basic::OfflineHook;
use crate::context::{Lang, ToolContext};
use crate::result::{Preview, ToolError, ToolResult};
use crate::texts::HelpLine;

/// How much the shopper must agree to before a tool runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Runs at once (searches, looking things up).
    Safe,
    /// The shopper presses Confirm first (cart changes).
    Confirm,
    /// The shopper sees the full order, presses Confirm, and the order is
    /// re-checked against the mall first (orders).
    Critical,
}

impl Level {
    /// `safe`, `confirm` or `critical`.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Safe => "safe",
            Level::Confirm => "confirm",
            Level::Critical => "critical",
        }
    }
}

/// Where a tool may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// Private chats only (cart and orders).
    Private,
    /// Group chats only.
    Group,
    /// Everywhere.
    Both,
}

impl Scope {
    /// Whether a tool of this scope may run in a group (`true`) or private chat.
    pub fn allows(self, is_group: bool) -> bool {
        match self {
            Scope::Private => !is_group,
            Scope::Group => is_group,
            Scope::Both => true,
        }
    }
}

/// Calls a tool: parses the JSON arguments and runs the handler.
pub type CallFn = fn(ToolContext, Value) -> BoxFuture<'static, ToolResult>;
/// Describes what a tool call would do, for the confirmation message.
pub type PreviewFn = fn(ToolContext, Value) -> BoxFuture<'static, Result<Preview, ToolError>>;
/// Words the status line of a running call, in Chinese for [`Lang::Zh`] and
/// English for [`Lang::En`] (other languages are derived from these, see
/// [`crate::Texts::tool_text`]); `None` when the arguments do not parse.
pub type ProgressFn = fn(Lang, &Value) -> Option<String>;

/// One tool, as the `#[tool_function]` macro submits it. Only `&'static str`
/// and `fn` pointers inside, so it can be built in a `const`.
#[derive(Debug)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: &'static str,
    /// The module that defines it (`module_path!()`): `handlers::…` for a
    /// built-in tool, another crate's path for a tool added outside.
    pub module: &'static str,
    /// The doc comment of the function: what the model reads.
    pub description: &'static str,
    /// Default level (an operator may override it in config).
    pub level: Level,
    /// Where it may be used.
    pub scope: Scope,
    /// In groups, offered only when the bot was @mentioned or replied to.
    pub require_at: bool,
    /// The JSON Schema of the arguments (see [`crate::schema::parameters_schema`]).
    pub schema: fn() -> Value,
    /// The JSON Schema of the typed result (`T` of `ToolResult<T>`), as MCP's
    /// `outputSchema` declares it; `None` for a tool returning untyped JSON.
    pub output_schema: Option<fn() -> Value>,
    /// Runs the tool.
    pub call: CallFn,
    /// Describes a pending call for the confirmation message, when the tool has one.
    pub preview: Option<PreviewFn>,
    /// Words the status line while the call runs, when the tool declares one.
    pub progress: Option<ProgressFn>,
    /// How basic mode recognises and answers for the tool, when it declares it.
    pub offline: Option<&'static OfflineHook>,
    /// Its line in `/help`; tools without one show their description's first sentence.
    pub help: Option<&'static HelpLine>,
}

inventory::collect!(ToolSpec);

impl ToolSpec {
    /// Whether this crate defines the tool (not a crate that links it).
    pub fn is_built_in(&self) -> bool {
        self.module.split("::").next() == Some(env!("CARGO_CRATE_NAME"))
    }

    /// The cached parameter schema of this tool.
    pub fn parameters(&self) -> &'static Value {
        static CACHE: OnceLock<BTreeMap<&'static str, Value>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| all().iter().map(|s| (s.name, (s.schema)())).collect());
        match cache.get(self.name) {
            Some(v) => v,
            None => {
                // A spec not in the registry (a test-local one): leak its schema once.
                Box::leak(Box::new((self.schema)()))
            }
        }
    }

    /// The status line the shopper sees while this call runs, in their
    /// language ("🔍 正在搜索：Nike 跑鞋 ≤ ¥500…"): the tool's own wording,
    /// else a generic one.
    pub fn progress_line(&self, lang: Lang, args: &Value) -> String {
        let texts = lang.texts();
        match self.progress.and_then(|line| line(texts.tool_lang, args)) {
            Some(line) => (texts.tool_text)(line),
            None => texts.tools.working.to_owned(),
        }
    }

    /// This tool's `/help` line in `lang`, when it declares one.
    pub fn help_line(&self, lang: Lang) -> Option<std::borrow::Cow<'static, str>> {
        self.help.map(lang.texts().tool_line)
    }

    /// Runs the tool with raw JSON arguments.
    pub async fn invoke(&self, ctx: ToolContext, args: Value) -> ToolResult {
        (self.call)(ctx, args).await
    }
}

/// Every registered tool, sorted by name (inventory's order is unspecified).
pub fn all() -> &'static [&'static ToolSpec] {
    static SORTED: OnceLock<Vec<&'static ToolSpec>> = OnceLock::new();
    SORTED.get_or_init(|| {
        let mut v: Vec<&'static ToolSpec> = inventory::iter::<ToolSpec>.into_iter().collect();
        v.sort_by_key(|s| s.name);
        v
    })
}

/// The tool of that name.
pub fn find(name: &str) -> Option<&'static ToolSpec> {
    all().iter().copied().find(|s| s.name == name)
}
