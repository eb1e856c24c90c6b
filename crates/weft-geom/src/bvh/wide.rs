//! A host-only 4-wide BVH derived from the binary one, for the host queries.
//!
//! The binary layout ([`super::layout`]) is what kernels traverse and is unchanged; this
//! is extra data a [`MeshBvh`](crate::MeshBvh) keeps beside it. Each [`Node4`] holds the
//! boxes of up to four children of the binary tree as structure-of-arrays lanes, so one
//! node visit tests four boxes with one SIMD pass over 128 contiguous bytes (two cache
//! lines) instead of two dependent 32-byte loads per binary level.
//!
//! The tree is made by collapsing the binary tree from the root: a node's lanes start as
//! its two children, and the inner lane with the largest surface area is replaced by its
//! own two children until there are four lanes or only leaves. Lanes are binary nodes, so
//! the boxes are exactly the binary ones, the leaves are the binary leaves (same slots of
//! `prim_indices`), and a refit copies the refitted binary boxes.
//!
//! The traversals are the binary ones ([`Bvh::closest_hit_slots`], [`Bvh::nearest_slots`])
//! with four children per step: the same conservative box tests and pruning with the same
//! slack, children visited nearest first, ties broken by primitive index — so they return
//! the same primitive and the same distance.

use std::mem::MaybeUninit;

use glam::{Vec3, Vec4};
use rayon::prelude::*;

use super::Bvh;
use super::closest_hit::PRUNE_SLACK;
use super::layout::BvhNode;
use crate::aabb::{Aabb, RayBoxTest, SLAB_FAR_SCALE};

mod hit_packet;
mod nearest_packet;

pub(crate) use hit_packet::{RAY_PACKET, RayPacket};
pub(crate) use nearest_packet::{PACKET, PacketSearch};

/// `count` of an unused lane.
const EMPTY: u32 = u32::MAX;
/// Leaf ordinal stored for leaves past the 2²⁵ that a lane can name (they get no
/// per-leaf bound).
pub(crate) const NO_ORDINAL: u32 = (1 << 25) - 1;
/// Bits of a leaf lane's `count` that hold the primitive count (leaves hold at most 64).
const COUNT_MASK: u32 = 127;
/// Stack capacity: a visit pops one entry and pushes at most four, and the tree is at most
/// [`super::MAX_DEPTH`] levels deep (the nearest entry is popped at once: 3 per level).
const STACK: usize = 3 * super::MAX_DEPTH + 1;

/// Four children's boxes as lanes, and what each lane is.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Node4 {
    /// Box minima: x, y, z components of the four lanes.
    lower: [Vec4; 3],
    /// Box maxima.
    upper: [Vec4; 3],
    /// Inner lane: index of its `Node4`. Leaf lane: first slot in `prim_indices`.
    child: [u32; 4],
    /// 0 for an inner lane, [`EMPTY`] for none; a leaf lane: its ordinal (index in
    /// [`WideBvh::leaves`], [`NO_ORDINAL`] past 2²⁵ leaves) << 7 | its primitive count.
    count: [u32; 4],
}

impl Node4 {
    /// The slab test of the ray with origin `o` and inverse direction `inv`
    /// (components splatted over the lanes) against the four boxes: which lanes it
    /// enters within `prune_t`, and where it enters each (clamped to 0). The one
    /// lane-wise form of `RayBoxTest::hit_corners`'s fast path, so single rays and
    /// packets give the same results.
    #[inline(always)]
    fn slabs(&self, o: [Vec4; 3], inv: [Vec4; 3], prune_t: f32) -> (glam::BVec4A, Vec4) {
        let [ox, oy, oz] = o;
        let [ix, iy, iz] = inv;
        let x0 = (self.lower[0] - ox) * ix;
        let x1 = (self.upper[0] - ox) * ix;
        let y0 = (self.lower[1] - oy) * iy;
        let y1 = (self.upper[1] - oy) * iy;
        let z0 = (self.lower[2] - oz) * iz;
        let z1 = (self.upper[2] - oz) * iz;
        let t_near = x0.min(x1).max(y0.min(y1)).max(z0.min(z1)).max(Vec4::ZERO);
        let t_far =
            (x0.max(x1).min(y0.max(y1)).min(z0.max(z1)) * SLAB_FAR_SCALE).min(Vec4::splat(prune_t));
        (t_near.cmple(t_far), t_near)
    }
}

