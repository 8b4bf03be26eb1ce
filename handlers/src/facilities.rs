//! The mall's facilities: the nearest restroom, nursing room, ATM, service
//! desk… by walking route from where the shopper is, drawn on the floor plan
//! like a store route. Kinds are IMDF's amenity categories
//! ([`maps::facility`]); the words shoppers use for them, in Chinese (read
//! in Simplified characters) and English, are here.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use maps::FacilityKind;
use maps::facility;

use crate::basic::text::Scratch;
use crate::basic::{Answering, Call, Reply, Said, Step, read};
use crate::facility_words::WORDS;
pub use crate::facility_words::{kind_in, kind_named};
use crate::format::{floor, has_han, join};
use crate::{
    HelpLine, Lang, OfflineHook, ToolContext, ToolError, ToolOutput, ToolResult, indoor, tool_function,
};

/// The `/help` line of `find_facility`.
pub static HELP_FACILITIES: HelpLine = HelpLine {
    zh: "🚻 设施：「洗手间在哪？」「我在三楼，最近的母婴室在哪？」",
    en: "🚻 Facilities: \"Where's the restroom?\" \"Nearest ATM from the 2nd floor\"",
};

/// Arguments of `find_facility`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindFacilityArgs {
    /// Restroom, atm… in any words.
    pub kind: String,
    /// Start: store, entrance or floor.
    pub from: Option<String>,
}

/// What `find_facility` returns: the way to the nearest, or the kinds the
/// mall has when it has none of the kind asked.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum FindFacilityResult {
    /// None of that kind (first: a route has no required field).
    Missing(FacilityMissing),
    /// The nearest one and the walk there.
    Route(FacilityRoute),
}

/// The mall has no facility of the kind asked.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct FacilityMissing {
    /// The kind asked for, as named to the shopper.
    pub not_available: String,
    /// The kinds the mall has, as named to the shopper.
    pub available: Vec<String>,
}

/// The nearest facility of a kind by walking route.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct FacilityRoute {
    /// Its IMDF category key (`restroom`).
    pub kind: String,
    /// Its name on the map, in the shopper's language.
    pub name: String,
    /// Its floor (1 = ground, -1 = B1).
    pub floor: i32,
    /// Where the walk starts, by name.
    pub from_name: String,
    pub steps: Vec<String>,
    pub distance_m: u32,
    pub eta_minutes: u32,
    /// `from`, `floors`, `waypoints`, `floor_plans_sent` (the pictures
    /// themselves go to the shopper, never to the model).
    #[serde(flatten, skip_serializing_if = "serde_json::Map::is_empty")]
    pub on_map: serde_json::Map<String, Value>,
}

fn find_facility_progress(lang: Lang, args: &FindFacilityArgs) -> String {
    let texts = &lang.texts().facilities;
    let asked = args.kind.trim();
    if asked.is_empty() {
        return lang.texts().tools.working.to_owned();
    }
    let name = kind_named(asked).and_then(|k| (texts.kind)(k.key)).unwrap_or(asked);
    (texts.progress)(name)
}

/// Nearest restroom, nursing room, ATM… on foot.
#[tool_function(level = "safe", scope = "both", progress = find_facility_progress, help = HELP_FACILITIES, offline = FIND_FACILITY_OFFLINE)]
pub async fn find_facility(ctx: &ToolContext, args: FindFacilityArgs) -> ToolResult<FindFacilityResult> {
    let texts = &ctx.lang.texts().facilities;
    let router = ctx.map.as_ref().ok_or_else(|| ToolError::NotFound(texts.no_map.to_owned()))?;
    let map = router.map();
    let on_map = facility::kinds_on(map);
    let name_of = |kind: &FacilityKind| (texts.kind)(kind.key).unwrap_or(kind.key).to_owned();
    let available: Vec<String> = on_map.iter().map(|k| name_of(k)).collect();
    let Some(kind) = kind_named(&args.kind) else {
        return Err(ToolError::InvalidArguments {
            field: Some("kind".into()),
            message: format!(
                "\"{}\" is not a kind of facility; this mall has: {}",
                args.kind.trim(),
                on_map.iter().map(|k| k.key).collect::<Vec<_>>().join(", ")
            ),
        });
    };
    let missing = || {
        let result = FacilityMissing { not_available: name_of(kind), available: available.clone() };
        let buttons: Vec<String> = on_map.iter().take(3).map(|k| (texts.ask_nearest)(&name_of(k))).collect();
        Ok(ToolOutput::new(FindFacilityResult::Missing(result)).with_suggestions(buttons))
    };
    if !on_map.contains(&kind) {
        return missing();
    }
    let Some(directions) = indoor::directions_to_nearest(ctx, kind, args.from.as_deref()) else {
        return missing();
    };
    let directions = directions?;
    let mut data = match directions.data {
        Value::Object(data) => data,
        _ => serde_json::Map::new(),
    };
    let text = |v: Option<Value>| v.and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
    let number = |v: Option<Value>| v.and_then(|v| v.as_i64()).unwrap_or(0);
    // A facility the map names in Chinese only is named by its kind in English.
    let mut name = text(data.remove("to_name"));
    if ctx.lang.texts().format.english_names && (name.is_empty() || has_han(&name)) {
        name = name_of(kind);
    }
    let route = FacilityRoute {
        kind: kind.key.to_owned(),
        name,
        floor: number(data.remove("to_floor")) as i32,
        from_name: text(data.remove("from_name")),
        steps: serde_json::from_value(data.remove("steps").unwrap_or_default()).unwrap_or_default(),
        distance_m: number(data.remove("distance_m")) as u32,
        eta_minutes: number(data.remove("eta_minutes")) as u32,
        on_map: data,
    };
    Ok(ToolOutput::new(FindFacilityResult::Route(route)).with_pictures(directions.pictures))
}

