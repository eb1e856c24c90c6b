//! Lowering a fn item to IR, with local type inference for unsuffixed literals.
//!
//! `let mut x = 0.0;` is an `f32` until it meets an `f64` (`x += y_f64`), as rustc
//! would infer. The builder retypes such a literal in place while the variable is
//! unread; once values derived from it exist, it reports the literal and the type
//! it should have had ([`Error::retype`]), and the function is lowered again with
//! that literal typed so. Literals are named by [`LitKey`]s, numbered in source
//! order before the first attempt, so a hint always finds its literal (and only
//! it) in the next attempt. Each attempt either succeeds, fails for good, or
//! retypes one more literal, so there are at most one more attempts than literals.

use std::collections::HashMap;

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::Visit;
use weft_ir::{Builder, Env, Error, FnKind, LitKey, Type};

use crate::env::signature;
use crate::lower::Lower;

/// The integer and float literals of a function body, numbered in source order.
///
/// Looked up by the address of the literal's syntax node: the body is parsed once
/// and lowered from that one tree in every attempt (lowering never copies a
/// literal it lowers), so the address names the literal as long as the tree lives.
#[derive(Default)]
pub struct LiteralKeys(HashMap<*const syn::Lit, LitKey>);

impl LiteralKeys {
    /// Numbers the literals of `block`.
    pub fn of(block: &syn::Block) -> LiteralKeys {
        let mut keys = LiteralKeys::default();
        keys.visit_block(block);
        keys
    }

    /// The key of literal `l`, if it is one of the numbered body's.
    pub fn get(&self, l: &syn::Lit) -> Option<LitKey> {
        self.0.get(&std::ptr::from_ref(l)).copied()
    }

    /// How many literals there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl<'ast> Visit<'ast> for LiteralKeys {
    fn visit_lit(&mut self, l: &'ast syn::Lit) {
        if matches!(l, syn::Lit::Int(_) | syn::Lit::Float(_)) {
            let key = LitKey(self.0.len() as u32);
            self.0.insert(std::ptr::from_ref(l), key);
        }
    }
}

/// Lowers a fn item to IR (see the module docs for the retyping of literals).
pub fn lower_fn(env: &Env, f: &syn::ItemFn, kind: FnKind) -> Result<weft_ir::Function, Error> {
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
    let keys = LiteralKeys::of(&f.block);
    let mut hints = HashMap::new();
    for _attempt in 0..=keys.len() {
        let mut b = Builder::new(
            env,
            &f.sig.ident.to_string(),
            kind,
            params.clone(),
            ret.clone(),
        );
        b.set_hints(hints.clone());
        let mut l = Lower::new(b, &keys);
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
    // Unreachable: every retry adds the hint of a literal not hinted before.
    Err(Error::new(
        f.sig.ident.span(),
        "internal: type inference did not settle",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every integer and float literal of `block`, in source order.
    fn literals(block: &syn::Block) -> Vec<&syn::Lit> {
        struct All<'a>(Vec<&'a syn::Lit>);
        impl<'a> Visit<'a> for All<'a> {
            fn visit_lit(&mut self, l: &'a syn::Lit) {
                if matches!(l, syn::Lit::Int(_) | syn::Lit::Float(_)) {
                    self.0.push(l);
                }
            }
        }
        let mut all = All(Vec::new());
        all.visit_block(block);
        all.0
    }

    #[test]
    fn literals_are_numbered_in_source_order() {
        let f: syn::ItemFn = syn::parse_quote! {
            fn f(a: f64) -> f64 { let mut x = 0.0; let t = true; x += a * 2.0 + 1.5f64; x }
        };
        let keys = LiteralKeys::of(&f.block);
        let found: Vec<_> = literals(&f.block).iter().map(|l| keys.get(l)).collect();
        assert_eq!(found, [0, 1, 2].map(|k| Some(LitKey(k))));
        let elsewhere: syn::Lit = syn::parse_quote!(0.0);
        assert_eq!(keys.get(&elsewhere), None);
    }

    /// Parsed from a string, every token has the same span (as the math DSL's do):
    /// hints keyed by span would also retype `z` and make its return an `f64`.
    #[test]
    fn a_hint_retypes_its_own_literal_only() {
        let f: syn::ItemFn = syn::parse_str(
            "fn f(a: f64) -> f32 { let k = if a > 0.0 { 1.0 } else { 2.0 }; \
             let z = 5.0; let w: f64 = k * a; z }",
        )
        .unwrap();
        let ir = lower_fn(&Env::default(), &f, FnKind::Func).unwrap();
        let ty = |name: &str| &ir.vars.iter().find(|v| v.name == name).unwrap().ty;
        assert_eq!(ty("k"), &Type::Scalar(weft_ir::Scalar::F64));
        assert_eq!(ty("z"), &Type::Scalar(weft_ir::Scalar::F32));
    }
}
