//! Nearest-primitive search for a packet of nearby points in one traversal.
//!
//! Points that lie close together (consecutive on a Morton curve) need nearly the same
//! nodes. A packet walks the tree once: each stack entry carries the set of the packet's
//! points that need it, a node visit tests the four lanes' boxes against each of those
//! points (with that point's own pruning distance) and pushes a lane for the points
//! that need it, keyed by the nearest of them. Loads, stack operations and their
//! branches are shared; the box tests and the per-point pruning are exactly those of
//! [`WideBvh::nearest_slots`], so every point gets the same answer as alone.

use glam::{Vec3, Vec4};

use super::{Entry, LEAF_REF, LaneStack, NO_ORDINAL, NearestSearch, WideBvh};

/// Most points in a packet.
pub(crate) const PACKET: usize = 16;

/// The points of a packet and, after [`WideBvh::nearest_slots_packet`], their answers.
pub(crate) struct PacketSearch {
    points: [Vec3; PACKET],
    /// The points four at a time as lanes: `lanes[q][axis]` holds coordinate `axis` of
    /// points `4 q ..= 4 q + 3` (zeros past `len`).
    lanes: [[Vec4; 3]; PACKET / 4],
    len: usize,
    /// Per point: the nearest primitive found and the pruning distance.
    search: [NearestSearch; PACKET],
    /// `max_dist²`.
    limit: f32,
}

impl PacketSearch {
    /// An empty packet for queries within `max_dist` (non-negative, not NaN).
    pub(crate) fn new(max_dist: f32) -> Self {
        debug_assert!(max_dist >= 0.0);
        Self {
            points: [Vec3::ZERO; PACKET],
            lanes: [[Vec4::ZERO; 3]; PACKET / 4],
            len: 0,
            search: [NearestSearch::new(0.0, 0.0); PACKET],
            limit: max_dist * max_dist,
        }
    }

    /// Number of points.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Adds the finite point `p`, whose nearest primitive is known to be within
    /// `upper_d2` (`f32::INFINITY` for nothing known; see
    /// [`WideBvh::nearest_slots`]). The packet must not be full.
    pub(crate) fn push(&mut self, p: Vec3, upper_d2: f32) {
        assert!(self.len < PACKET && p.is_finite());
        self.points[self.len] = p;
        for axis in 0..3 {
            self.lanes[self.len / 4][axis][self.len % 4] = p[axis];
        }
        self.search[self.len] = NearestSearch::new(self.limit, upper_d2);
        self.len += 1;
    }

    /// Point `i` and its answer: the nearest `(slot, squared distance)` within the
    /// limit (after the search).
    pub(crate) fn result(&self, i: usize) -> (Vec3, Option<(usize, f32)>) {
        assert!(i < self.len);
        (self.points[i], self.search[i].best())
    }

    /// The points of the spread set `points` that a leaf may hold a winner for: those
    /// whose lower bound from `bound(lanes)` (four points' bounds at once, lanes as in
    /// `PacketSearch::lanes`) is not above their pruning distance.
    #[inline(always)]
    fn within_leaf_bound(&self, points: u64, bound: impl Fn(&[Vec4; 3]) -> Vec4) -> u64 {
        let mut keep = 0;
        for (q, lanes) in self.lanes.iter().enumerate() {
            if points >> (16 * q) & 0xffff == 0 {
                continue;
            }
            let s = &self.search[4 * q..4 * q + 4];
            let prune = Vec4::new(
                s[0].prune_d2(),
                s[1].prune_d2(),
                s[2].prune_d2(),
                s[3].prune_d2(),
            );
            // As `!(bound > prune)` one point at a time (a NaN bound keeps the point).
            let far = bound(lanes).cmpgt(prune).bitmask() as u64;
            let near = !far & 15;
            let spread = (near & 1) | (near & 2) << 3 | (near & 4) << 6 | (near & 8) << 9;
            keep |= spread << (16 * q);
        }
        points & keep
    }

    /// The largest pruning distance of the points.
    #[inline(always)]
    fn max_prune(&self) -> f32 {
        self.search[..self.len]
            .iter()
            .fold(f32::NEG_INFINITY, |m, s| m.max(s.prune_d2()))
    }
}

