//! Joints between rigid bodies, on the host: [`JointDesc`] and its parts, the
//! checks of [`ModelBuilder::add_joint`], and the flat arrays the
//! [`Model`](crate::Model) gets at [`ModelBuilder::finalize`].
//!
//! Joints form trees (articulations) for reduced-coordinate solvers
//! (`weft-articulation`'s Featherstone dynamics), laid out as in Warp/Newton:
//! each joint connects a parent body (-1: the world) to a child body; a
//! joint's frame sits at `parent_frame` in the parent body's frame and at
//! `child_frame` in the child's, and the joint's motion `X_J(q)` maps the
//! second onto the first: `child pose = parent pose ∘ parent_frame ∘ X_J(q) ∘
//! child_frame⁻¹`.
//!
//! Coordinates, per joint, in this order (`q`: positions, `qd`: velocities):
//! - revolute: `q = [angle]`, `qd = [rate]` about `angular[0].axis`;
//! - prismatic: `q = [offset]` along `linear[0].axis`;
//! - universal: two angles, rotation `R(a0, q0) R(a1, q1)`;
//! - D6: the offsets along each linear axis (translation `Σ aₖ qₖ`), then the
//!   angles about each angular axis, composed in order (`R(a0, q0) R(a1, q1) …`);
//!   `qd` are the coordinates' rates;
//! - ball: `q` a quaternion `(x, y, z, w)` of the child joint frame in the
//!   parent joint frame; `qd` the angular velocity in the child joint frame;
//!   its three drives' `target_pos` are a rotation vector (axis · angle) of the
//!   target rotation, and its limit is a cone on the rotation's angle
//!   ([`JointDesc::with_cone_limit`]);
//! - free: `q = [px, py, pz, qx, qy, qz, qw]` (position of the child joint
//!   frame's origin in the parent joint frame, then its rotation); `qd = [vx,
//!   vy, vz, ωx, ωy, ωz]`: the velocity of that origin in the parent joint
//!   frame, then the angular velocity in the child joint frame. With the
//!   world as parent and identity frames this is MuJoCo's free joint exactly
//!   (`qpos`: body position and quaternion — reorder MuJoCo's `(w, x, y, z)`
//!   to `(x, y, z, w)`; `qvel`: world linear velocity of the body origin, then
//!   local angular velocity); drive targets: the position (parent joint
//!   frame), then a rotation vector as the ball's; no limits;
//! - fixed: none.

use glam::{Quat, Vec3};
use weft::Transform;

use super::{BodyKind, ModelBuilder};
use crate::error::{Result, SimError};

/// The kind of a joint; see the [module docs](self) for its coordinates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JointType {
    /// One rotation about an axis.
    Revolute,
    /// One translation along an axis.
    Prismatic,
    /// Free rotation (a quaternion; 3 velocity coordinates).
    Ball,
    /// No relative motion.
    Fixed,
    /// Free motion (position and quaternion; 6 velocity coordinates).
    Free,
    /// Two rotations about two axes.
    Universal,
    /// Up to three translations along linear axes, then up to three rotations.
    D6,
}

impl JointType {
    /// The code stored in [`Model::joint_type`](crate::Model::joint_type)
    /// ([`crate::JOINT_REVOLUTE`] …).
    pub fn code(self) -> i32 {
        match self {
            JointType::Revolute => crate::JOINT_REVOLUTE,
            JointType::Prismatic => crate::JOINT_PRISMATIC,
            JointType::Ball => crate::JOINT_BALL,
            JointType::Fixed => crate::JOINT_FIXED,
            JointType::Free => crate::JOINT_FREE,
            JointType::Universal => crate::JOINT_UNIVERSAL,
            JointType::D6 => crate::JOINT_D6,
        }
    }

    fn name(self) -> &'static str {
        match self {
            JointType::Revolute => "revolute",
            JointType::Prismatic => "prismatic",
            JointType::Ball => "ball",
            JointType::Fixed => "fixed",
            JointType::Free => "free",
            JointType::Universal => "universal",
            JointType::D6 => "D6",
        }
    }
}

