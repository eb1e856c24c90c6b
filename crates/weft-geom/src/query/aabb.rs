//! Faces of a mesh whose bounds overlap a box.

use glam::Vec3;

use crate::aabb::Aabb;
use crate::mesh_bvh::MeshBvh;

impl MeshBvh {
    /// Faces whose bounding box overlaps the box `lower ..= upper` (touching counts),
    /// in traversal order. Like Warp's `mesh_query_aabb` this tests face *bounds*, a
    /// conservative answer for contact generation; test the triangles exactly if
    /// needed. Empty for an inverted box.
    ///
    /// ```
    /// use glam::Vec3;
    /// use weft_geom::{MeshBvh, generate};
    ///
    /// let plane = MeshBvh::new(generate::plane(1.0, 1.0, 10, 10));
    /// let mut faces: Vec<u32> = plane.aabb_query(Vec3::splat(-0.01), Vec3::splat(0.01)).collect();
    /// faces.sort();
    /// // The 4 quads around the centre vertex: 6 triangles touch it, the other 2 only
    /// // through their bounding boxes.
    /// assert_eq!(faces.len(), 8);
    /// ```
    pub fn aabb_query(&self, lower: Vec3, upper: Vec3) -> impl Iterator<Item = u32> + '_ {
        let query = Aabb::new(lower, upper);
        let mesh = self.mesh();
        self.bvh()
            .aabb_candidates(query)
            .filter(move |&f| mesh.face_aabb(f as usize).overlaps(&query))
    }
}
