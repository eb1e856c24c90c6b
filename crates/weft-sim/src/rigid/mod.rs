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
//! What is borrowed and where Weft differs: like Warp's XPBD integrator, the
//! constraints are solved in parallel (Jacobi) with each body's corrections
//! averaged over its active contacts, and contact points are kept in body
//! frames so the solver re-measures them every iteration. Unlike it, the
//! angular integration advances the world angular momentum and derives ω from
//! it (a free body keeps its angular momentum; Warp's explicit gyroscopic
//! term lets it drift), and velocities are the integrator's plus the
//! projections' displacement, so a body nothing touches is integrated exactly
//! as a free body.

pub mod contact_math;
pub mod integrate;
pub mod penalty;
mod xpbd;
pub mod xpbd_kernels;

pub use xpbd::XpbdRigid;
pub(crate) use xpbd::collide_err;
