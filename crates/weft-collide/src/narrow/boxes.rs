//! Box against box: the separating-axis test over the 15 axes, then a face
//! contact clipped to a manifold of up to 8 points, or one edge–edge point.

use weft::prelude::*;

use super::emit::{emit_contact, segments_params};
use crate::Contacts;

/// Box `a` (pose `xa`, half extents `ha`) against box `b`.
#[weft::func]
pub fn box_box(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    xa: Transform,
    ha: Vec3,
    xb: Transform,
    hb: Vec3,
    margin: f32,
) {
    // b's axes and centre in a's frame.
    let rot = quat_to_matrix(quat_inverse(xa.q) * xb.q);
    let t = quat_rotate_inv(xa.q, xb.p - xa.p);
    let mut best_face = -1.0e30;
    let mut face_axis = 0;
    // Faces of a (axes 0–2) and of b (3–5).
    for k in 0..6 {
        let mut l = Vec3::ZERO;
        if k < 3 {
            l[k] = 1.0;
        } else {
            l = rot.col(k - 3);
        }
        let sep = axis_separation(l, t, ha, hb, rot);
        if sep > best_face {
            best_face = sep;
            face_axis = k;
        }
    }
    if best_face < margin {
        let mut best_edge = -1.0e30;
        let mut edge_axis = Vec3::Z;
        let mut ei = 0;
        let mut ej = 0;
        for i in 0..3 {
            for j in 0..3 {
                let mut e = Vec3::ZERO;
                e[i] = 1.0;
                let l = cross(e, rot.col(j));
                let len = length(l);
                if len > 1.0e-4 {
                    let sep = axis_separation(l / len, t, ha, hb, rot);
                    if sep > best_edge {
                        best_edge = sep;
                        edge_axis = l / len;
                        ei = i;
                        ej = j;
                    }
                }
            }
        }
        // Faces win unless an edge axis separates clearly more (stable manifolds).
        let scale = min(min(ha.x, ha.y), min(min(ha.z, hb.x), min(hb.y, hb.z)));
        if best_edge < margin {
            if best_edge > best_face + 0.02 * scale {
                edge_contact(
                    c, pair, a, b, body_a, body_b, xa, ha, hb, rot, t, edge_axis, ei, ej, margin,
                );
            } else if face_axis < 3 {
                face_contacts(
                    c, pair, a, b, body_a, body_b, xa, ha, xb, hb, face_axis, false, margin,
                );
            } else {
                face_contacts(
                    c,
                    pair,
                    b,
                    a,
                    body_b,
                    body_a,
                    xb,
                    hb,
                    xa,
                    ha,
                    face_axis - 3,
                    true,
                    margin,
                );
            }
        }
    }
}

/// Separation of the boxes along unit axis `l` (a's frame): the gap between
/// their projections (negative: overlap).
#[weft::func]
pub fn axis_separation(l: Vec3, t: Vec3, ha: Vec3, hb: Vec3, rot: Mat3) -> f32 {
    let ra = ha.x * abs(l.x) + ha.y * abs(l.y) + ha.z * abs(l.z);
    let rb = hb.x * abs(dot(rot.col(0), l))
        + hb.y * abs(dot(rot.col(1), l))
        + hb.z * abs(dot(rot.col(2), l));
    abs(dot(t, l)) - ra - rb
}

/// The contact of an edge of a (along its axis `i`) with an edge of b (along
/// its axis `j`), whose cross product `l` (a's frame) separates least.
#[weft::func]
pub fn edge_contact(
    c: &mut Contacts,
    pair: i32,
    a: i32,
    b: i32,
    body_a: Transform,
    body_b: Transform,
    xa: Transform,
    ha: Vec3,
    hb: Vec3,
    rot: Mat3,
    t: Vec3,
    axis: Vec3,
    i: i32,
    j: i32,
    margin: f32,
) {
    let mut l = axis;
    if dot(l, t) < 0.0 {
        l = -l;
    }
    // a's edge nearest b: the corner offsets toward b on the other two axes.
    let mut ca = Vec3::ZERO;
    for k in 0..3 {
        if k != i {
            let mut s = 1.0;
            if l[k] < 0.0 {
                s = -1.0;
            }
            ca[k] = s * ha[k];
        }
    }
    let mut ea = Vec3::ZERO;
    ea[i] = ha[i];
    // b's edge nearest a.
    let mut cb = t;
    for k in 0..3 {
        if k != j {
            let axis_k = rot.col(k);
            let mut s = -1.0;
            if dot(axis_k, l) < 0.0 {
                s = 1.0;
            }
            cb += axis_k * (s * hb[k]);
        }
    }
    let eb = rot.col(j) * hb[j];
    let (s, u) = segments_params(ca - ea, ca + ea, cb - eb, cb + eb);
    let pa = ca - ea + ea * (2.0 * s);
    let pb = cb - eb + eb * (2.0 * u);
    let n = quat_rotate(xa.q, l);
    emit_contact(
        c,
        pair,
        a,
        b,
        body_a,
        body_b,
        transform_point(xa, pa),
        transform_point(xa, pb),
        n,
        0.0,
        0.0,
        margin,
    );
}

