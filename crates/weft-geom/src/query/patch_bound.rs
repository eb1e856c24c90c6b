//! A flat cylinder around the triangles of one BVH leaf: a lower bound on their
//! distance to a point that is much tighter than the leaf's box.
//!
//! A leaf of a few small triangles of a smooth surface is a nearly flat patch. Its box,
//! axis-aligned, reaches out towards a query point by up to the patch's size whatever the
//! patch's orientation; a point at distance `d` from a surface therefore opens every leaf
//! whose box is within `d`, a disc of radius ≈ √(2·d·size) around the nearest point. The
//! cylinder (axis along the patch's mean normal, radius and half-thickness measured from
//! its corners) is within `d` only for leaves that really come that close: on the
//! issue-5 benchmark mesh it skips most of the leaves a bounded closest-point query opens.
//!
//! The bound is conservative with a margin far above `f32` rounding (10⁻⁵ of the
//! coordinates' magnitude), so a leaf it skips holds no face that the exact test could
//! have accepted: query answers are unchanged.

use glam::{DVec3, Vec3, Vec4};
use rayon::prelude::*;

/// The cylinder `{q : |(q − center)·normal| ≤ half_thickness, lateral distance from the
/// axis ≤ radius}` holding all corners of a leaf's triangles (so, being convex, the
/// triangles).
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PatchBound {
    center: Vec3,
    radius: f32,
    normal: Vec3,
    half_thickness: f32,
}

/// Relative margin of the bound, in units of the coordinates' magnitude.
const MARGIN: f32 = 1e-5;

impl PatchBound {
    /// The bound of the triangles `tris` (non-empty, finite).
    pub(crate) fn new(tris: &[[Vec3; 3]]) -> Self {
        let corners = || tris.iter().flatten().copied();
        let (lo, hi) = corners().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let center = (lo + hi) * 0.5;
        let sum: DVec3 = tris
            .iter()
            .map(|[a, b, c]| {
                let (a, b, c) = (a.as_dvec3(), b.as_dvec3(), c.as_dvec3());
                (b - a).cross(c - a)
            })
            .sum();
        let normal = sum.normalize_or_zero().as_vec3();
        let normal = if normal.length_squared() > 0.5 {
            normal
        } else {
            Vec3::Z
        };
        // Measured in f64 against the stored (f32) centre and normal, rounded up.
        let (c, n) = (center.as_dvec3(), normal.as_dvec3());
        let (mut radius, mut thickness) = (0.0f64, 0.0f64);
        for v in corners() {
            let d = v.as_dvec3() - c;
            let h = d.dot(n);
            radius = radius.max((d - n * h).length());
            thickness = thickness.max(h.abs());
        }
        let up = |x: f64| (x as f32).next_up();
        Self {
            center,
            radius: up(radius),
            normal,
            half_thickness: up(thickness),
        }
    }

    /// A lower bound on the squared distance from `p` to the cylinder (so to every
    /// triangle in it), minus a margin that covers the rounding of this computation and
    /// of the exact point–triangle distance.
    #[inline(always)]
    pub(crate) fn distance_squared_below(&self, p: Vec3) -> f32 {
        let margin = MARGIN
            * (p.abs().max_element()
                + self.center.abs().max_element()
                + self.radius
                + self.half_thickness);
        let v = p - self.center;
        let h = v.dot(self.normal);
        let lateral = (v - self.normal * h).length();
        let a = (lateral - self.radius - margin).max(0.0);
        let b = (h.abs() - self.half_thickness - margin).max(0.0);
        a * a + b * b
    }
}

impl PatchBound {
    /// [`PatchBound::distance_squared_below`] of four points at once (`p[axis]` holds
    /// coordinate `axis` of each): the same operations lane by lane, so bit for bit the
    /// same bounds.
    #[inline(always)]
    pub(crate) fn distance_squared_below4(&self, p: &[Vec4; 3]) -> Vec4 {
        let [px, py, pz] = *p;
        let max_abs = px.abs().max(py.abs().max(pz.abs()));
        let margin = Vec4::splat(MARGIN)
            * (((max_abs + Vec4::splat(self.center.abs().max_element()))
                + Vec4::splat(self.radius))
                + Vec4::splat(self.half_thickness));
        let (c, n) = (self.center, self.normal);
        let (vx, vy, vz) = (
            px - Vec4::splat(c.x),
            py - Vec4::splat(c.y),
            pz - Vec4::splat(c.z),
        );
        let h = vx * Vec4::splat(n.x) + vy * Vec4::splat(n.y) + vz * Vec4::splat(n.z);
        let (wx, wy, wz) = (
            vx - Vec4::splat(n.x) * h,
            vy - Vec4::splat(n.y) * h,
            vz - Vec4::splat(n.z) * h,
        );
        let lateral = (wx * wx + wy * wy + wz * wz).sqrt();
        let a = ((lateral - Vec4::splat(self.radius)) - margin).max(Vec4::ZERO);
        let b = ((h.abs() - Vec4::splat(self.half_thickness)) - margin).max(Vec4::ZERO);
        a * a + b * b
    }
}

