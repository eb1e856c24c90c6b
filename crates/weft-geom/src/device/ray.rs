//! Rays against a [`DeviceMesh`]: the BVH search (watertight, with the triangle
//! test of [`super::watertight`]).

use super::prelude::*;
#[allow(unused_imports)] // named by the generated code
use super::watertight::{ray_triangle_sheared, watertight_ray};
#[allow(unused_imports)] // named by the generated code
use super::{BvhNode, DeviceMesh};

/// `1 + 2γ₃` (γ₃ = 3ε/(1 - 3ε), ε = 2⁻²⁴), the factor of the exit distance in
/// [`ray_box_entry`]: `weft_geom::aabb::SLAB_FAR_SCALE` (kernels see literals
/// only; a test keeps the two equal).
#[func(crate = ::weft_runtime)]
pub fn slab_far_scale() -> f32 {
    1.000_000_357_6
}

/// The inverse direction for the slab tests of [`ray_box`]: `1 / d`
/// componentwise, with components smaller than 1e-30 in magnitude (zero of
/// either sign included) taken as ±1e-30, so that the inverse is finite and
/// `(lo - o) * inv` is never `0 · ∞`, a NaN. A ray parallel to a slab then meets
/// it exactly when its origin is within the slab, boundary included (a ray along
/// a face or edge of an axis-aligned box enters the box).
#[func(crate = ::weft_runtime)]
pub fn ray_inverse(d: Vec3) -> Vec3 {
    Vec3::new(
        1.0 / away_from_zero(d.x),
        1.0 / away_from_zero(d.y),
        1.0 / away_from_zero(d.z),
    )
}

/// `x`, or ±1e-30 when `|x|` is smaller (+ for zero and -0).
#[func(crate = ::weft_runtime)]
fn away_from_zero(x: f32) -> f32 {
    let mut y = x;
    if abs(x) < 1.0e-30 {
        y = 1.0e-30;
        if x < 0.0 {
            y = -1.0e-30;
        }
    }
    y
}

/// Whether the ray `o + t d` (`inv` = [`ray_inverse`]`(d)`) meets the box
/// `lo..hi` for some `t` in `0..=t_max`. (With an infinite `inv`, a zero
/// direction component, a ray on a slab boundary gives `0 · ∞`, a NaN that
/// `min`/`max` drop, and misses the box.)
#[func(crate = ::weft_runtime)]
pub fn ray_box(lo: Vec3, hi: Vec3, o: Vec3, inv: Vec3, t_max: f32) -> bool {
    let (hit, _enter) = ray_box_entry(lo, hi, o, inv, t_max);
    hit
}

/// [`ray_box`] and where the ray enters the box: `(hit, t_enter)`, with
/// `t_enter` clamped to 0 from below (0 when the origin is inside) and computed
/// whether or not the box is hit (it does not depend on `t_max`). Conservative as
/// the host's `weft_geom::RayBoxTest`: the exit distance is scaled by
/// [`slab_far_scale`] (Ize 2013, "Robust BVH Ray Traversal"), so rounding never
/// culls a box that the exact ray touches (a ray aimed at a vertex on the box).
/// `t_max` is scaled too: a search passes its best hit so far, and a box whose
/// rounded entry lies just past a hit that rounded short is still visited, so
/// faces hit at the same `t` all take part in the tie-break.
#[func(crate = ::weft_runtime)]
pub fn ray_box_entry(lo: Vec3, hi: Vec3, o: Vec3, inv: Vec3, t_max: f32) -> (bool, f32) {
    let t0 = (lo - o) * inv;
    let t1 = (hi - o) * inv;
    let near = max(
        max(min(t0.x, t1.x), min(t0.y, t1.y)),
        max(min(t0.z, t1.z), 0.0),
    );
    let far = min(
        min(min(max(t0.x, t1.x), max(t0.y, t1.y)), max(t0.z, t1.z)),
        t_max,
    ) * slab_far_scale();
    (near <= far, near)
}

/// The children `l` and `r` of an inner node, the one the ray enters first
/// first (the left one on ties), each with whether the ray meets its box within
/// `t_max`: `(near, near_hit, far, far_hit)`. The order does not depend on `t_max`,
/// so the descent and the climb of [`mesh_query_ray_face`] agree on it.
#[func(crate = ::weft_runtime)]
pub fn ray_order(
    mesh: &DeviceMesh,
    l: i32,
    r: i32,
    o: Vec3,
    inv: Vec3,
    t_max: f32,
) -> (i32, bool, i32, bool) {
    let ln = mesh.nodes[l];
    let rn = mesh.nodes[r];
    let (hl, tl) = ray_box_entry(ln.lower, ln.upper, o, inv, t_max);
    let (hr, tr) = ray_box_entry(rn.lower, rn.upper, o, inv, t_max);
    if tr < tl {
        (r, hr, l, hl)
    } else {
        (l, hl, r, hr)
    }
}

