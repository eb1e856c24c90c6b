//! Adjoints of the arithmetic operators `+ - * / %` and unary `-` on the float-based
//! operand combinations that `weft_ir`'s `binary_type` accepts.
//!
//! Products follow the operators the CPU back end emits: glam's operators, except
//! `Quat * Quat` (the Hamilton product [`Rotation::mul`](crate::builtins::traits::Rotation::mul))
//! and `Quat * Vec3` (`quat_rotate`).

use super::quat::AdjRotation;
use super::transform::AdjRigidTransform;
use crate::builtins::traits::{Dot, FloatMath, Outer};
use crate::{
    DMat2, DMat3, DMat4, DQuat, DSpatialMatrix, DSpatialVector, DTransform, DVec2, DVec3, DVec4,
    Mat2, Mat3, Mat4, Quat, SpatialMatrix, SpatialVector, Transform, Vec2, Vec3, Vec4,
};

/// Adjoint of `a + b`.
pub trait AdjAdd<Rhs = Self>: Sized {
    /// The type of `a + b`.
    type Output;
    /// `(adj_r, adj_r)`.
    fn adj_add(self, b: Rhs, adj_r: Self::Output) -> (Self, Rhs);
}

/// Adjoint of `a - b`.
pub trait AdjSub<Rhs = Self>: Sized {
    /// The type of `a - b`.
    type Output;
    /// `(adj_r, -adj_r)`.
    fn adj_sub(self, b: Rhs, adj_r: Self::Output) -> (Self, Rhs);
}

/// Adjoint of `a * b`.
pub trait AdjMul<Rhs = Self>: Sized {
    /// The type of `a * b`.
    type Output;
    /// `(adj_a, adj_b)`; see [`adj_mul`] for each operand combination.
    fn adj_mul(self, b: Rhs, adj_r: Self::Output) -> (Self, Rhs);
}

/// Adjoint of `a / b`.
pub trait AdjDiv<Rhs = Self>: Sized {
    /// The type of `a / b`.
    type Output;
    /// `(adj_a, adj_b)`; see [`adj_div`].
    fn adj_div(self, b: Rhs, adj_r: Self::Output) -> (Self, Rhs);
}

/// Adjoint of `a % b` (float remainder).
pub trait AdjRem<Rhs = Self>: Sized {
    /// The type of `a % b`.
    type Output;
    /// `(adj_a, adj_b)`; see [`adj_rem`].
    fn adj_rem(self, b: Rhs, adj_r: Self::Output) -> (Self, Rhs);
}

/// Adjoint of unary `-a`.
pub trait AdjNeg: Sized {
    /// `-adj_r`.
    fn adj_neg(self, adj_r: Self) -> Self;
}

/// Adjoint of `a + b` (scalars, vectors, matrices, quaternions, spatial vectors and
/// matrices, each with its own type): `(adj_r, adj_r)`.
#[inline]
pub fn adj_add<A: AdjAdd<B>, B>(a: A, b: B, adj_r: A::Output) -> (A, B) {
    A::adj_add(a, b, adj_r)
}

/// Adjoint of `a - b`: `(adj_r, -adj_r)`.
#[inline]
pub fn adj_sub<A: AdjSub<B>, B>(a: A, b: B, adj_r: A::Output) -> (A, B) {
    A::adj_sub(a, b, adj_r)
}

/// Adjoint of `a * b`, with `G = adj_r`:
///
/// * scalar · scalar and vector · vector (componentwise): `(G b, G a)`;
/// * `X * s` and `s * X` for a vector, matrix, quaternion, spatial vector or spatial
///   matrix `X` and a scalar `s`: `X̄ = G s`, `s̄ = ⟨G, X⟩` (sum of the componentwise
///   products);
/// * matrix · matrix (also 6×6 spatial): `(G Bᵀ, Aᵀ G)`; matrix · vector (also spatial):
///   `(G vᵀ, Mᵀ G)`;
/// * `Quat * Quat`: the Hamilton product's adjoint [`AdjRotation::adj_quat_mul`];
///   `Quat * Vec3`: [`super::adj_quat_rotate`];
/// * `Transform * Transform`: [`AdjRigidTransform::adj_compose`].
#[inline]
pub fn adj_mul<A: AdjMul<B>, B>(a: A, b: B, adj_r: A::Output) -> (A, B) {
    A::adj_mul(a, b, adj_r)
}

