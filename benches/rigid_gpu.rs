//! The GPU rigid-body benchmark: 262,144 mixed shapes (spheres, boxes,
//! capsules, cylinders in turn) dropped in a 64³ lattice into a walled
//! container, settling under `XpbdRigid` with 4 substeps (2 passes each), one
//! step replayed from a CUDA graph. Prints the step time, the broad phase,
//! narrow phase (with manifolds) and the rest (colouring and solve) timed
//! apart from graphs of their own, the contacts found, contacts per second,
//! and the overflow counts (which must be zero). Exits quietly without a GPU.
//!
//! `cargo bench --bench rigid_gpu` (`WEFT_RIGID_SIDE=32` for 32³ shapes,
//! `WEFT_RIGID_SETTLE=steps` to settle longer than 240 steps).

use std::time::Instant;

use weft::prelude::*;
use weft_collide::{CollisionOptions, CollisionPipeline, Geometry, ShapeDesc};
use weft_sim::{BodyDesc, Model, ModelBuilder, State, XpbdRigid};

const DT: f32 = 1.0 / 60.0;

/// `side³` shapes on a lattice of pitch 0.3 m over the ground, in a container
/// of four static walls.
fn scene(device: Device, side: usize) -> Model {
    let pitch = 0.3;
    let half = 0.5 * pitch * side as f32 + 0.1;
    let mut b = ModelBuilder::new(); // with a ground plane
    for (x, y, hx, hy) in [
        (half, 0.0, 0.1, half),
        (-half, 0.0, 0.1, half),
        (0.0, half, half, 0.1),
        (0.0, -half, half, 0.1),
    ] {
        b.add_rigid_shape(ShapeDesc::new(
            -1,
            Transform::from_translation(Vec3::new(x, y, 0.5 * pitch * side as f32)),
            Geometry::Box {
                half_extents: Vec3::new(hx, hy, 0.5 * pitch * side as f32 + 1.0),
            },
        ));
    }
    let start = -0.5 * pitch * (side as f32 - 1.0);
    for k in 0..side * side * side {
        let (i, j, l) = (k % side, (k / side) % side, k / (side * side));
        let p = Vec3::new(
            start + pitch * i as f32,
            start + pitch * j as f32,
            0.2 + pitch * l as f32,
        );
        let turn = Quat::from_rotation_z(0.37 * k as f32) * Quat::from_rotation_x(0.21 * k as f32);
        let body = b.add_body(BodyDesc::new(Transform::new(p, turn))) as i32;
        let geometry = match k % 4 {
            0 => Geometry::Sphere { radius: 0.1 },
            1 => Geometry::Box {
                half_extents: Vec3::new(0.1, 0.08, 0.06),
            },
            2 => Geometry::Capsule {
                radius: 0.06,
                half_height: 0.06,
            },
            _ => Geometry::Cylinder {
                radius: 0.08,
                half_height: 0.07,
            },
        };
        b.add_body_shape(body, Transform::IDENTITY, geometry);
    }
    b.finalize(device).expect("the benchmark scene")
}

/// Mean milliseconds of `graph` over `reps` replays.
fn replay_ms(device: Device, graph: &weft::cuda::Graph, reps: usize) -> f64 {
    graph.launch().unwrap();
    device.synchronize().unwrap();
    let t = Instant::now();
    for _ in 0..reps {
        graph.launch().unwrap();
    }
    device.synchronize().unwrap();
    t.elapsed().as_secs_f64() * 1e3 / reps as f64
}

/// Prints the phases and the slowest kernels of the last `steps` profiled steps.
fn print_profile(solver: &mut XpbdRigid, steps: usize) {
    let kernels = weft::cuda::kernel_times().unwrap();
    let p = solver.phase_times();
    let per = |x: f64| x * 1e3 / p.steps as f64;
    println!(
        "phases of a plain step (ms, synchronised after each; launch overhead included): \
         broad {:.3}, narrow {:.3}, colouring {:.3}, anchors {:.3}, integrate {:.3}, \
         positions {:.3}, velocities {:.3}, total {:.3}",
        per(p.broad),
        per(p.narrow),
        per(p.coloring),
        per(p.anchors),
        per(p.integrate),
        per(p.positions),
        per(p.velocities),
        per(p.total())
    );
    let colors = solver.color_counts().unwrap();
    let (overflow, colors) = colors.split_last().unwrap();
    let used = colors.iter().rposition(|c| *c > 0).map_or(0, |u| u + 1);
    println!(
        "manifolds per colour: {:?}, overflow {overflow}",
        &colors[..used]
    );
    println!("device time per step by kernel (ms, launches per step):");
    for k in kernels.iter().take(16) {
        println!(
            "  {:>8.3}  {:>6.1}  {}",
            k.ms / steps as f64,
            k.launches as f64 / steps as f64,
            k.kernel
        );
    }
}

