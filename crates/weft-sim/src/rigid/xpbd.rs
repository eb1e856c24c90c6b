//! [`XpbdRigid`]: the substepped XPBD solver for rigid bodies.

use weft::{Array, Device, IVec2, SpatialVector, Tape, Transform, Vec3};
use weft_collide::{CollisionOptions, CollisionPipeline, ContactReport};

use super::anchors::Anchors;
use super::coloring::{COLORS, Coloring};
use super::integrate::integrate_bodies;
use super::joints::{DriveInputs, JointSolve};
use super::phase_times::{PhaseClock, PhaseTimes};
use super::xpbd_kernels as k;
use crate::error::{Result, SimError};
use crate::{Control, Model, State};

/// Substepped XPBD for rigid bodies: contacts are found once per step (with a
/// margin, so contacts about to touch are in) and grouped into manifolds, the
/// manifolds are coloured so that no two of a colour share a dynamic body
/// ([`coloring`](super::coloring)), then each of `substeps` substeps
/// integrates the bodies, projects each manifold out of penetration as one
/// block with patch friction (Gauss–Seidel: a thread per manifold, colour
/// after colour, `iterations` passes; static friction takes back the slip of
/// a sticking pair since the step began plus what earlier steps left, see
/// [`anchors`](super::anchors)), derives velocities, and applies
/// restitution manifold by manifold. On a CPU, scenes with few manifolds per
/// colour run every colour on one thread in one launch (the same order).
/// Joints — the model's trees and its loop joints — are constraints solved
/// before the contacts in every pass, coloured once (no two of a colour share
/// a body; see [`joint_kernels`](super::joint_kernels)), with their limits,
/// drives (targets and efforts from a [`Control`] through
/// [`step`](Self::step)), damping and friction.
/// Nothing is read back on a GPU, so a step can be captured in a CUDA graph
/// (`weft::cuda::Graph::capture`) and replayed; step once before capturing,
/// so the buffers exist, and keep the captured states (copy the output into
/// the input inside the graph).
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
    /// Substeps per step (default 16: a tower of ten boxes stands whatever
    /// order its colours come in — on an H100 its top moved 0.06 mm in 9 s
    /// with 16 × 2 passes, 39 mm with 8 × 2).
    pub substeps: usize,
    /// Passes over every manifold's positions per substep (default 1: with
    /// substeps, more passes rarely pay off).
    pub iterations: usize,
    /// Gauss–Seidel sweeps over the normal constraints inside a manifold per
    /// pass (default 4: enough for a manifold's corrections to settle, so the
    /// order of its contacts does not show).
    pub sweeps: usize,
    /// On a CPU, below this many manifolds per colour (on average) every
    /// colour is solved by one thread in one launch per pass instead of a
    /// launch per colour (default 512; 0 always launches per colour). The
    /// order, and so the result, is the same.
    pub serial_per_color: usize,
    /// Fastest a penetration is pushed out (m/s, default 1; as Box2D's contact
    /// push velocity and PhysX's maximum depenetration velocity): a contact
    /// deeper than this times the substep is corrected over several passes.
    /// Resting contacts (sub-millimetre) are not affected; a corner that turned
    /// into the ground during a step no longer leaves at depth / substep.
    pub max_depenetration_speed: f32,
    /// When set, every phase of a step ends with a device synchronisation and
    /// its time is added to [`phase_times`](Self::phase_times) (for
    /// benchmarks; default off; never while a CUDA graph captures).
    pub profile: bool,
    pub(super) times: PhaseTimes,
    pub(super) pipeline: CollisionPipeline,
    pub(super) coloring: Coloring,
    pub(super) anchors: Anchors,
    pub(super) joints: Option<JointSolve>,
    scratch: Option<Scratch>,
}

/// Per-step buffers, reused when no tape records.
struct Scratch {
    q_prev: Array<Transform>,
    qd_prev: Array<SpatialVector>,
    q: Array<Transform>,
    q_pred: Array<Transform>,
    qd_pred: Array<SpatialVector>,
    qd: Array<SpatialVector>,
    lambda: Array<f32>,
    lambda_in: Array<f32>,
    impulse: Array<f32>,
}

