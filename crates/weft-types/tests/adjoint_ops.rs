//! Finite-difference checks of the operator adjoints `adj_add adj_sub adj_mul adj_div
//! adj_rem adj_neg` on every float operand combination the IR accepts.

mod common;

use common::flat::*;
use core::ops::{Add, Div, Mul, Neg, Rem, Sub};
use proptest::prelude::*;
use weft_types::adjoint::traits::{AdjAdd, AdjDiv, AdjMul, AdjNeg, AdjRem, AdjSub};
use weft_types::adjoint::*;
use weft_types::builtins::traits::Rotation;
use weft_types::builtins::*;
use weft_types::*;

fn linear_case<T>(s: &mut Source)
where
    T: Flat
        + Add<Output = T>
        + Sub<Output = T>
        + Neg<Output = T>
        + AdjAdd<Output = T>
        + AdjSub<Output = T>
        + AdjNeg,
{
    let (a, b, g): (T, T, T) = (s.any(), s.any(), s.any());
    check("add", |(a, b)| a + b, (a, b), g, adj_add(a, b, g));
    check("sub", |(a, b)| a - b, (a, b), g, adj_sub(a, b, g));
    check("neg", |a: T| -a, a, g, adj_neg(a, g));
}

fn mul_case<A, B>(s: &mut Source)
where
    A: Flat + Mul<B> + AdjMul<B, Output = <A as Mul<B>>::Output>,
    B: Flat,
    <A as Mul<B>>::Output: Flat,
{
    let (a, b, g): (A, B, <A as Mul<B>>::Output) = (s.any(), s.any(), s.any());
    check("mul", |(a, b)| a * b, (a, b), g, adj_mul(a, b, g));
}

/// Components in `±[0.5, 2)`.
fn away_from_zero<X: Flat>(s: &mut Source) -> X {
    let m = s.take::<X>(0.5, 2.0).flat();
    let sign = s.any::<X>().flat();
    X::read(
        &m.iter()
            .zip(sign)
            .map(|(m, s)| m.copysign(s))
            .collect::<Vec<_>>(),
    )
}

fn div_case<A, B>(s: &mut Source)
where
    A: Flat + Div<B> + AdjDiv<B, Output = <A as Div<B>>::Output>,
    B: Flat,
    <A as Div<B>>::Output: Flat,
{
    let (a, g): (A, <A as Div<B>>::Output) = (s.any(), s.any());
    let b: B = away_from_zero(s);
    check("div", |(a, b)| a / b, (a, b), g, adj_div(a, b, g));
}

/// `a % b` away from the jumps (`a / b` at least 0.05 from an integer, per component).
fn rem_case<A, B>(s: &mut Source)
where
    A: Flat + Rem<B> + AdjRem<B, Output = <A as Rem<B>>::Output>,
    B: Flat,
    <A as Rem<B>>::Output: Flat,
{
    let (a, g): (A, <A as Rem<B>>::Output) = (s.take(-6.0, 6.0), s.any());
    let b: B = away_from_zero(s);
    let (af, bf) = (a.flat(), b.flat());
    let smooth = af.iter().enumerate().all(|(i, x)| {
        let r = x / bf[i % bf.len()];
        (r - r.round()).abs() > 0.05
    });
    if smooth {
        check("rem", |(a, b)| a % b, (a, b), g, adj_rem(a, b, g));
    }
}

/// The operators of the CPU back end that are builtins rather than glam's: `Quat * Quat`
/// is the Hamilton product `Rotation::mul`, `Quat * Vec3` is `quat_rotate`.
fn quat_products<Q>(s: &mut Source)
where
    Q: Flat
        + Rotation
        + AdjMul<Output = Q>
        + AdjMul<<Q as Rotation>::Vec3, Output = <Q as Rotation>::Vec3>,
    Q::Vec3: Flat,
{
    let (a, b, g): (Q, Q, Q) = (s.any(), s.any(), s.any());
    check(
        "mul",
        |(a, b)| Rotation::mul(a, b),
        (a, b),
        g,
        adj_mul(a, b, g),
    );
    let (v, gv): (Q::Vec3, Q::Vec3) = (s.any(), s.any());
    check(
        "mul",
        |(a, v)| quat_rotate(a, v),
        (a, v),
        gv,
        adj_mul(a, v, gv),
    );
}

