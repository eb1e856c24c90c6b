//! One primary context and one stream per device, created on first use and kept
//! for the life of the process.

use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use cudarc::driver::{CudaContext, CudaStream, result, sys};

use super::driver::{err, fail, probe};
use super::module::{FnKey, Func, ModKey, Module};
use super::record;
use super::{DeviceInfo, device_count};
use crate::Error;

/// Everything Weft keeps for one CUDA device.
pub(crate) struct Dev {
    pub(crate) ordinal: usize,
    pub(crate) ctx: Arc<CudaContext>,
    /// The stream every launch, copy and memset of this device is queued on.
    pub(crate) stream: Arc<CudaStream>,
    /// The stream a [`super::Graph::capture`] records on (redirected per thread).
    pub(crate) capture_stream: Arc<CudaStream>,
    /// Whether stream-ordered allocation (`cuMemAllocAsync`) is supported.
    pub(crate) async_alloc: bool,
    /// Loaded PTX modules, keyed by the text's address and length.
    pub(crate) modules: Mutex<HashMap<ModKey, Module>>,
    /// Kernel entry points, keyed by module and entry name.
    pub(crate) functions: Mutex<HashMap<FnKey, Func>>,
    /// The device error record ([`record::ERROR_RECORD`]).
    pub(crate) record: u64,
    /// Pinned host memory the record is copied into on synchronisation.
    record_host: *mut u8,
    record_lock: Mutex<()>,
    /// Set by every launch: the record must be read at the next synchronisation.
    pub(crate) dirty: AtomicBool,
}

// SAFETY: the raw pointers are a device address and a pinned host allocation that
// live as long as the process; the host one is only touched under `record_lock`.
unsafe impl Send for Dev {}
// SAFETY: as above; everything else is synchronised (atomics, mutexes, the driver).
unsafe impl Sync for Dev {}

/// A device's state, created on first use (checks that the ordinal exists).
pub(crate) fn device(ordinal: usize) -> Result<&'static Dev, Error> {
    type Slot = OnceLock<Result<&'static Dev, Error>>;
    static DEVICES: OnceLock<Box<[Slot]>> = OnceLock::new();
    let n = device_count().map_err(|e| match e {
        Error::Cuda { reason, .. } => fail(format!("use cuda:{ordinal}"), reason),
        e => e,
    })?;
    if ordinal >= n {
        return Err(fail(
            format!("cuda:{ordinal}"),
            format!(
                "no such device: {n} CUDA device{} present (cuda:0{})",
                if n == 1 { " is" } else { "s are" },
                if n > 1 {
                    format!(" to cuda:{}", n - 1)
                } else {
                    String::new()
                }
            ),
        ));
    }
    let slots = DEVICES.get_or_init(|| (0..n).map(|_| OnceLock::new()).collect());
    slots[ordinal]
        .get_or_init(|| Dev::new(ordinal).map(|d| &*Box::leak(Box::new(d))))
        .clone()
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Dev {
    fn new(ordinal: usize) -> Result<Dev, Error> {
        debug_assert!(probe().is_ok());
        let what = format!("initialise cuda:{ordinal}");
        let ctx = CudaContext::new(ordinal).map_err(|e| err(&what, e))?;
        // Weft orders work itself (one stream per device); cudarc's per-allocation
        // event tracking is for its own slices, which Weft does not use.
        // SAFETY: no cudarc slices are created on this context.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(|e| err(&what, e))?;
        let capture_stream = ctx.new_stream().map_err(|e| err(&what, e))?;
        let async_alloc = ctx.has_async_alloc();
        if async_alloc {
            // Keep freed memory in the pool instead of returning it to the driver at
            // every synchronisation, so allocation in a loop stays cheap.
            // SAFETY: the device handle is valid; the attribute takes a u64.
            unsafe {
                if let Ok(pool) = result::device::get_default_mem_pool(ctx.cu_device()) {
                    let mut threshold = u64::MAX;
                    let _ = sys::cuMemPoolSetAttribute(
                        pool,
                        sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                        &mut threshold as *mut u64 as *mut c_void,
                    );
                }
            }
        }
        // SAFETY: plain allocations on the current (just bound) context.
        let (record, record_host) = unsafe {
            let rec = result::malloc_sync(record::ERROR_RECORD_BYTES)
                .map_err(|e| err(format!("allocate the error record of cuda:{ordinal}"), e))?;
            result::memset_d8_sync(rec, 0, record::ERROR_RECORD_BYTES)
                .map_err(|e| err(format!("clear the error record of cuda:{ordinal}"), e))?;
            let host = result::malloc_host(record::ERROR_RECORD_BYTES, 0)
                .map_err(|e| err(format!("allocate pinned memory on cuda:{ordinal}"), e))?;
            std::ptr::write_bytes(host as *mut u8, 0, record::ERROR_RECORD_BYTES);
            (rec, host as *mut u8)
        };
        Ok(Dev {
            ordinal,
            ctx,
            stream,
            capture_stream,
            async_alloc,
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            record,
            record_host,
            record_lock: Mutex::new(()),
            dirty: AtomicBool::new(false),
        })
    }

    /// Makes this device's context current on the calling thread.
    #[inline]
    pub(crate) fn bind(&self) -> Result<(), Error> {
        self.ctx.bind_to_thread().map_err(|e| {
            err(
                format!("make the context of cuda:{} current", self.ordinal),
                e,
            )
        })
    }

    /// The stream work from this thread goes to: the capture stream while this
    /// thread captures a graph on this device, else the device's stream.
    #[inline]
    pub(crate) fn work_stream(&self) -> sys::CUstream {
        if capturing_on(self.ordinal) {
            self.capture_stream.cu_stream()
        } else {
            self.stream.cu_stream()
        }
    }

    /// Fails if this thread is capturing a graph on this device (for operations
    /// that cannot be recorded: waiting, reading back, allocating).
    pub(crate) fn not_capturing(&self, what: impl FnOnce() -> String) -> Result<(), Error> {
        if capturing_on(self.ordinal) {
            Err(fail(
                what(),
                "not allowed inside `Graph::capture`: captured work only runs when the graph is launched; allocate arrays before capturing and read results after `Graph::launch`",
            ))
        } else {
            Ok(())
        }
    }

    /// Waits for the device's stream, then checks the error record.
    pub(crate) fn synchronize(&self) -> Result<(), Error> {
        let what = || format!("synchronize cuda:{}", self.ordinal);
        self.not_capturing(what)?;
        self.bind()?;
        let _g = lock(&self.record_lock);
        let dirty = self.dirty.swap(false, Ordering::AcqRel);
        let stream = self.stream.cu_stream();
        if dirty {
            // SAFETY: both buffers hold ERROR_RECORD_BYTES and live forever; the
            // host one is only used under `record_lock`.
            unsafe {
                sys::cuMemcpyDtoHAsync_v2(
                    self.record_host as *mut c_void,
                    self.record,
                    record::ERROR_RECORD_BYTES,
                    stream,
                )
                .result()
                .map_err(|e| err(what(), e))?;
            }
        }
        self.stream.synchronize().map_err(|e| err(what(), e))?;
        if dirty {
            let mut bytes = [0u8; record::ERROR_RECORD_BYTES];
            // SAFETY: the copy above completed (the stream is synchronised).
            unsafe {
                std::ptr::copy_nonoverlapping(
                    self.record_host as *const u8,
                    bytes.as_mut_ptr(),
                    bytes.len(),
                )
            };
            if let Some(e) = record::decode(&bytes) {
                // Clear the record for the next report (ordered before any later work).
                // SAFETY: the record is a live allocation of that size.
                unsafe {
                    result::memset_d8_async(self.record, 0, record::ERROR_RECORD_BYTES, stream)
                        .map_err(|e| err(what(), e))?;
                }
                return Err(e);
            }
        }
        Ok(())
    }

    /// The number of multiprocessors (queried once).
    pub(crate) fn multiprocessors(&self) -> Result<u32, Error> {
        static SMS: OnceLock<Mutex<HashMap<usize, u32>>> = OnceLock::new();
        let map = SMS.get_or_init(Default::default);
        if let Some(n) = map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&self.ordinal)
        {
            return Ok(*n);
        }
        let n = self
            .ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| err(format!("query cuda:{}", self.ordinal), e))?;
        let n = u32::try_from(n).unwrap_or(1).max(1);
        map.lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(self.ordinal, n);
        Ok(n)
    }

    pub(crate) fn info(&self) -> Result<DeviceInfo, Error> {
        let what = || format!("query cuda:{}", self.ordinal);
        let name = self.ctx.name().map_err(|e| err(what(), e))?;
        let compute_capability = self.ctx.compute_capability().map_err(|e| err(what(), e))?;
        let total_memory = self.ctx.total_mem().map_err(|e| err(what(), e))?;
        let multiprocessors = self
            .ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| err(what(), e))?;
        Ok(DeviceInfo {
            ordinal: self.ordinal,
            name,
            compute_capability,
            total_memory,
            multiprocessors,
        })
    }
}

