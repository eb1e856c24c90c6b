//! # Weft
//!
//! Differentiable physics simulation with kernels written in Rust. A kernel is a
//! function in a small, checked subset of Rust; `#[weft::kernel]` compiles it at
//! build time into native code for the CPU and into PTX for NVIDIA GPUs, and
//! generates a typed `launch` for it that runs on the device its arrays live on.
//!
//! ```
//! use weft::prelude::*;
//!
//! #[weft::kernel]
//! fn integrate(x: &mut Array<Vec3>, v: &Array<Vec3>, dt: f32) {
//!     let i = tid();
//!     x[i] = x[i] + v[i] * dt;
//! }
//!
//! let mut x = Array::from_slice(Device::Cpu, &[Vec3::ZERO; 4]);
//! let v = Array::from_slice(Device::Cpu, &[Vec3::X; 4]);
//! integrate::launch(4, &mut x, &v, 0.5).unwrap();
//! assert_eq!(x.to_vec()[3], Vec3::new(0.5, 0.0, 0.0));
//! ```
//!
//! Gradients: launches made inside [`Tape::record`] are recorded, and
//! [`Tape::backward`] runs their adjoints in reverse, accumulating into the
//! gradients of arrays created with [`Array::requires_grad`]:
//!
//! ```
//! use weft::prelude::*;
//!
//! #[weft::kernel]
//! fn square(x: &Array<f32>, y: &mut Array<f32>) {
//!     let i = tid();
//!     y[i] = x[i] * x[i];
//! }
//!
//! let x = Array::from_slice(Device::Cpu, &[1.0f32, 2.0, 3.0]).requires_grad();
//! let mut y = Array::zeros(Device::Cpu, [3]).requires_grad();
//! let mut tape = Tape::new();
//! tape.record(|| square::launch(3, &x, &mut y)).unwrap();
//! tape.backward_from(&mut y, &[1.0, 1.0, 1.0]).unwrap();
//! assert_eq!(x.grad_to_vec().unwrap(), vec![2.0, 4.0, 6.0]);
//! ```
//!
//! See the README for the language: types, builtins, control flow, errors, and how
//! funcs and structs are shared across modules and crates.

#![deny(missing_docs)]

pub use weft_macros::{func, kernel, structure};
/// The CPU back end: how launches accumulate atomic adds (`set_accumulate`,
/// `with_accumulate`, `Accumulate`).
pub use weft_runtime::cpu;
/// The CUDA back end: availability, graphs, events, module statistics.
pub use weft_runtime::cuda;
pub use weft_runtime::funcs;
pub use weft_runtime::{
    Array, CheckNanScope, Device, Dims, Error, GradCheck, Tape, check_nan, check_nan_scope,
    gradcheck, set_check_nan,
};
pub use weft_types::*;

/// Geometry queries inside kernels (the `geom` feature, on by default): meshes, BVHs
/// and hash grids on a device, and the funcs that query them.
#[cfg(feature = "geom")]
pub use weft_geom::device as geom;

/// The accurate elementary functions shared by all back ends.
pub use weft_math as math;

/// Everything a kernel file usually needs.
pub mod prelude {
    pub use crate::{Array, Device, Dims, Error, Tape, func, gradcheck, kernel, structure};
    pub use weft_types::{
        DMat2, DMat3, DMat4, DQuat, DSpatialMatrix, DSpatialVector, DTransform, DVec2, DVec3,
        DVec4, IVec2, IVec3, IVec4, Mat2, Mat3, Mat4, Quat, SpatialMatrix, SpatialVector,
        Transform, UVec2, UVec3, UVec4, Vec2, Vec3, Vec4,
    };
}

/// Items used by generated code (`::weft::__private`); not part of the public API.
/// Defined in `weft-runtime`, so items written with `crate = ::weft_runtime` and
/// items written against the facade share them.
#[doc(hidden)]
pub use weft_runtime::__private;

/// The README's examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
