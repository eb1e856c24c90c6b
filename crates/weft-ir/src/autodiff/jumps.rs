//! Jump elimination: rewrites `break`, `continue` and `return` into flag variables
//! and guarded blocks, so that every block runs from its start to its end.
//!
//! The adjoint is generated from this form: replaying a loop body and walking it
//! backwards is only straightforward when control cannot leave a block early. The
//! forward kernel itself keeps its jumps (they are faster).

use proc_macro2::Span;

use crate::ir::*;
use crate::types::{Scalar, Type};

/// Function-building helpers for passes that add values and variables.
pub(crate) trait FnBuild {
    fn value(&mut self, ty: Type) -> ValueId;
    fn var(&mut self, name: &str, ty: Type) -> VarId;
}

impl FnBuild for Function {
    fn value(&mut self, ty: Type) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(ValueInfo {
            ty,
            span: Span::call_site(),
        });
        id
    }
    fn var(&mut self, name: &str, ty: Type) -> VarId {
        let id = VarId(self.vars.len() as u32);
        self.vars.push(VarInfo {
            name: name.to_string(),
            ty,
            mutable: true,
        });
        id
    }
}

/// Emits statements into a block while allocating values in a function.
pub(crate) struct Emit<'a> {
    pub f: &'a mut Function,
    pub out: Vec<Stmt>,
}

impl Emit<'_> {
    pub fn def(&mut self, ty: Type, e: Expr) -> ValueId {
        let v = self.f.value(ty);
        self.out.push(Stmt::Def(v, e));
        v
    }
    pub fn bool_lit(&mut self, b: bool) -> ValueId {
        self.def(Type::BOOL, Expr::Lit(Lit::Bool(b)))
    }
    pub fn read(&mut self, var: VarId) -> ValueId {
        let t = self.f.vars[var.0 as usize].ty.clone();
        self.def(t, Expr::Var(var))
    }
    pub fn set_bool(&mut self, var: VarId, b: bool) {
        let v = self.bool_lit(b);
        self.out.push(Stmt::Assign(var, v));
    }
    /// `!(a || b || …)` over flag variables.
    pub fn none_set(&mut self, flags: &[VarId]) -> ValueId {
        let mut acc = self.bool_lit(false);
        for f in flags {
            let r = self.read(*f);
            acc = self.def(Type::BOOL, Expr::Binary(BinOp::BitOr, acc, r));
        }
        self.def(Type::BOOL, Expr::Unary(UnOp::Not, acc))
    }
}

#[derive(Clone, Copy)]
struct Ctx {
    ret: VarId,
    retval: Option<VarId>,
    /// `break` and `continue` flags of the innermost loop.
    lp: Option<(VarId, VarId)>,
}

impl Ctx {
    fn flags(&self) -> Vec<VarId> {
        let mut v = vec![self.ret];
        if let Some((b, c)) = self.lp {
            v.push(b);
            v.push(c);
        }
        v
    }
}

/// Whether a block contains a jump that leaves it (a `return` anywhere, or a
/// `break`/`continue` not inside a nested loop).
fn may_jump(b: &Block, in_nested_loop: bool) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::Break | Stmt::Continue => !in_nested_loop,
        Stmt::If(_, a, c) => may_jump(a, in_nested_loop) || may_jump(c, in_nested_loop),
        Stmt::For(_, _, _, body) | Stmt::While(_, _, body) => may_jump(body, true),
        _ => false,
    })
}

fn has_return(b: &Block) -> bool {
    b.0.iter().any(|s| match s {
        Stmt::Return(_) => true,
        Stmt::If(_, a, c) => has_return(a) || has_return(c),
        Stmt::For(_, _, _, body) | Stmt::While(_, _, body) => has_return(body),
        _ => false,
    })
}

