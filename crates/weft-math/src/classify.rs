//! Classification predicates (NaN / infinity / finiteness) on bit patterns: the
//! helpers of the elementary functions' source (`dsl/`), made public.

use crate::compiled::{f32_src, f64_src};

/// `true` if `x` is a NaN.
///
/// ```
/// assert!(weft_math::is_nan(f32::NAN));
/// ```
#[inline]
pub fn is_nan(x: f32) -> bool {
    f32_src::__weft_h_is_nan_f32(x)
}

/// `true` if `x` is neither infinite nor NaN.
///
/// ```
/// assert!(!weft_math::is_finite(f32::INFINITY));
/// ```
#[inline]
pub fn is_finite(x: f32) -> bool {
    f32_src::__weft_h_is_finite_f32(x)
}

/// `true` if `x` is `+inf` or `-inf`.
///
/// ```
/// assert!(weft_math::is_inf(f32::NEG_INFINITY));
/// ```
#[inline]
pub fn is_inf(x: f32) -> bool {
    f32_src::__weft_h_is_inf_f32(x)
}

/// `true` if `x` is a NaN.
///
/// ```
/// assert!(weft_math::is_nan_f64(f64::NAN));
/// ```
#[inline]
pub fn is_nan_f64(x: f64) -> bool {
    f64_src::__weft_h_is_nan_f64(x)
}

/// `true` if `x` is neither infinite nor NaN.
///
/// ```
/// assert!(weft_math::is_finite_f64(1.0));
/// ```
#[inline]
pub fn is_finite_f64(x: f64) -> bool {
    f64_src::__weft_h_is_finite_f64(x)
}

/// `true` if `x` is `+inf` or `-inf`.
///
/// ```
/// assert!(weft_math::is_inf_f64(f64::INFINITY));
/// ```
#[inline]
pub fn is_inf_f64(x: f64) -> bool {
    f64_src::__weft_h_is_inf_f64(x)
}
