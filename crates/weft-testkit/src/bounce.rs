//! The bounce setup shared by `examples/bounce.rs` and `benches/bounce.rs`: balls
//! thrown at the ground and a wall, 288 semi-implicit Euler steps with penalty
//! contacts, and a squared-distance loss to a target.

use weft::prelude::*;

/// Simulation steps per rollout: 36 frames × 8 substeps.
pub const STEPS: usize = 36 * 8;
/// Time step, s.
pub const DT: f32 = 1.0 / 480.0;
/// Contact stiffness, N/m (unit masses).
pub const KE: f32 = 2.0e4;
/// Contact damping, N·s/m per metre of depth.
pub const KD: f32 = 500.0;

/// A penetration depth `d` rounded off over `±w`: `max(d, 0)` with its kink
/// replaced by a parabola, so the depth and its derivative are continuous.
#[weft::func]
pub fn smooth_depth(d: f32, w: f32) -> f32 {
    let c = clamp(d, -w, w);
    (c + w) * (c + w) / (4.0 * w) + max(d - w, 0.0)
}

/// Penalty contact forces against the ground (z = 0) and a wall (x = 2), with
/// damping proportional to the depth (Hunt–Crossley). Hard contact makes the loss
/// only piecewise smooth — plain gradient descent then stalls at about 1 % of the
/// initial loss, crossing its creases back and forth — so the depths are smoothed
/// (without transcendental functions, so the kernel stays cheap).
#[weft::kernel]
pub fn contact_forces(x: &Array<Vec3>, v: &Array<Vec3>, f: &mut Array<Vec3>, ke: f32, kd: f32) {
    let i = tid();
    let p = x[i];
    let u = v[i];
    // Rounded off over ±3 cm.
    let depth = smooth_depth(-p.z, 0.03);
    let wall = smooth_depth(p.x - 2.0, 0.03);
    let mut force = Vec3::Z * (depth * (ke - kd * u.z));
    force += Vec3::NEG_X * (wall * (ke + kd * u.x));
    f[i] = force;
}

/// Semi-implicit Euler with gravity (unit mass).
#[weft::kernel]
pub fn integrate(
    x: &Array<Vec3>,
    v: &Array<Vec3>,
    f: &Array<Vec3>,
    x_new: &mut Array<Vec3>,
    v_new: &mut Array<Vec3>,
    dt: f32,
) {
    let i = tid();
    let vel = v[i] + (f[i] + Vec3::new(0.0, 0.0, -9.81)) * dt;
    v_new[i] = vel;
    x_new[i] = x[i] + vel * dt;
}

/// Sum over balls of the squared distance to the target.
#[weft::kernel]
pub fn distance_loss(x: &Array<Vec3>, target: Vec3, loss: &mut Array<f32>) {
    let i = tid();
    let d = x[i] - target;
    atomic_add(&mut loss[0], dot(d, d));
}

/// A rollout of `n` balls with every state allocated up front (one array per step,
/// so a tape can replay any step), reusable across optimization iterations.
pub struct Rollout {
    x0: Array<Vec3>,
    x: Vec<Array<Vec3>>,
    v: Vec<Array<Vec3>>,
    f: Vec<Array<Vec3>>,
    target: Vec3,
}

impl Rollout {
    /// A rollout from the initial positions `x0` to the loss against `target`.
    pub fn new(device: Device, x0: &[Vec3], target: Vec3) -> Self {
        let n = x0.len();
        let states = || (0..STEPS).map(|_| Array::zeros(device, [n])).collect();
        Rollout {
            x0: Array::from_slice(device, x0),
            x: states(),
            v: states(),
            f: states(),
            target,
        }
    }

    /// Number of balls.
    pub fn len(&self) -> usize {
        self.x0.len()
    }

    /// Whether there are no balls.
    pub fn is_empty(&self) -> bool {
        self.x0.is_empty()
    }

    /// Simulates from the initial velocities `v0` and writes the loss to `loss[0]`.
    pub fn run(&mut self, v0: &Array<Vec3>, loss: &mut Array<f32>) -> Result<(), Error> {
        let n = self.len();
        for k in 0..STEPS {
            // Step k reads state k (x0, v0 first) and writes state k + 1.
            let (xs, x_new) = self.x.split_at_mut(k);
            let (vs, v_new) = self.v.split_at_mut(k);
            let (x, v) = match k {
                0 => (&self.x0, v0),
                _ => (&xs[k - 1], &vs[k - 1]),
            };
            contact_forces::launch(n, x, v, &mut self.f[k], KE, KD)?;
            integrate::launch(n, x, v, &self.f[k], &mut x_new[0], &mut v_new[0], DT)?;
        }
        loss.fill(0.0);
        distance_loss::launch(n, &self.x[STEPS - 1], self.target, loss)
    }

    /// Runs on `tape` (reset first) and back-propagates `loss`: `v0`'s gradient
    /// (zeroed first) then holds d loss / d v0. Intermediate gradients need no
    /// clearing between iterations: each store's adjoint consumes its gradient.
    pub fn gradient(
        &mut self,
        tape: &mut Tape,
        v0: &Array<Vec3>,
        loss: &mut Array<f32>,
    ) -> Result<(), Error> {
        tape.reset();
        v0.zero_grad();
        tape.record(|| self.run(v0, loss))?;
        tape.backward(loss)
    }

    /// The balls' final positions (after the last run).
    pub fn final_positions(&self) -> Vec<Vec3> {
        self.x[STEPS - 1].to_vec()
    }
}
