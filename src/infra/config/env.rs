//! The environment overlay: `MALLBOT_<SECTION>__<KEY>` variables set keys
//! of the file, typed like the key's default.

/// The variable naming the config file, like `--config`.
pub(crate) const CONFIG_PATH_VAR: &str = "MALLBOT_CONFIG";

/// Whether `SECTION__KEY` (after `MALLBOT_`) names a key of the config, or
/// `TOOLS__NAME__LEVEL`; `defaults` is the default config as a table.
pub(super) fn is_known_key(rest: &str, defaults: &toml::Table) -> bool {
    let path: Vec<String> = rest.split("__").map(|p| p.to_ascii_lowercase()).collect();
    match path.as_slice() {
        [tools, _, key] if tools == "tools" => key == "level",
        [section, key] => {
            defaults.get(section).and_then(|s| s.as_table()).is_some_and(|s| s.contains_key(key.as_str()))
                || OPTIONAL_KEYS.contains(&(section.as_str(), key.as_str()))
        }
        _ => false,
    }
}

/// Keys with no default value, so absent from `Config::default()`'s table.
const OPTIONAL_KEYS: &[(&str, &str)] = &[("llm", "temperature")];

/// Sets `[section] key = value` (or `[tools.NAME] key`) from `MALLBOT_SECTION__KEY`.
/// The value is typed like the key's default: text stays text, numbers and
/// booleans are parsed, lists are TOML arrays or comma-separated. The error
/// says what was wrong with the value.
pub(super) fn apply_env(
    table: &mut toml::Table,
    defaults: &toml::Table,
    rest: &str,
    value: &str,
) -> Result<(), String> {
    let path: Vec<String> = rest.split("__").map(|p| p.to_ascii_lowercase()).collect();
    let (section_path, key) = match path.as_slice() {
        [section, key] => (vec![section.clone()], key.clone()),
        [tools, tool, key] if tools == "tools" => (vec![tools.clone(), tool.clone()], key.clone()),
        _ => return Err("expected MALLBOT_<SECTION>__<KEY>, e.g. MALLBOT_LLM__BASE_URL".into()),
    };
    let typed = match defaults.get(&section_path[0]).and_then(|s| s.as_table()).and_then(|s| s.get(&key)) {
        Some(toml::Value::String(_)) => toml::Value::String(value.to_owned()),
        Some(toml::Value::Integer(_)) => toml::Value::Integer(
            value.trim().parse().map_err(|_| format!("expected a whole number, got `{value}`"))?,
        ),
        Some(toml::Value::Float(_)) => {
            toml::Value::Float(value.trim().parse().map_err(|_| format!("expected a number, got `{value}`"))?)
        }
        Some(toml::Value::Boolean(_)) => toml::Value::Boolean(
            value.trim().parse().map_err(|_| format!("expected true or false, got `{value}`"))?,
        ),
        Some(toml::Value::Array(_)) => parse_env_list(value)?,
        _ => parse_env_scalar(value),
    };
    let mut cursor = table;
    for part in &section_path {
        let entry = cursor.entry(part.clone()).or_insert_with(|| toml::Value::Table(toml::Table::new()));
        cursor = entry.as_table_mut().ok_or_else(|| format!("`{part}` in the file is not a table"))?;
    }
    cursor.insert(key, typed);
    Ok(())
}

fn parse_env_list(value: &str) -> Result<toml::Value, String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Ok(toml::Value::Array(Vec::new()));
    }
    if trimmed.starts_with('[') {
        let t: toml::Table = toml::from_str(&format!("v = {trimmed}")).map_err(|e| e.to_string())?;
        return t.get("v").cloned().ok_or_else(|| "not a list".to_owned());
    }
    Ok(toml::Value::Array(trimmed.split(',').map(|item| parse_env_scalar(item.trim())).collect()))
}

fn parse_env_scalar(value: &str) -> toml::Value {
    if let Ok(i) = value.parse::<i64>() {
        toml::Value::Integer(i)
    } else if let Ok(f) = value.parse::<f64>() {
        toml::Value::Float(f)
    } else if let Ok(b) = value.parse::<bool>() {
        toml::Value::Boolean(b)
    } else {
        toml::Value::String(value.to_owned())
    }
}
