// Weft's accurate `f64` elementary functions, written in the kernel language:
// the one source of `weft_math::{sin_f64, cos_f64, ..}` on the CPU and of the
// builtins `sin`, `cos`, .. on `f64` in PTX.
//
// * weft-math's build script copies this file with each `#[weft::func]` turned
//   into `#[inline]` and `src/compiled.rs` compiles it as plain Rust (the kernel
//   builtins `abs`, `sqrt`, `trunc` and the bit casts bound to weft-math's own);
// * the kernel macro parses it item by item and lowers every func to IR for the
//   PTX emitter (a func outside the kernel subset is a compile error of the
//   kernel naming it, `weft-macros/src/math_dsl.rs`);
// * `tests/math_dsl.rs` `include!`s it under `#[weft::func]` and checks that the
//   kernel compiler's own CPU code gives weft-math's results bit for bit.
//
// So write only what both readers accept: the kernel subset (free functions over
// scalars and tuples of them, `let`/`if`/`while`/`for`/`return`, arithmetic,
// comparisons, `as` casts, calls to the funcs here and to the builtins above;
// no methods, no constants or tables, no fused multiply-add), with Rust's meaning
// (integer arithmetic that cannot overflow; literals that round the same whether
// parsed as `f64` or through `f64`). Public entry points are `__weft_<name>_f64`,
// helpers `__weft_h_<name>_f64`; every func is `#[weft::func]` (and nothing else).
//
// Two limitations of the func compiler (adjoint generation) shape a few
// signatures:
// * a func with an integer or `bool` parameter does not compile yet, so integers
//   passed as arguments (exponents, table indices) are integral `f64` values,
//   converted back in the callee;
// * a func returning a tuple that holds an integer or a `bool` breaks its
//   callers, so the reduction returns its quadrant as an `f64` and the
//   logarithms' special cases are a test and a value (two funcs).
// Every such integer is small, exact in `f64`.

// ---------------------------------------------------------------------------
// Classification, signs, rounding
// ---------------------------------------------------------------------------

/// `true` if `x` is a NaN.
#[weft::func]
pub fn __weft_h_is_nan_f64(x: f64) -> bool {
    (f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64) > 0x7ff0_0000_0000_0000_u64
}

/// `true` if `x` is neither infinite nor NaN.
#[weft::func]
pub fn __weft_h_is_finite_f64(x: f64) -> bool {
    (f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64) < 0x7ff0_0000_0000_0000_u64
}

/// `true` if `x` is `+inf` or `-inf`.
#[weft::func]
pub fn __weft_h_is_inf_f64(x: f64) -> bool {
    (f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64) == 0x7ff0_0000_0000_0000_u64
}

/// Result of an invalid operation on `x`: `x` if it is a NaN, else the quiet NaN.
#[weft::func]
pub fn __weft_h_invalid_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        x
    } else {
        f64_from_bits(0x7ff8_0000_0000_0000_u64)
    }
}

/// `x` with the sign bit of `y`.
#[weft::func]
pub fn __weft_h_copysign_f64(x: f64, y: f64) -> f64 {
    f64_from_bits(
        (f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64) | (f64_to_bits(y) & 0x8000_0000_0000_0000_u64),
    )
}

/// Round to nearest, ties to even, for `|x| < 2^51`.
#[weft::func]
pub fn __weft_h_rint_f64(x: f64) -> f64 {
    (x + 6_755_399_441_055_744.0_f64) - 6_755_399_441_055_744.0_f64
}

/// `x * 2^n` with one rounding (`n` an integral `f64`).
#[weft::func]
pub fn __weft_h_ldexp_f64(x: f64, nf: f64) -> f64 {
    let mut y = x;
    let mut k = nf as i32;
    if k > 1023 {
        y *= f64_from_bits(0x7fe0_0000_0000_0000_u64); // 2^1023
        k -= 1023;
        if k > 1023 {
            y *= f64_from_bits(0x7fe0_0000_0000_0000_u64);
            k -= 1023;
            if k > 1023 {
                k = 1023;
            }
        }
    } else if k < -1022 {
        y *= f64_from_bits(0x0360_0000_0000_0000_u64); // 2^-969
        k += 969;
        if k < -1022 {
            y *= f64_from_bits(0x0360_0000_0000_0000_u64);
            k += 969;
            if k < -1022 {
                k = -1022;
            }
        }
    }
    y * f64_from_bits(((k + 1023) as u64) << 52)
}

/// `2^k` for integral `-1022 <= k <= 1023` (given as `f64`).
#[weft::func]
pub fn __weft_h_pow2i_f64(kf: f64) -> f64 {
    let k = kf as i32;
    f64_from_bits(((k + 1023) as u64) << 52)
}

// ---------------------------------------------------------------------------
// Error-free transformations
// ---------------------------------------------------------------------------

