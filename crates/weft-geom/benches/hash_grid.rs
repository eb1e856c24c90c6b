//! Hash-grid build over 1M points and a radius query for each of them (issue 5):
//! points uniform in the unit cube, 128³ hashed cells, cell size = radius = 0.02
//! (≈ 33 neighbours per query). Runs on rayon's global pool.
//!
//! `cargo bench -p weft-geom --bench hash_grid`

#[path = "workloads/mod.rs"]
mod workloads;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use weft_geom::HashGrid;

fn bench(c: &mut Criterion) {
    let n = 1 << 20;
    let points = workloads::cube_points(n);
    let radius = 0.02;
    let mut grid = HashGrid::new([128, 128, 128]).unwrap();

    let mut g = c.benchmark_group("hash_grid_1m_points");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3))
        .throughput(Throughput::Elements(n as u64));
    g.bench_function("build_128^3", |b| {
        b.iter(|| grid.build(black_box(&points), radius).unwrap())
    });
    grid.build(&points, radius).unwrap();
    g.bench_function("query_radius_0.02 (1M queries, neighbours counted)", |b| {
        b.iter(|| {
            points
                .par_iter()
                .with_min_len(1024)
                .map(|&p| grid.query(p, radius).count())
                .sum::<usize>()
        })
    });
    g.bench_function("build_then_query (1M points)", |b| {
        b.iter(|| {
            grid.build(black_box(&points), radius).unwrap();
            points
                .par_iter()
                .with_min_len(1024)
                .map(|&p| grid.query(p, radius).count())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
