//! Which values carry gradient (`weft_ir::autodiff::activity`): reads that no
//! gradient passes through are allowed anywhere, and every place where gradient
//! would be lost — an array of structures, an atomic's old value, an index array
//! changed after the launch that read it through a func — refuses to differentiate
//! instead of giving a wrong gradient (structure values without arrays carry
//! gradient: `tests/structure_gradients.rs`).

use weft::prelude::*;

/// Records `run` on a tape, then asks for the gradient of `y` with weights 1.
fn backward(
    x: &Array<f64>,
    y: &mut Array<f64>,
    mut run: impl FnMut(&Array<f64>, &mut Array<f64>) -> Result<(), weft::Error>,
) -> Result<(), weft::Error> {
    let mut tape = Tape::new();
    tape.record(|| run(x, y)).unwrap();
    let ones = vec![1.0; y.len()];
    tape.backward_from(y, &ones)
}

fn input(d: Device) -> Array<f64> {
    Array::from_slice(d, &[0.5, 1.5, 2.5, -1.0]).requires_grad()
}

/// `x² + Σ {w_k : w_k < x}`, the sum behind `stop_gradient`: the func reads a
/// float array for a value no gradient passes through.
#[weft::func]
fn squared_plus_count(w: &Array<f64>, x: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..w.len() {
        if w[k] < x {
            s += w[k];
        }
    }
    x * x + stop_gradient(s)
}

#[weft::kernel]
fn read_without_gradient(x: &Array<f64>, w: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    y[i] = squared_plus_count(w, x[i]);
}

#[test]
fn reads_that_carry_no_gradient_are_allowed() {
    assert!(
        read_without_gradient::ADJOINT_PTX.is_ok(),
        "{:?}",
        read_without_gradient::ADJOINT_PTX.err()
    );
    for d in weft_testkit::devices::devices() {
        let x = input(d);
        let w = Array::from_slice(d, &[0.0, 1.0, 2.0]).requires_grad();
        let mut y = Array::zeros(d, [4]).requires_grad();
        backward(&x, &mut y, |x, y| {
            read_without_gradient::launch(4, x, &w, y)
        })
        .unwrap();
        assert_eq!(y.to_vec(), vec![0.25, 3.25, 9.25, 1.0], "{d:?}");
        assert_eq!(x.grad_to_vec().unwrap(), vec![1.0, 3.0, 5.0, -2.0], "{d:?}");
        assert_eq!(w.grad_to_vec().unwrap(), vec![0.0; 3], "{d:?}");
    }
}

/// A loop that fills a local array with integers: nothing in it to reverse.
#[weft::kernel]
fn integer_loop(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let mut seen = [0i32; 4];
    let mut k = 0;
    while k < 4 {
        seen[k] = k * i;
        k += 1;
    }
    y[i] = x[i] * (seen[3] as f64 + 1.0);
}

#[test]
fn loops_without_gradient_are_not_reversed() {
    // Reversing the loop would need snapshots of `seen`, which local arrays do not
    // have: the adjoint leaves the loop out instead of refusing.
    for d in weft_testkit::devices::devices() {
        let x = input(d);
        let mut y = Array::zeros(d, [4]).requires_grad();
        backward(&x, &mut y, |x, y| integer_loop::launch(4, x, y)).unwrap();
        assert_eq!(x.grad_to_vec().unwrap(), vec![1.0, 4.0, 7.0, 10.0], "{d:?}");
    }
}

#[weft::func]
fn put(y: &mut Array<f64>, i: i32, v: f64) {
    y[i] = v * 3.0;
}

#[weft::kernel]
fn store_in_func(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    put(y, i, x[i] * x[i]);
}

#[weft::func]
fn clear(y: &mut Array<f64>, i: i32) {
    y[i] = 0.0;
}

#[weft::kernel]
fn clear_in_func(y: &mut Array<f64>) {
    clear(y, tid());
}

#[weft::kernel]
fn double(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    y[i] = 2.0 * x[i];
}