/// TwoSum: `(s, e)` with `s = fl(a + b)`, `a + b = s + e`.
#[weft::func]
pub fn __weft_h_two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// FastTwoSum (`|a| >= |b|` or `a == 0`).
#[weft::func]
pub fn __weft_h_fast_two_sum_f64(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// Veltkamp split into two 26-bit halves (`|a| < 2^995`).
#[weft::func]
pub fn __weft_h_split_f64(a: f64) -> (f64, f64) {
    let c = 134_217_729.0_f64 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// TwoProduct: `(p, e)` with `p = fl(a * b)`, `a * b = p + e` (`|a|, |b| < 2^995`).
#[weft::func]
pub fn __weft_h_two_prod_f64(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = __weft_h_split_f64(a);
    let (bh, bl) = __weft_h_split_f64(b);
    let e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    (p, e)
}

/// Truncates `a` to its upper 26 significand bits: `(hi, lo)`, `a = hi + lo`.
#[weft::func]
pub fn __weft_h_split_trunc_f64(a: f64) -> (f64, f64) {
    let hi = f64_from_bits(f64_to_bits(a) & 0xffff_ffff_f800_0000_u64);
    (hi, a - hi)
}

// ---------------------------------------------------------------------------
// Exponentials and logarithms
// ---------------------------------------------------------------------------

/// `e^(r_hi + r_lo)` for `|r_hi| <= 0.35` as `(s, t)`.
#[weft::func]
pub fn __weft_h_exp_kernel_f64(r_hi: f64, r_lo: f64) -> (f64, f64) {
    let r = r_hi;
    let z = r * r;
    // Horner's scheme one step per line (the operations of the nested form).
    let mut p = 2.4999963439221722e-8_f64;
    p = 2.763037865555354e-7_f64 + r * p;
    p = 2.7557587348157003e-6_f64 + r * p;
    p = 2.480149276272582e-5_f64 + r * p;
    p = 0.00019841269504758963_f64 + r * p;
    p = 0.0013888888943922666_f64 + r * p;
    p = 0.008333333333495627_f64 + r * p;
    p = 0.04166666666652919_f64 + r * p;
    p = 0.1666666666666641_f64 + r * p;
    p = 0.5000000000000011_f64 + r * p;
    let (s, e) = __weft_h_fast_two_sum_f64(1.0_f64, r);
    (s, e + (z * p + (r_lo + r_lo * r)))
}

/// `e^x = (s + t) 2^k` for `|x| <= 750`; returns `(s, t, k)` (`k` as `f64`).
#[weft::func]
pub fn __weft_h_exp_core_f64(x: f64) -> (f64, f64, f64) {
    let kf = __weft_h_rint_f64(x * 1.4426950408889634_f64);
    let t0 = x - kf * 0.6931471805598903_f64; // exact
    let (r_hi, r_lo) = __weft_h_two_sum_f64(t0, -(kf * 5.497923018708371e-14_f64));
    let (s, t) = __weft_h_exp_kernel_f64(r_hi, r_lo);
    (s, t, kf)
}

/// `e^x` (weft-math `exp_f64`).
#[weft::func]
pub fn __weft_exp_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    if x > 710.0_f64 {
        return f64_from_bits(0x7ff0_0000_0000_0000_u64);
    }
    if x < -746.0_f64 {
        return 0.0_f64;
    }
    let (s, t, kf) = __weft_h_exp_core_f64(x);
    __weft_h_ldexp_f64(s + t, kf)
}

/// `2^x` (weft-math `exp2_f64`).
#[weft::func]
pub fn __weft_exp2_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    if x >= 1024.0_f64 {
        return f64_from_bits(0x7ff0_0000_0000_0000_u64);
    }
    if x < -1076.0_f64 {
        return 0.0_f64;
    }
    let kf = __weft_h_rint_f64(x);
    let r = x - kf;
    let (y_hi, y_lo) = __weft_h_two_prod_f64(r, 0.6931471805599453_f64);
    let (s, t) = __weft_h_exp_kernel_f64(y_hi, y_lo + r * 2.3190468138462996e-17_f64);
    __weft_h_ldexp_f64(s + t, kf)
}

/// Finite positive `x = 2^k (1 + f)`: `(f, tail, k)` with `log(1 + f) ~ f + tail`.
#[weft::func]
pub fn __weft_h_log_core_f64(x: f64) -> (f64, f64, f64) {
    let mut u = f64_to_bits(x);
    let mut k = 0_i32;
    if u < 0x0010_0000_0000_0000_u64 {
        u = f64_to_bits(x * 18_014_398_509_481_984.0_f64); // 2^54
        k = -54;
    }
    u += 0x3ff0_0000_0000_0000_u64 - 0x3fe6_a09e_667f_3bcd_u64;
    k += (u >> 52) as i32 - 1023;
    u = (u & 0x000f_ffff_ffff_ffff_u64) + 0x3fe6_a09e_667f_3bcd_u64;
    let f = f64_from_bits(u) - 1.0_f64;
    let s = f / (2.0_f64 + f);
    let w = s * s;
    let r = w
        * (0.6666666666666735_f64
            + w * (0.399999999994128_f64
                + w * (0.2857142874288844_f64
                    + w * (0.2222219851376872_f64
                        + w * (0.18183567811166668_f64
                            + w * (0.1531395167745775_f64 + w * 0.14797032174214989_f64))))));
    let hfsq = 0.5_f64 * f * f;
    (f, s * (hfsq + r) - hfsq, k as f64)
}

/// `true` when `x` is NaN, negative, zero or `+inf`.
#[weft::func]
pub fn __weft_h_log_is_special_f64(x: f64) -> bool {
    if __weft_h_is_nan_f64(x) {
        return true;
    }
    if x < 0.0_f64 {
        return true;
    }
    if x == 0.0_f64 {
        return true;
    }
    if f64_to_bits(x) == 0x7ff0_0000_0000_0000_u64 {
        return true;
    }
    false
}

/// The logarithms' value at a special `x` (one where `__weft_h_log_is_special` holds).
#[weft::func]
pub fn __weft_h_log_special_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    if x < 0.0_f64 {
        return f64_from_bits(0x7ff8_0000_0000_0000_u64);
    }
    if x == 0.0_f64 {
        return f64_from_bits(0xfff0_0000_0000_0000_u64);
    }
    x
}

