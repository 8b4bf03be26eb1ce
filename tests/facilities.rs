//! The mall's facilities through the real binary: `mallbot chat` from a
//! script and `mallbot run` against the fake Bot API, in basic mode and with
//! a scripted model. "洗手间在哪", "有母婴室吗", "nearest ATM", "最近的洗手間"
//! are answered in the shopper's language with the facility's floor and the
//! walk, and the walk comes with its floor plan.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;
#[path = "support/terminal.rs"]
mod terminal;

use fake_bot_api::*;
use fake_model::{FakeModel, ModelBehaviour};
use process::*;
use serde_json::{Value, json};

const ALICE: Shopper = Shopper { id: 3401, name: "Alice" };

/// `mallbot chat` in basic mode on the embedded mall, fed `script`.
fn chat(dir: &TempDir, script: &str) -> String {
    terminal::run(terminal::chat_command(dir.path(), &[], "34"), script)
}

/// The floor plans a chat printed, checked to be PNG files.
fn floor_plans(out: &str) -> usize {
    let paths: Vec<&str> = out
        .lines()
        .filter_map(|l| l.trim().strip_prefix("[floor plan: "))
        .map(|l| l.trim_end_matches(']'))
        .collect();
    for path in &paths {
        assert!(std::fs::read(path).unwrap().starts_with(b"\x89PNG"), "{path}");
    }
    paths.len()
}

#[test]
fn the_terminal_chat_finds_facilities_in_three_languages_with_their_floor_plans() {
    let dir = TempDir::new("facilities-chat");
    for (script, expected, not_expected) in [
        ("洗手间在哪\n", &["最近的洗手间在 1楼，从正门（南门）步行约", "到达洗手间"][..], &["没有找到"][..]),
        ("有母婴室吗\n", &["最近的母婴室在 2楼", "乘中庭扶梯上到 2F"][..], &["不太懂"][..]),
        ("我在优衣库，最近的母婴室在哪\n", &["最近的母婴室在 2楼，从优衣库步行约"][..], &["扶梯"][..]),
        ("nearest ATM\n", &["Nearest: ATM on 1F, about", "from Main entrance (south)"][..], &["最近的"][..]),
        ("nearest ATM from the north gate\n", &["Nearest: ATM on 1F", "from North gate"][..], &[][..]),
        ("最近的洗手間\n", &["最近的洗手間在 1樓，從正門（南門）步行約", "到達洗手間"][..], &["洗手间"][..]),
        ("廁所在哪裡\n", &["最近的洗手間在 1樓"][..], &["没有找到", "沒有找到"][..]),
    ] {
        let out = chat(&dir, script);
        for text in expected {
            assert!(out.contains(text), "{script:?}: {text:?} in:\n{out}");
        }
        for text in not_expected {
            assert!(!out.contains(text), "{script:?}: no {text:?} in:\n{out}");
        }
        assert!(floor_plans(&out) >= 1, "{script:?}: a floor plan in:\n{out}");
    }
}

#[test]
fn the_terminal_chat_names_the_kinds_when_asked_for_one_the_map_lacks_and_asks_for_an_unknown_start() {
    let dir = TempDir::new("facilities-missing");
    // An archive without its smoking area: the demo's, with those amenities left out.
    let imdf = dir.path().join("imdf");
    std::fs::create_dir_all(&imdf).unwrap();
    for (name, text) in maps::demo::FILES {
        let text = if *name == "amenity.geojson" {
            let mut v: Value = serde_json::from_str(text).unwrap();
            v["features"].as_array_mut().unwrap().retain(|f| f["properties"]["category"] != "smokingarea");
            v.to_string()
        } else {
            (*text).to_owned()
        };
        std::fs::write(imdf.join(name), text).unwrap();
    }
    let mut command = terminal::chat_command(dir.path(), &[], "35");
    command.env("MALLBOT_MALL__IMDF", imdf.display().to_string());
    let out = terminal::run(command, "吸烟区在哪\nwhere can I find a smoking area\n我在西门，洗手间在哪\n");
    assert!(out.contains("抱歉，商场地图上没有吸烟区。这里有：洗手间、无障碍洗手间"), "{out}");
    assert!(
        out.contains("Sorry, the mall's map has no smoking area. It has: restroom, accessible restroom"),
        "{out}"
    );
    // A start the map does not know: the shopper is asked where they are, nothing is guessed.
    assert!(out.contains(handlers::Lang::Zh.texts().facilities.unknown_start), "{out}");
    assert_eq!(floor_plans(&out), 0, "{out}");
}

/// The `sendPhoto` / `sendMediaGroup` calls to `chat`.
fn photos(api: &FakeBotApi, chat: i64) -> Vec<Value> {
    let mut calls = api.calls("sendPhoto");
    calls.extend(api.calls("sendMediaGroup"));
    calls.into_iter().filter(|b| b["chat_id"] == json!(chat)).collect()
}

