//! The mesh and BVH arrays kernels read.

use super::prelude::*;

/// A BVH node as kernels read it: exactly [`weft_geom::BvhNode`](crate::BvhNode) (32 bytes; a leaf
/// has bit 31 of `right_or_count` set and the rest is its primitive count).
#[structure(crate = ::weft_runtime)]
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

impl From<&crate::BvhNode> for BvhNode {
    fn from(n: &crate::BvhNode) -> Self {
        BvhNode {
            lower: n.lower,
            left_or_first: n.left_or_first,
            upper: n.upper,
            right_or_count: n.right_or_count,
        }
    }
}

/// A triangle mesh and its BVH in one device's memory, for the queries of
/// [`weft::geom`](crate::device).
#[structure(crate = ::weft_runtime)]
pub struct DeviceMesh {
    /// Vertex positions.
    pub points: Array<Vec3>,
    /// Vertex velocities (for [`mesh_eval_velocity`](super::mesh_eval_velocity)),
    /// one per point, or empty for a static mesh.
    pub velocities: Array<Vec3>,
    /// Three vertex indices per face.
    pub faces: Array<u32>,
    /// BVH nodes, root first, depth-first order.
    pub nodes: Array<BvhNode>,
    /// Face indices; leaves own contiguous runs.
    pub prims: Array<u32>,
    /// Parent of each node (`u32::MAX` for the root).
    pub parents: Array<u32>,
    /// The corners of face `prims[k]` at `3 k`, `3 k + 1`, `3 k + 2` (`w` = 0):
    /// a copy of `points` in leaf order, so that a leaf's triangles are one
    /// contiguous read (see [`leaf_triangles`]). Whoever moves `points` rebuilds
    /// the BVH, which refreshes it.
    pub tris: Array<Vec4>,
    /// Far-field data of each node for fast winding numbers (the signed queries,
    /// [`mesh_winding_number`](super::mesh_winding_number)), in node order; or empty,
    /// and the winding number then sums every face's solid angle (exact, but
    /// proportional to the face count). A host-built BVH has it; a device build
    /// ([`LbvhBuilder`](super::LbvhBuilder)) leaves it empty.
    pub winding: Array<WindingNode>,
}

/// Far-field data of one BVH node for winding numbers: exactly
/// [`weft_geom::query::WindingNode`](crate::query::WindingNode) (80 bytes).
#[structure(crate = ::weft_runtime)]
pub struct WindingNode {
    /// Area-weighted centre of the node's faces.
    pub center: Vec3,
    /// Radius around `center` holding every corner of the node's faces.
    pub radius: f32,
    /// Vector area (sum of the faces' area-weighted normals).
    pub area_normal: Vec3,
    /// Total area of the node's faces.
    pub area: f32,
    /// First moment of the faces' vector areas about `center`.
    pub moment: Mat3,
    /// Padding to 80 bytes.
    pub pad: Vec3,
}

/// The corners of face `prims[k]` at `3 k..3 k + 3`, for [`DeviceMesh::tris`]:
/// `faces` holds three vertex indices into `points` per face, `prims` a BVH's
/// face order.
///
/// # Panics
/// If an index is out of range.
pub fn leaf_triangles(points: &[Vec3], faces: &[u32], prims: &[u32]) -> Vec<Vec4> {
    prims
        .iter()
        .flat_map(|&f| {
            let f = f as usize;
            (0..3).map(move |j| points[faces[3 * f + j] as usize].extend(0.0))
        })
        .collect()
}

impl DeviceMesh {
    /// Builds the BVH of `mesh` on the host (binned SAH, default options) and
    /// copies mesh (with its velocities, if any) and BVH to `device`.
    pub fn new(device: Device, mesh: &crate::Mesh) -> Result<Self, Error> {
        Self::with_bvh(device, mesh, &crate::Bvh::from_mesh(mesh))
    }

    /// Copies `mesh` and a BVH built over its faces (e.g. with other
    /// [`weft_geom::BuildOptions`](crate::BuildOptions)) to `device`.
    ///
    /// Errors: a BVH over another number of faces ([`Error::InvalidArgument`]),
    /// or the device's.
    ///
    /// ```
    /// use weft::prelude::*;
    /// use weft::geom::DeviceMesh;
    /// use weft_geom::{BuildOptions, Bvh};
    ///
    /// let sphere = weft_geom::generate::icosphere(1.0, 3);
    /// let options = BuildOptions { max_leaf_size: 4, traversal_cost: 2.0, ..Default::default() };
    /// let bvh = Bvh::from_mesh_with(&sphere, &options).unwrap();
    /// let mesh = DeviceMesh::with_bvh(Device::Cpu, &sphere, &bvh)?;
    /// assert_eq!(mesh.num_faces(), sphere.num_faces());
    /// # Ok::<(), weft::Error>(())
    /// ```
    pub fn with_bvh(device: Device, mesh: &crate::Mesh, bvh: &crate::Bvh) -> Result<Self, Error> {
        if bvh.prim_indices().len() != mesh.num_faces() {
            return Err(Error::InvalidArgument {
                what: "mesh BVH",
                message: format!(
                    "the BVH holds {} primitives, the mesh {} faces",
                    bvh.prim_indices().len(),
                    mesh.num_faces()
                ),
            });
        }
        let nodes: Vec<BvhNode> = bvh.nodes().iter().map(BvhNode::from).collect();
        let faces: Vec<u32> = mesh.indices().iter().flatten().copied().collect();
        let winding: Vec<WindingNode> = crate::query::winding_nodes(mesh, bvh)
            .iter()
            .map(|w| WindingNode {
                center: w.center,
                radius: w.radius,
                area_normal: w.area_normal,
                area: w.area,
                moment: w.moment,
                pad: Vec3::ZERO,
            })
            .collect();
        Ok(DeviceMesh {
            points: Array::try_from_slice(device, mesh.points())?,
            velocities: Array::try_from_slice(device, mesh.velocities().unwrap_or(&[]))?,
            faces: Array::try_from_slice(device, &faces)?,
            nodes: Array::try_from_slice(device, &nodes)?,
            prims: Array::try_from_slice(device, bvh.prim_indices())?,
            parents: Array::try_from_slice(device, bvh.parents())?,
            tris: Array::try_from_slice(
                device,
                &leaf_triangles(mesh.points(), &faces, bvh.prim_indices()),
            )?,
            winding: Array::try_from_slice(device, &winding)?,
        })
    }

    /// Number of faces.
    pub fn num_faces(&self) -> usize {
        self.faces.len() / 3
    }
}
