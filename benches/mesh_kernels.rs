//! Mesh queries in kernels on the CPU (`Device::Cpu`, rayon over the launch): the
//! GPU benchmark's workload (`weft_testkit::mesh_workload`: the 327,680-triangle
//! sphere, points and rays around it), with 2^18 queries, each next to the same
//! queries through the host API (`weft_geom::MeshBvh`, rows `host_*`; its own
//! benchmark, on another workload, is `crates/weft-geom/benches/mesh_queries.rs`);
//! and a `DeviceBvh` over 2^18 small boxes around the points (box queries, refit).
//!
//! ```sh
//! cargo bench --bench mesh_kernels
//! RAYON_NUM_THREADS=2 taskset -c 0,1 cargo bench --bench mesh_kernels   # two cores
//! ```

use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use rayon::prelude::*;
use weft::geom::DeviceBvh;
use weft::geom::{ClosestPoints, DeviceMesh};
use weft::prelude::*;
use weft_testkit::mesh_workload::{
    EYE, TENTH, Workload, bvh_box_counts, camera_rays, cast_rays, closest_points, item_boxes,
    signed_distances,
};

const QUERIES: usize = 1 << 18;
const WIDTH: usize = 512;

fn bench(c: &mut Criterion) {
    let dev = Device::Cpu;
    let w = Workload::new(QUERIES);
    let mesh = DeviceMesh::new(dev, &w.sphere).unwrap();
    let o = Array::from_slice(dev, &w.origins);
    let d = Array::from_slice(dev, &w.dirs);
    let mut g = c.benchmark_group("mesh_kernels_cpu");
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    g.throughput(Throughput::Elements(QUERIES as u64));
    let mut t = Array::zeros(dev, [QUERIES]);
    g.bench_function("random_rays", |b| {
        b.iter(|| cast_rays::launch(QUERIES, &mesh, &o, &d, &mut t).unwrap())
    });
    let host = weft_geom::MeshBvh::new(w.sphere.clone());
    let rays: Vec<(Vec3, Vec3)> = w
        .origins
        .iter()
        .copied()
        .zip(w.dirs.iter().copied())
        .collect();
    g.bench_function("host_random_rays", |b| {
        b.iter(|| {
            rays.par_iter()
                .with_min_len(256)
                .filter(|(o, d)| host.ray(*o, *d, 1.0e6).is_some())
                .count()
        })
    });
    g.throughput(Throughput::Elements((WIDTH * WIDTH) as u64));
    let mut img = Array::zeros(dev, [WIDTH * WIDTH]);
    g.bench_function("camera_rays_512x512", |b| {
        b.iter(|| camera_rays::launch([WIDTH, WIDTH], &mesh, EYE, WIDTH as i32, &mut img).unwrap())
    });

    g.throughput(Throughput::Elements(QUERIES as u64));
    let mut q = Array::zeros(dev, [QUERIES]);
    let mut faces = Array::zeros(dev, [QUERIES]);
    let mut batch = ClosestPoints::new(dev).unwrap();
    for (label, max_dist) in [("max_dist_10pct", TENTH), ("unbounded", f32::INFINITY)] {
        g.bench_function(format!("closest_points_batch_{label}"), |b| {
            b.iter(|| batch.faces(&mesh, &o, max_dist, &mut faces).unwrap())
        });
        g.bench_function(format!("closest_point_per_thread_{label}"), |b| {
            b.iter(|| closest_points::launch(QUERIES, &mesh, &o, max_dist, &mut q).unwrap())
        });
        g.bench_function(format!("host_closest_points_{label}"), |b| {
            b.iter(|| host.closest_points(&w.origins, max_dist))
        });
    }
    let mut sd = Array::zeros(dev, [QUERIES]);
    g.bench_function("signed_distance_max_dist_10pct", |b| {
        b.iter(|| signed_distances::launch(QUERIES, &mesh, &o, TENTH, &mut sd).unwrap())
    });
    g.bench_function("host_signed_distance_max_dist_10pct", |b| {
        b.iter(|| host.closest_points_signed(&w.origins, TENTH))
    });

    // A BVH over 2^18 boxes (half-width 0.01 around the query points), queried
    // with boxes of half-width 0.05 around the same points, and refitted.
    let (lo, hi) = item_boxes(&w.origins, 0.01);
    let mut bvh = DeviceBvh::new(dev, &lo, &hi).unwrap();
    let mut counts = Array::zeros(dev, [QUERIES]);
    g.bench_function("bvh_query_aabb", |b| {
        b.iter(|| bvh_box_counts::launch(QUERIES, &bvh, &o, 0.05, &mut counts).unwrap())
    });
    g.bench_function("bvh_refit", |b| b.iter(|| bvh.refit().unwrap()));
    // The mesh's own tree refitted in place (the SAH tree, its winding data too).
    let mut moving = DeviceMesh::new(dev, &w.sphere).unwrap();
    let mut builder = weft::geom::LbvhBuilder::new(dev);
    g.throughput(Throughput::Elements(w.sphere.num_faces() as u64));
    g.bench_function("mesh_refit_sah_with_winding", |b| {
        b.iter(|| builder.refit(&mut moving).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
