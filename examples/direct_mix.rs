//! Model calls per message over a mix of shopper questions, with
//! `llm.direct_answers` on and off: the real bot (router, embedded mall, the
//! demo map) whose "model" picks the tools basic mode picks (the offline
//! planner behind the `ChatModel` trait, counted), so each question takes
//! the rounds a model that chose the same tools would. Each question is a
//! new conversation. Prints the calls per question and the totals.
//!
//! Run: `cargo run --release --example direct_mix`.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use handlers::Lang;
use mallbot::App;
use mallbot::MessageContext;
use mallbot::config::Config;
use mallbot::llm::OfflinePlanner;
use mallbot::llm::{ChatModel, ChatRequest, ChatResponse, LlmError};
use mallbot::state::MemoryStore;

/// Questions shoppers ask, in the three languages.
const MIX: &[&str] = &[
    "Nike 店在哪",
    "优衣库怎么走",
    "where is Starbucks?",
    "星巴克在哪裡",
    "美食广场有哪些店",
    "星巴克几点开门",
    "Nike 有什么优惠",
    "海底捞评价怎么样",
    "opening hours of Uniqlo",
    "看看购物车",
    "my cart",
    "我的订单",
    "有什么 Nike 跑鞋",
    "500 以内的运动鞋",
    "running shoes under 400",
    "有没有咖啡店",
    "Nike 店在哪，几点关门，有什么优惠",
    "你好",
    "谢谢",
    "tell me a joke",
];

/// The offline planner playing the model, its calls counted.
struct PlannerModel {
    planner: OfflinePlanner,
    calls: AtomicUsize,
}

#[async_trait]
impl ChatModel for PlannerModel {
    fn describe(&self) -> String {
        "the planner as a model".to_owned()
    }

    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        self.planner.complete(request).await
    }
}

/// Model calls for each question of the mix.
async fn calls_per_question(direct: bool) -> Vec<usize> {
    let mall: Arc<dyn services::MallApi> = Arc::new(services::EmbeddedMall::in_memory());
    let model = Arc::new(PlannerModel {
        planner: OfflinePlanner::learning(mall.clone()),
        calls: AtomicUsize::new(0),
    });
    let mut config = Config::default();
    config.state.url = "memory://".into();
    config.bot.rate_limit_per_minute = 0;
    config.llm.direct_answers = direct;
    let app = App::with_model(config, mall, Arc::new(MemoryStore::new()), model.clone());
    let mut counts = Vec::with_capacity(MIX.len());
    for (i, text) in MIX.iter().enumerate() {
        let before = model.calls.load(Ordering::SeqCst);
        let lang = Lang::detect(text).unwrap_or(Lang::Zh);
        let user = 9000 + i64::try_from(i).unwrap();
        app.router.dispatch(&MessageContext::private("telegram", user, *text, lang)).await;
        counts.push(model.calls.load(Ordering::SeqCst) - before);
    }
    counts
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let off = calls_per_question(false).await;
    let on = calls_per_question(true).await;
    println!("direct_mix: {} shopper questions, model calls per question", MIX.len());
    println!("{:<44} {:>5} {:>5}", "question", "off", "on");
    for ((text, off), on) in MIX.iter().zip(&off).zip(&on) {
        println!("{:<44} {off:>5} {on:>5}", text);
    }
    let (total_off, total_on) = (off.iter().sum::<usize>(), on.iter().sum::<usize>());
    let per = |n: usize| n as f64 / MIX.len() as f64;
    println!("{:<44} {total_off:>5} {total_on:>5}", "total");
    println!("{:<44} {:>5.2} {:>5.2}", "per message", per(total_off), per(total_on));
}
