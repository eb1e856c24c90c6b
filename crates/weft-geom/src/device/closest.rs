//! Closest points on a [`DeviceMesh`]: the BVH search and the
//! differentiable closest point on a triangle.

use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::ray::{no_node, tri_corner};
#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh};

/// `n / d` clamped to `0..=1`; 0 when `d` is not positive.
#[func(crate = ::weft_runtime)]
fn ratio01(n: f32, d: f32) -> f32 {
    let mut r = 0.0;
    if d > 0.0 {
        r = clamp(n / d, 0.0, 1.0);
    }
    r
}

/// `dot(a, b)` with fused multiply-adds: `a.z b.z + (a.y b.y + a.x b.x)`, each
/// step rounded once.
#[func(crate = ::weft_runtime)]
fn dot_fma(a: Vec3, b: Vec3) -> f32 {
    fma(a.z, b.z, fma(a.y, b.y, a.x * b.x))
}

/// Closest point to `p` over the three edges of a degenerate triangle, with its
/// barycentric weights.
#[func(crate = ::weft_runtime)]
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
/// Its dot products and interpolations are fused multiply-adds ([`fma`](weft_types::builtins::fma)):
/// the same bits on every device, and within rounding of the host's.
#[func(crate = ::weft_runtime)]
pub fn closest_point_triangle(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Vec3) {
    let ab = b - a;
    let ac = c - a;
    let ap = p - a;
    let d1 = dot_fma(ab, ap);
    let d2 = dot_fma(ac, ap);
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Vec3::new(1.0, 0.0, 0.0));
    }
    let bp = p - b;
    let d3 = dot_fma(ab, bp);
    let d4 = dot_fma(ac, bp);
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Vec3::new(0.0, 1.0, 0.0));
    }
    let vc = fma(d1, d4, -(d3 * d2));
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let s = ratio01(d1, d1 - d3);
        return (fma(ab, Vec3::splat(s), a), Vec3::new(1.0 - s, s, 0.0));
    }
    let cp = p - c;
    let d5 = dot_fma(ab, cp);
    let d6 = dot_fma(ac, cp);
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Vec3::new(0.0, 0.0, 1.0));
    }
    let vb = fma(d5, d2, -(d1 * d6));
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let s = ratio01(d2, d2 - d6);
        return (fma(ac, Vec3::splat(s), a), Vec3::new(1.0 - s, 0.0, s));
    }
    let va = fma(d3, d6, -(d5 * d4));
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let s = ratio01(d4 - d3, (d4 - d3) + (d5 - d6));
        return (fma(c - b, Vec3::splat(s), b), Vec3::new(0.0, 1.0 - s, s));
    }
    let sum = va + vb + vc;
    if !(sum > 0.0) || sum == f32::INFINITY {
        return closest_on_edges(p, a, b, c);
    }
    let v = vb / sum;
    let w = vc / sum;
    let q = fma(ac, Vec3::splat(w), fma(ab, Vec3::splat(v), a));
    (q, Vec3::new(1.0 - v - w, v, w))
}

/// Squared distance from `p` to the box `lo..hi` (0 inside), summed with fused
/// multiply-adds.
#[func(crate = ::weft_runtime)]
pub fn point_box_distance_sq(p: Vec3, lo: Vec3, hi: Vec3) -> f32 {
    let d = max(max(lo - p, p - hi), Vec3::ZERO);
    dot_fma(d, d)
}

/// The children `l` and `r` of an inner node, nearer to `p` first (by box
/// distance; the left one on ties), each with its squared box distance:
/// `(near, near_d2, far, far_d2)`. The descent and the climb of
/// [`mesh_query_point_face`] agree on the order.
#[func(crate = ::weft_runtime)]
pub fn point_order(mesh: &DeviceMesh, l: i32, r: i32, p: Vec3) -> (i32, f32, i32, f32) {
    let ln = mesh.nodes[l];
    let rn = mesh.nodes[r];
    let dl = point_box_distance_sq(p, ln.lower, ln.upper);
    let dr = point_box_distance_sq(p, rn.lower, rn.upper);
    if dr < dl {
        (r, dr, l, dl)
    } else {
        (l, dl, r, dr)
    }
}

