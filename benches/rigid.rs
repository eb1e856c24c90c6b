//! Per-step CPU time of Weft's `XpbdRigid` (default settings) and Rapier's
//! `PhysicsPipeline` (default parameters, dt 1/60, sleeping disabled) on the
//! same scenes, side by side after both have settled for 60 steps:
//! a 20-layer pyramid of 210 boxes and 4,096 boxes raining into a container.
//!
//! `cargo bench --bench rigid -- --warm-up-time 1 --measurement-time 5`

#[path = "../tests/rigid_scenes/mod.rs"]
mod rigid_scenes;

use criterion::{Criterion, SamplingMode, criterion_group, criterion_main};
use rigid_scenes::{RapierWorld, Scene, WeftWorld};

const DT: f32 = 1.0 / 60.0;

/// Both engines' worlds of `scene`, stepped `steps` times.
fn settled(scene: &Scene, steps: usize) -> (WeftWorld, RapierWorld) {
    let (mut weft, mut rapier) = (WeftWorld::new(scene), RapierWorld::new(scene, DT));
    for _ in 0..steps {
        weft.step(DT);
        rapier.step();
    }
    (weft, rapier)
}

/// Where the pyramid's top box is after 1, 2, 5 and 10 s in each engine (it
/// starts at (0, 0, 1.95) m; a standing pyramid keeps it there less the
/// contacts' sink).
fn pyramid_top_over_ten_seconds() {
    let scene = Scene::pyramid(20);
    let (mut weft, mut rapier) = (WeftWorld::new(&scene), RapierWorld::new(&scene, DT));
    let top = |p: Vec<[f32; 3]>| *p.last().unwrap();
    for step in 1..=600 {
        weft.step(DT);
        rapier.step();
        if [60, 120, 300, 600].contains(&step) {
            let (w, r) = (top(weft.positions()), top(rapier.positions()));
            println!(
                "pyramid top box at {:>2} s: weft ({:.4}, {:.4}, {:.4}) m, rapier ({:.4}, {:.4}, {:.4}) m",
                step / 60,
                w[0],
                w[1],
                w[2],
                r[0],
                r[1],
                r[2]
            );
        }
    }
}

fn side_by_side(c: &mut Criterion, name: &str, scene: &Scene) {
    let (mut weft, mut rapier) = settled(scene, 60);
    println!(
        "{name}: {} bodies; weft substeps {}, iterations {}; rapier num_solver_iterations {}, \
         internal pgs iterations {}",
        scene.dynamic_indices().len(),
        weft.solver.substeps,
        weft.solver.iterations,
        rapier.params.num_solver_iterations,
        rapier.params.num_internal_pgs_iterations,
    );
    let mut group = c.benchmark_group(name);
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    group.bench_function("weft_xpbd", |b| b.iter(|| weft.step(DT)));
    group.bench_function("rapier", |b| b.iter(|| rapier.step()));
    group.finish();
}

fn benches(c: &mut Criterion) {
    pyramid_top_over_ten_seconds();
    side_by_side(c, "pyramid_210", &Scene::pyramid(20));
    side_by_side(c, "rain_4096", &Scene::rain(16));
}

criterion_group!(rigid, benches);
criterion_main!(rigid);
