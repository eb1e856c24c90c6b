//! Gradients through the array parameters of funcs: a func that reads an array
//! adds into its gradient, one that writes an array passes the written element's
//! gradient on (and consumes it), nested funcs hand the gradient arrays down, and
//! structures holding arrays go down with structures of their gradient arrays.
//! Where an array has no gradient array (in a structure built inside the kernel),
//! a func that differentiates through it refuses instead of dropping the gradient.

use weft::prelude::*;

/// `n` values in `lo..hi` from a fixed seed.
fn inputs(n: usize, seed: u64, lo: f64, hi: f64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// The cube of the gap between neighbours `i` and `i + 1`.
#[weft::func]
fn gap_cubed(x: &Array<f64>, i: i32) -> f64 {
    let d = x[i + 1] - x[i];
    d * d * d
}

/// Two gaps and a plain read, through a nested func.
#[weft::func]
fn two_gaps(x: &Array<f64>, w: &Array<f64>, i: i32) -> f64 {
    w[i] * gap_cubed(x, i) + sin(x[i]) * gap_cubed(w, i)
}

#[weft::kernel]
fn chain_energy(x: &Array<f64>, w: &Array<f64>, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], two_gaps(x, w, i));
}

/// Checks `run`'s gradients with respect to `arrays` against central differences
/// on every device.
fn check(
    arrays: &[Vec<f64>],
    mut run: impl FnMut(&[&Array<f64>], &mut Array<f64>) -> Result<(), weft::Error>,
) {
    for d in weft_testkit::devices::devices() {
        check_on(d, arrays, &mut run);
    }
}

/// [`check`] on device `d`.
fn check_on(
    d: Device,
    arrays: &[Vec<f64>],
    mut run: impl FnMut(&[&Array<f64>], &mut Array<f64>) -> Result<(), weft::Error>,
) {
    let mut owned: Vec<Array<f64>> = arrays.iter().map(|a| Array::from_slice(d, a)).collect();
    let mut refs: Vec<&mut Array<f64>> = owned.iter_mut().collect();
    let report = gradcheck(&mut refs, None, |a, loss| {
        loss.fill(0.0);
        run(a, loss)
    })
    .unwrap();
    let total: usize = arrays.iter().map(Vec::len).sum();
    assert_eq!(report.checked, total, "{d:?}: {report}");
    assert!(report.max_rel < 1e-6, "{d:?}: {report}");
}

#[test]
fn funcs_reading_arrays_add_into_their_gradients() {
    let n = 24;
    check(
        &[inputs(n + 1, 1, -1.0, 1.0), inputs(n + 1, 2, -1.0, 1.0)],
        |a, loss| chain_energy::launch(n, a[0], a[1], loss),
    );
}

/// Stores `3 v` (the gradient of the element it overwrites goes to `v`).
#[weft::func]
fn put(y: &mut Array<f64>, i: i32, v: f64) {
    y[i] = v * 3.0;
}

/// Adds `v²` into `y[i]`.
#[weft::func]
fn scatter_square(y: &mut Array<f64>, i: i32, v: f64) {
    atomic_add(&mut y[i], v * v);
}

/// `put` twice to one element: only the second store reaches the output.
#[weft::kernel]
fn store_through_funcs(x: &Array<f64>, y: &mut Array<f64>, z: &mut Array<f64>) {
    let i = tid();
    put(y, i, x[i] * x[i]);
    put(y, i, sin(x[i]));
    scatter_square(z, i / 2, x[i] + 1.0);
}

#[weft::kernel]
fn weighted_sum(y: &Array<f64>, z: &Array<f64>, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], y[i] * y[i] + (i as f64 + 1.0) * z[i / 2]);
}

#[test]
fn funcs_writing_arrays_pass_the_gradient_on() {
    let n = 16;
    for d in weft_testkit::devices::devices() {
        let mut y = Array::zeros(d, [n]).requires_grad();
        let mut z = Array::zeros(d, [n / 2]).requires_grad();
        let mut x = Array::from_slice(d, &inputs(n, 3, -1.0, 1.0));
        let report = gradcheck(&mut [&mut x], None, |a, loss| {
            loss.fill(0.0);
            y.fill(0.0);
            z.fill(0.0);
            store_through_funcs::launch(n, a[0], &mut y, &mut z)?;
            weighted_sum::launch(n, &y, &z, loss)
        })
        .unwrap();
        assert_eq!(report.checked, n, "{d:?}: {report}");
        assert!(report.max_rel < 1e-6, "{d:?}: {report}");
    }
}