/// Adjoint of `a / b`, with `G = adj_r`:
///
/// * scalar / scalar and vector / vector (componentwise): `(G / b, -(G / b)(a / b))`;
/// * `X / s` for a vector, matrix, quaternion or spatial vector `X`:
///   `(G / s, -⟨G / s, X / s⟩)`.
///
/// Division by zero (outside the domain) gives the forward's infinities and NaNs.
#[inline]
pub fn adj_div<A: AdjDiv<B>, B>(a: A, b: B, adj_r: A::Output) -> (A, B) {
    A::adj_div(a, b, adj_r)
}

/// Adjoint of the float remainder `a % b = a - q b` with an integer quotient `q`, which is
/// locally constant: `(adj_r, -q adj_r)`.
///
/// * Scalars (Rust's `%`, `q = trunc(a / b)`): `(adj_r, -trunc(a / b) adj_r)`.
/// * Vectors `a % b` (componentwise) and `a % s` (`s̄` is the sum over the components):
///   `q` is recovered from the forward result as `round((a - a % b) / b)`, because glam's
///   `Vec4 % Vec4` rounds the quotient down (`floor`) on SSE2 where the other vectors
///   truncate; the rule follows whichever the forward used.
///
/// At the jumps (`a / b` an integer) it is the one-sided derivative of the piece taken.
#[inline]
pub fn adj_rem<A: AdjRem<B>, B>(a: A, b: B, adj_r: A::Output) -> (A, B) {
    A::adj_rem(a, b, adj_r)
}

/// Adjoint of `-a`: `-adj_r`.
#[inline]
pub fn adj_neg<A: AdjNeg>(a: A, adj_r: A) -> A {
    A::adj_neg(a, adj_r)
}

/// The inner product `⟨a, b⟩`: the sum of the componentwise products.
trait Inner: Copy {
    type Scalar;
    fn inner(self, b: Self) -> Self::Scalar;
}

macro_rules! inner_by_dot {
    ($($t:ident: $s:ty),*) => {$(
        impl Inner for $t {
            type Scalar = $s;
            #[inline]
            fn inner(self, b: $t) -> $s {
                Dot::dot(self, b)
            }
        }
    )*};
}
inner_by_dot!(
    Vec2: f32, Vec3: f32, Vec4: f32, DVec2: f64, DVec3: f64, DVec4: f64, Quat: f32, DQuat: f64,
    SpatialVector: f32, DSpatialVector: f64
);

macro_rules! inner_of_matrix {
    ($($t:ident: $s:ty),*) => {$(
        impl Inner for $t {
            type Scalar = $s;
            #[inline]
            fn inner(self, b: $t) -> $s {
                let (a, b) = (self.to_cols_array(), b.to_cols_array());
                a.iter().zip(&b).fold(0.0, |acc, (x, y)| acc + x * y)
            }
        }
    )*};
}
inner_of_matrix!(Mat2: f32, Mat3: f32, Mat4: f32, DMat2: f64, DMat3: f64, DMat4: f64);

macro_rules! inner_of_spatial_matrix {
    ($($t:ident: $s:ty),*) => {$(
        impl Inner for $t {
            type Scalar = $s;
            #[inline]
            fn inner(self, b: $t) -> $s {
                let (a, b) = (self.m.iter().flatten(), b.m.iter().flatten());
                a.zip(b).fold(0.0, |acc, (x, y)| acc + x * y)
            }
        }
    )*};
}
inner_of_spatial_matrix!(SpatialMatrix: f32, DSpatialMatrix: f64);

