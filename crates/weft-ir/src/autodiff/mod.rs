//! Reverse-mode automatic differentiation on the IR (for every back end).

pub mod activity;
pub mod adjoint;
pub mod handed;
pub mod jumps;
mod needed;

#[cfg(test)]
mod interp;

pub use activity::Activity;
pub use adjoint::{Adjoint, adjoint, adjoint_with, call_needs_adjoint, differentiable};
pub use handed::{GradFrom, HandedGrad, lost_gradients};
pub use jumps::eliminate_jumps;
