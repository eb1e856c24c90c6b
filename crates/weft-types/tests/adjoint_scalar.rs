//! Finite-difference checks of the scalar adjoints (elementary functions, rounding,
//! `abs sign min max clamp` of scalars and vectors), f64 precisely and f32 loosely.

mod common;

use common::flat::*;
use proptest::prelude::*;
use weft_types::adjoint::traits::{AdjMinMax, AdjSigned, Real};
use weft_types::adjoint::*;
use weft_types::builtins::traits::{MinMax, Signed};
use weft_types::builtins::*;
use weft_types::*;

/// A forward function and its adjoint.
type Pair<F> = (fn(F) -> F, fn(F, F) -> F);

/// Checks a one-argument function and its adjoint at `x` in `[lo, hi)`, in f64 and f32.
fn unary(s: &mut Source, name: &str, lo: f64, hi: f64, f64s: Pair<f64>, f32s: Pair<f32>) {
    let (x, g): (f64, f64) = (s.take(lo, hi), s.any());
    check(name, f64s.0, x, g, f64s.1(x, g));
    let (x, g): (f32, f32) = (s.take(lo, hi), s.any());
    check(name, f32s.0, x, g, f32s.1(x, g));
}

macro_rules! unary {
    ($s:ident; $($name:ident, $adj:ident, $lo:expr, $hi:expr;)*) => {$(
        let f64s: Pair<f64> = ($name::<f64>, $adj::<f64>);
        let f32s: Pair<f32> = ($name::<f32>, $adj::<f32>);
        unary(&mut $s, stringify!($name), $lo, $hi, f64s, f32s);
    )*};
}

/// Whether every component of `x` is at least `margin` away from every component of `y`
/// at the same position.
fn apart<X: Flat>(x: X, y: X, margin: f64) -> bool {
    x.flat()
        .iter()
        .zip(y.flat())
        .all(|(a, b)| (a - b).abs() >= margin)
}

fn zero<X: Flat>() -> X {
    X::read(&[0.0; 16])
}

/// `abs sign min max clamp` of a scalar or vector type, away from the kinks.
fn piecewise<T: Flat + Signed + MinMax + AdjSigned + AdjMinMax>(s: &mut Source) {
    let (x, g): (T, T) = (s.any(), s.any());
    if apart(x, zero(), 0.01) {
        check("abs", abs::<T>, x, g, adj_abs(x, g));
        check("sign", sign::<T>, x, g, adj_sign(x, g));
    }
    let (a, b, g): (T, T, T) = (s.any(), s.any(), s.any());
    if apart(a, b, 0.01) {
        check("min", |(a, b)| min(a, b), (a, b), g, adj_min(a, b, g));
        check("max", |(a, b)| max(a, b), (a, b), g, adj_max(a, b, g));
    }
    let (x, lo, hi, g): (T, T, T, T) = (s.any(), s.take(-2.0, 0.0), s.take(0.0, 2.0), s.any());
    if apart(x, lo, 0.01) && apart(x, hi, 0.01) && apart(lo, hi, 0.01) {
        check(
            "clamp",
            |(x, lo, hi)| clamp(x, lo, hi),
            (x, lo, hi),
            g,
            adj_clamp(x, lo, hi, g),
        );
    }
}

/// `atan2` away from the origin and from the branch cut (`x < 0`, `y = 0`).
fn atan2_case<F: Real + Flat>(s: &mut Source) {
    let (y, x, g): (F, F, F) = (s.any(), s.any(), s.any());
    let (yf, xf) = (y.flat()[0], x.flat()[0]);
    if yf.hypot(xf) > 0.1 && (xf > 0.0 || yf.abs() > 0.02) {
        check("atan2", |(y, x)| atan2(y, x), (y, x), g, adj_atan2(y, x, g));
    }
}

/// `pow`: positive bases with any exponent; negative bases with integer exponents
/// (d/dx only: the exponent cannot move off the integers).
fn pow_case<F: Real + Flat>(s: &mut Source) {
    let (x, y, g): (F, F, F) = (s.take(0.1, 4.0), s.take(-3.0, 3.0), s.any());
    check("pow", |(x, y)| pow(x, y), (x, y), g, adj_pow(x, y, g));
    let (x, g): (F, F) = (s.take(-4.0, -0.1), s.any());
    let y: F = F::read(&[s.take::<f64>(-3.0, 4.0).floor()]);
    check("pow(neg, int)", |x| pow(x, y), x, g, adj_pow(x, y, g).0);
}

/// The rounding functions, their adjoint zero, between the jumps.
fn rounding_case<F: Real + Flat>(s: &mut Source) {
    let k = s.take::<f64>(-5.0, 5.0).floor();
    let x: F = F::read(&[k + s.take::<f64>(0.1, 0.4)]);
    let g: F = s.any();
    check("floor", floor::<F>, x, g, adj_floor(x, g));
    check("ceil", ceil::<F>, x, g, adj_ceil(x, g));
    check("round", round::<F>, x, g, adj_round(x, g));
    check("trunc", trunc::<F>, x, g, adj_trunc(x, g));
}

proptest! {
    #![proptest_config(adjoint_config())]

    #[test]
    fn elementary_functions(mut s in source()) {
        unary! { s;
            sin, adj_sin, -10.0, 10.0;
            cos, adj_cos, -10.0, 10.0;
            tan, adj_tan, -1.4, 1.4;
            asin, adj_asin, -0.95, 0.95;
            acos, adj_acos, -0.95, 0.95;
            atan, adj_atan, -10.0, 10.0;
            sinh, adj_sinh, -5.0, 5.0;
            cosh, adj_cosh, -5.0, 5.0;
            tanh, adj_tanh, -3.0, 3.0;
            exp, adj_exp, -5.0, 5.0;
            exp2, adj_exp2, -5.0, 5.0;
            log, adj_log, 0.05, 10.0;
            log2, adj_log2, 0.05, 10.0;
            log10, adj_log10, 0.05, 10.0;
            sqrt, adj_sqrt, 0.05, 10.0;
            cbrt, adj_cbrt, 0.05, 10.0;
            cbrt, adj_cbrt, -10.0, -0.05;
        }
    }

    #[test]
    fn atan2_pow_and_rounding(mut s in source()) {
        atan2_case::<f64>(&mut s);
        atan2_case::<f32>(&mut s);
        pow_case::<f64>(&mut s);
        pow_case::<f32>(&mut s);
        rounding_case::<f64>(&mut s);
        rounding_case::<f32>(&mut s);
    }

    #[test]
    fn abs_sign_min_max_clamp(mut s in source()) {
        piecewise::<f32>(&mut s);
        piecewise::<f64>(&mut s);
        piecewise::<Vec2>(&mut s);
        piecewise::<Vec3>(&mut s);
        piecewise::<Vec4>(&mut s);
        piecewise::<DVec2>(&mut s);
        piecewise::<DVec3>(&mut s);
        piecewise::<DVec4>(&mut s);
    }
}
