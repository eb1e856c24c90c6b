//! Joint coordinates from body poses and velocities ([`eval_ik`]): the
//! inverse of [`eval_fk`](crate::eval_fk), as Warp's `eval_ik`.
//!
//! Per joint, the child joint frame is found in the parent joint frame
//! (`X_J = (parent pose ∘ parent_frame)⁻¹ ∘ child pose ∘ child_frame`) and its
//! coordinates read off by kind: a revolute angle from the quaternion, a
//! universal joint's two angles and a D6 joint's three (Davenport angles about
//! its own axes, in the order they compose), linear offsets by solving
//! `p = Σ aₖ xₖ`, quaternions as they are. The velocities are the child's
//! twist relative to its parent, decomposed on the joint's axes the same way.
//!
//! Poses determine coordinates up to branches: angles up to turns of 2π, a
//! D6 joint's three angles up to its two Euler solutions, quaternions up to
//! sign. [`eval_ik`] returns the branch nearest the state's current
//! `joint_q` (so a trajectory stays continuous). Poses that no coordinates
//! give (a hinge's child turned off its axis) come back as the coordinates of
//! the nearest motion of the joint's kind, roughly: the rotation's twist about
//! the axis, the offset's projection on the linear axes.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;
use weft_sim::joint_angles::{angle_about, angles3, component, solve_axes, twist_angle};
use weft_sim::{Model, State};

use crate::{Result, scratch};

/// The angle `x + 2πk` nearest `reference`.
#[weft::func]
pub fn wrap_near(x: f32, reference: f32) -> f32 {
    x + 6.2831855 * round((reference - x) / 6.2831855)
}

/// Joint `tid()`'s coordinates `q` and velocities `qd` from the poses
/// `body_q` and velocities `body_qd` (weft's: body frame; centre-of-mass
/// velocity, angular velocity; world). Angles and quaternion signs take the
/// branch nearest `q_ref`.
#[weft::kernel]
pub fn eval_joint_coords(
    model: &Model,
    body_q: &Array<Transform>,
    body_qd: &Array<SpatialVector>,
    q_ref: &Array<f32>,
    q: &mut Array<f32>,
    qd: &mut Array<f32>,
) {
    let j = tid();
    let parent = model.joint_parent[j];
    let child = model.joint_child[j];
    let mut xp = model.joint_parent_frame[j];
    let mut vp = Vec3::ZERO;
    let mut wp = Vec3::ZERO;
    let mut comp = Vec3::ZERO;
    if parent >= 0 {
        let pose = body_q[parent];
        xp = pose * xp;
        vp = body_qd[parent].top;
        wp = body_qd[parent].bottom;
        comp = transform_point(pose, model.body_com[parent]);
    }
    let xc = body_q[child] * model.joint_child_frame[j];
    let xj = transform_inverse(xp) * xc;
    // The child joint origin's velocity and the angular velocity relative to
    // the parent, in the parent joint frame.
    let o = xc.p;
    let comc = transform_point(body_q[child], model.body_com[child]);
    let wc = body_qd[child].bottom;
    let vc = body_qd[child].top + cross(wc, o - comc);
    let v_rel = quat_rotate_inv(xp.q, vc - vp - cross(wp, o - comp));
    let w_rel = quat_rotate_inv(xp.q, wc - wp);
    let kind = model.joint_type[j];
    let qs = model.joint_q_start[j];
    let ds = model.joint_qd_start[j];
    let dim = model.joint_dof_dim[j];
    if kind == 2 || kind == 4 {
        let mut nl = 0;
        if kind == 4 {
            nl = 3;
        }
        let mut r = xj.q;
        let rr = Quat::from_xyzw(
            q_ref[qs + nl],
            q_ref[qs + nl + 1],
            q_ref[qs + nl + 2],
            q_ref[qs + nl + 3],
        );
        if dot(r, rr) < 0.0 {
            r = Quat::from_xyzw(-r.x, -r.y, -r.z, -r.w);
        }
        let w_child = quat_rotate_inv(r, w_rel);
        for k in 0..nl {
            let a = model.joint_axis[ds + k];
            q[qs + k] = dot(xj.p, a);
            qd[ds + k] = dot(v_rel, a);
        }
        q[qs + nl] = r.x;
        q[qs + nl + 1] = r.y;
        q[qs + nl + 2] = r.z;
        q[qs + nl + 3] = r.w;
        for k in nl..nl + 3 {
            qd[ds + k] = dot(w_child, model.joint_axis[ds + k]);
        }
    } else {
        // Linear offsets: p = Σ aₖ xₖ, and their rates.
        let mut l0 = Vec3::ZERO;
        let mut l1 = Vec3::ZERO;
        let mut l2 = Vec3::ZERO;
        if dim.x > 0 {
            l0 = model.joint_axis[ds];
        }
        if dim.x > 1 {
            l1 = model.joint_axis[ds + 1];
        }
        if dim.x > 2 {
            l2 = model.joint_axis[ds + 2];
        }
        let x = solve_axes(dim.x, l0, l1, l2, xj.p);
        let xd = solve_axes(dim.x, l0, l1, l2, v_rel);
        for k in 0..dim.x {
            q[qs + k] = component(x, k);
            qd[ds + k] = component(xd, k);
        }
        // Angles, composed in order: R = R(a0, θ0) R(a1, θ1) R(a2, θ2).
        let a = ds + dim.x;
        let b = qs + dim.x;
        let r = xj.q;
        let mut ang = Vec3::ZERO;
        // ω = Σ wᵢ θ̇ᵢ with wᵢ = R(a0, θ0) ⋯ R(aᵢ₋₁, θᵢ₋₁) aᵢ.
        let mut w0 = Vec3::ZERO;
        let mut w1 = Vec3::ZERO;
        let mut w2 = Vec3::ZERO;
        if dim.y == 1 {
            let u0 = normalize(model.joint_axis[a]);
            ang = Vec3::new(wrap_near(twist_angle(r, u0), q_ref[b]), 0.0, 0.0);
            w0 = u0;
        } else if dim.y == 2 {
            let u0 = normalize(model.joint_axis[a]);
            let u1 = normalize(model.joint_axis[a + 1]);
            let t0 = angle_about(u0, u1, quat_rotate(r, u1));
            let t1 = twist_angle(quat_inverse(quat_from_axis_angle(u0, t0)) * r, u1);
            ang = Vec3::new(wrap_near(t0, q_ref[b]), wrap_near(t1, q_ref[b + 1]), 0.0);
            w0 = u0;
            w1 = quat_rotate(quat_from_axis_angle(u0, ang.x), u1);
        } else if dim.y == 3 {
            let u0 = normalize(model.joint_axis[a]);
            let u1 = normalize(model.joint_axis[a + 1]);
            let u2 = normalize(model.joint_axis[a + 2]);
            let refs = Vec3::new(q_ref[b], q_ref[b + 1], q_ref[b + 2]);
            let e0 = angles3(r, u0, u1, u2, 1.0);
            let e1 = angles3(r, u0, u1, u2, -1.0);
            let f0 = Vec3::new(
                wrap_near(e0.x, refs.x),
                wrap_near(e0.y, refs.y),
                wrap_near(e0.z, refs.z),
            );
            let f1 = Vec3::new(
                wrap_near(e1.x, refs.x),
                wrap_near(e1.y, refs.y),
                wrap_near(e1.z, refs.z),
            );
            ang = f0;
            if length_sq(f1 - refs) < length_sq(f0 - refs) {
                ang = f1;
            }
            let r0 = quat_from_axis_angle(u0, ang.x);
            w0 = u0;
            w1 = quat_rotate(r0, u1);
            w2 = quat_rotate(r0 * quat_from_axis_angle(u1, ang.y), u2);
        }
        let rates = solve_axes(dim.y, w0, w1, w2, w_rel);
        for k in 0..dim.y {
            q[b + k] = component(ang, k);
            qd[a + k] = component(rates, k);
        }
    }
}

