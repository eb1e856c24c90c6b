//! `#[weft::kernel(forward_only)]`: a kernel without an adjoint (no adjoint Rust
//! function, no adjoint PTX). Off the tape it runs like any kernel; on a tape it
//! refuses to run while an array it reads or writes has a gradient. (The bad forms
//! of the flag are compile errors: `tests/ui/forward_only_attribute.rs`.)

use weft::prelude::*;

/// An in-place update (which would be refused an adjoint anyway), declared so.
#[weft::kernel(forward_only)]
fn add_in_place(x: &mut Array<f64>, v: &Array<f64>) {
    let i = tid();
    x[i] = x[i] + v[i];
}

/// The flag with `crate = path`, through a structure parameter.
#[weft::structure]
pub struct Particles {
    pub x: Array<f64>,
    pub v: Array<f64>,
}

#[weft::kernel(crate = ::weft, forward_only)]
fn drift(p: &mut Particles, dt: f64) {
    let i = tid();
    p.x[i] = p.x[i] + p.v[i] * dt;
}

#[weft::kernel]
fn scale(a: &Array<f64>, b: &mut Array<f64>, k: f64) {
    let i = tid();
    b[i] = a[i] * k;
}

const REASON: &str = "declared `forward_only`";

#[test]
fn off_the_tape_it_runs() {
    for d in weft_testkit::devices::devices() {
        let mut x = Array::from_slice(d, &[1.0, 2.0, 3.0]);
        let v = Array::from_slice(d, &[0.5, 0.5, -1.0]);
        add_in_place::launch(3, &mut x, &v).unwrap();
        assert_eq!(x.to_vec(), vec![1.5, 2.5, 2.0], "{d:?}");
        // Gradients on the arrays do not matter off the tape.
        let mut p = Particles {
            x: Array::from_slice(d, &[1.0, 2.0]).requires_grad(),
            v: Array::from_slice(d, &[2.0, -4.0]).requires_grad(),
        };
        drift::launch(2, &mut p, 0.5).unwrap();
        assert_eq!(p.x.to_vec(), vec![2.0, 0.0], "{d:?}");
        // Nor inside `Tape::pause`.
        let mut tape = Tape::new();
        tape.record(|| Tape::pause(|| drift::launch(2, &mut p, 0.5)))
            .unwrap();
        assert_eq!((p.x.to_vec(), tape.len()), (vec![3.0, -2.0], 0), "{d:?}");
    }
}

#[test]
fn on_a_tape_with_gradients_it_refuses_to_run() {
    for d in weft_testkit::devices::devices() {
        let mut x = Array::from_slice(d, &[1.0, 2.0]).requires_grad();
        let v = Array::from_slice(d, &[1.0, 1.0]);
        let mut tape = Tape::new();
        let e = tape
            .record(|| add_in_place::launch(2, &mut x, &v))
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Gradient {
                    kernel: "add_in_place",
                    ..
                }
            ),
            "{e:?}"
        );
        let msg = e.to_string();
        assert!(
            msg.starts_with("cannot differentiate kernel `add_in_place`: ") && msg.contains(REASON),
            "{msg}"
        );
        // Nothing ran, nothing was recorded.
        assert_eq!((x.to_vec(), tape.len()), (vec![1.0, 2.0], 0), "{d:?}");

        // A gradient on a read-only array, inside a structure, counts too.
        let mut p = Particles {
            x: Array::from_slice(d, &[1.0, 2.0]),
            v: Array::from_slice(d, &[2.0, -4.0]).requires_grad(),
        };
        let e = tape.record(|| drift::launch(2, &mut p, 0.5)).unwrap_err();
        assert!(
            e.to_string().contains("kernel `drift`") && e.to_string().contains(REASON),
            "{e}"
        );
        assert_eq!(p.x.to_vec(), vec![1.0, 2.0], "{d:?}");
    }
}

#[test]
fn on_a_tape_without_gradients_it_runs_and_is_checked_for_overwrites() {
    let d = Device::Cpu;
    // Nothing carries a gradient: it runs, and backward has nothing to do for it.
    let mut x = Array::from_slice(d, &[1.0, 2.0]);
    let v = Array::from_slice(d, &[1.0, 1.0]);
    let a = Array::from_slice(d, &[3.0, 4.0]).requires_grad();
    let mut b = Array::zeros(d, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        add_in_place::launch(2, &mut x, &v)?;
        scale::launch(2, &a, &mut b, 2.0)
    })
    .unwrap();
    assert_eq!(x.to_vec(), vec![2.0, 3.0]);
    assert_eq!(tape.kernels(), vec!["add_in_place", "scale"]);
    tape.backward(&mut b).unwrap();
    assert_eq!(a.grad_to_vec().unwrap(), vec![2.0, 2.0]);

    // Its writes are still stamped: overwriting what a recorded launch read is
    // reported with its name at backward.
    let mut y = Array::from_slice(d, &[1.0, 2.0]);
    let mut c = Array::zeros(d, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| {
        scale::launch(2, &y, &mut c, 2.0)?;
        add_in_place::launch(2, &mut y, &v)
    })
    .unwrap();
    let e = tape.backward(&mut c).unwrap_err();
    assert!(
        e.to_string()
            .contains("which kernel `add_in_place` (launched later) overwrote"),
        "{e}"
    );
}

#[test]
fn no_adjoint_is_generated() {
    for (name, adjoint) in [
        (add_in_place::NAME, add_in_place::ADJOINT_PTX),
        (drift::NAME, drift::ADJOINT_PTX),
    ] {
        let e = adjoint.expect_err(name);
        assert!(e.contains(REASON), "{name}: {e}");
    }
    // The forward PTX is there (and assembles, with `WEFT_PTXAS`); the adjoint
    // is reported missing for the declared reason.
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(add_in_place, drift, scale),
        &[("add_in_place", REASON), ("drift", REASON)],
    );
}
