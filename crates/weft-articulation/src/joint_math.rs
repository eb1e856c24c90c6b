//! Funcs shared by the kernels: a joint's motion `X_J(q)`, its transform
//! between the parent's and the child's body frames, a body's spatial inertia
//! in the world frame, and the walks over a joint's ancestors.
//!
//! Spatial quantities are in the world frame at the world origin, ordered
//! (linear, angular): a twist `(v_O, ω)` gives a point `x` of the body the
//! velocity `v_O + ω × x`; a wrench `(f, τ_O)` is a force and its torque about
//! the origin. Joint type codes are weft-sim's `JOINT_*` (literals here: the
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
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j];
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
    model.joint_parent_frame[j]
        * joint_motion(model, q, j)
        * transform_inverse(model.joint_child_frame[j])
}

/// World pose of joint `j`'s child body from the coordinates alone (its
/// ancestors' motions composed from the root).
#[weft::func]
pub fn child_pose(model: &Model, q: &Array<f32>, j: i32) -> Transform {
    let mut t = joint_local(model, q, j);
    let mut k = model.joint_ancestor[j];
    while k >= 0 {
        t = joint_local(model, q, k) * t;
        k = model.joint_ancestor[k];
    }
    t
}

/// Body `b`'s spatial inertia in the world frame about the origin, as mass
/// `m`, first moment `h = m c` (`c` the world centre of mass) and rotational
/// inertia about the origin `I_c + m (|c|² 1 − c cᵀ)`.
#[weft::func]
pub fn body_inertia(model: &Model, body_q: &Array<Transform>, b: i32) -> (f32, Vec3, Mat3) {
    let x = body_q[b];
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
