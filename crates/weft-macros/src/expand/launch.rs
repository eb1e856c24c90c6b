//! Pieces shared by a kernel's launch and its adjoint's: the grid check, the CPU
//! loops, the places of arrays and accumulation targets, the NaN checks.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The check that a launch grid has the dimensions `tid()` is destructured into.
pub fn dims_check(ir: &weft_ir::Function, rt: &TokenStream) -> TokenStream {
    if ir.launch_dims > 1 {
        let d = ir.launch_dims as usize;
        quote! {
            if dims.ndim() != #d {
                return Err(#rt::Error::LaunchDims { kernel: NAME, expected: #d, got: dims.ndim() });
            }
        }
    } else {
        quote!()
    }
}

/// The places (`x`, `model.x`) of the arrays every thread of `f` indexes by
/// `tid()` (see [`weft_ir::emit_rust::tid_indexed_arrays`]).
pub fn fast_arrays(f: &weft_ir::Function) -> Vec<TokenStream> {
    weft_ir::emit_rust::tid_indexed_arrays(f)
        .iter()
        .map(|src| {
            let p = format_ident!("{}", f.params[src.param].name);
            let fs = weft_ir::access::field_names(f, src)
                .into_iter()
                .map(|n| format_ident!("{}", n));
            quote!(#p #(.#fs)*)
        })
        .collect()
}

/// The CPU launch of a kernel body over `dims`: the body is called in a loop over
/// each chunk of thread indices, with the arguments copied into locals (so the loop
/// keeps them in registers instead of reloading them after every store). Threads
/// below `__fast` access every array they index by `tid()` in bounds, so the first
/// loop runs the body without those checks; the rest keep them.
///
/// A kernel with accumulation targets (`targets`: the place of each target's view,
/// `state.particle_f`) launches through `launch_accumulate`, which picks the body's
/// atomic variant or its plain-add variant with the targets redirected to private
/// buffers (see `weft_ir::accumulate`).
pub fn cpu_launch(
    body: &syn::Ident,
    args: &[TokenStream],
    fast_arrays: &[TokenStream],
    targets: &[TokenStream],
    fma: bool,
    rt: &TokenStream,
) -> TokenStream {
    // A kernel that calls `fma` (itself or through its funcs) runs its loops
    // compiled for the CPU's FMA instructions where it has them (`with_fma`),
    // instead of calling the C library's `fmaf`.
    let dispatch = |loops: TokenStream| {
        if fma {
            quote!(#rt::cpu::with_fma(|| { #loops });)
        } else {
            loops
        }
    };
    let loops = |private: TokenStream, accs: &[syn::Ident]| {
        quote! {
            // Below `__fast` every array in the list holds element `__tid`: the
            // body skips those checks (`__in_bounds`).
            for __tid in __range.start..__fast {
                #body #private(__tid, true, &__dims, #(#args),* #(, #accs)*);
            }
            for __tid in __split..__range.end {
                #body #private(__tid, false, &__dims, #(#args),* #(, #accs)*);
            }
        }
    };
    let prelude = quote! {
        #(let #args = #args;)*
        let __dims = dims;
        let __fast = __range.end #(.min(#fast_arrays.len_usize()))*;
        let __split = __fast.max(__range.start);
    };
    if targets.is_empty() {
        let loops = dispatch(loops(quote!(), &[]));
        return quote! {
            // What this launch site has learned of its time per thread: it
            // decides whether a launch is worth the other cores.
            static __COST: #rt::cpu::LaunchCost = #rt::cpu::LaunchCost::new();
            #rt::cpu::launch(&dims, &__COST, &|__range: ::core::ops::Range<usize>| {
                #prelude
                #loops
            });
        };
    }
    let accs: Vec<_> = (0..targets.len())
        .map(|k| format_ident!("__acc{}", k))
        .collect();
    let ks = 0..targets.len();
    let atomic = dispatch(loops(quote!(::<false>), &accs));
    let private = dispatch(loops(quote!(::<true>), &accs));
    quote! {
        let __targets = [#(#rt::cpu::AccTarget::new(&#targets)),*];
        static __COST: #rt::cpu::LaunchCost = #rt::cpu::LaunchCost::new();
        #rt::cpu::launch_accumulate(
            &dims,
            &__COST,
            &__targets,
            &|__range: ::core::ops::Range<usize>, __private: ::core::option::Option<&#rt::cpu::Private>| {
                #prelude
                match __private {
                    ::core::option::Option::None => {
                        #(let #accs = #rt::ArrayView::null();)*
                        #atomic
                    }
                    ::core::option::Option::Some(__p) => {
                        #(let #accs = __p.view(#ks, #targets);)*
                        #private
                    }
                }
            },
        );
    }
}

/// The places (`state.particle_f`, `adj_x`) of the accumulation targets of `f`, by
/// the names of its parameters (the launch's locals).
pub fn target_places(f: &weft_ir::Function) -> Vec<TokenStream> {
    weft_ir::accumulate::accumulate_targets(f)
        .iter()
        .map(|t| {
            let n = format_ident!("{}", f.params[t.source.param].name);
            let fs = t.fields.iter().map(|x| format_ident!("{}", x));
            quote!(#n #(.#fs)*)
        })
        .collect()
}

/// The NaN check of a launch (`weft_runtime::nan_check`): one scan per array of
/// `accesses` that `pick` selects, by its place (`x`, `model.x`) and the name users
/// know it by — of its gradient (`adj_x`) when `grads`.
pub fn nan_checks(
    ir: &weft_ir::Function,
    accesses: &[weft_ir::access::ArrayAccess],
    pick: fn(&weft_ir::access::ArrayAccess) -> bool,
    grads: bool,
    rt: &TokenStream,
) -> Vec<TokenStream> {
    accesses
        .iter()
        .filter(|a| pick(a))
        .map(|a| {
            let n = format_ident!("{}", ir.params[a.source.param].name);
            let fs = a.fields.iter().map(|f| format_ident!("{}", f));
            if grads {
                let label = format!("adj_{}", a.label(ir));
                quote!(#rt::nan_check::grad(NAME, #label, &#n #(.#fs)*)?;)
            } else {
                let label = a.label(ir);
                quote!(#rt::nan_check::array(NAME, #label, &#n #(.#fs)*)?;)
            }
        })
        .collect()
}

/// The type parameter `name` of `f` is written with.
pub fn written_ty(f: &syn::ItemFn, name: &str) -> Option<syn::Type> {
    f.sig.inputs.iter().find_map(|a| match a {
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) if pi.ident == name => Some((*pt.ty).clone()),
            _ => None,
        },
        _ => None,
    })
}