impl Node4 {
    const UNUSED: Node4 = Node4 {
        lower: [Vec4::ZERO; 3],
        upper: [Vec4::ZERO; 3],
        child: [0; 4],
        count: [EMPTY; 4],
    };

    fn set_box(&mut self, lane: usize, b: Aabb) {
        for axis in 0..3 {
            self.lower[axis][lane] = b.lower[axis];
            self.upper[axis][lane] = b.upper[axis];
        }
    }

    /// Squared distances from the point `(px, py, pz)` (each component splat) to the
    /// four lanes' boxes (0 inside).
    #[inline(always)]
    fn distance_squared(&self, px: Vec4, py: Vec4, pz: Vec4) -> Vec4 {
        let dx = (self.lower[0] - px).max(px - self.upper[0]).max(Vec4::ZERO);
        let dy = (self.lower[1] - py).max(py - self.upper[1]).max(Vec4::ZERO);
        let dz = (self.lower[2] - pz).max(pz - self.upper[2]).max(Vec4::ZERO);
        dx * dx + dy * dy + dz * dz
    }

    /// Bit `i` set when lane `i` is used.
    #[inline(always)]
    fn used(&self) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{
                __m128i, _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps,
                _mm_set1_epi32,
            };
            // SAFETY: SSE2 is part of x86_64, and `count` is 16 readable bytes. One compare
            // of the four counts (the scalar form below took ~20 instructions per visit).
            unsafe {
                let count = _mm_loadu_si128(self.count.as_ptr() as *const __m128i);
                let empty = _mm_cmpeq_epi32(count, _mm_set1_epi32(EMPTY as i32));
                (!_mm_movemask_ps(_mm_castsi128_ps(empty)) & 15) as u32
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.used_scalar()
        }
    }

    /// [`Node4::used`] one lane at a time.
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    fn used_scalar(&self) -> u32 {
        (self.count[0] != EMPTY) as u32
            | ((self.count[1] != EMPTY) as u32) << 1
            | ((self.count[2] != EMPTY) as u32) << 2
            | ((self.count[3] != EMPTY) as u32) << 3
    }
}

/// A 4-wide BVH over the same leaves as a binary [`Bvh`] (see the module documentation).
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct WideBvh {
    nodes: Vec<Node4>,
    /// Per node and lane, the binary node it came from (for refit).
    source: Vec<[u32; 4]>,
    /// `(first slot, count)` of every leaf, by ordinal (depth-first order).
    leaves: Vec<[u32; 2]>,
}

/// A traversal stack entry: what to visit and its sort key (entry distance of a ray,
/// squared distance of a point), with `extra` data of the traversal (none for one query,
/// which of its points need the lane for a packet).
#[derive(Clone, Copy)]
struct Entry<T: Copy = ()> {
    key: f32,
    /// An inner lane: index of its `Node4`. A leaf lane: [`LEAF_REF`] | node << 2 | lane
    /// (the node was just visited, so reading its lane again is a cache hit).
    item: u32,
    extra: T,
}

/// Marks a leaf lane in [`Entry::item`].
const LEAF_REF: u32 = 1 << 31;

/// The closest hit found so far by a ray traversal ([`WideBvh::closest_hit_slots`]),
/// which a leaf's primitives are offered to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HitSearch<'a> {
    best: Option<(usize, f32)>,
    best_t: f32,
    prune_t: f32,
    max_t: f32,
    prims: &'a [u32],
}