/// Natural logarithm (weft-math `log_f64`).
#[weft::func]
pub fn __weft_log_f64(x: f64) -> f64 {
    if __weft_h_log_is_special_f64(x) {
        return __weft_h_log_special_f64(x);
    }
    let (f, tail, kf) = __weft_h_log_core_f64(x);
    let (s, e) = __weft_h_fast_two_sum_f64(kf * 0.6931471805598903_f64, f);
    s + (e + (tail + kf * 5.497923018708371e-14_f64))
}

/// Base-2 logarithm (weft-math `log2_f64`).
#[weft::func]
pub fn __weft_log2_f64(x: f64) -> f64 {
    if __weft_h_log_is_special_f64(x) {
        return __weft_h_log_special_f64(x);
    }
    let (f, tail, kf) = __weft_h_log_core_f64(x);
    let (fh, fl) = __weft_h_split_trunc_f64(f);
    let p = fh * 1.4426950365304947_f64; // exact
    let small =
        fl * 1.4426950365304947_f64 + f * 4.3584687174185184e-9_f64 + tail * 1.4426950408889634_f64;
    let (s, e) = __weft_h_fast_two_sum_f64(kf, p);
    s + (e + small)
}

/// Base-10 logarithm (weft-math `log10_f64`).
#[weft::func]
pub fn __weft_log10_f64(x: f64) -> f64 {
    if __weft_h_log_is_special_f64(x) {
        return __weft_h_log_special_f64(x);
    }
    let (f, tail, kf) = __weft_h_log_core_f64(x);
    let (fh, fl) = __weft_h_split_trunc_f64(f);
    let a = kf * 0.30102999566395283_f64; // exact
    let b = fh * 0.434294480830431_f64; // exact
    let small = kf * 2.8363394551044964e-14_f64
        + fl * 0.434294480830431_f64
        + f * 1.0728208431540585e-9_f64
        + tail * 0.4342944819032518_f64;
    let (s, e) = __weft_h_two_sum_f64(a, b);
    s + (e + small)
}

// ---------------------------------------------------------------------------
// Reduction modulo pi/2
// ---------------------------------------------------------------------------