/// Face contacts with reference box `r` (pose `xr`, half extents `hr`, face
/// normal along its axis `axis`) and incident box `i`: the incident face is
/// clipped to the reference face's sides (Sutherland–Hodgman) and each
/// clipped corner below the margin becomes a contact. `flip` says the
/// reference box is the pair's shape b, so the contact is stored as (i, r).
#[weft::func]
pub fn face_contacts(
    c: &mut Contacts,
    pair: i32,
    r: i32,
    i: i32,
    body_r: Transform,
    body_i: Transform,
    xr: Transform,
    hr: Vec3,
    xi: Transform,
    hi: Vec3,
    axis: i32,
    flip: bool,
    margin: f32,
) {
    let rot = quat_to_matrix(quat_inverse(xr.q) * xi.q);
    let t = quat_rotate_inv(xr.q, xi.p - xr.p);
    let mut s = 1.0;
    if t[axis] < 0.0 {
        s = -1.0;
    }
    let mut nr = Vec3::ZERO;
    nr[axis] = s;
    // The incident face: the face of i most against nr.
    let mut best = 0.0;
    let mut jf = 0;
    for j in 0..3 {
        let d = dot(rot.col(j), nr);
        if abs(d) > abs(best) {
            best = d;
            jf = j;
        }
    }
    let mut si = -1.0;
    if best < 0.0 {
        si = 1.0;
    }
    let face_c = t + rot.col(jf) * (si * hi[jf]);
    let j1 = (jf + 1) % 3;
    let j2 = (jf + 2) % 3;
    let e1 = rot.col(j1) * hi[j1];
    let e2 = rot.col(j2) * hi[j2];
    // The polygon in the reference frame's coordinates (u, v along the face,
    // w along the normal), ping-ponged between two buffers.
    let u = (axis + 1) % 3;
    let v = (axis + 2) % 3;
    let mut px = [0.0f32; 24];
    let mut qx = [0.0f32; 24];
    let mut n = 4;
    for k in 0..4 {
        let mut a1 = 1.0;
        let mut a2 = 1.0;
        if k == 1 || k == 2 {
            a1 = -1.0;
        }
        if k >= 2 {
            a2 = -1.0;
        }
        let p = face_c + e1 * a1 + e2 * a2;
        px[3 * k] = p[u];
        px[3 * k + 1] = p[v];
        px[3 * k + 2] = p[axis];
    }
    // Clip against u <= hu, -u <= hu, v <= hv, -v <= hv.
    for pass in 0..4 {
        let coord = pass / 2;
        let mut sg = 1.0;
        if (pass & 1) != 0 {
            sg = -1.0;
        }
        let mut bound = hr[u];
        if coord == 1 {
            bound = hr[v];
        }
        let mut m = 0;
        for k in 0..n {
            let k2 = (k + 1) % n;
            let da = sg * px[3 * k + coord] - bound;
            let db = sg * px[3 * k2 + coord] - bound;
            if da <= 0.0 {
                qx[3 * m] = px[3 * k];
                qx[3 * m + 1] = px[3 * k + 1];
                qx[3 * m + 2] = px[3 * k + 2];
                m += 1;
            }
            if (da < 0.0 && db > 0.0) || (da > 0.0 && db < 0.0) {
                let f = da / (da - db);
                for d in 0..3 {
                    qx[3 * m + d] = px[3 * k + d] + (px[3 * k2 + d] - px[3 * k + d]) * f;
                }
                m += 1;
            }
        }
        n = m;
        for k in 0..3 * n {
            px[k] = qx[k];
        }
    }
    let n_world = quat_rotate(xr.q, nr);
    for k in 0..n {
        let mut p = Vec3::ZERO;
        p[u] = px[3 * k];
        p[v] = px[3 * k + 1];
        p[axis] = px[3 * k + 2];
        let mut on_ref = p;
        on_ref[axis] = s * hr[axis];
        let pw = transform_point(xr, p);
        let rw = transform_point(xr, on_ref);
        if flip {
            emit_contact(
                c, pair, i, r, body_i, body_r, pw, rw, -n_world, 0.0, 0.0, margin,
            );
        } else {
            emit_contact(
                c, pair, r, i, body_r, body_i, rw, pw, n_world, 0.0, 0.0, margin,
            );
        }
    }
}
