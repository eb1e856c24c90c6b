//! Eight triangles per pass with AVX2 (x86-64 only, chosen at run time).
//!
//! The same closest-point arithmetic as [`TriGroup::distance_squared`](super::TriGroup)
//! on `__m256` lanes: the same IEEE operations in the same order (no fused
//! multiply–add), so each lane is bit for bit the scalar [`closest_point_triangle`]
//! result. A leaf of up to eight triangles — every leaf with the default build options
//! — is one pass instead of two.

use std::arch::x86_64::*;

use glam::Vec3;

use super::super::closest::closest_point_triangle;
use crate::bvh::NearestSearch;

/// Triangles per group.
pub(crate) const LANES8: usize = 8;

/// Eight triangles of one leaf as AVX lanes (320 bytes).
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TriGroup8 {
    /// `corners[k][axis][lane]`: coordinate `axis` of corner `k` of lane `lane`'s
    /// triangle.
    corners: [[[f32; LANES8]; 3]; 3],
    /// The leaf slot of each lane's triangle.
    slots: [u32; LANES8],
}

impl TriGroup8 {
    /// The group of the triangles in leaf slots `slots` of `tris`.
    pub(crate) fn new(slots: [u32; LANES8], tris: &[[Vec3; 3]]) -> Self {
        let mut corners = [[[0.0; LANES8]; 3]; 3];
        for (lane, &slot) in slots.iter().enumerate() {
            for (k, v) in tris[slot as usize].iter().enumerate() {
                for axis in 0..3 {
                    corners[k][axis][lane] = v[axis];
                }
            }
        }
        Self { corners, slots }
    }

    /// The leaf slots of the lanes.
    pub(crate) fn slots(&self) -> [u32; LANES8] {
        self.slots
    }

    /// The corners of lane `lane`'s triangle.
    pub(crate) fn triangle(&self, lane: usize) -> [Vec3; 3] {
        self.corners
            .map(|c| Vec3::new(c[0][lane], c[1][lane], c[2][lane]))
    }
}

type L3 = [__m256; 3];

#[inline(always)]
unsafe fn sub3(a: L3, b: L3) -> L3 {
    unsafe {
        [
            _mm256_sub_ps(a[0], b[0]),
            _mm256_sub_ps(a[1], b[1]),
            _mm256_sub_ps(a[2], b[2]),
        ]
    }
}

/// `(x·x′ + y·y′) + z·z′`, as `Vec3::dot`.
#[inline(always)]
unsafe fn dot3(a: L3, b: L3) -> __m256 {
    unsafe {
        _mm256_add_ps(
            _mm256_add_ps(_mm256_mul_ps(a[0], b[0]), _mm256_mul_ps(a[1], b[1])),
            _mm256_mul_ps(a[2], b[2]),
        )
    }
}

/// `a + d · s` lane-wise.
#[inline(always)]
unsafe fn along3(a: L3, d: L3, s: __m256) -> L3 {
    unsafe {
        [
            _mm256_add_ps(a[0], _mm256_mul_ps(d[0], s)),
            _mm256_add_ps(a[1], _mm256_mul_ps(d[1], s)),
            _mm256_add_ps(a[2], _mm256_mul_ps(d[2], s)),
        ]
    }
}

/// `mask ? a : b` (masks are all-ones or all-zeros per lane).
#[inline(always)]
unsafe fn sel(mask: __m256, a: __m256, b: __m256) -> __m256 {
    unsafe { _mm256_blendv_ps(b, a, mask) }
}

#[inline(always)]
unsafe fn sel3(mask: __m256, a: L3, b: L3) -> L3 {
    unsafe {
        [
            sel(mask, a[0], b[0]),
            sel(mask, a[1], b[1]),
            sel(mask, a[2], b[2]),
        ]
    }
}

#[inline(always)]
unsafe fn le(a: __m256, b: __m256) -> __m256 {
    unsafe { _mm256_cmp_ps::<_CMP_LE_OQ>(a, b) }
}

#[inline(always)]
unsafe fn ge(a: __m256, b: __m256) -> __m256 {
    unsafe { _mm256_cmp_ps::<_CMP_GE_OQ>(a, b) }
}

