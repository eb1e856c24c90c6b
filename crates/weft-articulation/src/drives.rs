//! Joint-space forces of the [`FeatherstoneSolver`](crate::FeatherstoneSolver):
//! drives, viscous damping, dry friction and limits, each split into an
//! explicit effort and an implicit part on the diagonal of the system.
//!
//! Semi-implicit ("stable PD", Tan et al. 2011): a force `−k (q − q*) − b q̇`
//! is evaluated at the end of the step, `q̇⁺ = q̇ + h q̈`, `q⁺ ≈ q + h q̇⁺`,
//! which moves `h b + h² k` onto the diagonal of `M` and leaves
//! `−k (q + h q̇ − q*) − b q̇` as the effort. Stiff drives and limits then stay
//! stable at any step. Where a drive's predicted effort exceeds its limit it
//! is applied explicitly, clamped. Friction is dry friction regularised below
//! 0.01 rad/s (or m/s) into damping: the damping `friction / max(|q̇|, 0.01)`,
//! implicit, whose force never exceeds `friction`. Limits are penalties
//! (`limit_ke`, `limit_kd`) while the coordinate is outside `[lower, upper]`.
//! Ball and free joints' rotations: position drives toward a rotation vector
//! and the ball's cone limit, in [`crate::ball_drives`].

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::{Control, Model};

use crate::ball_drives::{
    cone_limit, rotation_error, target_pos_of, target_rotation, vec_component,
};
use crate::joint_math::quat_at;

/// The effort and implicit diagonal of a drive: returns `(τ, diagonal)`.
/// `x` is the coordinate (ignored when `ke` is 0), `v` its velocity.
#[weft::func]
pub fn drive_effort(
    x: f32,
    v: f32,
    target_pos: f32,
    target_vel: f32,
    ke: f32,
    kd: f32,
    effort: f32,
    limit: f32,
    dt: f32,
) -> (f32, f32) {
    let mut tau = effort + kd * (target_vel - v);
    if ke > 0.0 {
        tau += ke * (target_pos - x - dt * v);
    }
    let mut diag = dt * kd + dt * dt * ke;
    if abs(tau) > limit {
        let mut explicit = effort + kd * (target_vel - v);
        if ke > 0.0 {
            explicit += ke * (target_pos - x);
        }
        tau = clamp(explicit, -limit, limit);
        diag = 0.0;
    }
    (tau, diag)
}

/// The penalty of the limits `[lower, upper]`: returns `(τ, diagonal)`.
#[weft::func]
pub fn limit_effort(
    x: f32,
    v: f32,
    lower: f32,
    upper: f32,
    ke: f32,
    kd: f32,
    dt: f32,
) -> (f32, f32) {
    let mut tau = 0.0;
    let mut diag = 0.0;
    if x < lower {
        tau = ke * (lower - x - dt * v) - kd * v;
        diag = dt * kd + dt * dt * ke;
    } else if x > upper {
        tau = ke * (upper - x - dt * v) - kd * v;
        diag = dt * kd + dt * dt * ke;
    }
    (tau, diag)
}

/// Per degree of freedom: `r = τ − C` (applied efforts from the drives,
/// damping, friction and limits, minus the bias `bias`), the diagonal `d`
/// (armature plus the implicit parts) and `w`, the factor of a ball joint's
/// rank-one implicit block `w wᵀ` (its cone limit's; 0 elsewhere). Targets
/// and efforts come from `control` when it holds them, else from the model.
///
/// Hinges, slides and a free joint's translations drive and limit their
/// scalar coordinates. The rotations of ball and free joints take a rotation
/// vector as their three position targets and a ball joint's limit is a cone
/// (`joint_limit_upper` of its first degree of freedom the largest angle);
/// see [`crate::ball_drives`].
#[weft::kernel]
pub fn eval_joint_efforts(
    model: &Model,
    control: &Control,
    q: &Array<f32>,
    qd: &Array<f32>,
    bias: &Array<f32>,
    dt: f32,
    r: &mut Array<f32>,
    d: &mut Array<f32>,
    w: &mut Array<f32>,
) {
    let j = tid();
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j];
    let ds = model.joint_qd_start[j];
    // The rotation of a ball or free joint: the drive's error and the cone.
    let mut rot0 = -1;
    let mut err = Vec3::ZERO;
    let mut cone_tau = Vec3::ZERO;
    let mut cone_w = Vec3::ZERO;
    if kind == 2 || kind == 4 {
        let mut qr = qs;
        rot0 = ds;
        if kind == 4 {
            qr = qs + 3;
            rot0 = ds + 3;
        }
        let rq = quat_at(q, qr);
        err = rotation_error(rq, target_rotation(model, control, rot0));
        if kind == 2 {
            let omega = Vec3::new(qd[ds], qd[ds + 1], qd[ds + 2]);
            let (ct, cw) = cone_limit(
                rq,
                omega,
                model.joint_limit_upper[ds],
                model.joint_limit_ke[ds],
                model.joint_limit_kd[ds],
                dt,
            );
            cone_tau = ct;
            cone_w = cw;
        }
    }
    for i in ds..model.joint_qd_start[j + 1] {
        let v = qd[i];
        let rot = rot0 >= 0 && i >= rot0;
        let mut x = 0.0;
        let mut tp = target_pos_of(model, control, i);
        if rot {
            // x stays 0: the error is the target.
            tp = vec_component(err, i - rot0);
        } else {
            x = q[qs + i - ds];
        }
        let mut tv = model.joint_target_vel[i];
        let mut fe = model.joint_f[i];
        if control.joint_target_vel.len() > 0 {
            tv = control.joint_target_vel[i];
        }
        if control.joint_f.len() > 0 {
            fe = control.joint_f[i];
        }
        let (t_drive, d_drive) = drive_effort(
            x,
            v,
            tp,
            tv,
            model.joint_target_ke[i],
            model.joint_target_kd[i],
            fe,
            model.joint_effort_limit[i],
            dt,
        );
        let mut t_limit = 0.0;
        let mut d_limit = 0.0;
        let mut w_limit = 0.0;
        if rot {
            t_limit = vec_component(cone_tau, i - rot0);
            w_limit = vec_component(cone_w, i - rot0);
        } else {
            let (tl, dl) = limit_effort(
                x,
                v,
                model.joint_limit_lower[i],
                model.joint_limit_upper[i],
                model.joint_limit_ke[i],
                model.joint_limit_kd[i],
                dt,
            );
            t_limit = tl;
            d_limit = dl;
        }
        let mut b = model.joint_damping[i];
        if model.joint_friction[i] > 0.0 {
            b += model.joint_friction[i] / max(abs(v), 0.01);
        }
        r[i] = t_drive + t_limit - b * v - bias[i];
        d[i] = model.joint_armature[i] + d_drive + d_limit + dt * b;
        w[i] = w_limit;
    }
}
