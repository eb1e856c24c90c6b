//! The SPH workload of issue 8 (`crates/weft-testkit/src/sph.rs`): 32,000 particles
//! (a 40 × 40 × 20 block 2 cm apart, `h` = 2.2 cm, support 4.4 cm) on the CPU.
//! Reports ms per step and per phase (grid build with the neighbour list,
//! density, forces, integrate) and prints the mean neighbour count, after 30
//! steps (the block still nearly a lattice) and after 600 (the settled fluid:
//! more neighbours, and the particles' order in memory no longer their order
//! in space). `benches/cuda.rs` can run the same workload at 1,048,576
//! particles (`Workload::new(device, 1 << 20)`). `WEFT_SPH_N=n1,n2` changes
//! the particle counts, `WEFT_SPH_SETTLE=s1,s2` the steps before measuring.

use criterion::{Criterion, criterion_group, criterion_main};
use weft::prelude::*;
use weft_testkit::sph::Workload;

/// Comma-separated counts from the environment variable `var`, else `default`.
fn counts(var: &str, default: &[usize]) -> Vec<usize> {
    std::env::var(var)
        .map(|s| s.split(',').map(|d| d.parse().expect("a count")).collect())
        .unwrap_or_else(|_| default.to_vec())
}

fn bench(c: &mut Criterion) {
    for n in counts("WEFT_SPH_N", &[32_000]) {
        for settle in counts("WEFT_SPH_SETTLE", &[30, 600]) {
            let mut w = Workload::new(Device::Cpu, n).unwrap();
            // Let the block settle, so the neighbourhoods are those of a fluid
            // under gravity rather than the lattice's.
            for _ in 0..settle {
                w.step().unwrap();
            }
            w.grid().unwrap();
            let p = *w.sph.params();
            println!(
                "sph {n} after {settle} steps: h = {} m, support {} m, dt = {:.3e} s, \
                 mean neighbours {:.1}",
                p.smoothing_length,
                p.support(),
                p.dt,
                w.mean_neighbours().unwrap()
            );
            let name = format!("sph_{}_after_{settle}", w.model.particle_count());
            let mut group = c.benchmark_group(name);
            group.sample_size(20);
            // The phases first, on the settled state; the steps advance it.
            group.bench_function("grid", |b| b.iter(|| w.grid().unwrap()));
            group.bench_function("density", |b| b.iter(|| w.density().unwrap()));
            group.bench_function("forces", |b| b.iter(|| w.forces().unwrap()));
            group.bench_function("integrate", |b| b.iter(|| w.integrate().unwrap()));
            group.bench_function("step", |b| b.iter(|| w.step().unwrap()));
            group.finish();
            w.grid().unwrap();
            println!(
                "  mean neighbours after the step runs: {:.1}",
                w.mean_neighbours().unwrap()
            );
            let q = w.a.particle_q.to_vec();
            assert!(q.iter().all(|p| p.is_finite()), "the fluid stays finite");
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
