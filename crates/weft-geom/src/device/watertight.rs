//! The watertight ray–triangle test of Woop, Benthin and Wald (2013),
//! "Watertight Ray/Triangle Intersection", as kernel funcs: the same operations,
//! in the same order, as the host's `weft_geom::WatertightRay`, so a kernel and
//! `weft_geom::MeshBvh::ray` agree on which triangles a ray meets.
//!
//! The ray is sheared so that it becomes the +z axis and the three edge functions
//! are evaluated in 2-D. A shared edge gives both of its triangles the same
//! edge-function value up to sign (same operands, same operations: neither back
//! end fuses `a * b - c * d`), so a ray through an edge or a vertex of a closed
//! mesh hits at least one of the triangles there. An edge function that rounds to
//! exactly zero is recomputed in `f64` (exact products), which settles its sign.

use super::prelude::*;

/// The per-ray part of the watertight test for `o + t d`: `(kx, ky, kz, shear)`,
/// with `kz` the dominant axis of `d`, `(kx, ky)` the next two cyclically (swapped
/// when `d[kz] < 0`, which keeps the triangles' winding) and
/// `shear = (d[kx] / d[kz], d[ky] / d[kz], 1 / d[kz])`. A zero direction gives a
/// NaN shear, which [`ray_triangle_sheared`] never reports as a hit.
#[func(crate = ::weft_runtime)]
pub fn watertight_ray(d: Vec3) -> (i32, i32, i32, Vec3) {
    let a = abs(d);
    let mut kx = 0;
    let mut ky = 1;
    let mut kz = 2;
    if a.x >= a.y && a.x >= a.z {
        kz = 0;
        kx = 1;
        ky = 2;
        if d.x < 0.0 {
            kx = 2;
            ky = 1;
        }
    } else if a.y >= a.z {
        kz = 1;
        kx = 2;
        ky = 0;
        if d.y < 0.0 {
            kx = 0;
            ky = 2;
        }
    } else if d.z < 0.0 {
        kx = 1;
        ky = 0;
    }
    let dz = d[kz];
    let shear = Vec3::new(d[kx] / dz, d[ky] / dz, 1.0 / dz);
    (kx, ky, kz, shear)
}

/// `p * q - r * s`, rounded once from exact `f64` products (the tie-breaker of
/// [`ray_triangle_sheared`] for edge functions that round to zero in `f32`).
#[func(crate = ::weft_runtime)]
fn edge_f64(p: f32, q: f32, r: f32, s: f32) -> f32 {
    ((p as f64) * (q as f64) - (r as f64) * (s as f64)) as f32
}

/// The watertight test of the ray `o + t d`, prepared by [`watertight_ray`]
/// (`kx, ky, kz, s`), against triangle `(a, b, c)`: `(hit, t, wa, wb, wc, front)`
/// with `t >= 0` in units of `|d|`, the hit point `wa a + wb b + wc c` (`wa`, `wb`
/// are the `u`, `v` of `weft_geom`'s queries) and `front` when the ray meets the
/// counter-clockwise side. Degenerate triangles and triangles containing the ray
/// are never hit; a miss is `(false, 0, 0, 0, 0, false)`. Differentiable in `o`,
/// `a`, `b`, `c` and the shear on the hit side.
#[func(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
pub fn ray_triangle_sheared(
    o: Vec3,
    kx: i32,
    ky: i32,
    kz: i32,
    s: Vec3,
    a: Vec3,
    b: Vec3,
    c: Vec3,
) -> (bool, f32, f32, f32, f32, bool) {
    let pa = a - o;
    let pb = b - o;
    let pc = c - o;
    let (az, bz, cz) = (pa[kz], pb[kz], pc[kz]);
    let ax = pa[kx] - s.x * az;
    let ay = pa[ky] - s.y * az;
    let bx = pb[kx] - s.x * bz;
    let by = pb[ky] - s.y * bz;
    let cx = pc[kx] - s.x * cz;
    let cy = pc[ky] - s.y * cz;
    let mut u = cx * by - cy * bx;
    let mut v = ax * cy - ay * cx;
    let mut w = bx * ay - by * ax;
    if u == 0.0 || v == 0.0 || w == 0.0 {
        u = edge_f64(cx, by, cy, bx);
        v = edge_f64(ax, cy, ay, cx);
        w = edge_f64(bx, ay, by, ax);
    }
    let mut out = (false, 0.0, 0.0, 0.0, 0.0, false);
    let mixed = (u < 0.0 || v < 0.0 || w < 0.0) && (u > 0.0 || v > 0.0 || w > 0.0);
    let det = u + v + w;
    // `abs(det) <= MAX` is false for infinities and NaN.
    if !mixed && det != 0.0 && abs(det) <= f32::MAX {
        let t_scaled = u * (s.z * az) + v * (s.z * bz) + w * (s.z * cz);
        // Behind the origin: a sign test on the scaled distance (exact).
        let behind = (det < 0.0 && t_scaled > 0.0) || (det > 0.0 && t_scaled < 0.0);
        let inv = 1.0 / det;
        let t = max(t_scaled * inv, 0.0);
        if !behind && t == t {
            out = (true, t, u * inv, v * inv, w * inv, det > 0.0);
        }
    }
    out
}

/// Where the ray `o + t d` meets triangle `(a, b, c)`, watertight (Woop et al.;
/// the test of `weft_geom::MeshBvh::ray`): `(hit, t, u, v)` with `t >= 0` in units
/// of `|d|` and the point `a + u (b - a) + v (c - a)`, either side. Rays through a
/// shared edge or vertex of a closed mesh hit at least one triangle there.
/// Differentiable in everything on the hit side.
#[func(crate = ::weft_runtime)]
pub fn ray_triangle(o: Vec3, d: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (bool, f32, f32, f32) {
    let (kx, ky, kz, s) = watertight_ray(d);
    let (hit, t, _wa, wb, wc, _front) = ray_triangle_sheared(o, kx, ky, kz, s, a, b, c);
    (hit, t, wb, wc)
}
