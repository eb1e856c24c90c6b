//! The kernels of the XPBD integrator: prediction, distance and bending
//! constraints (with compliance and damping, Macklin et al. 2016/2019), contact
//! and friction projection, the averaged (Jacobi) position update and the
//! velocity update.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh, closest_point_triangle, mesh_query_point_face};
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use weft::prelude::*;

use super::shapes::shape_sdf;
use crate::{Control, Model, State};

/// Predicts positions from velocities and external forces (gravity,
/// `s_in.particle_f`, `control.particle_f`): `v* = v + dt (f/m + g)`,
/// `x* = x + dt v*`. Kinematic particles move with their velocity.
#[weft::kernel]
pub fn xpbd_predict(
    model: &Model,
    s_in: &State,
    control: &Control,
    x_pred: &mut Array<Vec3>,
    dt: f32,
) {
    let i = tid();
    let x = s_in.particle_q[i];
    let mut v = s_in.particle_qd[i];
    if (model.particle_flags[i] & 1) != 0 {
        let w = model.particle_inv_mass[i];
        let mut f = s_in.particle_f[i];
        if control.particle_f.len() > 0 {
            f += control.particle_f[i];
        }
        if w > 0.0 {
            v = v + (f * w + model.gravity) * dt;
        }
        x_pred[i] = x + v * dt;
    } else {
        x_pred[i] = x;
    }
}

/// One Jacobi pass over the distance constraints of the springs: compliance
/// `1 / stiffness`, damping along the spring, Lagrange multipliers carried from
/// `lambda_in` to `lambda_out`; position corrections are added to `delta`.
#[weft::kernel]
pub fn xpbd_springs(
    model: &Model,
    control: &Control,
    x: &Array<Vec3>,
    x_start: &Array<Vec3>,
    lambda_in: &Array<f32>,
    lambda_out: &mut Array<f32>,
    delta: &mut Array<Vec3>,
    dt: f32,
) {
    let s = tid();
    let ids = model.spring_indices[s];
    let i = ids.x;
    let j = ids.y;
    let ke = model.spring_stiffness[s];
    let kd = model.spring_damping[s];
    let mut rest = model.spring_rest_length[s];
    if control.spring_activation.len() > 0 {
        rest = rest * (1.0 + control.spring_activation[s]);
    }
    let wi = model.particle_inv_mass[i];
    let wj = model.particle_inv_mass[j];
    let lambda = lambda_in[s];
    let d = x[i] - x[j];
    let l = length(d);
    let mut dl = 0.0;
    if ke > 0.0 && wi + wj > 0.0 && l > 0.0 {
        let n = d / l;
        let c = l - rest;
        let alpha = 1.0 / (ke * dt * dt);
        let gamma = alpha * kd * dt;
        let dcdt = dot(n, (x[i] - x_start[i]) - (x[j] - x_start[j]));
        dl = -(c + alpha * lambda + gamma * dcdt) / ((1.0 + gamma) * (wi + wj) + alpha);
        atomic_add(&mut delta[i], n * (dl * wi));
        atomic_sub(&mut delta[j], n * (dl * wj));
    }
    lambda_out[s] = lambda + dl;
}

/// One Jacobi pass over the dihedral bending constraints `θ - θ₀ = 0` with
/// compliance `1 / stiffness`.
#[weft::kernel]
pub fn xpbd_bending(
    model: &Model,
    x: &Array<Vec3>,
    lambda_in: &Array<f32>,
    lambda_out: &mut Array<f32>,
    delta: &mut Array<Vec3>,
    dt: f32,
) {
    let e = tid();
    let ids = model.edge_indices[e];
    let x1 = x[ids.x];
    let x2 = x[ids.y];
    let x3 = x[ids.z];
    let x4 = x[ids.w];
    let ke = model.edge_ke[e];
    let lambda = lambda_in[e];
    let n1 = cross(x3 - x1, x4 - x1);
    let n2 = cross(x4 - x2, x3 - x2);
    let l1 = length(n1);
    let l2 = length(n2);
    let edge = x4 - x3;
    let e_len = length(edge);
    let mut dl = 0.0;
    if ke > 0.0 && l1 > 1.0e-6 && l2 > 1.0e-6 && e_len > 1.0e-6 {
        let e_hat = edge / e_len;
        let angle = atan2(dot(cross(n2, n1), e_hat), dot(n1, n2));
        let m1 = n1 / (l1 * l1);
        let m2 = n2 / (l2 * l2);
        let d1 = m1 * e_len;
        let d2 = m2 * e_len;
        let d3 = m1 * dot(x1 - x4, e_hat) + m2 * dot(x2 - x4, e_hat);
        let d4 = m1 * dot(x3 - x1, e_hat) + m2 * dot(x3 - x2, e_hat);
        let w1 = model.particle_inv_mass[ids.x];
        let w2 = model.particle_inv_mass[ids.y];
        let w3 = model.particle_inv_mass[ids.z];
        let w4 = model.particle_inv_mass[ids.w];
        let denom =
            w1 * length_sq(d1) + w2 * length_sq(d2) + w3 * length_sq(d3) + w4 * length_sq(d4);
        let alpha = 1.0 / (ke * dt * dt);
        if denom > 0.0 {
            let c = angle - model.edge_rest_angle[e];
            dl = -(c + alpha * lambda) / (denom + alpha);
            atomic_add(&mut delta[ids.x], d1 * (dl * w1));
            atomic_add(&mut delta[ids.y], d2 * (dl * w2));
            atomic_add(&mut delta[ids.z], d3 * (dl * w3));
            atomic_add(&mut delta[ids.w], d4 * (dl * w4));
        }
    }
    lambda_out[e] = lambda + dl;
}

