//! Bit reinterpretation between floats and unsigned integers.
//!
//! These four functions are the *only* place where the crate looks at the
//! bit pattern of a float through the standard library; the kernel compiler
//! lowers them to IR builtins (`mov.b32` / `mov.b64` on PTX).

/// Returns the IEEE-754 bit pattern of `x`.
///
/// ```
/// assert_eq!(weft_math::f32_to_bits(1.0), 0x3f80_0000);
/// ```
#[inline]
pub fn f32_to_bits(x: f32) -> u32 {
    x.to_bits()
}

/// Builds an `f32` from its IEEE-754 bit pattern.
///
/// ```
/// assert_eq!(weft_math::f32_from_bits(0x3f80_0000), 1.0);
/// ```
#[inline]
pub fn f32_from_bits(u: u32) -> f32 {
    f32::from_bits(u)
}

/// Returns the IEEE-754 bit pattern of `x`.
///
/// ```
/// assert_eq!(weft_math::f64_to_bits(1.0), 0x3ff0_0000_0000_0000);
/// ```
#[inline]
pub fn f64_to_bits(x: f64) -> u64 {
    x.to_bits()
}

/// Builds an `f64` from its IEEE-754 bit pattern.
///
/// ```
/// assert_eq!(weft_math::f64_from_bits(0x3ff0_0000_0000_0000), 1.0);
/// ```
#[inline]
pub fn f64_from_bits(u: u64) -> f64 {
    f64::from_bits(u)
}
