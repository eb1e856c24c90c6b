//! Adjoint kernels against central finite differences, shared by the gradient
//! tests: f64 kernels (so the check is tight) from one input array to one output
//! array; with a GPU, the CUDA tape's gradient against the CPU's.

use weft::prelude::*;

/// Runs a kernel: input array, output array.
pub type Run<'a> = &'a dyn Fn(&Array<f64>, &mut Array<f64>);

/// The weighted sum `Σ w·out` (weights from `seed`) of a kernel's `n` outputs as
/// a function of its input `x0`, and its gradient through the tape; returns the
/// worst relative error against central differences. Every gradient must be
/// finite, and non-zero when `nonzero` (a check that something passed).
pub fn check(n: usize, x0: &[f64], seed: u64, nonzero: bool, run: Run) -> f64 {
    let w: Vec<f64> = crate::random_f32s(n, seed, 0.5, 1.5)
        .into_iter()
        .map(f64::from)
        .collect();
    let loss = |x: &[f64]| -> f64 {
        let a = Array::from_slice(Device::Cpu, x);
        let mut y = Array::zeros(Device::Cpu, [n]);
        run(&a, &mut y);
        y.to_vec().iter().zip(&w).map(|(y, w)| y * w).sum()
    };
    let x = Array::from_slice(Device::Cpu, x0).requires_grad();
    let mut y = Array::zeros(Device::Cpu, [n]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| run(&x, &mut y));
    tape.backward_from(&mut y, &w).unwrap();
    let g = x.grad_to_vec().unwrap();
    let mut worst: f64 = 0.0;
    for i in 0..x0.len() {
        let h = 1e-6 * x0[i].abs().max(1.0);
        let (mut xp, mut xm) = (x0.to_vec(), x0.to_vec());
        xp[i] += h;
        xm[i] -= h;
        let fd = (loss(&xp) - loss(&xm)) / (2.0 * h);
        assert!(g[i].is_finite(), "gradient {i} is {}", g[i]);
        assert!(!nonzero || g[i] != 0.0, "gradient {i} is zero: none passed");
        worst = worst.max((fd - g[i]).abs() / fd.abs().max(1.0));
    }
    println!("worst relative error against central differences: {worst:.2e}");
    // With a GPU: the CUDA tape's gradient against the CPU's.
    if let Some(d) = crate::devices::cuda() {
        let x = Array::from_slice(d, x0).requires_grad();
        let mut y = Array::zeros(d, [n]).requires_grad();
        let mut tape = Tape::new();
        tape.record(|| run(&x, &mut y));
        match tape.backward_from(&mut y, &w) {
            Ok(()) => crate::devices::assert_grads("CUDA gradient", &g, &x.grad_to_vec().unwrap()),
            // A missing PTX adjoint is a gap to report, not a pass: it fails
            // the GPU run (WEFT_REQUIRE_CUDA=1) and is printed otherwise.
            Err(e) if e.to_string().contains("not supported on CUDA") => {
                if crate::gpu_policy::cuda_required() {
                    panic!("the CUDA tape cannot differentiate this kernel: {e}");
                }
                println!("SKIPPED (CUDA adjoint): {e}")
            }
            Err(e) => panic!("{e}"),
        }
    }
    worst
}

/// `n` f64 inputs in `lo..hi` from `seed`.
pub fn inputs(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f64> {
    crate::random_f32s(n, seed, lo, hi)
        .into_iter()
        .map(f64::from)
        .collect()
}