/// Word `i` (an integral `f64`) of `2/pi` in 64-bit chunks, preceded by one zero word.
#[weft::func]
pub fn __weft_h_two_over_pi_word_f64(index: f64) -> u64 {
    let i = index as u32;
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

/// Cody–Waite (`|x| < 1.5e6`) or Payne–Hanek: `(hi, lo, q)` with
/// `x = q pi/2 + hi + lo (mod 2 pi)`, the quadrant `q` (0..=3) as an `f64`.
#[weft::func]
pub fn __weft_h_rem_pio2_f64(x: f64) -> (f64, f64, f64) {
    if x < 1.5e6_f64 && x > -1.5e6_f64 {
        let kf = __weft_h_rint_f64(x * 0.6366197723675814_f64);
        let t = x - kf * 1.5707963267341256_f64; // exact
        let (s1, e1) = __weft_h_two_sum_f64(t, -(kf * 6.077100506303966e-11_f64));
        let (s2, e2) = __weft_h_two_sum_f64(s1, -(kf * 2.0222662487111665e-21_f64));
        let lo = (e1 + e2) - kf * 8.4784276603689e-32_f64;
        let (hi, lo2) = __weft_h_fast_two_sum_f64(s2, lo);
        return (hi, lo2, ((kf as i64) & 3_i64) as f64);
    }
    __weft_h_rem_pio2_large_f64(x)
}

/// Payne–Hanek reduction for finite `|x| >= 2^20` (192-bit window of `2/pi`,
/// products in 32-bit limbs).
#[weft::func]
pub fn __weft_h_rem_pio2_large_f64(x: f64) -> (f64, f64, f64) {
    let u = f64_to_bits(x);
    let m = (u & 0x000f_ffff_ffff_ffff_u64) | 0x0010_0000_0000_0000_u64;
    let e = ((u >> 52) & 0x7ff_u64) as i32 - 1075;
    let start = (e + 62) as u32;
    let wi = start >> 6;
    let o = start & 63_u32;
    let w0 = __weft_h_two_over_pi_word_f64(wi as f64);
    let w1 = __weft_h_two_over_pi_word_f64((wi + 1_u32) as f64);
    let w2 = __weft_h_two_over_pi_word_f64((wi + 2_u32) as f64);
    let w3 = __weft_h_two_over_pi_word_f64((wi + 3_u32) as f64);
    // 64 bits starting `o` bits into each pair of words.
    let v0 = if o == 0_u32 {
        w0
    } else {
        (w0 << (o as u64)) | (w1 >> ((64_u32 - o) as u64))
    };
    let v1 = if o == 0_u32 {
        w1
    } else {
        (w1 << (o as u64)) | (w2 >> ((64_u32 - o) as u64))
    };
    let v2 = if o == 0_u32 {
        w2
    } else {
        (w2 << (o as u64)) | (w3 >> ((64_u32 - o) as u64))
    };
    let a = m & 0xffff_ffff_u64;
    let b = m >> 32;
    let u0 = v2 & 0xffff_ffff_u64;
    let u1 = v2 >> 32;
    let u2 = v1 & 0xffff_ffff_u64;
    let u3 = v1 >> 32;
    let u4 = v0 & 0xffff_ffff_u64;
    let u5 = v0 >> 32;
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
    let s1 = (au1 & 0xffff_ffff_u64) + (bu0 & 0xffff_ffff_u64) + (au0 >> 32);
    let c1 = s1 & 0xffff_ffff_u64;
    let s2 =
        (au2 & 0xffff_ffff_u64) + (bu1 & 0xffff_ffff_u64) + (au1 >> 32) + (bu0 >> 32) + (s1 >> 32);
    let c2 = s2 & 0xffff_ffff_u64;
    let s3 =
        (au3 & 0xffff_ffff_u64) + (bu2 & 0xffff_ffff_u64) + (au2 >> 32) + (bu1 >> 32) + (s2 >> 32);
    let c3 = s3 & 0xffff_ffff_u64;
    let s4 =
        (au4 & 0xffff_ffff_u64) + (bu3 & 0xffff_ffff_u64) + (au3 >> 32) + (bu2 >> 32) + (s3 >> 32);
    let c4 = s4 & 0xffff_ffff_u64;
    let s5 =
        (au5 & 0xffff_ffff_u64) + (bu4 & 0xffff_ffff_u64) + (au4 >> 32) + (bu3 >> 32) + (s4 >> 32);
    let c5 = s5 & 0xffff_ffff_u64;
    let mut q = ((c5 >> 30) & 3_u64) as i32;
    let f_top = ((c5 & 0x3fff_ffff_u64) << 34) | (c4 << 2) | (c3 >> 30);
    let f_low = ((c3 & 0x3fff_ffff_u64) << 34) | (c2 << 2) | (c1 >> 30);
    q = (q + (f_top >> 63) as i32) & 3_i32;
    let t = f_top as i64;
    let d1 = ((t >> 11) as f64) * 1.1102230246251565e-16_f64; // 2^-53
    let d2 = ((t & 0x7ff_i64) as f64) * 5.421010862427522e-20_f64; // 2^-64
    let d3 = ((f_low >> 11) as f64) * 6.018531076210112e-36_f64; // 2^-117
    let (s, e) = __weft_h_two_sum_f64(d1, d2);
    let (s2x, e2) = __weft_h_two_sum_f64(s, d3);
    let (fh, fl) = __weft_h_fast_two_sum_f64(s2x, e + e2);
    let (p, pe) = __weft_h_two_prod_f64(fh, 1.5707963267948966_f64);
    let (h0, l0) = __weft_h_fast_two_sum_f64(
        p,
        pe + (fh * 6.123233995736766e-17_f64 + fl * 1.5707963267948966_f64),
    );
    let mut hi = h0;
    let mut lo = l0;
    if x < 0.0_f64 {
        hi = -hi;
        lo = -lo;
        q = (4_i32 - q) & 3_i32;
    }
    (hi, lo, q as f64)
}

// ---------------------------------------------------------------------------
// Sine, cosine, tangent
// ---------------------------------------------------------------------------

/// `sin(hi + lo)` as a double-word `(s, t)`, `|hi| <= pi/4`.
#[weft::func]
pub fn __weft_h_sin_kernel_f64(hi: f64, lo: f64) -> (f64, f64) {
    let z = hi * hi;
    let p = z
        * (-0.1666666666666663_f64
            + z * (0.008333333333322063_f64
                + z * (-0.000198412698295426_f64
                    + z * (2.755731360452459e-6_f64
                        + z * (-2.5050745037575475e-8_f64 + z * 1.589606749807657e-10_f64)))));
    __weft_h_fast_two_sum_f64(hi, hi * p + lo * (1.0_f64 - 0.5_f64 * z))
}

/// `cos(hi + lo)` as a double-word `(c, t)`, `|hi| <= pi/4`.
#[weft::func]
pub fn __weft_h_cos_kernel_f64(hi: f64, lo: f64) -> (f64, f64) {
    let z = hi * hi;
    let hz = 0.5_f64 * z;
    let w = 1.0_f64 - hz;
    let c = z
        * z
        * (0.041666666666666595_f64
            + z * (-0.0013888888888872975_f64
                + z * (2.4801587288800052e-5_f64
                    + z * (-2.7557314163983316e-7_f64
                        + z * (2.087569870941024e-9_f64 + z * -1.1358423560463482e-11_f64)))));
    __weft_h_fast_two_sum_f64(w, ((1.0_f64 - w) - hz) + (c - hi * lo))
}

/// `(nh + nl) / (dh + dl)` rounded, using the exact division residual.
#[weft::func]
pub fn __weft_h_div_dd_f64(nh: f64, nl: f64, dh: f64, dl: f64) -> f64 {
    let q = nh / dh;
    let (p, pe) = __weft_h_two_prod_f64(q, dh);
    let rho = ((nh - p) - pe) + (nl - q * dl);
    q + rho / dh
}

/// Sine (weft-math `sin_f64`).
#[weft::func]
pub fn __weft_sin_f64(x: f64) -> f64 {
    let ax = abs(x);
    if ax < 0.7853981633974483_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
        let (s, t) = __weft_h_sin_kernel_f64(x, 0.0_f64);
        return s + t;
    }
    if !__weft_h_is_finite_f64(x) {
        return __weft_h_invalid_f64(x);
    }
    let (hi, lo, qf) = __weft_h_rem_pio2_f64(x);
    let q = qf as i32;
    let v = if (q & 1_i32) == 0_i32 {
        let (s, t) = __weft_h_sin_kernel_f64(hi, lo);
        s + t
    } else {
        let (c, t) = __weft_h_cos_kernel_f64(hi, lo);
        c + t
    };
    if q >= 2_i32 { -v } else { v }
}

/// Cosine (weft-math `cos_f64`).
#[weft::func]
pub fn __weft_cos_f64(x: f64) -> f64 {
    let ax = abs(x);
    if ax < 0.7853981633974483_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return 1.0_f64;
        }
        let (c, t) = __weft_h_cos_kernel_f64(x, 0.0_f64);
        return c + t;
    }
    if !__weft_h_is_finite_f64(x) {
        return __weft_h_invalid_f64(x);
    }
    let (hi, lo, qf) = __weft_h_rem_pio2_f64(x);
    let q = qf as i32;
    let v = if (q & 1_i32) == 0_i32 {
        let (c, t) = __weft_h_cos_kernel_f64(hi, lo);
        c + t
    } else {
        let (s, t) = __weft_h_sin_kernel_f64(hi, lo);
        s + t
    };
    if q == 1_i32 || q == 2_i32 { -v } else { v }
}

