//! Nearest points of simplices to the origin, as barycentric weights (zero
//! for the corners the nearest point does not need): GJK's sub-algorithm
//! (Ericson, Real-Time Collision Detection, 5.1.5–5.1.6).

use weft::prelude::*;

use super::emit::segment_param;

/// Weights `(u, v, w)` of the point of triangle `a, b, c` nearest the origin.
#[weft::func]
pub fn triangle_weights(a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let ab = b - a;
    let ac = c - a;
    let d1 = -dot(ab, a);
    let d2 = -dot(ac, a);
    if d1 <= 0.0 && d2 <= 0.0 {
        return Vec3::new(1.0, 0.0, 0.0);
    }
    let d3 = -dot(ab, b);
    let d4 = -dot(ac, b);
    if d3 >= 0.0 && d4 <= d3 {
        return Vec3::new(0.0, 1.0, 0.0);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        let t = d1 / (d1 - d3);
        return Vec3::new(1.0 - t, t, 0.0);
    }
    let d5 = -dot(ab, c);
    let d6 = -dot(ac, c);
    if d6 >= 0.0 && d5 <= d6 {
        return Vec3::new(0.0, 0.0, 1.0);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        let t = d2 / (d2 - d6);
        return Vec3::new(1.0 - t, 0.0, t);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0 {
        let t = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        return Vec3::new(0.0, 1.0 - t, t);
    }
    let sum = va + vb + vc;
    if sum <= 1.0e-30 {
        // A degenerate (flat) triangle: its nearest edge.
        return flat_triangle_weights(a, b, c);
    }
    let v = vb / sum;
    let w = vc / sum;
    Vec3::new(1.0 - v - w, v, w)
}

/// Weights of the point nearest the origin on the three edges of a triangle
/// too thin for [`triangle_weights`].
#[weft::func]
pub fn flat_triangle_weights(a: Vec3, b: Vec3, c: Vec3) -> Vec3 {
    let t_ab = segment_param(a, b, Vec3::ZERO);
    let t_bc = segment_param(b, c, Vec3::ZERO);
    let t_ca = segment_param(c, a, Vec3::ZERO);
    let p_ab = a + (b - a) * t_ab;
    let p_bc = b + (c - b) * t_bc;
    let p_ca = c + (a - c) * t_ca;
    let mut w = Vec3::new(1.0 - t_ab, t_ab, 0.0);
    let mut best = dot(p_ab, p_ab);
    if dot(p_bc, p_bc) < best {
        best = dot(p_bc, p_bc);
        w = Vec3::new(0.0, 1.0 - t_bc, t_bc);
    }
    if dot(p_ca, p_ca) < best {
        w = Vec3::new(t_ca, 0.0, 1.0 - t_ca);
    }
    w
}

/// Weights of the point of tetrahedron `p0..p3` nearest the origin, and
/// whether the origin is inside it (weights then zero).
#[weft::func]
pub fn tetra_weights(p0: Vec3, p1: Vec3, p2: Vec3, p3: Vec3) -> (Vec4, bool) {
    let mut best = 1.0e30;
    let mut lam = Vec4::ZERO;
    let mut inside = true;
    for f in 0..4 {
        // Face f leaves out corner f (`o`).
        let mut a = p1;
        let mut b = p2;
        let mut c = p3;
        let mut o = p0;
        let mut ia = 1;
        let mut ib = 2;
        let mut ic = 3;
        if f == 1 {
            a = p0;
            o = p1;
            ia = 0;
        } else if f == 2 {
            a = p0;
            b = p1;
            o = p2;
            ia = 0;
            ib = 1;
        } else if f == 3 {
            a = p0;
            b = p1;
            c = p2;
            o = p3;
            ia = 0;
            ib = 1;
            ic = 2;
        }
        let n = cross(b - a, c - a);
        let so = dot(o - a, n);
        let sp = -dot(a, n);
        let flat = abs(so) <= 1.0e-7 * length(n) * length(o - a);
        if flat || sp * so < 0.0 {
            inside = false;
            let w = triangle_weights(a, b, c);
            let q = a * w.x + b * w.y + c * w.z;
            if dot(q, q) < best {
                best = dot(q, q);
                lam = Vec4::ZERO;
                lam[ia] = w.x;
                lam[ib] = w.y;
                lam[ic] = w.z;
            }
        }
    }
    (lam, inside)
}
