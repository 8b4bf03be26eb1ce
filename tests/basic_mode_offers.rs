//! Basic mode acts on what its own answer offered, in any language or
//! script: after "add it to your cart?" or "place the order now?", a bare
//! yes ("好的", "要", "yes") adds or orders, and shows the confirmation the
//! shopper presses; a yes to nothing does nothing. The planner's source
//! names no tool: what a tool is asked for by is the tool's own.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::Arc;

use handlers::{Lang, Level};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::Config;
use mallbot::state::MemoryStore;
use mallbot::{ConfirmationPress, PressCheck, Reply};
use services::{EmbeddedMall, MallApi, OrderStatus, PageRequest, Shopper};

const USER: i64 = 7070;

fn app() -> (App, Arc<EmbeddedMall>) {
    let mut config = Config::default();
    config.bot.rate_limit_per_minute = 0;
    let mall = Arc::new(EmbeddedMall::in_memory());
    let app = App::with_parts(config, mall.clone(), Arc::new(MemoryStore::new())).unwrap();
    (app, mall)
}

fn say(text: &str, lang: Lang) -> MessageContext {
    MessageContext::private("console", USER, text, lang)
}

/// Presses Confirm on the reply's confirmation of `level`; the answer after it.
async fn approve(app: &App, reply: &Reply, level: Level) -> Reply {
    let prompt = reply.confirmation.as_ref().unwrap_or_else(|| panic!("a confirmation:\n{}", reply.text));
    assert_eq!(prompt.level, level, "{}", reply.text);
    let press =
        ConfirmationPress { token: prompt.token.clone(), user_id: USER, chat_id: USER, approve: true };
    match app.router.press(&press).await {
        PressCheck::Accepted { claim, .. } => app.router.finish(claim).await,
        other => panic!("{other:?}"),
    }
}

/// Asks to buy a product sold in one size, says `yes` to "add it?", confirms,
/// says `yes` to "order now?": the order's confirmation, as the shopper sees it.
async fn buy_with_yes(app: &App, lang: Lang, ask: &str, yes: &str) -> Reply {
    let answers = &lang.texts().answers;
    let shown = app.router.dispatch(&say(ask, lang)).await;
    assert!(shown.text.contains(answers.add_it), "{lang:?}: the product and \"add it?\":\n{}", shown.text);
    let adding = app.router.dispatch(&say(yes, lang)).await;
    let confirm_words = (lang.texts().confirm.please_confirm)("");
    assert!(adding.text.starts_with(&confirm_words), "{lang:?}: {yes:?} adds it:\n{}", adding.text);
    let added = approve(app, &adding, Level::Confirm).await;
    let offer = (answers.added)("", 1, "");
    let order_now = offer.rsplit('。').next().and_then(|tail| tail.rsplit(". ").next()).unwrap();
    assert!(added.text.ends_with(order_now), "{lang:?}: added, \"order now?\":\n{}", added.text);
    let ordering = app.router.dispatch(&say(yes, lang)).await;
    let order = ordering
        .confirmation
        .as_ref()
        .unwrap_or_else(|| panic!("{lang:?}: {yes:?} orders:\n{}", ordering.text));
    assert_eq!(order.level, Level::Critical, "{}", ordering.text);
    assert!(order.summary.contains('¥') && ordering.text.contains(&order.summary), "{}", ordering.text);
    ordering
}

/// The shopper's orders at the mall.
async fn orders(mall: &EmbeddedMall) -> Vec<services::Order> {
    mall.list_orders(&Shopper::new("console", USER), PageRequest::default()).await.unwrap().items
}

#[tokio::test]
async fn a_traditional_yes_adds_and_orders_as_a_simplified_one() {
    for (lang, ask) in [(Lang::ZhHant, "我想買盒馬五常大米"), (Lang::Zh, "我想买盒马五常大米")]
    {
        let (app, mall) = app();
        let ordering = buy_with_yes(&app, lang, ask, "好的").await;
        assert!(
            ordering.text.contains("五常大米"),
            "{lang:?}: the order shows the product:\n{}",
            ordering.text
        );
        let placed = approve(&app, &ordering, Level::Critical).await;
        let orders = orders(&mall).await;
        assert_eq!(orders.len(), 1, "{lang:?}");
        assert_eq!(orders[0].status, OrderStatus::PendingPayment);
        assert!(placed.text.contains(&orders[0].order_id), "{lang:?}: {}", placed.text);
    }
}

#[tokio::test]
async fn short_yeses_in_each_language_take_up_the_offer() {
    let cases = [
        (Lang::Zh, "我想买盒马五常大米", "好"),
        (Lang::Zh, "我想买盒马五常大米", "要"),
        (Lang::ZhHant, "我想買盒馬五常大米", "好"),
        (Lang::ZhHant, "我想買盒馬五常大米", "要"),
        (Lang::En, "I want to buy Freshippo Wuchang Rice", "yes"),
        (Lang::En, "I want to buy Freshippo Wuchang Rice", "ok"),
    ];
    for (lang, ask, yes) in cases {
        let (app, _mall) = app();
        buy_with_yes(&app, lang, ask, yes).await;
    }
}

#[tokio::test]
async fn a_yes_to_no_offer_does_nothing() {
    let (app, mall) = app();
    let shopper = Shopper::new("console", USER);
    for lang in Lang::ALL {
        let reply = app.router.dispatch(&say("好的", lang)).await;
        assert!(reply.confirmation.is_none(), "{lang:?}: {}", reply.text);
    }
    // An answer that offers nothing (directions), then a yes.
    app.router.dispatch(&say("優衣庫怎麼走？", Lang::ZhHant)).await;
    let reply = app.router.dispatch(&say("好的", Lang::ZhHant)).await;
    assert!(reply.confirmation.is_none(), "{}", reply.text);
    assert!(mall.get_cart(&shopper).await.unwrap().items.is_empty());
    assert!(orders(&mall).await.is_empty());
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

#[test]
fn the_planner_names_no_tool() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let planner = root.join("src/engine/llm/offline");
    let files = rust_files(&planner);
    assert!(files.len() >= 3, "the planner's files: {files:?}");
    let mut found = Vec::new();
    for file in &files {
        let source = std::fs::read_to_string(file).unwrap();
        for (n, line) in source.lines().enumerate() {
            for tool in handlers::all() {
                if line.contains(tool.name) {
                    let at = file.strip_prefix(root).unwrap_or(file).display();
                    found.push(format!("{at}:{}: {} ({line})", n + 1, tool.name));
                }
            }
        }
    }
    assert!(found.is_empty(), "the planner names tools:\n{}", found.join("\n"));
}
