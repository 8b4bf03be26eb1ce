//! `watch_product`: a stock or price alert on a product ("42码到货了告诉我",
//! "降到 400 以下告诉我", "let me know when the Pegasus is back in 42"). A
//! confirm-level change: the shopper agrees to be messaged later. The bot
//! keeps the alert ([`crate::alert_book::AlertBook`]) and tells it once.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use services::Product;

use crate::alert_book::{Alert, AlertError, Want, same_size};
use crate::basic::text::numbers;
use crate::basic::{Call, Said, Step, extract, read};
use crate::format::{money, product_name};
use crate::info::ProductDetail;
use crate::search::SearchProductsResult;
use crate::{
    HelpLine, Lang, OfflineHook, Preview, ToolContext, ToolError, ToolOutput, ToolResult, tool_function,
};

/// `/help`'s line for alerts.
pub static HELP_ALERTS: HelpLine = HelpLine {
    zh: "🔔 到货/降价提醒：「42码到货告诉我」「降到 400 以下告诉我」，/alerts 查看",
    en: "🔔 Alerts: \"tell me when it's back in 42\", \"let me know under 400\"; /alerts lists them",
};

/// What to watch for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum WatchFor {
    Stock,
    Price,
}

/// Arguments of `watch_product`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct WatchProductArgs {
    pub product_id: String,
    pub watch: WatchFor,
    pub size: Option<String>,
    /// Yuan; none = any drop
    pub max_price: Option<f64>,
}

/// What `watch_product` returns: the alert kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WatchProductResult {
    /// What it waits for, in the shopper's words.
    pub alert: String,
    pub days: u32,
}

fn watch_progress(lang: Lang, _args: &WatchProductArgs) -> String {
    lang.texts().alerts.progress.to_owned()
}

/// Alert the shopper once when a product is back (in a size) or cheaper.
#[tool_function(level = "confirm", scope = "private", preview = preview_watch_product, progress = watch_progress, help = HELP_ALERTS, offline = WATCH_OFFLINE)]
pub async fn watch_product(ctx: &ToolContext, args: WatchProductArgs) -> ToolResult<WatchProductResult> {
    let Some(book) = ctx.alerts.clone() else {
        return Err(ToolError::NotAllowed("alerts are not kept here".to_owned()));
    };
    let plan = plan_watch(ctx, &args).await?;
    let texts = &ctx.lang.texts().alerts;
    let days = book.ttl_days();
    let alert = Alert {
        id: String::new(),
        user: ctx.shopper.as_str().to_owned(),
        lang: ctx.lang.as_str().to_owned(),
        product_id: plan.product.brief.id.clone(),
        product_name: product_name(ctx.lang, &plan.product.brief).into_owned(),
        store_id: plan.product.brief.store_id.clone(),
        want: plan.want.clone(),
        created: 0,
        expires: 0,
    };
    match book.subscribe(alert).await {
        Ok(_) => {
            let what = describe(ctx.lang, &plan.product, &plan.want);
            Ok(ToolOutput::new(WatchProductResult { alert: what, days }))
        }
        Err(AlertError::Full(max)) => Err(ToolError::Refused { code: TOO_MANY, message: (texts.full)(max) }),
        Err(AlertError::Store(e)) => Err(ToolError::Upstream(e)),
    }
}

/// "🔔 设置提醒：Nike Pegasus（42码）到货时私信告诉您（30 天内有效，只提醒一次）".
pub async fn preview_watch_product(ctx: &ToolContext, args: WatchProductArgs) -> Result<Preview, ToolError> {
    let plan = plan_watch(ctx, &args).await?;
    let days = ctx.alerts.as_ref().map_or(30, |b| b.ttl_days());
    let what = describe(ctx.lang, &plan.product, &plan.want);
    Ok(Preview {
        summary: (ctx.lang.texts().alerts.preview)(&what, days),
        fingerprint: json!({ "product_id": plan.product.brief.id, "want": plan.want }),
    })
}

/// The alert checked against the product as it is now.
struct PlannedWatch {
    product: Product,
    want: Want,
}

async fn plan_watch(ctx: &ToolContext, args: &WatchProductArgs) -> Result<PlannedWatch, ToolError> {
    if ctx.is_group {
        return Err(ToolError::NotAllowed(ctx.lang.texts().alerts.private_only.to_owned()));
    }
    let plan = plan_alert(ctx, args).await?;
    within_cap(ctx, &plan).await?;
    Ok(plan)
}