#[test]
fn funcs_that_write_float_arrays_pass_the_gradient_on() {
    // (Before funcs took gradient arrays, this gradient was lost, then refused.)
    for d in weft_testkit::devices::devices() {
        let x = input(d);
        let mut y = Array::zeros(d, [4]).requires_grad();
        backward(&x, &mut y, |x, y| store_in_func::launch(4, x, y)).unwrap();
        // y = 3 x², dy/dx = 6 x.
        assert_eq!(
            x.grad_to_vec().unwrap(),
            vec![3.0, 9.0, 15.0, -6.0],
            "{d:?}"
        );
        // A constant store overwrites `y`, whose earlier gradient must then stop:
        // d(sum y)/dx = 0, not 2.
        let x = input(d);
        let mut y = Array::zeros(d, [4]).requires_grad();
        backward(&x, &mut y, |x, y| {
            double::launch(4, x, y)?;
            clear_in_func::launch(4, y)
        })
        .unwrap();
        assert_eq!(x.grad_to_vec().unwrap(), vec![0.0; 4], "{d:?}");
    }
}

#[weft::func]
fn count(c: &mut Array<f64>, i: i32) {
    atomic_add(&mut c[i], 1.0);
}

#[weft::kernel]
fn double_and_count(x: &Array<f64>, y: &mut Array<f64>, c: &mut Array<f64>) {
    let i = tid();
    y[i] = 2.0 * x[i];
    count(c, i);
}

#[test]
fn funcs_that_add_constants_atomically_differentiate() {
    // Adding a constant to an element passes it no gradient and takes none, and
    // the adjoint does not add it again (`c` stays 1).
    let x = input(Device::Cpu);
    let mut c = Array::zeros(Device::Cpu, [4]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [4]).requires_grad();
    backward(&x, &mut y, |x, y| double_and_count::launch(4, x, y, &mut c)).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![2.0; 4]);
    assert_eq!(c.to_vec(), vec![1.0; 4]);
}

/// Takes the next slot of counter `c[0]`.
#[weft::func]
fn take_slot(c: &mut Array<i32>) -> i32 {
    atomic_add(&mut c[0], 1)
}

/// Appends `2 x` to `y` at a slot taken from a counter: the gradient's index comes
/// from an atomic.
#[weft::kernel]
fn append(x: &Array<f64>, c: &mut Array<i32>, y: &mut Array<f64>) {
    let s = atomic_add(&mut c[0], 1);
    y[s] = 2.0 * x[tid()];
}

/// The same through a func.
#[weft::kernel]
fn append_in_func(x: &Array<f64>, c: &mut Array<i32>, y: &mut Array<f64>) {
    let s = take_slot(c);
    y[s] = 2.0 * x[tid()];
}

/// Records where each thread went (slots from an atomic and a func, then a branch
/// on one), and doubles `x`: no gradient depends on the slots.
#[weft::kernel]
fn double_and_record(
    x: &Array<f64>,
    c: &mut Array<i32>,
    order: &mut Array<i32>,
    y: &mut Array<f64>,
) {
    let i = tid();
    let s = atomic_add(&mut c[0], 1);
    order[s] = i;
    let t = take_slot(c);
    if t > 100 {
        order[0] = -1;
    }
    y[i] = 2.0 * x[i];
}

/// A branch on an atomic's result picks the index of the gradient's element.
#[weft::kernel]
fn first_writes_zero(x: &Array<f64>, c: &mut Array<i32>, y: &mut Array<f64>) {
    let i = tid();
    let mut k = i;
    if atomic_add(&mut c[0], 1) == 0 {
        k = 0;
    }
    y[k] = 2.0 * x[i];
}

/// A launch of one of the kernels that append.
type Append = dyn Fn(&Array<f64>, &mut Array<i32>, &mut Array<f64>) -> Result<(), weft::Error>;

