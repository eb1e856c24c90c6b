//! Rigid bodies: integration of free bodies and the contact solvers.
//!
//! Bodies are the `body_*` arrays of [`Model`](crate::Model) and
//! [`State`](crate::State); their shapes and contacts come from
//! `weft-collide`. Two solvers: [`XpbdRigid`] (substepped XPBD after Müller et
//! al. 2020, "Detailed Rigid Body Simulation with Extended Position Based
//! Dynamics": hard contacts, static and dynamic friction, restitution) and the
//! penalty contacts of [`SemiImplicit`](crate::SemiImplicit) (smooth, for
//! gradients).
//!
//! What is borrowed and where Weft differs: Warp's XPBD integrator solves
//! contacts in parallel (Jacobi) with each body's corrections averaged; that
//! lets a 210-box pyramid sag and collapse, so Weft colours the contact
//! manifolds and solves them Gauss–Seidel, colour by colour, each manifold as
//! one block (as Box2D v3's graph colouring, with XPBD's positional
//! constraints). Contact points are kept in body frames so the solver
//! re-measures them every pass. The angular integration advances the world
//! angular momentum and derives ω from it (a free body keeps its angular
//! momentum; Warp's explicit gyroscopic term lets it drift), and velocities
//! are the integrator's plus the projections' displacement, so a body
//! nothing touches is integrated exactly as a free body.

pub mod anchors;
pub mod coloring;
pub mod contact_math;
pub mod integrate;
pub mod joint_kernels;
pub mod joint_taped_kernels;
mod joints;
pub mod penalty;
mod phase_times;
mod xpbd;
pub mod xpbd_kernels;
mod xpbd_taped;
pub mod xpbd_taped_kernels;

pub use phase_times::PhaseTimes;
pub use xpbd::XpbdRigid;
pub(crate) use xpbd::collide_err;
