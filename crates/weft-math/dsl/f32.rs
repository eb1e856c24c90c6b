// Weft's accurate `f32` elementary functions, written in the kernel language:
// the one source of `weft_math::{sin, cos, ..}` on the CPU and of the
// builtins `sin`, `cos`, .. on `f32` in PTX.
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
// parsed as `f32` or through `f64`). Public entry points are `__weft_<name>_f32`,
// helpers `__weft_h_<name>_f32`; every func is `#[weft::func]` (and nothing else).
//
// Two limitations of the func compiler (adjoint generation) shape a few
// signatures:
// * a func with an integer or `bool` parameter does not compile yet, so integers
//   passed as arguments (exponents, table indices) are integral `f32` values,
//   converted back in the callee;
// * a func returning a tuple that holds an integer or a `bool` breaks its
//   callers, so the reduction returns its quadrant as an `f32` and the
//   logarithms' special cases are a test and a value (two funcs).
// Every such integer is small, exact in `f32`.

// ---------------------------------------------------------------------------
// Classification, signs, rounding
// ---------------------------------------------------------------------------

/// `true` if `x` is a NaN.
#[weft::func]
pub fn __weft_h_is_nan_f32(x: f32) -> bool {
    (f32_to_bits(x) & 0x7fff_ffff_u32) > 0x7f80_0000_u32
}

/// `true` if `x` is neither infinite nor NaN.
#[weft::func]
pub fn __weft_h_is_finite_f32(x: f32) -> bool {
    (f32_to_bits(x) & 0x7fff_ffff_u32) < 0x7f80_0000_u32
}

/// `true` if `x` is `+inf` or `-inf`.
#[weft::func]
pub fn __weft_h_is_inf_f32(x: f32) -> bool {
    (f32_to_bits(x) & 0x7fff_ffff_u32) == 0x7f80_0000_u32
}

/// Result of an invalid operation on `x`: `x` if it is a NaN, else the quiet NaN.
#[weft::func]
pub fn __weft_h_invalid_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        x
    } else {
        f32_from_bits(0x7fc0_0000_u32)
    }
}

/// `x` with the sign bit of `y`.
#[weft::func]
pub fn __weft_h_copysign_f32(x: f32, y: f32) -> f32 {
    f32_from_bits((f32_to_bits(x) & 0x7fff_ffff_u32) | (f32_to_bits(y) & 0x8000_0000_u32))
}

/// Round to nearest, ties to even, for `|x| < 2^22`.
#[weft::func]
pub fn __weft_h_rint_f32(x: f32) -> f32 {
    (x + 12_582_912.0_f32) - 12_582_912.0_f32
}

/// `x * 2^n` with one rounding (`n` an integral `f32`).
#[weft::func]
pub fn __weft_h_ldexp_f32(x: f32, nf: f32) -> f32 {
    let mut y = x;
    let mut k = nf as i32;
    if k > 127 {
        y *= f32_from_bits(0x7f00_0000_u32); // 2^127
        k -= 127;
        if k > 127 {
            y *= f32_from_bits(0x7f00_0000_u32);
            k -= 127;
            if k > 127 {
                k = 127;
            }
        }
    } else if k < -126 {
        y *= f32_from_bits(0x0c80_0000_u32); // 2^-102
        k += 102;
        if k < -126 {
            y *= f32_from_bits(0x0c80_0000_u32);
            k += 102;
            if k < -126 {
                k = -126;
            }
        }
    }
    y * f32_from_bits(((k + 127) as u32) << 23)
}

/// `2^k` for integral `-126 <= k <= 127` (given as `f32`).
#[weft::func]
pub fn __weft_h_pow2i_f32(kf: f32) -> f32 {
    let k = kf as i32;
    f32_from_bits(((k + 127) as u32) << 23)
}

// ---------------------------------------------------------------------------
// Error-free transformations
// ---------------------------------------------------------------------------

/// TwoSum: `(s, e)` with `s = fl(a + b)`, `a + b = s + e`.
#[weft::func]
pub fn __weft_h_two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let bb = s - a;
    let e = (a - (s - bb)) + (b - bb);
    (s, e)
}

/// FastTwoSum (`|a| >= |b|` or `a == 0`).
#[weft::func]
pub fn __weft_h_fast_two_sum_f32(a: f32, b: f32) -> (f32, f32) {
    let s = a + b;
    let e = b - (s - a);
    (s, e)
}

/// Splits `a` into its upper 12 significand bits and the rest.
#[weft::func]
pub fn __weft_h_split_f32(a: f32) -> (f32, f32) {
    let hi = f32_from_bits(f32_to_bits(a) & 0xffff_f000_u32);
    (hi, a - hi)
}

