//! Storing a contact into the [`Contacts`] buffer, and geometric helpers the
//! pair tests share.

use weft::prelude::*;

use crate::Contacts;

/// Stores the contact between shapes `a` and `b` (found by candidate pair
/// slot `pair`: the contacts of one pair form its manifold) given in world space — points
/// `pa`, `pb` on their cores, unit normal `n` from a to b, thicknesses `ra`,
/// `rb` — when its gap `n · (pb − pa) − ra − rb` is below `margin`. The points
/// are stored in the frames of the shapes' bodies (`body_a`, `body_b`: the
/// bodies' world poses, identity for static shapes). Past the capacity, the
/// contact is only counted.
#[weft::func]
pub fn emit_contact(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    pa: Vec3,
    pb: Vec3,
    n: Vec3,
    ra: f32,
    rb: f32,
    margin: f32,
) {
    let gap = dot(n, pb - pa) - ra - rb;
    if gap < margin {
        let slot = atomic_add(&mut c.count[0], 1);
        if slot < c.shape_a.len() as i32 {
            c.pair[slot] = pair;
            c.shape_a[slot] = a;
            c.shape_b[slot] = b;
            c.point_a[slot] = transform_point(transform_inverse(body_a), pa);
            c.point_b[slot] = transform_point(transform_inverse(body_b), pb);
            c.normal[slot] = n;
            c.radius_a[slot] = ra;
            c.radius_b[slot] = rb;
        }
    }
}

/// The point of the segment `p0..p1` nearest to `q`, as the parameter in [0, 1].
#[weft::func]
pub fn segment_param(p0: Vec3, p1: Vec3, q: Vec3) -> f32 {
    let d = p1 - p0;
    let l2 = dot(d, d);
    let mut t = 0.0;
    if l2 > 1.0e-20 {
        t = clamp(dot(q - p0, d) / l2, 0.0, 1.0);
    }
    t
}

/// Parameters `(s, t)` in [0, 1] of the nearest points of segments `p0..p1` and
/// `q0..q1` (Ericson, Real-Time Collision Detection, 5.1.9).
#[weft::func]
pub fn segments_params(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (f32, f32) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = dot(d1, d1);
    let e = dot(d2, d2);
    let f = dot(d2, r);
    let mut s = 0.0;
    let mut t = 0.0;
    if a <= 1.0e-20 && e <= 1.0e-20 {
        s = 0.0;
        t = 0.0;
    } else if a <= 1.0e-20 {
        t = clamp(f / e, 0.0, 1.0);
    } else {
        let c = dot(d1, r);
        if e <= 1.0e-20 {
            s = clamp(-c / a, 0.0, 1.0);
        } else {
            let b = dot(d1, d2);
            let denom = a * e - b * b;
            if denom > 1.0e-12 * a * e {
                s = clamp((b * f - c * e) / denom, 0.0, 1.0);
            }
            t = (b * s + f) / e;
            if t < 0.0 {
                t = 0.0;
                s = clamp(-c / a, 0.0, 1.0);
            } else if t > 1.0 {
                t = 1.0;
                s = clamp((b - c) / a, 0.0, 1.0);
            }
        }
    }
    (s, t)
}

/// `d / |d|`, or `fallback` when `d` is (nearly) zero.
#[weft::func]
pub fn unit_or(d: Vec3, fallback: Vec3) -> Vec3 {
    let l = length(d);
    let mut n = fallback;
    if l > 1.0e-9 {
        n = d / l;
    }
    n
}