impl WideBvh {
    /// [`WideBvh::nearest_slots`] for every point of `search` in one traversal: the
    /// same callbacks, given the point they are for (`leaf(first, count, ordinal, point,
    /// point_search)`), except that `leaf_bound(ordinal, lanes)` bounds four points at
    /// once (`lanes[axis]` holds coordinate `axis` of the four); the answers are left
    /// in `search`.
    #[inline(always)]
    pub(crate) fn nearest_slots_packet(
        &self,
        search: &mut PacketSearch,
        prefetch_leaf: impl Fn(usize, usize, u32),
        leaf_bound: impl Fn(u32, &[Vec4; 3]) -> Vec4,
        leaf: impl FnMut(usize, usize, u32, Vec3, &mut NearestSearch),
    ) {
        #[cfg(target_arch = "x86_64")]
        if is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe {
                self.nearest_slots_packet_avx2(search, prefetch_leaf, leaf_bound, leaf)
            };
        }
        self.packet_search::<false>(search, prefetch_leaf, leaf_bound, leaf)
    }

    /// [`WideBvh::nearest_slots_packet`] compiled for AVX2: two points' box tests per
    /// eight-lane pass.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn nearest_slots_packet_avx2(
        &self,
        search: &mut PacketSearch,
        prefetch_leaf: impl Fn(usize, usize, u32),
        leaf_bound: impl Fn(u32, &[Vec4; 3]) -> Vec4,
        leaf: impl FnMut(usize, usize, u32, Vec3, &mut NearestSearch),
    ) {
        self.packet_search::<true>(search, prefetch_leaf, leaf_bound, leaf)
    }

    /// The traversal of [`WideBvh::nearest_slots_packet`]; `AVX2` only where the caller
    /// is compiled for it.
    #[inline(always)]
    fn packet_search<const AVX2: bool>(
        &self,
        search: &mut PacketSearch,
        prefetch_leaf: impl Fn(usize, usize, u32),
        leaf_bound: impl Fn(u32, &[Vec4; 3]) -> Vec4,
        mut leaf: impl FnMut(usize, usize, u32, Vec3, &mut NearestSearch),
    ) {
        if self.nodes.is_empty() || search.len == 0 {
            return;
        }
        let splats: [[Vec4; 3]; PACKET] =
            std::array::from_fn(|i| search.points[i].to_array().map(Vec4::splat));
        let mut stack = LaneStack::<u64>::new();
        let mut max_prune = search.max_prune();
        let mut next = Some(Entry {
            key: 0.0,
            item: 0,
            extra: SPREAD >> (4 * (PACKET - search.len)),
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
                let mut points = e.extra;
                if ordinal != NO_ORDINAL {
                    points &= search.within_leaf_bound(points, |lanes| leaf_bound(ordinal, lanes));
                }
                let mut improved = false;
                while points != 0 {
                    let i = point_of(points);
                    points &= points - 1;
                    let p = search.points[i];
                    let point_search = &mut search.search[i];
                    let prune_d2 = point_search.prune_d2();
                    leaf(first, count, ordinal, p, point_search);
                    improved |= point_search.prune_d2() != prune_d2;
                }
                if improved {
                    max_prune = search.max_prune();
                }
                continue;
            }
            let node = &self.nodes[e.item as usize];
            let mut keys = Vec4::INFINITY;
            // Bit 4 i + lane: point i needs the lane.
            let mut needs = 0u64;
            let mut points = e.extra;
            #[cfg(target_arch = "x86_64")]
            if AVX2 {
                // SAFETY: `AVX2` is only set in a function compiled for AVX2.
                (keys, needs) = unsafe { pair_tests(node, &splats, &search.search, points) };
                points = 0;
            }
            while points != 0 {
                let i = point_of(points);
                points &= points - 1;
                let [px, py, pz] = splats[i];
                let d2 = node.distance_squared(px, py, pz);
                let near = d2.cmple(Vec4::splat(search.search[i].prune_d2()));
                keys = Vec4::select(near, keys.min(d2), keys);
                needs |= (near.bitmask() as u64) << (4 * i);
            }
            let lane_points: [u64; 4] = std::array::from_fn(|lane| needs >> lane & SPREAD);
            let mask = lane_points
                .iter()
                .enumerate()
                .fold(0, |m, (lane, &set)| m | ((set != 0) as u32) << lane)
                & node.used();
            next = stack.push_sorted(
                &self.nodes,
                e.item,
                mask,
                keys.to_array(),
                lane_points,
                &prefetch_leaf,
            );
        }
    }
}

/// The per-point box tests of a node visit, two points per eight-lane pass: the keys
/// (per lane, the smallest squared distance among the points that need it) and the
/// spread needs (bit 4 i + lane: point i needs the lane) — exactly what the four-lane
/// loop computes, with the same operations per lane.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn pair_tests(
    node: &super::Node4,
    splats: &[[Vec4; 3]; PACKET],
    search: &[NearestSearch; PACKET],
    mut points: u64,
) -> (Vec4, u64) {
    use std::arch::x86_64::*;
    // SAFETY (whole body): the caller is compiled for AVX2; the broadcasts read the
    // node's 16-byte rows.
    unsafe {
        let row = |v: &Vec4| _mm256_broadcast_ps(&*(v as *const Vec4 as *const __m128));
        let (lx, ly, lz) = (
            row(&node.lower[0]),
            row(&node.lower[1]),
            row(&node.lower[2]),
        );
        let (ux, uy, uz) = (
            row(&node.upper[0]),
            row(&node.upper[1]),
            row(&node.upper[2]),
        );
        let zero = _mm256_setzero_ps();
        let mut keys = _mm256_set1_ps(f32::INFINITY);
        let mut needs = 0u64;
        let pair = |a: Vec4, b: Vec4| _mm256_set_m128(b.into(), a.into());
        while points != 0 {
            let i = point_of(points);
            points &= points - 1;
            // The next point, or `i` again for an odd one out (same bits, same keys).
            let j = if points != 0 { point_of(points) } else { i };
            points &= points.wrapping_sub(1);
            let (pi, pj) = (&splats[i], &splats[j]);
            let (px, py, pz) = (pair(pi[0], pj[0]), pair(pi[1], pj[1]), pair(pi[2], pj[2]));
            let dx = _mm256_max_ps(
                _mm256_max_ps(_mm256_sub_ps(lx, px), _mm256_sub_ps(px, ux)),
                zero,
            );
            let dy = _mm256_max_ps(
                _mm256_max_ps(_mm256_sub_ps(ly, py), _mm256_sub_ps(py, uy)),
                zero,
            );
            let dz = _mm256_max_ps(
                _mm256_max_ps(_mm256_sub_ps(lz, pz), _mm256_sub_ps(pz, uz)),
                zero,
            );
            let d2 = _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                _mm256_mul_ps(dz, dz),
            );
            let prune = pair(
                Vec4::splat(search[i].prune_d2()),
                Vec4::splat(search[j].prune_d2()),
            );
            let near = _mm256_cmp_ps::<_CMP_LE_OQ>(d2, prune);
            keys = _mm256_blendv_ps(keys, _mm256_min_ps(keys, d2), near);
            let bits = _mm256_movemask_ps(near) as u64;
            needs |= (bits & 15) << (4 * i) | (bits >> 4) << (4 * j);
        }
        let keys = _mm_min_ps(
            _mm256_castps256_ps128(keys),
            _mm256_extractf128_ps::<1>(keys),
        );
        (Vec4::from(keys), needs)
    }
}

