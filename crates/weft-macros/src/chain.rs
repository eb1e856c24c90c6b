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
//! at the kernel's own site, exactly as the user wrote them.

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
        let mut defs = Vec::new();
        while input.peek(Token![@]) && input.peek2(syn::Ident) {
            let fork = input.fork();
            fork.parse::<Token![@]>()?;
            let id: syn::Ident = fork.parse()?;
            if id != "def" {
                break;
            }
            input.parse::<Token![@]>()?;
            input.parse::<syn::Ident>()?;
            let content;
            braced!(content in input);
            while !content.is_empty() {
                let kind = parse_kind(&content)?;
                let item;
                braced!(item in content);
                defs.push(Def {
                    kind,
                    item: item.parse()?,
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
            },
            attr: attr.parse()?,
        })
    }
}

/// Emits the call of the next dependency's macro.
pub fn invoke_next(
    defs: &[Def],
    mut pending: Vec<syn::Path>,
    target: &Def,
    attr: &TokenStream,
) -> TokenStream {
    let next = pending.remove(0);
    let defs = defs_tokens(defs);
    let kind = target.kind.ident();
    let item = &target.item;
    quote! {
        #next! { #defs @pending [ #(#pending);* ] @target { #kind { #attr } { #item } } }
    }
}

fn defs_tokens(defs: &[Def]) -> TokenStream {
    if defs.is_empty() {
        return TokenStream::new();
    }
    let parts = defs.iter().map(|d| {
        let k = d.kind.ident();
        let item = &d.item;
        quote!(#k { #item })
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
    let defs = defs_tokens(defs);
    let name = syn::Ident::new(&name.to_string(), Span::call_site());
    quote! {
        #[doc(hidden)]
        #[macro_export]
        macro_rules! #mac {
            ($($rest:tt)*) => { ::weft::__private::__chain! { #defs $($rest)* } };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        #vis use #mac as #name;
    }
}
