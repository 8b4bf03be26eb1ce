//! The options of `#[tool_function(...)]`: level, scope, require_at, name, preview, progress,
//! offline, help.

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::meta::ParseNestedMeta;
use syn::parse::Parser;
use syn::{LitBool, LitStr, Path};

/// The parsed options of one `#[tool_function(...)]`.
pub struct ToolAttr {
    /// `::handlers::Level::...`
    pub level: TokenStream,
    /// `::handlers::Scope::...`
    pub scope: TokenStream,
    pub require_at: bool,
    /// The tool name, when it differs from the function's.
    pub name: Option<LitStr>,
    /// The preview function.
    pub preview: Option<Path>,
    /// The status-line function.
    pub progress: Option<Path>,
    /// The basic-mode hook (a `static OfflineHook`).
    pub offline: Option<Path>,
    /// The `/help` line (a `static HelpLine`).
    pub help: Option<Path>,
}

const LEVELS: &[(&str, &str)] = &[("safe", "Safe"), ("confirm", "Confirm"), ("critical", "Critical")];
const SCOPES: &[(&str, &str)] = &[("private", "Private"), ("group", "Group"), ("both", "Both")];

impl ToolAttr {
    /// Parses the tokens inside `#[tool_function(...)]`.
    pub fn parse(tokens: TokenStream) -> syn::Result<ToolAttr> {
        let mut level = None;
        let mut scope = None;
        let mut require_at = None;
        let mut name = None;
        let mut preview = None;
        let mut progress = None;
        let mut offline = None;
        let mut help = None;
        let parser = syn::meta::parser(|meta| {
            if meta.path.is_ident("level") {
                set_once(&meta, &mut level, choice(&meta, "level", "Level", LEVELS)?)
            } else if meta.path.is_ident("scope") {
                set_once(&meta, &mut scope, choice(&meta, "scope", "Scope", SCOPES)?)
            } else if meta.path.is_ident("require_at") {
                let lit: LitBool = meta.value()?.parse()?;
                set_once(&meta, &mut require_at, lit.value)
            } else if meta.path.is_ident("name") {
                let lit: LitStr = meta.value()?.parse()?;
                check_tool_name(&lit)?;
                set_once(&meta, &mut name, lit)
            } else if meta.path.is_ident("preview") {
                let path: Path = meta.value()?.parse()?;
                set_once(&meta, &mut preview, path)
            } else if meta.path.is_ident("progress") {
                let path: Path = meta.value()?.parse()?;
                set_once(&meta, &mut progress, path)
            } else if meta.path.is_ident("offline") {
                let path: Path = meta.value()?.parse()?;
                set_once(&meta, &mut offline, path)
            } else if meta.path.is_ident("help") {
                let path: Path = meta.value()?.parse()?;
                set_once(&meta, &mut help, path)
            } else {
                Err(meta.error(
                    "unknown tool_function option: expected `level`, `scope`, `require_at`, `name`, `preview`, \
                     `progress`, `offline` or `help`",
                ))
            }
        });
        parser.parse2(tokens)?;
        Ok(ToolAttr {
            level: level.ok_or_else(|| missing(r#"level = "safe" | "confirm" | "critical""#))?,
            scope: scope.ok_or_else(|| missing(r#"scope = "private" | "group" | "both""#))?,
            require_at: require_at.unwrap_or(false),
            name,
            preview,
            progress,
            offline,
            help,
        })
    }
}

/// Stores an option's value, refusing a second one.
fn set_once<T>(meta: &ParseNestedMeta<'_>, slot: &mut Option<T>, value: T) -> syn::Result<()> {
    if slot.is_some() {
        return Err(meta.error("this option is given twice"));
    }
    *slot = Some(value);
    Ok(())
}

/// Reads `key = "value"` where the value is one of `choices`, as a path to
/// the matching variant of `::handlers::<ty>`.
fn choice(
    meta: &ParseNestedMeta<'_>,
    key: &str,
    ty: &str,
    choices: &[(&str, &str)],
) -> syn::Result<TokenStream> {
    let lit: LitStr = meta.value()?.parse()?;
    let value = lit.value();
    match choices.iter().find(|(text, _)| *text == value) {
        Some((_, variant)) => {
            let ty = syn::Ident::new(ty, lit.span());
            let variant = syn::Ident::new(variant, lit.span());
            Ok(quote!(::handlers::#ty::#variant))
        }
        None => {
            let expected: Vec<String> = choices.iter().map(|(text, _)| format!("\"{text}\"")).collect();
            Err(syn::Error::new(
                lit.span(),
                format!("unknown {key} \"{value}\": expected one of {}", expected.join(", ")),
            ))
        }
    }
}

/// OpenAI-compatible providers accept 1–64 letters, digits, `_` and `-`.
fn check_tool_name(lit: &LitStr) -> syn::Result<()> {
    let name = lit.value();
    let valid = (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if valid {
        Ok(())
    } else {
        Err(syn::Error::new(lit.span(), "a tool name is 1 to 64 ASCII letters, digits, `_` or `-`"))
    }
}

fn missing(what: &str) -> syn::Error {
    syn::Error::new(Span::call_site(), format!("tool_function needs `{what}`"))
}
