//! CPU rates of weft-articulation (issue 26 point 9), to set beside MuJoCo's
//! and Pinocchio's (`scripts/references/bench_peers.py`):
//!
//! - **Rollouts**: the ant and the humanoid of `assets/robots`, 64 copies, each
//!   in a world of its own, split into one model per thread (`add_robot` into a
//!   `ModelBuilder` per thread, 4 m apart on a grid, the file's floor plane
//!   once per model and shared by its worlds, links colliding with each other
//!   except with their parent, as MuJoCo's defaults; each model stepped whole
//!   on its own core through `weft::cpu::for_each_shard`, as MuJoCo's
//!   `rollout` gives each thread its chunk), stepped by `FeatherstoneSolver`
//!   (CRBA, its default, and ABA) with link contacts, zero controls, after 4 s
//!   of settling (the humanoid falls over and lies on the floor, the ant
//!   stands). Criterion's throughput is elements = 64 per step, so its
//!   `elem/s` is steps per second summed over the worlds.
//!   Each robot runs at its file's time step and at a smaller one
//!   ([`ANT_DT`], [`HUMANOID_DT`]), contacts implicit with anchored
//!   friction (the solver's defaults; with explicit penalty springs the
//!   files' 10 ms (ant) and 5 ms (humanoid) blew up). A rollout whose copies have not
//!   settled (a coordinate not finite, or a torso above its starting height)
//!   is reported and not timed.
//! - **Per call**: `forward_dynamics_aba` (ABA), `mass_matrix` (CRBA),
//!   `inverse_dynamics` (RNEA) on one humanoid and on 64 humanoids (one call
//!   per model, a model per thread as for the rollouts), at a fixed random state; and the full ABA
//!   derivatives ∂q̈/∂(q, q̇, τ) from the tape (record, then one reverse pass
//!   per degree of freedom; for the 64 copies one pass per degree of freedom
//!   serves all, the copies being independent).
//!
//! Threads: weft's CPU device runs a launch on as many threads as rayon's
//! global pool has (`rayon::current_num_threads()`, fixed for the process by
//! `RAYON_NUM_THREADS`; its helper team is built once at that size). So this
//! bench runs itself twice, with `RAYON_NUM_THREADS=1` and `=2` (set the
//! variable yourself to run one count only); the groups are named `..._1t` /
//! `..._2t`.
//!
//! `cargo bench --bench articulation` (about 4 minutes on the 2-core VM); a filter as usual:
//! `cargo bench --bench articulation -- rollout`.

use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput};
use glam::Vec3;
use weft::cpu::for_each_shard;
use weft::{Array, Device, Tape, Transform};
use weft_articulation::{
    AbaLayout, ArticulationLayout, FeatherstoneSolver, ForwardDynamics, aba_derivatives,
    forward_dynamics_aba, inverse_dynamics, mass_matrix,
};
use weft_import::{ImportOptions, RobotDescription, RobotHandles, RobotOptions, add_robot, load};
use weft_sim::{Control, Model, ModelBuilder, State};

/// Copies of a robot in the batched model.
const WORLDS: usize = 64;
/// Distance between neighbouring copies (m): no two touch.
const SPACING: f32 = 4.0;
/// The ant's time step in its second rollout (s), a finer one beside the
/// file's 10 ms (the bench prints where the torsos settled; with the first,
/// viscous friction the feet crept and the ants sank to 0.36 m at either
/// step, see `crates/weft-articulation/tests/ant_settles.rs`).
const ANT_DT: f32 = 0.004;
/// The humanoid's time step in its second rollout (s), a finer one beside
/// the file's 5 ms (with the first, explicit penalty contacts the copies
/// bounced at 5 ms; the implicit contacts settle there, and the bench prints
/// where the torsos came to rest at either step).
const HUMANOID_DT: f32 = 0.002;
/// Simulated settling time before a rollout is timed (s).
const SETTLE_S: f64 = 4.0;

