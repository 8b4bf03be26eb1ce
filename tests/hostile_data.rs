//! A mall's data folder as hostile input, through the real binary: a
//! workbook with one cell at `XFD1048576`, one whose shared strings claim a
//! trillion entries, a zip bomb (a few MB that unpack to 1 GiB of XML), a
//! table whose every row quotes a 20 000-character cell, and a table that is
//! a link to `/proc/self/environ`, each written by the test. `mallbot import
//! --check` names each as a located mistake in a bounded number of short
//! lines; dropped into the folder of a running `mall-server` each is refused
//! while the old data serves on, the process alive and its peak memory
//! (`VmHWM` of `/proc/<pid>/status`) bounded; no key of the config and
//! nothing of a file outside the folder is printed by `import --check`,
//! `check` or the reload's log.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/process.rs"]
mod process;
#[path = "support/terminal.rs"]
mod terminal;

use std::io::Write as _;
use std::path::Path;
use std::process::Command;
use std::time::Duration;

use process::*;
use terminal::copy_example_mall as copy_mall;

/// The most memory (peak resident set) a `mallbot` reading any of these files may take.
const PEAK_BOUND_KIB: u64 = 512 * 1024;
/// A key of the config that must never be printed.
const STAFF_KEY: &str = "staff-key-7Hq2Zp9";
/// A secret in the process's environment (as a cloud's credentials are).
const CLOUD_SECRET: &str = "cloud-secret-Wk31xV";

// ---- A workbook written by hand: the parts of an .xlsx in a zip. ----

/// One part of a workbook: its bytes, or a bomb (a prefix, then `chunk` `copies` times,
/// deflated once and repeated, so that a few MB unpack to a GiB).
enum Body {
    Bytes(Vec<u8>),
    Bomb { prefix: Vec<u8>, chunk: Vec<u8>, copies: usize },
}

/// Deflated (raw), with its CRC-32 and unpacked size.
fn deflated(body: &Body) -> (Vec<u8>, u32, u64) {
    use flate2::{Compress, Compression, Crc, FlushCompress};
    let mut compress = Compress::new(Compression::default(), false);
    let mut out = Vec::new();
    fn push(compress: &mut Compress, out: &mut Vec<u8>, input: &[u8], flush: FlushCompress) {
        let start = compress.total_in();
        loop {
            let done = (compress.total_in() - start) as usize;
            out.reserve(input.len() + 4096);
            let status = compress.compress_vec(&input[done..], out, flush).unwrap();
            let consumed = (compress.total_in() - start) as usize == input.len();
            let flushed = match flush {
                FlushCompress::Finish => status == flate2::Status::StreamEnd,
                _ => out.capacity() > out.len(),
            };
            if consumed && flushed {
                break;
            }
        }
    }
    match body {
        Body::Bytes(bytes) => {
            push(&mut compress, &mut out, bytes, FlushCompress::Finish);
            let mut crc = Crc::new();
            crc.update(bytes);
            (out, crc.sum(), bytes.len() as u64)
        }
        Body::Bomb { prefix, chunk, copies } => {
            // A sync flush ends each block on a byte: the chunk's blocks, which refer back
            // only to the chunk before them (≥ 32 KiB of the same bytes), can be repeated.
            assert!(chunk.len() >= 64 * 1024);
            push(&mut compress, &mut out, prefix, FlushCompress::Sync);
            push(&mut compress, &mut out, chunk, FlushCompress::Sync);
            let first = out.len();
            push(&mut compress, &mut out, chunk, FlushCompress::Sync);
            let block = out[first..].to_vec();
            for _ in 2..*copies {
                out.extend_from_slice(&block);
            }
            out.extend_from_slice(&[0x03, 0x00]); // the last, empty block
            let mut crc = Crc::new();
            crc.update(prefix);
            let mut one = Crc::new();
            one.update(chunk);
            for _ in 0..*copies {
                crc.combine(&one);
            }
            (out, crc.sum(), prefix.len() as u64 + (chunk.len() * copies) as u64)
        }
    }
}

