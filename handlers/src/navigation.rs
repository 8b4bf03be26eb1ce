//! Finding one's way: walking directions to a store, and what is in an area.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::Area;

use serde_json::{Value, json};

use crate::basic::{Answering, Call, Reply, Said, Step, read};
use crate::format::{floor, join, local_name, local_text, mall_text, navigate_suggestion, paren, store_name};
use crate::general::{StoreLookup, lookup_store, store_for_display, store_not_found};
use crate::records::StoreRef;
use crate::texts::zh_hant::to_simplified;
use crate::{
    HelpLine, Lang, OfflineHook, ToolContext, ToolError, ToolOutput, ToolResult, indoor, tool_function,
};

/// The `/help` line of the directions tools.
pub static HELP_DIRECTIONS: HelpLine = HelpLine {
    zh: "🧭 找路：「咖啡店怎么走？」「三楼有什么店？」",
    en: "🧭 Directions: \"How do I get to a coffee shop?\" \"What's on the 3rd floor?\"",
};

/// Arguments of `navigate_to_store`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateToStoreArgs {
    /// Id or name.
    pub store_name: String,
    /// Floor first.
    pub highlight: Option<bool>,
    /// Start: store, facility or entrance.
    pub from: Option<String>,
    /// Lifts only.
    pub avoid_stairs: Option<bool>,
}

/// What `navigate_to_store` returns: the way there, or, when no store has
/// the name given, the closest names (never another store's directions).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum NavigateToStoreResult {
    /// No store has that name (first: a route has no required field).
    NotFound(StoreNotFound),
    /// Directions to the store named.
    Route(Directions),
}

/// Walking directions to a store.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct Directions {
    pub store: StoreRef,
    /// Where the walk starts (`main_entrance`).
    pub from: String,
    pub steps: Vec<String>,
    /// The walk in metres and minutes; absent (0) when no map measured it.
    #[serde(skip_serializing_if = "unmeasured")]
    pub distance_m: u32,
    #[serde(skip_serializing_if = "unmeasured")]
    pub eta_minutes: u32,
    /// Whether to lead with the store's floor and unit.
    #[serde(default = "lead_with_the_place")]
    pub highlight: bool,
    /// On a mall with an indoor map: `from_name`, `avoid_stairs`, `floors`,
    /// `waypoints` (`{floor, x_m, y_m}`) and `floor_plans_sent` (the pictures
    /// themselves go to the shopper, never to the model).
    #[serde(flatten, skip_serializing_if = "serde_json::Map::is_empty")]
    pub on_map: serde_json::Map<String, serde_json::Value>,
}

/// No store has the name asked for; these have names close to it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
pub struct StoreNotFound {
    /// The name as the shopper gave it.
    pub not_found: String,
    pub closest: Vec<StoreRef>,
}

fn unmeasured(figure: &u32) -> bool {
    *figure == 0
}

fn lead_with_the_place() -> bool {
    true
}

fn navigate_to_store_progress(lang: Lang, args: &NavigateToStoreArgs) -> String {
    if args.store_name.trim().is_empty() {
        return lang.texts().tools.working.to_owned();
    }
    match lang {
        Lang::En => format!("🧭 Finding the way to {}…", args.store_name.trim()),
        _ => format!("🧭 正在规划去{}的路线…", args.store_name.trim()),
    }
}

