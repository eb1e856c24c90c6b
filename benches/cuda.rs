//! CUDA measurements on the lent GPU (run by `scripts/gpu-check.sh`; prints a table
//! and exits quietly without a GPU; `WEFT_CUDA_BENCH=mesh` runs the mesh-query rows
//! only):
//! - the particle integrator at 16M particles against a device-to-device copy of
//!   the same bytes, in one run;
//! - host overhead per launch (1000 launches of a small kernel, one sync);
//! - first-launch latency (module load from the embedded PTX);
//! - the bounce optimization's forward and forward+backward at 16,384 balls;
//! - sums into one element over 16M threads (a loss, a shared parameter's
//!   gradient), against the copy bandwidth;
//! - mesh queries in kernels on a 327,680-triangle sphere: 1M random rays, 1024²
//!   camera rays, 1M closest points (unbounded and within 10 % of the mesh size);
//! - the same sphere's BVH built on the device (`LbvhBuilder`, a linear BVH) and
//!   the same queries through it;
//! - the hash grid built on the device (`DeviceHashGrid::build`) from 1,048,576
//!   points, 128³ cells, against the host build plus the upload; the worst case
//!   (every point in one cell); then 1M radius queries.
//!
//! `--ptx DIR` writes the mesh-query kernels' PTX to `DIR` (no GPU needed), for
//! reading and for `ptxas -v` (registers, spills).

use std::time::Instant;
use weft::geom::{DeviceHashGrid, DeviceMesh, LbvhBuilder, hash_grid_query, hash_grid_query_next};
use weft::prelude::*;
use weft_testkit::bounce::Rollout;
use weft_testkit::mesh_workload::{
    EYE, TENTH, Workload, bvh_box_counts, camera_rays, cast_rays, closest_points, item_boxes,
    signed_distances,
};
use weft_testkit::particles::integrate;

const DT: f32 = 1.0 / 600.0;

#[weft::kernel]
fn small(x: &Array<f32>, y: &Array<f32>, z: &mut Array<f32>, a: f32) {
    let i = tid();
    z[i] = a * x[i] + y[i];
}

#[weft::kernel]
fn square_sum(x: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], x[i] * x[i]);
}

#[weft::kernel]
fn scale_shared(x: &Array<f32>, k: &Array<f32>, y: &mut Array<f32>) {
    let i = tid();
    y[i] = x[i] * k[0];
}

/// `scale_shared`'s adjoint written by hand as a forward kernel: the same loads,
/// stores and one-element sum, to compare the generated adjoint against.
#[weft::kernel]
fn scale_shared_by_hand(
    x: &Array<f32>,
    k: &Array<f32>,
    gy: &mut Array<f32>,
    gx: &mut Array<f32>,
    gk: &mut Array<f32>,
) {
    let i = tid();
    let g = gy[i];
    gy[i] = 0.0;
    gx[i] = gx[i] + g * k[0];
    atomic_add(&mut gk[0], g * x[i]);
}

#[weft::kernel]
fn neighbour_counts(grid: &DeviceHashGrid, x: &Array<Vec3>, r: f32, n: &mut Array<i32>) {
    let i = tid();
    let p = x[i];
    let mut k = 0;
    let mut q = hash_grid_query(grid, p, r);
    while q.index >= 0 {
        k += 1;
        q = hash_grid_query_next(grid, q, p, r);
    }
    n[i] = k;
}

