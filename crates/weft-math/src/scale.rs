//! Exact scaling by powers of two (`ldexp`): the elementary functions' helper
//! (`dsl/`), made public with an integer exponent.

use crate::compiled::{f32_src, f64_src};

/// Returns `x * 2^n`, rounding only once even when the result is subnormal;
/// overflows to `±inf` and underflows to `±0` like IEEE multiplication.
///
/// ```
/// assert_eq!(weft_math::ldexp(3.0, 4), 48.0);
/// assert_eq!(weft_math::ldexp(1.0, -149), f32::from_bits(1));
/// ```
#[inline]
pub fn ldexp(x: f32, n: i32) -> f32 {
    // `n as f32` is exact for |n| <= 2^24; a larger |n| is rounded, but the
    // helper clamps either value to the same extreme scale (|n| > 381 already
    // over- or underflows every finite nonzero `x`), so the result is the same.
    f32_src::__weft_h_ldexp_f32(x, n as f32)
}

/// Returns `x * 2^n` for `f64`, rounding only once (see [`ldexp`]).
///
/// ```
/// assert_eq!(weft_math::ldexp_f64(3.0, 4), 48.0);
/// assert_eq!(weft_math::ldexp_f64(1.0, -1074), f64::from_bits(1));
/// ```
#[inline]
pub fn ldexp_f64(x: f64, n: i32) -> f64 {
    f64_src::__weft_h_ldexp_f64(x, n as f64)
}
