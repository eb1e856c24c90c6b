//! [`Array`]: an N-dimensional array of elements on a device, with an optional
//! gradient.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::buffer::{BorrowConflict, BorrowGuard, Buffer, Flags};
use crate::{ArrayView, Device, Elem, Error};

/// An N-dimensional (1–4) row-major array owned by a device, optionally carrying a
/// gradient array of the same shape (see [`Array::requires_grad`]).
///
/// Kernel parameters are written `&Array<T>` (read-only) or `&mut Array<T>`
/// (writable); `N` defaults to 1. `clone()` copies the data (not the gradient).
///
/// ```
/// use weft_runtime::{Array, Device};
/// let a = Array::from_slice(Device::Cpu, &[1.0f32, 2.0, 3.0]);
/// assert_eq!(a.shape(), [3]);
/// assert_eq!(a.to_vec(), vec![1.0, 2.0, 3.0]);
/// assert_eq!(a.as_slice()[1], 2.0);
/// let m: Array<f32, 2> = Array::zeros(Device::Cpu, [2, 3]);
/// assert_eq!(m.len(), 6);
/// ```
pub struct Array<T: Elem, const N: usize = 1> {
    buf: Arc<Buffer<T>>,
    grad: Option<Arc<Buffer<T>>>,
    shape: [usize; N],
}

impl<T: Elem, const N: usize> Clone for Array<T, N> {
    /// A new array with a copy of the data (without a gradient).
    fn clone(&self) -> Self {
        Array {
            buf: Buffer::new(self.device(), self.to_vec()),
            grad: None,
            shape: self.shape,
        }
    }
}

impl<T: Elem, const N: usize> std::fmt::Debug for Array<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("elem", &std::any::type_name::<T>())
            .field("shape", &self.shape)
            .field("device", &self.device())
            .field("grad", &self.grad.is_some())
            .finish()
    }
}

fn check_ndim<const N: usize>() {
    assert!(
        (1..=4).contains(&N),
        "arrays have 1 to 4 dimensions, not {N}"
    );
}

/// Read access to an array's elements; the array cannot be written meanwhile.
pub struct Slice<'a, T> {
    data: &'a [T],
    _guard: BorrowGuard,
}

impl<T> Deref for Slice<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.data
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for Slice<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.data.fmt(f)
    }
}

/// Write access to an array's elements.
pub struct SliceMut<'a, T> {
    data: &'a mut [T],
    _guard: BorrowGuard,
}

impl<T> Deref for SliceMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        self.data
    }
}

impl<T> DerefMut for SliceMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.data
    }
}

fn conflict_panic(what: &str, c: BorrowConflict) -> ! {
    match c {
        BorrowConflict::Writing => {
            panic!("{what}: the array is being written (by a launch or a tape on another thread)")
        }
        BorrowConflict::Reading => {
            panic!("{what}: the array is being read (by a launch or a tape on another thread)")
        }
    }
}

fn read_slice<'a, T>(buf: &'a Buffer<T>, what: &str) -> Slice<'a, T> {
    let g = BorrowGuard::read(&buf.flags).unwrap_or_else(|c| conflict_panic(what, c));
    // SAFETY: the shared borrow excludes writers for the guard's lifetime.
    let data = unsafe { std::slice::from_raw_parts(buf.ptr(), buf.len()) };
    Slice { data, _guard: g }
}

fn write_slice<'a, T>(buf: &'a Buffer<T>, what: &str) -> SliceMut<'a, T> {
    let g = BorrowGuard::write(&buf.flags).unwrap_or_else(|c| conflict_panic(what, c));
    // SAFETY: the exclusive borrow excludes every other access for its lifetime.
    let data = unsafe { std::slice::from_raw_parts_mut(buf.ptr(), buf.len()) };
    SliceMut { data, _guard: g }
}

fn launch_error(kernel: &'static str, param: &'static str, c: BorrowConflict) -> Error {
    Error::Borrow {
        kernel,
        param,
        reason: match c {
            BorrowConflict::Writing => "it is being written",
            BorrowConflict::Reading => "it is being read",
        },
    }
}

impl<T: Elem, const N: usize> Array<T, N> {
    /// A zero-filled array of the given shape.
    pub fn zeros(device: Device, shape: [usize; N]) -> Self {
        check_ndim::<N>();
        let n = shape.iter().product();
        Array {
            buf: Buffer::new(device, vec![T::zeroed(); n]),
            grad: None,
            shape,
        }
    }

    /// An array taking ownership of `data`, viewed with `shape`.
    ///
    /// Fails if the shape's element count differs from `data.len()`.
    pub fn from_vec_shaped(device: Device, data: Vec<T>, shape: [usize; N]) -> Result<Self, Error> {
        check_ndim::<N>();
        let n: usize = shape.iter().product();
        if n != data.len() {
            return Err(Error::Shape(format!(
                "shape {shape:?} holds {n} elements but the data has {}",
                data.len()
            )));
        }
        Ok(Array {
            buf: Buffer::new(device, data),
            grad: None,
            shape,
        })
    }

    /// The shape.
    pub fn shape(&self) -> [usize; N] {
        self.shape
    }

