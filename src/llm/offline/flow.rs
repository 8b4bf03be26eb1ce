//! The offline planner's next move: given the shopper's intent and the tool
//! calls of the current turn, call the next tool or answer.

use handlers::info::{ProductDetail, SkuLine};
use handlers::orders::ListOrdersResult;
use handlers::records::CartResult;
use handlers::search::SearchProductsResult;
use handlers::texts::zh_hant::to_simplified;
use serde_json::{Map, Value, json};
use services::OrderStatus;

use super::Step;
use super::compose::{self, read};
use super::conversation::{CallRecord, Conversation, Outcome};
use super::extract::Pick;
use super::intent::{CartTarget, Intent, ProductQuery, parse_intent};

/// The next step of the turn.
pub(crate) fn next_step(intent: &Intent, conv: &Conversation) -> Step {
    let Some(last) = conv.last_turn_call() else {
        return first_step(intent, conv);
    };
    match &last.outcome {
        Some(Outcome::Failed(error)) => Step::Answer(compose::failure(last, error, conv)),
        Some(Outcome::Declined) => Step::Answer(compose::declined(conv.lang)),
        Some(Outcome::Data(data)) => follow_up(intent, last, data, conv)
            .unwrap_or_else(|| Step::Answer(compose::answer(intent, last, data, conv))),
        None => Step::Answer(String::new()),
    }
}

/// What a bare "好的" / "yes" agrees to: the offer the assistant's previous
/// answer ended with (placing the order, adding the product shown).
pub(crate) fn resolve_affirmation(intent: Intent, conv: &Conversation) -> Intent {
    if intent != Intent::Affirm {
        return intent;
    }
    let offer = conv.previous_answer().unwrap_or("").to_lowercase();
    if offer.contains("下单吗") || offer.contains("place the order") {
        Intent::Checkout
    } else if offer.contains("加入购物车吗") || offer.contains("add it to your cart") {
        Intent::AddToCart { size: None, quantity: None, explicit: true }
    } else {
        Intent::None
    }
}

/// The answer when `tool` is not offered here.
pub(crate) fn without_tool(tool: &str, intent: &Intent, conv: &Conversation) -> String {
    match conv.last_turn_call() {
        Some(last @ CallRecord { outcome: Some(Outcome::Data(data)), .. }) => {
            compose::answer(intent, last, data, conv)
        }
        _ => compose::unavailable(tool, conv.lang),
    }
}

fn call(tool: &'static str, arguments: Value) -> Step {
    Step::Call { tool, arguments }
}

fn first_step(intent: &Intent, conv: &Conversation) -> Step {
    match intent {
        Intent::SearchProducts(query) => search_step(query, conv),
        Intent::ShowProduct(pick) => show_step(*pick, conv),
        Intent::AddToCart { size, quantity, explicit } => {
            add_step(size.as_deref(), *quantity, *explicit, conv)
        }
        Intent::NavigateToStore { store } => call("navigate_to_store", json!({ "store_name": store })),
        Intent::NavigateToArea { area } => {
            call("navigate_to_area", json!({ "area_name": area, "show_stores": true }))
        }
        Intent::StoreInfo { store, info } => {
            call("get_store_info", json!({ "store_id": store, "info_type": info.as_str() }))
        }
        Intent::SearchStores { keyword } => call("search_stores", json!({ "keyword": keyword })),
        Intent::ViewCart | Intent::RemoveFromCart(_) | Intent::Checkout => call("view_cart", json!({})),
        Intent::ClearCart => call("clear_cart", json!({})),
        Intent::OrderStatus { order_id: Some(id) } | Intent::PayOrder { order_id: Some(id) } => {
            call("get_order_status", json!({ "order_id": id }))
        }
        Intent::CancelOrder { order_id: Some(id) } => call("cancel_order", json!({ "order_id": id })),
        Intent::ListOrders
        | Intent::OrderStatus { .. }
        | Intent::CancelOrder { .. }
        | Intent::PayOrder { .. } => call("list_orders", json!({})),
        Intent::Declared { tool, arguments } => call(tool, arguments.clone()),
        Intent::Affirm | Intent::None => Step::Answer(String::new()),
    }
}

