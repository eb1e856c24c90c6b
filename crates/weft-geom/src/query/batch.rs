//! Many queries at once: the same answers as one query at a time, computed in a
//! spatially coherent order ([`QueryOrder`]) on rayon's pool.
//!
//! Sorting costs a few milliseconds per million queries and pays back many times: in
//! Morton order consecutive queries read the same BVH nodes and triangles from the
//! caches, and each closest-point query starts from the previous answer as an upper
//! bound on its distance.

use glam::Vec3;

use super::morton_order::QueryOrder;
use super::{PointQuery, SignedPointQuery};
use crate::mesh_bvh::MeshBvh;

/// What a closest-point query leaves for the next one in its chunk: the last point
/// found on the mesh.
#[derive(Default)]
struct LastFound(Option<Vec3>);

impl MeshBvh {
    /// [`MeshBvh::closest_point`] of every point, in parallel: `out[i]` is the answer for
    /// `points[i]` (identical to the one-at-a-time answer).
    ///
    /// ```
    /// use glam::Vec3;
    /// use weft_geom::{MeshBvh, generate};
    ///
    /// let sphere = MeshBvh::new(generate::icosphere(1.0, 3));
    /// let points = [Vec3::new(0.0, 0.0, 3.0), Vec3::ZERO, Vec3::new(0.0, 0.5, 0.0)];
    /// let found = sphere.closest_points(&points, 1.0);
    /// assert!(found[0].is_none()); // 2 away, beyond max_dist
    /// assert_eq!(found[1], sphere.closest_point(points[1], 1.0));
    /// assert!((found[2].unwrap().distance - 0.5).abs() < 0.01);
    /// ```
    pub fn closest_points(&self, points: &[Vec3], max_dist: f32) -> Vec<Option<PointQuery>> {
        let prefetch = |i| crate::bvh::prefetch_slice(&points[i..=i]);
        QueryOrder::morton(points).answer(prefetch, |last: &mut LastFound, i| {
            let found = self.closest_point_near(points[i], max_dist, last.0);
            if let Some(q) = found {
                last.0 = Some(q.point);
            }
            found
        })
    }

    /// [`MeshBvh::closest_point_signed`] of every point, in parallel: `out[i]` is the
    /// answer for `points[i]`. The sign costs a winding-number evaluation per point
    /// that found a face; use [`MeshBvh::closest_points`] when it is not needed.
    pub fn closest_points_signed(
        &self,
        points: &[Vec3],
        max_dist: f32,
    ) -> Vec<Option<SignedPointQuery>> {
        self.winding_nodes();
        let prefetch = |i| crate::bvh::prefetch_slice(&points[i..=i]);
        QueryOrder::morton(points).answer(prefetch, |last: &mut LastFound, i| {
            let closest = self.closest_point_near(points[i], max_dist, last.0)?;
            last.0 = Some(closest.point);
            Some(self.signed(points[i], closest))
        })
    }
}