/// The cap, told before the shopper is asked to agree to something that cannot be kept:
/// only the very alert they already have (same product, same size or price) is not a new one.
async fn within_cap(ctx: &ToolContext, plan: &PlannedWatch) -> Result<(), ToolError> {
    if let Some(book) = &ctx.alerts
        && let Ok(mine) = book.alerts_of(ctx.shopper.as_str()).await
        && mine.len() >= book.max_per_user() as usize
        && !mine.iter().any(|a| a.product_id == plan.product.brief.id && a.want == plan.want)
    {
        let message = (ctx.lang.texts().alerts.full)(book.max_per_user());
        return Err(ToolError::Refused { code: TOO_MANY, message });
    }
    Ok(())
}

/// The alert checked against the product as it is now (the cap aside).
async fn plan_alert(ctx: &ToolContext, args: &WatchProductArgs) -> Result<PlannedWatch, ToolError> {
    let texts = &ctx.lang.texts().alerts;
    let product = ctx.mall.get_product(args.product_id.trim()).await?;
    let name = product_name(ctx.lang, &product.brief).into_owned();
    match args.watch {
        WatchFor::Stock => {
            let wanted = args.size.as_deref().map(str::trim).filter(|s| !s.is_empty());
            let size = match wanted {
                None => None,
                Some(wanted) if product.skus.is_empty() => Some(wanted.to_owned()),
                Some(wanted) => {
                    let sku = product
                        .skus
                        .iter()
                        .find(|s| {
                            // The label as the shopper's language shows it ("42 / Black") too.
                            s.sku_id == wanted
                                || same_size(&s.label, wanted)
                                || same_size(&crate::format::sku_label(ctx.lang, &s.label), wanted)
                        })
                        .ok_or_else(|| {
                            let labels: Vec<&str> = product.skus.iter().map(|s| s.label.as_str()).collect();
                            ToolError::invalid(
                                "size",
                                format!(
                                    "{name} has no size \"{wanted}\"; its sizes are {}",
                                    labels.join(", ")
                                ),
                            )
                        })?;
                    if sku.stock > 0 {
                        let label = crate::format::sku_label(ctx.lang, &sku.label);
                        return Err(refused((texts.in_stock_now)(&name, &label)));
                    }
                    Some(sku.label.clone())
                }
            };
            if size.is_none() && product.brief.in_stock && product.skus.iter().all(|s| s.stock > 0) {
                return Err(refused((texts.in_stock_now)(&name, "")));
            }
            Ok(PlannedWatch { product, want: Want::Restock { size } })
        }
        WatchFor::Price => {
            let now = product.brief.price_cents;
            let at_most = match args.max_price {
                Some(yuan) if !(yuan.is_finite() && yuan > 0.0) => {
                    return Err(ToolError::invalid("max_price", "a price in yuan above 0"));
                }
                Some(yuan) => Some((yuan * 100.0).round() as i64),
                None => None,
            };
            if at_most.is_some_and(|at_most| now <= at_most) {
                return Err(refused((texts.price_already)(&name, &money(now))));
            }
            Ok(PlannedWatch { product, want: Want::Price { at_most_cents: at_most, was_cents: now } })
        }
    }
}

/// The code of a refusal for the cap on alerts.
const TOO_MANY: &str = "TOO_MANY_ALERTS";
/// The code of a refusal for an alert with nothing to wait for.
const NOT_NEEDED: &str = "NOT_NEEDED";

fn refused(message: String) -> ToolError {
    ToolError::Refused { code: NOT_NEEDED, message }
}

/// What an alert waits for, in the shopper's words.
pub fn describe(lang: Lang, product: &Product, want: &Want) -> String {
    describe_named(lang, &product_name(lang, &product.brief), want)
}

/// What an alert on the product `name` waits for, in the shopper's words.
pub fn describe_named(lang: Lang, name: &str, want: &Want) -> String {
    let texts = &lang.texts().alerts;
    match want {
        Want::Restock { size } => {
            (texts.restock)(name, &crate::format::sku_label(lang, size.as_deref().unwrap_or("")))
        }
        Want::Price { at_most_cents: Some(cents), .. } => (texts.price_at_most)(name, &money(*cents)),
        Want::Price { at_most_cents: None, was_cents } => (texts.price_drop)(name, &money(*was_cents)),
    }
}

