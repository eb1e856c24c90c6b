//! Value types of Weft's kernel language and the CPU implementations of its builtins.
//!
//! * Vectors, matrices and quaternions are [`glam`]'s, re-exported here, so host code
//!   and kernels share one set of types ([`Vec3`] is 12 bytes, [`Quat`] is `(x, y, z, w)`,
//!   matrices are column-major).
//! * [`Transform`], [`SpatialVector`] and [`SpatialMatrix`] (and their `D` f64 twins) are
//!   defined here.
//! * [`builtins`] holds one generic function per kernel builtin; generated CPU kernel code
//!   calls them, and the PTX back end reproduces their documented operation order.
//!
//! # Floating-point contract
//!
//! Every builtin documents the exact sequence of IEEE operations it performs (sums are
//! evaluated left to right, no fused multiply-add, `sqrt` correctly rounded, elementary
//! functions from `weft_math`). rustc never contracts `a * b + c` into an FMA, so the CPU
//! results are reproducible bit for bit by a back end that follows the same order with
//! round-to-nearest `mul`/`add` instructions. A kernel fuses only where it calls the
//! `fma` builtin, which is IEEE's correctly rounded fused multiply-add everywhere.
//!
//! # Memory layout
//!
//! The PTX back end relies on these sizes and alignments (bytes), checked by the
//! `layout` test:
//!
//! | type | size | align | | type | size | align |
//! |---|---|---|---|---|---|---|
//! | `Vec2` | 8 | 4 | | `DVec2` | 16 | 8 |
//! | `Vec3` | 12 | 4 | | `DVec3` | 24 | 8 |
//! | `Vec4` | 16 | 16 | | `DVec4` | 32 | 8 |
//! | `IVec2`/`UVec2` | 8 | 4 | | `I64Vec2`/`U64Vec2` | 16 | 8 |
//! | `IVec3`/`UVec3` | 12 | 4 | | `I64Vec3`/`U64Vec3` | 24 | 8 |
//! | `IVec4`/`UVec4` | 16 | 4 | | `I64Vec4`/`U64Vec4` | 32 | 8 |
//! | `Mat2` | 16 | 16 | | `DMat2` | 32 | 8 |
//! | `Mat3` | 36 | 4 | | `DMat3` | 72 | 8 |
//! | `Mat4` | 64 | 16 | | `DMat4` | 128 | 8 |
//! | `Quat` | 16 | 16 | | `DQuat` | 32 | 8 |
//! | `Transform` | 32 | 16 | | `DTransform` | 56 | 8 |
//! | `SpatialVector` | 24 | 4 | | `DSpatialVector` | 48 | 8 |
//! | `SpatialMatrix` | 144 | 4 | | `DSpatialMatrix` | 288 | 8 |
//!
//! `Transform` has 4 bytes of padding after `p` (offset 12..16) because `Quat` is
//! 16-byte aligned; it is therefore [`bytemuck::Zeroable`] but not [`bytemuck::Pod`].
//! Every other type here is `Pod`.
//!
//! ```
//! use weft_types::builtins::{cross, dot, transform_point};
//! use weft_types::{Quat, Transform, Vec3};
//!
//! assert_eq!(dot(Vec3::X, Vec3::new(2.0, 3.0, 4.0)), 2.0);
//! assert_eq!(cross(Vec3::X, Vec3::Y), Vec3::Z);
//! let t = Transform::new(Vec3::new(1.0, 0.0, 0.0), Quat::IDENTITY);
//! assert_eq!(transform_point(t, Vec3::ONE), Vec3::new(2.0, 1.0, 1.0));
//! ```

#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub use glam;
pub use glam::{
    DMat2, DMat3, DMat4, DQuat, DVec2, DVec3, DVec4, I64Vec2, I64Vec3, I64Vec4, IVec2, IVec3,
    IVec4, Mat2, Mat3, Mat4, Quat, U64Vec2, U64Vec3, U64Vec4, UVec2, UVec3, UVec4, Vec2, Vec3,
    Vec4,
};

/// The kernel language's name for [`Mat2`] (2×2 f32, column-major).
pub type Mat22 = Mat2;
/// The kernel language's name for [`Mat3`] (3×3 f32, column-major).
pub type Mat33 = Mat3;
/// The kernel language's name for [`Mat4`] (4×4 f32, column-major).
pub type Mat44 = Mat4;
/// The kernel language's name for [`DMat2`] (2×2 f64, column-major).
pub type DMat22 = DMat2;
/// The kernel language's name for [`DMat3`] (3×3 f64, column-major).
pub type DMat33 = DMat3;
/// The kernel language's name for [`DMat4`] (4×4 f64, column-major).
pub type DMat44 = DMat4;

pub mod adjoint;
pub mod builtins;
mod math_shim;
mod spatial;
mod transform;

pub use spatial::{DSpatialMatrix, DSpatialVector, SpatialMatrix, SpatialVector};
pub use transform::{DTransform, Transform};
