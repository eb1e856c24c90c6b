//! A team of persistent helper threads for parallel launches, handing work over
//! through shared atomics. A fork-join through rayon's scope costs ~15 µs on the
//! 2-core development VM when the worker has gone to sleep (it is woken through
//! the kernel, and so is the caller waiting for it); here a waiting thread — an
//! idle helper, or the launching thread waiting for the helpers — spins for a
//! few µs, then yields its core between checks, and parks only after
//! [`PARK_AFTER`], so launches made back to back (a simulation's substeps) hand
//! over in ~1 µs while a loaded machine's other threads still get the cores.
//!
//! One launch at a time uses the team; a launch that finds it busy (another
//! thread's launch), or that is made from inside rayon's pool (nested
//! parallelism, where rayon's work stealing is the right tool), runs through
//! rayon instead.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock, TryLockError};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a waiting thread spins on the shared atomics before it starts
/// yielding its core between checks: on a machine with more runnable threads
/// than cores, the thread it waits for may need that core.
const SPIN: Duration = Duration::from_micros(5);
/// How long a waiting thread waits (spinning, then yielding) before it parks:
/// longer than the host work between two launches of a simulation loop and
/// than the usual imbalance of the runners' last pieces.
const PARK_AFTER: Duration = Duration::from_micros(150);

/// Waits until `done()` holds: spins for [`SPIN`] (reading the clock every 64th
/// check), then yields between checks, then after [`PARK_AFTER`] parks with
/// `parked` set, so that whoever makes `done()` true and then sees `parked`
/// unparks this thread.
fn wait_for(done: impl Fn() -> bool, parked: &AtomicBool) {
    let start = Instant::now();
    let mut checks = 0u32;
    let mut yielding = false;
    while !done() {
        checks = checks.wrapping_add(1);
        if yielding || checks.is_multiple_of(64) {
            let waited = start.elapsed();
            if waited > PARK_AFTER {
                parked.store(true, Ordering::SeqCst);
                // `done` is re-read after the flag is set: a waker that changed
                // it before seeing the flag would not unpark us.
                while !done() {
                    std::thread::park();
                }
                parked.store(false, Ordering::SeqCst);
                return;
            }
            yielding = waited > SPIN;
        }
        if yielding {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// A job: the function each runner calls with its index. The lifetime is erased;
/// [`Team::try_run`] does not return before every helper has finished calling it.
type Job = *const (dyn Fn(usize) + Sync + 'static);

/// What the launching thread and the helpers share.
struct Shared {
    /// Bumped after `job` is set: a helper that sees a new value runs it.
    generation: AtomicU64,
    /// The current job and the thread that launched it; written only by the
    /// team's lock holder before it bumps `generation`, read by helpers after
    /// they see the bump and before they report done.
    job: UnsafeCell<Option<(Job, Thread)>>,
    /// Helpers that have not finished the current job.
    pending: AtomicUsize,
    /// Whether the launching thread is parked waiting for `pending` to reach 0.
    leader_parked: AtomicBool,
    /// The first panic of a helper in the current job.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `job` is written only while no helper reads it (before the generation
// bump that publishes it, after every helper of the previous job has finished),
// and the function it points to is `Sync`.
unsafe impl Sync for Shared {}

/// One helper thread: its handle (to unpark it) and whether it is parked.
struct Helper {
    thread: Thread,
    parked: AtomicBool,
}

/// The helper threads and the lock that gives one launch at a time the team.
pub(crate) struct Team {
    shared: &'static Shared,
    helpers: Vec<&'static Helper>,
    lock: Mutex<()>,
}

/// The team, made on first use with `runners - 1` helpers.
static TEAM: OnceLock<Team> = OnceLock::new();

impl Team {
    /// The team for `runners` runners (the calling thread and `runners - 1`
    /// helpers), or `None` when the team that exists has another size.
    pub(crate) fn get(runners: usize) -> Option<&'static Team> {
        let team = TEAM.get_or_init(|| Team::new(runners - 1));
        (team.helpers.len() + 1 == runners).then_some(team)
    }

    fn new(helpers: usize) -> Team {
        let shared: &'static Shared = Box::leak(Box::new(Shared {
            generation: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            pending: AtomicUsize::new(0),
            leader_parked: AtomicBool::new(false),
            panic: Mutex::new(None),
        }));
        let helpers = (1..=helpers)
            .map(|r| {
                let slot: &'static OnceLock<&'static Helper> = Box::leak(Box::new(OnceLock::new()));
                let handle = std::thread::Builder::new()
                    .name(format!("weft-cpu-{r}"))
                    .spawn(move || helper_loop(shared, slot.wait(), r))
                    .expect("spawning a CPU helper thread");
                let helper: &'static Helper = Box::leak(Box::new(Helper {
                    thread: handle.thread().clone(),
                    parked: AtomicBool::new(false),
                }));
                let _ = slot.set(helper);
                helper
            })
            .collect();
        Team {
            shared,
            helpers,
            lock: Mutex::new(()),
        }
    }

    /// Calls `f(r)` for every runner `r`: `f(0)` on the calling thread, the others
    /// on the helpers; returns when all have returned, resuming the first panic.
    /// Returns `false` without calling anything when another launch holds the team.
    pub(crate) fn try_run(&self, f: &(dyn Fn(usize) + Sync)) -> bool {
        let _guard = match self.lock.try_lock() {
            Ok(g) => g,
            // A panic resumed by an earlier run poisons nothing the team relies on.
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        let s = self.shared;
        // SAFETY: erasing the lifetime is sound because this function waits below
        // until no helper uses the job any more.
        let job: Job = unsafe {
            std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), Job>(f as *const _)
        };
        // SAFETY: we hold the team's lock and the previous job's helpers have all
        // finished with it (`pending` was 0 when that run returned).
        unsafe { *s.job.get() = Some((job, std::thread::current())) };
        s.pending.store(self.helpers.len(), Ordering::SeqCst);
        s.generation.fetch_add(1, Ordering::SeqCst);
        for h in &self.helpers {
            if h.parked.load(Ordering::SeqCst) {
                h.thread.unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| f(0)));
        wait_for(|| s.pending.load(Ordering::SeqCst) == 0, &s.leader_parked);
        let theirs = s.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Err(p) = mine {
            resume_unwind(p);
        }
        if let Some(p) = theirs {
            resume_unwind(p);
        }
        true
    }
}

