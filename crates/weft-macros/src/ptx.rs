//! The PTX of a kernel and of its adjoint, embedded in the expansion as constants.

use std::collections::HashMap;

use proc_macro2::TokenStream;
use quote::quote;

/// `PTX` and `ADJOINT_PTX` constants for a kernel: the PTX module text, or why the
/// CUDA back end cannot run it (the CPU back end is unaffected).
/// `adjoint` is the kernel's adjoint function, or why it has none (a
/// `forward_only` kernel: then no adjoint PTX is emitted).
pub fn constants(
    ir: &weft_ir::Function,
    adjoint: Result<&weft_ir::Function, &str>,
    funcs: &[&HashMap<String, weft_ir::Function>],
) -> TokenStream {
    let kernel_id = kernel_id(&ir.name);
    // Both variants are embedded; the user's build profile picks one (bounds checks
    // on in debug builds, as on the CPU).
    let emit = |f: &weft_ir::Function, outline_replays| {
        let variant = |bounds_checks| {
            let options = weft_ir::emit_ptx::Options {
                bounds_checks,
                kernel_id,
                outline_replays,
            };
            match weft_ir::emit_ptx::kernel(f, funcs, options) {
                Ok(k) => {
                    let t = k.text;
                    quote!(::core::result::Result::Ok(#t))
                }
                Err(e) => quote!(::core::result::Result::Err(#e)),
            }
        };
        let (checked, fast) = (variant(true), variant(false));
        quote!(if cfg!(debug_assertions) { #checked } else { #fast })
    };
    let f = emit(ir, false);
    let a = match adjoint {
        Ok(adjoint) => {
            let mut adj_fn = adjoint.clone();
            adj_fn.name = format!("{}_adjoint", ir.name);
            emit(&adj_fn, true)
        }
        Err(why) => quote!(::core::result::Result::Err(#why)),
    };
    quote! {
        /// The kernel as a PTX module for the CUDA back end (entry named like the
        /// kernel), or why it cannot run on CUDA yet.
        pub const PTX: ::core::result::Result<&'static str, &'static str> = #f;
        /// The adjoint kernel's PTX (entry `<name>_adjoint`), or why it has none.
        #[doc(hidden)]
        pub const ADJOINT_PTX: ::core::result::Result<&'static str, &'static str> = #a;
        /// The kernel's id in the device error record.
        #[doc(hidden)]
        pub const KERNEL_ID: u32 = #kernel_id;
    }
}

/// A stable 32-bit id of a kernel name (FNV-1a), written by GPU bounds checks.
pub fn kernel_id(name: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in name.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}