fn robot(name: &str) -> RobotDescription {
    let path = format!("{}/assets/robots/{name}.xml", env!("CARGO_MANIFEST_DIR"));
    load(&path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `copies` of `robot` in one CPU model, each in a world of its own (as
/// MuJoCo's batched rollouts: a copy's links collide with each other, never
/// with another copy's) and 4 m apart (for pictures), the file's world geoms
/// (the floor plane) added once and shared by every world, the file's gravity.
fn batch(robot: &RobotDescription, copies: usize) -> (Model, Vec<RobotHandles>) {
    let mut no_floor = robot.clone();
    no_floor.geoms.retain(|g| g.body.is_some());
    let mut b = ModelBuilder::new();
    b.ground = None; // the file has its floor
    b.gravity = robot.options.gravity.as_vec3();
    let side = (copies as f64).sqrt().ceil() as usize;
    // MuJoCo's contacts: a robot's links touch each other too, except a link
    // and its parent (the builder's parent filter, on by default).
    let options = RobotOptions {
        self_collisions: true,
        ..RobotOptions::default()
    };
    let handles = (0..copies)
        .map(|i| {
            let at = Vec3::new((i % side) as f32, (i / side) as f32, 0.0) * SPACING;
            let d = if i == 0 { robot } else { &no_floor };
            let options = RobotOptions {
                world: i as i32,
                ..options.clone()
            };
            let h = add_robot(&mut b, d, Transform::from_translation(at), &options).unwrap();
            for (g, s) in d.geoms.iter().zip(&h.shapes) {
                if let (None, Some(s)) = (g.body, s) {
                    b.rigid_shape_mut(*s).unwrap().world = -1;
                }
            }
            h
        })
        .collect();
    (b.finalize(Device::Cpu).unwrap(), handles)
}

/// A small deterministic generator (xorshift) for the per-call states.
struct Rng(u64);

impl Rng {
    /// Uniform in `[-a, a]`.
    fn sym(&mut self, a: f32) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0) * a
    }
}

fn threads() -> usize {
    rayon::current_num_threads()
}

fn group_name(what: &str) -> String {
    format!("{what}_{}t", threads())
}

/// One core's part of a rollout: a model of some of the worlds, its solver
/// and its states, stepped by one thread through whole steps
/// ([`weft::cpu::for_each_shard`]).
struct Shard {
    model: Model,
    handles: Vec<RobotHandles>,
    control: Control,
    solver: FeatherstoneSolver,
    s: State,
    next: State,
}

impl Shard {
    fn new(robot: &RobotDescription, worlds: usize, dynamics: ForwardDynamics) -> Shard {
        let (model, handles) = batch(robot, worlds);
        Shard {
            control: Control::new(&model).unwrap(),
            solver: FeatherstoneSolver::with_dynamics(&model, dynamics).unwrap(),
            s: State::new(&model).unwrap(),
            next: State::new(&model).unwrap(),
            model,
            handles,
        }
    }

    fn step(&mut self, dt: f32) {
        self.solver
            .step(&self.model, &self.s, &mut self.next, &self.control, dt)
            .unwrap();
        std::mem::swap(&mut self.s, &mut self.next);
    }

    /// Every copy's torso height.
    fn torso(&self) -> Vec<f32> {
        let q = self.s.body_q.to_vec();
        self.handles.iter().map(|h| q[h.bodies[0]].p.z).collect()
    }
}

/// Steps per second of the 64 copies of `name`, CRBA and ABA, at `dt` (the
/// file's time step when `None`). The copies are split into one model per
/// thread ([`Shard`]), each stepped whole on its own core, as MuJoCo's
/// `rollout` gives each thread its chunk of the batch.
fn rollouts(c: &mut Criterion, name: &str, dt: Option<f32>) {
    let robot = robot(name);
    let file_dt = robot.options.timestep.unwrap_or(0.002) as f32;
    let dt = dt.unwrap_or(file_dt);
    let label = if dt == file_dt {
        name.to_string()
    } else {
        format!("{name}_dt{}ms", (dt * 1e3).round())
    };
    let shards = threads().clamp(1, WORLDS);
    let mut group = c.benchmark_group(group_name("rollout"));
    group
        .sampling_mode(SamplingMode::Flat)
        .throughput(Throughput::Elements(WORLDS as u64));
    for (tag, dynamics) in [
        ("crba", ForwardDynamics::CompositeRigidBody),
        ("aba", ForwardDynamics::ArticulatedBody),
    ] {
        let mut parts: Vec<Shard> = (0..shards)
            .map(|k| {
                let worlds = WORLDS * (k + 1) / shards - WORLDS * k / shards;
                Shard::new(&robot, worlds, dynamics)
            })
            .collect();
        let start_z = parts[0].torso()[0];
        let settle = (SETTLE_S / dt as f64).round() as usize;
        let t0 = std::time::Instant::now();
        for_each_shard(&mut parts, |_, p| {
            for _ in 0..settle {
                p.step(dt)
            }
        });
        let settle_time = t0.elapsed().as_secs_f64();
        let (mut found, mut overflow, mut pair_overflow) = (0, 0, 0);
        let (mut z, mut finite) = (Vec::new(), true);
        for p in &parts {
            let report = p.solver.contact_report().unwrap();
            found += report.found;
            overflow += report.overflow;
            pair_overflow += report.pair_overflow;
            z.extend(p.torso());
            finite &= p.s.joint_q.to_vec().iter().all(|x| x.is_finite());
        }
        let settled = finite && z.iter().all(|&z| z < start_z);
        let m = &parts[0].model;
        println!(
            "{label} x{WORLDS} {tag}, {} threads, {shards} shard(s): dt {dt} s, per shard {} joints, \
             {} dofs, {} shapes; after {settle} settling steps ({:.0} steps/s): contacts {found} \
             ({:.1} per world), overflow {overflow}/{pair_overflow}, torso z in [{:.3}, {:.3}] m \
             (starts at {start_z:.3}), finite {finite}{}",
            threads(),
            m.joint_count(),
            m.joint_dof_count(),
            m.rigid_shapes.len(),
            (settle * WORLDS) as f64 / settle_time,
            found as f64 / WORLDS as f64,
            z.iter().cloned().fold(f32::INFINITY, f32::min),
            z.iter().cloned().fold(f32::NEG_INFINITY, f32::max),
            if settled {
                ""
            } else {
                ": NOT SETTLED, not timed"
            },
        );
        if !settled {
            continue;
        }
        group.bench_function(format!("{label}_x{WORLDS}_{tag}"), |b| {
            b.iter(|| for_each_shard(&mut parts, |_, p| p.step(dt)))
        });
        let found: usize = parts
            .iter()
            .map(|p| p.solver.contact_report().unwrap().found)
            .sum();
        let finite = parts
            .iter()
            .all(|p| p.s.joint_q.to_vec().iter().all(|x| x.is_finite()));
        println!(
            "{label} x{WORLDS} {tag} after the timed steps: contacts {found} ({:.1} per world), finite {finite}",
            found as f64 / WORLDS as f64
        );
    }
    group.finish();
}

/// A random state of every copy: the file's pose, hinges moved by up to
/// ±0.3 rad, velocities ±1, efforts ±5 (the free joint's pose kept).
fn random_state(model: &Model, handles: &[RobotHandles]) -> [Array<f32>; 3] {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut q = model.joint_q.to_vec();
    for h in handles {
        for x in &mut q[h.q_range.start + 7..h.q_range.end] {
            *x += rng.sym(0.3);
        }
    }
    let nd = model.joint_dof_count();
    let qd: Vec<f32> = (0..nd).map(|_| rng.sym(1.0)).collect();
    let tau: Vec<f32> = (0..nd).map(|_| rng.sym(5.0)).collect();
    [q, qd, tau].map(|v| Array::from_vec(Device::Cpu, v))
}

/// One core's part of a batched call: a model of some of the humanoids, its
/// layouts and a random state.
struct CallShard {
    model: Model,
    handles: Vec<RobotHandles>,
    aba: AbaLayout,
    layout: ArticulationLayout,
    q: Array<f32>,
    qd: Array<f32>,
    tau: Array<f32>,
    qdd: Array<f32>,
}

impl CallShard {
    fn new(copies: usize) -> CallShard {
        let (model, handles) = batch(&robot("humanoid"), copies);
        let [q, qd, tau] = random_state(&model, &handles);
        let aba = AbaLayout::new(&model).unwrap();
        let layout = ArticulationLayout::new(&model).unwrap();
        let qdd = forward_dynamics_aba(&model, &aba, &q, &qd, &tau).unwrap();
        CallShard {
            model,
            handles,
            aba,
            layout,
            q,
            qd,
            tau,
            qdd,
        }
    }
}

/// ABA, CRBA, RNEA and the ABA derivatives per call, on `copies` humanoids
/// split into one model per thread (each called on its own core,
/// [`for_each_shard`]; one model when `copies` is 1).
fn per_call(c: &mut Criterion, copies: usize) {
    let shards = if copies == 1 {
        1
    } else {
        threads().clamp(1, copies)
    };
    let mut parts: Vec<CallShard> = (0..shards)
        .map(|k| CallShard::new(copies * (k + 1) / shards - copies * k / shards))
        .collect();
    if copies == 1 {
        // Launches per call on a tape (the differentiable path: one launch
        // per kernel, per tree level for ABA); off the tape each is one.
        let p = &parts[0];
        let (model, q, qd, tau, qdd) = (&p.model, &p.q, &p.qd, &p.tau, &p.qdd);
        let launches = |f: &dyn Fn()| {
            let mut tape = Tape::new();
            tape.record(f);
            tape.len()
        };
        println!(
            "kernel launches per call on a tape: ABA {}, CRBA {}, RNEA {} (off it: 1 each)",
            launches(&|| drop(forward_dynamics_aba(model, &p.aba, q, qd, tau).unwrap())),
            launches(&|| drop(mass_matrix(model, &p.layout, q).unwrap())),
            launches(&|| drop(inverse_dynamics(model, q, qd, qdd).unwrap())),
        );
    }
    let mut group = c.benchmark_group(group_name("humanoid_call"));
    group.throughput(Throughput::Elements(copies as u64));
    group.bench_function(format!("aba_x{copies}"), |b| {
        b.iter(|| {
            for_each_shard(&mut parts, |_, p| {
                drop(forward_dynamics_aba(&p.model, &p.aba, &p.q, &p.qd, &p.tau).unwrap())
            })
        })
    });
    group.bench_function(format!("crba_x{copies}"), |b| {
        b.iter(|| {
            for_each_shard(&mut parts, |_, p| {
                drop(mass_matrix(&p.model, &p.layout, &p.q).unwrap())
            })
        })
    });
    group.bench_function(format!("rnea_x{copies}"), |b| {
        b.iter(|| {
            for_each_shard(&mut parts, |_, p| {
                drop(inverse_dynamics(&p.model, &p.q, &p.qd, &p.qdd).unwrap())
            })
        })
    });
    // The full Jacobians of q̈ (as Pinocchio's computeABADerivatives): record
    // ABA once, then one reverse pass per degree of freedom of a copy, seeding
    // that q̈ entry of every copy.
    struct Derivatives {
        gq: Array<f32>,
        gqd: Array<f32>,
        gtau: Array<f32>,
        seeds: Vec<Vec<f32>>,
    }
    let derivatives: Vec<Derivatives> = parts
        .iter()
        .map(|p| {
            let nv = p.handles[0].qd_range.len();
            let nd = p.model.joint_dof_count();
            Derivatives {
                gq: p.q.clone().requires_grad(),
                gqd: p.qd.clone().requires_grad(),
                gtau: p.tau.clone().requires_grad(),
                seeds: (0..nv)
                    .map(|i| {
                        let mut s = vec![0.0f32; nd];
                        for h in &p.handles {
                            s[h.qd_range.start + i] = 1.0;
                        }
                        s
                    })
                    .collect(),
            }
        })
        .collect();
    let mut pairs: Vec<(&CallShard, &Derivatives)> = parts.iter().zip(&derivatives).collect();
    group.bench_function(format!("aba_derivatives_x{copies}"), |b| {
        b.iter(|| {
            for_each_shard(&mut pairs, |_, (p, d)| {
                let mut tape = Tape::new();
                let mut out = tape.record(|| {
                    forward_dynamics_aba(&p.model, &p.aba, &d.gq, &d.gqd, &d.gtau).unwrap()
                });
                for seed in &d.seeds {
                    tape.zero();
                    tape.backward_from(&mut out, seed).unwrap();
                }
                drop(d.gtau.grad_to_vec())
            })
        })
    });
    // The same Jacobians, analytic (`aba_derivatives`: RNEA derivatives and
    // the tree-sparse factor of the mass matrix, one launch per call).
    group.bench_function(format!("aba_derivatives_analytic_x{copies}"), |b| {
        b.iter(|| {
            for_each_shard(&mut parts, |_, p| {
                drop(aba_derivatives(&p.model, &p.layout, &p.q, &p.qd, &p.tau).unwrap())
            })
        })
    });
    group.finish();
}

fn benches(c: &mut Criterion) {
    println!("weft CPU device: {} threads (rayon global pool)", threads());
    // Criterion filters the timed functions only; skip the setup (seconds of
    // settling) of groups a filter leaves out.
    let filter = positional_filter();
    let wanted =
        |group: &str| filter.is_empty() || filter.contains(group) || group.contains(&filter);
    if wanted("rollout") {
        rollouts(c, "ant", None);
        rollouts(c, "ant", Some(ANT_DT));
        rollouts(c, "humanoid", None);
        rollouts(c, "humanoid", Some(HUMANOID_DT));
    }
    if wanted("humanoid_call") {
        per_call(c, 1);
        per_call(c, WORLDS);
    }
}

/// Criterion's filter: the positional argument (flags that take a value
/// skip it).
fn positional_filter() -> String {
    const VALUED: [&str; 12] = [
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--save-baseline",
        "--baseline",
        "--load-baseline",
        "--profile-time",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--nresamples",
        "--color",
    ];
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if VALUED.contains(&a.as_str()) {
            args.next();
        } else if !a.starts_with('-') {
            return a;
        }
    }
    String::new()
}

fn main() {
    if std::env::var_os("RAYON_NUM_THREADS").is_none() {
        // One process per thread count: the CPU device's pool is sized once.
        let exe = std::env::current_exe().expect("the bench's own path");
        let args: Vec<String> = std::env::args().skip(1).collect();
        for n in ["1", "2"] {
            let status = std::process::Command::new(&exe)
                .args(&args)
                .env("RAYON_NUM_THREADS", n)
                .status()
                .expect("running the bench with RAYON_NUM_THREADS set");
            assert!(status.success(), "RAYON_NUM_THREADS={n}: {status}");
        }
        return;
    }
    // Short defaults (the whole run takes a few minutes); the command line's
    // `--warm-up-time`, `--measurement-time`, `--sample-size` override them.
    let mut c = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    benches(&mut c);
    c.final_summary();
}
