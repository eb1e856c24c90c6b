//! Inverse trigonometric functions (`f32`).
//!
//! * `atan`: `atan t = t + t^3 A(t^2)` on `[0, 1]` (degree-8 minimax in
//!   `t^2`), `pi/2 - atan(1/x)` above 1; the reciprocal and the quotient in
//!   `atan2` carry an exactly computed residual so the division rounding does
//!   not reach the result.
//! * `asin`/`acos`: `x + x^3 B(x^2)` on `|x| <= 1/2` (degree-4 minimax);
//!   above, `asin x = pi/2 - 2 asin(sqrt((1-x)/2))` with the square root split
//!   into an exact head and a correction (fdlibm's scheme).
//!
//! Constants `pi`, `pi/2` are used as `hi + lo` pairs.

use crate::bits::{f32_from_bits, f32_to_bits};
use crate::classify::{is_inf, is_nan};
use crate::double_word::{fast_two_sum_f32, two_prod_f32, two_sum_f32};
use crate::roots::{NAN_F32_BITS, sqrt};
use crate::rounding::{abs, copysign};

/// `pi/2` rounded to `f32`.
pub const PIO2_HI_F32: f32 = 1.570_796_4_f32;
/// `pi/2 - PIO2_HI_F32`.
pub const PIO2_LO_F32: f32 = -4.371_139e-8_f32;
/// `pi` rounded to `f32`.
pub const PI_HI_F32: f32 = 3.141_592_7_f32;
/// `pi - PI_HI_F32`.
pub const PI_LO_F32: f32 = -8.742_278e-8_f32;
/// `pi/4` rounded to `f32`.
pub const PIO4_HI_F32: f32 = 0.785_398_2_f32;
/// `pi/4 - PIO4_HI_F32`.
pub const PIO4_LO_F32: f32 = -2.185_569_4e-8_f32;
/// `3 pi/4` rounded to `f32`.
pub const THREE_PIO4_F32: f32 = 2.356_194_5_f32;

// atan t = t + t^3 (C0 + C1 u + ... + C8 u^8), u = t^2, t in [0, 1] (rel. 2^-28.5).
pub const ATAN_C0: f32 = -0.333_333_f32;
pub const ATAN_C1: f32 = 0.199_985_49_f32;
pub const ATAN_C2: f32 = -0.142_642_42_f32;
pub const ATAN_C3: f32 = 0.109_521_86_f32;
pub const ATAN_C4: f32 = -0.084_034_51_f32;
pub const ATAN_C5: f32 = 0.057_957_6_f32;
pub const ATAN_C6: f32 = -0.031_177_852_f32;
pub const ATAN_C7: f32 = 0.010_914_609_f32;
pub const ATAN_C8: f32 = -0.001_793_622_3_f32;

// asin x = x + x^3 (C0 + ... + C4 u^4), u = x^2, |x| <= 1/2 (rel. 2^-27.6).
pub const ASIN_C0: f32 = 0.166_667_52_f32;
pub const ASIN_C1: f32 = 0.074_952_975_f32;
pub const ASIN_C2: f32 = 0.045_470_376_f32;
pub const ASIN_C3: f32 = 0.024_179_513_f32;
pub const ASIN_C4: f32 = 0.042_166_31_f32;

/// `atan(t) - t` for `t` in `[0, 1]`.
#[inline]
pub fn atan_tail_f32(t: f32) -> f32 {
    let u = t * t;
    let p = ATAN_C0
        + u * (ATAN_C1
            + u * (ATAN_C2
                + u * (ATAN_C3
                    + u * (ATAN_C4
                        + u * (ATAN_C5 + u * (ATAN_C6 + u * (ATAN_C7 + u * ATAN_C8)))))));
    t * u * p
}

/// `asin(x) - x` for `|x| <= 1/2` given `u = x^2`.
#[inline]
pub fn asin_tail_f32(x: f32, u: f32) -> f32 {
    x * u * (ASIN_C0 + u * (ASIN_C1 + u * (ASIN_C2 + u * (ASIN_C3 + u * ASIN_C4))))
}

/// `atan(n/d)` for `0 <= n <= d`, `d > 0` finite, as `(v, tail)` with
/// `atan(n/d) ~ v + tail`, `v = fl(n/d)`.
#[inline]
pub fn atan_ratio_f32(n: f32, d: f32) -> (f32, f32) {
    if n == d {
        return (PIO4_HI_F32, PIO4_LO_F32);
    }
    let v = n / d;
    let mut tail = atan_tail_f32(v);
    if v >= 9.313_226e-10_f32 {
        // v >= 2^-30: add the division residual (n - v d)/d, scaled through
        // atan' = 1/(1 + v^2). Rescale tiny operands so nothing underflows.
        let mut nn = n;
        let mut dd = d;
        if nn < 7.888_609e-31_f32 {
            nn *= 1_125_899_906_842_624.0_f32; // 2^50
            dd *= 1_125_899_906_842_624.0_f32;
        }
        let (p, pe) = two_prod_f32(v, dd);
        let res = (nn - p) - pe; // exact
        tail += res / (dd * (1.0_f32 + v * v));
    }
    (v, tail)
}