/// A drive on one degree of freedom: a PD controller toward a position and
/// velocity target plus a feed-forward effort, clamped to an effort limit:
/// `τ = clamp(stiffness (target_pos − q) + damping (target_vel − q̇) + effort,
/// ±effort_limit)` (torque for angular axes, force for linear ones). The
/// targets and the effort here are initial values; the per-step ones are in
/// [`Control`](crate::Control).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointDrive {
    /// Position target (rad or m; the rotations of ball and free joints:
    /// a component of the target's rotation vector, see the [module
    /// docs](self)).
    pub target_pos: f32,
    /// Velocity target (rad/s or m/s).
    pub target_vel: f32,
    /// Stiffness (N·m/rad or N/m); 0: no position control.
    pub stiffness: f32,
    /// Damping toward the velocity target (N·m·s/rad or N·s/m).
    pub damping: f32,
    /// Feed-forward effort (N·m or N).
    pub effort: f32,
    /// Largest magnitude of the drive's effort (`f32::INFINITY`: none).
    pub effort_limit: f32,
}

impl Default for JointDrive {
    fn default() -> Self {
        JointDrive {
            target_pos: 0.0,
            target_vel: 0.0,
            stiffness: 0.0,
            damping: 0.0,
            effort: 0.0,
            effort_limit: f32::INFINITY,
        }
    }
}

/// One degree of freedom of a joint: its axis and its dynamics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JointDof {
    /// Axis in the joint frame (normalised by the builder).
    pub axis: Vec3,
    /// Lower limit of the coordinate (`-inf`: none; a ball joint's first
    /// angular axis: 0 with a cone limit, see [`JointDesc::with_cone_limit`]).
    pub lower: f32,
    /// Upper limit of the coordinate (`inf`: none; a ball joint's first
    /// angular axis: the cone's largest rotation angle).
    pub upper: f32,
    /// Extra inertia on this coordinate (rotor inertia, kg·m² or kg).
    pub armature: f32,
    /// Viscous damping of the coordinate's velocity.
    pub damping: f32,
    /// Dry friction: the largest effort opposing motion.
    pub friction: f32,
    /// The drive.
    pub drive: JointDrive,
}

impl JointDof {
    /// A free degree of freedom along or about `axis`: no limits, armature,
    /// damping, friction or drive.
    pub fn new(axis: Vec3) -> Self {
        JointDof {
            axis,
            lower: f32::NEG_INFINITY,
            upper: f32::INFINITY,
            armature: 0.0,
            damping: 0.0,
            friction: 0.0,
            drive: JointDrive::default(),
        }
    }

    /// With limits `lower ≤ q ≤ upper`.
    pub fn with_limits(mut self, lower: f32, upper: f32) -> Self {
        self.lower = lower;
        self.upper = upper;
        self
    }
}