macro_rules! each {
    ($f:ident, $s:ident: $($t:ty),*) => {$( $f::<$t>(&mut $s); )*};
    ($f:ident, $s:ident: $($a:ty, $b:ty);*) => {$( $f::<$a, $b>(&mut $s); )*};
}

proptest! {
    #![proptest_config(adjoint_config())]

    #[test]
    fn add_sub_neg(mut s in source()) {
        each!(linear_case, s: f32, f64, Vec2, Vec3, Vec4, DVec2, DVec3, DVec4, Mat2, Mat3, Mat4,
            DMat2, DMat3, DMat4, Quat, DQuat, SpatialVector, DSpatialVector, SpatialMatrix,
            DSpatialMatrix);
    }

    #[test]
    fn mul(mut s in source()) {
        each!(mul_case, s: f32, f32; f64, f64;
            Vec2, Vec2; Vec3, Vec3; Vec4, Vec4; DVec2, DVec2; DVec3, DVec3; DVec4, DVec4;
            Vec2, f32; Vec3, f32; Vec4, f32; DVec2, f64; DVec3, f64; DVec4, f64;
            f32, Vec2; f32, Vec3; f32, Vec4; f64, DVec2; f64, DVec3; f64, DVec4;
            Mat2, Mat2; Mat3, Mat3; Mat4, Mat4; DMat2, DMat2; DMat3, DMat3; DMat4, DMat4;
            Mat2, Vec2; Mat3, Vec3; Mat4, Vec4; DMat2, DVec2; DMat3, DVec3; DMat4, DVec4;
            Mat2, f32; Mat3, f32; Mat4, f32; DMat2, f64; DMat3, f64; DMat4, f64;
            f32, Mat2; f32, Mat3; f32, Mat4; f64, DMat2; f64, DMat3; f64, DMat4;
            Quat, f32; DQuat, f64;
            Transform, Transform; DTransform, DTransform;
            SpatialVector, f32; DSpatialVector, f64; f32, SpatialVector; f64, DSpatialVector;
            SpatialMatrix, SpatialMatrix; DSpatialMatrix, DSpatialMatrix;
            SpatialMatrix, SpatialVector; DSpatialMatrix, DSpatialVector;
            SpatialMatrix, f32; DSpatialMatrix, f64; f32, SpatialMatrix; f64, DSpatialMatrix);
        quat_products::<Quat>(&mut s);
        quat_products::<DQuat>(&mut s);
    }

    #[test]
    fn div(mut s in source()) {
        each!(div_case, s: f32, f32; f64, f64;
            Vec2, Vec2; Vec3, Vec3; Vec4, Vec4; DVec2, DVec2; DVec3, DVec3; DVec4, DVec4;
            Vec2, f32; Vec3, f32; Vec4, f32; DVec2, f64; DVec3, f64; DVec4, f64;
            Mat2, f32; Mat3, f32; Mat4, f32; DMat2, f64; DMat3, f64; DMat4, f64;
            Quat, f32; DQuat, f64; SpatialVector, f32; DSpatialVector, f64);
    }

    #[test]
    fn rem(mut s in source()) {
        each!(rem_case, s: f32, f32; f64, f64;
            Vec2, Vec2; Vec3, Vec3; Vec4, Vec4; DVec2, DVec2; DVec3, DVec3; DVec4, DVec4;
            Vec2, f32; Vec3, f32; Vec4, f32; DVec2, f64; DVec3, f64; DVec4, f64);
    }
}
