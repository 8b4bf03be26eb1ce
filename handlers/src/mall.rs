//! The mall as an institution: `mall_info` finds the sections of the mall's
//! own information that answer a question (hours, parking, Wi-Fi, services,
//! policies, contacts), never more than they say; `mall_events` lists the
//! mall's events of a time with their places, and the offers across the mall.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use services::calendar::LocalTime;
use services::{EventQuery, InfoIndex, InfoSection, MallEvent, ServiceError};

use crate::basic::{Answering, Call, Reply, Said, Step, date as day_of, read};
use crate::format::{local_name, local_text, navigate_suggestion, offer_text};
use crate::texts::zh_hant::to_simplified;
use crate::{HelpLine, Lang, OfflineHook, ToolContext, ToolOutput, ToolResult, tool_function};

/// The `/help` line of the mall's information and events.
pub static HELP_MALL: HelpLine = HelpLine {
    zh: "ℹ️ 商场服务：「停车怎么收费？」「这周末有什么活动？」",
    en: "ℹ️ The mall: \"How much is parking?\" \"What's on this weekend?\"",
};

/// Sections given to the model for one question, at most.
const SHOWN_SECTIONS: usize = 3;
/// Events listed, at most.
const SHOWN_EVENTS: usize = 8;
/// Stores' offers listed, at most.
const SHOWN_STORE_OFFERS: usize = 8;
/// Buttons to the places of events, at most.
const PLACE_BUTTONS: usize = 2;

// ---------------------------------------------------------------------------------------------
// mall_info

/// Arguments of `mall_info`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MallInfoArgs {
    pub question: String,
}

/// One section of the mall's information, in the shopper's language.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SectionLine {
    pub title: String,
    pub body: String,
}

/// What `mall_info` returns: the sections that answer, best first; when
/// none does, the service desk's section (if the mall has one).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct MallInfoResult {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<SectionLine>,
    /// Set only when no section answers.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unknown: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub service_desk: Option<SectionLine>,
}

/// The mall has no such endpoint: the contract's `404`, or a page of a server that does not know the path.
fn absent(error: &ServiceError) -> bool {
    matches!(error, ServiceError::NotFound { .. } | ServiceError::InvalidResponse { status: 404, .. })
}

impl SectionLine {
    /// The section in `lang` ([`crate::format::local_text`]): in English, its
    /// English words only — a section the mall wrote only in Chinese has an
    /// empty body then, and is not shown (an English answer says less rather
    /// than show Chinese).
    fn new(section: &InfoSection, lang: Lang) -> Self {
        let text = |zh: &str, en: &str| crate::format::local_text(lang, zh, en).into_owned();
        SectionLine {
            title: text(&section.title, &section.title_en),
            body: text(&section.body, &section.body_en),
        }
    }

    /// The section in `lang`, when it has words in it.
    fn shown(section: &InfoSection, lang: Lang) -> Option<Self> {
        Some(SectionLine::new(section, lang)).filter(|line| !line.body.is_empty())
    }
}

/// What a shopper asking for a person is told when the bot has no desk to hand them
/// to: the mall's own service desk section (`service-desk`: where, when, its phone) in
/// the shopper's language, saying only what it says; without one, to ask at the mall's
/// service desk (no place, no phone of another mall's).
pub async fn no_desk(mall: &dyn services::MallApi, lang: Lang) -> String {
    let support = &lang.texts().support;
    let sections = match mall.mall_info().await {
        Ok(page) => page.items,
        Err(error) => {
            if !absent(&error) {
                tracing::warn!(%error, "could not read the mall's information for its service desk");
            }
            Vec::new()
        }
    };
    match sections
        .iter()
        .find(|s| s.id == InfoSection::SERVICE_DESK)
        .and_then(|s| SectionLine::shown(s, lang))
    {
        Some(desk) if !desk.title.is_empty() => (support.no_desk_at)(&desk.title, &desk.body),
        _ => support.no_desk.to_owned(),
    }
}

