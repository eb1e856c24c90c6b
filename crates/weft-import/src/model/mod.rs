//! A [`RobotDescription`] turned into bodies, shapes and joints of a
//! weft-sim [`ModelBuilder`]: [`add_robot`] (feature `model`, on by default).
//!
//! ```
//! use weft::{Device, Transform};
//! use weft_articulation::FeatherstoneSolver;
//! use weft_import::{RobotOptions, add_robot, load};
//! use weft_sim::{Control, ModelBuilder, State};
//!
//! # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/robots/double_pendulum.xml");
//! let robot = load(path, &Default::default())?;
//! let mut builder = ModelBuilder::new();
//! let handles = add_robot(&mut builder, &robot, Transform::IDENTITY, &RobotOptions::default())?;
//! let model = builder.finalize(Device::Cpu)?;
//! let (mut s0, mut s1) = (State::new(&model)?, State::new(&model)?);
//! s0.joint_q = weft::Array::from_vec(Device::Cpu, handles.weft_q(&[1.0, -0.5]));
//! let control = Control::new(&model)?;
//! let mut solver = FeatherstoneSolver::new(&model)?;
//! for _ in 0..10 {
//!     solver.step(&model, &s0, &mut s1, &control, 2e-3)?;
//!     std::mem::swap(&mut s0, &mut s1);
//! }
//! let tip = handles.site_pose(0, &s0.body_q.to_vec());
//! assert!(tip.p.z < 2.0 && s0.joint_q.to_vec()[0] < 1.0); // swinging down
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What becomes what
//!
//! - **Bodies**: one dynamic body per description body, at its reference pose
//!   (moved by `base`), with the file's mass, centre of mass and inertia; a
//!   body marked [`MassSource::FromGeoms`](crate::MassSource::FromGeoms) gets
//!   the sum of its geoms' solids (each at its `mass`, else its density, as
//!   MuJoCo's `inertiafromgeom`); a massless body (a URDF frame link) is a
//!   massless link. A body that moves (has a degree of freedom) while neither
//!   it nor its descendants have mass is refused: its mass matrix would be
//!   singular.
//! - **Joints**: hinge → revolute, slide → prismatic, ball, free, and a fixed
//!   joint for every body welded to its parent (no joint in the file, or URDF
//!   `fixed`); URDF `planar` → a D6 joint (two translations along
//!   `axis.any_orthonormal_pair()`, then the turn about `axis`). A body with
//!   several joints (MuJoCo allows it; each turns about its own anchor) becomes
//!   a chain of massless links, one Weft joint per file joint. Axes, limits
//!   (hinge and slide; a ball joint's `range="0 max"` becomes its cone limit,
//!   [`JointDesc::with_cone_limit`](weft_sim::JointDesc::with_cone_limit)),
//!   armature, damping and friction loss per degree of
//!   freedom; `ref` is the coordinate at which the body sits at its file pose;
//!   the initial coordinates are the reference ones (MuJoCo's `qpos0`). A
//!   joint spring becomes the drive's stiffness toward `springref` (a ball
//!   joint's: about all three axes toward its reference rotation, as MuJoCo's).
//! - **Actuators** → the driven joint's drive: `position` → stiffness
//!   `gear² kp`, damping `gear² kv`, target `ctrl / gear`; `velocity` →
//!   damping `gear² kv`, target velocity `ctrl / gear`; `motor` → feed-forward
//!   effort `gear · ctrl`. The effort limit is the smallest of `gear ·
//!   max|ctrlrange|` (motors), `gear · max|forcerange|` and the joint's own
//!   (URDF `effort`, MJCF `actuatorfrcrange`); Weft's limit is symmetric and
//!   caps the drive's whole effort. [`RobotHandles::apply_controls`] turns a
//!   control vector into the `Control` arrays.
//! - **Shapes**: every colliding geom (MJCF geoms with `contype`/`conaffinity`,
//!   URDF `<collision>`) on its body at its local pose, friction from the file;
//!   world geoms are static shapes (planes only there). Mesh geoms collide as
//!   their convex hull by default, as in MuJoCo ([`MeshShapes`]). Visual-only
//!   geoms are not added (the model has no visual shapes): draw them from the
//!   description. Unless [`RobotOptions::self_collisions`], the robot's shapes
//!   do not collide with each other (as MuJoCo's default excludes touching
//!   parent and child).
//! - **Not carried**: gravity, time step and integrator (the description's
//!   [`SimOptions`](crate::SimOptions); the builder keeps its own) and
//!   velocity limits (listed in [`RobotHandles::warnings`]).
//!
//! # Coordinates: MuJoCo's `qpos`/`qvel` and Weft's `joint_q`/`joint_qd`
//!
//! Joint for joint in the same order (bodies depth-first in file order, a
//! body's joints in file order: [`RobotDescription::joints`]), the same
//! number of entries, the same values for hinges and slides (the angle or
//! offset itself, `ref` included). Quaternions differ in order: MuJoCo
//! writes **(w, x, y, z)**, Weft **(x, y, z, w)**. A free joint is
//! `[position, quaternion]` of the body frame in the world (Weft: in the
//! `base` frame) and its velocity the body origin's linear velocity in world
//! (Weft: base) axes, then the angular velocity in body axes — the same
//! numbers for `base = Transform::IDENTITY`. A ball joint's velocity is the
//! angular velocity in body axes in both. [`RobotHandles::weft_q`],
//! [`weft_qd`](RobotHandles::weft_qd), [`mujoco_q`](RobotHandles::mujoco_q)
//! and [`mujoco_qd`](RobotHandles::mujoco_qd) convert. Weft's body poses
//! (`State::body_q`) are the file's body frames (not the inertial frames).

