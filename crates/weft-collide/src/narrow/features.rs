//! Contact features: the face of a shape that faces a direction most, as a
//! polygon of world points, for the manifold clipping of
//! [`convex_manifold`](super::convex_manifold).
//!
//! | kind | face |
//! |---|---|
//! | sphere | its centre (1 point) |
//! | capsule | its segment (2 points) |
//! | box | the face most along the direction (4 corners) |
//! | cylinder | a cap, as 8 rim points starting at the one furthest along the direction; or the side line furthest along it (2 points) |
//! | convex | the hull face most along the direction (up to 32 corners) |

use weft::prelude::*;

use super::emit::unit_or;
use super::support::scaled_plane;
use crate::ShapeSet;

/// The face of shape `s` (world pose `x`) whose outward normal is nearest the
/// world direction `d` (unit): `(id, count, alignment, normal)` — an id for
/// [`face_point`], its corner count, the cosine between its normal and `d`
/// (how square it meets `d`), and its outward normal (world). A hull face of
/// more than 32 corners takes part through 32 of them, spread evenly.
#[weft::func]
pub fn support_face(shapes: &ShapeSet, s: i32, x: Transform, d: Vec3) -> (i32, i32, f32, Vec3) {
    let kind = shapes.kind[s];
    let size = shapes.size[s];
    let dl = quat_rotate_inv(x.q, d);
    let mut id = 0;
    let mut count = 1;
    let mut align = 1.0;
    let mut nl = dl;
    if kind == 2 {
        let ad = abs(dl);
        let mut k = 0;
        if ad.y > ad.x && ad.y >= ad.z {
            k = 1;
        } else if ad.z > ad.x && ad.z > ad.y {
            k = 2;
        }
        nl = Vec3::ZERO;
        nl[k] = 1.0;
        id = 2 * k;
        if dl[k] < 0.0 {
            nl[k] = -1.0;
            id = 2 * k + 1;
        }
        count = 4;
        align = ad[k];
    } else if kind == 3 {
        let r = Vec3::new(dl.x, dl.y, 0.0);
        count = 2;
        align = length(r);
        nl = unit_or(r, Vec3::X);
    } else if kind == 4 {
        let radial = sqrt(dl.x * dl.x + dl.y * dl.y);
        if abs(dl.z) >= radial {
            count = 8;
            align = abs(dl.z);
            nl = Vec3::Z;
            if dl.z < 0.0 {
                id = 1;
                nl = -Vec3::Z;
            }
        } else {
            id = 2;
            count = 2;
            align = radial;
            nl = Vec3::new(dl.x, dl.y, 0.0) / radial;
        }
    } else if kind == 5 {
        let hf = shapes.hull_faces[shapes.source[s]];
        align = -2.0;
        for f in hf.x..hf.x + hf.y {
            let (n, _offset) = scaled_plane(shapes.face_planes[f], size);
            let cf = dot(n, dl);
            if cf > align {
                align = cf;
                id = f;
                nl = n;
            }
        }
        count = min(shapes.face_ranges[id].y, 32);
    }
    (id, count, align, quat_rotate(x.q, nl))
}

/// Corner `k` (world) of the face `id` of `count` corners that
/// [`support_face`] gave for shape `s` at pose `x` and direction `d`.
#[weft::func]
pub fn face_point(
    shapes: &ShapeSet,
    s: i32,
    x: Transform,
    d: Vec3,
    id: i32,
    count: i32,
    k: i32,
) -> Vec3 {
    let kind = shapes.kind[s];
    let size = shapes.size[s];
    let mut p = Vec3::ZERO;
    if kind == 2 {
        // Corners (+,+), (-,+), (-,-), (+,-) of the face's two other axes.
        let ax = id / 2;
        let u = (ax + 1) % 3;
        let v = (ax + 2) % 3;
        p[ax] = size[ax];
        if id % 2 == 1 {
            p[ax] = -size[ax];
        }
        p[u] = size[u];
        if k == 1 || k == 2 {
            p[u] = -size[u];
        }
        p[v] = size[v];
        if k >= 2 {
            p[v] = -size[v];
        }
    } else if kind == 3 {
        p.z = size.y;
        if k == 0 {
            p.z = -size.y;
        }
    } else if kind == 4 {
        let dl = quat_rotate_inv(x.q, d);
        let e = unit_or(Vec3::new(dl.x, dl.y, 0.0), Vec3::X);
        if id == 2 {
            p = e * size.x;
            p.z = size.y;
            if k == 0 {
                p.z = -size.y;
            }
        } else {
            let f = cross(Vec3::Z, e);
            let angle = 6.2831855 * (k as f32) / (count as f32);
            p = (e * cos(angle) + f * sin(angle)) * size.x;
            p.z = size.y;
            if id == 1 {
                p.z = -size.y;
            }
        }
    } else if kind == 5 {
        let r = shapes.face_ranges[id];
        let j = (k * r.y) / count;
        p = shapes.hull_points[shapes.face_indices[r.x + j]] * size;
    }
    transform_point(x, p)
}
