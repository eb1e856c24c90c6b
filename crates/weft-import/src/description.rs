//! The plain-data robot description that both importers produce.
//!
//! Everything is `f64`, SI units, Z up, quaternions (x, y, z, w) as in `glam`.
//! Poses are always relative to the frame named in the field's doc comment; no
//! importer-specific convention (URDF joint frames, MJCF `ref`) leaks out.

use glam::{DMat3, DQuat, DVec3};
use std::path::PathBuf;

/// A rigid transform: translation then rotation, `x_parent = rot * x_child + pos`.
///
/// ```
/// use weft_import::Pose;
/// use glam::{DQuat, DVec3};
/// let p = Pose::new(DVec3::X, DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2));
/// assert!((p.transform_point(DVec3::X) - DVec3::new(1.0, 1.0, 0.0)).length() < 1e-12);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Translation of the child frame's origin in the parent frame.
    pub pos: DVec3,
    /// Rotation of the child frame in the parent frame (unit quaternion, x y z w).
    pub rot: DQuat,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// The identity transform.
    ///
    /// ```
    /// assert_eq!(weft_import::Pose::IDENTITY.pos, glam::DVec3::ZERO);
    /// ```
    pub const IDENTITY: Self = Self {
        pos: DVec3::ZERO,
        rot: DQuat::IDENTITY,
    };

    /// A pose from a translation and a rotation.
    ///
    /// ```
    /// let p = weft_import::Pose::new(glam::DVec3::Z, glam::DQuat::IDENTITY);
    /// assert_eq!(p.pos.z, 1.0);
    /// ```
    pub fn new(pos: DVec3, rot: DQuat) -> Self {
        Self { pos, rot }
    }

    /// Maps a point from the child frame to the parent frame.
    ///
    /// ```
    /// let p = weft_import::Pose::new(glam::DVec3::Z, glam::DQuat::IDENTITY);
    /// assert_eq!(p.transform_point(glam::DVec3::X), glam::DVec3::new(1.0, 0.0, 1.0));
    /// ```
    pub fn transform_point(&self, p: DVec3) -> DVec3 {
        self.rot * p + self.pos
    }

    /// Composition `self * child`: the child pose expressed in this pose's parent frame.
    ///
    /// ```
    /// use weft_import::Pose;
    /// let a = Pose::new(glam::DVec3::X, glam::DQuat::IDENTITY);
    /// assert_eq!(a.mul(&a).pos, glam::DVec3::new(2.0, 0.0, 0.0));
    /// ```
    pub fn mul(&self, child: &Pose) -> Pose {
        Pose {
            pos: self.transform_point(child.pos),
            rot: (self.rot * child.rot).normalize(),
        }
    }
}

/// Which file format a description came from.
///
/// ```
/// assert_ne!(weft_import::SourceFormat::Urdf, weft_import::SourceFormat::Mjcf);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceFormat {
    /// Unified Robot Description Format (ROS).
    Urdf,
    /// MuJoCo's XML format.
    Mjcf,
}

/// Mass, centre of mass and rotational inertia of a body.
///
/// ```
/// use weft_import::{Inertial, Pose};
/// let i = Inertial { mass: 2.0, frame: Pose::IDENTITY, inertia: glam::DMat3::from_diagonal(glam::DVec3::ONE) };
/// assert_eq!(i.inertia_in_body_frame(), glam::DMat3::IDENTITY);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Inertial {
    /// Mass in kg.
    pub mass: f64,
    /// Inertia frame in the body frame; its origin is the centre of mass.
    pub frame: Pose,
    /// Inertia tensor about the centre of mass, in `frame`'s axes (kg m²).
    pub inertia: DMat3,
}

impl Inertial {
    /// The inertia tensor about the centre of mass in the body frame's axes: `R I Rᵀ`.
    ///
    /// ```
    /// use weft_import::{Inertial, Pose};
    /// let r = glam::DQuat::from_rotation_z(std::f64::consts::FRAC_PI_2);
    /// let i = Inertial { mass: 1.0, frame: Pose::new(glam::DVec3::ZERO, r),
    ///     inertia: glam::DMat3::from_diagonal(glam::DVec3::new(1.0, 2.0, 3.0)) };
    /// let b = i.inertia_in_body_frame();
    /// assert!((b.x_axis.x - 2.0).abs() < 1e-12 && (b.y_axis.y - 1.0).abs() < 1e-12);
    /// ```
    pub fn inertia_in_body_frame(&self) -> DMat3 {
        let r = DMat3::from_quat(self.frame.rot);
        r * self.inertia * r.transpose()
    }
}