/// The index of the sections last searched, by a hash of their text (a mall's
/// information changes rarely; it is indexed again when it does).
fn index_of(sections: &[InfoSection]) -> Arc<InfoIndex> {
    static LAST: Mutex<Option<(u64, Arc<InfoIndex>)>> = Mutex::new(None);
    let mut hasher = DefaultHasher::new();
    sections.hash(&mut hasher);
    let key = hasher.finish();
    let mut last = LAST.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((k, index)) = last.as_ref()
        && *k == key
    {
        return Arc::clone(index);
    }
    // Searched in Simplified characters, whichever script the mall writes in.
    let texts: Vec<(String, String)> = sections
        .iter()
        .map(|s| {
            (
                to_simplified(&format!("{}\n{}", s.title, s.title_en)),
                to_simplified(&format!("{}\n{}", s.body, s.body_en)),
            )
        })
        .collect();
    let index = Arc::new(InfoIndex::new(texts.iter().map(|(t, b)| (t.as_str(), b.as_str()))));
    *last = Some((key, Arc::clone(&index)));
    index
}

fn mall_info_progress(lang: Lang, _args: &MallInfoArgs) -> String {
    lang.texts().mall.info_progress.to_owned()
}

/// The mall's own information (hours, parking, Wi-Fi, returns…) for a question; answer only from it.
#[tool_function(level = "safe", scope = "both", progress = mall_info_progress, help = HELP_MALL, offline = MALL_INFO_OFFLINE)]
pub async fn mall_info(ctx: &ToolContext, args: MallInfoArgs) -> ToolResult<MallInfoResult> {
    let sections = match ctx.mall.mall_info().await {
        Ok(page) => page.items,
        Err(error) if absent(&error) => Vec::new(),
        Err(error) => return Err(error.into()),
    };
    let hits = index_of(&sections).search(&to_simplified(&args.question), SHOWN_SECTIONS);
    let lang = ctx.lang;
    let found: Vec<SectionLine> = hits
        .iter()
        .filter_map(|hit| sections.get(hit.section))
        .filter_map(|s| SectionLine::shown(s, lang))
        .collect();
    let result = if found.is_empty() {
        let desk = sections
            .iter()
            .find(|s| s.id == InfoSection::SERVICE_DESK)
            .and_then(|s| SectionLine::shown(s, lang))
            .filter(|desk| !desk.title.is_empty());
        MallInfoResult { sections: Vec::new(), unknown: true, service_desk: desk }
    } else {
        MallInfoResult { sections: found, ..MallInfoResult::default() }
    };
    Ok(ToolOutput::new(result))
}

/// Basic mode's answer: the best section itself, the titles of the others;
/// or "I don't know" and the service desk.
pub fn info_answer(result: &MallInfoResult, lang: Lang) -> String {
    let words = &lang.texts().mall;
    match result.sections.split_first() {
        Some((best, others)) => {
            let mut text = match best.title.is_empty() {
                true => best.body.clone(),
                false => (words.section)(&best.title, &best.body),
            };
            let titles: Vec<String> =
                others.iter().map(|s| s.title.clone()).filter(|title| !title.is_empty()).collect();
            if !titles.is_empty() {
                text += "\n\n";
                text += &(words.see_also)(&crate::format::join(lang, &titles));
            }
            text
        }
        None => match &result.service_desk {
            Some(desk) => (words.unknown_ask_desk)(&desk.title, &desk.body),
            None => words.unknown.to_owned(),
        },
    }
}

// ---------------------------------------------------------------------------------------------
// mall_events

// Which days (no doc comment: the schema would repeat it in every request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum When {
    Today,
    Tomorrow,
    Weekend,
    Week,
}

/// Arguments of `mall_events`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct MallEventsArgs {
    pub when: Option<When>,
    /// Add every store's offers.
    pub offers: Option<bool>,
}

