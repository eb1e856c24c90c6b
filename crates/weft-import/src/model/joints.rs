//! A description body's joints as Weft joints.
//!
//! MuJoCo moves a body by each of its joints in turn, each about its own
//! anchor; Weft gives a body one parent joint. A body with `k > 1` joints
//! therefore becomes a chain of `k − 1` massless links and the body itself,
//! one Weft joint each, in the file's order — so Weft's coordinates are
//! MuJoCo's, joint for joint. A body without joints is welded to its parent
//! by a fixed joint (no coordinates).

use glam::{DQuat, DVec3};
use weft::Transform;
use weft_sim::{JointDesc, JointDof, JointDrive};

use super::error::{RobotModelError, unsupported};
use super::shapes::to_transform;
use crate::{Joint, JointKind, Pose};

/// Per-joint settings that do not come from the description.
pub(crate) struct JointSettings {
    pub limit_ke: f32,
    pub limit_kd: f32,
}

/// The Weft joint for description joint `joint` between Weft bodies `parent`
/// and `child`, whose joint frame sits at `frame` in the parent's frame
/// (the body's pose for the first joint of a body, identity for later ones).
pub(crate) fn joint_desc(
    joint: &Joint,
    parent: i32,
    child: usize,
    frame: Transform,
    drive: JointDrive,
    settings: &JointSettings,
) -> Result<JointDesc, RobotModelError> {
    let at = |anchor: DVec3, rot: DQuat| {
        let pf = frame * to_transform(&Pose::new(anchor, rot));
        (pf, Transform::from_translation(anchor.as_vec3()))
    };
    let axis = joint.axis.normalize();
    let r = joint.reference;
    let mut j = match joint.kind {
        JointKind::Revolute => {
            // R(a, q − ref) = R(a, −ref) R(a, q), about the anchor.
            let (pf, cf) = at(joint.anchor, DQuat::from_axis_angle(axis, -r));
            JointDesc::revolute(parent, child, axis.as_vec3())
                .with_frames(pf, cf)
                .with_q(&[r as f32])
        }
        JointKind::Prismatic => {
            let pf = frame * Transform::from_translation((-r * axis).as_vec3());
            JointDesc::prismatic(parent, child, axis.as_vec3())
                .with_frames(pf, Transform::IDENTITY)
                .with_q(&[r as f32])
        }
        JointKind::Ball => {
            let (pf, cf) = at(joint.anchor, DQuat::IDENTITY);
            JointDesc::ball(parent, child).with_frames(pf, cf)
        }
        JointKind::Planar => {
            // Translations along two axes normal to `axis`, then the turn about it.
            let (u, v) = axis.any_orthonormal_pair();
            let (pf, cf) = at(joint.anchor, DQuat::IDENTITY);
            JointDesc::d6(
                parent,
                child,
                &[u.as_vec3(), v.as_vec3()],
                &[axis.as_vec3()],
            )
            .with_frames(pf, cf)
        }
        JointKind::Fixed => JointDesc::fixed(parent, child).with_frames(frame, Transform::IDENTITY),
        JointKind::Free => {
            return Err(unsupported(
                format!("joint `{}`", joint.name),
                "a free joint must be the only joint of a body whose parent is the world",
            ));
        }
    };
    let scalar = matches!(joint.kind, JointKind::Revolute | JointKind::Prismatic);
    let ball = joint.kind == JointKind::Ball;
    for (k, dof) in j.linear.iter_mut().chain(j.angular.iter_mut()).enumerate() {
        // A ball's spring (MuJoCo's pulls toward the reference rotation, the
        // identity here) and effort limit act about all three axes.
        let dof_drive = match (k, ball) {
            (_, true) => JointDrive {
                target_pos: 0.0,
                ..drive
            },
            (0, false) => drive,
            _ => JointDrive::default(),
        };
        set_dof(dof, joint, dof_drive, scalar);
    }
    if let (true, Some((_, max))) = (ball, joint.limits) {
        // MuJoCo's ball `range`: only the second value, the largest angle.
        j = j.with_cone_limit(max as f32);
    }
    j.limit_ke = settings.limit_ke;
    j.limit_kd = settings.limit_kd;
    Ok(j.named(&joint.name))
}

/// The free joint of a root body at `pose` (the parent joint frame is `base`).
pub(crate) fn free_joint(joint: &Joint, child: usize, base: Transform, pose: &Pose) -> JointDesc {
    let t = to_transform(pose);
    let mut j = JointDesc::free(child)
        .with_frames(base, Transform::IDENTITY)
        .with_q(&[t.p.x, t.p.y, t.p.z, t.q.x, t.q.y, t.q.z, t.q.w]);
    for dof in j.linear.iter_mut().chain(j.angular.iter_mut()) {
        set_dof(dof, joint, JointDrive::default(), false);
    }
    j.named(&joint.name)
}

/// Armature, damping, friction and drive of one degree of freedom; the limits
/// of hinges and slides (`scalar`; a ball's cone is set by [`joint_desc`]).
fn set_dof(dof: &mut JointDof, joint: &Joint, drive: JointDrive, scalar: bool) {
    dof.armature = joint.armature as f32;
    dof.damping = joint.damping as f32;
    dof.friction = joint.friction as f32;
    dof.drive = drive;
    if let (Some((lo, hi)), true) = (joint.limits, scalar) {
        *dof = dof.with_limits(lo as f32, hi as f32);
    }
}