fn main() {
    let Ok(gpu) = Device::cuda(0) else {
        println!("rigid_gpu: no CUDA device, nothing measured");
        if std::env::var("WEFT_RIGID_CPU_BUILD").is_ok() {
            let t = Instant::now();
            let model = scene(Device::Cpu, 64);
            println!(
                "(the scene of {} bodies built on the CPU in {:.1} s)",
                model.body_count(),
                t.elapsed().as_secs_f64()
            );
        }
        return;
    };
    let Device::Cuda(ordinal) = gpu else {
        unreachable!()
    };
    let env = |name: &str, default: usize| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let side = env("WEFT_RIGID_SIDE", 64);
    let settle = env("WEFT_RIGID_SETTLE", 240);
    let t = Instant::now();
    let model = scene(gpu, side);
    let n = model.body_count();
    let built = t.elapsed().as_secs_f64();
    let options = CollisionOptions::default(); // 16 pairs per shape
    let mut solver = XpbdRigid::new(&model, options).unwrap();
    solver.substeps = 4;
    let (mut s0, mut s1) = (State::new(&model).unwrap(), State::new(&model).unwrap());
    solver.simulate(&model, &mut s0, &mut s1, DT).unwrap();
    std::mem::swap(&mut s0, &mut s1);
    println!(
        "rigid_gpu: {n} bodies, built in {built:.1} s, first step (kernels loaded) after {:.1} s",
        t.elapsed().as_secs_f64()
    );
    let mut failed = None;
    let step = weft::cuda::Graph::capture(ordinal, || {
        if let Err(e) = solver.simulate(&model, &mut s0, &mut s1, DT) {
            failed = Some(e);
        }
        s0.body_q.copy_from(&s1.body_q)?;
        s0.body_qd.copy_from(&s1.body_qd)
    })
    .unwrap();
    if let Some(e) = failed {
        panic!("the captured step failed: {e}");
    }
    let t = Instant::now();
    for k in 0..settle {
        let t1 = Instant::now();
        if k == 90 {
            // One plain step, profiled, while the pile forms (the graph keeps
            // its buffers: the output is copied, not swapped).
            solver.profile = true;
            weft::cuda::set_kernel_timing(true);
            solver.simulate(&model, &mut s0, &mut s1, DT).unwrap();
            s0.body_q.copy_from(&s1.body_q).unwrap();
            s0.body_qd.copy_from(&s1.body_qd).unwrap();
            weft::cuda::set_kernel_timing(false);
            solver.profile = false;
            print_profile(&mut solver, 1);
            solver.reset_phase_times();
            continue;
        }
        step.launch().unwrap();
        if k < 3 {
            gpu.synchronize().unwrap();
            println!(
                "  replay {k}: {:.2} ms; manifolds per colour {:?}",
                t1.elapsed().as_secs_f64() * 1e3,
                solver.color_counts().unwrap()
            );
        }
        if k % 60 == 59 {
            let r = solver.contact_report().unwrap();
            let q = s0.body_q.to_vec();
            let top = q.iter().map(|x| x.p.z).fold(f32::MIN, f32::max);
            if r.pair_overflow > 0 || r.overflow > 0 {
                println!("  !!! OVERFLOW: contacts were dropped, the pile is not valid");
            }
            let colors = solver.color_counts().unwrap();
            let used = colors[..colors.len() - 1]
                .iter()
                .filter(|c| **c > 0)
                .count();
            println!(
                "  {:>4} steps ({:.2} s): {} contacts, {} pairs overflowed, {} contacts overflowed, highest body {top:.2} m; {used} colours, largest {}, overflow colour {}",
                k + 1,
                t.elapsed().as_secs_f64(),
                r.found,
                r.pair_overflow,
                r.overflow,
                colors.iter().max().unwrap(),
                colors[colors.len() - 1],
            );
        }
    }
    gpu.synchronize().unwrap();
    println!(
        "settled {settle} steps in {:.2} s",
        t.elapsed().as_secs_f64()
    );
    let reps = 50;
    let step_ms = replay_ms(gpu, &step, reps);
    let report = solver.contact_report().unwrap();
    // The phases apart, on the settled poses, from a pipeline of their own.
    let mut pipeline = CollisionPipeline::new(&model.rigid_shapes, n, options).unwrap();
    pipeline
        .collide_moving(&model.rigid_shapes, &s0.body_q, &s0.body_qd, DT)
        .unwrap();
    let broad = weft::cuda::Graph::capture(ordinal, || {
        pipeline
            .broad_phase(&model.rigid_shapes, &s0.body_q, &s0.body_qd, DT)
            .map_err(|e| weft::Error::Shape(e.to_string()))
    })
    .unwrap();
    let broad_ms = replay_ms(gpu, &broad, reps);
    let narrow = weft::cuda::Graph::capture(ordinal, || {
        pipeline
            .narrow_phase(&model.rigid_shapes, &s0.body_q)
            .map_err(|e| weft::Error::Shape(e.to_string()))
    })
    .unwrap();
    let narrow_ms = replay_ms(gpu, &narrow, reps);
    // Each phase of plain (not replayed) steps, synchronised after each.
    let profiled = 10;
    solver.profile = true;
    weft::cuda::set_kernel_timing(true);
    for _ in 0..profiled {
        solver.simulate(&model, &mut s0, &mut s1, DT).unwrap();
        std::mem::swap(&mut s0, &mut s1);
    }
    weft::cuda::set_kernel_timing(false);
    solver.profile = false;
    print_profile(&mut solver, profiled);
    let name = String::from_utf8_lossy(
        &std::process::Command::new("nvidia-smi")
            .args(["--query-gpu=name", "--format=csv,noheader"])
            .output()
            .map(|o| o.stdout)
            .unwrap_or_default(),
    )
    .trim()
    .to_string();
    println!("| rigid_gpu ({name}) | value |");
    println!("|---|---|");
    println!("| bodies (spheres, boxes, capsules, cylinders) | {n} |");
    println!(
        "| substeps × passes | {} × {} |",
        solver.substeps, solver.iterations
    );
    println!("| step, graph replay | {step_ms:.3} ms |");
    println!("| broad phase | {broad_ms:.3} ms |");
    println!("| narrow phase + manifolds | {narrow_ms:.3} ms |");
    println!(
        "| colouring + solve (step − collision) | {:.3} ms |",
        step_ms - broad_ms - narrow_ms
    );
    println!("| contacts | {} |", report.found);
    println!(
        "| contacts per second (step) | {:.1} M |",
        report.found as f64 / step_ms * 1e-3
    );
    println!(
        "| overflow (pairs, contacts) | {}, {} |",
        report.pair_overflow, report.overflow
    );
}
