//! Support functions of the shapes' cores — the point of a shape furthest
//! along a direction — which GJK and EPA see the shapes through. GJK and EPA
//! also take a triangle (of a mesh or height field) in place of shape b: b
//! is then -1 and the triangle's corners are passed along ([`pair_support`]).
//!
//! A sphere's core is its centre and a capsule's its segment, thickened by
//! their radius ([`core_radius`]); boxes, cylinders and hulls are their own
//! cores (thickness 0). Keeping round shapes as cores keeps their contacts
//! exact: the gap is the cores' distance minus the radii, as everywhere else.

use weft::prelude::*;

use crate::ShapeSet;

/// Thickness around the core of a shape of `kind` and `size`: a sphere's or
/// capsule's radius, 0 for the other kinds.
#[weft::func]
pub fn core_radius(kind: i32, size: Vec3) -> f32 {
    let mut r = 0.0;
    if kind == 1 || kind == 3 {
        r = size.x;
    }
    r
}

/// Outward unit normal and offset (`n · x = offset`) of the hull face plane
/// `plane` (normal `xyz`, offset `w`) after scaling the hull by `scale` per
/// axis: normals map by the inverse transpose, `diag(1 / scale)`.
#[weft::func]
pub fn scaled_plane(plane: Vec4, scale: Vec3) -> (Vec3, f32) {
    let m = Vec3::new(plane.x, plane.y, plane.z) / scale;
    let l = length(m);
    (m / l, plane.w / l)
}

/// The vertex of shape `s`'s hull, scaled by `scale`, furthest along `d`
/// (both in the shape's frame).
#[weft::func]
pub fn hull_support(shapes: &ShapeSet, s: i32, scale: Vec3, d: Vec3) -> Vec3 {
    let r = shapes.hull_vertices[shapes.source[s]];
    let ds = d * scale;
    let mut best = -1.0e30;
    let mut p = Vec3::ZERO;
    for k in r.x..r.x + r.y {
        let v = shapes.hull_points[k];
        let e = dot(v, ds);
        if e > best {
            best = e;
            p = v;
        }
    }
    p * scale
}

/// The point of shape `s`'s core (of `kind` and `size`) furthest along `d`, in
/// the shape's frame.
#[weft::func]
pub fn core_support_local(shapes: &ShapeSet, s: i32, kind: i32, size: Vec3, d: Vec3) -> Vec3 {
    let mut p = Vec3::ZERO;
    if kind == 2 {
        p = size;
        if d.x < 0.0 {
            p.x = -size.x;
        }
        if d.y < 0.0 {
            p.y = -size.y;
        }
        if d.z < 0.0 {
            p.z = -size.z;
        }
    } else if kind == 3 {
        p.z = size.y;
        if d.z < 0.0 {
            p.z = -size.y;
        }
    } else if kind == 4 {
        let r = sqrt(d.x * d.x + d.y * d.y);
        if r > 1.0e-20 {
            p.x = d.x * (size.x / r);
            p.y = d.y * (size.x / r);
        }
        p.z = size.y;
        if d.z < 0.0 {
            p.z = -size.y;
        }
    } else if kind == 5 {
        p = hull_support(shapes, s, size, d);
    }
    p
}

/// The point of shape `s`'s core, at world pose `x`, furthest along the world
/// direction `d`.
#[weft::func]
pub fn core_support(shapes: &ShapeSet, s: i32, x: Transform, d: Vec3) -> Vec3 {
    let local = core_support_local(
        shapes,
        s,
        shapes.kind[s],
        shapes.size[s],
        quat_rotate_inv(x.q, d),
    );
    transform_point(x, local)
}

/// Support of the Minkowski difference A − B of the cores of shapes `a` and
/// `b` along `d`: `(w, p)` with `p` a's support along `d` and `w = p − q`, `q`
/// b's support along `−d`.
#[weft::func]
pub fn minkowski_support(
    shapes: &ShapeSet,
    a: i32,
    xa: Transform,
    b: i32,
    xb: Transform,
    d: Vec3,
) -> (Vec3, Vec3) {
    let p = core_support(shapes, a, xa, d);
    let q = core_support(shapes, b, xb, -d);
    (p - q, p)
}

/// The corner of triangle `t0, t1, t2` furthest along `d`.
#[weft::func]
pub fn triangle_support(t0: Vec3, t1: Vec3, t2: Vec3, d: Vec3) -> Vec3 {
    let mut p = t0;
    let d0 = dot(t0, d);
    let d1 = dot(t1, d);
    let d2 = dot(t2, d);
    if d1 > d0 && d1 >= d2 {
        p = t1;
    } else if d2 > d0 && d2 > d1 {
        p = t2;
    }
    p
}

/// [`minkowski_support`] of shape `a` and shape `b`, or, when `b` is -1, of
/// shape `a` and the triangle `t0, t1, t2` (world).
#[weft::func]
pub fn pair_support(
    shapes: &ShapeSet,
    a: i32,
    xa: Transform,
    b: i32,
    xb: Transform,
    t0: Vec3,
    t1: Vec3,
    t2: Vec3,
    d: Vec3,
) -> (Vec3, Vec3) {
    let p = core_support(shapes, a, xa, d);
    let mut q = Vec3::ZERO;
    if b >= 0 {
        q = core_support(shapes, b, xb, -d);
    } else {
        q = triangle_support(t0, t1, t2, -d);
    }
    (p - q, p)
}

/// The length scale of a pair for tolerances: the sum of the shapes'
/// bounding radii (for a triangle, `b` = -1: its corners' largest distance
/// from their centroid).
#[weft::func]
pub fn pair_scale(shapes: &ShapeSet, a: i32, b: i32, t0: Vec3, t1: Vec3, t2: Vec3) -> f32 {
    let mut rb = 0.0;
    if b >= 0 {
        rb = shapes.radius[b];
    } else {
        let c = (t0 + t1 + t2) / 3.0;
        rb = max(length(t0 - c), max(length(t1 - c), length(t2 - c)));
    }
    shapes.radius[a] + rb
}