/// A joint as added to a [`ModelBuilder`] with [`ModelBuilder::add_joint`].
///
/// ```
/// use glam::{Quat, Vec3};
/// use weft::Transform;
/// use weft_sim::{BodyDesc, BodyMass, JointDesc, ModelBuilder};
/// use weft_geom::MassProperties;
///
/// let mut b = ModelBuilder::new();
/// let mut link = BodyDesc::new(Transform::IDENTITY);
/// link.mass = BodyMass::Given(MassProperties::sphere(1000.0, 0.05));
/// let link = b.add_body(link);
/// // A pendulum: hinge about Y at the origin, the link's frame 1 m below it.
/// let j = JointDesc::revolute(-1, link, Vec3::Y)
///     .with_frames(Transform::IDENTITY, Transform::from_translation(Vec3::new(0.0, 0.0, 1.0)));
/// assert_eq!(b.add_joint(j).unwrap(), 0);
/// // The same body cannot get a second parent.
/// let e = b.add_joint(JointDesc::fixed(-1, link).named("weld")).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "joint 1 `weld`: child body 0 already has a parent joint (joint 0); a body has one parent joint (close loops with `add_loop_joint`)"
/// );
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct JointDesc {
    /// The kind of joint.
    pub kind: JointType,
    /// Parent body (-1: the world).
    pub parent: i32,
    /// Child body.
    pub child: i32,
    /// The joint frame in the parent body's frame.
    pub parent_frame: Transform,
    /// The joint frame in the child body's frame.
    pub child_frame: Transform,
    /// Linear degrees of freedom (prismatic: one; D6: up to three; free:
    /// three along the joint frame's X, Y, Z).
    pub linear: Vec<JointDof>,
    /// Angular degrees of freedom (revolute: one; universal: two; D6: up to
    /// three; ball and free: three about X, Y, Z of the child joint frame).
    pub angular: Vec<JointDof>,
    /// Initial position coordinates (empty: zero, identity rotations).
    pub q: Vec<f32>,
    /// Initial velocity coordinates (empty: zero).
    pub qd: Vec<f32>,
    /// Penalty stiffness of the limits (per unit of violation).
    pub limit_ke: f32,
    /// Penalty damping of the limits (on the velocity while violated).
    pub limit_kd: f32,
    /// A name for error messages (and importers); may be empty.
    pub name: String,
}

impl JointDesc {
    fn with_dofs(
        kind: JointType,
        parent: i32,
        child: usize,
        linear: &[Vec3],
        angular: &[Vec3],
    ) -> Self {
        JointDesc {
            kind,
            parent,
            child: child as i32,
            parent_frame: Transform::IDENTITY,
            child_frame: Transform::IDENTITY,
            linear: linear.iter().map(|&a| JointDof::new(a)).collect(),
            angular: angular.iter().map(|&a| JointDof::new(a)).collect(),
            q: Vec::new(),
            qd: Vec::new(),
            limit_ke: 1.0e4,
            limit_kd: 1.0e2,
            name: String::new(),
        }
    }

    /// A hinge about `axis` (joint frame) between `parent` (-1: world) and `child`.
    pub fn revolute(parent: i32, child: usize, axis: Vec3) -> Self {
        Self::with_dofs(JointType::Revolute, parent, child, &[], &[axis])
    }

    /// A slider along `axis`.
    pub fn prismatic(parent: i32, child: usize, axis: Vec3) -> Self {
        Self::with_dofs(JointType::Prismatic, parent, child, &[axis], &[])
    }

    /// A ball joint (spherical).
    pub fn ball(parent: i32, child: usize) -> Self {
        Self::with_dofs(
            JointType::Ball,
            parent,
            child,
            &[],
            &[Vec3::X, Vec3::Y, Vec3::Z],
        )
    }

    /// A weld.
    pub fn fixed(parent: i32, child: usize) -> Self {
        Self::with_dofs(JointType::Fixed, parent, child, &[], &[])
    }

    /// A free joint from the world to `child`.
    pub fn free(child: usize) -> Self {
        let xyz = [Vec3::X, Vec3::Y, Vec3::Z];
        Self::with_dofs(JointType::Free, -1, child, &xyz, &xyz)
    }

    /// Two hinges: about `axis0`, then about `axis1` (turned by the first).
    pub fn universal(parent: i32, child: usize, axis0: Vec3, axis1: Vec3) -> Self {
        Self::with_dofs(JointType::Universal, parent, child, &[], &[axis0, axis1])
    }

    /// Translations along `linear` axes, then rotations about `angular` axes.
    pub fn d6(parent: i32, child: usize, linear: &[Vec3], angular: &[Vec3]) -> Self {
        Self::with_dofs(JointType::D6, parent, child, linear, angular)
    }

    /// With joint frames in the parent's and the child's frame.
    pub fn with_frames(mut self, parent_frame: Transform, child_frame: Transform) -> Self {
        self.parent_frame = parent_frame;
        self.child_frame = child_frame;
        self
    }

    /// With initial coordinates.
    pub fn with_q(mut self, q: &[f32]) -> Self {
        self.q = q.to_vec();
        self
    }

