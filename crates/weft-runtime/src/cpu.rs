//! The CPU launcher: runs a kernel body over the launch grid.

use rayon::prelude::*;

use crate::Dims;

/// Launches with fewer threads than this run on the calling thread: a thread-pool
/// round trip (several µs) would cost more than the work.
pub const SERIAL_BELOW: usize = 4096;

/// Runs `body(tid)` for every flat thread index of `dims`, in parallel when the grid is
/// large. Panics inside the body (e.g. an out-of-bounds index) propagate to the caller.
#[inline]
pub fn launch<F: Fn(usize) + Sync + Send>(dims: &Dims, body: F) {
    let n = dims.total();
    if n < SERIAL_BELOW {
        for i in 0..n {
            body(i);
        }
    } else {
        let threads = rayon::current_num_threads().max(1);
        // A few chunks per thread for balance, but never tiny ones.
        let grain = (n / (threads * 4)).max(1024);
        (0..n).into_par_iter().with_min_len(grain).for_each(body);
    }
}
