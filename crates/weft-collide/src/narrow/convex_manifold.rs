//! The generic convex pair: GJK (or EPA when the cores overlap) for the
//! normal and depth, then a contact manifold from the two shapes' facing
//! features ([`features`](super::features)): the incident polygon clipped to
//! the reference face's sides (Sutherland–Hodgman), so boxes, hulls and
//! cylinders resting on each other get up to 8 points.

use weft::prelude::*;

use super::emit::{emit_contact, segment_param};
use super::epa::epa;
use super::features::{face_point, support_face};
use super::gjk::gjk;
use super::support::{core_radius, core_support};
use crate::{Contacts, ShapeSet};

/// Contacts of shapes `a` and `b` (each a sphere, box, capsule, cylinder or
/// convex hull, at least one of them not a sphere or capsule), at world poses
/// `xa`, `xb`, on bodies at `body_a`, `body_b`.
#[weft::func]
pub fn convex_pair(
    shapes: &ShapeSet,
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    xa: Transform,
    xb: Transform,
    margin: f32,
) {
    let ra = core_radius(shapes.kind[a], shapes.size[a]);
    let rb = core_radius(shapes.kind[b], shapes.size[b]);
    let scale = shapes.radius[a] + shapes.radius[b];
    let (status, count, v, pa0, w0, w1, w2, w3, a0, a1, a2, a3) =
        gjk(shapes, a, xa, b, xb, margin + ra + rb);
    if status != 3 {
        let dist = length(v);
        let mut n = -v / max(dist, 1.0e-30);
        let mut pa = pa0;
        let mut pb = pa0 - v;
        if status == 2 || dist <= 1.0e-5 * scale {
            let (ok, nf, depth, qa) =
                epa(shapes, a, xa, b, xb, count, w0, w1, w2, w3, a0, a1, a2, a3);
            if ok {
                n = nf;
                pa = qa;
                pb = qa - nf * depth;
            } else {
                // No polytope (flat input): push apart along the centres.
                n = normalize(xb.p - xa.p + Vec3::new(0.0, 0.0, 1.0e-20));
                pa = core_support(shapes, a, xa, n);
                pb = core_support(shapes, b, xb, -n);
            }
        }
        if dot(n, pb - pa) - ra - rb < margin {
            convex_manifold(
                shapes, c, pair, a, b, body_a, body_b, xa, xb, n, pa, pb, ra, rb, margin,
            );
        }
    }
}

