//! The stand-in emitted after an error.

use proc_macro2::TokenStream;
use quote::quote;

use crate::chain::{Def, Kind};
use crate::defs::dedup;
use crate::env::{build_env, signature};

/// After an error, a stand-in with the item's signature (when the signature itself is
/// fine), so the user sees the one real error rather than a cascade of "cannot find
/// `launch`" and "unused import" messages.
pub fn stub(defs: &[Def], target: &Def, rt: &TokenStream) -> TokenStream {
    let Ok(f) = syn::parse2::<syn::ItemFn>(target.item.clone()) else {
        return TokenStream::new();
    };
    let Ok(parsed) = dedup(defs) else {
        return TokenStream::new();
    };
    let Ok(env) = build_env(&parsed, None) else {
        return TokenStream::new();
    };
    if signature(&env, &f.sig).is_err() {
        return TokenStream::new();
    }
    let vis = &f.vis;
    let name = &f.sig.ident;
    let inputs = &f.sig.inputs;
    let output = &f.sig.output;
    match target.kind {
        Kind::Kernel => quote! {
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #name {}
            #[allow(dead_code, unused_variables, clippy::too_many_arguments)]
            impl #name {
                #vis fn launch(dims: impl ::core::convert::Into<#rt::Dims>, #inputs) -> ::core::result::Result<(), #rt::Error> {
                    ::core::unreachable!("kernel failed to compile")
                }
            }
        },
        _ => quote! {
            #[allow(dead_code, unused_variables)]
            #vis fn #name(#inputs) #output {
                ::core::unreachable!("func failed to compile")
            }
        },
    }
}
