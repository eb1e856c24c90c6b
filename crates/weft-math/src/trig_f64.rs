//! Sine, cosine and tangent (`f64`).
//!
//! Reduction as in `trig_reduce_f64`; kernels `sin r = r + r^3 S(r^2)`
//! (degree 5 in `r^2`), `cos r = 1 - r^2/2 + r^4 C(r^2)` (degree 5), both
//! returning double-word results; `tan = sin/cos` (or `-cos/sin`) with the
//! division residual computed exactly.

use crate::classify::{invalid_f64, is_finite_f64};
use crate::double_word::{fast_two_sum_f64, two_prod_f64};
use crate::rounding::abs_f64;
use crate::trig_reduce_f64::rem_pio2_f64;

/// `pi/4` (rounded up slightly).
pub const PIO4_F64: f64 = 0.7853981633974483_f64;
/// `2^-27`: below it `sin x ~ x`, `cos x ~ 1`, `tan x ~ x`.
pub const TRIG_TINY_F64: f64 = 7.450580596923828e-9_f64;

// sin r = r + r^3 (C0 + C1 z + ... + C5 z^5), z = r^2 (rel. 2^-57.9).
pub const SIN64_C0: f64 = -0.1666666666666663_f64;
pub const SIN64_C1: f64 = 0.008333333333322063_f64;
pub const SIN64_C2: f64 = -0.000198412698295426_f64;
pub const SIN64_C3: f64 = 2.755731360452459e-6_f64;
pub const SIN64_C4: f64 = -2.5050745037575475e-8_f64;
pub const SIN64_C5: f64 = 1.589606749807657e-10_f64;

// cos r = 1 - z/2 + z^2 (C0 + ... + C5 z^5) (rel. 2^-64).
pub const COS64_C0: f64 = 0.041666666666666595_f64;
pub const COS64_C1: f64 = -0.0013888888888872975_f64;
pub const COS64_C2: f64 = 2.4801587288800052e-5_f64;
pub const COS64_C3: f64 = -2.7557314163983316e-7_f64;
pub const COS64_C4: f64 = 2.087569870941024e-9_f64;
pub const COS64_C5: f64 = -1.1358423560463482e-11_f64;

/// `sin(hi + lo)` as a double-word `(s, t)`, `|hi| <= pi/4`.
#[inline]
pub fn sin_kernel_f64(hi: f64, lo: f64) -> (f64, f64) {
    let z = hi * hi;
    let p = z
        * (SIN64_C0
            + z * (SIN64_C1 + z * (SIN64_C2 + z * (SIN64_C3 + z * (SIN64_C4 + z * SIN64_C5)))));
    fast_two_sum_f64(hi, hi * p + lo * (1.0_f64 - 0.5_f64 * z))
}

/// `cos(hi + lo)` as a double-word `(c, t)`, `|hi| <= pi/4`.
#[inline]
pub fn cos_kernel_f64(hi: f64, lo: f64) -> (f64, f64) {
    let z = hi * hi;
    let hz = 0.5_f64 * z;
    let w = 1.0_f64 - hz;
    let c = z
        * z
        * (COS64_C0
            + z * (COS64_C1 + z * (COS64_C2 + z * (COS64_C3 + z * (COS64_C4 + z * COS64_C5)))));
    fast_two_sum_f64(w, ((1.0_f64 - w) - hz) + (c - hi * lo))
}

/// `(nh + nl) / (dh + dl)` rounded, using the exact division residual.
#[inline]
pub fn div_dd_f64(nh: f64, nl: f64, dh: f64, dl: f64) -> f64 {
    let q = nh / dh;
    let (p, pe) = two_prod_f64(q, dh);
    let rho = ((nh - p) - pe) + (nl - q * dl);
    q + rho / dh
}