/// Median seconds of `reps` runs of `f`, each synchronized.
fn time(dev: Device, reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            dev.synchronize().unwrap();
            s.elapsed().as_secs_f64()
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    let args: Vec<String> = std::env::args().collect();
    if let Some(k) = args.iter().position(|a| a == "--ptx") {
        let dir = std::path::Path::new(args.get(k + 1).expect("--ptx DIR"));
        std::fs::create_dir_all(dir).unwrap();
        for (name, ptx) in [
            ("cast_rays", cast_rays::PTX),
            ("camera_rays", camera_rays::PTX),
            ("closest_points", closest_points::PTX),
            ("signed_distances", signed_distances::PTX),
            ("bvh_box_counts", bvh_box_counts::PTX),
            (
                "closest_first_pass",
                weft::geom::point_batch::closest_first_pass::PTX,
            ),
            (
                "closest_regroup_pass",
                weft::geom::point_batch::closest_regroup_pass::PTX,
            ),
            (
                "closest_split_pass",
                weft::geom::point_batch::closest_split_pass::PTX,
            ),
        ] {
            std::fs::write(dir.join(format!("{name}.ptx")), ptx.unwrap()).unwrap();
        }
        return;
    }
    let dev = match Device::cuda(0) {
        Ok(d) => d,
        Err(e) => {
            println!("SKIPPED (no CUDA): {e}");
            return;
        }
    };
    let mut rows: Vec<(String, String)> = Vec::new();

    // First launch: loads the module from the embedded PTX.
    let x = Array::from_vec(dev, vec![1.0f32; 1024]);
    let y = Array::from_vec(dev, vec![2.0f32; 1024]);
    let mut z = Array::zeros(dev, [1024]);
    let s = Instant::now();
    small::launch(1024, &x, &y, &mut z, 3.0).unwrap();
    dev.synchronize().unwrap();
    rows.push((
        "first launch (module load + launch)".into(),
        format!("{:.3} ms", s.elapsed().as_secs_f64() * 1e3),
    ));
    assert_eq!(z.to_vec()[7], 5.0);

    // Mesh queries: a 327,680-triangle sphere (radius 1), 1M queries each.
    let m = 1 << 20;
    let Workload {
        sphere,
        origins,
        dirs,
    } = Workload::new(m);
    let mesh = DeviceMesh::new(dev, &sphere).unwrap();
    let (oa, da) = (
        Array::from_vec(dev, origins.clone()),
        Array::from_vec(dev, dirs),
    );
    let mut ts = Array::zeros(dev, [m]);
    cast_rays::launch(m, &mesh, &oa, &da, &mut ts).unwrap();
    let rays = time(dev, 10, || {
        cast_rays::launch(m, &mesh, &oa, &da, &mut ts).unwrap()
    });
    rows.push((
        "mesh 327,680 tris: random rays (1M)".into(),
        format!("{:.3} ms, {:.0} Mrays/s", rays * 1e3, m as f64 / rays / 1e6),
    ));
    let w = 1024;
    let eye = EYE;
    let mut img = Array::zeros(dev, [w * w]);
    camera_rays::launch([w, w], &mesh, eye, w as i32, &mut img).unwrap();
    let cam = time(dev, 10, || {
        camera_rays::launch([w, w], &mesh, eye, w as i32, &mut img).unwrap()
    });
    rows.push((
        "mesh 327,680 tris: camera rays (1024²)".into(),
        format!(
            "{:.3} ms, {:.0} Mrays/s",
            cam * 1e3,
            (w * w) as f64 / cam / 1e6
        ),
    ));
    let pts = Array::from_vec(dev, origins);
    let mut q = Array::zeros(dev, [m]);
    let tenth = TENTH;
    for (label, max_dist) in [
        ("unbounded", f32::INFINITY),
        ("within 10 % of the size", tenth),
    ] {
        closest_points::launch(m, &mesh, &pts, max_dist, &mut q).unwrap();
        let cp = time(dev, 10, || {
            closest_points::launch(m, &mesh, &pts, max_dist, &mut q).unwrap()
        });
        rows.push((
            format!("mesh 327,680 tris: closest points {label} (1M)"),
            format!("{:.3} ms, {:.0} M/s", cp * 1e3, m as f64 / cp / 1e6),
        ));
    }
    // Signed distances: the closest point and the winding number's sign.
    let mut sd = Array::zeros(dev, [m]);
    signed_distances::launch(m, &mesh, &pts, tenth, &mut sd).unwrap();
    let st = time(dev, 10, || {
        signed_distances::launch(m, &mesh, &pts, tenth, &mut sd).unwrap()
    });
    rows.push((
        "mesh 327,680 tris: signed distances within 10 % (1M, mesh_query_point)".into(),
        format!("{:.3} ms, {:.0} M/s", st * 1e3, m as f64 / st / 1e6),
    ));
    // A generic BVH over 1M boxes (half-width 0.01 around the points): box
    // queries of half-width 0.05, and a refit.
    let host_pts = pts.to_vec();
    let (lo, hi) = item_boxes(&host_pts, 0.01);
    let mut bvh = weft::geom::DeviceBvh::new(dev, &lo, &hi).unwrap();
    let mut counts = Array::zeros(dev, [m]);
    bvh_box_counts::launch(m, &bvh, &pts, 0.05, &mut counts).unwrap();
    let bq = time(dev, 10, || {
        bvh_box_counts::launch(m, &bvh, &pts, 0.05, &mut counts).unwrap()
    });
    rows.push((
        "DeviceBvh 1M boxes: bvh_query_aabb (1M boxes)".into(),
        format!("{:.3} ms, {:.0} M/s", bq * 1e3, m as f64 / bq / 1e6),
    ));
    bvh.refit().unwrap();
    let rf = time(dev, 20, || bvh.refit().unwrap());
    rows.push((
        "DeviceBvh 1M boxes: refit".into(),
        format!("{:.3} ms", rf * 1e3),
    ));

    closest_batches(dev, &mut rows, "", &mesh, &pts);
    // `WEFT_TREES=cost/leaf,...`: the same queries on host SAH trees built with
    // other options (for tuning).
    for spec in std::env::var("WEFT_TREES").unwrap_or_default().split(',') {
        let Some((cost, leaf)) = spec.split_once('/') else {
            continue;
        };
        let options = weft_geom::BuildOptions {
            traversal_cost: cost.parse().unwrap(),
            max_leaf_size: leaf.parse().unwrap(),
            ..Default::default()
        };
        let bvh = weft_geom::Bvh::from_mesh_with(&sphere, &options).unwrap();
        let tree = DeviceMesh::with_bvh(dev, &sphere, &bvh).unwrap();
        let label = format!("SAH {spec} ");
        let rays = time(dev, 10, || {
            cast_rays::launch(m, &tree, &oa, &da, &mut ts).unwrap()
        });
        let cam = time(dev, 10, || {
            camera_rays::launch([w, w], &tree, eye, w as i32, &mut img).unwrap()
        });
        rows.push((
            format!("{label}mesh: random / camera rays"),
            format!(
                "{:.0} / {:.0} Mrays/s",
                m as f64 / rays / 1e6,
                (w * w) as f64 / cam / 1e6
            ),
        ));
        closest_batches(dev, &mut rows, &label, &tree, &pts);
    }
    lbvh(dev, &mut rows, &sphere, &oa, &da, &pts);
    // `WEFT_CUDA_BENCH=mesh` stops here: the mesh-query rows alone, in seconds.
    if std::env::var("WEFT_CUDA_BENCH").is_ok_and(|v| v == "mesh") {
        print_rows(&rows);
        return;
    }

    // Host overhead per launch, and per kernel in a replayed graph (100 launches
    // captured, 20 replays per synchronisation), each with the kernels launched as
    // programmatic dependents (the default on sm_90) and without.
    let Device::Cuda(ordinal) = dev else { return };
    for pdl in [false, true] {
        weft::cuda::set_dependent_launch(pdl);
        let how = if pdl {
            "dependent launch"
        } else {
            "plain launch"
        };
        let t = time(dev, 7, || {
            for _ in 0..1000 {
                small::launch(1024, &x, &y, &mut z, 3.0).unwrap();
            }
        });
        rows.push((
            format!("launch overhead (1000 launches, one sync), {how}"),
            format!("{:.2} µs", t * 1e3),
        ));
        let graph = weft::cuda::Graph::capture(ordinal, || {
            (0..100).try_for_each(|_| small::launch(1024, &x, &y, &mut z, 3.0))
        })
        .unwrap();
        graph.launch().unwrap();
        let t = time(dev, 7, || {
            for _ in 0..20 {
                graph.launch().unwrap();
            }
        });
        rows.push((
            format!("per kernel in a replayed graph (100 kernels × 20 replays), {how}"),
            format!("{:.3} µs", t * 1e6 / 2000.0),
        ));
    }
    weft::cuda::set_dependent_launch(true);

    // Particles at 16M against a device-to-device copy of the same bytes.
    let n = 1 << 24;
    let mut xs = Array::from_vec(dev, vec![Vec3::new(0.0, 0.0, 1.0); n]);
    let mut vs = Array::from_vec(dev, vec![Vec3::new(1.0, 0.0, 0.0); n]);
    let g = Vec3::new(0.0, 0.0, -9.81);
    integrate::launch(n, &mut xs, &mut vs, g, DT).unwrap();
    // 20 back-to-back steps (copies) per synchronization, so the sync's latency
    // does not count as kernel time.
    let step = time(dev, 15, || {
        for _ in 0..20 {
            integrate::launch(n, &mut xs, &mut vs, g, DT).unwrap()
        }
    }) / 20.0;
    let mut cx = Array::zeros(dev, [n]);
    let mut cv = Array::zeros(dev, [n]);
    let copy = time(dev, 15, || {
        for _ in 0..20 {
            cx.copy_from(&xs).unwrap();
            cv.copy_from(&vs).unwrap();
        }
    }) / 20.0;
    let bytes = (n * 48) as f64;
    rows.push((
        "particles 16M: step".into(),
        format!("{:.3} ms, {:.2} TB/s", step * 1e3, bytes / step / 1e12),
    ));
    rows.push((
        "particles 16M: d2d copy of x, v (same bytes)".into(),
        format!("{:.3} ms, {:.2} TB/s", copy * 1e3, bytes / copy / 1e12),
    ));
    rows.push((
        "particles: fraction of copy bandwidth".into(),
        format!("{:.1} %", 100.0 * copy / step),
    ));

    // Sums into one element over 16M threads.
    let xf = Array::from_vec(dev, vec![0.5f32; n]);
    let mut l = Array::zeros(dev, [1]);
    square_sum::launch(n, &xf, &mut l).unwrap();
    let sum = time(dev, 10, || {
        for _ in 0..20 {
            square_sum::launch(n, &xf, &mut l).unwrap()
        }
    }) / 20.0;
    rows.push((
        "sum of x² into one element, 16M f32".into(),
        format!(
            "{:.3} ms, {:.2} TB/s read, {:.1} G adds/s",
            sum * 1e3,
            (n * 4) as f64 / sum / 1e12,
            n as f64 / sum / 1e9
        ),
    ));
    // The adjoint of that sum: x's gradient from the loss's (read from one element).
    let xs = Array::from_vec(dev, vec![0.5f32; n]).requires_grad();
    let mut ls = Array::zeros(dev, [1]).requires_grad();
    let mut sum_tape = Tape::new();
    sum_tape
        .record(|| square_sum::launch(n, &xs, &mut ls))
        .unwrap();
    ls.fill_grad(1.0).unwrap();
    let sum_back = time(dev, 10, || {
        for _ in 0..20 {
            sum_tape.run_backward().unwrap()
        }
    }) / 20.0;
    rows.push((
        "adjoint of loss += x², 16M f32 (reads x and the loss's gradient, adds into x's)".into(),
        format!(
            "{:.3} ms, {:.2} TB/s",
            sum_back * 1e3,
            (n * 12) as f64 / sum_back / 1e12
        ),
    ));
    let xg = Array::from_vec(dev, vec![0.5f32; n]).requires_grad();
    let k = Array::from_vec(dev, vec![2.0f32]).requires_grad();
    let mut yg = Array::zeros(dev, [n]).requires_grad();
    let mut tape = Tape::new();
    tape.record(|| scale_shared::launch(n, &xg, &k, &mut yg))
        .unwrap();
    tape.run_backward().unwrap();
    let back = time(dev, 10, || {
        for _ in 0..20 {
            tape.run_backward().unwrap()
        }
    }) / 20.0;
    // Reads x and y's gradient, zeroes y's gradient, adds into x's gradient.
    let moved = (n * 4 * 5) as f64;
    rows.push((
        "adjoint of y = x·k[0], 16M (k's gradient into one element)".into(),
        format!("{:.3} ms, {:.2} TB/s", back * 1e3, moved / back / 1e12),
    ));
    // The same adjoint written by hand, and the generated one without k's gradient
    // (no one-element sum): where the time goes if the adjoint is slow.
    let mut gy = Array::from_vec(dev, vec![1.0f32; n]);
    let mut gx = Array::zeros(dev, [n]);
    let mut gk = Array::zeros(dev, [1]);
    let by_hand = time(dev, 10, || {
        for _ in 0..20 {
            scale_shared_by_hand::launch(n, &xg, &k, &mut gy, &mut gx, &mut gk).unwrap()
        }
    }) / 20.0;
    let k_const = Array::from_vec(dev, vec![2.0f32]);
    let mut tape2 = Tape::new();
    tape2
        .record(|| scale_shared::launch(n, &xg, &k_const, &mut yg))
        .unwrap();
    let no_sum = time(dev, 10, || {
        for _ in 0..20 {
            tape2.run_backward().unwrap()
        }
    }) / 20.0;
    rows.push((
        "same adjoint by hand / generated without k's gradient".into(),
        format!("{:.3} ms / {:.3} ms", by_hand * 1e3, no_sum * 1e3),
    ));
    // The same four with the reducing kernels capped at 1, 4 or 16 waves of
    // resident blocks, or not at all.
    for waves in [1, 4, 16, 0] {
        weft::cuda::set_reduction_waves(waves);
        let run = |f: &mut dyn FnMut()| {
            time(dev, 7, || {
                for _ in 0..20 {
                    f()
                }
            }) / 20.0
                * 1e3
        };
        let a = run(&mut || square_sum::launch(n, &xf, &mut l).unwrap());
        let b = run(&mut || tape.run_backward().unwrap());
        let c = run(&mut || {
            scale_shared_by_hand::launch(n, &xg, &k, &mut gy, &mut gx, &mut gk).unwrap()
        });
        let d = run(&mut || tape2.run_backward().unwrap());
        rows.push((
            format!("waves {waves}: x² sum / adjoint / by hand / adjoint without k's gradient"),
            format!("{a:.3} / {b:.3} / {c:.3} / {d:.3} ms"),
        ));
    }
    weft::cuda::set_reduction_waves(weft::cuda::DEFAULT_REDUCTION_WAVES);

    // Hash-grid radius queries: 1M points in the unit cube, r = cell = 0.02 (~33
    // neighbours each), grid built on the host.
    let gp: Vec<Vec3> = weft_testkit::random_f32s(3 * m, 4, 0.0, 1.0)
        .chunks(3)
        .map(|c| Vec3::new(c[0], c[1], c[2]))
        .collect();
    let host_grid = weft_geom::HashGrid::with_points(&gp, 0.02, [128, 128, 128]).unwrap();
    let gx = Array::from_slice(dev, &gp);
    let mut grid = DeviceHashGrid::with_dim(dev, [128, 128, 128]).unwrap();
    grid.build(&gx, 0.02).unwrap();
    assert!(
        grid.sorted_index.to_vec() == host_grid.sorted_index()
            && grid.cell_start.to_vec() == host_grid.cell_start()
            && grid.cell_end.to_vec() == host_grid.cell_end(),
        "the device build differs from the host build"
    );
    // 20 builds per synchronisation, so the sync's latency does not count.
    let build = time(dev, 15, || {
        for _ in 0..20 {
            grid.build(&gx, 0.02).unwrap()
        }
    }) / 20.0;
    rows.push((
        "hash grid: device build, 1M points, 128³ cells (cell 0.02, = host build)".into(),
        format!(
            "{:.3} ms, {:.0} M points/s",
            build * 1e3,
            m as f64 / build / 1e6
        ),
    ));
    let mut hg = weft_geom::HashGrid::new([128, 128, 128]).unwrap();
    let upload = time(dev, 5, || {
        hg.build(&gp, 0.02).unwrap();
        DeviceHashGrid::new(dev, &hg).unwrap();
    });
    rows.push((
        "hash grid: host build (16 cores) + upload, same points".into(),
        format!("{:.3} ms", upload * 1e3),
    ));
    // Worst case: every point in one cell (a cell size far above the cloud's).
    let mut one = DeviceHashGrid::with_dim(dev, [128, 128, 128]).unwrap();
    one.build(&gx, 4.0).unwrap();
    let all_in_one = time(dev, 3, || one.build(&gx, 4.0).unwrap());
    rows.push((
        "hash grid: device build, 1M points all in one cell".into(),
        format!("{:.3} ms", all_in_one * 1e3),
    ));
    drop(one);
    let mut counts = Array::zeros(dev, [m]);
    neighbour_counts::launch(m, &grid, &gx, 0.02, &mut counts).unwrap();
    let hq = time(dev, 10, || {
        neighbour_counts::launch(m, &grid, &gx, 0.02, &mut counts).unwrap()
    });
    let per = counts.to_vec().iter().map(|&k| k as f64).sum::<f64>() / m as f64;
    rows.push((
        "hash grid: 1M radius queries (r = cell = 0.02)".into(),
        format!(
            "{:.3} ms, {:.0} M queries/s, {per:.1} neighbours each",
            hq * 1e3,
            m as f64 / hq / 1e6
        ),
    ));

    // The bounce optimization, 16,384 balls, 288 steps.
    let balls = 16_384;
    let x0: Vec<Vec3> = (0..balls)
        .map(|i| Vec3::new(-0.5 + 1e-5 * i as f32, 0.0, 1.0))
        .collect();
    let mut rollout = Rollout::new(dev, &x0, Vec3::new(1.0, 0.0, 0.5));
    let v0 = Array::from_vec(dev, vec![Vec3::new(5.0, 0.0, -5.0); balls]).requires_grad();
    let mut loss = Array::zeros(dev, [1]).requires_grad();
    let fwd = time(dev, 10, || rollout.run(&v0, &mut loss).unwrap());
    let mut tape = Tape::new();
    let both = time(dev, 10, || {
        rollout.gradient(&mut tape, &v0, &mut loss).unwrap()
    });
    // The whole optimization step (forward, seed, backward) captured once and
    // replayed: the gradients stay allocated, the seed is a device fill.
    let mut step_tape = Tape::new();
    let graph = weft::cuda::Graph::capture(ordinal, || {
        step_tape.reset();
        v0.zero_grad();
        step_tape.record(|| rollout.run(&v0, &mut loss))?;
        loss.fill_grad(1.0)?;
        step_tape.run_backward()
    })
    .unwrap();
    let both_graph = time(dev, 10, || graph.launch().unwrap());
    rows.push((
        "bounce 16K balls: forward + backward replayed from a graph".into(),
        format!("{:.3} ms ({} nodes)", both_graph * 1e3, graph.node_count()),
    ));
    rows.push((
        "bounce 16K balls: forward".into(),
        format!("{:.3} ms", fwd * 1e3),
    ));
    rows.push((
        "bounce 16K balls: forward + backward".into(),
        format!(
            "{:.3} ms (backward/forward {:.2})",
            both * 1e3,
            (both - fwd) / fwd
        ),
    ));

    cloth(dev, &mut rows);
    granular(dev, &mut rows);
    sph(dev, &mut rows);

    print_rows(&rows);
}

