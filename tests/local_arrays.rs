//! Local arrays in kernels and funcs (`let mut s = [0; 8];`): per-thread scratch
//! indexed at run time — on the CPU and, when a GPU works, on CUDA with the same
//! results; out-of-range indices are reported, and gradients that would pass
//! through a local array are refused rather than wrong.

use weft::prelude::*;
use weft_testkit::devices::devices;

/// Sorts the 8 values of row `tid()` in a local array (insertion sort).
#[weft::kernel]
fn sort_rows(x: &Array<i32>, out: &mut Array<i32>) {
    let i = tid();
    let mut s = [0; 8];
    for k in 0..8 {
        s[k] = x[8 * i + k];
    }
    for k in 1..8 {
        let v = s[k];
        let mut j = k - 1;
        while j >= 0 && s[j] > v {
            s[j + 1] = s[j];
            j -= 1;
        }
        s[j + 1] = v;
    }
    for k in 0..8 {
        out[8 * i + k] = s[k];
    }
}

#[test]
fn rows_sort_in_local_arrays() {
    let n = 300;
    let x: Vec<i32> = weft_testkit::random_f32s(8 * n, 5, -100.0, 100.0)
        .into_iter()
        .map(|v| v as i32)
        .collect();
    let mut want = x.clone();
    for row in want.chunks_mut(8) {
        row.sort();
    }
    for d in devices() {
        let xa = Array::from_slice(d, &x);
        let mut out = Array::zeros(d, [8 * n]);
        sort_rows::launch(n, &xa, &mut out).unwrap();
        assert_eq!(out.to_vec(), want, "{d:?}");
    }
}

/// The number of nodes of the implicit binary tree below `root` (children of `k`:
/// `2k + 1`, `2k + 2`, nodes `< n`) whose value passes `limit`: a depth-first walk
/// with an explicit stack in a local array, as the BVH searches do.
#[weft::func]
fn count_below(values: &Array<f32>, root: i32, limit: f32) -> i32 {
    let n = values.len();
    let mut stack = [0i32; 32];
    let mut sp = 1;
    stack[0] = root;
    let mut count = 0;
    while sp > 0 {
        sp -= 1;
        let k = stack[sp];
        if values[k] < limit {
            count += 1;
            for c in 2 * k + 1..2 * k + 3 {
                if c < n {
                    stack[sp] = c;
                    sp += 1;
                }
            }
        }
    }
    count
}

/// Two inlined instances of [`count_below`], each with its own stack.
#[weft::kernel]
fn count_two(values: &Array<f32>, limits: &Array<f32>, out: &mut Array<i32>) {
    let i = tid();
    out[2 * i] = count_below(values, 0, limits[i]);
    out[2 * i + 1] = count_below(values, 1, limits[i] * 0.5);
}

fn count_host(values: &[f32], root: usize, limit: f32) -> i32 {
    if root >= values.len() || values[root] >= limit {
        return 0;
    }
    1 + count_host(values, 2 * root + 1, limit) + count_host(values, 2 * root + 2, limit)
}

#[test]
fn funcs_walk_trees_with_a_local_stack() {
    // Values grow with depth, so a walk stops at varying depths.
    let values: Vec<f32> = (0..1000)
        .map(|k| (k as f32 + 1.0).log2() + 0.3 * ((k * 7919 % 13) as f32 / 13.0))
        .collect();
    let limits: Vec<f32> = (0..64).map(|i| 1.0 + 0.15 * i as f32).collect();
    let want: Vec<i32> = limits
        .iter()
        .flat_map(|&l| [count_host(&values, 0, l), count_host(&values, 1, l * 0.5)])
        .collect();
    assert!(
        want.iter().any(|&c| c > 100),
        "some walks go deep: {want:?}"
    );
    for d in devices() {
        let v = Array::from_slice(d, &values);
        let l = Array::from_slice(d, &limits);
        let mut out = Array::zeros(d, [2 * limits.len()]);
        count_two::launch(limits.len(), &v, &l, &mut out).unwrap();
        assert_eq!(out.to_vec(), want, "{d:?}");
    }
}

/// Every scalar type a local array holds, read back after writes at run-time
/// indices.
#[weft::kernel]
fn typed(out_f: &mut Array<f64>, out_b: &mut Array<u32>, out_u: &mut Array<u64>) {
    let i = tid();
    let mut a = [0.5f32; 4];
    let mut b = [false; 4];
    let mut c = [1.0f64; 3];
    let mut u = [7u64; 5];
    let k = i % 4;
    a[k] = i as f32;
    b[k] = true;
    c[i % 3] += 2.0;
    u[i % 5] = u[i % 5] * 1_000_000_000_000 + i as u64;
    let mut s = 0.0f64;
    let mut bits = 0u32;
    for j in 0..4 {
        s += a[j] as f64;
        if b[j] {
            bits += 1u32 << j as u32;
        }
    }
    for j in 0..3 {
        s += c[j] * 10.0;
    }
    out_f[i] = s;
    out_b[i] = bits;
    out_u[i] = u[i % 5];
}

