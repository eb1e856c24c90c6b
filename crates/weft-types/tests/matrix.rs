//! Matrix builtins against glam and identities.

mod common;

use approx::assert_relative_eq;
use common::*;
use proptest::prelude::*;
use weft_types::builtins::*;
use weft_types::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn transpose_matches_glam(a in mat3_any(), b in mat4_any(), c in mat2()) {
        prop_assert_eq!(transpose(a), a.transpose());
        prop_assert_eq!(transpose(b), b.transpose());
        prop_assert_eq!(transpose(c), c.transpose());
        prop_assert_eq!(transpose(a.as_dmat3()), a.as_dmat3().transpose());
        prop_assert_eq!(transpose(b.as_dmat4()), b.as_dmat4().transpose());
        prop_assert_eq!(transpose(c.as_dmat2()), c.as_dmat2().transpose());
    }

    #[test]
    fn determinant_matches_f64(a in mat3_any(), b in mat4_any(), c in mat2()) {
        // Reference: glam's f64 determinant of the same (exactly widened) matrix.
        let scale3 = a.to_cols_array().iter().fold(1f64, |m, x| m.max(x.abs() as f64)).powi(3);
        let scale4 = b.to_cols_array().iter().fold(1f64, |m, x| m.max(x.abs() as f64)).powi(4);
        assert_close(determinant(a) as f64 / scale3, a.as_dmat3().determinant() / scale3, 1e-5);
        assert_close(determinant(b) as f64 / scale4, b.as_dmat4().determinant() / scale4, 1e-5);
        assert_close(determinant(c) as f64, c.as_dmat2().determinant(), 1e-6);
        assert_close(determinant(a.as_dmat3()), a.as_dmat3().determinant(), 1e-12 * scale3);
        assert_close(determinant(b.as_dmat4()), b.as_dmat4().determinant(), 1e-12 * scale4);
    }

    #[test]
    fn inverse_times_matrix_is_identity(a in mat3(), b in mat4(), c in mat2()) {
        assert_relative_eq!(inverse(a) * a, Mat3::IDENTITY, epsilon = 1e-5);
        assert_relative_eq!(a * inverse(a), Mat3::IDENTITY, epsilon = 1e-5);
        assert_relative_eq!(inverse(b) * b, Mat4::IDENTITY, epsilon = 1e-5);
        assert_relative_eq!(b * inverse(b), Mat4::IDENTITY, epsilon = 1e-5);
        assert_relative_eq!(inverse(c) * c, Mat2::IDENTITY, epsilon = 1e-5);
        assert_relative_eq!(inverse(a), a.inverse(), epsilon = 1e-5);
        assert_relative_eq!(inverse(b), b.inverse(), epsilon = 1e-5);
        assert_relative_eq!(inverse(c), c.inverse(), epsilon = 1e-5);
        let (da, db, dc) = (a.as_dmat3(), b.as_dmat4(), c.as_dmat2());
        assert_relative_eq!(inverse(da) * da, DMat3::IDENTITY, epsilon = 1e-13);
        assert_relative_eq!(inverse(db) * db, DMat4::IDENTITY, epsilon = 1e-13);
        assert_relative_eq!(inverse(dc) * dc, DMat2::IDENTITY, epsilon = 1e-13);
    }

    #[test]
    fn determinant_of_inverse(b in mat4()) {
        let db = b.as_dmat4();
        assert_relative_eq!(determinant(inverse(db)) * determinant(db), 1.0, epsilon = 1e-12);
    }

    #[test]
    fn trace_and_diag(a in mat4_any(), v in vec4()) {
        prop_assert_eq!(trace(a), a.x_axis.x + a.y_axis.y + a.z_axis.z + a.w_axis.w);
        let a3 = Mat3::from_mat4(a);
        prop_assert_eq!(trace(a3), a.x_axis.x + a.y_axis.y + a.z_axis.z);
        prop_assert_eq!(trace(Mat2::from_mat3(a3).as_dmat2()), a.x_axis.x as f64 + a.y_axis.y as f64);
        prop_assert_eq!(diag(v), Mat4::from_diagonal(v));
        prop_assert_eq!(diag(v.truncate()), Mat3::from_diagonal(v.truncate()));
        prop_assert_eq!(diag(v.truncate().truncate().as_dvec2()), DMat2::from_diagonal(v.truncate().truncate().as_dvec2()));
        prop_assert_eq!(trace(diag(v)), v.x + v.y + v.z + v.w);
    }

    #[test]
    fn outer_is_a_times_b_transposed(a in vec4(), b in vec4()) {
        let m = outer(a, b);
        for i in 0..4 {
            for j in 0..4 {
                // glam: col(j)[i] is row i, column j.
                prop_assert_eq!(m.col(j)[i], a[i] * b[j]);
            }
        }
        let (a3, b3) = (a.truncate(), b.truncate());
        // outer(a, b) * c == a * dot(b, c).
        let c = Vec3::new(0.5, -1.0, 2.0);
        assert_relative_eq!(outer(a3, b3) * c, a3 * b3.dot(c), epsilon = 1e-3);
        assert_relative_eq!(outer(a3.as_dvec3(), b3.as_dvec3()) * c.as_dvec3(), a3.as_dvec3() * b3.as_dvec3().dot(c.as_dvec3()), epsilon = 1e-10);
        let (a2, b2) = (a3.truncate(), b3.truncate());
        prop_assert_eq!(outer(a2, b2).col(1), a2 * b2.y);
        prop_assert_eq!(transpose(outer(a, b)), outer(b, a));
    }

    #[test]
    fn skew_times_b_is_cross(a in vec3(), b in vec3()) {
        prop_assert_eq!(skew(a) * b, cross(a, b));
        prop_assert_eq!(skew(a.as_dvec3()) * b.as_dvec3(), cross(a.as_dvec3(), b.as_dvec3()));
        prop_assert_eq!(transpose(skew(a)), -skew(a));
    }
}

