//! The opt-in check for NaN and infinity after each launch (Warp's `verify_fp`).
//!
//! When on, every kernel launch — forward or adjoint, on the CPU or a GPU — scans
//! the float arrays it may write once it has run: the forward launch its `&mut`
//! arrays (arrays inside `&mut` structures included), the adjoint the gradients it
//! accumulates into. The first element holding a NaN or an infinity is returned
//! from the launch as [`Error::NonFinite`], naming the kernel, the array, the index
//! and the value. GPU arrays are copied back to scan them, so a checked GPU launch
//! waits for the device; launches captured into a CUDA graph are not checked (their
//! work runs only when the graph is launched).
//!
//! Off by default. On with the environment variable `WEFT_CHECK_NAN=1` (read at the
//! first launch), [`set_check_nan`] for the whole process, or [`check_nan_scope`]
//! for the launches of one thread while a guard lives. When off, a launch pays one
//! relaxed atomic load; kernels are never changed.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU8, AtomicUsize, Ordering::Relaxed};
use std::sync::{Mutex, Once};

use crate::buffer::{BorrowGuard, Buffer};
use crate::{Array, Device, Elem, Error};

const OFF: u8 = 1;
const ON: u8 = 2;

/// The process-wide setting: 0 until the environment variable is read, then
/// [`OFF`] or [`ON`].
static GLOBAL: AtomicU8 = AtomicU8::new(0);
/// How many reasons there are to look further than this counter: the unread
/// environment variable or the process-wide setting being on (one), plus every live
/// [`CheckNanScope`]. Zero means off everywhere.
static LIVE: AtomicUsize = AtomicUsize::new(1);
/// Serialises changes of [`GLOBAL`] with their effect on [`LIVE`].
static SETTING: Mutex<()> = Mutex::new(());
static FROM_ENV: Once = Once::new();

thread_local! {
    /// This thread's override while a [`CheckNanScope`] lives (0: none).
    static SCOPE: Cell<u8> = const { Cell::new(0) };
}

/// Whether `WEFT_CHECK_NAN` asks for the check: `1`, `true`, `on` or `yes`.
fn env_says_on(value: Option<&str>) -> bool {
    matches!(
        value.map(|v| v.trim().to_ascii_lowercase()).as_deref(),
        Some("1" | "true" | "on" | "yes")
    )
}

/// Reads `WEFT_CHECK_NAN` into [`GLOBAL`] once.
fn init_from_env() {
    FROM_ENV.call_once(|| {
        let on = env_says_on(std::env::var("WEFT_CHECK_NAN").ok().as_deref());
        let _s = SETTING.lock().unwrap_or_else(|e| e.into_inner());
        GLOBAL.store(if on { ON } else { OFF }, Relaxed);
        if !on {
            // The unread variable's count goes; an "on" keeps it as the setting's.
            LIVE.fetch_sub(1, Relaxed);
        }
    });
}

/// Whether launches on this thread check their results for NaN and infinity now.
///
/// ```
/// use weft_runtime::{check_nan, check_nan_scope};
/// let _on = check_nan_scope(true);
/// assert!(check_nan());
/// ```
#[inline]
pub fn check_nan() -> bool {
    LIVE.load(Relaxed) != 0 && check_nan_slow()
}

#[cold]
fn check_nan_slow() -> bool {
    match SCOPE.with(Cell::get) {
        ON => true,
        OFF => false,
        _ => {
            init_from_env();
            GLOBAL.load(Relaxed) == ON
        }
    }
}

/// Turns the check on or off for every thread (overriding `WEFT_CHECK_NAN`;
/// threads inside a [`check_nan_scope`] keep their scope's choice).
pub fn set_check_nan(on: bool) {
    init_from_env();
    let _s = SETTING.lock().unwrap_or_else(|e| e.into_inner());
    let was = GLOBAL.swap(if on { ON } else { OFF }, Relaxed) == ON;
    match (was, on) {
        (false, true) => {
            LIVE.fetch_add(1, Relaxed);
        }
        (true, false) => {
            LIVE.fetch_sub(1, Relaxed);
        }
        _ => {}
    }
}

/// Turns the check on or off for the launches of this thread until the returned
/// guard is dropped (scopes nest; dropping one restores the choice before it).
///
/// ```
/// use weft_runtime::{check_nan, check_nan_scope};
/// {
///     let _off = check_nan_scope(false);
///     assert!(!check_nan());
/// }
/// ```
pub fn check_nan_scope(on: bool) -> CheckNanScope {
    LIVE.fetch_add(1, Relaxed);
    let previous = SCOPE.with(|s| s.replace(if on { ON } else { OFF }));
    CheckNanScope {
        previous,
        _not_send: PhantomData,
    }
}

