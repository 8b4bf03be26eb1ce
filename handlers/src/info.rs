//! Details: one product with its sizes and store, one store's basics,
//! promotions or reviews.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use services::{PageRequest, Product, Review};

use serde_json::{Value, json};

use crate::basic::text::Scratch;
use crate::basic::{Answering, Call, Reply, Said, Step, clip, date, extract, rating as one_decimal, read};
use crate::format::{
    floor_and_unit, join, local_text, mall_text, navigate_suggestion, offer_text, paren, product_name,
    sku_label, store_name,
};
use crate::general::{find_store, store_for_display};
use crate::records::{SearchProductsResult, StoreCard, StoreRef, Yuan, rating};
use crate::{HelpLine, Lang, OfflineHook, ToolContext, ToolOutput, ToolResult, tool_function};

/// Reviews shown to the model.
const SHOWN_REVIEWS: usize = 5;
/// Reviews the average rating is taken over.
const RATED_REVIEWS: u32 = PageRequest::MAX_LIMIT;

/// The `/help` line of the product tools.
pub static HELP_PRODUCTS: HelpLine = HelpLine {
    zh: "🔍 找商品：「500 元以内的跑鞋」，再看看详情和尺码",
    en: "🔍 Products: \"running shoes under 500 yuan\", then details and sizes",
};

/// The `/help` line of the store tools.
pub static HELP_STORES: HelpLine = HelpLine {
    zh: "🏬 查店铺：「有哪些咖啡店？」「哪些店有优惠？」",
    en: "🏬 Stores: \"Which coffee shops are there?\" \"Which stores have deals?\"",
};

/// Arguments of `get_product_detail`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetProductDetailArgs {
    pub product_id: String,
}

/// What `get_product_detail` returns: one product in full, named in the
/// shopper's language; what is unknown or empty is left out.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ProductDetail {
    pub product_id: String,
    pub name: String,
    pub brand: String,
    pub category: String,
    pub price_yuan: Yuan,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rating: Option<f64>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Set only when nothing is in stock.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub sold_out: bool,
    /// The sizes in stock, for a product the mall lists without SKUs
    /// (with SKUs, each SKU says its stock).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skus: Vec<SkuLine>,
    pub store: StoreRef,
}

/// One size of a product; its price only when it differs from the product's.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct SkuLine {
    pub sku_id: String,
    pub label: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_yuan: Option<Yuan>,
    pub stock: u32,
}

impl ProductDetail {
    fn new(product: &Product, store: StoreRef, lang: Lang) -> Self {
        let brief = &product.brief;
        let sizes = if product.skus.is_empty() {
            brief.sizes.iter().map(|s| sku_label(lang, s).into_owned()).collect()
        } else {
            Vec::new()
        };
        let skus = product
            .skus
            .iter()
            .map(|s| SkuLine {
                sku_id: s.sku_id.clone(),
                label: sku_label(lang, &s.label).into_owned(),
                price_yuan: (s.price_cents != brief.price_cents).then_some(Yuan(s.price_cents)),
                stock: s.stock,
            })
            .collect();
        ProductDetail {
            product_id: brief.id.clone(),
            name: product_name(lang, brief).into_owned(),
            brand: brief.brand.clone(),
            category: mall_text(lang, &brief.category).into_owned(),
            price_yuan: Yuan(brief.price_cents),
            rating: Some(rating(brief.rating)),
            description: local_text(
                lang,
                &product.description,
                product.description_en.as_deref().unwrap_or(""),
            )
            .into_owned(),
            sold_out: !brief.in_stock,
            sizes,
            skus,
            store,
        }
    }
}

fn get_product_detail_progress(lang: Lang, _args: &GetProductDetailArgs) -> String {
    match lang {
        Lang::En => "📦 Looking at the product…",
        _ => "📦 正在查看商品详情…",
    }
    .to_owned()
}

