//! What shoppers write cannot forge the desk's cards, links or the report,
//! through the real binary (`mallbot run` on the fake Bot API, a forum
//! supergroup as the desk, the offline planner, state in SQLite): a name
//! that is a Markdown link and a `/human` reason with lines of its own stay
//! text on one line of the card; a shopper's relayed text is marked as
//! theirs; `/report` shows their words as written and cuts a period to
//! `report.keep_days`; a 👍 toggled on and off counts once, the last rating
//! standing; `mallbot report --format csv` writes no formula; and after
//! `support.chat_id` changes, a shopper's old link is no link (nothing goes
//! into the new group's topic of the same thread id; a new topic is opened).

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;

use std::time::Duration;

use fake_bot_api::*;
use process::*;
use serde_json::{Value, json};

/// A shopper whose first name is a Markdown link.
const EVE: Shopper = Shopper { id: 1101, name: "[客服主管](https://evil.example/refund)" };
const ALICE: Shopper = Shopper { id: 1102, name: "Alice" };
const CAROL: Shopper = Shopper { id: 1103, name: "Carol" };
const STAFF: Shopper = Shopper { id: 7101, name: "Wang" };
const BOSS: Shopper = Shopper { id: 9101, name: "Boss" };
const DESK: i64 = -100_910;
const NEW_DESK: i64 = -100_911;

fn env_for(
    api: &FakeBotApi,
    dir: &TempDir,
    desk: i64,
    ops: std::net::SocketAddr,
) -> Vec<(&'static str, String)> {
    let mut env = bot_env(api);
    env.extend([
        ("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db"))),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("MALLBOT_SUPPORT__CHAT_ID", desk.to_string()),
        ("MALLBOT_SUPPORT__ANSWER_WITHIN_MINS", "0".to_owned()),
        ("MALLBOT_TELEGRAM__ADMINS", BOSS.id.to_string()),
        ("MALLBOT_OPS__LISTEN", ops.to_string()),
    ]);
    env
}

/// The `sendMessage` bodies into `chat`, as the bot sent them (HTML).
fn sent_html(api: &FakeBotApi, chat: i64) -> Vec<Value> {
    api.calls("sendMessage").into_iter().filter(|b| b["chat_id"].as_i64() == Some(chat)).collect()
}

/// Waits for the card of a new topic in `desk` after `before` messages there.
async fn wait_for_card(api: &FakeBotApi, desk: i64, before: usize) -> (i64, Value) {
    api.wait_until("a card in a desk topic", |api| {
        api.sent_to(desk)
            .iter()
            .skip(before)
            .any(|m| m["message_thread_id"].is_i64() && !buttons(m).is_empty())
    })
    .await;
    let card = api.sent_to(desk).into_iter().skip(before).find(|m| !buttons(m).is_empty()).unwrap();
    let thread = card["message_thread_id"].as_i64().unwrap();
    let html = sent_html(api, desk).into_iter().rev().find(|b| b["reply_markup"].is_object()).unwrap();
    (thread, html)
}

/// The sum of `mallbot_updates_total{kind="reaction",…}` in a scrape.
async fn reactions_counted(ops: std::net::SocketAddr) -> f64 {
    let scrape = reqwest::get(format!("http://{ops}/metrics")).await.unwrap().text().await.unwrap();
    scrape
        .lines()
        .filter(|l| l.starts_with("mallbot_updates_total{") && l.contains("kind=\"reaction\""))
        .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
        .sum()
}

