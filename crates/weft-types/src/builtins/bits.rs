//! Bit casts between floats and unsigned integers (exact, NaN payloads preserved).

/// The IEEE 754 bits of `x`.
#[inline]
pub fn f32_to_bits(x: f32) -> u32 {
    x.to_bits()
}

/// The `f32` whose IEEE 754 bits are `b`.
#[inline]
pub fn f32_from_bits(b: u32) -> f32 {
    f32::from_bits(b)
}

/// The IEEE 754 bits of `x`.
#[inline]
pub fn f64_to_bits(x: f64) -> u64 {
    x.to_bits()
}

/// The `f64` whose IEEE 754 bits are `b`.
#[inline]
pub fn f64_from_bits(b: u64) -> f64 {
    f64::from_bits(b)
}