/// Returns `f` with every `break`, `continue` and `return` replaced by flags. A func
/// with a result ends in a single `return` of a result variable.
pub fn eliminate_jumps(f: &Function) -> Function {
    let mut g = f.clone();
    let body = std::mem::take(&mut g.body);
    let ret = g.var("returned", Type::BOOL);
    let retval = (g.ret != Type::Unit).then(|| g.var("result", g.ret.clone()));
    let ctx = Ctx {
        ret,
        retval,
        lp: None,
    };
    let mut e = Emit {
        f: &mut g,
        out: Vec::new(),
    };
    let fls = e.bool_lit(false);
    e.out.push(Stmt::Let(ret, fls));
    if let Some(r) = retval {
        e.out.push(Stmt::Declare(r));
    }
    let mut out = e.out;
    out.extend(transform(&mut g, body.0, ctx).0);
    if let Some(r) = retval {
        let mut e = Emit {
            f: &mut g,
            out: Vec::new(),
        };
        let v = e.read(r);
        e.out.push(Stmt::Return(Some(v)));
        out.extend(e.out);
    }
    g.body = Block(out);
    g
}

/// Transforms a statement list; returns the new block.
fn transform(f: &mut Function, stmts: Vec<Stmt>, ctx: Ctx) -> Block {
    let mut out = Vec::new();
    let mut it = stmts.into_iter();
    while let Some(s) = it.next() {
        match s {
            Stmt::Return(v) => {
                let mut e = Emit { f, out: Vec::new() };
                if let (Some(v), Some(r)) = (v, ctx.retval) {
                    e.out.push(Stmt::Assign(r, v));
                }
                e.set_bool(ctx.ret, true);
                out.extend(e.out);
                return Block(out); // the rest is unreachable
            }
            Stmt::Break | Stmt::Continue => {
                let (b, c) = ctx
                    .lp
                    .expect("jump outside a loop was rejected by the type checker");
                let mut e = Emit { f, out: Vec::new() };
                e.set_bool(if matches!(s, Stmt::Break) { b } else { c }, true);
                out.extend(e.out);
                return Block(out);
            }
            Stmt::If(c, a, b) => {
                let jumps = may_jump(&a, false) || may_jump(&b, false);
                let a = transform(f, a.0, ctx);
                let b = transform(f, b.0, ctx);
                out.push(Stmt::If(c, a, b));
                if jumps {
                    out.extend(guard_rest(f, it.collect(), ctx));
                    return Block(out);
                }
            }
            Stmt::For(var, start, end, body) => {
                if !may_jump(&body, false) {
                    let body = transform(f, body.0, ctx);
                    out.push(Stmt::For(var, start, end, body));
                    continue;
                }
                let returns = has_return(&body);
                out.extend(for_to_while(f, var, start, end, body, ctx));
                if returns {
                    out.extend(guard_rest(f, it.collect(), ctx));
                    return Block(out);
                }
            }
            Stmt::While(cb, c, body) => {
                if !may_jump(&body, false) {
                    let body = transform(f, body.0, ctx);
                    out.push(Stmt::While(cb, c, body));
                    continue;
                }
                let returns = has_return(&body);
                let (brk, cont) = (f.var("broke", Type::BOOL), f.var("continued", Type::BOOL));
                let mut e = Emit { f, out: Vec::new() };
                let fls = e.bool_lit(false);
                e.out.push(Stmt::Let(brk, fls));
                e.out.push(Stmt::Let(cont, fls));
                out.extend(e.out);
                let inner = Ctx {
                    lp: Some((brk, cont)),
                    ..ctx
                };
                let mut ce = Emit { f, out: cb.0 };
                let go = ce.none_set(&[ctx.ret, brk]);
                let c2 = ce.def(Type::BOOL, Expr::Binary(BinOp::BitAnd, c, go));
                let cb = Block(ce.out);
                let mut be = Emit { f, out: Vec::new() };
                be.set_bool(cont, false);
                let mut body_out = be.out;
                body_out.extend(transform(f, body.0, inner).0);
                out.push(Stmt::While(cb, c2, Block(body_out)));
                if returns {
                    out.extend(guard_rest(f, it.collect(), ctx));
                    return Block(out);
                }
            }
            other => out.push(other),
        }
    }
    Block(out)
}

