//! Which forward values the adjoint's own work depends on.
//!
//! The adjoint replays the forward code to recover its values, but it cannot
//! recover everything: an atomic's old value is gone once other threads have added
//! to the element, and calling a func that writes arrays again would write them
//! twice. Such a value is harmless when nothing the adjoint does depends on it — it
//! only feeds a store the replay leaves out, say, as a grid build's slot index
//! does — and fatal when it does: when it reaches an active value, the index of an
//! element whose gradient is read or added to, or a branch or loop around such
//! work. [`needed`] finds the values that do, following definitions and variable
//! assignments backwards from that work.

use std::collections::{HashMap, HashSet};

use crate::ir::*;

use super::activity::Activity;
use super::adjoint::differentiable;

/// Whether the reverse pass of `b` does anything: it holds an active value or
/// variable, or a store or atomic add into an array with a gradient (`has_grad`),
/// whose adjoint consumes or reads the element's gradient.
pub(super) fn block_active(
    f: &Function,
    act: &Activity,
    has_grad: &dyn Fn(ValueId) -> bool,
    b: &Block,
) -> bool {
    let active = |b: &Block| block_active(f, act, has_grad, b);
    b.0.iter().any(|s| match s {
        Stmt::Def(_, Expr::Atomic(AtomicOp::Add | AtomicOp::Sub, arr, _, val)) => {
            has_grad(*arr) && act.active(*val)
        }
        Stmt::Def(v, _) => act.active(*v),
        Stmt::Let(var, _) | Stmt::Assign(var, _) => act.active_var(*var),
        Stmt::Store(arr, _, v) => has_grad(*arr) && differentiable(f.ty(*v), &f.structs),
        Stmt::If(_, a, c) | Stmt::While(a, _, c) => active(a) || active(c),
        Stmt::For(_, _, _, body) => active(body),
        _ => false,
    })
}

#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Node {
    Val(ValueId),
    Var(VarId),
}

struct Walk<'a> {
    f: &'a Function,
    act: &'a Activity,
    has_grad: &'a dyn Fn(ValueId) -> bool,
    defs: HashMap<ValueId, &'a Expr>,
    /// Per node, what else it is computed from: a variable's assigned values (for
    /// local arrays, the indices and values stored into it), and for values and
    /// variables alike the conditions and loop bounds around their definitions.
    deps: HashMap<Node, Vec<ValueId>>,
    /// The conditions and loop bounds around the statement being walked.
    ctrl: Vec<ValueId>,
    roots: Vec<Node>,
}

impl<'a> Walk<'a> {
    fn active(&self, b: &Block) -> bool {
        block_active(self.f, self.act, self.has_grad, b)
    }

    fn set(&mut self, n: Node, from: &[ValueId]) {
        let d = self.deps.entry(n).or_default();
        d.extend(from);
        d.extend(&self.ctrl);
    }

    fn walk(&mut self, b: &'a Block) {
        for s in &b.0 {
            match s {
                Stmt::Def(v, e) => {
                    self.defs.insert(*v, e);
                    self.set(Node::Val(*v), &[]);
                    match e {
                        // Its adjoint reads the element's gradient: the index
                        // and the value matter, not the old value it returns.
                        Expr::Atomic(AtomicOp::Add | AtomicOp::Sub, arr, idx, val)
                            if (self.has_grad)(*arr) && self.act.active(*val) =>
                        {
                            self.roots
                                .extend(idx.iter().chain([val]).map(|i| Node::Val(*i)));
                        }
                        _ if self.act.active(*v) => self.roots.push(Node::Val(*v)),
                        _ => {}
                    }
                }
                Stmt::Let(var, v) | Stmt::Assign(var, v) => {
                    self.set(Node::Var(*var), &[*v]);
                    if self.act.active_var(*var) {
                        self.roots.push(Node::Val(*v));
                    }
                }
                Stmt::LocalStore(var, k, v) => self.set(Node::Var(*var), &[*k, *v]),
                Stmt::Store(arr, idx, v)
                    if (self.has_grad)(*arr) && differentiable(self.f.ty(*v), &self.f.structs) =>
                {
                    self.roots
                        .extend(idx.iter().chain([v]).map(|i| Node::Val(*i)));
                }
                // A branch or a `while` (condition block, then body) around work
                // of the adjoint: its condition matters.
                Stmt::If(c, a, e) | Stmt::While(a, c, e) => {
                    if self.active(a) || self.active(e) {
                        self.roots.push(Node::Val(*c));
                    }
                    self.ctrl.push(*c);
                    self.walk(a);
                    self.walk(e);
                    self.ctrl.pop();
                }
                Stmt::For(_, start, end, body) => {
                    if self.active(body) {
                        self.roots.extend([Node::Val(*start), Node::Val(*end)]);
                    }
                    self.ctrl.extend([*start, *end]);
                    self.walk(body);
                    self.ctrl.truncate(self.ctrl.len() - 2);
                }
                _ => {}
            }
        }
    }

    /// What node `n` is computed from.
    fn inputs(&self, n: Node) -> Vec<Node> {
        let mut out: Vec<Node> = self
            .deps
            .get(&n)
            .into_iter()
            .flatten()
            .map(|v| Node::Val(*v))
            .collect();
        if let Node::Val(v) = n
            && let Some(e) = self.defs.get(&v)
        {
            out.extend(e.operands().into_iter().map(Node::Val));
            if let Expr::Var(var) | Expr::LocalLoad(var, _) | Expr::Rng(_, var, _) = e {
                out.push(Node::Var(*var));
            }
        }
        out
    }
}

/// The values of `f` (jumps eliminated) that the adjoint's work depends on (see
/// the module docs); `has_grad` tells the arrays with gradients.
pub(super) fn needed(
    f: &Function,
    act: &Activity,
    has_grad: &dyn Fn(ValueId) -> bool,
) -> HashSet<ValueId> {
    let mut w = Walk {
        f,
        act,
        has_grad,
        defs: HashMap::new(),
        deps: HashMap::new(),
        ctrl: Vec::new(),
        roots: Vec::new(),
    };
    w.walk(&f.body);
    let mut seen: HashSet<Node> = w.roots.iter().copied().collect();
    let mut todo = w.roots.clone();
    while let Some(n) = todo.pop() {
        for m in w.inputs(n) {
            if seen.insert(m) {
                todo.push(m);
            }
        }
    }
    seen.into_iter()
        .filter_map(|n| match n {
            Node::Val(v) => Some(v),
            Node::Var(_) => None,
        })
        .collect()
}