/// Sine and cosine with one shared reduction: `(sin x, cos x)` (weft-math `sincos_f64`).
#[weft::func]
pub fn __weft_sincos_f64(x: f64) -> (f64, f64) {
    let ax = abs(x);
    let mut hi = x;
    let mut lo = 0.0_f64;
    let mut q = 0_i32;
    if ax < 0.7853981633974483_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return (x, 1.0_f64);
        }
    } else {
        if !__weft_h_is_finite_f64(x) {
            return (__weft_h_invalid_f64(x), __weft_h_invalid_f64(x));
        }
        let (h, l, qf) = __weft_h_rem_pio2_f64(x);
        hi = h;
        lo = l;
        q = qf as i32;
    }
    let (s0, s1) = __weft_h_sin_kernel_f64(hi, lo);
    let (c0, c1) = __weft_h_cos_kernel_f64(hi, lo);
    let s = s0 + s1;
    let c = c0 + c1;
    let mut sv = s;
    let mut cv = c;
    if q == 1_i32 {
        sv = c;
        cv = -s;
    } else if q == 2_i32 {
        sv = -s;
        cv = -c;
    } else if q == 3_i32 {
        sv = -c;
        cv = s;
    }
    (sv, cv)
}

/// Tangent (weft-math `tan_f64`).
#[weft::func]
pub fn __weft_tan_f64(x: f64) -> f64 {
    let ax = abs(x);
    let mut hi = x;
    let mut lo = 0.0_f64;
    let mut q = 0_i32;
    if ax < 0.7853981633974483_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
    } else {
        if !__weft_h_is_finite_f64(x) {
            return __weft_h_invalid_f64(x);
        }
        let (h, l, qf) = __weft_h_rem_pio2_f64(x);
        hi = h;
        lo = l;
        q = qf as i32;
    }
    let (sh, sl) = __weft_h_sin_kernel_f64(hi, lo);
    let (ch, cl) = __weft_h_cos_kernel_f64(hi, lo);
    if (q & 1_i32) == 0_i32 {
        __weft_h_div_dd_f64(sh, sl, ch, cl)
    } else {
        -__weft_h_div_dd_f64(ch, cl, sh, sl)
    }
}

// ---------------------------------------------------------------------------
// Inverse trigonometric functions
// ---------------------------------------------------------------------------

/// `atan(t) - t` for `|t| <= 7/16`.
#[weft::func]
pub fn __weft_h_atan_tail_f64(t: f64) -> f64 {
    let u = t * t;
    // Horner's scheme one step per line (the operations of the nested form).
    let mut p = -0.016235651989859563_f64;
    p = 0.0364804004888131_f64 + u * p;
    p = -0.049746278658491266_f64 + u * p;
    p = 0.058330121611091926_f64 + u * p;
    p = -0.0666098744752757_f64 + u * p;
    p = 0.0769186778077653_f64 + u * p;
    p = -0.09090886604177943_f64 + u * p;
    p = 0.11111110384892542_f64 + u * p;
    p = -0.14285714272043532_f64 + u * p;
    p = 0.1999999999987137_f64 + u * p;
    p = -0.3333333333333291_f64 + u * p;
    t * u * p
}

/// `asin(x) - x` for `|x| <= 1/2`, given `u = x^2`.
#[weft::func]
pub fn __weft_h_asin_tail_f64(x: f64, u: f64) -> f64 {
    // Horner's scheme one step per line (the operations of the nested form).
    let mut p = 0.03191221977380996_f64;
    p = -0.016224181284919655_f64 + u * p;
    p = 0.019528221182913787_f64 + u * p;
    p = 0.0065279905211154555_f64 + u * p;
    p = 0.01216920837076041_f64 + u * p;
    p = 0.013885235919513112_f64 + u * p;
    p = 0.01735970472160336_f64 + u * p;
    p = 0.022371758052989167_f64 + u * p;
    p = 0.030381959136866005_f64 + u * p;
    p = 0.04464285682833077_f64 + u * p;
    p = 0.07500000000337011_f64 + u * p;
    p = 0.16666666666665408_f64 + u * p;
    x * u * p
}

/// fdlibm's reduction for `t >= 7/16`: `(base_hi, base_lo, v)`,
/// `atan(t) = base + atan(v)`, `|v| <= 7/16`.
#[weft::func]
pub fn __weft_h_atan_reduce_f64(t: f64) -> (f64, f64, f64) {
    if t < 0.6875_f64 {
        return (
            0.4636476090008061_f64,
            2.2698777452961687e-17_f64,
            (2.0_f64 * t - 1.0_f64) / (2.0_f64 + t),
        );
    }
    if t < 1.1875_f64 {
        return (
            0.7853981633974483_f64,
            3.061616997868383e-17_f64,
            (t - 1.0_f64) / (t + 1.0_f64),
        );
    }
    if t < 2.4375_f64 {
        return (
            0.982793723247329_f64,
            1.3903311031230998e-17_f64,
            (t - 1.5_f64) / (1.0_f64 + 1.5_f64 * t),
        );
    }
    (
        1.5707963267948966_f64,
        6.123233995736766e-17_f64,
        -1.0_f64 / t,
    )
}

