//! Device allocations and the copies between them and the host.
//!
//! All of a device's memory operations are ordered on its stream: allocation and
//! release are stream-ordered (`cuMemAllocAsync` / `cuMemFreeAsync` where the
//! device supports them), so dropping an array while a kernel that uses it is still
//! queued is safe, and a copy back to the host waits for the kernels before it.

use std::ffi::c_void;

use cudarc::driver::{result, sys};

use super::context::{Dev, capturing_on, device, with_capture};
use super::driver::{err, fail};
use crate::Error;

/// One device allocation, freed (stream-ordered) on drop.
pub(crate) struct DeviceMem {
    ptr: u64,
    bytes: usize,
    dev: &'static Dev,
}

impl std::fmt::Debug for DeviceMem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceMem(cuda:{} {:#x}, {} bytes)",
            self.dev.ordinal, self.ptr, self.bytes
        )
    }
}

fn human(bytes: usize) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = bytes as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{bytes} bytes")
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

impl DeviceMem {
    /// `bytes` of uninitialised memory on device `ordinal` (no allocation for 0).
    pub(crate) fn alloc(ordinal: usize, bytes: usize) -> Result<DeviceMem, Error> {
        let dev = device(ordinal)?;
        let what = || format!("allocate {} on cuda:{ordinal}", human(bytes));
        dev.not_capturing(what)?;
        if bytes == 0 {
            return Ok(DeviceMem { ptr: 0, bytes, dev });
        }
        dev.bind()?;
        // SAFETY: the context is current; the memory is only used through this handle.
        let ptr = unsafe {
            if dev.async_alloc {
                result::malloc_async(dev.stream.cu_stream(), bytes)
            } else {
                result::malloc_sync(bytes)
            }
        }
        .map_err(|e| err(what(), e))?;
        Ok(DeviceMem { ptr, bytes, dev })
    }

    /// The device address (0 for an empty allocation).
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }

    /// The device's ordinal.
    pub(crate) fn ordinal(&self) -> usize {
        self.dev.ordinal
    }

    /// The device.
    pub(crate) fn dev(&self) -> &'static Dev {
        self.dev
    }
}

impl Drop for DeviceMem {
    fn drop(&mut self) {
        if self.ptr == 0 {
            return;
        }
        if capturing_on(self.dev.ordinal) {
            // A graph being captured may use this memory: free it with the graph.
            if with_capture(|c| c.frees.push(self.ptr)).is_some() {
                return;
            }
        }
        free(self.dev, self.ptr);
    }
}

/// Releases an allocation (stream-ordered where supported); errors are ignored, as
/// in any destructor (a failing free means the context is already lost).
pub(crate) fn free(dev: &Dev, ptr: u64) {
    if dev.bind().is_err() {
        return;
    }
    // SAFETY: `ptr` came from `alloc` on this device and is released once; the
    // stream-ordered free waits for the work queued before it.
    unsafe {
        let _ = if dev.async_alloc {
            result::free_async(ptr, dev.stream.cu_stream())
        } else {
            result::free_sync(ptr)
        };
    }
}

/// Copies `bytes` from host memory at `src` to device address `dst` (queued).
///
/// # Safety
/// `src` must be valid for reads of `bytes`; `dst` a live allocation of `dev` of at
/// least `bytes`.
pub(crate) unsafe fn htod(
    dev: &Dev,
    dst: u64,
    src: *const u8,
    bytes: usize,
    what: impl Fn() -> String,
) -> Result<(), Error> {
    if bytes == 0 {
        return Ok(());
    }
    // A captured copy would read the host buffer again at every replay.
    dev.not_capturing(&what)?;
    dev.bind()?;
    // From pageable memory the driver stages the data before returning, so `src` may
    // be reused at once.
    // SAFETY: per the contract above.
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(dst, src as *const c_void, bytes, dev.stream.cu_stream())
            .result()
            .map_err(|e| err(what(), e))
    }
}

/// Copies `bytes` from device address `src` to host memory at `dst` and waits for
/// it (and everything queued before it), checking the error record.
///
/// # Safety
/// `dst` must be valid for writes of `bytes`; `src` a live allocation of `dev`.
pub(crate) unsafe fn dtoh(
    dev: &Dev,
    dst: *mut u8,
    src: u64,
    bytes: usize,
    what: impl Fn() -> String,
) -> Result<(), Error> {
    dev.not_capturing(&what)?;
    dev.bind()?;
    // Straight from and to pageable memory: measured on the H200 machine at 12.6–14.6
    // GB/s into memory already touched, twice what a copy through two pinned
    // 8 MiB staging buffers reached (6–7.6 GB/s).
    if bytes > 0 {
        // SAFETY: per the contract above.
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, bytes, dev.stream.cu_stream())
                .result()
                .map_err(|e| err(what(), e))?;
        }
    }
    dev.synchronize()
}

