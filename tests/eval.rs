//! `mallbot eval` through the real binary: a small corpus written here, run
//! on the offline planner and on a scripted OpenAI-compatible model; the
//! figures printed (text and JSON), a failing case with its reason, the exit
//! code under `--min`, and a corpus with mistakes refused with each located.
#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;
#[path = "support/process.rs"]
mod process;

use fake_model::{FakeModel, ModelBehaviour};
use process::TempDir;
use serde_json::{Value, json};

/// Three cases: two a right answer meets today, one that states a fact the
/// answer cannot hold (Uniqlo is on 2F, not 5F).
const CORPUS: &str = r#"# written for the test
{"id":"zh-uniqlo","lang":"zh","class":"store","turns":["优衣库在哪"],"all":[["优衣库"],["2F","2楼"]]}
{"id":"en-buy","lang":"en","class":"buying","turns":["buy me a pair of Nike running shoes under 500","42","y"],"script":"any","cart":{"lines":1,"has":[{"size":"42","max_price":500}]}}
{"id":"en-wrong-floor","lang":"en","class":"store","turns":["where is Uniqlo?"],"all":["5F"]}
"#;

/// `mallbot eval ARGS` in `dir` with exactly the `MALLBOT_*` variables of `env`.
async fn eval(dir: &TempDir, args: &[&str], env: &[(&str, String)]) -> (i32, String, String) {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mallbot"));
    for (key, _) in std::env::vars().filter(|(key, _)| key.starts_with("MALLBOT_")) {
        command.env_remove(key);
    }
    command.env("NO_COLOR", "1").env("RUST_LOG", "warn");
    command.envs(env.iter().map(|(k, v)| (*k, v.as_str())));
    let out = command.arg("eval").args(args).current_dir(dir.path()).output().await.unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

fn corpus(dir: &TempDir, text: &str) -> String {
    let path = dir.file("cases.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_offline_planner_is_measured_per_language_and_class_with_the_failing_case_and_why() {
    let dir = TempDir::new("eval-offline");
    let cases = corpus(&dir, CORPUS);
    let (code, out, err) = eval(&dir, &["--corpus", &cases, "-k", "2"], &[]).await;
    assert_eq!(code, 0, "no --min: success whatever the figures\n{out}\n{err}");
    assert!(out.starts_with(&format!("mallbot eval: offline on {cases} (3 cases, k = 2)\n")), "{out}");
    // The figures, with the columns' spacing squeezed.
    let figures: Vec<String> =
        out.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    let figures = figures.join("\n");
    assert!(figures.contains("\npass^2 66.7 % (2/3)\n"), "{out}");
    let by_lang = &figures[figures.find("\nby language\n").expect("per language")..];
    assert!(by_lang.starts_with("\nby language\nen 50.0 % (1/2)\nzh 100.0 % (1/1)\n\nby class\n"), "{out}");
    assert!(by_lang.contains("\nby class\nbuying 100.0 % (1/1)\nstore 50.0 % (1/2)\n"), "{out}");
    assert!(out.contains("\nfailing cases (1)\n"), "{out}");
    let failing = &out[out.find("\nen-wrong-floor [en, store] ").expect("the failing case")..];
    assert!(failing.contains("— failed 2 of 2 run(s)"), "{failing}");
    assert!(failing.contains("  you> where is Uniqlo?\n  bot> "), "what was said: {failing}");
    assert!(failing.contains("Uniqlo"), "what the bot said: {failing}");
    assert!(failing.contains("  ✗ the last answer does not name \"5F\"\n"), "why: {failing}");
    assert!(!out.contains("zh-uniqlo ["), "a passing case is not listed: {out}");

    // Under the floor: exit 1, and why on standard error; at or over it: 0.
    let (code, _, err) = eval(&dir, &["--corpus", &cases, "--min", "0.9"], &[]).await;
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("mallbot eval: pass^1 66.7 % is under --min 90.0 %"), "{err}");
    let (code, _, err) = eval(&dir, &["--corpus", &cases, "--min", "66%"], &[]).await;
    assert_eq!(code, 0, "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_gives_the_same_figures_for_a_program() {
    let dir = TempDir::new("eval-json");
    let cases = corpus(&dir, CORPUS);
    let (code, out, err) = eval(&dir, &["--corpus", &cases, "--format", "json"], &[]).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["model"], "offline");
    assert_eq!(report["k"], 1);
    let tally = |cases: u64, passed: u64, runs: u64| json!({"cases": cases, "passed": passed, "pass_k": passed as f64 / cases as f64, "runs_passed": runs});
    assert_eq!(report["overall"], tally(3, 2, 2));
    assert_eq!(report["by_lang"], json!({"en": tally(2, 1, 1), "zh": tally(1, 1, 1)}));
    assert_eq!(report["by_class"], json!({"buying": tally(1, 1, 1), "store": tally(2, 1, 1)}));
    let failures = report["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{out}");
    let failure = &failures[0];
    assert_eq!(failure["id"], "en-wrong-floor");
    assert_eq!(failure["lang"], "en");
    assert_eq!(failure["class"], "store");
    assert_eq!(failure["origin"], format!("{cases}:4"));
    assert_eq!(failure["runs_failed"], 1);
    assert_eq!(failure["turns"], json!(["where is Uniqlo?"]));
    assert_eq!(failure["reasons"], json!(["the last answer does not name \"5F\""]));
    assert!(failure["answers"][0].as_str().unwrap().contains("Uniqlo"), "{out}");
}

/// The scripted model searches for Nike at every message and answers in
/// Chinese: right for a Chinese case, a script failure for an English one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_is_measured_through_the_same_config_and_its_script_is_checked() {
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let dir = TempDir::new("eval-model");
    let cases = corpus(
        &dir,
        concat!(
            "{\"id\":\"zh-nike\",\"lang\":\"zh\",\"class\":\"product_search\",\"turns\":[\"有 Nike 跑鞋吗\"],",
            "\"tools\":[{\"name\":\"search_products\",\"args\":{\"keyword\":\"nike\"}}],\"all\":[\"Pegasus 41\"]}\n",
            "{\"id\":\"en-nike\",\"lang\":\"en\",\"class\":\"product_search\",\"turns\":[\"any Nike running shoes?\"],",
            "\"tools\":[\"search_products\"],\"tools_none\":[\"add_to_cart\"],\"all\":[\"Pegasus 41\"]}\n",
            "{\"id\":\"en-store\",\"lang\":\"en\",\"class\":\"store\",\"turns\":[\"where is Uniqlo?\"],",
            "\"tools\":[\"navigate_to_store\"]}\n",
        ),
    );
    let env = [
        ("MALLBOT_LLM__PROVIDER", "openai".to_owned()),
        ("MALLBOT_LLM__BASE_URL", model.base_url.clone()),
        ("MALLBOT_LLM__MODEL", "scripted-model".to_owned()),
        ("MALLBOT_LLM__API_KEY", "sk-test".to_owned()),
        // The model words every answer (no tool's own words instead).
        ("MALLBOT_LLM__DIRECT_ANSWERS", "false".to_owned()),
    ];
    let (code, out, err) = eval(&dir, &["--corpus", &cases, "-k", "2", "--format", "json"], &env).await;
    assert_eq!(code, 0, "{err}");
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    assert_eq!(report["model"], "openai/scripted-model", "{out}");
    assert_eq!(report["overall"]["passed"], 1, "{out}");
    assert_eq!(report["by_lang"]["zh"]["pass_k"], 1.0, "{out}");
    assert_eq!(report["by_lang"]["en"]["pass_k"], 0.0, "{out}");
    // Each run asks the model twice (the search, then the words): 3 cases × 2 runs.
    assert_eq!(model.calls(), 12, "every run is the model's");
    let failures = report["failures"].as_array().unwrap();
    let reasons = |id: &str| -> Vec<String> {
        let failure = failures.iter().find(|f| f["id"] == id).unwrap_or_else(|| panic!("{id} fails: {out}"));
        assert_eq!(failure["runs_failed"], 2, "{out}");
        failure["reasons"].as_array().unwrap().iter().map(|r| r.as_str().unwrap().to_owned()).collect()
    };
    let english = reasons("en-nike");
    assert_eq!(english.len(), 1, "{english:#?}");
    assert!(
        english[0].starts_with("the answer to line 1 is not in English: Chinese in an English answer: "),
        "{english:#?}"
    );
    let store = reasons("en-store");
    assert!(
        store.iter().any(|r| r.starts_with("navigate_to_store was not called (called: search_products({")),
        "{store:#?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corpus_with_mistakes_is_refused_with_each_located() {
    let dir = TempDir::new("eval-mistakes");
    let cases = corpus(
        &dir,
        concat!(
            "{\"id\":\"a\",\"lang\":\"zh\",\"class\":\"store\",\"turns\":[\"优衣库在哪\"],\"all\":[\"2F\"]}\n",
            "{\"id\":\"a\",\"lang\":\"zh\",\"class\":\"store\",\"turns\":[\"优衣库在哪\"],\"all\":[\"2F\"]}\n",
            "{\"id\":\"b\",\"lang\":\"zh\",\"class\":\"store\",\"turns\":[\"优衣库在哪\"],\"tools\":[\"fly\"]}\n",
            "not json\n",
        ),
    );
    let (code, out, err) = eval(&dir, &["--corpus", &cases], &[]).await;
    assert_eq!(code, 1, "{out}");
    assert!(err.contains("the corpus has 3 mistake(s):"), "{err}");
    assert!(err.contains(&format!("{cases}:3: b: no tool is named \"fly\"")), "{err}");
    assert!(err.contains(&format!("{cases}:4: expected ident")), "{err}");
    assert!(err.contains(&format!("{cases}:2: the id \"a\" is used twice")), "{err}");
    assert!(out.is_empty(), "no figures: {out}");
}
