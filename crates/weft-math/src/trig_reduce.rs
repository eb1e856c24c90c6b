//! Argument reduction modulo `pi/2` for `f32` trigonometric functions.
//!
//! * `|x| < 400`: Cody–Waite in plain `f32`. `pi/2` is split into three
//!   16-bit chunks (so `k * chunk` is exact for `|k| < 256`) plus an `f32`
//!   tail, and the partial differences are accumulated with TwoSum, giving
//!   the reduced argument as a double-word `hi + lo` accurate to ~2^-60
//!   absolute.
//! * `|x| >= 400`: Payne–Hanek with integer arithmetic. The 24-bit
//!   significand is multiplied by a 96-bit window of the binary expansion of
//!   `2/pi` (seven `u32` words, selected by the exponent), which yields the
//!   quadrant and 64 fraction bits exactly; the fraction is converted to a
//!   double-word `f32` value through one `f64` multiplication (the only `f64`
//!   operation, on this rare path).

use crate::bits::f32_to_bits;
use crate::double_word::{fast_two_sum_f32, two_sum_f32};
use crate::rounding::rint_small;

/// `2/pi` rounded to `f32`.
pub const INV_PIO2_F32: f32 = 0.636_619_75_f32;
/// `pi/2`, first 16 bits.
pub const PIO2_A_F32: f32 = 1.570_770_3_f32;
/// `pi/2`, next 16 bits.
pub const PIO2_B_F32: f32 = 2.606_306_2e-5_f32;
/// `pi/2`, next 16 bits.
pub const PIO2_C_F32: f32 = 6.077_094_4e-11_f32;
/// `pi/2`, remaining tail rounded to `f32`.
pub const PIO2_D_F32: f32 = 6.123_234e-17_f32;
/// `pi/2 * 2^-64`.
pub const PIO2_SCALED_F64: f64 = 8.515_303_950_216_386e-20_f64;

/// Word `i` of the binary expansion of `2/pi` preceded by one zero word:
/// `i = 0` is zero, `i >= 1` holds fraction bits `32(i-1)+1 ..= 32i`.
#[inline]
pub fn two_over_pi_word(i: u32) -> u64 {
    if i == 0_u32 {
        0_u64
    } else if i == 1_u32 {
        0xa2f9_836e_u64
    } else if i == 2_u32 {
        0x4e44_1529_u64
    } else if i == 3_u32 {
        0xfc27_57d1_u64
    } else if i == 4_u32 {
        0xf534_ddc0_u64
    } else if i == 5_u32 {
        0xdb62_9599_u64
    } else if i == 6_u32 {
        0x3c43_9041_u64
    } else if i == 7_u32 {
        0xfe51_63ab_u64
    } else {
        0xdebb_c561_u64
    }
}

/// 32 bits starting `o` bits into the concatenation of words `a` and `b`.
#[inline]
pub fn window32(a: u64, b: u64, o: u32) -> u64 {
    (((a << 32) | b) << (o as u64)) >> 32
}

/// Reduces `x` (finite) to `hi + lo` in about `[-pi/4, pi/4]` and the
/// quadrant `q` (0..=3) with `x = q pi/2 + hi + lo (mod 2 pi)`.
#[inline]
pub fn rem_pio2_f32(x: f32) -> (f32, f32, i32) {
    if x < 400.0_f32 && x > -400.0_f32 {
        let kf = rint_small(x * INV_PIO2_F32);
        let t = x - kf * PIO2_A_F32; // exact
        let (s1, e1) = two_sum_f32(t, -(kf * PIO2_B_F32));
        let (s2, e2) = two_sum_f32(s1, -(kf * PIO2_C_F32));
        let lo = (e1 + e2) - kf * PIO2_D_F32;
        let (hi, lo2) = fast_two_sum_f32(s2, lo);
        return (hi, lo2, (kf as i32) & 3_i32);
    }
    rem_pio2_large_f32(x)
}

/// Payne–Hanek reduction for finite `|x| >= 400` (see module docs).
#[inline]
pub fn rem_pio2_large_f32(x: f32) -> (f32, f32, i32) {
    let u = f32_to_bits(x);
    let m = ((u & 0x007f_ffff_u32) | 0x0080_0000_u32) as u64;
    // x = m * 2^e. Bits of 2/pi with index <= e - 2 only add multiples of 4
    // to x * 2/pi, so the window starts at bit e - 1.
    let e = ((u >> 23) & 0xff_u32) as i32 - 150;
    let start = (e + 30) as u32; // (e - 1) - 1 + 32 (leading zero word)
    let wi = start >> 5;
    let o = start & 31_u32;
    let w0 = two_over_pi_word(wi);
    let w1 = two_over_pi_word(wi + 1_u32);
    let w2 = two_over_pi_word(wi + 2_u32);
    let w3 = two_over_pi_word(wi + 3_u32);
    let v0 = window32(w0, w1, o);
    let v1 = window32(w1, w2, o);
    let v2 = window32(w2, w3, o);
    // P = m * (v0 2^64 + v1 2^32 + v2) = x * 2/pi * 2^94 (mod 4 * 2^94).
    let p2 = m * v2;
    let p1 = m * v1;
    let p0 = m * v0;
    let limb0 = p2 & 0xffff_ffff_u64;
    let t1 = (p1 & 0xffff_ffff_u64) + (p2 >> 32);
    let limb1 = t1 & 0xffff_ffff_u64;
    let t2 = (p0 & 0xffff_ffff_u64) + (p1 >> 32) + (t1 >> 32);
    let limb2 = t2 & 0xffff_ffff_u64;
    let mut q = ((limb2 >> 30) & 3_u64) as i32;
    // Top 64 bits of the 94-bit fraction.
    let frac = ((limb2 & 0x3fff_ffff_u64) << 34) | (limb1 << 2) | (limb0 >> 30);
    // Round to the nearest quadrant: a fraction >= 1/2 becomes negative.
    q = (q + (frac >> 63) as i32) & 3_i32;
    let r = ((frac as i64) as f64) * PIO2_SCALED_F64;
    let mut hi = r as f32;
    let mut lo = (r - (hi as f64)) as f32;
    if x < 0.0_f32 {
        hi = -hi;
        lo = -lo;
        q = (4_i32 - q) & 3_i32;
    }
    (hi, lo, q)
}
