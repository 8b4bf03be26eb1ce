//! The Telegram transport: long polling (or a webhook), the update tree that
//! admits each update at the door and hands it to its endpoint, and the
//! delivery of answers with their buttons.
//!
//! In private chats every message goes to the router; in groups only
//! messages addressed to the bot (an @mention, a reply to the bot, or
//! `/command@bot`). Risky actions show Confirm / Cancel buttons whose press is
//! answered first, then shown in place of the buttons, then carried out.
//!
//! **The way of a message**, file to file, never back:
//! `tree.rs` (the tree reads the update and decides its `Way`) → `lanes.rs`
//! (its chat's lane) → `tree.rs`'s door stage (the `/lang` choice read once,
//! `router.admit`; turned away: told, and the end) → `incoming.rs` (the
//! message's endpoint; `media.rs` for voice and photos, `commands.rs`,
//! `desk.rs`) → `live.rs` (`route`: the turn shown live, the reply
//! delivered) → `outbox.rs` and `send/` (to the Bot API).
//!
//! **Each file's job:**
//! - `tree.rs` — the update tree, the door stage (the one place that
//!   knocks), the dispatcher, dispatching until a stop;
//! - `lanes.rs` — one lane per chat: a chat's updates one at a time, in order;
//! - `handle.rs` — `Handle`, one update as its handling sees it, and the
//!   outcomes an update ends with;
//! - `incoming.rs` — reading a message (content, group addressing, mention
//!   stripping, commands) and the message's endpoint;
//! - `media.rs` — voice messages and photos: a live turn on the shopper's file;
//! - `files.rs` — downloading a shopper's file within its limits;
//! - `buttons.rs` — presses: Confirm / Cancel, suggestions, 🧭, 💳, and
//!   reactions to answers; `callback.rs` the buttons' `callback_data`;
//! - `commands.rs` — commands: Telegram's own and the shared ones;
//! - `desk.rs` — the service desk (a forum group of the mall's staff);
//! - `alerts.rs` — stock and price alerts as words and buttons, `/alerts`;
//! - `loyalty.rs` — `/car`, `/points`, `/coupons` with their ✖ and claim buttons;
//! - `pay.rs` — payments: invoices, pre-checkout queries, successful payments;
//! - `teller.rs` — what the bot tells by itself (order events, alerts) and
//!   the admins' `/ready` / `/pickedup`;
//! - `live.rs` — the live message of a turn, and delivering a reply;
//! - `outbox.rs` — answers kept until Telegram took them;
//! - `send/` — every request to the Bot API; `format.rs`, `markdown.rs`,
//!   `photos.rs`, `drafts.rs`, `trust.rs` — what a message looks like;
//! - `texts.rs` — the transport's own words;
//! - `transport.rs` — the transport's errors and shared memory;
//! - `run.rs` — running the bot: start-up, polling, the stop signal;
//! - `webhook.rs` — webhook mode.

pub(crate) mod alerts;
mod buttons;
pub(crate) mod callback;
mod commands;
mod desk;
pub(crate) mod drafts;
pub(crate) mod files;
pub(crate) mod format;
mod handle;
pub(crate) mod incoming;
pub(crate) mod lanes;
pub(crate) mod live;
mod loyalty;
pub(crate) mod markdown;
mod media;
pub(crate) mod outbox;
pub(crate) mod pay;
pub(crate) mod photos;
mod run;
pub(crate) mod send;
pub(crate) mod teller;
pub mod texts;
pub(crate) mod transport;
mod tree;
pub(crate) mod trust;
pub(crate) mod webhook;

pub use run::{check, check_desk, connect, register_commands, run, stop_signal};
pub(crate) use transport::{TelegramError, Transport};
pub(crate) use tree::dispatch_until;
pub use tree::{ALLOWED_UPDATES, Handled, dispatcher, dispatcher_with_end};
