//! The car park, points and coupons, as a shopper asks for them: what a car
//! owes ("沪A·12345 停了多久，多少钱"), the shopper's plates, points and their
//! last changes, the mall's coupons and the shopper's own, claiming one, and
//! points spent on parking time or a coupon. Paying the fee in chat
//! (`pay_parking`) is offered here with the fee and plate shown before ✅;
//! the transport then sends the invoice, or says where to pay without
//! payments in chat (the words of both are here: [`parking_invoice_title`]…).
//!
//! Every refusal of the mall (`FEE_CHANGED`, `ALREADY_PAID`,
//! `NOT_ENOUGH_POINTS`, `COUPON_UNAVAILABLE`, `COUPON_NOT_APPLICABLE`,
//! `TOO_MANY_PLATES`, `NOT_SUPPORTED`, an unknown plate) is told in the
//! shopper's words ([`mall_words`]).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use services::{Coupon, MyCoupon, ParkingFee, Redeem, ServiceError};

use crate::basic::{Answering, Call, Reply, Said, Step, read};
use crate::format::money;
use crate::general::{NoArguments, idempotency_key};
use crate::records::Yuan;
use crate::{
    HelpLine, Lang, OfflineHook, Preview, ToolContext, ToolError, ToolOutput, ToolResult, tool_function,
};

/// How many plates the mall keeps for a shopper.
pub const MAX_PLATES: usize = 3;

/// `/help`'s line for parking.
pub static HELP_PARKING: HelpLine = HelpLine {
    zh: "🚗 停车：「沪A12345 停车费多少」「交停车费」，「记住我的车牌 沪A12345」（最多 3 个）",
    en: "🚗 Parking: \"how much for car ABC123\", \"pay parking\", \"remember my plate ABC123\" (up to 3)",
};

/// `/help`'s line for points and coupons.
pub static HELP_LOYALTY: HelpLine = HelpLine {
    zh: "🎟 积分与优惠券：「我有多少积分」「有什么券」「领取满300减50的券」「用积分换停车」「用券下单」",
    en: "🎟 Points & coupons: \"my points\", \"any coupons\", \"claim the 50 off coupon\", \"redeem points for parking\", \"checkout with my coupon\"",
};

/// A line in the shopper's language: the Chinese one (in the script of
/// `lang`) or the English one.
pub fn say(lang: Lang, zh: impl Into<String>, en: impl Into<String>) -> String {
    let texts = lang.texts();
    if texts.tool_lang == Lang::En { (texts.tool_text)(en.into()) } else { (texts.tool_text)(zh.into()) }
}

/// A plate as the car park keeps it: upper case, without dots, spaces or hyphens.
pub fn plate_key(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '.' | '·' | '•' | '・' | '-' | '－' | ' ' | '\u{3000}' | '\t'))
        .flat_map(char::to_uppercase)
        .collect()
}

/// The mall's refusal in the shopper's words, as [`ToolError::Refused`]
/// (the mall's code kept); an unreachable mall stays what it is.
pub fn refuse(lang: Lang, error: ServiceError) -> ToolError {
    match mall_words(lang, &error) {
        Some(message) => ToolError::Refused { code: error.code(), message },
        None => error.into(),
    }
}

/// What the shopper reads for a refusal of the car park, points or coupons;
/// `None` for a failure that is not one (the mall unreachable).
pub fn mall_words(lang: Lang, error: &ServiceError) -> Option<String> {
    Some(match error {
        ServiceError::FeeChanged { due_cents, .. } => say(
            lang,
            format!("停车费刚刚变了，现在应付 {}。没有扣款，请按新的金额再付一次。", money(*due_cents)),
            format!(
                "The parking fee has just changed: {} is due now. Nothing was charged; please pay the new amount.",
                money(*due_cents)
            ),
        ),
        ServiceError::AlreadyPaid { .. } => say(
            lang,
            "这辆车的停车费已经付过了，在离场时限内离开即可，不会重复收费。",
            "This car's parking is already paid: just leave within the time allowed. Nothing is charged twice.",
        ),
        ServiceError::NotEnoughPoints { balance, .. } => say(
            lang,
            format!("积分不够：您现在有 {balance} 积分。没有扣除任何积分。"),
            format!("Not enough points: you have {balance}. No points were taken."),
        ),
        ServiceError::CouponUnavailable { .. } => say(
            lang,
            "这张券领不了：已经领完、您已领过，或不在有效期内。",
            "That coupon cannot be claimed: none are left, you already have it, or it is outside its dates.",
        ),
        ServiceError::CouponNotApplicable { message } => say(
            lang,
            format!(
                "这张券不能用于这笔订单（{}）。订单没有创建，没有扣款。",
                not_applicable_why(Lang::Zh, message)
            ),
            format!(
                "That coupon does not apply to this order ({}). No order was placed and nothing was charged.",
                not_applicable_why(Lang::En, message)
            ),
        ),
        ServiceError::TooManyPlates { .. } => say(
            lang,
            format!("一个账号最多保存 {MAX_PLATES} 个车牌，请先删除一个再添加。"),
            format!("You can keep at most {MAX_PLATES} plates; remove one before adding another."),
        ),
        ServiceError::NotSupported { .. } => say(
            lang,
            "这个商场暂不提供停车、积分或优惠券的在线服务，请到服务台咨询。",
            "This mall does not offer parking, points or coupons online; please ask at the service desk.",
        ),
        ServiceError::NotFound { .. } => say(
            lang,
            "没有找到：请核对车牌或券名。",
            "Not found: please check the plate or the coupon's name.",
        ),
        ServiceError::InvalidArgument { field: Some(field), .. } if field == "plate" => say(
            lang,
            "这不像车牌号，请这样写：沪A12345、粤B·D12345 或香港车牌 AB1234。",
            "That does not look like a plate; write it like 沪A12345, 粤BD12345 or a Hong Kong plate AB1234.",
        ),
        _ => return None,
    })
}

/// Why a coupon does not apply, from the mall's message, in a few words.
fn not_applicable_why(lang: Lang, message: &str) -> &'static str {
    let m = message.to_ascii_lowercase();
    let zh = lang != Lang::En;
    if m.contains("minimum") || m.contains("min_spend") || m.contains("spend") {
        if zh { "未达到最低消费" } else { "below its minimum spend" }
    } else if m.contains("store") {
        if zh { "不适用于这些门店" } else { "not valid at these stores" }
    } else if m.contains("used") {
        if zh { "已经用过" } else { "already used" }
    } else if m.contains("expired") || m.contains("valid") || m.contains("date") {
        if zh { "不在有效期内" } else { "outside its dates" }
    } else if m.contains("not held") || m.contains("claim") || m.contains("hold") {
        if zh { "您还没有领这张券" } else { "you have not claimed it" }
    } else if zh {
        "不符合使用条件"
    } else {
        "its conditions are not met"
    }
}

// ------------------------------------------------------------------------------------ parking

/// Arguments of `parking_fee`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ParkingFeeArgs {
    pub plate: Option<String>,
}

/// Minutes free and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FreeLine {
    /// `FIRST_MINUTES`, `SPENDING` or `POINTS`.
    pub reason: String,
    pub minutes: i64,
    #[serde(default)]
    pub detail: String,
}

/// One car's fee.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CarFee {
    pub plate: String,
    /// One of the shopper's saved plates: the entry time and stay are shown.
    pub own: bool,
    /// A car with this plate is in the car park.
    pub inside: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entered_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minutes_parked: Option<i64>,
    #[serde(default)]
    pub due_yuan: Yuan,
    #[serde(default)]
    pub paid_yuan: Yuan,
    #[serde(default)]
    pub free: Vec<FreeLine>,
    /// Minutes to leave after paying.
    #[serde(default)]
    pub grace_minutes: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leave_by: Option<String>,
}

/// What `parking_fee` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ParkingFeeResult {
    pub cars: Vec<CarFee>,
    /// The shopper's saved plates.
    pub my_plates: Vec<String>,
}

fn parking_progress(lang: Lang, _args: &ParkingFeeArgs) -> String {
    say(lang, "🚗 正在查停车费…", "🚗 Checking the parking fee…")
}

