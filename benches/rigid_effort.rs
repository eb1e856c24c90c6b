//! Solver effort against stability on the 20-layer pyramid (CPU): for each
//! `substeps x iterations x sweeps` given, the top box's largest drift after
//! the first second of a 10 s run and the mean step time after it.
//!
//! `cargo bench --bench rigid_effort -- 16x2x4,8x2x4 [layers]`

#[path = "../tests/rigid_scenes/mod.rs"]
mod rigid_scenes;

use rigid_scenes::{Scene, WeftWorld};

/// `"16x2x4,8x2x4"` as `(substeps, iterations, sweeps)` triples.
fn efforts(arg: &str) -> Vec<(usize, usize, usize)> {
    arg.split(',')
        .map(|c| {
            let v: Vec<usize> = c
                .split('x')
                .map(|x| x.parse().expect("substeps x iterations x sweeps"))
                .collect();
            assert_eq!(v.len(), 3, "want substeps x iterations x sweeps, got {c}");
            (v[0], v[1], v[2])
        })
        .collect()
}

fn main() {
    let dt = 1.0 / 60.0;
    // Skip the flags cargo bench passes (`--bench`).
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let efforts = efforts(args.first().map_or("16x2x4", |s| s.as_str()));
    let layers: usize = args.get(1).map_or(20, |s| s.parse().expect("layers"));
    for (substeps, iterations, sweeps) in efforts {
        let scene = Scene::pyramid(layers);
        let mut w = WeftWorld::new(&scene);
        w.solver.substeps = substeps;
        w.solver.iterations = iterations;
        w.solver.sweeps = sweeps;
        let top = scene.bodies.len() - 1;
        let (mut settled, mut drift, mut time) = ([0.0f32; 3], 0.0f32, 0.0);
        for step in 0..600 {
            let t0 = std::time::Instant::now();
            w.step(dt);
            if step >= 60 {
                time += t0.elapsed().as_secs_f64();
            }
            let p = w.positions()[top];
            if step == 59 {
                settled = p;
            }
            if step >= 59 {
                let d = (0..3).map(|i| (p[i] - settled[i]).powi(2)).sum::<f32>();
                drift = drift.max(d.sqrt());
            }
        }
        println!(
            "{substeps} x {iterations} x {sweeps}: top drift {:.3} mm, {:.2} ms/step",
            drift * 1e3,
            time * 1e3 / 540.0
        );
    }
}
