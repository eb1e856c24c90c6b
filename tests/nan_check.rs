//! The opt-in NaN check (`weft::check_nan_scope`, `weft::set_check_nan`,
//! `WEFT_CHECK_NAN=1`): after a launch it reports the kernel, the array and the
//! first index holding a NaN or an infinity, for plain arrays, arrays inside
//! structures and the gradients an adjoint writes; with the check off the same
//! launches succeed. Every test runs on the CPU and, where CUDA is present, on the
//! GPU.
//!
//! The tests choose the check for their own thread with `check_nan_scope`, so the
//! one test that turns it on for the whole process cannot change their outcome.

use weft::prelude::*;
use weft::{check_nan_scope, set_check_nan};
use weft_testkit::devices::devices;

/// Writes `v` at index `at` of `y` and 1 elsewhere.
#[weft::kernel]
fn write_at(y: &mut Array<f32>, at: i32, v: f32) {
    let i = tid();
    if i == at {
        y[i] = v;
    } else {
        y[i] = 1.0;
    }
}

/// Writes `v` at `(r, c)` of a 2-D array and 0 elsewhere; reads `src`, never writes it.
#[weft::kernel]
fn write_at_2d(src: &Array<f32>, y: &mut Array<f32, 2>, r: i32, c: i32, v: f32) {
    let (i, j) = tid();
    if i == r && j == c {
        y[i][j] = v;
    } else {
        y[i][j] = src[0];
    }
}

#[weft::structure]
struct Cloud {
    count: Array<i32>,
    x: Array<Vec3>,
}

/// Writes `v` into the y component of `cloud.x[at]`.
#[weft::kernel]
fn write_into_cloud(cloud: &mut Cloud, at: i32, v: f32) {
    let i = tid();
    cloud.count[i] = i;
    if i == at {
        cloud.x[i] = Vec3::new(0.0, v, 0.0);
    } else {
        cloud.x[i] = Vec3::new(1.0, 1.0, 1.0);
    }
}

#[weft::kernel]
fn double(x: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    y[i] = x[i] * 2.0;
}

#[weft::structure]
struct Points {
    x: Array<f32>,
}

#[weft::kernel]
fn double_points(p: &Points, y: &mut Array<f32>) {
    let i = tid();
    y[i] = p.x[i] * 2.0;
}

fn non_finite(e: Error) -> (&'static str, &'static str, &'static str, Vec<usize>, String) {
    match e {
        Error::NonFinite {
            kernel,
            pass,
            array,
            index,
            value,
        } => (kernel, pass, array, index, value),
        other => panic!("expected Error::NonFinite, got {other}"),
    }
}

#[test]
fn a_plain_array_reports_kernel_array_and_index() {
    for d in devices() {
        let _on = check_nan_scope(true);
        let mut y = Array::<f32>::zeros(d, [10]);
        let e = write_at::launch(10, &mut y, 7, f32::NAN).unwrap_err();
        assert_eq!(
            non_finite(e),
            ("write_at", "launch", "y", vec![7], "NaN".into()),
            "{d}"
        );
        let e = write_at::launch(10, &mut y, 3, f32::NEG_INFINITY).unwrap_err();
        assert!(e.to_string().contains("`y` holds -inf at index [3]"), "{e}");
        // Finite results pass the check.
        write_at::launch(10, &mut y, 3, 2.0).unwrap();
    }
}

#[test]
fn a_two_dimensional_array_reports_the_row_and_column() {
    for d in devices() {
        let _on = check_nan_scope(true);
        // The read-only `src` holds a NaN too: only arrays the kernel may write count.
        let src = Array::from_slice(d, &[0.5f32, f32::NAN]);
        let mut y = Array::<f32, 2>::zeros(d, [3, 4]);
        let e = write_at_2d::launch((3, 4), &src, &mut y, 2, 1, f32::INFINITY).unwrap_err();
        assert_eq!(
            non_finite(e),
            ("write_at_2d", "launch", "y", vec![2, 1], "inf".into()),
            "{d}"
        );
    }
}

