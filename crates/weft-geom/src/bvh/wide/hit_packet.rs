//! Closest-hit search for a packet of coherent rays in one traversal.
//!
//! Rays through neighbouring pixels of a camera enter nearly the same nodes and leaves.
//! A packet walks the tree once: each stack entry carries the set of the packet's rays
//! that need it, a node visit runs the slab test of its four lanes for each of those
//! rays (with that ray's own pruning distance) and pushes a lane for the rays that
//! enter it, keyed by the nearest entry among them. Node loads, stack operations and
//! their branches — and, in the caller's leaf callback, the gathering of a leaf's
//! triangles — are shared; the box tests and the per-ray pruning are exactly those of
//! [`WideBvh::closest_hit_slots`], so every ray gets the same answer as alone.

use glam::Vec4;

use super::{Entry, HitSearch, LEAF_REF, LaneStack, WideBvh};
use crate::aabb::RayBoxTest;

/// Most rays in a packet.
pub(crate) const RAY_PACKET: usize = 16;

/// A set of a packet's rays, as stack entries carry it: ray `i` is bit `4 i`, so a
/// node visit gathers the rays that enter each of its four lanes with one shift.
const SPREAD: u64 = 0x1111_1111_1111_1111;

const _: () = assert!(
    RAY_PACKET <= 16 && RAY_PACKET.is_power_of_two(),
    "a packet's rays fit a spread u64 mask"
);

/// A set of the rays of a [`RayPacket`] (the ones a leaf is offered to).
#[derive(Clone, Copy, Debug)]
pub(crate) struct RaySet(u64);

impl Iterator for RaySet {
    type Item = usize;

    /// The next ray index, in increasing order.
    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let i = (self.0.trailing_zeros() / 4) as usize & (RAY_PACKET - 1);
        self.0 &= self.0 - 1;
        Some(i)
    }
}

/// The rays of a packet and, after [`WideBvh::closest_hit_packet`], their answers.
pub(crate) struct RayPacket<'a> {
    /// Per ray: origin and reciprocal direction, each component splat over the lanes.
    origin: [[Vec4; 3]; RAY_PACKET],
    inv_dir: [[Vec4; 3]; RAY_PACKET],
    /// Per ray: the closest hit found and the pruning distance.
    search: [HitSearch<'a>; RAY_PACKET],
    len: usize,
    prims: &'a [u32],
}

impl<'a> RayPacket<'a> {
    /// An empty packet over a BVH whose `prim_indices` are `prims` (for ties).
    pub(crate) fn new(prims: &'a [u32]) -> Self {
        Self {
            origin: [[Vec4::ZERO; 3]; RAY_PACKET],
            inv_dir: [[Vec4::ZERO; 3]; RAY_PACKET],
            search: [HitSearch::new(0.0, prims); RAY_PACKET],
            len: 0,
            prims,
        }
    }

    /// Number of rays.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Removes all rays.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
    }

    /// Adds the ray of `boxes` with hits up to `max_t`. The packet must not be full and
    /// the ray must take the branch-free slab test ([`RayBoxTest::is_finite`]); others
    /// go through [`WideBvh::closest_hit_slots`] alone.
    pub(crate) fn push(&mut self, boxes: &RayBoxTest, max_t: f32) {
        assert!(self.len < RAY_PACKET && boxes.is_finite());
        let (o, inv) = (boxes.origin(), boxes.inv_dir());
        self.origin[self.len] = [o.x, o.y, o.z].map(Vec4::splat);
        self.inv_dir[self.len] = [inv.x, inv.y, inv.z].map(Vec4::splat);
        self.search[self.len] = HitSearch::new(max_t, self.prims);
        self.len += 1;
    }

    /// Ray `i`'s answer: the closest `(slot, t)` (after the search).
    pub(crate) fn result(&self, i: usize) -> Option<(usize, f32)> {
        assert!(i < self.len);
        self.search[i].best
    }

    /// The largest pruning distance of the rays.
    #[inline(always)]
    fn max_prune(&self) -> f32 {
        self.search[..self.len]
            .iter()
            .fold(f32::NEG_INFINITY, |m, s| m.max(s.prune_t))
    }
}

