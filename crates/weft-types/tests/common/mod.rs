//! Shared proptest strategies and comparison helpers.
#![allow(dead_code)]

use proptest::prelude::*;
use weft_types::*;

pub mod flat;

/// Proptest config: fewer cases in debug builds keeps `cargo test` fast, or
/// `PROPTEST_CASES` when set (stress runs); no regression files are written into the
/// source tree (a failure prints its minimal input).
pub fn config() -> ProptestConfig {
    let default = if cfg!(debug_assertions) { 128 } else { 256 };
    ProptestConfig {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|c| c.parse().ok())
            .unwrap_or(default),
        failure_persistence: None,
        ..Default::default()
    }
}

pub fn f() -> impl Strategy<Value = f32> {
    -10.0f32..10.0
}

pub fn d() -> impl Strategy<Value = f64> {
    -10.0f64..10.0
}

pub fn vec2() -> impl Strategy<Value = Vec2> {
    (f(), f()).prop_map(|(x, y)| Vec2::new(x, y))
}

pub fn vec3() -> impl Strategy<Value = Vec3> {
    (f(), f(), f()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

pub fn vec4() -> impl Strategy<Value = Vec4> {
    (f(), f(), f(), f()).prop_map(|(x, y, z, w)| Vec4::new(x, y, z, w))
}

pub fn dvec3() -> impl Strategy<Value = DVec3> {
    (d(), d(), d()).prop_map(|(x, y, z)| DVec3::new(x, y, z))
}

pub fn dvec4() -> impl Strategy<Value = DVec4> {
    (d(), d(), d(), d()).prop_map(|(x, y, z, w)| DVec4::new(x, y, z, w))
}

/// Any quaternion with all components in [-10, 10).
pub fn quat_any() -> impl Strategy<Value = Quat> {
    vec4().prop_map(Quat::from_vec4)
}

/// A unit quaternion (normalized in f64 so the input is as unit as f32 allows).
pub fn quat() -> impl Strategy<Value = Quat> {
    dquat().prop_map(|q| q.as_quat())
}

/// A unit f64 quaternion.
pub fn dquat() -> impl Strategy<Value = DQuat> {
    dvec4()
        .prop_filter("not near zero", |v| v.length() > 0.1)
        .prop_map(|v| DQuat::from_vec4(v.normalize()))
}

/// A diagonally dominant (so well-conditioned) matrix: entries in [-1, 1) plus `n+1` on
/// the diagonal.
pub fn mat2() -> impl Strategy<Value = Mat2> {
    proptest::array::uniform4(-1.0f32..1.0)
        .prop_map(|a| Mat2::from_cols_array(&a) + Mat2::from_diagonal(Vec2::splat(3.0)))
}

pub fn mat3() -> impl Strategy<Value = Mat3> {
    proptest::array::uniform9(-1.0f32..1.0)
        .prop_map(|a| Mat3::from_cols_array(&a) + Mat3::from_diagonal(Vec3::splat(4.0)))
}

pub fn mat4() -> impl Strategy<Value = Mat4> {
    proptest::array::uniform16(-1.0f32..1.0)
        .prop_map(|a| Mat4::from_cols_array(&a) + Mat4::from_diagonal(Vec4::splat(5.0)))
}

/// Any matrix with entries in [-10, 10).
pub fn mat3_any() -> impl Strategy<Value = Mat3> {
    proptest::array::uniform9(f()).prop_map(|a| Mat3::from_cols_array(&a))
}

pub fn mat4_any() -> impl Strategy<Value = Mat4> {
    proptest::array::uniform16(f()).prop_map(|a| Mat4::from_cols_array(&a))
}

pub fn transform() -> impl Strategy<Value = Transform> {
    (vec3(), quat()).prop_map(|(p, q)| Transform::new(p, q))
}

pub fn spatial() -> impl Strategy<Value = SpatialVector> {
    (vec3(), vec3()).prop_map(|(a, b)| SpatialVector::new(a, b))
}

pub fn dspatial() -> impl Strategy<Value = DSpatialVector> {
    (dvec3(), dvec3()).prop_map(|(a, b)| DSpatialVector::new(a, b))
}

pub fn spatial_matrix() -> impl Strategy<Value = SpatialMatrix> {
    proptest::array::uniform6(proptest::array::uniform6(f())).prop_map(SpatialMatrix::from_rows)
}

/// `|a - b| <= tol * max(1, |a|, |b|)`.
pub fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

#[track_caller]
pub fn assert_close(a: f64, b: f64, tol: f64) {
    assert!(close(a, b, tol), "{a} vs {b} (tol {tol})");
}

#[track_caller]
pub fn assert_close_slice(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            close(*x, *y, tol),
            "component {i}: {x} vs {y} (tol {tol})\n{a:?}\n{b:?}"
        );
    }
}

pub fn sv_f64(v: SpatialVector) -> [f64; 6] {
    v.to_array().map(f64::from)
}