/// TwoProduct: `(p, e)` with `p = fl(a * b)`, `a * b = p + e`.
#[weft::func]
pub fn __weft_h_two_prod_f32(a: f32, b: f32) -> (f32, f32) {
    let p = a * b;
    let (ah, al) = __weft_h_split_f32(a);
    let (bh, bl) = __weft_h_split_f32(b);
    let e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl;
    (p, e)
}

// ---------------------------------------------------------------------------
// Exponentials and logarithms
// ---------------------------------------------------------------------------

/// `e^(r_hi + r_lo)` for `|r_hi| <= 0.35` as `(s, t)`.
#[weft::func]
pub fn __weft_h_exp_kernel_f32(r_hi: f32, r_lo: f32) -> (f32, f32) {
    let z = r_hi * r_hi;
    let p = 0.499_999_94_f32
        + r_hi
            * (0.166_665_2_f32
                + r_hi
                    * (0.041_668_393_f32
                        + r_hi * (0.008_368_781_f32 + r_hi * 0.001_381_446_7_f32)));
    let (s, e) = __weft_h_fast_two_sum_f32(1.0_f32, r_hi);
    let t = e + (z * p + (r_lo + r_lo * r_hi));
    (s, t)
}

/// `e^x = (s + t) 2^k` for `|x| <= 104`; returns `(s, t, k)` (`k` as `f32`).
#[weft::func]
pub fn __weft_h_exp_core_f32(x: f32) -> (f32, f32, f32) {
    let kf = __weft_h_rint_f32(x * 1.442_695_f32);
    let t0 = x - kf * 0.693_145_75_f32; // exact
    let (r_hi, r_lo) = __weft_h_two_sum_f32(t0, -(kf * 1.428_606_8e-6_f32));
    let (s, t) = __weft_h_exp_kernel_f32(r_hi, r_lo);
    (s, t, kf)
}

/// `e^x` (weft-math `exp`).
#[weft::func]
pub fn __weft_exp_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    if x > 88.8_f32 {
        return f32_from_bits(0x7f80_0000_u32);
    }
    if x < -104.0_f32 {
        return 0.0_f32;
    }
    let (s, t, kf) = __weft_h_exp_core_f32(x);
    __weft_h_ldexp_f32(s + t, kf)
}

/// `2^x` (weft-math `exp2`).
#[weft::func]
pub fn __weft_exp2_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    if x >= 128.0_f32 {
        return f32_from_bits(0x7f80_0000_u32);
    }
    if x < -151.0_f32 {
        return 0.0_f32;
    }
    let kf = __weft_h_rint_f32(x);
    let r = x - kf; // exact
    let (y_hi, y_lo) = __weft_h_two_prod_f32(r, 0.693_147_2_f32);
    let (s, t) = __weft_h_exp_kernel_f32(y_hi, y_lo + r * -1.904_654_2e-9_f32);
    __weft_h_ldexp_f32(s + t, kf)
}

/// Finite positive `x = 2^k (1 + f)`: `(f, tail, k)` with `log(1 + f) ~ f + tail`.
#[weft::func]
pub fn __weft_h_log_core_f32(x: f32) -> (f32, f32, f32) {
    let mut u = f32_to_bits(x);
    let mut k = 0_i32;
    if u < 0x0080_0000_u32 {
        u = f32_to_bits(x * 8_388_608.0_f32); // 2^23
        k = -23;
    }
    u += 0x3f80_0000_u32 - 0x3f35_04f3_u32;
    k += (u >> 23) as i32 - 127;
    u = (u & 0x007f_ffff_u32) + 0x3f35_04f3_u32;
    let f = f32_from_bits(u) - 1.0_f32; // exact
    let z = f * f;
    let q = 0.333_333_3_f32
        + f * (-0.250_008_23_f32
            + f * (0.200_012_28_f32
                + f * (-0.166_233_36_f32
                    + f * (0.142_017_19_f32
                        + f * (-0.131_603_64_f32
                            + f * (0.127_619_62_f32 + f * -0.076_344_87_f32))))));
    let tail = f * z * q - 0.5_f32 * z;
    (f, tail, k as f32)
}

/// `true` when `x` is NaN, negative, zero or `+inf`.
#[weft::func]
pub fn __weft_h_log_is_special_f32(x: f32) -> bool {
    if __weft_h_is_nan_f32(x) {
        return true;
    }
    if x < 0.0_f32 {
        return true;
    }
    if x == 0.0_f32 {
        return true;
    }
    if f32_to_bits(x) == 0x7f80_0000_u32 {
        return true;
    }
    false
}

/// The logarithms' value at a special `x` (one where `__weft_h_log_is_special` holds).
#[weft::func]
pub fn __weft_h_log_special_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    if x < 0.0_f32 {
        return f32_from_bits(0x7fc0_0000_u32);
    }
    if x == 0.0_f32 {
        return f32_from_bits(0xff80_0000_u32);
    }
    x
}

