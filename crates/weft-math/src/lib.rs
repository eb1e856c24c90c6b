//! Accurate elementary functions shared by Weft's CPU and GPU back ends.
//!
//! PTX only offers `.approx` versions of `sin`, `cos`, `ex2` and `lg2`, so
//! Weft implements the elementary functions itself, **once**: they are written
//! in the kernel language in `dsl/f32.rs` and `dsl/f64.rs` ([`dsl`]). This
//! crate compiles those files as Rust (its build script only turns each
//! `#[weft::func]` into `#[inline]`), so the CPU back end calls them as plain
//! functions, and the kernel macro lowers the *same files* to IR and PTX.
//! Results are therefore bit-identical on both back ends, and a fix is made in
//! one place.
//!
//! # Kernel subset
//!
//! The sources are free functions over scalars (`f32 f64 i32 u32 i64 u64
//! bool`, tuples as return values), `let`/`if`/`while`/`for`/`return`,
//! arithmetic, comparisons, `as` casts and calls to each other and to the
//! builtins `abs`, `sqrt`, `trunc`, [`f32_to_bits`], [`f32_from_bits`],
//! [`f64_to_bits`] and [`f64_from_bits`] (bound to this crate's versions when
//! compiled as Rust). No method calls, no `std`/`core` math, no constants or
//! tables (the bits of `2/pi` are selected with `if` chains), no fused
//! multiply-add (the PTX emitter uses `.rn` operations without contraction).
//! A func outside the subset makes every kernel fail to compile with an error
//! naming it. The rest of the crate (`sqrt`, rounding, `min`/`max`/`clamp`,
//! the random numbers) is plain Rust, mapped to PTX instructions or emitted
//! operation for operation by the PTX back end.
//!
//! # Accuracy
//!
//! Bounds are in ulp, as the distance from the correctly rounded result.
//! Every unary `f32` function was checked **exhaustively** (all 2^32 inputs)
//! against the `f64` `std` result rounded to `f32`; `atan2` and `pow` on
//! millions of random and structured pairs; `tests/ulp.rs` repeats a
//! ~5-million-input sweep per function and prints the table. The `f64`
//! functions are tested against `std` (within one extra ulp, since `std` is
//! itself ~1 ulp) and were spot-checked with a 60-digit reference (all
//! below 0.8 ulp).
//!
//! | functions | `f32` | `f64` |
//! |---|---|---|
//! | `abs copysign floor ceil round trunc min max clamp sign` | exact | exact |
//! | `sqrt` | correctly rounded | correctly rounded |
//! | `sin cos sincos tan`, `asin acos atan atan2` | 1 | 2 |
//! | `exp exp2 log log2 log10 pow`, `sinh cosh tanh` | 1 | 2 |
//! | `cbrt` | 1 | 1 |
//!
//! All `f32` functions evaluate in plain `f32` except `pow` (`f64` inside,
//! see its docs) and the rare huge-argument path of the trigonometric
//! reduction (one `f64` multiplication, `|x| >= 400`).
//!
//! Special values follow IEEE-754 / C99 Annex F (NaN propagation, signed
//! zeros, infinities, overflow and gradual underflow).
//!
//! ```
//! use weft_math::{exp, log, sin, cos};
//! let x = 0.75_f32;
//! assert!((sin(x) * sin(x) + cos(x) * cos(x) - 1.0).abs() <= 2.0 * f32::EPSILON);
//! assert!((exp(log(x)) - x).abs() <= 2.0 * f32::EPSILON);
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]
// Kernel code cannot refer to `core::f32::consts`, so constants are spelled
// out as literals.
#![allow(clippy::approx_constant)]

mod bits;
mod classify;
mod compiled;
pub mod dsl;
mod elementary;
mod elementary_f64;
mod random;
mod roots;
mod rounding;
mod scale;
mod wide_int;

pub use bits::{f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits};
pub use classify::{is_finite, is_finite_f64, is_inf, is_inf_f64, is_nan, is_nan_f64};
pub use elementary::{
    acos, asin, atan, atan2, cbrt, cos, cosh, exp, exp2, log, log2, log10, pow, sin, sincos, sinh,
    tan, tanh,
};
pub use elementary_f64::{
    acos_f64, asin_f64, atan_f64, atan2_f64, cbrt_f64, cos_f64, cosh_f64, exp_f64, exp2_f64,
    log_f64, log2_f64, log10_f64, pow_f64, sin_f64, sincos_f64, sinh_f64, tan_f64, tanh_f64,
};
pub use random::{pcg_hash, rand_init, randf, randf_range, randi, randn};
pub use roots::{sqrt, sqrt_f64};
pub use rounding::{
    abs, abs_f64, ceil, ceil_f64, clamp, clamp_f64, copysign, copysign_f64, floor, floor_f64, max,
    max_f64, min, min_f64, round, round_f64, sign, sign_f64, trunc, trunc_f64,
};
pub use scale::{ldexp, ldexp_f64};
