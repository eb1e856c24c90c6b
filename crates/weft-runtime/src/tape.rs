//! [`Tape`]: records kernel launches and runs their adjoints backwards.

use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::Arc;

use crate::buffer::Flags;
use crate::{Array, Elem, Error};

/// One recorded launch.
#[doc(hidden)]
pub struct Record {
    /// The kernel.
    pub kernel: &'static str,
    /// Arrays the launch read: parameter name, buffer, version when read.
    pub reads: Vec<(&'static str, Arc<Flags>, u64)>,
    /// Arrays the launch wrote: parameter name and buffer (version after the write).
    pub writes: Vec<(&'static str, Arc<Flags>, u64)>,
    /// Runs the launch's adjoint with the arrays' gradients.
    pub backward: Box<dyn Fn() -> Result<(), Error>>,
    /// Zeroes the gradients of the launch's arrays.
    pub zero: Box<dyn Fn()>,
}

thread_local! {
    static ACTIVE: RefCell<Option<Vec<Record>>> = const { RefCell::new(None) };
}

/// Whether launches on this thread are being recorded.
#[doc(hidden)]
pub fn recording() -> bool {
    ACTIVE.with(|a| a.borrow().is_some())
}

/// Adds a launch to the tape recording on this thread.
#[doc(hidden)]
pub fn push(r: Record) {
    ACTIVE.with(|a| {
        if let Some(v) = a.borrow_mut().as_mut() {
            v.push(r);
        }
    });
}

/// The read/write stamp of an array for a [`Record`].
#[doc(hidden)]
pub fn stamp<T: Elem, const N: usize>(
    param: &'static str,
    a: &Array<T, N>,
) -> (&'static str, Arc<Flags>, u64) {
    let f = a.flags();
    let v = f.version();
    (param, f, v)
}

/// Marks `a` as written by a kernel launch (the launch's borrows leave versions
/// alone; the generated code bumps exactly the arrays the kernel writes).
#[doc(hidden)]
pub fn bump<T: Elem, const N: usize>(a: &Array<T, N>) {
    a.flags().bump();
}

/// Records the kernel launches made inside [`Tape::record`] and computes gradients
/// by running their adjoints in reverse order ([`Tape::backward`]).
///
/// Gradients go to arrays created with [`Array::requires_grad`]; a launch's arrays
/// without a gradient are skipped. The tape keeps handles on the arrays it must
/// read again; if one of them is overwritten before `backward` (by a later recorded
/// launch or by host code), `backward` fails and names both launches instead of
/// returning a wrong gradient.
///
/// ```
/// use weft_runtime::Tape;
/// let mut tape = Tape::new();
/// let n = tape.record(|| 1 + 1); // launches made in here are recorded
/// assert_eq!((n, tape.len()), (2, 0));
/// ```
///
/// With kernels (from the `weft` crate):
///
/// ```text
/// let x = Array::from_slice(Device::Cpu, &[1.0f32, 2.0, 3.0]).requires_grad();
/// let mut y = Array::zeros(Device::Cpu, [3]).requires_grad();
/// let mut tape = Tape::new();
/// tape.record(|| square::launch(3, &x, &mut y))?;
/// tape.backward_from(&mut y, &[1.0, 1.0, 1.0])?;
/// assert_eq!(x.grad_to_vec().unwrap(), vec![2.0, 4.0, 6.0]);
/// ```
pub struct Tape {
    records: Vec<Record>,
    // Recording is per thread, and the tape runs adjoints on the thread it is on.
    _not_send: PhantomData<*const ()>,
}

impl Default for Tape {
    fn default() -> Self {
        Tape::new()
    }
}

impl std::fmt::Debug for Tape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.records.iter().map(|r| r.kernel).collect();
        f.debug_struct("Tape").field("launches", &names).finish()
    }
}

impl Tape {
    /// Whether a tape is recording launches on this thread now (inside
    /// [`Tape::record`]). Solvers use it to keep every intermediate array alive
    /// for the adjoints instead of reusing buffers.
    pub fn is_recording() -> bool {
        recording()
    }

    /// Runs `f` without recording its launches on the tape recording on this
    /// thread, if any (and with [`Tape::is_recording`] false inside): for
    /// launches that carry no gradient and overwrite their own scratch, such as
    /// building a neighbour grid (`DeviceHashGrid::build` zeroes counts that an
    /// earlier of its launches read, which a recorded build would report as an
    /// overwritten input at `backward`). Reads of its results by later recorded
    /// launches are still checked.
    pub fn pause<R>(f: impl FnOnce() -> R) -> R {
        let taken = ACTIVE.with(|a| a.borrow_mut().take());
        // Resume even if `f` panics.
        struct Resume(Option<Vec<Record>>);
        impl Drop for Resume {
            fn drop(&mut self) {
                if let Some(v) = self.0.take() {
                    ACTIVE.with(|a| *a.borrow_mut() = Some(v));
                }
            }
        }
        let _resume = Resume(taken);
        f()
    }

