//! A mesh together with its BVH and winding-number data: the object that answers
//! queries.

use std::sync::OnceLock;

use glam::Vec3;

use crate::aabb::Aabb;
use crate::bvh::{BuildOptions, Bvh, WideBvh};
use crate::error::{GeomError, Result};
use crate::mesh::Mesh;
use crate::query::leaf_groups::LeafGroups;
use crate::query::patch_bound::{PatchBound, patch_bounds};
use crate::query::winding::{self, WindingNode};

/// A [`Mesh`] with a BVH over its faces (primitive `i` = face `i`), the faces' corners
/// copied in BVH leaf order and, per BVH node, the [`WindingNode`] data for fast winding
/// numbers.
///
/// The leaf-ordered corners ([`MeshBvh::leaf_triangles`], 36 bytes per face) let a
/// query read the triangles of a leaf from one contiguous run of memory instead of
/// following face → indices → points; at a million faces that is what keeps queries
/// from waiting on cache misses. The queries traverse a 4-wide copy of the BVH (same
/// boxes and leaves), test a leaf's triangles four at a time (a copy of them as SIMD
/// lanes, with the scalar tests' exact results) and skip closest-point leaves by a
/// cylinder around each leaf's triangles; all are host-only and refreshed by
/// [`MeshBvh::refit`] (the cylinders, like the winding data, on their next use).
///
/// Move the points with [`MeshBvh::points_mut`] or [`MeshBvh::set_points`], then call
/// [`MeshBvh::refit`] (done for you by `set_points`); the topology is kept.
///
/// The winding data is computed on first use (a signed query, [`MeshBvh::winding_number`]
/// or [`MeshBvh::winding_nodes`]) and dropped by a refit, so meshes that are only
/// ray-cast or projected onto never pay for it.
///
/// ```
/// use glam::Vec3;
/// use weft_geom::{MeshBvh, generate};
///
/// let mut sphere = MeshBvh::new(generate::icosphere(1.0, 2));
/// let hit = sphere.ray(Vec3::new(0.0, 0.0, -5.0), Vec3::Z, f32::INFINITY).unwrap();
/// assert!((hit.t - 4.0).abs() < 0.05 && hit.sign > 0.0);
///
/// for p in sphere.points_mut() {
///     *p *= 2.0;
/// }
/// sphere.refit();
/// let q = sphere.closest_point_signed(Vec3::ZERO, f32::INFINITY).unwrap();
/// assert!(q.inside && (q.closest.distance - 2.0).abs() < 0.1);
/// ```
#[derive(Clone, Debug)]
pub struct MeshBvh {
    mesh: Mesh,
    bvh: Bvh,
    /// `tris[slot]` = corners of face `bvh.prim_indices()[slot]`.
    tris: Vec<[Vec3; 3]>,
    /// The BVH collapsed to 4 children per node, for the host queries.
    wide: WideBvh,
    /// Per leaf of `wide` (by ordinal), its triangles as SIMD lanes (all host queries).
    /// Computed on the first query after a build; rewritten by a refit.
    groups: OnceLock<LeafGroups>,
    /// Per leaf of `wide` (by ordinal), a cylinder around its triangles (closest-point
    /// pruning). Computed on the first closest-point query after a build or refit.
    patches: OnceLock<Vec<PatchBound>>,
    winding: OnceLock<Vec<WindingNode>>,
}

/// The corners of the faces in `order`, gathered in parallel.
fn gather_triangles(mesh: &Mesh, order: &[u32], out: &mut Vec<[Vec3; 3]>) {
    use rayon::prelude::*;
    order
        .par_iter()
        .with_min_len(4096)
        .map(|&f| mesh.triangle(f as usize))
        .collect_into_vec(out);
}

impl MeshBvh {
    /// Builds the BVH (default [`BuildOptions`]) and winding data for `mesh`.
    pub fn new(mesh: Mesh) -> Self {
        Self::with_options(mesh, &BuildOptions::default()).expect("default options are valid")
    }

