//! The CUDA back end against the CPU back end on the same random inputs (skipped
//! with a printed reason where no GPU and driver exist; a failure then under
//! `WEFT_REQUIRE_CUDA=1`, see `weft_testkit::gpu_policy`). Bounds: integers and
//! single IEEE operations exactly, float results within 4 ulp-scale relative error,
//! gradients within 1e-5 relative (f32, different atomic summation order).

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use weft::prelude::*;
use weft_testkit::bounce::Rollout;
use weft_testkit::devices::cuda;
use weft_testkit::particles::integrate;
use weft_testkit::random_f32s;

/// The device's error record is shared by every thread using it: a test that makes
/// a kernel fail holds this exclusively, so no other test's synchronisation takes
/// its report (and its report is not some other test's).
static ERROR_RECORD: RwLock<()> = RwLock::new(());

/// The GPU, shared with other tests that do not provoke device errors.
fn gpu() -> Option<(Device, RwLockReadGuard<'static, ()>)> {
    let g = ERROR_RECORD.read().unwrap_or_else(|p| p.into_inner());
    cuda().map(|d| (d, g))
}

/// The GPU, alone: for tests whose kernels fail on purpose.
fn gpu_alone() -> Option<(Device, RwLockWriteGuard<'static, ()>)> {
    let g = ERROR_RECORD.write().unwrap_or_else(|p| p.into_inner());
    cuda().map(|d| (d, g))
}

