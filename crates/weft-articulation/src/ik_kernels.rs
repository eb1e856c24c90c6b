//! The kernels of the [`IkSolver`](crate::IkSolver): a batch of `P`
//! problems, each a full coordinate vector of the model laid end to end
//! (`q[p · joint_coord_count ..]`), with `T` targets each.
//!
//! One iteration: forward kinematics of every problem (one thread per
//! problem and joint), each target's error and Jacobian rows (one thread per
//! problem and target: three position rows, three orientation rows, zero
//! where the target has no orientation), the damped least-squares step
//! `Δq = (JᵀJ + (λ² + |e|²) 1)⁻¹ Jᵀ e` by a Cholesky factorisation in f64 (one thread
//! per problem), then `q ⊕ Δq` with the joint limits clamped (one thread per
//! problem and joint). Not differentiable (a solver run off the tape).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::Model;

use crate::integrate::rotate_local;
use crate::joint_math::{joint_local_at, quat_at};
use crate::kinematics::write_motion_subspace;

/// The rotation vector (axis × angle, angle in `[0, π]`) of the rotation `r`.
#[weft::func]
pub fn rotation_vector(r: Quat) -> Vec3 {
    let mut v = Vec3::new(r.x, r.y, r.z);
    let mut w = r.w;
    if w < 0.0 {
        v = -v;
        w = -w;
    }
    let s = length(v);
    let mut k = 2.0;
    if s > 1e-7 {
        k = 2.0 * atan2(s, w) / s;
    }
    v * k
}

/// Body poses `body_q[p · bodies + b]` and motion subspaces
/// `s[p · dofs + d]` (child body frames, as
/// [`eval_motion_subspace`](crate::kinematics::eval_motion_subspace)) of every
/// problem `p`, one thread per problem and joint.
#[weft::kernel]
pub fn eval_batch_kinematics(
    model: &Model,
    q: &Array<f32>,
    body_q: &mut Array<Transform>,
    s: &mut Array<SpatialVector>,
) {
    let nj = model.joint_type.len();
    let p = tid() / nj;
    let j = tid() - p * nj;
    let qoff = p * model.joint_q_start[nj];
    let mut t = joint_local_at(model, q, qoff, j);
    let mut k = model.joint_ancestor[j];
    while k >= 0 {
        t = joint_local_at(model, q, qoff, k) * t;
        k = model.joint_ancestor[k];
    }
    body_q[p * model.body_mass.len() + model.joint_child[j]] = t;
    write_motion_subspace(model, q, qoff, j, s, p * model.joint_qd_start[nj]);
}

/// Each target's error `e` (world: target position − point; the rotation
/// vector of target orientation × current⁻¹, or zero) at `err[6 i ..]`, and
/// its six Jacobian rows (point velocity, angular velocity per unit `q̇_d`;
/// the last three zero without orientation) at `jac[6 i · dofs ..]`, for
/// `i = p · T + t`, one thread per problem and target.
#[weft::kernel]
pub fn eval_target_errors(
    model: &Model,
    target_body: &Array<i32>,
    target_joint: &Array<i32>,
    target_offset: &Array<Vec3>,
    target_rot: &Array<i32>,
    body_q: &Array<Transform>,
    s: &Array<SpatialVector>,
    positions: &Array<Vec3>,
    orientations: &Array<Quat>,
    err: &mut Array<f32>,
    jac: &mut Array<f32>,
) {
    let nt = target_body.len();
    let i = tid();
    let p = i / nt;
    let t = i - p * nt;
    let nj = model.joint_type.len();
    let nd = model.joint_qd_start[nj];
    let nb = model.body_mass.len();
    let pose = body_q[p * nb + target_body[t]];
    let x = transform_point(pose, target_offset[t]);
    let e = positions[i] - x;
    let rot = target_rot[t];
    let mut er = Vec3::ZERO;
    if rot != 0 {
        er = rotation_vector(orientations[i] * quat_inverse(pose.q));
    }
    let row = 6 * i;
    err[row] = e.x;
    err[row + 1] = e.y;
    err[row + 2] = e.z;
    err[row + 3] = er.x;
    err[row + 4] = er.y;
    err[row + 5] = er.z;
    for r in 0..6 {
        for d in 0..nd {
            jac[(row + r) * nd + d] = 0.0;
        }
    }
    let mut k = target_joint[t];
    while k >= 0 {
        let xk = body_q[p * nb + model.joint_child[k]];
        for d in model.joint_qd_start[k]..model.joint_qd_start[k + 1] {
            let m = s[p * nd + d];
            let w = quat_rotate(xk.q, m.bottom);
            let v = quat_rotate(xk.q, m.top) + cross(w, x - xk.p);
            jac[row * nd + d] = v.x;
            jac[(row + 1) * nd + d] = v.y;
            jac[(row + 2) * nd + d] = v.z;
            if rot != 0 {
                jac[(row + 3) * nd + d] = w.x;
                jac[(row + 4) * nd + d] = w.y;
                jac[(row + 5) * nd + d] = w.z;
            }
        }
        k = model.joint_ancestor[k];
    }
}