/// One event, in the shopper's language.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct EventLine {
    pub title: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// `2026-11-28`.
    pub date: String,
    /// Monday = 1 … Sunday = 7.
    pub weekday: u32,
    /// `14:00–16:00`.
    pub time: String,
    pub place: String,
    /// The store or area to ask the way to.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub go_to: String,
}

/// One offer; `store` is absent for an offer of the whole mall.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct OfferLine {
    pub title: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub valid_until: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub store: Option<String>,
}

/// What `mall_events` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct MallEventsResult {
    /// The days asked for, as the shopper reads them.
    pub when: String,
    /// Nothing (left) in those days: `events` are the next ones.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub none_then: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventLine>,
    /// The mall's own offers, and with `offers` the stores'.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub offers: Vec<OfferLine>,
    /// The stores' offers beyond those listed.
    #[serde(skip_serializing_if = "is_zero")]
    pub more_offers: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// The days a `when` means from `now` (local): `[start, end)` in Unix seconds,
/// and how far to move it to find the next such days.
pub fn window(when: Option<When>, now: LocalTime) -> (i64, i64, i64) {
    let today = now.day();
    let midnight = |day: i64| LocalTime::midnight(day, now.offset).unix;
    const DAY: i64 = 86_400;
    match when {
        Some(When::Today) => (now.unix, midnight(today + 1), DAY),
        Some(When::Tomorrow) => (midnight(today + 1), midnight(today + 2), DAY),
        Some(When::Weekend) => {
            let weekday = i64::from(now.weekday());
            if weekday >= 6 {
                (now.unix, midnight(today + 8 - weekday), 7 * DAY)
            } else {
                (midnight(today + 6 - weekday), midnight(today + 8 - weekday), 7 * DAY)
            }
        }
        Some(When::Week) => (now.unix, midnight(today + 7), 7 * DAY),
        None => (now.unix, now.unix + 7 * DAY, 7 * DAY),
    }
}

fn when_label(lang: Lang, when: Option<When>) -> &'static str {
    let words = &lang.texts().mall;
    match when {
        Some(When::Today) => words.when_today,
        Some(When::Tomorrow) => words.when_tomorrow,
        Some(When::Weekend) => words.when_weekend,
        Some(When::Week) => words.when_week,
        None => words.when_soon,
    }
}

fn in_window(event: &MallEvent, start: i64, end: i64) -> bool {
    let starts = LocalTime::parse(&event.starts_at).map_or(i64::MAX, |t| t.unix);
    let ends = LocalTime::parse(&event.ends_at).map_or(starts, |t| t.unix);
    ends > start && starts < end
}

fn now_unix() -> i64 {
    services::clock::now_unix()
}

/// The name of an event's store or area in the shopper's language, to ask the way to.
async fn place_to_go(ctx: &ToolContext, event: &MallEvent) -> String {
    if let Some(id) = event.store_id.as_deref()
        && let Ok(store) = ctx.mall.get_store(id).await
    {
        return crate::format::store_name(ctx.lang, &store).into_owned();
    }
    if let Some(id) = event.area_id.as_deref()
        && let Ok(area) = ctx.mall.get_area(id).await
    {
        return local_name(ctx.lang, &area.name, Some(&area.name_en)).into_owned();
    }
    String::new()
}

async fn event_line(ctx: &ToolContext, event: &MallEvent) -> EventLine {
    let lang = ctx.lang;
    let starts = LocalTime::parse(&event.starts_at);
    let ends = LocalTime::parse(&event.ends_at);
    let clock = |t: Option<LocalTime>| t.map(|t| t.clock()).map(|(h, m)| format!("{h:02}:{m:02}"));
    EventLine {
        // In English, only what the mall wrote in English (an answer says less rather than show Chinese).
        title: match local_text(lang, &event.title, &event.title_en) {
            title if title.is_empty() => lang.texts().answers.untranslated_event.to_owned(),
            title => title.into_owned(),
        },
        description: local_text(lang, &event.description, &event.description_en).into_owned(),
        date: day_of(&event.starts_at),
        weekday: starts.map_or(0, LocalTime::weekday),
        time: match (clock(starts), clock(ends)) {
            (Some(a), Some(b)) => format!("{a}–{b}"),
            (a, _) => a.unwrap_or_default(),
        },
        place: local_text(lang, &event.place, &event.place_en).into_owned(),
        go_to: place_to_go(ctx, event).await,
    }
}

