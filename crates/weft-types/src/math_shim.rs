//! The single route from this crate to elementary functions.
//!
//! Every transcendental or rounding function used by the types and builtins goes through
//! here, so the CPU uses exactly the algorithms that the PTX back end reproduces
//! (`weft_math`), never `std`'s platform `libm`. `sqrt` alone comes from `std`: IEEE 754
//! requires it to be correctly rounded, on the CPU and in PTX's `sqrt.rn` alike.

pub(crate) use weft_math::{
    abs, abs_f64, acos, acos_f64, asin, asin_f64, atan, atan_f64, atan2, atan2_f64, cbrt, cbrt_f64,
    ceil, ceil_f64, clamp, clamp_f64, cos, cos_f64, cosh, cosh_f64, exp, exp_f64, exp2, exp2_f64,
    floor, floor_f64, log, log_f64, log2, log2_f64, log10, log10_f64, max, max_f64, min, min_f64,
    pow, pow_f64, round, round_f64, sign, sign_f64, sin, sin_f64, sinh, sinh_f64, tan, tan_f64,
    tanh, tanh_f64, trunc, trunc_f64,
};

/// The random-number generator: `(new_state, value)` functions of a `u32` state.
pub(crate) mod random {
    pub(crate) use weft_math::{rand_init, randf, randf_range, randi, randn};
}

/// Correctly rounded square root (f32).
#[inline]
pub(crate) fn sqrt(x: f32) -> f32 {
    x.sqrt()
}

/// Correctly rounded square root (f64).
#[inline]
pub(crate) fn sqrt_f64(x: f64) -> f64 {
    x.sqrt()
}
