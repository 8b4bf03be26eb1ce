//! What a message becomes, whatever the transport: the
//! [`router::FunctionCallRouter`] admits it ([`router::access`]), plans a turn
//! with a model ([`llm`]) or the offline planner, runs [`tools`], holds risky
//! calls for a confirmation ([`router::confirm`], [`pending`]), and answers
//! with a [`reply::Reply`], telling its [`progress`] on the way. Around it:
//! the commands every transport understands, small talk, voice and photos,
//! payments and the mall's order events, the service desk and the report of
//! what went unanswered.

pub mod alerts;
pub(crate) mod bot;
pub mod commands;
pub mod context;
pub mod fallback;
pub(crate) mod handoff;
pub mod health;
pub mod llm;
pub mod media;
pub mod payments;
pub(crate) mod pending;
pub mod progress;
pub mod reply;
pub mod report;
pub mod router;
pub mod stats;
pub(crate) mod stt;
pub(crate) mod support;
pub mod tools;

pub use bot::App;
