//! The triangles of each BVH leaf as groups of four SIMD lanes, for the host queries.
//!
//! A leaf of `n` triangles gets `⌈n / 4⌉` [`TriGroup`]s: each holds the corners of four
//! triangles as structure-of-arrays lanes (a lane past the leaf's end repeats the group's
//! first triangle, whose answer is then offered twice, which changes nothing). One pass
//! of `f32x4` arithmetic tests four triangles, branch-free, where the scalar tests branch
//! on every triangle (the branches of the closest-point regions and of the ray's edge
//! signs are unpredictable).
//!
//! The lane arithmetic repeats the scalar tests operation by operation
//! ([`closest_point_triangle`] and [`WatertightRay::intersect`]: the same IEEE operations
//! on the same operands, no fused multiply–add), so each lane's result is bit for bit the
//! scalar one and query answers do not change. The rare lanes whose scalar test takes a
//! special path (a degenerate triangle's edge fallback, an edge function that rounds to
//! zero and is recomputed in `f64`) are handed back to the scalar test.

use glam::{BVec4A, Vec3, Vec4};
use rayon::prelude::*;

use super::closest::closest_point_triangle;
use super::ray::WatertightRay;

#[cfg(target_arch = "x86_64")]
mod avx2;

/// Triangles per group.
pub(crate) const LANES: usize = 4;

/// Three coordinates of four lanes.
type Lanes3 = [Vec4; 3];

/// Four triangles of one leaf as SIMD lanes (160 bytes).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TriGroup {
    /// `corners[k][axis]`: coordinate `axis` of corner `k` of the four triangles.
    corners: [Lanes3; 3],
    /// The leaf slot of each lane's triangle.
    slots: [u32; LANES],
}

#[inline(always)]
fn sub(a: Lanes3, b: Lanes3) -> Lanes3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// `a + d · s`, lane-wise (as `Vec3 + Vec3 * f32`).
#[inline(always)]
fn along(a: Lanes3, d: Lanes3, s: Vec4) -> Lanes3 {
    [a[0] + d[0] * s, a[1] + d[1] * s, a[2] + d[2] * s]
}

/// `Vec3::dot`, lane-wise: `(x·x′ + y·y′) + z·z′`.
#[inline(always)]
fn dot(a: Lanes3, b: Lanes3) -> Vec4 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

#[inline(always)]
fn select(mask: BVec4A, a: Lanes3, b: Lanes3) -> Lanes3 {
    [
        Vec4::select(mask, a[0], b[0]),
        Vec4::select(mask, a[1], b[1]),
        Vec4::select(mask, a[2], b[2]),
    ]
}

/// The closest-point module's `ratio(n, d)` lane-wise: `n / d` clamped to `[0, 1]` as
/// `f32::clamp` does (NaN stays NaN), 0 where `d` is not positive.
#[inline(always)]
fn ratio(n: Vec4, d: Vec4) -> Vec4 {
    let x = n / d;
    let x = Vec4::select(x.cmplt(Vec4::ZERO), Vec4::ZERO, x);
    let x = Vec4::select(x.cmpgt(Vec4::ONE), Vec4::ONE, x);
    Vec4::select(d.cmpgt(Vec4::ZERO), x, Vec4::ZERO)
}

impl TriGroup {
    /// The group of the triangles in leaf slots `slots` of `tris`.
    #[inline(always)]
    fn new(slots: [u32; LANES], tris: &[[Vec3; 3]]) -> Self {
        let mut corners = [[Vec4::ZERO; 3]; 3];
        for (lane, &slot) in slots.iter().enumerate() {
            for (k, v) in tris[slot as usize].iter().enumerate() {
                for axis in 0..3 {
                    corners[k][axis][lane] = v[axis];
                }
            }
        }
        Self { corners, slots }
    }

    /// The group of the triangles of a leaf's slots `first + g ..` (`g` a multiple of
    /// [`LANES`] below `count`), gathered from the leaf-ordered triangles `tris`, with
    /// the padding of [`LeafGroups`].
    #[inline(always)]
    pub(crate) fn gather(tris: &[[Vec3; 3]], first: u32, count: u32, g: u32) -> Self {
        Self::new(group_slots(first, count, g), tris)
    }