    /// [`MeshBvh::new`] with explicit BVH options.
    pub fn with_options(mesh: Mesh, options: &BuildOptions) -> Result<Self> {
        let bvh = Bvh::from_mesh_with(&mesh, options)?;
        let mut tris = Vec::new();
        gather_triangles(&mesh, bvh.prim_indices(), &mut tris);
        let wide = WideBvh::new(&bvh);
        Ok(Self {
            mesh,
            bvh,
            tris,
            wide,
            groups: OnceLock::new(),
            patches: OnceLock::new(),
            winding: OnceLock::new(),
        })
    }

    /// The mesh.
    pub fn mesh(&self) -> &Mesh {
        &self.mesh
    }

    /// The BVH (primitives are face indices).
    pub fn bvh(&self) -> &Bvh {
        &self.bvh
    }

    /// The faces' corners in BVH leaf order: entry `slot` holds the corners of face
    /// `bvh().prim_indices()[slot]`, so a leaf's faces are one contiguous run (what the
    /// queries read). Updated by [`MeshBvh::refit`].
    pub fn leaf_triangles(&self) -> &[[Vec3; 3]] {
        &self.tris
    }

    /// The 4-wide host tree the queries traverse.
    pub(crate) fn wide(&self) -> &WideBvh {
        &self.wide
    }

    /// Per-leaf triangle groups, by leaf ordinal of [`MeshBvh::wide`] (computed now if
    /// needed).
    pub(crate) fn leaf_groups(&self) -> &LeafGroups {
        self.groups
            .get_or_init(|| LeafGroups::new(self.wide.leaves(), &self.tris))
    }

    /// Per-leaf cylinders around the triangles, by leaf ordinal of [`MeshBvh::wide`].
    pub(crate) fn patches(&self) -> &[PatchBound] {
        self.patches
            .get_or_init(|| patch_bounds(self.wide.leaves(), &self.tris))
    }

    /// Winding-number data, one entry per BVH node (computed now if needed).
    pub fn winding_nodes(&self) -> &[WindingNode] {
        self.winding
            .get_or_init(|| winding::winding_nodes(&self.mesh, &self.bvh))
    }

    /// The points, writable; call [`MeshBvh::refit`] after changing them (queries
    /// see the old triangles until then). Keep them finite.
    pub fn points_mut(&mut self) -> &mut [Vec3] {
        self.mesh.points_mut()
    }

    /// Replaces all points (same count, finite) and refits.
    pub fn set_points(&mut self, points: &[Vec3]) -> Result<()> {
        if points.len() != self.mesh.num_points() {
            return Err(GeomError::LengthMismatch {
                what: "points",
                got: points.len(),
                expected: self.mesh.num_points(),
            });
        }
        if let Some(vertex) = points.iter().position(|p| !p.is_finite()) {
            return Err(GeomError::NonFinite {
                what: "vertex",
                vertex,
                value: points[vertex].to_array(),
            });
        }
        self.mesh.points_mut().copy_from_slice(points);
        self.refit();
        Ok(())
    }

    /// Recomputes the leaf-ordered corners and the BVH boxes bottom-up, in one parallel
    /// pass, after the points moved (no rebuild: the tree is kept, so query cost grows if the mesh deforms a
    /// lot). Winding data, if any, is refitted on its next use.
    pub fn refit(&mut self) {
        let mesh = &self.mesh;
        self.bvh.refit_slots(&mut self.tris, |face, tri| {
            *tri = mesh.triangle(face as usize);
            let [a, b, c] = *tri;
            Aabb::from_triangle(a, b, c)
        });
        self.wide.refit(&self.bvh);
        if let Some(groups) = self.groups.get_mut() {
            groups.refit(&self.tris);
        }
        self.patches.take();
        self.winding.take();
    }

    /// Rebuilds the BVH from scratch (after large deformations).
    pub fn rebuild(&mut self) {
        *self = Self::new(std::mem::replace(&mut self.mesh, Mesh::empty()));
    }

    /// Gives the mesh back.
    pub fn into_mesh(self) -> Mesh {
        self.mesh
    }
}
