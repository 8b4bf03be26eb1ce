//! Tool argument schemas in the one plain shape every OpenAI-compatible
//! provider accepts, and argument parsing that names the field at fault.
//!
//! Kept out: `$schema`, `title`, `format`, ranges, `additionalProperties` and
//! nullable type arrays; sub-schemas are inlined and `required` is set when a
//! field is. The tool list is most of every request's cached prefix, so
//! descriptions say each thing once (the tool or the field, and nothing a
//! field's name already says).

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::result::ToolError;

/// The JSON Schema of a tool's argument struct, as sent in `tools[].function.parameters`.
///
/// Every subschema is inlined (no `$ref`, no `$defs`); an `Option<T>` field is
/// a plain `T` left out of `required`; an enum of names is
/// `{"type": "string", "enum": [...]}`; every object has `type` and
/// `properties`, and `required` when a field is required. The schema is sent
/// with every model request, so nothing a model does not use is kept: no
/// `$schema`, `title`, `format` (providers disagree on which they accept),
/// ranges (`minimum`, `maximum`: the tools check their arguments and say
/// what is wrong), and no `additionalProperties` (only OpenAI's strict mode
/// wants it, and the bot does not ask for strict mode; Gemini refuses it).
/// The fields' descriptions stay; the struct's own doc comment is left out:
/// the tool's description says it.
pub fn parameters_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let mut schema = Value::from(generator.into_root_schema_for::<T>());
    normalise(&mut schema);
    if let Value::Object(root) = &mut schema {
        root.remove("description");
    }
    schema
}

/// The JSON Schema of a tool's typed result, as MCP's `outputSchema`: every
/// subschema inlined, no meta-schema, nullable fields kept nullable (the
/// result is validated against it, unlike the arguments' schema, which only
/// guides a model). MCP wants an object at the root: a result that is not
/// one is sent as `{"result": …}`, and its schema says so.
pub fn output_schema<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let mut schema = Value::from(generator.into_root_schema_for::<T>());
    if let Value::Object(root) = &mut schema {
        root.remove("title");
    }
    match &mut schema {
        Value::Object(root) if describes_objects(root) => {
            // One of several kinds of object (an enum of structs): MCP still
            // wants `"type": "object"` said at the root.
            root.insert("type".to_owned(), Value::from("object"));
            schema
        }
        _ => serde_json::json!({"type": "object", "properties": {"result": schema}, "required": ["result"]}),
    }
}

/// Whether every value the schema allows is a JSON object.
fn describes_objects(schema: &Map<String, Value>) -> bool {
    if let Some(kind) = schema.get("type") {
        return kind == "object";
    }
    ["anyOf", "oneOf"].iter().any(|key| match schema.get(*key) {
        Some(Value::Array(members)) => {
            !members.is_empty() && members.iter().all(|m| m.as_object().is_some_and(describes_objects))
        }
        _ => false,
    })
}

/// Parses a tool's JSON arguments. A wrong or missing field is named in
/// [`ToolError::InvalidArguments`]. `null`, `""` and `"null"` count as `{}`
/// (providers send them for tools without parameters), and a JSON object
/// written as a string is read as that object.
pub fn parse_arguments<T: DeserializeOwned>(arguments: Value) -> Result<T, ToolError> {
    let arguments = match arguments {
        Value::String(text) if text.trim().is_empty() => Value::Null,
        Value::String(text) => serde_json::from_str(&text).map_err(|e| ToolError::InvalidArguments {
            field: None,
            message: format!("the arguments are not a JSON object: {e}"),
        })?,
        other => other,
    };
    let arguments = if arguments.is_null() { Value::Object(Map::new()) } else { arguments };
    serde_path_to_error::deserialize(arguments).map_err(|error| {
        let path = error.path().to_string();
        let message = error.into_inner().to_string();
        let prefix = if path == "." { None } else { Some(path) };
        let field = match (missing_field(&message), prefix) {
            (Some(missing), Some(prefix)) => Some(format!("{prefix}.{missing}")),
            (Some(missing), None) => Some(missing.to_owned()),
            (None, prefix) => prefix,
        };
        ToolError::InvalidArguments { field, message }
    })
}

