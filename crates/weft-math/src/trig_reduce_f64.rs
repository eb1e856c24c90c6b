//! Argument reduction modulo `pi/2` for `f64` trigonometric functions.
//!
//! * `|x| < 1.5e6`: Cody–Waite with `pi/2` split into three 33-bit chunks
//!   (exact products for `|k| < 2^20`) and an `f64` tail, accumulated with
//!   TwoSum into a double-word result.
//! * larger `|x|`: Payne–Hanek in integer arithmetic: the 53-bit significand
//!   times a 192-bit window of `2/pi` (nineteen `u64` words selected by the
//!   exponent), computed exactly with 32-bit limbs; 128 fraction bits are
//!   turned into a double-word value and multiplied by `pi/2`.

use crate::bits::f64_to_bits;
use crate::double_word::{fast_two_sum_f64, two_prod_f64, two_sum_f64};
use crate::rounding::rint_small_f64;

/// `2/pi`.
pub const INV_PIO2_F64: f64 = 0.6366197723675814_f64;
/// `pi/2`, first 33 bits.
pub const PIO2_P1: f64 = 1.5707963267341256_f64;
/// `pi/2`, next 33 bits.
pub const PIO2_P2: f64 = 6.077100506303966e-11_f64;
/// `pi/2`, next 33 bits.
pub const PIO2_P3: f64 = 2.0222662487111665e-21_f64;
/// `pi/2`, remaining tail.
pub const PIO2_P4: f64 = 8.4784276603689e-32_f64;
/// `pi/2` rounded to `f64`.
pub const PIO2_HI_F64: f64 = 1.5707963267948966_f64;
/// `pi/2 - PIO2_HI_F64`.
pub const PIO2_LO_F64: f64 = 6.123233995736766e-17_f64;
/// Low 32 bits mask.
pub const LIMB_MASK: u64 = 0xffff_ffff_u64;

/// Word `i` of `2/pi` in 64-bit chunks, preceded by one zero word
/// (`i = 0` is zero; `i >= 1` holds fraction bits `64(i-1)+1 ..= 64i`).
#[inline]
pub fn two_over_pi_word64(i: u32) -> u64 {
    if i == 0_u32 {
        0_u64
    } else if i == 1_u32 {
        0xa2f9_836e_4e44_1529_u64
    } else if i == 2_u32 {
        0xfc27_57d1_f534_ddc0_u64
    } else if i == 3_u32 {
        0xdb62_9599_3c43_9041_u64
    } else if i == 4_u32 {
        0xfe51_63ab_debb_c561_u64
    } else if i == 5_u32 {
        0xb724_6e3a_424d_d2e0_u64
    } else if i == 6_u32 {
        0x0649_2eea_09d1_921c_u64
    } else if i == 7_u32 {
        0xfe1d_eb1c_b129_a73e_u64
    } else if i == 8_u32 {
        0xe882_35f5_2ebb_4484_u64
    } else if i == 9_u32 {
        0xe99c_7026_b45f_7e41_u64
    } else if i == 10_u32 {
        0x3991_d639_8353_39f4_u64
    } else if i == 11_u32 {
        0x9c84_5f8b_bdf9_283b_u64
    } else if i == 12_u32 {
        0x1ff8_97ff_de05_980f_u64
    } else if i == 13_u32 {
        0xef2f_118b_5a0a_6d1f_u64
    } else if i == 14_u32 {
        0x6d36_7ecf_27cb_09b7_u64
    } else if i == 15_u32 {
        0x4f46_3f66_9e5f_ea2d_u64
    } else if i == 16_u32 {
        0x7527_bac7_ebe5_f17b_u64
    } else if i == 17_u32 {
        0x3d07_39f7_8a52_92ea_u64
    } else if i == 18_u32 {
        0x6bfb_5fb1_1f8d_5d08_u64
    } else if i == 19_u32 {
        0x5603_3046_fc7b_6bab_u64
    } else {
        0xf0cf_bc20_9af4_361d_u64
    }
}

/// 64 bits starting `o` bits into the concatenation of `a` and `b`.
#[inline]
pub fn window64(a: u64, b: u64, o: u32) -> u64 {
    if o == 0_u32 {
        a
    } else {
        (a << (o as u64)) | (b >> ((64_u32 - o) as u64))
    }
}

/// Reduces finite `x` to `hi + lo` in about `[-pi/4, pi/4]` and the quadrant.
#[inline]
pub fn rem_pio2_f64(x: f64) -> (f64, f64, i32) {
    if x < 1.5e6_f64 && x > -1.5e6_f64 {
        let kf = rint_small_f64(x * INV_PIO2_F64);
        let t = x - kf * PIO2_P1; // exact
        let (s1, e1) = two_sum_f64(t, -(kf * PIO2_P2));
        let (s2, e2) = two_sum_f64(s1, -(kf * PIO2_P3));
        let lo = (e1 + e2) - kf * PIO2_P4;
        let (hi, lo2) = fast_two_sum_f64(s2, lo);
        return (hi, lo2, ((kf as i64) & 3_i64) as i32);
    }
    rem_pio2_large_f64(x)
}

