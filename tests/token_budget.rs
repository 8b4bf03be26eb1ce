//! Token budgets, counted with cl100k on what the OpenAI client really sends:
//! the tool list and the system prompt of a request, a five-hit
//! `search_products` result as the tool message carries it, and the input
//! tokens of the whole seed purchase flow. A new tool or a longer result that
//! blows a budget fails here. The figures are printed (`-- --nocapture`).
#![allow(clippy::unwrap_used)]

#[path = "support/seed_flow.rs"]
mod seed_flow;

use handlers::Lang;
use seed_flow::{Bench, tokens};
use serde_json::Value;

/// The tool schemas, as sent, on average per tool: the schemas grow no
/// faster than their count. 1 243 tokens for 19 tools (65 a tool) before
/// `navigate_to_store` took a start (`from`); since, 62 a tool at most
/// (docs/performance.md).
const TOOLS_PER_TOOL: usize = 62;
/// The system prompt.
const PROMPT_BUDGET: usize = 230;
/// A `search_products` result of five hits.
const SEARCH_BUDGET: usize = 400;
/// Input tokens of the whole seed purchase flow: 7 500, and 400 since
/// `watch_product` (its 97 tokens in each of the flow's four requests; the
/// flow took 7 359 before it, 7 747 with it), and 900 since parking, points
/// and coupons (five tools and `create_order`'s coupon: about 218 tokens in
/// each of the four requests; the flow took 8 351 with them), and 700 since
/// `pay_parking` and `redeem_points` (about 158 tokens in each of the four
/// requests; the flow took 8 983 with them).
const FLOW_BUDGET: usize = 7_500 + 400 + 900 + 700;

#[tokio::test]
async fn tools_and_system_prompt_as_sent_fit_their_budgets() {
    let bench = Bench::start().await;
    bench.seed_flow(Lang::Zh).await;
    let received = bench.model.received();
    let first = &received[0];
    let tools = first.body["tools"].to_string();
    let raw = std::str::from_utf8(&first.raw).unwrap();
    assert!(raw.contains(&tools), "the tools are counted byte for byte as sent");
    let count = first.body["tools"].as_array().unwrap().len();
    assert_eq!(count, handlers::all().iter().filter(|t| t.scope.allows(false)).count());
    let system = first.body["messages"][0]["content"].as_str().unwrap();
    let (tools_tokens, prompt_tokens) = (tokens(&tools), tokens(system));
    let tools_budget = TOOLS_PER_TOOL * count;
    println!("{count} tool schemas: {tools_tokens} tokens (budget {tools_budget}, {TOOLS_PER_TOOL} a tool)");
    println!("system prompt: {prompt_tokens} tokens (budget {PROMPT_BUDGET})");
    for tool in first.body["tools"].as_array().unwrap() {
        println!("  {:<20} {}", tool["function"]["name"].as_str().unwrap(), tokens(&tool.to_string()));
    }
    assert!(
        tools_tokens <= tools_budget,
        "tool schemas: {tools_tokens} tokens > {tools_budget} for {count} tools"
    );
    assert!(prompt_tokens <= PROMPT_BUDGET, "system prompt: {prompt_tokens} tokens > {PROMPT_BUDGET}");
    for later in &received[1..] {
        assert_eq!(later.body["tools"], first.body["tools"], "the same tools in every request");
        assert_eq!(later.body["messages"][0], first.body["messages"][0], "the same system prompt");
    }
}

/// The content of the first `search_products` tool message the model received.
fn search_result(bench: &Bench) -> String {
    let received = bench.model.received();
    let messages = received[1].body["messages"].as_array().unwrap().clone();
    let call_id = messages
        .iter()
        .find_map(|m| {
            let call = m["tool_calls"].as_array()?.first()?;
            (call["function"]["name"] == "search_products").then(|| call["id"].clone())
        })
        .unwrap();
    let result = messages.iter().find(|m| m["tool_call_id"] == call_id).unwrap();
    result["content"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_five_hit_search_result_fits_its_budget_in_both_languages() {
    for lang in [Lang::Zh, Lang::En] {
        let bench = Bench::start().await;
        bench.seed_flow(lang).await;
        let text = search_result(&bench);
        let result: Value = serde_json::from_str(&text).unwrap();
        let hits = result["products"].as_array().unwrap();
        assert_eq!(hits.len(), 5, "the seed search finds more than five; five are shown: {text}");
        for hit in hits {
            for field in ["product_id", "name", "price", "rating", "sizes", "store", "floor"] {
                assert!(!hit[field].is_null(), "a hit has its {field}: {hit}");
            }
        }
        assert!(!text.contains("null") && !text.contains("[]"), "no nulls, no empty lists: {text}");
        let count = tokens(&text);
        println!("search_products, 5 hits ({}): {count} tokens (budget {SEARCH_BUDGET})", lang.as_str());
        assert!(count <= SEARCH_BUDGET, "{count} tokens > {SEARCH_BUDGET}: {text}");
    }
}

#[tokio::test]
async fn the_seed_purchase_flow_fits_its_input_budget() {
    let bench = Bench::start().await;
    let steps = bench.seed_flow(Lang::Zh).await;
    let received = bench.model.received();
    println!("{:<36} {:>7} {:>7} {:>7}", "step", "input", "cached", "output");
    for step in &steps {
        let u = step.usage;
        println!(
            "{:<36} {:>7} {:>7} {:>7}",
            step.shopper, u.prompt_tokens, u.cached_tokens, u.completion_tokens
        );
    }
    let input: u64 = steps.iter().map(|s| s.usage.prompt_tokens).sum();
    let cached: u64 = steps.iter().map(|s| s.usage.cached_tokens).sum();
    let output: u64 = steps.iter().map(|s| s.usage.completion_tokens).sum();
    println!("{:<36} {input:>7} {cached:>7} {output:>7}   ({} model calls)", "total", received.len());
    // A round to search and one to recommend; each confirmed change is
    // answered in its tool's own words (llm.direct_answers), so no round after it.
    assert_eq!(received.len(), 4, "four model calls");
    let reported: usize = received.iter().map(|r| r.figures.input).sum();
    assert_eq!(input as usize, reported, "the bot kept the input tokens the model reported");
    let reported: usize = received.iter().map(|r| r.figures.cached).sum();
    assert_eq!(cached as usize, reported, "the bot kept the cached tokens the model reported");
    assert!(cached > 0, "later requests start with the earlier ones' prefix");
    assert!(input as usize <= FLOW_BUDGET, "the flow took {input} input tokens > {FLOW_BUDGET}");
    assert!(steps.last().unwrap().shown.contains("下单成功"), "{steps:?}");
}
