//! The kernel front end: `#[kernel]`, `#[func]` and `#[structure]`.
//!
//! Each attribute parses its item with `syn`, lowers it to the typed IR of
//! [`weft_ir`] (which type-checks it), and emits native Rust for the CPU back end
//! plus, for kernels, a typed `launch` function. Users reach these through the
//! `weft` crate (`weft::kernel`, …); see its documentation for the language.
//!
//! Every attribute takes `crate = path` (as serde's does): generated code then
//! names the runtime `path::__private` instead of `::weft::__private`, so a
//! library can define kernels, funcs and structures depending on `weft-runtime`
//! rather than the facade (`#[kernel(crate = ::weft_runtime)]`).

mod args;
mod callees;
mod chain;
mod defs;
mod deps;
mod env;
mod expand;
mod infer;
mod lower;
mod math_dsl;
mod names;
mod ptx;
mod types;

use proc_macro::TokenStream;

use chain::{ChainInput, Kind};

/// Marks a function as a kernel: a unit struct of the same name with a typed
/// `launch(dims, args..)` is generated. Takes `crate = path` (see the crate docs)
/// and the flag `forward_only` (`#[kernel(forward_only)]`, e.g. for an in-place
/// solver pass with a taped counterpart): no adjoint is generated (neither Rust nor
/// PTX; `ADJOINT_PTX` is an `Err` saying so), and a launch while a tape records
/// returns `Error::Gradient` naming the kernel if an array it reads or writes has a
/// gradient.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::entry(Kind::Kernel, attr.into(), item.into()).into()
}

/// Marks a function as callable from kernels (and from other funcs). Takes
/// `adjoint = path` (a hand-written adjoint) and `crate = path`.
#[proc_macro_attribute]
pub fn func(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::entry(Kind::Func, attr.into(), item.into()).into()
}

/// Marks a struct as usable in kernels (parameters, locals, array elements). Takes
/// `crate = path`.
#[proc_macro_attribute]
pub fn structure(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::entry(Kind::Struct, attr.into(), item.into()).into()
}

/// Internal: one step of the dependency chain (see the `chain` module).
#[doc(hidden)]
#[proc_macro]
pub fn __chain(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as ChainInput);
    expand::chain_step(input).into()
}