// Basic mode.

/// A facility asked for ("洗手间在哪", "最近的洗手间", "有母婴室吗", "nearest
/// ATM from the north gate"): priority 25, before stores and places, so
/// that a restroom is never looked up as a store. A question about fees or
/// hours ("停车怎么收费") is not one: that is the mall's information.
pub static FIND_FACILITY_OFFLINE: OfflineHook = OfflineHook::new(recognise_facility, facility_answer)
    .priority(25)
    .reply(facility_reply)
    .failed(facility_failed)
    .direct();

/// Words of a question about something other than where a facility is:
/// fees, hours, passwords, buying.
#[rustfmt::skip]
const NOT_WHERE: &[&str] = &[
    "收费", "多少钱", "费用", "价格", "免费", "几点", "开门", "关门", "营业", "时间", "密码", "买", "卖",
    "fee", "fees", "cost", "costs", "price", "how much", "free", "hours", "open", "opening", "close",
    "closing", "password", "wifi", "wi-fi", "buy", "sell", "sells", "停车费", "怎么算", "计费", "充电桩", "丢了",
    "掉了", "parking fee", "parking fees", "parking charge", "parking charges", "ev charging", "electric car",
];
/// Words that ask for the way or the nearest, and fillers, struck out before the start is read.
#[rustfmt::skip]
const CUES: &[&str] = &[
    "离我最近的", "最近的", "最近", "附近的", "附近", "在哪里", "在哪儿", "在哪", "哪里有", "哪儿有", "哪有", "怎么走",
    "怎么去", "带我去", "有没有", "有吗", "有", "吗", "呢", "我要去", "我想去", "去", "找", "一下", "请问", "的", "个",
    "可以", "商场", "这里", "nearest", "closest", "near", "where is", "where's", "where are", "where can i find",
    "where can i", "is there", "are there", "do you have", "any", "a", "an", "the", "to", "me", "take", "how do i get",
    "find", "i", "need", "want", "go", "get", "please", "is", "are", "there", "mall", "here", "in", "on", "one",
];
/// Words that say where the shopper is: what follows is the start.
#[rustfmt::skip]
const FROM: &[&str] = &[
    "我现在在", "我在", "我从", "从", "出发", "离", "i'm at", "i am at", "i'm in", "i am in", "i'm on", "i am on",
    "from", "starting at",
];
/// Words of a place that is not a store: an entrance, a gate.
#[rustfmt::skip]
const ENTRANCE: &[&str] = &["门", "入口", "出口", "gate", "entrance", "exit"];

fn recognise_facility(said: &Said) -> Option<Step> {
    let s = said.scratch();
    if s.contains_any(NOT_WHERE) {
        return None;
    }
    let kind = kind_in(&s)?;
    let mut rest = s;
    for (_, words) in WORDS {
        rest.remove_all(words);
    }
    rest.remove_all(FROM);
    rest.remove_all(CUES);
    let start = rest.residual();
    let mut args = json!({ "kind": kind.key });
    let named = Scratch::new(&start);
    let is_start = !start.is_empty()
        && (said.lexicon.names_store(&named)
            || said.lexicon.find_brand(&named).is_some()
            || said.lexicon.near_store(&start).is_some()
            || said.lexicon.begins_store_name(&start)
            || named.contains_any(ENTRANCE)
            || indoor::floor_named(&start).is_some());
    if is_start {
        args["from"] = json!(start);
    }
    Some(Step::Call(Call::new("find_facility", args)))
}

