//! Packing kernel arguments into the one byte buffer a PTX kernel takes.
//!
//! The layout is the PTX emitter's (`weft_ir::emit_ptx::layout`): a 32-byte header
//! (launch extents as 4 × i32, the thread count as i32, padding, the error-record
//! address as u64), then every scalar component of every parameter in order, each
//! aligned to its own size — vectors by component, matrices column by column,
//! quaternions x y z w, transforms p then q, spatial vectors top then bottom, spatial
//! matrices row-major, structures field by field, booleans as u32, arrays as their
//! device address (u64) then one i32 extent per dimension.

use crate::buffer::{BorrowConflict, BorrowGuard};
use crate::{Array, Dims, Elem, Error};
use weft_types::{
    DMat2, DMat3, DMat4, DQuat, DSpatialMatrix, DSpatialVector, DTransform, DVec2, DVec3, DVec4,
    IVec2, IVec3, IVec4, Mat2, Mat3, Mat4, Quat, SpatialMatrix, SpatialVector, Transform, UVec2,
    UVec3, UVec4, Vec2, Vec3, Vec4,
};

/// The argument buffer of one CUDA launch.
#[derive(Debug)]
pub struct ArgBuf {
    bytes: Vec<u8>,
    /// The borrows of the packed arrays, held until [`ArgBuf::finish`] so that one
    /// launch cannot read an array through one argument and write it through
    /// another (the same rule as on the CPU).
    guards: Vec<BorrowGuard>,
}

impl ArgBuf {
    /// A buffer with the header for a launch over `dims`, reporting to the error
    /// record at `error_record` (0: none).
    pub fn new(dims: &Dims, error_record: u64) -> ArgBuf {
        let mut b = ArgBuf {
            bytes: Vec::with_capacity(128),
            guards: Vec::new(),
        };
        for d in 0..4 {
            let e = if d < dims.ndim() { dims.shape()[d] } else { 1 };
            b.push_bytes(&(e as i32).to_ne_bytes());
        }
        b.push_bytes(&(dims.total() as i32).to_ne_bytes());
        b.push_bytes(&error_record.to_ne_bytes());
        debug_assert_eq!(b.bytes.len(), 32);
        b
    }

    /// Appends one component, aligned to its size.
    pub fn push_bytes(&mut self, v: &[u8]) {
        let a = v.len();
        let at = self.bytes.len().div_ceil(a) * a;
        self.bytes.resize(at, 0);
        self.bytes.extend_from_slice(v);
    }

    /// The finished buffer (padded to a multiple of 8 bytes); releases the borrows.
    pub fn finish(mut self) -> Vec<u8> {
        let n = self.bytes.len().div_ceil(8) * 8;
        self.bytes.resize(n, 0);
        self.bytes
    }
}

/// A value that can be passed to a CUDA kernel.
pub trait PackArg {
    /// Appends this value's components.
    fn pack(&self, b: &mut ArgBuf);
}

macro_rules! pack_scalar {
    ($($t:ty),*) => {$(
        impl PackArg for $t {
            #[inline]
            fn pack(&self, b: &mut ArgBuf) {
                b.push_bytes(&self.to_ne_bytes());
            }
        }
    )*};
}
pack_scalar!(f32, f64, i32, u32, i64, u64);

impl PackArg for bool {
    #[inline]
    fn pack(&self, b: &mut ArgBuf) {
        b.push_bytes(&(*self as u32).to_ne_bytes());
    }
}

macro_rules! pack_components {
    ($($t:ty => $s:ty),*) => {$(
        impl PackArg for $t {
            #[inline]
            fn pack(&self, b: &mut ArgBuf) {
                for x in self.to_array() {
                    <$s as PackArg>::pack(&x, b);
                }
            }
        }
    )*};
}
pack_components!(
    Vec2 => f32, Vec3 => f32, Vec4 => f32, DVec2 => f64, DVec3 => f64, DVec4 => f64,
    IVec2 => i32, IVec3 => i32, IVec4 => i32, UVec2 => u32, UVec3 => u32, UVec4 => u32,
    Quat => f32, DQuat => f64
);

macro_rules! pack_matrix {
    ($($t:ty => $s:ty),*) => {$(
        impl PackArg for $t {
            #[inline]
            fn pack(&self, b: &mut ArgBuf) {
                // Column-major, as glam stores it.
                for x in self.to_cols_array() {
                    <$s as PackArg>::pack(&x, b);
                }
            }
        }
    )*};
}
pack_matrix!(Mat2 => f32, Mat3 => f32, Mat4 => f32, DMat2 => f64, DMat3 => f64, DMat4 => f64);

