//! CUDA measurements on the lent GPU (run by `scripts/gpu-check.sh`; prints a table
//! and exits quietly without a GPU):
//! - the particle integrator at 16M particles against a device-to-device copy of
//!   the same bytes, in one run;
//! - host overhead per launch (1000 launches of a small kernel, one sync);
//! - first-launch latency (module load from the embedded PTX);
//! - the bounce optimization's forward and forward+backward at 16,384 balls;
//! - sums into one element over 16M threads (a loss, a shared parameter's
//!   gradient), against the copy bandwidth.

use std::time::Instant;
use weft::prelude::*;
use weft_examples::bounce::Rollout;
use weft_examples::particles::integrate;

const DT: f32 = 1.0 / 600.0;

#[weft::kernel]
fn small(x: &Array<f32>, y: &Array<f32>, z: &mut Array<f32>, a: f32) {
    let i = tid();
    z[i] = a * x[i] + y[i];
}

#[weft::kernel]
fn square_sum(x: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], x[i] * x[i]);
}

#[weft::kernel]
fn scale_shared(x: &Array<f32>, k: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    y[i] = x[i] * k[0];
}

/// Median seconds of `reps` runs of `f`, each synchronized.
fn time(dev: Device, reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            dev.synchronize().unwrap();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            println!("SKIPPED (no CUDA): {e}");
            return;
        }
    };
    let mut rows: Vec<(String, String)> = Vec::new();

    // First launch: loads the module from the embedded PTX.
    let x = Array::from_vec(dev, vec![1.0f32; 1024]);
    let y = Array::from_vec(dev, vec![2.0f32; 1024]);
    let mut z = Array::zeros(dev, [1024]);
    let s = Instant::now();
    small::launch(1024, &x, &y, &mut z, 3.0).unwrap();
    dev.synchronize().unwrap();
    rows.push((
        "first launch (module load + launch)".into(),
        format!("{:.3} ms", s.elapsed().as_secs_f64() * 1e3),
    ));
    assert_eq!(z.to_vec()[7], 5.0);

    // Host overhead per launch.
    let t = time(dev, 5, || {
        for _ in 0..1000 {
            small::launch(1024, &x, &y, &mut z, 3.0).unwrap();
        }
    });
    rows.push((
        "launch overhead (1000 launches, one sync)".into(),
        format!("{:.2} µs", t * 1e3),
    ));

    // Particles at 16M against a device-to-device copy of the same bytes.
    let n = 1 << 24;
    let mut xs = Array::from_vec(dev, vec![Vec3::new(0.0, 0.0, 1.0); n]);
    let mut vs = Array::from_vec(dev, vec![Vec3::new(1.0, 0.0, 0.0); n]);
    let g = Vec3::new(0.0, 0.0, -9.81);
    integrate::launch(n, &mut xs, &mut vs, g, DT).unwrap();
    // 20 back-to-back steps (copies) per synchronization, so the sync's latency
    // does not count as kernel time.
    let step = time(dev, 15, || {
        for _ in 0..20 {
            integrate::launch(n, &mut xs, &mut vs, g, DT).unwrap()
        }
    }) / 20.0;
    let mut cx = Array::zeros(dev, [n]);
    let mut cv = Array::zeros(dev, [n]);
    let copy = time(dev, 15, || {
        for _ in 0..20 {
            cx.copy_from(&xs).unwrap();
            cv.copy_from(&vs).unwrap();
        }
    }) / 20.0;
    let bytes = (n * 48) as f64;
    rows.push((
        "particles 16M: step".into(),
        format!("{:.3} ms, {:.2} TB/s", step * 1e3, bytes / step / 1e12),
    ));
    rows.push((
        "particles 16M: d2d copy of x, v (same bytes)".into(),
        format!("{:.3} ms, {:.2} TB/s", copy * 1e3, bytes / copy / 1e12),
    ));
    rows.push((
        "particles: fraction of copy bandwidth".into(),
        format!("{:.1} %", 100.0 * copy / step),
    ));

    // Sums into one element over 16M threads.
    let xf = Array::from_vec(dev, vec![0.5f32; n]);
    let mut l = Array::zeros(dev, [1]);
    square_sum::launch(n, &xf, &mut l).unwrap();
    let sum = time(dev, 10, || {
        for _ in 0..20 {
            square_sum::launch(n, &xf, &mut l).unwrap()
        }
    }) / 20.0;
    rows.push((
        "sum of x² into one element, 16M f32".into(),
        format!(
            "{:.3} ms, {:.2} TB/s read, {:.1} G adds/s",
            sum * 1e3,
            (n * 4) as f64 / sum / 1e12,
            n as f64 / sum / 1e9
        ),
    ));
    let xg = Array::from_vec(dev, vec![0.5f32; n]).requires_grad();
    let k = Array::from_vec(dev, vec![2.0f32]).requires_grad();
    let mut yg = Array::zeros(dev, [n]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| scale_shared::launch(n, &xg, &k, &mut yg))
        .unwrap();
    tape.run_backward().unwrap();
    let back = time(dev, 10, || {
        for _ in 0..20 {
            tape.run_backward().unwrap()
        }
    }) / 20.0;
    // Reads x and y's gradient, zeroes y's gradient, adds into x's gradient.
    let moved = (n * 4 * 5) as f64;
    rows.push((
        "adjoint of y = x·k[0], 16M (k's gradient into one element)".into(),
        format!("{:.3} ms, {:.2} TB/s", back * 1e3, moved / back / 1e12),
    ));

    // The bounce optimization, 16,384 balls, 288 steps.
    let balls = 16_384;
    let x0: Vec<Vec3> = (0..balls)
        .map(|i| Vec3::new(-0.5 + 1e-5 * i as f32, 0.0, 1.0))
        .collect();
    let mut rollout = Rollout::new(dev, &x0, Vec3::new(1.0, 0.0, 0.5));
    let v0 = Array::from_vec(dev, vec![Vec3::new(5.0, 0.0, -5.0); balls]).requires_grad();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let fwd = time(dev, 10, || rollout.run(&v0, &mut loss).unwrap());
    let mut tape = Tape::new();
    let both = time(dev, 10, || {
        rollout.gradient(&mut tape, &v0, &mut loss).unwrap()
    });
    rows.push((
        "bounce 16K balls: forward".into(),
        format!("{:.3} ms", fwd * 1e3),
    ));
    rows.push((
        "bounce 16K balls: forward + backward".into(),
        format!(
            "{:.3} ms (backward/forward {:.2})",
            both * 1e3,
            (both - fwd) / fwd
        ),
    ));

    println!("\n| measurement | result |\n|---|---|");
    for (k, v) in rows {
        println!("| {k} | {v} |");
    }
}
