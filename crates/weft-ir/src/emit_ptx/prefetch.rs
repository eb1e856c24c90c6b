//! L2 prefetches for kernels that loop over their indices with a grid stride (those
//! with block-level reductions, launched as a few waves of blocks): each thread's
//! iterations depend on one another through in-order issue (a load's first use
//! stalls the warp before the next iteration's loads go out), so a loop over
//! `a[tid]` runs at one memory latency per step. Asking the L2 for the elements a
//! few strides ahead at the top of each iteration keeps several steps' data in
//! flight and turns most loads into L2 hits. Adjoint kernels that add into their
//! own elements of a gradient (one index per thread) ask for their current
//! elements up front instead, so the read-modify-write of the gradient does not
//! wait a second memory latency after the primal loads.

use std::collections::{BTreeSet, HashMap};

use super::layout;
use crate::ir::*;
use crate::types::Type;

/// How many grid strides ahead of the current index the prefetches reach.
pub(super) const STRIDES_AHEAD: u32 = 4;

/// The parameters that are 1-D arrays (gradients included) accessed at the
/// thread's own index, `a[tid()]`, with their element sizes in bytes.
pub(super) fn streamed_params(f: &Function) -> Vec<(usize, usize)> {
    let tid = crate::emit_rust::tid_values(f);
    let mut param_of = HashMap::new();
    let mut out = BTreeSet::new();
    f.body.for_each_stmt(&mut |s| {
        let (a, idx) = match s {
            Stmt::Def(v, Expr::Param(i)) => {
                param_of.insert(*v, *i);
                return;
            }
            Stmt::Def(_, Expr::Load(a, idx))
            | Stmt::Def(_, Expr::Atomic(_, a, idx, _))
            | Stmt::Def(_, Expr::GradRead(a, _, idx, _))
            | Stmt::Store(a, idx, _)
            | Stmt::GradAdd(a, _, idx, _) => (a, idx),
            _ => return,
        };
        if let [i] = idx.as_slice()
            && tid.contains(i)
            && let Some(p) = param_of.get(a)
        {
            out.insert(*p);
        }
    });
    out.into_iter()
        .filter_map(|i| match &f.params[i].ty {
            Type::Array { ndim: 1, elem, .. } => Some((i, layout::elem_layout(elem, &f.structs).0)),
            _ => None,
        })
        .collect()
}

/// Whether `f` adds into a gradient at the thread's own index (`GradAdd` at
/// `tid()`): an adjoint's read-modify-write of its inputs' gradients.
pub(super) fn updates_own_gradients(f: &Function) -> bool {
    let tid = crate::emit_rust::tid_values(f);
    let mut found = false;
    f.body.for_each_stmt(&mut |s| {
        if let Stmt::GradAdd(_, _, idx, _) = s {
            found |= matches!(idx.as_slice(), [i] if tid.contains(i));
        }
    });
    found
}
