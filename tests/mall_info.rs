//! The mall as an institution, through the real binary: `mallbot chat`
//! answers the service desk's everyday questions (parking fees, closing
//! time, returns, Wi-Fi, the weekend's events) in Simplified and
//! Traditional Chinese and in English, in basic mode and with a scripted
//! model; a folder of Markdown files (`mall.info_dir`) answers for a mall
//! that is not the demo and says "I don't know" with the service desk for
//! what it does not cover; `mall-server` serves the new endpoints and the
//! bot reads them through `HttpMall`.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;

use std::process::Stdio;

use fake_model::{FakeModel, ModelBehaviour};
use process::*;
use serde_json::{Value, json};
use tokio::io::AsyncWriteExt;

/// The example folder of a mall that is not the demo (Hong Kong, Traditional Chinese and English).
fn harbour() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/examples/malls/harbour-info").to_owned()
}

/// The mall's clock in these tests, unless a test sets its own: a Wednesday
/// morning, so "this weekend" is the whole of Saturday and Sunday whatever
/// day the tests run.
const A_WEDNESDAY_MORNING: &str = "2026-11-25T10:00:00+08:00";

/// `mallbot chat` in `dir` with exactly the `MALLBOT_*` variables given (and the
/// state and mall databases in `dir`, the clock at [`A_WEDNESDAY_MORNING`]),
/// `script` on its standard input: (status, out, err).
async fn run_chat(dir: &TempDir, env: &[(&str, String)], script: &str) -> (bool, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mallbot"));
    for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
        command.env_remove(key);
    }
    command
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db")))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db"))
        .env("RUST_LOG", "warn")
        .env("MALLBOT_CLOCK", A_WEDNESDAY_MORNING)
        .envs(env.iter().map(|(k, v)| (*k, v.as_str())))
        .args(["chat", "--user", "7"])
        .current_dir(dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(script.as_bytes()).await.unwrap();
    let out = tokio::time::timeout(BOUND, child.wait_with_output()).await.unwrap().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (out.status.success(), text(out.stdout), text(out.stderr))
}

async fn chat(dir: &TempDir, env: &[(&str, String)], script: &str) -> String {
    let (ok, out, err) = run_chat(dir, env, script).await;
    assert!(ok, "chat failed: {err}\n{out}");
    out
}

/// The five questions in one script, and what each right answer shows.
struct Script {
    questions: [&'static str; 5],
    /// Per question: texts the answer must have.
    expected: [&'static [&'static str]; 5],
}

const SIMPLIFIED: Script = Script {
    questions: ["停车怎么收费", "商场几点关门", "可以退货吗", "wifi密码是多少", "这周末有什么活动"],
    expected: [
        &["【停车收费】", "首小时 10 元"],
        &["【营业时间】", "周一至周四 10:00–22:00"],
        &["【退换货】", "7 天内"],
        &["GalaxyPlaza-Free", "无需密码"],
        &["这个周末商场的活动", "周末亲子手工坊", "4F 亲子乐园", "14:00–16:00", "带我去"],
    ],
};

const TRADITIONAL: Script = Script {
    questions: ["停車怎麼收費", "商場幾點關門", "可以退貨嗎", "wifi密碼是多少", "這週末有什麼活動"],
    expected: [
        &["【停車收費】", "首小時 10 元"],
        &["【營業時間】", "10:00–22:00"],
        &["【退換貨】", "7 天內"],
        &["GalaxyPlaza-Free", "無需密碼"],
        &["這個週末商場的活動", "週末親子手工坊", "4F 親子樂園", "14:00–16:00", "帶我去"],
    ],
};

const ENGLISH: Script = Script {
    questions: [
        "how much is parking",
        "what time does the mall close",
        "can I return something I bought?",
        "what's the wifi password",
        "what's on this weekend?",
    ],
    expected: [
        &["Parking fees", "10 yuan for the first hour"],
        &["Opening hours", "Monday to Thursday 10:00–22:00"],
        &["Returns and exchanges", "within 7 days"],
        &["GalaxyPlaza-Free", "no password"],
        &[
            "At the mall this weekend",
            "Weekend family craft workshop",
            "Kids & Toys, 4F",
            "14:00–16:00",
            "Take me to",
        ],
    ],
};