/// A start the map does not know, or a mall without a map, in the shopper's words.
fn facility_failed(said: &Said, error: &str) -> Option<String> {
    let texts = &said.texts().facilities;
    if error.contains("invalid argument `from`") {
        Some(texts.unknown_start.to_owned())
    } else {
        error.to_ascii_lowercase().starts_with("error: not found").then(|| texts.no_map.to_owned())
    }
}

fn facility_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<FindFacilityResult>(data).map(|result| answer(&result, lang))
}

fn facility_reply(answering: &Answering) -> Option<Reply> {
    facility_answer(answering.lang(), answering.data).map(Reply::text)
}

/// The way to the nearest facility, or the kinds the mall has.
pub fn answer(result: &FindFacilityResult, lang: Lang) -> String {
    let texts = &lang.texts().facilities;
    match result {
        FindFacilityResult::Missing(missing) => {
            (texts.missing)(&missing.not_available, &join(lang, &missing.available))
        }
        FindFacilityResult::Route(route) => {
            let from = if route.from_name.is_empty() {
                lang.texts().answers.main_entrance.to_owned()
            } else {
                route.from_name.clone()
            };
            let head = (texts.nearest)(
                &route.name,
                &floor(lang, route.floor),
                &from,
                route.distance_m,
                route.eta_minutes,
            );
            let steps = route.steps.iter().enumerate().map(|(i, step)| format!("{}. {step}", i + 1));
            std::iter::once(head).chain(steps).collect::<Vec<_>>().join("\n")
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn key(text: &str) -> Option<&'static str> {
        kind_named(text).map(|k| k.key)
    }

    #[test]
    fn shoppers_words_name_imdf_categories_in_three_languages() {
        for (words, expected) in [
            (
                &["洗手间在哪", "洗手間在哪裡", "廁所在哪裡", "化妝室", "where is the toilet", "restroom"][..],
                "restroom",
            ),
            (&["无障碍洗手间", "無障礙廁所", "accessible toilet"][..], "restroom.wheelchair"),
            (&["亲子卫生间", "親子廁所", "family restroom"][..], "restroom.family"),
            (&["有母婴室吗", "哺乳室在哪裡", "nursing room"][..], "mothersroom"),
            (&["换尿布", "換尿布", "baby changing"][..], "babychanging"),
            (&["服务台", "服務台", "service desk"][..], "information"),
            (&["最近的取款机", "提款機", "nearest ATM"][..], "atm"),
            (&["医务室", "醫務室", "first aid"][..], "firstaid"),
            (&["手机充电", "手機充電", "phone charging"][..], "powerchargingstation"),
            (&["储物柜", "置物櫃", "lockers"][..], "coinlocker"),
            (&["饮水机", "飲水機", "drinking water"][..], "drinkingfountain"),
            (&["吸烟区", "吸菸區", "smoking area"][..], "smokingarea"),
            (&["手扶梯", "手扶電梯", "escalator"][..], "escalator"),
            (&["电梯", "電梯", "lift"][..], "elevator"),
            (&["停车场入口", "停車場", "car park"][..], "parking"),
        ] {
            for text in words {
                assert_eq!(key(text), Some(expected), "{text}");
            }
        }
        // IMDF's own names too, and a category one kind covers.
        assert_eq!(key("restroom.female"), Some("restroom"));
        assert_eq!(key("guestservices"), Some("information"));
        // Not facilities.
        for text in ["Nike", "跑鞋", "洗手液", "充电宝", "information about Nike"] {
            assert_eq!(key(text), None, "{text}");
        }
    }

    #[test]
    fn every_kind_has_a_name_in_every_language() {
        for lang in [Lang::Zh, Lang::ZhHant, Lang::En] {
            for kind in maps::facility::KINDS {
                assert!((lang.texts().facilities.kind)(kind.key).is_some(), "{lang:?} {}", kind.key);
            }
        }
    }

    #[test]
    fn a_kind_the_mall_does_not_have_is_answered_with_the_kinds_it_has() {
        let missing = FindFacilityResult::Missing(FacilityMissing {
            not_available: "吸烟区".into(),
            available: vec!["洗手间".into(), "母婴室".into()],
        });
        assert_eq!(answer(&missing, Lang::Zh), "抱歉，商场地图上没有吸烟区。这里有：洗手间、母婴室。");
        let missing = FindFacilityResult::Missing(FacilityMissing {
            not_available: "smoking area".into(),
            available: vec!["restroom".into(), "ATM".into()],
        });
        assert_eq!(
            answer(&missing, Lang::En),
            "Sorry, the mall's map has no smoking area. It has: restroom, ATM."
        );
        let json = serde_json::to_value(&missing).unwrap();
        assert_eq!(read::<FindFacilityResult>(&json), Some(missing));
    }
}
