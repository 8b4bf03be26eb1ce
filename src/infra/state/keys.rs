//! Every key the bot writes in the state store, in one place, so that two
//! parts of the bot can never pick the same one by accident and an operator
//! reading Redis can find who wrote a key. A key's parts are typed by the
//! function that builds it; backends add their own prefix (`state.redis_prefix`).
//!
//! | key | written by | kind |
//! |---|---|---|
//! | `lang:PLATFORM:USER` | `/lang` (router) | value |
//! | `talk:CONV` | the language a conversation is in (router) | value |
//! | `conversation:CONV` | one turn at a time (router/lock.rs) | lock |
//! | `refused:PLATFORM:USER:CHAT` | the door, "not allowed" said once | value |
//! | `stats:DAY` | the day's figures (`/stats`) | counts |
//! | `spent:PLATFORM:USER:DAY` | a shopper's tokens today (daily budget) | counts |
//! | `usage:CONV` | a conversation's token total | counts |
//! | `misses:CONV` | misses in a row (two offer a person) | value |
//! | `report:DAY` | what went unanswered (`mallbot report`) | counts |
//! | `pay:due`, `pay:refused` | payments still to record / refused | counts |
//! | `pay:rec:CHARGE`, `pay:order:ORDER`, `pay:settle:CHARGE` | the payment ledger | value, value, lock |
//! | `events:feed`, `events:cursor`, `events:last_read`, `events:last_event`, `events:told:ID` | the mall's event feed | lock, values |
//! | `desk:shopper:PLATFORM:USER`, `desk:topic:CHAT:THREAD` | the service desk's links | value |
//! | `handoff:USER:PAYLOAD` | group → private hand-off links | value |
//! | `rated:CHAT:MESSAGE` | an answer's question, for 👍/👎 | value |
//! | `rating:CHAT:MESSAGE:USER` | the shopper's standing 👍/👎 on an answer (one per shopper and answer) | value |
//! | `otel:installation-secret` | the key of conversation ids in traces | value |
//! | `alerts:a:ID` | a stock or price alert | value |
//! | `alerts:u:USER`, `alerts:p:PRODUCT`, `alerts:products` | alerts by shopper, by product; the watched products | counts |
//! | `alerts:poll` | the instance re-reading watched products | lock |
//! | `outbox:pace` | the outbox's sends, shared by every instance | rate counter |
//!
//! Pending confirmations, histories, the outbox and webhook update ids have
//! their own typed calls on the store; each backend names their keys.

/// A shopper's `/lang` choice.
pub(crate) fn lang(platform: &str, user_id: i64) -> String {
    format!("lang:{platform}:{user_id}")
}

/// The language a conversation is in: the last one a shopper's message was
/// clearly written in.
pub(crate) fn conversation_lang(conversation: &str) -> String {
    format!("talk:{conversation}")
}

/// The lock that lets one turn of a conversation run at a time across instances.
pub(crate) fn conversation_lock(conversation: &str) -> String {
    format!("conversation:{conversation}")
}

/// Set once the door told someone not on the allow-list that they are not.
pub(crate) fn refused(platform: &str, user_id: i64, chat_id: i64) -> String {
    format!("refused:{platform}:{user_id}:{chat_id}")
}

/// A day's figures (days since the Unix epoch, UTC).
pub(crate) fn stats(day: i64) -> String {
    format!("stats:{day}")
}

/// A shopper's tokens on `day`.
pub(crate) fn spent(platform: &str, user_id: i64, day: i64) -> String {
    format!("spent:{platform}:{user_id}:{day}")
}

/// A conversation's token total.
pub(crate) fn usage(conversation: &str) -> String {
    format!("usage:{conversation}")
}

/// A conversation's misses in a row.
pub(crate) fn misses(conversation: &str) -> String {
    format!("misses:{conversation}")
}

/// A day's report of what went unanswered.
pub(crate) fn report(day: i64) -> String {
    format!("report:{day}")
}

/// The counters naming the payments still to record (value > 0).
pub(crate) const PAY_DUE: &str = "pay:due";
/// The counters naming the payments the mall refused (value > 0).
pub(crate) const PAY_REFUSED: &str = "pay:refused";

/// A payment's record, by its charge id.
pub(crate) fn pay_record(charge_id: &str) -> String {
    format!("pay:rec:{charge_id}")
}

/// The charge id that paid an order.
pub(crate) fn pay_order(order_id: &str) -> String {
    format!("pay:order:{order_id}")
}

/// The lock held while a payment is recorded in the mall.
pub(crate) fn pay_settle_lock(charge_id: &str) -> String {
    format!("pay:settle:{charge_id}")
}

/// The lock held by the instance reading the mall's event feed.
pub(crate) const EVENTS_FEED_LOCK: &str = "events:feed";
/// The last event id handled.
pub(crate) const EVENTS_CURSOR: &str = "events:cursor";
/// Unix seconds of the last successful read of the feed.
pub(crate) const EVENTS_LAST_READ: &str = "events:last_read";
/// The time (`at`) of the newest event handled.
pub(crate) const EVENTS_LAST_EVENT: &str = "events:last_event";

/// The claim of an event told (set only once).
pub(crate) fn event_told(event_id: &str) -> String {
    format!("events:told:{event_id}")
}

/// A shopper's link with the service desk.
pub(crate) fn desk_shopper(platform: &str, user_id: i64) -> String {
    format!("desk:shopper:{platform}:{user_id}")
}

/// The shopper of a desk topic.
pub(crate) fn desk_topic(chat_id: i64, thread: i32) -> String {
    format!("desk:topic:{chat_id}:{thread}")
}

/// A group → private hand-off link: only its owner's id finds it.
pub(crate) fn handoff(user_id: i64, payload: &str) -> String {
    format!("handoff:{user_id}:{payload}")
}

/// An answer's question and tools, by its message, for 👍/👎.
pub(crate) fn rated(chat: i64, message_id: i32) -> String {
    format!("rated:{chat}:{message_id}")
}

/// A shopper's standing 👍/👎 on an answer (and the day it was counted under).
pub(crate) fn rating(chat: i64, message_id: i32, user_id: i64) -> String {
    format!("rating:{chat}:{message_id}:{user_id}")
}

/// The installation's secret that keys conversation ids in traces.
pub(crate) const INSTALLATION_SECRET: &str = "otel:installation-secret";

/// A stock or price alert, by its id.
pub(crate) fn alert(id: &str) -> String {
    format!("alerts:a:{id}")
}

/// The ids of a shopper's alerts (`<platform>:<id>`).
pub(crate) fn alerts_of_user(user: &str) -> String {
    format!("alerts:u:{user}")
}

/// The ids of the alerts on a product.
pub(crate) fn alerts_of_product(product_id: &str) -> String {
    format!("alerts:p:{product_id}")
}

/// The products some alert watches (value: how many alerts).
pub(crate) const ALERTS_PRODUCTS: &str = "alerts:products";
/// The lock of the instance re-reading the watched products.
pub(crate) const ALERTS_POLL_LOCK: &str = "alerts:poll";
/// The shared counter of the outbox's sends (the alerts' pace).
pub(crate) const OUTBOX_PACE: &str = "outbox:pace";
