//! One model round where one is enough, through the real binary (`mallbot
//! run` on the fake Bot API and a scripted OpenAI-compatible model): "where
//! is Nike" is answered with the route tool's own words and floor plans
//! after the round that chose the tool, and a message that asks for more
//! than the tool said still gets the model's second round.
#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;

use fake_bot_api::*;
use fake_model::{FakeModel, ModelBehaviour};
use process::*;
use serde_json::json;

const SHOPPER: Shopper = Shopper { id: 4100, name: "Lin" };

/// The bot on `api`, with `model` choosing `navigate_to_store` for Nike.
async fn start(api: &FakeBotApi, model: &FakeModel, dir: &TempDir, direct: bool) -> Process {
    let mut env = bot_env(api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "scripted-model".to_owned()),
        ("MALLBOT_LLM__API_KEY", "sk-test".to_owned()),
        ("MALLBOT_LLM__DIRECT_ANSWERS", direct.to_string()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    api.wait_until("the bot polls", |api| !api.calls("getUpdates").is_empty()).await;
    bot
}

fn navigating() -> ModelBehaviour {
    ModelBehaviour {
        tool: Some(("navigate_to_store".to_owned(), json!({"store_name": "Nike"}))),
        ..ModelBehaviour::default()
    }
}

fn floor_plans_sent(api: &FakeBotApi) -> usize {
    api.calls("sendPhoto").len() + api.calls("sendMediaGroup").len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn where_is_nike_is_one_model_request_and_the_route_with_its_floor_plans() {
    let (api, model, dir) =
        (FakeBotApi::start().await, FakeModel::start(navigating()).await, TempDir::new("direct"));
    let bot = start(&api, &model, &dir, true).await;

    api.push_update(private_text(SHOPPER, "Nike 店在哪"));
    api.wait_until("the floor plans", |api| floor_plans_sent(api) > 0).await;
    api.wait_until("the route in words", |api| api.shown_to(SHOPPER.id).iter().any(|t| t.contains("3F")))
        .await;
    let shown = api.shown_to(SHOPPER.id).join("\n");
    assert!(shown.contains("耐克"), "the route to Nike: {shown}");
    assert_eq!(model.calls(), 1, "one model request");

    // Asked for what the route does not say: the model words it, in a second round.
    let plans = floor_plans_sent(&api);
    api.push_update(private_text(SHOPPER, "Nike 店在哪，几点关门，有什么优惠"));
    model.wait_for_calls(3).await;
    api.wait_until("the model's answer", |api| api.shown_to(SHOPPER.id).iter().any(|t| t.contains("fin-")))
        .await;
    assert_eq!(model.calls(), 3, "the tool round and the model's words");
    api.wait_until("its floor plans", |api| floor_plans_sent(api) > plans).await;
    bot.terminate();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_direct_answers_off_the_model_words_every_answer() {
    let (api, model, dir) =
        (FakeBotApi::start().await, FakeModel::start(navigating()).await, TempDir::new("direct-off"));
    let bot = start(&api, &model, &dir, false).await;
    api.push_update(private_text(SHOPPER, "Nike 店在哪"));
    model.wait_for_calls(2).await;
    api.wait_until("the model's answer", |api| api.shown_to(SHOPPER.id).iter().any(|t| t.contains("fin-")))
        .await;
    assert_eq!(model.calls(), 2);
    bot.terminate();
}
