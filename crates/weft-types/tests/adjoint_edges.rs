//! The adjoints' documented values at kinks and singularities (exact, never NaN), every
//! overload's existence, and the match with the differentiable entries of the IR table.

mod common;

use common::flat::*;
use weft_types::adjoint::*;
use weft_types::builtins::*;
use weft_types::*;

#[test]
fn roots_at_zero_are_zero() {
    for x in [0.0f64, -0.0, -1.0] {
        assert_eq!(adj_sqrt(x, 1.0), 0.0);
        assert_eq!(adj_sqrt(x as f32, 1.0), 0.0);
    }
    for x in [0.0f64, -0.0] {
        assert_eq!(adj_cbrt(x, 1.0), 0.0);
        assert_eq!(adj_cbrt(x as f32, 1.0), 0.0);
    }
    assert_eq!(adj_cbrt(-8.0f64, 12.0), 1.0);
}

#[test]
fn asin_acos_at_and_beyond_one_are_zero() {
    for x in [1.0f64, -1.0, 1.5, -2.0] {
        assert_eq!(adj_asin(x, 1.0), 0.0);
        assert_eq!(adj_acos(x, 1.0), 0.0);
        assert_eq!(adj_asin(x as f32, 1.0), 0.0);
        assert_eq!(adj_acos(x as f32, 1.0), 0.0);
    }
    assert_eq!(adj_asin(0.0f64, 2.0), 2.0);
    assert_eq!(adj_acos(0.0f32, 2.0), -2.0);
}

#[test]
fn atan2_at_the_origin_and_at_extremes() {
    assert_eq!(adj_atan2(0.0f64, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(adj_atan2(-0.0f32, -0.0, 1.0), (0.0, 0.0));
    assert_eq!(adj_atan2(1.0f64, f64::INFINITY, 1.0), (0.0, 0.0));
    // Tiny and huge arguments: scaled, so no underflow to 0 or overflow to NaN.
    let (dy, dx) = adj_atan2(0.0f64, 1e-300, 1.0);
    assert!((dy / 1e300 - 1.0).abs() < 1e-15 && dx == 0.0, "{dy} {dx}");
    let (dy, dx) = adj_atan2(3e-30f32, 4e-30, 1.0);
    assert!(
        (dy / 1.6e29 - 1.0).abs() < 1e-5 && (dx / -1.2e29 - 1.0).abs() < 1e-5,
        "{dy} {dx}"
    );
    let (dy, dx) = adj_atan2(3e300f64, 4e300, 1.0);
    assert!((dy / 1.6e-301 - 1.0).abs() < 1e-12 && (dx / -1.2e-301 - 1.0).abs() < 1e-12);
}

#[test]
fn pow_conventions() {
    // d/dx at x = 0: 0 for y < 1, the formula for y >= 1.
    assert_eq!(adj_pow(0.0f64, 0.5, 1.0), (0.0, 0.0));
    assert_eq!(adj_pow(0.0f64, -2.0, 1.0), (0.0, 0.0));
    assert_eq!(adj_pow(0.0f64, 0.0, 1.0), (0.0, 0.0));
    assert_eq!(adj_pow(0.0f64, 1.0, 3.0), (3.0, 0.0));
    assert_eq!(adj_pow(0.0f32, 2.5, 1.0), (0.0, 0.0));
    // y = 0: no `0 * inf` even where x^(y-1) overflows.
    let (dx, dy) = adj_pow(1e-39f32, 0.0, 1.0);
    assert_eq!(dx, 0.0);
    assert!((dy - 1e-39f64.ln() as f32).abs() < 1e-4, "{dy}");
    // Negative base, integer exponent: d/dx by the formula, d/dy 0.
    assert_eq!(adj_pow(-2.0f64, 3.0, 1.0), (12.0, 0.0));
    assert_eq!(adj_pow(-2.0f32, 2.0, 1.0), (-4.0, 0.0));
    // Positive base: d/dy = x^y ln x.
    let (dx, dy) = adj_pow(2.0f64, 3.0, 1.0);
    assert!((dx - 12.0).abs() < 1e-12 && (dy - 8.0 * 2f64.ln()).abs() < 1e-12);
    // A zero adjoint gives zeros, even where the result overflows.
    assert_eq!(adj_pow(1e30f32, 100.0, 0.0), (0.0, 0.0));
}

#[test]
fn log_at_zero() {
    assert_eq!(adj_log(0.0f64, 1.0), f64::INFINITY);
    assert_eq!(adj_log(-0.0f64, 1.0), f64::NEG_INFINITY);
    assert_eq!(adj_log(0.0f32, -2.0), f32::NEG_INFINITY);
    assert_eq!(adj_log2(0.0f64, 1.0), f64::INFINITY);
    assert_eq!(adj_log10(0.0f32, 1.0), f32::INFINITY);
    for g in [0.0f64, -0.0] {
        assert_eq!(adj_log(0.0f64, g), 0.0);
        assert_eq!(adj_log2(0.0f64, g), 0.0);
        assert_eq!(adj_log10(0.0f32, g as f32), 0.0);
    }
}

#[test]
fn piecewise_constant_functions_have_zero_adjoints() {
    for x in [-2.5f64, -1.0, -0.0, 0.0, 0.5, 1.0, 1.5] {
        assert_eq!(adj_floor(x, 1.0), 0.0);
        assert_eq!(adj_ceil(x, 1.0), 0.0);
        assert_eq!(adj_round(x, 1.0), 0.0);
        assert_eq!(adj_trunc(x, 1.0), 0.0);
        assert_eq!(adj_sign(x, 1.0), 0.0);
        assert_eq!(adj_sign(x as f32, 1.0), 0.0);
    }
    assert_eq!(adj_sign(Vec3::new(-1.0, 0.0, 2.0), Vec3::ONE), Vec3::ZERO);
}

#[test]
fn abs_at_zero_is_zero() {
    assert_eq!(adj_abs(0.0f64, 1.0), 0.0);
    assert_eq!(adj_abs(-0.0f32, 1.0), 0.0);
    assert_eq!(adj_abs(-3.0f64, 2.0), -2.0);
    assert_eq!(
        adj_abs(DVec4::new(-1.0, 0.0, 2.0, -0.0), DVec4::splat(3.0)),
        DVec4::new(-3.0, 0.0, 3.0, 0.0)
    );
}

#[test]
fn min_max_send_ties_and_nan_to_the_returned_argument() {
    assert_eq!(adj_min(1.0f64, 1.0, 2.0), (2.0, 0.0));
    assert_eq!(adj_max(1.0f32, 1.0, 2.0), (2.0, 0.0));
    assert_eq!(adj_min(1.0f64, 0.5, 2.0), (0.0, 2.0));
    assert_eq!(adj_max(1.0f64, 0.5, 2.0), (2.0, 0.0));
    // minNum/maxNum return the non-NaN argument.
    assert_eq!(adj_min(1.0f64, f64::NAN, 2.0), (2.0, 0.0));
    assert_eq!(adj_min(f64::NAN, 1.0, 2.0), (0.0, 2.0));
    assert_eq!(adj_max(f32::NAN, 1.0, 2.0), (0.0, 2.0));
    let (a, b) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 1.0, 4.0));
    assert_eq!(
        adj_min(a, b, Vec3::ONE),
        (Vec3::new(1.0, 0.0, 1.0), Vec3::new(0.0, 1.0, 0.0))
    );
    assert_eq!(
        adj_max(a, b, Vec3::ONE),
        (Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.0, 0.0, 1.0))
    );
}

