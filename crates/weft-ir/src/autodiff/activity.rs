//! Activity analysis: which values and variables of a function carry gradient.
//!
//! The reverse pass moves adjoints along fixed edges, from a value to the operands
//! its adjoint rule feeds (from `y = a * b` to `a` and `b`, from a variable read to
//! the variable, from a variable to the values assigned to it). A value is
//! **useful** when an adjoint can reach it from a *root* — a func's result, a value
//! stored into an array or added to one atomically, a call that writes float
//! arrays (to its arguments) — and **varied** when its adjoint can reach a *sink*: a func
//! parameter or an array element read. Only values that are both (**active**) need
//! an adjoint: the rest would only ever hold zeros. The adjoint generator skips
//! them, which keeps its code small and lets a function read arrays for values
//! that no gradient passes through (a search's box tests, a sign behind
//! `stop_gradient`) without being refused for reading them.
//!
//! Structures take part too. Adjoints flow through structures of values as through
//! tuples, field by field; through those that hold arrays none flows, and their
//! edges find the places where gradient would be lost in one (see
//! [`super::adjoint()`]'s refusals).

use std::collections::{HashMap, HashSet};

use crate::builtins;
use crate::ir::*;
use crate::types::Type;

use super::adjoint::{call_needs_adjoint, differentiable, holds_float_arrays};

/// A node of the adjoint flow graph.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Node {
    Val(ValueId),
    Var(VarId),
}

/// The active values and variables of one function (see the module docs).
#[derive(Debug, Default)]
pub struct Activity {
    useful: HashSet<Node>,
    varied: HashSet<Node>,
}

/// Whether values of type `t` can hold floats: float-based types, and structures
/// and tuples with such parts.
pub fn carries(t: &Type, structs: &HashMap<String, StructDef>) -> bool {
    match t {
        Type::Tuple(ts) => ts.iter().any(|t| carries(t, structs)),
        Type::Struct(name) => structs
            .get(name)
            .is_some_and(|s| s.fields.iter().any(|(_, ft)| carries(ft, structs))),
        other => other.is_float_based(),
    }
}

struct Graph<'f> {
    f: &'f Function,
    edges: HashMap<Node, Vec<Node>>,
    roots: Vec<Node>,
    sinks: Vec<Node>,
}