/// Where a ray search continues once its stack ran empty after dropping entries
/// (see [`mesh_query_ray_face`]): climbing from the finished node `done`, the farther child
/// of the first ancestor whose nearer child holds `done` and whose farther child
/// the ray meets within `t_max`; -1 when there is none.
#[func(crate = ::weft_runtime)]
fn ray_resume(mesh: &DeviceMesh, done: i32, o: Vec3, inv: Vec3, t_max: f32) -> i32 {
    let mut c = done;
    let mut next = -1;
    while next < 0 && c != 0 {
        let p = mesh.parents[c] as i32;
        let r = mesh.nodes[p].right_or_count as i32;
        let (near, _near_hit, far, far_hit) = ray_order(mesh, p + 1, r, o, inv, t_max);
        if c == near && far_hit {
            next = far;
        } else {
            c = p;
        }
    }
    next
}

/// A corner of a [`DeviceMesh::tris`] entry.
#[func(crate = ::weft_runtime)]
pub fn tri_corner(v: Vec4) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

/// A placeholder node (an empty leaf) for searches whose current node is read
/// later.
#[func(crate = ::weft_runtime)]
pub fn no_node() -> BvhNode {
    BvhNode {
        lower: Vec3::ZERO,
        left_or_first: 0,
        upper: Vec3::ZERO,
        right_or_count: 1u32 << 31,
    }
}

/// Whether the ray from `o`, prepared by [`watertight_ray`] (`kx, ky, kz, s`),
/// meets the triangle in leaf slot `k` of [`DeviceMesh::tris`], and where:
/// `(hit, t)`.
#[func(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
fn ray_leaf_triangle(
    mesh: &DeviceMesh,
    k: i32,
    o: Vec3,
    kx: i32,
    ky: i32,
    kz: i32,
    s: Vec3,
) -> (bool, f32) {
    let a = tri_corner(mesh.tris[3 * k]);
    let b = tri_corner(mesh.tris[3 * k + 1]);
    let c = tri_corner(mesh.tris[3 * k + 2]);
    let (hit, t, _wa, _wb, _wc, _front) = ray_triangle_sheared(o, kx, ky, kz, s, a, b, c);
    (hit, t)
}

/// The first hit so far, `(best_t, best)` (face -1 for none), updated with the
/// triangle in leaf slot `k`: nearer wins, and the smaller face index at the
/// same `t` (the face index is read only when the hit can count). The ray is
/// prepared by [`watertight_ray`] (`kx, ky, kz, s`).
#[func(crate = ::weft_runtime)]
#[allow(clippy::too_many_arguments)]
fn ray_leaf_best(
    mesh: &DeviceMesh,
    k: i32,
    o: Vec3,
    kx: i32,
    ky: i32,
    kz: i32,
    s: Vec3,
    best_t: f32,
    best: i32,
) -> (f32, i32) {
    let (hit, t) = ray_leaf_triangle(mesh, k, o, kx, ky, kz, s);
    let mut out = (best_t, best);
    if hit && t <= best_t {
        let f = mesh.prims[k] as i32;
        if t < best_t || best < 0 || f < best {
            out = (t, f);
        }
    }
    out
}

