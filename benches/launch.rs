//! Host overhead of launching a tiny kernel on the CPU (1 thread index), with and
//! without a tape recording, and of running a recorded launch's adjoint.

use criterion::{Criterion, criterion_group, criterion_main};
use weft::prelude::*;

#[weft::kernel]
fn step(x: &Array<Vec3>, v: &Array<Vec3>, x_out: &mut Array<Vec3>, dt: f32) {
    let i = tid();
    x_out[i] = x[i] + v[i] * dt;
}

fn bench(c: &mut Criterion) {
    let x = Array::from_slice(Device::Cpu, &[Vec3::ZERO]).requires_grad();
    let v = Array::from_slice(Device::Cpu, &[Vec3::X]).requires_grad();
    let mut out = Array::zeros(Device::Cpu, [1]).requires_grad();
    let mut g = c.benchmark_group("launch_1_thread");
    g.bench_function("forward", |b| {
        b.iter(|| step::launch(1, &x, &v, &mut out, 0.01).unwrap())
    });
    g.bench_function("forward_recorded_100", |b| {
        b.iter(|| {
            let mut tape = Tape::new();
            tape.record(|| {
                for _ in 0..100 {
                    step::launch(1, &x, &v, &mut out, 0.01).unwrap();
                }
            });
            tape
        })
    });
    let mut tape = Tape::new();
    tape.record(|| step::launch(1, &x, &v, &mut out, 0.01))
        .unwrap();
    g.bench_function("adjoint", |b| b.iter(|| tape.run_backward().unwrap()));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
