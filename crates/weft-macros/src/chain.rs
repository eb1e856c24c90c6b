//! Cross-module and cross-crate visibility of funcs and structs.
//!
//! A proc-macro sees one item at a time. So every `#[func]` and `#[structure]` also
//! emits a hidden `#[macro_export] macro_rules!`, re-exported under the item's own
//! name (the macro namespace is separate from the value and type namespaces, so
//! `use physics::spring;` imports both the function and its macro). The macro holds
//! the item's source tokens and those of everything it depends on.
//!
//! When a kernel (or func) refers to items it cannot see, its attribute expands to a
//! call of the first dependency's macro, carrying the kernel's tokens and the list of
//! remaining dependencies. Each dependency macro prepends its definitions and calls
//! [`__chain`](crate::__chain) again, which invokes the next dependency, until none
//! is left and the kernel is expanded with every definition in hand. Paths resolve
//! at the kernel's own site, exactly as the user wrote them — `__chain`'s too: the
//! call hands each dependency macro the path it is to call back
//! (`@chain [::weft::__private::__chain]`, or that of the kernel's `crate = path`),
//! so an export macro names no crate and works from any crate, whichever path its
//! own item was defined against.
//!
//! Each definition also remembers the path that fetched it ([`Via`]), so generated
//! code can name a structure the user never imported: by that path when it is the
//! structure itself, else as `<path as __private::Named<ID>>::T` — every func
//! and structure implements `Named` for the structures of its interface (see
//! [`crate::names`]).

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::parse::{Parse, ParseStream};
use syn::{Token, braced, bracketed};

/// What an item is, as carried through the chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `#[kernel]`
    Kernel,
    /// `#[func]`
    Func,
    /// `#[structure]`
    Struct,
}

impl Kind {
    fn ident(self) -> proc_macro2::Ident {
        format_ident!(
            "{}",
            match self {
                Kind::Kernel => "kernel",
                Kind::Func => "func",
                Kind::Struct => "structure",
            }
        )
    }
}

/// One definition carried by an export macro: its kind and item tokens.
#[derive(Clone)]
pub struct Def {
    /// Func or struct.
    pub kind: Kind,
    /// The item, without its weft attribute.
    pub item: TokenStream,
    /// How the expanding item's site reaches it (none inside export macros).
    pub via: Option<Via>,
}

/// The path (as written at the expanding item's site) whose macro brought a
/// definition.
#[derive(Clone)]
pub struct Via {
    /// The dependency path.
    pub path: syn::Path,
    /// Whether the definition is the item `path` names (else one it depends on).
    pub head: bool,
}

/// The parsed input of `__chain!`.
pub struct ChainInput {
    /// Definitions gathered so far.
    pub defs: Vec<Def>,
    /// Dependencies still to fetch.
    pub pending: Vec<syn::Path>,
    /// The item being expanded.
    pub target: Def,
    /// Its attribute arguments.
    pub attr: TokenStream,
}

fn parse_kind(input: ParseStream) -> syn::Result<Kind> {
    let id: syn::Ident = input.parse()?;
    match id.to_string().as_str() {
        "kernel" => Ok(Kind::Kernel),
        "func" => Ok(Kind::Func),
        "structure" => Ok(Kind::Struct),
        _ => Err(syn::Error::new(
            id.span(),
            "internal: unknown weft item kind",
        )),
    }
}

impl Parse for ChainInput {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut defs: Vec<Def> = Vec::new();
        // Where the last `@def` group began: a `@via [path]` after it names the
        // path whose macro prepended that group.
        let mut group_start = 0;
        while input.peek(Token![@]) && input.peek2(syn::Ident) {
            let fork = input.fork();
            fork.parse::<Token![@]>()?;
            let id: syn::Ident = fork.parse()?;
            if id == "via" {
                input.parse::<Token![@]>()?;
                input.parse::<syn::Ident>()?;
                let list;
                bracketed!(list in input);
                let path = syn::Path::parse_mod_style(&list)?;
                for (i, d) in defs[group_start..].iter_mut().enumerate() {
                    d.via.get_or_insert(Via {
                        path: path.clone(),
                        head: i == 0,
                    });
                }
                continue;
            }
            if id != "def" {
                break;
            }
            input.parse::<Token![@]>()?;
            input.parse::<syn::Ident>()?;
            group_start = defs.len();
            let content;
            braced!(content in input);
            while !content.is_empty() {
                let kind = parse_kind(&content)?;
                let via = if content.peek(syn::token::Bracket) {
                    let v;
                    bracketed!(v in content);
                    let role: syn::Ident = v.parse()?;
                    Some(Via {
                        path: syn::Path::parse_mod_style(&v)?,
                        head: role == "head",
                    })
                } else {
                    None
                };
                let item;
                braced!(item in content);
                defs.push(Def {
                    kind,
                    item: item.parse()?,
                    via,
                });
            }
        }
        input.parse::<Token![@]>()?;
        let _pending_kw: syn::Ident = input.parse()?;
        let list;
        bracketed!(list in input);
        let pending = list.parse_terminated(syn::Path::parse_mod_style, Token![;])?;
        input.parse::<Token![@]>()?;
        let _target_kw: syn::Ident = input.parse()?;
        let content;
        braced!(content in input);
        let kind = parse_kind(&content)?;
        let attr;
        braced!(attr in content);
        let item;
        braced!(item in content);
        Ok(ChainInput {
            defs,
            pending: pending.into_iter().collect(),
            target: Def {
                kind,
                item: item.parse()?,
                via: None,
            },
            attr: attr.parse()?,
        })
    }
}

/// Emits the call of the next dependency's macro, which calls `__chain` back through
/// `runtime` (the target's `__private` module).
pub fn invoke_next(
    defs: &[Def],
    mut pending: Vec<syn::Path>,
    target: &Def,
    attr: &TokenStream,
    runtime: &TokenStream,
) -> TokenStream {
    let next = pending.remove(0);
    let defs = defs_tokens(defs, true);
    let kind = target.kind.ident();
    let item = &target.item;
    quote! {
        #next! {
            @chain [#runtime::__chain]
            @via [#next] #defs @pending [ #(#pending);* ] @target { #kind { #attr } { #item } }
        }
    }
}

/// `@def { kind [head|dep path] { item } … }`; `with_via` false drops the paths
/// (an export macro's definitions are reached through the path that calls it).
fn defs_tokens(defs: &[Def], with_via: bool) -> TokenStream {
    if defs.is_empty() {
        return TokenStream::new();
    }
    let parts = defs.iter().map(|d| {
        let k = d.kind.ident();
        let item = &d.item;
        match &d.via {
            Some(Via { path, head }) if with_via => {
                let role = format_ident!("{}", if *head { "head" } else { "dep" });
                quote!(#k [#role #path] { #item })
            }
            _ => quote!(#k { #item }),
        }
    });
    quote!(@def { #(#parts)* })
}

/// The hidden export macro for an item named `name` carrying `defs` (itself first).
pub fn export_macro(name: &syn::Ident, vis: &syn::Visibility, defs: &[Def]) -> TokenStream {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    for d in defs {
        d.item.to_string().hash(&mut h);
    }
    let mac = format_ident!("__weft_def_{}_{:016x}", name, h.finish());
    let defs = defs_tokens(defs, false);
    let name = syn::Ident::new(&name.to_string(), Span::call_site());
    quote! {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #mac {
            (@chain [$($chain:tt)*] $($rest:tt)*) => { $($chain)*! { #defs $($rest)* } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #mac as #name;
    }
}
