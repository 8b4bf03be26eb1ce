//! The shopper's cart: add, remove, empty, look. Changes wait for the
//! shopper's confirmation; their previews say exactly what will change.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use services::{AddCartItem, Cart, CartItem, Product, ServiceError, Sku};

use crate::basic::text::{Scratch, numbers};
use crate::basic::{Answering, Call, Pick, Reply, Said, Step, extract, read};
use crate::format::{cart_item_text, item_text, items_and_total, paren, product_name};
use crate::general::{NoArguments, idempotency_key};
use crate::info::{ProductDetail, add_product, quantity_said};
use crate::records::{CartResult, ItemLine};
use crate::{
    HelpLine, Lang, OfflineHook, Preview, ToolContext, ToolError, ToolOutput, ToolResult, tool_function,
};

/// Quantities the mall accepts per cart line.
const QUANTITY: std::ops::RangeInclusive<u32> = 1..=99;

/// The `/help` line of the cart tools.
pub static HELP_CART: HelpLine = HelpLine {
    zh: "🛒 购物车：加入、移除、清空、查看（每一步都先请您确认）",
    en: "🛒 Cart: add, remove, clear, view (I ask before every change)",
};

/// Arguments of `add_to_cart`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct AddToCartArgs {
    pub product_id: String,
    pub quantity: u32,
    /// Size: SKU id or label ("42"), when several.
    pub sku_id: Option<String>,
}

fn add_to_cart_progress(lang: Lang, _args: &AddToCartArgs) -> String {
    match lang {
        Lang::En => "🛒 Adding to your cart…",
        _ => "🛒 正在加入购物车…",
    }
    .to_owned()
}

/// Add a product in one size to the shopper's cart.
#[tool_function(level = "confirm", scope = "private", preview = preview_add_to_cart, progress = add_to_cart_progress, help = HELP_CART, offline = ADD_TO_CART_OFFLINE)]
pub async fn add_to_cart(ctx: &ToolContext, args: AddToCartArgs) -> ToolResult<CartResult> {
    let plan = plan_add(ctx, &args).await?;
    let item = AddCartItem {
        product_id: plan.product.brief.id.clone(),
        sku_id: plan.sku.as_ref().map(|s| s.sku_id.clone()),
        quantity: plan.quantity,
    };
    let cart = ctx.mall.add_cart_item(&ctx.shopper, &item, idempotency_key(ctx)).await?;
    Ok(ToolOutput::new(CartResult::new(&cart, ctx.lang)).with_suggestions(ctx.lang.texts().tools.after_add))
}

/// "加入购物车：Nike Pegasus 41 跑鞋（42 码）× 1，¥699".
pub async fn preview_add_to_cart(ctx: &ToolContext, args: AddToCartArgs) -> Result<Preview, ToolError> {
    let plan = plan_add(ctx, &args).await?;
    let unit_price_cents = plan.unit_price_cents();
    let line = item_text(
        ctx.lang,
        &product_name(ctx.lang, &plan.product.brief),
        plan.sku.as_ref().map(|s| s.label.as_str()),
        plan.quantity,
        unit_price_cents * i64::from(plan.quantity),
    );
    Ok(Preview {
        summary: format!("{}{line}", ctx.lang.texts().tools.add_preview),
        fingerprint: json!({
            "product_id": plan.product.brief.id,
            "sku_id": plan.sku.as_ref().map(|s| &s.sku_id),
            "quantity": plan.quantity,
            "unit_price_cents": unit_price_cents,
        }),
    })
}

/// What `add_to_cart` will add, checked: the product, its size, the quantity.
struct PlannedAdd {
    product: Product,
    sku: Option<Sku>,
    quantity: u32,
}

impl PlannedAdd {
    fn unit_price_cents(&self) -> i64 {
        self.sku.as_ref().map_or(self.product.brief.price_cents, |s| s.price_cents)
    }
}

