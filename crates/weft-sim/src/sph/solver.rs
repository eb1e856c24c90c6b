//! [`Sph`]: the weakly compressible SPH solver and its phases.

use weft::geom::DeviceHashGrid;
use weft::prelude::*;

use super::boundary::{WALL_OFFSET, wall_table};
use super::kernels::{SphFluid, sph_density, sph_forces, sph_gather, sph_integrate};
use super::neighbours::{ListScratch, NeighbourList};
use super::params::SphParams;
use crate::error::{Result, SimError};
use crate::{Model, State};

/// Grid cell size over the kernel's support. Cells of the support (27 per
/// walk) measured faster on a CPU than cells of half of it (125 per walk, the
/// farther ones skipped): 28.7 against 35.7 ms for the density of 32,000
/// particles when the CPU kernels walked the grid; the CPU's neighbour lists
/// also measured slower to build with the finer cells (their walk costs more
/// per particle than the candidates it saves).
const CELL: f32 = 1.0;

/// Weakly compressible SPH (WCSPH) on the particles of a [`Model`]: density by
/// kernel summation, Tait's equation of state, symmetric pressure forces,
/// laminar viscosity, symplectic Euler, and boundaries (the domain box and the
/// model's analytic shapes) as continuous walls plus a projection that keeps
/// every particle inside the box and outside the shapes.
///
/// A step is four phases, each a public method so that they can be timed:
/// [`Sph::build_grid`], [`Sph::compute_density`], [`Sph::compute_forces`],
/// [`Sph::integrate`]; [`Sph::step`] runs them in order. Every buffer is
/// allocated by [`Sph::new`] (the grid is built once there, so its scratch has
/// grown to the particle count), so a step can be captured in a CUDA graph.
/// Inside [`Tape::record`](weft::Tape::record) a step is differentiable (with
/// respect to the states, the model's masses and [`Sph::stiffness`] /
/// [`Sph::viscosity`]); use a new output state per step, and the solver uses a
/// new grid, density and pressure per step while a tape records. The grid build
/// itself is kept off the tape (neighbour indices carry no gradient). Give each
/// recorded rollout new states: a state whose force accumulator kept a gradient
/// from an earlier `backward` would pass it on again.
///
/// ```
/// use weft_sim::{FluidBlock, ModelBuilder, Sph, SphParams, State};
/// use glam::Vec3;
///
/// let params = SphParams::for_spacing(0.05, 10.0);
/// let mut b = ModelBuilder::new();
/// b.add_fluid_block(&FluidBlock {
///     lo: Vec3::new(-0.5, -0.5, 0.0),
///     counts: [6, 6, 6],
///     spacing: 0.05,
///     rest_density: params.rest_density,
///     ..Default::default()
/// });
/// let model = b.finalize(weft::Device::Cpu)?;
/// let mut sph = Sph::new(&model, params)?;
/// let (mut a, mut c) = (State::new(&model)?, State::new(&model)?);
/// for _ in 0..20 {
///     sph.step(&model, &mut a, &mut c)?;
///     std::mem::swap(&mut a, &mut c);
/// }
/// assert!(a.particle_q.to_vec().iter().all(|p| p.z >= 0.0));
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub struct Sph {
    params: SphParams,
    fluid: SphFluid,
    grid: DeviceHashGrid,
    /// On a CPU the neighbours, listed from the grid once per step; empty on
    /// CUDA (the kernels walk the grid).
    list: NeighbourList,
    scratch: ListScratch,
    /// Density and pressure by particle.
    density: Array<f32>,
    pressure: Array<f32>,
    /// `p/ρ²` for the force pass: by slot of the grid on a CPU, by particle
    /// on CUDA.
    p_over_rho2: Array<f32>,
    /// On a CPU, what the neighbour passes read, by slot of the grid; empty on
    /// CUDA.
    sorted: Sorted,
}

/// Per-particle data by slot of the grid (`grid.sorted_index[s]` is the
/// particle in slot `s`), which the CPU's density and force passes read for
/// each neighbour: copies of the state's ([`sph_gather`]) and the density.
struct Sorted {
    x: Array<Vec3>,
    v: Array<Vec3>,
    mass: Array<f32>,
    density: Array<f32>,
}

impl Sorted {
    /// Arrays of `n` zeros on `device`.
    fn new(device: Device, n: usize) -> Result<Self> {
        Ok(Sorted {
            x: Array::try_zeros(device, [n])?,
            v: Array::try_zeros(device, [n])?,
            mass: Array::try_zeros(device, [n])?,
            density: Array::try_zeros(device, [n])?,
        })
    }
}