/// Inverse kinematics of the joints (Warp's `eval_ik`): `state.joint_q` and
/// `state.joint_qd` from the poses `state.body_q` and velocities
/// `state.body_qd` of the joints' child bodies (and their parents), for every
/// joint kind. The inverse of [`eval_fk`](crate::eval_fk) for poses it can
/// produce: where several coordinates give the same poses (angles 2π apart,
/// a D6 joint's two Euler branches, a quaternion's sign) the ones nearest the
/// current `state.joint_q` are returned. Not recorded on a tape.
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
/// b.add_joint(JointDesc::revolute(-1, link, Vec3::Z).with_q(&[0.7]).with_qd(&[-2.0]))?;
/// let model = b.finalize(Device::Cpu)?;
/// let mut state = State::new(&model)?;
/// weft_articulation::eval_fk(&model, &mut state)?;
/// state.joint_q.try_fill(0.0)?;
/// state.joint_qd.try_fill(0.0)?;
/// weft_articulation::eval_ik(&model, &mut state)?;
/// assert!((state.joint_q.to_vec()[0] - 0.7).abs() < 1e-6);
/// assert!((state.joint_qd.to_vec()[0] + 2.0).abs() < 1e-5);
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub fn eval_ik(model: &Model, state: &mut State) -> Result<()> {
    let nj = model.joint_count();
    if nj == 0 {
        return Ok(());
    }
    crate::check_state(model, state)?;
    Tape::pause(|| -> Result<()> {
        let mut q = scratch::floats(model, model.joint_coord_count())?;
        let mut qd = scratch::floats(model, model.joint_dof_count())?;
        eval_joint_coords::launch(
            nj,
            model,
            &state.body_q,
            &state.body_qd,
            &state.joint_q,
            &mut q,
            &mut qd,
        )?;
        state.joint_q.copy_from(&q)?;
        state.joint_qd.copy_from(&qd)?;
        Ok(())
    })
}