/// A product's description, sizes with stock, store and floor.
#[tool_function(level = "safe", scope = "both", progress = get_product_detail_progress, help = HELP_PRODUCTS, offline = PRODUCT_DETAIL_OFFLINE)]
pub async fn get_product_detail(ctx: &ToolContext, args: GetProductDetailArgs) -> ToolResult<ProductDetail> {
    let product = ctx.mall.get_product(args.product_id.trim()).await?;
    let store = match store_for_display(ctx, &product.brief.store_id).await {
        Some(store) => StoreRef::new(&store, ctx.lang),
        None => StoreRef::unknown(&product.brief.store_id, Some(&product.brief.store_name)),
    };
    let image = product.images.first().cloned();
    let detail = ProductDetail::new(&product, store, ctx.lang);
    let store_name = detail.store.name.clone();
    let mut output = ToolOutput::new(detail).with_suggestions([
        ctx.lang.texts().tools.add_to_cart.to_owned(),
        navigate_suggestion(ctx.lang, &store_name),
    ]);
    output.image = image;
    Ok(output)
}

// Which part of a store's information to get (no doc comment: the schema
// would repeat it to the model in every request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InfoType {
    Basic,
    Promotions,
    Reviews,
}

/// Arguments of `get_store_info`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct GetStoreInfoArgs {
    /// Id or name.
    pub store_id: String,
    pub info_type: InfoType,
}

/// What `get_store_info` returns, by `info_type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "info_type", rename_all = "lowercase")]
pub enum StoreInfoResult {
    /// Floor, unit, opening hours and phone.
    Basic { store: StoreCard },
    /// Current offers.
    Promotions { store: StoreName, promotions: Vec<PromotionLine> },
    /// The average rating and the latest reviews.
    Reviews { store: StoreName, average_rating: Option<f64>, reviews: Vec<ReviewLine> },
}

/// A store's id and names.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct StoreName {
    pub store_id: String,
    pub name: String,
    pub name_en: String,
}

impl StoreName {
    /// The name in the shopper's language.
    pub fn local_name(&self, lang: Lang) -> std::borrow::Cow<'_, str> {
        crate::format::local_name(lang, &self.name, Some(&self.name_en))
    }
}

/// A current offer.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct PromotionLine {
    pub title: String,
    pub description: String,
    pub valid_until: String,
}

/// A shopper's review.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, JsonSchema)]
#[serde(default)]
pub struct ReviewLine {
    pub rating: f64,
    pub text: String,
    pub author: String,
    pub created_at: String,
}

impl ReviewLine {
    /// The review, its text as the shopper's language shows it.
    fn new(review: &Review, lang: Lang) -> Self {
        ReviewLine {
            rating: rating(review.rating),
            text: mall_text(lang, &review.text).into_owned(),
            author: review.author.clone(),
            created_at: review.created_at.clone(),
        }
    }
}

fn get_store_info_progress(lang: Lang, args: &GetStoreInfoArgs) -> String {
    let store = args.store_id.trim();
    if store.is_empty() {
        return lang.texts().tools.working.to_owned();
    }
    match (lang, args.info_type) {
        (Lang::En, InfoType::Promotions) => format!("🏷️ Checking deals at {store}…"),
        (Lang::En, InfoType::Reviews) => format!("⭐ Reading reviews of {store}…"),
        (Lang::En, InfoType::Basic) => format!("🏬 Looking up {store}…"),
        (_, InfoType::Promotions) => format!("🏷️ 正在查看{store}的优惠…"),
        (_, InfoType::Reviews) => format!("⭐ 正在查看{store}的评价…"),
        (_, InfoType::Basic) => format!("🏬 正在查看{store}的信息…"),
    }
}

