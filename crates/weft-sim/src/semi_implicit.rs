//! The semi-implicit Euler integrator: forces, then one explicit velocity update
//! and a position update with the new velocity.

use weft::geom::DeviceHashGrid;
use weft::{Array, SpatialVector, Vec3};
use weft_collide::{CollisionOptions, CollisionPipeline};

use crate::error::{Result, SimError};
use crate::kernels::{bending, contact, integrate, springs, triangles};
use crate::{Control, Model, State};

/// Semi-implicit (symplectic) Euler with penalty forces: springs, membrane
/// triangles, bending, contacts with the ground, shapes and meshes, and between
/// particles. Stable for time steps well below the stiffest spring's period
/// (`dt < 2 sqrt(m / k)`): simulations usually take several substeps per frame.
///
/// ```
/// use weft_sim::{Control, ModelBuilder, SemiImplicit, State};
/// use glam::Vec3;
///
/// let mut b = ModelBuilder::new();
/// b.add_particle(Vec3::new(0.0, 0.0, 1.0), Vec3::ZERO, 1.0, 0.1);
/// let model = b.finalize(weft::Device::Cpu)?;
/// let (mut s0, mut s1) = (State::new(&model)?, State::new(&model)?);
/// let control = Control::empty(model.device());
/// let mut solver = SemiImplicit::new();
/// for _ in 0..300 {
///     solver.simulate(&model, &mut s0, &mut s1, &control, 1e-3)?;
///     std::mem::swap(&mut s0, &mut s1);
/// }
/// let z = s0.particle_q.to_vec()[0].z;
/// assert!((z - (1.0 - 0.5 * 9.81 * 0.3 * 0.3)).abs() < 0.01, "free fall: {z}");
/// # Ok::<(), weft_sim::SimError>(())
/// ```
#[derive(Default)]
pub struct SemiImplicit {
    /// Contact detection settings for rigid bodies (used when the first step
    /// builds the collision buffers).
    pub collision: CollisionOptions,
    grid: Option<ParticleGrid>,
    rigid: Option<CollisionPipeline>,
}

/// The hash grid for particle–particle contacts, rebuilt on the device every
/// step (no copy of the positions to the host).
pub(crate) struct ParticleGrid {
    grid: DeviceHashGrid,
}

impl ParticleGrid {
    /// A grid for `particles` particles: about two hashed cells per particle (a
    /// power of two per side, 16³ to 128³), so that neither the per-cell scan of
    /// a rebuild dominates for small systems nor hash collisions for large ones.
    pub(crate) fn new(device: weft::Device, particles: usize) -> Result<Self> {
        let side = ((2 * particles) as f64).cbrt().ceil() as usize;
        let side = side.next_power_of_two().clamp(16, 128) as u32;
        Ok(ParticleGrid {
            grid: DeviceHashGrid::with_dim(device, [side; 3])?,
        })
    }

    /// Rebuilds the grid over `state`'s positions with cells of `cell_size`.
    /// While a tape records, every rebuild makes a new grid (the tape keeps the
    /// old one, which earlier recorded launches read); the build itself is not
    /// recorded.
    pub(crate) fn rebuild(&mut self, state: &State, cell_size: f32) -> Result<&DeviceHashGrid> {
        if weft::Tape::is_recording() {
            self.grid = DeviceHashGrid::with_dim(state.particle_q.device(), self.grid.dim())?;
        }
        // Off the tape: the build overwrites its own scratch (which `backward`
        // would report) and its neighbour lists carry no gradient.
        weft::Tape::pause(|| self.grid.build(&state.particle_q, cell_size))?;
        Ok(&self.grid)
    }
}

/// Checks that the states and control fit `model`.
pub(crate) fn check_sizes(model: &Model, states: &[&State], control: &Control) -> Result<()> {
    let n = model.particle_count();
    for s in states {
        let got = [s.particle_q.len(), s.particle_qd.len(), s.particle_f.len()];
        if got != [n; 3] {
            return Err(SimError::Mismatch(format!(
                "state holds {got:?} positions/velocities/forces but the model has {n} particles"
            )));
        }
    }
    let cf = control.particle_f.len();
    if cf != 0 && cf != n {
        return Err(SimError::Mismatch(format!(
            "control.particle_f holds {cf} forces; the model has {n} particles (or give none)"
        )));
    }
    let ca = control.spring_activation.len();
    if ca != 0 && ca != model.spring_count() {
        return Err(SimError::Mismatch(format!(
            "control.spring_activation holds {ca} values; the model has {} springs (or give none)",
            model.spring_count()
        )));
    }
    Ok(())
}

