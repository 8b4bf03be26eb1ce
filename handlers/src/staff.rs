//! A person at the mall's service desk: [`asks_for_person`] (the shopper asks
//! for one in words, in either Chinese script or English) and the
//! `contact_staff` tool the model calls when only staff can help. The tool
//! itself does nothing but name the reason: the bot's transport takes the
//! conversation to the desk once the turn ends.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::basic::{Call, Said, Step};
use crate::{HelpLine, Lang, OfflineHook, ToolContext, ToolOutput, ToolResult, tool_function};

/// `/help`'s line for reaching a person.
pub static HELP_STAFF: HelpLine = HelpLine {
    zh: "👤 人工客服：说「人工」或「转人工」",
    en: "👤 A person: say \"human\" or \"talk to a human\"",
};

/// Arguments of `contact_staff`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ContactStaffArgs {
    /// Why, briefly.
    pub reason: String,
}

/// What `contact_staff` returns: the hand-off and its reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ContactStaffResult {
    /// Always true: the conversation goes to the service desk.
    pub handoff: bool,
    /// The reason given.
    pub reason: String,
}

/// Hand over to the service desk: asked for, or only staff can help (lost
/// child or item, dispute, refund).
#[tool_function(level = "safe", scope = "private", help = HELP_STAFF, offline = STAFF_OFFLINE)]
pub async fn contact_staff(_ctx: &ToolContext, args: ContactStaffArgs) -> ToolResult<ContactStaffResult> {
    let reason: String = args.reason.trim().chars().take(200).collect();
    Ok(ToolOutput::new(ContactStaffResult { handoff: true, reason }))
}

/// Whether a message asks for a person ("人工", "转人工", "我要找人工客服",
/// "真人", "轉人工", "talk to a human", "human agent"…): a short message
/// naming a person to talk to. Longer messages are the model's to judge.
pub fn asks_for_person(text: &str) -> bool {
    let lower = text.to_lowercase();
    let squeezed: String = lower
        .chars()
        .filter(|c| (c.is_alphanumeric() || (*c as u32) > 0x2E80) && !is_cjk_punct(*c))
        .collect();
    let chinese = squeezed.chars().any(|c| (c as u32) >= 0x4E00);
    if chinese {
        let short = squeezed.chars().count() <= 12;
        let cue = ZH_CUES.iter().any(|cue| squeezed.contains(cue));
        let not_meant = ZH_NOT_MEANT.iter().any(|w| squeezed.contains(w));
        return short && cue && !not_meant;
    }
    let words: Vec<&str> =
        lower.split(|c: char| !c.is_ascii_alphanumeric() && c != '\'').filter(|w| !w.is_empty()).collect();
    if words.is_empty() || words.len() > 8 {
        return false;
    }
    let joined = format!(" {} ", words.join(" "));
    EN_CUES.iter().any(|cue| joined.contains(cue))
}

fn is_cjk_punct(c: char) -> bool {
    matches!(c as u32, 0x3000..=0x303F | 0xFF00..=0xFF0F | 0xFF1A..=0xFF20 | 0xFE30..=0xFE4F)
        || c.is_ascii_punctuation()
        || matches!(c, '👤' | '🙋')
}

/// Chinese words that name a person to talk to (both scripts).
#[rustfmt::skip]
const ZH_CUES: &[&str] = &[
    "人工", "真人", "客服", "转人", "轉人", "工作人员", "工作人員", "服务台", "服務台", "服務臺", "店员", "店員",
];

/// Messages with a cue that are not asking for a person.
#[rustfmt::skip]
const ZH_NOT_MEANT: &[&str] = &["人工智能", "人工智慧", "人工草", "人工皮", "在哪", "几楼", "幾樓", "电话", "電話"];

/// English phrases that ask for a person (matched on whole words).
#[rustfmt::skip]
const EN_CUES: &[&str] = &[
    " human ", " humans ", " a person ", " real person ", " live agent ", " human agent ", " an agent ",
    " agent ", " customer service ", " staff ", " operator ", " someone real ", " support team ",
];

// Basic mode.

/// A request for a person, in words: priority 5, before everything else
/// (so "我要找人工客服" is never searched as a product).
pub static STAFF_OFFLINE: OfflineHook = OfflineHook::new(recognise_staff, staff_answer).priority(5);

fn recognise_staff(said: &Said) -> Option<Step> {
    asks_for_person(said.dialogue.user_text()).then(|| {
        let reason = said.texts().support.asked_reason;
        Step::Call(Call::new("contact_staff", json!({ "reason": reason })))
    })
}

fn staff_answer(lang: Lang, _data: &Value) -> Option<String> {
    Some(lang.texts().support.connecting.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asking_for_a_person_in_three_languages() {
        for text in [
            "人工",
            "转人工",
            "我要找人工客服",
            "真人",
            "找客服",
            "轉人工",
            "我要找真人客服！",
            "👤 人工",
            "talk to a human",
            "Human agent please",
            "Can I speak to a real person?",
            "HUMAN",
            "👤 Talk to a person",
        ] {
            assert!(asks_for_person(text), "{text}");
        }
    }

    #[test]
    fn other_messages_are_not_a_request_for_a_person() {
        for text in [
            "人工智能的书",
            "Nike 跑鞋",
            "服务台在哪里",
            "帮我买一双 Nike 跑鞋，500 以内的，最好是白色的，有没有人工皮的",
            "where is Uniqlo?",
            "human made t shirts in the mall, any store that sells them near the north entrance?",
            "",
        ] {
            assert!(!asks_for_person(text), "{text}");
        }
    }
}
