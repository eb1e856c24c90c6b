//! The kernel-language sources of the elementary functions (`dsl/f32.rs`,
//! `dsl/f64.rs`, see [`crate::dsl`]) compiled as Rust: the one implementation
//! of `sin`, `exp`, `pow`, … that both back ends use.
//!
//! The build script rewrites each `#[weft::func]` to `#[inline]` and nothing
//! else; here the kernel builtins the sources call (`abs`, `sqrt`, `trunc` and
//! the bit casts) are bound to this crate's functions, which give the same
//! results as the kernel builtins (exact, or correctly rounded). The public
//! functions of the crate (`elementary.rs`, `elementary_f64.rs`) wrap the entry
//! points `__weft_<name>_f32` / `__weft_<name>_f64`.

// Kernel code spells out with `if` what Rust has methods for (the `f32` `pow`
// clamps its `f64` exponent so).
#![allow(clippy::manual_clamp)]

/// The `f32` functions (`dsl/f32.rs`).
pub mod f32_src {
    use crate::bits::{f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits};
    use crate::roots::sqrt;
    use crate::rounding::{abs, trunc};

    include!(concat!(env!("OUT_DIR"), "/f32.rs"));
}

/// The `f64` functions (`dsl/f64.rs`).
pub mod f64_src {
    use crate::bits::{f64_from_bits, f64_to_bits};
    use crate::roots::sqrt_f64 as sqrt;
    use crate::rounding::{abs_f64 as abs, trunc_f64 as trunc};

    include!(concat!(env!("OUT_DIR"), "/f64.rs"));
}
