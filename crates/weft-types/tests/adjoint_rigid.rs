//! Finite-difference checks of the quaternion, transform and spatial adjoints. Quaternions
//! are random, not unit: every rule differentiates its formula as written, so it must
//! also match finite differences that leave the unit sphere.

mod common;

use common::flat::*;
use proptest::prelude::*;
use weft_types::adjoint::traits::{
    AdjAxisAngle, AdjFromRotationMatrix, AdjInverse, AdjRigidTransform, AdjRotation, AdjSpatial,
};
use weft_types::adjoint::*;
use weft_types::builtins::traits::{AxisAngle, FromRotationMatrix};
use weft_types::builtins::*;
use weft_types::*;

fn rotation_case<Q>(s: &mut Source)
where
    Q: Flat + AdjRotation + AdjInverse,
    Q::Vec3: Flat,
    Q::Mat3: Flat,
{
    let (q, v, gv, gm, gq): (Q, Q::Vec3, Q::Vec3, Q::Mat3, Q) =
        (s.any(), s.any(), s.any(), s.any(), s.any());
    check(
        "quat_to_matrix",
        quat_to_matrix::<Q>,
        q,
        gm,
        adj_quat_to_matrix(q, gm),
    );
    check(
        "quat_rotate",
        |(q, v)| quat_rotate(q, v),
        (q, v),
        gv,
        adj_quat_rotate(q, v, gv),
    );
    check(
        "quat_rotate_inv",
        |(q, v)| quat_rotate_inv(q, v),
        (q, v),
        gv,
        adj_quat_rotate_inv(q, v, gv),
    );
    if q.flat().iter().map(|c| c * c).sum::<f64>() > 0.25 {
        check(
            "quat_inverse",
            quat_inverse::<Q>,
            q,
            gq,
            adj_quat_inverse(q, gq),
        );
        check("inverse", inverse::<Q>, q, gq, adj_inverse(q, gq));
    }
}

fn axis_angle_case<V>(s: &mut Source)
where
    V: Flat
        + AxisAngle
        + AdjAxisAngle<Scalar = <V as AxisAngle>::Scalar, Quat = <V as AxisAngle>::Quat>,
    <V as AxisAngle>::Scalar: Flat,
    <V as AxisAngle>::Quat: Flat,
{
    let (axis, angle, g): (V, <V as AxisAngle>::Scalar, <V as AxisAngle>::Quat) =
        (s.any(), s.take(-7.0, 7.0), s.any());
    check(
        "quat_from_axis_angle",
        |(a, t)| quat_from_axis_angle(a, t),
        (axis, angle),
        g,
        adj_quat_from_axis_angle(axis, angle, g),
    );
}

/// A rotation matrix plus noise, kept `margin` away from the boundaries of the forward's
/// Shepperd branches; `Some(branch)` (3: trace, 0–2: largest diagonal element) if it is.
fn shepperd_input(q: DQuat, noise: DMat3, margin: f64) -> Option<(DMat3, usize)> {
    let m = DMat3::from_quat(q.normalize()) + noise * 0.05;
    let d = [m.x_axis.x, m.y_axis.y, m.z_axis.z];
    let t = d[0] + d[1] + d[2];
    if t.abs() < margin {
        return None;
    }
    if t >= 0.0 {
        return Some((m, 3));
    }
    let big = if d[0] >= d[1] && d[0] >= d[2] {
        0
    } else if d[1] >= d[2] {
        1
    } else {
        2
    };
    let gap = (0..3)
        .filter(|&i| i != big)
        .map(|i| d[big] - d[i])
        .fold(f64::MAX, f64::min);
    (gap >= margin).then_some((m, big))
}

fn from_matrix_case<M>(m: DMat3, s: &mut Source)
where
    M: Flat + FromRotationMatrix + AdjFromRotationMatrix<Quat = <M as FromRotationMatrix>::Quat>,
    <M as FromRotationMatrix>::Quat: Flat,
{
    let m = M::read(&m.to_cols_array());
    let g: <M as FromRotationMatrix>::Quat = s.any();
    check(
        "quat_from_matrix",
        quat_from_matrix::<M>,
        m,
        g,
        adj_quat_from_matrix(m, g),
    );
}

