//! Exponentials and logarithms (`f64`).
//!
//! Same structure as the `f32` versions: `exp` uses `x = k ln2 + r` with a
//! double-word `r` and `e^r = 1 + r + r^2 P(r)` (degree-9 minimax), the
//! logarithms use `x = 2^k (1 + f)`, `s = f/(2+f)` and
//! `log(1+f) = f - f^2/2 + s (f^2/2 + R(s^2))` (degree-6 minimax `R`, as in
//! fdlibm) with error-free final sums.

use crate::bits::{f64_from_bits, f64_to_bits};
use crate::classify::is_nan_f64;
use crate::double_word::{fast_two_sum_f64, split_trunc_f64, two_prod_f64, two_sum_f64};
use crate::roots::NAN_F64_BITS;
use crate::rounding::rint_small_f64;
use crate::scale::ldexp_f64;

/// `+inf` as bits.
pub const INF_F64_BITS: u64 = 0x7ff0_0000_0000_0000_u64;
/// `-inf` as bits.
pub const NEG_INF_F64_BITS: u64 = 0xfff0_0000_0000_0000_u64;

/// `log2(e)`.
pub const LOG2E_F64_FULL: f64 = 1.4426950408889634_f64;
/// `ln 2` upper 42 bits (`k * LN2_HI42` exact for `|k| < 2^11`).
pub const LN2_HI42: f64 = 0.6931471805598903_f64;
/// `ln 2 - LN2_HI42`.
pub const LN2_LO42: f64 = 5.497923018708371e-14_f64;
/// `ln 2` rounded to `f64`.
pub const LN2_F64: f64 = 0.6931471805599453_f64;
/// `ln 2 - LN2_F64`.
pub const LN2_TAIL_F64: f64 = 2.3190468138462996e-17_f64;
/// `log2(e)` upper 27 bits.
pub const LOG2E_HI27: f64 = 1.4426950365304947_f64;
/// `log2(e) - LOG2E_HI27`.
pub const LOG2E_LO27: f64 = 4.3584687174185184e-9_f64;
/// `log10(e)` upper 27 bits.
pub const LOG10E_HI27: f64 = 0.434294480830431_f64;
/// `log10(e) - LOG10E_HI27`.
pub const LOG10E_LO27: f64 = 1.0728208431540585e-9_f64;
/// `log10(e)`.
pub const LOG10E_F64: f64 = 0.4342944819032518_f64;
/// `log10(2)` upper 42 bits.
pub const LOG10_2_HI42: f64 = 0.30102999566395283_f64;
/// `log10(2) - LOG10_2_HI42`.
pub const LOG10_2_LO42: f64 = 2.8363394551044964e-14_f64;

// e^r = 1 + r + r^2 (C0 + ... + C9 r^9), |r| <= ln2/2 (rel. 2^-57.9).
pub const EXP64_C0: f64 = 0.5000000000000011_f64;
pub const EXP64_C1: f64 = 0.1666666666666641_f64;
pub const EXP64_C2: f64 = 0.04166666666652919_f64;
pub const EXP64_C3: f64 = 0.008333333333495627_f64;
pub const EXP64_C4: f64 = 0.0013888888943922666_f64;
pub const EXP64_C5: f64 = 0.00019841269504758963_f64;
pub const EXP64_C6: f64 = 2.480149276272582e-5_f64;
pub const EXP64_C7: f64 = 2.7557587348157003e-6_f64;
pub const EXP64_C8: f64 = 2.763037865555354e-7_f64;
pub const EXP64_C9: f64 = 2.4999963439221722e-8_f64;

// R(w) = w (C0 + C1 w + ... + C6 w^6), w = s^2 (rel. 2^-59.5).
pub const LOG64_C0: f64 = 0.6666666666666735_f64;
pub const LOG64_C1: f64 = 0.399999999994128_f64;
pub const LOG64_C2: f64 = 0.2857142874288844_f64;
pub const LOG64_C3: f64 = 0.2222219851376872_f64;
pub const LOG64_C4: f64 = 0.18183567811166668_f64;
pub const LOG64_C5: f64 = 0.1531395167745775_f64;
pub const LOG64_C6: f64 = 0.14797032174214989_f64;

/// `e^(r_hi + r_lo)` for `|r_hi| <= 0.35` as an unevaluated sum `(s, t)`.
#[inline]
pub fn exp_kernel_f64(r_hi: f64, r_lo: f64) -> (f64, f64) {
    let r = r_hi;
    let z = r * r;
    let p = EXP64_C0
        + r * (EXP64_C1
            + r * (EXP64_C2
                + r * (EXP64_C3
                    + r * (EXP64_C4
                        + r * (EXP64_C5
                            + r * (EXP64_C6 + r * (EXP64_C7 + r * (EXP64_C8 + r * EXP64_C9))))))));
    let (s, e) = fast_two_sum_f64(1.0_f64, r);
    (s, e + (z * p + (r_lo + r_lo * r)))
}

/// `e^x = (s + t) 2^k` for `|x| <= 750`; returns `(s, t, k)`.
#[inline]
pub fn exp_core_f64(x: f64) -> (f64, f64, i32) {
    let kf = rint_small_f64(x * LOG2E_F64_FULL);
    let t0 = x - kf * LN2_HI42; // exact
    let (r_hi, r_lo) = two_sum_f64(t0, -(kf * LN2_LO42));
    let (s, t) = exp_kernel_f64(r_hi, r_lo);
    (s, t, kf as i32)
}

