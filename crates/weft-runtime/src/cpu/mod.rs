//! The CPU launcher: runs a kernel body over the launch grid, and the policy for
//! accumulating into arrays that kernels update with atomic adds
//! ([`set_accumulate`], [`with_accumulate`]).

use std::ops::Range;

use crate::Dims;

mod accumulate;
mod cost;
mod policy;
mod pool;
mod runners;
mod shards;
mod team;

pub use accumulate::{AccTarget, Private, launch_accumulate};
pub use cost::{LaunchCost, PARALLEL_FROM_NS, PIECE_NS};
pub use policy::{
    Accumulate, PRIVATE_RATIO, accumulate, privatised_launches, set_accumulate, with_accumulate,
};
pub use shards::for_each_shard;

/// Launches of a kernel not yet timed run on the calling thread below this
/// many threads; once timed, their estimated work decides ([`LaunchCost`]).
pub const SERIAL_BELOW: usize = 4096;

/// Runs `chunk(range)` over contiguous ranges of flat thread indices covering `dims`,
/// in parallel when the work is large (the calling thread takes ranges too):
/// when the launch site's `cost` estimate says it reaches [`PARALLEL_FROM_NS`]
/// (each launch is timed to refresh it), or, before any estimate, from
/// [`SERIAL_BELOW`] threads; [`with_grain`] overrides both. The generated code
/// loops over the range inside `chunk`, with the kernel's arguments
/// in locals, so the per-thread body is inlined into a tight loop. Panics inside
/// (e.g. an out-of-bounds index) propagate to the caller.
///
/// `chunk` is called dynamically once per range (not per thread index), so the
/// thread-pool machinery is compiled once here rather than once per kernel, which
/// keeps kernels cheap to build.
#[doc(hidden)]
pub fn launch(dims: &Dims, cost: &LaunchCost, chunk: &(dyn Fn(Range<usize>) + Sync)) {
    let n = dims.total();
    let runners = runners::runner_count();
    if runners <= 1 {
        chunk(0..n);
        return;
    }
    let start = std::time::Instant::now();
    let Some(min) = cost::plan(n, cost, GRAIN.get()) else {
        chunk(0..n);
        cost.record(start.elapsed(), n, 1);
        return;
    };
    let pieces = runners::Pieces::with_min(n, runners, min);
    let used = runners.min(pieces.count());
    runners::run(runners, &|_| {
        while let Some(range) = pieces.claim() {
            chunk(range);
        }
    });
    cost.record(start.elapsed(), n, used);
}

thread_local! {
    static GRAIN: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Runs `f` with the CPU launches it makes (on this thread) split into pieces of
/// at least `grain` threads, and run in parallel from `2 · grain` threads up,
/// instead of what each launch site's timing estimate ([`LaunchCost`]) says:
/// for kernels known to be heavy per thread, such as one thread per
/// articulation or per world, from their first launch on. Scopes nest; the
/// innermost wins.
///
/// ```
/// use weft_runtime::cpu::with_grain;
/// let n = with_grain(1, || 2 + 2);
/// assert_eq!(n, 4);
/// ```
pub fn with_grain<R>(grain: usize, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<usize>);
    impl Drop for Restore {
        fn drop(&mut self) {
            GRAIN.set(self.0);
        }
    }
    let _restore = Restore(GRAIN.replace(Some(grain.max(1))));
    f()
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
