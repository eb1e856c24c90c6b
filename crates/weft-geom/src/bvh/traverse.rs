//! Host traversal of a [`Bvh`]: box and ray candidate iterators, and the fixed stacks
//! every traversal uses (closest hit and nearest primitive live in `closest_hit.rs` and
//! `nearest.rs`).
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

/// A fixed-size stack of nodes with a sort key each (entry distance of a ray, squared
/// distance of a point): a popped node whose key is beyond the current best is skipped
/// without reading it.
#[derive(Clone, Debug)]
pub(crate) struct KeyedStack {
    nodes: [u32; MAX_DEPTH],
    keys: [f32; MAX_DEPTH],
    len: usize,
}

impl KeyedStack {
    #[inline(always)]
    pub(crate) fn new() -> Self {
        Self {
            nodes: [0; MAX_DEPTH],
            keys: [0.0; MAX_DEPTH],
            len: 0,
        }
    }

    #[inline(always)]
    pub(crate) fn push(&mut self, node: u32, key: f32) {
        self.nodes[self.len] = node;
        self.keys[self.len] = key;
        self.len += 1;
    }

    /// Pops the most recent entry whose key is `≤ limit`, dropping the ones above it.
    #[inline(always)]
    pub(crate) fn pop_within(&mut self, limit: f32) -> Option<u32> {
        while self.len > 0 {
            self.len -= 1;
            if self.keys[self.len] <= limit {
                return Some(self.nodes[self.len]);
            }
        }
        None
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
}
