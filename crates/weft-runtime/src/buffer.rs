//! Memory shared between an array's handles (host memory, or an allocation on a
//! CUDA device), with a run-time borrow flag and a version counter.
//!
//! A user's [`crate::Array`] is the only handle most buffers ever have; the tape
//! keeps extra handles to read arrays again during `backward`. Every access takes
//! the buffer's borrow flag for its duration — shared for reads, exclusive for
//! writes — so a write can never overlap another access, whichever handle and
//! thread it comes from: a conflict is an error, not a data race. Every exclusive
//! borrow bumps the version, which is how the tape notices that an array it must
//! read again was overwritten.

use std::any::TypeId;
use std::cell::UnsafeCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering};

use crate::cuda::memory::{self, DeviceMem};
use crate::{Device, Elem, Error};

/// The borrow state and identity of a buffer.
#[derive(Debug)]
pub struct Flags {
    id: u64,
    /// 0: free; n > 0: n readers; -1: one writer.
    borrow: AtomicIsize,
    version: AtomicU64,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Flags {
    fn new() -> Arc<Flags> {
        Arc::new(Flags {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            borrow: AtomicIsize::new(0),
            version: AtomicU64::new(0),
        })
    }

    /// A unique id of the buffer.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// How many times the buffer has been borrowed for writing.
    pub fn version(&self) -> u64 {
        self.version.load(Ordering::Acquire)
    }

    /// Marks the contents as changed (a kernel wrote the array).
    pub fn bump(&self) {
        self.version.fetch_add(1, Ordering::AcqRel);
    }
}

/// A held borrow of a buffer; released on drop.
#[derive(Debug)]
pub struct BorrowGuard {
    flags: Arc<Flags>,
    write: bool,
}

impl Drop for BorrowGuard {
    fn drop(&mut self) {
        if self.write {
            self.flags.borrow.store(0, Ordering::Release);
        } else {
            self.flags.borrow.fetch_sub(1, Ordering::Release);
        }
    }
}

/// Why a borrow was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BorrowConflict {
    /// Someone is writing.
    Writing,
    /// Someone is reading (and this borrow wants to write).
    Reading,
}

impl BorrowGuard {
    pub(crate) fn read(flags: &Arc<Flags>) -> Result<BorrowGuard, BorrowConflict> {
        let mut cur = flags.borrow.load(Ordering::Acquire);
        loop {
            if cur < 0 {
                return Err(BorrowConflict::Writing);
            }
            match flags.borrow.compare_exchange_weak(
                cur,
                cur + 1,
                Ordering::Acquire,
                Ordering::Acquire,
            ) {
                Ok(_) => {
                    return Ok(BorrowGuard {
                        flags: flags.clone(),
                        write: false,
                    });
                }
                Err(now) => cur = now,
            }
        }
    }

    pub(crate) fn write(flags: &Arc<Flags>) -> Result<BorrowGuard, BorrowConflict> {
        let g = Self::write_unversioned(flags)?;
        flags.bump();
        Ok(g)
    }

    /// An exclusive borrow that leaves the version alone: a kernel launch borrows
    /// every array it may write, and bumps the versions of those it does write
    /// afterwards (an array inside a `&mut S` structure that the kernel only
    /// reads must keep its version, or the tape would see it overwritten).
    pub(crate) fn write_unversioned(flags: &Arc<Flags>) -> Result<BorrowGuard, BorrowConflict> {
        match flags
            .borrow
            .compare_exchange(0, -1, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => Ok(BorrowGuard {
                flags: flags.clone(),
                write: true,
            }),
            Err(n) if n < 0 => Err(BorrowConflict::Writing),
            Err(_) => Err(BorrowConflict::Reading),
        }
    }
}

/// Where a buffer's elements are.
pub(crate) enum Storage<T> {
    /// Host memory.
    Host(Box<[UnsafeCell<T>]>),
    /// An allocation on a CUDA device.
    Cuda(DeviceMem),
    /// No memory at all (`Array::placeholder`): only the device label exists.
    Placeholder,
}

/// The elements of one array (or gradient) in memory.
pub(crate) struct Buffer<T> {
    storage: Storage<T>,
    len: usize,
    pub(crate) device: Device,
    pub(crate) flags: Arc<Flags>,
}

// SAFETY: the contents are only reached through `BorrowGuard`s (shared for reads,
// exclusive for writes) or through kernel element accesses made while such a guard
// is held, so sharing the buffer between threads cannot cause a data race. Device
// memory is only reached through the driver, ordered on the device's stream.
unsafe impl<T: Send> Send for Buffer<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Buffer<T> {}

fn placeholder_error(what: &str, device: Device) -> Error {
    Error::Cuda {
        what: what.to_string(),
        reason: format!(
            "this array is a placeholder for {device} (`Array::placeholder`) and owns no memory"
        ),
    }
}

