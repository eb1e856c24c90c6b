//! The bounce optimization setup (288 steps: 36 frames × 8 substeps, a contact and
//! an integrate launch per step, one loss launch) with 1 ball and 16,384 balls:
//! the forward rollout alone, and forward + backward as one optimization iteration
//! costs.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use weft::prelude::*;
use weft_testkit::bounce::Rollout;
use weft_testkit::random_f32s;

fn bench(c: &mut Criterion) {
    let dev = Device::Cpu;
    let mut g = c.benchmark_group("bounce_288_steps");
    for n in [1usize, 16_384] {
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
        let mut rollout = Rollout::new(dev, &x0, Vec3::new(1.0, 0.0, 0.5));
        let v0 = Array::from_vec(dev, v).requires_grad();
        let mut loss = Array::zeros(dev, [1]).requires_grad();
        let mut tape = Tape::new();
        g.bench_function(BenchmarkId::new("forward", n), |b| {
            b.iter(|| rollout.run(&v0, &mut loss).unwrap())
        });
        g.bench_function(BenchmarkId::new("forward_backward", n), |b| {
            b.iter(|| rollout.gradient(&mut tape, &v0, &mut loss).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
