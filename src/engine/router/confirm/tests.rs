//! The confirmation service, press by press: a change held for its owner,
//! the owner checked before anything else, then the expiry and the one-time
//! code, the action claimed once, a second press and someone else's — what
//! each presser is told and what the mall then holds, against the in-memory
//! state store and the embedded mall.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use handlers::{Lang, Level};
use serde_json::{Value, json};
use services::{MallApi, Product, ProductQuery, Shopper};

use super::super::scope::TurnScope;
use super::super::{DoorSettings, FunctionCallRouter, RouterParts, RouterSettings};
use super::{Carried, ConfirmSettings, HoldError, Presser, hold_refused};
use crate::engine::context::MessageContext;
use crate::engine::pending::PendingAction;
use crate::engine::reply::PressCheck;
use crate::engine::router::{Admitted, Knock, Way};
use crate::infra::state::{MemoryStore, PendingStatus, StateStore};

const OWNER: i64 = 7;
const OTHER: i64 = 8;

struct Bench {
    router: FunctionCallRouter,
    mall: Arc<dyn MallApi>,
    state: Arc<dyn StateStore>,
}

fn bench(confirm: ConfirmSettings) -> Bench {
    let state: Arc<dyn StateStore> = Arc::new(MemoryStore::new());
    let mall: Arc<dyn MallApi> = Arc::new(services::EmbeddedMall::in_memory());
    let router = FunctionCallRouter::new(RouterParts {
        model: Arc::new(crate::engine::llm::offline::OfflinePlanner::new()),
        planner: crate::engine::llm::offline::OfflinePlanner::new(),
        chat: crate::engine::fallback::ChatFallback::new(None),
        mall: mall.clone(),
        state: state.clone(),
        stats: Arc::default(),
        settings: RouterSettings {
            door: DoorSettings { rate_limit_per_minute: 0, ..Default::default() },
            confirm,
            ..Default::default()
        },
        map: None,
    });
    Bench { router, mall, state }
}

impl Bench {
    /// Through the door, as a press of `user` on `platform`.
    async fn as_(&self, platform: &'static str, user: i64) -> Admitted {
        let knock = Knock::private(platform, user, Lang::En, Way::Press);
        self.router.admit(knock).await.unwrap()
    }

    async fn press(&self, user: i64, token: &str, approve: bool, presser: Presser) -> PressCheck {
        let admitted = self.as_("telegram", user).await;
        self.router.press_as(&admitted, token, approve, presser).await
    }

    /// A shoe in size 42, and `add_to_cart`'s arguments for it.
    async fn shoe(&self) -> (Product, Value) {
        let query = ProductQuery { keyword: Some("Nike 跑鞋".into()), ..Default::default() };
        let hits = self.mall.search_products(&query).await.unwrap();
        let brief = hits.items.into_iter().find(|p| p.sizes.iter().any(|s| s == "42")).unwrap();
        let shoe = self.mall.get_product(&brief.id).await.unwrap();
        let sku = shoe.skus.iter().find(|s| s.label == "42").unwrap().sku_id.clone();
        let args = json!({ "product_id": shoe.brief.id, "sku_id": sku, "quantity": 1 });
        (shoe, args)
    }

    /// `add_to_cart` held for the owner from the Mini App; its token.
    async fn held(&self) -> (Product, String) {
        let (shoe, args) = self.shoe().await;
        let tool = self.router.find_tool("add_to_cart").unwrap();
        let hold = self.router.hold(&self.as_("telegram", OWNER).await, &tool, args).await.unwrap();
        (shoe, hold.token)
    }

    async fn cart_items(&self, user: i64) -> usize {
        self.mall.get_cart(&Shopper::new("telegram", user)).await.unwrap().items.len()
    }
}

fn accepted(check: PressCheck) -> (Box<crate::engine::pending::Claim>, String) {
    match check {
        PressCheck::Accepted { claim, outcome } => (claim, outcome),
        other => panic!("expected the press to be accepted, got {other:?}"),
    }
}