    /// An empty tape.
    pub fn new() -> Self {
        Tape {
            records: Vec::new(),
            _not_send: PhantomData,
        }
    }

    /// Runs `f`, recording the kernel launches it makes on this thread (after any
    /// recorded before).
    ///
    /// # Panics
    /// If called while another tape is recording on this thread.
    pub fn record<R>(&mut self, f: impl FnOnce() -> R) -> R {
        ACTIVE.with(|a| {
            let mut a = a.borrow_mut();
            assert!(a.is_none(), "a tape is already recording on this thread");
            *a = Some(Vec::new());
        });
        // Stop recording even if `f` panics.
        struct Stop<'t>(&'t mut Vec<Record>);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                let recorded = ACTIVE.with(|a| a.borrow_mut().take()).unwrap_or_default();
                self.0.extend(recorded);
            }
        }
        let _stop = Stop(&mut self.records);
        f()
    }

    /// Number of recorded launches.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The recorded kernels, in launch order.
    pub fn kernels(&self) -> Vec<&'static str> {
        self.records.iter().map(|r| r.kernel).collect()
    }

    /// Seeds `loss`'s gradient with ones and runs the adjoints of the recorded
    /// launches in reverse order, accumulating into every gradient array.
    ///
    /// `loss` must carry a gradient ([`Array::requires_grad`]).
    pub fn backward<T: Elem + One, const N: usize>(
        &mut self,
        loss: &mut Array<T, N>,
    ) -> Result<(), Error> {
        let ones = vec![T::one(); loss.len()];
        self.backward_from(loss, &ones)
    }

    /// Sets `output`'s gradient to `seed` (the gradient of some scalar with respect
    /// to `output`) and runs the adjoints in reverse order.
    pub fn backward_from<T: Elem, const N: usize>(
        &mut self,
        output: &mut Array<T, N>,
        seed: &[T],
    ) -> Result<(), Error> {
        if seed.len() != output.len() {
            return Err(Error::Shape(format!(
                "backward: the seed has {} elements but the output has {}",
                seed.len(),
                output.len()
            )));
        }
        if !output.has_grad() {
            return Err(Error::Shape(
                "backward: the output array has no gradient; create it with `.requires_grad()`"
                    .into(),
            ));
        }
        output.set_grad(seed)?;
        self.run_backward()
    }

    /// Runs the adjoints in reverse order with the gradients as they are now (seed
    /// output gradients first with [`Array::grad_mut`]).
    pub fn run_backward(&mut self) -> Result<(), Error> {
        self.check_overwrites()?;
        for r in self.records.iter().rev() {
            (r.backward)()?;
        }
        Ok(())
    }

    /// Sets the gradients of every array the recorded launches used to zero.
    pub fn zero(&mut self) {
        for r in &self.records {
            (r.zero)();
        }
    }

    /// Forgets the recorded launches (gradients are kept).
    ///
    /// Between iterations of an optimization only the gradients of the inputs
    /// need clearing ([`Array::zero_grad`](crate::Array::zero_grad), or
    /// [`Tape::zero`] before the reset for everything): a recorded store's adjoint
    /// consumes the gradient it reads, and recording a launch zeroes the gradients
    /// of the arrays it only accumulates into (`atomic_add` / `atomic_sub`), so
    /// intermediate gradients never carry over from one tape to the next.
    pub fn reset(&mut self) {
        self.records.clear();
    }

    fn check_overwrites(&self) -> Result<(), Error> {
        for (j, r) in self.records.iter().enumerate() {
            for (param, flags, version) in &r.reads {
                if flags.version() == *version {
                    continue;
                }
                // Who wrote it after launch `j`?
                let writer = self.records[j + 1..]
                    .iter()
                    .find(|w| w.writes.iter().any(|(_, f, _)| f.id() == flags.id()))
                    .map(|w| w.kernel);
                return Err(Error::Overwritten {
                    reader: r.kernel,
                    param,
                    by: match writer {
                        Some(w) => format!("kernel `{w}` (launched later) overwrote"),
                        None => "was modified outside the recorded launches".into(),
                    },
                });
            }
        }
        Ok(())
    }
}

/// The multiplicative identity, for seeding gradients.
pub trait One: Copy {
    /// 1.
    fn one() -> Self;
}

impl One for f32 {
    fn one() -> Self {
        1.0
    }
}

impl One for f64 {
    fn one() -> Self {
        1.0
    }
}
