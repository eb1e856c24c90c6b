//! EPA (expanding polytope algorithm): penetration depth and normal of two
//! overlapping cores, growing GJK's simplex toward the boundary of A − B.

use weft::prelude::*;

use super::emit::unit_or;
use super::simplex::triangle_weights;
use super::support::{pair_scale, pair_support};
use crate::ShapeSet;

/// The plane through triangle `p0, p1, p2` (counter-clockwise from outside):
/// unit normal `xyz` and offset `w`; a degenerate triangle gets offset 1e30
/// (never nearest).
#[weft::func]
pub fn triangle_plane(p0: Vec3, p1: Vec3, p2: Vec3) -> Vec4 {
    let n = cross(p1 - p0, p2 - p0);
    let l = length(n);
    let mut plane = Vec4::new(0.0, 0.0, 0.0, 1.0e30);
    if l > 1.0e-30 {
        let u = n / l;
        plane = Vec4::new(u.x, u.y, u.z, dot(u, p0));
    }
    plane
}

/// EPA between the cores of shapes `a` and `b` (world poses `xa`, `xb`),
/// starting from GJK's simplex (`count` corners `w0..` of A − B, a's supports
/// `a0..`) that holds the origin.
///
/// Returns `(ok, n, depth, pa)`: the unit normal `n` from a to b along which
/// the cores overlap least, by `depth` (≥ 0 up to rounding), and the deepest
/// point `pa` of a's core (b's is `pa − n depth`). `ok` is false when no
/// polytope could be built (flat input); the rest is then meaningless.
#[weft::func]
pub fn epa(
    shapes: &ShapeSet,
    a: i32,
    xa: Transform,
    b: i32,
    xb: Transform,
    count: i32,
    w0: Vec3,
    w1: Vec3,
    w2: Vec3,
    w3: Vec3,
    a0: Vec3,
    a1: Vec3,
    a2: Vec3,
    a3: Vec3,
) -> (bool, Vec3, f32, Vec3) {
    epa_general(
        shapes,
        a,
        xa,
        b,
        xb,
        Mat3::from_cols(Vec3::ZERO, Vec3::ZERO, Vec3::ZERO),
        count,
        w0,
        w1,
        w2,
        w3,
        a0,
        a1,
        a2,
        a3,
    )
}

