//! Voice messages and photos end to end: the real dispatcher long-polls a
//! fake Bot API server on loopback (which also answers `getFile` and serves
//! the files), and a scripted OpenAI-compatible server transcribes
//! (`/audio/transcriptions`, multipart) and, where a test says so, plays the
//! model. The tests read what the shopper saw from the fake Bot API and what
//! the services received from the scripted server.

#![allow(clippy::unwrap_used)]

#[path = "support/fake_bot_api.rs"]
mod fake_bot_api;
#[path = "support/fake_model.rs"]
mod fake_model;

use std::sync::Arc;

use fake_bot_api::*;
use fake_model::{FakeModel, ModelBehaviour, SttAnswer};
use mallbot::App;
use mallbot::config::{Config, Provider, SttProvider};
use mallbot::state::MemoryStore;
use serde_json::Value;
use teloxide::dispatching::ShutdownToken;

const ALICE: Shopper = Shopper { id: 2001, name: "Alice" };
const BOB: Shopper = Shopper { id: 2002, name: "Bob" };
const GROUP: i64 = -100_777;
/// The fake bot's token, which must never reach the model or the transcription API.
const TOKEN: &str = "123:TEST";

/// The bytes of a voice message (an Ogg page header and some payload).
fn ogg(tag: u8) -> Vec<u8> {
    let mut bytes = b"OggS\x00\x02".to_vec();
    bytes.extend((0..3000u32).map(|i| (i as u8).wrapping_mul(31).wrapping_add(tag)));
    bytes
}

/// A JPEG-looking file whose header says `width` × `height`.
fn jpeg(width: u16, height: u16, tag: u8) -> Vec<u8> {
    let mut bytes = vec![0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08];
    bytes.extend_from_slice(&height.to_be_bytes());
    bytes.extend_from_slice(&width.to_be_bytes());
    bytes.extend_from_slice(&[0x03, 0x01, 0x22, 0x00]);
    bytes.extend((0..2000u32).map(|i| (i as u8) ^ tag));
    bytes.extend_from_slice(&[0xFF, 0xD9]);
    bytes
}

/// Whether `text` is a status line still waiting for its answer ("🎤 正在听…",
/// "🔍 正在搜索：…", or what was heard while the turn runs).
fn is_status(text: &str) -> bool {
    !text.contains('\n') && (text.ends_with('…') || (text.starts_with("🎤 “") && text.ends_with('”')))
}

struct Running {
    api: FakeBotApi,
    model: FakeModel,
    app: App,
    shutdown: ShutdownToken,
    task: tokio::task::JoinHandle<()>,
}

impl Running {
    async fn stop(self) {
        if let Ok(done) = self.shutdown.shutdown() {
            done.await;
        }
        self.task.await.expect("the dispatcher ended cleanly");
    }

    fn last_sent(&self, chat: i64) -> Value {
        self.api.sent_to(chat).last().cloned().expect("a message to the chat")
    }

    /// Waits until the chat shows `count` messages that are no longer a status; returns their texts.
    async fn answers(&self, chat: i64, count: usize) -> Vec<String> {
        let settled = |api: &FakeBotApi| {
            let shown = api.shown_to(chat);
            shown.len() >= count && !shown.iter().any(|t| is_status(t))
        };
        self.api.wait_until(&format!("{count} answers in chat {chat}"), settled).await;
        self.api.shown_to(chat)
    }

    /// Nothing the model or the transcription API received carries the bot token or a file URL.
    fn assert_token_never_left(&self) {
        for request in self.model.stt_requests() {
            let raw = String::from_utf8_lossy(&request.raw);
            assert!(
                !raw.contains(TOKEN) && !raw.contains("/file/bot"),
                "the token reached the transcription API"
            );
        }
        for body in self.model.bodies() {
            let text = body.to_string();
            assert!(
                !text.contains(TOKEN) && !text.contains("/file/bot"),
                "the token reached the model: {text}"
            );
        }
    }
}

