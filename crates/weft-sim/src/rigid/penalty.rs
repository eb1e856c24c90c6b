//! Penalty contacts of rigid bodies (for [`SemiImplicit`](crate::SemiImplicit)):
//! a spring–damper along the normal and regularised Coulomb friction at each
//! contact point, as forces and torques on the two bodies. Smooth in the
//! poses and velocities, so gradients through contact are usable.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
use weft::prelude::*;
#[allow(unused_imports)] // named by the generated code
use weft_collide::{Contacts, ShapeSet};

use super::contact_math::{body_com_world, body_pose, contact_points, point_velocity};
use crate::Model;
use crate::kernels::shapes::contact_force;

/// Series combination of two stiffnesses (or dampings): `a b / (a + b)`, 0
/// when both are 0.
#[weft::func]
pub fn series(a: f32, b: f32) -> f32 {
    let mut k = 0.0;
    if a + b > 0.0 {
        k = a * b / (a + b);
    }
    k
}

/// Adds each contact's penalty force and torque (about the centres of mass)
/// to both bodies' entries of `force` and `torque` (world frame).
#[weft::kernel]
pub fn eval_rigid_contacts(
    model: &Model,
    contacts: &Contacts,
    q: &Array<Transform>,
    qd: &Array<SpatialVector>,
    force: &mut Array<Vec3>,
    torque: &mut Array<Vec3>,
) {
    let c = tid();
    if c < min(contacts.count[0], contacts.shape_a.len() as i32) {
        let (ba, bb, pa, pb, n) = contact_points(model, contacts, q, c);
        let d = dot(n, pb - pa);
        if d < 0.0 {
            let sa = contacts.shape_a[c];
            let sb = contacts.shape_b[c];
            let ke = series(model.rigid_shapes.ke[sa], model.rigid_shapes.ke[sb]);
            let kd = series(model.rigid_shapes.kd[sa], model.rigid_shapes.kd[sb]);
            let kf = series(model.rigid_shapes.kf[sa], model.rigid_shapes.kf[sb]);
            let mu = 0.5 * (model.rigid_shapes.mu[sa] + model.rigid_shapes.mu[sb]);
            // Where the force acts: midway along the normal, and tangentially
            // where the moving body's point is. A static shape's point was
            // fixed in the world when the contact was found; a new search
            // would move it with the body, so following the body's point
            // keeps the gradient equal to what re-detection does.
            let mut p = (pa + pb) * 0.5;
            if ba < 0 {
                p = pb - n * (d * 0.5);
            } else if bb < 0 {
                p = pa + n * (d * 0.5);
            }
            let ra = p - body_com_world(model, ba, body_pose(q, ba));
            let rb = p - body_com_world(model, bb, body_pose(q, bb));
            let vrel = point_velocity(qd, bb, rb) - point_velocity(qd, ba, ra);
            let f = contact_force(n, vrel, d, ke, kd, kf, mu);
            if bb >= 0 {
                atomic_add(&mut force[bb], f);
                atomic_add(&mut torque[bb], cross(rb, f));
            }
            if ba >= 0 {
                atomic_add(&mut force[ba], -f);
                atomic_add(&mut torque[ba], cross(ra, -f));
            }
        }
    }
}

/// `body_f + (force, torque)` per body: the wrench the integrator applies.
#[weft::kernel]
pub fn add_wrenches(
    body_f: &Array<SpatialVector>,
    force: &Array<Vec3>,
    torque: &Array<Vec3>,
    out: &mut Array<SpatialVector>,
) {
    let b = tid();
    let w = body_f[b];
    out[b] = SpatialVector::new(w.top + force[b], w.bottom + torque[b]);
}
