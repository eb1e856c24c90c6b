//! Gradients through robot rollouts (issue 26, point 7): the tape gradient of
//! a scalar loss on a `FeatherstoneSolver` rollout's final state (a weighted
//! sum of the final `joint_q`, `joint_qd` and body positions) with respect to
//! the initial coordinates, the initial velocities and piecewise-constant
//! joint efforts (`Control::joint_f`), against central finite differences of
//! the same rollout (f32 arrays, the loss summed in f64), for
//!
//! - the cart-pole of `assets/robots/cartpole.xml`, 100 steps of the file's
//!   10 ms, efforts changing every 25 steps (no contacts: its geoms do not
//!   collide);
//! - the 7-DoF arm of `assets/robots/arm7.xml` with a static table top (a
//!   box) added under its hand: 50 steps of the file's 2 ms, its position
//!   drives and gravity pressing the hand onto the table, constant efforts.
//!   The test asserts that the hand penetrates the table at every step (by
//!   6–8 mm), that the contact report found contacts and that the table
//!   changes the final state.
//!
//! Every entry is printed (tape, finite difference, errors), and for the
//! worst entry of each input group the one-sided differences at 10, 3, 1,
//! 0.3 and 0.1 times the step: a kink in the loss shows there as forward and
//! backward differences that stay apart as the step shrinks, f32 rounding as
//! scatter that grows as it shrinks. Asserted per group (initial
//! coordinates, initial velocities, efforts): the largest `|tape − fd|` over
//! the group's largest `|fd|`.
//!
//! Run with `cargo test -p weft-import --test rollout_gradients -- --nocapture`.

use glam::Vec3;
use weft::prelude::*;
use weft_articulation::FeatherstoneSolver;
use weft_import::{ImportOptions, RobotDescription, RobotHandles, RobotOptions, add_robot, load};
use weft_sim::{Control, Model, ModelBuilder, State};

/// `loss[0] += Σ_i w_i x_i`.
#[weft::kernel]
fn weighted_sum(x: &Array<f32>, w: &Array<f32>, loss: &mut Array<f32>) {
    let i = tid();
    atomic_add(&mut loss[0], w[i] * x[i]);
}

/// `loss[0] += Σ_b dot(w_b, p_b)` over body positions.
#[weft::kernel]
fn position_sum(q: &Array<Transform>, w: &Array<Vec3>, loss: &mut Array<f32>) {
    let b = tid();
    atomic_add(&mut loss[0], dot(w[b], q[b].p));
}

/// A robot file of assets/robots.
fn robot(file: &str) -> RobotDescription {
    let path = format!("{}/../../assets/robots/{file}", env!("CARGO_MANIFEST_DIR"));
    load(&path, &ImportOptions::default()).unwrap_or_else(|e| panic!("{file}: {e}"))
}

/// `d` alone in a model on the CPU (no ground, the file's gravity), then
/// whatever `extra` adds.
fn build(d: &RobotDescription, extra: impl FnOnce(&mut ModelBuilder)) -> (Model, RobotHandles) {
    let mut b = ModelBuilder::new();
    b.ground = None;
    b.gravity = d.options.gravity.as_vec3();
    let h = add_robot(&mut b, d, Transform::IDENTITY, &RobotOptions::default()).unwrap();
    extra(&mut b);
    (b.finalize(Device::Cpu).unwrap(), h)
}

/// A rollout whose final state's weighted sum is the loss. Its inputs, flat:
/// the initial `joint_q`, the initial `joint_qd`, then `segments` blocks of
/// joint efforts, block `s` acting during steps `[s, s + 1) · steps / segments`.
struct Rollout {
    model: Model,
    steps: usize,
    dt: f32,
    segments: usize,
    /// Drive targets (`Control::joint_target_pos`); empty: the model's.
    targets: Vec<f32>,
    contacts: bool,
    wq: Vec<f32>,
    wd: Vec<f32>,
    wp: Vec<Vec3>,
}

