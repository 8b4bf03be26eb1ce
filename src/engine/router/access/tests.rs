//! The door, knock by knock: what a shopper (or staff) is let in with, or
//! turned away with and told, against the in-memory state store and the
//! embedded mall.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use handlers::{Lang, Said};

use super::super::scope::today;
use super::super::{DeskSettings, FunctionCallRouter, RouterParts, RouterSettings};
use super::{Admitted, Budget, DoorSettings, Knock, Turned, Way, Why};
use crate::engine::context::ChosenLang;
use crate::infra::state::{MemoryStore, StateStore};

const DESK: i64 = -100_777;

fn door(settings: RouterSettings) -> (FunctionCallRouter, Arc<dyn StateStore>) {
    let state: Arc<dyn StateStore> = Arc::new(MemoryStore::new());
    let mall: Arc<dyn services::MallApi> = Arc::new(services::EmbeddedMall::in_memory());
    let router = FunctionCallRouter::new(RouterParts {
        model: Arc::new(crate::engine::llm::offline::OfflinePlanner::new()),
        planner: crate::engine::llm::offline::OfflinePlanner::new(),
        chat: crate::engine::fallback::ChatFallback::new(None),
        mall,
        state: state.clone(),
        stats: Arc::default(),
        settings,
        map: None,
    });
    (router, state)
}

fn knock(user_id: i64, chat_id: i64, way: Way) -> Knock {
    Knock {
        platform: "telegram",
        user_id,
        chat_id,
        lang: Lang::En,
        chosen: ChosenLang::Unread,
        said: Said::Nothing,
        way,
    }
}

/// The door's settings, the rest the defaults.
fn with_door(door: DoorSettings) -> RouterSettings {
    RouterSettings { door, ..Default::default() }
}

fn no_limits() -> DoorSettings {
    DoorSettings { rate_limit_per_minute: 0, ..Default::default() }
}

fn messages_counted(router: &FunctionCallRouter) -> u64 {
    router.door.stats.messages_handled.load(Ordering::Relaxed)
}

async fn admitted(router: &FunctionCallRouter, knock: Knock) -> Admitted {
    match router.admit(knock).await {
        Ok(admitted) => admitted,
        Err(turned) => panic!("turned away: {turned:?} ({})", turned.message()),
    }
}

async fn turned(router: &FunctionCallRouter, knock: Knock) -> Turned {
    match router.admit(knock).await {
        Ok(admitted) => panic!("admitted: {admitted:?}"),
        Err(turned) => turned,
    }
}

#[tokio::test]
async fn with_no_lists_everyone_is_let_in_as_who_and_where_they_knocked() {
    let (door, _) = door(with_door(no_limits()));
    let admitted = admitted(&door, knock(7, 7, Way::Message)).await;
    assert_eq!((admitted.platform(), admitted.user_id(), admitted.chat_id()), ("telegram", 7, 7));
    assert_eq!((admitted.lang(), admitted.chosen()), (Lang::En, None), "the transport's language");
    assert!(!admitted.over_budget());
}

#[tokio::test]
async fn a_stranger_is_told_once_that_the_guide_is_for_invited_shoppers_then_silence() {
    let settings = DoorSettings { allowed_users: vec![7], allowed_chats: vec![-1_001_234], ..no_limits() };
    let (door, _) = door(with_door(settings));
    admitted(&door, knock(7, 7, Way::Message)).await;
    admitted(&door, knock(8, -1_001_234, Way::Message)).await; // anyone in a listed chat

    let first = turned(&door, knock(8, 8, Way::Message)).await;
    assert_eq!((first.why, first.lang, first.tell), (Why::NotAllowed, Lang::En, true));
    assert_eq!(first.message(), Lang::En.texts().turn.refused);
    assert_eq!(first.reply().text, Lang::En.texts().turn.refused, "the chat says why");
    let again = turned(&door, knock(8, 8, Way::Message)).await;
    assert!(!again.tell, "told once, then silence");
    assert!(again.reply().text.is_empty(), "an empty reply is left unsent");
    assert_eq!(again.message(), Lang::En.texts().turn.refused, "HTTP and MCP answer it every time");

    // Every way a shopper comes in passes the lists: a press, a call.
    for way in [Way::Press, Way::Call] {
        assert_eq!(turned(&door, knock(9, 9, way)).await.why, Why::NotAllowed, "{way:?}");
    }
    // A refusal is told in the shopper's language.
    let zh = Knock { lang: Lang::Zh, ..knock(10, 10, Way::Message) };
    assert_eq!(turned(&door, zh).await.message(), Lang::Zh.texts().turn.refused);
}

