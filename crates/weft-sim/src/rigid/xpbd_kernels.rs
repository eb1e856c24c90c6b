//! The kernels of [`XpbdRigid`](super::XpbdRigid): contact position
//! projections with static friction, their averaged application, velocities
//! from positions, and the velocity pass (dynamic friction, restitution).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, ShapeSet};

use super::contact_math::{
    body_com_world, body_pose, contact_points, effective_inv_mass, point_velocity,
};
use super::integrate::{rotate_by, world_inv_inertia};
use crate::Model;

/// Adds impulse-like correction `p` at offset `r` to body `b` (nothing for static
/// geometry): `p / m` to `dx`, `I⁻¹ (r × p)` to `dw`, and one to its count.
#[weft::func]
pub fn add_correction(
    model: &Model,
    b: i32,
    q: Quat,
    r: Vec3,
    p: Vec3,
    dx: &mut Array<Vec3>,
    dw: &mut Array<Vec3>,
    counts: &mut Array<f32>,
) {
    add_correction_torque(model, b, q, r, p, Vec3::ZERO, 1.0, dx, dw, counts);
}

/// [`add_correction`] plus a pure angular correction `tau`, counted as
/// `share` of a correction: a contact of a manifold of `k` points adds `1 / k`
/// (its `p` already divided by `k`), so a manifold counts once however many
/// points it has.
#[weft::func]
pub fn add_correction_torque(
    model: &Model,
    b: i32,
    q: Quat,
    r: Vec3,
    p: Vec3,
    tau: Vec3,
    share: f32,
    dx: &mut Array<Vec3>,
    dw: &mut Array<Vec3>,
    counts: &mut Array<f32>,
) {
    if b >= 0 {
        if model.body_inv_mass[b] > 0.0 {
            atomic_add(&mut dx[b], p * model.body_inv_mass[b]);
            atomic_add(
                &mut dw[b],
                world_inv_inertia(q, model.body_inv_inertia[b]) * (cross(r, p) + tau),
            );
            atomic_add(&mut counts[b], share);
        }
    }
}

/// Per manifold (contacts found by one pair slot), once per step at the
/// step's poses `q`: contact count, sums of the surface points in each body's
/// frame and of their squared lengths (for the patch radius), of the normals,
/// and the two shapes.
#[weft::kernel]
pub fn patch_sums(
    model: &Model,
    contacts: &Contacts,
    q: &Array<Transform>,
    count: &mut Array<f32>,
    point_a: &mut Array<Vec3>,
    point_b: &mut Array<Vec3>,
    spread: &mut Array<f32>,
    normal: &mut Array<Vec3>,
    shapes: &mut Array<IVec2>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let m = contacts.pair[c];
        let (ba, bb, pa, pb, n) = contact_points(model, contacts, q, c);
        let la = transform_point(transform_inverse(body_pose(q, ba)), pa);
        let lb = transform_point(transform_inverse(body_pose(q, bb)), pb);
        atomic_add(&mut count[m], 1.0);
        atomic_add(&mut point_a[m], la);
        atomic_add(&mut point_b[m], lb);
        atomic_add(&mut spread[m], dot(la, la));
        atomic_add(&mut normal[m], n);
        shapes[m] = IVec2::new(contacts.shape_a[c], contacts.shape_b[c]);
    }
}