/// The answer to the `n`th message of a terminal chat: from its `bot>` line to the next.
fn answer(out: &str, n: usize) -> String {
    out.split("bot> ").nth(n + 1).unwrap_or_default().to_owned()
}

#[tokio::test]
async fn basic_mode_answers_the_malls_questions_in_three_scripts() {
    for script in [SIMPLIFIED, TRADITIONAL, ENGLISH] {
        let dir = TempDir::new("mall-info-basic");
        let out = chat(&dir, &[], &(script.questions.join("\n") + "\n")).await;
        for (n, (question, expected)) in script.questions.iter().zip(script.expected).enumerate() {
            let reply = answer(&out, n);
            for text in expected {
                assert!(reply.contains(text), "{question}: {text:?} missing from\n{reply}\n---\n{out}");
            }
            for wrong in ["没有找到这家店", "沒有找到這家店", "not sure about that", "不太懂"]
            {
                assert!(!reply.contains(wrong), "{question}: {wrong:?} in\n{reply}");
            }
        }
    }
}

#[tokio::test]
async fn an_events_place_button_takes_the_shopper_there() {
    let dir = TempDir::new("mall-info-place");
    let out = chat(&dir, &[], "这周末有什么活动\n2\nwhat's on this weekend?\n2\n").await;
    assert!(answer(&out, 0).contains("[2] 带我去亲子乐园"), "{out}");
    assert!(answer(&out, 1).contains("亲子乐园在4楼") && answer(&out, 1).contains("乐高"), "{out}");
    assert!(answer(&out, 2).contains("[2] Take me to Kids & Toys"), "{out}");
    assert!(answer(&out, 3).contains("Kids & Toys is on 4F") && out.contains("floor plan"), "{out}");
}

#[tokio::test]
async fn on_a_saturday_evening_this_weekend_is_what_is_left_of_it() {
    let dir = TempDir::new("mall-info-saturday");
    let saturday_evening = [("MALLBOT_CLOCK", "2026-11-28T20:30:00+08:00".to_owned())];
    let out = chat(&dir, &saturday_evening, "这周末有什么活动\nwhat's on this weekend?\n").await;
    let (zh, en) = (answer(&out, 0), answer(&out, 1));
    assert!(zh.contains("乐高搭建挑战赛 — 11月29日（周日）"), "Sunday's events:\n{zh}");
    assert!(!zh.contains("11月28日"), "nothing of Saturday is left at 20:30:\n{zh}");
    assert!(en.contains("LEGO build challenge — Sun 29 Nov") && !en.contains("28 Nov"), "{en}");
}

#[tokio::test]
async fn store_questions_still_go_to_the_store() {
    let dir = TempDir::new("mall-info-store");
    let out = chat(&dir, &[], "星巴克几点开门\n耐克有什么活动\n").await;
    assert!(answer(&out, 0).contains("星巴克在1F"), "a store's hours:\n{out}");
    assert!(answer(&out, 1).contains("耐克"), "a store's offers:\n{out}");
    assert!(!out.contains("商场的服务信息"), "not the mall's information:\n{out}");
}

#[tokio::test]
async fn mall_wide_offers_list_the_malls_own_then_the_stores() {
    let dir = TempDir::new("mall-info-offers");
    let out = chat(&dir, &[], "商场有什么优惠\nany deals in the mall?\n商場有什麼優惠\n").await;
    let zh = answer(&out, 0);
    assert!(zh.contains("商场的优惠") && zh.contains("周末全场满 500 减 50"), "{zh}");
    assert!(zh.contains("各店铺的优惠") && zh.contains("盒马鲜生："), "the stores' too:\n{zh}");
    let en = answer(&out, 1);
    assert!(
        en.contains("Offers across the mall") && en.contains("Weekends: 50 yuan off every 500 yuan"),
        "{en}"
    );
}