#[inline(always)]
unsafe fn and(a: __m256, b: __m256) -> __m256 {
    unsafe { _mm256_and_ps(a, b) }
}

/// The closest-point module's `ratio(n, d)`, as `leaf_groups::ratio` does it.
#[inline(always)]
unsafe fn ratio(n: __m256, d: __m256) -> __m256 {
    unsafe {
        let zero = _mm256_setzero_ps();
        let one = _mm256_set1_ps(1.0);
        let x = _mm256_div_ps(n, d);
        let x = sel(_mm256_cmp_ps::<_CMP_LT_OQ>(x, zero), zero, x);
        let x = sel(_mm256_cmp_ps::<_CMP_GT_OQ>(x, one), one, x);
        sel(_mm256_cmp_ps::<_CMP_GT_OQ>(d, zero), x, zero)
    }
}

/// Squared distances from `p` (each coordinate splat) to the group's eight
/// triangles, bit for bit `(closest_point_triangle(p, a, b, c).0 - p).length_squared()`
/// except in the lanes set in the returned mask (degenerate triangles): the steps of
/// `TriGroup::distance_squared` on eight lanes.
#[target_feature(enable = "avx2")]
fn distance_squared(group: &TriGroup8, p: L3) -> (__m256, __m256) {
    // SAFETY: AVX2 is enabled for this function; the loads read the group's own
    // 32-byte aligned rows.
    unsafe {
        let load = |k: usize| -> L3 {
            let c = &group.corners[k];
            [
                _mm256_load_ps(c[0].as_ptr()),
                _mm256_load_ps(c[1].as_ptr()),
                _mm256_load_ps(c[2].as_ptr()),
            ]
        };
        let (a, b, c) = (load(0), load(1), load(2));
        let ab = sub3(b, a);
        let ac = sub3(c, a);
        let ap = sub3(p, a);
        let d1 = dot3(ab, ap);
        let d2 = dot3(ac, ap);
        let bp = sub3(p, b);
        let d3 = dot3(ab, bp);
        let d4 = dot3(ac, bp);
        let vc = _mm256_sub_ps(_mm256_mul_ps(d1, d4), _mm256_mul_ps(d3, d2));
        let cp = sub3(p, c);
        let d5 = dot3(ab, cp);
        let d6 = dot3(ac, cp);
        let vb = _mm256_sub_ps(_mm256_mul_ps(d5, d2), _mm256_mul_ps(d1, d6));
        let va = _mm256_sub_ps(_mm256_mul_ps(d3, d6), _mm256_mul_ps(d5, d4));
        let zero = _mm256_setzero_ps();
        let in_a = and(le(d1, zero), le(d2, zero));
        let in_b = and(ge(d3, zero), le(d4, d3));
        let in_ab = and(and(le(vc, zero), ge(d1, zero)), le(d3, zero));
        let in_c = and(ge(d6, zero), le(d5, d6));
        let in_ac = and(and(le(vb, zero), ge(d2, zero)), le(d6, zero));
        let (d43, d56) = (_mm256_sub_ps(d4, d3), _mm256_sub_ps(d5, d6));
        let in_bc = and(and(le(va, zero), ge(d43, zero)), ge(d56, zero));
        let sum = _mm256_add_ps(_mm256_add_ps(va, vb), vc);
        // Not (0 < sum < ∞): NaN, non-positive or infinite.
        let fine = and(
            _mm256_cmp_ps::<_CMP_GT_OQ>(sum, zero),
            _mm256_cmp_ps::<_CMP_LT_OQ>(sum, _mm256_set1_ps(f32::INFINITY)),
        );
        let v = _mm256_div_ps(vb, sum);
        let w = _mm256_div_ps(vc, sum);
        let mut q = along3(along3(a, ab, v), ac, w);
        q = sel3(
            in_bc,
            along3(b, sub3(c, b), ratio(d43, _mm256_add_ps(d43, d56))),
            q,
        );
        q = sel3(in_ac, along3(a, ac, ratio(d2, _mm256_sub_ps(d2, d6))), q);
        q = sel3(in_c, c, q);
        q = sel3(in_ab, along3(a, ab, ratio(d1, _mm256_sub_ps(d1, d3))), q);
        q = sel3(in_b, b, q);
        q = sel3(in_a, a, q);
        let region = _mm256_or_ps(
            _mm256_or_ps(_mm256_or_ps(in_a, in_b), _mm256_or_ps(in_ab, in_c)),
            _mm256_or_ps(in_ac, in_bc),
        );
        let d = sub3(q, p);
        // Degenerate (not fine) and in no region: the scalar test's edge fallback.
        let scalar = _mm256_andnot_ps(
            _mm256_or_ps(fine, region),
            _mm256_castsi256_ps(_mm256_set1_epi32(-1)),
        );
        (dot3(d, d), scalar)
    }
}

