//! Semi-implicit Euler in generalized coordinates: `q̇⁺ = q̇ + h q̈`, then the
//! positions move with `q̇⁺`; rotations of ball and free joints move on the
//! unit quaternions (by the exponential of the local angular velocity).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::Model;

use crate::joint_math::quat_at;

/// `r ⊗ exp(ω h / 2)`: `r` turned by the angular velocity `w` (in its own
/// frame) for `h` seconds, renormalised. Exact for constant `w`; the small
/// angle branch keeps the gradient finite at `w = 0`.
#[weft::func]
pub fn rotate_local(r: Quat, w: Vec3, h: f32) -> Quat {
    let speed = length(w);
    let half = 0.5 * speed * h;
    let mut k = 0.5 * h * (1.0 - half * half / 6.0);
    if half > 1e-3 {
        k = sin(half) / speed;
    }
    normalize(r * Quat::from_xyzw(w.x * k, w.y * k, w.z * k, cos(half)))
}

/// Steps every joint's coordinates over `dt` with accelerations `qdd` into
/// `q_out`, `qd_out`.
#[weft::kernel]
pub fn integrate_joints(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    qdd: &Array<f32>,
    dt: f32,
    q_out: &mut Array<f32>,
    qd_out: &mut Array<f32>,
) {
    let j = tid();
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j];
    let ds = model.joint_qd_start[j];
    for i in ds..model.joint_qd_start[j + 1] {
        qd_out[i] = qd[i] + qdd[i] * dt;
    }
    if kind == 2 || kind == 4 {
        let mut a = ds;
        let mut qr = qs;
        if kind == 4 {
            for k in 0..3 {
                q_out[qs + k] = q[qs + k] + (qd[ds + k] + qdd[ds + k] * dt) * dt;
            }
            a = ds + 3;
            qr = qs + 3;
        }
        let w = Vec3::new(
            qd[a] + qdd[a] * dt,
            qd[a + 1] + qdd[a + 1] * dt,
            qd[a + 2] + qdd[a + 2] * dt,
        );
        let r = rotate_local(quat_at(q, qr), w, dt);
        q_out[qr] = r.x;
        q_out[qr + 1] = r.y;
        q_out[qr + 2] = r.z;
        q_out[qr + 3] = r.w;
    } else {
        for i in ds..model.joint_qd_start[j + 1] {
            q_out[qs + i - ds] = q[qs + i - ds] + (qd[i] + qdd[i] * dt) * dt;
        }
    }
}

/// Advances coordinates `q` by velocities `qd` over `dt` on the joints'
/// manifolds (no acceleration): what [`integrate_joints`] does to positions.
#[weft::kernel]
pub fn advance_coordinates(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    dt: f32,
    q_out: &mut Array<f32>,
) {
    let j = tid();
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j];
    let ds = model.joint_qd_start[j];
    if kind == 2 || kind == 4 {
        let mut a = ds;
        let mut qr = qs;
        if kind == 4 {
            for k in 0..3 {
                q_out[qs + k] = q[qs + k] + qd[ds + k] * dt;
            }
            a = ds + 3;
            qr = qs + 3;
        }
        let r = rotate_local(quat_at(q, qr), Vec3::new(qd[a], qd[a + 1], qd[a + 2]), dt);
        q_out[qr] = r.x;
        q_out[qr + 1] = r.y;
        q_out[qr + 2] = r.z;
        q_out[qr + 3] = r.w;
    } else {
        for i in ds..model.joint_qd_start[j + 1] {
            q_out[qs + i - ds] = q[qs + i - ds] + qd[i] * dt;
        }
    }
}