/// Natural logarithm (weft-math `log`).
#[weft::func]
pub fn __weft_log_f32(x: f32) -> f32 {
    if __weft_h_log_is_special_f32(x) {
        return __weft_h_log_special_f32(x);
    }
    let (f, tail, kf) = __weft_h_log_core_f32(x);
    let (s, e) = __weft_h_fast_two_sum_f32(kf * 0.693_145_75_f32, f);
    s + (e + (tail + kf * 1.428_606_8e-6_f32))
}

/// Base-2 logarithm (weft-math `log2`).
#[weft::func]
pub fn __weft_log2_f32(x: f32) -> f32 {
    if __weft_h_log_is_special_f32(x) {
        return __weft_h_log_special_f32(x);
    }
    let (f, tail, kf) = __weft_h_log_core_f32(x);
    let (fh, fl) = __weft_h_split_f32(f);
    let p = fh * 1.442_382_8_f32; // exact
    let small = fl * 1.442_382_8_f32 + f * 0.000_312_228_4_f32 + tail * 1.442_695_f32;
    let (s, e) = __weft_h_fast_two_sum_f32(kf, p);
    s + (e + small)
}

/// Base-10 logarithm (weft-math `log10`).
#[weft::func]
pub fn __weft_log10_f32(x: f32) -> f32 {
    if __weft_h_log_is_special_f32(x) {
        return __weft_h_log_special_f32(x);
    }
    let (f, tail, kf) = __weft_h_log_core_f32(x);
    let (fh, fl) = __weft_h_split_f32(f);
    let a = kf * 0.301_025_4_f32; // exact
    let b = fh * 0.434_204_1_f32; // exact
    let small = kf * 4.605_039e-6_f32
        + fl * 0.434_204_1_f32
        + f * 9.038_034e-5_f32
        + tail * 0.434_294_5_f32;
    let (s, e) = __weft_h_two_sum_f32(a, b);
    s + (e + small)
}

// ---------------------------------------------------------------------------
// Reduction modulo pi/2
// ---------------------------------------------------------------------------