/// A store's basics (floor, hours, phone), promotions or reviews.
#[tool_function(level = "safe", scope = "both", progress = get_store_info_progress, help = HELP_STORES, offline = STORE_INFO_OFFLINE)]
pub async fn get_store_info(ctx: &ToolContext, args: GetStoreInfoArgs) -> ToolResult<StoreInfoResult> {
    let store = find_store(ctx, "store_id", &args.store_id).await?;
    let short =
        StoreName { store_id: store.id.clone(), name: store.name.clone(), name_en: store.name_en.clone() };
    let result = match args.info_type {
        InfoType::Basic => StoreInfoResult::Basic { store: StoreCard::new(&store, ctx.lang) },
        InfoType::Promotions => {
            let promotions = ctx.mall.store_promotions(&store.id).await?.items;
            let promotions = promotions
                .iter()
                .map(|p| {
                    let (title, description) =
                        offer_text(ctx.lang, (&p.title, &p.title_en), (&p.description, &p.description_en));
                    PromotionLine { title, description, valid_until: p.valid_until.clone() }
                })
                .collect();
            StoreInfoResult::Promotions { store: short, promotions }
        }
        InfoType::Reviews => {
            let reviews = ctx.mall.store_reviews(&store.id, PageRequest::first(RATED_REVIEWS)).await?.items;
            StoreInfoResult::Reviews {
                store: short,
                average_rating: average_rating(&reviews),
                reviews: reviews.iter().take(SHOWN_REVIEWS).map(|r| ReviewLine::new(r, ctx.lang)).collect(),
            }
        }
    };
    Ok(ToolOutput::new(result)
        .with_suggestions([navigate_suggestion(ctx.lang, &store_name(ctx.lang, &store))]))
}

/// The mean rating, one decimal; `None` without reviews.
fn average_rating(reviews: &[Review]) -> Option<f64> {
    if reviews.is_empty() {
        return None;
    }
    let sum: f64 = reviews.iter().map(|r| f64::from(r.rating)).sum();
    Some((sum / reviews.len() as f64 * 10.0).round() / 10.0)
}

// Basic mode.

/// One of the products listed last, picked by its place ("第二个", "the 2nd
/// one", "最后一个"): priority 60. Its answer offers to add it to the cart
/// when there is only one size to choose.
pub static PRODUCT_DETAIL_OFFLINE: OfflineHook = OfflineHook::new(recognise_pick, product_answer)
    .priority(60)
    .reply(product_reply)
    .failed(product_failed)
    .direct();

/// Hours, promotions or reviews of a store ("星巴克几点开门", "any deals at
/// Nike", "海底捞评价怎么样"): priority 30.
pub static STORE_INFO_OFFLINE: OfflineHook = OfflineHook::new(recognise_store_info, store_info_answer)
    .priority(30)
    .reply(store_info_reply)
    .failed(crate::navigation::store_failed)
    .direct();

#[rustfmt::skip]
const VIEW_FILLER: &[&str] = &[
    "看看", "看下", "看一下", "查看", "详情", "介绍一下", "介绍", "我要", "要", "选", "就", "吧", "这个",
    "那个", "的", "个", "show", "me", "the", "one", "details", "detail", "of", "about", "tell", "more",
    "open", "see", "let's", "let", "look", "at", "i'll", "take", "i", "want", "product", "item",
];

fn recognise_pick(said: &Said) -> Option<Step> {
    let mut rest = said.scratch();
    let pick = extract::take_ordinal(&mut rest)?;
    rest.remove_all(VIEW_FILLER);
    if !rest.residual().is_empty() {
        return None;
    }
    let answers = &said.texts().answers;
    let Some(search) = said.dialogue.latest_before_turn("search_products") else {
        return Some(Step::answer(answers.nothing_listed));
    };
    let products = search.result::<SearchProductsResult>().map(|r| r.products).unwrap_or_default();
    Some(match pick.index(products.len()).and_then(|i| products.get(i)) {
        Some(p) => Step::Call(Call::new("get_product_detail", json!({ "product_id": p.product_id }))),
        None => Step::answer((answers.no_such_item)(products.len())),
    })
}

fn product_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<ProductDetail>(data).map(|detail| product_detail(&detail, lang, 0))
}

