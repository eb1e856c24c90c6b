//! Adjoint generation: from a kernel or func, the function that computes the
//! gradients of its inputs from the gradients of its outputs.
//!
//! Scheme (Warp's, made correct for loops): the adjoint first **replays** the
//! forward computation without its side effects (array stores and atomics), then
//! walks the statements **backwards**, accumulating an adjoint for every float
//! value and variable. Reading `a[i]` adds the value's adjoint into `a`'s gradient
//! array; storing `a[i] = v` takes `v`'s adjoint from it.
//!
//! Loops are the hard part: the reverse of iteration `k` needs the values of
//! iteration `k`. During the replay each loop pushes, at the start of every
//! iteration, a snapshot of the variables its body reads or writes onto a
//! per-thread stack; the reverse loop runs the iterations backwards, restoring each
//! snapshot, recomputing that iteration's body, and walking it backwards. Nested
//! loops record only while their enclosing iteration is being reversed, so the
//! stack holds one snapshot per iteration of the loops currently being reversed.
//! Jumps are eliminated first ([`super::eliminate_jumps`]).

use std::collections::{BTreeSet, HashMap, HashSet};

use proc_macro2::Span;

mod grad_arrays;
mod refusals;

use grad_arrays::grad_uses;
pub use grad_arrays::holds_float_arrays;

use super::activity::{Activity, carries, writes_arrays, written_float_args};
use super::handed::HandedGrad;
use super::jumps::{Emit, FnBuild, eliminate_jumps};
use super::needed;
use crate::access::{ArraySource, array_sources};
use crate::builder::struct_has_arrays;
use crate::builtins;
use crate::ir::*;
use crate::types::{Access, Scalar, Type};

/// The adjoint of a function and what limits it.
#[derive(Clone, Debug)]
pub struct Adjoint {
    /// The adjoint function. Kernels: the forward parameters, then one gradient
    /// array `adj_<name>` per float array parameter and one structure of gradient
    /// arrays per structure parameter whose float arrays it uses (see
    /// `grad_params`). Funcs: the forward parameters, one gradient array
    /// `adj_<name>` per parameter that is an array of floats and one structure of
    /// gradient arrays per structure parameter holding such arrays (null arrays
    /// where the caller has none), then `adj_result` (unless the result is `()`);
    /// returns a tuple with one adjoint per parameter (`()` where a parameter is not
    /// differentiable, arrays and structures included: their gradients go into the
    /// gradient arrays).
    pub function: Function,
    /// For each forward parameter, the index of its gradient parameter, if any.
    pub grad_params: Vec<Option<usize>>,
    /// Reasons why the gradient of this kernel would be wrong or incomplete; when
    /// not empty, launching the adjoint must fail with these messages.
    pub blockers: Vec<String>,
    /// The funcs whose adjoints matter to this one, by name: those it calls with
    /// an active result (see [`super::activity`]) or with a writable array, whose
    /// own refusals (`blockers`) apply to this function too.
    pub calls: Vec<String>,
    /// The parameter arrays (by parameter and field path) whose gradient arrays
    /// this adjoint's own body reads or adds into (see
    /// [`lost_gradients`](super::lost_gradients)).
    pub grad_uses: Vec<ArraySource>,
    /// The gradient arrays this adjoint hands on to the adjoints of the funcs it
    /// calls (see [`lost_gradients`](super::lost_gradients)).
    pub handed: Vec<HandedGrad>,
}

/// Whether values of type `t` carry gradients (have adjoints): float-based
/// values, tuples with such parts, and structures of values (no arrays, in
/// nested structures neither) with such fields. A structure that holds arrays is
/// a handle: its arrays' gradients live in gradient arrays, never in an adjoint
/// value, so it carries none (nor do its float fields, which the launch fixes).
pub fn differentiable(t: &Type, structs: &HashMap<String, StructDef>) -> bool {
    match t {
        Type::Tuple(ts) => ts.iter().any(|t| differentiable(t, structs)),
        Type::Struct(name) => {
            !struct_has_arrays(structs, name)
                && structs
                    .get(name)
                    .is_some_and(|s| s.fields.iter().any(|(_, ft)| differentiable(ft, structs)))
        }
        other => other.is_float_based(),
    }
}

