//! Quick throughput check of the issue-5 query workloads without criterion: three timed
//! passes of each (`REPS`), printed as rates per wall-clock second and per CPU second (the
//! latter is the useful number on a loaded machine). The criterion benches are
//! `benches/mesh_queries.rs`. Closest points are unsigned batch queries
//! (`MeshBvh::closest_points`) unless the name says signed or one by one.
//!
//! ```sh
//! cargo run --release -p weft-geom --example query_throughput -- [subdivisions, default 7]
//! ```
//!
//! Environment: `LEAF`, `TCOST` and `BINS` override [`weft_geom::BuildOptions`]'s
//! `max_leaf_size`, `traversal_cost` and `bins`; `BUILD_ONLY=1` stops after the build;
//! `ONLY=text` runs only the workloads whose name contains `text`; `REPS` sets the
//! number of timed passes (default 3);
//! `RAYON_NUM_THREADS` sets the thread count.

#[path = "../benches/workloads/mod.rs"]
mod workloads;

use std::time::Instant;

use weft_geom::{MeshBvh, generate};
use workloads::*;

/// CPU time (user + system) of this process so far, in seconds (Linux; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    let fields: Vec<&str> = stat
        .rsplit(')')
        .next()
        .unwrap_or("")
        .split_whitespace()
        .collect();
    let ticks = |i: usize| {
        fields
            .get(i)
            .and_then(|v| v.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    (ticks(11) + ticks(12)) / 100.0
}

fn rate(name: &str, n: usize, f: impl Fn() -> usize) {
    if std::env::var("ONLY").is_ok_and(|only| !name.contains(&only)) {
        return;
    }
    let _ = f();
    let (start, cpu) = (Instant::now(), cpu_seconds());
    let reps = std::env::var("REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let mut out = 0;
    for _ in 0..reps {
        out = f();
    }
    let s = start.elapsed().as_secs_f64() / reps as f64;
    let c = (cpu_seconds() - cpu) / reps as f64;
    println!(
        "{name:<28} {:>9.2} ms {:>8.3} M/s wall {:>8.3} M/s per CPU-s ({out} of {n})",
        s * 1e3,
        n as f64 / s / 1e6,
        n as f64 / c / 1e6
    );
}

fn main() {
    let k = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(7);
    let t = Instant::now();
    let mesh = generate::bench_sphere(k);
    println!(
        "bench_sphere({k}): {} triangles, generated in {:.2?}",
        mesh.num_faces(),
        t.elapsed()
    );
    let faces = mesh.num_faces();
    let defaults = weft_geom::BuildOptions::default();
    let env = |k: &str| std::env::var(k).ok().and_then(|v| v.parse::<f32>().ok());
    let opts = weft_geom::BuildOptions {
        max_leaf_size: env("LEAF").map_or(defaults.max_leaf_size, |v| v as usize),
        traversal_cost: env("TCOST").unwrap_or(defaults.traversal_cost),
        bins: env("BINS").map_or(defaults.bins, |v| v as usize),
    };
    let aabbs = weft_geom::bvh::face_aabbs(&mesh);
    rate("build (boxes given)", faces, || {
        weft_geom::Bvh::build_with(&aabbs, &opts)
            .unwrap()
            .nodes()
            .len()
    });
    if std::env::var("BUILD_ONLY").is_ok() {
        return;
    }
    let mut mesh = MeshBvh::with_options(mesh, &opts).unwrap();
    println!(
        "nodes {} depth {}",
        mesh.bvh().nodes().len(),
        mesh.bvh().depth()
    );
    let cam = Camera::looking_at(&mesh);
    rate("camera rays 1024^2", CAMERA_SIZE * CAMERA_SIZE, || {
        render_hits(&mesh, &cam)
    });
    rate("camera rays, one by one", CAMERA_SIZE * CAMERA_SIZE, || {
        render_hits_one_by_one(&mesh, &cam)
    });
    let rays = random_rays(&mesh);
    rate("random rays", rays.len(), || cast_all(&mesh, &rays));
    let points = random_points(&mesh);
    let d = 0.1 * mesh_size(&mesh);
    rate("closest point, max 10%", points.len(), || {
        closest_all(&mesh, &points, d)
    });
    rate("closest point, unbounded", points.len(), || {
        closest_all(&mesh, &points, f32::INFINITY)
    });
    rate("signed closest, max 10%", points.len(), || {
        closest_signed_all(&mesh, &points, d)
    });
    rate("signed closest, unbounded", points.len(), || {
        closest_signed_all(&mesh, &points, f32::INFINITY)
    });
    rate("one by one, max 10%", points.len(), || {
        closest_one_by_one(&mesh, &points, d)
    });
    let t = Instant::now();
    mesh.refit();
    println!("refit {:.2?}", t.elapsed());
}
