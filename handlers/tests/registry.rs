//! The registry as the router and the model see it: the design's mall tools,
//! their levels, scopes, descriptions and parameter schemas. A tool added
//! with `#[tool_function]` needs no change here.
#![allow(clippy::unwrap_used)]

use handlers::{Level, Scope};
use serde_json::{Value, json};

/// The tools as designed: name, level, scope, parameters (`?` = optional); the registry must match.
const TOOLS: &[(&str, Level, Scope, &[&str])] = &[
    ("add_to_cart", Level::Confirm, Scope::Private, &["product_id", "quantity", "sku_id?"]),
    ("cancel_order", Level::Critical, Scope::Private, &["order_id"]),
    ("clear_cart", Level::Confirm, Scope::Private, &[]),
    ("contact_staff", Level::Safe, Scope::Private, &["reason"]),
    ("claim_coupon", Level::Confirm, Scope::Private, &["coupon"]),
    ("create_order", Level::Critical, Scope::Private, &["cart_id", "coupon_id?"]),
    ("find_facility", Level::Safe, Scope::Both, &["kind", "from?"]),
    ("get_order_status", Level::Safe, Scope::Private, &["order_id"]),
    ("get_product_detail", Level::Safe, Scope::Both, &["product_id"]),
    ("get_store_info", Level::Safe, Scope::Both, &["store_id", "info_type"]),
    ("list_coupons", Level::Safe, Scope::Both, &["mine?"]),
    ("list_orders", Level::Safe, Scope::Private, &[]),
    ("mall_events", Level::Safe, Scope::Both, &["when?", "offers?"]),
    ("mall_info", Level::Safe, Scope::Both, &["question"]),
    ("my_points", Level::Safe, Scope::Private, &[]),
    ("navigate_to_area", Level::Safe, Scope::Both, &["area_name", "show_stores?"]),
    ("navigate_to_store", Level::Safe, Scope::Both, &["store_name", "highlight?", "from?", "avoid_stairs?"]),
    ("parking_fee", Level::Safe, Scope::Private, &["plate?"]),
    ("pay_parking", Level::Confirm, Scope::Private, &["plate?"]),
    ("remove_from_cart", Level::Confirm, Scope::Private, &["item_id?", "product_id?", "sku_id?"]),
    (
        "search_products",
        Level::Safe,
        Scope::Both,
        &["keyword", "max_price?", "min_price?", "brand?", "category?"],
    ),
    ("save_plate", Level::Confirm, Scope::Private, &["plate"]),
    ("search_stores", Level::Safe, Scope::Both, &["keyword", "category?"]),
    ("view_cart", Level::Safe, Scope::Private, &[]),
];

/// The strings of a JSON list; none when absent.
fn strings(v: &Value) -> Vec<&str> {
    let mut names: Vec<&str> = v.as_array().into_iter().flatten().map(|s| s.as_str().unwrap()).collect();
    names.sort_unstable();
    names
}

#[test]
fn registry_holds_the_designs_tools_sorted_and_unique() {
    let names: Vec<&str> = handlers::all().iter().map(|t| t.name).collect();
    let mut sorted = names.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(names, sorted, "sorted by name, each name once");
    for (name, ..) in TOOLS {
        assert!(names.contains(name), "{name} is registered");
    }
}

#[test]
fn levels_scopes_and_parameters_are_the_designs() {
    for (name, level, scope, params) in TOOLS {
        let tool = handlers::find(name).unwrap();
        assert_eq!((tool.level, tool.scope), (*level, *scope), "{name}");
        assert!(!tool.require_at, "{name}");
        let schema = tool.parameters();
        let mut all: Vec<&str> = params.iter().map(|p| p.trim_end_matches('?')).collect();
        all.sort_unstable();
        let mut required: Vec<&str> = params.iter().filter(|p| !p.ends_with('?')).copied().collect();
        required.sort_unstable();
        let properties: Vec<&str> =
            schema["properties"].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(properties, all, "{name}: {schema}");
        assert_eq!(strings(&schema["required"]), required, "{name}: {schema}");
    }
}

#[test]
fn risky_tools_have_previews_and_safe_ones_none() {
    for tool in handlers::all() {
        assert_eq!(tool.preview.is_some(), tool.level != Level::Safe, "{}", tool.name);
    }
}