/// Word `i` (an integral `f32`) of `2/pi` preceded by one zero word.
#[weft::func]
pub fn __weft_h_two_over_pi_word_f32(index: f32) -> u64 {
    let i = index as u32;
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

/// Cody–Waite (`|x| < 400`) or Payne–Hanek: `(hi, lo, q)` with
/// `x = q pi/2 + hi + lo (mod 2 pi)`, the quadrant `q` (0..=3) as an `f32`.
#[weft::func]
pub fn __weft_h_rem_pio2_f32(x: f32) -> (f32, f32, f32) {
    if x < 400.0_f32 && x > -400.0_f32 {
        let kf = __weft_h_rint_f32(x * 0.636_619_75_f32);
        let t = x - kf * 1.570_770_3_f32; // exact
        let (s1, e1) = __weft_h_two_sum_f32(t, -(kf * 2.606_306_2e-5_f32));
        let (s2, e2) = __weft_h_two_sum_f32(s1, -(kf * 6.077_094_4e-11_f32));
        let lo = (e1 + e2) - kf * 6.123_234e-17_f32;
        let (hi, lo2) = __weft_h_fast_two_sum_f32(s2, lo);
        return (hi, lo2, ((kf as i32) & 3_i32) as f32);
    }
    __weft_h_rem_pio2_large_f32(x)
}

/// Payne–Hanek reduction for finite `|x| >= 400`.
#[weft::func]
pub fn __weft_h_rem_pio2_large_f32(x: f32) -> (f32, f32, f32) {
    let u = f32_to_bits(x);
    let m = ((u & 0x007f_ffff_u32) | 0x0080_0000_u32) as u64;
    let e = ((u >> 23) & 0xff_u32) as i32 - 150;
    let start = (e + 30) as u32;
    let wi = start >> 5;
    let o = start & 31_u32;
    let w0 = __weft_h_two_over_pi_word_f32(wi as f32);
    let w1 = __weft_h_two_over_pi_word_f32((wi + 1_u32) as f32);
    let w2 = __weft_h_two_over_pi_word_f32((wi + 2_u32) as f32);
    let w3 = __weft_h_two_over_pi_word_f32((wi + 3_u32) as f32);
    // 32 bits starting `o` bits into each pair of words.
    let v0 = (((w0 << 32) | w1) << (o as u64)) >> 32;
    let v1 = (((w1 << 32) | w2) << (o as u64)) >> 32;
    let v2 = (((w2 << 32) | w3) << (o as u64)) >> 32;
    let p2 = m * v2;
    let p1 = m * v1;
    let p0 = m * v0;
    let limb0 = p2 & 0xffff_ffff_u64;
    let t1 = (p1 & 0xffff_ffff_u64) + (p2 >> 32);
    let limb1 = t1 & 0xffff_ffff_u64;
    let t2 = (p0 & 0xffff_ffff_u64) + (p1 >> 32) + (t1 >> 32);
    let limb2 = t2 & 0xffff_ffff_u64;
    let mut q = ((limb2 >> 30) & 3_u64) as i32;
    let frac = ((limb2 & 0x3fff_ffff_u64) << 34) | (limb1 << 2) | (limb0 >> 30);
    q = (q + (frac >> 63) as i32) & 3_i32;
    let r = ((frac as i64) as f64) * 8.515_303_950_216_386e-20_f64;
    let mut hi = r as f32;
    let mut lo = (r - (hi as f64)) as f32;
    if x < 0.0_f32 {
        hi = -hi;
        lo = -lo;
        q = (4_i32 - q) & 3_i32;
    }
    (hi, lo, q as f32)
}

// ---------------------------------------------------------------------------
// Sine, cosine, tangent
// ---------------------------------------------------------------------------

/// `(hi, lo, q)` for `sin`, `cos` and `sincos` (see [`__weft_h_rem_pio2_f32`]):
/// below pi/4 the argument is its own reduction, so each caller holds one copy
/// of each polynomial (the kernel language inlines every call).
#[weft::func]
pub fn __weft_h_trig_reduce_f32(x: f32) -> (f32, f32, f32) {
    if abs(x) < 0.785_398_2_f32 {
        return (x, 0.0_f32, 0.0_f32);
    }
    __weft_h_rem_pio2_f32(x)
}

/// `sin(hi + lo)` for `|hi| <= pi/4`.
#[weft::func]
pub fn __weft_h_sin_kernel_f32(hi: f32, lo: f32) -> f32 {
    let z = hi * hi;
    let p = z
        * (-0.166_666_67_f32
            + z * (0.008_333_329_f32 + z * (-0.000_198_393_09_f32 + z * 2.718_084e-6_f32)));
    hi + (hi * p + lo * (1.0_f32 - 0.5_f32 * z))
}

/// `cos(hi + lo)` for `|hi| <= pi/4`.
#[weft::func]
pub fn __weft_h_cos_kernel_f32(hi: f32, lo: f32) -> f32 {
    let z = hi * hi;
    let hz = 0.5_f32 * z;
    let w = 1.0_f32 - hz;
    let c = z * z * (0.041_666_646_f32 + z * (-0.001_388_731_3_f32 + z * 2.443_278_6e-5_f32));
    w + (((1.0_f32 - w) - hz) + (c - hi * lo))
}

/// `tan(hi + lo) - hi` for `|hi| <= pi/4`.
#[weft::func]
pub fn __weft_h_tan_tail_f32(hi: f32, lo: f32) -> f32 {
    let z = hi * hi;
    let poly = 0.333_333_5_f32
        + z * (0.133_326_59_f32
            + z * (0.054_060_493_f32
                + z * (0.021_279_119_f32
                    + z * (0.010_844_007_f32 + z * (7.885_762e-5_f32 + z * 0.004_381_681_3_f32)))));
    hi * z * poly + lo * (1.0_f32 + z)
}

/// `tan(hi + lo)`.
#[weft::func]
pub fn __weft_h_tan_kernel_f32(hi: f32, lo: f32) -> f32 {
    let tail = __weft_h_tan_tail_f32(hi, lo);
    hi + tail
}

/// `-1/tan(hi + lo)`.
#[weft::func]
pub fn __weft_h_cot_kernel_f32(hi: f32, lo: f32) -> f32 {
    let tail = __weft_h_tan_tail_f32(hi, lo);
    let (th, tl) = __weft_h_fast_two_sum_f32(hi, tail);
    let q = -1.0_f32 / th;
    let (pp, pe) = __weft_h_two_prod_f32(q, th);
    let rho = ((1.0_f32 + pp) + pe) + q * tl;
    q + q * rho
}

/// Sine (weft-math `sin`).
#[weft::func]
pub fn __weft_sin_f32(x: f32) -> f32 {
    let ax = abs(x);
    if ax < 0.000_244_140_63_f32 {
        return x;
    }
    if !__weft_h_is_finite_f32(x) {
        return __weft_h_invalid_f32(x);
    }
    let (hi, lo, qf) = __weft_h_trig_reduce_f32(x);
    let q = qf as i32;
    let r = if (q & 1_i32) == 0_i32 {
        __weft_h_sin_kernel_f32(hi, lo)
    } else {
        __weft_h_cos_kernel_f32(hi, lo)
    };
    if q >= 2_i32 { -r } else { r }
}

/// Cosine (weft-math `cos`).
#[weft::func]
pub fn __weft_cos_f32(x: f32) -> f32 {
    let ax = abs(x);
    if ax < 0.000_244_140_63_f32 {
        return 1.0_f32;
    }
    if !__weft_h_is_finite_f32(x) {
        return __weft_h_invalid_f32(x);
    }
    let (hi, lo, qf) = __weft_h_trig_reduce_f32(x);
    let q = qf as i32;
    let r = if (q & 1_i32) == 0_i32 {
        __weft_h_cos_kernel_f32(hi, lo)
    } else {
        __weft_h_sin_kernel_f32(hi, lo)
    };
    if q == 1_i32 || q == 2_i32 { -r } else { r }
}

/// Sine and cosine with one shared reduction: `(sin x, cos x)` (weft-math `sincos`).
#[weft::func]
pub fn __weft_sincos_f32(x: f32) -> (f32, f32) {
    let ax = abs(x);
    if ax < 0.000_244_140_63_f32 {
        return (x, 1.0_f32);
    }
    if !__weft_h_is_finite_f32(x) {
        return (__weft_h_invalid_f32(x), __weft_h_invalid_f32(x));
    }
    let (hi, lo, qf) = __weft_h_trig_reduce_f32(x);
    let q = qf as i32;
    let s = __weft_h_sin_kernel_f32(hi, lo);
    let c = __weft_h_cos_kernel_f32(hi, lo);
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

/// Tangent (weft-math `tan`).
#[weft::func]
pub fn __weft_tan_f32(x: f32) -> f32 {
    let ax = abs(x);
    if ax < 0.785_398_2_f32 {
        if ax < 0.000_244_140_63_f32 {
            return x;
        }
        return __weft_h_tan_kernel_f32(x, 0.0_f32);
    }
    if !__weft_h_is_finite_f32(x) {
        return __weft_h_invalid_f32(x);
    }
    let (hi, lo, qf) = __weft_h_rem_pio2_f32(x);
    let q = qf as i32;
    if (q & 1_i32) == 1_i32 {
        __weft_h_cot_kernel_f32(hi, lo)
    } else {
        __weft_h_tan_kernel_f32(hi, lo)
    }
}

// ---------------------------------------------------------------------------
// Inverse trigonometric functions
// ---------------------------------------------------------------------------

/// `atan(t) - t` for `t` in `[0, 1]`.
#[weft::func]
pub fn __weft_h_atan_tail_f32(t: f32) -> f32 {
    let u = t * t;
    let p = -0.333_333_f32
        + u * (0.199_985_49_f32
            + u * (-0.142_642_42_f32
                + u * (0.109_521_86_f32
                    + u * (-0.084_034_51_f32
                        + u * (0.057_957_6_f32
                            + u * (-0.031_177_852_f32
                                + u * (0.010_914_609_f32 + u * -0.001_793_622_3_f32)))))));
    t * u * p
}

/// `asin(x) - x` for `|x| <= 1/2` given `u = x^2`.
#[weft::func]
pub fn __weft_h_asin_tail_f32(x: f32, u: f32) -> f32 {
    x * u
        * (0.166_667_52_f32
            + u * (0.074_952_975_f32
                + u * (0.045_470_376_f32 + u * (0.024_179_513_f32 + u * 0.042_166_31_f32))))
}

/// `atan(n/d)` for `0 <= n <= d` as `(v, tail)`, `v = fl(n/d)`.
#[weft::func]
pub fn __weft_h_atan_ratio_f32(n: f32, d: f32) -> (f32, f32) {
    if n == d {
        return (0.785_398_2_f32, -2.185_569_4e-8_f32);
    }
    let v = n / d;
    let mut tail = __weft_h_atan_tail_f32(v);
    if v >= 9.313_226e-10_f32 {
        let mut nn = n;
        let mut dd = d;
        if nn < 7.888_609e-31_f32 {
            nn *= 1_125_899_906_842_624.0_f32; // 2^50
            dd *= 1_125_899_906_842_624.0_f32;
        }
        let (p, pe) = __weft_h_two_prod_f32(v, dd);
        let res = (nn - p) - pe; // exact
        tail += res / (dd * (1.0_f32 + v * v));
    }
    (v, tail)
}

/// Arctangent (weft-math `atan`).
#[weft::func]
pub fn __weft_atan_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 0.000_122_070_31_f32 {
        return x;
    }
    let r = if ax < 1.0_f32 {
        ax + __weft_h_atan_tail_f32(ax)
    } else if ax == 1.0_f32 {
        0.785_398_2_f32
    } else {
        let (v, tail) = __weft_h_atan_ratio_f32(1.0_f32, ax);
        let (s, e) = __weft_h_two_sum_f32(1.570_796_4_f32, -v);
        s + (e + (-4.371_139e-8_f32 - tail))
    };
    __weft_h_copysign_f32(r, x)
}

/// Four-quadrant arctangent of `y/x` (weft-math `atan2`).
#[weft::func]
pub fn __weft_atan2_f32(y: f32, x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) || __weft_h_is_nan_f32(y) {
        return x + y;
    }
    let ay = abs(y);
    let ax = abs(x);
    let x_neg = (f32_to_bits(x) >> 31) == 1_u32;
    if ay == 0.0_f32 {
        if x_neg {
            return __weft_h_copysign_f32(3.141_592_7_f32, y);
        }
        return y;
    }
    if ax == 0.0_f32 {
        return __weft_h_copysign_f32(1.570_796_4_f32, y);
    }
    if __weft_h_is_inf_f32(ay) {
        if __weft_h_is_inf_f32(ax) {
            if x_neg {
                return __weft_h_copysign_f32(2.356_194_5_f32, y);
            }
            return __weft_h_copysign_f32(0.785_398_2_f32, y);
        }
        return __weft_h_copysign_f32(1.570_796_4_f32, y);
    }
    if __weft_h_is_inf_f32(ax) {
        if x_neg {
            return __weft_h_copysign_f32(3.141_592_7_f32, y);
        }
        return __weft_h_copysign_f32(0.0_f32, y);
    }
    // One ratio (the smaller over the larger), then its quadrant:
    // `c_hi + c_lo + sign (v + tail)` in double-float for the ones past pi/4.
    let swap = ay > ax;
    let mut n = ay;
    let mut d = ax;
    if swap {
        n = ax;
        d = ay;
    }
    let (v, tail) = __weft_h_atan_ratio_f32(n, d);
    let mut r = v + tail;
    if swap || x_neg {
        let mut c_hi = 1.570_796_4_f32;
        let mut c_lo = -4.371_139e-8_f32;
        let mut sign = -1.0_f32;
        if !swap {
            c_hi = 3.141_592_7_f32;
            c_lo = -8.742_278e-8_f32;
        } else if x_neg {
            sign = 1.0_f32;
        }
        let (s, e) = __weft_h_two_sum_f32(c_hi, sign * v);
        r = s + (e + (c_lo + sign * tail));
    }
    __weft_h_copysign_f32(r, y)
}

