//! `#[kernel]`: the kernel's typed launch and everything it needs from the funcs it
//! calls.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use weft_ir::emit_rust::{emit_kernel_body, host_type};
use weft_ir::{Access, Error, FnKind, Type};

use super::adjoint_launch::adjoint_launch;
use super::launch::{cpu_launch, dims_check, fast_arrays, nan_checks, target_places, written_ty};
use super::{Site, parse_target};
use crate::args::{FORWARD_ONLY, FORWARD_ONLY_ON_TAPE};
use crate::callees::{dep_funcs, func_accesses, func_adjoint_blockers, func_reach, uses_fma};
use crate::env::build_env;
use crate::infer::lower_fn;
use crate::math_dsl::math_funcs;
use crate::names;

/// Expands a kernel.
pub fn expand(site: &Site) -> Result<TokenStream, Error> {
    let f: syn::ItemFn = parse_target(site.target)?;
    let env = build_env(&site.parsed, None)?;
    let ir = lower_fn(&env, &f, FnKind::Kernel)?;
    let funcs = dep_funcs(&env, &site.parsed)?;
    // A `forward_only` kernel gets no adjoint at all: none is derived, and neither
    // its Rust nor its PTX is emitted.
    let adj = (!site.args.forward_only)
        .then(|| weft_ir::autodiff::adjoint_with(&ir, &|n| func_accesses(&funcs, n)));
    let math = math_funcs().map_err(|m| Error::new(f.sig.ident.span(), m))?;
    let adj_fn = adj.as_ref().map(|a| &a.function).ok_or(FORWARD_ONLY);
    let ptx = crate::ptx::constants(&ir, adj_fn, &[&funcs, &math]);
    let fma = uses_fma(&ir, &funcs);
    let accesses = weft_ir::access::array_accesses_with(&ir, &|n| func_accesses(&funcs, n));
    let cache = std::cell::RefCell::new(std::collections::HashMap::new());
    let reach = weft_ir::reach::param_reach_with(&ir, &|n| func_reach(&funcs, n, &cache));
    let paths = names::struct_paths(site.defs, None, &site.rt);
    Ok(site.emit(paths, || {
        let adjoint = adj.as_ref().map(|adj| {
            let func_blockers = func_adjoint_blockers(&funcs, adj);
            adjoint_launch(&ir, adj, &accesses, &func_blockers, fma, &site.rt)
        });
        emit(&f, &ir, adjoint, &accesses, &reach, &ptx, fma, &site.rt)
    }))
}

