//! The joint solve of a taped [`XpbdRigid`](super::XpbdRigid) step: the
//! plain [`solve_joints`](super::joint_kernels::solve_joints) written so its
//! adjoint exists, as the contacts' [`xpbd_taped_kernels`](super::xpbd_taped_kernels).
//!
//! One launch per joint colour and pass, a thread per body: the body's joint
//! in the colour (no two of which share a dynamic body) is solved from the
//! poses `q` by both of its bodies' threads alike, with the same funcs as the
//! plain kernel, and each thread writes only its own new pose into a fresh
//! array. The drives' and frictions' accumulated corrections come in from
//! the last pass's array and go out into this pass's, written by one of the
//! joint's bodies ([`anchor_owner`]). Same funcs, same order: a taped step
//! equals a plain one bit for bit.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::ShapeSet;

use super::anchors::anchor_owner;
use super::joint_kernels::{
    dof_params, dof_row, dof_rows, joint_bodies, joint_frames, lock_joint, pose_or_world,
};
use crate::Model;
#[allow(unused_imports)] // named by the generated code
use crate::model::LoopJoints;

/// One joint colour of one pass out of place: thread `b` solves joint
/// `slot[group · bodies + b]` (tree joints `0..nj`, then loop joint `e −
/// nj` as `e`; -1: none, and static or kinematic bodies have none) from the
/// poses `q` (`x0`: the tree joints' coordinates at the substep's start,
/// [`eval_dof_start`](super::joint_kernels::eval_dof_start)) and writes its own new pose to
/// `q_out[b]`; bodies without a joint in the colour copy theirs. The
/// joint's degrees of freedom take their accumulated corrections from
/// `lam_in` (0 when `first`), and the joint's [`anchor_owner`] writes them
/// after into `lam_out`. Drive targets and efforts: `target_pos`,
/// `target_vel`, `effort`; `h`: the substep.
#[weft::kernel]
pub fn solve_joints_by_body(
    model: &Model,
    slot: &Array<i32>,
    group: i32,
    target_pos: &Array<f32>,
    target_vel: &Array<f32>,
    effort: &Array<f32>,
    h: f32,
    first: bool,
    q: &Array<Transform>,
    x0: &Array<f32>,
    lam_in: &Array<Vec4>,
    lam_out: &mut Array<Vec4>,
    q_out: &mut Array<Transform>,
) {
    let me = tid();
    let e = slot[group * q.len() as i32 + me];
    let mut out = q[me];
    if e >= 0 {
        let nj = model.joint_type.len() as i32;
        let ab = joint_bodies(model, e);
        let a = ab.x;
        let b = ab.y;
        let owner = anchor_owner(model, a, b) == me;
        let qa = pose_or_world(q, a);
        let qb = pose_or_world(q, b);
        let (pf, cf, dim) = joint_frames(model, e);
        let (la, lb) = lock_joint(model, e, a, b, qa, qb, pf, cf, dim);
        let mut oa = la;
        let mut ob = lb;
        // The rows as in `solve_joints`, written out here: behind one more
        // func the adjoint would replay them once more (132 k lines of PTX
        // instead of 125 k).
        let rows = dof_rows(model, e);
        if rows > 0 {
            for k in 0..dim.x + dim.y {
                let mut d = -1;
                let mut lk = Vec4::ZERO;
                let mut xk = 0.0;
                if e < nj {
                    d = model.joint_qd_start[e] + k;
                    xk = x0[d];
                    if !first {
                        lk = lam_in[d];
                    }
                }
                let (drive, gains, limits) =
                    dof_params(model, e, k, target_pos, target_vel, effort, h);
                for r in 0..rows {
                    let (ra, rb, lr) = dof_row(
                        model, e, ab, oa, ob, pf, cf, dim, k, r, xk, drive, gains, limits, lk,
                    );
                    oa = ra;
                    ob = rb;
                    lk = lr;
                }
                if owner && d >= 0 {
                    lam_out[d] = lk;
                }
            }
        }
        if me == a {
            out = oa;
        } else {
            out = ob;
        }
    }
    q_out[me] = out;
}
