//! Transform type and builtins against glam matrices.

mod common;

use approx::assert_relative_eq;
use common::*;
use proptest::prelude::*;
use weft_types::builtins::*;
use weft_types::*;

fn to_mat4(t: Transform) -> Mat4 {
    Mat4::from_rotation_translation(t.q, t.p)
}

fn assert_transform_eq(a: Transform, b: Transform, eps: f32) {
    assert_relative_eq!(a.p, b.p, epsilon = eps);
    let bq = if a.q.dot(b.q) < 0.0 { -b.q } else { b.q };
    assert_relative_eq!(a.q, bq, epsilon = eps);
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn point_and_vector_match_glam(t in transform(), p in vec3()) {
        let m = to_mat4(t);
        assert_relative_eq!(transform_point(t, p), m.transform_point3(p), epsilon = 1e-4);
        assert_relative_eq!(transform_vector(t, p), m.transform_vector3(p), epsilon = 1e-4);
        prop_assert_eq!(transform_point(t, p), quat_rotate(t.q, p) + t.p);
        prop_assert_eq!(t.transform_point(p), transform_point(t, p));
        prop_assert_eq!(t.transform_vector(p), transform_vector(t, p));
    }

    #[test]
    fn inverse_composes_to_identity(t in transform(), p in vec3()) {
        let inv = transform_inverse(t);
        assert_transform_eq(inv * t, Transform::IDENTITY, 1e-5);
        assert_transform_eq(t * inv, Transform::IDENTITY, 1e-5);
        assert_relative_eq!(transform_point(inv, transform_point(t, p)), p, epsilon = 1e-4);
        prop_assert_eq!(inverse(t), inv);
        prop_assert_eq!(t.inverse(), inv);
        assert_relative_eq!(to_mat4(inv), to_mat4(t).inverse(), epsilon = 1e-4);
    }

    #[test]
    fn composition_matches_matrices(a in transform(), b in transform(), p in vec3()) {
        let ab = a * b;
        assert_relative_eq!(to_mat4(ab), to_mat4(a) * to_mat4(b), epsilon = 1e-4);
        assert_relative_eq!(transform_point(ab, p), transform_point(a, transform_point(b, p)), epsilon = 1e-4);
        let mut c = a;
        c *= b;
        prop_assert_eq!(c, ab);
    }

    #[test]
    fn f64_transforms(a in dvec3(), qa in dquat(), b in dvec3(), qb in dquat(), p in dvec3()) {
        let (ta, tb) = (DTransform::new(a, qa), DTransform::new(b, qb));
        let m = |t: DTransform| DMat4::from_rotation_translation(t.q, t.p);
        assert_relative_eq!(m(ta * tb), m(ta) * m(tb), epsilon = 1e-12);
        assert_relative_eq!(transform_point(ta, p), m(ta).transform_point3(p), epsilon = 1e-12);
        assert_relative_eq!(transform_point(transform_inverse(ta), transform_point(ta, p)), p, epsilon = 1e-12);
        assert_relative_eq!(transform_vector(ta, p), qa * p, epsilon = 1e-12);
    }
}

#[test]
fn constructors() {
    let p = Vec3::new(1.0, 2.0, 3.0);
    let q = Quat::from_rotation_z(0.5);
    assert_eq!(Transform::default(), Transform::IDENTITY);
    assert_eq!(DTransform::default(), DTransform::IDENTITY);
    assert_eq!(
        Transform::from_translation(p),
        Transform::new(p, Quat::IDENTITY)
    );
    assert_eq!(Transform::from_rotation(q), Transform::new(Vec3::ZERO, q));
    assert_eq!(
        Transform::from_translation(p) * Transform::from_rotation(q),
        Transform::new(p, q)
    );
    assert_eq!(transform_point(Transform::IDENTITY, p), p);
}
