//! Dihedral bending of cloth: each interior edge resists changes of the angle
//! between its two triangles (Bridson et al. 2003, as in Warp's `eval_bending`,
//! with the angle measured by `atan2` so that flat cloth has finite gradients).

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use crate::{Model, State};

/// Adds the bending forces of each edge to its four particles.
#[weft::kernel]
pub fn eval_bending(model: &Model, state: &mut State) {
    let e = tid();
    let ids = model.edge_indices[e];
    let x1 = state.particle_q[ids.x];
    let x2 = state.particle_q[ids.y];
    let x3 = state.particle_q[ids.z];
    let x4 = state.particle_q[ids.w];
    let n1 = cross(x3 - x1, x4 - x1);
    let n2 = cross(x4 - x2, x3 - x2);
    let l1 = length(n1);
    let l2 = length(n2);
    let edge = x4 - x3;
    let e_len = length(edge);
    if l1 > 1.0e-6 && l2 > 1.0e-6 && e_len > 1.0e-6 {
        let v1 = state.particle_qd[ids.x];
        let v2 = state.particle_qd[ids.y];
        let v3 = state.particle_qd[ids.z];
        let v4 = state.particle_qd[ids.w];
        let e_hat = edge / e_len;
        let angle = atan2(dot(cross(n2, n1), e_hat), dot(n1, n2));
        // Gradients of the angle with respect to the four corners.
        let m1 = n1 / (l1 * l1);
        let m2 = n2 / (l2 * l2);
        let d1 = m1 * e_len;
        let d2 = m2 * e_len;
        let d3 = m1 * dot(x1 - x4, e_hat) + m2 * dot(x2 - x4, e_hat);
        let d4 = m1 * dot(x3 - x1, e_hat) + m2 * dot(x3 - x2, e_hat);
        let ke = model.edge_ke[e];
        let kd = model.edge_kd[e];
        let f_elastic = ke * (angle - model.edge_rest_angle[e]);
        let f_damp = kd * (dot(d1, v1) + dot(d2, v2) + dot(d3, v3) + dot(d4, v4));
        let f = -e_len * (f_elastic + f_damp);
        atomic_add(&mut state.particle_f[ids.x], d1 * f);
        atomic_add(&mut state.particle_f[ids.y], d2 * f);
        atomic_add(&mut state.particle_f[ids.z], d3 * f);
        atomic_add(&mut state.particle_f[ids.w], d4 * f);
    }
}