/// A car's parking fee now; no plate: the shopper's saved plates.
#[tool_function(level = "safe", scope = "private", progress = parking_progress, help = HELP_PARKING, offline = PARKING_OFFLINE)]
pub async fn parking_fee(ctx: &ToolContext, args: ParkingFeeArgs) -> ToolResult<ParkingFeeResult> {
    let mine = match ctx.mall.my_plates(&ctx.shopper).await {
        Ok(page) => page.items.into_iter().map(|p| p.plate).collect(),
        Err(ServiceError::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(refuse(ctx.lang, e)),
    };
    let asked = args.plate.as_deref().map(str::trim).filter(|p| !p.is_empty());
    let plates: Vec<String> = match asked {
        Some(plate) => vec![plate.to_owned()],
        None => mine.clone(),
    };
    let mut cars = Vec::new();
    for plate in plates {
        let own = mine.iter().any(|m: &String| plate_key(m) == plate_key(&plate));
        match ctx.mall.parking_fee(&plate, Some(&ctx.shopper)).await {
            Ok(fee) => cars.push(car_fee(fee, own)),
            Err(ServiceError::NotFound { .. }) => {
                cars.push(CarFee {
                    plate: plate_key(&plate),
                    own,
                    inside: false,
                    entered_at: None,
                    minutes_parked: None,
                    due_yuan: Yuan(0),
                    paid_yuan: Yuan(0),
                    free: Vec::new(),
                    grace_minutes: 0,
                    leave_by: None,
                });
            }
            Err(e) => return Err(refuse(ctx.lang, e)),
        }
    }
    Ok(ToolOutput::new(ParkingFeeResult { cars, my_plates: mine }))
}

/// The mall's fee as the shopper may see it: someone else's car shows its fee only.
fn car_fee(fee: ParkingFee, own: bool) -> CarFee {
    CarFee {
        plate: fee.plate,
        own,
        inside: true,
        entered_at: own.then_some(fee.entered_at),
        minutes_parked: own.then_some(fee.minutes_parked),
        due_yuan: Yuan(fee.due_cents),
        paid_yuan: Yuan(fee.paid_cents),
        free: if own {
            fee.free
                .into_iter()
                .map(|f| FreeLine { reason: f.reason, minutes: f.minutes, detail: f.detail })
                .collect()
        } else {
            Vec::new()
        },
        grace_minutes: fee.grace_minutes,
        leave_by: fee.leave_by,
    }
}

/// `2 小时 5 分钟`, `2 h 5 min`.
fn duration(lang: Lang, minutes: i64) -> String {
    let (h, m) = (minutes / 60, minutes % 60);
    match (lang == Lang::En, h) {
        (true, 0) => format!("{m} min"),
        (true, _) => format!("{h} h {m} min"),
        (false, 0) => format!("{m} 分钟"),
        (false, _) => format!("{h} 小时 {m} 分钟"),
    }
}

/// `10:05` of an RFC 3339 time (the mall's local time).
fn clock(time: &str) -> String {
    time.get(11..16).unwrap_or(time).to_owned()
}

/// The figure of a detail (`¥250 spent today` → `¥250`, `200 points` → `200`).
fn detail_figure(detail: &str) -> String {
    detail.split_whitespace().find(|w| w.chars().any(|c| c.is_ascii_digit())).unwrap_or("").to_owned()
}

fn free_text(lang: Lang, free: &FreeLine) -> String {
    let figure = detail_figure(&free.detail);
    let span = duration(lang, free.minutes);
    match free.reason.as_str() {
        "FIRST_MINUTES" => say(lang, format!("前 {span}免费"), format!("the first {span} free")),
        "SPENDING" => say(
            lang,
            format!("今天在商场消费 {figure}，免 {span}"),
            format!("{span} free for {figure} spent today"),
        ),
        "POINTS" => say(lang, format!("用 {figure} 积分换 {span}"), format!("{span} for {figure} points")),
        _ => span,
    }
}

/// One car's fee in the shopper's words.
pub fn car_text(lang: Lang, car: &CarFee) -> String {
    if !car.inside {
        return say(
            lang,
            format!("🚗 {}：停车场里没有这辆车的入场记录，请核对车牌。", car.plate),
            format!("🚗 {}: no car with this plate is in the car park; please check the plate.", car.plate),
        );
    }
    let due = car.due_yuan.money();
    let mut lines = Vec::new();
    if car.due_yuan.cents() > 0 {
        lines.push(say(
            lang,
            format!("🚗 {}：现在应付 {due}", car.plate),
            format!("🚗 {}: {due} due now", car.plate),
        ));
    } else {
        lines.push(say(
            lang,
            format!("🚗 {}：现在不用付费，可以直接离场", car.plate),
            format!("🚗 {}: nothing is due, the car may leave", car.plate),
        ));
    }
    if let (Some(minutes), Some(at)) = (car.minutes_parked, &car.entered_at) {
        lines.push(say(
            lang,
            format!("已停 {}（{} 入场）", duration(lang, minutes), clock(at)),
            format!("Parked {} (in at {})", duration(lang, minutes), clock(at)),
        ));
    }
    if !car.free.is_empty() {
        let free: Vec<String> = car.free.iter().map(|f| free_text(lang, f)).collect();
        lines.push(say(
            lang,
            format!("免费时长：{}", free.join("；")),
            format!("Free time: {}", free.join("; ")),
        ));
    }
    if car.paid_yuan.cents() > 0 {
        let paid = car.paid_yuan.money();
        lines.push(say(lang, format!("已付 {paid}"), format!("Already paid {paid}")));
    }
    match &car.leave_by {
        Some(at) => lines.push(say(
            lang,
            format!("请在 {} 前离场。", clock(at)),
            format!("Please leave by {}.", clock(at)),
        )),
        None => lines.push(say(
            lang,
            format!("付款后请在 {} 分钟内离场。", car.grace_minutes),
            format!("After paying you have {} minutes to leave.", car.grace_minutes),
        )),
    }
    if !car.own {
        lines.push(say(
            lang,
            "（这不是您保存的车牌，仅显示应付金额。）",
            "(Not one of your saved plates: only the fee is shown.)",
        ));
    }
    lines.join("\n")
}

/// How to pay where the bot takes no payments: at a pay station or the exit.
pub fn parking_pay_elsewhere(lang: Lang) -> String {
    say(
        lang,
        "💳 这里不能在线付款：请在停车场的自助缴费机输入车牌，或在出口岗亭付款。",
        "💳 Payments are not taken in this chat: enter your plate at a pay station in the car park, or pay at the exit booth.",
    )
}

fn ask_plate(lang: Lang) -> String {
    say(
        lang,
        "请告诉我车牌号，例如「沪A12345 停车费多少」。也可以说「记住我的车牌 沪A12345」保存，最多 3 个。",
        "Please tell me the plate, e.g. \"how much for car ABC123\". You can also save it: \"remember my plate ABC123\", up to 3.",
    )
}

/// `parking_fee`'s result in the shopper's words.
pub fn parking_text(lang: Lang, result: &ParkingFeeResult) -> String {
    if result.cars.is_empty() {
        return ask_plate(lang);
    }
    result.cars.iter().map(|car| car_text(lang, car)).collect::<Vec<_>>().join("\n\n")
}

fn parking_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<ParkingFeeResult>(data).map(|r| parking_text(lang, &r))
}

fn parking_reply(answering: &Answering) -> Option<Reply> {
    let lang = answering.lang();
    let result = read::<ParkingFeeResult>(answering.data)?;
    Some(Reply::text(parking_text(lang, &result)))
}

/// Arguments of `save_plate`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SavePlateArgs {
    pub plate: String,
}

/// What `save_plate` returns: the shopper's plates now.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PlatesResult {
    pub plates: Vec<String>,
}

fn save_plate_progress(lang: Lang, _args: &SavePlateArgs) -> String {
    say(lang, "🚗 正在保存车牌…", "🚗 Saving your plate…")
}

/// Save the shopper's car plate.
#[tool_function(level = "confirm", scope = "private", preview = preview_save_plate, progress = save_plate_progress, help = HELP_PARKING, offline = SAVE_PLATE_OFFLINE)]
pub async fn save_plate(ctx: &ToolContext, args: SavePlateArgs) -> ToolResult<PlatesResult> {
    let page = ctx
        .mall
        .add_plate(&ctx.shopper, args.plate.trim(), idempotency_key(ctx))
        .await
        .map_err(|e| refuse(ctx.lang, e))?;
    Ok(ToolOutput::new(PlatesResult { plates: page.items.into_iter().map(|p| p.plate).collect() }))
}

/// "🚗 记住车牌 沪A12345": a fourth plate is refused before the shopper agrees.
pub async fn preview_save_plate(ctx: &ToolContext, args: SavePlateArgs) -> Result<Preview, ToolError> {
    let plate = plate_key(&args.plate);
    if plate.is_empty() {
        return Err(ToolError::invalid("plate", "a plate, e.g. 沪A12345"));
    }
    let mine: Vec<String> = match ctx.mall.my_plates(&ctx.shopper).await {
        Ok(page) => page.items.into_iter().map(|p| p.plate).collect(),
        Err(e) => return Err(refuse(ctx.lang, e)),
    };
    if mine.len() >= MAX_PLATES && !mine.iter().any(|m| plate_key(m) == plate) {
        let message = ServiceError::TooManyPlates { message: String::new() };
        return Err(refuse(ctx.lang, message));
    }
    Ok(Preview {
        summary: say(
            ctx.lang,
            format!("🚗 记住车牌 {plate}（最多 {MAX_PLATES} 个），以后问停车费不用再输入。"),
            format!("🚗 Save the plate {plate} (up to {MAX_PLATES}) so you need not type it again."),
        ),
        fingerprint: json!({ "plate": plate }),
    })
}

fn plates_answer(lang: Lang, data: &Value) -> Option<String> {
    let plates = read::<PlatesResult>(data)?.plates;
    Some(say(
        lang,
        format!("✅ 已保存。您的车牌：{}", plates.join("、")),
        format!("✅ Saved. Your plates: {}", plates.join(", ")),
    ))
}

// ------------------------------------------------------------------------------ paying parking

/// Arguments of `pay_parking`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PayParkingArgs {
    pub plate: Option<String>,
}

/// What `pay_parking` returns once confirmed: the fee due now for one car, which the
/// transport invoices (or says where to pay).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ParkingBill {
    pub plate: String,
    pub due_yuan: Yuan,
    /// Minutes to leave after paying.
    pub grace_minutes: u32,
}

fn pay_parking_progress(lang: Lang, _args: &PayParkingArgs) -> String {
    say(lang, "🚗 正在查停车费…", "🚗 Checking the parking fee…")
}

/// A refusal of `pay_parking` before anything is paid.
fn not_payable(code: &'static str, message: String) -> ToolError {
    ToolError::Refused { code, message }
}

/// The fee due now for the car to pay for: `plate`, else the shopper's one saved car with
/// something due. Nothing due, no such car, no plate: refused in words.
async fn bill_for(ctx: &ToolContext, plate: Option<&str>) -> Result<ParkingBill, ToolError> {
    let lang = ctx.lang;
    let asked = plate.map(str::trim).filter(|p| !p.is_empty());
    let plates: Vec<String> = match asked {
        Some(plate) => vec![plate.to_owned()],
        None => match ctx.mall.my_plates(&ctx.shopper).await {
            Ok(page) => page.items.into_iter().map(|p| p.plate).collect(),
            Err(ServiceError::NotFound { .. }) => Vec::new(),
            Err(e) => return Err(refuse(lang, e)),
        },
    };
    if plates.is_empty() {
        return Err(not_payable("PLATE_NEEDED", ask_plate_to_pay(lang)));
    }
    let mut due = Vec::new();
    let mut told = Vec::new();
    for plate in &plates {
        match ctx.mall.parking_fee(plate, Some(&ctx.shopper)).await {
            Ok(fee) if fee.due_cents > 0 => due.push(fee),
            Ok(fee) => told.push(match &fee.leave_by {
                Some(at) => say(
                    lang,
                    format!("🚗 {}：停车费已经付过了，请在 {} 前离场，不会重复收费。", fee.plate, clock(at)),
                    format!(
                        "🚗 {}: the parking is already paid; please leave by {}. Nothing is charged twice.",
                        fee.plate,
                        clock(at)
                    ),
                ),
                None => say(
                    lang,
                    format!("🚗 {}：现在不用付费，可以直接离场。", fee.plate),
                    format!("🚗 {}: nothing is due, the car may leave.", fee.plate),
                ),
            }),
            Err(ServiceError::NotFound { .. }) => told.push(say(
                lang,
                format!("🚗 {}：停车场里没有这辆车的入场记录，请核对车牌。", plate_key(plate)),
                format!(
                    "🚗 {}: no car with this plate is in the car park; please check the plate.",
                    plate_key(plate)
                ),
            )),
            Err(e) => return Err(refuse(lang, e)),
        }
    }
    match due.len() {
        1 => {
            let fee = due.remove(0);
            Ok(ParkingBill {
                plate: fee.plate,
                due_yuan: Yuan(fee.due_cents),
                grace_minutes: fee.grace_minutes,
            })
        }
        0 => Err(not_payable("NOTHING_DUE", told.join("\n"))),
        _ => {
            let cars: Vec<String> =
                due.iter().map(|f| format!("{} {}", f.plate, money(f.due_cents))).collect();
            Err(not_payable(
                "WHICH_CAR",
                say(
                    lang,
                    format!(
                        "您有几辆车要付停车费：{}。请说「交{}的停车费」。",
                        cars.join("、"),
                        due[0].plate
                    ),
                    format!(
                        "Several of your cars owe a fee: {}. Say \"pay parking for {}\".",
                        cars.join(", "),
                        due[0].plate
                    ),
                ),
            ))
        }
    }
}

