//! Funcs shared by the kernels: a joint's motion `X_J(q)`, its transform
//! between the parent's and the child's body frames, the change of frame of
//! twists and wrenches, a body's spatial inertia in a given frame, and the
//! walks over a joint's ancestors.
//!
//! Spatial quantities are ordered (linear, angular) and, inside the kernels,
//! expressed in the coordinates of a body frame (each joint's child body, as
//! Featherstone and Pinocchio do): a twist `(v_O, ω)` gives a point `x` of the
//! body the velocity `v_O + ω × x` (`x` and `O` in that frame); a wrench
//! `(f, τ_O)` is a force and its torque about the frame's origin. Quantities of
//! another body are brought over with the transforms between the bodies
//! composed along the tree ([`pose_in_ancestor`]), never through world
//! positions, so f32 rounding scales with the size of a link, not with the
//! distance to the world origin. Joint type codes are weft-sim's `JOINT_*` (literals here: the
//! kernel language has no constants): 0 revolute, 1 prismatic, 2 ball,
//! 3 fixed, 4 free, 5 universal, 6 D6.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::Model;

/// The unit quaternion `(x, y, z, w)` stored at `q[s..s + 4]`.
#[weft::func]
pub fn quat_at(q: &Array<f32>, s: i32) -> Quat {
    normalize(Quat::from_xyzw(q[s], q[s + 1], q[s + 2], q[s + 3]))
}

/// The motion of joint `j` at coordinates `q`: the child joint frame in the
/// parent joint frame.
#[weft::func]
pub fn joint_motion(model: &Model, q: &Array<f32>, j: i32) -> Transform {
    joint_motion_at(model, q, 0, j)
}

/// [`joint_motion`] with the coordinates at `q[off..]` (one problem of a
/// batch of coordinate vectors laid end to end).
#[weft::func]
pub fn joint_motion_at(model: &Model, q: &Array<f32>, off: i32, j: i32) -> Transform {
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j] + off;
    let ds = model.joint_qd_start[j];
    let dim = model.joint_dof_dim[j];
    let mut p = Vec3::ZERO;
    let mut r = Quat::IDENTITY;
    if kind == 2 {
        r = quat_at(q, qs);
    } else if kind == 4 {
        p = Vec3::new(q[qs], q[qs + 1], q[qs + 2]);
        r = quat_at(q, qs + 3);
    } else {
        for k in 0..dim.x {
            p += model.joint_axis[ds + k] * q[qs + k];
        }
        for k in dim.x..dim.x + dim.y {
            r = r * quat_from_axis_angle(model.joint_axis[ds + k], q[qs + k]);
        }
    }
    Transform::new(p, r)
}

/// The child body's frame in the parent body's frame across joint `j`.
#[weft::func]
pub fn joint_local(model: &Model, q: &Array<f32>, j: i32) -> Transform {
    joint_local_at(model, q, 0, j)
}

/// [`joint_local`] with the coordinates at `q[off..]`.
#[weft::func]
pub fn joint_local_at(model: &Model, q: &Array<f32>, off: i32, j: i32) -> Transform {
    model.joint_parent_frame[j]
        * joint_motion_at(model, q, off, j)
        * transform_inverse(model.joint_child_frame[j])
}

/// World pose of joint `j`'s child body from the parent-to-child transforms
/// `x_local` of every joint (its ancestors' composed from the root).
#[weft::func]
pub fn child_pose(model: &Model, x_local: &Array<Transform>, j: i32) -> Transform {
    let mut t = x_local[j];
    let mut k = model.joint_ancestor[j];
    while k >= 0 {
        t = x_local[k] * t;
        k = model.joint_ancestor[k];
    }
    t
}