fn transform_case<T>(s: &mut Source)
where
    T: Flat + AdjRigidTransform + AdjInverse,
    T::Vec3: Flat,
{
    let (t, p, gv, gt): (T, T::Vec3, T::Vec3, T) = (s.any(), s.any(), s.any(), s.any());
    check(
        "transform_point",
        |(t, p)| transform_point(t, p),
        (t, p),
        gv,
        adj_transform_point(t, p, gv),
    );
    check(
        "transform_vector",
        |(t, p)| transform_vector(t, p),
        (t, p),
        gv,
        adj_transform_vector(t, p, gv),
    );
    check(
        "transform_inverse",
        transform_inverse::<T>,
        t,
        gt,
        adj_transform_inverse(t, gt),
    );
    check("inverse", inverse::<T>, t, gt, adj_inverse(t, gt));
}

fn spatial_case<S>(s: &mut Source)
where
    S: Flat + AdjSpatial,
    S::Vec3: Flat,
{
    let (a, b, g, gv): (S, S, S, S::Vec3) = (s.any(), s.any(), s.any(), s.any());
    check(
        "spatial_top",
        spatial_top::<S>,
        a,
        gv,
        adj_spatial_top(a, gv),
    );
    check(
        "spatial_bottom",
        spatial_bottom::<S>,
        a,
        gv,
        adj_spatial_bottom(a, gv),
    );
    check(
        "spatial_cross",
        |(a, b)| spatial_cross(a, b),
        (a, b),
        g,
        adj_spatial_cross(a, b, g),
    );
    check(
        "spatial_cross_dual",
        |(a, b)| spatial_cross_dual(a, b),
        (a, b),
        g,
        adj_spatial_cross_dual(a, b, g),
    );
}

proptest! {
    #![proptest_config(adjoint_config())]

    #[test]
    fn quaternions(mut s in source()) {
        rotation_case::<Quat>(&mut s);
        rotation_case::<DQuat>(&mut s);
        axis_angle_case::<Vec3>(&mut s);
        axis_angle_case::<DVec3>(&mut s);
    }

    /// Random rotations (all four branches occur) and rotations by nearly π about nearly
    /// each axis (the three diagonal branches), plus noise off the rotation group.
    #[test]
    fn quat_from_matrix_branches(mut s in source(), axis in 0usize..3) {
        let noise: DMat3 = s.any();
        let q: DQuat = s.any();
        let mut near_pi = [0.0; 4];
        near_pi[axis] = 1.0;
        let tilt: DQuat = s.take(-0.2, 0.2);
        let q_pi = DQuat::from_array(near_pi) + tilt;
        for q in [q, q_pi] {
            if q.length() < 0.3 {
                continue;
            }
            if let Some((m, _)) = shepperd_input(q, noise, 0.05) {
                from_matrix_case::<DMat3>(m, &mut s);
                from_matrix_case::<Mat3>(m, &mut s);
            }
        }
    }

    #[test]
    fn transforms_and_spatial(mut s in source()) {
        transform_case::<Transform>(&mut s);
        transform_case::<DTransform>(&mut s);
        spatial_case::<SpatialVector>(&mut s);
        spatial_case::<DSpatialVector>(&mut s);
    }
}

/// The branch-selection helper above does reach every Shepperd branch.
#[test]
fn every_shepperd_branch_is_tested() {
    let mut seen = [false; 4];
    for axis in 0..3 {
        let mut q = [0.0; 4];
        q[axis] = 1.0;
        let (_, b) = shepperd_input(DQuat::from_array(q), DMat3::ZERO, 0.05).unwrap();
        seen[b] = true;
        let m = DMat3::from_quat(DQuat::from_array(q));
        let g = DQuat::from_xyzw(0.3, -0.2, 0.5, 0.7);
        check(
            "quat_from_matrix",
            quat_from_matrix::<DMat3>,
            m,
            g,
            adj_quat_from_matrix(m, g),
        );
    }
    seen[shepperd_input(DQuat::IDENTITY, DMat3::ZERO, 0.05)
        .unwrap()
        .1] = true;
    assert_eq!(seen, [true; 4]);
}