/// The bot with transcription on the scripted server; `model` = the scripted
/// server plays the model too (else the offline planner answers).
fn config(model_url: &str, with_model: bool) -> Config {
    let mut config = Config::default();
    config.state.url = "memory://".into();
    config.bot.rate_limit_per_minute = 0;
    config.stt.provider = SttProvider::Openai;
    config.stt.base_url = model_url.to_owned();
    config.stt.api_key = "stt-secret".into();
    config.stt.model = "whisper-large-v3".into();
    config.stt.timeout_secs = 2;
    if with_model {
        config.llm.provider = Provider::Openai;
        config.llm.base_url = model_url.to_owned();
        config.llm.model = "gpt-4o-mini".into();
        config.llm.max_retries = 0;
    }
    config
}

async fn start(edit: impl FnOnce(&mut Config, &str)) -> Running {
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let mut config = config(&model.base_url, false);
    edit(&mut config, &model.base_url);
    let app =
        App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), Arc::new(MemoryStore::new()))
            .expect("app");
    let api = FakeBotApi::start().await;
    let mut dispatcher = mallbot::telegram::dispatcher(api.bot(), app.clone()).build();
    let shutdown = dispatcher.shutdown_token();
    let task = tokio::spawn(async move { dispatcher.dispatch().await });
    Running { api, model, app, shutdown, task }
}

// ------------------------------------------------------------------ voice

#[tokio::test]
async fn a_voice_message_is_transcribed_shown_and_drives_a_purchase_up_to_the_confirmation() {
    let bot = start(|_, _| {}).await;
    let chat = ALICE.id;
    bot.model.transcript_next(SttAnswer::Text("帮我买一双 Nike 跑鞋，500 以内的".into()));
    bot.model.transcript_next(SttAnswer::Text("42码".into()));
    bot.api.put_file("voice-1", ogg(1));
    bot.api.put_file("voice-2", ogg(2));

    bot.api.push_update(voice_message(chat, ALICE, "voice-1", 4, 3006));
    let shown = bot.answers(chat, 1).await;
    assert!(
        shown[0].starts_with("🎤 “帮我买一双 Nike 跑鞋，500 以内的”\n\n"),
        "what was heard comes first: {}",
        shown[0]
    );
    assert!(shown[0].contains("码"), "the planner asks for the size, as for typed text: {}", shown[0]);

    let sent = bot.model.stt_requests();
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0].file, ogg(1), "the voice bytes arrive unchanged");
    assert_eq!(sent[0].fields["model"], "whisper-large-v3");
    assert_eq!(sent[0].authorization.as_deref(), Some("Bearer stt-secret"));
    assert!(sent[0].file_name.ends_with(".ogg") && sent[0].file_type == "audio/ogg", "{sent:?}");
    assert!(!sent[0].fields.contains_key("language"), "no /lang chosen: the service detects the language");

    bot.api.push_update(voice_message(chat, ALICE, "voice-2", 2, 3006));
    let shown = bot.answers(chat, 2).await;
    assert!(shown[1].starts_with("🎤 “42码”"), "{}", shown[1]);
    assert!(shown[1].contains("42"), "the confirmation names the size: {}", shown[1]);
    let prompt = bot.last_sent(chat);
    let labels: Vec<String> = buttons(&prompt).into_iter().map(|(l, _)| l).collect();
    assert_eq!(labels, vec!["✅ 确认", "✖️ 取消"], "the same confirmation as for typed text");
    let cart = bot.app.mall.get_cart(&services::Shopper::new("telegram", ALICE.id)).await.unwrap();
    assert!(cart.items.is_empty(), "a voice message never presses the button: {cart:?}");
    assert_eq!(bot.api.downloads(), vec!["voice-1", "voice-2"]);

    // The history holds the transcripts as the shopper's words.
    let ctx = mallbot::MessageContext::private("telegram", ALICE.id, "", handlers::Lang::Zh);
    let history = bot.app.state.load_history(&ctx.conversation_key()).await.unwrap();
    assert_eq!(history[0].text(), "帮我买一双 Nike 跑鞋，500 以内的");

    // Once the shopper chose a language, it goes with the recording.
    bot.api.push_update(private_text(ALICE, "/lang en"));
    bot.answers(chat, 3).await;
    bot.model.transcript_next(SttAnswer::Text("where is Uniqlo".into()));
    bot.api.put_file("voice-3", ogg(3));
    bot.api.push_update(voice_message(chat, ALICE, "voice-3", 2, 3006));
    let shown = bot.answers(chat, 4).await;
    assert!(shown[3].starts_with("🎤 “where is Uniqlo”"), "{}", shown[3]);
    assert_eq!(bot.model.stt_requests()[2].fields["language"], "en");
    bot.assert_token_never_left();
    bot.stop().await;
}

