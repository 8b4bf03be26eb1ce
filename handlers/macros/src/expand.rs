//! The expansion of `#[tool_function]`: the function as written, plus one
//! `inventory::submit!` of a const `ToolSpec` whose `fn` pointers call into
//! ordinary code in `handlers`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{
    Attribute, Expr, ExprLit, FnArg, GenericArgument, ItemFn, Lit, Meta, PathArguments, ReturnType, Type,
};

use crate::attr::ToolAttr;

/// Expands the attribute. On error: the spanned `compile_error!` and the
/// function unchanged, so the error is the only one reported.
pub fn expand(attr: TokenStream, item: TokenStream) -> TokenStream {
    match try_expand(attr, item.clone()) {
        Ok(tokens) => tokens,
        Err(error) => {
            let mut tokens = error.into_compile_error();
            tokens.extend(item);
            tokens
        }
    }
}

fn try_expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    let function: ItemFn = syn::parse2(item)?;
    let attr = ToolAttr::parse(attr)?;
    let args_ty = check_signature(&function)?;
    let description = description(&function.attrs)
        .ok_or_else(|| syn::Error::new(function.sig.ident.span(), NO_DOC_COMMENT))?;

    let fn_name = &function.sig.ident;
    let tool_name = attr.name.map(|name| name.value()).unwrap_or_else(|| fn_name.to_string());
    let ToolAttr { level, scope, require_at, preview, progress, offline, help, .. } = attr;
    let parse_args = quote_spanned! {args_ty.span()=>
        ::handlers::schema::parse_arguments::<#args_ty>(args)
    };
    let schema = quote_spanned! {args_ty.span()=>
        ::handlers::schema::parameters_schema::<#args_ty>()
    };
    let output_field = match result_type(&function) {
        Some(result_ty) => {
            let output = quote_spanned! {result_ty.span()=>
                ::handlers::schema::output_schema::<#result_ty>()
            };
            quote! {
                ::core::option::Option::Some({
                    fn __tool_output_schema() -> ::handlers::__private::Value {
                        #output
                    }
                    __tool_output_schema as fn() -> ::handlers::__private::Value
                })
            }
        }
        None => quote!(::core::option::Option::None),
    };
    let (preview_fn, preview_field) = match preview {
        Some(path) => (
            quote! {
                fn __tool_preview(
                    ctx: ::handlers::ToolContext,
                    args: ::handlers::__private::Value,
                ) -> ::handlers::__private::BoxFuture<
                    'static,
                    ::core::result::Result<::handlers::Preview, ::handlers::ToolError>,
                > {
                    ::std::boxed::Box::pin(async move {
                        let args = #parse_args?;
                        #path(&ctx, args).await
                    })
                }
            },
            quote!(::core::option::Option::Some(__tool_preview as ::handlers::registry::PreviewFn)),
        ),
        None => (quote!(), quote!(::core::option::Option::None)),
    };

    let (progress_fn, progress_field) = match progress {
        Some(path) => {
            let typed = quote_spanned! {path.span()=>
                let line: fn(::handlers::Lang, &#args_ty) -> ::std::string::String = #path;
            };
            (
                quote! {
                    fn __tool_progress(
                        lang: ::handlers::Lang,
                        args: &::handlers::__private::Value,
                    ) -> ::core::option::Option<::std::string::String> {
                        #typed
                        let args: #args_ty = ::handlers::schema::parse_arguments(args.clone()).ok()?;
                        ::core::option::Option::Some(line(lang, &args))
                    }
                },
                quote!(::core::option::Option::Some(__tool_progress as ::handlers::registry::ProgressFn)),
            )
        }
        None => (quote!(), quote!(::core::option::Option::None)),
    };

    let offline_field = match offline {
        Some(path) => quote_spanned! {path.span()=>
            ::core::option::Option::Some(&#path as &'static ::handlers::OfflineHook)
        },
        None => quote!(::core::option::Option::None),
    };

    let help_field = match help {
        Some(path) => quote_spanned! {path.span()=>
            ::core::option::Option::Some(&#path as &'static ::handlers::HelpLine)
        },
        None => quote!(::core::option::Option::None),
    };

    Ok(quote! {
        #function

        const _: () = {
            fn __tool_schema() -> ::handlers::__private::Value {
                #schema
            }

            fn __tool_call(
                ctx: ::handlers::ToolContext,
                args: ::handlers::__private::Value,
            ) -> ::handlers::__private::BoxFuture<'static, ::handlers::ToolResult> {
                ::std::boxed::Box::pin(async move {
                    let args = #parse_args?;
                    #fn_name(&ctx, args).await.and_then(::handlers::ToolOutput::into_json)
                })
            }

            #preview_fn

            #progress_fn

            ::handlers::__private::inventory::submit! {
                ::handlers::ToolSpec {
                    name: #tool_name,
                    module: ::core::module_path!(),
                    description: #description,
                    level: #level,
                    scope: #scope,
                    require_at: #require_at,
                    schema: __tool_schema,
                    output_schema: #output_field,
                    call: __tool_call,
                    preview: #preview_field,
                    progress: #progress_field,
                    offline: #offline_field,
                    help: #help_field,
                }
            }
        };
    })
}

const NO_DOC_COMMENT: &str = "tool function needs a doc comment: it is the description the model reads";

/// Checks `async fn name(ctx: &ToolContext, args: ArgsType)` and returns `ArgsType`.
fn check_signature(function: &ItemFn) -> syn::Result<&Type> {
    let sig = &function.sig;
    if sig.asyncness.is_none() {
        return Err(syn::Error::new(sig.fn_token.span, "tool function must be async"));
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        return Err(syn::Error::new(sig.generics.span(), "tool function cannot be generic"));
    }
    let inputs: Vec<&FnArg> = sig.inputs.iter().collect();
    match inputs.as_slice() {
        [FnArg::Typed(_), FnArg::Typed(args)] => Ok(&args.ty),
        _ => Err(syn::Error::new(
            sig.paren_token.span.join(),
            "tool function takes exactly two arguments: `ctx: &ToolContext` and the argument struct \
             (e.g. `args: SearchProductsArgs`)",
        )),
    }
}

/// `T` of a declared `-> ToolResult<T>`; `None` for a plain `ToolResult`
/// (untyped JSON: no output schema to declare).
fn result_type(function: &ItemFn) -> Option<&Type> {
    let ReturnType::Type(_, ty) = &function.sig.output else { return None };
    let Type::Path(path) = ty.as_ref() else { return None };
    let last = path.path.segments.last()?;
    if last.ident != "ToolResult" {
        return None;
    }
    let PathArguments::AngleBracketed(generic) = &last.arguments else { return None };
    match generic.args.first()? {
        GenericArgument::Type(result) => Some(result),
        _ => None,
    }
}

/// The doc comment as one text: the lines of a paragraph joined by spaces,
/// list items and paragraphs kept on lines of their own. `None` when empty.
fn description(attrs: &[Attribute]) -> Option<String> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for line in doc_lines(attrs) {
        let line = line.trim();
        if line.is_empty() {
            if !current.is_empty() {
                paragraphs.push(std::mem::take(&mut current));
            }
        } else if current.is_empty() {
            current.push_str(line);
        } else {
            current.push(if starts_list_item(line) { '\n' } else { ' ' });
            current.push_str(line);
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    let text = paragraphs.join("\n\n");
    (!text.is_empty()).then_some(text)
}

/// The text of each `#[doc = "..."]` attribute (one per `///` line).
fn doc_lines(attrs: &[Attribute]) -> impl Iterator<Item = String> + '_ {
    attrs.iter().filter(|attr| attr.path().is_ident("doc")).filter_map(|attr| match &attr.meta {
        Meta::NameValue(nv) => match &nv.value {
            Expr::Lit(ExprLit { lit: Lit::Str(text), .. }) => Some(text.value()),
            _ => None,
        },
        _ => None,
    })
}

fn starts_list_item(line: &str) -> bool {
    line.starts_with("- ")
        || line.starts_with("* ")
        || line.split_once(". ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc_of(tokens: TokenStream) -> Option<String> {
        let function: ItemFn = syn::parse2(tokens).expect("a function");
        description(&function.attrs)
    }

    #[test]
    fn joins_wrapped_lines_and_keeps_paragraphs_and_lists() {
        let text = doc_of(quote! {
            /// Search products by keyword,
            /// price range or brand.
            ///
            /// Prices are in yuan:
            /// - max_price: at most
            /// - min_price: at least
            async fn f() {}
        });
        assert_eq!(
            text.as_deref(),
            Some(
                "Search products by keyword, price range or brand.\n\n\
                 Prices are in yuan:\n- max_price: at most\n- min_price: at least"
            )
        );
    }

    #[test]
    fn blank_doc_is_no_description() {
        assert_eq!(doc_of(quote! { async fn f() {} }), None);
        assert_eq!(doc_of(quote! { #[doc = "   "] async fn f() {} }), None);
    }
}