/// Sends `ask` and waits for the floor plan it brings: the one photo call
/// to `chat` that was not there before.
async fn ask_for_plan(api: &FakeBotApi, chat: Shopper, ask: &str) -> Value {
    let before = photos(api, chat.id);
    api.push_update(private_text(chat, ask));
    api.wait_until(ask, |api| photos(api, chat.id).len() > before.len()).await;
    photos(api, chat.id).into_iter().find(|p| !before.contains(p)).unwrap()
}

/// The caption of a photo call (the first picture's, for an album).
fn caption(call: &Value) -> String {
    call["caption"].as_str().or_else(|| call["media"][0]["caption"].as_str()).unwrap_or_default().to_owned()
}

#[tokio::test]
async fn on_telegram_in_basic_mode_a_facility_comes_with_its_floor_plan() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("facilities-telegram");
    let mut env = bot_env(&api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    bot.wait_for_log("connected to telegram").await;
    for (ask, caption_starts, answer) in [
        ("洗手间在哪", "1F ", "最近的洗手间在 1楼"),
        ("有母婴室吗", "1F ", "最近的母婴室在 2楼"),
        ("nearest ATM", "1F ", "Nearest: ATM on 1F"),
        ("最近的洗手間", "1F ", "最近的洗手間在 1樓"),
    ] {
        let photo = ask_for_plan(&api, ALICE, ask).await;
        assert!(caption(&photo).starts_with(caption_starts), "{ask}: {photo}");
        api.wait_until(answer, |api| api.shown_to(ALICE.id).iter().any(|t| t.contains(answer))).await;
    }
    assert!(
        !api.shown_to(ALICE.id).iter().any(|t| t.contains("没有找到这家店")),
        "{:?}",
        api.shown_to(ALICE.id)
    );
}

/// The scripted model's reading of the four questions: `find_facility`
/// with the kind each asks for.
fn facility_call(text: &str) -> Option<(String, Value)> {
    let kind = [("洗手间", "restroom"), ("母婴室", "mothersroom"), ("ATM", "atm"), ("洗手間", "restroom")]
        .into_iter()
        .find(|(word, _)| text.contains(word))?
        .1;
    Some(("find_facility".to_owned(), json!({"kind": kind})))
}

#[tokio::test]
async fn with_a_model_the_tool_result_names_the_facility_in_the_shoppers_language_and_the_plan_is_sent() {
    let api = FakeBotApi::start().await;
    let model = FakeModel::start(ModelBehaviour {
        tool_for: Some(facility_call),
        tool: Some(("find_facility".into(), json!({"kind": "mothersroom", "from": "优衣库"}))),
        ..ModelBehaviour::default()
    })
    .await;
    let dir = TempDir::new("facilities-model");
    let mut env = bot_env(&api);
    env.extend([
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__API_KEY", "sk-test".to_owned()),
        ("MALLBOT_LLM__MODEL", "test-model".to_owned()),
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
        // The model is given the result and words it (by default, where
        // nothing else was asked, the tool's own words answer: tests/direct_answers.rs).
        ("MALLBOT_LLM__DIRECT_ANSWERS", "false".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    bot.wait_for_log("connected to telegram").await;
    for (n, (ask, kind, name, floor, title)) in [
        ("洗手间在哪", "restroom", "洗手间", 1, "前往 洗手间"),
        ("有母婴室吗", "mothersroom", "母婴室", 2, "前往 母婴室"),
        ("nearest ATM", "atm", "ATM", 1, "to ATM"),
        ("最近的洗手間", "restroom", "洗手間", 1, "前往 洗手間"),
        ("我在优衣库，最近的哺乳室在哪", "mothersroom", "母婴室", 2, "前往 母婴室"),
    ]
    .into_iter()
    .enumerate()
    {
        let photo = ask_for_plan(&api, ALICE, ask).await;
        let caption = caption(&photo);
        assert!(caption.contains(title), "{ask}: {caption}");
        model.wait_for_calls(2 * (n + 1)).await;
        // What the model read: the tool's result, in the shopper's language.
        let bodies = model.bodies();
        let tool_message = bodies[2 * n + 1]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .rev()
            .find(|m| m["role"] == "tool")
            .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
            .unwrap();
        let result: Value = serde_json::from_str(&tool_message).unwrap();
        assert_eq!(result["kind"], kind, "{ask}: {result}");
        assert_eq!(
            (result["name"].as_str(), result["floor"].as_i64()),
            (Some(name), Some(floor)),
            "{ask}: {result}"
        );
        assert!(
            result["eta_minutes"].as_u64().unwrap() >= 1 && !result["steps"].as_array().unwrap().is_empty()
        );
        assert!(!tool_message.contains("PNG"), "no picture bytes for the model");
        // The start: the one the model passed (Uniqlo, on the nursing room's floor), else the main entrance.
        let from = match ask {
            "nearest ATM" => "Main entrance",
            "最近的洗手間" => "正門",
            _ if ask.contains("优衣库") => "优衣库",
            _ => "正门",
        };
        assert!(result["from_name"].as_str().unwrap().starts_with(from), "{ask}: {result}");
    }
}