/// The pose of joint `k`'s child body in joint `j`'s child body frame, `j`
/// being `k` or one of its ancestors: the transforms `x_local` composed along
/// the path between them (never through world poses, so the result carries
/// rounding of the path's size, not of the distance to the world origin).
#[weft::func]
pub fn pose_in_ancestor(model: &Model, x_local: &Array<Transform>, k: i32, j: i32) -> Transform {
    let mut t = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let mut a = k;
    while a > j {
        t = x_local[a] * t;
        a = model.joint_ancestor[a];
    }
    t
}

/// A motion vector (twist, spatial acceleration) `m` in the coordinates of a
/// frame `C` whose pose in frame `P` is `t`, expressed in `P`'s coordinates
/// (linear part at `P`'s origin): `(R v + p × R ω, R ω)`.
#[weft::func]
pub fn motion_to_parent(t: Transform, m: SpatialVector) -> SpatialVector {
    let w = quat_rotate(t.q, m.bottom);
    SpatialVector::new(quat_rotate(t.q, m.top) + cross(t.p, w), w)
}

/// The inverse of [`motion_to_parent`]: `m` in `P`'s coordinates expressed in
/// those of `C` (pose `t` in `P`): `(Rᵀ (v + ω × p), Rᵀ ω)`.
#[weft::func]
pub fn motion_to_child(t: Transform, m: SpatialVector) -> SpatialVector {
    SpatialVector::new(
        quat_rotate_inv(t.q, m.top + cross(m.bottom, t.p)),
        quat_rotate_inv(t.q, m.bottom),
    )
}

/// A wrench `f` (force, torque about the origin) in the coordinates of a
/// frame `C` whose pose in `P` is `t`, expressed in `P`'s coordinates with the
/// torque about `P`'s origin: `(R f, R τ + p × R f)`.
#[weft::func]
pub fn force_to_parent(t: Transform, f: SpatialVector) -> SpatialVector {
    let lin = quat_rotate(t.q, f.top);
    SpatialVector::new(lin, quat_rotate(t.q, f.bottom) + cross(t.p, lin))
}

/// Body `b`'s spatial inertia in a frame in which the body frame has pose
/// `x`, about that frame's origin: mass `m`, first moment `h = m c` (`c` the
/// centre of mass in that frame) and rotational inertia about the origin
/// `I_c + m (|c|² 1 − c cᵀ)`. The kernels call it with `x` the body's pose in
/// a nearby body's frame, so `c` is short and the parallel-axis term does not
/// swamp `I_c` in f32.
#[weft::func]
pub fn body_inertia(model: &Model, b: i32, x: Transform) -> (f32, Vec3, Mat3) {
    let m = model.body_mass[b];
    let c = transform_point(x, model.body_com[b]);
    let r = quat_to_matrix(x.q);
    let ic = r * model.body_inertia[b] * transpose(r);
    let mc = c * m;
    (m, mc, ic + diag(Vec3::splat(dot(c, mc))) - outer(mc, c))
}

/// The momentum (a wrench) of twist `v` under the spatial inertia `(m, h, i)`
/// of [`body_inertia`]: `(m v − h × ω, i ω + h × v)`.
#[weft::func]
pub fn inertia_times(m: f32, h: Vec3, i: Mat3, v: SpatialVector) -> SpatialVector {
    let lin = v.top * m - cross(h, v.bottom);
    let ang = i * v.bottom + cross(h, v.top);
    SpatialVector::new(lin, ang)
}

/// Whether joint `k` is joint `j` or one of its ancestors.
#[weft::func]
pub fn is_ancestor_or_self(model: &Model, k: i32, j: i32) -> bool {
    let mut a = j;
    while a > k {
        a = model.joint_ancestor[a];
    }
    a == k
}

/// `Σ S_d q̇_d` over the degrees of freedom of joint `j`: its own motion twist.
#[weft::func]
pub fn joint_twist(
    model: &Model,
    s: &Array<SpatialVector>,
    qd: &Array<f32>,
    j: i32,
) -> SpatialVector {
    let mut v = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    for d in model.joint_qd_start[j]..model.joint_qd_start[j + 1] {
        v += s[d] * qd[d];
    }
    v
}
