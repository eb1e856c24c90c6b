//! Damped springs between particle pairs.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use crate::{Control, Model, State};

/// Adds each spring's force to both of its particles: stiffness times the
/// extension plus damping times the rate of extension, along the spring. The rest
/// length is scaled by `1 + control.spring_activation[s]` when activations are
/// given.
#[weft::kernel]
pub fn eval_springs(model: &Model, state: &mut State, control: &Control) {
    let s = tid();
    let ids = model.spring_indices[s];
    let i = ids.x;
    let j = ids.y;
    let mut rest = model.spring_rest_length[s];
    if control.spring_activation.len() > 0 {
        rest = rest * (1.0 + control.spring_activation[s]);
    }
    let ke = model.spring_stiffness[s];
    let kd = model.spring_damping[s];
    let d = state.particle_q[i] - state.particle_q[j];
    let l = length(d);
    // The force along `d / l`: ke (l - rest) + kd dot(d / l, dv), with one division
    // (a zero-length spring exerts none).
    let inv_l = if l > 0.0 { 1.0 / l } else { 0.0 };
    let c = l - rest;
    let dv = state.particle_qd[i] - state.particle_qd[j];
    let f = d * ((ke * c + kd * dot(d, dv) * inv_l) * inv_l);
    atomic_sub(&mut state.particle_f[i], f);
    atomic_add(&mut state.particle_f[j], f);
}