impl<'a> HitSearch<'a> {
    fn new(max_t: f32, prims: &'a [u32]) -> Self {
        Self {
            best: None,
            best_t: max_t,
            prune_t: max_t,
            max_t,
            prims,
        }
    }

    /// Hits farther than this cannot win (the best `t` so far, or `max_t`).
    #[inline(always)]
    pub(crate) fn best_t(&self) -> f32 {
        self.best_t
    }

    /// Offers the hit at distance `t` of the primitive in leaf slot `slot`: it becomes
    /// the best when nearer (on equal `t`, when its primitive index is smaller).
    #[inline(always)]
    pub(crate) fn offer(&mut self, slot: usize, t: f32) {
        let better = match self.best {
            None => t <= self.best_t,
            Some((bs, bt)) => t < bt || (t == bt && self.prims[slot] < self.prims[bs]),
        };
        if better && t >= 0.0 {
            self.best = Some((slot, t));
            self.best_t = t;
            self.prune_t = (t * PRUNE_SLACK).min(self.max_t);
        }
    }
}

/// The nearest primitive found so far by a point search ([`WideBvh::nearest_slots`]),
/// which a leaf's primitives are offered to.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NearestSearch {
    best: Option<(usize, f32)>,
    prune_d2: f32,
    /// `max_dist²`.
    limit: f32,
}

impl NearestSearch {
    /// A search within `limit = max_dist²` whose answer is known to be within `upper_d2`.
    pub(crate) fn new(limit: f32, upper_d2: f32) -> Self {
        Self {
            best: None,
            prune_d2: limit.min(upper_d2),
            limit,
        }
    }

    /// Primitives farther than this squared distance cannot win.
    #[inline(always)]
    pub(crate) fn prune_d2(&self) -> f32 {
        self.prune_d2
    }

    /// The nearest `(slot, squared distance)` so far.
    pub(crate) fn best(&self) -> Option<(usize, f32)> {
        self.best
    }

    /// Offers the primitive in leaf slot `slot` at squared distance `d2` (`prims` is the
    /// BVH's `prim_indices`): it becomes the best when nearer (on a tie, when its
    /// primitive index is smaller). Returns whether it did.
    #[inline(always)]
    pub(crate) fn offer(&mut self, slot: usize, d2: f32, prims: &[u32]) -> bool {
        // Without a best yet, `prune_d2` is the limit or the caller's bound.
        let better = match self.best {
            None => d2 <= self.prune_d2,
            Some((bs, bd)) => d2 < bd || (d2 == bd && prims[slot] < prims[bs]),
        };
        if better {
            self.best = Some((slot, d2));
            self.prune_d2 = (d2 * PRUNE_SLACK).min(self.limit);
        }
        better
    }
}

/// Fixed-size stack of lanes still to visit, nearest on top.
///
/// The entries are left uninitialized: zeroing 1.5 KB per query was 5 % of the time of
/// a camera ray. Only `items[..len]` is ever read, and each of those was written.
struct LaneStack<T: Copy = ()> {
    items: [MaybeUninit<Entry<T>>; STACK],
    len: usize,
}

impl<T: Copy> LaneStack<T> {
    #[inline(always)]
    fn new() -> Self {
        Self {
            items: [const { MaybeUninit::uninit() }; STACK],
            len: 0,
        }
    }

    /// Entry `i < len`.
    #[inline(always)]
    fn get(&self, i: usize) -> Entry<T> {
        assert!(i < self.len);
        // SAFETY: `items[..len]` are initialized: `push_sorted` writes every slot below
        // the `len` it sets, and `len` only otherwise decreases.
        unsafe { self.items[i].assume_init() }
    }

