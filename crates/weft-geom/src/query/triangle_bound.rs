//! A per-triangle lower bound on the point–triangle distance that is nearly exact and
//! costs four dot products: the triangle's plane and its three edges' half-planes.
//!
//! A closest-point query that reaches a leaf must rule out the leaf's triangles that
//! cannot beat its best distance. Their boxes do not discriminate when the point is
//! over the patch (every neighbour's box is about as near as the plane), so most of
//! them used to go through the exact (branchy) point–triangle test. With `n` the unit
//! normal and `mₑ` the in-plane outward unit normal of edge `e`, the distance from `p`
//! to the triangle is at least `√(h² + s²)`, `h = |n·p − n·a|` the plane distance and
//! `s = max(0, maxₑ mₑ·p − mₑ·aₑ)` the distance from the projection of `p` to the
//! farthest edge half-plane (the triangle is their intersection; `mₑ ⟂ n`, so the
//! projection need not be formed). This is the exact distance when the closest point
//! is inside the triangle or on an edge's interior, and close to it otherwise.
//!
//! Conservative for the `f32` test: the normals are computed in `f64`, and both terms
//! are reduced by a margin of 10⁻⁵ of the coordinates' magnitude (far above the
//! rounding of this bound and of [`closest_point_triangle`](super::closest_point_triangle)),
//! so a triangle it rules out could not have been accepted by the exact test.

use glam::{DVec3, Vec3};
use rayon::prelude::*;

/// The plane and edge half-planes of one triangle (64 bytes, one cache line); all zero
/// for a degenerate triangle (then the bound is 0).
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct TriangleBound {
    normal: Vec3,
    plane: f32,
    /// In-plane outward unit normals of the edges `ab`, `bc`, `ca` and `m·(edge start)`.
    edges: [(Vec3, f32); 3],
}

/// Relative margin of the bound, in units of the coordinates' magnitude.
const MARGIN: f32 = 1e-5;

impl TriangleBound {
    /// The bound of the triangle `a b c` (finite corners).
    pub(crate) fn new([a, b, c]: [Vec3; 3]) -> Self {
        let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
        let n = (b - a).cross(c - a);
        let len = n.length();
        let longest = [b - a, c - b, a - c]
            .iter()
            .fold(0.0f64, |m, e| m.max(e.length_squared()));
        // Degenerate (or nearly: area below 1e-12 of the longest edge squared): no
        // bound, the exact test decides.
        if len.is_nan() || len <= 1e-12 * longest {
            return Self::default();
        }
        let n = n / len;
        let edge = |s: DVec3, e: DVec3| {
            let m = (e - s).cross(n).normalize();
            (m.as_vec3(), m.as_vec3().as_dvec3().dot(s) as f32)
        };
        Self {
            normal: n.as_vec3(),
            plane: n.as_vec3().as_dvec3().dot(a) as f32,
            edges: [edge(a, b), edge(b, c), edge(c, a)],
        }
    }

    /// A lower bound on the squared distance from `p` to the triangle as
    /// [`closest_point_triangle`](super::closest_point_triangle) computes it, for a
    /// mesh whose coordinates are at most `mesh_scale` in magnitude.
    #[inline(always)]
    pub(crate) fn distance_squared_below(&self, p: Vec3, mesh_scale: f32) -> f32 {
        let margin = MARGIN * (p.abs().max_element() + mesh_scale);
        let h = (self.normal.dot(p) - self.plane).abs();
        let [(m0, o0), (m1, o1), (m2, o2)] = self.edges;
        let s = (m0.dot(p) - o0).max(m1.dot(p) - o1).max(m2.dot(p) - o2);
        let h = (h - margin).max(0.0);
        let s = (s - margin).max(0.0);
        h * h + s * s
    }
}

/// The bounds of a list of triangles.
#[derive(Clone, Debug)]
pub(crate) struct TriangleBounds {
    /// The bound of every triangle, in the list's order.
    pub(crate) bounds: Vec<TriangleBound>,
    /// The largest coordinate magnitude of the triangles.
    pub(crate) scale: f32,
}

impl TriangleBounds {
    /// The bounds of `tris`, computed in parallel.
    pub(crate) fn new(tris: &[[Vec3; 3]]) -> Self {
        Self {
            bounds: tris
                .par_iter()
                .with_min_len(4096)
                .map(|&t| TriangleBound::new(t))
                .collect(),
            scale: coordinate_scale(tris),
        }
    }

