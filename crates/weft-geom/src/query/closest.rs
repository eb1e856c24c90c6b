//! Closest point on a triangle and on a mesh.

use glam::Vec3;

use crate::aabb::Aabb;
use crate::bvh::{NO_ORDINAL, NearestSearch, PRUNE_SLACK};
use crate::mesh_bvh::MeshBvh;
use crate::query::leaf_groups::LeafGroups;
use crate::query::patch_bound::PatchBound;

/// The closest point of a mesh to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointQuery {
    /// The closest point on the mesh.
    pub point: Vec3,
    /// The face it lies on (the smallest index among equally close faces).
    pub face: u32,
    /// Barycentric weight of the face's first corner.
    pub u: f32,
    /// Barycentric weight of the face's second corner.
    pub v: f32,
    /// Distance from the query point.
    pub distance: f32,
}

/// [`PointQuery`] plus an inside/outside classification by generalized winding number.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SignedPointQuery {
    /// The unsigned answer.
    pub closest: PointQuery,
    /// Generalized winding number of the query point (≈ 1 inside a closed,
    /// outward-facing mesh, ≈ 0 outside; fractional near holes).
    pub winding_number: f32,
    /// `winding_number > 0.5`.
    pub inside: bool,
}

impl SignedPointQuery {
    /// Distance, negative inside.
    pub fn signed_distance(&self) -> f32 {
        if self.inside {
            -self.closest.distance
        } else {
            self.closest.distance
        }
    }
}

/// Closest point to `p` on triangle `a b c`, with barycentric weights `[wa, wb, wc]`
/// (non-negative, summing to 1).
///
/// Ericson, *Real-Time Collision Detection*, §5.1.5 (Voronoi regions), with every
/// division guarded: zero-length edges and zero-area triangles fall back to the closest
/// point on the three edges, so the result is never NaN for finite input.
///
/// ```
/// use glam::Vec3;
/// use weft_geom::query::closest_point_triangle;
///
/// let (q, w) = closest_point_triangle(Vec3::new(0.25, 0.25, 1.0), Vec3::ZERO, Vec3::X, Vec3::Y);
/// assert_eq!(q, Vec3::new(0.25, 0.25, 0.0));
/// assert_eq!(w, [0.5, 0.25, 0.25]);
/// ```
#[inline]
pub fn closest_point_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, [f32; 3]) {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = ab.dot(ap);
    let d2 = ac.dot(ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, [1.0, 0.0, 0.0]);
    }
    let bp = p - b;
    let d3 = ab.dot(bp);
    let d4 = ac.dot(bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, [0.0, 1.0, 0.0]);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return on_edge(a, b, ratio(d1, d1 - d3), 0);
    }
    let cp = p - c;
    let d5 = ab.dot(cp);
    let d6 = ac.dot(cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, [0.0, 0.0, 1.0]);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return on_edge(a, c, ratio(d2, d2 - d6), 2);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        return on_edge(b, c, ratio(d4 - d3, (d4 - d3) + (d5 - d6)), 1);
    }
    let sum = va + vb + vc;
    if sum.is_nan() || sum <= 0.0 || sum.is_infinite() {
        return closest_on_edges(p, a, b, c);
    }
    let v = vb / sum;
    let w = vc / sum;
    (a + ab * v + ac * w, [1.0 - v - w, v, w])
}

