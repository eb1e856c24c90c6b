//! The mesh and BVH arrays kernels read.

use crate::prelude::*;

/// A BVH node as kernels read it: exactly [`weft_geom::BvhNode`] (32 bytes; a leaf
/// has bit 31 of `right_or_count` set and the rest is its primitive count).
#[weft::structure]
pub struct BvhNode {
    /// Box minimum.
    pub lower: Vec3,
    /// Inner node: left child (always the next node). Leaf: first slot in `prims`.
    pub left_or_first: u32,
    /// Box maximum.
    pub upper: Vec3,
    /// Inner node: right child. Leaf: bit 31 set, primitive count below it.
    pub right_or_count: u32,
}

/// A triangle mesh and its BVH in one device's memory, for the queries of
/// [`weft::geom`](crate::geom).
#[weft::structure]
pub struct DeviceMesh {
    /// Vertex positions.
    pub points: Array<Vec3>,
    /// Three vertex indices per face.
    pub faces: Array<u32>,
    /// BVH nodes, root first, depth-first order.
    pub nodes: Array<BvhNode>,
    /// Face indices; leaves own contiguous runs.
    pub prims: Array<u32>,
    /// Parent of each node (`u32::MAX` for the root).
    pub parents: Array<u32>,
}

impl DeviceMesh {
    /// Builds the BVH of `mesh` on the host (binned SAH) and copies mesh and BVH to
    /// `device`.
    pub fn new(device: Device, mesh: &weft_geom::Mesh) -> Result<Self, Error> {
        let bvh = weft_geom::Bvh::from_mesh(mesh);
        let nodes: Vec<BvhNode> = bvh
            .nodes()
            .iter()
            .map(|n| BvhNode {
                lower: n.lower,
                left_or_first: n.left_or_first,
                upper: n.upper,
                right_or_count: n.right_or_count,
            })
            .collect();
        let faces: Vec<u32> = mesh.indices().iter().flatten().copied().collect();
        Ok(DeviceMesh {
            points: Array::try_from_slice(device, mesh.points())?,
            faces: Array::try_from_slice(device, &faces)?,
            nodes: Array::try_from_slice(device, &nodes)?,
            prims: Array::try_from_slice(device, bvh.prim_indices())?,
            parents: Array::try_from_slice(device, bvh.parents())?,
        })
    }

    /// Number of faces.
    pub fn num_faces(&self) -> usize {
        self.faces.len() / 3
    }
}
