//! General-purpose funcs usable from any kernel: `use weft::funcs::lerp;`.
//!
//! They are ordinary `#[func]`s of this crate, and so also show how funcs are
//! shared across crates: importing one brings its definition to your kernels. They
//! are defined against this crate's `__private` module (`crate = crate`), which
//! the facade re-exports: a func does not care which path a kernel names it by.

use weft_macros::func;
use weft_types::Vec3;

/// Linear interpolation `a + (b - a) * t`.
#[func(crate = crate)]
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// Linear interpolation of vectors.
#[func(crate = crate)]
pub fn lerp3(a: Vec3, b: Vec3, t: f32) -> Vec3 {
    a + (b - a) * t
}

/// Hermite smoothstep: 0 below `e0`, 1 above `e1`, smooth in between.
#[func(crate = crate)]
pub fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = clamp((x - e0) / (e1 - e0), 0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The component of `v` along the unit vector `n`, and the rest: `(normal, tangent)`.
#[func(crate = crate)]
pub fn split_normal(v: Vec3, n: Vec3) -> (Vec3, Vec3) {
    let vn = n * dot(v, n);
    (vn, v - vn)
}
