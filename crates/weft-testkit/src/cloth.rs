//! The cloth benchmark workload (shared by the benchmark, the tests and the GPU
//! runner): a `dim × dim` grid of particles 0.1 apart, mass 0.1, two corners
//! fixed, springs between neighbours at grid distance 1 (stretch), 2 (bend) and
//! along the diagonals (shear), all with stiffness 1000 and damping 10.

use weft::prelude::*;
use weft_sim::{Control, Model, ModelBuilder, SemiImplicit, SimError, State};

/// Spacing of the grid (m).
pub const SPACING: f32 = 0.1;
/// Substeps per 60 Hz frame.
pub const SUBSTEPS: usize = 16;
/// The substep (s).
pub const DT: f32 = 1.0 / 60.0 / SUBSTEPS as f32;

/// The builder of the cloth workload: the grid hangs in the XZ plane from its two
/// top corners (no ground, no triangles: springs only).
pub fn builder(dim: usize) -> ModelBuilder {
    let mut b = ModelBuilder::new();
    b.ground = None;
    let id = |x: usize, y: usize| y * dim + x;
    for y in 0..dim {
        for x in 0..dim {
            let fixed = y == dim - 1 && (x == 0 || x == dim - 1);
            let p = Vec3::new(x as f32 * SPACING, 0.0, y as f32 * SPACING);
            b.add_particle(p, Vec3::ZERO, if fixed { 0.0 } else { 0.1 }, 0.05);
        }
    }
    let (ke, kd) = (1000.0, 10.0);
    for y in 0..dim {
        for x in 0..dim {
            for (dx, dy) in [(1, 0), (0, 1), (2, 0), (0, 2), (1, 1)] {
                if x + dx < dim && y + dy < dim {
                    b.add_spring(id(x, y), id(x + dx, y + dy), ke, kd);
                }
            }
            if x >= 1 && y + 1 < dim {
                b.add_spring(id(x, y), id(x - 1, y + 1), ke, kd);
            }
        }
    }
    b
}

/// The workload on a device: model, two states, an empty control, the solver.
pub struct Workload {
    /// The model.
    pub model: Model,
    /// The current state.
    pub a: State,
    /// The next state.
    pub b: State,
    /// No control.
    pub control: Control,
    /// The integrator.
    pub solver: SemiImplicit,
}

impl Workload {
    /// The `dim × dim` workload on `device`.
    pub fn new(device: Device, dim: usize) -> Result<Self, SimError> {
        let model = builder(dim).finalize(device)?;
        Ok(Workload {
            a: State::new(&model)?,
            b: State::new(&model)?,
            control: Control::empty(device),
            solver: SemiImplicit::new(),
            model,
        })
    }

    /// One substep (two kernels: springs, integrate).
    pub fn substep(&mut self) -> Result<(), SimError> {
        self.solver
            .simulate(&self.model, &mut self.a, &mut self.b, &self.control, DT)?;
        std::mem::swap(&mut self.a, &mut self.b);
        Ok(())
    }

    /// One frame: [`SUBSTEPS`] substeps, then the positions copied to `host`.
    pub fn frame(&mut self, host: &mut Vec<Vec3>) -> Result<(), SimError> {
        for _ in 0..SUBSTEPS {
            self.substep()?;
        }
        *host = self.a.particle_q.try_to_vec()?;
        Ok(())
    }
}
