//! Independent pieces of work (shards: e.g. models of a few worlds each) run one
//! per CPU runner, every kernel launch inside a shard on its runner's thread
//! alone: no hand-over between threads per launch, as MuJoCo's `rollout` runs
//! each thread's chunk of worlds through whole steps.

use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::runners;

thread_local! {
    /// Set while this thread runs a shard: its launches stay on it.
    static IN_SHARD: Cell<bool> = const { Cell::new(false) };
}

/// Whether the calling thread is running a shard ([`for_each_shard`]), so that
/// the launches it makes run on it alone.
pub(crate) fn in_shard() -> bool {
    IN_SHARD.get()
}

/// A pointer to the shards that runner threads may share: each index is
/// claimed by exactly one of them.
struct Base<T>(*mut T);

// SAFETY: the pointer is only used to reach distinct elements from distinct
// threads (each index is claimed once), and `T: Send`.
unsafe impl<T: Send> Sync for Base<T> {}

/// Runs `f(i, &mut shards[i])` for every shard, the shards spread over the CPU
/// runners (rayon's pool size, the calling thread included), each taking the
/// next unclaimed shard until none is left. Every kernel launch that `f` makes
/// runs on the thread that runs `f`, in one piece: a shard is the unit of
/// parallelism, so the launches inside need no hand-over between threads. For
/// many small launches (a simulation step of a few worlds) that is what
/// scales: split the worlds into as many shards as there are cores (e.g. one
/// model of 32 worlds per core) and step each shard here.
///
/// A panic in `f` is resumed on the caller once every runner has stopped.
/// Nested calls run their shards on the calling thread.
///
/// ```
/// use weft_runtime::cpu::for_each_shard;
/// let mut sums = vec![0u64; 4];
/// for_each_shard(&mut sums, |i, s| *s = (0..1000u64).map(|k| k * i as u64).sum());
/// assert_eq!(sums, [0, 499_500, 999_000, 1_498_500]);
/// ```
pub fn for_each_shard<T: Send>(shards: &mut [T], f: impl Fn(usize, &mut T) + Sync) {
    let n = shards.len();
    let runners = if in_shard() {
        1
    } else {
        runners::runner_count().min(n)
    };
    let base = Base(shards.as_mut_ptr());
    let next = AtomicUsize::new(0);
    let base = &base;
    runners::run(runners.max(1), &|_| {
        let was = IN_SHARD.replace(true);
        // Restored on unwind too, so a panicking shard leaves the thread as it was.
        struct Restore(bool);
        impl Drop for Restore {
            fn drop(&mut self) {
                IN_SHARD.set(self.0);
            }
        }
        let _restore = Restore(was);
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= n {
                break;
            }
            // SAFETY: `i < n` indexes the slice, and each index is claimed by
            // one runner only, so no two threads reach the same element; the
            // slice is borrowed mutably for the whole call.
            f(i, unsafe { &mut *base.0.add(i) });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shard_runs_once_and_launches_inside_stay_serial() {
        let mut shards: Vec<(usize, bool)> = vec![(0, false); 7];
        for_each_shard(&mut shards, |i, s| {
            s.0 += i + 1;
            s.1 = runners::runner_count() == 1;
        });
        for (i, s) in shards.iter().enumerate() {
            assert_eq!(s.0, i + 1);
            assert!(s.1);
        }
        assert!(!in_shard(), "the caller's thread is left as it was");
    }

    #[test]
    fn a_panicking_shard_reaches_the_caller() {
        let mut shards = vec![0u8; 3];
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            for_each_shard(&mut shards, |i, _| assert!(i != 1, "shard one fails"))
        }));
        assert!(r.is_err());
        assert!(!in_shard());
    }
}