/// Whether `t` holds (directly or in a tuple) a structure that holds arrays and
/// float fields: a handle, whose float fields carry no adjoint (see
/// [`differentiable`]).
fn handle_with_floats(t: &Type, structs: &HashMap<String, StructDef>) -> bool {
    match t {
        Type::Tuple(ts) => ts.iter().any(|t| handle_with_floats(t, structs)),
        Type::Struct(name) => struct_has_arrays(structs, name) && carries(t, structs),
        _ => false,
    }
}

/// Whether the call defining `v` needs its adjoint: its result can carry gradient
/// (floats, or a structure), or it receives something to write (`writes`, per
/// argument: whose stores have adjoints). Only integer, boolean and unit results
/// of read-only calls skip it.
pub fn call_needs_adjoint(f: &Function, v: ValueId, writes: &[bool]) -> bool {
    // Structures count as carrying gradient here (their float fields can).
    fn carries(t: &Type) -> bool {
        match t {
            Type::Tuple(ts) => ts.iter().any(carries),
            Type::Struct(_) => true,
            other => other.is_float_based(),
        }
    }
    carries(f.ty(v)) || writes_arrays(writes)
}

struct Gen {
    g: Function,
    adj_val: HashMap<ValueId, VarId>,
    adj_var: HashMap<VarId, VarId>,
    /// Array values that come from parameters (directly or through structures).
    array_param: HashMap<ValueId, ArraySource>,
    /// Gradient array values for each differentiable array, defined at the top.
    grad_value: HashMap<ArraySource, ValueId>,
    /// Forward value parameters' adjoint accumulators (kept for funcs).
    param_adj: HashMap<usize, VarId>,
    blockers: BTreeSet<String>,
    /// Which forward values need adjoints.
    act: Activity,
    /// Which forward values the adjoint's work depends on (see [`needed`]).
    needed: HashSet<ValueId>,
    /// The gradient values of parameters' arrays and structures, with their source.
    grad_param_value: HashMap<ValueId, ArraySource>,
    /// Gradient arrays handed to func adjoints (see [`Adjoint::handed`]).
    handed: Vec<HandedGrad>,
}

/// Variables read or assigned in a block (recursively) but declared outside it.
fn used_outer_vars(b: &Block) -> Vec<VarId> {
    fn walk(b: &Block, used: &mut BTreeSet<VarId>, declared: &mut BTreeSet<VarId>) {
        for s in &b.0 {
            match s {
                Stmt::Def(_, Expr::Var(v)) | Stmt::Assign(v, _) => {
                    used.insert(*v);
                }
                Stmt::Def(_, Expr::Rng(_, v, _))
                | Stmt::Def(_, Expr::LocalLoad(v, _))
                | Stmt::LocalStore(v, ..) => {
                    used.insert(*v);
                }
                Stmt::Let(v, _) | Stmt::Declare(v) | Stmt::LocalArray(v, _) => {
                    declared.insert(*v);
                }
                Stmt::If(_, a, c) => {
                    walk(a, used, declared);
                    walk(c, used, declared);
                }
                Stmt::For(v, _, _, body) | Stmt::ForRev(v, _, _, body) => {
                    declared.insert(*v);
                    walk(body, used, declared);
                }
                Stmt::While(c, _, body) => {
                    walk(c, used, declared);
                    walk(body, used, declared);
                }
                _ => {}
            }
        }
    }
    let (mut used, mut declared) = (BTreeSet::new(), BTreeSet::new());
    walk(b, &mut used, &mut declared);
    used.difference(&declared).copied().collect()
}

