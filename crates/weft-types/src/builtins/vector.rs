//! Vector builtins: `dot`, `cross`, `length`, `length_sq`, `normalize`, and the
//! componentwise `abs sign min max clamp` of vectors.
//!
//! All reductions are written out componentwise in the order `x, y, z, w`, left to right,
//! instead of glam's methods (which may use SIMD with another summation order).

use super::scalar::{FloatMath, MinMax, Signed};
use crate::{
    DVec2, DVec3, DVec4, I64Vec2, I64Vec3, I64Vec4, IVec2, IVec3, IVec4, U64Vec2, U64Vec3, U64Vec4,
    UVec2, UVec3, UVec4, Vec2, Vec3, Vec4,
};

/// The `dot` builtin: inner product of float vectors, quaternions and spatial vectors.
pub trait Dot: Copy {
    /// The scalar type of the components.
    type Scalar;
    /// `a.x*b.x + a.y*b.y + ...` over the components in storage order, left to right.
    fn dot(self, b: Self) -> Self::Scalar;
}

/// The `length`, `length_sq` and `normalize` builtins of float vectors and quaternions.
pub trait Norm: Dot {
    /// `dot(v, v)`.
    fn length_sq(self) -> Self::Scalar;
    /// `sqrt(dot(v, v))` (correctly rounded `sqrt`); `0` for the zero vector.
    fn length(self) -> Self::Scalar;
    /// `l = length(v)`; if `l == 0` the zero vector, else each component divided by `l`
    /// (an IEEE division per component, not a multiplication by `1/l`). NaN components
    /// give NaN; a vector whose `dot(v, v)` overflows to infinity gives zeros.
    fn normalize(self) -> Self;
}

/// Inner product `a.x*b.x + a.y*b.y + ...`, left to right over the components in storage
/// order (`x y z w` for vectors and quaternions; `top.x .. top.z, bottom.x .. bottom.z`
/// for spatial vectors).
#[inline]
pub fn dot<T: Dot>(a: T, b: T) -> T::Scalar {
    T::dot(a, b)
}

/// Squared length: `dot(v, v)`.
#[inline]
pub fn length_sq<T: Norm>(v: T) -> T::Scalar {
    T::length_sq(v)
}

/// Euclidean length: `sqrt(dot(v, v))`; `0` at the zero vector.
#[inline]
pub fn length<T: Norm>(v: T) -> T::Scalar {
    T::length(v)
}

/// Unit vector (or quaternion) along `v`: each component divided by `length(v)`.
/// The zero vector stays zero (no NaN). See [`Norm::normalize`].
///
/// ```
/// use weft_types::builtins::normalize;
/// use weft_types::Vec3;
///
/// assert_eq!(normalize(Vec3::new(0.0, 3.0, 4.0)), Vec3::new(0.0, 0.6, 0.8));
/// assert_eq!(normalize(Vec3::ZERO), Vec3::ZERO);
/// ```
#[inline]
pub fn normalize<T: Norm>(v: T) -> T {
    T::normalize(v)
}

/// The `cross` builtin of 3-vectors.
pub trait Cross: Copy {
    /// `(a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x)`.
    fn cross(self, b: Self) -> Self;
}

/// Cross product `(a.y*b.z - a.z*b.y, a.z*b.x - a.x*b.z, a.x*b.y - a.y*b.x)`.
#[inline]
pub fn cross<T: Cross>(a: T, b: T) -> T {
    T::cross(a, b)
}

macro_rules! impl_float_vec {
    ($v:ident, $s:ty, $first:ident $(, $c:ident)*) => {
        impl Dot for $v {
            type Scalar = $s;
            #[inline]
            fn dot(self, b: $v) -> $s {
                self.$first * b.$first $(+ self.$c * b.$c)*
            }
        }

        impl Norm for $v {
            #[inline]
            fn length_sq(self) -> $s {
                Dot::dot(self, self)
            }
            #[inline]
            fn length(self) -> $s {
                FloatMath::sqrt(Dot::dot(self, self))
            }
            /// An IEEE division per component (each correctly rounded, unlike a
            /// product by `1 / l`); the PTX back end computes the same.
            #[inline]
            fn normalize(self) -> $v {
                let l = Norm::length(self);
                if l == 0.0 {
                    $v::ZERO
                } else {
                    $v::new(self.$first / l $(, self.$c / l)*)
                }
            }
        }

        impl_componentwise_signed!($v, $first $(, $c)*);
        impl_componentwise_minmax!($v, $first $(, $c)*);
    };
}

macro_rules! impl_componentwise_signed {
    ($v:ident $(, $c:ident)*) => {
        impl Signed for $v {
            #[inline]
            fn abs(self) -> $v {
                $v::new($(Signed::abs(self.$c)),*)
            }
            #[inline]
            fn sign(self) -> $v {
                $v::new($(Signed::sign(self.$c)),*)
            }
        }
    };
}

macro_rules! impl_componentwise_minmax {
    ($v:ident $(, $c:ident)*) => {
        impl MinMax for $v {
            #[inline]
            fn min(self, b: $v) -> $v {
                $v::new($(MinMax::min(self.$c, b.$c)),*)
            }
            #[inline]
            fn max(self, b: $v) -> $v {
                $v::new($(MinMax::max(self.$c, b.$c)),*)
            }
            #[inline]
            fn clamp(self, lo: $v, hi: $v) -> $v {
                $v::new($(MinMax::clamp(self.$c, lo.$c, hi.$c)),*)
            }
        }
    };
}

impl_float_vec!(Vec2, f32, x, y);
impl_float_vec!(Vec3, f32, x, y, z);
impl_float_vec!(Vec4, f32, x, y, z, w);
impl_float_vec!(DVec2, f64, x, y);
impl_float_vec!(DVec3, f64, x, y, z);
impl_float_vec!(DVec4, f64, x, y, z, w);

impl_componentwise_signed!(IVec2, x, y);
impl_componentwise_signed!(IVec3, x, y, z);
impl_componentwise_signed!(IVec4, x, y, z, w);
impl_componentwise_signed!(I64Vec2, x, y);
impl_componentwise_signed!(I64Vec3, x, y, z);
impl_componentwise_signed!(I64Vec4, x, y, z, w);

impl_componentwise_minmax!(IVec2, x, y);
impl_componentwise_minmax!(IVec3, x, y, z);
impl_componentwise_minmax!(IVec4, x, y, z, w);
impl_componentwise_minmax!(I64Vec2, x, y);
impl_componentwise_minmax!(I64Vec3, x, y, z);
impl_componentwise_minmax!(I64Vec4, x, y, z, w);
impl_componentwise_minmax!(UVec2, x, y);
impl_componentwise_minmax!(UVec3, x, y, z);
impl_componentwise_minmax!(UVec4, x, y, z, w);
impl_componentwise_minmax!(U64Vec2, x, y);
impl_componentwise_minmax!(U64Vec3, x, y, z);
impl_componentwise_minmax!(U64Vec4, x, y, z, w);

macro_rules! impl_cross {
    ($($v:ident),*) => {$(
        impl Cross for $v {
            #[inline]
            fn cross(self, b: $v) -> $v {
                $v::new(
                    self.y * b.z - self.z * b.y,
                    self.z * b.x - self.x * b.z,
                    self.x * b.y - self.y * b.x,
                )
            }
        }
    )*};
}
impl_cross!(Vec3, DVec3);