/// A zip of `parts` (deflated), as an `.xlsx` is.
fn zip(parts: &[(&str, Body)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, body) in parts {
        let (data, crc, size) = deflated(body);
        let offset = out.len() as u32;
        let fields = |out: &mut Vec<u8>| {
            out.extend_from_slice(&20u16.to_le_bytes()); // version needed
            out.extend_from_slice(&0u16.to_le_bytes()); // flags
            out.extend_from_slice(&8u16.to_le_bytes()); // deflate
            out.extend_from_slice(&0u16.to_le_bytes()); // time
            out.extend_from_slice(&0x21u16.to_le_bytes()); // date 1980-01-01
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(size as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        fields(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&data);
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        central.extend_from_slice(&20u16.to_le_bytes()); // made by
        fields(&mut central);
        central.extend_from_slice(&[0; 6]); // comment length, disk, internal attributes
        central.extend_from_slice(&0u32.to_le_bytes()); // external attributes
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(parts.len() as u16).to_le_bytes());
    out.extend_from_slice(&(parts.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&at.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// `mall.xlsx` with one sheet, `stock`, whose XML is `sheet`, and `shared` as its shared strings.
fn workbook(sheet: Body, shared: Option<String>) -> Vec<u8> {
    let text = |s: String| Body::Bytes(s.into_bytes());
    let mut parts = vec![
        (
            "[Content_Types].xml",
            text(String::from(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Types xmlns=\"http://schemas.openxmlformats.org/package/2006/content-types\">\
                 <Default Extension=\"rels\" ContentType=\"application/vnd.openxmlformats-package.relationships+xml\"/>\
                 <Default Extension=\"xml\" ContentType=\"application/xml\"/>\
                 <Override PartName=\"/xl/workbook.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml\"/>\
                 <Override PartName=\"/xl/worksheets/sheet1.xml\" ContentType=\"application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml\"/></Types>",
            )),
        ),
        (
            "_rels/.rels",
            text(format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
                 <Relationship Id=\"rId1\" Type=\"{REL}/officeDocument\" Target=\"xl/workbook.xml\"/></Relationships>"
            )),
        ),
        (
            "xl/workbook.xml",
            text(format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><workbook xmlns=\"{MAIN}\" xmlns:r=\"{REL}\">\
                 <sheets><sheet name=\"stock\" sheetId=\"1\" r:id=\"rId1\"/></sheets></workbook>"
            )),
        ),
        (
            "xl/_rels/workbook.xml.rels",
            text(format!(
                "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/relationships\">\
                 <Relationship Id=\"rId1\" Type=\"{REL}/worksheet\" Target=\"worksheets/sheet1.xml\"/>\
                 <Relationship Id=\"rId2\" Type=\"{REL}/sharedStrings\" Target=\"sharedStrings.xml\"/></Relationships>"
            )),
        ),
        ("xl/worksheets/sheet1.xml", sheet),
    ];
    if let Some(shared) = shared {
        parts.push(("xl/sharedStrings.xml", text(shared)));
    }
    zip(&parts)
}

fn sheet_xml(rows: &str) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><worksheet xmlns=\"{MAIN}\"><sheetData>{rows}</sheetData></worksheet>"
    )
}

const HEADER_ROW: &str = "<row r=\"1\"><c r=\"A1\" t=\"inlineStr\"><is><t>sku</t></is></c>\
                          <c r=\"B1\" t=\"inlineStr\"><is><t>stock</t></is></c></row>";

/// One cell at the last place a spreadsheet has, `XFD1048576`, and a dimension to match.
fn sparse_cell() -> Vec<u8> {
    let rows = format!("{HEADER_ROW}<row r=\"1048576\"><c r=\"XFD1048576\"><v>1</v></c></row>");
    let xml = sheet_xml(&rows).replace("<sheetData>", "<dimension ref=\"A1:XFD1048576\"/><sheetData>");
    workbook(Body::Bytes(xml.into_bytes()), None)
}

/// Shared strings that claim a trillion entries (and hold one).
fn huge_shared_strings() -> Vec<u8> {
    let shared = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><sst xmlns=\"{MAIN}\" count=\"1000000000000\" \
         uniqueCount=\"1000000000000\"><si><t>sku</t></si></sst>"
    );
    let rows = "<row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c></row>";
    workbook(Body::Bytes(sheet_xml(rows).into_bytes()), Some(shared))
}

/// A sheet of 1 GiB of XML — rows whose one cell holds 60 000 characters — in a few MB.
fn zip_bomb() -> Vec<u8> {
    let prefix = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><worksheet xmlns=\"{MAIN}\"><sheetData>{HEADER_ROW}"
    );
    let row = format!("<row><c t=\"inlineStr\"><is><t>{}</t></is></c></row>", "x".repeat(60_000));
    let chunk = row.repeat(1024 * 1024 / row.len() + 1);
    let copies = (1usize << 30) / chunk.len() + 1;
    workbook(Body::Bomb { prefix: prefix.into_bytes(), chunk: chunk.into_bytes(), copies }, None)
}