#[test]
fn gradients_that_depend_on_atomic_results_refuse_to_differentiate() {
    // The adjoint would take its slots from the counter's final value.
    let x = input(Device::Cpu);
    let cases: [(&str, &Append); 3] = [
        ("`atomic_add` returns", &|x, c, y| {
            append::launch(4, x, c, y)
        }),
        ("result of func `take_slot`", &|x, c, y| {
            append_in_func::launch(4, x, c, y)
        }),
        ("`atomic_add` returns", &|x, c, y| {
            first_writes_zero::launch(4, x, c, y)
        }),
    ];
    for (want, run) in cases {
        let mut c = Array::zeros(Device::Cpu, [1]);
        let mut y = Array::zeros(Device::Cpu, [4]).requires_grad();
        let e = backward(&x, &mut y, |x, y| run(x, &mut c, y)).unwrap_err();
        assert!(e.to_string().contains(want), "{e}");
        assert_eq!(c.to_vec(), vec![4], "the refused adjoint ran");
    }
}

#[test]
fn atomic_results_that_no_gradient_depends_on_are_allowed() {
    // The adjoint leaves the func out of its replay and ignores the slots.
    for d in weft_testkit::devices::devices() {
        let x = input(d);
        let mut c = Array::zeros(d, [1]);
        let mut order = Array::zeros(d, [8]);
        let mut y = Array::zeros(d, [4]).requires_grad();
        backward(&x, &mut y, |x, y| {
            double_and_record::launch(4, x, &mut c, &mut order, y)
        })
        .unwrap();
        assert_eq!(x.grad_to_vec().unwrap(), vec![2.0; 4], "{d:?}");
        assert_eq!(c.to_vec(), vec![8], "{d:?}: the adjoint took slots");
    }
}

/// `idx[i]`, read in a func.
#[weft::func]
fn pick(idx: &Array<i32>, i: i32) -> i32 {
    idx[i]
}

#[weft::kernel]
fn gather(idx: &Array<i32>, x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    y[i] = 2.0 * x[pick(idx, i)];
}

#[weft::func]
fn set_int(a: &mut Array<i32>, i: i32, v: i32) {
    a[i] = v;
}

/// Reverses the order of `idx` in place, through a func.
#[weft::kernel]
fn reverse_order(idx: &mut Array<i32>) {
    let i = tid();
    set_int(idx, i, idx.len() - 1 - i);
}

#[test]
fn arrays_used_through_funcs_are_stamped_for_the_overwrite_check() {
    // `gather`'s adjoint replays `pick`: the indices must still be the ones it
    // read, so a later launch that changes them through a func is caught.
    let x = input(Device::Cpu);
    let mut idx = Array::from_slice(Device::Cpu, &[0, 0, 3, 2]);
    let mut y = Array::zeros(Device::Cpu, [4]).requires_grad();
    backward(&x, &mut y, |x, y| gather::launch(4, &idx, x, y)).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![4.0, 0.0, 2.0, 2.0]);
    let e = backward(&x, &mut y, |x, y| {
        gather::launch(4, &idx, x, y)?;
        reverse_order::launch(4, &mut idx)
    })
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("`gather`") && msg.contains("`reverse_order`"),
        "{msg}"
    );
    assert_eq!(idx.to_vec(), vec![3, 2, 1, 0]);
}

/// Reads an index, then overwrites it: the adjoint's replay would read the new one.
#[weft::kernel]
fn relabel(idx: &mut Array<i32>, x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let j = idx[i];
    idx[i] = 0;
    y[i] = 2.0 * x[j];
}

/// The same, overwriting through a func.
#[weft::kernel]
fn relabel_in_func(idx: &mut Array<i32>, x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let j = idx[i];
    set_int(idx, i, 0);
    y[i] = 2.0 * x[j];
}

/// An index table in a structure.
#[weft::structure]
pub struct Labels {
    /// One index per element.
    pub idx: Array<i32>,
}

/// Clears label `i`, writing through the structure.
#[weft::func]
fn clear_label(l: &mut Labels, i: i32) {
    l.idx[i] = 0;
}

/// The same as [`relabel_in_func`], the func taking the structure as `&mut`.
#[weft::kernel]
fn relabel_struct_in_func(l: &mut Labels, x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let j = l.idx[i];
    clear_label(l, i);
    y[i] = 2.0 * x[j];
}

/// Counts its launches in place; no gradient depends on the counts.
#[weft::kernel]
fn double_and_tally(tally: &mut Array<i32>, x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    tally[i] = tally[i] + 1;
    y[i] = 2.0 * x[i];
}