#[tokio::test]
async fn the_rate_limit_turns_away_messages_and_calls_over_it_telling_once_a_window_but_never_presses() {
    let (door, _) = door(with_door(DoorSettings { rate_limit_per_minute: 2, ..Default::default() }));
    admitted(&door, knock(7, 7, Way::Message)).await;
    admitted(&door, knock(7, 7, Way::Call)).await;
    let over = turned(&door, knock(7, 7, Way::Message)).await;
    assert_eq!((over.why, over.tell), (Why::SlowDown, true));
    assert_eq!(over.reply().text, Lang::En.texts().turn.rate_limited);
    let still = turned(&door, knock(7, 7, Way::Call)).await;
    assert_eq!((still.why, still.tell), (Why::SlowDown, false), "told once a window");
    assert_eq!(still.message(), Lang::En.texts().turn.rate_limited);
    // A press answers a question already counted; staff are not shoppers.
    admitted(&door, knock(7, 7, Way::Press)).await;
    // Each shopper has their own minute.
    admitted(&door, knock(8, 8, Way::Message)).await;
}

#[tokio::test]
async fn staff_are_let_in_from_the_desk_only_without_the_shoppers_lists_rate_or_count() {
    let desk = crate::engine::support::Desk::new(DESK, "", "+08:00", 0.0).unwrap();
    let settings = RouterSettings {
        door: DoorSettings { allowed_users: vec![7], rate_limit_per_minute: 1, ..Default::default() },
        desk: DeskSettings { desk: Some(desk), ..Default::default() },
        ..Default::default()
    };
    let (door, _) = door(settings);
    for _ in 0..3 {
        let staff = admitted(&door, knock(500, DESK, Way::Staff)).await;
        assert_eq!(staff.chat_id(), DESK);
    }
    assert_eq!(messages_counted(&door), 0, "staff's messages are not shoppers' messages");
    let elsewhere = turned(&door, knock(500, 500, Way::Staff)).await;
    assert_eq!((elsewhere.why, elsewhere.tell), (Why::NotAllowed, false), "turned away in silence");

    let (no_desk, _) = self::door(with_door(no_limits()));
    let turned = turned(&no_desk, knock(500, DESK, Way::Staff)).await;
    assert_eq!((turned.why, turned.tell), (Why::NotAllowed, false), "no desk: no staff");
}

#[tokio::test]
async fn only_a_chat_message_is_counted_even_one_turned_for_the_rate() {
    let (door, _) = door(with_door(DoorSettings { rate_limit_per_minute: 1, ..Default::default() }));
    admitted(&door, knock(7, 7, Way::Message)).await;
    assert_eq!(messages_counted(&door), 1);
    admitted(&door, knock(7, 7, Way::Press)).await;
    turned(&door, knock(7, 7, Way::Call)).await;
    assert_eq!(messages_counted(&door), 1, "a press and a call are not messages");
    turned(&door, knock(7, 7, Way::Message)).await;
    assert_eq!(messages_counted(&door), 2, "a message over the rate is still a message the bot received");
}

#[tokio::test]
async fn the_shoppers_lang_choice_is_read_from_the_store_unless_the_transport_read_it() {
    let (door, state) = door(with_door(no_limits()));
    let key = crate::infra::state::keys::lang("telegram", 7);
    state.put_value(&key, Lang::ZhHant.as_str(), Duration::from_secs(60)).await.unwrap();
    let read = admitted(&door, knock(7, 7, Way::Message)).await;
    assert_eq!((read.lang(), read.chosen()), (Lang::ZhHant, Some(Lang::ZhHant)));
    assert_eq!(read.lang_or(Lang::En), Lang::ZhHant, "the choice wins over a text's own language");
    // The transport read it already (no choice): the door does not read it again.
    let handed = Knock { chosen: ChosenLang::Read(None), ..knock(7, 7, Way::Message) };
    let handed = admitted(&door, handed).await;
    assert_eq!((handed.lang(), handed.chosen()), (Lang::En, None));
    assert_eq!(handed.lang_or(Lang::Zh), Lang::Zh, "no choice: the text's own language");
    // A refusal is told in the chosen language.
    let (listed, state) = self::door(with_door(DoorSettings { allowed_users: vec![1], ..no_limits() }));
    state.put_value(&key, Lang::Zh.as_str(), Duration::from_secs(60)).await.unwrap();
    assert_eq!(turned(&listed, knock(7, 7, Way::Message)).await.message(), Lang::Zh.texts().turn.refused);
}

