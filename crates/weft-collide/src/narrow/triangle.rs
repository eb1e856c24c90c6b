//! A sphere, capsule, box, cylinder or convex hull against one triangle of a
//! mesh or height field: the contacts a surface made of triangles should give.
//!
//! Triangles are one-sided (a shape behind a face gets nothing from it), and
//! each triangle knows its neighbours across its edges and which of its edges
//! and corners are *real* (convex or on a border) and which it *owns* (see
//! [`mesh_tables`](crate::mesh_tables)). Per triangle:
//!
//! 1. The nearest points of the shape's core and the triangle: a sphere's
//!    centre analytically ([`triangle_weights`]), the other kinds by GJK with a
//!    triangle support, and EPA where the cores overlap. That gives a normal
//!    `n` (triangle to shape) and the triangle's feature at the nearest point.
//! 2. Which contacts ([`triangle_contact_mode`]): the *face* manifold when `n`
//!    is the face normal, or the feature is the face, an internal edge or an
//!    internal corner (the normal is corrected to the face's: that is what keeps
//!    a box sliding over a flat tessellated floor from catching on the edges
//!    between triangles); a *single* contact along `n` at a real edge or corner
//!    when `n` lies in its cone of normals and the triangle owns it; nothing
//!    when the shape is behind the face or a neighbour's face covers `n`.
//! 3. The face manifold ([`triangle_face_contacts`]): the points a plane would
//!    take ([`candidate_point`]: a box's corners, a capsule's ends, a
//!    cylinder's rim points, a hull's vertices, a sphere's centre) that project
//!    into the triangle — a point on a shared edge or corner counts for its
//!    owner only — so a box on a flat mesh floor gets exactly the four corner
//!    contacts a plane gives; plus, for a flat face of the shape, the ends of
//!    the triangle's real edges clipped to that face (a box overhanging a ledge
//!    rests on the ledge's edge).

use weft::prelude::*;

use super::cylinder::rim_direction;
use super::emit::{emit_contact, unit_or};
use super::epa::epa_general;
use super::features::{face_point, support_face};
use super::gjk::gjk_general;
use super::simplex::triangle_weights;
use super::support::core_radius;
use crate::{Contacts, ShapeSet};

/// Whether bit `bit` of `flags` is set.
#[weft::func]
pub fn has_flag(flags: i32, bit: i32) -> bool {
    ((flags >> bit) & 1) != 0
}

/// Corner `k` (0, 1, 2) of triangle `t0, t1, t2`.
#[weft::func]
pub fn corner(t0: Vec3, t1: Vec3, t2: Vec3, k: i32) -> Vec3 {
    let mut p = t0;
    if k == 1 {
        p = t1;
    } else if k == 2 {
        p = t2;
    }
    p
}

/// The feature of triangle `t0, t1, t2` nearest to `p` (a point on or near
/// it): 0 the face, `1 + k` edge `k` (corner `k` to `k + 1`), `4 + k` corner `k`.
#[weft::func]
pub fn triangle_feature(t0: Vec3, t1: Vec3, t2: Vec3, p: Vec3) -> i32 {
    let w = triangle_weights(t0 - p, t1 - p, t2 - p);
    let tol = 1.0e-5;
    let z0 = w.x <= tol;
    let z1 = w.y <= tol;
    let z2 = w.z <= tol;
    let mut f = 0;
    if z1 && z2 {
        f = 4;
    } else if z0 && z2 {
        f = 5;
    } else if z0 && z1 {
        f = 6;
    } else if z2 {
        f = 1;
    } else if z0 {
        f = 2;
    } else if z1 {
        f = 3;
    }
    f
}

