//! Exponentials and logarithms (`f32`).
//!
//! * `exp`: `x = k ln2 + r`, `|r| <= ln2/2`, with `r` kept as a double-word
//!   value; `e^r = 1 + r + r^2 P(r)` with a degree-4 minimax `P`.
//! * `exp2`: `x = k + r`, `r ln2` formed exactly, then the `exp` kernel.
//! * `log*`: `x = 2^k m`, `m` in `[sqrt(1/2), sqrt(2))`, `f = m - 1` (exact),
//!   `log(1+f) = f - f^2/2 + f^3 Q(f)` with a degree-7 minimax `Q`; the final
//!   sums are done with error-free transformations.
//!
//! Everything is plain `f32` arithmetic.

use crate::bits::{f32_from_bits, f32_to_bits};
use crate::classify::is_nan;
use crate::double_word::{fast_two_sum_f32, split_f32, two_prod_f32, two_sum_f32};
use crate::rounding::rint_small;
use crate::scale::ldexp;

/// `+inf` as bits.
pub const INF_F32_BITS: u32 = 0x7f80_0000_u32;
/// `-inf` as bits.
pub const NEG_INF_F32_BITS: u32 = 0xff80_0000_u32;

/// `log2(e)` rounded to `f32`.
pub const LOG2E_F32: f32 = 1.442_695_f32;
/// `ln 2` upper 16 bits (so that `k * LN2_HI_F32` is exact for `|k| < 256`).
pub const LN2_HI_F32: f32 = 0.693_145_75_f32;
/// `ln 2 - LN2_HI_F32`.
pub const LN2_LO_F32: f32 = 1.428_606_8e-6_f32;
/// `ln 2` rounded to `f32`.
pub const LN2_F32: f32 = 0.693_147_2_f32;
/// `ln 2 - LN2_F32`.
pub const LN2_TAIL_F32: f32 = -1.904_654_2e-9_f32;
/// `log2(e)` upper 12 bits.
pub const LOG2E_HI_F32: f32 = 1.442_382_8_f32;
/// `log2(e) - LOG2E_HI_F32`.
pub const LOG2E_LO_F32: f32 = 0.000_312_228_4_f32;
/// `log10(e)` upper 12 bits.
pub const LOG10E_HI_F32: f32 = 0.434_204_1_f32;
/// `log10(e) - LOG10E_HI_F32`.
pub const LOG10E_LO_F32: f32 = 9.038_034e-5_f32;
/// `log10(e)` rounded to `f32`.
pub const LOG10E_F32: f32 = 0.434_294_5_f32;
/// `log10(2)` upper 16 bits.
pub const LOG10_2_HI_F32: f32 = 0.301_025_4_f32;
/// `log10(2) - LOG10_2_HI_F32`.
pub const LOG10_2_LO_F32: f32 = 4.605_039e-6_f32;

// e^r = 1 + r + r^2 (C0 + C1 r + ... + C4 r^4) on |r| <= ln2/2 (rel. err 2^-28.3).
pub const EXP_C0: f32 = 0.499_999_94_f32;
pub const EXP_C1: f32 = 0.166_665_2_f32;
pub const EXP_C2: f32 = 0.041_668_393_f32;
pub const EXP_C3: f32 = 0.008_368_781_f32;
pub const EXP_C4: f32 = 0.001_381_446_7_f32;

// log(1+f) = f - f^2/2 + f^3 (C0 + C1 f + ... + C7 f^7), f in [sqrt(1/2)-1, sqrt(2)-1]
// (rel. err 2^-27.3).
pub const LOG_C0: f32 = 0.333_333_3_f32;
pub const LOG_C1: f32 = -0.250_008_23_f32;
pub const LOG_C2: f32 = 0.200_012_28_f32;
pub const LOG_C3: f32 = -0.166_233_36_f32;
pub const LOG_C4: f32 = 0.142_017_19_f32;
pub const LOG_C5: f32 = -0.131_603_64_f32;
pub const LOG_C6: f32 = 0.127_619_62_f32;
pub const LOG_C7: f32 = -0.076_344_87_f32;

/// `e^(r_hi + r_lo)` for `|r_hi| <= 0.35` as an unevaluated sum `(s, t)`.
#[inline]
pub fn exp_kernel_f32(r_hi: f32, r_lo: f32) -> (f32, f32) {
    let z = r_hi * r_hi;
    let p = EXP_C0 + r_hi * (EXP_C1 + r_hi * (EXP_C2 + r_hi * (EXP_C3 + r_hi * EXP_C4)));
    let (s, e) = fast_two_sum_f32(1.0_f32, r_hi);
    // e^(r + r_lo) ~ e^r (1 + r_lo) ~ e^r + r_lo (1 + r)
    let t = e + (z * p + (r_lo + r_lo * r_hi));
    (s, t)
}

/// `e^x = (s + t) * 2^k` for `|x| <= 104`; returns `(s, t, k)` with `s` in
/// about `[0.7, 1.42]`.
#[inline]
pub fn exp_core_f32(x: f32) -> (f32, f32, i32) {
    let kf = rint_small(x * LOG2E_F32);
    let t0 = x - kf * LN2_HI_F32; // exact: |k| < 256 and Sterbenz
    let (r_hi, r_lo) = two_sum_f32(t0, -(kf * LN2_LO_F32));
    let (s, t) = exp_kernel_f32(r_hi, r_lo);
    (s, t, kf as i32)
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
    if is_nan(x) {
        return x;
    }
    if x > 88.8_f32 {
        return f32_from_bits(INF_F32_BITS);
    }
    if x < -104.0_f32 {
        return 0.0_f32;
    }
    let (s, t, k) = exp_core_f32(x);
    ldexp(s + t, k)
}

