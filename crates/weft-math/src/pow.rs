//! Power function `x^y` (`f32`).
//!
//! `x^y = 2^(y log2|x|)`, with the logarithm and the exponential evaluated in
//! `f64` (relative errors 2^-44 and 2^-43) and one final rounding to `f32`.
//! This is the one `f32` function that uses `f64` on its main path: an
//! all-`f32` version needs `log2 x` to ~40 bits as a triple-word value, which
//! costs more than a handful of `f64` operations even on consumer GPUs. The
//! special cases follow C99 `powf`.

use crate::bits::{f32_from_bits, f64_from_bits, f64_to_bits};
use crate::classify::{is_inf, is_nan};
use crate::exp_log::INF_F32_BITS;
use crate::roots::NAN_F32_BITS;
use crate::rounding::{abs, clamp_f64, copysign, rint_small_f64, trunc};
use crate::scale::ldexp_f64;

/// `log2(e)` as `f64`.
pub const LOG2E_F64: f64 = 1.442_695_040_888_963_4_f64;

// log(1+f) = 2s + s^3 (C0 + C1 w + ... + C4 w^4), s = f/(2+f), w = s^2 (rel. 2^-44.9).
pub const POW_LOG_C0: f64 = 0.666_666_666_758_616_6_f64;
pub const POW_LOG_C1: f64 = 0.399_999_955_970_643_53_f64;
pub const POW_LOG_C2: f64 = 0.285_721_121_861_120_3_f64;
pub const POW_LOG_C3: f64 = 0.221_760_466_019_986_72_f64;
pub const POW_LOG_C4: f64 = 0.195_864_061_798_717_63_f64;

// 2^r = 1 + r (C0 + C1 r + ... + C8 r^8), |r| <= 1/2 (rel. 2^-43.6).
pub const POW_EXP2_C0: f64 = 0.693_147_180_558_550_5_f64;
pub const POW_EXP2_C1: f64 = 0.240_226_506_958_137_08_f64;
pub const POW_EXP2_C2: f64 = 0.055_504_108_739_712_33_f64;
pub const POW_EXP2_C3: f64 = 0.009_618_129_159_172_746_f64;
pub const POW_EXP2_C4: f64 = 0.001_333_354_733_145_767_8_f64;
pub const POW_EXP2_C5: f64 = 0.000_154_034_560_362_332_32_f64;
pub const POW_EXP2_C6: f64 = 1.525_849_306_321_938_9e-5_f64;
pub const POW_EXP2_C7: f64 = 1.325_518_288_220_549_5e-6_f64;
pub const POW_EXP2_C8: f64 = 9.168_119_900_136_945e-8_f64;

/// `log2(x)` to ~2^-44 relative for positive normal `x`.
#[inline]
pub fn log2_for_pow_f64(x: f64) -> f64 {
    let mut u = f64_to_bits(x);
    u += 0x3ff0_0000_0000_0000_u64 - 0x3fe6_a09e_667f_3bcd_u64;
    let k = (u >> 52) as i32 - 1023;
    u = (u & 0x000f_ffff_ffff_ffff_u64) + 0x3fe6_a09e_667f_3bcd_u64;
    let f = f64_from_bits(u) - 1.0_f64;
    let s = f / (2.0_f64 + f);
    let w = s * s;
    let r = POW_LOG_C0 + w * (POW_LOG_C1 + w * (POW_LOG_C2 + w * (POW_LOG_C3 + w * POW_LOG_C4)));
    (k as f64) + (2.0_f64 * s + s * w * r) * LOG2E_F64
}

/// `2^t` to ~2^-43 relative for `|t| <= 1000`.
#[inline]
pub fn exp2_for_pow_f64(t: f64) -> f64 {
    let n = rint_small_f64(t);
    let r = t - n;
    let p = POW_EXP2_C0
        + r * (POW_EXP2_C1
            + r * (POW_EXP2_C2
                + r * (POW_EXP2_C3
                    + r * (POW_EXP2_C4
                        + r * (POW_EXP2_C5
                            + r * (POW_EXP2_C6 + r * (POW_EXP2_C7 + r * POW_EXP2_C8)))))));
    ldexp_f64(1.0_f64 + r * p, n as i32)
}

/// Classifies `y`: 0 = not an integer, 1 = odd integer, 2 = even integer.
#[inline]
pub fn integer_kind_f32(y: f32) -> i32 {
    if trunc(y) != y {
        0_i32
    } else if abs(y) >= 16_777_216.0_f32 {
        2_i32
    } else if ((abs(y) as i32) & 1_i32) == 1_i32 {
        1_i32
    } else {
        2_i32
    }
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
    if y == 0.0_f32 || x == 1.0_f32 {
        return 1.0_f32;
    }
    if is_nan(x) || is_nan(y) {
        return x + y;
    }
    let ax = abs(x);
    if is_inf(y) {
        if ax == 1.0_f32 {
            return 1.0_f32;
        }
        if (ax > 1.0_f32) == (y > 0.0_f32) {
            return f32_from_bits(INF_F32_BITS);
        }
        return 0.0_f32;
    }
    let kind = integer_kind_f32(y);
    if ax == 0.0_f32 {
        if y < 0.0_f32 {
            if kind == 1_i32 {
                return copysign(f32_from_bits(INF_F32_BITS), x);
            }
            return f32_from_bits(INF_F32_BITS);
        }
        if kind == 1_i32 {
            return x;
        }
        return 0.0_f32;
    }
    if is_inf(ax) {
        let neg_odd = x < 0.0_f32 && kind == 1_i32;
        if y < 0.0_f32 {
            if neg_odd {
                return -0.0_f32;
            }
            return 0.0_f32;
        }
        if neg_odd {
            return x;
        }
        return f32_from_bits(INF_F32_BITS);
    }
    let mut sign = 1.0_f32;
    if x < 0.0_f32 {
        if kind == 0_i32 {
            return f32_from_bits(NAN_F32_BITS);
        }
        if kind == 1_i32 {
            sign = -1.0_f32;
        }
    }
    // Beyond +-400 the result is 0 or inf in f32 either way.
    let t = clamp_f64(
        (y as f64) * log2_for_pow_f64(ax as f64),
        -400.0_f64,
        400.0_f64,
    );
    sign * (exp2_for_pow_f64(t) as f32)
}
