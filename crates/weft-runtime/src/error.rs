//! Runtime errors.

use crate::Device;

/// What went wrong at run time (bad shapes, mismatched devices, arrays in use,
/// driver failures, ...).
#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum Error {
    /// The arrays of one launch live on different devices.
    #[error(
        "kernel `{kernel}`: array `{first}` is on {first_device} but `{other}` is on {other_device}; all arrays of a launch must be on one device"
    )]
    DeviceMismatch {
        /// Kernel name.
        kernel: &'static str,
        /// First array parameter.
        first: &'static str,
        /// Its device.
        first_device: Device,
        /// The disagreeing parameter.
        other: &'static str,
        /// Its device.
        other_device: Device,
    },
    /// The launch grid has the wrong number of dimensions for the kernel's `tid()`.
    #[error(
        "kernel `{kernel}` destructures `tid()` into {expected} indices but was launched with a {got}-D grid"
    )]
    LaunchDims {
        /// Kernel name.
        kernel: &'static str,
        /// Dimensions the kernel expects.
        expected: usize,
        /// Dimensions given.
        got: usize,
    },
    /// A shape does not match the data or the other operand.
    #[error("shape mismatch: {0}")]
    Shape(String),
    /// An array of a launch is in use elsewhere (a tape or another thread).
    #[error("kernel `{kernel}`: cannot use array `{param}`: {reason}")]
    Borrow {
        /// Kernel name.
        kernel: &'static str,
        /// The parameter.
        param: &'static str,
        /// What holds it.
        reason: &'static str,
    },
    /// A host-side operation on an array could not borrow it: another handle on the
    /// same memory ([`crate::Array::share`], a tape) is reading or writing it, through
    /// a live slice ([`crate::Array::as_slice`]) or a launch on another thread.
    #[error("{what}: cannot use the {array}: {reason}")]
    InUse {
        /// The operation (e.g. "Array::copy_from").
        what: &'static str,
        /// Which array of the operation: "array", "source", "destination", "gradient".
        array: &'static str,
        /// What holds it ("it is being written ...").
        reason: &'static str,
    },
    /// The NaN check ([`crate::set_check_nan`]) found a NaN or an infinity in an
    /// array that a launch may write (for an adjoint launch: a gradient it
    /// accumulates into).
    #[error(
        "kernel `{kernel}` ({pass}): array `{array}` holds {value} at index {index:?} (the first non-finite element, found by the NaN check)"
    )]
    NonFinite {
        /// Kernel name.
        kernel: &'static str,
        /// "launch" (forward) or "adjoint".
        pass: &'static str,
        /// The array: the parameter (`y`), a field of a structure parameter
        /// (`state.x`), or a gradient (`adj_x`, `adj_state.x`).
        array: &'static str,
        /// The element's index, one entry per dimension.
        index: Vec<usize>,
        /// The value found ("NaN", "inf" or "-inf"; the first such float of a
        /// vector or matrix element).
        value: String,
    },
    /// A recorded launch read an array that was overwritten before `backward`.
    #[error(
        "tape: kernel `{reader}` read array `{param}`, which {by} before backward; its gradient would be wrong (write to a new array, or record a fresh tape)"
    )]
    Overwritten {
        /// The launch that read the array.
        reader: &'static str,
        /// Its parameter name for the array.
        param: &'static str,
        /// Who overwrote it: "kernel `name` (launched later) overwrote" or "was modified".
        by: String,
    },
    /// The gradient of a kernel would be wrong, so it is refused.
    #[error("cannot differentiate kernel `{kernel}`: {reason}")]
    Gradient {
        /// Kernel name.
        kernel: &'static str,
        /// Why.
        reason: &'static str,
    },
    /// The kernel uses something the CUDA back end cannot translate yet.
    #[error("kernel `{kernel}` cannot run on CUDA yet: {reason}")]
    Unsupported {
        /// Kernel name.
        kernel: &'static str,
        /// What is missing.
        reason: &'static str,
    },
    /// The operation needs a device that is not present.
    #[error("device {0} is not available")]
    Unavailable(Device),
    /// A CUDA operation failed: no driver, no such device, a driver error, a PTX
    /// module that does not load (with the JIT compiler's log), a failed launch.
    #[error("CUDA: {what}: {reason}")]
    Cuda {
        /// The operation, naming the device and, for launches and module loads, the
        /// kernel (e.g. "launch of kernel `integrate` on cuda:0").
        what: String,
        /// Why it failed: the driver's error name and description, or the JIT log.
        reason: String,
    },
    /// A GPU kernel indexed an array out of bounds. Kernels built with bounds checks
    /// (debug builds) report the first failing access through the device's error
    /// record; it is read when the host next synchronizes with the device.
    #[error(
        "kernel `{kernel}`: index {index} out of bounds for array `{param}` of extent {len} (reported by the GPU)"
    )]
    OutOfBounds {
        /// Kernel name (or `#<id>` if its id was never registered).
        kernel: String,
        /// The array parameter (or `#<index>` if its name is unknown).
        param: String,
        /// The offending index (one dimension of a multi-dimensional access).
        index: i64,
        /// The extent of that dimension.
        len: i64,
    },
    /// A GPU adjoint kernel ran out of its per-thread stack: the loops it reverses
    /// carry more values through more iterations than fit (see
    /// `weft_ir::emit_ptx::ADJOINT_STACK_BYTES`).
    #[error(
        "kernel `{kernel}`: the adjoint of its loops that carry values needs more than the {capacity} bytes of per-thread stack a GPU thread has ({needed} bytes at least); run this adjoint on the CPU, or carry fewer values through fewer iterations (e.g. split the loop across launches)"
    )]
    AdjointStackOverflow {
        /// Kernel name (or `#<id>`).
        kernel: String,
        /// Bytes needed when it overflowed.
        needed: i64,
        /// Bytes available per thread.
        capacity: i64,
    },
    /// An argument of a host-side call is out of its accepted range (a grid
    /// dimension of zero, a cell size that is not finite and positive, ...).
    #[error("invalid {what}: {message}")]
    InvalidArgument {
        /// The argument.
        what: &'static str,
        /// What is wrong with it and what is accepted.
        message: String,
    },
    /// Host code tried to reach the elements of an array that lives on a GPU.
    #[error(
        "{what}: the array lives on {device}, not in host memory; copy it with `to_vec()` or `to_device(Device::Cpu)`"
    )]
    NotOnHost {
        /// The operation attempted (e.g. "Array::as_slice").
        what: &'static str,
        /// Where the array lives.
        device: Device,
    },
}