fn alert(check: &PressCheck) -> &str {
    match check {
        PressCheck::NotYours { alert }
        | PressCheck::AlreadyDone { alert }
        | PressCheck::Expired { alert }
        | PressCheck::Failed { alert } => alert,
        PressCheck::CodeRequired { message } => message,
        PressCheck::Accepted { outcome, .. } => outcome,
    }
}

#[tokio::test]
async fn a_held_change_runs_once_for_its_owner_and_a_second_press_says_what_was_done() {
    let bench = bench(ConfirmSettings::default());
    let (shoe, args) = bench.shoe().await;
    let tool = bench.router.find_tool("add_to_cart").unwrap();
    let owner = bench.as_("telegram", OWNER).await;
    let mut extra = args.clone();
    extra["note"] = json!("not a field of the tool");
    let hold = bench.router.hold(&owner, &tool, extra).await.unwrap();
    assert_eq!(hold.level, Level::Confirm);
    assert!(hold.summary.contains("42"), "the owner sees what will happen: {}", hold.summary);
    let kept = bench.state.get_pending(&hold.token).await.unwrap().unwrap();
    assert!(!kept.payload.contains("not a field"), "only the tool's own fields are kept");
    assert_eq!(bench.cart_items(OWNER).await, 0, "nothing before the press");

    let (claim, outcome) = accepted(bench.press(OWNER, &hold.token, true, Presser::Page).await);
    assert_eq!(outcome, format!("✅ {}{}", Lang::En.texts().confirm.confirmed, hold.summary));
    // Pressed again while it is being carried out: claimed once.
    let meanwhile = bench.press(OWNER, &hold.token, true, Presser::Page).await;
    assert!(matches!(meanwhile, PressCheck::AlreadyDone { .. }), "{meanwhile:?}");
    assert_eq!(alert(&meanwhile), Lang::En.texts().confirm.in_progress);

    match bench.router.carry_out(claim).await {
        Carried::Done { approved, result, .. } => {
            assert!(approved);
            assert!(matches!(result, Some(Ok(_))), "the cart change ran");
        }
        Carried::Changed { .. } => panic!("a cart change is not re-checked"),
    }
    let cart = bench.mall.get_cart(&Shopper::new("telegram", OWNER)).await.unwrap();
    assert_eq!(cart.items.len(), 1);
    assert_eq!((cart.items[0].product_id.as_str(), cart.items[0].quantity), (shoe.brief.id.as_str(), 1));

    // A press after it was done: what was done, and nothing done again.
    let after = bench.press(OWNER, &hold.token, true, Presser::Chat).await;
    assert!(matches!(after, PressCheck::AlreadyDone { .. }), "{after:?}");
    assert!(alert(&after).starts_with(Lang::En.texts().confirm.already_done_as), "{after:?}");
    assert_eq!(bench.cart_items(OWNER).await, 1, "one press, one change");
}

#[tokio::test]
async fn someone_elses_press_is_turned_first_and_leaves_the_action_to_its_owner() {
    let bench = bench(ConfirmSettings::default());
    let (_, token) = bench.held().await;
    let other = bench.press(OTHER, &token, true, Presser::Page).await;
    assert!(matches!(other, PressCheck::NotYours { .. }), "{other:?}");
    assert_eq!(alert(&other), Lang::En.texts().confirm.not_yours);
    // The same id in another namespace is another person.
    let mcp = bench.as_("mcp", OWNER).await;
    let elsewhere = bench.router.press_as(&mcp, &token, true, Presser::Client).await;
    assert!(matches!(elsewhere, PressCheck::NotYours { .. }), "{elsewhere:?}");
    let declined_by_other = bench.press(OTHER, &token, false, Presser::Chat).await;
    assert!(matches!(declined_by_other, PressCheck::NotYours { .. }), "nor can another decline it");
    assert_eq!((bench.cart_items(OWNER).await, bench.cart_items(OTHER).await), (0, 0));

    let (claim, _) = accepted(bench.press(OWNER, &token, true, Presser::Page).await);
    assert!(matches!(bench.router.carry_out(claim).await, Carried::Done { approved: true, .. }));
    assert_eq!((bench.cart_items(OWNER).await, bench.cart_items(OTHER).await), (1, 0));
}