/// The way to a store (steps, floor plans).
#[tool_function(level = "safe", scope = "both", progress = navigate_to_store_progress, help = HELP_DIRECTIONS, offline = NAVIGATE_TO_STORE_OFFLINE)]
pub async fn navigate_to_store(
    ctx: &ToolContext,
    args: NavigateToStoreArgs,
) -> ToolResult<NavigateToStoreResult> {
    let store = match lookup_store(ctx, "store_name", &args.store_name).await? {
        StoreLookup::Found(store) => store,
        StoreLookup::Missing { closest } if closest.is_empty() => {
            return Err(store_not_found(&args.store_name, &closest));
        }
        StoreLookup::Missing { closest } => {
            let buttons: Vec<String> =
                closest.iter().map(|s| navigate_suggestion(ctx.lang, &store_name(ctx.lang, s))).collect();
            let result = StoreNotFound {
                not_found: args.store_name.trim().to_owned(),
                closest: closest.iter().map(|s| StoreRef::new(s, ctx.lang)).collect(),
            };
            return Ok(ToolOutput::new(NavigateToStoreResult::NotFound(result)).with_suggestions(buttons));
        }
    };
    let name = store_name(ctx.lang, &store);
    let suggestion = (ctx.lang.texts().tools.promotions_of)(&name);
    let highlight = args.highlight.unwrap_or(true);
    let avoid_stairs = args.avoid_stairs.unwrap_or(false);
    let from = match args.from.as_deref().map(str::trim).filter(|f| !f.is_empty()) {
        Some(from) => Some(start_named(ctx, from).await),
        None => None,
    };
    if let Some(on_map) = indoor::directions_to_store(ctx, &store, from.as_deref(), avoid_stairs) {
        let on_map = on_map?;
        let mut data = match on_map.data {
            serde_json::Value::Object(data) => data,
            _ => serde_json::Map::new(),
        };
        let text =
            |v: Option<serde_json::Value>| v.and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default();
        let number = |v: Option<serde_json::Value>| v.and_then(|v| v.as_u64()).unwrap_or(0) as u32;
        let directions = Directions {
            store: StoreRef::new(&store, ctx.lang),
            from: text(data.remove("from")),
            steps: serde_json::from_value(data.remove("steps").unwrap_or_default()).unwrap_or_default(),
            distance_m: number(data.remove("distance_m")),
            eta_minutes: number(data.remove("eta_minutes")),
            highlight,
            on_map: data,
        };
        return Ok(ToolOutput::new(NavigateToStoreResult::Route(directions))
            .with_pictures(on_map.pictures)
            .with_suggestions([suggestion]));
    }
    let route = ctx.mall.route(&store.id, None).await?;
    let directions = Directions {
        store: StoreRef::new(&store, ctx.lang),
        from: route.from,
        steps: route.steps,
        distance_m: route.distance_m,
        eta_minutes: route.eta_minutes,
        highlight,
        on_map: serde_json::Map::new(),
    };
    Ok(ToolOutput::new(NavigateToStoreResult::Route(directions)).with_suggestions([suggestion]))
}

/// Where a walk starts, as the map knows it: a store the shopper named in
/// either language or past a typo is its id; anything else (an entrance, a
/// facility, a floor) as given.
async fn start_named(ctx: &ToolContext, from: &str) -> String {
    let on_map = ctx.map.as_ref().is_some_and(|router| router.map().find_place(from).is_some());
    if on_map || indoor::floor_named(from).is_some() || crate::facility_words::kind_named(from).is_some() {
        return from.to_owned();
    }
    match lookup_store(ctx, "from", from).await {
        Ok(StoreLookup::Found(store)) => store.id,
        _ => from.to_owned(),
    }
}

/// Arguments of `navigate_to_area`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NavigateToAreaArgs {
    /// Id or name.
    pub area_name: String,
    pub show_stores: Option<bool>,
}

/// What `navigate_to_area` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct NavigateToAreaResult {
    pub area: AreaCard,
    /// The stores in it, unless `show_stores` was false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stores: Option<Vec<AreaStore>>,
    /// A floor plan with the area highlighted was sent to the shopper.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub floor_plan_sent: bool,
}

/// An area of the mall.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct AreaCard {
    pub area_id: String,
    pub name: String,
    pub name_en: String,
    pub floor: i32,
    pub description: String,
}

impl AreaCard {
    /// The area's name in the shopper's language.
    pub fn local_name(&self, lang: Lang) -> Cow<'_, str> {
        local_name(lang, &self.name, Some(&self.name_en))
    }
}

