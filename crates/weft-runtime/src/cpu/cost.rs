//! [`LaunchCost`]: what the CPU launcher has learned of one kernel's time per
//! thread, and the plan it makes from it: a launch runs on the calling thread
//! alone unless its work is worth a hand-over to the other cores.
//!
//! A fixed thread count cannot make that call: a thread of `aba_tree` (a whole
//! robot's recursion) costs microseconds, one of a vector add a nanosecond. So
//! each launch site keeps an estimate of its time per thread, refreshed from
//! the launches it times, and a launch goes parallel once its estimated work
//! reaches [`PARALLEL_FROM_NS`], in pieces of at least [`PIECE_NS`] each.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A launch whose estimated work reaches this many nanoseconds runs on every
/// runner: a hand-over to the helper team costs about a microsecond, a
/// parked helper's wake-up several. (8 µs and pieces of 2 µs: 64 ants 8 %
/// faster on 2 threads than 20 µs and 4 µs, the humanoids alike; 2-core VM.)
pub const PARALLEL_FROM_NS: u64 = 8_000;
/// The least estimated work of one piece of a parallel launch (ns): each
/// piece costs an atomic claim, a privatised one its buffers' zeroing.
pub const PIECE_NS: u64 = 2_000;

/// Time per thread of one kernel's launches, as the launcher measured it (one
/// `static` per launch site, made by `#[weft::kernel]`).
#[doc(hidden)]
#[derive(Debug)]
pub struct LaunchCost {
    /// Picoseconds per thread, a running average; 0 until a launch is timed.
    ps_per_thread: AtomicU64,
}

impl LaunchCost {
    /// Nothing known yet.
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        LaunchCost {
            ps_per_thread: AtomicU64::new(0),
        }
    }

    /// The estimate in picoseconds per thread (0: none yet).
    pub fn per_thread_ps(&self) -> u64 {
        self.ps_per_thread.load(Ordering::Relaxed)
    }

    /// Folds in a launch of `threads` threads that took `elapsed` on `runners`
    /// runners (a running average that follows a change within a few launches;
    /// launches racing on one site may lose an update, which only slows that).
    pub(crate) fn record(&self, elapsed: Duration, threads: usize, runners: usize) {
        if threads == 0 {
            return;
        }
        let ps = elapsed.as_nanos().saturating_mul(1000) * runners as u128 / threads as u128;
        let sample = (ps.min(u64::MAX as u128 / 4) as u64).max(1);
        let old = self.per_thread_ps();
        let new = if old == 0 {
            sample
        } else {
            (3 * old + sample) / 4
        };
        self.ps_per_thread.store(new, Ordering::Relaxed);
    }
}

/// How a launch of `n` threads runs: `None` on the calling thread, or
/// `Some(min)`: in parallel, in pieces of at least `min` threads. `grain` (from
/// [`super::with_grain`]) overrides the estimate; without an estimate, launches
/// of [`super::SERIAL_BELOW`] threads and more go parallel.
pub(crate) fn plan(n: usize, cost: &LaunchCost, grain: Option<usize>) -> Option<usize> {
    if let Some(g) = grain {
        return (n >= 2 * g).then_some(g);
    }
    let ps = cost.per_thread_ps();
    if ps == 0 {
        return (n >= super::SERIAL_BELOW).then_some(super::runners::MIN_PIECE);
    }
    let work_ns = ps.saturating_mul(n as u64) / 1000;
    if work_ns < PARALLEL_FROM_NS {
        return None;
    }
    let min = (PIECE_NS.saturating_mul(1000) / ps).max(1) as usize;
    (n >= 2 * min).then_some(min)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heavy_threads_go_parallel_early_and_light_ones_stay_serial() {
        let heavy = LaunchCost::new();
        heavy.record(Duration::from_micros(64), 64, 1); // 1 µs per thread
        assert_eq!(heavy.per_thread_ps(), 1_000_000);
        let few = (PARALLEL_FROM_NS / 1000) as usize; // threads of 1 µs
        assert_eq!(plan(few - 1, &heavy, None), None);
        let piece = (PIECE_NS / 1000) as usize;
        assert_eq!(plan(64, &heavy, None), Some(piece));
        let light = LaunchCost::new();
        light.record(Duration::from_micros(10), 10_000, 1); // 1 ns per thread
        assert_eq!(plan(PARALLEL_FROM_NS as usize - 1, &light, None), None);
        assert_eq!(plan(100_000, &light, None), Some(PIECE_NS as usize));
        // Unknown: the thread count decides, as before any launch was timed.
        let unknown = LaunchCost::new();
        assert_eq!(plan(100, &unknown, None), None);
        assert!(plan(1 << 20, &unknown, None).is_some());
        // A grain wins over the estimate.
        assert_eq!(plan(64, &light, Some(1)), Some(1));
    }

    #[test]
    fn the_estimate_follows_a_change() {
        let c = LaunchCost::new();
        c.record(Duration::from_micros(100), 100, 1);
        for _ in 0..20 {
            c.record(Duration::from_micros(10), 100, 1);
        }
        let ps = c.per_thread_ps();
        assert!((100_000..110_000).contains(&ps), "{ps}");
        // Parallel launches count each runner's share.
        let p = LaunchCost::new();
        p.record(Duration::from_micros(50), 100, 2);
        assert_eq!(p.per_thread_ps(), 1_000_000);
    }
}
