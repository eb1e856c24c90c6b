//! Shapes against triangle meshes: the mesh's BVH (in the `ShapeSet` tables,
//! one tree per mesh in its own frame, see [`mesh_tables`](crate::mesh_tables))
//! finds the triangles whose boxes overlap the shape's box grown by the
//! margin, and each is tested by [`collide_triangle`]. A dynamic mesh on a
//! plane touches it with its vertices.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, boxes_overlap};
use weft::prelude::*;

use super::plane::plane_point;
use super::triangle::{collide_triangle, has_flag};
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

/// Shape `s` (a sphere, box, capsule, cylinder or convex hull at world pose
/// `xs`, body pose `body_s`) against mesh `m` (world pose `xm`, body pose
/// `body_m`): every triangle whose box overlaps `s`'s box grown by `margin`,
/// through the mesh's BVH (a stackless walk over parent links, as
/// `weft::geom::bvh_query_aabb`).
#[weft::func]
pub fn mesh_pair(
    shapes: &ShapeSet,
    c: &mut Contacts,
    pair: i32,
    m: i32,
    s: i32,
    body_m: Transform,
    body_s: Transform,
    xm: Transform,
    xs: Transform,
    margin: f32,
) {
    let info = shapes.mesh_info[shapes.source[m]];
    let scale = shapes.size[m];
    let (lo, hi) = local_query_box(shapes, s, xs, xm, scale, margin);
    let leaf_bit = 1u32 << 31;
    let root = info.x;
    let mut node = root;
    let mut down = 1;
    let mut slot = 0;
    let mut end = 0;
    loop {
        if slot < end {
            let t = slot;
            slot += 1;
            let p0 = shapes.tri_points[3 * t];
            let p1 = shapes.tri_points[3 * t + 1];
            let p2 = shapes.tri_points[3 * t + 2];
            if boxes_overlap(min(min(p0, p1), p2), max(max(p0, p1), p2), lo, hi) {
                collide_triangle(
                    shapes,
                    c,
                    pair,
                    m,
                    s,
                    body_m,
                    body_s,
                    transform_point(xm, p0 * scale),
                    transform_point(xm, p1 * scale),
                    transform_point(xm, p2 * scale),
                    transform_point(xm, shapes.tri_opposite[3 * t] * scale),
                    transform_point(xm, shapes.tri_opposite[3 * t + 1] * scale),
                    transform_point(xm, shapes.tri_opposite[3 * t + 2] * scale),
                    shapes.tri_flags[t],
                    margin,
                );
            }
        } else if down == 1 {
            let nd = shapes.tri_nodes[node];
            if !boxes_overlap(nd.lower, nd.upper, lo, hi) {
                down = 0;
            } else if (nd.right_or_count & leaf_bit) != 0 {
                slot = nd.left_or_first as i32;
                end = slot + (nd.right_or_count & !leaf_bit) as i32;
                down = 0;
            } else {
                node += 1;
            }
        } else {
            if node == root {
                break;
            }
            let parent = shapes.tri_parents[node] as i32;
            if node == parent + 1 {
                node = shapes.tri_nodes[parent].right_or_count as i32;
                down = 1;
            } else {
                node = parent;
            }
        }
    }
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
