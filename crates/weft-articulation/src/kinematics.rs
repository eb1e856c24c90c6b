//! Forward kinematics: body poses and velocities from joint coordinates, the
//! joints' motion subspaces and the bodies' geometric Jacobians.
//!
//! Every kernel runs one thread per joint (its child body) and recomputes what
//! it needs from its ancestors instead of reading values other threads of the
//! same launch write: the kernels stay differentiable through the tape (which
//! refuses in-place updates) and parallel over joints, for `O(joints × depth)`
//! work.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::{Model, State};

use crate::joint_math::{child_pose, joint_local, joint_twist, motion_to_child, quat_at};
use crate::scratch::{self, Pooled};
use crate::{Result, layout::ArticulationLayout};

/// Each joint's transform `x_local[j]`: the pose of its child body in its
/// parent body's frame (the world for a root) at coordinates `q`.
#[weft::kernel]
pub fn eval_joint_transforms(model: &Model, q: &Array<f32>, x_local: &mut Array<Transform>) {
    let j = tid();
    x_local[j] = joint_local(model, q, j);
}

/// `body_q[child]` of every joint from the transforms of
/// [`eval_joint_transforms`].
#[weft::kernel]
pub fn eval_body_poses(model: &Model, x_local: &Array<Transform>, body_q: &mut Array<Transform>) {
    let j = tid();
    body_q[model.joint_child[j]] = child_pose(model, x_local, j);
}

/// The motion subspace of every degree of freedom: the twist of the child
/// body per unit velocity of that coordinate, relative to the parent body, in
/// the child body's frame (linear part at its origin). It depends on the
/// joint's own coordinates only.
#[weft::kernel]
pub fn eval_motion_subspace(model: &Model, q: &Array<f32>, s: &mut Array<SpatialVector>) {
    write_motion_subspace(model, q, 0, tid(), s, 0);
}

/// Writes joint `j`'s motion subspace (see [`eval_motion_subspace`]) at
/// coordinates `q[qoff..]` into `s[soff + joint_qd_start[j]..]`: the offsets
/// select one problem of a batch laid end to end.
#[weft::func]
pub fn write_motion_subspace(
    model: &Model,
    q: &Array<f32>,
    qoff: i32,
    j: i32,
    s: &mut Array<SpatialVector>,
    soff: i32,
) {
    let cf = model.joint_child_frame[j];
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j] + qoff;
    let ds = model.joint_qd_start[j];
    let dim = model.joint_dof_dim[j];
    if kind == 2 || kind == 4 {
        // Ball and free: linear axes of the parent joint frame, angular axes
        // of the child joint frame through its origin.
        let mut nl = 0;
        if kind == 4 {
            nl = 3;
        }
        let r = quat_at(q, qs + nl);
        for k in 0..nl {
            let a = quat_rotate_inv(r, model.joint_axis[ds + k]);
            s[soff + ds + k] = linear_to_parent(cf, a);
        }
        for k in nl..nl + 3 {
            s[soff + ds + k] = angular_to_parent(cf, model.joint_axis[ds + k]);
        }
    } else {
        // A chain: translations, then rotations about axes turned by the
        // rotations before them. In the child joint frame (at the centre of
        // every rotation) rotation `k` turns about its axis turned back by the
        // rotations after it; translations along their axes turned back by
        // all rotations. (The last rotation's axis is not turned, and its
        // turn is needed only by translations: a hinge evaluates no sine.)
        let mut r = Quat::IDENTITY;
        for i in 0..dim.y {
            let k = dim.x + dim.y - 1 - i;
            let axis = model.joint_axis[ds + k];
            let mut w = axis;
            if i > 0 {
                w = quat_rotate_inv(r, axis);
            }
            s[soff + ds + k] = angular_to_parent(cf, w);
            if i + 1 < dim.y || dim.x > 0 {
                r = quat_from_axis_angle(axis, q[qs + k]) * r;
            }
        }
        for k in 0..dim.x {
            let a = quat_rotate_inv(r, model.joint_axis[ds + k]);
            s[soff + ds + k] = linear_to_parent(cf, a);
        }
    }
}

/// [`motion_to_parent`](crate::joint_math::motion_to_parent) of the pure
/// rotation `(0, w)`: `(p × R w, R w)` (the same values up to the sign of a
/// zero, without rotating the zero half).
#[weft::func]
pub fn angular_to_parent(t: Transform, w: Vec3) -> SpatialVector {
    let rw = quat_rotate(t.q, w);
    SpatialVector::new(cross(t.p, rw), rw)
}

/// [`motion_to_parent`](crate::joint_math::motion_to_parent) of the pure
/// translation `(v, 0)`: `(R v, 0)`.
#[weft::func]
pub fn linear_to_parent(t: Transform, v: Vec3) -> SpatialVector {
    SpatialVector::new(quat_rotate(t.q, v), Vec3::ZERO)
}