/// The table of `(measurement, result)` rows, in markdown.
fn print_rows(rows: &[(String, String)]) {
    println!("\n| measurement | result |\n|---|---|");
    for (k, v) in rows {
        println!("| {k} | {v} |");
    }
}

/// The BVH of `sphere` built on the device (a linear BVH: one rebuild, timed 20
/// per synchronisation and alone with its synchronisation), then the mesh-query
/// rows through it: the same rays and points as the host-built (SAH) tree above.
fn lbvh(
    dev: Device,
    rows: &mut Vec<(String, String)>,
    sphere: &weft_geom::Mesh,
    oa: &Array<Vec3>,
    da: &Array<Vec3>,
    pts: &Array<Vec3>,
) {
    let faces: Vec<u32> = sphere.indices().iter().flatten().copied().collect();
    let p = Array::from_slice(dev, sphere.points());
    let f = Array::from_slice(dev, &faces);
    let mut builder = LbvhBuilder::new(dev);
    let mut mesh = builder.build(&p, &f).unwrap();
    builder.rebuild(&mut mesh).unwrap();
    let many = time(dev, 15, || {
        for _ in 0..20 {
            builder.rebuild(&mut mesh).unwrap()
        }
    }) / 20.0;
    let one = time(dev, 30, || builder.rebuild(&mut mesh).unwrap());
    rows.push((
        "device BVH build, 327,680 tris (LBVH; 20 per sync / one + sync)".into(),
        format!("{:.3} / {:.3} ms", many * 1e3, one * 1e3),
    ));
    // Where the time goes: the median of 15 rebuilds with a sync after each stage.
    let runs: Vec<Vec<(&str, f64)>> = (0..15)
        .map(|_| builder.rebuild_timed(&mut mesh).unwrap())
        .collect();
    let stages: Vec<String> = runs[0]
        .iter()
        .enumerate()
        .map(|(k, (name, _))| {
            let mut t: Vec<f64> = runs.iter().map(|r| r[k].1).collect();
            t.sort_by(f64::total_cmp);
            format!("{name} {:.3}", t[t.len() / 2] * 1e3)
        })
        .collect();
    rows.push((
        "device BVH build stages, ms (sync after each)".into(),
        stages.join(", "),
    ));
    // Refits on the device, keeping the topology: the linear BVH, and the
    // host-built SAH tree (with winding data, recomputed too).
    builder.refit(&mut mesh).unwrap();
    let refit = time(dev, 30, || builder.refit(&mut mesh).unwrap());
    let mut sah = DeviceMesh::new(dev, sphere).unwrap();
    builder.refit(&mut sah).unwrap();
    let sah_refit = time(dev, 30, || builder.refit(&mut sah).unwrap());
    rows.push((
        "device BVH refit, 327,680 tris: LBVH / SAH tree with winding data".into(),
        format!("{:.3} / {:.3} ms", refit * 1e3, sah_refit * 1e3),
    ));
    let m = oa.len();
    let mut ts = Array::zeros(dev, [m]);
    let rays = time(dev, 10, || {
        cast_rays::launch(m, &mesh, oa, da, &mut ts).unwrap()
    });
    rows.push((
        "LBVH mesh 327,680 tris: random rays (1M)".into(),
        format!("{:.3} ms, {:.0} Mrays/s", rays * 1e3, m as f64 / rays / 1e6),
    ));
    let w = 1024;
    let mut img = Array::zeros(dev, [w * w]);
    let eye = EYE;
    let cam = time(dev, 10, || {
        camera_rays::launch([w, w], &mesh, eye, w as i32, &mut img).unwrap()
    });
    rows.push((
        "LBVH mesh 327,680 tris: camera rays (1024²)".into(),
        format!(
            "{:.3} ms, {:.0} Mrays/s",
            cam * 1e3,
            (w * w) as f64 / cam / 1e6
        ),
    ));
    let mut q = Array::zeros(dev, [m]);
    for (label, max_dist) in [
        ("unbounded", f32::INFINITY),
        ("within 10 % of the size", TENTH),
    ] {
        let cp = time(dev, 10, || {
            closest_points::launch(m, &mesh, pts, max_dist, &mut q).unwrap()
        });
        rows.push((
            format!("LBVH mesh 327,680 tris: closest points {label} (1M)"),
            format!("{:.3} ms, {:.0} M/s", cp * 1e3, m as f64 / cp / 1e6),
        ));
    }
    closest_batches(dev, rows, "LBVH ", &mesh, pts);
}