#[allow(clippy::too_many_arguments)]
/// A kernel as native Rust: a struct of the kernel's name with its PTX, its typed
/// `launch` (CPU loops or a CUDA launch, tape recording, NaN checks) and its
/// adjoint's launch (`adjoint`; `None` for a `forward_only` kernel, whose launch
/// then refuses to run on a tape with gradients instead of recording an adjoint).
fn emit(
    f: &syn::ItemFn,
    ir: &weft_ir::Function,
    adjoint: Option<TokenStream>,
    accesses: &[weft_ir::access::ArrayAccess],
    reach: &[weft_ir::reach::Reach],
    ptx: &TokenStream,
    fma: bool,
    rt: &TokenStream,
) -> TokenStream {
    let name = &f.sig.ident;
    let name_str = name.to_string();
    let vis = &f.vis;
    let attrs = &f.attrs;
    let body_ident = format_ident!("__weft_body_{}", name);
    let body = emit_kernel_body(ir, &body_ident);

    let mut sig_params = Vec::new();
    let mut devices = Vec::new();
    let mut struct_devices = Vec::new();
    // Recording on a tape: what to keep of each argument.
    let mut rec_take = Vec::new();
    let mut adj_args = Vec::new();
    let mut views = Vec::new();
    let mut call_args = Vec::new();
    let written: Vec<TokenStream> = f
        .sig
        .inputs
        .iter()
        .map(|a| match a {
            syn::FnArg::Typed(pt) => {
                let t = &pt.ty;
                quote!(#t)
            }
            syn::FnArg::Receiver(r) => quote!(#r),
        })
        .collect();
    for ((p, w), reach) in ir.params.iter().zip(&written).zip(reach) {
        let n = format_ident!("{}", p.name);
        let pname = &p.name;
        match &p.ty {
            Type::Array { access, .. } => {
                let _ = host_type(&p.ty);
                sig_params.push(quote!(#n: #w));
                if *access == Access::Write {
                    views.push(quote! {
                        let (#n, __g) = #n.view_mut(NAME, #pname)?;
                        __guards.push(__g);
                    });
                } else {
                    views.push(quote! {
                        let (#n, __g) = #n.view(NAME, #pname)?;
                        __guards.push(__g);
                    });
                }
                rec_take.push(quote!(#n.share()));
                adj_args.push(quote!(&#n));
                devices.push(quote!((#pname, #n.device())));
            }
            Type::Struct(_) => {
                let t = host_type(&p.ty);
                let by_ref = matches!(&written_ty(f, &p.name), Some(syn::Type::Reference(_)));
                if by_ref {
                    sig_params.push(quote!(#n: #w));
                } else {
                    sig_params.push(quote!(#n: #t));
                    struct_devices.push(quote!(let #n = &#n;));
                }
                // Views of only the arrays the kernel reaches (a model holds a
                // hundred, a kernel reads a few): fewer borrows per launch.
                if reach.contains(&Vec::new()) {
                    struct_devices.push(quote!(#rt::KernelStruct::devices(&*#n, &mut __devices);));
                    if p.writable {
                        views.push(quote!(let #n = #rt::KernelStruct::view_mut(#n, NAME, #pname, &mut __guards)?;));
                    } else {
                        views.push(quote!(let #n = #rt::KernelStruct::view(&*#n, NAME, #pname, &mut __guards)?;));
                    }
                } else {
                    let used = used_tokens(reach, rt);
                    struct_devices.push(quote! {{
                        static __USED: #rt::Used = #used;
                        #rt::KernelStruct::devices_used(&*#n, &mut __devices, &__USED);
                    }});
                    if p.writable {
                        views.push(quote! {
                            let #n = {
                                static __USED: #rt::Used = #used;
                                #rt::KernelStruct::view_mut_used(#n, NAME, #pname, &mut __guards, &__USED)?
                            };
                        });
                    } else {
                        views.push(quote! {
                            let #n = {
                                static __USED: #rt::Used = #used;
                                #rt::KernelStruct::view_used(&*#n, NAME, #pname, &mut __guards, &__USED)?
                            };
                        });
                    }
                }
                rec_take.push(quote!(#rt::KernelStruct::share(&*#n)));
                adj_args.push(quote!(&#n));
            }
            _ => {
                sig_params.push(quote!(#n: #w));
                rec_take.push(quote!(#n));
                adj_args.push(quote!(#n));
            }
        }
        call_args.push(quote!(#n));
    }
    let cuda_packs: Vec<TokenStream> = ir
        .params
        .iter()
        .map(|p| {
            let n = format_ident!("{}", p.name);
            let pname = &p.name;
            match &p.ty {
                Type::Array { access, .. } => {
                    let w = *access == Access::Write;
                    quote!(#n.pack_cuda(#w, NAME, #pname, &mut __args)?;)
                }
                Type::Struct(_) => {
                    let w = p.writable;
                    quote!(#rt::KernelStruct::pack_cuda(&*#n, #w, NAME, #pname, &mut __args)?;)
                }
                _ => quote!(#rt::pack::PackArg::pack(&#n, &mut __args);),
            }
        })
        .collect();
    let fast_arrays = fast_arrays(ir);
    let dims_check = dims_check(ir, rt);
    let places = target_places(ir);
    let cpu_launch = cpu_launch(&body_ident, &call_args, &fast_arrays, &places, fma, rt);
    let rec_names: Vec<_> = ir
        .params
        .iter()
        .map(|p| format_ident!("{}", p.name))
        .collect();
    // What the tape stamps (for its overwrite check), which arrays get gradients
    // (outputs, when an input has one) and which it zeroes: from the arrays the
    // body and the funcs it calls actually read and write, inside structure
    // parameters too (`accesses`).
    let place = |a: &weft_ir::access::ArrayAccess| {
        let n = format_ident!("{}", ir.params[a.source.param].name);
        let fs = a.fields.iter().map(|f| format_ident!("{}", f));
        quote!(#n #(.#fs)*)
    };
    let stamps = |pick: fn(&weft_ir::access::ArrayAccess) -> bool| -> Vec<TokenStream> {
        accesses
            .iter()
            .filter(|a| pick(a))
            .map(|a| {
                let (e, label) = (place(a), a.label(ir));
                quote!(#rt::tape::stamp(#label, &#e))
            })
            .collect()
    };
    // Every launch marks the arrays it writes as changed (recording or not).
    let bumps: Vec<TokenStream> = accesses
        .iter()
        .filter(|a| a.written)
        .map(|a| {
            let e = place(a);
            quote!(#rt::tape::bump(&#e);)
        })
        .collect();
    let nan_checks = nan_checks(ir, accesses, |a| a.written, false, rt);
    let rec_reads = stamps(|a| a.read);
    let rec_writes = stamps(|a| a.written);
    let places = |pick: fn(&weft_ir::access::ArrayAccess) -> bool| -> Vec<TokenStream> {
        accesses
            .iter()
            .filter(|a| a.differentiable() && pick(a))
            .map(place)
            .collect()
    };
    let grad_inputs = places(|a| a.read);
    let grad_outputs = places(|a| a.written);
    let zeroed = places(|_| true);
    let accumulated = places(|a| a.accumulated);
    let zero_handles: Vec<_> = ir
        .params
        .iter()
        .enumerate()
        .filter(|(i, _)| {
            accesses
                .iter()
                .any(|a| a.source.param == *i && a.differentiable())
        })
        .map(|(_, p)| {
            let n = format_ident!("{}", p.name);
            match p.ty {
                Type::Struct(_) => quote!(let #n = #rt::KernelStruct::share(&#n);),
                _ => quote!(let #n = #n.share();),
            }
        })
        .collect();
    // A `forward_only` kernel reaches the tape only when none of its arrays has a
    // gradient (see `grads_on_tape`): it is recorded for the tape's overwrite
    // check, with nothing to run backwards.
    let (backward, unused) = if adjoint.is_some() {
        (
            quote!(move || Self::__adjoint(device, dims, #(#adj_args),*)),
            quote!(),
        )
    } else if rec_names.is_empty() {
        (quote!(|| ::core::result::Result::Ok(())), quote!())
    } else {
        (
            quote!(|| ::core::result::Result::Ok(())),
            quote!(let _ = (#(#rec_names,)*);),
        )
    };
    let record = quote! {
        let __reads = ::std::vec![#(#rec_reads),*];
        let __writes = ::std::vec![#(#rec_writes),*];
        let __zero = {
            #(#zero_handles)*
            move || { #(#zeroed.zero_grad();)* }
        };
        #unused
        #rt::tape::push(#rt::tape::Record {
            kernel: NAME,
            reads: __reads,
            writes: __writes,
            backward: ::std::boxed::Box::new(#backward),
            zero: ::std::boxed::Box::new(__zero),
        });
    };
    // On a tape, outputs of a launch whose inputs carry gradients get gradients
    // too, so the chain of adjoints is never silently cut; a `forward_only`
    // kernel has no adjoint to continue it, so it refuses to run instead.
    let grads_on_tape = if adjoint.is_some() {
        quote! {
            if __recording && (false #(|| #grad_inputs.has_grad())*) {
                #(#grad_outputs.ensure_grad();)*
            }
        }
    } else {
        let reason = FORWARD_ONLY_ON_TAPE;
        quote! {
            if __recording && (false #(|| #zeroed.has_grad())*) {
                return Err(#rt::Error::Gradient { kernel: NAME, reason: #reason });
            }
        }
    };
    let doc = format!(
        "Launches kernel `{name_str}` over `dims` (1–4-D grid); array arguments must share one device.\n\n\
         Panics if the kernel indexes an array out of bounds (the message names the kernel, array, index and shape).{}",
        if adjoint.is_some() {
            ""
        } else {
            "\n\nDeclared `forward_only`: it has no adjoint, and while a tape records it returns \
             `Error::Gradient` (running nothing) if an array it reads or writes has a gradient."
        }
    );
    // A braced struct lives only in the type namespace, so parameters and locals
    // named like the kernel do not clash with it (a unit struct would), and unlike a
    // module it sees the items of an enclosing function body.
    quote! {
        #(#attrs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #name {}

        impl #name {
            /// The kernel's name.
            pub const NAME: &'static str = #name_str;

            #ptx

            #[doc = #doc]
            #[allow(clippy::too_many_arguments)]
            #vis fn launch(dims: impl ::core::convert::Into<#rt::Dims>, #(#sig_params),*) -> ::core::result::Result<(), #rt::Error> {
                const NAME: &str = #name_str;
                #body
                let dims: #rt::Dims = dims.into();
                if dims.total() > i32::MAX as usize {
                    return Err(#rt::Error::Shape(format!("kernel `{NAME}`: {} threads exceed the i32 range of `tid()`", dims.total())));
                }
                #dims_check
                #[allow(unused_mut)]
                let mut __devices: ::std::vec::Vec<(&'static str, #rt::Device)> = ::std::vec![#(#devices),*];
                #(#struct_devices)*
                let device = #rt::Device::common(NAME, &__devices)?;
                // Handles on the arguments, kept by the tape if one is recording.
                let __recording = #rt::tape::recording();
                #grads_on_tape
                // Arrays this kernel only accumulates into (atomic add/sub): no
                // adjoint consumes their gradients, so a stale one from an earlier
                // tape would leak into this one's backward pass. Start them at zero.
                if __recording {
                    #(#accumulated.zero_grad();)*
                }
                #[allow(unused_parens, clippy::unused_unit)]
                let __rec = if __recording { ::core::option::Option::Some((#(#rec_take,)*)) } else { ::core::option::Option::None };
                match device {
                    #rt::Device::Cpu => {
                        let mut __guards: ::std::vec::Vec<#rt::BorrowGuard> = ::std::vec::Vec::new();
                        #(#views)*
                        #cpu_launch
                        drop(__guards);
                    }
                    #rt::Device::Cuda(__ordinal) => {
                        let __ptx = Self::PTX
                            .map_err(|reason| #rt::Error::Unsupported { kernel: NAME, reason })?;
                        let mut __args = #rt::pack::ArgBuf::new(&dims, #rt::cuda::error_record_ptr(__ordinal)?);
                        #(#cuda_packs)*
                        #rt::pack::launch(__ordinal, __ptx, NAME, &dims, &__args.finish())?;
                    }
                }
                #(#bumps)*
                if let ::core::option::Option::Some((#(#rec_names,)*)) = __rec {
                    #record
                }
                if #rt::nan_check::check_nan() {
                    #(#nan_checks)*
                }
                Ok(())
            }

            #adjoint
        }
    }
}

/// A `Used` value (weft-runtime `__private::Used`) for the field paths a kernel
/// reaches in one structure parameter (none of them empty).
fn used_tokens(reach: &weft_ir::reach::Reach, rt: &TokenStream) -> TokenStream {
    let whole_fields: Vec<u32> = reach
        .iter()
        .filter(|p| p.len() == 1)
        .map(|p| p[0])
        .collect();
    let words = whole_fields.iter().map(|&i| i / 64 + 1).max().unwrap_or(0) as usize;
    let mut whole = vec![0u64; words];
    for i in &whole_fields {
        whole[(i / 64) as usize] |= 1 << (i % 64);
    }
    let mut parts: std::collections::BTreeMap<u32, weft_ir::reach::Reach> = Default::default();
    for p in reach.iter().filter(|p| p.len() > 1) {
        if !whole_fields.contains(&p[0]) {
            parts.entry(p[0]).or_default().insert(p[1..].to_vec());
        }
    }
    let parts = parts.iter().map(|(i, r)| {
        let inner = used_tokens(r, rt);
        quote!((#i, &#inner))
    });
    quote!(#rt::Used { whole: &[#(#whole),*], parts: &[#(#parts),*] })
}
