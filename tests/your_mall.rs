//! A mall's own data through the real binary: the example mall
//! (`examples/malls/riverside`, `mall.data`) in the terminal chat — search,
//! directions on its own map, a purchase to 待支付, nothing of the demo
//! mall —; a price changed in its file reaching the shopper's next search
//! while the chat runs, the open order keeping its price; new tenants added
//! while it runs (one the map lacks: floor and unit; one in a unit the map
//! has: a drawn route); a folder with mistakes refused with every one
//! located (from an Excel CSV too), by `mallbot import --check`, `mallbot
//! check` and at start.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/terminal.rs"]
mod terminal;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use terminal::{copy_example_mall as copy_mall, repo};

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mallbot-your-mall-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `mallbot` with the mall's data in `data`, its state and mall databases in `dir`.
fn mallbot(dir: &Path, data: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mallbot"));
    command
        .env("MALLBOT_MALL__DATA", data)
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.join("state.db").display()))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env_remove("MALLBOT_LLM__PROVIDER")
        .env_remove("MALLBOT_CONFIG")
        .env_remove("MALLBOT_MALL__IMDF")
        .env_remove("MALLBOT_MALL__INFO_DIR")
        .current_dir(dir);
    command
}

/// The terminal chat as the README runs it, `mallbot --config examples/malls/riverside.toml
/// chat`, from the repository's root; its databases in `dir`.
fn chat(dir: &Path, script: &str) -> String {
    let mut command = terminal::chat_command(dir, &["--config", "examples/malls/riverside.toml"], "8");
    command.current_dir(env!("CARGO_MANIFEST_DIR")).env_remove("MALLBOT_MALL__DATA");
    terminal::run(command, script)
}