mod actuators;
mod error;
mod handles;
mod joints;
mod mass;
mod shapes;

pub use actuators::{ActuatorHandle, DriveInput};
pub use error::RobotModelError;
pub use handles::{RobotHandles, SiteHandle};
pub use shapes::MeshShapes;

use weft::Transform;
use weft_collide::{Filter, Material, ShapeDesc};
use weft_geom::MassProperties;
use weft_sim::{BodyDesc, BodyMass, ModelBuilder};

use crate::{JointKind, Pose, RobotDescription};
use error::unsupported;
use joints::{JointSettings, free_joint, joint_desc};
use shapes::{MeshCache, geometry, to_transform};

/// Collision group bit of robot shapes that do not collide with each other.
pub const ROBOT_GROUP: u32 = 1 << 1;

/// How [`add_robot`] builds the robot.
#[derive(Clone, Debug, PartialEq)]
pub struct RobotOptions {
    /// Whether the robot's shapes collide with each other. When false (the
    /// default) they are in collision group [`ROBOT_GROUP`] and do not collide
    /// with that group (nor with another robot added the same way).
    pub self_collisions: bool,
    /// How mesh geoms collide.
    pub mesh_shapes: MeshShapes,
    /// Penalty stiffness of the joint limits (see `JointDesc::limit_ke`).
    pub limit_ke: f32,
    /// Penalty damping of the joint limits.
    pub limit_kd: f32,
    /// The world the bodies and shapes belong to.
    pub world: i32,
}

impl Default for RobotOptions {
    fn default() -> Self {
        RobotOptions {
            self_collisions: false,
            mesh_shapes: MeshShapes::ConvexHull,
            limit_ke: 1.0e4,
            limit_kd: 1.0e2,
            world: 0,
        }
    }
}

