//! The particle integrator measured by `benches/particles.rs` and `benches/cuda.rs`
//! and checked against the CPU by `tests/cuda.rs`.

use weft::prelude::*;

/// Semi-implicit Euler with gravity and a ground plane at z = 0 that halves the
/// normal velocity; in place. 48 bytes of memory traffic per particle.
#[weft::kernel]
pub fn integrate(x: &mut Array<Vec3>, v: &mut Array<Vec3>, g: Vec3, dt: f32) {
    let i = tid();
    let mut vel = v[i] + g * dt;
    let mut pos = x[i] + vel * dt;
    if pos.z < 0.0 {
        pos.z = 0.0;
        vel.z = -0.5 * vel.z;
    }
    x[i] = pos;
    v[i] = vel;
}