fn ask_plate_to_pay(lang: Lang) -> String {
    say(
        lang,
        "请告诉我要交哪辆车的停车费，例如「帮我交沪A12345的停车费」。也可以先说「记住我的车牌 沪A12345」。",
        "Which car? Tell me the plate, e.g. \"pay parking for ABC123\". You can also save it first: \"remember my plate ABC123\".",
    )
}

/// Pay a car's parking fee due now; no plate: the shopper's saved car.
#[tool_function(level = "confirm", scope = "private", preview = preview_pay_parking, progress = pay_parking_progress, help = HELP_PARKING, offline = PAY_PARKING_OFFLINE)]
pub async fn pay_parking(ctx: &ToolContext, args: PayParkingArgs) -> ToolResult<ParkingBill> {
    // The fee at the moment of ✅: Telegram's pre-checkout checks it again before any money moves.
    Ok(ToolOutput::new(bill_for(ctx, args.plate.as_deref()).await?))
}

/// "💳 交停车费：沪A12345 应付 ¥30，付款后 15 分钟内离场": the fee and the plate, never the
/// entry time; nothing due or no such car is told before the shopper agrees.
pub async fn preview_pay_parking(ctx: &ToolContext, args: PayParkingArgs) -> Result<Preview, ToolError> {
    let bill = bill_for(ctx, args.plate.as_deref()).await?;
    Ok(Preview {
        summary: say(
            ctx.lang,
            format!(
                "💳 交停车费：{} 现在应付 {}，付款后请在 {} 分钟内离场。",
                bill.plate,
                bill.due_yuan.money(),
                bill.grace_minutes
            ),
            format!(
                "💳 Pay parking: {} owes {} now; after paying you have {} minutes to leave.",
                bill.plate,
                bill.due_yuan.money(),
                bill.grace_minutes
            ),
        ),
        fingerprint: json!({ "plate": bill.plate, "due_cents": bill.due_yuan.cents() }),
    })
}

fn bill_answer(lang: Lang, data: &Value) -> Option<String> {
    let bill = read::<ParkingBill>(data)?;
    Some(say(
        lang,
        format!("🚗 {}：停车费 {}。", bill.plate, bill.due_yuan.money()),
        format!("🚗 {}: parking fee {}.", bill.plate, bill.due_yuan.money()),
    ))
}

/// The confirmed bill a `pay_parking` result holds (for the transport's invoice).
pub fn confirmed_bill(result: &Value) -> Option<ParkingBill> {
    read::<ParkingBill>(result).filter(|b| !b.plate.is_empty() && b.due_yuan.cents() > 0)
}

/// Told under a confirmed bill when the bot takes payments: the invoice follows.
pub fn parking_pay_in_chat(lang: Lang, grace_minutes: u32) -> String {
    say(
        lang,
        format!("💳 请在下方的账单里付款；付款后请在 {grace_minutes} 分钟内离场。"),
        format!(
            "💳 Please pay with the invoice below; after paying you have {grace_minutes} minutes to leave."
        ),
    )
}

/// The parking invoice's title: `停车费 沪A12345`.
pub fn parking_invoice_title(lang: Lang, plate: &str) -> String {
    say(lang, format!("停车费 {plate}"), format!("Parking {plate}"))
}

/// The parking invoice's description: the plate and the time to leave after paying.
pub fn parking_invoice_description(lang: Lang, plate: &str, grace_minutes: u32) -> String {
    say(
        lang,
        format!("{plate} 的停车费。付款后请在 {grace_minutes} 分钟内离场，超时将按时重新计费。"),
        format!(
            "The parking fee of {plate}. After paying, leave within {grace_minutes} minutes; time after that is charged anew."
        ),
    )
}

/// The receipt of a parking payment: `paid ¥X, leave by HH:MM`.
pub fn parking_paid(lang: Lang, plate: &str, amount: &str, leave_by: &str) -> String {
    say(
        lang,
        format!("✅ 停车费已支付 {amount}（{plate}），请在 {} 前离场。", clock(leave_by)),
        format!("✅ Parking paid {amount} ({plate}); please leave by {}.", clock(leave_by)),
    )
}

/// The parking invoice could not be sent.
pub fn parking_invoice_failed(lang: Lang) -> String {
    say(
        lang,
        "停车费账单没能发出，没有扣款：请稍后再说「交停车费」，或在缴费机付款。",
        "The parking invoice could not be sent and nothing was charged: ask again shortly, or pay at a pay station.",
    )
}

/// A parking payment received but not yet recorded by the car park.
pub fn parking_paid_pending(lang: Lang, plate: &str) -> String {
    say(
        lang,
        format!("✅ 已收到 {plate} 的停车费付款，正在登记到停车场，完成后告诉您。"),
        format!(
            "✅ Your parking payment for {plate} was received; the car park is recording it, and I will tell you when it has."
        ),
    )
}

/// A parking payment the car park refused after the money came (the fee changed, or paid
/// already): it is refunded.
pub fn parking_refund_due(lang: Lang, plate: &str) -> String {
    say(
        lang,
        format!(
            "⚠️ {plate} 的停车费付款没能登记（费用变了或已经付过）。这笔钱会全额退回，请再说「交停车费」。"
        ),
        format!(
            "⚠️ The parking payment for {plate} could not be recorded (the fee changed or it was paid already). It will be refunded in full; please ask to pay again."
        ),
    )
}

/// Why Telegram's payment box refuses a parking payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParkingCheckout {
    /// The fee due now is not the invoice's amount.
    FeeChanged(i64),
    /// Paid already (nothing due).
    AlreadyPaid,
    /// The car is no longer in the car park.
    Gone,
    /// Not an invoice the bot made for this shopper.
    NotYours,
    /// The car park did not answer in time.
    Unavailable,
}

/// What the payment box says for a refused parking payment.
pub fn parking_checkout_refused(lang: Lang, why: ParkingCheckout) -> String {
    match why {
        ParkingCheckout::FeeChanged(due) => say(
            lang,
            format!("停车费变了，现在应付 {}。没有扣款，请重新说「交停车费」。", money(due)),
            format!(
                "The parking fee changed: {} is due now. Nothing was charged; please ask to pay again.",
                money(due)
            ),
        ),
        ParkingCheckout::AlreadyPaid => say(
            lang,
            "这辆车的停车费已经付过了，不会重复收费。",
            "This car's parking is already paid; nothing is charged twice.",
        ),
        ParkingCheckout::Gone => say(
            lang,
            "停车场里已经没有这辆车了，没有扣款。",
            "This car is no longer in the car park; nothing was charged.",
        ),
        ParkingCheckout::NotYours => say(
            lang,
            "这张停车费账单不是给您的，没有扣款。",
            "This parking invoice is not yours; nothing was charged.",
        ),
        ParkingCheckout::Unavailable => say(
            lang,
            "停车场系统暂时不可用，没有扣款，请稍后再试。",
            "The car park's system is unavailable; nothing was charged. Please try again shortly.",
        ),
    }
}

// ------------------------------------------------------------------------------------- points

/// One change of the shopper's points.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PointsLine {
    pub reason: String,
    pub amount: i64,
    pub at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_id: Option<String>,
    /// A refund's points not taken back, having been spent already.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_taken: Option<i64>,
}

/// What `my_points` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PointsResult {
    pub balance: i64,
    /// Newest first.
    pub changes: Vec<PointsLine>,
}

/// Changes `my_points` shows.
const SHOWN_CHANGES: usize = 5;

fn points_progress(lang: Lang, _args: &NoArguments) -> String {
    say(lang, "💎 正在查积分…", "💎 Checking your points…")
}

/// The shopper's points.
#[tool_function(level = "safe", scope = "private", progress = points_progress, help = HELP_LOYALTY, offline = POINTS_OFFLINE)]
pub async fn my_points(ctx: &ToolContext, _args: NoArguments) -> ToolResult<PointsResult> {
    let points = ctx.mall.points(&ctx.shopper).await.map_err(|e| refuse(ctx.lang, e))?;
    Ok(ToolOutput::new(points_result(points)))
}

fn change_text(lang: Lang, change: &PointsLine) -> String {
    let order = change.order_id.as_deref().unwrap_or("");
    let why = match change.reason.as_str() {
        "ORDER_PAID" => say(lang, format!("订单 {order} 付款"), format!("order {order} paid")),
        "ORDER_REFUNDED" => match change.not_taken {
            Some(kept) => say(
                lang,
                format!("订单 {order} 退款扣回；其中 {kept} 积分已经用掉，不再扣，余额不会变成负数"),
                format!(
                    "order {order} refunded; {kept} of its points were already spent and are not taken back, so the balance never goes below 0"
                ),
            ),
            None => say(lang, format!("订单 {order} 退款扣回"), format!("order {order} refunded")),
        },
        "PARKING" => say(lang, "兑换停车时长", "parking time"),
        "COUPON" => say(lang, "兑换优惠券", "a coupon"),
        other => other.to_owned(),
    };
    format!("{:+} {why}（{}）", change.amount, crate::basic::date(&change.at))
        .replace('（', if lang == Lang::En { "(" } else { "（" })
        .replace('）', if lang == Lang::En { ")" } else { "）" })
}

/// `my_points`' result in the shopper's words.
pub fn points_text(lang: Lang, result: &PointsResult) -> String {
    let mut text = say(
        lang,
        format!("💎 您现在有 {} 积分。", result.balance),
        format!("💎 You have {} points.", result.balance),
    );
    if result.changes.is_empty() {
        text += &say(
            lang,
            "还没有积分记录：在商场下单付款即可累积。",
            " No changes yet: paid orders in the mall earn points.",
        );
    } else {
        text += &say(lang, "\n最近的变动：", "\nLatest changes:");
        for change in &result.changes {
            text.push_str("\n• ");
            text += &change_text(lang, change);
        }
    }
    text
}

fn points_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<PointsResult>(data).map(|r| points_text(lang, &r))
}

// ------------------------------------------------------------------------------------ coupons

/// A coupon as the shopper sees it.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CouponLine {
    pub coupon_id: String,
    pub title: String,
    pub min_spend_yuan: Yuan,
    pub discount_yuan: Yuan,
    /// Left to claim.
    pub left: u32,
    pub valid_to: String,
    /// Empty: any store.
    pub stores: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub points_cost: Option<i64>,
    /// The shopper's: `AVAILABLE`, `USED` or `EXPIRED`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

