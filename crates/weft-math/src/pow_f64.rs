//! Power function `x^y` (`f64`).
//!
//! `x^y = e^(y log x)` with `log x` as a double-word value accurate to about
//! 2^-70 relative (`log(1+f) = 2 atanh(s)`, `s = f/(2+f)` kept as a
//! double-word, the `s^3 (2/3 + s^2 R(s^2))` tail multiplied in double-word
//! arithmetic, degree-7 minimax `R`), the product `y log x` formed exactly,
//! and the `exp` kernel applied to the double-word exponent. C99 `pow`
//! special cases.

use crate::bits::{f64_from_bits, f64_to_bits};
use crate::classify::{is_inf_f64, is_nan_f64};
use crate::double_word::{fast_two_sum_f64, two_prod_f64, two_sum_f64};
use crate::exp_log_f64::{INF_F64_BITS, LN2_HI42, LN2_LO42, LOG2E_F64_FULL, exp_kernel_f64};
use crate::roots::NAN_F64_BITS;
use crate::rounding::{abs_f64, copysign_f64, rint_small_f64, trunc_f64};
use crate::scale::ldexp_f64;

/// `2/3` rounded.
pub const TWO_THIRDS_HI: f64 = 0.6666666666666666_f64;
/// `2/3 - TWO_THIRDS_HI`.
pub const TWO_THIRDS_LO: f64 = 3.700743415417188e-17_f64;

// 2 atanh(s)/s^3 = 2/3 + w (C0 + ... + C7 w^7), w = s^2 <= 0.0295 (abs. 2^-65.9).
pub const POWLOG64_C0: f64 = 0.39999999999999997_f64;
pub const POWLOG64_C1: f64 = 0.28571428571434265_f64;
pub const POWLOG64_C2: f64 = 0.22222222220088533_f64;
pub const POWLOG64_C3: f64 = 0.18181818568149902_f64;
pub const POWLOG64_C4: f64 = 0.15384576734719085_f64;
pub const POWLOG64_C5: f64 = 0.13335581410581548_f64;
pub const POWLOG64_C6: f64 = 0.11689208454463834_f64;
pub const POWLOG64_C7: f64 = 0.1187353935327496_f64;

/// Natural logarithm of a finite positive `x` as a double-word `(hi, lo)`
/// (relative error about 2^-70).
#[inline]
pub fn log_dd_f64(x: f64) -> (f64, f64) {
    let mut u = f64_to_bits(x);
    let mut k = 0_i32;
    if u < 0x0010_0000_0000_0000_u64 {
        u = f64_to_bits(x * 18_014_398_509_481_984.0_f64); // 2^54
        k = -54;
    }
    u += 0x3ff0_0000_0000_0000_u64 - 0x3fe6_a09e_667f_3bcd_u64;
    k += (u >> 52) as i32 - 1023;
    u = (u & 0x000f_ffff_ffff_ffff_u64) + 0x3fe6_a09e_667f_3bcd_u64;
    let f = f64_from_bits(u) - 1.0_f64; // exact
    // s = f / (2 + f) as a double-word.
    let (dh, dl) = fast_two_sum_f64(2.0_f64, f);
    let sh = f / dh;
    let (p, pe) = two_prod_f64(sh, dh);
    let sl = (((f - p) - pe) - sh * dl) / dh;
    // R = 2/3 + w R2(w)
    let w = sh * sh;
    let r2 = w
        * (POWLOG64_C0
            + w * (POWLOG64_C1
                + w * (POWLOG64_C2
                    + w * (POWLOG64_C3
                        + w * (POWLOG64_C4
                            + w * (POWLOG64_C5 + w * (POWLOG64_C6 + w * POWLOG64_C7)))))));
    let (rh, rl0) = fast_two_sum_f64(TWO_THIRDS_HI, r2);
    let rl = rl0 + TWO_THIRDS_LO;
    // s^3 as a double-word.
    let (s2h, s2l0) = two_prod_f64(sh, sh);
    let s2l = s2l0 + 2.0_f64 * sh * sl;
    let (s3h, s3l0) = two_prod_f64(s2h, sh);
    let s3l = s3l0 + (s2h * sl + s2l * sh);
    // t = s^3 R
    let (th, tl0) = two_prod_f64(s3h, rh);
    let tl = tl0 + (s3h * rl + s3l * rh);
    // log(1+f) = 2s + t
    let (a, b0) = fast_two_sum_f64(2.0_f64 * sh, th);
    let b = b0 + (2.0_f64 * sl + tl);
    // + k ln2
    let kf = k as f64;
    let (c, d0) = two_sum_f64(kf * LN2_HI42, a);
    let d = d0 + (b + kf * LN2_LO42);
    fast_two_sum_f64(c, d)
}

