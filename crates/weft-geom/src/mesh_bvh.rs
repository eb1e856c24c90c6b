//! A mesh together with its BVH and winding-number data: the object that answers
//! queries.

use std::sync::OnceLock;

use glam::Vec3;

use crate::bvh::{BuildOptions, Bvh};
use crate::error::{GeomError, Result};
use crate::mesh::Mesh;
use crate::query::winding::{self, WindingNode};

/// A [`Mesh`] with a BVH over its faces (primitive `i` = face `i`) and, per BVH node,
/// the [`WindingNode`] data for fast winding numbers.
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
    winding: OnceLock<Vec<WindingNode>>,
}

impl MeshBvh {
    /// Builds the BVH (default [`BuildOptions`]) and winding data for `mesh`.
    pub fn new(mesh: Mesh) -> Self {
        Self::with_options(mesh, &BuildOptions::default()).expect("default options are valid")
    }

    /// [`MeshBvh::new`] with explicit BVH options.
    pub fn with_options(mesh: Mesh, options: &BuildOptions) -> Result<Self> {
        let bvh = Bvh::from_mesh_with(&mesh, options)?;
        Ok(Self {
            mesh,
            bvh,
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

    /// Winding-number data, one entry per BVH node (computed now if needed).
    pub fn winding_nodes(&self) -> &[WindingNode] {
        self.winding
            .get_or_init(|| winding::build_nodes(&self.mesh, &self.bvh))
    }

    /// The points, writable; call [`MeshBvh::refit`] after changing them. Keep them
    /// finite.
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

    /// Recomputes the BVH boxes bottom-up after the points moved (no rebuild: the tree
    /// is kept, so query cost grows if the mesh deforms a lot). Winding data, if any,
    /// is refitted on its next use.
    pub fn refit(&mut self) {
        self.bvh.refit_mesh(&self.mesh);
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