    /// With initial velocities.
    pub fn with_qd(mut self, qd: &[f32]) -> Self {
        self.qd = qd.to_vec();
        self
    }

    /// A ball joint with a cone limit: the angle of its rotation (`|log q|`,
    /// the quaternion's angle in `[0, π]`) at most `max_angle` rad, as
    /// MuJoCo's ball-joint `range="0 max_angle"`. Stored as the first
    /// angular axis's limits `[0, max_angle]` (the other axes take none);
    /// enforced by weft-articulation's `FeatherstoneSolver` as a penalty of
    /// `limit_ke`, `limit_kd` about the rotation's axis.
    pub fn with_cone_limit(mut self, max_angle: f32) -> Self {
        if let Some(d) = self.angular.first_mut() {
            *d = d.with_limits(0.0, max_angle);
        }
        self
    }

    /// With a name for messages.
    pub fn named(mut self, name: &str) -> Self {
        self.name = name.into();
        self
    }

    /// Number of position coordinates (free: 7, ball: 4, else one per axis).
    pub fn coord_count(&self) -> usize {
        match self.kind {
            JointType::Free => 7,
            JointType::Ball => 4,
            _ => self.linear.len() + self.angular.len(),
        }
    }

    /// Number of velocity coordinates (degrees of freedom).
    pub fn dof_count(&self) -> usize {
        self.linear.len() + self.angular.len()
    }

    /// The degrees of freedom, linear first.
    pub fn dofs(&self) -> impl Iterator<Item = &JointDof> {
        self.linear.iter().chain(&self.angular)
    }
}

/// Flat joint arrays on the host, checked, ready for the device.
#[derive(Default)]
pub(crate) struct JointArrays {
    pub kind: Vec<i32>,
    pub parent: Vec<i32>,
    pub child: Vec<i32>,
    pub ancestor: Vec<i32>,
    pub articulation: Vec<i32>,
    pub parent_frame: Vec<Transform>,
    pub child_frame: Vec<Transform>,
    pub dof_dim: Vec<weft::IVec2>,
    pub q_start: Vec<i32>,
    pub qd_start: Vec<i32>,
    pub q: Vec<f32>,
    pub qd: Vec<f32>,
    pub axis: Vec<Vec3>,
    pub armature: Vec<f32>,
    pub damping: Vec<f32>,
    pub friction: Vec<f32>,
    pub lower: Vec<f32>,
    pub upper: Vec<f32>,
    pub limit_ke: Vec<f32>,
    pub limit_kd: Vec<f32>,
    pub target_ke: Vec<f32>,
    pub target_kd: Vec<f32>,
    pub effort_limit: Vec<f32>,
    pub target_pos: Vec<f32>,
    pub target_vel: Vec<f32>,
    pub effort: Vec<f32>,
    pub articulation_start: Vec<i32>,
}

fn finite_pose(t: &Transform) -> bool {
    t.p.is_finite() && t.q.is_finite() && t.q.length_squared() > 1e-12
}

impl ModelBuilder {
    /// Adds a joint; returns its index, or an `Err` naming the joint when it
    /// does not fit: a body out of range, a child that is not dynamic or
    /// already has a parent joint, a parent that is not the world or the child
    /// of an earlier joint of the same articulation (parents first; a cycle is
    /// named as one), a zero or non-finite axis, parallel axes, axes of the
    /// wrong number for the kind, a NaN anywhere, negative gains, limits with
    /// `lower > upper`, or initial coordinates of the wrong length.
    ///
    /// Joints whose parent is the world start a new articulation; the joints
    /// of one articulation are added together, each after its parent's joint.
    pub fn add_joint(&mut self, joint: JointDesc) -> Result<usize> {
        let index = self.joints.len();
        let mut j = joint;
        self.check_joint(index, &mut j)?;
        self.joints.push(j);
        Ok(index)
    }

    /// Number of joints added so far.
    pub fn joint_count(&self) -> usize {
        self.joints.len()
    }