impl Graph<'_> {
    fn carries(&self, t: &Type) -> bool {
        carries(t, &self.f.structs)
    }

    fn val_carries(&self, v: ValueId) -> bool {
        self.carries(self.f.ty(v))
    }

    fn edge(&mut self, from: Node, to: Node) {
        self.edges.entry(from).or_default().push(to);
    }

    /// Edges from `v` to those of `to` that can hold floats.
    fn edges_to(&mut self, v: ValueId, to: &[ValueId]) {
        for t in to {
            if self.val_carries(*t) {
                self.edge(Node::Val(v), Node::Val(*t));
            }
        }
    }

    fn walk(&mut self, b: &Block) {
        let f = self.f;
        for s in &b.0 {
            match s {
                Stmt::Def(v, e) => self.def(*v, e),
                Stmt::Let(var, v) | Stmt::Assign(var, v)
                    if self.carries(&f.vars[var.0 as usize].ty) && self.val_carries(*v) =>
                {
                    self.edge(Node::Var(*var), Node::Val(*v));
                }
                Stmt::Store(_, _, v) if self.val_carries(*v) => self.roots.push(Node::Val(*v)),
                // No adjoint flows through a local array: these edges find the
                // arrays that would need one.
                Stmt::LocalStore(var, _, v) if self.val_carries(*v) => {
                    self.edge(Node::Var(*var), Node::Val(*v));
                }
                Stmt::Return(Some(r)) if f.kind == FnKind::Func && self.val_carries(*r) => {
                    self.roots.push(Node::Val(*r));
                }
                Stmt::If(_, a, c) | Stmt::While(a, _, c) => {
                    self.walk(a);
                    self.walk(c);
                }
                Stmt::For(_, _, _, body) | Stmt::ForRev(_, _, _, body) => self.walk(body),
                _ => {}
            }
        }
    }

    fn def(&mut self, v: ValueId, e: &Expr) {
        let f = self.f;
        let ty = f.ty(v);
        let arith = |op: &BinOp| {
            matches!(
                op,
                BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
            )
        };
        let diff_builtin = |name: &str| builtins::doc(name).is_some_and(|d| d.differentiable);
        match e {
            Expr::Var(var) if self.carries(&f.vars[var.0 as usize].ty) => {
                self.edge(Node::Val(v), Node::Var(*var));
            }
            // A kernel's value parameters are constants of the launch; a func's
            // parameters receive its caller's gradient.
            Expr::Param(i) if f.kind == FnKind::Func && self.carries(&f.params[*i].ty) => {
                self.sinks.push(Node::Val(v));
            }
            Expr::Unary(UnOp::Neg, a) => self.edges_to(v, &[*a]),
            Expr::Binary(op, a, b) if arith(op) && differentiable(ty, &f.structs) => {
                self.edges_to(v, &[*a, *b]);
            }
            Expr::Cast(a, _) if differentiable(f.ty(*a), &f.structs) => self.edges_to(v, &[*a]),
            Expr::Builtin(name, args)
                if diff_builtin(name)
                    && differentiable(ty, &f.structs)
                    && args.iter().all(|a| differentiable(f.ty(*a), &f.structs)) =>
            {
                self.edges_to(v, args);
            }
            Expr::Call { args, writes, .. } => {
                if call_needs_adjoint(f, v, writes) {
                    self.edges_to(v, args);
                }
                // What a func writes into float arrays is an output, whatever its
                // result.
                if !written_float_args(f, args, writes).is_empty() {
                    self.roots.push(Node::Val(v));
                }
                // A func handed arrays may return what it reads from them.
                let arrays = args
                    .iter()
                    .any(|a| matches!(f.ty(*a), Type::Array { .. } | Type::Struct(_)));
                if arrays && self.carries(ty) {
                    self.sinks.push(Node::Val(v));
                }
            }
            Expr::Construct(_, parts) => self.edges_to(v, parts),
            Expr::Splat(_, x) => self.edges_to(v, &[*x]),
            Expr::Extract(a, _) | Expr::DynIndex(a, _) | Expr::MatElem(a, _, _) => {
                self.edges_to(v, &[*a])
            }
            Expr::Insert(a, _, x) | Expr::DynInsert(a, _, x) => self.edges_to(v, &[*a, *x]),
            Expr::Load(..) if self.carries(ty) => self.sinks.push(Node::Val(v)),
            Expr::LocalLoad(var, _) if self.carries(ty) => {
                self.edge(Node::Val(v), Node::Var(*var));
            }
            Expr::Atomic(_, _, _, val) if self.val_carries(*val) => {
                self.roots.push(Node::Val(*val));
            }
            _ => {}
        }
    }
}

/// Whether a call hands the func something it may write: a `&mut` array or
/// structure of arrays (`writes`, per argument, as [`Expr::Call`] holds it).
pub fn writes_arrays(writes: &[bool]) -> bool {
    writes.iter().any(|w| *w)
}

/// The arguments of a call that the func may write and that hold float arrays
/// (arrays of floats, or structures holding them).
pub fn written_float_args(f: &Function, args: &[ValueId], writes: &[bool]) -> Vec<ValueId> {
    args.iter()
        .zip(writes)
        .filter(|(a, w)| **w && holds_float_arrays(f.ty(**a), &f.structs))
        .map(|(a, _)| *a)
        .collect()
}

/// Everything reachable from `start` along `edges`.
fn reach(start: &[Node], edges: &HashMap<Node, Vec<Node>>) -> HashSet<Node> {
    let mut seen: HashSet<Node> = start.iter().copied().collect();
    let mut todo: Vec<Node> = start.to_vec();
    while let Some(n) = todo.pop() {
        for m in edges.get(&n).into_iter().flatten() {
            if seen.insert(*m) {
                todo.push(*m);
            }
        }
    }
    seen
}

impl Activity {
    /// The analysis of `f`, whose jumps must be eliminated
    /// ([`super::eliminate_jumps`]).
    pub fn of(f: &Function) -> Activity {
        let mut g = Graph {
            f,
            edges: HashMap::new(),
            roots: Vec::new(),
            sinks: Vec::new(),
        };
        g.walk(&f.body);
        let mut back: HashMap<Node, Vec<Node>> = HashMap::new();
        for (from, tos) in &g.edges {
            for to in tos {
                back.entry(*to).or_default().push(*from);
            }
        }
        Activity {
            useful: reach(&g.roots, &g.edges),
            varied: reach(&g.sinks, &back),
        }
    }

    /// Whether an adjoint can reach value `v` from an output.
    pub fn useful(&self, v: ValueId) -> bool {
        self.useful.contains(&Node::Val(v))
    }

