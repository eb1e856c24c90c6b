//! Sign manipulation, rounding to integers, `min`/`max`/`clamp`.
//!
//! All functions are exact (no rounding error) and follow IEEE-754 /
//! Rust `std` semantics for NaN, infinities and signed zeros.

use crate::bits::{f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits};
use crate::classify::{is_nan, is_nan_f64};
use crate::compiled::{f32_src, f64_src};

/// Absolute value (clears the sign bit, so `abs(-0.0) = +0.0`).
///
/// ```
/// assert_eq!(weft_math::abs(-2.5), 2.5);
/// ```
#[inline]
pub fn abs(x: f32) -> f32 {
    f32_from_bits(f32_to_bits(x) & 0x7fff_ffff_u32)
}

/// Returns `x` with the sign bit of `y`.
///
/// ```
/// assert_eq!(weft_math::copysign(2.0, -0.0), -2.0);
/// ```
#[inline]
pub fn copysign(x: f32, y: f32) -> f32 {
    f32_src::__weft_h_copysign_f32(x, y)
}

/// Rounds toward zero.
///
/// ```
/// assert_eq!(weft_math::trunc(-2.7), -2.0);
/// ```
#[inline]
pub fn trunc(x: f32) -> f32 {
    let u = f32_to_bits(x);
    let e = ((u >> 23) & 0xff_u32) as i32 - 127;
    if e >= 23 {
        // Already integral, or inf/NaN.
        return x;
    }
    if e < 0 {
        return f32_from_bits(u & 0x8000_0000_u32);
    }
    let frac_mask = 0x007f_ffff_u32 >> (e as u32);
    f32_from_bits(u & (frac_mask ^ 0xffff_ffff_u32))
}

/// Rounds toward negative infinity.
///
/// ```
/// assert_eq!(weft_math::floor(-2.5), -3.0);
/// ```
#[inline]
pub fn floor(x: f32) -> f32 {
    let t = trunc(x);
    if t > x { t - 1.0_f32 } else { t }
}

/// Rounds toward positive infinity (`ceil(-0.5) = -0.0`).
///
/// ```
/// assert_eq!(weft_math::ceil(2.1), 3.0);
/// ```
#[inline]
pub fn ceil(x: f32) -> f32 {
    let t = trunc(x);
    if t < x { t + 1.0_f32 } else { t }
}

/// Rounds to the nearest integer, ties away from zero (like `f32::round`).
///
/// ```
/// assert_eq!(weft_math::round(2.5), 3.0);
/// assert_eq!(weft_math::round(-2.5), -3.0);
/// ```
#[inline]
pub fn round(x: f32) -> f32 {
    let t = trunc(x);
    // `x - t` is exact for every finite `x`.
    if abs(x - t) >= 0.5_f32 {
        t + copysign(1.0_f32, x)
    } else {
        t
    }
}

/// Sign of `x`: `1.0` for positive, `-1.0` for negative, `x` itself for
/// `±0.0` and NaN.
///
/// ```
/// assert_eq!(weft_math::sign(-3.0), -1.0);
/// assert_eq!(weft_math::sign(0.0), 0.0);
/// ```
#[inline]
pub fn sign(x: f32) -> f32 {
    if x > 0.0_f32 {
        1.0_f32
    } else if x < 0.0_f32 {
        -1.0_f32
    } else {
        x
    }
}

/// IEEE-754 `minNum`: the smaller argument; if one argument is NaN the other
/// is returned. `min(-0.0, 0.0) = -0.0`.
///
/// ```
/// assert_eq!(weft_math::min(1.0, f32::NAN), 1.0);
/// ```
#[inline]
pub fn min(x: f32, y: f32) -> f32 {
    if is_nan(x) {
        return y;
    }
    if is_nan(y) {
        return x;
    }
    if x < y {
        x
    } else if y < x {
        y
    } else {
        f32_from_bits(f32_to_bits(x) | f32_to_bits(y))
    }
}

/// IEEE-754 `maxNum`: the larger argument; if one argument is NaN the other
/// is returned. `max(-0.0, 0.0) = 0.0`.
///
/// ```
/// assert_eq!(weft_math::max(1.0, 2.0), 2.0);
/// ```
#[inline]
pub fn max(x: f32, y: f32) -> f32 {
    if is_nan(x) {
        return y;
    }
    if is_nan(y) {
        return x;
    }
    if x > y {
        x
    } else if y > x {
        y
    } else {
        f32_from_bits(f32_to_bits(x) & f32_to_bits(y))
    }
}

