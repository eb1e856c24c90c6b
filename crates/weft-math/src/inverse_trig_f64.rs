//! Inverse trigonometric functions (`f64`).
//!
//! * `atan`: fdlibm's reduction to `|t| < 7/16` around `atan(1/2)`,
//!   `atan(1)`, `atan(3/2)` and `pi/2` (constants as `hi + lo`), then
//!   `t + t^3 A(t^2)` with a degree-10 minimax `A`; `atan2` adds the exact
//!   residual of its quotient.
//! * `asin`/`acos`: `x + x^3 B(x^2)` (degree-11 minimax) for `|x| <= 1/2`,
//!   else the half-angle formula with a split square root, as for `f32`.

use crate::bits::{f64_from_bits, f64_to_bits};
use crate::classify::{is_inf_f64, is_nan_f64};
use crate::double_word::{fast_two_sum_f64, two_prod_f64, two_sum_f64};
use crate::roots::{NAN_F64_BITS, sqrt_f64};
use crate::rounding::{abs_f64, copysign_f64};
use crate::trig_reduce_f64::{PIO2_HI_F64, PIO2_LO_F64};

/// `pi` rounded to `f64`.
pub const PI_HI_F64: f64 = 3.141592653589793_f64;
/// `pi - PI_HI_F64`.
pub const PI_LO_F64: f64 = 1.2246467991473532e-16_f64;
/// `pi/4` rounded.
pub const PIO4_HI_F64: f64 = 0.7853981633974483_f64;
/// `pi/4 - PIO4_HI_F64`.
pub const PIO4_LO_F64: f64 = 3.061616997868383e-17_f64;
/// `3 pi/4` rounded.
pub const THREE_PIO4_F64: f64 = 2.356194490192345_f64;
/// `atan(1/2)` rounded.
pub const ATAN_HALF_HI: f64 = 0.4636476090008061_f64;
/// `atan(1/2) - ATAN_HALF_HI`.
pub const ATAN_HALF_LO: f64 = 2.2698777452961687e-17_f64;
/// `atan(3/2)` rounded.
pub const ATAN_THREE_HALVES_HI: f64 = 0.982793723247329_f64;
/// `atan(3/2) - ATAN_THREE_HALVES_HI`.
pub const ATAN_THREE_HALVES_LO: f64 = 1.3903311031230998e-17_f64;

// atan t = t + t^3 (C0 + ... + C10 u^10), u = t^2, |t| <= 7/16 (rel. 2^-57.7).
pub const ATAN64_C0: f64 = -0.3333333333333291_f64;
pub const ATAN64_C1: f64 = 0.1999999999987137_f64;
pub const ATAN64_C2: f64 = -0.14285714272043532_f64;
pub const ATAN64_C3: f64 = 0.11111110384892542_f64;
pub const ATAN64_C4: f64 = -0.09090886604177943_f64;
pub const ATAN64_C5: f64 = 0.0769186778077653_f64;
pub const ATAN64_C6: f64 = -0.0666098744752757_f64;
pub const ATAN64_C7: f64 = 0.058330121611091926_f64;
pub const ATAN64_C8: f64 = -0.049746278658491266_f64;
pub const ATAN64_C9: f64 = 0.0364804004888131_f64;
pub const ATAN64_C10: f64 = -0.016235651989859563_f64;

// asin x = x + x^3 (C0 + ... + C11 u^11), u = x^2, |x| <= 1/2 (rel. 2^-55.9).
pub const ASIN64_C0: f64 = 0.16666666666665408_f64;
pub const ASIN64_C1: f64 = 0.07500000000337011_f64;
pub const ASIN64_C2: f64 = 0.04464285682833077_f64;
pub const ASIN64_C3: f64 = 0.030381959136866005_f64;
pub const ASIN64_C4: f64 = 0.022371758052989167_f64;
pub const ASIN64_C5: f64 = 0.01735970472160336_f64;
pub const ASIN64_C6: f64 = 0.013885235919513112_f64;
pub const ASIN64_C7: f64 = 0.01216920837076041_f64;
pub const ASIN64_C8: f64 = 0.0065279905211154555_f64;
pub const ASIN64_C9: f64 = 0.019528221182913787_f64;
pub const ASIN64_C10: f64 = -0.016224181284919655_f64;
pub const ASIN64_C11: f64 = 0.03191221977380996_f64;

