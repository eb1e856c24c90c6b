//! Privatised accumulation on the CPU (`weft::cpu::Accumulate`): kernels whose
//! arrays are only updated with `atomic_add`/`atomic_sub` give the same results
//! when each runner adds into a private buffer as with atomics — floats up to the
//! order of summation, integers exactly — in forward kernels, in adjoints, inside
//! structures; arrays that are also read, or whose atomics' old values are used,
//! keep their atomics; small launches add on one thread. Every launch runs in a
//! 4-thread pool, so the parallel path is taken whatever this machine's core count.

use weft::cpu::{Accumulate, privatised_launches, with_accumulate};
use weft::prelude::*;

/// Threads of the launches (more than one, so launches run in parallel).
const THREADS: usize = 4;
/// A launch large enough to run in parallel.
const N: usize = 60_000;
/// Destination length: many updates per element, as for the forces of springs.
const M: usize = 1_000;

/// Runs `f` in a `THREADS`-thread pool with accumulation `mode`; returns its
/// result and how many launches it privatised.
fn run<R: Send>(mode: Accumulate, f: impl FnOnce() -> R + Send) -> (R, u64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(THREADS)
        .build()
        .unwrap();
    pool.install(|| {
        with_accumulate(mode, || {
            let before = privatised_launches();
            let r = f();
            (r, privatised_launches() - before)
        })
    })
}

/// Destination indices: a scattered pattern hitting every element many times.
fn targets(n: usize, m: usize) -> Vec<i32> {
    (0..n).map(|i| ((i * 7919 + i / 3) % m) as i32).collect()
}

/// Asserts two float results agree up to summation order: within `1e-5` of the
/// sum of the magnitudes that went into each element.
fn assert_close(what: &str, a: &[f32], b: &[f32], scale: &[f32]) {
    assert_eq!(a.len(), b.len());
    for i in 0..a.len() {
        let tol = 1e-5 * scale[i].max(1.0);
        assert!(
            (a[i] - b[i]).abs() <= tol,
            "{what}[{i}]: {} vs {} (tolerance {tol})",
            a[i],
            b[i]
        );
    }
}

#[weft::kernel]
fn scatter_vec3(idx: &Array<i32>, vals: &Array<Vec3>, out: &mut Array<Vec3>) {
    let i = tid();
    let j = idx[i];
    atomic_add(&mut out[j], vals[i]);
    // A second update of another element, subtracted (as a spring's other end).
    let k = (j + 1) % out.len();
    atomic_sub(&mut out[k], vals[i] * 0.5);
}

fn vec3_inputs() -> (Vec<i32>, Vec<Vec3>, Vec<Vec3>) {
    let r = weft_testkit::random_f32s(3 * N, 5, -1.0, 1.0);
    let vals = r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    // A non-zero destination: the sums must add to what is there.
    let init = (0..M).map(|i| Vec3::splat(i as f32 * 0.25)).collect();
    (targets(N, M), vals, init)
}

fn scatter_vec3_with(mode: Accumulate, n: usize) -> (Vec<Vec3>, u64) {
    let (idx, vals, init) = vec3_inputs();
    run(mode, || {
        let idx = Array::from_slice(Device::Cpu, &idx[..n]);
        let vals = Array::from_slice(Device::Cpu, &vals[..n]);
        let mut out = Array::from_vec(Device::Cpu, init);
        scatter_vec3::launch(n, &idx, &vals, &mut out).unwrap();
        out.to_vec()
    })
}

fn flat(v: &[Vec3]) -> Vec<f32> {
    v.iter().flat_map(|x| x.to_array()).collect()
}

/// The magnitude that went into each component of `scatter_vec3`'s result.
fn vec3_scale() -> Vec<f32> {
    vec![2.0 * N as f32 / M as f32 + M as f32; 3 * M]
}

#[test]
fn vec3_atomics_privatised_equal_atomics() {
    let (atomic, n0) = scatter_vec3_with(Accumulate::Never, N);
    assert_eq!(n0, 0, "Never keeps the atomics");
    for mode in [Accumulate::Always, Accumulate::Auto] {
        let (private, n1) = scatter_vec3_with(mode, N);
        assert_eq!(n1, 1, "{mode:?} privatises the launch");
        assert_close("out", &flat(&private), &flat(&atomic), &vec3_scale());
    }
    // Not trivially equal: the destination changed.
    assert_ne!(atomic[0], Vec3::ZERO);
}