/// Payne–Hanek reduction for finite `|x| >= 2^20` (see module docs).
#[inline]
pub fn rem_pio2_large_f64(x: f64) -> (f64, f64, i32) {
    let u = f64_to_bits(x);
    let m = (u & 0x000f_ffff_ffff_ffff_u64) | 0x0010_0000_0000_0000_u64;
    let e = ((u >> 52) & 0x7ff_u64) as i32 - 1075; // x = m 2^e
    // Window of 192 bits of 2/pi starting at fraction bit e - 1.
    let start = (e + 62) as u32; // (e - 1) - 1 + 64 (leading zero word)
    let wi = start >> 6;
    let o = start & 63_u32;
    let w0 = two_over_pi_word64(wi);
    let w1 = two_over_pi_word64(wi + 1_u32);
    let w2 = two_over_pi_word64(wi + 2_u32);
    let w3 = two_over_pi_word64(wi + 3_u32);
    let v0 = window64(w0, w1, o);
    let v1 = window64(w1, w2, o);
    let v2 = window64(w2, w3, o);
    // 32-bit limbs, least significant first.
    let a = m & LIMB_MASK;
    let b = m >> 32;
    let u0 = v2 & LIMB_MASK;
    let u1 = v2 >> 32;
    let u2 = v1 & LIMB_MASK;
    let u3 = v1 >> 32;
    let u4 = v0 & LIMB_MASK;
    let u5 = v0 >> 32;
    // Column sums of m * V; bits >= 192 only add multiples of 4 and are
    // dropped; each partial product is split into 32-bit halves.
    let au0 = a * u0;
    let au1 = a * u1;
    let au2 = a * u2;
    let au3 = a * u3;
    let au4 = a * u4;
    let au5 = a * u5;
    let bu0 = b * u0;
    let bu1 = b * u1;
    let bu2 = b * u2;
    let bu3 = b * u3;
    let bu4 = b * u4;
    let s1 = (au1 & LIMB_MASK) + (bu0 & LIMB_MASK) + (au0 >> 32);
    let c1 = s1 & LIMB_MASK;
    let s2 = (au2 & LIMB_MASK) + (bu1 & LIMB_MASK) + (au1 >> 32) + (bu0 >> 32) + (s1 >> 32);
    let c2 = s2 & LIMB_MASK;
    let s3 = (au3 & LIMB_MASK) + (bu2 & LIMB_MASK) + (au2 >> 32) + (bu1 >> 32) + (s2 >> 32);
    let c3 = s3 & LIMB_MASK;
    let s4 = (au4 & LIMB_MASK) + (bu3 & LIMB_MASK) + (au3 >> 32) + (bu2 >> 32) + (s3 >> 32);
    let c4 = s4 & LIMB_MASK;
    let s5 = (au5 & LIMB_MASK) + (bu4 & LIMB_MASK) + (au4 >> 32) + (bu3 >> 32) + (s4 >> 32);
    let c5 = s5 & LIMB_MASK;
    // Binary point at bit 190: quadrant = bits 190..191, fraction below.
    let mut q = ((c5 >> 30) & 3_u64) as i32;
    let f_top = ((c5 & 0x3fff_ffff_u64) << 34) | (c4 << 2) | (c3 >> 30);
    let f_low = ((c3 & 0x3fff_ffff_u64) << 34) | (c2 << 2) | (c1 >> 30);
    q = (q + (f_top >> 63) as i32) & 3_i32;
    // Signed 128-bit fraction T 2^64 + L (units of 2^-128) as double-word.
    let t = f_top as i64;
    let d1 = ((t >> 11) as f64) * 1.1102230246251565e-16_f64; // 2^-53
    let d2 = ((t & 0x7ff_i64) as f64) * 5.421010862427522e-20_f64; // 2^-64
    let d3 = ((f_low >> 11) as f64) * 6.018531076210112e-36_f64; // 2^-117
    let (s, e) = two_sum_f64(d1, d2);
    let (s2x, e2) = two_sum_f64(s, d3);
    let (fh, fl) = fast_two_sum_f64(s2x, e + e2);
    // Multiply the fraction of a quarter turn by pi/2.
    let (p, pe) = two_prod_f64(fh, PIO2_HI_F64);
    let (h0, l0) = fast_two_sum_f64(p, pe + (fh * PIO2_LO_F64 + fl * PIO2_HI_F64));
    let mut hi = h0;
    let mut lo = l0;
    if x < 0.0_f64 {
        hi = -hi;
        lo = -lo;
        q = (4_i32 - q) & 3_i32;
    }
    (hi, lo, q)
}