/// `arguments` with only what `schema` declares: an object keeps the
/// properties its schema lists (each checked the same way, arrays item by
/// item), so a field no tool reads is never kept. What a pending action
/// stores of a caller's arguments goes through here.
pub fn keep_declared(schema: &Value, arguments: Value) -> Value {
    match arguments {
        Value::Object(map) => match schema.get("properties").and_then(Value::as_object) {
            Some(properties) => Value::Object(
                map.into_iter()
                    .filter_map(|(key, value)| {
                        properties.get(&key).map(|declared| {
                            let kept = keep_declared(declared, value);
                            (key, kept)
                        })
                    })
                    .collect(),
            ),
            None if schema.get("type").and_then(Value::as_str) == Some("object") => Value::Object(Map::new()),
            None => Value::Object(map),
        },
        Value::Array(items) => match schema.get("items") {
            Some(item) => Value::Array(items.into_iter().map(|v| keep_declared(item, v)).collect()),
            None => Value::Array(items),
        },
        other => other,
    }
}

/// The field of serde's "missing field `x`" message.
fn missing_field(message: &str) -> Option<&str> {
    message.strip_prefix("missing field `")?.split('`').next()
}

/// Keys that carry no meaning for a model, or that some providers refuse.
const DROPPED_KEYS: &[&str] = &[
    "$schema",
    "title",
    "format",
    "examples",
    "default",
    "$comment",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
];
/// Keys whose value is one subschema.
const SUBSCHEMA_KEYS: &[&str] = &["items", "additionalProperties", "not", "contains"];
/// Keys whose value is a list of subschemas.
const SUBSCHEMA_LIST_KEYS: &[&str] = &["anyOf", "oneOf", "allOf", "prefixItems", "items"];

/// Rewrites one schema (and its subschemas) into the plain shape.
fn normalise(schema: &mut Value) {
    let Value::Object(obj) = schema else { return };
    for key in DROPPED_KEYS {
        obj.remove(*key);
    }
    if let Some(Value::String(text)) = obj.get_mut("description") {
        *text = unwrap_lines(text);
    }
    drop_null(obj);
    names_to_enum(obj);
    if let Some(Value::Object(properties)) = obj.get_mut("properties") {
        properties.values_mut().for_each(normalise);
    }
    for key in SUBSCHEMA_KEYS {
        if let Some(sub @ Value::Object(_)) = obj.get_mut(*key) {
            normalise(sub);
        }
    }
    for key in SUBSCHEMA_LIST_KEYS {
        if let Some(Value::Array(list)) = obj.get_mut(*key) {
            list.iter_mut().for_each(normalise);
        }
    }
    if obj.get("type").and_then(Value::as_str) == Some("object") || obj.contains_key("properties") {
        complete_object(obj);
    }
}

/// A doc comment's wrapped lines joined into one, paragraphs kept.
fn unwrap_lines(text: &str) -> String {
    let paragraphs: Vec<String> =
        text.split("\n\n").map(|p| p.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
    paragraphs.join("\n\n")
}

/// `Option<T>` is "T, or absent": removes `null` from `type`, `enum` and
/// `anyOf`/`oneOf`, and unwraps a union left with one member.
fn drop_null(obj: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = obj.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            obj.insert("type".to_owned(), only);
        }
    }
    if let Some(Value::Array(values)) = obj.get_mut("enum") {
        values.retain(|v| !v.is_null());
    }
    if obj.get("const").is_some_and(Value::is_null) {
        obj.remove("const");
    }
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(members)) = obj.get_mut(key) else { continue };
        members.retain(|m| m.get("type").and_then(Value::as_str) != Some("null"));
        if members.len() == 1 {
            let Some(Value::Object(only)) = members.pop() else { continue };
            obj.remove(key);
            for (k, v) in only {
                // The outer keys (the field's own description) win.
                obj.entry(k).or_insert(v);
            }
        }
    }
}

/// An enum of unit variants written as `oneOf` of `const`s and `enum`s
/// (schemars does so when variants have doc comments) becomes
/// `{"type": "string", "enum": [...]}`.
fn names_to_enum(obj: &mut Map<String, Value>) {
    for key in ["oneOf", "anyOf"] {
        let Some(Value::Array(members)) = obj.get(key) else { continue };
        let names: Option<Vec<Vec<Value>>> = members.iter().map(member_names).collect();
        let names: Vec<Value> = names.into_iter().flatten().flatten().collect();
        if !names.is_empty() {
            obj.remove(key);
            obj.insert("type".to_owned(), Value::from("string"));
            obj.insert("enum".to_owned(), Value::Array(names));
        }
    }
}

