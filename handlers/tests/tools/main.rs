//! Each mall tool called the way the router calls it — through the registry,
//! with the model's JSON arguments — against a `mockall` mall.
#![allow(clippy::unwrap_used)]

mod fixtures;

mod info;
mod mall;
mod navigation;
mod orders;
mod search;
mod shopping;