impl Sph {
    /// A solver for `model`'s particles with `params`: checks both, allocates
    /// the grid (cells of the support `2h`, enough to cover the domain box, at
    /// most 256 per axis: the grid hashes beyond), the density and pressure, and builds the
    /// grid once over the initial positions.
    ///
    /// Errors: a bad parameter ([`SphParams::validate`]); a model with springs,
    /// triangles, bending edges or meshes (SPH moves fluid particles among
    /// analytic shapes only), with a particle of zero mass or one outside the
    /// domain box ([`SimError::InvalidInput`]); the device's.
    pub fn new(model: &Model, params: SphParams) -> Result<Self> {
        params.validate()?;
        if model.spring_count() + model.tri_count() + model.edge_count() > 0
            || !model.mesh.faces.is_empty()
        {
            return Err(SimError::Mismatch(
                "SPH simulates particles among analytic shapes: this model has springs, triangles, \
                 bending edges or meshes (simulate those with SemiImplicit or Xpbd)"
                    .into(),
            ));
        }
        let (lo, hi) = (params.domain_lo, params.domain_hi);
        let q = model.particle_q.try_to_vec()?;
        let m = model.particle_mass.try_to_vec()?;
        for (i, (x, m)) in q.iter().zip(&m).enumerate() {
            if !(x.cmpge(lo).all() && x.cmple(hi).all()) {
                return Err(SimError::InvalidInput {
                    what: "particle",
                    index: i,
                    message: format!(
                        "at {x:?}, outside the domain box {lo:?}..{hi:?} (SphParams::domain_lo/hi)"
                    ),
                });
            }
            if *m <= 0.0 {
                return Err(SimError::InvalidInput {
                    what: "particle",
                    index: i,
                    message: format!("mass must be > 0 for SPH, got {m}"),
                });
            }
        }
        let device = model.device();
        let n = model.particle_count();
        let cell = CELL * params.support();
        let dim = ((hi - lo) / cell)
            .ceil()
            .to_array()
            .map(|d| (d as u32).clamp(1, 256));
        let mut grid = DeviceHashGrid::with_dim(device, dim)?;
        if n > 0 {
            grid.build(&model.particle_q, cell)?;
        }
        // On a CPU: a neighbour list and the data by slot.
        let cpu = device == Device::Cpu;
        let list = NeighbourList::new(device, if cpu { n } else { 0 })?;
        let sorted = Sorted::new(device, if cpu { n } else { 0 })?;
        Ok(Sph {
            fluid: SphFluid {
                h: params.smoothing_length,
                rest_density: params.rest_density,
                lo,
                hi,
                gravity: params.gravity,
                stiffness: Array::try_from_slice(device, &[params.stiffness])?,
                viscosity: Array::try_from_slice(device, &[params.viscosity])?,
                wall: Array::try_from_slice(
                    device,
                    &wall_table(params.smoothing_length, WALL_OFFSET),
                )?,
            },
            params,
            grid,
            list,
            scratch: ListScratch::default(),
            density: Array::try_zeros(device, [n])?,
            pressure: Array::try_zeros(device, [n])?,
            p_over_rho2: Array::try_zeros(device, [n])?,
            sorted,
        })
    }

    /// The parameters.
    pub fn params(&self) -> &SphParams {
        &self.params
    }

    /// The Tait stiffness as a one-element array, read by every step: replace
    /// it by an array that requires gradients (e.g. `Array::share` of an
    /// optimized parameter) to differentiate with respect to it.
    pub fn stiffness(&mut self) -> &mut Array<f32> {
        &mut self.fluid.stiffness
    }

    /// The kinematic viscosity as a one-element array (see [`Sph::stiffness`]).
    pub fn viscosity(&mut self) -> &mut Array<f32> {
        &mut self.fluid.viscosity
    }

    /// Each particle's density from the last [`Sph::compute_density`] (kg/m³).
    pub fn density(&self) -> &Array<f32> {
        &self.density
    }

    /// Each particle's pressure from the last [`Sph::compute_density`] (Pa).
    pub fn pressure(&self) -> &Array<f32> {
        &self.pressure
    }

    /// What the kernels read besides the model and the state (for launching
    /// [`kernels`](super::kernels) directly).
    pub fn fluid(&self) -> &SphFluid {
        &self.fluid
    }

    /// The neighbour grid, as last built.
    pub fn grid(&self) -> &DeviceHashGrid {
        &self.grid
    }

    /// On a CPU, the neighbour list made from the grid by the last
    /// [`Sph::build_grid`] (by slot of the grid), which the density and force
    /// passes read; `None` on CUDA, where they walk the grid.
    pub fn neighbours(&self) -> Option<&NeighbourList> {
        Some(&self.list).filter(|_| self.listing())
    }

    /// Whether the steps list the neighbours (on a CPU).
    fn listing(&self) -> bool {
        self.grid.device() == Device::Cpu
    }

