//! Geometry queries inside kernels: a triangle mesh with its BVH as a kernel
//! structure ([`DeviceMesh`]) and funcs that traverse it on every back end —
//! complete queries ([`mesh_query_ray`], [`mesh_query_point`],
//! [`mesh_query_point_no_sign`], returning [`MeshQueryRay`] and [`MeshQueryPoint`]),
//! their searches alone, winding numbers
//! ([`mesh_winding_number`]) and box queries ([`mesh_query_aabb`]); a BVH over any
//! boxes ([`DeviceBvh`], [`bvh_query_aabb`], [`bvh_query_ray`]); and hashed grids
//! over points ([`DeviceHashGrid`], [`hash_grid_query`]).
//!
//! The ray and closest-point searches walk down to the nearer child first and keep
//! the farther one on a stack (a local array), skipping it when
//! the best answer so far has moved closer than its box. Nodes are in depth-first
//! order with parent links (the layout of [`weft_geom::BvhNode`](crate::BvhNode)): a search whose
//! stack overflowed, and the box iterator, which holds no stack, climb to the first
//! ancestor whose far child is still to visit. A query is a search that returns a face index — it
//! passes no gradient and needs no adjoint — and the differentiable part (where
//! the ray meets that triangle) is a plain func of the triangle's corners, so
//! gradients reach the ray and, through the kernel's own reads, the mesh points:
//!
//! ```
//! use weft::prelude::*;
//! use weft::geom::{DeviceMesh, mesh_query_ray_face, ray_triangle};
//!
//! #[kernel(crate = ::weft_runtime)]
//! fn depth(mesh: &DeviceMesh, origins: &Array<Vec3>, dir: Vec3, t: &mut Array<f32>) {
//!     let i = tid();
//!     let o = origins[i];
//!     let f = mesh_query_ray_face(mesh, o, dir, 1.0e6);
//!     let mut hit_t = -1.0;
//!     if f >= 0 {
//!         let a = mesh.points[mesh.faces[3 * f] as i32];
//!         let b = mesh.points[mesh.faces[3 * f + 1] as i32];
//!         let c = mesh.points[mesh.faces[3 * f + 2] as i32];
//!         let (_hit, s, _u, _v) = ray_triangle(o, dir, a, b, c);
//!         hit_t = s;
//!     }
//!     t[i] = hit_t;
//! }
//!
//! let mesh = DeviceMesh::new(Device::Cpu, &weft_geom::generate::icosphere(1.0, 2)).unwrap();
//! let origins = Array::from_slice(Device::Cpu, &[Vec3::new(0.0, 0.0, 5.0)]);
//! let mut t = Array::zeros(Device::Cpu, [1]);
//! depth::launch(1, &mesh, &origins, Vec3::NEG_Z, &mut t).unwrap();
//! assert!((t.to_vec()[0] - 4.0).abs() < 0.02);
//! ```

//!
//! This module is compiled with the `device` feature (on by default) and reached by
//! most users as `weft::geom`. Its items are defined with `crate = ::weft_runtime`
//! (see `weft_macros`), so this crate needs the runtime, not the facade.

mod aabb;
mod bvh;
mod bvh_query;
/// The kernel of [`DeviceBvh::refit`] (public for tests of its PTX).
#[doc(hidden)]
pub mod bvh_refit;
mod closest;
mod grid;
/// The kernels of [`DeviceHashGrid::build`] (public for tests of their PTX).
#[doc(hidden)]
pub mod grid_build;
mod lbvh;
/// The kernels of [`LbvhBuilder`] (public for tests of their PTX).
#[doc(hidden)]
pub mod lbvh_kernels;
mod mesh;
/// The kernels of [`ClosestPoints`] (public for tests of their PTX).
#[doc(hidden)]
pub mod point_batch;
mod prelude;
mod query;
mod ray;
mod scan;
mod watertight;
mod winding;
/// The kernel of [`LbvhBuilder::set_winding`] (public for tests of its PTX).
#[doc(hidden)]
pub mod winding_build;

pub use aabb::{MeshAabbQuery, boxes_overlap, mesh_query_aabb, mesh_query_aabb_next};
pub use bvh::DeviceBvh;
pub use bvh_query::{
    BvhQuery, bvh_query_aabb, bvh_query_aabb_next, bvh_query_ray, bvh_query_ray_next, bvh_ray_box,
};
pub use closest::{
    closest_point_triangle, mesh_query_point_face, mesh_query_point_subtree, point_box_distance_sq,
    point_order, point_triangle_distance_sq,
};
pub use grid::{DeviceHashGrid, HashGridQuery, hash_grid_query, hash_grid_query_next};
pub use lbvh::LbvhBuilder;
pub use mesh::{BvhNode, DeviceMesh, WindingNode, leaf_triangles};
pub use point_batch::ClosestPoints;
pub use query::{
    MeshQueryPoint, MeshQueryRay, mesh_eval_position, mesh_eval_velocity, mesh_query_point,
    mesh_query_point_no_sign, mesh_query_ray,
};
pub use ray::{
    mesh_query_ray_face, ray_box, ray_box_entry, ray_inverse, ray_order, slab_far_scale,
};
pub use scan::DeviceScan;
pub use watertight::{ray_triangle, ray_triangle_sheared, watertight_ray};
pub use winding::{mesh_winding_number, solid_angle};

/// How many pending subtrees the ray and closest-point searches keep in their
/// stacks (local arrays) before they overwrite the oldest; deeper trees stay
/// correct through parent links (see [`mesh_query_point_face`]).
pub const TRAVERSAL_STACK_SLOTS: i32 = 32;
