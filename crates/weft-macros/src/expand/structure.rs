//! `#[structure]`: a struct usable in kernels. One of plain data is `repr(C)`
//! and `Copy`, and kernels see it as it is; one holding arrays gets a view struct
//! ([`super::structure_arrays`]).

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use weft_ir::{Env, Error, Type};

use super::{Site, parse_target, structure_arrays};
use crate::chain::{Def, export_macro};
use crate::env::build_env;
use crate::names;

/// Expands a structure.
pub fn expand(site: &Site) -> Result<TokenStream, Error> {
    let s: syn::ItemStruct = parse_target(site.target)?;
    let env = build_env(&site.parsed, Some(&s))?;
    let own = s.ident.to_string();
    let paths = names::struct_paths(site.defs, Some(&own), &site.rt);
    let named = names::named_impls(
        &site.rt,
        &s.ident,
        Some(&own),
        &[Type::Struct(own.clone())],
        &env,
        &site.parsed,
        Some(&s),
        &paths,
    );
    let item = site.emit(paths, || emit(&env, &s, site.defs, site.target, &site.rt));
    Ok(quote!(#item #named))
}

/// A structure as native Rust: the struct, its kernel traits and its export macro.
fn emit(
    env: &Env,
    s: &syn::ItemStruct,
    defs: &[Def],
    target: &Def,
    rt: &TokenStream,
) -> TokenStream {
    let name = &s.ident;
    let vis = &s.vis;
    let attrs = &s.attrs;
    let def = &env.structs[&name.to_string()];
    let fields: Vec<_> = def
        .fields
        .iter()
        .zip(match &s.fields {
            syn::Fields::Named(n) => n.named.iter().collect::<Vec<_>>(),
            _ => vec![],
        })
        .map(|((fname, ty), f)| {
            let fid = format_ident!("{}", fname);
            let fvis = &f.vis;
            let fattrs = &f.attrs;
            let _ = ty;
            let t = &f.ty;
            let decl = quote!(#(#fattrs)* #fvis #fid: #t);
            (fid, decl, quote!(#t))
        })
        .collect();
    let decls = fields.iter().map(|(_, d, _)| d);
    let fids: Vec<_> = fields.iter().map(|(f, _, _)| f.clone()).collect();
    let ftys: Vec<_> = fields.iter().map(|(_, _, t)| t.clone()).collect();
    let mut all = vec![target.clone()];
    all.extend(defs.iter().cloned());
    let export = export_macro(name, vis, &all);
    if weft_ir::builder::struct_has_arrays(&env.structs, &name.to_string()) {
        return structure_arrays::emit(env, s, &fids, export, rt);
    }
    let pack_fields: Vec<TokenStream> = def
        .fields
        .iter()
        .zip(&fids)
        .map(|((_, t), fid)| match t {
            Type::Struct(_) => {
                quote!(#rt::KernelStruct::pack_cuda(&self.#fid, false, _kernel, _param, b)?;)
            }
            _ => quote!(#rt::pack::PackArg::pack(&self.#fid, b);),
        })
        .collect();
    quote! {
        #(#attrs)*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq)]
        #vis struct #name { #(#decls),* }

        const _: () = {
            fn __assert_zeroable<T: #rt::bytemuck::Zeroable>() {}
            fn __assert_fields() { #(__assert_zeroable::<#ftys>();)* }
        };

        // SAFETY: every field is `Zeroable` (checked above), and `repr(C)`.
        unsafe impl #rt::bytemuck::Zeroable for #name {}

        // SAFETY: reads and writes go field by field through the fields' own `Elem`.
        unsafe impl #rt::Elem for #name {
            #[inline(always)]
            unsafe fn read(p: *const Self) -> Self {
                unsafe { #name { #(#fids: <#ftys as #rt::Elem>::read(::core::ptr::addr_of!((*p).#fids))),* } }
            }
            #[inline(always)]
            unsafe fn write(p: *mut Self, v: Self) {
                unsafe { #(<#ftys as #rt::Elem>::write(::core::ptr::addr_of_mut!((*p).#fids), v.#fids);)* }
            }
            const FLOATS: bool = false #(|| <#ftys as #rt::Elem>::FLOATS)*;
            #[inline]
            fn non_finite(&self) -> ::core::option::Option<f64> {
                ::core::option::Option::None #(.or_else(|| <#ftys as #rt::Elem>::non_finite(&self.#fids)))*
            }
        }

        impl #rt::KernelZero for #name {
            #[inline(always)]
            fn zero() -> Self {
                <#name as #rt::bytemuck::Zeroable>::zeroed()
            }
            #[inline(always)]
            fn adj_zero() -> Self {
                #name { #(#fids: <#ftys as #rt::KernelZero>::adj_zero()),* }
            }
        }

        // Adjoints of structure values: field by field (integer and boolean fields
        // carry none and keep the first value).
        impl #rt::Accum for #name {
            #[inline(always)]
            fn accum(a: Self, b: Self) -> Self {
                #name { #(#fids: <#ftys as #rt::Accum>::accum(a.#fids, b.#fids)),* }
            }
        }

        impl #rt::KernelStruct for #name {
            type View = #name;
            #[inline]
            fn view(
                &self,
                _kernel: &'static str,
                _param: &'static str,
                _guards: &mut ::std::vec::Vec<#rt::BorrowGuard>,
            ) -> ::core::result::Result<Self, #rt::Error> {
                Ok(*self)
            }
            #[inline]
            fn view_unused(&self) -> Self {
                *self
            }
            #[inline]
            fn share(&self) -> Self {
                *self
            }
            fn pack_cuda(
                &self,
                _write: bool,
                _kernel: &'static str,
                _param: &'static str,
                b: &mut #rt::pack::ArgBuf,
            ) -> ::core::result::Result<(), #rt::Error> {
                #(#pack_fields)*
                Ok(())
            }
        }

        #export
    }
}
