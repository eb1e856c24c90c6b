//! A small arithmetic builder over the emitter, for the builtins written as formulas
//! (matrices, quaternions, transforms, spatial algebra and their adjoints): every
//! method emits one correctly rounded operation, so a formula written here in the
//! CPU implementation's operation order gives the CPU's result bit for bit.
//!
//! Methods take `&self` (the emitter sits in a `RefCell`), so expressions nest:
//! `b.sub(b.mul(x, y), b.mul(z, w))`.

use std::cell::RefCell;

use super::emitter::{Em, Frame, Res};
use super::regs::{Class, Reg, bits, ty};
use crate::ir::UnOp;
use crate::types::{Scalar, Type};

/// Emits float arithmetic of one scalar type `s`.
pub(super) struct B<'x, 'a, 'f> {
    em: RefCell<&'x mut Em<'a>>,
    fr: &'x Frame<'f>,
    /// The float type of the arithmetic.
    pub s: Scalar,
}

impl<'x, 'a, 'f> B<'x, 'a, 'f> {
    pub fn new(em: &'x mut Em<'a>, fr: &'x Frame<'f>, s: Scalar) -> Self {
        B {
            em: RefCell::new(em),
            fr,
            s,
        }
    }

    /// Runs `f` on the emitter itself.
    pub fn with<T>(&self, f: impl FnOnce(&mut Em<'a>, &Frame<'f>) -> T) -> T {
        f(&mut self.em.borrow_mut(), self.fr)
    }

    pub fn add(&self, a: Reg, b: Reg) -> Reg {
        self.em.borrow_mut().arith("add", self.s, a, b)
    }
    pub fn sub(&self, a: Reg, b: Reg) -> Reg {
        self.em.borrow_mut().arith("sub", self.s, a, b)
    }
    pub fn mul(&self, a: Reg, b: Reg) -> Reg {
        self.em.borrow_mut().arith("mul", self.s, a, b)
    }
    pub fn div(&self, a: Reg, b: Reg) -> Reg {
        self.em.borrow_mut().arith("div", self.s, a, b)
    }
    pub fn neg(&self, a: Reg) -> Reg {
        self.em.borrow_mut().unary(UnOp::Neg, self.s, a)
    }
    /// A literal of type `s`.
    pub fn lit(&self, x: f64) -> Reg {
        self.em.borrow_mut().flit(x, self.s)
    }
    pub fn sqrt(&self, a: Reg) -> Reg {
        self.op1(&format!("sqrt.rn.{}", ty(self.s)), a)
    }
    /// A one-operand instruction `ins r, a` with a result of `a`'s class.
    pub fn op1(&self, ins: &str, a: Reg) -> Reg {
        let mut em = self.em.borrow_mut();
        let r = em.c.reg(a.class);
        em.c.ins(format!("{ins} {r}, {a}"));
        r
    }
    /// Weft's accurate elementary function `name` (`sin`, `log`, …) on scalars.
    pub fn fun(&self, name: &str, args: &[Reg]) -> Res<Reg> {
        let f = format!(
            "__weft_{name}_{}",
            if self.s == Scalar::F64 { "f64" } else { "f32" }
        );
        let args = args.iter().map(|r| vec![*r]).collect();
        let t = Type::Scalar(self.s);
        Ok(self.em.borrow_mut().inline(self.fr, &f, args, &t, false)?[0])
    }
    /// A comparison `a op b` (`op`: `eq lt le gt ge neu`, ...) as a predicate.
    pub fn cmp(&self, op: &str, a: Reg, b: Reg) -> Reg {
        let mut em = self.em.borrow_mut();
        let p = em.c.reg(Class::Pred);
        em.c.ins(format!("setp.{op}.{} {p}, {a}, {b}", ty(self.s)));
        p
    }
    /// `p ? a : b`.
    pub fn sel(&self, p: Reg, a: Reg, b: Reg) -> Reg {
        let mut em = self.em.borrow_mut();
        let r = em.c.reg(a.class);
        em.c.ins(format!("selp.{} {r}, {a}, {b}, {p}", cls_bits(a.class)));
        r
    }
    /// Componentwise `p ? a : b`.
    pub fn selv(&self, p: Reg, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        a.iter().zip(b).map(|(x, y)| self.sel(p, *x, *y)).collect()
    }
    /// A predicate operation (`and`, `or`) of two predicates.
    pub fn pred(&self, op: &str, a: Reg, b: Reg) -> Reg {
        let mut em = self.em.borrow_mut();
        let p = em.c.reg(Class::Pred);
        em.c.ins(format!("{op}.pred {p}, {a}, {b}"));
        p
    }
    pub fn not(&self, a: Reg) -> Reg {
        let mut em = self.em.borrow_mut();
        let p = em.c.reg(Class::Pred);
        em.c.ins(format!("not.pred {p}, {a}"));
        p
    }
    /// Whether `a` is finite (neither infinite nor NaN).
    pub fn finite(&self, a: Reg) -> Reg {
        let mut em = self.em.borrow_mut();
        let p = em.c.reg(Class::Pred);
        em.c.ins(format!("testp.finite.{} {p}, {a}", ty(self.s)));
        p
    }

    /// `x0 + x1 + …`, left to right.
    pub fn sum(&self, xs: &[Reg]) -> Reg {
        let mut acc = xs[0];
        for x in &xs[1..] {
            acc = self.add(acc, *x);
        }
        acc
    }
    /// `0.0 + x0 + x1 + …` (a fold from zero, as `Iterator::fold(0.0, …)`).
    pub fn sum0(&self, xs: &[Reg]) -> Reg {
        let mut acc = self.lit(0.0);
        for x in xs {
            acc = self.add(acc, *x);
        }
        acc
    }
    /// `a0 b0 + a1 b1 + …`, left to right.
    pub fn dot(&self, a: &[Reg], b: &[Reg]) -> Reg {
        let p: Vec<Reg> = a.iter().zip(b).map(|(x, y)| self.mul(*x, *y)).collect();
        self.sum(&p)
    }
    pub fn vadd(&self, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        a.iter().zip(b).map(|(x, y)| self.add(*x, *y)).collect()
    }
    pub fn vsub(&self, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        a.iter().zip(b).map(|(x, y)| self.sub(*x, *y)).collect()
    }
    pub fn vmul(&self, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        a.iter().zip(b).map(|(x, y)| self.mul(*x, *y)).collect()
    }
    pub fn vneg(&self, a: &[Reg]) -> Vec<Reg> {
        a.iter().map(|x| self.neg(*x)).collect()
    }
    /// `a[i] * k` for every component.
    pub fn scale(&self, a: &[Reg], k: Reg) -> Vec<Reg> {
        a.iter().map(|x| self.mul(*x, k)).collect()
    }
    /// `a[i] / k` for every component.
    pub fn vdiv(&self, a: &[Reg], k: Reg) -> Vec<Reg> {
        a.iter().map(|x| self.div(*x, k)).collect()
    }
    /// `cross(a, b)`: `(a.y b.z - a.z b.y, a.z b.x - a.x b.z, a.x b.y - a.y b.x)`.
    pub fn cross(&self, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        (0..3)
            .map(|k| {
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                self.sub(self.mul(a[i], b[j]), self.mul(a[j], b[i]))
            })
            .collect()
    }
}

/// The untyped move/select suffix of a register class.
pub(super) fn cls_bits(c: Class) -> &'static str {
    match c {
        Class::Pred => "pred",
        Class::B32 => "b32",
        Class::B64 => "b64",
        Class::F32 => bits(Scalar::F32),
        Class::F64 => bits(Scalar::F64),
    }
}
