//! Closest ray hit with the watertight ray–triangle test of Woop, Benthin and Wald
//! (2013), "Watertight Ray/Triangle Intersection".
//!
//! The ray is sheared so that it becomes the +z axis; the three edge functions are
//! then evaluated in 2-D. Shared edges give the same edge-function value to both
//! triangles (same operands, same operations), so a ray through an edge or vertex of a
//! closed mesh hits at least one of the triangles there — it never slips through. When
//! an edge function rounds to exactly zero it is recomputed in `f64` (exact products),
//! which settles its sign.

use glam::Vec3;
use rayon::prelude::*;

use super::leaf_groups::{GroupRay, LANES, TriGroup, hits_in_leaf};
use crate::aabb::RayBoxTest;
use crate::bvh::{RAY_PACKET, RayPacket};
use crate::mesh::Mesh;
use crate::mesh_bvh::MeshBvh;

/// A ray prepared for watertight triangle tests (the per-ray part of the algorithm).
#[derive(Clone, Copy, Debug)]
pub struct WatertightRay {
    /// The origin with its components in `(kx, ky, kz)` order.
    origin: Vec3,
    /// Which axes become x, y and z: the dominant direction axis is z.
    axes: Axes,
    shear: Vec3,
}

/// The axis permutation `(kx, ky, kz)` of a [`WatertightRay`]: `kz` is the dominant
/// axis of the direction, `(kx, ky)` the next two cyclically, swapped when `dir[kz] < 0`
/// (which keeps the triangle's winding).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Axes {
    Yzx,
    Zyx,
    Zxy,
    Xzy,
    Xyz,
    Yxz,
}

impl Axes {
    /// `[kx, ky, kz]`.
    fn indices(self) -> [usize; 3] {
        match self {
            Axes::Yzx => [1, 2, 0],
            Axes::Zyx => [2, 1, 0],
            Axes::Zxy => [2, 0, 1],
            Axes::Xzy => [0, 2, 1],
            Axes::Xyz => [0, 1, 2],
            Axes::Yxz => [1, 0, 2],
        }
    }

    /// `(v[kx], v[ky], v[kz])`: a selection of components, so arithmetic on permuted
    /// vectors gives bit-for-bit the values of indexing the originals.
    #[inline(always)]
    fn apply(self, v: Vec3) -> Vec3 {
        match self {
            Axes::Yzx => Vec3::new(v.y, v.z, v.x),
            Axes::Zyx => Vec3::new(v.z, v.y, v.x),
            Axes::Zxy => Vec3::new(v.z, v.x, v.y),
            Axes::Xzy => Vec3::new(v.x, v.z, v.y),
            Axes::Xyz => v,
            Axes::Yxz => Vec3::new(v.y, v.x, v.z),
        }
    }
}

/// A ray–triangle hit: distance and barycentrics of `p0` (`u`) and `p1` (`v`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TriangleHit {
    /// Distance along the ray in units of `|dir|`.
    pub t: f32,
    /// Weight of `p0`.
    pub u: f32,
    /// Weight of `p1`.
    pub v: f32,
    /// `true` when the ray hits the front (counter-clockwise) side.
    pub front: bool,
}

impl WatertightRay {
    /// Prepares `origin + t dir`; `None` for a zero or non-finite direction or a
    /// non-finite origin.
    pub fn new(origin: Vec3, dir: Vec3) -> Option<Self> {
        if !crate::bvh::valid_ray(origin, dir, 0.0) {
            return None;
        }
        // `kz` is the dominant axis, `(kx, ky) = (kz + 1, kz + 2) mod 3`, swapped when
        // `dir[kz] < 0`; chosen without indexing (this runs once per ray).
        let a = dir.abs();
        let axes = if a.x >= a.y && a.x >= a.z {
            if dir.x < 0.0 { Axes::Zyx } else { Axes::Yzx }
        } else if a.y >= a.z {
            if dir.y < 0.0 { Axes::Xzy } else { Axes::Zxy }
        } else if dir.z < 0.0 {
            Axes::Yxz
        } else {
            Axes::Xyz
        };
        let d = axes.apply(dir);
        let shear = Vec3::new(d.x / d.z, d.y / d.z, 1.0 / d.z);
        Some(Self {
            origin: axes.apply(origin),
            axes,
            shear,
        })
    }

