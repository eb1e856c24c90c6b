//! Counter-friendly pseudo-random numbers (PCG-RXS-M-XS-32).
//!
//! # Algorithm
//!
//! The state is one `u32` advanced by the LCG `s' = 747796405 s + 2891336453
//! (mod 2^32)`, which has full period 2^32. Each draw outputs PCG's
//! RXS-M-XS permutation of the *old* state:
//! `w = ((s >> ((s >> 28) + 4)) ^ s) * 277803737; out = (w >> 22) ^ w`.
//! The permutation is a bijection of `u32`, so it also serves as a hash
//! (`pcg_hash(x) = permute(lcg(x))`).
//!
//! # Streams
//!
//! `rand_init(seed, offset)` returns the starting state
//! `pcg_hash(seed ^ pcg_hash(offset))`. For a fixed seed this is a bijection
//! of `offset`, so every offset (typically the thread index) gets a
//! different starting point on the single 2^32 cycle, scattered
//! pseudo-randomly; streams are statistically independent as long as each
//! thread draws far fewer than `2^32 / threads` numbers (the streams are
//! segments of one cycle, like in NVIDIA Warp). Everything is deterministic:
//! the same `(seed, offset)` always yields the same sequence on every back
//! end.
//!
//! Functions take the state and return `(new_state, value)`; the kernel
//! language wraps this in a `&mut state` form.
//!
//! ```
//! use weft_math::{rand_init, randf};
//! let s = rand_init(42, 7);
//! let (s, a) = randf(s);
//! let (_s, b) = randf(s);
//! assert!((0.0..1.0).contains(&a) && (0.0..1.0).contains(&b));
//! ```

use crate::elementary::{cos, log};
use crate::roots::sqrt;
use crate::wide_int::{wrapping_add_u32, wrapping_mul_u32};

/// LCG multiplier.
pub const PCG_MULT: u32 = 747_796_405_u32;
/// LCG increment (odd, so the period is 2^32).
pub const PCG_INC: u32 = 2_891_336_453_u32;
/// Multiplier of the RXS-M-XS output permutation.
pub const PCG_OUT_MULT: u32 = 277_803_737_u32;
/// `2 pi` rounded to `f32`.
pub const TWO_PI_F32: f32 = 6.283_185_5_f32;

/// Advances the LCG state by one step.
#[inline]
pub fn pcg_step(state: u32) -> u32 {
    wrapping_add_u32(wrapping_mul_u32(state, PCG_MULT), PCG_INC)
}

/// PCG's RXS-M-XS output permutation (a bijection of `u32`).
#[inline]
pub fn pcg_output(state: u32) -> u32 {
    let shift = (state >> 28) + 4_u32;
    let word = wrapping_mul_u32((state >> shift) ^ state, PCG_OUT_MULT);
    (word >> 22) ^ word
}

/// A fast bijective 32-bit hash: `pcg_output(pcg_step(x))`.
///
/// ```
/// assert_ne!(weft_math::pcg_hash(0), weft_math::pcg_hash(1));
/// ```
#[inline]
pub fn pcg_hash(x: u32) -> u32 {
    pcg_output(pcg_step(x))
}

/// Starting state of stream `offset` of `seed` (see the module docs).
///
/// ```
/// assert_eq!(weft_math::rand_init(1, 2), weft_math::rand_init(1, 2));
/// assert_ne!(weft_math::rand_init(1, 2), weft_math::rand_init(1, 3));
/// ```
#[inline]
pub fn rand_init(seed: u32, offset: u32) -> u32 {
    pcg_hash(seed ^ pcg_hash(offset))
}

/// Draws a uniformly distributed `u32`: returns `(new_state, value)`.
///
/// ```
/// let (s, v) = weft_math::randi(weft_math::rand_init(0, 0));
/// assert_ne!(s, weft_math::rand_init(0, 0));
/// # let _ = v;
/// ```
#[inline]
pub fn randi(state: u32) -> (u32, u32) {
    (pcg_step(state), pcg_output(state))
}

/// Draws a uniform `f32` in `[0, 1)` with 24 random bits (multiples of
/// `2^-24`): returns `(new_state, value)`.
///
/// ```
/// let (_, u) = weft_math::randf(weft_math::rand_init(3, 0));
/// assert!((0.0..1.0).contains(&u));
/// ```
#[inline]
pub fn randf(state: u32) -> (u32, f32) {
    let (s, v) = randi(state);
    (s, ((v >> 8) as f32) * 5.960_464_5e-8_f32)
}

/// Draws a uniform `f32` in `[lo, hi)`, computed as `lo + (hi - lo) u`
/// (rounding may return `hi` itself when the interval is wide relative to
/// the spacing of floats near `hi`): returns `(new_state, value)`.
///
/// ```
/// let (_, v) = weft_math::randf_range(weft_math::rand_init(3, 0), -2.0, 5.0);
/// assert!((-2.0..=5.0).contains(&v));
/// ```
#[inline]
pub fn randf_range(state: u32, lo: f32, hi: f32) -> (u32, f32) {
    let (s, u) = randf(state);
    (s, lo + (hi - lo) * u)
}

/// Draws a standard normal `f32` (mean 0, variance 1) with the Box–Muller
/// transform `sqrt(-2 ln u1) cos(2 pi u2)`, consuming two uniform draws;
/// `u1` is taken in `(0, 1]` so the result is always finite
/// (`|value| <= 5.8`): returns `(new_state, value)`.
///
/// ```
/// let (_, z) = weft_math::randn(weft_math::rand_init(9, 1));
/// assert!(z.is_finite());
/// ```
#[inline]
pub fn randn(state: u32) -> (u32, f32) {
    let (s1, u1) = randf(state);
    let (s2, u2) = randf(s1);
    let r = sqrt(-2.0_f32 * log(1.0_f32 - u1));
    (s2, r * cos(TWO_PI_F32 * u2))
}
