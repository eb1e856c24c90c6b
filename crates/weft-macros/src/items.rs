//! Expansion of kernels, funcs and structs once their dependencies are known.

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use weft_ir::emit_rust::{Paths, emit_func, emit_kernel_body, host_type, with_paths};
use weft_ir::{Access, Builder, Env, Error, FnKind, FuncSig, Param, StructDef, Type};

use crate::args::Args;
use crate::chain::{ChainInput, Def, Kind, export_macro, invoke_next};
use crate::deps;
use crate::lower::Lower;
use crate::names;
use crate::types::lower_type;

fn to_compile_error(e: Error) -> TokenStream {
    syn::Error::new(e.span, e.message).to_compile_error()
}

/// Entry point of the three attributes.
pub fn entry(kind: Kind, attr: TokenStream, item: TokenStream) -> TokenStream {
    let target = Def {
        kind,
        item,
        via: None,
    };
    let deps = match kind {
        Kind::Struct => match syn::parse2::<syn::ItemStruct>(target.item.clone()) {
            Ok(s) => deps::of_struct(&s),
            Err(e) => return e.to_compile_error(),
        },
        _ => match syn::parse2::<syn::ItemFn>(target.item.clone()) {
            Ok(f) => deps::of_fn(&f),
            Err(e) => return e.to_compile_error(),
        },
    };
    if deps.is_empty() {
        expand(&[], &target, &attr)
    } else {
        invoke_next(&[], deps, &target, &attr, &runtime(kind, &attr))
    }
}

/// The runtime path of an item with attribute arguments `attr` (the default one
/// when they are wrong: the error is reported once the item is expanded).
fn runtime(kind: Kind, attr: &TokenStream) -> TokenStream {
    Args::parse(kind, attr).unwrap_or_default().runtime()
}

/// One step of the dependency chain.
pub fn chain_step(input: ChainInput) -> TokenStream {
    if input.pending.is_empty() {
        expand(&input.defs, &input.target, &input.attr)
    } else {
        let rt = runtime(input.target.kind, &input.attr);
        invoke_next(&input.defs, input.pending, &input.target, &input.attr, &rt)
    }
}

/// Deduplicates definitions by name; two different items with one name are an error.
fn dedup(defs: &[Def]) -> Result<Vec<(Def, syn::Item)>, Error> {
    let mut seen: HashMap<String, String> = HashMap::new();
    let mut out = Vec::new();
    for d in defs {
        let item: syn::Item =
            syn::parse2(d.item.clone()).map_err(|e| Error::new(e.span(), e.to_string()))?;
        let (name, span) = match &item {
            syn::Item::Fn(f) => (f.sig.ident.to_string(), f.sig.ident.span()),
            syn::Item::Struct(s) => (s.ident.to_string(), s.ident.span()),
            other => {
                return Err(Error::new(
                    other.span(),
                    "internal: unexpected item in weft definitions",
                ));
            }
        };
        let text = without_docs(&item);
        match seen.get(&name) {
            Some(t) if *t == text => continue,
            Some(_) => {
                return Err(Error::new(
                    span,
                    format!(
                        "two different weft items named `{name}` are used together; rename one"
                    ),
                ));
            }
            None => {
                seen.insert(name, text);
                out.push((d.clone(), item));
            }
        }
    }
    Ok(out)
}