/// Friction of each manifold as one patch (as PhysX's patch friction): the
/// tangential slip of the manifold's centroid since the substep began
/// (`q_prev`) is undone while that needs at most `mu_static` times the
/// manifold's normal correction this substep (`patch_lambda`), else limited
/// to `mu` times it (kinetic); the relative twist about the normal likewise,
/// with the limit scaled by the patch's radius (a single point has none, so a
/// sphere spins freely). One correction per manifold avoids the loss that
/// averaging several corners' corrections has (their rotations cancel).
#[weft::kernel]
pub fn patch_friction(
    model: &Model,
    count: &Array<f32>,
    point_a: &Array<Vec3>,
    point_b: &Array<Vec3>,
    spread: &Array<f32>,
    normal: &Array<Vec3>,
    shapes: &Array<IVec2>,
    patch_lambda: &Array<f32>,
    q: &Array<Transform>,
    q_prev: &Array<Transform>,
    dx: &mut Array<Vec3>,
    dw: &mut Array<Vec3>,
    counts: &mut Array<f32>,
) {
    let m = tid();
    let k = count[m];
    // Each contact's correction is computed as if it alone held the bodies
    // apart (Jacobi), so their mean, not their sum, is the manifold's normal
    // impulse.
    let lam = patch_lambda[m] / max(k, 1.0);
    if k > 0.0 && lam > 0.0 {
        let s = shapes[m];
        let ba = model.rigid_shapes.body[s.x];
        let bb = model.rigid_shapes.body[s.y];
        let mu_s = 0.5 * (model.rigid_shapes.mu_static[s.x] + model.rigid_shapes.mu_static[s.y]);
        let mu_d = 0.5 * (model.rigid_shapes.mu[s.x] + model.rigid_shapes.mu[s.y]);
        let n = normalize(normal[m]);
        let la = point_a[m] / k;
        let lb = point_b[m] / k;
        let xa = body_pose(q, ba);
        let xb = body_pose(q, bb);
        let xa0 = body_pose(q_prev, ba);
        let xb0 = body_pose(q_prev, bb);
        let pa = transform_point(xa, la);
        let pb = transform_point(xb, lb);
        let slip = (pb - transform_point(xb0, lb)) - (pa - transform_point(xa0, la));
        let st = slip - n * dot(n, slip);
        let ls = length(st);
        let ra = pa - body_com_world(model, ba, xa);
        let rb = pb - body_com_world(model, bb, xb);
        let mut p = Vec3::ZERO;
        if ls > 1.0e-9 {
            let t = st / ls;
            let wt = effective_inv_mass(model, ba, xa.q, ra, t)
                + effective_inv_mass(model, bb, xb.q, rb, t);
            if wt > 0.0 {
                let mut dlt = ls / wt;
                if dlt > mu_s * lam {
                    dlt = mu_d * lam;
                }
                p = -t * dlt;
            }
        }
        // Twist about the normal since the substep began.
        let radius = sqrt(max(spread[m] / k - dot(la, la), 0.0));
        let mut tau = Vec3::ZERO;
        if radius > 1.0e-6 {
            let twist = dot(
                n,
                rotation_vector(xb.q, xb0.q) - rotation_vector(xa.q, xa0.q),
            );
            let mut wr = 0.0;
            if ba >= 0 {
                wr += dot(n, world_inv_inertia(xa.q, model.body_inv_inertia[ba]) * n);
            }
            if bb >= 0 {
                wr += dot(n, world_inv_inertia(xb.q, model.body_inv_inertia[bb]) * n);
            }
            if abs(twist) > 1.0e-9 && wr > 0.0 {
                let mut lt = abs(twist) / wr;
                if lt > mu_s * lam * radius {
                    lt = mu_d * lam * radius;
                }
                tau = n * (-sign(twist) * lt);
            }
        }
        if length_sq(p) > 0.0 || length_sq(tau) > 0.0 {
            add_correction_torque(model, bb, xb.q, rb, p, tau, 1.0, dx, dw, counts);
            add_correction_torque(model, ba, xa.q, ra, -p, -tau, 1.0, dx, dw, counts);
        }
    }
}

/// The rotation vector of `q1 · q0⁻¹` (small angles): twice its vector part,
/// on the short way round.
#[weft::func]
pub fn rotation_vector(q1: Quat, q0: Quat) -> Vec3 {
    let d = q1 * quat_inverse(q0);
    let mut v = Vec3::new(d.x, d.y, d.z) * 2.0;
    if d.w < 0.0 {
        v = -v;
    }
    v
}

