//! Reverse-mode automatic differentiation on the IR (for every back end).

pub mod jumps;

#[cfg(test)]
mod interp;

pub use jumps::eliminate_jumps;