impl CouponLine {
    fn of(lang: Lang, coupon: &Coupon, stores: Vec<String>, status: Option<String>) -> Self {
        CouponLine {
            coupon_id: coupon.coupon_id.clone(),
            title: coupon_title(lang, coupon),
            min_spend_yuan: Yuan(coupon.min_spend_cents),
            discount_yuan: Yuan(coupon.discount_cents),
            left: coupon.left,
            valid_to: crate::basic::date(&coupon.valid_to),
            stores,
            points_cost: coupon.points_cost,
            status,
        }
    }
}

fn coupon_title(lang: Lang, coupon: &Coupon) -> String {
    crate::format::local_text(lang, &coupon.title, &coupon.title_en).into_owned()
}

/// Arguments of `list_coupons`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListCouponsArgs {
    pub mine: Option<bool>,
}

/// What `list_coupons` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct CouponsResult {
    pub mine: bool,
    pub coupons: Vec<CouponLine>,
}

fn coupons_progress(lang: Lang, _args: &ListCouponsArgs) -> String {
    say(lang, "🎟 正在查优惠券…", "🎟 Looking at the coupons…")
}

/// Names of the stores a coupon is for, in the shopper's language.
async fn store_names(ctx: &ToolContext, ids: &[String]) -> Vec<String> {
    let mut names = Vec::new();
    for id in ids {
        match ctx.mall.get_store(id).await {
            Ok(store) => names.push(crate::format::store_name(ctx.lang, &store).into_owned()),
            Err(_) => names.push(id.clone()),
        }
    }
    names
}

/// The mall's coupons; mine: the shopper's.
#[tool_function(level = "safe", scope = "both", progress = coupons_progress, help = HELP_LOYALTY, offline = COUPONS_OFFLINE)]
pub async fn list_coupons(ctx: &ToolContext, args: ListCouponsArgs) -> ToolResult<CouponsResult> {
    let mine = args.mine.unwrap_or(false);
    let mut coupons = Vec::new();
    if mine {
        let page = ctx.mall.my_coupons(&ctx.shopper).await.map_err(|e| refuse(ctx.lang, e))?;
        for held in page.items {
            let stores = store_names(ctx, &held.coupon.store_ids).await;
            coupons.push(CouponLine::of(ctx.lang, &held.coupon, stores, Some(held.status)));
        }
    } else {
        let page = ctx.mall.list_coupons().await.map_err(|e| refuse(ctx.lang, e))?;
        for coupon in page.items {
            let stores = store_names(ctx, &coupon.store_ids).await;
            coupons.push(CouponLine::of(ctx.lang, &coupon, stores, None));
        }
    }
    Ok(ToolOutput::new(CouponsResult { mine, coupons }))
}

/// One coupon in the shopper's words.
pub fn coupon_text(lang: Lang, c: &CouponLine) -> String {
    let (min, off) = (c.min_spend_yuan.money(), c.discount_yuan.money());
    let stores = if c.stores.is_empty() {
        say(lang, "全场通用", "any store")
    } else {
        say(lang, format!("限 {}", c.stores.join("、")), format!("at {}", c.stores.join(", ")))
    };
    // An English title says its figures already ("¥50 off ¥300, any store").
    let mut text = if c.title.contains(&off) && c.title.contains(&min) {
        say(
            lang,
            format!("{}，有效期至 {}", c.title, c.valid_to),
            format!("{}, valid until {}", c.title, c.valid_to),
        )
    } else {
        say(
            lang,
            format!("{}：满 {min} 减 {off}，{stores}，有效期至 {}", c.title, c.valid_to),
            format!("{}: {off} off {min}, {stores}, valid until {}", c.title, c.valid_to),
        )
    };
    match c.status.as_deref() {
        Some(status) => {
            let status = match status {
                "AVAILABLE" => say(lang, "可用", "ready to use"),
                "USED" => say(lang, "已使用", "used"),
                _ => say(lang, "已过期", "expired"),
            };
            text += &say(lang, format!("（{status}）"), format!(" ({status})"));
        }
        None => {
            if c.left == 0 {
                text += &say(lang, "，已领完", ", none left");
            } else {
                text += &say(lang, format!("，剩 {} 张", c.left), format!(", {} left", c.left));
            }
            if let Some(cost) = c.points_cost {
                text += &say(lang, format!("，需 {cost} 积分兑换"), format!(", costs {cost} points"));
            }
        }
    }
    text
}

/// `list_coupons`' result in the shopper's words.
pub fn coupons_text(lang: Lang, result: &CouponsResult) -> String {
    if result.coupons.is_empty() {
        return if result.mine {
            say(
                lang,
                "您还没有领优惠券。说「有什么券」看看可以领的。",
                "You have no coupons yet. Ask \"any coupons?\" to see what you can claim.",
            )
        } else {
            say(lang, "商场现在没有可领的优惠券。", "The mall has no coupons to claim right now.")
        };
    }
    let head = if result.mine {
        say(lang, "🎟 您的优惠券：", "🎟 Your coupons:")
    } else {
        say(lang, "🎟 商场优惠券：", "🎟 The mall's coupons:")
    };
    let lines: Vec<String> = result
        .coupons
        .iter()
        .enumerate()
        .map(|(i, c)| format!("{}. {}", i + 1, coupon_text(lang, c)))
        .collect();
    let tail = if result.mine {
        say(lang, "下单时说「用券下单」即可使用。", "Say \"checkout with my coupon\" to use one.")
    } else {
        say(
            lang,
            "想要哪张，说「领取」加券名即可，如「领取全场满300减50」。",
            "Say \"claim\" and the coupon, e.g. \"claim the 50 off coupon\".",
        )
    };
    format!("{head}\n{}\n{tail}", lines.join("\n"))
}

fn coupons_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<CouponsResult>(data).map(|r| coupons_text(lang, &r))
}

/// Arguments of `claim_coupon`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ClaimCouponArgs {
    pub coupon: String,
}

fn claim_progress(lang: Lang, _args: &ClaimCouponArgs) -> String {
    say(lang, "🎟 正在领取…", "🎟 Claiming…")
}

/// Numbers written in a text (`满200减20` → 200, 20).
fn figures(text: &str) -> Vec<i64> {
    let mut out = Vec::new();
    let mut current = String::new();
    for c in text.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_digit() {
            current.push(c);
        } else if !current.is_empty() {
            if let Ok(n) = current.parse() {
                out.push(n);
            }
            current.clear();
        }
    }
    out
}

/// Words of a request that do not name a coupon.
#[rustfmt::skip]
const NOT_A_COUPON: &[&str] = &[
    "领取", "领", "領取", "領", "帮我", "幫我", "我要", "要", "一张", "一張", "这张", "這張", "那张", "那張", "的",
    "优惠券", "優惠券", "券", "coupon", "coupons", "voucher", "claim", "the", "get", "me", "please", "a", "off",
    "for", "one", "grab", "i", "want",
];

/// The coupon the words name: its id, or its figures and title words.
pub fn match_coupon<'a>(coupons: &'a [Coupon], words: &str) -> Option<&'a Coupon> {
    let words = words.trim();
    if let Some(c) = coupons.iter().find(|c| c.coupon_id.eq_ignore_ascii_case(words)) {
        return Some(c);
    }
    let lower = crate::texts::zh_hant::to_simplified(&words.to_lowercase());
    let numbers = figures(&lower);
    let score = |c: &Coupon| -> i64 {
        let yuan = [c.discount_cents / 100, c.min_spend_cents / 100, c.points_cost.unwrap_or(-1)];
        if !numbers.is_empty() {
            if !numbers.iter().all(|n| yuan.contains(n) || c.coupon_id.contains(&n.to_string())) {
                return 0;
            }
            return numbers.iter().map(|n| if *n == yuan[0] { 2 } else { 1 }).sum();
        }
        let mut rest = lower.clone();
        for w in NOT_A_COUPON {
            if w.is_ascii() {
                rest = rest.split_whitespace().filter(|t| t != w).collect::<Vec<_>>().join(" ");
            } else {
                rest = rest.replace(w, " ");
            }
        }
        let title = format!("{} {}", c.title, c.title_en.to_lowercase());
        let chars: Vec<char> = rest.chars().filter(|c| !c.is_whitespace()).collect();
        let zh = chars
            .windows(2)
            .filter(|w| !w[0].is_ascii() && title.contains(&w.iter().collect::<String>()))
            .count();
        let en =
            rest.split_whitespace().filter(|w| w.len() >= 3 && w.is_ascii() && title.contains(w)).count();
        (zh + en) as i64
    };
    let mut best: Vec<(i64, &Coupon)> =
        coupons.iter().map(|c| (score(c), c)).filter(|(s, _)| *s > 0).collect();
    best.sort_by_key(|(s, _)| -s);
    match best.as_slice() {
        [(top, c), rest @ ..] if rest.first().is_none_or(|(s, _)| s < top) => Some(c),
        _ => None,
    }
}

/// The mall's coupon `words` names; none: `NotFound` listing them.
async fn find_coupon(ctx: &ToolContext, words: &str) -> Result<Coupon, ToolError> {
    let coupons = ctx.mall.list_coupons().await.map_err(|e| refuse(ctx.lang, e))?.items;
    match match_coupon(&coupons, words) {
        Some(c) => Ok(c.clone()),
        None => {
            let titles: Vec<String> = coupons.iter().map(|c| coupon_title(ctx.lang, c)).collect();
            Err(ToolError::Refused {
                code: "NOT_FOUND",
                message: say(
                    ctx.lang,
                    format!("没有找到「{}」这张券。可以领的有：{}", words.trim(), titles.join("、")),
                    format!(
                        "There is no coupon \"{}\". The coupons are: {}",
                        words.trim(),
                        titles.join(", ")
                    ),
                ),
            })
        }
    }
}

/// The coupon to claim, checked: none left or already held are told before the shopper agrees.
async fn plan_claim(ctx: &ToolContext, words: &str) -> Result<Coupon, ToolError> {
    let coupon = find_coupon(ctx, words).await?;
    let title = coupon_title(ctx.lang, &coupon);
    if let Ok(mine) = ctx.mall.my_coupons(&ctx.shopper).await
        && mine.items.iter().any(|m: &MyCoupon| m.coupon.coupon_id == coupon.coupon_id)
    {
        return Err(ToolError::Refused {
            code: "COUPON_UNAVAILABLE",
            message: say(
                ctx.lang,
                format!("您已经领过「{title}」了，每人限领一张。说「我的券」可以查看。"),
                format!("You already have \"{title}\": one per shopper. Say \"my coupons\" to see it."),
            ),
        });
    }
    if coupon.left == 0 {
        return Err(ToolError::Refused {
            code: "COUPON_UNAVAILABLE",
            message: say(
                ctx.lang,
                format!("「{title}」已经被领完了。"),
                format!("\"{title}\" has all been claimed."),
            ),
        });
    }
    Ok(coupon)
}