    /// The leaf slot of lane `lane`'s triangle.
    #[inline(always)]
    pub(crate) fn slot(&self, lane: usize) -> usize {
        self.slots[lane] as usize
    }

    /// The corners of lane `lane`'s triangle.
    #[inline(always)]
    pub(crate) fn triangle(&self, lane: usize) -> [Vec3; 3] {
        self.corners
            .map(|c| Vec3::new(c[0][lane], c[1][lane], c[2][lane]))
    }

    /// Squared distances from the point `p` (each coordinate splat) to the four
    /// triangles, bit for bit `(closest_point_triangle(p, a, b, c).0 - p).length_squared()`,
    /// except in the lanes of the returned mask (degenerate triangles, for which the
    /// scalar test takes its edge fallback): compute those with the scalar test.
    #[inline(always)]
    pub(crate) fn distance_squared(&self, p: Lanes3) -> (Vec4, u32) {
        let [a, b, c] = self.corners;
        // The steps and names of `closest_point_triangle` (Ericson §5.1.5), every region
        // evaluated and the first one that applies selected.
        let ab = sub(b, a);
        let ac = sub(c, a);
        let ap = sub(p, a);
        let d1 = dot(ab, ap);
        let d2 = dot(ac, ap);
        let bp = sub(p, b);
        let d3 = dot(ab, bp);
        let d4 = dot(ac, bp);
        let vc = d1 * d4 - d3 * d2;
        let cp = sub(p, c);
        let d5 = dot(ab, cp);
        let d6 = dot(ac, cp);
        let vb = d5 * d2 - d1 * d6;
        let va = d3 * d6 - d5 * d4;
        let zero = Vec4::ZERO;
        let in_a = d1.cmple(zero) & d2.cmple(zero);
        let in_b = d3.cmpge(zero) & d4.cmple(d3);
        let in_ab = vc.cmple(zero) & d1.cmpge(zero) & d3.cmple(zero);
        let in_c = d6.cmpge(zero) & d5.cmple(d6);
        let in_ac = vb.cmple(zero) & d2.cmpge(zero) & d6.cmple(zero);
        let (d43, d56) = (d4 - d3, d5 - d6);
        let in_bc = va.cmple(zero) & d43.cmpge(zero) & d56.cmpge(zero);
        let sum = va + vb + vc;
        // `sum.is_nan() || sum <= 0.0 || sum.is_infinite()`.
        let degenerate = !(sum.cmpgt(zero) & sum.cmplt(Vec4::INFINITY));
        // The interior point, then overwritten by each region in reverse order of the
        // scalar test's, so the first region that applies is the one left.
        let v = vb / sum;
        let w = vc / sum;
        let mut q = along(along(a, ab, v), ac, w);
        q = select(in_bc, along(b, sub(c, b), ratio(d43, d43 + d56)), q);
        q = select(in_ac, along(a, ac, ratio(d2, d2 - d6)), q);
        q = select(in_c, c, q);
        q = select(in_ab, along(a, ab, ratio(d1, d1 - d3)), q);
        q = select(in_b, b, q);
        q = select(in_a, a, q);
        let region = in_a | in_b | in_ab | in_c | in_ac | in_bc;
        let d = sub(q, p);
        (dot(d, d), (degenerate & !region).bitmask())
    }