impl Rollout {
    fn new(model: Model, steps: usize, dt: f32, segments: usize) -> Rollout {
        let (nq, nd, nb) = (
            model.joint_coord_count(),
            model.joint_dof_count(),
            model.body_count(),
        );
        Rollout {
            steps,
            dt,
            segments,
            targets: Vec::new(),
            contacts: true,
            wq: (0..nq).map(|i| 0.7 + 0.3 * i as f32).collect(),
            wd: (0..nd).map(|i| 0.2 - 0.05 * i as f32).collect(),
            wp: (0..nb)
                .map(|b| Vec3::new(0.5, 0.1 * b as f32, -0.4))
                .collect(),
            model,
        }
    }

    /// Sizes of the input blocks: q₀, q̇₀, then each effort segment.
    fn blocks(&self) -> Vec<usize> {
        let nd = self.model.joint_dof_count();
        let mut b = vec![self.model.joint_coord_count(), nd];
        b.extend(std::iter::repeat_n(nd, self.segments));
        b
    }

    /// The flat inputs as arrays, with gradients when `grad`.
    fn arrays(&self, x: &[f32], grad: bool) -> Vec<Array<f32>> {
        let mut at = 0;
        self.blocks()
            .into_iter()
            .map(|n| {
                let a = Array::from_slice(Device::Cpu, &x[at..at + n]);
                at += n;
                if grad { a.requires_grad() } else { a }
            })
            .collect()
    }

    /// Runs the rollout from `inputs`, calling `each(step, solver, state)`
    /// after every step; returns every state (kept for the tape).
    fn run(
        &self,
        inputs: &[Array<f32>],
        grad: bool,
        mut each: impl FnMut(usize, &FeatherstoneSolver, &State),
    ) -> Vec<State> {
        let model = &self.model;
        let mut solver = FeatherstoneSolver::new(model).unwrap();
        solver.enable_contacts = self.contacts;
        // A few contacts at most: small buffers (the adjoint of the contact
        // kernel runs over the buffer's whole capacity).
        solver.collision.pair_capacity = Some(64);
        solver.collision.contact_capacity = Some(64);
        let controls: Vec<Control> = (0..self.segments)
            .map(|s| {
                let mut c = Control::new(model).unwrap();
                c.joint_f = inputs[2 + s].share();
                if !self.targets.is_empty() {
                    c.joint_target_pos = Array::from_slice(Device::Cpu, &self.targets);
                }
                c
            })
            .collect();
        let state = || {
            let s = State::new(model).unwrap();
            if grad { s.requires_grad() } else { s }
        };
        let mut states = vec![state()];
        states[0].joint_q = inputs[0].share();
        states[0].joint_qd = inputs[1].share();
        for k in 0..self.steps {
            let mut next = state();
            let control = &controls[k * self.segments / self.steps];
            solver
                .step(model, &states[k], &mut next, control, self.dt)
                .unwrap();
            each(k + 1, &solver, &next);
            states.push(next);
        }
        states
    }

    /// The loss of a final state, in f64 on the host.
    fn host_loss(&self, end: &State) -> f64 {
        let dot = |x: &[f32], w: &[f32]| -> f64 {
            x.iter().zip(w).map(|(&a, &b)| a as f64 * b as f64).sum()
        };
        let p: f64 = end
            .body_q
            .to_vec()
            .iter()
            .zip(&self.wp)
            .map(|(t, w)| t.p.as_dvec3().dot(w.as_dvec3()))
            .sum();
        dot(&end.joint_q.to_vec(), &self.wq) + dot(&end.joint_qd.to_vec(), &self.wd) + p
    }

    /// The loss at `x` (no tape).
    fn loss(&self, x: &[f32]) -> f64 {
        let states = self.run(&self.arrays(x, false), false, |_, _, _| {});
        self.host_loss(states.last().unwrap())
    }

