//! Plumbing for tests with a crowd of shoppers on `mallbot run` children:
//! waiting (with a bound of the test's choosing) until several instances
//! have ended so many updates between them, reading what every shopper's
//! chat shows at once, and a copy of an example mall's folder to change.

#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use crate::fake_bot_api::FakeBotApi;

/// The updates the bot whose ops endpoints listen at `ops` has ended so far
/// (`mallbot_updates_total`, every outcome summed); `None` when it does not answer.
pub async fn updates_ended(ops: SocketAddr) -> Option<u64> {
    let scrape = reqwest::get(format!("http://{ops}/metrics")).await.ok()?.text().await.ok()?;
    Some(
        scrape
            .lines()
            .filter(|l| l.starts_with("mallbot_updates_total{"))
            .filter_map(|l| l.rsplit(' ').next()?.parse::<f64>().ok())
            .sum::<f64>() as u64,
    )
}

/// Waits until each bot `(ops, count)` has ended exactly its `count`
/// updates (more fails at once), for at most `bound`. After it, whatever
/// the bots were going to send for those updates has been sent.
pub async fn wait_for_all_ended(bots: &[(SocketAddr, u64)], bound: Duration) {
    let deadline = tokio::time::Instant::now() + bound;
    loop {
        let mut ended = Vec::new();
        for (ops, _) in bots {
            ended.push(updates_ended(*ops).await.unwrap_or(0));
        }
        let done = bots.iter().zip(&ended).all(|((_, want), got)| {
            assert!(got <= want, "more updates ended than were sent: {ended:?} of {bots:?}");
            got == want
        });
        if done {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "updates ended {ended:?}, wanted {:?}, after {bound:?}",
            bots.iter().map(|(_, c)| c).collect::<Vec<_>>()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Every chat's messages on `api` as their readers see them now (edits
/// applied, deleted ones gone), by chat, each as (message id, text, message).
pub fn shown_by_chat(api: &FakeBotApi, chats: &[i64]) -> HashMap<i64, Vec<(i64, String, Value)>> {
    chats
        .iter()
        .map(|chat| {
            let shown = api
                .sent_to(*chat)
                .into_iter()
                .map(|m| {
                    let id = m["message_id"].as_i64().unwrap_or(0);
                    (id, m["text"].as_str().unwrap_or_default().to_owned(), m)
                })
                .collect();
            (*chat, shown)
        })
        .collect()
}

/// What the bot answered each press with, by callback query id
/// (`answerCallbackQuery`'s text; empty when it was answered silently).
pub fn press_answers(api: &FakeBotApi) -> HashMap<String, Vec<String>> {
    let mut answers: HashMap<String, Vec<String>> = HashMap::new();
    for call in api.calls("answerCallbackQuery") {
        let id = call["callback_query_id"].as_str().unwrap_or_default().to_owned();
        answers.entry(id).or_default().push(call["text"].as_str().unwrap_or_default().to_owned());
    }
    answers
}

/// Copies the folder `from` into `to` (created), files and subfolders.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}