/// A store in an area.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct AreaStore {
    pub store_id: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name_en: String,
    pub category: String,
    pub unit: String,
}

fn navigate_to_area_progress(lang: Lang, args: &NavigateToAreaArgs) -> String {
    if args.area_name.trim().is_empty() {
        return lang.texts().tools.working.to_owned();
    }
    match lang {
        Lang::En => format!("🧭 Looking up {}…", args.area_name.trim()),
        _ => format!("🧭 正在查找{}…", args.area_name.trim()),
    }
}

/// A mall area (food court, sports zone…): floor, stores, floor plan.
#[tool_function(level = "safe", scope = "both", progress = navigate_to_area_progress, help = HELP_DIRECTIONS, offline = NAVIGATE_TO_AREA_OFFLINE)]
pub async fn navigate_to_area(
    ctx: &ToolContext,
    args: NavigateToAreaArgs,
) -> ToolResult<NavigateToAreaResult> {
    let areas = ctx.mall.list_areas().await?.items;
    let known: Vec<String> = areas.iter().map(|a| format!("{} ({})", a.name, a.name_en)).collect();
    let area = find_area(&args.area_name, areas).ok_or_else(|| {
        ToolError::NotFound(format!(
            "no area called \"{}\"; the areas are: {}",
            args.area_name.trim(),
            known.join(", ")
        ))
    })?;
    let stores = if args.show_stores != Some(false) {
        let stores =
            futures::future::join_all(area.store_ids.iter().map(|id| store_for_display(ctx, id))).await;
        let card = |s: &services::Store| AreaStore {
            store_id: s.id.clone(),
            name: mall_text(ctx.lang, &s.name).into_owned(),
            name_en: s.name_en.clone(),
            category: mall_text(ctx.lang, &s.category).into_owned(),
            unit: s.unit.clone(),
        };
        Some(stores.iter().flatten().map(card).collect())
    } else {
        None
    };
    let picture = indoor::area_picture(ctx, &area);
    let floor_plan_sent = picture.is_some();
    let area = AreaCard {
        name: mall_text(ctx.lang, &area.name).into_owned(),
        description: local_text(ctx.lang, &area.description, &area.description_en).into_owned(),
        area_id: area.id,
        name_en: area.name_en,
        floor: area.floor,
    };
    Ok(ToolOutput::new(NavigateToAreaResult { area, stores, floor_plan_sent }).with_pictures(picture))
}

/// The area with that id, else that name (any case, either language, either
/// Chinese script), else the first whose name contains the text or is
/// contained in it.
fn find_area(wanted: &str, areas: Vec<Area>) -> Option<Area> {
    // Letters and digits only: "Kids Toys" is "Kids & Toys".
    let key = letters;
    let wanted = key(&to_simplified(wanted.trim()));
    if wanted.is_empty() {
        return None;
    }
    let names = |a: &Area| [key(&to_simplified(&a.name)), key(&a.name_en)];
    let exact = areas.iter().position(|a| a.id.to_lowercase() == wanted || names(a).contains(&wanted));
    let partial = || {
        areas.iter().position(|a| {
            names(a).iter().any(|n| !n.is_empty() && (n.contains(&wanted) || wanted.contains(n.as_str())))
        })
    };
    let index = exact.or_else(partial)?;
    areas.into_iter().nth(index)
}

