//! Sine, cosine and tangent (`f32`).
//!
//! The argument is reduced to a double-word `r = hi + lo`, `|r| <= pi/4`,
//! and a quadrant (see `trig_reduce`), then evaluated with minimax
//! polynomials in plain `f32`:
//! `sin r = r + r^3 S(r^2)` (degree 3 in `r^2`), `cos r = 1 - r^2/2 + r^4 C(r^2)`
//! (degree 2), `tan r = r + r^3 T(r^2)` (degree 6); `-1/tan` for odd quadrants
//! is formed with an exact residual. Correct over the whole `f32` range.

use crate::classify::{invalid_f32, is_finite};
use crate::double_word::{fast_two_sum_f32, two_prod_f32};
use crate::rounding::abs;
use crate::trig_reduce::rem_pio2_f32;

/// `pi/4` rounded to `f32` (slightly above `pi/4`).
pub const PIO4_F32: f32 = 0.785_398_2_f32;
/// `2^-12`: below this `sin x ~ x`, `cos x ~ 1` to within 0.5 ulp.
pub const TRIG_TINY_F32: f32 = 0.000_244_140_63_f32;

// sin r = r + r^3 (C0 + C1 z + C2 z^2 + C3 z^3), z = r^2, |r| <= pi/4 (rel. 2^-37).
pub const SIN_C0: f32 = -0.166_666_67_f32;
pub const SIN_C1: f32 = 0.008_333_329_f32;
pub const SIN_C2: f32 = -0.000_198_393_09_f32;
pub const SIN_C3: f32 = 2.718_084e-6_f32;

// cos r = 1 - z/2 + z^2 (C0 + C1 z + C2 z^2) (rel. 2^-33).
pub const COS_C0: f32 = 0.041_666_646_f32;
pub const COS_C1: f32 = -0.001_388_731_3_f32;
pub const COS_C2: f32 = 2.443_278_6e-5_f32;

// tan r = r + r^3 (C0 + ... + C6 z^6) (rel. 2^-29.5).
pub const TAN_C0: f32 = 0.333_333_5_f32;
pub const TAN_C1: f32 = 0.133_326_59_f32;
pub const TAN_C2: f32 = 0.054_060_493_f32;
pub const TAN_C3: f32 = 0.021_279_119_f32;
pub const TAN_C4: f32 = 0.010_844_007_f32;
pub const TAN_C5: f32 = 7.885_762e-5_f32;
pub const TAN_C6: f32 = 0.004_381_681_3_f32;

/// `sin(hi + lo)` for `|hi| <= pi/4`, `|lo| <= ulp(hi)`.
#[inline]
pub fn sin_kernel_f32(hi: f32, lo: f32) -> f32 {
    let z = hi * hi;
    let p = z * (SIN_C0 + z * (SIN_C1 + z * (SIN_C2 + z * SIN_C3)));
    // sin(hi + lo) ~ sin(hi) + lo cos(hi)
    hi + (hi * p + lo * (1.0_f32 - 0.5_f32 * z))
}

/// `cos(hi + lo)` for `|hi| <= pi/4`, `|lo| <= ulp(hi)`.
#[inline]
pub fn cos_kernel_f32(hi: f32, lo: f32) -> f32 {
    let z = hi * hi;
    let hz = 0.5_f32 * z;
    let w = 1.0_f32 - hz;
    let c = z * z * (COS_C0 + z * (COS_C1 + z * COS_C2));
    // (1 - w) - hz recovers the rounding error of w exactly.
    w + (((1.0_f32 - w) - hz) + (c - hi * lo))
}