/// `atan(t) - t` for `|t| <= 7/16`.
#[inline]
pub fn atan_tail_f64(t: f64) -> f64 {
    let u = t * t;
    // Horner's rule, innermost term first (the same operations as the nested form).
    let mut p = ATAN64_C10;
    p = ATAN64_C9 + u * p;
    p = ATAN64_C8 + u * p;
    p = ATAN64_C7 + u * p;
    p = ATAN64_C6 + u * p;
    p = ATAN64_C5 + u * p;
    p = ATAN64_C4 + u * p;
    p = ATAN64_C3 + u * p;
    p = ATAN64_C2 + u * p;
    p = ATAN64_C1 + u * p;
    p = ATAN64_C0 + u * p;
    t * u * p
}

/// `asin(x) - x` for `|x| <= 1/2`, given `u = x^2`.
#[inline]
pub fn asin_tail_f64(x: f64, u: f64) -> f64 {
    // Horner's rule, innermost term first (the same operations as the nested form).
    let mut p = ASIN64_C11;
    p = ASIN64_C10 + u * p;
    p = ASIN64_C9 + u * p;
    p = ASIN64_C8 + u * p;
    p = ASIN64_C7 + u * p;
    p = ASIN64_C6 + u * p;
    p = ASIN64_C5 + u * p;
    p = ASIN64_C4 + u * p;
    p = ASIN64_C3 + u * p;
    p = ASIN64_C2 + u * p;
    p = ASIN64_C1 + u * p;
    p = ASIN64_C0 + u * p;
    x * u * p
}

/// fdlibm's reduction for `t >= 7/16`: `(base_hi, base_lo, v)` with
/// `atan(t) = base + atan(v)`, `|v| <= 7/16`.
#[inline]
pub fn atan_reduce_f64(t: f64) -> (f64, f64, f64) {
    if t < 0.6875_f64 {
        return (
            ATAN_HALF_HI,
            ATAN_HALF_LO,
            (2.0_f64 * t - 1.0_f64) / (2.0_f64 + t),
        );
    }
    if t < 1.1875_f64 {
        return (PIO4_HI_F64, PIO4_LO_F64, (t - 1.0_f64) / (t + 1.0_f64));
    }
    if t < 2.4375_f64 {
        return (
            ATAN_THREE_HALVES_HI,
            ATAN_THREE_HALVES_LO,
            (t - 1.5_f64) / (1.0_f64 + 1.5_f64 * t),
        );
    }
    (PIO2_HI_F64, PIO2_LO_F64, -1.0_f64 / t)
}

/// `atan(t)` for `t >= 0` (possibly `+inf`) as a double-word `(hi, lo)`.
#[inline]
pub fn atan_core_f64(t: f64) -> (f64, f64) {
    if t < 0.4375_f64 {
        return fast_two_sum_f64(t, atan_tail_f64(t));
    }
    let (base_hi, base_lo, v) = atan_reduce_f64(t);
    let (s, e) = two_sum_f64(base_hi, v);
    fast_two_sum_f64(s, e + (base_lo + atan_tail_f64(v)))
}

/// Arctangent of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::atan_f64(0.0), 0.0);
/// assert!((weft_math::atan_f64(1.0) - std::f64::consts::FRAC_PI_4).abs() <= f64::EPSILON);
/// ```
#[inline]
pub fn atan_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        return x;
    }
    let ax = abs_f64(x);
    if ax < 7.450580596923828e-9_f64 {
        return x;
    }
    let (h, l) = atan_core_f64(ax);
    copysign_f64(h + l, x)
}

