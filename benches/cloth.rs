//! The cloth workload of the particles/cloth issue (see `crates/weft-testkit/src/cloth.rs`):
//! semi-implicit Euler at 60 frames per second with 16 substeps, one spring-force
//! kernel (atomic adds) and one integrate kernel per substep. Reports ms per frame
//! (16 substeps plus copying positions to the host) and per substep, on the CPU
//! here; `benches/cuda.rs` measures the same workload on a GPU, eagerly and in a
//! CUDA graph. The `_atomics` rows repeat `frame` and `substep` with privatised
//! accumulation off (`Accumulate::Never`: the spring kernel's float atomic adds),
//! for comparison in one run.

use criterion::{Criterion, criterion_group, criterion_main};
use weft::cpu::{Accumulate, with_accumulate};
use weft::prelude::*;
use weft_testkit::cloth::Workload;

fn bench(c: &mut Criterion) {
    let dims: Vec<usize> = std::env::var("WEFT_CLOTH_DIMS")
        .map(|s| {
            s.split(',')
                .map(|d| d.parse().expect("a dimension"))
                .collect()
        })
        .unwrap_or_else(|_| vec![32, 128]);
    for dim in dims {
        let mut w = Workload::new(Device::Cpu, dim).unwrap();
        let mut host = Vec::new();
        let mut group = c.benchmark_group(format!("cloth_{dim}x{dim}"));
        group.sample_size(20);
        group.bench_function("frame", |b| b.iter(|| w.frame(&mut host).unwrap()));
        group.bench_function("substep", |b| b.iter(|| w.substep().unwrap()));
        group.bench_function("frame_atomics", |b| {
            with_accumulate(Accumulate::Never, || b.iter(|| w.frame(&mut host).unwrap()))
        });
        group.bench_function("substep_atomics", |b| {
            with_accumulate(Accumulate::Never, || b.iter(|| w.substep().unwrap()))
        });
        group.finish();
        assert!(host.iter().all(|p| p.is_finite()), "the cloth stays finite");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
