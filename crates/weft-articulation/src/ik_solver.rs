//! [`IkSolver`]: batched damped least-squares inverse kinematics.

use weft::prelude::*;
use weft_sim::{Model, SimError};

use crate::Result;
use crate::ik_kernels::{
    apply_ik_step, eval_batch_kinematics, eval_damped_step, eval_target_errors,
};

/// One end-effector target of an [`IkSolver`]: a point fixed on a body (its
/// `offset` in the body frame) to bring to a position, and optionally the
/// body's orientation to match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkTarget {
    /// The body carrying the point (a joint's child).
    pub body: usize,
    /// The point in the body's frame.
    pub offset: Vec3,
    /// Whether the body's orientation is a target too.
    pub orientation: bool,
}

impl IkTarget {
    /// A position target for the point `offset` (body frame) of `body`.
    pub fn position(body: usize, offset: Vec3) -> Self {
        IkTarget {
            body,
            offset,
            orientation: false,
        }
    }

    /// A position and orientation target for `body` (its point `offset`).
    pub fn pose(body: usize, offset: Vec3) -> Self {
        IkTarget {
            body,
            offset,
            orientation: true,
        }
    }
}

/// Damped least-squares inverse kinematics (Levenberg–Marquardt steps) for
/// many problems at once: `problems` coordinate vectors of one model, laid end
/// to end, each moved by a fixed number of iterations
/// `q ← q ⊕ (JᵀJ + (λ² + |e|²) 1)⁻¹ Jᵀ e` towards its own target positions
/// (and orientations), where `e` stacks every target's position error (m)
/// and rotation vector (rad) and `J` its Jacobian. Joint limits clamp each
/// step; a step is scaled down so no coordinate moves more than `max_step` in
/// one iteration. The damping grows with the error (Sugihara 2011): steps
/// stay finite at singularities, unreachable targets end at a least-squares
/// compromise (the closest reachable point for a single position target),
/// and near a solution the steps are Gauss–Newton's. Every problem runs in
/// parallel (one thread per problem and joint or target); not differentiable.
///
/// ```
/// use glam::Vec3;
/// use weft::{Array, Device, Transform};
/// use weft_articulation::{IkSolver, IkTarget};
/// use weft_sim::{BodyDesc, BodyMass, JointDesc, ModelBuilder};
///
/// // A two-link planar arm (links 1 m along X), hinges about Z.
/// let mut b = ModelBuilder::new();
/// let mut link = |b: &mut ModelBuilder| {
///     let mut d = BodyDesc::new(Transform::IDENTITY);
///     d.mass = BodyMass::Given(weft_geom::MassProperties::sphere(1000.0, 0.05));
///     b.add_body(d)
/// };
/// let (l0, l1) = (link(&mut b), link(&mut b));
/// let reach = Transform::from_translation(Vec3::X);
/// b.add_joint(JointDesc::revolute(-1, l0, Vec3::Z))?;
/// b.add_joint(JointDesc::revolute(l0 as i32, l1, Vec3::Z).with_frames(reach, Transform::IDENTITY))?;
/// let model = b.finalize(Device::Cpu)?;
/// // Two problems: bring the tip of link 1 (1 m along its X) to two points.
/// let mut ik = IkSolver::new(&model, 2, &[IkTarget::position(l1, Vec3::X)])?;
/// let mut q = Array::from_vec(Device::Cpu, vec![0.3, 0.5, 0.3, 0.5]);
/// let goals = Array::from_vec(Device::Cpu, vec![Vec3::new(0.0, 1.5, 0.0), Vec3::new(1.0, -1.0, 0.0)]);
/// ik.solve(&model, &mut q, &goals, &Array::from_vec(Device::Cpu, vec![]))?;
/// let q = q.to_vec();
/// let tip = |a: f32, b: f32| Vec3::new(a.cos() + (a + b).cos(), a.sin() + (a + b).sin(), 0.0);
/// assert!((tip(q[0], q[1]) - Vec3::new(0.0, 1.5, 0.0)).length() < 1e-4);
/// assert!((tip(q[2], q[3]) - Vec3::new(1.0, -1.0, 0.0)).length() < 1e-4);
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub struct IkSolver {
    problems: usize,
    targets: Vec<IkTarget>,
    /// Iterations per [`solve`](Self::solve) (default 100).
    pub iterations: usize,
    /// The damping `λ` added to the error's `|e|` (default 1e-2): larger is
    /// slower but steadier near singularities.
    pub damping: f32,
    /// The largest change of one coordinate in one iteration (rad or m;
    /// default 0.5).
    pub max_step: f32,
    target_body: Array<i32>,
    target_joint: Array<i32>,
    target_offset: Array<Vec3>,
    target_rot: Array<i32>,
    body_q: Array<Transform>,
    s: Array<SpatialVector>,
    err: Array<f32>,
    jac: Array<f32>,
    a: Array<f64>,
    y: Array<f64>,
    dq: Array<f32>,
    q_next: Array<f32>,
}

