//! Token economy of the seed purchase flow: the real bot (router, OpenAI
//! client, embedded mall) against a scripted OpenAI-compatible model on
//! loopback that counts cl100k tokens (`tests/support/seed_flow.rs`). Prints
//! the input, cached and output tokens of each step as the bot kept them from
//! the model's `usage`, the totals, and the size of the fixed prefix (tool
//! schemas and system prompt) that every request carries.
//!
//! Run: `cargo run --example economy` (add `-- en` for the English flow).

#![allow(clippy::unwrap_used)]

#[path = "../tests/support/seed_flow.rs"]
mod seed_flow;

use handlers::Lang;
use seed_flow::{Bench, tokens};

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let lang = match std::env::args().nth(1).as_deref().map(Lang::parse) {
        Some(Some(lang)) => lang,
        Some(None) => {
            eprintln!("usage: economy [zh|en]");
            std::process::exit(2);
        }
        None => Lang::Zh,
    };
    let bench = Bench::start().await;
    let steps = bench.seed_flow(lang).await;
    let received = bench.model.received();
    let first = &received[0].body;
    let tools = tokens(&first["tools"].to_string());
    let prompt = tokens(first["messages"][0]["content"].as_str().unwrap_or(""));
    let count = first["tools"].as_array().map_or(0, Vec::len);
    println!("economy: the seed purchase flow ({}), scripted model, cl100k tokens", lang.as_str());
    println!("every request starts with {count} tool schemas ({tools}) and the system prompt ({prompt})");
    println!();
    println!("{:<4} {:<40} {:>7} {:>7} {:>7}", "step", "shopper", "input", "cached", "output");
    for (i, step) in steps.iter().enumerate() {
        let u = step.usage;
        let shopper: String = step.shopper.chars().take(38).collect();
        println!(
            "{:<4} {:<40} {:>7} {:>7} {:>7}",
            i + 1,
            shopper,
            u.prompt_tokens,
            u.cached_tokens,
            u.completion_tokens
        );
    }
    let sum = |f: fn(&mallbot::llm::Usage) -> u64| steps.iter().map(|s| f(&s.usage)).sum::<u64>();
    println!(
        "{:<4} {:<40} {:>7} {:>7} {:>7}",
        "",
        format!("total, {} model calls", received.len()),
        sum(|u| u.prompt_tokens),
        sum(|u| u.cached_tokens),
        sum(|u| u.completion_tokens)
    );
}
