//! A team of persistent helper threads for parallel launches, handing work over
//! through shared atomics. A fork-join through rayon's scope costs ~15 µs on the
//! 2-core development VM when the worker has gone to sleep (it is woken through
//! the kernel, and so is the caller waiting for it); here a waiting thread — an
//! idle helper, or the launching thread waiting for the helpers — spins for up
//! to 50 µs before it parks, so launches made back to back (a simulation's
//! substeps) hand over in ~1 µs. The spin adapts (see [`wait_for`]): on a loaded
//! machine, where the waits are long, a waiter parks almost at once and the
//! cores go to threads with work. It never yields: under load a yield can hand
//! the core to another process for a whole time slice.
//!
//! One launch at a time uses the team; a launch that finds it busy (another
//! thread's launch), or that is made from inside rayon's pool (nested
//! parallelism, where rayon's work stealing is the right tool), runs through
//! rayon instead.

use std::any::Any;
use std::cell::UnsafeCell;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, TryLockError};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// The longest a waiting thread spins before it parks: longer than the host work
/// between two launches of a simulation loop and than the usual imbalance of the
/// runners' last pieces.
const MAX_SPIN_NS: u32 = 50_000;
/// The shortest spin: after waits that ended parked, a waiter spins about this
/// long (on a loaded machine, spinning takes the core from threads with work).
const MIN_SPIN_NS: u32 = 1_000;

/// Waits until `done()` holds: spins (reading the clock every 64th check) for up
/// to `*spin_ns`, then parks with `parked` set, so that whoever makes `done()`
/// true and then sees `parked` unparks this thread. The window adapts: doubled
/// after a wait that ended while spinning, halved after one that had to park, so
/// that a machine where waits are long (loaded, or launches far apart) spins
/// little and one where launches follow each other hands over without parking.
fn wait_for(done: impl Fn() -> bool, parked: &AtomicBool, spin_ns: &mut u32) {
    let start = Instant::now();
    let window = Duration::from_nanos(u64::from(*spin_ns));
    let mut checks = 0u32;
    while !done() {
        checks = checks.wrapping_add(1);
        if checks.is_multiple_of(64) && start.elapsed() > window {
            *spin_ns = (*spin_ns / 2).max(MIN_SPIN_NS);
            parked.store(true, Ordering::SeqCst);
            // `done` is re-read after the flag is set: a waker that changed it
            // before seeing the flag would not unpark us.
            while !done() {
                std::thread::park();
            }
            parked.store(false, Ordering::SeqCst);
            return;
        }
        std::hint::spin_loop();
    }
    *spin_ns = (*spin_ns * 2).min(MAX_SPIN_NS);
}