/// The scripted model calls `tool` with `args` for `question`; the model is
/// given the tool's result, and the shopper sees the model's answer.
async fn with_model(question: &str, tool: &str, args: Value, expected: &[&str]) {
    let model =
        FakeModel::start(ModelBehaviour { tool: Some((tool.to_owned(), args)), ..ModelBehaviour::default() })
            .await;
    let dir = TempDir::new("mall-info-model");
    let env = [
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "test-model".to_owned()),
        ("MALLBOT_LLM__STREAM", "false".to_owned()),
    ];
    let out = chat(&dir, &env, &format!("{question}\n")).await;
    // The model's answer, in the question's script (a Traditional question's answer is converted).
    let shown = out.contains("bot> q0m0z ") && out.contains("Nike Pegasus 41") && out.contains("fin-q0m0z");
    assert!(shown, "{question}: the model's answer is shown:\n{out}");
    let bodies = model.bodies();
    let offered: Vec<&str> = bodies[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str())
        .collect();
    assert!(offered.contains(&tool), "{question}: {tool} offered to the model: {offered:?}");
    let last = bodies.last().unwrap()["messages"].as_array().unwrap().clone();
    let result = last.iter().rev().find(|m| m["role"] == "tool").map(|m| m["content"].to_string()).unwrap();
    for text in expected {
        assert!(result.contains(text), "{question}: {text:?} not in what the model was given: {result}");
    }
}

#[tokio::test]
async fn a_scripted_model_is_given_the_sections_that_answer_in_three_scripts() {
    for script in [SIMPLIFIED, TRADITIONAL, ENGLISH] {
        for (question, expected) in script.questions.iter().zip(script.expected).take(4) {
            // What the model reads is the section; the basic-mode brackets are not in it.
            let expected: Vec<&str> = expected.iter().map(|t| t.trim_matches(['【', '】'])).collect();
            with_model(question, "mall_info", json!({ "question": question }), &expected).await;
        }
        let (question, expected) = (script.questions[4], script.expected[4]);
        let events: Vec<&str> = expected.iter().skip(1).take(3).copied().collect();
        with_model(question, "mall_events", json!({ "when": "weekend" }), &events).await;
    }
}

#[tokio::test]
async fn a_markdown_folder_answers_its_own_mall_and_says_it_does_not_know_the_rest() {
    let dir = TempDir::new("mall-info-folder");
    let env = [("MALLBOT_MALL__INFO_DIR", harbour())];
    let out = chat(
        &dir,
        &env,
        "how much is parking\n停車怎麼收費\n停车怎么收费\nwifi password?\n可以退货吗\ncan I return something?\n",
    )
    .await;
    assert!(answer(&out, 0).contains("HK$28 an hour"), "{out}");
    assert!(answer(&out, 1).contains("私家車每小時 HK$28"), "{out}");
    assert!(answer(&out, 2).contains("HK$28"), "Simplified asks, the Traditional text answers:\n{out}");
    assert!(answer(&out, 3).contains("HarbourPoint-WiFi"), "{out}");
    let zh = answer(&out, 4);
    assert!(zh.contains("不敢乱讲") && zh.contains("禮賓服務台") && zh.contains("2888 6000"), "{zh}");
    let en = answer(&out, 5);
    assert!(en.contains("I don't know") && en.contains("Concierge") && en.contains("2888 6000"), "{en}");
    for invented in ["7 天", "7 days", "退换货", "Returns and exchanges", "GalaxyPlaza"] {
        assert!(!out.contains(invented), "the demo mall's {invented:?} leaked into another mall:\n{out}");
    }
}

