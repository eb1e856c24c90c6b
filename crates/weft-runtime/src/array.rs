//! [`Array`]: an N-dimensional array of elements on a device.

use crate::{ArrayView, Device, Elem, Error};

/// An N-dimensional (1–4) row-major array owned by a device.
///
/// Kernel parameters are written `&Array<T>` (read-only) or `&mut Array<T>`
/// (writable); `N` defaults to 1.
///
/// ```
/// use weft_runtime::{Array, Device};
/// let a = Array::from_slice(Device::Cpu, &[1.0f32, 2.0, 3.0]);
/// assert_eq!(a.shape(), [3]);
/// assert_eq!(a.to_vec(), vec![1.0, 2.0, 3.0]);
/// let m: Array<f32, 2> = Array::zeros(Device::Cpu, [2, 3]);
/// assert_eq!(m.len(), 6);
/// ```
#[derive(Clone)]
pub struct Array<T: Elem, const N: usize = 1> {
    data: Vec<T>,
    shape: [usize; N],
    device: Device,
}

impl<T: Elem, const N: usize> std::fmt::Debug for Array<T, N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Array")
            .field("elem", &std::any::type_name::<T>())
            .field("shape", &self.shape)
            .field("device", &self.device)
            .finish()
    }
}

fn check_ndim<const N: usize>() {
    assert!(
        (1..=4).contains(&N),
        "arrays have 1 to 4 dimensions, not {N}"
    );
}

impl<T: Elem, const N: usize> Array<T, N> {
    /// A zero-filled array of the given shape.
    pub fn zeros(device: Device, shape: [usize; N]) -> Self {
        check_ndim::<N>();
        let n = shape.iter().product();
        Array {
            data: vec![T::zeroed(); n],
            shape,
            device,
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
            data,
            shape,
            device,
        })
    }

    /// The shape.
    pub fn shape(&self) -> [usize; N] {
        self.shape
    }

    /// Total number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The device that owns the memory.
    pub fn device(&self) -> Device {
        self.device
    }

    /// A copy of the contents in row-major order.
    pub fn to_vec(&self) -> Vec<T> {
        self.data.clone()
    }

    /// The contents in row-major order (CPU arrays).
    pub fn as_slice(&self) -> &[T] {
        &self.data
    }

    /// The contents in row-major order, writable (CPU arrays).
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.data
    }

    /// Copies `src` into this array; shapes must match.
    pub fn copy_from(&mut self, src: &Array<T, N>) -> Result<(), Error> {
        if src.shape != self.shape {
            return Err(Error::Shape(format!(
                "cannot copy an array of shape {:?} into one of shape {:?}",
                src.shape, self.shape
            )));
        }
        self.data.copy_from_slice(&src.data);
        Ok(())
    }

    /// Overwrites the contents from a host slice of the same length.
    pub fn copy_from_slice(&mut self, src: &[T]) -> Result<(), Error> {
        if src.len() != self.data.len() {
            return Err(Error::Shape(format!(
                "cannot copy {} elements into an array of shape {:?}",
                src.len(),
                self.shape
            )));
        }
        self.data.copy_from_slice(src);
        Ok(())
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) {
        self.data.fill(value);
    }

    /// A read-only kernel view, for the launch of `kernel` as parameter `param`.
    #[doc(hidden)]
    pub fn view(&self, kernel: &'static str, param: &'static str) -> ArrayView<T, N> {
        // Read-only views are never written through (the type checker forbids it).
        ArrayView::new(self.data.as_ptr() as *mut T, self.shape, kernel, param)
    }

    /// A writable kernel view, for the launch of `kernel` as parameter `param`.
    #[doc(hidden)]
    pub fn view_mut(&mut self, kernel: &'static str, param: &'static str) -> ArrayView<T, N> {
        ArrayView::new(self.data.as_mut_ptr(), self.shape, kernel, param)
    }
}

impl<T: Elem> Array<T, 1> {
    /// A 1-D array holding a copy of `data`.
    pub fn from_slice(device: Device, data: &[T]) -> Self {
        Array {
            data: data.to_vec(),
            shape: [data.len()],
            device,
        }
    }

    /// A 1-D array taking ownership of `data`.
    pub fn from_vec(device: Device, data: Vec<T>) -> Self {
        let n = data.len();
        Array {
            data,
            shape: [n],
            device,
        }
    }
}