#[test]
fn column_major_layout_is_respected() {
    // Row 0 = [1, 2], row 1 = [3, 4].
    let m = Mat2::from_cols(Vec2::new(1.0, 3.0), Vec2::new(2.0, 4.0));
    assert_eq!(determinant(m), 1.0 * 4.0 - 2.0 * 3.0);
    assert_eq!(
        inverse(m),
        Mat2::from_cols(Vec2::new(-2.0, 1.5), Vec2::new(1.0, -0.5))
    );
    assert_eq!(trace(m), 5.0);
    let s = skew(Vec3::new(1.0, 2.0, 3.0));
    assert_eq!(s.row(0), Vec3::new(0.0, -3.0, 2.0));
    assert_eq!(s.row(1), Vec3::new(3.0, 0.0, -1.0));
    assert_eq!(s.row(2), Vec3::new(-2.0, 1.0, 0.0));
    let o = outer(Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 10.0, 100.0));
    assert_eq!(o.row(1), Vec3::new(2.0, 20.0, 200.0));
}

#[test]
fn singular_matrices_invert_to_zero() {
    let m = Mat3::from_cols(Vec3::X, Vec3::X, Vec3::Z);
    assert_eq!(determinant(m), 0.0);
    assert_eq!(inverse(m), Mat3::ZERO);
    assert_eq!(inverse(Mat2::from_cols(Vec2::ONE, Vec2::ONE)), Mat2::ZERO);
    assert_eq!(inverse(DMat4::ZERO), DMat4::ZERO);
    // A nonzero (subnormal) det whose quotient 1 / det overflows: zero too.
    assert_eq!(
        inverse(Mat2::from_diagonal(Vec2::new(1.0, 1e-39))),
        Mat2::ZERO
    );
    assert_eq!(adjoint::adj_inverse(m, Mat3::IDENTITY), Mat3::ZERO);
}
