//! Everything shown in English is English, through the real binary (`mallbot chat`, the offline
//! planner): a product's detail, a store's deals, a store's hours past midnight, an area and a
//! facility answer in English without a Chinese character — on the demo mall, and on a folder
//! mall with and without its English columns (without them, English answers say less) — while
//! the same questions in Chinese still read in Chinese.
//!
//! The only Chinese an English answer may carry is a name the mall gives in Chinese alone (a
//! store or product without an English name); the malls here have English names for all, so
//! the answers checked carry none.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/terminal.rs"]
mod terminal;

use std::path::{Path, PathBuf};

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mallbot-english-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `mallbot chat` on the defaults (the demo mall), or on the folder mall `data`; its databases
/// in `dir`. Each line of `script` is one message; answers are returned one per message.
fn chat(dir: &Path, data: Option<&Path>, script: &[&str]) -> Vec<String> {
    let mut command = terminal::chat_command(dir, &[], "44");
    command.env_remove("MALLBOT_MALL__IMDF").env_remove("MALLBOT_MALL__INFO_DIR");
    match data {
        Some(data) => command.env("MALLBOT_MALL__DATA", data),
        None => command.env_remove("MALLBOT_MALL__DATA"),
    };
    let input: String = script.iter().map(|line| format!("{line}\n")).collect();
    answers(&terminal::run(command, &input), script.len())
}

/// The bot's answers, one per message: what follows each `bot>` prompt up to the next one.
fn answers(stdout: &str, messages: usize) -> Vec<String> {
    let parts: Vec<String> = stdout
        .split("bot>")
        .skip(1)
        .map(|a| a.split("you>").next().unwrap_or("").trim().to_owned())
        .collect();
    assert!(parts.len() >= messages, "{messages} answers expected:\n{stdout}");
    parts
}

fn han(text: &str) -> Vec<char> {
    text.chars()
        .filter(|c| ('\u{3400}'..='\u{9fff}').contains(c) || ('\u{f900}'..='\u{faff}').contains(c))
        .collect()
}

/// The answer to `asked` is English: something was said, and not one Chinese character.
fn english(asked: &str, answer: &str) {
    assert!(!answer.is_empty(), "{asked:?} got no answer");
    let chinese = han(answer);
    assert!(chinese.is_empty(), "{asked:?} → Chinese {chinese:?} in the English answer:\n{answer}");
}

/// The folder mall of the example, copied, so that a test can change it.
fn riverside_copy(dir: &Path) -> PathBuf {
    let data = dir.join("riverside");
    terminal::copy_example_mall(&data);
    data
}

/// Removes the named columns from a CSV file of the folder (a mall that never wrote them).
fn drop_columns(data: &Path, file: &str, columns: &[&str]) {
    let path = data.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<Vec<String>> = text.lines().filter(|l| !l.trim().is_empty()).map(fields).collect();
    let keep: Vec<usize> = (0..rows[0].len()).filter(|&i| !columns.contains(&rows[0][i].as_str())).collect();
    assert_eq!(keep.len() + columns.len(), rows[0].len(), "{file} has {columns:?}");
    let quote = |f: &str| if f.contains(',') { format!("\"{f}\"") } else { f.to_owned() };
    let out: String = rows
        .iter()
        .map(|row| {
            let cells: Vec<String> =
                keep.iter().map(|&i| quote(row.get(i).map_or("", String::as_str))).collect();
            cells.join(",") + "\n"
        })
        .collect();
    let tmp = data.join(format!(".{file}"));
    std::fs::write(&tmp, out).unwrap();
    std::fs::rename(tmp, path).unwrap();
}

