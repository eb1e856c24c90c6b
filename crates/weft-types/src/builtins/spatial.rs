//! Spatial-vector builtins, (linear, angular) ordering: a motion vector `m = (v, ω)`
//! (`top = v`, `bottom = ω`), a force vector `f = (f, τ)`.

use super::vector::{Cross, Dot};
use crate::{DSpatialVector, DVec3, SpatialVector, Vec3};

/// Spatial builtins of `SpatialVector` and `DSpatialVector`.
pub trait Spatial: Copy {
    /// The matching 3-vector type.
    type Vec3;
    /// The linear part.
    fn top(self) -> Self::Vec3;
    /// The angular part.
    fn bottom(self) -> Self::Vec3;
    /// Motion cross product; see [`spatial_cross`].
    fn cross(self, b: Self) -> Self;
    /// Force cross product; see [`spatial_cross_dual`].
    fn cross_dual(self, b: Self) -> Self;
}

/// The linear part (`top`, components 0..3).
#[inline]
pub fn spatial_top<S: Spatial>(a: S) -> S::Vec3 {
    S::top(a)
}

/// The angular part (`bottom`, components 3..6).
#[inline]
pub fn spatial_bottom<S: Spatial>(a: S) -> S::Vec3 {
    S::bottom(a)
}

/// Motion cross product `a ×ₘ b` (Featherstone's `crm(a) b`) of motion vectors
/// `a = (v, ω)`, `b = (v', ω')`:
/// `top = cross(ω, v') + cross(v, ω')`, `bottom = cross(ω, ω')` (componentwise sums).
/// Antisymmetric: `spatial_cross(a, b) == -spatial_cross(b, a)` exactly.
///
/// ```
/// use weft_types::builtins::spatial_cross;
/// use weft_types::{SpatialVector, Vec3};
///
/// // A body spinning about z (ω = z) sees a point moving along x turn toward y.
/// let spin = SpatialVector::new(Vec3::ZERO, Vec3::Z);
/// let m = SpatialVector::new(Vec3::X, Vec3::ZERO);
/// assert_eq!(spatial_cross(spin, m), SpatialVector::new(Vec3::Y, Vec3::ZERO));
/// ```
#[inline]
pub fn spatial_cross<S: Spatial>(a: S, b: S) -> S {
    S::cross(a, b)
}

/// Force cross product `a ×* f` (Featherstone's `crf(a) f = -crm(a)ᵀ f`) of a motion
/// vector `a = (v, ω)` and a force vector `f = (f, τ)`:
/// `top = cross(ω, f)`, `bottom = cross(ω, τ) + cross(v, f)` (componentwise sums).
/// Dual of [`spatial_cross`]: `dot(spatial_cross(a, m), f) == -dot(m, spatial_cross_dual(a, f))`
/// up to rounding.
#[inline]
pub fn spatial_cross_dual<S: Spatial>(a: S, f: S) -> S {
    S::cross_dual(a, f)
}

macro_rules! impl_spatial {
    ($sv:ident, $v:ident, $s:ty) => {
        impl Dot for $sv {
            type Scalar = $s;
            /// `top.x*b.top.x + top.y*b.top.y + top.z*b.top.z + bottom.x*b.bottom.x +
            /// bottom.y*b.bottom.y + bottom.z*b.bottom.z`, left to right.
            #[inline]
            fn dot(self, b: $sv) -> $s {
                self.top.x * b.top.x
                    + self.top.y * b.top.y
                    + self.top.z * b.top.z
                    + self.bottom.x * b.bottom.x
                    + self.bottom.y * b.bottom.y
                    + self.bottom.z * b.bottom.z
            }
        }

        impl Spatial for $sv {
            type Vec3 = $v;
            #[inline]
            fn top(self) -> $v {
                self.top
            }
            #[inline]
            fn bottom(self) -> $v {
                self.bottom
            }
            #[inline]
            fn cross(self, b: $sv) -> $sv {
                let t0 = Cross::cross(self.bottom, b.top);
                let t1 = Cross::cross(self.top, b.bottom);
                $sv::new(
                    $v::new(t0.x + t1.x, t0.y + t1.y, t0.z + t1.z),
                    Cross::cross(self.bottom, b.bottom),
                )
            }
            #[inline]
            fn cross_dual(self, f: $sv) -> $sv {
                let b0 = Cross::cross(self.bottom, f.bottom);
                let b1 = Cross::cross(self.top, f.top);
                $sv::new(
                    Cross::cross(self.bottom, f.top),
                    $v::new(b0.x + b1.x, b0.y + b1.y, b0.z + b1.z),
                )
            }
        }
    };
}

impl_spatial!(SpatialVector, Vec3, f32);
impl_spatial!(DSpatialVector, DVec3, f64);
