//! Privatised accumulation: a parallel CPU launch of a kernel that updates some
//! arrays only with `atomic_add`/`atomic_sub` gives each runner but the calling
//! thread a private zeroed copy of those arrays, which the kernel updates with
//! plain adds (the calling thread adds into the arrays themselves); the copies are
//! summed into the arrays at the end, in parallel over their elements.
//!
//! Float atomics on the CPU are compare-and-swap loops (three per `Vec3`), so this
//! is several times cheaper when many threads add into a destination not much
//! larger than the launch (forces of springs into particles). The results equal
//! the atomic path's up to the order of float additions (integers exactly); unlike
//! atomics, the order is fixed for a given runner count.
//!
//! Which arrays qualify is decided at compile time (`weft_ir::accumulate`): the
//! kernel must not read them, nor use the old values its atomics return, nor pass
//! them to funcs. Whether a launch privatises is decided here, by the
//! [`Accumulate`] policy.

use std::ops::Range;
use std::sync::Mutex;

use super::cost::LaunchCost;
use super::policy::{Accumulate, PRIVATE_RATIO, accumulate, count_privatised};
use super::pool::Buffer;
use super::runners::{self, Pieces};
use crate::{ArrayView, Dims, Summable};

/// A destination array of a launch that may be privatised, without its element
/// type (created by the generated launch code from the array's view).
#[doc(hidden)]
pub struct AccTarget {
    ptr: *mut u8,
    len: usize,
    bytes: usize,
    /// Adds the elements `range` of each source buffer into the destination.
    reduce: unsafe fn(dst: *mut u8, srcs: &[*const u8], range: Range<usize>),
}

// SAFETY: the pointer is only dereferenced by the launch that made the target, on
// the element ranges the launch hands each thread (see `launch_accumulate`).
unsafe impl Send for AccTarget {}
// SAFETY: as above.
unsafe impl Sync for AccTarget {}

impl AccTarget {
    /// The target for the array behind `view` (a null view — an absent gradient —
    /// is never privatised).
    pub fn new<T: Summable, const N: usize>(view: &ArrayView<T, N>) -> AccTarget {
        let len = if view.is_null() { 0 } else { view.len_usize() };
        AccTarget {
            ptr: view.ptr() as *mut u8,
            len,
            bytes: len * std::mem::size_of::<T>(),
            reduce: reduce::<T>,
        }
    }

    fn active(&self) -> bool {
        self.len > 0
    }
}

/// Adds `srcs[k][range]` into `dst[range]`, for each source in order.
///
/// # Safety
/// `dst` and every source must hold at least `range.end` elements of `T`, aligned;
/// no other thread may access `dst[range]` or write the sources meanwhile.
unsafe fn reduce<T: Summable>(dst: *mut u8, srcs: &[*const u8], range: Range<usize>) {
    let n = range.len();
    for s in srcs {
        // SAFETY: in bounds and exclusive by the caller's contract; a source is a
        // runner's buffer, never the destination array.
        unsafe {
            T::add_slices(
                (dst as *mut T).add(range.start),
                (*s as *const T).add(range.start),
                n,
            )
        };
    }
}

/// Where a runner's piece of a launch accumulates: for each target, a private
/// buffer, or the array itself (the calling thread's runner, or a launch on one
/// thread).
#[doc(hidden)]
pub struct Private<'a> {
    /// Per target: the buffer and its size in bytes (null: use the array).
    buffers: Option<&'a [(*mut u8, usize)]>,
}

impl Private<'_> {
    /// The view the kernel accumulates target `k` through: `array` redirected to
    /// this runner's buffer for it, or `array` itself.
    ///
    /// # Panics
    /// If `array` does not fit the buffer made for target `k` (generated code
    /// always passes the view the target was made from).
    #[inline]
    pub fn view<T: Summable, const N: usize>(
        &self,
        k: usize,
        array: ArrayView<T, N>,
    ) -> ArrayView<T, N> {
        let Some(buffers) = self.buffers else {
            return array;
        };
        let (ptr, bytes) = buffers[k];
        if ptr.is_null() {
            return array;
        }
        assert!(
            array.len_usize() * std::mem::size_of::<T>() <= bytes
                && (ptr as usize).is_multiple_of(std::mem::align_of::<T>()),
            "private buffer {k} does not fit its array"
        );
        array.retarget(ptr as *mut T)
    }
}

