//! Rays against a [`DeviceMesh`]: the stackless BVH search and the differentiable
//! ray–triangle intersection.

#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh};
use crate::prelude::*;

/// Whether the ray `o + t d` (`inv` = 1 / d componentwise) meets the box
/// `lo..hi` for some `t` in `0..=t_max`. A zero direction component gives an
/// infinite `inv`; the NaN of `0 · ∞` on a slab boundary is ignored by `min`/`max`,
/// which keeps the test conservative.
#[weft::func]
pub fn ray_box(lo: Vec3, hi: Vec3, o: Vec3, inv: Vec3, t_max: f32) -> bool {
    let t0 = (lo - o) * inv;
    let t1 = (hi - o) * inv;
    let near = max(
        max(min(t0.x, t1.x), min(t0.y, t1.y)),
        max(min(t0.z, t1.z), 0.0),
    );
    let far = min(
        min(max(t0.x, t1.x), max(t0.y, t1.y)),
        min(max(t0.z, t1.z), t_max),
    );
    near <= far
}

/// The children of inner node `n`, nearer along `d` first (by their boxes'
/// centres): `(near, far)`. The same rule decides on the way down and back up.
#[weft::func]
pub fn ray_order(mesh: &DeviceMesh, n: i32, d: Vec3) -> (i32, i32) {
    let l = n + 1;
    let r = mesh.nodes[n].right_or_count as i32;
    let cl = mesh.nodes[l].lower + mesh.nodes[l].upper;
    let cr = mesh.nodes[r].lower + mesh.nodes[r].upper;
    if dot(cr - cl, d) < 0.0 {
        (r, l)
    } else {
        (l, r)
    }
}

/// Where the ray `o + t d` meets triangle `(a, b, c)` (Möller–Trumbore):
/// `(hit, t, u, v)` with the point `a + u (b - a) + v (c - a)`, for `t >= 0`,
/// either side. Differentiable in everything on the hit side.
#[weft::func]
pub fn ray_triangle(o: Vec3, d: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (bool, f32, f32, f32) {
    let e1 = b - a;
    let e2 = c - a;
    let p = cross(d, e2);
    let det = dot(e1, p);
    let mut out = (false, 0.0, 0.0, 0.0);
    if det != 0.0 {
        let inv = 1.0 / det;
        let s = o - a;
        let u = dot(s, p) * inv;
        let q = cross(s, e1);
        let v = dot(d, q) * inv;
        let t = dot(e2, q) * inv;
        if u >= 0.0 && v >= 0.0 && u + v <= 1.0 && t >= 0.0 {
            out = (true, t, u, v);
        }
    }
    out
}

/// The face the ray `o + t d`, `0 <= t <= max_t`, meets first, or -1. A search:
/// integer result, no gradient (evaluate the hit with [`ray_triangle`]).
#[weft::func]
pub fn mesh_query_ray_face(mesh: &DeviceMesh, o: Vec3, d: Vec3, max_t: f32) -> i32 {
    let leaf_bit = 1u32 << 31;
    let inv = Vec3::new(1.0 / d.x, 1.0 / d.y, 1.0 / d.z);
    let mut best_t = max_t;
    let mut best = -1;
    let mut cur = 0;
    let mut down = true;
    loop {
        if down {
            let lo = mesh.nodes[cur].lower;
            let hi = mesh.nodes[cur].upper;
            let rc = mesh.nodes[cur].right_or_count;
            if !ray_box(lo, hi, o, inv, best_t) {
                down = false;
            } else if (rc & leaf_bit) != 0 {
                let first = mesh.nodes[cur].left_or_first as i32;
                let count = (rc & !leaf_bit) as i32;
                for k in first..first + count {
                    let f = mesh.prims[k] as i32;
                    let a = mesh.points[mesh.faces[3 * f] as i32];
                    let b = mesh.points[mesh.faces[3 * f + 1] as i32];
                    let c = mesh.points[mesh.faces[3 * f + 2] as i32];
                    let (hit, t, _u, _v) = ray_triangle(o, d, a, b, c);
                    if hit && t <= best_t {
                        if t < best_t || best < 0 || f < best {
                            best_t = t;
                            best = f;
                        }
                    }
                }
                down = false;
            } else {
                let (near, _far) = ray_order(mesh, cur, d);
                cur = near;
            }
        } else {
            if cur == 0 {
                break;
            }
            let p = mesh.parents[cur] as i32;
            let (near, far) = ray_order(mesh, p, d);
            if cur == near {
                cur = far;
                down = true;
            } else {
                cur = p;
            }
        }
    }
    best
}