/// `atan(t)` for `t >= 0` (possibly `+inf`) as a double-word `(hi, lo)`.
#[weft::func]
pub fn __weft_h_atan_core_f64(t: f64) -> (f64, f64) {
    if t < 0.4375_f64 {
        return __weft_h_fast_two_sum_f64(t, __weft_h_atan_tail_f64(t));
    }
    let (base_hi, base_lo, v) = __weft_h_atan_reduce_f64(t);
    let (s, e) = __weft_h_two_sum_f64(base_hi, v);
    __weft_h_fast_two_sum_f64(s, e + (base_lo + __weft_h_atan_tail_f64(v)))
}

/// Arctangent (weft-math `atan_f64`).
#[weft::func]
pub fn __weft_atan_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 7.450580596923828e-9_f64 {
        return x;
    }
    let (h, l) = __weft_h_atan_core_f64(ax);
    __weft_h_copysign_f64(h + l, x)
}

/// `atan(n/d)` for `0 <= n <= d` as a double-word, division residual folded in.
#[weft::func]
pub fn __weft_h_atan_ratio_f64(n: f64, d: f64) -> (f64, f64) {
    let v = n / d;
    let (h, l) = __weft_h_atan_core_f64(v);
    let mut corr = 0.0_f64;
    if v >= 8.673617379884035e-19_f64 {
        let mut nn = n;
        let mut dd = d;
        if dd > 8.452712498170644e270_f64 {
            nn *= 2.409919865102884e-181_f64; // 2^-600
            dd *= 2.409919865102884e-181_f64;
        } else if nn < 1.1830521861667747e-271_f64 {
            nn *= 4.149515568880993e180_f64; // 2^600
            dd *= 4.149515568880993e180_f64;
        }
        let (p, pe) = __weft_h_two_prod_f64(v, dd);
        corr = ((nn - p) - pe) / (dd * (1.0_f64 + v * v));
    }
    (h, l + corr)
}

/// Four-quadrant arctangent of `y/x` (weft-math `atan2_f64`).
#[weft::func]
pub fn __weft_atan2_f64(y: f64, x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) || __weft_h_is_nan_f64(y) {
        return x + y;
    }
    let ay = abs(y);
    let ax = abs(x);
    let x_neg = (f64_to_bits(x) >> 63) == 1_u64;
    if ay == 0.0_f64 {
        if x_neg {
            return __weft_h_copysign_f64(3.141592653589793_f64, y);
        }
        return y;
    }
    if ax == 0.0_f64 {
        return __weft_h_copysign_f64(1.5707963267948966_f64, y);
    }
    if __weft_h_is_inf_f64(ay) {
        if __weft_h_is_inf_f64(ax) {
            if x_neg {
                return __weft_h_copysign_f64(2.356194490192345_f64, y);
            }
            return __weft_h_copysign_f64(0.7853981633974483_f64, y);
        }
        return __weft_h_copysign_f64(1.5707963267948966_f64, y);
    }
    if __weft_h_is_inf_f64(ax) {
        if x_neg {
            return __weft_h_copysign_f64(3.141592653589793_f64, y);
        }
        return __weft_h_copysign_f64(0.0_f64, y);
    }
    let r = if ay <= ax {
        let (h, l) = __weft_h_atan_ratio_f64(ay, ax);
        if x_neg {
            let (s, e) = __weft_h_two_sum_f64(3.141592653589793_f64, -h);
            s + (e + (1.2246467991473532e-16_f64 - l))
        } else {
            h + l
        }
    } else {
        let (h, l) = __weft_h_atan_ratio_f64(ax, ay);
        if x_neg {
            let (s, e) = __weft_h_two_sum_f64(1.5707963267948966_f64, h);
            s + (e + (6.123233995736766e-17_f64 + l))
        } else {
            let (s, e) = __weft_h_two_sum_f64(1.5707963267948966_f64, -h);
            s + (e + (6.123233995736766e-17_f64 - l))
        }
    };
    __weft_h_copysign_f64(r, y)
}

/// For `1/2 < ax < 1`: `(s_hi, tail)` with `asin(sqrt((1-ax)/2)) ~ s_hi + tail`.
#[weft::func]
pub fn __weft_h_asin_far_f64(ax: f64) -> (f64, f64) {
    let z = (1.0_f64 - ax) * 0.5_f64;
    let s = sqrt(z);
    let s_hi = f64_from_bits(f64_to_bits(s) & 0xffff_ffff_0000_0000_u64);
    let c = (z - s_hi * s_hi) / (s + s_hi);
    (s_hi, c + __weft_h_asin_tail_f64(s, z))
}

/// Arcsine (weft-math `asin_f64`).
#[weft::func]
pub fn __weft_asin_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    let ax = abs(x);
    if ax > 1.0_f64 {
        return f64_from_bits(0x7ff8_0000_0000_0000_u64);
    }
    if ax == 1.0_f64 {
        return __weft_h_copysign_f64(1.5707963267948966_f64, x);
    }
    if ax <= 0.5_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
        return x + __weft_h_asin_tail_f64(x, x * x);
    }
    let (s_hi, tail) = __weft_h_asin_far_f64(ax);
    let h = 1.5707963267948966_f64 - 2.0_f64 * s_hi; // exact
    __weft_h_copysign_f64(h + (6.123233995736766e-17_f64 - 2.0_f64 * tail), x)
}