/// `stock.csv` whose 400 rows each name an unknown SKU of 20 000 characters.
fn long_cells() -> Vec<u8> {
    let mut out = String::from("sku,stock\n");
    for i in 0..400 {
        out.push_str(&format!("{i}{},1\n", "y".repeat(20_000)));
    }
    out.into_bytes()
}

/// Writes `name` in `dir` whole at once (written beside it, then renamed), as a save does.
fn put(dir: &Path, name: &str, bytes: &[u8]) {
    let temp = dir.join(format!(".{name}.part"));
    std::fs::File::create(&temp).unwrap().write_all(bytes).unwrap();
    std::fs::rename(&temp, dir.join(name)).unwrap();
}

/// The peak resident memory of process `pid` so far (KiB).
fn peak_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/<pid>/status");
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// `mallbot <args>` on the folder `data`, its databases in `dir`; its output, its exit
/// status and its peak memory (read from `/proc` while it runs, the last reading
/// before it ended).
fn run(dir: &Path, data: &Path, args: &[&str]) -> (String, bool, u64) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(args)
        .env("MALLBOT_MALL__DATA", data)
        .env("MALLBOT_MALL__STAFF_KEY", STAFF_KEY)
        .env("AWS_SECRET_ACCESS_KEY", CLOUD_SECRET)
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.join("state.db").display()))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.join("mall.db"))
        .env_remove("MALLBOT_LLM__PROVIDER")
        .env_remove("MALLBOT_CONFIG")
        .env_remove("MALLBOT_MALL__IMDF")
        .env_remove("MALLBOT_MALL__INFO_DIR")
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut peak = 0;
    while child.try_wait().unwrap().is_none() {
        if let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status"))
            && let Some(kib) = status
                .lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        {
            peak = kib;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (text, out.status.success(), peak)
}

/// Every line short and few of them.
fn assert_bounded(out: &str) {
    assert!(out.lines().count() <= 110, "{} lines:\n{}", out.lines().count(), &out[..out.len().min(4000)]);
    for line in out.lines() {
        assert!(
            line.chars().count() <= 500,
            "a line of {} characters: {}…",
            line.chars().count(),
            &line[..200]
        );
    }
}

#[test]
fn import_check_names_each_hostile_file_as_a_located_mistake_in_bounded_memory() {
    let cases: [(&str, &str, Vec<u8>, &str); 4] = [
        (
            "sparse",
            "mall.xlsx",
            sparse_cell(),
            "mall.xlsx[stock]:1048576:XFD (?): a cell in column XFD is past column IV, the last a table may use",
        ),
        (
            "shared",
            "mall.xlsx",
            huge_shared_strings(),
            "mall.xlsx: declares 1000000000000 shared strings, more than the 2000000 a workbook may hold",
        ),
        (
            "bomb",
            "mall.xlsx",
            zip_bomb(),
            "mall.xlsx: its part xl/worksheets/sheet1.xml unpacks to more than 256 MiB, the most one part may hold",
        ),
        ("long", "stock.csv", long_cells(), "… and 300 more"),
    ];
    for (case, name, bytes, expected) in cases {
        let dir = TempDir::new(&format!("hostile-import-{case}"));
        let data = dir.path().join("mall");
        copy_mall(&data);
        std::fs::write(data.join(name), &bytes).unwrap();
        let (out, ok, peak) = run(dir.path(), &data, &["import", "--check", data.to_str().unwrap()]);
        assert!(!ok, "{case}: import --check passed:\n{out}");
        assert!(out.contains(expected), "{case}: no `{expected}` in:\n{}", &out[..out.len().min(4000)]);
        assert_bounded(&out);
        assert!(peak > 0 && peak < PEAK_BOUND_KIB, "{case}: peak memory {peak} KiB");
        eprintln!("{case}: {} bytes on disk, peak {peak} KiB", bytes.len());
    }
}

#[test]
fn import_check_and_check_show_no_key_and_nothing_outside_the_folder() {
    let dir = TempDir::new("hostile-secrets");
    let data = dir.path().join("mall");
    copy_mall(&data);
    // A table that is a link out of the folder, to the process's own environment.
    std::fs::remove_file(data.join("promotions.csv")).unwrap();
    std::os::unix::fs::symlink("/proc/self/environ", data.join("promotions.csv")).unwrap();
    // The staff key pasted in a cell where it is a mistake.
    let stores = std::fs::read_to_string(data.join("stores.csv")).unwrap();
    std::fs::write(
        data.join("stores.csv"),
        stores.replacen(",1F,1F-08,", &format!(",{STAFF_KEY},1F-08,"), 1),
    )
    .unwrap();
    for args in [vec!["import", "--check", data.to_str().unwrap()], vec!["check"]] {
        let (out, ok, _) = run(dir.path(), &data, &args);
        assert!(!ok, "{args:?} passed:\n{out}");
        assert!(
            out.contains("promotions.csv: is a link to a file outside the mall's folder: it is not read"),
            "{args:?}:\n{out}"
        );
        assert!(out.contains("stores.csv:2:"), "{args:?}: the floor's mistake is located:\n{out}");
        assert!(out.contains("[redacted]"), "{args:?}: the key is shown as [redacted]:\n{out}");
        for secret in [STAFF_KEY, CLOUD_SECRET, "PATH="] {
            assert!(!out.contains(secret), "{args:?} printed {secret}:\n{out}");
        }
    }
}

#[test]
fn the_information_folder_is_not_read_through_a_link_out_of_the_folder() {
    let dir = TempDir::new("hostile-links");
    let data = dir.path().join("mall");
    copy_mall(&data);
    // Outside the mall's folder: information an attacker wrote.
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("info")).unwrap();
    std::fs::write(outside.join("info/parking.md"), "# 停车\n\nOUTSIDE-INFO-TEXT\n").unwrap();
    std::fs::remove_dir_all(data.join("info")).unwrap();
    std::os::unix::fs::symlink(outside.join("info"), data.join("info")).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mallbot"))
        .args(["chat", "--user", "7"])
        .env("MALLBOT_MALL__DATA", &data)
        .env("MALLBOT_STATE__URL", format!("sqlite://{}", dir.path().join("state.db").display()))
        .env("MALLBOT_MALL__EMBEDDED_DB", dir.path().join("mall.db"))
        .env("RUST_LOG", "warn")
        .env_remove("MALLBOT_LLM__PROVIDER")
        .env_remove("MALLBOT_CONFIG")
        .env_remove("MALLBOT_MALL__IMDF")
        .env_remove("MALLBOT_MALL__INFO_DIR")
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all("停车怎么收费\n".as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "the bot serves on without them:\n{text}");
    assert!(text.contains("a link out of the mall's folder is not read"), "the log says why:\n{text}");
    assert!(!text.contains("OUTSIDE-INFO-TEXT"), "the outside information was read:\n{text}");
}

