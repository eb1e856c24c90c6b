//! Random numbers: a `u32` state threaded through `&mut`, wrapping `weft_math::random`
//! (the same generator on the CPU and the GPU).

use crate::math_shim::random as r;

/// A fresh generator state from a `seed` and an `offset` (typically the thread index),
/// via `weft_math::random::rand_init`.
#[inline]
pub fn rand_init(seed: u32, offset: u32) -> u32 {
    r::rand_init(seed, offset)
}

/// A uniformly distributed `u32`; advances `state`.
#[inline]
pub fn randi(state: &mut u32) -> u32 {
    let (s, v) = r::randi(*state);
    *state = s;
    v
}

/// A uniform `f32` in `[0, 1)`; advances `state`.
#[inline]
pub fn randf(state: &mut u32) -> f32 {
    let (s, v) = r::randf(*state);
    *state = s;
    v
}

/// A uniform `f32` in `[lo, hi)` as `weft_math::random::randf_range` defines it;
/// advances `state`.
#[inline]
pub fn randf_range(state: &mut u32, lo: f32, hi: f32) -> f32 {
    let (s, v) = r::randf_range(*state, lo, hi);
    *state = s;
    v
}

/// A standard normal `f32` (mean 0, variance 1); advances `state`.
#[inline]
pub fn randn(state: &mut u32) -> f32 {
    let (s, v) = r::randn(*state);
    *state = s;
    v
}
