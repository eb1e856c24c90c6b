//! Cylinder against a plane. (Cylinders against the other solids go through
//! the generic [`convex_pair`](super::convex_manifold::convex_pair).)

use weft::prelude::*;

use super::emit::unit_or;
use super::plane::plane_point;
use crate::Contacts;

/// Plane `a` (pose `xa`, half extents `h`) against cylinder `b` (pose `xb`,
/// radius `hb.x`, half height `hb.y`): on each cap, the rim point lowest
/// against the plane and the rim points 90°, 180° and 270° around from it
/// are candidates, each a contact when below the margin — 4 on the bottom
/// rim when standing, the 1 lowest point when tilted, 2 along the lowest line
/// when lying on its side.
#[weft::func]
pub fn plane_cylinder(
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
    let down = quat_rotate_inv(xb.q, -quat_rotate(xa.q, Vec3::Z));
    let e = unit_or(Vec3::new(down.x, down.y, 0.0), Vec3::X);
    let f = cross(Vec3::Z, e);
    for cap in 0..2 {
        for k in 0..4 {
            let mut dir = e;
            if k == 1 {
                dir = f;
            } else if k == 2 {
                dir = -e;
            } else if k == 3 {
                dir = -f;
            }
            let mut p = dir * hb.x;
            p.z = -hb.y;
            if cap == 1 {
                p.z = hb.y;
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
                transform_point(xb, p),
                0.0,
                margin,
            );
        }
    }
}
