//! A small mall for the tool tests: two stores, a running shoe in three
//! sizes, a cart, an order; contexts for a shopper in either language.

use std::sync::Arc;

use handlers::{Approval, Lang, Preview, ToolContext, ToolError, ToolOutput, ToolResult};
use serde::de::DeserializeOwned;
use serde_json::Value;
use services::*;

pub const SHOPPER: &str = "telegram:42";

pub fn shopper() -> Shopper {
    Shopper(SHOPPER.to_owned())
}

pub fn nike() -> Store {
    Store {
        id: "s-nike".into(),
        name: "耐克".into(),
        name_en: "Nike".into(),
        category: "运动".into(),
        floor: 2,
        unit: "201".into(),
        area_id: "a-sports".into(),
        open_hours: "10:00-22:00".into(),
        phone: "021-5555-0201".into(),
        tags: vec!["running".into()],
    }
}

pub fn uniqlo() -> Store {
    Store {
        id: "s-uniqlo".into(),
        name: "优衣库".into(),
        name_en: "Uniqlo".into(),
        category: "服装".into(),
        floor: -1,
        unit: "B105".into(),
        area_id: "a-fashion".into(),
        open_hours: "10:00-22:00".into(),
        phone: "021-5555-0105".into(),
        tags: vec![],
    }
}

pub fn sku(size: &str, stock: u32) -> Sku {
    Sku { sku_id: format!("k-peg-{size}"), label: size.into(), price_cents: 69900, stock }
}

/// Nike Pegasus 41: sizes 41 (3 left), 42 (1 left), 43 (sold out).
pub fn pegasus() -> Product {
    Product {
        brief: ProductBrief {
            id: "p-peg41".into(),
            name: "Nike Pegasus 41 跑鞋".into(),
            name_en: Some("Nike Pegasus 41 Running Shoes".into()),
            brand: "Nike".into(),
            category: "跑鞋".into(),
            price_cents: 69900,
            rating: 4.7,
            store_id: "s-nike".into(),
            store_name: "耐克".into(),
            in_stock: true,
            sizes: vec!["41".into(), "42".into()],
        },
        description: "轻量缓震跑鞋".into(),
        description_en: Some("Light cushioned running shoes".into()),
        skus: vec![sku("41", 3), sku("42", 1), sku("43", 0)],
        images: vec!["https://img.example/peg41.jpg".into()],
    }
}

/// A product without sizes: 19.99 yuan socks.
pub fn socks() -> Product {
    Product {
        brief: ProductBrief {
            id: "p-socks".into(),
            name: "运动袜".into(),
            name_en: None,
            brand: "Nike".into(),
            category: "袜子".into(),
            price_cents: 1999,
            rating: 4.2,
            store_id: "s-nike".into(),
            store_name: "耐克".into(),
            in_stock: true,
            sizes: vec![],
        },
        description: String::new(),
        description_en: None,
        skus: vec![],
        images: vec![],
    }
}

pub fn pegasus_line(item_id: &str, size: &str, quantity: u32) -> CartItem {
    CartItem {
        item_id: item_id.into(),
        product_id: "p-peg41".into(),
        sku_id: Some(format!("k-peg-{size}")),
        name: "Nike Pegasus 41 跑鞋".into(),
        name_en: Some("Nike Pegasus 41 Running Shoes".into()),
        sku_label: Some(size.into()),
        quantity,
        unit_price_cents: 69900,
        line_total_cents: 69900 * i64::from(quantity),
    }
}

pub fn socks_line(quantity: u32) -> CartItem {
    CartItem {
        item_id: "i-socks".into(),
        product_id: "p-socks".into(),
        sku_id: None,
        name: "运动袜".into(),
        name_en: None,
        sku_label: None,
        quantity,
        unit_price_cents: 1999,
        line_total_cents: 1999 * i64::from(quantity),
    }
}

pub fn cart(items: Vec<CartItem>) -> Cart {
    let total_cents = items.iter().map(|i| i.line_total_cents).sum();
    Cart { cart_id: "c-42".into(), items, total_cents }
}

/// Pegasus 42 × 1 and socks × 2: ¥738.98.
pub fn full_cart() -> Cart {
    cart(vec![pegasus_line("i-1", "42", 1), socks_line(2)])
}

pub fn order(status: OrderStatus) -> Order {
    let cart = full_cart();
    Order {
        order_id: "o-1001".into(),
        status,
        items: cart.items,
        total_cents: cart.total_cents,
        currency: "CNY".into(),
        created_at: "2025-05-01T10:30:00Z".into(),
        expires_at: (status == OrderStatus::PendingPayment).then(|| "2025-05-01T11:00:00Z".into()),
        pickup_store_id: "s-nike".into(),
        payment: None,
        refund: None,
        subtotal_cents: None,
        discount_cents: None,
        coupon_id: None,
    }
}

pub fn page<T>(items: Vec<T>) -> Page<T> {
    let total = items.len() as u64;
    Page { items, total }
}

pub fn ctx(mall: MockMallApi, lang: Lang) -> ToolContext {
    ToolContext::new(Arc::new(mall), shopper(), lang)
}

/// A context for a call the shopper confirmed after seeing `preview`.
pub fn approved(mall: MockMallApi, key: &str, fingerprint: Value) -> ToolContext {
    let mut ctx = ctx(mall, Lang::Zh);
    ctx.approval = Some(Approval {
        idempotency_key: IdempotencyKey(key.to_owned()),
        preview: Preview { summary: "…".into(), fingerprint },
    });
    ctx
}

/// Calls a tool through the registry, arguments as the model wrote them,
/// and reads its result back as the tool's result type.
pub async fn call<T: DeserializeOwned>(ctx: ToolContext, tool: &str, args: Value) -> ToolResult<T> {
    let output = handlers::find(tool).expect("registered").invoke(ctx, args).await?;
    let data = output.read::<T>().expect("the result reads back as its type");
    Ok(ToolOutput { data, suggestions: output.suggestions, image: output.image, pictures: output.pictures })
}

/// Calls a tool through the registry and returns the JSON the model reads.
pub async fn call_json(ctx: ToolContext, tool: &str, args: Value) -> ToolResult {
    handlers::find(tool).expect("registered").invoke(ctx, args).await
}

/// Asks a tool for its confirmation preview.
pub async fn preview(ctx: ToolContext, tool: &str, args: Value) -> Result<Preview, ToolError> {
    let preview = handlers::find(tool).expect("registered").preview.expect("has a preview");
    preview(ctx, args).await
}

/// The field an `InvalidArguments` error names.
pub fn invalid_field(error: &ToolError) -> Option<&str> {
    match error {
        ToolError::InvalidArguments { field, .. } => field.as_deref(),
        _ => None,
    }
}

pub fn refused_code(error: &ToolError) -> Option<&'static str> {
    match error {
        ToolError::Refused { code, .. } => Some(code),
        _ => None,
    }
}

pub fn unavailable() -> ServiceError {
    ServiceError::Unavailable { message: "connect timeout to mall.internal:8080".into() }
}
