//! [`XpbdRigid`]: the substepped XPBD solver for rigid bodies.

use weft::{Array, Device, SpatialVector, Tape, Transform, Vec3};
use weft_collide::{CollisionOptions, CollisionPipeline, ContactReport};

use super::integrate::integrate_bodies;
use super::xpbd_kernels as k;
use crate::error::{Result, SimError};
use crate::{Model, State};

/// Substepped XPBD for rigid bodies: contacts are found once per step (with a
/// margin, so contacts about to touch are in), then each of `substeps`
/// substeps integrates the bodies, projects penetrating contacts out with
/// static friction (`iterations` Jacobi passes), derives velocities, and
/// applies dynamic friction and restitution at the velocity level.
///
/// ```
/// use weft::prelude::*;
/// use weft_collide::Geometry;
/// use weft_sim::{BodyDesc, ModelBuilder, State, XpbdRigid};
///
/// let mut b = ModelBuilder::new(); // with a ground plane at z = 0
/// let body = b.add_body(BodyDesc::new(Transform::from_translation(Vec3::new(0.0, 0.0, 1.0))));
/// b.add_body_shape(body as i32, Transform::IDENTITY, Geometry::Box { half_extents: Vec3::splat(0.1) });
/// let model = b.finalize(Device::Cpu)?;
/// let (mut s0, mut s1) = (State::new(&model)?, State::new(&model)?);
/// let mut solver = XpbdRigid::new(&model, Default::default())?;
/// for _ in 0..120 {
///     solver.simulate(&model, &mut s0, &mut s1, 1.0 / 60.0)?;
///     std::mem::swap(&mut s0, &mut s1);
/// }
/// let z = s0.body_q.to_vec()[0].p.z;
/// assert!((z - 0.1).abs() < 2e-3, "resting at {z}");
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub struct XpbdRigid {
    /// Substeps per step (default 16: resting penetration falls with the
    /// square of the substep; a 10-box tower rests 0.4 mm deep per contact at
    /// 60 Hz with 16, 1.7 mm with 8).
    pub substeps: usize,
    /// Position passes per substep (default 1: with substeps, more passes
    /// rarely pay off).
    pub iterations: usize,
    /// Over-relaxation of the averaged position corrections, in (0, 2]
    /// (default 2; see [`apply_position_deltas`](super::xpbd_kernels::apply_position_deltas)).
    pub relaxation: f32,
    pipeline: CollisionPipeline,
    scratch: Option<Scratch>,
}

/// Per-step buffers, reused when no tape records.
struct Scratch {
    q_prev: Array<Transform>,
    qd_prev: Array<SpatialVector>,
    q: Array<Transform>,
    q_spare: Array<Transform>,
    q_pred: Array<Transform>,
    qd_pred: Array<SpatialVector>,
    qd: Array<SpatialVector>,
    qd_pos: Array<SpatialVector>,
    dx: Array<Vec3>,
    dw: Array<Vec3>,
    counts: Array<f32>,
    lambda: [Array<f32>; 2],
    patch: Patches,
}

/// Per-manifold arrays (indexed by the broad phase's pair slot).
struct Patches {
    count: Array<f32>,
    point_a: Array<Vec3>,
    point_b: Array<Vec3>,
    spread: Array<f32>,
    normal: Array<Vec3>,
    shapes: Array<weft::IVec2>,
    lambda: Array<f32>,
}

impl Patches {
    fn new(device: Device, np: usize) -> Result<Patches> {
        Ok(Patches {
            count: Array::try_zeros(device, [np])?,
            point_a: Array::try_zeros(device, [np])?,
            point_b: Array::try_zeros(device, [np])?,
            spread: Array::try_zeros(device, [np])?,
            normal: Array::try_zeros(device, [np])?,
            shapes: Array::try_zeros(device, [np])?,
            lambda: Array::try_zeros(device, [np])?,
        })
    }

