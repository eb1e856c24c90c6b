//! GJK (Gilbert–Johnson–Keerthi) distance between the cores of two convex
//! shapes, through the support of their Minkowski difference A − B.

use weft::prelude::*;

use super::emit::{segment_param, unit_or};
use super::simplex::{tetra_weights, triangle_weights};
use super::support::{pair_scale, pair_support};
use crate::ShapeSet;

/// GJK between the cores of shapes `a` and `b` at world poses `xa`, `xb`.
///
/// Returns `(status, count, v, pa, w0, w1, w2, w3, a0, a1, a2, a3)`: `status`
/// 1 (separated; `v = pa − pb` is the cores' nearest difference, `pa` on a,
/// `pb = pa − v` on b), 2 (overlapping or touching: the simplex `w0..` of
/// `count` corners of A − B, with a's supports `a0..`, holds the origin or
/// lies within rounding of it; EPA goes on from there) or 3 (separated by
/// more than `cutoff`, proved by a support plane; nothing else is valid).
#[weft::func]
pub fn gjk(
    shapes: &ShapeSet,
    a: i32,
    xa: Transform,
    b: i32,
    xb: Transform,
    cutoff: f32,
) -> (
    i32,
    i32,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
) {
    gjk_general(
        shapes,
        a,
        xa,
        b,
        xb,
        Vec3::ZERO,
        Vec3::ZERO,
        Vec3::ZERO,
        cutoff,
    )
}

/// [`gjk`] between shape `a` and shape `b`, or, when `b` is -1, the triangle
/// `t0, t1, t2` (world; `xb.p` is then where the search starts from, e.g.
/// the centroid).
#[weft::func]
pub fn gjk_general(
    shapes: &ShapeSet,
    a: i32,
    xa: Transform,
    b: i32,
    xb: Transform,
    t0: Vec3,
    t1: Vec3,
    t2: Vec3,
    cutoff: f32,
) -> (
    i32,
    i32,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
    Vec3,
) {
    // The simplex: corners of A − B and a's support points, 3 floats each.
    let mut sw = [0.0f32; 12];
    let mut sa = [0.0f32; 12];
    let scale = pair_scale(shapes, a, b, t0, t1, t2);
    let (w0, a0) = pair_support(
        shapes,
        a,
        xa,
        b,
        xb,
        t0,
        t1,
        t2,
        unit_or(xa.p - xb.p, Vec3::Z),
    );
    for d in 0..3 {
        sw[d] = w0[d];
        sa[d] = a0[d];
    }
    let mut n = 1;
    let mut v = w0;
    let mut pa = a0;
    let mut status = 1;
    for _it in 0..64 {
        let vv = dot(v, v);
        if vv <= 1.0e-12 * scale * scale {
            status = 2;
            break;
        }
        let (w, wa) = pair_support(shapes, a, xa, b, xb, t0, t1, t2, -v / sqrt(vv));
        let vw = dot(v, w);
        if vw > 0.0 && vw * vw > vv * cutoff * cutoff {
            status = 3;
            break;
        }
        if vv - vw <= 1.0e-6 * vv {
            break;
        }
        let mut dup = false;
        for k in 0..n {
            let old = Vec3::new(sw[3 * k], sw[3 * k + 1], sw[3 * k + 2]);
            if length(w - old) <= 1.0e-7 * scale {
                dup = true;
            }
        }
        if dup {
            break;
        }
        for d in 0..3 {
            sw[3 * n + d] = w[d];
            sa[3 * n + d] = wa[d];
        }
        n += 1;
        let q0 = Vec3::new(sw[0], sw[1], sw[2]);
        let q1 = Vec3::new(sw[3], sw[4], sw[5]);
        let q2 = Vec3::new(sw[6], sw[7], sw[8]);
        let q3 = Vec3::new(sw[9], sw[10], sw[11]);
        let mut lam = Vec4::ZERO;
        if n == 2 {
            let t = segment_param(q0, q1, Vec3::ZERO);
            lam = Vec4::new(1.0 - t, t, 0.0, 0.0);
        } else if n == 3 {
            let t = triangle_weights(q0, q1, q2);
            lam = Vec4::new(t.x, t.y, t.z, 0.0);
        } else {
            let (t, inside) = tetra_weights(q0, q1, q2, q3);
            if inside {
                status = 2;
                break;
            }
            lam = t;
        }
        // Keep the corners the nearest point needs.
        let mut m = 0;
        v = Vec3::ZERO;
        pa = Vec3::ZERO;
        for k in 0..n {
            if lam[k] > 0.0 {
                let wk = Vec3::new(sw[3 * k], sw[3 * k + 1], sw[3 * k + 2]);
                let ak = Vec3::new(sa[3 * k], sa[3 * k + 1], sa[3 * k + 2]);
                v += wk * lam[k];
                pa += ak * lam[k];
                for d in 0..3 {
                    sw[3 * m + d] = wk[d];
                    sa[3 * m + d] = ak[d];
                }
                m += 1;
            }
        }
        n = m;
    }
    (
        status,
        n,
        v,
        pa,
        Vec3::new(sw[0], sw[1], sw[2]),
        Vec3::new(sw[3], sw[4], sw[5]),
        Vec3::new(sw[6], sw[7], sw[8]),
        Vec3::new(sw[9], sw[10], sw[11]),
        Vec3::new(sa[0], sa[1], sa[2]),
        Vec3::new(sa[3], sa[4], sa[5]),
        Vec3::new(sa[6], sa[7], sa[8]),
        Vec3::new(sa[9], sa[10], sa[11]),
    )
}