/// `tan(hi + lo)` (or `-1/tan(hi + lo)` when `odd`) for `|hi| <= pi/4`.
#[inline]
pub fn tan_kernel_f32(hi: f32, lo: f32, odd: bool) -> f32 {
    let z = hi * hi;
    let poly = TAN_C0
        + z * (TAN_C1 + z * (TAN_C2 + z * (TAN_C3 + z * (TAN_C4 + z * (TAN_C5 + z * TAN_C6)))));
    // d tan / dr = 1 + tan^2 ~ 1 + z
    let tail = hi * z * poly + lo * (1.0_f32 + z);
    if !odd {
        return hi + tail;
    }
    let (th, tl) = fast_two_sum_f32(hi, tail);
    // -1/(th + tl) = q (1 + rho) with q = fl(-1/th), rho = 1 + q (th + tl).
    let q = -1.0_f32 / th;
    let (pp, pe) = two_prod_f32(q, th);
    let rho = ((1.0_f32 + pp) + pe) + q * tl;
    q + q * rho
}

/// Sine (≤ 1 ulp over the whole range); `sin(-0.0) = -0.0`, `sin(±inf) = NaN`.
///
/// ```
/// assert_eq!(weft_math::sin(0.0), 0.0);
/// assert!((weft_math::sin(1.0) - 1.0_f32.sin()).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn sin(x: f32) -> f32 {
    let ax = abs(x);
    if ax < PIO4_F32 {
        if ax < TRIG_TINY_F32 {
            return x;
        }
        return sin_kernel_f32(x, 0.0_f32);
    }
    if !is_finite(x) {
        return invalid_f32(x);
    }
    let (hi, lo, q) = rem_pio2_f32(x);
    if q == 0_i32 {
        sin_kernel_f32(hi, lo)
    } else if q == 1_i32 {
        cos_kernel_f32(hi, lo)
    } else if q == 2_i32 {
        -sin_kernel_f32(hi, lo)
    } else {
        -cos_kernel_f32(hi, lo)
    }
}

/// Cosine (≤ 1 ulp over the whole range); `cos(±inf) = NaN`.
///
/// ```
/// assert_eq!(weft_math::cos(0.0), 1.0);
/// assert!((weft_math::cos(1.0) - 1.0_f32.cos()).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn cos(x: f32) -> f32 {
    let ax = abs(x);
    if ax < PIO4_F32 {
        if ax < TRIG_TINY_F32 {
            return 1.0_f32;
        }
        return cos_kernel_f32(x, 0.0_f32);
    }
    if !is_finite(x) {
        return invalid_f32(x);
    }
    let (hi, lo, q) = rem_pio2_f32(x);
    if q == 0_i32 {
        cos_kernel_f32(hi, lo)
    } else if q == 1_i32 {
        -sin_kernel_f32(hi, lo)
    } else if q == 2_i32 {
        -cos_kernel_f32(hi, lo)
    } else {
        sin_kernel_f32(hi, lo)
    }
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
    let ax = abs(x);
    if ax < PIO4_F32 {
        if ax < TRIG_TINY_F32 {
            return (x, 1.0_f32);
        }
        return (sin_kernel_f32(x, 0.0_f32), cos_kernel_f32(x, 0.0_f32));
    }
    if !is_finite(x) {
        return (invalid_f32(x), invalid_f32(x));
    }
    let (hi, lo, q) = rem_pio2_f32(x);
    let s = sin_kernel_f32(hi, lo);
    let c = cos_kernel_f32(hi, lo);
    if q == 0_i32 {
        (s, c)
    } else if q == 1_i32 {
        (c, -s)
    } else if q == 2_i32 {
        (-s, -c)
    } else {
        (-c, s)
    }
}

/// Tangent (≤ 1 ulp over the whole range); `tan(-0.0) = -0.0`.
///
/// ```
/// assert_eq!(weft_math::tan(0.0), 0.0);
/// assert!((weft_math::tan(1.0) - 1.0_f32.tan()).abs() <= 2.0 * f32::EPSILON);
/// ```
#[inline]
pub fn tan(x: f32) -> f32 {
    let ax = abs(x);
    if ax < PIO4_F32 {
        if ax < TRIG_TINY_F32 {
            return x;
        }
        return tan_kernel_f32(x, 0.0_f32, false);
    }
    if !is_finite(x) {
        return invalid_f32(x);
    }
    let (hi, lo, q) = rem_pio2_f32(x);
    tan_kernel_f32(hi, lo, (q & 1_i32) == 1_i32)
}