    /// The four triangles' hit distances along `ray` (bit for bit
    /// [`WatertightRay::intersect`]'s `t` against the limit `max_t`) and the mask of the
    /// lanes hit; lanes in the second mask (an edge function rounded to zero, which the
    /// scalar test recomputes in `f64`) must be tested with the scalar test instead.
    #[inline(always)]
    pub(crate) fn intersect(&self, ray: &GroupRay, max_t: f32) -> (Vec4, u32, u32) {
        let [kx, ky, kz] = ray.axes;
        let (sx, sy, sz) = (ray.shear[0], ray.shear[1], ray.shear[2]);
        // Corner `k` relative to the origin, in (kx, ky, kz) order.
        let rel = |k: usize| {
            let c = &self.corners[k];
            (
                c[kx] - ray.origin[0],
                c[ky] - ray.origin[1],
                c[kz] - ray.origin[2],
            )
        };
        let (a, b, c) = (rel(0), rel(1), rel(2));
        let ax = a.0 - sx * a.2;
        let ay = a.1 - sy * a.2;
        let bx = b.0 - sx * b.2;
        let by = b.1 - sy * b.2;
        let cx = c.0 - sx * c.2;
        let cy = c.1 - sy * c.2;
        let u = cx * by - cy * bx;
        let v = ax * cy - ay * cx;
        let w = bx * ay - by * ax;
        let zero = Vec4::ZERO;
        let rounded_to_zero = u.cmpeq(zero) | v.cmpeq(zero) | w.cmpeq(zero);
        let neg = u.cmplt(zero) | v.cmplt(zero) | w.cmplt(zero);
        let pos = u.cmpgt(zero) | v.cmpgt(zero) | w.cmpgt(zero);
        let det = u + v + w;
        // `det == 0.0 || !det.is_finite()`.
        let bad_det = !(det.abs().cmplt(Vec4::INFINITY)) | det.cmpeq(zero);
        let t_scaled = u * (sz * a.2) + v * (sz * b.2) + w * (sz * c.2);
        let behind =
            (det.cmplt(zero) & t_scaled.cmpgt(zero)) | (det.cmpgt(zero) & t_scaled.cmplt(zero));
        let inv = Vec4::ONE / det;
        // `f32::max` returns the other operand for NaN, as `maxps` does with NaN first.
        let t = (t_scaled * inv).max(zero);
        let miss = (neg & pos) | bad_det | behind | t.cmpgt(Vec4::splat(max_t));
        let fallback = rounded_to_zero.bitmask();
        (t, !miss.bitmask() & 15 & !fallback, fallback)
    }
}

/// A ray prepared for [`TriGroup::intersect`]: the [`WatertightRay`]'s axis order,
/// permuted origin and shear, splat over the lanes.
#[derive(Clone, Copy)]
pub(crate) struct GroupRay {
    axes: [usize; 3],
    origin: [Vec4; 3],
    shear: [Vec4; 3],
}

impl GroupRay {
    /// The lane form of `ray`.
    #[inline(always)]
    pub(crate) fn new(ray: &WatertightRay) -> Self {
        let (axes, origin, shear) = ray.parts();
        Self {
            axes,
            origin: origin.to_array().map(Vec4::splat),
            shear: shear.to_array().map(Vec4::splat),
        }
    }
}

/// The slots of group `g` (a multiple of [`LANES`] below `count`) of the leaf at slots
/// `first..first + count`: lanes past the leaf's end repeat the group's first slot.
#[inline(always)]
fn group_slots(first: u32, count: u32, g: u32) -> [u32; LANES] {
    group_slots_n::<LANES>(first, count, g)
}

/// Offers the hits of `ray` (`lanes` its lane form) with the triangles of the leaf at
/// slots `first..first + count` of the leaf-ordered triangles `tris` to `search`, at
/// [`WatertightRay::intersect`]'s distances, four at a time.
///
/// The groups are gathered from `tris` here rather than read from [`LeafGroups`]: ray
/// casts in random directions wait on memory, and the groups take ~1.5× the bytes of
/// the triangles.
#[inline(always)]
pub(crate) fn hits_in_leaf(
    tris: &[[Vec3; 3]],
    first: usize,
    count: usize,
    ray: &WatertightRay,
    lanes: &GroupRay,
    search: &mut crate::bvh::HitSearch,
) {
    for g in (0..count as u32).step_by(LANES) {
        let group = TriGroup::gather(tris, first as u32, count as u32, g);
        group.offer_hits(ray, lanes, search);
    }
}