/// The step after a successful call, when the flow goes on.
fn follow_up(intent: &Intent, last: &CallRecord, data: &Value, conv: &Conversation) -> Option<Step> {
    let lang = conv.lang;
    match (intent, last.name.as_str()) {
        (Intent::SearchProducts(query), "search_products") if query.buy => {
            let result = read::<SearchProductsResult>(data)?;
            let id = &result.products.first()?.product_id;
            Some(call("get_product_detail", json!({ "product_id": id })))
        }
        (Intent::RemoveFromCart(target), "view_cart") => Some(remove_step(target, &read(data)?, conv)),
        (Intent::Checkout, "view_cart") => {
            let cart = read::<CartResult>(data)?;
            Some(if cart.items.is_empty() {
                Step::Answer(compose::cart_empty(lang))
            } else {
                call("create_order", json!({ "cart_id": cart.cart_id }))
            })
        }
        (Intent::OrderStatus { .. }, "list_orders") => {
            Some(match read::<ListOrdersResult>(data)?.orders.first() {
                Some(order) => call("get_order_status", json!({ "order_id": order.order_id })),
                None => Step::Answer(compose::no_orders(lang)),
            })
        }
        (Intent::PayOrder { .. }, "list_orders") => {
            let orders = read::<ListOrdersResult>(data)?.orders;
            let unpaid = orders.iter().find(|o| o.status == OrderStatus::PendingPayment);
            Some(match unpaid {
                Some(order) => call("get_order_status", json!({ "order_id": order.order_id })),
                None => Step::Answer(compose::no_unpaid_orders(!orders.is_empty(), lang)),
            })
        }
        (Intent::CancelOrder { .. }, "list_orders") => {
            let orders = read::<ListOrdersResult>(data)?.orders;
            let newest = orders.iter().find(|o| handlers::orders::cancellable(o.status));
            Some(match newest {
                Some(order) => call("cancel_order", json!({ "order_id": order.order_id })),
                None => Step::Answer(compose::no_pending_orders(!orders.is_empty(), lang)),
            })
        }
        _ => None,
    }
}

fn search_step(query: &ProductQuery, conv: &Conversation) -> Step {
    let previous = conv.latest_before_turn("search_products");
    let mut args = Map::new();
    if query.keyword.is_empty() {
        let Some(previous) = previous else {
            return Step::Answer(compose::ask_what_to_search(conv.lang));
        };
        for key in ["keyword", "brand", "min_price", "max_price"] {
            if let Some(v) = previous.args.get(key).filter(|v| !v.is_null()) {
                args.insert(key.to_owned(), v.clone());
            }
        }
        if !query.price.is_empty() {
            args.remove("min_price");
            args.remove("max_price");
        } else if query.cheap {
            cheaper_than_before(&mut args, previous);
        }
    } else {
        args.insert("keyword".to_owned(), json!(query.keyword));
        if let Some(brand) = &query.brand {
            args.insert("brand".to_owned(), json!(brand));
        }
    }
    for (key, bound) in [("min_price", query.price.min), ("max_price", query.price.max)] {
        if let Some(v) = bound {
            args.insert(key.to_owned(), yuan_json(v));
        }
    }
    call("search_products", Value::Object(args))
}

/// "便宜点的": below the price of the best match shown last.
fn cheaper_than_before(args: &mut Map<String, Value>, previous: &CallRecord) {
    let result = previous.result::<SearchProductsResult>();
    let Some(price) = result.and_then(|r| r.products.first().map(|p| p.price.as_f64())) else {
        return;
    };
    let below = price.ceil() - 1.0;
    let current = args.get("max_price").and_then(Value::as_f64).unwrap_or(f64::MAX);
    if below > 0.0 && below < current {
        args.insert("max_price".to_owned(), yuan_json(below));
    }
}

