//! The dispatch traits behind the generic adjoint functions, and [`Real`], the float
//! arithmetic the scalar rules are written in.
//!
//! As with [`crate::builtins::traits`], they live in their own module so that
//! `use adjoint::*` brings only the `adj_*` functions into scope.
//!
//! | trait | adjoints of | implemented for |
//! |---|---|---|
//! | [`Real`] | `sin … trunc`, `atan2`, `pow` | `f32 f64` |
//! | [`AdjSigned`], [`AdjMinMax`] | `abs sign`, `min max clamp` | `f32 f64` and their vectors |
//! | [`MulAdd`](crate::builtins::traits::MulAdd) (no trait of its own) | `fma` | `f32 f64` and their vectors |
//! | [`AdjDot`] | `dot` | float vectors, quaternions, spatial vectors |
//! | [`AdjNorm`] | `length length_sq normalize` | float vectors, quaternions |
//! | [`AdjCross`], [`AdjSkew`] | `cross`, `skew` | `Vec3 DVec3` |
//! | [`AdjOuter`], [`AdjDiag`] | `outer`, `diag` | float vectors |
//! | [`AdjSquareMatrix`] | `transpose determinant trace` | float matrices |
//! | [`AdjInverse`] | `inverse` | float matrices, quaternions, transforms |
//! | [`AdjRotation`] | `quat_to_matrix quat_inverse quat_rotate quat_rotate_inv`, `Quat * Quat` | `Quat DQuat` |
//! | [`AdjAxisAngle`] | `quat_from_axis_angle` | `Vec3 DVec3` (the axis) |
//! | [`AdjFromRotationMatrix`] | `quat_from_matrix` | `Mat3 DMat3` |
//! | [`AdjRigidTransform`] | `transform_point transform_vector transform_inverse`, `Transform * Transform` | `Transform DTransform` |
//! | [`AdjSpatial`] | `spatial_top spatial_bottom spatial_cross spatial_cross_dual` | `SpatialVector DSpatialVector` |
//! | [`AdjAdd`] [`AdjSub`] [`AdjMul`] [`AdjDiv`] [`AdjRem`] [`AdjNeg`] | `+ - * / %`, unary `-` | the operand types of each operator |

use crate::builtins::traits::{FloatMath, MinMax, Signed};
use core::ops::{Add, Div, Mul, Neg, Rem, Sub};

pub use super::matrix::{AdjDiag, AdjInverse, AdjOuter, AdjSkew, AdjSquareMatrix};
pub use super::ops::{AdjAdd, AdjDiv, AdjMul, AdjNeg, AdjRem, AdjSub};
pub use super::quat::{AdjAxisAngle, AdjFromRotationMatrix, AdjRotation};
pub use super::scalar::{AdjMinMax, AdjSigned};
pub use super::spatial::AdjSpatial;
pub use super::transform::AdjRigidTransform;
pub use super::vector::{AdjCross, AdjDot, AdjNorm};

/// A float scalar (`f32`, `f64`): IEEE arithmetic, the builtins' elementary functions
/// ([`FloatMath`], [`Signed`], [`MinMax`]) and the constants the derivative rules need.
pub trait Real:
    FloatMath
    + Signed
    + MinMax
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Rem<Output = Self>
    + Neg<Output = Self>
{
    /// `0`.
    const ZERO: Self;
    /// `1`.
    const ONE: Self;
    /// `2`.
    const TWO: Self;
    /// `3`.
    const THREE: Self;
    /// `0.5`.
    const HALF: Self;
    /// `ln 2`, rounded to this type.
    const LN_2: Self;
    /// `ln 10`, rounded to this type.
    const LN_10: Self;
    /// Whether `self` is NaN.
    fn is_nan(self) -> bool;
    /// Whether `self` is neither infinite nor NaN.
    fn is_finite(self) -> bool;
}

macro_rules! impl_real {
    ($($t:ident),*) => {$(
        impl Real for $t {
            const ZERO: $t = 0.0;
            const ONE: $t = 1.0;
            const TWO: $t = 2.0;
            const THREE: $t = 3.0;
            const HALF: $t = 0.5;
            const LN_2: $t = core::$t::consts::LN_2;
            const LN_10: $t = core::$t::consts::LN_10;
            #[inline]
            fn is_nan(self) -> bool {
                $t::is_nan(self)
            }
            #[inline]
            fn is_finite(self) -> bool {
                $t::is_finite(self)
            }
        }
    )*};
}
impl_real!(f32, f64);