    /// The axis order `[kx, ky, kz]`, the origin in that order and the shear (what the
    /// lane form of the test, `TriGroup::intersect`, needs).
    pub(crate) fn parts(&self) -> ([usize; 3], Vec3, Vec3) {
        (self.axes.indices(), self.origin, self.shear)
    }

    /// Intersects the triangle `p0 p1 p2` for `0 ≤ t ≤ max_t`. Degenerate triangles and
    /// triangles containing the ray (coplanar) are never hit.
    #[inline(always)]
    pub fn intersect(&self, p0: Vec3, p1: Vec3, p2: Vec3, max_t: f32) -> Option<TriangleHit> {
        let s = self.shear;
        // Components in (kx, ky, kz) order: `a.x` is `(p0 - origin)[kx]`, and so on.
        let a = self.axes.apply(p0) - self.origin;
        let b = self.axes.apply(p1) - self.origin;
        let c = self.axes.apply(p2) - self.origin;
        let ax = a.x - s.x * a.z;
        let ay = a.y - s.y * a.z;
        let bx = b.x - s.x * b.z;
        let by = b.y - s.y * b.z;
        let cx = c.x - s.x * c.z;
        let cy = c.y - s.y * c.z;
        let mut u = cx * by - cy * bx;
        let mut v = ax * cy - ay * cx;
        let mut w = bx * ay - by * ax;
        if u == 0.0 || v == 0.0 || w == 0.0 {
            let d =
                |p: f32, q: f32, r: f32, t: f32| (p as f64 * q as f64 - r as f64 * t as f64) as f32;
            u = d(cx, by, cy, bx);
            v = d(ax, cy, ay, cx);
            w = d(bx, ay, by, ax);
        }
        if (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0) {
            return None;
        }
        let det = u + v + w;
        if det == 0.0 || !det.is_finite() {
            return None;
        }
        let t_scaled = u * (s.z * a.z) + v * (s.z * b.z) + w * (s.z * c.z);
        // Behind the origin: sign test on the scaled distance (exact).
        if (det < 0.0 && t_scaled > 0.0) || (det > 0.0 && t_scaled < 0.0) {
            return None;
        }
        let inv = 1.0 / det;
        let t = (t_scaled * inv).max(0.0);
        if t.is_nan() || t > max_t {
            return None;
        }
        Some(TriangleHit {
            t,
            u: u * inv,
            v: v * inv,
            front: det > 0.0,
        })
    }
}

/// The closest hit of a ray with a mesh.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Distance along the ray in units of `|dir|` (the hit is `origin + t dir`).
    pub t: f32,
    /// Barycentric weight of the face's first corner.
    pub u: f32,
    /// Barycentric weight of the face's second corner.
    pub v: f32,
    /// Face index.
    pub face: u32,
    /// Unit geometric normal of the face, `(p1 - p0) × (p2 - p0)` normalized.
    pub normal: Vec3,
    /// `+1` when the ray hit the front face (against the normal), `-1` for the back.
    pub sign: f32,
}

/// Tests face `f` of `mesh` against a prepared ray.
#[inline]
pub(crate) fn intersect_face(
    mesh: &Mesh,
    ray: &WatertightRay,
    f: u32,
    max_t: f32,
) -> Option<TriangleHit> {
    let [a, b, c] = mesh.triangle(f as usize);
    ray.intersect(a, b, c, max_t)
}