#[tokio::test]
async fn limits_and_failures_are_answered_clearly_with_no_model_call() {
    let bot = start(|config, url| {
        *config = self::config(url, true);
        config.stt.max_seconds = 30;
        config.stt.timeout_secs = 1;
    })
    .await;
    let chat = BOB.id;
    for i in 0..6 {
        bot.api.put_file(&format!("v{i}"), ogg(i as u8));
    }

    // Too long: refused before anything is fetched.
    bot.api.push_update(voice_message(chat, BOB, "v0", 31, 3006));
    let shown = bot.answers(chat, 1).await;
    assert!(shown[0].contains("30 秒"), "{}", shown[0]);

    // Over the Bot API's 20 MB: refused before anything is fetched.
    bot.api.push_update(voice_message(chat, BOB, "v1", 20, 25 * 1024 * 1024));
    let shown = bot.answers(chat, 2).await;
    assert!(shown[1].contains("20 MB"), "{}", shown[1]);
    assert!(bot.api.calls("getFile").is_empty() && bot.model.stt_requests().is_empty());

    // The transcription API answers 500, nonsense, or not in time.
    let failed = "语音转文字暂时出了问题";
    for (i, answer) in [SttAnswer::Status(500), SttAnswer::Garbage, SttAnswer::Hang].into_iter().enumerate() {
        bot.model.transcript_next(answer);
        bot.api.push_update(voice_message(chat, BOB, &format!("v{}", i + 2), 3, 3006));
        let shown = bot.answers(chat, 3 + i).await;
        assert!(shown[2 + i].contains(failed) && shown[2 + i].contains("打字"), "{}", shown[2 + i]);
    }

    // Nothing heard.
    bot.model.transcript_next(SttAnswer::Text("  ".into()));
    bot.api.push_update(voice_message(chat, BOB, "v5", 3, 3006));
    let shown = bot.answers(chat, 6).await;
    assert!(shown[5].contains("我没听到内容"), "{}", shown[5]);

    assert_eq!(bot.model.stt_requests().len(), 4);
    assert_eq!(bot.model.calls(), 0, "no model call for any of them");
    let ctx = mallbot::MessageContext::private("telegram", BOB.id, "", handlers::Lang::Zh);
    assert!(
        bot.app.state.load_history(&ctx.conversation_key()).await.unwrap().is_empty(),
        "nothing in the history"
    );

    // The service is back: the next voice message goes through to the model.
    bot.api.put_file("v6", ogg(6));
    bot.api.push_update(voice_message(chat, BOB, "v6", 3, 3006));
    let shown = bot.answers(chat, 7).await;
    assert!(shown[6].starts_with(&format!("🎤 “{}”", fake_model::DEFAULT_TRANSCRIPT)), "{}", shown[6]);
    assert!(bot.model.calls() >= 1);
    bot.assert_token_never_left();
    bot.stop().await;
}