/// `+`, `-` and unary `-` of a type with itself.
macro_rules! impl_linear {
    ($($t:ty),*) => {$(
        impl AdjAdd for $t {
            type Output = $t;
            #[inline]
            fn adj_add(self, _b: $t, adj_r: $t) -> ($t, $t) {
                (adj_r, adj_r)
            }
        }
        impl AdjSub for $t {
            type Output = $t;
            #[inline]
            fn adj_sub(self, _b: $t, adj_r: $t) -> ($t, $t) {
                (adj_r, -adj_r)
            }
        }
        impl AdjNeg for $t {
            #[inline]
            fn adj_neg(self, adj_r: $t) -> $t {
                -adj_r
            }
        }
    )*};
}
impl_linear!(
    f32,
    f64,
    Vec2,
    Vec3,
    Vec4,
    DVec2,
    DVec3,
    DVec4,
    Mat2,
    Mat3,
    Mat4,
    DMat2,
    DMat3,
    DMat4,
    Quat,
    DQuat,
    SpatialVector,
    DSpatialVector,
    SpatialMatrix,
    DSpatialMatrix
);

/// Componentwise `*` and `/` of scalars with scalars and vectors with vectors.
macro_rules! impl_componentwise {
    ($($t:ty),*) => {$(
        impl AdjMul for $t {
            type Output = $t;
            #[inline]
            fn adj_mul(self, b: $t, adj_r: $t) -> ($t, $t) {
                (adj_r * b, adj_r * self)
            }
        }
        impl AdjDiv for $t {
            type Output = $t;
            #[inline]
            fn adj_div(self, b: $t, adj_r: $t) -> ($t, $t) {
                let ga = adj_r / b;
                (ga, -(ga * (self / b)))
            }
        }
    )*};
}
impl_componentwise!(f32, f64, Vec2, Vec3, Vec4, DVec2, DVec3, DVec4);

macro_rules! impl_rem_scalar {
    ($($t:ty),*) => {$(
        impl AdjRem for $t {
            type Output = $t;
            #[inline]
            fn adj_rem(self, b: $t, adj_r: $t) -> ($t, $t) {
                (adj_r, -(FloatMath::trunc(self / b) * adj_r))
            }
        }
    )*};
}
impl_rem_scalar!(f32, f64);

macro_rules! impl_rem_vector {
    ($($v:ident: $s:ty = $($c:ident),*;)*) => {$(
        impl AdjRem for $v {
            type Output = $v;
            #[inline]
            fn adj_rem(self, b: $v, adj_r: $v) -> ($v, $v) {
                let q = (self - self % b) / b;
                (adj_r, -($v::new($(FloatMath::round(q.$c)),*) * adj_r))
            }
        }
        impl AdjRem<$s> for $v {
            type Output = $v;
            #[inline]
            fn adj_rem(self, s: $s, adj_r: $v) -> ($v, $s) {
                let q = (self - self % s) / s;
                (adj_r, -Dot::dot($v::new($(FloatMath::round(q.$c)),*), adj_r))
            }
        }
    )*};
}
impl_rem_vector! {
    Vec2: f32 = x, y;
    Vec3: f32 = x, y, z;
    Vec4: f32 = x, y, z, w;
    DVec2: f64 = x, y;
    DVec3: f64 = x, y, z;
    DVec4: f64 = x, y, z, w;
}

/// `X * s`, and `s * X` where the IR accepts it.
macro_rules! impl_scale {
    ($s:ty: $($t:ident),* $(; left: $($l:ident),*)?) => {
        $(
            impl AdjMul<$s> for $t {
                type Output = $t;
                #[inline]
                fn adj_mul(self, s: $s, adj_r: $t) -> ($t, $s) {
                    (adj_r * s, Inner::inner(adj_r, self))
                }
            }
        )*
        $($(
            impl AdjMul<$l> for $s {
                type Output = $l;
                #[inline]
                fn adj_mul(self, x: $l, adj_r: $l) -> ($s, $l) {
                    (Inner::inner(adj_r, x), adj_r * self)
                }
            }
        )*)?
    };
}
impl_scale!(f32: Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, Quat, SpatialVector, SpatialMatrix;
    left: Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, SpatialVector, SpatialMatrix);
