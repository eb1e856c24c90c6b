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
extern crate self as weft;

pub use weft_macros::{func, kernel, structure};
/// The CPU back end: how launches accumulate atomic adds (`set_accumulate`,
/// `with_accumulate`, `Accumulate`).
pub use weft_runtime::cpu;
/// The CUDA back end: availability, graphs, events, module statistics.
pub use weft_runtime::cuda;
pub use weft_runtime::{
    Array, CheckNanScope, Device, Dims, Error, GradCheck, Tape, check_nan, check_nan_scope,
    gradcheck, set_check_nan,
};
pub use weft_types::*;

pub mod funcs;
pub mod geom;

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

/// Items used by generated code; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use bytemuck;
    pub use weft_macros::__chain;
    pub use weft_runtime::{
        Accum, AdjointStack, Array, ArrayView, AtomicElem, BorrowGuard, Device, Dims, Elem, Error,
        KernelStruct, KernelZero, adj_splat, component, cpu, cuda, mat_elem, nan_check, pack, tape,
        with_component, with_mat_elem,
    };
    pub use weft_types as types;
    pub use weft_types::adjoint;
    pub use weft_types::builtins;

    /// Names a structure from another item's site: every func (through its hidden
    /// adjoint struct) and structure implements `Named<ID>` for the structures of its
    /// interface, `ID` hashing the structure's name, so a kernel that calls
    /// `hash_grid_query` names its result `<hash_grid_query as Named<ID>>::T` without
    /// the user importing `HashGridQuery`.
    pub trait Named<const ID: u64> {
        /// The structure.
        type T;
    }
}

/// The README's examples, compiled and run as doc tests so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