/// Builds the [`RayHit`] for face `f` with corners `[a, b, c]` from its triangle hit
/// (the normal is computed as [`Mesh::face_normal`] does).
pub(crate) fn ray_hit(f: u32, [a, b, c]: [Vec3; 3], hit: TriangleHit) -> RayHit {
    RayHit {
        t: hit.t,
        u: hit.u,
        v: hit.v,
        face: f,
        normal: (b - a).cross(c - a).normalize_or_zero(),
        sign: if hit.front { 1.0 } else { -1.0 },
    }
}

impl MeshBvh {
    /// Rays per packet of [`MeshBvh::rays_into`]: that many consecutive rays share one
    /// traversal (e.g. a 4 × 4 block of pixels).
    pub const RAY_PACKET: usize = RAY_PACKET;

    /// Closest hit of the ray `origin + t dir` with `0 ≤ t ≤ max_t` (use
    /// `f32::INFINITY` for no limit). `None` when nothing is hit, for a zero or
    /// non-finite direction, or a non-finite origin. `dir` need not be unit length.
    pub fn ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<RayHit> {
        if !crate::bvh::valid_ray(origin, dir, max_t) || self.bvh().is_empty() {
            return None;
        }
        let ray = WatertightRay::new(origin, dir)?;
        let boxes = RayBoxTest::new(origin, dir);
        let tris = self.leaf_triangles();
        let lanes = GroupRay::new(&ray);
        // A face's hit distance does not depend on the limit it is tested against, so
        // testing against the best hit so far (not `max_t`) only drops faces that
        // would lose anyway: the answer does not depend on the visiting order.
        let prims = self.bvh().prim_indices();
        let (slot, _) = self.wide().closest_hit_slots(
            &boxes,
            max_t,
            prims,
            |first, count, _| crate::bvh::prefetch_slice(&tris[first..first + count]),
            |first, count, _, search| hits_in_leaf(tris, first, count, &ray, &lanes, search),
        )?;
        let [a, b, c] = tris[slot];
        let hit = ray.intersect(a, b, c, max_t)?;
        Some(ray_hit(prims[slot], tris[slot], hit))
    }

    /// [`MeshBvh::ray`] of every ray `(origin, dir)` of `rays`, on the calling thread:
    /// `out[i]` is the answer for `rays[i]` (identical to the one-at-a-time answer).
    ///
    /// Consecutive rays go through the tree [`MeshBvh::RAY_PACKET`] at a time in one
    /// traversal, sharing node loads, stack work and the gathering of each leaf's
    /// triangles; this pays when they are coherent — e.g. a 4 × 4 block of a camera's
    /// pixels — and costs little when they are not. Panics when the lengths differ.
    ///
    /// ```
    /// use glam::Vec3;
    /// use weft_geom::{MeshBvh, generate};
    ///
    /// let sphere = MeshBvh::new(generate::icosphere(1.0, 3));
    /// let rays: Vec<(Vec3, Vec3)> = (0..20)
    ///     .map(|i| (Vec3::new(0.0, 0.0, -5.0), Vec3::new(i as f32 * 0.01, 0.0, 1.0)))
    ///     .collect();
    /// let mut out = vec![None; rays.len()];
    /// sphere.rays_into(&rays, f32::INFINITY, &mut out);
    /// for ((o, d), hit) in rays.iter().zip(&out) {
    ///     assert_eq!(*hit, sphere.ray(*o, *d, f32::INFINITY));
    /// }
    /// ```
    pub fn rays_into(&self, rays: &[(Vec3, Vec3)], max_t: f32, out: &mut [Option<RayHit>]) {
        assert_eq!(rays.len(), out.len(), "one answer per ray");
        if self.bvh().is_empty() {
            out.fill(None);
            return;
        }
        let tris = self.leaf_triangles();
        let prims = self.bvh().prim_indices();
        let wide = self.wide();
        let mut packet = RayPacket::new(prims);
        // Per packet ray: its index in `rays` and its triangle-test forms.
        let mut index = [0usize; RAY_PACKET];
        let unused = WatertightRay::new(Vec3::ZERO, Vec3::Z).expect("a valid ray");
        let mut tests = [(unused, GroupRay::new(&unused)); RAY_PACKET];
        for (chunk, out) in rays.chunks(RAY_PACKET).zip(out.chunks_mut(RAY_PACKET)) {
            packet.clear();
            for (j, &(origin, dir)) in chunk.iter().enumerate() {
                out[j] = None;
                if !crate::bvh::valid_ray(origin, dir, max_t) {
                    continue;
                }
                let Some(ray) = WatertightRay::new(origin, dir) else {
                    continue;
                };
                let boxes = RayBoxTest::new(origin, dir);
                if !boxes.is_finite() {
                    // Axis-parallel: the per-axis slab test of the single-ray path.
                    out[j] = self.ray(origin, dir, max_t);
                    continue;
                }
                let k = packet.len();
                index[k] = j;
                tests[k] = (ray, GroupRay::new(&ray));
                packet.push(&boxes, max_t);
            }
            wide.closest_hit_packet(
                &mut packet,
                |first, count, _| crate::bvh::prefetch_slice(&tris[first..first + count]),
                |first, count, _, set, searches| {
                    for g in (0..count as u32).step_by(LANES) {
                        let group = TriGroup::gather(tris, first as u32, count as u32, g);
                        for i in set {
                            let (ray, lanes) = &tests[i];
                            group.offer_hits(ray, lanes, &mut searches[i]);
                        }
                    }
                },
            );
            for (k, &j) in index[..packet.len()].iter().enumerate() {
                out[j] = packet.result(k).and_then(|(slot, _)| {
                    let [a, b, c] = tris[slot];
                    let hit = tests[k].0.intersect(a, b, c, max_t)?;
                    Some(ray_hit(prims[slot], tris[slot], hit))
                });
            }
        }
    }

