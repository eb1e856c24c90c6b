//! Rigid-transform builtins: `transform_point transform_vector transform_inverse`.

use super::matrix::Inverse;
use super::quat::Rotation;
use crate::{DTransform, DVec3, Transform, Vec3};

/// Transform builtins of `Transform` and `DTransform`.
pub trait RigidTransform: Copy {
    /// The matching 3-vector type.
    type Vec3;
    /// See [`transform_point`].
    fn transform_point(self, p: Self::Vec3) -> Self::Vec3;
    /// See [`transform_vector`].
    fn transform_vector(self, v: Self::Vec3) -> Self::Vec3;
    /// See [`transform_inverse`].
    fn transform_inverse(self) -> Self;
}

/// Maps the point `p` by `t`: `quat_rotate(t.q, p) + t.p`, componentwise.
#[inline]
pub fn transform_point<T: RigidTransform>(t: T, p: T::Vec3) -> T::Vec3 {
    T::transform_point(t, p)
}

/// Maps the direction `v` by `t` (rotation only): `quat_rotate(t.q, v)`.
#[inline]
pub fn transform_vector<T: RigidTransform>(t: T, v: T::Vec3) -> T::Vec3 {
    T::transform_vector(t, v)
}

/// Inverse of a rigid transform with a unit rotation: `q' = conjugate(t.q)` (exact) and
/// `p' = -quat_rotate(q', t.p)` (exact negation of each component), so that
/// `t * transform_inverse(t)` is the identity up to rounding.
#[inline]
pub fn transform_inverse<T: RigidTransform>(t: T) -> T {
    T::transform_inverse(t)
}

macro_rules! impl_rigid {
    ($t:ident, $v:ident) => {
        impl RigidTransform for $t {
            type Vec3 = $v;
            #[inline]
            fn transform_point(self, p: $v) -> $v {
                let r = Rotation::rotate(self.q, p);
                $v::new(r.x + self.p.x, r.y + self.p.y, r.z + self.p.z)
            }
            #[inline]
            fn transform_vector(self, v: $v) -> $v {
                Rotation::rotate(self.q, v)
            }
            #[inline]
            fn transform_inverse(self) -> $t {
                let q = Rotation::conjugate(self.q);
                let r = Rotation::rotate(q, self.p);
                $t::new($v::new(-r.x, -r.y, -r.z), q)
            }
        }

        impl Inverse for $t {
            #[inline]
            fn inverse(self) -> $t {
                RigidTransform::transform_inverse(self)
            }
        }
    };
}

impl_rigid!(Transform, Vec3);
impl_rigid!(DTransform, DVec3);