/// `ClosestPoints` on the 1M points (the Morton sort included), unbounded and
/// within 10 %, at a few node budgets of the first pass; with the number of split
/// queries.
fn closest_batches(
    dev: Device,
    rows: &mut Vec<(String, String)>,
    tree: &str,
    mesh: &DeviceMesh,
    pts: &Array<Vec3>,
) {
    let m = pts.len();
    let mut faces = Array::zeros(dev, [m]);
    let mut batch = weft::geom::ClosestPoints::new(dev).unwrap();
    let budgets: Vec<i32> = std::env::var("WEFT_SPLIT_BUDGETS")
        .ok()
        .map(|v| v.split(',').filter_map(|b| b.parse().ok()).collect())
        .unwrap_or_else(|| vec![weft::geom::point_batch::GPU_BUDGET]);
    // `WEFT_REGROUP_BUDGETS=a,b`: first-pass budgets to compare.
    let regroups: Vec<i32> = std::env::var("WEFT_REGROUP_BUDGETS")
        .ok()
        .map(|v| v.split(',').filter_map(|b| b.parse().ok()).collect())
        .unwrap_or_else(|| vec![weft::geom::point_batch::GPU_REGROUP_BUDGET]);
    for (label, max_dist) in [
        ("unbounded", f32::INFINITY),
        ("within 10 % of the size", TENTH),
    ] {
        for &budget in &budgets {
            for &regroup in &regroups {
                batch.set_budget(budget);
                batch.set_regroup_budget(regroup);
                batch.faces(mesh, pts, max_dist, &mut faces).unwrap();
                let split = batch.last_split_count().unwrap();
                let queued = batch.last_regroup_count().unwrap();
                let t = time(dev, 10, || {
                    batch.faces(mesh, pts, max_dist, &mut faces).unwrap()
                });
                rows.push((
                    format!(
                        "{tree}mesh 327,680 tris: ClosestPoints {label} (1M, budget {budget}, regroup {regroup})"
                    ),
                    format!(
                        "{:.3} ms, {:.0} M/s ({queued} regrouped, {split} split)",
                        t * 1e3,
                        m as f64 / t / 1e6
                    ),
                ));
            }
        }
    }
}