    /// Pushes the lanes of node `index` set in `mask` with their `keys` and `extras`,
    /// sorted so the smallest key is on top, prefetches what they point at, and pops
    /// the top one again: the nearest lane, to visit next (`None` when `mask` is 0).
    #[inline(always)]
    fn push_sorted(
        &mut self,
        nodes: &[Node4],
        index: u32,
        mut mask: u32,
        keys: [f32; 4],
        extras: [T; 4],
        prefetch_leaf: &impl Fn(usize, usize, u32),
    ) -> Option<Entry<T>> {
        let node = &nodes[index as usize];
        if mask & mask.wrapping_sub(1) == 0 {
            // One lane or none: visit it next without a trip through the stack (and
            // without a prefetch, as it is read at once).
            if mask == 0 {
                return None;
            }
            let lane = mask.trailing_zeros() as usize;
            let item = if node.count[lane] == 0 {
                node.child[lane]
            } else {
                LEAF_REF | index << 2 | lane as u32
            };
            return Some(Entry {
                key: keys[lane],
                item,
                extra: extras[lane],
            });
        }
        let rest = mask & (mask - 1);
        if rest & (rest - 1) == 0 {
            // Two lanes: push the farther (prefetched), visit the nearer next.
            let (a, b) = (
                mask.trailing_zeros() as usize,
                rest.trailing_zeros() as usize,
            );
            // On equal keys the higher lane is visited first, as the insertion below does.
            let (near, far) = if keys[b] <= keys[a] { (b, a) } else { (a, b) };
            let item = |lane: usize| {
                if node.count[lane] == 0 {
                    node.child[lane]
                } else {
                    LEAF_REF | index << 2 | lane as u32
                }
            };
            if node.count[far] == 0 {
                prefetch_node(nodes, node.child[far]);
            } else {
                let c = node.count[far];
                prefetch_leaf(node.child[far] as usize, (c & COUNT_MASK) as usize, c >> 7);
            }
            self.items[self.len].write(Entry {
                key: keys[far],
                item: item(far),
                extra: extras[far],
            });
            self.len += 1;
            return Some(Entry {
                key: keys[near],
                item: item(near),
                extra: extras[near],
            });
        }
        let start = self.len;
        while mask != 0 {
            let lane = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            let item = if node.count[lane] == 0 {
                let child = node.child[lane];
                prefetch_node(nodes, child);
                child
            } else {
                let c = node.count[lane];
                prefetch_leaf(node.child[lane] as usize, (c & COUNT_MASK) as usize, c >> 7);
                LEAF_REF | index << 2 | lane as u32
            };
            let e = Entry {
                key: keys[lane],
                item,
                extra: extras[lane],
            };
            // Insertion into the (at most four) entries pushed so far, descending keys.
            let mut j = self.len;
            while j > start && self.get(j - 1).key < e.key {
                self.items[j] = self.items[j - 1];
                j -= 1;
            }
            self.items[j].write(e);
            self.len += 1;
        }
        if self.len == start {
            return None;
        }
        let nearest = self.get(self.len - 1);
        self.len -= 1;
        Some(nearest)
    }

    /// Pops the top entry whose key is `≤ limit`, dropping those above it.
    #[inline(always)]
    fn pop_within(&mut self, limit: f32) -> Option<Entry<T>> {
        while self.len > 0 {
            let e = self.get(self.len - 1);
            self.len -= 1;
            if e.key <= limit {
                return Some(e);
            }
        }
        None
    }
}

/// Asks the CPU to start loading the two cache lines of `nodes[index]`; no effect on
/// the program's results (and no bounds check: a prefetch never faults).
#[inline(always)]
fn prefetch_node(nodes: &[Node4], index: u32) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        const _: () = assert!(std::mem::size_of::<Node4>() == 128);
        let line = nodes.as_ptr().wrapping_add(index as usize) as *const i8;
        // SAFETY: a prefetch is a hint: it never faults and changes no program state.
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(line);
            _mm_prefetch::<_MM_HINT_T0>(line.wrapping_add(64));
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = (nodes, index);
}