    /// [`MeshBvh::rays_into`] in parallel on rayon's pool: `out[i]` is
    /// [`MeshBvh::ray`]`(rays[i].0, rays[i].1, max_t)`. Order the rays so that
    /// neighbours are coherent (see [`MeshBvh::rays_into`]).
    pub fn rays(&self, rays: &[(Vec3, Vec3)], max_t: f32) -> Vec<Option<RayHit>> {
        let mut out = vec![None; rays.len()];
        rays.par_chunks(16 * RAY_PACKET)
            .zip(out.par_chunks_mut(16 * RAY_PACKET))
            .for_each(|(rays, out)| self.rays_into(rays, max_t, out));
        out
    }

    /// `true` when anything is hit with `0 ≤ t ≤ max_t` (stops at the first hit).
    pub fn ray_any(&self, origin: Vec3, dir: Vec3, max_t: f32) -> bool {
        let Some(ray) = WatertightRay::new(origin, dir) else {
            return false;
        };
        let mesh = self.mesh();
        self.bvh()
            .ray_candidates(origin, dir, max_t)
            .any(|f| intersect_face(mesh, &ray, f, max_t).is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri() -> [Vec3; 3] {
        [Vec3::ZERO, Vec3::X, Vec3::Y]
    }

    #[test]
    fn front_hit_barycentrics_follow_warp_convention() {
        let [a, b, c] = tri();
        let r = WatertightRay::new(Vec3::new(0.2, 0.3, 1.0), -Vec3::Z).unwrap();
        let h = r.intersect(a, b, c, f32::INFINITY).unwrap();
        assert!(h.front);
        assert!((h.t - 1.0).abs() < 1e-6);
        let p = a * h.u + b * h.v + c * (1.0 - h.u - h.v);
        assert!((p - Vec3::new(0.2, 0.3, 0.0)).length() < 1e-6, "{p}");
        // From below: back face.
        let r = WatertightRay::new(Vec3::new(0.2, 0.3, -1.0), Vec3::Z).unwrap();
        assert!(!r.intersect(a, b, c, f32::INFINITY).unwrap().front);
    }

    #[test]
    fn respects_max_t_and_origin_side() {
        let [a, b, c] = tri();
        let r = WatertightRay::new(Vec3::new(0.2, 0.3, 1.0), -Vec3::Z).unwrap();
        assert!(r.intersect(a, b, c, 0.5).is_none());
        assert!(r.intersect(a, b, c, 1.0).is_some());
        let r = WatertightRay::new(Vec3::new(0.2, 0.3, 1.0), Vec3::Z).unwrap();
        assert!(r.intersect(a, b, c, f32::INFINITY).is_none());
    }

    #[test]
    fn degenerate_coplanar_and_zero_direction_miss() {
        let [a, b, _] = tri();
        let r = WatertightRay::new(Vec3::new(0.2, 0.0, 1.0), -Vec3::Z).unwrap();
        assert!(r.intersect(a, b, (a + b) * 0.5, f32::INFINITY).is_none());
        assert!(r.intersect(a, a, a, f32::INFINITY).is_none());
        // In the plane of the triangle, along an edge.
        let r = WatertightRay::new(Vec3::new(-1.0, 0.0, 0.0), Vec3::X).unwrap();
        let [a, b, c] = tri();
        assert!(r.intersect(a, b, c, f32::INFINITY).is_none());
        assert!(WatertightRay::new(Vec3::ZERO, Vec3::ZERO).is_none());
        assert!(WatertightRay::new(Vec3::NAN, Vec3::X).is_none());
    }

    /// The permuted-vector form equals the indexed form of Woop et al. bit for bit.
    #[test]
    fn permuted_axes_equal_indexed_components() {
        let mut r = crate::test_rng::uniform(0x2545_f491, -2.0, 2.0);
        for i in 0..20_000 {
            let v = |r: &mut dyn FnMut() -> f32| Vec3::new(r(), r(), r());
            let (o, mut d) = (v(&mut r), v(&mut r));
            if i % 10 == 0 {
                d[i % 3] = 0.0;
            }
            let ray = WatertightRay::new(o, d).unwrap();
            let a = d.abs();
            let kz = if a.x >= a.y && a.x >= a.z {
                0
            } else if a.y >= a.z {
                1
            } else {
                2
            };
            let (mut kx, mut ky) = ((kz + 1) % 3, (kz + 2) % 3);
            if d[kz] < 0.0 {
                std::mem::swap(&mut kx, &mut ky);
            }
            assert_eq!(ray.axes.indices(), [kx, ky, kz]);
            let shear = Vec3::new(d[kx] / d[kz], d[ky] / d[kz], 1.0 / d[kz]);
            assert_eq!(
                ray.shear.to_array().map(f32::to_bits),
                shear.to_array().map(f32::to_bits)
            );
            let p = v(&mut r);
            assert_eq!(ray.axes.apply(p), Vec3::new(p[kx], p[ky], p[kz]));
            let (q, w) = (p - o, ray.axes.apply(p) - ray.origin);
            assert_eq!(
                w.to_array().map(f32::to_bits),
                [q[kx], q[ky], q[kz]].map(f32::to_bits)
            );
        }
    }

    #[test]
    fn shared_edge_hits_exactly_one_or_both_never_none() {
        // Two triangles sharing the diagonal of the unit square; rays through it.
        let (p, q, r, s) = (Vec3::ZERO, Vec3::X, Vec3::new(1.0, 1.0, 0.0), Vec3::Y);
        for i in 0..=100 {
            let x = i as f32 / 100.0;
            let ray = WatertightRay::new(Vec3::new(x, x, 1.0), Vec3::new(0.0, 0.0, -1.0)).unwrap();
            let h1 = ray.intersect(p, q, r, f32::INFINITY);
            let h2 = ray.intersect(p, r, s, f32::INFINITY);
            assert!(h1.is_some() || h2.is_some(), "ray at {x} slipped through");
        }
    }
}
