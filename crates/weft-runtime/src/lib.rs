//! Weft's runtime: [`Device`]s, [`Array`]s and the machinery that generated kernels
//! use to launch on them.
//!
//! Kernels are written with `#[weft::kernel]`; the macro generates a typed `launch`
//! function per kernel that ends up in [`cpu::launch`] or, for arrays on a GPU, the
//! CUDA launcher ([`pack::launch`]).

#![deny(missing_docs)]

#[doc(hidden)]
#[path = "generated_code.rs"]
pub mod __private;
mod array;
mod autodiff;
mod buffer;
pub mod cpu;
pub mod cuda;
mod device;
mod dims;
mod elem;
mod error;
pub mod funcs;
mod gradcheck;
pub mod nan_check;
pub mod pack;
mod summable;
pub mod tape;
mod view;

pub use array::{Array, Slice, SliceMut};
pub use autodiff::{
    Accum, AdjointStack, GradElem, KernelZero, MatrixSet, SplatSum, adj_splat, with_mat_elem,
};
pub use buffer::{BorrowGuard, Flags};
pub use device::Device;
pub use dims::Dims;
pub use elem::{AtomicElem, Elem};
pub use error::Error;
pub use gradcheck::{Components, GradCheck, gradcheck};
pub use nan_check::{CheckNanScope, check_nan, check_nan_scope, set_check_nan};
pub use summable::Summable;
pub use tape::Tape;
pub use view::{ArrayView, Offset, component, mat_elem, with_component};

/// A user struct usable as a kernel parameter (implemented by `#[weft::structure]`).
///
/// `View` is what kernel code sees: the struct itself for plain data, or a companion
/// struct whose array fields are [`ArrayView`]s.
pub trait KernelStruct {
    /// The kernel-side representation.
    type View: Copy + Send + Sync;
    /// The kernel-side representation with read-only arrays, for a launch of
    /// `kernel`; the arrays' borrows are pushed onto `guards`.
    fn view(
        &self,
        kernel: &'static str,
        param: &'static str,
        guards: &mut Vec<BorrowGuard>,
    ) -> Result<Self::View, Error>;
    /// The kernel-side representation with writable arrays (a `&mut S` parameter).
    fn view_mut(
        &mut self,
        kernel: &'static str,
        param: &'static str,
        guards: &mut Vec<BorrowGuard>,
    ) -> Result<Self::View, Error> {
        self.view(kernel, param, guards)
    }
    /// Like [`KernelStruct::view`], with views of only the arrays `used` names
    /// (a kernel that reaches a few of the arrays); the others are null views,
    /// not borrowed.
    #[doc(hidden)]
    fn view_used(
        &self,
        kernel: &'static str,
        param: &'static str,
        guards: &mut Vec<BorrowGuard>,
        used: &__private::Used,
    ) -> Result<Self::View, Error> {
        let _ = used;
        self.view(kernel, param, guards)
    }
    /// Like [`KernelStruct::view_mut`], with views of only the arrays `used`
    /// names.
    #[doc(hidden)]
    fn view_mut_used(
        &mut self,
        kernel: &'static str,
        param: &'static str,
        guards: &mut Vec<BorrowGuard>,
        used: &__private::Used,
    ) -> Result<Self::View, Error> {
        let _ = used;
        self.view_mut(kernel, param, guards)
    }
    /// The view of a structure a kernel does not reach at all: null views for
    /// its arrays (plain data as it is).
    #[doc(hidden)]
    fn view_unused(&self) -> Self::View;
    /// The devices of the arrays `used` names ([`KernelStruct::devices`]).
    #[doc(hidden)]
    fn devices_used(&self, out: &mut Vec<(&'static str, Device)>, used: &__private::Used) {
        let _ = used;
        self.devices(out)
    }
    /// The kernel-side representation of the arrays' gradients: each array replaced
    /// by its gradient array (a null view where it has none), for an adjoint launch.
    fn grad_view(
        &self,
        kernel: &'static str,
        param: &'static str,
        guards: &mut Vec<Option<BorrowGuard>>,
    ) -> Result<Self::View, Error> {
        let _ = guards;
        self.view(kernel, param, &mut Vec::new())
    }
    /// Appends the struct's components for a CUDA launch (arrays as device address
    /// and extents, borrowed for writing when `write`); see [`pack`].
    #[doc(hidden)]
    fn pack_cuda(
        &self,
        write: bool,
        kernel: &'static str,
        param: &'static str,
        b: &mut pack::ArgBuf,
    ) -> Result<(), Error>;
    /// Like [`KernelStruct::pack_cuda`] with each array replaced by its gradient.
    #[doc(hidden)]
    fn pack_cuda_grad(
        &self,
        kernel: &'static str,
        param: &'static str,
        b: &mut pack::ArgBuf,
    ) -> Result<(), Error> {
        self.pack_cuda(false, kernel, param, b)
    }
    /// Another handle on the same arrays and gradients ([`Array::share`]).
    fn share(&self) -> Self
    where
        Self: Sized;
    /// The devices of the arrays this struct holds, with their names (none for plain data).
    fn devices(&self, out: &mut Vec<(&'static str, Device)>) {
        let _ = out;
    }
    /// Whether the struct holds arrays.
    fn holds_arrays() -> bool {
        false
    }
}