/// Asks the CPU to start loading the cache lines of `values`; no effect on the
/// program's results. Measured: ~1.3× on random rays, whose node and triangle loads
/// miss the caches.
#[inline(always)]
pub(crate) fn prefetch_slice<T>(values: &[T]) {
    #[cfg(all(target_arch = "x86_64", target_feature = "sse"))]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        let bytes = std::mem::size_of_val(values);
        if bytes == 0 {
            return;
        }
        // Every cache line from the one holding the first byte to the one holding the
        // last.
        let start = values.as_ptr() as *const i8;
        let skew = start as usize % 64;
        let mut offset = 0;
        while offset < skew + bytes {
            // SAFETY: a prefetch is a hint: it never faults and changes no program
            // state. `start - skew + offset` lies on a cache line that `values` touches.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(start.wrapping_sub(skew).wrapping_add(offset)) };
            offset += 64;
        }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "sse")))]
    let _ = values;
}

impl WideBvh {
    /// Collapses `bvh` into a 4-wide tree.
    pub(crate) fn new(bvh: &Bvh) -> Self {
        let mut wide = Self::default();
        if !bvh.is_empty() {
            wide.collapse(&bvh.nodes, 0);
        }
        assert!(
            wide.nodes.len() < 1 << 29,
            "leaf references hold node indices below 2^29"
        );
        wide
    }

    /// Number of 4-wide nodes.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Appends the `Node4` for binary node `root` and its subtree; returns its index.
    fn collapse(&mut self, bin: &[BvhNode], root: u32) -> u32 {
        let node = &bin[root as usize];
        let mut lanes: Vec<u32> = if node.is_leaf() {
            vec![root]
        } else {
            let (l, r) = node.children();
            vec![l, r]
        };
        while lanes.len() < 4 {
            let widest = lanes
                .iter()
                .enumerate()
                .filter(|(_, n)| !bin[**n as usize].is_leaf())
                .max_by(|a, b| {
                    let area = |n: u32| bin[n as usize].aabb().surface_area();
                    area(*a.1).total_cmp(&area(*b.1))
                })
                .map(|(i, _)| i);
            let Some(i) = widest else { break };
            let (l, r) = bin[lanes[i] as usize].children();
            lanes[i] = l;
            lanes.insert(i + 1, r);
        }
        let index = self.nodes.len() as u32;
        self.nodes.push(Node4::UNUSED);
        self.source.push([u32::MAX; 4]);
        for (lane, &n) in lanes.iter().enumerate() {
            let b = &bin[n as usize];
            let (child, count) = if b.is_leaf() {
                let range = b.prim_range();
                let (first, count) = (range.start as u32, range.len() as u32);
                assert!(
                    (1..=COUNT_MASK).contains(&count),
                    "leaves hold 1 ..= 127 primitives"
                );
                let ordinal = (self.leaves.len() as u32).min(NO_ORDINAL);
                self.leaves.push([first, count]);
                (first, ordinal << 7 | count)
            } else {
                (self.collapse(bin, n), 0)
            };
            let node = &mut self.nodes[index as usize];
            node.set_box(lane, b.aabb());
            node.child[lane] = child;
            node.count[lane] = count;
            self.source[index as usize][lane] = n;
        }
        index
    }

    /// `(first slot, count, ordinal)` of a leaf lane stored as [`LEAF_REF`] | node << 2
    /// | lane.
    #[inline(always)]
    fn leaf(&self, item: u32) -> (usize, usize, u32) {
        let node = &self.nodes[((item & !LEAF_REF) >> 2) as usize];
        let c = node.count[(item & 3) as usize];
        let first = node.child[(item & 3) as usize] as usize;
        (first, (c & COUNT_MASK) as usize, c >> 7)
    }

    /// `(first slot, count)` of every leaf, by ordinal.
    pub(crate) fn leaves(&self) -> &[[u32; 2]] {
        &self.leaves
    }

    /// Copies the boxes of a refitted `bvh` (the one this tree was collapsed from).
    pub(crate) fn refit(&mut self, bvh: &Bvh) {
        let bin = &bvh.nodes;
        self.nodes
            .par_iter_mut()
            .zip(&self.source)
            .with_min_len(1024)
            .for_each(|(node, source)| {
                for (lane, &n) in source.iter().enumerate() {
                    if n != u32::MAX {
                        node.set_box(lane, bin[n as usize].aabb());
                    }
                }
            });
    }