/// Checks the quantity, finds the product and its size, checks the stock.
async fn plan_add(ctx: &ToolContext, args: &AddToCartArgs) -> Result<PlannedAdd, ToolError> {
    if !QUANTITY.contains(&args.quantity) {
        return Err(ToolError::invalid("quantity", "the quantity must be between 1 and 99"));
    }
    let product = ctx.mall.get_product(args.product_id.trim()).await?;
    let sku = resolve_sku(&product, args.sku_id.as_deref())?;
    let stock = match &sku {
        Some(sku) => sku.stock,
        None if product.brief.in_stock => u32::MAX,
        None => 0,
    };
    if stock < args.quantity {
        let what = match &sku {
            Some(sku) => format!("{} ({})", product.brief.name, sku.label),
            None => product.brief.name.clone(),
        };
        let message =
            if stock == 0 { format!("{what} is sold out") } else { format!("only {stock} of {what} left") };
        return Err(ServiceError::OutOfStock { message }.into());
    }
    Ok(PlannedAdd { product, sku, quantity: args.quantity })
}

/// The SKU the model meant: by sku_id, else by label ("42", "42码", "m" for
/// "M"); the only one when there is one; none for a product without sizes.
fn resolve_sku(product: &Product, wanted: Option<&str>) -> Result<Option<Sku>, ToolError> {
    let skus = &product.skus;
    if skus.is_empty() {
        return Ok(None);
    }
    let labels = || skus.iter().map(|s| s.label.as_str()).collect::<Vec<_>>().join(", ");
    match wanted.map(str::trim).filter(|w| !w.is_empty()) {
        Some(wanted) => skus
            .iter()
            .find(|s| s.sku_id == wanted)
            .or_else(|| skus.iter().find(|s| same_size(&s.label, wanted)))
            .cloned()
            .map(Some)
            .ok_or_else(|| {
                ToolError::invalid(
                    "sku_id",
                    format!("{} has no size \"{wanted}\"; its sizes are {}", product.brief.name, labels()),
                )
            }),
        None => match skus.as_slice() {
            [only] => Ok(Some(only.clone())),
            _ => Err(ToolError::invalid(
                "sku_id",
                format!(
                    "{} comes in several sizes ({}); ask the shopper which one",
                    product.brief.name,
                    labels()
                ),
            )),
        },
    }
}

/// Whether a size label and what the model wrote mean the same size:
/// case, spaces, "size" and "码" aside.
fn same_size(label: &str, wanted: &str) -> bool {
    let key = |s: &str| {
        let s = s.to_lowercase().replace("size", "").replace('码', "");
        s.split_whitespace().collect::<String>()
    };
    let label = key(label);
    !label.is_empty() && label == key(wanted)
}

/// Arguments of `remove_from_cart`.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RemoveFromCartArgs {
    pub item_id: Option<String>,
    pub product_id: Option<String>,
    pub sku_id: Option<String>,
}

fn cart_change_progress<A>(lang: Lang, _args: &A) -> String {
    match lang {
        Lang::En => "🛒 Updating your cart…",
        _ => "🛒 正在更新购物车…",
    }
    .to_owned()
}

/// Remove a cart line: by item_id, or product_id (+ sku_id when in several
/// sizes).
#[tool_function(
    level = "confirm",
    scope = "private",
    preview = preview_remove_from_cart,
    progress = cart_change_progress,
    help = HELP_CART,
    offline = REMOVE_FROM_CART_OFFLINE
)]
pub async fn remove_from_cart(ctx: &ToolContext, args: RemoveFromCartArgs) -> ToolResult<CartResult> {
    let cart = ctx.mall.get_cart(&ctx.shopper).await?;
    let item = pick_item(&cart, &args)?;
    let cart = ctx.mall.remove_cart_item(&ctx.shopper, &item.item_id, idempotency_key(ctx)).await?;
    Ok(ToolOutput::new(CartResult::new(&cart, ctx.lang)))
}

