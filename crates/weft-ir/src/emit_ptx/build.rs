//! A small arithmetic builder over the emitter, for the builtins written as formulas
//! (matrices, quaternions, transforms, spatial algebra and their adjoints): every
//! method emits one correctly rounded operation, so a formula written here in the
//! CPU implementation's operation order gives the CPU's result bit for bit.
//!
//! Methods take `&self` (the emitter sits in a `RefCell`), so expressions nest:
//! `b.sub(b.mul(x, y), b.mul(z, w))`.
//!
//! In tests a builder can also *evaluate* instead of emit ([`B::eval`]): every
//! method then computes its operation's result at once, with the PTX
//! instruction's rounding, so a formula built here can be checked number for
//! number against the CPU's (`adjoint_parity.rs`).

use std::cell::RefCell;

use super::emitter::{Em, Frame, Res};
use super::regs::{Class, Reg, bits, ty};
use crate::ir::UnOp;
use crate::types::{Scalar, Type};

#[cfg(test)]
use super::eval::Values;

/// One operation of builder `$b`: `$emit` writes it (with the emitter `$em` and
/// the frame); in tests, `$eval` computes it instead (with the values `$v` and the
/// scalar type). Outside tests the second form is not even compiled.
macro_rules! op {
    ($b:expr; $em:ident, $fr:pat_param => $emit:expr; $v:ident, $s:pat_param => $eval:expr) => {
        match &$b.to {
            To::Emit { em, fr } => {
                let $em: &mut Em = &mut em.borrow_mut();
                let $fr = fr;
                $emit
            }
            #[cfg(test)]
            To::Eval(cell) => {
                let mut values = cell.borrow_mut();
                let $v: &mut Values = &mut values;
                let $s = $b.s;
                $eval
            }
        }
    };
}

/// Emits float arithmetic of one scalar type `s`.
pub(super) struct B<'x, 'a, 'f> {
    to: To<'x, 'a, 'f>,
    /// The float type of the arithmetic.
    pub s: Scalar,
}

/// Where a builder's operations go.
enum To<'x, 'a, 'f> {
    /// Instructions of the function being emitted.
    Emit {
        em: RefCell<&'x mut Em<'a>>,
        fr: &'x Frame<'f>,
    },
    /// Values computed at once (tests).
    #[cfg(test)]
    Eval(RefCell<Values>),
}

impl<'x, 'a, 'f> B<'x, 'a, 'f> {
    pub fn new(em: &'x mut Em<'a>, fr: &'x Frame<'f>, s: Scalar) -> Self {
        B {
            to: To::Emit {
                em: RefCell::new(em),
                fr,
            },
            s,
        }
    }