impl SemiImplicit {
    /// A new integrator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds every internal force into `s_in.particle_f` (on top of what is there),
    /// then integrates `s_in` over `dt` into `s_out` and clears `s_out`'s forces.
    /// Inside [`Tape::record`](weft::Tape::record) the whole step is differentiable
    /// (use a new `s_out` per step, so the tape keeps every state).
    pub fn simulate(
        &mut self,
        model: &Model,
        s_in: &mut State,
        s_out: &mut State,
        control: &Control,
        dt: f32,
    ) -> Result<()> {
        check_sizes(model, &[s_in, s_out], control)?;
        if !(dt.is_finite() && dt > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "dt",
                message: format!("must be finite and > 0, got {dt}"),
            });
        }
        eval_forces(model, s_in, control, &mut self.grid)?;
        let n = model.particle_count();
        if n > 0 {
            integrate::integrate_particles::launch(n, model, s_in, s_out, control, dt)?;
        }
        self.step_bodies(model, s_in, s_out, dt)
    }

    /// Rigid bodies: contacts at `s_in`'s poses, their penalty wrenches plus
    /// `s_in.body_f`, one integration step into `s_out`.
    fn step_bodies(
        &mut self,
        model: &Model,
        s_in: &State,
        s_out: &mut State,
        dt: f32,
    ) -> Result<()> {
        let nb = model.body_count();
        if nb == 0 {
            return Ok(());
        }
        if s_in.body_count() != nb || s_out.body_count() != nb {
            return Err(SimError::Mismatch(format!(
                "the model has {nb} bodies, the states {} and {}",
                s_in.body_count(),
                s_out.body_count()
            )));
        }
        let device = model.device();
        if self.rigid.is_none() {
            self.rigid = Some(
                CollisionPipeline::new(&model.rigid_shapes, nb, self.collision)
                    .map_err(crate::rigid::collide_err)?,
            );
        }
        let pipeline = self.rigid.as_mut().expect("set above");
        pipeline
            .collide(&model.rigid_shapes, &s_in.body_q)
            .map_err(crate::rigid::collide_err)?;
        let mut force = Array::<Vec3>::try_zeros(device, [nb])?;
        let mut torque = Array::<Vec3>::try_zeros(device, [nb])?;
        let contacts = &pipeline.contacts;
        crate::rigid::penalty::eval_rigid_contacts::launch(
            contacts
                .launch_threads()
                .map_err(crate::rigid::collide_err)?,
            model,
            contacts,
            &s_in.body_q,
            &s_in.body_qd,
            &mut force,
            &mut torque,
        )?;
        let mut wrench = Array::<SpatialVector>::try_zeros(device, [nb])?;
        crate::rigid::penalty::add_wrenches::launch(
            nb,
            &s_in.body_f,
            &force,
            &torque,
            &mut wrench,
        )?;
        crate::rigid::integrate::integrate_bodies::launch(
            nb,
            model,
            &s_in.body_q,
            &s_in.body_qd,
            &wrench,
            dt,
            &mut s_out.body_q,
            &mut s_out.body_qd,
        )?;
        s_out
            .body_f
            .try_fill(SpatialVector::new(Vec3::ZERO, Vec3::ZERO))?;
        Ok(())
    }
}

/// Launches every force kernel the model needs, accumulating into `state`.
pub(crate) fn eval_forces(
    model: &Model,
    state: &mut State,
    control: &Control,
    grid: &mut Option<ParticleGrid>,
) -> Result<()> {
    if model.spring_count() > 0 {
        springs::eval_springs::launch(model.spring_count(), model, state, control)?;
    }
    if model.tri_count() > 0 {
        triangles::eval_triangles::launch(model.tri_count(), model, state)?;
    }
    if model.edge_count() > 0 {
        bending::eval_bending::launch(model.edge_count(), model, state)?;
    }
    let n = model.particle_count();
    if n > 0 && (model.ground || model.shape_count() > 0 || !model.mesh.faces.is_empty()) {
        contact::eval_shape_contacts::launch(n, model, state)?;
    }
    if model.has_particle_contacts() {
        if grid.is_none() {
            *grid = Some(ParticleGrid::new(model.device(), model.particle_count())?);
        }
        let cell = 2.0 * model.particle_max_radius + model.particle_cohesion;
        let g = grid
            .as_mut()
            .expect("set above")
            .rebuild(state, cell.max(1e-6))?;
        contact::eval_particle_contacts::launch(n, model, state, g)?;
    }
    Ok(())
}