/// "从购物车移除：Nike Pegasus 41 跑鞋（42 码）× 1，¥699".
pub async fn preview_remove_from_cart(
    ctx: &ToolContext,
    args: RemoveFromCartArgs,
) -> Result<Preview, ToolError> {
    let cart = ctx.mall.get_cart(&ctx.shopper).await?;
    let item = pick_item(&cart, &args)?;
    Ok(Preview {
        summary: format!("{}{}", ctx.lang.texts().tools.remove_preview, cart_item_text(ctx.lang, &item)),
        fingerprint: json!({
            "item_id": item.item_id,
            "product_id": item.product_id,
            "sku_id": item.sku_id,
            "quantity": item.quantity,
        }),
    })
}

/// The cart line the arguments point at.
fn pick_item(cart: &Cart, args: &RemoveFromCartArgs) -> Result<CartItem, ToolError> {
    let given = |v: &Option<String>| v.as_deref().map(str::trim).filter(|v| !v.is_empty()).map(str::to_owned);
    if let Some(item_id) = given(&args.item_id) {
        return cart.items.iter().find(|i| i.item_id == item_id).cloned().ok_or_else(|| {
            ToolError::NotFound(format!(
                "item {item_id} is not in the shopper's cart; view_cart lists its items"
            ))
        });
    }
    let Some(product_id) = given(&args.product_id) else {
        return Err(ToolError::invalid("item_id", "give item_id, or product_id (and sku_id)"));
    };
    let sku = given(&args.sku_id);
    let matches: Vec<&CartItem> = cart
        .items
        .iter()
        .filter(|i| i.product_id == product_id)
        .filter(|i| match &sku {
            Some(sku) => {
                i.sku_id.as_deref() == Some(sku) || i.sku_label.as_deref().is_some_and(|l| same_size(l, sku))
            }
            None => true,
        })
        .collect();
    match matches.as_slice() {
        [item] => Ok((*item).clone()),
        [] => Err(ToolError::NotFound(format!(
            "product {product_id}{} is not in the shopper's cart; view_cart lists its items",
            sku.map(|s| format!(" (size {s})")).unwrap_or_default()
        ))),
        several => {
            let sizes: Vec<&str> = several.iter().filter_map(|i| i.sku_label.as_deref()).collect();
            Err(ToolError::invalid(
                "sku_id",
                format!("the cart holds {product_id} in several sizes ({}); say which one", sizes.join(", ")),
            ))
        }
    }
}

/// Empty the shopper's cart.
#[tool_function(level = "confirm", scope = "private", preview = preview_clear_cart, progress = cart_change_progress, help = HELP_CART, offline = CLEAR_CART_OFFLINE)]
pub async fn clear_cart(ctx: &ToolContext, _args: NoArguments) -> ToolResult<CartResult> {
    let cart = ctx.mall.clear_cart(&ctx.shopper, idempotency_key(ctx)).await?;
    Ok(ToolOutput::new(CartResult::new(&cart, ctx.lang)))
}

/// "清空购物车：" and every line with the total. An empty cart has nothing
/// to confirm: `CART_EMPTY`.
pub async fn preview_clear_cart(ctx: &ToolContext, _args: NoArguments) -> Result<Preview, ToolError> {
    let cart = ctx.mall.get_cart(&ctx.shopper).await?;
    if cart.items.is_empty() {
        return Err(ServiceError::CartEmpty.into());
    }
    Ok(Preview {
        summary: format!(
            "{}\n{}",
            ctx.lang.texts().tools.clear_preview,
            items_and_total(ctx.lang, &cart.items, cart.total_cents)
        ),
        fingerprint: json!({
            "cart_id": cart.cart_id,
            "total_cents": cart.total_cents,
            "item_count": cart.items.len(),
        }),
    })
}

fn view_cart_progress(lang: Lang, _args: &NoArguments) -> String {
    match lang {
        Lang::En => "🛒 Looking at your cart…",
        _ => "🛒 正在查看购物车…",
    }
    .to_owned()
}