/// Whether `q` (in the plane of triangle `t0, t1, t2`, unit normal `n`) falls
/// in the triangle for a contact: inside, or on an edge or corner the triangle
/// owns (`flags`), so that a point on a shared feature counts once.
#[weft::func]
pub fn triangle_covers(t0: Vec3, t1: Vec3, t2: Vec3, n: Vec3, q: Vec3, flags: i32) -> bool {
    let mut inside = true;
    let mut near = 0;
    let mut count = 0;
    for k in 0..3 {
        let a = corner(t0, t1, t2, k);
        let e = corner(t0, t1, t2, (k + 1) % 3) - a;
        let le = length(e);
        let side = dot(cross(e, q - a), n) / max(le, 1.0e-30);
        let tol = 1.0e-6 * (le + length(q - a));
        if side < -tol {
            inside = false;
        } else if side <= tol {
            near = near | (1 << k);
            count += 1;
        }
    }
    if inside && count == 1 {
        // On edge k: its owner's, or a border's.
        let mut k = 0;
        if near == 2 {
            k = 1;
        } else if near == 4 {
            k = 2;
        }
        inside = !has_flag(flags, 6 + k) || has_flag(flags, k);
    } else if inside && count == 2 {
        // On a corner: the one where the two near edges meet, across from the
        // far edge `m` — its owner's.
        let mut m = 0;
        if (near & 2) == 0 {
            m = 1;
        } else if (near & 4) == 0 {
            m = 2;
        }
        inside = has_flag(flags, 9 + (m + 2) % 3);
    } else if count == 3 {
        inside = false;
    }
    inside
}

/// How many points of shape `s` a plane would test ([`candidate_point`]).
#[weft::func]
pub fn candidate_count(shapes: &ShapeSet, s: i32) -> i32 {
    let kind = shapes.kind[s];
    let mut n = 0;
    if kind == 1 {
        n = 1;
    } else if kind == 3 {
        n = 2;
    } else if kind == 2 || kind == 4 {
        n = 8;
    } else if kind == 5 {
        n = shapes.hull_vertices[shapes.source[s]].y;
    }
    n
}

/// Point `k` (world, on the core) of shape `s` at pose `xs` that a plane of
/// normal `up` tests, as the plane pairs do: a sphere's centre, a capsule's
/// segment ends, a box's corners, a cylinder's 4 rim points per cap around
/// the one lowest against the plane, a hull's vertices.
#[weft::func]
pub fn candidate_point(shapes: &ShapeSet, s: i32, xs: Transform, up: Vec3, k: i32) -> Vec3 {
    let kind = shapes.kind[s];
    let size = shapes.size[s];
    let mut p = Vec3::ZERO;
    if kind == 3 {
        p.z = -size.y;
        if k == 1 {
            p.z = size.y;
        }
    } else if kind == 2 {
        p = size;
        if (k & 1) != 0 {
            p.x = -size.x;
        }
        if (k & 2) != 0 {
            p.y = -size.y;
        }
        if (k & 4) != 0 {
            p.z = -size.z;
        }
    } else if kind == 4 {
        let e = rim_direction(quat_rotate_inv(xs.q, -up));
        let f = cross(Vec3::Z, e);
        let j = k % 4;
        let mut dir = e;
        if j == 1 {
            dir = f;
        } else if j == 2 {
            dir = -e;
        } else if j == 3 {
            dir = -f;
        }
        p = dir * size.x;
        p.z = -size.y;
        if k >= 4 {
            p.z = size.y;
        }
    } else if kind == 5 {
        let r = shapes.hull_vertices[shapes.source[s]];
        p = shapes.hull_points[r.x + k] * size;
    }
    transform_point(xs, p)
}

