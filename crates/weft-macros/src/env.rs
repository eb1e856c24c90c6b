//! The environment an item is typed in: the structures and func signatures of its
//! definitions, and its own signature.

use syn::spanned::Spanned;
use weft_ir::{Env, Error, FuncSig, Param, StructDef, Type};

use crate::chain::Def;
use crate::types::lower_type;

/// Builds the environment (structs and func signatures) from definitions.
pub fn build_env(defs: &[(Def, syn::Item)], also: Option<&syn::ItemStruct>) -> Result<Env, Error> {
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

/// The parameters and result type of `sig`, checked against the language.
pub fn signature(env: &Env, sig: &syn::Signature) -> Result<(Vec<Param>, Type), Error> {
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
