//! The CUDA back end: devices, memory, PTX modules, launches, graphs and the GPU
//! error record, through the CUDA driver API (`cudarc`, loaded at run time).
//!
//! Nothing here needs a CUDA toolkit to build, and nothing panics on a machine
//! without a GPU: the driver library (`libcuda.so`) is looked for on first use, and
//! its absence is an [`Error::Cuda`] with the reason ([`device_count`],
//! [`skip_reason`]). Setting `WEFT_DISABLE_CUDA=1` hides the GPUs from Weft.
//!
//! Each device has one primary context and one stream, created on first use and kept
//! for the life of the process. Launches, copies to the device and memsets are
//! queued on that stream and return at once; [`synchronize`] (or
//! [`crate::Device::synchronize`], `Array::to_vec`) waits for them, reports
//! asynchronous errors, and reads the device's error record ([`ERROR_RECORD`]),
//! turning an out-of-bounds access reported by a bounds-checked kernel into
//! [`Error::OutOfBounds`].
//!
//! `WEFT_CUDA_VERBOSE=1` prints every PTX module load (time, JIT log) to stderr;
//! [`module_load_stats`] returns the same records. `WEFT_CUDA_MAXREG=N` caps the
//! registers per thread of every module compiled after it is read (a tuning knob).
//! `WEFT_CUDA_PTX_DIR=DIR` loads a kernel's PTX from `DIR/<kernel>.ptx` where that
//! file exists, instead of the embedded text (for experiments with edited PTX).
//! `WEFT_CUDA_BLOCK=N` sets the threads per block of every launch that does not set
//! its own, `WEFT_CUDA_BLOCKS=kernel=N,other=M` those of single kernels.
//!
//! ```
//! use weft_runtime::{Device, cuda};
//! match cuda::device_count() {
//!     Ok(n) => println!("{n} CUDA device(s)"),
//!     Err(e) => println!("no GPU: {e}"),
//! }
//! // Never panics; the CPU when there is no usable GPU.
//! let device = Device::best();
//! println!("running on {device}");
//! ```

mod context;
pub(crate) use context::capturing_on;
mod dependent;
mod driver;
mod event;
mod graph;
mod kernel_times;
mod launch;
pub(crate) mod memory;
mod module;
mod record;

pub use dependent::{GRID_DEPENDENCY_MARK, dependent_launch, set_dependent_launch};
pub use event::Event;
pub use graph::{Graph, retain_in_capture};
pub use kernel_times::{KernelTime, kernel_times, kernel_timing, set_kernel_timing};
pub use launch::{
    DEFAULT_BLOCK, DEFAULT_REDUCTION_WAVES, Launcher, launch, reduction_waves, set_reduction_waves,
};
pub use module::{ModuleLoad, module_load_stats};
pub use record::{
    ERROR_RECORD, ERROR_RECORD_BYTES, ERROR_RECORD_EXTENT, ERROR_RECORD_FLAG, ERROR_RECORD_INDEX,
    ERROR_RECORD_KERNEL, ERROR_RECORD_PARAM, LOCAL_ARRAY_PARAM, STACK_OVERFLOW_PARAM,
    error_record_ptr, kernel_id, register_kernel_name, register_kernel_params,
};

use crate::Error;

/// The number of CUDA devices, or why CUDA cannot be used: no driver library
/// ("no CUDA driver (libcuda.so) found"), a driver that fails to initialise, no
/// devices, or `WEFT_DISABLE_CUDA` set. Probed once, then cached; never panics.
pub fn device_count() -> Result<usize, Error> {
    driver::probe().map_err(|reason| Error::Cuda {
        what: "CUDA device discovery".into(),
        reason,
    })
}

/// Whether at least one CUDA device can be used.
pub fn is_available() -> bool {
    driver::probe().is_ok()
}

/// Why GPU tests must be skipped here (`None` when a CUDA device is usable).
///
/// GPU tests print `SKIPPED (no CUDA): <reason>` and return, so a machine without a
/// GPU passes them visibly rather than silently.
pub fn skip_reason() -> Option<String> {
    driver::probe().err()
}

/// Waits for all work queued on CUDA device `ordinal`, then checks the device's
/// error record: a bounds-checked kernel that indexed out of range since the last
/// check gives [`Error::OutOfBounds`] (and the record is cleared). The record
/// belongs to the device, not to a thread: where several threads launch on one
/// device, the first to synchronise after a failure gets its report.
pub fn synchronize(ordinal: usize) -> Result<(), Error> {
    context::device(ordinal)?.synchronize()
}

/// Facts about one CUDA device.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The ordinal (`cuda:N`).
    pub ordinal: usize,
    /// The product name, e.g. "NVIDIA H200".
    pub name: String,
    /// Compute capability (major, minor), e.g. (9, 0).
    pub compute_capability: (i32, i32),
    /// Device memory in bytes.
    pub total_memory: usize,
    /// Number of streaming multiprocessors.
    pub multiprocessors: i32,
}

/// Name, compute capability and memory of CUDA device `ordinal`.
pub fn device_info(ordinal: usize) -> Result<DeviceInfo, Error> {
    context::device(ordinal)?.info()
}
