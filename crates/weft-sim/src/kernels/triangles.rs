//! Membrane forces of cloth triangles: an area-weighted linear FEM with strain-rate
//! damping, an area-preserving term and optional aerodynamic drag and lift (the
//! model of Warp's `eval_triangles`).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use crate::{Model, State};

/// Adds the membrane forces of each triangle to its three particles.
#[weft::kernel]
pub fn eval_triangles(model: &Model, state: &mut State) {
    let t = tid();
    let ids = model.tri_indices[t];
    let i = ids.x;
    let j = ids.y;
    let k = ids.z;
    let x0 = state.particle_q[i];
    let x1 = state.particle_q[j];
    let x2 = state.particle_q[k];
    let v0 = state.particle_qd[i];
    let v1 = state.particle_qd[j];
    let v2 = state.particle_qd[k];
    let x10 = x1 - x0;
    let x20 = x2 - x0;
    let v10 = v1 - v0;
    let v20 = v2 - v0;

    let dm = model.tri_poses[t];
    let rest_area = model.tri_areas[t];
    let inv_rest_area = 1.0 / rest_area;
    let k_mu = model.tri_k_mu[t] * rest_area;
    let k_lambda = model.tri_k_lambda[t] * rest_area;
    let k_damp = model.tri_k_damp[t] * rest_area;
    let k_drag = model.tri_k_drag[t];
    let k_lift = model.tri_k_lift[t];

    // Deformation gradient F = [x10 x20] Dm⁻¹ and its rate.
    let f1 = x10 * dm[0][0] + x20 * dm[1][0];
    let f2 = x10 * dm[0][1] + x20 * dm[1][1];
    let df1 = v10 * dm[0][0] + v20 * dm[1][0];
    let df2 = v10 * dm[0][1] + v20 * dm[1][1];
    // First Piola stress (deviatoric, damped), mapped back: H = P Dm⁻ᵀ.
    let p1 = f1 * k_mu + df1 * k_damp;
    let p2 = f2 * k_mu + df2 * k_damp;
    let mut h1 = p1 * dm[0][0] + p2 * dm[0][1];
    let mut h2 = p1 * dm[1][0] + p2 * dm[1][1];

    // Area preservation: J - alpha, with J the area ratio.
    let mut alpha = 1.0;
    if k_lambda > 0.0 {
        alpha = 1.0 + k_mu / k_lambda;
    }
    let cr = cross(x10, x20);
    let area = length(cr) * 0.5;
    let n = normalize(cr);
    let c = area * inv_rest_area - alpha + model.tri_activations[t];
    let dcdq = cross(x20, n) * inv_rest_area * 0.5;
    let dcdr = cross(n, x10) * inv_rest_area * 0.5;
    let dcdt = dot(dcdq, v1) + dot(dcdr, v2) - dot(dcdq + dcdr, v0);
    let fa = k_lambda * c + k_damp * dcdt;
    h1 += dcdq * fa;
    h2 += dcdr * fa;
    let mut h0 = h1 + h2;

    // Aerodynamics on the mean velocity.
    if k_drag > 0.0 || k_lift > 0.0 {
        let vmid = (v0 + v1 + v2) * (1.0 / 3.0);
        let vdir = normalize(vmid);
        let drag = vmid * (k_drag * area * abs(dot(n, vmid)));
        let cos_a = clamp(dot(n, vdir), -0.999999, 0.999999);
        let lift =
            n * (k_lift * area * (std::f32::consts::FRAC_PI_2 - acos(cos_a))) * dot(vmid, vmid);
        h0 = h0 - drag - lift;
        h1 += drag + lift;
        h2 += drag + lift;
    }
    atomic_add(&mut state.particle_f[i], h0);
    atomic_sub(&mut state.particle_f[j], h1);
    atomic_sub(&mut state.particle_f[k], h2);
}