#[test]
fn every_description_is_a_short_first_paragraph() {
    for tool in handlers::all() {
        let first = tool.description.split("\n\n").next().unwrap();
        assert!(!first.trim().is_empty(), "{}", tool.name);
        assert!(first.chars().count() <= 200, "{}: {first}", tool.name);
        assert!(!tool.description.contains("///"), "{}", tool.name);
    }
}

/// Fields whose name says what they are; any other field needs a
/// description, an enum of named choices, or a mention in the tool's description.
const SELF_EXPLANATORY: &[&str] = &[
    "product_id",
    "item_id",
    "cart_id",
    "order_id",
    "quantity",
    "keyword",
    "brand",
    "category",
    "max_price",
    "min_price",
    "show_stores",
];

#[test]
fn every_schema_is_a_plain_object_schema_that_says_each_thing_once() {
    for tool in handlers::all() {
        let schema = tool.parameters();
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert!(schema["properties"].is_object(), "{}: {schema}", tool.name);
        if let Some(required) = schema.get("required") {
            assert!(!strings(required).is_empty(), "{}: an empty required list is left out", tool.name);
        }
        let text = schema.to_string();
        for banned in [
            "$ref",
            "$defs",
            "$schema",
            "\"title\"",
            "anyOf",
            "oneOf",
            "null",
            "additionalProperties",
            "minimum",
        ] {
            assert!(!text.contains(banned), "{}: {banned} in {text}", tool.name);
        }
        for (field, property) in schema["properties"].as_object().unwrap() {
            assert!(property["type"].is_string(), "{}.{field}: {property}", tool.name);
            assert!(
                property["description"].is_string()
                    || property["enum"].is_array()
                    || tool.description.contains(field.as_str())
                    || SELF_EXPLANATORY.contains(&field.as_str()),
                "{}.{field} needs a description: its name does not say what it is",
                tool.name
            );
            if let Some(text) = property["description"].as_str() {
                assert!(!tool.description.contains(text), "{}.{field}: said twice", tool.name);
            }
        }
    }
}

#[test]
fn get_store_info_offers_the_three_info_types() {
    let schema = handlers::find("get_store_info").unwrap().parameters();
    let info_type = &schema["properties"]["info_type"];
    assert_eq!(info_type["type"], "string");
    assert_eq!(strings(&info_type["enum"]), ["basic", "promotions", "reviews"]);
}

#[test]
fn search_products_needs_only_a_keyword_and_takes_prices_as_numbers() {
    let schema = handlers::find("search_products").unwrap().parameters();
    assert_eq!(schema["required"], json!(["keyword"]));
    assert_eq!(schema["properties"]["max_price"]["type"], "number");
    let description = handlers::find("search_products").unwrap().description;
    assert!(description.contains("yuan"), "the tool says once that prices are in yuan: {description}");
}

#[test]
fn add_to_cart_quantity_is_an_integer() {
    let schema = handlers::find("add_to_cart").unwrap().parameters();
    assert_eq!(schema["properties"]["quantity"]["type"], "integer");
}

#[test]
fn every_tool_words_its_own_result_for_any_caller() {
    for (name, ..) in TOOLS {
        let hook = handlers::find(name).unwrap().offline;
        assert!(hook.is_some(), "{name} declares its basic mode");
    }
    let cart = json!({"cart_id": "cart-7", "items": [{"item_id": "item-1", "product_id": "p-1", "name": "Nike Air Zoom Pegasus 40",
        "sku_label": "42", "quantity": 2, "unit_price_yuan": 499.0, "line_total_yuan": 998.0}], "total_yuan": 998.0});
    let answer = handlers::find("view_cart").unwrap().offline.unwrap().answer;
    let zh = answer(handlers::Lang::Zh, &cart).unwrap();
    assert!(zh.starts_with("购物车里有：\n1. Nike Air Zoom Pegasus 40（42） × 2 — ¥998"), "{zh}");
    let hant = answer(handlers::Lang::ZhHant, &cart).unwrap();
    assert!(hant.starts_with("購物車裡有："), "{hant}");
    let en = answer(handlers::Lang::En, &cart).unwrap();
    assert!(en.starts_with("Your cart:\n1. Nike Air Zoom Pegasus 40 (42) × 2 — ¥998"), "{en}");
    let search = handlers::find("search_products").unwrap().offline.unwrap().answer;
    assert_eq!(search(handlers::Lang::En, &json!("not a search result")), None, "unreadable data");
}