    /// Whether value `v`'s adjoint can reach an input.
    pub fn varied(&self, v: ValueId) -> bool {
        self.varied.contains(&Node::Val(v))
    }

    /// Whether value `v` needs an adjoint: useful and varied.
    pub fn active(&self, v: ValueId) -> bool {
        self.useful(v) && self.varied(v)
    }

    /// Whether variable `v` needs an adjoint.
    pub fn active_var(&self, v: VarId) -> bool {
        let n = Node::Var(v);
        self.useful.contains(&n) && self.varied.contains(&n)
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;
    use crate::autodiff::eliminate_jumps;
    use crate::types::Scalar;
    use crate::{Builder, Env, Param};

    #[test]
    fn structures_of_values_carry_gradient_and_handles_do_not() {
        let def = |name: &str, fields: Vec<(&str, Type)>| {
            let fields = fields.into_iter().map(|(n, t)| (n.into(), t)).collect();
            (
                name.to_string(),
                StructDef {
                    name: name.into(),
                    fields,
                },
            )
        };
        let arr = Type::Array {
            elem: Box::new(Type::F32),
            ndim: 1,
            access: crate::types::Access::Read,
        };
        let structs: HashMap<String, StructDef> = [
            def(
                "Hit",
                vec![("hit", Type::BOOL), ("t", Type::F32), ("face", Type::I32)],
            ),
            def("Ids", vec![("a", Type::I32), ("b", Type::BOOL)]),
            def(
                "Outer",
                vec![
                    ("ids", Type::Struct("Ids".into())),
                    ("h", Type::Struct("Hit".into())),
                ],
            ),
            def("Mesh", vec![("points", arr), ("scale", Type::F32)]),
            def(
                "Holder",
                vec![("m", Type::Struct("Mesh".into())), ("k", Type::F32)],
            ),
        ]
        .into_iter()
        .collect();
        let d = |n: &str| differentiable(&Type::Struct(n.into()), &structs);
        assert!(d("Hit") && d("Outer"));
        // No floats; arrays (directly or nested) make a handle.
        assert!(!d("Ids") && !d("Mesh") && !d("Holder"));
        let tuple = Type::Tuple(vec![Type::I32, Type::Struct("Hit".into())]);
        assert!(differentiable(&tuple, &structs));
    }

    #[test]
    fn only_values_between_inputs_and_the_result_are_active() {
        // fn f(x: f32) -> f32 {
        //     let a = x * x;                     // active
        //     let b = x + x;                     // varied, only compared
        //     let s = stop_gradient(x * 3.0);    // useful, varied by nothing
        //     let c = 2.0 * 5.0;                 // useful, constant
        //     if b > 1.0 { .. }
        //     a + s + c
        // }
        let env = Env::default();
        let sp = Span::call_site();
        let x = Param {
            name: "x".into(),
            ty: Type::F32,
            span: sp,
            writable: false,
        };
        let mut b = Builder::new(&env, "f", FnKind::Func, vec![x], Type::F32);
        let f32_lit = |b: &mut Builder, v| b.lit_float(v, Some(Scalar::F32), sp);
        let x = b.param(0, sp);
        let a = b.binary(BinOp::Mul, x, x, sp).unwrap();
        let bb = b.binary(BinOp::Add, x, x, sp).unwrap();
        let three = f32_lit(&mut b, 3.0);
        let x3 = b.binary(BinOp::Mul, x, three, sp).unwrap();
        let s = b.builtin("stop_gradient", vec![x3], sp).unwrap();
        let (two, five) = (f32_lit(&mut b, 2.0), f32_lit(&mut b, 5.0));
        let c = b.binary(BinOp::Mul, two, five, sp).unwrap();
        let one = f32_lit(&mut b, 1.0);
        let _cmp = b.binary(BinOp::Gt, bb, one, sp).unwrap();
        let r = b.binary(BinOp::Add, a, s, sp).unwrap();
        let r = b.binary(BinOp::Add, r, c, sp).unwrap();
        b.push_return(Some(r), sp).unwrap();
        let f = eliminate_jumps(&b.finish(sp).unwrap());
        let act = Activity::of(&f);
        assert!(act.active(x) && act.active(a) && act.active(r));
        assert!(act.varied(bb) && !act.useful(bb));
        assert!(act.varied(x3) && !act.useful(x3));
        assert!(act.useful(s) && !act.varied(s));
        assert!(act.useful(c) && !act.varied(c) && !act.active(two));
    }
}
