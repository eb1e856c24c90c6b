//! The SPH workload of issue 8 (`tests/support/sph.rs`): 32,000 particles
//! (a 40 × 40 × 20 block 2 cm apart, `h` = 2.2 cm, support 4.4 cm) on the CPU.
//! Reports ms per step and per phase (grid build, density, forces, integrate)
//! and prints the mean neighbour count. `benches/cuda.rs` can run the same
//! workload at 1,048,576 particles (`Workload::new(device, 1 << 20)`).
//! `WEFT_SPH_N=n1,n2` changes the particle counts.

use criterion::{Criterion, criterion_group, criterion_main};
use weft::prelude::*;
use weft_examples::sph::Workload;

fn bench(c: &mut Criterion) {
    let sizes: Vec<usize> = std::env::var("WEFT_SPH_N")
        .map(|s| s.split(',').map(|d| d.parse().expect("a count")).collect())
        .unwrap_or_else(|_| vec![32_000]);
    for n in sizes {
        let mut w = Workload::new(Device::Cpu, n).unwrap();
        // Let the block settle a little (30 steps), so the neighbourhoods are
        // those of a fluid at rest under gravity rather than the lattice's.
        for _ in 0..30 {
            w.step().unwrap();
        }
        w.grid().unwrap();
        let p = *w.sph.params();
        println!(
            "sph {n}: h = {} m, support {} m, dt = {:.3e} s, mean neighbours {:.1}",
            p.smoothing_length,
            p.support(),
            p.dt,
            w.mean_neighbours().unwrap()
        );
        let mut group = c.benchmark_group(format!("sph_{}", w.model.particle_count()));
        group.sample_size(20);
        group.bench_function("step", |b| b.iter(|| w.step().unwrap()));
        group.bench_function("grid", |b| b.iter(|| w.grid().unwrap()));
        group.bench_function("density", |b| b.iter(|| w.density().unwrap()));
        group.bench_function("forces", |b| b.iter(|| w.forces().unwrap()));
        group.bench_function("integrate", |b| b.iter(|| w.integrate().unwrap()));
        group.finish();
        let q = w.a.particle_q.to_vec();
        assert!(q.iter().all(|p| p.is_finite()), "the fluid stays finite");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
