//! Actuators as joint drives, and how a control vector feeds them.

use weft_sim::JointDrive;

use super::error::{RobotModelError, unsupported};
use crate::{ActuatorKind, JointKind, RobotDescription};

/// Which per-degree-of-freedom control input an actuator writes
/// (`Control::joint_target_pos`, `joint_target_vel` or `joint_f`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DriveInput {
    /// A position servo's target: `target_pos = ctrl / gear`.
    TargetPos,
    /// A velocity servo's target: `target_vel = ctrl / gear`.
    TargetVel,
    /// A motor's feed-forward effort: `joint_f = gear · ctrl`.
    Effort,
}

/// Where one actuator of the description acts in the model.
#[derive(Clone, Debug, PartialEq)]
pub struct ActuatorHandle {
    /// The actuator's name.
    pub name: String,
    /// The degree of freedom it drives (index into `joint_qd` and the
    /// per-dof `Control` arrays).
    pub dof: usize,
    /// The control input it writes.
    pub input: DriveInput,
    /// `input value = scale · ctrl` (`1/gear` for servos, `gear` for motors).
    pub scale: f32,
    /// Controls are clamped to this range first (MuJoCo's `ctrlrange`).
    pub ctrl_range: Option<(f32, f32)>,
}

impl ActuatorHandle {
    /// The value this actuator writes for control `ctrl` (clamped to its range).
    ///
    /// ```
    /// use weft_import::{ActuatorHandle, DriveInput};
    /// let a = ActuatorHandle { name: "m".into(), dof: 0, input: DriveInput::Effort,
    ///     scale: 40.0, ctrl_range: Some((-1.0, 1.0)) };
    /// assert_eq!(a.value(2.0), 40.0);
    /// ```
    pub fn value(&self, ctrl: f32) -> f32 {
        let c = match self.ctrl_range {
            Some((lo, hi)) => ctrl.clamp(lo, hi),
            None => ctrl,
        };
        self.scale * c
    }
}

/// The drive of each description joint's first degree of freedom (from its
/// actuators, its spring and its effort limit) and the actuators' handles
/// (their `dof` relative to the robot's first degree of freedom).
pub(crate) fn joint_drives(
    robot: &RobotDescription,
) -> Result<(Vec<JointDrive>, Vec<ActuatorHandle>), RobotModelError> {
    let mut drives = vec![JointDrive::default(); robot.joints.len()];
    let offsets = robot.joint_offsets();
    // What set each joint's stiffness, damping and effort, for conflicts.
    let mut owner: Vec<[Option<String>; 3]> = vec![Default::default(); robot.joints.len()];
    let mut claim = |j: usize, field: usize, who: String| -> Result<(), RobotModelError> {
        if let Some(first) = &owner[j][field] {
            return Err(unsupported(
                who,
                format!(
                    "joint `{}` already has its {} set by {first}; one joint takes one position servo, one velocity servo (or a servo's kv) and one motor",
                    robot.joints[j].name,
                    ["stiffness", "damping", "feed-forward effort"][field]
                ),
            ));
        }
        owner[j][field] = Some(who);
        Ok(())
    };
    for (j, joint) in robot.joints.iter().enumerate() {
        if joint.stiffness != 0.0 {
            claim(j, 0, format!("the spring of joint `{}`", joint.name))?;
            drives[j].stiffness = joint.stiffness as f32;
            drives[j].target_pos = joint.spring_ref as f32;
        }
        if let Some(limit) = joint.effort_limit {
            drives[j].effort_limit = limit.abs() as f32;
        }
    }
    let mut handles = Vec::with_capacity(robot.actuators.len());
    for a in &robot.actuators {
        let j = a.joint;
        let joint = &robot.joints[j];
        let who = format!("actuator `{}`", a.name);
        if !matches!(joint.kind, JointKind::Revolute | JointKind::Prismatic) {
            return Err(unsupported(
                who,
                format!(
                    "drives joint `{}` of kind {:?}; actuators drive hinge and slide joints only",
                    joint.name, joint.kind
                ),
            ));
        }
        if !(a.gear.is_finite() && a.gear != 0.0) {
            return Err(unsupported(
                who,
                format!("gear {} must be finite and non-zero", a.gear),
            ));
        }
        let g = a.gear;
        let d = &mut drives[j];
        let bound = |r: (f64, f64)| (r.0.abs().max(r.1.abs()) * g.abs()) as f32;
        let input = match a.kind {
            ActuatorKind::Motor => {
                claim(j, 2, who.clone())?;
                if let Some(r) = a.ctrl_range {
                    d.effort_limit = d.effort_limit.min(bound(r));
                }
                DriveInput::Effort
            }
            ActuatorKind::Position { kp, kv } => {
                claim(j, 0, who.clone())?;
                d.stiffness = (g * g * kp) as f32;
                if kv != 0.0 {
                    claim(j, 1, who.clone())?;
                    d.damping = (g * g * kv) as f32;
                }
                DriveInput::TargetPos
            }
            ActuatorKind::Velocity { kv } => {
                claim(j, 1, who.clone())?;
                d.damping = (g * g * kv) as f32;
                DriveInput::TargetVel
            }
        };
        if let Some(r) = a.force_range {
            d.effort_limit = d.effort_limit.min(bound(r));
        }
        handles.push(ActuatorHandle {
            name: a.name.clone(),
            dof: offsets[j].1,
            input,
            scale: if input == DriveInput::Effort {
                g as f32
            } else {
                (1.0 / g) as f32
            },
            ctrl_range: a.ctrl_range.map(|(lo, hi)| (lo as f32, hi as f32)),
        });
    }
    Ok((drives, handles))
}