    pub fn add(&self, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => em.arith("add", self.s, a, b); v, s => v.float2(s, a, b, |x, y| x + y))
    }
    pub fn sub(&self, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => em.arith("sub", self.s, a, b); v, s => v.float2(s, a, b, |x, y| x - y))
    }
    pub fn mul(&self, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => em.arith("mul", self.s, a, b); v, s => v.float2(s, a, b, |x, y| x * y))
    }
    pub fn div(&self, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => em.arith("div", self.s, a, b); v, s => v.float2(s, a, b, |x, y| x / y))
    }
    /// `max(a, b)` (`max.f32`: a NaN operand gives the other).
    pub fn max(&self, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => em.arith("max", self.s, a, b); v, s => v.float2(s, a, b, f64::max))
    }
    pub fn neg(&self, a: Reg) -> Reg {
        op!(self; em, _ => em.unary(UnOp::Neg, self.s, a); v, s => v.float1(s, a, |x| -x))
    }
    /// `|a|`.
    pub fn abs(&self, a: Reg) -> Reg {
        op!(self; em, _ => em.un(&format!("abs.{}", ty(self.s)), a);
            v, s => v.float1(s, a, f64::abs))
    }
    /// `a` rounded toward zero to an integer (`cvt.rzi`).
    pub fn trunc(&self, a: Reg) -> Reg {
        op!(self; em, _ => em.un(&format!("cvt.rzi.{0}.{0}", ty(self.s)), a);
            v, s => v.float1(s, a, f64::trunc))
    }
    /// `a` rounded to the nearest integer, halves away from zero (`round`).
    pub fn round(&self, a: Reg) -> Reg {
        op!(self; em, _ => em.round(self.s, a); v, s => v.float1(s, a, f64::round))
    }
    /// `fmod(a, b)`: the remainder of the truncated quotient, exact.
    pub fn fmod(&self, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => em.fmod(self.s, a, b); v, s => v.float2(s, a, b, |x, y| x % y))
    }
    /// The `f32` remainder of the floored quotient, as SSE `Vec4 % Vec4` computes
    /// it: `a - floor(a / b) * b`, a floor of `-0` taken as `+0`.
    pub fn floor_rem(&self, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => em.floor_rem(a, b); v, _ => {
            let (x, y) = (v.get_f(a) as f32, v.get_f(b) as f32);
            let f = (x / y).floor();
            let f = if f == 0.0 { 0.0 } else { f };
            v.float(Scalar::F32, (x - f * y) as f64)
        })
    }
    /// A literal of type `s`.
    pub fn lit(&self, x: f64) -> Reg {
        op!(self; em, _ => em.flit(x, self.s); v, s => v.float(s, x))
    }
    pub fn sqrt(&self, a: Reg) -> Reg {
        op!(self; em, _ => em.un(&format!("sqrt.rn.{}", ty(self.s)), a);
            v, s => v.float1(s, a, f64::sqrt))
    }
    /// Weft's accurate elementary function `name` (`sin`, `log`, …) on scalars.
    pub fn fun(&self, name: &str, args: &[Reg]) -> Res<Reg> {
        match &self.to {
            To::Emit { em, fr } => {
                let f = format!(
                    "__weft_{name}_{}",
                    if self.s == Scalar::F64 { "f64" } else { "f32" }
                );
                let args = args.iter().map(|r| vec![*r]).collect();
                let t = Type::Scalar(self.s);
                Ok(em.borrow_mut().inline(fr, &f, args, &t, false)?[0])
            }
            #[cfg(test)]
            To::Eval(v) => v.borrow_mut().fun(self.s, name, args),
        }
    }
    /// `(sin x, cos x)` with one shared argument reduction (weft-math's
    /// `sincos`, bit for bit the two functions' results): half the code of
    /// the two inlined apart.
    pub fn sincos(&self, x: Reg) -> Res<(Reg, Reg)> {
        match &self.to {
            To::Emit { em, fr } => {
                let f = format!(
                    "__weft_sincos_{}",
                    if self.s == Scalar::F64 { "f64" } else { "f32" }
                );
                let t = Type::Tuple(vec![Type::Scalar(self.s), Type::Scalar(self.s)]);
                let r = em.borrow_mut().inline(fr, &f, vec![vec![x]], &t, false)?;
                Ok((r[0], r[1]))
            }
            #[cfg(test)]
            To::Eval(v) => {
                let mut v = v.borrow_mut();
                Ok((v.fun(self.s, "sin", &[x])?, v.fun(self.s, "cos", &[x])?))
            }
        }
    }
    /// A comparison `a op b` (`op`: `eq lt le gt ge neu nan num`) as a predicate.
    pub fn cmp(&self, op: &str, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => {
            let p = em.c.reg(Class::Pred);
            em.c.ins(format!("setp.{op}.{} {p}, {a}, {b}", ty(self.s)));
            p
        }; v, _ => v.cmp(op, a, b))
    }
    /// `p ? a : b`.
    pub fn sel(&self, p: Reg, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => {
            let r = em.c.reg(a.class);
            em.c.ins(format!("selp.{} {r}, {a}, {b}, {p}", cls_bits(a.class)));
            r
        }; v, _ => v.sel(p, a, b))
    }
    /// Componentwise `p ? a : b`.
    pub fn selv(&self, p: Reg, a: &[Reg], b: &[Reg]) -> Vec<Reg> {
        a.iter().zip(b).map(|(x, y)| self.sel(p, *x, *y)).collect()
    }
    /// A predicate operation (`and`, `or`) of two predicates.
    pub fn pred(&self, op: &str, a: Reg, b: Reg) -> Reg {
        op!(self; em, _ => {
            let p = em.c.reg(Class::Pred);
            em.c.ins(format!("{op}.pred {p}, {a}, {b}"));
            p
        }; v, _ => v.pred(op, a, b))
    }
    pub fn not(&self, a: Reg) -> Reg {
        op!(self; em, _ => {
            let p = em.c.reg(Class::Pred);
            em.c.ins(format!("not.pred {p}, {a}"));
            p
        }; v, _ => {
            let x = !v.get_p(a);
            v.bool(x)
        })
    }
    /// Whether `a` is finite (neither infinite nor NaN).
    pub fn finite(&self, a: Reg) -> Reg {
        op!(self; em, _ => {
            let p = em.c.reg(Class::Pred);
            em.c.ins(format!("testp.finite.{} {p}, {a}", ty(self.s)));
            p
        }; v, _ => {
            let x = v.get_f(a).is_finite();
            v.bool(x)
        })
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

#[cfg(test)]
impl B<'static, 'static, 'static> {
    /// A builder that computes `s` arithmetic at once instead of emitting it.
    pub fn eval(s: Scalar) -> Self {
        B {
            to: To::Eval(RefCell::default()),
            s,
        }
    }
}

#[cfg(test)]
impl B<'_, '_, '_> {
    fn values<T>(&self, f: impl FnOnce(&mut Values, Scalar) -> T) -> T {
        match &self.to {
            To::Eval(v) => f(&mut v.borrow_mut(), self.s),
            To::Emit { .. } => panic!("not an evaluating builder"),
        }
    }
    /// A register holding the input `x` (rounded to the builder's type).
    pub fn input(&self, x: f64) -> Reg {
        self.values(|v, s| v.float(s, x))
    }
    /// The float in `r`.
    pub fn value(&self, r: Reg) -> f64 {
        self.values(|v, _| v.get_f(r))
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
