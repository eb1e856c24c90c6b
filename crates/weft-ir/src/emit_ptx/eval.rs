//! The values of an evaluating builder (`B::eval`, tests only): what each
//! operation the PTX emitter would write computes, with that instruction's
//! rounding (`.rn` `f32` or `f64` arithmetic, IEEE comparisons), so formulas
//! can be checked against the CPU without a GPU.

use super::regs::{Class, Reg};
use crate::types::Scalar;

/// A register's value.
#[derive(Clone, Copy, Debug)]
enum Val {
    /// A float (an `f32` held exactly as `f64`).
    F(f64),
    /// A predicate.
    P(bool),
}

/// The value of every register an evaluating builder made, by number.
#[derive(Default)]
pub(super) struct Values(Vec<Val>);

impl Values {
    fn push(&mut self, v: Val, class: Class) -> Reg {
        self.0.push(v);
        Reg {
            class,
            n: self.0.len() as u32 - 1,
        }
    }
    /// A float register holding `x` rounded to `s`.
    pub fn float(&mut self, s: Scalar, x: f64) -> Reg {
        match s {
            Scalar::F32 => self.push(Val::F(x as f32 as f64), Class::F32),
            _ => self.push(Val::F(x), Class::F64),
        }
    }
    /// A predicate register.
    pub fn bool(&mut self, x: bool) -> Reg {
        self.push(Val::P(x), Class::Pred)
    }
    /// The float in `r`.
    pub fn get_f(&self, r: Reg) -> f64 {
        match self.0[r.n as usize] {
            Val::F(x) => x,
            Val::P(_) => panic!("{r} holds a predicate"),
        }
    }
    /// The predicate in `r`.
    pub fn get_p(&self, r: Reg) -> bool {
        match self.0[r.n as usize] {
            Val::P(x) => x,
            Val::F(_) => panic!("{r} holds a float"),
        }
    }
    /// `f(a)` rounded to `s`. For `f32`, `f` works on the exact `f64` values of
    /// `f32` operands and one rounding follows: for `+ - * /` and `sqrt` that is
    /// the correctly rounded `f32` operation (`f64` has more than `2 * 24 + 2`
    /// bits, so rounding twice is innocuous); the other operations are exact.
    pub fn float1(&mut self, s: Scalar, a: Reg, f: impl Fn(f64) -> f64) -> Reg {
        let x = f(self.get_f(a));
        self.float(s, x)
    }
    /// `f(a, b)` rounded to `s` (see [`Values::float1`]).
    pub fn float2(&mut self, s: Scalar, a: Reg, b: Reg, f: impl Fn(f64, f64) -> f64) -> Reg {
        let x = f(self.get_f(a), self.get_f(b));
        self.float(s, x)
    }
    /// `setp.op` of two floats.
    pub fn cmp(&mut self, op: &str, a: Reg, b: Reg) -> Reg {
        let (x, y) = (self.get_f(a), self.get_f(b));
        let r = match op {
            "eq" => x == y,
            "lt" => x < y,
            "le" => x <= y,
            "gt" => x > y,
            "ge" => x >= y,
            "neu" => x != y,
            "nan" => x.is_nan() || y.is_nan(),
            "num" => !x.is_nan() && !y.is_nan(),
            _ => panic!("comparison `{op}` is not evaluated"),
        };
        self.bool(r)
    }
    /// `and.pred` / `or.pred`.
    pub fn pred(&mut self, op: &str, a: Reg, b: Reg) -> Reg {
        let (x, y) = (self.get_p(a), self.get_p(b));
        let r = match op {
            "and" => x && y,
            "or" => x || y,
            _ => panic!("predicate operation `{op}` is not evaluated"),
        };
        self.bool(r)
    }
    /// `selp`.
    pub fn sel(&mut self, p: Reg, a: Reg, b: Reg) -> Reg {
        let v = if self.get_p(p) {
            self.0[a.n as usize]
        } else {
            self.0[b.n as usize]
        };
        self.push(v, a.class)
    }
    /// An elementary function: weft-math's, the one source the PTX inlines.
    pub fn fun(&mut self, s: Scalar, name: &str, args: &[Reg]) -> Result<Reg, String> {
        let a: Vec<f64> = args.iter().map(|r| self.get_f(*r)).collect();
        let r = if s == Scalar::F64 {
            match (name, a.as_slice()) {
                ("sin", [x]) => weft_math::sin_f64(*x),
                ("cos", [x]) => weft_math::cos_f64(*x),
                ("tan", [x]) => weft_math::tan_f64(*x),
                ("sinh", [x]) => weft_math::sinh_f64(*x),
                ("cosh", [x]) => weft_math::cosh_f64(*x),
                ("tanh", [x]) => weft_math::tanh_f64(*x),
                ("exp", [x]) => weft_math::exp_f64(*x),
                ("exp2", [x]) => weft_math::exp2_f64(*x),
                ("log", [x]) => weft_math::log_f64(*x),
                ("cbrt", [x]) => weft_math::cbrt_f64(*x),
                ("pow", [x, y]) => weft_math::pow_f64(*x, *y),
                _ => return Err(format!("`{name}` is not evaluated")),
            }
        } else {
            let a: Vec<f32> = a.iter().map(|x| *x as f32).collect();
            (match (name, a.as_slice()) {
                ("sin", [x]) => weft_math::sin(*x),
                ("cos", [x]) => weft_math::cos(*x),
                ("tan", [x]) => weft_math::tan(*x),
                ("sinh", [x]) => weft_math::sinh(*x),
                ("cosh", [x]) => weft_math::cosh(*x),
                ("tanh", [x]) => weft_math::tanh(*x),
                ("exp", [x]) => weft_math::exp(*x),
                ("exp2", [x]) => weft_math::exp2(*x),
                ("log", [x]) => weft_math::log(*x),
                ("cbrt", [x]) => weft_math::cbrt(*x),
                ("pow", [x, y]) => weft_math::pow(*x, *y),
                _ => return Err(format!("`{name}` is not evaluated")),
            }) as f64
        };
        Ok(self.float(s, r))
    }
}