    /// [`Bvh::closest_hit_slots`] on the 4-wide tree: `leaf(first, count, ordinal,
    /// search)` tests the primitives in leaf slots `first..first + count` (leaf
    /// `ordinal` of [`WideBvh::leaves`], [`NO_ORDINAL`] past 2²⁵ leaves) and offers their
    /// hits to `search` ([`HitSearch::offer`]); `prims` is the BVH's `prim_indices` (for
    /// ties). `prefetch_leaf(first, count, ordinal)` is called when a leaf is queued.
    #[inline]
    pub(crate) fn closest_hit_slots(
        &self,
        ray: &RayBoxTest,
        max_t: f32,
        prims: &[u32],
        prefetch_leaf: impl Fn(usize, usize, u32),
        mut leaf: impl FnMut(usize, usize, u32, &mut HitSearch),
    ) -> Option<(usize, f32)> {
        if self.nodes.is_empty() {
            return None;
        }
        let (o, inv) = (ray.origin(), ray.inv_dir());
        let (ox, oy, oz) = (Vec4::splat(o.x), Vec4::splat(o.y), Vec4::splat(o.z));
        let (ix, iy, iz) = (Vec4::splat(inv.x), Vec4::splat(inv.y), Vec4::splat(inv.z));
        let finite = ray.is_finite();
        let mut search = HitSearch::new(max_t, prims);
        let mut stack = LaneStack::<()>::new();
        let mut next = Some(Entry {
            key: 0.0,
            item: 0,
            extra: (),
        });
        loop {
            let e = match next.take() {
                Some(e) => e,
                None => match stack.pop_within(search.prune_t) {
                    Some(e) => e,
                    None => return search.best,
                },
            };
            if e.item & LEAF_REF != 0 {
                let (first, count, ordinal) = self.leaf(e.item);
                leaf(first, count, ordinal, &mut search);
                continue;
            }
            let prune_t = search.prune_t;
            let node = &self.nodes[e.item as usize];
            let (mask, t_near) = if finite {
                // The slab test of `RayBoxTest::hit_corners`'s fast path, lane-wise (the
                // same operations on the same values, so the same results).
                let (enters, t_near) = node.slabs([ox, oy, oz], [ix, iy, iz], prune_t);
                (enters.bitmask(), t_near.to_array())
            } else {
                let mut mask = 0;
                let mut t_near = [0.0; 4];
                for (lane, t) in t_near.iter_mut().enumerate() {
                    let lower = Vec3::new(
                        node.lower[0][lane],
                        node.lower[1][lane],
                        node.lower[2][lane],
                    );
                    let upper = Vec3::new(
                        node.upper[0][lane],
                        node.upper[1][lane],
                        node.upper[2][lane],
                    );
                    if let Some(h) = ray.hit_corners(lower.into(), upper.into(), prune_t) {
                        mask |= 1 << lane;
                        *t = h;
                    }
                }
                (mask, t_near)
            };
            let mask = mask & node.used();
            next = stack.push_sorted(&self.nodes, e.item, mask, t_near, [(); 4], &prefetch_leaf);
        }
    }