fn mall_events_progress(lang: Lang, _args: &MallEventsArgs) -> String {
    lang.texts().mall.events_progress.to_owned()
}

/// The mall's events and its offers across all stores.
#[tool_function(level = "safe", scope = "both", progress = mall_events_progress, help = HELP_MALL, offline = MALL_EVENTS_OFFLINE)]
pub async fn mall_events(ctx: &ToolContext, args: MallEventsArgs) -> ToolResult<MallEventsResult> {
    let lang = ctx.lang;
    let now = now_unix();
    let query = EventQuery {
        from: Some(LocalTime::at(now, 0).rfc3339()),
        to: Some(LocalTime::at(now + 16 * 86_400, 0).rfc3339()),
    };
    let events = match ctx.mall.mall_events(&query).await {
        Ok(page) => page.items,
        Err(error) if absent(&error) => Vec::new(),
        Err(error) => return Err(error.into()),
    };
    let offset = events.iter().find_map(|e| LocalTime::parse(&e.starts_at)).map_or(0, |t| t.offset);
    let (start, end, step) = window(args.when, LocalTime::at(now, offset));
    let mut chosen: Vec<&MallEvent> = events.iter().filter(|e| in_window(e, start, end)).collect();
    let none_then = chosen.is_empty() && !events.is_empty();
    if none_then {
        chosen = events.iter().filter(|e| in_window(e, start + step, end + step)).collect();
        if chosen.is_empty() {
            chosen = events.iter().filter(|e| in_window(e, end, i64::MAX)).collect();
        }
    }
    // An event that comes back every day is told once, at its next time: the others are not crowded out.
    let mut told = std::collections::HashSet::new();
    chosen.retain(|e| told.insert(e.title.as_str()));
    let mut lines = Vec::new();
    for event in chosen.into_iter().take(SHOWN_EVENTS) {
        lines.push(event_line(ctx, event).await);
    }
    let promotions = match ctx.mall.mall_promotions().await {
        Ok(page) => page.items,
        Err(error) if absent(&error) => Vec::new(),
        Err(error) => return Err(error.into()),
    };
    let current = |until: &str| LocalTime::parse(until).is_none_or(|t| t.unix > now);
    let mut offers = Vec::new();
    let mut store_offers = 0;
    for p in promotions.iter().filter(|p| current(&p.valid_until)) {
        let store = p
            .store_name
            .as_deref()
            .map(|name| local_name(lang, name, p.store_name_en.as_deref()).into_owned());
        if store.is_some() {
            store_offers += 1;
            if args.offers != Some(true) || store_offers > SHOWN_STORE_OFFERS {
                continue;
            }
        }
        let (title, description) =
            offer_text(lang, (&p.title, &p.title_en), (&p.description, &p.description_en));
        offers.push(OfferLine { title, description, valid_until: day_of(&p.valid_until), store });
    }
    let more_offers =
        if args.offers == Some(true) { store_offers.saturating_sub(SHOWN_STORE_OFFERS) } else { 0 };
    let mut places: Vec<String> = Vec::new();
    for line in &lines {
        if !line.go_to.is_empty() && !places.contains(&line.go_to) && places.len() < PLACE_BUTTONS {
            places.push(line.go_to.clone());
        }
    }
    let result = MallEventsResult {
        when: when_label(lang, args.when).to_owned(),
        none_then,
        events: lines,
        offers,
        more_offers,
    };
    let suggestions: Vec<String> = if args.offers == Some(true) {
        Vec::new()
    } else {
        places.iter().map(|place| navigate_suggestion(lang, place)).collect()
    };
    Ok(ToolOutput::new(result).with_suggestions(suggestions))
}

