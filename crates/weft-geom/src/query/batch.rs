//! Many queries at once: the same answers as one query at a time, computed in a
//! spatially coherent order ([`QueryOrder`]) on rayon's pool.
//!
//! Sorting costs a few milliseconds per million queries and pays back many times: in
//! Morton order consecutive queries read the same BVH nodes and triangles from the
//! caches; closest-point queries go through the tree [`PACKET`] at a time (one
//! traversal for nearby points, see [`PacketSearch`]), each point starting from the
//! nearest of the previous packet's answers as an upper bound on its distance.

use glam::Vec3;

use super::closest::{offer_leaf, prefetch_leaf, upper_bound_squared};
use super::morton_order::QueryOrder;
use super::{PointQuery, SignedPointQuery};
use crate::bvh::{PACKET, PacketSearch};
use crate::mesh_bvh::MeshBvh;

/// What a closest-point packet leaves for the next one in its chunk: the points it
/// found on the mesh (the last packet's that found any).
#[derive(Default)]
struct LastFound {
    points: [Vec3; PACKET],
    len: usize,
}

impl LastFound {
    /// A squared distance within which `p`'s nearest face lies: the smallest
    /// [`upper_bound_squared`] to a found point (`f32::INFINITY` for none).
    #[inline(always)]
    fn bound(&self, p: Vec3) -> f32 {
        self.points[..self.len]
            .iter()
            .fold(f32::INFINITY, |b, &q| b.min(upper_bound_squared(p, q)))
    }
}

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
        self.closest_points_then(points, max_dist, |_, found| found)
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
        self.closest_points_then(points, max_dist, |p, found| {
            found.map(|closest| self.signed(p, closest))
        })
    }

    /// The closest points of `points` in Morton order, by packets, each answer passed
    /// through `finish(point, answer)`; returned in the caller's order.
    fn closest_points_then<R: Send>(
        &self,
        points: &[Vec3],
        max_dist: f32,
        finish: impl Fn(Vec3, Option<PointQuery>) -> R + Sync,
    ) -> Vec<R> {
        let searchable = max_dist >= 0.0 && !self.bvh().is_empty();
        let limit = if searchable { max_dist } else { 0.0 };
        let tris = self.leaf_triangles();
        let prims = self.bvh().prim_indices();
        let patches = self.patches();
        let groups = self.leaf_groups();
        let prefetch = |i| crate::bvh::prefetch_slice(&points[i..=i]);
        let answer = |last: &mut LastFound, ids: &[u32], out: &mut Vec<R>| {
            let mut search = PacketSearch::new(limit);
            let queried = |p: Vec3| searchable && p.is_finite();
            for &i in ids {
                let p = points[i as usize];
                if queried(p) {
                    search.push(p, last.bound(p));
                }
            }
            self.wide().nearest_slots_packet(
                &mut search,
                |first, count, ordinal| prefetch_leaf(groups, patches, tris, first, count, ordinal),
                |ordinal, lanes| patches[ordinal as usize].distance_squared_below4(lanes),
                |first, count, ordinal, p, point_search| {
                    offer_leaf(groups, tris, prims, first, count, ordinal, p, point_search)
                },
            );
            let mut k = 0;
            let mut found_any = false;
            for &i in ids {
                let p = points[i as usize];
                let found = if queried(p) {
                    let (_, best) = search.result(k);
                    k += 1;
                    best.map(|(slot, _)| self.point_query(slot, p))
                } else {
                    None
                };
                if let Some(q) = found {
                    if !found_any {
                        found_any = true;
                        last.len = 0;
                    }
                    last.points[last.len] = q.point;
                    last.len += 1;
                }
                out.push(finish(p, found));
            }
            debug_assert_eq!(k, search.len());
        };
        QueryOrder::morton(points).answer(PACKET, prefetch, answer)
    }
}