/// An item's tokens without doc comments (which can come back from a
/// `macro_rules!` round trip spelled differently).
fn without_docs(item: &syn::Item) -> String {
    let mut item = item.clone();
    let not_doc = |a: &syn::Attribute| !a.path().is_ident("doc");
    match &mut item {
        syn::Item::Fn(f) => f.attrs.retain(not_doc),
        syn::Item::Struct(s) => {
            s.attrs.retain(not_doc);
            for field in s.fields.iter_mut() {
                field.attrs.retain(not_doc);
            }
        }
        _ => {}
    }
    quote!(#item).to_string()
}

/// Builds the environment (structs and func signatures) from definitions.
fn build_env(defs: &[(Def, syn::Item)], also: Option<&syn::ItemStruct>) -> Result<Env, Error> {
    let mut env = Env::default();
    let structs: Vec<&syn::ItemStruct> = defs
        .iter()
        .filter_map(|(_, i)| {
            if let syn::Item::Struct(s) = i {
                Some(s)
            } else {
                None
            }
        })
        .chain(also)
        .collect();
    // Register names first so fields may refer to other structs.
    for s in &structs {
        env.structs.insert(
            s.ident.to_string(),
            StructDef {
                name: s.ident.to_string(),
                fields: vec![],
            },
        );
    }
    for s in &structs {
        let fields = struct_fields(&env, s)?;
        env.structs
            .get_mut(&s.ident.to_string())
            .expect("registered")
            .fields = fields;
    }
    for (_, i) in defs {
        if let syn::Item::Fn(f) = i {
            let (params, ret) = signature(&env, &f.sig)?;
            env.funcs.insert(
                f.sig.ident.to_string(),
                FuncSig {
                    name: f.sig.ident.to_string(),
                    writable: params.iter().map(|p| p.writable).collect(),
                    params: params.into_iter().map(|p| (p.name, p.ty)).collect(),
                    ret,
                },
            );
        }
    }
    Ok(env)
}

fn struct_fields(env: &Env, s: &syn::ItemStruct) -> Result<Vec<(String, Type)>, Error> {
    let syn::Fields::Named(named) = &s.fields else {
        return Err(Error::new(
            s.span(),
            "kernel structs need named fields: `struct S { a: f32 }`",
        ));
    };
    if !s.generics.params.is_empty() {
        return Err(Error::new(
            s.generics.span(),
            "kernel structs cannot be generic",
        ));
    }
    named
        .named
        .iter()
        .map(|f| {
            let t = lower_type(env, &f.ty, false)?;
            if matches!(t, Type::Tuple(_) | Type::Unit) {
                return Err(Error::new(
                    f.ty.span(),
                    format!("struct fields cannot have type `{t}`"),
                ));
            }
            Ok((f.ident.as_ref().expect("named").to_string(), t))
        })
        .collect()
}

fn signature(env: &Env, sig: &syn::Signature) -> Result<(Vec<Param>, Type), Error> {
    if let Some(a) = &sig.asyncness {
        return Err(Error::new(a.span(), "kernels and funcs cannot be `async`"));
    }
    if let syn::Safety::Unsafe(u) = &sig.safety {
        return Err(Error::new(u.span(), "kernels and funcs cannot be `unsafe`"));
    }
    if !sig.generics.params.is_empty() {
        return Err(Error::new(
            sig.generics.span(),
            "kernels and funcs cannot be generic",
        ));
    }
    let mut params = Vec::new();
    for a in &sig.inputs {
        let syn::FnArg::Typed(pt) = a else {
            return Err(Error::new(a.span(), "`self` parameters are not supported"));
        };
        let syn::Pat::Ident(pi) = &*pt.pat else {
            return Err(Error::new(pt.pat.span(), "parameters must be plain names"));
        };
        let ty = lower_type(env, &pt.ty, true)?;
        let writable = matches!(&*pt.ty, syn::Type::Reference(r) if r.mutability.is_some());
        params.push(Param {
            name: pi.ident.to_string(),
            ty,
            span: pi.ident.span(),
            writable,
        });
    }
    let ret = match &sig.output {
        syn::ReturnType::Default => Type::Unit,
        syn::ReturnType::Type(_, t) => lower_type(env, t, false)?,
    };
    Ok((params, ret))
}

/// Lowers a fn item to IR.
fn lower_fn(env: &Env, f: &syn::ItemFn, kind: FnKind) -> Result<weft_ir::Function, Error> {
    let (params, ret) = signature(env, &f.sig)?;
    if kind == FnKind::Kernel && ret != Type::Unit {
        return Err(Error::new(
            f.sig.output.span(),
            "kernels return nothing; write results into `&mut Array` parameters",
        ));
    }
    let mutable: Vec<(usize, Span)> = f
        .sig
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            syn::FnArg::Typed(pt) => match &*pt.pat {
                syn::Pat::Ident(pi) if pi.mutability.is_some() => Some((i, pi.span())),
                _ => None,
            },
            _ => None,
        })
        .collect();
    // Local type inference for `let mut x = 0.0;`: when such a variable meets a
    // value of another float (or integer) type, lower again with the literal typed
    // accordingly, as rustc's inference would have.
    let mut hints = std::collections::HashMap::new();
    for _attempt in 0..16 {
        let mut b = Builder::new(
            env,
            &f.sig.ident.to_string(),
            kind,
            params.clone(),
            ret.clone(),
        );
        b.set_hints(hints.clone());
        let mut l = Lower::new(b);
        let attempt = (|| {
            for (i, span) in &mutable {
                l.make_param_mutable(*i, *span)?;
            }
            let tail = l.body(&f.block)?;
            if let Some(v) = tail {
                let span = l.b.span(v);
                l.b.push_return(Some(v), span)?;
            }
            Ok(())
        })();
        match attempt {
            Ok(()) => return l.b.finish(f.sig.ident.span()),
            Err(Error {
                retype: Some((key, s)),
                ..
            }) if !hints.contains_key(&key) => {
                hints.insert(key, s);
            }
            Err(e) => return Err(e),
        }
    }
    Err(Error::new(
        f.sig.ident.span(),
        "internal: type inference did not settle",
    ))
}