/// Where a body's mass properties come from.
///
/// ```
/// assert!(weft_import::MassSource::FromGeoms.explicit().is_none());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassSource {
    /// Given in the file (URDF `<inertial>`, MJCF `<inertial>`).
    Explicit(Inertial),
    /// Not given: to be computed from the body's collision geometry (MJCF
    /// `inertiafromgeom`), with each geom's `mass` or `density`.
    FromGeoms,
    /// No mass at all (a URDF link without `<inertial>`, e.g. a frame link).
    Massless,
}

impl MassSource {
    /// The explicit inertial, if there is one.
    ///
    /// ```
    /// assert!(weft_import::MassSource::Massless.explicit().is_none());
    /// ```
    pub fn explicit(&self) -> Option<&Inertial> {
        match self {
            MassSource::Explicit(i) => Some(i),
            _ => None,
        }
    }
}

/// A rigid body (URDF link, MJCF body).
///
/// ```
/// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body name="b"><freejoint/>
/// #   <geom size="0.1"/></body></worldbody></mujoco>"#, &Default::default()).unwrap();
/// let b = &d.bodies[0];
/// assert_eq!((b.name.as_str(), b.parent), ("b", None));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Unique name (generated as `body<i>` where the file gives none).
    pub name: String,
    /// Index of the parent body in [`RobotDescription::bodies`]; `None` = the world.
    pub parent: Option<usize>,
    /// Body frame in the parent body frame (or world) when every joint is at its
    /// reference position ([`Joint::reference`]).
    pub pose: Pose,
    /// Mass properties.
    pub mass: MassSource,
    /// Indices into [`RobotDescription::joints`] of the joints between this body and
    /// its parent, in the order they are applied. Empty = welded to the parent.
    pub joints: Vec<usize>,
}

/// The kind of a joint, with its number of coordinates and velocities.
///
/// ```
/// use weft_import::JointKind;
/// assert_eq!((JointKind::Free.nq(), JointKind::Free.nv()), (7, 6));
/// assert_eq!((JointKind::Ball.nq(), JointKind::Ball.nv()), (4, 3));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointKind {
    /// No motion (URDF `fixed`).
    Fixed,
    /// Rotation about `axis` through `anchor` (URDF revolute/continuous, MJCF hinge).
    Revolute,
    /// Translation along `axis` (URDF prismatic, MJCF slide).
    Prismatic,
    /// Rotation about `anchor`, coordinates a unit quaternion (MJCF ball).
    Ball,
    /// Six degrees of freedom (URDF floating, MJCF free).
    Free,
    /// Translation in the plane normal to `axis` plus rotation about it (URDF planar).
    Planar,
}

impl JointKind {
    /// Number of generalized coordinates.
    ///
    /// ```
    /// assert_eq!(weft_import::JointKind::Planar.nq(), 3);
    /// ```
    pub fn nq(self) -> usize {
        match self {
            JointKind::Fixed => 0,
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Ball => 4,
            JointKind::Free => 7,
            JointKind::Planar => 3,
        }
    }

    /// Number of generalized velocities (degrees of freedom).
    ///
    /// ```
    /// assert_eq!(weft_import::JointKind::Revolute.nv(), 1);
    /// ```
    pub fn nv(self) -> usize {
        match self {
            JointKind::Fixed => 0,
            JointKind::Revolute | JointKind::Prismatic => 1,
            JointKind::Ball | JointKind::Planar => 3,
            JointKind::Free => 6,
        }
    }
}