/// [`epa`] between shape `a` and shape `b`, or, when `b` is -1, the triangle
/// whose corners are the columns of `tri` (world), as in
/// [`gjk_general`](super::gjk::gjk_general).
#[weft::func]
pub fn epa_general(
    shapes: &ShapeSet,
    a: i32,
    xa: Transform,
    b: i32,
    xb: Transform,
    tri: Mat3,
    count: i32,
    w0: Vec3,
    w1: Vec3,
    w2: Vec3,
    w3: Vec3,
    a0: Vec3,
    a1: Vec3,
    a2: Vec3,
    a3: Vec3,
) -> (bool, Vec3, f32, Vec3) {
    // Corners (A − B and a's support), faces (3 corner indices), face planes
    // (normal, offset), whether a face is live, horizon edges (2 indices).
    let mut vw = [0.0f32; 384];
    let mut va = [0.0f32; 384];
    let mut fv = [0i32; 768];
    let mut fp = [0.0f32; 1024];
    let mut live = [0i32; 256];
    let mut edges = [0i32; 256];
    let tr0 = tri.col(0);
    let tr1 = tri.col(1);
    let tr2 = tri.col(2);
    let scale = pair_scale(shapes, a, b, tr0, tr1, tr2);
    let tol = 1.0e-5 * scale;
    for k in 0..4 {
        let mut w = w0;
        let mut p = a0;
        if k == 1 {
            w = w1;
            p = a1;
        } else if k == 2 {
            w = w2;
            p = a2;
        } else if k == 3 {
            w = w3;
            p = a3;
        }
        for d in 0..3 {
            vw[3 * k + d] = w[d];
            va[3 * k + d] = p[d];
        }
    }
    let mut nv = count;
    // A flat tetrahedron drops its last corner and is rebuilt below.
    if nv == 4 {
        let p0 = Vec3::new(vw[0], vw[1], vw[2]);
        let e1 = Vec3::new(vw[3], vw[4], vw[5]) - p0;
        let e2 = Vec3::new(vw[6], vw[7], vw[8]) - p0;
        let e3 = Vec3::new(vw[9], vw[10], vw[11]) - p0;
        if abs(dot(cross(e1, e2), e3)) <= 1.0e-6 * length(e1) * length(e2) * length(e3) {
            nv = 3;
        }
    }
    // Grow a point to a segment, a segment to a triangle, a triangle to a
    // tetrahedron, with supports away from what is there.
    if nv == 1 {
        let p0 = Vec3::new(vw[0], vw[1], vw[2]);
        for k in 0..6 {
            if nv == 1 {
                let mut d = Vec3::ZERO;
                d[k / 2] = 1.0;
                if k % 2 == 1 {
                    d = -d;
                }
                let (w, wa) = pair_support(shapes, a, xa, b, xb, tr0, tr1, tr2, d);
                if length(w - p0) > tol {
                    for j in 0..3 {
                        vw[3 + j] = w[j];
                        va[3 + j] = wa[j];
                    }
                    nv = 2;
                }
            }
        }
    }
    if nv == 2 {
        let p0 = Vec3::new(vw[0], vw[1], vw[2]);
        let u = unit_or(Vec3::new(vw[3], vw[4], vw[5]) - p0, Vec3::X);
        let mut e = Vec3::X;
        if abs(u.y) < abs(u.x) && abs(u.y) <= abs(u.z) {
            e = Vec3::Y;
        } else if abs(u.z) < abs(u.x) && abs(u.z) < abs(u.y) {
            e = Vec3::Z;
        }
        let d1 = normalize(cross(u, e));
        let d2 = cross(u, d1);
        for k in 0..4 {
            if nv == 2 {
                let mut d = d1;
                if k == 1 {
                    d = d2;
                } else if k == 2 {
                    d = -d1;
                } else if k == 3 {
                    d = -d2;
                }
                let (w, wa) = pair_support(shapes, a, xa, b, xb, tr0, tr1, tr2, d);
                if length(cross(w - p0, u)) > tol {
                    for j in 0..3 {
                        vw[6 + j] = w[j];
                        va[6 + j] = wa[j];
                    }
                    nv = 3;
                }
            }
        }
    }
    if nv == 3 {
        let p0 = Vec3::new(vw[0], vw[1], vw[2]);
        let p1 = Vec3::new(vw[3], vw[4], vw[5]);
        let p2 = Vec3::new(vw[6], vw[7], vw[8]);
        let nrm = unit_or(cross(p1 - p0, p2 - p0), Vec3::Z);
        let (w, wa) = pair_support(shapes, a, xa, b, xb, tr0, tr1, tr2, nrm);
        let (w2, wa2) = pair_support(shapes, a, xa, b, xb, tr0, tr1, tr2, -nrm);
        let mut best = w;
        let mut best_a = wa;
        if abs(dot(w2 - p0, nrm)) > abs(dot(w - p0, nrm)) {
            best = w2;
            best_a = wa2;
        }
        if abs(dot(best - p0, nrm)) > tol {
            for j in 0..3 {
                vw[9 + j] = best[j];
                va[9 + j] = best_a[j];
            }
            nv = 4;
        }
    }
    if nv < 4 {
        return (false, Vec3::Z, 0.0, a0);
    }
    // Orient: the face (0, 1, 2) faces away from corner 3.
    let c0 = Vec3::new(vw[0], vw[1], vw[2]);
    let c1 = Vec3::new(vw[3], vw[4], vw[5]);
    let c2 = Vec3::new(vw[6], vw[7], vw[8]);
    let c3 = Vec3::new(vw[9], vw[10], vw[11]);
    if dot(cross(c1 - c0, c2 - c0), c3 - c0) > 0.0 {
        for j in 0..3 {
            let t = vw[3 + j];
            vw[3 + j] = vw[6 + j];
            vw[6 + j] = t;
            let s = va[3 + j];
            va[3 + j] = va[6 + j];
            va[6 + j] = s;
        }
    }
    // Faces (0,1,2), (0,3,1), (0,2,3), (1,3,2).
    let mut nf = 4;
    for f in 0..4 {
        let mut i = 0;
        let mut j = 1;
        let mut k = 2;
        if f == 1 {
            j = 3;
            k = 1;
        } else if f == 2 {
            j = 2;
            k = 3;
        } else if f == 3 {
            i = 1;
            j = 3;
            k = 2;
        }
        fv[3 * f] = i;
        fv[3 * f + 1] = j;
        fv[3 * f + 2] = k;
        live[f] = 1;
        let pl = triangle_plane(
            Vec3::new(vw[3 * i], vw[3 * i + 1], vw[3 * i + 2]),
            Vec3::new(vw[3 * j], vw[3 * j + 1], vw[3 * j + 2]),
            Vec3::new(vw[3 * k], vw[3 * k + 1], vw[3 * k + 2]),
        );
        for d in 0..4 {
            fp[4 * f + d] = pl[d];
        }
    }
    // The nearest face so far, kept by value (its slot may be reused).
    let mut bn = Vec3::Z;
    let mut bd = 0.0;
    let mut t0 = Vec3::ZERO;
    let mut t1 = Vec3::ZERO;
    let mut t2 = Vec3::ZERO;
    let mut s0 = Vec3::ZERO;
    let mut s1 = Vec3::ZERO;
    let mut s2 = Vec3::ZERO;
    let mut ok = true;
    for it in 0..100 {
        let mut best = -1;
        let mut dmin = 1.0e29;
        for f in 0..nf {
            if live[f] != 0 && fp[4 * f + 3] < dmin {
                dmin = fp[4 * f + 3];
                best = f;
            }
        }
        if best < 0 {
            ok = false;
            break;
        }
        // The nearest face only moves out while the polytope is sound; on a
        // curved surface rounding can break it, and the last good face stands.
        if it > 0 && dmin < bd - tol {
            break;
        }
        bn = Vec3::new(fp[4 * best], fp[4 * best + 1], fp[4 * best + 2]);
        bd = dmin;
        let i0 = fv[3 * best];
        let i1 = fv[3 * best + 1];
        let i2 = fv[3 * best + 2];
        t0 = Vec3::new(vw[3 * i0], vw[3 * i0 + 1], vw[3 * i0 + 2]);
        t1 = Vec3::new(vw[3 * i1], vw[3 * i1 + 1], vw[3 * i1 + 2]);
        t2 = Vec3::new(vw[3 * i2], vw[3 * i2 + 1], vw[3 * i2 + 2]);
        s0 = Vec3::new(va[3 * i0], va[3 * i0 + 1], va[3 * i0 + 2]);
        s1 = Vec3::new(va[3 * i1], va[3 * i1 + 1], va[3 * i1 + 2]);
        s2 = Vec3::new(va[3 * i2], va[3 * i2 + 1], va[3 * i2 + 2]);
        let (w, wa) = pair_support(shapes, a, xa, b, xb, tr0, tr1, tr2, bn);
        if dot(w, bn) - bd <= tol || nv >= 128 {
            break;
        }
        let iv = nv;
        for d in 0..3 {
            vw[3 * iv + d] = w[d];
            va[3 * iv + d] = wa[d];
        }
        nv += 1;
        // Remove the faces the new corner sees; their unshared edges form
        // the horizon.
        let mut ne = 0;
        for f in 0..nf {
            if live[f] != 0 {
                let n = Vec3::new(fp[4 * f], fp[4 * f + 1], fp[4 * f + 2]);
                if dot(n, w) - fp[4 * f + 3] > 1.0e-7 * scale {
                    live[f] = 0;
                    for e in 0..3 {
                        let i = fv[3 * f + e];
                        let j = fv[3 * f + (e + 1) % 3];
                        let mut found = -1;
                        for h in 0..ne {
                            if edges[2 * h] == j && edges[2 * h + 1] == i {
                                found = h;
                            }
                        }
                        if found >= 0 {
                            ne -= 1;
                            edges[2 * found] = edges[2 * ne];
                            edges[2 * found + 1] = edges[2 * ne + 1];
                        } else if ne < 128 {
                            edges[2 * ne] = i;
                            edges[2 * ne + 1] = j;
                            ne += 1;
                        }
                    }
                }
            }
        }
        // Cone the horizon to the new corner, reusing dead face slots.
        let mut full = false;
        for h in 0..ne {
            let mut slot = -1;
            for f in 0..nf {
                if slot < 0 && live[f] == 0 {
                    slot = f;
                }
            }
            if slot < 0 && nf < 256 {
                slot = nf;
                nf += 1;
            }
            if slot < 0 {
                full = true;
            } else {
                let i = edges[2 * h];
                let j = edges[2 * h + 1];
                fv[3 * slot] = i;
                fv[3 * slot + 1] = j;
                fv[3 * slot + 2] = iv;
                live[slot] = 1;
                let pl = triangle_plane(
                    Vec3::new(vw[3 * i], vw[3 * i + 1], vw[3 * i + 2]),
                    Vec3::new(vw[3 * j], vw[3 * j + 1], vw[3 * j + 2]),
                    w,
                );
                for d in 0..4 {
                    fp[4 * slot + d] = pl[d];
                }
            }
        }
        if full {
            break;
        }
    }
    // The deepest points: the origin's projection on the nearest face.
    let q = bn * bd;
    let lam = triangle_weights(t0 - q, t1 - q, t2 - q);
    let pa = s0 * lam.x + s1 * lam.y + s2 * lam.z;
    (ok, bn, bd, pa)
}