/// Classifies `y`: 0 = not an integer, 1 = odd integer, 2 = even integer.
#[inline]
pub fn integer_kind_f64(y: f64) -> i32 {
    if trunc_f64(y) != y {
        0_i32
    } else if abs_f64(y) >= 9_007_199_254_740_992.0_f64 {
        2_i32
    } else if ((abs_f64(y) as i64) & 1_i64) == 1_i64 {
        1_i32
    } else {
        2_i32
    }
}

/// `x^y` for `f64` (≤ 2 ulp), C99 `pow` special cases (see [`crate::pow`]).
///
/// ```
/// assert_eq!(weft_math::pow_f64(3.0, 4.0), 81.0);
/// assert_eq!(weft_math::pow_f64(-0.0, -1.0), f64::NEG_INFINITY);
/// ```
#[inline]
pub fn pow_f64(x: f64, y: f64) -> f64 {
    if y == 0.0_f64 || x == 1.0_f64 {
        return 1.0_f64;
    }
    if is_nan_f64(x) || is_nan_f64(y) {
        return x + y;
    }
    let inf = f64_from_bits(INF_F64_BITS);
    let ax = abs_f64(x);
    if is_inf_f64(y) {
        if ax == 1.0_f64 {
            return 1.0_f64;
        }
        if (ax > 1.0_f64) == (y > 0.0_f64) {
            return inf;
        }
        return 0.0_f64;
    }
    let kind = integer_kind_f64(y);
    if ax == 0.0_f64 {
        if y < 0.0_f64 {
            if kind == 1_i32 {
                return copysign_f64(inf, x);
            }
            return inf;
        }
        if kind == 1_i32 {
            return x;
        }
        return 0.0_f64;
    }
    if is_inf_f64(ax) {
        let neg_odd = x < 0.0_f64 && kind == 1_i32;
        if y < 0.0_f64 {
            if neg_odd {
                return -0.0_f64;
            }
            return 0.0_f64;
        }
        if neg_odd {
            return x;
        }
        return inf;
    }
    let mut sign = 1.0_f64;
    if x < 0.0_f64 {
        if kind == 0_i32 {
            return f64_from_bits(NAN_F64_BITS);
        }
        if kind == 1_i32 {
            sign = -1.0_f64;
        }
    }
    let (lh, ll) = log_dd_f64(ax);
    // |y| > 2^64 with x != 1 always over- or underflows (|log x| >= 2^-53).
    if abs_f64(y) > 1.8446744073709552e19_f64 {
        if (y > 0.0_f64) == (lh > 0.0_f64) {
            return sign * inf;
        }
        return sign * 0.0_f64;
    }
    let (zh0, zl0) = two_prod_f64(y, lh);
    let (zh, zl) = fast_two_sum_f64(zh0, zl0 + y * ll);
    if zh > 710.0_f64 {
        return sign * inf;
    }
    if zh < -746.0_f64 {
        return sign * 0.0_f64;
    }
    let kf = rint_small_f64(zh * LOG2E_F64_FULL);
    let t0 = zh - kf * LN2_HI42; // exact
    let (r_hi, r_lo) = two_sum_f64(t0, zl - kf * LN2_LO42);
    let (s, t) = exp_kernel_f64(r_hi, r_lo);
    sign * ldexp_f64(s + t, kf as i32)
}