/// A joint between a body and its parent.
///
/// Kinematics (MuJoCo's convention, which URDF maps onto with `anchor = 0`): the
/// body frame starts at [`Body::pose`] in the parent frame; each joint of the body,
/// in order, then moves it: a revolute joint rotates it by `q - reference` about
/// `axis` through `anchor`, a prismatic joint translates it by `(q - reference) axis`,
/// a ball joint rotates it by its quaternion about `anchor`, a free joint sets the
/// pose outright.
///
/// ```
/// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body><joint name="j" axis="0 1 0"
/// #   range="-90 90"/><geom size="0.1"/></body></worldbody></mujoco>"#, &Default::default()).unwrap();
/// let j = &d.joints[0];
/// assert_eq!(j.axis, glam::DVec3::Y);
/// assert!((j.limits.unwrap().1 - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// Unique name (generated as `<body>_joint<i>` where the file gives none).
    pub name: String,
    /// Index of the body this joint moves.
    pub body: usize,
    /// Kind.
    pub kind: JointKind,
    /// Joint anchor in the body frame (m).
    pub anchor: DVec3,
    /// Unit axis in the body frame (rotation axis, slide direction, planar normal).
    pub axis: DVec3,
    /// Position limits (rad or m); `None` = unlimited. For a ball joint `(0, max angle)`.
    pub limits: Option<(f64, f64)>,
    /// Coordinate at which the body is at [`Body::pose`] (MJCF `ref`; 0 for URDF).
    pub reference: f64,
    /// Viscous damping (N m s/rad or N s/m).
    pub damping: f64,
    /// Dry friction loss (N m or N).
    pub friction: f64,
    /// Armature: rotor inertia added to the mass-matrix diagonal (kg m² or kg).
    pub armature: f64,
    /// Joint spring stiffness (MJCF `stiffness`), pulling towards `spring_ref`.
    pub stiffness: f64,
    /// Spring rest position (MJCF `springref`).
    pub spring_ref: f64,
    /// Effort limit (URDF `limit effort`, MJCF `actuatorfrcrange` upper bound).
    pub effort_limit: Option<f64>,
    /// Velocity limit (URDF `limit velocity`).
    pub velocity_limit: Option<f64>,
}

/// Geometric shape in its own frame. Capsules and cylinders lie along local Z.
///
/// ```
/// let s = weft_import::Shape::Capsule { radius: 0.1, half_length: 0.5 };
/// assert!(matches!(s, weft_import::Shape::Capsule { .. }));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A sphere.
    Sphere {
        /// Radius (m).
        radius: f64,
    },
    /// A capsule: the segment from `-half_length` to `half_length` on Z, swept by `radius`.
    Capsule {
        /// Radius (m).
        radius: f64,
        /// Half the length of the inner segment (m).
        half_length: f64,
    },
    /// A solid cylinder along Z.
    Cylinder {
        /// Radius (m).
        radius: f64,
        /// Half the height (m).
        half_length: f64,
    },
    /// A box.
    Box {
        /// Half extents along X, Y, Z (m).
        half_extents: DVec3,
    },
    /// The plane z = 0 of the shape frame, normal +Z.
    Plane {
        /// Half sizes along X and Y for rendering; 0 means infinite.
        half_size: [f64; 2],
    },
    /// A triangle mesh.
    Mesh {
        /// Index into [`RobotDescription::meshes`].
        mesh: usize,
        /// Scale applied to the vertices, per axis.
        scale: DVec3,
    },
}

/// What a geometry is used for.
///
/// ```
/// assert!(weft_import::GeomRole::Both.collides());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeomRole {
    /// Only collides (URDF `<collision>`).
    Collision,
    /// Only drawn (URDF `<visual>`, MJCF geom with `contype = conaffinity = 0`).
    Visual,
    /// Collides and is drawn (an MJCF geom).
    Both,
}

impl GeomRole {
    /// Whether the geometry takes part in collisions.
    ///
    /// ```
    /// assert!(!weft_import::GeomRole::Visual.collides());
    /// ```
    pub fn collides(self) -> bool {
        matches!(self, GeomRole::Collision | GeomRole::Both)
    }
}

/// A collision or visual geometry attached to a body (or to the world).
///
/// ```
/// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><geom type="plane" size="1 1 0.1"/>
/// # </worldbody></mujoco>"#, &Default::default()).unwrap();
/// assert_eq!(d.geoms[0].body, None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Geom {
    /// Name, if the file gives one.
    pub name: Option<String>,
    /// Body index; `None` = static geometry of the world.
    pub body: Option<usize>,
    /// Shape frame in the body frame.
    pub pose: Pose,
    /// Shape.
    pub shape: Shape,
    /// Collision, visual or both.
    pub role: GeomRole,
    /// Mass given on the geom (MJCF `mass`), for mass-from-geometry.
    pub mass: Option<f64>,
    /// Density (kg/m³) for mass-from-geometry (MJCF default 1000).
    pub density: f64,
    /// Sliding friction coefficient.
    pub friction: f64,
    /// Colour (r, g, b, a).
    pub rgba: [f64; 4],
}

