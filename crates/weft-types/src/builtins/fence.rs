//! Memory ordering between the threads of a launch.

use std::sync::atomic::{Ordering, fence};

/// An acquire-release fence across the device: writes before it are visible to a
/// thread that observes an atomic operation made after it, and reads after it see
/// what the writer of an atomic it observed wrote before that atomic. On a GPU it
/// is `fence.acq_rel.gpu` (not sequentially consistent, unlike CUDA's
/// `__threadfence()`: fences of different threads are not totally ordered).
///
/// The usual pattern: a thread writes a result, fences, then increments a
/// counter; the thread that sees the counter's last increment fences, then reads
/// every result.
#[inline]
pub fn thread_fence() {
    fence(Ordering::AcqRel);
}