/// The face manifold of shape `s` (pose `xs`, core thickness `rs`) on
/// triangle `t0, t1, t2` (unit normal `n`, `flags`) of shape `m`: each
/// [`candidate_point`] below the margin whose projection the triangle covers
/// ([`triangle_covers`]); and where `s` meets the triangle with a face (box,
/// cylinder cap, hull face), the ends of each real edge of the triangle
/// clipped to that face. Normals are `n`; contacts are stored as (m, s).
/// Returns how many it emitted.
#[weft::func]
pub fn triangle_face_contacts(
    shapes: &ShapeSet,
    c: &mut Contacts,
    pair: i32,
    m: i32,
    s: i32,
    body_m: Transform,
    body_s: Transform,
    xs: Transform,
    t0: Vec3,
    t1: Vec3,
    t2: Vec3,
    n: Vec3,
    flags: i32,
    rs: f32,
    margin: f32,
) -> i32 {
    let mut emitted = 0;
    let count = candidate_count(shapes, s);
    for k in 0..count {
        let p = candidate_point(shapes, s, xs, n, k);
        let d = dot(n, p - t0);
        let q = p - n * d;
        if d - rs < margin && triangle_covers(t0, t1, t2, n, q, flags) {
            emit_contact(c, pair, m, s, body_m, body_s, q, p, n, 0.0, rs, margin);
            emitted += 1;
        }
    }
    let kind = shapes.kind[s];
    if kind == 2 || kind == 4 || kind == 5 {
        let (id, nf, align, fnrm) = support_face(shapes, s, xs, -n);
        if nf >= 3 && align > 0.5 && (flags & 56) != 0 {
            let mut centre = Vec3::ZERO;
            for j in 0..nf {
                centre += face_point(shapes, s, xs, -n, id, nf, j);
            }
            centre = centre / (nf as f32);
            let f0 = face_point(shapes, s, xs, -n, id, nf, 0);
            let den = dot(fnrm, n);
            for k in 0..3 {
                if has_flag(flags, 3 + k) {
                    let a = corner(t0, t1, t2, k);
                    let b = corner(t0, t1, t2, (k + 1) % 3);
                    // The part of the edge whose projection along n lies in
                    // the face: inside every side plane of the face.
                    let mut u0 = 0.0;
                    let mut u1 = 1.0;
                    for j in 0..nf {
                        let r0 = face_point(shapes, s, xs, -n, id, nf, j);
                        let r1 = face_point(shapes, s, xs, -n, id, nf, (j + 1) % nf);
                        let mut side = cross(r1 - r0, n);
                        if dot(side, centre - r0) > 0.0 {
                            side = -side;
                        }
                        let da = dot(side, a - r0);
                        let db = dot(side, b - r0);
                        if da > 0.0 && db > 0.0 {
                            u1 = -1.0;
                        } else if da > 0.0 {
                            u0 = max(u0, da / (da - db));
                        } else if db > 0.0 {
                            u1 = min(u1, da / (da - db));
                        }
                    }
                    if u1 - u0 > 1.0e-6 {
                        for end in 0..2 {
                            let mut u = u0;
                            if end == 1 {
                                u = u1;
                            }
                            // An unclipped start is corner k, which the real
                            // edge ending there gives already.
                            let repeat = end == 0 && u0 <= 0.0 && has_flag(flags, 3 + (k + 2) % 3);
                            if !repeat {
                                let q = a + (b - a) * u;
                                let p = q + n * (dot(fnrm, f0 - q) / den);
                                emit_contact(
                                    c, pair, m, s, body_m, body_s, q, p, n, 0.0, rs, margin,
                                );
                                emitted += 1;
                            }
                        }
                    }
                }
            }
        }
    }
    emitted
}

/// Which contacts triangle `t0, t1, t2` (unit normal `nt`, far corners `o0,
/// o1, o2` of its neighbours, `flags`) gives a shape whose core is nearest to
/// it at `pt` along unit `n` (triangle to shape): 1 the face manifold, 2 one
/// contact along `n`, 0 none (see the module docs).
#[weft::func]
pub fn triangle_contact_mode(
    t0: Vec3,
    t1: Vec3,
    t2: Vec3,
    o0: Vec3,
    o1: Vec3,
    o2: Vec3,
    nt: Vec3,
    flags: i32,
    n: Vec3,
    pt: Vec3,
) -> i32 {
    let cos_t = dot(n, nt);
    let mut mode = 0;
    if cos_t >= 0.9999 {
        mode = 1;
    } else if cos_t >= -0.01 {
        let f = triangle_feature(t0, t1, t2, pt);
        if f == 0 {
            mode = 1;
        } else if f <= 3 {
            let k = f - 1;
            let a = corner(t0, t1, t2, k);
            let b = corner(t0, t1, t2, (k + 1) % 3);
            let o = corner(o0, o1, o2, k);
            let e = b - a;
            if !has_flag(flags, 3 + k) || dot(n, cross(e, nt)) < 0.0 {
                // An internal edge, or a normal leaning over this face.
                mode = 1;
            } else if has_flag(flags, 6 + k) {
                let nn = unit_or(cross(a - b, o - b), nt);
                if dot(n, nn) < 0.9999 && dot(n, cross(nn, e)) >= 0.0 && has_flag(flags, k) {
                    mode = 2;
                }
            } else if has_flag(flags, k) {
                mode = 2;
            }
        } else {
            // Corner k: n must also point beyond it along the neighbours'
            // edges from it (toward their far corners), a necessary part of
            // lying in the corner's cone of normals.
            let k = f - 4;
            let kp = (k + 2) % 3;
            let p = corner(t0, t1, t2, k);
            let mut beyond = true;
            if has_flag(flags, 6 + k) && dot(n, corner(o0, o1, o2, k) - p) > 0.0 {
                beyond = false;
            }
            if has_flag(flags, 6 + kp) && dot(n, corner(o0, o1, o2, kp) - p) > 0.0 {
                beyond = false;
            }
            if !has_flag(flags, 12 + k) {
                mode = 1;
            } else if has_flag(flags, 9 + k) && beyond {
                mode = 2;
            }
        }
    }
    mode
}