/// A helper's life: wait for a new generation, run the job as runner `r`, report.
fn helper_loop(s: &'static Shared, me: &'static Helper, r: usize) {
    // The team starts at generation 0: a job published before this thread first
    // looks is still seen as new.
    let mut seen = 0;
    loop {
        wait_for(|| s.generation.load(Ordering::SeqCst) != seen, &me.parked);
        seen = s.generation.load(Ordering::SeqCst);
        // SAFETY: the job was written before the generation bump we saw, and stays
        // until we report done (the launching thread waits for us).
        let (job, leader) = unsafe { (*s.job.get()).clone().expect("a published job") };
        // SAFETY: as above.
        let f = unsafe { &*job };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(r))) {
            let mut slot = s.panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(p);
        }
        // The last helper wakes the launching thread if it has parked (an unpark
        // of a later launch's thread is only a spurious wake-up).
        if s.pending.fetch_sub(1, Ordering::SeqCst) == 1 && s.leader_parked.load(Ordering::SeqCst) {
            leader.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runner_runs_once_per_job_and_its_writes_are_seen() {
        let team = Team::new(3);
        let hits: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
        for job in 1..=50 {
            assert!(team.try_run(&|r| {
                // Now and then a helper outlasts the caller's spin, so that the
                // caller parks and is woken by it.
                if job % 7 == 0 && r == 2 {
                    std::thread::sleep(PARK_AFTER * 3);
                }
                hits[r].fetch_add(1, Ordering::Relaxed);
            }));
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == job));
            // Let the helpers park now and then, so that jobs also wake parked helpers.
            if job % 10 == 0 {
                std::thread::sleep(PARK_AFTER * 3);
            }
        }
    }

    #[test]
    fn a_helper_panic_is_resumed_and_the_team_still_works() {
        let team = Team::new(2);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.try_run(&|r| {
                if r == 2 {
                    panic!("runner two");
                }
            })
        }));
        let msg = caught.expect_err("the panic reaches the caller");
        assert_eq!(msg.downcast_ref::<&str>(), Some(&"runner two"));
        let hits = AtomicUsize::new(0);
        assert!(team.try_run(&|_| {
            hits.fetch_add(1, Ordering::Relaxed);
        }));
        assert_eq!(hits.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_busy_team_declines() {
        let team = Team::new(1);
        let inner = AtomicBool::new(true);
        assert!(team.try_run(&|r| {
            if r == 0 {
                inner.store(team.try_run(&|_| {}), Ordering::Relaxed);
            }
        }));
        assert!(!inner.load(Ordering::Relaxed), "a nested run is declined");
    }
}