#[tokio::test]
async fn a_spent_daily_budget_lets_the_message_in_for_basic_mode_told_until_told() {
    let (door, state) = door(with_door(DoorSettings { daily_tokens_per_user: 1_000, ..no_limits() }));
    let spent = crate::infra::state::keys::spent("telegram", 7, today());
    let keep = Duration::from_secs(86_400);
    state.add_counts(&[(&spent, "tokens", 999)], keep).await.unwrap();
    let within = admitted(&door, knock(7, 7, Way::Message)).await;
    assert_eq!(within.budget(), Budget::Within);
    state.add_counts(&[(&spent, "tokens", 1)], keep).await.unwrap();
    let spent_now = admitted(&door, knock(7, 7, Way::Message)).await;
    assert!(spent_now.over_budget(), "a voice message is then not transcribed");
    assert_eq!(spent_now.budget(), Budget::Spent { tell: true });
    state.add_counts(&[(&spent, "told", 1)], keep).await.unwrap();
    assert_eq!(admitted(&door, knock(7, 7, Way::Message)).await.budget(), Budget::Spent { tell: false });
    // Only a chat message calls the model: a call or a press is within.
    assert_eq!(admitted(&door, knock(7, 7, Way::Call)).await.budget(), Budget::Within);
    assert_eq!(admitted(&door, knock(7, 7, Way::Press)).await.budget(), Budget::Within);
    // Another shopper's day is their own.
    assert_eq!(admitted(&door, knock(8, 8, Way::Message)).await.budget(), Budget::Within);
}

/// The checks the door makes for one way in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Checks {
    /// `bot.allowed_users` / `bot.allowed_chats`: a stranger is turned away.
    allow_lists: bool,
    /// Admitted from the service desk's group only.
    desk_only: bool,
    /// `telegram.admins` is told on the [`Admitted`].
    admin: bool,
    /// `bot.rate_limit_per_minute`: over it, turned away.
    rate_limit: bool,
    /// `bot.daily_tokens_per_user`: spent, the message is let in for basic mode.
    budget: bool,
    /// Counted as a handled message (`/health`).
    count: bool,
    /// The conversation's language is read (the `/lang` choice always is).
    conversation_lang: bool,
}

impl Checks {
    /// A row of the table, in the order of its columns.
    fn row([allow_lists, desk_only, admin, rate_limit, budget, count, conversation_lang]: [bool; 7]) -> Self {
        Checks { allow_lists, desk_only, admin, rate_limit, budget, count, conversation_lang }
    }
}

/// The table: for each way in, the checks it gets, and the way of the next
/// row (the test walks the ways in this order). The `match` has no
/// wildcard: a new [`Way`] does not compile until it has its row.
#[rustfmt::skip]
fn row(way: Way) -> (Checks, Option<Way>) {
    const Y: bool = true;
    const N: bool = false;
    match way {
        //                            allow  desk  admin  rate   budget  count  conversation
        //                            lists  only         limit                 language
        Way::Message => (Checks::row([Y,     N,    Y,     Y,     Y,      Y,     Y]), Some(Way::Call)),
        Way::Call =>    (Checks::row([Y,     N,    Y,     Y,     N,      N,     Y]), Some(Way::Press)),
        Way::Press =>   (Checks::row([Y,     N,    Y,     N,     N,      N,     Y]), Some(Way::Staff)),
        Way::Staff =>   (Checks::row([N,     Y,    Y,     N,     N,      N,     N]), Some(Way::Visitor)),
        Way::Visitor => (Checks::row([N,     N,    N,     N,     N,      N,     N]), None),
    }
}

const ADMIN: i64 = 42;
const STRANGER: i64 = 99;

/// The chat a way knocks from: staff's is the desk's group.
fn chat_of(way: Way, user: i64) -> i64 {
    if way == Way::Staff { DESK } else { user }
}

/// Where every check can be seen: `ADMIN` the only allowed user and admin,
/// one request a minute, a small day's budget, the desk's group set.
fn table_door() -> (FunctionCallRouter, Arc<dyn StateStore>) {
    door(RouterSettings {
        door: DoorSettings {
            allowed_users: vec![ADMIN],
            allowed_chats: Vec::new(),
            rate_limit_per_minute: 1,
            daily_tokens_per_user: 100,
            admins: vec![ADMIN],
        },
        desk: the_desk(),
        ..Default::default()
    })
}