/// The cloth workload (`crates/weft-testkit/src/cloth.rs`): ms per frame (16 substeps and
/// the copy of positions to the host) and per substep, eager and replaying a CUDA
/// graph of two substeps (the states swap back and forth).
fn cloth(dev: Device, rows: &mut Vec<(String, String)>) {
    use weft_testkit::cloth::{SUBSTEPS, Workload};
    let Device::Cuda(ordinal) = dev else { return };
    let dims: Vec<usize> = std::env::var("WEFT_CLOTH_DIMS")
        .map(|s| {
            s.split(',')
                .map(|d| d.parse().expect("a dimension"))
                .collect()
        })
        .unwrap_or_else(|_| vec![32, 128, 512]);
    for dim in dims {
        let mut w = Workload::new(dev, dim).unwrap();
        let mut host = Vec::new();
        w.frame(&mut host).unwrap();
        let frame = time(dev, 21, || w.frame(&mut host).unwrap());
        let sub = time(dev, 11, || {
            for _ in 0..100 {
                w.substep().unwrap();
            }
        }) / 100.0;
        let graph = weft::cuda::Graph::capture(ordinal, || {
            let sim = |e: weft_sim::SimError| weft::Error::Shape(e.to_string());
            w.substep().map_err(sim)?;
            w.substep().map_err(sim)
        })
        .unwrap();
        graph.launch().unwrap();
        let gsub = time(dev, 11, || {
            for _ in 0..50 {
                graph.launch().unwrap();
            }
        }) / 100.0;
        let gframe = time(dev, 21, || {
            for _ in 0..SUBSTEPS / 2 {
                graph.launch().unwrap();
            }
            host = w.a.particle_q.to_vec();
        });
        assert!(
            host.iter().all(|p| p.is_finite()),
            "cloth {dim}: not finite"
        );
        rows.push((
            format!("cloth {dim}×{dim}: frame eager / graph"),
            format!("{:.3} ms / {:.3} ms", frame * 1e3, gframe * 1e3),
        ));
        rows.push((
            format!("cloth {dim}×{dim}: substep eager / graph"),
            format!("{:.1} µs / {:.1} µs", sub * 1e6, gsub * 1e6),
        ));
    }
}