impl IkSolver {
    /// A solver of `problems` problems of `model` with the same `targets`
    /// (their goals differ per problem). `Err` for no problems or no targets,
    /// or a target body out of range or moved by no joint.
    pub fn new(model: &Model, problems: usize, targets: &[IkTarget]) -> Result<Self> {
        let invalid = |message: String| SimError::InvalidParameter {
            name: "targets",
            message,
        };
        if problems == 0 {
            return Err(SimError::InvalidParameter {
                name: "problems",
                message: "must be at least 1".into(),
            });
        }
        if targets.is_empty() {
            return Err(invalid("give at least one target".into()));
        }
        let nb = model.body_count();
        let child = model.joint_child.to_vec();
        let mut joints = Vec::with_capacity(targets.len());
        for (t, x) in targets.iter().enumerate() {
            if x.body >= nb {
                return Err(invalid(format!(
                    "target {t}: body {} out of range ({nb} bodies)",
                    x.body
                )));
            }
            if !x.offset.is_finite() {
                return Err(invalid(format!(
                    "target {t}: offset {} is not finite",
                    x.offset
                )));
            }
            let Some(j) = child.iter().position(|&c| c as usize == x.body) else {
                return Err(invalid(format!(
                    "target {t}: body {} is no joint's child, so no coordinate moves it",
                    x.body
                )));
            };
            joints.push(j as i32);
        }
        let device = model.device();
        let (nt, nd) = (targets.len(), model.joint_dof_count());
        let ints = |v: Vec<i32>| Array::try_from_slice(device, &v);
        Ok(IkSolver {
            problems,
            targets: targets.to_vec(),
            iterations: 100,
            damping: 1e-2,
            max_step: 0.5,
            target_body: ints(targets.iter().map(|t| t.body as i32).collect())?,
            target_joint: ints(joints)?,
            target_offset: Array::try_from_slice(
                device,
                &targets.iter().map(|t| t.offset).collect::<Vec<_>>(),
            )?,
            target_rot: ints(targets.iter().map(|t| t.orientation as i32).collect())?,
            body_q: Array::try_zeros(device, [problems * nb])?,
            s: Array::try_zeros(device, [problems * nd])?,
            err: Array::try_zeros(device, [problems * nt * 6])?,
            jac: Array::try_zeros(device, [problems * nt * 6 * nd])?,
            a: Array::try_zeros(device, [problems * nd * nd])?,
            y: Array::try_zeros(device, [problems * nd])?,
            dq: Array::try_zeros(device, [problems * nd])?,
            q_next: Array::try_zeros(device, [problems * model.joint_coord_count()])?,
        })
    }

    /// The number of problems.
    pub fn problems(&self) -> usize {
        self.problems
    }

    /// The targets, as given.
    pub fn targets(&self) -> &[IkTarget] {
        &self.targets
    }

    /// Moves the coordinates `q` (`problems × joint_coord_count`, problem
    /// after problem) towards the goals: `positions[p · T + t]` for target `t`
    /// of problem `p`, and `orientations` likewise (`(x, y, z, w)` of the
    /// body's frame in the world; may be empty when no target has an
    /// orientation). `Err` for arrays of the wrong length or settings out of
    /// range (`damping` < 0, `max_step` ≤ 0, not finite).
    pub fn solve(
        &mut self,
        model: &Model,
        q: &mut Array<f32>,
        positions: &Array<Vec3>,
        orientations: &Array<Quat>,
    ) -> Result<()> {
        if !(self.damping.is_finite() && self.damping >= 0.0) {
            return Err(SimError::InvalidParameter {
                name: "damping",
                message: format!("must be finite and ≥ 0, got {}", self.damping),
            });
        }
        if !(self.max_step.is_finite() && self.max_step > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "max_step",
                message: format!("must be finite and > 0, got {}", self.max_step),
            });
        }
        let (np, nt) = (self.problems, self.targets.len());
        crate::check_len("q", q.len(), np * model.joint_coord_count())?;
        crate::check_len("positions", positions.len(), np * nt)?;
        let any_rot = self.targets.iter().any(|t| t.orientation);
        if any_rot || !orientations.is_empty() {
            crate::check_len("orientations", orientations.len(), np * nt)?;
        }
        if self.body_q.len() != np * model.body_count()
            || self.dq.len() != np * model.joint_dof_count()
        {
            return Err(SimError::Mismatch(
                "the IK solver was made for another model (make it from this one)".into(),
            ));
        }
        let nj = model.joint_count();
        if nj == 0 || self.iterations == 0 {
            return Ok(());
        }
        // With no orientation target the kernel never reads `orientations`.
        let none = Array::<Quat>::try_zeros(model.device(), [0])?;
        let orientations = if any_rot { orientations } else { &none };
        Tape::pause(|| -> Result<()> {
            for _ in 0..self.iterations {
                eval_batch_kinematics::launch(np * nj, model, q, &mut self.body_q, &mut self.s)?;
                eval_target_errors::launch(
                    np * nt,
                    model,
                    &self.target_body,
                    &self.target_joint,
                    &self.target_offset,
                    &self.target_rot,
                    &self.body_q,
                    &self.s,
                    positions,
                    orientations,
                    &mut self.err,
                    &mut self.jac,
                )?;
                eval_damped_step::launch(
                    np,
                    model,
                    (6 * nt) as i32,
                    self.damping,
                    self.max_step,
                    &self.jac,
                    &self.err,
                    &mut self.a,
                    &mut self.y,
                    &mut self.dq,
                )?;
                apply_ik_step::launch(np * nj, model, q, &self.dq, &mut self.q_next)?;
                // Copied back rather than swapped: `q` keeps its own buffer
                // (and whatever shares it, such as a state's `joint_q`).
                q.copy_from(&self.q_next)?;
            }
            Ok(())
        })
    }
}