fn expand(defs: &[Def], target: &Def, attr: &TokenStream) -> TokenStream {
    match try_expand(defs, target, attr) {
        Ok(t) => {
            // `WEFT_DUMP=name cargo build` prints the code generated for item `name`.
            if let Ok(want) = std::env::var("WEFT_DUMP")
                && let Ok(item) = syn::parse2::<syn::Item>(target.item.clone())
            {
                let name = match &item {
                    syn::Item::Fn(f) => f.sig.ident.to_string(),
                    syn::Item::Struct(s) => s.ident.to_string(),
                    _ => String::new(),
                };
                if want == name {
                    eprintln!("// weft: generated code for `{name}`\n{t}");
                }
            }
            t
        }
        Err(e) => {
            let err = to_compile_error(e);
            let stub = stub(defs, target, &runtime(target.kind, attr));
            quote!(#err #stub)
        }
    }
}

/// After an error, a stand-in with the item's signature (when the signature itself is
/// fine), so the user sees the one real error rather than a cascade of "cannot find
/// `launch`" and "unused import" messages.
fn stub(defs: &[Def], target: &Def, rt: &TokenStream) -> TokenStream {
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

/// Marks a func definition (as carried to kernels) whose adjoint the user wrote.
const CUSTOM_ADJOINT_MARK: &str = "weft_custom_adjoint";

fn try_expand(defs: &[Def], target: &Def, attr: &TokenStream) -> Result<TokenStream, Error> {
    let args = Args::parse(target.kind, attr)?;
    let custom = args.adjoint.clone();
    let rt = args.runtime();
    let emit = |structs, f: &dyn Fn() -> TokenStream| {
        let paths = Paths {
            runtime: Some(rt.clone()),
            structs,
        };
        with_paths(paths, f)
    };
    let defs_parsed = dedup(defs)?;
    match target.kind {
        Kind::Struct => {
            let s: syn::ItemStruct = syn::parse2(target.item.clone())
                .map_err(|e| Error::new(e.span(), e.to_string()))?;
            let env = build_env(&defs_parsed, Some(&s))?;
            let own = s.ident.to_string();
            let paths = names::struct_paths(defs, Some(&own), &rt);
            let named = names::named_impls(
                &rt,
                &s.ident,
                Some(&own),
                &[Type::Struct(own.clone())],
                &env,
                &defs_parsed,
                Some(&s),
                &paths,
            );
            let item = emit(paths, &|| expand_struct(&env, &s, defs, target, &rt));
            Ok(quote!(#item #named))
        }
        Kind::Func | Kind::Kernel => {
            let f: syn::ItemFn = syn::parse2(target.item.clone())
                .map_err(|e| Error::new(e.span(), e.to_string()))?;
            let mut env = build_env(&defs_parsed, None)?;
            let paths = names::struct_paths(defs, None, &rt);
            if target.kind == Kind::Func {
                let name = f.sig.ident.to_string();
                if weft_ir::builtins::doc(&name).is_some()
                    || matches!(
                        name.as_str(),
                        "tid"
                            | "unroll"
                            | "atomic_add"
                            | "atomic_sub"
                            | "atomic_min"
                            | "atomic_max"
                    )
                {
                    return Err(Error::new(
                        f.sig.ident.span(),
                        format!(
                            "`{name}` is a builtin of the kernel language; give this func another name"
                        ),
                    ));
                }
                // Recursion is not supported: a func does not see itself.
                env.funcs.remove(&f.sig.ident.to_string());
                let ir = lower_fn(&env, &f, FnKind::Func)?;
                let mut types: Vec<Type> = ir.params.iter().map(|p| p.ty.clone()).collect();
                types.push(ir.ret.clone());
                let named = names::named_impls(
                    &rt,
                    &f.sig.ident,
                    None,
                    &types,
                    &env,
                    &defs_parsed,
                    None,
                    &paths,
                );
                let item = emit(paths, &|| {
                    expand_func(&f, &ir, defs, target, custom.as_ref())
                });
                Ok(quote!(#item #named))
            } else {
                let ir = lower_fn(&env, &f, FnKind::Kernel)?;
                let funcs = dep_funcs(&env, &defs_parsed)?;
                let adj = weft_ir::autodiff::adjoint_with(&ir, &|n| func_accesses(&funcs, n));
                let func_blockers = func_adjoint_blockers(&funcs, &adj);
                let math = math_funcs();
                let ptx = crate::ptx::constants(&ir, &adj.function, &[&funcs, &math]);
                let fma = uses_fma(&ir, &funcs);
                let accesses =
                    weft_ir::access::array_accesses_with(&ir, &|n| func_accesses(&funcs, n));
                Ok(emit(paths, &|| {
                    expand_kernel(&f, &ir, &adj, &accesses, &func_blockers, &ptx, fma, &rt)
                }))
            }
        }
    }
}

fn expand_func(
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
    let native = emit_func(ir, &vis_tokens, Some((written_params, written_ret)));
    let adj = weft_ir::autodiff::adjoint(ir);
    let mut adj_fn = adj.function;
    adj_fn.name = "adjoint".into();
    let adj_native = match custom {
        None => emit_func(&adj_fn, &vis_tokens, None),
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

/// The funcs a kernel may call, lowered to IR, by name (funcs with a user-supplied
/// adjoint excluded: their derivative is Rust code).
fn dep_funcs(
    env: &Env,
    defs: &[(Def, syn::Item)],
) -> Result<HashMap<String, weft_ir::Function>, Error> {
    let mut funcs = HashMap::new();
    for (_, item) in defs {
        if let syn::Item::Fn(f) = item {
            if f.attrs
                .iter()
                .any(|a| a.path().is_ident(CUSTOM_ADJOINT_MARK))
            {
                continue;
            }
            let mut env = env.clone();
            env.funcs.remove(&f.sig.ident.to_string());
            funcs.insert(f.sig.ident.to_string(), lower_fn(&env, f, FnKind::Func)?);
        }
    }
    Ok(funcs)
}

/// The kernel-language versions of the elementary functions (`weft_math::dsl`),
/// lowered to IR once per compilation, for the PTX emitter.
pub fn math_funcs() -> std::rc::Rc<HashMap<String, weft_ir::Function>> {
    thread_local! {
        static FUNCS: std::cell::OnceCell<std::rc::Rc<HashMap<String, weft_ir::Function>>> =
            const { std::cell::OnceCell::new() };
    }
    FUNCS.with(|c| {
        c.get_or_init(|| std::rc::Rc::new(lower_math_funcs()))
            .clone()
    })
}

fn lower_math_funcs() -> HashMap<String, weft_ir::Function> {
    {
        let mut out = HashMap::new();
        for src in [weft_math::dsl::F32, weft_math::dsl::F64] {
            let Ok(file) = syn::parse_file(src) else {
                continue;
            };
            let defs: Vec<(Def, syn::Item)> = file
                .items
                .into_iter()
                .filter_map(|item| match item {
                    syn::Item::Fn(mut f) => {
                        f.attrs
                            .retain(|a| a.path().segments.last().is_none_or(|s| s.ident != "func"));
                        let tokens = quote!(#f);
                        Some((
                            Def {
                                kind: Kind::Func,
                                item: tokens,
                                via: None,
                            },
                            syn::Item::Fn(f),
                        ))
                    }
                    _ => None,
                })
                .collect();
            let Ok(env) = build_env(&defs, None) else {
                continue;
            };
            if let Ok(funcs) = dep_funcs(&env, &defs) {
                out.extend(funcs);
            }
        }
        out
    }
}

/// Why the adjoints of the funcs a kernel calls (directly or through other funcs)
/// would be wrong, prefixed with the func's name: the funcs whose adjoints matter
/// to it ([`weft_ir::autodiff::Adjoint::calls`]), and theirs in turn.
///
/// Also where gradient would be lost between them: a null gradient array handed
/// to a func that differentiates through the array
/// ([`weft_ir::autodiff::lost_gradients`]).
fn func_adjoint_blockers(
    funcs: &HashMap<String, weft_ir::Function>,
    kernel: &weft_ir::autodiff::Adjoint,
) -> Vec<String> {
    let cache = std::cell::RefCell::new(HashMap::new());
    let adjoint_of = |name: &str| {
        if let Some(a) = cache.borrow().get(name) {
            return Some(Clone::clone(a));
        }
        let a = weft_ir::autodiff::adjoint_with(funcs.get(name)?, &|n| func_accesses(funcs, n));
        cache.borrow_mut().insert(name.to_string(), a.clone());
        Some(a)
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut todo: Vec<String> = kernel.calls.clone();
    todo.extend(kernel.handed.iter().map(|h| h.func.clone()));
    let mut out = Vec::new();
    while let Some(name) = todo.pop() {
        if !seen.insert(name.clone()) {
            continue;
        }
        if let Some(adj) = adjoint_of(&name) {
            for b in adj.blockers {
                out.push(format!("func `{name}`: {b}"));
            }
            todo.extend(adj.calls);
            todo.extend(adj.handed.iter().map(|h| h.func.clone()));
        }
    }
    out.extend(weft_ir::autodiff::lost_gradients(kernel, &adjoint_of));
    out
}

/// Whether kernel `f`, or a func it calls (directly or through others), uses the
/// `fma` builtin.
fn uses_fma(f: &weft_ir::Function, funcs: &HashMap<String, weft_ir::Function>) -> bool {
    use weft_ir::{Block, Expr, Stmt};
    fn walk(b: &Block, calls: &mut Vec<String>) -> bool {
        b.0.iter().any(|s| match s {
            Stmt::Def(_, Expr::Builtin("fma", _)) => true,
            Stmt::Def(_, Expr::Call { name, .. }) => {
                calls.push(name.clone());
                false
            }
            Stmt::If(_, a, c) => walk(a, calls) | walk(c, calls),
            Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(body, calls),
            Stmt::While(c, _, body) => walk(c, calls) | walk(body, calls),
            _ => false,
        })
    }
    let mut seen = std::collections::BTreeSet::new();
    let mut todo = Vec::new();
    if walk(&f.body, &mut todo) {
        return true;
    }
    while let Some(name) = todo.pop() {
        if seen.insert(name.clone())
            && let Some(g) = funcs.get(&name)
            && walk(&g.body, &mut todo)
        {
            return true;
        }
    }
    false
}

/// The check that a launch grid has the dimensions `tid()` is destructured into.
fn dims_check(ir: &weft_ir::Function, rt: &TokenStream) -> TokenStream {
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
fn fast_arrays(f: &weft_ir::Function) -> Vec<TokenStream> {
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
fn cpu_launch(
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
            #rt::cpu::launch(&dims, &|__range: ::core::ops::Range<usize>| {
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
        #rt::cpu::launch_accumulate(
            &dims,
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
fn target_places(f: &weft_ir::Function) -> Vec<TokenStream> {
    weft_ir::accumulate::accumulate_targets(f)
        .iter()
        .map(|t| {
            let n = format_ident!("{}", f.params[t.source.param].name);
            let fs = t.fields.iter().map(|x| format_ident!("{}", x));
            quote!(#n #(.#fs)*)
        })
        .collect()
}

/// The hidden `__adjoint` launch of a kernel: primal arrays read-only, then one
/// optional gradient array per float array parameter. With the NaN check on, it
/// scans the gradients of the arrays the forward kernel reads (`accesses`): those
/// the adjoint accumulates into.
fn expand_adjoint_launch(
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

/// The arrays func `name` accesses through its parameters (and those of the funcs
/// it calls in turn), or `None` for a func not among `funcs`.
fn func_accesses(
    funcs: &HashMap<String, weft_ir::Function>,
    name: &str,
) -> Option<Vec<weft_ir::access::ArrayAccess>> {
    let f = funcs.get(name)?;
    Some(weft_ir::access::array_accesses_with(f, &|n| {
        func_accesses(funcs, n)
    }))
}

#[allow(clippy::too_many_arguments)]
fn expand_kernel(
    f: &syn::ItemFn,
    ir: &weft_ir::Function,
    adj: &weft_ir::autodiff::Adjoint,
    accesses: &[weft_ir::access::ArrayAccess],
    func_blockers: &[String],
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
    let adjoint_launch = expand_adjoint_launch(ir, adj, accesses, func_blockers, fma, rt);

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
    for (p, w) in ir.params.iter().zip(&written) {
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
                struct_devices.push(quote!(#rt::KernelStruct::devices(&*#n, &mut __devices);));
                if p.writable {
                    views.push(quote!(let #n = #rt::KernelStruct::view_mut(#n, NAME, #pname, &mut __guards)?;));
                } else {
                    views.push(quote!(let #n = #rt::KernelStruct::view(&*#n, NAME, #pname, &mut __guards)?;));
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
    let record = quote! {
        let __reads = ::std::vec![#(#rec_reads),*];
        let __writes = ::std::vec![#(#rec_writes),*];
        let __zero = {
            #(#zero_handles)*
            move || { #(#zeroed.zero_grad();)* }
        };
        #rt::tape::push(#rt::tape::Record {
            kernel: NAME,
            reads: __reads,
            writes: __writes,
            backward: ::std::boxed::Box::new(move || Self::__adjoint(device, dims, #(#adj_args),*)),
            zero: ::std::boxed::Box::new(__zero),
        });
    };
    let doc = format!(
        "Launches kernel `{name_str}` over `dims` (1–4-D grid); array arguments must share one device.\n\n\
         Panics if the kernel indexes an array out of bounds (the message names the kernel, array, index and shape)."
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
                // Outputs of a launch whose inputs carry gradients get gradients too,
                // so the chain of adjoints is never silently cut.
                let __recording = #rt::tape::recording();
                if __recording && (false #(|| #grad_inputs.has_grad())*) {
                    #(#grad_outputs.ensure_grad();)*
                }
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

            #adjoint_launch
        }
    }
}

/// The NaN check of a launch (`weft_runtime::nan_check`): one scan per array of
/// `accesses` that `pick` selects, by its place (`x`, `model.x`) and the name users
/// know it by — of its gradient (`adj_x`) when `grads`.
fn nan_checks(
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

fn written_ty(f: &syn::ItemFn, name: &str) -> Option<syn::Type> {
    f.sig.inputs.iter().find_map(|a| match a {
        syn::FnArg::Typed(pt) => match &*pt.pat {
            syn::Pat::Ident(pi) if pi.ident == name => Some((*pt.ty).clone()),
            _ => None,
        },
        _ => None,
    })
}

fn expand_struct(
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
        return expand_struct_with_arrays(env, s, &fids, export, rt);
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

/// A struct holding arrays: the host struct as written, plus a `Copy` view struct
/// (arrays as `ArrayView`s) that kernels receive.
fn expand_struct_with_arrays(
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
    let mut handles = Vec::new();
    let mut packs = Vec::new();
    let mut grad_packs = Vec::new();
    let mut devices = Vec::new();
    for ((fname, ty), fid) in def.fields.iter().zip(fids) {
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
            }
            _ => {
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