/// A named frame on a body (MJCF site; end-effector frames).
///
/// ```
/// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body><freejoint/><geom size="0.1"/>
/// #   <site name="tip" pos="0 0 1"/></body></worldbody></mujoco>"#, &Default::default()).unwrap();
/// assert_eq!(d.sites[0].pose.pos.z, 1.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Site {
    /// Name.
    pub name: String,
    /// Body index; `None` = world.
    pub body: Option<usize>,
    /// Site frame in the body frame.
    pub pose: Pose,
}

/// How an actuator turns its control into a joint force.
///
/// ```
/// let k = weft_import::ActuatorKind::Position { kp: 10.0, kv: 0.0 };
/// assert!(matches!(k, weft_import::ActuatorKind::Position { .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ActuatorKind {
    /// Force = gear · ctrl.
    Motor,
    /// Force = gear · (kp (ctrl − q) − kv q̇): a position servo.
    Position {
        /// Position gain.
        kp: f64,
        /// Velocity (damping) gain.
        kv: f64,
    },
    /// Force = gear · kv (ctrl − q̇): a velocity servo.
    Velocity {
        /// Velocity gain.
        kv: f64,
    },
}

/// An actuator driving one joint.
///
/// ```
/// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body><joint name="j"/><geom size="0.1"/>
/// # </body></worldbody><actuator><motor joint="j" gear="50" ctrlrange="-1 1"/></actuator></mujoco>"#,
/// # &Default::default()).unwrap();
/// assert_eq!(d.actuators[0].gear, 50.0);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Actuator {
    /// Name (generated as `<joint>_actuator` where the file gives none).
    pub name: String,
    /// Index of the driven joint.
    pub joint: usize,
    /// Motor, position or velocity servo.
    pub kind: ActuatorKind,
    /// Gear ratio (transmission from actuator force to joint force).
    pub gear: f64,
    /// Control range; `None` = unlimited.
    pub ctrl_range: Option<(f64, f64)>,
    /// Actuator force range; `None` = unlimited.
    pub force_range: Option<(f64, f64)>,
}

/// A triangle mesh loaded from an OBJ or STL file.
///
/// ```
/// let m = weft_import::MeshData { name: "m".into(), path: "m.obj".into(),
///     vertices: vec![[0.0; 3]; 3], triangles: vec![[0, 1, 2]] };
/// assert_eq!(m.triangles.len(), 1);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct MeshData {
    /// Name (MJCF asset name, or the file name).
    pub name: String,
    /// Resolved file path.
    pub path: PathBuf,
    /// Vertex positions in the mesh file's frame and units (scale lives on the geom).
    pub vertices: Vec<[f32; 3]>,
    /// Triangles, counter-clockwise seen from outside.
    pub triangles: Vec<[u32; 3]>,
}

/// The integrator a file asks for (MJCF `option integrator`).
///
/// ```
/// assert_eq!(weft_import::Integrator::default(), weft_import::Integrator::Euler);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Integrator {
    /// Semi-implicit Euler (MuJoCo's default).
    #[default]
    Euler,
    /// Fourth-order Runge–Kutta.
    Rk4,
    /// Implicit in velocity.
    Implicit,
    /// Implicit in velocity, Coriolis terms skipped.
    ImplicitFast,
}

/// Simulation options from the file (MJCF `<option>`; defaults for URDF).
///
/// ```
/// let o = weft_import::SimOptions::default();
/// assert_eq!(o.gravity.z, -9.81);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimOptions {
    /// Time step (s), if the file sets one (MuJoCo's default is 0.002).
    pub timestep: Option<f64>,
    /// Gravity (m/s²).
    pub gravity: DVec3,
    /// Integrator asked for.
    pub integrator: Integrator,
    /// False when the file disables contacts (`<flag contact="disable"/>`).
    pub contacts: bool,
}

impl Default for SimOptions {
    fn default() -> Self {
        Self {
            timestep: None,
            gravity: DVec3::new(0.0, 0.0, -9.81),
            integrator: Integrator::Euler,
            contacts: true,
        }
    }
}

