//! What a kernel sees of an array: a bounds-checked view.

use std::marker::PhantomData;

use crate::{AtomicElem, Elem};

/// An element offset that passed the bounds check of [`ArrayView::offset`].
#[derive(Clone, Copy, Debug)]
pub struct Offset(usize);

impl Offset {
    /// The element index.
    #[inline(always)]
    pub(crate) fn index(self) -> usize {
        self.0
    }
}

/// A kernel's handle on an array: pointer, shape, and names for error messages.
/// Created by the generated launch code for each array argument.
#[derive(Debug)]
pub struct ArrayView<T, const N: usize> {
    ptr: *mut T,
    shape: [usize; N],
    kernel: &'static str,
    param: &'static str,
    _t: PhantomData<T>,
}

impl<T, const N: usize> Clone for ArrayView<T, N> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const N: usize> Copy for ArrayView<T, N> {}

// SAFETY: all element accesses are relaxed atomics (see `Elem`), so sharing a view
// between the launch's threads cannot cause a data race.
unsafe impl<T: Send, const N: usize> Send for ArrayView<T, N> {}
// SAFETY: as above.
unsafe impl<T: Sync, const N: usize> Sync for ArrayView<T, N> {}

impl<T, const N: usize> ArrayView<T, N> {
    /// A view of no array: every access fails the bounds check; gradient reads give
    /// zero and gradient adds do nothing.
    pub fn null() -> Self {
        ArrayView {
            ptr: std::ptr::null_mut(),
            shape: [0; N],
            kernel: "",
            param: "",
            _t: PhantomData,
        }
    }

    /// The base pointer (for the runtime's own element access).
    #[inline(always)]
    pub(crate) fn ptr(&self) -> *mut T {
        self.ptr
    }

    /// The same view of memory at `ptr` instead (a private accumulation buffer).
    #[inline(always)]
    pub(crate) fn retarget(self, ptr: *mut T) -> Self {
        ArrayView { ptr, ..self }
    }

    /// Whether this is [`ArrayView::null`].
    #[inline(always)]
    pub fn is_null(&self) -> bool {
        self.ptr.is_null()
    }
}

impl<T: Elem, const N: usize> ArrayView<T, N> {
    pub(crate) fn new(
        ptr: *mut T,
        shape: [usize; N],
        kernel: &'static str,
        param: &'static str,
    ) -> Self {
        ArrayView {
            ptr,
            shape,
            kernel,
            param,
            _t: PhantomData,
        }
    }

    /// The row-major offset of an element, after checking every index against the shape.
    ///
    /// # Panics
    /// With the kernel name, the array parameter, the index and the shape, if any index
    /// is out of range.
    #[inline(always)]
    pub fn offset(&self, idx: [i64; N]) -> Offset {
        let mut off = 0usize;
        for d in 0..N {
            let i = idx[d];
            // One unsigned compare covers both ends: a negative index wraps to a
            // huge u64.
            if i as u64 >= self.shape[d] as u64 {
                // Pass plain values: taking `&self` here would force the view out of
                // registers into memory on every access of the hot loop.
                out_of_bounds(self.kernel, self.param, idx, self.shape);
            }
            off = off * self.shape[d] + i as usize;
        }
        Offset(off)
    }

    /// Reads an element.
    #[inline(always)]
    pub fn read(&self, o: Offset) -> T {
        // SAFETY: `o` passed the bounds check; the array outlives the launch.
        unsafe { T::read(self.ptr.add(o.0)) }
    }

    /// Writes an element.
    #[inline(always)]
    pub fn write(&self, o: Offset, v: T) {
        // SAFETY: as in `read`; only writable views are written (checked at compile time).
        unsafe { T::write(self.ptr.add(o.0), v) }
    }

    /// The offset of element `tid` of a 1-D array, checked as a `usize` (the thread
    /// index is never negative).
    ///
    /// # Panics
    /// As [`ArrayView::offset`].
    #[inline(always)]
    pub fn offset_tid(&self, tid: usize) -> Offset {
        if N != 1 || tid >= self.shape[0] {
            return self.offset([tid as i64; N]);
        }
        Offset(tid)
    }

