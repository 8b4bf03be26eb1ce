//! The tool loop with a scripted model over the embedded mall: model mistakes,
//! parallel calls, the round limit, timeouts, confirmations and their presses,
//! basic mode, group hand-off and conversation memory.
#![allow(clippy::unwrap_used)]

#[path = "support/scripted.rs"]
mod scripted;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use handlers::{Lang, Level};
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::{Config, ToolOverride};
use mallbot::llm::Role;
use mallbot::state::MemoryStore;
use mallbot::{ConfirmationPress, PressCheck, Reply};
use scripted::{ScriptedModel, Step, calls, text};
use services::*;

const USER: i64 = 7001;

struct Bot {
    app: App,
    model: ScriptedModel,
    mall: Arc<dyn MallApi>,
}

fn bot_with(model: ScriptedModel, mall: Arc<dyn MallApi>, tweak: impl FnOnce(&mut Config)) -> Bot {
    let mut config = Config::default();
    config.state.url = "memory://".into();
    // The scripts here play every model round; the rounds a tool's own
    // words save are tested with `direct_answers` on, below.
    config.llm.direct_answers = false;
    tweak(&mut config);
    let app = App::with_model(config, mall.clone(), Arc::new(MemoryStore::new()), Arc::new(model.clone()));
    Bot { app, model, mall }
}

fn bot(steps: Vec<Step>) -> Bot {
    bot_with(ScriptedModel::new(steps), Arc::new(EmbeddedMall::in_memory()), |_| {})
}

fn msg(text: &str) -> MessageContext {
    MessageContext::private("telegram", USER, text, Lang::Zh)
}

fn shopper() -> Shopper {
    Shopper::new("telegram", USER)
}

async fn nike_shoe(mall: &dyn MallApi) -> Product {
    let query = ProductQuery {
        keyword: Some("Nike 跑鞋".into()),
        max_price_cents: Some(50_000),
        ..Default::default()
    };
    let hits = mall.search_products(&query).await.unwrap();
    let brief =
        hits.items.into_iter().find(|p| p.sizes.iter().any(|s| s == "42")).expect("a Nike shoe in 42");
    mall.get_product(&brief.id).await.unwrap()
}

fn sku_42(product: &Product) -> String {
    product.skus.iter().find(|s| s.label == "42").unwrap().sku_id.clone()
}

async fn press(bot: &Bot, reply: &Reply, user: i64, approve: bool) -> PressCheck {
    let token = reply.confirmation.as_ref().expect("a confirmation").token.clone();
    bot.app.router.press(&ConfirmationPress { token, user_id: user, chat_id: USER, approve }).await
}

async fn approve(bot: &Bot, reply: &Reply) -> Reply {
    match press(bot, reply, USER, true).await {
        PressCheck::Accepted { claim, .. } => bot.app.router.finish(claim).await,
        other => panic!("expected the press to be accepted, got {other:?}"),
    }
}