/// Conversation `conversation` is in Chinese.
async fn in_chinese(state: &Arc<dyn StateStore>, conversation: &str) {
    let key = crate::infra::state::keys::conversation_lang(conversation);
    state.put_value(&key, Lang::Zh.as_str(), Duration::from_secs(60)).await.unwrap();
}

fn the_desk() -> DeskSettings {
    let desk = crate::engine::support::Desk::new(DESK, "", "+08:00", 0.0).unwrap();
    DeskSettings { desk: Some(desk), ..Default::default() }
}

#[tokio::test]
async fn every_way_in_gets_exactly_the_checks_of_its_row() {
    let mut next = Some(Way::Message);
    while let Some(way) = next {
        let (want, after) = row(way);
        next = after;

        // The allow-lists: a stranger, where the way knocks from.
        let (door, _) = table_door();
        let stranger = door.admit(knock(STRANGER, chat_of(way, STRANGER), way)).await;
        assert_eq!(stranger.is_err(), want.allow_lists, "{way:?}: a stranger turned away");

        // The desk: staff elsewhere than the desk's group are turned away.
        let (door, _) = table_door();
        let elsewhere = door.admit(knock(ADMIN, -5, way)).await;
        assert_eq!(elsewhere.is_err(), want.desk_only, "{way:?}: away from the desk turned away");

        // Admin rights: told for an admin, not for another admitted person.
        let (door, _) = table_door();
        let admin = admitted(&door, knock(ADMIN, chat_of(way, ADMIN), way)).await;
        assert_eq!(admin.is_admin(), want.admin, "{way:?}: an admin is an admin");
        let (open, _) = self::door(RouterSettings {
            door: DoorSettings { admins: vec![ADMIN], ..no_limits() },
            desk: the_desk(),
            ..Default::default()
        });
        assert!(!admitted(&open, knock(7, chat_of(way, 7), way)).await.is_admin(), "{way:?}: 7 is no admin");
        let elsewhere = Knock { platform: "mcp", ..knock(ADMIN, chat_of(way, ADMIN), way) };
        assert!(!admitted(&open, elsewhere).await.is_admin(), "{way:?}: an id of another platform");

        // The rate limit: the minute's one request spent by a message, then this way.
        let (door, _) = table_door();
        admitted(&door, knock(ADMIN, ADMIN, Way::Message)).await;
        let over = door.admit(knock(ADMIN, chat_of(way, ADMIN), way)).await;
        assert_eq!(
            over.as_ref().err().map(|t| t.why),
            want.rate_limit.then_some(Why::SlowDown),
            "{way:?}: over the rate limit"
        );

        // The budget: the day's tokens spent.
        let (door, state) = table_door();
        let spent = crate::infra::state::keys::spent("telegram", ADMIN, today());
        state.add_counts(&[(&spent, "tokens", 100)], Duration::from_secs(86_400)).await.unwrap();
        let let_in = admitted(&door, knock(ADMIN, chat_of(way, ADMIN), way)).await;
        assert_eq!(let_in.over_budget(), want.budget, "{way:?}: the day's budget");

        // The count.
        let (door, _) = table_door();
        admitted(&door, knock(ADMIN, chat_of(way, ADMIN), way)).await;
        assert_eq!(messages_counted(&door), u64::from(want.count), "{way:?}: counted as a message");

        // The language: the conversation's (Chinese) over the transport's (English).
        let chat = chat_of(way, ADMIN);
        let conversation = crate::engine::context::conversation_key("telegram", chat, ADMIN);
        let (door, state) = table_door();
        in_chinese(&state, &conversation).await;
        let lang = admitted(&door, knock(ADMIN, chat, way)).await.lang();
        let expected = if want.conversation_lang { Lang::Zh } else { Lang::En };
        assert_eq!(lang, expected, "{way:?}: the conversation's language");
        // The `/lang` choice is read for every way, and wins.
        let (door, state) = table_door();
        in_chinese(&state, &conversation).await;
        let chosen = crate::infra::state::keys::lang("telegram", ADMIN);
        state.put_value(&chosen, Lang::ZhHant.as_str(), Duration::from_secs(60)).await.unwrap();
        let lang = admitted(&door, knock(ADMIN, chat, way)).await.lang();
        assert_eq!(lang, Lang::ZhHant, "{way:?}: the /lang choice");
    }
}