/// Claim a coupon (id or title words).
#[tool_function(level = "confirm", scope = "private", preview = preview_claim_coupon, progress = claim_progress, help = HELP_LOYALTY, offline = CLAIM_OFFLINE)]
pub async fn claim_coupon(ctx: &ToolContext, args: ClaimCouponArgs) -> ToolResult<CouponLine> {
    let coupon = plan_claim(ctx, &args.coupon).await?;
    let key = idempotency_key(ctx);
    let claimed = if coupon.points_cost.is_some() {
        let redeem = Redeem::Coupon { coupon_id: coupon.coupon_id.clone() };
        let done = ctx.mall.redeem_points(&ctx.shopper, &redeem, key).await;
        done.map(|done| done.coupon.map_or_else(|| coupon.clone(), |c| c.coupon))
    } else {
        ctx.mall.claim_coupon(&ctx.shopper, &coupon.coupon_id, key).await.map(|held| held.coupon)
    };
    let held = match claimed {
        Ok(held) => held,
        // Taken since it was checked (the last ones, by others pressing at the
        // same moment), or held already: the mall as it is now says which.
        Err(error @ ServiceError::CouponUnavailable { .. }) => {
            plan_claim(ctx, &args.coupon).await?;
            return Err(refuse(ctx.lang, error));
        }
        Err(error) => return Err(refuse(ctx.lang, error)),
    };
    let stores = store_names(ctx, &held.store_ids).await;
    Ok(ToolOutput::new(CouponLine::of(ctx.lang, &held, stores, Some("AVAILABLE".into()))))
}

/// "🎟 领取优惠券：全场满300减50（满 ¥300 减 ¥50，全场通用，有效期至 2030-12-31）".
pub async fn preview_claim_coupon(ctx: &ToolContext, args: ClaimCouponArgs) -> Result<Preview, ToolError> {
    let coupon = plan_claim(ctx, &args.coupon).await?;
    let stores = store_names(ctx, &coupon.store_ids).await;
    let line = coupon_text(
        ctx.lang,
        &CouponLine { status: Some(String::new()), ..CouponLine::of(ctx.lang, &coupon, stores, None) },
    );
    // The status word ("expired") of an empty status is not part of a preview.
    let line = line.rsplit_once(['（', '(']).map_or(line.clone(), |(head, _)| head.trim_end().to_owned());
    let summary = match coupon.points_cost {
        Some(cost) => say(
            ctx.lang,
            format!("🎟 用 {cost} 积分兑换优惠券：{line}"),
            format!("🎟 Spend {cost} points on the coupon {line}"),
        ),
        None => say(ctx.lang, format!("🎟 领取优惠券：{line}"), format!("🎟 Claim the coupon {line}")),
    };
    Ok(Preview { summary, fingerprint: json!({ "coupon_id": coupon.coupon_id }) })
}

fn claimed_answer(lang: Lang, data: &Value) -> Option<String> {
    let c = read::<CouponLine>(data)?;
    Some(say(
        lang,
        format!(
            "✅ 已领取「{}」：满 {} 减 {}，有效期至 {}。下单时说「用券下单」即可使用。",
            c.title,
            c.min_spend_yuan.money(),
            c.discount_yuan.money(),
            c.valid_to
        ),
        format!(
            "✅ Claimed \"{}\": {} off {}, valid until {}. Say \"checkout with my coupon\" to use it.",
            c.title,
            c.discount_yuan.money(),
            c.min_spend_yuan.money(),
            c.valid_to
        ),
    ))
}

// ----------------------------------------------------------------------------- points redeemed

/// What points are spent on: free parking time for one of the shopper's cars in the car
/// park, or a coupon that costs points.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RedeemFor {
    Parking,
    Coupon,
}

// The fields' meanings stay out of the schema the model reads (its tokens are counted):
// `plate` one of the shopper's (none: their saved car inside), `hours` whole hours (none:
// what clears the fee, or what `points` buy), `coupon` its id or title words, `points` the
// points the shopper says to spend ("用500积分").
/// Arguments of `redeem_points`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RedeemPointsArgs {
    #[serde(rename = "for")]
    pub redeem_for: RedeemFor,
    pub plate: Option<String>,
    pub hours: Option<u32>,
    pub coupon: Option<String>,
    pub points: Option<i64>,
}

/// What `redeem_points` returns.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct RedeemedResult {
    pub points_spent: i64,
    /// The balance after it.
    pub balance: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plate: Option<String>,
    /// Free parking minutes added to the car's stay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parking_minutes: Option<i64>,
    /// The car's fee due after it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub due_yuan: Option<Yuan>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coupon: Option<CouponLine>,
}

/// A redemption worked out and checked before the shopper agrees.
struct RedeemPlan {
    redeem: Redeem,
    summary: String,
}

fn redeem_progress(lang: Lang, _args: &RedeemPointsArgs) -> String {
    say(lang, "💎 正在兑换积分…", "💎 Spending your points…")
}

/// Too few points for `what`, in words: what it costs and what the shopper has.
fn too_few_points(lang: Lang, cost: i64, balance: i64, what_zh: &str, what_en: &str) -> ToolError {
    ToolError::Refused {
        code: "NOT_ENOUGH_POINTS",
        message: say(
            lang,
            format!("积分不够：{what_zh}要 {cost} 积分，您现在有 {balance} 积分。没有扣除任何积分。"),
            format!(
                "Not enough points: {what_en} costs {cost} points and you have {balance}. No points were taken."
            ),
        ),
    }
}

/// Hours of free parking that bring the fee of `fee` to 0 (1 to 24).
pub fn hours_to_cover(fee: &ParkingFee) -> u32 {
    let first: i64 = fee.free.iter().filter(|f| f.reason == "FIRST_MINUTES").map(|f| f.minutes).sum();
    let earned: i64 = fee.free.iter().filter(|f| f.reason != "FIRST_MINUTES").map(|f| f.minutes).sum();
    let charged = (fee.minutes_parked - earned - first).max(1);
    u32::try_from((charged + 59) / 60).unwrap_or(24).clamp(1, 24)
}

/// The shopper's car in the car park: the plate asked (one of theirs) or their saved one
/// that is inside, with its fee now.
async fn my_car_inside(ctx: &ToolContext, asked: Option<&str>) -> Result<ParkingFee, ToolError> {
    let lang = ctx.lang;
    let mine: Vec<String> = match ctx.mall.my_plates(&ctx.shopper).await {
        Ok(page) => page.items.into_iter().map(|p| p.plate).collect(),
        Err(ServiceError::NotFound { .. }) => Vec::new(),
        Err(e) => return Err(refuse(lang, e)),
    };
    let asked = asked.map(str::trim).filter(|p| !p.is_empty());
    if let Some(plate) = asked
        && !mine.iter().any(|m| plate_key(m) == plate_key(plate))
    {
        let plate = plate_key(plate);
        return Err(ToolError::Refused {
            code: "NOT_FOUND",
            message: say(
                lang,
                format!(
                    "{plate} 不是您保存的车牌：积分只能换您自己车的停车时长。先发「/car {plate}」保存它。"
                ),
                format!(
                    "{plate} is not one of your plates: points buy parking for your own car only. Save it first with \"/car {plate}\"."
                ),
            ),
        });
    }
    if mine.is_empty() {
        return Err(ToolError::Refused {
            code: "NOT_FOUND",
            message: say(
                lang,
                "您还没有保存车牌：先发「/car 沪A12345」保存您的车牌，再用积分换停车。",
                "You have no saved plate: save yours first with \"/car ABC123\", then spend points on parking.",
            ),
        });
    }
    let plates: Vec<String> = match asked {
        Some(plate) => vec![plate.to_owned()],
        None => mine.clone(),
    };
    let mut inside = Vec::new();
    for plate in &plates {
        match ctx.mall.parking_fee(plate, Some(&ctx.shopper)).await {
            Ok(fee) => inside.push(fee),
            Err(ServiceError::NotFound { .. }) => {}
            Err(e) => return Err(refuse(lang, e)),
        }
    }
    // The car that owes something first.
    inside.sort_by_key(|fee| -fee.due_cents);
    inside.into_iter().next().ok_or_else(|| ToolError::Refused {
        code: "NOT_FOUND",
        message: say(
            lang,
            format!("停车场里现在没有您的车（{}），积分等车入场后再换。", plates.join("、")),
            format!(
                "No car of yours is in the car park ({}); spend points on parking once it is in.",
                plates.join(", ")
            ),
        ),
    })
}

/// The coupon for points the words (or the points offered) name, checked: held already,
/// none left and not for points are told before the shopper agrees.
async fn coupon_for_points(ctx: &ToolContext, args: &RedeemPointsArgs) -> Result<Coupon, ToolError> {
    let lang = ctx.lang;
    let coupons = ctx.mall.list_coupons().await.map_err(|e| refuse(lang, e))?.items;
    let named = args.coupon.as_deref().map(str::trim).filter(|w| !w.is_empty());
    let for_points: Vec<&Coupon> = coupons.iter().filter(|c| c.points_cost.is_some()).collect();
    let titles = |list: &[&Coupon]| -> String {
        let lines: Vec<String> = list
            .iter()
            .map(|c| {
                let cost = c.points_cost.unwrap_or_default();
                say(
                    lang,
                    format!("「{}」{cost} 积分", coupon_title(lang, c)),
                    format!("\"{}\" for {cost} points", coupon_title(lang, c)),
                )
            })
            .collect();
        lines.join(if lang == Lang::En { ", " } else { "、" })
    };
    let chosen = match named.and_then(|words| match_coupon(&coupons, words)) {
        Some(coupon) if coupon.points_cost.is_none() => {
            let title = coupon_title(lang, coupon);
            return Err(ToolError::Refused {
                code: "COUPON_UNAVAILABLE",
                message: say(
                    lang,
                    format!("「{title}」不用积分，直接说「领取{title}」就能领。"),
                    format!("\"{title}\" costs no points: say \"claim {title}\" to get it."),
                ),
            });
        }
        Some(coupon) => coupon.clone(),
        None => {
            let affordable: Vec<&Coupon> = for_points
                .iter()
                .copied()
                .filter(|c| args.points.is_none_or(|p| c.points_cost.unwrap_or(i64::MAX) <= p))
                .collect();
            match affordable.as_slice() {
                [one] => (*one).clone(),
                _ if for_points.is_empty() => {
                    return Err(ToolError::Refused {
                        code: "NOT_FOUND",
                        message: say(
                            lang,
                            "商场现在没有可以用积分兑换的优惠券。",
                            "The mall has no coupons for points right now.",
                        ),
                    });
                }
                [] => {
                    let offered = args.points.unwrap_or_default();
                    return Err(ToolError::Refused {
                        code: "NOT_FOUND",
                        message: say(
                            lang,
                            format!("{offered} 积分换不到券。可以兑换的有：{}", titles(&for_points)),
                            format!(
                                "{offered} points buy no coupon. The coupons for points: {}",
                                titles(&for_points)
                            ),
                        ),
                    });
                }
                several => {
                    return Err(ToolError::Refused {
                        code: "NOT_FOUND",
                        message: say(
                            lang,
                            format!("要换哪一张？可以兑换的有：{}", titles(several)),
                            format!("Which one? The coupons for points: {}", titles(several)),
                        ),
                    });
                }
            }
        }
    };
    let title = coupon_title(lang, &chosen);
    if let Ok(mine) = ctx.mall.my_coupons(&ctx.shopper).await
        && mine.items.iter().any(|m: &MyCoupon| m.coupon.coupon_id == chosen.coupon_id)
    {
        return Err(ToolError::Refused {
            code: "COUPON_UNAVAILABLE",
            message: say(
                lang,
                format!("您已经有「{title}」了，每人限一张，没有扣积分。"),
                format!("You already have \"{title}\": one per shopper. No points were taken."),
            ),
        });
    }
    if chosen.left == 0 {
        return Err(ToolError::Refused {
            code: "COUPON_UNAVAILABLE",
            message: say(
                lang,
                format!("「{title}」已经被领完了。"),
                format!("\"{title}\" has all been claimed."),
            ),
        });
    }
    Ok(chosen)
}

