//! [`RobotHandles`]: where a description's parts landed in the model, and the
//! conversions between MuJoCo's coordinates and Weft's.

use std::ops::Range;

use glam::{DQuat, DVec3, Quat, Vec3};
use weft::Transform;

use super::actuators::{ActuatorHandle, DriveInput};
use crate::JointKind;

/// A named frame on a body of the model (a description site).
#[derive(Clone, Debug, PartialEq)]
pub struct SiteHandle {
    /// The site's name.
    pub name: String,
    /// The Weft body it is attached to (-1: the world).
    pub body: i32,
    /// Its pose in that body's frame (in the world for body -1).
    pub transform: Transform,
}

/// Where each part of a [`RobotDescription`](crate::RobotDescription) went in
/// the [`ModelBuilder`](weft_sim::ModelBuilder), returned by
/// [`add_robot`](super::add_robot). Indices are the builder's (and so the
/// finalized model's).
#[derive(Clone, Debug, PartialEq)]
pub struct RobotHandles {
    /// Weft body of each description body.
    pub bodies: Vec<usize>,
    /// The massless links added for bodies with several joints.
    pub links: Vec<usize>,
    /// Weft joint of each description joint.
    pub joints: Vec<usize>,
    /// Per description body, the Weft joint whose child it is (its last joint,
    /// or the fixed joint that welds it): its row in the Jacobians.
    pub body_joints: Vec<usize>,
    /// First coordinate of each description joint in `joint_q`.
    pub q_start: Vec<usize>,
    /// First degree of freedom of each description joint in `joint_qd`.
    pub qd_start: Vec<usize>,
    /// The robot's coordinates in `joint_q` (MuJoCo's `qpos` order).
    pub q_range: Range<usize>,
    /// The robot's degrees of freedom in `joint_qd` (MuJoCo's `qvel` order).
    pub qd_range: Range<usize>,
    /// Shape of each description geom (`None`: visual only, not added).
    pub shapes: Vec<Option<usize>>,
    /// Each description site.
    pub sites: Vec<SiteHandle>,
    /// Each description actuator, in order (the control vector's layout).
    pub actuators: Vec<ActuatorHandle>,
    /// What of the description the model does not carry (velocity limits,
    /// …), one line each.
    pub warnings: Vec<String>,
    pub(crate) base: Transform,
    pub(crate) kinds: Vec<JointKind>,
}

impl RobotHandles {
    /// Weft's `joint_q` entries of this robot (its [`q_range`](Self::q_range))
    /// from MuJoCo's `qpos`: quaternions reordered from (w, x, y, z) to
    /// (x, y, z, w) and normalized; a free joint's pose taken into the base
    /// frame (the identity for `base = Transform::IDENTITY`).
    pub fn weft_q(&self, qpos: &[f64]) -> Vec<f32> {
        assert_eq!(qpos.len(), self.q_range.len(), "qpos of this robot");
        let (bp, bq) = (self.base.p.as_dvec3(), self.base.q.as_dquat());
        let mut out: Vec<f32> = qpos.iter().map(|&x| x as f32).collect();
        for (j, &kind) in self.kinds.iter().enumerate() {
            let s = self.q_start[j] - self.q_range.start;
            let quat = |k: usize| {
                DQuat::from_xyzw(qpos[k + 1], qpos[k + 2], qpos[k + 3], qpos[k]).normalize()
            };
            match kind {
                JointKind::Ball => put_quat(&mut out[s..s + 4], quat(s)),
                JointKind::Free => {
                    let p = bq.inverse() * (DVec3::from_slice(&qpos[s..s + 3]) - bp);
                    out[s..s + 3].copy_from_slice(&p.as_vec3().to_array());
                    put_quat(&mut out[s + 3..s + 7], bq.inverse() * quat(s + 3));
                }
                _ => {}
            }
        }
        out
    }

