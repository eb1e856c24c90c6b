//! Hyperbolic functions (`f64`), same scheme as the `f32` versions with the
//! `f64` exponential kernel: odd minimax polynomials near zero (degree 6 in
//! `x^2` for `sinh` on `|x| < 1`, degree 10 for `tanh` on `|x| < 0.5493`),
//! double-word `e^|x|` in the middle range, `e^|x|/2` beyond 22.

use crate::bits::f64_from_bits;
use crate::classify::{is_finite_f64, is_nan_f64};
use crate::double_word::fast_two_sum_f64;
use crate::exp_log_f64::{INF_F64_BITS, exp_core_f64};
use crate::rounding::{abs_f64, copysign_f64};
use crate::scale::ldexp_f64;

// sinh x = x + x^3 (C0 + ... + C6 u^6), u = x^2, |x| <= 1 (rel. 2^-63).
pub const SINH64_C0: f64 = 0.16666666666666669_f64;
pub const SINH64_C1: f64 = 0.008333333333333148_f64;
pub const SINH64_C2: f64 = 0.00019841269841431873_f64;
pub const SINH64_C3: f64 = 2.7557319157071874e-6_f64;
pub const SINH64_C4: f64 = 2.5052123136722458e-8_f64;
pub const SINH64_C5: f64 = 1.6057259768832567e-10_f64;
pub const SINH64_C6: f64 = 7.758748796269462e-13_f64;

// tanh x = x + x^3 (C0 + ... + C10 u^10), |x| <= 0.5494 (rel. 2^-60.6).
pub const TANH64_C0: f64 = -0.333333333333333_f64;
pub const TANH64_C1: f64 = 0.13333333333326755_f64;
pub const TANH64_C2: f64 = -0.053968253963841556_f64;
pub const TANH64_C3: f64 = 0.02186948838824351_f64;
pub const TANH64_C4: f64 = -0.008863232641730518_f64;
pub const TANH64_C5: f64 = 0.00359209244926613_f64;
pub const TANH64_C6: f64 = -0.0014555456192754173_f64;
pub const TANH64_C7: f64 = 0.0005884562132700984_f64;
pub const TANH64_C8: f64 = -0.00023341220763331298_f64;
pub const TANH64_C9: f64 = 8.336151787356477e-5_f64;
pub const TANH64_C10: f64 = -1.952322009417039e-5_f64;

/// `2^k` for `-1022 <= k <= 1023`.
#[inline]
pub fn pow2i_f64(k: i32) -> f64 {
    f64_from_bits(((k + 1023) as u64) << 52)
}

/// Hyperbolic sine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::sinh_f64(0.0), 0.0);
/// ```
#[inline]
pub fn sinh_f64(x: f64) -> f64 {
    if !is_finite_f64(x) {
        return x;
    }
    let ax = abs_f64(x);
    if ax < 1.0_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
        let u = x * x;
        let p = SINH64_C0
            + u * (SINH64_C1
                + u * (SINH64_C2
                    + u * (SINH64_C3 + u * (SINH64_C4 + u * (SINH64_C5 + u * SINH64_C6)))));
        return x + x * u * p;
    }
    if ax > 711.0_f64 {
        return copysign_f64(f64_from_bits(INF_F64_BITS), x);
    }
    let (s, t, k) = exp_core_f64(ax);
    let r = if ax < 22.0_f64 {
        let (h, l) = fast_two_sum_f64(s, t);
        let sc = pow2i_f64(k);
        let eh = h * sc;
        0.5_f64 * (eh + (l * sc - 1.0_f64 / eh))
    } else {
        ldexp_f64(s + t, k - 1_i32)
    };
    copysign_f64(r, x)
}

/// Hyperbolic cosine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::cosh_f64(0.0), 1.0);
/// ```
#[inline]
pub fn cosh_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        return x;
    }
    let ax = abs_f64(x);
    if ax < 7.450580596923828e-9_f64 {
        return 1.0_f64;
    }
    if ax > 711.0_f64 {
        return f64_from_bits(INF_F64_BITS);
    }
    let (s, t, k) = exp_core_f64(ax);
    if ax < 22.0_f64 {
        let (h, l) = fast_two_sum_f64(s, t);
        let sc = pow2i_f64(k);
        let eh = h * sc;
        0.5_f64 * (eh + (l * sc + 1.0_f64 / eh))
    } else {
        ldexp_f64(s + t, k - 1_i32)
    }
}

/// Hyperbolic tangent of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::tanh_f64(0.0), 0.0);
/// assert_eq!(weft_math::tanh_f64(-30.0), -1.0);
/// ```
#[inline]
pub fn tanh_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        return x;
    }
    let ax = abs_f64(x);
    if ax < 0.5493_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
        let u = x * x;
        // Horner's rule, innermost term first (the same operations as the nested form).
        let mut p = TANH64_C10;
        p = TANH64_C9 + u * p;
        p = TANH64_C8 + u * p;
        p = TANH64_C7 + u * p;
        p = TANH64_C6 + u * p;
        p = TANH64_C5 + u * p;
        p = TANH64_C4 + u * p;
        p = TANH64_C3 + u * p;
        p = TANH64_C2 + u * p;
        p = TANH64_C1 + u * p;
        p = TANH64_C0 + u * p;
        return x + x * u * p;
    }
    if ax > 20.0_f64 {
        return copysign_f64(1.0_f64, x);
    }
    let (s, t, k) = exp_core_f64(2.0_f64 * ax);
    let (h, l) = fast_two_sum_f64(s, t);
    let sc = pow2i_f64(k);
    let (dh, dl0) = fast_two_sum_f64(h * sc, 1.0_f64);
    let dl = dl0 + l * sc;
    let q = 2.0_f64 / dh;
    let corr = q * dl * (0.5_f64 * q);
    let (hi, lo) = fast_two_sum_f64(1.0_f64, -q);
    copysign_f64(hi + (lo + corr), x)
}
