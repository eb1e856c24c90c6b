//! Intermediate arrays: zeroed, on the model's device, and with gradients
//! while a tape records (so gradients flow through them). The one-launch
//! calls off the tape ([`crate::tree`]) take theirs from a per-thread pool
//! ([`Pooled`]): a call of a few microseconds should not spend a tenth of
//! them allocating.

use std::any::Any;
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
    /// CPU arrays of finished calls on this thread, for the next ones.
    static POOL: RefCell<Vec<Box<dyn Any>>> = const { RefCell::new(Vec::new()) };
}

/// At most this many arrays wait in a thread's pool.
const POOL_SIZE: usize = 32;

/// A zeroed scratch array of `n` elements that, on the CPU and while no tape
/// records, comes from this thread's pool and goes back to it when dropped
/// (so a call's scratch is allocated once per thread and size); otherwise a
/// plain [`zeros_of`]-style array.
pub(crate) struct Pooled<T: Elem> {
    array: Option<Array<T>>,
    pooled: bool,
}

impl<T: Elem> Pooled<T> {
    /// `n` zeroed elements on `model`'s device.
    pub(crate) fn zeros(model: &Model, n: usize) -> Result<Self> {
        if model.device() != Device::Cpu || Tape::is_recording() {
            let a = Array::try_zeros(model.device(), [n])?;
            let a = if Tape::is_recording() {
                a.requires_grad()
            } else {
                a
            };
            return Ok(Pooled {
                array: Some(a),
                pooled: false,
            });
        }
        let reused = POOL.with_borrow_mut(|pool| {
            let i = pool.iter().position(|a| {
                a.downcast_ref::<Array<T>>()
                    .is_some_and(|a| a.len() == n && !a.has_grad())
            })?;
            pool.swap_remove(i).downcast::<Array<T>>().ok()
        });
        let array = match reused {
            Some(mut a) => {
                a.try_fill(T::zeroed())?;
                *a
            }
            None => Array::try_zeros(Device::Cpu, [n])?,
        };
        Ok(Pooled {
            array: Some(array),
            pooled: true,
        })
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
        if let (true, Some(a)) = (self.pooled, self.array.take()) {
            // Thread teardown: the pool may be gone; the array is then dropped.
            let _ = POOL.try_with(|pool| {
                let mut pool = pool.borrow_mut();
                if pool.len() < POOL_SIZE {
                    pool.push(Box::new(a));
                }
            });
        }
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
