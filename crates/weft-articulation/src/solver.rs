//! [`FeatherstoneSolver`]: steps articulations in generalized coordinates.

use weft::prelude::*;
use weft_sim::{Control, Model, SimError, State};

use crate::aba::{self, AbaLayout};
use crate::dynamics::Kinematics;
use crate::kinematics::eval_fk;
use crate::{Result, drives, integrate, layout::ArticulationLayout, scratch, solve};

/// How [`FeatherstoneSolver`] finds the accelerations.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ForwardDynamics {
    /// The mass matrix by composite rigid bodies, solved by Cholesky
    /// (`O(n³)` per articulation; the default).
    #[default]
    CompositeRigidBody,
    /// The articulated-body algorithm (`O(n)`; see [`crate::aba`]), the
    /// implicit drive, damping and limit terms added to its pivots.
    ArticulatedBody,
}

/// Reduced-coordinate dynamics of every articulation of a model, stepped
/// semi-implicitly: composite-rigid-body mass matrix `M(q)`, bias forces
/// `C(q, q̇)` by recursive Newton–Euler (gravity and `state.body_f` wrenches
/// included), drives, damping, friction and limits (see [`crate::drives`]),
/// `(M + D) q̈ = τ − C` solved per articulation (see [`crate::solve`]; or
/// the articulated-body algorithm with `D` on its pivots, see
/// [`ForwardDynamics`]), then
/// `q̇⁺ = q̇ + h q̈` and `q⁺ = q ⊕ h q̇⁺` (quaternions on the manifold). The
/// output state's body poses and velocities are then set by forward
/// kinematics. Bodies that are no joint's child are copied unchanged.
///
/// Not yet: contacts of links (with shapes and each other) — to come through
/// weft-collide's pipeline (issue 26); loops (joints as XPBD constraints).
/// Differentiable through the tape (use a new output state per step).
///
/// ```
/// use glam::Vec3;
/// use weft::{Device, Transform};
/// use weft_articulation::FeatherstoneSolver;
/// use weft_sim::{BodyDesc, BodyMass, Control, JointDesc, ModelBuilder, State};
///
/// let mut b = ModelBuilder::new();
/// let mut desc = BodyDesc::new(Transform::IDENTITY);
/// desc.mass = BodyMass::Given(weft_geom::MassProperties::sphere(1000.0, 0.05));
/// let bob = b.add_body(desc);
/// let hang = Transform::from_translation(Vec3::new(0.0, 0.0, 1.0)); // hinge 1 m above the bob
/// b.add_joint(JointDesc::revolute(-1, bob, Vec3::Y).with_frames(Transform::IDENTITY, hang).with_q(&[0.3]))?;
/// let model = b.finalize(Device::Cpu)?;
/// let (mut s0, mut s1) = (State::new(&model)?, State::new(&model)?);
/// let control = Control::new(&model)?;
/// let mut solver = FeatherstoneSolver::new(&model)?;
/// for _ in 0..100 {
///     solver.step(&model, &s0, &mut s1, &control, 1e-3)?;
///     std::mem::swap(&mut s0, &mut s1);
/// }
/// assert!(s0.joint_q.to_vec()[0] < 0.3); // swinging back down
/// # Ok::<(), weft_sim::SimError>(())
/// ```
pub struct FeatherstoneSolver {
    layout: ArticulationLayout,
    aba: Option<AbaLayout>,
    zero_qdd: Array<f32>,
}

impl FeatherstoneSolver {
    /// A solver for `model`'s articulations (composite rigid bodies).
    pub fn new(model: &Model) -> Result<Self> {
        Self::with_dynamics(model, ForwardDynamics::CompositeRigidBody)
    }

