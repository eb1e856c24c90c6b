//! Vector builtins against glam and f64 references.

mod common;

use approx::assert_relative_eq;
use common::*;
use proptest::prelude::*;
use weft_types::builtins::*;
use weft_types::*;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn dot_is_left_to_right(a in vec4(), b in vec4()) {
        prop_assert_eq!(dot(a, b), a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
        prop_assert_eq!(dot(a.truncate(), b.truncate()), a.x * b.x + a.y * b.y + a.z * b.z);
        prop_assert_eq!(dot(a.truncate().truncate(), b.truncate().truncate()), a.x * b.x + a.y * b.y);
        assert_relative_eq!(dot(a, b), a.dot(b), epsilon = 1e-4);
        let (da, db) = (a.as_dvec4(), b.as_dvec4());
        assert_relative_eq!(dot(da, db), da.dot(db), epsilon = 1e-12);
        assert_relative_eq!(dot(da.truncate(), db.truncate()), da.truncate().dot(db.truncate()), epsilon = 1e-12);
    }

    #[test]
    fn cross_matches_glam(a in vec3(), b in vec3()) {
        assert_relative_eq!(cross(a, b), a.cross(b), epsilon = 1e-4);
        prop_assert_eq!(cross(a, b), -cross(b, a));
        let (da, db) = (a.as_dvec3(), b.as_dvec3());
        assert_relative_eq!(cross(da, db), da.cross(db), epsilon = 1e-12);
        assert_relative_eq!(dot(cross(da, db), da), 0.0, epsilon = 1e-10);
    }

    #[test]
    fn length_and_normalize_match_glam(a in vec4()) {
        assert_relative_eq!(length(a), a.length(), max_relative = 1e-6);
        assert_relative_eq!(length_sq(a), a.length_squared(), max_relative = 1e-6);
        let v3 = a.truncate();
        assert_relative_eq!(length(v3), v3.length(), max_relative = 1e-6);
        assert_relative_eq!(normalize(v3), v3.normalize_or_zero(), epsilon = 1e-6);
        assert_relative_eq!(normalize(a), a.normalize_or_zero(), epsilon = 1e-6);
        let v2 = v3.truncate();
        assert_relative_eq!(normalize(v2), v2.normalize_or_zero(), epsilon = 1e-6);
        let d = a.as_dvec4();
        assert_relative_eq!(length(d), d.length(), max_relative = 1e-14);
        assert_relative_eq!(normalize(d), d.normalize_or_zero(), epsilon = 1e-14);
        assert_relative_eq!(length(normalize(d.truncate())), 1.0, epsilon = 1e-14);
    }

    #[test]
    fn length_sq_is_dot(a in vec3()) {
        prop_assert_eq!(length_sq(a), dot(a, a));
        prop_assert_eq!(length(a), dot(a, a).sqrt());
    }
}

#[test]
fn zero_vectors_stay_zero() {
    assert_eq!(length(Vec3::ZERO), 0.0);
    assert_eq!(length(DVec2::ZERO), 0.0);
    assert_eq!(normalize(Vec3::ZERO), Vec3::ZERO);
    assert_eq!(normalize(Vec4::ZERO), Vec4::ZERO);
    assert_eq!(normalize(DVec3::ZERO), DVec3::ZERO);
    assert_eq!(normalize(Vec2::new(3.0, 4.0)), Vec2::new(0.6, 0.8));
    assert!(
        normalize(Vec3::new(f32::NAN, 0.0, 0.0)).x.is_nan(),
        "NaN propagates"
    );
}