/// Runs `chunk` over the launch grid like [`super::launch`], for a kernel whose
/// `targets` may be accumulated privately. `chunk(range, Some(p))` must run the
/// kernel's plain-add variant with each target's view replaced by
/// `p.view(k, view)`; `chunk(range, None)` the atomic variant.
///
/// The policy ([`accumulate`]) decides: [`Accumulate::Never`] keeps atomics;
/// otherwise a launch that runs on the calling thread alone adds straight into the
/// arrays, and a parallel one privatises (for [`Accumulate::Auto`], when the
/// buffers are at most [`PRIVATE_RATIO`] times the launch size).
#[doc(hidden)]
pub fn launch_accumulate(
    dims: &Dims,
    cost: &LaunchCost,
    targets: &[AccTarget],
    chunk: &(dyn Fn(Range<usize>, Option<&Private>) + Sync),
) {
    let n = dims.total();
    let mode = accumulate();
    let atomics = |range| chunk(range, None);
    if mode == Accumulate::Never {
        return super::launch(dims, cost, &atomics);
    }
    let runners = runners::runner_count();
    let start = std::time::Instant::now();
    let plan = if runners <= 1 {
        None
    } else {
        super::cost::plan(n, cost, super::GRAIN.get())
    };
    let Some(min) = plan else {
        // One thread: nothing to race with, so plain adds into the arrays.
        chunk(0..n, Some(&Private { buffers: None }));
        if runners > 1 {
            cost.record(start.elapsed(), n, 1);
        }
        return;
    };
    let elems: usize = targets.iter().map(|t| t.len).sum();
    // Runner 0 adds straight into the arrays, the others into buffers.
    let buffered = runners - 1;
    if elems == 0 || (mode == Accumulate::Auto && elems * buffered > PRIVATE_RATIO * n) {
        // Nothing to privatise (absent gradients), or buffers too large to pay.
        return super::launch(dims, cost, &atomics);
    }
    count_privatised();
    // Targets naming the same array (two parameters sharing one gradient) share
    // one buffer per runner, and are summed once.
    let owner: Vec<usize> = (0..targets.len())
        .map(|k| {
            (0..k)
                .find(|&j| targets[j].active() && targets[j].ptr == targets[k].ptr)
                .unwrap_or(k)
        })
        .collect();
    let pieces = Pieces::with_min(n, runners, min);
    let slots: Vec<Mutex<Vec<Buffer>>> = (0..runners).map(|_| Mutex::new(Vec::new())).collect();
    runners::run(runners, &|r| {
        if r == 0 {
            // The calling thread adds straight into the arrays: during the launch
            // nothing else touches them (the kernel never reads them, the other
            // runners add into their own buffers), and it saves zeroing and
            // summing one buffer.
            let direct = Private { buffers: None };
            while let Some(range) = pieces.claim() {
                chunk(range, Some(&direct));
            }
            return;
        }
        let Some(first) = pieces.claim() else {
            return; // the others took every piece: no buffers to zero or sum
        };
        let mut owned = Vec::with_capacity(targets.len());
        let mut buffers: Vec<(*mut u8, usize)> = Vec::with_capacity(targets.len());
        for (k, t) in targets.iter().enumerate() {
            if !t.active() {
                buffers.push((std::ptr::null_mut(), 0));
            } else if owner[k] != k {
                buffers.push(buffers[owner[k]]);
            } else {
                let mut b = Buffer::zeroed(t.bytes);
                buffers.push((b.as_mut_ptr(), t.bytes));
                owned.push(b);
            }
        }
        let private = Private {
            buffers: Some(&buffers),
        };
        chunk(first, Some(&private));
        while let Some(range) = pieces.claim() {
            chunk(range, Some(&private));
        }
        *slots[r].lock().unwrap_or_else(|e| e.into_inner()) = owned;
    });
    let used: Vec<Vec<Buffer>> = slots
        .into_iter()
        .map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
        .filter(|b| !b.is_empty())
        .collect();
    sum_into_targets(targets, &owner, used, runners);
    cost.record(start.elapsed(), n, runners);
}

/// One target's share of the final sum: the runners' buffers for it, in runner
/// order.
struct Sum<'a> {
    target: &'a AccTarget,
    srcs: Vec<*const u8>,
}

// SAFETY: the pointers are to the runners' buffers, only read while summing, and
// kept alive by `sum_into_targets` until every runner has finished.
unsafe impl Sync for Sum<'_> {}

/// Sums the buffered runners' buffers (`used[runner]`: one per target that owns a
/// buffer, in target order) into the targets, in parallel over element ranges.
fn sum_into_targets(
    targets: &[AccTarget],
    owner: &[usize],
    mut used: Vec<Vec<Buffer>>,
    runners: usize,
) {
    let mut sums: Vec<Sum> = Vec::new();
    for (k, target) in targets.iter().enumerate() {
        if target.active() && owner[k] == k {
            let b = sums.len();
            let srcs = used
                .iter_mut()
                .map(|u| u[b].as_mut_ptr() as *const u8)
                .collect();
            sums.push(Sum { target, srcs });
        }
    }
    let longest = sums.iter().map(|s| s.target.len).max().unwrap_or(0);
    // Summing costs about one plain add per element and buffer.
    let work = longest * (used.len() + 1);
    let runners = if work < 2 * super::SERIAL_BELOW {
        1
    } else {
        runners
    };
    let pieces = Pieces::new(longest, runners);
    let parts = pieces.count();
    let sums = &sums;
    runners::run(runners, &|_| {
        while let Some(p) = pieces.claim_index() {
            for s in sums {
                // Part `p` of every target covers the same fraction of it.
                let len = s.target.len;
                let range = (len * p / parts)..(len * (p + 1) / parts);
                // SAFETY: each buffer holds `len` elements of the target's type
                // (made from `target.bytes`); the kernel has finished, so the
                // buffers are only read, and each part of each target is summed by
                // exactly one runner. Distinct targets are distinct arrays: the
                // writable arrays of a launch are borrowed exclusively, and targets
                // naming one gradient array were merged (`owner`).
                unsafe { (s.target.reduce)(s.target.ptr, &s.srcs, range) };
            }
        }
    });
    drop(used); // the buffers go back to the pool
}