/// Holds this thread's choice of [`check_nan_scope`]; dropping it restores the
/// previous one.
#[must_use = "the scope ends when the guard is dropped"]
#[derive(Debug)]
pub struct CheckNanScope {
    previous: u8,
    /// The choice belongs to the thread that made it.
    _not_send: PhantomData<*const ()>,
}

impl Drop for CheckNanScope {
    fn drop(&mut self) {
        SCOPE.with(|s| s.set(self.previous));
        LIVE.fetch_sub(1, Relaxed);
    }
}

/// After a forward launch of `kernel`: fails if array `label` holds a NaN or an
/// infinity.
#[doc(hidden)]
pub fn array<T: Elem, const N: usize>(
    kernel: &'static str,
    label: &'static str,
    a: &Array<T, N>,
) -> Result<(), Error> {
    let (data, _) = a.buffers();
    scan(data, a.shape(), kernel, "launch", label)
}

/// After an adjoint launch of `kernel`: fails if the gradient of the array (named
/// `label`, e.g. `adj_x`) holds a NaN or an infinity.
#[doc(hidden)]
pub fn grad<T: Elem, const N: usize>(
    kernel: &'static str,
    label: &'static str,
    a: &Array<T, N>,
) -> Result<(), Error> {
    match a.buffers() {
        (_, Some(g)) => scan(g, a.shape(), kernel, "adjoint", label),
        (_, None) => Ok(()),
    }
}

fn scan<T: Elem, const N: usize>(
    buf: &Buffer<T>,
    shape: [usize; N],
    kernel: &'static str,
    pass: &'static str,
    array: &'static str,
) -> Result<(), Error> {
    if !T::FLOATS || buf.len() == 0 {
        return Ok(());
    }
    let found = match buf.host_ptr() {
        Some(p) => {
            let _g = BorrowGuard::read(&buf.flags).map_err(|_| Error::Borrow {
                kernel,
                param: array,
                reason: "the NaN check cannot read it: it is being written elsewhere",
            })?;
            // SAFETY: the shared borrow excludes writers while the slice lives.
            let data = unsafe { std::slice::from_raw_parts(p, buf.len()) };
            first_non_finite(data)
        }
        None => {
            if let Device::Cuda(o) = buf.device
                && crate::cuda::capturing_on(o)
            {
                return Ok(());
            }
            first_non_finite(&buf.read_vec("the NaN check")?)
        }
    };
    match found {
        None => Ok(()),
        Some((flat, value)) => Err(Error::NonFinite {
            kernel,
            pass,
            array,
            index: unravel(flat, &shape),
            value: value.to_string(),
        }),
    }
}

fn first_non_finite<T: Elem>(data: &[T]) -> Option<(usize, f64)> {
    data.iter()
        .enumerate()
        .find_map(|(i, x)| x.non_finite().map(|v| (i, v)))
}

/// The row-major index of element `flat` of an array of `shape`.
fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for (k, &n) in shape.iter().enumerate().rev() {
        index[k] = flat % n.max(1);
        flat /= n.max(1);
    }
    index
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_variable_accepts_the_usual_spellings() {
        for v in ["1", "true", "ON", " yes "] {
            assert!(env_says_on(Some(v)), "{v}");
        }
        for v in [None, Some(""), Some("0"), Some("off"), Some("no")] {
            assert!(!env_says_on(v), "{v:?}");
        }
    }

    #[test]
    fn indices_are_row_major() {
        assert_eq!(unravel(7, &[3, 4]), vec![1, 3]);
        assert_eq!(unravel(5, &[10]), vec![5]);
        assert_eq!(unravel(23, &[2, 3, 4]), vec![1, 2, 3]);
    }

    #[test]
    fn scopes_nest_and_restore() {
        let outer = check_nan_scope(true);
        {
            let _inner = check_nan_scope(false);
            assert!(!check_nan());
        }
        assert!(check_nan());
        drop(outer);
    }

    #[test]
    fn scans_find_the_first_non_finite_component() {
        use weft_types::Vec3;
        let a = Array::from_slice(
            Device::Cpu,
            &[
                Vec3::ZERO,
                Vec3::new(1.0, f32::NEG_INFINITY, f32::NAN),
                Vec3::X,
            ],
        );
        let e = array("k", "v", &a).unwrap_err();
        assert_eq!(
            e,
            Error::NonFinite {
                kernel: "k",
                pass: "launch",
                array: "v",
                index: vec![1],
                value: "-inf".into(),
            }
        );
        let ints = Array::from_slice(Device::Cpu, &[1i32, 2]);
        assert_eq!(array("k", "i", &ints), Ok(()));
    }
}