/// Makes every byte of a `bool` array copied from a device 0 or 1 (a kernel may
/// store any nonzero byte for `true`); nothing for other types.
///
/// # Safety
/// `p` must be valid for reads and writes of `len` bytes when `T` is `bool`.
unsafe fn fix_bools<T: 'static>(p: *mut T, len: usize) {
    if TypeId::of::<T>() == TypeId::of::<bool>() {
        let b = p as *mut u8;
        for k in 0..len {
            // SAFETY: per the contract (bool is one byte).
            unsafe { *b.add(k) = (*b.add(k) != 0) as u8 };
        }
    }
}

/// `len` elements of `T` in bytes, or an error on overflow.
fn byte_len<T>(len: usize, what: &str) -> Result<usize, Error> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or_else(|| Error::Shape(format!("{what}: {len} elements do not fit in memory")))
}

impl<T: Elem> Buffer<T> {
    fn wrap(storage: Storage<T>, len: usize, device: Device) -> Arc<Buffer<T>> {
        Arc::new(Buffer {
            storage,
            len,
            device,
            flags: Flags::new(),
        })
    }

    /// A host buffer owning `data`.
    pub(crate) fn host(data: Vec<T>) -> Arc<Buffer<T>> {
        let len = data.len();
        let data: Box<[UnsafeCell<T>]> = data.into_iter().map(UnsafeCell::new).collect();
        Buffer::wrap(Storage::Host(data), len, Device::Cpu)
    }

    /// A buffer on `device` holding `data`.
    pub(crate) fn from_vec(device: Device, data: Vec<T>) -> Result<Arc<Buffer<T>>, Error> {
        match device {
            Device::Cpu => Ok(Buffer::host(data)),
            Device::Cuda(_) => Buffer::from_slice(device, &data),
        }
    }

    /// A buffer on `device` holding a copy of `data` (copied straight to a GPU, with
    /// no host copy in between).
    pub(crate) fn from_slice(device: Device, data: &[T]) -> Result<Arc<Buffer<T>>, Error> {
        match device {
            Device::Cpu => Ok(Buffer::host(data.to_vec())),
            Device::Cuda(i) => {
                let what = || format!("copy {} elements to cuda:{i}", data.len());
                let bytes = byte_len::<T>(data.len(), &what())?;
                let mem = DeviceMem::alloc(i, bytes)?;
                // SAFETY: `data` holds `bytes` bytes; `mem` was allocated with that size.
                unsafe {
                    memory::htod(
                        mem.dev(),
                        mem.ptr(),
                        data.as_ptr() as *const u8,
                        bytes,
                        what,
                    )?
                };
                Ok(Buffer::wrap(Storage::Cuda(mem), data.len(), device))
            }
        }
    }

    /// A zero-filled buffer of `len` elements on `device`.
    pub(crate) fn zeroed(device: Device, len: usize) -> Result<Arc<Buffer<T>>, Error> {
        match device {
            Device::Cpu => Ok(Buffer::host(vec![T::zeroed(); len])),
            Device::Cuda(i) => {
                let what = || format!("zero {len} elements on cuda:{i}");
                let bytes = byte_len::<T>(len, &what())?;
                let mem = DeviceMem::alloc(i, bytes)?;
                // SAFETY: a live allocation of `bytes` bytes.
                unsafe { memory::fill(mem.dev(), mem.ptr(), bytes, &[0], what)? };
                Ok(Buffer::wrap(Storage::Cuda(mem), len, device))
            }
        }
    }