/// The product, and when buying from a search, how many others it found;
/// with one size to choose, it offers to add it.
fn product_reply(answering: &Answering) -> Option<Reply> {
    let detail = read::<ProductDetail>(answering.data)?;
    let said = answering.said;
    let others = said
        .dialogue
        .turn_calls()
        .rev()
        .find(|c| c.name == "search_products")
        .and_then(|c| c.result::<SearchProductsResult>())
        .map_or(0, |r| r.products.len().saturating_sub(1));
    let text = product_detail(&detail, said.lang, others);
    let quantity = quantity_said(said.dialogue.user_text()).unwrap_or(1);
    Some(match add_product(&detail, None, quantity, said.lang) {
        Step::Call(add) if asks_to_add(&detail) => Reply::offering(text, add),
        _ => Reply::text(text),
    })
}

/// The answer ends with "add it?" (in stock, one size at most).
fn asks_to_add(detail: &ProductDetail) -> bool {
    let sizes = sizes_in_stock(detail);
    !none_left(detail, &sizes) && sizes.len() <= 1
}

/// Nothing of the product is in stock.
fn none_left(detail: &ProductDetail, sizes_in_stock: &[String]) -> bool {
    detail.sold_out || (!detail.skus.is_empty() && sizes_in_stock.is_empty())
}

fn product_failed(said: &Said, error: &str) -> Option<String> {
    crate::navigation::not_found(error).then(|| said.texts().answers.product_missing.to_owned())
}

/// A product: name, price, rating, store and floor, then the sizes
/// question, and how many other products were found.
pub fn product_detail(detail: &ProductDetail, lang: Lang, others: usize) -> String {
    let answers = &lang.texts().answers;
    let mut parts = vec![detail.price_yuan.money()];
    if let Some(r) = detail.rating {
        parts.push(answers.rated.to_owned() + &one_decimal(r));
    }
    let at = format!("{}{}", detail.store.name, paren(lang, &detail.store.place(lang)));
    parts.push(answers.at.to_owned() + &at);
    let mut lines = vec![format!("{} — {}", detail.name, parts.join(lang.texts().format.comma))];
    if !detail.description.is_empty() {
        lines.push(clip(&detail.description, 80));
    }
    lines.push(ask_size(detail, lang));
    if others > 0 {
        lines.push((answers.more_products)(others));
    }
    lines.join("\n")
}

/// The sizes in stock and the question which one, or "add it?" for a single SKU.
pub fn ask_size(detail: &ProductDetail, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    let sizes = sizes_in_stock(detail);
    if none_left(detail, &sizes) {
        return answers.out_of_stock.to_owned();
    }
    if sizes.len() <= 1 {
        return answers.add_it.to_owned();
    }
    let listed = join(lang, &sizes);
    if sizes.iter().all(|s| looks_like_size(s)) {
        (answers.which_size)(&listed)
    } else {
        (answers.which_one)(&listed)
    }
}

/// A size the product does not have in stock: the sizes it has.
pub fn size_unavailable(size: &str, detail: &ProductDetail, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    let sizes = join(lang, &sizes_in_stock(detail));
    if sizes.is_empty() { answers.out_of_stock.to_owned() } else { (answers.size_unavailable)(size, &sizes) }
}

/// Labels of the SKUs in stock (the product's `sizes`, else its SKUs with stock).
pub fn sizes_in_stock(detail: &ProductDetail) -> Vec<String> {
    if !detail.sizes.is_empty() {
        return detail.sizes.clone();
    }
    detail.skus.iter().filter(|s| s.stock > 0 && !s.label.is_empty()).map(|s| s.label.clone()).collect()
}

fn looks_like_size(label: &str) -> bool {
    const LETTERS: [&str; 9] = ["XS", "S", "M", "L", "XL", "XXL", "XXXL", "2XL", "3XL"];
    let label = label.trim().trim_end_matches(['码', '号']);
    label.parse::<f64>().is_ok() || LETTERS.contains(&label.to_ascii_uppercase().as_str())
}

/// "Out of stock", with the other sizes of the product shown last in stock.
pub fn out_of_stock(said: &Said) -> String {
    let lang = said.lang;
    let sizes = said
        .dialogue
        .latest("get_product_detail")
        .and_then(|c| c.result::<ProductDetail>())
        .map(|detail| sizes_in_stock(&detail))
        .unwrap_or_default();
    let answers = &lang.texts().answers;
    let mut answer = answers.no_stock.to_owned();
    if sizes.len() > 1 {
        answer += &(answers.other_sizes)(&join(lang, &sizes));
    } else {
        answer += answers.fewer;
    }
    answer
}