/// The face the ray `o + t d`, `0 <= t <= max_t`, meets first (the smallest
/// index among faces hit at the same `t`), or -1. Watertight: triangles are
/// tested with [`ray_triangle_sheared`] (the test of `weft_geom::MeshBvh::ray`)
/// and boxes conservatively ([`ray_box_entry`]), so a ray through an edge or a
/// vertex of a closed mesh never slips through. A search: integer result, no
/// gradient (evaluate the hit with [`ray_triangle`](super::ray_triangle)). Depth
/// first, the child the ray enters first before the other, which waits on a stack
/// in local memory ([`TRAVERSAL_STACK_SLOTS`](super::TRAVERSAL_STACK_SLOTS)
/// entries) and is skipped when a nearer hit is found before it is taken off (its box is tested
/// again then). A full stack overwrites its oldest entry; once it runs empty
/// after that, the search climbs parent links to find the dropped subtrees
/// (`ray_resume`), so any tree depth is correct.
///
/// For the GPU: an inner node reads both children (whose boxes decide the
/// order) and the search enters the nearer one with its node already in
/// registers, so a descent takes one memory round trip per level; inner nodes
/// are walked in a loop of their own until a leaf of several triangles is
/// reached, so that the threads of a warp test those together (Aila and Laine's
/// "while-while"; a leaf of one triangle is tested on the way); a leaf's triangles are one contiguous read of
/// [`DeviceMesh::tris`].
#[func(crate = ::weft_runtime)]
pub fn mesh_query_ray_face(mesh: &DeviceMesh, o: Vec3, d: Vec3, max_t: f32) -> i32 {
    let leaf_bit = 1u32 << 31;
    let inv = ray_inverse(d);
    let (kx, ky, kz, s) = watertight_ray(d);
    let mut best_t = max_t;
    let mut best = -1;
    // `TRAVERSAL_STACK_SLOTS` entries in local memory, used as a ring: `top`
    // counts pushes minus pops, `len` the entries held.
    let mut stack = [0i32; 32];
    let mut top = 0;
    let mut len = 0;
    let mut dropped = false;
    let mut cur = 0;
    let mut node = no_node();
    // Whether `node` is still to be read and its box tested: the root and every
    // node taken off the stack (`best_t` may have shrunk since it was pushed). A
    // child entered from its parent comes read, its box hit at the current `best_t`.
    let mut fresh = true;
    let mut go = mesh.nodes.len() > 0;
    while go {
        // Inner nodes, until a leaf whose box the ray meets (or the end).
        let mut at_leaf = false;
        while go && !at_leaf {
            if fresh {
                node = mesh.nodes[cur];
            }
            let rc = node.right_or_count;
            let mut next = -1;
            if !fresh || ray_box(node.lower, node.upper, o, inv, best_t) {
                if rc == (leaf_bit | 1) {
                    // A leaf of one triangle costs about an inner step: tested
                    // here, without waiting for the warp.
                    let k = node.left_or_first as i32;
                    let (bt, b) = ray_leaf_best(mesh, k, o, kx, ky, kz, s, best_t, best);
                    best_t = bt;
                    best = b;
                } else if (rc & leaf_bit) != 0 {
                    at_leaf = true;
                } else {
                    // The order of `ray_order` (entry distance, left on ties).
                    let (l, r) = (cur + 1, rc as i32);
                    let ln = mesh.nodes[l];
                    let rn = mesh.nodes[r];
                    let (hl, tl) = ray_box_entry(ln.lower, ln.upper, o, inv, best_t);
                    let (hr, tr) = ray_box_entry(rn.lower, rn.upper, o, inv, best_t);
                    let mut near = l;
                    let mut near_hit = hl;
                    let mut near_node = ln;
                    let mut far = r;
                    let mut far_hit = hr;
                    let mut far_node = rn;
                    if tr < tl {
                        near = r;
                        near_hit = hr;
                        near_node = rn;
                        far = l;
                        far_hit = hl;
                        far_node = ln;
                    }
                    if near_hit {
                        next = near;
                        node = near_node;
                        if far_hit {
                            stack[top & 31] = far;
                            top += 1;
                            if len < 32 {
                                len += 1;
                            } else {
                                dropped = true;
                            }
                        }
                    } else if far_hit {
                        next = far;
                        node = far_node;
                    }
                }
            }
            if !at_leaf {
                fresh = next < 0;
                if next < 0 {
                    if len > 0 {
                        top -= 1;
                        len -= 1;
                        next = stack[top & 31];
                    } else if dropped {
                        next = ray_resume(mesh, cur, o, inv, best_t);
                    }
                }
                cur = next;
                go = next >= 0;
            }
        }
        if at_leaf {
            let rc = node.right_or_count;
            let first = node.left_or_first as i32;
            let count = (rc & !leaf_bit) as i32;
            for k in first..first + count {
                let (bt, b) = ray_leaf_best(mesh, k, o, kx, ky, kz, s, best_t, best);
                best_t = bt;
                best = b;
            }
            let mut next = -1;
            if len > 0 {
                top -= 1;
                len -= 1;
                next = stack[top & 31];
            } else if dropped {
                next = ray_resume(mesh, cur, o, inv, best_t);
            }
            fresh = true;
            cur = next;
            go = next >= 0;
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slab_scale_is_the_hosts() {
        assert_eq!(slab_far_scale(), crate::aabb::SLAB_FAR_SCALE);
    }
}