/// For `1/2 < ax < 1`: `(s_hi, tail)` with `asin(sqrt((1-ax)/2)) ~ s_hi + tail`.
#[weft::func]
pub fn __weft_h_asin_far_f32(ax: f32) -> (f32, f32) {
    let z = (1.0_f32 - ax) * 0.5_f32; // exact
    let s = sqrt(z);
    let s_hi = f32_from_bits(f32_to_bits(s) & 0xffff_f000_u32);
    let c = (z - s_hi * s_hi) / (s + s_hi);
    let p = s
        * z
        * (0.166_667_52_f32
            + z * (0.074_952_975_f32
                + z * (0.045_470_376_f32 + z * (0.024_179_513_f32 + z * 0.042_166_31_f32))));
    (s_hi, c + p)
}

/// Arcsine (weft-math `asin`).
#[weft::func]
pub fn __weft_asin_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    let ax = abs(x);
    if ax > 1.0_f32 {
        return f32_from_bits(0x7fc0_0000_u32);
    }
    if ax == 1.0_f32 {
        return __weft_h_copysign_f32(1.570_796_4_f32, x);
    }
    if ax <= 0.5_f32 {
        if ax < 0.000_244_140_63_f32 {
            return x;
        }
        return x + __weft_h_asin_tail_f32(x, x * x);
    }
    let (s_hi, tail) = __weft_h_asin_far_f32(ax);
    let h = 1.570_796_4_f32 - 2.0_f32 * s_hi; // exact
    __weft_h_copysign_f32(h + (-4.371_139e-8_f32 - 2.0_f32 * tail), x)
}

