//! Finite-difference checks of the vector and matrix adjoints: `dot cross length
//! length_sq normalize outer diag skew transpose determinant trace inverse`.

mod common;

use common::flat::*;
use proptest::prelude::*;
use weft_types::adjoint::traits::{
    AdjCross, AdjDiag, AdjDot, AdjInverse, AdjNorm, AdjOuter, AdjSkew, AdjSquareMatrix,
};
use weft_types::adjoint::*;
use weft_types::builtins::traits::{Diag, Outer, Skew};
use weft_types::builtins::*;
use weft_types::*;

fn dot_case<T: Flat + AdjDot>(s: &mut Source)
where
    T::Scalar: Flat,
{
    let (a, b, g): (T, T, T::Scalar) = (s.any(), s.any(), s.any());
    check("dot", |(a, b)| dot(a, b), (a, b), g, adj_dot(a, b, g));
}

/// `length_sq length normalize` away from the zero vector.
fn norm_case<T: Flat + AdjNorm>(s: &mut Source)
where
    T::Scalar: Flat,
{
    let (v, g, gv): (T, T::Scalar, T) = (s.any(), s.any(), s.any());
    check("length_sq", length_sq::<T>, v, g, adj_length_sq(v, g));
    if v.flat().iter().map(|c| c * c).sum::<f64>() > 0.1 {
        check("length", length::<T>, v, g, adj_length(v, g));
        check("normalize", normalize::<T>, v, gv, adj_normalize(v, gv));
    }
}

fn cross_case<T: Flat + AdjCross>(s: &mut Source) {
    let (a, b, g): (T, T, T) = (s.any(), s.any(), s.any());
    check("cross", |(a, b)| cross(a, b), (a, b), g, adj_cross(a, b, g));
}

fn outer_diag_case<V>(s: &mut Source)
where
    V: Flat
        + Outer<Matrix = <V as AdjOuter>::Matrix>
        + AdjOuter
        + Diag<Matrix = <V as AdjOuter>::Matrix>
        + AdjDiag<Matrix = <V as AdjOuter>::Matrix>,
    <V as AdjOuter>::Matrix: Flat,
{
    let (a, b, g): (V, V, <V as AdjOuter>::Matrix) = (s.any(), s.any(), s.any());
    check("outer", |(a, b)| outer(a, b), (a, b), g, adj_outer(a, b, g));
    check("diag", diag::<V>, a, g, adj_diag(a, g));
}

fn skew_case<V>(s: &mut Source)
where
    V: Flat + Skew<Matrix = <V as AdjSkew>::Matrix> + AdjSkew,
    <V as AdjSkew>::Matrix: Flat,
{
    let (a, g): (V, <V as AdjSkew>::Matrix) = (s.any(), s.any());
    check("skew", skew::<V>, a, g, adj_skew(a, g));
}

/// A diagonally dominant (well-conditioned) matrix: entries in `[-1, 1)` plus `n + 1` on
/// the diagonal.
fn dominant<M: Flat>(s: &mut Source) -> M {
    let n = (M::N as f64).sqrt() as usize;
    let mut c = s.take::<M>(-1.0, 1.0).flat();
    for i in 0..n {
        c[i * n + i] += n as f64 + 1.0;
    }
    M::read(&c)
}

fn square_case<M>(s: &mut Source)
where
    M: Flat + AdjSquareMatrix + AdjInverse,
    M::Scalar: Flat,
{
    let (g, gm): (M::Scalar, M) = (s.any(), s.any());
    let m: M = s.any();
    check("transpose", transpose::<M>, m, gm, adj_transpose(m, gm));
    check("trace", trace::<M>, m, g, adj_trace(m, g));
    // The determinant is a polynomial: any matrix, singular or not (f64 only: the f32
    // finite differences of a determinant with cancellations are rounding noise).
    if !M::F32 {
        check("determinant", determinant::<M>, m, g, adj_determinant(m, g));
    }
    let m: M = dominant(s);
    check("determinant", determinant::<M>, m, g, adj_determinant(m, g));
    check("inverse", inverse::<M>, m, gm, adj_inverse(m, gm));
}

proptest! {
    #![proptest_config(adjoint_config())]

    #[test]
    fn dot_and_norms(mut s in source()) {
        dot_case::<Vec2>(&mut s);
        dot_case::<Vec3>(&mut s);
        dot_case::<Vec4>(&mut s);
        dot_case::<DVec2>(&mut s);
        dot_case::<DVec3>(&mut s);
        dot_case::<DVec4>(&mut s);
        dot_case::<Quat>(&mut s);
        dot_case::<DQuat>(&mut s);
        dot_case::<SpatialVector>(&mut s);
        dot_case::<DSpatialVector>(&mut s);
        norm_case::<Vec2>(&mut s);
        norm_case::<Vec3>(&mut s);
        norm_case::<Vec4>(&mut s);
        norm_case::<DVec2>(&mut s);
        norm_case::<DVec3>(&mut s);
        norm_case::<DVec4>(&mut s);
        norm_case::<Quat>(&mut s);
        norm_case::<DQuat>(&mut s);
    }

    #[test]
    fn cross_outer_diag_skew(mut s in source()) {
        cross_case::<Vec3>(&mut s);
        cross_case::<DVec3>(&mut s);
        outer_diag_case::<Vec2>(&mut s);
        outer_diag_case::<Vec3>(&mut s);
        outer_diag_case::<Vec4>(&mut s);
        outer_diag_case::<DVec2>(&mut s);
        outer_diag_case::<DVec3>(&mut s);
        outer_diag_case::<DVec4>(&mut s);
        skew_case::<Vec3>(&mut s);
        skew_case::<DVec3>(&mut s);
    }

    #[test]
    fn square_matrices(mut s in source()) {
        square_case::<Mat2>(&mut s);
        square_case::<Mat3>(&mut s);
        square_case::<Mat4>(&mut s);
        square_case::<DMat2>(&mut s);
        square_case::<DMat3>(&mut s);
        square_case::<DMat4>(&mut s);
    }
}
