//! Sending to Telegram, one job per module: [`call`] (the Bot API call and
//! its one retry and flood rule: every request of the bot, photos and the
//! live message included, goes through it), [`target`] (where an answer goes), [`message`] (an answer's parts,
//! the edits and answers after a press), [`keyboard`] (an answer's buttons)
//! and [`typing`] (the "typing…" loop).

pub mod call;
pub mod keyboard;
pub mod message;
pub mod target;
pub mod typing;

pub use call::{SendFailure, TELEGRAM_RETRY, Upload, call, call_uploading, network_error};
pub use keyboard::{ButtonContext, keyboard, pressed_suggestion};
pub use message::{Outgoing, Undelivered, answer_press, close_buttons, send_now, send_picture, send_text};
pub use target::Target;
pub use typing::{ChatTyping, Typing};
