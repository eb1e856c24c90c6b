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

use crate::joint_math::{child_pose, joint_twist, quat_at};
use crate::{Result, layout::ArticulationLayout, scratch};

/// `body_q[child]` of every joint from the coordinates `q`.
#[weft::kernel]
pub fn eval_body_poses(model: &Model, q: &Array<f32>, body_q: &mut Array<Transform>) {
    let j = tid();
    body_q[model.joint_child[j]] = child_pose(model, q, j);
}

/// The motion subspace of every degree of freedom: the twist (world frame, at
/// the origin) of the child per unit velocity of that coordinate, from the
/// poses `body_q` of [`eval_body_poses`].
#[weft::kernel]
pub fn eval_motion_subspace(
    model: &Model,
    q: &Array<f32>,
    body_q: &Array<Transform>,
    s: &mut Array<SpatialVector>,
) {
    let j = tid();
    let parent = model.joint_parent[j];
    let mut xp = model.joint_parent_frame[j];
    if parent >= 0 {
        xp = body_q[parent] * xp;
    }
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j];
    let ds = model.joint_qd_start[j];
    let dim = model.joint_dof_dim[j];
    if kind == 2 || kind == 4 {
        // Ball and free: linear axes of the parent joint frame, angular axes of
        // the child joint frame through its origin.
        let mut nl = 0;
        let mut o = xp.p;
        let mut r = xp.q;
        if kind == 4 {
            nl = 3;
            o = transform_point(xp, Vec3::new(q[qs], q[qs + 1], q[qs + 2]));
            r = xp.q * quat_at(q, qs + 3);
        } else {
            r = xp.q * quat_at(q, qs);
        }
        for k in 0..nl {
            s[ds + k] = SpatialVector::new(quat_rotate(xp.q, model.joint_axis[ds + k]), Vec3::ZERO);
        }
        for k in nl..nl + 3 {
            let w = quat_rotate(r, model.joint_axis[ds + k]);
            s[ds + k] = SpatialVector::new(cross(o, w), w);
        }
    } else {
        // A chain of one-coordinate motions: translations, then rotations
        // about axes turned by the rotations before them.
        let mut o = xp.p;
        for k in 0..dim.x {
            let a = quat_rotate(xp.q, model.joint_axis[ds + k]);
            s[ds + k] = SpatialVector::new(a, Vec3::ZERO);
            o += a * q[qs + k];
        }
        let mut r = xp.q;
        for k in dim.x..dim.x + dim.y {
            let axis = model.joint_axis[ds + k];
            let w = quat_rotate(r, axis);
            s[ds + k] = SpatialVector::new(cross(o, w), w);
            r = r * quat_from_axis_angle(axis, q[qs + k]);
        }
    }
}

/// Each joint's child twist `v` (world, at the origin) and its velocity-product
/// acceleration `c = Ṡ q̇` (Featherstone's `cⱼ`): for each coordinate, the
/// twist of the frame its axis is fixed in, crossed with its motion.
#[weft::kernel]
pub fn eval_joint_velocities(
    model: &Model,
    qd: &Array<f32>,
    s: &Array<SpatialVector>,
    v: &mut Array<SpatialVector>,
    c: &mut Array<SpatialVector>,
) {
    let j = tid();
    let mut vp = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    let mut k = model.joint_ancestor[j];
    while k >= 0 {
        vp += joint_twist(model, s, qd, k);
        k = model.joint_ancestor[k];
    }
    let vj = joint_twist(model, s, qd, j);
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
    v[j] = vc;
    c[j] = cj;
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
    let com = transform_point(body_q[b], model.body_com[b]);
    let w = v[j].bottom;
    body_qd[b] = SpatialVector::new(v[j].top + cross(w, com), w);
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
    s: &Array<SpatialVector>,
    jac: &mut Array<SpatialVector>,
) {
    let j = tid();
    let art = model.joint_articulation[j];
    let j0 = model.articulation_start[art];
    let d0 = model.joint_qd_start[j0];
    let n = model.joint_qd_start[model.articulation_start[art + 1]] - d0;
    let row = jac_start[art] + (j - j0) * n;
    let o = body_q[model.joint_child[j]].p;
    for d in 0..n {
        jac[row + d] = SpatialVector::new(Vec3::ZERO, Vec3::ZERO);
    }
    let mut k = j;
    while k >= 0 {
        for d in model.joint_qd_start[k]..model.joint_qd_start[k + 1] {
            let w = s[d].bottom;
            jac[row + d - d0] = SpatialVector::new(s[d].top + cross(w, o), w);
        }
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
    let (mut s, mut v, mut c) = (
        scratch::dof_vectors(model)?,
        scratch::joint_vectors(model)?,
        scratch::joint_vectors(model)?,
    );
    eval_body_poses::launch(nj, model, &state.joint_q, &mut state.body_q)?;
    eval_motion_subspace::launch(nj, model, &state.joint_q, &state.body_q, &mut s)?;
    eval_joint_velocities::launch(nj, model, &state.joint_qd, &s, &mut v, &mut c)?;
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
    let nj = model.joint_count();
    let mut jac = scratch::vectors(model, layout.jacobian_len())?;
    if nj == 0 {
        return Ok(jac);
    }
    let mut body_q = scratch::poses(model)?;
    let mut s = scratch::dof_vectors(model)?;
    eval_body_poses::launch(nj, model, q, &mut body_q)?;
    eval_motion_subspace::launch(nj, model, q, &body_q, &mut s)?;
    eval_jacobians::launch(nj, model, &layout.jac_start, &body_q, &s, &mut jac)?;
    Ok(jac)
}