/// The shopper's cart, with the cart_id create_order needs.
#[tool_function(level = "safe", scope = "private", progress = view_cart_progress, help = HELP_CART, offline = VIEW_CART_OFFLINE)]
pub async fn view_cart(ctx: &ToolContext, _args: NoArguments) -> ToolResult<CartResult> {
    let cart = ctx.mall.get_cart(&ctx.shopper).await?;
    let output = ToolOutput::new(CartResult::new(&cart, ctx.lang));
    Ok(if cart.items.is_empty() {
        output
    } else {
        output.with_suggestions([ctx.lang.texts().tools.after_add[1]])
    })
}

// Basic mode. The cart's hooks (priorities 20–23) share one reading of the
// message, [`cart_ask`], so at most one of them recognises it.

/// "加入购物车", "42码", "要两双", "我要这个" for the product shown last:
/// priority 20. Its answer offers to place the order.
pub static ADD_TO_CART_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_add, added_answer).priority(20).reply(added_reply).failed(add_failed).direct();

/// "清空购物车", "empty my cart": priority 21.
pub static CLEAR_CART_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_clear, cleared_answer).priority(21).reply(cleared_reply).direct();

/// "删掉第一件", "remove the shoes": the cart is read first, then the line
/// named is removed: priority 22.
pub static REMOVE_FROM_CART_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_remove, removed_answer).priority(22).reply(removed_reply).direct();

/// "看看购物车", "my cart": priority 23. A cart with something in it is
/// answered with an offer to order it.
pub static VIEW_CART_OFFLINE: OfflineHook =
    OfflineHook::new(recognise_view, cart_answer).priority(23).reply(cart_reply).direct();

/// Which cart line the shopper means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CartTarget {
    /// By position in the cart.
    Pick(Pick),
    /// By (part of) the product name.
    Name(String),
    /// Not said.
    Unspecified,
}

/// What a message asks of the cart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CartAsk {
    /// Put the product shown last into the cart.
    Add {
        size: Option<String>,
        quantity: Option<u32>,
        /// "加入购物车" / "add to cart" was said (not only a size or quantity).
        explicit: bool,
    },
    /// Empty it.
    Clear,
    /// Remove one line.
    Remove(CartTarget),
    /// Show it.
    View,
}

const CART: &[&str] = &["购物车", "cart", "basket"];
#[rustfmt::skip]
const ADD: &[&str] = &[
    "加入购物车", "加到购物车", "放进购物车", "放入购物车", "加购物车", "加购", "add to cart",
    "add to my cart", "add it to", "add them to", "put it in",
];
const CLEAR: &[&str] = &["清空", "empty", "clear"];
#[rustfmt::skip]
const REMOVE: &[&str] = &[
    "删掉", "删除", "删了", "去掉", "移除", "拿掉", "remove", "delete", "take out", "drop",
];
#[rustfmt::skip]
const CART_FILLER: &[&str] = &[
    "购物车", "把", "从", "里", "中", "的", "件", "商品", "还是", "算了", "它", "cart", "basket", "item", "from",
    "my", "the", "in", "one", "it", "of", "please", "actually", "just", "now", "also", "then", "instead",
];

/// What the message asks of the cart, if anything: a change or a look, or
/// (with no word of the cart) a size, a quantity or "this one" to add.
pub fn cart_ask(said: &Said) -> Option<CartAsk> {
    let s = said.scratch();
    if s.contains_any(ADD) || adds_by_name(&s) {
        let mut rest = s;
        rest.remove_all(ADD);
        let size = extract::take_size(&mut rest);
        let quantity = extract::take_quantity(&mut rest);
        return Some(CartAsk::Add { size, quantity, explicit: true });
    }
    let cart = s.contains_any(CART);
    if s.contains_any(CLEAR) && (cart || s.contains_any(&["清空"])) {
        return Some(CartAsk::Clear);
    }
    if s.contains_any(REMOVE) {
        let mut rest = s;
        rest.remove_all(REMOVE);
        if let Some(pick) = extract::take_ordinal(&mut rest) {
            return Some(CartAsk::Remove(CartTarget::Pick(pick)));
        }
        rest.remove_all(CART_FILLER);
        let name = rest.residual();
        let target = if name.is_empty() { CartTarget::Unspecified } else { CartTarget::Name(name) };
        return Some(CartAsk::Remove(target));
    }
    if cart {
        return Some(CartAsk::View);
    }
    size_or_quantity(s)
}

