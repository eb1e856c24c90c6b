//! Closest points on a [`DeviceMesh`]: the stackless BVH search and the
//! differentiable closest point on a triangle.

#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh};
use crate::prelude::*;

/// `n / d` clamped to `0..=1`; 0 when `d` is not positive.
#[weft::func]
fn ratio01(n: f32, d: f32) -> f32 {
    let mut r = 0.0;
    if d > 0.0 {
        r = clamp(n / d, 0.0, 1.0);
    }
    r
}

/// Closest point to `p` over the three edges of a degenerate triangle, with its
/// barycentric weights.
#[weft::func]
fn closest_on_edges(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Vec3) {
    let s0 = ratio01(dot(p - a, b - a), length_sq(b - a));
    let s1 = ratio01(dot(p - b, c - b), length_sq(c - b));
    let s2 = ratio01(dot(p - a, c - a), length_sq(c - a));
    let q0 = a + (b - a) * s0;
    let q1 = b + (c - b) * s1;
    let q2 = a + (c - a) * s2;
    let (d0, d1, d2) = (length_sq(q0 - p), length_sq(q1 - p), length_sq(q2 - p));
    let mut out = (q0, Vec3::new(1.0 - s0, s0, 0.0));
    if d1 < d0 && d1 <= d2 {
        out = (q1, Vec3::new(0.0, 1.0 - s1, s1));
    } else if d2 < d0 && d2 < d1 {
        out = (q2, Vec3::new(1.0 - s2, 0.0, s2));
    }
    out
}

/// Closest point to `p` on triangle `(a, b, c)` and its barycentric weights
/// `(wa, wb, wc)` (Ericson, *Real-Time Collision Detection* §5.1.5: the same
/// region tests as `weft_geom::query::closest_point_triangle`; degenerate
/// triangles fall back to their edges, never NaN for finite input).
/// Differentiable in `p` and the corners (piecewise: vertex, edge or face region).
#[weft::func]
pub fn closest_point_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Vec3) {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = dot(ab, ap);
    let d2 = dot(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Vec3::new(1.0, 0.0, 0.0));
    }
    let bp = p - b;
    let d3 = dot(ab, bp);
    let d4 = dot(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Vec3::new(0.0, 1.0, 0.0));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let s = ratio01(d1, d1 - d3);
        return (a + ab * s, Vec3::new(1.0 - s, s, 0.0));
    }
    let cp = p - c;
    let d5 = dot(ab, cp);
    let d6 = dot(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Vec3::new(0.0, 0.0, 1.0));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let s = ratio01(d2, d2 - d6);
        return (a + ac * s, Vec3::new(1.0 - s, 0.0, s));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let s = ratio01(d4 - d3, (d4 - d3) + (d5 - d6));
        return (b + (c - b) * s, Vec3::new(0.0, 1.0 - s, s));
    }
    let sum = va + vb + vc;
    if !(sum > 0.0) || sum == f32::INFINITY {
        return closest_on_edges(p, a, b, c);
    }
    let v = vb / sum;
    let w = vc / sum;
    (a + ab * v + ac * w, Vec3::new(1.0 - v - w, v, w))
}

/// Squared distance from `p` to the box `lo..hi` (0 inside).
#[weft::func]
pub fn point_box_distance_sq(p: Vec3, lo: Vec3, hi: Vec3) -> f32 {
    let d = max(max(lo - p, p - hi), Vec3::ZERO);
    dot(d, d)
}

/// The children of inner node `n`, nearer to `p` first (by box distance; the left
/// child on ties): `(near, far)`. The same rule decides on the way down and back up.
#[weft::func]
pub fn point_order(mesh: &DeviceMesh, n: i32, p: Vec3) -> (i32, i32) {
    let l = n + 1;
    let r = mesh.nodes[n].right_or_count as i32;
    let dl = point_box_distance_sq(p, mesh.nodes[l].lower, mesh.nodes[l].upper);
    let dr = point_box_distance_sq(p, mesh.nodes[r].lower, mesh.nodes[r].upper);
    if dr < dl { (r, l) } else { (l, r) }
}

/// The face closest to `p` within `max_dist` (inclusive; `f32::INFINITY` for no
/// limit), the smallest index among equally close faces, or -1. A search: integer
/// result, no gradient (evaluate the point with [`closest_point_triangle`]).
/// A point that is not finite, a negative or NaN `max_dist` or an empty mesh give
/// -1 at once (a NaN point would otherwise visit every node).
#[weft::func]
pub fn mesh_query_point_face(mesh: &DeviceMesh, p: Vec3, max_dist: f32) -> i32 {
    let leaf_bit = 1u32 << 31;
    let mut best_d2 = max_dist * max_dist;
    let mut best = -1;
    let mut cur = 0;
    let mut down = true;
    let valid = abs(p.x) < f32::INFINITY
        && abs(p.y) < f32::INFINITY
        && abs(p.z) < f32::INFINITY
        && max_dist >= 0.0
        && mesh.nodes.len() > 0;
    while valid {
        if down {
            let box_d2 = point_box_distance_sq(p, mesh.nodes[cur].lower, mesh.nodes[cur].upper);
            let rc = mesh.nodes[cur].right_or_count;
            if box_d2 > best_d2 {
                down = false;
            } else if (rc & leaf_bit) != 0 {
                let first = mesh.nodes[cur].left_or_first as i32;
                let count = (rc & !leaf_bit) as i32;
                for k in first..first + count {
                    let f = mesh.prims[k] as i32;
                    let a = mesh.points[mesh.faces[3 * f] as i32];
                    let b = mesh.points[mesh.faces[3 * f + 1] as i32];
                    let c = mesh.points[mesh.faces[3 * f + 2] as i32];
                    let (q, _w) = closest_point_triangle(p, a, b, c);
                    let d2 = length_sq(q - p);
                    if d2 < best_d2 || (d2 == best_d2 && (best < 0 || f < best)) {
                        best_d2 = d2;
                        best = f;
                    }
                }
                down = false;
            } else {
                let (near, _far) = point_order(mesh, cur, p);
                cur = near;
            }
        } else {
            if cur == 0 {
                break;
            }
            let parent = mesh.parents[cur] as i32;
            let (near, far) = point_order(mesh, parent, p);
            if cur == near {
                cur = far;
                down = true;
            } else {
                cur = parent;
            }
        }
    }
    best
}