#[weft::kernel]
fn scatter_f32(idx: &Array<i32>, vals: &Array<f32>, out: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut out[idx[i]], vals[i]);
}

#[weft::kernel]
fn scatter_f64(idx: &Array<i32>, vals: &Array<f64>, out: &mut Array<f64>) {
    let i = tid();
    atomic_sub(&mut out[idx[i]], vals[i]);
}

#[weft::kernel]
fn scatter_i32(idx: &Array<i32>, vals: &Array<i32>, out: &mut Array<i32>, sub: &mut Array<i32>) {
    let i = tid();
    atomic_add(&mut out[idx[i]], vals[i]);
    atomic_sub(&mut sub[idx[i]], vals[i]);
}

#[test]
fn scalar_atomics_privatised_equal_atomics() {
    let idx = targets(N, M);
    let r = weft_testkit::random_f32s(N, 9, -1.0, 1.0);
    let f32s = |mode| {
        run(mode, || {
            let (i, v) = (
                Array::from_slice(Device::Cpu, &idx),
                Array::from_slice(Device::Cpu, &r),
            );
            let mut out = Array::from_vec(Device::Cpu, vec![1.0f32; M]);
            scatter_f32::launch(N, &i, &v, &mut out).unwrap();
            out.to_vec()
        })
    };
    let ((a, na), (p, np)) = (f32s(Accumulate::Never), f32s(Accumulate::Always));
    assert_eq!((na, np), (0, 1));
    assert_close("f32", &p, &a, &vec![N as f32 / M as f32; M]);

    let r64: Vec<f64> = r.iter().map(|&x| f64::from(x) * 1e3).collect();
    let f64s = |mode| {
        run(mode, || {
            let (i, v) = (
                Array::from_slice(Device::Cpu, &idx),
                Array::from_slice(Device::Cpu, &r64),
            );
            let mut out = Array::from_vec(Device::Cpu, vec![0.5f64; M]);
            scatter_f64::launch(N, &i, &v, &mut out).unwrap();
            out.to_vec()
        })
    };
    let ((a, na), (p, np)) = (f64s(Accumulate::Never), f64s(Accumulate::Always));
    assert_eq!((na, np), (0, 1));
    for k in 0..M {
        assert!(
            (a[k] - p[k]).abs() <= 1e-9 * 1e3 * N as f64 / M as f64,
            "f64[{k}]"
        );
    }

    // Integers: exact, wrapping included.
    let ints: Vec<i32> = (0..N as i32)
        .map(|i| i.wrapping_mul(1_000_003) ^ 0x5bd1)
        .collect();
    let i32s = |mode| {
        run(mode, || {
            let (i, v) = (
                Array::from_slice(Device::Cpu, &idx),
                Array::from_slice(Device::Cpu, &ints),
            );
            let mut out = Array::from_vec(Device::Cpu, vec![i32::MAX - 3; M]);
            let mut sub = Array::from_vec(Device::Cpu, vec![7; M]);
            scatter_i32::launch(N, &i, &v, &mut out, &mut sub).unwrap();
            (out.to_vec(), sub.to_vec())
        })
    };
    let ((a, na), (p, np)) = (i32s(Accumulate::Never), i32s(Accumulate::Always));
    assert_eq!((na, np), (0, 1));
    assert_eq!(a, p, "integer sums are exact");
    assert!(a.0.iter().zip(&a.1).any(|(x, y)| *x != *y));
}

#[weft::structure]
pub struct Forces {
    pub f: Array<Vec3>,
    pub count: Array<i32>,
}

/// Springs between scattered pairs: reads positions at both ends (its adjoint adds
/// gradients into the positions at both ends), adds forces into a structure.
#[weft::kernel]
fn spring_pairs(pairs: &Array<IVec2>, x: &Array<Vec3>, forces: &mut Forces, k: f32) {
    let s = tid();
    let p = pairs[s];
    let d = x[p.x] - x[p.y];
    let f = d * (k * length(d));
    atomic_sub(&mut forces.f[p.x], f);
    atomic_add(&mut forces.f[p.y], f);
    atomic_add(&mut forces.count[p.x], 1);
}