#[tokio::test]
async fn an_expired_confirmation_is_told_as_expired_to_anyone_and_does_nothing() {
    let bench = bench(ConfirmSettings { confirm_ttl: Duration::ZERO, ..Default::default() });
    let (_, token) = bench.held().await;
    // Expired, the action is gone from the store like a token never given:
    // whose it was is not known, so it is told in both languages, to anyone.
    let expired = format!("{} / {}", Lang::Zh.texts().confirm.expired, Lang::En.texts().confirm.expired);
    for (user, presser) in [(OWNER, Presser::Page), (OWNER, Presser::Chat), (OTHER, Presser::Chat)] {
        let check = bench.press(user, &token, true, presser).await;
        assert!(matches!(check, PressCheck::Expired { .. }), "{user} {presser:?}: {check:?}");
        assert_eq!(alert(&check), expired);
    }
    assert_eq!(bench.cart_items(OWNER).await, 0, "nothing was done");
    let unknown = bench.press(OWNER, "no-such-token", true, Presser::Chat).await;
    assert_eq!(alert(&unknown), expired);
}

#[tokio::test]
async fn a_declined_press_changes_nothing_and_a_later_press_says_it_was_cancelled() {
    let bench = bench(ConfirmSettings::default());
    let (_, token) = bench.held().await;
    let (claim, outcome) = accepted(bench.press(OWNER, &token, false, Presser::Page).await);
    assert!(outcome.starts_with(&format!("❎ {}", Lang::En.texts().confirm.cancelled)), "{outcome}");
    match bench.router.carry_out(claim).await {
        Carried::Done { approved, result, action, .. } => {
            assert!(!approved && result.is_none(), "declined: the tool did not run");
            assert_eq!(action.outcome.as_deref(), Some(Lang::En.texts().confirm.outcome_cancelled));
        }
        Carried::Changed { .. } => panic!("declined"),
    }
    assert_eq!(bench.cart_items(OWNER).await, 0);
    let again = bench.press(OWNER, &token, true, Presser::Page).await;
    let told =
        format!("{}{}", Lang::En.texts().confirm.already_done_as, Lang::En.texts().confirm.outcome_cancelled);
    assert_eq!(alert(&again), told, "a press after a cancel does not run it");
    assert_eq!(bench.cart_items(OWNER).await, 0);
}