/// What the shopper is asked to agree to: the points, what they buy, and that there are enough.
async fn plan_redeem(ctx: &ToolContext, args: &RedeemPointsArgs) -> Result<RedeemPlan, ToolError> {
    let lang = ctx.lang;
    let points = ctx.mall.points(&ctx.shopper).await.map_err(|e| refuse(lang, e))?;
    let balance = points.balance;
    match args.redeem_for {
        RedeemFor::Parking => {
            let per_hour = points.rule.map_or(0, |rule| rule.points_per_parking_hour);
            if per_hour <= 0 {
                let message = "parking is not sold for points".to_owned();
                return Err(refuse(lang, ServiceError::NotSupported { message }));
            }
            let fee = my_car_inside(ctx, args.plate.as_deref()).await?;
            let plate = fee.plate.clone();
            if fee.due_cents == 0 {
                return Err(ToolError::Refused {
                    code: "NOTHING_DUE",
                    message: say(
                        lang,
                        format!("🚗 {plate} 现在不用付停车费，不需要用积分。"),
                        format!("🚗 {plate} owes nothing now: no points needed."),
                    ),
                });
            }
            let from_points = args.points.map(|p| u32::try_from(p / per_hour).unwrap_or(24).max(1));
            let hours = args.hours.or(from_points).unwrap_or_else(|| hours_to_cover(&fee)).clamp(1, 24);
            let cost = per_hour * i64::from(hours);
            let due = money(fee.due_cents);
            if balance < cost {
                let (zh, en) = (format!("{hours} 小时停车"), format!("{hours} h of parking"));
                return Err(too_few_points(lang, cost, balance, &zh, &en));
            }
            Ok(RedeemPlan {
                redeem: Redeem::Parking { plate: plate.clone(), hours },
                summary: say(
                    lang,
                    format!(
                        "🅿️ 用 {cost} 积分换 {plate} 的 {hours} 小时免费停车（现在应付 {due}，您有 {balance} 积分）"
                    ),
                    format!(
                        "🅿️ Spend {cost} points on {hours} h of free parking for {plate} ({due} due now; you have {balance} points)"
                    ),
                ),
            })
        }
        RedeemFor::Coupon => {
            let coupon = coupon_for_points(ctx, args).await?;
            let cost = coupon.points_cost.unwrap_or_default();
            let title = coupon_title(lang, &coupon);
            if balance < cost {
                let (zh, en) = (format!("「{title}」"), format!("\"{title}\""));
                return Err(too_few_points(lang, cost, balance, &zh, &en));
            }
            let stores = store_names(ctx, &coupon.store_ids).await;
            let line = coupon_text(
                lang,
                &CouponLine { points_cost: None, left: 1, ..CouponLine::of(lang, &coupon, stores, None) },
            );
            let line = line.rsplit_once(['，', ',']).map_or(line.clone(), |(head, _)| head.to_owned());
            Ok(RedeemPlan {
                redeem: Redeem::Coupon { coupon_id: coupon.coupon_id.clone() },
                summary: say(
                    lang,
                    format!("🎟 用 {cost} 积分兑换优惠券：{line}（您有 {balance} 积分）"),
                    format!("🎟 Spend {cost} points on the coupon {line} (you have {balance} points)"),
                ),
            })
        }
    }
}

/// Spend points on parking hours for a plate, or on a coupon.
#[tool_function(level = "confirm", scope = "private", preview = preview_redeem_points, progress = redeem_progress, help = HELP_LOYALTY, offline = REDEEM_OFFLINE)]
pub async fn redeem_points(ctx: &ToolContext, args: RedeemPointsArgs) -> ToolResult<RedeemedResult> {
    let lang = ctx.lang;
    // What the shopper agreed to, exactly; worked out again only without a confirmation.
    let agreed = ctx
        .approval
        .as_ref()
        .and_then(|a| serde_json::from_value::<Redeem>(a.preview.fingerprint["redeem"].clone()).ok());
    let redeem = match agreed {
        Some(redeem) => redeem,
        None => plan_redeem(ctx, &args).await?.redeem,
    };
    let done = ctx
        .mall
        .redeem_points(&ctx.shopper, &redeem, idempotency_key(ctx))
        .await
        .map_err(|e| refuse(lang, e))?;
    let mut result = RedeemedResult {
        points_spent: done.points_spent,
        balance: done.balance,
        parking_minutes: done.parking_minutes,
        ..RedeemedResult::default()
    };
    match &redeem {
        Redeem::Parking { plate, .. } => {
            result.plate = Some(plate_key(plate));
            if let Ok(fee) = ctx.mall.parking_fee(plate, Some(&ctx.shopper)).await {
                result.due_yuan = Some(Yuan(fee.due_cents));
            }
        }
        Redeem::Coupon { .. } => {
            if let Some(held) = done.coupon {
                let stores = store_names(ctx, &held.coupon.store_ids).await;
                result.coupon = Some(CouponLine::of(lang, &held.coupon, stores, Some(held.status)));
            }
        }
    }
    Ok(ToolOutput::new(result))
}

/// "🅿️ 用 200 积分换 沪A12345 的 2 小时免费停车": too few points, no car inside, a coupon
/// held already are refused before the shopper agrees.
pub async fn preview_redeem_points(ctx: &ToolContext, args: RedeemPointsArgs) -> Result<Preview, ToolError> {
    let plan = plan_redeem(ctx, &args).await?;
    Ok(Preview { summary: plan.summary, fingerprint: json!({ "redeem": plan.redeem }) })
}

/// `redeem_points`' result in the shopper's words.
pub fn redeemed_text(lang: Lang, r: &RedeemedResult) -> String {
    let (spent, balance) = (r.points_spent, r.balance);
    if let Some(c) = &r.coupon {
        return say(
            lang,
            format!(
                "✅ 已用 {spent} 积分兑换「{}」（满 {} 减 {}，有效期至 {}），还剩 {balance} 积分。下单时说「用券下单」即可使用。",
                c.title,
                c.min_spend_yuan.money(),
                c.discount_yuan.money(),
                c.valid_to
            ),
            format!(
                "✅ Spent {spent} points on \"{}\" ({} off {}, valid until {}); {balance} points left. Say \"checkout with my coupon\" to use it.",
                c.title,
                c.discount_yuan.money(),
                c.min_spend_yuan.money(),
                c.valid_to
            ),
        );
    }
    let plate = r.plate.as_deref().unwrap_or_default();
    let hours = r.parking_minutes.unwrap_or_default() / 60;
    let mut text = say(
        lang,
        format!("✅ 已用 {spent} 积分为 {plate} 换了 {hours} 小时免费停车，还剩 {balance} 积分。"),
        format!("✅ Spent {spent} points on {hours} h of free parking for {plate}; {balance} points left."),
    );
    match r.due_yuan {
        Some(due) if due.cents() > 0 => {
            text +=
                &say(lang, format!("现在还应付 {}。", due.money()), format!(" {} is still due.", due.money()))
        }
        Some(_) => {
            text += &say(lang, "现在不用付费，可以直接离场。", " Nothing is due now: the car may leave.")
        }
        None => {}
    }
    text
}

fn redeemed_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<RedeemedResult>(data).map(|r| redeemed_text(lang, &r))
}

// ------------------------------------------------------------------------ the chat's commands

/// The words of a failure of `/car`, `/points` or `/coupons`: the refusal's own, else that the
/// mall cannot be reached.
pub fn command_failed(lang: Lang, error: &ToolError) -> String {
    match error {
        ToolError::Refused { message, .. } => message.clone(),
        ToolError::InvalidArguments { field: Some(field), .. } if field == "plate" => {
            mall_words(lang, &ServiceError::invalid("plate", "")).unwrap_or_default()
        }
        _ => lang.texts().answers.mall_down.to_owned(),
    }
}

/// The plate in `/car <plate>`, as the car park keeps it; `None`: it does not look like one.
pub fn typed_plate(text: &str) -> Option<String> {
    find_plate(&format!("car {text}")).filter(|p| p.chars().count() == plate_key(text).chars().count())
}

/// The label of the button removing a plate under `/car`.
pub fn remove_plate_label(plate: &str) -> String {
    format!("✖ {plate}")
}

/// The label of the button claiming a coupon under `/coupons`.
pub fn claim_label(lang: Lang, title: &str) -> String {
    say(lang, format!("🎟 领取：{title}"), format!("🎟 Claim: {title}"))
}

/// `/car`: the shopper's plates, each with its car's state in the car park (in, with the
/// fee now; or not in).
pub fn my_cars_text(lang: Lang, cars: &[(String, Option<ParkingFee>)]) -> String {
    if cars.is_empty() {
        return say(
            lang,
            format!(
                "🚗 您还没有保存车牌。发「/car 沪A12345」保存（最多 {MAX_PLATES} 个），以后查停车费不用再输入。"
            ),
            format!(
                "🚗 You have no saved plates. Send \"/car ABC123\" to save one (up to {MAX_PLATES}); then the fee is a word away."
            ),
        );
    }
    let mut lines = vec![say(
        lang,
        format!("🚗 您的车牌（{}/{MAX_PLATES}）：", cars.len()),
        format!("🚗 Your plates ({}/{MAX_PLATES}):", cars.len()),
    )];
    for (plate, fee) in cars {
        lines.push(match fee {
            Some(fee) => car_text(lang, &car_fee(fee.clone(), true)),
            None => say(lang, format!("🚗 {plate}：不在停车场"), format!("🚗 {plate}: not in the car park")),
        });
    }
    lines.push(say(
        lang,
        "删除车牌：按 ✖ 或发「/car remove 车牌」。",
        "To remove a plate: press ✖ or send \"/car remove PLATE\".",
    ));
    lines.join("\n\n")
}