/// `n / d` clamped to `[0, 1]`; 0 when `d` is not positive.
#[inline]
fn ratio(n: f32, d: f32) -> f32 {
    if d > 0.0 {
        (n / d).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The point `p + s (q - p)` on an edge; `edge` 0 = ab, 1 = bc, 2 = ac.
#[inline]
fn on_edge(p: Vec3, q: Vec3, s: f32, edge: usize) -> (Vec3, [f32; 3]) {
    let point = p + (q - p) * s;
    let w = match edge {
        0 => [1.0 - s, s, 0.0],
        1 => [0.0, 1.0 - s, s],
        _ => [1.0 - s, 0.0, s],
    };
    (point, w)
}

/// Closest point over the three edges (for degenerate triangles).
fn closest_on_edges(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, [f32; 3]) {
    let seg = |s: Vec3, e: Vec3| {
        let d = e - s;
        ratio((p - s).dot(d), d.length_squared())
    };
    [
        on_edge(a, b, seg(a, b), 0),
        on_edge(b, c, seg(b, c), 1),
        on_edge(a, c, seg(a, c), 2),
    ]
    .into_iter()
    .min_by(|x, y| {
        (x.0 - p)
            .length_squared()
            .total_cmp(&(y.0 - p).length_squared())
    })
    .expect("three edges")
}

/// A squared distance that the exact point–triangle distance from `p` to the face
/// that `q` was computed on cannot exceed: `|p − q|²` plus a margin covering the
/// rounding of `q` and of the triangle test (relative 2⁻¹⁰, absolute 2⁻¹⁶ of the
/// coordinates' magnitude, both far above the few ulps involved).
#[inline]
pub(crate) fn upper_bound_squared(p: Vec3, q: Vec3) -> f32 {
    let scale = p.abs().max_element() + q.abs().max_element();
    let d = (p - q).length() * (1.0 + 1.0 / 1024.0) + scale / 65536.0;
    d * d
}

/// Squared distance from `p` to face `f` and its closest point.
#[inline]
pub(crate) fn face_closest(mesh: &crate::Mesh, f: u32, p: Vec3) -> (f32, Vec3, [f32; 3]) {
    let [a, b, c] = mesh.triangle(f as usize);
    let (q, w) = closest_point_triangle(p, a, b, c);
    ((q - p).length_squared(), q, w)
}

/// Squared distance from `p` to the triangle in leaf slot `slot` of `tris`: exact
/// (as [`closest_point_triangle`] gives it) when the triangle may be within `prune_d2`,
/// else its box distance, which is then above `prune_d2`.
#[inline(always)]
fn slot_distance_squared(tris: &[[Vec3; 3]], slot: usize, p: Vec3, prune_d2: f32) -> f32 {
    let [a, b, c] = tris[slot];
    // A face whose box is beyond the pruning distance (with the traversal's rounding
    // slack) cannot win: skip the exact test.
    let box_d2 = Aabb::from_triangle(a, b, c).distance_squared(p);
    if box_d2 > prune_d2 * PRUNE_SLACK {
        return box_d2;
    }
    let (q, _) = closest_point_triangle(p, a, b, c);
    (q - p).length_squared()
}

/// Offers the triangles of the leaf at slots `first..first + count` (leaf `ordinal`) to
/// `search` at their exact squared distances from `p`: four at a time from the leaf's
/// groups, or one at a time (box-filtered) for a leaf without an ordinal.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn offer_leaf(
    groups: &LeafGroups,
    tris: &[[Vec3; 3]],
    prims: &[u32],
    first: usize,
    count: usize,
    ordinal: u32,
    p: Vec3,
    search: &mut NearestSearch,
) {
    if ordinal != NO_ORDINAL {
        return groups.nearest_in_leaf(ordinal, p, search, prims);
    }
    for slot in first..first + count {
        let d2 = slot_distance_squared(tris, slot, p, search.prune_d2());
        search.offer(slot, d2, prims);
    }
}

/// Starts loading what a closest-point query reads of leaf `ordinal` at slots
/// `first..first + count`: its triangle groups and cylinder, or its triangles.
#[inline(always)]
pub(crate) fn prefetch_leaf(
    groups: &LeafGroups,
    patches: &[PatchBound],
    tris: &[[Vec3; 3]],
    first: usize,
    count: usize,
    ordinal: u32,
) {
    if ordinal == NO_ORDINAL {
        crate::bvh::prefetch_slice(&tris[first..first + count]);
    } else {
        groups.prefetch(ordinal);
        prefetch_patch(patches, ordinal);
    }
}

/// Starts loading the cylinder of leaf `ordinal` (if it has one).
#[inline(always)]
pub(crate) fn prefetch_patch(patches: &[PatchBound], ordinal: u32) {
    if let Some(patch) = patches.get(ordinal as usize) {
        crate::bvh::prefetch_slice(std::slice::from_ref(patch));
    }
}

impl MeshBvh {
    /// Closest point of the mesh to `p` among faces within `max_dist` (inclusive; use
    /// `f32::INFINITY` for no limit). `None` when no face is that close, for a
    /// non-finite `p`, or an empty mesh.
    ///
    /// For many points, [`MeshBvh::closest_points`] gives the same answers faster.
    pub fn closest_point(&self, p: Vec3, max_dist: f32) -> Option<PointQuery> {
        let tris = self.leaf_triangles();
        let prims = self.bvh().prim_indices();
        let patches = self.patches();
        let groups = self.leaf_groups();
        let (slot, _) = self.wide().nearest_slots(
            p,
            max_dist,
            f32::INFINITY,
            |first, count, ordinal| prefetch_leaf(groups, patches, tris, first, count, ordinal),
            |ordinal| patches[ordinal as usize].distance_squared_below(p),
            |first, count, ordinal, search| {
                offer_leaf(groups, tris, prims, first, count, ordinal, p, search)
            },
        )?;
        Some(self.point_query(slot, p))
    }

    /// The answer for `p` on the face in leaf slot `slot`.
    pub(crate) fn point_query(&self, slot: usize, p: Vec3) -> PointQuery {
        let [a, b, c] = self.leaf_triangles()[slot];
        let (point, w) = closest_point_triangle(p, a, b, c);
        PointQuery {
            point,
            face: self.bvh().prim_indices()[slot],
            u: w[0],
            v: w[1],
            distance: (point - p).length(),
        }
    }

    /// [`MeshBvh::closest_point`] plus inside/outside by the generalized winding
    /// number ([`MeshBvh::winding_number`]).
    pub fn closest_point_signed(&self, p: Vec3, max_dist: f32) -> Option<SignedPointQuery> {
        let closest = self.closest_point(p, max_dist)?;
        Some(self.signed(p, closest))
    }

    /// `closest` (the answer for `p`) with the sign from the winding number at `p`.
    pub(crate) fn signed(&self, p: Vec3, closest: PointQuery) -> SignedPointQuery {
        let winding_number = self.winding_number(p);
        SignedPointQuery {
            closest,
            winding_number,
            inside: winding_number > 0.5,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::DVec3;

    /// f64 reference: plane projection when inside, else the nearest edge point.
    fn reference(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f64 {
        let (p, a, b, c) = (p.as_dvec3(), a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
        let seg = |s: DVec3, e: DVec3| {
            let d = e - s;
            let t = if d.length_squared() > 0.0 {
                ((p - s).dot(d) / d.length_squared()).clamp(0.0, 1.0)
            } else {
                0.0
            };
            (s + d * t - p).length()
        };
        let mut best = seg(a, b).min(seg(b, c)).min(seg(a, c));
        let n = (b - a).cross(c - a);
        if n.length_squared() > 0.0 {
            let q = p - n * (p - a).dot(n) / n.length_squared();
            let inside = [(a, b), (b, c), (c, a)]
                .iter()
                .all(|&(s, e)| (e - s).cross(q - s).dot(n) >= 0.0);
            if inside {
                best = best.min((q - p).length());
            }
        }
        best
    }

    #[test]
    fn matches_f64_reference_on_random_triangles() {
        let mut s = 0x1234_5678u32;
        let mut r = || {
            s ^= s << 13;
            s ^= s >> 17;
            s ^= s << 5;
            (s as f32 / u32::MAX as f32) * 2.0 - 1.0
        };
        for _ in 0..5000 {
            let v = |r: &mut dyn FnMut() -> f32| Vec3::new(r(), r(), r());
            let (a, b, c, p) = (v(&mut r), v(&mut r), v(&mut r), v(&mut r) * 2.0);
            let (q, w) = closest_point_triangle(p, a, b, c);
            let d = (q - p).length() as f64;
            let want = reference(p, a, b, c);
            assert!((d - want).abs() <= 1e-5 * (1.0 + want), "{d} vs {want}");
            assert!((w.iter().sum::<f32>() - 1.0).abs() < 1e-5);
            assert!(w.iter().all(|&x| (0.0..=1.0).contains(&x)));
            assert!((a * w[0] + b * w[1] + c * w[2] - q).length() < 1e-5);
        }
    }

    #[test]
    fn degenerate_triangles_give_finite_answers() {
        let p = Vec3::new(0.3, 0.7, -0.2);
        let cases = [
            [Vec3::ZERO; 3],
            [Vec3::ZERO, Vec3::X, Vec3::X],
            [Vec3::ZERO, Vec3::X, Vec3::X * 0.5],
            [Vec3::X, Vec3::ZERO, Vec3::X * 2.0],
            [Vec3::ZERO, Vec3::X * 1e-30, Vec3::Y * 1e-30],
        ];
        for [a, b, c] in cases {
            let (q, w) = closest_point_triangle(p, a, b, c);
            assert!(
                q.is_finite() && w.iter().all(|x| x.is_finite()),
                "{a} {b} {c}"
            );
            let want = reference(p, a, b, c);
            assert!(((q - p).length() as f64 - want).abs() < 1e-5, "{a} {b} {c}");
        }
    }

    #[test]
    fn point_on_vertex_is_distance_zero() {
        let (q, w) = closest_point_triangle(Vec3::X, Vec3::ZERO, Vec3::X, Vec3::Y);
        assert_eq!(q, Vec3::X);
        assert_eq!(w, [0.0, 1.0, 0.0]);
    }
}