/// A name as names are compared whole: lowercase letters and digits only.
fn letters(name: &str) -> String {
    name.to_lowercase().chars().filter(|c| c.is_alphanumeric()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn area(id: &str, name: &str, name_en: &str) -> Area {
        Area {
            id: id.into(),
            name: name.into(),
            name_en: name_en.into(),
            floor: 4,
            description: String::new(),
            description_en: String::new(),
            store_ids: vec![],
        }
    }

    #[test]
    fn areas_are_found_by_id_name_or_part_of_a_name() {
        let areas = vec![area("a1", "运动区", "Sports Zone"), area("food", "美食广场", "Food Court")];
        let found = |q: &str| find_area(q, areas.clone()).map(|a| a.id);
        assert_eq!(found("food"), Some("food".into()));
        assert_eq!(found("美食广场"), Some("food".into()));
        assert_eq!(found("FOOD COURT"), Some("food".into()));
        assert_eq!(found("美食"), Some("food".into()));
        assert_eq!(found("4楼的美食广场"), Some("food".into()));
        assert_eq!(found("sports"), Some("a1".into()));
        assert_eq!(found("cinema"), None);
        assert_eq!(found("  "), None);
    }
}

// Basic mode.

/// An area asked for as a place ("美食广场在哪", "运动区有哪些店"): priority 40.
pub static NAVIGATE_TO_AREA_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_area, area_answer).priority(40).reply(area_reply).failed(area_failed).direct();

/// A store asked for as a place ("优衣库怎么走", "where is Uniqlo"): priority 42.
pub static NAVIGATE_TO_STORE_OFFLINE: OfflineHook = OfflineHook::new(recognise_store, route_answer)
    .priority(42)
    .reply(route_reply)
    .failed(store_failed)
    .direct();

/// A place a message asks for with a word of place ("在哪", "怎么走",
/// "有哪些店", "where is", "take me to"), by what the place is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// An area of the mall.
    Area(String),
    /// A kind of store ("咖啡" of "咖啡店在哪").
    Kind(String),
    /// A store by name.
    Store(String),
}

#[rustfmt::skip]
const NAVIGATE: &[&str] = &[
    "在哪里", "在哪儿", "在哪", "在几楼", "几楼", "怎么走", "怎么去", "怎么过去", "怎么到", "带我去",
    "导航到", "导航去", "我想去", "where can i find", "where is", "where's", "where are", "how do i get to",
    "how can i get to", "how to get to", "how do i go to", "take me to", "directions to", "navigate to",
    "the way to", "guide me to", "wher is", "whre is", "were is", "wheres", "where si", "在那里", "在那",
    "which floor is", "what floor is", "which floor", "what floor", "which level", "what level",
];
#[rustfmt::skip]
const LIST_STORES: &[&str] = &[
    "有哪些店", "有什么店", "有哪些商店", "有哪些餐厅", "有什么好吃的", "有什么吃的", "what stores",
    "which stores", "what shops", "which shops", "stores in", "shops in", "restaurants in", "what's in",
];
#[rustfmt::skip]
const PLACE_FILLER: &[&str] = &[
    "the", "me", "i", "to", "are", "is", "there", "in", "请问", "我", "的", "附近", "on",
];

/// The place the message asks for; `None` with no word of place, or when
/// the place is a kind of product ("跑鞋在哪": a product search).
pub fn place(said: &Said) -> Option<Place> {
    let s = said.scratch();
    let lexicon = said.lexicon;
    let navigate = s.contains_any(NAVIGATE);
    let list = s.contains_any(LIST_STORES);
    if !navigate && !list {
        return None;
    }
    let mut rest = s;
    rest.remove_all(NAVIGATE);
    rest.remove_all(LIST_STORES);
    rest.remove_all(PLACE_FILLER);
    let place = rest.residual();
    if place.is_empty() {
        return None;
    }
    if lexicon.is_area(&place) {
        return Some(Place::Area(place));
    }
    if let Some(keyword) = lexicon.store_type_keyword(&place)
        && (!navigate || lexicon.is_kind(&keyword))
    {
        return Some(Place::Kind(keyword));
    }
    if lexicon.find_brand(&rest).is_none()
        && !lexicon.names_store(&rest)
        && lexicon.near_store(&place).is_none()
        && lexicon.has_category(&rest)
    {
        return None;
    }
    navigate.then_some(Place::Store(place))
}