    /// A solver for `model`'s articulations that finds the accelerations by
    /// `dynamics`. Both give the same steps up to rounding.
    pub fn with_dynamics(model: &Model, dynamics: ForwardDynamics) -> Result<Self> {
        Ok(FeatherstoneSolver {
            layout: ArticulationLayout::new(model)?,
            aba: match dynamics {
                ForwardDynamics::CompositeRigidBody => None,
                ForwardDynamics::ArticulatedBody => Some(AbaLayout::new(model)?),
            },
            zero_qdd: Array::try_zeros(model.device(), [model.joint_dof_count()])?,
        })
    }

    /// How this solver finds the accelerations.
    pub fn dynamics(&self) -> ForwardDynamics {
        match self.aba {
            None => ForwardDynamics::CompositeRigidBody,
            Some(_) => ForwardDynamics::ArticulatedBody,
        }
    }

    /// The layout of the model's articulations (mass matrices, Jacobians).
    pub fn layout(&self) -> &ArticulationLayout {
        &self.layout
    }

    /// Steps `s_in` over `dt` into `s_out` under `control` (targets and
    /// efforts; empty arrays: the model's). `s_in.body_f` acts on the bodies
    /// during the step; `s_out.body_f` is cleared.
    pub fn step(
        &mut self,
        model: &Model,
        s_in: &State,
        s_out: &mut State,
        control: &Control,
        dt: f32,
    ) -> Result<()> {
        if !(dt.is_finite() && dt > 0.0) {
            return Err(SimError::InvalidParameter {
                name: "dt",
                message: format!("must be finite and > 0, got {dt}"),
            });
        }
        self.layout.check(model)?;
        crate::check_state(model, s_in)?;
        crate::check_state(model, s_out)?;
        let nd = model.joint_dof_count();
        for (name, len) in [
            ("control.joint_target_pos", control.joint_target_pos.len()),
            ("control.joint_target_vel", control.joint_target_vel.len()),
            ("control.joint_f", control.joint_f.len()),
        ] {
            if len != 0 && len != nd {
                return Err(SimError::Mismatch(format!(
                    "{name} holds {len} values; the model has {nd} joint degrees of freedom (or give none)"
                )));
            }
        }
        if model.body_count() > model.joint_count() {
            // Bodies without a parent joint stay where they are.
            s_out.body_q.copy_from(&s_in.body_q)?;
            s_out.body_qd.copy_from(&s_in.body_qd)?;
        }
        let nj = model.joint_count();
        if nj > 0 {
            let kin = Kinematics::eval(model, &s_in.joint_q, &s_in.joint_qd)?;
            let mut r = scratch::floats(model, nd)?;
            let mut d = scratch::floats(model, nd)?;
            let qdd = if let Some(aba) = &self.aba {
                // ABA takes the applied efforts; it finds the bias itself.
                aba.check(model)?;
                drives::eval_joint_efforts::launch(
                    nj,
                    model,
                    control,
                    &s_in.joint_q,
                    &s_in.joint_qd,
                    &self.zero_qdd,
                    dt,
                    &mut r,
                    &mut d,
                )?;
                aba::accelerations(model, aba, &kin, &r, &d, &s_in.body_f)?
            } else {
                let bias = kin.efforts(model, &self.zero_qdd, &s_in.body_f)?;
                let mass = kin.mass_matrix(model, &self.layout)?;
                drives::eval_joint_efforts::launch(
                    nj,
                    model,
                    control,
                    &s_in.joint_q,
                    &s_in.joint_qd,
                    &bias,
                    dt,
                    &mut r,
                    &mut d,
                )?;
                solve::solve(model, &self.layout, &mass, &d, &r)?
            };
            integrate::integrate_joints::launch(
                nj,
                model,
                &s_in.joint_q,
                &s_in.joint_qd,
                &qdd,
                dt,
                &mut s_out.joint_q,
                &mut s_out.joint_qd,
            )?;
            eval_fk(model, s_out)?;
        }
        s_out
            .body_f
            .try_fill(SpatialVector::new(Vec3::ZERO, Vec3::ZERO))?;
        Ok(())
    }
}
