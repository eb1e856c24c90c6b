//! [`Array`]: an N-dimensional array of elements on a device (host memory or a
//! CUDA GPU), with an optional gradient.

use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use crate::buffer::{BorrowConflict, BorrowGuard, Buffer, Flags};
use crate::{ArrayView, Device, Elem, Error};

/// An N-dimensional (1–4) row-major array owned by a device, optionally carrying a
/// gradient array of the same shape (see [`Array::requires_grad`]).
///
/// Kernel parameters are written `&Array<T>` (read-only) or `&mut Array<T>`
/// (writable); `N` defaults to 1. `clone()` copies the data (not the gradient) on
/// the same device.
///
/// Arrays on a CUDA device (`Device::Cuda(i)`) are created, filled and read with
/// the same calls ([`Array::zeros`], [`Array::from_slice`], [`Array::to_vec`],
/// [`Array::copy_from`], [`Array::to_device`], ...); copies to the device are queued
/// on its stream, reading back waits for it. Host views of their memory
/// ([`Array::as_slice`] and friends) are not possible: those panic with a message
/// saying where the array lives. Constructors panic if the device is unavailable;
/// the `try_` variants return the [`Error`] instead.
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
    /// A new array with a copy of the data (without a gradient), on the same device.
    ///
    /// # Panics
    /// If the array is being written through another handle (a live
    /// [`Array::as_mut_slice`] of a [`Array::share`]d handle, a launch or a tape on
    /// another thread) — the message says so ([`Error::InUse`]) — or if the device
    /// fails. [`Array::try_to_device`] returns these errors instead.
    fn clone(&self) -> Self {
        self.copy_to(self.device(), "Array::clone")
            .unwrap_or_else(|e| panic!("{e}"))
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

/// The [`Error::InUse`] of host operation `what` on `array` ("source", ...).
fn in_use(what: &'static str, array: &'static str, c: BorrowConflict) -> Error {
    let reason = match c {
        BorrowConflict::Writing => {
            "it is being written through another handle (a slice, a launch or a tape)"
        }
        BorrowConflict::Reading => {
            "it is being read through another handle (a slice, a launch or a tape)"
        }
    };
    Error::InUse {
        what,
        array,
        reason,
    }
}

/// The host memory of `buf`, or a panic saying where the array lives.
fn host_ptr_or_panic<T: Elem>(buf: &Buffer<T>, what: &'static str) -> *mut T {
    buf.host_ptr().unwrap_or_else(|| {
        panic!(
            "{}",
            Error::NotOnHost {
                what,
                device: buf.device
            }
        )
    })
}

fn read_slice<'a, T: Elem>(buf: &'a Buffer<T>, what: &'static str) -> Slice<'a, T> {
    let p = host_ptr_or_panic(buf, what);
    let g = read_guard(buf, what, "array").unwrap_or_else(|e| panic!("{e}"));
    // SAFETY: the shared borrow excludes writers for the guard's lifetime.
    let data = unsafe { std::slice::from_raw_parts(p, buf.len()) };
    Slice { data, _guard: g }
}

fn write_slice<'a, T: Elem>(buf: &'a Buffer<T>, what: &'static str) -> SliceMut<'a, T> {
    let p = host_ptr_or_panic(buf, what);
    let g = write_guard(buf, what, "array").unwrap_or_else(|e| panic!("{e}"));
    // SAFETY: the exclusive borrow excludes every other access for its lifetime.
    let data = unsafe { std::slice::from_raw_parts_mut(p, buf.len()) };
    SliceMut { data, _guard: g }
}

/// A shared borrow of `buf` for host operation `what`, or [`Error::InUse`].
fn read_guard(
    buf: &Buffer<impl Elem>,
    what: &'static str,
    array: &'static str,
) -> Result<BorrowGuard, Error> {
    BorrowGuard::read(&buf.flags).map_err(|c| in_use(what, array, c))
}

/// An exclusive borrow of `buf` for host operation `what`, or [`Error::InUse`].
fn write_guard(
    buf: &Buffer<impl Elem>,
    what: &'static str,
    array: &'static str,
) -> Result<BorrowGuard, Error> {
    BorrowGuard::write(&buf.flags).map_err(|c| in_use(what, array, c))
}

/// Panics with `what` and the error (the infallible wrappers of `try_` methods).
fn or_panic<R>(what: &str, r: Result<R, Error>) -> R {
    r.unwrap_or_else(|e| panic!("{what}: {e}"))
}

fn host_only(buf: &Buffer<impl Elem>, what: &'static str) -> Result<(), Error> {
    match buf.host_ptr() {
        Some(_) => Ok(()),
        None => Err(Error::NotOnHost {
            what,
            device: buf.device,
        }),
    }
}

fn on_device_error(kernel: &'static str, param: &'static str, device: Device) -> Error {
    Error::Cuda {
        what: format!("kernel `{kernel}`: array `{param}`"),
        reason: format!("the array lives on {device}, not on a CUDA device"),
    }
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
    fn with_buf(buf: Arc<Buffer<T>>, shape: [usize; N]) -> Self {
        Array {
            buf,
            grad: None,
            shape,
        }
    }

    /// A zero-filled array of the given shape.
    ///
    /// # Panics
    /// If the device is unavailable or out of memory ([`Array::try_zeros`] returns
    /// the error instead).
    pub fn zeros(device: Device, shape: [usize; N]) -> Self {
        or_panic("Array::zeros", Self::try_zeros(device, shape))
    }

    /// A zero-filled array of the given shape, or why it cannot be created (no such
    /// device, out of memory).
    pub fn try_zeros(device: Device, shape: [usize; N]) -> Result<Self, Error> {
        check_ndim::<N>();
        let n = shape.iter().product();
        Ok(Self::with_buf(Buffer::zeroed(device, n)?, shape))
    }

    /// An array taking ownership of `data` (copied to the device unless it is the
    /// CPU), viewed with `shape`.
    ///
    /// Fails if the shape's element count differs from `data.len()`, or if the
    /// device is unavailable.
    pub fn from_vec_shaped(device: Device, data: Vec<T>, shape: [usize; N]) -> Result<Self, Error> {
        check_ndim::<N>();
        let n: usize = shape.iter().product();
        if n != data.len() {
            return Err(Error::Shape(format!(
                "shape {shape:?} holds {n} elements but the data has {}",
                data.len()
            )));
        }
        Ok(Self::with_buf(Buffer::from_vec(device, data)?, shape))
    }

    /// An array that carries a device label and a shape but owns no memory: every
    /// access to its elements fails. For tests of device checks on machines without
    /// that device.
    #[doc(hidden)]
    pub fn placeholder(device: Device, shape: [usize; N]) -> Self {
        check_ndim::<N>();
        Self::with_buf(Buffer::placeholder(device, shape.iter().product()), shape)
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

    /// A copy of the contents in row-major order. For a CUDA array this waits for
    /// the work queued on its device.
    ///
    /// # Panics
    /// If the copy fails ([`Array::try_to_vec`] returns the error instead), e.g. a
    /// bounds-checked GPU kernel reported an out-of-bounds index
    /// ([`Error::OutOfBounds`]).
    pub fn to_vec(&self) -> Vec<T> {
        or_panic("Array::to_vec", self.try_to_vec())
    }

    /// A copy of the contents in row-major order, or why it could not be read
    /// (a driver error, or [`Error::OutOfBounds`] reported by a GPU kernel since
    /// the device last synchronised).
    pub fn try_to_vec(&self) -> Result<Vec<T>, Error> {
        let _g = read_guard(&self.buf, "Array::to_vec", "array")?;
        self.buf.read_vec("Array::to_vec")
    }

    /// The contents in row-major order (CPU arrays).
    ///
    /// # Panics
    /// If the array is being written by a launch or a tape on another thread, or if
    /// it lives on a GPU (use [`Array::to_vec`]).
    pub fn as_slice(&self) -> Slice<'_, T> {
        read_slice(&self.buf, "Array::as_slice")
    }

    /// The contents in row-major order, writable (CPU arrays).
    ///
    /// # Panics
    /// If the array is being read by a tape on another thread, or if it lives on a
    /// GPU (use [`Array::copy_from_slice`]).
    pub fn as_mut_slice(&mut self) -> SliceMut<'_, T> {
        write_slice(&self.buf, "Array::as_mut_slice")
    }

    /// Copies `src` into this array; shapes must match, devices may differ (host to
    /// device, device to host, between devices). Fails with [`Error::InUse`] if
    /// `src` is being written or this array is being read or written through
    /// another handle ([`Array::share`]: a live slice, a launch or a tape).
    ///
    /// ```
    /// use weft_runtime::{Array, Device, Error};
    /// let src = Array::from_slice(Device::Cpu, &[1.0f32, 2.0]);
    /// let mut dst = Array::<f32>::zeros(Device::Cpu, [2]);
    /// let other = dst.share();
    /// let reading = other.as_slice();
    /// assert!(matches!(dst.copy_from(&src), Err(Error::InUse { .. })));
    /// drop(reading);
    /// dst.copy_from(&src).unwrap();
    /// assert_eq!(dst.to_vec(), vec![1.0, 2.0]);
    /// ```
    pub fn copy_from(&mut self, src: &Array<T, N>) -> Result<(), Error> {
        if src.shape != self.shape {
            return Err(Error::Shape(format!(
                "cannot copy an array of shape {:?} into one of shape {:?}",
                src.shape, self.shape
            )));
        }
        if Arc::ptr_eq(&src.buf, &self.buf) {
            return Ok(());
        }
        let _r = read_guard(&src.buf, "Array::copy_from", "source")?;
        let _w = write_guard(&self.buf, "Array::copy_from", "destination")?;
        self.buf.copy_from(&src.buf, "Array::copy_from")
    }

    /// Overwrites the contents from a host slice of the same length ([`Error::InUse`]
    /// while the array is in use through another handle).
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<(), Error> {
        if src.len() != self.len() {
            return Err(Error::Shape(format!(
                "cannot copy {} elements into an array of shape {:?}",
                src.len(),
                self.shape
            )));
        }
        let _w = write_guard(&self.buf, "Array::copy_from_slice", "array")?;
        self.buf.write_slice(src, "Array::copy_from_slice")
    }

    /// A copy of this array (without its gradient) on `device`.
    ///
    /// # Panics
    /// If the copy fails ([`Array::try_to_device`] returns the error instead).
    pub fn to_device(&self, device: Device) -> Self {
        or_panic("Array::to_device", self.try_to_device(device))
    }

    /// A copy of this array (without its gradient) on `device`, or why it failed
    /// (no such device, a driver error, [`Error::InUse`] while it is being written
    /// through another handle).
    pub fn try_to_device(&self, device: Device) -> Result<Self, Error> {
        self.copy_to(device, "Array::to_device")
    }

    /// A copy on `device`, for host operation `what`.
    fn copy_to(&self, device: Device, what: &'static str) -> Result<Self, Error> {
        let _r = read_guard(&self.buf, what, "array")?;
        let out = Array::try_zeros(device, self.shape)?;
        {
            let _w = write_guard(&out.buf, what, "copy")?;
            out.buf.copy_from(&self.buf, what)?;
        }
        Ok(out)
    }

    /// Sets every element to `value`.
    ///
    /// # Panics
    /// If the device fails ([`Array::try_fill`] returns the error instead).
    pub fn fill(&mut self, value: T) {
        or_panic("Array::fill", self.try_fill(value))
    }

    /// Sets every element to `value` (queued on a GPU), or says why it failed (a
    /// driver error, or [`Error::InUse`]).
    pub fn try_fill(&mut self, value: T) -> Result<(), Error> {
        let _w = write_guard(&self.buf, "Array::fill", "array")?;
        self.buf.fill(value, "Array::fill")
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
    ///
    /// # Panics
    /// If the gradient cannot be allocated on the array's device.
    pub fn ensure_grad(&mut self) {
        if self.grad.is_none() {
            self.grad = Some(or_panic(
                "Array::ensure_grad",
                Buffer::zeroed(self.device(), self.len()),
            ));
        }
    }

    /// Whether the array carries a gradient.
    pub fn has_grad(&self) -> bool {
        self.grad.is_some()
    }

    /// The gradient, if the array carries one (CPU arrays; see
    /// [`Array::grad_to_vec`] for any device).
    ///
    /// # Panics
    /// If the array lives on a GPU.
    pub fn grad(&self) -> Option<Slice<'_, T>> {
        self.grad.as_ref().map(|g| read_slice(g, "Array::grad"))
    }

    /// The gradient, writable (to seed an output's gradient before `backward`; CPU
    /// arrays, see [`Array::set_grad`] for any device).
    ///
    /// # Panics
    /// If the array lives on a GPU.
    pub fn grad_mut(&mut self) -> Option<SliceMut<'_, T>> {
        self.grad
            .as_ref()
            .map(|g| write_slice(g, "Array::grad_mut"))
    }

    /// Overwrites the gradient with `values` (creating it if needed), on any device;
    /// [`Error::InUse`] while the gradient is in use through another handle.
    pub fn set_grad(&mut self, values: &[T]) -> Result<(), Error> {
        if values.len() != self.len() {
            return Err(Error::Shape(format!(
                "cannot set the gradient of an array of shape {:?} from {} values",
                self.shape,
                values.len()
            )));
        }
        self.ensure_grad();
        let g = self.grad.as_ref().unwrap();
        let _w = write_guard(g, "Array::set_grad", "gradient")?;
        g.write_slice(values, "Array::set_grad")
    }

    /// A copy of the gradient, if the array carries one (waits for the device).
    ///
    /// # Panics
    /// If reading a GPU gradient fails, or if the gradient is being written through
    /// another handle ([`Error::InUse`]).
    pub fn grad_to_vec(&self) -> Option<Vec<T>> {
        self.grad.as_ref().map(|g| {
            let _r =
                read_guard(g, "Array::grad_to_vec", "gradient").unwrap_or_else(|e| panic!("{e}"));
            or_panic("Array::grad_to_vec", g.read_vec("Array::grad_to_vec"))
        })
    }

    /// Sets every element of the gradient to `value` (giving the array one if it
    /// has none), queued on a GPU like [`Array::fill`]: the seed of a backward pass
    /// ([`Tape::run_backward`](crate::Tape::run_backward)) that, unlike
    /// [`Array::set_grad`], copies nothing from the host, so it can be captured in a
    /// CUDA graph with the rest of an optimization step.
    ///
    /// ```
    /// use weft_runtime::{Array, Device};
    /// let mut loss = Array::<f32>::zeros(Device::Cpu, [1]);
    /// loss.fill_grad(1.0).unwrap();
    /// assert_eq!(loss.grad_to_vec(), Some(vec![1.0]));
    /// ```
    pub fn fill_grad(&mut self, value: T) -> Result<(), Error> {
        self.ensure_grad();
        let g = self.grad.as_ref().unwrap();
        let _w = write_guard(g, "Array::fill_grad", "gradient")?;
        g.fill(value, "Array::fill_grad")
    }

    /// Sets the gradient to zero (if the array carries one; queued on a GPU).
    ///
    /// # Panics
    /// If the device fails, or if the gradient is in use through another handle
    /// ([`Error::InUse`]).
    pub fn zero_grad(&self) {
        if let Some(g) = &self.grad {
            let _w =
                write_guard(g, "Array::zero_grad", "gradient").unwrap_or_else(|e| panic!("{e}"));
            or_panic("Array::zero_grad", g.zero("Array::zero_grad"));
        }
    }

    // ----- for generated code and the tape -----------------------------------------

    /// A read-only kernel view, for the launch of `kernel` as parameter `param`,
    /// with the shared borrow that makes it valid (CPU arrays).
    #[doc(hidden)]
    pub fn view(
        &self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(ArrayView<T, N>, BorrowGuard), Error> {
        host_only(&self.buf, "Array::view")?;
        let g = BorrowGuard::read(&self.buf.flags).map_err(|c| launch_error(kernel, param, c))?;
        let p = self.buf.host_ptr().unwrap();
        Ok((ArrayView::new(p, self.shape, kernel, param), g))
    }

    /// A writable kernel view, with the exclusive borrow that makes it valid (CPU
    /// arrays).
    #[doc(hidden)]
    pub fn view_mut(
        &mut self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(ArrayView<T, N>, BorrowGuard), Error> {
        host_only(&self.buf, "Array::view_mut")?;
        let g = BorrowGuard::write_unversioned(&self.buf.flags)
            .map_err(|c| launch_error(kernel, param, c))?;
        let p = self.buf.host_ptr().unwrap();
        Ok((ArrayView::new(p, self.shape, kernel, param), g))
    }

    /// A writable view of the gradient (a null view if there is none), for adjoints
    /// (CPU arrays).
    #[doc(hidden)]
    pub fn grad_view(
        &self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(ArrayView<T, N>, Option<BorrowGuard>), Error> {
        match &self.grad {
            None => Ok((ArrayView::null(), None)),
            Some(g) => {
                host_only(g, "Array::grad_view")?;
                let guard =
                    BorrowGuard::write(&g.flags).map_err(|c| launch_error(kernel, param, c))?;
                Ok((
                    ArrayView::new(g.host_ptr().unwrap(), self.shape, kernel, param),
                    Some(guard),
                ))
            }
        }
    }

    /// The device address of the elements (`CUdeviceptr`; 0 for an empty array), or
    /// `None` for an array not in CUDA memory. Only valid while the array lives and
    /// while a borrow is held for the access a kernel makes
    /// ([`Array::device_arg`], [`Array::device_arg_mut`]).
    #[doc(hidden)]
    pub fn device_ptr(&self) -> Option<u64> {
        self.buf.device_mem().map(|m| m.ptr())
    }

    /// The device address of the gradient, or `None` if the array has no gradient or
    /// is not in CUDA memory.
    #[doc(hidden)]
    pub fn grad_device_ptr(&self) -> Option<u64> {
        self.grad
            .as_ref()
            .and_then(|g| g.device_mem())
            .map(|m| m.ptr())
    }

    /// The device address for a read-only kernel argument, with the shared borrow
    /// (held until the launch is queued, so the tape's version counting sees it).
    #[doc(hidden)]
    pub fn device_arg(
        &self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(u64, BorrowGuard), Error> {
        let p = self
            .device_ptr()
            .ok_or_else(|| on_device_error(kernel, param, self.device()))?;
        let g = BorrowGuard::read(&self.buf.flags).map_err(|c| launch_error(kernel, param, c))?;
        Ok((p, g))
    }

    /// The device address for a writable kernel argument, with the exclusive borrow
    /// (the launch bumps the version of the arrays it writes, [`crate::tape::bump`]).
    #[doc(hidden)]
    pub fn device_arg_mut(
        &mut self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(u64, BorrowGuard), Error> {
        let p = self
            .device_ptr()
            .ok_or_else(|| on_device_error(kernel, param, self.device()))?;
        let g = BorrowGuard::write_unversioned(&self.buf.flags)
            .map_err(|c| launch_error(kernel, param, c))?;
        Ok((p, g))
    }

    /// The gradient's device address for an adjoint launch (0 and no borrow if the
    /// array has no gradient).
    #[doc(hidden)]
    pub fn grad_device_arg(
        &self,
        kernel: &'static str,
        param: &'static str,
    ) -> Result<(u64, Option<BorrowGuard>), Error> {
        match &self.grad {
            None => Ok((0, None)),
            Some(g) => {
                let p = g
                    .device_mem()
                    .map(|m| m.ptr())
                    .ok_or_else(|| on_device_error(kernel, param, self.device()))?;
                let guard =
                    BorrowGuard::write(&g.flags).map_err(|c| launch_error(kernel, param, c))?;
                Ok((p, Some(guard)))
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

    /// The data and the gradient buffers (for the NaN check).
    pub(crate) fn buffers(&self) -> (&Buffer<T>, Option<&Buffer<T>>) {
        (&self.buf, self.grad.as_deref())
    }

    /// The buffer's identity and version, for the tape's overwrite check.
    #[doc(hidden)]
    pub fn flags(&self) -> Arc<Flags> {
        self.buf.flags.clone()
    }
}

impl<T: Elem> Array<T, 1> {
    /// A 1-D array holding a copy of `data`.
    ///
    /// # Panics
    /// If the device is unavailable ([`Array::try_from_slice`] returns the error).
    pub fn from_slice(device: Device, data: &[T]) -> Self {
        or_panic("Array::from_slice", Self::try_from_slice(device, data))
    }

    /// A 1-D array holding a copy of `data`, or why it cannot be created.
    pub fn try_from_slice(device: Device, data: &[T]) -> Result<Self, Error> {
        Ok(Self::with_buf(
            Buffer::from_slice(device, data)?,
            [data.len()],
        ))
    }

    /// A 1-D array taking ownership of `data` (copied to the device unless it is
    /// the CPU).
    ///
    /// # Panics
    /// If the device is unavailable.
    pub fn from_vec(device: Device, data: Vec<T>) -> Self {
        let n = data.len();
        or_panic("Array::from_vec", Self::from_vec_shaped(device, data, [n]))
    }
}