/// Words that say where a walk starts ("从 Nike", "from Uniqlo", "我在星巴克").
#[rustfmt::skip]
const FROM: &[&str] = &[
    "我现在在", "我在", "从", "由", "i'm at", "i am at", "i'm in", "i am in", "from",
];
/// Words between the start and the end of a walk.
#[rustfmt::skip]
const TO: &[&str] = &[
    "怎么去", "怎么走到", "怎么走去", "怎么到", "怎么过去到", "要怎么去", "该怎么去", "如何去", "去", "到",
    "how do i get to", "how can i get to", "how to get to", "how do i go to", "how do i find", "to",
];
/// Words after the start of a walk, struck out ("从正门进来要怎么去").
#[rustfmt::skip]
const START_TAIL: &[&str] = &[
    "进来", "进去", "进门", "进入", "出来", "出发", "开始", "过来", "过去", "走", "要", "的",
];
/// Words after the end of a walk, struck out.
#[rustfmt::skip]
const ROUTE_TAIL: &[&str] = &[
    "怎么走", "怎么去", "要怎么走", "该怎么走", "的路", "路线", "在哪里", "在哪", "吗", "呢", "?", "？",
];

/// A walk from one place to another ("从 Nike 怎么去星巴克", "how do I get
/// from Uniqlo to Starbucks", "我在优衣库，星巴克怎么走"): (start, end).
pub fn route_between(said: &Said) -> Option<(String, String)> {
    let lower = crate::texts::zh_hant::to_simplified(said.text()).to_lowercase();
    let lower = lower.trim();
    let (from_at, from_word) = FROM
        .iter()
        .flat_map(|w| lower.match_indices(w))
        .filter(|(at, w)| word_edge(lower, *at, w))
        .min_by_key(|(at, w)| (*at, std::cmp::Reverse(w.len())))?;
    let after_from = &lower[from_at + from_word.len()..];
    // "我在优衣库，星巴克怎么走": the start ends at the comma, the end is before the way words.
    // Without a way word after the comma it is no walk ("the T-shirt from Uniqlo, men's").
    if let Some((start, end)) = after_from.split_once([',', '，', ';', '；'])
        && asks_the_way(end)
    {
        let end = strip_route_words(end);
        let start = start.trim().to_owned();
        return (!start.is_empty() && !end.is_empty()).then_some((start, end));
    }
    let (to_at, to_word) = TO
        .iter()
        .flat_map(|w| after_from.match_indices(w))
        .filter(|(at, w)| *at > 0 && word_edge(after_from, *at, w))
        .min_by_key(|(at, w)| (*at, std::cmp::Reverse(w.len())))?;
    let mut start = after_from[..to_at].trim().trim_end_matches(['的', ' ']);
    // "从正门进来要怎么去": the start is the place, without the walk's words.
    while let Some(place) = START_TAIL.iter().find_map(|w| start.strip_suffix(w)) {
        start = place.trim_end();
    }
    let start = start.strip_prefix("the ").unwrap_or(start).to_owned();
    let end = strip_route_words(&after_from[to_at + to_word.len()..]);
    let head = lower[..from_at].trim();
    let end = if end.is_empty() { strip_route_words(head) } else { end };
    // "jackets from 300 to 600" is a price range, not a walk.
    let is_amount = |place: &str| place.chars().all(|c| c.is_ascii_digit() || "¥￥$.元块 ".contains(c));
    (!start.is_empty() && !end.is_empty() && !is_amount(&start) && !is_amount(&end)).then_some((start, end))
}

/// Whether a text asks the way ("星巴克怎么走", "where is Nike", "to Starbucks?").
fn asks_the_way(text: &str) -> bool {
    let s = crate::basic::text::Scratch::new(text);
    s.contains_any(ROUTE_TAIL) || s.contains_any(NAVIGATE) || s.contains_any(TO)
}

/// The way words and fillers struck out of the end of a walk.
fn strip_route_words(text: &str) -> String {
    let mut rest = crate::basic::text::Scratch::new(text);
    rest.remove_all(ROUTE_TAIL);
    rest.remove_all(NAVIGATE);
    rest.remove_all(PLACE_FILLER);
    rest.remove_all(&[
        "how do i get",
        "how do i go",
        "how can i get",
        "how",
        "get",
        "go",
        "walk",
        "please",
        "要",
        "去",
        "走",
    ]);
    rest.residual()
}

