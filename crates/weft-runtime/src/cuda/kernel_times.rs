//! Per-kernel GPU times: which kernels a piece of work spends its device time in.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use cudarc::driver::{CudaEvent, sys};

use super::context::Dev;
use super::driver::err;
use crate::Error;

static ON: AtomicBool = AtomicBool::new(false);

/// The launches timed since the last [`kernel_times`]: kernel, start, end.
static TIMED: Mutex<Vec<(&'static str, CudaEvent, CudaEvent)>> = Mutex::new(Vec::new());

/// The device time of one kernel over the launches timed.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelTime {
    /// The kernel's entry name.
    pub kernel: &'static str,
    /// Launches timed.
    pub launches: usize,
    /// Milliseconds between each launch's start and end events, summed.
    pub ms: f64,
}

/// Turns per-kernel timing on or off (off by default). While on, every launch
/// outside [`super::Graph::capture`] is bracketed by two events on the device's
/// stream (costing a few microseconds of host time per launch), and
/// [`kernel_times`] sums them per kernel. For finding the slow kernel of a step;
/// graph replays, not these sums, give the step's time.
///
/// ```no_run
/// use weft_runtime::cuda;
/// cuda::set_kernel_timing(true);
/// // ... launches ...
/// for k in cuda::kernel_times()? {
///     println!("{:>8.3} ms {:>6} × {}", k.ms, k.launches, k.kernel);
/// }
/// # Ok::<(), weft_runtime::Error>(())
/// ```
pub fn set_kernel_timing(on: bool) {
    ON.store(on, Ordering::Relaxed);
}

/// Whether launches are being timed ([`set_kernel_timing`]).
pub fn kernel_timing() -> bool {
    ON.load(Ordering::Relaxed)
}

/// Waits for the launches timed since the last call and returns their device
/// time per kernel, the slowest first.
pub fn kernel_times() -> Result<Vec<KernelTime>, Error> {
    let timed = std::mem::take(&mut *TIMED.lock().unwrap_or_else(|e| e.into_inner()));
    let mut sums: HashMap<&'static str, (usize, f64)> = HashMap::new();
    for (kernel, start, end) in &timed {
        end.synchronize()
            .map_err(|e| err(format!("wait for the end of kernel `{kernel}`"), e))?;
        let ms = start
            .elapsed_ms(end)
            .map_err(|e| err(format!("time kernel `{kernel}`"), e))?;
        let s = sums.entry(kernel).or_default();
        s.0 += 1;
        s.1 += ms as f64;
    }
    let mut out: Vec<KernelTime> = sums
        .into_iter()
        .map(|(kernel, (launches, ms))| KernelTime {
            kernel,
            launches,
            ms,
        })
        .collect();
    out.sort_by(|a, b| b.ms.total_cmp(&a.ms).then(a.kernel.cmp(b.kernel)));
    Ok(out)
}

/// An event recorded now on `dev`'s stream, if launches are timed and this
/// thread is not capturing a graph.
pub(crate) fn mark(dev: &Dev) -> Result<Option<CudaEvent>, Error> {
    if !kernel_timing() || super::capturing_on(dev.ordinal) {
        return Ok(None);
    }
    let what = || format!("time a launch on cuda:{}", dev.ordinal);
    let event = dev
        .ctx
        .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
        .map_err(|e| err(what(), e))?;
    event.record(&dev.stream).map_err(|e| err(what(), e))?;
    Ok(Some(event))
}

/// Keeps the launch of `kernel` between `start` and an end event recorded now.
pub(crate) fn close(
    dev: &Dev,
    kernel: &'static str,
    start: Option<CudaEvent>,
) -> Result<(), Error> {
    if let Some(start) = start
        && let Some(end) = mark(dev)?
    {
        TIMED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((kernel, start, end));
    }
    Ok(())
}