/// The events of a time, as basic mode tells them.
pub fn events_answer(result: &MallEventsResult, lang: Lang) -> String {
    let words = &lang.texts().mall;
    if result.events.is_empty() {
        return words.no_events.to_owned();
    }
    let mut lines = vec![if result.none_then {
        (words.no_events_then)(&result.when)
    } else {
        (words.events_title)(&result.when)
    }];
    for event in &result.events {
        let mut ymd = event.date.splitn(3, '-').skip(1).map(|n| n.parse::<u32>().unwrap_or(0));
        let (month, day) = (ymd.next().unwrap_or(0), ymd.next().unwrap_or(0));
        let date = (words.date)(month, day, event.weekday);
        lines.push(format!("• {}", (words.event_line)(&event.title, &date, &event.time, &event.place)));
    }
    lines.join("\n")
}

/// The offers, as basic mode tells them: the mall's own, then the stores'.
pub fn offers_answer(result: &MallEventsResult, lang: Lang) -> String {
    let words = &lang.texts().mall;
    let answers = &lang.texts().answers;
    let (stores, mall): (Vec<&OfferLine>, Vec<&OfferLine>) =
        result.offers.iter().partition(|o| o.store.is_some());
    if result.offers.is_empty() {
        return words.no_offers.to_owned();
    }
    let mut lines = Vec::new();
    if !mall.is_empty() {
        lines.push(words.offers_title.to_owned());
        for (i, o) in mall.iter().enumerate() {
            lines.push(format!(
                "{}. {}",
                i + 1,
                (answers.promotion)(&o.title, &o.description, &o.valid_until)
            ));
        }
    }
    if !stores.is_empty() {
        lines.push(words.store_offers_title.to_owned());
        for o in &stores {
            let store = o.store.as_deref().unwrap_or_default();
            lines.push(format!("• {}", (words.store_offer)(store, &o.title, &o.description, &o.valid_until)));
        }
    }
    if result.more_offers > 0 {
        lines.push((words.more_offers)(result.more_offers));
    }
    lines.join("\n")
}

// ---------------------------------------------------------------------------------------------
// Basic mode

/// The mall's information ("停车怎么收费", "wifi密码是多少", "可以退货吗",
/// "商场几点关门", "how much is parking"): priority 25, before a store's
/// information (30), so the mall's own hours are not taken for a store's.
pub static MALL_INFO_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_info, info_data_answer).priority(25).reply(info_reply);

/// The mall's events and offers ("这周末有什么活动", "what's on today",
/// "商场有什么优惠"): priority 26; a store named with them ("耐克有什么活动")
/// is a store's promotions (30).
pub static MALL_EVENTS_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_events, events_data_answer).priority(26).reply(events_reply);

