//! The CPU launcher: runs a kernel body over the launch grid, and the policy for
//! accumulating into arrays that kernels update with atomic adds
//! ([`set_accumulate`], [`with_accumulate`]).

use std::ops::Range;

use crate::Dims;

mod accumulate;
mod policy;
mod pool;
mod runners;
mod team;

pub use accumulate::{AccTarget, Private, launch_accumulate};
pub use policy::{
    Accumulate, PRIVATE_RATIO, accumulate, privatised_launches, set_accumulate, with_accumulate,
};

/// Launches with fewer threads than this run on the calling thread: a thread-pool
/// round trip (several µs) would cost more than the work.
pub const SERIAL_BELOW: usize = 4096;

/// Runs `chunk(range)` over contiguous ranges of flat thread indices covering `dims`,
/// in parallel when the grid is large (the calling thread takes ranges too). The
/// generated code loops over the range inside `chunk`, with the kernel's arguments
/// in locals, so the per-thread body is inlined into a tight loop. Panics inside
/// (e.g. an out-of-bounds index) propagate to the caller.
///
/// `chunk` is called dynamically once per range (not per thread index), so the
/// thread-pool machinery is compiled once here rather than once per kernel, which
/// keeps kernels cheap to build.
#[doc(hidden)]
pub fn launch(dims: &Dims, chunk: &(dyn Fn(Range<usize>) + Sync)) {
    let n = dims.total();
    if n < SERIAL_BELOW {
        chunk(0..n);
        return;
    }
    let runners = runners::runner_count();
    let pieces = runners::Pieces::new(n, runners);
    runners::run(runners, &|_| {
        while let Some(range) = pieces.claim() {
            chunk(range);
        }
    });
}

/// Runs `f` compiled for the `fma` target feature where the CPU has it, so that
/// the `fma` builtin in the code inlined into `f` is one instruction rather than a
/// call to the C library's `fmaf` (same result). The CPU launches of kernels that
/// use `fma` run their loops through it; without the feature, `f` runs as is.
///
/// ```
/// let mut x = 0.0f32;
/// weft_runtime::cpu::with_fma(|| x = 0.1f32.mul_add(10.0, -1.0));
/// assert_eq!(x, 1.4901161e-8);
/// ```
#[inline(always)]
pub fn with_fma<F: FnOnce()>(f: F) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("fma") {
            // SAFETY: the CPU has the feature.
            unsafe { run_fma(f) };
            return;
        }
    }
    f()
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "fma")]
unsafe fn run_fma<F: FnOnce()>(f: F) {
    f()
}
