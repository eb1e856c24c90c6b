//! Hyperbolic functions (`f32`).
//!
//! * `sinh`: odd minimax polynomial `x + x^3 H(x^2)` for `|x| < 1`, else
//!   `(e^|x| - e^-|x|)/2` with `e^|x|` as a double-word value from the `exp`
//!   kernel; `e^|x|/2` (scaled without intermediate overflow) for `|x| >= 12`.
//! * `cosh`: `(e^|x| + e^-|x|)/2` likewise.
//! * `tanh`: odd polynomial for `|x| < 0.5493` (where `tanh < 1/2`), else
//!   `1 - 2/(e^{2|x|} + 1)` with exact sums; `±1` beyond `|x| > 9.1`.

use crate::bits::f32_from_bits;
use crate::classify::{is_finite, is_nan};
use crate::double_word::fast_two_sum_f32;
use crate::exp_log::{INF_F32_BITS, exp_core_f32};
use crate::rounding::{abs, copysign};
use crate::scale::ldexp;

// sinh x = x + x^3 (C0 + C1 u + C2 u^2 + C3 u^3), u = x^2, |x| <= 1 (rel. 2^-34).
pub const SINH_C0: f32 = 0.166_666_67_f32;
pub const SINH_C1: f32 = 0.008_333_35_f32;
pub const SINH_C2: f32 = 0.000_198_361_6_f32;
pub const SINH_C3: f32 = 2.816_951_3e-6_f32;

// tanh x = x + x^3 (C0 + ... + C4 u^4), |x| <= 0.5494 (rel. 2^-29.8).
pub const TANH_C0: f32 = -0.333_333_16_f32;
pub const TANH_C1: f32 = 0.133_325_92_f32;
pub const TANH_C2: f32 = -0.053_852_99_f32;
pub const TANH_C3: f32 = 0.021_074_684_f32;
pub const TANH_C4: f32 = -0.006_278_763_5_f32;

/// `2^k` for `-126 <= k <= 127`.
#[inline]
pub fn pow2i_f32(k: i32) -> f32 {
    f32_from_bits(((k + 127) as u32) << 23)
}

/// Hyperbolic sine (≤ 1 ulp); odd, overflows to `±inf` above ~89.4.
///
/// ```
/// assert_eq!(weft_math::sinh(0.0), 0.0);
/// assert!((weft_math::sinh(1.0) - 1.0_f32.sinh()).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline]
pub fn sinh(x: f32) -> f32 {
    if !is_finite(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 1.0_f32 {
        if ax < 0.000_244_140_63_f32 {
            return x;
        }
        let u = x * x;
        return x + x * u * (SINH_C0 + u * (SINH_C1 + u * (SINH_C2 + u * SINH_C3)));
    }
    if ax > 89.5_f32 {
        return copysign(f32_from_bits(INF_F32_BITS), x);
    }
    let (s, t, k) = exp_core_f32(ax);
    let r = if ax < 12.0_f32 {
        let (h, l) = fast_two_sum_f32(s, t);
        let sc = pow2i_f32(k);
        let eh = h * sc;
        let el = l * sc;
        0.5_f32 * (eh + (el - 1.0_f32 / eh))
    } else {
        ldexp(s + t, k - 1_i32)
    };
    copysign(r, x)
}

/// Hyperbolic cosine (≤ 1 ulp); even, overflows to `+inf` above ~89.4.
///
/// ```
/// assert_eq!(weft_math::cosh(0.0), 1.0);
/// assert!((weft_math::cosh(1.0) - 1.0_f32.cosh()).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline]
pub fn cosh(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 0.000_244_140_63_f32 {
        return 1.0_f32;
    }
    if ax > 89.5_f32 {
        return f32_from_bits(INF_F32_BITS);
    }
    let (s, t, k) = exp_core_f32(ax);
    if ax < 12.0_f32 {
        let (h, l) = fast_two_sum_f32(s, t);
        let sc = pow2i_f32(k);
        let eh = h * sc;
        let el = l * sc;
        0.5_f32 * (eh + (el + 1.0_f32 / eh))
    } else {
        ldexp(s + t, k - 1_i32)
    }
}

/// Hyperbolic tangent (≤ 1 ulp); odd, `tanh(±inf) = ±1`.
///
/// ```
/// assert_eq!(weft_math::tanh(0.0), 0.0);
/// assert_eq!(weft_math::tanh(20.0), 1.0);
/// ```
#[inline]
pub fn tanh(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 0.549_3_f32 {
        if ax < 0.000_122_070_31_f32 {
            return x;
        }
        let u = x * x;
        return x + x * u * (TANH_C0 + u * (TANH_C1 + u * (TANH_C2 + u * (TANH_C3 + u * TANH_C4))));
    }
    if ax > 9.1_f32 {
        return copysign(1.0_f32, x);
    }
    let (s, t, k) = exp_core_f32(2.0_f32 * ax);
    let (h, l) = fast_two_sum_f32(s, t);
    let sc = pow2i_f32(k);
    // D = e^{2|x|} + 1 = dh + dl
    let (dh, dl0) = fast_two_sum_f32(h * sc, 1.0_f32);
    let dl = dl0 + l * sc;
    // 1 - 2/D = (1 - q) + q dl/dh with q = 2/dh
    let q = 2.0_f32 / dh;
    let corr = q * dl * (0.5_f32 * q);
    let (hi, lo) = fast_two_sum_f32(1.0_f32, -q);
    copysign(hi + (lo + corr), x)
}