/// The names a `oneOf` member allows, when it allows only names.
fn member_names(member: &Value) -> Option<Vec<Value>> {
    let names = match (member.get("const"), member.get("enum")) {
        (Some(name), None) => vec![name.clone()],
        (None, Some(Value::Array(names))) => names.clone(),
        _ => return None,
    };
    names.iter().all(Value::is_string).then_some(names)
}

/// Gives an object schema `type` and `properties`; drops an empty `required`
/// and `additionalProperties: false` (the default a model assumes anyway).
fn complete_object(obj: &mut Map<String, Value>) {
    obj.insert("type".to_owned(), Value::from("object"));
    obj.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    if obj.get("required").and_then(Value::as_array).is_some_and(Vec::is_empty) {
        obj.remove("required");
    }
    if obj.get("additionalProperties") == Some(&Value::Bool(false)) {
        obj.remove("additionalProperties");
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use schemars::JsonSchema;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[test]
    fn only_declared_fields_are_kept() {
        let schema = json!({
            "type": "object",
            "properties": {
                "product_id": {"type": "string"},
                "lines": {"type": "array", "items": {"type": "object", "properties": {"n": {"type": "integer"}}}}
            }
        });
        let given =
            json!({"product_id": "p1", "padding": "x".repeat(1000), "lines": [{"n": 1, "junk": true}]});
        assert_eq!(keep_declared(&schema, given), json!({"product_id": "p1", "lines": [{"n": 1}]}));
        assert_eq!(keep_declared(&json!({"type": "object"}), json!({"a": 1})), json!({}));
    }

    /// Where to look.
    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    #[serde(rename_all = "lowercase")]
    enum Kind {
        /// Opening hours and place.
        Basic,
        Reviews,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct Range {
        /// Lowest price
        /// in yuan.
        low: f64,
        high: Option<f64>,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct Search {
        /// What to look for.
        keyword: String,
        /// Highest price in yuan.
        max_price: Option<f64>,
        quantity: Option<u32>,
        kind: Kind,
        maybe_kind: Option<Kind>,
        range: Option<Range>,
    }

    #[derive(Debug, Deserialize, JsonSchema, PartialEq)]
    struct NoArgs {}

    /// Every key of every (sub)schema, to look for leftovers.
    fn all_keys(v: &Value, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                for (k, v) in map {
                    out.push(k.clone());
                    all_keys(v, out);
                }
            }
            Value::Array(items) => items.iter().for_each(|v| all_keys(v, out)),
            _ => {}
        }
    }

    #[test]
    fn struct_with_optional_enum_and_nested_fields_is_plain() {
        let schema = parameters_schema::<Search>();
        let props = &schema["properties"];
        assert_eq!(schema["type"], "object");
        assert_eq!(schema["required"], json!(["keyword", "kind"]));
        assert!(schema.get("additionalProperties").is_none(), "{schema}");
        assert_eq!(props["keyword"], json!({"type": "string", "description": "What to look for."}));
        assert_eq!(props["max_price"], json!({"type": "number", "description": "Highest price in yuan."}));
        assert_eq!(props["quantity"], json!({"type": "integer"}));
        for field in ["kind", "maybe_kind"] {
            let kind = &props[field];
            assert_eq!(kind["type"], "string", "{kind}");
            assert_eq!(kind["description"], "Where to look.", "{kind}");
            let mut names: Vec<&str> =
                kind["enum"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
            names.sort_unstable();
            assert_eq!(names, ["basic", "reviews"], "{kind}");
        }
        assert_eq!(
            props["range"],
            json!({
                "type": "object",
                "properties": {
                    "low": {"type": "number", "description": "Lowest price in yuan."},
                    "high": {"type": "number"}
                },
                "required": ["low"]
            })
        );
        let mut keys = Vec::new();
        all_keys(&schema, &mut keys);
        let banned = [
            "$ref",
            "$defs",
            "definitions",
            "$schema",
            "title",
            "anyOf",
            "oneOf",
            "format",
            "minimum",
            "additionalProperties",
        ];
        for banned in banned {
            assert!(!keys.iter().any(|k| k == banned), "{banned} left in {schema:#}");
        }
        assert!(!schema.to_string().contains("null"), "{schema}");
    }

    #[test]
    fn struct_without_fields_is_an_empty_object() {
        assert_eq!(parameters_schema::<NoArgs>(), json!({"type": "object", "properties": {}}));
    }

    #[test]
    fn arguments_parse_with_optional_fields_absent() {
        let args: Search = parse_arguments(json!({"keyword": "跑鞋", "kind": "basic"})).unwrap();
        assert_eq!(args.keyword, "跑鞋");
        assert_eq!(args.kind, Kind::Basic);
        assert_eq!(args.max_price, None);
        assert_eq!(args.range, None);
    }

    #[test]
    fn wrong_field_is_named() {
        let err = parse_arguments::<Search>(json!({"keyword": "x", "kind": "basic", "max_price": "cheap"}))
            .unwrap_err();
        let ToolError::InvalidArguments { field, message } = err else { panic!("{err:?}") };
        assert_eq!(field.as_deref(), Some("max_price"));
        assert!(message.contains("expected f64"), "{message}");
    }

    #[test]
    fn missing_field_is_named_even_when_nested() {
        let err = parse_arguments::<Search>(json!({"kind": "basic"})).unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments { field: Some(f), .. } if f == "keyword"),
            "{err:?}"
        );
        let err = parse_arguments::<Search>(json!({"keyword": "x", "kind": "basic", "range": {"high": 3}}))
            .unwrap_err();
        assert!(
            matches!(&err, ToolError::InvalidArguments { field: Some(f), .. } if f == "range.low"),
            "{err:?}"
        );
    }

    #[test]
    fn unknown_enum_value_is_named_with_the_choices() {
        let err = parse_arguments::<Search>(json!({"keyword": "x", "kind": "hours"})).unwrap_err();
        let ToolError::InvalidArguments { field, message } = err else { panic!("{err:?}") };
        assert_eq!(field.as_deref(), Some("kind"));
        assert!(message.contains("basic") && message.contains("reviews"), "{message}");
    }

    #[test]
    fn null_empty_and_stringified_arguments_are_accepted() {
        assert_eq!(parse_arguments::<NoArgs>(Value::Null).unwrap(), NoArgs {});
        assert_eq!(parse_arguments::<NoArgs>(json!({})).unwrap(), NoArgs {});
        assert_eq!(parse_arguments::<NoArgs>(json!("")).unwrap(), NoArgs {});
        assert_eq!(parse_arguments::<NoArgs>(json!("null")).unwrap(), NoArgs {});
        let args: Search = parse_arguments(json!(r#"{"keyword":"nike","kind":"reviews"}"#)).unwrap();
        assert_eq!(args.kind, Kind::Reviews);
        let err = parse_arguments::<NoArgs>(json!("not json")).unwrap_err();
        assert!(matches!(err, ToolError::InvalidArguments { field: None, .. }), "{err:?}");
    }

    /// A result an MCP client validates: nullable fields stay nullable, an
    /// enum of structs is an object at the root, anything else is wrapped the
    /// way the server wraps the value.
    #[test]
    fn output_schemas_are_objects_that_match_what_is_sent() {
        #[derive(serde::Serialize, JsonSchema)]
        #[allow(dead_code)] // only its schema is read
        struct Hours {
            opens: String,
            closes: Option<String>,
        }
        #[derive(serde::Serialize, JsonSchema)]
        #[serde(untagged)]
        #[allow(dead_code)] // only its schema is read
        enum Found {
            Hours(Hours),
            Missing { missing: String },
        }

        let hours = output_schema::<Hours>();
        assert_eq!(hours["type"], "object");
        assert_eq!(hours["required"], json!(["opens"]));
        assert_eq!(hours["properties"]["closes"]["type"], json!(["string", "null"]));
        assert!(hours.get("$schema").is_none() && hours.get("title").is_none(), "{hours}");

        let found = output_schema::<Found>();
        assert_eq!(found["type"], "object", "{found}");
        assert_eq!(found["anyOf"].as_array().map(Vec::len), Some(2), "{found}");

        let list = output_schema::<Vec<String>>();
        assert_eq!(list["required"], json!(["result"]), "{list}");
        assert_eq!(list["properties"]["result"]["type"], "array", "{list}");
    }
}