/// Where a closest-point search of the subtree under `root` continues once its
/// stack ran empty after dropping entries (see [`mesh_query_point_face`]):
/// climbing from the finished node `done`, the farther child of the first ancestor
/// below `root` whose nearer child holds `done` and whose farther child lies
/// within `best_d2`; -1 when there is none.
#[func(crate = ::weft_runtime)]
fn point_resume(mesh: &DeviceMesh, root: i32, done: i32, p: Vec3, best_d2: f32) -> i32 {
    let mut c = done;
    let mut next = -1;
    while next < 0 && c != root {
        let parent = mesh.parents[c] as i32;
        let r = mesh.nodes[parent].right_or_count as i32;
        let (near, _near_d2, far, far_d2) = point_order(mesh, parent + 1, r, p);
        if c == near && far_d2 <= best_d2 {
            next = far;
        } else {
            c = parent;
        }
    }
    next
}

/// The squared distance from `p` to triangle `(a, b, c)` exactly as the
/// closest-point searches compute and compare it (closest point by
/// [`closest_point_triangle`], squares summed with fused multiply-adds): a loop
/// over faces that keeps the smallest, first index on ties, picks the face
/// [`mesh_query_point_face`] returns. Differentiable.
#[func(crate = ::weft_runtime)]
pub fn point_triangle_distance_sq(p: Vec3, a: Vec3, b: Vec3, c: Vec3) -> f32 {
    let (q, _w) = closest_point_triangle(p, a, b, c);
    dot_fma(q - p, q - p)
}

/// The squared distance from `p` to the triangle in leaf slot `k` of
/// [`DeviceMesh::tris`].
#[func(crate = ::weft_runtime)]
fn point_leaf_triangle(mesh: &DeviceMesh, k: i32, p: Vec3) -> f32 {
    let a = tri_corner(mesh.tris[3 * k]);
    let b = tri_corner(mesh.tris[3 * k + 1]);
    let c = tri_corner(mesh.tris[3 * k + 2]);
    point_triangle_distance_sq(p, a, b, c)
}

/// The face closest to `p` within `max_dist` (inclusive; `f32::INFINITY` for no
/// limit), the smallest index among equally close faces, or -1. A search: integer
/// result, no gradient (evaluate the point with [`closest_point_triangle`]).
/// Depth first, the nearer child before the other, which waits on a stack in
/// local memory ([`TRAVERSAL_STACK_SLOTS`](super::TRAVERSAL_STACK_SLOTS) entries, each with its box distance)
/// and is skipped without a read when the best distance has shrunk below it by
/// the time it is taken off; the first leaf reached is the one nearest by box,
/// so the search radius shrinks at once. A full stack overwrites its oldest
/// entry; once it runs empty after that, the search climbs parent links to find
/// the dropped subtrees (`point_resume`), so any tree depth is correct. As in
/// [`mesh_query_ray_face`](super::mesh_query_ray_face), a child entered from its
/// parent comes with its node read and a leaf's triangles are one contiguous read
/// of [`DeviceMesh::tris`], tested one per turn of the search loop (on a GPU,
/// threads of a warp at leaves and at inner nodes then take turns a triangle at
/// a time rather than a whole leaf).
/// A point that is not finite, a negative or NaN `max_dist` or an empty mesh give
/// -1 at once (a NaN point would otherwise visit every node).
/// For many points at once on a GPU, [`ClosestPoints`](super::ClosestPoints) is
/// faster.
#[func(crate = ::weft_runtime)]
pub fn mesh_query_point_face(mesh: &DeviceMesh, p: Vec3, max_dist: f32) -> i32 {
    let mut limit = -1.0;
    if max_dist >= 0.0 {
        limit = max_dist * max_dist;
    }
    let (best, _d2, _done) = mesh_query_point_subtree(mesh, p, 0, limit, -1, i32::MAX);
    best
}

