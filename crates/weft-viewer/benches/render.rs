//! Frame time of the headless renderer: 1M instanced particles (and 20k, and none
//! — the fixed cost of the sky and ground — for comparison) at 1280x720, with the
//! full look (4x MSAA, shadows, ground) and with the cheapest settings, so the cost
//! of each part can be read off side by side.
//!
//! Run: `cargo bench -p weft-viewer --bench render` (on a machine without a GPU this
//! measures Mesa's lavapipe). Each configuration also prints the GPU time of its
//! passes from timestamp queries where the adapter has them.

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use weft_viewer::{Colormap, Gpu, Offscreen, OrbitCamera, Points, Scene};

const W: u32 = 1280;
const H: u32 = 720;

/// `n` particles in a cube of side 2 m above the ground, coloured by height.
fn cloud(n: usize, radius: f32) -> Scene {
    let side = (n as f32).cbrt().ceil() as usize;
    let x: Vec<Vec3> = (0..n)
        .map(|i| {
            let (a, b, c) = (i % side, (i / side) % side, i / side / side);
            Vec3::new(a as f32, b as f32, c as f32) * (2.0 / side as f32)
                + Vec3::new(-1.0, -1.0, radius)
        })
        .collect();
    let z: Vec<f32> = x.iter().map(|p| p.z).collect();
    let mut scene = Scene::new();
    scene
        .log_points(
            "particles",
            Points::new(&x)
                .radius(radius)
                .scalars(&z, Colormap::Viridis),
        )
        .unwrap();
    scene
}

fn bench(c: &mut Criterion) {
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            println!("SKIPPED: no graphics adapter: {e}");
            return;
        }
    };
    let adapter = gpu.describe();
    println!("adapter: {adapter}");
    let mut off4 = Offscreen::with_gpu(gpu, W, H, 4);
    let gpu1 = Gpu::new().expect("second device");
    let mut off1 = Offscreen::with_gpu(gpu1, W, H, 1);

    let mut group = c.benchmark_group("render 1280x720");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(3))
        .measurement_time(Duration::from_secs(20));
    let mut camera = OrbitCamera::default();
    for (n, radius, label) in [
        (1_000_000, 0.004, "1M"),
        (20_000, 0.015, "20k"),
        (0, 0.0, "0"),
    ] {
        let scene = if n > 0 {
            cloud(n, radius)
        } else {
            Scene::new()
        };
        // The empty scene keeps the last camera (the same view of the sky and ground).
        if let Some(b) = scene.bounds() {
            camera.frame(b, W as f32 / H as f32);
        }
        for (full, name) in [
            (true, "msaa4+shadows+ground"),
            (false, "msaa1, no shadows, no ground"),
        ] {
            let off = if full { &mut off4 } else { &mut off1 };
            off.settings.shadows = full;
            off.settings.ground = full.then_some(0.0);
            let id = format!("{label} particles, {name}");
            // The first frame compiles the pipelines: not measured.
            off.render_only(&scene, &camera).unwrap();
            let mut gpu_times = Vec::new();
            group.bench_function(&id, |b| {
                b.iter_custom(|iters| {
                    let t0 = Instant::now();
                    for _ in 0..iters {
                        off.render_only(&scene, &camera).unwrap();
                        if let Some(g) = off.last_gpu_time() {
                            gpu_times.push(g.as_secs_f64() * 1e3);
                        }
                    }
                    t0.elapsed()
                })
            });
            if !gpu_times.is_empty() {
                let mean = gpu_times.iter().sum::<f64>() / gpu_times.len() as f64;
                println!(
                    "{id}: GPU time of the passes {mean:.2} ms (timestamp queries, {} frames)",
                    gpu_times.len()
                );
            }
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
