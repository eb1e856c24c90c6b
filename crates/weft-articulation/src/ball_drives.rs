//! Drives and limits of the rotations of ball and free joints: the
//! rotation-vector maps (`log`/`exp` of unit quaternions, finite with
//! finite derivatives at zero), the drive's error and the cone limit.
//!
//! Frames: a ball joint's rotation `r` (and a free joint's) is the child
//! joint frame in the parent joint frame and its velocity `ω` is in the
//! child joint frame. A position target is a rotation vector `t` (axis ·
//! angle) of the target rotation `exp(t)` — the same vector in the parent and
//! the child joint frame of that rotation. The drive's error is
//! `e = log(r⁻¹ exp(t))`, the rotation still to go expressed in the current
//! child joint frame, the frame of `ω`; to first order `ė = −ω`, so the
//! drive is the hinge's "stable PD" per axis: `ke (eᵢ − h ωᵢ) + kd (ω*ᵢ −
//! ωᵢ)`.
//!
//! The cone limit (MuJoCo's ball-joint `range = 0 max`): while the angle
//! `θ = |log r|` exceeds `max`, a torque `ke (max − θ − h θ̇) − kd θ̇` about
//! the rotation's axis `a = log r / θ` (`θ̇ = a·ω`; `a` is the same in both
//! joint frames, `r` turning about it). Its implicit part `(h kd + h² ke) a
//! aᵀ` couples the joint's three axes: it goes to the solvers as `w =
//! √(h kd + h² ke) a` per axis, the rank-one block `w wᵀ` that the Cholesky
//! solve adds to `M` and the articulated-body algorithm to the ball's 3 × 3
//! pivot ([`crate::aba::project_ball`]). (The diagonal of that block alone
//! would leave as little as a third of the implicit stiffness along `a` and
//! turn the torque off `a`: a stiff cone on a light link then diverges.)

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::{Control, Model};

/// The rotation vector (axis · angle, angle in `[0, π]`) of the unit
/// quaternion `r`: `log r`, the short way round. A series below `|v| =
/// 1e-4` keeps it and its derivative finite at the identity.
#[weft::func]
pub fn quat_log(r: Quat) -> Vec3 {
    let mut v = Vec3::new(r.x, r.y, r.z);
    let mut w = r.w;
    if w < 0.0 {
        v = -v;
        w = -w;
    }
    let s2 = dot(v, v);
    let mut k = 2.0;
    if s2 > 1e-8 {
        let s = sqrt(s2);
        k = 2.0 * atan2(s, w) / s;
    } else {
        // 2 atan(s / w) / s = (2 / w) (1 − s² / (3 w²) + …); w ≈ 1 here.
        k = 2.0 / w * (1.0 - s2 / (3.0 * w * w));
    }
    v * k
}

/// The unit quaternion of the rotation vector `e`: `exp e = (sin(θ/2) e / θ,
/// cos(θ/2))`, `θ = |e|`; a series below `θ = 1e-4`.
#[weft::func]
pub fn quat_exp(e: Vec3) -> Quat {
    let t2 = dot(e, e);
    let mut k = 0.5;
    let mut c = 1.0;
    if t2 > 1e-8 {
        let t = sqrt(t2);
        k = sin(0.5 * t) / t;
        c = cos(0.5 * t);
    } else {
        k = 0.5 - t2 / 48.0;
        c = 1.0 - t2 / 8.0;
    }
    Quat::from_xyzw(e.x * k, e.y * k, e.z * k, c)
}

/// The rotation vector from `r` to the target `exp(target)`, in `r`'s own
/// (child) frame: `log(r⁻¹ exp(target))`.
#[weft::func]
pub fn rotation_error(r: Quat, target: Vec3) -> Vec3 {
    quat_log(quat_inverse(r) * quat_exp(target))
}

/// The cone limit `|log r| ≤ upper` of a rotation `r` turning at `w` (its
/// own frame), penalty gains `ke`, `kd`: returns the torque (child frame)
/// and the factor `√(h kd + h² ke) a` of its implicit block (see the module
/// docs); both zero inside the cone or for `upper = inf`.
#[weft::func]
pub fn cone_limit(r: Quat, w: Vec3, upper: f32, ke: f32, kd: f32, dt: f32) -> (Vec3, Vec3) {
    let rv = quat_log(r);
    let t2 = dot(rv, rv);
    let mut tau = Vec3::ZERO;
    let mut factor = Vec3::ZERO;
    if t2 > upper * upper && t2 > 0.0 {
        let theta = sqrt(t2);
        let a = rv / theta;
        let rate = dot(a, w);
        tau = a * (ke * (upper - theta - dt * rate) - kd * rate);
        factor = a * sqrt(dt * kd + dt * dt * ke);
    }
    (tau, factor)
}

/// Component `k` (0, 1, 2) of `v`.
#[weft::func]
pub fn vec_component(v: Vec3, k: i32) -> f32 {
    let mut x = v.x;
    if k == 1 {
        x = v.y;
    } else if k == 2 {
        x = v.z;
    }
    x
}

/// The position target of degree of freedom `i`: `control`'s when it holds
/// targets, else the model's.
#[weft::func]
pub fn target_pos_of(model: &Model, control: &Control, i: i32) -> f32 {
    let mut tp = model.joint_target_pos[i];
    if control.joint_target_pos.len() > 0 {
        tp = control.joint_target_pos[i];
    }
    tp
}

/// The rotation vector of the position targets at `ds..ds + 3` (see
/// [`target_pos_of`]).
#[weft::func]
pub fn target_rotation(model: &Model, control: &Control, ds: i32) -> Vec3 {
    Vec3::new(
        target_pos_of(model, control, ds),
        target_pos_of(model, control, ds + 1),
        target_pos_of(model, control, ds + 2),
    )
}
