//! The narrow phase: for each candidate pair from the broad phase, the contact
//! points of the two shapes (a manifold where the shapes rest on each other),
//! written to [`Contacts`]. The pairs are sorted into three classes
//! ([`pair_class`]: primitives, GJK/EPA, meshes) and each class has a kernel
//! of its own (one kernel for all would carry EPA's polytope and the mesh
//! traversal into every thread: on a GPU that was 79,000 instructions and
//! 26 KB of local memory per thread). [`collide_pair`] dispatches any pair;
//! every func here is a plain func, usable from user kernels too.
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

use crate::broad::pair_reach;
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

/// Which narrow-phase kernel handles shapes of kinds `ka <= kb`: 0 the
/// primitives (planes against anything solid; spheres, boxes and capsules
/// against each other), 1 GJK/EPA (cylinders and convex hulls against solids),
/// 2 meshes and height fields. Each class has a kernel of its own, so the
/// primitives' threads carry neither EPA's polytope nor the mesh traversal.
#[weft::func]
pub fn pair_class(ka: i32, kb: i32) -> i32 {
    let mut c = 0;
    if kb >= 6 {
        c = 2;
    } else if ka >= 1 && (kb == 4 || kb == 5) {
        c = 1;
    }
    c
}

/// Shapes `sa`, `sb` ordered by kind (a's kind <= b's): `(a, b)`.
#[weft::func]
pub fn kind_order(shapes: &ShapeSet, sa: i32, sb: i32) -> (i32, i32) {
    let mut a = sa;
    let mut b = sb;
    if shapes.kind[sa] > shapes.kind[sb] {
        a = sb;
        b = sa;
    }
    (a, b)
}

/// The contacts of shapes `a` and `b` (any kinds; a pair the narrow phase does
/// not handle adds none), tagged with `pair`, the pair's slot: the class's
/// func ([`pair_class`]).
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
    let (a, b) = kind_order(shapes, sa, sb);
    let class = pair_class(shapes.kind[a], shapes.kind[b]);
    if class == 0 {
        collide_primitives(shapes, body_q, a, b, margin, c, pair);
    } else if class == 1 {
        collide_convex(shapes, body_q, a, b, margin, c, pair);
    } else {
        collide_terrain(shapes, body_q, a, b, margin, c, pair);
    }
}

/// [`collide_pair`] for a pair of class 1 ([`pair_class`]; `a`'s kind <=
/// `b`'s): a cylinder or convex hull against a sphere, box, capsule, cylinder
/// or hull, through GJK/EPA.
#[weft::func]
pub fn collide_convex(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    a: i32,
    b: i32,
    margin: f32,
    c: &mut Contacts,
    pair: i32,
) {
    let ba = shape_body_pose(shapes, body_q, a);
    let bb = shape_body_pose(shapes, body_q, b);
    let xa = ba * shapes.transform[a];
    let xb = bb * shapes.transform[b];
    convex_pair(shapes, c, pair, a, b, ba, bb, xa, xb, margin);
}

/// [`collide_pair`] for a pair of class 2 ([`pair_class`]; `a`'s kind <=
/// `b`'s): a solid against a mesh or height field (stored as (terrain,
/// solid), like a plane's contacts), or a plane against a mesh on a body.
#[weft::func]
pub fn collide_terrain(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    a: i32,
    b: i32,
    margin: f32,
    c: &mut Contacts,
    pair: i32,
) {
    let ka = shapes.kind[a];
    let kb = shapes.kind[b];
    let ba = shape_body_pose(shapes, body_q, a);
    let bb = shape_body_pose(shapes, body_q, b);
    let xa = ba * shapes.transform[a];
    let xb = bb * shapes.transform[b];
    if ka >= 1 && ka <= 5 {
        terrain_pair(shapes, c, pair, b, a, bb, ba, xb, margin);
    } else if ka == 0 && kb == 6 {
        plane_mesh(
            shapes,
            c,
            pair,
            a,
            b,
            ba,
            bb,
            xa,
            shapes.size[a],
            xb,
            margin,
        );
    }
}

