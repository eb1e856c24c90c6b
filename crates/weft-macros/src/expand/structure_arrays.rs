//! A structure holding arrays: the host struct as written, plus a `Copy` view struct
//! (arrays as `ArrayView`s) that kernels receive.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use weft_ir::{Env, Type};

/// The host struct, its view struct and their kernel traits, then `export` (the
/// export macro); `fids` are the fields' identifiers.
pub fn emit(
    env: &Env,
    s: &syn::ItemStruct,
    fids: &[syn::Ident],
    export: TokenStream,
    rt: &TokenStream,
) -> TokenStream {
    let name = &s.ident;
    let vis = &s.vis;
    let attrs = &s.attrs;
    let view_name = format_ident!("__WeftView_{}", name);
    let def = &env.structs[&name.to_string()];
    let host_fields = match &s.fields {
        syn::Fields::Named(n) => n.named.iter().map(|f| quote!(#f)).collect::<Vec<_>>(),
        _ => vec![],
    };
    let mut view_fields = Vec::new();
    let mut make_view = Vec::new();
    let mut make_view_mut = Vec::new();
    let mut make_grad_view = Vec::new();
    let mut make_view_used = Vec::new();
    let mut make_view_mut_used = Vec::new();
    let mut make_view_unused = Vec::new();
    let mut devices_used = Vec::new();
    let mut handles = Vec::new();
    let mut packs = Vec::new();
    let mut grad_packs = Vec::new();
    let mut devices = Vec::new();
    for (i, ((fname, ty), fid)) in def.fields.iter().zip(fids).enumerate() {
        let i = i as u32;
        let vt = weft_ir::emit_rust::rust_type(ty);
        view_fields.push(quote!(pub #fid: #vt));
        let label = format!("{name}.{fname}");
        match ty {
            Type::Array { .. } => {
                make_view.push(quote!(#fid: { let (v, g) = self.#fid.view(kernel, #label)?; guards.push(g); v }));
                make_view_mut.push(quote!(#fid: { let (v, g) = self.#fid.view_mut(kernel, #label)?; guards.push(g); v }));
                make_grad_view.push(quote!(#fid: { let (v, g) = self.#fid.grad_view(kernel, #label)?; guards.push(g); v }));
                handles.push(quote!(#fid: self.#fid.share()));
                packs.push(quote!(self.#fid.pack_cuda(write, kernel, #label, b)?;));
                grad_packs.push(quote!(self.#fid.pack_cuda_grad(kernel, #label, b)?;));
                devices.push(quote!(out.push((#label, self.#fid.device()));));
                make_view_used.push(quote!(#fid: if used.whole(#i) {
                    let (v, g) = self.#fid.view(kernel, #label)?; guards.push(g); v
                } else {
                    #rt::KernelZero::zero()
                }));
                make_view_mut_used.push(quote!(#fid: if used.whole(#i) {
                    let (v, g) = self.#fid.view_mut(kernel, #label)?; guards.push(g); v
                } else {
                    #rt::KernelZero::zero()
                }));
                make_view_unused.push(quote!(#fid: #rt::KernelZero::zero()));
                devices_used
                    .push(quote!(if used.whole(#i) { out.push((#label, self.#fid.device())); }));
            }
            Type::Struct(_) => {
                make_view.push(
                    quote!(#fid: #rt::KernelStruct::view(&self.#fid, kernel, #label, guards)?),
                );
                make_view_mut.push(quote!(#fid: #rt::KernelStruct::view_mut(&mut self.#fid, kernel, #label, guards)?));
                make_grad_view.push(
                    quote!(#fid: #rt::KernelStruct::grad_view(&self.#fid, kernel, #label, guards)?),
                );
                handles.push(quote!(#fid: #rt::KernelStruct::share(&self.#fid)));
                packs.push(
                    quote!(#rt::KernelStruct::pack_cuda(&self.#fid, write, kernel, #label, b)?;),
                );
                grad_packs.push(
                    quote!(#rt::KernelStruct::pack_cuda_grad(&self.#fid, kernel, #label, b)?;),
                );
                devices.push(quote!(#rt::KernelStruct::devices(&self.#fid, out);));
                make_view_used.push(quote!(#fid: if used.whole(#i) {
                    #rt::KernelStruct::view(&self.#fid, kernel, #label, guards)?
                } else if let ::core::option::Option::Some(u) = used.part(#i) {
                    #rt::KernelStruct::view_used(&self.#fid, kernel, #label, guards, u)?
                } else {
                    #rt::KernelStruct::view_unused(&self.#fid)
                }));
                make_view_mut_used.push(quote!(#fid: if used.whole(#i) {
                    #rt::KernelStruct::view_mut(&mut self.#fid, kernel, #label, guards)?
                } else if let ::core::option::Option::Some(u) = used.part(#i) {
                    #rt::KernelStruct::view_mut_used(&mut self.#fid, kernel, #label, guards, u)?
                } else {
                    #rt::KernelStruct::view_unused(&self.#fid)
                }));
                make_view_unused.push(quote!(#fid: #rt::KernelStruct::view_unused(&self.#fid)));
                devices_used.push(quote!(if used.whole(#i) {
                    #rt::KernelStruct::devices(&self.#fid, out);
                } else if let ::core::option::Option::Some(u) = used.part(#i) {
                    #rt::KernelStruct::devices_used(&self.#fid, out, u);
                }));
            }
            _ => {
                make_view_used.push(quote!(#fid: self.#fid));
                make_view_mut_used.push(quote!(#fid: self.#fid));
                make_view_unused.push(quote!(#fid: self.#fid));
                make_view.push(quote!(#fid: self.#fid));
                make_view_mut.push(quote!(#fid: self.#fid));
                make_grad_view.push(quote!(#fid: self.#fid));
                handles.push(quote!(#fid: self.#fid));
                packs.push(quote!(#rt::pack::PackArg::pack(&self.#fid, b);));
                grad_packs.push(quote!(#rt::pack::PackArg::pack(&self.#fid, b);));
            }
        }
    }
    let doc = format!("The kernel-side view of [`{name}`]: its arrays as array views.");
    quote! {
        #(#attrs)*
        #[derive(Clone, Debug)]
        #vis struct #name { #(#host_fields),* }

        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy)]
        #vis struct #view_name { #(#view_fields),* }

        impl #rt::KernelZero for #view_name {
            #[inline(always)]
            fn zero() -> Self {
                #view_name { #(#fids: #rt::KernelZero::zero()),* }
            }
        }

        impl #rt::KernelStruct for #name {
            type View = #view_name;
            fn view(
                &self,
                kernel: &'static str,
                _param: &'static str,
                guards: &mut ::std::vec::Vec<#rt::BorrowGuard>,
            ) -> ::core::result::Result<#view_name, #rt::Error> {
                Ok(#view_name { #(#make_view),* })
            }
            fn view_mut(
                &mut self,
                kernel: &'static str,
                _param: &'static str,
                guards: &mut ::std::vec::Vec<#rt::BorrowGuard>,
            ) -> ::core::result::Result<#view_name, #rt::Error> {
                Ok(#view_name { #(#make_view_mut),* })
            }
            fn view_used(
                &self,
                kernel: &'static str,
                _param: &'static str,
                guards: &mut ::std::vec::Vec<#rt::BorrowGuard>,
                used: &#rt::Used,
            ) -> ::core::result::Result<#view_name, #rt::Error> {
                let _ = used;
                Ok(#view_name { #(#make_view_used),* })
            }
            fn view_mut_used(
                &mut self,
                kernel: &'static str,
                _param: &'static str,
                guards: &mut ::std::vec::Vec<#rt::BorrowGuard>,
                used: &#rt::Used,
            ) -> ::core::result::Result<#view_name, #rt::Error> {
                let _ = used;
                Ok(#view_name { #(#make_view_mut_used),* })
            }
            fn view_unused(&self) -> #view_name {
                #view_name { #(#make_view_unused),* }
            }
            fn devices_used(
                &self,
                out: &mut ::std::vec::Vec<(&'static str, #rt::Device)>,
                used: &#rt::Used,
            ) {
                let _ = used;
                #(#devices_used)*
            }
            fn grad_view(
                &self,
                kernel: &'static str,
                _param: &'static str,
                guards: &mut ::std::vec::Vec<::core::option::Option<#rt::BorrowGuard>>,
            ) -> ::core::result::Result<#view_name, #rt::Error> {
                Ok(#view_name { #(#make_grad_view),* })
            }
            fn share(&self) -> Self {
                #name { #(#handles),* }
            }
            fn pack_cuda(
                &self,
                write: bool,
                kernel: &'static str,
                _param: &'static str,
                b: &mut #rt::pack::ArgBuf,
            ) -> ::core::result::Result<(), #rt::Error> {
                #(#packs)*
                Ok(())
            }
            fn pack_cuda_grad(
                &self,
                kernel: &'static str,
                _param: &'static str,
                b: &mut #rt::pack::ArgBuf,
            ) -> ::core::result::Result<(), #rt::Error> {
                #(#grad_packs)*
                Ok(())
            }
            fn holds_arrays() -> bool {
                true
            }
            fn devices(&self, out: &mut ::std::vec::Vec<(&'static str, #rt::Device)>) {
                #(#devices)*
            }
        }

        #export
    }
}