    /// The loss and its tape gradient at `x`.
    fn tape_gradient(&self, x: &[f32]) -> (f64, Vec<f64>) {
        let inputs = self.arrays(x, true);
        let device = Device::Cpu;
        let mut loss: Array<f32> = Array::zeros(device, [1]).requires_grad();
        let (wq, wd, wp) = (
            Array::from_slice(device, &self.wq),
            Array::from_slice(device, &self.wd),
            Array::from_slice(device, &self.wp),
        );
        let mut tape = Tape::new();
        let host = tape.record(|| {
            let states = self.run(&inputs, true, |_, _, _| {});
            let end = states.last().unwrap();
            weighted_sum::launch(self.wq.len(), &end.joint_q, &wq, &mut loss).unwrap();
            weighted_sum::launch(self.wd.len(), &end.joint_qd, &wd, &mut loss).unwrap();
            position_sum::launch(self.wp.len(), &end.body_q, &wp, &mut loss).unwrap();
            self.host_loss(end)
        });
        let on_device = loss.to_vec()[0] as f64;
        assert!(
            (on_device - host).abs() <= 1e-5 * host.abs().max(1.0),
            "kernel loss {on_device} vs host {host}"
        );
        tape.backward(&mut loss).unwrap();
        let grad = inputs
            .iter()
            .flat_map(|a| a.grad_to_vec().unwrap())
            .map(|g| g as f64)
            .collect();
        (host, grad)
    }

    /// `(loss(x + h e_i), loss(x − h e_i))` and the steps actually taken
    /// forwards and backwards (the inputs are f32).
    fn probe(&self, x: &[f32], i: usize, h: f64) -> (f64, f64, f64, f64) {
        let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
        xp[i] = (x[i] as f64 + h) as f32;
        xm[i] = (x[i] as f64 - h) as f32;
        (
            self.loss(&xp),
            self.loss(&xm),
            xp[i] as f64 - x[i] as f64,
            x[i] as f64 - xm[i] as f64,
        )
    }

    /// Which of [`GROUPS`] flat input `i` belongs to.
    fn group(&self, i: usize) -> usize {
        let nq = self.model.joint_coord_count();
        let nd = self.model.joint_dof_count();
        if i < nq {
            0
        } else if i < nq + nd {
            1
        } else {
            2
        }
    }

    /// The name of flat input `i`.
    fn name(&self, i: usize) -> String {
        let mut at = 0;
        for (b, n) in self.blocks().into_iter().enumerate() {
            if i < at + n {
                let k = i - at;
                return match b {
                    0 => format!("q0[{k}]"),
                    1 => format!("qd0[{k}]"),
                    s => format!("f{}[{k}]", s - 2),
                };
            }
            at += n;
        }
        unreachable!()
    }
}

/// The input groups: initial coordinates, initial velocities, efforts.
const GROUPS: [&str; 3] = ["q0", "qd0", "efforts"];

/// Compares the tape gradient at `x` with central differences, of step
/// `h[g]` for the inputs of group `g`; prints every entry and, for the
/// worst entry of each group, the one-sided differences at 10, 3, 1, 0.3
/// and 0.1 times the step. Returns per group the largest `|tape − fd|`
/// over the group's largest `|fd|`.
fn check(what: &str, r: &Rollout, x: &[f32], h: [f64; 3]) -> [f64; 3] {
    let (l0, tape) = r.tape_gradient(x);
    // The tape's rollout and a plain one give the same loss, to its f32
    // rounding (the arm's loss scatters by ±8e-7 between inputs 2e-5 apart;
    // taped and plain were 2.9e-7 apart with viscous friction, 1.2e-6 with
    // anchored friction).
    let plain = r.loss(x);
    assert!(
        (plain - l0).abs() <= 3e-6 * l0.abs().max(1.0),
        "{plain} vs {l0}"
    );
    let fd: Vec<f64> = (0..x.len())
        .map(|i| {
            let (fp, fm, hp, hm) = r.probe(x, i, h[r.group(i)]);
            (fp - fm) / (hp + hm)
        })
        .collect();
    let mut scale = [0.0f64; 3];
    for (i, v) in fd.iter().enumerate() {
        let g = r.group(i);
        scale[g] = scale[g].max(v.abs());
    }
    println!("{what}: loss {l0:.6}");
    println!(
        "  {:>8} {:>14} {:>14} {:>10} {:>12} {:>10}",
        "input", "tape", "fd", "|t − fd|", "/ group max", "/ |fd|"
    );
    let mut worst = [(0.0f64, usize::MAX); 3];
    for i in 0..x.len() {
        let g = r.group(i);
        let e = (tape[i] - fd[i]).abs();
        let rel = e / scale[g];
        println!(
            "  {:>8} {:>14.6e} {:>14.6e} {:>10.2e} {:>12.2e} {:>10.2e}",
            r.name(i),
            tape[i],
            fd[i],
            e,
            rel,
            e / fd[i].abs()
        );
        // NaN counts as the worst.
        let rel = if rel.is_nan() { f64::INFINITY } else { rel };
        if worst[g].1 == usize::MAX || rel > worst[g].0 {
            worst[g] = (rel, i);
        }
    }
    for (g, &(rel, i)) in worst.iter().enumerate() {
        println!(
            "{what}: {} (central differences, h = {:.0e}): worst |tape − fd| / max|g| = {rel:.2e} (max|g| {:.4e}) at {}: tape {:.6e}, fd {:.6e}",
            GROUPS[g],
            h[g],
            scale[g],
            r.name(i),
            tape[i],
            fd[i]
        );
        println!("  one-sided differences of {}:", r.name(i));
        for m in [10.0, 3.0, 1.0, 0.3, 0.1] {
            let (fp, fm, hp, hm) = r.probe(x, i, m * h[g]);
            println!(
                "    h {:.0e}: forward {:>14.6e}  backward {:>14.6e}  central {:>14.6e}",
                m * h[g],
                (fp - l0) / hp,
                (l0 - fm) / hm,
                (fp - fm) / (hp + hm)
            );
        }
    }
    worst.map(|w| w.0)
}

