//! Issue 5's mesh benchmarks on the displaced-sphere meshes `generate::bench_sphere(7)`
//! (327,680 triangles) and `bench_sphere(8)` (1,310,720): BVH build, refit, camera
//! rays (1024 × 1024 pinhole, 16 × 16 tiles in parallel), 1M random rays, and 1M
//! closest-point queries, bounded (10 % of the bounding-box diagonal) and unbounded:
//! unsigned and signed (winding number) with the batch queries
//! (`MeshBvh::closest_points`, `closest_points_signed`), and unsigned one query at a
//! time for comparison.
//! Everything runs on rayon's global pool (all cores the process may use, so
//! `taskset -c 0,1` measures two cores).
//!
//! ```sh
//! cargo bench -p weft-geom --bench mesh_queries              # both meshes
//! cargo bench -p weft-geom --bench mesh_queries -- mesh_327680 # one mesh
//! WEFT_TREE=2/8 cargo bench -p weft-geom --bench mesh_queries   # SAH cost 2, leaves ≤ 8
//! ```

#[path = "workloads/mod.rs"]
mod workloads;

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use weft_geom::{BuildOptions, Bvh, MeshBvh, bvh::face_aabbs, generate};
use workloads::*;

/// The SAH options: the defaults, or `WEFT_TREE=cost/leaf` (traversal cost and
/// largest leaf) to compare trees.
fn tree_options() -> BuildOptions {
    let Ok(spec) = std::env::var("WEFT_TREE") else {
        return BuildOptions::default();
    };
    let parsed = spec
        .split_once('/')
        .and_then(|(cost, leaf)| Some((cost.parse().ok()?, leaf.parse().ok()?)));
    let Some((traversal_cost, max_leaf_size)) = parsed else {
        panic!("WEFT_TREE must be `cost/leaf`, e.g. `2/8`; got `{spec}`");
    };
    BuildOptions {
        traversal_cost,
        max_leaf_size,
        ..Default::default()
    }
}

fn bench_mesh(c: &mut Criterion, subdivisions: u32) {
    let options = tree_options();
    let mesh = generate::bench_sphere(subdivisions);
    let faces = mesh.num_faces() as u64;
    let aabbs = face_aabbs(&mesh);
    let mut g = c.benchmark_group(format!("mesh_{faces}"));
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    g.throughput(Throughput::Elements(faces));
    g.bench_function("build_sah (face boxes given)", |b| {
        b.iter(|| Bvh::build_with(black_box(&aabbs), &options).unwrap())
    });
    g.bench_function("mesh_bvh_new (boxes + build + leaf triangles)", |b| {
        b.iter(|| MeshBvh::with_options(black_box(mesh.clone()), &options).unwrap())
    });
    let mut mesh = MeshBvh::with_options(mesh, &options).unwrap();
    g.bench_function("refit (leaf triangles + boxes)", |b| {
        b.iter(|| mesh.refit())
    });

    let cam = Camera::looking_at(&mesh);
    g.throughput(Throughput::Elements((CAMERA_SIZE * CAMERA_SIZE) as u64));
    g.bench_function("camera_rays_1024x1024", |b| {
        b.iter(|| render_hits(&mesh, &cam))
    });
    g.bench_function("camera_rays_1024x1024_one_by_one", |b| {
        b.iter(|| render_hits_one_by_one(&mesh, &cam))
    });

    g.throughput(Throughput::Elements(QUERIES as u64));
    let rays = random_rays(&mesh);
    g.bench_function("random_rays_1m", |b| b.iter(|| cast_all(&mesh, &rays)));
    let points = random_points(&mesh);
    let max_dist = 0.1 * mesh_size(&mesh);
    // Unsigned (no winding number), as a batch: `MeshBvh::closest_points`.
    g.bench_function("closest_point_1m_max_dist_10pct", |b| {
        b.iter(|| closest_all(&mesh, &points, max_dist))
    });
    g.bench_function("closest_point_1m_unbounded", |b| {
        b.iter(|| closest_all(&mesh, &points, f32::INFINITY))
    });
    // With the inside/outside sign: `MeshBvh::closest_points_signed`.
    g.bench_function("closest_point_signed_1m_max_dist_10pct", |b| {
        b.iter(|| closest_signed_all(&mesh, &points, max_dist))
    });
    g.bench_function("closest_point_signed_1m_unbounded", |b| {
        b.iter(|| closest_signed_all(&mesh, &points, f32::INFINITY))
    });
    // Unsigned, one `MeshBvh::closest_point` call per point in random order.
    g.bench_function("closest_point_one_by_one_1m_max_dist_10pct", |b| {
        b.iter(|| closest_one_by_one(&mesh, &points, max_dist))
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    bench_mesh(c, 7);
    bench_mesh(c, 8);
}

criterion_group!(benches, bench);
criterion_main!(benches);
