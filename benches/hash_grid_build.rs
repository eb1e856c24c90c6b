//! Hash-grid build on the CPU: the device build (`DeviceHashGrid::build`, Weft
//! kernels on `Device::Cpu`) next to the host build (`weft_geom::HashGrid::build`,
//! rayon), on the same points. Points uniform in the unit cube, 128³ hashed cells,
//! cell size chosen for ≈ 40 neighbours within a radius of one cell.
//!
//! `cargo bench --bench hash_grid_build`

use std::hint::black_box;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use weft::geom::DeviceHashGrid;
use weft::prelude::*;
use weft_geom::HashGrid;

const DIM: [u32; 3] = [128, 128, 128];

/// `n` points uniform in the unit cube.
fn points(n: usize) -> Vec<Vec3> {
    weft_testkit::random_f32s(3 * n, 4, 0.0, 1.0)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect()
}

/// The radius (= cell size) holding `k` neighbours on average among `n` uniform
/// points in the unit cube.
fn cell_for(n: usize, k: f64) -> f32 {
    (k / (n as f64 * 4.0 / 3.0 * std::f64::consts::PI)).cbrt() as f32
}

fn bench(c: &mut Criterion) {
    for n in [32_000, 1 << 20] {
        let pts = points(n);
        let cell = cell_for(n, 40.0);
        let x = Array::from_slice(Device::Cpu, &pts);
        let mut device = DeviceHashGrid::with_dim(Device::Cpu, DIM).unwrap();
        let mut host = HashGrid::new(DIM).unwrap();
        // Same arrays (checked once, outside the timing).
        device.build(&x, cell).unwrap();
        host.build(&pts, cell).unwrap();
        assert!(device.sorted_index.to_vec() == host.sorted_index());
        assert!(device.cell_start.to_vec() == host.cell_start());

        let mut g = c.benchmark_group(format!("hash_grid_build_{n}"));
        g.sample_size(10)
            .sampling_mode(SamplingMode::Flat)
            .throughput(Throughput::Elements(n as u64));
        g.bench_function("device build (Weft kernels, Device::Cpu)", |b| {
            b.iter(|| device.build(black_box(&x), cell).unwrap())
        });
        g.bench_function("host build (weft_geom::HashGrid)", |b| {
            b.iter(|| host.build(black_box(&pts), cell).unwrap())
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
