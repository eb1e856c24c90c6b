//! Joints that close loops: constraints between two bodies outside the
//! joint trees, for the maximal-coordinate solver
//! ([`XpbdRigid`](crate::XpbdRigid)). A four-bar linkage is a chain of three
//! joints from the ground plus one loop joint from its last link back to the
//! ground.

use weft::IVec2;

use super::ModelBuilder;
use super::joints::{JointDesc, JointType, check_joint_geometry};
use crate::error::{Result, SimError};
use crate::model::LoopJoints;

impl ModelBuilder {
    /// Adds a joint that closes a loop: `joint.child` keeps its own parent
    /// joint (if any) and is constrained to `joint.parent` as well. Loop
    /// joints have no coordinates and no drives; their limits hold. Returns
    /// the loop joint's index, or an `Err` naming it for bodies out of range
    /// or the same, two bodies that cannot move, a free joint (it would
    /// constrain nothing), a drive, damping or friction (drive the tree's
    /// joints instead), and everything [`add_joint`](Self::add_joint) checks
    /// of frames, axes and limits.
    ///
    /// Only [`XpbdRigid`](crate::XpbdRigid) solves loop joints; the
    /// reduced-coordinate solver refuses models that have them.
    ///
    /// ```
    /// use glam::Vec3;
    /// use weft::Transform;
    /// use weft_sim::{BodyDesc, JointDesc, ModelBuilder};
    ///
    /// let mut b = ModelBuilder::new();
    /// let link = b.add_body(BodyDesc::new(Transform::IDENTITY));
    /// b.add_joint(JointDesc::revolute(-1, link, Vec3::Y)).unwrap();
    /// // The same link hinged to the world a second time, 1 m away: a loop.
    /// let at = Transform::from_translation(Vec3::new(1.0, 0.0, 0.0));
    /// let l = JointDesc::revolute(-1, link, Vec3::Y).with_frames(at, at);
    /// assert_eq!(b.add_loop_joint(l).unwrap(), 0);
    /// let e = b.add_loop_joint(JointDesc::free(link)).unwrap_err();
    /// assert_eq!(e.to_string(), "loop joint 1: a free joint constrains nothing; a loop joint is revolute, prismatic, ball, fixed, universal or D6");
    /// ```
    pub fn add_loop_joint(&mut self, joint: JointDesc) -> Result<usize> {
        let index = self.loop_joints.len();
        let mut j = joint;
        let err = |message: String| SimError::InvalidLoopJoint {
            index,
            name: j.name.clone(),
            message,
        };
        let nb = self.bodies.len() as i32;
        for (what, b) in [("parent", j.parent), ("child", j.child)] {
            if !(-1..nb).contains(&b) {
                return Err(err(format!(
                    "{what} body {b} out of range (-1 for the world, or one of {nb} bodies)"
                )));
            }
        }
        if j.parent == j.child {
            return Err(err(format!("joins body {} to itself", j.child)));
        }
        let moves = |b: i32| b >= 0 && self.bodies[b as usize].kind == super::BodyKind::Dynamic;
        if !moves(j.parent) && !moves(j.child) {
            return Err(err(format!(
                "neither body {} nor body {} is dynamic; a loop joint needs one that moves",
                j.parent, j.child
            )));
        }
        if j.kind == JointType::Free {
            return Err(err("a free joint constrains nothing; a loop joint is revolute, prismatic, ball, fixed, universal or D6".into()));
        }
        let name = j.name.clone();
        check_joint_geometry(&mut j).map_err(|message| SimError::InvalidLoopJoint {
            index,
            name: name.clone(),
            message,
        })?;
        if j.kind == JointType::Ball && j.angular[0].upper != f32::INFINITY {
            return Err(SimError::InvalidLoopJoint {
                index,
                name,
                message: "a loop ball joint takes no cone limit (XpbdRigid has none; put it on a tree joint stepped by weft-articulation's FeatherstoneSolver)".into(),
            });
        }
        if let Some(k) = j.dofs().position(|d| {
            d.drive != super::JointDrive::default()
                || d.damping != 0.0
                || d.friction != 0.0
                || d.armature != 0.0
        }) {
            return Err(SimError::InvalidLoopJoint {
                index,
                name,
                message: format!(
                    "axis {k} has a drive, damping, friction or armature; a loop joint has no coordinates to act on (put them on a tree joint)"
                ),
            });
        }
        self.loop_joints.push(j);
        Ok(index)
    }

    /// Number of loop joints added so far.
    pub fn loop_joint_count(&self) -> usize {
        self.loop_joints.len()
    }

    /// The loop joints as device arrays.
    pub(crate) fn loop_joint_arrays(&self, device: weft::Device) -> Result<LoopJoints> {
        let js = &self.loop_joints;
        let mut start = Vec::with_capacity(js.len() + 1);
        let mut n = 0i32;
        for j in js {
            start.push(n);
            n += j.dof_count() as i32;
        }
        start.push(n);
        let dofs = || js.iter().flat_map(|j| j.dofs());
        Ok(LoopJoints {
            kind: weft::Array::try_from_slice(
                device,
                &js.iter().map(|j| j.kind.code()).collect::<Vec<_>>(),
            )?,
            parent: weft::Array::try_from_slice(
                device,
                &js.iter().map(|j| j.parent).collect::<Vec<_>>(),
            )?,
            child: weft::Array::try_from_slice(
                device,
                &js.iter().map(|j| j.child).collect::<Vec<_>>(),
            )?,
            parent_frame: weft::Array::try_from_slice(
                device,
                &js.iter().map(|j| j.parent_frame).collect::<Vec<_>>(),
            )?,
            child_frame: weft::Array::try_from_slice(
                device,
                &js.iter().map(|j| j.child_frame).collect::<Vec<_>>(),
            )?,
            dof_dim: weft::Array::try_from_slice(
                device,
                &js.iter()
                    .map(|j| IVec2::new(j.linear.len() as i32, j.angular.len() as i32))
                    .collect::<Vec<_>>(),
            )?,
            dof_start: weft::Array::try_from_slice(device, &start)?,
            axis: weft::Array::try_from_slice(device, &dofs().map(|d| d.axis).collect::<Vec<_>>())?,
            lower: weft::Array::try_from_slice(
                device,
                &dofs().map(|d| d.lower).collect::<Vec<_>>(),
            )?,
            upper: weft::Array::try_from_slice(
                device,
                &dofs().map(|d| d.upper).collect::<Vec<_>>(),
            )?,
        })
    }
}
