//! Host reference queries on a [`MeshBvh`](crate::MeshBvh): closest ray hit, closest
//! point (unsigned and signed by winding number), faces overlapping a box.
//!
//! These are the answers the kernel builtins (`mesh_query_ray`, `mesh_query_point`,
//! `mesh_query_aabb`) are tested against. Barycentric convention (as in Warp): a
//! point on face `f` with corners `p0, p1, p2` is `u·p0 + v·p1 + (1 − u − v)·p2`.
//!
//! Ties are broken by the smaller face index, so the answers do not depend on the
//! shape of the tree and equal [`brute_force`](crate::brute_force)'s exactly.

pub mod aabb;
mod batch;
pub mod closest;
pub(crate) mod leaf_groups;
pub(crate) mod morton_order;
pub(crate) mod patch_bound;
pub mod ray;
pub mod winding;

pub use closest::{PointQuery, SignedPointQuery, closest_point_triangle};
pub use ray::{RayHit, TriangleHit, WatertightRay};
pub use winding::{DEFAULT_BETA, WindingNode, solid_angle, winding_nodes};