/// What a running `mall-server` says a product search finds.
async fn search(addr: std::net::SocketAddr, keyword: &str) -> String {
    let url = format!("http://{addr}/api/products/search?keyword={keyword}");
    let response = reqwest::get(url).await.unwrap();
    assert_eq!(response.status(), 200);
    response.text().await.unwrap()
}

/// Waits (bounded) until the log holds `needle` `count` times.
async fn wait_for_count(server: &Process, needle: &str, count: usize) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while server.log().matches(needle).count() < count {
        assert!(tokio::time::Instant::now() < deadline, "{needle:?} not logged {count} times");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_hostile_file_dropped_into_a_running_mall_server_is_refused_and_the_mall_serves_on() {
    let dir = TempDir::new("hostile-server");
    let data = dir.path().join("mall");
    copy_mall(&data);
    let addr = free_addr();
    let env = [
        ("MALLBOT_MALL__DATA", data.to_str().unwrap().to_owned()),
        ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY.to_owned()),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
        ("AWS_SECRET_ACCESS_KEY", CLOUD_SECRET.to_owned()),
    ];
    let mut server =
        Process::spawn("mall-server", &["mall-server", "--listen", &addr.to_string()], &env, dir.path());
    wait_for_listener(addr, &server).await;
    assert!(search(addr, "GEL-KAYANO").await.contains("p-asics-kayano"));
    let pid = server.child.id().unwrap();
    let refused = "the previous version serves on";
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("sparse", sparse_cell(), "a cell in column XFD is past column IV"),
        ("shared", huge_shared_strings(), "declares 1000000000000 shared strings"),
        ("bomb", zip_bomb(), "unpacks to more than 256 MiB"),
    ];
    for (n, (case, bytes, mistake)) in cases.into_iter().enumerate() {
        put(&data, "mall.xlsx", &bytes);
        wait_for_count(&server, refused, n + 1).await;
        assert!(server.log().contains(mistake), "{case}: the log does not say {mistake:?}");
        assert!(server.child.try_wait().unwrap().is_none(), "{case}: the server is gone");
        assert!(
            search(addr, "GEL-KAYANO").await.contains("p-asics-kayano"),
            "{case}: the mall stopped serving"
        );
        let peak = peak_kib(pid);
        assert!(peak < PEAK_BOUND_KIB, "{case}: peak memory {peak} KiB");
        eprintln!("{case}: peak {peak} KiB so far");
    }
    // A table replaced by a link to the process's own environment: refused, never printed.
    std::fs::remove_file(data.join("mall.xlsx")).unwrap();
    let link = data.join(".promotions.link");
    std::os::unix::fs::symlink("/proc/self/environ", &link).unwrap();
    std::fs::rename(&link, data.join("promotions.csv")).unwrap();
    wait_for_count(&server, "is a link to a file outside the mall's folder", 1).await;
    assert!(search(addr, "GEL-KAYANO").await.contains("p-asics-kayano"));
    let log = server.log();
    for secret in [STAFF_KEY, CLOUD_SECRET, "PATH="] {
        assert!(!log.contains(secret), "the log printed {secret}");
    }
    server.terminate();
    server.exit_status().await;
}