impl TriGroup {
    /// Offers the hits of `ray` (`lanes` its lane form) with the group's triangles to
    /// `search`, at [`WatertightRay::intersect`]'s distances.
    #[inline(always)]
    pub(crate) fn offer_hits(
        &self,
        ray: &WatertightRay,
        lanes: &GroupRay,
        search: &mut crate::bvh::HitSearch,
    ) {
        let (t, mut hit, mut scalar) = self.intersect(lanes, search.best_t());
        while hit != 0 {
            let lane = hit.trailing_zeros() as usize;
            hit &= hit - 1;
            search.offer(self.slot(lane), t[lane]);
        }
        while scalar != 0 {
            let lane = scalar.trailing_zeros() as usize;
            scalar &= scalar - 1;
            let [a, b, c] = self.triangle(lane);
            if let Some(h) = ray.intersect(a, b, c, search.best_t()) {
                search.offer(self.slot(lane), h.t);
            }
        }
    }
}

/// The slots of group `g` (a multiple of `N` below `count`) of the leaf at slots
/// `first..first + count`, `N` lanes: lanes past the leaf's end repeat the group's
/// first slot.
fn group_slots_n<const N: usize>(first: u32, count: u32, g: u32) -> [u32; N] {
    std::array::from_fn(|lane| {
        first
            + if g + (lane as u32) < count {
                g + lane as u32
            } else {
                g
            }
    })
}

/// The groups of `N` lanes of the leaves `leaves` (`(first slot, count)` by ordinal),
/// made by `make(slots)`, and where each leaf's start (`first[k]..first[k + 1]`).
fn leaf_groups<const N: usize, G: Send>(
    leaves: &[[u32; 2]],
    make: impl Fn([u32; N]) -> G + Sync,
) -> (Vec<G>, Vec<u32>) {
    let mut first = Vec::with_capacity(leaves.len() + 1);
    let mut slots = Vec::with_capacity(leaves.len() * 2);
    first.push(0);
    for &[start, count] in leaves {
        for g in (0..count).step_by(N) {
            slots.push(group_slots_n::<N>(start, count, g));
        }
        first.push(u32::try_from(slots.len()).expect("fewer than 2^32 groups"));
    }
    let groups = slots
        .par_iter()
        .with_min_len(4096)
        .map(|&s| make(s))
        .collect();
    (groups, first)
}

/// The triangle groups of every leaf of a BVH: [`TriGroup`]s of four lanes, or eight
/// lanes when the CPU has AVX2 (x86-64, detected at run time).
#[derive(Clone, Debug, Default)]
pub(crate) struct LeafGroups {
    groups: Vec<TriGroup>,
    /// Eight-lane groups, used instead of `groups` (then empty) when AVX2 is there.
    #[cfg(target_arch = "x86_64")]
    groups8: Vec<avx2::TriGroup8>,
    /// The groups of leaf `k` (by ordinal) are `groups[first[k]..first[k + 1]]` (or
    /// `groups8[..]`).
    first: Vec<u32>,
}

impl LeafGroups {
    /// The groups of the leaves `leaves` (`(first slot, count)` by ordinal) of the
    /// leaf-ordered triangles `tris`.
    pub(crate) fn new(leaves: &[[u32; 2]], tris: &[[Vec3; 3]]) -> Self {
        Self::with_lanes(leaves, tris, true)
    }

    /// [`LeafGroups::new`], with eight-lane groups only when `allow_wide8` (and the CPU
    /// has AVX2).
    fn with_lanes(leaves: &[[u32; 2]], tris: &[[Vec3; 3]], allow_wide8: bool) -> Self {
        #[cfg(target_arch = "x86_64")]
        if allow_wide8 && is_x86_feature_detected!("avx2") {
            let (groups8, first) = leaf_groups(leaves, |s| avx2::TriGroup8::new(s, tris));
            return Self {
                groups: Vec::new(),
                groups8,
                first,
            };
        }
        let _ = allow_wide8;
        let (groups, first) = leaf_groups(leaves, |s| TriGroup::new(s, tris));
        Self {
            groups,
            #[cfg(target_arch = "x86_64")]
            groups8: Vec::new(),
            first,
        }
    }

    /// The range of leaf `ordinal`'s groups.
    #[inline(always)]
    fn range(&self, ordinal: u32) -> std::ops::Range<usize> {
        let k = ordinal as usize;
        self.first[k] as usize..self.first[k + 1] as usize
    }