fn pair_inputs() -> (Vec<IVec2>, Vec<Vec3>) {
    let t = targets(2 * N, M);
    let pairs = t.chunks(2).map(|c| IVec2::new(c[0], c[1])).collect();
    let r = weft_testkit::random_f32s(3 * M, 17, -1.0, 1.0);
    let x = r.chunks(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
    (pairs, x)
}

/// Forward and backward of `spring_pairs` under `mode`: forces, counts, the gradient of
/// `Σ w·f` with respect to the positions, and the launches privatised.
#[allow(clippy::type_complexity)]
fn pairs_with(mode: Accumulate) -> ((Vec<Vec3>, Vec<i32>, Vec<Vec3>), u64) {
    let (pairs, x0) = pair_inputs();
    let w: Vec<Vec3> = (0..M)
        .map(|i| Vec3::new(1.0, -0.5, i as f32 * 1e-3))
        .collect();
    run(mode, || {
        let pairs_a = Array::from_slice(Device::Cpu, &pairs);
        let x = Array::from_slice(Device::Cpu, &x0).requires_grad();
        let mut forces = Forces {
            f: Array::zeros(Device::Cpu, [M]).requires_grad(),
            count: Array::zeros(Device::Cpu, [M]),
        };
        let mut tape = Tape::new();
        tape.record(|| spring_pairs::launch(pairs.len(), &pairs_a, &x, &mut forces, 3.0))
            .unwrap();
        tape.backward_from(&mut forces.f, &w).unwrap();
        (
            forces.f.to_vec(),
            forces.count.to_vec(),
            x.grad_to_vec().unwrap(),
        )
    })
}

#[test]
fn structures_and_adjoints_privatised_equal_atomics() {
    let ((fa, ca, ga), na) = pairs_with(Accumulate::Never);
    let ((fp, cp, gp), np) = pairs_with(Accumulate::Always);
    assert_eq!(na, 0);
    // The forward launch (forces.f and forces.count) and its adjoint (x's gradient).
    assert_eq!(np, 2, "forward and adjoint both privatised");
    // Each element sums ~4N/M terms of magnitude up to ~40.
    let scale = vec![40.0 * 4.0 * N as f32 / M as f32; 3 * M];
    assert_close("forces", &flat(&fp), &flat(&fa), &scale);
    assert_eq!(ca, cp, "counts are exact");
    assert_close("gradient", &flat(&gp), &flat(&ga), &scale);
    assert!(
        ga.iter().any(|g| g.length() > 0.0),
        "the gradient is not zero"
    );
}

/// Reads `out[m]` (never updated) while adding into `out`: an array that is read
/// must keep its atomics, whatever the policy.
#[weft::kernel]
fn read_and_add(idx: &Array<i32>, vals: &Array<f32>, out: &mut Array<f32>) {
    let i = tid();
    let m = out.len() - 1;
    atomic_add(&mut out[idx[i]], vals[i] * out[m]);
}

/// Hands out slots with the old values of an atomic counter: those old values
/// must come from one shared counter.
#[weft::kernel]
fn allocate(counter: &mut Array<i32>, slots: &mut Array<i32>) {
    let i = tid();
    let slot = atomic_add(&mut counter[0], 1);
    slots[slot] = i;
}

/// Adds and takes maxima in one array: only adds can be privatised.
#[weft::kernel]
fn add_and_max(idx: &Array<i32>, vals: &Array<f32>, out: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut out[idx[i]], vals[i]);
    atomic_max(&mut out[idx[i]], 0.0);
}

