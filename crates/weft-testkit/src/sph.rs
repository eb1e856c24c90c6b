//! The SPH benchmark workload (shared by the CPU benchmark `benches/sph.rs`,
//! `benches/cuda.rs` and the tests): a block of `2k × 2k × k` particles 2 cm
//! apart (`4k³`: k = 20 gives 32,000, k = 64 gives 1,048,576) resting on the
//! floor of a box 1.5 times as wide and twice as high, with the default
//! parameters for that spacing ([`SphParams::for_spacing`] with `c` = 20 m/s,
//! `h` = 2.2 cm): about 40 neighbours per particle inside the fluid.

#[allow(unused_imports)] // named by the generated code
use weft::geom::{DeviceHashGrid, HashGridQuery, hash_grid_query, hash_grid_query_next};
use weft::prelude::*;
use weft_sim::{FluidBlock, Model, ModelBuilder, SimError, Sph, SphParams, State};

mod rollout;
mod scenes;
pub use rollout::Rollout;
pub use scenes::{block, dam_break, run};

/// Distance between particles (m).
pub const SPACING: f32 = 0.02;

/// The smallest `k` with `4k³ ≥ n`.
pub fn k_for(n: usize) -> usize {
    (1..).find(|k| 4 * k * k * k >= n).expect("some k")
}

/// The workload on a device: model, solver, two states.
pub struct Workload {
    /// The model (particles only).
    pub model: Model,
    /// The solver.
    pub sph: Sph,
    /// The current state.
    pub a: State,
    /// The next state.
    pub b: State,
}

impl Workload {
    /// The workload with `4k³` particles on `device` (k = [`k_for`] of `n`).
    pub fn new(device: Device, n: usize) -> Result<Self, SimError> {
        let k = k_for(n);
        let side = 2 * k;
        let mut params = SphParams::for_spacing(SPACING, 20.0);
        params.domain_lo = Vec3::ZERO;
        params.domain_hi =
            Vec3::new(1.5 * side as f32, 1.5 * side as f32, 2.0 * k as f32) * SPACING;
        let mut b = ModelBuilder::new();
        b.ground = None;
        b.add_fluid_block(&FluidBlock {
            lo: Vec3::ZERO,
            counts: [side, side, k],
            spacing: SPACING,
            rest_density: params.rest_density,
            vel: Vec3::ZERO,
        });
        let model = b.finalize(device)?;
        Ok(Workload {
            sph: Sph::new(&model, params)?,
            a: State::new(&model)?,
            b: State::new(&model)?,
            model,
        })
    }

    /// One step (grid, density, forces, integrate), swapping the states.
    pub fn step(&mut self) -> Result<(), SimError> {
        self.sph.step(&self.model, &mut self.a, &mut self.b)?;
        std::mem::swap(&mut self.a, &mut self.b);
        Ok(())
    }

    /// Phase 1 alone: the grid over the current positions.
    pub fn grid(&mut self) -> Result<(), SimError> {
        self.sph.build_grid(&self.a)
    }

    /// Phase 2 alone: density and pressure.
    pub fn density(&mut self) -> Result<(), SimError> {
        self.sph.compute_density(&self.model, &self.a)
    }

    /// Phase 3 alone: forces (clearing them first, so repeated calls do not
    /// accumulate).
    pub fn forces(&mut self) -> Result<(), SimError> {
        self.a.clear_forces()?;
        self.sph.compute_forces(&self.model, &mut self.a)
    }

    /// Phase 4 alone: integrate `a` into `b` (without swapping).
    pub fn integrate(&mut self) -> Result<(), SimError> {
        self.sph.integrate(&self.model, &self.a, &mut self.b)
    }

    /// Mean neighbours per particle within the support `2h` (itself excluded),
    /// counted by a kernel over the solver's grid (build it first: [`Workload::grid`]).
    pub fn mean_neighbours(&self) -> Result<f64, SimError> {
        let n = self.model.particle_count();
        let mut count = Array::try_zeros(self.model.device(), [n])?;
        let r = self.sph.params().support();
        neighbour_counts::launch(n, self.sph.grid(), &self.a.particle_q, r, &mut count)?;
        let total: i64 = count.try_to_vec()?.iter().map(|&c| c as i64).sum();
        Ok(total as f64 / n as f64)
    }
}

/// Neighbours of each point within `r`, itself excluded.
#[weft::kernel]
fn neighbour_counts(grid: &DeviceHashGrid, x: &Array<Vec3>, r: f32, n: &mut Array<i32>) {
    let i = tid();
    let mut k = 0;
    let mut q = hash_grid_query(grid, x[i], r);
    while q.index >= 0 {
        if q.index != i {
            k += 1;
        }
        q = hash_grid_query_next(grid, q, x[i], r);
    }
    n[i] = k;
}
