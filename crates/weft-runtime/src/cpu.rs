//! The CPU launcher: runs a kernel body over the launch grid.

use std::ops::Range;

use rayon::prelude::*;

use crate::Dims;

/// Launches with fewer threads than this run on the calling thread: a thread-pool
/// round trip (several µs) would cost more than the work.
pub const SERIAL_BELOW: usize = 4096;

/// Runs `chunk(range)` over contiguous ranges of flat thread indices covering `dims`,
/// in parallel when the grid is large. The generated code loops over the range
/// inside `chunk`, with the kernel's arguments in locals, so the per-thread body is
/// inlined into a tight loop. Panics inside (e.g. an out-of-bounds index) propagate
/// to the caller.
///
/// `chunk` is called dynamically once per range (not per thread index), so the
/// thread-pool machinery is compiled once here rather than once per kernel, which
/// keeps kernels cheap to build.
pub fn launch(dims: &Dims, chunk: &(dyn Fn(Range<usize>) + Sync)) {
    let n = dims.total();
    if n < SERIAL_BELOW {
        chunk(0..n);
        return;
    }
    let threads = rayon::current_num_threads().max(1);
    // A few chunks per thread for load balance, but never tiny ones.
    let pieces = (threads * 4).min(n.div_ceil(1024));
    let size = n.div_ceil(pieces);
    (0..pieces).into_par_iter().for_each(|p| {
        let start = p * size;
        let end = (start + size).min(n);
        if start < end {
            chunk(start..end);
        }
    });
}