#[test]
fn cartpole_rollout_gradient_matches_finite_differences() {
    let start = std::time::Instant::now();
    let d = robot("cartpole.xml");
    let dt = d.options.timestep.unwrap() as f32;
    let (model, _) = build(&d, |_| {});
    assert_eq!((model.joint_coord_count(), model.joint_dof_count()), (2, 2));
    let segments = 4;
    let r = Rollout::new(model, 100, dt, segments);
    // Cart at 0.1 m, pole 0.4 rad from upright (it falls and swings
    // through), both moving; efforts on the cart (N) and the pole (N·m),
    // changing every 25 steps, inside the motor's 10 N effort limit.
    let mut x = vec![0.1f32, 0.4, -0.3, 0.5];
    x.extend([1.0f32, 0.02, -2.0, -0.03, 1.5, 0.01, -0.5, 0.02]);
    // The cart stays clear of its ±2 m limits (whose penalty would put a
    // kink in the loss).
    let mut far = 0.0f32;
    r.run(&r.arrays(&x, false), false, |_, _, s| {
        far = far.max(s.joint_q.to_vec()[0].abs());
    });
    println!("cartpole: |cart x| ≤ {far:.3} m over the rollout");
    assert!(far < 1.9, "{far}");
    // The step: the one-sided differences agree with each other and with
    // the tape from 3e-2 down to 1e-3 (no kink: the loss is smooth); below
    // 1e-3 f32 rounding scatters them (about 1e-2 at 1e-4: the loss rounds
    // at about 3e-6), and at 1e-2 the central difference's truncation error
    // shows (6e-4 on q0[1]). 3e-3 lies between: rounding then contributes
    // up to about 3e-6 / 6e-3 = 6e-4 absolute, 3e-4 of the largest entry.
    let h = [3e-3; 3];
    let worst = check("cartpole, 100 steps of 10 ms", &r, &x, h);
    println!("cartpole test time {:.1} s", start.elapsed().as_secs_f64());
    // Seen: 8e-6 (q0), 1.3e-4 (qd0), 6e-5 (efforts). 1e-3 is 3× the
    // rounding bound above and fails on any tape error of 0.1 % of a
    // group's largest entry.
    for (g, w) in worst.iter().enumerate() {
        assert!(*w < 1e-3, "{}: {w}", GROUPS[g]);
    }
}

/// The arm's start: the hand (link 7's capsule) pointing straight down in
/// front of the shoulder (the inverse-kinematics tests' bent pose).
const ARM_Q0: [f32; 7] = [0.0, 0.3, 0.0, -1.5, 0.0, 1.8, 0.0];

