//! The guide's "Add a tool" example (`docs/extending.md`), compiled as it is
//! shown: a tool defined outside the built-in list joins the registry and
//! basic mode, and the checks that every built-in tool declares its basic
//! mode still hold with it linked. A change to the example in the guide
//! must be made here too (the first test compares them).
#![allow(clippy::unwrap_used)]

// The guide's example, from here to "End of the example".
use handlers::basic::{Call, Said, Step, read};
use handlers::general::find_store;
use handlers::{Lang, OfflineHook, ToolContext, ToolOutput, ToolResult, tool_function};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct StoreHoursArgs {
    /// The store's id or name, e.g. "Uniqlo" or "优衣库".
    pub store_name: String,
}

/// What `store_hours` returns.
#[derive(Debug, Serialize, Deserialize, JsonSchema)]
pub struct StoreHours {
    pub store: String,
    pub open_hours: String,
}

fn store_hours_progress(lang: Lang, args: &StoreHoursArgs) -> String {
    match lang {
        Lang::En => format!("🕙 Checking {}'s hours…", args.store_name),
        _ => format!("🕙 正在查看{}的营业时间…", args.store_name),
    }
}

/// Tell when a store opens and closes today.
#[tool_function(level = "safe", scope = "both", progress = store_hours_progress, offline = STORE_HOURS_OFFLINE)]
pub async fn store_hours(ctx: &ToolContext, args: StoreHoursArgs) -> ToolResult<StoreHours> {
    let store = find_store(ctx, "store_name", &args.store_name).await?;
    Ok(ToolOutput::new(StoreHours { store: store.name, open_hours: store.open_hours }))
}

/// Basic mode: "Uniqlo hours?" / "优衣库营业时间" call it, before the
/// built-in tools (the default priority).
static STORE_HOURS_OFFLINE: OfflineHook = OfflineHook::new(asks_for_hours, hours_answer);

fn asks_for_hours(said: &Said) -> Option<Step> {
    let mut rest = said.scratch();
    rest.remove_all(&["营业时间", "hours"]).then_some(())?;
    let store = rest.residual();
    (!store.is_empty()).then(|| Step::Call(Call::new("store_hours", json!({ "store_name": store }))))
}

fn hours_answer(lang: Lang, data: &Value) -> Option<String> {
    let hours = read::<StoreHours>(data)?;
    Some(match lang {
        Lang::En => format!("{} is open {}.", hours.store, hours.open_hours),
        _ => format!("{}的营业时间：{}。", hours.store, hours.open_hours),
    })
}
// End of the example.

use std::sync::Arc;

use handlers::basic::{Dialogue, Event, Lexicon, Offer};

/// The lines between the markers above, as the guide's code block has them.
fn example_here() -> String {
    let source = include_str!("added_tool.rs");
    let start = source.find("here to \"End of the example\".\n").unwrap();
    let start = start + source[start..].find('\n').unwrap() + 1;
    let end = source.find(&["// End", " of the example."].concat()).unwrap();
    source[start..end].to_owned()
}

#[test]
fn the_guide_shows_this_files_example() {
    let guide = include_str!("../../docs/extending.md");
    let block = guide.split("```rust\n").nth(1).and_then(|rest| rest.split("```").next()).unwrap();
    assert_eq!(block, example_here(), "docs/extending.md's example and this file's differ");
}

#[test]
fn the_added_tool_joins_the_registry_beside_the_built_in_ones() {
    let added = handlers::find("store_hours").unwrap();
    assert!(!added.is_built_in(), "defined in this test crate, not in handlers");
    assert!(handlers::find("navigate_to_store").unwrap().is_built_in());
    assert!(handlers::basic::hooks().iter().any(|(spec, _)| spec.name == "store_hours"));
    for spec in handlers::all().iter().filter(|spec| spec.is_built_in()) {
        assert!(spec.offline.is_some(), "{} declares its basic mode", spec.name);
    }
}

#[tokio::test]
async fn basic_mode_calls_it_and_words_its_answer() {
    let mall = Arc::new(services::EmbeddedMall::in_memory());
    let lexicon = Lexicon::learn(mall.as_ref()).await.unwrap();
    let dialogue = Dialogue::new(vec![Event::User { text: "优衣库营业时间".to_owned(), lang: None }]);
    let no_offer = || None::<Offer>;
    let said = Said::new(&dialogue, &lexicon, &no_offer);
    let Some(Step::Call(call)) = handlers::basic::recognise(&said) else { panic!("no call") };
    assert_eq!((call.tool, call.arguments.clone()), ("store_hours", json!({"store_name": "优衣库"})));

    let ctx = ToolContext::new(mall.clone(), services::Shopper::new("telegram", 7), Lang::Zh);
    let output = handlers::find("store_hours").unwrap().invoke(ctx, call.arguments.clone()).await.unwrap();
    let made = handlers::basic::Made { name: call.tool.to_owned(), args: call.arguments, outcome: None };
    let reply = handlers::basic::reply(&made, &output.data, &said);
    assert!(reply.text.starts_with("优衣库的营业时间：") && reply.text.contains(':'), "{}", reply.text);
}
