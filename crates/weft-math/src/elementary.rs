//! The `f32` elementary functions: thin wrappers over their one source,
//! `dsl/f32.rs` (compiled as Rust in [`crate::compiled`], lowered to PTX by the
//! kernel macro).
//!
//! Algorithms (the constants come from `tools/`):
//!
//! * Reduction modulo `pi/2`: for `|x| < 400` Cody–Waite in plain `f32`
//!   (`pi/2` in three 16-bit chunks plus a tail, partial differences
//!   accumulated with TwoSum into a double-word `hi + lo`); beyond,
//!   Payne–Hanek in integer arithmetic (the 24-bit significand times a 96-bit
//!   window of `2/pi`, the fraction turned into `hi + lo` through one `f64`
//!   multiplication, the only `f64` operation, on this rare path).
//! * `sin cos tan`: minimax polynomials on `|r| <= pi/4`:
//!   `sin r = r + r^3 S(r^2)` (degree 3 in `r^2`),
//!   `cos r = 1 - r^2/2 + r^4 C(r^2)` (degree 2), `tan r = r + r^3 T(r^2)`
//!   (degree 6); `-1/tan` for odd quadrants with an exact residual.
//! * `atan`: `t + t^3 A(t^2)` on `[0, 1]` (degree 8 in `t^2`), `pi/2 -
//!   atan(1/x)` above; the reciprocal and `atan2`'s quotient carry an exactly
//!   computed residual. `asin`/`acos`: `x + x^3 B(x^2)` on `|x| <= 1/2`
//!   (degree 4), above `pi/2 - 2 asin(sqrt((1-x)/2))` with the square root
//!   split into an exact head and a correction (fdlibm's scheme).
//! * `sinh cosh`: an odd polynomial for `sinh` on `|x| < 1`, else
//!   `(e^|x| ∓ e^-|x|)/2` with `e^|x|` double-word from the `exp` kernel, and
//!   `e^|x|/2` for `|x| >= 12`; `tanh`: an odd polynomial below 0.5493, else
//!   `1 - 2/(e^(2|x|) + 1)` with exact sums, `±1` beyond 9.1.
//! * `exp`: `x = k ln2 + r`, `|r| <= ln2/2`, `r` double-word,
//!   `e^r = 1 + r + r^2 P(r)` (degree 4); `exp2`: `x = k + r`, `r ln2` formed
//!   exactly, then the `exp` kernel. `log log2 log10`: `x = 2^k (1 + f)`,
//!   `1 + f` in `[sqrt(1/2), sqrt(2))`, `log(1+f) = f - f^2/2 + f^3 Q(f)`
//!   (degree 7), final sums with error-free transformations.
//! * `pow`: `2^(y log2|x|)` with the logarithm and the exponential in `f64`
//!   (relative errors 2^-44 and 2^-43) and one rounding to `f32` — the one
//!   `f32` function using `f64` on its main path (an all-`f32` version needs a
//!   triple-word `log2`); C99 `powf` special cases.
//!
//! Everything else is plain `f32` arithmetic.

use crate::compiled::f32_src;

/// Sine (≤ 1 ulp over the whole range); `sin(-0.0) = -0.0`, `sin(±inf) = NaN`.
///
/// ```
/// assert_eq!(weft_math::sin(0.0), 0.0);
/// assert!((weft_math::sin(1.0) - 1.0_f32.sin()).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn sin(x: f32) -> f32 {
    f32_src::__weft_sin_f32(x)
}

/// Cosine (≤ 1 ulp over the whole range); `cos(±inf) = NaN`.
///
/// ```
/// assert_eq!(weft_math::cos(0.0), 1.0);
/// assert!((weft_math::cos(1.0) - 1.0_f32.cos()).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn cos(x: f32) -> f32 {
    f32_src::__weft_cos_f32(x)
}

/// Sine and cosine with one shared argument reduction: `(sin x, cos x)`.
///
/// ```
/// let (s, c) = weft_math::sincos(0.5);
/// assert_eq!(s, weft_math::sin(0.5));
/// assert_eq!(c, weft_math::cos(0.5));
/// ```
#[inline]
pub fn sincos(x: f32) -> (f32, f32) {
    f32_src::__weft_sincos_f32(x)
}

/// Tangent (≤ 1 ulp over the whole range); `tan(-0.0) = -0.0`.
///
/// ```
/// assert_eq!(weft_math::tan(0.0), 0.0);
/// assert!((weft_math::tan(1.0) - 1.0_f32.tan()).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline]
pub fn tan(x: f32) -> f32 {
    f32_src::__weft_tan_f32(x)
}

/// Arcsine (≤ 1 ulp); NaN outside `[-1, 1]`.
///
/// ```
/// assert_eq!(weft_math::asin(0.0), 0.0);
/// assert!((weft_math::asin(1.0) - std::f32::consts::FRAC_PI_2).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn asin(x: f32) -> f32 {
    f32_src::__weft_asin_f32(x)
}

/// Arccosine in `[0, pi]` (≤ 1 ulp); NaN outside `[-1, 1]`.
///
/// ```
/// assert_eq!(weft_math::acos(1.0), 0.0);
/// assert!((weft_math::acos(0.0) - std::f32::consts::FRAC_PI_2).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn acos(x: f32) -> f32 {
    f32_src::__weft_acos_f32(x)
}