/// Which kind of store information is asked for.
#[rustfmt::skip]
const REVIEWS: &[&str] = &[
    "评价", "评论", "口碑", "好吃吗", "好不好吃", "reviews", "review", "ratings", "rating",
];
#[rustfmt::skip]
const PROMOTIONS: &[&str] = &[
    "优惠", "活动", "打折", "折扣", "促销", "deals", "deal", "promotions", "promotion", "discounts",
    "discount", "offers", "sales", "sale", "coupons",
];
#[rustfmt::skip]
const HOURS: &[&str] = &[
    "营业时间", "几点开门", "几点关门", "开门", "关门", "几点开", "几点关", "几点", "营业", "how late", "until when", "till when", "联系电话", "联系方式", "电话号码", "电话", "opening hours",
    "hours", "open", "opens", "close", "closes", "phone number", "telephone", "contact number",
];
#[rustfmt::skip]
const INFO_FILLER: &[&str] = &[
    "怎么样", "如何", "好不好", "好吃吗", "有什么", "有没有", "现在", "今天", "是", "什么", "时间", "到",
    "多少",
    "几", "吗", "呢", "的", "有", "what", "what's", "when", "does", "do", "is", "are", "the", "of", "at",
    "any", "there", "for", "how", "time", "today", "now", "people", "say", "about", "have", "has", "good",
    "it", "its", "show", "me", "on", "in", "from", "with",
];

fn recognise_store_info(said: &Said) -> Option<Step> {
    let s = said.scratch();
    let kinds = [(REVIEWS, "reviews"), (PROMOTIONS, "promotions"), (HOURS, "basic")];
    let (words, info) = kinds.into_iter().find(|(words, _)| s.contains_any(words))?;
    let mut rest = s;
    rest.remove_all(words);
    rest.remove_all(INFO_FILLER);
    let store = rest.residual();
    (!store.is_empty())
        .then(|| Step::Call(Call::new("get_store_info", json!({ "store_id": store, "info_type": info }))))
}

fn store_info_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<StoreInfoResult>(data).map(|result| store_info(&result, lang))
}

fn store_info_reply(answering: &Answering) -> Option<Reply> {
    store_info_answer(answering.lang(), answering.data).map(Reply::text)
}

/// Hours, promotions or reviews of a store.
pub fn store_info(result: &StoreInfoResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    match result {
        StoreInfoResult::Promotions { store, promotions: list } => {
            promotions(&store.local_name(lang), list, lang)
        }
        StoreInfoResult::Reviews { store, average_rating, reviews: list } => {
            let name = store.local_name(lang);
            if list.is_empty() {
                return (answers.no_reviews)(&name);
            }
            let average = average_rating.map(one_decimal).unwrap_or_else(|| "?".to_owned());
            let mut lines = vec![(answers.reviews)(&name, &average)];
            for r in list.iter().take(3) {
                lines.push(format!("★{} “{}” — {}", one_decimal(r.rating), clip(&r.text, 60), r.author));
            }
            lines.join("\n")
        }
        StoreInfoResult::Basic { store } => {
            let name = &store.name;
            let place = floor_and_unit(lang, Some(store.floor), &store.unit);
            (answers.store_basic)(name, &place, &store.open_hours, &store.phone)
        }
    }
}

fn promotions(name: &str, promotions: &[PromotionLine], lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if promotions.is_empty() {
        return (answers.no_promotions)(name);
    }
    let mut lines = vec![(answers.promotions)(name)];
    for (i, p) in promotions.iter().enumerate() {
        let until = date(&p.valid_until);
        lines.push(format!("{}. {}", i + 1, (answers.promotion)(&p.title, &p.description, &until)));
    }
    lines.join("\n")
}

