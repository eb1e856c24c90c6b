//! Intermediate arrays: zeroed, on the model's device, and with gradients
//! while a tape records (so gradients flow through them). The one-launch
//! calls off the tape ([`crate::tree`]) take theirs from a per-thread pool
//! ([`Pooled`]): a call of a few microseconds should not spend a tenth of
//! them allocating.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::ops::{Deref, DerefMut};

use weft::__private::Elem;
use weft::prelude::*;
use weft_sim::Model;

use crate::Result;

macro_rules! zeros_of {
    ($($(#[$doc:meta])* $name:ident: $t:ty;)*) => {$(
        $(#[$doc])*
        pub(crate) fn $name(model: &Model, n: usize) -> Result<Array<$t>> {
            let a = Array::try_zeros(model.device(), [n])?;
            Ok(if Tape::is_recording() { a.requires_grad() } else { a })
        }
    )*};
}

zeros_of! {
    /// `n` floats.
    floats: f32;
    /// `n` doubles.
    doubles: f64;
    /// `n` vectors.
    vec3s: Vec3;
    /// `n` matrices.
    mat3s: Mat3;
    /// `n` spatial vectors.
    vectors: SpatialVector;
    /// `n` transforms.
    transforms: Transform;
}

/// One spatial vector per degree of freedom.
pub(crate) fn dof_vectors(model: &Model) -> Result<Array<SpatialVector>> {
    vectors(model, model.joint_dof_count())
}

/// One spatial vector per joint.
pub(crate) fn joint_vectors(model: &Model) -> Result<Array<SpatialVector>> {
    vectors(model, model.joint_count())
}

/// One transform per joint.
pub(crate) fn joint_transforms(model: &Model) -> Result<Array<Transform>> {
    transforms(model, model.joint_count())
}

/// One pose per body.
pub(crate) fn poses(model: &Model) -> Result<Array<Transform>> {
    transforms(model, model.body_count())
}

thread_local! {
    /// CPU arrays of this thread's calls, lent out or waiting for the next ones.
    static POOL: RefCell<Vec<Slot>> = const { RefCell::new(Vec::new()) };
}

/// At most this many arrays (lent out or waiting) are kept in a thread's
/// pool; when it is full, an array coming back replaces the earliest kept
/// idle one (so a thread that moves on to models of other sizes pools those
/// instead).
const POOL_SIZE: usize = 64;

/// One pooled array: its element type and length (compared without a call
/// through `Any`), and a box holding an `Option<Array<T>>`, `None` while the
/// array is lent out (so that lending and returning it allocate nothing).
struct Slot {
    ty: TypeId,
    len: usize,
    lent: bool,
    cell: Box<dyn Any>,
}

/// A scratch array of `n` elements that, on the CPU and while no tape
/// records, comes from this thread's pool and goes back to it when dropped
/// (so a call's scratch is allocated once per thread and size); otherwise a
/// fresh zeroed array (with a gradient while a tape records).
pub(crate) struct Pooled<T: Elem> {
    array: Option<Array<T>>,
    pooled: bool,
}

impl<T: Elem> Pooled<T> {
    /// `n` zeroed elements on `model`'s device.
    pub(crate) fn zeros(model: &Model, n: usize) -> Result<Self> {
        let (mut p, reused) = Self::take(model, n)?;
        if reused {
            p.try_fill(T::zeroed())?;
        }
        Ok(p)
    }

    /// `n` elements on `model`'s device holding whatever the array's last
    /// user left (zeros when fresh): for arrays that a kernel writes before
    /// it reads them, so that no call pays for a fill it does not need.
    pub(crate) fn scratch(model: &Model, n: usize) -> Result<Self> {
        Ok(Self::take(model, n)?.0)
    }

    /// The array of [`Pooled::scratch`], and whether it was used before.
    fn take(model: &Model, n: usize) -> Result<(Self, bool)> {
        if model.device() != Device::Cpu || Tape::is_recording() {
            let a = Array::try_zeros(model.device(), [n])?;
            let a = if Tape::is_recording() {
                a.requires_grad()
            } else {
                a
            };
            let p = Pooled {
                array: Some(a),
                pooled: false,
            };
            return Ok((p, false));
        }
        let ty = TypeId::of::<T>();
        let reused = POOL.with_borrow_mut(|pool| {
            let slot = pool
                .iter_mut()
                .find(|s| s.ty == ty && s.len == n && !s.lent)?;
            let a = slot.cell.downcast_mut::<Option<Array<T>>>()?.take()?;
            slot.lent = true;
            Some(a)
        });
        let was_used = reused.is_some();
        let array = match reused {
            Some(a) => a,
            None => Array::try_zeros(Device::Cpu, [n])?,
        };
        let p = Pooled {
            array: Some(array),
            pooled: true,
        };
        Ok((p, was_used))
    }
}

impl<T: Elem> Deref for Pooled<T> {
    type Target = Array<T>;
    fn deref(&self) -> &Array<T> {
        self.array.as_ref().expect("present until dropped")
    }
}

impl<T: Elem> DerefMut for Pooled<T> {
    fn deref_mut(&mut self) -> &mut Array<T> {
        self.array.as_mut().expect("present until dropped")
    }
}

impl<T: Elem> Drop for Pooled<T> {
    fn drop(&mut self) {
        let Some(a) = self.array.take().filter(|a| self.pooled && !a.has_grad()) else {
            return;
        };
        // Thread teardown: the pool may be gone; the array is then dropped.
        let _ = POOL.try_with(|pool| {
            let mut pool = pool.borrow_mut();
            let (ty, len) = (TypeId::of::<T>(), a.len());
            // Back into a lent slot of its kind (its own, or an equal one).
            let slot = pool
                .iter_mut()
                .find(|s| s.ty == ty && s.len == len && s.lent);
            if let Some(cell) = slot.and_then(|s| {
                s.lent = false;
                s.cell.downcast_mut::<Option<Array<T>>>()
            }) {
                *cell = Some(a);
            } else {
                if pool.len() >= POOL_SIZE {
                    // Slots are pushed at the back: the first idle one is
                    // the earliest kept.
                    match pool.iter().position(|s| !s.lent) {
                        Some(i) => drop(pool.remove(i)),
                        None => return,
                    }
                }
                pool.push(Slot {
                    ty,
                    len,
                    lent: false,
                    cell: Box::new(Some(a)),
                });
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_arrays_come_back_zeroed() {
        let model = weft_sim::ModelBuilder::new().finalize(Device::Cpu).unwrap();
        let first = {
            let mut a = Pooled::<f32>::zeros(&model, 5).unwrap();
            a.fill(3.0);
            a.flags()
        };
        let a = Pooled::<f32>::zeros(&model, 5).unwrap();
        assert!(std::sync::Arc::ptr_eq(&first, &a.flags()), "reused");
        assert_eq!(a.to_vec(), vec![0.0; 5]);
        let b = Pooled::<f32>::zeros(&model, 5).unwrap();
        assert!(
            !std::sync::Arc::ptr_eq(&a.flags(), &b.flags()),
            "not shared"
        );
        let mut tape = Tape::new();
        tape.record(|| {
            let c = Pooled::<f32>::zeros(&model, 5).unwrap();
            assert!(c.has_grad(), "on a tape: a fresh array with a gradient");
        });
    }
}