/// Each joint's child twist `v`, its velocity-product acceleration
/// `c = Ṡ q̇` (Featherstone's `cⱼ`) and the parent body's angular velocity
/// `w_parent`, all in the child body's frame: for `c`, for each coordinate,
/// the twist of the frame its axis is fixed in, crossed with its motion. The
/// ancestors' twists are brought over along the tree.
#[weft::kernel]
pub fn eval_joint_velocities(
    model: &Model,
    x_local: &Array<Transform>,
    qd: &Array<f32>,
    s: &Array<SpatialVector>,
    v: &mut Array<SpatialVector>,
    c: &mut Array<SpatialVector>,
    w_parent: &mut Array<Vec3>,
) {
    let j = tid();
    let mut vp = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    // The pose of j's child in the child body of joint k.
    let mut t = x_local[j];
    let mut k = model.joint_ancestor[j];
    while k >= 0 {
        vp += motion_to_child(t, joint_twist(model, s, qd, k));
        t = x_local[k] * t;
        k = model.joint_ancestor[k];
    }
    let vj = joint_twist(model, s, qd, j);
    let vc = vp + vj;
    let cj = velocity_product(model, s, qd, j, vp, vj);
    v[j] = vc;
    c[j] = cj;
    w_parent[j] = vp.bottom;
}

/// Joint `j`'s velocity-product acceleration `c = Ṡ q̇` in its child body's
/// frame, from its parent's twist `vp` and its own motion twist `vj` (both in
/// that frame): for each coordinate, the twist of the frame its axis is fixed
/// in, crossed with its motion.
#[weft::func]
pub fn velocity_product(
    model: &Model,
    s: &Array<SpatialVector>,
    qd: &Array<f32>,
    j: i32,
    vp: SpatialVector,
    vj: SpatialVector,
) -> SpatialVector {
    let vc = vp + vj;
    let kind = model.joint_type[j];
    let ds = model.joint_qd_start[j];
    let mut cj = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    if kind == 2 {
        // Axes fixed in the child.
        cj = spatial_cross(vc, vj);
    } else if kind == 4 {
        // Linear axes fixed in the parent, angular ones in the child.
        let mut lin = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
        for d in ds..ds + 3 {
            lin += s[d] * qd[d];
        }
        cj = spatial_cross(vp, lin) + spatial_cross(vc, vj - lin);
    } else {
        // A chain: each axis is fixed in the frame after its own motion.
        let mut run = vp;
        for d in ds..model.joint_qd_start[j + 1] {
            let m = s[d] * qd[d];
            run += m;
            cj += spatial_cross(run, m);
        }
    }
    cj
}

/// `body_qd[child]` (linear velocity of the centre of mass, angular velocity;
/// world) of every joint from the twists of [`eval_joint_velocities`].
#[weft::kernel]
pub fn eval_body_velocities(
    model: &Model,
    body_q: &Array<Transform>,
    v: &Array<SpatialVector>,
    body_qd: &mut Array<SpatialVector>,
) {
    let j = tid();
    let b = model.joint_child[j];
    let r = body_q[b].q;
    let w = v[j].bottom;
    body_qd[b] = SpatialVector::new(
        quat_rotate(r, v[j].top + cross(w, model.body_com[b])),
        quat_rotate(r, w),
    );
}

/// Geometric Jacobian of each joint's child body: column `d` of the
/// articulation is the body's (linear velocity of its frame origin, angular
/// velocity), world frame, per unit `q̇_d`; zero where `d` does not move it.
/// Stored densely per articulation at `jac_start` (rows: its joints, in order;
/// columns: its degrees of freedom).
#[weft::kernel]
pub fn eval_jacobians(
    model: &Model,
    jac_start: &Array<i32>,
    body_q: &Array<Transform>,
    x_local: &Array<Transform>,
    s: &Array<SpatialVector>,
    jac: &mut Array<SpatialVector>,
) {
    let j = tid();
    let art = model.joint_articulation[j];
    let j0 = model.articulation_start[art];
    let d0 = model.joint_qd_start[j0];
    let n = model.joint_qd_start[model.articulation_start[art + 1]] - d0;
    let row = jac_start[art] + (j - j0) * n;
    let r = body_q[model.joint_child[j]].q;
    for d in 0..n {
        jac[row + d] = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    }
    // The pose of j's child in the child body of joint k.
    let mut t = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    let mut k = j;
    while k >= 0 {
        for d in model.joint_qd_start[k]..model.joint_qd_start[k + 1] {
            let m = motion_to_child(t, s[d]);
            jac[row + d - d0] = SpatialVector::new(quat_rotate(r, m.top), quat_rotate(r, m.bottom));
        }
        t = x_local[k] * t;
        k = model.joint_ancestor[k];
    }
}