/// "add the Pegasus 41 to my cart", "put two lattes in the basket": a
/// product named between the verb and the cart.
fn adds_by_name(s: &Scratch) -> bool {
    // "加一件优衣库 T恤到购物车".
    let into_cart = s.find("到购物车").or_else(|| s.find("进购物车")).or_else(|| s.find("入购物车"));
    let put = s.find("加").or_else(|| s.find("放"));
    if let (Some(put), Some(cart)) = (put, into_cart)
        && put.start < cart.start
    {
        return true;
    }
    let verb = s.find("add").or_else(|| s.find("put"));
    let cart = CART.iter().filter_map(|c| s.find(c)).map(|r| r.start).min();
    matches!((verb, cart), (Some(verb), Some(cart)) if verb.start < cart && s.contains_any(&["to", "in", "into"]))
}

#[rustfmt::skip]
const SKU_FILLER: &[&str] = &[
    "我要", "要", "就", "吧", "好", "的", "给我", "来", "拿", "买", "尺码", "码数", "码", "号", "i'll",
    "take", "i", "want", "ok", "okay", "yes", "size", "please", "in", "give", "me",
];

#[rustfmt::skip]
const THIS_ONE: &[&str] = &[
    "就这个", "这个", "这款", "这双", "这件", "就它", "this one", "that one", "take it", "take this",
];

/// "42码", "42", "要两双", "我要这个": nothing but a size, a quantity or "this one".
fn size_or_quantity(mut rest: Scratch) -> Option<CartAsk> {
    let mut size = extract::take_size(&mut rest);
    let quantity = extract::take_quantity(&mut rest);
    let this_one = rest.remove_all(THIS_ONE);
    rest.remove_all(SKU_FILLER);
    let left = rest.residual();
    if this_one && left.is_empty() {
        return Some(CartAsk::Add { size, quantity, explicit: false });
    }
    if size.is_none() && quantity.is_none() {
        let digits = left.starts_with(|c: char| c.is_ascii_digit());
        let bare = numbers(&left).into_iter().find(|n| digits && n.range == (0..left.len()))?;
        size = Some(bare.text);
    } else if !left.is_empty() {
        return None;
    }
    Some(CartAsk::Add { size, quantity, explicit: false })
}

fn recognise_add(said: &Said) -> Option<Step> {
    if said.is_yes() {
        return yes_to_sizes(said);
    }
    let Some(CartAsk::Add { size, quantity, explicit }) = cart_ask(said) else {
        return None;
    };
    let dialogue = said.dialogue;
    let detail = dialogue.latest_before_turn("get_product_detail").and_then(|c| c.result::<ProductDetail>());
    let Some(detail) = detail else {
        if explicit {
            return Some(
                find_to_add(said).unwrap_or_else(|| Step::answer(said.texts().answers.which_product)),
            );
        }
        return Some(Step::answer(""));
    };
    // The quantity said now, else the one said when this product was opened ("买两双…").
    let quantity = quantity
        .or_else(|| dialogue.asked_before_turn("get_product_detail").and_then(quantity_said))
        .unwrap_or(1);
    Some(add_product(&detail, size.as_deref(), quantity, said.lang))
}

