//! Weft's geometry on the host: triangle meshes, OBJ input/output, procedural meshes,
//! a binned-SAH BVH with refit, a hashed grid for neighbour search, and reference
//! queries (closest ray hit, closest point with inside/outside by winding number,
//! faces in a box, neighbours within a radius). With the `device` feature (on by
//! default), the same structures in kernels: [`device`], which the facade
//! re-exports as `weft::geom`.
//!
//! The data structures are flat arrays of plain `#[repr(C)]` values so that kernels —
//! on the CPU and on GPUs — traverse exactly what the host built: see
//! [`bvh::layout`] for the BVH, [`hash_grid`] for the grid and
//! [`query::winding`] for the winding-number data. The host queries here are the
//! reference the kernel builtins are tested against, and every one of them is tested
//! against [`brute_force`]. For many closest-point queries at once,
//! [`MeshBvh::closest_points`] gives the same answers several times faster (queries
//! sorted along a Morton curve, answered in packets); for coherent rays (a camera's
//! pixel blocks), [`MeshBvh::rays_into`] and [`MeshBvh::rays`] cast packets of rays.
//!
//! For rigid bodies: [`ConvexHull`] (quickhull, coplanar triangles merged into the
//! polygon [`HullFace`]s a narrow phase clips against, degenerate input refused),
//! [`MassProperties`] (mass, centre of mass and inertia of spheres, boxes, capsules,
//! cylinders, hulls and closed meshes; moved, shifted, summed, diagonalized,
//! validated) and [`HeightField`] (terrain as a grid of heights).
//!
//! ```
//! use glam::Vec3;
//! use weft_geom::{MeshBvh, generate};
//!
//! let torus = MeshBvh::new(generate::torus(1.0, 0.25, 64, 32));
//! let q = torus.closest_point_signed(Vec3::new(1.0, 0.0, 0.0), f32::INFINITY).unwrap();
//! assert!(q.inside && (q.signed_distance() + 0.25).abs() < 0.01);
//! ```

#![warn(missing_docs)]

pub mod aabb;
pub mod brute_force;
pub mod bvh;
#[cfg(feature = "device")]
pub mod device;
pub mod error;
pub mod generate;
pub mod hash_grid;
pub mod heightfield;
pub mod hull;
pub mod mass;
pub mod mesh;
pub mod mesh_bvh;
pub mod obj;
pub mod query;
#[cfg(test)]
mod test_rng;

pub use aabb::{Aabb, RayBoxTest};
pub use bvh::{BuildOptions, Bvh, BvhNode};
pub use error::{GeomError, Result};
pub use hash_grid::HashGrid;
pub use heightfield::HeightField;
pub use hull::{ConvexHull, HullFace};
pub use mass::MassProperties;

pub use mesh::Mesh;
pub use mesh_bvh::MeshBvh;
pub use query::{PointQuery, RayHit, SignedPointQuery};
