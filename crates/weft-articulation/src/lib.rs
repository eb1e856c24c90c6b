//! # weft-articulation
//!
//! Articulations — trees of rigid bodies connected by joints — in reduced
//! (joint) coordinates, after Featherstone's *Rigid Body Dynamics Algorithms*
//! (2008): forward kinematics ([`eval_fk`]), geometric Jacobians
//! ([`eval_jacobian`]), inverse dynamics by recursive Newton–Euler
//! ([`inverse_dynamics`], [`bias_forces`]), the joint-space mass matrix by
//! composite rigid bodies ([`mass_matrix`]), forward dynamics by a Cholesky
//! solve ([`forward_dynamics`]) or by articulated bodies
//! ([`forward_dynamics_aba`]), and a semi-implicit integrator with drives,
//! damping, friction, armature, limits and penalty contacts of the links
//! with shapes and each other ([`FeatherstoneSolver`], [`contacts`]). Every
//! function launches kernels (CPU or CUDA, the model's device); all but the
//! inverse kinematics ([`eval_ik`], [`IkSolver`]) are differentiable through
//! a [`weft::Tape`].
//!
//! Joints and their coordinates are weft-sim's ([`weft_sim::JointDesc`] has
//! the conventions: frames, the order of `joint_q`/`joint_qd` per joint
//! kind, the free joint's MuJoCo-compatible velocities). The bodies' mass
//! properties are the model's (`body_mass`, `body_com`, `body_inertia`).
//!
//! What is borrowed and where Weft differs: the data layout is Warp/Newton's
//! (`joint_q_start`, `joint_qd_start`, `articulation_start`, joint frames in
//! parent and child), and the spatial algebra is Featherstone's and
//! Pinocchio's: each joint's quantities in its child body's frame, other
//! bodies' brought over by the transforms composed along the tree (Warp's
//! Featherstone integrator works in the world frame at the origin, which in
//! f32 costs precision that grows with a robot's distance from the origin),
//! ordered (linear, angular) as everywhere in Weft. Warp recurses over a tree
//! in one thread per articulation, updating arrays in place; Weft's tape
//! refuses in-place updates (its adjoints replay a kernel after its writes),
//! so here each joint's thread sums over its ancestors or descendants instead
//! (`O(n d)` work for `n` joints of depth `d`, parallel over joints), and the
//! Cholesky factorisation, which must update in place, runs off the tape with
//! one step of iterative refinement on it carrying the exact derivatives
//! ([`solve`]). The articulated-body algorithm ([`forward_dynamics_aba`],
//! `O(n)`) runs one launch per tree level instead. Limits are stiff
//! penalties, implicit in the step. When no tape records, all of these run
//! as Featherstone writes them instead, one thread per articulation walking
//! its joints in place ([`tree`]): `O(n)` in one launch, the same results.
//!
//! Kinematics the other way: [`eval_ik`] recovers joint coordinates and
//! velocities from body poses and velocities, and [`IkSolver`] moves batches
//! of coordinate vectors towards end-effector targets (damped least squares).

#![deny(missing_docs)]

pub mod aba;
pub mod aba_derivatives;
pub mod ball_drives;
pub mod contacts;
pub mod drives;
pub mod dynamics;
pub mod ik_kernels;
mod ik_solver;
pub mod integrate;
pub mod joint_coords;
pub mod joint_math;
pub mod kinematics;
mod layout;
mod scratch;
pub mod solve;
mod solver;
pub mod tree;

pub use aba::{AbaLayout, forward_dynamics_aba};
pub use aba_derivatives::{AbaDerivatives, aba_derivatives};
pub use dynamics::{bias_forces, inverse_dynamics, mass_matrix};
pub use ik_solver::{IkSolver, IkTarget};
pub use joint_coords::eval_ik;
pub use kinematics::{eval_fk, eval_jacobian};
pub use layout::ArticulationLayout;
pub use solve::forward_dynamics;
pub use solver::{FeatherstoneSolver, ForwardDynamics};

use weft::Array;
use weft_sim::{Model, SimError, State};

/// `Result` with weft-sim's [`SimError`].
pub type Result<T, E = SimError> = std::result::Result<T, E>;

/// `q ⊕ h q̇`: coordinates `q` moved by velocities `qd` for `dt` seconds on
/// the joints' manifolds (quaternions of ball and free joints by the
/// exponential map), as a new array.
pub fn advance_coordinates(
    model: &Model,
    q: &Array<f32>,
    qd: &Array<f32>,
    dt: f32,
) -> Result<Array<f32>> {
    check_coords(model, q, qd)?;
    let mut out = scratch::floats(model, model.joint_coord_count())?;
    if model.joint_count() > 0 {
        integrate::advance_coordinates::launch(model.joint_count(), model, q, qd, dt, &mut out)?;
    }
    Ok(out)
}

fn check_len(name: &str, got: usize, want: usize) -> Result<()> {
    if got == want {
        Ok(())
    } else {
        Err(SimError::Mismatch(format!(
            "{name} holds {got} values; the model needs {want}"
        )))
    }
}

fn check_coords(model: &Model, q: &Array<f32>, qd: &Array<f32>) -> Result<()> {
    check_len("joint_q", q.len(), model.joint_coord_count())?;
    check_len("joint_qd", qd.len(), model.joint_dof_count())
}

fn check_state(model: &Model, state: &State) -> Result<()> {
    check_coords(model, &state.joint_q, &state.joint_qd)?;
    check_len("body_q", state.body_q.len(), model.body_count())?;
    check_len("body_qd", state.body_qd.len(), model.body_count())
}
