//! Runtime behaviour: bounds checks, atomics under contention, random numbers,
//! device and shape errors.

use weft::prelude::*;

#[weft::kernel]
fn gather(src: &Array<f32>, idx: &Array<i32>, out: &mut Array<f32>) {
    let i = tid();
    out[i] = src[idx[i]];
}

#[test]
fn out_of_bounds_panics_with_kernel_array_index_and_shape() {
    let src = Array::from_slice(Device::Cpu, &[1.0f32, 2.0, 3.0]);
    let idx = Array::from_slice(Device::Cpu, &[0, 2, 3]);
    let mut out = Array::zeros(Device::Cpu, [3]);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        gather::launch(3, &src, &idx, &mut out).unwrap();
    }))
    .unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert_eq!(
        msg,
        "kernel `gather`: index [3] out of bounds for array `src` of shape [3]"
    );
}

#[test]
fn negative_index_panics() {
    let src = Array::from_slice(Device::Cpu, &[1.0f32]);
    let idx = Array::from_slice(Device::Cpu, &[-1]);
    let mut out = Array::zeros(Device::Cpu, [1]);
    let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        gather::launch(1, &src, &idx, &mut out).unwrap();
    }))
    .unwrap_err();
    let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(
        msg.contains("index [-1] out of bounds for array `src`"),
        "{msg}"
    );
}

#[test]
fn out_of_bounds_in_a_parallel_launch_panics_on_the_caller() {
    let n = 100_000;
    let src = Array::from_vec(Device::Cpu, vec![0.0f32; n]);
    let mut idxs: Vec<i32> = (0..n as i32).collect();
    idxs[n / 2] = n as i32;
    let idx = Array::from_vec(Device::Cpu, idxs);
    let mut out = Array::zeros(Device::Cpu, [n]);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        gather::launch(n, &src, &idx, &mut out).unwrap();
    }));
    assert!(r.is_err());
}

/// Arrays inside a structure parameter, two read at `tid()` by every thread and
/// one only when it is not empty.
#[weft::structure]
struct Columns {
    a: Array<f32>,
    b: Array<f32>,
    scale: Array<f32>,
}

#[weft::kernel]
fn add_columns(cols: &Columns, out: &mut Array<f32>) {
    let i = tid();
    let mut v = cols.a[i] + cols.b[i];
    if cols.scale.len() > 0 {
        v = v * cols.scale[i];
    }
    out[i] = v;
}

fn columns(n: usize, b_len: usize, scale_len: usize) -> Columns {
    Columns {
        a: Array::from_vec(Device::Cpu, (0..n).map(|i| i as f32).collect()),
        b: Array::from_vec(Device::Cpu, vec![1.0; b_len]),
        scale: Array::from_vec(Device::Cpu, vec![2.0; scale_len]),
    }
}

#[test]
fn arrays_inside_structures_indexed_by_tid_are_bounds_checked() {
    // The launcher skips per-thread checks of `cols.a`, `cols.b` below their
    // shortest length; past it (and for the optional `cols.scale`) they stay.
    let n = 100_000;
    for (b_len, scale_len) in [(n - 1, n), (n, n - 1)] {
        let cols = columns(n, b_len, scale_len);
        let mut out = Array::zeros(Device::Cpu, [n]);
        let err = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            add_columns::launch(n, &cols, &mut out).unwrap();
        }))
        .unwrap_err();
        let msg = err.downcast_ref::<String>().cloned().unwrap_or_default();
        let short = if b_len < n { "b" } else { "scale" };
        assert!(
            msg.contains(&format!("index [{}] out of bounds", n - 1)) && msg.contains(short),
            "{msg}"
        );
    }
    // In bounds, with and without the optional array.
    for scale_len in [n, 0] {
        let cols = columns(n, n, scale_len);
        let mut out = Array::zeros(Device::Cpu, [n]);
        add_columns::launch(n, &cols, &mut out).unwrap();
        let k = if scale_len > 0 { 2.0 } else { 1.0 };
        let want: Vec<f32> = (0..n).map(|i| (i as f32 + 1.0) * k).collect();
        assert_eq!(out.to_vec(), want);
    }
}

/// Plain data inside a structure of arrays.
#[weft::structure]
struct Gains {
    k: f32,
    c: f32,
}

/// A structure of which kernels reach a few arrays (a model of a hundred
/// arrays, of which a kernel reads three, is the case this is for).
#[weft::structure]
struct Parts {
    pub cols: Columns,
    pub gains: Gains,
    pub extra: Array<f32>,
    pub n: i32,
}

#[weft::func]
fn scale_len(c: &Columns) -> i32 {
    c.scale.len()
}

#[weft::func]
fn column_a(p: &Parts, i: i32) -> f32 {
    p.cols.a[i]
}

/// Reaches `p.cols.a` (through a func), `p.cols.scale` (its length only,
/// through a func), `p.gains` and `p.n`; not `p.cols.b`, not `p.extra`.
#[weft::kernel]
fn reach_in_part(p: &Parts, out: &mut Array<f32>) {
    let i = tid();
    out[i] = column_a(p, i) * p.gains.k + p.gains.c + (scale_len(p.cols) + p.n) as f32;
}