/// Projects each penetrating contact out of penetration (XPBD, zero
/// compliance). Corrections are summed per body, to be averaged by
/// [`apply_position_deltas`]; `lambda_out[c]` is the normal correction so far
/// this substep, and each manifold's sum goes to `patch_lambda` (friction acts
/// per manifold: [`patch_friction`]).
#[weft::kernel]
pub fn contact_positions(
    model: &Model,
    contacts: &Contacts,
    q: &Array<Transform>,
    q_prev: &Array<Transform>,
    lambda_in: &Array<f32>,
    lambda_out: &mut Array<f32>,
    patch_count: &Array<f32>,
    patch_lambda: &mut Array<f32>,
    dx: &mut Array<Vec3>,
    dw: &mut Array<Vec3>,
    counts: &mut Array<f32>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let (ba, bb, pa, pb, n) = contact_points(model, contacts, q, c);
        let d = dot(n, pb - pa);
        let mut lam = lambda_in[c];
        if d < 0.0 {
            let xa = body_pose(q, ba);
            let xb = body_pose(q, bb);
            let ra = pa - body_com_world(model, ba, xa);
            let rb = pb - body_com_world(model, bb, xb);
            let w = effective_inv_mass(model, ba, xa.q, ra, n)
                + effective_inv_mass(model, bb, xb.q, rb, n);
            if w > 0.0 {
                let dl = -d / w;
                let km = max(patch_count[contacts.pair[c]], 1.0);
                let p = n * (dl / km);
                lam += dl;
                atomic_add(&mut patch_lambda[contacts.pair[c]], dl);
                add_correction_torque(model, bb, xb.q, rb, p, Vec3::ZERO, 1.0 / km, dx, dw, counts);
                add_correction_torque(
                    model,
                    ba,
                    xa.q,
                    ra,
                    -p,
                    Vec3::ZERO,
                    1.0 / km,
                    dx,
                    dw,
                    counts,
                );
            }
        }
        lambda_out[c] = lam;
    }
}

/// Moves each body by its summed corrections times `min(1, relaxation /
/// count)`: averaged over the manifolds that touch it and over-relaxed
/// (Macklin et al. 2014's constraint averaging), but never more than their
/// sum — with the default relaxation 2, a box in a stack (two manifolds) gets
/// the sum of both, a box in a pile the over-relaxed mean.
#[weft::kernel]
pub fn apply_position_deltas(
    model: &Model,
    q_in: &Array<Transform>,
    dx: &Array<Vec3>,
    dw: &Array<Vec3>,
    counts: &Array<f32>,
    relaxation: f32,
    q_out: &mut Array<Transform>,
) {
    let b = tid();
    let x = q_in[b];
    let k = counts[b];
    let mut x1 = x;
    if k > 0.0 {
        let s = min(1.0, relaxation / k);
        let com = model.body_com[b];
        let c = transform_point(x, com) + dx[b] * s;
        let q1 = rotate_by(x.q, dw[b] * s, 1.0);
        x1 = Transform::new(c - quat_rotate(q1, com), q1);
    }
    q_out[b] = x1;
}

