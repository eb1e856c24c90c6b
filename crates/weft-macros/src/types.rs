//! Kernel-language types from `syn` types.

use syn::spanned::Spanned;
use weft_ir::{Access, Env, Error, Result, Scalar, Type};

/// The last segment of a path as a string.
pub fn last_ident(p: &syn::Path) -> String {
    p.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// Converts a type written in a kernel, func or struct to an IR type.
///
/// `param` allows `&Array<..>` / `&mut Array<..>` and `&S` / `&mut S` (parameters only).
pub fn lower_type(env: &Env, t: &syn::Type, param: bool) -> Result<Type> {
    match t {
        syn::Type::Reference(r) => {
            let access = if r.mutability.is_some() {
                Access::Write
            } else {
                Access::Read
            };
            let inner = lower_type(env, &r.elem, false)?;
            match inner {
                Type::Array { elem, ndim, .. } if param => Ok(Type::Array { elem, ndim, access }),
                Type::Struct(n) if param => Ok(Type::Struct(n)),
                _ if !param => Err(Error::new(
                    t.span(),
                    "references are only allowed on kernel and func parameters (`&Array<T>`, `&mut Array<T>`)",
                )),
                other => Err(Error::new(
                    t.span(),
                    format!(
                        "pass `{other}` by value; only arrays and structs are passed by reference"
                    ),
                )),
            }
        }
        syn::Type::Paren(p) => lower_type(env, &p.elem, param),
        syn::Type::Group(g) => lower_type(env, &g.elem, param),
        syn::Type::Tuple(tt) => {
            if tt.elems.is_empty() {
                return Ok(Type::Unit);
            }
            if tt.elems.len() > weft_ir::MAX_TUPLE {
                return Err(Error::new(
                    t.span(),
                    format!(
                        "a tuple holds at most {} values, this one {}",
                        weft_ir::MAX_TUPLE,
                        tt.elems.len()
                    ),
                ));
            }
            let ts = tt
                .elems
                .iter()
                .map(|e| lower_type(env, e, false))
                .collect::<Result<Vec<_>>>()?;
            Ok(Type::Tuple(ts))
        }
        syn::Type::Path(p) if p.qself.is_none() => {
            let seg = p.path.segments.last().expect("non-empty path");
            let name = seg.ident.to_string();
            if name == "Array" {
                return lower_array(env, seg, t);
            }
            if let Some(b) = Type::from_builtin_name(&name) {
                if !seg.arguments.is_none() {
                    return Err(Error::new(
                        seg.arguments.span(),
                        format!("`{name}` takes no type arguments"),
                    ));
                }
                return Ok(b);
            }
            if env.structs.contains_key(&name) {
                return Ok(Type::Struct(name));
            }
            Err(Error::new(
                t.span(),
                format!(
                    "unknown type `{name}`: kernels use bool, i32, u32, i64, u64, f32, f64, Vec2/3/4, Mat2/3/4, Quat, Transform, SpatialVector, SpatialMatrix (D-prefixed for f64), Array<T, N> and `#[weft::structure]` structs"
                ),
            ))
        }
        _ => Err(Error::new(
            t.span(),
            "this kind of type is not supported in kernels",
        )),
    }
}

fn lower_array(env: &Env, seg: &syn::PathSegment, t: &syn::Type) -> Result<Type> {
    let syn::PathArguments::AngleBracketed(args) = &seg.arguments else {
        return Err(Error::new(
            t.span(),
            "write the element type: `Array<T>` or `Array<T, N>`",
        ));
    };
    let mut it = args.args.iter();
    let Some(syn::GenericArgument::Type(elem)) = it.next() else {
        return Err(Error::new(
            args.span(),
            "the first argument of `Array` is the element type",
        ));
    };
    let elem = lower_type(env, elem, false)?;
    if let Type::Struct(n) = &elem
        && weft_ir::builder::struct_has_arrays(&env.structs, n)
    {
        return Err(Error::new(
            args.span(),
            format!("arrays cannot hold `{n}`, which itself holds arrays"),
        ));
    }
    if !elem.is_value() || matches!(elem, Type::Tuple(_)) {
        return Err(Error::new(
            args.span(),
            format!("arrays cannot hold `{elem}`"),
        ));
    }
    let ndim = match it.next() {
        None => 1,
        Some(a) => {
            let n = match a {
                syn::GenericArgument::Const(syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                })) => i.base10_parse::<u8>().ok(),
                _ => None,
            };
            match n {
                Some(n @ 1..=4) => n,
                _ => {
                    return Err(Error::new(
                        a.span(),
                        "the dimension count of `Array<T, N>` is a literal 1 to 4",
                    ));
                }
            }
        }
    };
    if let Some(extra) = it.next() {
        return Err(Error::new(
            extra.span(),
            "`Array` takes an element type and an optional dimension count",
        ));
    }
    Ok(Type::Array {
        elem: Box::new(elem),
        ndim,
        access: Access::Read,
    })
}

/// Parses a literal suffix such as `f32`.
pub fn suffix_scalar(s: &str) -> Option<Scalar> {
    Scalar::from_name(s)
}
