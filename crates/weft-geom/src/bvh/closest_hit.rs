//! Closest ray hit: near-child-first traversal with entry distances on the stack.

use glam::Vec3;

use super::Bvh;
use super::layout::LEAF_BIT;
use super::traverse::{KeyedStack, valid_ray};
use crate::aabb::RayBoxTest;

/// Boxes are skipped when entered beyond `best_t · PRUNE_SLACK`: a primitive's hit
/// distance, computed by its own formula, can round a few ulps below the entry distance
/// of its box (at shared edges and vertices); the slack keeps such primitives in play,
/// so the closest hit does not depend on the visiting order.
pub(crate) const PRUNE_SLACK: f32 = 1.0 + 1.0 / 4096.0;

impl Bvh {
    /// Closest hit along `origin + t dir`, `0 ≤ t ≤ max_t`: `hit(prim, best_t)` returns
    /// the primitive's hit distance (or `None`), and the smallest `t` wins — on equal `t`
    /// the smaller primitive index, so the answer does not depend on the tree. Children
    /// are visited near first and boxes entered beyond the best `t` (plus a relative
    /// slack of 2⁻¹² for rounding) are skipped.
    ///
    /// ```
    /// use glam::Vec3;
    /// use weft_geom::{Aabb, Bvh};
    ///
    /// // Spheres of radius 0.5 at x = 0, 2, 4, …
    /// let centers: Vec<Vec3> = (0..10).map(|i| Vec3::new(2.0 * i as f32, 0.0, 0.0)).collect();
    /// let boxes: Vec<Aabb> = centers
    ///     .iter()
    ///     .map(|&c| Aabb::new(c - 0.5, c + 0.5))
    ///     .collect();
    /// let bvh = Bvh::build(&boxes);
    /// let origin = Vec3::new(-5.0, 0.0, 0.0);
    /// let hit = bvh.cast_ray(origin, Vec3::X, f32::INFINITY, |p, _| {
    ///     let t = (centers[p as usize] - origin).x - 0.5; // on the axis
    ///     Some(t)
    /// });
    /// assert_eq!(hit, Some((0, 4.5)));
    /// ```
    pub fn cast_ray(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        mut hit: impl FnMut(u32, f32) -> Option<f32>,
    ) -> Option<(u32, f32)> {
        if !valid_ray(origin, dir, max_t) || self.is_empty() {
            return None;
        }
        let prims = &self.prim_indices;
        let ray = RayBoxTest::new(origin, dir);
        self.closest_hit_slots(&ray, max_t, |slot, best_t| hit(prims[slot], best_t))
            .map(|(slot, t)| (prims[slot], t))
    }

    /// [`Bvh::cast_ray`] over leaf slots: `hit(slot, best_t)` tests primitive
    /// `prim_indices[slot]`; returns the winning slot. The ray must be valid and the
    /// BVH non-empty.
    #[inline]
    pub(crate) fn closest_hit_slots(
        &self,
        ray: &RayBoxTest,
        max_t: f32,
        mut hit: impl FnMut(usize, f32) -> Option<f32>,
    ) -> Option<(usize, f32)> {
        let (nodes, prims) = (&self.nodes[..], &self.prim_indices[..]);
        let mut best: Option<(usize, f32)> = None;
        let mut best_t = max_t;
        let mut prune_t = max_t;
        let mut stack = KeyedStack::new();
        let root = &nodes[0];
        let mut next = ray
            .hit_corners(root.lower_a(), root.upper_a(), max_t)
            .map(|_| 0u32);
        loop {
            let i = match next.take() {
                Some(i) => i,
                None => match stack.pop_within(prune_t) {
                    Some(i) => i,
                    None => return best,
                },
            };
            let node = &nodes[i as usize];
            if node.right_or_count & LEAF_BIT != 0 {
                let first = node.left_or_first as usize;
                let count = (node.right_or_count & !LEAF_BIT) as usize;
                for slot in first..first + count {
                    let Some(t) = hit(slot, best_t) else { continue };
                    let better = match best {
                        None => t <= best_t,
                        Some((bs, bt)) => t < bt || (t == bt && prims[slot] < prims[bs]),
                    };
                    if better && t >= 0.0 {
                        best = Some((slot, t));
                        best_t = t;
                        prune_t = (t * PRUNE_SLACK).min(max_t);
                    }
                }
                continue;
            }
            let (l, r) = (node.left_or_first, node.right_or_count);
            let (ln, rn) = (&nodes[l as usize], &nodes[r as usize]);
            let tl = ray.hit_corners(ln.lower_a(), ln.upper_a(), prune_t);
            let tr = ray.hit_corners(rn.lower_a(), rn.upper_a(), prune_t);
            next = match (tl, tr) {
                (Some(a), Some(b)) => {
                    if a <= b {
                        stack.push(r, b);
                        Some(l)
                    } else {
                        stack.push(l, a);
                        Some(r)
                    }
                }
                (Some(_), None) => Some(l),
                (None, Some(_)) => Some(r),
                (None, None) => None,
            };
        }
    }
}