#[test]
fn clamp_is_inclusive() {
    assert_eq!(adj_clamp(0.0f64, 0.0, 1.0, 2.0), (2.0, 0.0, 0.0));
    assert_eq!(adj_clamp(1.0f64, 0.0, 1.0, 2.0), (2.0, 0.0, 0.0));
    assert_eq!(adj_clamp(-1.0f32, 0.0, 1.0, 2.0), (0.0, 2.0, 0.0));
    assert_eq!(adj_clamp(3.0f32, 0.0, 1.0, 2.0), (0.0, 0.0, 2.0));
    let (x, lo, hi) = (DVec3::new(-1.0, 0.5, 2.0), DVec3::ZERO, DVec3::ONE);
    assert_eq!(
        adj_clamp(x, lo, hi, DVec3::ONE),
        (
            DVec3::new(0.0, 1.0, 0.0),
            DVec3::new(1.0, 0.0, 0.0),
            DVec3::new(0.0, 0.0, 1.0)
        )
    );
}

#[test]
fn zero_vectors_have_zero_length_and_normalize_adjoints() {
    assert_eq!(adj_length(Vec3::ZERO, 1.0), Vec3::ZERO);
    assert_eq!(adj_length(DVec2::ZERO, 1.0), DVec2::ZERO);
    assert_eq!(adj_normalize(Vec4::ZERO, Vec4::ONE), Vec4::ZERO);
    assert_eq!(adj_normalize(DVec3::ZERO, DVec3::ONE), DVec3::ZERO);
    let zq = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert_eq!(adj_length(zq, 1.0).to_array(), [0.0; 4]);
    assert_eq!(adj_normalize(zq, Quat::IDENTITY).to_array(), [0.0; 4]);
    // Underflowing `dot(v, v)` makes `normalize` return zero, and its adjoint zero.
    let tiny = Vec3::splat(1e-30);
    assert_eq!(normalize(tiny), Vec3::ZERO);
    assert_eq!(adj_normalize(tiny, Vec3::ONE), Vec3::ZERO);
    // Overflowing `dot(v, v)`: zeros, no NaN.
    let huge = Vec3::splat(1e30);
    assert_eq!(adj_normalize(huge, Vec3::ONE), Vec3::ZERO);
    assert_eq!(adj_length(huge, 1.0), Vec3::ZERO);
}