impl WideBvh {
    /// [`WideBvh::closest_hit_slots`] for every ray of `packet` in one traversal:
    /// `leaf(first, count, ordinal, rays, searches)` tests the primitives in leaf slots
    /// `first..first + count` against each ray `i` of `rays` and offers its hits to
    /// `searches[i]`; the answers are left in `packet`.
    #[inline]
    pub(crate) fn closest_hit_packet<'a>(
        &self,
        packet: &mut RayPacket<'a>,
        prefetch_leaf: impl Fn(usize, usize, u32),
        mut leaf: impl FnMut(usize, usize, u32, RaySet, &mut [HitSearch<'a>]),
    ) {
        if self.nodes.is_empty() || packet.len == 0 {
            return;
        }
        let mut stack = LaneStack::<u64>::new();
        let mut max_prune = packet.max_prune();
        let mut next = Some(Entry {
            key: 0.0,
            item: 0,
            extra: SPREAD >> (4 * (RAY_PACKET - packet.len)),
        });
        loop {
            let e = match next.take() {
                Some(e) => e,
                None => match stack.pop_within(max_prune) {
                    Some(e) => e,
                    None => return,
                },
            };
            if e.item & LEAF_REF != 0 {
                let (first, count, ordinal) = self.leaf(e.item);
                leaf(
                    first,
                    count,
                    ordinal,
                    RaySet(e.extra),
                    &mut packet.search[..packet.len],
                );
                max_prune = packet.max_prune();
                continue;
            }
            let node = &self.nodes[e.item as usize];
            let mut keys = Vec4::INFINITY;
            // Bit 4 i + lane: ray i enters the lane.
            let mut needs = 0u64;
            for i in RaySet(e.extra) {
                // The slab test of `closest_hit_slots`, so the same results.
                let (enters, t_near) = node.slabs(
                    packet.origin[i],
                    packet.inv_dir[i],
                    packet.search[i].prune_t,
                );
                keys = Vec4::select(enters, keys.min(t_near), keys);
                needs |= (enters.bitmask() as u64) << (4 * i);
            }
            let lane_rays: [u64; 4] = std::array::from_fn(|lane| needs >> lane & SPREAD);
            let mask = lane_rays
                .iter()
                .enumerate()
                .fold(0, |m, (lane, &set)| m | ((set != 0) as u32) << lane)
                & node.used();
            next = stack.push_sorted(
                &self.nodes,
                e.item,
                mask,
                keys.to_array(),
                lane_rays,
                &prefetch_leaf,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{boxes, bvhs, each_hit};
    use super::*;
    use glam::Vec3;

    /// Box "primitives" hit at their entry distance: every ray of a packet gets what
    /// [`WideBvh::closest_hit_slots`] gives it alone, for packets of 1 to
    /// [`RAY_PACKET`] rays from one origin (a camera) and from scattered origins.
    #[test]
    fn packets_equal_single_rays() {
        let mut r = crate::test_rng::uniform(0x5151_7777, -1.0, 2.0);
        let mut hits = 0;
        for bvh in bvhs() {
            let prims = bvh.prim_indices();
            let prim_boxes = boxes(bvh.num_prims());
            let wide = WideBvh::new(&bvh);
            for round in 0..60 {
                let max_t = if round % 3 == 0 {
                    r().abs()
                } else {
                    f32::INFINITY
                };
                let eye = Vec3::new(r(), r(), r()) * 2.0;
                // Aimed at a primitive box (so many rays hit), or anywhere.
                let target = if round % 4 == 3 {
                    Vec3::new(r(), r(), r())
                } else {
                    let pick = (r().abs() * 1e3) as usize % prim_boxes.len();
                    prim_boxes[pick].center()
                };
                let towards = target - eye;
                let spread = [0.0, 1e-3, 0.05, 1.0][round % 4];
                let n = 1 + round % RAY_PACKET;
                let rays: Vec<RayBoxTest> = (0..n)
                    .map(|_| {
                        let o = if round % 2 == 0 {
                            eye
                        } else {
                            eye + Vec3::new(r(), r(), r()) * spread
                        };
                        RayBoxTest::new(o, towards + Vec3::new(r(), r(), r()) * spread)
                    })
                    .collect();
                let alone: Vec<_> = rays
                    .iter()
                    .map(|ray| {
                        let test = |slot: usize, best: f32| {
                            ray.hit(&prim_boxes[prims[slot] as usize], best)
                        };
                        wide.closest_hit_slots(ray, max_t, prims, |_, _, _| {}, each_hit(test))
                    })
                    .collect();
                let mut packet = RayPacket::new(prims);
                for ray in &rays {
                    packet.push(ray, max_t);
                }
                wide.closest_hit_packet(
                    &mut packet,
                    |_, _, _| {},
                    |first, count, _, set, s| {
                        for i in set {
                            for slot in first..first + count {
                                let b = &prim_boxes[prims[slot] as usize];
                                if let Some(t) = rays[i].hit(b, s[i].best_t()) {
                                    s[i].offer(slot, t);
                                }
                            }
                        }
                    },
                );
                assert_eq!(packet.len(), n);
                for (i, want) in alone.iter().enumerate() {
                    assert_eq!(packet.result(i), *want, "round {round}, ray {i}");
                }
                hits += alone.iter().filter(|a| a.is_some()).count();
            }
        }
        assert!(hits > 1000, "{hits} hits");
    }
}
