//! Device memory shared between an array's handles, with a run-time borrow flag
//! and a version counter.
//!
//! A user's [`crate::Array`] is the only handle most buffers ever have; the tape
//! keeps extra handles to read arrays again during `backward`. Every access takes
//! the buffer's borrow flag for its duration — shared for reads, exclusive for
//! writes — so a write can never overlap another access, whichever handle and
//! thread it comes from: a conflict is an error, not a data race. Every exclusive
//! borrow bumps the version, which is how the tape notices that an array it must
//! read again was overwritten.

use std::cell::UnsafeCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicIsize, AtomicU64, Ordering};

use crate::Device;

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
        match flags
            .borrow
            .compare_exchange(0, -1, Ordering::Acquire, Ordering::Acquire)
        {
            Ok(_) => {
                flags.version.fetch_add(1, Ordering::AcqRel);
                Ok(BorrowGuard {
                    flags: flags.clone(),
                    write: true,
                })
            }
            Err(n) if n < 0 => Err(BorrowConflict::Writing),
            Err(_) => Err(BorrowConflict::Reading),
        }
    }
}

/// The elements of one array (or gradient) in memory.
pub(crate) struct Buffer<T> {
    data: Box<[UnsafeCell<T>]>,
    pub(crate) device: Device,
    pub(crate) flags: Arc<Flags>,
}

// SAFETY: the contents are only reached through `BorrowGuard`s (shared for reads,
// exclusive for writes) or through kernel element accesses made while such a guard
// is held, so sharing the buffer between threads cannot cause a data race.
unsafe impl<T: Send> Send for Buffer<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Buffer<T> {}

impl<T> Buffer<T> {
    pub(crate) fn new(device: Device, data: Vec<T>) -> Arc<Buffer<T>> {
        let data: Box<[UnsafeCell<T>]> = data.into_iter().map(UnsafeCell::new).collect();
        Arc::new(Buffer {
            data,
            device,
            flags: Flags::new(),
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.data.len()
    }

    /// The base pointer; dereference only while holding a borrow of the right kind.
    pub(crate) fn ptr(&self) -> *mut T {
        UnsafeCell::raw_get(self.data.as_ptr())
    }
}