/// Particle positions in a structure, as simulation states hold them.
#[weft::structure]
pub struct Cloud {
    /// Positions along a line.
    pub x: Array<f64>,
}

/// The kernel hands a func an array of its structure parameter: the gradient
/// arrives in the structure's array.
#[weft::kernel]
fn cloud_energy(c: &Cloud, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], gap_cubed(c.x, i));
}

#[test]
fn kernels_hand_funcs_the_arrays_of_structures() {
    let n = 12;
    check(&[inputs(n + 1, 4, -1.0, 1.0)], |a, loss| {
        let c = Cloud { x: a[0].share() };
        cloud_energy::launch(n, &c, loss)
    });
}

/// A func with a structure parameter hands one of its arrays on.
#[weft::func]
fn cloud_gap(c: &Cloud, i: i32) -> f64 {
    gap_cubed(c.x, i)
}

#[weft::kernel]
fn cloud_energy_nested(c: &Cloud, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], cloud_gap(c, i));
}

/// How many of `x` lie below `v`: reads only for comparisons.
#[weft::func]
fn count_below(x: &Array<f64>, v: f64) -> f64 {
    let mut s = 0.0f64;
    for k in 0..x.len() {
        if x[k] < v {
            s += 1.0f64;
        }
    }
    s
}

#[weft::func]
fn rank_scaled(c: &Cloud, v: f64) -> f64 {
    count_below(c.x, v) * v * v
}

#[weft::kernel]
fn ranks(c: &Cloud, v: &Array<f64>, loss: &mut Array<f64>) {
    let i = tid();
    let mut d = c;
    if i < 0 {
        d = c;
    }
    atomic_add(&mut loss[0], rank_scaled(d, v[i]));
}

#[test]
fn funcs_hand_on_the_arrays_of_structure_parameters() {
    let n = 12;
    check(&[inputs(n + 1, 6, -1.0, 1.0)], |a, loss| {
        let c = Cloud { x: a[0].share() };
        cloud_energy_nested::launch(n, &c, loss)
    });
}

/// Weights and positions, nested.
#[weft::structure]
pub struct Body {
    /// The positions.
    pub cloud: Cloud,
    /// A weight per gap.
    pub w: Array<f64>,
}

/// A func hands a nested structure on (the gradient structure goes down by path).
#[weft::func]
fn body_gap(b: &Body, i: i32) -> f64 {
    b.w[i] * cloud_gap(b.cloud, i) + cos(b.cloud.x[i])
}

/// Writes `2 v` into the structure's array.
#[weft::func]
fn set_doubled(out: &mut Cloud, i: i32, v: f64) {
    out.x[i] = 2.0 * v;
}

#[weft::kernel]
fn body_step(b: &Body, out: &mut Cloud) {
    let i = tid();
    set_doubled(out, i, body_gap(b, i));
}

#[weft::kernel]
fn cubes(c: &Cloud, loss: &mut Array<f64>) {
    let i = tid();
    atomic_add(&mut loss[0], c.x[i] * c.x[i] * c.x[i]);
}

#[test]
fn nested_structures_go_down_and_funcs_write_through_them() {
    let n = 10;
    for d in weft_testkit::devices::devices() {
        let mut out = Cloud {
            x: Array::zeros(d, [n]).requires_grad(),
        };
        check_on(
            d,
            &[inputs(n + 1, 7, -1.0, 1.0), inputs(n, 8, 0.5, 1.5)],
            |a, loss| {
                let b = Body {
                    cloud: Cloud { x: a[0].share() },
                    w: a[1].share(),
                };
                out.x.fill(0.0);
                body_step::launch(n, &b, &mut out)?;
                cubes::launch(n, &out, loss)
            },
        );
    }
}

/// A structure copied into a variable: its array has no gradient array there.
#[weft::kernel]
fn local_cloud(c: &Cloud, loss: &mut Array<f64>) {
    let i = tid();
    let mut d = c;
    if i < 0 {
        d = c;
    }
    atomic_add(&mut loss[0], cloud_gap(d, i));
}

