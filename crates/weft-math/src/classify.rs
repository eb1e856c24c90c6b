//! Classification predicates (NaN / infinity / finiteness) on bit patterns.

use crate::bits::{f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits};

/// `true` if `x` is a NaN.
///
/// ```
/// assert!(weft_math::is_nan(f32::NAN));
/// ```
#[inline]
pub fn is_nan(x: f32) -> bool {
    (f32_to_bits(x) & 0x7fff_ffff_u32) > 0x7f80_0000_u32
}

/// `true` if `x` is neither infinite nor NaN.
///
/// ```
/// assert!(!weft_math::is_finite(f32::INFINITY));
/// ```
#[inline]
pub fn is_finite(x: f32) -> bool {
    (f32_to_bits(x) & 0x7fff_ffff_u32) < 0x7f80_0000_u32
}

/// `true` if `x` is `+inf` or `-inf`.
///
/// ```
/// assert!(weft_math::is_inf(f32::NEG_INFINITY));
/// ```
#[inline]
pub fn is_inf(x: f32) -> bool {
    (f32_to_bits(x) & 0x7fff_ffff_u32) == 0x7f80_0000_u32
}

/// `true` if `x` is a NaN.
///
/// ```
/// assert!(weft_math::is_nan_f64(f64::NAN));
/// ```
#[inline]
pub fn is_nan_f64(x: f64) -> bool {
    (f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64) > 0x7ff0_0000_0000_0000_u64
}

/// `true` if `x` is neither infinite nor NaN.
///
/// ```
/// assert!(weft_math::is_finite_f64(1.0));
/// ```
#[inline]
pub fn is_finite_f64(x: f64) -> bool {
    (f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64) < 0x7ff0_0000_0000_0000_u64
}

/// `true` if `x` is `+inf` or `-inf`.
///
/// ```
/// assert!(weft_math::is_inf_f64(f64::INFINITY));
/// ```
#[inline]
pub fn is_inf_f64(x: f64) -> bool {
    (f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64) == 0x7ff0_0000_0000_0000_u64
}

/// Result of an invalid operation on `x`: `x` itself if it is a NaN
/// (propagating its payload), otherwise the canonical quiet NaN.
#[inline]
pub fn invalid_f32(x: f32) -> f32 {
    if is_nan(x) {
        x
    } else {
        f32_from_bits(0x7fc0_0000_u32)
    }
}

/// `f64` version of [`invalid_f32`].
#[inline]
pub fn invalid_f64(x: f64) -> f64 {
    if is_nan_f64(x) {
        x
    } else {
        f64_from_bits(0x7ff8_0000_0000_0000_u64)
    }
}