macro_rules! pack_spatial {
    ($($t:ty, $v:ty, $m:ty),*) => {$(
        impl PackArg for $t {
            #[inline]
            fn pack(&self, b: &mut ArgBuf) {
                self.p.pack(b);
                self.q.pack(b);
            }
        }
        impl PackArg for $v {
            #[inline]
            fn pack(&self, b: &mut ArgBuf) {
                self.top.pack(b);
                self.bottom.pack(b);
            }
        }
        impl PackArg for $m {
            #[inline]
            fn pack(&self, b: &mut ArgBuf) {
                for row in &self.m {
                    for x in row {
                        x.pack(b);
                    }
                }
            }
        }
    )*};
}
pack_spatial!(
    Transform,
    SpatialVector,
    SpatialMatrix,
    DTransform,
    DSpatialVector,
    DSpatialMatrix
);

fn borrow_error(kernel: &'static str, param: &'static str, c: BorrowConflict) -> Error {
    Error::Borrow {
        kernel,
        param,
        reason: match c {
            BorrowConflict::Writing => "it is being written",
            BorrowConflict::Reading => "it is being read",
        },
    }
}

fn pack_extents(shape: &[usize], b: &mut ArgBuf) {
    for d in shape {
        (*d as i32).pack(b);
    }
}

impl<T: Elem, const N: usize> Array<T, N> {
    /// Appends this array's device address and extents for a CUDA launch of
    /// `kernel`, borrowing it for reading or writing until the arguments are
    /// finished (the launch is ordered on the device's stream, so the borrow only
    /// has to exclude host-side users and the launch's other arguments).
    #[doc(hidden)]
    pub fn pack_cuda(
        &self,
        write: bool,
        kernel: &'static str,
        param: &'static str,
        b: &mut ArgBuf,
    ) -> Result<(), Error> {
        let flags = self.flags();
        // Unversioned: the launch bumps the versions of the arrays the kernel does
        // write afterwards; an array of a `&mut S` that it only reads keeps its
        // version (or the tape would see it overwritten).
        let guard = if write {
            BorrowGuard::write_unversioned(&flags)
        } else {
            BorrowGuard::read(&flags)
        };
        b.guards
            .push(guard.map_err(|c| borrow_error(kernel, param, c))?);
        let ptr = self.device_ptr().ok_or(Error::Unavailable(self.device()))?;
        // A graph being captured keeps the memory alive as long as itself.
        crate::cuda::retain_in_capture(self.share());
        ptr.pack(b);
        pack_extents(&self.shape(), b);
        Ok(())
    }

    /// Appends this array's gradient (address 0 when it has none) for an adjoint
    /// launch of `kernel`.
    #[doc(hidden)]
    pub fn pack_cuda_grad(
        &self,
        kernel: &'static str,
        param: &'static str,
        b: &mut ArgBuf,
    ) -> Result<(), Error> {
        let _ = (kernel, param);
        if self.has_grad() {
            crate::cuda::retain_in_capture(self.share());
        }
        self.grad_device_ptr().unwrap_or(0).pack(b);
        pack_extents(&self.shape(), b);
        Ok(())
    }
}

/// Launches entry `kernel` of `ptx` over `dims` on CUDA device `ordinal` with the
/// packed arguments (the generated launch code's last step).
#[doc(hidden)]
pub fn launch(
    ordinal: usize,
    ptx: &'static str,
    kernel: &'static str,
    dims: &Dims,
    args: &[u8],
) -> Result<(), Error> {
    crate::cuda::Launcher::new(ordinal).launch(ptx, kernel, dims.total(), args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_are_aligned_to_their_size() {
        let mut b = ArgBuf::new(&Dims::from(10usize), 0);
        1.0f32.pack(&mut b);
        2.0f64.pack(&mut b);
        Vec3::new(3.0, 4.0, 5.0).pack(&mut b);
        true.pack(&mut b);
        let v = b.finish();
        assert_eq!(&v[0..4], &10i32.to_ne_bytes());
        assert_eq!(&v[16..20], &10i32.to_ne_bytes());
        assert_eq!(&v[32..36], &1.0f32.to_ne_bytes());
        assert_eq!(&v[40..48], &2.0f64.to_ne_bytes());
        assert_eq!(&v[48..52], &3.0f32.to_ne_bytes());
        assert_eq!(&v[60..64], &1u32.to_ne_bytes());
        assert_eq!(v.len(), 64);
    }
}
