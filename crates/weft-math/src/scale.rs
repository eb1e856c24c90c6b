//! Exact scaling by powers of two (`ldexp`).

use crate::bits::{f32_from_bits, f64_from_bits};

/// Returns `x * 2^n`, rounding only once even when the result is subnormal;
/// overflows to `±inf` and underflows to `±0` like IEEE multiplication.
///
/// ```
/// assert_eq!(weft_math::ldexp(3.0, 4), 48.0);
/// assert_eq!(weft_math::ldexp(1.0, -149), f32::from_bits(1));
/// ```
#[inline]
pub fn ldexp(x: f32, n: i32) -> f32 {
    let mut y = x;
    let mut k = n;
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
        // 2^-126 * 2^24: keeps the intermediate normal so that the final
        // multiplication is the only rounding step.
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

/// Returns `x * 2^n` for `f64`, rounding only once (see [`ldexp`]).
///
/// ```
/// assert_eq!(weft_math::ldexp_f64(3.0, 4), 48.0);
/// assert_eq!(weft_math::ldexp_f64(1.0, -1074), f64::from_bits(1));
/// ```
#[inline]
pub fn ldexp_f64(x: f64, n: i32) -> f64 {
    let mut y = x;
    let mut k = n;
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
        y *= f64_from_bits(0x0360_0000_0000_0000_u64); // 2^-969 = 2^-1022 * 2^53
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
