//! For a non-unit quaternion, `quat_rotate`, `quat_to_matrix` and `transform_point`
//! evaluate their formula as written and their adjoints differentiate that formula
//! (checked off the unit sphere in `adjoint_rigid.rs`). What must hold whatever the
//! formula: along directions that keep `|q|` — the tangent space of the unit sphere —
//! the gradient is the derivative of the rotation itself. Checked here against glam's
//! own rotation (an independent formula) by central differences along great circles.

use proptest::prelude::*;
use weft_types::adjoint::*;
use weft_types::builtins::*;
use weft_types::*;

/// A unit quaternion and a unit tangent direction at it (`dot(q, d) == 0`).
fn unit_and_tangent(a: [f64; 4], b: [f64; 4]) -> Option<(DVec4, DVec4)> {
    let q = DVec4::from_array(a);
    let r = DVec4::from_array(b);
    if q.length() < 0.1 {
        return None;
    }
    let q = q / q.length();
    let d = r - q * q.dot(r);
    (d.length() > 0.1).then(|| (q, d / d.length()))
}

/// `q` moved by angle `h` along the great circle through `q` in direction `d`.
fn along(q: DVec4, d: DVec4, h: f64) -> DQuat {
    let p = q * h.cos() + d * h.sin();
    DQuat::from_xyzw(p.x, p.y, p.z, p.w)
}

fn as_vec4(q: DQuat) -> DVec4 {
    DVec4::new(q.x, q.y, q.z, q.w)
}

/// Central difference of `f` along the great circle.
fn tangent_fd<T>(q: DVec4, d: DVec4, f: impl Fn(DQuat) -> T, dot: impl Fn(T) -> f64) -> f64 {
    let h = 1e-6;
    (dot(f(along(q, d, h))) - dot(f(along(q, d, -h)))) / (2.0 * h)
}

fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-7 * (1.0 + want.abs()),
        "adjoint {got} vs finite difference {want}"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn tangent_gradients_are_the_rotation_derivative(
        a in prop::array::uniform4(-1.0f64..1.0),
        b in prop::array::uniform4(-1.0f64..1.0),
        v in prop::array::uniform3(-2.0f64..2.0),
        g in prop::array::uniform3(-1.0f64..1.0),
        gm in prop::array::uniform9(-1.0f64..1.0),
        p in prop::array::uniform3(-2.0f64..2.0),
    ) {
        let Some((q, d)) = unit_and_tangent(a, b) else { return Ok(()) };
        let (v, g, p) = (DVec3::from_array(v), DVec3::from_array(g), DVec3::from_array(p));
        let gm = DMat3::from_cols_array(&gm);
        let qq = along(q, d, 0.0);

        // quat_rotate: glam's `q * v` as the reference rotation.
        let (gq, _) = adj_quat_rotate(qq, v, g);
        close(as_vec4(gq).dot(d), tangent_fd(q, d, |r| r * v, |x| x.dot(g)));

        // quat_to_matrix: glam's `DMat3::from_quat`.
        let gq = adj_quat_to_matrix(qq, gm);
        let fro = |m: DMat3| (0..3).map(|c| m.col(c).dot(gm.col(c))).sum::<f64>();
        close(as_vec4(gq).dot(d), tangent_fd(q, d, DMat3::from_quat, fro));

        // transform_point: glam's rotation plus the translation.
        let t = DTransform::new(p, qq);
        let (gt, _) = adj_transform_point(t, v, g);
        close(as_vec4(gt.q).dot(d), tangent_fd(q, d, |r| r * v + p, |x| x.dot(g)));
        // The value itself matches the rotation for unit q.
        prop_assert!((transform_point(t, v) - (qq * v + p)).length() < 1e-12);
        prop_assert!((quat_rotate(qq, v) - qq * v).length() < 1e-12);
    }
}
