//! # weft-sim
//!
//! Weft's simulators. A [`ModelBuilder`] collects particles, springs, cloth
//! triangles, bending edges and static collision shapes on the host and
//! [`finalizes`](ModelBuilder::finalize) them into a [`Model`] on a device; a
//! [`State`] holds what changes per step and a [`Control`] what drives the model
//! from outside. [`Sph`] simulates the particles as a weakly compressible fluid
//! ([`sph`]). Integrators step a state into the next one with kernels, on the
//! CPU or a GPU, and every step is differentiable through a [`weft::Tape`].
//!
//! Conventions, fixed for every solver: Z up (gravity `(0, 0, -9.81)` by default,
//! configurable), SI units, quaternions `(x, y, z, w)` as in glam.
//!
//! ```
//! use weft_sim::{ClothGrid, Control, ModelBuilder, SemiImplicit, Shape, State};
//! use glam::Vec3;
//!
//! let mut b = ModelBuilder::new();
//! b.add_cloth_grid(&ClothGrid {
//!     pos: Vec3::new(-0.4, -0.4, 1.0),
//!     dim_x: 8,
//!     dim_y: 8,
//!     ..Default::default()
//! });
//! b.add_shape(Shape::Sphere { center: Vec3::new(0.0, 0.0, 0.5), radius: 0.3, mu: 0.5 });
//! let model = b.finalize(weft::Device::Cpu)?;
//! let (mut a, mut c) = (State::new(&model)?, State::new(&model)?);
//! let control = Control::empty(model.device());
//! let mut solver = SemiImplicit::new();
//! for _ in 0..100 {
//!     solver.simulate(&model, &mut a, &mut c, &control, 1e-3)?;
//!     std::mem::swap(&mut a, &mut c);
//! }
//! # Ok::<(), weft_sim::SimError>(())
//! ```

#![deny(missing_docs)]

mod builder;
mod error;
pub mod joint_angles;
pub mod kernels;
mod model;
pub mod rigid;
mod semi_implicit;
pub mod sph;
mod state;
mod xpbd;

pub use builder::{
    BodyDesc, BodyKind, BodyMass, ClothGrid, ClothMesh, ContactParams, Ground, JointDesc, JointDof,
    JointDrive, JointType, ModelBuilder, ParticleContactParams, Shape, TriMaterial,
};
pub use error::{Result, SimError};
pub use model::{
    JOINT_BALL, JOINT_D6, JOINT_FIXED, JOINT_FREE, JOINT_PRISMATIC, JOINT_REVOLUTE,
    JOINT_UNIVERSAL, LoopJoints, Model, PARTICLE_ACTIVE, SHAPE_BOX, SHAPE_CAPSULE, SHAPE_PLANE,
    SHAPE_SPHERE,
};
pub use rigid::{PhaseTimes, XpbdRigid};
pub use semi_implicit::SemiImplicit;
pub use sph::{FluidBlock, Sph, SphParams};
pub use state::{Control, State};
pub use xpbd::Xpbd;