/// `if !(flags) { rest }` with `rest` transformed.
fn guard_rest(f: &mut Function, rest: Vec<Stmt>, ctx: Ctx) -> Vec<Stmt> {
    if rest.is_empty() {
        return Vec::new();
    }
    let mut e = Emit { f, out: Vec::new() };
    let go = e.none_set(&ctx.flags());
    let mut out = e.out;
    let rest = transform(f, rest, ctx);
    out.push(Stmt::If(go, rest, Block::default()));
    out
}

/// `for var in start..end { body }` whose body jumps, as a `while` loop with flags.
fn for_to_while(
    f: &mut Function,
    var: VarId,
    start: ValueId,
    end: ValueId,
    body: Block,
    ctx: Ctx,
) -> Vec<Stmt> {
    let ity = f.vars[var.0 as usize].ty.clone();
    let Type::Scalar(is) = ity else {
        unreachable!("integer loop variable")
    };
    let counter = f.var("iter", ity.clone());
    let (brk, cont) = (f.var("broke", Type::BOOL), f.var("continued", Type::BOOL));
    let mut e = Emit { f, out: Vec::new() };
    e.out.push(Stmt::Let(counter, start));
    let fls = e.bool_lit(false);
    e.out.push(Stmt::Let(brk, fls));
    e.out.push(Stmt::Let(cont, fls));
    let mut out = e.out;

    let mut ce = Emit { f, out: Vec::new() };
    let i = ce.read(counter);
    let lt = ce.def(Type::BOOL, Expr::Binary(BinOp::Lt, i, end));
    let go = ce.none_set(&[ctx.ret, brk]);
    let c = ce.def(Type::BOOL, Expr::Binary(BinOp::BitAnd, lt, go));
    let cb = Block(ce.out);

    let mut be = Emit { f, out: Vec::new() };
    let i = be.read(counter);
    be.out.push(Stmt::Let(var, i));
    be.set_bool(cont, false);
    let mut body_out = be.out;
    body_out.extend(
        transform(
            f,
            body.0,
            Ctx {
                lp: Some((brk, cont)),
                ..ctx
            },
        )
        .0,
    );
    let mut ie = Emit { f, out: Vec::new() };
    let i = ie.read(counter);
    let one = ie.def(ity.clone(), Expr::Lit(Lit::Int(1, is)));
    let next = ie.def(ity, Expr::Binary(BinOp::Add, i, one));
    ie.out.push(Stmt::Assign(counter, next));
    body_out.extend(ie.out);
    let _ = Scalar::I32;
    out.push(Stmt::While(cb, c, Block(body_out)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::autodiff::interp::{Interp, V};
    use crate::{Builder, Env, Param, Result};

    fn p(name: &str) -> Param {
        Param {
            name: name.into(),
            ty: Type::I32,
            span: Span::call_site(),
            writable: false,
        }
    }

    /// A func of (n, m) full of jumps:
    /// ```text
    /// let mut acc = 0;
    /// for a in 0..n {
    ///     if a % 3 == 1 { continue; }
    ///     let mut b = 0;
    ///     while b < m {
    ///         b += 1;
    ///         if b == a { break; }
    ///         if a * b > 40 { return acc * 1000 + a; }
    ///         acc += b;
    ///     }
    ///     if acc > 200 { break; }
    /// }
    /// acc
    /// ```
    fn jumpy() -> Result<Function> {
        let env = Env::default();
        let s = Span::call_site();
        let mut b = Builder::new(&env, "jumpy", FnKind::Func, vec![p("n"), p("m")], Type::I32);
        let lit = |b: &mut Builder, v| b.lit_int(v, Some(Scalar::I32), s);
        let z = lit(&mut b, 0)?;
        let acc = b.let_var("acc", None, z, true)?;
        let n = b.param(0, s);
        let (a, st, en) = b.begin_for("a", z, n, s)?;
        b.begin_block();
        {
            let av = b.read_var(a, s);
            let three = lit(&mut b, 3)?;
            let r = b.binary(BinOp::Rem, av, three, s)?;
            let one = lit(&mut b, 1)?;
            let c = b.binary(BinOp::Eq, r, one, s)?;
            b.begin_block();
            b.push_jump(false, s)?;
            let t = b.end_block();
            b.push_if(c, t, Block::default())?;
            let bv = b.let_var("b", None, z, true)?;
            // while b < m
            b.begin_block();
            let bb = b.read_var(bv, s);
            let m = b.param(1, s);
            let cond = b.binary(BinOp::Lt, bb, m, s)?;
            let cb = b.end_block();
            b.begin_while();
            b.begin_block();
            {
                let bb = b.read_var(bv, s);
                let one = lit(&mut b, 1)?;
                let inc = b.binary(BinOp::Add, bb, one, s)?;
                b.assign(bv, inc, s)?;
                let bb = b.read_var(bv, s);
                let av = b.read_var(a, s);
                let eq = b.binary(BinOp::Eq, bb, av, s)?;
                b.begin_block();
                b.push_jump(true, s)?;
                let t = b.end_block();
                b.push_if(eq, t, Block::default())?;
                let prod = b.binary(BinOp::Mul, av, bb, s)?;
                let forty = lit(&mut b, 40)?;
                let big = b.binary(BinOp::Gt, prod, forty, s)?;
                b.begin_block();
                let accv = b.read_var(acc, s);
                let k = lit(&mut b, 1000)?;
                let x = b.binary(BinOp::Mul, accv, k, s)?;
                let y = b.binary(BinOp::Add, x, av, s)?;
                b.push_return(Some(y), s)?;
                let t = b.end_block();
                b.push_if(big, t, Block::default())?;
                let accv = b.read_var(acc, s);
                let sum = b.binary(BinOp::Add, accv, bb, s)?;
                b.assign(acc, sum, s)?;
            }
            let body = b.end_block();
            b.push_while(cb, cond, body)?;
            let accv = b.read_var(acc, s);
            let lim = lit(&mut b, 200)?;
            let over = b.binary(BinOp::Gt, accv, lim, s)?;
            b.begin_block();
            b.push_jump(true, s)?;
            let t = b.end_block();
            b.push_if(over, t, Block::default())?;
        }
        let body = b.end_block();
        b.push_for(a, st, en, body);
        let accv = b.read_var(acc, s);
        b.push_return(Some(accv), s)?;
        b.finish(s)
    }

    fn no_jumps_inside(b: &Block, top: bool) -> bool {
        b.0.iter().enumerate().all(|(i, s)| match s {
            Stmt::Break | Stmt::Continue => false,
            Stmt::Return(_) => top && i + 1 == b.0.len(),
            Stmt::If(_, x, y) => no_jumps_inside(x, false) && no_jumps_inside(y, false),
            Stmt::For(_, _, _, x) => no_jumps_inside(x, false),
            Stmt::While(c, _, x) => no_jumps_inside(c, false) && no_jumps_inside(x, false),
            _ => true,
        })
    }

    #[test]
    fn same_results_without_jumps() {
        let f = jumpy().unwrap();
        let g = eliminate_jumps(&f);
        assert!(no_jumps_inside(&g.body, true));
        let mut returned_early = 0;
        for n in 0..14 {
            for m in 0..14 {
                let (a, _) = Interp::run(&f, vec![V::I(n), V::I(m)]);
                let (b, _) = Interp::run(&g, vec![V::I(n), V::I(m)]);
                assert_eq!(a, b, "n = {n}, m = {m}");
                if matches!(a, Some(V::I(x)) if x >= 1000) {
                    returned_early += 1;
                }
            }
        }
        assert!(
            returned_early > 10,
            "the test must exercise the early return"
        );
    }
}
