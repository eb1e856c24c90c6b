//! Integrating free rigid bodies over a step: the kernel both rigid solvers
//! use, and the funcs it is made of.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;

use crate::Model;

/// World inverse inertia `R I⁻¹ Rᵀ` of a body at rotation `q`.
#[weft::func]
pub fn world_inv_inertia(q: Quat, inv_inertia: Mat3) -> Mat3 {
    let r = quat_to_matrix(q);
    r * inv_inertia * transpose(r)
}

/// Rotates `q` by the rotation vector `w · dt` (first order, renormalised).
#[weft::func]
pub fn rotate_by(q: Quat, w: Vec3, dt: f32) -> Quat {
    let d = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * q;
    let h = 0.5 * dt;
    let x = q.x + d.x * h;
    let y = q.y + d.y * h;
    let z = q.z + d.z * h;
    let s = q.w + d.w * h;
    let l = sqrt(x * x + y * y + z * z + s * s);
    Quat::from_xyzw(x / l, y / l, z / l, s / l)
}

/// The rotation matrix of `q` (any length) in f64, normalised in f64.
#[weft::func]
pub fn rotation_f64(q: Quat) -> DMat3 {
    let x = q.x as f64;
    let y = q.y as f64;
    let z = q.z as f64;
    let w = q.w as f64;
    let l = sqrt(x * x + y * y + z * z + w * w);
    quat_to_matrix(DQuat::from_xyzw(x / l, y / l, z / l, w / l))
}

/// `v` in f64.
#[weft::func]
pub fn to_dvec3(v: Vec3) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

/// `m` in f64.
#[weft::func]
pub fn to_dmat3(m: Mat3) -> DMat3 {
    DMat3::from_cols(to_dvec3(m.col(0)), to_dvec3(m.col(1)), to_dvec3(m.col(2)))
}

/// One step of a free body (`inv_inertia` is unused: see the body): body pose `x` (body frame), velocity `v` (centre
/// of mass, world), wrench `f` (force, torque about the centre of mass,
/// world). The linear part is symplectic Euler. The angular part advances the
/// world angular momentum `L = R I Rᵀ ω` by the torque and turns the body with
/// the old `ω`; the new `ω` is `L` through the new orientation's inertia, so a
/// free body keeps `L` exactly (up to rounding) and precesses and flips as a
/// real one does (the gyroscopic term is implicit in this split). Bodies
/// without mass (kinematic) move with their velocity.
#[weft::func]
pub fn integrate_body(
    x: Transform,
    v: SpatialVector,
    f: SpatialVector,
    com: Vec3,
    inv_mass: f32,
    inertia: Mat3,
    inv_inertia: Mat3,
    gravity: Vec3,
    dt: f32,
) -> (Transform, SpatialVector) {
    let mut lin = v.top;
    let mut ang = v.bottom;
    let c = transform_point(x, com);
    let mut q1 = rotate_by(x.q, ang, dt);
    if inv_mass > 0.0 {
        lin = lin + (f.top * inv_mass + gravity) * dt;
        // In f64, with the rotations of the f32 quaternions normalised in f64:
        // the next step rebuilds L from the same quaternion and this ω, so L
        // changes only by the rounding of ω to f32 (unbiased), where f32
        // matrices of slightly non-unit quaternions scale it a little every
        // step (8.7e-3 over 10,000 steps of a spinning box).
        let r = rotation_f64(x.q);
        let l = r * (to_dmat3(inertia) * (transpose(r) * to_dvec3(ang))) + to_dvec3(f.bottom * dt);
        let r1 = rotation_f64(q1);
        // The inverse of the f32 inertia in f64 (the stored f32 inverse is off by
        // a rounding, a bias that would scale L every step).
        let w1 = r1 * (inverse(to_dmat3(inertia)) * (transpose(r1) * l));
        ang = Vec3::new(w1.x as f32, w1.y as f32, w1.z as f32);
    }
    let c1 = c + lin * dt;
    let x1 = Transform::new(c1 - quat_rotate(q1, com), q1);
    (x1, SpatialVector::new(lin, ang))
}

/// Steps every body from `(q_in, qd_in)` with wrenches `f` into
/// `(q_out, qd_out)`.
#[weft::kernel]
pub fn integrate_bodies(
    model: &Model,
    q_in: &Array<Transform>,
    qd_in: &Array<SpatialVector>,
    f: &Array<SpatialVector>,
    dt: f32,
    q_out: &mut Array<Transform>,
    qd_out: &mut Array<SpatialVector>,
) {
    let b = tid();
    let (x1, v1) = integrate_body(
        q_in[b],
        qd_in[b],
        f[b],
        model.body_com[b],
        model.body_inv_mass[b],
        model.body_inertia[b],
        model.body_inv_inertia[b],
        model.gravity,
        dt,
    );
    q_out[b] = x1;
    qd_out[b] = v1;
}