/// Arccosine (weft-math `acos_f64`).
#[weft::func]
pub fn __weft_acos_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    let ax = abs(x);
    if ax > 1.0_f64 {
        return f64_from_bits(0x7ff8_0000_0000_0000_u64);
    }
    if ax <= 0.5_f64 {
        let p = __weft_h_asin_tail_f64(x, x * x);
        let (s, e) = __weft_h_two_sum_f64(1.5707963267948966_f64, -x);
        return s + (e + (6.123233995736766e-17_f64 - p));
    }
    if x == 1.0_f64 {
        return 0.0_f64;
    }
    if x == -1.0_f64 {
        return 3.141592653589793_f64;
    }
    let (s_hi, tail) = __weft_h_asin_far_f64(ax);
    if x > 0.0_f64 {
        2.0_f64 * s_hi + 2.0_f64 * tail
    } else {
        let (s, e) = __weft_h_fast_two_sum_f64(3.141592653589793_f64, -2.0_f64 * s_hi);
        s + (e + (1.2246467991473532e-16_f64 - 2.0_f64 * tail))
    }
}

// ---------------------------------------------------------------------------
// Hyperbolic functions
// ---------------------------------------------------------------------------

/// Hyperbolic sine (weft-math `sinh_f64`).
#[weft::func]
pub fn __weft_sinh_f64(x: f64) -> f64 {
    if !__weft_h_is_finite_f64(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 1.0_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
        let u = x * x;
        let p = 0.16666666666666669_f64
            + u * (0.008333333333333148_f64
                + u * (0.00019841269841431873_f64
                    + u * (2.7557319157071874e-6_f64
                        + u * (2.5052123136722458e-8_f64
                            + u * (1.6057259768832567e-10_f64 + u * 7.758748796269462e-13_f64)))));
        return x + x * u * p;
    }
    if ax > 711.0_f64 {
        return __weft_h_copysign_f64(f64_from_bits(0x7ff0_0000_0000_0000_u64), x);
    }
    let (s, t, kf) = __weft_h_exp_core_f64(ax);
    let r = if ax < 22.0_f64 {
        let (h, l) = __weft_h_fast_two_sum_f64(s, t);
        let sc = __weft_h_pow2i_f64(kf);
        let eh = h * sc;
        0.5_f64 * (eh + (l * sc - 1.0_f64 / eh))
    } else {
        __weft_h_ldexp_f64(s + t, kf - 1.0_f64)
    };
    __weft_h_copysign_f64(r, x)
}

/// Hyperbolic cosine (weft-math `cosh_f64`).
#[weft::func]
pub fn __weft_cosh_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 7.450580596923828e-9_f64 {
        return 1.0_f64;
    }
    if ax > 711.0_f64 {
        return f64_from_bits(0x7ff0_0000_0000_0000_u64);
    }
    let (s, t, kf) = __weft_h_exp_core_f64(ax);
    if ax < 22.0_f64 {
        let (h, l) = __weft_h_fast_two_sum_f64(s, t);
        let sc = __weft_h_pow2i_f64(kf);
        let eh = h * sc;
        0.5_f64 * (eh + (l * sc + 1.0_f64 / eh))
    } else {
        __weft_h_ldexp_f64(s + t, kf - 1.0_f64)
    }
}