/// A job: the function each runner calls with its index. The lifetime is erased;
/// [`Team::try_run`] does not return while a helper may still call it.
type Job = *const (dyn Fn(usize) + Sync + 'static);

/// [`Shared::state`]: set once the launching thread has finished its part; no
/// helper joins the job after that.
const CLOSED: u64 = 1 << 31;
/// [`Shared::state`]: the helpers running the job.
const ACTIVE: u64 = CLOSED - 1;

/// What the launching thread and the helpers share.
struct Shared {
    /// The job's number (upper 32 bits), [`CLOSED`], and the number of helpers
    /// running it ([`ACTIVE`]). Storing a new number publishes a job; a helper
    /// joins by incrementing the count while the job is open and leaves by
    /// decrementing it.
    state: AtomicU64,
    /// The current job and the thread that launched it; written only by the
    /// team's lock holder before it publishes the job, read only by helpers that
    /// have joined it (the launching thread waits for them before it returns).
    job: UnsafeCell<Option<(Job, Thread)>>,
    /// Whether the launching thread is parked waiting for the helpers.
    leader_parked: AtomicBool,
    /// The launching thread's spin window (see [`wait_for`]); used only by the
    /// holder of the team's lock.
    leader_spin_ns: AtomicU32,
    /// The first panic of a helper in the current job.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: `job` is written only while no helper is joined (before the job is
// published, after every helper that joined the previous one has left), and the
// function it points to is `Sync`.
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
            state: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            leader_parked: AtomicBool::new(false),
            leader_spin_ns: AtomicU32::new(MAX_SPIN_NS),
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

    /// Calls `f(0)` on the calling thread and `f(r)` on each helper `r` that picks
    /// the job up before `f(0)` has returned; returns when all of those have
    /// returned, resuming the first panic. A helper that is late (descheduled on
    /// a loaded machine) is not waited for and does not call `f`: `f(0)` must be
    /// able to do all the work alone (the launches claim pieces from a shared
    /// counter). Returns `false` without calling anything when another launch
    /// holds the team.
    pub(crate) fn try_run(&self, f: &(dyn Fn(usize) + Sync)) -> bool {
        let _guard = match self.lock.try_lock() {
            Ok(g) => g,
            // A panic resumed by an earlier run poisons nothing the team relies on.
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => return false,
        };
        let s = self.shared;
        // SAFETY: erasing the lifetime is sound because this function waits below
        // until every helper that joined the job has left it, and none joins later.
        let job: Job = unsafe {
            std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), Job>(f as *const _)
        };
        // SAFETY: we hold the team's lock and no helper is joined (the previous
        // run waited for all that joined; its job was closed to the others).
        unsafe { *s.job.get() = Some((job, std::thread::current())) };
        let number = (s.state.load(Ordering::SeqCst) >> 32).wrapping_add(1) & 0xFFFF_FFFF;
        s.state.store(number << 32, Ordering::SeqCst);
        for h in &self.helpers {
            if h.parked.load(Ordering::SeqCst) {
                h.thread.unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| f(0)));
        if s.state.fetch_or(CLOSED, Ordering::SeqCst) & ACTIVE != 0 {
            let mut spin_ns = s.leader_spin_ns.load(Ordering::Relaxed);
            wait_for(
                || s.state.load(Ordering::SeqCst) & ACTIVE == 0,
                &s.leader_parked,
                &mut spin_ns,
            );
            s.leader_spin_ns.store(spin_ns, Ordering::Relaxed);
        }
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

/// A helper's life: wait for a new job, join it while it is open, run it as
/// runner `r`, leave.
fn helper_loop(s: &'static Shared, me: &'static Helper, r: usize) {
    // The team starts at job 0: a job published before this thread first looks
    // is still seen as new.
    let mut seen = 0;
    let mut spin_ns = MAX_SPIN_NS;
    loop {
        wait_for(
            || s.state.load(Ordering::SeqCst) >> 32 != seen,
            &me.parked,
            &mut spin_ns,
        );
        let mut state = s.state.load(Ordering::SeqCst);
        seen = state >> 32;
        let joined = loop {
            if state >> 32 != seen || state & CLOSED != 0 {
                break false;
            }
            match s.state.compare_exchange_weak(
                state,
                state + 1,
                Ordering::SeqCst,
                Ordering::SeqCst,
            ) {
                Ok(_) => break true,
                Err(now) => state = now,
            }
        };
        if !joined {
            // Closed before we came (or already replaced by a newer job, which
            // the next wait sees at once).
            continue;
        }
        // SAFETY: we have joined the open job, so it was published (written
        // before the state store we saw) and stays until we leave.
        let (job, leader) = unsafe { (*s.job.get()).clone().expect("a published job") };
        // SAFETY: as above.
        let f = unsafe { &*job };
        if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(r))) {
            let mut slot = s.panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(p);
        }
        // The last helper to leave a closed job wakes the launching thread if it
        // has parked (an unpark of a later launch's thread is only a spurious
        // wake-up).
        let before = s.state.fetch_sub(1, Ordering::SeqCst);
        if before & CLOSED != 0 && before & ACTIVE == 1 && s.leader_parked.load(Ordering::SeqCst) {
            leader.unpark();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// Runs a job of `items` pieces claimed from a shared counter, the way
    /// launches use the team; returns each piece's count and each runner's calls.
    fn claimed_job(team: &Team, items: usize, slow_helper: bool) -> (Vec<usize>, Vec<usize>) {
        let next = AtomicUsize::new(0);
        let done: Vec<AtomicUsize> = (0..items).map(|_| AtomicUsize::new(0)).collect();
        let calls: Vec<AtomicUsize> = (0..=team.helpers.len())
            .map(|_| AtomicUsize::new(0))
            .collect();
        assert!(team.try_run(&|r| {
            calls[r].fetch_add(1, Ordering::Relaxed);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items {
                    break;
                }
                // A helper that outlasts the caller's spin makes the caller park
                // and be woken by it.
                if slow_helper && r > 0 {
                    std::thread::sleep(Duration::from_nanos(3 * u64::from(MAX_SPIN_NS)));
                }
                done[i].fetch_add(1, Ordering::Relaxed);
            }
        }));
        let get = |v: Vec<AtomicUsize>| v.into_iter().map(AtomicUsize::into_inner).collect();
        (get(done), get(calls))
    }

    #[test]
    fn claimed_work_is_done_once_and_the_caller_always_runs() {
        let team = Team::new(3);
        for job in 0..60 {
            let (done, calls) = claimed_job(&team, 200, job % 7 == 3);
            assert!(done.iter().all(|&d| d == 1), "job {job}: every piece once");
            assert_eq!(calls[0], 1, "job {job}: the caller runs");
            assert!(calls.iter().all(|&c| c <= 1), "job {job}: {calls:?}");
            // Let the helpers park now and then, so that jobs also wake them.
            if job % 10 == 0 {
                std::thread::sleep(Duration::from_nanos(3 * u64::from(MAX_SPIN_NS)));
            }
        }
    }

    #[test]
    fn a_helper_that_joined_is_waited_for_and_its_panic_resumed() {
        let team = Team::new(1);
        let started = AtomicBool::new(false);
        let caught = catch_unwind(AssertUnwindSafe(|| {
            team.try_run(&|r| {
                if r == 1 {
                    started.store(true, Ordering::SeqCst);
                    std::thread::sleep(Duration::from_millis(2));
                    panic!("runner one");
                }
                // Keep the job open until the helper has joined.
                while !started.load(Ordering::SeqCst) {
                    std::hint::spin_loop();
                }
            })
        }));
        let msg = caught.expect_err("the panic reaches the caller");
        assert_eq!(msg.downcast_ref::<&str>(), Some(&"runner one"));
        let (done, _) = claimed_job(&team, 50, false);
        assert!(done.iter().all(|&d| d == 1), "the team still works");
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