/// [`collide_pair`] for a pair of class 0 ([`pair_class`]; `a`'s kind <=
/// `b`'s): a plane against a solid, or spheres, boxes and capsules against
/// each other.
#[weft::func]
pub fn collide_primitives(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    a: i32,
    b: i32,
    margin: f32,
    c: &mut Contacts,
    pair: i32,
) {
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
    if ka == 0 {
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

/// A thread per pair slot: appends each of the first `min(pair_count[0],
/// capacity)` candidate pairs to the list of its class ([`pair_class`]):
/// class `k`'s slots from `k · capacity` in `class_list`, counted in
/// `class_count[k]`.
#[weft::kernel]
pub fn narrow_classify(
    shapes: &ShapeSet,
    pairs: &Array<IVec2>,
    pair_count: &Array<i32>,
    class_count: &mut Array<i32>,
    class_list: &mut Array<i32>,
) {
    let t = tid();
    let n = min(pair_count[0], pairs.len() as i32);
    if t < n {
        let p = pairs[t];
        let (a, b) = kind_order(shapes, p.x, p.y);
        let k = pair_class(shapes.kind[a], shapes.kind[b]);
        let i = atomic_add(&mut class_count[k], 1);
        class_list[k * pairs.len() as i32 + i] = t;
    }
}

/// The candidate pair at entry `i` of class `k`'s list, or `(-1, (0, 0), 0)`
/// past its count: `(slot, shapes ordered by kind, margin plus how far the
/// two can close in during the step ([`pair_reach`]))`.
#[weft::func]
pub fn class_pair(
    shapes: &ShapeSet,
    pairs: &Array<IVec2>,
    class_count: &Array<i32>,
    class_list: &Array<i32>,
    k: i32,
    i: i32,
    margin: f32,
    spec: &Array<Vec4>,
) -> (i32, IVec2, f32) {
    let mut out = (-1, IVec2::new(0, 0), 0.0);
    if i < class_count[k] {
        let t = class_list[k * pairs.len() as i32 + i];
        let p = pairs[t];
        let (a, b) = kind_order(shapes, p.x, p.y);
        out = (t, IVec2::new(a, b), margin + pair_reach(spec, p.x, p.y));
    }
    out
}

/// The narrow phase of class 0's pairs ([`narrow_classify`]), a thread per
/// list entry (threads past the count do nothing, so the launch size need
/// not be read back).
#[weft::kernel]
pub fn narrow_primitives(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    pairs: &Array<IVec2>,
    class_count: &Array<i32>,
    class_list: &Array<i32>,
    margin: f32,
    spec: &Array<Vec4>,
    contacts: &mut Contacts,
) {
    let (t, p, m) = class_pair(
        shapes,
        pairs,
        class_count,
        class_list,
        0,
        tid(),
        margin,
        spec,
    );
    if t >= 0 {
        collide_primitives(shapes, body_q, p.x, p.y, m, contacts, t);
    }
}

/// The narrow phase of class 1's pairs (GJK/EPA), as [`narrow_primitives`].
#[weft::kernel]
pub fn narrow_convex(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    pairs: &Array<IVec2>,
    class_count: &Array<i32>,
    class_list: &Array<i32>,
    margin: f32,
    spec: &Array<Vec4>,
    contacts: &mut Contacts,
) {
    let (t, p, m) = class_pair(
        shapes,
        pairs,
        class_count,
        class_list,
        1,
        tid(),
        margin,
        spec,
    );
    if t >= 0 {
        collide_convex(shapes, body_q, p.x, p.y, m, contacts, t);
    }
}

/// The narrow phase of class 2's pairs (meshes and height fields), as
/// [`narrow_primitives`].
#[weft::kernel]
pub fn narrow_terrain(
    shapes: &ShapeSet,
    body_q: &Array<Transform>,
    pairs: &Array<IVec2>,
    class_count: &Array<i32>,
    class_list: &Array<i32>,
    margin: f32,
    spec: &Array<Vec4>,
    contacts: &mut Contacts,
) {
    let (t, p, m) = class_pair(
        shapes,
        pairs,
        class_count,
        class_list,
        2,
        tid(),
        margin,
        spec,
    );
    if t >= 0 {
        collide_terrain(shapes, body_q, p.x, p.y, m, contacts, t);
    }
}