/// A robot read from a URDF or MJCF file.
///
/// Bodies are in topological order (a parent before its children); joints are
/// ordered by body and, within a body, in file order, so the generalized
/// coordinates are laid out as MuJoCo lays out `qpos`/`qvel`.
///
/// ```
/// let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body name="a"><joint/>
///   <geom size="0.1"/><body name="b"><joint/><geom size="0.1"/></body></body>
///   </worldbody></mujoco>"#, &Default::default()).unwrap();
/// assert_eq!((d.nq(), d.nv()), (2, 2));
/// assert_eq!(d.bodies[1].parent, Some(0));
/// assert!(d.warnings.is_empty());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RobotDescription {
    /// Robot / model name.
    pub name: String,
    /// Source format.
    pub format: SourceFormat,
    /// Bodies, parents first.
    pub bodies: Vec<Body>,
    /// Joints, grouped by body in body order.
    pub joints: Vec<Joint>,
    /// Collision and visual geometry.
    pub geoms: Vec<Geom>,
    /// Sites (named frames).
    pub sites: Vec<Site>,
    /// Actuators.
    pub actuators: Vec<Actuator>,
    /// Meshes referenced by [`Shape::Mesh`].
    pub meshes: Vec<MeshData>,
    /// Simulation options.
    pub options: SimOptions,
    /// Every element or attribute met that the importer does not support, with
    /// its line: ignored, but never silently.
    pub warnings: Vec<String>,
}

impl RobotDescription {
    /// Total number of generalized coordinates (MuJoCo `nq`).
    ///
    /// ```
    /// # let d = weft_import::parse_mjcf("<mujoco><worldbody/></mujoco>", &Default::default()).unwrap();
    /// assert_eq!(d.nq(), 0);
    /// ```
    pub fn nq(&self) -> usize {
        self.joints.iter().map(|j| j.kind.nq()).sum()
    }

    /// Total number of degrees of freedom (MuJoCo `nv`).
    ///
    /// ```
    /// # let d = weft_import::parse_mjcf("<mujoco><worldbody/></mujoco>", &Default::default()).unwrap();
    /// assert_eq!(d.nv(), 0);
    /// ```
    pub fn nv(&self) -> usize {
        self.joints.iter().map(|j| j.kind.nv()).sum()
    }

    /// Index of the body with this name.
    ///
    /// ```
    /// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body name="a"><geom size="1"/></body>
    /// # </worldbody></mujoco>"#, &Default::default()).unwrap();
    /// assert_eq!(d.body_index("a"), Some(0));
    /// ```
    pub fn body_index(&self, name: &str) -> Option<usize> {
        self.bodies.iter().position(|b| b.name == name)
    }

    /// Index of the joint with this name.
    ///
    /// ```
    /// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body><joint name="j"/><geom size="1"/>
    /// # </body></worldbody></mujoco>"#, &Default::default()).unwrap();
    /// assert_eq!(d.joint_index("j"), Some(0));
    /// ```
    pub fn joint_index(&self, name: &str) -> Option<usize> {
        self.joints.iter().position(|j| j.name == name)
    }

    /// Offsets of each joint's first coordinate in `q` and first velocity in `q̇`.
    ///
    /// ```
    /// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body><freejoint/><geom size="1"/>
    /// # <body><joint/><geom size="1"/></body></body></worldbody></mujoco>"#, &Default::default()).unwrap();
    /// assert_eq!(d.joint_offsets(), vec![(0, 0), (7, 6)]);
    /// ```
    pub fn joint_offsets(&self) -> Vec<(usize, usize)> {
        let (mut q, mut v) = (0, 0);
        self.joints
            .iter()
            .map(|j| {
                let o = (q, v);
                q += j.kind.nq();
                v += j.kind.nv();
                o
            })
            .collect()
    }

    /// World pose of every body with all joints at their reference position.
    ///
    /// ```
    /// # let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body pos="0 0 1"><geom size="1"/>
    /// # <body pos="1 0 0"><geom size="1"/></body></body></worldbody></mujoco>"#, &Default::default()).unwrap();
    /// assert_eq!(d.reference_poses()[1].pos, glam::DVec3::new(1.0, 0.0, 1.0));
    /// ```
    pub fn reference_poses(&self) -> Vec<Pose> {
        let mut out: Vec<Pose> = Vec::with_capacity(self.bodies.len());
        for b in &self.bodies {
            let parent = b.parent.map_or(Pose::IDENTITY, |p| out[p]);
            out.push(parent.mul(&b.pose));
        }
        out
    }
}
