//! # weft-collide
//!
//! Collision detection for rigid shapes, on the CPU and CUDA with the same
//! kernels: a [`ShapeSet`] (every shape of a scene in flat arrays, attached to
//! bodies or static), a broad phase ([`broad`]: a hash grid over moving shapes,
//! a BVH over static ones), a narrow phase ([`narrow`]: contact manifolds for
//! each pair of shape kinds) and the fixed-capacity [`Contacts`] buffer whose
//! overflow is counted, never silent. [`CollisionPipeline`] runs them with
//! buffers allocated once, so a simulation step can be captured in a CUDA
//! graph. Bodies' dynamics live elsewhere (`weft-sim`); this crate only reads
//! body poses.
//!
//! Conventions: Z up, SI units, poses as [`Transform`](weft::Transform) (p,
//! then q = (x, y, z, w)). Contact normals point from shape a to shape b.

#![deny(missing_docs)]

pub mod broad;
mod contacts;
mod error;
mod geometry;
mod hull_tables;
pub mod kinds;
pub mod manifolds;
pub mod mesh_tables;
pub mod narrow;
mod pipeline;
mod shape_set;

pub use contacts::{Contact, ContactReport, Contacts};
pub use error::{CollideError, Result};
pub use geometry::Geometry;
pub use manifolds::Manifolds;
pub use pipeline::{BroadPhase, CollisionOptions, CollisionPipeline};
pub use shape_set::{Filter, Material, ShapeDesc, ShapeSet};