#[tokio::test]
async fn a_missing_info_dir_is_refused_naming_the_key() {
    let dir = TempDir::new("mall-info-missing");
    let env = [("MALLBOT_MALL__INFO_DIR", dir.file("no-such-folder"))];
    let (ok, out, err) = run_chat(&dir, &env, "停车怎么收费\n").await;
    assert!(!ok, "starts without its information folder:\n{out}");
    assert!(err.contains("mall.info_dir") && err.contains("does not exist"), "{err}");
}

#[tokio::test]
async fn mall_server_serves_the_new_endpoints_and_the_bot_reads_them_over_http() {
    let dir = TempDir::new("mall-info-server");
    let addr = free_addr();
    let env = [("MALLBOT_MALL__EMBEDDED_DB", dir.file("server.db")), ("MALLBOT_MALL__INFO_DIR", harbour())];
    let server =
        Process::spawn("mall-server", &["mall-server", "--listen", &addr.to_string()], &env, dir.path());
    wait_for_listener(addr, &server).await;
    let get = |path: &str| {
        let url = format!("http://{addr}{path}");
        async move {
            let response = reqwest::get(url).await.unwrap();
            (response.status().as_u16(), response.json::<Value>().await.unwrap())
        }
    };
    let (status, info) = get("/api/mall/info").await;
    assert_eq!(status, 200, "{info}");
    let desk = info["items"].as_array().unwrap().iter().find(|s| s["id"] == "service-desk").unwrap();
    assert_eq!(desk["title_en"], "Concierge");
    let (status, events) =
        get("/api/mall/events?from=2026-11-28T00:00:00%2B08:00&to=2026-11-30T00:00:00%2B08:00").await;
    assert_eq!(status, 200, "{events}");
    assert!(
        events["items"].as_array().unwrap().iter().any(|e| e["title_en"] == "LEGO build challenge"),
        "{events}"
    );
    let (status, refused) = get("/api/mall/events?from=saturday").await;
    assert_eq!((status, refused["error"]["details"]["field"].as_str()), (400, Some("from")), "{refused}");
    let (status, offers) = get("/api/mall/promotions").await;
    assert_eq!(status, 200);
    assert!(offers["total"].as_u64().unwrap() > 3, "{offers}");

    let bot = TempDir::new("mall-info-http-bot");
    let env =
        [("MALLBOT_MALL__BACKEND", "http".to_owned()), ("MALLBOT_MALL__BASE_URL", format!("http://{addr}"))];
    let out = chat(&bot, &env, "how much is parking\n这周末有什么活动\n").await;
    assert!(answer(&out, 0).contains("HK$28 an hour"), "the folder's sections through HttpMall:\n{out}");
    assert!(answer(&out, 1).contains("周末亲子手工坊"), "the events through HttpMall:\n{out}");
    server.terminate();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_telegram_basic_mode_answers_the_malls_questions_in_three_scripts() {
    let api = fake_bot_api::FakeBotApi::start().await;
    let dir = TempDir::new("mall-info-telegram");
    let mut env = bot_env(&api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_BOT__RATE_LIMIT_PER_MINUTE", "0".to_owned()),
    ]);
    let bot = Process::spawn("bot", &["run"], &env, dir.path());
    bot.wait_for_log("connected to telegram").await;
    for (id, script) in [(5101, SIMPLIFIED), (5102, TRADITIONAL), (5103, ENGLISH)] {
        let shopper = fake_bot_api::Shopper { id, name: "Mei" };
        for (n, (question, expected)) in script.questions.iter().zip(script.expected).enumerate() {
            api.push_update(fake_bot_api::private_text(shopper, question));
            let first = expected[0];
            api.wait_until(question, |api| api.shown_to(id).iter().any(|t| t.contains(first))).await;
            let sent = api.sent_to(id);
            // The answer with its buttons (an event's place is a button).
            let reply = sent.iter().rfind(|m| m["text"].as_str().is_some_and(|t| t.contains(first))).unwrap();
            for text in expected {
                assert!(reply.to_string().contains(text), "{question}: {text:?} missing from {reply}");
            }
            assert!(sent.len() > n, "one answer per question: {sent:?}");
        }
    }
    bot.terminate();
}