/// Offers every triangle of `groups` (one leaf's) that may be within
/// [`NearestSearch::prune_d2`] of `p` to `search` at its exact squared distance (that
/// of [`closest_point_triangle`]); `prims` is the BVH's `prim_indices` (for ties).
#[target_feature(enable = "avx2")]
pub(crate) fn nearest_in_groups(
    groups: &[TriGroup8],
    p: Vec3,
    search: &mut NearestSearch,
    prims: &[u32],
) {
    let splat = [
        _mm256_set1_ps(p.x),
        _mm256_set1_ps(p.y),
        _mm256_set1_ps(p.z),
    ];
    for group in groups {
        let (d2, scalar_mask) = distance_squared(group, splat);
        let mut d2s = [0.0f32; LANES8];
        // SAFETY (block): AVX2 is enabled for this function; `d2s` holds eight floats.
        let (best, mut scalar) = unsafe {
            _mm256_storeu_ps(d2s.as_mut_ptr(), d2);
            // Only the smallest distance within the pruning distance can change the
            // search (it ends with the smallest, ties by primitive index, whatever else
            // is offered): offer the lanes at that distance — one lane or a few, found
            // without a branch per lane.
            let near = _mm256_andnot_ps(scalar_mask, le(d2, _mm256_set1_ps(search.prune_d2())));
            let masked = _mm256_blendv_ps(_mm256_set1_ps(f32::INFINITY), d2, near);
            let m = _mm256_min_ps(masked, _mm256_permute2f128_ps::<1>(masked, masked));
            let m = _mm256_min_ps(m, _mm256_permute_ps::<0b01_00_11_10>(m));
            let m = _mm256_min_ps(m, _mm256_permute_ps::<0b10_11_00_01>(m));
            let best = _mm256_and_ps(near, _mm256_cmp_ps::<_CMP_EQ_OQ>(masked, m));
            (
                _mm256_movemask_ps(best) as u32,
                _mm256_movemask_ps(scalar_mask) as u32,
            )
        };
        let mut lanes = best;
        while lanes != 0 {
            let lane = lanes.trailing_zeros() as usize;
            lanes &= lanes - 1;
            search.offer(group.slots[lane] as usize, d2s[lane], prims);
        }
        while scalar != 0 {
            let lane = scalar.trailing_zeros() as usize;
            scalar &= scalar - 1;
            let [a, b, c] = group.triangle(lane);
            let d2 = (closest_point_triangle(p, a, b, c).0 - p).length_squared();
            search.offer(group.slots[lane] as usize, d2, prims);
        }
    }
}

/// [`distance_squared`] for the tests: the eight lanes' squared distances and the
/// mask of lanes to compute with the scalar test. Needs AVX2.
#[cfg(test)]
pub(crate) fn distances(group: &TriGroup8, p: Vec3) -> ([f32; LANES8], u32) {
    assert!(is_x86_feature_detected!("avx2"));
    // SAFETY: AVX2 is available (checked above).
    unsafe {
        let splat = [
            _mm256_set1_ps(p.x),
            _mm256_set1_ps(p.y),
            _mm256_set1_ps(p.z),
        ];
        let (d2, scalar) = distance_squared(group, splat);
        let mut out = [0.0; LANES8];
        _mm256_storeu_ps(out.as_mut_ptr(), d2);
        (out, _mm256_movemask_ps(scalar) as u32)
    }
}
