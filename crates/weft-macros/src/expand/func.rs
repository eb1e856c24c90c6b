//! `#[func]`: a plain Rust function, its adjoint, and the export macro that lets
//! kernels elsewhere fetch its definition.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use weft_ir::emit_rust::{Inlining, emit_func};
use weft_ir::{Error, FnKind, Type};

use super::{Site, parse_target};
use crate::chain::{Def, export_macro};
use crate::defs::CUSTOM_ADJOINT_MARK;
use crate::env::build_env;
use crate::infer::lower_fn;
use crate::names;

/// Expands a func.
pub fn expand(site: &Site) -> Result<TokenStream, Error> {
    let f: syn::ItemFn = parse_target(site.target)?;
    let mut env = build_env(&site.parsed, None)?;
    let name = f.sig.ident.to_string();
    if weft_ir::builtins::doc(&name).is_some()
        || matches!(
            name.as_str(),
            "tid" | "unroll" | "atomic_add" | "atomic_sub" | "atomic_min" | "atomic_max"
        )
    {
        return Err(Error::new(
            f.sig.ident.span(),
            format!("`{name}` is a builtin of the kernel language; give this func another name"),
        ));
    }
    // The adjoint hands back one gradient per parameter as a tuple, and
    // tuples hold at most `MAX_TUPLE` values.
    if let Some(extra) = f.sig.inputs.iter().nth(weft_ir::MAX_TUPLE) {
        return Err(Error::new(
            syn::spanned::Spanned::span(extra),
            format!(
                "a func takes at most {} parameters (its adjoint returns one gradient per parameter, as a tuple); `{name}` has {}: group some into a `#[weft::structure]`",
                weft_ir::MAX_TUPLE,
                f.sig.inputs.len()
            ),
        ));
    }
    // Recursion is not supported: a func does not see itself.
    env.funcs.remove(&name);
    let ir = lower_fn(&env, &f, FnKind::Func)?;
    let mut types: Vec<Type> = ir.params.iter().map(|p| p.ty.clone()).collect();
    types.push(ir.ret.clone());
    let paths = names::struct_paths(site.defs, None, &site.rt);
    let named = names::named_impls(
        &site.rt,
        &f.sig.ident,
        None,
        &types,
        &env,
        &site.parsed,
        None,
        &paths,
    );
    let item = site.emit(paths, || {
        emit(&f, &ir, site.defs, site.target, site.args.adjoint.as_ref())
    });
    Ok(quote!(#item #named))
}

/// A func as native Rust: the function, a hidden struct of the same name carrying
/// its adjoint (`name::adjoint`), and its export macro.
fn emit(
    f: &syn::ItemFn,
    ir: &weft_ir::Function,
    defs: &[Def],
    target: &Def,
    custom: Option<&syn::Path>,
) -> TokenStream {
    let attrs: Vec<_> = f
        .attrs
        .iter()
        .filter(|a| !a.path().is_ident(CUSTOM_ADJOINT_MARK))
        .collect();
    let vis_tokens = {
        let v = &f.vis;
        quote!(#v)
    };
    let written_params = f
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
    let written_ret = match &f.sig.output {
        syn::ReturnType::Default => quote!(()),
        syn::ReturnType::Type(_, t) => quote!(#t),
    };
    let native = emit_func(
        ir,
        &vis_tokens,
        Some((written_params, written_ret)),
        Inlining::Always,
    );
    let adj = weft_ir::autodiff::adjoint(ir);
    let mut adj_fn = adj.function;
    adj_fn.name = "adjoint".into();
    let adj_native = match custom {
        None => emit_func(&adj_fn, &vis_tokens, None, Inlining::Hint),
        Some(path) => {
            // Same signature as the generated adjoint; the body calls the user's.
            let params: Vec<_> = adj_fn
                .params
                .iter()
                .map(|p| {
                    let n = format_ident!("{}", p.name);
                    let t = weft_ir::emit_rust::rust_type(&p.ty);
                    (quote!(#n: #t), n)
                })
                .collect();
            let decls = params.iter().map(|(d, _)| d);
            let names = params.iter().map(|(_, n)| n);
            let ret = weft_ir::emit_rust::rust_type(&adj_fn.ret);
            quote! {
                #[inline]
                #vis_tokens fn adjoint(#(#decls),*) -> #ret {
                    #path(#(#names),*)
                }
            }
        }
    };
    let fname = &f.sig.ident;
    let vis = &f.vis;
    let mut target = target.clone();
    if custom.is_some() {
        // Kernels that call this func must not second-guess its adjoint.
        let mark = format_ident!("{}", CUSTOM_ADJOINT_MARK);
        let item = &target.item;
        target.item = quote!(#[#mark] #item);
    }
    let target = &target;
    let mut all = vec![target.clone()];
    all.extend(defs.iter().cloned());
    let export = export_macro(&f.sig.ident, &f.vis, &all);
    quote! {
        #(#attrs)*
        #native
        // The func's adjoint, reached as `name::adjoint` through the type namespace,
        // so importing the func imports its adjoint too.
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #fname {}
        impl #fname {
            #[doc(hidden)]
            #adj_native
        }
        #export
    }
}