/// The granular workload (`crates/weft-testkit/src/granular.rs`): a 100 × 100 × 100 block of
/// 1,000,000 grains of 1 cm on a lattice 2.1 radii apart, falling
/// onto the ground; one semi-implicit substep (hash-grid rebuild, particle and
/// ground contacts, integration), eager and replayed from a CUDA graph of two
/// substeps.
fn granular(dev: Device, rows: &mut Vec<(String, String)>) {
    use weft_sim::{Control, SemiImplicit, State};
    use weft_testkit::granular::{DT, RADIUS, block};
    let Device::Cuda(ordinal) = dev else { return };
    let model = block([100, 100, 100], RADIUS).finalize(dev).unwrap();
    let mut a = State::new(&model).unwrap();
    let mut b = State::new(&model).unwrap();
    let control = Control::empty(dev);
    let mut solver = SemiImplicit::new();
    // Let the lowest layers reach the ground first (about 0.05 s), so the step
    // times include contacts with the ground and between grains.
    for _ in 0..100 {
        solver
            .simulate(&model, &mut a, &mut b, &control, DT)
            .unwrap();
        std::mem::swap(&mut a, &mut b);
    }
    let step = time(dev, 11, || {
        for _ in 0..10 {
            solver
                .simulate(&model, &mut a, &mut b, &control, DT)
                .unwrap();
            std::mem::swap(&mut a, &mut b);
        }
    }) / 10.0;
    let graph = weft::cuda::Graph::capture(ordinal, || {
        let sim = |e: weft_sim::SimError| weft::Error::Shape(e.to_string());
        solver
            .simulate(&model, &mut a, &mut b, &control, DT)
            .map_err(sim)?;
        solver
            .simulate(&model, &mut b, &mut a, &control, DT)
            .map_err(sim)
    })
    .unwrap();
    graph.launch().unwrap();
    let gstep = time(dev, 11, || {
        for _ in 0..5 {
            graph.launch().unwrap();
        }
    }) / 10.0;
    let q = a.particle_q.to_vec();
    assert!(q.iter().all(|p| p.is_finite()), "granular: not finite");
    let low = q.iter().map(|p| p.z).fold(f32::INFINITY, f32::min);
    rows.push((
        format!("granular {} grains: substep eager / graph", q.len()),
        format!(
            "{:.3} ms / {:.3} ms (lowest grain at {:.2} radii)",
            step * 1e3,
            gstep * 1e3,
            low / RADIUS
        ),
    ));
}