impl Gen {
    fn emit(&mut self) -> Emit<'_> {
        Emit {
            f: &mut self.g,
            out: Vec::new(),
        }
    }

    fn ty(&self, v: ValueId) -> Type {
        self.g.values[v.0 as usize].ty.clone()
    }

    /// Whether `t` carries gradients ([`differentiable`] with this function's
    /// structures).
    fn diff(&self, t: &Type) -> bool {
        differentiable(t, &self.g.structs)
    }

    fn adj_of_value(&mut self, v: ValueId) -> VarId {
        if let Some(a) = self.adj_val.get(&v) {
            return *a;
        }
        let t = self.ty(v);
        let a = self.g.var(&format!("adj{}", v.0), t);
        self.adj_val.insert(v, a);
        a
    }

    fn adj_of_var(&mut self, v: VarId) -> VarId {
        if let Some(a) = self.adj_var.get(&v) {
            return *a;
        }
        let info = self.g.vars[v.0 as usize].clone();
        let a = self.g.var(&format!("adj_{}", info.name), info.ty);
        self.adj_var.insert(v, a);
        a
    }

    /// `adj(target) += contribution`, for float-based targets.
    fn accum_into(&mut self, out: &mut Vec<Stmt>, target: VarId, contribution: ValueId) {
        let mut e = Emit {
            f: &mut self.g,
            out: Vec::new(),
        };
        let cur = e.read(target);
        let t = e.f.vars[target.0 as usize].ty.clone();
        let sum = e.def(t, Expr::Accum(cur, contribution));
        e.out.push(Stmt::Assign(target, sum));
        out.extend(e.out);
    }

    fn accum_value(&mut self, out: &mut Vec<Stmt>, v: ValueId, contribution: ValueId) {
        if !self.diff(&self.ty(v)) || !self.act.active(v) {
            return;
        }
        let a = self.adj_of_value(v);
        self.accum_into(out, a, contribution);
    }

    fn reset(&mut self, out: &mut Vec<Stmt>, var: VarId) {
        let t = self.g.vars[var.0 as usize].ty.clone();
        let mut e = Emit {
            f: &mut self.g,
            out: Vec::new(),
        };
        let z = e.def(t.clone(), Expr::Zero(t));
        e.out.push(Stmt::Assign(var, z));
        out.extend(e.out);
    }

    // ----- replay ------------------------------------------------------------------

    /// The forward statements without side effects; loops push snapshots when
    /// `record` is set.
    fn replay(&mut self, b: &Block, record: bool) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in &b.0 {
            match s {
                Stmt::Store(..) | Stmt::Return(_) => {}
                // A func that writes arrays must not write them again: it is left
                // out (the adjoint refuses when its gradient depends on the result).
                Stmt::Def(v, Expr::Call { name, writes, .. }) if writes_arrays(writes) => {
                    let t = self.ty(*v);
                    if t != Type::Unit && self.needed.contains(v) {
                        self.blockers.insert(format!(
                            "its gradient depends on the result of func `{name}`, which writes arrays: recomputing the result, the adjoint would write them again (split the kernel, or leave the func out of differentiated code)"
                        ));
                        // Refused: kept only so that the code stays whole.
                        out.push(s.clone());
                    } else if t != Type::Unit {
                        // Zero stands in for the result in what the replay
                        // recomputes from it (nothing the adjoint uses).
                        out.push(Stmt::Def(*v, Expr::Zero(t)));
                    }
                }
                Stmt::Def(v, Expr::Atomic(op, a, idx, _)) => {
                    if self.needed.contains(v) {
                        let name = match op {
                            AtomicOp::Add => "atomic_add",
                            AtomicOp::Sub => "atomic_sub",
                            AtomicOp::Min => "atomic_min",
                            AtomicOp::Max => "atomic_max",
                        };
                        self.blockers.insert(format!(
                            "its gradient depends on the value `{name}` returns (the element before the update), which the adjoint cannot recover once other threads have updated the element (split the kernel, or leave the atomic's result out of differentiated code)"
                        ));
                    }
                    // Where nothing the adjoint does depends on it (refused
                    // otherwise), the replay reads the element instead of the old
                    // value, which is gone.
                    out.push(Stmt::Def(*v, Expr::Load(*a, idx.clone())));
                }
                Stmt::If(c, a, e) => {
                    let a = Block(self.replay(a, record));
                    let e = Block(self.replay(e, record));
                    out.push(Stmt::If(*c, a, e));
                }
                Stmt::For(var, start, end, body) => {
                    let mut inner = Vec::new();
                    if record && self.block_active(body) {
                        self.snapshot(body, &mut inner);
                    }
                    inner.extend(self.replay(body, false));
                    out.push(Stmt::For(*var, *start, *end, Block(inner)));
                }
                Stmt::While(cb, c, body) => {
                    let record = record && (self.block_active(cb) || self.block_active(body));
                    let count = if record {
                        let t = Type::I32;
                        let cnt = self.g.var("iterations", t);
                        let mut e = self.emit();
                        let z = e.def(Type::I32, Expr::Lit(Lit::Int(0, Scalar::I32)));
                        e.out.push(Stmt::Let(cnt, z));
                        out.extend(e.out);
                        Some(cnt)
                    } else {
                        None
                    };
                    let mut cond = Vec::new();
                    if record {
                        let mut both = cb.clone();
                        both.0.extend(body.0.iter().cloned());
                        self.snapshot(&both, &mut cond);
                    }
                    cond.extend(self.replay(cb, false));
                    let mut inner = self.replay(body, false);
                    if let Some(cnt) = count {
                        let mut e = self.emit();
                        let x = e.read(cnt);
                        let one = e.def(Type::I32, Expr::Lit(Lit::Int(1, Scalar::I32)));
                        let y = e.def(Type::I32, Expr::Binary(BinOp::Add, x, one));
                        e.out.push(Stmt::Assign(cnt, y));
                        inner.extend(e.out);
                    }
                    out.push(Stmt::While(Block(cond), *c, Block(inner)));
                    if let Some(cnt) = count {
                        let mut e = self.emit();
                        let x = e.read(cnt);
                        e.out.push(Stmt::Save(vec![x]));
                        out.extend(e.out);
                    }
                }
                other => out.push(other.clone()),
            }
        }
        out
    }

    /// The variables declared outside loop body `b` that it uses, which the
    /// adjoint saves per iteration. A local array among them cannot be saved: the
    /// gradient is blocked instead, as the replay would read its final contents.
    fn loop_vars(&mut self, b: &Block) -> Vec<VarId> {
        let mut vars = used_outer_vars(b);
        vars.retain(|v| {
            let info = &self.g.vars[v.0 as usize];
            if matches!(info.ty, Type::LocalArray { .. }) {
                self.blockers.insert(format!(
                    "a loop uses local array `{}` declared outside it, which its adjoint cannot replay; declare the array inside the loop or leave the loop out of differentiated code",
                    info.name
                ));
                return false;
            }
            true
        });
        vars
    }

    /// Pushes the outer variables a loop body uses; returns them.
    fn snapshot(&mut self, body: &Block, out: &mut Vec<Stmt>) -> Vec<VarId> {
        let vars = self.loop_vars(body);
        let mut e = self.emit();
        let vals: Vec<_> = vars.iter().map(|v| e.read(*v)).collect();
        if !vals.is_empty() {
            e.out.push(Stmt::Save(vals));
        }
        out.extend(e.out);
        vars
    }

    // ----- reverse -----------------------------------------------------------------

    fn reverse(&mut self, b: &Block) -> Vec<Stmt> {
        let mut out = Vec::new();
        for s in b.0.iter().rev() {
            match s {
                Stmt::Def(v, e) => self.reverse_def(&mut out, *v, e),
                Stmt::Let(var, v) | Stmt::Assign(var, v) => {
                    if self.diff(&self.g.vars[var.0 as usize].ty) && self.act.active_var(*var) {
                        let a = self.adj_of_var(*var);
                        let mut e = self.emit();
                        let cur = e.read(a);
                        out.extend(e.out);
                        self.accum_value(&mut out, *v, cur);
                        self.reset(&mut out, a);
                    }
                }
                Stmt::Store(arr, idx, v) => {
                    if let Some(g) = self.grad_of(*arr)
                        && self.diff(&self.ty(*v))
                    {
                        let t = self.ty(*v);
                        let mut e = self.emit();
                        let r = e.def(t, Expr::GradRead(g, *arr, idx.clone(), true));
                        out.extend(e.out);
                        self.accum_value(&mut out, *v, r);
                    }
                    self.refuse_lost_write(*arr, *v, true);
                }
                Stmt::If(c, a, e) => {
                    let a = Block(self.reverse(a));
                    let e = Block(self.reverse(e));
                    out.push(Stmt::If(*c, a, e));
                }
                // A loop without active statements has nothing to reverse (the
                // replay did not record it); its refusals are still collected.
                Stmt::For(_, _, _, body) if !self.block_active(body) => {
                    self.reverse(body);
                }
                Stmt::While(cb, _, body) if !self.block_active(cb) && !self.block_active(body) => {
                    self.reverse(cb);
                    self.reverse(body);
                }
                Stmt::For(var, start, end, body) => {
                    let vars = self.loop_vars(body);
                    let mut inner = Vec::new();
                    if !vars.is_empty() {
                        inner.push(Stmt::Restore(vars));
                    }
                    inner.extend(self.replay(body, true));
                    inner.extend(self.reverse(body));
                    out.push(Stmt::ForRev(*var, *start, *end, Block(inner)));
                }
                Stmt::While(cb, _c, body) => {
                    let mut both = cb.clone();
                    both.0.extend(body.0.iter().cloned());
                    let vars = self.loop_vars(&both);
                    let cnt = self.g.var("iterations", Type::I32);
                    out.push(Stmt::Restore(vec![cnt]));
                    // The final, failing evaluation of the condition.
                    if !vars.is_empty() {
                        out.push(Stmt::Restore(vars.clone()));
                    }
                    let r = self.replay(cb, true);
                    out.extend(r);
                    let r = self.reverse(cb);
                    out.extend(r);
                    // Then every iteration, last first.
                    let k = self.g.var("k", Type::I32);
                    let mut inner = Vec::new();
                    if !vars.is_empty() {
                        inner.push(Stmt::Restore(vars));
                    }
                    inner.extend(self.replay(cb, true));
                    inner.extend(self.replay(body, true));
                    inner.extend(self.reverse(body));
                    inner.extend(self.reverse(cb));
                    let mut e = self.emit();
                    let z = e.def(Type::I32, Expr::Lit(Lit::Int(0, Scalar::I32)));
                    let n = e.read(cnt);
                    out.extend(e.out);
                    out.push(Stmt::ForRev(k, z, n, Block(inner)));
                }
                Stmt::LocalArray(var, _) => {
                    let info = &self.g.vars[var.0 as usize];
                    if let Type::LocalArray { elem, .. } = info.ty
                        && elem.is_float()
                        && self.act.active_var(*var)
                    {
                        self.blockers.insert(format!(
                            "local array `{}` holds floats, which carry no gradient; keep differentiated values out of local arrays",
                            info.name
                        ));
                    }
                }
                Stmt::Return(_) | Stmt::Declare(_) | Stmt::LocalStore(..) => {}
                Stmt::Break | Stmt::Continue => unreachable!("jumps are eliminated first"),
                Stmt::ForRev(..) | Stmt::Save(_) | Stmt::Restore(_) | Stmt::GradAdd(..) => {
                    unreachable!("adjoint statements in a forward function")
                }
            }
        }
        out
    }

    /// Whether reversing `b` does anything (see [`needed::block_active`]).
    fn block_active(&self, b: &Block) -> bool {
        needed::block_active(&self.g, &self.act, &|a| self.grad_of(a).is_some(), b)
    }

    fn reverse_def(&mut self, out: &mut Vec<Stmt>, v: ValueId, e: &Expr) {
        // Side effects first: an atomic add's operand receives the element's gradient
        // whether or not its (old-value) result is used.
        if let Expr::Atomic(op, arr, idx, val) = e {
            let overwrites = matches!(op, AtomicOp::Min | AtomicOp::Max);
            self.refuse_lost_write(*arr, *val, overwrites);
            match op {
                AtomicOp::Add | AtomicOp::Sub => {
                    if let Some(g) = self.grad_of(*arr)
                        && self.diff(&self.ty(*val))
                    {
                        let t = self.ty(*val);
                        let mut em = self.emit();
                        let mut r = em.def(t.clone(), Expr::GradRead(g, *arr, idx.clone(), false));
                        if *op == AtomicOp::Sub {
                            r = em.def(t, Expr::Unary(UnOp::Neg, r));
                        }
                        out.extend(em.out);
                        self.accum_value(out, *val, r);
                    }
                }
                AtomicOp::Min | AtomicOp::Max => {
                    if self.diff(&self.ty(*val)) && self.grad_of(*arr).is_some() {
                        self.blockers.insert(
                            "`atomic_min`/`atomic_max` are not differentiable; compute the extremum, then differentiate a plain store".into(),
                        );
                    }
                }
            }
            return;
        }
        self.refuse_lost_structure(v, e);
        let Some(&adj) = self.adj_val.get(&v) else {
            // A func that writes float arrays passes their gradients on (and
            // consumes those of the elements it overwrites) whether or not its
            // result carries gradient.
            if let Expr::Call {
                name,
                path,
                args,
                writes,
            } = e
                && !written_float_args(&self.g, args, writes).is_empty()
            {
                let seed = (self.ty(v) != Type::Unit).then(|| {
                    let t = self.ty(v);
                    let mut em = self.emit();
                    let z = em.def(t.clone(), Expr::Zero(t));
                    out.extend(em.out);
                    z
                });
                self.reverse_call(out, name, path, args, seed);
            }
            return;
        };
        let mut em = self.emit();
        let a_v = em.read(adj);
        out.extend(em.out);
        match e {
            Expr::Var(var) if self.diff(&self.g.vars[var.0 as usize].ty) => {
                let t = self.adj_of_var(*var);
                self.accum_into(out, t, a_v);
            }
            Expr::Param(i) => {
                let t = self.param_adj_var(*i);
                self.accum_into(out, t, a_v);
            }
            Expr::Unary(UnOp::Neg, a) => {
                let t = self.ty(*a);
                let mut em = self.emit();
                let r = em.def(t, Expr::Adjoint("neg", vec![*a, a_v]));
                out.extend(em.out);
                self.accum_value(out, *a, r);
            }
            Expr::Binary(op, a, b) if self.diff(&self.ty(v)) => {
                let name = match op {
                    BinOp::Add => "add",
                    BinOp::Sub => "sub",
                    BinOp::Mul => "mul",
                    BinOp::Div => "div",
                    BinOp::Rem => "rem",
                    _ => return self.reset(out, adj),
                };
                let tt = Type::Tuple(vec![self.ty(*a), self.ty(*b)]);
                let mut em = self.emit();
                let r = em.def(tt, Expr::Adjoint(name, vec![*a, *b, a_v]));
                let (ta, tb) = (
                    em.f.values[a.0 as usize].ty.clone(),
                    em.f.values[b.0 as usize].ty.clone(),
                );
                let ra = em.def(ta, Expr::Extract(r, 0));
                let rb = em.def(tb, Expr::Extract(r, 1));
                out.extend(em.out);
                self.accum_value(out, *a, ra);
                self.accum_value(out, *b, rb);
            }
            Expr::Cast(a, _) if self.diff(&self.ty(*a)) => {
                let t = self.ty(*a);
                let Type::Scalar(s) = t else { unreachable!() };
                let mut em = self.emit();
                let r = em.def(t, Expr::Cast(a_v, s));
                out.extend(em.out);
                self.accum_value(out, *a, r);
            }
            Expr::Builtin(name, args) => {
                let diff = builtins::doc(name).is_some_and(|d| d.differentiable);
                if diff && self.diff(&self.ty(v)) && args.iter().all(|a| self.diff(&self.ty(*a))) {
                    let mut call = args.clone();
                    call.push(a_v);
                    let tys: Vec<Type> = args.iter().map(|a| self.ty(*a)).collect();
                    let rt = if tys.len() == 1 {
                        tys[0].clone()
                    } else {
                        Type::Tuple(tys.clone())
                    };
                    let mut em = self.emit();
                    let r = em.def(rt, Expr::Adjoint(name, call));
                    let parts: Vec<ValueId> = if tys.len() == 1 {
                        vec![r]
                    } else {
                        tys.iter()
                            .enumerate()
                            .map(|(i, t)| em.def(t.clone(), Expr::Extract(r, i as u32)))
                            .collect()
                    };
                    out.extend(em.out);
                    for (a, p) in args.iter().zip(parts) {
                        self.accum_value(out, *a, p);
                    }
                }
            }
            // A func's adjoint only matters when gradient flows out of its result or
            // it writes arrays: a pure func with an integer or boolean result (a
            // search that returns an index, say) passes no gradient to its inputs.
            Expr::Call {
                name,
                path,
                args,
                writes,
            } if call_needs_adjoint(&self.g, v, writes) => {
                let seed = (self.ty(v) != Type::Unit).then_some(a_v);
                self.reverse_call(out, name, path, args, seed);
            }
            Expr::Construct(_, parts) => {
                let parts = parts.clone();
                for (i, p) in parts.iter().enumerate() {
                    if self.diff(&self.ty(*p)) {
                        let t = self.ty(*p);
                        let mut em = self.emit();
                        let x = em.def(t, Expr::Extract(a_v, i as u32));
                        out.extend(em.out);
                        self.accum_value(out, *p, x);
                    }
                }
            }
            Expr::Splat(_, x) => {
                let t = self.ty(*x);
                let mut em = self.emit();
                let r = em.def(t, Expr::Adjoint("splat", vec![a_v]));
                out.extend(em.out);
                self.accum_value(out, *x, r);
            }
            Expr::Extract(a, i) if self.diff(&self.ty(*a)) => {
                let t = self.ty(*a);
                let mut em = self.emit();
                let z = em.def(t.clone(), Expr::Zero(t.clone()));
                let r = em.def(t, Expr::Insert(z, *i, a_v));
                out.extend(em.out);
                self.accum_value(out, *a, r);
            }
            Expr::Insert(a, i, x) => {
                let (ta, tx) = (self.ty(*a), self.ty(*x));
                let mut em = self.emit();
                let part = em.def(tx.clone(), Expr::Extract(a_v, *i));
                let z = em.def(tx.clone(), Expr::Zero(tx));
                let rest = em.def(ta, Expr::Insert(a_v, *i, z));
                out.extend(em.out);
                self.accum_value(out, *x, part);
                self.accum_value(out, *a, rest);
            }
            Expr::DynIndex(a, k) => {
                let t = self.ty(*a);
                let mut em = self.emit();
                let z = em.def(t.clone(), Expr::Zero(t.clone()));
                let r = em.def(t, Expr::DynInsert(z, *k, a_v));
                out.extend(em.out);
                self.accum_value(out, *a, r);
            }
            Expr::DynInsert(a, k, x) => {
                let (ta, tx) = (self.ty(*a), self.ty(*x));
                let mut em = self.emit();
                let part = em.def(tx.clone(), Expr::DynIndex(a_v, *k));
                let z = em.def(tx.clone(), Expr::Zero(tx));
                let rest = em.def(ta, Expr::DynInsert(a_v, *k, z));
                out.extend(em.out);
                self.accum_value(out, *x, part);
                self.accum_value(out, *a, rest);
            }
            Expr::MatElem(m, r, c) => {
                let t = self.ty(*m);
                let mut em = self.emit();
                let z = em.def(t.clone(), Expr::Zero(t.clone()));
                let x = em.def(t, Expr::MatInsert(z, *r, *c, a_v));
                out.extend(em.out);
                self.accum_value(out, *m, x);
            }
            Expr::Load(arr, idx) => {
                if let Some(g) = self.grad_of(*arr) {
                    out.push(Stmt::GradAdd(g, *arr, idx.clone(), a_v));
                } else if self.diff(&self.ty(v)) && !matches!(self.ty(v), Type::Struct(_)) {
                    // (Structures read from arrays are refused where they are
                    // read, by `refuse_lost_structure`.)
                    self.blockers.insert(
                        "it reads a float array that has no gradient array (a field of a structure built or copied into a local); gradients through such arrays are not supported yet (use the parameter's array)".into(),
                    );
                }
            }
            _ => {}
        }
        self.reset(out, adj);
    }

    fn param_adj_var(&mut self, i: usize) -> VarId {
        if let Some(v) = self.param_adj.get(&i) {
            return *v;
        }
        let p = self.g.params[i].clone();
        let v = self.g.var(&format!("adj_{}", p.name), p.ty);
        self.param_adj.insert(i, v);
        v
    }
}