/// `/car`: the shopper's plates and their cars' state, in words; and the plates.
pub async fn my_cars(ctx: &ToolContext) -> Result<(String, Vec<String>), ToolError> {
    let plates: Vec<String> = match ctx.mall.my_plates(&ctx.shopper).await {
        Ok(page) => page.items.into_iter().map(|p| p.plate).collect(),
        Err(e) => return Err(refuse(ctx.lang, e)),
    };
    let mut cars = Vec::new();
    for plate in &plates {
        match ctx.mall.parking_fee(plate, Some(&ctx.shopper)).await {
            Ok(fee) => cars.push((plate.clone(), Some(fee))),
            Err(ServiceError::NotFound { .. }) => cars.push((plate.clone(), None)),
            Err(e) => return Err(refuse(ctx.lang, e)),
        }
    }
    Ok((my_cars_text(ctx.lang, &cars), plates))
}

/// `/car remove <plate>` (or ✖): the plate removed, then what is left; one that is not the
/// shopper's is said to be none of theirs.
pub async fn remove_my_plate(ctx: &ToolContext, plate: &str) -> Result<(String, Vec<String>), ToolError> {
    let lang = ctx.lang;
    let plate = plate_key(plate);
    match ctx.mall.remove_plate(&ctx.shopper, &plate, None).await {
        Ok(_) => {}
        Err(ServiceError::NotFound { .. } | ServiceError::InvalidArgument { .. }) => {
            return Err(ToolError::Refused {
                code: "NOT_FOUND",
                message: say(
                    lang,
                    format!("{plate} 不是您保存的车牌，没有删除任何车牌。"),
                    format!("{plate} is not one of your plates; nothing was removed."),
                ),
            });
        }
        Err(e) => return Err(refuse(lang, e)),
    }
    let (rest, plates) = my_cars(ctx).await?;
    let done = say(lang, format!("✅ 已删除车牌 {plate}。"), format!("✅ The plate {plate} is removed."));
    Ok((format!("{done}\n\n{rest}"), plates))
}

/// The mall's points as `my_points` returns them.
pub fn points_result(points: services::PointsBalance) -> PointsResult {
    let changes = points
        .changes
        .into_iter()
        .take(SHOWN_CHANGES)
        .map(|c| PointsLine {
            reason: c.reason,
            amount: c.amount,
            at: c.at,
            order_id: c.order_id,
            not_taken: c.not_taken,
        })
        .collect();
    PointsResult { balance: points.balance, changes }
}

/// `/points`: the balance and the last changes, in words.
pub async fn my_points_text(ctx: &ToolContext) -> Result<String, ToolError> {
    let points = ctx.mall.points(&ctx.shopper).await.map_err(|e| refuse(ctx.lang, e))?;
    let mut text = points_text(ctx.lang, &points_result(points));
    text += &say(
        ctx.lang,
        "\n积分可以换停车时长或优惠券：说「用积分换停车」或「用积分换券」。",
        "\nPoints buy parking time or coupons: say \"redeem points for parking\" or \"redeem points for a coupon\".",
    );
    Ok(text)
}

/// A coupon the shopper can still claim: (id, title).
pub type Claimable = (String, String);

/// `/coupons`: the coupons the shopper holds, then the mall's they can still claim (not
/// held, some left, within their dates), in words; and those to claim.
pub async fn coupons_overview(ctx: &ToolContext) -> Result<(String, Vec<Claimable>), ToolError> {
    let lang = ctx.lang;
    let held = ctx.mall.my_coupons(&ctx.shopper).await.map_err(|e| refuse(lang, e))?.items;
    let all = ctx.mall.list_coupons().await.map_err(|e| refuse(lang, e))?.items;
    let now = services::clock::now_unix();
    let mut mine = Vec::new();
    for h in &held {
        let stores = store_names(ctx, &h.coupon.store_ids).await;
        mine.push(CouponLine::of(lang, &h.coupon, stores, Some(h.status.clone())));
    }
    let mut open = Vec::new();
    let mut claimable = Vec::new();
    for c in all.iter().filter(|c| c.left > 0 && !held.iter().any(|h| h.coupon.coupon_id == c.coupon_id)) {
        if !within(now, &c.valid_from, &c.valid_to) {
            continue;
        }
        let stores = store_names(ctx, &c.store_ids).await;
        open.push(CouponLine::of(lang, c, stores, None));
        claimable.push((c.coupon_id.clone(), coupon_title(lang, c)));
    }
    let mut parts = Vec::new();
    parts.push(if mine.is_empty() {
        say(lang, "🎟 您还没有优惠券。", "🎟 You have no coupons yet.")
    } else {
        let lines: Vec<String> =
            mine.iter().enumerate().map(|(i, c)| format!("{}. {}", i + 1, coupon_text(lang, c))).collect();
        format!("{}\n{}", say(lang, "🎟 您的优惠券：", "🎟 Your coupons:"), lines.join("\n"))
    });
    parts.push(if open.is_empty() {
        say(lang, "现在没有您还能领的券。", "There are no more coupons for you to claim right now.")
    } else {
        let lines: Vec<String> = open.iter().enumerate().map(|(i, c)| format!("{}. {}", i + 1, coupon_text(lang, c))).collect();
        format!(
            "{}\n{}\n{}",
            say(lang, "还可以领：", "You can still claim:"),
            lines.join("\n"),
            say(lang, "按下面的按钮领取（要积分的券会扣积分），确认后才领。", "Press a button below to claim one (a coupon for points spends them); nothing is claimed before you confirm.")
        )
    });
    Ok((parts.join("\n\n"), claimable))
}

/// Whether `now` (Unix seconds) is within `from`..=`to` (RFC 3339; an unreadable bound
/// counts as open).
fn within(now: i64, from: &str, to: &str) -> bool {
    let at = |t: &str| services::calendar::LocalTime::parse(t).map(|t| t.unix);
    at(from).is_none_or(|from| from <= now) && at(to).is_none_or(|to| now <= to)
}

// --------------------------------------------------------------------------------- basic mode

/// A refusal in the shopper's words (the tool's own message).
fn loyalty_failed(_said: &Said, error: &str) -> Option<String> {
    let (_, message) = error.split_once("): ")?;
    error.contains("refused (").then(|| message.trim_end_matches('.').to_owned())
}

/// Whether `lower` holds one of `words`: a Chinese word anywhere, an
/// English one as whole words ("car" is not in "cart").
pub fn says(lower: &str, words: &[&str]) -> bool {
    words.iter().any(|w| {
        if !w.is_ascii() {
            return lower.contains(w);
        }
        lower.match_indices(w).any(|(at, _)| {
            let before = lower[..at].chars().next_back();
            let after = lower[at + w.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
            !word(before) && !word(after)
        })
    })
}

/// The mainland provinces' abbreviations, and the Traditional forms read as them.
const PROVINCES: &str = "京津沪渝冀豫云辽黑湘皖鲁新苏浙赣鄂桂甘晋蒙陕吉闽贵粤青藏川宁琼";
const PROVINCES_HANT: &[(char, char)] = &[
    ('滬', '沪'),
    ('雲', '云'),
    ('遼', '辽'),
    ('魯', '鲁'),
    ('蘇', '苏'),
    ('贛', '赣'),
    ('晉', '晋'),
    ('陝', '陕'),
    ('閩', '闽'),
    ('貴', '贵'),
    ('粵', '粤'),
    ('寧', '宁'),
    ('瓊', '琼'),
];

fn province(c: char) -> Option<char> {
    if PROVINCES.contains(c) {
        return Some(c);
    }
    PROVINCES_HANT.iter().find(|(t, _)| *t == c).map(|(_, s)| *s)
}

fn separator(c: char) -> bool {
    matches!(c, '.' | '·' | '•' | '・' | '-' | '－' | ' ' | '\u{3000}')
}

/// Words that say a message is about a car.
#[rustfmt::skip]
const CAR_WORDS: &[&str] = &[
    "停车", "停車", "车牌", "車牌", "车", "車", "car", "cars", "plate", "plates", "parking", "parked", "park", "/car",
];

/// A plate written in a message, as typed but upper case and without
/// separators: a mainland one anywhere (`沪A·12345`, `沪a 12345`, new-energy
/// `粤BD12345`); a Hong Kong or other Latin one (`AB 1234`, `ABC123`) only in a
/// message about a car.
pub fn find_plate(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let Some(p) = province(c) else { continue };
        let mut j = i + 1;
        while j < chars.len() && separator(chars[j]) {
            j += 1;
        }
        if j >= chars.len() || !chars[j].is_ascii_alphabetic() {
            continue;
        }
        let letter = chars[j].to_ascii_uppercase();
        let mut run = String::new();
        let mut k = j + 1;
        while k < chars.len() && run.len() < 6 {
            if chars[k].is_ascii_alphanumeric() {
                run.push(chars[k].to_ascii_uppercase());
            } else if !(separator(chars[k]) && run.len() < 5) {
                break;
            }
            k += 1;
        }
        let ends = k >= chars.len() || !chars[k].is_ascii_alphanumeric();
        if (5..=6).contains(&run.len()) && ends && run.chars().any(|c| c.is_ascii_digit()) {
            return Some(format!("{p}{letter}{run}"));
        }
    }
    let lower = text.to_lowercase();
    if !says(&lower, CAR_WORDS) {
        return None;
    }
    let tokens: Vec<&str> =
        text.split(|c: char| !c.is_ascii_alphanumeric()).filter(|t| !t.is_empty()).collect();
    let letters = |t: &str| t.chars().all(|c| c.is_ascii_alphabetic());
    let digits = |t: &str| t.chars().all(|c| c.is_ascii_digit());
    for (i, token) in tokens.iter().enumerate() {
        // "AB1234", "ABC123": letters then digits.
        let split = token.find(|c: char| c.is_ascii_digit()).unwrap_or(token.len());
        let (head, tail) = token.split_at(split);
        if (1..=3).contains(&head.len())
            && letters(head)
            && (1..=5).contains(&tail.len())
            && digits(tail)
            && token.len() >= 3
        {
            return Some(token.to_ascii_uppercase());
        }
        // "AB 1234".
        if (1..=2).contains(&token.len())
            && letters(token)
            && token.chars().all(|c| c.is_ascii_uppercase())
            && let Some(next) = tokens.get(i + 1)
            && (1..=4).contains(&next.len())
            && digits(next)
        {
            return Some(format!("{token}{next}"));
        }
    }
    None
}