/// A call to a running `mall-server`: status and body.
async fn call(request: reqwest::RequestBuilder) -> (u16, serde_json::Value) {
    let response = request.send().await.unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or_default())
}

#[tokio::test]
async fn a_price_cannot_wrap_a_total_and_an_order_over_the_limit_is_refused_with_words() {
    let dir = TempDir::new("hostile-money");
    let addr = free_addr();
    let env = [
        ("MALLBOT_MALL__STAFF_KEY", STAFF_KEY.to_owned()),
        ("MALLBOT_MALL__EMBEDDED_DB", dir.file("mall.db")),
    ];
    let mut server =
        Process::spawn("mall-server", &["mall-server", "--listen", &addr.to_string()], &env, dir.path());
    wait_for_listener(addr, &server).await;
    let http = reqwest::Client::new();
    let base = format!("http://{addr}/api");
    let (_, found) = call(http.get(format!("{base}/products/search?keyword=Nike"))).await;
    let id = found["items"][0]["id"].as_str().expect("a product").to_owned();
    let (_, product) = call(http.get(format!("{base}/products/{id}"))).await;
    let sku = product["skus"][0]["sku_id"].as_str().map(str::to_owned);
    let staff = |path: &str, body: serde_json::Value| {
        http.post(format!("{base}/staff/products/{id}/{path}")).bearer_auth(STAFF_KEY).json(&body)
    };
    // 2^62 fen: refused, nothing changed.
    let (status, body) =
        call(staff("price", serde_json::json!({"price_cents": 1i64 << 62, "sku_id": sku}))).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("a price is at most"), "{body}");
    // The highest price a product may have, and stock for 99.
    let (status, body) =
        call(staff("price", serde_json::json!({"price_cents": 1_000_000_000i64, "sku_id": sku}))).await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = call(staff("stock", serde_json::json!({"stock": 500, "sku_id": sku}))).await;
    assert_eq!(status, 200, "{body}");
    let shopper = |request: reqwest::RequestBuilder| request.header("X-Mall-User", "telegram:4242");
    let item = serde_json::json!({"product_id": id, "sku_id": sku, "quantity": 99});
    let (status, cart) = call(shopper(http.post(format!("{base}/cart/items")).json(&item))).await;
    assert_eq!(status, 200, "{cart}");
    assert_eq!(
        cart["total_cents"],
        serde_json::json!(99_000_000_000i64),
        "the total is what it costs: {cart}"
    );
    // ¥990 000 000: over what one order may come to, refused with words; no order.
    let order = serde_json::json!({"cart_id": cart["cart_id"]});
    let (status, body) = call(shopper(http.post(format!("{base}/orders")).json(&order))).await;
    assert_eq!(status, 400, "{body}");
    assert!(body.to_string().contains("one order may"), "{body}");
    let (_, orders) = call(shopper(http.get(format!("{base}/orders")))).await;
    assert_eq!(orders["items"].as_array().map(Vec::len), Some(0), "{orders}");
    server.terminate();
    server.exit_status().await;
}
