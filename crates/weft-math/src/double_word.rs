//! Error-free transformations ("double-word" arithmetic).
//!
//! A value is represented as an unevaluated sum `hi + lo` of two floats. The
//! helpers below compute sums and products *exactly* as such pairs using only
//! correctly rounded `+ - *` (no fused multiply-add), which is what both back
//! ends guarantee. They are the building blocks that keep the elementary
//! functions within their ulp bounds.

use crate::bits::{f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits};

/// Knuth's TwoSum: returns `(s, e)` with `s = fl(a + b)` and `a + b = s + e` exactly.
#[inline]
pub fn two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Dekker's FastTwoSum: like [`two_sum_f32`] but requires `|a| >= |b|` (or `a == 0`).
#[inline]
pub fn fast_two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// Splits `a` into `(hi, lo)` with `a = hi + lo` exactly, `hi` holding the
/// upper 12 significand bits and `lo` at most 12 bits (bit masking, so it
/// cannot overflow for large `a`).
#[inline]
pub fn split_f32(a: f32) -> (f32, f32) {
    let hi = f32_from_bits(f32_to_bits(a) & 0xffff_f000_u32);
    (hi, a - hi)
}

/// Dekker's TwoProduct: returns `(p, e)` with `p = fl(a * b)` and `a * b = p + e`
/// exactly (barring underflow of `e`).
#[inline]
pub fn two_prod_f32(a: f32, b: f32) -> (f32, f32) {
    let p = a * b;
    let (ah, al) = split_f32(a);
    let (bh, bl) = split_f32(b);
    let e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    (p, e)
}

/// Knuth's TwoSum for `f64`: `a + b = s + e` exactly.
#[inline]
pub fn two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// Dekker's FastTwoSum for `f64`; requires `|a| >= |b|` (or `a == 0`).
#[inline]
pub fn fast_two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// Veltkamp split of an `f64` into two 26-bit halves, `a = hi + lo` exactly.
///
/// Requires `|a| < 2^995` so that the scaling by `2^27 + 1` cannot overflow.
#[inline]
pub fn split_f64(a: f64) -> (f64, f64) {
    let c = 134_217_729.0_f64 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// Dekker's TwoProduct for `f64`: `a * b = p + e` exactly (barring
/// underflow of `e`); requires `|a|, |b| < 2^995`.
#[inline]
pub fn two_prod_f64(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split_f64(a);
    let (bh, bl) = split_f64(b);
    let e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    (p, e)
}

/// Truncates `a` to its upper 26 significand bits, so that products of two
/// such values are exact. Returns `(hi, lo)` with `a = hi + lo` exactly.
#[inline]
pub fn split_trunc_f64(a: f64) -> (f64, f64) {
    let hi = f64_from_bits(f64_to_bits(a) & 0xffff_ffff_f800_0000_u64);
    (hi, a - hi)
}