/// "Yes" to a product's card that asks which size (it offered nothing to
/// add): the question again, with the sizes in stock.
fn yes_to_sizes(said: &Said) -> Option<Step> {
    let last = said.dialogue.last_call_before_turn()?;
    if last.name != "get_product_detail" || said.offer().is_some() {
        return None;
    }
    let detail = last.result::<ProductDetail>()?;
    Some(Step::answer(crate::info::ask_size(&detail, said.lang)))
}

/// "把优衣库摇粒绒夹克加到购物车" with no product open: the product named is
/// looked for and opened (its sizes, or the cart's confirmation when the
/// size is named too).
fn find_to_add(said: &Said) -> Option<Step> {
    let mut rest = said.scratch();
    rest.remove_all(ADD);
    rest.remove_all(&["add", "put", "to", "into", "到购物车", "进购物车", "入购物车", "帮我"]);
    // The verb of "加一件…到购物车" (only the first, a name may hold the character too).
    if let Some(verb) = rest.find("加").or_else(|| rest.find("放")) {
        rest.remove_range(verb);
    }
    rest.remove_all(CART_FILLER);
    let (keyword, brand) = crate::search::named_product(said.lexicon, rest)?;
    let mut args = json!({ "keyword": keyword });
    if let (Some(brand), Some(obj)) = (brand, args.as_object_mut()) {
        obj.insert("brand".to_owned(), json!(brand));
    }
    Some(Step::Call(Call::then("search_products", args, crate::search::open_best_match)))
}

fn added_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<CartResult>(data).map(|cart| added(&Value::Null, &cart, lang))
}

/// What was added and the cart's total, offering to place the order.
fn added_reply(answering: &Answering) -> Option<Reply> {
    let cart = read::<CartResult>(answering.data)?;
    let text = added(answering.args, &cart, answering.lang());
    Some(Reply::offering(text, crate::orders::checkout()))
}

fn add_failed(said: &Said, error: &str) -> Option<String> {
    if error.to_ascii_lowercase().contains("(out_of_stock)") {
        return Some(crate::info::out_of_stock(said));
    }
    crate::navigation::not_found(error).then(|| said.texts().answers.product_missing.to_owned())
}

/// After `add_to_cart`: the item, the quantity, the cart total, "order now?".
pub fn added(args: &Value, cart: &CartResult, lang: Lang) -> String {
    let product = args.get("product_id").and_then(Value::as_str).unwrap_or("");
    let sku = args.get("sku_id").and_then(Value::as_str);
    let item = cart
        .items
        .iter()
        .find(|i| i.product_id == product && sku.is_none_or(|s| i.sku_id.as_deref() == Some(s)))
        .or(cart.items.last());
    let name = item.map(|i| item_name(i, lang)).unwrap_or_default();
    let quantity = args.get("quantity").and_then(Value::as_u64).or(item.map(|i| u64::from(i.quantity)));
    let total = cart.total_yuan.money();
    (lang.texts().answers.added)(&name, quantity.unwrap_or(1), &total)
}

/// A cart line's name with its SKU label.
fn item_name(item: &ItemLine, lang: Lang) -> String {
    let label = crate::format::sku_label(lang, item.sku_label.as_deref().unwrap_or(""));
    format!("{}{}", item.name, paren(lang, &label))
}

fn recognise_clear(said: &Said) -> Option<Step> {
    (cart_ask(said)? == CartAsk::Clear).then(|| Step::Call(Call::new("clear_cart", json!({}))))
}

fn cleared_answer(lang: Lang, _data: &Value) -> Option<String> {
    Some(lang.texts().answers.cart_cleared.to_owned())
}

fn cleared_reply(answering: &Answering) -> Option<Reply> {
    cleared_answer(answering.lang(), answering.data).map(Reply::text)
}

fn recognise_remove(said: &Said) -> Option<Step> {
    match cart_ask(said)? {
        CartAsk::Remove(_) => Some(Step::Call(Call::then("view_cart", json!({}), remove_named))),
        _ => None,
    }
}