#[test]
fn determinant_adjoint_is_the_cofactor_matrix_also_when_singular() {
    let m = DMat3::from_diagonal(DVec3::new(1.0, 2.0, 0.0));
    assert_eq!(
        adj_determinant(m, 1.0),
        DMat3::from_diagonal(DVec3::new(0.0, 0.0, 2.0))
    );
    assert_eq!(adj_determinant(Mat4::ZERO, 1.0), Mat4::ZERO);
    let rank3 = Mat4::from_diagonal(Vec4::new(1.0, 2.0, 3.0, 0.0));
    assert_eq!(
        adj_determinant(rank3, 2.0),
        Mat4::from_diagonal(Vec4::new(0.0, 0.0, 0.0, 12.0))
    );
    // 2×2 with rows [1, 2], [3, 4]: cofactors [[4, -3], [-2, 1]].
    let m = DMat2::from_cols(DVec2::new(1.0, 3.0), DVec2::new(2.0, 4.0));
    assert_eq!(
        adj_determinant(m, 1.0),
        DMat2::from_cols(DVec2::new(4.0, -2.0), DVec2::new(-3.0, 1.0))
    );
    // A singular matrix's rule is still checked by finite differences (a polynomial).
    let s = DMat3::from_cols(
        DVec3::new(1.0, 2.0, 3.0),
        DVec3::new(2.0, 4.0, 6.0),
        DVec3::new(0.5, -1.0, 2.0),
    );
    assert_eq!(determinant(s), 0.0);
    check(
        "determinant",
        determinant::<DMat3>,
        s,
        1.5,
        adj_determinant(s, 1.5),
    );
}

#[test]
fn inverse_of_a_diagonal_matrix() {
    let m = DMat2::from_diagonal(DVec2::new(2.0, 4.0));
    assert_eq!(
        adj_inverse(m, DMat2::IDENTITY),
        DMat2::from_diagonal(DVec2::new(-0.25, -0.0625))
    );
}

#[test]
fn rem_quotient() {
    assert_eq!(adj_rem(7.5f64, 2.0, 1.0), (1.0, -3.0));
    assert_eq!(adj_rem(-7.5f32, 2.0, 2.0), (2.0, 6.0));
    // Vectors follow the quotient their forward `%` used (glam's `Vec4` floors on SSE2,
    // the others truncate).
    let (a, b) = (Vec4::new(-7.5, 7.5, -1.0, 3.0), Vec4::splat(2.0));
    let q = (a - a % b) / b;
    assert_eq!(adj_rem(a, b, Vec4::ONE), (Vec4::ONE, -q));
    let (a, b) = (Vec3::new(-7.5, 7.5, -1.0), Vec3::splat(2.0));
    assert_eq!(
        adj_rem(a, b, Vec3::ONE),
        (Vec3::ONE, Vec3::new(3.0, -3.0, 0.0))
    );
    assert_eq!(adj_rem(a, 2.0f32, Vec3::ONE), (Vec3::ONE, 0.0));
}

#[test]
fn quaternion_and_transform_rules_are_finite_at_the_identity() {
    let g = DQuat::from_xyzw(0.1, 0.2, 0.3, 0.4);
    assert_no_nan("quat_inverse", adj_quat_inverse(DQuat::IDENTITY, g));
    assert_no_nan("quat_from_matrix", adj_quat_from_matrix(DMat3::IDENTITY, g));
    assert_no_nan(
        "quat_from_matrix",
        adj_quat_from_matrix(Mat3::IDENTITY, g.as_quat()),
    );
    let gt = DTransform::new(DVec3::ONE, g);
    assert_no_nan(
        "transform_inverse",
        adj_transform_inverse(DTransform::IDENTITY, gt),
    );
    let (da, db) = adj_mul(DTransform::IDENTITY, DTransform::IDENTITY, gt);
    assert_eq!((da.p, db.q), (gt.p, g));
}

/// The finite-difference checker itself rejects a wrong adjoint (f64: 1e-5 off).
#[test]
#[should_panic(expected = "disagrees with finite differences")]
fn checker_rejects_a_wrong_f64_adjoint() {
    check(
        "sin",
        sin::<f64>,
        1.0f64,
        1.0,
        adj_sin(1.0f64, 1.0) * (1.0 + 1e-5),
    );
}

/// The finite-difference checker itself rejects a wrong adjoint (f32: 5% off).
#[test]
#[should_panic(expected = "disagrees with finite differences")]
fn checker_rejects_a_wrong_f32_adjoint() {
    let m = Mat3::from_cols_array(&[4.0, 0.1, 0.2, 0.3, 5.0, 0.1, 0.2, 0.3, 4.0]);
    let g = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0));
    check("inverse", inverse::<Mat3>, m, g, adj_inverse(m, g) * 1.05);
}