/// Natural exponential of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::exp_f64(0.0), 1.0);
/// assert!((weft_math::exp_f64(1.0) - std::f64::consts::E).abs() <= 2.0 * f64::EPSILON);
/// ```
#[inline]
pub fn exp_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        return x;
    }
    if x > 710.0_f64 {
        return f64_from_bits(INF_F64_BITS);
    }
    if x < -746.0_f64 {
        return 0.0_f64;
    }
    let (s, t, k) = exp_core_f64(x);
    ldexp_f64(s + t, k)
}

/// `2^x` for `f64` (≤ 2 ulp); exact for integer `x`.
///
/// ```
/// assert_eq!(weft_math::exp2_f64(-3.0), 0.125);
/// ```
#[inline]
pub fn exp2_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        return x;
    }
    if x >= 1024.0_f64 {
        return f64_from_bits(INF_F64_BITS);
    }
    if x < -1076.0_f64 {
        return 0.0_f64;
    }
    let kf = rint_small_f64(x);
    let r = x - kf;
    let (y_hi, y_lo) = two_prod_f64(r, LN2_F64);
    let (s, t) = exp_kernel_f64(y_hi, y_lo + r * LN2_TAIL_F64);
    ldexp_f64(s + t, kf as i32)
}

/// Decomposes finite positive `x = 2^k (1 + f)`, `1 + f` in
/// `[sqrt(1/2), sqrt(2))`, returning `(f, tail, k)` with
/// `log(1 + f) ~ f + tail`.
#[inline]
pub fn log_core_f64(x: f64) -> (f64, f64, f64) {
    let mut u = f64_to_bits(x);
    let mut k = 0_i32;
    if u < 0x0010_0000_0000_0000_u64 {
        u = f64_to_bits(x * 18_014_398_509_481_984.0_f64); // 2^54
        k = -54;
    }
    u += 0x3ff0_0000_0000_0000_u64 - 0x3fe6_a09e_667f_3bcd_u64;
    k += (u >> 52) as i32 - 1023;
    u = (u & 0x000f_ffff_ffff_ffff_u64) + 0x3fe6_a09e_667f_3bcd_u64;
    let f = f64_from_bits(u) - 1.0_f64;
    let s = f / (2.0_f64 + f);
    let w = s * s;
    let r = w
        * (LOG64_C0
            + w * (LOG64_C1
                + w * (LOG64_C2
                    + w * (LOG64_C3 + w * (LOG64_C4 + w * (LOG64_C5 + w * LOG64_C6))))));
    let hfsq = 0.5_f64 * f * f;
    (f, s * (hfsq + r) - hfsq, k as f64)
}

/// Special cases of the `f64` logarithms: `(true, value)` for NaN,
/// negative, zero and `+inf` inputs.
#[inline]
pub fn log_special_f64(x: f64) -> (bool, f64) {
    if is_nan_f64(x) {
        return (true, x);
    }
    if x < 0.0_f64 {
        return (true, f64_from_bits(NAN_F64_BITS));
    }
    if x == 0.0_f64 {
        return (true, f64_from_bits(NEG_INF_F64_BITS));
    }
    if f64_to_bits(x) == INF_F64_BITS {
        return (true, x);
    }
    (false, 0.0_f64)
}

/// Natural logarithm of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::log_f64(1.0), 0.0);
/// ```
#[inline]
pub fn log_f64(x: f64) -> f64 {
    let (special, v) = log_special_f64(x);
    if special {
        return v;
    }
    let (f, tail, kf) = log_core_f64(x);
    let (s, e) = fast_two_sum_f64(kf * LN2_HI42, f);
    s + (e + (tail + kf * LN2_LO42))
}

/// Base-2 logarithm of an `f64` (≤ 2 ulp); exact for powers of two.
///
/// ```
/// assert_eq!(weft_math::log2_f64(1024.0), 10.0);
/// ```
#[inline]
pub fn log2_f64(x: f64) -> f64 {
    let (special, v) = log_special_f64(x);
    if special {
        return v;
    }
    let (f, tail, kf) = log_core_f64(x);
    let (fh, fl) = split_trunc_f64(f);
    let p = fh * LOG2E_HI27; // exact (26 x 27 bits)
    let small = fl * LOG2E_HI27 + f * LOG2E_LO27 + tail * LOG2E_F64_FULL;
    let (s, e) = fast_two_sum_f64(kf, p);
    s + (e + small)
}

/// Base-10 logarithm of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::log10_f64(100.0), 2.0);
/// ```
#[inline]
pub fn log10_f64(x: f64) -> f64 {
    let (special, v) = log_special_f64(x);
    if special {
        return v;
    }
    let (f, tail, kf) = log_core_f64(x);
    let (fh, fl) = split_trunc_f64(f);
    let a = kf * LOG10_2_HI42; // exact
    let b = fh * LOG10E_HI27; // exact
    let small = kf * LOG10_2_LO42 + fl * LOG10E_HI27 + f * LOG10E_LO27 + tail * LOG10E_F64;
    let (s, e) = two_sum_f64(a, b);
    s + (e + small)
}