    /// Number of joint position coordinates added so far (where the next
    /// joint's coordinates will start in `joint_q`).
    pub fn joint_coord_count(&self) -> usize {
        self.joints.iter().map(JointDesc::coord_count).sum()
    }

    /// Number of joint degrees of freedom added so far (where the next
    /// joint's velocities will start in `joint_qd`).
    pub fn joint_dof_count(&self) -> usize {
        self.joints.iter().map(JointDesc::dof_count).sum()
    }

    /// The joint whose child is `body`, if any.
    fn parent_joint_of(&self, body: i32) -> Option<usize> {
        self.joints.iter().position(|j| j.child == body)
    }

    /// Whether `body` is `of` or one of its ancestors through the joints.
    fn is_ancestor(&self, body: i32, of: i32) -> bool {
        let mut b = of;
        // Each step moves to an earlier joint's parent, so this ends.
        for _ in 0..=self.joints.len() {
            if b == body {
                return true;
            }
            match self.parent_joint_of(b) {
                Some(k) => b = self.joints[k].parent,
                None => return false,
            }
        }
        false
    }

    fn check_joint(&self, index: usize, j: &mut JointDesc) -> Result<()> {
        let name = j.name.clone();
        let err = |message: String| SimError::InvalidJoint {
            index,
            name: name.clone(),
            message,
        };
        let nb = self.bodies.len() as i32;
        if !(0..nb).contains(&j.child) {
            return Err(err(format!(
                "child body {} out of range ({nb} bodies)",
                j.child
            )));
        }
        if !(-1..nb).contains(&j.parent) {
            return Err(err(format!(
                "parent body {} out of range (-1 for the world, or one of {nb} bodies)",
                j.parent
            )));
        }
        if j.parent == j.child {
            return Err(err(format!("body {} is its own parent", j.child)));
        }
        if self.bodies[j.child as usize].kind != BodyKind::Dynamic {
            return Err(err(format!(
                "child body {} is {:?}; a joint's child must be dynamic",
                j.child, self.bodies[j.child as usize].kind
            )));
        }
        if let Some(k) = self.parent_joint_of(j.child) {
            if self.is_ancestor(j.child, j.parent) {
                return Err(err(format!(
                    "would close a cycle: child body {} is an ancestor of parent body {} (close loops with `add_loop_joint`)",
                    j.child, j.parent
                )));
            }
            return Err(err(format!(
                "child body {} already has a parent joint (joint {k}); a body has one parent joint (close loops with `add_loop_joint`)",
                j.child
            )));
        }
        if j.parent >= 0 {
            let Some(k) = self.parent_joint_of(j.parent) else {
                return Err(err(format!(
                    "parent body {} is not the child of any joint; connect it to the world first (a free or fixed joint), parents before children",
                    j.parent
                )));
            };
            let current = self
                .joints
                .iter()
                .rposition(|x| x.parent < 0)
                .expect("joint k's articulation has a root");
            let root_of_k = self.joints[..=k]
                .iter()
                .rposition(|x| x.parent < 0)
                .expect("joint k's articulation has a root");
            if root_of_k != current {
                return Err(err(format!(
                    "parent body {} belongs to the articulation rooted at joint {root_of_k}, but joint {current} started another; add each articulation's joints together",
                    j.parent
                )));
            }
        }
        check_joint_geometry(j).map_err(err)?;
        let kind = j.kind.name();
        let (nq, nqd) = (j.coord_count(), j.dof_count());
        if j.q.is_empty() {
            j.q = vec![0.0; nq];
            match j.kind {
                JointType::Ball => j.q[3] = 1.0,
                JointType::Free => j.q[6] = 1.0,
                _ => {}
            }
        }
        if j.qd.is_empty() {
            j.qd = vec![0.0; nqd];
        }
        if j.q.len() != nq || j.qd.len() != nqd {
            return Err(err(format!(
                "a {kind} joint has {nq} position and {nqd} velocity coordinates, got {} and {}",
                j.q.len(),
                j.qd.len()
            )));
        }
        if let Some(v) = j.q.iter().chain(&j.qd).find(|v| !v.is_finite()) {
            return Err(err(format!("initial coordinates must be finite, got {v}")));
        }
        let quat_at = match j.kind {
            JointType::Ball => Some(0),
            JointType::Free => Some(3),
            _ => None,
        };
        if let Some(s) = quat_at {
            let r = Quat::from_xyzw(j.q[s], j.q[s + 1], j.q[s + 2], j.q[s + 3]);
            if r.length_squared() < 1e-12 {
                return Err(err("the initial quaternion is zero".into()));
            }
            let r = r.normalize();
            j.q[s..s + 4].copy_from_slice(&r.to_array());
        }
        Ok(())
    }

