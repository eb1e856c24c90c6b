//! The definitions a dependency chain brought, deduplicated and parsed.

use std::collections::HashMap;

use quote::quote;
use syn::spanned::Spanned;
use weft_ir::Error;

use crate::chain::Def;

/// Marks a func definition (as carried to kernels) whose adjoint the user wrote.
pub const CUSTOM_ADJOINT_MARK: &str = "weft_custom_adjoint";

/// Deduplicates definitions by name; two different items with one name are an error.
pub fn dedup(defs: &[Def]) -> Result<Vec<(Def, syn::Item)>, Error> {
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for d in defs {
        let item: syn::Item =
            syn::parse2(d.item.clone()).map_err(|e| Error::new(e.span(), e.to_string()))?;
        let (name, span) = match &item {
            syn::Item::Fn(f) => (f.sig.ident.to_string(), f.sig.ident.span()),
            syn::Item::Struct(s) => (s.ident.to_string(), s.ident.span()),
            other => {
                return Err(Error::new(
                    other.span(),
                    "internal: unexpected item in weft definitions",
                ));
            }
        };
        let text = without_docs(&item);
        match seen.get(&name) {
            Some(t) if *t == text => continue,
            Some(_) => {
                return Err(Error::new(
                    span,
                    format!(
                        "two different weft items named `{name}` are used together; rename one"
                    ),
                ));
            }
            None => {
                seen.insert(name, text);
                out.push((d.clone(), item));
            }
        }
    }
    Ok(out)
}

/// An item's tokens without doc comments (which can come back from a
/// `macro_rules!` round trip spelled differently).
fn without_docs(item: &syn::Item) -> String {
    let mut item = item.clone();
    let not_doc = |a: &syn::Attribute| !a.path().is_ident("doc");
    match &mut item {
        syn::Item::Fn(f) => f.attrs.retain(not_doc),
        syn::Item::Struct(s) => {
            s.attrs.retain(not_doc);
            for field in s.fields.iter_mut() {
                field.attrs.retain(not_doc);
            }
        }
        _ => {}
    }
    quote!(#item).to_string()
}