/// The quantity a message says ("买两双…", "2 pairs", "two lattes"),
/// ordinals and prices aside.
pub fn quantity_said(text: &str) -> Option<u32> {
    let mut rest = Scratch::new(text);
    extract::take_ordinal(&mut rest);
    extract::take_price_bounds(&mut rest);
    extract::take_quantity(&mut rest).or_else(|| extract::take_leading_count(&mut rest))
}

/// After opening the product a shopper asked to buy: a size or variant the
/// message names ("42码", "大杯", "grande") that is in stock goes to the
/// cart's confirmation; otherwise the product's own answer (its sizes).
pub fn add_named_variant(data: &Value, said: &Said) -> Option<Step> {
    let detail = read::<ProductDetail>(data)?;
    let size = named_size(said.dialogue.user_text(), &detail)?;
    let quantity = quantity_said(said.dialogue.user_text()).unwrap_or(1);
    match add_product(&detail, Some(&size), quantity, said.lang) {
        step @ Step::Call(_) => Some(step),
        Step::Answer(_) => None,
    }
}

/// The label of the product's SKU that `text` names: a size ("42码", "M")
/// or a word of a variant's label ("大杯" of "大杯 Grande", "iced"), the
/// longest such word when several are there ("超大杯" over "大杯").
pub fn named_size(text: &str, detail: &ProductDetail) -> Option<String> {
    let text = crate::texts::zh_hant::to_simplified(text);
    let mut scratch = Scratch::new(&text);
    if let Some(size) = extract::take_size(&mut scratch)
        && let Some(sku) = detail.skus.iter().find(|s| label_matches(&s.label, &size))
    {
        return Some(sku.label.clone());
    }
    let lower = text.to_lowercase();
    detail
        .skus
        .iter()
        .filter_map(|sku| {
            let label = crate::texts::zh_hant::to_simplified(&sku.label).to_lowercase();
            label
                .split(|c: char| !c.is_alphanumeric())
                .filter(|word| word.chars().count() >= 2 && word.chars().any(|c| !c.is_ascii_digit()))
                .filter(|word| {
                    if crate::basic::text::has_cjk(word) {
                        lower.contains(*word)
                    } else {
                        scratch.find(word).is_some()
                    }
                })
                .map(|word| word.chars().count())
                .max()
                .map(|len| (len, sku))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, sku)| sku.label.clone())
}

/// Adding `quantity` of a product in `size`: the call, or the question
/// which size (or that the size is not in stock).
pub fn add_product(detail: &ProductDetail, size: Option<&str>, quantity: u32, lang: Lang) -> Step {
    let skus = &detail.skus;
    let add = |sku: Option<&SkuLine>| {
        let mut args = json!({ "product_id": detail.product_id, "quantity": quantity });
        if let (Some(sku), Some(obj)) = (sku, args.as_object_mut()) {
            obj.insert("sku_id".to_owned(), json!(sku.sku_id));
        }
        Step::Call(Call::new("add_to_cart", args))
    };
    let in_stock: Vec<&SkuLine> = skus.iter().filter(|s| s.stock > 0).collect();
    match size {
        Some(size) => match skus.iter().find(|s| label_matches(&s.label, size)) {
            Some(sku) if sku.stock > 0 => add(Some(sku)),
            _ => Step::answer(size_unavailable(size, detail, lang)),
        },
        None if skus.is_empty() => add(None),
        None if skus.len() == 1 || in_stock.len() == 1 => add(in_stock.first().copied().or(skus.first())),
        None => Step::answer(ask_size(detail, lang)),
    }
}

/// Whether a SKU label is the size the shopper said (`42` ~ `EU 42`, `m` ~ `M`).
pub fn label_matches(label: &str, size: &str) -> bool {
    let norm = |s: &str| {
        crate::texts::zh_hant::to_simplified(s).to_lowercase().replace(['码', '号'], "").trim().to_owned()
    };
    let size = norm(size);
    let label = norm(label);
    label == size || label.split(|c: char| !(c.is_alphanumeric() || c == '.')).any(|token| token == size)
}