impl Scratch {
    fn new(device: Device, n: usize, nc: usize) -> Result<Scratch> {
        Ok(Scratch {
            q_prev: Array::try_zeros(device, [n])?,
            qd_prev: Array::try_zeros(device, [n])?,
            q: Array::try_zeros(device, [n])?,
            q_pred: Array::try_zeros(device, [n])?,
            qd_pred: Array::try_zeros(device, [n])?,
            qd: Array::try_zeros(device, [n])?,
            lambda: Array::try_zeros(device, [nc])?,
            lambda_in: Array::try_zeros(device, [nc])?,
            impulse: Array::try_zeros(device, [nc])?,
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
        let coloring = Coloring::new(model.device(), model.body_count(), pipeline.pair_capacity())?;
        let anchors = Anchors::new(model.device(), model.body_count(), pipeline.pair_capacity())?;
        Ok(XpbdRigid {
            substeps: 16,
            iterations: 2,
            sweeps: 4,
            serial_per_color: 512,
            max_depenetration_speed: 1.0,
            profile: false,
            times: PhaseTimes::default(),
            pipeline,
            coloring,
            anchors,
            joints: JointSolve::new(model)?,
            scratch: None,
        })
    }

    /// Forgets the slip sticking pairs carry from the last step: call it
    /// before stepping from a state that does not follow the last step's
    /// output (a reset, a state loaded from elsewhere), or its sticking pairs
    /// would take back slip they never made.
    pub fn forget_contacts(&mut self) -> Result<()> {
        self.anchors.clear()
    }

    /// Number of colours the joints (tree and loop) were split into: joint
    /// launches per pass on a GPU (0 without joints).
    pub fn joint_color_count(&self) -> usize {
        self.joints.as_ref().map_or(0, JointSolve::colors)
    }

    /// Time per phase summed over the steps taken with [`profile`](Self::profile) on.
    pub fn phase_times(&self) -> PhaseTimes {
        self.times
    }

    /// Clears [`phase_times`](Self::phase_times).
    pub fn reset_phase_times(&mut self) {
        self.times = PhaseTimes::default();
    }

    /// The collision pipeline (its contacts are those of the last step).
    pub fn pipeline(&self) -> &CollisionPipeline {
        &self.pipeline
    }

    /// Reads back how many manifolds the last step put in each colour (the last
    /// entry: the overflow solved on one thread; a GPU sync).
    pub fn color_counts(&self) -> Result<Vec<u32>> {
        Ok(self.coloring.count.try_to_vec()?)
    }

    /// Reads back the last step's contact counts and overflow (a GPU sync).
    pub fn contact_report(&self) -> Result<ContactReport> {
        self.pipeline.report().map_err(collide_err)
    }

    /// Steps the bodies of `s_in` over `dt` into `s_out` (`s_in.body_f` acts
    /// as an external wrench during the step; `s_out.body_f` is cleared);
    /// joint drives take the model's targets and efforts (see
    /// [`step`](Self::step)). Particles are not touched.
    pub fn simulate(
        &mut self,
        model: &Model,
        s_in: &mut State,
        s_out: &mut State,
        dt: f32,
    ) -> Result<()> {
        self.step_with(model, s_in, s_out, None, dt)
    }

    /// Steps the bodies of `s_in` over `dt` into `s_out` as
    /// [`simulate`](Self::simulate), the joints' drives taking their targets
    /// and feed-forward efforts from `control` (an empty array: the model's).
    ///
    /// Joints (tree and loop, [`ModelBuilder::add_loop_joint`](crate::ModelBuilder::add_loop_joint))
    /// are constraints between the bodies' poses here
    /// ([`joint_kernels`](super::joint_kernels)); `State::joint_q` and
    /// `joint_qd` are not read or written (weft-articulation's `eval_ik`
    /// reads them off the poses). On a tape the joints are solved out of
    /// place, colour by colour (the same numbers; see
    /// [`joint_taped_kernels`](super::joint_taped_kernels)): gradients reach
    /// the initial poses and velocities, the controls' targets and efforts,
    /// the model's drive gains, limits, masses and inertias (exact for the
    /// rollout's active limits; see `tests/xpbd_joint_gradients.rs` for
    /// where finite differences agree). Armature is not
    /// modelled here, and feed-forward efforts on ball and free joints are
    /// not applied (their damping, friction and velocity drives are refused
    /// by [`new`](Self::new)); start from poses that satisfy the joints
    /// (`eval_fk`), or the first substeps pull them together.
    pub fn step(
        &mut self,
        model: &Model,
        s_in: &mut State,
        s_out: &mut State,
        control: &Control,
        dt: f32,
    ) -> Result<()> {
        self.step_with(model, s_in, s_out, Some(control), dt)
    }

    fn step_with(
        &mut self,
        model: &Model,
        s_in: &mut State,
        s_out: &mut State,
        control: Option<&Control>,
        dt: f32,
    ) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "dt",
                message: format!("must be finite and > 0, got {dt}"),
            });
        }
        if self.max_depenetration_speed.is_nan() || self.max_depenetration_speed <= 0.0 {
            return Err(SimError::InvalidParameter {
                name: "max_depenetration_speed",
                message: format!("must be > 0, got {}", self.max_depenetration_speed),
            });
        }
        if self.substeps == 0 || self.iterations == 0 || self.sweeps == 0 {
            return Err(SimError::InvalidParameter {
                name: "substeps/iterations/sweeps",
                message: format!(
                    "each must be ≥ 1, got {}, {} and {}",
                    self.substeps, self.iterations, self.sweeps
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
        let drives = DriveInputs::new(model, control)?;
        if Tape::is_recording() {
            return self.simulate_taped(model, s_in, s_out, &drives, dt);
        }
        let device = model.device();
        let nc = self.pipeline.contacts.capacity();
        let mut s = match self.scratch.take() {
            Some(s) => s,
            None => Scratch::new(device, n, nc)?,
        };
        let mut clock = PhaseClock::start(device, self.profile)?;
        let t = &mut self.times;
        t.steps += self.profile as usize;
        if self.profile {
            self.pipeline
                .broad_phase(&model.rigid_shapes, &s_in.body_q, &s_in.body_qd, dt)
                .map_err(collide_err)?;
            clock.mark(&mut t.broad)?;
            self.pipeline
                .narrow_phase(&model.rigid_shapes, &s_in.body_q)
                .map_err(collide_err)?;
        } else {
            self.pipeline
                .collide_moving(&model.rigid_shapes, &s_in.body_q, &s_in.body_qd, dt)
                .map_err(collide_err)?;
        }
        clock.mark(&mut t.narrow)?;
        let contacts = &self.pipeline.contacts;
        let manifolds = self.pipeline.manifolds();
        let c = &mut self.coloring;
        c.run(model, contacts, manifolds)?;
        clock.mark(&mut t.coloring)?;
        self.anchors
            .load(model, contacts, manifolds, &s_in.body_q)?;
        clock.mark(&mut t.anchors)?;
        // Launches: `(colours, threads)`. A GPU launches every colour with a
        // fixed grid whose threads read the colour's count on the device and
        // stride over its manifolds: no read-back,
        // so a step can be captured in a CUDA graph; the overflow colour gets
        // one thread, which solves it in order. A CPU reads the counts back
        // (free there) and launches only the colours in use, or, for a scene
        // with few manifolds per colour, one thread for every colour in one
        // launch per pass (the same order): launching a colour costs more
        // than solving it.
        let launches: Vec<(IVec2, usize)> = if device.is_cpu() {
            let counts = c.count.try_to_vec()?;
            let colored: u32 = counts[..COLORS].iter().sum();
            let used = counts[..COLORS].iter().filter(|k| **k > 0).count().max(1);
            if (colored as usize) < self.serial_per_color * used {
                vec![(IVec2::new(0, COLORS as i32 + 1), 1)]
            } else {
                counts
                    .iter()
                    .enumerate()
                    .filter(|(_, k)| **k > 0)
                    .map(|(color, &k)| {
                        let threads = if color == COLORS { 1 } else { k as usize };
                        (IVec2::new(color as i32, color as i32 + 1), threads)
                    })
                    .collect()
            }
        } else {
            // Threads stride over a colour's manifolds, so the grid need not
            // cover the largest colour: 65,536 threads fill a GPU, and the
            // launches of sparse colours cost less than with one per body.
            let grid = n.min(self.pipeline.pair_capacity()).clamp(1, 65_536);
            (0..=COLORS)
                .map(|color| {
                    let threads = if color == COLORS { 1 } else { grid };
                    (IVec2::new(color as i32, color as i32 + 1), threads)
                })
                .collect()
        };
        let h = dt / self.substeps as f32;
        let threshold = 2.0 * model.gravity.length() * h;
        let sweeps = self.sweeps as i32;
        let max_push = self.max_depenetration_speed * h;
        s.q.copy_from(&s_in.body_q)?;
        s.qd.copy_from(&s_in.body_qd)?;
        for _ in 0..self.substeps {
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
            clock.mark(&mut t.integrate)?;
            for pass in 0..self.iterations {
                let (first, friction) = (pass == 0, pass + 1 == self.iterations);
                if let Some(j) = &mut self.joints {
                    j.solve(model, &drives, h, first, &mut s.q, &s.q_prev)?;
                }
                // λ of the last pass in, this pass's out.
                std::mem::swap(&mut s.lambda, &mut s.lambda_in);
                for &(colors, threads) in &launches {
                    k::solve_positions::launch(
                        threads,
                        model,
                        contacts,
                        manifolds,
                        &c.list,
                        &c.start,
                        &c.count,
                        colors,
                        threads as i32,
                        sweeps,
                        max_push,
                        first,
                        friction,
                        &mut s.q,
                        &s_in.body_q,
                        &self.anchors.carry,
                        &mut self.anchors.slid,
                        &s.lambda_in,
                        &mut s.lambda,
                    )?;
                }
            }
            clock.mark(&mut t.positions)?;
            k::velocities_from_positions::launch(
                n, model, &s.q_pred, &s.qd_pred, &s.q, h, &mut s.qd,
            )?;
            for &(colors, threads) in &launches {
                k::solve_velocities::launch(
                    threads,
                    model,
                    contacts,
                    manifolds,
                    &c.list,
                    &c.start,
                    &c.count,
                    colors,
                    threads as i32,
                    2,
                    &s.q,
                    &mut s.qd,
                    &s.qd_prev,
                    &s.lambda,
                    threshold,
                    h,
                    &mut s.impulse,
                )?;
            }
            clock.mark(&mut t.velocities)?;
        }
        self.anchors
            .store(model, contacts, manifolds, &s.q, &s_in.body_q, &s.lambda)?;
        clock.mark(&mut t.anchors)?;
        s_out.body_q.copy_from(&s.q)?;
        s_out.body_qd.copy_from(&s.qd)?;
        s_out
            .body_f
            .try_fill(SpatialVector::new(Vec3::ZERO, Vec3::ZERO))?;
        self.scratch = Some(s);
        Ok(())
    }
}