/// Adds `robot` to `builder` with its world frame at `base`: bodies, shapes,
/// joints and drives (see the [module docs](self) for what becomes what and
/// for the coordinates). Returns where each part went.
///
/// Refuses, naming the element, what Weft cannot express: a free joint that
/// is not alone on a root body, an actuator on a ball or free joint, two
/// actuators setting the same gain of one joint, a plane on a moving body, a
/// mesh without a hull, a moving body without mass below it; and whatever
/// `ModelBuilder::add_joint` refuses. After an `Err` the builder may hold
/// part of the robot: drop it.
pub fn add_robot(
    builder: &mut ModelBuilder,
    robot: &RobotDescription,
    base: Transform,
    options: &RobotOptions,
) -> Result<RobotHandles, RobotModelError> {
    check(robot)?;
    let (drives, mut actuators) = actuators::joint_drives(robot)?;
    let mut cache = MeshCache::default();
    let masses = robot
        .bodies
        .iter()
        .enumerate()
        .map(|(b, _)| mass::body_mass(robot, b, &mut cache))
        .collect::<Result<Vec<_>, _>>()?;
    let subtree = mass::subtree_masses(robot, &masses);
    let (q0, qd0) = (builder.joint_coord_count(), builder.joint_dof_count());
    let offsets = robot.joint_offsets();
    let mut h = RobotHandles {
        bodies: Vec::with_capacity(robot.bodies.len()),
        links: Vec::new(),
        joints: Vec::with_capacity(robot.joints.len()),
        body_joints: Vec::with_capacity(robot.bodies.len()),
        q_start: offsets.iter().map(|o| q0 + o.0).collect(),
        qd_start: offsets.iter().map(|o| qd0 + o.1).collect(),
        q_range: q0..q0 + robot.nq(),
        qd_range: qd0..qd0 + robot.nv(),
        shapes: Vec::with_capacity(robot.geoms.len()),
        sites: Vec::with_capacity(robot.sites.len()),
        actuators: Vec::new(),
        warnings: warnings(robot),
        base,
        kinds: robot.joints.iter().map(|j| j.kind).collect(),
    };
    let settings = JointSettings {
        limit_ke: options.limit_ke,
        limit_kd: options.limit_kd,
    };
    let world_poses = robot.reference_poses();
    for (b, body) in robot.bodies.iter().enumerate() {
        let moves = body.joints.iter().any(|&j| robot.joints[j].kind.nv() > 0);
        if moves && subtree[b] <= 0.0 {
            return Err(unsupported(
                format!("body `{}`", body.name),
                "moves on its joints but neither it nor its descendants have mass (the mass matrix would be singular); give it an inertial",
            ));
        }
        let pose = base * to_transform(&world_poses[b]);
        let add = |builder: &mut ModelBuilder, m: MassProperties| {
            let mut d = BodyDesc::new(pose);
            d.mass = BodyMass::Given(m);
            d.world = options.world;
            builder.add_body(d)
        };
        let parent = body.parent.map_or(-1, |p| h.bodies[p] as i32);
        // The first joint frame is at the body's pose in its parent's frame.
        let frame = if body.parent.is_some() {
            to_transform(&body.pose)
        } else {
            base * to_transform(&body.pose)
        };
        let kinds: Vec<JointKind> = body.joints.iter().map(|&j| robot.joints[j].kind).collect();
        if kinds == [JointKind::Free] {
            let child = add(builder, masses[b]);
            let j = &robot.joints[body.joints[0]];
            let index = builder.add_joint(free_joint(j, child, base, &body.pose))?;
            h.joints.push(index);
            h.bodies.push(child);
            h.body_joints.push(index);
            continue;
        }
        if body.joints.is_empty() {
            let child = add(builder, masses[b]);
            let weld = weft_sim::JointDesc::fixed(parent, child)
                .with_frames(frame, Transform::IDENTITY)
                .named(&body.name);
            h.body_joints.push(builder.add_joint(weld)?);
            h.bodies.push(child);
            continue;
        }
        let (mut parent, mut frame) = (parent, frame);
        for (k, &j) in body.joints.iter().enumerate() {
            let last = k + 1 == body.joints.len();
            let child = if last {
                add(builder, masses[b])
            } else {
                let link = add(builder, MassProperties::ZERO);
                h.links.push(link);
                link
            };
            let desc = joint_desc(&robot.joints[j], parent, child, frame, drives[j], &settings)?;
            let index = builder.add_joint(desc)?;
            h.joints.push(index);
            (parent, frame) = (child as i32, Transform::IDENTITY);
            if last {
                h.bodies.push(child);
                h.body_joints.push(index);
            }
        }
    }
    add_shapes(builder, robot, base, options, &mut cache, &mut h)?;
    h.sites = robot
        .sites
        .iter()
        .map(|s| SiteHandle {
            name: s.name.clone(),
            body: s.body.map_or(-1, |b| h.bodies[b] as i32),
            transform: match s.body {
                Some(_) => to_transform(&s.pose),
                None => base * to_transform(&s.pose),
            },
        })
        .collect();
    for a in &mut actuators {
        a.dof += qd0;
    }
    h.actuators = actuators;
    Ok(h)
}