/// Arccosine (weft-math `acos`).
#[weft::func]
pub fn __weft_acos_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    let ax = abs(x);
    if ax > 1.0_f32 {
        return f32_from_bits(0x7fc0_0000_u32);
    }
    if ax <= 0.5_f32 {
        let p = __weft_h_asin_tail_f32(x, x * x);
        let (s, e) = __weft_h_two_sum_f32(1.570_796_4_f32, -x);
        return s + (e + (-4.371_139e-8_f32 - p));
    }
    if x == 1.0_f32 {
        return 0.0_f32;
    }
    if x == -1.0_f32 {
        return 3.141_592_7_f32;
    }
    let (s_hi, tail) = __weft_h_asin_far_f32(ax);
    if x > 0.0_f32 {
        2.0_f32 * s_hi + 2.0_f32 * tail
    } else {
        let (s, e) = __weft_h_fast_two_sum_f32(3.141_592_7_f32, -2.0_f32 * s_hi);
        s + (e + (-8.742_278e-8_f32 - 2.0_f32 * tail))
    }
}

// ---------------------------------------------------------------------------
// Hyperbolic functions
// ---------------------------------------------------------------------------

/// Hyperbolic sine (weft-math `sinh`).
#[weft::func]
pub fn __weft_sinh_f32(x: f32) -> f32 {
    if !__weft_h_is_finite_f32(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 1.0_f32 {
        if ax < 0.000_244_140_63_f32 {
            return x;
        }
        let u = x * x;
        return x + x
            * u
            * (0.166_666_67_f32
                + u * (0.008_333_35_f32 + u * (0.000_198_361_6_f32 + u * 2.816_951_3e-6_f32)));
    }
    if ax > 89.5_f32 {
        return __weft_h_copysign_f32(f32_from_bits(0x7f80_0000_u32), x);
    }
    let (s, t, kf) = __weft_h_exp_core_f32(ax);
    let r = if ax < 12.0_f32 {
        let (h, l) = __weft_h_fast_two_sum_f32(s, t);
        let sc = __weft_h_pow2i_f32(kf);
        let eh = h * sc;
        let el = l * sc;
        0.5_f32 * (eh + (el - 1.0_f32 / eh))
    } else {
        __weft_h_ldexp_f32(s + t, kf - 1.0_f32)
    };
    __weft_h_copysign_f32(r, x)
}

/// Hyperbolic cosine (weft-math `cosh`).
#[weft::func]
pub fn __weft_cosh_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 0.000_244_140_63_f32 {
        return 1.0_f32;
    }
    if ax > 89.5_f32 {
        return f32_from_bits(0x7f80_0000_u32);
    }
    let (s, t, kf) = __weft_h_exp_core_f32(ax);
    if ax < 12.0_f32 {
        let (h, l) = __weft_h_fast_two_sum_f32(s, t);
        let sc = __weft_h_pow2i_f32(kf);
        let eh = h * sc;
        let el = l * sc;
        0.5_f32 * (eh + (el + 1.0_f32 / eh))
    } else {
        __weft_h_ldexp_f32(s + t, kf - 1.0_f32)
    }
}