// Basic mode.

/// "到货告诉我", "降到 400 以下告诉我", "let me know when it's back in 42":
/// an alert on the product last shown. Priority 19, before the cart's
/// hooks (a size in the message is not an order for it).
pub static WATCH_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_watch, watch_answer).priority(19).failed(watch_failed);

/// Words that ask to be told later.
#[rustfmt::skip]
const TELL_ME: &[&str] = &[
    "告诉我", "通知我", "提醒我", "告訴我", "提醒一下", "叫我", "跟我说", "跟我說",
    "let me know", "tell me when", "notify me", "alert me", "ping me", "message me",
];

/// Words that ask for a restock.
#[rustfmt::skip]
const RESTOCK: &[&str] = &[
    "到货", "到貨", "有货", "有貨", "补货", "補貨", "返场", "back in", "back in stock", "restock", "in stock",
    "available",
];

/// Words that ask for a lower price.
#[rustfmt::skip]
const CHEAPER: &[&str] = &[
    "降到", "降价", "降價", "便宜", "打折", "以下", "以内", "以內", "cheaper", "price drop", "drops", "under",
    "below", "on sale", "less than",
];

/// Words around an alert's product that are not its name.
#[rustfmt::skip]
const ALERT_FILLER: &[&str] = &[
    "了", "的时候", "时候", "的话", "如果", "要是", "一下", "再", "那款", "这款", "那个", "这个", "它",
    "价格", "价钱", "跟我", "if", "when", "once", "is", "are", "it", "it's", "its", "they", "they're",
    "this", "that", "drop", "drops", "falls", "goes", "gets", "get", "price", "again", "stock", "size", "to",
    "me", "know", "let",
];

fn recognise_watch(said: &Said) -> Option<Step> {
    let lower = said.text().to_lowercase();
    if !TELL_ME.iter().any(|w| lower.contains(w)) {
        return None;
    }
    let cheaper = CHEAPER.iter().any(|w| lower.contains(w));
    let restock = RESTOCK.iter().any(|w| lower.contains(w));
    if !cheaper && !restock {
        return None;
    }
    // The product named ("Nike Downshifter 13 黑白 40码到货了告诉我") is
    // looked for; without a name, the one the conversation shows.
    if let Some((keyword, brand)) = named(said) {
        let mut args = json!({ "keyword": keyword });
        if let (Some(brand), Some(obj)) = (brand, args.as_object_mut()) {
            obj.insert("brand".to_owned(), json!(brand));
        }
        return Some(Step::Call(Call::then("search_products", args, watch_best_match)));
    }
    Some(watch_shown(said).unwrap_or_else(|| Step::answer(said.texts().alerts.which_product)))
}

/// The words that name the alert's product, and its brand: what is left of
/// the message without its price, size and words of alerts.
fn named(said: &Said) -> Option<(String, Option<String>)> {
    let mut rest = said.scratch();
    extract::take_price_bounds(&mut rest);
    if extract::take_size(&mut rest).is_none() {
        take_size_after_restock(&mut rest);
    }
    rest.remove_all(TELL_ME);
    rest.remove_all(RESTOCK);
    rest.remove_all(CHEAPER);
    rest.remove_all(ALERT_FILLER);
    crate::search::named_product(said.lexicon, rest)
}

/// "back in 42": a bare number right after a word of restock is the size,
/// struck out.
fn take_size_after_restock(rest: &mut crate::basic::text::Scratch) {
    let lower = rest.lower().to_owned();
    let near = |n: &crate::basic::text::Number| {
        let before = lower[..n.range.start].trim_end();
        RESTOCK.iter().any(|w| before.ends_with(w))
    };
    if let Some(n) = numbers(&lower).into_iter().rev().find(|n| rest.is_kept(n.range.clone()) && near(n)) {
        rest.remove_range(n.range);
    }
}

/// The product the conversation shows last: the one opened, or the first of
/// the list (opened first, for its sizes).
fn watch_shown(said: &Said) -> Option<Step> {
    let shown = said.dialogue.latest_before_turn_of(&["get_product_detail", "search_products"])?;
    if let Some(detail) = shown.result::<ProductDetail>().filter(|_| shown.name == "get_product_detail") {
        return Some(watch_call(&detail, said));
    }
    let first = shown.result::<SearchProductsResult>()?.products.into_iter().next()?;
    Some(open_then_watch(&first.product_id))
}

