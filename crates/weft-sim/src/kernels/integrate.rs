//! Semi-implicit (symplectic) Euler for particles.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{BvhNode, DeviceMesh};
#[allow(unused_imports)] // named by the generated code (until issue 28's hygiene fix)
use weft_collide::ShapeSet;

use crate::{Control, Model, State};

/// `v' = v + (f / m + g) dt`, `x' = x + v' dt` for every active particle with
/// mass; kinematic particles (mass 0) keep moving with their velocity, inactive
/// ones stay. Forces are `s_in.particle_f` plus `control.particle_f`; the output
/// state's force accumulator is cleared for the next step.
#[weft::kernel]
pub fn integrate_particles(
    model: &Model,
    s_in: &State,
    s_out: &mut State,
    control: &Control,
    dt: f32,
) {
    let i = tid();
    let x = s_in.particle_q[i];
    let v = s_in.particle_qd[i];
    // Read before the branch: every thread reads them, so the CPU launcher
    // checks their bounds once per launch rather than per particle.
    let w = model.particle_inv_mass[i];
    let mut f = s_in.particle_f[i];
    let mut x1 = x;
    let mut v1 = v;
    if (model.particle_flags[i] & 1) != 0 {
        if control.particle_f.len() > 0 {
            f += control.particle_f[i];
        }
        let mut g = Vec3::ZERO;
        if w > 0.0 {
            g = model.gravity;
        }
        v1 = v + (f * w + g) * dt;
        x1 = x + v1 * dt;
    }
    s_out.particle_q[i] = x1;
    s_out.particle_qd[i] = v1;
    s_out.particle_f[i] = Vec3::ZERO;
}