#[test]
fn arrays_that_are_read_keep_their_atomics() {
    let idx = targets(N, M);
    let vals = weft_testkit::random_f32s(N, 3, 0.0, 1.0);
    let read = |mode| {
        run(mode, || {
            let (i, v) = (
                Array::from_slice(Device::Cpu, &idx),
                Array::from_slice(Device::Cpu, &vals),
            );
            let mut init = vec![0.0f32; M + 1];
            init[M] = 2.0;
            let mut out = Array::from_vec(Device::Cpu, init);
            read_and_add::launch(N, &i, &v, &mut out).unwrap();
            out.to_vec()
        })
    };
    let ((a, _), (p, np)) = (read(Accumulate::Never), read(Accumulate::Always));
    assert_eq!(np, 0, "an array that is read is not privatised");
    let mut scale = vec![2.0 * N as f32 / M as f32; M + 1];
    scale[M] = 0.0;
    assert_close("read_and_add", &p, &a, &scale);
    assert_eq!(p[M], 2.0);

    let ((slots, counter), np) = run(Accumulate::Always, || {
        let mut counter = Array::from_slice(Device::Cpu, &[0i32]);
        let mut slots = Array::from_vec(Device::Cpu, vec![-1i32; N]);
        allocate::launch(N, &mut counter, &mut slots).unwrap();
        (slots.to_vec(), counter.to_vec())
    });
    assert_eq!(
        np, 0,
        "atomics whose old values are used are not privatised"
    );
    assert_eq!(counter, vec![N as i32]);
    let mut sorted = slots;
    sorted.sort_unstable();
    assert!(
        sorted.iter().enumerate().all(|(k, &s)| s == k as i32),
        "each slot once"
    );

    let (_, np) = run(Accumulate::Always, || {
        let (i, v) = (
            Array::from_slice(Device::Cpu, &idx),
            Array::from_slice(Device::Cpu, &vals),
        );
        let mut out = Array::zeros(Device::Cpu, [M]);
        add_and_max::launch(N, &i, &v, &mut out).unwrap();
    });
    assert_eq!(np, 0, "an array that also takes maxima is not privatised");
}

#[test]
fn small_launches_add_on_one_thread() {
    // A launch whose work is too small for the other cores runs on the calling
    // thread; the grain says "too small" here, whatever this build's speed
    // (the launcher's own timing estimate would send a slow debug build's
    // launch of 1,000 threads to the cores).
    let n = 1_000;
    let (idx, vals, init) = vec3_inputs();
    let one_thread = |mode| {
        run(mode, || {
            weft::cpu::with_grain(n, || {
                let idx = Array::from_slice(Device::Cpu, &idx[..n]);
                let vals = Array::from_slice(Device::Cpu, &vals[..n]);
                let mut out = Array::from_vec(Device::Cpu, init.clone());
                scatter_vec3::launch(n, &idx, &vals, &mut out).unwrap();
                out.to_vec()
            })
        })
    };
    let (atomic, na) = one_thread(Accumulate::Never);
    let (plain, np) = one_thread(Accumulate::Always);
    assert_eq!((na, np), (0, 0), "no private buffers on one thread");
    // One thread adds in the same order either way: bit for bit equal.
    assert_eq!(plain, atomic);
    let (_, vals, init) = vec3_inputs();
    assert_ne!(plain, init, "the launch added something");
    assert!(vals.len() >= n);
}

#[test]
fn auto_keeps_atomics_for_destinations_much_larger_than_the_launch() {
    let n = 8_192;
    let big = 1_000_000; // buffers for 3 of the 4 runners: far above PRIVATE_RATIO * n
    assert!(big * (THREADS - 1) > weft::cpu::PRIVATE_RATIO * n);
    let idx: Vec<i32> = (0..n).map(|i| (i * 97 % big) as i32).collect();
    let vals = vec![1.0f32; n];
    let launch = |mode| {
        run(mode, || {
            let (i, v) = (
                Array::from_slice(Device::Cpu, &idx),
                Array::from_slice(Device::Cpu, &vals),
            );
            let mut out = Array::zeros(Device::Cpu, [big]);
            scatter_f32::launch(n, &i, &v, &mut out).unwrap();
            out.to_vec().iter().sum::<f32>()
        })
    };
    let ((sum_auto, n_auto), (sum_always, n_always)) =
        (launch(Accumulate::Auto), launch(Accumulate::Always));
    assert_eq!(n_auto, 0, "Auto: buffers would dwarf the launch");
    assert_eq!(n_always, 1, "Always privatises anyway");
    assert_eq!(sum_auto, n as f32);
    assert_eq!(sum_always, n as f32);
}

#[test]
fn the_scoped_policy_is_restored() {
    let outer = weft::cpu::accumulate();
    with_accumulate(Accumulate::Never, || {
        assert_eq!(weft::cpu::accumulate(), Accumulate::Never);
        with_accumulate(Accumulate::Always, || {
            assert_eq!(weft::cpu::accumulate(), Accumulate::Always)
        });
        assert_eq!(weft::cpu::accumulate(), Accumulate::Never);
    });
    assert_eq!(weft::cpu::accumulate(), outer);
}