/// Topics of the mall's own information, in the words shoppers use (read in Simplified).
#[rustfmt::skip]
const TOPICS: &[&str] = &[
    "停车", "泊车", "车位", "停车费", "parking", "park", "car park", "wifi", "wi-fi", "无线网", "上网", "网络密码",
    "退货", "退换", "换货", "能退", "可以退", "退吗", "退款", "return", "returns", "refund", "exchange", "失物",
    "丢了东西", "掉了", "丢了", "丢失", "遗失", "不见了", "lost", "lost and found",
    "lost property", "婴儿车", "推车", "stroller", "pram", "轮椅", "wheelchair", "礼品包装", "包装礼物",
    "gift wrap", "gift wrapping", "退税", "tax refund", "tax free", "tax-free", "带宠物", "宠物能", "宠物可以",
    "带狗", "pets allowed", "dogs allowed", "pet friendly", "pet-friendly", "bring my dog", "bring a dog",
    "bring my pet", "bring pets", "吸烟", "抽烟", "smoking", "smoke", "充电桩", "新能源车", "ev charging",
    "electric car", "服务台", "service desk", "information desk", "客服电话", "服务热线", "hotline", "节假日",
    "春节", "国庆", "holiday", "holidays", "会员", "积分", "membership", "member", "loyalty",
];
/// Asking when something opens or closes.
#[rustfmt::skip]
const HOURS: &[&str] = &[
    "几点", "开门", "关门", "营业", "打烊", "开到", "what time", "open", "opens", "close", "closes", "closing",
    "hours",
];
/// The mall itself.
#[rustfmt::skip]
const MALL: &[&str] = &["商场", "商城", "购物中心", "你们", "全场", "mall", "shopping centre", "shopping center"];
/// Asking the way (a facility's place is the map's business), unless a fee is asked.
#[rustfmt::skip]
const WHERE: &[&str] = &[
    "在哪", "在哪里", "在哪儿", "怎么走", "最近的", "带我去", "where", "nearest", "take me", "how do i get",
];
#[rustfmt::skip]
const FEE: &[&str] = &["收费", "多少钱", "费用", "价格", "how much", "fee", "fees", "cost", "price", "免费", "free"];
#[rustfmt::skip]
const HOURS_FILLER: &[&str] = &[
    "今天", "现在", "晚上", "早上", "几点", "是", "吗", "呢", "的", "了", "到", "什么", "时间", "the", "does",
    "do", "is", "what", "time", "when", "today", "tonight", "until", "till", "at", "it",
];

fn recognise_info(said: &Said) -> Option<Step> {
    let s = said.scratch();
    let asks_fee = s.contains_any(FEE);
    // The words of a topic, or the title of one of the mall's own sections ("失物招领").
    // A store named with a title ("星巴克营业时间") is the store's.
    let lexicon = said.lexicon;
    let names_section = lexicon.names_info_section(&s)
        && !lexicon.names_store(&s)
        && lexicon.find_brand(&s).is_none()
        && !lexicon.names_store_around_section(&s);
    let topic = s.contains_any(TOPICS) || names_section;
    // "Where": the map's business, unless a section of the mall's information answers it
    // ("电动车充电桩在哪里" is the EV charging section when the map has no charger).
    if s.contains_any(WHERE) && !asks_fee && !(topic && said.lexicon.info_answers(said.text())) {
        return None;
    }
    let mall_hours = s.contains_any(HOURS) && {
        let mut rest = s.clone();
        rest.remove_all(HOURS);
        rest.remove_all(MALL) || {
            rest.remove_all(HOURS_FILLER);
            rest.residual().is_empty()
        }
    };
    (topic || mall_hours).then(|| Step::Call(Call::new("mall_info", json!({ "question": said.text() }))))
}

fn info_data_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<MallInfoResult>(data).map(|result| info_answer(&result, lang))
}

fn info_reply(answering: &Answering) -> Option<Reply> {
    info_data_answer(answering.lang(), answering.data).map(Reply::text)
}