    /// [`Bvh::nearest_slots`] on the 4-wide tree: `leaf(first, count, ordinal, search)`
    /// offers the squared distances of the primitives in leaf slots `first..first +
    /// count` (leaf `ordinal`) to `search` ([`NearestSearch::offer`]; a primitive beyond
    /// [`NearestSearch::prune_d2`] cannot win and need not be offered).
    /// `leaf_bound(ordinal)` is a lower bound on the squared distance of every primitive
    /// of leaf `ordinal` (see [`WideBvh::leaves`]), tested before them; return 0 for
    /// none. `prefetch_leaf(first, count, ordinal)` is called when a leaf is queued.
    ///
    /// `upper_d2` is a squared distance that the nearest primitive is known not to
    /// exceed (`f32::INFINITY` when nothing is known, e.g. the distance to a point of
    /// the surface found by a nearby query): boxes beyond it are skipped from the start.
    /// A bound that is too small loses answers, so callers add a margin for rounding.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    pub(crate) fn nearest_slots(
        &self,
        point: Vec3,
        max_dist: f32,
        upper_d2: f32,
        prefetch_leaf: impl Fn(usize, usize, u32),
        leaf_bound: impl Fn(u32) -> f32,
        mut leaf: impl FnMut(usize, usize, u32, &mut NearestSearch),
    ) -> Option<(usize, f32)> {
        if !point.is_finite() || max_dist.is_nan() || max_dist < 0.0 || self.nodes.is_empty() {
            return None;
        }
        let (px, py, pz) = (
            Vec4::splat(point.x),
            Vec4::splat(point.y),
            Vec4::splat(point.z),
        );
        let mut search = NearestSearch::new(max_dist * max_dist, upper_d2);
        let mut stack = LaneStack::<()>::new();
        let mut next = Some(Entry {
            key: 0.0,
            item: 0,
            extra: (),
        });
        loop {
            let e = match next.take() {
                Some(e) => e,
                None => match stack.pop_within(search.prune_d2) {
                    Some(e) => e,
                    None => return search.best,
                },
            };
            if e.item & LEAF_REF != 0 {
                let (first, count, ordinal) = self.leaf(e.item);
                if ordinal != NO_ORDINAL && leaf_bound(ordinal) > search.prune_d2 {
                    continue;
                }
                leaf(first, count, ordinal, &mut search);
                continue;
            }
            let node = &self.nodes[e.item as usize];
            let d2 = node.distance_squared(px, py, pz);
            let mask = d2.cmple(Vec4::splat(search.prune_d2)).bitmask() & node.used();
            next = stack.push_sorted(
                &self.nodes,
                e.item,
                mask,
                d2.to_array(),
                [(); 4],
                &prefetch_leaf,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::BuildOptions;

    /// Deterministic boxes: small random boxes in the unit cube, plus exact duplicates.
    pub(super) fn boxes(n: usize) -> Vec<Aabb> {
        let mut s = 0x9e37_79b9u32;
        let mut r = move || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            s as f32 / u32::MAX as f32
        };
        (0..n)
            .map(|i| {
                if i % 7 == 3 {
                    return Aabb::new(Vec3::splat(0.5), Vec3::splat(0.52));
                }
                let c = Vec3::new(r(), r(), r());
                let h = Vec3::new(r(), r(), r()) * 0.03;
                Aabb::new(c - h, c + h)
            })
            .collect()
    }

    /// A leaf callback of [`WideBvh::closest_hit_slots`] that tests the leaf's slots one
    /// by one with `hit(slot, best_t)`.
    pub(super) fn each_hit(
        mut hit: impl FnMut(usize, f32) -> Option<f32>,
    ) -> impl FnMut(usize, usize, u32, &mut HitSearch) {
        move |first, count, _, search| {
            for slot in first..first + count {
                if let Some(t) = hit(slot, search.best_t()) {
                    search.offer(slot, t);
                }
            }
        }
    }

    /// A leaf callback of [`WideBvh::nearest_slots`] that offers the leaf's slots one by
    /// one at squared distance `dist(slot)`.
    pub(super) fn each_nearest(
        prims: &[u32],
        dist: impl Fn(usize) -> f32,
    ) -> impl FnMut(usize, usize, u32, &mut NearestSearch) {
        move |first, count, _, search| {
            for slot in first..first + count {
                search.offer(slot, dist(slot), prims);
            }
        }
    }

    pub(super) fn bvhs() -> Vec<Bvh> {
        let mut out = vec![];
        for n in [1, 2, 3, 5, 9, 100, 2000] {
            for leaf in [1, 4, 8] {
                let opts = BuildOptions {
                    max_leaf_size: leaf,
                    ..BuildOptions::default()
                };
                out.push(Bvh::build_with(&boxes(n), &opts).unwrap());
            }
        }
        out
    }

    #[test]
    fn collapse_covers_every_slot_once_with_the_binary_boxes() {
        for bvh in bvhs() {
            let wide = WideBvh::new(&bvh);
            let mut seen = vec![0u32; bvh.num_prims()];
            for (node, source) in wide.nodes.iter().zip(&wide.source) {
                assert_eq!(node.used(), node.used_scalar());
                assert!(node.used() != 0 && node.used() & (node.used() + 1) == 0);
                for (lane, &src) in source.iter().enumerate() {
                    if node.count[lane] == EMPTY {
                        continue;
                    }
                    let b = &bvh.nodes[src as usize];
                    let lower = Vec3::new(
                        node.lower[0][lane],
                        node.lower[1][lane],
                        node.lower[2][lane],
                    );
                    let upper = Vec3::new(
                        node.upper[0][lane],
                        node.upper[1][lane],
                        node.upper[2][lane],
                    );
                    assert_eq!(Aabb::new(lower, upper), b.aabb());
                    if node.count[lane] > 0 {
                        let (c, ordinal) = (node.count[lane] & COUNT_MASK, node.count[lane] >> 7);
                        let f = node.child[lane];
                        assert_eq!(b.prim_range(), f as usize..(f + c) as usize);
                        assert_eq!(wide.leaves()[ordinal as usize], [f, c]);
                        for slot in b.prim_range() {
                            seen[slot] += 1;
                        }
                    } else {
                        assert!((node.child[lane] as usize) < wide.len());
                    }
                }
            }
            assert!(seen.iter().all(|&c| c == 1));
            if bvh.num_prims() >= 100 {
                assert!(
                    wide.len() * 2 < bvh.nodes.len(),
                    "{} 4-wide nodes",
                    wide.len()
                );
            }
        }
        assert_eq!(WideBvh::new(&Bvh::build(&[])).len(), 0);
    }

    /// Box "primitives": a ray hits a box at its entry distance, a point is at its box
    /// distance — the wide traversal must give the binary one's answer exactly.
    #[test]
    fn queries_equal_the_binary_traversal() {
        let mut r = crate::test_rng::uniform(0x0123_4567, -1.0, 2.0);
        for bvh in bvhs() {
            let prims = bvh.prim_indices();
            let n = bvh.num_prims();
            let prim_boxes = boxes(n);
            let wide = WideBvh::new(&bvh);
            for i in 0..300 {
                let o = Vec3::new(r(), r(), r());
                let mut d = Vec3::new(r(), r(), r());
                if i % 5 == 0 {
                    d = [Vec3::X, -Vec3::Y, Vec3::Z][i % 3]; // axis-parallel
                }
                let max_t = if i % 4 == 0 { r().abs() } else { f32::INFINITY };
                let ray = RayBoxTest::new(o, d);
                let test =
                    |slot: usize, best: f32| ray.hit(&prim_boxes[prims[slot] as usize], best);
                let want = bvh.closest_hit_slots(&ray, max_t, test);
                let got = wide.closest_hit_slots(&ray, max_t, prims, |_, _, _| {}, each_hit(test));
                assert_eq!(got, want, "ray {i}");
                let dist = |slot: usize| prim_boxes[prims[slot] as usize].distance_squared(o);
                let max_d = if i % 3 == 0 {
                    r().abs() * 0.2
                } else {
                    f32::INFINITY
                };
                let want = bvh.nearest_slots(o, max_d, |slot, _| dist(slot));
                let got = wide.nearest_slots(
                    o,
                    max_d,
                    f32::INFINITY,
                    |_, _, _| {},
                    |_| 0.0,
                    each_nearest(prims, dist),
                );
                assert_eq!(got, want, "point {i}");
            }
        }
    }
}