/// The damped least-squares step of problem `tid()`:
/// `(JᵀJ + (λ² + |e|²) 1) Δq = Jᵀ e` over its `rows` error rows, solved by Cholesky in
/// f64 (`a`, `y`: the problem's scratch, `dofs²` and `dofs` entries), then
/// scaled so that no entry exceeds `max_step`, into `dq[p · dofs ..]`.
#[weft::kernel]
pub fn eval_damped_step(
    model: &Model,
    rows: i32,
    lambda: f32,
    max_step: f32,
    jac: &Array<f32>,
    err: &Array<f32>,
    a: &mut Array<f64>,
    y: &mut Array<f64>,
    dq: &mut Array<f32>,
) {
    let p = tid();
    let nd = model.joint_qd_start[model.joint_type.len()];
    let base = p * nd * nd;
    let vb = p * nd;
    let r0 = p * rows;
    // Sugihara's damping: λ² + |e|², large while the error is (far or
    // unreachable targets: gradient-like steps that settle at the least
    // squares point), λ² near a solution (Gauss–Newton's fast convergence).
    let mut l2 = (lambda as f64) * (lambda as f64);
    for r in 0..rows {
        l2 += (err[r0 + r] as f64) * (err[r0 + r] as f64);
    }
    for i in 0..nd {
        for k in 0..i + 1 {
            let mut sum = 0.0f64;
            for r in 0..rows {
                sum += (jac[(r0 + r) * nd + i] as f64) * (jac[(r0 + r) * nd + k] as f64);
            }
            if i == k {
                sum += l2;
            }
            a[base + i * nd + k] = sum;
        }
        let mut g = 0.0f64;
        for r in 0..rows {
            g += (jac[(r0 + r) * nd + i] as f64) * (err[r0 + r] as f64);
        }
        y[vb + i] = g;
    }
    // L Lᵀ = A, in place (lower triangle).
    for i in 0..nd {
        for k in 0..i + 1 {
            let mut sum = a[base + i * nd + k];
            for m in 0..k {
                sum -= a[base + i * nd + m] * a[base + k * nd + m];
            }
            if i == k {
                a[base + i * nd + i] = sqrt(max(sum, 1e-300));
            } else {
                a[base + i * nd + k] = sum / a[base + k * nd + k];
            }
        }
    }
    // L z = g, then Lᵀ x = z, both in y.
    for i in 0..nd {
        let mut sum = y[vb + i];
        for m in 0..i {
            sum -= a[base + i * nd + m] * y[vb + m];
        }
        y[vb + i] = sum / a[base + i * nd + i];
    }
    for ii in 0..nd {
        let i = nd - 1 - ii;
        let mut sum = y[vb + i];
        for m in i + 1..nd {
            sum -= a[base + m * nd + i] * y[vb + m];
        }
        y[vb + i] = sum / a[base + i * nd + i];
    }
    let mut big = 0.0f64;
    for i in 0..nd {
        big = max(big, abs(y[vb + i]));
    }
    let mut scale = 1.0f64;
    if big > (max_step as f64) {
        scale = (max_step as f64) / big;
    }
    for i in 0..nd {
        dq[vb + i] = (y[vb + i] * scale) as f32;
    }
}

/// `q ⊕ Δq` for every problem and joint into `q_out` (ball and free
/// rotations by the exponential map of the local rotation vector), the
/// coordinates of one-axis motions clamped to `[lower, upper]`.
#[weft::kernel]
pub fn apply_ik_step(model: &Model, q: &Array<f32>, dq: &Array<f32>, q_out: &mut Array<f32>) {
    let nj = model.joint_type.len();
    let p = tid() / nj;
    let j = tid() - p * nj;
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j] + p * model.joint_q_start[nj];
    let ds = model.joint_qd_start[j];
    let dof = p * model.joint_qd_start[nj];
    if kind == 2 || kind == 4 {
        let mut nl = 0;
        if kind == 4 {
            nl = 3;
        }
        for k in 0..nl {
            q_out[qs + k] = q[qs + k] + dq[dof + ds + k];
        }
        let a = dof + ds + nl;
        let w = Vec3::new(dq[a], dq[a + 1], dq[a + 2]);
        let r = rotate_local(quat_at(q, qs + nl), w, 1.0);
        q_out[qs + nl] = r.x;
        q_out[qs + nl + 1] = r.y;
        q_out[qs + nl + 2] = r.z;
        q_out[qs + nl + 3] = r.w;
    } else {
        for i in ds..model.joint_qd_start[j + 1] {
            let x = q[qs + i - ds] + dq[dof + i];
            q_out[qs + i - ds] = clamp(x, model.joint_limit_lower[i], model.joint_limit_upper[i]);
        }
    }
}
