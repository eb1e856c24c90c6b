//! Running a launch on several threads, the calling thread included: pieces of
//! the launch are claimed one at a time from a shared counter by the calling
//! thread and by helper jobs on the rayon pool, so the caller works instead of
//! sleeping until the pool is done, and a runner that is descheduled (a loaded
//! machine) leaves its share to the others.

use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::team::Team;

/// Pieces per runner: a few, for load balance.
const PIECES_PER_RUNNER: usize = 4;
/// No piece is smaller than this many threads (each piece costs an atomic claim
/// and, when privatised, nothing more).
pub(crate) const MIN_PIECE: usize = 1024;

/// How many threads run a parallel launch: the rayon pool's size, the calling
/// thread counting as one of them (it takes pieces too); one inside a shard
/// ([`super::for_each_shard`]), whose launches stay on its thread.
pub(crate) fn runner_count() -> usize {
    if super::shards::in_shard() {
        1
    } else {
        rayon::current_num_threads().max(1)
    }
}

/// Contiguous pieces of `0..n`, handed out in order to whoever asks next.
pub(crate) struct Pieces {
    n: usize,
    size: usize,
    count: usize,
    next: AtomicUsize,
}

impl Pieces {
    /// Pieces of `0..n` for `runners` runners.
    pub(crate) fn new(n: usize, runners: usize) -> Pieces {
        Self::with_min(n, runners, MIN_PIECE)
    }

    /// Pieces of `0..n` for `runners` runners, none smaller than `min` threads
    /// (unless `n` is).
    pub(crate) fn with_min(n: usize, runners: usize, min: usize) -> Pieces {
        let want = (runners * PIECES_PER_RUNNER)
            .min(n.div_ceil(min.max(1)))
            .max(1);
        let size = n.div_ceil(want).max(1);
        Pieces {
            n,
            size,
            count: n.div_ceil(size),
            next: AtomicUsize::new(0),
        }
    }

    /// Claims the next piece, if any is left.
    pub(crate) fn claim(&self) -> Option<Range<usize>> {
        let p = self.next.fetch_add(1, Ordering::Relaxed);
        (p < self.count).then(|| p * self.size..((p + 1) * self.size).min(self.n))
    }

    /// Claims the next piece's index, if any is left (for work that is split
    /// into `count` parts some other way).
    pub(crate) fn claim_index(&self) -> Option<usize> {
        let p = self.next.fetch_add(1, Ordering::Relaxed);
        (p < self.count).then_some(p)
    }

    /// The number of pieces.
    pub(crate) fn count(&self) -> usize {
        self.count
    }
}

/// Runs `f(r)` for the runners `r` in `0..runners`: `f(0)` on the calling
/// thread, the others on the helper team ([`super::team`]) or, when it is busy or
/// the caller is inside rayon's pool, as jobs on the rayon pool; returns when all
/// that started have returned. A panic in any of them is resumed on the caller
/// after all have finished. On the team a helper that has not picked the job up
/// by the time `f(0)` returns is skipped, so `f(0)` must be able to do all the
/// work alone: every caller claims its work from shared counters ([`Pieces`]).
pub(crate) fn run(runners: usize, f: &(dyn Fn(usize) + Sync)) {
    if runners <= 1 {
        f(0);
        return;
    }
    if rayon::current_thread_index().is_none()
        && let Some(team) = Team::get(runners)
        && team.try_run(f)
    {
        return;
    }
    rayon::in_place_scope(|s| {
        for r in 1..runners {
            s.spawn(move |_| f(r));
        }
        f(0);
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_range_once() {
        for (n, runners) in [(1, 1), (5000, 2), (97_536, 2), (100_000, 7), (4096, 64)] {
            let p = Pieces::new(n, runners);
            let mut seen = vec![0u8; n];
            while let Some(r) = p.claim() {
                assert!(!r.is_empty());
                for i in r {
                    seen[i] += 1;
                }
            }
            assert!(seen.iter().all(|&c| c == 1), "n {n}, runners {runners}");
            assert!(p.claim().is_none());
        }
    }

    #[test]
    fn every_runner_runs_at_most_once_and_the_work_is_done() {
        let hits: Vec<AtomicUsize> = (0..5).map(|_| AtomicUsize::new(0)).collect();
        let pieces = Pieces::new(100_000, 5);
        let claimed = AtomicUsize::new(0);
        run(5, &|r| {
            hits[r].fetch_add(1, Ordering::Relaxed);
            while let Some(range) = pieces.claim() {
                claimed.fetch_add(range.len(), Ordering::Relaxed);
            }
        });
        assert_eq!(hits[0].load(Ordering::Relaxed), 1);
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) <= 1));
        assert_eq!(claimed.load(Ordering::Relaxed), 100_000);
    }
}
