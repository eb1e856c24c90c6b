//! # Weft
//!
//! Differentiable physics simulation with kernels written in Rust. A kernel is a
//! function in a small, checked subset of Rust; `#[weft::kernel]` compiles it at
//! build time into native code for the CPU (and, later, PTX for NVIDIA GPUs) and
//! generates a typed `launch` for it.
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
//! See the README for the language: types, builtins, control flow, errors, and how
//! funcs and structs are shared across modules and crates.

#![deny(missing_docs)]
extern crate self as weft;

pub use weft_macros::{func, kernel, structure};
pub use weft_runtime::{Array, Device, Dims, Error};
pub use weft_types::*;

pub mod funcs;

/// The accurate elementary functions shared by all back ends.
pub use weft_math as math;

/// Everything a kernel file usually needs.
pub mod prelude {
    pub use crate::{Array, Device, Dims, Error, func, kernel, structure};
    pub use weft_types::{
        DMat2, DMat3, DMat4, DQuat, DSpatialMatrix, DSpatialVector, DTransform, DVec2, DVec3,
        DVec4, IVec2, IVec3, IVec4, Mat2, Mat3, Mat4, Quat, SpatialMatrix, SpatialVector,
        Transform, UVec2, UVec3, UVec4, Vec2, Vec3, Vec4,
    };
}

/// Items used by generated code; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use bytemuck;
    pub use weft_macros::__chain;
    pub use weft_runtime::{
        Accum, AdjointStack, Array, ArrayView, AtomicElem, Device, Dims, Elem, Error, KernelStruct,
        KernelZero, adj_splat, component, cpu, mat_elem, with_component, with_mat_elem,
    };
    pub use weft_types as types;
    pub use weft_types::adjoint;
    pub use weft_types::builtins;
}

/// The README's examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