    /// Whether the groups are the eight-lane ones.
    #[inline(always)]
    fn wide8(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            !self.groups8.is_empty()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    /// Starts loading the groups of leaf `ordinal`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, ordinal: u32) {
        #[cfg(target_arch = "x86_64")]
        if self.wide8() {
            return crate::bvh::prefetch_slice(&self.groups8[self.range(ordinal)]);
        }
        crate::bvh::prefetch_slice(&self.groups[self.range(ordinal)]);
    }

    /// Offers every triangle of leaf `ordinal` that may be within
    /// [`NearestSearch::prune_d2`] of `p` to `search` at its exact squared distance
    /// (that of [`closest_point_triangle`]).
    #[inline(always)]
    pub(crate) fn nearest_in_leaf(
        &self,
        ordinal: u32,
        p: Vec3,
        search: &mut crate::bvh::NearestSearch,
        prims: &[u32],
    ) {
        #[cfg(target_arch = "x86_64")]
        if self.wide8() {
            // SAFETY: `groups8` is only filled when the CPU has AVX2.
            return unsafe {
                avx2::nearest_in_groups(&self.groups8[self.range(ordinal)], p, search, prims)
            };
        }
        let splat = p.to_array().map(Vec4::splat);
        for group in &self.groups[self.range(ordinal)] {
            let (d2, scalar) = group.distance_squared(splat);
            let mut lanes = d2.cmple(Vec4::splat(search.prune_d2())).bitmask() | scalar;
            while lanes != 0 {
                let lane = lanes.trailing_zeros() as usize;
                lanes &= lanes - 1;
                let d2 = if scalar >> lane & 1 != 0 {
                    let [a, b, c] = group.triangle(lane);
                    (closest_point_triangle(p, a, b, c).0 - p).length_squared()
                } else {
                    d2[lane]
                };
                search.offer(group.slot(lane), d2, prims);
            }
        }
    }

    /// The number of groups of leaf `ordinal` and the slot and triangle of each of
    /// their lanes.
    #[cfg(test)]
    fn lanes_of_leaf(&self, ordinal: u32) -> (usize, Vec<(usize, [Vec3; 3])>) {
        #[cfg(target_arch = "x86_64")]
        if self.wide8() {
            let of = &self.groups8[self.range(ordinal)];
            let lanes = of
                .iter()
                .flat_map(|g| (0..8).map(|l| (g.slots()[l] as usize, g.triangle(l))));
            return (of.len(), lanes.collect());
        }
        let of = &self.groups[self.range(ordinal)];
        let lanes = of
            .iter()
            .flat_map(|g| (0..LANES).map(|l| (g.slot(l), g.triangle(l))));
        (of.len(), lanes.collect())
    }

    /// Rewrites the corners from `tris` (after a refit moved them).
    pub(crate) fn refit(&mut self, tris: &[[Vec3; 3]]) {
        self.groups
            .par_iter_mut()
            .with_min_len(4096)
            .for_each(|g| *g = TriGroup::new(g.slots, tris));
        #[cfg(target_arch = "x86_64")]
        self.groups8
            .par_iter_mut()
            .with_min_len(4096)
            .for_each(|g| *g = avx2::TriGroup8::new(g.slots(), tris));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bvh::NearestSearch;

    fn rng(seed: u32) -> impl FnMut() -> f32 {
        crate::test_rng::uniform(seed, -1.0, 1.0)
    }

    /// Random triangles, with degenerate ones (repeated corners, collinear, tiny) and
    /// far from the origin.
    fn triangles(n: usize) -> Vec<[Vec3; 3]> {
        let mut r = rng(0x5eed_1234);
        (0..n)
            .map(|i| {
                let mut v = || Vec3::new(r(), r(), r());
                let (a, b, c) = (v(), v(), v());
                // 1e19: products overflow, which the scalar test's fallback handles.
                let scale = [1.0, 1e-3, 1000.0, 1e19][i % 4];
                let offset = if i % 5 == 0 {
                    Vec3::splat(500.0)
                } else {
                    Vec3::ZERO
                };
                let t = match i % 11 {
                    0 => [a, a, b],
                    1 => [a, b, a + (b - a) * 0.5],
                    2 => [a, a, a],
                    3 => [a, a + Vec3::X * 1e-30, a + Vec3::Y * 1e-30],
                    _ => [a, b, c],
                };
                t.map(|x| x * scale + offset)
            })
            .collect()
    }

    /// Asserts that each lane of the group at `g` that does not ask for the scalar
    /// test (bit of `scalar`) gives its squared distance `d2` from `p` bit for bit;
    /// returns how many lanes asked.
    fn check_lanes(tris: &[[Vec3; 3]], g: usize, p: Vec3, d2: &[f32], scalar: u32) -> u32 {
        for (lane, &got) in d2.iter().enumerate() {
            if scalar >> lane & 1 != 0 {
                continue;
            }
            let [a, b, c] = tris[g + lane];
            let want = (closest_point_triangle(p, a, b, c).0 - p).length_squared();
            let same = got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan());
            assert!(same, "triangle {}, point {p}: {got} vs {want}", g + lane);
        }
        scalar.count_ones()
    }

