//! Cylinder against a plane. (Cylinders against the other solids go through
//! the generic [`convex_pair`](super::convex_manifold::convex_pair).)

use weft::prelude::*;

use super::plane::plane_point;
use crate::Contacts;

/// The direction (cylinder frame, in its XY plane) of the rim point lowest
/// along `down` (cylinder frame): X when the cylinder stands within 1e-3 rad
/// of upright, where the lowest rim point is ill-defined, so that the contact
/// points do not spin with rounding noise.
#[weft::func]
pub fn rim_direction(down: Vec3) -> Vec3 {
    let r = Vec3::new(down.x, down.y, 0.0);
    let mut e = Vec3::X;
    if length(r) > 1.0e-3 * abs(down.z) {
        e = normalize(r);
    }
    e
}

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
    let e = rim_direction(quat_rotate_inv(xb.q, -quat_rotate(xa.q, Vec3::Z)));
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
