//! Weft's kernel IR.
//!
//! The front end (`weft-macros`) parses kernel source with `syn` and drives a
//! [`Builder`], which type-checks every operation as it is added and records it in a
//! typed SSA [`Function`] with structured control flow. The emitters turn that into
//! native Rust ([`emit_rust`]) or PTX ([`emit_ptx`]); [`autodiff`] derives adjoints. Nothing here depends on `syn` or on the
//! runtime, so the same checks and messages hold for every back end.

#![deny(missing_docs)]

pub mod access;
pub mod accumulate;
pub mod autodiff;
pub mod builder;
pub mod builtins;
pub mod emit_ptx;
pub mod emit_rust;
pub mod ir;
pub mod reach;
pub mod types;

pub use builder::{Builder, Env, Error, LitKey, Result};
pub use ir::*;
pub use types::{Access, MAX_TUPLE, Scalar, Type};