#[test]
fn arrays_without_gradient_arrays_refuse_only_when_differentiated() {
    let n = 4;
    let c = Cloud {
        x: Array::from_slice(Device::Cpu, &inputs(n + 1, 5, -1.0, 1.0)).requires_grad(),
    };
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| local_cloud::launch(n, &c, &mut loss))
        .unwrap();
    let e = tape.backward(&mut loss).unwrap_err().to_string();
    assert!(
        e.contains("hands a local structure's array `x` to func `cloud_gap`"),
        "{e}"
    );

    // The same hand-over where no gradient passes through the array.
    let v0 = [-0.5, 0.0, 0.25, 2.0];
    let v = Array::from_slice(Device::Cpu, &v0).requires_grad();
    let mut loss = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| ranks::launch(n, &c, &v, &mut loss)).unwrap();
    tape.backward(&mut loss).unwrap();
    let x = c.x.to_vec();
    let g = v.grad_to_vec().unwrap();
    for (k, v) in v0.iter().enumerate() {
        let count = x.iter().filter(|&&x| x < *v).count() as f64;
        assert_eq!(g[k], 2.0 * count * v, "{k}");
    }
}

/// Squares an element in place: the replay would read the squared value.
#[weft::func]
fn square_in_place(x: &mut Array<f64>, i: i32) {
    x[i] = x[i] * x[i];
}

#[weft::kernel]
fn squares(x: &mut Array<f64>) {
    square_in_place(x, tid());
}

/// The kernel reads `y`, a func writes it.
#[weft::kernel]
fn read_then_put(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let a = y[i];
    put(y, i, a * x[i]);
}

#[test]
fn reads_and_writes_of_one_array_split_across_funcs_refuse() {
    let mut x = Array::from_slice(Device::Cpu, &[1.0, 2.0]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| squares::launch(2, &mut x)).unwrap();
    let e = tape
        .backward_from(&mut x, &[1.0, 1.0])
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("func `square_in_place`") && e.contains("reads and writes array `x`"),
        "{e}"
    );

    let x = Array::from_slice(Device::Cpu, &[1.0, 2.0]).requires_grad();
    let mut y = Array::from_slice(Device::Cpu, &[3.0, 4.0]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| read_then_put::launch(2, &x, &mut y))
        .unwrap();
    let e = tape
        .backward_from(&mut y, &[1.0, 1.0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("reads and writes array `y`"), "{e}");
}

/// `a[i] + 1`, through a read-only array parameter.
#[weft::func]
fn plus_one(a: &Array<f64>, i: i32) -> f64 {
    a[i] + 1.0
}

/// Writes `y[i]`, then reads it back through [`plus_one`]: a `&mut` array
/// goes where a func wants `&` (as `&mut T` coerces to `&T` in Rust).
#[weft::kernel]
fn write_then_read(x: &Array<f64>, y: &mut Array<f64>, out: &mut Array<f64>) {
    let i = tid();
    y[i] = 2.0 * x[i];
    out[i] = plus_one(y, i);
}

#[test]
fn writable_arrays_go_to_funcs_that_read() {
    for d in weft_testkit::devices::devices() {
        let x = Array::from_slice(d, &[1.0, -2.5, 4.0]);
        let mut y = Array::<f64>::zeros(d, [3]);
        let mut out = Array::<f64>::zeros(d, [3]);
        write_then_read::launch(3, &x, &mut y, &mut out).unwrap();
        assert_eq!(out.to_vec(), vec![3.0, -4.0, 9.0], "{d:?}");
    }
    // On a tape the read of a written array is refused, as everywhere.
    let x = Array::from_slice(Device::Cpu, &[1.0, 2.0]).requires_grad();
    let mut y = Array::<f64>::zeros(Device::Cpu, [2]).requires_grad();
    let mut out = Array::<f64>::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| write_then_read::launch(2, &x, &mut y, &mut out))
        .unwrap();
    let e = tape
        .backward_from(&mut out, &[1.0, 1.0])
        .unwrap_err()
        .to_string();
    assert!(e.contains("reads and writes array `y`"), "{e}");
}

#[test]
fn every_kernel_here_has_ptx() {
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            chain_energy,
            store_through_funcs,
            weighted_sum,
            cloud_energy,
            cloud_energy_nested,
            local_cloud,
            body_step,
            cubes,
            ranks,
            squares,
            read_then_put,
            write_then_read
        ),
        // (The other refusals are the kernels' own, after their PTX is built.)
        &[("squares", "reads and writes array `x`")],
    );
}
