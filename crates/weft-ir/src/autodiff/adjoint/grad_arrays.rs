//! Gradient arrays: those of the parameters' arrays (and structures of them), and
//! the ones handed to the adjoints of called funcs (see [`crate::autodiff::handed`]).

use std::collections::{BTreeSet, HashMap};

use super::Gen;
use crate::access::{ArraySource, field_names};
use crate::autodiff::handed::{GradFrom, HandedGrad};
use crate::ir::*;
use crate::types::{Access, Type};

/// `.a.b` for field names `a`, `b`.
fn dotted(names: &[String]) -> String {
    names.iter().map(|n| format!(".{n}")).collect()
}

/// Whether `t` is an array of floats or a structure holding one (in nested
/// structures too).
pub fn holds_float_arrays(t: &Type, structs: &HashMap<String, StructDef>) -> bool {
    !float_array_paths(t, structs).is_empty()
}

/// The arrays of floats in a value of type `t`: their field paths (empty for `t`
/// itself) and field names.
fn float_array_paths(
    t: &Type,
    structs: &HashMap<String, StructDef>,
) -> Vec<(Vec<u32>, Vec<String>)> {
    match t {
        Type::Array { elem, .. } if elem.is_float_based() => vec![(vec![], vec![])],
        Type::Struct(name) => {
            let mut out = Vec::new();
            for (k, (fname, ft)) in structs[name].fields.iter().enumerate() {
                for (mut path, mut names) in float_array_paths(ft, structs) {
                    path.insert(0, k as u32);
                    names.insert(0, fname.clone());
                    out.push((path, names));
                }
            }
            out
        }
        _ => vec![],
    }
}

/// The parameter arrays (by `grad_param_value`) whose gradient arrays `b` reads or
/// adds into, in order, each once.
pub(super) fn grad_uses(
    b: &Block,
    grad_param_value: &HashMap<ValueId, ArraySource>,
) -> Vec<ArraySource> {
    let mut out = BTreeSet::new();
    b.for_each_stmt(&mut |s| {
        if let Stmt::GradAdd(g, ..) | Stmt::Def(_, Expr::GradRead(g, ..)) = s {
            out.extend(grad_param_value.get(g).cloned());
        }
    });
    out.into_iter().collect()
}

impl Gen {
    /// Records `g` as the gradient value of `src` (of type `t`) and, inside a
    /// structure, those of the float arrays and structures holding them within,
    /// extracted in `out`.
    pub(super) fn define_grads(
        &mut self,
        out: &mut Vec<Stmt>,
        src: ArraySource,
        g: ValueId,
        t: &Type,
    ) {
        self.grad_value.insert(src.clone(), g);
        self.grad_param_value.insert(g, src.clone());
        if let Type::Struct(name) = t {
            let fields = self.g.structs[name].fields.clone();
            for (k, (_, ft)) in fields.iter().enumerate() {
                if !holds_float_arrays(ft, &self.g.structs) {
                    continue;
                }
                let mut e = self.emit();
                let v = e.def(ft.clone(), Expr::Extract(g, k as u32));
                out.extend(e.out);
                let mut path = src.path.clone();
                path.push(k as u32);
                self.define_grads(
                    out,
                    ArraySource {
                        param: src.param,
                        path,
                    },
                    v,
                    ft,
                );
            }
        }
    }

    /// The gradient value of an array (or a structure of arrays) from a parameter.
    pub(super) fn grad_of(&self, arr: ValueId) -> Option<ValueId> {
        self.array_param
            .get(&arr)
            .and_then(|src| self.grad_value.get(src))
            .copied()
    }

    /// Calls func `name`'s adjoint on `args`: the forward arguments, a gradient
    /// array for each array of floats (this function's, or a null one where it
    /// has none), then `seed`, the result's adjoint (`None` for a `()` result);
    /// accumulates the adjoints it returns into the arguments'.
    pub(super) fn reverse_call(
        &mut self,
        out: &mut Vec<Stmt>,
        name: &str,
        path: &proc_macro2::TokenStream,
        args: &[ValueId],
        seed: Option<ValueId>,
    ) {
        let tys: Vec<Type> = args
            .iter()
            .map(|a| {
                let t = self.ty(*a);
                if self.diff(&t) { t } else { Type::Unit }
            })
            .collect();
        let mut call = args.to_vec();
        for (k, a) in args.iter().enumerate() {
            let t = self.ty(*a);
            let t = match t {
                Type::Array { elem, ndim, .. } if elem.is_float_based() => Type::Array {
                    elem,
                    ndim,
                    access: Access::Write,
                },
                Type::Struct(_) if holds_float_arrays(&t, &self.g.structs) => t,
                _ => continue,
            };
            let (g, from) = match self.grad_of(*a) {
                Some(g) if self.g.kind == FnKind::Func => {
                    (g, GradFrom::Param(self.grad_param_value[&g].clone()))
                }
                Some(g) => (g, GradFrom::Kernel),
                None => {
                    let mut em = self.emit();
                    let z = em.def(t.clone(), Expr::Zero(t.clone()));
                    out.extend(em.out);
                    (z, GradFrom::Missing)
                }
            };
            call.push(g);
            let base = self.array_param.get(a).map(|src| {
                let mut s = self.g.params[src.param].name.clone();
                for n in field_names(&self.g, src) {
                    s.push('.');
                    s.push_str(&n);
                }
                s
            });
            let arrays = float_array_paths(&t, &self.g.structs)
                .into_iter()
                .map(|(path, names)| {
                    let label = match &base {
                        Some(b) => format!("array `{b}{}`", dotted(&names)),
                        None if names.is_empty() => "an array of a local structure".into(),
                        None => format!("a local structure's array `{}`", &dotted(&names)[1..]),
                    };
                    (path, label)
                })
                .collect();
            self.handed.push(HandedGrad {
                func: name.to_string(),
                param: k,
                from,
                arrays,
            });
        }
        call.extend(seed);
        let mut em = self.emit();
        let r = em.def(
            Type::Tuple(tys.clone()),
            Expr::FuncAdjoint {
                name: name.to_string(),
                path: path.clone(),
                args: call,
            },
        );
        let parts: Vec<Option<ValueId>> = tys
            .iter()
            .enumerate()
            .map(|(i, t)| (*t != Type::Unit).then(|| em.def(t.clone(), Expr::Extract(r, i as u32))))
            .collect();
        out.extend(em.out);
        for (a, p) in args.iter().zip(parts) {
            if let Some(p) = p {
                self.accum_value(out, *a, p);
            }
        }
    }
}
