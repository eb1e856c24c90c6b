//! Host traversal of a [`Bvh`]: box and ray candidate iterators, closest ray hit and
//! nearest primitive with user callbacks.
//!
//! Every traversal uses a fixed stack of [`MAX_DEPTH`] entries — the same bound a
//! kernel uses.

use glam::Vec3;

use super::Bvh;
use super::layout::{BvhNode, MAX_DEPTH};
use crate::aabb::{Aabb, RayBoxTest};

/// A fixed-size traversal stack.
#[derive(Clone, Debug)]
pub(crate) struct Stack {
    items: [u32; MAX_DEPTH],
    len: usize,
}

impl Stack {
    pub(crate) fn with_root() -> Self {
        let mut s = Self {
            items: [0; MAX_DEPTH],
            len: 0,
        };
        s.push(0);
        s
    }

    fn empty() -> Self {
        Self {
            items: [0; MAX_DEPTH],
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, node: u32) {
        self.items[self.len] = node;
        self.len += 1;
    }

    #[inline]
    pub(crate) fn pop(&mut self) -> Option<u32> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len])
    }
}

/// Primitives of the leaves whose boxes pass a node test; shared by the iterators.
#[derive(Clone, Debug)]
struct LeafWalk<'a> {
    bvh: &'a Bvh,
    stack: Stack,
    leaf: std::ops::Range<usize>,
}

impl<'a> LeafWalk<'a> {
    fn new(bvh: &'a Bvh, active: bool) -> Self {
        Self {
            bvh,
            stack: if active {
                Stack::with_root()
            } else {
                Stack::empty()
            },
            leaf: 0..0,
        }
    }

    #[inline]
    fn next(&mut self, visit: impl Fn(&BvhNode) -> bool) -> Option<u32> {
        loop {
            if let Some(i) = self.leaf.next() {
                return Some(self.bvh.prim_indices[i]);
            }
            let node = &self.bvh.nodes[self.stack.pop()? as usize];
            if !visit(node) {
                continue;
            }
            if node.is_leaf() {
                self.leaf = node.prim_range();
            } else {
                let (l, r) = node.children();
                self.stack.push(r);
                self.stack.push(l);
            }
        }
    }
}

/// Iterator over the primitives of leaves whose boxes overlap a query box (a superset
/// of the primitives whose own boxes overlap it). From [`Bvh::aabb_candidates`].
#[derive(Clone, Debug)]
pub struct AabbCandidates<'a> {
    walk: LeafWalk<'a>,
    query: Aabb,
}

impl Iterator for AabbCandidates<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let q = self.query;
        self.walk.next(|n| n.aabb().overlaps(&q))
    }
}

/// Iterator over the primitives of leaves whose boxes a ray segment touches, in
/// traversal order (not sorted by distance). From [`Bvh::ray_candidates`].
#[derive(Clone, Debug)]
pub struct RayCandidates<'a> {
    walk: LeafWalk<'a>,
    ray: RayBoxTest,
    max_t: f32,
}

impl Iterator for RayCandidates<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let (ray, max_t) = (self.ray, self.max_t);
        self.walk.next(|n| ray.hit(&n.aabb(), max_t).is_some())
    }
}

/// Boxes are skipped when entered beyond `best_t · PRUNE_SLACK`: a primitive's hit
/// distance, computed by its own formula, can round a few ulps below the entry distance
/// of its box (at shared edges and vertices); the slack keeps such primitives in play,
/// so the closest hit does not depend on the visiting order.
const PRUNE_SLACK: f32 = 1.0 + 1.0 / 4096.0;

/// `true` when `origin + t dir` is a usable ray: finite, non-zero direction, `max_t ≥ 0`
/// (or NaN-free infinity).
pub(crate) fn valid_ray(origin: Vec3, dir: Vec3, max_t: f32) -> bool {
    origin.is_finite() && dir.is_finite() && dir != Vec3::ZERO && max_t >= 0.0
}

