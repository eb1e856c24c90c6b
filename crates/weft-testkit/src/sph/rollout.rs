//! The differentiable SPH rollout of the gradient tests.

use weft::prelude::*;
use weft_sim::{FluidBlock, Model, ModelBuilder, SimError, Sph, SphParams, State};

#[weft::kernel]
fn weighted_sum(x: &Array<Vec3>, w: &Array<Vec3>, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], dot(x[i], w[i]) as f64);
}

/// `v[i] = base[i] + dv[slot[i]]` where `slot[i] ≥ 0`: perturbs a few particles'
/// initial velocities (so a gradcheck over `dv` stays small).
#[weft::kernel]
fn perturb(base: &Array<Vec3>, slot: &Array<i32>, dv: &Array<Vec3>, v: &mut Array<Vec3>) {
    let i = tid();
    let mut x = base[i];
    if slot[i] >= 0 {
        x += dv[slot[i]];
    }
    v[i] = x;
}

/// 512 particles (8³, 2 cm apart; [`Rollout::with_block`] for other sizes)
/// resting on the floor of a 30 cm box, away from its side walls, with random initial velocities (up to 0.5 m/s per
/// axis), 10 steps at c = 5 m/s (so pressure moves them within the rollout);
/// the loss is Σ wᵢ · xᵢ over the final positions, with random weights.
pub struct Rollout {
    /// The model.
    pub model: Model,
    /// The solver (replace its stiffness or viscosity array to differentiate).
    pub sph: Sph,
    /// The states of the last rollout, initial first.
    pub states: Vec<State>,
    /// The initial velocities.
    pub base: Array<Vec3>,
    slot: Array<i32>,
    w: Array<Vec3>,
}

impl Rollout {
    /// Steps per rollout.
    pub const STEPS: usize = 10;
    /// The particles whose velocities [`Rollout::loss_dv`] perturbs.
    pub const PICKED: [usize; 2] = [7, 300];

    /// The rollout on `device`.
    pub fn new(device: Device) -> Result<Self, SimError> {
        Self::with_block(device, [8, 8, 8], 0.3)
    }

    /// The same rollout with a block of `counts` particles in a box of
    /// `side` metres (the block 7 cm from two side walls).
    pub fn with_block(device: Device, counts: [usize; 3], side: f32) -> Result<Self, SimError> {
        let mut params = SphParams::for_spacing(0.02, 5.0);
        params.domain_lo = Vec3::ZERO;
        params.domain_hi = Vec3::splat(side);
        let mut b = ModelBuilder::new();
        b.add_fluid_block(&FluidBlock {
            lo: Vec3::new(0.07, 0.07, 0.0),
            counts,
            spacing: 0.02,
            rest_density: params.rest_density,
            vel: Vec3::ZERO,
        });
        let model = b.finalize(device)?;
        let n = model.particle_count();
        let r = crate::random_f32s(6 * n, 21, -1.0, 1.0);
        let v3 = |c: &[f32]| Vec3::new(c[0], c[1], c[2]);
        let v: Vec<Vec3> = r[..3 * n].chunks(3).map(|c| v3(c) * 0.5).collect();
        let w: Vec<Vec3> = r[3 * n..].chunks(3).map(v3).collect();
        let mut slot = vec![-1i32; n];
        for (k, &i) in Self::PICKED.iter().enumerate() {
            slot[i] = k as i32;
        }
        Ok(Rollout {
            sph: Sph::new(&model, params)?,
            states: Vec::new(),
            base: Array::try_from_slice(device, &v)?,
            slot: Array::try_from_slice(device, &slot)?,
            w: Array::try_from_slice(device, &w)?,
            model,
        })
    }

    /// Runs the rollout from initial velocities `v0` and writes the loss.
    pub fn loss(&mut self, v0: &Array<Vec3>, loss: &mut Array<f64>) -> Result<(), weft::Error> {
        let sim = |e: SimError| match e {
            SimError::Runtime(e) => e,
            e => weft::Error::Shape(e.to_string()),
        };
        // New states every time (and one per step, for the tape): a gradient
        // left in the first state's force accumulator by an earlier backward
        // would otherwise be added again.
        self.states = (0..=Self::STEPS)
            .map(|_| State::new(&self.model))
            .collect::<Result<_, _>>()?;
        self.states[0].particle_qd = v0.share();
        for k in 0..Self::STEPS {
            let (done, next) = self.states.split_at_mut(k + 1);
            self.sph
                .step(&self.model, &mut done[k], &mut next[0])
                .map_err(sim)?;
        }
        loss.fill(0.0);
        let n = self.model.particle_count();
        weighted_sum::launch(n, &self.states[Self::STEPS].particle_q, &self.w, loss)
    }

    /// The loss with the velocities of [`Rollout::PICKED`] perturbed by `dv`.
    pub fn loss_dv(&mut self, dv: &Array<Vec3>, loss: &mut Array<f64>) -> Result<(), weft::Error> {
        let n = self.model.particle_count();
        let mut v0 = Array::try_zeros(self.model.device(), [n])?;
        perturb::launch(n, &self.base, &self.slot, dv, &mut v0)?;
        self.loss(&v0, loss)
    }
}
