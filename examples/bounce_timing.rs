//! Runs the bounce benchmark's workload (`benches/bounce.rs`: `balls` balls, 288
//! steps, forward and backward through a tape) `iterations` times on the CPU, for
//! instruction counts (`scripts/instruction-counts.sh bounce`) and A/B timings:
//!
//! `cargo run --release --example bounce_timing -- [balls] [iterations]`
//! (defaults 16384 and 3). Prints the wall time per iteration and the loss.

use std::time::Instant;

use weft::prelude::*;
use weft_testkit::bounce::Rollout;
use weft_testkit::random_f32s;

fn main() -> Result<(), weft::Error> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("arguments: [balls] [iterations], numbers"))
        .collect();
    let n = args.first().copied().unwrap_or(16_384);
    let iterations = args.get(1).copied().unwrap_or(3);
    // The inputs of `benches/bounce.rs`.
    let r = random_f32s(6 * n, 7, -1.0, 1.0);
    let x0: Vec<Vec3> = (0..n)
        .map(|i| {
            Vec3::new(
                -0.5 + 0.2 * r[6 * i],
                0.3 * r[6 * i + 1],
                1.0 + 0.2 * r[6 * i + 2],
            )
        })
        .collect();
    let v: Vec<Vec3> = (0..n)
        .map(|i| Vec3::new(5.0 + r[6 * i + 3], r[6 * i + 4], -5.0 + r[6 * i + 5]))
        .collect();
    let dev = Device::Cpu;
    let mut rollout = Rollout::new(dev, &x0, Vec3::new(1.0, 0.0, 0.5));
    let v0 = Array::from_vec(dev, v).requires_grad();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let mut tape = Tape::new();
    let t = Instant::now();
    for _ in 0..iterations {
        rollout.gradient(&mut tape, &v0, &mut loss)?;
    }
    println!(
        "{n} balls, {iterations} iterations: {:.3} ms per iteration, loss {}",
        t.elapsed().as_secs_f64() * 1e3 / iterations.max(1) as f64,
        loss.to_vec()[0]
    );
    Ok(())
}