    fn clear(&mut self) -> Result<()> {
        self.count.try_fill(0.0)?;
        self.point_a.try_fill(Vec3::ZERO)?;
        self.point_b.try_fill(Vec3::ZERO)?;
        self.spread.try_fill(0.0)?;
        self.normal.try_fill(Vec3::ZERO)?;
        Ok(())
    }
}

impl Scratch {
    fn new(device: Device, n: usize, nc: usize, np: usize) -> Result<Scratch> {
        Ok(Scratch {
            q_prev: Array::try_zeros(device, [n])?,
            qd_prev: Array::try_zeros(device, [n])?,
            q: Array::try_zeros(device, [n])?,
            q_spare: Array::try_zeros(device, [n])?,
            q_pred: Array::try_zeros(device, [n])?,
            qd_pred: Array::try_zeros(device, [n])?,
            qd: Array::try_zeros(device, [n])?,
            qd_pos: Array::try_zeros(device, [n])?,
            dx: Array::try_zeros(device, [n])?,
            dw: Array::try_zeros(device, [n])?,
            counts: Array::try_zeros(device, [n])?,
            lambda: [
                Array::try_zeros(device, [nc])?,
                Array::try_zeros(device, [nc])?,
            ],
            patch: Patches::new(device, np)?,
        })
    }
}

/// A collision error as a simulation error.
pub(crate) fn collide_err(e: weft_collide::CollideError) -> SimError {
    match e {
        weft_collide::CollideError::Runtime(e) => SimError::Runtime(e),
        other => SimError::Mismatch(other.to_string()),
    }
}

impl XpbdRigid {
    /// A solver for `model`'s bodies, with its collision buffers allocated.
    pub fn new(model: &Model, collision: CollisionOptions) -> Result<XpbdRigid> {
        let pipeline = CollisionPipeline::new(&model.rigid_shapes, model.body_count(), collision)
            .map_err(collide_err)?;
        Ok(XpbdRigid {
            substeps: 16,
            iterations: 1,
            relaxation: 2.0,
            pipeline,
            scratch: None,
        })
    }

    /// The collision pipeline (its contacts are those of the last step).
    pub fn pipeline(&self) -> &CollisionPipeline {
        &self.pipeline
    }

    /// Reads back the last step's contact counts and overflow (a GPU sync).
    pub fn contact_report(&self) -> Result<ContactReport> {
        self.pipeline.report().map_err(collide_err)
    }

