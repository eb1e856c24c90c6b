//! Pairs with a sphere or a capsule, whose cores are a point and a segment.

use weft::prelude::*;

use super::emit::{emit_contact, segment_param, segments_params, unit_or};
use crate::Contacts;

/// Sphere or capsule `b` (core `q0..q1`, radius `rb`) against the point core
/// `pa` of radius `ra` of shape `a`: one contact between the point and the
/// nearest point of the segment.
#[weft::func]
pub fn point_segment(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    pa: Vec3,
    ra: f32,
    q0: Vec3,
    q1: Vec3,
    rb: f32,
    margin: f32,
) {
    let t = segment_param(q0, q1, pa);
    let pb = q0 + (q1 - q0) * t;
    let n = unit_or(pb - pa, Vec3::Z);
    emit_contact(c, pair, a, b, body_a, body_b, pa, pb, n, ra, rb, margin);
}

/// Two segment cores (capsules; a sphere is a segment of length 0): the
/// nearest points, and when the segments are nearly parallel and overlap, the
/// two ends of the overlap (so a capsule resting on another has two contacts).
#[weft::func]
pub fn segment_segment(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    p0: Vec3,
    p1: Vec3,
    ra: f32,
    q0: Vec3,
    q1: Vec3,
    rb: f32,
    margin: f32,
) {
    let da = p1 - p0;
    let db = q1 - q0;
    let la = dot(da, da);
    let lb = dot(db, db);
    let cr = cross(da, db);
    let parallel = la > 1.0e-12 && lb > 1.0e-12 && dot(cr, cr) < 1.0e-6 * la * lb;
    let mut done = false;
    if parallel {
        // Where b's ends fall along a, clipped to a.
        let t0 = clamp(dot(q0 - p0, da) / la, 0.0, 1.0);
        let t1 = clamp(dot(q1 - p0, da) / la, 0.0, 1.0);
        if abs(t1 - t0) > 1.0e-4 {
            for k in 0..2 {
                let mut t = t0;
                if k == 1 {
                    t = t1;
                }
                let pa = p0 + da * t;
                let s = segment_param(q0, q1, pa);
                let pb = q0 + db * s;
                let n = unit_or(pb - pa, unit_or(cross(da, cross(pb - pa, da)), Vec3::Z));
                emit_contact(c, pair, a, b, body_a, body_b, pa, pb, n, ra, rb, margin);
            }
            done = true;
        }
    }
    if !done {
        let (s, t) = segments_params(p0, p1, q0, q1);
        let pa = p0 + da * s;
        let pb = q0 + db * t;
        let n = unit_or(pb - pa, unit_or(cross(da, db), Vec3::Z));
        emit_contact(c, pair, a, b, body_a, body_b, pa, pb, n, ra, rb, margin);
    }
}

/// The point core `pa` (radius `ra`) of shape `a` against box `b` (pose `xb`,
/// half extents `h`): one contact with the box's nearest surface point; a
/// centre inside the box is pushed out through the nearest face.
#[weft::func]
pub fn point_box(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    pa: Vec3,
    ra: f32,
    xb: Transform,
    h: Vec3,
    margin: f32,
) {
    let local = quat_rotate_inv(xb.q, pa - xb.p);
    let q = clamp(local, -h, h);
    let inside = abs(local.x) < h.x && abs(local.y) < h.y && abs(local.z) < h.z;
    let mut n = Vec3::Z;
    let mut pb = transform_point(xb, q);
    if inside {
        // The face the centre is nearest to.
        let gap = h - abs(local);
        let mut k = 0;
        if gap.y < gap.x && gap.y <= gap.z {
            k = 1;
        } else if gap.z < gap.x && gap.z < gap.y {
            k = 2;
        }
        let mut s = 1.0;
        if local[k] < 0.0 {
            s = -1.0;
        }
        let mut f = Vec3::ZERO;
        f[k] = s;
        let mut on_face = local;
        on_face[k] = s * h[k];
        pb = transform_point(xb, on_face);
        n = -quat_rotate(xb.q, f);
    } else {
        n = unit_or(pb - pa, quat_rotate(xb.q, unit_or(-local, Vec3::Z)));
    }
    emit_contact(c, pair, a, b, body_a, body_b, pa, pb, n, ra, 0.0, margin);
}

/// A segment core `p0..p1` (radius `ra`) of shape `a` against box `b`: the two
/// ends as points, and the segment's point deepest in the box when it lies
/// between them (a capsule across an edge).
#[weft::func]
pub fn segment_box(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    p0: Vec3,
    p1: Vec3,
    ra: f32,
    xb: Transform,
    h: Vec3,
    margin: f32,
) {
    point_box(c, pair, a, b, body_a, body_b, p0, ra, xb, h, margin);
    point_box(c, pair, a, b, body_a, body_b, p1, ra, xb, h, margin);
    // The box's signed distance is convex along the segment: golden-section
    // search for its minimum.
    let mut lo = 0.0;
    let mut hi = 1.0;
    for _k in 0..24 {
        let m1 = lo + (hi - lo) * 0.381966;
        let m2 = lo + (hi - lo) * 0.618034;
        if box_sdf(quat_rotate_inv(xb.q, p0 + (p1 - p0) * m1 - xb.p), h)
            < box_sdf(quat_rotate_inv(xb.q, p0 + (p1 - p0) * m2 - xb.p), h)
        {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    let t = (lo + hi) * 0.5;
    let d_mid = box_sdf(quat_rotate_inv(xb.q, p0 + (p1 - p0) * t - xb.p), h);
    let d_ends = min(
        box_sdf(quat_rotate_inv(xb.q, p0 - xb.p), h),
        box_sdf(quat_rotate_inv(xb.q, p1 - xb.p), h),
    );
    if t > 0.02 && t < 0.98 && d_mid < d_ends - 1.0e-4 {
        point_box(
            c,
            pair,
            a,
            b,
            body_a,
            body_b,
            p0 + (p1 - p0) * t,
            ra,
            xb,
            h,
            margin,
        );
    }
}

/// Signed distance from `p` (box frame) to a box of half extents `h`.
#[weft::func]
pub fn box_sdf(p: Vec3, h: Vec3) -> f32 {
    let q = abs(p) - h;
    length(max(q, Vec3::ZERO)) + min(max(q.x, max(q.y, q.z)), 0.0)
}
