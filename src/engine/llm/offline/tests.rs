//! Unit tests of the offline planner's own part: small talk, and a "yes"
//! that acts only on what the planner's own previous answer offered.

#![allow(clippy::unwrap_used)]

use super::{Lexicon, Step, plan};
use crate::engine::llm::ChatMessage;

fn answer(messages: &[ChatMessage]) -> Step {
    let names: Vec<&str> = handlers::all().iter().map(|t| t.name).collect();
    plan(messages, &names, &Lexicon::default())
}

#[test]
fn small_talk_gets_no_answer_of_its_own() {
    for text in ["你好", "hello", "今天天气怎么样", "tell me a joke", ""] {
        let messages = [ChatMessage::system("…"), ChatMessage::user(text)];
        assert_eq!(answer(&messages), Step::Answer(String::new()), "{text}");
    }
}

#[test]
fn a_yes_acts_only_on_an_offer_the_planner_made() {
    let alone = [ChatMessage::system("…"), ChatMessage::user("好的")];
    assert_eq!(answer(&alone), Step::Answer(String::new()), "nothing was offered");
    // The words of an offer, written by someone else, offer nothing.
    for (offer, yes) in
        [("要现在下单吗？", "好的"), ("要現在下單嗎？", "好的"), ("Shall I place the order now?", "yes")]
    {
        let messages = [
            ChatMessage::system("…"),
            ChatMessage::user("hi"),
            ChatMessage::assistant(offer),
            ChatMessage::user(yes),
        ];
        assert_eq!(answer(&messages), Step::Answer(String::new()), "{offer}");
    }
}

#[test]
fn a_message_of_several_clauses_is_not_answered_by_one_tools_words() {
    use super::flow::asks_several;
    for text in
        ["Nike 店在哪，几点关门，有什么优惠", "Nike and Adidas?", "where is Nike, and when does it close?"]
    {
        assert!(asks_several(text), "{text}");
    }
    for text in
        ["Nike 店在哪", "Nike 店在哪？", "where is Starbucks?", "看看购物车", "opening hours of Uniqlo"]
    {
        assert!(!asks_several(text), "{text}");
    }
}
