//! Shapes against meshes and height fields ("terrain"): one loop over the
//! triangles under the shape's box — a mesh's from its BVH walk
//! ([`mesh_walk_step`]), a height field's from its cells ([`field_cells`],
//! [`field_triangle`]) — each tested by [`collide_triangle`]. One loop for
//! both kinds keeps one copy of the triangle test (GJK, EPA, the face
//! manifold) in the kernel: funcs are inlined, and two call sites doubled the
//! narrow phase's PTX.

#[allow(unused_imports)] // named by the generated code
use weft::geom::boxes_overlap;
use weft::prelude::*;

use super::emit::emit_contact;
use super::heightfield::{field_cells, field_triangle};
use super::mesh::{local_query_box, mesh_walk_step};
use super::support::core_radius;
use super::triangle::collide_triangle;
use crate::{Contacts, ShapeSet};

/// Shape `s` (a sphere, box, capsule, cylinder or convex hull on a body at
/// world pose `body_s`) against mesh or height field `m` (world pose `xm`, on
/// a body at `body_m`): every triangle whose box overlaps `s`'s box grown by
/// `margin`. Contacts are stored as (m, s).
#[weft::func]
pub fn terrain_pair(
    shapes: &ShapeSet,
    c: &mut Contacts,
    pair: i32,
    m: i32,
    s: i32,
    body_m: Transform,
    body_s: Transform,
    xm: Transform,
    margin: f32,
) {
    let xs = body_s * shapes.transform[s];
    let is_mesh = shapes.kind[m] == 6;
    let src = shapes.source[m];
    // A mesh's triangles are stored unscaled; a field's spacing is its size.
    let mut scale = shapes.size[m];
    let sp = shapes.size[m];
    if !is_mesh {
        scale = Vec3::ONE;
    }
    let (lo, hi) = local_query_box(shapes, s, xs, xm, scale, margin);
    // The mesh walk's state.
    let mut root = 0;
    let mut node = 0;
    let mut down = 1;
    let mut slot = 0;
    let mut end = 0;
    // The field's cells, and the cursor (i, j, t) over their triangles.
    let mut info = IVec4::ZERO;
    let mut cells = (0, -1, 0, -1);
    if is_mesh {
        root = shapes.mesh_info[src].x;
        node = root;
    } else {
        info = shapes.field_info[src];
        cells = field_cells(info, sp, shapes.field_range[src], lo, hi);
    }
    let (i0, i1, j0, j1) = cells;
    let mut i = i0;
    let mut j = j0;
    let mut t = 0;
    // Whether any triangle gave contacts, and the nearest one within the
    // margin, for the fallback below.
    let mut emitted = 0;
    let mut best_gap = 3.0e38;
    let mut best_pt = Vec3::ZERO;
    let mut best_ps = Vec3::ZERO;
    let mut best_n = Vec3::Z;
    loop {
        let mut found = false;
        let mut p0 = Vec3::ZERO;
        let mut p1 = Vec3::ZERO;
        let mut p2 = Vec3::ZERO;
        let mut o0 = Vec3::ZERO;
        let mut o1 = Vec3::ZERO;
        let mut o2 = Vec3::ZERO;
        let mut flags = 0;
        if is_mesh {
            let (n2, d2, s2, e2, k, done) =
                mesh_walk_step(shapes, root, node, down, slot, end, lo, hi);
            if done {
                break;
            }
            node = n2;
            down = d2;
            slot = s2;
            end = e2;
            if k >= 0 {
                found = true;
                p0 = shapes.tri_points[3 * k];
                p1 = shapes.tri_points[3 * k + 1];
                p2 = shapes.tri_points[3 * k + 2];
                o0 = shapes.tri_opposite[3 * k];
                o1 = shapes.tri_opposite[3 * k + 1];
                o2 = shapes.tri_opposite[3 * k + 2];
                flags = shapes.tri_flags[k];
            }
        } else {
            if j > j1 || i0 > i1 {
                break;
            }
            (p0, p1, p2, o0, o1, o2, flags) = field_triangle(shapes, info, sp, i, j, t);
            found = boxes_overlap(min(min(p0, p1), p2), max(max(p0, p1), p2), lo, hi);
            t += 1;
            if t == 2 {
                t = 0;
                i += 1;
                if i > i1 {
                    i = i0;
                    j += 1;
                }
            }
        }
        if found {
            let (k, gap, pt, ps, n) = collide_triangle(
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
                transform_point(xm, o0 * scale),
                transform_point(xm, o1 * scale),
                transform_point(xm, o2 * scale),
                flags,
                margin,
            );
            emitted += k;
            if gap < best_gap {
                best_gap = gap;
                best_pt = pt;
                best_ps = ps;
                best_n = n;
            }
        }
    }
    // The rules that keep a shared edge or corner from giving a contact twice
    // (each triangle defers to the feature's owner, judged by its own nearest
    // point) can leave a shape over a saddle of a bumpy surface with none at
    // all, and it falls through (spheres did, in the rigid_pile terrain): then
    // the nearest triangle within the margin gives one.
    if emitted == 0 && best_gap < margin {
        let rs = core_radius(shapes.kind[s], shapes.size[s]);
        emit_contact(
            c, pair, m, s, body_m, body_s, best_pt, best_ps, best_n, 0.0, rs, margin,
        );
    }
}