#[rustfmt::skip]
const EVENTS: &[&str] = &[
    "活动", "演出", "表演", "展览", "市集", "节目", "好玩的", "音乐会", "演唱会", "events", "event", "what's on",
    "whats on", "what is on", "anything on", "what's happening", "what is happening", "things to do", "shows",
    "workshops", "activities", "activity", "concerts", "concert", "live music",
];
#[rustfmt::skip]
const OFFERS: &[&str] = &[
    "优惠", "打折", "折扣", "促销", "满减", "deals", "deal", "offers", "promotions", "discounts", "sales", "sale",
];
#[rustfmt::skip]
const WHEN: &[(&str, When)] = &[
    ("今天", When::Today), ("今晚", When::Today), ("today", When::Today), ("tonight", When::Today),
    ("明天", When::Tomorrow), ("tomorrow", When::Tomorrow),
    ("这周末", When::Weekend), ("这个周末", When::Weekend), ("周末", When::Weekend), ("星期六", When::Weekend),
    ("星期天", When::Weekend), ("周六", When::Weekend), ("周日", When::Weekend), ("weekend", When::Weekend),
    ("saturday", When::Weekend), ("sunday", When::Weekend),
    ("这周", When::Week), ("本周", When::Week), ("这星期", When::Week), ("this week", When::Week),
    // Another day of the week: this week's.
    ("星期一", When::Week), ("星期二", When::Week), ("星期三", When::Week), ("星期四", When::Week),
    ("星期五", When::Week), ("周一", When::Week), ("周二", When::Week), ("周三", When::Week), ("周四", When::Week),
    ("周五", When::Week), ("monday", When::Week), ("tuesday", When::Week), ("wednesday", When::Week),
    ("thursday", When::Week), ("friday", When::Week),
];
#[rustfmt::skip]
const EVENTS_FILLER: &[&str] = &[
    "有什么", "有没有", "有啥", "什么", "哪些", "最近", "近期", "现在", "这个", "这", "在", "有", "吗", "呢", "的",
    "都", "are", "there", "any", "what", "is", "on", "at", "the", "this", "in", "for", "s", "and", "happening",
    "coming", "up", "going",
    // Who and when of the day: every event is listed with its time and place.
    "晚上", "下午", "上午", "早上", "白天", "小朋友", "小孩", "孩子", "儿童", "亲子", "家庭", "全家", "evening",
    "night", "afternoon", "morning", "kids", "kid", "children", "child", "family", "families",
    // An event named: "灯光秀几点开始".
    "几点开始", "几点", "开始", "什么时候", "when", "time", "start", "starts", "does",
];

fn recognise_events(said: &Said) -> Option<Step> {
    let mut rest = said.scratch();
    let named = said.lexicon.names_event(&rest);
    let events = rest.remove_all(EVENTS) || named;
    let offers = rest.remove_all(OFFERS);
    if !events && !offers {
        return None;
    }
    let mut when = None;
    for (word, meaning) in WHEN {
        if rest.find(word).is_some() && when.is_none() {
            when = Some(*meaning);
        }
    }
    let words: Vec<&str> = WHEN.iter().map(|(w, _)| *w).collect();
    rest.remove_all(&words);
    rest.remove_all(EVENTS_FILLER);
    rest.remove_all(MALL);
    if !named && !rest.residual().is_empty() {
        // "耐克有什么活动": a store's promotions.
        return None;
    }
    let mut args = json!({});
    if let Some(when) = when {
        args["when"] = json!(when);
    }
    if offers && !events {
        args["offers"] = json!(true);
    }
    Some(Step::Call(Call::new("mall_events", args)))
}

fn events_data_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<MallEventsResult>(data).map(|result| events_answer(&result, lang))
}

