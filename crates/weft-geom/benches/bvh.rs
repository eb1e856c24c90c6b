//! BVH build and refit on the ~1M-triangle torus knot (`generate::high_poly`).
//!
//! `cargo bench -p weft-geom --bench bvh`

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use weft_geom::{Bvh, MeshBvh, bvh::face_aabbs, generate};

fn bench(c: &mut Criterion) {
    let mesh = generate::high_poly();
    let faces = mesh.num_faces() as u64;
    let aabbs = face_aabbs(&mesh);
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();

    let mut g = c.benchmark_group("bvh_1m_triangles");
    g.sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(8))
        .throughput(Throughput::Elements(faces));
    g.bench_function("build", |b| b.iter(|| Bvh::build(black_box(&aabbs))));
    g.bench_function("build_1_thread", |b| {
        b.iter(|| one_thread.install(|| Bvh::build(black_box(&aabbs))))
    });
    g.bench_function("mesh_bvh_new (face boxes + build)", |b| {
        b.iter(|| MeshBvh::new(black_box(mesh.clone())))
    });

    let mut bvh = Bvh::from_mesh(&mesh);
    g.bench_function("refit", |b| b.iter(|| bvh.refit_mesh(black_box(&mesh))));
    g.bench_function("refit_1_thread", |b| {
        b.iter(|| one_thread.install(|| bvh.refit_mesh(black_box(&mesh))))
    });
    let mut mesh_bvh = MeshBvh::new(mesh.clone());
    g.bench_function(
        "winding_data (computed on first signed query after a refit)",
        |b| {
            b.iter(|| {
                mesh_bvh.refit();
                mesh_bvh.winding_nodes().len()
            })
        },
    );
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