impl_scale!(f64: DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DQuat, DSpatialVector, DSpatialMatrix;
    left: DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DSpatialVector, DSpatialMatrix);

/// `X / s`.
macro_rules! impl_div_scalar {
    ($s:ty: $($t:ident),*) => {$(
        impl AdjDiv<$s> for $t {
            type Output = $t;
            #[inline]
            fn adj_div(self, s: $s, adj_r: $t) -> ($t, $s) {
                let ga = adj_r / s;
                (ga, -Inner::inner(ga, self / s))
            }
        }
    )*};
}
impl_div_scalar!(f32: Vec2, Vec3, Vec4, Mat2, Mat3, Mat4, Quat, SpatialVector);
impl_div_scalar!(f64: DVec2, DVec3, DVec4, DMat2, DMat3, DMat4, DQuat, DSpatialVector);

/// Matrix · matrix and matrix · vector (glam matrices).
macro_rules! impl_matmul {
    ($($m:ident, $v:ident);*) => {$(
        impl AdjMul for $m {
            type Output = $m;
            #[inline]
            fn adj_mul(self, b: $m, adj_r: $m) -> ($m, $m) {
                (adj_r * b.transpose(), self.transpose() * adj_r)
            }
        }
        impl AdjMul<$v> for $m {
            type Output = $v;
            #[inline]
            fn adj_mul(self, v: $v, adj_r: $v) -> ($m, $v) {
                (Outer::outer(adj_r, v), self.transpose() * adj_r)
            }
        }
    )*};
}
impl_matmul!(Mat2, Vec2; Mat3, Vec3; Mat4, Vec4; DMat2, DVec2; DMat3, DVec3; DMat4, DVec4);

/// Spatial matrix · spatial matrix and spatial matrix · spatial vector.
macro_rules! impl_spatial_matmul {
    ($($sm:ident, $sv:ident);*) => {$(
        impl AdjMul for $sm {
            type Output = $sm;
            #[inline]
            fn adj_mul(self, b: $sm, adj_r: $sm) -> ($sm, $sm) {
                (adj_r * b.transpose(), self.transpose() * adj_r)
            }
        }
        impl AdjMul<$sv> for $sm {
            type Output = $sv;
            #[inline]
            fn adj_mul(self, v: $sv, adj_r: $sv) -> ($sm, $sv) {
                let (g, x) = (adj_r.to_array(), v.to_array());
                let outer = $sm::from_rows(g.map(|gr| x.map(|xc| gr * xc)));
                (outer, self.transpose() * adj_r)
            }
        }
    )*};
}
impl_spatial_matmul!(SpatialMatrix, SpatialVector; DSpatialMatrix, DSpatialVector);

/// `Quat * Quat` (Hamilton product), `Quat * Vec3` (rotation), `Transform * Transform`.
macro_rules! impl_rigid_mul {
    ($($q:ident, $v:ident, $t:ident);*) => {$(
        impl AdjMul for $q {
            type Output = $q;
            #[inline]
            fn adj_mul(self, r: $q, adj_r: $q) -> ($q, $q) {
                AdjRotation::adj_quat_mul(self, r, adj_r)
            }
        }
        impl AdjMul<$v> for $q {
            type Output = $v;
            #[inline]
            fn adj_mul(self, v: $v, adj_r: $v) -> ($q, $v) {
                AdjRotation::adj_rotate(self, v, adj_r)
            }
        }
        impl AdjMul for $t {
            type Output = $t;
            #[inline]
            fn adj_mul(self, b: $t, adj_r: $t) -> ($t, $t) {
                AdjRigidTransform::adj_compose(self, b, adj_r)
            }
        }
    )*};
}
impl_rigid_mul!(Quat, Vec3, Transform; DQuat, DVec3, DTransform);