/// `x_out = x + relaxation · delta / (number of constraints of the particle)`
/// for particles with mass (`inv_count` holds the reciprocal counts).
#[weft::kernel]
pub fn xpbd_apply(
    model: &Model,
    x: &Array<Vec3>,
    delta: &Array<Vec3>,
    inv_count: &Array<f32>,
    x_out: &mut Array<Vec3>,
    relaxation: f32,
) {
    let i = tid();
    let mut p = x[i];
    if model.particle_inv_mass[i] > 0.0 && (model.particle_flags[i] & 1) != 0 {
        p = p + delta[i] * (relaxation * inv_count[i]);
    }
    x_out[i] = p;
}

/// Contact of a particle moving from `start` to `p` with a surface of outward
/// normal `n` at penetration `c < 0`: the position correction that pushes it out
/// and removes the sliding displacement up to Coulomb's cone (`mu · |c|`).
#[weft::func]
pub fn contact_correction(n: Vec3, c: f32, p: Vec3, start: Vec3, mu: f32) -> Vec3 {
    let moved = p - start;
    let slide = moved - n * dot(n, moved);
    let s = length(slide);
    let limit = mu * (-c);
    let mut keep = 0.0;
    if s > limit {
        keep = 1.0 - limit / s;
    }
    n * (-c) - slide * (1.0 - keep)
}

/// Projects every particle out of the ground, the shapes and the meshes (hard
/// contacts with static and dynamic friction), writing the new positions.
#[weft::kernel]
pub fn xpbd_contacts(
    model: &Model,
    x: &Array<Vec3>,
    x_start: &Array<Vec3>,
    x_out: &mut Array<Vec3>,
) {
    let i = tid();
    let mut p = x[i];
    if model.particle_inv_mass[i] > 0.0 && (model.particle_flags[i] & 1) != 0 {
        let start = x_start[i];
        let r = model.particle_radius[i];
        if model.ground {
            let g = model.ground_plane;
            let n = Vec3::new(g.x, g.y, g.z);
            let c = dot(n, p) + g.w - r;
            if c < 0.0 {
                p += contact_correction(n, c, p, start, model.ground_mu);
            }
        }
        for s in 0..model.shape_kind.len() {
            let xf = model.shape_transform[s];
            let local = quat_rotate_inv(xf.q, p - xf.p);
            let (d, nl) = shape_sdf(model.shape_kind[s], local, model.shape_scale[s]);
            let c = d - r;
            if c < 0.0 {
                let n = quat_rotate(xf.q, nl);
                p += contact_correction(n, c, p, start, model.shape_mu[s]);
            }
        }
        if model.mesh.faces.len() > 0 {
            let reach = r + model.mesh_thickness;
            let face = mesh_query_point_face(model.mesh, p, reach);
            if face >= 0 {
                let a = model.mesh.points[model.mesh.faces[3 * face]];
                let b = model.mesh.points[model.mesh.faces[3 * face + 1]];
                let cc = model.mesh.points[model.mesh.faces[3 * face + 2]];
                let (q, _w) = closest_point_triangle(p, a, b, cc);
                let fnrm = normalize(cross(b - a, cc - a));
                let dv = p - q;
                let dist = length(dv);
                let mut side = 1.0;
                if dot(dv, fnrm) < 0.0 {
                    side = -1.0;
                }
                let mut n = fnrm;
                if dist > 1.0e-7 {
                    n = dv * (side / dist);
                }
                let c = dist * side - reach;
                if c < 0.0 {
                    p += contact_correction(n, c, p, start, model.mesh_mu);
                }
            }
        }
    }
    x_out[i] = p;
}

/// Ends a step: `s_out.x = x`, `s_out.v = (x - s_in.x) / dt`, forces cleared.
#[weft::kernel]
pub fn xpbd_finish(s_in: &State, x: &Array<Vec3>, s_out: &mut State, dt: f32) {
    let i = tid();
    let p = x[i];
    s_out.particle_q[i] = p;
    s_out.particle_qd[i] = (p - s_in.particle_q[i]) * (1.0 / dt);
    s_out.particle_f[i] = Vec3::ZERO;
}