#[test]
fn index_arrays_rewritten_in_place_refuse_only_when_the_gradient_reads_them() {
    let x = input(Device::Cpu);
    let mut idx = Array::from_slice(Device::Cpu, &[3, 2, 1, 0]);
    let mut y = Array::zeros(Device::Cpu, [4]).requires_grad();
    let e = backward(&x, &mut y, |x, y| relabel::launch(4, &mut idx, x, y)).unwrap_err();
    assert!(e.to_string().contains("reads from array `idx`"), "{e}");
    let mut idx = Array::from_slice(Device::Cpu, &[3, 2, 1, 0]);
    let e = backward(&x, &mut y, |x, y| {
        relabel_in_func::launch(4, &mut idx, x, y)
    })
    .unwrap_err();
    assert!(e.to_string().contains("reads from array `idx`"), "{e}");
    let mut l = Labels {
        idx: Array::from_slice(Device::Cpu, &[3, 2, 1, 0]),
    };
    let e = backward(&x, &mut y, |x, y| {
        relabel_struct_in_func::launch(4, &mut l, x, y)
    })
    .unwrap_err();
    assert!(e.to_string().contains("reads from array `l.idx`"), "{e}");
    let mut tally = Array::zeros(Device::Cpu, [4]);
    backward(&x, &mut y, |x, y| {
        double_and_tally::launch(4, &mut tally, x, y)
    })
    .unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![2.0; 4]);
    assert_eq!(tally.to_vec(), vec![1; 4]);
}

/// A structure with float fields.
#[weft::structure]
pub struct Pair {
    /// First.
    pub a: f64,
    /// Second.
    pub b: f64,
}

#[weft::kernel]
fn read_structures(p: &Array<Pair>, y: &mut Array<f64>) {
    let i = tid();
    let q = p[i];
    y[i] = q.a * q.b;
}

#[weft::kernel]
fn through_structure(x: &Array<f64>, y: &mut Array<f64>) {
    let i = tid();
    let q = Pair { a: x[i], b: 2.0 };
    y[i] = q.a * q.b;
}

#[weft::kernel]
fn structure_count(p: &Array<Pair>, x: &Array<f64>, y: &mut Array<f64>) {
    // Reads structures, but only for a comparison: no gradient passes through.
    let i = tid();
    let mut s = x[i];
    if p[i].a > 1.0 {
        s = 3.0 * x[i];
    }
    y[i] = s;
}

#[test]
fn gradients_through_arrays_of_structures_refuse_unless_none_passes() {
    let pairs = [Pair { a: 1.0, b: 2.0 }, Pair { a: 3.0, b: 4.0 }];
    let p = Array::from_slice(Device::Cpu, &pairs);
    let mut y = Array::zeros(Device::Cpu, [2]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| read_structures::launch(2, &p, &mut y))
        .unwrap();
    let e = tape.backward_from(&mut y, &[1.0, 1.0]).unwrap_err();
    assert!(
        e.to_string()
            .contains("structures with float fields from array `p`"),
        "{e}"
    );

    // A structure value (no arrays) carries its fields' adjoints.
    let x = input(Device::Cpu);
    let mut y = Array::zeros(Device::Cpu, [4]).requires_grad();
    backward(&x, &mut y, |x, y| through_structure::launch(4, x, y)).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![2.0; 4]);

    let x = Array::from_slice(Device::Cpu, &[1.0, 1.0]).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [2]).requires_grad();
    backward(&x, &mut y, |x, y| structure_count::launch(2, &p, x, y)).unwrap();
    assert_eq!(x.grad_to_vec().unwrap(), vec![1.0, 3.0]);
}

#[test]
fn every_kernel_here_has_ptx() {
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(
            read_without_gradient,
            integer_loop,
            store_in_func,
            clear_in_func,
            double,
            double_and_count,
            gather,
            reverse_order,
            relabel,
            relabel_in_func,
            relabel_struct_in_func,
            double_and_tally,
            append,
            append_in_func,
            double_and_record,
            first_writes_zero,
            read_structures,
            through_structure,
            structure_count
        ),
        &[],
    );
}
