//! Expansion of kernels, funcs and structures once their dependencies are known:
//! the entry points of the attributes and of `__chain`, and the dispatch by kind.

mod adjoint_launch;
mod func;
mod kernel;
mod launch;
mod structure;
mod structure_arrays;
mod stub;

use proc_macro2::TokenStream;
use quote::quote;
use weft_ir::Error;
use weft_ir::emit_rust::{Paths, with_paths};

use crate::args::Args;
use crate::chain::{ChainInput, Def, Kind, invoke_next};
use crate::{defs, deps};

/// Entry point of the three attributes: expands the item, or first fetches the
/// definitions of the items it refers to (see [`crate::chain`]).
pub fn entry(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let target = Def {
        kind,
        item,
        via: None,
    };
    let deps = match kind {
        Kind::Struct => match syn::parse2::<syn::ItemStruct>(target.item.clone()) {
            Ok(s) => deps::of_struct(&s),
            Err(e) => return e.to_compile_error(),
        },
        _ => match syn::parse2::<syn::ItemFn>(target.item.clone()) {
            Ok(f) => deps::of_fn(&f),
            Err(e) => return e.to_compile_error(),
        },
    };
    if deps.is_empty() {
        expand(&[], &target, &attr)
    } else {
        invoke_next(&[], deps, &target, &attr, &runtime(kind, &attr))
    }
}

/// One step of the dependency chain.
pub fn chain_step(input: ChainInput) -> TokenStream {
    if input.pending.is_empty() {
        expand(&input.defs, &input.target, &input.attr)
    } else {
        let rt = runtime(input.target.kind, &input.attr);
        invoke_next(&input.defs, input.pending, &input.target, &input.attr, &rt)
    }
}

/// The runtime path of an item with attribute arguments `attr` (the default one
/// when they are wrong: the error is reported once the item is expanded).
fn runtime(kind: Kind, attr: &TokenStream) -> TokenStream {
    Args::parse(kind, attr).unwrap_or_default().runtime()
}

/// What the expansion of every kind of item starts from.
pub struct Site<'a> {
    /// The definitions the chain brought, as fetched (duplicates included).
    pub defs: &'a [Def],
    /// The same, deduplicated and parsed.
    pub parsed: Vec<(Def, syn::Item)>,
    /// The item being expanded.
    pub target: &'a Def,
    /// Its attribute arguments.
    pub args: Args,
    /// The runtime's `__private` module as generated code names it.
    pub rt: TokenStream,
}

impl Site<'_> {
    /// Runs `f` (an emission) with generated code naming the runtime by this
    /// site's path and structures by `structs` (see [`crate::names`]).
    pub fn emit(
        &self,
        structs: std::collections::HashMap<String, TokenStream>,
        f: impl FnOnce() -> TokenStream,
    ) -> TokenStream {
        let paths = Paths {
            runtime: Some(self.rt.clone()),
            structs,
        };
        with_paths(paths, f)
    }
}

/// Expands the target with every definition in hand; on error, the error and a
/// stand-in with the item's signature.
fn expand(defs: &[Def], target: &Def, attr: &TokenStream) -> TokenStream {
    match try_expand(defs, target, attr) {
        Ok(t) => {
            dump(target, &t);
            t
        }
        Err(e) => {
            let err = syn::Error::new(e.span, e.message).to_compile_error();
            let stub = stub::stub(defs, target, &runtime(target.kind, attr));
            quote!(#err #stub)
        }
    }
}

fn try_expand(defs: &[Def], target: &Def, attr: &TokenStream) -> Result<TokenStream, Error> {
    let args = Args::parse(target.kind, attr)?;
    let site = Site {
        defs,
        parsed: defs::dedup(defs)?,
        target,
        rt: args.runtime(),
        args,
    };
    match target.kind {
        Kind::Struct => structure::expand(&site),
        Kind::Func => func::expand(&site),
        Kind::Kernel => kernel::expand(&site),
    }
}

/// `WEFT_DUMP=name cargo build` prints the code generated for item `name`.
fn dump(target: &Def, generated: &TokenStream) {
    if let Ok(want) = std::env::var("WEFT_DUMP")
        && let Ok(item) = syn::parse2::<syn::Item>(target.item.clone())
    {
        let name = match &item {
            syn::Item::Fn(f) => f.sig.ident.to_string(),
            syn::Item::Struct(s) => s.ident.to_string(),
            _ => String::new(),
        };
        if want == name {
            eprintln!("// weft: generated code for `{name}`\n{generated}");
        }
    }
}

/// Parses the target as `T` (a fn or struct item).
fn parse_target<T: syn::parse::Parse>(target: &Def) -> Result<T, Error> {
    syn::parse2(target.item.clone()).map_err(|e| Error::new(e.span(), e.to_string()))
}
