//! Pairs with a static plane (always shape `a`: planes have the lowest kind).

use weft::prelude::*;

use super::emit::emit_contact;
use crate::{Contacts, ShapeSet};

/// Whether the world point `p` projects inside plane `xa`'s rectangle of half
/// extents `h` (always, for an infinite plane: `h.x == 0`).
#[weft::func]
pub fn plane_covers(xa: Transform, h: Vec3, p: Vec3) -> bool {
    let l = quat_rotate_inv(xa.q, p - xa.p);
    h.x <= 0.0 || (abs(l.x) <= h.x && abs(l.y) <= h.y)
}

/// Plane `a` (pose `xa`, half extents `h`) against the point core `pb` of
/// radius `rb` of shape `b`.
#[weft::func]
pub fn plane_point(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    xa: Transform,
    h: Vec3,
    pb: Vec3,
    rb: f32,
    margin: f32,
) {
    if plane_covers(xa, h, pb) {
        let n = quat_rotate(xa.q, Vec3::Z);
        let pa = pb - n * dot(n, pb - xa.p);
        emit_contact(c, pair, a, b, body_a, body_b, pa, pb, n, 0.0, rb, margin);
    }
}

/// Plane `a` against box `b` (pose `xb`, half extents `hb`): each corner below
/// the margin is a contact (4 for a box resting on a face).
#[weft::func]
pub fn plane_box(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    xa: Transform,
    h: Vec3,
    xb: Transform,
    hb: Vec3,
    margin: f32,
) {
    for k in 0..8 {
        let mut corner = hb;
        if (k & 1) != 0 {
            corner.x = -hb.x;
        }
        if (k & 2) != 0 {
            corner.y = -hb.y;
        }
        if (k & 4) != 0 {
            corner.z = -hb.z;
        }
        plane_point(
            c,
            pair,
            a,
            b,
            body_a,
            body_b,
            xa,
            h,
            transform_point(xb, corner),
            0.0,
            margin,
        );
    }
}

/// Plane `a` against convex hull `b` (shape `sb` of `shapes`, pose `xb`):
/// each hull vertex below the margin is a contact.
#[weft::func]
pub fn plane_convex(
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
    let r = shapes.hull_vertices[shapes.source[b]];
    let scale = shapes.size[b];
    for k in r.x..r.x + r.y {
        let p = transform_point(xb, shapes.hull_points[k] * scale);
        plane_point(c, pair, a, b, body_a, body_b, xa, h, p, 0.0, margin);
    }
}