#[test]
fn local_arrays_hold_every_scalar_type() {
    let n = 10;
    for d in devices() {
        let mut f = Array::zeros(d, [n]);
        let mut b = Array::zeros(d, [n]);
        let mut u = Array::zeros(d, [n]);
        typed::launch(n, &mut f, &mut b, &mut u).unwrap();
        for i in 0..n {
            let want_f = 1.5 + i as f64 + 50.0;
            assert_eq!(f.to_vec()[i], want_f, "{d:?} {i}");
            assert_eq!(b.to_vec()[i], 1 << (i % 4), "{d:?} {i}");
            assert_eq!(u.to_vec()[i], 7_000_000_000_000 + i as u64, "{d:?} {i}");
        }
    }
}

#[weft::kernel]
fn out_of_range(k: i32, out: &mut Array<i32>) {
    let mut s = [3; 4];
    s[0] = 1;
    out[tid()] = s[k];
}

#[test]
fn an_out_of_range_index_is_reported() {
    // The CPU panics with the array's name and length.
    let r = std::panic::catch_unwind(|| {
        let mut out = Array::zeros(Device::Cpu, [1]);
        out_of_range::launch(1, 4, &mut out).unwrap();
    });
    let msg = match r {
        Err(e) => e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
        Ok(()) => panic!("no panic for index 4 of a local array of 4"),
    };
    assert!(
        msg.contains("index 4 out of range for local array `s` of length 4"),
        "{msg}"
    );
    // On the GPU (bounds checks on in debug builds) the launch's error names it.
    for d in devices().into_iter().filter(|d| *d != Device::Cpu) {
        let mut out = Array::zeros(d, [1]);
        let r = out_of_range::launch(1, -1, &mut out).and_then(|_| d.synchronize());
        if cfg!(debug_assertions) {
            let e = r.expect_err("index -1 must be reported").to_string();
            assert!(e.contains("local array") && e.contains("-1"), "{e}");
        }
        let mut ok = Array::zeros(d, [1]);
        out_of_range::launch(1, 2, &mut ok).unwrap();
        assert_eq!(ok.to_vec(), [3]);
    }
}

/// Gathers `x` in an order held in a local array (no loop carries the array).
#[weft::kernel]
fn permuted(x: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    let mut order = [0; 3];
    order[0] = 2;
    order[1] = 0;
    order[2] = 1;
    y[i] = x[3 * i + order[i % 3]] * x[3 * i + order[(i + 1) % 3]];
}

/// A float kept in a local array loses its gradient: refused.
#[weft::kernel]
fn through_floats(x: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    let mut s = [0.0; 2];
    s[1] = x[i] * 2.0;
    y[i] = s[1];
}

/// A loop that writes a local array declared outside it: refused.
#[weft::kernel]
fn loop_carried(x: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    let mut idx = [0; 4];
    let mut acc = 0.0;
    for k in 0..4 {
        idx[k] = 3 - k;
        acc += x[4 * i + idx[k]] * (k as f32 + 1.0);
    }
    y[i] = acc;
}

#[test]
fn gradients_through_local_arrays_are_right_or_refused() {
    for d in devices() {
        let xs = weft_testkit::random_f32s(12, 9, -1.0, 1.0);
        let x = Array::from_slice(d, &xs).requires_grad();
        let mut y = Array::zeros(d, [4]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| permuted::launch(4, &x, &mut y)).unwrap();
        tape.backward(&mut y).unwrap();
        let g = x.grad_to_vec().unwrap();
        let order = [2usize, 0, 1];
        let mut want = [0.0f32; 12];
        for i in 0..4 {
            let (a, b) = (3 * i + order[i % 3], 3 * i + order[(i + 1) % 3]);
            want[a] += xs[b];
            want[b] += xs[a];
        }
        for k in 0..12 {
            approx::assert_relative_eq!(g[k], want[k], epsilon = 1e-6);
        }

        for refused in [0, 1] {
            let x = Array::from_slice(d, &[1.0f32; 16]).requires_grad();
            let mut y = Array::zeros(d, [4]).requires_grad();
            let mut tape = Tape::new();
            if refused == 0 {
                tape.record(|| through_floats::launch(4, &x, &mut y))
                    .unwrap();
            } else {
                tape.record(|| loop_carried::launch(4, &x, &mut y)).unwrap();
            }
            let e = tape.backward(&mut y).expect_err("refused").to_string();
            assert!(e.contains("local array"), "{e}");
        }
    }
}
