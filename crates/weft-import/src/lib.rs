//! Robot files (URDF and an MJCF subset) read into a plain-data [`RobotDescription`].
//!
//! The reader knows nothing of Weft's simulation crates. With the `model`
//! feature (on by default) [`add_robot`] turns a description into bodies,
//! shapes, joints and drives of a `weft_sim::ModelBuilder` ([`model`] has the
//! mapping and MuJoCo's coordinates next to Weft's); without it the crate
//! builds in seconds.
//!
//! ```
//! let robot = weft_import::parse_mjcf(r#"
//!   <mujoco model="pendulum">
//!     <option timestep="0.005"/>
//!     <worldbody>
//!       <body name="pole" pos="0 0 1">
//!         <joint name="hinge" axis="0 1 0" range="-90 90"/>
//!         <geom type="capsule" fromto="0 0 0 0 0 -0.5" size="0.05"/>
//!       </body>
//!     </worldbody>
//!     <actuator><motor joint="hinge" gear="10"/></actuator>
//!   </mujoco>"#, &Default::default())?;
//! assert_eq!((robot.nq(), robot.nv(), robot.actuators.len()), (1, 1, 1));
//! assert_eq!(robot.options.timestep, Some(0.005));
//! assert!(robot.warnings.is_empty());
//! # Ok::<(), weft_import::ImportError>(())
//! ```
//!
//! # Conventions
//!
//! Weft's, whatever the file's: **Z up, SI units, quaternions (x, y, z, w)** as in
//! `glam`, right-handed frames, radians. A [`Pose`] maps child-frame points into
//! the parent frame (`x_parent = rot * x + pos`).
//!
//! - **MJCF** is already Z up and SI. Its quaternions are written **(w, x, y, z)**
//!   and are reordered here. Angles follow `<compiler angle>`, **degrees by
//!   default** (as in MuJoCo): `euler`, `axisangle`, hinge `range`/`ref`/`springref`
//!   are converted; `quat` and actuator `ctrlrange` are not. `eulerseq` lowercase
//!   letters are intrinsic (rotating) axes, uppercase extrinsic, as in MuJoCo.
//!   Capsules and cylinders lie along local Z; `fromto` sets their pose and half
//!   length. Every element takes its defaults from its `class`, else the nearest
//!   enclosing body's `childclass`, else the top-level `main` class; nested
//!   `<default>` classes inherit from their parent class. Mesh vertices are kept
//!   in the mesh file's frame: MuJoCo instead moves a mesh geom's frame to the
//!   mesh's centre of mass and principal axes, so compare mesh geoms with care.
//! - **URDF** is SI; its `rpy` is roll (X), pitch (Y), yaw (Z) about fixed axes,
//!   R = Rz·Ry·Rx. URDF does not fix an up axis; ROS uses Z up, which is assumed.
//!   See [`parse_urdf`] for how links and joints map onto bodies.
//! - **Generalized coordinates** are laid out joint by joint in body order, as
//!   MuJoCo lays out `qpos`/`qvel`: a free joint is 7 coordinates (position, then
//!   quaternion) and 6 velocities, a ball joint 4 and 3 ([`JointKind::nq`]).
//!
//! Unsupported elements and attributes are listed in
//! [`RobotDescription::warnings`] with their line, never silently dropped.
//! Malformed files give an [`ImportError`] naming the element and the line.
#![warn(missing_docs)]

mod description;
mod error;
mod mesh;
mod mjcf;
#[cfg(feature = "model")]
pub mod model;
mod urdf;
mod xml;

pub use description::*;
pub use error::{ImportError, Location};
#[cfg(feature = "model")]
pub use model::{
    ActuatorHandle, DriveInput, MeshShapes, RobotHandles, RobotModelError, RobotOptions,
    SiteHandle, add_robot, pose_to_transform,
};

use std::path::{Path, PathBuf};

/// How to read files: where `package://` URIs are looked up.
///
/// ```
/// let opts = weft_import::ImportOptions::default().with_package_path("/opt/ros/share");
/// assert_eq!(opts.package_paths.len(), 1);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ImportOptions {
    /// Directories searched for `package://pkg/rest`: each `dir` is tried as
    /// `dir/pkg/rest`, and as `dir/rest` when `dir` itself is named `pkg`.
    pub package_paths: Vec<PathBuf>,
}