/// Holds `p.cols` in a variable: all of it counts as reached.
#[weft::kernel]
fn reach_through_a_variable(p: &Parts, out: &mut Array<f32>) {
    let i = tid();
    let c = p.cols;
    out[i] = c.b[i];
}

#[test]
fn a_launch_views_and_borrows_only_the_arrays_its_kernel_reaches() {
    let n = 8;
    let parts = || Parts {
        cols: columns(n, n, 3),
        gains: Gains { k: 2.0, c: 0.5 },
        extra: Array::zeros(Device::Cpu, [n]),
        n: 10,
    };
    // Right values from the arrays reached through funcs, the scalar fields and
    // the plain structure inside.
    let p = parts();
    let mut out = Array::zeros(Device::Cpu, [n]);
    reach_in_part::launch(n, &p, &mut out).unwrap();
    let want: Vec<f32> = (0..n).map(|i| i as f32 * 2.0 + 0.5 + 13.0).collect();
    assert_eq!(out.to_vec(), want);
    // An array the kernel does not reach is not borrowed: it may be the output.
    for unreached in [p.extra.share(), p.cols.b.share()] {
        let mut out = unreached;
        reach_in_part::launch(n, &p, &mut out).unwrap();
        assert_eq!(out.to_vec(), want);
    }
    // One it reaches is: writing it while the kernel reads it is refused.
    for reached in [p.cols.a.share(), p.cols.scale.share()] {
        let mut out = reached;
        let err = reach_in_part::launch(n, &p, &mut out).unwrap_err();
        assert!(err.to_string().contains("being read"), "{err}");
    }
    // Reached whole through a variable: every array of `p.cols` is borrowed.
    let p = parts();
    let mut out = p.cols.scale.share();
    let err = reach_through_a_variable::launch(n, &p, &mut out).unwrap_err();
    assert!(err.to_string().contains("being read"), "{err}");
    let mut out = p.extra.share();
    reach_through_a_variable::launch(n, &p, &mut out).unwrap();
    assert_eq!(out.to_vec(), vec![1.0; n]);
}

#[test]
fn shards_run_their_launches_whole_and_give_the_same_results() {
    // Four independent "models", each with a launch large enough to run in
    // parallel outside a shard (and an atomic sum); inside `for_each_shard`
    // each runs on one thread. Same results either way.
    let n = 200_000;
    let make = |k: usize| {
        let out: Array<f32> = Array::zeros(Device::Cpu, [n]);
        let hits: Array<i32> = Array::zeros(Device::Cpu, [2]);
        (k, columns(n, n, n), out, hits)
    };
    let run = |(k, cols, out, hits): &mut (usize, Columns, Array<f32>, Array<i32>)| {
        add_columns::launch(n - *k, &*cols, out).unwrap();
        let (mut sum, mut sum64) = (
            Array::zeros(Device::Cpu, [1]),
            Array::zeros(Device::Cpu, [1]),
        );
        let mut u = Array::from_slice(Device::Cpu, &[0u32, u32::MAX]);
        count::launch(n, hits, &mut sum, &mut sum64, &mut u).unwrap();
    };
    let mut alone: Vec<_> = (0..4).map(make).collect();
    alone.iter_mut().for_each(run);
    let mut sharded: Vec<_> = (0..4).map(make).collect();
    weft::cpu::for_each_shard(&mut sharded, |i, s| {
        assert_eq!(s.0, i);
        run(s)
    });
    for (a, b) in alone.iter().zip(&sharded) {
        assert_eq!(a.2.to_vec(), b.2.to_vec());
        assert_eq!(a.3.to_vec(), b.3.to_vec());
        assert_eq!(b.3.to_vec(), [n as i32, -2 * n as i32]);
    }
}

#[weft::kernel]
fn count(hits: &mut Array<i32>, sum: &mut Array<f32>, sum64: &mut Array<f64>, u: &mut Array<u32>) {
    let i = tid();
    atomic_add(&mut hits[0], 1);
    atomic_add(&mut sum[0], 0.5);
    atomic_add(&mut sum64[0], 0.25);
    atomic_max(&mut u[0], i as u32);
    atomic_min(&mut u[1], i as u32);
    atomic_sub(&mut hits[1], 2);
}

#[test]
fn atomics_under_contention() {
    let n = 1_000_000;
    let mut hits = Array::zeros(Device::Cpu, [2]);
    let mut sum = Array::zeros(Device::Cpu, [1]);
    let mut sum64 = Array::zeros(Device::Cpu, [1]);
    let mut u = Array::from_slice(Device::Cpu, &[0u32, u32::MAX]);
    count::launch(n, &mut hits, &mut sum, &mut sum64, &mut u).unwrap();
    // Integers are exact.
    assert_eq!(hits.to_vec(), vec![n as i32, -2 * n as i32]);
    assert_eq!(u.to_vec(), vec![n as u32 - 1, 0]);
    // 0.5 and 0.25 sums are exact in floating point up to 2^24 (f32) / 2^53 (f64).
    assert_eq!(sum.to_vec()[0], 0.5 * n as f32);
    assert_eq!(sum64.to_vec()[0], 0.25 * n as f64);
}

