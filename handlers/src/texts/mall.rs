//! What the bot says about the mall as a building and an institution — its
//! own information (hours, parking, Wi-Fi, services, policies), its events
//! and the offers across it — in each language: [`MallTexts`], one value per
//! table ([`ZH_HANS`], [`ZH_HANT`], [`EN`]).

/// The mall's information, events and offers.
#[derive(Debug)]
pub struct MallTexts {
    /// The status line while the mall's information is looked up.
    pub info_progress: &'static str,
    /// The status line while the mall's events or offers are looked up.
    pub events_progress: &'static str,
    /// A section as basic mode answers with it: (title, body).
    pub section: fn(&str, &str) -> String,
    /// After the best section: the titles of the others that may answer.
    pub see_also: fn(&str) -> String,
    /// No section answers, and where the service desk is: (the desk section's title, its text).
    pub unknown_ask_desk: fn(&str, &str) -> String,
    /// No section answers and the mall names no service desk.
    pub unknown: &'static str,
    /// "today", "this weekend"…, as the events list is headed.
    pub when_today: &'static str,
    pub when_tomorrow: &'static str,
    pub when_weekend: &'static str,
    pub when_week: &'static str,
    pub when_soon: &'static str,
    /// Before the events of a time: (the time).
    pub events_title: fn(&str) -> String,
    /// Nothing (left) in that time, before the next ones: (the time).
    pub no_events_then: fn(&str) -> String,
    /// The mall lists no events at all.
    pub no_events: &'static str,
    /// One event: (title, date, from–to, place).
    pub event_line: fn(&str, &str, &str, &str) -> String,
    /// A date: (month, day, weekday Monday = 1).
    pub date: fn(u32, u32, u32) -> String,
    /// Before the mall's own offers.
    pub offers_title: &'static str,
    /// Before the stores' offers.
    pub store_offers_title: &'static str,
    /// One store's offer: (store, title, description or empty, valid until).
    pub store_offer: fn(&str, &str, &str, &str) -> String,
    /// After the stores' offers shown: (how many more).
    pub more_offers: fn(usize) -> String,
    /// The mall lists no offers.
    pub no_offers: &'static str,
}

const ZH_WEEKDAYS: [&str; 7] = ["一", "二", "三", "四", "五", "六", "日"];
const EN_WEEKDAYS: [&str; 7] = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"];
const EN_MONTHS: [&str; 12] =
    ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