    /// A buffer that only carries a device label.
    pub(crate) fn placeholder(device: Device, len: usize) -> Arc<Buffer<T>> {
        Buffer::wrap(Storage::Placeholder, len, device)
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The base pointer of host memory (`None` for device memory); dereference only
    /// while holding a borrow of the right kind.
    pub(crate) fn host_ptr(&self) -> Option<*mut T> {
        match &self.storage {
            Storage::Host(d) => Some(UnsafeCell::raw_get(d.as_ptr())),
            _ => None,
        }
    }

    /// The device allocation, if the buffer is on a CUDA device.
    pub(crate) fn device_mem(&self) -> Option<&DeviceMem> {
        match &self.storage {
            Storage::Cuda(m) => Some(m),
            _ => None,
        }
    }

    /// A copy of the contents (waits for the device). The caller holds a read borrow.
    pub(crate) fn read_vec(&self, what: &str) -> Result<Vec<T>, Error> {
        match &self.storage {
            Storage::Host(_) => {
                let p = self.host_ptr().unwrap();
                // SAFETY: the caller's shared borrow excludes writers.
                Ok(unsafe { std::slice::from_raw_parts(p, self.len) }.to_vec())
            }
            Storage::Cuda(m) => {
                let bytes = self.len * std::mem::size_of::<T>();
                let mut out: Vec<T> = Vec::with_capacity(self.len);
                // SAFETY: `out` has room for `len` elements; the allocation holds as many.
                unsafe {
                    memory::dtoh(m.dev(), out.as_mut_ptr() as *mut u8, m.ptr(), bytes, || {
                        format!("{what}: copy {} elements from {}", self.len, self.device)
                    })?;
                    fix_bools::<T>(out.as_mut_ptr(), self.len);
                    // Every byte was written by the copy (padding aside).
                    out.set_len(self.len);
                }
                Ok(out)
            }
            Storage::Placeholder => Err(placeholder_error(what, self.device)),
        }
    }

    /// Overwrites the contents from `src` (same length). The caller holds a write borrow.
    pub(crate) fn write_slice(&self, src: &[T], what: &str) -> Result<(), Error> {
        debug_assert_eq!(src.len(), self.len);
        match &self.storage {
            Storage::Host(_) => {
                let p = self.host_ptr().unwrap();
                // SAFETY: the caller's exclusive borrow excludes every other access.
                unsafe { std::slice::from_raw_parts_mut(p, self.len) }.copy_from_slice(src);
                Ok(())
            }
            Storage::Cuda(m) => {
                let bytes = self.len * std::mem::size_of::<T>();
                // SAFETY: `src` holds `bytes` bytes, as does the allocation.
                unsafe {
                    memory::htod(m.dev(), m.ptr(), src.as_ptr() as *const u8, bytes, || {
                        format!("{what}: copy {} elements to {}", self.len, self.device)
                    })
                }
            }
            Storage::Placeholder => Err(placeholder_error(what, self.device)),
        }
    }

    /// Sets every element to `value`. The caller holds a write borrow.
    pub(crate) fn fill(&self, value: T, what: &str) -> Result<(), Error> {
        match &self.storage {
            Storage::Host(_) => {
                let p = self.host_ptr().unwrap();
                // SAFETY: the caller's exclusive borrow excludes every other access.
                unsafe { std::slice::from_raw_parts_mut(p, self.len) }.fill(value);
                Ok(())
            }
            Storage::Cuda(m) => {
                // The element's bytes, with any padding zeroed (`Elem::write` stores
                // the fields only, into zeroed storage).
                let mut slot = std::mem::MaybeUninit::<T>::zeroed();
                // SAFETY: `slot` is aligned storage for one `T`; afterwards every byte
                // of it is initialised (fields by the write, padding by `zeroed`).
                let pattern = unsafe {
                    T::write(slot.as_mut_ptr(), value);
                    std::slice::from_raw_parts(slot.as_ptr() as *const u8, std::mem::size_of::<T>())
                };
                // SAFETY: the allocation holds `len` elements.
                unsafe {
                    memory::fill(m.dev(), m.ptr(), self.len, pattern, || {
                        format!("{what}: fill {} elements on {}", self.len, self.device)
                    })
                }
            }
            Storage::Placeholder => Err(placeholder_error(what, self.device)),
        }
    }

    /// Sets every byte to zero. The caller holds a write borrow.
    pub(crate) fn zero(&self, what: &str) -> Result<(), Error> {
        self.fill(T::zeroed(), what)
    }

    /// Copies `src` (same length, any device) into this buffer. The caller holds a
    /// read borrow of `src` and a write borrow of `self` (so they differ).
    pub(crate) fn copy_from(&self, src: &Buffer<T>, what: &str) -> Result<(), Error> {
        debug_assert_eq!(src.len, self.len);
        let bytes = self.len * std::mem::size_of::<T>();
        match (&self.storage, &src.storage) {
            (Storage::Placeholder, _) => Err(placeholder_error(what, self.device)),
            (_, Storage::Placeholder) => Err(placeholder_error(what, src.device)),
            (Storage::Host(_), Storage::Host(_)) => {
                let (d, s) = (self.host_ptr().unwrap(), src.host_ptr().unwrap());
                // SAFETY: distinct buffers (the borrows exclude aliasing), both `len` long.
                unsafe { std::ptr::copy_nonoverlapping(s as *const T, d, self.len) };
                Ok(())
            }
            (Storage::Cuda(_), Storage::Host(_)) => {
                let s = src.host_ptr().unwrap();
                // SAFETY: the source is borrowed for reading and `len` long.
                self.write_slice(unsafe { std::slice::from_raw_parts(s, self.len) }, what)
            }
            (Storage::Host(_), Storage::Cuda(m)) => {
                let d = self.host_ptr().unwrap();
                // SAFETY: the destination is borrowed exclusively and `len` long; the
                // device data are valid `T`s (written from `T`s or by kernels).
                unsafe {
                    memory::dtoh(m.dev(), d as *mut u8, m.ptr(), bytes, || {
                        format!("{what}: copy {} elements from {}", self.len, src.device)
                    })?;
                    fix_bools::<T>(d, self.len);
                }
                Ok(())
            }
            (Storage::Cuda(d), Storage::Cuda(s)) => {
                let msg = || {
                    format!(
                        "{what}: copy {} elements from {} to {}",
                        self.len, src.device, self.device
                    )
                };
                // SAFETY: two live allocations of `bytes` bytes.
                unsafe {
                    if d.ordinal() == s.ordinal() {
                        memory::dtod(d.dev(), d.ptr(), s.ptr(), bytes, msg)
                    } else {
                        memory::peer(d.dev(), d.ptr(), s.dev(), s.ptr(), bytes, msg)
                    }
                }
            }
        }
    }
}
