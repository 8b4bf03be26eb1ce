//! Every option given: a renamed, @-only, previewed tool; run to check what it registered.

use std::future::Future;
use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use handlers::{
    HelpLine, Lang, Level, OfflineHook, Preview, Scope, ToolContext, ToolError, ToolOutput, ToolResult, tool_function,
};
use handlers::basic::{Call, Dialogue, Event, Lexicon, Said, Step};
use serde_json::json;

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct GreetArgs {
    /// Who to greet.
    name: String,
    /// How many times.
    times: Option<u32>,
}

/// Greets someone by name.
///
/// A second paragraph
/// wrapped over two lines.
#[tool_function(
    level = "confirm", scope = "group", require_at = true, name = "say-hello", preview = greet_preview,
    progress = greet_progress, offline = GREET_OFFLINE, help = GREET_HELP)]
async fn greet(ctx: &ToolContext, args: GreetArgs) -> ToolResult {
    let word = if ctx.lang == Lang::En { "Hello" } else { "你好" };
    Ok(ToolOutput::new(json!({ "text": format!("{word} {}", args.name), "times": args.times.unwrap_or(1) })))
}

static GREET_OFFLINE: OfflineHook = OfflineHook::new(greet_recognise, greet_answer).priority(5);
static GREET_HELP: HelpLine = HelpLine { zh: "👋 打招呼", en: "👋 Greetings" };

fn greet_recognise(said: &Said) -> Option<Step> {
    let name = said.text().strip_prefix("greet ")?;
    Some(Step::Call(Call::new("say-hello", json!({ "name": name }))))
}

fn greet_answer(_lang: Lang, data: &serde_json::Value) -> Option<String> {
    data["text"].as_str().map(str::to_owned)
}

fn greet_progress(lang: Lang, args: &GreetArgs) -> String {
    let word = if lang == Lang::En { "Greeting" } else { "正在问候" };
    format!("{word} {}…", args.name)
}

async fn greet_preview(_ctx: &ToolContext, args: GreetArgs) -> Result<Preview, ToolError> {
    Ok(Preview { summary: format!("greet {}", args.name), fingerprint: json!({ "name": args.name }) })
}

/// Runs a future that never waits (the tool above calls nothing).
fn run<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(output) => output,
        Poll::Pending => panic!("the tool waited"),
    }
}

fn main() {
    let spec = handlers::find("say-hello").expect("registered under its given name");
    assert!(handlers::find("greet").is_none());
    assert_eq!(spec.description, "Greets someone by name.\n\nA second paragraph wrapped over two lines.");
    assert_eq!((spec.level, spec.scope, spec.require_at), (Level::Confirm, Scope::Group, true));
    let schema = spec.parameters();
    assert_eq!(schema["required"], json!(["name"]));
    assert_eq!(schema["properties"]["times"]["type"], "integer");

    let ctx = ToolContext::new(Arc::new(services::MockMallApi::new()), services::Shopper::new("test", 1), Lang::En);
    let output = run(spec.invoke(ctx.clone(), json!({ "name": "Ann" }))).expect("runs");
    assert_eq!(output.data, json!({ "text": "Hello Ann", "times": 1 }));
    let preview = run((spec.preview.expect("has a preview"))(ctx.clone(), json!({ "name": "Ann" })));
    assert_eq!(preview.expect("previews").summary, "greet Ann");
    assert_eq!(spec.progress_line(Lang::En, &json!({ "name": "Ann" })), "Greeting Ann…");
    let hook = spec.offline.expect("has an offline hook");
    let dialogue = Dialogue::new(vec![Event::User { text: "greet Bo".into(), lang: Some(Lang::En) }]);
    let (lexicon, no_offer) = (Lexicon::default(), || None);
    let asked = (hook.recognise)(&Said::new(&dialogue, &lexicon, &no_offer));
    assert_eq!(asked, Some(Step::Call(Call::new("say-hello", json!({ "name": "Bo" })))));
    assert_eq!(hook.priority, 5);
    assert_eq!((hook.answer)(Lang::En, &json!({ "text": "Hello Bo" })).as_deref(), Some("Hello Bo"));
    assert_eq!(spec.help.expect("has a help line").en, "👋 Greetings");
    assert_eq!(spec.progress_line(Lang::Zh, &json!({ "name": 7 })), "⏳ 正在处理…", "unreadable arguments");
    let error = run(spec.invoke(ctx, json!({ "name": 7 }))).expect_err("bad arguments");
    assert!(matches!(error, ToolError::InvalidArguments { field: Some(ref f), .. } if f == "name"));
}