    /// The joints as flat arrays, with the ancestors and articulation ranges.
    pub(crate) fn joint_arrays(&self) -> JointArrays {
        let mut a = JointArrays::default();
        let (mut nq, mut nqd) = (0i32, 0i32);
        for (i, j) in self.joints.iter().enumerate() {
            if j.parent < 0 {
                a.articulation_start.push(i as i32);
            }
            a.kind.push(j.kind.code());
            a.parent.push(j.parent);
            a.child.push(j.child);
            a.ancestor.push(
                self.joints[..i]
                    .iter()
                    .position(|x| x.child == j.parent)
                    .map_or(-1, |k| k as i32),
            );
            a.articulation.push(a.articulation_start.len() as i32 - 1);
            a.parent_frame.push(j.parent_frame);
            a.child_frame.push(j.child_frame);
            a.dof_dim.push(weft::IVec2::new(
                j.linear.len() as i32,
                j.angular.len() as i32,
            ));
            a.q_start.push(nq);
            a.qd_start.push(nqd);
            nq += j.coord_count() as i32;
            nqd += j.dof_count() as i32;
            a.q.extend(&j.q);
            a.qd.extend(&j.qd);
            for d in j.dofs() {
                a.axis.push(d.axis);
                a.armature.push(d.armature);
                a.damping.push(d.damping);
                a.friction.push(d.friction);
                a.lower.push(d.lower);
                a.upper.push(d.upper);
                a.limit_ke.push(j.limit_ke);
                a.limit_kd.push(j.limit_kd);
                a.target_ke.push(d.drive.stiffness);
                a.target_kd.push(d.drive.damping);
                a.effort_limit.push(d.drive.effort_limit);
                a.target_pos.push(d.drive.target_pos);
                a.target_vel.push(d.drive.target_vel);
                a.effort.push(d.drive.effort);
            }
        }
        a.q_start.push(nq);
        a.qd_start.push(nqd);
        a.articulation_start.push(self.joints.len() as i32);
        a
    }
}

/// Checks one degree of freedom's numbers.
fn check_dof(d: &JointDof) -> std::result::Result<(), String> {
    if d.lower.is_nan() || d.upper.is_nan() || d.lower > d.upper {
        return Err(format!(
            "limits must satisfy lower ≤ upper (±inf: none), got {} and {}",
            d.lower, d.upper
        ));
    }
    let dr = d.drive;
    for (name, v) in [
        ("armature", d.armature),
        ("damping", d.damping),
        ("friction", d.friction),
        ("drive stiffness", dr.stiffness),
        ("drive damping", dr.damping),
    ] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(format!("{name} must be finite and ≥ 0, got {v}"));
        }
    }
    for (name, v) in [
        ("drive target_pos", dr.target_pos),
        ("drive target_vel", dr.target_vel),
        ("drive effort", dr.effort),
    ] {
        if !v.is_finite() {
            return Err(format!("{name} must be finite, got {v}"));
        }
    }
    if dr.effort_limit.is_nan() || dr.effort_limit < 0.0 {
        return Err(format!(
            "drive effort_limit must be ≥ 0 (inf: none), got {}",
            dr.effort_limit
        ));
    }
    Ok(())
}

