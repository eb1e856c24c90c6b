//! Adjoints of the rigid-transform builtins `transform_point transform_vector
//! transform_inverse`, of `inverse` on transforms and of the composition
//! `Transform * Transform`.
//!
//! The adjoint of a transform is a value of the same type whose `p` and `q` hold the
//! adjoints of the translation and of the quaternion's four components.

use super::matrix::AdjInverse;
use super::quat::AdjRotation;
use crate::builtins::traits::{RigidTransform, Rotation};
use crate::{DTransform, DVec3, Transform, Vec3};

/// Adjoints of the transform builtins and of composition (`Transform`, `DTransform`).
pub trait AdjRigidTransform: RigidTransform {
    /// See [`adj_transform_point`].
    fn adj_transform_point(self, p: Self::Vec3, adj_r: Self::Vec3) -> (Self, Self::Vec3);
    /// See [`adj_transform_vector`].
    fn adj_transform_vector(self, v: Self::Vec3, adj_r: Self::Vec3) -> (Self, Self::Vec3);
    /// See [`adj_transform_inverse`].
    fn adj_transform_inverse(self, adj_r: Self) -> Self;
    /// Adjoint of the composition `self * b` (`p = quat_rotate(self.q, b.p) + self.p`,
    /// `q = self.q * b.q`): `(adj_self, adj_b)`.
    fn adj_compose(self, b: Self, adj_r: Self) -> (Self, Self);
}

/// Adjoint of `transform_point(t, p) = quat_rotate(t.q, p) + t.p`:
/// `((adj_r, q̄), p̄)` with `(q̄, p̄)` from [`super::adj_quat_rotate`].
#[inline]
pub fn adj_transform_point<T: AdjRigidTransform>(t: T, p: T::Vec3, adj_r: T::Vec3) -> (T, T::Vec3) {
    T::adj_transform_point(t, p, adj_r)
}

/// Adjoint of `transform_vector(t, v) = quat_rotate(t.q, v)`: `((0, q̄), v̄)` with
/// `(q̄, v̄)` from [`super::adj_quat_rotate`].
#[inline]
pub fn adj_transform_vector<T: AdjRigidTransform>(
    t: T,
    v: T::Vec3,
    adj_r: T::Vec3,
) -> (T, T::Vec3) {
    T::adj_transform_vector(t, v, adj_r)
}

/// Adjoint of `transform_inverse(t)`, the formula as written (which assumes a unit `q`):
/// `q' = conjugate(t.q)`, `p' = -quat_rotate(q', t.p)`. Exact for any `q`, so it matches
/// finite differences that leave the unit sphere.
#[inline]
pub fn adj_transform_inverse<T: AdjRigidTransform>(t: T, adj_r: T) -> T {
    T::adj_transform_inverse(t, adj_r)
}

macro_rules! impl_adj_rigid {
    ($t:ident, $v:ident) => {
        impl AdjRigidTransform for $t {
            #[inline]
            fn adj_transform_point(self, p: $v, adj_r: $v) -> ($t, $v) {
                let (aq, ap) = AdjRotation::adj_rotate(self.q, p, adj_r);
                ($t::new(adj_r, aq), ap)
            }
            #[inline]
            fn adj_transform_vector(self, v: $v, adj_r: $v) -> ($t, $v) {
                let (aq, av) = AdjRotation::adj_rotate(self.q, v, adj_r);
                ($t::new($v::ZERO, aq), av)
            }
            #[inline]
            fn adj_transform_inverse(self, adj_r: $t) -> $t {
                let qc = Rotation::conjugate(self.q);
                let (aqc, ap) = AdjRotation::adj_rotate(qc, self.p, -adj_r.p);
                $t::new(ap, Rotation::conjugate(aqc + adj_r.q))
            }
            #[inline]
            fn adj_compose(self, b: $t, adj_r: $t) -> ($t, $t) {
                let (aq_rot, abp) = AdjRotation::adj_rotate(self.q, b.p, adj_r.p);
                let (aq_mul, abq) = AdjRotation::adj_quat_mul(self.q, b.q, adj_r.q);
                ($t::new(adj_r.p, aq_rot + aq_mul), $t::new(abp, abq))
            }
        }

        impl AdjInverse for $t {
            #[inline]
            fn adj_inverse(self, adj_r: $t) -> $t {
                AdjRigidTransform::adj_transform_inverse(self, adj_r)
            }
        }
    };
}

impl_adj_rigid!(Transform, Vec3);
impl_adj_rigid!(DTransform, DVec3);