/// Contacts of shape `s` (a sphere, box, capsule, cylinder or convex hull on
/// a body at world pose `body_s`) with the triangle `t0, t1, t2`
/// (world, counter-clockwise from the front) of mesh or height field `m` (on
/// a body at `body_m`), whose neighbours' far corners across its edges are
/// `o0, o1, o2` and whose edges and corners are described by `flags` (see
/// the module docs). Contacts are stored as (m, s), normals from the triangle
/// to the shape. Returns `(contacts emitted, gap, nearest point on the
/// triangle, on the shape's core, normal)`; the gap is `3e38` when the shape
/// is not within the margin in front of the face.
#[weft::func]
pub fn collide_triangle(
    shapes: &ShapeSet,
    c: &mut Contacts,
    pair: i32,
    m: i32,
    s: i32,
    body_m: Transform,
    body_s: Transform,
    t0: Vec3,
    t1: Vec3,
    t2: Vec3,
    o0: Vec3,
    o1: Vec3,
    o2: Vec3,
    flags: i32,
    margin: f32,
) -> (i32, f32, Vec3, Vec3, Vec3) {
    let mut emitted = 0;
    let mut gap = 3.0e38;
    let xs = body_s * shapes.transform[s];
    let cr = cross(t1 - t0, t2 - t0);
    let area2 = length(cr);
    let size = max(length(t1 - t0), max(length(t2 - t1), length(t0 - t2)));
    let kind = shapes.kind[s];
    let rs = core_radius(kind, shapes.size[s]);
    let mut n = Vec3::Z;
    let mut pt = t0;
    let mut ps = xs.p;
    if area2 > 1.0e-12 * size * size {
        let nt = cr / area2;
        n = nt;
        let mut touching = false;
        let mut forced_face = false;
        if kind == 1 {
            let w = triangle_weights(t0 - xs.p, t1 - xs.p, t2 - xs.p);
            pt = t0 * w.x + t1 * w.y + t2 * w.z;
            let v = ps - pt;
            let dist = length(v);
            touching = dist - rs < margin;
            if dist > 1.0e-7 * (size + rs) {
                n = v / dist;
            } else {
                forced_face = true;
            }
        } else {
            let xt = Transform::new((t0 + t1 + t2) / 3.0, Quat::IDENTITY);
            let (status, count, v, pa0, w0, w1, w2, w3, a0, a1, a2, a3) =
                gjk_general(shapes, s, xs, -1, xt, t0, t1, t2, margin + rs);
            if status != 3 {
                let dist = length(v);
                touching = status == 2 || dist - rs < margin;
                n = v / max(dist, 1.0e-30);
                ps = pa0;
                pt = pa0 - v;
                let scale = shapes.radius[s] + size;
                if status == 2 || dist <= 1.0e-5 * scale {
                    let tri = Mat3::from_cols(t0, t1, t2);
                    let (ok, nf, depth, qa) = epa_general(
                        shapes, s, xs, -1, xt, tri, count, w0, w1, w2, w3, a0, a1, a2, a3,
                    );
                    if ok {
                        n = -nf;
                        ps = qa;
                        pt = qa - nf * depth;
                    } else {
                        forced_face = true;
                    }
                }
            }
        }
        if touching {
            let mut mode = 1;
            if !forced_face {
                mode = triangle_contact_mode(t0, t1, t2, o0, o1, o2, nt, flags, n, pt);
            }
            if mode == 1 {
                emitted = triangle_face_contacts(
                    shapes, c, pair, m, s, body_m, body_s, xs, t0, t1, t2, nt, flags, rs, margin,
                );
            } else if mode == 2 {
                emit_contact(c, pair, m, s, body_m, body_s, pt, ps, n, 0.0, rs, margin);
                emitted = 1;
            }
            if dot(n, nt) > 0.0 {
                gap = dot(n, ps - pt) - rs;
            }
        }
    }
    (emitted, gap, pt, ps, n)
}