/// Whether an English word found at `at` stands on its own.
fn word_edge(text: &str, at: usize, word: &str) -> bool {
    if !word.starts_with(|c: char| c.is_ascii_alphabetic()) {
        return true;
    }
    let before = text[..at].chars().next_back();
    let after = text[at + word.len()..].chars().next();
    !before.is_some_and(|c| c.is_ascii_alphanumeric()) && !after.is_some_and(|c| c.is_ascii_alphanumeric())
}

/// A message that is only a store's name ("海底捞火锅", "Din Tai Fung"), more
/// than a brand of its products: the store itself.
fn named_store_alone(said: &Said) -> Option<String> {
    let mut rest = said.scratch();
    rest.remove_all(&["?", "？", "呢", "吧", "啊", "!", "！"]);
    let name = rest.residual();
    let lexicon = said.lexicon;
    if name.is_empty() {
        return None;
    }
    if !lexicon.names_store(&rest) {
        // A store's name alone with a typo ("adiddas", "星巴可"): that store, when no other is as near.
        let one_word = !name.trim().contains(char::is_whitespace);
        let plain = lexicon.find_brand(&rest).is_none() && !lexicon.has_category(&rest);
        return (one_word && plain).then(|| lexicon.near_store(&name).map(str::to_owned)).flatten();
    }
    // Letters and digits only, nothing struck out: "优衣库怎么走" is a question, not a name.
    let key = letters;
    let whole = key(&name);
    let brand_is_all = lexicon.find_brand(&rest).is_some_and(|(brand, _)| key(&brand) == whole);
    let is_store = lexicon.store_names().any(|s| key(s) == whole);
    (is_store && !brand_is_all).then_some(name)
}

fn recognise_area(said: &Said) -> Option<Step> {
    match place(said)? {
        Place::Area(area) => {
            Some(Step::Call(Call::new("navigate_to_area", json!({ "area_name": area, "show_stores": true }))))
        }
        _ => None,
    }
}

/// Words that ask whether the mall has a place ("is there a KFC here", "商场里有星巴克吗").
#[rustfmt::skip]
const THERE_IS: &[&str] = &[
    "is there a", "is there an", "is there", "are there", "do you have a", "do you have an", "here", "in the mall",
    "in this mall", "商场里有没有", "商场有没有", "这里有没有", "商场里有", "商场有", "这里有", "有没有", "吗",
];

/// Words of a store after its name ("Xiaomi stores", "the Nike shop", "苹果专卖店").
#[rustfmt::skip]
const STORE_TYPES_ASKED: &[&str] = &[
    "stores", "store", "shops", "shop", "outlet", "专卖店", "旗舰店", "门店", "店铺", "店",
];

/// A store whose being here is asked ("is there a KFC here", "商场里有星巴克吗"): the store,
/// even when it carries its brand's name.
fn store_asked_about(said: &Said) -> Option<String> {
    let mut rest = said.scratch();
    let there_is = rest.remove_all(THERE_IS);
    let a_store =
        rest.remove_all(&["show me the", "show me", "the", "a", "an"]) | rest.remove_all(STORE_TYPES_ASKED);
    if !there_is && !a_store {
        return None;
    }
    rest.remove_all(&["?", "？", "呢", "吧", "啊", "!", "！"]);
    let name = rest.residual();
    let key = letters;
    let whole = key(&name);
    let is_store = said.lexicon.store_names().any(|s| key(s) == whole);
    // "Xiaomi stores": the brand's own store, which the store lookup finds by the brand.
    let brands_store =
        a_store && said.lexicon.find_brand(&rest).is_some_and(|(brand, _)| key(&brand) == whole);
    (!whole.is_empty() && (is_store || brands_store)).then_some(name)
}