/// A ball joint's limit is a cone: the first angular axis's `upper` (lower 0
/// or `-inf`), none on the others; a free joint takes no limits.
fn check_rotation_limits(j: &JointDesc) -> std::result::Result<(), String> {
    let unlimited = |d: &JointDof| d.lower == f32::NEG_INFINITY && d.upper == f32::INFINITY;
    if j.kind == JointType::Free {
        if !j.dofs().all(unlimited) {
            return Err("a free joint takes no limits".into());
        }
        return Ok(());
    }
    let cone = &j.angular[0];
    let cone_ok = (cone.lower == 0.0 || cone.lower == f32::NEG_INFINITY) && cone.upper >= 0.0;
    if !(cone_ok && j.angular[1..].iter().all(unlimited)) {
        return Err(format!(
            "a ball joint's limit is a cone: angular axis 0 takes lower 0 (or -inf) and upper the largest rotation angle (inf: none; see `JointDesc::with_cone_limit`), the other axes none; got {:?}",
            j.angular
                .iter()
                .map(|d| (d.lower, d.upper))
                .collect::<Vec<_>>()
        ));
    }
    Ok(())
}

/// The checks every joint gets, in a tree or closing a loop: finite frames
/// (rotations normalised), axes of the right number for the kind (normalised,
/// none parallel), each degree of freedom's parameters, ball and free joints
/// on the frame's axes, a ball joint's limit a cone and a free joint's none,
/// limit gains.
pub(super) fn check_joint_geometry(j: &mut JointDesc) -> std::result::Result<(), String> {
    if !finite_pose(&j.parent_frame) || !finite_pose(&j.child_frame) {
        return Err(format!(
            "joint frames must be finite with non-zero rotations, got {:?} and {:?}",
            j.parent_frame, j.child_frame
        ));
    }
    j.parent_frame.q = j.parent_frame.q.normalize();
    j.child_frame.q = j.child_frame.q.normalize();
    let kind = j.kind.name();
    let (nl, na) = (j.linear.len(), j.angular.len());
    let counts_ok = match j.kind {
        JointType::Revolute => (nl, na) == (0, 1),
        JointType::Prismatic => (nl, na) == (1, 0),
        JointType::Ball => (nl, na) == (0, 3),
        JointType::Fixed => (nl, na) == (0, 0),
        JointType::Free => (nl, na) == (3, 3),
        JointType::Universal => (nl, na) == (0, 2),
        JointType::D6 => nl <= 3 && na <= 3,
    };
    if !counts_ok {
        return Err(format!(
            "a {kind} joint cannot have {nl} linear and {na} angular axes"
        ));
    }
    for (group, dofs) in [("linear", &mut j.linear), ("angular", &mut j.angular)] {
        for (k, d) in dofs.iter_mut().enumerate() {
            let at = format!("{group} axis {k}");
            d.axis = d
                .axis
                .try_normalize()
                .ok_or_else(|| format!("{at} must be finite and non-zero, got {:?}", d.axis))?;
            check_dof(d).map_err(|m| format!("{at}: {m}"))?;
        }
        for a in 0..dofs.len() {
            for b in 0..a {
                if dofs[a].axis.cross(dofs[b].axis).length() < 1e-3 {
                    return Err(format!(
                        "{group} axes {b} and {a} are parallel ({:?}, {:?})",
                        dofs[b].axis, dofs[a].axis
                    ));
                }
            }
        }
    }
    if matches!(j.kind, JointType::Ball | JointType::Free) {
        let xyz = [Vec3::X, Vec3::Y, Vec3::Z];
        let axes_ok = j.angular.iter().zip(xyz).all(|(d, a)| d.axis == a)
            && j.linear.iter().zip(xyz).all(|(d, a)| d.axis == a);
        if !axes_ok {
            return Err(format!(
                "a {kind} joint's axes are the joint frame's X, Y, Z (turn the frames instead)"
            ));
        }
        check_rotation_limits(j)?;
    }
    for (name, v) in [("limit_ke", j.limit_ke), ("limit_kd", j.limit_kd)] {
        if !(v.is_finite() && v >= 0.0) {
            return Err(format!("{name} must be finite and ≥ 0, got {v}"));
        }
    }
    Ok(())
}