/// The bound of every leaf, by ordinal: `leaves[i] = (first slot, count)` of leaf `i` in
/// `tris` (the leaf-ordered triangles).
pub(crate) fn patch_bounds(leaves: &[[u32; 2]], tris: &[[Vec3; 3]]) -> Vec<PatchBound> {
    leaves
        .par_iter()
        .with_min_len(1024)
        .map(|&[first, count]| PatchBound::new(&tris[first as usize..(first + count) as usize]))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::closest_point_triangle;

    fn rng(seed: u32) -> impl FnMut() -> f32 {
        crate::test_rng::uniform(seed, -1.0, 1.0)
    }

    /// The bound never exceeds the exact (f32) distance of any of the triangles, for
    /// patches from flat to random, near and far from the origin, and points from on the
    /// triangles to far away.
    #[test]
    fn never_above_a_triangle_distance() {
        let mut r = rng(0x0bad_5eed);
        for case in 0..2000 {
            let offset = Vec3::new(r(), r(), r()) * [0.0, 1.0, 1000.0][case % 3];
            let size = [1e-3, 0.1, 10.0][case % 5 % 3];
            let flat = case % 2 == 0;
            let mut v = || {
                let z = if flat { r() * 1e-4 } else { r() };
                offset + Vec3::new(r(), r(), z) * size
            };
            let tris: Vec<[Vec3; 3]> = (0..1 + case % 8).map(|_| [v(), v(), v()]).collect();
            let bound = PatchBound::new(&tris);
            for i in 0..20 {
                let p = if i % 4 == 0 {
                    // On a triangle.
                    let [a, b, c] = tris[i % tris.len()];
                    let (u, w) = (r().abs() * 0.5, r().abs() * 0.5);
                    a + (b - a) * u + (c - a) * w
                } else {
                    offset + Vec3::new(r(), r(), r()) * size * [0.5, 2.0, 50.0][i % 3]
                };
                let below = bound.distance_squared_below(p);
                for &[a, b, c] in &tris {
                    let (q, _) = closest_point_triangle(p, a, b, c);
                    let d2 = (q - p).length_squared();
                    assert!(below <= d2, "case {case}: bound {below} > {d2}");
                }
            }
        }
    }

    /// The four-lane bound equals the one-point bound bit for bit.
    #[test]
    fn four_lanes_equal_one_point() {
        let mut r = rng(0x4444_1111);
        for case in 0..500 {
            let offset = Vec3::new(r(), r(), r()) * [0.0, 1.0, 1000.0][case % 3];
            let mut v = || offset + Vec3::new(r(), r(), r()) * 0.1;
            let tris: Vec<[Vec3; 3]> = (0..1 + case % 8).map(|_| [v(), v(), v()]).collect();
            let bound = PatchBound::new(&tris);
            let points: [Vec3; 4] = std::array::from_fn(|i| {
                offset + Vec3::new(r(), r(), r()) * [0.01, 0.3, 30.0][(case + i) % 3]
            });
            let lanes = [0, 1, 2].map(|axis| Vec4::from_array(points.map(|p| p[axis])));
            let four = bound.distance_squared_below4(&lanes);
            for (i, &p) in points.iter().enumerate() {
                assert_eq!(four[i].to_bits(), bound.distance_squared_below(p).to_bits());
            }
        }
    }

    /// On a flat patch the bound is the distance to the patch's plane and rim, not to
    /// its box.
    #[test]
    fn is_tight_for_a_flat_tilted_patch() {
        let n = Vec3::new(1.0, 1.0, 1.0).normalize();
        let u = n.cross(Vec3::Z).normalize();
        let w = n.cross(u);
        let tris = [[Vec3::ZERO, u * 0.01, w * 0.01]];
        let bound = PatchBound::new(&tris);
        // 0.1 above the patch, 0.03 to the side: the box (size ~0.01) is within ~0.1 but
        // the patch is ~0.104 away.
        let p = n * 0.1 + u * 0.03;
        let below = bound.distance_squared_below(p).sqrt();
        assert!(below > 0.1, "{below}");
    }
}
