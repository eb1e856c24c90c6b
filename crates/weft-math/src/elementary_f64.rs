//! The `f64` elementary functions: thin wrappers over their one source,
//! `dsl/f64.rs` (compiled as Rust in [`crate::compiled`], lowered to PTX by the
//! kernel macro).
//!
//! Algorithms (the constants come from `tools/`):
//!
//! * Reduction modulo `pi/2`: for `|x| < 1.5e6` Cody–Waite (`pi/2` in three
//!   33-bit chunks plus a tail, accumulated with TwoSum into a double-word
//!   result); beyond, Payne–Hanek in integer arithmetic (the 53-bit
//!   significand times a 192-bit window of `2/pi`, exactly, with 32-bit
//!   limbs; 128 fraction bits turned into a double-word times `pi/2`).
//! * `sin cos`: `sin r = r + r^3 S(r^2)` (degree 5 in `r^2`),
//!   `cos r = 1 - r^2/2 + r^4 C(r^2)` (degree 5), both double-word;
//!   `tan = sin/cos` (or `-cos/sin`) with the division residual exact.
//! * `atan`: fdlibm's reduction to `|t| < 7/16` around `atan(1/2)`, `atan(1)`,
//!   `atan(3/2)` and `pi/2` (constants as `hi + lo`), then `t + t^3 A(t^2)`
//!   (degree 10); `atan2` adds the exact residual of its quotient.
//!   `asin`/`acos`: `x + x^3 B(x^2)` (degree 11) for `|x| <= 1/2`, else the
//!   half-angle formula with a split square root.
//! * `sinh cosh tanh`: as for `f32` with the `f64` exponential kernel (odd
//!   polynomials of degree 6 and 10 in `x^2` near zero, double-word `e^|x|`
//!   in the middle, `e^|x|/2` beyond 22).
//! * `exp`: `x = k ln2 + r`, `r` double-word, `e^r = 1 + r + r^2 P(r)`
//!   (degree 9); the logarithms: `x = 2^k (1 + f)`, `s = f/(2+f)`,
//!   `log(1+f) = f - f^2/2 + s (f^2/2 + R(s^2))` (degree 6, as fdlibm) with
//!   error-free final sums.
//! * `pow`: `e^(y log x)` with `log x` double-word to about 2^-70 relative,
//!   `y log x` formed exactly, the `exp` kernel on the double-word exponent;
//!   C99 `pow` special cases.

use crate::compiled::f64_src;

/// Sine of an `f64` (≤ 2 ulp); `sin(-0.0) = -0.0`.
///
/// ```
/// assert_eq!(weft_math::sin_f64(0.0), 0.0);
/// assert!((weft_math::sin_f64(1.0) - 1.0_f64.sin()).abs() <= f64::EPSILON);
/// ```
#[inline]
pub fn sin_f64(x: f64) -> f64 {
    f64_src::__weft_sin_f64(x)
}

/// Cosine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::cos_f64(0.0), 1.0);
/// ```
#[inline]
pub fn cos_f64(x: f64) -> f64 {
    f64_src::__weft_cos_f64(x)
}

/// `(sin x, cos x)` for `f64` with one shared reduction.
///
/// ```
/// let (s, c) = weft_math::sincos_f64(2.0);
/// assert_eq!((s, c), (weft_math::sin_f64(2.0), weft_math::cos_f64(2.0)));
/// ```
#[inline]
pub fn sincos_f64(x: f64) -> (f64, f64) {
    f64_src::__weft_sincos_f64(x)
}

/// Tangent of an `f64` (≤ 2 ulp): `sin/cos` of the reduced argument, both as
/// double-words, divided with an exact residual.
///
/// ```
/// assert_eq!(weft_math::tan_f64(0.0), 0.0);
/// assert!((weft_math::tan_f64(1.0) - 1.0_f64.tan()).abs() <= 2.0 * f64::EPSILON);
/// ```
#[inline]
pub fn tan_f64(x: f64) -> f64 {
    f64_src::__weft_tan_f64(x)
}

/// Arcsine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::asin_f64(0.0), 0.0);
/// assert_eq!(weft_math::asin_f64(1.0), std::f64::consts::FRAC_PI_2);
/// ```
#[inline]
pub fn asin_f64(x: f64) -> f64 {
    f64_src::__weft_asin_f64(x)
}