fn events_reply(answering: &Answering) -> Option<Reply> {
    let result = read::<MallEventsResult>(answering.data)?;
    let lang = answering.lang();
    let offers_asked = answering.args.get("offers").and_then(Value::as_bool) == Some(true);
    Some(Reply::text(if offers_asked { offers_answer(&result, lang) } else { events_answer(&result, lang) }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> LocalTime {
        LocalTime::parse(text).unwrap_or_else(|| panic!("{text} parses"))
    }

    fn days(when: Option<When>, now: &str) -> (String, String) {
        let now = at(now);
        let (start, end, _) = window(when, now);
        (LocalTime::at(start, now.offset).rfc3339(), LocalTime::at(end, now.offset).rfc3339())
    }

    #[test]
    fn the_days_asked_for_are_the_malls_local_days() {
        let wednesday = "2026-11-25T12:00:00+08:00";
        assert_eq!(
            days(Some(When::Weekend), wednesday),
            ("2026-11-28T00:00:00+08:00".to_owned(), "2026-11-30T00:00:00+08:00".to_owned())
        );
        assert_eq!(
            days(Some(When::Weekend), "2026-11-29T21:00:00+08:00"),
            ("2026-11-29T21:00:00+08:00".to_owned(), "2026-11-30T00:00:00+08:00".to_owned()),
            "on Sunday evening: what is left of it"
        );
        assert_eq!(days(Some(When::Today), wednesday).1, "2026-11-26T00:00:00+08:00");
        assert_eq!(
            days(Some(When::Tomorrow), wednesday),
            ("2026-11-26T00:00:00+08:00".to_owned(), "2026-11-27T00:00:00+08:00".to_owned())
        );
        assert_eq!(days(Some(When::Week), wednesday).1, "2026-12-02T00:00:00+08:00");
        // 23:30 UTC on Friday is Saturday morning in the mall.
        assert_eq!(days(Some(When::Today), "2026-11-27T23:30:00Z").0, "2026-11-27T23:30:00Z");
        let saturday_morning = LocalTime::at(at("2026-11-27T23:30:00Z").unix, 8 * 3600);
        assert_eq!(saturday_morning.weekday(), 6);
    }

    #[test]
    fn nothing_left_then_says_so_before_the_next_events() {
        let event = EventLine {
            title: "中庭灯光秀".into(),
            date: "2026-11-28".into(),
            weekday: 6,
            time: "19:30–19:45".into(),
            place: "1F 中庭".into(),
            ..EventLine::default()
        };
        let result = MallEventsResult {
            when: "今天".into(),
            none_then: true,
            events: vec![event],
            ..Default::default()
        };
        let text = events_answer(&result, Lang::Zh);
        assert!(text.starts_with("今天没有（或已结束）活动安排。接下来的活动："), "{text}");
        assert!(text.contains("中庭灯光秀 — 11月28日（周六） 19:30–19:45，1F 中庭"), "{text}");
        let english = events_answer(&MallEventsResult { when: "today".into(), ..result }, Lang::En);
        assert!(english.contains("Nothing (more) on today") && english.contains("Sat 28 Nov"), "{english}");
        assert_eq!(events_answer(&MallEventsResult::default(), Lang::En), Lang::En.texts().mall.no_events);
    }

    #[test]
    fn a_section_written_only_in_chinese_is_not_shown_in_english() {
        let section = |id: &str, title_en: &str, body_en: &str| InfoSection {
            id: id.into(),
            title: "免费 Wi-Fi".into(),
            body: "网络名 Free，无需密码。".into(),
            title_en: title_en.into(),
            body_en: body_en.into(),
        };
        assert_eq!(SectionLine::shown(&section("wifi", "", ""), Lang::En), None, "says less");
        let untitled = SectionLine::shown(&section("wifi", "", "Network Free, no password."), Lang::En);
        assert_eq!(
            untitled,
            Some(SectionLine { title: String::new(), body: "Network Free, no password.".into() })
        );
        let shown = info_answer(
            &MallInfoResult { sections: untitled.into_iter().collect(), ..Default::default() },
            Lang::En,
        );
        assert_eq!(shown, "Network Free, no password.");
        let chinese = SectionLine::shown(&section("wifi", "", ""), Lang::ZhHant).map(|line| line.body);
        assert_eq!(chinese.as_deref(), Some("網絡名 Free，無需密碼。"));
    }

    #[test]
    fn without_an_answer_the_service_desk_is_named_and_nothing_is_guessed() {
        let desk = SectionLine { title: "Concierge".into(), body: "L1, 10:00 to 22:00".into() };
        let result = MallInfoResult { unknown: true, service_desk: Some(desk), ..Default::default() };
        let text = info_answer(&result, Lang::En);
        assert!(text.starts_with("I don't know") && text.contains("Concierge: L1, 10:00 to 22:00"), "{text}");
        let bare = info_answer(&MallInfoResult { unknown: true, ..Default::default() }, Lang::ZhHant);
        assert_eq!(bare, Lang::ZhHant.texts().mall.unknown);
    }
}
