//! Wrapping and wide integer helpers.
//!
//! Kernel code may not rely on `wrapping_*` methods and plain `+`/`*` panic
//! on overflow in debug builds, so modular 64-bit arithmetic is spelled out
//! with 32-bit limbs here.

pub const MASK32: u64 = 0xffff_ffff_u64;
pub const MAX64: u64 = 0xffff_ffff_ffff_ffff_u64;

/// `a + b` modulo `2^64`.
#[inline]
pub fn wrapping_add_u64(a: u64, b: u64) -> u64 {
    if a > MAX64 - b {
        a - (MAX64 - b) - 1_u64
    } else {
        a + b
    }
}

/// `a - b` modulo `2^64`.
#[inline]
pub fn wrapping_sub_u64(a: u64, b: u64) -> u64 {
    if a >= b {
        a - b
    } else {
        a + (MAX64 - b) + 1_u64
    }
}

/// `a * b` modulo `2^64`.
#[inline]
pub fn wrapping_mul_u64(a: u64, b: u64) -> u64 {
    let al = a & MASK32;
    let ah = a >> 32;
    let bl = b & MASK32;
    let bh = b >> 32;
    let cross = (((ah * bl) & MASK32) + ((al * bh) & MASK32)) & MASK32;
    wrapping_add_u64(al * bl, cross << 32)
}

/// `a * b` modulo `2^32`.
#[inline]
pub fn wrapping_mul_u32(a: u32, b: u32) -> u32 {
    (((a as u64) * (b as u64)) & MASK32) as u32
}

/// `a + b` modulo `2^32`.
#[inline]
pub fn wrapping_add_u32(a: u32, b: u32) -> u32 {
    (((a as u64) + (b as u64)) & MASK32) as u32
}