/// Arccosine of an `f64` in `[0, pi]` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::acos_f64(1.0), 0.0);
/// assert_eq!(weft_math::acos_f64(-1.0), std::f64::consts::PI);
/// ```
#[inline]
pub fn acos_f64(x: f64) -> f64 {
    f64_src::__weft_acos_f64(x)
}

/// Arctangent of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::atan_f64(0.0), 0.0);
/// assert!((weft_math::atan_f64(1.0) - std::f64::consts::FRAC_PI_4).abs() <= f64::EPSILON);
/// ```
#[inline]
pub fn atan_f64(x: f64) -> f64 {
    f64_src::__weft_atan_f64(x)
}

/// Four-quadrant arctangent for `f64` (≤ 2 ulp), C99 special cases.
///
/// ```
/// use std::f64::consts::PI;
/// assert_eq!(weft_math::atan2_f64(0.0, -1.0), PI);
/// assert_eq!(weft_math::atan2_f64(-1.0, 0.0), -PI / 2.0);
/// ```
#[inline]
pub fn atan2_f64(y: f64, x: f64) -> f64 {
    f64_src::__weft_atan2_f64(y, x)
}

/// Hyperbolic sine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::sinh_f64(0.0), 0.0);
/// ```
#[inline]
pub fn sinh_f64(x: f64) -> f64 {
    f64_src::__weft_sinh_f64(x)
}

/// Hyperbolic cosine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::cosh_f64(0.0), 1.0);
/// ```
#[inline]
pub fn cosh_f64(x: f64) -> f64 {
    f64_src::__weft_cosh_f64(x)
}

/// Hyperbolic tangent of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::tanh_f64(0.0), 0.0);
/// assert_eq!(weft_math::tanh_f64(-30.0), -1.0);
/// ```
#[inline]
pub fn tanh_f64(x: f64) -> f64 {
    f64_src::__weft_tanh_f64(x)
}

/// Natural exponential of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::exp_f64(0.0), 1.0);
/// assert!((weft_math::exp_f64(1.0) - std::f64::consts::E).abs() <= 2.0 * f64::EPSILON);
/// ```
#[inline]
pub fn exp_f64(x: f64) -> f64 {
    f64_src::__weft_exp_f64(x)
}

/// `2^x` for `f64` (≤ 2 ulp); exact for integer `x`.
///
/// ```
/// assert_eq!(weft_math::exp2_f64(-3.0), 0.125);
/// ```
#[inline]
pub fn exp2_f64(x: f64) -> f64 {
    f64_src::__weft_exp2_f64(x)
}

/// Natural logarithm of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::log_f64(1.0), 0.0);
/// ```
#[inline]
pub fn log_f64(x: f64) -> f64 {
    f64_src::__weft_log_f64(x)
}

/// Base-2 logarithm of an `f64` (≤ 2 ulp); exact for powers of two.
///
/// ```
/// assert_eq!(weft_math::log2_f64(1024.0), 10.0);
/// ```
#[inline]
pub fn log2_f64(x: f64) -> f64 {
    f64_src::__weft_log2_f64(x)
}

/// Base-10 logarithm of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::log10_f64(100.0), 2.0);
/// ```
#[inline]
pub fn log10_f64(x: f64) -> f64 {
    f64_src::__weft_log10_f64(x)
}

/// `x^y` for `f64` (≤ 2 ulp), C99 `pow` special cases (see [`crate::pow`]).
///
/// ```
/// assert_eq!(weft_math::pow_f64(3.0, 4.0), 81.0);
/// assert_eq!(weft_math::pow_f64(-0.0, -1.0), f64::NEG_INFINITY);
/// ```
#[inline]
pub fn pow_f64(x: f64, y: f64) -> f64 {
    f64_src::__weft_pow_f64(x, y)
}

/// Cube root of an `f64` (≤ 1 ulp).
///
/// ```
/// assert_eq!(weft_math::cbrt_f64(-27.0), -3.0);
/// ```
#[inline]
pub fn cbrt_f64(x: f64) -> f64 {
    f64_src::__weft_cbrt_f64(x)
}