/// Sine of an `f64` (≤ 2 ulp); `sin(-0.0) = -0.0`.
///
/// ```
/// assert_eq!(weft_math::sin_f64(0.0), 0.0);
/// assert!((weft_math::sin_f64(1.0) - 1.0_f64.sin()).abs() <= f64::EPSILON);
/// ```
#[inline]
pub fn sin_f64(x: f64) -> f64 {
    let ax = abs_f64(x);
    if ax < PIO4_F64 {
        if ax < TRIG_TINY_F64 {
            return x;
        }
        let (s, t) = sin_kernel_f64(x, 0.0_f64);
        return s + t;
    }
    if !is_finite_f64(x) {
        return invalid_f64(x);
    }
    let (hi, lo, q) = rem_pio2_f64(x);
    let v = if (q & 1_i32) == 0_i32 {
        let (s, t) = sin_kernel_f64(hi, lo);
        s + t
    } else {
        let (c, t) = cos_kernel_f64(hi, lo);
        c + t
    };
    if q >= 2_i32 { -v } else { v }
}

/// Cosine of an `f64` (≤ 2 ulp).
///
/// ```
/// assert_eq!(weft_math::cos_f64(0.0), 1.0);
/// ```
#[inline]
pub fn cos_f64(x: f64) -> f64 {
    let ax = abs_f64(x);
    if ax < PIO4_F64 {
        if ax < TRIG_TINY_F64 {
            return 1.0_f64;
        }
        let (c, t) = cos_kernel_f64(x, 0.0_f64);
        return c + t;
    }
    if !is_finite_f64(x) {
        return invalid_f64(x);
    }
    let (hi, lo, q) = rem_pio2_f64(x);
    let v = if (q & 1_i32) == 0_i32 {
        let (c, t) = cos_kernel_f64(hi, lo);
        c + t
    } else {
        let (s, t) = sin_kernel_f64(hi, lo);
        s + t
    };
    if q == 1_i32 || q == 2_i32 { -v } else { v }
}

/// `(sin x, cos x)` for `f64` with one shared reduction.
///
/// ```
/// let (s, c) = weft_math::sincos_f64(2.0);
/// assert_eq!((s, c), (weft_math::sin_f64(2.0), weft_math::cos_f64(2.0)));
/// ```
#[inline]
pub fn sincos_f64(x: f64) -> (f64, f64) {
    let ax = abs_f64(x);
    let mut hi = x;
    let mut lo = 0.0_f64;
    let mut q = 0_i32;
    if ax < PIO4_F64 {
        if ax < TRIG_TINY_F64 {
            return (x, 1.0_f64);
        }
    } else {
        if !is_finite_f64(x) {
            return (invalid_f64(x), invalid_f64(x));
        }
        let (h, l, qq) = rem_pio2_f64(x);
        hi = h;
        lo = l;
        q = qq;
    }
    let (s0, s1) = sin_kernel_f64(hi, lo);
    let (c0, c1) = cos_kernel_f64(hi, lo);
    let s = s0 + s1;
    let c = c0 + c1;
    if q == 0_i32 {
        (s, c)
    } else if q == 1_i32 {
        (c, -s)
    } else if q == 2_i32 {
        (-s, -c)
    } else {
        (-c, s)
    }
}

/// Tangent of an `f64` (≤ 2 ulp): `sin/cos` of the reduced argument, both as
/// double-words, divided with an exact residual.
///
/// ```
/// assert_eq!(weft_math::tan_f64(0.0), 0.0);
/// assert!((weft_math::tan_f64(1.0) - 1.0_f64.tan()).abs() <= 2.0 * f64::EPSILON);
/// ```
#[inline]
pub fn tan_f64(x: f64) -> f64 {
    let ax = abs_f64(x);
    let mut hi = x;
    let mut lo = 0.0_f64;
    let mut q = 0_i32;
    if ax < PIO4_F64 {
        if ax < TRIG_TINY_F64 {
            return x;
        }
    } else {
        if !is_finite_f64(x) {
            return invalid_f64(x);
        }
        let (h, l, qq) = rem_pio2_f64(x);
        hi = h;
        lo = l;
        q = qq;
    }
    let (sh, sl) = sin_kernel_f64(hi, lo);
    let (ch, cl) = cos_kernel_f64(hi, lo);
    if (q & 1_i32) == 0_i32 {
        div_dd_f64(sh, sl, ch, cl)
    } else {
        -div_dd_f64(ch, cl, sh, sl)
    }
}
