//! The kernels of the particle and cloth solvers, and the value-level funcs they
//! share. Kernels read and write [`Model`](crate::Model), [`State`](crate::State)
//! and [`Control`](crate::Control) directly; funcs take plain values, so every
//! kernel differentiates through the tape.

pub mod bending;
pub mod contact;
pub mod integrate;
pub mod shapes;
pub mod springs;
pub mod triangles;
pub mod xpbd;
