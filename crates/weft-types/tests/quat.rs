//! Quaternion builtins against glam and identities.

mod common;

use approx::assert_relative_eq;
use common::*;
use proptest::prelude::*;
use weft_types::builtins::*;
use weft_types::*;

/// `a ≈ b` or `a ≈ -b` (the same rotation).
fn assert_same_rotation(a: Quat, b: Quat, eps: f32) {
    let b = if a.dot(b) < 0.0 { -b } else { b };
    assert_relative_eq!(a, b, epsilon = eps);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn axis_angle_matches_glam(axis in vec3(), angle in -10.0f32..10.0) {
        prop_assume!(axis.length() > 0.1);
        let axis = axis.normalize();
        assert_relative_eq!(quat_from_axis_angle(axis, angle), Quat::from_axis_angle(axis, angle), epsilon = 1e-6);
        let daxis = axis.as_dvec3().normalize();
        let dq = quat_from_axis_angle(daxis, angle as f64);
        assert_relative_eq!(dq, DQuat::from_axis_angle(daxis, angle as f64), epsilon = 1e-14);
        assert_relative_eq!(length(dq), 1.0, epsilon = 1e-14);
    }

    #[test]
    fn to_matrix_matches_glam(q in quat()) {
        assert_relative_eq!(quat_to_matrix(q), Mat3::from_quat(q), epsilon = 1e-6);
        let dq = q.as_dquat().normalize();
        assert_relative_eq!(quat_to_matrix(dq), DMat3::from_quat(dq), epsilon = 1e-14);
        let m = quat_to_matrix(dq);
        assert_relative_eq!(transpose(m) * m, DMat3::IDENTITY, epsilon = 1e-14);
        assert_relative_eq!(determinant(m), 1.0, epsilon = 1e-14);
    }

    #[test]
    fn from_matrix_round_trips(q in quat()) {
        assert_same_rotation(quat_from_matrix(quat_to_matrix(q)), q, 2e-6);
        assert_same_rotation(quat_from_matrix(Mat3::from_quat(q)), Quat::from_mat3(&Mat3::from_quat(q)), 2e-6);
        let dq = q.as_dquat().normalize();
        let back = quat_from_matrix(quat_to_matrix(dq));
        let back = if back.dot(dq) < 0.0 { -back } else { back };
        assert_relative_eq!(back, dq, epsilon = 1e-14);
    }

    /// Exercise each of Shepperd's four branches: rotations by ~π about each axis have a
    /// negative trace with the largest diagonal element on that axis.
    #[test]
    fn from_matrix_all_branches(axis in 0usize..3, tilt in vec3(), angle in 2.8f32..std::f32::consts::PI) {
        let base = [Vec3::X, Vec3::Y, Vec3::Z][axis];
        let a = (base + tilt * 0.02).normalize();
        let q = Quat::from_axis_angle(a, angle);
        let m = Mat3::from_quat(q);
        prop_assert!(m.x_axis.x + m.y_axis.y + m.z_axis.z < 0.0);
        assert_same_rotation(quat_from_matrix(m), q, 2e-6);
    }

    #[test]
    fn inverse_matches_glam(q in quat_any()) {
        prop_assume!(q.length() > 0.5);
        // glam's `inverse` is the conjugate (unit quaternions); ours divides by |q|².
        let inv = quat_inverse(q);
        assert_relative_eq!(inv, q.conjugate() / q.length_squared(), epsilon = 1e-6);
        assert_relative_eq!(inv * q, Quat::IDENTITY, epsilon = 1e-5);
        assert_relative_eq!(q * inverse(q), Quat::IDENTITY, epsilon = 1e-5);
        let dq = q.as_dquat();
        assert_relative_eq!(quat_inverse(dq) * dq, DQuat::IDENTITY, epsilon = 1e-14);
    }

    #[test]
    fn rotate_matches_glam(q in quat(), v in vec3()) {
        assert_relative_eq!(quat_rotate(q, v), q * v, epsilon = 1e-5);
        assert_relative_eq!(quat_rotate_inv(q, v), q.inverse() * v, epsilon = 1e-5);
        assert_relative_eq!(quat_rotate_inv(q, quat_rotate(q, v)), v, epsilon = 1e-5);
        assert_relative_eq!(quat_rotate(q, v), quat_to_matrix(q) * v, epsilon = 1e-5);
        let (dq, dv) = (q.as_dquat().normalize(), v.as_dvec3());
        assert_relative_eq!(quat_rotate(dq, dv), dq * dv, epsilon = 1e-13);
        assert_relative_eq!(quat_rotate_inv(dq, dv), dq.inverse() * dv, epsilon = 1e-13);
        assert_relative_eq!(length(quat_rotate(dq, dv)), length(dv), epsilon = 1e-13);
    }

    #[test]
    fn hamilton_product_matches_glam(a in quat_any(), b in quat_any()) {
        assert_relative_eq!(weft_types::builtins::traits::Rotation::mul(a, b), a * b, epsilon = 1e-3);
        let (da, db) = (a.as_dquat(), b.as_dquat());
        assert_relative_eq!(weft_types::builtins::traits::Rotation::mul(da, db), da * db, epsilon = 1e-12);
    }

    #[test]
    fn quat_dot_length_normalize(a in quat_any(), b in quat_any()) {
        prop_assert_eq!(dot(a, b), a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
        prop_assert_eq!(length_sq(a), dot(a, a));
        assert_relative_eq!(length(a), a.length(), max_relative = 1e-6);
        assert_relative_eq!(normalize(a), a.normalize(), epsilon = 1e-6);
        assert_relative_eq!(normalize(a.as_dquat()), a.as_dquat().normalize(), epsilon = 1e-14);
    }
}

#[test]
fn zero_quaternion() {
    let z = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
    assert_eq!(normalize(z), z, "zero stays zero");
    assert_eq!(length(z), 0.0);
    assert!(quat_inverse(z).x.is_nan(), "documented: 0/0");
}

#[test]
fn known_rotations() {
    let q = quat_from_axis_angle(Vec3::Z, std::f32::consts::FRAC_PI_2);
    assert_relative_eq!(quat_rotate(q, Vec3::X), Vec3::Y, epsilon = 1e-6);
    assert_relative_eq!(quat_rotate_inv(q, Vec3::Y), Vec3::X, epsilon = 1e-6);
    assert_relative_eq!(quat_to_matrix(q) * Vec3::X, Vec3::Y, epsilon = 1e-6);
    assert_eq!(quat_from_matrix(Mat3::IDENTITY), Quat::IDENTITY);
    assert_eq!(quat_to_matrix(Quat::IDENTITY), Mat3::IDENTITY);
}
