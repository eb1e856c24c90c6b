//! Adjoints of the vector builtins `dot cross length length_sq normalize` (vectors,
//! quaternions, spatial vectors) and the componentwise `abs sign min max clamp` of float
//! vectors.

use super::scalar::{AdjMinMax, AdjSigned, abs1, clamp1, max1, min1};
use crate::builtins::traits::{Cross, Dot, Norm};
use crate::{DQuat, DSpatialVector, DVec2, DVec3, DVec4, Quat, SpatialVector, Vec2, Vec3, Vec4};

/// Adjoint of `dot` (float vectors, quaternions, spatial vectors).
pub trait AdjDot: Dot {
    /// `(adj_r * b, adj_r * a)`.
    fn adj_dot(self, b: Self, adj_r: Self::Scalar) -> (Self, Self);
}

/// Adjoints of `length_sq`, `length` and `normalize` (float vectors, quaternions).
pub trait AdjNorm: Norm {
    /// `2 adj_r v`.
    fn adj_length_sq(self, adj_r: Self::Scalar) -> Self;
    /// `adj_r v / length(v)`; zero for the zero vector (where `length` has a kink).
    fn adj_length(self, adj_r: Self::Scalar) -> Self;
    /// With `l = length(v)` and `n = normalize(v) = v / l`: `(adj_r - n dot(n, adj_r)) / l`;
    /// zero where `l == 0` (the zero vector, where `normalize` returns zero).
    fn adj_normalize(self, adj_r: Self) -> Self;
}

/// Adjoint of `cross` (`Vec3`, `DVec3`).
pub trait AdjCross: Cross {
    /// `(cross(b, adj_r), cross(adj_r, a))`.
    fn adj_cross(self, b: Self, adj_r: Self) -> (Self, Self);
}

/// Adjoint of `dot(a, b)`: `(adj_r * b, adj_r * a)`.
#[inline]
pub fn adj_dot<T: AdjDot>(a: T, b: T, adj_r: T::Scalar) -> (T, T) {
    T::adj_dot(a, b, adj_r)
}

/// Adjoint of `length_sq(v)`: `2 adj_r v`.
#[inline]
pub fn adj_length_sq<T: AdjNorm>(v: T, adj_r: T::Scalar) -> T {
    T::adj_length_sq(v, adj_r)
}

/// Adjoint of `length(v)`: `adj_r v / length(v)`; zero for the zero vector.
#[inline]
pub fn adj_length<T: AdjNorm>(v: T, adj_r: T::Scalar) -> T {
    T::adj_length(v, adj_r)
}

/// Adjoint of `normalize(v)`: `(adj_r - n dot(n, adj_r)) / length(v)` with
/// `n = normalize(v)`; zero for the zero vector. See [`AdjNorm::adj_normalize`].
#[inline]
pub fn adj_normalize<T: AdjNorm>(v: T, adj_r: T) -> T {
    T::adj_normalize(v, adj_r)
}

/// Adjoint of `cross(a, b)`: `(cross(b, adj_r), cross(adj_r, a))`.
#[inline]
pub fn adj_cross<T: AdjCross>(a: T, b: T, adj_r: T) -> (T, T) {
    T::adj_cross(a, b, adj_r)
}

macro_rules! impl_adj_dot {
    ($($t:ident: $s:ty),*) => {$(
        impl AdjDot for $t {
            #[inline]
            fn adj_dot(self, b: $t, adj_r: $s) -> ($t, $t) {
                (b * adj_r, self * adj_r)
            }
        }
    )*};
}
impl_adj_dot!(
    Vec2: f32, Vec3: f32, Vec4: f32, DVec2: f64, DVec3: f64, DVec4: f64, Quat: f32, DQuat: f64,
    SpatialVector: f32, DSpatialVector: f64
);

macro_rules! impl_adj_norm {
    ($($t:ident: $s:ty = $zero:expr),*) => {$(
        impl AdjNorm for $t {
            #[inline]
            fn adj_length_sq(self, adj_r: $s) -> $t {
                self * (adj_r + adj_r)
            }
            #[inline]
            fn adj_length(self, adj_r: $s) -> $t {
                let l = Norm::length(self);
                if l == 0.0 {
                    $zero
                } else {
                    self * (adj_r / l)
                }
            }
            #[inline]
            fn adj_normalize(self, adj_r: $t) -> $t {
                let l = Norm::length(self);
                if l == 0.0 {
                    $zero
                } else {
                    let n = Norm::normalize(self);
                    (adj_r - n * Dot::dot(n, adj_r)) / l
                }
            }
        }
    )*};
}
impl_adj_norm!(
    Vec2: f32 = Vec2::ZERO, Vec3: f32 = Vec3::ZERO, Vec4: f32 = Vec4::ZERO,
    DVec2: f64 = DVec2::ZERO, DVec3: f64 = DVec3::ZERO, DVec4: f64 = DVec4::ZERO,
    Quat: f32 = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
    DQuat: f64 = DQuat::from_xyzw(0.0, 0.0, 0.0, 0.0)
);

macro_rules! impl_adj_cross {
    ($($t:ident),*) => {$(
        impl AdjCross for $t {
            #[inline]
            fn adj_cross(self, b: $t, adj_r: $t) -> ($t, $t) {
                (Cross::cross(b, adj_r), Cross::cross(adj_r, self))
            }
        }
    )*};
}
impl_adj_cross!(Vec3, DVec3);

macro_rules! impl_componentwise {
    ($($v:ident: $($c:ident),*;)*) => {$(
        impl AdjSigned for $v {
            #[inline]
            fn adj_abs(self, adj_r: $v) -> $v {
                $v::new($(abs1(self.$c, adj_r.$c)),*)
            }
            #[inline]
            fn adj_sign(self, _adj_r: $v) -> $v {
                $v::ZERO
            }
        }

        impl AdjMinMax for $v {
            #[inline]
            fn adj_min(self, b: $v, adj_r: $v) -> ($v, $v) {
                let (mut da, mut db) = ($v::ZERO, $v::ZERO);
                $((da.$c, db.$c) = min1(self.$c, b.$c, adj_r.$c);)*
                (da, db)
            }
            #[inline]
            fn adj_max(self, b: $v, adj_r: $v) -> ($v, $v) {
                let (mut da, mut db) = ($v::ZERO, $v::ZERO);
                $((da.$c, db.$c) = max1(self.$c, b.$c, adj_r.$c);)*
                (da, db)
            }
            #[inline]
            fn adj_clamp(self, lo: $v, hi: $v, adj_r: $v) -> ($v, $v, $v) {
                let (mut dx, mut dlo, mut dhi) = ($v::ZERO, $v::ZERO, $v::ZERO);
                $((dx.$c, dlo.$c, dhi.$c) = clamp1(self.$c, lo.$c, hi.$c, adj_r.$c);)*
                (dx, dlo, dhi)
            }
        }
    )*};
}
impl_componentwise! {
    Vec2: x, y;
    Vec3: x, y, z;
    Vec4: x, y, z, w;
    DVec2: x, y;
    DVec3: x, y, z;
    DVec4: x, y, z, w;
}
