//! How a kernel uses each array beyond "read" and "written", for the CPU back end:
//!
//! - **accumulation targets**: arrays the kernel only adds into (`atomic_add`,
//!   `atomic_sub` whose old values it ignores, gradient accumulation), never reads
//!   and never passes on. A parallel CPU launch may give each runner a private
//!   zeroed copy of them, add into it with plain arithmetic and sum the copies at
//!   the end (`weft_runtime::cpu::launch_accumulate`), instead of one float
//!   compare-and-swap loop per component and update.
//! - **loaded-only arrays**: arrays the kernel only loads from (also inside
//!   structure parameters, `model.x`), which no thread of the launch can be writing,
//!   so plain loads are race-free.
//!
//! Both rely on two arrays of one launch never sharing memory when one of them is
//! written: writable arrays are borrowed exclusively for the launch.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::access::{ArraySource, array_sources, field_names};
use crate::ir::*;
use crate::types::Type;

/// An array a kernel only accumulates into.
#[derive(Clone, Debug, PartialEq)]
pub struct AccumTarget {
    /// Where the array comes from.
    pub source: ArraySource,
    /// Field names along the path (`["particle_f"]` for `state.particle_f`).
    pub fields: Vec<String>,
    /// The array's type.
    pub ty: Type,
}

/// What the uses of one array source allow.
#[derive(Clone, Copy, Debug, Default)]
struct Uses {
    /// Added into (atomic add/sub with the old value unused, or a gradient add).
    adds: bool,
    /// Loaded from.
    loads: bool,
    /// Anything else: another atomic, a store, a gradient read, the old value of
    /// an atomic used, passed to a func or a variable...
    other: bool,
}

/// Every use of every array and structure value reached from a parameter.
fn classify(f: &Function) -> (BTreeMap<ArraySource, Uses>, HashMap<ValueId, ArraySource>) {
    let sources = array_sources(f, &f.body);
    let used = f.used_values();
    let mut uses: BTreeMap<ArraySource, Uses> = BTreeMap::new();
    for src in sources.values() {
        uses.entry(src.clone()).or_default();
    }
    // A structure value used other than through its fields taints all its arrays.
    let mut tainted: Vec<ArraySource> = Vec::new();
    {
        let mut note = |v: &ValueId, what: fn(&mut Uses)| {
            if let Some(src) = sources.get(v) {
                let u = uses.get_mut(src).expect("every source is listed");
                what(u);
                if matches!(f.ty(*v), Type::Struct(_)) {
                    tainted.push(src.clone());
                }
            }
        };
        walk(&f.body, &mut |s: &Stmt| match s {
            Stmt::Def(_, Expr::Extract(_, _)) | Stmt::Def(_, Expr::Param(_)) => {}
            Stmt::Def(_, Expr::Len(a, _)) => note(a, |_| {}),
            Stmt::Def(_, Expr::Load(a, idx)) => {
                note(a, |u| u.loads = true);
                idx.iter().for_each(|i| note(i, |u| u.other = true));
            }
            Stmt::Def(v, Expr::Atomic(op, a, idx, x)) => {
                if matches!(op, AtomicOp::Add | AtomicOp::Sub) && !used.contains(v) {
                    note(a, |u| u.adds = true);
                } else {
                    note(a, |u| u.other = true);
                }
                idx.iter()
                    .chain([x])
                    .for_each(|i| note(i, |u| u.other = true));
            }
            // The primal array of a gradient access only gives the offset.
            Stmt::Def(_, Expr::GradRead(g, _p, idx, _)) => {
                note(g, |u| u.other = true);
                idx.iter().for_each(|i| note(i, |u| u.other = true));
            }
            Stmt::GradAdd(g, _p, idx, x) => {
                note(g, |u| u.adds = true);
                idx.iter()
                    .chain([x])
                    .for_each(|i| note(i, |u| u.other = true));
            }
            Stmt::Def(_, e) => e
                .operands()
                .iter()
                .for_each(|o| note(o, |u| u.other = true)),
            Stmt::Store(a, idx, x) => {
                note(a, |u| u.other = true);
                idx.iter()
                    .chain([x])
                    .for_each(|i| note(i, |u| u.other = true));
            }
            Stmt::Let(_, v) | Stmt::Assign(_, v) | Stmt::Return(Some(v)) => {
                note(v, |u| u.other = true)
            }
            Stmt::Save(vs) => vs.iter().for_each(|v| note(v, |u| u.other = true)),
            _ => {}
        });
    }
    for t in tainted {
        for (src, u) in uses.iter_mut() {
            if src.param == t.param && src.path.starts_with(&t.path) {
                u.other = true;
            }
        }
    }
    (uses, sources)
}