impl Bvh {
    /// Primitives of the leaves whose boxes overlap `query` (touching counts). A
    /// superset of the exact answer; see [`Bvh::aabb_query`].
    pub fn aabb_candidates(&self, query: Aabb) -> AabbCandidates<'_> {
        AabbCandidates {
            walk: LeafWalk::new(self, !query.is_empty()),
            query,
        }
    }

    /// Primitives whose own box (`prim_aabbs[prim]`, the boxes the BVH was built or
    /// refitted from) overlaps `query`.
    pub fn aabb_query<'a>(
        &'a self,
        query: Aabb,
        prim_aabbs: &'a [Aabb],
    ) -> impl Iterator<Item = u32> + 'a {
        self.aabb_candidates(query)
            .filter(move |&p| prim_aabbs[p as usize].overlaps(&query))
    }

    /// Primitives of the leaves whose boxes the segment `origin + t dir`, `0 ≤ t ≤
    /// max_t`, touches. Empty for a zero or non-finite direction, a non-finite origin,
    /// or a negative or NaN `max_t`.
    pub fn ray_candidates(&self, origin: Vec3, dir: Vec3, max_t: f32) -> RayCandidates<'_> {
        RayCandidates {
            walk: LeafWalk::new(self, valid_ray(origin, dir, max_t)),
            ray: RayBoxTest::new(origin, dir),
            max_t,
        }
    }

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
        let ray = RayBoxTest::new(origin, dir);
        let mut best: Option<(u32, f32)> = None;
        let mut best_t = max_t;
        let mut prune_t = max_t;
        let mut stack = Stack::empty();
        let mut next = ray.hit(&self.nodes[0].aabb(), max_t).map(|_| 0u32);
        loop {
            let i = match next.take() {
                Some(i) => i,
                None => {
                    let Some(i) = stack.pop() else { return best };
                    // Re-check against the best hit found since it was pushed.
                    if ray.hit(&self.nodes[i as usize].aabb(), prune_t).is_none() {
                        continue;
                    }
                    i
                }
            };
            let node = &self.nodes[i as usize];
            if node.is_leaf() {
                for &p in &self.prim_indices[node.prim_range()] {
                    let Some(t) = hit(p, best_t) else { continue };
                    let better = match best {
                        None => t <= best_t,
                        Some((bp, bt)) => t < bt || (t == bt && p < bp),
                    };
                    if better && t >= 0.0 {
                        best = Some((p, t));
                        best_t = t;
                        prune_t = (t * PRUNE_SLACK).min(max_t);
                    }
                }
                continue;
            }
            let (l, r) = node.children();
            let tl = ray.hit(&self.nodes[l as usize].aabb(), prune_t);
            let tr = ray.hit(&self.nodes[r as usize].aabb(), prune_t);
            next = match (tl, tr) {
                (Some(a), Some(b)) => {
                    let (near, far) = if a <= b { (l, r) } else { (r, l) };
                    stack.push(far);
                    Some(near)
                }
                (Some(_), None) => Some(l),
                (None, Some(_)) => Some(r),
                (None, None) => None,
            };
        }
    }

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
        if !point.is_finite() || max_dist.is_nan() || max_dist < 0.0 || self.is_empty() {
            return None;
        }
        let mut best: Option<(u32, f32)> = None;
        let mut best_d2 = max_dist * max_dist;
        let mut prune_d2 = best_d2;
        let mut stack = Stack::empty();
        let root = self.nodes[0].aabb().distance_squared(point);
        let mut next = (root <= best_d2).then_some(0u32);
        loop {
            let i = match next.take() {
                Some(i) => i,
                None => {
                    let Some(i) = stack.pop() else { return best };
                    // Re-check against the best distance found since it was pushed.
                    if self.nodes[i as usize].aabb().distance_squared(point) > prune_d2 {
                        continue;
                    }
                    i
                }
            };
            let node = &self.nodes[i as usize];
            if node.is_leaf() {
                for &p in &self.prim_indices[node.prim_range()] {
                    let d2 = dist_sq(p);
                    let better = match best {
                        None => d2 <= best_d2,
                        Some((bp, bd)) => d2 < bd || (d2 == bd && p < bp),
                    };
                    if better {
                        best = Some((p, d2));
                        best_d2 = d2;
                        prune_d2 = (d2 * PRUNE_SLACK).min(max_dist * max_dist);
                    }
                }
                continue;
            }
            let (l, r) = node.children();
            let dl = self.nodes[l as usize].aabb().distance_squared(point);
            let dr = self.nodes[r as usize].aabb().distance_squared(point);
            let (near, dn, far, df) = if dl <= dr {
                (l, dl, r, dr)
            } else {
                (r, dr, l, dl)
            };
            if df <= prune_d2 {
                stack.push(far);
            }
            if dn <= prune_d2 {
                next = Some(near);
            }
        }
    }
}