/// Copies `bytes` between two allocations of one device (queued; recorded into a
/// graph under capture).
///
/// # Safety
/// Both addresses must be live allocations of `dev` of at least `bytes`.
pub(crate) unsafe fn dtod(
    dev: &Dev,
    dst: u64,
    src: u64,
    bytes: usize,
    what: impl Fn() -> String,
) -> Result<(), Error> {
    if bytes == 0 {
        return Ok(());
    }
    dev.bind()?;
    // SAFETY: per the contract above.
    unsafe {
        sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, dev.work_stream())
            .result()
            .map_err(|e| err(what(), e))
    }
}

/// Copies `bytes` from an allocation of `src_dev` to one of `dst_dev` (another
/// device) and waits for the copy.
///
/// # Safety
/// Both addresses must be live allocations of their devices of at least `bytes`.
pub(crate) unsafe fn peer(
    dst_dev: &Dev,
    dst: u64,
    src_dev: &Dev,
    src: u64,
    bytes: usize,
    what: impl Fn() -> String,
) -> Result<(), Error> {
    dst_dev.not_capturing(&what)?;
    src_dev.not_capturing(&what)?;
    // The source's pending writes first.
    src_dev.synchronize()?;
    if bytes > 0 {
        dst_dev.bind()?;
        // SAFETY: per the contract above.
        unsafe {
            result::memcpy_peer_async(
                dst_dev.ctx.cu_ctx(),
                dst,
                src_dev.ctx.cu_ctx(),
                src,
                bytes,
                dst_dev.stream.cu_stream(),
            )
            .map_err(|e| err(what(), e))?;
        }
    }
    dst_dev.synchronize()
}

/// Fills `count` elements of `pattern.len()` bytes each at `dst` with `pattern`
/// (queued; recorded into a graph under capture).
///
/// # Safety
/// `dst` must be a live allocation of `dev` of at least `count * pattern.len()` bytes.
pub(crate) unsafe fn fill(
    dev: &Dev,
    dst: u64,
    count: usize,
    pattern: &[u8],
    what: impl Fn() -> String,
) -> Result<(), Error> {
    let size = pattern.len();
    if count == 0 || size == 0 {
        return Ok(());
    }
    dev.bind()?;
    let stream = dev.work_stream();
    let word = |k: usize| u32::from_ne_bytes(pattern[4 * k..4 * k + 4].try_into().unwrap());
    // SAFETY (all arms): per the contract above.
    let done = unsafe {
        if pattern.iter().all(|&b| b == pattern[0]) {
            sys::cuMemsetD8Async(dst, pattern[0], count * size, stream).result()
        } else if size == 2 {
            let v = u16::from_ne_bytes([pattern[0], pattern[1]]);
            sys::cuMemsetD16Async(dst, v, count, stream).result()
        } else if size == 4 {
            sys::cuMemsetD32Async(dst, word(0), count, stream).result()
        } else if size.is_multiple_of(4) && dst.is_multiple_of(4) {
            // One strided 32-bit memset per word of the element.
            (0..size / 4).try_for_each(|k| {
                sys::cuMemsetD2D32Async(dst + 4 * k as u64, size, word(k), 1, count, stream)
                    .result()
            })
        } else {
            Err(cudarc::driver::DriverError(
                sys::CUresult::CUDA_ERROR_NOT_SUPPORTED,
            ))
        }
    };
    if done.is_ok() {
        return Ok(());
    }
    // Odd element sizes (or a driver that refuses the strided form): stage a filled
    // host buffer.
    if capturing_on(dev.ordinal) {
        return Err(fail(
            what(),
            format!("cannot record a fill of {size}-byte elements into a graph"),
        ));
    }
    let host: Vec<u8> = pattern.iter().copied().cycle().take(count * size).collect();
    // SAFETY: `host` holds `count * size` bytes; `dst` per the contract above.
    unsafe { htod(dev, dst, host.as_ptr(), host.len(), what) }
}