/// Velocities after the position projections: the predicted velocity plus the
/// projections' displacement over `dt` (bodies nothing touched keep the
/// integrator's velocity exactly).
#[weft::kernel]
pub fn velocities_from_positions(
    model: &Model,
    q_pred: &Array<Transform>,
    qd_pred: &Array<SpatialVector>,
    q: &Array<Transform>,
    dt: f32,
    qd_out: &mut Array<SpatialVector>,
) {
    let b = tid();
    let v = qd_pred[b];
    let mut out = v;
    let x0 = q_pred[b];
    let x1 = q[b];
    // Untouched bodies keep their velocity exactly (q · q⁻¹ in f32 is off the
    // identity by rounding, which over dt would be a spurious spin).
    let moved = x0.p.x != x1.p.x
        || x0.p.y != x1.p.y
        || x0.p.z != x1.p.z
        || x0.q.x != x1.q.x
        || x0.q.y != x1.q.y
        || x0.q.z != x1.q.z
        || x0.q.w != x1.q.w;
    if model.body_inv_mass[b] > 0.0 && moved {
        let com = model.body_com[b];
        let dc = transform_point(x1, com) - transform_point(x0, com);
        let dq = x1.q * quat_inverse(x0.q);
        let mut w = Vec3::new(dq.x, dq.y, dq.z) * (2.0 / dt);
        if dq.w < 0.0 {
            w = -w;
        }
        out = SpatialVector::new(v.top + dc / dt, v.bottom + w);
    }
    qd_out[b] = out;
}

/// The velocity pass of each contact that pushed this substep (`lambda > 0`):
/// dynamic friction removes up to `mu · lambda / dt` of the sliding speed, and
/// restitution sets the separating normal speed to `e` times the approach
/// speed at the substep's start (`qd_prev`; `e = 0` below `threshold`, so
/// resting contacts do not jitter). Velocity changes are summed per body.
#[weft::kernel]
pub fn contact_velocities(
    model: &Model,
    contacts: &Contacts,
    q: &Array<Transform>,
    qd: &Array<SpatialVector>,
    qd_prev: &Array<SpatialVector>,
    lambda: &Array<f32>,
    dt: f32,
    threshold: f32,
    dv: &mut Array<Vec3>,
    dw: &mut Array<Vec3>,
    counts: &mut Array<f32>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let lam = lambda[c];
        if lam > 0.0 {
            let (ba, bb, pa, pb, n) = contact_points(model, contacts, q, c);
            let xa = body_pose(q, ba);
            let xb = body_pose(q, bb);
            let ra = pa - body_com_world(model, ba, xa);
            let rb = pb - body_com_world(model, bb, xb);
            let vrel = point_velocity(qd, bb, rb) - point_velocity(qd, ba, ra);
            let vn = dot(n, vrel);
            let vt = vrel - n * vn;
            let sa = contacts.shape_a[c];
            let sb = contacts.shape_b[c];
            let mu = 0.5 * (model.rigid_shapes.mu[sa] + model.rigid_shapes.mu[sb]);
            let mut e =
                0.5 * (model.rigid_shapes.restitution[sa] + model.rigid_shapes.restitution[sb]);
            let mut p = Vec3::ZERO;
            let wn = effective_inv_mass(model, ba, xa.q, ra, n)
                + effective_inv_mass(model, bb, xb.q, rb, n);
            // Restitution: the normal impulse that sets the separating speed.
            let vn_prev = dot(
                n,
                point_velocity(qd_prev, bb, rb) - point_velocity(qd_prev, ba, ra),
            );
            if abs(vn_prev) <= threshold {
                e = 0.0;
            }
            if wn > 0.0 {
                p += n * ((max(-e * vn_prev, 0.0) - vn) / wn);
            }
            if length_sq(p) > 0.0 {
                add_correction(model, bb, xb.q, rb, p, dv, dw, counts);
                add_correction(model, ba, xa.q, ra, -p, dv, dw, counts);
            }
        }
    }
}

/// Adds each body's summed velocity changes, averaged over their count.
#[weft::kernel]
pub fn apply_velocity_deltas(
    qd_in: &Array<SpatialVector>,
    dv: &Array<Vec3>,
    dw: &Array<Vec3>,
    counts: &Array<f32>,
    qd_out: &mut Array<SpatialVector>,
) {
    let b = tid();
    let v = qd_in[b];
    let k = counts[b];
    let mut out = v;
    if k > 0.0 {
        out = SpatialVector::new(v.top + dv[b] / k, v.bottom + dw[b] / k);
    }
    qd_out[b] = out;
}