/// Hyperbolic tangent (weft-math `tanh_f64`).
#[weft::func]
pub fn __weft_tanh_f64(x: f64) -> f64 {
    if __weft_h_is_nan_f64(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 0.5493_f64 {
        if ax < 7.450580596923828e-9_f64 {
            return x;
        }
        let u = x * x;
        // Horner's scheme one step per line (the operations of the nested form).
        let mut p = -1.952322009417039e-5_f64;
        p = 8.336151787356477e-5_f64 + u * p;
        p = -0.00023341220763331298_f64 + u * p;
        p = 0.0005884562132700984_f64 + u * p;
        p = -0.0014555456192754173_f64 + u * p;
        p = 0.00359209244926613_f64 + u * p;
        p = -0.008863232641730518_f64 + u * p;
        p = 0.02186948838824351_f64 + u * p;
        p = -0.053968253963841556_f64 + u * p;
        p = 0.13333333333326755_f64 + u * p;
        p = -0.333333333333333_f64 + u * p;
        return x + x * u * p;
    }
    if ax > 20.0_f64 {
        return __weft_h_copysign_f64(1.0_f64, x);
    }
    let (s, t, kf) = __weft_h_exp_core_f64(2.0_f64 * ax);
    let (h, l) = __weft_h_fast_two_sum_f64(s, t);
    let sc = __weft_h_pow2i_f64(kf);
    let (dh, dl0) = __weft_h_fast_two_sum_f64(h * sc, 1.0_f64);
    let dl = dl0 + l * sc;
    let q = 2.0_f64 / dh;
    let corr = q * dl * (0.5_f64 * q);
    let (hi, lo) = __weft_h_fast_two_sum_f64(1.0_f64, -q);
    __weft_h_copysign_f64(hi + (lo + corr), x)
}

// ---------------------------------------------------------------------------
// Power
// ---------------------------------------------------------------------------

/// Natural logarithm of a finite positive `x` as a double-word `(hi, lo)`
/// (relative error about 2^-70).
#[weft::func]
pub fn __weft_h_log_dd_f64(x: f64) -> (f64, f64) {
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
    let (dh, dl) = __weft_h_fast_two_sum_f64(2.0_f64, f);
    let sh = f / dh;
    let (p, pe) = __weft_h_two_prod_f64(sh, dh);
    let sl = (((f - p) - pe) - sh * dl) / dh;
    let w = sh * sh;
    let r2 = w
        * (0.39999999999999997_f64
            + w * (0.28571428571434265_f64
                + w * (0.22222222220088533_f64
                    + w * (0.18181818568149902_f64
                        + w * (0.15384576734719085_f64
                            + w * (0.13335581410581548_f64
                                + w * (0.11689208454463834_f64 + w * 0.1187353935327496_f64)))))));
    let (rh, rl0) = __weft_h_fast_two_sum_f64(0.6666666666666666_f64, r2);
    let rl = rl0 + 3.700743415417188e-17_f64;
    let (s2h, s2l0) = __weft_h_two_prod_f64(sh, sh);
    let s2l = s2l0 + 2.0_f64 * sh * sl;
    let (s3h, s3l0) = __weft_h_two_prod_f64(s2h, sh);
    let s3l = s3l0 + (s2h * sl + s2l * sh);
    let (th, tl0) = __weft_h_two_prod_f64(s3h, rh);
    let tl = tl0 + (s3h * rl + s3l * rh);
    let (a, b0) = __weft_h_fast_two_sum_f64(2.0_f64 * sh, th);
    let b = b0 + (2.0_f64 * sl + tl);
    let kf = k as f64;
    let (c, d0) = __weft_h_two_sum_f64(kf * 0.6931471805598903_f64, a);
    let d = d0 + (b + kf * 5.497923018708371e-14_f64);
    __weft_h_fast_two_sum_f64(c, d)
}

/// Classifies `y`: 0 = not an integer, 1 = odd integer, 2 = even integer.
#[weft::func]
pub fn __weft_h_integer_kind_f64(y: f64) -> i32 {
    if trunc(y) != y {
        0_i32
    } else if abs(y) >= 9_007_199_254_740_992.0_f64 {
        2_i32
    } else if ((abs(y) as i64) & 1_i64) == 1_i64 {
        1_i32
    } else {
        2_i32
    }
}

/// `x^y` with C99 `pow` special cases (weft-math `pow_f64`).
#[weft::func]
pub fn __weft_pow_f64(x: f64, y: f64) -> f64 {
    if y == 0.0_f64 || x == 1.0_f64 {
        return 1.0_f64;
    }
    if __weft_h_is_nan_f64(x) || __weft_h_is_nan_f64(y) {
        return x + y;
    }
    let inf = f64_from_bits(0x7ff0_0000_0000_0000_u64);
    let ax = abs(x);
    if __weft_h_is_inf_f64(y) {
        if ax == 1.0_f64 {
            return 1.0_f64;
        }
        if (ax > 1.0_f64) == (y > 0.0_f64) {
            return inf;
        }
        return 0.0_f64;
    }
    let kind = __weft_h_integer_kind_f64(y);
    if ax == 0.0_f64 {
        if y < 0.0_f64 {
            if kind == 1_i32 {
                return __weft_h_copysign_f64(inf, x);
            }
            return inf;
        }
        if kind == 1_i32 {
            return x;
        }
        return 0.0_f64;
    }
    if __weft_h_is_inf_f64(ax) {
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
            return f64_from_bits(0x7ff8_0000_0000_0000_u64);
        }
        if kind == 1_i32 {
            sign = -1.0_f64;
        }
    }
    let (lh, ll) = __weft_h_log_dd_f64(ax);
    if abs(y) > 1.8446744073709552e19_f64 {
        if (y > 0.0_f64) == (lh > 0.0_f64) {
            return sign * inf;
        }
        return sign * 0.0_f64;
    }
    let (zh0, zl0) = __weft_h_two_prod_f64(y, lh);
    let (zh, zl) = __weft_h_fast_two_sum_f64(zh0, zl0 + y * ll);
    if zh > 710.0_f64 {
        return sign * inf;
    }
    if zh < -746.0_f64 {
        return sign * 0.0_f64;
    }
    let kf = __weft_h_rint_f64(zh * 1.4426950408889634_f64);
    let t0 = zh - kf * 0.6931471805598903_f64; // exact
    let (r_hi, r_lo) = __weft_h_two_sum_f64(t0, zl - kf * 5.497923018708371e-14_f64);
    let (s, t) = __weft_h_exp_kernel_f64(r_hi, r_lo);
    sign * __weft_h_ldexp_f64(s + t, kf)
}

// ---------------------------------------------------------------------------
// Cube root
// ---------------------------------------------------------------------------

/// Cube root (weft-math `cbrt_f64`).
#[weft::func]
pub fn __weft_cbrt_f64(x: f64) -> f64 {
    if x == 0.0_f64 || !__weft_h_is_finite_f64(x) {
        return x;
    }
    let mut ub = f64_to_bits(x) & 0x7fff_ffff_ffff_ffff_u64;
    let mut a = f64_from_bits(ub);
    let mut scale = 1.0_f64;
    if ub < 0x07b0_0000_0000_0000_u64 {
        a *= f64_from_bits(0x4a10_0000_0000_0000_u64); // 2^162
        scale = f64_from_bits(0x3c90_0000_0000_0000_u64); // 2^-54
        ub = f64_to_bits(a);
    } else if ub > 0x7830_0000_0000_0000_u64 {
        a *= f64_from_bits(0x35d0_0000_0000_0000_u64); // 2^-162
        scale = f64_from_bits(0x4350_0000_0000_0000_u64); // 2^54
        ub = f64_to_bits(a);
    }
    let hi = ub >> 32;
    let mut y = f64_from_bits((hi / 3_u64 + 715_094_163_u64) << 32);
    y -= (y * y * y - a) / (3.0_f64 * y * y);
    y -= (y * y * y - a) / (3.0_f64 * y * y);
    y -= (y * y * y - a) / (3.0_f64 * y * y);
    let (y2, y2e) = __weft_h_two_prod_f64(y, y);
    let (y3, y3e) = __weft_h_two_prod_f64(y2, y);
    let res = (a - y3) - (y3e + y2e * y);
    y += res / (3.0_f64 * y2);
    __weft_h_copysign_f64(y * scale, x)
}