/// `atan(n/d)` for `0 <= n <= d`, `d > 0` finite, as a double-word, with the
/// division residual folded in.
#[inline]
pub fn atan_ratio_f64(n: f64, d: f64) -> (f64, f64) {
    let v = n / d;
    let (h, l) = atan_core_f64(v);
    let mut corr = 0.0_f64;
    if v >= 8.673617379884035e-19_f64 {
        // v >= 2^-60: residual (n - v d)/d, rescaled away from over/underflow.
        let mut nn = n;
        let mut dd = d;
        if dd > 8.452712498170644e270_f64 {
            nn *= 2.409919865102884e-181_f64; // 2^-600
            dd *= 2.409919865102884e-181_f64;
        } else if nn < 1.1830521861667747e-271_f64 {
            nn *= 4.149515568880993e180_f64; // 2^600
            dd *= 4.149515568880993e180_f64;
        }
        let (p, pe) = two_prod_f64(v, dd);
        corr = ((nn - p) - pe) / (dd * (1.0_f64 + v * v));
    }
    (h, l + corr)
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
    if is_nan_f64(x) || is_nan_f64(y) {
        return x + y;
    }
    let ay = abs_f64(y);
    let ax = abs_f64(x);
    let x_neg = (f64_to_bits(x) >> 63) == 1_u64;
    if ay == 0.0_f64 {
        if x_neg {
            return copysign_f64(PI_HI_F64, y);
        }
        return y;
    }
    if ax == 0.0_f64 {
        return copysign_f64(PIO2_HI_F64, y);
    }
    if is_inf_f64(ay) {
        if is_inf_f64(ax) {
            if x_neg {
                return copysign_f64(THREE_PIO4_F64, y);
            }
            return copysign_f64(PIO4_HI_F64, y);
        }
        return copysign_f64(PIO2_HI_F64, y);
    }
    if is_inf_f64(ax) {
        if x_neg {
            return copysign_f64(PI_HI_F64, y);
        }
        return copysign_f64(0.0_f64, y);
    }
    let r = if ay <= ax {
        let (h, l) = atan_ratio_f64(ay, ax);
        if x_neg {
            let (s, e) = two_sum_f64(PI_HI_F64, -h);
            s + (e + (PI_LO_F64 - l))
        } else {
            h + l
        }
    } else {
        let (h, l) = atan_ratio_f64(ax, ay);
        if x_neg {
            let (s, e) = two_sum_f64(PIO2_HI_F64, h);
            s + (e + (PIO2_LO_F64 + l))
        } else {
            let (s, e) = two_sum_f64(PIO2_HI_F64, -h);
            s + (e + (PIO2_LO_F64 - l))
        }
    };
    copysign_f64(r, y)
}

/// For `1/2 < ax < 1`: `(s_hi, tail)` with
/// `asin(sqrt((1-ax)/2)) ~ s_hi + tail`, `s_hi` having 21 bits.
#[inline]
pub fn asin_far_f64(ax: f64) -> (f64, f64) {
    let z = (1.0_f64 - ax) * 0.5_f64;
    let s = sqrt_f64(z);
    let s_hi = f64_from_bits(f64_to_bits(s) & 0xffff_ffff_0000_0000_u64);
    let c = (z - s_hi * s_hi) / (s + s_hi);
    (s_hi, c + asin_tail_f64(s, z))
}

/// Arcsine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::asin_f64(0.0), 0.0);
/// assert_eq!(weft_math::asin_f64(1.0), std::f64::consts::FRAC_PI_2);
/// ```
#[inline]
pub fn asin_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        return x;
    }
    let ax = abs_f64(x);
    if ax > 1.0_f64 {
        return f64_from_bits(NAN_F64_BITS);
    }
    if ax == 1.0_f64 {
        return copysign_f64(PIO2_HI_F64, x);
    }
    if ax <= 0.5_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
        return x + asin_tail_f64(x, x * x);
    }
    let (s_hi, tail) = asin_far_f64(ax);
    let h = PIO2_HI_F64 - 2.0_f64 * s_hi; // exact
    copysign_f64(h + (PIO2_LO_F64 - 2.0_f64 * tail), x)
}

/// Arccosine of an `f64` in `[0, pi]` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::acos_f64(1.0), 0.0);
/// assert_eq!(weft_math::acos_f64(-1.0), std::f64::consts::PI);
/// ```
#[inline]
pub fn acos_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        return x;
    }
    let ax = abs_f64(x);
    if ax > 1.0_f64 {
        return f64_from_bits(NAN_F64_BITS);
    }
    if ax <= 0.5_f64 {
        let p = asin_tail_f64(x, x * x);
        let (s, e) = two_sum_f64(PIO2_HI_F64, -x);
        return s + (e + (PIO2_LO_F64 - p));
    }
    if x == 1.0_f64 {
        return 0.0_f64;
    }
    if x == -1.0_f64 {
        return PI_HI_F64;
    }
    let (s_hi, tail) = asin_far_f64(ax);
    if x > 0.0_f64 {
        2.0_f64 * s_hi + 2.0_f64 * tail
    } else {
        let (s, e) = fast_two_sum_f64(PI_HI_F64, -2.0_f64 * s_hi);
        s + (e + (PI_LO_F64 - 2.0_f64 * tail))
    }
}
