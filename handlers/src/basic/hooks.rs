//! The registered tools' hooks, asked in order: which one a message asks
//! for, and how a call's data is answered.

use std::sync::OnceLock;

use serde_json::Value;

use super::{Answering, Made, OfflineHook, Reply, Said, Step};
use crate::registry::ToolSpec;

/// The registered tools that declare a basic mode, in the order their hooks
/// are asked: by [`OfflineHook::priority`], lowest first, then by name.
pub fn hooks() -> &'static [(&'static ToolSpec, &'static OfflineHook)] {
    static ORDERED: OnceLock<Vec<(&'static ToolSpec, &'static OfflineHook)>> = OnceLock::new();
    ORDERED.get_or_init(|| {
        let mut hooks: Vec<_> =
            crate::all().iter().filter_map(|spec| spec.offline.map(|hook| (*spec, hook))).collect();
        hooks.sort_by_key(|(spec, hook)| (hook.priority, spec.name));
        hooks
    })
}

/// The first step the message asks for: the first hook (in [`hooks`]
/// order) that recognises it; `None` when none does.
pub fn recognise(said: &Said) -> Option<Step> {
    if said.is_empty() {
        return None;
    }
    hooks().iter().find_map(|(_, hook)| (hook.recognise)(said))
}

/// What basic mode answers to a call's data: the tool's [`OfflineHook::reply`]
/// when it has one, else its plain [`OfflineHook::answer`] (asked in the
/// language its table names, [`Texts::tool_lang`]); "done" when the data
/// cannot be read.
pub fn reply(made: &Made, data: &Value, said: &Said) -> Reply {
    let texts = said.texts();
    let hook = crate::find(&made.name).and_then(|spec| spec.offline);
    let reply = hook.and_then(|hook| match hook.reply {
        Some(reply) => reply(&Answering { said, args: &made.args, data }),
        None => (hook.answer)(texts.tool_lang, data).map(|text| Reply::text((texts.tool_text)(text))),
    });
    reply.unwrap_or_else(|| Reply::text(texts.answers.done))
}