// ----- graph capture state of the calling thread ---------------------------------------

/// What a graph capture on this thread collects.
pub(crate) struct Capture {
    /// Handles kept alive for as long as the graph (arrays its launches use).
    pub(crate) keep: Vec<Box<dyn Any + Send + Sync>>,
    /// Device allocations dropped during the capture: freed with the graph.
    pub(crate) frees: Vec<u64>,
}

thread_local! {
    /// `ordinal + 1` of the device this thread is capturing on, or 0.
    static CAPTURING: Cell<usize> = const { Cell::new(0) };
    static CAPTURE: RefCell<Option<Capture>> = const { RefCell::new(None) };
}

/// Whether this thread is capturing a graph on device `ordinal`.
#[inline]
pub(crate) fn capturing_on(ordinal: usize) -> bool {
    CAPTURING.with(|c| c.get() == ordinal + 1)
}

/// Whether this thread is capturing a graph on any device.
pub(crate) fn capturing_any() -> bool {
    CAPTURING.with(|c| c.get() != 0)
}

/// Starts collecting for a capture on `ordinal` (the caller checked none is active).
pub(crate) fn start_capture(ordinal: usize) {
    CAPTURING.with(|c| c.set(ordinal + 1));
    CAPTURE.with(|c| {
        *c.borrow_mut() = Some(Capture {
            keep: Vec::new(),
            frees: Vec::new(),
        })
    });
}

/// Stops the capture on this thread and returns what it collected.
pub(crate) fn stop_capture() -> Capture {
    CAPTURING.with(|c| c.set(0));
    CAPTURE.with(|c| c.borrow_mut().take()).unwrap_or(Capture {
        keep: Vec::new(),
        frees: Vec::new(),
    })
}

/// Runs `f` on the active capture of this thread, if any.
pub(crate) fn with_capture<R>(f: impl FnOnce(&mut Capture) -> R) -> Option<R> {
    CAPTURE.with(|c| c.borrow_mut().as_mut().map(f))
}
