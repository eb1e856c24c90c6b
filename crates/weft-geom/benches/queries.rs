//! Host queries on the ~1M-triangle torus knot: rays, closest points (near the
//! surface, far from it, signed) and boxes, single-threaded and over rayon's pool
//! (`*_parallel`: all cores of the machine).
//!
//! `cargo bench -p weft-geom --bench queries`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use rayon::prelude::*;
use weft_geom::{MeshBvh, generate};

/// Deterministic uniform numbers in `[-1, 1)`.
fn rng(seed: u64) -> impl FnMut() -> f32 {
    let mut s = seed;
    move || {
        s = s
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
}

fn bench(c: &mut Criterion) {
    let mesh = MeshBvh::new(generate::high_poly());
    let mut r = rng(1);
    let n = 10_000;
    // Rays from a box around the knot towards random points of it.
    let lo = mesh.mesh().aabb().lower;
    let hi = mesh.mesh().aabb().upper;
    let pick = |r: &mut dyn FnMut() -> f32| {
        let t = Vec3::new(r(), r(), r()) * 0.5 + 0.5;
        lo + (hi - lo) * t
    };
    let rays: Vec<(Vec3, Vec3)> = (0..n)
        .map(|_| {
            let o = pick(&mut r) * 1.5;
            (o, pick(&mut r) - o)
        })
        .collect();
    let pts = mesh.mesh().points();
    let near: Vec<Vec3> = (0..n)
        .map(|i| pts[(i * 7919) % pts.len()] + Vec3::new(r(), r(), r()) * 0.05)
        .collect();
    let far: Vec<Vec3> = (0..n).map(|_| pick(&mut r)).collect();
    let boxes: Vec<(Vec3, Vec3)> = near.iter().map(|&p| (p - 0.02, p + 0.02)).collect();

    let mut g = c.benchmark_group("queries_1m_triangles");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(n as u64));
    g.bench_function("ray", |b| {
        b.iter(|| {
            rays.iter()
                .filter(|(o, d)| mesh.ray(*o, *d, f32::INFINITY).is_some())
                .count()
        })
    });
    g.bench_function("ray_parallel", |b| {
        b.iter(|| {
            rays.par_iter()
                .filter(|(o, d)| mesh.ray(*o, *d, f32::INFINITY).is_some())
                .count()
        })
    });
    g.bench_function("closest_point_near_surface", |b| {
        b.iter(|| {
            near.iter()
                .map(|&p| mesh.closest_point(p, f32::INFINITY).unwrap().distance)
                .sum::<f32>()
        })
    });
    g.bench_function("closest_point_near_surface_parallel", |b| {
        b.iter(|| {
            near.par_iter()
                .map(|&p| mesh.closest_point(p, f32::INFINITY).unwrap().distance)
                .sum::<f32>()
        })
    });
    g.bench_function("closest_point_near_surface_max_dist_0.1", |b| {
        b.iter(|| {
            near.iter()
                .filter_map(|&p| mesh.closest_point(p, 0.1))
                .count()
        })
    });
    g.bench_function("closest_point_signed_near_surface", |b| {
        b.iter(|| {
            near.iter()
                .filter(|&&p| mesh.closest_point_signed(p, f32::INFINITY).unwrap().inside)
                .count()
        })
    });
    g.bench_function("aabb_query_0.04_box", |b| {
        b.iter(|| {
            boxes
                .iter()
                .map(|&(l, u)| mesh.aabb_query(l, u).count())
                .sum::<usize>()
        })
    });
    g.sample_size(10).throughput(Throughput::Elements(1000));
    g.bench_function("closest_point_far (1000 points in the bounding box)", |b| {
        b.iter(|| {
            far[..1000]
                .iter()
                .map(|&p| {
                    mesh.closest_point(black_box(p), f32::INFINITY)
                        .unwrap()
                        .distance
                })
                .sum::<f32>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