/// Hyperbolic tangent (weft-math `tanh`).
#[weft::func]
pub fn __weft_tanh_f32(x: f32) -> f32 {
    if __weft_h_is_nan_f32(x) {
        return x;
    }
    let ax = abs(x);
    if ax < 0.549_3_f32 {
        if ax < 0.000_122_070_31_f32 {
            return x;
        }
        let u = x * x;
        return x + x
            * u
            * (-0.333_333_16_f32
                + u * (0.133_325_92_f32
                    + u * (-0.053_852_99_f32
                        + u * (0.021_074_684_f32 + u * -0.006_278_763_5_f32))));
    }
    if ax > 9.1_f32 {
        return __weft_h_copysign_f32(1.0_f32, x);
    }
    let (s, t, kf) = __weft_h_exp_core_f32(2.0_f32 * ax);
    let (h, l) = __weft_h_fast_two_sum_f32(s, t);
    let sc = __weft_h_pow2i_f32(kf);
    let (dh, dl0) = __weft_h_fast_two_sum_f32(h * sc, 1.0_f32);
    let dl = dl0 + l * sc;
    let q = 2.0_f32 / dh;
    let corr = q * dl * (0.5_f32 * q);
    let (hi, lo) = __weft_h_fast_two_sum_f32(1.0_f32, -q);
    __weft_h_copysign_f32(hi + (lo + corr), x)
}

// ---------------------------------------------------------------------------
// Power
// ---------------------------------------------------------------------------

/// Round to nearest, ties to even, for `|x| < 2^51` (`f64`, for `pow`).
#[weft::func]
pub fn __weft_h_pow_rint_f32(x: f64) -> f64 {
    (x + 6_755_399_441_055_744.0_f64) - 6_755_399_441_055_744.0_f64
}