#[tokio::test]
async fn the_rate_limit_holds_voice_messages_back_before_they_are_transcribed() {
    let bot = start(|config, _| config.bot.rate_limit_per_minute = 1).await;
    let chat = ALICE.id;
    bot.api.put_file("r1", ogg(1));
    bot.api.put_file("r2", ogg(2));
    bot.api.push_update(voice_message(chat, ALICE, "r1", 3, 3006));
    let shown = bot.answers(chat, 1).await;
    assert!(shown[0].starts_with("🎤 “"), "{}", shown[0]);
    bot.api.push_update(voice_message(chat, ALICE, "r2", 3, 3006));
    let shown = bot.answers(chat, 2).await;
    assert!(shown[1].contains("有点快"), "the same notice as for typed text: {}", shown[1]);
    assert_eq!(bot.model.stt_requests().len(), 1, "the held-back message was not transcribed");
    bot.stop().await;
}

#[tokio::test]
async fn in_a_group_only_voice_messages_replying_to_the_bot_are_heard() {
    let bot = start(|_, _| {}).await;
    bot.api.put_file("g1", ogg(1));
    bot.api.put_file("g2", ogg(2));
    bot.api.put_file("g3", ogg(3));

    // The group's own voice notes, and a reply to someone else: never fetched.
    bot.api.push_update(voice_message(GROUP, ALICE, "g1", 3, 3006));
    let someone = someones_message(GROUP, BOB, "我在三楼");
    bot.api.push_update(replying_to(voice_message(GROUP, ALICE, "g2", 3, 3006), &someone));
    // A reply to the bot's message: heard.
    bot.api.push_update(group_mention(GROUP, ALICE, "Nike 店在哪"));
    let shown = bot.answers(GROUP, 1).await;
    let bots_answer = bot.last_sent(GROUP);
    bot.model.transcript_next(SttAnswer::Text("优衣库在几楼".into()));
    bot.api.push_update(replying_to(voice_message(GROUP, ALICE, "g3", 3, 3006), &bots_answer));
    let shown_after = bot.answers(GROUP, shown.len() + 1).await;
    assert!(shown_after.last().unwrap().starts_with("🎤 “优衣库在几楼”"), "{shown_after:?}");
    assert_eq!(bot.api.downloads(), vec!["g3"], "only the reply to the bot was fetched");
    assert_eq!(bot.model.stt_requests().len(), 1);
    bot.stop().await;
}

#[tokio::test]
async fn without_stt_a_voice_message_gets_the_polite_answer_that_typing_works() {
    let bot = start(|config, _| config.stt = Default::default()).await;
    bot.api.put_file("v", ogg(1));
    bot.api.push_update(voice_message(ALICE.id, ALICE, "v", 3, 3006));
    let shown = bot.answers(ALICE.id, 1).await;
    assert!(shown[0].contains("听不了语音") && shown[0].contains("打字"), "{}", shown[0]);
    assert!(bot.api.calls("getFile").is_empty() && bot.model.stt_requests().is_empty());
    bot.stop().await;
}

// ------------------------------------------------------------------ photos

const PHOTO_SIZES: [(&str, u32, u32); 4] =
    [("p-s", 90, 68), ("p-m", 320, 240), ("p-x", 1280, 960), ("p-w", 2560, 1920)];