    /// Steps the bodies of `s_in` over `dt` into `s_out` (`s_in.body_f` acts
    /// as an external wrench during the step; `s_out.body_f` is cleared).
    /// Particles are not touched.
    pub fn simulate(
        &mut self,
        model: &Model,
        s_in: &mut State,
        s_out: &mut State,
        dt: f32,
    ) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "dt",
                message: format!("must be finite and > 0, got {dt}"),
            });
        }
        if self.substeps == 0 || !(self.relaxation > 0.0 && self.relaxation <= 2.0) {
            return Err(SimError::InvalidParameter {
                name: "substeps/relaxation",
                message: format!(
                    "substeps must be ≥ 1 and relaxation in (0, 2], got {} and {}",
                    self.substeps, self.relaxation
                ),
            });
        }
        let n = model.body_count();
        if s_in.body_count() != n || s_out.body_count() != n {
            return Err(SimError::Mismatch(format!(
                "the model has {n} bodies, the states {} and {}",
                s_in.body_count(),
                s_out.body_count()
            )));
        }
        if n == 0 {
            return Ok(());
        }
        let device = model.device();
        let nc = self.pipeline.contacts.capacity();
        let np = self.pipeline.pair_capacity();
        let recording = Tape::is_recording();
        let mut s = match self.scratch.take() {
            Some(s) if !recording => s,
            _ => Scratch::new(device, n, nc, np)?,
        };
        self.pipeline
            .collide_moving(&model.rigid_shapes, &s_in.body_q, &s_in.body_qd, dt)
            .map_err(collide_err)?;
        let contacts = &self.pipeline.contacts;
        s.patch.clear()?;
        {
            let p = &mut s.patch;
            k::patch_sums::launch(
                nc,
                model,
                contacts,
                &s_in.body_q,
                &mut p.count,
                &mut p.point_a,
                &mut p.point_b,
                &mut p.spread,
                &mut p.normal,
                &mut p.shapes,
            )?;
        }
        let h = dt / self.substeps as f32;
        let threshold = 2.0 * model.gravity.length() * h;
        s.q.copy_from(&s_in.body_q)?;
        s.qd.copy_from(&s_in.body_qd)?;
        for _ in 0..self.substeps {
            if recording {
                s = Scratch {
                    q: s.q.share(),
                    qd: s.qd.share(),
                    ..Scratch::new(device, n, nc, np)?
                };
            }
            std::mem::swap(&mut s.q, &mut s.q_prev);
            std::mem::swap(&mut s.qd, &mut s.qd_prev);
            integrate_bodies::launch(
                n,
                model,
                &s.q_prev,
                &s.qd_prev,
                &s_in.body_f,
                h,
                &mut s.q_pred,
                &mut s.qd_pred,
            )?;
            s.q.copy_from(&s.q_pred)?;
            s.lambda[0].try_fill(0.0)?;
            s.patch.lambda.try_fill(0.0)?;
            for _ in 0..self.iterations {
                s.dx.try_fill(Vec3::ZERO)?;
                s.dw.try_fill(Vec3::ZERO)?;
                s.counts.try_fill(0.0)?;
                let [l0, l1] = &mut s.lambda;
                k::contact_positions::launch(
                    nc,
                    model,
                    contacts,
                    &s.q,
                    &s.q_prev,
                    l0,
                    l1,
                    &s.patch.count,
                    &mut s.patch.lambda,
                    &mut s.dx,
                    &mut s.dw,
                    &mut s.counts,
                )?;
                s.lambda.swap(0, 1);
                k::apply_position_deltas::launch(
                    n,
                    model,
                    &s.q,
                    &s.dx,
                    &s.dw,
                    &s.counts,
                    self.relaxation,
                    &mut s.q_spare,
                )?;
                std::mem::swap(&mut s.q, &mut s.q_spare);
                // Friction, per manifold, from the corrected poses.
                s.dx.try_fill(Vec3::ZERO)?;
                s.dw.try_fill(Vec3::ZERO)?;
                s.counts.try_fill(0.0)?;
                let p = &s.patch;
                k::patch_friction::launch(
                    np,
                    model,
                    &p.count,
                    &p.point_a,
                    &p.point_b,
                    &p.spread,
                    &p.normal,
                    &p.shapes,
                    &p.lambda,
                    &s.q,
                    &s.q_prev,
                    &mut s.dx,
                    &mut s.dw,
                    &mut s.counts,
                )?;
                k::apply_position_deltas::launch(
                    n,
                    model,
                    &s.q,
                    &s.dx,
                    &s.dw,
                    &s.counts,
                    1.0,
                    &mut s.q_spare,
                )?;
                std::mem::swap(&mut s.q, &mut s.q_spare);
            }
            k::velocities_from_positions::launch(
                n,
                model,
                &s.q_pred,
                &s.qd_pred,
                &s.q,
                h,
                &mut s.qd_pos,
            )?;
            s.dx.try_fill(Vec3::ZERO)?;
            s.dw.try_fill(Vec3::ZERO)?;
            s.counts.try_fill(0.0)?;
            k::contact_velocities::launch(
                nc,
                model,
                contacts,
                &s.q,
                &s.qd_pos,
                &s.qd_prev,
                &s.lambda[0],
                h,
                threshold,
                &mut s.dx,
                &mut s.dw,
                &mut s.counts,
            )?;
            k::apply_velocity_deltas::launch(n, &s.qd_pos, &s.dx, &s.dw, &s.counts, &mut s.qd)?;
        }
        s_out.body_q.copy_from(&s.q)?;
        s_out.body_qd.copy_from(&s.qd)?;
        s_out
            .body_f
            .try_fill(SpatialVector::new(Vec3::ZERO, Vec3::ZERO))?;
        if !recording {
            self.scratch = Some(s);
        }
        Ok(())
    }
}
