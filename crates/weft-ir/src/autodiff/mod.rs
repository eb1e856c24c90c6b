//! Reverse-mode automatic differentiation on the IR (for every back end).

pub mod activity;
pub mod adjoint;
pub mod jumps;
mod needed;

#[cfg(test)]
mod interp;

pub use activity::Activity;
pub use adjoint::{Adjoint, adjoint, call_needs_adjoint, differentiable};
pub use jumps::eliminate_jumps;