/// The image parts of the user messages of a request body.
fn image_urls(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "user")
        .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
        .filter(|part| part["type"] == "image_url")
        .map(|part| part["image_url"]["url"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn with_vision_a_photo_goes_to_the_model_as_a_data_image_once() {
    let bot = start(|config, url| {
        *config = self::config(url, true);
        config.llm.vision = true;
    })
    .await;
    let chat = ALICE.id;
    let chosen = jpeg(1280, 960, 7);
    bot.api.put_file("p-x", chosen.clone());
    bot.api.put_file("p-w", jpeg(2560, 1920, 9));

    bot.api.push_update(photo_from(chat, ALICE, &PHOTO_SIZES, None));
    let shown = bot.answers(chat, 1).await;
    assert!(shown[0].contains(&fake_model::end_of("q0m0z")), "the model's answer: {}", shown[0]);
    assert_eq!(bot.api.downloads(), vec!["p-x"], "the largest size within 1280 px, and only it");

    let first = &bot.model.bodies()[0];
    let last_user = first["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "user").unwrap();
    assert_eq!(
        last_user["content"][0]["text"], "帮我在商场里找找照片里的这个东西。",
        "the default ask in Chinese"
    );
    let expected = format!("data:image/jpeg;base64,{}", mallbot::base64(&chosen));
    assert_eq!(image_urls(first), vec![expected]);
    let tools: Vec<&str> =
        first["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert!(tools.contains(&"search_products"), "the ordinary tools are offered");

    // The next turn does not send the picture again; a placeholder stands in its place.
    let before = bot.model.bodies().len();
    bot.api.push_update(private_text(ALICE, "还有别的颜色吗"));
    bot.answers(chat, 2).await;
    let later = &bot.model.bodies()[before..];
    assert!(!later.is_empty());
    for body in later {
        assert!(image_urls(body).is_empty(), "no picture in a later turn: {body}");
        assert!(!body.to_string().contains("base64"), "{body}");
        assert!(body.to_string().contains("[photo:"), "the placeholder stands in the history: {body}");
    }
    bot.assert_token_never_left();
    bot.stop().await;
}

#[tokio::test]
async fn a_captioned_photo_in_english_asks_with_its_caption() {
    let bot = start(|config, url| {
        *config = self::config(url, true);
        config.llm.vision = true;
    })
    .await;
    bot.api.put_file("p-x", jpeg(1280, 960, 3));
    bot.api.push_update(photo_from(BOB.id, BOB, &PHOTO_SIZES, Some("do you sell these shoes?")));
    bot.answers(BOB.id, 1).await;
    let first = &bot.model.bodies()[0];
    let last_user = first["messages"].as_array().unwrap().iter().rev().find(|m| m["role"] == "user").unwrap();
    assert!(
        last_user["content"][0]["text"].as_str().unwrap().starts_with("do you sell these shoes?"),
        "{last_user}"
    );
    assert_eq!(image_urls(first).len(), 1);
    bot.stop().await;
}

#[tokio::test]
async fn without_vision_the_caption_alone_goes_on_and_a_bare_photo_is_told_what_works() {
    let bot = start(|_, _| {}).await;
    let chat = ALICE.id;
    bot.api.put_file("p-x", jpeg(1280, 960, 1));

    bot.api.push_update(photo_from(chat, ALICE, &PHOTO_SIZES, None));
    let shown = bot.answers(chat, 1).await;
    assert!(shown[0].contains("看不了图片") && shown[0].contains("文字描述"), "{}", shown[0]);

    bot.api.push_update(photo_from(chat, ALICE, &PHOTO_SIZES, Some("Nike 店在哪里？")));
    let shown = bot.answers(chat, 2).await;
    assert!(
        (shown[1].contains("Nike") || shown[1].contains("耐克")) && shown[1].contains("步行"),
        "the caption is answered with directions: {}",
        shown[1]
    );
    assert!(bot.api.calls("getFile").is_empty(), "no photo fetched without vision");
    bot.stop().await;
}

// ------------------------------------------------------------------ health

#[tokio::test]
async fn the_health_check_includes_the_transcription_api_when_set() {
    let bot = start(|_, _| {}).await;
    let report = mallbot::health::collect(&bot.app).await;
    let check = report.checks.iter().find(|c| c.name == "transcription").expect("a transcription check");
    assert!(check.ok, "{check:?}");
    assert!(check.detail.contains("whisper-large-v3"), "{check:?}");
    bot.stop().await;

    let mut config = self::config("http://127.0.0.1:9/v1", false);
    let down = App::with_parts(
        config.clone(),
        Arc::new(services::EmbeddedMall::in_memory()),
        Arc::new(MemoryStore::new()),
    )
    .unwrap();
    let report = mallbot::health::collect(&down).await;
    let check = report.checks.iter().find(|c| c.name == "transcription").unwrap();
    assert!(!check.ok && check.detail.contains("unreachable"), "{check:?}");
    assert!(!report.all_ok(), "`mallbot check` fails with it");

    config.stt = Default::default();
    let off =
        App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), Arc::new(MemoryStore::new()))
            .unwrap();
    let report = mallbot::health::collect(&off).await;
    assert!(report.checks.iter().all(|c| c.name != "transcription"), "no check without [stt]");
}

// ------------------------------------------------------------------ terminal

/// Standard base64 back to bytes (padding ignored).
fn unbase64(text: &str) -> Vec<u8> {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let values: Vec<u32> = text
        .bytes()
        .filter(|b| *b != b'=')
        .map(|b| ALPHABET.iter().position(|a| *a == b).expect("base64") as u32)
        .collect();
    let mut out = Vec::new();
    for chunk in values.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, v)| n | (v << (18 - 6 * i)));
        for i in 0..chunk.len().saturating_sub(1) {
            out.push((n >> (16 - 8 * i)) as u8);
        }
    }
    out
}

