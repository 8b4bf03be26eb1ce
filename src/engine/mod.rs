//! What a message becomes, whatever the transport: the
//! [`router::FunctionCallRouter`] admits it ([`router::access`]), plans a turn
//! with a model ([`llm`]) or the offline planner, runs [`tools`], holds risky
//! calls for a confirmation ([`router::confirm`], [`pending`]), and answers
//! with a [`reply::Reply`], telling its [`progress`] on the way. Around it:
//! the commands every transport understands, small talk, voice and photos,
//! payments and the mall's order events, the service desk and the report of
//! what went unanswered.

pub(crate) mod alerts;
pub(crate) mod bot;
pub(crate) mod commands;
pub(crate) mod context;
pub(crate) mod fallback;
pub(crate) mod handoff;
pub(crate) mod health;
pub(crate) mod llm;
pub(crate) mod media;
pub(crate) mod payments;
pub(crate) mod pending;
pub(crate) mod progress;
pub(crate) mod reply;
pub(crate) mod report;
pub(crate) mod router;
pub(crate) mod stats;
pub(crate) mod stt;
pub(crate) mod support;
pub(crate) mod tools;

pub(crate) use bot::App;
