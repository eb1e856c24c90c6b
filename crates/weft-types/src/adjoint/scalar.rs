//! Adjoints of the scalar builtins: elementary functions, rounding, `abs`/`sign` and
//! `min`/`max`/`clamp` (whose vector overloads, componentwise, are in `vector.rs`).
//!
//! Each function takes the forward arguments and `adj_r`, the adjoint of the result, and
//! returns `adj_r · ∂r/∂x` for each argument.

use super::traits::Real;

macro_rules! unary_adjoints {
    ($($(#[$doc:meta])* $name:ident($x:ident, $g:ident) $body:block)*) => {$(
        $(#[$doc])*
        #[inline]
        pub fn $name<F: Real>($x: F, $g: F) -> F $body
    )*};
}

unary_adjoints! {
    /// Adjoint of `sin`: `adj_r * cos(x)`.
    adj_sin(x, adj_r) { adj_r * x.cos() }
    /// Adjoint of `cos`: `-adj_r * sin(x)`.
    adj_cos(x, adj_r) { -(adj_r * x.sin()) }
    /// Adjoint of `tan`: `adj_r * (1 + tan²(x))` (infinite where `tan` is).
    adj_tan(x, adj_r) {
        let t = x.tan();
        adj_r * (F::ONE + t * t)
    }
    /// Adjoint of `asin`: `adj_r / sqrt((1 - x)(1 + x))`; `0` for `|x| >= 1` (the
    /// derivative is infinite at ±1, and `asin` clamps its argument beyond).
    adj_asin(x, adj_r) { adj_r * inv_sqrt_one_minus_sq(x) }
    /// Adjoint of `acos`: `-adj_r / sqrt((1 - x)(1 + x))`; `0` for `|x| >= 1`.
    adj_acos(x, adj_r) { -(adj_r * inv_sqrt_one_minus_sq(x)) }
    /// Adjoint of `atan`: `adj_r / (1 + x²)` (`0` once `x²` overflows).
    adj_atan(x, adj_r) { adj_r / (F::ONE + x * x) }
    /// Adjoint of `sinh`: `adj_r * cosh(x)`.
    adj_sinh(x, adj_r) { adj_r * x.cosh() }
    /// Adjoint of `cosh`: `adj_r * sinh(x)`.
    adj_cosh(x, adj_r) { adj_r * x.sinh() }
    /// Adjoint of `tanh`: `adj_r * (1 - tanh²(x))`.
    adj_tanh(x, adj_r) {
        let t = x.tanh();
        adj_r * (F::ONE - t * t)
    }
    /// Adjoint of `exp`: `adj_r * exp(x)`.
    adj_exp(x, adj_r) { adj_r * x.exp() }
    /// Adjoint of `exp2`: `adj_r * exp2(x) * ln 2`.
    adj_exp2(x, adj_r) { adj_r * x.exp2() * F::LN_2 }
    /// Adjoint of `log`: `adj_r / x`. At `x = 0` this is `±∞` (the sign of `adj_r`, and of
    /// the zero), except that `adj_r == 0` always gives `0` (never `0/0 = NaN`, so an unused
    /// `log(0)` does not poison the gradient). `x < 0` (where `log` is NaN) gives `adj_r / x`.
    adj_log(x, adj_r) { div_or_zero(adj_r, x) }
    /// Adjoint of `log2`: `adj_r / (x ln 2)`; at `x = 0` as [`adj_log`].
    adj_log2(x, adj_r) { div_or_zero(adj_r, x * F::LN_2) }
    /// Adjoint of `log10`: `adj_r / (x ln 10)`; at `x = 0` as [`adj_log`].
    adj_log10(x, adj_r) { div_or_zero(adj_r, x * F::LN_10) }
    /// Adjoint of `sqrt`: `adj_r / (2 sqrt(x))`; `0` for `x <= 0` (infinite derivative at
    /// 0, NaN below).
    adj_sqrt(x, adj_r) {
        if x > F::ZERO {
            let s = x.sqrt();
            adj_r / (s + s)
        } else {
            F::ZERO
        }
    }
    /// Adjoint of `cbrt`: `adj_r / (3 cbrt(x)²)`; `0` at `x = 0` (infinite derivative).
    adj_cbrt(x, adj_r) {
        let c = x.cbrt();
        if c == F::ZERO {
            F::ZERO
        } else {
            adj_r / (F::THREE * c * c)
        }
    }
    /// Adjoint of `floor`: `0` (piecewise constant; the jumps get no gradient).
    adj_floor(_x, _adj_r) { F::ZERO }
    /// Adjoint of `ceil`: `0`.
    adj_ceil(_x, _adj_r) { F::ZERO }
    /// Adjoint of `round`: `0`.
    adj_round(_x, _adj_r) { F::ZERO }
    /// Adjoint of `trunc`: `0`.
    adj_trunc(_x, _adj_r) { F::ZERO }
}

/// `1 / sqrt((1 - x)(1 + x))`, or `0` where that is not finite and positive (`|x| >= 1`).
#[inline]
fn inv_sqrt_one_minus_sq<F: Real>(x: F) -> F {
    let d = (F::ONE - x) * (F::ONE + x);
    if d > F::ZERO {
        F::ONE / d.sqrt()
    } else {
        F::ZERO
    }
}

/// `a / b`, but `0` when `a == 0` (no `0/0`).
#[inline]
fn div_or_zero<F: Real>(a: F, b: F) -> F {
    if a == F::ZERO { F::ZERO } else { a / b }
}

/// Adjoint of `atan2(y, x)`: `(adj_r * x / (x² + y²), -adj_r * y / (x² + y²))`, computed
/// with both scaled by `max(|x|, |y|)` so that tiny or huge arguments neither underflow nor
/// overflow. `(0, 0)` at the origin (where `atan2` jumps) and where `x` or `y` is infinite.
#[inline]
pub fn adj_atan2<F: Real>(y: F, x: F, adj_r: F) -> (F, F) {
    let s = x.abs().max(y.abs());
    if s == F::ZERO || !s.is_finite() {
        return (F::ZERO, F::ZERO);
    }
    let (xs, ys) = (x / s, y / s);
    let k = adj_r / ((xs * xs + ys * ys) * s);
    (k * xs, -(k * ys))
}

/// Adjoint of `pow(x, y)`: `(adj_r * y * x^(y-1), adj_r * x^y * ln x)`, with these
/// conventions where `x^y` is not differentiable:
///
/// * d/dx is `0` when `adj_r * y == 0` (so `pow(x, 0)` never gives NaN) and at `x = 0`
///   with `y < 1` (infinite or undefined derivative); at `x = 0` with `y >= 1` it is the
///   formula's value (`adj_r` for `y = 1`, `0` for `y > 1`). Negative `x` with an integer
///   `y` uses the formula too (`x^(y-1)` is defined there).
/// * d/dy is `0` for `x <= 0` (`x^y` is NaN for negative `x` and non-integer `y`, and
///   `0^y` is constant for `y > 0`) and when `adj_r == 0`.
#[inline]
pub fn adj_pow<F: Real>(x: F, y: F, adj_r: F) -> (F, F) {
    let k = adj_r * y;
    let dx = if k == F::ZERO || (x == F::ZERO && y < F::ONE) {
        F::ZERO
    } else {
        k * x.pow(y - F::ONE)
    };
    let dy = if x > F::ZERO && adj_r != F::ZERO {
        adj_r * x.pow(y) * x.log()
    } else {
        F::ZERO
    };
    (dx, dy)
}

/// `abs` and `sign` adjoints of float scalars and, componentwise, float vectors.
pub trait AdjSigned: Copy {
    /// Adjoint of `abs`: `adj_r * sign(x)` per component, `0` where the component is `±0`.
    fn adj_abs(self, adj_r: Self) -> Self;
    /// Adjoint of `sign`: zero.
    fn adj_sign(self, adj_r: Self) -> Self;
}

/// `min`, `max` and `clamp` adjoints of float scalars and, componentwise, float vectors.
pub trait AdjMinMax: Copy {
    /// Adjoint of `min(a, b)`: `adj_r` goes to the argument `min` returns (`a` when
    /// `a <= b` or `b` is NaN, else `b`; `a` on ties), the other gets `0`.
    fn adj_min(self, b: Self, adj_r: Self) -> (Self, Self);
    /// Adjoint of `max(a, b)`: `adj_r` goes to `a` when `a >= b` or `b` is NaN, else to `b`.
    fn adj_max(self, b: Self, adj_r: Self) -> (Self, Self);
    /// Adjoint of `clamp(x, lo, hi)` as `(adj_x, adj_lo, adj_hi)`: `adj_r` goes to `lo` when
    /// `x < lo`, else to `hi` when `x > hi`, else (`lo <= x <= hi`, inclusive, or NaN `x`)
    /// to `x` — the value `clamp` returns.
    fn adj_clamp(self, lo: Self, hi: Self, adj_r: Self) -> (Self, Self, Self);
}

#[inline]
pub(super) fn abs1<F: Real>(x: F, g: F) -> F {
    if x > F::ZERO {
        g
    } else if x < F::ZERO {
        -g
    } else {
        F::ZERO
    }
}

#[inline]
pub(super) fn min1<F: Real>(a: F, b: F, g: F) -> (F, F) {
    if !a.is_nan() && (a <= b || b.is_nan()) {
        (g, F::ZERO)
    } else {
        (F::ZERO, g)
    }
}

#[inline]
pub(super) fn max1<F: Real>(a: F, b: F, g: F) -> (F, F) {
    if !a.is_nan() && (a >= b || b.is_nan()) {
        (g, F::ZERO)
    } else {
        (F::ZERO, g)
    }
}

#[inline]
pub(super) fn clamp1<F: Real>(x: F, lo: F, hi: F, g: F) -> (F, F, F) {
    if x < lo {
        (F::ZERO, g, F::ZERO)
    } else if x > hi {
        (F::ZERO, F::ZERO, g)
    } else {
        (g, F::ZERO, F::ZERO)
    }
}

macro_rules! impl_scalar_piecewise {
    ($($t:ty),*) => {$(
        impl AdjSigned for $t {
            #[inline]
            fn adj_abs(self, adj_r: $t) -> $t {
                abs1(self, adj_r)
            }
            #[inline]
            fn adj_sign(self, _adj_r: $t) -> $t {
                0.0
            }
        }

        impl AdjMinMax for $t {
            #[inline]
            fn adj_min(self, b: $t, adj_r: $t) -> ($t, $t) {
                min1(self, b, adj_r)
            }
            #[inline]
            fn adj_max(self, b: $t, adj_r: $t) -> ($t, $t) {
                max1(self, b, adj_r)
            }
            #[inline]
            fn adj_clamp(self, lo: $t, hi: $t, adj_r: $t) -> ($t, $t, $t) {
                clamp1(self, lo, hi, adj_r)
            }
        }
    )*};
}
impl_scalar_piecewise!(f32, f64);

/// Adjoint of `abs(x)` (scalar or vector): `adj_r * sign(x)`, `0` at `x = ±0`.
/// See [`AdjSigned::adj_abs`].
#[inline]
pub fn adj_abs<T: AdjSigned>(x: T, adj_r: T) -> T {
    T::adj_abs(x, adj_r)
}

/// Adjoint of `sign(x)` (scalar or vector): zero everywhere.
#[inline]
pub fn adj_sign<T: AdjSigned>(x: T, adj_r: T) -> T {
    T::adj_sign(x, adj_r)
}

/// Adjoint of `min(a, b)`: `(adj_a, adj_b)`, all of `adj_r` to the argument returned, `a`
/// on ties (componentwise for vectors). See [`AdjMinMax::adj_min`].
#[inline]
pub fn adj_min<T: AdjMinMax>(a: T, b: T, adj_r: T) -> (T, T) {
    T::adj_min(a, b, adj_r)
}

/// Adjoint of `max(a, b)`: `(adj_a, adj_b)`, all of `adj_r` to the argument returned, `a`
/// on ties (componentwise for vectors). See [`AdjMinMax::adj_max`].
#[inline]
pub fn adj_max<T: AdjMinMax>(a: T, b: T, adj_r: T) -> (T, T) {
    T::adj_max(a, b, adj_r)
}

/// Adjoint of `clamp(x, lo, hi)`: `(adj_x, adj_lo, adj_hi)`, all of `adj_r` to `x` when
/// `lo <= x <= hi` (inclusive), else to the bound returned (componentwise for vectors).
/// See [`AdjMinMax::adj_clamp`].
#[inline]
pub fn adj_clamp<T: AdjMinMax>(x: T, lo: T, hi: T, adj_r: T) -> (T, T, T) {
    T::adj_clamp(x, lo, hi, adj_r)
}