#[tokio::test]
async fn an_unknown_tool_goes_back_to_the_model_which_recovers() {
    let bot = bot(vec![calls(&[("find_shoes", r#"{"q":"x"}"#)]), text("我换个方式找找。")]);
    let reply = bot.app.router.dispatch(&msg("找鞋")).await;
    assert_eq!(reply.text, "我换个方式找找。");
    let results = bot.model.last_tool_results();
    assert!(results[0].1.contains("no tool named `find_shoes`"), "{results:?}");
    assert!(results[0].1.contains("search_products"), "the model is told what exists");
}

#[tokio::test]
async fn broken_and_empty_arguments_are_explained_or_forgiven() {
    let bot = bot(vec![
        calls(&[("search_products", "{keyword: 'nike'"), ("view_cart", ""), ("list_orders", "null")]),
        text("ok"),
    ]);
    bot.app.router.dispatch(&msg("看看")).await;
    let results = bot.model.last_tool_results();
    assert_eq!(results.len(), 3, "one tool message per call");
    assert!(results[0].1.contains("not valid JSON"), "{}", results[0].1);
    assert!(results[1].1.contains("\"items\""), "empty arguments mean none: {}", results[1].1);
    assert!(results[2].1.contains("\"orders\""), "\"null\" arguments mean none: {}", results[2].1);
}

#[tokio::test]
async fn schema_errors_name_the_field() {
    let bot = bot(vec![calls(&[("search_products", r#"{"keyword":"鞋","max_price":"cheap"}"#)]), text("ok")]);
    bot.app.router.dispatch(&msg("便宜的鞋")).await;
    let result = &bot.model.last_tool_results()[0].1;
    assert!(result.starts_with("Error:") && result.contains("max_price"), "{result}");
}

#[tokio::test]
async fn parallel_calls_answer_in_call_order_with_matching_ids() {
    let bot = bot(vec![
        calls(&[
            ("search_stores", r#"{"keyword":"Uniqlo"}"#),
            ("search_products", r#"{"keyword":"咖啡"}"#),
            ("view_cart", "{}"),
        ]),
        text("done"),
    ]);
    bot.app.router.dispatch(&msg("逛逛")).await;
    let seen = bot.model.seen();
    let private_tools = handlers::all().iter().filter(|t| t.scope.allows(false)).count();
    assert_eq!(seen[0].tools.len(), private_tools, "every tool is offered in a private chat");
    let last = &seen.last().unwrap().messages;
    let call_msg = last.iter().rev().find(|m| !m.tool_calls.is_empty()).unwrap();
    let ids: Vec<&str> = call_msg.tool_calls.iter().map(|c| c.id.as_str()).collect();
    let results = bot.model.last_tool_results();
    let result_ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, result_ids);
    assert!(results[0].1.contains("\"stores\""));
    assert!(results[1].1.contains("\"products\""));
    assert!(results[2].1.contains("\"cart_id\""));
}

#[tokio::test]
async fn the_round_limit_ends_with_a_graceful_answer() {
    let mut model = ScriptedModel::new(vec![]);
    model.repeat = Some(("search_products", r#"{"keyword":"鞋"}"#));
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |c| c.llm.max_rounds = 4);
    let reply = bot.app.router.dispatch(&msg("随便看看")).await;
    assert!(reply.text.contains("限定步骤"), "{}", reply.text);
    assert_eq!(bot.model.seen().len(), 4, "exactly max_rounds model calls");
}

/// The embedded mall, with a cart that never answers in time (`cart_hangs`)
/// and store searches that are counted and wait until `searches_gate` has a
/// permit.
struct HeldMall {
    mall: EmbeddedMall,
    cart_hangs: bool,
    searches_gate: tokio::sync::Semaphore,
    searches: std::sync::atomic::AtomicUsize,
}

impl HeldMall {
    fn new(cart_hangs: bool, searches_open: bool) -> HeldMall {
        HeldMall {
            mall: EmbeddedMall::in_memory(),
            cart_hangs,
            searches_gate: tokio::sync::Semaphore::new(usize::from(searches_open)),
            searches: Default::default(),
        }
    }
}

#[async_trait]
impl MallApi for HeldMall {
    async fn health(&self) -> MallResult<Health> {
        self.mall.health().await
    }
    async fn search_products(&self, q: &ProductQuery) -> MallResult<Page<ProductBrief>> {
        self.mall.search_products(q).await
    }
    async fn get_product(&self, id: &str) -> MallResult<Product> {
        self.mall.get_product(id).await
    }
    async fn search_stores(&self, q: &StoreQuery) -> MallResult<Page<Store>> {
        self.searches.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        drop(self.searches_gate.acquire().await);
        self.mall.search_stores(q).await
    }
    async fn get_store(&self, id: &str) -> MallResult<Store> {
        self.mall.get_store(id).await
    }
    async fn store_promotions(&self, id: &str) -> MallResult<Page<Promotion>> {
        self.mall.store_promotions(id).await
    }
    async fn store_reviews(&self, id: &str, page: PageRequest) -> MallResult<Page<Review>> {
        self.mall.store_reviews(id, page).await
    }
    async fn list_areas(&self) -> MallResult<Page<Area>> {
        self.mall.list_areas().await
    }
    async fn get_area(&self, id: &str) -> MallResult<Area> {
        self.mall.get_area(id).await
    }
    async fn route(&self, to: &str, from: Option<String>) -> MallResult<Route> {
        self.mall.route(to, from).await
    }
    async fn get_cart(&self, s: &Shopper) -> MallResult<Cart> {
        if !self.cart_hangs {
            return self.mall.get_cart(s).await;
        }
        tokio::time::sleep(Duration::from_secs(30)).await;
        Err(ServiceError::Unavailable { message: "slow".into() })
    }
    async fn add_cart_item(
        &self,
        s: &Shopper,
        i: &AddCartItem,
        k: Option<IdempotencyKey>,
    ) -> MallResult<Cart> {
        self.mall.add_cart_item(s, i, k).await
    }
    async fn remove_cart_item(&self, s: &Shopper, i: &str, k: Option<IdempotencyKey>) -> MallResult<Cart> {
        self.mall.remove_cart_item(s, i, k).await
    }
    async fn clear_cart(&self, s: &Shopper, k: Option<IdempotencyKey>) -> MallResult<Cart> {
        self.mall.clear_cart(s, k).await
    }
    async fn create_order(
        &self,
        s: &Shopper,
        o: &CreateOrder,
        k: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        self.mall.create_order(s, o, k).await
    }
    async fn list_orders(&self, s: &Shopper, p: PageRequest) -> MallResult<Page<Order>> {
        self.mall.list_orders(s, p).await
    }
    async fn get_order(&self, s: &Shopper, id: &str) -> MallResult<Order> {
        self.mall.get_order(s, id).await
    }
    async fn cancel_order(&self, s: &Shopper, id: &str, k: Option<IdempotencyKey>) -> MallResult<Order> {
        self.mall.cancel_order(s, id, k).await
    }
    async fn pay_order(
        &self,
        s: &Shopper,
        id: &str,
        p: &RecordPayment,
        k: Option<IdempotencyKey>,
    ) -> MallResult<Order> {
        self.mall.pay_order(s, id, p, k).await
    }
    async fn events(&self, after: Option<String>, limit: u32) -> MallResult<EventPage> {
        self.mall.events(after, limit).await
    }
    async fn mark_ready(&self, id: &str) -> MallResult<Order> {
        self.mall.mark_ready(id).await
    }
    async fn mark_picked_up(&self, id: &str) -> MallResult<Order> {
        self.mall.mark_picked_up(id).await
    }
}

#[tokio::test]
async fn a_tool_that_times_out_gives_the_model_a_safe_sentence() {
    let model =
        ScriptedModel::new(vec![calls(&[("view_cart", "{}")]), text("购物车暂时打不开，请稍后再试。")]);
    let bot = bot_with(model, Arc::new(HeldMall::new(true, true)), |c| c.llm.tool_timeout_secs = 1);
    let reply = bot.app.router.dispatch(&msg("看看购物车")).await;
    assert_eq!(reply.text, "购物车暂时打不开，请稍后再试。");
    let result = &bot.model.last_tool_results()[0].1;
    assert!(result.contains("did not answer in time"), "{result}");
    assert!(!result.contains("slow"), "no internal detail leaks to the model");
}

#[tokio::test]
async fn add_to_cart_waits_for_the_shopper_and_runs_once_approved() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let shoe = nike_shoe(mall.as_ref()).await;
    let args = format!(r#"{{"product_id":"{}","quantity":1,"sku_id":"{}"}}"#, shoe.brief.id, sku_42(&shoe));
    let model = ScriptedModel::new(vec![calls(&[("add_to_cart", &args)]), text("已加入购物车。")]);
    let bot = bot_with(model, mall, |_| {});
    let reply = bot.app.router.dispatch(&msg("42码")).await;
    let prompt = reply.confirmation.clone().expect("a confirmation");
    assert_eq!(prompt.level, Level::Confirm);
    assert!(reply.text.contains(&shoe.brief.name) && reply.text.contains("42"), "{}", reply.text);
    assert!(bot.mall.get_cart(&shopper()).await.unwrap().items.is_empty(), "nothing before the press");

    let follow_up = approve(&bot, &reply).await;
    assert_eq!(follow_up.text, "已加入购物车。");
    let usage = bot.app.router.conversation_usage(&msg("")).await;
    assert_eq!(usage.prompt_tokens, 20, "two model calls of 10 tokens each, kept per conversation");
    let cart = bot.mall.get_cart(&shopper()).await.unwrap();
    assert_eq!(cart.items.len(), 1);
    assert_eq!(cart.items[0].sku_label.as_deref(), Some("42"));
    assert!(bot.model.last_tool_results()[0].1.contains("\"cart_id\""), "the model sees the new cart");
}

#[tokio::test]
async fn a_declined_confirmation_changes_nothing_and_tells_the_model() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let shoe = nike_shoe(mall.as_ref()).await;
    let args = format!(r#"{{"product_id":"{}","quantity":1,"sku_id":"{}"}}"#, shoe.brief.id, sku_42(&shoe));
    let model = ScriptedModel::new(vec![calls(&[("add_to_cart", &args)]), text("好的，不加了。")]);
    let bot = bot_with(model, mall, |_| {});
    let reply = bot.app.router.dispatch(&msg("42码")).await;
    let follow_up = match press(&bot, &reply, USER, false).await {
        PressCheck::Accepted { claim, outcome } => {
            assert!(outcome.contains("已取消"), "{outcome}");
            bot.app.router.finish(claim).await
        }
        other => panic!("{other:?}"),
    };
    assert_eq!(follow_up.text, "好的，不加了。");
    assert!(bot.model.last_tool_results()[0].1.contains("declined"));
    assert!(bot.mall.get_cart(&shopper()).await.unwrap().items.is_empty());
}

#[tokio::test]
async fn presses_by_others_twice_or_too_late_do_no_harm() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let shoe = nike_shoe(mall.as_ref()).await;
    let args = format!(r#"{{"product_id":"{}","quantity":1,"sku_id":"{}"}}"#, shoe.brief.id, sku_42(&shoe));
    let model = ScriptedModel::new(vec![
        calls(&[("add_to_cart", &args)]),
        text("ok"),
        calls(&[("add_to_cart", &args)]),
    ]);
    let bot = bot_with(model, mall, |c| c.safety.confirm_ttl_secs = 1);
    let reply = bot.app.router.dispatch(&msg("42码")).await;

    assert!(matches!(press(&bot, &reply, 999, true).await, PressCheck::NotYours { .. }));
    assert!(bot.mall.get_cart(&shopper()).await.unwrap().items.is_empty(), "a stranger's press does nothing");
    approve(&bot, &reply).await;
    match press(&bot, &reply, USER, true).await {
        PressCheck::AlreadyDone { alert } => assert!(alert.contains("已经处理过"), "{alert}"),
        other => panic!("{other:?}"),
    }
    assert_eq!(bot.mall.get_cart(&shopper()).await.unwrap().items[0].quantity, 1, "one add only");

    let late = bot.app.router.dispatch(&msg("再来一双")).await;
    // Its one second runs out on the mall's clock, moved on rather than waited for.
    services::clock::advance(Duration::from_secs(3));
    // An expired action is not read back, so its language is unknown: both.
    let both = "这个确认已过期，请重新提问。 / This confirmation has expired — please ask again.";
    match press(&bot, &late, USER, true).await {
        PressCheck::Expired { alert } => assert_eq!(alert, both),
        other => panic!("{other:?}"),
    }
    assert_eq!(bot.mall.get_cart(&shopper()).await.unwrap().items[0].quantity, 1);
    let unknown =
        ConfirmationPress { token: "no-such-token".into(), user_id: USER, chat_id: USER, approve: true };
    match bot.app.router.press(&unknown).await {
        PressCheck::Expired { alert } => assert_eq!(alert, both),
        other => panic!("{other:?}"),
    }
}

async fn cart_with_shoe(mall: &Arc<dyn MallApi>) -> (Product, Cart) {
    let shoe = nike_shoe(mall.as_ref()).await;
    let item = AddCartItem { product_id: shoe.brief.id.clone(), sku_id: Some(sku_42(&shoe)), quantity: 1 };
    let cart = mall.add_cart_item(&shopper(), &item, None).await.unwrap();
    (shoe, cart)
}

#[tokio::test]
async fn an_order_shows_everything_and_is_created_once() {
    let embedded = Arc::new(EmbeddedMall::in_memory());
    let mall: Arc<dyn MallApi> = embedded.clone();
    let (shoe, cart) = cart_with_shoe(&mall).await;
    let args = format!(r#"{{"cart_id":"{}"}}"#, cart.cart_id);
    let model = ScriptedModel::new(vec![calls(&[("create_order", &args)]), text("下单成功。")]);
    let bot = bot_with(model, mall, |_| {});
    let reply = bot.app.router.dispatch(&msg("下单")).await;
    let prompt = reply.confirmation.clone().unwrap();
    assert_eq!(prompt.level, Level::Critical);
    assert!(prompt.summary.contains(&shoe.brief.name), "{}", prompt.summary);
    assert!(prompt.summary.contains(&format_yuan(cart.total_cents)), "{}", prompt.summary);

    // Two presses at once: one order.
    let (a, b) = tokio::join!(press(&bot, &reply, USER, true), press(&bot, &reply, USER, true));
    let claims: Vec<_> = [a, b]
        .into_iter()
        .filter_map(|p| match p {
            PressCheck::Accepted { claim, .. } => Some(claim),
            _ => None,
        })
        .collect();
    assert_eq!(claims.len(), 1, "only one press wins the claim");
    let follow_up = bot.app.router.finish(claims.into_iter().next().unwrap()).await;
    assert_eq!(
        follow_up.text, "下单成功。\n\n请到取货门店付款取货。",
        "the model's answer, then how the order is paid (no provider token: at the store)"
    );
    let orders = bot.mall.list_orders(&shopper(), PageRequest::default()).await.unwrap();
    assert_eq!(orders.total, 1);
    assert_eq!(follow_up.invoice.as_deref(), Some(orders.items[0].order_id.as_str()), "the order to invoice");
    assert_eq!(orders.items[0].status, OrderStatus::PendingPayment);
    let audit = bot.app.state.recent_audit(5).await.unwrap();
    assert_eq!(audit[0].tool, "create_order");
    assert_eq!(audit[0].decision, "approved");

    // The same button pressed again says what was done, with the order's id.
    match press(&bot, &reply, USER, true).await {
        PressCheck::AlreadyDone { alert } => {
            assert_eq!(alert, format!("已经处理过了：订单 {}", orders.items[0].order_id))
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn tools_report_their_status_line_before_they_run() {
    use mallbot::{Progress, TurnEvent};
    let args = r#"{"keyword":"跑鞋","max_price":500}"#;
    let model = ScriptedModel::new(vec![calls(&[("search_products", args)]), text("找到了几双。")]);
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |_| {});
    let (progress, mut events) = Progress::channel();
    let reply = bot.app.router.dispatch_live(&msg("500 以内的跑鞋"), &progress).await;
    assert_eq!(reply.text, "找到了几双。");
    let expected = handlers::find("search_products")
        .unwrap()
        .progress_line(Lang::Zh, &serde_json::from_str(args).unwrap());
    assert_eq!(events.try_recv().ok(), Some(TurnEvent::Working(vec![expected])));
    assert!(events.try_recv().is_err(), "one status per round, nothing else from a scripted model");
}

/// A model that answers `answer <n>` for its n-th call, the first one slowly,
/// and records what each call saw.
#[derive(Clone, Default)]
struct SlowFirstModel {
    calls: Arc<std::sync::Mutex<Vec<Vec<mallbot::llm::ChatMessage>>>>,
    first_delay: Duration,
}

#[async_trait]
impl mallbot::llm::ChatModel for SlowFirstModel {
    fn describe(&self) -> String {
        "slow-first".into()
    }

    async fn complete(
        &self,
        request: mallbot::llm::ChatRequest<'_>,
    ) -> Result<mallbot::llm::ChatResponse, mallbot::llm::LlmError> {
        let n = {
            let mut calls = self.calls.lock().unwrap();
            calls.push(request.messages.to_vec());
            calls.len()
        };
        if n == 1 {
            tokio::time::sleep(self.first_delay).await;
        }
        Ok(mallbot::llm::ChatResponse {
            message: mallbot::llm::ChatMessage::assistant(format!("answer {n}")),
            finish_reason: None,
            usage: Default::default(),
        })
    }
}

#[tokio::test]
async fn a_turn_longer_than_the_lock_ttl_keeps_its_conversation_across_instances() {
    use mallbot::{FunctionCallRouter, RouterParts};
    let state: Arc<dyn mallbot::state::StateStore> = Arc::new(MemoryStore::new());
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let model = SlowFirstModel { first_delay: Duration::from_millis(1500), ..Default::default() };
    // Two instances sharing the state store; a lock TTL far below the first turn's length.
    let instance = || {
        let settings = mallbot::RouterSettings {
            door: mallbot::DoorSettings { rate_limit_per_minute: 0, ..Default::default() },
            turn: mallbot::TurnSettings { lock_ttl: Duration::from_millis(300), ..Default::default() },
            ..Default::default()
        };
        Arc::new(FunctionCallRouter::new(RouterParts {
            model: Arc::new(model.clone()),
            planner: mallbot::llm::OfflinePlanner::new(),
            chat: mallbot::ChatFallback::new(None),
            mall: mall.clone(),
            state: state.clone(),
            stats: Arc::new(mallbot::Stats::default()),
            settings,
            map: None,
        }))
    };
    let (a, b) = (instance(), instance());
    let first = tokio::spawn(async move { a.dispatch(&msg("first question")).await });
    while model.calls.lock().unwrap().is_empty() {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let second = b.dispatch(&msg("second question")).await;
    assert_eq!(first.await.unwrap().text, "answer 1");
    assert_eq!(second.text, "answer 2");
    let calls = model.calls.lock().unwrap();
    let seen: Vec<&str> = calls[1].iter().map(|m| m.text()).collect();
    assert!(
        seen.contains(&"first question") && seen.contains(&"answer 1"),
        "the second turn waited for the first one's answer: {seen:?}"
    );
}

#[tokio::test]
async fn a_price_change_before_the_press_asks_again_with_the_new_total() {
    let embedded = Arc::new(EmbeddedMall::in_memory());
    let mall: Arc<dyn MallApi> = embedded.clone();
    let (shoe, cart) = cart_with_shoe(&mall).await;
    let args = format!(r#"{{"cart_id":"{}"}}"#, cart.cart_id);
    let model = ScriptedModel::new(vec![calls(&[("create_order", &args)]), text("下单成功。")]);
    let bot = bot_with(model, mall, |_| {});
    let reply = bot.app.router.dispatch(&msg("下单")).await;
    embedded.set_sku_price(&sku_42(&shoe), 88_800).unwrap();
    let again = approve(&bot, &reply).await;
    let prompt = again.confirmation.clone().expect("a new confirmation");
    assert!(again.text.contains("有变化"), "{}", again.text);
    assert!(prompt.summary.contains("888"), "{}", prompt.summary);
    assert_eq!(bot.mall.list_orders(&shopper(), PageRequest::default()).await.unwrap().total, 0);
    approve(&bot, &again).await;
    let orders = bot.mall.list_orders(&shopper(), PageRequest::default()).await.unwrap();
    assert_eq!(orders.total, 1);
    assert_eq!(orders.items[0].total_cents, 88_800);
}

#[tokio::test]
async fn with_critical_code_the_order_needs_the_typed_code() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let (_, cart) = cart_with_shoe(&mall).await;
    let args = format!(r#"{{"cart_id":"{}"}}"#, cart.cart_id);
    let model = ScriptedModel::new(vec![calls(&[("create_order", &args)]), text("下单成功。")]);
    let bot = bot_with(model, mall, |c| c.safety.critical_code = true);
    let reply = bot.app.router.dispatch(&msg("下单")).await;
    assert!(reply.confirmation.as_ref().unwrap().needs_code);
    let message = match press(&bot, &reply, USER, true).await {
        PressCheck::CodeRequired { message } => message,
        other => panic!("{other:?}"),
    };
    let code: String = message.chars().filter(char::is_ascii_digit).collect();
    assert_eq!(code.len(), 6, "{message}");
    let wrong = bot.app.router.dispatch(&msg("000000")).await;
    if code != "000000" {
        assert!(wrong.text.contains("不正确"), "{}", wrong.text);
    }
    assert_eq!(bot.mall.list_orders(&shopper(), PageRequest::default()).await.unwrap().total, 0);
    let done = bot.app.router.dispatch(&msg(&code)).await;
    assert!(done.text.contains("下单成功"), "{}", done.text);
    assert_eq!(bot.mall.list_orders(&shopper(), PageRequest::default()).await.unwrap().total, 1);
}

#[tokio::test]
async fn an_operator_can_make_add_to_cart_safe() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let shoe = nike_shoe(mall.as_ref()).await;
    let args = format!(r#"{{"product_id":"{}","quantity":2,"sku_id":"42"}}"#, shoe.brief.id);
    let model = ScriptedModel::new(vec![calls(&[("add_to_cart", &args)]), text("加好了")]);
    let bot = bot_with(model, mall, |c| {
        c.tools.insert("add_to_cart".into(), ToolOverride { level: Level::Safe });
    });
    let reply = bot.app.router.dispatch(&msg("要两双")).await;
    assert!(reply.confirmation.is_none());
    assert_eq!(bot.mall.get_cart(&shopper()).await.unwrap().items[0].quantity, 2);
}

#[tokio::test]
async fn an_unreachable_model_falls_back_to_basic_mode() {
    let bot = bot(vec![Step::Down]);
    let reply = bot.app.router.dispatch(&msg("优衣库在哪")).await;
    assert!(reply.text.contains("基础模式"), "{}", reply.text);
    assert!(reply.text.contains("优衣库") || reply.text.contains("Uniqlo"), "{}", reply.text);
}

#[tokio::test]
async fn small_talk_goes_to_the_chat_fallback() {
    let bot = bot(vec![text("")]);
    let reply = bot.app.router.dispatch(&msg("你好")).await;
    assert!(reply.text.contains("导购"), "{}", reply.text);
    assert!(!reply.suggestions.is_empty());
}

#[tokio::test]
async fn cart_requests_in_a_group_move_to_the_private_chat() {
    let bot = bot(vec![calls(&[("view_cart", "{}")])]);
    let mut ctx = msg("看看我的购物车");
    ctx.is_group = true;
    ctx.chat_id = -100_123;
    let reply = bot.app.router.dispatch(&ctx).await;
    assert_eq!(reply.open_private.as_deref(), Some("看看我的购物车"));
    assert!(reply.text.contains("私聊"), "{}", reply.text);
}

#[tokio::test]
async fn memory_is_per_conversation_bounded_and_keeps_calls_with_results() {
    let mut model = ScriptedModel::new(vec![]);
    for i in 0..6 {
        model.push(calls(&[("view_cart", "{}")]));
        model.push(text(&format!("answer {i}")));
    }
    model.repeat = None;
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |c| c.bot.history_messages = 6);
    for i in 0..6 {
        bot.app.router.dispatch(&msg(&format!("question {i}"))).await;
    }
    let history = bot.app.state.load_history(&msg("").conversation_key()).await.unwrap();
    assert!(history.len() <= 6, "{}", history.len());
    assert_eq!(history[0].role, Role::User);
    assert_eq!(history.last().unwrap().text(), "answer 5");
    let other_key = MessageContext::private("telegram", 1, "", Lang::Zh).conversation_key();
    let other = bot.app.state.load_history(&other_key).await.unwrap();
    assert!(other.is_empty(), "another shopper's memory is separate");
}

#[tokio::test]
async fn a_shopper_over_the_rate_limit_gets_a_friendly_notice() {
    let mut model = ScriptedModel::new(vec![]);
    for _ in 0..3 {
        model.push(text("ok"));
    }
    model.repeat = None;
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |c| c.bot.rate_limit_per_minute = 2);
    assert_eq!(bot.app.router.dispatch(&msg("一")).await.text, "ok");
    assert_eq!(bot.app.router.dispatch(&msg("二")).await.text, "ok");
    let third = bot.app.router.dispatch(&msg("三")).await;
    assert!(third.text.contains("稍等一分钟"), "{}", third.text);
    assert_eq!(bot.model.seen().len(), 2, "the model is not called past the limit");
}

#[tokio::test]
async fn cart_and_orders_commands_answer_without_the_model() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let (shoe, cart) = cart_with_shoe(&mall).await;
    let bot = bot_with(ScriptedModel::new(vec![]), mall, |_| {});
    let shown = bot.app.router.show_cart(&msg("/cart")).await;
    let english = shoe.brief.name_en.as_deref().expect("the demo mall names it in English");
    assert!(shown.text.contains(english), "/cart reads English: {}", shown.text);
    assert!(shown.text.contains(&format!("¥{}", format_yuan(cart.total_cents))), "{}", shown.text);
    let orders = bot.app.router.show_orders(&msg("/orders")).await;
    assert!(!orders.text.contains("o-"), "no orders yet: {}", orders.text);
    assert!(bot.model.seen().is_empty(), "the model was not asked");
}

fn hits(bot: &Bot) -> u64 {
    bot.app.stats.tool_cache_hits.load(std::sync::atomic::Ordering::Relaxed)
}

#[tokio::test]
async fn a_repeated_search_comes_from_the_cache_until_its_ttl_and_carts_never_do() {
    let search = r#"{"keyword":"跑鞋","max_price":500}"#;
    let respaced = r#"{"max_price":500,"keyword":"  跑鞋 "}"#;
    let model = ScriptedModel::new(vec![
        calls(&[("search_products", search)]),
        text("a"),
        calls(&[("search_products", respaced)]),
        text("b"),
        calls(&[("view_cart", "{}")]),
        text("c"),
        calls(&[("view_cart", "{}")]),
        text("d"),
    ]);
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |c| c.bot.tool_cache_secs = 1);
    bot.app.router.dispatch(&msg("跑鞋")).await;
    let first = bot.model.last_tool_results()[0].1.clone();
    bot.app.router.dispatch(&msg("再找一次跑鞋")).await;
    assert_eq!(hits(&bot), 1, "the same search, written differently, came from the cache");
    assert_eq!(bot.model.last_tool_results()[0].1, first, "the model sees the same result");

    bot.app.router.dispatch(&msg("购物车")).await;
    bot.app.router.dispatch(&msg("购物车")).await;
    assert_eq!(hits(&bot), 1, "the cart is the shopper's own: never cached");

    // After the TTL the mall is asked again.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    bot.model.push(calls(&[("search_products", search)]));
    bot.model.push(text("e"));
    bot.app.router.dispatch(&msg("跑鞋")).await;
    assert_eq!(hits(&bot), 1, "an expired result is not reused");
}

#[tokio::test]
async fn shoppers_asking_the_same_way_at_once_share_one_call_to_the_mall() {
    const SHOPPERS: usize = 8;
    let mut steps: Vec<Step> =
        (0..SHOPPERS).map(|_| calls(&[("navigate_to_store", r#"{"store_name":"Nike"}"#)])).collect();
    steps.extend((0..SHOPPERS).map(|_| text("Nike 在一楼")));
    let mall = Arc::new(HeldMall::new(false, false));
    let bot = bot_with(ScriptedModel::new(steps), mall.clone(), |c| c.bot.tool_cache_secs = 30);
    let asks: Vec<MessageContext> = (0..SHOPPERS)
        .map(|i| MessageContext::private("telegram", 9000 + i as i64, "Nike 店在哪", Lang::Zh))
        .collect();
    let turns = futures::future::join_all(asks.iter().map(|ctx| bot.app.router.dispatch(ctx)));
    // Every shopper's round is asked for before the mall's first answer comes back.
    let opening = async {
        while bot.model.seen().len() < SHOPPERS {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        mall.searches_gate.add_permits(1);
    };
    let (replies, ()) = tokio::join!(turns, opening);
    assert!(replies.iter().all(|reply| reply.text == "Nike 在一楼"), "{replies:?}");
    assert_eq!(mall.searches.load(std::sync::atomic::Ordering::SeqCst), 1, "the mall was asked once");
    assert_eq!(hits(&bot), SHOPPERS as u64 - 1, "the others had its result");
    let results: Vec<String> = bot.model.seen()[SHOPPERS..]
        .iter()
        .map(|seen| seen.messages.last().expect("the tool's result").text().to_owned())
        .collect();
    assert!(results.iter().all(|r| r == &results[0] && r.contains("Nike")), "{results:?}");
}

#[tokio::test]
async fn every_request_starts_with_the_same_prefix_whatever_the_conversation_or_language() {
    let model = ScriptedModel::new(vec![text("你好"), text("hello")]);
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |_| {});
    bot.app.router.dispatch(&MessageContext::private("telegram", 1, "耐克店在哪", Lang::Zh)).await;
    bot.app.router.dispatch(&MessageContext::private("telegram", 2, "where is nike", Lang::En)).await;
    let seen = bot.model.seen();
    assert_eq!(seen[0].messages[0], seen[1].messages[0], "one system prompt, byte for byte");
    assert_eq!(seen[0].tools, seen[1].tools, "the same tools in the same order");
    assert_eq!(seen[0].messages[1].text(), "耐克店在哪");
    assert_eq!(seen[1].messages[1].text(), "where is nike");
}

#[tokio::test]
async fn over_the_daily_token_budget_the_shopper_is_told_once_and_served_in_basic_mode() {
    // Each scripted model call uses 10 tokens in and 5 out: a two-call turn spends 30.
    let model =
        ScriptedModel::new(vec![calls(&[("search_products", r#"{"keyword":"跑鞋"}"#)]), text("找到了。")]);
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |c| {
        c.bot.daily_tokens_per_user = 30;
        c.bot.rate_limit_per_minute = 0;
    });
    assert_eq!(bot.app.router.dispatch(&msg("跑鞋")).await.text, "找到了。");
    let calls_before = bot.model.seen().len();

    let told = bot.app.router.dispatch(&msg("Nike 店在哪")).await;
    assert!(told.text.contains("额度已用完"), "told once: {}", told.text);
    assert!(told.text.contains("Nike"), "and still answered, by the offline planner: {}", told.text);
    let again = bot.app.router.dispatch(&msg("Nike 店在哪")).await;
    assert!(!again.text.contains("额度已用完"), "not told twice: {}", again.text);
    assert!(again.text.contains("Nike"), "{}", again.text);
    assert_eq!(bot.model.seen().len(), calls_before, "the model was not called over budget");

    let stats = bot.app.router.day_stats(Lang::En).await;
    assert!(stats.contains("messages: 3"), "{stats}");
    assert!(stats.contains("shoppers: 1"), "{stats}");
    assert!(stats.contains("model tokens: 20 in (0 cached), 10 out"), "{stats}");
    assert!(stats.contains("search_products"), "top tools: {stats}");
}

#[tokio::test]
async fn strangers_are_refused_once_then_ignored() {
    use mallbot::ChosenLang;
    use mallbot::{Knock, Way, Why};
    let bot = bot_with(ScriptedModel::new(vec![]), Arc::new(EmbeddedMall::in_memory()), |c| {
        c.bot.allowed_chats = vec![-100];
    });
    let router = &bot.app.router;
    let knock = |chat: i64, lang: Lang| Knock {
        platform: "telegram",
        user_id: 5,
        chat_id: chat,
        lang,
        chosen: ChosenLang::Read(None),
        said: handlers::Said::Nothing,
        way: Way::Message,
    };
    assert!(router.admit(knock(-100, Lang::Zh)).await.is_ok(), "anyone in a listed chat");
    let first = router.admit(knock(5, Lang::En)).await.unwrap_err();
    assert_eq!(first.why, Why::NotAllowed);
    assert!(first.tell && first.reply().text.contains("invited"), "{first:?}");
    let again = router.admit(knock(5, Lang::En)).await.unwrap_err();
    assert!(!again.tell && again.reply().text.is_empty(), "told once: {again:?}");
}

#[tokio::test]
async fn a_round_of_tools_is_reported_before_the_tools_run_one_line_per_call() {
    let bot = bot(vec![
        calls(&[("search_products", r#"{"keyword":"跑鞋"}"#), ("view_cart", "{}"), ("find_shoes", "{}")]),
        text("找到了。"),
    ]);
    let (progress, mut events) = mallbot::Progress::channel();
    let reply = bot.app.router.dispatch_live(&msg("找鞋"), &progress).await;
    drop(progress);
    assert_eq!(reply.text, "找到了。");
    let mut seen = Vec::new();
    while let Some(event) = events.recv().await {
        seen.push(event);
    }
    match seen.as_slice() {
        [mallbot::TurnEvent::Working(lines)] => {
            assert_eq!(lines.len(), 2, "one line per call that runs (not the unknown tool): {lines:?}");
            assert!(lines.iter().all(|l| !l.is_empty()));
        }
        other => panic!("one Working event expected, got {other:?}"),
    }
}

/// A bot whose tools' own words may end a turn (`llm.direct_answers`, the default).
fn direct_bot(steps: Vec<Step>) -> Bot {
    bot_with(ScriptedModel::new(steps), Arc::new(EmbeddedMall::in_memory()), |config| {
        config.llm.direct_answers = true;
    })
}

#[tokio::test]
async fn where_is_a_store_takes_one_model_round_and_answers_with_the_route_and_its_floor_plans() {
    let bot = direct_bot(vec![calls(&[("navigate_to_store", r#"{"store_name":"Nike"}"#)])]);
    let reply = bot.app.router.dispatch(&msg("Nike 店在哪")).await;
    assert_eq!(bot.model.seen().len(), 1, "one model round: {}", reply.text);
    assert!(reply.text.contains("耐克") && reply.text.contains("3F"), "the route in words: {}", reply.text);
    assert!(!reply.pictures.is_empty(), "with its floor plans");

    // The turn is remembered as usual: the next request carries the call,
    // its result and the answer given, after the same system prompt.
    bot.model.push(text("不客气！"));
    bot.app.router.dispatch(&msg("谢谢")).await;
    let seen = bot.model.seen();
    let next = &seen[1].messages;
    assert_eq!(next[0].text(), seen[0].messages[0].text(), "the same system prompt");
    assert!(next.iter().any(|m| m.tool_calls.iter().any(|c| c.name == "navigate_to_store")));
    assert!(next.iter().any(|m| m.role == Role::Assistant && m.text() == reply.text), "the answer shown");
}

#[tokio::test]
async fn where_is_a_store_in_english_is_answered_in_english() {
    let bot = direct_bot(vec![calls(&[("navigate_to_store", r#"{"store_name":"Nike"}"#)])]);
    let reply =
        bot.app.router.dispatch(&MessageContext::private("telegram", USER, "where is Nike?", Lang::En)).await;
    assert_eq!(bot.model.seen().len(), 1);
    assert!(reply.text.contains("Nike") && reply.text.contains("3F"), "{}", reply.text);
    assert!(
        !reply.text.chars().any(|c| ('\u{4e00}'..='\u{9fff}').contains(&c)),
        "English only: {}",
        reply.text
    );
}

#[tokio::test]
async fn a_question_the_route_does_not_cover_still_gets_the_models_words() {
    let bot = direct_bot(vec![
        calls(&[("navigate_to_store", r#"{"store_name":"Nike"}"#)]),
        text("耐克在 3F，营业到 22:00，本周跑鞋满 500 减 50。"),
    ]);
    let reply = bot.app.router.dispatch(&msg("Nike 店在哪，几点关门，有什么优惠")).await;
    assert_eq!(bot.model.seen().len(), 2, "the model words what the route did not say");
    assert_eq!(reply.text, "耐克在 3F，营业到 22:00，本周跑鞋满 500 减 50。");
}

#[tokio::test]
async fn a_search_is_worded_by_the_model_and_direct_answers_can_be_turned_off() {
    let searching = direct_bot(vec![
        calls(&[("search_products", r#"{"keyword":"跑鞋","brand":"Nike"}"#)]),
        text("推荐这双。"),
    ]);
    assert_eq!(searching.app.router.dispatch(&msg("有什么 Nike 跑鞋")).await.text, "推荐这双。");
    assert_eq!(searching.model.seen().len(), 2, "results to compare: the model speaks");

    let off = bot(vec![calls(&[("navigate_to_store", r#"{"store_name":"Nike"}"#)]), text("在三楼。")]);
    assert_eq!(off.app.router.dispatch(&msg("Nike 店在哪")).await.text, "在三楼。");
    assert_eq!(off.model.seen().len(), 2, "llm.direct_answers = false: the model words every answer");
}

#[tokio::test]
async fn a_confirmed_cart_change_is_answered_in_the_tools_words_without_another_round() {
    let mall: Arc<dyn MallApi> = Arc::new(EmbeddedMall::in_memory());
    let shoe = nike_shoe(mall.as_ref()).await;
    let args = format!(r#"{{"product_id":"{}","quantity":1,"sku_id":"{}"}}"#, shoe.brief.id, sku_42(&shoe));
    let model = ScriptedModel::new(vec![calls(&[("add_to_cart", &args)])]);
    let bot = bot_with(model, mall, |config| config.llm.direct_answers = true);
    let reply = bot.app.router.dispatch(&msg("42码")).await;
    let done = approve(&bot, &reply).await;
    assert_eq!(bot.model.seen().len(), 1, "no round after the press: {}", done.text);
    assert!(done.text.contains("购物车"), "the cart in the tool's words: {}", done.text);
    assert_eq!(bot.mall.get_cart(&shopper()).await.unwrap().items.len(), 1);
}

#[tokio::test]
async fn a_message_that_says_no_language_keeps_the_conversations_and_the_model_is_told_which() {
    let mut model = ScriptedModel::new(vec![]);
    for answer in ["好的", "好的", "ok", "ok"] {
        model.push(text(answer));
    }
    model.repeat = None;
    let bot = bot_with(model, Arc::new(EmbeddedMall::in_memory()), |_| {});
    let router = &bot.app.router;
    // The transport would answer "M" in English (a Telegram language of `en`).
    let english_phone = |text: &str| MessageContext::private("telegram", USER, text, Lang::En);
    router.dispatch(&english_phone("帮我找一件 T 恤")).await;
    router.dispatch(&english_phone("M")).await;
    router.dispatch(&english_phone("where is Nike")).await;
    router.dispatch(&english_phone("42")).await;
    let seen = bot.model.seen();
    let last_user = |i: usize| {
        seen[i].messages.iter().rev().find(|m| m.role == Role::User).map(|m| m.text().to_owned()).unwrap()
    };
    assert_eq!(last_user(0), "帮我找一件 T 恤", "the message says its language");
    assert_eq!(last_user(1), "M\n\n[reply in Simplified Chinese]", "\"M\" keeps Chinese");
    assert_eq!(last_user(2), "where is Nike", "English switches it");
    assert_eq!(last_user(3), "42\n\n[reply in English]", "\"42\" keeps English");
    let key = MessageContext::private("telegram", USER, "", Lang::Zh).conversation_key();
    assert_eq!(router.conversation_lang(&key).await, Some(Lang::En), "remembered for the next message");
}