/// Restricts `x` to `[lo, hi]` (expects `lo <= hi`); a NaN `x` is returned
/// unchanged, like `f32::clamp`.
///
/// ```
/// assert_eq!(weft_math::clamp(5.0, 0.0, 1.0), 1.0);
/// ```
#[inline]
pub fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}

/// Absolute value of an `f64`.
///
/// ```
/// assert_eq!(weft_math::abs_f64(-2.5), 2.5);
/// ```
#[inline]
pub fn abs_f64(x: f64) -> f64 {
    f64_from_bits(f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64)
}

/// Returns `x` with the sign bit of `y`.
///
/// ```
/// assert_eq!(weft_math::copysign_f64(2.0, -1.0), -2.0);
/// ```
#[inline]
pub fn copysign_f64(x: f64, y: f64) -> f64 {
    f64_src::__weft_h_copysign_f64(x, y)
}

/// Rounds toward zero.
///
/// ```
/// assert_eq!(weft_math::trunc_f64(-2.7), -2.0);
/// ```
#[inline]
pub fn trunc_f64(x: f64) -> f64 {
    let u = f64_to_bits(x);
    let e = ((u >> 52) & 0x7ff_u64) as i32 - 1023;
    if e >= 52 {
        return x;
    }
    if e < 0 {
        return f64_from_bits(u & 0x8000_0000_0000_0000_u64);
    }
    let frac_mask = 0x000f_ffff_ffff_ffff_u64 >> (e as u64);
    f64_from_bits(u & (frac_mask ^ 0xffff_ffff_ffff_ffff_u64))
}

/// Rounds toward negative infinity.
///
/// ```
/// assert_eq!(weft_math::floor_f64(-2.5), -3.0);
/// ```
#[inline]
pub fn floor_f64(x: f64) -> f64 {
    let t = trunc_f64(x);
    if t > x { t - 1.0_f64 } else { t }
}

/// Rounds toward positive infinity.
///
/// ```
/// assert_eq!(weft_math::ceil_f64(2.1), 3.0);
/// ```
#[inline]
pub fn ceil_f64(x: f64) -> f64 {
    let t = trunc_f64(x);
    if t < x { t + 1.0_f64 } else { t }
}

/// Rounds to the nearest integer, ties away from zero.
///
/// ```
/// assert_eq!(weft_math::round_f64(-2.5), -3.0);
/// ```
#[inline]
pub fn round_f64(x: f64) -> f64 {
    let t = trunc_f64(x);
    if abs_f64(x - t) >= 0.5_f64 {
        t + copysign_f64(1.0_f64, x)
    } else {
        t
    }
}

/// Sign of `x`: `±1.0`, or `x` itself for `±0.0` and NaN.
///
/// ```
/// assert_eq!(weft_math::sign_f64(2.0), 1.0);
/// ```
#[inline]
pub fn sign_f64(x: f64) -> f64 {
    if x > 0.0_f64 {
        1.0_f64
    } else if x < 0.0_f64 {
        -1.0_f64
    } else {
        x
    }
}

/// IEEE-754 `minNum` for `f64` (see [`min`]).
///
/// ```
/// assert_eq!(weft_math::min_f64(f64::NAN, 3.0), 3.0);
/// ```
#[inline]
pub fn min_f64(x: f64, y: f64) -> f64 {
    if is_nan_f64(x) {
        return y;
    }
    if is_nan_f64(y) {
        return x;
    }
    if x < y {
        x
    } else if y < x {
        y
    } else {
        f64_from_bits(f64_to_bits(x) | f64_to_bits(y))
    }
}

/// IEEE-754 `maxNum` for `f64` (see [`max`]).
///
/// ```
/// assert_eq!(weft_math::max_f64(-1.0, 3.0), 3.0);
/// ```
#[inline]
pub fn max_f64(x: f64, y: f64) -> f64 {
    if is_nan_f64(x) {
        return y;
    }
    if is_nan_f64(y) {
        return x;
    }
    if x > y {
        x
    } else if y > x {
        y
    } else {
        f64_from_bits(f64_to_bits(x) & f64_to_bits(y))
    }
}

/// Restricts `x` to `[lo, hi]`; NaN is returned unchanged.
///
/// ```
/// assert_eq!(weft_math::clamp_f64(-5.0, 0.0, 1.0), 0.0);
/// ```
#[inline]
pub fn clamp_f64(x: f64, lo: f64, hi: f64) -> f64 {
    if x < lo {
        lo
    } else if x > hi {
        hi
    } else {
        x
    }
}