#[test]
fn an_array_inside_a_structure_reports_its_field() {
    for d in devices() {
        let _on = check_nan_scope(true);
        let mut cloud = Cloud {
            count: Array::zeros(d, [6]),
            x: Array::zeros(d, [6]),
        };
        let e = write_into_cloud::launch(6, &mut cloud, 4, f32::NAN).unwrap_err();
        assert_eq!(
            non_finite(e),
            (
                "write_into_cloud",
                "launch",
                "cloud.x",
                vec![4],
                "NaN".into()
            ),
            "{d}"
        );
    }
}

#[test]
fn an_adjoint_reports_the_gradient_it_writes() {
    for d in devices() {
        let _on = check_nan_scope(true);
        let x = Array::from_slice(d, &[1.0f32, 2.0, 3.0, 4.0]).requires_grad();
        let mut y = Array::<f32>::zeros(d, [4]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| double::launch(4, &x, &mut y)).unwrap();
        // A NaN seed at index 2 reaches adj_x[2] through the adjoint.
        let e = tape
            .backward_from(&mut y, &[1.0, 1.0, f32::NAN, 1.0])
            .unwrap_err();
        assert_eq!(
            non_finite(e),
            ("double", "adjoint", "adj_x", vec![2], "NaN".into()),
            "{d}"
        );
    }
}

#[test]
fn an_adjoint_reports_a_gradient_inside_a_structure() {
    for d in devices() {
        let _on = check_nan_scope(true);
        let p = Points {
            x: Array::from_slice(d, &[1.0f32, 2.0, 3.0]).requires_grad(),
        };
        let mut y = Array::<f32>::zeros(d, [3]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| double_points::launch(3, &p, &mut y))
            .unwrap();
        let e = tape
            .backward_from(&mut y, &[1.0, f32::INFINITY, 1.0])
            .unwrap_err();
        assert_eq!(
            non_finite(e),
            ("double_points", "adjoint", "adj_p.x", vec![1], "inf".into()),
            "{d}"
        );
    }
}

#[test]
fn with_the_check_off_the_same_launches_succeed() {
    for d in devices() {
        let _off = check_nan_scope(false);
        let mut y = Array::<f32>::zeros(d, [10]);
        write_at::launch(10, &mut y, 7, f32::NAN).unwrap();
        assert!(y.to_vec()[7].is_nan());
        let mut cloud = Cloud {
            count: Array::zeros(d, [6]),
            x: Array::zeros(d, [6]),
        };
        write_into_cloud::launch(6, &mut cloud, 4, f32::NAN).unwrap();
        let x = Array::from_slice(d, &[1.0f32, 2.0]).requires_grad();
        let mut y = Array::<f32>::zeros(d, [2]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| double::launch(2, &x, &mut y)).unwrap();
        tape.backward_from(&mut y, &[f32::NAN, 1.0]).unwrap();
        assert!(x.grad_to_vec().unwrap()[0].is_nan());
    }
}

#[test]
fn set_check_nan_turns_it_on_for_every_thread() {
    set_check_nan(true);
    let from_another_thread = std::thread::spawn(|| {
        let mut y = Array::<f32>::zeros(Device::Cpu, [4]);
        write_at::launch(4, &mut y, 1, f32::NAN)
    })
    .join()
    .unwrap();
    set_check_nan(false);
    assert_eq!(non_finite(from_another_thread.unwrap_err()).3, vec![1]);
}

/// Run by `the_environment_variable_turns_it_on` in a child process with
/// `WEFT_CHECK_NAN=1`; fails there if the variable is ignored.
#[test]
#[ignore = "run by the_environment_variable_turns_it_on with WEFT_CHECK_NAN=1"]
fn child_launch_under_the_environment_variable() {
    assert_eq!(std::env::var("WEFT_CHECK_NAN").as_deref(), Ok("1"));
    let mut y = Array::<f32>::zeros(Device::Cpu, [4]);
    let e = write_at::launch(4, &mut y, 2, f32::INFINITY).unwrap_err();
    assert_eq!(non_finite(e).3, vec![2]);
}

#[test]
fn the_environment_variable_turns_it_on() {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_launch_under_the_environment_variable",
            "--ignored",
            "--test-threads=1",
        ])
        .env("WEFT_CHECK_NAN", "1")
        .output()
        .unwrap();
    let log = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the child test failed:\n{log}");
    assert!(
        log.contains("1 passed"),
        "the child test did not run:\n{log}"
    );
}
