//! The shopper's cart: add, remove, empty, look. Changes wait for the
//! shopper's confirmation; their previews say exactly what will change.

use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::json;
use services::{AddCartItem, Cart, CartItem, Product, ServiceError, Sku};

use crate::format::{cart_item_text, item_text, items_and_total, product_name};
use crate::general::{NoArguments, idempotency_key};
use crate::records::CartResult;
use crate::{HelpLine, Lang, Preview, ToolContext, ToolError, ToolOutput, ToolResult, tool_function};

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
#[tool_function(level = "confirm", scope = "private", preview = preview_add_to_cart, progress = add_to_cart_progress, help = HELP_CART)]
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
    progress = cart_change_progress
, help = HELP_CART)]
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
#[tool_function(level = "confirm", scope = "private", preview = preview_clear_cart, progress = cart_change_progress, help = HELP_CART)]
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
#[tool_function(level = "safe", scope = "private", progress = view_cart_progress, help = HELP_CART)]
pub async fn view_cart(ctx: &ToolContext, _args: NoArguments) -> ToolResult<CartResult> {
    let cart = ctx.mall.get_cart(&ctx.shopper).await?;
    let output = ToolOutput::new(CartResult::new(&cart, ctx.lang));
    Ok(if cart.items.is_empty() {
        output
    } else {
        output.with_suggestions([ctx.lang.texts().tools.after_add[1]])
    })
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
