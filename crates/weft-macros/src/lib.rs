//! The kernel front end: `#[kernel]`, `#[func]` and `#[structure]`.
//!
//! Each attribute parses its item with `syn`, lowers it to the typed IR of
//! [`weft_ir`] (which type-checks it), and emits native Rust for the CPU back end
//! plus, for kernels, a typed `launch` function. Users reach these through the
//! `weft` crate (`weft::kernel`, …); see its documentation for the language.

mod chain;
mod deps;
mod items;
mod lower;
mod names;
mod ptx;
mod types;

use proc_macro::TokenStream;

use chain::{ChainInput, Kind};

/// Marks a function as a kernel: a unit struct of the same name with a typed
/// `launch(dims, args..)` is generated.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    items::entry(Kind::Kernel, attr.into(), item.into()).into()
}

/// Marks a function as callable from kernels (and from other funcs).
#[proc_macro_attribute]
pub fn func(attr: TokenStream, item: TokenStream) -> TokenStream {
    items::entry(Kind::Func, attr.into(), item.into()).into()
}

/// Marks a struct as usable in kernels (parameters, locals, array elements).
#[proc_macro_attribute]
pub fn structure(attr: TokenStream, item: TokenStream) -> TokenStream {
    items::entry(Kind::Struct, attr.into(), item.into()).into()
}

/// Internal: one step of the dependency chain (see the `chain` module).
#[doc(hidden)]
#[proc_macro]
pub fn __chain(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as ChainInput);
    items::chain_step(input).into()
}
