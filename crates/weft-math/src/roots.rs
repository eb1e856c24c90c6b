//! Square roots.
//!
//! `sqrt` is correctly rounded (like IEEE `sqrt`, which the PTX back end maps
//! it to): a Newton estimate is corrected with an exact integer residual
//! test. (`cbrt` is an elementary function, in `dsl/`.)

use crate::bits::{f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits};
use crate::classify::{is_finite, is_finite_f64, is_nan, is_nan_f64};
use crate::wide_int::{wrapping_mul_u64, wrapping_sub_u64};

/// Canonical quiet NaN (`f32`).
pub const NAN_F32_BITS: u32 = 0x7fc0_0000_u32;
/// Canonical quiet NaN (`f64`).
pub const NAN_F64_BITS: u64 = 0x7ff8_0000_0000_0000_u64;

/// Approximate `sqrt(a)` for normal positive `a` (relative error ~1e-7).
#[inline]
pub fn sqrt_estimate_f32(a: f32) -> f32 {
    let mut y = f32_from_bits(0x5f37_5a86_u32 - (f32_to_bits(a) >> 1));
    let ha = 0.5_f32 * a;
    y = y * (1.5_f32 - ha * y * y);
    y = y * (1.5_f32 - ha * y * y);
    y = y * (1.5_f32 - ha * y * y);
    a * y
}

/// Square root, correctly rounded (0.5 ulp); `sqrt(-0.0) = -0.0`, negative
/// inputs give NaN.
///
/// ```
/// assert_eq!(weft_math::sqrt(2.0), 2.0_f32.sqrt());
/// assert!(weft_math::sqrt(-1.0).is_nan());
/// ```
#[inline]
pub fn sqrt(x: f32) -> f32 {
    if x == 0.0_f32 || is_nan(x) {
        return x; // keeps the sign of zero and the NaN payload
    }
    if x < 0.0_f32 {
        return f32_from_bits(NAN_F32_BITS);
    }
    if !is_finite(x) {
        return x;
    }
    let mut u = f32_to_bits(x);
    let mut e = 0_i32;
    if u < 0x0080_0000_u32 {
        u = f32_to_bits(x * 16_777_216.0_f32); // 2^24
        e = -24;
    }
    e += (u >> 23) as i32 - 150; // x = m * 2^e
    let mut m = ((u & 0x007f_ffff_u32) | 0x0080_0000_u32) as u64;
    if (e & 1) != 0 {
        m <<= 1;
        e -= 1;
    }
    // Scale the (even-exponent) integer so that its root has exactly 24 bits.
    let sh = if m < 0x0100_0000_u64 { 24_i32 } else { 22_i32 };
    let n = m << (sh as u64);
    let mut r = sqrt_estimate_f32(n as f32) as u64;
    // r must satisfy (r - 1/2)^2 < n < (r + 1/2)^2, i.e. -r < n - r^2 <= r.
    let mut i = 0_i32;
    while i < 4 {
        let d = (n as i64) - ((r * r) as i64);
        if d > (r as i64) {
            r += 1_u64;
        } else if d <= -(r as i64) {
            r -= 1_u64;
        } else {
            break;
        }
        i += 1;
    }
    let half = (e - sh) / 2;
    (r as f32) * f32_from_bits(((half + 127) as u32) << 23)
}

/// Approximate `sqrt(a)` for normal positive `a` (relative error ~1e-16).
#[inline]
pub fn sqrt_estimate_f64(a: f64) -> f64 {
    let mut y = f64_from_bits(0x5fe6_eb50_c7b5_37a9_u64 - (f64_to_bits(a) >> 1));
    let ha = 0.5_f64 * a;
    y = y * (1.5_f64 - ha * y * y);
    y = y * (1.5_f64 - ha * y * y);
    y = y * (1.5_f64 - ha * y * y);
    y = y * (1.5_f64 - ha * y * y);
    a * y
}

/// Square root of an `f64`, correctly rounded.
///
/// ```
/// assert_eq!(weft_math::sqrt_f64(2.0), 2.0_f64.sqrt());
/// ```
#[inline]
pub fn sqrt_f64(x: f64) -> f64 {
    if x == 0.0_f64 || is_nan_f64(x) {
        return x;
    }
    if x < 0.0_f64 {
        return f64_from_bits(NAN_F64_BITS);
    }
    if !is_finite_f64(x) {
        return x;
    }
    let mut u = f64_to_bits(x);
    let mut e = 0_i32;
    if u < 0x0010_0000_0000_0000_u64 {
        u = f64_to_bits(x * 18_014_398_509_481_984.0_f64); // 2^54
        e = -54;
    }
    e += (u >> 52) as i32 - 1075;
    let mut m = (u & 0x000f_ffff_ffff_ffff_u64) | 0x0010_0000_0000_0000_u64;
    if (e & 1) != 0 {
        m <<= 1;
        e -= 1;
    }
    // n = m * 2^52 lies in [2^104, 2^106), so its root has exactly 53 bits.
    // Only the low 64 bits of n are kept: the residual n - r^2 is small, so
    // it is exact modulo 2^64.
    let sh = 52_i32;
    let n_lo = m << (sh as u64);
    let n_approx = (m as f64) * f64_from_bits(((sh + 1023) as u64) << 52);
    let mut r = sqrt_estimate_f64(n_approx) as u64;
    let mut i = 0_i32;
    while i < 4 {
        let d = wrapping_sub_u64(n_lo, wrapping_mul_u64(r, r)) as i64;
        if d > (r as i64) {
            r += 1_u64;
        } else if d <= -(r as i64) {
            r -= 1_u64;
        } else {
            break;
        }
        i += 1;
    }
    let half = (e - sh) / 2;
    (r as f64) * f64_from_bits(((half + 1023) as u64) << 52)
}