    /// A lower bound on the squared distance from `p` to triangle `i` (see
    /// [`TriangleBound::distance_squared_below`]).
    #[inline(always)]
    pub(crate) fn distance_squared_below(&self, i: usize, p: Vec3) -> f32 {
        self.bounds[i].distance_squared_below(p, self.scale)
    }
}

/// The largest coordinate magnitude of `tris` (the `mesh_scale` of
/// [`TriangleBound::distance_squared_below`]).
pub(crate) fn coordinate_scale(tris: &[[Vec3; 3]]) -> f32 {
    tris.par_iter()
        .with_min_len(4096)
        .map(|t| t.iter().fold(0.0f32, |m, v| m.max(v.abs().max_element())))
        .reduce(|| 0.0, f32::max)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::closest_point_triangle;

    /// The bound never exceeds the computed exact distance: triangles from regular to
    /// needle-thin and degenerate, near the origin and far from it, points on them,
    /// near their corners and edges, and far away.
    #[test]
    fn never_above_the_exact_distance() {
        let mut r = crate::test_rng::uniform(0x7a1e_5eed, -1.0, 1.0);
        let (mut tight, mut above) = (0, 0);
        for case in 0..4000 {
            let offset = Vec3::new(r(), r(), r()) * [0.0, 1.0, 1000.0][case % 3];
            let size = [1e-3, 0.1, 10.0][case % 5 % 3];
            let v = |r: &mut dyn FnMut() -> f32| offset + Vec3::new(r(), r(), r()) * size;
            let (a, mut b, mut c) = (v(&mut r), v(&mut r), v(&mut r));
            match case % 7 {
                0 => c = a + (b - a) * 0.5 + Vec3::new(r(), r(), r()) * size * 1e-6,
                1 => b = a,
                2 => c = a + (b - a) * 0.3,
                _ => {}
            }
            let tri = [a, b, c];
            let scale = coordinate_scale(&[tri]);
            let bound = TriangleBound::new(tri);
            for i in 0..25 {
                let n = (b - a).cross(c - a).normalize_or_zero();
                let p = match i % 5 {
                    // On the triangle, or above its inside (where the bound is exact).
                    0 => {
                        let (u, w) = (r().abs() * 0.5, r().abs() * 0.5);
                        a + (b - a) * u + (c - a) * w + n * size * r() * (i % 2) as f32
                    }
                    1 => [a, b, c][i % 3] + Vec3::new(r(), r(), r()) * size * 1e-3,
                    2 => a + (b - a) * r() + Vec3::new(r(), r(), r()) * size * 0.1,
                    _ => offset + Vec3::new(r(), r(), r()) * size * [0.5, 3.0, 100.0][i % 3],
                };
                let (q, _) = closest_point_triangle(p, a, b, c);
                let d2 = (q - p).length_squared();
                let below = bound.distance_squared_below(p, scale);
                assert!(below <= d2, "case {case}/{i}: bound {below} > {d2}");
                // (With coordinates ≲ 1 and triangles ≳ 0.1, where the margin is small.)
                let small_margin = case % 3 != 2 && case % 5 % 3 != 0;
                if small_margin && case % 7 >= 3 && i % 5 == 0 && d2 > (1e-3 * size).powi(2) {
                    above += 1;
                    tight += (below >= 0.99 * d2) as usize;
                }
            }
        }
        // Not vacuous: above the inside of a regular triangle the bound is the distance
        // (but for the margin).
        assert!(tight * 10 > above * 9, "{tight} of {above}");
    }

    /// Over the middle of a triangle, and beside an edge, the bound is the distance.
    #[test]
    fn is_exact_over_the_face_and_beside_an_edge() {
        let tri = [Vec3::ZERO, Vec3::X, Vec3::Y];
        let bound = TriangleBound::new(tri);
        let over = bound.distance_squared_below(Vec3::new(0.2, 0.2, 0.5), 1.0);
        assert!((over - 0.25).abs() < 1e-3, "{over}");
        let beside = bound.distance_squared_below(Vec3::new(0.5, -0.3, 0.4), 1.0);
        assert!((beside - 0.25).abs() < 1e-3, "{beside}");
        assert_eq!(TriangleBound::new([Vec3::X; 3]), TriangleBound::default());
    }
}