fn weekday(names: &[&'static str; 7], day: u32) -> &'static str {
    names[(day.clamp(1, 7) - 1) as usize]
}

/// Simplified Chinese.
pub const ZH_HANS: MallTexts = MallTexts {
    info_progress: "🏬 正在查商场的服务信息…",
    events_progress: "🎉 正在查商场的活动和优惠…",
    section: |title, body| format!("【{title}】\n{body}"),
    see_also: |titles| format!("相关：{titles}"),
    unknown_ask_desk: |desk, text| {
        format!("这个我没查到商场的确切说法，不敢乱讲，建议问一下商场服务台。\n【{desk}】{text}")
    },
    unknown: "这个我没查到商场的确切说法，不敢乱讲，请到商场服务台问一下。",
    when_today: "今天",
    when_tomorrow: "明天",
    when_weekend: "这个周末",
    when_week: "这一周",
    when_soon: "近期",
    events_title: |when| format!("{when}商场的活动："),
    no_events_then: |when| format!("{when}没有（或已结束）活动安排。接下来的活动："),
    no_events: "商场暂时没有公布活动安排。",
    event_line: |title, date, time, place| match place {
        "" => format!("{title} — {date} {time}"),
        _ => format!("{title} — {date} {time}，{place}"),
    },
    date: |month, day, wd| format!("{month}月{day}日（周{}）", weekday(&ZH_WEEKDAYS, wd)),
    offers_title: "商场的优惠：",
    store_offers_title: "各店铺的优惠：",
    store_offer: |store, title, description, until| match description {
        "" => format!("{store}：{title}（至 {until}）"),
        _ => format!("{store}：{title}（{description}，至 {until}）"),
    },
    more_offers: |n| format!("还有 {n} 条店铺优惠，问我「某某店有什么优惠」可以单独查看。"),
    no_offers: "商场暂时没有公布优惠活动。",
};

/// Traditional Chinese.
pub const ZH_HANT: MallTexts = MallTexts {
    info_progress: "🏬 正在查商場的服務資訊…",
    events_progress: "🎉 正在查商場的活動和優惠…",
    section: |title, body| format!("【{title}】\n{body}"),
    see_also: |titles| format!("相關：{titles}"),
    unknown_ask_desk: |desk, text| {
        format!("這個我沒查到商場的確切說法，不敢亂講，建議問一下商場服務台。\n【{desk}】{text}")
    },
    unknown: "這個我沒查到商場的確切說法，不敢亂講，請到商場服務台問一下。",
    when_today: "今天",
    when_tomorrow: "明天",
    when_weekend: "這個週末",
    when_week: "這一週",
    when_soon: "近期",
    events_title: |when| format!("{when}商場的活動："),
    no_events_then: |when| format!("{when}沒有（或已結束）活動安排。接下來的活動："),
    no_events: "商場暫時沒有公布活動安排。",
    event_line: |title, date, time, place| match place {
        "" => format!("{title} — {date} {time}"),
        _ => format!("{title} — {date} {time}，{place}"),
    },
    date: |month, day, wd| format!("{month}月{day}日（週{}）", weekday(&ZH_WEEKDAYS, wd)),
    offers_title: "商場的優惠：",
    store_offers_title: "各店鋪的優惠：",
    store_offer: |store, title, description, until| match description {
        "" => format!("{store}：{title}（至 {until}）"),
        _ => format!("{store}：{title}（{description}，至 {until}）"),
    },
    more_offers: |n| format!("還有 {n} 條店鋪優惠，問我「某某店有什麼優惠」可以單獨查看。"),
    no_offers: "商場暫時沒有公布優惠活動。",
};

/// English.
pub const EN: MallTexts = MallTexts {
    info_progress: "🏬 Looking up the mall's information…",
    events_progress: "🎉 Looking up the mall's events and offers…",
    section: |title, body| format!("{title}\n{body}"),
    see_also: |titles| format!("See also: {titles}"),
    unknown_ask_desk: |desk, text| {
        format!(
            "I don't know: the mall's information doesn't say, and I won't guess. Please ask the mall's service desk.\n{desk}: {text}"
        )
    },
    unknown: "I don't know: the mall's information doesn't say, and I won't guess. Please ask the mall's service desk.",
    when_today: "today",
    when_tomorrow: "tomorrow",
    when_weekend: "this weekend",
    when_week: "this week",
    when_soon: "coming up",
    events_title: |when| format!("At the mall {when}:"),
    no_events_then: |when| format!("Nothing (more) on {when}. Coming up next:"),
    no_events: "The mall hasn't published any events yet.",
    event_line: |title, date, time, place| match place {
        "" => format!("{title} — {date}, {time}"),
        _ => format!("{title} — {date}, {time}, {place}"),
    },
    date: |month, day, wd| {
        format!("{} {day} {}", weekday(&EN_WEEKDAYS, wd), EN_MONTHS[(month.clamp(1, 12) - 1) as usize])
    },
    offers_title: "Offers across the mall:",
    store_offers_title: "Offers in the stores:",
    store_offer: |store, title, description, until| match description {
        "" => format!("{store}: {title} (until {until})"),
        _ => format!("{store}: {title} ({description}, until {until})"),
    },
    more_offers: |n| format!("{n} more store offers — ask me \"any deals at <store>?\" for one store's."),
    no_offers: "The mall hasn't published any offers yet.",
};
