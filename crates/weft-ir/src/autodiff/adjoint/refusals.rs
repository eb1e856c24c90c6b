//! Where the adjoint refuses: places where gradient would be lost, or where the
//! replay would read values the forward pass already overwrote.

use super::Gen;
use crate::access::{ArrayAccess, ArraySource, field_names};
use crate::autodiff::activity::carries;
use crate::ir::*;
use crate::types::Type;

impl Gen {
    /// `x` or `model.x` for an array that comes from a parameter, else "an array".
    pub(super) fn array_label(&self, arr: ValueId) -> String {
        match self.array_param.get(&arr) {
            Some(src) => {
                let mut s = self.g.params[src.param].name.clone();
                for n in field_names(&self.g, src) {
                    s.push('.');
                    s.push_str(&n);
                }
                format!("`{s}`")
            }
            None => "an array".into(),
        }
    }

    /// Refuses a write of `v` into `arr` where the array has no gradient array (a
    /// field of a local structure, an array of structures) and the write matters to
    /// gradients: a func's store or atomic min/max of floats, which overwrites an
    /// element whose gradient must then be consumed, or any write of a value that
    /// depends on differentiable inputs (`overwrites`: a store, min or max).
    pub(super) fn refuse_lost_write(&mut self, arr: ValueId, v: ValueId, overwrites: bool) {
        if self.grad_of(arr).is_some() || !carries(&self.ty(v), &self.g.structs) {
            return;
        }
        let func = self.g.kind == FnKind::Func;
        if !(self.act.varied(v) || (func && overwrites)) {
            return;
        }
        let name = self.array_label(arr);
        let of_structs =
            matches!(self.ty(arr), Type::Array { elem, .. } if matches!(*elem, Type::Struct(_)));
        self.blockers.insert(if !of_structs {
            format!(
                "it writes floats into array {name}, which has no gradient array (a field of a structure built or copied into a local); gradients through it are not supported yet (use the parameter's array)"
            )
        } else {
            format!(
                "it writes structures with float fields computed from differentiable values into array {name}, and gradients through arrays of structures are not supported yet (use one array per field)"
            )
        });
    }

    /// Refuses the places where gradient would enter a structure value and be lost:
    /// structures with float fields loaded from an array, or built from values
    /// that carry gradient, whose fields an output depends on.
    pub(super) fn refuse_lost_structure(&mut self, v: ValueId, e: &Expr) {
        let t = self.ty(v);
        if !matches!(t, Type::Struct(_)) || !self.act.useful(v) {
            return;
        }
        match e {
            Expr::Load(arr, _) if carries(&t, &self.g.structs) => {
                let name = self.array_label(*arr);
                self.blockers.insert(format!(
                    "it reads structures with float fields from array {name} and differentiates through them, and gradients through arrays of structures are not supported yet (use one array per field)"
                ));
            }
            // Structures of values carry adjoints; those holding arrays do not.
            Expr::Construct(_, parts)
                if !self.diff(&t) && parts.iter().any(|p| self.act.varied(*p)) =>
            {
                self.structure_value_refused();
            }
            Expr::Insert(_, _, x) if !self.diff(&t) && self.act.varied(*x) => {
                self.structure_value_refused()
            }
            _ => {}
        }
    }

    pub(super) fn structure_value_refused(&mut self) {
        self.blockers.insert(
            "it puts values that carry gradient into a structure that holds arrays and differentiates through its fields; no gradient passes through the float fields of such structures (keep those values in variables, or in a structure without arrays)".into(),
        );
    }

    /// Refuses in-place updates within one kernel or func, which break the replay:
    /// the adjoint would read the array after the forward pass overwrote it.
    pub(super) fn refuse_in_place(&mut self, f: &Function, accesses: &[ArrayAccess]) {
        for a in accesses {
            if a.read && a.written && self.grad_value.contains_key(&a.source) {
                self.blockers.insert(format!(
                "it reads and writes array `{}`; the adjoint replays the kernel after the writes, so it would see the new values (write the result to a separate array)",
                a.label(f)
            ));
            }
        }
    }

    /// The same for arrays without gradients (indices, counters) when the gradient
    /// depends on what the function read from them (arrays handed to a func as
    /// writable, alone or in a structure, count as written). Needs `self.needed`.
    pub(super) fn refuse_rewritten_reads(&mut self, fwd: &Function, accesses: &[ArrayAccess]) {
        let handed: Vec<ArraySource> = writable_args(&fwd.body)
            .iter()
            .filter_map(|a| self.array_param.get(a).cloned())
            .collect();
        for (v, arr) in loads(&fwd.body) {
            let Some(src) = self.array_param.get(&arr) else {
                continue;
            };
            let rewritten = !self.grad_value.contains_key(src)
                && (handed
                    .iter()
                    .any(|h| h.param == src.param && src.path.starts_with(&h.path))
                    || accesses.iter().any(|a| a.source == *src && a.written));
            if rewritten && self.needed.contains(&v) {
                let name = self.array_label(arr);
                self.blockers.insert(format!(
                "its gradient depends on what it reads from array {name}, which it also writes; the adjoint replays the kernel after the writes, so it would see the new values (write to a separate array)"
            ));
            }
        }
    }
}

/// The arguments of calls in `b` that the func may write (arrays, structures).
fn writable_args(b: &Block) -> Vec<ValueId> {
    let mut out = Vec::new();
    b.for_each_stmt(&mut |s| {
        if let Stmt::Def(_, Expr::Call { args, writes, .. }) = s {
            out.extend(
                args.iter()
                    .zip(writes)
                    .filter(|(_, w)| **w)
                    .map(|(a, _)| *a),
            );
        }
    });
    out
}

/// Every array load in `b`: (value, array).
fn loads(b: &Block) -> Vec<(ValueId, ValueId)> {
    let mut out = Vec::new();
    b.for_each_stmt(&mut |s| {
        if let Stmt::Def(v, Expr::Load(arr, _)) = s {
            out.push((*v, *arr));
        }
    });
    out
}