/// Calls `visit` on every statement of `b`, nested blocks included.
fn walk(b: &Block, visit: &mut dyn FnMut(&Stmt)) {
    for s in &b.0 {
        visit(s);
        match s {
            Stmt::If(_, x, y) => {
                walk(x, visit);
                walk(y, visit);
            }
            Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => walk(body, visit),
            Stmt::While(c, _, body) => {
                walk(c, visit);
                walk(body, visit);
            }
            _ => {}
        }
    }
}

/// The arrays `f` (a kernel, or a kernel's adjoint) only accumulates into, in
/// parameter and field order.
pub fn accumulate_targets(f: &Function) -> Vec<AccumTarget> {
    if f.kind != FnKind::Kernel {
        return Vec::new();
    }
    let (uses, sources) = classify(f);
    uses.into_iter()
        .filter(|(_, u)| u.adds && !u.loads && !u.other)
        .filter_map(|(source, _)| {
            let v = sources
                .iter()
                .find(|(_, s)| **s == source)
                .map(|(v, _)| *v)?;
            let ty = f.ty(v).clone();
            matches!(ty, Type::Array { .. }).then(|| AccumTarget {
                fields: field_names(f, &source),
                source,
                ty,
            })
        })
        .collect()
}

/// The values of `f` that name target `k` of `targets`, mapped to `k`.
pub fn target_values(f: &Function, targets: &[AccumTarget]) -> HashMap<ValueId, usize> {
    array_sources(f, &f.body)
        .into_iter()
        .filter_map(|(v, src)| {
            let k = targets.iter().position(|t| t.source == src)?;
            Some((v, k))
        })
        .collect()
}

/// The array values of kernel `f` whose arrays the kernel only loads from (and
/// measures): plain loads of them cannot race with a write.
pub fn loaded_only_values(f: &Function) -> HashSet<ValueId> {
    if f.kind != FnKind::Kernel {
        return HashSet::new();
    }
    let (uses, sources) = classify(f);
    sources
        .into_iter()
        .filter(|(v, src)| {
            let u = uses[src];
            matches!(f.ty(*v), Type::Array { .. }) && !u.adds && !u.other
        })
        .map(|(v, _)| v)
        .collect()
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;
    use crate::types::Access;
    use crate::{Builder, Env, Param};

    fn param(name: &str, access: Access) -> Param {
        Param {
            name: name.into(),
            ty: Type::Array {
                elem: Box::new(Type::F32),
                ndim: 1,
                access,
            },
            span: Span::call_site(),
            writable: false,
        }
    }

    /// `atomic_add(z[i + 1], y[i])`; `let old = atomic_add(x[i], y[i])`;
    /// `atomic_add(x[i], old)`; with `read_z`, also `z[i]` loaded.
    fn kernel(read_z: bool) -> Function {
        let env = Env::default();
        let s = Span::call_site();
        let params = vec![
            param("x", Access::Write),
            param("y", Access::Read),
            param("z", Access::Write),
        ];
        let mut b = Builder::new(&env, "k", FnKind::Kernel, params, Type::Unit);
        let i = b.tid(1, s).unwrap()[0];
        let (x, y, z) = (b.param(0, s), b.param(1, s), b.param(2, s));
        let yi = b.load(y, vec![i], s).unwrap();
        let one = b.lit_int(1, None, s).unwrap();
        let ip1 = b.binary(BinOp::Add, i, one, s).unwrap();
        b.atomic(AtomicOp::Add, z, vec![ip1], yi, s).unwrap();
        let old = b.atomic(AtomicOp::Add, x, vec![i], yi, s).unwrap();
        b.atomic(AtomicOp::Add, x, vec![i], old, s).unwrap();
        if read_z {
            let zi = b.load(z, vec![i], s).unwrap();
            b.store(x, vec![i], zi, s).unwrap();
        }
        b.finish(s).unwrap()
    }

    #[test]
    fn targets_are_arrays_only_added_into() {
        let f = kernel(false);
        let t = accumulate_targets(&f);
        // z qualifies; x does not (the old value of an atomic is used).
        assert_eq!(t.len(), 1);
        assert_eq!(t[0].source.param, 2);
        // A load of z disqualifies it.
        assert!(accumulate_targets(&kernel(true)).is_empty());
    }

    #[test]
    fn loaded_only_arrays_are_found() {
        let f = kernel(true);
        let params: HashSet<usize> = loaded_only_values(&f)
            .into_iter()
            .filter_map(|v| array_sources(&f, &f.body).get(&v).map(|src| src.param))
            .collect();
        // y is only loaded; z is loaded and added into; x is added into and stored.
        assert_eq!(params, HashSet::from([1]));
    }
}