/// Forward kinematics (Warp's `eval_fk`): the poses and velocities of every
/// joint's child body from `state.joint_q` and `state.joint_qd` into
/// `state.body_q` and `state.body_qd`. Bodies that are no joint's child are
/// left alone. Differentiable through the tape.
///
/// ```
/// use glam::Vec3;
/// use weft::{Device, Transform};
/// use weft_sim::{BodyDesc, BodyMass, JointDesc, ModelBuilder, State};
///
/// let mut b = ModelBuilder::new();
/// let mut desc = BodyDesc::new(Transform::IDENTITY);
/// desc.mass = BodyMass::Given(weft_geom::MassProperties::sphere(1000.0, 0.1));
/// let link = b.add_body(desc);
/// let arm = Transform::from_translation(Vec3::new(-1.0, 0.0, 0.0)); // link frame 1 m along +X
/// b.add_joint(JointDesc::revolute(-1, link, Vec3::Z).with_frames(Transform::IDENTITY, arm)
///     .with_q(&[std::f32::consts::FRAC_PI_2]).with_qd(&[2.0]))?;
/// let model = b.finalize(Device::Cpu)?;
/// let mut state = State::new(&model)?;
/// weft_articulation::eval_fk(&model, &mut state)?;
/// let (pose, vel) = (state.body_q.to_vec()[0], state.body_qd.to_vec()[0]);
/// assert!((pose.p - Vec3::Y).length() < 1e-6);                 // turned a quarter about Z
/// assert!((vel.top - Vec3::new(-2.0, 0.0, 0.0)).length() < 1e-5); // ω × r
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub fn eval_fk(model: &Model, state: &mut State) -> Result<()> {
    let nj = model.joint_count();
    if nj == 0 {
        return Ok(());
    }
    crate::check_state(model, state)?;
    // Written before they are read (off the tape, from this thread's pool).
    let (mut x_local, mut s, mut v, mut c, mut w_parent) = (
        Pooled::<Transform>::scratch(model, nj)?,
        Pooled::<SpatialVector>::scratch(model, model.joint_dof_count())?,
        Pooled::<SpatialVector>::scratch(model, nj)?,
        Pooled::<SpatialVector>::scratch(model, nj)?,
        Pooled::<Vec3>::scratch(model, nj)?,
    );
    if !Tape::is_recording() {
        // One thread per articulation (`tree.rs`).
        return crate::tree::kinematics(
            model,
            &state.joint_q,
            &state.joint_qd,
            &mut x_local,
            &mut state.body_q,
            &mut s,
            &mut v,
            &mut c,
            &mut w_parent,
            &mut state.body_qd,
        );
    }
    eval_joint_transforms::launch(nj, model, &state.joint_q, &mut x_local)?;
    eval_body_poses::launch(nj, model, &x_local, &mut state.body_q)?;
    eval_motion_subspace::launch(nj, model, &state.joint_q, &mut s)?;
    eval_joint_velocities::launch(
        nj,
        model,
        &x_local,
        &state.joint_qd,
        &s,
        &mut v,
        &mut c,
        &mut w_parent,
    )?;
    eval_body_velocities::launch(nj, model, &state.body_q, &v, &mut state.body_qd)?;
    Ok(())
}

/// The geometric Jacobians of every joint's child body at coordinates `q`
/// (see [`eval_jacobians`] for the layout: `layout.jacobian_range(a)` is
/// articulation `a`'s block, row-major, one row per joint and one column per
/// degree of freedom). Returned as a new array on the model's device.
pub fn eval_jacobian(
    model: &Model,
    layout: &ArticulationLayout,
    q: &Array<f32>,
) -> Result<Array<SpatialVector>> {
    crate::check_len("joint_q", q.len(), model.joint_coord_count())?;
    layout.check(model)?;
    let nj = model.joint_count();
    let mut jac = scratch::vectors(model, layout.jacobian_len())?;
    if nj == 0 {
        return Ok(jac);
    }
    let mut x_local = scratch::joint_transforms(model)?;
    let mut body_q = scratch::poses(model)?;
    let mut s = scratch::dof_vectors(model)?;
    eval_joint_transforms::launch(nj, model, q, &mut x_local)?;
    eval_body_poses::launch(nj, model, &x_local, &mut body_q)?;
    eval_motion_subspace::launch(nj, model, q, &mut s)?;
    eval_jacobians::launch(
        nj,
        model,
        &layout.jac_start,
        &body_q,
        &x_local,
        &s,
        &mut jac,
    )?;
    Ok(jac)
}
