//! Rigid transforms: a translation `p` and a unit rotation quaternion `q`.

use crate::builtins::traits::{RigidTransform, Rotation};
use crate::{DQuat, DVec3, Quat, Vec3};
use core::ops::{Mul, MulAssign};

macro_rules! transform_type {
    (
        $(#[$attr:meta])*
        $name:ident, $v:ident, $q:ident
    ) => {
        $(#[$attr])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug, PartialEq, bytemuck::Zeroable)]
        pub struct $name {
            /// Translation.
            pub p: $v,
            /// Rotation, a unit quaternion.
            pub q: $q,
        }

        impl $name {
            /// The identity transform (no translation, no rotation).
            pub const IDENTITY: Self = Self { p: $v::ZERO, q: $q::IDENTITY };

            /// A transform that rotates by `q`, then translates by `p`.
            #[inline]
            pub const fn new(p: $v, q: $q) -> Self {
                Self { p, q }
            }

            /// A pure translation.
            #[inline]
            pub const fn from_translation(p: $v) -> Self {
                Self { p, q: $q::IDENTITY }
            }

            /// A pure rotation.
            #[inline]
            pub const fn from_rotation(q: $q) -> Self {
                Self { p: $v::ZERO, q }
            }

            /// Maps a point: `quat_rotate(q, p) + self.p`
            /// (the `transform_point` builtin).
            #[inline]
            pub fn transform_point(self, p: $v) -> $v {
                RigidTransform::transform_point(self, p)
            }

            /// Maps a direction: `quat_rotate(q, v)` (the `transform_vector` builtin).
            #[inline]
            pub fn transform_vector(self, v: $v) -> $v {
                RigidTransform::transform_vector(self, v)
            }

            /// The inverse transform (the `transform_inverse` builtin).
            #[inline]
            pub fn inverse(self) -> Self {
                RigidTransform::transform_inverse(self)
            }
        }

        impl Default for $name {
            /// The identity.
            #[inline]
            fn default() -> Self {
                Self::IDENTITY
            }
        }

        impl Mul for $name {
            type Output = $name;
            /// Composition: `a * b` applies `b`, then `a` (like matrices):
            /// `p = quat_rotate(a.q, b.p) + a.p` (componentwise), `q = a.q * b.q` with the
            /// Hamilton product order of [`Rotation::mul`].
            ///
            /// ```
            /// use weft_types::{Quat, Transform, Vec3};
            ///
            /// let a = Transform::from_translation(Vec3::X);
            /// let b = Transform::from_rotation(Quat::from_rotation_z(std::f32::consts::PI));
            /// // b first (rotates x to -x), then a (adds x).
            /// let p = (a * b).transform_point(Vec3::X);
            /// assert!(p.abs_diff_eq(Vec3::ZERO, 1e-6));
            /// ```
            #[inline]
            fn mul(self, b: $name) -> $name {
                let r = Rotation::rotate(self.q, b.p);
                $name {
                    p: $v::new(r.x + self.p.x, r.y + self.p.y, r.z + self.p.z),
                    q: Rotation::mul(self.q, b.q),
                }
            }
        }

        impl MulAssign for $name {
            /// `*self = *self * b`.
            #[inline]
            fn mul_assign(&mut self, b: $name) {
                *self = *self * b;
            }
        }
    };
}

transform_type! {
    /// A rigid transform in f32: `x ↦ q x q⁻¹ + p`.
    ///
    /// Layout (`#[repr(C)]`): `p` at offset 0 (12 bytes), 4 bytes of padding, `q` at
    /// offset 16 (16 bytes, 16-byte aligned): size 32, align 16. Because of the padding it
    /// is [`bytemuck::Zeroable`] but not [`bytemuck::Pod`].
    Transform, Vec3, Quat
}

transform_type! {
    /// A rigid transform in f64: `x ↦ q x q⁻¹ + p`.
    ///
    /// Layout (`#[repr(C)]`): `p` at offset 0 (24 bytes), `q` at offset 24 (32 bytes):
    /// size 56, align 8, no padding, so it is [`bytemuck::Pod`].
    #[derive(bytemuck::Pod)]
    DTransform, DVec3, DQuat
}