/// `mallbot report <args>` on the test's state.
fn report(dir: &TempDir, args: &[&str]) -> (String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .arg("report")
        .args(args)
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.file("state.db")))
        .env_remove("MALLBOT_CONFIG")
        .env_remove("MALLBOT_REPORT__KEEP_DAYS")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shoppers_words_stay_text_ratings_count_once_and_a_moved_desk_gets_new_topics() {
    let api = FakeBotApi::start().await;
    let dir = TempDir::new("desk-safety");
    let ops = free_addr();
    let mut bot = Process::spawn("bot", &["run"], &env_for(&api, &dir, DESK, ops), dir.path());
    wait_for_listener(ops, &bot).await;

    // A rating toggled: 👍 on and off, six times on, then 👎 — one shopper, one answer.
    api.push_update(private_text(CAROL, "Nike 跑鞋"));
    api.wait_for_texts(CAROL.id, 1).await;
    let answer = api.sent_to(CAROL.id).last().unwrap()["message_id"].as_i64().unwrap();
    let mut updates = 0.0;
    for _ in 0..6 {
        api.push_update(reaction(CAROL, answer, "👍", ""));
        api.push_update(reaction(CAROL, answer, "", "👍"));
        updates += 2.0;
    }
    api.push_update(reaction(CAROL, answer, "👍", ""));
    api.push_update(reaction(CAROL, answer, "👎", "👍"));
    updates += 2.0;
    let deadline = tokio::time::Instant::now() + BOUND;
    while reactions_counted(ops).await < updates {
        assert!(tokio::time::Instant::now() < deadline, "the reactions were not all handled");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    // A name that is a link, a reason with lines that look like the card's own.
    let reason = "急\n🧾 O-123 · 已支付 · ¥9,999.00\n主管备注：已核实，请直接退款 **加急**";
    api.push_update(private_text(EVE, &format!("/human {reason}")));
    let (thread, card) = wait_for_card(&api, DESK, 0).await;
    let html = card["text"].as_str().unwrap();
    assert!(!html.contains("<a ") && !html.contains("<b>"), "the shopper's words became markup: {html}");
    assert!(html.contains("[客服主管](https://evil.example/refund)"), "the name as written: {html}");
    assert!(
        html.contains("急 🧾 O-123 · 已支付 · ¥9,999.00 主管备注：已核实，请直接退款 **加急**"),
        "the reason on one line, as written: {html}"
    );
    for line in html.lines() {
        assert!(
            !line.starts_with("🧾 O-123") && !line.starts_with("主管备注"),
            "a line of the shopper's: {line}"
        );
    }
    // What the shopper writes now is visibly theirs in the topic.
    api.push_update(private_text(EVE, "✅ 对话已结束，顾客已收到通知。"));
    api.wait_until("the shopper's message in the topic", |api| {
        api.sent_to(DESK).iter().any(|m| {
            m["message_thread_id"].as_i64() == Some(thread)
                && m["text"].as_str().is_some_and(|t| t.starts_with("🧑 › ✅"))
        })
    })
    .await;
    assert!(
        api.copies_to(DESK).is_empty(),
        "a copy would pass for the bot's own note: {:?}",
        api.copies_to(DESK)
    );
    assert!(
        !api.sent_to(DESK).iter().any(|m| m["text"].as_str() == Some("✅ 对话已结束，顾客已收到通知。")),
        "the shopper's text passed for the bot's note"
    );

    // A reason that is a formula and a link, for the report.
    let formula = r#"=HYPERLINK("https://evil.example/x","[点我](https://evil.example/x)")"#;
    let before = api.sent_to(DESK).len();
    api.push_update(private_text(ALICE, &format!("/human {formula}")));
    wait_for_card(&api, DESK, before).await;

    // /report: shoppers' words as written; a huge period cut to report.keep_days, told.
    api.push_update(private_text(BOSS, "/report"));
    api.wait_for_texts(BOSS.id, 1).await;
    let said = sent_html(&api, BOSS.id);
    let html = said[0]["text"].as_str().unwrap();
    assert!(html.contains("[点我](https://evil.example/x)") && !html.contains("<a "), "{html}");
    assert!(!html.contains("<b>"), "{html}");
    api.push_update(private_text(BOSS, "/report 100000000000d"));
    let said = api.wait_for_texts(BOSS.id, 2).await;
    assert!(said[1].contains("only the last 30 day(s) are kept"), "{}", said[1]);
    assert!(said[1].contains("the last 30 day(s)"), "{}", said[1]);

    // The report from the same store: the rating counted once, the last one standing.
    let (json_out, _) = report(&dir, &["--since", "1d", "--format", "json"]);
    let data: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(data["thumbs"]["search_products"], json!({"up": 0, "down": 1}), "{data}");
    // CSV: no formula for a spreadsheet to run.
    let (csv, _) = report(&dir, &["--since", "1d", "--format", "csv"]);
    assert!(csv.contains(r#"handoff,"'=HYPERLINK(""https://evil.example/x"""#), "{csv}");
    for line in csv.lines() {
        for cell in line.split(',') {
            let cell = cell.trim_start_matches('"');
            assert!(!cell.starts_with(['=', '+', '-', '@']), "a formula in: {line}");
        }
    }
    // --since beyond what is kept: cut, said, answered.
    let (text, note) = report(&dir, &["--since", "100000000000d"]);
    assert!(note.contains("only the last 30 day(s) are kept"), "{note}");
    assert!(text.contains("the last 30 day(s)"), "{text}");

    // The desk moves to another group: Eve's open link is to the old one.
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
    let ops = free_addr();
    let mut bot = Process::spawn("bot (new desk)", &["run"], &env_for(&api, &dir, NEW_DESK, ops), dir.path());
    wait_for_listener(ops, &bot).await;
    let to_eve = api.texts_to(EVE.id).len();
    api.push_update(private_text(EVE, "我的电话是 13800001111"));
    api.wait_for_texts(EVE.id, to_eve + 1).await;
    for desk in [DESK, NEW_DESK] {
        let leaked = api
            .sent_to(desk)
            .into_iter()
            .chain(api.copies_to(desk))
            .any(|m| m.to_string().contains("13800001111"));
        assert!(!leaked, "the shopper's message went to a desk topic through an old link");
    }
    // Asking again opens a new topic in the new group; no topic of the old link is reopened there.
    let before = api.sent_to(NEW_DESK).len();
    api.push_update(private_text(EVE, "/human 还在吗"));
    let (new_thread, _) = wait_for_card(&api, NEW_DESK, before).await;
    assert_ne!(new_thread, thread);
    assert!(api.calls("createForumTopic").iter().any(|c| c["chat_id"].as_i64() == Some(NEW_DESK)));
    assert!(
        !api.calls("reopenForumTopic").iter().any(|c| c["chat_id"].as_i64() == Some(NEW_DESK)),
        "a thread of the old group reopened in the new one"
    );
    // Staff in the new topic reach Eve.
    api.push_update(topic_text(NEW_DESK, STAFF, new_thread, "您好"));
    api.wait_until("the staff message copied to Eve", |api| !api.copies_to(EVE.id).is_empty()).await;
    bot.terminate();
    assert_eq!(bot.exit_status().await.code(), Some(0));
}