    /// Phase 1: rebuilds the hash grid over `state`'s positions on their device
    /// (cells of `2h`) and, on a CPU, lists each particle's neighbours from it
    /// ([`NeighbourList`]). While a tape records, into a new grid and list (the
    /// tape keeps the old ones, which earlier recorded launches read), and
    /// without recording the build itself ([`Tape::pause`](weft::Tape::pause)):
    /// neighbour indices carry no gradient.
    pub fn build_grid(&mut self, state: &State) -> Result<()> {
        self.check(state)?;
        let n = state.particle_count();
        if weft::Tape::is_recording() {
            self.grid = DeviceHashGrid::with_dim(self.grid.device(), self.grid.dim())?;
            if self.listing() {
                self.list = NeighbourList::new(self.grid.device(), n)?;
            }
        }
        if n > 0 {
            // The build carries no gradient (queries return indices) and reuses
            // its scratch within itself, so it is kept off the tape.
            let cell = CELL * self.params.support();
            let support = self.params.support();
            let listing = self.listing();
            let (grid, list, scratch) = (&mut self.grid, &mut self.list, &mut self.scratch);
            weft::Tape::pause(|| -> Result<()> {
                grid.build(&state.particle_q, cell)?;
                if listing {
                    list.build(grid, support, scratch)?;
                }
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Phase 2: density and pressure of every particle (the grid must hold
    /// `state`'s positions: [`Sph::build_grid`]). On a CPU, first copies the
    /// positions, velocities and masses into the grid's order
    /// ([`sph_gather`]), over which the density and force passes run. While a
    /// tape records, into new arrays.
    pub fn compute_density(&mut self, model: &Model, state: &State) -> Result<()> {
        self.check(state)?;
        let n = state.particle_count();
        let listing = self.listing();
        if weft::Tape::is_recording() {
            let device = model.device();
            self.density = Array::try_zeros(device, [n])?;
            self.pressure = Array::try_zeros(device, [n])?;
            self.p_over_rho2 = Array::try_zeros(device, [n])?;
            self.sorted = Sorted::new(device, if listing { n } else { 0 })?;
        }
        if n == 0 {
            return Ok(());
        }
        let t = &mut self.sorted;
        if listing {
            sph_gather::launch(n, model, state, &self.grid, &mut t.x, &mut t.v, &mut t.mass)?;
        }
        let (x, mass) = if listing {
            (&t.x, &t.mass)
        } else {
            (&state.particle_q, &model.particle_mass)
        };
        sph_density::launch(
            n,
            model,
            &self.fluid,
            &self.grid,
            &self.list,
            x,
            mass,
            &mut t.density,
            &mut self.p_over_rho2,
            &mut self.density,
            &mut self.pressure,
        )?;
        Ok(())
    }

    /// Phase 3: adds the pressure, viscosity and wall forces to
    /// `state.particle_f` (after [`Sph::compute_density`] on the same state).
    pub fn compute_forces(&mut self, model: &Model, state: &mut State) -> Result<()> {
        self.check(state)?;
        let n = state.particle_count();
        if n == 0 {
            return Ok(());
        }
        let t = &self.sorted;
        let (x, v, mass, density) = if self.listing() {
            (&t.x, &t.v, &t.mass, &t.density)
        } else {
            (
                &state.particle_q,
                &state.particle_qd,
                &model.particle_mass,
                &self.density,
            )
        };
        sph_forces::launch(
            n,
            model,
            &self.fluid,
            &self.grid,
            &self.list,
            x,
            v,
            mass,
            density,
            &self.p_over_rho2,
            &mut state.particle_f,
        )?;
        Ok(())
    }

    /// Phase 4: symplectic Euler from `s_in` (its forces included) into `s_out`
    /// over [`SphParams::dt`], with the boundary projection; clears `s_out`'s
    /// forces.
    pub fn integrate(&mut self, model: &Model, s_in: &State, s_out: &mut State) -> Result<()> {
        self.check(s_in)?;
        self.check(s_out)?;
        let n = s_in.particle_count();
        if n > 0 {
            sph_integrate::launch(n, model, &self.fluid, s_in, s_out, self.params.dt)?;
        }
        Ok(())
    }

    /// One step from `s_in` into `s_out`: the four phases. Forces already in
    /// `s_in.particle_f` act too (external forces).
    pub fn step(&mut self, model: &Model, s_in: &mut State, s_out: &mut State) -> Result<()> {
        self.build_grid(s_in)?;
        self.compute_density(model, s_in)?;
        self.compute_forces(model, s_in)?;
        self.integrate(model, s_in, s_out)
    }

    fn check(&self, state: &State) -> Result<()> {
        let n = self.density.len();
        if state.particle_count() != n {
            return Err(SimError::Mismatch(format!(
                "the state holds {} particles; this solver was made for {n}",
                state.particle_count()
            )));
        }
        Ok(())
    }
}
