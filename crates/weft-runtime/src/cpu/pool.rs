//! A pool of private accumulation buffers, so that a simulation loop's launches
//! stop allocating once the first few have run.

use std::sync::Mutex;

/// One cache line: the unit private buffers are made of, so each buffer starts on
/// its own line (no false sharing between runners) and is aligned for every
/// element type.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub(crate) struct Line([u8; 64]);

impl Line {
    const ZERO: Line = Line([0; 64]);
}

/// A zeroed buffer of at least some number of bytes, returned to the pool on drop.
pub(crate) struct Buffer {
    lines: Vec<Line>,
}

impl Buffer {
    /// A buffer of at least `bytes` zero bytes, from the pool when it has one.
    pub(crate) fn zeroed(bytes: usize) -> Buffer {
        let n = bytes.div_ceil(64);
        let mut lines = {
            let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
            // The smallest pooled buffer that fits, else the largest (it grows).
            let pick = pool
                .iter()
                .enumerate()
                .filter(|(_, b)| b.capacity() >= n)
                .min_by_key(|(_, b)| b.capacity())
                .or_else(|| pool.iter().enumerate().max_by_key(|(_, b)| b.capacity()))
                .map(|(i, _)| i);
            pick.map(|i| pool.swap_remove(i)).unwrap_or_default()
        };
        lines.clear();
        lines.resize(n, Line::ZERO);
        Buffer { lines }
    }

    /// The first byte.
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        self.lines.as_mut_ptr() as *mut u8
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        let lines = std::mem::take(&mut self.lines);
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        if pool.len() < MAX_POOLED {
            pool.push(lines);
        }
    }
}

/// At most this many idle buffers are kept (a launch uses one per runner and
/// destination array).
const MAX_POOLED: usize = 64;

/// Idle buffers.
static POOL: Mutex<Vec<Vec<Line>>> = Mutex::new(Vec::new());

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_zeroed_and_aligned() {
        let mut a = Buffer::zeroed(1000);
        let p = a.as_mut_ptr();
        assert_eq!(p as usize % 64, 0);
        // SAFETY: the buffer holds at least 1000 bytes.
        unsafe { p.write_bytes(7, 1000) };
        drop(a);
        let mut b = Buffer::zeroed(900);
        let q = b.as_mut_ptr();
        // SAFETY: as above, 900 bytes.
        let bytes = unsafe { std::slice::from_raw_parts(q, 900) };
        assert!(
            bytes.iter().all(|&x| x == 0),
            "a reused buffer is zeroed again"
        );
    }
}