/// Words that ask to keep a plate.
#[rustfmt::skip]
const SAVE: &[&str] = &[
    "记住", "記住", "保存", "绑定", "綁定", "添加", "登记", "登記", "/car", "remember", "save", "add my", "register",
];

/// Words that ask what a car owes.
#[rustfmt::skip]
const FEE: &[&str] = &[
    "停车费多少", "停車費多少", "停了多久", "停多久", "多少钱", "多少錢", "交停车费", "付停车费", "缴停车费",
    "交停車費", "付停車費", "繳停車費", "我的车", "我的車", "我的车牌", "我的車牌", "停车费", "停車費",
    "how much", "how long", "my car", "my parking", "my plate", "pay parking", "pay for parking",
    "pay the parking", "parking fee", "fee", "fees", "owe",
];

/// Words of a general question about the tariff ("停车怎么收费").
#[rustfmt::skip]
const TARIFF: &[&str] = &["怎么收费", "怎麼收費", "怎么算", "怎麼算", "收费标准", "收費標準", "is parking", "free parking", "parking free"];

/// "沪A·12345 停了多久，多少钱", "my car is ABC123, how much", "停车费多少",
/// "交停车费": priority 5, before the orders' (a payment of parking is not
/// an order's) and the mall's information (the tariff).
pub static PARKING_OFFLINE: OfflineHook = OfflineHook::new(recognise_parking, parking_answer)
    .priority(5)
    .reply(parking_reply)
    .failed(loyalty_failed)
    .direct();

/// "交停车费", "帮我交沪A12345的停车费", "pay parking for my car", "我要交停車費": priority 4,
/// before the fee's (a wish to pay is not a question of how much).
pub static PAY_PARKING_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_pay_parking, bill_answer).priority(4).failed(loyalty_failed);

/// Whether `lower` asks to pay for parking (not how much it is).
fn asks_to_pay_parking(lower: &str) -> bool {
    let fee_word = ["停车费", "停車費"].iter().any(|w| lower.contains(w));
    let pays_zh = ["交", "付", "缴", "繳", "支付", "买单", "買單"].iter().any(|w| lower.contains(w));
    let pays_en =
        says(lower, &["pay", "paying", "settle"]) && says(lower, &["parking", "car", "plate", "park"]);
    let how_much = says(lower, &["多少", "几", "幾", "how much", "what", "is it", "怎么", "怎麼"]);
    ((fee_word && pays_zh) || pays_en) && !how_much && !redeems(lower)
}

fn recognise_pay_parking(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    if saves(&lower) || !asks_to_pay_parking(&lower) {
        return None;
    }
    let args = match find_plate(said.text()) {
        Some(plate) => json!({ "plate": plate }),
        None => json!({}),
    };
    Some(Step::Call(Call::new("pay_parking", args)))
}

/// "记住我的车牌 沪A12345", "/car 沪A12345", "save my plate ABC123": priority 4.
pub static SAVE_PLATE_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_save_plate, plates_answer).priority(4).failed(loyalty_failed);

fn saves(lower: &str) -> bool {
    says(lower, SAVE)
}

fn recognise_save_plate(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    if !saves(&lower) || !says(&lower, CAR_WORDS) {
        return None;
    }
    Some(match find_plate(said.text()) {
        Some(plate) => Step::Call(Call::new("save_plate", json!({ "plate": plate }))),
        None => Step::answer(ask_plate(said.lang)),
    })
}

fn recognise_parking(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    if saves(&lower) {
        return None;
    }
    if redeems(&lower) {
        return (says(&lower, CAR_WORDS) && !says(&lower, COUPON))
            .then(|| Step::answer(redeem_parking(said.lang)));
    }
    if let Some(plate) = find_plate(said.text()) {
        return Some(Step::Call(Call::new("parking_fee", json!({ "plate": plate }))));
    }
    let about_car = says(&lower, CAR_WORDS);
    let general = says(&lower, TARIFF);
    let fee = says(&lower, FEE);
    let personal = ["我", "my ", "i ", "i'"].iter().any(|w| lower.contains(w)) || lower.starts_with("my");
    let strong = [
        "停车费多少",
        "停車費多少",
        "停了多久",
        "停多久",
        "交停车费",
        "付停车费",
        "缴停车费",
        "交停車費",
        "付停車費",
        "繳停車費",
        "pay parking",
        "pay for parking",
        "pay the parking",
    ]
    .iter()
    .any(|w| lower.contains(w));
    if about_car && !general && (strong || (fee && personal)) {
        return Some(Step::Call(Call::new("parking_fee", json!({}))));
    }
    None
}

/// "我有多少积分", "how many points do I have", "我的積分": priority 6.
pub static POINTS_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_points, points_answer).priority(6).failed(loyalty_failed).direct();

const POINTS: &[&str] = &["积分", "積分", "points", "point balance"];

fn recognise_points(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    if !says(&lower, POINTS) || redeems(&lower) {
        return None;
    }
    let asks = [
        "多少",
        "几",
        "幾",
        "查",
        "我的",
        "余额",
        "餘額",
        "how many",
        "my points",
        "balance",
        "do i have",
        "check",
    ]
    .iter()
    .any(|w| lower.contains(w));
    asks.then(|| Step::Call(Call::new("my_points", json!({}))))
}

/// Words that spend points.
const REDEEM: &[&str] = &["换", "換", "兑", "兌", "抵", "redeem", "use my points", "spend", "exchange"];

fn redeems(lower: &str) -> bool {
    says(lower, POINTS) && says(lower, REDEEM)
}

/// Points spent on parking time are not taken in chat yet: where to do it.
fn redeem_parking(lang: Lang) -> String {
    say(
        lang,
        "用积分抵停车费暂时不能在聊天里办理：请在停车场缴费机或服务台用积分抵扣。",
        "Points for parking cannot be used in this chat yet: use them at a pay station in the car park or at the service desk.",
    )
}

const COUPON: &[&str] = &["券", "coupon", "coupons", "voucher", "vouchers"];
const CLAIM: &[&str] = &["领", "領", "claim", "get me", "grab", "i want the", "give me"];
#[rustfmt::skip]
const MINE: &[&str] = &[
    "我的券", "我的优惠券", "我的優惠券", "我领的", "我領的", "我有什么券", "我有哪些券", "我有什麼券",
    "my coupon", "my coupons", "my voucher", "my vouchers", "coupons i have", "i have",
];
/// Words of checking out: a coupon used on an order is the order's.
const CHECKOUT: &[&str] = &[
    "下单",
    "下單",
    "结账",
    "結帳",
    "结算",
    "結算",
    "买单",
    "買單",
    "checkout",
    "check out",
    "order",
    "pay with",
];

/// "有什么券", "我的券", "any coupons": priority 7.
pub static COUPONS_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_coupons, coupons_answer).priority(7).failed(loyalty_failed).direct();

/// "领取满300减50的券", "claim the 50 off coupon": priority 7.
pub static CLAIM_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_claim, claimed_answer).priority(7).failed(loyalty_failed);

fn about_coupons(lower: &str) -> bool {
    says(lower, COUPON) && !says(lower, CHECKOUT)
}

fn recognise_claim(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    let claims = says(&lower, CLAIM) || redeems(&lower);
    if !about_coupons(&lower) || !claims || says(&lower, MINE) {
        return None;
    }
    Some(Step::Call(Call::new("claim_coupon", json!({ "coupon": said.text() }))))
}

fn recognise_coupons(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    if !about_coupons(&lower) || says(&lower, CLAIM) || redeems(&lower) {
        return None;
    }
    let mine = says(&lower, MINE);
    Some(Step::Call(Call::new("list_coupons", json!({ "mine": mine }))))
}

/// "用积分换停车", "用500积分换券", "redeem points for parking", "用積分換停車": priority 3,
/// before the fee's and the claim's. Words naming a coupon by its figures ("用积分兑换满200减30的券")
/// are the claim's.
pub static REDEEM_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_redeem, redeemed_answer).priority(3).failed(loyalty_failed);

/// The number written just before one of `units` ("用500积分" → 500 for 积分).
fn figure_before(lower: &str, units: &[&str]) -> Option<i64> {
    units.iter().find_map(|unit| {
        let at = lower.find(unit)?;
        let head = lower[..at].trim_end();
        let digits: String = head
            .chars()
            .rev()
            .take_while(char::is_ascii_digit)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        digits.parse().ok()
    })
}

const POINT_UNITS: &[&str] = &["积分", "積分", "points", "point"];
const HOUR_UNITS: &[&str] = &["个小时", "個小時", "小时", "小時", "hours", "hour"];

fn recognise_redeem(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    if !redeems(&lower) {
        return None;
    }
    let points = figure_before(&lower, POINT_UNITS);
    if says(&lower, COUPON) {
        // Figures besides the points, or 满…减: a coupon named, claimed by its name.
        let other = figures(&lower).into_iter().any(|n| Some(n) != points);
        if other || lower.contains('满') || lower.contains('滿') || says(&lower, &["off"]) {
            return None;
        }
        return Some(Step::Call(Call::new("redeem_points", json!({ "for": "coupon", "points": points }))));
    }
    if !says(&lower, CAR_WORDS) {
        return None;
    }
    let mut args = json!({ "for": "parking" });
    if let Some(plate) = find_plate(said.text()) {
        args["plate"] = json!(plate);
    }
    if let Some(hours) = figure_before(&lower, HOUR_UNITS) {
        args["hours"] = json!(hours);
    } else if let Some(points) = points {
        args["points"] = json!(points);
    }
    Some(Step::Call(Call::new("redeem_points", args)))
}

/// The shopper's coupon that takes most off an order of `total_cents`
/// (available, its minimum spend met, any store or one of `stores`).
pub fn best_coupon<'a>(
    coupons: &'a [CouponLine],
    total_cents: i64,
    stores: &[String],
) -> Option<&'a CouponLine> {
    coupons
        .iter()
        .filter(|c| c.status.as_deref() == Some("AVAILABLE"))
        .filter(|c| c.min_spend_yuan.cents() <= total_cents)
        .filter(|c| c.stores.is_empty() || stores.iter().all(|s| c.stores.contains(s)))
        .max_by_key(|c| c.discount_yuan.cents())
}

/// Whether a message asks to check out with a coupon ("用券下单", "checkout with my coupon").
pub fn wants_coupon(said: &Said) -> bool {
    let lower = said.text().to_lowercase();
    says(&lower, COUPON) || lower.contains("用券")
}

#[cfg(test)]
mod tests;