/// A set of a packet's points, as stack entries carry it: point `i` is bit `4 i`, so a
/// node visit gathers the points that need each of its four lanes with one shift.
const SPREAD: u64 = 0x1111_1111_1111_1111;

const _: () = assert!(
    4 <= PACKET && PACKET <= 16 && PACKET.is_power_of_two(),
    "a packet's points fit a spread u64 mask, four lanes at a time"
);

/// The lowest point of the non-empty spread set `points`.
#[inline(always)]
fn point_of(points: u64) -> usize {
    (points.trailing_zeros() / 4) as usize & (PACKET - 1)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{boxes, bvhs, each_nearest};
    use super::*;

    /// Box "primitives" at their box distance: every point of a packet gets what
    /// [`WideBvh::nearest_slots`] gives it alone, with and without upper bounds, for
    /// packets of 1 to [`PACKET`] points from tight clusters to spread out.
    #[test]
    fn packets_equal_single_queries() {
        let mut r = crate::test_rng::uniform(0x0bad_cafe, -1.0, 2.0);
        for bvh in bvhs() {
            let prims = bvh.prim_indices();
            let prim_boxes = boxes(bvh.num_prims());
            let wide = WideBvh::new(&bvh);
            let dist = |slot: usize, p: Vec3| prim_boxes[prims[slot] as usize].distance_squared(p);
            for round in 0..60 {
                let max_dist = if round % 3 == 0 {
                    r().abs() * 0.2
                } else {
                    f32::INFINITY
                };
                // Some packets at the duplicated boxes of `boxes` (ties).
                let centre = if round % 5 == 0 {
                    Vec3::splat(0.51)
                } else {
                    Vec3::new(r(), r(), r())
                };
                let spread = [0.0, 1e-3, 0.05, 1.0][round % 4];
                let n = 1 + round % PACKET;
                let points: Vec<Vec3> = (0..n)
                    .map(|_| centre + Vec3::new(r(), r(), r()) * spread)
                    .collect();
                let alone: Vec<_> = points
                    .iter()
                    .map(|&p| {
                        wide.nearest_slots(
                            p,
                            max_dist,
                            f32::INFINITY,
                            |_, _, _| {},
                            |_| 0.0,
                            each_nearest(prims, |slot| dist(slot, p)),
                        )
                    })
                    .collect();
                // The dispatching entry point (AVX2 where the CPU has it) and the
                // portable four-lane traversal.
                for portable in [false, true] {
                    let mut search = PacketSearch::new(max_dist);
                    for (i, &p) in points.iter().enumerate() {
                        // A valid upper bound for some points (the answer, loosened).
                        let upper = match (i % 3, alone[i]) {
                            (1, Some((_, d2))) => d2 * 1.5,
                            _ => f32::INFINITY,
                        };
                        search.push(p, upper);
                    }
                    let leaf = |first, count, _, p, s: &mut NearestSearch| {
                        for slot in first..first + count {
                            s.offer(slot, dist(slot, p), prims);
                        }
                    };
                    if portable {
                        wide.packet_search::<false>(
                            &mut search,
                            |_, _, _| {},
                            |_, _| Vec4::ZERO,
                            leaf,
                        );
                    } else {
                        wide.nearest_slots_packet(
                            &mut search,
                            |_, _, _| {},
                            |_, _| Vec4::ZERO,
                            leaf,
                        );
                    }
                    assert_eq!(search.len(), n);
                    for (i, want) in alone.iter().enumerate() {
                        assert_eq!(
                            search.result(i),
                            (points[i], *want),
                            "round {round}, point {i}, portable {portable}"
                        );
                    }
                }
            }
        }
    }
}
