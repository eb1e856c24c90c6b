//! The narrow phase: for each candidate pair from the broad phase, the contact
//! points of the two shapes (a manifold where the shapes rest on each other),
//! written to [`Contacts`]. One kernel dispatches on the pair's kinds to the
//! funcs of this module; each is a plain func, usable from user kernels too.
//!
//! | pair | contacts |
//! |---|---|
//! | plane–sphere, sphere–sphere, sphere–box, sphere–capsule | 1 |
//! | plane–capsule | the two segment ends |
//! | plane–box | the corners within the margin (4 at rest on a face) |
//! | capsule–capsule | 1, or the 2 ends of the overlap when parallel |
//! | capsule–box | the two ends, plus the deepest inner point |
//! | box–box | a face clipped to the other (up to 8), or 1 edge–edge |
//! | plane–cylinder | the rim points below the margin (4 standing, 1 tilted, 2 lying) |
//! | plane–convex | the hull vertices below the margin |
//! | cylinder or convex hull with a sphere, box, capsule, cylinder or hull | GJK / EPA, then the incident face clipped to the reference face (up to 8), two ends of parallel segments, or 1 |
//! | sphere, box, capsule, cylinder or convex hull with a mesh or height field | per triangle under the shape's box ([`triangle`]): the points a plane would take that project into the triangle (4 corners of a box resting on a flat floor, however it is tessellated), plus the ends of real edges under a face of the shape; or 1 at a convex edge or corner |
//! | plane–mesh (a mesh on a body) | the mesh vertices below the margin |
//! | plane–height field, mesh–mesh, mesh–height field, height field–height field | none: meshes and height fields are surfaces (static terrain, or on bodies whose mass comes from solid shapes); use convex hulls or primitives for what moves against them |

pub mod boxes;
pub mod convex_manifold;
pub mod cylinder;
pub mod emit;
pub mod epa;
pub mod features;
pub mod gjk;
pub mod heightfield;
pub mod mesh;
pub mod plane;
pub mod simplex;
pub mod sphere;
pub mod support;
pub mod terrain;
pub mod triangle;

use weft::prelude::*;

use crate::{Contacts, ShapeSet};
use boxes::box_box;
use convex_manifold::convex_pair;
use cylinder::plane_cylinder;
use mesh::plane_mesh;
use plane::{plane_box, plane_convex, plane_point};
use sphere::{point_box, point_segment, segment_box, segment_segment};
use terrain::terrain_pair;

/// World pose of the body of shape `s` (identity for static shapes).
#[weft::func]
pub fn shape_body_pose(shapes: &ShapeSet, body_q: &Array<Transform>, s: i32) -> Transform {
    let b = shapes.body[s];
    let mut x = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    if b >= 0 {
        x = body_q[b];
    }
    x
}

/// The contacts of shapes `a` and `b` (any kinds; a pair the narrow phase does
/// not handle yet adds none), tagged with `pair`, the pair's slot.
#[weft::func]
pub fn collide_pair(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    sa: i32,
    sb: i32,
    margin: f32,
    c: &mut Contacts,
    pair: i32,
) {
    // Order by kind: a's kind <= b's.
    let mut a = sa;
    let mut b = sb;
    if shapes.kind[sa] > shapes.kind[sb] {
        a = sb;
        b = sa;
    }
    let ka = shapes.kind[a];
    let kb = shapes.kind[b];
    let ba = shape_body_pose(shapes, body_q, a);
    let bb = shape_body_pose(shapes, body_q, b);
    let xa = ba * shapes.transform[a];
    let xb = bb * shapes.transform[b];
    let ha = shapes.size[a];
    let hb = shapes.size[b];
    let za = quat_rotate(xa.q, Vec3::Z);
    let zb = quat_rotate(xb.q, Vec3::Z);
    if kb >= 6 {
        // Meshes and height fields (the highest kinds) against solids; the
        // contacts are stored as (terrain, solid), like a plane's.
        if ka >= 1 && ka <= 5 {
            terrain_pair(shapes, c, pair, b, a, bb, ba, xb, margin);
        } else if ka == 0 && kb == 6 {
            plane_mesh(shapes, c, pair, a, b, ba, bb, xa, ha, xb, margin);
        }
    } else if ka == 0 {
        if kb == 1 {
            plane_point(c, pair, a, b, ba, bb, xa, ha, xb.p, hb.x, margin);
        } else if kb == 2 {
            plane_box(c, pair, a, b, ba, bb, xa, ha, xb, hb, margin);
        } else if kb == 3 {
            plane_point(
                c,
                pair,
                a,
                b,
                ba,
                bb,
                xa,
                ha,
                xb.p - zb * hb.y,
                hb.x,
                margin,
            );
            plane_point(
                c,
                pair,
                a,
                b,
                ba,
                bb,
                xa,
                ha,
                xb.p + zb * hb.y,
                hb.x,
                margin,
            );
        } else if kb == 4 {
            plane_cylinder(c, pair, a, b, ba, bb, xa, ha, xb, hb, margin);
        } else if kb == 5 {
            plane_convex(shapes, c, pair, a, b, ba, bb, xa, ha, xb, margin);
        }
    } else if kb == 4 || kb == 5 {
        // Cylinders and hulls against spheres, boxes, capsules, cylinders, hulls.
        convex_pair(shapes, c, pair, a, b, ba, bb, xa, xb, margin);
    } else if ka == 1 {
        if kb == 1 {
            point_segment(c, pair, a, b, ba, bb, xa.p, ha.x, xb.p, xb.p, hb.x, margin);
        } else if kb == 2 {
            point_box(c, pair, a, b, ba, bb, xa.p, ha.x, xb, hb, margin);
        } else if kb == 3 {
            let q0 = xb.p - zb * hb.y;
            let q1 = xb.p + zb * hb.y;
            point_segment(c, pair, a, b, ba, bb, xa.p, ha.x, q0, q1, hb.x, margin);
        }
    } else if ka == 2 {
        if kb == 2 {
            box_box(c, pair, a, b, ba, bb, xa, ha, xb, hb, margin);
        } else if kb == 3 {
            let q0 = xb.p - zb * hb.y;
            let q1 = xb.p + zb * hb.y;
            segment_box(c, pair, b, a, bb, ba, q0, q1, hb.x, xa, ha, margin);
        }
    } else if ka == 3 && kb == 3 {
        let p0 = xa.p - za * ha.y;
        let p1 = xa.p + za * ha.y;
        let q0 = xb.p - zb * hb.y;
        let q1 = xb.p + zb * hb.y;
        segment_segment(c, pair, a, b, ba, bb, p0, p1, ha.x, q0, q1, hb.x, margin);
    }
}

/// The narrow phase over the first `min(pair_count[0], capacity)` pairs, each
/// with `margin` plus both shapes' speculative distances `spec` (a
/// thread per pair slot; threads past the count do nothing, so the launch size
/// need not be read back).
#[weft::kernel]
pub fn narrow_phase(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    pairs: &Array<IVec2>,
    pair_count: &Array<i32>,
    margin: f32,
    spec: &Array<f32>,
    contacts: &mut Contacts,
) {
    let t = tid();
    let n = min(pair_count[0], pairs.len() as i32);
    if t < n {
        let p = pairs[t];
        let m = margin + spec[p.x] + spec[p.y];
        collide_pair(shapes, body_q, p.x, p.y, m, contacts, t);
    }
}
