//! The PTX emitter: kernels (and their adjoints) as PTX text for NVIDIA GPUs,
//! produced at compile time and embedded in the binary.
//!
//! Every value is split into scalar virtual registers ([`layout::flatten`]): vector,
//! matrix and quaternion operations are scalarized, funcs are inlined, structured
//! control flow becomes labels and branches. Float arithmetic uses the IEEE
//! round-to-nearest forms (`add.rn`, `mul.rn`, `div.rn`, `sqrt.rn`), which also keeps
//! ptxas from fusing multiplies and adds, so results match the CPU back end; the
//! elementary functions are the accurate ones of `weft-math`, compiled from their
//! kernel-language versions like any func.
//!
//! A kernel takes one parameter, a byte buffer: a fixed header (launch extents,
//! thread count, error-record address; see [`layout::HEADER`]) then every flattened
//! parameter component aligned to its size ([`layout::arg_offsets`]). Arrays are
//! passed as their device address and extents; their elements are read and written
//! with glam's memory layouts ([`layout::elem_layout`]).
//!
//! What the emitter cannot translate yet is reported as an `Err` with the reason;
//! the kernel still compiles for the CPU and its CUDA launch returns that reason.

#[cfg(test)]
mod adjoint_parity;
mod adjoints;
mod algebra;
mod build;
mod builtins;
mod emitter;
#[cfg(test)]
mod eval;
pub mod layout;
mod local;
mod ops;
mod outline;
mod prefetch;
mod reduce;
pub mod regs;
mod stack;

use std::collections::HashMap;

use crate::ir::Function;

pub use emitter::{ERROR_RECORD, GRID_DEPENDENCY_MARK};
pub use local::LOCAL_ARRAY_PARAM;
pub use stack::{ADJOINT_STACK_BYTES, STACK_OVERFLOW_PARAM};

/// The PTX of one kernel.
#[derive(Clone, Debug)]
pub struct PtxKernel {
    /// A complete PTX module holding the kernel entry.
    pub text: String,
    /// Size of the kernel's argument buffer in bytes.
    pub args_size: usize,
}

/// Options of the emitter.
#[derive(Clone, Copy, Debug, Default)]
pub struct Options {
    /// Check array indices against the extents and report the first out-of-range
    /// access through the device's error record (instead of faulting).
    pub bounds_checks: bool,
    /// An identifier of the kernel written to the error record.
    pub kernel_id: u32,
    /// Emit the forward calls of pure scalar funcs that reach an elementary
    /// function (`sin`, `atan2`, ...) as calls of a `.func` instead of
    /// inlining them: for adjoints, which replay a func's forward body at
    /// every level of loop and call nesting (see `outline.rs`).
    pub outline_replays: bool,
}

/// Emits kernel `f` as a PTX module with one entry named like the kernel. `funcs`
/// holds the funcs it may call (inlined), by name, looked up in order (the user's,
/// then the kernel-language versions of the elementary functions).
pub fn kernel(
    f: &Function,
    funcs: &[&HashMap<String, Function>],
    options: Options,
) -> Result<PtxKernel, String> {
    emitter::emit_kernel(f, funcs, options)
}