/// The fields of one CSV line (quotes around a field with commas; no line breaks in fields).
fn fields(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    for c in line.chars() {
        match c {
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}

#[test]
fn the_demo_mall_answers_in_english_without_chinese_and_in_chinese_as_before() {
    let dir = scratch("demo");
    let asked = [
        "show me Freshippo organic milk",
        "the first one",
        "any deals at Uniqlo?",
        "Haidilao opening hours",
        "where is the food court?",
        "where is the nearest restroom?",
    ];
    let got = chat(&dir, None, &asked);
    for (asked, answer) in asked.iter().zip(&got) {
        english(asked, answer);
    }
    let [_, milk, deals, hours, area, restroom] = [0, 1, 2, 3, 4, 5].map(|i| got[i].as_str());
    assert!(milk.contains("Freshippo Organic Fresh Milk 950ml — ¥19.90"), "the product:\n{milk}");
    assert!(milk.contains("Delivered to the store fresh every day."), "its English description:\n{milk}");
    assert!(
        deals.contains("10% off new winter arrivals: 10% off this winter's new arrivals (until"),
        "{deals}"
    );
    assert!(hours.contains("10:00–02:00 (next day)"), "hours past midnight:\n{hours}");
    assert!(area.contains("Food Court is on 5F. Hotpot, Chinese dishes and soup dumplings"), "{area}");
    assert!(restroom.contains("Restrooms"), "the facility by its English name:\n{restroom}");

    let dir = scratch("demo-zh");
    let asked = ["帮我找盒马有机鲜牛奶", "第一个", "优衣库有什么优惠", "海底捞营业时间", "美食广场在哪"];
    let got = chat(&dir, None, &asked);
    let [_, milk, deals, hours, area] = [0, 1, 2, 3, 4].map(|i| got[i].as_str());
    assert!(
        milk.contains("盒马 有机鲜牛奶 950ml：当日到店，新鲜直达，产地直采。"),
        "the brand once:\n{milk}"
    );
    assert!(!milk.contains("盒马 盒马"), "{milk}");
    assert!(deals.contains("冬装新品 9 折：冬季新品一律 9 折（有效期至"), "the deal in Chinese:\n{deals}");
    assert!(hours.contains("10:00–次日02:00"), "hours past midnight:\n{hours}");
    assert!(area.contains("美食广场在5楼。火锅、中餐和小笼包"), "the area in Chinese:\n{area}");
    for answer in [milk, deals, hours, area] {
        assert!(
            !answer.contains("Delivered") && !answer.contains("winter") && !answer.contains("next day"),
            "{answer}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_first_message_of_latin_words_that_are_no_name_is_answered_in_english() {
    let dir = scratch("latin");
    let tea = chat(&dir, None, &["bubble tea?"]).remove(0);
    english("bubble tea?", &tea);
    assert!(tea.contains("HEYTEA"), "the store:\n{tea}");
    let dir = scratch("latin-wifi");
    let wifi = chat(&dir, None, &["Wifi?"]).remove(0);
    english("Wifi?", &wifi);
    assert!(wifi.contains("GalaxyPlaza-Free"), "the mall's English information:\n{wifi}");
    // One of the mall's names alone, even in small letters, says no language: the default's.
    let dir = scratch("latin-name");
    let nike = chat(&dir, None, &["nike"]).remove(0);
    assert!(!han(&nike).is_empty(), "a brand's name opens in the bot's default language:\n{nike}");
    // In a conversation already in Chinese, the same words keep it.
    let dir = scratch("latin-zh");
    let got = chat(&dir, None, &["优衣库在哪", "wifi?"]);
    assert!(got[1].contains("免费 Wi-Fi"), "{}", got[1]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_folder_mall_shows_its_english_columns_and_says_less_without_them() {
    let asked = [
        "show me ASICS GEL-KAYANO 31",
        "the first one",
        "any deals at ASICS?",
        "Shu Daxia Hotpot opening hours",
        "where is the sports & outdoor area?",
    ];
    let chinese = ["亚瑟士 GEL-KAYANO 31", "第一个", "亚瑟士有什么优惠", "蜀大侠火锅营业时间"];

    // With the English columns (as the example mall has them).
    let dir = scratch("folder-en");
    let data = riverside_copy(&dir);
    let got = chat(&dir, Some(&data), &asked);
    for (asked, answer) in asked.iter().zip(&got) {
        english(asked, answer);
    }
    assert!(got[1].contains("Stable, supportive running shoes for long distances."), "{}", got[1]);
    assert!(got[1].contains("42 / Black, 43 / Black"), "the sizes' English words:\n{}", got[1]);
    assert!(
        got[2].contains("Second pair of running shoes 20% off: Buy two pairs of running shoes and get 20% off the second (until"),
        "the offer's English title and description:\n{}",
        got[2]
    );
    assert!(got[3].contains("11:00–02:00 (next day)"), "{}", got[3]);
    assert!(got[4].contains("Running shoes and outdoor gear."), "{}", got[4]);
    let zh = chat(&dir, Some(&data), &chinese);
    assert!(zh[1].contains("稳定支撑型跑鞋，适合长距离。"), "{}", zh[1]);
    assert!(zh[2].contains("跑鞋第二双 8 折：买第二双跑鞋享 8 折（有效期至"), "{}", zh[2]);
    assert!(zh[3].contains("11:00–次日02:00"), "{}", zh[3]);

    // Without them: English answers say less, never Chinese.
    let dir = scratch("folder-zh-only");
    let data = riverside_copy(&dir);
    drop_columns(&data, "products.csv", &["description_en"]);
    drop_columns(&data, "promotions.csv", &["title_en", "description_en"]);
    drop_columns(&data, "areas.csv", &["description_en"]);
    let got = chat(&dir, Some(&data), &asked);
    for (asked, answer) in asked.iter().zip(&got) {
        english(asked, answer);
    }
    assert!(got[1].contains("ASICS GEL-KAYANO 31 running shoes — ¥1299"), "name and price:\n{}", got[1]);
    assert!(!got[1].contains("Stable"), "{}", got[1]);
    assert!(got[2].contains("An offer (described in Chinese only)"), "{}", got[2]);
    assert!(got[4].contains("Sports & outdoor is on 1F."), "{}", got[4]);
    let zh = chat(&dir, Some(&data), &chinese);
    assert!(zh[1].contains("稳定支撑型跑鞋，适合长距离。"), "{}", zh[1]);
    assert!(zh[2].contains("跑鞋第二双 8 折：买第二双跑鞋享 8 折（有效期至"), "{}", zh[2]);
    let _ = std::fs::remove_dir_all(dir);
}