fn open_then_watch(product_id: &str) -> Step {
    Step::Call(Call::then("get_product_detail", json!({ "product_id": product_id }), watch_opened))
}

/// With the product named found: the best match is opened, then watched;
/// nothing found: the product the conversation shows, if any.
fn watch_best_match(data: &Value, said: &Said) -> Option<Step> {
    let result = read::<SearchProductsResult>(data)?;
    let keyword = named(said).map(|(keyword, _)| keyword).unwrap_or_default();
    match crate::search::best_match(&result.products, &keyword) {
        Some(hit) => Some(open_then_watch(&hit.product_id)),
        None => watch_shown(said).or_else(|| Some(Step::answer(said.texts().alerts.which_product))),
    }
}

fn watch_opened(data: &Value, said: &Said) -> Option<Step> {
    read::<ProductDetail>(data).map(|detail| watch_call(&detail, said))
}

/// The alert on `detail` the message asks for: a price under the figure
/// said, or a restock (in the size said, if one is).
fn watch_call(detail: &ProductDetail, said: &Said) -> Step {
    let lower = said.text().to_lowercase();
    let cheaper = CHEAPER.iter().any(|w| lower.contains(w));
    let restock = RESTOCK.iter().any(|w| lower.contains(w));
    let mut scratch = said.scratch();
    if cheaper && !restock {
        let bounds = extract::take_price_bounds(&mut scratch);
        let max = bounds.max.or(bounds.min);
        return Step::Call(Call::new(
            "watch_product",
            json!({ "product_id": detail.product_id, "watch": "price", "max_price": max }),
        ));
    }
    let size = extract::take_size(&mut scratch).or_else(|| {
        // "back in 42": a bare number that is one of the product's sizes (the
        // last one: "Pegasus 41 back in 42").
        numbers(&lower).into_iter().rev().map(|n| n.value.to_string()).find(|n| {
            let fits = |label: &str| same_size(label, n) || crate::info::label_matches(label, n);
            detail.skus.iter().any(|s| fits(&s.label)) || detail.sizes.iter().any(|s| fits(s))
        })
    });
    // "42" of "42 / 黑色 Black": that SKU's label, one in stock first (then
    // there is nothing to wait for, and the tool says so).
    let size = size.map(|size| {
        let mut matching: Vec<_> =
            detail.skus.iter().filter(|s| crate::info::label_matches(&s.label, &size)).collect();
        matching.sort_by_key(|s| s.stock == 0);
        matching.first().map_or(size, |s| s.label.clone())
    });
    Step::Call(Call::new(
        "watch_product",
        json!({ "product_id": detail.product_id, "watch": "stock", "size": size }),
    ))
}

/// A refusal of the cap, or of an alert with nothing to wait for, in the
/// shopper's words (the tool's own message).
fn watch_failed(_said: &Said, error: &str) -> Option<String> {
    [TOO_MANY, NOT_NEEDED].iter().find_map(|code| {
        let (_, message) = error.split_once(&format!("({code}): "))?;
        Some(message.trim_end_matches('.').to_owned())
    })
}

fn watch_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<WatchProductResult>(data).map(|r| (lang.texts().alerts.set)(&r.alert, r.days))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alert(want: Want) -> Alert {
        Alert {
            id: "a1".into(),
            user: "telegram:1".into(),
            lang: "zh".into(),
            product_id: "p1".into(),
            product_name: "Nike".into(),
            store_id: "s1".into(),
            want,
            created: 0,
            expires: 1,
        }
    }

    #[test]
    fn a_size_alert_is_woken_by_its_size_only_and_a_price_alert_by_its_figure() {
        let a42 = alert(Want::Restock { size: Some("42".into()) });
        assert!(a42.woken_by_restock(&["42码".into()]));
        assert!(!a42.woken_by_restock(&["43".into()]), "another size does not wake it");
        assert!(alert(Want::Restock { size: None }).woken_by_restock(&["43".into()]));
        let under = alert(Want::Price { at_most_cents: Some(40_000), was_cents: 69_900 });
        assert!(under.woken_by_price(40_000) && !under.woken_by_price(40_001));
        let drop = alert(Want::Price { at_most_cents: None, was_cents: 69_900 });
        assert!(drop.woken_by_price(69_899) && !drop.woken_by_price(69_900));
        assert!(!under.woken_by_restock(&["42".into()]));
    }
}