/// The manifold of shapes `a` and `b` touching along unit normal `n` (a to
/// b), deepest points `pa`, `pb` on their cores of thickness `ra`, `rb`:
/// the incident feature clipped to the reference face (the better aligned
/// polygon, if it meets `n` at a cosine of at least 0.995), up to 8 points; two parallel segments give the ends of their
/// overlap; otherwise the one deepest contact, which is also added when no
/// clipped point is as deep.
#[weft::func]
pub fn convex_manifold(
    shapes: &ShapeSet,
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    xa: Transform,
    xb: Transform,
    n: Vec3,
    pa: Vec3,
    pb: Vec3,
    ra: f32,
    rb: f32,
    margin: f32,
) {
    let (fa, na, ala, nra) = support_face(shapes, a, xa, n);
    let (fb, nb, alb, nrb) = support_face(shapes, b, xb, -n);
    let mut emitted = 0;
    let least = dot(n, pb - pa) - ra - rb;
    let mut deepest = 1.0e30;
    // The reference face: 0 for a's, 1 for b's, -1 for none.
    let mut rf = -1;
    if na >= 3 && ala >= 0.995 && (nb < 3 || ala >= alb) {
        rf = 0;
    } else if nb >= 3 && alb >= 0.995 {
        rf = 1;
    }
    if rf >= 0 && ((rf == 0 && nb >= 2) || (rf == 1 && na >= 2)) {
        // Reference: shape r (face fr of nr corners, normal nrm, seen along
        // dr); incident: shape i.
        let mut r = a;
        let mut xr = xa;
        let mut dr = n;
        let mut fr = fa;
        let mut nr = na;
        let mut nrm = nra;
        let mut i = b;
        let mut xi = xb;
        let mut di = -n;
        let mut fi = fb;
        let mut ni = nb;
        if rf == 1 {
            r = b;
            xr = xb;
            dr = -n;
            fr = fb;
            nr = nb;
            nrm = nrb;
            i = a;
            xi = xa;
            di = n;
            fi = fa;
            ni = na;
        }
        let mut px = [0.0f32; 192];
        let mut qx = [0.0f32; 192];
        for k in 0..ni {
            let p = face_point(shapes, i, xi, di, fi, ni, k);
            px[3 * k] = p.x;
            px[3 * k + 1] = p.y;
            px[3 * k + 2] = p.z;
        }
        let mut m = ni;
        let mut centre = Vec3::ZERO;
        for k in 0..nr {
            centre += face_point(shapes, r, xr, dr, fr, nr, k);
        }
        centre = centre / (nr as f32);
        for e in 0..nr {
            let r0 = face_point(shapes, r, xr, dr, fr, nr, e);
            let r1 = face_point(shapes, r, xr, dr, fr, nr, (e + 1) % nr);
            let mut side = cross(r1 - r0, nrm);
            if dot(side, centre - r0) > 0.0 {
                side = -side;
            }
            if m > 0 && dot(side, side) > 1.0e-24 {
                if m == 2 {
                    // A segment: move an outside end to the side plane.
                    let p1 = Vec3::new(px[0], px[1], px[2]);
                    let p2 = Vec3::new(px[3], px[4], px[5]);
                    let d1 = dot(side, p1 - r0);
                    let d2 = dot(side, p2 - r0);
                    if d1 > 0.0 && d2 > 0.0 {
                        m = 0;
                    } else if d1 > 0.0 || d2 > 0.0 {
                        let cut = p1 + (p2 - p1) * (d1 / (d1 - d2));
                        let mut k0 = 0;
                        if d2 > 0.0 {
                            k0 = 1;
                        }
                        px[3 * k0] = cut.x;
                        px[3 * k0 + 1] = cut.y;
                        px[3 * k0 + 2] = cut.z;
                    }
                } else {
                    let mut q = 0;
                    for k in 0..m {
                        let k2 = (k + 1) % m;
                        let p1 = Vec3::new(px[3 * k], px[3 * k + 1], px[3 * k + 2]);
                        let p2 = Vec3::new(px[3 * k2], px[3 * k2 + 1], px[3 * k2 + 2]);
                        let d1 = dot(side, p1 - r0);
                        let d2 = dot(side, p2 - r0);
                        if d1 <= 0.0 && q < 64 {
                            qx[3 * q] = p1.x;
                            qx[3 * q + 1] = p1.y;
                            qx[3 * q + 2] = p1.z;
                            q += 1;
                        }
                        if ((d1 < 0.0 && d2 > 0.0) || (d1 > 0.0 && d2 < 0.0)) && q < 64 {
                            let cut = p1 + (p2 - p1) * (d1 / (d1 - d2));
                            qx[3 * q] = cut.x;
                            qx[3 * q + 1] = cut.y;
                            qx[3 * q + 2] = cut.z;
                            q += 1;
                        }
                    }
                    m = q;
                    for k in 0..3 * m {
                        px[k] = qx[k];
                    }
                }
            }
        }
        // Each clipped incident point against the reference plane, along n;
        // more than 8 are thinned evenly around the polygon.
        let r0 = face_point(shapes, r, xr, dr, fr, nr, 0);
        let den = dot(nrm, n);
        for k in 0..min(m, 8) {
            let mut j = k;
            if m > 8 {
                j = (k * m) / 8;
            }
            let p = Vec3::new(px[3 * j], px[3 * j + 1], px[3 * j + 2]);
            let q = p + n * (dot(nrm, r0 - p) / den);
            let mut qa = q;
            let mut qb = p;
            if rf == 1 {
                qa = p;
                qb = q;
            }
            // No pair overlaps along n more than the shapes do (off-normal
            // reference faces would say so): such a point moves out to it.
            let mut gap = dot(n, qb - qa) - ra - rb;
            if gap < least {
                if rf == 0 {
                    qa = qa - n * (least - gap);
                } else {
                    qb = qb + n * (least - gap);
                }
                gap = least;
            }
            if gap < margin {
                emit_contact(c, pair, a, b, body_a, body_b, qa, qb, n, ra, rb, margin);
                emitted += 1;
                deepest = min(deepest, gap);
            }
        }
    } else if na == 2 && nb == 2 && ala >= 0.9 && alb >= 0.9 {
        // Two segments (capsule cores, cylinder side lines): when parallel,
        // the two ends of their overlap.
        let p0 = face_point(shapes, a, xa, n, fa, na, 0);
        let da = face_point(shapes, a, xa, n, fa, na, 1) - p0;
        let q0 = face_point(shapes, b, xb, -n, fb, nb, 0);
        let db = face_point(shapes, b, xb, -n, fb, nb, 1) - q0;
        let la = dot(da, da);
        let lb = dot(db, db);
        let cr = cross(da, db);
        if la > 1.0e-20 && lb > 1.0e-20 && dot(cr, cr) < 1.0e-4 * la * lb {
            let t0 = clamp(dot(q0 - p0, da) / la, 0.0, 1.0);
            let t1 = clamp(dot(q0 + db - p0, da) / la, 0.0, 1.0);
            if abs(t1 - t0) > 1.0e-4 {
                for k in 0..2 {
                    let mut t = t0;
                    if k == 1 {
                        t = t1;
                    }
                    let qa = p0 + da * t;
                    let mut qb = q0 + db * segment_param(q0, q0 + db, qa);
                    let mut gap = dot(n, qb - qa) - ra - rb;
                    if gap < least {
                        qb = qb + n * (least - gap);
                        gap = least;
                    }
                    if gap < margin {
                        emit_contact(c, pair, a, b, body_a, body_b, qa, qb, n, ra, rb, margin);
                        emitted += 1;
                        deepest = min(deepest, gap);
                    }
                }
            }
        }
    }
    // The deepest point, unless a clipped point stands for it (a face of
    // the incident shape most against n need not hold its deepest corner).
    let scale = shapes.radius[a] + shapes.radius[b];
    if emitted == 0 || least < deepest - 1.0e-4 * scale {
        emit_contact(c, pair, a, b, body_a, body_b, pa, pb, n, ra, rb, margin);
    }
}
