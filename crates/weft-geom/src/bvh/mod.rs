//! Bounding volume hierarchy over arbitrary boxes: binned-SAH build, refit, traversal.
//!
//! The layout is documented in [`layout`]; it is what the kernel builtins traverse.

mod build;
mod closest_hit;
pub mod layout;
mod nearest;
mod prim_ref;
mod refit;
mod traverse;
mod wide;

pub use build::BuildOptions;
pub(crate) use closest_hit::PRUNE_SLACK;
pub use layout::{BvhNode, LEAF_BIT, MAX_DEPTH, NO_PARENT};
pub use traverse::{AabbCandidates, RayCandidates};
pub(crate) use traverse::{Stack, valid_ray};
pub(crate) use wide::{
    HitSearch, NO_ORDINAL, NearestSearch, PACKET, PacketSearch, RAY_PACKET, RayPacket, WideBvh,
    prefetch_slice,
};

use crate::aabb::Aabb;
use crate::error::Result;
use crate::mesh::Mesh;

/// A BVH over `num_prims` boxes, stored as flat arrays (see [`layout`]).
///
/// ```
/// use glam::Vec3;
/// use weft_geom::{Aabb, Bvh};
///
/// let boxes: Vec<Aabb> = (0..100)
///     .map(|i| Aabb::new(Vec3::splat(i as f32), Vec3::splat(i as f32 + 0.5)))
///     .collect();
/// let bvh = Bvh::build(&boxes);
/// let hits: Vec<u32> = bvh
///     .aabb_query(Aabb::new(Vec3::splat(10.2), Vec3::splat(12.1)), &boxes)
///     .collect();
/// assert_eq!(hits.len(), 3); // boxes 10, 11, 12
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Bvh {
    nodes: Vec<BvhNode>,
    parents: Vec<u32>,
    prim_indices: Vec<u32>,
    depth: u32,
}

impl Bvh {
    /// Builds a BVH over `aabbs` with the default [`BuildOptions`] (16 bins, leaves of
    /// at most 8 primitives, SAH-chosen below that).
    ///
    /// # Panics
    ///
    /// With 2³¹ or more boxes.
    pub fn build(aabbs: &[Aabb]) -> Self {
        Self::build_with(aabbs, &BuildOptions::default()).expect("default options are valid")
    }

    /// Builds a BVH with explicit options; errors on invalid options.
    ///
    /// # Panics
    ///
    /// With 2³¹ or more boxes.
    pub fn build_with(aabbs: &[Aabb], options: &BuildOptions) -> Result<Self> {
        options.validate()?;
        Ok(build::build(aabbs, options))
    }

    /// Builds a BVH over the faces of `mesh` (primitive `i` is face `i`).
    pub fn from_mesh(mesh: &Mesh) -> Self {
        Self::from_mesh_with(mesh, &BuildOptions::default()).expect("default options are valid")
    }

    /// [`Bvh::from_mesh`] with explicit options.
    pub fn from_mesh_with(mesh: &Mesh, options: &BuildOptions) -> Result<Self> {
        Self::build_with(&face_aabbs(mesh), options)
    }

    /// The nodes, root first.
    pub fn nodes(&self) -> &[BvhNode] {
        &self.nodes
    }

    /// Parent of each node ([`NO_PARENT`] for the root).
    pub fn parents(&self) -> &[u32] {
        &self.parents
    }

    /// The primitive permutation that leaves index into.
    pub fn prim_indices(&self) -> &[u32] {
        &self.prim_indices
    }

    /// Number of primitives.
    pub fn num_prims(&self) -> usize {
        self.prim_indices.len()
    }

    /// Number of levels (1 for a single leaf); at most [`MAX_DEPTH`].
    pub fn depth(&self) -> usize {
        self.depth as usize
    }

    /// Bounds of everything (empty box for an empty BVH).
    pub fn root_aabb(&self) -> Aabb {
        self.nodes[0].aabb()
    }

    /// `true` when there are no primitives.
    pub fn is_empty(&self) -> bool {
        self.prim_indices.is_empty()
    }
}

/// Bounds of every face of `mesh`, in face order (computed in parallel).
pub fn face_aabbs(mesh: &Mesh) -> Vec<Aabb> {
    use rayon::prelude::*;
    (0..mesh.num_faces())
        .into_par_iter()
        .with_min_len(4096)
        .map(|f| mesh.face_aabb(f))
        .collect()
}
