//! Weft's runtime: [`Device`]s, [`Array`]s and the machinery that generated kernels
//! use to launch on them.
//!
//! Kernels are written with `#[weft::kernel]`; the macro generates a typed `launch`
//! function per kernel that ends up in [`cpu::launch`] (or, later, the CUDA launcher).

#![deny(missing_docs)]

mod array;
pub mod cpu;
mod device;
mod dims;
mod elem;
mod error;
mod view;

pub use array::Array;
pub use device::Device;
pub use dims::Dims;
pub use elem::{AtomicElem, Elem};
pub use error::Error;
pub use view::{ArrayView, Offset, component, mat_elem};

/// A user struct usable as a kernel parameter (implemented by `#[weft::structure]`).
///
/// `View` is what kernel code sees: the struct itself for plain data, or a companion
/// struct whose array fields are [`ArrayView`]s.
pub trait KernelStruct {
    /// The kernel-side representation.
    type View: Copy + Send + Sync;
    /// Builds the kernel-side representation for a launch of `kernel` on `device`.
    fn view(&self, kernel: &'static str, param: &'static str) -> Self::View;
    /// Devices of the arrays this struct holds (none for plain data).
    fn devices(&self, out: &mut Vec<Device>) {
        let _ = out;
    }
}
