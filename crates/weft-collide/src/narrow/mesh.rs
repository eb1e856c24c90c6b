//! Triangle meshes: the walk of a mesh's BVH (in the `ShapeSet` tables, one
//! tree per mesh in its own frame, see [`mesh_tables`](crate::mesh_tables))
//! to the triangles whose boxes overlap a shape's box grown by the margin
//! (which [`terrain`](super::terrain) tests), and a dynamic mesh on a plane,
//! which touches it with its vertices.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, boxes_overlap};
use weft::prelude::*;

use super::plane::plane_point;
use super::triangle::has_flag;
use crate::broad::shape_bounds;
use crate::{Contacts, ShapeSet};

/// The world box of shape `s` (pose `xs`) grown by `margin`, as a box in the
/// frame of a shape at pose `xm` scaled by `scale` (the frame its triangles
/// or samples are stored in).
#[weft::func]
pub fn local_query_box(
    shapes: &ShapeSet,
    s: i32,
    xs: Transform,
    xm: Transform,
    scale: Vec3,
    margin: f32,
) -> (Vec3, Vec3) {
    let (lo, hi) = shape_bounds(shapes, s, xs);
    let c = (lo + hi) * 0.5;
    let h = (hi - lo) * 0.5 + Vec3::splat(margin);
    let r = quat_to_matrix(xm.q);
    let cl = quat_rotate_inv(xm.q, c - xm.p) / scale;
    let hl = Vec3::new(
        dot(abs(r.col(0)), h),
        dot(abs(r.col(1)), h),
        dot(abs(r.col(2)), h),
    ) / scale;
    (cl - hl, cl + hl)
}

/// One step of the stackless walk (over parent links, as
/// `weft::geom::bvh_query_aabb`) of the BVH rooted at node `root` of the
/// `ShapeSet` mesh tables for the triangles whose boxes overlap `lo..hi`:
/// from walk state `(node, down, slot, end)` to the next one, with the
/// triangle slot the step reached (-1 for none) and whether the walk is done.
#[weft::func]
pub fn mesh_walk_step(
    shapes: &ShapeSet,
    root: i32,
    node: i32,
    down: i32,
    slot: i32,
    end: i32,
    lo: Vec3,
    hi: Vec3,
) -> (i32, i32, i32, i32, i32, bool) {
    let leaf_bit = 1u32 << 31;
    let mut n = node;
    let mut d = down;
    let mut sl = slot;
    let mut e = end;
    let mut t = -1;
    let mut done = false;
    if sl < e {
        let p0 = shapes.tri_points[3 * sl];
        let p1 = shapes.tri_points[3 * sl + 1];
        let p2 = shapes.tri_points[3 * sl + 2];
        if boxes_overlap(min(min(p0, p1), p2), max(max(p0, p1), p2), lo, hi) {
            t = sl;
        }
        sl += 1;
    } else if d == 1 {
        let nd = shapes.tri_nodes[n];
        if !boxes_overlap(nd.lower, nd.upper, lo, hi) {
            d = 0;
        } else if (nd.right_or_count & leaf_bit) != 0 {
            sl = nd.left_or_first as i32;
            e = sl + (nd.right_or_count & !leaf_bit) as i32;
            d = 0;
        } else {
            n += 1;
        }
    } else if n == root {
        done = true;
    } else {
        let parent = shapes.tri_parents[n] as i32;
        if n == parent + 1 {
            n = shapes.tri_nodes[parent].right_or_count as i32;
            d = 1;
        } else {
            n = parent;
        }
    }
    (n, d, sl, e, t, done)
}

/// Plane `a` (pose `xa`, half extents `h`) against mesh `b` (pose `xb`): each
/// mesh vertex below the margin is a contact (once: by the triangle that owns
/// it).
#[weft::func]
pub fn plane_mesh(
    shapes: &ShapeSet,
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    xa: Transform,
    h: Vec3,
    xb: Transform,
    margin: f32,
) {
    let info = shapes.mesh_info[shapes.source[b]];
    let scale = shapes.size[b];
    for t in info.z..info.z + info.w {
        let f = shapes.tri_flags[t];
        for k in 0..3 {
            if has_flag(f, 9 + k) {
                let p = transform_point(xb, shapes.tri_points[3 * t + k] * scale);
                plane_point(c, pair, a, b, body_a, body_b, xa, h, p, 0.0, margin);
            }
        }
    }
}