#[test]
fn the_example_mall_in_the_terminal_chat_search_directions_on_its_map_and_a_purchase() {
    let dir = scratch("chat");
    let out = chat(
        &dir,
        "亚瑟士跑鞋\n霸王茶姬在哪\n帮我买一双亚瑟士跑鞋\n第一个\n42码\ny\n下单\ny\n停车怎么收费\n转人工\n",
    );
    // Nothing of the demo mall: the banner's examples are the mall's own, no demo store
    // or desk phone anywhere.
    let banner = out.lines().nth(1).unwrap_or_default();
    assert!(banner.starts_with("用中文或英文提问，例如“帮我找"), "the banner's examples:\n{out}");
    assert!(
        banner.contains("在哪”") && banner.contains("有什么优惠”"),
        "a store and an offer of its own:\n{out}"
    );
    for demo in ["Nike", "优衣库", "Uniqlo", "星巴克", "400-820-8820"] {
        assert!(!out.contains(demo), "the demo's {demo} in the example mall:\n{out}");
    }
    // No desk configured: the mall's own service desk section (info/service-desk.md).
    assert!(
        out.contains("【服务台】服务台在 1F 中庭南侧走廊，每天 10:00–22:00。电话 028-8666 0000。"),
        "{out}"
    );
    // Search: the folder's products, its brand known by its Chinese name.
    assert!(out.contains("1. 亚瑟士 GEL-KAYANO 31 跑鞋 — ¥1299，评分 4.8，亚瑟士（1楼）"), "search:\n{out}");
    // Directions routed on the folder's own map, with floor plans.
    assert!(out.contains("霸王茶姬在3F-02"), "directions:\n{out}");
    assert!(out.contains("乘中庭扶梯上到 3F"), "the escalator of the folder's map:\n{out}");
    assert!(out.contains("到达霸王茶姬（CHAGEE，门牌 3F-02），在左手边"), "arrival:\n{out}");
    assert!(out.contains("[floor plan: "), "floor plans drawn from the folder's map:\n{out}");
    // A purchase to 待支付.
    assert!(out.contains("已加入购物车：亚瑟士 GEL-KAYANO 31 跑鞋（42 / 黑色 Black） × 1"), "cart:\n{out}");
    assert!(out.contains("状态：待支付，合计 ¥1299。取货门店：亚瑟士（1F-08）"), "order:\n{out}");
    // The folder's info/ Markdown answers the mall's own questions.
    assert!(out.contains("购物满 200 元免费停车 2 小时"), "the folder's information:\n{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the chat printed until `needle`, waiting for it (the chat answers as it reads).
fn until(lines: &mpsc::Receiver<String>, seen: &mut String, needle: &str) -> bool {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !seen.contains(needle) {
        let Some(left) = deadline.checked_duration_since(Instant::now()) else { return false };
        match lines.recv_timeout(left) {
            Ok(line) => {
                seen.push_str(&line);
                seen.push('\n');
            }
            Err(_) => return false,
        }
    }
    true
}

#[test]
fn a_price_changed_in_the_file_reaches_the_next_search_while_the_open_order_keeps_its_price() {
    let dir = scratch("price");
    let data = dir.join("riverside");
    copy_mall(&data);
    let mut child = mallbot(&dir, &data)
        .args(["chat", "--user", "9"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if send.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    let mut seen = String::new();
    stdin.write_all("帮我买悦诗风吟绿茶精华\n加入购物车\ny\n下单\ny\n".as_bytes()).unwrap();
    assert!(until(&lines, &mut seen, "状态：待支付，合计 ¥215"), "an order at ¥215:\n{seen}");

    // The operator lowers the price in products.csv while the bot runs.
    let products = data.join("products.csv");
    let text = std::fs::read_to_string(&products).unwrap();
    std::fs::write(&products, text.replace("4.6,,215,30", "4.6,,199,30")).unwrap();

    // The shopper's next searches: the new price as soon as the mall has read the file.
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut asked = 0;
    loop {
        seen.clear();
        stdin.write_all("悦诗风吟绿茶精华多少钱\n".as_bytes()).unwrap();
        asked += 1;
        assert!(until(&lines, &mut seen, "回复“第一个”查看详情"), "a search answer:\n{seen}");
        if seen.contains("悦诗风吟 绿茶精萃保湿精华 80ml — ¥199") {
            break;
        }
        assert!(seen.contains("— ¥215"), "the old price until the file is read:\n{seen}");
        assert!(Instant::now() < deadline, "the new price never came after {asked} searches:\n{seen}");
        std::thread::sleep(Duration::from_millis(300));
    }
    seen.clear();
    stdin.write_all("/orders\n".as_bytes()).unwrap();
    assert!(until(&lines, &mut seen, "¥215"), "the open order keeps the price it was placed at:\n{seen}");
    assert!(seen.contains("待支付"), "{seen}");
    assert!(!seen.contains("¥199"), "{seen}");
    drop(stdin);
    child.wait().unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_folder_with_mistakes_is_refused_with_every_mistake_located() {
    let dir = scratch("mistakes");
    let folder = repo("services/tests/fixtures/ten-mistakes");
    let expected = [
        "stores.csv:5:D (category): category `electronic` is not in categories.csv (did you mean `electronics`?)",
        "stores.csv:9:E (floor): floor 4F is not in floors.csv",
        "stores.csv:10:A (id): store `s-asics` is already on row 2",
        "products.csv:4:B (store): store `s-asic` is not in stores.csv (did you mean `s-asics`?)",
        "products.csv:8:J (price): `12,9O` is not a price in yuan (like 129 or 129.90)",
        "products.csv:9:H (rating): `6` is not a rating from 0 to 5",
        "skus.csv:13:B (product): product `p-tnf-jaket` is not in products.csv (did you mean `p-tnf-jacket`?)",
        "skus.csv:17:F (stock): `-3` is not a stock count (a whole number, 0 or more)",
        "products.csv:11: product `p-samsung-buds` has no SKUs in skus.csv and lacks a stock",
        "promotions.csv:3:D (valid_until): `next month` is not a date (like 2027-06-30)",
    ];

    let out = mallbot(&dir, &repo("examples/malls/riverside"))
        .args(["import", "--check"])
        .arg(&folder)
        .output()
        .unwrap();
    assert!(!out.status.success(), "import --check fails on mistakes");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let mut lines = stdout.lines();
    assert_eq!(lines.next().unwrap(), format!("the mall's data ({}) has 10 mistakes:", folder.display()));
    assert_eq!(lines.map(str::trim).collect::<Vec<_>>(), expected);

    // `mallbot check` on a config naming the folder: the same lines, exit 1.
    let out = mallbot(&dir, &folder).arg("check").output().unwrap();
    assert!(!out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    for line in expected {
        assert!(stdout.contains(line), "check names {line}:\n{stdout}");
    }

    // The bot will not start on it, and says why.
    let out = mallbot(&dir, &folder).args(["chat"]).stdin(Stdio::null()).output().unwrap();
    assert!(!out.status.success(), "the chat does not start");
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains("has 10 mistakes:"), "{stderr}");
    for line in expected {
        assert!(stderr.contains(line), "the refusal names {line}:\n{stderr}");
    }

    // The example mall passes, with its map.
    let out =
        mallbot(&dir, &folder).args(["import", "--check"]).arg(repo("examples/malls/riverside")).output();
    let stdout = String::from_utf8(out.unwrap().stdout).unwrap();
    assert!(stdout.contains("is ready: 8 stores, 18 products, 30 SKUs"), "{stdout}");
    assert!(stdout.contains("every store has its unit"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The example mall's files with `edit` applied to each CSV's text.
fn edit_tables(data: &Path, edit: impl Fn(&str, String) -> String) {
    for entry in std::fs::read_dir(data).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "csv") {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, edit(&name, text)).unwrap();
        }
    }
}

#[test]
fn new_tenants_while_running_one_the_map_lacks_by_floor_and_unit_one_in_a_known_unit_on_the_map() {
    let dir = scratch("tenants");
    let data = dir.join("riverside");
    copy_mall(&data);
    let log = std::fs::File::create(dir.join("bot.log")).unwrap();
    let mut child = mallbot(&dir, &data)
        .args(["chat", "--user", "10"])
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (send, lines) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if send.send(line.unwrap_or_default()).is_err() {
                return;
            }
        }
    });
    let mut seen = String::new();
    stdin.write_all("霸王茶姬在哪\n".as_bytes()).unwrap();
    assert!(until(&lines, &mut seen, "到达霸王茶姬"), "directions before the change:\n{seen}");

    // While the bot runs, the operator edits the directory only (never the map):
    // KAILAS takes over The North Face's unit 1F-12, named by its unit alone, and
    // Salomon opens in 1F-15, a unit the vendor's map does not have yet.
    edit_tables(&data, |name, text| {
        let text = text.replace("s-northface", "s-kailas");
        if name == "stores.csv" {
            text.replace("s-kailas,北面,The North Face,", "s-kailas,凯乐石,KAILAS,")
                + "s-salomon,萨洛蒙,Salomon,outdoor,1F,1F-15,a-sports,10:00-22:00,028-8666 1009,越野跑;trail,Salomon\n"
        } else {
            text
        }
    });

    // The reload's log lists what the map lacks: the files are read.
    let deadline = Instant::now() + Duration::from_secs(60);
    let log = || std::fs::read_to_string(dir.join("bot.log")).unwrap();
    while !log().contains("the mall's data reloaded: the map lacks some stores") {
        assert!(Instant::now() < deadline, "the change was never read:\n{}", log());
        std::thread::sleep(Duration::from_millis(200));
    }

    // The bot kept serving: the new store is found and directed to by floor and unit.
    seen.clear();
    stdin.write_all("萨洛蒙在哪\n凯乐石在哪\n".as_bytes()).unwrap();
    assert!(until(&lines, &mut seen, "到达凯乐石"), "both answers:\n{seen}");
    assert!(until(&lines, &mut seen, "[floor plan: "), "a floor plan drawn to the new tenant:\n{seen}");
    let asked = seen.find("萨洛蒙在").unwrap_or_else(|| panic!("{seen}"));
    let (salomon, kailas) =
        seen[asked..].split_at(seen[asked..].find("凯乐石在").unwrap_or_else(|| panic!("{seen}")));
    assert!(salomon.contains("萨洛蒙在1F-15。从"), "floor and unit:\n{salomon}");
    assert!(salomon.contains("门牌 1F-15"), "the unit in the steps:\n{salomon}");
    for invented in ["米", "分钟", "[floor plan: "] {
        assert!(!salomon.contains(invented), "nothing measured without the map ({invented}):\n{salomon}");
    }
    // The new tenant of a unit the map has: a route drawn to it, under the directory's name.
    assert!(kailas.contains("到达凯乐石（KAILAS，门牌 1F-12）"), "routed on the map to its unit:\n{kailas}");
    assert!(!kailas.contains("北面") && !kailas.contains("North Face"), "not the map's old name:\n{kailas}");
    drop(stdin);
    child.wait().unwrap();

    let log = log();
    assert!(log.contains("store `s-salomon` (萨洛蒙, 1F-15) is not on the map"), "{log}");
    assert!(!log.contains("store `s-kailas`"), "the unit's new tenant is on the map:\n{log}");

    // `mallbot check` and `import --check` name it, as a warning: the folder is fine.
    let lacking = "stores.csv:10: store `s-salomon` (萨洛蒙, 1F-15) is not on the map: its directions give the floor and unit; no unit of the map is named `1F-15` (IMDF unit name or alt_name) and no occupant has the ref `s-salomon`";
    let out = mallbot(&dir, &data).args(["import", "--check"]).arg(&data).output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "a store the map lacks is no mistake:\n{stdout}");
    assert!(stdout.contains("is ready: 9 stores"), "{stdout}");
    assert!(stdout.contains("lacks 1 store (a warning: the bot runs):"), "{stdout}");
    assert!(stdout.contains(lacking), "{stdout}");
    let out = mallbot(&dir, &data).arg("check").output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains(lacking), "check names the store the map lacks:\n{stdout}");
    assert!(stdout.contains("✅ map: ") && stdout.contains("8 of 9 stores placed"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_excel_csv_has_its_mistakes_on_the_right_rows_its_dates_as_spreadsheets_write_them_one_cause_one_line() {
    let dir = scratch("crlf");
    let folder = dir.join("mall");
    std::fs::create_dir_all(&folder).unwrap();
    for entry in std::fs::read_dir(repo("services/tests/fixtures/ten-mistakes")).unwrap() {
        let path = entry.unwrap().path();
        let mut text = std::fs::read_to_string(&path).unwrap();
        match path.file_name().unwrap().to_str().unwrap() {
            // A product price written with its currency, its three SKUs priced by it.
            "products.csv" => text = text.replace(",,1199,", ",,RMB 1199,"),
            // Dates as Excel writes them in a Chinese locale.
            "promotions.csv" => {
                text = text.replace("2027-06-30", "2030/6/30")
                    + "s-asics,会员日,Members' day,2030年6月30日\ns-oppo,以旧换新,Trade-in,2030-6-30\n"
            }
            _ => {}
        }
        // Saved by Excel as "CSV UTF-8": a byte-order mark and CRLF line ends.
        let excel = format!("\u{feff}{}", text.replace('\n', "\r\n"));
        std::fs::write(folder.join(path.file_name().unwrap()), excel).unwrap();
    }
    let out = mallbot(&dir, &repo("examples/malls/riverside"))
        .args(["import", "--check"])
        .arg(&folder)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!out.status.success());
    assert_eq!(
        stdout.lines().skip(1).map(str::trim).collect::<Vec<_>>(),
        [
            "stores.csv:5:D (category): category `electronic` is not in categories.csv (did you mean `electronics`?)",
            "stores.csv:9:E (floor): floor 4F is not in floors.csv",
            "stores.csv:10:A (id): store `s-asics` is already on row 2",
            "products.csv:3:J (price): `RMB 1199` is not a price in yuan (like 129 or 129.90)",
            "products.csv:4:B (store): store `s-asic` is not in stores.csv (did you mean `s-asics`?)",
            "products.csv:8:J (price): `12,9O` is not a price in yuan (like 129 or 129.90)",
            "products.csv:9:H (rating): `6` is not a rating from 0 to 5",
            "skus.csv:13:B (product): product `p-tnf-jaket` is not in products.csv (did you mean `p-tnf-jacket`?)",
            "skus.csv:17:F (stock): `-3` is not a stock count (a whole number, 0 or more)",
            "products.csv:11: product `p-samsung-buds` has no SKUs in skus.csv and lacks a stock",
            "promotions.csv:3:D (valid_until): `next month` is not a date (like 2027-06-30)",
        ],
        "{stdout}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_report_counts_a_store_not_found_as_unanswered_with_its_did_you_mean_and_the_card_names_the_shoppers_language()
 {
    let dir = scratch("report");
    // The bot set to English; the shopper writes Chinese: a near typo for 亚瑟士 (found), and
    // a store the mall does not have (unanswered, with the names offered).
    let mut child = Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(["--config", "examples/malls/riverside.toml", "chat", "--user", "11"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.join("state.db").display()))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env("MALLBOT_BOT__LANGUAGE", "en")
        .env_remove("MALLBOT_LLM__PROVIDER")
        .env_remove("MALLBOT_CONFIG")
        .env_remove("MALLBOT_MALL__DATA")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all("亚瑟土在哪\n乔丹体育在哪\n/human 找不到店\n".as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains("| Shopper: console 11 (Simplified Chinese)"),
        "the language written in:\n{stdout}"
    );

    let out = mallbot(&dir, &repo("examples/malls/riverside"))
        .args(["report", "--since", "1d", "--format", "json"])
        .output()
        .unwrap();
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let unanswered: Vec<&str> =
        report["unanswered"].as_array().unwrap().iter().map(|r| r["text"].as_str().unwrap()).collect();
    assert!(
        unanswered
            .iter()
            .any(|q| q.starts_with("乔丹体育") && q.contains("did you mean") && q.contains("亚瑟士")),
        "the store not found, unanswered, with the names offered: {report}"
    );
    assert!(!unanswered.iter().any(|q| q.starts_with("亚瑟土")), "the near typo was answered: {report}");
    assert_eq!(report["tool_errors"], serde_json::json!([]), "a typo is no tool error: {report}");
    let _ = std::fs::remove_dir_all(&dir);
}