/// With the cart read: remove the line the shopper named, or ask which.
fn remove_named(data: &Value, said: &Said) -> Option<Step> {
    let Some(CartAsk::Remove(target)) = cart_ask(said) else {
        return None;
    };
    let cart = read::<CartResult>(data)?;
    let items = &cart.items;
    let answers = &said.texts().answers;
    if items.is_empty() {
        return Some(Step::answer(answers.cart_empty));
    }
    let item = match target {
        CartTarget::Pick(pick) => pick.index(items.len()).and_then(|i| items.get(i)),
        CartTarget::Name(name) => {
            let name = name.to_lowercase();
            items
                .iter()
                .find(|i| crate::texts::zh_hant::to_simplified(&i.name).to_lowercase().contains(&name))
        }
        CartTarget::Unspecified => items.first().filter(|_| items.len() == 1),
    };
    Some(match item {
        Some(item) => Step::Call(Call::new("remove_from_cart", json!({ "item_id": item.item_id }))),
        None => {
            let mut lines = vec![answers.which_cart_item.to_owned()];
            lines.extend(cart_lines(items, said.lang));
            Step::answer(lines.join("\n"))
        }
    })
}

fn removed_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<CartResult>(data).map(|cart| removed(&cart, lang))
}

fn removed_reply(answering: &Answering) -> Option<Reply> {
    removed_answer(answering.lang(), answering.data).map(Reply::text)
}

/// After `remove_from_cart`: what is left.
pub fn removed(cart: &CartResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if cart.items.is_empty() {
        return answers.removed_empty.to_owned();
    }
    let mut lines = vec![answers.removed_title.to_owned()];
    lines.extend(cart_lines(&cart.items, lang));
    lines.push((answers.removed_total)(&cart.total_yuan.money()));
    lines.join("\n")
}

fn recognise_view(said: &Said) -> Option<Step> {
    (cart_ask(said)? == CartAsk::View).then(|| Step::Call(Call::new("view_cart", json!({}))))
}

fn cart_answer(lang: Lang, data: &Value) -> Option<String> {
    read::<CartResult>(data).map(|cart| cart_text(&cart, lang))
}

/// The cart, offering to order it when it has something in it.
fn cart_reply(answering: &Answering) -> Option<Reply> {
    let cart = read::<CartResult>(answering.data)?;
    let text = cart_text(&cart, answering.lang());
    Some(if cart.items.is_empty() {
        Reply::text(text)
    } else {
        Reply::offering(text, crate::orders::checkout())
    })
}

/// The cart's lines and total, or "the cart is empty".
pub fn cart_text(cart: &CartResult, lang: Lang) -> String {
    let answers = &lang.texts().answers;
    if cart.items.is_empty() {
        return answers.cart_empty.to_owned();
    }
    let mut lines = vec![answers.cart_title.to_owned()];
    lines.extend(cart_lines(&cart.items, lang));
    lines.push((answers.cart_total)(&cart.total_yuan.money()));
    lines.join("\n")
}

/// The shopper-facing text of a cart (`view_cart`'s data); "empty" when
/// the data cannot be read.
pub fn cart_data_text(data: &Value, lang: Lang) -> String {
    cart_answer(lang, data).unwrap_or_else(|| lang.texts().answers.cart_empty.to_owned())
}

fn cart_lines(items: &[ItemLine], lang: Lang) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            let line = item.line_total_yuan.money();
            format!("{}. {} × {} — {line}", i + 1, item_name(item, lang), item.quantity)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_match_whatever_way_they_are_written() {
        assert!(same_size("42", "42"));
        assert!(same_size("42", "42码"));
        assert!(same_size("42", " 42 码 "));
        assert!(same_size("M", "m"));
        assert!(same_size("M", "size M"));
        assert!(!same_size("42", "43"));
        assert!(!same_size("M", "XL"));
        assert!(!same_size("码", ""));
    }
}
