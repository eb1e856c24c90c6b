//! How generated code names structures the user never imported.
//!
//! A kernel that calls `hash_grid_query` gets a `HashGridQuery` back, but only the
//! func was imported. Every definition fetched through the chain remembers the path
//! that fetched it ([`Via`]): the structure itself is named by that path; a structure
//! that came along with it is named `<path as __private::Named<ID>>::T` (the
//! expanding item's runtime path), where
//! `ID` hashes the structure's name. For that, every func (through the hidden struct
//! that carries its adjoint) and every structure implements `Named<ID>` for the
//! structures of its interface — those of a func's parameters and result, those of a
//! structure's `pub` fields, and theirs in turn — whose own paths it knows the same
//! way. Structures used only inside a func body stay out: they may be private.

use std::collections::{BTreeSet, HashMap};

use proc_macro2::TokenStream;
use quote::quote;
use weft_ir::{Env, Type};

use crate::chain::{Def, Via};

/// The `ID` of `Named<ID>` for structure `name` (FNV-1a of the name).
fn id(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// For each structure among `defs` (as fetched, duplicates included), the path
/// generated code at this item's site names it by; `own` (the structure being
/// expanded) is named by its identifier.
///
/// A structure fetched by its own path is named by that path; else through the
/// item whose macro brought it, preferring a `pub` one (a projection through a
/// private func cannot appear in a public item's `Named` impl). `rt` is the
/// runtime's `__private` module.
pub fn struct_paths(
    defs: &[Def],
    own: Option<&str>,
    rt: &TokenStream,
) -> HashMap<String, TokenStream> {
    let items: Vec<Option<syn::Item>> = defs
        .iter()
        .map(|d| syn::parse2(d.item.clone()).ok())
        .collect();
    let key = |p: &syn::Path| quote!(#p).to_string();
    let public_heads: BTreeSet<String> = defs
        .iter()
        .zip(&items)
        .filter_map(|(d, i)| {
            let via = d.via.as_ref().filter(|v| v.head)?;
            let vis = match i.as_ref()? {
                syn::Item::Struct(s) => &s.vis,
                syn::Item::Fn(f) => &f.vis,
                _ => return None,
            };
            matches!(vis, syn::Visibility::Public(_)).then(|| key(&via.path))
        })
        .collect();
    let mut best: HashMap<String, (u8, TokenStream)> = HashMap::new();
    for (d, item) in defs.iter().zip(&items) {
        let (Some(syn::Item::Struct(s)), Some(Via { path, head })) = (item, &d.via) else {
            continue;
        };
        let (rank, tokens) = if *head {
            (0, quote!(#path))
        } else {
            let id = id(&s.ident.to_string());
            let rank = if public_heads.contains(&key(path)) {
                1
            } else {
                2
            };
            (rank, quote!(<#path as #rt::Named<#id>>::T))
        };
        let name = s.ident.to_string();
        if best.get(&name).is_none_or(|(r, _)| rank < *r) {
            best.insert(name, (rank, tokens));
        }
    }
    let mut out: HashMap<String, TokenStream> =
        best.into_iter().map(|(n, (_, t))| (n, t)).collect();
    if let Some(own) = own {
        let i = syn::Ident::new(own, proc_macro2::Span::call_site());
        out.insert(own.to_string(), quote!(#i));
    }
    out
}

/// The structures a value of type `t` exposes: itself if a structure, its
/// elements', and recursively those of their `pub` fields.
fn exposed(
    t: &Type,
    env: &Env,
    items: &HashMap<String, &syn::ItemStruct>,
    out: &mut BTreeSet<String>,
) {
    match t {
        Type::Struct(n) => {
            if !out.insert(n.clone()) {
                return;
            }
            let (Some(def), Some(item)) = (env.structs.get(n), items.get(n)) else {
                return;
            };
            for ((_, ft), f) in def.fields.iter().zip(item.fields.iter()) {
                if matches!(f.vis, syn::Visibility::Public(_)) {
                    exposed(ft, env, items, out);
                }
            }
        }
        Type::Array { elem, .. } => exposed(elem, env, items, out),
        Type::Tuple(ts) => ts.iter().for_each(|t| exposed(t, env, items, out)),
        _ => {}
    }
}

/// `impl Named<ID> for #self_ty` for each structure exposed by `types` (other than
/// `own`), naming it by `paths`; `rt` is the runtime's `__private` module.
#[allow(clippy::too_many_arguments)]
pub fn named_impls(
    rt: &TokenStream,
    self_ty: &syn::Ident,
    own: Option<&str>,
    types: &[Type],
    env: &Env,
    defs: &[(Def, syn::Item)],
    also: Option<&syn::ItemStruct>,
    paths: &HashMap<String, TokenStream>,
) -> TokenStream {
    let items: HashMap<String, &syn::ItemStruct> = defs
        .iter()
        .filter_map(|(_, i)| match i {
            syn::Item::Struct(s) => Some(s),
            _ => None,
        })
        .chain(also)
        .map(|s| (s.ident.to_string(), s))
        .collect();
    let mut names = BTreeSet::new();
    for t in types {
        exposed(t, env, &items, &mut names);
    }
    let impls = names
        .iter()
        .filter(|n| Some(n.as_str()) != own)
        .filter_map(|n| {
            let path = paths.get(n)?;
            let id = id(n);
            Some(quote! {
                #[doc(hidden)]
                impl #rt::Named<#id> for #self_ty { type T = #path; }
            })
        });
    quote!(#(#impls)*)
}
