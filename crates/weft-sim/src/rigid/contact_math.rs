//! The geometry of one contact at the bodies' current poses, shared by the
//! rigid solvers.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, ShapeSet};

use super::integrate::world_inv_inertia;
use crate::Model;

/// World pose of body `b` in `q` (identity for -1, static geometry).
#[weft::func]
pub fn body_pose(q: &Array<Transform>, b: i32) -> Transform {
    let mut x = Transform::new(Vec3::ZERO, Quat::IDENTITY);
    if b >= 0 {
        x = q[b];
    }
    x
}

/// Inverse mass of body `b` seen along unit direction `n` at offset `r` from
/// its centre of mass: `1/m + (r × n)ᵀ I⁻¹ (r × n)` (0 for static geometry).
#[weft::func]
pub fn effective_inv_mass(model: &Model, b: i32, q: Quat, r: Vec3, n: Vec3) -> f32 {
    let mut w = 0.0;
    if b >= 0 {
        let rn = cross(r, n);
        w = model.body_inv_mass[b] + dot(rn, world_inv_inertia(q, model.body_inv_inertia[b]) * rn);
    }
    w
}

/// Contact `c` at poses `xa`, `xb` of its bodies: `(surface point on a,
/// surface point on b, normal a → b)`; the signed gap is `n · (pb − pa)`.
#[weft::func]
pub fn contact_at(contacts: &Contacts, c: i32, xa: Transform, xb: Transform) -> (Vec3, Vec3, Vec3) {
    let n = contacts.normal[c];
    let pa = transform_point(xa, contacts.point_a[c]) + n * contacts.radius_a[c];
    let pb = transform_point(xb, contacts.point_b[c]) - n * contacts.radius_b[c];
    (pa, pb, n)
}

/// Contact `c` at the poses `q`: `(body a, body b, surface point on a, surface
/// point on b, normal a → b)`; the signed gap is `n · (pb − pa)`.
#[weft::func]
pub fn contact_points(
    model: &Model,
    contacts: &Contacts,
    q: &Array<Transform>,
    c: i32,
) -> (i32, i32, Vec3, Vec3, Vec3) {
    let ba = model.rigid_shapes.body[contacts.shape_a[c]];
    let bb = model.rigid_shapes.body[contacts.shape_b[c]];
    let (pa, pb, n) = contact_at(contacts, c, body_pose(q, ba), body_pose(q, bb));
    (ba, bb, pa, pb, n)
}

/// World centre of mass of body `b` at pose `x` (`x.p` for static geometry).
#[weft::func]
pub fn body_com_world(model: &Model, b: i32, x: Transform) -> Vec3 {
    let mut c = x.p;
    if b >= 0 {
        c = transform_point(x, model.body_com[b]);
    }
    c
}

/// Velocity of the point at offset `r` from body `b`'s centre of mass.
#[weft::func]
pub fn point_velocity(qd: &Array<SpatialVector>, b: i32, r: Vec3) -> Vec3 {
    let mut v = Vec3::ZERO;
    if b >= 0 {
        let s = qd[b];
        v = s.top + cross(s.bottom, r);
    }
    v
}