/// Builds the adjoint of a kernel or func (see [`Adjoint`]), knowing only what
/// its own body does with arrays (see [`adjoint_with`]).
pub fn adjoint(f: &Function) -> Adjoint {
    adjoint_with(f, &|_| None)
}

/// [`adjoint`], knowing what the funcs `f` calls do with the arrays it hands them:
/// `callee` gives a func's accesses by name, as
/// [`array_accesses_with`](crate::access::array_accesses_with) takes them. A
/// kernel then gets gradients for the arrays of a structure parameter that only
/// its funcs read, and refuses reads and writes of one array split between it and
/// its funcs.
pub fn adjoint_with(
    f: &Function,
    callee: &dyn Fn(&str) -> Option<Vec<crate::access::ArrayAccess>>,
) -> Adjoint {
    let fwd = eliminate_jumps(f);
    let mut g = fwd.clone();
    g.name = format!("{}_adjoint", f.name);
    g.hoisted = true;
    g.body = Block::default();
    let mut grad_params = vec![None; f.params.len()];
    let accesses = crate::access::array_accesses_with(&fwd, callee);
    // An array of floats gets a gradient array of its shape; a structure holding
    // such arrays a structure of the same type whose arrays are those arrays'
    // gradients: a kernel's when it uses them (it or its funcs), a func's always
    // (its callers hand theirs down).
    for (i, p) in f.params.iter().enumerate() {
        let ty = match &p.ty {
            Type::Array { elem, ndim, .. } if elem.is_float_based() => Type::Array {
                elem: elem.clone(),
                ndim: *ndim,
                access: Access::Write,
            },
            Type::Struct(_)
                if match f.kind {
                    FnKind::Kernel => accesses
                        .iter()
                        .any(|a| a.source.param == i && a.differentiable()),
                    FnKind::Func => holds_float_arrays(&p.ty, &f.structs),
                } =>
            {
                p.ty.clone()
            }
            _ => continue,
        };
        grad_params[i] = Some(g.params.len());
        g.params.push(Param {
            name: format!("adj_{}", p.name),
            ty,
            span: Span::call_site(),
            writable: false,
        });
    }
    if f.kind == FnKind::Func && f.ret != Type::Unit {
        // The seed, after the gradient arrays.
        g.params.push(Param {
            name: "adj_result".into(),
            ty: f.ret.clone(),
            span: Span::call_site(),
            writable: false,
        });
    }
    let mut st = Gen {
        g,
        adj_val: HashMap::new(),
        adj_var: HashMap::new(),
        array_param: HashMap::new(),
        grad_value: HashMap::new(),
        param_adj: HashMap::new(),
        blockers: BTreeSet::new(),
        act: Activity::of(&fwd),
        needed: HashSet::new(),
        grad_param_value: HashMap::new(),
        handed: Vec::new(),
    };
    // The gradient arrays, at the top: those of every float array in the
    // parameters that have them, and the structures of them (funcs hand them on).
    let mut prologue = Vec::new();
    st.array_param = array_sources(&fwd, &fwd.body);
    for (i, gp) in grad_params.iter().enumerate() {
        let Some(gp) = gp else { continue };
        let t = st.g.params[*gp].ty.clone();
        let mut e = st.emit();
        let root = e.def(t.clone(), Expr::Param(*gp));
        prologue.extend(e.out);
        let src = ArraySource {
            param: i,
            path: vec![],
        };
        st.define_grads(&mut prologue, src, root, &t);
    }
    st.refuse_in_place(f, &accesses);
    st.needed = needed::needed(&fwd, &st.act, &|a| st.grad_of(a).is_some());
    st.refuse_rewritten_reads(&fwd, &accesses);
    let mut body = prologue;
    body.extend(st.replay(&fwd.body, true));
    // The float fields of a structure that holds arrays carry no adjoint: refuse
    // rather than drop their gradient.
    if f.kind == FnKind::Func && handle_with_floats(&f.ret, &f.structs) {
        st.blockers.insert(
            "it returns a structure that holds both arrays and float fields, and no gradient passes through the float fields of such structures (return the floats in a structure without arrays, or a tuple)".into(),
        );
    }
    // Seed the result's adjoint (funcs).
    if f.kind == FnKind::Func
        && f.ret != Type::Unit
        && let Some(Stmt::Return(Some(r))) = fwd.body.0.last()
    {
        let seed_param = st.g.params.len() - 1;
        let t = f.ret.clone();
        let mut e = st.emit();
        let seed = e.def(t, Expr::Param(seed_param));
        body.extend(e.out);
        if differentiable(&f.ret, &f.structs) {
            let a = st.adj_of_value(*r);
            let mut e = st.emit();
            e.out.push(Stmt::Assign(a, seed));
            body.extend(e.out);
        }
    }
    body.extend(st.reverse(&fwd.body));
    if f.kind == FnKind::Func {
        // The tuple of parameter adjoints.
        let mut parts = Vec::new();
        let mut tys = Vec::new();
        for (i, p) in f.params.iter().enumerate() {
            let mut e = st.emit();
            if differentiable(&p.ty, &f.structs) {
                let v = st.param_adj_var(i);
                let mut e2 = st.emit();
                let x = e2.read(v);
                body.extend(e2.out);
                parts.push(x);
                tys.push(p.ty.clone());
            } else {
                let x = e.def(Type::Unit, Expr::Construct(Type::Unit, vec![]));
                body.extend(e.out);
                parts.push(x);
                tys.push(Type::Unit);
            }
        }
        let rt = Type::Tuple(tys);
        let mut e = st.emit();
        let r = e.def(rt.clone(), Expr::Construct(rt.clone(), parts));
        e.out.push(Stmt::Return(Some(r)));
        body.extend(e.out);
        st.g.ret = rt;
    }
    st.g.body = Block(body);
    let calls = active_calls(&fwd, &st.act);
    let grad_uses = grad_uses(&st.g.body, &st.grad_param_value);
    Adjoint {
        function: st.g,
        grad_params,
        blockers: st.blockers.into_iter().collect(),
        calls,
        grad_uses,
        handed: st.handed,
    }
}

/// The funcs `f` calls with an active result or a writable array, by name, each
/// once (see [`Adjoint::calls`]).
fn active_calls(f: &Function, act: &Activity) -> Vec<String> {
    let mut out = BTreeSet::new();
    f.body.for_each_stmt(&mut |s| {
        if let Stmt::Def(v, Expr::Call { name, writes, .. }) = s
            && (act.active(*v) || writes_arrays(writes))
        {
            out.insert(name.clone());
        }
    });
    out.into_iter().collect()
}