/// `x * 2^n` for `f64` with one rounding (`n` an integral `f64`), for `pow`.
#[weft::func]
pub fn __weft_h_pow_ldexp_f32(x: f64, nf: f64) -> f64 {
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

/// `log2(x)` to ~2^-44 relative for positive normal `x`.
#[weft::func]
pub fn __weft_h_pow_log2_f32(x: f64) -> f64 {
    let mut u = f64_to_bits(x);
    u += 0x3ff0_0000_0000_0000_u64 - 0x3fe6_a09e_667f_3bcd_u64;
    let k = (u >> 52) as i32 - 1023;
    u = (u & 0x000f_ffff_ffff_ffff_u64) + 0x3fe6_a09e_667f_3bcd_u64;
    let f = f64_from_bits(u) - 1.0_f64;
    let s = f / (2.0_f64 + f);
    let w = s * s;
    let r = 0.666_666_666_758_616_6_f64
        + w * (0.399_999_955_970_643_53_f64
            + w * (0.285_721_121_861_120_3_f64
                + w * (0.221_760_466_019_986_72_f64 + w * 0.195_864_061_798_717_63_f64)));
    (k as f64) + (2.0_f64 * s + s * w * r) * 1.442_695_040_888_963_4_f64
}

/// `2^t` to ~2^-43 relative for `|t| <= 1000`.
#[weft::func]
pub fn __weft_h_pow_exp2_f32(t: f64) -> f64 {
    let n = __weft_h_pow_rint_f32(t);
    let r = t - n;
    let p = 0.693_147_180_558_550_5_f64
        + r * (0.240_226_506_958_137_08_f64
            + r * (0.055_504_108_739_712_33_f64
                + r * (0.009_618_129_159_172_746_f64
                    + r * (0.001_333_354_733_145_767_8_f64
                        + r * (0.000_154_034_560_362_332_32_f64
                            + r * (1.525_849_306_321_938_9e-5_f64
                                + r * (1.325_518_288_220_549_5e-6_f64
                                    + r * 9.168_119_900_136_945e-8_f64)))))));
    __weft_h_pow_ldexp_f32(1.0_f64 + r * p, n)
}

/// Classifies `y`: 0 = not an integer, 1 = odd integer, 2 = even integer.
#[weft::func]
pub fn __weft_h_integer_kind_f32(y: f32) -> i32 {
    if trunc(y) != y {
        0_i32
    } else if abs(y) >= 16_777_216.0_f32 {
        2_i32
    } else if ((abs(y) as i32) & 1_i32) == 1_i32 {
        1_i32
    } else {
        2_i32
    }
}

/// `x^y` with C99 `powf` special cases (weft-math `pow`).
#[weft::func]
pub fn __weft_pow_f32(x: f32, y: f32) -> f32 {
    if y == 0.0_f32 || x == 1.0_f32 {
        return 1.0_f32;
    }
    if __weft_h_is_nan_f32(x) || __weft_h_is_nan_f32(y) {
        return x + y;
    }
    let ax = abs(x);
    if __weft_h_is_inf_f32(y) {
        if ax == 1.0_f32 {
            return 1.0_f32;
        }
        if (ax > 1.0_f32) == (y > 0.0_f32) {
            return f32_from_bits(0x7f80_0000_u32);
        }
        return 0.0_f32;
    }
    let kind = __weft_h_integer_kind_f32(y);
    if ax == 0.0_f32 {
        if y < 0.0_f32 {
            if kind == 1_i32 {
                return __weft_h_copysign_f32(f32_from_bits(0x7f80_0000_u32), x);
            }
            return f32_from_bits(0x7f80_0000_u32);
        }
        if kind == 1_i32 {
            return x;
        }
        return 0.0_f32;
    }
    if __weft_h_is_inf_f32(ax) {
        let neg_odd = x < 0.0_f32 && kind == 1_i32;
        if y < 0.0_f32 {
            if neg_odd {
                return -0.0_f32;
            }
            return 0.0_f32;
        }
        if neg_odd {
            return x;
        }
        return f32_from_bits(0x7f80_0000_u32);
    }
    let mut sign = 1.0_f32;
    if x < 0.0_f32 {
        if kind == 0_i32 {
            return f32_from_bits(0x7fc0_0000_u32);
        }
        if kind == 1_i32 {
            sign = -1.0_f32;
        }
    }
    // clamp_f64(y log2|x|, -400, 400)
    let t0 = (y as f64) * __weft_h_pow_log2_f32(ax as f64);
    let t = if t0 < -400.0_f64 {
        -400.0_f64
    } else if t0 > 400.0_f64 {
        400.0_f64
    } else {
        t0
    };
    sign * (__weft_h_pow_exp2_f32(t) as f32)
}

// ---------------------------------------------------------------------------
// Cube root
// ---------------------------------------------------------------------------

/// Cube root (weft-math `cbrt`).
#[weft::func]
pub fn __weft_cbrt_f32(x: f32) -> f32 {
    if x == 0.0_f32 || !__weft_h_is_finite_f32(x) {
        return x;
    }
    let mut ub = f32_to_bits(x) & 0x7fff_ffff_u32;
    let mut a = f32_from_bits(ub);
    let mut scale = 1.0_f32;
    if ub < 0x0d80_0000_u32 {
        a *= 281_474_976_710_656.0_f32; // 2^48
        scale = 1.525_878_9e-5_f32; // 2^-16
        ub = f32_to_bits(a);
    } else if ub > 0x7e00_0000_u32 {
        a *= 5.960_464_5e-8_f32; // 2^-24
        scale = 256.0_f32;
        ub = f32_to_bits(a);
    }
    let mut y = f32_from_bits(ub / 3_u32 + 709_958_130_u32);
    y -= (y * y * y - a) / (3.0_f32 * y * y);
    y -= (y * y * y - a) / (3.0_f32 * y * y);
    let (y2, y2e) = __weft_h_two_prod_f32(y, y);
    let (y3, y3e) = __weft_h_two_prod_f32(y2, y);
    let res = (a - y3) - (y3e + y2e * y);
    y += res / (3.0_f32 * y2);
    __weft_h_copysign_f32(y * scale, x)
}