#[weft::kernel]
fn accumulate_vec(f: &mut Array<Vec3>, x: &Array<f32>) {
    let i = tid();
    let old = atomic_add(&mut f[i % 4], Vec3::new(x[i], 1.0, -x[i]));
    let _unused = old.x;
}

#[test]
fn float_atomics_sum_within_tolerance() {
    let n = 1 << 20;
    let xs = weft_testkit::random_f32s(n, 7, 0.0, 1.0);
    let x = Array::from_vec(Device::Cpu, xs.clone());
    let mut f = Array::zeros(Device::Cpu, [4]);
    accumulate_vec::launch(n, &mut f, &x).unwrap();
    let f = f.to_vec();
    for (k, fk) in f.iter().enumerate() {
        let exact: f64 = xs.iter().skip(k).step_by(4).map(|&v| v as f64).sum();
        // Summation order varies between threads; each add rounds at most 2^-24
        // relative, so the total error is bounded by n/4 * 2^-24 * sum.
        let tol = exact * (n as f64 / 4.0) * f32::EPSILON as f64 * 0.5;
        assert!((fk.x as f64 - exact).abs() <= tol, "{} vs {exact}", fk.x);
        assert_eq!(fk.y, (n / 4) as f32);
    }
}

#[weft::kernel]
fn random_numbers(
    u: &mut Array<f32>,
    g: &mut Array<f32>,
    r: &mut Array<f32>,
    bits: &mut Array<u32>,
    seed: u32,
) {
    let i = tid();
    let mut state = rand_init(seed, i as u32);
    u[i] = randf(&mut state);
    g[i] = randn(&mut state);
    r[i] = randf_range(&mut state, -2.0, 3.0);
    bits[i] = randi(&mut state);
}

#[test]
fn random_streams_are_deterministic_and_well_distributed() {
    let n = 100_000;
    let run = |seed| {
        let mut u = Array::zeros(Device::Cpu, [n]);
        let mut g = Array::zeros(Device::Cpu, [n]);
        let mut r = Array::zeros(Device::Cpu, [n]);
        let mut b = Array::zeros(Device::Cpu, [n]);
        random_numbers::launch(n, &mut u, &mut g, &mut r, &mut b, seed).unwrap();
        (u.to_vec(), g.to_vec(), r.to_vec(), b.to_vec())
    };
    let (u, g, r, b) = run(42);
    assert_eq!(run(42).0, u, "same seed, same numbers");
    assert_ne!(run(43).0, u, "another seed, other numbers");
    let mean = |v: &[f32]| v.iter().map(|&x| x as f64).sum::<f64>() / v.len() as f64;
    let var = |v: &[f32]| {
        let m = mean(v);
        v.iter().map(|&x| (x as f64 - m).powi(2)).sum::<f64>() / v.len() as f64
    };
    assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
    assert!((mean(&u) - 0.5).abs() < 0.01 && (var(&u) - 1.0 / 12.0).abs() < 0.01);
    assert!(mean(&g).abs() < 0.02 && (var(&g) - 1.0).abs() < 0.03);
    assert!(r.iter().all(|&x| (-2.0..3.0).contains(&x)));
    assert!((mean(&r) - 0.5).abs() < 0.05);
    let distinct: std::collections::HashSet<_> = b.iter().collect();
    assert!(distinct.len() > n * 99 / 100);
}

#[test]
fn arrays_of_mismatched_devices_are_an_error() {
    let src = Array::from_slice(Device::Cpu, &[1.0f32]);
    let idx = Array::placeholder(Device::Cuda(0), [1]);
    let mut out = Array::zeros(Device::Cpu, [1]);
    let e = gather::launch(1, &src, &idx, &mut out).unwrap_err();
    assert_eq!(
        e.to_string(),
        "kernel `gather`: array `src` is on cpu but `idx` is on cuda:0; all arrays of a launch must be on one device"
    );
}

#[test]
fn shape_errors() {
    let e = Array::<f32, 2>::from_vec_shaped(Device::Cpu, vec![0.0; 5], [2, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "shape mismatch: shape [2, 3] holds 6 elements but the data has 5"
    );
    let mut a = Array::<f32>::zeros(Device::Cpu, [3]);
    assert!(a.copy_from_slice(&[1.0; 4]).is_err());
    let b = Array::<f32>::zeros(Device::Cpu, [4]);
    assert!(a.copy_from(&b).is_err());
}

#[test]
fn empty_launch_is_a_no_op() {
    let src = Array::<f32>::zeros(Device::Cpu, [0]);
    let idx = Array::<i32>::zeros(Device::Cpu, [0]);
    let mut out = Array::zeros(Device::Cpu, [0]);
    gather::launch(0, &src, &idx, &mut out).unwrap();
}

#[test]
fn every_kernel_here_has_ptx() {
    weft_testkit::devices::check_all_ptx(
        &weft_testkit::ptx_of!(gather, count, accumulate_vec, random_numbers),
        &[],
    );
}
