//! Nearest primitive to a point: near-child-first traversal by squared box distance,
//! pruned by the best squared distance so far.

use glam::{Vec3, Vec3A};

use super::Bvh;
use super::closest_hit::PRUNE_SLACK;
use super::layout::{BvhNode, LEAF_BIT};
use super::traverse::KeyedStack;

/// Squared distance from `p` to a node's box (0 inside).
#[inline(always)]
fn box_distance_squared(n: &BvhNode, p: Vec3A) -> f32 {
    let d = (n.lower_a() - p).max(p - n.upper_a()).max(Vec3A::ZERO);
    d.length_squared()
}

impl Bvh {
    /// Nearest primitive to `point` within `max_dist`: `dist_sq(prim)` returns the
    /// squared distance to a primitive; the smallest wins (ties: smaller index). Boxes
    /// farther than the best distance (plus a relative slack of 2⁻¹² for rounding) are
    /// skipped; nearer children are visited first.
    /// Returns `(prim, squared distance)`.
    pub fn nearest(
        &self,
        point: Vec3,
        max_dist: f32,
        mut dist_sq: impl FnMut(u32) -> f32,
    ) -> Option<(u32, f32)> {
        let prims = &self.prim_indices;
        self.nearest_slots(point, max_dist, |slot, _| dist_sq(prims[slot]))
            .map(|(slot, d2)| (prims[slot], d2))
    }

    /// [`Bvh::nearest`] over leaf slots: `dist_sq(slot, best_d2)` returns the squared
    /// distance to primitive `prim_indices[slot]` (it may return any value above
    /// `best_d2` for a primitive that cannot win); returns the winning slot.
    #[inline]
    pub(crate) fn nearest_slots(
        &self,
        point: Vec3,
        max_dist: f32,
        mut dist_sq: impl FnMut(usize, f32) -> f32,
    ) -> Option<(usize, f32)> {
        if !point.is_finite() || max_dist.is_nan() || max_dist < 0.0 || self.is_empty() {
            return None;
        }
        let (nodes, prims) = (&self.nodes[..], &self.prim_indices[..]);
        let p = Vec3A::from(point);
        let limit = max_dist * max_dist;
        let mut best: Option<(usize, f32)> = None;
        let mut best_d2 = limit;
        let mut prune_d2 = limit;
        let mut stack = KeyedStack::new();
        let mut next = (box_distance_squared(&nodes[0], p) <= limit).then_some(0u32);
        loop {
            let i = match next.take() {
                Some(i) => i,
                None => match stack.pop_within(prune_d2) {
                    Some(i) => i,
                    None => return best,
                },
            };
            let node = &nodes[i as usize];
            if node.right_or_count & LEAF_BIT != 0 {
                let first = node.left_or_first as usize;
                let count = (node.right_or_count & !LEAF_BIT) as usize;
                for slot in first..first + count {
                    let d2 = dist_sq(slot, best_d2);
                    let better = match best {
                        None => d2 <= best_d2,
                        Some((bs, bd)) => d2 < bd || (d2 == bd && prims[slot] < prims[bs]),
                    };
                    if better {
                        best = Some((slot, d2));
                        best_d2 = d2;
                        prune_d2 = (d2 * PRUNE_SLACK).min(limit);
                    }
                }
                continue;
            }
            let (l, r) = (node.left_or_first, node.right_or_count);
            let dl = box_distance_squared(&nodes[l as usize], p);
            let dr = box_distance_squared(&nodes[r as usize], p);
            let (near, dn, far, df) = if dl <= dr {
                (l, dl, r, dr)
            } else {
                (r, dr, l, dl)
            };
            if df <= prune_d2 {
                stack.push(far, df);
            }
            if dn <= prune_d2 {
                next = Some(near);
            }
        }
    }
}
