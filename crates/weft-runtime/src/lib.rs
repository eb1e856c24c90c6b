//! Weft's runtime: [`Device`]s, [`Array`]s and the machinery that generated kernels
//! use to launch on them.
//!
//! Kernels are written with `#[weft::kernel]`; the macro generates a typed `launch`
//! function per kernel that ends up in [`cpu::launch`] (or, later, the CUDA launcher).

#![deny(missing_docs)]

mod array;
mod autodiff;
pub mod cpu;
mod device;
mod dims;
mod elem;
mod error;
mod view;

pub use array::Array;
pub use autodiff::{
    Accum, AdjointStack, GradElem, KernelZero, MatrixSet, SplatSum, adj_splat, with_mat_elem,
};
pub use device::Device;
pub use dims::Dims;
pub use elem::{AtomicElem, Elem};
pub use error::Error;
pub use view::{ArrayView, Offset, component, mat_elem, with_component};

/// A user struct usable as a kernel parameter (implemented by `#[weft::structure]`).
///
/// `View` is what kernel code sees: the struct itself for plain data, or a companion
/// struct whose array fields are [`ArrayView`]s.
pub trait KernelStruct {
    /// The kernel-side representation.
    type View: Copy + Send + Sync;
    /// The kernel-side representation with read-only arrays, for a launch of `kernel`.
    fn view(&self, kernel: &'static str, param: &'static str) -> Self::View;
    /// The kernel-side representation with writable arrays (a `&mut S` parameter).
    fn view_mut(&mut self, kernel: &'static str, param: &'static str) -> Self::View {
        self.view(kernel, param)
    }
    /// The devices of the arrays this struct holds, with their names (none for plain data).
    fn devices(&self, out: &mut Vec<(&'static str, Device)>) {
        let _ = out;
    }
}