    /// MuJoCo's `qpos` from this robot's `joint_q` entries (the inverse of
    /// [`weft_q`](Self::weft_q)).
    pub fn mujoco_q(&self, q: &[f32]) -> Vec<f64> {
        assert_eq!(q.len(), self.q_range.len(), "joint_q of this robot");
        let (bp, bq) = (self.base.p.as_dvec3(), self.base.q.as_dquat());
        let mut out: Vec<f64> = q.iter().map(|&x| x as f64).collect();
        let quat = |k: usize| Quat::from_slice(&q[k..k + 4]).as_dquat().normalize();
        for (j, &kind) in self.kinds.iter().enumerate() {
            let s = self.q_start[j] - self.q_range.start;
            let wxyz = |r: DQuat| [r.w, r.x, r.y, r.z];
            match kind {
                JointKind::Ball => out[s..s + 4].copy_from_slice(&wxyz(quat(s))),
                JointKind::Free => {
                    let p = bq * Vec3::from_slice(&q[s..s + 3]).as_dvec3() + bp;
                    out[s..s + 3].copy_from_slice(&p.to_array());
                    out[s + 3..s + 7].copy_from_slice(&wxyz(bq * quat(s + 3)));
                }
                _ => {}
            }
        }
        out
    }

    /// Weft's `joint_qd` entries of this robot from MuJoCo's `qvel`: the same
    /// numbers, except that a free joint's linear velocity is taken into the
    /// base frame. (Both are the velocity of the body origin, then the angular
    /// velocity in body axes; a ball joint's is in body axes in both.)
    pub fn weft_qd(&self, qvel: &[f64]) -> Vec<f32> {
        assert_eq!(qvel.len(), self.qd_range.len(), "qvel of this robot");
        let bq = self.base.q.as_dquat();
        let mut out: Vec<f32> = qvel.iter().map(|&x| x as f32).collect();
        for (j, &kind) in self.kinds.iter().enumerate() {
            if kind == JointKind::Free {
                let s = self.qd_start[j] - self.qd_range.start;
                let v = bq.inverse() * DVec3::from_slice(&qvel[s..s + 3]);
                out[s..s + 3].copy_from_slice(&v.as_vec3().to_array());
            }
        }
        out
    }

    /// MuJoCo's `qvel` from this robot's `joint_qd` entries.
    pub fn mujoco_qd(&self, qd: &[f32]) -> Vec<f64> {
        assert_eq!(qd.len(), self.qd_range.len(), "joint_qd of this robot");
        let bq = self.base.q.as_dquat();
        let mut out: Vec<f64> = qd.iter().map(|&x| x as f64).collect();
        for (j, &kind) in self.kinds.iter().enumerate() {
            if kind == JointKind::Free {
                let s = self.qd_start[j] - self.qd_range.start;
                let v = bq * Vec3::from_slice(&qd[s..s + 3]).as_dvec3();
                out[s..s + 3].copy_from_slice(&v.to_array());
            }
        }
        out
    }

    /// World pose of site `k` given the model's body poses (`State::body_q`).
    pub fn site_pose(&self, k: usize, body_q: &[Transform]) -> Transform {
        let s = &self.sites[k];
        if s.body < 0 {
            s.transform
        } else {
            body_q[s.body as usize] * s.transform
        }
    }

    /// Writes the actuators' inputs for controls `ctrl` (one per actuator, in
    /// the description's order) into per-degree-of-freedom host arrays of the
    /// whole model (the contents of `Control::joint_target_pos`,
    /// `joint_target_vel` and `joint_f`); entries of other joints are kept.
    pub fn apply_controls(
        &self,
        ctrl: &[f32],
        target_pos: &mut [f32],
        target_vel: &mut [f32],
        effort: &mut [f32],
    ) {
        assert_eq!(ctrl.len(), self.actuators.len(), "one control per actuator");
        for (a, &c) in self.actuators.iter().zip(ctrl) {
            let slot = match a.input {
                DriveInput::TargetPos => &mut target_pos[a.dof],
                DriveInput::TargetVel => &mut target_vel[a.dof],
                DriveInput::Effort => &mut effort[a.dof],
            };
            *slot = a.value(c);
        }
    }
}

fn put_quat(out: &mut [f32], r: DQuat) {
    out.copy_from_slice(&r.as_quat().to_array());
}