/// Arctangent (≤ 1 ulp); odd, `atan(±inf) = ±pi/2`.
///
/// ```
/// assert_eq!(weft_math::atan(0.0), 0.0);
/// assert!((weft_math::atan(1.0) - std::f32::consts::FRAC_PI_4).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn atan(x: f32) -> f32 {
    f32_src::__weft_atan_f32(x)
}

/// Four-quadrant arctangent of `y/x` in `[-pi, pi]` (≤ 1 ulp), with all
/// C99 special cases (signed zeros, infinities).
///
/// ```
/// use std::f32::consts::PI;
/// assert_eq!(weft_math::atan2(0.0, -1.0), PI);
/// assert_eq!(weft_math::atan2(-0.0, 1.0), -0.0);
/// assert!((weft_math::atan2(1.0, 1.0) - PI / 4.0).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn atan2(y: f32, x: f32) -> f32 {
    f32_src::__weft_atan2_f32(y, x)
}

/// Hyperbolic sine (≤ 1 ulp); odd, overflows to `±inf` above ~89.4.
///
/// ```
/// assert_eq!(weft_math::sinh(0.0), 0.0);
/// assert!((weft_math::sinh(1.0) - 1.0_f32.sinh()).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline]
pub fn sinh(x: f32) -> f32 {
    f32_src::__weft_sinh_f32(x)
}

/// Hyperbolic cosine (≤ 1 ulp); even, overflows to `+inf` above ~89.4.
///
/// ```
/// assert_eq!(weft_math::cosh(0.0), 1.0);
/// assert!((weft_math::cosh(1.0) - 1.0_f32.cosh()).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline]
pub fn cosh(x: f32) -> f32 {
    f32_src::__weft_cosh_f32(x)
}

/// Hyperbolic tangent (≤ 1 ulp); odd, `tanh(±inf) = ±1`.
///
/// ```
/// assert_eq!(weft_math::tanh(0.0), 0.0);
/// assert_eq!(weft_math::tanh(20.0), 1.0);
/// ```
#[inline]
pub fn tanh(x: f32) -> f32 {
    f32_src::__weft_tanh_f32(x)
}

/// Natural exponential `e^x` (≤ 1 ulp; subnormal results are rounded twice,
/// still ≤ 1 ulp).
///
/// ```
/// assert_eq!(weft_math::exp(0.0), 1.0);
/// assert!((weft_math::exp(1.0) - std::f32::consts::E).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn exp(x: f32) -> f32 {
    f32_src::__weft_exp_f32(x)
}

/// Base-2 exponential `2^x` (≤ 1 ulp); exact for integer `x`.
///
/// ```
/// assert_eq!(weft_math::exp2(10.0), 1024.0);
/// assert_eq!(weft_math::exp2(-1.0), 0.5);
/// ```
#[inline]
pub fn exp2(x: f32) -> f32 {
    f32_src::__weft_exp2_f32(x)
}

/// Natural logarithm (≤ 1 ulp); `log(0) = -inf`, `log(x < 0) = NaN`.
///
/// ```
/// assert_eq!(weft_math::log(1.0), 0.0);
/// assert!((weft_math::log(std::f32::consts::E) - 1.0).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn log(x: f32) -> f32 {
    f32_src::__weft_log_f32(x)
}

/// Base-2 logarithm (≤ 1 ulp); exact for powers of two.
///
/// ```
/// assert_eq!(weft_math::log2(8.0), 3.0);
/// ```
#[inline]
pub fn log2(x: f32) -> f32 {
    f32_src::__weft_log2_f32(x)
}

/// Base-10 logarithm (≤ 1 ulp).
///
/// ```
/// assert_eq!(weft_math::log10(1000.0), 3.0);
/// ```
#[inline]
pub fn log10(x: f32) -> f32 {
    f32_src::__weft_log10_f32(x)
}

/// `x` raised to the power `y` (≤ 1 ulp), with C99 `powf` special cases:
/// `pow(x, ±0) = 1`, `pow(1, y) = 1` (even for NaN), `pow(-1, ±inf) = 1`,
/// negative `x` with non-integer `y` gives NaN, signed zeros and infinities
/// as in C99 Annex F.
///
/// ```
/// assert_eq!(weft_math::pow(2.0, 10.0), 1024.0);
/// assert_eq!(weft_math::pow(-2.0, 3.0), -8.0);
/// assert!(weft_math::pow(-2.0, 0.5).is_nan());
/// ```
#[inline]
pub fn pow(x: f32, y: f32) -> f32 {
    f32_src::__weft_pow_f32(x, y)
}

/// Cube root (≤ 1 ulp); odd, exact for perfect cubes of small integers.
///
/// ```
/// assert_eq!(weft_math::cbrt(27.0), 3.0);
/// assert_eq!(weft_math::cbrt(-8.0), -2.0);
/// ```
#[inline]
pub fn cbrt(x: f32) -> f32 {
    f32_src::__weft_cbrt_f32(x)
}