    /// Total number of elements.
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.buf.len() == 0
    }

    /// The device that owns the memory.
    pub fn device(&self) -> Device {
        self.buf.device
    }

    /// A copy of the contents in row-major order.
    pub fn to_vec(&self) -> Vec<T> {
        read_slice(&self.buf, "Array::to_vec").to_vec()
    }

    /// The contents in row-major order (CPU arrays).
    ///
    /// # Panics
    /// If the array is being written by a launch or a tape on another thread.
    pub fn as_slice(&self) -> Slice<'_, T> {
        read_slice(&self.buf, "Array::as_slice")
    }

    /// The contents in row-major order, writable (CPU arrays).
    ///
    /// # Panics
    /// If the array is being read by a tape on another thread.
    pub fn as_mut_slice(&mut self) -> SliceMut<'_, T> {
        write_slice(&self.buf, "Array::as_mut_slice")
    }

    /// Copies `src` into this array; shapes must match.
    pub fn copy_from(&mut self, src: &Array<T, N>) -> Result<(), Error> {
        if src.shape != self.shape {
            return Err(Error::Shape(format!(
                "cannot copy an array of shape {:?} into one of shape {:?}",
                src.shape, self.shape
            )));
        }
        let s = src.to_vec();
        self.as_mut_slice().copy_from_slice(&s);
        Ok(())
    }

    /// Overwrites the contents from a host slice of the same length.
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<(), Error> {
        if src.len() != self.len() {
            return Err(Error::Shape(format!(
                "cannot copy {} elements into an array of shape {:?}",
                src.len(),
                self.shape
            )));
        }
        self.as_mut_slice().copy_from_slice(src);
        Ok(())
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) {
        self.as_mut_slice().fill(value);
    }

    // ----- gradients -----------------------------------------------------------------

    /// Gives the array a zero gradient of its shape (if it has none), so a tape's
    /// `backward` accumulates into it.
    pub fn requires_grad(mut self) -> Self {
        self.ensure_grad();
        self
    }

    /// Gives the array a zero gradient if it has none (the tape does this for the
    /// outputs of recorded launches whose inputs carry gradients).
    pub fn ensure_grad(&mut self) {
        if self.grad.is_none() {
            self.grad = Some(Buffer::new(self.device(), vec![T::zeroed(); self.len()]));
        }
    }

    /// Whether the array carries a gradient.
    pub fn has_grad(&self) -> bool {
        self.grad.is_some()
    }

    /// The gradient, if the array carries one.
    pub fn grad(&self) -> Option<Slice<'_, T>> {
        self.grad.as_ref().map(|g| read_slice(g, "Array::grad"))
    }

    /// The gradient, writable (to seed an output's gradient before `backward`).
    pub fn grad_mut(&mut self) -> Option<SliceMut<'_, T>> {
        self.grad
            .as_ref()
            .map(|g| write_slice(g, "Array::grad_mut"))
    }

    /// A copy of the gradient, if the array carries one.
    pub fn grad_to_vec(&self) -> Option<Vec<T>> {
        self.grad().map(|g| g.to_vec())
    }

    /// Sets the gradient to zero (if the array carries one).
    pub fn zero_grad(&self) {
        if let Some(g) = &self.grad {
            write_slice(g, "Array::zero_grad").fill(T::zeroed());
        }
    }

    // ----- for generated code and the tape -----------------------------------------

    /// A read-only kernel view, for the launch of `kernel` as parameter `param`,
    /// with the shared borrow that makes it valid.
    #[doc(hidden)]
    pub fn view(
        &self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(ArrayView<T, N>, BorrowGuard), Error> {
        let g = BorrowGuard::read(&self.buf.flags).map_err(|c| launch_error(kernel, param, c))?;
        Ok((ArrayView::new(self.buf.ptr(), self.shape, kernel, param), g))
    }

    /// A writable kernel view, with the exclusive borrow that makes it valid.
    #[doc(hidden)]
    pub fn view_mut(
        &mut self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(ArrayView<T, N>, BorrowGuard), Error> {
        let g = BorrowGuard::write(&self.buf.flags).map_err(|c| launch_error(kernel, param, c))?;
        Ok((ArrayView::new(self.buf.ptr(), self.shape, kernel, param), g))
    }

    /// A writable view of the gradient (a null view if there is none), for adjoints.
    #[doc(hidden)]
    pub fn grad_view(
        &self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(ArrayView<T, N>, Option<BorrowGuard>), Error> {
        match &self.grad {
            None => Ok((ArrayView::null(), None)),
            Some(g) => {
                let guard =
                    BorrowGuard::write(&g.flags).map_err(|c| launch_error(kernel, param, c))?;
                Ok((
                    ArrayView::new(g.ptr(), self.shape, kernel, param),
                    Some(guard),
                ))
            }
        }
    }

    /// Another handle on the same memory and gradient (what a tape keeps, and how
    /// one array goes into several structures). Launches through either handle take
    /// the same borrow flags, so conflicting uses are errors, never data races;
    /// [`Clone`] copies the data instead.
    ///
    /// ```
    /// use weft_runtime::{Array, Device};
    /// let a = Array::from_slice(Device::Cpu, &[1.0f32, 2.0]);
    /// let mut b = a.share();
    /// b.fill(3.0);
    /// assert_eq!(a.to_vec(), vec![3.0, 3.0]);
    /// ```
    pub fn share(&self) -> Self {
        Array {
            buf: self.buf.clone(),
            grad: self.grad.clone(),
            shape: self.shape,
        }
    }

    /// The buffer's identity and version, for the tape's overwrite check.
    #[doc(hidden)]
    pub fn flags(&self) -> Arc<Flags> {
        self.buf.flags.clone()
    }
}

impl<T: Elem> Array<T, 1> {
    /// A 1-D array holding a copy of `data`.
    pub fn from_slice(device: Device, data: &[T]) -> Self {
        Array {
            buf: Buffer::new(device, data.to_vec()),
            grad: None,
            shape: [data.len()],
        }
    }

    /// A 1-D array taking ownership of `data`.
    pub fn from_vec(device: Device, data: Vec<T>) -> Self {
        let n = data.len();
        Array {
            buf: Buffer::new(device, data),
            grad: None,
            shape: [n],
        }
    }
}