/// Base-2 exponential `2^x` (≤ 1 ulp); exact for integer `x`.
///
/// ```
/// assert_eq!(weft_math::exp2(10.0), 1024.0);
/// assert_eq!(weft_math::exp2(-1.0), 0.5);
/// ```
#[inline]
pub fn exp2(x: f32) -> f32 {
    if is_nan(x) {
        return x;
    }
    if x >= 128.0_f32 {
        return f32_from_bits(INF_F32_BITS);
    }
    if x < -151.0_f32 {
        return 0.0_f32;
    }
    let kf = rint_small(x);
    let r = x - kf; // exact
    let (y_hi, y_lo) = two_prod_f32(r, LN2_F32);
    let (s, t) = exp_kernel_f32(y_hi, y_lo + r * LN2_TAIL_F32);
    ldexp(s + t, kf as i32)
}

/// Decomposes a finite positive `x` as `2^k (1 + f)` with `1 + f` in
/// `[sqrt(1/2), sqrt(2))` and returns `(f, tail, k)` where
/// `log(1 + f) ~ f + tail` (`tail = -f^2/2 + f^3 Q(f)`).
#[inline]
pub fn log_core_f32(x: f32) -> (f32, f32, f32) {
    let mut u = f32_to_bits(x);
    let mut k = 0_i32;
    if u < 0x0080_0000_u32 {
        u = f32_to_bits(x * 8_388_608.0_f32); // 2^23
        k = -23;
    }
    // Shift so that the mantissa range [sqrt(1/2), sqrt(2)) maps to one exponent.
    u += 0x3f80_0000_u32 - 0x3f35_04f3_u32;
    k += (u >> 23) as i32 - 127;
    u = (u & 0x007f_ffff_u32) + 0x3f35_04f3_u32;
    let f = f32_from_bits(u) - 1.0_f32; // exact
    let z = f * f;
    let q = LOG_C0
        + f * (LOG_C1
            + f * (LOG_C2
                + f * (LOG_C3 + f * (LOG_C4 + f * (LOG_C5 + f * (LOG_C6 + f * LOG_C7))))));
    let tail = f * z * q - 0.5_f32 * z;
    (f, tail, k as f32)
}

/// Special cases shared by the logarithms: returns `(true, value)` when `x`
/// is NaN, negative, zero or `+inf`.
#[inline]
pub fn log_special_f32(x: f32) -> (bool, f32) {
    if is_nan(x) {
        return (true, x);
    }
    if x < 0.0_f32 {
        return (true, f32_from_bits(0x7fc0_0000_u32));
    }
    if x == 0.0_f32 {
        return (true, f32_from_bits(NEG_INF_F32_BITS));
    }
    if f32_to_bits(x) == INF_F32_BITS {
        return (true, x);
    }
    (false, 0.0_f32)
}

/// Natural logarithm (≤ 1 ulp); `log(0) = -inf`, `log(x < 0) = NaN`.
///
/// ```
/// assert_eq!(weft_math::log(1.0), 0.0);
/// assert!((weft_math::log(std::f32::consts::E) - 1.0).abs() <= f32::EPSILON);
/// ```
#[inline]
pub fn log(x: f32) -> f32 {
    let (special, v) = log_special_f32(x);
    if special {
        return v;
    }
    let (f, tail, kf) = log_core_f32(x);
    // |k ln2_hi| >= |f| whenever k != 0, so FastTwoSum applies.
    let (s, e) = fast_two_sum_f32(kf * LN2_HI_F32, f);
    s + (e + (tail + kf * LN2_LO_F32))
}

/// Base-2 logarithm (≤ 1 ulp); exact for powers of two.
///
/// ```
/// assert_eq!(weft_math::log2(8.0), 3.0);
/// ```
#[inline]
pub fn log2(x: f32) -> f32 {
    let (special, v) = log_special_f32(x);
    if special {
        return v;
    }
    let (f, tail, kf) = log_core_f32(x);
    let (fh, fl) = split_f32(f);
    let p = fh * LOG2E_HI_F32; // exact (12 x 12 bits)
    let small = fl * LOG2E_HI_F32 + f * LOG2E_LO_F32 + tail * LOG2E_F32;
    let (s, e) = fast_two_sum_f32(kf, p);
    s + (e + small)
}

/// Base-10 logarithm (≤ 1 ulp).
///
/// ```
/// assert_eq!(weft_math::log10(1000.0), 3.0);
/// ```
#[inline]
pub fn log10(x: f32) -> f32 {
    let (special, v) = log_special_f32(x);
    if special {
        return v;
    }
    let (f, tail, kf) = log_core_f32(x);
    let (fh, fl) = split_f32(f);
    let a = kf * LOG10_2_HI_F32; // exact (8 x 16 bits)
    let b = fh * LOG10E_HI_F32; // exact (12 x 12 bits)
    let small = kf * LOG10_2_LO_F32 + fl * LOG10E_HI_F32 + f * LOG10E_LO_F32 + tail * LOG10E_F32;
    let (s, e) = two_sum_f32(a, b);
    s + (e + small)
}