/// The search of [`mesh_query_point_face`] in the subtree under node `root`,
/// starting from a known answer — face `best` (-1 for none) at squared distance
/// `best_d2` (the limit: faces farther away are not considered, equally far ones
/// with a smaller index are) — and stopping after `budget` nodes:
/// `(face, squared distance, finished)`. When `finished` is false the answer is
/// only the best so far, a bound to start another search from. The subtrees of
/// a node's descendants at one depth together hold all of its faces, so searches
/// of them from one bound, combined by (distance, index), give the whole
/// search's answer ([`ClosestPoints`](super::ClosestPoints) splits its slowest
/// queries that way). A point that is not finite, a negative or NaN `best_d2`, or
/// a `root` that is not a node give `(best, best_d2, true)` at once.
#[func(crate = ::weft_runtime)]
pub fn mesh_query_point_subtree(
    mesh: &DeviceMesh,
    p: Vec3,
    root: i32,
    best_d2: f32,
    best: i32,
    budget: i32,
) -> (i32, f32, bool) {
    let leaf_bit = 1u32 << 31;
    let mut best_d2 = best_d2;
    let mut best = best;
    let valid = abs(p.x) < f32::INFINITY
        && abs(p.y) < f32::INFINITY
        && abs(p.z) < f32::INFINITY
        && best_d2 >= 0.0
        && root >= 0
        && root < mesh.nodes.len();
    let mut node = no_node();
    let mut go = false;
    if valid {
        node = mesh.nodes[root];
        go = point_box_distance_sq(p, node.lower, node.upper) <= best_d2;
    }
    let mut finished = true;
    if go {
        // `TRAVERSAL_STACK_SLOTS` entries, used as a ring: `top` counts pushes
        // minus pops, `len` the entries held.
        let mut stack = [0i32; 32];
        let mut dist = [0.0f32; 32];
        let mut top = 0;
        let mut len = 0;
        let mut dropped = false;
        let mut cur = root;
        let mut steps = 0;
        // Triangles `tri..tri_end` of the leaf `cur` remain to be tested, one
        // per iteration.
        let mut tri = 0;
        let mut tri_end = 0;
        while go {
            let mut pop = false;
            if tri == tri_end {
                // Visit `cur` (its box is within `best_d2`; `node` holds it).
                steps += 1;
                let rc = node.right_or_count;
                if (rc & leaf_bit) != 0 {
                    tri = node.left_or_first as i32;
                    tri_end = tri + (rc & !leaf_bit) as i32;
                    pop = tri == tri_end;
                } else {
                    // The order of `point_order` (box distance, left on ties).
                    let (l, r) = (cur + 1, rc as i32);
                    let ln = mesh.nodes[l];
                    let rn = mesh.nodes[r];
                    let dl = point_box_distance_sq(p, ln.lower, ln.upper);
                    let dr = point_box_distance_sq(p, rn.lower, rn.upper);
                    let mut near = l;
                    let mut near_d2 = dl;
                    let mut near_node = ln;
                    let mut far = r;
                    let mut far_d2 = dr;
                    if dr < dl {
                        near = r;
                        near_d2 = dr;
                        near_node = rn;
                        far = l;
                        far_d2 = dl;
                    }
                    if near_d2 <= best_d2 {
                        cur = near;
                        node = near_node;
                        if far_d2 <= best_d2 {
                            stack[top & 31] = far;
                            dist[top & 31] = far_d2;
                            top += 1;
                            if len < 32 {
                                len += 1;
                            } else {
                                dropped = true;
                            }
                        }
                    } else {
                        pop = true;
                    }
                }
            }
            if tri < tri_end {
                let d2 = point_leaf_triangle(mesh, tri, p);
                if d2 <= best_d2 {
                    let f = mesh.prims[tri] as i32;
                    if d2 < best_d2 || best < 0 || f < best {
                        best_d2 = d2;
                        best = f;
                    }
                }
                tri += 1;
                pop = tri == tri_end;
            }
            if pop {
                // `cur` is done: the next node is the latest pending one still
                // within `best_d2`.
                let mut next = -1;
                while next < 0 && len > 0 {
                    top -= 1;
                    len -= 1;
                    if dist[top & 31] <= best_d2 {
                        next = stack[top & 31];
                    }
                }
                if next < 0 && dropped {
                    next = point_resume(mesh, root, cur, p, best_d2);
                }
                if next >= 0 {
                    node = mesh.nodes[next];
                }
                cur = next;
            }
            // The budget counts nodes: a leaf's triangles are always finished.
            if tri == tri_end {
                go = cur >= 0 && steps < budget;
                finished = cur < 0;
            }
        }
    }
    (best, best_d2, finished)
}
