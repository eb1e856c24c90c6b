//! The XPBD integrator: predict positions, then iterate constraint projections
//! (springs as distance constraints, dihedral bending, contacts with friction),
//! and derive velocities from the change of position.

use weft::{Array, Device, Tape, Vec3};

use crate::error::{Result, SimError};
use crate::kernels::xpbd as k;
use crate::semi_implicit::check_sizes;
use crate::{Control, Model, State};

/// Extended position-based dynamics (Macklin et al. 2016, with substeps as in
/// "Small Steps", 2019): springs become distance constraints with compliance
/// `1 / stiffness` and damping, bending edges angle constraints, contacts with the
/// ground, shapes and meshes hard non-penetration constraints with static and
/// dynamic friction. Constraints are solved in parallel (Jacobi): each pass adds
/// every constraint's correction to its particles, averaged over the particle's
/// spring count and scaled by `relaxation`. Unconditionally stable, so it
/// takes larger steps than [`SemiImplicit`](crate::SemiImplicit); stiff materials
/// need more substeps or iterations to reach their stiffness.
///
/// Differentiable through the tape: while a [`Tape`] records, every pass writes
/// new arrays (kept alive by the tape); otherwise the passes reuse buffers
/// allocated on the first step. Gradients through contacts are poor by nature —
/// a projection onto a surface has a zero derivative along the normal and friction
/// switches between sticking and sliding — see the crate's tests for what the
/// finite-difference check gives.
///
/// ```
/// use weft_sim::{ClothGrid, Control, ModelBuilder, State, Xpbd};
/// use glam::Vec3;
///
/// let mut b = ModelBuilder::new();
/// b.add_cloth_grid(&ClothGrid { dim_x: 4, dim_y: 4, spring_ke: 1e4, pos: Vec3::Z, fix_top: true, ..Default::default() });
/// let model = b.finalize(weft::Device::Cpu)?;
/// let (mut s0, mut s1) = (State::new(&model)?, State::new(&model)?);
/// let mut solver = Xpbd::new(&model)?;
/// solver.iterations = 4;
/// let control = Control::empty(model.device());
/// for _ in 0..60 {
///     solver.simulate(&model, &mut s0, &mut s1, &control, 1.0 / 60.0)?;
///     std::mem::swap(&mut s0, &mut s1);
/// }
/// assert!(s0.particle_q.to_vec().iter().all(|p| p.is_finite()));
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub struct Xpbd {
    /// Constraint passes per step (default 4).
    pub iterations: usize,
    /// Scale of the averaged corrections, in (0, 2) (default 1; above 1
    /// over-relaxes and converges faster on stiff cloth).
    pub relaxation: f32,
    inv_count: Array<f32>,
    scratch: Option<Scratch>,
}

/// Buffers reused between steps when no tape records.
struct Scratch {
    cur: Array<Vec3>,
    spare: Array<Vec3>,
    delta: Array<Vec3>,
    lam_s: [Array<f32>; 2],
    lam_e: [Array<f32>; 2],
}

impl Scratch {
    fn new(device: Device, n: usize, ns: usize, ne: usize) -> Result<Scratch> {
        let z3 = || Array::try_zeros(device, [n]);
        Ok(Scratch {
            cur: z3()?,
            spare: z3()?,
            delta: z3()?,
            lam_s: [
                Array::try_zeros(device, [ns])?,
                Array::try_zeros(device, [ns])?,
            ],
            lam_e: [
                Array::try_zeros(device, [ne])?,
                Array::try_zeros(device, [ne])?,
            ],
        })
    }
}

impl Xpbd {
    /// An integrator for `model` (counts each particle's springs once: corrections
    /// are averaged over them; bending corrections, small by nature, share the
    /// same scale).
    pub fn new(model: &Model) -> Result<Xpbd> {
        let n = model.particle_count();
        let mut count = vec![0u32; n];
        for s in model.spring_indices.try_to_vec()? {
            count[s.x as usize] += 1;
            count[s.y as usize] += 1;
        }
        let inv: Vec<f32> = count.iter().map(|&c| 1.0 / c.max(1) as f32).collect();
        Ok(Xpbd {
            iterations: 4,
            relaxation: 1.0,
            inv_count: Array::try_from_slice(model.device(), &inv)?,
            scratch: None,
        })
    }

    /// Steps `s_in` over `dt` into `s_out` (velocities from the position change;
    /// `s_in.particle_f` and `control.particle_f` act as external forces, and
    /// `s_out`'s forces are cleared).
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
        if !(self.relaxation > 0.0 && self.relaxation < 2.0) {
            return Err(SimError::InvalidParameter {
                name: "relaxation",
                message: format!("must be in (0, 2), got {}", self.relaxation),
            });
        }
        let n = model.particle_count();
        if self.inv_count.len() != n {
            return Err(SimError::Mismatch(format!(
                "this integrator was made for {} particles; the model has {n}",
                self.inv_count.len()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let (ns, ne) = (model.spring_count(), model.edge_count());
        let device = model.device();
        // While recording, every pass writes fresh arrays that the tape keeps.
        let recording = Tape::is_recording();
        let mut s = match self.scratch.take() {
            Some(s) if !recording => s,
            _ => Scratch::new(device, n, ns, ne)?,
        };
        let fresh3 = || Array::<Vec3>::try_zeros(device, [n]);

        k::xpbd_predict::launch(n, model, s_in, control, &mut s.cur, dt)?;
        if !recording {
            s.lam_s[0].try_fill(0.0)?;
            s.lam_e[0].try_fill(0.0)?;
        }
        let contacts = model.ground || model.shape_count() > 0 || !model.mesh.faces.is_empty();
        for _ in 0..self.iterations {
            if ns + ne > 0 {
                if recording {
                    s.delta = fresh3()?;
                } else {
                    s.delta.try_fill(Vec3::ZERO)?;
                }
                if ns > 0 {
                    let [a, b] = &mut s.lam_s;
                    k::xpbd_springs::launch(
                        ns,
                        model,
                        control,
                        &s.cur,
                        &s_in.particle_q,
                        a,
                        b,
                        &mut s.delta,
                        dt,
                    )?;
                    s.lam_s.swap(0, 1);
                    if recording {
                        s.lam_s[1] = Array::try_zeros(device, [ns])?;
                    }
                }
                if ne > 0 {
                    let [a, b] = &mut s.lam_e;
                    k::xpbd_bending::launch(ne, model, &s.cur, a, b, &mut s.delta, dt)?;
                    s.lam_e.swap(0, 1);
                    if recording {
                        s.lam_e[1] = Array::try_zeros(device, [ne])?;
                    }
                }
                k::xpbd_apply::launch(
                    n,
                    model,
                    &s.cur,
                    &s.delta,
                    &self.inv_count,
                    &mut s.spare,
                    self.relaxation,
                )?;
                std::mem::swap(&mut s.cur, &mut s.spare);
                if recording {
                    s.spare = fresh3()?;
                }
            }
            if contacts {
                k::xpbd_contacts::launch(n, model, &s.cur, &s_in.particle_q, &mut s.spare)?;
                std::mem::swap(&mut s.cur, &mut s.spare);
                if recording {
                    s.spare = fresh3()?;
                }
            }
        }
        k::xpbd_finish::launch(n, s_in, &s.cur, s_out, dt)?;
        if !recording {
            self.scratch = Some(s);
        }
        Ok(())
    }
}