/// A price as a JSON number: whole yuan as integers.
fn yuan_json(v: f64) -> Value {
    if v.fract() == 0.0 && v.abs() < 1e12 { json!(v as i64) } else { json!(v) }
}

fn show_step(pick: Pick, conv: &Conversation) -> Step {
    let Some(search) = conv.latest_before_turn("search_products") else {
        return Step::Answer(compose::nothing_listed(conv.lang));
    };
    let products = search.result::<SearchProductsResult>().map(|r| r.products).unwrap_or_default();
    match pick.index(products.len()).and_then(|i| products.get(i)) {
        Some(p) => call("get_product_detail", json!({ "product_id": p.product_id })),
        None => Step::Answer(compose::no_such_item(products.len(), conv.lang)),
    }
}

fn add_step(size: Option<&str>, quantity: Option<u32>, explicit: bool, conv: &Conversation) -> Step {
    let detail = conv.latest_before_turn("get_product_detail").and_then(CallRecord::result::<ProductDetail>);
    let Some(detail) = detail else {
        return Step::Answer(if explicit { compose::which_product(conv.lang) } else { String::new() });
    };
    let skus = &detail.skus;
    let quantity = quantity.or_else(|| remembered_quantity(conv)).unwrap_or(1);
    let add = |sku: Option<&SkuLine>| {
        let mut args = json!({ "product_id": detail.product_id, "quantity": quantity });
        if let (Some(sku), Some(obj)) = (sku, args.as_object_mut()) {
            obj.insert("sku_id".to_owned(), json!(sku.sku_id));
        }
        call("add_to_cart", args)
    };
    let in_stock: Vec<&SkuLine> = skus.iter().filter(|s| s.stock > 0).collect();
    match size {
        Some(size) => match skus.iter().find(|s| label_matches(&s.label, size)) {
            Some(sku) if sku.stock > 0 => add(Some(sku)),
            _ => Step::Answer(compose::size_unavailable(size, &detail, conv.lang)),
        },
        None if skus.is_empty() => add(None),
        None if skus.len() == 1 || in_stock.len() == 1 => add(in_stock.first().copied().or(skus.first())),
        None => Step::Answer(compose::ask_size(&detail, conv.lang)),
    }
}

/// Whether a SKU label is the size the shopper said (`42` ~ `EU 42`, `m` ~ `M`).
fn label_matches(label: &str, size: &str) -> bool {
    let norm = |s: &str| to_simplified(s).to_lowercase().replace(['码', '号'], "").trim().to_owned();
    let size = norm(size);
    let label = norm(label);
    label == size || label.split(|c: char| !(c.is_alphanumeric() || c == '.')).any(|token| token == size)
}

/// The quantity said when the shopper started buying ("买两双…"), if any.
fn remembered_quantity(conv: &Conversation) -> Option<u32> {
    for text in conv.earlier_user_texts() {
        match parse_intent(text, conv.lexicon) {
            Intent::ShowProduct(_) => continue,
            Intent::SearchProducts(query) if query.buy => return query.quantity,
            _ => return None,
        }
    }
    None
}

fn remove_step(target: &CartTarget, cart: &CartResult, conv: &Conversation) -> Step {
    let items = &cart.items;
    if items.is_empty() {
        return Step::Answer(compose::cart_empty(conv.lang));
    }
    let item = match target {
        CartTarget::Pick(pick) => pick.index(items.len()).and_then(|i| items.get(i)),
        CartTarget::Name(name) => {
            let name = name.to_lowercase();
            items.iter().find(|i| to_simplified(&i.name).to_lowercase().contains(&name))
        }
        CartTarget::Unspecified => items.first().filter(|_| items.len() == 1),
    };
    match item {
        Some(item) => call("remove_from_cart", json!({ "item_id": item.item_id })),
        None => Step::Answer(compose::which_cart_item(cart, conv.lang)),
    }
}
