//! How long `InfoIndex` takes over the demo mall's information sections:
//! indexing them (once per change of the sections) and finding the sections
//! that answer one question (once per `mall_info` call).
//!
//! `cargo bench -p services --bench info`

use std::future::Future;
use std::hint::black_box;
use std::pin::pin;
use std::sync::LazyLock;
use std::task::{Context, Poll, Waker};

use services::{EmbeddedMall, InfoIndex, InfoSection, MallApi};

/// Runs a future that never waits (the embedded mall's information answers at once).
fn now<F: Future>(future: F) -> F::Output {
    match pin!(future).poll(&mut Context::from_waker(Waker::noop())) {
        Poll::Ready(out) => out,
        Poll::Pending => panic!("the embedded mall's information does not wait"),
    }
}

static SECTIONS: LazyLock<Vec<(String, String)>> = LazyLock::new(|| {
    let sections: Vec<InfoSection> =
        now(EmbeddedMall::in_memory().mall_info()).expect("the demo mall has information").items;
    sections
        .into_iter()
        .map(|s| (format!("{}\n{}", s.title, s.title_en), format!("{}\n{}", s.body, s.body_en)))
        .collect()
});

fn index() -> InfoIndex {
    InfoIndex::new(SECTIONS.iter().map(|(t, b)| (t.as_str(), b.as_str())))
}

static INDEX: LazyLock<InfoIndex> = LazyLock::new(index);

const QUESTIONS: &[&str] = &[
    "停车怎么收费",
    "商场几点关门",
    "可以退货吗",
    "wifi密码是多少",
    "how much is parking",
    "can I return something I bought?",
    "is there an ice rink",
];

#[divan::bench]
fn index_the_demo_sections() -> InfoIndex {
    index()
}

#[divan::bench(args = QUESTIONS)]
fn answer_one_question(question: &str) -> usize {
    INDEX.search(black_box(question), 3).len()
}

fn main() {
    println!("{} sections", SECTIONS.len());
    divan::main();
}
