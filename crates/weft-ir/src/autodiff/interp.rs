//! A small interpreter of integer/bool IR, to check that passes preserve meaning.

use std::collections::HashMap;

use crate::ir::*;

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum V {
    I(i64),
    B(bool),
}

enum Flow {
    Next,
    Break,
    Continue,
    Return(Option<V>),
}

pub struct Interp {
    vals: HashMap<ValueId, V>,
    vars: HashMap<VarId, V>,
    params: Vec<V>,
    pub steps: usize,
}

impl Interp {
    pub fn run(f: &Function, params: Vec<V>) -> (Option<V>, usize) {
        let mut i = Interp {
            vals: HashMap::new(),
            vars: HashMap::new(),
            params,
            steps: 0,
        };
        let r = match i.block(&f.body) {
            Flow::Return(v) => v,
            _ => None,
        };
        (r, i.steps)
    }

    fn int(&self, v: ValueId) -> i64 {
        match self.vals[&v] {
            V::I(i) => i,
            V::B(_) => panic!("expected int"),
        }
    }
    fn boolean(&self, v: ValueId) -> bool {
        match self.vals[&v] {
            V::B(b) => b,
            V::I(_) => panic!("expected bool"),
        }
    }

    fn expr(&mut self, e: &Expr) -> V {
        match e {
            Expr::Lit(Lit::Int(i, _)) => V::I(*i as i64),
            Expr::Lit(Lit::Bool(b)) => V::B(*b),
            Expr::Param(i) => self.params[*i],
            Expr::Var(v) => self.vars[v],
            Expr::Unary(UnOp::Not, a) => V::B(!self.boolean(*a)),
            Expr::Unary(UnOp::Neg, a) => V::I(-self.int(*a)),
            Expr::Binary(op, a, b) => {
                if let (V::B(x), V::B(y)) = (self.vals[a], self.vals[b]) {
                    return V::B(match op {
                        BinOp::BitAnd => x & y,
                        BinOp::BitOr => x | y,
                        BinOp::Eq => x == y,
                        BinOp::Ne => x != y,
                        _ => panic!("bool op {op:?}"),
                    });
                }
                let (x, y) = (self.int(*a), self.int(*b));
                match op {
                    BinOp::Add => V::I(x + y),
                    BinOp::Sub => V::I(x - y),
                    BinOp::Mul => V::I(x * y),
                    BinOp::Rem => V::I(x % y),
                    BinOp::Lt => V::B(x < y),
                    BinOp::Le => V::B(x <= y),
                    BinOp::Gt => V::B(x > y),
                    BinOp::Ge => V::B(x >= y),
                    BinOp::Eq => V::B(x == y),
                    BinOp::Ne => V::B(x != y),
                    _ => panic!("int op {op:?}"),
                }
            }
            other => panic!("interpreter does not support {other:?}"),
        }
    }

    fn block(&mut self, b: &Block) -> Flow {
        for s in &b.0 {
            self.steps += 1;
            assert!(self.steps < 1_000_000, "runaway loop");
            let flow = match s {
                Stmt::Def(v, e) => {
                    let x = self.expr(e);
                    self.vals.insert(*v, x);
                    Flow::Next
                }
                Stmt::Let(var, v) | Stmt::Assign(var, v) => {
                    self.vars.insert(*var, self.vals[v]);
                    Flow::Next
                }
                Stmt::Declare(_) => Flow::Next,
                Stmt::If(c, a, b) => {
                    if self.boolean(*c) {
                        self.block(a)
                    } else {
                        self.block(b)
                    }
                }
                Stmt::For(var, s, e, body) => {
                    let (s, e) = (self.int(*s), self.int(*e));
                    let mut out = Flow::Next;
                    for i in s..e {
                        self.vars.insert(*var, V::I(i));
                        match self.block(body) {
                            Flow::Break => break,
                            Flow::Return(v) => {
                                out = Flow::Return(v);
                                break;
                            }
                            _ => {}
                        }
                    }
                    out
                }
                Stmt::While(cb, c, body) => loop {
                    if let Flow::Return(v) = self.block(cb) {
                        break Flow::Return(v);
                    }
                    if !self.boolean(*c) {
                        break Flow::Next;
                    }
                    match self.block(body) {
                        Flow::Break => break Flow::Next,
                        Flow::Return(v) => break Flow::Return(v),
                        _ => {}
                    }
                },
                Stmt::Break => Flow::Break,
                Stmt::Continue => Flow::Continue,
                Stmt::Return(v) => Flow::Return(v.map(|v| self.vals[&v])),
                other => panic!("interpreter does not support {other:?}"),
            };
            match flow {
                Flow::Next => {}
                other => return other,
            }
        }
        Flow::Next
    }
}
