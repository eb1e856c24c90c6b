//! The accumulation policy of CPU launches: whether arrays that a kernel only
//! updates with `atomic_add`/`atomic_sub` are accumulated privately (see
//! [`super::launch_accumulate`]) or with atomics.

use std::cell::Cell;
use std::sync::atomic::{AtomicU8, Ordering};

/// How CPU launches accumulate into arrays that a kernel only updates with
/// `atomic_add` / `atomic_sub` (and whose old values it does not use).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Accumulate {
    /// Privatise when it is likely to pay: the launch runs in parallel and the
    /// destination arrays are not much larger than the launch (see
    /// [`PRIVATE_RATIO`]).
    #[default]
    Auto,
    /// Privatise every parallel launch that has such arrays, whatever their size.
    Always,
    /// Keep the atomics (the behaviour of a GPU).
    Never,
}

/// [`Accumulate::Auto`] privatises a parallel launch when the private buffers it
/// may zero and sum — the destination arrays' total element count times the
/// number of runners (threads that take pieces of the launch) other than the
/// calling thread, which adds into the arrays themselves — are at most this many
/// times the launch's thread count. Zeroing and summing an element costs
/// about as much as one kernel thread's plain add; a float atomic add costs
/// several (a compare-and-swap loop per component), so buffers up to a few times
/// the launch size still win.
pub const PRIVATE_RATIO: usize = 4;

/// The process-wide policy, as a `u8` (see [`encode`]).
static GLOBAL: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// The scoped policy of [`with_accumulate`] on this thread, if any.
    static SCOPED: Cell<Option<Accumulate>> = const { Cell::new(None) };
    /// Privatised launches made from this thread.
    static PRIVATISED: Cell<u64> = const { Cell::new(0) };
}

fn encode(m: Accumulate) -> u8 {
    match m {
        Accumulate::Auto => 0,
        Accumulate::Always => 1,
        Accumulate::Never => 2,
    }
}

fn decode(b: u8) -> Accumulate {
    match b {
        1 => Accumulate::Always,
        2 => Accumulate::Never,
        _ => Accumulate::Auto,
    }
}

/// Sets the process-wide accumulation policy (the default is [`Accumulate::Auto`]).
/// A [`with_accumulate`] scope on the launching thread takes precedence.
pub fn set_accumulate(mode: Accumulate) {
    GLOBAL.store(encode(mode), Ordering::Relaxed);
}

/// The policy launches made from this thread use now: the innermost
/// [`with_accumulate`] scope's, else the process-wide one.
pub fn accumulate() -> Accumulate {
    SCOPED
        .with(Cell::get)
        .unwrap_or_else(|| decode(GLOBAL.load(Ordering::Relaxed)))
}

/// Runs `f` with launches made from this thread using `mode` (other threads are
/// not affected); the previous policy is restored afterwards, also when `f` panics.
pub fn with_accumulate<R>(mode: Accumulate, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Accumulate>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SCOPED.with(|s| s.set(self.0));
        }
    }
    let _restore = Restore(SCOPED.with(|s| s.replace(Some(mode))));
    f()
}

/// How many launches made from this thread have accumulated into private buffers
/// (a launch counts once, however many arrays it privatised). Tests use it to
/// check which path a launch took.
pub fn privatised_launches() -> u64 {
    PRIVATISED.with(Cell::get)
}

/// Counts one privatised launch on this thread.
pub(crate) fn count_privatised() {
    PRIVATISED.with(|c| c.set(c.get() + 1));
}