fn vec3s(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<Vec3> {
    let r = random_f32s(3 * n, seed, lo, hi);
    r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect()
}

fn close(a: f32, b: f32, rel: f32) -> bool {
    (a - b).abs() <= rel * a.abs().max(b.abs()).max(1e-6) || a == b
}

#[test]
fn particle_step_matches_the_cpu_bit_for_bit() {
    let Some((dev, _shared)) = gpu() else { return };
    let n = 100_003;
    let (x0, v0) = (vec3s(n, 1, -1.0, 1.0), vec3s(n, 2, -3.0, 3.0));
    let run = |d: Device| {
        let mut x = Array::from_slice(d, &x0);
        let mut v = Array::from_slice(d, &v0);
        for _ in 0..10 {
            integrate::launch(n, &mut x, &mut v, Vec3::new(0.0, 0.0, -9.81), 0.01).unwrap();
        }
        (x.to_vec(), v.to_vec())
    };
    let (cpu, cuda) = (run(Device::Cpu), run(dev));
    // add, mul and compare only, each correctly rounded on both: identical results.
    assert_eq!(cpu, cuda);
}

#[weft::kernel]
fn mixed(
    a: &Array<f32>,
    b: &Array<Vec3>,
    q: &Array<Quat>,
    m: &Array<Mat3>,
    ints: &mut Array<i32>,
    out: &mut Array<Vec3>,
    sum: &mut Array<f32>,
) {
    let i = tid();
    let mut acc = Vec3::ZERO;
    let n = (i % 7) as i32;
    for k in 0..n {
        if k == 3 {
            continue;
        }
        acc += b[i] * (k as f32);
    }
    let r = q[i] * b[i];
    let s = clamp(a[i], -0.5, 0.5) + sqrt(abs(a[i])) + floor(a[i] * 3.0) + round(a[i] * 2.5);
    out[i] = m[i] * acc + normalize(cross(r, Vec3::Z)) * s + Vec3::splat(length(r));
    ints[i] = (a[i] * 100.0) as i32 * 3 + n;
    atomic_add(&mut sum[0], a[i]);
}

#[test]
fn mixed_kernel_agrees_with_the_cpu() {
    let Some((dev, _shared)) = gpu() else { return };
    let n = 4097;
    let a = random_f32s(n, 3, -2.0, 2.0);
    let b = vec3s(n, 4, -1.0, 1.0);
    let q: Vec<Quat> = vec3s(n, 5, -3.0, 3.0)
        .into_iter()
        .map(Quat::from_scaled_axis)
        .collect();
    let m: Vec<Mat3> = (0..n)
        .map(|i| Mat3::from_cols(b[i], b[(i + 1) % n], b[(i + 2) % n]))
        .collect();
    let run = |d: Device| {
        let (aa, bb) = (Array::from_slice(d, &a), Array::from_slice(d, &b));
        let (qq, mm) = (Array::from_slice(d, &q), Array::from_slice(d, &m));
        let mut ints = Array::zeros(d, [n]);
        let mut out = Array::zeros(d, [n]);
        let mut sum = Array::zeros(d, [1]);
        mixed::launch(n, &aa, &bb, &qq, &mm, &mut ints, &mut out, &mut sum).unwrap();
        (ints.to_vec(), out.to_vec(), sum.to_vec()[0])
    };
    let (c, g) = (run(Device::Cpu), run(dev));
    assert_eq!(c.0, g.0, "integers must agree exactly");
    let mut worst = 0.0f32;
    for (x, y) in c.1.iter().zip(&g.1) {
        for k in 0..3 {
            let e = (x[k] - y[k]).abs() / x[k].abs().max(1.0);
            worst = worst.max(e);
        }
    }
    println!("mixed kernel: worst relative difference {worst:.2e}");
    assert!(worst < 4.0 * f32::EPSILON * 8.0, "worst {worst:e}");
    assert!(close(c.2, g.2, 1e-5), "{} vs {}", c.2, g.2);
}

#[test]
fn bounce_gradients_agree_with_the_cpu() {
    let Some((dev, _shared)) = gpu() else { return };
    let balls = 64;
    let x0: Vec<Vec3> = (0..balls)
        .map(|i| Vec3::new(-0.5 + 0.01 * i as f32, 0.0, 1.0))
        .collect();
    let v: Vec<Vec3> = (0..balls)
        .map(|i| Vec3::new(4.7 + 0.01 * i as f32, 0.0, -5.3))
        .collect();
    let run = |d: Device| {
        let mut r = Rollout::new(d, &x0, Vec3::new(1.0, 0.0, 0.5));
        let v0 = Array::from_slice(d, &v).requires_grad();
        let mut loss = Array::zeros(d, [1]).requires_grad();
        let mut tape = Tape::new();
        r.gradient(&mut tape, &v0, &mut loss).unwrap();
        (loss.to_vec()[0], v0.grad_to_vec().unwrap())
    };
    let (c, g) = (run(Device::Cpu), run(dev));
    println!("bounce loss cpu {} cuda {}", c.0, g.0);
    assert!(close(c.0, g.0, 1e-5));
    let mut worst = 0.0f32;
    for (x, y) in c.1.iter().zip(&g.1) {
        for k in 0..3 {
            worst = worst.max((x[k] - y[k]).abs() / x[k].abs().max(1.0));
        }
    }
    println!("bounce gradient: worst relative difference {worst:.2e}");
    assert!(worst < 1e-4, "worst {worst:e}");
}

/// A whole optimization step (forward, device-side seed, backward) captured in a
/// CUDA graph: replaying it gives the eager step's gradient exactly (the same
/// kernels in the same order; each ball's chain of adjoints is its own) and its loss
/// up to the order of the loss's atomic sum, also when the kernels are launched as
/// programmatic dependents of each other (the default on sm_90) or not.
#[test]
fn a_gradient_step_replays_from_a_graph() {
    let Some((dev, _shared)) = gpu() else { return };
    let Device::Cuda(ordinal) = dev else { return };
    let balls = 256;
    let x0: Vec<Vec3> = (0..balls)
        .map(|i| Vec3::new(-0.5 + 0.003 * i as f32, 0.0, 1.0))
        .collect();
    let v: Vec<Vec3> = (0..balls)
        .map(|i| Vec3::new(4.7 + 0.01 * i as f32, 0.0, -5.3))
        .collect();
    let mut r = Rollout::new(dev, &x0, Vec3::new(1.0, 0.0, 0.5));
    let v0 = Array::from_slice(dev, &v).requires_grad();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let mut tape = Tape::new();
    r.gradient(&mut tape, &v0, &mut loss).unwrap();
    let eager = (loss.to_vec()[0], v0.grad_to_vec().unwrap());
    for pdl in [false, true] {
        weft::cuda::set_dependent_launch(pdl);
        let mut t = Tape::new();
        let graph = weft::cuda::Graph::capture(ordinal, || {
            t.reset();
            v0.zero_grad();
            t.record(|| r.run(&v0, &mut loss))?;
            loss.fill_grad(1.0)?;
            t.run_backward()
        })
        .unwrap();
        // Nothing ran during the capture; scribble on the results, then replay twice.
        loss.fill(-1.0);
        v0.zero_grad();
        graph.launch().unwrap();
        graph.launch().unwrap();
        dev.synchronize().unwrap();
        let l = loss.to_vec()[0];
        assert!(
            close(l, eager.0, 1e-6),
            "dependent launch {pdl}: {l} vs {}",
            eager.0
        );
        assert_eq!(v0.grad_to_vec().unwrap(), eager.1, "dependent launch {pdl}");
    }
    weft::cuda::set_dependent_launch(true);
}

#[weft::kernel]
fn gather(x: &Array<f32>, idx: &Array<i32>, y: &mut Array<f32>) {
    let i = tid();
    y[i] = x[idx[i]];
}

#[test]
fn out_of_range_indices_are_reported_at_the_next_sync() {
    let Some((dev, _alone)) = gpu_alone() else {
        return;
    };
    if !cfg!(debug_assertions) {
        println!("SKIPPED (release build): GPU bounds checks are a debug-build feature");
        return;
    }
    let x = Array::from_slice(dev, &[1.0f32, 2.0]);
    let idx = Array::from_slice(dev, &[0, 5]);
    let mut y = Array::zeros(dev, [2]);
    gather::launch(2, &x, &idx, &mut y).unwrap();
    let e = dev.synchronize().unwrap_err().to_string();
    assert!(e.contains("gather") && e.contains('5'), "{e}");
}

#[weft::kernel]
fn noise(y: &mut Array<f32>, z: &mut Array<f32>, k: &mut Array<i32>) {
    let i = tid();
    let mut s = rand_init(7, i as u32);
    y[i] = randf(&mut s);
    z[i] = randn(&mut s);
    k[i] = (randi(&mut s) % 1000) as i32;
}

#[test]
fn random_numbers_match_the_cpu_bit_for_bit() {
    assert!(noise::PTX.is_ok(), "{:?}", noise::PTX.err());
    let Some((dev, _shared)) = gpu() else { return };
    let n = 10_000;
    let run = |d: Device| {
        let (mut y, mut z, mut k) = (
            Array::zeros(d, [n]),
            Array::zeros(d, [n]),
            Array::zeros(d, [n]),
        );
        noise::launch(n, &mut y, &mut z, &mut k).unwrap();
        (y.to_vec(), z.to_vec(), k.to_vec())
    };
    assert_eq!(run(Device::Cpu), run(dev));
}

/// A loop carrying a value through `n` iterations: its adjoint saves one `f32` per
/// iteration on the per-thread stack.
#[weft::kernel]
fn iterate(x: &Array<f32>, y: &mut Array<f32>, n: i32) {
    let i = tid();
    let mut v = x[i];
    for _k in 0..n {
        v = v * v * 0.5 + 0.25;
    }
    y[i] = v;
}

#[test]
fn loop_carried_adjoints_agree_and_stack_overflow_is_reported() {
    assert!(
        iterate::ADJOINT_PTX.is_ok(),
        "{:?}",
        iterate::ADJOINT_PTX.err()
    );
    let Some((dev, _alone)) = gpu_alone() else {
        return;
    };
    let xs = random_f32s(1000, 31, -0.9, 0.9);
    let grad = |d: Device, n: i32| -> Result<Vec<f32>, Error> {
        let x = Array::from_slice(d, &xs).requires_grad();
        let mut y = Array::zeros(d, [xs.len()]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| iterate::launch(xs.len(), &x, &mut y, n))?;
        tape.backward_from(&mut y, &vec![1.0; xs.len()])?;
        d.synchronize()?;
        Ok(x.grad_to_vec().unwrap())
    };
    // 40 iterations: 160 bytes of stack per thread.
    let (c, g) = (grad(Device::Cpu, 40).unwrap(), grad(dev, 40).unwrap());
    for (a, b) in c.iter().zip(&g) {
        assert!(close(*a, *b, 1e-5), "{a} vs {b}");
    }
    // 5000 iterations (20,000 bytes) do not fit in the GPU thread's stack: a
    // clear error.
    let e = grad(dev, 5000).unwrap_err().to_string();
    assert!(
        e.contains("iterate") && e.contains("per-thread stack"),
        "{e}"
    );
    // The device is usable afterwards.
    assert_eq!(grad(dev, 3).unwrap().len(), xs.len());
}

#[test]
fn these_kernels_have_ptx_without_a_gpu() {
    for (name, ptx) in [
        ("integrate", integrate::PTX),
        ("mixed", mixed::PTX),
        ("gather", gather::PTX),
        ("elementary", elementary::PTX),
        ("funnel", funnel::PTX),
        ("scale_shared_adjoint", scale_shared::ADJOINT_PTX),
    ] {
        let p = ptx.unwrap_or_else(|e| panic!("`{name}`: {e}"));
        if let Err(e) = weft_testkit::devices::ptxas(name, p) {
            panic!("{e}");
        }
    }
}

#[weft::kernel]
fn elementary(x: &Array<f32>, d: &Array<f64>, y: &mut Array<f32>, z: &mut Array<f64>) {
    let i = tid();
    let a = x[i];
    y[i] = sin(a) + cos(a) * exp(a * 0.1) + atan2(a, 1.5) + log(abs(a) + 1.0) + pow(abs(a), 1.3);
    let b = d[i];
    z[i] = tanh(b) + cbrt(b) + exp2(b * 0.25) + asin(b * 0.3);
}

#[test]
fn elementary_functions_match_the_cpu_bit_for_bit() {
    assert!(elementary::PTX.is_ok(), "{:?}", elementary::PTX.err());
    let Some((dev, _shared)) = gpu() else { return };
    let n = 50_000;
    let x = random_f32s(n, 11, -3.0, 3.0);
    let d: Vec<f64> = random_f32s(n, 12, -3.0, 3.0)
        .into_iter()
        .map(f64::from)
        .collect();
    let run = |dv: Device| {
        let (xa, da) = (Array::from_slice(dv, &x), Array::from_slice(dv, &d));
        let (mut y, mut z) = (Array::zeros(dv, [n]), Array::zeros(dv, [n]));
        elementary::launch(n, &xa, &da, &mut y, &mut z).unwrap();
        (y.to_vec(), z.to_vec())
    };
    let (c, g) = (run(Device::Cpu), run(dev));
    assert_eq!(c.0, g.0);
    assert_eq!(c.1, g.1);
}

/// Sums into one element: f32, f64, Vec3 and i32 (warp-summed before the atomic),
/// one of them only on some threads (divergent warps take the per-lane path).
#[weft::kernel]
fn funnel(
    x: &Array<f32>,
    s32: &mut Array<f32>,
    s64: &mut Array<f64>,
    sv: &mut Array<Vec3>,
    count: &mut Array<i32>,
    pos: &mut Array<f32>,
) {
    let i = tid();
    let a = x[i];
    atomic_add(&mut s32[0], a);
    atomic_sub(&mut s64[0], a as f64);
    atomic_add(&mut sv[1], Vec3::new(a, 1.0, -2.0 * a));
    atomic_add(&mut count[0], 1);
    if a > 0.0 {
        atomic_add(&mut pos[0], a);
    }
}

#[test]
fn sums_into_one_element_agree_with_the_cpu() {
    assert!(funnel::PTX.unwrap().contains("shfl.sync.bfly"));
    let Some((dev, _shared)) = gpu() else { return };
    // Not a multiple of the warp size: the last warp is partial.
    let n = 1_000_003;
    let x = random_f32s(n, 21, -1.0, 1.0);
    let run = |d: Device| {
        let xa = Array::from_slice(d, &x);
        let (mut s32, mut s64) = (Array::zeros(d, [1]), Array::zeros(d, [1]));
        let (mut sv, mut count, mut pos) = (
            Array::zeros(d, [2]),
            Array::zeros(d, [1]),
            Array::zeros(d, [1]),
        );
        funnel::launch(n, &xa, &mut s32, &mut s64, &mut sv, &mut count, &mut pos).unwrap();
        (
            s32.to_vec()[0],
            s64.to_vec()[0],
            sv.to_vec(),
            count.to_vec()[0],
            pos.to_vec()[0],
        )
    };
    let (c, g) = (run(Device::Cpu), run(dev));
    let exact: f64 = x.iter().map(|&a| a as f64).sum();
    let exact_pos: f64 = x.iter().filter(|&&a| a > 0.0).map(|&a| a as f64).sum();
    let abs: f64 = x.iter().map(|&a| a.abs() as f64).sum();
    println!("one-element sums: cpu {} cuda {} exact {exact}", c.0, g.0);
    // f32 sums of 1M terms in any order: within 1e-6 of the sum of |x| per term.
    let tol = 1e-6 * abs;
    assert!((g.0 as f64 - exact).abs() < tol, "{} vs {exact}", g.0);
    assert!((g.1 + exact).abs() < 1e-9 * abs, "{} vs {}", g.1, -exact);
    assert_eq!(g.2[0], Vec3::ZERO);
    assert!(
        (g.2[1].x as f64 - exact).abs() < tol && (g.2[1].z as f64 + 2.0 * exact).abs() < 2.0 * tol
    );
    assert_eq!(g.2[1].y, n as f32);
    assert_eq!(g.3, n as i32);
    assert_eq!(c.3, g.3);
    assert!(
        // The divergent branch adds lane by lane: 500k rounded f32 additions in a
        // row (the CPU's sequential sum is off by about as much).
        (g.4 as f64 - exact_pos).abs() < 2e-5 * exact_pos,
        "{} vs {exact_pos}",
        g.4
    );
}

#[weft::kernel]
fn scale_shared(x: &Array<f32>, k: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    y[i] = x[i] * k[0];
}

#[test]
fn shared_parameter_gradient_agrees_with_the_cpu() {
    let Some((dev, _shared)) = gpu() else { return };
    let n = 300_007;
    let x = random_f32s(n, 22, -1.0, 1.0);
    let seed = random_f32s(n, 23, -1.0, 1.0);
    let run = |d: Device| {
        let xa = Array::from_slice(d, &x).requires_grad();
        let k = Array::from_slice(d, &[1.5f32]).requires_grad();
        let mut y = Array::zeros(d, [n]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| scale_shared::launch(n, &xa, &k, &mut y))
            .unwrap();
        tape.backward_from(&mut y, &seed).unwrap();
        (k.grad_to_vec().unwrap()[0], xa.grad_to_vec().unwrap())
    };
    let (c, g) = (run(Device::Cpu), run(dev));
    let exact: f64 = x
        .iter()
        .zip(&seed)
        .map(|(&a, &s)| a as f64 * s as f64)
        .sum();
    let abs: f64 = x
        .iter()
        .zip(&seed)
        .map(|(&a, &s)| (a * s).abs() as f64)
        .sum();
    println!(
        "shared parameter gradient: cpu {} cuda {} exact {exact}",
        c.0, g.0
    );
    assert!((g.0 as f64 - exact).abs() < 1e-6 * abs);
    // Each thread's own gradient: one multiply, identical.
    assert_eq!(c.1, g.1);
}