/// The hand capsule's lowest point (link 7's capsule from (0, 0, −0.02) to
/// (0, 0, 0.08), radius 0.04, in the link's frame).
fn hand_bottom(link7: Transform) -> Vec3 {
    let a = link7.transform_point(Vec3::new(0.0, 0.0, -0.02));
    let b = link7.transform_point(Vec3::new(0.0, 0.0, 0.08));
    let low = if a.z < b.z { a } else { b };
    low - Vec3::new(0.0, 0.0, 0.04)
}

/// Two materials' series combination, as the contacts take it.
fn series(a: f32, b: f32) -> f32 {
    if a + b > 0.0 { a * b / (a + b) } else { 0.0 }
}

#[test]
fn arm_touching_a_table_rollout_gradient_matches_finite_differences() {
    let start = std::time::Instant::now();
    let d = robot("arm7.xml");
    let dt = d.options.timestep.unwrap() as f32;
    // Where the hand is at the start.
    let (free_model, h) = build(&d, |_| {});
    let mut s = State::new(&free_model).unwrap();
    s.joint_q = Array::from_slice(Device::Cpu, &ARM_Q0);
    weft_articulation::eval_fk(&free_model, &mut s).unwrap();
    let link7 = h.bodies[7];
    let hand_shape = h.shapes[d
        .geoms
        .iter()
        .position(|g| g.name.as_deref() == Some("link7"))
        .unwrap()]
    .unwrap();
    let hand0 = hand_bottom(s.body_q.to_vec()[link7]);
    // A table top (a static box, 40 × 40 × 4 cm) under the hand, its top
    // 7 mm above the hand's lowest point: the hand starts pressed in, about
    // where the drives and gravity hold it, and stays in contact for the
    // whole rollout. Why pressed in, not dropped onto it: a touch-down (or a
    // lift-off) inside the rollout makes the loss piecewise smooth, with a
    // kink wherever the first (last) penetrating step changes. Dropped from
    // 1 cm (the table's ke 1e5, kd 0, μ 1; shoulder target +0.15), the
    // kinks nearest the start lay between 3e-4 and 1e-3 rad of the shoulder
    // coordinate away on either side: the tape's ∂loss/∂q0[1] = −2.79, the
    // one-sided differences at 3e-4 and 1e-4 −2.77 to −2.82, those at 1e-3
    // −0.43 (forward) and 3.18 (backward), at 1e-2 −1.03 and 3.11; the tape
    // is right for its piece of the loss, and no finite difference above
    // 3e-4 measures it (nor one below 1e-4, in f32). The table is soft (ke
    // 1e4, in series with the hand's 1e5: 9.1e3 N/m), so a perturbation of
    // 1e-3 rad (≤ 0.6 mm at the hand) never lifts it off; it has no damper
    // (kd 0): the approach-only damper switches with the sign of the normal
    // velocity; and μ = 2 (1.5 with the hand's 1) keeps friction away from
    // its Coulomb cap, where it would switch from sticking to sliding (the
    // slip damper's share `kf v_t < μ f_n` is checked below; the anchored
    // spring's share is not observable here: the one-sided differences
    // agreeing from 3e-3 down is the sign that no step switched).
    let top = hand0.z + 0.007;
    let table = weft_collide::Material {
        ke: 1.0e4,
        kd: 0.0,
        mu: 2.0,
        mu_static: 2.0,
        ..weft_collide::Material::default()
    };
    let (model, _) = build(&d, |b| {
        b.add_body_shape_with(
            -1,
            Transform::from_translation(Vec3::new(hand0.x, hand0.y, top - 0.02)),
            weft_collide::Geometry::Box {
                half_extents: Vec3::new(0.2, 0.2, 0.02),
            },
            table,
        );
    });
    let shapes = &model.rigid_shapes;
    let table_shape = shapes.body.len() - 1;
    let pair = |a: &Array<f32>| {
        let v = a.to_vec();
        (v[hand_shape], v[table_shape])
    };
    let (ke, kf, mu) = (pair(&shapes.ke), pair(&shapes.kf), pair(&shapes.mu));
    let (ke, kf, mu) = (series(ke.0, ke.1), series(kf.0, kf.1), 0.5 * (mu.0 + mu.1));
    let body_com = model.body_com.to_vec();
    let mut r = Rollout::new(model, 50, dt, 1);
    // The position drives (kp 100, kv 10 from the file) pull the shoulder
    // 0.3 rad further forward: with gravity, they push the hand down.
    let mut targets = ARM_Q0.to_vec();
    targets[1] += 0.3;
    r.targets = targets;
    // Moving at the start, and constant efforts on every joint (N·m).
    let mut x = ARM_Q0.to_vec();
    x.extend([0.1f32, 0.3, -0.2, 0.2, 0.1, -0.3, 0.2]);
    x.extend([0.5f32, 1.0, -0.3, 0.4, 0.2, -0.2, 0.1]);
    // The hand touches the table at every step, and the slip damper's
    // friction stays under the cap.
    let (mut shallowest, mut deepest, mut friction) = (f32::INFINITY, 0.0f32, 0.0f32);
    let states = r.run(&r.arrays(&x, false), false, |k, solver, s| {
        let report = solver.contact_report().unwrap();
        assert!(
            report.found >= 1 && report.overflow + report.pair_overflow == 0,
            "step {k}: {report:?}"
        );
        let pose = s.body_q.to_vec()[link7];
        let twist = s.body_qd.to_vec()[link7];
        let p = hand_bottom(pose);
        let depth = top - p.z;
        assert!(
            (p - hand0).truncate().length() < 0.15,
            "step {k}: the hand left the table top: {p:?}"
        );
        shallowest = shallowest.min(depth);
        deepest = deepest.max(depth);
        let v = twist.top
            + twist
                .bottom
                .cross(p - pose.transform_point(body_com[link7]));
        let slip = v.truncate().length();
        friction = friction.max(kf * slip / (mu * ke * depth.max(0.0)));
    });
    let end = states.last().unwrap();
    let hand_end = hand_bottom(end.body_q.to_vec()[link7]);
    // Without the table the hand would end elsewhere.
    r.contacts = false;
    let free = r.run(&r.arrays(&x, false), false, |_, _, _| {});
    r.contacts = true;
    let hand_free = hand_bottom(free.last().unwrap().body_q.to_vec()[link7]);
    println!(
        "hand–table contact: ke {ke:.1} N/m, kf {kf:.1} N·s/m, μ {mu} (series and mean of the two shapes')"
    );
    println!(
        "arm on the table: hand penetration in [{:.2} mm, {:.2} mm] at every step; largest kf·v_t / (μ f_n) {friction:.2}; final hand bottom z {:.4} m ({:.4} m without the table)",
        shallowest * 1e3,
        deepest * 1e3,
        hand_end.z,
        hand_free.z
    );
    assert!(shallowest > 2e-3, "{shallowest}");
    assert!(friction < 0.9, "{friction}");
    assert!(
        hand_end.z - hand_free.z > 5e-3,
        "{} vs {}",
        hand_end.z,
        hand_free.z
    );
    // Steps per group, each moving the arm by about 1e-3 rad: the loss
    // rounds at about 1e-6 (the scatter of the one-sided differences at the
    // smallest steps), and the initial velocities and the efforts move the
    // final state little (gradients ~1e-2 against ~3 for the coordinates),
    // so they take larger steps. The printed one-sided differences agree
    // from 3e-3 down for the coordinates (at 1e-2 the contact's curvature
    // shows: forward and backward 3.70 and 2.71 on q0[1]), from 0.3 down
    // for the velocities (at 1 rad/s they part: no longer a small change),
    // and from 3 down for the efforts (nearly linear).
    let steps = [1e-3, 1e-1, 3e-1];
    let worst = check("arm7 pressing on a table, 50 steps of 2 ms", &r, &x, steps);
    println!("arm test time {:.1} s", start.elapsed().as_secs_f64());
    // Seen: 3.0e-4 (q0), 1.4e-3 (qd0), 2.2e-4 (efforts) of each group's
    // largest entry, within 2.5× of the rounding estimate 1e-6 / (2 h
    // max|g|) (1.5e-4, 5.7e-4, 1.4e-4). The bounds are 10×, 7× and 14×
    // what was seen.
    let tolerance = [3e-3, 1e-2, 3e-3];
    for (g, w) in worst.iter().enumerate() {
        assert!(*w < tolerance[g], "{}: {w}", GROUPS[g]);
    }
}