#[tokio::test]
async fn the_one_time_code_is_asked_in_the_chat_only_and_a_typed_code_carries_it_out_once() {
    let bench = bench(ConfirmSettings { critical_code: true, ..Default::default() });
    // Held from outside the chat, an order needing the code is refused, saying so.
    let order = bench.router.find_tool("create_order").unwrap();
    let owner = bench.as_("telegram", OWNER).await;
    let refused = bench.router.hold(&owner, &order, json!({ "cart_id": "c1" })).await.unwrap_err();
    assert!(matches!(refused, HoldError::CodeInChat), "{refused:?}");
    assert_eq!(hold_refused(Lang::En, &refused).text, Lang::En.texts().confirm.code_in_chat);

    // A critical change with its code, as a chat's turn holds it.
    let (_, args) = bench.shoe().await;
    let tool = bench.router.find_tool("add_to_cart").unwrap();
    let scope = TurnScope::admitted(&owner);
    let preview = bench.router.confirmations.preview(&tool, &scope, &args).await.unwrap();
    let action = PendingAction {
        platform: "telegram".into(),
        user_id: OWNER,
        chat_id: OWNER,
        is_group: false,
        lang: Lang::En,
        assistant: None,
        results: Vec::new(),
        call: crate::engine::llm::ToolCall {
            id: "call_1".into(),
            name: "add_to_cart".into(),
            arguments: args.to_string(),
        },
        arguments: args,
        level: Level::Critical,
        preview,
        code: Some("246810".into()),
        rounds_used: 0,
        basic_mode: false,
        outcome: None,
        trace: None,
    };
    let token = "coded-token";
    bench.router.confirmations.store_pending(token, &action).await.unwrap();

    let page = bench.press(OWNER, token, true, Presser::Page).await;
    assert!(matches!(page, PressCheck::CodeRequired { .. }), "{page:?}");
    assert_eq!(alert(&page), Lang::En.texts().confirm.code_in_chat, "the page cannot take the code");
    let asked = (Lang::En.texts().confirm.code_request)("246810");
    for _ in 0..2 {
        let chat = bench.press(OWNER, token, true, Presser::Chat).await;
        assert!(matches!(chat, PressCheck::CodeRequired { .. }), "{chat:?}");
        assert_eq!(alert(&chat), asked, "asked again while it waits");
    }
    let stored = bench.state.get_pending(token).await.unwrap().unwrap();
    assert_eq!(stored.status, PendingStatus::AwaitingCode);
    let other = bench.press(OTHER, token, true, Presser::Chat).await;
    assert!(matches!(other, PressCheck::NotYours { .. }), "the code is never shown to another: {other:?}");
    assert_eq!(bench.cart_items(OWNER).await, 0, "nothing before the code");

    let typed = |text: &str| MessageContext::private("telegram", OWNER, text, Lang::En);
    let wrong = bench.router.try_code(&owner, &typed("135791")).await.expect("a code-like answer");
    assert_eq!(wrong.text, Lang::En.texts().confirm.wrong_code);
    assert!(bench.router.try_code(&owner, &typed("where is the toilet")).await.is_none(), "not a code");
    let stranger = bench.as_("telegram", OTHER).await;
    let theirs = MessageContext::private("telegram", OTHER, "246810", Lang::En);
    assert!(bench.router.try_code(&stranger, &theirs).await.is_none(), "another's code is not theirs");
    assert_eq!(bench.cart_items(OWNER).await, 0);

    let done = bench.router.try_code(&owner, &typed("246810")).await.expect("the code is taken");
    assert!(done.text.starts_with(&format!("✅ {}", Lang::En.texts().confirm.confirmed)), "{}", done.text);
    assert_eq!(bench.cart_items(OWNER).await, 1);
    let twice = bench.router.try_code(&owner, &typed("246810")).await;
    assert!(twice.is_none_or(|reply| !reply.text.contains("✅")), "typed twice, carried out once");
    assert_eq!(bench.cart_items(OWNER).await, 1);
}

#[tokio::test]
async fn a_chats_question_is_answered_in_the_chat_not_from_another_way_in() {
    let bench = bench(ConfirmSettings::default());
    let (_, token) = bench.held().await;
    // The held action, as if a chat's tool loop had asked it.
    let mut stored = bench.state.get_pending(&token).await.unwrap().unwrap();
    let mut action: PendingAction = serde_json::from_str(&stored.payload).unwrap();
    action.assistant = Some(crate::engine::llm::ChatMessage::assistant("adding it"));
    stored.payload = serde_json::to_string(&action).unwrap();
    bench.state.put_pending(&stored).await.unwrap();
    for presser in [Presser::Page, Presser::Client] {
        let check = bench.press(OWNER, &token, true, presser).await;
        assert!(matches!(check, PressCheck::Expired { .. }), "{presser:?}: {check:?}");
        assert_eq!(alert(&check), Lang::En.texts().confirm.expired);
    }
    let (_, outcome) = accepted(bench.press(OWNER, &token, true, Presser::Chat).await);
    assert!(outcome.starts_with("✅"), "{outcome}");
}
