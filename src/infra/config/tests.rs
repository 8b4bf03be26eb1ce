#![allow(clippy::unwrap_used)]
use super::*;
use handlers::{Level, Scope};

fn load(toml_text: &str, env: &[(&str, &str)]) -> Result<Config, ConfigError> {
    let dir = std::env::temp_dir().join(format!("mallbot-config-{}", rand::random::<u64>()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("config.toml");
    std::fs::write(&path, toml_text).unwrap();
    let env = env.iter().map(|(k, v)| (k.to_string(), v.to_string()));
    let result = Config::load_with_env(Some(&path), env);
    std::fs::remove_dir_all(&dir).ok();
    result
}

#[test]
fn no_file_gives_working_defaults() {
    let c = Config::load_with_env(None, Vec::new()).unwrap();
    assert_eq!(c.llm.provider, Provider::Offline);
    assert_eq!(c.mall.backend, MallBackend::Embedded);
    assert_eq!(c.state.url, "sqlite://mallbot.db");
    assert_eq!(c.llm.max_rounds, 10);
    assert_eq!(c.safety.confirm_ttl_secs, 300);
}

#[test]
fn the_malls_own_hosts_are_the_default_link_hosts_and_the_picture_hosts() {
    let mut c = Config::default();
    assert!(c.link_hosts().is_empty() && c.image_hosts().is_empty(), "embedded mall: none");
    c.mall.backend = MallBackend::Http;
    c.mall.base_url = "https://Mall.Example.com:8443/api".into();
    c.mall.allowed_hosts = vec!["img.mall.example".into()];
    assert_eq!(c.link_hosts(), vec!["img.mall.example", "mall.example.com"]);
    c.bot.link_hosts = vec!["shop.example".into()];
    assert_eq!(c.link_hosts(), vec!["shop.example"], "set: only those");
    assert_eq!(c.image_hosts(), vec!["img.mall.example", "mall.example.com", "shop.example"]);
}

#[test]
fn the_malls_data_is_a_folder_served_by_the_embedded_mall() {
    let mut c = Config::default();
    c.mall.data = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/malls/riverside").into();
    c.validate().unwrap();
    c.mall.backend = MallBackend::Http;
    c.mall.base_url = "https://mall.example".into();
    let refused = c.validate().unwrap_err();
    let [Mistake { key, message }] = refused.mistakes() else {
        panic!("an http mall with data: {refused:?}")
    };
    assert_eq!(key, "mall.data");
    assert!(message.contains("mall.backend = \"embedded\""), "{message}");
    c.mall.backend = MallBackend::Embedded;
    c.mall.data = "/nonexistent/mall-data".into();
    let refused = c.validate().unwrap_err();
    let [Mistake { key, message }] = refused.mistakes() else { panic!("a missing folder: {refused:?}") };
    assert_eq!(key, "mall.data");
    assert!(message.contains("`/nonexistent/mall-data` does not exist"), "{message}");
}

#[test]
fn an_info_dir_must_be_a_folder_named_by_its_key() {
    let mut c = Config::default();
    c.mall.info_dir = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/malls/harbour-info").into();
    c.validate().unwrap();
    for (path, why) in
        [("/nonexistent/mall-info", "does not exist"), (env!("CARGO_MANIFEST_PATH"), "is not a folder")]
    {
        c.mall.info_dir = path.into();
        let refused = c.validate().unwrap_err();
        let [Mistake { key, message }] = refused.mistakes() else { panic!("{path}: {refused:?}") };
        assert_eq!(key, "mall.info_dir");
        assert!(message.contains(why) && message.contains(path), "{message}");
    }
}
#[test]
fn the_example_file_is_valid_and_complete() {
    let text = include_str!("../../../config.example.toml");
    let parsed: Config = toml::from_str(text).unwrap();
    assert_eq!(parsed, Config::default(), "the example shows the defaults");
    assert!(text.contains("[tools.add_to_cart]"), "the per-tool override is shown");
    // Every key of the defaults appears in the example, commented.
    let defaults = toml::Table::try_from(Config::default()).unwrap();
    for (section, keys) in defaults.iter().filter(|(section, _)| *section != "tools") {
        let Some(keys) = keys.as_table() else { continue };
        assert!(text.contains(&format!("[{section}]")), "section [{section}] missing");
        for key in keys.keys() {
            assert!(
                text.contains(&format!("{key} =")),
                "key {section}.{key} missing from config.example.toml"
            );
        }
    }
}

#[test]
fn unknown_mallbot_variables_are_warned_about_and_the_config_path_is_not_a_key() {
    let c = load(
        "",
        &[("MALLBOT_CONFIG", "/etc/mallbot.toml"), ("MALLBOT_LOG", "debug"), ("MALLBOT_LLM__NOPE", "1")],
    )
    .unwrap();
    assert_eq!(c.warnings.len(), 2, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("MALLBOT_LLM__NOPE"), "{:?}", c.warnings);
    assert!(c.warnings[1].contains("MALLBOT_LOG is not a config key"), "{:?}", c.warnings);
    let c = load("", &[("MALLBOT_LLM__TEMPERATURE", "0.2")]).unwrap();
    assert_eq!(c.llm.temperature, Some(0.2), "a key without a default is still a key");
}

#[test]
fn the_malls_clock_is_not_a_key_and_a_bad_instant_is_refused() {
    let c = load("", &[("MALLBOT_CLOCK", "2026-11-25T19:00:00+08:00")]).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let refused = load("", &[("MALLBOT_CLOCK", "next saturday")]).unwrap_err().to_string();
    assert!(refused.contains("MALLBOT_CLOCK") && refused.contains("2026-11-25T19:00:00+08:00"), "{refused}");
}

#[test]
fn a_self_hosted_bot_api_server_may_take_an_http_webhook() {
    let webhook = "[telegram]\nmode = \"webhook\"\nwebhook_secret = \"s\"\nwebhook_url = \"http://bot.internal:8443/hook\"\n";
    let refused = load(webhook, &[]).unwrap_err().to_string();
    assert!(refused.contains("telegram.webhook_url"), "{refused}");
    let local = format!("{webhook}api_url = \"http://127.0.0.1:8081\"\n");
    assert!(load(&local, &[]).is_ok(), "a local Bot API server accepts http:// webhooks");
}

#[test]
fn env_overrides_the_file_with_typed_values() {
    let c = load(
        "[llm]\nmax_rounds = 5\n",
        &[
            ("MALLBOT_LLM__MAX_ROUNDS", "7"),
            ("MALLBOT_TELEGRAM__TOKEN", "12345"),
            ("MALLBOT_TELEGRAM__ADMINS", "1, 2"),
            ("MALLBOT_SAFETY__CRITICAL_CODE", "true"),
            ("MALLBOT_TOOLS__ADD_TO_CART__LEVEL", "safe"),
        ],
    )
    .unwrap();
    assert_eq!(c.llm.max_rounds, 7);
    assert_eq!(c.telegram.token.expose(), "12345", "a numeric-looking token stays text");
    assert_eq!(c.telegram.admins, vec![1, 2]);
    assert!(c.safety.critical_code);
    assert_eq!(c.tools["add_to_cart"].level, Level::Safe);
}

#[test]
fn otel_is_off_by_default_and_its_keys_are_typed_and_checked() {
    let c = load("", &[]).unwrap();
    assert_eq!(c.otel, OtelConfig::default());
    assert!(c.otel.endpoint.is_empty() && !c.otel.capture_content);
    let c = load(
        "[otel]\nendpoint = \"http://127.0.0.1:4318\"\nprotocol = \"http/json\"\n",
        &[("MALLBOT_OTEL__SAMPLE_RATIO", "0.25"), ("MALLBOT_OTEL__CAPTURE_CONTENT", "true")],
    )
    .unwrap();
    assert_eq!(c.otel.protocol, OtelProtocol::HttpJson);
    assert_eq!((c.otel.sample_ratio, c.otel.capture_content), (0.25, true));
    let c = load("", &[("MALLBOT_OTEL__SAMPLE_RATIO", "1")]).unwrap();
    assert_eq!(c.otel.sample_ratio, 1.0, "a whole number is a ratio too");
    let e = load("[otel]\nsample_ratio = 1.5\n", &[]).unwrap_err().to_string();
    assert!(e.contains("otel.sample_ratio"), "{e}");
    let e = load("[otel]\nendpoint = \"grpc://collector:4317\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("otel.endpoint"), "{e}");
    let e = load("[otel]\nprotocol = \"grpc\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("protocol"), "{e}");
}

#[test]
fn payments_and_events_read_the_env_keep_the_token_out_of_debug_and_name_bad_keys() {
    let c = load("", &[("MALLBOT_PAYMENTS__PROVIDER_TOKEN", "284685063:TEST:secret-token")]).unwrap();
    assert!(c.payments.enabled());
    assert_eq!((c.payments.currency.as_str(), c.payments.order_ttl_mins), ("CNY", 30));
    assert_eq!((c.payments.max_open_orders, c.events.poll_secs), (3, 5));
    let shown = format!("{c:?}");
    assert!(!shown.contains("secret-token"), "the provider token is never printed: {shown}");
    assert!(!Config::default().payments.enabled(), "no token: paid at the store");

    let e = load("[payments]\ncurrency = \"yuan\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("payments.currency") && e.contains("ISO 4217"), "{e}");
    let e = load("[payments]\norder_ttl_mins = 1\n", &[]).unwrap_err().to_string();
    assert!(e.contains("payments.order_ttl_mins"), "{e}");
    let e = load("[payments]\nmax_open_orders = 0\n", &[]).unwrap_err().to_string();
    assert!(e.contains("payments.max_open_orders"), "{e}");
    let e = load("[events]\npoll_secs = \"often\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("poll_secs"), "{e}");
    let off = load("[events]\npoll_secs = 0\n", &[]).unwrap();
    assert_eq!(off.events.poll_secs, 0, "0 turns the feed off");
}

#[test]
fn bad_values_name_the_key() {
    let e = load("[llm]\nmax_rounds = \"many\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("max_rounds"), "{e}");
    let e = load("[llm]\nmax_round = 3\n", &[]).unwrap_err().to_string();
    assert!(e.contains("max_round"), "{e}");
    let e = load("[llm]\nprovider = \"openai\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("llm.base_url"), "{e}");
    let e = load("", &[("MALLBOT_LLM__MAX_ROUNDS", "lots")]).unwrap_err().to_string();
    assert!(e.contains("MALLBOT_LLM__MAX_ROUNDS") && e.contains("lots"), "{e}");
    let e = load("[state]\nurl = \"postgres://x\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("state.url"), "{e}");
    let e = load("[tools.fly_to_moon]\nlevel = \"safe\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("tools.fly_to_moon"), "{e}");
    let e = load("[tools.add_to_cart]\nlevel = \"maybe\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("maybe"), "{e}");
}

#[test]
fn stt_is_off_by_default_and_checked_when_set() {
    let c = load("", &[]).unwrap();
    assert!(!c.stt.enabled());
    assert_eq!((c.stt.model.as_str(), c.stt.max_seconds, c.stt.timeout_secs), ("whisper-1", 60, 30));
    assert!(!c.llm.vision);
    let e = load("[stt]\nprovider = \"openai\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("stt.base_url"), "{e}");
    let e = load("[stt]\nprovider = \"openai\"\nbase_url = \"groq\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("stt.base_url") && e.contains("groq"), "{e}");
    let e = load("[stt]\nprovider = \"whisper\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("whisper"), "{e}");
    let e = load("[stt]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9\"\nmax_seconds = 0\n", &[])
        .unwrap_err()
        .to_string();
    assert!(e.contains("stt.max_seconds"), "{e}");
    let c = load(
        "[stt]\nprovider = \"openai\"\nbase_url = \"https://api.groq.com/openai/v1\"\n",
        &[
            ("MALLBOT_STT__API_KEY", "gsk-1"),
            ("MALLBOT_STT__MAX_SECONDS", "30"),
            ("MALLBOT_LLM__VISION", "true"),
        ],
    )
    .unwrap();
    assert!(c.stt.enabled() && c.llm.vision);
    assert_eq!((c.stt.api_key.expose(), c.stt.max_seconds), ("gsk-1", 30));
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
}

#[test]
fn ops_listen_and_log_format() {
    let c = load("[ops]\nlisten = \"127.0.0.1:9464\"\n", &[("MALLBOT_LOG__FORMAT", "json")]).unwrap();
    assert_eq!(c.ops.listen, "127.0.0.1:9464");
    assert_eq!(c.log.format, LogFormat::Json);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let c = load("", &[]).unwrap();
    assert_eq!((c.ops.listen.as_str(), c.log.format), ("", LogFormat::Text));
    let e = load("[ops]\nlisten = \"9464\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("ops.listen") && e.contains("127.0.0.1:9464"), "{e}");
    let e = load("[log]\nformat = \"xml\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("xml"), "{e}");
}

#[test]
fn webapp_keys_are_checked_and_named() {
    let c = load("", &[]).unwrap();
    assert_eq!((c.webapp.listen.as_str(), c.webapp.init_data_max_age_secs), ("", 3600));
    let c = load(
        "[webapp]\nlisten = \"127.0.0.1:8090\"\n",
        &[("MALLBOT_WEBAPP__PUBLIC_URL", "https://m.example/webapp/")],
    )
    .unwrap();
    assert_eq!(
        (c.webapp.listen.as_str(), c.webapp.public_url.as_str()),
        ("127.0.0.1:8090", "https://m.example/webapp/")
    );
    let e = load("[webapp]\nlisten = \"8090\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("webapp.listen"), "{e}");
    let e = load("[webapp]\npublic_url = \"http://m.example/\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("webapp.public_url") && e.contains("https"), "{e}");
    let e = load("[webapp]\ninit_data_max_age_secs = 0\n", &[]).unwrap_err().to_string();
    assert!(e.contains("webapp.init_data_max_age_secs"), "{e}");
}

#[test]
fn mcp_servers_and_their_tools_levels_are_checked_and_named() {
    let c = load(
        "[mcp.servers.parking]\ncommand = \"parking-mcp\"\nargs = [\"--stdio\"]\n\n\
         [tools.parking__find_car]\nlevel = \"safe\"\n",
        &[("MALLBOT_MCP__TOKEN", "s3cret"), ("MALLBOT_MCP__USER_ID", "42")],
    )
    .unwrap();
    let parking = &c.mcp.servers["parking"];
    assert_eq!((parking.level, parking.scope), (Level::Confirm, Scope::Private), "the defaults");
    assert_eq!(c.tools["parking__find_car"].level, Level::Safe);
    assert_eq!((c.mcp.token.expose(), c.mcp.user_id), ("s3cret", 42));

    let e = load("[mcp.servers.parking]\nlevel = \"safe\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("mcp.servers.parking") && e.contains("`command`"), "{e}");
    let both = "[mcp.servers.parking]\ncommand = \"p\"\nurl = \"https://p.example/mcp\"\n";
    let e = load(both, &[]).unwrap_err().to_string();
    assert!(e.contains("mcp.servers.parking") && e.contains("keep one"), "{e}");
    let e = load("[mcp.servers.parking]\nurl = \"ftp://p.example\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("mcp.servers.parking.url"), "{e}");
    let e = load("[mcp.servers.a__b]\ncommand = \"p\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("mcp.servers.a__b"), "{e}");
    let e = load("[tools.valet__park]\nlevel = \"safe\"\n", &[]).unwrap_err().to_string();
    assert!(e.contains("tools.valet__park") && e.contains("[mcp.servers]"), "{e}");
}

#[test]
fn every_mistake_is_told_at_once_each_with_its_key() {
    let text = "[llm]\nprovider = \"openai\"\nbase_url = \"ftp://models.example\"\nmodel = \"m\"\n\n\
                [payments]\ncurrency = \"yuan\"\n\n[otel]\nsample_ratio = 2.0\n";
    let refused = load(text, &[]).unwrap_err();
    let keys: Vec<&str> = refused.mistakes().iter().map(|m| m.key.as_str()).collect();
    assert_eq!(keys, ["llm.base_url", "payments.currency", "otel.sample_ratio"], "{refused}");
    let shown = refused.to_string();
    let lines: Vec<&str> = shown.lines().collect();
    assert_eq!(lines[0], "the config has 3 mistakes:", "{shown}");
    assert_eq!(lines.len(), 4, "a count, then one line a mistake:\n{shown}");
    assert!(lines[1].contains("config key `llm.base_url`") && lines[1].contains("not ftp://"), "{shown}");
    assert!(lines[2].contains("config key `payments.currency`") && lines[2].contains("`yuan`"), "{shown}");
    assert!(lines[3].contains("config key `otel.sample_ratio`") && lines[3].contains("got 2"), "{shown}");
}

#[test]
fn one_section_with_several_mistakes_tells_each_and_one_mistake_is_one_line() {
    let mut c = Config::default();
    c.llm.max_rounds = 0;
    c.llm.request_timeout_secs = 0;
    c.llm.tool_timeout_secs = 0;
    let refused = c.validate().unwrap_err();
    let keys: Vec<&str> = refused.mistakes().iter().map(|m| m.key.as_str()).collect();
    assert_eq!(keys, ["llm.max_rounds", "llm.request_timeout_secs", "llm.tool_timeout_secs"]);
    assert!(refused.to_string().contains("config key `llm.tool_timeout_secs`: must be at least 1 second"));

    let refused = load("[bot]\nhistory_messages = 1\n", &[]).unwrap_err();
    assert_eq!(
        refused.to_string(),
        "the config has 1 mistake:\n  config key `bot.history_messages`: must be at least 2"
    );
    let unreadable = load("[bot\n", &[]).unwrap_err();
    assert!(unreadable.mistakes().is_empty(), "a file that cannot be parsed has no keyed mistakes yet");
}