    /// [`offset_tid`](Self::offset_tid) without the check when `in_bounds`.
    ///
    /// # Safety
    /// `in_bounds` may be true only when `tid` is below [`len_usize`](Self::len_usize)
    /// of this 1-D view (the CPU launcher's main loop guarantees it).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn offset_tid_in_bounds(&self, tid: usize, in_bounds: bool) -> Offset {
        if N == 1 && in_bounds {
            debug_assert!(tid < self.shape[0]);
            return Offset(tid);
        }
        self.offset_tid(tid)
    }

    /// Total number of elements.
    #[inline(always)]
    pub fn len_usize(&self) -> usize {
        self.shape.iter().product()
    }

    /// Reads an element with a plain (non-atomic) load.
    ///
    /// # Safety
    /// No other thread may write this element during the access. Generated kernels
    /// use this only for arrays where that holds by construction.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn read_unsync(&self, o: Offset) -> T {
        // SAFETY: in bounds (checked offset); race-free by the caller's contract.
        unsafe { self.ptr.add(o.0).read() }
    }

    /// Writes an element with a plain (non-atomic) store.
    ///
    /// # Safety
    /// No other thread may access this element during the write.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn write_unsync(&self, o: Offset, v: T) {
        // SAFETY: in bounds (checked offset); race-free by the caller's contract.
        unsafe { self.ptr.add(o.0).write(v) }
    }

    /// Total number of elements, as `i32`.
    #[inline(always)]
    pub fn len_i32(&self) -> i32 {
        self.shape.iter().product::<usize>() as i32
    }

    /// Size along dimension `d`, as `i32`.
    #[inline(always)]
    pub fn shape_i32(&self, d: usize) -> i32 {
        self.shape[d] as i32
    }
}

impl<T: AtomicElem, const N: usize> ArrayView<T, N> {
    /// `atomic_add`; returns the old value.
    #[inline(always)]
    pub fn atomic_add(&self, o: Offset, v: T) -> T {
        // SAFETY: bounds-checked offset into a live array.
        unsafe { T::atomic_add(self.ptr.add(o.0), v) }
    }
    /// `atomic_sub`; returns the old value.
    #[inline(always)]
    pub fn atomic_sub(&self, o: Offset, v: T) -> T {
        // SAFETY: as above.
        unsafe { T::atomic_sub(self.ptr.add(o.0), v) }
    }
    /// `atomic_min`; returns the old value.
    #[inline(always)]
    pub fn atomic_min(&self, o: Offset, v: T) -> T {
        // SAFETY: as above.
        unsafe { T::atomic_min(self.ptr.add(o.0), v) }
    }
    /// `atomic_max`; returns the old value.
    #[inline(always)]
    pub fn atomic_max(&self, o: Offset, v: T) -> T {
        // SAFETY: as above.
        unsafe { T::atomic_max(self.ptr.add(o.0), v) }
    }
}

#[cold]
#[inline(never)]
fn out_of_bounds<const N: usize>(
    kernel: &'static str,
    param: &'static str,
    idx: [i64; N],
    shape: [usize; N],
) -> ! {
    panic!("kernel `{kernel}`: index {idx:?} out of bounds for array `{param}` of shape {shape:?}")
}

/// `v[i]` on a vector, with a clear panic when `i` is out of range.
#[inline(always)]
pub fn component<V, S>(v: V, i: i64) -> S
where
    V: std::ops::Index<usize, Output = S> + Copy,
    S: Copy,
{
    let n = std::mem::size_of::<V>() / std::mem::size_of::<S>();
    if i < 0 || i as usize >= n {
        panic!("vector index {i} out of range for a vector of {n} components");
    }
    v[i as usize]
}

/// `v` with component `i` replaced by `x`, with a clear panic when `i` is out of range.
#[inline(always)]
pub fn with_component<V, S>(mut v: V, i: i64, x: S) -> V
where
    V: std::ops::IndexMut<usize, Output = S> + Copy,
    S: Copy,
{
    let n = std::mem::size_of::<V>() / std::mem::size_of::<S>();
    if i < 0 || i as usize >= n {
        panic!("vector index {i} out of range for a vector of {n} components");
    }
    v[i as usize] = x;
    v
}

/// `m[row][col]` on a (column-major) glam matrix.
#[inline(always)]
pub fn mat_elem<M: MatrixElem>(m: M, row: i64, col: i64) -> M::Scalar {
    let n = M::N as i64;
    if row < 0 || row >= n || col < 0 || col >= n {
        panic!("matrix index [{row}][{col}] out of range for a {n}x{n} matrix");
    }
    m.elem(row as usize, col as usize)
}

/// Matrices addressable by `[row][col]`.
pub trait MatrixElem: Copy {
    /// Component type.
    type Scalar;
    /// Rows (= columns).
    const N: usize;
    /// Element at `row`, `col`.
    fn elem(self, row: usize, col: usize) -> Self::Scalar;
}

macro_rules! matrix_elem {
    ($($m:ty: $s:ty, $n:literal);*) => {$(
        impl MatrixElem for $m {
            type Scalar = $s;
            const N: usize = $n;
            #[inline(always)]
            fn elem(self, row: usize, col: usize) -> $s {
                self.col(col)[row]
            }
        }
    )*};
}
matrix_elem!(weft_types::Mat2: f32, 2; weft_types::Mat3: f32, 3; weft_types::Mat4: f32, 4;
    weft_types::DMat2: f64, 2; weft_types::DMat3: f64, 3; weft_types::DMat4: f64, 4);