/// Arctangent (≤ 1 ulp); odd, `atan(±inf) = ±pi/2`.
///
/// ```
/// assert_eq!(weft_math::atan(0.0), 0.0);
/// assert!((weft_math::atan(1.0) - std::f32::consts::FRAC_PI_4).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn atan(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 0.000_122_070_31_f32 {
        // 2^-13: atan x = x (1 - x^2/3 + ...) rounds to x.
        return x;
    }
    let r = if ax < 1.0_f32 {
        ax + atan_tail_f32(ax)
    } else if ax == 1.0_f32 {
        PIO4_HI_F32
    } else {
        let (v, tail) = atan_ratio_f32(1.0_f32, ax);
        let (s, e) = two_sum_f32(PIO2_HI_F32, -v);
        s + (e + (PIO2_LO_F32 - tail))
    };
    copysign(r, x)
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
    if is_nan(x) || is_nan(y) {
        return x + y;
    }
    let ay = abs(y);
    let ax = abs(x);
    let x_neg = (f32_to_bits(x) >> 31) == 1_u32;
    if ay == 0.0_f32 {
        if x_neg {
            return copysign(PI_HI_F32, y);
        }
        return y;
    }
    if ax == 0.0_f32 {
        return copysign(PIO2_HI_F32, y);
    }
    if is_inf(ay) {
        if is_inf(ax) {
            if x_neg {
                return copysign(THREE_PIO4_F32, y);
            }
            return copysign(PIO4_HI_F32, y);
        }
        return copysign(PIO2_HI_F32, y);
    }
    if is_inf(ax) {
        if x_neg {
            return copysign(PI_HI_F32, y);
        }
        return copysign(0.0_f32, y);
    }
    let r = if ay <= ax {
        let (v, tail) = atan_ratio_f32(ay, ax);
        if x_neg {
            let (s, e) = two_sum_f32(PI_HI_F32, -v);
            s + (e + (PI_LO_F32 - tail))
        } else {
            v + tail
        }
    } else {
        let (v, tail) = atan_ratio_f32(ax, ay);
        if x_neg {
            let (s, e) = two_sum_f32(PIO2_HI_F32, v);
            s + (e + (PIO2_LO_F32 + tail))
        } else {
            let (s, e) = two_sum_f32(PIO2_HI_F32, -v);
            s + (e + (PIO2_LO_F32 - tail))
        }
    };
    copysign(r, y)
}

/// For `1/2 < ax < 1`: `(s_hi, c + p)` with
/// `asin(sqrt((1-ax)/2)) ~ s_hi + (c + p)`, `s_hi` having 12 bits.
#[inline]
pub fn asin_far_f32(ax: f32) -> (f32, f32) {
    let z = (1.0_f32 - ax) * 0.5_f32; // exact
    let s = sqrt(z);
    let s_hi = f32_from_bits(f32_to_bits(s) & 0xffff_f000_u32);
    // s = s_hi + c to double precision: c = (z - s_hi^2)/(s + s_hi).
    let c = (z - s_hi * s_hi) / (s + s_hi);
    let p = s * z * (ASIN_C0 + z * (ASIN_C1 + z * (ASIN_C2 + z * (ASIN_C3 + z * ASIN_C4))));
    (s_hi, c + p)
}

/// Arcsine (≤ 1 ulp); NaN outside `[-1, 1]`.
///
/// ```
/// assert_eq!(weft_math::asin(0.0), 0.0);
/// assert!((weft_math::asin(1.0) - std::f32::consts::FRAC_PI_2).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn asin(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    let ax = abs(x);
    if ax > 1.0_f32 {
        return f32_from_bits(NAN_F32_BITS);
    }
    if ax == 1.0_f32 {
        return copysign(PIO2_HI_F32, x);
    }
    if ax <= 0.5_f32 {
        if ax < 0.000_244_140_63_f32 {
            return x;
        }
        return x + asin_tail_f32(x, x * x);
    }
    let (s_hi, tail) = asin_far_f32(ax);
    let h = PIO2_HI_F32 - 2.0_f32 * s_hi; // exact
    copysign(h + (PIO2_LO_F32 - 2.0_f32 * tail), x)
}

/// Arccosine in `[0, pi]` (≤ 1 ulp); NaN outside `[-1, 1]`.
///
/// ```
/// assert_eq!(weft_math::acos(1.0), 0.0);
/// assert!((weft_math::acos(0.0) - std::f32::consts::FRAC_PI_2).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn acos(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    let ax = abs(x);
    if ax > 1.0_f32 {
        return f32_from_bits(NAN_F32_BITS);
    }
    if ax <= 0.5_f32 {
        let p = asin_tail_f32(x, x * x);
        let (s, e) = two_sum_f32(PIO2_HI_F32, -x);
        return s + (e + (PIO2_LO_F32 - p));
    }
    if x == 1.0_f32 {
        return 0.0_f32;
    }
    if x == -1.0_f32 {
        return PI_HI_F32;
    }
    let (s_hi, tail) = asin_far_f32(ax);
    if x > 0.0_f32 {
        2.0_f32 * s_hi + 2.0_f32 * tail
    } else {
        let (s, e) = fast_two_sum_f32(PI_HI_F32, -2.0_f32 * s_hi);
        s + (e + (PI_LO_F32 - 2.0_f32 * tail))
    }
}