fn recognise_store(said: &Said) -> Option<Step> {
    if let Some((from, to)) = route_between(said) {
        return Some(Step::Call(Call::new("navigate_to_store", json!({ "store_name": to, "from": from }))));
    }
    if let Some(store) = named_store_alone(said).or_else(|| store_asked_about(said)) {
        return Some(Step::Call(Call::new("navigate_to_store", json!({ "store_name": store }))));
    }
    match place(said)? {
        Place::Store(store) => {
            Some(Step::Call(Call::new("navigate_to_store", json!({ "store_name": store }))))
        }
        _ => None,
    }
}

fn route_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<NavigateToStoreResult>(data).map(|result| route(&result, lang))
}

fn route_reply(answering: &Answering) -> Option<Reply> {
    route_answer(answering.lang(), answering.data).map(Reply::text)
}

fn area_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<NavigateToAreaResult>(data).map(|result| area(&result, lang))
}

fn area_reply(answering: &Answering) -> Option<Reply> {
    area_answer(answering.lang(), answering.data).map(Reply::text)
}

/// "No such store" for a store that is not found.
pub fn store_failed(said: &Said, error: &str) -> Option<String> {
    not_found(error).then(|| said.texts().answers.store_missing.to_owned())
}

fn area_failed(said: &Said, error: &str) -> Option<String> {
    not_found(error).then(|| said.texts().answers.area_missing.to_owned())
}

/// Whether a tool's error (`Error: not found …`) says that what it looked for is not there.
pub fn not_found(error: &str) -> bool {
    error.to_ascii_lowercase().starts_with("error: not found")
}

/// Directions to a store, or the closest names when no store has the name.
pub fn route(result: &NavigateToStoreResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    let directions = match result {
        NavigateToStoreResult::Route(directions) => directions,
        NavigateToStoreResult::NotFound(missing) => {
            let names: Vec<String> =
                missing.closest.iter().map(|s| s.name.clone()).filter(|n| !n.is_empty()).collect();
            return (answers.store_not_found)(&missing.not_found, &join(lang, &names));
        }
    };
    let from_name = directions.on_map.get("from_name").and_then(Value::as_str).filter(|n| !n.is_empty());
    let from = match (directions.from.as_str(), from_name) {
        ("" | "main_entrance", _) => answers.main_entrance.to_owned(),
        (_, Some(name)) => name.to_owned(),
        (other, None) => other.replace('_', " "),
    };
    let (distance, eta) = (directions.distance_m, directions.eta_minutes);
    let name = &directions.store.name;
    let place = directions.store.place(lang);
    // No walk measured (a mall without a map): no figures, never "0 m".
    let measured = distance > 0;
    let mut lines = vec![match (directions.highlight && !place.is_empty(), measured) {
        (true, true) => (answers.route_here)(name, &place, &from, distance, eta),
        (true, false) => (answers.route_here_unmeasured)(name, &place, &from),
        (false, true) => (answers.route_to)(name, &from, distance, eta),
        (false, false) => (answers.route_to_unmeasured)(name, &from),
    }];
    lines.extend(directions.steps.iter().enumerate().map(|(i, step)| format!("{}. {step}", i + 1)));
    lines.join("\n")
}

/// An area of the mall and its stores.
pub fn area(result: &NavigateToAreaResult, lang: Lang) -> String {
    let area = &result.area;
    let name = area.local_name(lang);
    let where_ = floor(lang, area.floor);
    let answers = &lang.texts().answers;
    let mut lines = vec![(answers.area)(&name, &where_, &area.description)];
    let stores: Vec<String> = result
        .stores
        .iter()
        .flatten()
        .map(|s| format!("{}{}", local_name(lang, &s.name, Some(&s.name_en)), paren(lang, &s.unit)))
        .collect();
    if !stores.is_empty() {
        lines.push(answers.stores_here.to_owned() + &join(lang, &stores));
    }
    lines.join("\n").trim().to_owned()
}