    /// Every lane of a group gives the scalar test's squared distance bit for bit (or
    /// asks for the scalar test), for points near, on and far from the triangles.
    #[test]
    fn distances_equal_the_scalar_test_bit_for_bit() {
        let tris = triangles(4000);
        let mut r = rng(0x0dd_ba11);
        let mut fallbacks = 0;
        for g in (0..tris.len()).step_by(LANES) {
            let slots = std::array::from_fn(|l| (g + l) as u32);
            let group = TriGroup::new(slots, &tris);
            for k in 0..12 {
                let [a, b, c] = tris[g + k % LANES];
                let p = match k {
                    0 => a,
                    1 => (a + b) * 0.5,
                    2 => (a + b + c) / 3.0,
                    _ => {
                        let s = [1e-3, 1.0, 100.0][k % 3];
                        a + Vec3::new(r(), r(), r()) * s
                    }
                };
                let (d2, scalar) = group.distance_squared(p.to_array().map(Vec4::splat));
                fallbacks += check_lanes(&tris, g, p, &d2.to_array(), scalar);
            }
        }
        assert!(
            fallbacks > 0,
            "the degenerate triangles take the scalar path"
        );
    }

    /// The eight-lane (AVX2) groups give the scalar test's squared distance bit for
    /// bit too, or ask for the scalar test.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_distances_equal_the_scalar_test_bit_for_bit() {
        if !is_x86_feature_detected!("avx2") {
            eprintln!("SKIPPED (no AVX2 on this CPU): the eight-lane groups are not used");
            return;
        }
        let tris = triangles(4000);
        let mut r = rng(0x0dd_ba12);
        let mut fallbacks = 0;
        for g in (0..tris.len()).step_by(8) {
            let slots = std::array::from_fn(|l| (g + l) as u32);
            let group = avx2::TriGroup8::new(slots, &tris);
            for k in 0..16 {
                let [a, b, c] = tris[g + k % 8];
                let p = match k {
                    0 => a,
                    1 => (a + b) * 0.5,
                    2 => (a + b + c) / 3.0,
                    _ => a + Vec3::new(r(), r(), r()) * [1e-3, 1.0, 100.0][k % 3],
                };
                let (d2, scalar) = avx2::distances(&group, p);
                fallbacks += check_lanes(&tris, g, p, &d2, scalar);
            }
        }
        assert!(
            fallbacks > 0,
            "the degenerate triangles take the scalar path"
        );
    }

    /// Every lane gives the scalar watertight test's answer (hit or not, and `t` bit
    /// for bit), or asks for the scalar test; rays through corners and edges included.
    #[test]
    fn hits_equal_the_scalar_test_bit_for_bit() {
        let tris = triangles(4000);
        let mut r = rng(0xfeed_f00d);
        let (mut hits, mut fallbacks) = (0, 0);
        for g in (0..tris.len()).step_by(LANES) {
            let slots = std::array::from_fn(|l| (g + l) as u32);
            let group = TriGroup::new(slots, &tris);
            for k in 0..12 {
                let [a, b, c] = tris[g + k % LANES];
                let target = match k {
                    0 => a,
                    1 => (a + b) * 0.5,
                    _ => (a + b + c) / 3.0 + Vec3::new(r(), r(), r()) * (a - b).length() * 0.3,
                };
                let mut origin = target + Vec3::new(r(), r(), r()) * 10.0;
                let mut dir = target - origin;
                if k == 5 {
                    dir = Vec3::new(dir.x, 0.0, dir.z);
                }
                if k == 7 {
                    origin = target - dir * 0.5; // starts past some triangles
                }
                let max_t = if k % 4 == 3 { 0.7 } else { f32::INFINITY };
                let Some(ray) = WatertightRay::new(origin, dir) else {
                    continue;
                };
                let (t, hit, scalar) = group.intersect(&GroupRay::new(&ray), max_t);
                fallbacks += scalar.count_ones();
                for lane in 0..LANES {
                    if scalar >> lane & 1 != 0 {
                        continue;
                    }
                    let [a, b, c] = tris[g + lane];
                    let want = ray.intersect(a, b, c, max_t).map(|h| h.t.to_bits());
                    let got = (hit >> lane & 1 != 0).then(|| t[lane].to_bits());
                    assert_eq!(got, want, "triangle {}, ray {k}", g + lane);
                    hits += got.is_some() as u32;
                }
            }
        }
        assert!(
            hits > 1000 && fallbacks > 0,
            "{hits} hits, {fallbacks} fallbacks"
        );
    }

    /// The four- and eight-lane groups give every point the same nearest triangle and
    /// squared distance (each is the scalar test's; this checks the leaf loops).
    #[test]
    fn four_and_eight_lanes_find_the_same_nearest() {
        let tris = triangles(900);
        let leaves: Vec<[u32; 2]> = (0..100u32).map(|k| [9 * k, 1 + k % 9]).collect();
        let prims: Vec<u32> = (0..tris.len() as u32).rev().collect();
        let four = LeafGroups::with_lanes(&leaves, &tris, false);
        let auto = LeafGroups::new(&leaves, &tris);
        assert!(!four.wide8());
        let mut r = rng(0x0ab_cdef);
        let mut found = 0;
        for k in 0..leaves.len() as u32 {
            for i in 0..20 {
                let [a, b, c] = tris[leaves[k as usize][0] as usize];
                let p = (a + b + c) / 3.0 + Vec3::new(r(), r(), r()) * [1e-3, 1.0, 100.0][i % 3];
                let limit = [f32::INFINITY, 1.0, 1e-4][i % 3];
                let (mut s4, mut s8) = (
                    NearestSearch::new(limit, limit),
                    NearestSearch::new(limit, limit),
                );
                four.nearest_in_leaf(k, p, &mut s4, &prims);
                auto.nearest_in_leaf(k, p, &mut s8, &prims);
                assert_eq!(s4.best(), s8.best(), "leaf {k}, point {p}");
                found += s4.best().is_some() as usize;
            }
        }
        assert!(found > 500, "{found}");
    }

    /// Leaves of 1 to 9 triangles: every slot is in exactly the groups of its leaf, and
    /// padding lanes repeat a slot of the same leaf.
    #[test]
    fn groups_cover_each_leaf() {
        let tris = triangles(45);
        let leaves: Vec<[u32; 2]> = (1..=9u32)
            .scan(0, |start, n| {
                let leaf = [*start, n];
                *start += n;
                Some(leaf)
            })
            .collect();
        let groups = LeafGroups::new(&leaves, &tris);
        for (k, &[start, count]) in leaves.iter().enumerate() {
            let (n, lanes) = groups.lanes_of_leaf(k as u32);
            let width = if groups.wide8() { 8 } else { LANES };
            assert_eq!(n, (count as usize).div_ceil(width));
            assert_eq!(lanes.len(), n * width);
            let mut seen: Vec<usize> = lanes.iter().map(|&(slot, _)| slot).collect();
            assert!(
                seen.iter()
                    .all(|&s| (start..start + count).contains(&(s as u32)))
            );
            for &(slot, tri) in &lanes {
                assert_eq!(tri, tris[slot]);
            }
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), count as usize);
        }
    }
}