fn png_of(width: u32, height: u32) -> Vec<u8> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().unwrap();
    writer.write_image_data(&vec![200u8; (width * height * 3) as usize]).unwrap();
    writer.finish().unwrap();
    bytes
}

async fn console(app: &App, script: &str) -> String {
    let mut out = Vec::new();
    mallbot::Console::new(app, 5, script.as_bytes(), &mut out, false).run().await.unwrap();
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn the_terminal_chat_tries_voice_and_photo_without_telegram() {
    let model = FakeModel::start(ModelBehaviour::default()).await;
    let mut config = config(&model.base_url, true);
    config.llm.vision = true;
    let app =
        App::with_parts(config, Arc::new(services::EmbeddedMall::in_memory()), Arc::new(MemoryStore::new()))
            .unwrap();
    let dir = std::env::temp_dir().join(format!("mallbot-voice-photo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let voice = dir.join("ask.mp3");
    std::fs::write(&voice, ogg(5)).unwrap();
    let photo = dir.join("shoes.png");
    std::fs::write(&photo, png_of(2000, 1000)).unwrap();

    let script = format!(
        "/voice {}\n/voice {}\n/photo {} do you sell these?\n/voice\n",
        voice.display(),
        dir.join("missing.ogg").display(),
        photo.display()
    );
    let out = console(&app, &script).await;
    assert!(out.contains(&format!("bot> 🎤 “{}”", fake_model::DEFAULT_TRANSCRIPT)), "what was heard:\n{out}");
    let sent = model.stt_requests();
    assert_eq!(sent.len(), 1, "{out}");
    assert_eq!((sent[0].file.clone(), sent[0].file_type.as_str()), (ogg(5), "audio/mpeg"));
    assert!(out.contains("读不了文件") && out.contains("missing.ogg"), "a missing file is named:\n{out}");
    assert!(out.contains("Usage: /voice FILE") || out.contains("用法：/voice"), "usage:\n{out}");

    let with_image: Vec<Value> = model.bodies().into_iter().filter(|b| !image_urls(b).is_empty()).collect();
    assert!(!with_image.is_empty(), "the photo went to the model:\n{out}");
    let url = image_urls(&with_image[0]).remove(0);
    let png = unbase64(url.strip_prefix("data:image/png;base64,").expect("a PNG data URL"));
    let (width, height) = (
        u32::from_be_bytes(png[16..20].try_into().unwrap()),
        u32::from_be_bytes(png[20..24].try_into().unwrap()),
    );
    assert_eq!((width, height), (1280, 640), "scaled to 1280 px on the long side");
    std::fs::remove_dir_all(&dir).ok();
}