impl ImportOptions {
    /// Adds a directory to the `package://` search path.
    ///
    /// ```
    /// let o = weft_import::ImportOptions::default().with_package_path("a").with_package_path("b");
    /// assert_eq!(o.package_paths[1], std::path::PathBuf::from("b"));
    /// ```
    pub fn with_package_path(mut self, dir: impl Into<PathBuf>) -> Self {
        self.package_paths.push(dir.into());
        self
    }
}

/// Reads URDF text. Relative mesh paths need a file: use [`load_urdf`] for those.
///
/// Each link becomes a body whose pose is its parent joint's `origin` (the joint
/// frame is the child link frame: anchor 0, axis in the child frame); the root
/// link is welded to the world; `fixed` joints stay as [`JointKind::Fixed`];
/// `continuous` is an unlimited revolute joint; `floating` is a free joint.
///
/// ```
/// let d = weft_import::parse_urdf(r#"<robot name="r">
///   <link name="base"/>
///   <link name="arm"><inertial><mass value="1"/>
///     <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
///   <joint name="j" type="continuous"><parent link="base"/><child link="arm"/>
///     <origin xyz="0 0 1"/><axis xyz="0 0 1"/></joint>
/// </robot>"#, &Default::default())?;
/// assert_eq!(d.bodies[1].pose.pos.z, 1.0);
/// assert_eq!(d.joints[0].limits, None);
/// # Ok::<(), weft_import::ImportError>(())
/// ```
pub fn parse_urdf(text: &str, options: &ImportOptions) -> Result<RobotDescription, ImportError> {
    urdf::parse(text, None, options)
}

/// Reads a URDF file; mesh paths are relative to its directory.
///
/// ```no_run
/// let arm = weft_import::load_urdf("assets/robots/arm7.urdf", &Default::default())?;
/// # Ok::<(), weft_import::ImportError>(())
/// ```
pub fn load_urdf(
    path: impl AsRef<Path>,
    options: &ImportOptions,
) -> Result<RobotDescription, ImportError> {
    let path = path.as_ref();
    urdf::parse(&read(path)?, Some(path), options)
}

/// Reads MJCF text. `<include>` and relative mesh paths need a file: use [`load_mjcf`].
///
/// ```
/// let d = weft_import::parse_mjcf(r#"<mujoco><worldbody><body quat="0 0 0 1">
///   <geom size="0.1"/></body></worldbody></mujoco>"#, &Default::default())?;
/// // MJCF (w, x, y, z) = (0, 0, 0, 1) is a half turn about Z: glam (x, y, z, w) = (0, 0, 1, 0).
/// assert_eq!(d.bodies[0].pose.rot, glam::DQuat::from_xyzw(0.0, 0.0, 1.0, 0.0));
/// # Ok::<(), weft_import::ImportError>(())
/// ```
pub fn parse_mjcf(text: &str, options: &ImportOptions) -> Result<RobotDescription, ImportError> {
    mjcf::parse(text, None, options)
}

/// Reads an MJCF file; `meshdir`, `<include file>` and mesh paths are relative to
/// its directory.
///
/// ```no_run
/// let ant = weft_import::load_mjcf("assets/robots/ant.xml", &Default::default())?;
/// assert_eq!(ant.nv(), 14);
/// # Ok::<(), weft_import::ImportError>(())
/// ```
pub fn load_mjcf(
    path: impl AsRef<Path>,
    options: &ImportOptions,
) -> Result<RobotDescription, ImportError> {
    let path = path.as_ref();
    mjcf::parse(&read(path)?, Some(path), options)
}

/// Reads a robot file, choosing the format by extension (`.urdf` is URDF, else MJCF).
///
/// ```no_run
/// let r = weft_import::load("assets/robots/humanoid.xml", &Default::default())?;
/// # Ok::<(), weft_import::ImportError>(())
/// ```
pub fn load(
    path: impl AsRef<Path>,
    options: &ImportOptions,
) -> Result<RobotDescription, ImportError> {
    let path = path.as_ref();
    let is_urdf = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("urdf"));
    if is_urdf {
        load_urdf(path, options)
    } else {
        load_mjcf(path, options)
    }
}

fn read(path: &Path) -> Result<String, ImportError> {
    std::fs::read_to_string(path).map_err(|source| ImportError::Io {
        path: path.to_path_buf(),
        source,
    })
}
