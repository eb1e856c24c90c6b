//! A kernel's hidden `__adjoint` launch, which the tape calls.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use weft_ir::Type;
use weft_ir::emit_rust::{emit_kernel_body, host_type};

use super::launch::{cpu_launch, dims_check, fast_arrays, nan_checks, target_places};

/// The hidden `__adjoint` launch of a kernel: primal arrays read-only, then one
/// optional gradient array per float array parameter. With the NaN check on, it
/// scans the gradients of the arrays the forward kernel reads (`accesses`): those
/// the adjoint accumulates into.
pub fn adjoint_launch(
    ir: &weft_ir::Function,
    adj: &weft_ir::autodiff::Adjoint,
    accesses: &[weft_ir::access::ArrayAccess],
    func_blockers: &[String],
    fma: bool,
    rt: &TokenStream,
) -> TokenStream {
    let body_ident = format_ident!("__weft_adjoint_body_{}", ir.name);
    let kernel_name = ir.name.clone();
    let body = emit_kernel_body(&adj.function, &body_ident);
    let mut blockers = adj.blockers.clone();
    blockers.extend(func_blockers.iter().cloned());
    let mut params = Vec::new();
    let mut views = Vec::new();
    let mut call_args = Vec::new();
    for p in &ir.params {
        let n = format_ident!("{}", p.name);
        let pname = &p.name;
        match &p.ty {
            Type::Array { .. } => {
                let t = host_type(&p.ty);
                params.push(quote!(#n: &#t));
            }
            Type::Struct(_) => {
                let t = host_type(&p.ty);
                params.push(quote!(#n: &#t));
                views.push(
                    quote!(let #n = #rt::KernelStruct::view(#n, NAME, #pname, &mut __guards)?;),
                );
            }
            other => {
                let t = weft_ir::emit_rust::rust_type(other);
                params.push(quote!(#n: #t));
            }
        }
    }
    // Gradient views first (they need the array handles), then the primal views.
    for (i, gp) in adj.grad_params.iter().enumerate() {
        if gp.is_some() {
            let p = &ir.params[i];
            let primal = format_ident!("{}", p.name);
            let n = format_ident!("adj_{}", p.name);
            let label = format!("adj_{}", p.name);
            let view = if let Type::Struct(_) = p.ty {
                quote!(let #n = #rt::KernelStruct::grad_view(#primal, NAME, #label, &mut __grad_guards)?;)
            } else {
                quote! {
                    let (#n, __g) = #primal.grad_view(NAME, #label)?;
                    __grad_guards.push(__g);
                }
            };
            views.insert(0, view);
        }
    }
    for p in &ir.params {
        if let Type::Array { .. } = p.ty {
            let n = format_ident!("{}", p.name);
            let pname = &p.name;
            views.push(quote! {
                let (#n, __g) = #n.view(NAME, #pname)?;
                __guards.push(__g);
            });
        }
        call_args.push({
            let n = format_ident!("{}", p.name);
            quote!(#n)
        });
    }
    for (i, gp) in adj.grad_params.iter().enumerate() {
        if gp.is_some() {
            let n = format_ident!("adj_{}", ir.params[i].name);
            call_args.push(quote!(#n));
        }
    }
    // The CUDA launch: primal arguments (arrays read-only), then the gradients.
    let mut cuda_packs = Vec::new();
    for p in &ir.params {
        let n = format_ident!("{}", p.name);
        let pname = &p.name;
        cuda_packs.push(match &p.ty {
            Type::Array { .. } => quote!(#n.pack_cuda(false, NAME, #pname, &mut __args)?;),
            Type::Struct(_) => {
                quote!(#rt::KernelStruct::pack_cuda(#n, false, NAME, #pname, &mut __args)?;)
            }
            _ => quote!(#rt::pack::PackArg::pack(&#n, &mut __args);),
        });
    }
    for (i, gp) in adj.grad_params.iter().enumerate() {
        if gp.is_some() {
            let p = &ir.params[i];
            let n = format_ident!("{}", p.name);
            let label = format!("adj_{}", p.name);
            cuda_packs.push(match p.ty {
                Type::Struct(_) => {
                    quote!(#rt::KernelStruct::pack_cuda_grad(#n, NAME, #label, &mut __args)?;)
                }
                _ => quote!(#n.pack_cuda_grad(NAME, #label, &mut __args)?;),
            });
        }
    }
    let adjoint_name = format!("{}_adjoint", ir.name);
    let nan_checks = nan_checks(ir, accesses, |a| a.read && a.differentiable(), true, rt);
    let checks: Vec<TokenStream> = Vec::new();
    let blocked = if blockers.is_empty() {
        quote!()
    } else {
        let reasons = blockers.join("; ");
        quote!(return Err(#rt::Error::Gradient { kernel: NAME, reason: #reasons });)
    };
    let fast_arrays = fast_arrays(&adj.function);
    let dims_check = dims_check(ir, rt);
    let places = target_places(&adj.function);
    let cpu_launch = cpu_launch(&body_ident, &call_args, &fast_arrays, &places, fma, rt);
    quote! {
        /// Runs the kernel's adjoint: accumulates into the gradients of the input
        /// arrays (those created with `requires_grad`) the gradients of the inputs,
        /// given the gradients already in the output arrays. Used by the tape.
        #[doc(hidden)]
        #[allow(clippy::too_many_arguments, unreachable_code, unused_variables)]
        pub fn __adjoint(__device: #rt::Device, dims: impl ::core::convert::Into<#rt::Dims>, #(#params),*) -> ::core::result::Result<(), #rt::Error> {
            const NAME: &str = #kernel_name;
            #blocked
            #body
            let dims: #rt::Dims = dims.into();
            #dims_check
            #(#checks)*
            if let #rt::Device::Cuda(__ordinal) = __device {
                let __ptx = Self::ADJOINT_PTX
                    .map_err(|reason| #rt::Error::Unsupported { kernel: NAME, reason })?;
                let mut __args = #rt::pack::ArgBuf::new(&dims, #rt::cuda::error_record_ptr(__ordinal)?);
                #(#cuda_packs)*
                #rt::pack::launch(__ordinal, __ptx, #adjoint_name, &dims, &__args.finish())?;
            } else {
                let mut __guards: ::std::vec::Vec<#rt::BorrowGuard> = ::std::vec::Vec::new();
                let mut __grad_guards: ::std::vec::Vec<::core::option::Option<#rt::BorrowGuard>> = ::std::vec::Vec::new();
                #(#views)*
                #cpu_launch
                drop((__guards, __grad_guards));
            }
            if #rt::nan_check::check_nan() {
                #(#nan_checks)*
            }
            Ok(())
        }
    }
}
