//! Hash-grid build over 1M points and neighbour queries.
//!
//! `cargo bench -p weft-geom --bench hash_grid`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use weft_geom::HashGrid;

fn bench(c: &mut Criterion) {
    let mut s = 7u64;
    let mut r = move || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    // 1M points in a unit cube; cell = radius = 0.02 (≈ 33 neighbours per query).
    let n = 1_000_000;
    let points: Vec<Vec3> = (0..n).map(|_| Vec3::new(r(), r(), r())).collect();
    let radius = 0.02;
    let mut grid = HashGrid::new([128, 128, 128]).unwrap();
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();

    let mut g = c.benchmark_group("hash_grid_1m_points");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .throughput(Throughput::Elements(n as u64));
    g.bench_function("build_128^3", |b| {
        b.iter(|| grid.build(black_box(&points), radius).unwrap())
    });
    g.bench_function("build_128^3_1_thread", |b| {
        b.iter(|| one_thread.install(|| grid.build(black_box(&points), radius).unwrap()))
    });
    grid.build(&points, radius).unwrap();
    let queries = &points[..10_000];
    g.throughput(Throughput::Elements(queries.len() as u64));
    g.bench_function("query_radius_0.02", |b| {
        b.iter(|| {
            queries
                .iter()
                .map(|&p| grid.query(p, radius).count())
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