/// Refuses joint layouts Weft cannot express, before anything is added.
fn check(robot: &RobotDescription) -> Result<(), RobotModelError> {
    for body in &robot.bodies {
        for &j in &body.joints {
            let joint = &robot.joints[j];
            let alone = body.joints.len() == 1;
            let bad = match joint.kind {
                JointKind::Free if !(alone && body.parent.is_none()) => {
                    "a free joint must be the only joint of a body whose parent is the world"
                }
                JointKind::Fixed if !alone => "a fixed joint must be the only joint of its body",
                _ => continue,
            };
            return Err(unsupported(format!("joint `{}`", joint.name), bad));
        }
    }
    Ok(())
}

/// What the model does not carry.
fn warnings(robot: &RobotDescription) -> Vec<String> {
    let mut out = Vec::new();
    for j in &robot.joints {
        if let (JointKind::Ball, Some((lo, _))) = (j.kind, j.limits)
            && lo != 0.0
        {
            out.push(format!(
                "joint `{}`: a ball joint's range starts at 0 (its second value is the largest rotation angle); the first value {lo} is ignored",
                j.name
            ));
        }
        if let Some(v) = j.velocity_limit {
            out.push(format!(
                "joint `{}`: velocity limit {v} is not enforced",
                j.name
            ));
        }
    }
    out
}

fn add_shapes(
    builder: &mut ModelBuilder,
    robot: &RobotDescription,
    base: Transform,
    options: &RobotOptions,
    cache: &mut MeshCache,
    h: &mut RobotHandles,
) -> Result<(), RobotModelError> {
    let as_hull = options.mesh_shapes == MeshShapes::ConvexHull;
    for g in &robot.geoms {
        if !g.role.collides() {
            h.shapes.push(None);
            continue;
        }
        let geometry = geometry(robot, &g.shape, cache, as_hull)?;
        let (body, transform) = match g.body {
            Some(b) => (h.bodies[b] as i32, to_transform(&g.pose)),
            None => (-1, base * to_transform(&g.pose)),
        };
        if body >= 0 && matches!(geometry, weft_collide::Geometry::Plane { .. }) {
            let owner = &robot.bodies[g.body.unwrap_or_default()].name;
            return Err(unsupported(
                format!("plane geom of body `{owner}`"),
                "planes are static in Weft; put the plane in the worldbody",
            ));
        }
        let mut shape = ShapeDesc::new(body, transform, geometry);
        let mu = g.friction as f32;
        shape.material = Material {
            mu,
            mu_static: mu,
            ..Material::default()
        };
        shape.world = options.world;
        if body >= 0 && !options.self_collisions {
            shape.filter = Filter {
                group: ROBOT_GROUP,
                mask: !ROBOT_GROUP,
            };
        }
        h.shapes.push(Some(builder.add_rigid_shape(shape)));
    }
    Ok(())
}

/// The pose of a description frame as a Weft transform (f32).
///
/// ```
/// let t = weft_import::pose_to_transform(&weft_import::Pose::new(glam::DVec3::X, glam::DQuat::IDENTITY));
/// assert_eq!(t.p, glam::Vec3::X);
/// ```
pub fn pose_to_transform(p: &Pose) -> Transform {
    to_transform(p)
}
