//! CPU implementations of the kernel builtins, one generic function per entry of
//! `weft_ir::builtins::BUILTINS` (same names, same argument order, same overloads).
//!
//! Generated kernel code calls them as `builtins::NAME(args)` with arguments already
//! type-checked by the IR; the small traits below only let rustc pick the implementation
//! for the argument types:
//!
//! | trait | builtins | implemented for |
//! |---|---|---|
//! | [`FloatMath`](traits::FloatMath) | `sin cos tan asin acos atan atan2 sinh cosh tanh exp exp2 log log2 log10 pow sqrt cbrt floor ceil round trunc` | `f32 f64` |
//! | [`Signed`](traits::Signed) | `abs sign` | `f32 f64 i32 i64` and their vectors |
//! | [`MinMax`](traits::MinMax) | `min max clamp` | all numeric scalars (not `bool`) and their vectors |
//! | [`MulAdd`](traits::MulAdd) | `fma` | `f32 f64` and their vectors |
//! | [`Dot`](traits::Dot) | `dot` | float vectors, quaternions, spatial vectors |
//! | [`Norm`](traits::Norm) | `length length_sq normalize` | float vectors, quaternions |
//! | [`Cross`](traits::Cross) | `cross` | `Vec3 DVec3` |
//! | [`Outer`](traits::Outer), [`Diag`](traits::Diag) | `outer diag` | float vectors |
//! | [`SquareMatrix`](traits::SquareMatrix) | `transpose determinant trace` | float matrices |
//! | [`Inverse`](traits::Inverse) | `inverse` | float matrices, quaternions, transforms |
//! | [`Skew`](traits::Skew) | `skew` | `Vec3 DVec3` |
//! | [`AxisAngle`](traits::AxisAngle) | `quat_from_axis_angle` | `Vec3 DVec3` (the axis) |
//! | [`Rotation`](traits::Rotation) | `quat_to_matrix quat_inverse quat_rotate quat_rotate_inv` | `Quat DQuat` |
//! | [`FromRotationMatrix`](traits::FromRotationMatrix) | `quat_from_matrix` | `Mat3 DMat3` |
//! | [`RigidTransform`](traits::RigidTransform) | `transform_point transform_vector transform_inverse` | `Transform DTransform` |
//! | [`Spatial`](traits::Spatial) | `spatial_top spatial_bottom spatial_cross spatial_cross_dual` | `SpatialVector DSpatialVector` |
//!
//! `rand_init randi randf randf_range randn`, `stop_gradient` and the bit casts are plain
//! functions.
//!
//! Every function documents its exact floating-point operation order; "left to right"
//! means `((a + b) + c) + d`, each operation rounded to nearest, no fused multiply-add
//! (only the `fma` builtin fuses, where the kernel asks for it).

mod bits;
mod fence;
mod fused;
mod gradient;
pub(crate) mod matrix;
mod quat;
mod random;
mod scalar;
mod spatial;
mod transform;
mod vector;

pub use bits::{f32_from_bits, f32_to_bits, f64_from_bits, f64_to_bits};
pub use fence::thread_fence;
pub use fused::fma;
pub use gradient::stop_gradient;
pub use matrix::{determinant, diag, inverse, outer, skew, trace, transpose};
pub use quat::{
    quat_from_axis_angle, quat_from_matrix, quat_inverse, quat_rotate, quat_rotate_inv,
    quat_to_matrix,
};
pub use random::{rand_init, randf, randf_range, randi, randn};
pub use scalar::{
    abs, acos, asin, atan, atan2, cbrt, ceil, clamp, cos, cosh, exp, exp2, floor, log, log2, log10,
    max, min, pow, round, sign, sin, sinh, sqrt, tan, tanh, trunc,
};
pub use spatial::{spatial_bottom, spatial_cross, spatial_cross_dual, spatial_top};
pub use transform::{transform_inverse, transform_point, transform_vector};
pub use vector::{cross, dot, length, length_sq, normalize};

/// The dispatch traits behind the generic builtins.
///
/// They live in their own module so that `use builtins::*` brings only the functions
/// into scope: the traits' method names (`min`, `abs`, `dot`, ...) would otherwise make
/// method calls such as `1i32.min(2)` ambiguous.
pub mod traits {
    pub use super::fused::MulAdd;
    pub use super::matrix::{Diag, Inverse, Outer, Skew, SquareMatrix};
    pub use super::quat::{AxisAngle, FromRotationMatrix, Rotation};
    pub use super::scalar::{FloatMath, MinMax, Signed};
    pub use super::spatial::Spatial;
    pub use super::transform::RigidTransform;
    pub use super::vector::{Cross, Dot, Norm};
}