/// The SPH workload (`crates/weft-testkit/src/sph.rs`) at 1,048,576 particles: ms per step
/// and per phase (grid, density, forces, integrate).
fn sph(dev: Device, rows: &mut Vec<(String, String)>) {
    use weft_testkit::sph::Workload;
    if !matches!(dev, Device::Cuda(_)) {
        return;
    }
    let mut w = Workload::new(dev, 1 << 20).unwrap();
    for _ in 0..5 {
        w.step().unwrap();
    }
    let step = time(dev, 11, || {
        for _ in 0..10 {
            w.step().unwrap();
        }
    }) / 10.0;
    let grid = time(dev, 11, || w.grid().unwrap());
    let neighbours = w.mean_neighbours().unwrap();
    let density = time(dev, 11, || w.density().unwrap());
    let forces = time(dev, 11, || w.forces().unwrap());
    let integrate = time(dev, 11, || w.integrate().unwrap());
    let q = w.a.particle_q.to_vec();
    assert!(q.iter().all(|p| p.is_finite()), "sph: not finite");
    rows.push((
        format!(
            "SPH {} particles ({neighbours:.1} neighbours): step",
            q.len()
        ),
        format!(
            "{:.3} ms (grid {:.3}, density {:.3}, forces {:.3}, integrate {:.3})",
            step * 1e3,
            grid * 1e3,
            density * 1e3,
            forces * 1e3,
            integrate * 1e3
        ),
    ));
}
